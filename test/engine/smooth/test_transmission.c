/* Actuator transmissions (engine/smooth/transmission.c) against their laws:
 * a site thruster on a free body accelerates it by F/m along the site's
 * axis and turns it by I^-1 (r x F); a slider-crank's length and moment
 * follow the triangle of crank pin, rod and slider axis; a refsite's
 * translational moment is the exact gradient of its length on moving
 * bodies, its rotational length the relative angle in the refsite's frame;
 * adhesion pulls with gain ctrl in total, shared by the body's contacts,
 * across the gap layer too; the jointactuatorfrc and tendonactuatorfrc
 * sensors read the actuators' total on a joint and a tendon; the loader's
 * checks. */
#include <math.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "test_util.h"

static char g_err[1024];

static void expect_load_error(const char* xml, const char* what) {
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m == NULL, "loaded, expected an error with '%s'", what);
  ck_assert_msg(strstr(g_err, what), "'%s' not in: %s", what, g_err);
}

/* imp_actuator_length and imp_actuator_moment (one actuator, as the
   loader's acc0 and lengthrange use them) equal imp_transmission's */
static void check_single_actuator_api(const imp_model* m, const imp_data* d) {
  double moment[64];
  ck_assert_int_le(m->nv, 64);
  for (int u = 0; u < m->nu; u++) {
    ck_assert_double_eq(imp_actuator_length(m, d, u), d->actuator_length[u]);
    imp_actuator_moment(m, d, u, moment);
    for (int k = 0; k < m->nv; k++) ck_assert_double_eq(moment[k], d->actuator_moment[u * m->nv + k]);
  }
}

/* A 2 kg body with inertia diag(0.1, 0.2, 0.3) at rest in its principal
   frame, no gravity, a thruster at r = (0.3, -0.1, 0.05) whose z axis is
   a: the centre of mass accelerates at F a / m, the body turns at
   I^-1 (r x F a) (the free joint's angular dofs are in the body frame,
   here the world's); a torque gear turns it at I^-1 tau a. */
START_TEST(site_thruster_on_a_free_body) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody><body pos='0 0 1'><freejoint/>"
      "<inertial pos='0 0 0' mass='2' diaginertia='0.1 0.2 0.3'/>"
      "<geom type='box' size='0.1 0.1 0.1' contype='0' conaffinity='0'/>"
      "<site name='rotor' pos='0.3 -0.1 0.05' zaxis='0.2 -0.3 1'/></body></worldbody>"
      "<actuator><motor site='rotor' gear='0 0 1 0 0 0'/>"
      "<motor site='rotor' gear='0 0 0 0 0 1'/></actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  double a[3] = {0.2, -0.3, 1}, r[3] = {0.3, -0.1, 0.05}, I[3] = {0.1, 0.2, 0.3};
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int i = 0; i < 3; i++) a[i] /= n;
  double F = 4, tau = 0.7;
  d->ctrl[0] = F;
  imp_forward(m, d);
  double rf[3] = {r[1] * a[2] - r[2] * a[1], r[2] * a[0] - r[0] * a[2], r[0] * a[1] - r[1] * a[0]};
  for (int i = 0; i < 3; i++) {
    imp_assert_near(d->qacc[i], F * a[i] / 2, 1e-12);
    imp_assert_near(d->qacc[3 + i], F * rf[i] / I[i], 1e-12);
  }
  ck_assert_double_eq(d->actuator_length[0], 0);
  check_single_actuator_api(m, d);
  d->ctrl[0] = 0;
  d->ctrl[1] = tau;
  imp_forward(m, d);
  for (int i = 0; i < 3; i++) {
    imp_assert_near(d->qacc[i], 0, 1e-12);
    imp_assert_near(d->qacc[3 + i], tau * a[i] / I[i], 1e-12);
  }
  /* velocity = moment . qvel: the thruster's axis component of the site's
     velocity */
  d->qvel[0] = 0.5;
  d->qvel[5] = 2; /* spin about z: the site moves at w x r */
  imp_forward(m, d);
  double vs[3] = {0.5 - 2 * r[1], 2 * r[0], 0};
  imp_assert_near(d->actuator_velocity[0], vs[0] * a[0] + vs[1] * a[1] + vs[2] * a[2], 1e-12);
  imp_assert_near(d->actuator_velocity[1], 2 * a[2], 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Slider along world x through the origin, crank of radius 0.1 about z at
   (0.3, 0, 0), rod L: at crank angle t the pin is p = (0.3 + 0.1 cos t,
   0.1 sin t), and the slider, a rod's length from it on the axis on the
   origin's side, is at x = p_x - sqrt(L^2 - p_y^2); gear 2 doubles it.
   Its moment is dx/dt; a rod shorter than |p_y| cannot reach the axis:
   then the length is p_x (MuJoCo's rule). */
START_TEST(slider_crank_triangle) {
  static const char* fmt =
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<site name='slider' zaxis='1 0 0'/>"
      "<body pos='0.3 0 0'><joint axis='0 0 1'/><geom size='0.02' contype='0' conaffinity='0'/>"
      "<site name='pin' pos='0.1 0 0'/></body></worldbody>"
      "<actuator><motor cranksite='pin' slidersite='slider' cranklength='%g' gear='2'/>"
      "</actuator></mujoco>";
  char xml[1024];
  snprintf(xml, sizeof xml, fmt, 0.25);
  imp_model* m = imp_test_load_string_nowarn(xml);
  ck_assert_int_eq(m->actuator_trntype[0], IMP_TRN_SLIDERCRANK);
  ck_assert_double_eq(m->actuator_cranklength[0], 0.25);
  imp_data* d = imp_make_data(m);
  for (double t = -2.5; t < 3; t += 0.7) {
    d->qpos[0] = t;
    d->qvel[0] = 1.3;
    imp_forward(m, d);
    double px = 0.3 + 0.1 * cos(t), py = 0.1 * sin(t), s = sqrt(0.25 * 0.25 - py * py);
    double dx = -0.1 * sin(t) + py * 0.1 * cos(t) / s;
    imp_assert_near(d->actuator_length[0], 2 * (px - s), 1e-14);
    imp_assert_near(d->actuator_moment[0], 2 * dx, 1e-13);
    imp_assert_near(d->actuator_velocity[0], 2 * dx * 1.3, 1e-13);
    check_single_actuator_api(m, d);
  }
  imp_free_data(d);
  imp_free_model(m);
  snprintf(xml, sizeof xml, fmt, 0.05);
  m = imp_test_load_string_nowarn(xml);
  d = imp_make_data(m);
  d->qpos[0] = 1.2; /* |p_y| = 0.093 > 0.05 */
  imp_forward(m, d);
  imp_assert_near(d->actuator_length[0], 2 * (0.3 + 0.1 * cos(1.2)), 1e-14);
  imp_assert_near(d->actuator_moment[0], 2 * -0.1 * sin(1.2), 1e-14);
  imp_free_data(d);
  imp_free_model(m);
  expect_load_error("<mujoco><worldbody><site name='a'/><site name='b'/></worldbody><actuator>"
                    "<motor cranksite='a' slidersite='b'/></actuator></mujoco>",
                    "cranklength must be positive");
  expect_load_error("<mujoco><worldbody><site name='a'/></worldbody><actuator>"
                    "<motor cranksite='a' cranklength='1'/></actuator></mujoco>",
                    "missing slidersite");
}
END_TEST

/* A site on one arm, its refsite on another that moves too: the moment is
   the gradient of the length (central differences in each hinge), so a
   servo on it pulls along the length; rotating the site's arm by a about
   the common z axis against the refsite's arm by b gives a rotational
   length of a - b about the refsite frame's image of z, the sites having
   the same tilted orientation in their bodies. */
START_TEST(refsite_length_and_gradient) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body><joint axis='0 0 1'/><geom size='0.02' contype='0' conaffinity='0'/>"
      "<body pos='0.3 0 0'><joint axis='0 1 0'/><geom size='0.02' contype='0' conaffinity='0'/>"
      "<site name='s' pos='0.1 0.2 0' euler='0.4 -0.3 0.2'/></body></body>"
      "<body pos='0 0.5 0'><joint axis='0 0 1'/><geom size='0.02' contype='0' conaffinity='0'/>"
      "<body pos='0.2 0 0'><joint axis='1 0 0'/><geom size='0.02' contype='0' conaffinity='0'/>"
      "<site name='r' pos='0 0.1 0.1' euler='0.4 -0.3 0.2'/></body></body></worldbody>"
      "<actuator><motor site='s' refsite='r' gear='0.3 -1 0.5 0 0 0'/>"
      "<motor site='s' refsite='r' gear='0 0 0 0.1 0.2 0.3'/></actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  double q[4] = {0.3, -0.7, 0.5, 1.1}, moment[4], eps = 1e-6;
  for (int i = 0; i < 4; i++) d->qpos[i] = q[i];
  imp_forward(m, d);
  check_single_actuator_api(m, d);
  imp_copy(moment, d->actuator_moment, 4);
  for (int i = 0; i < 4; i++) {
    d->qpos[i] = q[i] + eps;
    imp_forward(m, d);
    double lp = d->actuator_length[0];
    d->qpos[i] = q[i] - eps;
    imp_forward(m, d);
    double lm = d->actuator_length[0];
    d->qpos[i] = q[i];
    imp_assert_near(moment[i], (lp - lm) / (2 * eps), 1e-8);
  }
  /* the rotation: only the z hinges turned, by a and b; the sites' common
     orientation q0 in their bodies makes the relative rotation a - b about
     R(q0)' z, which the gear (0.1, 0.2, 0.3) reads as (a - b) g . R(q0)' z */
  double a = 0.9, b = -0.4;
  imp_zero(d->qpos, 4);
  d->qpos[0] = a;
  d->qpos[2] = b;
  imp_forward(m, d);
  int s = imp_test_id(m, IMP_OBJ_SITE, "s");
  double z0[3], g[3] = {0.1, 0.2, 0.3};
  /* R(q0)' z from the site's world frame at a = 0: its matrix's third row */
  imp_data* d0 = imp_make_data(m);
  imp_forward(m, d0);
  for (int k = 0; k < 3; k++) z0[k] = d0->site_xmat[9 * s + 6 + k];
  imp_assert_near(d->actuator_length[1], (a - b) * (g[0] * z0[0] + g[1] * z0[1] + g[2] * z0[2]),
                  1e-12);
  imp_free_data(d0);
  imp_free_data(d);
  imp_free_model(m);
  expect_load_error("<mujoco><worldbody><body><joint/><geom size='1'/><site name='a'/></body>"
                    "</worldbody><actuator><motor joint='j' refsite='a'/></actuator></mujoco>",
                    "refsite can only be used with site transmission");
}
END_TEST

/* ball and free joints: joint gear in the child frame, jointinparent in
   the parent's; the ball's length is gear . rotation vector */
START_TEST(ball_and_free_joint_gears) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><option gravity='0 0 0'/><worldbody>"
      "<body><joint name='b' type='ball'/><geom size='0.1' contype='0' conaffinity='0'/></body>"
      "<body pos='1 0 0'><joint name='f' type='free'/><geom size='0.1' contype='0' "
      "conaffinity='0'/></body></worldbody>"
      "<actuator><motor joint='b' gear='0 0 1'/><motor jointinparent='b' gear='0 0 1'/>"
      "<motor joint='f' gear='1 2 3 0 0 1'/><motor jointinparent='f' gear='0 0 0 0 0 1'/>"
      "</actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  /* the ball turned by 0.8 about x: child z is world (0, -sin, cos) */
  double c = cos(0.4), s = sin(0.4);
  d->qpos[0] = c, d->qpos[1] = s, d->qpos[2] = 0, d->qpos[3] = 0;
  d->qpos[7] = c, d->qpos[8] = s;
  imp_forward(m, d);
  ck_assert_double_eq(d->actuator_length[0], 0); /* z . (0.8, 0, 0) */
  /* world z in the child frame: (0, sin 0.8, cos 0.8) */
  imp_assert_near(d->actuator_moment[1 * m->nv + 2], cos(0.8), 1e-15);
  imp_assert_near(d->actuator_moment[1 * m->nv + 1], sin(0.8), 1e-15);
  ck_assert_double_eq(d->actuator_moment[0 * m->nv + 2], 1);
  /* free: the force along world (1, 2, 3), torque about child z */
  for (int k = 0; k < 3; k++) ck_assert_double_eq(d->actuator_moment[2 * m->nv + 3 + k], k + 1);
  ck_assert_double_eq(d->actuator_moment[2 * m->nv + 8], 1);
  imp_assert_near(d->actuator_moment[3 * m->nv + 7], sin(0.8), 1e-15);
  ck_assert_double_eq(d->actuator_length[2], 0);
  check_single_actuator_api(m, d);
  /* the ball turned by 1.1 about z: length 1.1; by 4 it wraps to 4 - 2 pi */
  double angles[2] = {1.1, 4};
  for (int i = 0; i < 2; i++) {
    d->qpos[0] = cos(angles[i] / 2), d->qpos[1] = d->qpos[2] = 0, d->qpos[3] = sin(angles[i] / 2);
    imp_forward(m, d);
    imp_assert_near(d->actuator_length[0], i ? 4 - 2 * IMP_PI : 1.1, 1e-14);
    imp_assert_near(d->actuator_length[1], i ? 4 - 2 * IMP_PI : 1.1, 1e-14);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A 3 kg box whose bottom face lies 0.02 above a plane, inside the
   geoms' margin 0.05 and gap 0.05 (contacts exist, no contact force): the
   adhesion's gain ctrl, 4 N, pulls it down in total whatever the number of
   contacts, without a torque; ctrl below the range gives nothing. */
START_TEST(adhesion_total_force) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody><geom type='plane' size='1 1 0.1'/>"
      "<body name='box' pos='0.2 0.1 0.12'><freejoint/>"
      "<geom type='box' size='0.2 0.15 0.1' mass='3' margin='0.05' gap='0.05'/></body>"
      "</worldbody><actuator><adhesion body='box' ctrlrange='0 2' gain='2'/></actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  d->ctrl[0] = 2;
  imp_forward(m, d);
  ck_assert_int_ge(d->ncon, 2);
  check_single_actuator_api(m, d);
  printf("adhesion: %d contacts share the pull\n", d->ncon);
  imp_assert_near(d->qacc[2], -4.0 / 3, 1e-12);
  imp_assert_near(d->qacc[0], 0, 1e-12);
  for (int k = 3; k < 6; k++) imp_assert_near(d->qacc[k], 0, 1e-12);
  ck_assert_double_eq(d->actuator_length[0], 0);
  d->ctrl[0] = -1; /* clamped to 0 */
  imp_forward(m, d);
  ck_assert_double_eq(d->qacc[2], 0);
  /* lifted out of the margin: no contacts, no pull */
  d->ctrl[0] = 1;
  d->qpos[2] = 0.3;
  imp_forward(m, d);
  ck_assert_int_eq(d->ncon, 0);
  ck_assert_double_eq(d->qacc[2], 0);
  imp_free_data(d);
  imp_free_model(m);
  expect_load_error("<mujoco><worldbody><body name='b'/></worldbody><actuator>"
                    "<adhesion body='b' ctrlrange='-1 1'/></actuator></mujoco>",
                    "adhesion control range cannot be negative");
  expect_load_error("<mujoco><worldbody><body name='b'/></worldbody><actuator>"
                    "<adhesion body='b' ctrlrange='0 1' gain='-1'/></actuator></mujoco>",
                    "adhesion gain cannot be negative");
  expect_load_error("<mujoco><worldbody><body name='b'><joint name='j'/><geom size='1'/></body>"
                    "</worldbody><actuator><motor joint='j' body='b'/></actuator></mujoco>",
                    "at most one transmission target");
}
END_TEST

/* jointactuatorfrc: the sum of the actuators on a hinge (two motors and a
   tendon through it); tendonactuatorfrc: the sum of those on the tendon */
START_TEST(actuator_force_sensors) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body><joint name='h'/><geom size='0.1'/><body pos='0 0 -0.3'>"
      "<joint name='k'/><geom size='0.1'/></body></body></worldbody>"
      "<tendon><fixed name='t'><joint joint='h' coef='2'/><joint joint='k' coef='-1'/></fixed>"
      "</tendon><actuator><motor joint='h' gear='3'/><motor joint='h'/>"
      "<motor tendon='t'/><motor tendon='t' gear='0.5'/></actuator>"
      "<sensor><jointactuatorfrc joint='h'/><jointactuatorfrc joint='k'/>"
      "<tendonactuatorfrc tendon='t'/></sensor></mujoco>");
  imp_data* d = imp_make_data(m);
  double ctrl[4] = {0.5, -2, 1.5, 4};
  imp_copy(d->ctrl, ctrl, 4);
  imp_forward(m, d);
  imp_assert_near(d->sensordata[0], 3 * 0.5 - 2 + 2 * (1.5 + 0.5 * 4), 1e-14);
  imp_assert_near(d->sensordata[1], -(1.5 + 0.5 * 4), 1e-14);
  imp_assert_near(d->sensordata[2], 1.5 + 4, 1e-14);
  imp_free_data(d);
  imp_free_model(m);
  expect_load_error("<mujoco><worldbody><body><joint name='b' type='ball'/><geom size='1'/>"
                    "</body></worldbody><sensor><jointactuatorfrc joint='b'/></sensor></mujoco>",
                    "joint must be slide or hinge");
}
END_TEST

/* Each actuator's moment stays within the dofs its transmission reaches
   (actuator_dofadr/dofnum, which the step zeroes, fills and reads instead
   of all nv): a joint's own dofs, a site's or a tendon's body chains, both
   sites of a slider-crank or a refsite, every dof for adhesion. Three trees
   (a free body with a hinge and a ball below, a slide-hinge body with a
   hinge below, a hinge body): the spans are the expected ones, and over
   random states the full moment is 0 outside them and equals the step's
   row, whose velocity is the full product. */
START_TEST(moment_spans) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody>"
      "<body pos='0 0 1'><freejoint/><geom size='.1'/><site name='sa' pos='.1 0 0'/>"
      " <body pos='.3 0 0'><joint name='h1' axis='0 1 0'/><geom size='.1'/>"
      "  <body pos='.3 0 0'><joint name='b1' type='ball'/><geom size='.05'/>"
      "   <site name='sa3' pos='.1 0 .1'/></body></body></body>"
      "<body pos='2 0 1'><joint name='s1' type='slide' axis='1 0 0'/><joint name='h2' axis='0 0 1'/>"
      " <geom size='.1'/><site name='sc' pos='0 .2 0'/>"
      " <body pos='0 0 -.4'><joint name='h3' axis='1 0 0'/>"
      "  <geom name='cyl' type='cylinder' size='.05 .1'/><site name='sd' pos='0 0 -.2'/></body></body>"
      "<body name='e' pos='4 0 1'><joint name='h4'/><geom size='.1'/></body>"
      "</worldbody><tendon><fixed name='tf'><joint joint='h2' coef='1'/><joint joint='h3' coef='-.5'/></fixed>"
      "<spatial name='ts'><site site='sc'/><geom geom='cyl'/><site site='sd'/></spatial></tendon>"
      "<actuator><motor joint='h1'/><motor joint='b1' gear='1 0 0'/><motor joint='h4'/>"
      "<motor site='sa3' gear='0 0 1 0 0 0'/><motor site='sa3' refsite='sa' gear='1 0 0 0 0 1'/>"
      "<general cranksite='sc' slidersite='sd' cranklength='.5'/>"
      "<motor tendon='tf'/><motor tendon='ts'/><adhesion body='e' ctrlrange='0 1'/>"
      "<motor jointinparent='b1' gear='0 1 0'/></actuator></mujoco>");
  ck_assert_int_eq(m->nv, 14);
  ck_assert_int_eq(m->nu, 10);
  /* free 0-5, h1 6, b1 7-9, s1 10, h2 11, h3 12, h4 13 */
  const int want[10][2] = {{6, 1}, {7, 3}, {13, 1}, {0, 10}, {0, 10},
                           {10, 3}, {11, 2}, {10, 3}, {0, 14}, {7, 3}};
  for (int u = 0; u < m->nu; u++) {
    ck_assert_int_eq(m->actuator_dofadr[u], want[u][0]);
    ck_assert_int_eq(m->actuator_dofnum[u], want[u][1]);
  }
  imp_data* d = imp_make_data(m);
  double moment[14];
  for (int trial = 0; trial < 20; trial++) {
    for (int i = 0; i < m->nq; i++) d->qpos[i] = imp_test_urand(-1, 1);
    for (int i = 0; i < m->nv; i++) d->qvel[i] = imp_test_urand(-1, 1);
    imp_forward(m, d);
    for (int u = 0; u < m->nu; u++) {
      imp_actuator_moment(m, d, u, moment);
      int a = m->actuator_dofadr[u], n = m->actuator_dofnum[u];
      double v = 0;
      for (int k = 0; k < m->nv; k++) {
        if (k < a || k >= a + n) ck_assert_msg(moment[k] == 0, "actuator %d, dof %d", u, k);
        ck_assert(moment[k] == d->actuator_moment[u * m->nv + k]);
        v += moment[k] * d->qvel[k];
      }
      ck_assert_double_eq_tol(d->actuator_velocity[u], v, 1e-14);
    }
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static Suite* transmission_suite(void) {
  Suite* s = suite_create("transmission");
  TCase* tc = tcase_create("laws");
  tcase_add_test(tc, site_thruster_on_a_free_body);
  tcase_add_test(tc, slider_crank_triangle);
  tcase_add_test(tc, refsite_length_and_gradient);
  tcase_add_test(tc, ball_and_free_joint_gears);
  tcase_add_test(tc, adhesion_total_force);
  tcase_add_test(tc, actuator_force_sensors);
  tcase_add_test(tc, moment_spans);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(transmission_suite()); }
