/* Unit tests of time integration (engine/integrate/integrate.c, via imp_step).
 *
 * Truths: the closed-form sequence of semi-implicit Euler in free fall
 * (v_n = v0 + n h g, x_n = x0 + n h v0 + h^2 g n(n+1)/2); the exact
 * discrete formula of implicit damping, v+ = (m v + h f) / (m + h b); the
 * exponential map for a constant angular velocity; and the convergence
 * order of RK4 (error ratio 16 when h halves) and Euler (ratio 2) against a
 * fine-step reference on a nonlinear pendulum. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

/* Free fall of a spinning asymmetric body whose com is the body origin:
   the origin follows the semi-implicit Euler parabola exactly (up to
   rounding), whatever the tumbling does. */
START_TEST(test_free_fall_discrete_parabola) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><option timestep='0.002'/><worldbody>"
      "<body pos='0.5 -1 10' euler='0.3 0.2 0.1'><freejoint/>"
      "<inertial pos='0 0 0' quat='0.9 0.3 0.1 0.2' mass='1.7' diaginertia='0.3 0.2 0.15'/>"
      "</body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  double v0[3] = {0.5, -0.2, 2}, x0[3];
  imp_copy(x0, d->qpos, 3);
  imp_copy(d->qvel, v0, 3);
  d->qvel[3] = 3, d->qvel[4] = -1, d->qvel[5] = 2;
  const double h = 0.002, *g = m->opt.gravity;
  for (int n = 1; n <= 1000; n++) {
    imp_step(m, d);
    if (n % 100) continue;
    double x[3], v[3];
    for (int i = 0; i < 3; i++) {
      v[i] = v0[i] + n * h * g[i];
      x[i] = x0[i] + n * h * v0[i] + h * h * g[i] * n * (n + 1) / 2.0;
    }
    imp_assert_vec_near(d->qvel, v, 3, 1e-12);
    imp_assert_vec_near(d->qpos, x, 3, 1e-12);
    imp_assert_near(d->time, n * h, 1e-12);
  }
  ck_assert_int_eq((int)d->nstep, 1000);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A torque-free asymmetric body tumbling for 1e5 steps (about the unstable
   middle axis, so it flips) keeps a unit quaternion. The energy is not
   checked: explicit gyroscopic terms make Euler's rotational energy drift. */
START_TEST(test_tumbling_quaternion_stays_unit) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option timestep='0.001' gravity='0 0 0'/><worldbody>"
      "<body><freejoint/>"
      "<inertial pos='0 0 0' mass='1' diaginertia='0.4 0.3 0.1'/>"
      "</body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  d->qvel[3] = 0.1, d->qvel[4] = 5, d->qvel[5] = 0.2; /* near the unstable middle axis */
  double maxdev = 0, minw1 = 5;
  for (int n = 0; n < 100000; n++) {
    imp_step(m, d);
    const double* q = d->qpos + 3;
    maxdev = fmax(maxdev, fabs(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1));
    minw1 = fmin(minw1, d->qvel[4]);
  }
  ck_assert_msg(maxdev < 1e-15, "quaternion norm deviates by %.3e", maxdev);
  ck_assert_msg(minw1 < -2, "the body never flipped (min w_y %g): not tumbling", minw1);
  ck_assert_int_eq(d->nwarning_nan, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* imp_integrate_pos: hinge and slide add h v; a free joint adds h v to the
   position and turns by the body-frame angular velocity (exact map). */
START_TEST(test_integrate_pos_kinematic_map) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody>"
      "<body><freejoint/><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
      "  <body><joint type='ball'/><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
      "    <body><joint type='hinge'/><joint type='slide'/>"
      "      <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
      "</body></body></body></worldbody></mujoco>");
  ck_assert_int_eq(m->nq, 13);
  double q0[13] = {1, 2, 3, 0.5, 0.5, 0.5, 0.5, 0.8, 0, 0.6, 0, 0.3, -0.4};
  double v[11] = {1, -1, 2, 0.3, -0.7, 1.1, 2, 0.5, -0.5, 0.7, 1.5}, q[13];
  const double h = 0.37;
  imp_copy(q, q0, 13);
  imp_integrate_pos(m, q, v, h);
  for (int i = 0; i < 3; i++) imp_assert_near(q[i], q0[i] + h * v[i], 1e-15);
  for (int k = 0; k < 2; k++) { /* free rotation, then ball */
    const double* w = v + 3 + 3 * k;
    const double* qa = q0 + 3 + 4 * k;
    double n = imp_norm3(w), axis[3] = {w[0] / n, w[1] / n, w[2] / n}, r[4], expect[4];
    imp_axisangle2quat(r, axis, n * h);
    imp_quat_mul(expect, qa, r);
    imp_assert_vec_near(q + 3 + 4 * k, expect, 4, 1e-15);
  }
  imp_assert_near(q[11], 0.3 + h * 0.7, 1e-15);
  imp_assert_near(q[12], -0.4 + h * 1.5, 1e-15);
  imp_free_model(m);
}
END_TEST

/* A slider of mass 1 with damping b = 100 m/h and a constant force
   (gravity along the slide): implicit damping gives exactly
   v+ = (m v + h m g) / (m + h b), decaying monotonically to the terminal
   velocity m g / b; the explicit version multiplies v by (1 - 100) per step
   and the NaN guard resets it. */
static const char* k_damped =
    "<mujoco><option timestep='0.01' gravity='0 0 -9.81'/><worldbody>"
    "<body><joint type='slide' axis='0 0 1' damping='10000'/>"
    "<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
    "</body></worldbody></mujoco>";

START_TEST(test_implicit_damping_exact_and_stable) {
  imp_model* m = imp_test_load_string_nowarn(k_damped);
  imp_data* d = imp_make_data(m);
  const double h = 0.01, b = 10000, g = -9.81;
  d->qvel[0] = 3;
  double v = 3, x = 0, prev_gap = fabs(3 - g / b);
  for (int n = 0; n < 50; n++) {
    imp_step(m, d);
    v = (v + h * g) / (1 + h * b);
    x += h * v;
    imp_assert_near(d->qvel[0], v, 1e-15 * fmax(1, fabs(v)) + 1e-17);
    imp_assert_near(d->qpos[0], x, 1e-14);
    double gap = fabs(d->qvel[0] - g / b);
    ck_assert_msg(gap <= prev_gap, "step %d: not decaying toward the terminal velocity", n);
    prev_gap = gap;
  }
  imp_assert_near(d->qvel[0], g / b, 1e-15);
  ck_assert_int_eq(d->nwarning_nan, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static int nwarn_seen;
static void count_warning(const char* msg) {
  (void)msg;
  nwarn_seen++;
}

START_TEST(test_explicit_damping_diverges_and_resets) {
  imp_model* m = imp_test_load_string_nowarn(k_damped);
  m->opt.disableflags |= IMP_DSBL_EULERDAMP;
  imp_data* d = imp_make_data(m);
  imp_set_warning_handler(count_warning);
  nwarn_seen = 0;
  d->qvel[0] = 3;
  imp_step(m, d);
  /* explicit: v+ = v + h (-b v + m g) / m */
  imp_assert_near(d->qvel[0], 3 + 0.01 * (-10000 * 3 - 9.81), 1e-12);
  int n = 1;
  while (d->nwarning_nan == 0 && n < 100) imp_step(m, d), n++;
  ck_assert_msg(d->nwarning_nan == 1, "no divergence detected in %d steps", n);
  ck_assert_int_eq(nwarn_seen, 1);
  ck_assert_msg(n < 10, "took %d steps to pass 1e10 at a factor 99 per step", n);
  imp_assert_near(d->qvel[0], 0, 0); /* reset to rest at qpos0 */
  imp_assert_near(d->qpos[0], m->qpos0[0], 0);
  imp_set_warning_handler(NULL);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* a pendulum swinging to 2 rad (strongly nonlinear) */
static const char* k_pendulum =
    "<mujoco><option integrator='RK4'/><worldbody>"
    "<body pos='0 0 1'><joint type='hinge' axis='0 1 0'/>"
    "<inertial pos='0 0 -0.5' mass='1' diaginertia='0.02 0.02 0.001'/>"
    "</body></worldbody></mujoco>";

/* state after T seconds at step h with the given integrator */
static void simulate(imp_model* m, imp_data* d, int integrator, double h, double T,
                     double out[2]) {
  m->opt.integrator = integrator;
  m->opt.timestep = h;
  imp_reset_data(m, d);
  d->qpos[0] = 2.0;
  d->qvel[0] = 0.5;
  int n = (int)(T / h + 0.5);
  for (int i = 0; i < n; i++) imp_step(m, d);
  imp_assert_near(d->time, T, 1e-9);
  out[0] = d->qpos[0];
  out[1] = d->qvel[0];
}

static double state_err(const double a[2], const double b[2]) {
  return fmax(fabs(a[0] - b[0]), fabs(a[1] - b[1]));
}

START_TEST(test_rk4_fourth_order_euler_first_order) {
  /* not _nowarn: the loader (model/xml.c) still warns "integrator 'RK4' is
     stored but stepped as Euler for now", which is no longer true */
  imp_model* m = imp_test_load_string(k_pendulum);
  ck_assert_int_eq(m->opt.integrator, IMP_INT_RK4);
  imp_data* d = imp_make_data(m);
  const double T = 1.0;
  double ref[2], a[2], b[2], c[2];
  simulate(m, d, IMP_INT_RK4, 1.0 / 2560, T, ref);
  simulate(m, d, IMP_INT_RK4, 1.0 / 40, T, a);
  simulate(m, d, IMP_INT_RK4, 1.0 / 80, T, b);
  simulate(m, d, IMP_INT_RK4, 1.0 / 160, T, c);
  double r1 = state_err(a, ref) / state_err(b, ref), r2 = state_err(b, ref) / state_err(c, ref);
  printf("RK4 pendulum errors: %.3e %.3e %.3e, ratios %.2f %.2f\n", state_err(a, ref),
         state_err(b, ref), state_err(c, ref), r1, r2);
  ck_assert_msg(r1 > 13 && r1 < 19 && r2 > 13 && r2 < 19, "RK4 error ratios %.2f %.2f (16 expected)",
                r1, r2);
  ck_assert_msg(state_err(c, ref) < 1e-6, "RK4 error %.3e at h = 1/160", state_err(c, ref));
  simulate(m, d, IMP_INT_EULER, 1.0 / 400, T, a);
  simulate(m, d, IMP_INT_EULER, 1.0 / 800, T, b);
  simulate(m, d, IMP_INT_EULER, 1.0 / 1600, T, c);
  r1 = state_err(a, ref) / state_err(b, ref);
  r2 = state_err(b, ref) / state_err(c, ref);
  printf("Euler pendulum errors: %.3e %.3e %.3e, ratios %.2f %.2f\n", state_err(a, ref),
         state_err(b, ref), state_err(c, ref), r1, r2);
  ck_assert_msg(r1 > 1.7 && r1 < 2.3 && r2 > 1.7 && r2 < 2.3,
                "Euler error ratios %.2f %.2f (2 expected)", r1, r2);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("integrate");
  TCase* tc = tcase_create("integrate");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_free_fall_discrete_parabola);
  tcase_add_test(tc, test_tumbling_quaternion_stays_unit);
  tcase_add_test(tc, test_integrate_pos_kinematic_map);
  tcase_add_test(tc, test_implicit_damping_exact_and_stable);
  tcase_add_test(tc, test_explicit_damping_diverges_and_resets);
  tcase_add_test(tc, test_rk4_fourth_order_euler_first_order);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
