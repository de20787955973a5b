/* Real-time pacing: the viewer simulates as much time as the wall clock
   times the speed, never more; a stall is not caught up in a burst; the
   meter reports frames per second and the achieved real-time factor. */
#include "pacing.h"
#include "test_util.h"

START_TEST(steps_follow_the_wall_clock) {
  imp_viewer_pacer p = {0};
  int total = 0;
  /* 60 frames of 1/60 s at real time with h = 2 ms: one second, 500 steps */
  for (int i = 0; i < 60; i++) total += imp_viewer_steps_due(&p, 1.0 / 60, 1.0, 0.002, 10000);
  ck_assert_int_ge(total, 499);
  ck_assert_int_le(total, 500);
  /* the remainder is carried, never lost or doubled */
  ck_assert(p.debt >= 0 && p.debt < 0.002);
}
END_TEST

START_TEST(slow_motion_scales_the_steps) {
  imp_viewer_pacer p = {0};
  int total = 0;
  for (int i = 0; i < 100; i++) total += imp_viewer_steps_due(&p, 0.01, 0.1, 0.001, 10000);
  ck_assert_int_ge(total, 99);
  ck_assert_int_le(total, 100); /* 1 s at 10%: 0.1 s of simulation */
}
END_TEST

START_TEST(never_ahead_of_the_clock) {
  imp_viewer_pacer p = {0};
  double wall = 0, sim = 0, h = 0.003;
  for (int i = 0; i < 1000; i++) {
    double dt = 0.001 * (1 + i % 17);
    wall += dt;
    sim += h * imp_viewer_steps_due(&p, dt, 0.5, h, 10000);
    ck_assert(sim <= 0.5 * wall + 1e-12);
  }
  ck_assert(sim > 0.5 * wall - h);
}
END_TEST

START_TEST(a_stall_is_not_caught_up) {
  imp_viewer_pacer p = {0};
  /* the window was dragged for 5 s: only one capped frame's worth is owed */
  int n = imp_viewer_steps_due(&p, 5.0, 1.0, 0.001, 10000);
  ck_assert_int_eq(n, (int)(IMP_VIEWER_MAX_FRAME / 0.001 + 0.5));
  /* more than maxsteps: take maxsteps and forget the rest */
  n = imp_viewer_steps_due(&p, 0.05, 1.0, 0.0001, 100);
  ck_assert_int_eq(n, 100);
  imp_assert_near(p.debt, 0, 0);
  ck_assert_int_eq(imp_viewer_steps_due(&p, 0, 1.0, 0.001, 100), 0);
  ck_assert_int_eq(imp_viewer_steps_due(&p, 0.1, 1.0, 0, 100), 0);
}
END_TEST

START_TEST(meter_reports_fps_and_realtime_factor) {
  imp_viewer_meter mt = {0};
  for (int i = 0; i < 30; i++) imp_viewer_meter_frame(&mt, 0.02, 0.01);
  imp_assert_near(mt.fps, 50, 1e-9);
  imp_assert_near(mt.rtf, 0.5, 1e-9);
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_pacing");
  TCase* tc = tcase_create("viewer_pacing");
  tcase_add_test(tc, steps_follow_the_wall_clock);
  tcase_add_test(tc, slow_motion_scales_the_steps);
  tcase_add_test(tc, never_ahead_of_the_clock);
  tcase_add_test(tc, a_stall_is_not_caught_up);
  tcase_add_test(tc, meter_reports_fps_and_realtime_factor);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
