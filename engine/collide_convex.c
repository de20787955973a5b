/* The general convex narrow phase: the support point of every convex geom,
 * any pair of them through libccd, and a plane against an ellipsoid or a
 * mesh hull.
 *
 * Algorithm: Minkowski Portal Refinement (G. Snethen, "XenoCollide",
 * Game Programming Gems 7, 2008) as libccd's ccdMPRPenetration, rather than
 * libccd's GJK+EPA (ccdGJKPenetration), because
 *  - EPA builds its polytope with malloc on every call, and collision runs
 *    inside the step, where the project allows no allocation; MPR keeps a
 *    four-point portal on the stack;
 *  - on the tests of test_collide_convex.c MPR is at least as accurate at
 *    the shallow depths contacts live at (both within the tolerance), and
 *    libccd's EPA returns no usable direction for touching or nearly
 *    touching pairs, the case every resting contact is in (measured in a
 *    scratch program, see the commit message);
 *  - MuJoCo uses MPR too, so its results are a direct oracle.
 * What MPR reports is the Minkowski-difference face hit by the ray from
 * (centre1 - centre2) through the origin. For the shallow penetrations of
 * contacts that face is the one nearest the origin, so depth and normal are
 * the minimum translation; for deep penetration of elongated shapes it can
 * be another face (still a separating direction, never NaN).
 *
 * Margin: each shape's support is pushed out by margin/2 along the query
 * direction (the Minkowski sum with a ball of radius margin/2), so pairs
 * whose surfaces are closer than margin overlap; the inflated depth is
 * depth + margin, hence dist = margin - depth_inflated. */
#include <ccd/ccd.h>
#include <math.h>

#include "collision.h"
#include "mathx.h"

/* MPR stops refining when a new support point lifts the portal by less than
   this along its normal, so the reported depth is within ~this of the
   Minkowski boundary along the reported normal. 1e-6 m is three orders
   below the smallest geoms a model is built from (millimetres) and far below
   what the soft contact solver resolves; tighter only costs iterations on
   curved shapes (portal refinement converges roughly quadratically there). */
#define IMP_MPR_TOLERANCE 1e-6
/* Bound on the refinement of the penetration portal; curved pairs need
   ~10-25 at the tolerance above (measured), polyhedra fewer. The bound only
   guards degenerate input: libccd then reports the last portal. */
#define IMP_MPR_MAXITER 100
/* Steps of the normal's polishing (polish_normal), each two support
   calls: the Barzilai-Borwein steps converge fast on smooth curved pairs; a
   flat contact stops after ~15 rejected (quartered) steps; where the optimum
   sits on a kink (the side of a capsule near its end, where the support
   jumps between ends) progress is slow, and 100 steps bring the distance
   within 1e-6 (measured, capsule_ellipsoid_sphere_closed_form). */
#define IMP_POLISH_MAXITER 100
#define IMP_POLISH_ANGLE 1e-9

/* ---- support points ---- */

/* Support of geom g's shape in its own frame along the unit local
   direction u: a point p of the surface maximizing u . p. */
static void local_support(const imp_model* m, int g, const double u[3], double p[3]) {
  const double* s = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case IMP_GEOM_SPHERE:
      imp_scl(p, u, s[0], 3);
      break;
    case IMP_GEOM_CAPSULE: /* sphere swept along the segment: sum of supports */
      imp_scl(p, u, s[0], 3);
      p[2] += u[2] >= 0 ? s[1] : -s[1];
      break;
    case IMP_GEOM_ELLIPSOID: {
      /* maximize u.p on sum p_i^2/a_i^2 = 1: Lagrange gives p_i = a_i^2 u_i / l,
         the constraint fixes l = |S u| with S = diag(a); l > 0 for unit u */
      double su[3] = {s[0] * u[0], s[1] * u[1], s[2] * u[2]};
      double l = imp_norm3(su);
      for (int i = 0; i < 3; i++) p[i] = s[i] * su[i] / l;
      break;
    }
    case IMP_GEOM_CYLINDER: {
      /* disk of radius r swept along z: rim point towards u, cap by sign(u_z);
         along the axis the whole cap supports and its centre is taken */
      double rho = sqrt(u[0] * u[0] + u[1] * u[1]);
      p[0] = rho > 0 ? s[0] * u[0] / rho : 0;
      p[1] = rho > 0 ? s[0] * u[1] / rho : 0;
      p[2] = u[2] >= 0 ? s[1] : -s[1];
      break;
    }
    case IMP_GEOM_BOX:
      for (int i = 0; i < 3; i++) p[i] = u[i] >= 0 ? s[i] : -s[i];
      break;
    case IMP_GEOM_MESH: {
      int id = m->geom_dataid[g];
      const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
      const int* hull = m->mesh_hull + m->mesh_hulladr[id];
      int best = hull[0];
      double dbest = imp_dot(vert + 3 * best, u, 3);
      for (int i = 1; i < m->mesh_hullnum[id]; i++) {
        double dv = imp_dot(vert + 3 * hull[i], u, 3);
        if (dv > dbest) {
          dbest = dv;
          best = hull[i];
        }
      }
      imp_copy(p, vert + 3 * best, 3);
      break;
    }
    default: /* plane, hfield: not convex solids; their routines never ask */
      imp_zero(p, 3);
  }
}

void imp_geom_support(const imp_model* m, const imp_data* d, int g, const double dir[3],
                      double out[3]) {
  const double* R = d->geom_xmat + 9 * g;
  double u[3], p[3];
  imp_mat3T_vec(u, R, dir);
  /* every surface point is a support of the zero direction: take the one
     of local +z, deterministically */
  if (imp_normalize3(u) < IMP_MINVAL) {
    u[0] = u[1] = 0;
    u[2] = 1;
  }
  local_support(m, g, u, p);
  imp_mat3_vec(out, R, p);
  imp_add_scl(out, d->geom_xpos + 3 * g, 1, 3);
}

/* ---- libccd callbacks ---- */

/* A geom as libccd's callbacks see it: the shape inflated by a ball of
   radius inflate, and the interior point MPR starts from. */
typedef struct ccd_geom {
  const imp_model* m;
  const imp_data* d;
  int g;
  double inflate;
  double center[3];
} ccd_geom;

static void ccd_geom_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const ccd_geom* o = obj;
  imp_geom_support(o->m, o->d, o->g, dir->v, out->v);
  double n = imp_norm3(dir->v);
  if (n >= IMP_MINVAL) imp_add_scl(out->v, dir->v, o->inflate / n, 3);
}

static void ccd_geom_center(const void* obj, ccd_vec3_t* center) {
  const ccd_geom* o = obj;
  imp_copy(center->v, o->center, 3);
}

/* One MPR run on the inflated pair: 0 and the unit normal (g1 to g2) and
   libccd's pos when they overlap, 1 when they only touch (libccd then
   gives a zero dir), -1 when apart. libccd's dir is the translation of obj2
   that separates the pair, i.e. the normal from g1 to g2. */
static int mpr_normal(const ccd_geom* o1, const ccd_geom* o2, double n[3], double pos[3]) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccd.support2 = ccd_geom_support;
  ccd.center1 = ccd.center2 = ccd_geom_center;
  ccd.mpr_tolerance = IMP_MPR_TOLERANCE;
  ccd.max_iterations = IMP_MPR_MAXITER;
  ccd_real_t depth;
  ccd_vec3_t dir, p;
  if (ccdMPRPenetration(o1, o2, &ccd, &depth, &dir, &p) != 0) return -1;
  imp_copy(n, dir.v, 3);
  imp_copy(pos, p.v, 3);
  return imp_normalize3(n) < 0.5 ? 1 : 0;
}

/* Signed gap of the (un-inflated) geoms along the unit normal n from g1 to
   g2: n.s2 - n.s1 with s1 the support of g1 along n, s2 that of g2 along
   -n. For every n it is at most the true signed distance (the penetration
   depth is the minimum over directions of the overlap), equal at the
   minimum-translation normal. */
static double gap_along(const imp_model* m, const imp_data* d, int g1, int g2,
                        const double n[3], double s1[3], double s2[3]) {
  double minus_n[3] = {-n[0], -n[1], -n[2]};
  imp_geom_support(m, d, g1, n, s1);
  imp_geom_support(m, d, g2, minus_n, s2);
  return imp_dot(s2, n, 3) - imp_dot(s1, n, 3);
}

/* Tangential part r = x - (x.u) u of x = s1 - s2, the point of the
   Minkowski difference g1 - g2 supporting direction u: the gradient on the
   unit sphere of h(u) = u.x = -gap(u). */
static void tangential(double r[3], const double u[3], const double s1[3],
                       const double s2[3]) {
  double x[3] = {s1[0] - s2[0], s1[1] - s2[1], s1[2] - s2[2]};
  imp_copy(r, x, 3);
  imp_add_scl(r, u, -imp_dot(x, u, 3), 3);
}

/* Local maximization of gap(u) over unit u from the normal n, whose gap is
   dist: the signed distance is max over u of gap(u) (separating axis
   theorem; for overlapping shapes minus the penetration depth), so the
   higher the gap the nearer n is to the minimum-translation normal, and
   every accepted step is exactly measured, so polishing never makes the
   answer worse. Gradient steps u <- normalize(u - alpha r), alpha by
   Barzilai and Borwein (IMA J. Numer. Anal. 8, 1988) from the last two
   iterates, quartered when a step does not raise the gap. On a flat contact
   (face on face) the normal is already a kink maximum and nothing is
   accepted. Returns the new gap; n, s1, s2 updated. */
static double polish_normal(const imp_model* m, const imp_data* d, int g1, int g2, double n[3],
                            double dist, double s1[3], double s2[3]) {
  /* first step: the inverse size of the pair, the step that turns a sphere
     pair's normal by its angle error */
  double alpha = 1 / fmax(m->geom_rbound[g1] + m->geom_rbound[g2], IMP_MINVAL);
  double r[3];
  tangential(r, n, s1, s2);
  for (int it = 0; it < IMP_POLISH_MAXITER; it++) {
    if (alpha * imp_norm3(r) < IMP_POLISH_ANGLE) break;
    double u[3] = {n[0], n[1], n[2]}, t1[3], t2[3], r2[3];
    imp_add_scl(u, r, -alpha, 3);
    imp_normalize3(u);
    double g = gap_along(m, d, g1, g2, u, t1, t2);
    if (!(g > dist)) {
      alpha *= 0.25;
      continue;
    }
    tangential(r2, u, t1, t2);
    double du[3] = {u[0] - n[0], u[1] - n[1], u[2] - n[2]};
    double dr[3] = {r2[0] - r[0], r2[1] - r[1], r2[2] - r[2]};
    double curv = imp_dot(du, dr, 3);
    if (curv > 0) alpha = imp_dot(du, du, 3) / curv;
    dist = g;
    imp_copy(n, u, 3);
    imp_copy(r, r2, 3);
    imp_copy(s1, t1, 3);
    imp_copy(s2, t2, 3);
  }
  return dist;
}

int imp_collide_convex(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                       imp_contact* con) {
  const double* c1 = d->geom_xpos + 3 * g1;
  const double* c2 = d->geom_xpos + 3 * g2;
  /* interior points: the geom frames' origins, the centre of every
     primitive and the volume centroid of a mesh (inside its hull) */
  ccd_geom o1 = {m, d, g1, 0.5 * margin, {c1[0], c1[1], c1[2]}};
  ccd_geom o2 = {m, d, g2, 0.5 * margin, {c2[0], c2[1], c2[2]}};
  double n[3], pos[3], s1[3], s2[3];
  int res = mpr_normal(&o1, &o2, n, pos);
  if (res < 0) return 0;
  if (res > 0) {
    /* touching at dist = margin, which is a contact: start from the centre
       line (the polish below finds the normal), pos from the supports */
    for (int i = 0; i < 3; i++) n[i] = c2[i] - c1[i];
    if (imp_normalize3(n) < IMP_MINVAL) n[0] = 1, n[1] = n[2] = 0;
    imp_zero(pos, 3);
  }
  double dist = gap_along(m, d, g1, g2, n, s1, s2);

  /* libccd's MPR stops as soon as a new support point comes within the
     tolerance of ANY portal vertex, so on curved pairs whose centre line is
     not along the normal (a sphere near a capsule's end) its portal can stop
     large and tilted: measured up to 0.9 rad and 6 cm too deep. Its normal
     is in the right region, and is polished there by ascent on the gap. */
  dist = polish_normal(m, d, g1, g2, n, dist, s1, s2);
  if (!(dist <= margin)) return 0;

  con->dist = dist;
  /* pos. When the supports along the final normal face each other
     (s1 - s2 parallel to n up to the tolerance) they are the closest points
     of a curved contact and pos is their midpoint. Otherwise (flat contact,
     where supports are arbitrary corners of the touching faces) libccd's
     pos: it weights the shapes' points of the final portal tetrahedron by
     the origin's barycentric coordinates, inside the overlap near its middle
     across the normal; along the normal it drifts towards the centres as
     the depth grows, so it is put on the plane halfway between the
     surfaces, n.x = (n.s1 + n.s2) / 2. */
  double r[3], h = 0.5 * (imp_dot(s1, n, 3) + imp_dot(s2, n, 3));
  tangential(r, n, s1, s2);
  if (imp_norm3(r) <= IMP_MPR_TOLERANCE || res > 0) {
    for (int i = 0; i < 3; i++) con->pos[i] = 0.5 * (s1[i] + s2[i]);
  } else {
    imp_copy(con->pos, pos, 3);
    imp_add_scl(con->pos, n, h - imp_dot(pos, n, 3), 3);
  }
  imp_copy(con->frame, n, 3);
  return 1;
}

/* ---- plane against ellipsoid and mesh ---- */

/* one contact at world point v with signed plane distance dist */
static void plane_contact(imp_contact* con, const double v[3], double dist, const double n[3]) {
  con->dist = dist;
  imp_copy(con->pos, v, 3);
  imp_add_scl(con->pos, n, -0.5 * dist, 3); /* halfway back to the plane */
  imp_copy(con->frame, n, 3);
}

/* z = n . ((b - a) x (c - a)): twice the signed area of triangle abc seen
   from the side of n */
static double signed_area2(const double a[3], const double b[3], const double c[3],
                           const double n[3]) {
  double ab[3], ac[3], x[3];
  for (int i = 0; i < 3; i++) {
    ab[i] = b[i] - a[i];
    ac[i] = c[i] - a[i];
  }
  imp_cross(x, ab, ac);
  return imp_dot(x, n, 3);
}

/* squared distance of a and b projected onto the plane of unit normal n */
static double plane_dist2(const double a[3], const double b[3], const double n[3]) {
  double v[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  imp_add_scl(v, n, -imp_dot(v, n, 3), 3);
  return imp_dot(v, v, 3);
}

/* How much picking w as the k-th point (k = 1, 2, 3) spreads the patch of
   the points p[0..k): the projected distance from p[0], then twice the
   triangle area, then twice the area the convex hull gains (the positive
   outer areas over the edges of the counter-clockwise triangle p[0..2]). */
static double spread_gain(double p[][3], int k, const double w[3], const double n[3]) {
  if (k == 1) return plane_dist2(p[0], w, n);
  if (k == 2) return fabs(signed_area2(p[0], p[1], w, n));
  double gain = 0;
  for (int e = 0; e < 3; e++) {
    double a = signed_area2(p[e], p[(e + 1) % 3], w, n);
    if (a < 0) gain -= a;
  }
  return gain;
}

/* mesh hull vertices within margin of the plane (dist <= margin): the deepest, then greedily
   the ones that spread the contact patch most, at most 4 */
static int plane_mesh(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                      const double n[3], imp_contact* con) {
  int id = m->geom_dataid[g2];
  const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  const int* hull = m->mesh_hull + m->mesh_hulladr[id];
  const double* R = d->geom_xmat + 9 * g2;
  double offset = imp_dot(d->geom_xpos + 3 * g1, n, 3);
  /* a candidate that spreads the patch by less than this (a vertex above
     another, a collinear one) is rounding, not a new support point */
  double len = 1e-9 * m->geom_rbound[g2];
  double tiny[4] = {0, len * len, len * m->geom_rbound[g2], len * m->geom_rbound[g2]};

  double p[4][3], dist[4]; /* chosen points (world) and their plane distances */
  int npick = 0;
  for (int k = 0; k < 4; k++) {
    int found = 0;
    double best = 0;
    for (int i = 0; i < m->mesh_hullnum[id]; i++) {
      double w[3];
      imp_mat3_vec(w, R, vert + 3 * hull[i]);
      imp_add_scl(w, d->geom_xpos + 3 * g2, 1, 3);
      double dw = imp_dot(w, n, 3) - offset;
      if (!(dw <= margin)) continue;
      double score = k == 0 ? -dw : spread_gain(p, k, w, n);
      if (!found || score > best) {
        found = 1;
        best = score;
        imp_copy(p[k], w, 3);
        dist[k] = dw;
      }
    }
    if (!found || (k > 0 && !(best > tiny[k]))) break;
    npick = k + 1;
    /* the hull gain of the fourth point wants a counter-clockwise triangle */
    if (k == 2 && signed_area2(p[0], p[1], p[2], n) < 0) {
      double t[3], td = dist[1];
      imp_copy(t, p[1], 3);
      imp_copy(p[1], p[2], 3);
      imp_copy(p[2], t, 3);
      dist[1] = dist[2];
      dist[2] = td;
    }
  }
  for (int k = 0; k < npick; k++) plane_contact(con + k, p[k], dist[k], n);
  return npick;
}

int imp_collide_plane_convex(const imp_model* m, const imp_data* d, int g1, int g2,
                             double margin, imp_contact* con) {
  const double* Rp = d->geom_xmat + 9 * g1;
  double n[3] = {Rp[2], Rp[5], Rp[8]}; /* the plane's local +z in world */
  if (m->geom_type[g2] == IMP_GEOM_MESH) return plane_mesh(m, d, g1, g2, margin, n, con);

  /* ellipsoid: its support along -n is the point nearest (deepest into) the
     plane, exactly */
  double minus_n[3] = {-n[0], -n[1], -n[2]}, v[3];
  imp_geom_support(m, d, g2, minus_n, v);
  double dist = imp_dot(v, n, 3) - imp_dot(d->geom_xpos + 3 * g1, n, 3);
  if (!(dist <= margin)) return 0;
  plane_contact(con, v, dist, n);
  return 1;
}
