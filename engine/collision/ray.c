/* Ray casts: where a ray first meets a geom's surface, for rangefinder and
 * touch sensors (sensor.c) and for users (imp_ray, impetus.h).
 *
 * Promises: a ray is pnt + t vec with t >= 0; every function returns the
 * smallest such t at which the ray meets the surface (so in units of |vec|,
 * metres for a unit vec), or -1 when it never does. A ray that starts
 * inside a solid meets the surface on its way out: the inner volume is not
 * sensed, the surface is (MuJoCo's rangefinder rule). Nothing allocates.
 *
 * Method: the ray is carried into the shape's frame (p = R'(pnt - pos),
 * v = R' vec) and intersected there:
 *  - sphere and ellipsoid (a sphere after scaling the axes by 1/size, which
 *    keeps t): the roots of |p + t v|^2 = 1;
 *  - box and cylinder: the interval of t inside each slab |p_i + t v_i| <=
 *    size_i (for the cylinder, the z slab and the infinite cylinder x^2 +
 *    y^2 <= r^2); the solid is their intersection [t0, t1], and the answer
 *    t0 when t0 >= 0, else t1 (from inside);
 *  - capsule: the roots on its side (|z| <= half length) and on its two
 *    end spheres (beyond them), the smallest >= 0;
 *  - plane: one-sided, as MuJoCo 2.2.2 treats it: met only from its front
 *    (local z > 0) going down, and only inside its rectangle when size[0]
 *    or size[1] is positive (measured: a rangefinder below a floor looking
 *    up sees through it);
 *  - mesh: every triangle, either facing (Moller and Trumbore 1997), after
 *    a test of the geom's bounding sphere;
 *  - height field: the union of its prisms (collide_hfield.c), each a
 *    convex solid clipped by its five planes (Cyrus and Beck 1978), over
 *    the cells the ray crosses inside the field's box, walked row band by
 *    row band in the ray's order up to the nearest hit, passing over bands
 *    and cells the ray is above; from inside, the ray leaves through the
 *    union's surface.
 * imp_ray skips, as MuJoCo's rangefinder does, the geoms of one body and
 * the invisible geoms (alpha 0 in the geom's rgba or its material's). */
#include <math.h>

#include "engine.h"
#include "collision/collision.h"
#include "core/mathx.h"

/* Below this a ray direction component is treated as zero (parallel to a
   slab or a plane). */
#define RAY_EPS 1e-15

/* smallest root >= 0 of a t^2 + 2 b t + c = 0 (a > 0), -1 when none */
static double smallest_root(double a, double b, double c) {
  double disc = b * b - a * c;
  if (disc < 0 || a < RAY_EPS) return -1;
  double sq = sqrt(disc);
  double t0 = (-b - sq) / a, t1 = (-b + sq) / a;
  return t0 >= 0 ? t0 : t1 >= 0 ? t1 : -1;
}

/* the interval [*lo, *hi] narrowed to the t where |p + t v| <= s; 0 when it
   becomes empty */
static int clip_slab(double p, double v, double s, double* lo, double* hi) {
  if (fabs(v) < RAY_EPS) return fabs(p) <= s;
  double a = (-s - p) / v, b = (s - p) / v;
  if (a > b) {
    double t = a;
    a = b, b = t;
  }
  if (a > *lo) *lo = a;
  if (b < *hi) *hi = b;
  return *lo <= *hi;
}

/* the answer of a convex solid occupying [lo, hi] along the ray */
static double interval_hit(double lo, double hi) { return lo >= 0 ? lo : hi >= 0 ? hi : -1; }

static double ray_sphere(const double p[3], const double v[3], double r) {
  return smallest_root(imp_dot(v, v, 3), imp_dot(p, v, 3), imp_dot(p, p, 3) - r * r);
}

static double ray_ellipsoid(const double p[3], const double v[3], const double s[3]) {
  double ps[3], vs[3];
  for (int i = 0; i < 3; i++) ps[i] = p[i] / s[i], vs[i] = v[i] / s[i];
  return ray_sphere(ps, vs, 1);
}

static double ray_box(const double p[3], const double v[3], const double s[3]) {
  double lo = -INFINITY, hi = INFINITY;
  for (int i = 0; i < 3; i++)
    if (!clip_slab(p[i], v[i], s[i], &lo, &hi)) return -1;
  return interval_hit(lo, hi);
}

/* the t where x^2 + y^2 <= r^2 narrows [*lo, *hi]; 0 when empty */
static int clip_round(const double p[3], const double v[3], double r, double* lo, double* hi) {
  double a = v[0] * v[0] + v[1] * v[1], b = p[0] * v[0] + p[1] * v[1];
  double c = p[0] * p[0] + p[1] * p[1] - r * r;
  if (a < RAY_EPS) return c <= 0; /* along the axis: inside or never */
  double disc = b * b - a * c;
  if (disc < 0) return 0;
  double sq = sqrt(disc);
  double t0 = (-b - sq) / a, t1 = (-b + sq) / a;
  if (t0 > *lo) *lo = t0;
  if (t1 < *hi) *hi = t1;
  return *lo <= *hi;
}

static double ray_cylinder(const double p[3], const double v[3], const double s[3]) {
  double lo = -INFINITY, hi = INFINITY;
  if (!clip_slab(p[2], v[2], s[1], &lo, &hi) || !clip_round(p, v, s[0], &lo, &hi)) return -1;
  return interval_hit(lo, hi);
}

/* keep t as the best answer when it is >= 0 and below the current one */
static void keep_nearer(double* best, double t) {
  if (t >= 0 && (*best < 0 || t < *best)) *best = t;
}

static double ray_capsule(const double p[3], const double v[3], const double s[3]) {
  double r = s[0], h = s[1], best = -1;
  /* side: both roots of the infinite cylinder, kept where |z| <= h */
  double a = v[0] * v[0] + v[1] * v[1], b = p[0] * v[0] + p[1] * v[1];
  double c = p[0] * p[0] + p[1] * p[1] - r * r, disc = b * b - a * c;
  if (a >= RAY_EPS && disc >= 0) {
    double sq = sqrt(disc);
    for (int k = -1; k <= 1; k += 2) {
      double t = (-b + k * sq) / a;
      if (fabs(p[2] + t * v[2]) <= h) keep_nearer(&best, t);
    }
  }
  /* end spheres: both roots, kept on the cap beyond the side */
  for (int e = -1; e <= 1; e += 2) {
    double q[3] = {p[0], p[1], p[2] - e * h};
    double aa = imp_dot(v, v, 3), bb = imp_dot(q, v, 3), cc = imp_dot(q, q, 3) - r * r;
    double dd = bb * bb - aa * cc;
    if (aa < RAY_EPS || dd < 0) continue;
    double sq = sqrt(dd);
    for (int k = -1; k <= 1; k += 2) {
      double t = (-bb + k * sq) / aa;
      if (e * (q[2] + t * v[2]) >= 0) keep_nearer(&best, t);
    }
  }
  return best;
}

static double ray_plane(const double p[3], const double v[3], const double s[3]) {
  if (p[2] < 0 || v[2] > -RAY_EPS) return -1; /* behind it, or not going down */
  double t = -p[2] / v[2];
  double x = p[0] + t * v[0], y = p[1] + t * v[1];
  if ((s[0] > 0 && fabs(x) > s[0]) || (s[1] > 0 && fabs(y) > s[1])) return -1;
  return t;
}

/* the ray in the frame (pos, mat): p = R'(pnt - pos), v = R' vec */
static void to_local(const double pos[3], const double mat[9], const double pnt[3],
                     const double vec[3], double p[3], double v[3]) {
  double d[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
  imp_mat3T_vec(p, mat, d);
  imp_mat3T_vec(v, mat, vec);
}

double imp_ray_primitive(int type, const double pos[3], const double mat[9], const double size[3],
                         const double pnt[3], const double vec[3]) {
  double p[3], v[3];
  to_local(pos, mat, pnt, vec, p, v);
  switch (type) {
    case IMP_GEOM_PLANE: return ray_plane(p, v, size);
    case IMP_GEOM_SPHERE: return ray_sphere(p, v, size[0]);
    case IMP_GEOM_CAPSULE: return ray_capsule(p, v, size);
    case IMP_GEOM_ELLIPSOID: return ray_ellipsoid(p, v, size);
    case IMP_GEOM_CYLINDER: return ray_cylinder(p, v, size);
    case IMP_GEOM_BOX: return ray_box(p, v, size);
    default: return -1;
  }
}

/* t of the ray p + t v through triangle (a, b, c), either facing; -1 when it
   misses (Moller and Trumbore 1997: barycentric coordinates by Cramer's
   rule on [-v, b - a, c - a]) */
static double ray_triangle(const double p[3], const double v[3], const double* a, const double* b,
                           const double* c) {
  double e1[3], e2[3], pv[3], tv[3], qv[3];
  for (int i = 0; i < 3; i++) e1[i] = b[i] - a[i], e2[i] = c[i] - a[i], tv[i] = p[i] - a[i];
  imp_cross(pv, v, e2);
  double det = imp_dot(e1, pv, 3);
  if (fabs(det) < RAY_EPS * (imp_dot(e1, e1, 3) + imp_dot(e2, e2, 3))) return -1;
  double inv = 1 / det, u = imp_dot(tv, pv, 3) * inv;
  if (u < 0 || u > 1) return -1;
  imp_cross(qv, tv, e1);
  double w = imp_dot(v, qv, 3) * inv;
  if (w < 0 || u + w > 1) return -1;
  double t = imp_dot(e2, qv, 3) * inv;
  return t >= 0 ? t : -1;
}

/* nearest triangle of mesh geom g (vertices in the mesh frame, which the
   geom's world frame places) */
static double ray_mesh(const imp_model* m, const imp_data* d, int g, const double pnt[3],
                       const double vec[3]) {
  double p[3], v[3], best = -1;
  to_local(d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, pnt, vec, p, v);
  int me = m->geom_dataid[g];
  if (me < 0) return -1;
  const double* vert = m->mesh_vert + 3 * (size_t)m->mesh_vertadr[me];
  const int* face = m->mesh_face + 3 * (size_t)m->mesh_faceadr[me];
  for (int f = 0; f < m->mesh_facenum[me]; f++) {
    const int* t = face + 3 * f;
    keep_nearer(&best, ray_triangle(p, v, vert + 3 * t[0], vert + 3 * t[1], vert + 3 * t[2]));
  }
  return best;
}

/* The interval [*lo, *hi] of the local ray p + t v inside the prism over
   the triangle (a, b, c) (tops at their z) down to z = -base: clipped by
   the top plane, the base and the three vertical walls, each with its
   outward normal. 0 when empty. */
static int clip_prism(const double p[3], const double v[3], double tri[3][3], double base,
                      double* lo, double* hi) {
  double n[5][3], h[5];
  double e1[3], e2[3];
  for (int i = 0; i < 3; i++) e1[i] = tri[1][i] - tri[0][i], e2[i] = tri[2][i] - tri[0][i];
  imp_cross(n[0], e1, e2);
  if (n[0][2] < 0) imp_scl(n[0], n[0], -1, 3); /* the top faces up */
  h[0] = imp_dot(n[0], tri[0], 3);
  n[1][0] = n[1][1] = 0, n[1][2] = -1, h[1] = base;
  for (int k = 0; k < 3; k++) { /* wall through edge (k, k+1), away from the third vertex */
    const double *a = tri[k], *b = tri[(k + 1) % 3], *c = tri[(k + 2) % 3];
    double* w = n[2 + k];
    w[0] = b[1] - a[1], w[1] = -(b[0] - a[0]), w[2] = 0;
    if (w[0] * (c[0] - a[0]) + w[1] * (c[1] - a[1]) > 0) w[0] = -w[0], w[1] = -w[1];
    h[2 + k] = w[0] * a[0] + w[1] * a[1];
  }
  for (int f = 0; f < 5; f++) {
    double np = imp_dot(n[f], p, 3) - h[f], nv = imp_dot(n[f], v, 3);
    double scale = imp_norm3(n[f]) * imp_norm3(v);
    if (fabs(nv) <= RAY_EPS * scale) {
      if (np > 0) return 0;
      continue;
    }
    double t = -np / nv;
    if (nv > 0) *hi = fmin(*hi, t);
    else *lo = fmax(*lo, t);
    if (*lo > *hi) return 0;
  }
  return 1;
}

/* the field's grid, its data and the ray in its frame; tslack[axis]:
   hf_t_margin's part that depends on the ray alone */
typedef struct hf_ray {
  const double* size;
  const float* data;
  int nrow, ncol;
  double dx, dy, p[3], v[3], tslack[2];
} hf_ray;

/* the two prisms of cell (r, c), in collide_hfield.c's triangulation */
static void cell_prism(const hf_ray* f, int r, int c, int t, double tri[3][3]) {
  static const int corner[2][3][2] = {{{1, 0}, {0, 0}, {1, 1}}, {{0, 0}, {1, 1}, {0, 1}}};
  for (int k = 0; k < 3; k++) {
    int rr = r + corner[t][k][0], cc = c + corner[t][k][1];
    tri[k][0] = f->dx * cc - f->size[0];
    tri[k][1] = f->dy * rr - f->size[1];
    tri[k][2] = f->data[rr * f->ncol + cc] * f->size[2];
  }
}

/* The range [*lo, *hi] of one coordinate p + t v of the ray over t in
   [a, b] (p alone when the ray is parallel to that axis); 0 when it is not
   finite (an unbounded stretch), and the callers then visit everything. */
static int coord_span(double p, double v, double a, double b, double* lo, double* hi) {
  double ca = p + a * v, cb = p + b * v;
  if (fabs(v) < RAY_EPS) ca = cb = p;
  *lo = fmin(ca, cb), *hi = fmax(ca, cb);
  return isfinite(ca) && isfinite(cb);
}

/* The rows r0..r1 whose bands the ray can cross for t in [t0, t1]: those
   within a row of the ray's y range (the band test itself, clip_slab in
   hf_cells, decides; this only spares the rows far from the ray). */
static void hf_rows(const hf_ray* f, double t0, double t1, int* r0, int* r1) {
  *r0 = 0, *r1 = f->nrow - 2;
  double ylo, yhi;
  if (!coord_span(f->p[1], f->v[1], t0, t1, &ylo, &yhi)) return;
  double lo = (ylo + f->size[1]) / f->dy - 1, hi = (yhi + f->size[1]) / f->dy + 1;
  if (lo > *r0) *r0 = lo > *r1 ? *r1 + 1 : (int)floor(lo);
  if (hi < *r1) *r1 = hi < 0 ? -1 : (int)floor(hi);
}

/* the rounding margin of hf_below_ray's test, for the ray's z range
   [zlo, zhi]: 1e-9 of the field's scale */
static double hf_z_margin(const hf_ray* f, double zlo, double zhi) {
  return 1e-9 * (f->size[2] + f->size[3] + fabs(zlo) + fabs(zhi));
}

/* 1 when the ray, over [a, b] (its stretch in cell (r, c)'s row band),
   passes above every point of the cell's two prisms where it is within
   half a cell of the column: the cell's prisms are below the highest of
   its four corners, so clip_prism would find nothing there. The margin
   (hf_z_margin) keeps the rounding of clip_prism's own planes on the side
   of visiting: a cell skipped here is one whose prisms it rejects. */
static int hf_cell_below_ray(const hf_ray* f, int r, int c, double a, double b) {
  double xc = f->dx * (c + 0.5) - f->size[0];
  if (!clip_slab(f->p[0] - xc, f->v[0], f->dx, &a, &b)) return 1; /* half a cell away, or more */
  double zlo, zhi;
  if (!coord_span(f->p[2], f->v[2], a, b, &zlo, &zhi)) return 0;
  const float* h0 = f->data + r * f->ncol + c;
  const float* h1 = h0 + f->ncol;
  double top = fmax(fmax(h0[0], h0[1]), fmax(h1[0], h1[1])) * f->size[2];
  return zlo > top + hf_z_margin(f, zlo, zhi);
}

/* 1 when the ray, over [a, b] (its stretch in row band r, which reaches
   columns c0..c1), passes above the highest corner of all those cells by
   twice hf_cell_below_ray's margin: then that test skips every one of
   them (each cell's stretch lies inside [a, b], so its z range inside
   this one, whose margin is at least half of any sub-range's), and the
   band is passed over at the cost of reading its heights, a loop the
   compiler vectorizes, instead of a test per cell. A ray climbing away
   over a flat field (dm_control's quadruped) crosses a hundred cells of a
   band, none near it. */
static int hf_band_below_ray(const hf_ray* f, int r, int c0, int c1, double a, double b) {
  double zlo, zhi;
  if (!coord_span(f->p[2], f->v[2], a, b, &zlo, &zhi)) return 0;
  const float* h0 = f->data + r * f->ncol;
  const float* h1 = h0 + f->ncol;
  float hmax = -INFINITY;
  for (int c = c0; c <= c1 + 1; c++) {
    float h = h0[c] > h1[c] ? h0[c] : h1[c];
    hmax = h > hmax ? h : hmax;
  }
  return zlo > hmax * f->size[2] + 2 * hf_z_margin(f, zlo, zhi);
}

/* A slack on the t at which the ray enters a row band (axis 1) or a
   column (axis 0), beyond the t of a hit already found, before the walk
   may stop: a prism of that band or column is entered no earlier than
   the band or column, up to the rounding of clip_prism's and clip_slab's
   divisions by the ray's component along the axis, which this bounds
   with room to spare. Infinite (never stop) for a ray parallel to the
   axis's lines, whose entry t is then t0 throughout. */
static double hf_t_margin(const hf_ray* f, int axis, double t) {
  return 1e-9 * (1 + fabs(t)) + f->tslack[axis];
}

/* the nearest hit so far, or limit when that is nearer (INFINITY: none) */
static double hf_bound(double enter, double limit) {
  return enter >= 0 && enter < limit ? enter : limit;
}

/* Over the cells the ray crosses for t in [t0, t1]: the nearest entry
   t >= 0 into a prism (*enter, -1 none), and with extend the end of the
   union's stretch that holds t = *exit (moved forward while a prism holds
   it). Rows are visited as bands of y (only those near the ray's y range,
   hf_rows) in the order the ray crosses them, each band's columns from
   the x the ray has in it, again in the ray's order; a band or a cell the
   ray passes above is not clipped (hf_band_below_ray, hf_cell_below_ray).
   Without extend the walk stops at the first band or column the ray
   enters beyond the nearest hit so far, or beyond limit (the caller needs
   no hit farther than that): no prism there is entered earlier, so the
   answer is that of a visit of every crossed cell (the same minimum of
   the same clip_prism values) whenever it is below limit. Rangefinders
   over a large field (dm_control's quadruped: 201 x 201) looked at every
   band and every crossed cell. */
static void hf_cells(const hf_ray* f, double t0, double t1, double limit, double* enter,
                     double* exit, int extend) {
  int r0, r1;
  hf_rows(f, t0, t1, &r0, &r1);
  int rstep = f->v[1] < 0 ? -1 : 1, cstep = f->v[0] < 0 ? -1 : 1;
  for (int k = 0; k <= r1 - r0; k++) {
    int r = rstep > 0 ? r0 + k : r1 - k;
    double y0 = f->dy * r - f->size[1], y1 = y0 + f->dy;
    double a = t0, b = t1;
    if (!clip_slab(f->p[1] - 0.5 * (y0 + y1), f->v[1], 0.5 * f->dy, &a, &b)) continue;
    double bound = hf_bound(*enter, limit);
    if (!extend && bound < INFINITY && a > bound + hf_t_margin(f, 1, bound)) break;
    double xa = f->p[0] + a * f->v[0], xb = f->p[0] + b * f->v[0];
    int c0 = (int)floor((fmin(xa, xb) + f->size[0]) / f->dx);
    int c1 = (int)floor((fmax(xa, xb) + f->size[0]) / f->dx);
    c0 = c0 < 0 ? 0 : c0 > f->ncol - 2 ? f->ncol - 2 : c0;
    c1 = c1 < 0 ? 0 : c1 > f->ncol - 2 ? f->ncol - 2 : c1;
    if (hf_band_below_ray(f, r, c0, c1, a, b)) continue;
    for (int j = 0; j <= c1 - c0; j++) {
      int c = cstep > 0 ? c0 + j : c1 - j;
      bound = hf_bound(*enter, limit);
      if (!extend && bound < INFINITY) { /* the t at which the ray enters the column */
        double ca = a, cb = b, xm = f->dx * (c + 0.5) - f->size[0];
        if (clip_slab(f->p[0] - xm, f->v[0], 0.5 * f->dx, &ca, &cb) &&
            ca > bound + hf_t_margin(f, 0, bound))
          break;
      }
      if (hf_cell_below_ray(f, r, c, a, b)) continue;
      for (int t = 0; t < 2; t++) {
        double tri[3][3], lo = t0, hi = t1;
        cell_prism(f, r, c, t, tri);
        if (!clip_prism(f->p, f->v, tri, f->size[3], &lo, &hi)) continue;
        if (lo >= 0 && (*enter < 0 || lo < *enter)) *enter = lo;
        if (extend && lo <= *exit && hi > *exit) *exit = hi;
      }
    }
  }
}

/* nearest point of the union of height field g's prisms; when that is at
   limit or beyond, any t >= limit or -1 (the caller keeps only nearer
   hits, and the walk stops sooner) */
static double ray_hfield(const imp_model* m, const imp_data* d, int g, const double pnt[3],
                         const double vec[3], double limit) {
  int h = m->geom_dataid[g];
  if (h < 0) return -1;
  hf_ray f = {m->hfield_size + 4 * h, m->hfield_data + m->hfield_adr[h], m->hfield_nrow[h],
              m->hfield_ncol[h], 0, 0, {0, 0, 0}, {0, 0, 0}, {0, 0}};
  f.dx = 2 * f.size[0] / (f.ncol - 1);
  f.dy = 2 * f.size[1] / (f.nrow - 1);
  to_local(d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, pnt, vec, f.p, f.v);
  for (int k = 0; k < 2; k++) f.tslack[k] = 1e-12 * (fabs(f.p[k]) + f.size[k]) / fabs(f.v[k]);
  /* the stretch of the ray inside the field's box */
  double t0 = -INFINITY, t1 = INFINITY;
  if (!clip_slab(f.p[0], f.v[0], f.size[0], &t0, &t1) ||
      !clip_slab(f.p[1], f.v[1], f.size[1], &t0, &t1) ||
      !clip_slab(f.p[2] - 0.5 * (f.size[2] - f.size[3]), f.v[2], 0.5 * (f.size[2] + f.size[3]),
                 &t0, &t1) ||
      t1 < 0)
    return -1;
  /* the start inside a prism: out through the union's surface, the
     stretch grown while another prism holds its end (each pass adds one,
     a stretch crosses at most every cell) */
  int inside = 0;
  {
    double e = -1, x = 0;
    hf_cells(&f, fmax(t0, 0), fmax(t0, 0), INFINITY, &e, &x, 0);
    inside = e == 0 && !(t0 > 0);
  }
  double enter = -1, exit = 0;
  if (!inside) {
    hf_cells(&f, t0, t1, limit, &enter, &exit, 0);
    return enter;
  }
  for (int pass = 0; pass < 2 * f.nrow * f.ncol; pass++) {
    double before = exit;
    double e = -1;
    hf_cells(&f, t0, t1, INFINITY, &e, &exit, 1);
    if (!(exit > before)) break;
  }
  return exit;
}

/* 1 when the ray misses the sphere of radius r about c */
static int misses_sphere(const double c[3], double r, const double pnt[3], const double vec[3]) {
  double q[3] = {pnt[0] - c[0], pnt[1] - c[1], pnt[2] - c[2]};
  return smallest_root(imp_dot(vec, vec, 3), imp_dot(q, vec, 3), imp_dot(q, q, 3) - r * r) < 0;
}

/* geoms a rangefinder does not see: alpha 0 in the geom's or its material's rgba */
static int invisible(const imp_model* m, int g) {
  int mat = m->geom_matid[g];
  return m->geom_rgba[4 * g + 3] == 0 || (mat >= 0 && m->mat_rgba[4 * mat + 3] == 0);
}

double imp_ray(const imp_model* m, const imp_data* d, const double pnt[3], const double vec[3],
               int bodyexclude, int* geomid) {
  double best = -1;
  int hit = -1;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_bodyid[g] == bodyexclude || invisible(m, g)) continue;
    int type = m->geom_type[g];
    const double *pos = d->geom_xpos + 3 * g, *mat = d->geom_xmat + 9 * g;
    if (type != IMP_GEOM_PLANE && misses_sphere(pos, m->geom_rbound[g], pnt, vec)) continue;
    double t = type == IMP_GEOM_MESH     ? ray_mesh(m, d, g, pnt, vec)
               : type == IMP_GEOM_HFIELD ? ray_hfield(m, d, g, pnt, vec, best < 0 ? INFINITY : best)
                                         : imp_ray_primitive(type, pos, mat, m->geom_size + 3 * g,
                                                             pnt, vec);
    if (t >= 0 && (best < 0 || t < best)) best = t, hit = g;
  }
  if (geomid) *geomid = hit;
  return best;
}
