/* Unit tests of the smooth forces (engine/smooth/dynamics.c): bias forces by RNE,
 * joint springs and damping, actuators, applied forces.
 *
 * Truths: the gradient of the potential energy (finite differences of
 * sum m g z_com), Lagrange's equations for hinge/slide chains (where
 * qvel = dq/dt): C(q,v)v = dM/dt v - 1/2 d/dq (v'Mv), with M differentiated
 * numerically; the power identity v'C v = 1/2 v' dM/dt v for trees with
 * ball and free joints; Euler's equations for a free rigid body; Hooke's law
 * and the rotation vector of a ball joint; the actuator formulas of MJCF. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

/* potential energy -sum_b m_b g . xipos_b at the current kinematics */
static double potential(const imp_model* m, const imp_data* d) {
  double V = 0;
  for (int b = 1; b < m->nbody; b++) V -= m->body_mass[b] * imp_dot(m->opt.gravity, d->xipos + 3 * b, 3);
  return V;
}

/* kinematics, com quantities, M and its factor, velocities and bias */
static void smooth_stages(const imp_model* m, imp_data* d) {
  imp_kinematics(m, d);
  imp_com_pos(m, d);
  imp_crb(m, d);
  imp_factor_m(m, d);
  imp_com_vel(m, d);
  imp_rne(m, d);
}

/* v' M(q) w with M at the configuration qpos */
static double vMw(const imp_model* m, imp_data* d, const double* qpos, const double* v,
                  const double* w) {
  double* Mw = calloc((size_t)m->nv, sizeof(double));
  imp_copy(d->qpos, qpos, m->nq);
  imp_kinematics(m, d);
  imp_com_pos(m, d);
  imp_crb(m, d);
  imp_mul_sparse(m, d->qM, Mw, w);
  double r = imp_dot(v, Mw, m->nv);
  free(Mw);
  return r;
}

/* a tree with every joint type, offset coms and anchors */
static const char* k_tree =
    "<mujoco><compiler angle='radian'/><worldbody>"
    "<body name='torso' pos='0.1 0.2 1' euler='0.2 0.3 0.4'><freejoint/>"
    "  <inertial pos='0.01 0.02 0.03' quat='0.9 0.1 0.3 0.2' mass='3' diaginertia='0.1 0.2 0.15'/>"
    "  <body pos='0.2 0 0.1' euler='0.5 0 0'><joint type='ball' pos='0 0 0.05'/>"
    "    <inertial pos='0.1 0 0' mass='1' diaginertia='0.01 0.02 0.025'/>"
    "    <body pos='0.3 0 0'><joint type='hinge' axis='0 1 1' pos='-0.02 0 0'/>"
    "      <joint type='slide' axis='1 0 0.5'/>"
    "      <inertial pos='0.12 0.01 0' mass='0.7' diaginertia='0.005 0.01 0.012'/>"
    "    </body></body>"
    "  <body pos='0 0.05 -0.3' euler='0 0.2 0'><joint type='hinge' axis='1 0 0' pos='0 0 0.02'/>"
    "    <joint type='hinge' axis='0 1 0'/>"
    "    <inertial pos='0 0 -0.2' mass='1.5' diaginertia='0.03 0.03 0.005'/>"
    "  </body></body>"
    "<body pos='2 0 1'><joint type='hinge' axis='0 1 0' pos='0 0 0.1'/>"
    "  <inertial pos='0 0 -0.3' mass='0.8' diaginertia='0.01 0.01 0.01'/>"
    "  <body pos='0 0 -0.6'><joint type='ball'/>"
    "    <inertial pos='0.05 0 -0.1' mass='0.4' diaginertia='0.002 0.003 0.004'/></body>"
    "</body></worldbody></mujoco>";

/* hinges and slides only, non-parallel axes: qvel is dq/dt */
static const char* k_chain =
    "<mujoco><compiler angle='radian'/><worldbody>"
    "<body pos='0 0 1'><joint type='hinge' axis='0 0 1'/>"
    "  <inertial pos='0.2 0 0' mass='1' diaginertia='0.015 0.02 0.03'/>"
    "  <body pos='0.4 0 0'><joint type='hinge' axis='1 0 0' pos='0 0.05 0'/>"
    "    <inertial pos='0 0.1 -0.2' quat='0.8 0.6 0 0' mass='0.8' diaginertia='0.02 0.015 0.01'/>"
    "    <body pos='0 0.2 -0.3'><joint type='slide' axis='1 1 0'/>"
    "      <inertial pos='0.05 0 0' mass='0.5' diaginertia='0.004 0.003 0.002'/>"
    "      <body pos='0.1 0 0'><joint type='hinge' axis='0 1 0.3'/>"
    "        <inertial pos='0 0 -0.15' mass='0.3' diaginertia='0.003 0.003 0.001'/>"
    "</body></body></body></body></worldbody></mujoco>";

/* At zero velocity the bias is the gravity force dV/dq, the derivative of
   the potential along each dof's motion (integrate_pos along e_i). */
START_TEST(test_gravity_bias_is_potential_gradient) {
  imp_model* m = imp_test_load_string_nowarn(k_tree);
  imp_data* d = imp_make_data(m);
  imp_data* dd = imp_make_data(m);
  double* e = calloc((size_t)m->nv, sizeof(double));
  const double eps = 1e-5;
  for (int t = 0; t < 5; t++) {
    imp_test_random_state(m, d);
    imp_zero(d->qvel, m->nv);
    smooth_stages(m, d);
    for (int i = 0; i < m->nv; i++) {
      imp_zero(e, m->nv);
      e[i] = 1;
      imp_copy(dd->qpos, d->qpos, m->nq);
      imp_integrate_pos(m, dd->qpos, e, eps);
      imp_kinematics(m, dd);
      double Vp = potential(m, dd);
      imp_copy(dd->qpos, d->qpos, m->nq);
      imp_integrate_pos(m, dd->qpos, e, -eps);
      imp_kinematics(m, dd);
      double Vm = potential(m, dd);
      imp_assert_near(d->qfrc_bias[i], (Vp - Vm) / (2 * eps), 1e-8);
    }
  }
  free(e);
  imp_free_data(d);
  imp_free_data(dd);
  imp_free_model(m);
}
END_TEST

/* Lagrange: with gravity off, qfrc_bias = dM/dt v - 1/2 grad_q (v'Mv). */
START_TEST(test_bias_matches_lagrange_on_hinge_slide_chain) {
  imp_model* m = imp_test_load_string_nowarn(k_chain);
  m->opt.disableflags |= IMP_DSBL_GRAVITY;
  int nv = m->nv;
  ck_assert_int_eq(nv, m->nq);
  imp_data* d = imp_make_data(m);
  imp_data* dd = imp_make_data(m);
  double q[8], qp[8], qm[8], v[8], e[8];
  const double eps = 1e-6;
  for (int t = 0; t < 10; t++) {
    imp_test_random_state(m, d);
    smooth_stages(m, d);
    imp_copy(q, d->qpos, nv);
    imp_copy(v, d->qvel, nv);
    for (int i = 0; i < nv; i++) {
      imp_zero(e, nv);
      e[i] = 1;
      /* (dM/dt v)_i = e_i' (M(q + eps v) - M(q - eps v)) v / (2 eps) */
      for (int k = 0; k < nv; k++) qp[k] = q[k] + eps * v[k], qm[k] = q[k] - eps * v[k];
      double Mdot_v = (vMw(m, dd, qp, e, v) - vMw(m, dd, qm, e, v)) / (2 * eps);
      /* 1/2 d/dq_i (v'Mv) */
      for (int k = 0; k < nv; k++) qp[k] = q[k] + eps * e[k], qm[k] = q[k] - eps * e[k];
      double grad = 0.5 * (vMw(m, dd, qp, v, v) - vMw(m, dd, qm, v, v)) / (2 * eps);
      imp_assert_near(d->qfrc_bias[i], Mdot_v - grad, 1e-8);
    }
  }
  imp_free_data(d);
  imp_free_data(dd);
  imp_free_model(m);
}
END_TEST

/* For any tree (ball and free joints included): the power of the bias is
   v'(C v + g) = 1/2 v' (dM/dt) v + dV/dt, the skew-symmetry of dM/dt - 2C
   in quasi-velocities plus the rate of the potential; both time
   derivatives by central differences along the flow (integrate_pos). */
START_TEST(test_bias_power_identity_on_tree) {
  imp_model* m = imp_test_load_string_nowarn(k_tree);
  imp_data* d = imp_make_data(m);
  imp_data* dd = imp_make_data(m);
  double* qp = calloc((size_t)m->nq, sizeof(double));
  double* qm = calloc((size_t)m->nq, sizeof(double));
  const double eps = 1e-6;
  for (int t = 0; t < 10; t++) {
    imp_test_random_state(m, d);
    smooth_stages(m, d);
    imp_copy(qp, d->qpos, m->nq);
    imp_copy(qm, d->qpos, m->nq);
    imp_integrate_pos(m, qp, d->qvel, eps);
    imp_integrate_pos(m, qm, d->qvel, -eps);
    double dT = 0.5 * (vMw(m, dd, qp, d->qvel, d->qvel) - vMw(m, dd, qm, d->qvel, d->qvel)) / (2 * eps);
    double Vm = potential(m, dd); /* vMw left dd at qm */
    imp_copy(dd->qpos, qp, m->nq);
    imp_kinematics(m, dd);
    double dV = (potential(m, dd) - Vm) / (2 * eps);
    double power = imp_dot(d->qvel, d->qfrc_bias, m->nv);
    imp_assert_near(power, dT + dV, 1e-7);
  }
  free(qp);
  free(qm);
  imp_free_data(d);
  imp_free_data(dd);
  imp_free_model(m);
}
END_TEST

/* One free body with its com at the body origin: qfrc_bias = (-m g, w x Iw)
   with w and I in the body frame (Euler's equations). */
START_TEST(test_free_body_bias_is_euler_equations) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body pos='0 0 1'><freejoint/>"
      "<inertial pos='0 0 0' quat='0.8 0 0.6 0' mass='2.5' diaginertia='0.3 0.2 0.1'/>"
      "</body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  double Ri[9], J[3] = {0.3, 0.2, 0.1};
  imp_quat2mat(Ri, m->body_iquat + 4);
  for (int t = 0; t < 20; t++) {
    imp_test_random_state(m, d);
    smooth_stages(m, d);
    const double* w = d->qvel + 3;
    double wi[3], Iw[3], t3[3], expect[6];
    imp_mat3T_vec(wi, Ri, w); /* in principal axes */
    for (int i = 0; i < 3; i++) wi[i] *= J[i];
    imp_mat3_vec(Iw, Ri, wi);
    imp_cross(t3, w, Iw);
    for (int i = 0; i < 3; i++) expect[i] = -2.5 * m->opt.gravity[i], expect[3 + i] = t3[i];
    imp_assert_vec_near(d->qfrc_bias, expect, 6, 1e-13);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Springs and damping: -k (q - springref) - b v for hinge and slide; a ball
   turned by angle a about n (child frame) from its rest pulls back with
   -k a n; disabling passive forces zeroes all of it. */
START_TEST(test_springs_and_damping) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body><joint type='hinge' axis='0 1 0' stiffness='3' springref='0.4' damping='0.7' ref='0.1'/>"
      "  <inertial pos='0 0 -0.3' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "  <body pos='0 0 -0.6'><joint type='slide' axis='0 0 1' stiffness='50' springref='-0.2' damping='2'/>"
      "    <inertial pos='0 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "    <body pos='0 0 -0.2'><joint type='ball' stiffness='5' damping='0.3'/>"
      "      <inertial pos='0 0 -0.1' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "</body></body></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nv, 5);
  for (int t = 0; t < 20; t++) {
    double n[3] = {imp_test_urand(-1, 1), imp_test_urand(-1, 1), imp_test_urand(-1, 1)}, a = imp_test_urand(-3, 3);
    imp_normalize3(n);
    d->qpos[0] = imp_test_urand(-2, 2);
    d->qpos[1] = imp_test_urand(-1, 1);
    imp_axisangle2quat(d->qpos + 2, n, a);
    for (int i = 0; i < 5; i++) d->qvel[i] = imp_test_urand(-2, 2);
    imp_passive(m, d);
    imp_assert_near(d->qfrc_passive[0], -3 * (d->qpos[0] - 0.4) - 0.7 * d->qvel[0], 1e-14);
    imp_assert_near(d->qfrc_passive[1], -50 * (d->qpos[1] + 0.2) - 2 * d->qvel[1], 1e-13);
    for (int i = 0; i < 3; i++)
      imp_assert_near(d->qfrc_passive[2 + i], -5 * a * n[i] - 0.3 * d->qvel[2 + i], 1e-13);
  }
  m->opt.disableflags |= IMP_DSBL_PASSIVE;
  imp_passive(m, d);
  double zero[5] = {0};
  imp_assert_vec_near(d->qfrc_passive, zero, 5, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Motor: force = ctrl (clamped to ctrlrange), then to forcerange,
   generalized force gear * force. Position servo (gear 1): kp (ctrl - q).
   Velocity servo: kv (ctrl - v). */
START_TEST(test_actuators) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body><joint name='a' type='hinge' axis='0 1 0'/>"
      "  <inertial pos='0 0 -0.3' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "  <body pos='0 0 -0.6'><joint name='b' type='slide' axis='0 0 1'/>"
      "    <inertial pos='0 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "    <body><joint name='c' type='hinge' axis='1 0 0'/>"
      "      <inertial pos='0 0 -0.1' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "</body></body></body></worldbody><actuator>"
      "<motor joint='a' gear='2.5' ctrllimited='true' ctrlrange='-1 2'/>"
      "<motor joint='a' gear='-1.5' forcelimited='true' forcerange='-3 4'/>"
      "<position joint='b' kp='10'/>"
      "<velocity joint='c' kv='4'/>"
      "</actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nu, 4);
  double ctrls[][4] = {{0.5, 1, 0.3, -1}, {5, 10, -0.2, 2}, {-7, -10, 1, 0}};
  double f0[] = {0.5, 2, -1};   /* motor 0: ctrl clamped to [-1, 2] */
  double f1[] = {1, 4, -3};                /* motor 1: force clamped to [-3, 4] */
  for (int t = 0; t < 3; t++) {
    for (int i = 0; i < 4; i++) d->ctrl[i] = ctrls[t][i];
    d->qpos[0] = imp_test_urand(-1, 1);
    d->qpos[1] = imp_test_urand(-1, 1);
    d->qpos[2] = imp_test_urand(-1, 1);
    for (int i = 0; i < 3; i++) d->qvel[i] = imp_test_urand(-2, 2);
    imp_actuation(m, d);
    double fpos = 10 * (ctrls[t][2] - d->qpos[1]), fvel = 4 * (ctrls[t][3] - d->qvel[2]);
    imp_assert_near(d->actuator_force[0], f0[t], 0);
    imp_assert_near(d->actuator_force[1], f1[t], 0);
    imp_assert_near(d->actuator_force[2], fpos, 1e-14);
    imp_assert_near(d->actuator_force[3], fvel, 1e-14);
    imp_assert_near(d->qfrc_actuator[0], 2.5 * f0[t] - 1.5 * f1[t], 1e-14);
    imp_assert_near(d->qfrc_actuator[1], fpos, 1e-14);
    imp_assert_near(d->qfrc_actuator[2], fvel, 1e-14);
    imp_assert_near(d->actuator_length[0], 2.5 * d->qpos[0], 1e-15);
    imp_assert_near(d->actuator_velocity[1], -1.5 * d->qvel[0], 1e-15);
  }
  m->opt.disableflags |= IMP_DSBL_ACTUATION;
  imp_actuation(m, d);
  double zero[3] = {0};
  imp_assert_vec_near(d->qfrc_actuator, zero, 3, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* The dense matrix of tree-sparse Dl (D_ij, j up i's chain) and Du (D_ji
   there), nv x nv row-major; entries off the pattern stay 0. */
static void deriv_dense(const imp_model* m, const double* Dl, const double* Du, double* D) {
  memset(D, 0, sizeof(double) * (size_t)m->nv * m->nv);
  for (int i = 0; i < m->nv; i++) {
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
      D[m->nv * i + j] = Dl[adr];
      D[m->nv * j + i] = Du[adr];
    }
  }
}

/* -d qfrc_bias / d qvel by the tangent of RNE equals central differences of
   imp_com_vel + imp_rne in each qvel_j (qfrc_bias is quadratic in qvel, so
   the central difference is exact up to rounding), on a tree with every
   joint type; the diagonal is the same in Dl and Du, and no entry lies
   off qM's pattern (the differences are 0 there). */
START_TEST(test_rne_velocity_derivative) {
  imp_model* m = imp_test_load_string_nowarn(k_tree);
  imp_data* d = imp_make_data(m);
  int nv = m->nv;
  double* Dl = calloc((size_t)m->nM, sizeof(double));
  double* Du = calloc((size_t)m->nM, sizeof(double));
  double* D = calloc((size_t)nv * nv, sizeof(double));
  double* fp = calloc((size_t)nv, sizeof(double));
  double* v0 = calloc((size_t)nv, sizeof(double));
  for (int t = 0; t < 5; t++) {
    imp_test_random_state(m, d);
    smooth_stages(m, d);
    imp_zero(Dl, m->nM);
    imp_zero(Du, m->nM);
    imp_deriv_rne_vel(m, d, Dl, Du);
    deriv_dense(m, Dl, Du, D);
    for (int i = 0; i < nv; i++) imp_assert_near(Dl[m->dof_Madr[i]], Du[m->dof_Madr[i]], 0);
    imp_copy(v0, d->qvel, nv);
    const double eps = 1.0; /* exact for a quadratic: any step */
    double worst = 0, scale = 1;
    for (int j = 0; j < nv; j++) {
      d->qvel[j] = v0[j] + eps;
      imp_com_vel(m, d);
      imp_rne(m, d);
      imp_copy(fp, d->qfrc_bias, nv);
      d->qvel[j] = v0[j] - eps;
      imp_com_vel(m, d);
      imp_rne(m, d);
      d->qvel[j] = v0[j];
      for (int i = 0; i < nv; i++) {
        double fd = -(fp[i] - d->qfrc_bias[i]) / (2 * eps);
        worst = fmax(worst, fabs(fd - D[nv * i + j]));
        scale = fmax(scale, fabs(fd));
      }
    }
    ck_assert_msg(worst <= 1e-12 * scale, "tangent of RNE off by %.3e (scale %.3e)", worst, scale);
    imp_com_vel(m, d);
  }
  free(Dl);
  free(Du);
  free(D);
  free(fp);
  free(v0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Actuator and damping derivatives: gear^2 (b2 + g2 ctrl) on the actuated
   dof's diagonal for affine bias and gain, nothing for a motor, the same
   with the force clamped by forcerange (the slope of the law before
   clamping, as MuJoCo's), -damping from passive forces; flags disable them. */
START_TEST(test_actuator_and_damping_velocity_derivative) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body><joint name='a' type='hinge' axis='0 1 0' damping='0.7'/>"
      "  <inertial pos='0 0 -0.3' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "  <body pos='0 0 -0.6'><joint name='b' type='slide' axis='0 0 1'/>"
      "    <inertial pos='0 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "</body></body></worldbody><actuator>"
      "<general joint='a' gear='2' gaintype='affine' biastype='affine' gainprm='3 1 -4'"
      "         biasprm='0 -20 -5' forcelimited='true' forcerange='-1 1'/>"
      "<position joint='b' kp='100' kv='7' gear='0.5'/>"
      "<motor joint='b' gear='3'/>"
      "</actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  double Dl[3] = {0}, Du[3] = {0};
  ck_assert_int_eq(m->nM, 3);
  d->ctrl[0] = 0.25;
  d->ctrl[1] = 0.1;
  d->ctrl[2] = 1;
  d->qpos[0] = 0.3;
  d->qvel[0] = 2;
  imp_actuation(m, d);
  imp_assert_near(fabs(d->actuator_force[0]), 1, 0); /* clamped */
  imp_deriv_actuator_vel(m, d, Dl, Du);
  imp_deriv_passive_vel(m, Dl, Du);
  imp_assert_near(Dl[m->dof_Madr[0]], 4 * (-5 - 4 * 0.25) - 0.7, 1e-15);
  imp_assert_near(Dl[m->dof_Madr[1]], 0.25 * -7, 1e-15);
  imp_assert_near(Dl[m->dof_Madr[1] + 1], 0, 0); /* off the diagonal */
  imp_assert_vec_near(Du, Dl, 3, 0);
  m->opt.disableflags |= IMP_DSBL_ACTUATION | IMP_DSBL_PASSIVE;
  imp_zero(Dl, 3);
  imp_zero(Du, 3);
  imp_deriv_actuator_vel(m, d, Dl, Du);
  imp_deriv_passive_vel(m, Dl, Du);
  double zero[3] = {0};
  imp_assert_vec_near(Dl, zero, 3, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Affine gain: force = (g0 + g1 l + g2 ldot) ctrl + bias. */
START_TEST(test_affine_gain) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body><joint name='a' type='slide' axis='1 0 0'/>"
      "<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/></body></worldbody><actuator>"
      "<general joint='a' gear='2' gaintype='affine' gainprm='3 1 -4' biastype='affine'"
      "         biasprm='0.5 -2 -1'/></actuator></mujoco>");
  ck_assert_int_eq(m->actuator_gaintype[0], IMP_GAIN_AFFINE);
  imp_data* d = imp_make_data(m);
  d->qpos[0] = 0.3;
  d->qvel[0] = -0.7;
  d->ctrl[0] = 1.5;
  imp_actuation(m, d);
  double l = 0.6, ldot = -1.4;
  double f = (3 + l - 4 * ldot) * 1.5 + 0.5 - 2 * l - ldot;
  imp_assert_near(d->actuator_force[0], f, 1e-14);
  imp_assert_near(d->qfrc_actuator[0], 2 * f, 1e-14);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* xfrc_applied: a force F at the com of a free body (com away from the body
   origin, body turned) accelerates the com at F/m without rotation; a
   torque turns it with I^-1 tau; a force at the com of a hinged link gives
   the torque ((xipos - anchor) x F) . axis. Gravity off, at rest. */
START_TEST(test_applied_forces) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><option gravity='0 0 0'/><worldbody>"
      "<body name='f' pos='0 0 1' euler='0.3 0.2 0.1'><freejoint/>"
      "  <inertial pos='0.1 -0.05 0.2' quat='0.8 0 0.6 0' mass='2.5' diaginertia='0.3 0.2 0.1'/>"
      "</body>"
      "<body name='h' pos='1 0 1'><joint type='hinge' axis='0 1 1' pos='0 0 0.1'/>"
      "  <inertial pos='0.2 0 -0.3' mass='0.7' diaginertia='0.01 0.02 0.03'/>"
      "</body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  int f = imp_test_id(m, IMP_OBJ_BODY, "f"), h = imp_test_id(m, IMP_OBJ_BODY, "h");
  double F[3] = {1.5, -2, 3}, tau[3] = {0.4, 0.1, -0.3};
  for (int i = 0; i < 3; i++) d->xfrc_applied[6 * f + i] = F[i];
  for (int i = 0; i < 3; i++) d->xfrc_applied[6 * h + i] = F[i];
  imp_forward(m, d);
  double expect[6] = {F[0] / 2.5, F[1] / 2.5, F[2] / 2.5, 0, 0, 0};
  /* the free joint's linear dofs move the body origin; with no angular
     acceleration the origin accelerates like the com */
  imp_assert_vec_near(d->qacc, expect, 6, 1e-13);
  double r[3], rf[3], axis[3];
  for (int i = 0; i < 3; i++) r[i] = d->xipos[3 * h + i] - d->xanchor[3 * m->body_jntadr[h] + i];
  imp_cross(rf, r, F);
  imp_copy(axis, d->xaxis + 3 * m->body_jntadr[h], 3);
  imp_assert_near(d->qfrc_smooth[6], imp_dot(rf, axis, 3), 1e-14);
  /* pure torque: the com stays put, w' = I^-1 tau in the body frame */
  imp_zero(d->xfrc_applied, 6 * m->nbody);
  for (int i = 0; i < 3; i++) d->xfrc_applied[6 * f + 3 + i] = tau[i];
  imp_forward(m, d);
  double Rc[9], tc[3], alpha_c[3], alpha_b[3];
  imp_copy(Rc, d->ximat + 9 * f, 9);
  imp_mat3T_vec(tc, Rc, tau);
  double J[3] = {0.3, 0.2, 0.1};
  for (int i = 0; i < 3; i++) tc[i] /= J[i];
  imp_mat3_vec(alpha_c, Rc, tc);                  /* world angular acceleration */
  imp_mat3T_vec(alpha_b, d->xmat + 9 * f, alpha_c); /* in the body frame */
  imp_assert_vec_near(d->qacc + 3, alpha_b, 3, 1e-13);
  /* com acceleration a_origin + alpha x (xipos - xpos) = 0 */
  double rc[3], ac[3];
  for (int i = 0; i < 3; i++) rc[i] = d->xipos[3 * f + i] - d->xpos[3 * f + i];
  imp_cross(ac, alpha_c, rc);
  for (int i = 0; i < 3; i++) imp_assert_near(d->qacc[i] + ac[i], 0, 1e-13);
  /* qfrc_applied enters as is: M qacc = qfrc_applied */
  imp_zero(d->xfrc_applied, 6 * m->nbody);
  double Mq[7];
  for (int i = 0; i < m->nv; i++) d->qfrc_applied[i] = imp_test_urand(-1, 1);
  imp_forward(m, d);
  imp_mul_sparse(m, d->qM, Mq, d->qacc);
  imp_assert_vec_near(Mq, d->qfrc_applied, m->nv, 1e-13);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Gravity compensation (MJCF body gravcomp): an upward force of gravcomp
   times the body's weight at its centre of mass. Truths: a fully
   compensated free body and a fully compensated two-link arm hanging
   sideways never move; a half-compensated free body falls at g/2, on
   semi-implicit Euler's closed form z_n = z_0 - (g/2) h^2 n(n+1)/2; the
   arm's passive force is then the gravity part of the bias (at rest,
   qfrc_bias is the potential's gradient); with gravity disabled nothing is
   added. */
START_TEST(test_gravcomp) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option timestep='0.002'/><worldbody>"
      "<body pos='0 0 1' gravcomp='1'><freejoint/><geom size='.1' mass='2'/></body>"
      "<body pos='1 0 1' gravcomp='0.5'><freejoint/><geom size='.1' mass='3'/></body>"
      "<body pos='2 0 1' gravcomp='1'><joint type='hinge' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 .5 0 0' size='.05'/><body pos='.5 0 0' gravcomp='1'>"
      "<joint type='hinge' axis='0 1 0'/><geom type='capsule' fromto='0 0 0 .4 0.1 0' size='.04'/>"
      "</body></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  for (int i = 12; i < 14; i++) /* the arm at rest: passive = gravity's bias */
    ck_assert_double_eq_tol(d->qfrc_passive[i], d->qfrc_bias[i], 1e-12);
  ck_assert_double_gt(fabs(d->qfrc_bias[12]), 1); /* the arm's weight has a moment */
  int n = 500;
  for (int i = 0; i < n; i++) imp_step(m, d);
  double h = m->opt.timestep, g = -m->opt.gravity[2];
  for (int i = 0; i < 6; i++) ck_assert_double_eq_tol(d->qvel[i], 0, 1e-14);
  ck_assert_double_eq_tol(d->qpos[2], 1, 1e-14);
  ck_assert_double_eq_tol(d->qpos[9], 1 - 0.5 * g * h * h * n * (n + 1) / 2, 1e-11);
  ck_assert_double_eq_tol(d->qvel[12], 0, 1e-13);
  ck_assert_double_eq_tol(d->qvel[13], 0, 1e-13);
  m->opt.disableflags |= IMP_DSBL_GRAVITY;
  imp_forward(m, d);
  for (int i = 0; i < m->nv; i++) ck_assert_double_eq(d->qfrc_passive[i], 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Joint-level actuator force limits (MuJoCo 3.x, issue 13: 44 surveyed
   files): two motors on one hinge, ctrl 3 each, give 6 unless the joint's
   actuatorfrcrange clamps the total to 4 (each actuator_force stays 3);
   actuatorfrclimited='false' or autolimits off without it leaves 6, a
   ball joint's range is ignored as MuJoCo ignores it, a reversed range is
   refused. The clamped total drives the step: u = n h 4 / I exactly. */
START_TEST(test_actuatorfrcrange) {
  static const char* fmt =
      "<mujoco><compiler autolimits='%s'/><option timestep='0.01' gravity='0 0 0'/><worldbody>"
      "<body><joint name='j' axis='0 0 1' %s/><geom type='box' size='.5 .1 .1' mass='1'/></body>"
      "<body pos='2 0 0'><joint type='ball' actuatorfrcrange='-1 1'/><geom size='.1'/></body>"
      "</worldbody><actuator><motor joint='j'/><motor joint='j'/></actuator></mujoco>";
  static const struct {
    const char *autolimits, *attrs;
    double total;
  } cases[] = {{"true", "actuatorfrcrange='-4 4'", 4},
               {"true", "actuatorfrcrange='-4 4' actuatorfrclimited='false'", 6},
               {"false", "actuatorfrcrange='-4 4'", 6},
               {"false", "actuatorfrcrange='-4 4' actuatorfrclimited='true'", 4},
               {"true", "", 6}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char xml[1024];
    snprintf(xml, sizeof xml, fmt, cases[c].autolimits, cases[c].attrs);
    imp_model* m = imp_test_load_string_nowarn(xml);
    ck_assert_int_eq(m->jnt_actfrclimited[1], 0); /* the ball's */
    imp_data* d = imp_make_data(m);
    d->ctrl[0] = d->ctrl[1] = 3;
    imp_forward(m, d);
    ck_assert_double_eq(d->actuator_force[0], 3);
    ck_assert_double_eq(d->actuator_force[1], 3);
    ck_assert_double_eq(d->qfrc_actuator[0], cases[c].total);
    double I = d->qM[0], h = m->opt.timestep;
    for (int i = 0; i < 10; i++) imp_step(m, d);
    ck_assert_double_eq_tol(d->qvel[0], 10 * h * cases[c].total / I, 1e-12);
    d->ctrl[0] = d->ctrl[1] = -3; /* the lower bound too */
    imp_forward(m, d);
    ck_assert_double_eq(d->qfrc_actuator[0], -cases[c].total);
    imp_free_data(d);
    imp_free_model(m);
  }
  char err[512];
  imp_model* bad = imp_load_xml_string(
      "<mujoco><worldbody><body>\n<joint actuatorfrcrange='1 -1'/><geom size='.1'/></body>"
      "</worldbody></mujoco>", NULL, "bad.xml", err, sizeof err);
  ck_assert_ptr_null(bad);
  ck_assert_msg(strstr(err, "bad.xml:2") && strstr(err, "actuatorfrcrange"), "%s", err);
}
END_TEST

/* actuatorgravcomp: a compensated arm's gravcomp moves from qfrc_passive to
   qfrc_actuator on that joint, where actuatorfrcrange clamps it: with room
   the arm holds still; with a range below the weight's torque it sags, and
   the joint gets exactly the range's bound. */
START_TEST(test_actuatorgravcomp) {
  static const char* fmt =
      "<mujoco><option timestep='0.002'/><worldbody><body pos='0 0 1' gravcomp='1'>"
      "<joint axis='0 1 0' actuatorgravcomp='true' %s/>"
      "<geom type='capsule' fromto='0 0 0 .5 0 0' size='.05' contype='0' conaffinity='0'/>"
      "</body></worldbody></mujoco>";
  char xml[1024];
  snprintf(xml, sizeof xml, fmt, "");
  imp_model* m = imp_test_load_string_nowarn(xml);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  double weight = d->qfrc_bias[0];
  ck_assert_double_gt(fabs(weight), 1);
  ck_assert_double_eq(d->qfrc_passive[0], 0);
  ck_assert_double_eq_tol(d->qfrc_actuator[0], weight, 1e-12);
  for (int i = 0; i < 500; i++) imp_step(m, d);
  ck_assert_double_eq_tol(d->qvel[0], 0, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
  double bound = 0.5 * fabs(weight);
  char attr[128];
  snprintf(attr, sizeof attr, "actuatorfrcrange='%.17g %.17g'", -bound, bound);
  snprintf(xml, sizeof xml, fmt, attr);
  m = imp_test_load_string_nowarn(xml);
  d = imp_make_data(m);
  imp_forward(m, d);
  ck_assert_double_eq(d->qfrc_actuator[0], weight > 0 ? bound : -bound);
  for (int i = 0; i < 100; i++) imp_step(m, d);
  ck_assert_double_gt(fabs(d->qvel[0]), 0.1); /* it sags */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  imp_test_rng = 0xda942042e4dd58b5ull;
  Suite* s = suite_create("dynamics");
  TCase* tc = tcase_create("bias");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_gravity_bias_is_potential_gradient);
  tcase_add_test(tc, test_bias_matches_lagrange_on_hinge_slide_chain);
  tcase_add_test(tc, test_bias_power_identity_on_tree);
  tcase_add_test(tc, test_free_body_bias_is_euler_equations);
  suite_add_tcase(s, tc);
  tc = tcase_create("forces");
  tcase_add_test(tc, test_springs_and_damping);
  tcase_add_test(tc, test_actuators);
  tcase_add_test(tc, test_rne_velocity_derivative);
  tcase_add_test(tc, test_actuator_and_damping_velocity_derivative);
  tcase_add_test(tc, test_affine_gain);
  tcase_add_test(tc, test_applied_forces);
  tcase_add_test(tc, test_gravcomp);
  tcase_add_test(tc, test_actuatorfrcrange);
  tcase_add_test(tc, test_actuatorgravcomp);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
