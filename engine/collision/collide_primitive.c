/* Analytic narrow phase for planes, spheres, capsules, boxes and the
 * plane-cylinder pair (promises in collision.h).
 *
 * Every shape here is a "core" inflated by a radius: a sphere is a point
 * plus r, a capsule a segment plus r, a box a box plus 0. The distance of
 * two such shapes is the distance of their cores minus the radii, along the
 * line joining the closest core points, so every routine reduces to a
 * closest-point problem between cores (Ericson, Real-Time Collision
 * Detection, 2005, ch. 5). When the cores overlap (a segment inside a box)
 * the minimum-translation direction is found by the separating axis test
 * instead (Gottschalk, Lin and Manocha 1996).
 *
 * Margin: a contact is kept when dist <= margin, as MuJoCo 2.2.2 keeps
 * them (its analytic routines reject only dist > margin), so a sphere
 * exactly touching a floor at margin 0 is in contact in both; collision.h
 * says dist < margin, which differs only at equality. */
#include <math.h>

#include "collision/collision.h"
#include "core/mathx.h"

/* Below this a direction is treated as zero length (coincident centres,
   parallel segments). */
#define PRIM_EPS 1e-12

/* ---- small geometry helpers ---- */

/* column k of geom g's rotation: the geom's local axis k in world */
static void geom_axis(const imp_data* d, int g, int k, double axis[3]) {
  const double* R = d->geom_xmat + 9 * g;
  axis[0] = R[k];
  axis[1] = R[3 + k];
  axis[2] = R[6 + k];
}

/* res = a + s b */
static void add_scaled3(double res[3], const double a[3], const double b[3], double s) {
  for (int i = 0; i < 3; i++) res[i] = a[i] + s * b[i];
}

/* res = a - b */
static void sub3(double res[3], const double a[3], const double b[3]) {
  for (int i = 0; i < 3; i++) res[i] = a[i] - b[i];
}

/* Write one contact: distance, position, normal (frame row 0). */
static void set_contact(imp_contact* con, double dist, const double pos[3], const double n[3]) {
  con->dist = dist;
  imp_copy(con->pos, pos, 3);
  imp_zero(con->frame, 9);
  imp_copy(con->frame, n, 3);
}

/* A point core p1 (radius r1) against a point core p2 (radius r2): the
   normal is the unit p2 - p1, dist = |p2 - p1| - r1 - r2, pos the midpoint
   of the two surface points, p1 + n (r1 + dist/2). Coincident points take
   the fallback normal, so the result is never NaN. Returns 1 when
   dist <= margin. */
static int point_point_contact(const double p1[3], double r1, const double p2[3], double r2,
                               const double fallback[3], double margin, imp_contact* con) {
  double n[3];
  sub3(n, p2, p1);
  double len = imp_norm3(n);
  if (len < PRIM_EPS) {
    imp_copy(n, fallback, 3);
  } else {
    imp_scl(n, n, 1 / len, 3);
  }
  double dist = len - r1 - r2;
  if (!(dist <= margin)) return 0;
  double pos[3];
  add_scaled3(pos, p1, n, r1 + 0.5 * dist);
  set_contact(con, dist, pos, n);
  return 1;
}

static double clamp01(double t) { return t < 0 ? 0 : t > 1 ? 1 : t; }

/* Point of segment [a, b] closest to p, as the parameter t in [0, 1]
   (projection clamped to the segment). */
static double segment_point_param(const double a[3], const double b[3], const double p[3]) {
  double ab[3], ap[3];
  sub3(ab, b, a);
  sub3(ap, p, a);
  double l2 = imp_dot(ab, ab, 3);
  if (l2 < PRIM_EPS * PRIM_EPS) return 0;
  return clamp01(imp_dot(ap, ab, 3) / l2);
}

/* Closest points of segments p1 + s d1 and p2 + t d2, s, t in [0, 1]
   (Ericson 2005, section 5.1.9): minimise |p1 + s d1 - p2 - t d2|^2, first
   unconstrained in s for the t that follows, then clamp and recompute.
   Parallel segments (denominator ~ 0) start from s = 0; the caller treats
   that case separately when it wants more than one point. Returns 1 when
   the segments are parallel. */
int imp_segment_segment_params(const double p1[3], const double d1[3], const double p2[3],
                               const double d2[3], double* s_out, double* t_out) {
  double r[3];
  sub3(r, p1, p2);
  double a = imp_dot(d1, d1, 3), e = imp_dot(d2, d2, 3), f = imp_dot(d2, r, 3);
  double s, t;
  int parallel = 0;
  if (a < PRIM_EPS && e < PRIM_EPS) {
    *s_out = *t_out = 0;
    return 1;
  }
  if (a < PRIM_EPS) {
    *s_out = 0;
    *t_out = clamp01(f / e);
    return 1;
  }
  double c = imp_dot(d1, r, 3);
  if (e < PRIM_EPS) {
    *t_out = 0;
    *s_out = clamp01(-c / a);
    return 1;
  }
  double b = imp_dot(d1, d2, 3), denom = a * e - b * b;
  if (denom > 1e-12 * a * e) {
    s = clamp01((b * f - c * e) / denom);
  } else {
    s = 0;
    parallel = 1;
  }
  t = (b * s + f) / e;
  if (t < 0) {
    t = 0;
    s = clamp01(-c / a);
  } else if (t > 1) {
    t = 1;
    s = clamp01((b - c) / a);
  }
  *s_out = s;
  *t_out = t;
  return parallel;
}

/* a deterministic unit vector perpendicular to unit n */
static void any_perpendicular(const double n[3], double p[3]) {
  double a[3] = {0, 0, 0};
  int k = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : fabs(n[1]) <= fabs(n[2]) ? 1 : 2;
  a[k] = 1;
  imp_cross(p, n, a);
  imp_normalize3(p);
}

/* segment of a capsule: centre -/+ half-length along its local z */
static void capsule_segment(const imp_model* m, const imp_data* d, int g, double a[3],
                            double b[3]) {
  double ax[3];
  geom_axis(d, g, 2, ax);
  double h = m->geom_size[3 * g + 1];
  add_scaled3(a, d->geom_xpos + 3 * g, ax, -h);
  add_scaled3(b, d->geom_xpos + 3 * g, ax, h);
}

/* ---- plane against X: signed heights of points above the plane ---- */

/* height of p above plane g along its normal n */
static double plane_height(const imp_data* d, int g, const double n[3], const double p[3]) {
  double r[3];
  sub3(r, p, d->geom_xpos + 3 * g);
  return imp_dot(r, n, 3);
}

/* Contact of a sphere of radius r at c with the plane (normal n): dist is
   the height less r, pos halfway between the plane and the sphere's lowest
   point. Returns 1 when dist <= margin. */
static int plane_point_contact(const imp_data* d, int gp, const double n[3], const double c[3],
                               double r, double margin, imp_contact* con) {
  double dist = plane_height(d, gp, n, c) - r;
  if (!(dist <= margin)) return 0;
  double pos[3];
  add_scaled3(pos, c, n, -(r + 0.5 * dist));
  set_contact(con, dist, pos, n);
  return 1;
}

int imp_collide_plane_sphere(const imp_model* m, const imp_data* d, int g1, int g2,
                             double margin, imp_contact* con) {
  double n[3];
  geom_axis(d, g1, 2, n);
  return plane_point_contact(d, g1, n, d->geom_xpos + 3 * g2, m->geom_size[3 * g2], margin, con);
}

/* One contact per end of the segment: a capsule lying flat rests on both. */
int imp_collide_plane_capsule(const imp_model* m, const imp_data* d, int g1, int g2,
                              double margin, imp_contact* con) {
  double n[3], a[3], b[3];
  geom_axis(d, g1, 2, n);
  capsule_segment(m, d, g2, a, b);
  double r = m->geom_size[3 * g2];
  int nc = plane_point_contact(d, g1, n, a, r, margin, con);
  nc += plane_point_contact(d, g1, n, b, r, margin, con + nc);
  return nc;
}

/* Keep the (at most max) candidate points deepest below the plane among
   those with height <= margin, in order of depth (ties in candidate order,
   so the result is deterministic); write them as contacts. */
static int plane_deepest_points(int npt, double pts[][3], const double* height, const double n[3],
                                double margin, int max, imp_contact* con) {
  int used[8] = {0}, nc = 0;
  while (nc < max) {
    int best = -1;
    for (int i = 0; i < npt; i++)
      if (!used[i] && height[i] <= margin && (best < 0 || height[i] < height[best])) best = i;
    if (best < 0) break;
    used[best] = 1;
    double pos[3];
    add_scaled3(pos, pts[best], n, -0.5 * height[best]);
    set_contact(con + nc, height[best], pos, n);
    nc++;
  }
  return nc;
}

/* Up to 4 of the 8 corners, deepest first: a box resting flat gets its
   4 bottom corners. */
int imp_collide_plane_box(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                          imp_contact* con) {
  double n[3], ax[3][3], pts[8][3], height[8];
  geom_axis(d, g1, 2, n);
  for (int k = 0; k < 3; k++) geom_axis(d, g2, k, ax[k]);
  const double* h = m->geom_size + 3 * g2;
  for (int i = 0; i < 8; i++) {
    imp_copy(pts[i], d->geom_xpos + 3 * g2, 3);
    for (int k = 0; k < 3; k++) add_scaled3(pts[i], pts[i], ax[k], (i >> k & 1) ? h[k] : -h[k]);
    height[i] = plane_height(d, g1, n, pts[i]);
  }
  return plane_deepest_points(8, pts, height, n, margin, 4, con);
}

/* Cylinder (radius r, half-height h, axis a) on a plane (normal n).
   Candidates, all on the rims:
     p1  the deepest rim point of the lower face: face centre + r u, where u
         is the unit direction of -n projected on the face (the cylinder's
         local x when the axis is along n, so the choice is deterministic);
     p2  the opposite rim point of the same face, - r u;
     p3, p4  the rim points 90 degrees around, +- r (a x u);
     q1  the deepest rim point of the upper face (the other end of the
         lowest generator).
   The up to 4 deepest candidates within the margin are kept. A cylinder
   standing on a face gets the square p1..p4 (a stable rest, 4 points at
   equal depth); one lying on its side gets p1 and q1 (the contact line's
   ends); a tilted one its deepest rim point first. */
int imp_collide_plane_cylinder(const imp_model* m, const imp_data* d, int g1, int g2,
                               double margin, imp_contact* con) {
  double n[3], a[3], u[3], w[3];
  geom_axis(d, g1, 2, n);
  geom_axis(d, g2, 2, a);
  double r = m->geom_size[3 * g2], h = m->geom_size[3 * g2 + 1];
  double na = imp_dot(n, a, 3);
  add_scaled3(u, n, a, -na); /* n's part across the axis */
  imp_scl(u, u, -1, 3);
  if (imp_norm3(u) < 1e-9) {
    geom_axis(d, g2, 0, u);
  } else {
    imp_normalize3(u);
  }
  imp_cross(w, a, u);
  double s = na > 0 ? -1 : 1; /* the face whose centre is lower */
  const double* c = d->geom_xpos + 3 * g2;
  double lower[3], upper[3], pts[5][3], height[5];
  add_scaled3(lower, c, a, s * h);
  add_scaled3(upper, c, a, -s * h);
  add_scaled3(pts[0], lower, u, r);
  add_scaled3(pts[1], lower, u, -r);
  add_scaled3(pts[2], lower, w, r);
  add_scaled3(pts[3], lower, w, -r);
  add_scaled3(pts[4], upper, u, r);
  for (int i = 0; i < 5; i++) height[i] = plane_height(d, g1, n, pts[i]);
  return plane_deepest_points(5, pts, height, n, margin, 4, con);
}

/* ---- sphere and capsule pairs: closest points of cores ---- */

static const double k_xaxis[3] = {1, 0, 0};

int imp_collide_sphere_sphere(const imp_model* m, const imp_data* d, int g1, int g2,
                              double margin, imp_contact* con) {
  return point_point_contact(d->geom_xpos + 3 * g1, m->geom_size[3 * g1], d->geom_xpos + 3 * g2,
                             m->geom_size[3 * g2], k_xaxis, margin, con);
}

/* Sphere centre against the capsule's segment; a centre on the segment
   takes a normal across the capsule axis. */
int imp_collide_sphere_capsule(const imp_model* m, const imp_data* d, int g1, int g2,
                               double margin, imp_contact* con) {
  double a[3], b[3], ab[3], q[3], fallback[3];
  const double* c = d->geom_xpos + 3 * g1;
  capsule_segment(m, d, g2, a, b);
  sub3(ab, b, a);
  add_scaled3(q, a, ab, segment_point_param(a, b, c));
  geom_axis(d, g2, 0, fallback);
  return point_point_contact(c, m->geom_size[3 * g1], q, m->geom_size[3 * g2], fallback, margin,
                             con);
}

/* Two capsules: closest points of the segments. Parallel segments whose
   projections overlap touch along a line: then both ends of the overlap
   (on segment 1, with their closest points on segment 2) are contacts, so a
   capsule lying on another does not rock about one point. */
int imp_collide_capsule_capsule(const imp_model* m, const imp_data* d, int g1, int g2,
                                double margin, imp_contact* con) {
  double a1[3], b1[3], a2[3], b2[3], d1[3], d2[3];
  capsule_segment(m, d, g1, a1, b1);
  capsule_segment(m, d, g2, a2, b2);
  sub3(d1, b1, a1);
  sub3(d2, b2, a2);
  double r1 = m->geom_size[3 * g1], r2 = m->geom_size[3 * g2];
  double fallback[3], ax1[3];
  geom_axis(d, g1, 2, ax1);
  any_perpendicular(ax1, fallback);
  double s, t, p1[3], p2[3];
  int parallel = imp_segment_segment_params(a1, d1, a2, d2, &s, &t);
  double l1 = imp_dot(d1, d1, 3), l2 = imp_dot(d2, d2, 3);
  if (parallel && l1 > PRIM_EPS && l2 > PRIM_EPS) {
    /* overlap of segment 2's projection on segment 1, in segment 1's
       parameter: [lo, hi] inside [0, 1] */
    double q0[3], q1[3];
    sub3(q0, a2, a1);
    sub3(q1, b2, a1);
    double u0 = imp_dot(q0, d1, 3) / l1, u1 = imp_dot(q1, d1, 3) / l1;
    double lo = fmax(0, fmin(u0, u1)), hi = fmin(1, fmax(u0, u1));
    if (hi - lo > 1e-9) {
      int nc = 0;
      double ends[2] = {lo, hi};
      for (int i = 0; i < 2; i++) {
        add_scaled3(p1, a1, d1, ends[i]);
        add_scaled3(p2, a2, d2, segment_point_param(a2, b2, p1));
        nc += point_point_contact(p1, r1, p2, r2, fallback, margin, con + nc);
      }
      return nc;
    }
  }
  add_scaled3(p1, a1, d1, s);
  add_scaled3(p2, a2, d2, t);
  return point_point_contact(p1, r1, p2, r2, fallback, margin, con);
}

/* ---- sphere and capsule against a box, in the box's frame ---- */

typedef struct box_frame {
  const double* c; /* centre */
  const double* R; /* rotation: columns are the box axes */
  const double* h; /* half sizes */
} box_frame;

static box_frame get_box(const imp_model* m, const imp_data* d, int g) {
  box_frame b = {d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, m->geom_size + 3 * g};
  return b;
}

static void box_to_local(const box_frame* b, const double p[3], double out[3]) {
  double r[3];
  sub3(r, p, b->c);
  imp_mat3T_vec(out, b->R, r);
}

static void box_to_world_point(const box_frame* b, const double p[3], double out[3]) {
  imp_mat3_vec(out, b->R, p);
  for (int i = 0; i < 3; i++) out[i] += b->c[i];
}

/* Clamp local point p to the box: its closest box point. Returns 1 when
   p was outside. */
static int box_clamp(const double h[3], const double p[3], double q[3]) {
  int outside = 0;
  for (int k = 0; k < 3; k++) {
    q[k] = p[k] < -h[k] ? -h[k] : p[k] > h[k] ? h[k] : p[k];
    if (q[k] != p[k]) outside = 1;
  }
  return outside;
}

/* A point core at local p (radius r) against the box, from the box's side:
   fills the outward unit normal o (box towards point, local), the core
   distance (negative inside) and the box surface point q (local). Inside,
   the face of least penetration is taken, first axis and + side on ties. */
static double box_point_feature(const double h[3], const double p[3], double o[3], double q[3]) {
  double len;
  if (box_clamp(h, p, q)) {
    sub3(o, p, q);
    len = imp_norm3(o);
    imp_scl(o, o, 1 / len, 3);
    return len;
  }
  int best = 0;
  double sgn = 1, depth = INFINITY;
  for (int k = 0; k < 3; k++)
    for (int side = 1; side >= -1; side -= 2) {
      double dk = h[k] - side * p[k];
      if (dk < depth) {
        depth = dk;
        best = k;
        sgn = side;
      }
    }
  imp_zero(o, 3);
  o[best] = sgn;
  imp_copy(q, p, 3);
  q[best] = sgn * h[best];
  return -depth;
}

/* Contact of a point core (local p, radius r) with the box, normal from the
   point's geom to the box: -o in world. pos is halfway between q and the
   point's surface p - o r, i.e. q + o dist/2. */
static int box_point_contact(const box_frame* b, const double p[3], double r, double margin,
                             imp_contact* con) {
  double o[3], q[3];
  double dist = box_point_feature(b->h, p, o, q) - r;
  if (!(dist <= margin)) return 0;
  double posl[3], pos[3], n[3];
  add_scaled3(posl, q, o, 0.5 * dist);
  box_to_world_point(b, posl, pos);
  imp_mat3_vec(n, b->R, o);
  imp_scl(n, n, -1, 3);
  set_contact(con, dist, pos, n);
  return 1;
}

int imp_collide_sphere_box(const imp_model* m, const imp_data* d, int g1, int g2,
                           double margin, imp_contact* con) {
  box_frame b = get_box(m, d, g2);
  double p[3];
  box_to_local(&b, d->geom_xpos + 3 * g1, p);
  return box_point_contact(&b, p, m->geom_size[3 * g1], margin, con);
}

/* Closest points of segment [a, a + ab] (local) and the box when they do
   not intersect: the minimum is reached at a segment end against the box,
   or at an inner segment point against one of the 12 box edges (a face
   minimum with an inner point needs the segment parallel to the face, when
   an end reaches it too). Fills ps (segment) and qb (box); returns the
   distance. */
static double segment_box_closest(const double h[3], const double a[3], const double ab[3],
                                  double ps[3], double qb[3]) {
  double best = INFINITY, q[3], p[3], r[3];
  for (int e = 0; e < 2; e++) {
    add_scaled3(p, a, ab, e);
    box_clamp(h, p, q);
    sub3(r, p, q);
    double l = imp_norm3(r);
    if (l < best) {
      best = l;
      imp_copy(ps, p, 3);
      imp_copy(qb, q, 3);
    }
  }
  for (int k = 0; k < 3; k++)
    for (int corner = 0; corner < 4; corner++) {
      /* edge along axis k, the other two coordinates at +-h */
      double e0[3], ed[3] = {0, 0, 0};
      int i = (k + 1) % 3, j = (k + 2) % 3;
      e0[i] = (corner & 1) ? h[i] : -h[i];
      e0[j] = (corner & 2) ? h[j] : -h[j];
      e0[k] = -h[k];
      ed[k] = 2 * h[k];
      double s, t;
      imp_segment_segment_params(a, ab, e0, ed, &s, &t);
      add_scaled3(p, a, ab, s);
      add_scaled3(q, e0, ed, t);
      sub3(r, p, q);
      double l = imp_norm3(r);
      if (l < best) {
        best = l;
        imp_copy(ps, p, 3);
        imp_copy(qb, q, 3);
      }
    }
  return best;
}

/* Clip the parameter range [*lo, *hi] of segment a + t ab to the box's
   slabs |x_k| <= h_k, every axis but skip (-1: none), by Liang and Barsky
   (1984). Returns 0 when the range becomes empty. */
static int clip_to_slabs(const double h[3], const double a[3], const double ab[3], int skip,
                         double* lo, double* hi) {
  for (int k = 0; k < 3; k++) {
    if (k == skip) continue;
    if (fabs(ab[k]) < PRIM_EPS) {
      if (fabs(a[k]) > h[k]) return 0;
      continue;
    }
    double t0 = (-h[k] - a[k]) / ab[k], t1 = (h[k] - a[k]) / ab[k];
    *lo = fmax(*lo, fmin(t0, t1));
    *hi = fmin(*hi, fmax(t0, t1));
    if (*lo > *hi) return 0;
  }
  return 1;
}

/* Does segment a + t ab, t in [0, 1], meet the box? */
static int segment_hits_box(const double h[3], const double a[3], const double ab[3]) {
  double lo = 0, hi = 1;
  return clip_to_slabs(h, a, ab, -1, &lo, &hi);
}

/* Segment (local a, a + ab) intersecting the box: the minimum translation
   of the segment out of the box by the separating axis test over the box's
   3 face normals and the 3 crosses of the segment with the box axes
   (Gottschalk et al. 1996). Fills the unit direction o (box towards
   segment), the depth (>= 0), and a segment point ps with its box point qb
   at the deepest place. Face axes win ties. */
static double segment_box_penetration(const double h[3], const double a[3], const double ab[3],
                                      double o[3], double ps[3], double qb[3]) {
  double b[3], best = INFINITY;
  add_scaled3(b, a, ab, 1);
  int best_axis = -1;
  double best_sgn = 1, best_dir[3] = {0, 0, 1};
  for (int k = 0; k < 6; k++) {
    double L[3] = {0, 0, 0};
    if (k < 3) {
      L[k] = 1;
    } else {
      double ek[3] = {0, 0, 0};
      ek[k - 3] = 1;
      imp_cross(L, ab, ek);
      if (imp_normalize3(L) < 1e-9 * (1 + imp_norm3(ab))) continue;
    }
    double rb = fabs(L[0]) * h[0] + fabs(L[1]) * h[1] + fabs(L[2]) * h[2];
    double pa = imp_dot(a, L, 3), pb = imp_dot(b, L, 3);
    /* move along +L until min(pa, pb) >= rb, or along -L until max <= -rb */
    double up = rb - fmin(pa, pb), down = rb + fmax(pa, pb);
    double depth = fmin(up, down);
    double bias = k < 3 ? 0 : 1e-9 * (1 + rb);
    if (depth + bias < best) {
      best = depth + bias;
      best_axis = k;
      best_sgn = up <= down ? 1 : -1;
      imp_copy(best_dir, L, 3);
    }
  }
  imp_scl(o, best_dir, best_sgn, 3);
  double depth;
  if (best_axis < 3) {
    /* the segment end deepest along -o, pushed out through that face */
    double pa = imp_dot(a, o, 3), pb = imp_dot(b, o, 3);
    imp_copy(ps, pa <= pb ? a : b, 3);
    imp_copy(qb, ps, 3);
    qb[best_axis] = best_sgn * h[best_axis];
    depth = h[best_axis] - imp_dot(ps, o, 3);
  } else {
    /* the box edge along the axis, at the box's support towards o */
    int k = best_axis - 3;
    double e0[3], ed[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) e0[i] = o[i] >= 0 ? h[i] : -h[i];
    e0[k] = -h[k];
    ed[k] = 2 * h[k];
    double s, t;
    imp_segment_segment_params(a, ab, e0, ed, &s, &t);
    add_scaled3(ps, a, ab, s);
    add_scaled3(qb, e0, ed, t);
    depth = imp_dot(qb, o, 3) - imp_dot(ps, o, 3);
  }
  return depth;
}

/* Write a capsule-box contact from the segment point ps, box point qb,
   outward o (local, box towards capsule) and signed core distance. */
static int capsule_box_contact(const box_frame* b, const double ps[3], const double qb[3],
                               const double o[3], double core, double r, double margin,
                               imp_contact* con) {
  double dist = core - r;
  if (!(dist <= margin)) return 0;
  double posl[3], pos[3], n[3], surf[3];
  add_scaled3(surf, ps, o, -r); /* capsule surface point */
  for (int i = 0; i < 3; i++) posl[i] = 0.5 * (surf[i] + qb[i]);
  box_to_world_point(b, posl, pos);
  imp_mat3_vec(n, b->R, o);
  imp_scl(n, n, -1, 3);
  set_contact(con, dist, pos, n);
  return 1;
}

/* When the closest feature is a face (o is its normal k, sign), the capsule
   may rest along it: the segment part over the face rectangle is clipped
   out and its two ends become the contacts, each at its own height above
   the face (the height is linear along the segment, so the deepest end is
   the closest point). As for a capsule on a plane, a capsule lying on a box
   then rests on two points instead of rocking about one. Returns the
   contacts written, 0 when this does not apply (the caller then writes the
   single closest contact). */
static int capsule_box_face_line(const box_frame* b, const double a[3], const double ab[3],
                                 const double o[3], double core, double r, double margin,
                                 imp_contact* con) {
  int k = -1;
  for (int i = 0; i < 3; i++)
    if (fabs(o[i]) > 1 - 1e-12) k = i;
  if (k < 0) return 0;
  const double* h = b->h;
  double sgn = o[k] > 0 ? 1 : -1, lo = 0, hi = 1;
  /* the part of the segment over the face: clipped to the other slabs */
  if (!clip_to_slabs(h, a, ab, k, &lo, &hi) || hi - lo < 1e-9) return 0;
  double ps[2][3], height[2];
  for (int e = 0; e < 2; e++) {
    add_scaled3(ps[e], a, ab, e ? hi : lo);
    height[e] = sgn * ps[e][k] - h[k];
  }
  int deep = height[1] < height[0];
  if (fabs(height[deep] - core) > 1e-9 * (1 + h[0] + h[1] + h[2])) return 0;
  int nc = 0;
  for (int e = 0; e < 2; e++) {
    int i = e ? 1 - deep : deep;
    double qb[3];
    imp_copy(qb, ps[i], 3);
    qb[k] = sgn * h[k];
    nc += capsule_box_contact(b, ps[i], qb, o, height[i], r, margin, con + nc);
  }
  return nc;
}

/* Capsule against box: closest points of the segment and the box; when
   the segment enters the box, the separating-axis minimum translation.
   Two contacts when the closest feature is a face and both ends of the
   segment part over it are within the margin (a capsule along a face). */
int imp_collide_capsule_box(const imp_model* m, const imp_data* d, int g1, int g2,
                            double margin, imp_contact* con) {
  box_frame b = get_box(m, d, g2);
  double wa[3], wb[3], a[3], bl[3], ab[3];
  capsule_segment(m, d, g1, wa, wb);
  box_to_local(&b, wa, a);
  box_to_local(&b, wb, bl);
  sub3(ab, bl, a);
  double r = m->geom_size[3 * g1];
  double ps[3], qb[3], o[3];
  double core = segment_hits_box(b.h, a, ab) ? 0 : segment_box_closest(b.h, a, ab, ps, qb);
  if (core > 0) {
    if (!(core - r <= margin)) return 0;
    sub3(o, ps, qb);
    imp_scl(o, o, 1 / core, 3);
  } else {
    core = -segment_box_penetration(b.h, a, ab, o, ps, qb);
  }
  int nc = capsule_box_face_line(&b, a, ab, o, core, r, margin, con);
  if (nc > 0) return nc;
  return capsule_box_contact(&b, ps, qb, o, core, r, margin, con);
}
