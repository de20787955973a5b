/* Falling under gravity, exactly. With constant acceleration -g along z,
 * semi-implicit Euler (v += h a, then x += h v) gives in closed form
 *
 *   v_n = v_0 - g n h,   x_n = x_0 + v_0 n h - g h^2 n (n + 1) / 2,
 *
 * so the simulation must match to rounding: 1e-12 over 1000 steps (MuJoCo
 * 2.2.2 stays within 1.3e-13 in x and 4.4e-13 in v over 2000 steps).
 * A slide joint (models/slider_fall.xml) and a free body that does not spin
 * (models/free_fall.xml from qpos0, its centre of mass off the body origin)
 * must both do it; the free body keeps its orientation. */
#include <math.h>
#include <stdio.h>

#include "engine.h"
#include "test_util.h"

/* Step n times and compare coordinate iq / velocity iv with the formula. */
static void check_fall(imp_model* m, imp_data* d, int iq, int iv, int n, double* ex,
                       double* ev) {
  double g = -m->opt.gravity[2], h = m->opt.timestep;
  double x0 = d->qpos[iq], v0 = d->qvel[iv];
  *ex = *ev = 0;
  for (int k = 1; k <= n; k++) {
    imp_step(m, d);
    double v = v0 - g * k * h, x = x0 + v0 * k * h - g * h * h * k * (k + 1) / 2.0;
    double e1 = fabs(d->qpos[iq] - x), e2 = fabs(d->qvel[iv] - v);
    if (!(e1 <= *ex)) *ex = e1;
    if (!(e2 <= *ev)) *ev = e2;
  }
}

START_TEST(test_slider_fall_exact) {
  imp_model* m = imp_test_load_model("slider_fall.xml");
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nq, 1);
  ck_assert_int_eq(m->jnt_type[0], IMP_JNT_SLIDE);
  double ex, ev;
  check_fall(m, d, 0, 0, 1000, &ex, &ev);
  printf("slider fall, 1000 steps: max |x - x_n| = %.2e, max |v - v_n| = %.2e\n", ex, ev);
  ck_assert_msg(ex < 1e-12 && ev < 1e-12, "slider fall: x off by %.3e, v by %.3e", ex, ev);
  imp_assert_near(d->time, 1000 * m->opt.timestep, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(test_slider_fall_thrown_up) {
  imp_model* m = imp_test_load_model("slider_fall.xml");
  imp_data* d = imp_make_data(m);
  m->opt.timestep = 0.0005;
  d->qpos[0] = 0.25;
  d->qvel[0] = 3.0;
  double ex, ev;
  check_fall(m, d, 0, 0, 1000, &ex, &ev);
  printf("slider thrown up, 1000 steps: max |x - x_n| = %.2e, max |v - v_n| = %.2e\n", ex, ev);
  ck_assert_msg(ex < 1e-12 && ev < 1e-12, "slider thrown up: x off by %.3e, v by %.3e", ex, ev);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(test_free_body_fall_exact) {
  imp_model* m = imp_test_load_model("free_fall.xml");
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nq, 7);
  ck_assert_int_eq(m->jnt_type[0], IMP_JNT_FREE);
  double q0[7];
  for (int i = 0; i < 7; i++) q0[i] = d->qpos[i];
  double ex, ev;
  check_fall(m, d, 2, 2, 1000, &ex, &ev);
  printf("free body fall, 1000 steps: max |z - z_n| = %.2e, max |vz - v_n| = %.2e\n", ex, ev);
  ck_assert_msg(ex < 1e-12 && ev < 1e-12, "free fall: z off by %.3e, vz by %.3e", ex, ev);
  /* no horizontal motion and no rotation */
  double q[7], dq0[7];
  for (int i = 0; i < 7; i++) q[i] = d->qpos[i], dq0[i] = q0[i];
  q[2] = dq0[2] = 0;
  imp_assert_vec_near(q, dq0, 7, 1e-12);
  double w[5] = {d->qvel[0], d->qvel[1], d->qvel[3], d->qvel[4], d->qvel[5]};
  double zero[5] = {0, 0, 0, 0, 0};
  imp_assert_vec_near(w, zero, 5, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("physics_falling");
  TCase* tc = tcase_create("exact");
  tcase_add_test(tc, test_slider_fall_exact);
  tcase_add_test(tc, test_slider_fall_thrown_up);
  tcase_add_test(tc, test_free_body_fall_exact);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
