/* A damped spring on a slide joint (models/slider_spring.xml): stiffness k,
 * damping c, rest position springref x_r, mass m (the body's; no armature):
 *
 *   m x'' = -k (x - x_r) - c x'
 *   x(t) = x_r + A exp(-zeta t) cos(omega_d t + phi),
 *   zeta = c / (2m),  omega_d = sqrt(k/m - zeta^2).
 *
 * Released from rest at x = 0.35 (keyframe "stretched") with h = 1e-4, the
 * crossings of x_r give the damped period 2 pi / omega_d, and successive
 * extremes of the same sign shrink by exp(-zeta 2 pi / omega_d). The
 * numerical errors (implicit damping and semi-implicit Euler) are O(zeta h)
 * and O((omega h)^2), ~1e-5 here (measured: 1.0e-5 on the period, 2.5e-5
 * on the decay rate), so we ask for 1e-4 and 1e-3. */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdio.h>

#include "engine.h"
#include "test_util.h"

START_TEST(test_damped_spring_frequency) {
  imp_model* m = imp_test_load_model("slider_spring.xml");
  imp_data* d = imp_make_data(m);
  int j = imp_test_id(m, IMP_OBJ_JOINT, "slide");
  ck_assert_int_eq(m->jnt_type[j], IMP_JNT_SLIDE);
  int b = m->jnt_bodyid[j], dof = m->jnt_dofadr[j], qa = m->jnt_qposadr[j];
  double k = m->jnt_stiffness[j], c = m->dof_damping[dof], xr = m->qpos_spring[qa];
  double mass = m->body_mass[b] + m->dof_armature[dof];
  imp_assert_near(k, 40, 1e-12);
  imp_assert_near(c, 0.4, 1e-12);
  imp_assert_near(xr, 0.1, 1e-12);
  imp_assert_near(mass, 1, 1e-12);
  double zeta = c / (2 * mass), wd = sqrt(k / mass - zeta * zeta);

  m->opt.timestep = 1e-4;
  imp_reset_data_keyframe(m, d, imp_test_id(m, IMP_OBJ_KEY, "stretched"));
  ck_assert_double_eq_tol(d->qpos[qa], 0.35, 1e-12);
  double prev = d->qpos[qa] - xr, tprev = 0, first = -1, last = -1;
  double ext[64], text[64]; /* extremes of x - x_r and their times */
  int ncross = 0, next = 0;
  double vprev = d->qvel[dof];
  for (int i = 0; i < 100000; i++) { /* 10 s */
    imp_step(m, d);
    double x = d->qpos[qa] - xr, v = d->qvel[dof];
    if ((prev > 0 && x <= 0) || (prev < 0 && x >= 0)) {
      double tc = tprev + (d->time - tprev) * prev / (prev - x);
      if (ncross == 0) first = tc;
      last = tc;
      ncross++;
    }
    if (i > 0 && ((vprev > 0 && v <= 0) || (vprev < 0 && v >= 0)) && next < 64) {
      ext[next] = x;
      text[next++] = d->time;
    }
    prev = x;
    vprev = v;
    tprev = d->time;
  }
  double T = 2 * (last - first) / (ncross - 1), T0 = 2 * M_PI / wd;
  /* decay: log ratio of maxima two extremes apart (one period) */
  ck_assert_msg(next >= 6, "only %d extremes", next);
  double rate = log(fabs(ext[0] / ext[next - 1])) / (text[next - 1] - text[0]);
  printf("slider spring: damped period %.9f s (analytic %.9f), rel error %.2e; decay rate "
         "%.6f (analytic %.6f) over %d crossings\n",
         T, T0, fabs(T - T0) / T0, rate, zeta, ncross);
  imp_assert_rel(T, T0, 1e-4);
  imp_assert_rel(rate, zeta, 1e-3);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Without damping the spring swings about springref at sqrt(k/m), and the
   spring force is -k (x - springref) from the first step: the initial
   acceleration is exact. */
START_TEST(test_spring_initial_acceleration) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option timestep='0.001'><flag contact='disable'/></option><worldbody>"
      "<body><joint name='s' type='slide' axis='0 0 1' stiffness='25' springref='-0.2'/>"
      "<geom type='sphere' size='0.1' mass='2'/></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  d->qpos[0] = 0.3;
  imp_forward(m, d);
  /* m a = -k (x - x_r) - m g */
  double a = (-25 * (0.3 - (-0.2)) - 2 * 9.81) / 2;
  imp_assert_near(d->qacc[0], a, 1e-12);
  imp_assert_near(d->qfrc_passive[0], -25 * 0.5, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("physics_spring");
  TCase* tc = tcase_create("spring");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_damped_spring_frequency);
  tcase_add_test(tc, test_spring_initial_acceleration);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
