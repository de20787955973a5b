/* Mocap bodies (MJCF body mocap="true"; model/mocap.c, kinematics.c,
   data.c): loaded and checked as MuJoCo does, posed by d->mocap_pos/quat,
   reset from the file or a keyframe, static for dynamics (contacts and
   welds see a body that moves only when the user moves it). */
#include "core/quat.h"
#include "test_util.h"

/* a mocap hand at (0.5, 0, 1) turned 90 degrees about z, with a site, a
   geom and a hinged finger; a second mocap body; a free ball */
static const char* xml_hand =
    "<mujoco><worldbody>"
    "<body name='hand' mocap='true' pos='0.5 0 1' quat='0.7071067811865476 0 0 "
    "0.7071067811865476'>"
    "  <geom name='palm' type='box' size='0.05 0.05 0.01' pos='0.1 0 0' contype='0' "
    "conaffinity='0'/>"
    "  <site name='tip' pos='0.2 0 0'/>"
    "  <body name='finger' pos='0.3 0 0'><joint name='f' type='hinge' axis='0 0 1'/>"
    "    <geom type='capsule' size='0.01' fromto='0 0 0 0.1 0 0' contype='0' "
    "conaffinity='0'/></body>"
    "</body>"
    "<body name='target' mocap='true' pos='0 1 0'/>"
    "<body name='ball' pos='0 0 3'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "</worldbody>"
    "<keyframe><key name='home' qpos='0.3 0 0 3 1 0 0 0' mpos='1 2 3 4 5 6' "
    "mquat='0 0 0 2 1 0 0 0'/>"
    "<key name='default'/></keyframe></mujoco>";

START_TEST(mocap_bodies_are_numbered_in_body_order) {
  imp_model* m = imp_test_load_string_nowarn(xml_hand);
  ck_assert_int_eq(m->nmocap, 2);
  int hand = imp_test_id(m, IMP_OBJ_BODY, "hand"), target = imp_test_id(m, IMP_OBJ_BODY, "target");
  int finger = imp_test_id(m, IMP_OBJ_BODY, "finger"), ball = imp_test_id(m, IMP_OBJ_BODY, "ball");
  ck_assert_int_eq(m->body_mocapid[0], -1);
  ck_assert_int_eq(m->body_mocapid[hand], 0);
  ck_assert_int_eq(m->body_mocapid[target], 1);
  ck_assert_int_eq(m->body_mocapid[finger], -1);
  ck_assert_int_eq(m->body_mocapid[ball], -1);
  /* no dofs of their own: only the finger's hinge and the ball's free joint */
  ck_assert_int_eq(m->nv, 7);
  ck_assert_int_eq(m->body_dofnum[hand], 0);
  imp_free_model(m);
}
END_TEST

START_TEST(keyframe_mpos_mquat_given_or_from_the_bodies) {
  imp_model* m = imp_test_load_string_nowarn(xml_hand);
  ck_assert_int_eq(m->nkey, 2);
  double mpos0[6] = {1, 2, 3, 4, 5, 6}, mquat0[8] = {0, 0, 0, 1, 1, 0, 0, 0};
  imp_assert_vec_near(m->key_mpos, mpos0, 6, 0);
  imp_assert_vec_near(m->key_mquat, mquat0, 8, 0); /* (0 0 0 2) normalized */
  double mpos1[6] = {0.5, 0, 1, 0, 1, 0};
  double r = 0.7071067811865476;
  double mquat1[8] = {r, 0, 0, r, 1, 0, 0, 0};
  imp_assert_vec_near(m->key_mpos + 6, mpos1, 6, 0);
  imp_assert_vec_near(m->key_mquat + 8, mquat1, 8, 1e-15);
  imp_free_model(m);
}
END_TEST

START_TEST(error_mocap_body_with_joints_or_not_under_the_world) {
  imp_test_expect_error("<mujoco><worldbody>\n<body name='m' mocap='true'>\n<joint type='hinge'/>"
               "<geom size='1'/></body></worldbody></mujoco>",
               2, "cannot have joints");
  imp_test_expect_error("<mujoco><worldbody>\n<body name='m' mocap='true'><freejoint/>"
               "<geom size='1'/></body></worldbody></mujoco>",
               2, "cannot have joints");
  imp_test_expect_error("<mujoco><worldbody>\n<body name='a'>\n\n<body name='m' mocap='true'/>"
               "</body></worldbody></mujoco>",
               4, "child of the world");
}
END_TEST

START_TEST(error_keyframe_mpos_mquat_counts) {
  imp_test_expect_error("<mujoco><worldbody><body mocap='true'/></worldbody>\n<keyframe>\n"
               "<key mpos='1 2'/></keyframe></mujoco>",
               3, "key mpos: expected 3 numbers");
  imp_test_expect_error("<mujoco><worldbody><body mocap='true'/></worldbody>\n<keyframe>\n"
               "<key mquat='1 0 0'/></keyframe></mujoco>",
               3, "key mquat: expected 4 numbers");
  imp_test_expect_error("<mujoco><worldbody><body mocap='true'/></worldbody>\n<keyframe>\n"
               "<key mquat='0 0 0 0'/></keyframe></mujoco>",
               3, "zero length");
  /* no mocap bodies: mpos must be empty */
  imp_test_expect_error("<mujoco><worldbody/>\n<keyframe>\n<key mpos='1 2 3'/></keyframe></mujoco>", 3,
               "expected 0 numbers");
}
END_TEST

START_TEST(reset_and_keyframes_restore_the_mocap_poses) {
  imp_model* m = imp_test_load_string_nowarn(xml_hand);
  imp_data* d = imp_make_data(m);
  double r = 0.7071067811865476;
  double pos0[6] = {0.5, 0, 1, 0, 1, 0}, quat0[8] = {r, 0, 0, r, 1, 0, 0, 0};
  imp_assert_vec_near(d->mocap_pos, pos0, 6, 0);
  imp_assert_vec_near(d->mocap_quat, quat0, 8, 1e-15);
  imp_reset_data_keyframe(m, d, 0);
  imp_assert_vec_near(d->mocap_pos, m->key_mpos, 6, 0);
  imp_assert_vec_near(d->mocap_quat, m->key_mquat, 8, 0);
  d->mocap_pos[0] = 42;
  imp_reset_data(m, d);
  imp_assert_vec_near(d->mocap_pos, pos0, 6, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* world point of body-frame point p of a body at (x, q) */
static void world_point(double out[3], const double x[3], const double q[4], const double p[3]) {
  imp_quat_rotate(out, q, p);
  for (int i = 0; i < 3; i++) out[i] += x[i];
}

START_TEST(moving_the_mocap_pose_moves_geoms_sites_and_children) {
  imp_model* m = imp_test_load_string_nowarn(xml_hand);
  imp_data* d = imp_make_data(m);
  int hand = imp_test_id(m, IMP_OBJ_BODY, "hand"), finger = imp_test_id(m, IMP_OBJ_BODY, "finger");
  int palm = imp_test_id(m, IMP_OBJ_GEOM, "palm"), tip = imp_test_id(m, IMP_OBJ_SITE, "tip");
  d->qpos[0] = 0.4; /* the finger's hinge */
  /* a new pose, with a quaternion of length 3 (kinematics normalizes a copy) */
  double x[3] = {-1, 2, 0.5}, q[4] = {cos(0.3), sin(0.3) * 0.6, 0, sin(0.3) * 0.8};
  double q3[4] = {3 * q[0], 3 * q[1], 3 * q[2], 3 * q[3]};
  memcpy(d->mocap_pos, x, sizeof x);
  memcpy(d->mocap_quat, q3, sizeof q3);
  imp_forward(m, d);
  imp_assert_vec_near(d->mocap_quat, q3, 4, 0); /* the user's array is left as it was */
  imp_assert_vec_near(d->xpos + 3 * hand, x, 3, 1e-15);
  imp_assert_vec_near(d->xquat + 4 * hand, q, 4, 1e-15);
  double e[3], pl[3] = {0.1, 0, 0}, st[3] = {0.2, 0, 0}, fo[3] = {0.3, 0, 0};
  world_point(e, x, q, pl);
  imp_assert_vec_near(d->geom_xpos + 3 * palm, e, 3, 1e-14);
  world_point(e, x, q, st);
  imp_assert_vec_near(d->site_xpos + 3 * tip, e, 3, 1e-14);
  world_point(e, x, q, fo);
  imp_assert_vec_near(d->xpos + 3 * finger, e, 3, 1e-14);
  /* the finger turned 0.4 rad about the hand's z */
  double qz[4] = {cos(0.2), 0, 0, sin(0.2)}, qf[4];
  imp_quat_mul(qf, q, qz);
  imp_assert_vec_near(d->xquat + 4 * finger, qf, 4, 1e-14);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* a free box welded to a mocap target with the weld's default relative
   pose (the one of the file): the box keeps that pose relative to the
   target wherever the target goes */
static const char* xml_weld =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body name='target' mocap='true' pos='0 0 1'/>"
    "<body name='box' pos='0.2 0 1' euler='0 0 30'><freejoint/>"
    "<geom type='box' size='0.1 0.05 0.02' density='500' contype='0' conaffinity='0'/></body>"
    "</worldbody><equality><weld body1='target' body2='box'/></equality></mujoco>";

/* distance between the box and where the weld wants it, and the angle
   between their orientations */
static void weld_residual(const imp_model* m, const imp_data* d, double* dist, double* angle) {
  double r30 = 30 * 3.14159265358979323846 / 180;
  double rel[3] = {0.2, 0, 0}, qrel[4] = {cos(r30 / 2), 0, 0, sin(r30 / 2)};
  double want[3], qwant[4], qc[4], qe[4];
  world_point(want, d->mocap_pos, d->mocap_quat, rel);
  imp_quat_mul(qwant, d->mocap_quat, qrel);
  const double* x = d->xpos + 3 * 2;
  *dist = sqrt((x[0] - want[0]) * (x[0] - want[0]) + (x[1] - want[1]) * (x[1] - want[1]) +
               (x[2] - want[2]) * (x[2] - want[2]));
  imp_quat_conj(qc, qwant);
  imp_quat_mul(qe, qc, d->xquat + 4 * 2);
  *angle = 2 * atan2(sqrt(qe[1] * qe[1] + qe[2] * qe[2] + qe[3] * qe[3]), fabs(qe[0]));
  (void)m;
}

START_TEST(weld_to_a_mocap_body_makes_a_free_body_follow) {
  imp_model* m = imp_test_load_string_nowarn(xml_weld);
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->body_mocapid[1], 0);
  double dist, angle;
  /* the target jumps to a new pose; after 1 s the weld has brought the box
     there (its time constant is 0.02 s) */
  double x[3] = {0.5, -0.3, 1.4};
  double q[4] = {cos(0.4), sin(0.4) * 0.6, sin(0.4) * 0.8, 0};
  memcpy(d->mocap_pos, x, sizeof x);
  memcpy(d->mocap_quat, q, sizeof q);
  imp_forward(m, d);
  weld_residual(m, d, &dist, &angle);
  ck_assert_msg(dist > 0.3, "the target did not move away (%g)", dist);
  for (int i = 0; i < 500; i++) imp_step(m, d);
  imp_forward(m, d);
  weld_residual(m, d, &dist, &angle);
  ck_assert_msg(dist < 1e-6 && angle < 1e-6, "weld residual %.3e m, %.3e rad after 1 s", dist,
                angle);
  /* a target moving smoothly (circle of radius 0.2 m at 1 rad/s) is
     followed with a lag bounded by its speed times the time constant */
  double worst = 0;
  for (int i = 0; i < 2000; i++) {
    double t = d->time;
    d->mocap_pos[0] = 0.5 + 0.2 * cos(t);
    d->mocap_pos[1] = -0.3 + 0.2 * sin(t);
    imp_step(m, d);
    if (i > 500) {
      imp_forward(m, d);
      weld_residual(m, d, &dist, &angle);
      if (dist > worst) worst = dist;
    }
  }
  /* bound: 2 v tc, the steady lag of a critically damped follower of
     time constant tc = 0.02 s behind a ramp of speed v = 0.2 m/s
     (measured: 3.6e-3 m) */
  ck_assert_msg(worst < 2 * 0.2 * 0.02, "lag %.3e m behind a target moving at 0.2 m/s", worst);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* a free box resting on a mocap platform over a floor: the platform and
   the floor never touch (neither can move in response), the box lies on
   the platform and is carried up when the platform is raised */
static const char* xml_platform =
    "<mujoco><worldbody>"
    "<geom name='floor' type='plane' size='5 5 0.1'/>"
    "<body name='platform' mocap='true' pos='0 0 0.05'>"
    "  <geom name='deck' type='box' size='0.5 0.5 0.05'/></body>"
    "<body name='box' pos='0 0 0.2'><freejoint/><geom name='b' type='box' size='0.1 0.1 0.1'/>"
    "</body></worldbody></mujoco>";

START_TEST(contacts_see_a_mocap_body_as_static) {
  imp_model* m = imp_test_load_string_nowarn(xml_platform);
  imp_data* d = imp_make_data(m);
  int floor = imp_test_id(m, IMP_OBJ_GEOM, "floor"), deck = imp_test_id(m, IMP_OBJ_GEOM, "deck");
  d->mocap_pos[2] = 0.0; /* the deck sinks into the floor */
  for (int i = 0; i < 500; i++) imp_step(m, d);
  for (int i = 0; i < d->ncon; i++) {
    int g1 = d->contact[i].geom1, g2 = d->contact[i].geom2;
    ck_assert_msg(!((g1 == floor && g2 == deck) || (g1 == deck && g2 == floor)),
                  "contact between the floor and the mocap deck");
  }
  imp_assert_near(d->qpos[2], 0.05 + 0.1, 2e-3); /* on the deck, not on the floor */
  /* raise the platform 0.5 m over 1 s: the box rides on it */
  for (int i = 0; i < 500; i++) {
    d->mocap_pos[2] = 0.5 * (i + 1) / 500.0;
    imp_step(m, d);
  }
  for (int i = 0; i < 250; i++) imp_step(m, d);
  imp_assert_near(d->qpos[2], 0.5 + 0.05 + 0.1, 2e-3);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static Suite* mocap_suite(void) {
  Suite* s = suite_create("mocap");
  TCase* t = tcase_create("loader");
  tcase_add_test(t, mocap_bodies_are_numbered_in_body_order);
  tcase_add_test(t, keyframe_mpos_mquat_given_or_from_the_bodies);
  tcase_add_test(t, error_mocap_body_with_joints_or_not_under_the_world);
  tcase_add_test(t, error_keyframe_mpos_mquat_counts);
  suite_add_tcase(s, t);
  t = tcase_create("engine");
  tcase_add_test(t, reset_and_keyframes_restore_the_mocap_poses);
  tcase_add_test(t, moving_the_mocap_pose_moves_geoms_sites_and_children);
  tcase_add_test(t, weld_to_a_mocap_body_makes_a_free_body_follow);
  tcase_add_test(t, contacts_see_a_mocap_body_as_static);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mocap_suite()); }
