/* A torque-free rigid body: models/tennis_racket.xml (gravity disabled,
 * spun about its intermediate principal axis from the keyframe "spin").
 *
 * The angular momentum about the centre of mass in the world frame,
 *   L = R_i diag(I) R_i' w,   w = R qvel[3:6]  (the free joint's angular
 * velocity is in the body frame; R_i = ximat, the principal axes in world),
 * is conserved by the exact dynamics; the linear momentum too (the centre of
 * mass is the body origin and starts at rest).
 *
 * Semi-implicit Euler integrates the gyroscopic term w x I w explicitly, so
 * |L| is not conserved exactly: it changes at first order in h. Measured
 * with MuJoCo 2.2.2's Euler on this model over 5 s (through two flips):
 *   h = 1e-3: max |L - L0| / |L0| = 2.17e-2;  h = 1e-4: 2.14e-3
 * A tolerance of 1e-6 would need h ~ 1e-7. The bounds leave a factor of
 * about two, and the convergence test asks for 6 < ratio < 16 per decade.
 * The quaternion is advanced through the exponential map, so its norm stays
 * 1 to rounding (MuJoCo: 2.2e-16); we ask for 1e-12. */
#include <math.h>
#include <stdio.h>

#include "engine.h"
#include "test_util.h"

/* World angular momentum about the com of body b at the current state. */
static void angular_momentum(const imp_model* m, imp_data* d, int b, double L[3]) {
  imp_forward(m, d);
  const double* R = d->xmat + 9 * b;
  const double* Ri = d->ximat + 9 * b;
  const double* wb = d->qvel + m->jnt_dofadr[m->body_jntadr[b]] + 3;
  double w[3], wp[3];
  for (int i = 0; i < 3; i++) w[i] = R[3 * i] * wb[0] + R[3 * i + 1] * wb[1] + R[3 * i + 2] * wb[2];
  for (int k = 0; k < 3; k++) /* R_i' w, scaled by the principal moments */
    wp[k] = m->body_inertia[3 * b + k] * (Ri[k] * w[0] + Ri[3 + k] * w[1] + Ri[6 + k] * w[2]);
  for (int i = 0; i < 3; i++)
    L[i] = Ri[3 * i] * wp[0] + Ri[3 * i + 1] * wp[1] + Ri[3 * i + 2] * wp[2];
}

typedef struct racket_run {
  double dL;      /* max |L - L0| / |L0| */
  double dquat;   /* max | |q| - 1 | */
  double vlin;    /* max |linear velocity| */
  double wy_min;  /* smallest body-y angular velocity: negative after a flip */
} racket_run;

static racket_run run_racket(imp_model* m, imp_data* d, double h, double T) {
  racket_run r = {0, 0, 0, 1e300};
  m->opt.timestep = h;
  imp_reset_data_keyframe(m, d, imp_test_id(m, IMP_OBJ_KEY, "spin"));
  int b = imp_test_id(m, IMP_OBJ_BODY, "racket");
  ck_assert_int_eq(m->jnt_type[m->body_jntadr[b]], IMP_JNT_FREE);
  double L0[3], L[3];
  angular_momentum(m, d, b, L0);
  double nL0 = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
  int n = (int)(T / h + 0.5), every = n / 2000 > 0 ? n / 2000 : 1;
  for (int i = 1; i <= n; i++) {
    imp_step(m, d);
    const double* q = d->qpos + 3;
    double qn = fabs(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1);
    if (!(qn <= r.dquat)) r.dquat = qn;
    double v = sqrt(d->qvel[0] * d->qvel[0] + d->qvel[1] * d->qvel[1] + d->qvel[2] * d->qvel[2]);
    if (!(v <= r.vlin)) r.vlin = v;
    if (d->qvel[4] < r.wy_min) r.wy_min = d->qvel[4];
    if (i % every == 0 || i == n) {
      angular_momentum(m, d, b, L);
      double e = sqrt((L[0] - L0[0]) * (L[0] - L0[0]) + (L[1] - L0[1]) * (L[1] - L0[1]) +
                      (L[2] - L0[2]) * (L[2] - L0[2])) / nL0;
      if (!(e <= r.dL)) r.dL = e;
    }
  }
  return r;
}

START_TEST(test_racket_flips_and_conserves) {
  imp_model* m = imp_test_load_model("tennis_racket.xml");
  imp_data* d = imp_make_data(m);
  ck_assert_msg(m->opt.disableflags & IMP_DSBL_GRAVITY, "gravity should be disabled");
  racket_run r = run_racket(m, d, 1e-4, 5.0);
  printf("tennis racket, 5 s at h = 1e-4: max |L - L0|/|L0| = %.3e (MuJoCo 2.2.2: 2.14e-3), "
         "max ||q| - 1| = %.1e, max |v_lin| = %.1e, min w_y = %.3f\n",
         r.dL, r.dquat, r.vlin, r.wy_min);
  ck_assert_msg(r.wy_min < -9, "the racket did not flip: smallest w_y = %g (starts at 10)",
                r.wy_min);
  ck_assert_msg(r.dL < 5e-3, "angular momentum changed by %.3e (bound 5e-3)", r.dL);
  ck_assert_msg(r.dquat < 1e-12, "quaternion norm off by %.3e", r.dquat);
  ck_assert_msg(r.vlin < 1e-9, "the centre of mass started moving: |v| = %.3e", r.vlin);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(test_racket_first_order) {
  imp_model* m = imp_test_load_model("tennis_racket.xml");
  imp_data* d = imp_make_data(m);
  racket_run r3 = run_racket(m, d, 1e-3, 5.0);
  racket_run r4 = run_racket(m, d, 1e-4, 5.0);
  double ratio = r3.dL / r4.dL;
  printf("tennis racket: |L| error %.3e at h = 1e-3, %.3e at h = 1e-4, ratio %.2f\n", r3.dL,
         r4.dL, ratio);
  ck_assert_msg(r3.dL < 5e-2, "angular momentum changed by %.3e at h = 1e-3", r3.dL);
  ck_assert_msg(ratio > 6 && ratio < 16, "not first order: ratio %g", ratio);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Without a perturbation, a spin about the largest or the smallest axis is
   a stable steady state: w stays where it was to rounding. */
START_TEST(test_principal_spin_steady) {
  imp_model* m = imp_test_load_model("tennis_racket.xml");
  imp_data* d = imp_make_data(m);
  imp_reset_data(m, d);
  d->qvel[3] = 7; /* about the handle: body x, a principal axis by symmetry */
  for (int i = 0; i < 3000; i++) imp_step(m, d);
  double w[3] = {d->qvel[3], d->qvel[4], d->qvel[5]};
  double expect[3] = {7, 0, 0};
  imp_assert_vec_near(w, expect, 3, 1e-9);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("physics_free_body");
  TCase* tc = tcase_create("torque_free");
  tcase_set_timeout(tc, 200);
  tcase_add_test(tc, test_racket_flips_and_conserves);
  tcase_add_test(tc, test_racket_first_order);
  tcase_add_test(tc, test_principal_spin_steady);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
