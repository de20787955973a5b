/* Tests of engine/smooth/activation.c against the laws it implements: a filter's
 * activation follows ctrl with its time constant (the exponential law,
 * exactly for filterexact, Euler's discrete law for filter, RK4's
 * fourth-order polynomial under RK4), an integrator integrates and stops at
 * actrange, the force is gain * act (actearly: the next act), actuation
 * disabled holds the state, the implicit integrators differentiate
 * gain * act in velocity, and MuJoCo's muscle curves take their documented
 * values at their break points. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "impetus.h"
#include "test_util.h"

/* a 2 kg slider without gravity, one actuator: %s its attributes; the
   option line's integrator %s */
static imp_model* slider(const char* integrator, const char* actuator) {
  char xml[2048];
  snprintf(xml, sizeof xml,
           "<mujoco><option timestep='0.01' gravity='0 0 0' integrator='%s'/>"
           "<worldbody><body><joint name='x' type='slide' axis='1 0 0'/>"
           "<geom type='sphere' size='0.1' mass='2'/></body></worldbody>"
           "<actuator><general name='a' joint='x' %s/></actuator></mujoco>",
           integrator, actuator);
  return imp_test_load_string_nowarn(xml);
}

/* filterexact: act_n = c + (a0 - c) e^(-n h / tau) at every step */
START_TEST(filterexact_follows_exponential) {
  imp_model* m = slider("Euler", "dyntype='filterexact' dynprm='0.1' gainprm='0'");
  imp_data* d = imp_make_data(m);
  const double c = 0.8, a0 = -0.3, h = 0.01, tau = 0.1;
  d->act[0] = a0;
  d->ctrl[0] = c;
  for (int n = 1; n <= 200; n++) {
    imp_step(m, d);
    double law = c + (a0 - c) * exp(-n * h / tau);
    ck_assert_msg(fabs(d->act[0] - law) < 1e-14, "step %d: act %.17g, law %.17g", n, d->act[0],
                  law);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* filter: Euler's act_n = c + (a0 - c) (1 - h/tau)^n, within h/tau of the
   exponential it approximates (h/tau = 0.1 here) */
START_TEST(filter_follows_euler_law) {
  imp_model* m = slider("Euler", "dyntype='filter' dynprm='0.1' gainprm='0'");
  imp_data* d = imp_make_data(m);
  const double c = 0.8, h = 0.01, tau = 0.1;
  d->ctrl[0] = c;
  double worst = 0;
  for (int n = 1; n <= 100; n++) {
    imp_step(m, d);
    double law = c * (1 - pow(1 - h / tau, n));
    ck_assert_double_eq_tol(d->act[0], law, 1e-14);
    worst = fmax(worst, fabs(d->act[0] - c * (1 - exp(-n * h / tau))));
  }
  ck_assert_msg(worst > 1e-3 && worst < 0.1 * c, "filter vs exp: %g", worst);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* RK4 on act_dot = (c - act) / tau: one step multiplies a0 - c by
   1 - x + x^2/2 - x^3/6 + x^4/24, x = h / tau */
START_TEST(filter_under_rk4_is_fourth_order) {
  imp_model* m = slider("RK4", "dyntype='filter' dynprm='0.05' gainprm='0'");
  imp_data* d = imp_make_data(m);
  const double c = 1.5, a0 = 0.25, x = 0.01 / 0.05;
  d->act[0] = a0;
  d->ctrl[0] = c;
  imp_step(m, d);
  double r = 1 - x + x * x / 2 - x * x * x / 6 + x * x * x * x / 24;
  ck_assert_double_eq_tol(d->act[0], c + (a0 - c) * r, 1e-15);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* integrator: act_n = n h ctrl until actrange's bound, where it stays */
START_TEST(integrator_integrates_and_clamps) {
  imp_model* m = slider("Euler", "dyntype='integrator' actrange='-0.5 0.25' gainprm='0'");
  imp_data* d = imp_make_data(m);
  d->ctrl[0] = 2;
  for (int n = 1; n <= 30; n++) {
    imp_step(m, d);
    ck_assert_double_eq_tol(d->act[0], fmin(0.02 * n, 0.25), 1e-15);
  }
  d->ctrl[0] = -40; /* -0.4 a step: 0.25 -0.15 -0.5 -0.5 */
  for (int n = 0; n < 3; n++) imp_step(m, d);
  ck_assert_double_eq(d->act[0], -0.5);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* force = gain * act, not gain * ctrl: a slider starts with the
   acceleration of its activation; actearly uses the next act */
START_TEST(force_is_gain_times_act) {
  imp_model* m = slider("Euler", "dyntype='filter' dynprm='0.1' gainprm='3'");
  imp_data* d = imp_make_data(m);
  d->act[0] = 0.5;
  d->ctrl[0] = 1;
  imp_forward(m, d);
  ck_assert_double_eq(d->actuator_force[0], 1.5);
  ck_assert_double_eq_tol(d->qacc[0], 1.5 / 2, 1e-15);
  ck_assert_double_eq_tol(d->act_dot[0], (1 - 0.5) / 0.1, 1e-15);
  imp_free_data(d);
  imp_free_model(m);
  m = slider("Euler", "dyntype='filter' dynprm='0.1' gainprm='3' actearly='true'");
  d = imp_make_data(m);
  d->act[0] = 0.5;
  d->ctrl[0] = 1;
  imp_forward(m, d);
  ck_assert_double_eq_tol(d->actuator_force[0], 3 * (0.5 + 0.01 * 5), 1e-15);
  ck_assert_double_eq(d->act[0], 0.5); /* the state itself moves in the step */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* <flag actuation='disable'>: no force and the activation holds */
START_TEST(disabled_actuation_holds_act) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option><flag actuation='disable'/></option><worldbody><body>"
      "<joint name='x' type='slide'/><geom size='0.1'/></body></worldbody>"
      "<actuator><general joint='x' dyntype='integrator'/></actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  d->act[0] = 0.3;
  d->ctrl[0] = 5;
  for (int n = 0; n < 10; n++) imp_step(m, d);
  ck_assert_double_eq(d->act[0], 0.3);
  ck_assert_double_eq(d->actuator_force[0], 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A damper whose gain is an activation, force = -k v act (affine gain
   (0, 0, -k) on an integrator held at act by ctrl 0): implicitfast and
   implicit step v+ = v M / (M + h k act), as MuJoCo differentiates gain *
   act; Euler steps it explicitly, v+ = v (1 - h k act / M). */
START_TEST(implicit_differentiates_gain_times_act) {
  static const char* const integ[] = {"implicitfast", "implicit", "Euler"};
  const double M = 2, h = 0.01, k = 300, act = 0.5, v0 = 1.2;
  for (int i = 0; i < 3; i++) {
    imp_model* m = slider(integ[i], "dyntype='integrator' gaintype='affine' gainprm='0 0 -300'");
    imp_data* d = imp_make_data(m);
    d->act[0] = act;
    d->qvel[0] = v0;
    imp_step(m, d);
    double expect = i < 2 ? v0 * M / (M + h * k * act) : v0 * (1 - h * k * act / M);
    ck_assert_msg(fabs(d->qvel[0] - expect) < 1e-14, "%s: v+ %.17g, expected %.17g", integ[i],
                  d->qvel[0], expect);
    ck_assert_double_eq(d->act[0], act);
    imp_free_data(d);
    imp_free_model(m);
  }
}
END_TEST

/* ---- muscle curves (activation.c's header) ---- */

/* parameters: range 0.75 1.05, F 10, scale 200, lmin 0.5, lmax 1.6, vmax
   1.5, fpmax 1.3, fvmax 1.2; lengthrange (0, 0.3): L0 = 1, L = 0.75 + len */
static const double k_prm[9] = {0.75, 1.05, 10, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
static const double k_lr[2] = {0, 0.3};

static double gain_at(double L, double V) {
  return imp_muscle_gain(L - 0.75, V * 1.5, k_lr, 1, k_prm, NULL);
}

START_TEST(muscle_length_and_velocity_curves) {
  /* FL: 1 at L = 1, 0 at and beyond lmin and lmax, 1/2 at the joins */
  ck_assert_double_eq_tol(gain_at(1, 0), -10, 1e-13);
  ck_assert_double_eq_tol(gain_at(0.5, 0), 0, 1e-13);
  ck_assert_double_eq(gain_at(0.4, 0), 0);
  ck_assert_double_eq(gain_at(1.7, 0), 0);
  ck_assert_double_eq_tol(gain_at(0.75, 0), -5, 1e-13); /* a = (0.5 + 1) / 2 */
  ck_assert_double_eq_tol(gain_at(1.3, 0), -5, 1e-13);  /* b = (1 + 1.6) / 2 */
  /* FV: 0 at V = -1 (shortening at vmax), fvmax from V = fvmax - 1 on */
  ck_assert_double_eq_tol(gain_at(1, -1), 0, 1e-13);
  ck_assert_double_eq_tol(gain_at(1, -0.5), -10 * 0.25, 1e-13);
  ck_assert_double_eq_tol(gain_at(1, 0.2), -12, 1e-13);
  ck_assert_double_eq_tol(gain_at(1, 3), -12, 1e-13);
  /* force < 0: scale / acc0 */
  double p2[9];
  memcpy(p2, k_prm, sizeof p2);
  p2[2] = -1;
  ck_assert_double_eq_tol(imp_muscle_gain(0.25, 0, k_lr, 40, p2, NULL), -200.0 / 40, 1e-13);
  /* dgain/dvel against central differences, on every piece of FV */
  const double vs[4] = {-1.2, -0.4, 0.1, 0.5};
  for (int i = 0; i < 4; i++) {
    double len = 0.3, vel = vs[i] * 1.5, dg, e = 1e-6;
    imp_muscle_gain(len, vel, k_lr, 1, k_prm, &dg);
    double num = (imp_muscle_gain(len, vel + e, k_lr, 1, k_prm, NULL) -
                  imp_muscle_gain(len, vel - e, k_lr, 1, k_prm, NULL)) / (2 * e);
    ck_assert_msg(fabs(dg - num) < 1e-7, "V %g: dgain %.10g, differences %.10g", vs[i], dg, num);
  }
}
END_TEST

START_TEST(muscle_passive_curve) {
  /* 0 up to L = 1, fpmax / 2 at b = 1.3, then linear with slope fpmax / (b - 1) */
  ck_assert_double_eq(imp_muscle_bias(0.25, k_lr, 1, k_prm), 0);
  ck_assert_double_eq_tol(imp_muscle_bias(0.55, k_lr, 1, k_prm), -10 * 1.3 * 0.5, 1e-12);
  ck_assert_double_eq_tol(imp_muscle_bias(0.85, k_lr, 1, k_prm), -10 * 1.3 * (0.5 + 1), 1e-12);
  double below = imp_muscle_bias(0.55 - 1e-9, k_lr, 1, k_prm);
  double above = imp_muscle_bias(0.55 + 1e-9, k_lr, 1, k_prm);
  ck_assert_double_eq_tol(below, above, 1e-7);
}
END_TEST

/* activation: tau_act (0.5 + 1.5 act) rising, tau_deact / (0.5 + 1.5 act)
   falling, ctrl clamped to [0, 1]; tausmooth blends them within w/2 of
   c = act */
START_TEST(muscle_activation_time_constants) {
  const double p[3] = {0.01, 0.04, 0};
  ck_assert_double_eq_tol(imp_muscle_act_dot(1, 0.2, p), 0.8 / (0.01 * 0.8), 1e-9);
  ck_assert_double_eq_tol(imp_muscle_act_dot(0, 0.2, p), -0.2 / (0.04 / 0.8), 1e-9);
  ck_assert_double_eq(imp_muscle_act_dot(5, 0.2, p), imp_muscle_act_dot(1, 0.2, p));
  ck_assert_double_eq(imp_muscle_act_dot(-5, 0.2, p), imp_muscle_act_dot(0, 0.2, p));
  const double s[3] = {0.01, 0.04, 0.2};
  ck_assert_double_eq_tol(imp_muscle_act_dot(0.5, 0.2, s), imp_muscle_act_dot(0.5, 0.2, p), 1e-12);
  ck_assert_double_eq_tol(imp_muscle_act_dot(0.1, 0.3, s), imp_muscle_act_dot(0.1, 0.3, p), 1e-12);
  /* inside the band: between the two */
  double rise = 0.05 / (0.01 * (0.5 + 1.5 * 0.3)), fall = 0.05 / (0.04 / (0.5 + 1.5 * 0.3));
  double mid = imp_muscle_act_dot(0.35, 0.3, s);
  ck_assert_msg(mid < rise && mid > fall, "smoothed %g not between %g and %g", mid, fall, rise);
}
END_TEST

/* a muscle at its optimal length, fully active, at rest: force -F */
START_TEST(muscle_actuator_force_at_optimum) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody><body><joint name='x' type='slide'/>"
      "<geom size='0.1'/></body></worldbody><actuator><muscle joint='x' force='25' "
      "lengthrange='-0.3 0' range='0.75 1.05'/></actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  d->qpos[0] = -0.05; /* L = 0.75 + 0.25 */
  d->act[0] = 1;
  imp_forward(m, d);
  ck_assert_double_eq_tol(d->actuator_force[0], -25, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static Suite* activation_suite(void) {
  Suite* s = suite_create("activation");
  TCase* t = tcase_create("laws");
  tcase_add_test(t, filterexact_follows_exponential);
  tcase_add_test(t, filter_follows_euler_law);
  tcase_add_test(t, filter_under_rk4_is_fourth_order);
  tcase_add_test(t, integrator_integrates_and_clamps);
  tcase_add_test(t, force_is_gain_times_act);
  tcase_add_test(t, disabled_actuation_holds_act);
  tcase_add_test(t, implicit_differentiates_gain_times_act);
  tcase_add_test(t, muscle_length_and_velocity_curves);
  tcase_add_test(t, muscle_passive_curve);
  tcase_add_test(t, muscle_activation_time_constants);
  tcase_add_test(t, muscle_actuator_force_at_optimum);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(activation_suite()); }
