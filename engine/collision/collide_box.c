/* Box against box with a contact manifold.
 *
 * 1. Separating axis test (Gottschalk, Lin and Manocha, "OBBTree", SIGGRAPH
 *    1996): two boxes are disjoint iff their projections are disjoint on
 *    one of 15 axes, the 3 + 3 face normals and the 9 crosses of an edge of
 *    each. On axis L, box i projects to [c_i.L - r_i, c_i.L + r_i] with
 *    r_i = sum_k h_ik |a_ik . L|, so the gap along L is
 *    |(c2 - c1).L| - r1 - r2. The axis of largest gap (least penetration) is
 *    the contact normal; face axes win near ties, edge crosses of nearly
 *    parallel edges are skipped (their direction is noise).
 * 2. Face axis: the face of the other (incident) box most opposed to the
 *    normal is clipped against the 4 side planes of the reference face
 *    (Sutherland and Hodgman, "Reentrant polygon clipping", CACM 1974);
 *    every clipped point below the margin is a contact, depth measured from
 *    the reference face. A box resting on a larger one gets its 4 corners.
 * 3. Edge axis: one contact at the closest points of the two edges.
 *
 * For separated boxes the gap along the best axis is a lower bound of the
 * true distance (equal unless the nearest features are edge/corner pairs
 * not spanned by one axis); it is what is reported within the margin.
 * Contacts are kept at dist <= margin, as in collide_primitive.c.
 * MuJoCo 2.2.2 reports half the depth in the face case (same points and
 * normal); the full signed distance is reported here. */
#include <math.h>

#include "collision/collision.h"
#include "core/mathx.h"

typedef struct box_w {
  const double* c; /* centre */
  double ax[3][3]; /* unit axes in world */
  const double* h; /* half sizes */
} box_w;

static box_w get_box(const imp_model* m, const imp_data* d, int g) {
  box_w b;
  b.c = d->geom_xpos + 3 * g;
  b.h = m->geom_size + 3 * g;
  const double* R = d->geom_xmat + 9 * g;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) b.ax[k][i] = R[3 * i + k];
  return b;
}

/* projection radius of the box on unit L */
static double box_radius(const box_w* b, const double L[3]) {
  double r = 0;
  for (int k = 0; k < 3; k++) r += b->h[k] * fabs(imp_dot(b->ax[k], L, 3));
  return r;
}

/* Gap of the boxes along unit L; n gets L oriented from box 1 to box 2
   (+L when the centres project equal). */
static double axis_gap(const box_w* b1, const box_w* b2, const double L[3], double n[3]) {
  double t[3];
  for (int i = 0; i < 3; i++) t[i] = b2->c[i] - b1->c[i];
  double s = imp_dot(t, L, 3);
  imp_scl(n, L, s < 0 ? -1 : 1, 3);
  return fabs(s) - box_radius(b1, L) - box_radius(b2, L);
}

/* the box's support point along dir, and the edge along axis k through it */
static void support_edge(const box_w* b, const double dir[3], int k, double e0[3], double ed[3]) {
  imp_copy(e0, b->c, 3);
  for (int j = 0; j < 3; j++) {
    double hj = b->h[j];
    if (j == k) {
      imp_add_scl(e0, b->ax[j], -hj, 3);
    } else {
      imp_add_scl(e0, b->ax[j], imp_dot(b->ax[j], dir, 3) >= 0 ? hj : -hj, 3);
    }
  }
  imp_scl(ed, b->ax[k], 2 * b->h[k], 3);
}

/* Sutherland-Hodgman step: keep the part of polygon in (n points) where
   s(x) = dir . (x - centre) <= lim, writing it to out; returns its size.
   A vertex on the boundary counts as inside, so a face flush with the
   reference face keeps exactly its corners. */
static int clip_polygon(int n, double in[][3], double out[][3], const double dir[3],
                        const double centre[3], double lim) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    const double* p = in[i];
    const double* q = in[(i + 1) % n];
    double sp = 0, sq = 0;
    for (int k = 0; k < 3; k++) {
      sp += dir[k] * (p[k] - centre[k]);
      sq += dir[k] * (q[k] - centre[k]);
    }
    int pin = sp <= lim, qin = sq <= lim;
    if (pin) imp_copy(out[m++], p, 3);
    if (pin != qin) {
      double t = (lim - sp) / (sq - sp);
      for (int k = 0; k < 3; k++) out[m][k] = p[k] + t * (q[k] - p[k]);
      m++;
    }
  }
  return m;
}

static void set_contact(imp_contact* con, double dist, const double pos[3], const double n[3]) {
  con->dist = dist;
  imp_copy(con->pos, pos, 3);
  imp_zero(con->frame, 9);
  imp_copy(con->frame, n, 3);
}

/* Face case: ref's face k with outward normal nr (towards inc); n is the
   contact normal (box 1 to box 2), ref box ref_geom (1 or 2), on whose face
   the rows act (imp_contact.surface). Returns the contacts written. */
static int face_manifold(const box_w* ref, int k, const double nr[3], const box_w* inc,
                         const double n[3], int ref_geom, double margin, imp_contact* con) {
  /* incident face: inc's face normal most opposed to nr */
  int fk = 0;
  double fs = 1, most = INFINITY;
  for (int j = 0; j < 3; j++) {
    double dj = imp_dot(inc->ax[j], nr, 3);
    for (int side = 1; side >= -1; side -= 2)
      if (side * dj < most - 1e-12) {
        most = side * dj;
        fk = j;
        fs = side;
      }
  }
  int u = (fk + 1) % 3, v = (fk + 2) % 3;
  double poly[16][3], tmp[16][3];
  for (int i = 0; i < 4; i++) {
    /* corners in cyclic order around the face */
    double su = (i == 0 || i == 3) ? -1 : 1, sv = i < 2 ? -1 : 1;
    imp_copy(poly[i], inc->c, 3);
    imp_add_scl(poly[i], inc->ax[fk], fs * inc->h[fk], 3);
    imp_add_scl(poly[i], inc->ax[u], su * inc->h[u], 3);
    imp_add_scl(poly[i], inc->ax[v], sv * inc->h[v], 3);
  }
  int np = 4;
  for (int j = 0; j < 3 && np > 0; j++) {
    if (j == k) continue;
    for (int side = 1; side >= -1 && np > 0; side -= 2) {
      double dir[3];
      imp_scl(dir, ref->ax[j], side, 3);
      np = clip_polygon(np, poly, tmp, dir, ref->c, ref->h[j]);
      for (int i = 0; i < np; i++) imp_copy(poly[i], tmp[i], 3);
    }
  }
  double face[3];
  imp_copy(face, ref->c, 3);
  imp_add_scl(face, nr, ref->h[k], 3);
  int nc = 0;
  for (int i = 0; i < np && nc < IMP_MAXCONPAIR; i++) {
    double r[3];
    for (int j = 0; j < 3; j++) r[j] = poly[i][j] - face[j];
    double depth = imp_dot(r, nr, 3);
    if (!(depth <= margin)) continue;
    /* drop a point equal to one kept (clipping at a shared corner) */
    double pos[3];
    imp_copy(pos, poly[i], 3);
    imp_add_scl(pos, nr, -0.5 * depth, 3);
    int dup = 0;
    for (int j = 0; j < nc && !dup; j++) {
      double e = 0;
      for (int q = 0; q < 3; q++) e += fabs(con[j].pos[q] - pos[q]);
      dup = e < 1e-12 * (1 + ref->h[0] + ref->h[1] + ref->h[2]);
    }
    if (dup) continue;
    set_contact(con + nc, depth, pos, n);
    con[nc].surface = ref_geom;
    nc++;
  }
  return nc;
}

int imp_collide_box_box(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                        imp_contact* con) {
  box_w b1 = get_box(m, d, g1), b2 = get_box(m, d, g2);
  double best = -INFINITY, n[3] = {1, 0, 0};
  int best_axis = -1; /* 0..2 face of 1, 3..5 face of 2, 6 + 3i + j edge cross */
  for (int k = 0; k < 6; k++) {
    double L[3], nk[3];
    imp_copy(L, k < 3 ? b1.ax[k] : b2.ax[k - 3], 3);
    double gap = axis_gap(&b1, &b2, L, nk);
    if (gap > best) {
      best = gap;
      best_axis = k;
      imp_copy(n, nk, 3);
    }
  }
  if (!(best <= margin)) return 0;
  /* an edge axis must beat the best face by more than round-off */
  double scale = b1.h[0] + b1.h[1] + b1.h[2] + b2.h[0] + b2.h[1] + b2.h[2];
  double face_best = best;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double L[3], nk[3];
      imp_cross(L, b1.ax[i], b2.ax[j]);
      if (imp_normalize3(L) < 1e-6) continue;
      double gap = axis_gap(&b1, &b2, L, nk);
      if (gap > best && gap > face_best + 1e-9 * scale) {
        best = gap;
        best_axis = 6 + 3 * i + j;
        imp_copy(n, nk, 3);
      }
    }
  if (!(best <= margin)) return 0;
  if (best_axis < 3) return face_manifold(&b1, best_axis, n, &b2, n, 1, margin, con);
  if (best_axis < 6) {
    double nr[3];
    imp_scl(nr, n, -1, 3);
    return face_manifold(&b2, best_axis - 3, nr, &b1, n, 2, margin, con);
  }
  /* edge-edge: box 1's edge at its support towards box 2, and vice versa */
  int i = (best_axis - 6) / 3, j = (best_axis - 6) % 3;
  double e1[3], d1[3], e2[3], d2[3], q1[3], q2[3], mn[3], pos[3];
  imp_scl(mn, n, -1, 3);
  support_edge(&b1, n, i, e1, d1);
  support_edge(&b2, mn, j, e2, d2);
  double s, t;
  imp_segment_segment_params(e1, d1, e2, d2, &s, &t);
  for (int k = 0; k < 3; k++) {
    q1[k] = e1[k] + s * d1[k];
    q2[k] = e2[k] + t * d2[k];
    pos[k] = 0.5 * (q1[k] + q2[k]);
  }
  set_contact(con, best, pos, n);
  return 1;
}
