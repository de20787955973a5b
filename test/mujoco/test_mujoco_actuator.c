/* Differential tests of actuator dynamics against MuJoCo 2.2.2 (built only
 * when libmujoco-dev is found): activations (filter, integrator with
 * actrange, cylinder, muscles with an explicit lengthrange, one scaled by
 * acc0) on a contact-free chain of hinges and a slider, from a keyframe's
 * act, ctrl held at a fixed pattern (some muscle controls outside [0, 1]),
 * stepped by Euler, implicit and RK4: qpos, qvel and act must agree.
 *
 * 2.2.2 requires the actuators with a state after the stateless ones (its
 * act index is i - (nu - na)); it has no filterexact or actearly (MuJoCo
 * 3.x), which test_activation.c checks by their laws. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mj_pair.h"
#include "test_util.h"

/* %s: the integrator */
static const char* k_model =
    "<mujoco model='actuator_dynamics'>\n"
    "  <compiler autolimits='true'/>\n"
    "  <option timestep='0.002' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1'>\n"
    "      <joint name='a' type='hinge' axis='0 1 0' damping='0.1'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.04'/>\n"
    "      <body pos='0.4 0 0'>\n"
    "        <joint name='b' type='hinge' axis='0 1 0' armature='0.01'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>\n"
    "        <body pos='0.3 0 0'>\n"
    "          <joint name='c' type='slide' axis='1 0 0.2' damping='0.5'/>\n"
    "          <geom type='box' size='0.05 0.04 0.03'/>\n"
    "          <body pos='0 0 -0.1'>\n"
    "            <joint name='d' type='hinge' axis='1 0 0'/>\n"
    "            <geom type='sphere' size='0.04' pos='0 0.02 -0.1'/>\n"
    "          </body>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <motor joint='a' gear='2'/>\n"
    "    <general name='filter' joint='a' dyntype='filter' dynprm='0.05' gainprm='3'/>\n"
    "    <general name='integrator' joint='b' dyntype='integrator' gainprm='20'\n"
    "             biastype='affine' biasprm='0 -20 -1' actrange='-0.5 0.5'/>\n"
    "    <cylinder name='cylinder' joint='c' timeconst='0.1' area='0.5' bias='0.1 -2 -0.3'/>\n"
    "    <muscle name='muscle_scaled' joint='b' gear='0.5' lengthrange='-1 1'/>\n"
    "    <muscle name='muscle' joint='d' lengthrange='-0.8 0.9' timeconst='0.02 0.05'\n"
    "            force='4' range='0.6 1.2' lmin='0.4' lmax='1.7' vmax='2' fpmax='1.5'\n"
    "            fvmax='1.4'/>\n"
    "  </actuator>\n"
    "  <keyframe>\n"
    "    <key qpos='0.3 -0.4 0.05 0.6' qvel='1 -2 0.5 3' act='0.5 0.2 -0.4 0.3 0.9'/>\n"
    "  </keyframe>\n"
    "</mujoco>\n";

/* Tendon transmissions: a muscle on a spatial tendon over two hinges
   (through sites, explicit lengthrange), a filter on a fixed tendon, and a
   muscle whose lengthrange MuJoCo's simulation finds on a fixed tendon of
   limited joints (the limits are then disabled for the run: contact-free
   and limit-free, the smooth dynamics are compared). The run keeps every
   muscle's normalized length above lmin: below it MuJoCo 2.2.2's
   force-length curve goes negative (its first branch tests L >= lmin, the
   next only L <= 1), where 3.x and the documentation, as we do, give 0.
   %s: the integrator. */
static const char* k_tendon_model =
    "<mujoco model='actuator_tendons'>\n"
    "  <compiler autolimits='true' angle='radian'/>\n"
    "  <option timestep='0.002' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <site name='s0' pos='0 0 1.1'/>\n"
    "    <body pos='0 0 1'>\n"
    "      <joint name='a' type='hinge' axis='0 1 0' range='-1.5 1.5' damping='0.3'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.04'/>\n"
    "      <site name='s1' pos='0.2 0 0.05'/>\n"
    "      <body pos='0.4 0 0'>\n"
    "        <joint name='b' type='hinge' axis='0 1 0' range='-2 1' damping='0.3'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>\n"
    "        <site name='s2' pos='0.15 0 0.04'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <tendon>\n"
    "    <spatial name='path'><site site='s0'/><site site='s1'/><site site='s2'/></spatial>\n"
    "    <fixed name='sum'><joint joint='a' coef='1'/><joint joint='b' coef='0.5'/></fixed>\n"
    "  </tendon>\n"
    "  <actuator>\n"
    "    <motor joint='b' gear='0.3'/>\n"
    "    <muscle name='path_muscle' tendon='path' lengthrange='0.3 0.8' force='20'/>\n"
    "    <general name='sum_filter' tendon='sum' dyntype='filter' dynprm='0.04' gainprm='2'/>\n"
    "    <muscle name='sum_muscle' tendon='sum' timeconst='0.02 0.05'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

/* held controls: the integrator's runs its act into actrange's upper end,
   the muscles' first is above 1 (clamped), the second deactivates */
static const double k_ctrl[6] = {0.7, -1.5, 0.8, 2.0, 1.3, 0.1};

static const char* const k_integrators[] = {"Euler", "implicit", "RK4"};

START_TEST(test_actuator_dynamics_trajectory) {
  const char* integ = k_integrators[_i];
  pair p;
  mjp_load_integrator(&p, "mjactuator", k_model, integ);
  ck_assert_int_eq(p.m->nu, p.mm->nu);
  ck_assert_int_eq(p.m->na, p.mm->na);
  ck_assert_int_eq(p.m->na, 5);
  /* the compiled constants the forces depend on */
  for (int u = 0; u < p.m->nu; u++) {
    ck_assert_double_eq_tol(p.m->actuator_acc0[u], p.mm->actuator_acc0[u],
                            1e-12 * p.mm->actuator_acc0[u]);
    ck_assert_int_eq(p.m->actuator_dyntype[u] == IMP_DYN_MUSCLE,
                     p.mm->actuator_dyntype[u] == mjDYN_MUSCLE);
    for (int k = 0; k < 9; k++) {
      ck_assert_double_eq(p.m->actuator_gainprm[IMP_NGAIN * u + k], p.mm->actuator_gainprm[mjNGAIN * u + k]);
      ck_assert_double_eq(p.m->actuator_biasprm[IMP_NGAIN * u + k], p.mm->actuator_biasprm[mjNBIAS * u + k]);
      ck_assert_double_eq(p.m->actuator_dynprm[IMP_NGAIN * u + k], p.mm->actuator_dynprm[mjNDYN * u + k]);
    }
  }
  imp_reset_data_keyframe(p.m, p.d, 0);
  mj_resetDataKeyframe(p.mm, p.md, 0);
  ck_assert_double_eq(imp_max_abs_diff(p.d->act, p.md->act, p.m->na), 0);
  for (int u = 0; u < p.m->nu; u++) p.d->ctrl[u] = p.md->ctrl[u] = k_ctrl[u];
  double dq = 0, dv = 0, da = 0, df = 0, vmax = 0, amin = 1e300, amax = -1e300;
  for (int s = 0; s < 1000; s++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    dq = fmax(dq, imp_max_abs_diff(p.md->qpos, p.d->qpos, p.mm->nq));
    dv = fmax(dv, imp_max_abs_diff(p.md->qvel, p.d->qvel, p.mm->nv));
    da = fmax(da, imp_max_abs_diff(p.md->act, p.d->act, p.mm->na));
    df = fmax(df, imp_max_abs_diff(p.md->actuator_force, p.d->actuator_force, p.mm->nu));
    for (int k = 0; k < p.mm->nv; k++) vmax = fmax(vmax, fabs(p.md->qvel[k]));
    for (int k = 0; k < p.mm->na; k++) {
      amin = fmin(amin, p.md->act[k]);
      amax = fmax(amax, p.md->act[k]);
    }
  }
  printf("actuator dynamics, %s: max dev over 1000 steps: qpos %.2e, qvel %.2e, act %.2e, "
         "actuator_force %.2e (max |qvel| %.3g, act in [%.3g, %.3g])\n",
         integ, dq, dv, da, df, vmax, amin, amax);
  fflush(stdout);
  ck_assert_int_eq(p.d->nwarning_nan, 0);
  /* the run exercised the clamp: the integrator's act reached actrange */
  ck_assert_double_eq_tol(p.d->act[1], 0.5, 1e-15);
  ck_assert_msg(dq < 1e-8 && dv < 1e-8 * fmax(1, vmax) && da < 1e-8,
                "%s: qpos dev %.3e, qvel dev %.3e, act dev %.3e", integ, dq, dv, da);
  mjp_free(&p);
}
END_TEST

START_TEST(test_actuator_dynamics_tendons) {
  const char* integ = k_integrators[_i];
  pair p;
  mjp_load_integrator(&p, "mjactuator_tendons", k_tendon_model, integ);
  ck_assert_int_eq(p.m->na, p.mm->na);
  double dlr = 0;
  for (int k = 0; k < 2 * p.m->nu; k++)
    dlr = fmax(dlr, fabs(p.m->actuator_lengthrange[k] - p.mm->actuator_lengthrange[k]));
  /* the simulated lengthrange differs by MuJoCo's soft limits: use its own
     so the trajectories can be compared */
  for (int k = 0; k < 2 * p.m->nu; k++) p.m->actuator_lengthrange[k] = p.mm->actuator_lengthrange[k];
  /* the limits found the lengthrange; stepping, they would be constraint
     rows, which the two solve differently */
  p.m->opt.disableflags |= IMP_DSBL_LIMIT;
  p.mm->opt.disableflags |= mjDSBL_LIMIT;
  for (int u = 0; u < p.m->nu; u++)
    ck_assert_double_eq_tol(p.m->actuator_acc0[u], p.mm->actuator_acc0[u],
                            1e-12 * p.mm->actuator_acc0[u]);
  static const double ctrl[4] = {0.4, 0.9, -0.7, 0.6};
  for (int u = 0; u < p.m->nu; u++) p.d->ctrl[u] = p.md->ctrl[u] = ctrl[u];
  for (int k = 0; k < p.m->nv; k++) p.d->qvel[k] = p.md->qvel[k] = 1.5 * cos(k + 0.3);
  double dq = 0, dv = 0, da = 0, vmax = 0, Lmin = 1e300;
  for (int s = 0; s < 1000; s++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    dq = fmax(dq, imp_max_abs_diff(p.md->qpos, p.d->qpos, p.mm->nq));
    dv = fmax(dv, imp_max_abs_diff(p.md->qvel, p.d->qvel, p.mm->nv));
    da = fmax(da, imp_max_abs_diff(p.md->act, p.d->act, p.mm->na));
    for (int k = 0; k < p.mm->nv; k++) vmax = fmax(vmax, fabs(p.md->qvel[k]));
    for (int u = 0; u < p.m->nu; u++) {
      if (p.m->actuator_gaintype[u] != IMP_GAIN_MUSCLE) continue;
      const double* g = p.m->actuator_gainprm + IMP_NGAIN * u;
      const double* lr = p.m->actuator_lengthrange + 2 * u;
      double L0 = (lr[1] - lr[0]) / (g[1] - g[0]);
      Lmin = fmin(Lmin, (g[0] + (p.d->actuator_length[u] - lr[0]) / L0) / g[4]);
    }
  }
  ck_assert_msg(Lmin > 1, "a muscle went below lmin (L / lmin %g): 2.2.2's curve differs there",
                Lmin);
  printf("actuator dynamics on tendons, %s: max dev over 1000 steps: qpos %.2e, qvel %.2e, act "
         "%.2e (max |qvel| %.3g; simulated lengthrange differs by %.2e)\n",
         integ, dq, dv, da, vmax, dlr);
  fflush(stdout);
  ck_assert_int_eq(p.d->nwarning_nan, 0);
  ck_assert_msg(dlr < 0.01, "lengthrange differs by %g", dlr);
  ck_assert_msg(dq < 1e-8 && dv < 1e-8 * fmax(1, vmax) && da < 1e-8,
                "%s: qpos dev %.3e, qvel dev %.3e, act dev %.3e", integ, dq, dv, da);
  mjp_free(&p);
}
END_TEST

/* The comparison sees the activations: ours with the muscles' act forced
   to 0 at the start departs from MuJoCo's. */
START_TEST(test_actuator_dynamics_act_matters) {
  (void)_i;
  char xml[8192], path[4096];
  snprintf(xml, sizeof xml, k_model, "Euler");
  mjp_write("mjactuator_act_matters", xml, path, sizeof path);
  pair p;
  mjp_load(&p, "act_matters", path, path);
  imp_reset_data_keyframe(p.m, p.d, 0);
  mj_resetDataKeyframe(p.mm, p.md, 0);
  p.d->act[3] = p.d->act[4] = 0;
  for (int u = 0; u < p.m->nu; u++) p.d->ctrl[u] = p.md->ctrl[u] = k_ctrl[u];
  mj_step(p.mm, p.md);
  imp_step(p.m, p.d);
  double dv = imp_max_abs_diff(p.md->qvel, p.d->qvel, p.mm->nv);
  printf("actuator dynamics: muscles' act zeroed: qvel dev %.2e after one step\n", dv);
  ck_assert_msg(dv > 1e-4, "muscle activations did not change the step (%.3e)", dv);
  mjp_free(&p);
}
END_TEST

/* A muscle without lengthrange on a limited hinge: both simulate to find
   it (MJCF compiler/lengthrange); MuJoCo's soft limit lets the joint past
   its range where ours stops at it, so the ends differ by that give, a
   small fraction of the range (0.04% here). */
START_TEST(test_lengthrange_simulation) {
  (void)_i;
  static const char* xml =
      "<mujoco><compiler angle='radian' autolimits='true'/><worldbody><body pos='0 0 1'>"
      "<joint name='h' axis='0 1 0' range='-0.6 0.9'/>"
      "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/></body></worldbody>"
      "<actuator><muscle joint='h' gear='1.5'/></actuator></mujoco>";
  char path[4096];
  mjp_write("mjactuator_lengthrange", xml, path, sizeof path);
  pair p;
  mjp_load(&p, "lengthrange", path, path);
  imp_test_no_warnings(p.m);
  const double* ours = p.m->actuator_lengthrange;
  const double* theirs = p.mm->actuator_lengthrange;
  double dev = fmax(fabs(ours[0] - theirs[0]), fabs(ours[1] - theirs[1]));
  printf("lengthrange by simulation: ours (%.6f, %.6f), MuJoCo 2.2.2 (%.6f, %.6f), joint range "
         "times gear (%.6f, %.6f)\n", ours[0], ours[1], theirs[0], theirs[1], -0.9, 1.35);
  ck_assert_double_eq_tol(ours[0], -0.9, 1e-7);
  ck_assert_double_eq_tol(ours[1], 1.35, 1e-7);
  ck_assert_msg(dev < 1e-3 * (1.35 + 0.9), "lengthrange differs by %g", dev);
  mjp_free(&p);
}
END_TEST

static Suite* actuator_suite(void) {
  Suite* s = suite_create("mujoco_actuator");
  TCase* tc = tcase_create("trajectories");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_actuator_dynamics_trajectory, 0, 3);
  tcase_add_loop_test(tc, test_actuator_dynamics_tendons, 0, 3);
  tcase_add_loop_test(tc, test_actuator_dynamics_act_matters, 0, 1);
  tcase_add_loop_test(tc, test_lengthrange_simulation, 0, 1);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(actuator_suite()); }
