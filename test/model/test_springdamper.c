/* <joint springdamper> (model/springdamper.c): stiffness and damping from a
 * time constant tau and damping ratio zeta, with solref's formulas (MuJoCo
 * docs, Modeling: solver parameters) scaled by the joint inertia I at qpos0:
 * damping = 2 I / tau, stiffness = I / (tau zeta)^2. Inertias here are
 * worked out by hand; the free response of the joint is then the damped
 * oscillator of natural frequency 1 / (tau zeta) and damping ratio zeta. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"

static char g_err[1000];

/* A hinge about y at the body origin carrying a 2 kg sphere of radius 0.1
   at 0.5 m, armature 0.03: I = 2 (0.5^2) + 0.4 (2) (0.1^2) + 0.03 = 0.538.
   A slide joint carrying a 1.5 kg sphere, armature 0.2: I = 1.7. A free
   sphere of 3 kg, radius 0.2 (moment 0.048), armature 0.01:
   I = 6 / (3 / 3.01 + 3 / 0.058). */
static const char* k_model =
    "<mujoco><option gravity='0 0 0'/><worldbody>\n"
    "<body name='pend'>\n"
    "  <joint name='hinge' type='hinge' axis='0 1 0' armature='0.03' springdamper='0.2 0.5'"
    " stiffness='7' damping='8'/>\n"
    "  <geom type='sphere' size='0.1' pos='0.5 0 0' mass='2'/></body>\n"
    "<body name='slider' pos='0 2 0'>\n"
    "  <joint name='slide' type='slide' axis='1 0 0' armature='0.2' springdamper='0.05 1'/>\n"
    "  <geom type='sphere' size='0.1' mass='1.5'/></body>\n"
    "<body name='free' pos='0 -2 0'>\n"
    "  <joint name='free' type='free' armature='0.01' springdamper='0.3 0.8'/>\n"
    "  <geom type='sphere' size='0.2' mass='3'/></body>\n"
    "</worldbody></mujoco>\n";

static void expect_joint(const imp_model* m, const char* name, double I, double tau,
                         double zeta) {
  int j = imp_test_id(m, IMP_OBJ_JOINT, name);
  imp_assert_near(m->jnt_stiffness[j], I / (tau * tau * zeta * zeta), 1e-12 * I);
  int n = m->jnt_type[j] == IMP_JNT_FREE ? 6 : 1;
  for (int k = 0; k < n; k++)
    imp_assert_near(m->dof_damping[m->jnt_dofadr[j] + k], 2 * I / tau, 1e-12 * I);
}

START_TEST(stiffness_and_damping_follow_the_formula) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  expect_joint(m, "hinge", 2 * 0.25 + 0.4 * 2 * 0.01 + 0.03, 0.2, 0.5);
  expect_joint(m, "slide", 1.5 + 0.2, 0.05, 1);
  expect_joint(m, "free", 6 / (3 / 3.01 + 3 / (0.4 * 3 * 0.04 + 0.01)), 0.3, 0.8);
  imp_free_model(m);
}
END_TEST

/* The hinge released from 0.4 rad at rest follows
   q(t) = q0 e^(-zeta w t) (cos(wd t) + zeta / sqrt(1 - zeta^2) sin(wd t)),
   w = 1 / (tau zeta) = 10 rad/s, wd = w sqrt(1 - zeta^2): the time constant
   and damping ratio the file asked for. Euler's O(h) error at h = 1e-4 is
   well under the tolerance, and a wrong inertia or formula far above it. */
START_TEST(free_response_has_the_asked_frequency_and_ratio) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  m->opt.timestep = 1e-4;
  imp_data* d = imp_make_data(m);
  int j = imp_test_id(m, IMP_OBJ_JOINT, "hinge");
  int qa = m->jnt_qposadr[j];
  double q0 = 0.4, zeta = 0.5, w = 1 / (0.2 * zeta), wd = w * sqrt(1 - zeta * zeta);
  d->qpos[qa] = q0;
  double worst = 0;
  for (int s = 1; s <= 5000; s++) {
    imp_step(m, d);
    double t = s * m->opt.timestep;
    double want = q0 * exp(-zeta * w * t) *
                  (cos(wd * t) + zeta / sqrt(1 - zeta * zeta) * sin(wd * t));
    worst = fmax(worst, fabs(d->qpos[qa] - want));
  }
  printf("springdamper hinge: max |q - analytic| over 0.5 s: %.2e rad\n", worst);
  ck_assert_msg(worst < 2e-3 * q0, "hinge deviates from the damped oscillator by %.3e rad", worst);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A class's springdamper reaches its joints; a joint without one keeps its
   stiffness and damping; one value zero or negative is an error at the
   joint's line (MuJoCo: "when defined, springdamper values must be
   positive"). */
START_TEST(classes_and_errors) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><default><default class='sd'><joint springdamper='0.1 1'/></default></default>"
      "<worldbody><body><joint class='sd' type='slide' axis='1 0 0'/>"
      "<geom size='0.1' mass='4'/><body><joint type='slide' axis='0 1 0' stiffness='3' "
      "damping='0.5'/><geom size='0.1' mass='1'/></body></body></worldbody></mujoco>");
  /* the first slide moves both bodies: I = 5, with the y slide's mass in
     the x direction orthogonal to its own: M^-1's first entry is 1/5 */
  imp_assert_near(m->jnt_stiffness[0], 5 / 0.01, 1e-9);
  imp_assert_near(m->dof_damping[0], 2 * 5 / 0.1, 1e-10);
  ck_assert_double_eq(m->jnt_stiffness[1], 3);
  ck_assert_double_eq(m->dof_damping[1], 0.5);
  imp_free_model(m);
  imp_model* bad = imp_load_xml_string(
      "<mujoco><worldbody><body>\n<joint springdamper='0.1 0'/><geom size='1'/></body>"
      "</worldbody></mujoco>",
      NULL, "t.xml", g_err, sizeof g_err);
  ck_assert(bad == NULL);
  ck_assert_msg(strncmp(g_err, "t.xml:2:", 8) == 0 && strstr(g_err, "springdamper"),
                "error: %s", g_err);
}
END_TEST

int main(void) {
  Suite* s = suite_create("springdamper");
  TCase* t = tcase_create("springdamper");
  tcase_add_test(t, stiffness_and_damping_follow_the_formula);
  tcase_add_test(t, free_response_has_the_asked_frequency_and_ratio);
  tcase_add_test(t, classes_and_errors);
  suite_add_tcase(s, t);
  return imp_test_run_suite(s);
}
