/* Tests of the MJCF loader: every error with its file and line. Shared
 * helpers: loader_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "loader_util.h"

/* ------------------------------------------------------------------ errors */

START_TEST(error_malformed_xml_has_line) {
  imp_test_expect_error("<mujoco>\n<worldbody>\n<body>\n</worldbody></mujoco>", 4, "mismatch");
}
END_TEST

START_TEST(error_root_must_be_mujoco) { imp_test_expect_error("<robot/>", 1, "mujoco"); }
END_TEST

START_TEST(error_unknown_joint_type) {
  imp_test_expect_error("<mujoco><worldbody>\n<body>\n<joint type='twist'/></body></worldbody></mujoco>",
               3, "twist");
}
END_TEST

START_TEST(error_unknown_geom_type) {
  imp_test_expect_error("<mujoco><worldbody>\n<geom type='blob'/></worldbody></mujoco>", 2, "blob");
}
END_TEST

START_TEST(error_wrong_number_count) {
  imp_test_expect_error("<mujoco><worldbody>\n\n<body pos='1 2'/></worldbody></mujoco>", 3,
               "expected 3 numbers, got 2");
}
END_TEST

START_TEST(error_non_numeric_value) {
  imp_test_expect_error("<mujoco><worldbody>\n<body pos='1 x 2'/></worldbody></mujoco>", 2,
               "not a number");
}
END_TEST

START_TEST(error_inertial_mass_not_positive) {
  imp_test_expect_error("<mujoco><worldbody><body>\n<inertial pos='0 0 0' mass='0' diaginertia='1 1 1'/>"
               "</body></worldbody></mujoco>", 2, "mass");
  imp_test_expect_error("<mujoco><worldbody><body>\n\n<inertial pos='0 0 0' mass='-1' "
               "diaginertia='1 1 1'/></body></worldbody></mujoco>", 3, "mass");
  imp_test_expect_error("<mujoco><worldbody><body>\n<inertial pos='0 0 0' diaginertia='1 1 1'/>"
               "</body></worldbody></mujoco>", 2, "mass");
}
END_TEST

START_TEST(error_unknown_class) {
  imp_test_expect_error("<mujoco><worldbody>\n<geom class='nope' size='1'/></worldbody></mujoco>", 2,
               "nope");
  imp_test_expect_error("<mujoco><worldbody>\n<body childclass='nope'/></worldbody></mujoco>", 2, "nope");
}
END_TEST

START_TEST(error_unknown_references) {
  imp_test_expect_error("<mujoco><worldbody>\n<geom size='1' material='m'/></worldbody></mujoco>", 2,
               "unknown material 'm'");
  imp_test_expect_error("<mujoco><asset>\n<material name='m' texture='t'/></asset></mujoco>", 2,
               "unknown texture 't'");
  imp_test_expect_error("<mujoco><actuator>\n<motor joint='j'/></actuator></mujoco>", 2,
               "unknown joint 'j'");
  imp_test_expect_error("<mujoco><worldbody>\n<camera mode='targetbody' target='x'/></worldbody>"
               "</mujoco>", 2, "unknown body 'x'");
}
END_TEST

START_TEST(error_duplicate_names) {
  imp_test_expect_error("<mujoco><worldbody><geom name='a' size='1'/>\n<geom name='a' size='1'/>"
               "</worldbody></mujoco>", 2, "repeated geom name 'a'");
  imp_test_expect_error("<mujoco><worldbody><body name='a'/>\n<body name='a'/></worldbody></mujoco>", 2,
               "repeated body name");
}
END_TEST

START_TEST(error_joint_in_world_and_nested_free_joint) {
  imp_test_expect_error("<mujoco><worldbody>\n<joint/></worldbody></mujoco>", 2, "world");
  imp_test_expect_error("<mujoco><worldbody><body><geom size='1'/>\n<body>\n<freejoint/><geom size='1'/>"
               "</body></body></worldbody></mujoco>", 3, "top-level");
}
END_TEST

START_TEST(error_geom_size_too_few) {
  imp_test_expect_error("<mujoco><worldbody>\n<geom type='box' size='1 1'/></worldbody></mujoco>", 2,
               "geom size: expected 3 values");
  imp_test_expect_error("<mujoco><worldbody>\n\n<geom type='capsule' size='1'/></worldbody></mujoco>", 3,
               "geom size: expected 2 values");
  imp_test_expect_error("<mujoco><worldbody>\n<geom/></worldbody></mujoco>", 2,
               "geom size: expected 1 values");
}
END_TEST

START_TEST(error_fromto_on_sphere_and_bad_condim) {
  imp_test_expect_error("<mujoco><worldbody>\n<geom fromto='0 0 0 1 0 0' size='1'/></worldbody></mujoco>",
               2, "fromto");
  imp_test_expect_error("<mujoco><worldbody>\n<geom condim='2' size='1'/></worldbody></mujoco>", 2,
               "condim");
}
END_TEST

START_TEST(error_keyframe_wrong_count) {
  imp_test_expect_error("<mujoco><worldbody><body><joint/><geom size='1'/></body></worldbody>"
               "<keyframe>\n<key qpos='1 2'/></keyframe></mujoco>", 2, "expected 1 numbers, got 2");
  imp_test_expect_error("<mujoco><worldbody><body><joint/><geom size='1'/></body></worldbody>"
               "<keyframe>\n\n<key ctrl='1'/></keyframe></mujoco>", 3, "ctrl");
}
END_TEST

START_TEST(error_zero_joint_axis) {
  imp_test_expect_error("<mujoco><worldbody><body>\n<joint axis='0 0 0'/><geom size='1'/></body>"
               "</worldbody></mujoco>", 2, "axis");
}
END_TEST

START_TEST(error_massless_moving_body) {
  imp_test_expect_error("<mujoco><worldbody>\n<body><joint/></body></worldbody></mujoco>", 2, "mass");
}
END_TEST

START_TEST(error_plane_in_moving_body) {
  imp_test_expect_error("<mujoco><worldbody><body><joint/><geom size='1'/>\n<geom type='plane' "
               "size='1 1 1'/></body></worldbody></mujoco>", 2, "plane");
}
END_TEST

START_TEST(error_global_coordinates) {
  imp_test_expect_error("<mujoco>\n<compiler coordinate='global'/></mujoco>", 2, "global");
}
END_TEST

START_TEST(error_pair_and_exclude_references) {
  const char* head =
      "<mujoco><worldbody><geom name='f' type='plane' size='1 1 1'/><body name='a'><freejoint/>"
      "<geom name='s' size='0.1'/></body></worldbody>\n<contact>\n";
  char xml[1024];
  snprintf(xml, sizeof xml, "%s<pair geom1='f' geom2='nope'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "unknown geom 'nope'");
  snprintf(xml, sizeof xml, "%s<pair geom1='s'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "pair needs geom1 and geom2");
  snprintf(xml, sizeof xml, "%s<pair geom1='s' geom2='s'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "with itself");
  snprintf(xml, sizeof xml, "%s<pair geom1='s' geom2='f' condim='2'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "condim must be 1, 3, 4 or 6");
  snprintf(xml, sizeof xml,
           "%s<pair geom1='s' geom2='f' friction='1 2 3 4 5 6'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "expected 1 to 5 numbers");
  snprintf(xml, sizeof xml, "%s<pair geom1='s' geom2='f' class='x'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "unknown default class 'x'");
  snprintf(xml, sizeof xml,
           "%s<pair name='p' geom1='s' geom2='f'/>\n<pair name='p' geom1='f' geom2='s'/>"
           "</contact></mujoco>", head);
  imp_test_expect_error(xml, 4, "repeated pair name 'p'");
  snprintf(xml, sizeof xml, "%s<exclude body1='a' body2='zz'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "unknown body 'zz'");
  snprintf(xml, sizeof xml, "%s<exclude body1='a' body2='a'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "with itself");
  snprintf(xml, sizeof xml, "%s<exclude body2='a'/></contact></mujoco>", head);
  imp_test_expect_error(xml, 3, "exclude needs body1 and body2");
}
END_TEST

Suite* loader_suite(void) {
  Suite* s = suite_create("loader");
  TCase* t = tcase_create("errors");
  tcase_add_test(t, error_malformed_xml_has_line);
  tcase_add_test(t, error_root_must_be_mujoco);
  tcase_add_test(t, error_unknown_joint_type);
  tcase_add_test(t, error_unknown_geom_type);
  tcase_add_test(t, error_wrong_number_count);
  tcase_add_test(t, error_non_numeric_value);
  tcase_add_test(t, error_inertial_mass_not_positive);
  tcase_add_test(t, error_unknown_class);
  tcase_add_test(t, error_unknown_references);
  tcase_add_test(t, error_duplicate_names);
  tcase_add_test(t, error_joint_in_world_and_nested_free_joint);
  tcase_add_test(t, error_geom_size_too_few);
  tcase_add_test(t, error_fromto_on_sphere_and_bad_condim);
  tcase_add_test(t, error_keyframe_wrong_count);
  tcase_add_test(t, error_zero_joint_axis);
  tcase_add_test(t, error_massless_moving_body);
  tcase_add_test(t, error_plane_in_moving_body);
  tcase_add_test(t, error_global_coordinates);
  tcase_add_test(t, error_pair_and_exclude_references);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(loader_suite()); }
