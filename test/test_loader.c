/* Tests of the MJCF loader (model/): defaults and classes, orientations,
 * angle units, inertia from geoms, includes, keyframes, the qpos layout,
 * names, warnings, the constraint settings (solver options, njmax, nJrow,
 * solref, ball joint cones, equalities), and every error with its file and
 * line. Independent of
 * MuJoCo: expected values come from the MJCF definitions and analytic
 * formulas. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "constraint/contact.h"
#include "engine.h"
#include "impetus.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

#define PI 3.14159265358979323846
#define TOL 1e-12

static char g_err[1000];

/* load inline text named "t.xml"; fail the test on error */
static imp_model* load(const char* xml) {
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  return m;
}

/* the same with IMP_LOAD_ALLOW_UNSUPPORTED */
static imp_model* load_allow(const char* xml) {
  imp_model* m = imp_load_xml_string_opt(xml, NULL, "t.xml", IMP_LOAD_ALLOW_UNSUPPORTED, g_err,
                                         sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  return m;
}


static void assert_vec(const double* a, const double* b, int n, double tol) {
  for (int i = 0; i < n; i++)
    ck_assert_msg(fabs(a[i] - b[i]) <= tol, "[%d]: %.17g vs %.17g", i, a[i], b[i]);
}

/* body inertia tensor in the body frame, R diag(I) R' */
static void body_tensor(const imp_model* m, int b, double T[9]) {
  double R[9];
  imp_quat2mat(R, m->body_iquat + 4 * b);
  const double* d = m->body_inertia + 3 * b;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      T[3 * i + j] = R[3 * i] * d[0] * R[3 * j] + R[3 * i + 1] * d[1] * R[3 * j + 1] +
                     R[3 * i + 2] * d[2] * R[3 * j + 2];
}

/* same rotation (q or -q) */
static void assert_quat(const double* q, const double* e) {
  double s = q[0] * e[0] + q[1] * e[1] + q[2] * e[2] + q[3] * e[3];
  ck_assert_msg(fabs(fabs(s) - 1) < 1e-12, "quat %g %g %g %g vs %g %g %g %g", q[0], q[1], q[2],
                q[3], e[0], e[1], e[2], e[3]);
}

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

/* ----------------------------------------------------------------- inertia */

/* mass and principal moments of one geom in a body of its own */
static imp_model* one_geom(const char* geom) {
  char xml[1000];
  snprintf(xml, sizeof xml, "<mujoco><worldbody><body><joint/>%s</body></worldbody></mujoco>",
           geom);
  return load(xml);
}

START_TEST(sphere_inertia) {
  imp_model* m = one_geom("<geom type='sphere' size='0.5' density='2'/>");
  double mass = 2 * 4.0 / 3 * PI * 0.125;
  imp_assert_near(m->body_mass[1], mass, TOL);
  for (int i = 0; i < 3; i++) imp_assert_near(m->body_inertia[3 + i], 0.4 * mass * 0.25, TOL);
  imp_free_model(m);
}
END_TEST

START_TEST(capsule_inertia) {
  imp_model* m = one_geom("<geom type='capsule' size='0.2 0.5'/>");
  double r = 0.2, h = 1.0, mc = 1000 * PI * r * r * h, ms = 1000 * 4.0 / 3 * PI * r * r * r;
  double Ixx = mc * (3 * r * r + h * h) / 12 + ms * (0.4 * r * r + h * h / 4 + 3 * h * r / 8);
  double Izz = mc * r * r / 2 + 0.4 * ms * r * r;
  imp_assert_near(m->body_mass[1], mc + ms, 1e-9);
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(T[0], Ixx, 1e-9);
  imp_assert_near(T[4], Ixx, 1e-9);
  imp_assert_near(T[8], Izz, 1e-9);
  imp_free_model(m);
}
END_TEST

START_TEST(cylinder_inertia) {
  imp_model* m = one_geom("<geom type='cylinder' size='0.2 0.5' mass='3'/>");
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(m->body_mass[1], 3, TOL);
  imp_assert_near(T[0], 3 * (3 * 0.04 + 1) / 12, 1e-12);
  imp_assert_near(T[8], 3 * 0.04 / 2, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(box_inertia) {
  imp_model* m = one_geom("<geom type='box' size='0.1 0.2 0.3'/>");
  double mass = 1000 * 8 * 0.006, T[9];
  body_tensor(m, 1, T);
  imp_assert_near(m->body_mass[1], mass, 1e-9);
  imp_assert_near(T[0], mass * (0.04 + 0.09) / 3, 1e-9);
  imp_assert_near(T[4], mass * (0.01 + 0.09) / 3, 1e-9);
  imp_assert_near(T[8], mass * (0.01 + 0.04) / 3, 1e-9);
  imp_free_model(m);
}
END_TEST

START_TEST(ellipsoid_inertia) {
  imp_model* m = one_geom("<geom type='ellipsoid' size='0.1 0.2 0.3' mass='5'/>");
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(T[0], 5 * (0.04 + 0.09) / 5, 1e-12);
  imp_assert_near(T[4], 5 * (0.01 + 0.09) / 5, 1e-12);
  imp_assert_near(T[8], 5 * (0.01 + 0.04) / 5, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(geoms_combine_by_parallel_axis) {
  imp_model* m = one_geom(
      "<geom size='0.1' mass='1' pos='1 0 0'/><geom size='0.1' mass='3' pos='-1 0 0'/>");
  double T[9], ipos[3] = {-0.5, 0, 0};
  imp_assert_near(m->body_mass[1], 4, TOL);
  assert_vec(m->body_ipos + 3, ipos, 3, TOL);
  body_tensor(m, 1, T);
  double Is = 0.4 * 0.01;
  imp_assert_near(T[0], 4 * Is, 1e-12);
  imp_assert_near(T[4], 4 * Is + 1 * 1.5 * 1.5 + 3 * 0.5 * 0.5, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(rotated_geom_inertia_rotates) {
  imp_model* m = one_geom("<geom type='box' size='0.1 0.2 0.3' mass='1' euler='0 0 90'/>");
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(T[0], (0.01 + 0.09) / 3, 1e-12); /* x and y swap */
  imp_assert_near(T[4], (0.04 + 0.09) / 3, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(inertial_wins_in_auto_and_geoms_win_when_true) {
  const char* body =
      "<worldbody><body><joint/><inertial pos='0 0 1' mass='2' diaginertia='1 2 3'/>"
      "<geom size='0.1' mass='5'/></body></worldbody></mujoco>";
  char xml[600];
  snprintf(xml, sizeof xml, "<mujoco>%s", body);
  imp_model* m = load(xml);
  ck_assert_double_eq(m->body_mass[1], 2);
  ck_assert_double_eq(m->body_ipos[5], 1);
  imp_free_model(m);
  snprintf(xml, sizeof xml, "<mujoco><compiler inertiafromgeom='true'/>%s", body);
  m = load(xml);
  ck_assert_double_eq(m->body_mass[1], 5);
  imp_free_model(m);
}
END_TEST

START_TEST(fullinertia_is_diagonalized) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint/><inertial pos='0 0 0' mass='1' "
      "fullinertia='1 2 2.5 0.1 0.2 0.3'/></body></worldbody></mujoco>");
  double T[9], e[9] = {1, 0.1, 0.2, 0.1, 2, 0.3, 0.2, 0.3, 2.5};
  body_tensor(m, 1, T);
  assert_vec(T, e, 9, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(subtreemass_and_rootid) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='a'><geom size='0.1' mass='1'/><body name='b'>"
      "<geom size='0.1' mass='2'/></body></body><body name='c'><geom size='0.1' mass='4'/>"
      "</body></worldbody></mujoco>");
  ck_assert_double_eq(m->body_subtreemass[0], 7);
  ck_assert_double_eq(m->body_subtreemass[1], 3);
  ck_assert_int_eq(m->body_rootid[2], 1);
  ck_assert_int_eq(m->body_rootid[3], 3);
  ck_assert_int_eq(m->body_rootid[0], 0);
  imp_free_model(m);
}
END_TEST

/* <compiler settotalmass>: the masses (boundmass included: MuJoCo scales
   last) sum to the total, each mass and moment scaled by one factor. */
START_TEST(settotalmass_scales_masses_and_inertias) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler settotalmass='14' boundmass='1' boundinertia='0.01'/><worldbody>"
      "<body name='a'><joint/><geom size='0.2' mass='2'/><body name='b'><joint/>"
      "<inertial pos='0 0 0' mass='3' diaginertia='0.1 0.2 0.3'/></body>"
      "<body name='c'><joint/><site/></body></body></worldbody></mujoco>");
  /* before scaling: 2 + 3 + 1 (c raised to boundmass) = 6 */
  double k = 14.0 / 6;
  imp_assert_near(m->body_mass[1], 2 * k, 1e-13);
  imp_assert_near(m->body_mass[2], 3 * k, 1e-13);
  imp_assert_near(m->body_mass[3], 1 * k, 1e-13);
  imp_assert_near(m->body_subtreemass[0], 14, 1e-13);
  imp_assert_near(m->body_subtreemass[1], 14, 1e-13);
  /* a solid sphere: 2/5 m r^2 */
  imp_assert_near(m->body_inertia[3], 0.4 * 2 * 0.04 * k, 1e-13);
  double I[3] = {0.1 * k, 0.2 * k, 0.3 * k};
  assert_vec(m->body_inertia + 6, I, 3, 1e-13);
  double Ic[3] = {0.01 * k, 0.01 * k, 0.01 * k};
  assert_vec(m->body_inertia + 9, Ic, 3, 1e-13);
  imp_free_model(m);
}
END_TEST

/* ------------------------------------------------------------------ fromto */

START_TEST(fromto_sets_pos_quat_and_length) {
  imp_model* m = load(
      "<mujoco><worldbody><geom type='capsule' fromto='0 0 0 0 0 2' size='0.1'/>"
      "<geom type='box' fromto='1 0 0 3 0 0' size='0.2'/></worldbody></mujoco>");
  double p0[3] = {0, 0, 1}, s0[3] = {0.1, 1, 0}, p1[3] = {2, 0, 0}, s1[3] = {0.2, 0.2, 1};
  assert_vec(m->geom_pos, p0, 3, TOL);
  assert_vec(m->geom_size, s0, 3, TOL);
  assert_vec(m->geom_pos + 3, p1, 3, TOL);
  assert_vec(m->geom_size + 3, s1, 3, TOL);
  double z[3] = {0, 0, 1}, v[3];
  imp_quat_rotate(v, m->geom_quat + 4, z); /* the long axis lies along x */
  imp_assert_near(fabs(v[0]), 1, TOL);
  imp_assert_near(m->geom_rbound[0], 1.1, TOL);
  imp_free_model(m);
}
END_TEST

/* ----------------------------------------------------------------- include */

START_TEST(include_splices_children_relative_to_main_dir) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[400], sub[300], main_[300], inc[300], inc2[300];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  snprintf(main_, sizeof main_, "%s/main.xml", dir);
  snprintf(inc, sizeof inc, "%s/sub/a.xml", dir);
  snprintf(inc2, sizeof inc2, "%s/b.xml", dir);
  FILE* f = fopen(main_, "w");
  fputs("<mujoco model='inc'>\n<worldbody>\n<include file='sub/a.xml'/>\n"
        "<geom name='last' size='1'/></worldbody></mujoco>\n", f);
  fclose(f);
  f = fopen(inc, "w");
  /* paths are relative to the main file, not to sub/ */
  fputs("<mujoco><body name='x'><geom size='1'/></body><include file='b.xml'/></mujoco>\n", f);
  fclose(f);
  f = fopen(inc2, "w");
  fputs("<mujoco><body name='y'><geom size='1'/></body></mujoco>\n", f);
  fclose(f);
  imp_model* m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->nbody, 3);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "x"), 1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "y"), 2);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_GEOM, "last"), 0); /* world geoms first */
  imp_free_model(m);
  /* a missing include names the file and the including file:line */
  f = fopen(main_, "w");
  fputs("<mujoco>\n<worldbody>\n\n<include file='nope.xml'/></worldbody></mujoco>\n", f);
  fclose(f);
  m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  snprintf(path, sizeof path, "%s:4:", main_);
  ck_assert_msg(strstr(g_err, path) && strstr(g_err, "nope.xml"), "%s", g_err);
  /* an error inside an included file names that file */
  f = fopen(main_, "w");
  fputs("<mujoco><worldbody><include file='b.xml'/></worldbody></mujoco>\n", f);
  fclose(f);
  f = fopen(inc2, "w");
  fputs("<mujoco>\n\n<body><joint type='bogus'/></body></mujoco>\n", f);
  fclose(f);
  m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  snprintf(path, sizeof path, "%s:3:", inc2);
  ck_assert_msg(strstr(g_err, path) && strstr(g_err, "bogus"), "%s", g_err);
  unlink(main_);
  unlink(inc);
  unlink(inc2);
  rmdir(sub);
  rmdir(dir);
}
END_TEST

/* ------------------------------------------------- hostile files (issue 15) */

/* text into dir/name */
static void put_file(const char* dir, const char* name, const char* text) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* remove dir and the files in it */
static void remove_dir(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return;
  struct dirent* e;
  char path[600];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(dir);
}

/* load dir/main.xml: NULL expected, the error naming where and what */
static void expect_load_error(const char* dir, const char* where, const char* what) {
  char main_[600];
  snprintf(main_, sizeof main_, "%s/main.xml", dir);
  imp_model* m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_msg(m == NULL, "loaded although it should fail with '%s'", what);
  ck_assert_msg(strstr(g_err, where) && strstr(g_err, what), "error '%s' lacks '%s' or '%s'",
                g_err, where, what);
}

/* nfile files, each nesting per bodies, the next included in the innermost */
static void write_nested_files(const char* dir, int nfile, int per) {
  size_t cap = (size_t)per * 40 + 200;
  char* s = malloc(cap);
  ck_assert_ptr_nonnull(s);
  for (int i = 0; i < nfile; i++) {
    size_t k = (size_t)snprintf(s, cap, "<mujoco>\n");
    for (int b = 0; b < per; b++) k += (size_t)snprintf(s + k, cap - k, "<body><geom size='.1'/>");
    if (i + 1 < nfile) k += (size_t)snprintf(s + k, cap - k, "<include file='d%d.xml'/>", i + 1);
    for (int b = 0; b < per; b++) k += (size_t)snprintf(s + k, cap - k, "</body>");
    snprintf(s + k, cap - k, "</mujoco>\n");
    char name[32];
    snprintf(name, sizeof name, "d%d.xml", i);
    put_file(dir, name, s);
  }
  free(s);
  put_file(dir, "main.xml", "<mujoco><worldbody><include file='d0.xml'/></worldbody></mujoco>\n");
}

/* Bodies nested through includes deeper than any one file may nest them
   (libxml2 stops at 256) load up to LD_MAXDEPTH; beyond it an error names
   the file and line instead of the recursive readers overflowing the stack
   (4,000 levels crashed). */
START_TEST(nesting_through_includes_is_bounded) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  write_nested_files(dir, 2, 150); /* 300 bodies deep */
  char main_[600];
  snprintf(main_, sizeof main_, "%s/main.xml", dir);
  imp_model* m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->nbody, 301);
  ck_assert_int_eq(m->body_parentid[300], 299);
  imp_free_model(m);
  remove_dir(dir);
  ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/imp_test_loaderXXXXXX")));
  write_nested_files(dir, 20, 200); /* 4,000 deep */
  expect_load_error(dir, "d4.xml:2:", "nested more than 1000 deep");
  remove_dir(dir);
}
END_TEST

/* An internal entity is expanded in attributes; the text it adds is
   bounded: 100 references to a 100 KB entity (10 MB of attribute text;
   5,000 of them took 87 s and 1 GB) are refused at the element's line. */
START_TEST(entity_expansion_is_bounded) {
  imp_model* m = imp_test_load_string_nowarn(
      "<?xml version='1.0'?>\n<!DOCTYPE mujoco [<!ENTITY r '0.25'><!ENTITY s '&r; 0.5'>]>\n"
      "<mujoco><worldbody><body><geom type='capsule' size='&s;'/>\n"
      "<geom type='sphere' size='&r;' pos='0 0 1&r;'/></body></worldbody></mujoco>");
  ck_assert_double_eq(m->geom_size[0], 0.25);
  ck_assert_double_eq(m->geom_size[1], 0.5);
  ck_assert_double_eq(m->geom_pos[5], 10.25); /* text and entity joined */
  imp_free_model(m);
  size_t big = 100000, nref = 100, cap = big + 5 * nref + 400;
  char* xml = malloc(cap);
  ck_assert_ptr_nonnull(xml);
  size_t k = (size_t)snprintf(xml, cap, "<?xml version='1.0'?>\n<!DOCTYPE mujoco [<!ENTITY e '");
  memset(xml + k, 'a', big);
  k += big;
  k += (size_t)snprintf(xml + k, cap - k, "'>]>\n<mujoco>\n<worldbody>\n<body name='");
  for (size_t i = 0; i < nref; i++) k += (size_t)snprintf(xml + k, cap - k, "&e;");
  snprintf(xml + k, cap - k, "'><geom size='1'/></body></worldbody></mujoco>\n");
  imp_test_expect_error(xml, 5, "entity");
  free(xml);
}
END_TEST

/* A chain of files each including the next twice reads 2^levels files:
   the includes of one load are bounded in number (LD_MAXINCLUDES) and in
   total bytes (LD_MAXINCLUDEBYTES), each with an error at the <include>. */
START_TEST(includes_are_bounded_in_number_and_bytes) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  for (int i = 0; i < 15; i++) { /* 32,767 includes */
    char name[32], text[200];
    snprintf(name, sizeof name, "c%d.xml", i);
    if (i < 14)
      snprintf(text, sizeof text, "<mujoco><include file='c%d.xml'/><include file='c%d.xml'/></mujoco>\n",
               i + 1, i + 1);
    else
      snprintf(text, sizeof text, "<mujoco><geom size='.1'/></mujoco>\n");
    put_file(dir, name, text);
  }
  put_file(dir, "main.xml", "<mujoco><worldbody><include file='c0.xml'/></worldbody></mujoco>\n");
  expect_load_error(dir, ".xml:1:", "more than 10000 includes");
  remove_dir(dir);
  /* a 1 MB file included 70 times: 70 MB */
  ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/imp_test_loaderXXXXXX")));
  size_t n = 1 << 20;
  char* big = malloc(n + 100);
  ck_assert_ptr_nonnull(big);
  size_t k = (size_t)snprintf(big, 100, "<mujoco><!--");
  memset(big + k, '.', n);
  snprintf(big + k + n, 100, "--><geom size='.1'/></mujoco>\n");
  put_file(dir, "big.xml", big);
  free(big);
  char text[3000] = "<mujoco><worldbody>\n";
  for (int i = 0; i < 70; i++) strcat(text, "<include file='big.xml'/>");
  strcat(text, "</worldbody></mujoco>\n");
  put_file(dir, "main.xml", text);
  expect_load_error(dir, "main.xml:2:", "included files exceed 64 MB");
  remove_dir(dir);
}
END_TEST

/* An include that names a FIFO (which blocked the load forever), a
   directory or a device is refused at the <include>. */
START_TEST(include_of_a_non_regular_file_is_refused) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char fifo[600];
  snprintf(fifo, sizeof fifo, "%s/fifo.xml", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  put_file(dir, "main.xml", "<mujoco><worldbody>\n<include file='fifo.xml'/></worldbody></mujoco>\n");
  expect_load_error(dir, "main.xml:2:", "not a regular file");
  put_file(dir, "main.xml", "<mujoco><worldbody>\n\n<include file='/dev/zero'/></worldbody></mujoco>\n");
  expect_load_error(dir, "main.xml:3:", "not a regular file");
  put_file(dir, "main.xml", "<mujoco><worldbody>\n<include file='.'/></worldbody></mujoco>\n");
  expect_load_error(dir, "main.xml:2:", "not a regular file");
  remove_dir(dir);
}
END_TEST

/* Numbers a model needs finite (all of them) and positive (the time step)
   or non-negative (masses, densities, inertias) are checked where they are
   read, with file:line (issue 15: a timestep of 0 ran with time stuck, a
   nan or inf mass loaded and reset every step). */
START_TEST(numbers_must_be_finite_and_in_range) {
  static const struct {
    const char* xml; /* the element on line 2 */
    const char* what;
  } bad[] = {
      {"<option timestep='0'/>", "timestep must be positive"},
      {"<option timestep='-0.001'/>", "timestep must be positive"},
      {"<option timestep='nan'/>", "'nan' is not a finite number"},
      {"<option timestep='inf'/>", "'inf' is not a finite number"},
      {"<option timestep='1e-320'/>", "too small"},
      {"<option gravity='0 0 -inf'/>", "not a finite number"},
      {"<option density='1e999'/>", "not a finite number"},
      {"<worldbody><body><freejoint/><inertial pos='0 0 0' mass='inf' diaginertia='1 1 1'/>"
       "</body></worldbody>", "not a finite number"},
      {"<worldbody><body><freejoint/><inertial pos='0 0 0' mass='1' diaginertia='nan 1 1'/>"
       "</body></worldbody>", "not a finite number"},
      {"<worldbody><body><freejoint/><geom size='.1' mass='nan'/></body></worldbody>",
       "not a finite number"},
      {"<worldbody><body><freejoint/><geom size='.1' mass='-1'/></body></worldbody>",
       "mass and density must be non-negative"},
      {"<worldbody><body><freejoint/><geom size='.1' density='-1'/></body></worldbody>",
       "mass and density must be non-negative"},
      {"<worldbody><body><freejoint/><geom size='.1' density='inf'/></body></worldbody>",
       "not a finite number"},
      {"<worldbody><body><freejoint/><geom size='inf'/></body></worldbody>", "not a finite"},
      {"<worldbody><body pos='0 nan 0'><freejoint/><geom size='1'/></body></worldbody>",
       "not a finite number"},
      /* finite, but its mass overflows */
      {"<worldbody><body><freejoint/><geom size='1e200'/></body></worldbody>",
       "mass or inertia is not finite"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char xml[600];
    snprintf(xml, sizeof xml, "<mujoco>\n%s\n</mujoco>", bad[i].xml);
    imp_test_expect_error(xml, 2, bad[i].what);
  }
  /* the smallest normal time step is allowed */
  imp_model* m = imp_test_load_string("<mujoco><option timestep='2.3e-308'/></mujoco>");
  ck_assert_double_eq(m->opt.timestep, 2.3e-308);
  imp_free_model(m);
}
END_TEST

START_TEST(missing_main_file_is_named) {
  imp_model* m = imp_load_xml("/nonexistent/dir/model.xml", g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(g_err, "/nonexistent/dir/model.xml"), "%s", g_err);
}
END_TEST

/* ---------------------------------------------------------- layout, names */

START_TEST(qpos_layout_free_ball_hinge_slide) {
  imp_model* m = load(
      "<mujoco><worldbody><body pos='1 2 3' quat='0 1 0 0'><freejoint/><geom size='1'/>"
      "<body><joint type='ball'/><joint type='slide' ref='0.5'/><geom size='1'/>"
      "<body><joint/><geom size='1'/></body></body></body></worldbody></mujoco>");
  ck_assert_int_eq(m->nq, 7 + 4 + 1 + 1);
  ck_assert_int_eq(m->nv, 6 + 3 + 1 + 1);
  int qadr[4] = {0, 7, 11, 12}, dadr[4] = {0, 6, 9, 10};
  for (int j = 0; j < 4; j++) {
    ck_assert_int_eq(m->jnt_qposadr[j], qadr[j]);
    ck_assert_int_eq(m->jnt_dofadr[j], dadr[j]);
  }
  double q0[13] = {1, 2, 3, 0, 1, 0, 0, 1, 0, 0, 0, 0.5, 0};
  assert_vec(m->qpos0, q0, 13, TOL);
  assert_vec(m->qpos_spring, q0, 11, TOL);
  /* dof tree: a chain */
  for (int d = 0; d < m->nv; d++) ck_assert_int_eq(m->dof_parentid[d], d - 1);
  ck_assert_int_eq(m->dof_Madr[3], 1 + 2 + 3);
  ck_assert_int_eq(m->nM, m->nv * (m->nv + 1) / 2);
  ck_assert_int_eq(m->body_dofnum[2], 4);
  ck_assert_int_eq(m->body_dofadr[2], 6);
  imp_free_model(m);
}
END_TEST

START_TEST(dof_parent_skips_bodies_without_dofs) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint/><geom size='1'/><body><geom size='1'/>"
      "<body><joint/><geom size='1'/></body></body><body><joint/><geom size='1'/></body></body>"
      "<body><joint/><geom size='1'/></body></worldbody></mujoco>");
  int parent[4] = {-1, 0, 0, -1}, madr[4] = {0, 1, 3, 5};
  for (int d = 0; d < 4; d++) {
    ck_assert_int_eq(m->dof_parentid[d], parent[d]);
    ck_assert_int_eq(m->dof_Madr[d], madr[d]);
  }
  ck_assert_int_eq(m->nM, 6);
  imp_free_model(m);
}
END_TEST

START_TEST(joints_and_geoms_are_ordered_by_body) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='a'><geom name='g1' size='1'/><joint name='j1'/>"
      "<body name='b'><joint name='j2'/><geom name='g2' size='1'/></body>"
      "<geom name='g3' size='1'/><joint name='j3'/></body></worldbody></mujoco>");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_JOINT, "j3"), 1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_JOINT, "j2"), 2);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_GEOM, "g3"), 1);
  ck_assert_int_eq(m->body_geomadr[2], 2);
  ck_assert_int_eq(m->body_geomnum[1], 2);
  imp_free_model(m);
}
END_TEST

START_TEST(names_lookup_both_ways) {
  imp_model* m = load(
      "<mujoco model='mod'><asset><texture name='t' builtin='checker' width='2' height='2'/>"
      "<material name='mat' texture='t'/></asset><worldbody>"
      "<body name='b'><joint name='j'/><geom name='g' size='1' material='mat'/><site name='s'/>"
      "<camera name='c'/><light name='l'/></body><geom size='2'/></worldbody>"
      "<actuator><motor name='a' joint='j'/></actuator><keyframe><key name='k'/></keyframe>"
      "</mujoco>");
  ck_assert_str_eq(m->names, "mod");
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_BODY, 0), "world");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "b"), 1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_JOINT, "j"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_GEOM, "g"), 1);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_GEOM, 0), "");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_SITE, "s"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_CAMERA, "c"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_LIGHT, "l"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_ACTUATOR, "a"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_KEY, "k"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_MATERIAL, "mat"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_TEXTURE, "t"), 0);
  ck_assert_int_eq(m->geom_matid[1], 0);
  ck_assert_int_eq(m->mat_texid[0], 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "nope"), -1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, ""), -1);
  ck_assert_ptr_null(imp_id2name(m, IMP_OBJ_BODY, 5));
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_KEY, 0), "k");
  imp_free_model(m);
}
END_TEST

/* ----------------------------------------------------- option, keys, misc */

START_TEST(option_and_visual_defaults_and_values) {
  imp_model* m = load("<mujoco><worldbody/></mujoco>");
  ck_assert_double_eq(m->opt.timestep, 0.002);
  ck_assert_double_eq(m->opt.gravity[2], -9.81);
  ck_assert_int_eq(m->opt.integrator, IMP_INT_EULER);
  ck_assert_double_eq(m->vis.fovy, 45);
  ck_assert_int_eq(m->vis.offwidth, 640);
  ck_assert_int_eq(m->nwarning, 0);
  imp_free_model(m);
  m = load("<mujoco><option timestep='0.01' gravity='0 0 -1' integrator='RK4'>"
           "<flag contact='disable' gravity='disable'/></option>"
           "<visual><global fovy='60' offwidth='800'/><map zfar='30'/></visual></mujoco>");
  ck_assert_double_eq(m->opt.timestep, 0.01);
  ck_assert_double_eq(m->opt.gravity[2], -1);
  ck_assert_int_eq(m->opt.integrator, IMP_INT_RK4);
  ck_assert_int_eq(m->opt.disableflags, IMP_DSBL_CONTACT | IMP_DSBL_GRAVITY);
  ck_assert_double_eq(m->vis.fovy, 60);
  ck_assert_double_eq(m->vis.zfar, 30);
  ck_assert_int_eq(m->nwarning, 0); /* RK4 is stepped as RK4 */
  imp_free_model(m);
  /* every MJCF integrator is stepped as itself, numbered as MuJoCo numbers them */
  static const char* const integ[] = {"Euler", "RK4", "implicit", "implicitfast"};
  for (int i = 0; i < 4; i++) {
    char xml[200];
    snprintf(xml, sizeof xml,
             "<mujoco><option integrator='%s'><flag constraint='disable' energy='enable'/>"
             "</option></mujoco>", integ[i]);
    m = load(xml);
    ck_assert_int_eq(m->opt.integrator, i);
    ck_assert_int_eq(m->opt.disableflags, IMP_DSBL_CONSTRAINT);
    ck_assert_int_eq(m->nwarning, 0);
    imp_free_model(m);
  }
  ck_assert_int_eq(IMP_INT_IMPLICIT, 2);
  ck_assert_int_eq(IMP_INT_IMPLICITFAST, 3);
}
END_TEST

START_TEST(keyframes_fill_missing_with_qpos0_and_zeros) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint name='j' ref='0.3' range='-90 90'/><geom size='1'/>"
      "</body></worldbody><actuator><motor joint='j'/></actuator><keyframe>"
      "<key name='a' time='2' qpos='0.5' qvel='1' ctrl='3'/><key/></keyframe></mujoco>");
  ck_assert_int_eq(m->nkey, 2);
  ck_assert_double_eq(m->key_time[0], 2);
  ck_assert_double_eq(m->key_qpos[0], 0.5);
  ck_assert_double_eq(m->key_qvel[0], 1);
  ck_assert_double_eq(m->key_ctrl[0], 3);
  imp_assert_near(m->key_qpos[1], 0.3 * PI / 180, TOL);
  ck_assert_double_eq(m->key_qvel[1], 0);
  imp_free_model(m);
}
END_TEST

START_TEST(keyframe_quaternions_are_normalized) {
  imp_model* m = load(
      "<mujoco><worldbody><body><freejoint/><geom size='1'/><body><joint type='ball'/>"
      "<geom size='1'/></body></body></worldbody><keyframe>"
      "<key qpos='1 2 3 2 0 0 0 0 0 3 4'/></keyframe></mujoco>");
  double e[11] = {1, 2, 3, 1, 0, 0, 0, 0, 0, 0.6, 0.8};
  assert_vec(m->key_qpos, e, 11, TOL);
  imp_free_model(m);
}
END_TEST

/* What we do not implement is refused by default, at its file:line and
   naming it: an unknown attribute, an unknown element. What changes
   nothing the simulation computes (user data, appearance) only warns.
   IMP_LOAD_ALLOW_UNSUPPORTED loads the rest too, each kind warned once. */
START_TEST(unsupported_elements_and_attributes_warn_once) {
  ck_assert_ptr_null(imp_load_xml_string(
      "<mujoco>\n<worldbody>\n<geom size='1' foo='1'/></worldbody></mujoco>", NULL, "t.xml",
      g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:3: attribute 'foo' of 'geom' is not supported yet") &&
                    strstr(g_err, "--allow-unsupported"),
                "%s", g_err);
  ck_assert_ptr_null(imp_load_xml_string("<mujoco>\n<worldbody>\n<body><flexcomp/></body>"
                                         "</worldbody></mujoco>",
                                         NULL, "t.xml", g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:3: element 'flexcomp' is not supported yet"), "%s", g_err);
  /* the ellipsoid fluid model would change the forces; 'none' and fluidcoef alone do not */
  ck_assert_ptr_null(imp_load_xml_string("<mujoco><option density='1.2'/>\n<worldbody>\n"
                                         "<body><freejoint/><geom size='.1' fluidshape='ellipsoid'/>"
                                         "</body></worldbody></mujoco>",
                                         NULL, "t.xml", g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:3: geom fluidshape 'ellipsoid'"), "%s", g_err);
  imp_model* none = load("<mujoco><worldbody><geom size='1' fluidshape='none' fluidcoef='1 1 1 1 1'/>"
                         "</worldbody></mujoco>");
  ck_assert_int_eq(none->nwarning, 0);
  imp_free_model(none);
  imp_model* h = load("<mujoco>\n<custom/>\n<asset><material name='m' metallic='1'/></asset>"
                      "<worldbody><geom size='1'/></worldbody></mujoco>");
  ck_assert_int_eq(h->nwarning, 2);
  ck_assert_msg(strstr(h->warnings, "t.xml:2: warning: element 'custom'"), "%s", h->warnings);
  imp_free_model(h);
  imp_model* m = load_allow(
      "<mujoco>\n<skin/>\n<skin/>\n<worldbody>\n<geom size='1' foo='1'/>\n"
      "<geom size='1' foo='2'/></worldbody>\n<custom/></mujoco>");
  ck_assert_int_eq(m->nwarning, 3);
  ck_assert_msg(strstr(m->warnings, "t.xml:2: warning: element 'skin' is not supported yet"),
                "%s", m->warnings);
  ck_assert_msg(strstr(m->warnings, "t.xml:5: warning: attribute 'foo' of 'geom' is not supported"),
                "%s", m->warnings);
  ck_assert_msg(strstr(m->warnings, "element 'custom'"), "%s", m->warnings);
  imp_free_model(m);
}
END_TEST

/* A failed load has no model to keep warnings on: they follow the error in
   err, one a line, since they often explain it (the ignored <flexcomp>
   below, loaded with IMP_LOAD_ALLOW_UNSUPPORTED, leaves its body without
   mass). Only whole lines, and a count of those that did not fit. */
START_TEST(failed_load_reports_the_warnings_before_the_error) {
  const char* xml = "<mujoco><worldbody>\n<body>\n<joint/>\n<flexcomp type='grid' count='2 2 1'/>\n"
                    "<geom size='1' foo='1' mass='0'/>\n<geom size='1' bar='1' mass='0'/>\n"
                    "</body></worldbody></mujoco>";
  const int allow = IMP_LOAD_ALLOW_UNSUPPORTED;
  char big[1000];
  ck_assert_ptr_null(imp_load_xml_string_opt(
      "<mujoco><worldbody>\n<body>\n<joint/>\n<flexcomp type='grid' count='2 2 1'/>\n"
      "</body></worldbody></mujoco>", NULL, "t.xml", allow, big, sizeof big));
  ck_assert_msg(strncmp(big, "t.xml:2: mass and inertia of moving bodies", 42) == 0, "%s", big);
  ck_assert_msg(strstr(big, "\nt.xml:4: warning: element 'flexcomp' is not supported yet") &&
                    big[strlen(big) - 1] != '\n',
                "%s", big);
  ck_assert_ptr_null(imp_load_xml_string_opt(xml, NULL, "t.xml", allow, big, sizeof big));
  ck_assert_msg(strstr(big, "flexcomp") && strstr(big, "'foo'") && strstr(big, "'bar'") &&
                    !strstr(big, "more warning"),
                "%s", big);
  /* a small buffer: the error, then as many whole warnings as fit */
  char small[200];
  ck_assert_ptr_null(imp_load_xml_string_opt(xml, NULL, "t.xml", allow, small, sizeof small));
  ck_assert_msg(strncmp(small, "t.xml:2: mass", 13) == 0 && strstr(small, "flexcomp") &&
                    !strstr(small, "'foo'") && strstr(small, "\n(2 more warnings)"),
                "%s", small);
}
END_TEST

/* As current MuJoCo reads them (Menagerie's trossen_wxai): an empty
   numeric value is the attribute left out, and a camera in a target mode
   without a target stays fixed to its body. */
START_TEST(empty_values_and_targetless_cameras) {
  imp_model* m = load(
      "<mujoco><worldbody><camera name='c' mode='targetbody' pos='1 0 0'/>"
      "<geom size='1' rgba=''/></worldbody></mujoco>");
  ck_assert(m->geom_rgba[0] == 0.5f && m->geom_rgba[3] == 1.0f); /* the default colour */
  ck_assert_int_eq(m->cam_targetbodyid[0], -1);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  ck_assert_double_eq(d->cam_xpos[0], 1);
  ck_assert_double_eq(d->cam_xmat[0], 1); /* not turned towards anything */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(actuators_on_sites_and_ball_joints_load) {
  imp_model* m = load_allow(
      "<mujoco><worldbody><body><joint name='b' type='ball'/><joint name='h'/><geom size='1'/>"
      "<site name='s'/></body></worldbody><actuator><motor site='s'/><motor joint='b'/>"
      "<motor joint='h'/></actuator></mujoco>");
  ck_assert_int_eq(m->nu, 3);
  ck_assert_int_eq(m->actuator_trntype[0], IMP_TRN_SITE);
  ck_assert_int_eq(m->actuator_trnid[0], 0);
  ck_assert_int_eq(m->actuator_trnid[1], -1);
  ck_assert_int_eq(m->actuator_trntype[1], IMP_TRN_JOINT);
  ck_assert_int_eq(m->actuator_trnid[2], 0);
  ck_assert_int_eq(m->actuator_trnid[4], 1);
  ck_assert_int_eq(m->nwarning, 0);
  imp_free_model(m);
  /* a keyframe written for every actuator of the file keeps the values of
     those that remain (Menagerie's xarm7 and stretch: a tendon gripper);
     one written for what remains reads as it is; any other count is an error */
  static const char* fmt =
      "<mujoco><worldbody><body><joint name='b' type='ball'/><joint name='h'/><geom size='1'/>"
      "<site name='s'/></body></worldbody><actuator><dcmotor joint='h'/><motor joint='h'/>"
      "<dcmotor joint='b'/><motor joint='h'/></actuator><keyframe><key ctrl='%s'/></keyframe>"
      "</mujoco>";
  char xml[1024];
  snprintf(xml, sizeof xml, fmt, "1 2 3 4");
  m = load_allow(xml);
  ck_assert_int_eq(m->nu, 2);
  ck_assert_double_eq(m->key_ctrl[0], 2);
  ck_assert_double_eq(m->key_ctrl[1], 4);
  imp_free_model(m);
  snprintf(xml, sizeof xml, fmt, "5 6");
  m = load_allow(xml);
  ck_assert_double_eq(m->key_ctrl[0], 5);
  ck_assert_double_eq(m->key_ctrl[1], 6);
  imp_free_model(m);
  snprintf(xml, sizeof xml, fmt, "1 2 3");
  ck_assert_ptr_null(imp_load_xml_string_opt(xml, NULL, "t.xml", IMP_LOAD_ALLOW_UNSUPPORTED,
                                             g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:1: key ctrl: expected 2 numbers, got 3"), "%s", g_err);
}
END_TEST

/* Camera intrinsics (MuJoCo 3.x): resolution, sensor size, focal length
   and principal point, pixel values winning over lengths, in cam_* fields;
   with a sensor fovy follows from it, without one fovy is kept. Classes
   carry them too. Focal or principal without a sensor, or a sensor without
   a resolution or a focal length, are errors at the camera's line. */
START_TEST(camera_intrinsics_stored_and_checked) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><default><camera resolution='640 480' sensorsize='0.004 0.003'/></default>"
      "<worldbody>"
      "<camera name='a' focal='0.002 0.0025' principal='0.0001 -0.0002'/>"
      "<camera name='b' focal='1 1' focalpixel='400 500' principal='1 1'"
      " principalpixel='-10 20'/>"
      "<camera name='c' sensorsize='0 0' fovy='30' resolution='64 32'/>"
      "</worldbody></mujoco>");
  ck_assert_int_eq(m->cam_resolution[0], 640);
  ck_assert_int_eq(m->cam_resolution[1], 480);
  ck_assert_double_eq(m->cam_sensorsize[0], 0.004);
  ck_assert_double_eq(m->cam_sensorsize[1], 0.003);
  double ka[4] = {0.002, 0.0025, 0.0001, -0.0002};
  assert_vec(m->cam_intrinsic, ka, 4, 0);
  imp_assert_near(m->cam_fovy[0], 2 * atan(0.0015 / 0.0025) * 180 / PI, 1e-12);
  /* pixels of 0.004 / 640 = 6.25 um */
  double kb[4] = {400 * 6.25e-6, 500 * 6.25e-6, -10 * 6.25e-6, 20 * 6.25e-6};
  assert_vec(m->cam_intrinsic + 4, kb, 4, 1e-18);
  imp_assert_near(m->cam_fovy[1], 2 * atan(0.0015 / (500 * 6.25e-6)) * 180 / PI, 1e-12);
  ck_assert_int_eq(m->cam_resolution[4], 64);
  ck_assert_double_eq(m->cam_sensorsize[4], 0);
  ck_assert_double_eq(m->cam_fovy[2], 30);
  imp_free_model(m);
  imp_test_expect_error("<mujoco><worldbody>\n<camera focal='0.01 0.01'/></worldbody></mujoco>", 2,
               "require sensorsize");
  imp_test_expect_error("<mujoco><worldbody>\n<camera principalpixel='3 0'/></worldbody></mujoco>", 2,
               "require sensorsize");
  imp_test_expect_error("<mujoco><worldbody>\n<camera sensorsize='0.01 0.01' resolution='0 10' "
               "focal='0.01 0.01'/></worldbody></mujoco>",
               2, "positive resolution");
  imp_test_expect_error("<mujoco><worldbody>\n<camera sensorsize='0.01 0.01'/></worldbody></mujoco>", 2,
               "positive focal length");
  imp_test_expect_error("<mujoco><worldbody>\n<camera resolution='10.5 10'/></worldbody></mujoco>", 2,
               "resolution");
}
END_TEST

START_TEST(sites_cameras_lights) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='b' pos='0 0 1'><geom size='1'/><site/>"
      "<camera mode='targetbody' target='b' fovy='60'/>"
      "<light dir='0 0 -2' directional='true'/></body></worldbody></mujoco>");
  ck_assert_double_eq(m->site_size[0], 0.005);
  ck_assert_float_eq(m->site_rgba[0], 0.5f);
  ck_assert_int_eq(m->cam_mode[0], 3);
  ck_assert_int_eq(m->cam_targetbodyid[0], 1);
  ck_assert_double_eq(m->cam_fovy[0], 60);
  ck_assert_double_eq(m->light_dir[2], -1);
  ck_assert_int_eq(m->light_directional[0], 1);
  ck_assert_int_eq(m->light_castshadow[0], 1);
  ck_assert(m->extent >= 1);
  imp_free_model(m);
}
END_TEST

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

/* ------------------------------------------------- contact pairs, excludes */

/* Unspecified pair attributes take the pair class's values (MuJoCo 2.2.2:
   condim 3, friction 1 1 0.005 0.0001 0.0001, margin and gap 0), not the
   geoms'; fewer than 5 friction values replace the leading ones only. */
START_TEST(pairs_take_class_values_and_partial_friction) {
  imp_model* m = load(
      "<mujoco><default><default class='pc'><pair condim='6' margin='0.05' gap='0.01' "
      "friction='0.7 0.8 0.01 0.002 0.003'/></default></default><worldbody>"
      "<geom name='floor' type='plane' size='1 1 1' friction='0.3 0.02 0.003' condim='4' "
      "margin='0.1'/><body name='a'><freejoint/><geom name='s' size='0.1' condim='6'/></body>"
      "</worldbody><contact><pair name='p0' geom1='floor' geom2='s'/>"
      "<pair geom1='floor' geom2='s' friction='0.5'/>"
      "<pair geom1='floor' geom2='s' friction='0.5 0.6 0.1'/>"
      "<pair name='p3' class='pc' geom1='floor' geom2='s' friction='1 2' solref='0.02 1' "
      "solimp='0.9 0.95 0.001'/></contact></mujoco>");
  ck_assert_int_eq(m->nwarning, 0);
  ck_assert_int_eq(m->npair, 4);
  double f0[5] = {1, 1, 0.005, 0.0001, 0.0001}, f1[5] = {0.5, 1, 0.005, 0.0001, 0.0001},
         f2[5] = {0.5, 0.6, 0.1, 0.0001, 0.0001}, f3[5] = {1, 2, 0.01, 0.002, 0.003};
  assert_vec(m->pair_friction, f0, 5, 0);
  assert_vec(m->pair_friction + 5, f1, 5, 0);
  assert_vec(m->pair_friction + 10, f2, 5, 0);
  assert_vec(m->pair_friction + 15, f3, 5, 0);
  ck_assert_int_eq(m->pair_dim[0], 3);
  ck_assert_double_eq(m->pair_margin[0], 0);
  ck_assert_double_eq(m->pair_gap[0], 0);
  ck_assert_int_eq(m->pair_dim[3], 6);
  ck_assert_double_eq(m->pair_margin[3], 0.05);
  ck_assert_double_eq(m->pair_gap[3], 0.01);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_PAIR, "p3"), 3);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_PAIR, 0), "p0");
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_PAIR, 1), "");
  imp_free_model(m);
}
END_TEST

/* geom1's body comes first, and pairs are ordered by (body1, body2) with
   file order kept among equals, as MuJoCo 2.2.2 orders them */
START_TEST(pairs_are_ordered_by_bodies) {
  imp_model* m = load(
      "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 1'/>"
      "<body name='a'><freejoint/><geom name='s' size='0.1'/>"
      "<body name='b'><geom name='t' size='0.1'/></body></body></worldbody><contact>"
      "<pair name='ts' geom1='t' geom2='s'/><pair name='sf' geom1='s' geom2='floor'/>"
      "<pair name='tf' geom1='t' geom2='floor'/></contact></mujoco>");
  ck_assert_int_eq(m->npair, 3);
  const char* order[3] = {"sf", "tf", "ts"};
  int g1[3] = {0, 0, 1}, g2[3] = {1, 2, 2};
  for (int i = 0; i < 3; i++) {
    ck_assert_str_eq(imp_id2name(m, IMP_OBJ_PAIR, i), order[i]);
    ck_assert_int_eq(m->pair_geom1[i], g1[i]);
    ck_assert_int_eq(m->pair_geom2[i], g2[i]);
  }
  imp_free_model(m);
}
END_TEST

START_TEST(excludes_are_ordered_body_pairs) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='a'><freejoint/><geom size='0.1'/>"
      "<body name='b'><geom size='0.1'/></body></body><body name='c'><freejoint/>"
      "<geom size='0.1'/></body></worldbody><contact><exclude body1='c' body2='a'/>"
      "<exclude name='e' body1='b' body2='a'/><exclude body1='world' body2='c'/>"
      "</contact></mujoco>");
  ck_assert_int_eq(m->nwarning, 0);
  ck_assert_int_eq(m->nexclude, 3);
  int b1[3] = {0, 1, 1}, b2[3] = {3, 2, 3};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(m->exclude_body1[i], b1[i]);
    ck_assert_int_eq(m->exclude_body2[i], b2[i]);
  }
  imp_free_model(m);
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

/* ------------------------------------------------ constraints and solvers */

#ifndef MUJOCO_MODEL_DIR
#define MUJOCO_MODEL_DIR "/usr/share/mujoco/model"
#endif

/* option solver="..." takes our registry's names and MuJoCo's ("PGS" is
   pgs, "CG" and "Newton" the default) without a warning; anything else is
   an error at the option's line that lists the known solvers */
START_TEST(option_solver_by_name) {
  imp_model* m = imp_test_load_string_nowarn("<mujoco/>");
  ck_assert_int_eq(m->opt.solver, 0);
  ck_assert_str_eq(imp_solver_get(0)->name, "todorov");
  imp_free_model(m);
  const char* names[] = {"todorov", "pgs", "PGS", "CG", "Newton"};
  const char* means[] = {"todorov", "pgs", "pgs", "todorov", "todorov"};
  for (int i = 0; i < 5; i++) {
    char xml[200];
    snprintf(xml, sizeof xml, "<mujoco><option solver='%s'/></mujoco>", names[i]);
    m = imp_test_load_string_nowarn(xml);
    ck_assert_msg(m->opt.solver == imp_solver_find(means[i]), "%s: solver %d", names[i],
                  m->opt.solver);
    imp_free_model(m);
  }
  imp_test_expect_error("<mujoco>\n\n<option solver='xyz'/></mujoco>", 3,
               "unknown solver 'xyz' (known: todorov, pgs");
}
END_TEST

/* iterations, tolerance and the warmstart flag; flag equality='disable'
   sets IMP_DSBL_EQUALITY as MuJoCo's flag does */
START_TEST(option_iterations_tolerance_warmstart) {
  imp_model* m = load("<mujoco/>");
  ck_assert_int_eq(m->opt.iterations, 100);
  ck_assert_double_eq(m->opt.tolerance, 1e-8);
  ck_assert_int_eq(m->opt.warmstart, 1);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><option iterations='7' tolerance='1e-5'><flag warmstart='disable'/></option>"
      "</mujoco>");
  ck_assert_int_eq(m->opt.iterations, 7);
  ck_assert_double_eq(m->opt.tolerance, 1e-5);
  ck_assert_int_eq(m->opt.warmstart, 0);
  ck_assert_int_eq(m->opt.disableflags, 0);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><option><flag equality='disable' limit='disable'/></option></mujoco>");
  ck_assert_int_eq(m->opt.disableflags, IMP_DSBL_EQUALITY | IMP_DSBL_LIMIT);
  ck_assert_int_eq(m->opt.warmstart, 1);
  imp_free_model(m);
  imp_test_expect_error("<mujoco>\n<option iterations='-1'/></mujoco>", 2, "iterations");
  imp_test_expect_error("<mujoco>\n<option tolerance='-1e-3'/></mujoco>", 2, "tolerance");
}
END_TEST

/* njmax: as given, else 1000 plus 6 rows per equality and 2 per limited
   joint (a limited ball joint counts like any limited joint) */
START_TEST(njmax_default_and_given) {
  const char* body =
      "<worldbody><body name='a'><joint name='h' range='-10 10'/><joint type='slide'/>"
      "<geom size='0.1'/><body name='b'><joint type='ball' range='0 30'/><geom size='0.1'/>"
      "</body></body></worldbody><equality><connect body1='b' anchor='0 0 0'/>"
      "<joint joint1='h'/></equality>";
  char xml[1000];
  snprintf(xml, sizeof xml, "<mujoco>%s</mujoco>", body);
  imp_model* m = load(xml);
  ck_assert_int_eq(m->neq, 2);
  ck_assert_int_eq(m->njmax, 1000 + 6 * 2 + 2 * 2);
  imp_free_model(m);
  snprintf(xml, sizeof xml, "<mujoco><size njmax='-1'/>%s</mujoco>", body);
  m = load(xml);
  ck_assert_int_eq(m->njmax, 1016);
  imp_free_model(m);
  snprintf(xml, sizeof xml, "<mujoco><size njmax='37'/>%s</mujoco>", body);
  m = load(xml);
  ck_assert_int_eq(m->njmax, 37);
  imp_free_model(m);
  imp_test_expect_error("<mujoco>\n<size njmax='-2'/></mujoco>", 2, "njmax");
}
END_TEST

/* nJrow is twice the most dofs on one body's path to the root: here a free
   body (6) carrying a hinge (1) and a ball (3) below it is the longest
   chain, 10, beside a 2-dof slide chain; a model without dofs gets 1 */
START_TEST(nJrow_is_twice_the_longest_chain) {
  imp_model* m = load(
      "<mujoco><worldbody><body><freejoint/><geom size='0.1'/><body><joint/><geom size='0.1'/>"
      "<body><joint type='ball'/><geom size='0.1'/></body></body><body><joint/>"
      "<geom size='0.1'/></body></body><body><joint type='slide'/><geom size='0.1'/><body>"
      "<joint type='slide' axis='1 0 0'/><geom size='0.1'/></body></body></worldbody>"
      "</mujoco>");
  ck_assert_int_eq(m->nv, 13);
  ck_assert_int_eq(m->nJrow, 20);
  imp_free_model(m);
  m = load("<mujoco><worldbody><geom type='plane' size='1 1 1'/></worldbody></mujoco>");
  ck_assert_int_eq(m->nJrow, 1);
  imp_free_model(m);
}
END_TEST

/* solref: geom (contact), pair, joint solreflimit and equality, each (0.02,
   1) by default, from the classes, overridden by the element; the negative
   "direct" form is stored as given. Pairs take the pair class's solref, not
   the geoms' (MuJoCo 2.2.2 measured: geom solref 0.03 0.5 and pair default
   0.07 0.3 give pair_solref 0.07 0.3) */
START_TEST(solref_on_geom_pair_joint_equality_and_defaults) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><default><default class='c'><geom solref='0.03 0.5'/><pair solref='0.07 0.3'/>"
      "<joint solreflimit='0.04 0.9'/><equality solref='0.05 0.7'/></default></default>"
      "<worldbody><geom name='f' type='plane' size='1 1 1'/><body name='a'>"
      "<joint name='j0' range='-1 1'/><joint name='j1' class='c' range='-1 1'/>"
      "<joint name='j2' class='c' solreflimit='-1000 -20' range='-1 1'/>"
      "<geom name='g0' size='0.1'/><geom name='g1' class='c' size='0.1'/>"
      "<geom name='g2' class='c' size='0.1' solref='-500 -3'/></body></worldbody>"
      "<contact><pair geom1='f' geom2='g0'/><pair geom1='f' geom2='g1' class='c'/>"
      "<pair geom1='f' geom2='g2' class='c' solref='0.01 2'/></contact><equality>"
      "<weld body1='a'/><weld body1='a' class='c'/><weld body1='a' class='c' solref='0.1 3'/>"
      "</equality></mujoco>");
  /* per kind (geom, pair, joint, equality): default, class, element */
  const double want[4][3][2] = {{{0.02, 1}, {0.03, 0.5}, {-500, -3}},
                                {{0.02, 1}, {0.07, 0.3}, {0.01, 2}},
                                {{0.02, 1}, {0.04, 0.9}, {-1000, -20}},
                                {{0.02, 1}, {0.05, 0.7}, {0.1, 3}}};
  const char* geoms[3] = {"g0", "g1", "g2"};
  const char* joints[3] = {"j0", "j1", "j2"};
  for (int i = 0; i < 3; i++) {
    int g = imp_test_id(m, IMP_OBJ_GEOM, geoms[i]);
    int j = imp_test_id(m, IMP_OBJ_JOINT, joints[i]);
    assert_vec(m->geom_solref + 2 * g, want[0][i], 2, 0);
    assert_vec(m->pair_solref + 2 * i, want[1][i], 2, 0);
    assert_vec(m->jnt_solref + 2 * j, want[2][i], 2, 0);
    assert_vec(m->eq_solref + 2 * i, want[3][i], 2, 0);
  }
  assert_vec(m->geom_solref, want[0][0], 2, 0); /* the plane */
  imp_free_model(m);
}
END_TEST

/* a ball joint's range "0 a" is a cone of half-angle a: degrees by default,
   radians with compiler angle="radian"; any other lower value is an error */
START_TEST(ball_range_is_a_cone_angle) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint type='ball' range='0 40'/><geom size='0.1'/></body>"
      "</worldbody></mujoco>");
  ck_assert_int_eq(m->jnt_limited[0], 1);
  double r[2] = {0, 40 * PI / 180};
  assert_vec(m->jnt_range, r, 2, TOL);
  imp_free_model(m);
  m = load("<mujoco><compiler angle='radian'/><worldbody><body><joint type='ball' "
           "range='0 0.5'/><geom size='0.1'/></body></worldbody></mujoco>");
  double rr[2] = {0, 0.5};
  assert_vec(m->jnt_range, rr, 2, 0);
  imp_free_model(m);
  imp_test_expect_error("<mujoco><worldbody><body>\n<joint type='ball' range='10 40'/>"
               "<geom size='0.1'/></body></worldbody></mujoco>", 2,
               "ball joint range: the first value must be 0");
  imp_test_expect_error("<mujoco><worldbody><body>\n<joint type='ball' range='0 0'/>"
               "<geom size='0.1'/></body></worldbody></mujoco>", 2, "cone angle must be positive");
}
END_TEST

/* two top-level bodies: a at (1,0,0) turned 90 deg about z, b at (0,0,1)
   turned 90 deg about x */
#define EQ_PAIR_BODIES                                                                    \
  "<worldbody><body name='a' pos='1 0 0' axisangle='0 0 1 90'><freejoint/>"               \
  "<geom size='0.1'/></body><body name='b' pos='0 0 1' axisangle='1 0 0 90'><freejoint/>" \
  "<geom size='0.1'/></body></worldbody>"

/* connect: the anchor (0.5,0,0) of a is the world point (1,0.5,0); in b's
   frame that is Rx(90)' ((1,0.5,0) - (0,0,1)) = (1,-1,-0.5). With body2
   omitted the second body is the world and the point is (1,0.5,0) */
START_TEST(connect_anchor_in_both_frames) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco>" EQ_PAIR_BODIES "<equality><connect name='c' body1='a' body2='b' "
      "anchor='0.5 0 0'/><connect body1='a' anchor='0.5 0 0' active='false'/></equality>"
      "</mujoco>");
  ck_assert_int_eq(m->neq, 2);
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_CONNECT);
  ck_assert_int_eq(m->eq_obj1id[0], 1);
  ck_assert_int_eq(m->eq_obj2id[0], 2);
  ck_assert_int_eq(m->eq_obj2id[1], 0);
  ck_assert_int_eq(m->eq_active[0], 1);
  ck_assert_int_eq(m->eq_active[1], 0);
  double e0[11] = {0.5, 0, 0, 1, -1, -0.5}, e1[11] = {0.5, 0, 0, 1, 0.5, 0};
  assert_vec(m->eq_data, e0, 11, TOL);
  assert_vec(m->eq_data + 11, e1, 11, TOL);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_EQUALITY, "c"), 0);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_EQUALITY, 1), "");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_EQUALITY, "nope"), -1);
  imp_free_model(m);
}
END_TEST

/* weld from qpos0: b's origin in a's frame is Rz(90)' ((0,0,1) - (1,0,0)) =
   (0,1,1) and q_a^-1 q_b = (c,0,0,-s)(c,s,0,0) = (1/2, 1/2, -1/2, -1/2)
   with c = s = sqrt(1/2). A relpose with a non-zero quaternion is taken as
   given (quaternion normalized); a zero quaternion means qpos0, whatever
   its position part (MuJoCo 2.2.2's default relpose is 0 1 0 0 0 0 0) */
START_TEST(weld_relative_pose_from_qpos0_and_relpose) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco>" EQ_PAIR_BODIES "<equality><weld body1='a' body2='b'/>"
      "<weld body1='a' body2='b' relpose='1 2 3 2 0 0 0'/>"
      "<weld body1='a' body2='b' relpose='5 5 5 0 0 0 0'/><weld body1='b'/></equality>"
      "</mujoco>");
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_WELD);
  double e0[11] = {0, 1, 1, 0.5, 0.5, -0.5, -0.5}, e1[11] = {1, 2, 3, 1, 0, 0, 0};
  assert_vec(m->eq_data, e0, 11, TOL);
  assert_vec(m->eq_data + 11, e1, 11, TOL);
  assert_vec(m->eq_data + 22, e0, 11, TOL);
  /* the world in b's frame: Rx(90)' (0 - (0,0,1)) = (0,-1,0), q_b^-1 */
  double c = sqrt(0.5), e3[11] = {0, -1, 0, c, -c, 0, 0};
  ck_assert_int_eq(m->eq_obj2id[3], 0);
  assert_vec(m->eq_data + 33, e3, 11, TOL);
  imp_free_model(m);
}
END_TEST

/* connect and weld by sites (MuJoCo 3.x's form): the sites' poses in their
   bodies, whatever the configuration, since the sites snap together.
   connect: the two site positions. weld: site1's position, q = q_1 q_2^-1
   (so that q_b2 = q_b1 q makes the frames coincide) and site2's position;
   here q_1 = Rz(90), q_2 = Rx(90), so q = (c,0,0,s)(c,-s,0,0) =
   (c^2, -cs, -s^2, cs) = (1/2, -1/2, -1/2, 1/2), c = s = sqrt(1/2). */
START_TEST(connect_and_weld_by_sites) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><site name='w' pos='0 0 3'/>"
      "<body name='a' pos='1 0 0'><freejoint/><geom size='0.1'/>"
      "<site name='s1' pos='0.1 0.2 0.3' axisangle='0 0 1 90'/></body>"
      "<body name='b' pos='0 0 1'><freejoint/><geom size='0.1'/>"
      "<site name='s2' pos='-0.5 0 0' axisangle='1 0 0 90'/></body></worldbody>"
      "<equality><connect site1='s1' site2='w'/><weld site1='s1' site2='s2'/></equality>"
      "</mujoco>");
  ck_assert_int_eq(m->eq_obj1id[0], 1);
  ck_assert_int_eq(m->eq_obj2id[0], 0);
  ck_assert_int_eq(m->eq_obj1id[1], 1);
  ck_assert_int_eq(m->eq_obj2id[1], 2);
  double e0[11] = {0.1, 0.2, 0.3, 0, 0, 3};
  double e1[11] = {0.1, 0.2, 0.3, 0.5, -0.5, -0.5, 0.5, -0.5, 0, 0};
  assert_vec(m->eq_data, e0, 11, TOL);
  assert_vec(m->eq_data + 11, e1, 11, TOL);
  imp_free_model(m);
}
END_TEST

/* joint: polycoef as given, default 0 1 0 0 0 (joint1 = joint2); joint2
   omitted is -1 */
START_TEST(joint_equality_polycoef) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body><joint name='j1'/><joint name='j2' type='slide'/>"
      "<geom size='0.1'/></body></worldbody><equality><joint joint1='j1' joint2='j2'/>"
      "<joint joint1='j2' polycoef='0.1 0.2 0.3 0.4 0.5'/></equality></mujoco>");
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_JOINT);
  ck_assert_int_eq(m->eq_obj1id[0], 0);
  ck_assert_int_eq(m->eq_obj2id[0], 1);
  ck_assert_int_eq(m->eq_obj1id[1], 1);
  ck_assert_int_eq(m->eq_obj2id[1], -1);
  double e0[11] = {0, 1, 0, 0, 0}, e1[11] = {0.1, 0.2, 0.3, 0.4, 0.5};
  assert_vec(m->eq_data, e0, 11, 0);
  assert_vec(m->eq_data + 11, e1, 11, 0);
  imp_free_model(m);
}
END_TEST

/* nested bodies with Euler angles, a hinge and a slide at non-zero ref and
   a free body: eq_data as MuJoCo 2.2.2 computes it (mj_loadXML on the
   same text, printed with %.12g), so composition and qpos0 are right */
START_TEST(equality_data_matches_mujoco_on_nested_bodies) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><default><equality solref='0.05 0.7'/><default class='stiff'>"
      "<equality solref='0.01 2' active='false'/></default></default><worldbody>"
      "<body name='a' pos='1 2 3' euler='30 0 45'><joint name='ja' axis='0 1 0' ref='20'/>"
      "<geom size='0.1'/><body name='b' pos='0.5 0 0' euler='0 60 0'>"
      "<joint name='jb' type='slide' ref='0.3'/><geom size='0.1'/></body></body>"
      "<body name='c' pos='-1 0 0.5' quat='0.9 0.1 0.3 -0.2'><freejoint/><geom size='0.1'/>"
      "</body></worldbody><equality><connect body1='a' body2='c' anchor='0.1 0.2 0.3'/>"
      "<connect body1='b' anchor='0.1 0.2 0.3' class='stiff'/><weld body1='a' body2='c'/>"
      "</equality></mujoco>");
  const double mj[3][7] = {
      {0.1, 0.2, 0.3, -0.990642734038, 2.85358832062, 2.63572249522, 0},
      {0.1, 0.2, 0.3, 1.43119910412, 2.58667962273, 3.41192471887, 0},
      {-3.52284191025, -0.694414785502, -1.16506350946, 0.742221941606, -0.0357881311143,
       0.279141018443, -0.608199055321}};
  for (int i = 0; i < 3; i++) assert_vec(m->eq_data + 11 * i, mj[i], 7, 1e-10);
  double s0[2] = {0.05, 0.7}, s1[2] = {0.01, 2};
  assert_vec(m->eq_solref, s0, 2, 0);
  assert_vec(m->eq_solref + 2, s1, 2, 0);
  assert_vec(m->eq_solref + 4, s0, 2, 0);
  ck_assert_int_eq(m->eq_active[1], 0);
  ck_assert_int_eq(m->eq_active[2], 1);
  imp_free_model(m);
}
END_TEST

/* the engine's own kinematics at qpos0 satisfies every connect and weld of
   the nested model above: the anchor seen from both bodies is one world
   point, and body2's pose is body1's composed with the stored relative pose */
START_TEST(equalities_hold_in_kinematics_at_qpos0) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body name='a' pos='1 2 3' euler='30 0 45'>"
      "<joint axis='0 1 0' ref='20'/><geom size='0.1'/><body name='b' pos='0.5 0 0' "
      "euler='0 60 0'><joint type='slide' ref='0.3'/><joint type='ball'/><geom size='0.1'/>"
      "</body></body><body name='c' pos='-1 0 0.5' quat='0.9 0.1 0.3 -0.2'><freejoint/>"
      "<geom size='0.1'/></body></worldbody><equality>"
      "<connect body1='b' body2='c' anchor='0.1 0.2 0.3'/><connect body1='c' anchor='1 0 0'/>"
      "<weld body1='b' body2='c'/><weld body1='c' body2='a'/></equality></mujoco>");
  imp_data* d = imp_make_data(m);
  ck_assert_ptr_nonnull(d);
  imp_copy(d->qpos, m->qpos0, m->nq);
  imp_kinematics(m, d);
  for (int i = 0; i < m->neq; i++) {
    int b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
    const double* e = m->eq_data + 11 * i;
    double p1[3], p2[3], q[4];
    if (m->eq_type[i] == IMP_EQ_CONNECT) {
      imp_mat3_vec(p1, d->xmat + 9 * b1, e);
      imp_mat3_vec(p2, d->xmat + 9 * b2, e + 3);
      imp_add_scl(p1, d->xpos + 3 * b1, 1, 3);
      imp_add_scl(p2, d->xpos + 3 * b2, 1, 3);
      assert_vec(p1, p2, 3, 1e-12);
    } else {
      imp_mat3_vec(p1, d->xmat + 9 * b1, e);
      imp_add_scl(p1, d->xpos + 3 * b1, 1, 3);
      assert_vec(p1, d->xpos + 3 * b2, 3, 1e-12);
      imp_quat_mul(q, d->xquat + 4 * b1, e + 3);
      assert_quat(q, d->xquat + 4 * b2);
    }
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(error_bad_equalities_have_lines) {
  const char* head =
      "<mujoco><worldbody><body name='a'><joint name='h'/><joint name='s' type='slide'/>"
      "<geom size='0.1'/><site name='sa'/><site name='sa2'/><body name='b'><joint name='ball' "
      "type='ball'/><geom size='0.1'/><site name='sb'/></body></body></worldbody>\n<equality>\n";
  struct { const char *eq, *what; } cases[] = {
      {"<connect body1='zz' anchor='0 0 0'/>", "unknown body 'zz'"},
      {"<weld body1='a' body2='zz'/>", "unknown body 'zz'"},
      {"<joint joint1='h' joint2='zz'/>", "unknown joint 'zz'"},
      {"<joint joint1='ball'/>", "joint 'ball' is not a hinge or slide"},
      {"<joint joint1='h' joint2='ball'/>", "joint 'ball' is not a hinge or slide"},
      {"<weld body1='a' body2='a'/>", "weld equality between 'a' and itself"},
      {"<connect body1='world' anchor='0 0 0'/>", "and itself"},
      {"<joint joint1='h' joint2='h'/>", "and itself"},
      {"<connect body1='a'/>", "connect: anchor is required"},
      {"<weld body2='a'/>", "weld: body1 is required"},
      {"<joint joint2='h'/>", "joint: joint1 is required"},
      {"<weld body1='a' relpose='1 2 3'/>", "expected 7 numbers"},
      {"<joint joint1='h' polycoef='0 1'/>", "expected 5 numbers"},
      {"<weld body1='a' class='nope'/>", "unknown default class 'nope'"},
      {"<weld body1='a' active='maybe'/>", "unknown value 'maybe'"},
      {"<connect site1='sa'/>", "connect: site1 and site2 go together"},
      {"<weld site2='sa'/>", "weld: site1 and site2 go together"},
      {"<connect site1='sa' site2='sb' anchor='0 0 0'/>", "anchor cannot be given with site1"},
      {"<weld site1='sa' site2='sb' body1='a'/>", "body1 cannot be given with site1"},
      {"<weld site1='sa' site2='zz'/>", "unknown site 'zz'"},
      {"<connect site1='sa' site2='sa2'/>", "between the body of site 'sa' and itself"},
  };
  char xml[1024];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(xml, sizeof xml, "%s%s</equality></mujoco>", head, cases[i].eq);
    imp_test_expect_error(xml, 3, cases[i].what);
  }
  snprintf(xml, sizeof xml,
           "%s<weld name='w' body1='a'/>\n<weld name='w' body1='b'/></equality></mujoco>", head);
  imp_test_expect_error(xml, 4, "repeated equality name 'w'");
}
END_TEST

/* does the file's text contain "<equality"? */
static int file_has_equality(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strstr(buf, "<equality") != NULL;
}

/* load every .xml below dir that has an <equality> section; returns how
   many, failing the test on any load error */
static int load_samples_with_equality(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      n += load_samples_with_equality(path);
      continue;
    }
    size_t k = strlen(path);
    if (k < 4 || strcmp(path + k - 4, ".xml") || !file_has_equality(path)) continue;
    /* allowed: active_adhesion.xml has adhesion actuators, not our subject */
    imp_model* m = imp_load_xml_opt(path, IMP_LOAD_ALLOW_UNSUPPORTED, g_err, sizeof g_err);
    ck_assert_msg(m != NULL, "%s did not load: %s", path, g_err);
    ck_assert_msg(m->neq > 0, "%s: no equality loaded", path);
    imp_free_model(m);
    n++;
  }
  closedir(d);
  return n;
}

/* MuJoCo's samples with <equality> load; active_adhesion's two joint
   couplings are as MuJoCo 2.2.2 compiles them (joint ids 1,2 and 3,1,
   polycoef 0 -0.5 0 0 0 and the default 0 1 0 0 0) */
START_TEST(mujoco_samples_with_equality_load) {
  struct stat st;
  if (stat(MUJOCO_MODEL_DIR, &st)) {
    printf("%s absent (libmujoco-samples): samples not checked\n", MUJOCO_MODEL_DIR);
    return;
  }
  ck_assert_int_ge(load_samples_with_equality(MUJOCO_MODEL_DIR), 1);
  imp_model* m = imp_load_xml_opt(MUJOCO_MODEL_DIR "/adhesion/active_adhesion.xml",
                                  IMP_LOAD_ALLOW_UNSUPPORTED, g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->neq, 2);
  int o1[2] = {1, 3}, o2[2] = {2, 1};
  double pc[2][5] = {{0, -0.5, 0, 0, 0}, {0, 1, 0, 0, 0}};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(m->eq_obj1id[i], o1[i]);
    ck_assert_int_eq(m->eq_obj2id[i], o2[i]);
    assert_vec(m->eq_data + 11 * i, pc[i], 5, 0);
  }
  ck_assert_int_eq(m->njmax, 1000); /* <size njmax="1000"/> */
  imp_free_model(m);
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
  t = tcase_create("inertia");
  tcase_add_test(t, sphere_inertia);
  tcase_add_test(t, capsule_inertia);
  tcase_add_test(t, cylinder_inertia);
  tcase_add_test(t, box_inertia);
  tcase_add_test(t, ellipsoid_inertia);
  tcase_add_test(t, geoms_combine_by_parallel_axis);
  tcase_add_test(t, rotated_geom_inertia_rotates);
  tcase_add_test(t, inertial_wins_in_auto_and_geoms_win_when_true);
  tcase_add_test(t, fullinertia_is_diagonalized);
  tcase_add_test(t, subtreemass_and_rootid);
  tcase_add_test(t, settotalmass_scales_masses_and_inertias);
  tcase_add_test(t, fromto_sets_pos_quat_and_length);
  suite_add_tcase(s, t);
  t = tcase_create("structure");
  tcase_add_test(t, include_splices_children_relative_to_main_dir);
  tcase_add_test(t, nesting_through_includes_is_bounded);
  tcase_add_test(t, entity_expansion_is_bounded);
  tcase_add_test(t, includes_are_bounded_in_number_and_bytes);
  tcase_add_test(t, include_of_a_non_regular_file_is_refused);
  tcase_add_test(t, numbers_must_be_finite_and_in_range);
  tcase_add_test(t, missing_main_file_is_named);
  tcase_add_test(t, qpos_layout_free_ball_hinge_slide);
  tcase_add_test(t, dof_parent_skips_bodies_without_dofs);
  tcase_add_test(t, joints_and_geoms_are_ordered_by_body);
  tcase_add_test(t, names_lookup_both_ways);
  tcase_add_test(t, option_and_visual_defaults_and_values);
  tcase_add_test(t, keyframes_fill_missing_with_qpos0_and_zeros);
  tcase_add_test(t, keyframe_quaternions_are_normalized);
  tcase_add_test(t, unsupported_elements_and_attributes_warn_once);
  tcase_add_test(t, failed_load_reports_the_warnings_before_the_error);
  tcase_add_test(t, actuators_on_sites_and_ball_joints_load);
  tcase_add_test(t, empty_values_and_targetless_cameras);
  tcase_add_test(t, sites_cameras_lights);
  tcase_add_test(t, camera_intrinsics_stored_and_checked);
  tcase_add_test(t, pairs_take_class_values_and_partial_friction);
  tcase_add_test(t, pairs_are_ordered_by_bodies);
  tcase_add_test(t, excludes_are_ordered_body_pairs);
  suite_add_tcase(s, t);
  t = tcase_create("constraints");
  tcase_add_test(t, option_solver_by_name);
  tcase_add_test(t, option_iterations_tolerance_warmstart);
  tcase_add_test(t, njmax_default_and_given);
  tcase_add_test(t, nJrow_is_twice_the_longest_chain);
  tcase_add_test(t, solref_on_geom_pair_joint_equality_and_defaults);
  tcase_add_test(t, ball_range_is_a_cone_angle);
  tcase_add_test(t, connect_anchor_in_both_frames);
  tcase_add_test(t, weld_relative_pose_from_qpos0_and_relpose);
  tcase_add_test(t, connect_and_weld_by_sites);
  tcase_add_test(t, joint_equality_polycoef);
  tcase_add_test(t, equality_data_matches_mujoco_on_nested_bodies);
  tcase_add_test(t, equalities_hold_in_kinematics_at_qpos0);
  tcase_add_test(t, error_bad_equalities_have_lines);
  tcase_add_test(t, mujoco_samples_with_equality_load);
  suite_add_tcase(s, t);
  t = tcase_create("errors");
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
