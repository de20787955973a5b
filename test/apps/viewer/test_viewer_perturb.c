/* The mouse spring: it pulls a body towards the mouse and turns it towards
   the held orientation, critically damped, the same for light and heavy
   bodies; it is gone when the user lets go. */
#include "perturb.h"
#include "test_util.h"

static const char* xml =
    "<mujoco><option gravity='0 0 0'/><worldbody>"
    "<body name='b' pos='0 0 1'><freejoint/>"
    "<geom type='box' size='0.1 0.2 0.3' density='700'/></body>"
    "</worldbody></mujoco>";

static const char* xml_heavy =
    "<mujoco><option gravity='0 0 0'/><worldbody>"
    "<body name='b' pos='0 0 1'><freejoint/>"
    "<geom type='box' size='0.1 0.2 0.3' density='70000'/></body>"
    "</worldbody></mujoco>";

START_TEST(inactive_spring_applies_nothing) {
  imp_model* m = imp_test_load_string(xml);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  for (int i = 0; i < 6 * m->nbody; i++) d->xfrc_applied[i] = 42;
  imp_viewer_perturb p = {0};
  imp_viewer_perturb_apply(m, d, &p);
  for (int i = 0; i < 6 * m->nbody; i++) imp_assert_near(d->xfrc_applied[i], 0, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(pull_points_at_the_mouse_with_the_lever_torque) {
  imp_model* m = imp_test_load_string(xml);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  double grab[3] = {0.1, 0, 1}; /* on the +x face, 0.1 from the centre of mass */
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, 1, grab, 0, &p);
  p.spring.refpos[2] += 0.05; /* the mouse 5 cm above the grabbed point */
  imp_viewer_perturb_apply(m, d, &p);
  const double* f = d->xfrc_applied + 6;
  double w = IMP_VIEWER_PERTURB_OMEGA, mass = m->body_subtreemass[1];
  imp_assert_near(f[0], 0, 1e-9);
  imp_assert_near(f[1], 0, 1e-9);
  imp_assert_rel(f[2], mass * w * w * 0.05, 1e-9);
  /* torque (p - c) x F = (0.1, 0, 0) x (0, 0, Fz) = (0, -0.1 Fz, 0) */
  imp_assert_rel(f[4], -0.1 * f[2], 1e-9);
  imp_assert_near(f[3], 0, 1e-9);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Distance from the grabbed point to the mouse after pulling 1 s. */
static double pull_for_a_second(const char* text) {
  imp_model* m = imp_test_load_string(text);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, 1, NULL, 0, &p);
  p.spring.refpos[0] += 0.3;
  int n = (int)(1.0 / m->opt.timestep);
  for (int i = 0; i < n; i++) {
    imp_viewer_perturb_apply(m, d, &p);
    imp_step(m, d);
  }
  double pt[3];
  imp_viewer_perturb_point(d, &p, pt);
  double dist = sqrt(pow(pt[0] - p.spring.refpos[0], 2) + pow(pt[1] - p.spring.refpos[1], 2) +
                     pow(pt[2] - p.spring.refpos[2], 2));
  imp_free_data(d);
  imp_free_model(m);
  return dist;
}

START_TEST(a_pulled_body_follows_the_mouse_whatever_its_mass) {
  /* critically damped at 15 rad/s: 0.3 m of error shrinks below 1 mm in 1 s */
  double light = pull_for_a_second(xml), heavy = pull_for_a_second(xml_heavy);
  ck_assert_msg(light < 1e-3, "light body still %g m from the mouse", light);
  ck_assert_msg(heavy < 1e-3, "heavy body still %g m from the mouse", heavy);
  imp_assert_near(light, heavy, 1e-6);
}
END_TEST

START_TEST(turning_rotates_towards_the_held_orientation) {
  imp_model* m = imp_test_load_string(xml);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, 1, NULL, 1, &p);
  imp_camera_pose pose = {.pos = {0, -3, 1}, .forward = {0, 1, 0}, .up = {0, 0, 1},
                          .right = {1, 0, 0}, .fovy = 45};
  imp_viewer_perturb_drag(&p, &pose, 0.1, 0); /* a drag to the right: turn about up (z) */
  imp_viewer_perturb_apply(m, d, &p);
  const double* t = d->xfrc_applied + 6;
  ck_assert(t[5] > 0);
  imp_assert_near(t[3], 0, 1e-9);
  imp_assert_near(t[4], 0, 1e-9);
  imp_assert_near(t[0] * t[0] + t[1] * t[1] + t[2] * t[2], 0, 0); /* no force */
  for (int i = 0; i < 2000; i++) {
    imp_viewer_perturb_apply(m, d, &p);
    imp_step(m, d);
  }
  /* the body has turned by the held 0.1 pi about z */
  double yaw = 2 * atan2(d->xquat[4 + 3], d->xquat[4 + 0]);
  imp_assert_near(yaw, 0.1 * 3.14159265358979, 1e-3);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Paused: the grabbed point goes where the mouse holds it, at once, the
   body at rest, and a turn sets the held orientation. */
START_TEST(paused_pull_places_the_body_at_the_mouse) {
  imp_model* m = imp_test_load_string(xml);
  imp_data* d = imp_make_data(m);
  d->qvel[2] = 3; /* moving when grabbed */
  imp_forward(m, d);
  double grab[3] = {0.1, 0, 1};
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, 1, grab, 0, &p);
  p.spring.refpos[0] += 0.3;
  p.spring.refpos[2] += 0.2;
  ck_assert_int_eq(imp_viewer_perturb_place(m, d, &p), 1);
  double pt[3];
  imp_viewer_perturb_point(d, &p, pt);
  for (int i = 0; i < 3; i++) imp_assert_near(pt[i], p.spring.refpos[i], 1e-12);
  imp_assert_near(d->xpos[3 * 1 + 2], 1.2, 1e-12); /* imp_forward ran: xpos follows qpos */
  for (int i = 0; i < 6; i++) imp_assert_near(d->qvel[i], 0, 0);
  /* turning: the body takes the held orientation */
  imp_viewer_perturb_begin(m, d, 1, NULL, 1, &p);
  double q[4] = {cos(0.3), 0, 0, sin(0.3)}; /* 0.6 rad about z */
  memcpy(p.refquat, q, sizeof q);
  ck_assert_int_eq(imp_viewer_perturb_place(m, d, &p), 1);
  for (int i = 0; i < 4; i++) imp_assert_near(d->xquat[4 + i], q[i], 1e-12);
  /* let go: nothing moves */
  imp_viewer_perturb_end(&p);
  ck_assert_int_eq(imp_viewer_perturb_place(m, d, &p), 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A body on a hinge cannot be placed without breaking its joint. */
START_TEST(paused_pull_leaves_jointed_bodies_alone) {
  imp_model* m = imp_test_load_string(
      "<mujoco><worldbody><body pos='0 0 1'><joint type='hinge' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 .3 0 0' size='.02'/></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, 1, NULL, 0, &p);
  p.spring.refpos[2] += 0.2;
  ck_assert_int_eq(imp_viewer_perturb_place(m, d, &p), 0);
  imp_assert_near(d->qpos[0], 0, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(dragging_moves_the_hold_in_the_image_plane) {
  imp_model* m = imp_test_load_string(xml);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, 1, NULL, 0, &p);
  /* the eye 3 m in front, fovy 90: a window height spans 6 m at that depth */
  imp_camera_pose pose = {.pos = {0, -3, 1}, .forward = {0, 1, 0}, .up = {0, 0, 1},
                          .right = {1, 0, 0}, .fovy = 90};
  imp_viewer_perturb_drag(&p, &pose, 0.1, -0.05); /* right and up (y is down) */
  imp_assert_near(p.spring.refpos[0], 0.6, 1e-9);
  imp_assert_near(p.spring.refpos[1], 0, 1e-9);
  imp_assert_near(p.spring.refpos[2], 1.3, 1e-9);
  imp_viewer_perturb_end(&p);
  imp_viewer_perturb_apply(m, d, &p);
  imp_assert_near(d->xfrc_applied[8], 0, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* a mocap hand carrying a hinged finger */
static const char* xml_mocap =
    "<mujoco><worldbody>"
    "<body name='hand' mocap='true' pos='0 0 1'>"
    "<geom type='box' size='0.2 0.1 0.05'/>"
    "<body name='finger' pos='0.2 0 0'><joint type='hinge' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 .3 0 0' size='.02'/></body></body>"
    "</worldbody></mujoco>";

/* Dragging a mocap body (Ctrl + right drag, running) moves it with the
   mouse at once, by its pose, not by a force: the grabbed point lands on
   the hold, the orientation stays, and the step that follows shows it
   there with its child. */
START_TEST(dragging_a_mocap_body_sets_its_pose) {
  imp_model* m = imp_test_load_string(xml_mocap);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  int hand = imp_test_id(m, IMP_OBJ_BODY, "hand");
  double grab[3] = {0.2, 0, 1.05}; /* a corner of the box, off the body's origin */
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, hand, grab, 0, &p);
  imp_camera_pose pose = {.pos = {0, -3, 1}, .forward = {0, 1, 0}, .up = {0, 0, 1},
                          .right = {1, 0, 0}, .fovy = 90};
  imp_viewer_perturb_drag(&p, &pose, 0.1, -0.05); /* 0.6 m right, 0.3 m up */
  imp_viewer_perturb_apply(m, d, &p);
  for (int i = 0; i < 6 * m->nbody; i++) imp_assert_near(d->xfrc_applied[i], 0, 0);
  double want[3] = {0.6, 0, 1.3}, q0[4] = {1, 0, 0, 0};
  imp_assert_vec_near(d->mocap_pos, want, 3, 1e-12);
  imp_assert_vec_near(d->mocap_quat, q0, 4, 0);
  imp_step(m, d);
  imp_assert_vec_near(d->xpos + 3 * hand, want, 3, 1e-12);
  double pt[3];
  imp_viewer_perturb_point(d, &p, pt);
  imp_assert_vec_near(pt, p.spring.refpos, 3, 1e-12);
  /* the finger came along: its joint sits on the hand's +x face */
  double fx[3] = {0.8, 0, 1.3};
  imp_assert_vec_near(d->xpos + 3 * (hand + 1), fx, 3, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Ctrl + left drag turns a mocap body to the held orientation about the
   grabbed point; paused, the pose is set and the frames recomputed. */
START_TEST(turning_a_mocap_body_sets_its_orientation) {
  imp_model* m = imp_test_load_string(xml_mocap);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  int hand = imp_test_id(m, IMP_OBJ_BODY, "hand");
  double grab[3] = {0.2, 0, 1};
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, hand, grab, 1, &p);
  imp_camera_pose pose = {.pos = {0, -3, 1}, .forward = {0, 1, 0}, .up = {0, 0, 1},
                          .right = {1, 0, 0}, .fovy = 45};
  imp_viewer_perturb_drag(&p, &pose, 0.5, 0); /* half a window: a quarter turn about z */
  ck_assert_int_eq(imp_viewer_perturb_place(m, d, &p), 1);
  double r = sqrt(0.5), q[4] = {r, 0, 0, r};
  imp_assert_vec_near(d->mocap_quat, q, 4, 1e-12);
  imp_assert_vec_near(d->xquat + 4 * hand, q, 4, 1e-12);
  /* the grabbed point stayed put; the origin swung to (0.2, -0.2, 1) */
  double pt[3], o[3] = {0.2, -0.2, 1};
  imp_viewer_perturb_point(d, &p, pt);
  imp_assert_vec_near(pt, grab, 3, 1e-12);
  imp_assert_vec_near(d->xpos + 3 * hand, o, 3, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* The finger hinged to a mocap hand is a dynamic body: grabbing it pulls
   it with the spring's force and leaves the hand where it is. */
START_TEST(a_child_of_a_mocap_body_is_pulled_by_force) {
  imp_model* m = imp_test_load_string(xml_mocap);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  int finger = imp_test_id(m, IMP_OBJ_BODY, "finger");
  imp_viewer_perturb p;
  imp_viewer_perturb_begin(m, d, finger, NULL, 0, &p);
  p.spring.refpos[2] += 0.1;
  imp_viewer_perturb_apply(m, d, &p);
  ck_assert(d->xfrc_applied[6 * finger + 2] > 0);
  double x0[3] = {0, 0, 1};
  imp_assert_vec_near(d->mocap_pos, x0, 3, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_perturb");
  TCase* tc = tcase_create("viewer_perturb");
  tcase_add_test(tc, inactive_spring_applies_nothing);
  tcase_add_test(tc, pull_points_at_the_mouse_with_the_lever_torque);
  tcase_add_test(tc, a_pulled_body_follows_the_mouse_whatever_its_mass);
  tcase_add_test(tc, turning_rotates_towards_the_held_orientation);
  tcase_add_test(tc, dragging_moves_the_hold_in_the_image_plane);
  tcase_add_test(tc, paused_pull_places_the_body_at_the_mouse);
  tcase_add_test(tc, paused_pull_leaves_jointed_bodies_alone);
  tcase_add_test(tc, dragging_a_mocap_body_sets_its_pose);
  tcase_add_test(tc, turning_a_mocap_body_sets_its_orientation);
  tcase_add_test(tc, a_child_of_a_mocap_body_is_pulled_by_force);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
