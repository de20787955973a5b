/* Tendons (MJCF <tendon>): their lengths, Jacobians, paths and passive
 * forces. Meanings from the MJCF reference (tendon/spatial, tendon/fixed)
 * and the Computation chapter of MuJoCo's documentation; where those are
 * silent (which of the two wraps, degenerate paths) the choices are MuJoCo
 * 2.2.2's, the oracle of test_mujoco_tendon.c.
 *
 * A fixed tendon's length is sum coef_j q_j over hinge and slide joints; its
 * Jacobian the coefficients. A spatial tendon is a chain of sites, with
 * sphere or cylinder geoms between two sites and pulleys that start new
 * branches; each branch's length counts divided by its pulley's divisor.
 * Between two sites with a geom, the shortest path that does not enter the
 * geom is two straight segments and, when the straight line would cross
 * the geom, a curve on its surface: a great-circle arc on a sphere, a helix
 * on a cylinder (wrap_geometry below).
 *
 * Jacobian of a spatial tendon: the path's length is a sum of straight
 * segments between points fixed to bodies (the sites, and the wrap points,
 * taken fixed to the geom's body). The curve on the surface adds no term of
 * its own: moving a wrap point along the surface changes the length only to
 * second order, the path being shortest, so d length = sum over segments of
 * dir . (v_end - v_start) with each point's velocity from its body's point
 * Jacobian (imp_point_column). Segments whose ends are on one body are
 * rigid and add nothing. */
#include <math.h>

#include "engine.h"
#include "core/mathx.h"

/* ---- wrapping, in the plane of the wrap (2D, the obstacle a circle of
   radius r about the origin) ---- */

/* 1 when segment a0-a1 meets segment b0-b1 (2D, ends included). */
static int segments_cross(const double a0[2], const double a1[2], const double b0[2],
                          const double b1[2]) {
  double ux = a1[0] - a0[0], uy = a1[1] - a0[1], vx = b1[0] - b0[0], vy = b1[1] - b0[1];
  double det = vy * ux - vx * uy;
  if (fabs(det) < IMP_MINVAL) return 0; /* parallel */
  double wx = a0[0] - b0[0], wy = a0[1] - b0[1];
  double s = (vx * wy - vy * wx) / det; /* along a */
  double t = (ux * wy - uy * wx) / det; /* along b */
  return s >= 0 && s <= 1 && t >= 0 && t <= 1;
}

static double norm2(const double v[2]) { return sqrt(v[0] * v[0] + v[1] * v[1]); }
static double dot3(const double a[3], const double b[3]) { return imp_dot(a, b, 3); }
static void sub3(double r[3], const double a[3], const double b[3]) {
  for (int i = 0; i < 3; i++) r[i] = a[i] - b[i];
}
static double dist3(const double a[3], const double b[3]) {
  double r[3];
  sub3(r, a, b);
  return imp_norm3(r);
}

/* Length of the arc from p0 to p1 on the circle of radius r: the short way
   round, or the long way when the turn from p0 to p1 does not go the way
   of the tangent solution `which` (0 clockwise, 1 counterclockwise). */
static double arc_length(const double p0[2], const double p1[2], int which, double r) {
  double n0 = norm2(p0), n1 = norm2(p1);
  double c = (p0[0] * p1[0] + p0[1] * p1[1]) / (n0 * n1);
  double angle = acos(c > 1 ? 1 : c < -1 ? -1 : c);
  double turn = p0[1] * p1[0] - p0[0] * p1[1]; /* > 0: clockwise from p0 to p1 */
  if ((turn > 0 && which) || (turn < 0 && !which)) angle = 2 * IMP_PI - angle;
  return r * angle;
}

/* Path from e0 to e1 (2D, both outside the circle) around the circle: the
   tangent points into pnt (p0 then p1) and the arc length, or -1 when the
   straight segment stays clear of the circle (and, with a side point sd,
   passes on its side). Of the two tangent paths (each end has two tangent
   points; solution 0 turns one way, 1 the other) the one nearer the side
   point, or without one the one with the shorter chord, unless its
   straight legs cross each other. */
static double wrap_circle(double pnt[4], const double e[4], const double* sd, double r) {
  double s0 = e[0] * e[0] + e[1] * e[1], s1 = e[2] * e[2] + e[3] * e[3], r2 = r * r;
  if (s0 < r2 || s1 < r2 || r < IMP_MINVAL) return -1; /* an end inside: no wrap */
  double dx = e[2] - e[0], dy = e[3] - e[1], dd = dx * dx + dy * dy;
  if (dd < IMP_MINVAL) return -1;
  /* the segment's point nearest the centre */
  double a = -(dx * e[0] + dy * e[1]) / dd;
  a = a < 0 ? 0 : a > 1 ? 1 : a;
  double near[2] = {e[0] + a * dx, e[1] + a * dy};
  if (near[0] * near[0] + near[1] * near[1] > r2 &&
      (!sd || sd[0] * near[0] + sd[1] * near[1] >= 0))
    return -1; /* clear of the circle, on the side point's side */
  double q0 = sqrt(s0 - r2), q1 = sqrt(s1 - r2);
  double sol[2][4], good[2];
  for (int i = 0; i < 2; i++) {
    double sg = i == 0 ? 1 : -1;
    /* tangent points: (r^2 e +- r sqrt(|e|^2 - r^2) e rotated by 90 degrees) / |e|^2 */
    sol[i][0] = (e[0] * r2 + sg * r * e[1] * q0) / s0;
    sol[i][1] = (e[1] * r2 - sg * r * e[0] * q0) / s0;
    sol[i][2] = (e[2] * r2 - sg * r * e[3] * q1) / s1;
    sol[i][3] = (e[3] * r2 + sg * r * e[2] * q1) / s1;
    if (sd) {
      double mid[2] = {sol[i][0] + sol[i][2], sol[i][1] + sol[i][3]};
      double n = norm2(mid);
      if (n > IMP_MINVAL) mid[0] /= n, mid[1] /= n;
      good[i] = mid[0] * sd[0] + mid[1] * sd[1];
    } else {
      double cx = sol[i][0] - sol[i][2], cy = sol[i][1] - sol[i][3];
      good[i] = -(cx * cx + cy * cy);
    }
    if (segments_cross(e, sol[i], e + 2, sol[i] + 2)) good[i] = -10000;
  }
  int i = good[0] > good[1] ? 0 : 1;
  for (int k = 0; k < 4; k++) pnt[k] = sol[i][k];
  if (segments_cross(e, pnt, e + 2, pnt + 2)) return -1;
  return arc_length(sol[i], sol[i] + 2, i, r);
}

/* Path from e0 to e1 through the inside of the circle (a side point inside
   the obstacle): the single point p of the circle at which the two
   straight legs meet as a light ray reflects, found by Newton's method on
   asin(A z) + asin(B z) - 2 asin(z) + G = 0 (A = r/|e0|, B = r/|e1|, G the
   angle between e0 and e1 seen from the centre); pnt holds p twice and the
   curve length is 0, -1 when the segment itself crosses the circle. When
   Newton fails, the direction halfway between the ends. */
static double wrap_inside(double pnt[4], const double e[4], double r) {
  double l0 = norm2(e), l1 = norm2(e + 2);
  double dx = e[2] - e[0], dy = e[3] - e[1], dd = dx * dx + dy * dy;
  if (l0 <= r || l1 <= r || r < IMP_MINVAL || l0 < IMP_MINVAL || l1 < IMP_MINVAL) return -1;
  if (dd > IMP_MINVAL) {
    double a = -(dx * e[0] + dy * e[1]) / dd;
    double near[2] = {e[0] + a * dx, e[1] + a * dy};
    if (a > 0 && a < 1 && norm2(near) <= r) return -1;
  }
  /* fallback: the mean direction of the ends */
  double mid[2] = {0.5 * (e[0] + e[2]), 0.5 * (e[1] + e[3])};
  double n = norm2(mid);
  if (n > IMP_MINVAL) mid[0] /= n, mid[1] /= n;
  pnt[0] = pnt[2] = r * mid[0];
  pnt[1] = pnt[3] = r * mid[1];
  double A = r / l0, B = r / l1, cosG = (l0 * l0 + l1 * l1 - dd) / (2 * l0 * l1);
  if (cosG < -1 + IMP_MINVAL) return -1;
  if (cosG > 1 - IMP_MINVAL) return 0;
  double G = acos(cosG), z = 1 - 1e-7;
  double f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
  if (f > 0) return 0;
  int iter = 0;
  for (; iter < 20 && fabs(f) > 1e-6; iter++) {
    double df = A / fmax(IMP_MINVAL, sqrt(1 - z * z * A * A)) +
                B / fmax(IMP_MINVAL, sqrt(1 - z * z * B * B)) -
                2 / fmax(IMP_MINVAL, sqrt(1 - z * z));
    if (df > -IMP_MINVAL) return 0;
    double z1 = z - f / df;
    if (z1 > z) return 0;
    z = z1;
    f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
    if (f > 1e-6) return 0;
  }
  if (iter >= 20) return 0;
  /* rotate the direction of one end by the angle between it and p */
  const double* from = e[0] * e[3] - e[1] * e[2] > 0 ? e : e + 2;
  double ang = asin(z) - asin((from == e ? A : B) * z), v[2] = {from[0], from[1]};
  double nv = norm2(v);
  if (nv > IMP_MINVAL) v[0] /= nv, v[1] /= nv;
  pnt[0] = pnt[2] = r * (cos(ang) * v[0] - sin(ang) * v[1]);
  pnt[1] = pnt[3] = r * (sin(ang) * v[0] + cos(ang) * v[1]);
  return 0;
}

/* The plane of a sphere's wrap: through the centre, p0 and p1 (axes ax0
   along p0, ax1 in the plane); a fixed plane when p0, p1 and the centre are
   in line. A cylinder's is its cross-section (x, y). */
static void wrap_plane(int type, const double p0[3], const double p1[3], double ax0[3],
                       double ax1[3]) {
  if (type == IMP_WRAP_CYLINDER) {
    ax0[0] = 1, ax0[1] = ax0[2] = 0;
    ax1[1] = 1, ax1[0] = ax1[2] = 0;
    return;
  }
  double normal[3];
  imp_copy(ax0, p0, 3);
  imp_normalize3(ax0);
  imp_cross(normal, p0, p1);
  if (imp_normalize3(normal) < IMP_MINVAL) {
    /* any plane through the line: the one containing (1,1,1) with the
       largest component of ax0 zeroed */
    int i = 0;
    if (fabs(ax0[1]) > fabs(ax0[0]) && fabs(ax0[1]) > fabs(ax0[2])) i = 1;
    if (fabs(ax0[2]) > fabs(ax0[0]) && fabs(ax0[2]) > fabs(ax0[1])) i = 2;
    double other[3] = {1, 1, 1};
    other[i] = 0;
    imp_cross(normal, ax0, other);
    imp_normalize3(normal);
  }
  imp_cross(ax1, normal, ax0);
  imp_normalize3(ax1);
}

double imp_wrap(double wpnt[6], const double x0[3], const double x1[3], const double xpos[3],
                const double xmat[9], double r, int type, const double* side) {
  double p[2][3], tmp[3];
  for (int i = 0; i < 2; i++) { /* the ends in the geom's frame */
    sub3(tmp, i ? x1 : x0, xpos);
    imp_mat3T_vec(p[i], xmat, tmp);
  }
  if (imp_norm3(p[0]) < IMP_MINVAL || imp_norm3(p[1]) < IMP_MINVAL) return -1;
  double ax[2][3];
  wrap_plane(type, p[0], p[1], ax[0], ax[1]);
  double e[4] = {dot3(p[0], ax[0]), dot3(p[0], ax[1]), dot3(p[1], ax[0]),
                 dot3(p[1], ax[1])};
  double pnt[4], len;
  if (side) {
    double s[3];
    sub3(tmp, side, xpos);
    imp_mat3T_vec(s, xmat, tmp);
    double sd[2] = {dot3(s, ax[0]), dot3(s, ax[1])};
    double n = norm2(sd);
    /* inside the obstacle in the plane of the wrap (MuJoCo 2.2.2's test;
       later versions test the side site's 3D distance from the centre) */
    if (n < r) {
      len = wrap_inside(pnt, e, r);
    } else {
      sd[0] *= r / n, sd[1] *= r / n;
      len = wrap_circle(pnt, e, sd, r);
    }
  } else {
    len = wrap_circle(pnt, e, NULL, r);
  }
  if (len < 0) return -1;
  double res[6];
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 3; k++) res[3 * i + k] = ax[0][k] * pnt[2 * i] + ax[1][k] * pnt[2 * i + 1];
  if (type == IMP_WRAP_CYLINDER) {
    /* a helix: height shared out in proportion to the path's length in
       the cross-section */
    double l0 = hypot(p[0][0] - res[0], p[0][1] - res[1]);
    double l1 = hypot(p[1][0] - res[3], p[1][1] - res[4]);
    double total = l0 + len + l1, dz = p[1][2] - p[0][2];
    res[2] = p[0][2] + dz * l0 / total;
    res[5] = p[0][2] + dz * (l0 + len) / total;
    double height = fabs(res[5] - res[2]);
    len = sqrt(len * len + height * height);
  }
  for (int i = 0; i < 2; i++) {
    imp_mat3_vec(wpnt + 3 * i, xmat, res + 3 * i);
    for (int k = 0; k < 3; k++) wpnt[3 * i + k] += xpos[k];
  }
  return len;
}

/* ---- lengths and Jacobians ---- */

/* A Jacobian row under construction: values dense over dofs (val), the
   dofs touched listed once (dof, n). */
typedef struct jac_row {
  double* val; /* nv, zero outside dof[] */
  int* seen;   /* nv: 1 when listed */
  int* dof;    /* nJten */
  int n;
} jac_row;

static void row_add(jac_row* J, int k, double v) {
  if (!J->seen[k]) J->seen[k] = 1, J->dof[J->n++] = k;
  J->val[k] += v;
}

/* d|p1 - p0| per unit dof velocity, scaled by s, into J: p0 on body b0, p1
   on b1 (different bodies). */
static void add_segment(const imp_model* m, const imp_data* d, int b0, const double p0[3], int b1,
                        const double p1[3], double s, int* dof, int* side, jac_row* J) {
  double dir[3];
  sub3(dir, p1, p0);
  imp_normalize3(dir);
  int n = imp_chain_union(m, b0, b1, dof, side);
  for (int i = 0; i < n; i++) {
    double c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
    if (side[i] & 1) imp_point_column(m, d, dof[i], p0, c0);
    if (side[i] & 2) imp_point_column(m, d, dof[i], p1, c1);
    row_add(J, dof[i], s * (dot3(dir, c1) - dot3(dir, c0)));
  }
}

/* The row into ten_J, dofs descending, and the dense scratch cleared. */
static void store_row(const imp_model* m, imp_data* d, int t, jac_row* J) {
  for (int i = 1; i < J->n; i++) /* insertion sort, descending: rows are short */
    for (int k = i; k > 0 && J->dof[k - 1] < J->dof[k]; k--) {
      int x = J->dof[k];
      J->dof[k] = J->dof[k - 1], J->dof[k - 1] = x;
    }
  int adr = d->ten_J_rowadr[t] = t * m->nJten;
  d->ten_J_rownnz[t] = J->n;
  for (int i = 0; i < J->n; i++) {
    int k = J->dof[i];
    d->ten_J_colind[adr + i] = k;
    d->ten_J[adr + i] = J->val[k];
    J->val[k] = 0;
    J->seen[k] = 0;
  }
  J->n = 0;
}

static void add_point(imp_data* d, int* count, int obj, const double x[3]) {
  d->wrap_obj[*count] = obj;
  imp_copy(d->wrap_xpos + 3 * *count, x, 3);
  (*count)++;
}

static double fixed_tendon(const imp_model* m, const imp_data* d, int t, jac_row* J) {
  double L = 0;
  for (int w = m->tendon_adr[t]; w < m->tendon_adr[t] + m->tendon_num[t]; w++) {
    int j = m->wrap_objid[w];
    L += m->wrap_prm[w] * d->qpos[m->jnt_qposadr[j]];
    row_add(J, m->jnt_dofadr[j], m->wrap_prm[w]);
  }
  return L;
}

/* A spatial tendon's path, branch by branch (the loader checked its
   grammar: sites, a geom only between two sites, pulleys between
   branches). */
static double spatial_tendon(const imp_model* m, imp_data* d, int t, jac_row* J, int* count,
                             int* dof, int* side) {
  int adr = m->tendon_adr[t], num = m->tendon_num[t];
  double L = 0, divisor = 1;
  for (int w = adr; w < adr + num - 1;) {
    if (m->wrap_type[w] == IMP_WRAP_PULLEY) {
      divisor = m->wrap_prm[w];
      double zero[3] = {0, 0, 0};
      add_point(d, count, -2, zero);
      w++;
      continue;
    }
    if (m->wrap_type[w + 1] == IMP_WRAP_PULLEY) { /* the branch ended at w */
      w++;
      continue;
    }
    int s0 = m->wrap_objid[w], geom = -1, s1;
    double wpnt[12], wlen = -1;
    imp_copy(wpnt, d->site_xpos + 3 * s0, 3);
    if (m->wrap_type[w + 1] == IMP_WRAP_SPHERE || m->wrap_type[w + 1] == IMP_WRAP_CYLINDER) {
      geom = m->wrap_objid[w + 1];
      s1 = m->wrap_objid[w + 2];
      int sid = (int)m->wrap_prm[w + 1];
      wlen = imp_wrap(wpnt + 3, d->site_xpos + 3 * s0, d->site_xpos + 3 * s1,
                      d->geom_xpos + 3 * geom, d->geom_xmat + 9 * geom, m->geom_size[3 * geom],
                      m->wrap_type[w + 1], sid >= 0 ? d->site_xpos + 3 * sid : NULL);
    } else {
      s1 = m->wrap_objid[w + 1];
    }
    int body[4] = {m->site_bodyid[s0], m->site_bodyid[s1], 0, 0}, nseg = 1;
    if (wlen < 0) {
      imp_copy(wpnt + 3, d->site_xpos + 3 * s1, 3);
      L += dist3(wpnt, wpnt + 3) / divisor;
    } else {
      imp_copy(wpnt + 9, d->site_xpos + 3 * s1, 3);
      body[1] = body[2] = m->geom_bodyid[geom];
      body[3] = m->site_bodyid[s1];
      nseg = 3;
      L += (dist3(wpnt, wpnt + 3) + wlen + dist3(wpnt + 6, wpnt + 9)) / divisor;
    }
    for (int k = 0; k < nseg; k++)
      if (body[k] != body[k + 1])
        add_segment(m, d, body[k], wpnt + 3 * k, body[k + 1], wpnt + 3 * k + 3, 1 / divisor, dof,
                    side, J);
    add_point(d, count, -1, wpnt);
    if (wlen >= 0) {
      add_point(d, count, geom, wpnt + 3);
      add_point(d, count, geom, wpnt + 6);
    }
    w += geom >= 0 ? 2 : 1;
    if (w == adr + num - 1 || m->wrap_type[w + 1] == IMP_WRAP_PULLEY) /* the branch's last site */
      add_point(d, count, -1, d->site_xpos + 3 * s1);
  }
  return L;
}

void imp_tendon(const imp_model* m, imp_data* d) {
  if (!m->ntendon) return;
  size_t mark = imp_stack_mark(d);
  jac_row J = {imp_stack_alloc(d, m->nv), imp_stack_alloc_int(d, m->nv),
               imp_stack_alloc_int(d, m->nJten), 0};
  imp_zero(J.val, m->nv);
  for (int i = 0; i < m->nv; i++) J.seen[i] = 0;
  int* dof = imp_stack_alloc_int(d, m->nJrow);
  int* side = imp_stack_alloc_int(d, m->nJrow);
  int count = 0;
  for (int t = 0; t < m->ntendon; t++) {
    d->ten_wrapadr[t] = count;
    if (m->wrap_type[m->tendon_adr[t]] == IMP_WRAP_JOINT)
      d->ten_length[t] = fixed_tendon(m, d, t, &J);
    else
      d->ten_length[t] = spatial_tendon(m, d, t, &J, &count, dof, side);
    d->ten_wrapnum[t] = count - d->ten_wrapadr[t];
    store_row(m, d, t, &J);
  }
  imp_stack_release(d, mark);
}

void imp_tendon_vel(const imp_model* m, imp_data* d) {
  for (int t = 0; t < m->ntendon; t++) {
    double v = 0;
    int adr = d->ten_J_rowadr[t];
    for (int i = 0; i < d->ten_J_rownnz[t]; i++) v += d->ten_J[adr + i] * d->qvel[d->ten_J_colind[adr + i]];
    d->ten_velocity[t] = v;
  }
}

/* qfrc += J_t' f */
static void add_tendon_force(const imp_model* m, const imp_data* d, int t, double f, double* qfrc) {
  (void)m;
  int adr = d->ten_J_rowadr[t];
  for (int i = 0; i < d->ten_J_rownnz[t]; i++) qfrc[d->ten_J_colind[adr + i]] += f * d->ten_J[adr + i];
}

/* MJCF reference, tendon/spatial stiffness, damping, springlength: the
   spring acts outside the rest band [lengthspring0, lengthspring1] from its
   nearer end, f = -(a x + b x^2 + c x^3); damping f = -(a v + b v|v| + c v^3). */
void imp_tendon_passive(const imp_model* m, imp_data* d) {
  for (int t = 0; t < m->ntendon; t++) {
    const double *k = m->tendon_stiffness + 3 * t, *b = m->tendon_damping + 3 * t;
    const double* rest = m->tendon_lengthspring + 2 * t;
    double L = d->ten_length[t], v = d->ten_velocity[t], f = 0;
    double x = L < rest[0] ? L - rest[0] : L > rest[1] ? L - rest[1] : 0;
    f -= x * (k[0] + x * (k[1] + x * k[2]));
    f -= b[0] * v + b[1] * v * fabs(v) + b[2] * v * v * v;
    if (f != 0) add_tendon_force(m, d, t, f, d->qfrc_passive);
  }
}

void imp_add_tendon_outer(const imp_model* m, const imp_data* d, int t, double s, double* Dl,
                          double* Du) {
  int adr = d->ten_J_rowadr[t], n = d->ten_J_rownnz[t];
  const int* col = d->ten_J_colind + adr;
  const double* J = d->ten_J + adr;
  /* columns descending: for each i, its ancestors come later in the row;
     walk i's chain upwards alongside */
  for (int a = 0; a < n; a++) {
    int i = col[a], steps = 0, c = a;
    for (int j = i; j >= 0 && c < n; j = m->dof_parentid[j], steps++) {
      while (c < n && col[c] > j) c++;
      if (c < n && col[c] == j) {
        double v = s * J[a] * J[c];
        Dl[m->dof_Madr[i] + steps] += v;
        if (Du) Du[m->dof_Madr[i] + steps] += v;
      }
    }
  }
}

/* MuJoCo 2.2.2 differentiates only the linear damping a (its one
   coefficient); we take the derivative of the whole law at the current
   velocity, which equals it when b = c = 0. */
void imp_deriv_tendon_vel(const imp_model* m, const imp_data* d, double* Dl, double* Du) {
  if (m->opt.disableflags & IMP_DSBL_PASSIVE) return;
  for (int t = 0; t < m->ntendon; t++) {
    const double* b = m->tendon_damping + 3 * t;
    double v = d->ten_velocity[t];
    double db = b[0] + 2 * b[1] * fabs(v) + 3 * b[2] * v * v;
    if (db != 0) imp_add_tendon_outer(m, d, t, -db, Dl, Du);
  }
}

/* ---- tendon armature (MJCF reference, tendon/spatial armature: "inertia
   associated with changes in tendon length", kinetic energy a v^2 / 2 for
   tendon velocity v = J qvel) ---- */

/* The kinetic energy a (J qvel)^2 / 2 is qvel' (a J'J) qvel / 2: qM gains
   a J'J. The loader admits armature only on a tendon whose dofs lie on one
   chain to the root (model/tendon.c), so every product J_i J_j is an entry
   of the tree-sparse pattern and the factorization is unchanged. */
void imp_tendon_armature(const imp_model* m, imp_data* d) {
  for (int t = 0; t < m->ntendon; t++)
    if (m->tendon_armature[t] != 0)
      imp_add_tendon_outer(m, d, t, m->tendon_armature[t], d->qM, NULL);
}

/* Velocity and velocity-product acceleration (the acceleration at
   qacc = 0) of the world point p fixed to body b. Motion vectors are
   [angular; linear] at the tree's reference point o (the subtree centre of
   mass of the root, taken fixed in the world at this instant): the body
   moves as cvel = (w, v_o), its acceleration at qacc = 0 is
   A = sum over its chain of cdof_dot_k qvel_k, and a point fixed to it has
   velocity pdot = v_o + w x (p - o) and acceleration
   A_lin + A_ang x (p - o) + w x pdot (the derivative of the first at fixed
   o; Featherstone, RBDA sec. 2.10-2.11). */
static void point_motion(const imp_model* m, const imp_data* d, int b, const double p[3],
                         double vel[3], double acc[3]) {
  const double* o = d->subtree_com + 3 * m->body_rootid[b];
  const double* V = d->cvel + 6 * b;
  double r[3], A[6] = {0, 0, 0, 0, 0, 0}, wxv[3];
  sub3(r, p, o);
  for (int k = imp_chain_tip(m, b); k >= 0; k = m->dof_parentid[k])
    imp_add_scl(A, d->cdof_dot + 6 * k, d->qvel[k], 6);
  imp_cross(vel, V, r);
  for (int i = 0; i < 3; i++) vel[i] += V[3 + i];
  imp_cross(acc, A, r);
  imp_cross(wxv, V, vel);
  for (int i = 0; i < 3; i++) acc[i] += A[3 + i] + wxv[i];
}

/* d/dt(J) qvel of a straight segment from p0 (body b0) to p1 (b1) of a
   length that counts 1/divisor: with u = (p1 - p0)/l, dv and da the
   differences of the ends' velocities and qacc = 0 accelerations, the
   second derivative of l at qacc = 0 is u.da + (|dv|^2 - (u.dv)^2) / l
   (d/dt u = (dv - u (u.dv)) / l). */
static double segment_jdot_qvel(const imp_model* m, const imp_data* d, int b0, const double p0[3],
                                int b1, const double p1[3], double divisor) {
  double u[3], v0[3], v1[3], a0[3], a1[3], dv[3], da[3];
  sub3(u, p1, p0);
  double l = imp_norm3(u);
  if (l < IMP_MINVAL) return 0;
  for (int i = 0; i < 3; i++) u[i] /= l;
  point_motion(m, d, b0, p0, v0, a0);
  point_motion(m, d, b1, p1, v1, a1);
  sub3(dv, v1, v0);
  sub3(da, a1, a0);
  double udv = dot3(u, dv);
  return (dot3(u, da) + (dot3(dv, dv) - udv * udv) / l) / divisor;
}

/* d/dt(J) qvel of spatial tendon t: its straight segments between sites of
   different bodies, branch by branch (geom wraps are refused with armature
   by the loader, as MuJoCo refuses them: the wrap points' motion would need
   the derivatives of the wrap). A fixed tendon's J is constant: 0. */
static double tendon_jdot_qvel(const imp_model* m, const imp_data* d, int t) {
  int adr = m->tendon_adr[t], num = m->tendon_num[t];
  if (m->wrap_type[adr] == IMP_WRAP_JOINT) return 0;
  double res = 0, divisor = 1;
  for (int w = adr; w < adr + num - 1; w++) {
    if (m->wrap_type[w] == IMP_WRAP_PULLEY) {
      divisor = m->wrap_prm[w];
      continue;
    }
    if (m->wrap_type[w + 1] != IMP_WRAP_SITE) continue; /* the branch ended at w */
    int s0 = m->wrap_objid[w], s1 = m->wrap_objid[w + 1];
    int b0 = m->site_bodyid[s0], b1 = m->site_bodyid[s1];
    if (b0 != b1)
      res += segment_jdot_qvel(m, d, b0, d->site_xpos + 3 * s0, b1, d->site_xpos + 3 * s1, divisor);
  }
  return res;
}

/* The tendon's inertia force a l_ddot acts along the tendon: in
   M qacc + c = tau it adds a J'J qacc to M (imp_tendon_armature) and
   a J' (d/dt(J) qvel) to the bias forces (MJCF reference, tendon/spatial
   armature: "an additional bias-force term"). */
void imp_tendon_bias(const imp_model* m, imp_data* d) {
  for (int t = 0; t < m->ntendon; t++) {
    double a = m->tendon_armature[t];
    if (a == 0) continue;
    double f = a * tendon_jdot_qvel(m, d, t);
    if (f != 0) add_tendon_force(m, d, t, f, d->qfrc_bias);
  }
}
