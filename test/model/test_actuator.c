/* Loader tests of actuators with dynamics (model/actuator.c, the readers
 * in model/defaults.c): dyntype, dynprm, activation addresses, act limits
 * with autolimits, the shortcuts cylinder, muscle, intvelocity, damper and
 * position timeconst as the MJCF reference defines them, keyframe act,
 * lengthrange and acc0, and the file:line errors of bad input. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "impetus.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static char g_err[1000];

static imp_model* load(const char* xml) {
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  return m;
}


#define BODY                                                                          \
  "<worldbody><body><joint name='j' range='-1 2'/><joint name='k' type='slide'/>"    \
  "<geom size='0.1'/></body></worldbody>"

static const double* prm(const double* a, int u) { return a + IMP_NGAIN * u; }

START_TEST(general_dyntypes_and_activation_addresses) {
  imp_model* m = load("<mujoco>" BODY
                      "<actuator>\n"
                      "<motor joint='j'/>\n"
                      "<general joint='j' dyntype='filter' dynprm='0.05'/>\n"
                      "<general joint='k' dyntype='integrator' actrange='-1 1'/>\n"
                      "<velocity joint='k'/>\n"
                      "<general joint='j' dyntype='filterexact' dynprm='0.2' actearly='true'/>\n"
                      "<general joint='j' dyntype='muscle' dynprm='0.01 0.04 0.2'\n"
                      "         gaintype='muscle' biastype='muscle' lengthrange='0 1'/>\n"
                      "</actuator></mujoco>");
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->nu, 6);
  ck_assert_int_eq(m->na, 4);
  static const int dyn[6] = {IMP_DYN_NONE,     IMP_DYN_FILTER,      IMP_DYN_INTEGRATOR,
                             IMP_DYN_NONE,     IMP_DYN_FILTEREXACT, IMP_DYN_MUSCLE};
  static const int adr[6] = {-1, 0, 1, -1, 2, 3};
  for (int u = 0; u < 6; u++) {
    ck_assert_int_eq(m->actuator_dyntype[u], dyn[u]);
    ck_assert_int_eq(m->actuator_actadr[u], adr[u]);
    ck_assert_int_eq(m->actuator_actnum[u], adr[u] >= 0);
  }
  ck_assert_double_eq(prm(m->actuator_dynprm, 0)[0], 1); /* MJCF's default "1 0 ... 0" */
  ck_assert_double_eq(prm(m->actuator_dynprm, 1)[0], 0.05);
  ck_assert_double_eq(prm(m->actuator_dynprm, 5)[2], 0.2);
  /* actrange given under autolimits: limited; not given: not */
  ck_assert_int_eq(m->actuator_actlimited[2], 1);
  ck_assert_double_eq(m->actuator_actrange[5], 1);
  ck_assert_int_eq(m->actuator_actlimited[1], 0);
  ck_assert_int_eq(m->actuator_actearly[4], 1);
  ck_assert_int_eq(m->actuator_actearly[1], 0);
  ck_assert_int_eq(m->actuator_gaintype[5], IMP_GAIN_MUSCLE);
  ck_assert_int_eq(m->actuator_biastype[5], IMP_BIAS_MUSCLE);
  imp_free_model(m);
}
END_TEST

/* <cylinder>: filter with timeconst, gain area or pi/4 d^2 (diameter
   wins), bias (3); class defaults apply */
START_TEST(cylinder_shortcut) {
  imp_model* m = load("<mujoco><default><cylinder timeconst='0.3' area='2'/></default>" BODY
                      "<actuator><cylinder joint='k'/>"
                      "<cylinder joint='k' diameter='0.1' area='7' bias='1 2 3'/>"
                      "</actuator></mujoco>");
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->na, 2);
  ck_assert_int_eq(m->actuator_dyntype[0], IMP_DYN_FILTER);
  ck_assert_double_eq(prm(m->actuator_dynprm, 0)[0], 0.3);
  ck_assert_double_eq(prm(m->actuator_gainprm, 0)[0], 2);
  ck_assert_int_eq(m->actuator_biastype[0], IMP_BIAS_AFFINE);
  ck_assert_double_eq_tol(prm(m->actuator_gainprm, 1)[0], PI / 4 * 0.01, 1e-15);
  for (int i = 0; i < 3; i++) ck_assert_double_eq(prm(m->actuator_biasprm, 1)[i], i + 1);
  imp_free_model(m);
}
END_TEST

/* <muscle>: MJCF's defaults (timeconst 0.01 0.04, range 0.75 1.05, force
   -1, scale 200, lmin 0.5, lmax 1.6, vmax 1.5, fpmax 1.3, fvmax 1.2),
   biasprm = gainprm, attributes override */
START_TEST(muscle_shortcut) {
  imp_model* m = load("<mujoco>" BODY
                      "<actuator><muscle joint='j' lengthrange='0 1'/>"
                      "<muscle joint='j' lengthrange='0 1' timeconst='0.02 0.06' tausmooth='0.3'"
                      " range='0.5 1.5' force='30' scale='10' lmin='0.3' lmax='2' vmax='3'"
                      " fpmax='1' fvmax='1.5'/></actuator></mujoco>");
  imp_test_no_warnings(m);
  static const double d0[9] = {0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
  static const double d1[9] = {0.5, 1.5, 30, 10, 0.3, 2, 3, 1, 1.5};
  for (int i = 0; i < 9; i++) {
    ck_assert_double_eq(prm(m->actuator_gainprm, 0)[i], d0[i]);
    ck_assert_double_eq(prm(m->actuator_biasprm, 0)[i], d0[i]);
    ck_assert_double_eq(prm(m->actuator_gainprm, 1)[i], d1[i]);
    ck_assert_double_eq(prm(m->actuator_biasprm, 1)[i], d1[i]);
  }
  ck_assert_double_eq(prm(m->actuator_dynprm, 0)[0], 0.01);
  ck_assert_double_eq(prm(m->actuator_dynprm, 0)[1], 0.04);
  ck_assert_double_eq(prm(m->actuator_dynprm, 0)[2], 0);
  ck_assert_double_eq(prm(m->actuator_dynprm, 1)[0], 0.02);
  ck_assert_double_eq(prm(m->actuator_dynprm, 1)[1], 0.06);
  ck_assert_double_eq(prm(m->actuator_dynprm, 1)[2], 0.3);
  for (int u = 0; u < 2; u++) {
    ck_assert_int_eq(m->actuator_dyntype[u], IMP_DYN_MUSCLE);
    ck_assert_double_eq(m->actuator_lengthrange[2 * u + 1], 1);
  }
  imp_free_model(m);
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<muscle joint='j' tausmooth='-1'/></actuator></mujoco>",
               2, "tausmooth");
}
END_TEST

/* <intvelocity>: integrator into a position servo's setpoint;
   inheritrange sets actrange (not ctrlrange); <position timeconst>:
   filterexact; <damper>: affine gain (0, 0, -kv), ctrl limited */
START_TEST(intvelocity_position_timeconst_damper) {
  imp_model* m = load("<mujoco>" BODY
                      "<actuator><intvelocity joint='j' kp='30' kv='2' inheritrange='1'/>"
                      "<intvelocity joint='j' kp='5' actrange='-0.5 0.5'/>"
                      "<position joint='j' kp='10' timeconst='0.05'/>"
                      "<position joint='j' kp='10' timeconst='0'/>"
                      "<damper joint='k' kv='4' ctrlrange='0 2'/></actuator></mujoco>");
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->na, 3);
  ck_assert_int_eq(m->actuator_dyntype[0], IMP_DYN_INTEGRATOR);
  ck_assert_double_eq(prm(m->actuator_gainprm, 0)[0], 30);
  ck_assert_double_eq(prm(m->actuator_biasprm, 0)[1], -30);
  ck_assert_double_eq(prm(m->actuator_biasprm, 0)[2], -2);
  ck_assert_int_eq(m->actuator_actlimited[0], 1);
  /* the joint's range in radians (degrees in the file) */
  ck_assert_double_eq_tol(m->actuator_actrange[0], -PI / 180, 1e-15);
  ck_assert_double_eq_tol(m->actuator_actrange[1], 2 * PI / 180, 1e-15);
  ck_assert_int_eq(m->actuator_ctrllimited[0], 0);
  ck_assert_int_eq(m->actuator_actlimited[1], 1);
  ck_assert_double_eq(m->actuator_actrange[3], 0.5);
  ck_assert_int_eq(m->actuator_dyntype[2], IMP_DYN_FILTEREXACT);
  ck_assert_double_eq(prm(m->actuator_dynprm, 2)[0], 0.05);
  ck_assert_int_eq(m->actuator_dyntype[3], IMP_DYN_NONE);
  ck_assert_int_eq(m->actuator_gaintype[4], IMP_GAIN_AFFINE);
  ck_assert_double_eq(prm(m->actuator_gainprm, 4)[2], -4);
  ck_assert_int_eq(m->actuator_biastype[4], IMP_BIAS_NONE);
  ck_assert_int_eq(m->actuator_ctrllimited[4], 1);
  imp_free_model(m);
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<damper joint='k' kv='1' ctrlrange='-1 1'/>"
               "</actuator></mujoco>", 2, "cannot be negative");
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<intvelocity joint='j' actrange='0 1' "
               "inheritrange='1'/></actuator></mujoco>", 2, "inheritrange");
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<position joint='j' timeconst='-1'/>"
               "</actuator></mujoco>", 2, "timeconst");
}
END_TEST

START_TEST(act_limit_errors) {
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<general joint='j' dyntype='filter' "
               "actrange='1 -1'/></actuator></mujoco>", 2, "invalid actrange");
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<general joint='j' actrange='-1 1'/>"
               "</actuator></mujoco>", 2, "dyntype is 'none'");
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<general joint='j' actdim='1'/>"
               "</actuator></mujoco>", 2, "stateless");
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<general joint='j' dyntype='filter' actdim='0'/>"
               "</actuator></mujoco>", 2, "stateful");
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<general joint='j' dyntype='filter' actdim='2'/>"
               "</actuator></mujoco>", 2, "actdim > 1");
  /* autolimits off: an actrange alone does not limit */
  imp_model* m = load("<mujoco><compiler autolimits='false'/>" BODY
                      "<actuator><general joint='j' dyntype='integrator' actrange='-1 1'/>"
                      "</actuator></mujoco>");
  ck_assert_int_eq(m->actuator_actlimited[0], 0);
  imp_free_model(m);
}
END_TEST

/* key act: na values; written for every actuator of the file (skipped
   ones included), the kept actuators' values stay in their order */
START_TEST(keyframe_act) {
  imp_model* m = load("<mujoco>" BODY
                      "<actuator><general joint='j' dyntype='filter'/><motor joint='j'/>"
                      "<general joint='k' dyntype='integrator'/></actuator>"
                      "<keyframe><key act='0.25 -3'/></keyframe></mujoco>");
  ck_assert_int_eq(m->na, 2);
  ck_assert_double_eq(m->key_act[0], 0.25);
  ck_assert_double_eq(m->key_act[1], -3);
  imp_data* d = imp_make_data(m);
  imp_reset_data_keyframe(m, d, 0);
  ck_assert_double_eq(d->act[1], -3);
  imp_reset_data(m, d);
  ck_assert_double_eq(d->act[1], 0);
  imp_free_data(d);
  imp_free_model(m);
  /* actuators on a ball joint and a site have their activations too, in
     the file's order */
  m = imp_load_xml_string_opt(
      "<mujoco><worldbody><body><joint name='j'/><joint name='b' type='ball'/>"
           "<geom size='0.1'/><site name='s'/></body></worldbody>"
           "<actuator><general joint='j' dyntype='filter'/><general joint='b' dyntype='filter'/>"
           "<general site='s' dyntype='integrator'/><general joint='j' dyntype='integrator'/>"
           "</actuator><keyframe><key act='1 2 3 4'/></keyframe></mujoco>",
      NULL, "t.xml", 0, g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->nu, 4);
  ck_assert_int_eq(m->na, 4);
  ck_assert_double_eq(m->key_act[0], 1);
  ck_assert_double_eq(m->key_act[2], 3);
  ck_assert_double_eq(m->key_act[3], 4);
  imp_free_model(m);
  imp_test_expect_error("<mujoco>" BODY "<actuator><general joint='j' dyntype='filter'/></actuator>"
               "<keyframe>\n<key act='1 2 3'/></keyframe></mujoco>", 2, "key act: expected 1");
}
END_TEST

/* lengthrange: given ones stay; a muscle without one gets it from
   MuJoCo's simulation, which on a limited joint ends at the limits times
   gear (our limits are hard: to the stabilization's give); uselimit copies
   the joint's range as it is, as MuJoCo does; an unlimited joint does not
   settle: an error at the actuator's line; mode none leaves it */
START_TEST(lengthrange_rules) {
  imp_model* m = load("<mujoco>" BODY "<actuator>\n<muscle joint='j' gear='-2'/></actuator></mujoco>");
  imp_test_no_warnings(m);
  printf("lengthrange by simulation: %.9f %.9f (limits times gear: %.9f %.9f)\n",
         m->actuator_lengthrange[0], m->actuator_lengthrange[1], -4 * PI / 180, 2 * PI / 180);
  ck_assert_double_eq_tol(m->actuator_lengthrange[0], -4 * PI / 180, 1e-7);
  ck_assert_double_eq_tol(m->actuator_lengthrange[1], 2 * PI / 180, 1e-7);
  imp_free_model(m);
  m = load("<mujoco><compiler><lengthrange uselimit='true'/></compiler>" BODY
           "<actuator><muscle joint='j' gear='-2'/><muscle joint='j' lengthrange='0.5 0.7'/>"
           "<general joint='j' lengthrange='0.1 0.2'/></actuator></mujoco>");
  imp_test_no_warnings(m);
  ck_assert_double_eq_tol(m->actuator_lengthrange[0], -PI / 180, 1e-15);
  ck_assert_double_eq_tol(m->actuator_lengthrange[1], 2 * PI / 180, 1e-15);
  ck_assert_double_eq(m->actuator_lengthrange[2], 0.5);
  ck_assert_double_eq(m->actuator_lengthrange[5], 0.2);
  imp_free_model(m);
  m = load("<mujoco><compiler><lengthrange mode='all' useexisting='false' uselimit='true'/>"
           "</compiler>" BODY
           "<actuator><general joint='j' lengthrange='0.1 0.2'/></actuator></mujoco>");
  ck_assert_double_eq_tol(m->actuator_lengthrange[1], 2 * PI / 180, 1e-15);
  imp_free_model(m);
  m = load("<mujoco><compiler><lengthrange mode='none'/></compiler>" BODY
           "<actuator><muscle joint='k'/></actuator></mujoco>");
  ck_assert_double_eq(m->actuator_lengthrange[1], 0);
  imp_free_model(m);
  imp_test_expect_error("<mujoco>" BODY "<actuator>\n<muscle joint='k'/></actuator></mujoco>", 2,
               "did not converge");
  imp_test_expect_error("<mujoco><compiler>\n<lengthrange accel='0'/></compiler></mujoco>", 2, "accel");
}
END_TEST

/* acc0 = |M^-1 moment| at qpos0: gear / (I + armature) on a lone hinge */
START_TEST(acc0_from_inertia) {
  imp_model* m = load("<mujoco><worldbody><body><joint name='j' axis='0 0 1' armature='0.5'/>"
                      "<geom type='sphere' size='0.1' mass='2' pos='0.3 0 0'/></body></worldbody>"
                      "<actuator><motor joint='j' gear='3'/></actuator></mujoco>");
  double I = 2 * (0.4 * 0.01 + 0.09) + 0.5;
  ck_assert_double_eq_tol(m->actuator_acc0[0], 3 / I, 1e-12);
  imp_free_model(m);
}
END_TEST

static Suite* actuator_suite(void) {
  Suite* s = suite_create("actuator");
  TCase* t = tcase_create("loader");
  tcase_add_test(t, general_dyntypes_and_activation_addresses);
  tcase_add_test(t, cylinder_shortcut);
  tcase_add_test(t, muscle_shortcut);
  tcase_add_test(t, intvelocity_position_timeconst_damper);
  tcase_add_test(t, act_limit_errors);
  tcase_add_test(t, keyframe_act);
  tcase_add_test(t, lengthrange_rules);
  tcase_add_test(t, acc0_from_inertia);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(actuator_suite()); }
