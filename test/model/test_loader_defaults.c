/* Tests of the MJCF loader: defaults and classes (childclass, actuator
 * shortcuts), orientations (quat, axisangle, euler, xyaxes, zaxis) and angle
 * units. Shared helpers: loader_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "loader_util.h"

/* ---------------------------------------------------------------- defaults */

START_TEST(main_class_sets_joint_and_geom_defaults) {
  imp_model* m = load(
      "<mujoco><default><joint damping='2'/><geom rgba='1 0 0 1' size='0.3'/></default>"
      "<worldbody><body><joint/><geom/></body></worldbody></mujoco>");
  ck_assert_double_eq(m->dof_damping[0], 2);
  ck_assert_double_eq(m->geom_size[0], 0.3);
  ck_assert_float_eq(m->geom_rgba[0], 1.0f);
  ck_assert_float_eq(m->geom_rgba[1], 0.0f);
  imp_free_model(m);
}
END_TEST

START_TEST(nested_class_inherits_parent_and_overrides) {
  imp_model* m = load(
      "<mujoco><default><joint damping='2' stiffness='3'/>"
      "<default class='a'><joint stiffness='5'/><default class='b'><joint armature='7'/></default>"
      "</default></default>"
      "<worldbody><body><joint class='b'/><joint class='a'/><joint/><geom size='1'/></body>"
      "</worldbody></mujoco>");
  ck_assert_double_eq(m->dof_damping[0], 2);
  ck_assert_double_eq(m->jnt_stiffness[0], 5);
  ck_assert_double_eq(m->dof_armature[0], 7);
  ck_assert_double_eq(m->jnt_stiffness[1], 5);
  ck_assert_double_eq(m->dof_armature[1], 0);
  ck_assert_double_eq(m->jnt_stiffness[2], 3);
  imp_free_model(m);
}
END_TEST

START_TEST(nested_class_sees_parent_elements_written_after_it) {
  imp_model* m = load(
      "<mujoco><default><default class='a'><joint stiffness='5'/></default>"
      "<joint damping='4'/></default>"
      "<worldbody><body><joint class='a'/><geom size='1'/></body></worldbody></mujoco>");
  ck_assert_double_eq(m->dof_damping[0], 4);
  imp_free_model(m);
}
END_TEST

START_TEST(childclass_applies_to_descendants_until_overridden) {
  imp_model* m = load(
      "<mujoco><default><default class='a'><geom size='0.2'/><joint damping='1'/></default>"
      "<default class='b'><geom size='0.4'/></default></default><worldbody>"
      "<body childclass='a'><joint/><geom/>"
      "  <body><joint/><geom/><geom class='b'/><geom size='0.7'/>"
      "    <body childclass='b'><geom/></body></body></body>"
      "<body><geom size='0.1'/></body></worldbody></mujoco>");
  ck_assert_int_eq(m->ngeom, 6);
  ck_assert_double_eq(m->geom_size[0], 0.2);
  ck_assert_double_eq(m->geom_size[3], 0.2);
  ck_assert_double_eq(m->geom_size[6], 0.4);
  ck_assert_double_eq(m->geom_size[9], 0.7);
  ck_assert_double_eq(m->geom_size[12], 0.4);
  ck_assert_double_eq(m->dof_damping[1], 1);
  imp_free_model(m);
}
END_TEST

START_TEST(actuator_defaults_and_shortcuts) {
  imp_model* m = load(
      "<mujoco><default><motor gear='3' ctrlrange='-1 1'/>"
      "<default class='p'><position kp='5'/></default></default>"
      "<worldbody><body><joint name='j'/><geom size='1'/></body></worldbody><actuator>"
      "<motor joint='j'/><position joint='j' class='p'/><position joint='j' kp='2'/>"
      "<velocity joint='j' kv='4'/><general joint='j' gainprm='6' biasprm='1 2 3' "
      "biastype='affine'/></actuator></mujoco>");
  ck_assert_int_eq(m->nu, 5);
  ck_assert_double_eq(m->actuator_gear[0], 3);
  ck_assert_double_eq(m->actuator_gainprm[0], 1);
  ck_assert_int_eq(m->actuator_biastype[0], IMP_BIAS_NONE);
  ck_assert_int_eq(m->actuator_ctrllimited[0], 1); /* autolimits */
  ck_assert_double_eq(m->actuator_gainprm[IMP_NGAIN], 5);
  ck_assert_double_eq(m->actuator_biasprm[IMP_NGAIN + 1], -5);
  ck_assert_int_eq(m->actuator_biastype[1], IMP_BIAS_AFFINE);
  ck_assert_double_eq(m->actuator_gainprm[2 * IMP_NGAIN], 2);
  ck_assert_double_eq(m->actuator_biasprm[2 * IMP_NGAIN + 1], -2);
  ck_assert_double_eq(m->actuator_gainprm[3 * IMP_NGAIN], 4);
  ck_assert_double_eq(m->actuator_biasprm[3 * IMP_NGAIN + 2], -4);
  ck_assert_double_eq(m->actuator_gainprm[4 * IMP_NGAIN], 6);
  ck_assert_double_eq(m->actuator_biasprm[4 * IMP_NGAIN + 2], 3);
  ck_assert_int_eq(m->actuator_forcelimited[0], 0);
  imp_free_model(m);
}
END_TEST

/* <position kv>: bias (0, -kp, -kv); kv and dampratio come from a class
   <position> (not from a velocity default's bias, as in 2.2.2); dampratio r
   becomes kv = 2 r sqrt(kp M_ii / gear^2) with M at qpos0 and armature;
   an element's kv replaces the class's dampratio and the other way round;
   inheritrange scales the joint's range about its midpoint into ctrlrange. */
START_TEST(position_kv_dampratio_inheritrange) {
  imp_model* m = load(
      "<mujoco><compiler angle='radian'/><default><velocity kv='9'/>"
      "<default class='d'><position kp='50' dampratio='0.5'/></default>"
      "<default class='k'><position kp='40' kv='3'/></default></default>"
      "<worldbody><body><joint name='j' axis='0 0 1' armature='0.1' range='-1 2'/>"
      "<inertial pos='0.2 0 0' mass='2' diaginertia='0.01 0.01 0.02'/></body></worldbody>"
      "<actuator><position joint='j' kp='10' kv='4'/><position joint='j' kp='10'/>"
      "<position joint='j' class='d' gear='2'/><position joint='j' class='d' kv='1'/>"
      "<position joint='j' class='k' dampratio='1'/><position joint='j' class='k'/>"
      "<position joint='j' inheritrange='0.8'/></actuator></mujoco>");
  ck_assert_int_eq(m->nu, 7);
  ck_assert_int_eq(m->nwarning, 0);
  const double I = 0.02 + 2 * 0.2 * 0.2 + 0.1; /* about z: com offset, armature */
  const double* b = m->actuator_biasprm;
  ck_assert_double_eq(b[1], -10);
  ck_assert_double_eq(b[2], -4);
  ck_assert_double_eq(b[IMP_NGAIN + 2], 0); /* not the velocity default's 9 */
  imp_assert_near(b[2 * IMP_NGAIN + 2], -2 * 0.5 * sqrt(50 * I / 4), 1e-12);
  ck_assert_double_eq(b[2 * IMP_NGAIN + 1], -50);
  ck_assert_double_eq(b[3 * IMP_NGAIN + 2], -1);
  imp_assert_near(b[4 * IMP_NGAIN + 2], -2 * sqrt(40 * I), 1e-12);
  ck_assert_double_eq(b[5 * IMP_NGAIN + 2], -3);
  ck_assert_int_eq(m->actuator_ctrllimited[6], 1);
  imp_assert_near(m->actuator_ctrlrange[12], 0.5 - 1.2, 1e-15);
  imp_assert_near(m->actuator_ctrlrange[13], 0.5 + 1.2, 1e-15);
  ck_assert_int_eq(m->actuator_ctrllimited[0], 0);
  imp_free_model(m);
  /* inheritrange 0 ("do not inherit") beside a ctrlrange, as Menagerie's
     i2rt_yam writes them in one default class: the given range stands */
  m = load("<mujoco><default><position ctrlrange='0 0.04' inheritrange='0'/></default>"
           "<worldbody><body><joint name='j' type='slide' range='-1 1'/><geom size='1'/>"
           "</body></worldbody><actuator><position joint='j'/></actuator></mujoco>");
  ck_assert_int_eq(m->actuator_ctrllimited[0], 1);
  ck_assert_double_eq(m->actuator_ctrlrange[0], 0);
  ck_assert_double_eq(m->actuator_ctrlrange[1], 0.04);
  imp_free_model(m);
}
END_TEST

/* Velocity feedback stiffer than the explicit step can take (h kv / M > 2
   under Euler: Menagerie's franka_fr3_v2 diverges in MuJoCo 2.2.2 as in
   ours) is named in a warning; implicitfast takes it implicitly, silently. */
START_TEST(unstable_velocity_feedback_is_warned) {
  const char* fmt =
      "<mujoco><option timestep='0.002' integrator='%s'/><worldbody><body>"
      "<joint name='j' axis='0 0 1' armature='0.2'/><geom size='.01' mass='1e-6'/></body>"
      "</worldbody><actuator><position name='servo' joint='j' kp='4500' kv='%s'/>"
      "</actuator></mujoco>";
  char xml[600];
  snprintf(xml, sizeof xml, fmt, "Euler", "450"); /* 0.002 * 450 / 0.2 = 4.5 */
  imp_model* m = load(xml);
  ck_assert_int_eq(m->nwarning, 1);
  imp_free_model(m);
  snprintf(xml, sizeof xml, fmt, "Euler", "150"); /* 1.5: stable */
  m = load(xml);
  ck_assert_int_eq(m->nwarning, 0);
  imp_free_model(m);
  snprintf(xml, sizeof xml, fmt, "implicitfast", "450");
  m = load(xml);
  ck_assert_int_eq(m->nwarning, 0);
  imp_free_model(m);
}
END_TEST

START_TEST(position_attribute_errors) {
  const char* body = "<worldbody><body><joint name='j'/><geom size='1'/></body></worldbody>";
  char xml[600];
  snprintf(xml, sizeof xml, "<mujoco>%s<actuator>\n<position joint='j' kv='1' dampratio='1'/>"
           "</actuator></mujoco>", body);
  imp_test_expect_error(xml, 2, "kv and dampratio");
  snprintf(xml, sizeof xml, "<mujoco>%s<actuator>\n<position joint='j' kv='-1'/>"
           "</actuator></mujoco>", body);
  imp_test_expect_error(xml, 2, "non-negative");
  snprintf(xml, sizeof xml, "<mujoco>%s<actuator>\n<position joint='j' inheritrange='1' "
           "ctrlrange='0 1'/></actuator></mujoco>", body);
  imp_test_expect_error(xml, 2, "inheritrange");
  snprintf(xml, sizeof xml, "<mujoco>%s<actuator>\n<position joint='j' inheritrange='1'/>"
           "</actuator></mujoco>", body);
  imp_test_expect_error(xml, 2, "has no range");
}
END_TEST

/* ------------------------------------------------------------ orientations */

START_TEST(quat_is_normalized) {
  imp_model* m = load("<mujoco><worldbody><body quat='2 0 0 2'/></worldbody></mujoco>");
  double e[4] = {sqrt(0.5), 0, 0, sqrt(0.5)};
  assert_vec(m->body_quat + 4, e, 4, TOL);
  imp_free_model(m);
}
END_TEST

START_TEST(axisangle_in_degrees_and_radians) {
  imp_model* m = load(
      "<mujoco><worldbody><body axisangle='0 0 2 90'/></worldbody></mujoco>");
  double e[4] = {sqrt(0.5), 0, 0, sqrt(0.5)};
  assert_vec(m->body_quat + 4, e, 4, TOL);
  imp_free_model(m);
  m = load("<mujoco><compiler angle='radian'/><worldbody><body axisangle='0 0 1 1.5707963267948966'/>"
           "</worldbody></mujoco>");
  assert_vec(m->body_quat + 4, e, 4, TOL);
  imp_free_model(m);
}
END_TEST

START_TEST(euler_uses_compiler_eulerseq) {
  imp_model* m = load("<mujoco><worldbody><body euler='90 0 90'/></worldbody></mujoco>");
  double a[4], b[4], e[4], x[3] = {1, 0, 0}, z[3] = {0, 0, 1};
  imp_axisangle2quat(a, x, PI / 2);
  imp_axisangle2quat(b, z, PI / 2);
  imp_quat_mul(e, a, b); /* intrinsic x then z */
  assert_quat(m->body_quat + 4, e);
  imp_free_model(m);
  m = load("<mujoco><compiler eulerseq='XYZ'/><worldbody><body euler='90 0 90'/></worldbody></mujoco>");
  imp_quat_mul(e, b, a); /* extrinsic: z applied after x in the fixed frame */
  assert_quat(m->body_quat + 4, e);
  imp_free_model(m);
}
END_TEST

START_TEST(xyaxes_are_orthonormalized) {
  imp_model* m = load("<mujoco><worldbody><body xyaxes='0 2 0 -1 1 0'/></worldbody></mujoco>");
  double e[4] = {sqrt(0.5), 0, 0, sqrt(0.5)};
  assert_quat(m->body_quat + 4, e);
  imp_free_model(m);
}
END_TEST

START_TEST(zaxis_gives_shortest_rotation) {
  imp_model* m = load("<mujoco><worldbody><body zaxis='1 0 0'/></worldbody></mujoco>");
  double e[4] = {sqrt(0.5), 0, sqrt(0.5), 0};
  assert_quat(m->body_quat + 4, e);
  imp_free_model(m);
}
END_TEST

START_TEST(two_orientations_is_an_error) {
  imp_test_expect_error("<mujoco><worldbody>\n<body quat='1 0 0 0' euler='0 0 0'/></worldbody></mujoco>",
               2, "orientation");
}
END_TEST

/* ------------------------------------------------------------------ angles */

START_TEST(hinge_range_ref_in_degrees_by_default) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint range='-90 45' ref='30' springref='60'/>"
      "<joint type='slide' range='-1 2' ref='0.5'/><geom size='1'/></body></worldbody></mujoco>");
  ck_assert_int_eq(m->jnt_limited[0], 1);
  imp_assert_near(m->jnt_range[0], -PI / 2, TOL);
  imp_assert_near(m->jnt_range[1], PI / 4, TOL);
  imp_assert_near(m->qpos0[0], PI / 6, TOL);
  imp_assert_near(m->qpos_spring[0], PI / 3, TOL);
  ck_assert_double_eq(m->jnt_range[2], -1);
  ck_assert_double_eq(m->jnt_range[3], 2);
  ck_assert_double_eq(m->qpos0[1], 0.5);
  imp_free_model(m);
}
END_TEST

START_TEST(radian_compiler_keeps_values) {
  imp_model* m = load(
      "<mujoco><compiler angle='radian'/><worldbody><body><joint range='-1 0.5' ref='0.2'/>"
      "<joint type='ball' range='0 0.7'/><geom size='1'/></body></worldbody></mujoco>");
  ck_assert_double_eq(m->jnt_range[0], -1);
  ck_assert_double_eq(m->qpos0[0], 0.2);
  ck_assert_double_eq(m->jnt_range[3], 0.7);
  imp_free_model(m);
}
END_TEST

START_TEST(limited_auto_and_explicit) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint range='0 1'/><joint/><joint limited='false' range='0 1'/>"
      "<joint limited='true' range='0 1'/><geom size='1'/></body></worldbody></mujoco>");
  ck_assert_int_eq(m->jnt_limited[0], 1);
  ck_assert_int_eq(m->jnt_limited[1], 0);
  ck_assert_int_eq(m->jnt_limited[2], 0);
  ck_assert_int_eq(m->jnt_limited[3], 1);
  imp_free_model(m);
}
END_TEST

/* frictionloss reaches every dof of its joint (a ball's three, a free
   joint's six), from a default class too (not into <freejoint>, which takes
   no defaults), with njmax and the island bound
   counting one row each; a negative bound is refused */
START_TEST(frictionloss_per_dof) {
  imp_model* m = load(
      "<mujoco><default><joint frictionloss='0.25'/><geom contype='0' conaffinity='0'/></default>"
      "<worldbody>"
      "<body><joint type='ball'/><geom size='1'/><body><joint frictionloss='2'/><geom size='1'/>"
      "<body><joint frictionloss='0'/><geom size='1'/></body></body></body>"
      "<body><joint type='free'/><geom size='1'/></body>"
      "<body><freejoint/><geom size='1'/></body></worldbody></mujoco>");
  ck_assert_int_eq(m->nv, 17);
  for (int i = 0; i < 3; i++) ck_assert_double_eq(m->dof_frictionloss[i], 0.25);
  ck_assert_double_eq(m->dof_frictionloss[3], 2);
  ck_assert_double_eq(m->dof_frictionloss[4], 0);
  for (int i = 5; i < 11; i++) ck_assert_double_eq(m->dof_frictionloss[i], 0.25);
  for (int i = 11; i < 17; i++) ck_assert_double_eq(m->dof_frictionloss[i], 0);
  ck_assert_int_ge(m->nislandmax, 10);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  ck_assert_int_eq(d->nefc, 10); /* one dry friction row per dof with a bound, in every step */
  imp_free_data(d);
  imp_free_model(m);
  imp_test_expect_error("<mujoco><worldbody><body>\n<joint frictionloss='-1'/><geom size='1'/></body>"
               "</worldbody></mujoco>", 2, "frictionloss must be >= 0");
}
END_TEST

Suite* loader_suite(void) {
  Suite* s = suite_create("loader");
  TCase* t = tcase_create("defaults");
  tcase_add_test(t, main_class_sets_joint_and_geom_defaults);
  tcase_add_test(t, nested_class_inherits_parent_and_overrides);
  tcase_add_test(t, nested_class_sees_parent_elements_written_after_it);
  tcase_add_test(t, childclass_applies_to_descendants_until_overridden);
  tcase_add_test(t, actuator_defaults_and_shortcuts);
  tcase_add_test(t, position_kv_dampratio_inheritrange);
  tcase_add_test(t, unstable_velocity_feedback_is_warned);
  tcase_add_test(t, position_attribute_errors);
  suite_add_tcase(s, t);
  t = tcase_create("orientation");
  tcase_add_test(t, quat_is_normalized);
  tcase_add_test(t, axisangle_in_degrees_and_radians);
  tcase_add_test(t, euler_uses_compiler_eulerseq);
  tcase_add_test(t, xyaxes_are_orthonormalized);
  tcase_add_test(t, zaxis_gives_shortest_rotation);
  tcase_add_test(t, two_orientations_is_an_error);
  tcase_add_test(t, hinge_range_ref_in_degrees_by_default);
  tcase_add_test(t, radian_compiler_keeps_values);
  tcase_add_test(t, limited_auto_and_explicit);
  tcase_add_test(t, frictionloss_per_dof);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(loader_suite()); }
