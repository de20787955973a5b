/* The general convex narrow phase: the support point of every convex geom,
 * and the exact distance or penetration of any pair of them (a plane
 * against an ellipsoid or a mesh hull: collide_plane_convex.c).
 *
 * Everything works on the Minkowski difference C = A - B of the two geoms
 * (A = g1, B = g2) through support points only: the support of C along u is
 * s_A(u) - s_B(-u), and its support function h_C(u) = h_A(u) + h_B(-u).
 * For a unit n (from g1 to g2) the gap of the geoms along n is
 *   gap(n) = n.s_B(-n) - n.s_A(n) = -h_C(n),
 * and the signed distance is max_n gap(n) (the separating axis theorem):
 * |closest point of C to the origin| when apart, minus the penetration
 * depth (the distance from the origin to the boundary of C) when they
 * overlap. Every distance this routine reports is gap(n) measured exactly
 * at the normal n it reports, so (dist, normal) are always consistent and
 * dist is never above the truth.
 *
 * Separated: GJK (E. G. Gilbert, D. W. Johnson, S. S. Keerthi, "A fast
 * procedure for computing the distance between complex objects in
 * three-dimensional space", IEEE J. Robotics and Automation 4(2), 1988),
 * with the termination of G. van den Bergen ("A fast and robust GJK
 * implementation for collision detection of convex objects", J. Graphics
 * Tools 4(2), 1999): v is the point of conv(W) (W up to 4 support points of
 * C) nearest the origin, an upper bound |v| of the distance; w = s_C(-v)
 * gives the lower bound v.w / |v| = gap(-v / |v|). Stop when they are
 * within IMP_GJK_TOL of each other. The nearest point of a simplex is found
 * by signed areas and volumes: the barycentric coordinates of the origin's
 * projection on the simplex's affine hull; when one is not positive the
 * nearest point lies on a facet, and the nearest of those is taken.
 *
 * Overlapping: EPA (G. van den Bergen, "Proximity queries and penetration
 * depth computation on 3D game objects", GDC 2001; "Collision Detection in
 * Interactive 3D Environments", 2003, ch. 4.3.2). A polytope inside C that
 * contains the origin, seeded by GJK's last simplex grown to a tetrahedron,
 * is grown towards the face nearest the origin: that face's distance d is a
 * lower bound of the depth, h_C along its normal an upper bound; a new
 * support point replaces the faces that see it. The polytope lives in fixed
 * arrays on the stack (IMP_EPA_MAXV vertices, IMP_EPA_MAXF faces): when
 * they are full, the best normal so far is kept. For polyhedra (box, mesh)
 * EPA ends exactly; on curved shapes it refines like a mesh of the curved
 * boundary, and when the pool ends first the normal is polished by ascent
 * of gap(n), exact wherever the optimum is smooth.
 *
 * Margin: the geoms are not inflated; GJK gives the distance itself and
 * stops as soon as its lower bound exceeds the margin (no contact). */
#include <math.h>

#include "collision/collision.h"
#include "core/mathx.h"
#include "core/sort.h"

/* GJK stops when its upper and lower bounds on the distance are within
   this times the pair's size (geom_rbound sum). The normal then has
   gap(n) >= dist - tol, which for curved shapes (gap falls off as
   L theta^2 / 2 with the angle theta from the optimum, L ~ the size) puts
   it within sqrt(2 1e-12) ~ 1.4e-6 rad; the bounds are computed to
   ~1e-16 of the size, so the test is reachable in double. */
#define IMP_GJK_TOL 1e-12
/* Bound on GJK iterations: polyhedra end in a few (finitely many support
   points), curved pairs converge linearly to IMP_GJK_TOL in ~10-40
   (measured); the bound only guards against degenerate input. */
#define IMP_GJK_MAXITER 128
/* EPA stops when the upper and lower bounds of the depth are within this
   times the size (exact for polyhedra, where the bounds meet). */
#define IMP_EPA_TOL 1e-12
/* EPA's polytope: faces = 2 vertices - 4 for a closed triangulated
   polytope, so the face pool never runs out before the vertex pool. On
   curved pairs EPA adds a vertex per step and meets IMP_EPA_TOL within 128
   vertices on all but the most ill-conditioned poses of the tests (a sphere
   centre 1.6 cm from a capsule's axis: 1.4e-11 short, normal 4e-5 rad off,
   where the gap is flat along the axis and kinked across it, so polishing
   cannot help); 256 meets it on all 2700 random poses of the cross-check
   but 15. The polytope then takes ~55 kB of stack. */
#define IMP_EPA_MAXV 256
#define IMP_EPA_MAXF (2 * IMP_EPA_MAXV)
/* Steps of the normal's polishing (polish_normal), each two support
   calls: the Barzilai-Borwein steps converge fast on smooth curved pairs; a
   flat contact stops after ~15 rejected (quartered) steps. */
#define IMP_POLISH_MAXITER 100
#define IMP_POLISH_ANGLE 1e-10
/* After polishing, supports of the two geoms that are apart across the
   normal by less than this (times the size) face each other: a curved
   contact, whose supports are its surface points. The polished normal is
   within ~1e-6 rad, which tilts facing supports by ~1e-6 of the size. */
#define IMP_WITNESS_TANGENT 1e-5

/* Support points of single geoms: support.c. */

/* ---- the Minkowski difference C = A - B ---- */

/* The pair being measured. Side 1 is geom g1, or, when poly1 is set, the
   convex hull of npoly1 world points standing in for it (a height field's
   prism, collide_hfield.c), which borrows g1's axes only to seed EPA. */
typedef struct pair_ctx {
  const imp_model* m;
  const imp_data* d;
  int g1, g2;
  const double* poly1; /* npoly1 x 3, world; NULL: g1's own shape */
  int npoly1;
  double c1[3];  /* a point inside side 1: g1's origin, or the points' mean */
  double rb1;    /* side 1's bounding radius about c1 */
  int* hint;     /* 2: the last support vertex of each side's mesh, where the
                    next search starts (support.c); NULL: none */
} pair_ctx;

/* support of side 1 along dir: g1's, or the farthest of the points */
static void support_1(const pair_ctx* c, const double dir[3], double out[3]) {
  if (!c->poly1) {
    imp_geom_support_hint(c->m, c->d, c->g1, dir, c->hint, out);
    return;
  }
  int best = 0;
  double dbest = imp_dot(c->poly1, dir, 3);
  for (int i = 1; i < c->npoly1; i++) {
    double dv = imp_dot(c->poly1 + 3 * i, dir, 3);
    if (dv > dbest) dbest = dv, best = i;
  }
  imp_copy(out, c->poly1 + 3 * best, 3);
}

/* a point w = a - b of C with the geoms' points a (of g1) and b (of g2) */
typedef struct mink_pt {
  double w[3], a[3], b[3];
} mink_pt;

/* support point of C along dir: s_A(dir) - s_B(-dir) */
static void support_c(const pair_ctx* c, const double dir[3], mink_pt* p) {
  double minus[3] = {-dir[0], -dir[1], -dir[2]};
  support_1(c, dir, p->a);
  imp_geom_support_hint(c->m, c->d, c->g2, minus, c->hint ? c->hint + 1 : NULL, p->b);
  for (int i = 0; i < 3; i++) p->w[i] = p->a[i] - p->b[i];
}

/* res = a - b */
static void sub3(double res[3], const double a[3], const double b[3]) {
  for (int i = 0; i < 3; i++) res[i] = a[i] - b[i];
}

/* (b - a) . ((c - a) x (d - a)): six times the signed volume of abcd */
static double volume6(const double a[3], const double b[3], const double c[3],
                      const double d[3]) {
  double ab[3], ac[3], ad[3], x[3];
  sub3(ab, b, a);
  sub3(ac, c, a);
  sub3(ad, d, a);
  imp_cross(x, ac, ad);
  return imp_dot(ab, x, 3);
}

/* ---- nearest point of a simplex to the origin ---- */

/* A simplex of up to 4 points of C and the barycentric weights of its
   point v nearest the origin. */
typedef struct simplex {
  mink_pt p[4];
  double lam[4];
  int n;
} simplex;

/* Below these a simplex is flat (a triangle's sine of angle, a
   tetrahedron's volume over the product of its edges): its barycentric
   coordinates are then not computed, the facets are searched instead. */
#define IMP_FLAT_TRIANGLE 1e-10
#define IMP_FLAT_TETRA 1e-10

/* Nearest point v of segment ab: the projection t = -a.(b - a) / |b - a|^2
   clamped to the segment; weights of a and b in lam. */
static void nearest_segment(const double a[3], const double b[3], double lam[2], double v[3]) {
  double ab[3];
  sub3(ab, b, a);
  double l2 = imp_dot(ab, ab, 3);
  double t = l2 > 0 ? -imp_dot(a, ab, 3) / l2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  lam[0] = 1 - t;
  lam[1] = t;
  imp_copy(v, a, 3);
  imp_add_scl(v, ab, t, 3);
}

/* Nearest point v of triangle abc. With n = (b - a) x (c - a), the
   origin's projection on the plane is n (n.a) / |n|^2 and its barycentric
   coordinates are the signed areas n.(b x c), n.(c x a), n.(a x b) over
   |n|^2 (the projection moves along n, which leaves those areas alone);
   when all are positive that is v, otherwise v lies on an edge and the
   nearest of the three is taken. Returns |v|^2. */
static double nearest_triangle(const double a[3], const double b[3], const double c[3],
                               double lam[3], double v[3]) {
  double ab[3], ac[3], n[3], x[3];
  sub3(ab, b, a);
  sub3(ac, c, a);
  imp_cross(n, ab, ac);
  double nn = imp_dot(n, n, 3);
  double flat = IMP_FLAT_TRIANGLE * IMP_FLAT_TRIANGLE * imp_dot(ab, ab, 3) * imp_dot(ac, ac, 3);
  if (nn > flat) {
    imp_cross(x, b, c);
    lam[0] = imp_dot(n, x, 3) / nn;
    imp_cross(x, c, a);
    lam[1] = imp_dot(n, x, 3) / nn;
    imp_cross(x, a, b);
    lam[2] = imp_dot(n, x, 3) / nn;
    if (lam[0] > 0 && lam[1] > 0 && lam[2] > 0) {
      imp_scl(v, n, imp_dot(n, a, 3) / nn, 3);
      return imp_dot(v, v, 3);
    }
  }
  const double* pts[3] = {a, b, c};
  double best = INFINITY;
  for (int e = 0; e < 3; e++) {
    double l2[2], ve[3];
    nearest_segment(pts[e], pts[(e + 1) % 3], l2, ve);
    double dd = imp_dot(ve, ve, 3);
    if (dd < best) {
      best = dd;
      imp_copy(v, ve, 3);
      lam[e] = l2[0];
      lam[(e + 1) % 3] = l2[1];
      lam[(e + 2) % 3] = 0;
    }
  }
  return best;
}

/* Nearest point v of tetrahedron p[0..3]. The origin's barycentric
   coordinates are the volumes of the tetrahedra with the origin in place of
   each vertex over the whole volume; all positive: the origin is inside
   (v = 0). Otherwise v lies on a face whose opposite coordinate is not
   positive (the origin is beyond that face's plane), or on any face when
   the tetrahedron is flat. Returns |v|^2. */
static double nearest_tetra(const double* p[4], double lam[4], double v[3]) {
  static const double origin[3] = {0, 0, 0};
  double vol = volume6(p[0], p[1], p[2], p[3]), e[3][3];
  for (int k = 0; k < 3; k++) sub3(e[k], p[k + 1], p[0]);
  double size = imp_norm3(e[0]) * imp_norm3(e[1]) * imp_norm3(e[2]);
  int flat = !(fabs(vol) > IMP_FLAT_TETRA * size);
  if (!flat) {
    int inside = 1;
    for (int k = 0; k < 4; k++) {
      const double* q[4] = {p[0], p[1], p[2], p[3]};
      q[k] = origin;
      lam[k] = volume6(q[0], q[1], q[2], q[3]) / vol;
      inside = inside && lam[k] > 0;
    }
    if (inside) {
      imp_zero(v, 3);
      return 0;
    }
  }
  double best = INFINITY, lk[4];
  for (int k = 0; k < 4; k++) lk[k] = lam[k];
  for (int k = 0; k < 4; k++) {
    if (!flat && lk[k] > 0) continue;
    int i0 = (k + 1) % 4, i1 = (k + 2) % 4, i2 = (k + 3) % 4;
    double l3[3], vf[3];
    double dd = nearest_triangle(p[i0], p[i1], p[i2], l3, vf);
    if (dd < best) {
      best = dd;
      imp_copy(v, vf, 3);
      lam[k] = 0;
      lam[i0] = l3[0];
      lam[i1] = l3[1];
      lam[i2] = l3[2];
    }
  }
  return best;
}

/* Replace the simplex by the smallest sub-simplex whose hull holds its
   point v nearest the origin (the points of positive weight), and return
   v. Johnson's sub-algorithm in the role GJK gives it (Gilbert et al. 1988,
   sec. V). */
static void simplex_reduce(simplex* s, double v[3]) {
  const double* w[4] = {s->p[0].w, s->p[1].w, s->p[2].w, s->p[3].w};
  switch (s->n) {
    case 1:
      s->lam[0] = 1;
      imp_copy(v, w[0], 3);
      break;
    case 2:
      nearest_segment(w[0], w[1], s->lam, v);
      break;
    case 3:
      nearest_triangle(w[0], w[1], w[2], s->lam, v);
      break;
    default:
      nearest_tetra(w, s->lam, v);
  }
  int k = 0;
  for (int i = 0; i < s->n; i++)
    if (s->lam[i] > 0) {
      s->p[k] = s->p[i];
      s->lam[k++] = s->lam[i];
    }
  s->n = k;
}

/* the geoms' points sum lam_i a_i and sum lam_i b_i of the simplex */
static void simplex_witness(const simplex* s, double pa[3], double pb[3]) {
  imp_zero(pa, 3);
  imp_zero(pb, 3);
  for (int i = 0; i < s->n; i++) {
    imp_add_scl(pa, s->p[i].a, s->lam[i], 3);
    imp_add_scl(pb, s->p[i].b, s->lam[i], 3);
  }
}

/* ---- GJK: the distance of separated geoms ---- */

typedef enum { GJK_APART, GJK_BEYOND_MARGIN, GJK_OVERLAP } gjk_status;

/* What GJK found: the best lower bound dist = gap(n) with its normal n
   (g1 to g2), and the simplex of its last nearest point (the witnesses,
   or the seed of EPA on overlap). converged is 0 when the iteration bound
   stopped it. */
typedef struct gjk_result {
  simplex s;
  double dist, n[3];
  int converged;
} gjk_result;

/* Is w already a point of the simplex? (A polyhedron's support repeats
   once GJK has found the nearest feature.) */
static int simplex_has(const simplex* s, const double w[3]) {
  for (int i = 0; i < s->n; i++)
    if (s->p[i].w[0] == w[0] && s->p[i].w[1] == w[1] && s->p[i].w[2] == w[2]) return 1;
  return 0;
}

/* GJK from v = c1 - c2 (a point of C: the geoms' frame origins are inside
   them), with van den Bergen's bounds: upper |v|, lower v.w / |v| with
   w = s_C(-v), which is gap(n) for n = -v / |v|. Ends APART when the bounds
   meet to tol, BEYOND_MARGIN as soon as the lower bound exceeds the margin,
   OVERLAP when the simplex holds the origin or |v| <= tol (touching, or
   inside: EPA decides). */
static gjk_status gjk(const pair_ctx* c, double margin, double tol, gjk_result* r) {
  double v[3];
  sub3(v, c->c1, c->d->geom_xpos + 3 * c->g2);
  simplex* s = &r->s;
  s->n = 0;
  r->dist = -INFINITY;
  r->converged = 0;
  imp_zero(r->n, 3);
  for (int it = 0; it < IMP_GJK_MAXITER; it++) {
    double vn = imp_norm3(v);
    if (vn <= tol) return GJK_OVERLAP;
    double dir[3] = {-v[0], -v[1], -v[2]};
    mink_pt w;
    support_c(c, dir, &w);
    double lower = imp_dot(v, w.w, 3) / vn;
    if (lower > margin) return GJK_BEYOND_MARGIN;
    if (lower > r->dist) {
      r->dist = lower;
      imp_scl(r->n, dir, 1 / vn, 3);
    }
    if (vn - r->dist <= tol || simplex_has(s, w.w)) {
      r->converged = 1;
      return GJK_APART;
    }
    simplex prev = *s;
    s->p[s->n++] = w;
    double vnew[3];
    simplex_reduce(s, vnew);
    if (s->n == 4) return GJK_OVERLAP;
    /* |v| decreases strictly in exact arithmetic once v is the simplex's
       (the first v, c1 - c2, is not); when rounding stops it, the bounds
       are as close as double makes them */
    if (prev.n > 0 && !(imp_norm3(vnew) < vn)) {
      *s = prev;
      r->converged = 1;
      return GJK_APART;
    }
    imp_copy(v, vnew, 3);
  }
  return GJK_APART;
}

/* ---- EPA: the penetration depth of overlapping geoms ---- */

/* A triangle of the polytope, counter-clockwise seen from outside: vertex
   indices, the faces across its edges (v[k], v[k+1]), its outward unit
   normal and its plane's distance from the origin (n.x = dist). */
typedef struct epa_face {
  int v[3], adj[3];
  double n[3], dist;
} epa_face;

/* The polytope, in fixed arrays: dead face slots are reused. near[f] is
   face f's dist while it lives, +infinity once dead: the nearest face is
   found by one scan of contiguous values, not of the faces. */
typedef struct epa_poly {
  mink_pt vert[IMP_EPA_MAXV];
  epa_face face[IMP_EPA_MAXF];
  double near[IMP_EPA_MAXF];
  int nvert, nface, nfree;
  int freelist[IMP_EPA_MAXF];
} epa_poly;

/* A face whose sine of angle is below this is a sliver: its normal would
   carry the rounding of its edges divided by that sine. */
#define IMP_EPA_SLIVER 1e-9

/* Plane of the triangle (a, b, c): unit normal n along (b - a) x (c - a)
   and its distance from the origin. Returns 0 for a sliver. */
static int triangle_plane(const double a[3], const double b[3], const double c[3], double n[3],
                          double* dist) {
  double ab[3], ac[3];
  sub3(ab, b, a);
  sub3(ac, c, a);
  imp_cross(n, ab, ac);
  /* |ab x ac| > SLIVER |ab| |ac| squared: one square root a face, not three */
  double len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
  double ab2 = imp_dot(ab, ab, 3), ac2 = imp_dot(ac, ac, 3);
  if (!(len2 > IMP_EPA_SLIVER * IMP_EPA_SLIVER * ab2 * ac2)) return 0;
  double len = sqrt(len2);
  imp_scl(n, n, 1 / len, 3);
  *dist = (imp_dot(n, a, 3) + imp_dot(n, b, 3) + imp_dot(n, c, 3)) / 3;
  return 1;
}

/* a free face slot, or -1 */
static int face_alloc(epa_poly* P) {
  if (P->nfree > 0) return P->freelist[--P->nfree];
  return P->nface < IMP_EPA_MAXF ? P->nface++ : -1;
}

/* the edge index of face f that runs from vertex i to vertex j, or -1 */
static int face_edge(const epa_face* f, int i, int j) {
  for (int k = 0; k < 3; k++)
    if (f->v[k] == i && f->v[(k + 1) % 3] == j) return k;
  return -1;
}

/* The first polytope from the four points vert[0..3] (a tetrahedron of
   volume): faces oriented outward, neighbours linked. Returns 0 when a
   face is a sliver. */
static int epa_tetra(epa_poly* P) {
  const double* w[4] = {P->vert[0].w, P->vert[1].w, P->vert[2].w, P->vert[3].w};
  /* with volume6 < 0 the 4th point is behind (a, b, c): outward order */
  int b = 1, c = 2;
  if (volume6(w[0], w[1], w[2], w[3]) > 0) b = 2, c = 1;
  const int tri[4][3] = {{0, b, c}, {0, c, 3}, {0, 3, b}, {b, 3, c}};
  P->nface = 4;
  P->nfree = 0;
  for (int f = 0; f < 4; f++) {
    epa_face* F = P->face + f;
    for (int k = 0; k < 3; k++) F->v[k] = tri[f][k];
    if (!triangle_plane(w[F->v[0]], w[F->v[1]], w[F->v[2]], F->n, &F->dist)) return 0;
    P->near[f] = F->dist;
  }
  for (int f = 0; f < 4; f++)
    for (int k = 0; k < 3; k++)
      for (int g = 0; g < 4; g++)
        if (g != f && face_edge(P->face + g, P->face[f].v[(k + 1) % 3], P->face[f].v[k]) >= 0)
          P->face[f].adj[k] = g;
  return 1;
}

/* Seed lengths: a new seed point must lie this far (times the pair's
   size) off the line or plane of the points so far. */
#define IMP_EPA_SEED 1e-9

/* distance of p from the line through a, b */
static double line_distance(const double a[3], const double b[3], const double p[3]) {
  double ab[3], ap[3], x[3];
  sub3(ab, b, a);
  sub3(ap, p, a);
  imp_cross(x, ab, ap);
  double l = imp_norm3(ab);
  return l > 0 ? imp_norm3(x) / l : imp_norm3(ap);
}

/* How far p is from the hull of vert[0..n) in the sense that matters for
   growing it: from the point (n = 1), the line (2) or the plane (3). */
static double seed_offset(const epa_poly* P, const double p[3]) {
  const double* a = P->vert[0].w;
  if (P->nvert == 1) {
    double d[3];
    sub3(d, p, a);
    return imp_norm3(d);
  }
  if (P->nvert == 2) return line_distance(a, P->vert[1].w, p);
  double n[3], dist;
  if (!triangle_plane(a, P->vert[1].w, P->vert[2].w, n, &dist)) return 0;
  return fabs(imp_dot(n, p, 3) - dist);
}

/* Grow GJK's simplex (0 to 4 points holding, or within tol of, the origin)
   to a tetrahedron with volume. Search directions, in order: the normal of
   a triangle (the origin's side first) and its opposite; across a segment,
   its cross products with g1's axes, both signs; from a point, g1's axes,
   both signs. g1's axes make the choice turn with the geoms (invariance
   under rigid motion). Returns 0 when C is flat (no point off the plane). */
static int epa_seed(const pair_ctx* c, const simplex* s, double scale, epa_poly* P) {
  const double* R = c->d->geom_xmat + 9 * c->g1;
  double axis[3][3] = {{R[0], R[3], R[6]}, {R[1], R[4], R[7]}, {R[2], R[5], R[8]}};
  P->nvert = s->n;
  for (int i = 0; i < s->n; i++) P->vert[i] = s->p[i];
  if (P->nvert == 0) {
    support_c(c, axis[0], P->vert);
    P->nvert = 1;
  }
  while (P->nvert < 4) {
    double dirs[6][3];
    int ndir = 0;
    if (P->nvert == 3) {
      double n[3], dist;
      if (!triangle_plane(P->vert[0].w, P->vert[1].w, P->vert[2].w, n, &dist)) return 0;
      double sg = dist > 0 ? -1 : 1; /* the origin's side */
      imp_scl(dirs[0], n, sg, 3);
      imp_scl(dirs[1], n, -sg, 3);
      ndir = 2;
    } else {
      for (int k = 0; k < 3; k++) {
        double u[3];
        if (P->nvert == 2) {
          double e[3];
          sub3(e, P->vert[1].w, P->vert[0].w);
          imp_cross(u, e, axis[k]);
          if (imp_normalize3(u) < IMP_MINVAL) continue;
        } else {
          imp_copy(u, axis[k], 3);
        }
        imp_copy(dirs[ndir++], u, 3);
        imp_scl(dirs[ndir++], u, -1, 3);
      }
    }
    int grown = 0;
    for (int k = 0; k < ndir && !grown; k++) {
      mink_pt p;
      support_c(c, dirs[k], &p);
      if (seed_offset(P, p.w) > IMP_EPA_SEED * scale) {
        P->vert[P->nvert++] = p;
        grown = 1;
      }
    }
    if (!grown) return 0;
  }
  return epa_tetra(P);
}

/* the live face nearest the origin (the first of equals) */
static int epa_nearest_face(const epa_poly* P) {
  int best = -1;
  double bd = INFINITY;
  for (int f = 0; f < P->nface; f++)
    if (P->near[f] < bd) best = f, bd = P->near[f];
  return best;
}

/* face slot *a before *b (imp_heapsort; slots are distinct) */
static int slot_before(const void* a, const void* b, void* ctx) {
  (void)ctx;
  return *(const int*)a < *(const int*)b;
}

/* The horizon of new vertex w seen from face f0: the faces that see w
   (connected to f0, visible when w is in front of their plane by more than
   -eps: nearly coplanar faces go too, so no sliver is left next to w) are
   marked in vis and listed in seen (*nseen of them); the edges between
   them and the rest are written as (from[i], to[i]) with the face beyond,
   ordered into one loop. Returns the edge count, or -1 when the faces seen
   are not a disc (rounding). */
static int epa_horizon(const epa_poly* P, int f0, const double w[3], double eps, char* vis,
                       int* seen, int* nseen, int* from, int* to, int* beyond) {
  int stack[IMP_EPA_MAXF], nstack = 0, nh = 0;
  memset(vis, 0, (size_t)P->nface);
  vis[f0] = 1;
  seen[0] = f0;
  *nseen = 1;
  stack[nstack++] = f0;
  while (nstack > 0) {
    const epa_face* F = P->face + stack[--nstack];
    for (int k = 0; k < 3; k++) {
      int g = F->adj[k];
      if (vis[g] == 1) continue;
      if (vis[g] == 0 && imp_dot(P->face[g].n, w, 3) - P->face[g].dist > -eps) {
        vis[g] = 1;
        seen[(*nseen)++] = g;
        stack[nstack++] = g;
        continue;
      }
      vis[g] = 2;
      if (nh == IMP_EPA_MAXV) return -1;
      from[nh] = F->v[k];
      to[nh] = F->v[(k + 1) % 3];
      beyond[nh++] = g;
    }
  }
  /* a face found visible after its edge was listed: drop such edges */
  int k = 0;
  for (int i = 0; i < nh; i++)
    if (vis[beyond[i]] != 1) {
      from[k] = from[i];
      to[k] = to[i];
      beyond[k++] = beyond[i];
    }
  nh = k;
  /* order into a loop: each edge followed by the one starting where it ends */
  for (int i = 0; i + 1 < nh; i++) {
    int j = i + 1;
    while (j < nh && from[j] != to[i]) j++;
    if (j == nh) return -1;
    int t;
    t = from[i + 1], from[i + 1] = from[j], from[j] = t;
    t = to[i + 1], to[i + 1] = to[j], to[j] = t;
    t = beyond[i + 1], beyond[i + 1] = beyond[j], beyond[j] = t;
  }
  if (nh < 3 || to[nh - 1] != from[0]) return -1;
  return nh;
}

/* Add support point p, seen from face f0, to the polytope: the faces that
   see it are replaced by a fan from it to the horizon. Nothing changes and
   0 is returned when the horizon is broken, a new face is a sliver or the
   pools are full. */
static int epa_expand(epa_poly* P, int f0, const mink_pt* p, double eps) {
  /* the horizon is a simple loop of vertices: at most IMP_EPA_MAXV edges */
  char vis[IMP_EPA_MAXF];
  int seen[IMP_EPA_MAXF], nvis;
  int from[IMP_EPA_MAXV], to[IMP_EPA_MAXV], beyond[IMP_EPA_MAXV];
  double n[IMP_EPA_MAXV][3], dist[IMP_EPA_MAXV];
  if (P->nvert == IMP_EPA_MAXV) return 0;
  int nh = epa_horizon(P, f0, p->w, eps, vis, seen, &nvis, from, to, beyond);
  if (nh < 0) return 0;
  if (P->nfree + nvis + (IMP_EPA_MAXF - P->nface) < nh) return 0;
  for (int i = 0; i < nh; i++)
    if (!triangle_plane(P->vert[from[i]].w, P->vert[to[i]].w, p->w, n[i], dist + i)) return 0;

  int iw = P->nvert++;
  P->vert[iw] = *p;
  /* freed in ascending slot order, as a scan of vis would (the slots the
     new faces take, and so the ties of epa_nearest_face, stay the same) */
  imp_heapsort(seen, nvis, sizeof *seen, slot_before, NULL);
  for (int i = 0; i < nvis; i++) {
    P->near[seen[i]] = INFINITY;
    P->freelist[P->nfree++] = seen[i];
  }
  int first = -1, prev = -1;
  for (int i = 0; i < nh; i++) {
    int f = face_alloc(P);
    epa_face* F = P->face + f;
    F->v[0] = from[i];
    F->v[1] = to[i];
    F->v[2] = iw;
    imp_copy(F->n, n[i], 3);
    F->dist = dist[i];
    P->near[f] = dist[i];
    /* across the horizon edge: the face beyond, which points back */
    F->adj[0] = beyond[i];
    P->face[beyond[i]].adj[face_edge(P->face + beyond[i], to[i], from[i])] = f;
    /* the fan: edge (w, from) of this face meets edge (to, w) of the last */
    if (prev >= 0) {
      F->adj[2] = prev;
      P->face[prev].adj[1] = f;
    } else {
      first = f;
    }
    prev = f;
  }
  P->face[first].adj[2] = prev;
  P->face[prev].adj[1] = first;
  return 1;
}

/* The geoms' points behind the point dist n of face F: the barycentric
   coordinates of that point in the triangle (signed areas along n) weigh
   the vertices' a and b. */
static void face_witness(const epa_poly* P, const epa_face* F, double pa[3], double pb[3]) {
  double x[3], lam[3], tot = 0;
  double p[3] = {F->n[0] * F->dist, F->n[1] * F->dist, F->n[2] * F->dist};
  for (int k = 0; k < 3; k++) {
    double e1[3], e2[3];
    sub3(e1, P->vert[F->v[(k + 1) % 3]].w, p);
    sub3(e2, P->vert[F->v[(k + 2) % 3]].w, p);
    imp_cross(x, e1, e2);
    lam[k] = imp_dot(x, F->n, 3);
    tot += lam[k];
  }
  imp_zero(pa, 3);
  imp_zero(pb, 3);
  for (int k = 0; k < 3; k++) {
    double l = tot > 0 ? lam[k] / tot : 1.0 / 3;
    imp_add_scl(pa, P->vert[F->v[k]].a, l, 3);
    imp_add_scl(pb, P->vert[F->v[k]].b, l, 3);
  }
}

/* What EPA found: the normal n (g1 to g2) of least upper bound h_C(n),
   dist = -h_C(n) = gap(n), witnesses on its face, converged when the
   bounds met to tol. */
typedef struct epa_result {
  double dist, n[3], pa[3], pb[3];
  int converged;
} epa_result;

/* EPA from GJK's simplex. Returns 0 when no polytope with volume could be
   seeded (a flat Minkowski difference). */
static int epa(const pair_ctx* c, const simplex* s, double scale, epa_result* r) {
  epa_poly P;
  if (!epa_seed(c, s, scale, &P)) return 0;
  double tol = IMP_EPA_TOL * scale, best = INFINITY;
  r->converged = 0;
  for (;;) {
    int f = epa_nearest_face(&P);
    const epa_face* F = P.face + f;
    mink_pt p;
    support_c(c, F->n, &p);
    double upper = imp_dot(p.w, F->n, 3);
    if (upper < best) {
      best = upper;
      r->dist = -upper;
      imp_copy(r->n, F->n, 3);
      face_witness(&P, F, r->pa, r->pb);
    }
    if (upper - F->dist <= tol) {
      r->converged = 1;
      break;
    }
    if (!epa_expand(&P, f, &p, tol)) break;
  }
  return 1;
}

/* ---- polishing a normal on curved shapes ---- */

/* Signed gap of the geoms along the unit normal n from g1 to g2:
   n.s2 - n.s1 with s1 the support of g1 along n, s2 that of g2 along -n.
   For every n it is at most the signed distance, equal at the
   minimum-translation normal. */
static double gap_along(const pair_ctx* c, const double n[3], double s1[3], double s2[3]) {
  double minus_n[3] = {-n[0], -n[1], -n[2]};
  support_1(c, n, s1);
  imp_geom_support_hint(c->m, c->d, c->g2, minus_n, c->hint ? c->hint + 1 : NULL, s2);
  return imp_dot(s2, n, 3) - imp_dot(s1, n, 3);
}

/* Tangential part r = x - (x.u) u of x = s1 - s2, the point of C
   supporting direction u: the gradient on the unit sphere of
   h(u) = u.x = -gap(u). */
static void tangential(double r[3], const double u[3], const double s1[3],
                       const double s2[3]) {
  double x[3] = {s1[0] - s2[0], s1[1] - s2[1], s1[2] - s2[2]};
  imp_copy(r, x, 3);
  imp_add_scl(r, u, -imp_dot(x, u, 3), 3);
}

/* The first step length of polish_normal: the Barzilai-Borwein length
   du.du / du.dr from a probe a small angle along -r (for a pair of balls
   whose centres are L apart it is 1 / L, the step to the optimum, and L
   can be anything from the size down to ~0 in deep penetration). The
   probe's angle is that of the step 1 / size. Falls back to 1 / size when
   the probe measures no positive curvature (a kink or flat face). */
static double first_step(const pair_ctx* c, const double n[3], const double r[3]) {
  double alpha = 1 / fmax(c->rb1 + c->m->geom_rbound[c->g2], IMP_MINVAL);
  double u[3] = {n[0], n[1], n[2]}, t1[3], t2[3], r2[3];
  imp_add_scl(u, r, -alpha, 3);
  imp_normalize3(u);
  gap_along(c, u, t1, t2);
  tangential(r2, u, t1, t2);
  double du[3] = {u[0] - n[0], u[1] - n[1], u[2] - n[2]};
  double dr[3] = {r2[0] - r[0], r2[1] - r[1], r2[2] - r[2]};
  double curv = imp_dot(du, dr, 3);
  return curv > 0 ? imp_dot(du, du, 3) / curv : alpha;
}

/* Local maximization of gap(u) over unit u from the normal n, whose gap is
   dist (the signed distance is the maximum). Every accepted step is
   exactly measured, so polishing never makes the answer worse. Gradient
   steps u <- normalize(u - alpha r), alpha by Barzilai and Borwein (IMA J.
   Numer. Anal. 8, 1988) from the last two iterates, quartered when a step
   does not raise the gap. Used where EPA's pool ended before its bounds
   met, which happens only on curved boundaries, where gap is smooth near
   the optimum. Returns the new gap; n, s1, s2 updated. */
static double polish_normal(const pair_ctx* c, double n[3], double dist, double s1[3],
                            double s2[3]) {
  double r[3];
  tangential(r, n, s1, s2);
  double alpha = first_step(c, n, r);
  for (int it = 0; it < IMP_POLISH_MAXITER; it++) {
    if (alpha * imp_norm3(r) < IMP_POLISH_ANGLE) break;
    double u[3] = {n[0], n[1], n[2]}, t1[3], t2[3], r2[3];
    imp_add_scl(u, r, -alpha, 3);
    imp_normalize3(u);
    double g = gap_along(c, u, t1, t2);
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

/* ---- the pair ---- */

/* the size that scales the tolerances: the pair's bounding radii */
static double pair_scale(const pair_ctx* c) {
  double s = c->rb1 + c->m->geom_rbound[c->g2];
  return s > 0 ? s : 1;
}

/* Overlap: EPA from GJK's simplex, polished when its pool ended first.
   Fills dist, n and the witnesses. A flat Minkowski difference (a geom of
   zero size) has no interior: the centre line's gap is taken. */
static double penetration(const pair_ctx* c, const simplex* s, double scale, double n[3],
                          double pa[3], double pb[3]) {
  epa_result r;
  if (epa(c, s, scale, &r)) {
    imp_copy(n, r.n, 3);
    imp_copy(pa, r.pa, 3);
    imp_copy(pb, r.pb, 3);
    if (r.converged) return r.dist;
  } else {
    sub3(n, c->d->geom_xpos + 3 * c->g2, c->c1);
    if (imp_normalize3(n) < IMP_MINVAL) n[0] = 1, n[1] = n[2] = 0;
    r.dist = -INFINITY;
  }
  double s1[3], s2[3], t[3];
  double dist = gap_along(c, n, s1, s2);
  dist = polish_normal(c, n, dist, s1, s2);
  /* Supports along the polished normal that face each other (s1 - s2
     along n) are the surface points of a curved contact, exact where
     EPA's face was not. Otherwise one side is flat (a cylinder's cap, a
     box face), where the support is any point of the face: EPA's
     witnesses, which lie on the faces of its nearest polytope face, stay. */
  tangential(t, n, s1, s2);
  if (imp_norm3(t) <= IMP_WITNESS_TANGENT * scale) {
    imp_copy(pa, s1, 3);
    imp_copy(pb, s2, 3);
  }
  return dist;
}

/* the contact of a prepared pair (at most one), as imp_collide_convex */
static int collide_pair_ctx(const pair_ctx* cp, double margin, imp_contact* con) {
  const imp_data* d = cp->d;
  int g2 = cp->g2;
  pair_ctx c = *cp;
  double scale = pair_scale(&c), n[3], pa[3], pb[3], dist;
  gjk_result r;
  gjk_status st = gjk(&c, margin, IMP_GJK_TOL * scale, &r);
  if (st == GJK_BEYOND_MARGIN) return 0;
  if (st == GJK_APART) {
    dist = r.dist;
    imp_copy(n, r.n, 3);
    if (r.s.n > 0) {
      simplex_witness(&r.s, pa, pb);
    } else { /* the centres were the nearest points */
      imp_copy(pa, c.c1, 3);
      imp_copy(pb, d->geom_xpos + 3 * g2, 3);
    }
  } else {
    dist = penetration(&c, &r.s, scale, n, pa, pb);
  }
  if (!(dist <= margin)) return 0;
  con->dist = dist;
  for (int i = 0; i < 3; i++) con->pos[i] = 0.5 * (pa[i] + pb[i]);
  imp_copy(con->frame, n, 3);
  return 1;
}

/* Sphere g1 (radius r) against convex g2 by its centre: the sphere is its
   centre grown by r, so while the centre is outside g2 the signed distance
   is the centre's distance to g2 less r, along the same normal, and GJK
   alone measures it (to the same tolerance, IMP_GJK_TOL of the pair's
   size). The general path would find this overlap of the two solids by
   EPA, which on a curved g2 (dm_control's quadruped: a toe resting on the
   ellipsoid torso) builds a polytope of ~250 vertices and polishes its
   normal, ~400k instructions a contact. Returns the contacts (0 or 1), or
   -1 when the centre is in g2 (or on it): the general path then. */
static int sphere_by_centre(const imp_model* m, const imp_data* d, int g1, int g2,
                            double margin, imp_contact* con) {
  const double* ctr = d->geom_xpos + 3 * g1;
  double r = m->geom_size[3 * g1];
  int hint[2] = {-1, -1};
  pair_ctx whole = {m, d, g1, g2, NULL, 0, {ctr[0], ctr[1], ctr[2]}, m->geom_rbound[g1], NULL};
  pair_ctx c = {m, d, g1, g2, ctr, 1, {ctr[0], ctr[1], ctr[2]}, 0, hint};
  gjk_result res;
  gjk_status st = gjk(&c, margin + r, IMP_GJK_TOL * pair_scale(&whole), &res);
  if (st == GJK_BEYOND_MARGIN) return 0;
  if (st != GJK_APART || !(res.dist > 0)) return -1;
  double dist = res.dist - r, pb[3], pa[3];
  if (!(dist <= margin)) return 0;
  if (res.s.n > 0) {
    simplex_witness(&res.s, pa, pb);
  } else { /* the centres were the nearest points */
    imp_copy(pb, d->geom_xpos + 3 * g2, 3);
  }
  for (int i = 0; i < 3; i++) pa[i] = ctr[i] + r * res.n[i]; /* the sphere's surface */
  con->dist = dist;
  for (int i = 0; i < 3; i++) con->pos[i] = 0.5 * (pa[i] + pb[i]);
  imp_copy(con->frame, res.n, 3);
  return 1;
}

int imp_collide_convex(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                       imp_contact* con) {
  if (m->geom_type[g1] == IMP_GEOM_SPHERE) {
    int n = sphere_by_centre(m, d, g1, g2, margin, con);
    if (n >= 0) return n;
  }
  int hint[2] = {-1, -1};
  pair_ctx c = {m, d, g1, g2, NULL, 0, {0, 0, 0}, m->geom_rbound[g1], hint};
  imp_copy(c.c1, d->geom_xpos + 3 * g1, 3);
  return collide_pair_ctx(&c, margin, con);
}

int imp_collide_polytope_convex(const imp_model* m, const imp_data* d, int g1,
                                const double* vert, int nvert, int g2, double margin,
                                imp_contact* con) {
  int hint[2] = {-1, -1};
  pair_ctx c = {m, d, g1, g2, vert, nvert, {0, 0, 0}, 0, hint};
  for (int i = 0; i < nvert; i++) imp_add_scl(c.c1, vert + 3 * i, 1.0 / nvert, 3);
  for (int i = 0; i < nvert; i++) {
    double e[3];
    sub3(e, vert + 3 * i, c.c1);
    c.rb1 = fmax(c.rb1, imp_norm3(e));
  }
  return collide_pair_ctx(&c, margin, con);
}
