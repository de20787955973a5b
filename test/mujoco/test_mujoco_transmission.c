/* Differential tests of actuator transmissions against MuJoCo 2.2.2 (built
 * only when libmujoco-dev is found): site transmissions (a 6D wrench at a
 * rotated site on a free body; a servo and a damper with a refsite fixed in
 * the world), joint and jointinparent on ball and free joints, and the
 * forward and backward slider-cranks of MuJoCo's slider_crank.xml, on a
 * contact-free model with fixed nonzero controls, stepped by Euler,
 * implicit and RK4: qpos, qvel, actuator_length, _velocity, _force and the
 * moments must agree over 1000 steps.
 *
 * Where we depart from 2.2.2 the model keeps out of it (transmission.c):
 * the refsite is static (its motion's frame rotation is in our gradient,
 * not in 2.2.2's), and the site measured in rotation against it has the
 * identity orientation in its body (2.2.2 composes site_quat * xquat, the
 * reverse of the site's world orientation xquat * site_quat).
 *
 * Adhesion: a sphere hovering in the gap layer of a plane (margin and gap
 * 0.05: the contact exists, neither simulator applies a contact force)
 * pulled down by adhesion; both move the same until it touches. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mathx.h"
#include "mj_pair.h"
#include "test_util.h"

/* %s: the integrator */
static const char* k_model =
    "<mujoco model='transmissions'>\n"
    "  <compiler autolimits='true' angle='radian'/>\n"
    "  <option timestep='0.002' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <site name='ref' pos='0.1 -0.2 1.2' euler='0.3 -0.2 0.5'/>\n"
    "    <body name='quad' pos='0 0 1'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.1 0.08 0.02' mass='0.5'/>\n"
    "      <site name='rotor' pos='0.07 -0.05 0.02' euler='0.2 0.1 -0.4'/>\n"
    "    </body>\n"
    "    <body name='arm' pos='0 1 1'>\n"
    "      <joint name='a1' axis='0 0 1' damping='0.2'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>\n"
    "      <body pos='0.3 0 0'>\n"
    "        <joint name='a2' axis='0 1 0' damping='0.2'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.2 0 0.1' size='0.025'/>\n"
    "        <site name='tip' pos='0.2 0 0.1'/>\n"
    "        <site name='tip2' pos='0.2 0.02 0.1' euler='0.4 0.3 0.2'/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='ballbody' pos='1 0 1'>\n"
    "      <joint name='ball' type='ball' damping='0.05'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.1 0.2 -0.3' size='0.03'/>\n"
    "    </body>\n"
    "    <body name='floater' pos='-1 0 1' euler='0.3 0.2 0.1'>\n"
    "      <joint name='free2' type='free'/>\n"
    "      <geom type='box' size='0.05 0.1 0.15'/>\n"
    "    </body>\n"
    "    <site name='slidersite' pos='2 -0.1 0' zaxis='1 0.5 0'/>\n"
    "    <body pos='2 0 0'>\n"
    "      <joint damping='0.1'/>\n"
    "      <geom type='capsule' size='0.01' fromto='0 0 0 0.2 0 0'/>\n"
    "      <site name='cranksite' pos='0.1 0 0'/>\n"
    "      <site name='cranksite2' pos='0.2 0 0'/>\n"
    "      <body pos='0.15 0 0'>\n"
    "        <joint damping='0.1'/>\n"
    "        <geom type='capsule' size='0.01' fromto='0 -0.15 0 0 0 0'/>\n"
    "        <site name='slidersite2' pos='0.02 -0.1 0' zaxis='1 2 0'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <motor name='thrust' site='rotor' gear='0.3 -0.2 1 0.05 0.02 -0.1'/>\n"
    "    <position name='reach' site='tip' refsite='ref' gear='0.2 1 0.3 0 0 0' kp='5'/>\n"
    "    <velocity name='reachdamp' site='tip2' refsite='ref' gear='0 0 1 0 0 0' kv='0.5'/>\n"
    "    <position name='twist' site='tip' refsite='ref' gear='0 0 0 0 0.3 1' kp='2'/>\n"
    "    <motor name='ballmotor' joint='ball' gear='0.3 -0.2 0.5'/>\n"
    "    <motor name='ballparent' jointinparent='ball' gear='0.1 0.4 -0.3'/>\n"
    "    <position name='ballservo' joint='ball' gear='0 0 1' kp='0.3'/>\n"
    "    <motor name='freemotor' joint='free2' gear='1 0.5 0 0.2 0 0.3'/>\n"
    "    <motor name='freeparent' jointinparent='free2' gear='0 0 1 0.3 -0.2 0.1'/>\n"
    "    <position name='forward' cranksite='cranksite' slidersite='slidersite' cranklength='.08'\n"
    "              kp='3' gear='1.5'/>\n"
    "    <position name='backward' cranksite='cranksite2' slidersite='slidersite2'\n"
    "              cranklength='.06' kp='3'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

static const double k_ctrl[11] = {0.3, 0.3, 0.4, 0.2, 0.05, -0.04, 0.3, 2, 3, 0.02, -0.03};

static const char* const k_integrators[] = {"Euler", "implicit", "RK4"};

static double moment_dev(const pair* p) {
  double dev = 0;
  for (int k = 0; k < p->m->nu * p->m->nv; k++)
    dev = fmax(dev, fabs(p->d->actuator_moment[k] - p->md->actuator_moment[k]));
  return dev;
}

START_TEST(test_transmission_trajectory) {
  const char* integ = k_integrators[_i];
  pair p;
  mjp_load_integrator(&p, "mjtransmission", k_model, integ);
  ck_assert_int_eq(p.m->nu, 11);
  for (int u = 0; u < p.m->nu; u++) {
    ck_assert_int_eq(p.m->actuator_trntype[u], p.mm->actuator_trntype[u]);
    ck_assert_int_eq(p.m->actuator_trnid[2 * u], p.mm->actuator_trnid[2 * u]);
    ck_assert_int_eq(p.m->actuator_trnid[2 * u + 1], p.mm->actuator_trnid[2 * u + 1]);
    ck_assert_double_eq_tol(p.m->actuator_acc0[u], p.mm->actuator_acc0[u],
                            1e-12 * p.mm->actuator_acc0[u]);
  }
  for (int u = 0; u < p.m->nu; u++) p.d->ctrl[u] = p.md->ctrl[u] = k_ctrl[u];
  for (int k = 0; k < p.m->nv; k++) p.d->qvel[k] = p.md->qvel[k] = 0.8 * sin(1.7 * k + 0.4);
  double dq = 0, dv = 0, dl = 0, dvel = 0, df = 0, dm = 0, vmax = 0, lmax[11] = {0};
  for (int s = 0; s < 1000; s++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    dq = fmax(dq, imp_max_abs_diff(p.md->qpos, p.d->qpos, p.mm->nq));
    dv = fmax(dv, imp_max_abs_diff(p.md->qvel, p.d->qvel, p.mm->nv));
    dl = fmax(dl, imp_max_abs_diff(p.md->actuator_length, p.d->actuator_length, p.mm->nu));
    dvel = fmax(dvel, imp_max_abs_diff(p.md->actuator_velocity, p.d->actuator_velocity, p.mm->nu));
    df = fmax(df, imp_max_abs_diff(p.md->actuator_force, p.d->actuator_force, p.mm->nu));
    dm = fmax(dm, moment_dev(&p));
    for (int k = 0; k < p.mm->nv; k++) vmax = fmax(vmax, fabs(p.md->qvel[k]));
    for (int u = 0; u < p.m->nu; u++) lmax[u] = fmax(lmax[u], fabs(p.md->actuator_length[u]));
  }
  printf("transmissions, %s: max dev over 1000 steps: qpos %.2e, qvel %.2e, actuator_length "
         "%.2e, _velocity %.2e, _force %.2e, moment %.2e (max |qvel| %.3g; max |length| reach "
         "%.3g, twist %.3g, ballservo %.3g, forward %.3g, backward %.3g)\n",
         integ, dq, dv, dl, dvel, df, dm, vmax, lmax[1], lmax[3], lmax[6], lmax[9], lmax[10]);
  fflush(stdout);
  ck_assert_int_eq(p.d->nwarning_nan, 0);
  /* the lengths that are not zero by definition moved */
  ck_assert(lmax[1] > 0.05 && lmax[3] > 0.05 && lmax[6] > 0.05 && lmax[9] > 0.01);
  ck_assert_msg(dq < 1e-8 && dv < 1e-8 * fmax(1, vmax) && dl < 1e-8 && dvel < 1e-8 && df < 1e-8,
                "%s: qpos %.3e, qvel %.3e, length %.3e, velocity %.3e, force %.3e", integ, dq,
                dv, dl, dvel, df);
  ck_assert_msg(dm < 1e-8, "%s: moment dev %.3e", integ, dm);
  mjp_free(&p);
}
END_TEST

static const char* k_adhesion =
    "<mujoco model='adhesion'>\n"
    "  <option timestep='0.002' gravity='0 0 -1'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='1 1 0.1'/>\n"
    "    <body name='ball' pos='0.1 0.2 0.13'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='0.7' margin='0.05' gap='0.05'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <adhesion body='ball' ctrlrange='0 1' gain='3'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

START_TEST(test_adhesion_in_gap) {
  (void)_i;
  char path[4096];
  mjp_write("mjtransmission_adhesion", k_adhesion, path, sizeof path);
  pair p;
  mjp_load(&p, "adhesion", path, path);
  imp_test_no_warnings(p.m);
  ck_assert_int_eq(p.m->actuator_trntype[0], IMP_TRN_BODY);
  ck_assert_int_eq(p.mm->actuator_trntype[0], mjTRN_BODY);
  ck_assert_double_eq(p.m->actuator_gainprm[0], p.mm->actuator_gainprm[0]);
  p.d->ctrl[0] = p.md->ctrl[0] = 0.8;
  double dq = 0, dv = 0, dm = 0, df = 0;
  int steps = 0;
  for (; steps < 200; steps++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    /* until the sphere touches: MuJoCo's contact turns active, ours exerts
       an impulse (the step that would cross the surface stops at it) */
    if (p.md->ncon != 1 || p.md->contact[0].exclude != 1) break;
    if (imp_max_abs(p.d->qfrc_constraint, p.m->nv) > 0) break;
    ck_assert_int_eq(p.d->ncon, 1);
    dq = fmax(dq, imp_max_abs_diff(p.md->qpos, p.d->qpos, p.mm->nq));
    dv = fmax(dv, imp_max_abs_diff(p.md->qvel, p.d->qvel, p.mm->nv));
    dm = fmax(dm, moment_dev(&p));
    df = fmax(df, imp_max_abs_diff(p.md->qfrc_actuator, p.d->qfrc_actuator, p.mm->nv));
  }
  printf("adhesion across the gap: %d steps before touching, max dev qpos %.2e, qvel %.2e, "
         "moment %.2e, qfrc_actuator %.2e; ours then at z %.6f, vz %.4f\n",
         steps, dq, dv, dm, df, p.d->qpos[2], p.d->qvel[2]);
  fflush(stdout);
  /* pulled from 0.13 towards 0.10 at (3 0.8 + 0.7) / 0.7 m/s^2: 0.2 s */
  ck_assert_int_gt(steps, 50);
  ck_assert_msg(dq < 1e-10 && dv < 1e-10 && dm < 1e-12 && df < 1e-12,
                "qpos %.3e, qvel %.3e, moment %.3e, qfrc_actuator %.3e", dq, dv, dm, df);
  mjp_free(&p);
}
END_TEST

static Suite* transmission_suite(void) {
  Suite* s = suite_create("mujoco_transmission");
  TCase* tc = tcase_create("trajectories");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_transmission_trajectory, 0, 3);
  tcase_add_loop_test(tc, test_adhesion_in_gap, 0, 1);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(transmission_suite()); }
