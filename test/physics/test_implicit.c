/* The implicit-in-velocity integrators on stiff servos (engine/integrate/integrate.c).
 *
 * 1. A hinge of inertia I (body + armature) about the world z axis, joint
 *    damping b, a <position> servo kp, kv through gear g and target ctrl r:
 *    the generalized force is K (q* - q) - c v with K = kp g^2, q* = r / g,
 *    c = kv g^2 + b. implicitfast takes D = -c, so each step is
 *
 *      (I + h c) v+ = (I + h c) v + h (K (q* - q) - c v) = I v + h K (q* - q)
 *      q+ = q + h v+
 *
 *    or, in the error e = q - q* and x = (e, v):
 *
 *      x+ = A x,  A = [1 - h beta, h a; -beta, a],  a = I / (I + h c),
 *                                                   beta = h K / (I + h c),
 *
 *    so x_n = A^n x_0 in closed form by A's eigenvalues (det A = a < 1,
 *    the discrete oscillator decays whatever h). At K h^2 / I = 19 and
 *    c h / I = 19 semi-implicit Euler (explicit kv) diverges within steps;
 *    implicitfast must follow the closed form to rounding and settle on q*.
 *
 * 2. A kuka_iiwa_14-like arm: four hinges, small distal inertias, general
 *    actuators gainprm 2000, biasprm (0, -2000, -200) as Menagerie's iiwa14
 *    at its 0.002 s step (kv h / I of the last link ~ 100): Euler throws it
 *    (the NaN guard resets), implicitfast and implicit hold it near its
 *    targets with bounded joint speeds.
 *
 * 3. Contacts: the contact stage poses its problem on the step's matrix, so
 *    the step ends exactly at the velocity it solved for: K u+ = efc_vel
 *    for every row, with implicitfast and with implicit (whose smooth
 *    forces use the full LU and impulses the symmetric matrix). */
#include <complex.h>
#include <math.h>
#include <string.h>
#include <stdio.h>

#include "engine.h"
#include "test_util.h"

static const char* k_servo =
    "<mujoco><option timestep='0.01' gravity='0 0 -9.81' integrator='%s'/><worldbody>"
    "<body pos='0 0 1'><joint name='j' type='hinge' axis='0 0 1' damping='0.5' armature='0.02'/>"
    "  <inertial pos='0 0 0' mass='1' diaginertia='0.1 0.1 0.1'/></body>"
    "</worldbody><actuator><position joint='j' kp='10000' kv='100' gear='1.5'/></actuator>"
    "</mujoco>";

/* Under Euler the loader warns that the servo's velocity feedback is
   beyond the explicit step's stability limit (model/compile.c); the
   implicit integrators load it silently. */
static imp_model* load_warned_if_euler(const char* xml, const char* integrator) {
  imp_model* m = imp_test_load_string(xml);
  ck_assert_int_eq(m->nwarning, !strcmp(integrator, "Euler"));
  return m;
}

/* the servo model with the given integrator */
static imp_model* load_servo(const char* integrator) {
  char xml[1000];
  snprintf(xml, sizeof xml, k_servo, integrator);
  return load_warned_if_euler(xml, integrator);
}

/* x_n = A^n x_0 for the 2x2 A of the header, by its eigenvalues l1 != l2:
   A^n = (l1^n (A - l2 E) - l2^n (A - l1 E)) / (l1 - l2). */
static void closed_form(const double A[4], const double x0[2], int n, double xn[2]) {
  double tr = A[0] + A[3], det = A[0] * A[3] - A[1] * A[2];
  double complex disc = csqrt(tr * tr - 4 * det + 0 * I);
  double complex l1 = 0.5 * (tr + disc), l2 = 0.5 * (tr - disc);
  double complex p1 = cpow(l1, n), p2 = cpow(l2, n);
  for (int r = 0; r < 2; r++) {
    double complex s = 0;
    for (int c = 0; c < 2; c++) {
      double complex a = A[2 * r + c];
      double complex m = (p1 * (a - (r == c ? l2 : 0)) - p2 * (a - (r == c ? l1 : 0))) / (l1 - l2);
      s += m * x0[c];
    }
    xn[r] = creal(s);
  }
}

START_TEST(test_stiff_servo_is_implicit_euler_oscillator) {
  imp_model* m = load_servo("implicitfast");
  imp_data* d = imp_make_data(m);
  const double h = m->opt.timestep, g = 1.5, kp = 1e4, kv = 100, b = 0.5, r = 0.3;
  const double Iz = 0.1 + 0.02, K = kp * g * g, c = kv * g * g + b, qs = r / g;
  imp_assert_near(m->actuator_biasprm[2], -kv, 0); /* <position kv>: bias (0, -kp, -kv) */
  ck_assert_msg(K * h * h / Iz > 10 && c * h / Iz > 10, "not stiff enough to matter");
  double a = Iz / (Iz + h * c), beta = h * K / (Iz + h * c);
  double A[4] = {1 - h * beta, h * a, -beta, a};
  ck_assert_msg(sqrt(A[0] * A[3] - A[1] * A[2]) < 1, "|eigenvalues| >= 1");
  d->ctrl[0] = r;
  d->qpos[0] = -0.4;
  d->qvel[0] = 2;
  double x0[2] = {d->qpos[0] - qs, d->qvel[0]}, x[2], worst = 0;
  for (int n = 1; n <= 300; n++) {
    imp_step(m, d);
    closed_form(A, x0, n, x);
    worst = fmax(worst, fabs(d->qpos[0] - qs - x[0]) + h * fabs(d->qvel[0] - x[1]));
    ck_assert_msg(fabs(d->qpos[0] - qs - x[0]) <= 1e-12 && fabs(d->qvel[0] - x[1]) <= 1e-10,
                  "step %d: (e, v) = (%.17g, %.17g), closed form (%.17g, %.17g)", n,
                  d->qpos[0] - qs, d->qvel[0], x[0], x[1]);
  }
  printf("stiff servo, implicitfast vs closed form: worst |de| + h |dv| = %.2e over 300 steps\n",
         worst);
  ck_assert_int_eq(d->nwarning_nan, 0);
  imp_assert_near(d->qpos[0], qs, 1e-6); /* settled on ctrl / gear */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* The same servo stepped by Euler (kv explicit, only joint damping
   implicit) diverges: the test above is not one any integrator passes. */
START_TEST(test_stiff_servo_explodes_with_euler) {
  imp_model* m = load_servo("Euler");
  imp_data* d = imp_make_data(m);
  imp_set_warning_handler(NULL);
  d->ctrl[0] = 0.3;
  d->qpos[0] = -0.4;
  int n = 0;
  while (d->nwarning_nan == 0 && n < 300) imp_step(m, d), n++;
  ck_assert_msg(d->nwarning_nan > 0, "Euler stayed finite for 300 steps");
  printf("stiff servo, Euler: diverged (NaN guard) after %d steps\n", n);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* kuka_iiwa_14's actuators on a small arm (header, 2.). */
static const char* k_arm =
    "<mujoco><compiler angle='radian'/><option timestep='0.002' integrator='%s'/>"
    "<default><joint axis='0 0 1'/><geom contype='0' conaffinity='0'/>"
    "  <general gaintype='fixed' biastype='affine' gainprm='2000' biasprm='0 -2000 -200'/>"
    "</default><worldbody>"
    "<body name='l1' pos='0 0 0.2'><joint name='j1' range='-2.9 2.9'/>"
    "  <inertial pos='0 -0.03 0.12' mass='5.8' diaginertia='0.033 0.033 0.012'/>"
    "  <geom type='capsule' fromto='0 0 0 0 0 0.2' size='0.05'/>"
    "  <body name='l2' pos='0 0 0.2' quat='1 1 0 0'><joint name='j2' range='-2 2'/>"
    "    <inertial pos='0 0.06 0.04' mass='6.3' diaginertia='0.03 0.03 0.011'/>"
    "    <geom type='capsule' fromto='0 0 0 0 0.2 0' size='0.05'/>"
    "    <body name='l3' pos='0 0.2 0' quat='1 -1 0 0'><joint name='j3' range='-3 3'/>"
    "      <inertial pos='0 0.03 0.13' mass='3.5' diaginertia='0.025 0.024 0.008'/>"
    "      <geom type='capsule' fromto='0 0 0 0 0 0.2' size='0.04'/>"
    "      <body name='l4' pos='0 0 0.2' quat='1 1 0 0'><joint name='j4' range='-2 2'/>"
    "        <inertial pos='0 0 0.02' mass='0.3' diaginertia='0.001 0.001 0.001'/>"
    "        <geom type='sphere' size='0.03'/>"
    "</body></body></body></body></worldbody><actuator>"
    "<general joint='j1' ctrlrange='-2.9 2.9'/><general joint='j2' ctrlrange='-2 2'/>"
    "<general joint='j3' ctrlrange='-3 3'/><general joint='j4' ctrlrange='-2 2'/>"
    "</actuator></mujoco>";

/* Run the arm 2000 steps toward fixed targets from a displaced pose; the
   largest |qvel| and the worst final tracking error (gravity leaves a
   steady error of torque / kp). */
static void run_arm(const char* integrator, double* vmax, double* err, int* nan_resets) {
  char xml[4000];
  snprintf(xml, sizeof xml, k_arm, integrator);
  imp_model* m = load_warned_if_euler(xml, integrator);
  imp_data* d = imp_make_data(m);
  const double target[4] = {0.5, -0.8, 1.0, 1.2};
  for (int i = 0; i < 4; i++) d->ctrl[i] = target[i];
  d->qpos[1] = 0.6;
  d->qvel[3] = 5;
  *vmax = 0;
  for (int s = 0; s < 2000; s++) {
    imp_step(m, d);
    for (int i = 0; i < m->nv; i++) *vmax = fmax(*vmax, fabs(d->qvel[i]));
  }
  *err = 0;
  for (int i = 0; i < 4; i++) *err = fmax(*err, fabs(d->qpos[i] - target[i]));
  *nan_resets = d->nwarning_nan;
  imp_free_data(d);
  imp_free_model(m);
}

START_TEST(test_kuka_like_arm_bounded) {
  static const char* const integ[] = {"implicitfast", "implicit", "Euler"};
  imp_set_warning_handler(NULL);
  for (int k = 0; k < 3; k++) {
    double vmax, err;
    int nan;
    run_arm(integ[k], &vmax, &err, &nan);
    printf("kuka-like arm, %s: max |qvel| %.3g rad/s, final tracking error %.3g rad, "
           "%d NaN resets\n", integ[k], vmax, err, nan);
    if (k < 2) {
      ck_assert_int_eq(nan, 0);
      ck_assert_msg(vmax < 20, "%s: joint speed %.3g", integ[k], vmax);
      ck_assert_msg(err < 0.01, "%s: tracking error %.3g", integ[k], err);
    } else {
      ck_assert_msg(nan > 0 || vmax > 100, "Euler held the arm: the test shows nothing");
    }
  }
}
END_TEST

/* A damped servo presses a link onto the floor; a free box tumbles onto
   it (header, 3.). */
static const char* k_press =
    "<mujoco><option timestep='0.005' integrator='%s'/><worldbody>"
    "<geom type='plane' size='5 5 0.1'/>"
    "<body pos='0 0 0.5'><joint name='j' type='hinge' axis='0 1 0' damping='0.3'/>"
    "  <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05' mass='1'/>"
    "  <body pos='0.5 0 0'><joint name='k' type='hinge' axis='0 1 0'/>"
    "    <geom type='capsule' fromto='0 0 0 0 0 -0.4' size='0.04' mass='0.5'/></body></body>"
    "<body pos='1.5 0 0.3' euler='0.3 0.2 0.1'><freejoint/>"
    "  <geom type='box' size='0.1 0.15 0.05' mass='0.7'/></body>"
    "</worldbody><actuator><position joint='j' kp='400' kv='40'/>"
    "<position joint='k' kp='50' dampratio='1'/></actuator></mujoco>";

START_TEST(test_contact_step_ends_at_solved_velocity) {
  static const char* const integ[] = {"implicitfast", "implicit"};
  for (int k = 0; k < 2; k++) {
    char xml[2000];
    snprintf(xml, sizeof xml, k_press, integ[k]);
    imp_model* m = imp_test_load_string_nowarn(xml);
    imp_data* d = imp_make_data(m);
    d->ctrl[0] = 0.8; /* down, into the floor */
    d->qvel[m->jnt_dofadr[2] + 3] = 6; /* the box spins as it falls */
    d->qvel[m->jnt_dofadr[2] + 5] = -4;
    double worst = 0;
    int rows = 0;
    for (int s = 0; s < 400; s++) {
      imp_step(m, d);
      for (int r = 0; r < d->nefc; r++) {
        double v = 0;
        for (int i = 0; i < d->efc_J_rownnz[r]; i++)
          v += d->efc_J[d->efc_J_rowadr[r] + i] * d->qvel[d->efc_J_colind[d->efc_J_rowadr[r] + i]];
        worst = fmax(worst, fabs(v - d->efc_vel[r]));
      }
      rows += d->nefc;
    }
    printf("contacts, %s: %d rows over 400 steps, worst |K u+ - efc_vel| = %.2e\n", integ[k], rows,
           worst);
    ck_assert_msg(rows > 400, "%s: too few constraint rows (%d) to test", integ[k], rows);
    ck_assert_msg(worst < 1e-10, "%s: the step left the solved velocity by %.3e", integ[k], worst);
    ck_assert_int_eq(d->nwarning_nan, 0);
    imp_free_data(d);
    imp_free_model(m);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("implicit");
  TCase* tc = tcase_create("servos");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_stiff_servo_is_implicit_euler_oscillator);
  tcase_add_test(tc, test_stiff_servo_explodes_with_euler);
  tcase_add_test(tc, test_kuka_like_arm_bounded);
  tcase_add_test(tc, test_contact_step_ends_at_solved_velocity);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
