#define _DEFAULT_SOURCE /* M_PI */
/* The small-angle period of a physical pendulum on a hinge.
 *
 * A rigid body of mass m swinging about a horizontal axis through the pivot
 * p, with its centre of mass c at distance d from the axis and moment of
 * inertia I_p about that axis, oscillates for small angles with
 *
 *   T = 2 pi sqrt(I_p / (m g d)),   I_p = I_c,axis + m d^2 + armature,
 *
 * and I_c,axis = sum_k I_k (a . e_k)^2 over the principal moments I_k and
 * axes e_k. Everything comes from the loaded model (body_mass, body_inertia,
 * and the world frames of a forward pass), so the test checks the loader's
 * mass properties and the dynamics together. At amplitude theta0 = 0.01 rad
 * the finite-amplitude correction is T = T0 (1 + theta0^2/16 + ...), 6.25e-6,
 * which we include; what is left is the semi-implicit Euler frequency error
 * at h = 1e-4, (omega h)^2/24 ~ 1e-8, and the crossing interpolation. We ask
 * for 1e-5 relative (measured: ~1e-8; the uncorrected error is 6.24e-6, so
 * the test does see the amplitude correction). */
#include <math.h>
#include <stdio.h>

#include "engine.h"
#include "test_util.h"

/* a capsule rod and a ball hanging from a hinge about y */
static const char* k_simple =
    "<mujoco model='simple'>"
    "  <option timestep='1e-4'><flag contact='disable'/></option>"
    "  <worldbody>"
    "    <body name='pole' pos='0 0 1'>"
    "      <joint name='hinge' type='hinge' axis='0 1 0'/>"
    "      <geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.02' density='1000'/>"
    "      <geom type='sphere' pos='0 0 -0.5' size='0.05' density='1000'/>"
    "    </body>"
    "  </worldbody>"
    "</mujoco>";

/* a body turned about z, the hinge about its x axis above the body origin,
   an ellipsoid bob (anisotropic inertia) and armature on the joint */
static const char* k_offset =
    "<mujoco model='offset'>"
    "  <compiler angle='degree'/>"
    "  <option timestep='1e-4'><flag contact='disable'/></option>"
    "  <worldbody>"
    "    <body name='pole' pos='0.2 -0.1 1.2' euler='0 0 30'>"
    "      <joint name='hinge' type='hinge' pos='0 0 0.1' axis='1 0 0' armature='0.002'/>"
    "      <geom type='capsule' fromto='0 0 0.1 0 0 -0.4' size='0.015' mass='0.2'/>"
    "      <geom type='ellipsoid' pos='0 0 -0.45' size='0.03 0.09 0.06' mass='1.5'/>"
    "    </body>"
    "  </worldbody>"
    "</mujoco>";

/* The analytic small-angle period of the single-hinge model m at qpos = 0. */
static double analytic_period(const imp_model* m, imp_data* d) {
  imp_reset_data(m, d);
  imp_forward(m, d);
  int j = 0, b = m->jnt_bodyid[j];
  const double* a = d->xaxis + 3 * j;
  const double* p = d->xanchor + 3 * j;
  const double* c = d->xipos + 3 * b;
  const double* R = d->ximat + 9 * b;
  double Ic = 0;
  for (int k = 0; k < 3; k++) {
    double ak = a[0] * R[k] + a[1] * R[3 + k] + a[2] * R[6 + k]; /* a . column k */
    Ic += m->body_inertia[3 * b + k] * ak * ak;
  }
  double r[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
  double ra = r[0] * a[0] + r[1] * a[1] + r[2] * a[2];
  double dperp2 = 0;
  for (int k = 0; k < 3; k++) dperp2 += (r[k] - ra * a[k]) * (r[k] - ra * a[k]);
  double mass = m->body_mass[b];
  double Ip = Ic + mass * dperp2 + m->dof_armature[m->jnt_dofadr[j]];
  double ga = m->opt.gravity[0] * a[0] + m->opt.gravity[1] * a[1] + m->opt.gravity[2] * a[2];
  double gperp = 0;
  for (int k = 0; k < 3; k++) {
    double gk = m->opt.gravity[k] - ga * a[k];
    gperp += gk * gk;
  }
  gperp = sqrt(gperp);
  return 2 * M_PI * sqrt(Ip / (mass * gperp * sqrt(dperp2)));
}

/* The measured period: release from amplitude theta0, average the spacing of
   the zero crossings (each a linear interpolation between steps). */
static double measured_period(const imp_model* m, imp_data* d, double theta0, double T,
                              int* ncross) {
  imp_reset_data(m, d);
  d->qpos[0] = theta0;
  double h = m->opt.timestep, first = -1, last = -1;
  int n = (int)(T / h + 0.5), count = 0;
  double prev = d->qpos[0], tprev = d->time;
  for (int i = 0; i < n; i++) {
    imp_step(m, d);
    double q = d->qpos[0];
    if ((prev > 0 && q <= 0) || (prev < 0 && q >= 0)) {
      double tc = tprev + (d->time - tprev) * prev / (prev - q);
      if (count == 0) first = tc;
      last = tc;
      count++;
    }
    prev = q;
    tprev = d->time;
  }
  *ncross = count;
  return count >= 2 ? 2 * (last - first) / (count - 1) : NAN;
}

static void check_period(const char* xml, const char* label) {
  imp_model* m = imp_test_load_string_nowarn(xml);
  ck_assert_int_eq(m->nq, 1);
  ck_assert_int_eq(m->jnt_type[0], IMP_JNT_HINGE);
  imp_data* d = imp_make_data(m);
  const double theta0 = 0.01;
  double T0 = analytic_period(m, d) * (1 + theta0 * theta0 / 16);
  int ncross = 0;
  double T = measured_period(m, d, theta0, 10.0, &ncross);
  printf("pendulum %s: analytic period %.9f s, measured %.9f s over %d crossings, "
         "relative error %.2e\n",
         label, T0, T, ncross, fabs(T - T0) / T0);
  ck_assert_msg(ncross >= 8, "only %d zero crossings in 10 s (analytic period %g)", ncross, T0);
  imp_assert_rel(T, T0, 1e-5);
  /* no damping: the amplitude stays (semi-implicit Euler keeps it to O(h)) */
  ck_assert_msg(fabs(d->qpos[0]) <= 0.0101, "amplitude grew: |q| = %g", fabs(d->qpos[0]));
  imp_free_data(d);
  imp_free_model(m);
}

START_TEST(test_simple_pendulum_period) { check_period(k_simple, "simple"); }
END_TEST

START_TEST(test_offset_pendulum_period) { check_period(k_offset, "offset"); }
END_TEST

/* The light damping of models/pendulum.xml makes the swing decay, and the
   released pendulum keeps swinging on the side of its start. */
START_TEST(test_model_pendulum_decays) {
  imp_model* m = imp_test_load_model("pendulum.xml");
  imp_data* d = imp_make_data(m);
  int key = imp_test_id(m, IMP_OBJ_KEY, "release");
  imp_reset_data_keyframe(m, d, key);
  double q0 = d->qpos[0], qmax_late = 0;
  imp_assert_near(q0, M_PI / 4, 1e-12);
  for (int i = 0; i < 20000; i++) {
    imp_step(m, d);
    if (i >= 15000 && fabs(d->qpos[0]) > qmax_late) qmax_late = fabs(d->qpos[0]);
  }
  printf("pendulum.xml: amplitude %.4f after 15-20 s (start %.4f)\n", qmax_late, q0);
  ck_assert_msg(qmax_late < q0 && qmax_late > 0.3 * q0,
                "amplitude %g after 15 s: expected a slow decay from %g", qmax_late, q0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("physics_pendulum");
  TCase* tc = tcase_create("period");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_simple_pendulum_period);
  tcase_add_test(tc, test_offset_pendulum_period);
  tcase_add_test(tc, test_model_pendulum_decays);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
