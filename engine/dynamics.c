/* Smooth forces: joint springs and damping, actuators, bias forces by
   recursive Newton-Euler, and the unconstrained acceleration. */
#include <math.h>

#include "engine.h"
#include "mathx.h"
#include "quat.h"
#include "spatial.h"

/* Rotation vector taking quaternion b to a, in b's frame: a = b * exp(r). */
static void quat_difference(double r[3], const double a[4], const double b[4]) {
  double bc[4], dq[4], axis[3];
  imp_quat_conj(bc, b);
  imp_quat_mul(dq, bc, a);
  if (dq[0] < 0)
    for (int i = 0; i < 4; i++) dq[i] = -dq[i];
  for (int i = 0; i < 3; i++) axis[i] = dq[1 + i];
  double s = imp_normalize3(axis);
  double angle = 2 * atan2(s, dq[0]);
  for (int i = 0; i < 3; i++) r[i] = s > IMP_MINVAL ? axis[i] * angle : 0;
}

void imp_passive(const imp_model* m, imp_data* d) {
  imp_zero(d->qfrc_passive, m->nv);
  if (m->opt.disableflags & IMP_DSBL_PASSIVE) return;
  for (int j = 0; j < m->njnt; j++) {
    double k = m->jnt_stiffness[j];
    if (k == 0) continue;
    int qa = m->jnt_qposadr[j], va = m->jnt_dofadr[j];
    const double* q = d->qpos + qa;
    const double* q0 = m->qpos_spring + qa;
    double r[3];
    switch (m->jnt_type[j]) {
      case IMP_JNT_HINGE:
      case IMP_JNT_SLIDE:
        d->qfrc_passive[va] -= k * (q[0] - q0[0]);
        break;
      case IMP_JNT_BALL:
        quat_difference(r, q, q0);
        for (int i = 0; i < 3; i++) d->qfrc_passive[va + i] -= k * r[i];
        break;
      case IMP_JNT_FREE:
        for (int i = 0; i < 3; i++) d->qfrc_passive[va + i] -= k * (q[i] - q0[i]);
        quat_difference(r, q + 3, q0 + 3);
        for (int i = 0; i < 3; i++) d->qfrc_passive[va + 3 + i] -= k * r[i];
        break;
    }
  }
  for (int i = 0; i < m->nv; i++) d->qfrc_passive[i] -= m->dof_damping[i] * d->qvel[i];
}

static double clamp(double x, const double range[2]) {
  return x < range[0] ? range[0] : (x > range[1] ? range[1] : x);
}

/* Joint transmission: length = gear q, moment = gear; force = gain ctrl +
   b0 + b1 length + b2 velocity (MJCF's affine actuator model). */
void imp_actuation(const imp_model* m, imp_data* d) {
  imp_zero(d->qfrc_actuator, m->nv);
  for (int u = 0; u < m->nu; u++) {
    int j = m->actuator_trnid[u];
    double gear = m->actuator_gear[6 * u];
    double q = d->qpos[m->jnt_qposadr[j]], v = d->qvel[m->jnt_dofadr[j]];
    d->actuator_length[u] = gear * q;
    d->actuator_velocity[u] = gear * v;
    d->actuator_force[u] = 0;
    if (m->opt.disableflags & IMP_DSBL_ACTUATION) continue;
    double ctrl = d->ctrl[u];
    if (m->actuator_ctrllimited[u] && !(m->opt.disableflags & IMP_DSBL_CLAMPCTRL)) ctrl = clamp(ctrl, m->actuator_ctrlrange + 2 * u);
    const double* gain = m->actuator_gainprm + IMP_NGAIN * u;
    const double* bias = m->actuator_biasprm + IMP_NGAIN * u;
    double f = gain[0] * ctrl;
    if (m->actuator_biastype[u] == IMP_BIAS_AFFINE)
      f += bias[0] + bias[1] * d->actuator_length[u] + bias[2] * d->actuator_velocity[u];
    if (m->actuator_forcelimited[u]) f = clamp(f, m->actuator_forcerange + 2 * u);
    d->actuator_force[u] = f;
    d->qfrc_actuator[m->jnt_dofadr[j]] += gear * f;
  }
}

/* Recursive Newton-Euler with zero joint acceleration (Featherstone, RBDA,
   sec. 5.3): gravity enters as a base acceleration of -g. */
void imp_rne(const imp_model* m, imp_data* d) {
  size_t mark = imp_stack_mark(d);
  double* cacc = imp_stack_alloc(d, 6 * m->nbody);
  double* cfrc = imp_stack_alloc(d, 6 * m->nbody);
  imp_zero(cacc, 6);
  if (!(m->opt.disableflags & IMP_DSBL_GRAVITY)) imp_scl(cacc + 3, m->opt.gravity, -1, 3);
  for (int b = 1; b < m->nbody; b++) {
    double* a = cacc + 6 * b;
    double Iv[6], tmp[6];
    imp_copy(a, cacc + 6 * m->body_parentid[b], 6);
    for (int i = 0; i < m->body_dofnum[b]; i++) {
      int k = m->body_dofadr[b] + i;
      imp_add_scl(a, d->cdof_dot + 6 * k, d->qvel[k], 6);
    }
    /* f = I a + v x* (I v) */
    imp_mul_inert_vec(cfrc + 6 * b, d->cinert + 10 * b, a);
    imp_mul_inert_vec(Iv, d->cinert + 10 * b, d->cvel + 6 * b);
    imp_cross_force(tmp, d->cvel + 6 * b, Iv);
    imp_add_scl(cfrc + 6 * b, tmp, 1, 6);
  }
  for (int b = m->nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    if (p > 0) imp_add_scl(cfrc + 6 * p, cfrc + 6 * b, 1, 6);
  }
  for (int i = 0; i < m->nv; i++)
    d->qfrc_bias[i] = imp_dot(d->cdof + 6 * i, cfrc + 6 * m->dof_bodyid[i], 6);
  imp_stack_release(d, mark);
}

/* Generalized force of a world force and torque applied at a body's centre
   of mass: J' f, walking the dofs from the body to the root. */
static void add_body_force(const imp_model* m, imp_data* d, int b, const double frc[6],
                           double* qfrc) {
  const double* ref = d->subtree_com + 3 * m->body_rootid[b];
  double r[3] = {d->xipos[3 * b] - ref[0], d->xipos[3 * b + 1] - ref[1],
                 d->xipos[3 * b + 2] - ref[2]};
  double f[6];
  imp_cross(f, r, frc); /* torque about the reference point */
  for (int i = 0; i < 3; i++) {
    f[i] += frc[3 + i];
    f[3 + i] = frc[i];
  }
  int dof = -1;
  for (int a = b; a > 0 && dof < 0; a = m->body_parentid[a])
    if (m->body_dofnum[a] > 0) dof = m->body_dofadr[a] + m->body_dofnum[a] - 1;
  for (; dof >= 0; dof = m->dof_parentid[dof]) qfrc[dof] += imp_dot(d->cdof + 6 * dof, f, 6);
}

void imp_smooth_acc(const imp_model* m, imp_data* d) {
  for (int i = 0; i < m->nv; i++)
    d->qfrc_smooth[i] = d->qfrc_passive[i] + d->qfrc_actuator[i] + d->qfrc_applied[i] - d->qfrc_bias[i];
  for (int b = 1; b < m->nbody; b++) {
    const double* frc = d->xfrc_applied + 6 * b;
    if (imp_max_abs(frc, 6) > 0) add_body_force(m, d, b, frc, d->qfrc_smooth);
  }
  imp_solve_sparse(m, d->qLD, d->qLDiagInv, d->qacc_smooth, d->qfrc_smooth);
}
