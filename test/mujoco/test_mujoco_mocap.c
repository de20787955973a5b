/* Mocap bodies against MuJoCo 2.2.2 (built only when libmujoco-dev is found).
 *
 * A mocap "hand" carrying a chain of three hinged links (damping, a
 * spring, an actuator) and a second, bare mocap body; contact-free. Both
 * simulators load the same file and must agree on nmocap, body_mocapid and
 * the keyframes' mpos/mquat; then, from the same state, the hand's pose is
 * set before every step to the same deterministic function of time (its
 * quaternion given at twice unit length, which both normalize), and
 * qpos, qvel and every body's xpos must agree to TOL over NSTEP steps.
 * The run prints the largest deviations, so ctest -V shows how close. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>

#include "mj_pair.h"
#include "test_util.h"

#define NSTEP 1000
#define TOL 1e-8

static const char* k_hand =
    "<mujoco model='mocap_hand'>\n"
    "  <option timestep='0.002'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body name='hand' mocap='true' pos='0 0 1' euler='0 20 0'>\n"
    "      <geom type='box' size='0.05 0.05 0.02'/>\n"
    "      <site name='palm' pos='0.05 0 0'/>\n"
    "      <body name='l1' pos='0.05 0 0'>\n"
    "        <joint name='j1' type='hinge' axis='0 1 0' damping='0.05'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.2 0 0' size='0.02'/>\n"
    "        <body name='l2' pos='0.2 0 0' euler='10 0 0'>\n"
    "          <joint name='j2' type='hinge' axis='0 0.6 0.8' stiffness='2' springref='20'/>\n"
    "          <geom type='capsule' fromto='0 0 0 0.15 0 0' size='0.015'/>\n"
    "          <body name='l3' pos='0.15 0 0'>\n"
    "            <joint name='j3' type='hinge' axis='1 0 0' damping='0.01'/>\n"
    "            <geom type='box' size='0.03 0.02 0.01' pos='0.05 0 0'/>\n"
    "          </body>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='marker' mocap='true' pos='1 0 0.5'>\n"
    "      <geom type='sphere' size='0.03'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator><motor name='m1' joint='j1' gear='0.5'/></actuator>\n"
    "  <keyframe>\n"
    "    <key name='posed' qpos='0.3 -0.2 0.5' mpos='0.1 0.2 1.1 1 1 1'"
    " mquat='1 0.2 0 0 0 0 0 1'/>\n"
    "    <key name='plain' qpos='0 0 0'/>\n"
    "  </keyframe>\n"
    "</mujoco>\n";

/* the hand's pose at time t: a figure of eight with bobbing, turning about
   a tilted axis; the quaternion at length 2 */
static void hand_pose(double t, double pos[3], double quat[4]) {
  pos[0] = 0.1 * sin(2 * t);
  pos[1] = 0.2 * sin(t);
  pos[2] = 1 + 0.05 * sin(3 * t);
  double axis[3] = {0.3, 0.4, sqrt(1 - 0.09 - 0.16)}, a = 0.8 * sin(1.5 * t);
  quat[0] = 2 * cos(a / 2);
  for (int i = 0; i < 3; i++) quat[1 + i] = 2 * sin(a / 2) * axis[i];
}

static double max_dev(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

START_TEST(model_fields_match) {
  char path[4096];
  mjp_write("mjmocap_hand", k_hand, path, sizeof path);
  pair p;
  mjp_load(&p, "hand", path, path);
  imp_test_no_warnings(p.m);
  ck_assert_int_eq(p.m->nmocap, p.mm->nmocap);
  ck_assert_int_eq(p.m->nmocap, 2);
  ck_assert_int_eq(p.m->nbody, p.mm->nbody);
  for (int b = 0; b < p.m->nbody; b++) ck_assert_int_eq(p.m->body_mocapid[b], p.mm->body_mocapid[b]);
  ck_assert_int_eq(p.m->nkey, p.mm->nkey);
  double e_pos = max_dev(p.m->key_mpos, p.mm->key_mpos, 3 * p.m->nkey * p.m->nmocap);
  double e_quat = max_dev(p.m->key_mquat, p.mm->key_mquat, 4 * p.m->nkey * p.m->nmocap);
  printf("hand: key_mpos dev %.1e, key_mquat dev %.1e\n", e_pos, e_quat);
  ck_assert_msg(e_pos <= 1e-15 && e_quat <= 1e-15, "keyframes differ: %g %g", e_pos, e_quat);
  /* reset to each keyframe: the same poses in both */
  for (int k = 0; k < p.m->nkey; k++) {
    mj_resetDataKeyframe(p.mm, p.md, k);
    imp_reset_data_keyframe(p.m, p.d, k);
    mj_forward(p.mm, p.md);
    imp_forward(p.m, p.d);
    double e = max_dev(p.d->xpos, p.md->xpos, 3 * p.m->nbody);
    ck_assert_msg(e <= 1e-14, "key %d: xpos dev %g", k, e);
    e = max_dev(p.d->xquat, p.md->xquat, 4 * p.m->nbody);
    ck_assert_msg(e <= 1e-14, "key %d: xquat dev %g", k, e);
  }
  mjp_free(&p);
}
END_TEST

START_TEST(driven_hand_trajectory_matches) {
  char path[4096];
  mjp_write("mjmocap_hand", k_hand, path, sizeof path);
  pair p;
  mjp_load(&p, "hand", path, path);
  mj_resetDataKeyframe(p.mm, p.md, 0);
  imp_reset_data_keyframe(p.m, p.d, 0);
  mj_forward(p.mm, p.md); /* frames of the start, for the travel below */
  double eq = 0, ev = 0, ex = 0, travel = 0, x0 = p.md->xpos[3 * 4];
  for (int s = 0; s < NSTEP; s++) {
    double pos[3], quat[4];
    hand_pose(p.md->time, pos, quat);
    for (int i = 0; i < 3; i++) p.md->mocap_pos[i] = p.d->mocap_pos[i] = pos[i];
    for (int i = 0; i < 4; i++) p.md->mocap_quat[i] = p.d->mocap_quat[i] = quat[i];
    p.md->ctrl[0] = p.d->ctrl[0] = 0.2 * cos(5 * p.md->time);
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    eq = fmax(eq, max_dev(p.d->qpos, p.md->qpos, p.m->nq));
    ev = fmax(ev, max_dev(p.d->qvel, p.md->qvel, p.m->nv));
    ex = fmax(ex, max_dev(p.d->xpos, p.md->xpos, 3 * p.m->nbody));
    travel = fmax(travel, fabs(p.md->xpos[3 * 4] - x0));
  }
  printf("hand: max qpos dev %.2e, qvel dev %.2e, xpos dev %.2e over %d steps; "
         "the last link travelled %.2f m\n",
         eq, ev, ex, NSTEP, travel);
  ck_assert_msg(travel > 0.05, "the chain hardly moved (%g m): the test would be vacuous", travel);
  ck_assert_msg(eq <= TOL && ev <= TOL && ex <= TOL, "deviation qpos %g qvel %g xpos %g", eq, ev,
                ex);
  mjp_free(&p);
}
END_TEST

static Suite* mocap_suite(void) {
  Suite* s = suite_create("mujoco_mocap");
  TCase* t = tcase_create("hand");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, model_fields_match);
  tcase_add_test(t, driven_hand_trajectory_matches);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mocap_suite()); }
