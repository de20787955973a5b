/* A plane against an ellipsoid or a mesh's convex hull (imp_collide_plane_
 * convex, collision.h). The ellipsoid: one contact at its support point
 * along -n, the point deepest into the plane, exactly. The mesh: up to 4
 * hull vertices within the margin, the deepest first, then greedily those
 * that spread the contact patch most (a face resting on the plane gets its
 * corners, not 4 neighbours of one). Each contact sits halfway between the
 * vertex and the plane, normal the plane's +z. */
#include <math.h>

#include "collision/collision.h"
#include "core/mathx.h"

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
