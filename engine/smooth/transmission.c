/* Actuator transmissions: each actuator's length and its moment, the row
 * d length / d q (in qvel's coordinates) into actuator_length and
 * actuator_moment (nu x nv), as the MJCF reference defines them
 * (actuator/general: joint, jointinparent, site, refsite, body, tendon,
 * cranksite, slidersite, cranklength; actuator/adhesion; Computation,
 * "Transmission"). The actuator's force f then acts as qfrc = moment' f,
 * and its velocity is moment . qvel (dynamics.c).
 *
 *  - joint, hinge or slide: length gear q, moment gear at the dof;
 *  - joint, ball: gear[0:3] is a torque axis in the child frame; length =
 *    gear . r with r the rotation vector of the joint's quaternion, its
 *    angle in (-pi, pi]; moment gear on the three dofs (the angular
 *    velocity is in the child frame);
 *  - joint, free: force gear[0:3] along world axes (the free joint's linear
 *    dofs are world velocities), torque gear[3:6] about child-frame axes;
 *    length 0 (MJCF reference: "cannot be used with position servos");
 *  - jointinparent: the same with the rotational gear given in the parent
 *    frame (world for a free joint): it acts in the child frame as R(q)' g;
 *  - site: a wrench gear (force gear[0:3], torque gear[3:6], both in the
 *    site's frame) applied at the site: moment = Jp' R g_f + Jr' R g_t with
 *    Jp the site point's Jacobian and Jr its body's angular one; length 0;
 *  - site with refsite: length = g_f . R_ref' (p - p_ref) + g_t . r, r the
 *    rotation vector of the site's orientation relative to the refsite's
 *    (in the refsite frame, angle in (-pi, pi]). The translational moment
 *    is that length's exact gradient: with dx = p - p_ref,
 *    d(R_ref' dx) = R_ref' (d dx - w_ref x dx), so the column of dof k is
 *    (R_ref g_f) . (Jp_k - Jp_ref_k - Jr_ref_k x dx), zero on dofs that
 *    move both sites rigidly. The rotational one is (Jr - Jr_ref)' R_ref
 *    g_t, the gradient of r at r = 0, as MuJoCo takes it;
 *  - slider-crank: the slider moves along the slidersite's z axis a; with
 *    v = p_crank - p_slider and rod length L, the slider position at which
 *    a rod of length L from the crank pin meets the axis,
 *    |v - l a| = L, is l = a.v - sqrt((a.v)^2 + L^2 - v.v) (the root on the
 *    slider's side); when the rod cannot reach the axis (negative
 *    discriminant) l = a.v. length = gear l, moment = gear (dl/dv J_v +
 *    dl/da J_a) with J_v = Jp_crank - Jp_slider and J_a the axis's rate
 *    (Jr_slider x a);
 *  - tendon: length gear ten_length, moment gear ten_J;
 *  - body (adhesion): minus the mean of n' (Jp_2(x) - Jp_1(x)) over the
 *    contacts of the body's geoms (n the contact normal from geom1 to
 *    geom2, x its position), so that a positive force pulls the body and
 *    what it touches together, shared equally between the contacts; the
 *    contacts in the gap layer (margin > dist >= margin - gap, where the
 *    contact exerts no force) count as well, which is what lets a gap act
 *    as suction at a distance (MJCF reference, actuator/adhesion); contacts
 *    between bodies no dof moves do not count. Length 0. The gear is not
 *    applied (MuJoCo 2.2.2's body transmission ignores it; adhesion sets
 *    none). Needs the contacts of this configuration: step.c runs
 *    collision before the actuators. */
#include <math.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"

/* Rotation vector of quaternion q (not necessarily unit): angle in
   (-pi, pi] about its axis. */
static void rotation_vector(double r[3], const double q[4]) {
  double axis[3] = {q[1], q[2], q[3]};
  double s = imp_normalize3(axis);
  double angle = 2 * atan2(s, q[0]);
  if (angle > IMP_PI) angle -= 2 * IMP_PI;
  for (int i = 0; i < 3; i++) r[i] = s > 0 ? axis[i] * angle : 0;
}

/* World orientation of site s: its body's times its own. */
static void site_quat(const imp_model* m, const imp_data* d, int s, double q[4]) {
  imp_quat_mul(q, d->xquat + 4 * m->site_bodyid[s], m->site_quat + 4 * s);
}

/* row += scale (Jp(p)' f + Jr' t) over the dofs of body b's chain: the
   generalized force of force f at the world point p on b and torque t. */
static void add_wrench(const imp_model* m, const imp_data* d, int b, const double p[3],
                       const double f[3], const double t[3], double scale, double* row) {
  if (!row) return; /* the length alone (imp_actuator_length) */
  for (int k = imp_chain_tip(m, b); k >= 0; k = m->dof_parentid[k]) {
    double col[3];
    imp_point_column(m, d, k, p, col);
    double v = imp_dot(col, f, 3);
    if (t) v += imp_dot(d->cdof + 6 * k, t, 3);
    row[k] += scale * v;
  }
}

static double joint_transmission(const imp_model* m, const imp_data* d, int u, double* row) {
  int j = m->actuator_trnid[2 * u], qa = m->jnt_qposadr[j], va = m->jnt_dofadr[j];
  const double* gear = m->actuator_gear + 6 * u;
  int inparent = m->actuator_trntype[u] == IMP_TRN_JOINTINPARENT;
  double axis[3], r[3];
  switch (m->jnt_type[j]) {
    case IMP_JNT_BALL:
      if (inparent) imp_quat_rotate_inv(axis, d->qpos + qa, gear);
      else imp_copy(axis, gear, 3);
      rotation_vector(r, d->qpos + qa);
      if (row) imp_copy(row + va, axis, 3);
      return imp_dot(r, axis, 3);
    case IMP_JNT_FREE:
      if (inparent) imp_quat_rotate_inv(axis, d->qpos + qa + 3, gear + 3);
      else imp_copy(axis, gear + 3, 3);
      if (row) imp_copy(row + va, gear, 3), imp_copy(row + va + 3, axis, 3);
      return 0;
    default: /* hinge, slide */
      if (row) row[va] = gear[0];
      return gear[0] * d->qpos[qa];
  }
}

static double site_transmission(const imp_model* m, const imp_data* d, int u, double* row) {
  int s = m->actuator_trnid[2 * u], ref = m->actuator_trnid[2 * u + 1];
  int b = m->site_bodyid[s];
  const double* gear = m->actuator_gear + 6 * u;
  const double* p = d->site_xpos + 3 * s;
  double f[3], t[3];
  if (ref < 0) {
    imp_mat3_vec(f, d->site_xmat + 9 * s, gear);
    imp_mat3_vec(t, d->site_xmat + 9 * s, gear + 3);
    add_wrench(m, d, b, p, f, t, 1, row);
    return 0;
  }
  int bref = m->site_bodyid[ref];
  const double* pref = d->site_xpos + 3 * ref;
  const double* Rref = d->site_xmat + 9 * ref;
  double dx[3], local[3], q[4], qref[4], qrel[4], r[3];
  for (int i = 0; i < 3; i++) dx[i] = p[i] - pref[i];
  imp_mat3T_vec(local, Rref, dx);
  site_quat(m, d, s, q);
  site_quat(m, d, ref, qref);
  imp_quat_conj(qrel, qref);
  imp_quat_mul(qrel, qrel, q);
  rotation_vector(r, qrel);
  double len = imp_dot(local, gear, 3) + imp_dot(r, gear + 3, 3);
  imp_mat3_vec(f, Rref, gear);
  imp_mat3_vec(t, Rref, gear + 3);
  add_wrench(m, d, b, p, f, t, 1, row);
  /* the refsite side: -Jp_ref' f - Jr_ref' t - Jr_ref' (dx x f), the last
     from -Jr_ref_k x dx: (w x dx) . f = w . (dx x f) */
  double tref[3];
  imp_cross(tref, dx, f);
  for (int i = 0; i < 3; i++) tref[i] += t[i];
  add_wrench(m, d, bref, pref, f, tref, -1, row);
  return len;
}

static double slidercrank_transmission(const imp_model* m, const imp_data* d, int u, double* row) {
  int crank = m->actuator_trnid[2 * u], slider = m->actuator_trnid[2 * u + 1];
  double rod = m->actuator_cranklength[u], gear = m->actuator_gear[6 * u];
  const double* R = d->site_xmat + 9 * slider;
  const double* ps = d->site_xpos + 3 * slider;
  double a[3] = {R[2], R[5], R[8]}, v[3], dldv[3], dlda[3];
  for (int i = 0; i < 3; i++) v[i] = d->site_xpos[3 * crank + i] - ps[i];
  double av = imp_dot(a, v, 3), disc = av * av + rod * rod - imp_dot(v, v, 3), len;
  if (disc > 0) {
    double sq = sqrt(disc);
    len = av - sq;
    /* d sqrt(disc) / dv = (av a - v) / sq, / da = av v / sq */
    for (int i = 0; i < 3; i++) {
      dldv[i] = a[i] * (1 - av / sq) + v[i] / sq;
      dlda[i] = v[i] * (1 - av / sq);
    }
  } else {
    len = av;
    imp_copy(dldv, a, 3);
    imp_copy(dlda, v, 3);
  }
  if (!row) return gear * len;
  /* dl = dldv . (Jp_crank - Jp_slider) dq + dlda . (w_slider x a) dq, and
     dlda . (w x a) = w . (a x dlda) */
  double f[3], t[3];
  for (int i = 0; i < 3; i++) f[i] = gear * dldv[i];
  imp_cross(t, a, dlda);
  for (int i = 0; i < 3; i++) t[i] *= gear;
  add_wrench(m, d, m->site_bodyid[crank], d->site_xpos + 3 * crank, f, NULL, 1, row);
  add_wrench(m, d, m->site_bodyid[slider], ps, f, NULL, -1, row);
  for (int k = imp_chain_tip(m, m->site_bodyid[slider]); k >= 0; k = m->dof_parentid[k])
    row[k] += imp_dot(d->cdof + 6 * k, t, 3);
  return gear * len;
}

static double tendon_transmission(const imp_model* m, const imp_data* d, int u, double* row) {
  int t = m->actuator_trnid[2 * u], adr = d->ten_J_rowadr[t];
  double gear = m->actuator_gear[6 * u];
  for (int i = 0; row && i < d->ten_J_rownnz[t]; i++)
    row[d->ten_J_colind[adr + i]] = gear * d->ten_J[adr + i];
  return gear * d->ten_length[t];
}

static double body_transmission(const imp_model* m, const imp_data* d, int u, double* row) {
  int body = m->actuator_trnid[2 * u], count = 0;
  if (!row) return 0;
  for (int i = 0; i < d->ncon; i++) {
    const imp_contact* c = d->contact + i;
    int b1 = m->geom_bodyid[c->geom1], b2 = m->geom_bodyid[c->geom2];
    if (b1 != body && b2 != body) continue;
    if (imp_chain_tip(m, b1) < 0 && imp_chain_tip(m, b2) < 0) continue; /* nothing moves */
    count++;
    add_wrench(m, d, b2, c->pos, c->frame, NULL, -1, row);
    add_wrench(m, d, b1, c->pos, c->frame, NULL, 1, row);
  }
  if (count > 1) imp_scl(row, row, 1.0 / count, m->nv);
  return 0;
}

/* ---- the dofs a moment can reach (actuator_dofadr, actuator_dofnum):
   each step zeroes, fills and reads only those, so an actuator costs what
   its transmission touches, not nv (22_humanoids: 374 actuators, 594 dofs) */

/* widen [*lo, *hi) by the dofs that move body b: its own and its ancestors' */
static void chain_span(const imp_model* m, int b, int* lo, int* hi) {
  for (; b > 0; b = m->body_parentid[b]) {
    int a = m->body_dofadr[b], n = m->body_dofnum[b];
    if (n == 0) continue;
    if (a < *lo) *lo = a;
    if (a + n > *hi) *hi = a + n;
  }
}

/* widen [*lo, *hi) by joint j's own dofs */
static void joint_span(const imp_model* m, int j, int* lo, int* hi) {
  int t = m->jnt_type[j], a = m->jnt_dofadr[j];
  int n = t == IMP_JNT_FREE ? 6 : t == IMP_JNT_BALL ? 3 : 1;
  if (a < *lo) *lo = a;
  if (a + n > *hi) *hi = a + n;
}

/* widen [*lo, *hi) by the dofs tendon t's length depends on */
static void tendon_span(const imp_model* m, int t, int* lo, int* hi) {
  for (int w = m->tendon_adr[t]; w < m->tendon_adr[t] + m->tendon_num[t]; w++) {
    int id = m->wrap_objid[w];
    switch (m->wrap_type[w]) {
      case IMP_WRAP_JOINT: joint_span(m, id, lo, hi); break;
      case IMP_WRAP_SITE: chain_span(m, m->site_bodyid[id], lo, hi); break;
      case IMP_WRAP_SPHERE:
      case IMP_WRAP_CYLINDER: chain_span(m, m->geom_bodyid[id], lo, hi); break;
      default: break; /* a pulley only divides */
    }
  }
}

void imp_transmission_spans(imp_model* m) {
  for (int u = 0; u < m->nu; u++) {
    int lo = m->nv, hi = 0, id = m->actuator_trnid[2 * u], id2 = m->actuator_trnid[2 * u + 1];
    switch (m->actuator_trntype[u]) {
      case IMP_TRN_JOINT:
      case IMP_TRN_JOINTINPARENT: joint_span(m, id, &lo, &hi); break;
      case IMP_TRN_TENDON: tendon_span(m, id, &lo, &hi); break;
      case IMP_TRN_SITE:
      case IMP_TRN_SLIDERCRANK: /* the site and its refsite; the cranksite and the slidersite */
        chain_span(m, m->site_bodyid[id], &lo, &hi);
        if (id2 >= 0) chain_span(m, m->site_bodyid[id2], &lo, &hi);
        break;
      default: /* body (adhesion): whatever its contacts touch */
        lo = 0, hi = m->nv;
    }
    if (hi < lo) lo = hi = 0;
    m->actuator_dofadr[u] = lo;
    m->actuator_dofnum[u] = hi - lo;
  }
}

/* Length of actuator u; its moment into row unless NULL, written only
   within the actuator's dofs (the rest of row is left as it is). */
static double transmission_within_span(const imp_model* m, const imp_data* d, int u,
                                       double* row) {
  switch (m->actuator_trntype[u]) {
    case IMP_TRN_JOINT:
    case IMP_TRN_JOINTINPARENT: return joint_transmission(m, d, u, row);
    case IMP_TRN_SLIDERCRANK: return slidercrank_transmission(m, d, u, row);
    case IMP_TRN_TENDON: return tendon_transmission(m, d, u, row);
    case IMP_TRN_SITE: return site_transmission(m, d, u, row);
    case IMP_TRN_BODY: return body_transmission(m, d, u, row);
  }
  return 0;
}

/* Length of actuator u; its moment into row (zeroed first) unless NULL. */
static double transmission(const imp_model* m, const imp_data* d, int u, double* row) {
  if (row) imp_zero(row, m->nv);
  return transmission_within_span(m, d, u, row);
}

/* rows of d->actuator_moment are 0 outside their spans from imp_make_data on */
void imp_transmission(const imp_model* m, imp_data* d) {
  for (int u = 0; u < m->nu; u++) {
    double* row = d->actuator_moment + (size_t)u * m->nv;
    imp_zero(row + m->actuator_dofadr[u], m->actuator_dofnum[u]);
    d->actuator_length[u] = transmission_within_span(m, d, u, row);
  }
}

double imp_actuator_length(const imp_model* m, const imp_data* d, int u) {
  return transmission(m, d, u, NULL);
}

void imp_actuator_moment(const imp_model* m, const imp_data* d, int u, double* moment) {
  transmission(m, d, u, moment);
}

void imp_actuator_velocity(const imp_model* m, imp_data* d) {
  for (int u = 0; u < m->nu; u++) {
    int a = m->actuator_dofadr[u];
    d->actuator_velocity[u] =
        imp_dot(d->actuator_moment + (size_t)u * m->nv + a, d->qvel + a, m->actuator_dofnum[u]);
  }
}

void imp_add_outer_dense(const imp_model* m, const double* v, int adr, int num, double s,
                         double* Dl, double* Du) {
  for (int i = adr; i < adr + num; i++) {
    if (v[i] == 0) continue;
    int steps = 0; /* ancestors have smaller indices, and v is 0 below adr */
    for (int j = i; j >= adr; j = m->dof_parentid[j], steps++) {
      if (v[j] == 0) continue;
      double x = s * v[i] * v[j];
      Dl[m->dof_Madr[i] + steps] += x;
      Du[m->dof_Madr[i] + steps] += x;
    }
  }
}
