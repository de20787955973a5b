/* Support points of the convex geoms: the point of the surface farthest
 * along a direction, the one question GJK, EPA and the polishing of
 * collide_convex.c ask of a shape.
 *
 * A mesh's support is the hull vertex of greatest u . v, the first in hull
 * order among equal values. Scanning every hull vertex made it most of the
 * collision stage on CAD meshes of hundreds to thousands of hull vertices
 * (MuJoCo Menagerie's kinova_gen3: 71% of the step in imp_geom_support).
 * Hulls with a vertex graph (mesh_graph, built at load) are searched by
 * hill climbing instead, and give the same vertex, bit for bit:
 *
 *  1. climb from a start vertex (the caller's hint: the last support of
 *     this geom, near the next one as GJK's directions converge) to a
 *     neighbour of greater computed value while there is one: a vertex m
 *     with no greater neighbour;
 *  2. collect every vertex reachable from m through vertices of value at
 *     least t = d(m) - eps, and return the scan's choice among them (the
 *     greatest value, the first in hull order among equals).
 *
 * Why that is the scan's vertex w: with delta the rounding of a computed
 * dot product (|d - D| <= delta, D exact) and eps >= 2 delta, the vertices
 * of exact value at least d(m) - eps + delta all compute to at least t, and
 * they include m (D(m) >= d(m) - delta) and w and its equals (D(w) >=
 * d(w) - delta >= d(m) - delta). On the closed triangulated boundary of a
 * convex body the vertices where a linear function is at least a level are
 * connected (mesh_graph.c), so step 2 reaches w. eps is IMP_CLIMB_EPS times
 * the largest vertex distance (the geom's rbound), far above delta (~1e-16
 * of it): a nearly flat face across u costs a few more vertices in step 2,
 * never another answer. More than IMP_CLIMB_CAP vertices in step 2 (a face
 * of many vertices square to u) ends in the scan. */
#include <math.h>

#include "collision/collision.h"
#include "core/mathx.h"

/* hulls below this many vertices are scanned: the climb's bookkeeping
   costs more than the dot products it saves */
#define IMP_CLIMB_MINVERT 32
#define IMP_CLIMB_CAP 64
#define IMP_CLIMB_EPS 1e-9

/* the scan: position in hull of the greatest u . v, the first of equals */
static int scan_hull(const double* vert, const int* hull, int n, const double u[3]) {
  int best = 0;
  double dbest = imp_dot(vert + 3 * hull[0], u, 3);
  for (int i = 1; i < n; i++) {
    double dv = imp_dot(vert + 3 * hull[i], u, 3);
    if (dv > dbest) {
      dbest = dv;
      best = i;
    }
  }
  return best;
}

/* Step 2 of the climb: from p (value dp), breadth first through the
   vertices of value at least t, the greatest value, the first position of
   equals; -1 when there are more than IMP_CLIMB_CAP of them. */
static int top_cap(const double* vert, const int* hull, const int* g, const double u[3], int p,
                   double dp, double t) {
  int cap[IMP_CLIMB_CAP], ncap = 1, best = p;
  double dbest = dp;
  cap[0] = p;
  for (int head = 0; head < ncap; head++)
    for (int k = g[cap[head]]; k < g[cap[head] + 1]; k++) {
      int q = g[k];
      double dv = imp_dot(vert + 3 * hull[q], u, 3);
      if (!(dv >= t)) continue;
      int seen = 0;
      for (int i = 0; i < ncap && !seen; i++) seen = cap[i] == q;
      if (seen) continue;
      if (ncap == IMP_CLIMB_CAP) return -1;
      cap[ncap++] = q;
      if (dv > dbest || (dv == dbest && q < best)) dbest = dv, best = q;
    }
  return best;
}

int imp_mesh_support(const imp_model* m, int id, const double u[3], double rbound, int* hint) {
  const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  const int* hull = m->mesh_hull + m->mesh_hulladr[id];
  int n = m->mesh_hullnum[id], adr = m->mesh_graphadr[id];
  if (adr < 0 || n < IMP_CLIMB_MINVERT) return scan_hull(vert, hull, n, u);
  const int* g = m->mesh_graph + adr;
  int p = hint && *hint >= 0 && *hint < n ? *hint : 0;
  double dp = imp_dot(vert + 3 * hull[p], u, 3);
  /* 1. steepest ascent: the move is to the greatest neighbour */
  for (;;) {
    int q = -1;
    double dq = dp;
    for (int k = g[p]; k < g[p + 1]; k++) {
      double dv = imp_dot(vert + 3 * hull[g[k]], u, 3);
      if (dv > dq) dq = dv, q = g[k];
    }
    if (q < 0) break;
    p = q;
    dp = dq;
  }
  /* 2. the top cap */
  int best = top_cap(vert, hull, g, u, p, dp, dp - IMP_CLIMB_EPS * rbound);
  if (best < 0) best = scan_hull(vert, hull, n, u);
  if (hint) *hint = best;
  return best;
}

void imp_local_support(const imp_model* m, int g, const double u[3], int* hint, double p[3]) {
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
      int k = imp_mesh_support(m, id, u, m->geom_rbound[g], hint);
      imp_copy(p, m->mesh_vert + 3 * (m->mesh_vertadr[id] + m->mesh_hull[m->mesh_hulladr[id] + k]),
               3);
      break;
    }
    default: /* plane, hfield: not convex solids; their routines never ask */
      imp_zero(p, 3);
  }
}

void imp_geom_support_hint(const imp_model* m, const imp_data* d, int g, const double dir[3],
                           int* hint, double out[3]) {
  const double* R = d->geom_xmat + 9 * g;
  double u[3], p[3];
  imp_mat3T_vec(u, R, dir);
  /* every surface point is a support of the zero direction: take the one
     of local +z, deterministically */
  if (imp_normalize3(u) < IMP_MINVAL) {
    u[0] = u[1] = 0;
    u[2] = 1;
  }
  imp_local_support(m, g, u, hint, p);
  imp_mat3_vec(out, R, p);
  imp_add_scl(out, d->geom_xpos + 3 * g, 1, 3);
}

void imp_geom_support(const imp_model* m, const imp_data* d, int g, const double dir[3],
                      double out[3]) {
  imp_geom_support_hint(m, d, g, dir, NULL, out);
}
