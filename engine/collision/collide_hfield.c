/* Height field against any convex geom (sphere, capsule, ellipsoid,
 * cylinder, box, mesh hull).
 *
 * MuJoCo's model of a height field (MJCF reference, asset/hfield; the
 * layout in types.h): a union of triangular prisms, two per grid cell, each
 * a triangle of the surface extruded down to the base z = -base_z. A cell
 * (r, c) is split along its diagonal from vertex (r, c) to (r + 1, c + 1)
 * into the triangles {(r+1, c), (r, c), (r+1, c+1)} and {(r, c),
 * (r+1, c+1), (r, c+1)}, as MuJoCo 2.2.2 splits it (mjc_ConvexHField's
 * vertex order). Each prism is convex, so the general convex collider
 * (collide_convex.c: GJK for the distance, EPA for the depth) measures it
 * against the other geom exactly.
 *
 * The steps, as MuJoCo's docs describe them:
 *  1. the other geom's box in the height field's frame, from its support
 *     points along the frame's six axis directions; no contact when it
 *     misses the field's box (grown by the margin);
 *  2. the sub-grid of cells under that box; a prism whose three top
 *     vertices are all below the geom's lowest point (less the margin)
 *     cannot reach it and is skipped;
 *  3. one contact per prism within the margin, normal from the field to
 *     the geom (the pair's geom1 is the field: its type is the lower).
 * MuJoCo keeps up to 50 contacts per pair in prism order; we keep at most
 * IMP_MAXCONPAIR: the deepest, then one at a time the candidate farthest
 * from those kept (so a box on a fine grid keeps contacts at its spread,
 * not a cluster). Beyond HF_MAXCAND candidates, the shallower of the two
 * closest held makes room for each new one.
 * The inner walls between prisms are real faces of each prism: a geom
 * sunk deeper than its distance to such a wall can be pushed sideways
 * along it, as in MuJoCo; resting contacts (shallow) are vertical. */
#include <math.h>

#include "collision/collision.h"
#include "core/mathx.h"

/* prism contacts held before the final choice of IMP_MAXCONPAIR */
#define HF_MAXCAND 64
/* A prism's normal within this angle (rad) of its top face's normal is
   that normal: on a curved geom the convex collider's normal is good to
   ~1.4e-6 rad (collide_convex.c), and a geom lying on a flat field would
   feel that error as a sideways push (a capsule rolled 3e-5 m in 5 s) */
#define HF_SNAP_ANGLE 1e-5

/* The box of geom g2 in the frame (R, p) of the field: lo[k], hi[k] along
   the frame's axis k, from g2's support points. */
static void box_in_frame(const imp_model* m, const imp_data* d, int g2, const double* R,
                         const double* p, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    double axis[3] = {R[k], R[3 + k], R[6 + k]}, minus[3] = {-R[k], -R[3 + k], -R[6 + k]};
    double s[3];
    imp_geom_support(m, d, g2, axis, s);
    hi[k] = imp_dot(s, axis, 3) - imp_dot(p, axis, 3);
    imp_geom_support(m, d, g2, minus, s);
    lo[k] = imp_dot(s, axis, 3) - imp_dot(p, axis, 3);
  }
}

/* index range [lo, hi] of grid lines (0 .. n - 1 over [-size, size]) that
   the interval [a, b] reaches, widened to whole cells */
static void grid_range(double a, double b, double size, int n, int* lo, int* hi) {
  double scale = (n - 1) / (2 * size);
  double fl = floor((a + size) * scale), ce = ceil((b + size) * scale);
  *lo = fl < 0 ? 0 : fl > n - 1 ? n - 1 : (int)fl;
  *hi = ce < 0 ? 0 : ce > n - 1 ? n - 1 : (int)ce;
}

static double dist2(const double a[3], const double b[3]) {
  double v[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return imp_dot(v, v, 3);
}

/* Keep candidate con among cand[0..*n): appended while there is room;
   when full, the closer two of the held ones (the first such pair) lose
   the shallower (the later at equal depth) to make room, so the set stays
   spread over the contact patch and the deepest is never dropped. */
static void keep_candidate(imp_contact* cand, int* n, const imp_contact* con) {
  if (*n == HF_MAXCAND) {
    int a = 0, b = 1;
    double best = INFINITY;
    for (int i = 0; i < *n; i++)
      for (int j = i + 1; j < *n; j++) {
        double dd = dist2(cand[i].pos, cand[j].pos);
        if (dd < best) best = dd, a = i, b = j;
      }
    int drop = cand[a].dist < cand[b].dist ? b : cand[b].dist < cand[a].dist ? a : b;
    cand[drop] = cand[--(*n)];
  }
  cand[(*n)++] = *con;
}

/* The deepest candidate, then repeatedly the one farthest from those
   chosen, into con: at most IMP_MAXCONPAIR. Ties go to the first, so the
   choice is deterministic. */
static int choose_contacts(imp_contact* cand, int n, imp_contact* con) {
  if (n <= IMP_MAXCONPAIR) {
    for (int i = 0; i < n; i++) con[i] = cand[i];
    return n;
  }
  double near[HF_MAXCAND]; /* squared distance to the nearest chosen */
  int taken[HF_MAXCAND] = {0};
  int best = 0;
  for (int i = 1; i < n; i++)
    if (cand[i].dist < cand[best].dist) best = i;
  int k = 0;
  for (;;) {
    con[k++] = cand[best];
    taken[best] = 1;
    if (k == IMP_MAXCONPAIR) return k;
    for (int i = 0; i < n; i++) {
      double dd = dist2(cand[i].pos, cand[best].pos);
      near[i] = k == 1 || dd < near[i] ? dd : near[i];
    }
    best = -1;
    for (int i = 0; i < n; i++)
      if (!taken[i] && (best < 0 || near[i] > near[best])) best = i;
  }
}

/* The point of geom g2 deepest along -n (unit, world) nearest the
   convex collider's estimate pos: its support point where that is unique;
   on a round geom lying on the face (a capsule's or a cylinder's side) the
   support is a segment along the axis, and the point of it nearest pos is
   taken; a flat side (box, mesh, a cylinder's cap) keeps pos. Returns 0
   when pos stays. */
static int deepest_point(const imp_model* m, const imp_data* d, int g2, const double n[3],
                         const double pos[3], double out[3]) {
  const double *c = d->geom_xpos + 3 * g2, *R = d->geom_xmat + 9 * g2, *size = m->geom_size + 3 * g2;
  double minus[3] = {-n[0], -n[1], -n[2]}, axis[3] = {R[2], R[5], R[8]};
  int type = m->geom_type[g2];
  double an = imp_dot(axis, n, 3);
  if ((type == IMP_GEOM_CAPSULE || type == IMP_GEOM_CYLINDER) && fabs(an) < 1e-9) {
    double w[3] = {pos[0] - c[0], pos[1] - c[1], pos[2] - c[2]};
    double t = fmax(-size[1], fmin(size[1], imp_dot(w, axis, 3)));
    for (int i = 0; i < 3; i++) out[i] = c[i] + t * axis[i] - size[0] * n[i];
    return 1;
  }
  if (type == IMP_GEOM_BOX || type == IMP_GEOM_MESH ||
      (type == IMP_GEOM_CYLINDER && fabs(an) > 1 - 1e-12))
    return 0;
  imp_geom_support(m, d, g2, minus, out); /* sphere, ellipsoid, tilted capsule or cylinder */
  return 1;
}

/* A contact whose normal is within HF_SNAP_ANGLE of its prism's top face
   normal takes that normal exactly, with the gap measured along it (the
   geom's support against the face's plane) and the point where that gap
   is, when the geom's deepest point is determined (deepest_point). */
static void snap_to_top(const imp_model* m, const imp_data* d, int g2, const double* world,
                        imp_contact* con) {
  double e1[3], e2[3], nt[3];
  for (int i = 0; i < 3; i++) e1[i] = world[3 + i] - world[i], e2[i] = world[6 + i] - world[i];
  imp_cross(nt, e1, e2);
  if (imp_normalize3(nt) < IMP_MINVAL) return;
  double c = imp_dot(nt, con->frame, 3);
  if (c < 0) imp_scl(nt, nt, -1, 3), c = -c; /* the face's outward side: the contact's */
  if (!(1 - c < 0.5 * HF_SNAP_ANGLE * HF_SNAP_ANGLE)) return;
  double minus[3] = {-nt[0], -nt[1], -nt[2]}, s2[3], p2[3];
  imp_geom_support(m, d, g2, minus, s2);
  con->dist = imp_dot(s2, nt, 3) - imp_dot(world, nt, 3);
  imp_copy(con->frame, nt, 3);
  /* the midpoint between the geom's deepest point and the face above it */
  if (deepest_point(m, d, g2, nt, con->pos, p2))
    for (int i = 0; i < 3; i++) con->pos[i] = p2[i] - 0.5 * con->dist * nt[i];
}

int imp_collide_hfield(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                       imp_contact* con) {
  int h = m->geom_dataid[g1];
  const double* size = m->hfield_size + 4 * h;
  int nrow = m->hfield_nrow[h], ncol = m->hfield_ncol[h];
  const float* data = m->hfield_data + m->hfield_adr[h];
  const double *R = d->geom_xmat + 9 * g1, *p = d->geom_xpos + 3 * g1;

  /* 1. the geom's box in the field's frame against the field's box */
  double lo[3], hi[3];
  box_in_frame(m, d, g2, R, p, lo, hi);
  if (lo[0] - margin > size[0] || hi[0] + margin < -size[0] || lo[1] - margin > size[1] ||
      hi[1] + margin < -size[1] || lo[2] - margin > size[2] || hi[2] + margin < -size[3])
    return 0;

  /* 2. the cells under it */
  int c0, c1, r0, r1;
  grid_range(lo[0] - margin, hi[0] + margin, size[0], ncol, &c0, &c1);
  grid_range(lo[1] - margin, hi[1] + margin, size[1], nrow, &r0, &r1);
  double dx = 2 * size[0] / (ncol - 1), dy = 2 * size[1] / (nrow - 1);
  double zlow = lo[2] - margin;

  /* 3. each prism by the convex collider */
  imp_contact cand[HF_MAXCAND];
  int ncand = 0;
  for (int r = r0; r < r1; r++)
    for (int c = c0; c < c1; c++) {
      /* the cell's corners (row offset, column offset) in MuJoCo's order */
      static const int tri[2][3][2] = {{{1, 0}, {0, 0}, {1, 1}}, {{0, 0}, {1, 1}, {0, 1}}};
      for (int t = 0; t < 2; t++) {
        double local[6][3], world[18];
        int above = 0;
        for (int k = 0; k < 3; k++) {
          int rr = r + tri[t][k][0], cc = c + tri[t][k][1];
          double x = dx * cc - size[0], y = dy * rr - size[1];
          double z = data[rr * ncol + cc] * size[2];
          above |= z >= zlow;
          local[k][0] = local[k + 3][0] = x;
          local[k][1] = local[k + 3][1] = y;
          local[k][2] = z;
          local[k + 3][2] = -size[3];
        }
        if (!above) continue;
        for (int v = 0; v < 6; v++) {
          imp_mat3_vec(world + 3 * v, R, local[v]);
          imp_add_scl(world + 3 * v, p, 1, 3);
        }
        imp_contact tmp = {.surface = 0}; /* copied whole into con (collision.h) */
        if (imp_collide_polytope_convex(m, d, g1, world, 6, g2, margin, &tmp)) {
          snap_to_top(m, d, g2, world, &tmp);
          if (tmp.dist <= margin) keep_candidate(cand, &ncand, &tmp);
        }
      }
    }
  return choose_contacts(cand, ncand, con);
}
