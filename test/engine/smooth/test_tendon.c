/* Tendons (engine/smooth/tendon.c, model/tendon.c) by their laws, outside our
 * own code: wrapping lengths against the closed forms of a path around a
 * circle and a helix, Jacobians against finite differences of the length,
 * springs with a rest band, dry friction, limits that are never exceeded,
 * equalities, the actuators' force limit on a tendon, the sensors, and the
 * loader's checks with file:line errors. MuJoCo 2.2.2 checks the smooth
 * dynamics in test/mujoco/test_mujoco_tendon.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

/* the one-line text must fail to load at t.xml:1 mentioning what */
#define expect_error(xml, what) imp_test_expect_error((xml), 1, (what))

static const double k_eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* Path around a circle of radius r from a point at distance a, angle 0, to
   one at distance a, angle alpha (the chord crossing the circle): two
   tangent legs sqrt(a^2 - r^2) and the arc between the tangent points,
   r (alpha - 2 acos(r / a)). */
static double circle_path(double a, double r, double alpha) {
  return 2 * sqrt(a * a - r * r) + r * (alpha - 2 * acos(r / a));
}

static double dist3(const double* a, const double* b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

START_TEST(sphere_wrap_is_the_shortest_path_around_a_circle) {
  double r = 0.3, a = 1, alpha = 2.7, w[6];
  double pos[3] = {0.2, -0.1, 0.4};
  double x0[3] = {pos[0] + a, pos[1], pos[2]};
  double x1[3] = {pos[0] + a * cos(alpha), pos[1] + a * sin(alpha), pos[2]};
  double arc = imp_wrap(w, x0, x1, pos, k_eye, r, IMP_WRAP_SPHERE, NULL);
  ck_assert(arc > 0);
  imp_assert_near(dist3(x0, w) + arc + dist3(w + 3, x1), circle_path(a, r, alpha), 1e-12);
  imp_assert_near(dist3(w, pos), r, 1e-12); /* the wrap points are on the sphere */
  imp_assert_near(dist3(w + 3, pos), r, 1e-12);
  /* a chord clear of the sphere: no wrap */
  double far[3] = {pos[0] + a * cos(0.5), pos[1] + a * sin(0.5), pos[2]};
  ck_assert(imp_wrap(w, x0, far, pos, k_eye, r, IMP_WRAP_SPHERE, NULL) < 0);
  /* a side site on the far side makes the path go round that way: the
     long way round, 2 pi - alpha */
  double side[3] = {pos[0] + 2 * cos(alpha / 2 + IMP_PI), pos[1] + 2 * sin(alpha / 2 + IMP_PI),
                    pos[2]};
  arc = imp_wrap(w, x0, x1, pos, k_eye, r, IMP_WRAP_SPHERE, side);
  imp_assert_near(dist3(x0, w) + arc + dist3(w + 3, x1), circle_path(a, r, 2 * IMP_PI - alpha),
                  1e-12);
}
END_TEST

/* A cylinder's path unrolls to a straight line: its 3D length is the
   hypotenuse of the cross-section's path and the height difference, and
   the wrap points share the height in proportion. */
START_TEST(cylinder_wrap_is_a_helix) {
  double r = 0.2, a = 0.8, alpha = 2.8, z0 = -0.3, z1 = 0.5, w[6];
  double pos[3] = {0, 0, 0}, R[9];
  /* the cylinder's axis along world x: its frame's z is world x */
  double q[4] = {cos(IMP_PI / 4), 0, sin(IMP_PI / 4), 0};
  imp_quat2mat(R, q);
  double l0[3] = {a, 0, z0}, l1[3] = {a * cos(alpha), a * sin(alpha), z1}, x0[3], x1[3];
  imp_mat3_vec(x0, R, l0);
  imp_mat3_vec(x1, R, l1);
  double arc = imp_wrap(w, x0, x1, pos, R, r, IMP_WRAP_CYLINDER, NULL);
  ck_assert(arc > 0);
  double plane = circle_path(a, r, alpha), dz = z1 - z0;
  imp_assert_near(dist3(x0, w) + arc + dist3(w + 3, x1), sqrt(plane * plane + dz * dz), 1e-12);
}
END_TEST

/* A side site inside the obstacle: the path goes through it, two straight
   legs meeting on the circle where a light ray would reflect; for ends
   symmetric about a line through the centre, on that line. */
START_TEST(inside_wrap_meets_the_circle_on_the_symmetry_line) {
  double r = 0.3, a = 1, alpha = 1.2, w[6];
  double pos[3] = {0, 0, 0};
  double x0[3] = {a, 0, 0}, x1[3] = {a * cos(alpha), a * sin(alpha), 0}, side[3] = {0, 0, 0};
  double arc = imp_wrap(w, x0, x1, pos, k_eye, r, IMP_WRAP_CYLINDER, side);
  imp_assert_near(arc, 0, 0);
  double expect[3] = {r * cos(alpha / 2), r * sin(alpha / 2), 0};
  imp_assert_vec_near(w, expect, 3, 1e-5); /* Newton's tolerance, 1e-6 on the angle equation */
  imp_assert_vec_near(w + 3, expect, 3, 1e-5);
}
END_TEST

/* An arm whose tendons wrap a cylinder at the elbow and a sphere at the
   shoulder, swinging in 3D on a ball joint. */
static const char* k_wrap_arm =
    "<mujoco><option timestep='0.002'><flag contact='disable'/></option><worldbody>"
    "<site name='w0' pos='-0.1 0.05 0.15'/><site name='w1' pos='-0.1 -0.05 -0.15'/>"
    "<body name='upper'><joint name='shoulder' type='ball'/>"
    "<geom name='ball' type='sphere' size='0.06'/><geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.02'/>"
    "<site name='u0' pos='0.15 0 0.03'/><site name='u1' pos='0.1 0.01 -0.04'/>"
    "<body name='fore' pos='0.3 0 0'><joint name='elbow' axis='0 1 0'/>"
    "<geom name='cyl' type='cylinder' size='0.04 0.02' euler='1.5708 0 0'/>"
    "<geom type='capsule' fromto='0 0 0 0.25 0 0' size='0.02'/>"
    "<site name='f0' pos='0.1 0 0.03'/><site name='side' pos='0 0 0.1'/>"
    "</body></body></worldbody><tendon>"
    "<spatial name='over'><site site='u0'/><geom geom='cyl' sidesite='side'/><site site='f0'/></spatial>"
    "<spatial name='round'><site site='w1'/><geom geom='ball'/><site site='u1'/><pulley divisor='2'/>"
    "<site site='w0'/><site site='f0'/></spatial>"
    "<fixed name='fix'><joint joint='elbow' coef='0.7'/></fixed></tendon></mujoco>";

/* ten_J is d length / d q (in velocity space): compare with central
   differences of the lengths along each dof, at random configurations. */
START_TEST(jacobian_matches_finite_differences) {
  imp_model* m = imp_test_load_string_nowarn(k_wrap_arm);
  imp_data* d = imp_make_data(m);
  double* q0 = imp_stack_alloc(d, m->nq);
  int wrapped = 0;
  for (int trial = 0; trial < 20; trial++) {
    imp_test_random_qpos(m, d->qpos);
    imp_copy(q0, d->qpos, m->nq);
    imp_kinematics(m, d);
    imp_com_pos(m, d);
    imp_tendon(m, d);
    double J[3][4] = {{0}};
    for (int t = 0; t < m->ntendon; t++)
      for (int i = 0; i < d->ten_J_rownnz[t]; i++)
        J[t][d->ten_J_colind[d->ten_J_rowadr[t] + i]] = d->ten_J[d->ten_J_rowadr[t] + i];
    for (int k = 0; k < m->nwrap * 2; k++) wrapped |= k < d->ten_wrapnum[0] && d->wrap_obj[k] >= 0;
    for (int v = 0; v < m->nv; v++) {
      double L[2][3], eps = 1e-6, dq[4] = {0, 0, 0, 0};
      for (int s = 0; s < 2; s++) {
        imp_copy(d->qpos, q0, m->nq);
        dq[v] = s ? eps : -eps;
        imp_integrate_pos(m, d->qpos, dq, 1);
        imp_kinematics(m, d);
        imp_com_pos(m, d);
        imp_tendon(m, d);
        imp_copy(L[s], d->ten_length, 3);
      }
      for (int t = 0; t < 3; t++) imp_assert_near(J[t][v], (L[1][t] - L[0][t]) / (2 * eps), 1e-7);
    }
  }
  ck_assert_msg(wrapped, "no configuration wrapped the cylinder");
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A hinge pulled by a fixed tendon (coef c): its spring acts only outside
   the rest band [s0, s1], from the nearer end; damping -b v along it. */
START_TEST(spring_rest_band_and_damping) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody><body><joint name='h' axis='0 0 1'/>"
      "<geom size='0.1' pos='0.2 0 0'/></body></worldbody><tendon>"
      "<fixed stiffness='10' damping='3' springlength='-0.2 0.1'><joint joint='h' coef='2'/></fixed>"
      "</tendon></mujoco>");
  imp_data* d = imp_make_data(m);
  double qs[] = {-0.3, -0.05, 0.02, 0.2}; /* lengths 2q: -0.6, -0.1, 0.04, 0.4 */
  double expect[] = {-10 * (-0.6 + 0.2) * 2, 0, 0, -10 * (0.4 - 0.1) * 2};
  for (int i = 0; i < 4; i++) {
    d->qpos[0] = qs[i];
    d->qvel[0] = 0;
    imp_forward(m, d);
    imp_assert_near(d->qfrc_passive[0], expect[i], 1e-12);
  }
  d->qpos[0] = 0;
  d->qvel[0] = 0.5; /* tendon velocity 1: force -3, torque -6 */
  imp_forward(m, d);
  imp_assert_near(d->qfrc_passive[0], -6, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Dry friction on a tendon: a torque whose pull along the tendon is below
   frictionloss leaves the joint at rest; above it, the joint accelerates
   at (tau - c F) / I (torque tau, coef c, bound F along the tendon). */
START_TEST(tendon_frictionloss_holds_then_slips) {
  const char* fmt =
      "<mujoco><option gravity='0 0 0' timestep='0.001'/><worldbody><body>"
      "<joint name='h' axis='0 0 1'/><inertial pos='0 0 0' mass='1' diaginertia='1 1 2'/>"
      "</body></worldbody><tendon><fixed frictionloss='3'><joint joint='h' coef='0.5'/>"
      "</fixed></tendon><actuator><motor joint='h'/></actuator></mujoco>";
  imp_model* m = imp_test_load_string_nowarn(fmt);
  imp_data* d = imp_make_data(m);
  d->ctrl[0] = 1.4; /* below c F = 1.5 */
  for (int s = 0; s < 500; s++) imp_step(m, d);
  imp_assert_near(d->qvel[0], 0, 1e-12);
  imp_reset_data(m, d);
  d->ctrl[0] = 2.5;
  for (int s = 0; s < 500; s++) imp_step(m, d);
  imp_assert_near(d->qvel[0], (2.5 - 1.5) / 2 * 0.5, 1e-9); /* I = 2 about z, t = 0.5 s */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A bob on a string (a spatial tendon limited to L = 0.5 m) dropped from
   beside its anchor: once taut the string holds, the limit sensors report
   the row. The limit row is linear in the velocities while the length is
   not: a step moving the bob by h v along a circle lengthens the string by
   (h v)^2 / (2 L) to second order, and stabilization takes that back at
   rate 1/T (T = 0.02 s, constraints.c), so the excess stays below
   (T / h) (h v)^2 / (2 L), first order in h: four times smaller at a
   quarter of the step, and nothing at rest. */
static double string_excess(double h, double* bound, double* pull, double* rest) {
  char xml[1024];
  snprintf(xml, sizeof xml,
           "<mujoco><option timestep='%g'/><worldbody><site name='a' pos='0 0 1'/>"
           "<body pos='0.3 0 1'><freejoint/><geom size='0.03'/><site name='b'/></body></worldbody>"
           "<tendon><spatial name='string' range='0 0.5' damping='0.01'><site site='a'/><site site='b'/></spatial>"
           "</tendon><sensor><tendonpos name='len' tendon='string'/>"
           "<tendonlimitfrc name='frc' tendon='string'/></sensor></mujoco>", h);
  imp_model* m = imp_test_load_string_nowarn(xml);
  imp_data* d = imp_make_data(m);
  double longest = 0, vmax = 0;
  *pull = 0;
  for (int s = 0; s < (int)(3 / h); s++) {
    imp_step(m, d);
    longest = fmax(longest, d->ten_length[0]);
    vmax = fmax(vmax, imp_norm3(d->qvel));
    *pull = fmax(*pull, d->sensordata[1]);
  }
  *bound = 0.02 / h * (h * vmax) * (h * vmax) / (2 * 0.5);
  /* hanging still under the anchor: damp the swing away */
  for (int s = 0; s < (int)(3 / h); s++) {
    for (int i = 0; i < 3; i++) d->qfrc_applied[i] = -0.5 * d->qvel[i];
    imp_step(m, d);
  }
  ck_assert_int_eq(d->nwarning_nan, 0);
  *rest = d->ten_length[0] - 0.5;
  imp_free_data(d);
  imp_free_model(m);
  return longest - 0.5;
}

START_TEST(tendon_limit_holds_to_first_order) {
  double bound, pull, rest, bound4, pull4, rest4;
  double excess = string_excess(0.002, &bound, &pull, &rest);
  double excess4 = string_excess(0.0005, &bound4, &pull4, &rest4);
  ck_assert_msg(excess > -1e-6, "string never taut: %g", excess);
  ck_assert_msg(excess <= bound, "string stretched by %g, bound %g", excess, bound);
  ck_assert_msg(excess4 <= bound4, "string stretched by %g at h/4, bound %g", excess4, bound4);
  ck_assert_msg(excess4 < 0.35 * excess, "excess %g at h/4 vs %g at h: not first order", excess4,
                excess);
  ck_assert_msg(fabs(rest) < 1e-9, "hanging at rest the string is %g off its limit", rest);
  ck_assert_msg(pull > 0 && pull4 > 0, "the limit sensor saw no force");
}
END_TEST

/* A tendon equality ties one fixed tendon's length to another's: two
   hinges driven apart stay with q1 - q1_0 = 2 (q2 - q2_0) (polycoef 0 2). */
START_TEST(tendon_equality_couples_lengths) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><option gravity='0 0 -9.81'/><worldbody>"
      "<body><joint name='a' axis='0 1 0' ref='0.1'/><geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.02'/></body>"
      "<body pos='0 1 0'><joint name='b' axis='0 1 0'/><geom type='capsule' fromto='0 0 0 0.2 0 0' size='0.02'/></body>"
      "</worldbody><tendon><fixed name='ta'><joint joint='a' coef='1'/></fixed>"
      "<fixed name='tb'><joint joint='b' coef='1'/></fixed></tendon>"
      "<equality><tendon tendon1='ta' tendon2='tb' polycoef='0 2 0 0 0'/></equality></mujoco>");
  imp_data* d = imp_make_data(m);
  double worst = 0;
  for (int s = 0; s < 1000; s++) {
    imp_step(m, d);
    worst = fmax(worst, fabs((d->qpos[0] - 0.1) - 2 * d->qpos[1]));
  }
  ck_assert_msg(fabs(d->qpos[1]) > 0.1, "the coupled joints did not move: %g", d->qpos[1]);
  ck_assert_msg(worst < 1e-8, "coupling violated by %g", worst);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Two motors on one tendon with actuatorfrcrange: their total force is
   scaled into the range (MuJoCo 3.x), each in proportion. */
START_TEST(tendon_actuator_force_range_scales_the_total) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body><joint name='h'/><geom size='0.1' pos='0.2 0 0'/></body>"
      "</worldbody><tendon><fixed name='t' actuatorfrcrange='-1 2'><joint joint='h' coef='3'/>"
      "</fixed></tendon><actuator><motor tendon='t'/><motor tendon='t' gear='2'/></actuator>"
      "</mujoco>");
  imp_data* d = imp_make_data(m);
  d->ctrl[0] = 3;
  d->ctrl[1] = 1;
  imp_forward(m, d);
  imp_assert_near(d->actuator_force[0], 1.5, 1e-12); /* 3 + 1 = 4 scaled to 2 */
  imp_assert_near(d->actuator_force[1], 0.5, 1e-12);
  imp_assert_near(d->qfrc_actuator[0], 3 * (1.5 + 2 * 0.5), 1e-12);
  imp_assert_near(d->actuator_length[1], 2 * 3 * d->qpos[0], 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

#define ARM                                                                                   \
  "<mujoco><worldbody><site name='w'/><body name='b'><joint name='h'/><joint name='ball' "  \
  "type='ball'/><geom name='g' size='0.1'/><geom name='box' type='box' size='0.1 0.1 0.1'/>" \
  "<site name='s' pos='0.3 0 0'/><site name='s2' pos='0.2 0 0'/></body></worldbody>"

START_TEST(loader_checks_paths) {
  expect_error(ARM "<tendon><spatial><site site='w'/><geom geom='box'/><site site='s'/></spatial>"
                   "</tendon></mujoco>",
               "must be a sphere or a cylinder");
  expect_error(ARM "<tendon><spatial><geom geom='g'/><site site='w'/><site site='s'/></spatial>"
                   "</tendon></mujoco>",
               "must be between two sites");
  expect_error(ARM "<tendon><spatial><site site='w'/><site site='s'/><pulley divisor='2'/>"
                   "</spatial></tendon></mujoco>",
               "pulley cannot follow a pulley or end");
  expect_error(ARM "<tendon><spatial><site site='w'/><pulley divisor='2'/><site site='s'/>"
                   "</spatial></tendon></mujoco>",
               "needs at least two objects");
  expect_error(ARM "<tendon><spatial><site site='w'/><site site='w'/></spatial></tendon></mujoco>",
               "repeated in the tendon's path");
  expect_error(ARM "<tendon><spatial><site site='w'/><joint joint='h' coef='1'/></spatial>"
                   "</tendon></mujoco>",
               "cannot be in a spatial tendon");
  expect_error(ARM "<tendon><fixed><joint joint='ball' coef='1'/></fixed></tendon></mujoco>",
               "is not a hinge or slide");
  expect_error(ARM "<tendon><fixed><joint joint='h'/></fixed></tendon></mujoco>",
               "coef is required");
  expect_error(ARM "<tendon><fixed/></tendon></mujoco>", "fixed tendon has no path");
  expect_error(ARM "<tendon><spatial><site site='w'/><site site='nope'/></spatial></tendon></mujoco>",
               "unknown site 'nope'");
  expect_error(ARM "<tendon><spatial><site site='w'/><site site='s'/><pulley divisor='0'/>"
                   "<site site='w'/><site site='s2'/></spatial></tendon></mujoco>",
               "divisor must be positive");
  expect_error(ARM "<tendon><fixed range='1 0'><joint joint='h' coef='1'/></fixed></tendon></mujoco>",
               "lower limit must be below upper limit");
  expect_error(ARM "<tendon><fixed springlength='1 0'><joint joint='h' coef='1'/></fixed></tendon>"
                   "</mujoco>",
               "must not decrease");
  expect_error(ARM "<tendon><fixed name='t'><joint joint='h' coef='1'/></fixed></tendon>"
                   "<sensor><tendonlimitpos tendon='t'/></sensor></mujoco>",
               "tendon must be limited");
  expect_error(ARM "<actuator><motor tendon='t'/></actuator></mujoco>", "unknown tendon 't'");
  expect_error(ARM "<tendon><fixed name='t'><joint joint='h' coef='1'/></fixed></tendon>"
                   "<equality><tendon tendon1='t' tendon2='t'/></equality></mujoco>",
               "tendon equality between 't' and itself");
}
END_TEST

/* Defaults from classes, springlength -1 from qpos_spring, length0 from
   qpos0, the model arrays of a path, names. */
START_TEST(loader_fills_the_model) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><default><tendon width='0.01' rgba='1 0 0 1'/>"
      "<default class='stiff'>"
      "<tendon stiffness='5'/></default></default><worldbody><site name='w'/>"
      "<body><joint name='h' ref='0.2' springref='0.5'/><geom name='g' size='0.1'/>"
      "<site name='s' pos='0.3 0 0'/><site name='s2' pos='0 0.3 0'/></body></worldbody>"
      "<tendon><fixed name='f' class='stiff'><joint joint='h' coef='2'/></fixed>"
      "<spatial name='sp' springlength='0.4'><site site='w'/><geom geom='g' sidesite='s2'/>"
      "<site site='s'/><pulley divisor='3'/><site site='s'/><site site='s2'/></spatial></tendon>"
      "</mujoco>");
  ck_assert_int_eq(m->ntendon, 2);
  ck_assert_int_eq(m->nwrap, 7);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_TENDON, "sp"), 1);
  imp_assert_near(m->tendon_width[0], 0.01, 0);
  ck_assert(m->tendon_rgba[0] == 1.0f && m->tendon_rgba[1] == 0.0f);
  imp_assert_near(m->tendon_stiffness[0], 5, 0);
  imp_assert_near(m->tendon_stiffness[3], 0, 0);
  imp_assert_near(m->tendon_length0[0], 0.4, 1e-15);      /* 2 qpos0 */
  imp_assert_near(m->tendon_lengthspring[0], 1.0, 1e-15); /* 2 qpos_spring */
  imp_assert_near(m->tendon_lengthspring[1], 1.0, 1e-15);
  imp_assert_near(m->tendon_lengthspring[2], 0.4, 0);
  int a = m->tendon_adr[1];
  ck_assert_int_eq(m->wrap_type[a + 1], IMP_WRAP_SPHERE);
  ck_assert_int_eq((int)m->wrap_prm[a + 1], imp_name2id(m, IMP_OBJ_SITE, "s2"));
  ck_assert_int_eq(m->wrap_type[a + 3], IMP_WRAP_PULLEY);
  imp_assert_near(m->wrap_prm[a + 3], 3, 0);
  imp_free_model(m);
}
END_TEST


/* Tendon armature a on a fixed tendon (MJCF reference, tendon armature:
   kinetic energy a v^2 / 2, v the tendon velocity): the tendon's length
   c' q has v = c' qvel, so M gains a c c'. One slide joint of mass m with
   coef c under force F accelerates at F / (m + a c^2); two slides on one
   chain (x, then y on the child) with coefs c1, c2 solve
   (diag(m1 + m2, m2) + a c c') qacc = F, checked by Cramer's rule. */
START_TEST(fixed_tendon_armature_adds_inertia) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody><body><joint name='x' type='slide' "
      "axis='1 0 0'/><inertial pos='0 0 0' mass='2' diaginertia='1 1 1'/></body></worldbody>"
      "<tendon><fixed armature='3'><joint joint='x' coef='0.5'/></fixed></tendon></mujoco>");
  imp_data* d = imp_make_data(m);
  d->qfrc_applied[0] = 1.5;
  imp_forward(m, d);
  imp_assert_near(d->qacc[0], 1.5 / (2 + 3 * 0.25), 1e-12);
  imp_assert_near(d->qM[0], 2 + 3 * 0.25, 1e-12);
  imp_step(m, d); /* and the step integrates it */
  imp_assert_near(d->qvel[0], m->opt.timestep * 1.5 / (2 + 3 * 0.25), 1e-12);
  imp_free_data(d);
  imp_free_model(m);

  m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody><body><joint name='x' type='slide' "
      "axis='1 0 0'/><inertial pos='0 0 0' mass='2' diaginertia='1 1 1'/><body>"
      "<joint name='y' type='slide' axis='0 1 0'/><inertial pos='0 0 0' mass='0.5' "
      "diaginertia='1 1 1'/></body></body></worldbody><tendon><fixed armature='4'>"
      "<joint joint='x' coef='0.5'/><joint joint='y' coef='-1.5'/></fixed></tendon></mujoco>");
  d = imp_make_data(m);
  double c[2] = {0.5, -1.5}, a = 4, F[2] = {1, -2};
  double M[2][2] = {{2.5 + a * c[0] * c[0], a * c[0] * c[1]}, {a * c[1] * c[0], 0.5 + a * c[1] * c[1]}};
  double det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
  imp_copy(d->qfrc_applied, F, 2);
  imp_forward(m, d);
  imp_assert_near(d->qacc[0], (F[0] * M[1][1] - M[0][1] * F[1]) / det, 1e-12);
  imp_assert_near(d->qacc[1], (M[0][0] * F[1] - M[1][0] * F[0]) / det, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A spatial tendon from a world site at (0, h, 0) to a body sliding along
   x: l = sqrt(x^2 + h^2), J = x / l, and the length's second derivative
   at xddot = 0 is h^2 xdot^2 / l^3. Lagrange with kinetic energy
   (m xdot^2 + a (J xdot)^2) / 2 gives
   (m + a J^2) xddot + a J h^2 xdot^2 / l^3 = F:
   the armature's bias term (MJCF reference, tendon/spatial armature:
   c = a J' (d/dt(J) qvel)). */
START_TEST(spatial_tendon_armature_bias_force) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0'/><worldbody><site name='w' pos='0 0.4 0'/><body>"
      "<joint name='x' type='slide' axis='1 0 0'/><inertial pos='0 0 0' mass='2' "
      "diaginertia='1 1 1'/><site name='s'/></body></worldbody><tendon><spatial armature='0.7'>"
      "<site site='w'/><site site='s'/></spatial></tendon></mujoco>");
  imp_data* d = imp_make_data(m);
  double x = 0.3, h = 0.4, xd = 2, a = 0.7, mass = 2, F = 0.25;
  double l = sqrt(x * x + h * h), J = x / l;
  d->qpos[0] = x;
  d->qvel[0] = xd;
  d->qfrc_applied[0] = F;
  imp_forward(m, d);
  imp_assert_near(d->qfrc_bias[0], a * J * h * h * xd * xd / (l * l * l), 1e-12);
  imp_assert_near(d->qacc[0], (F - a * J * h * h * xd * xd / (l * l * l)) / (mass + a * J * J),
                  1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Without gravity or damping, the kinetic energy with the tendon's,
   qvel' (M + a J'J) qvel / 2 (qM holds both after a forward), is constant:
   a spatial tendon across two hinges of a chain, through a pulley, under
   RK4 with a small step. The bias term is what keeps it: without it the
   energy drifts by orders more than the 1e-9 allowed here. */
START_TEST(spatial_tendon_armature_conserves_energy) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0' integrator='RK4' timestep='0.0005'/><worldbody>"
      "<site name='w0' pos='0.1 0.2 0'/><site name='w1' pos='-0.2 0 0.1'/>"
      "<body><joint name='a' axis='0 0 1'/><geom type='capsule' fromto='0 0 0 0.3 0 0' "
      "size='0.03'/><site name='u' pos='0.2 0.05 0'/><body pos='0.3 0 0'><joint name='b' "
      "axis='0 1 1'/><geom type='capsule' fromto='0 0 0 0.25 0 0' size='0.03'/>"
      "<site name='f' pos='0.2 0 0.04'/></body></body></worldbody><tendon>"
      "<spatial armature='0.8'><site site='w0'/><site site='u'/><site site='f'/>"
      "<pulley divisor='2'/><site site='w1'/><site site='f'/></spatial></tendon></mujoco>");
  imp_data* d = imp_make_data(m);
  d->qvel[0] = 3;
  d->qvel[1] = -5;
  double E0 = 0, E = 0, Mv[2];
  for (int k = 0; k <= 2000; k++) {
    imp_forward(m, d);
    imp_mul_sparse(m, d->qM, Mv, d->qvel);
    E = 0.5 * imp_dot(Mv, d->qvel, 2);
    if (k == 0) E0 = E;
    imp_step(m, d);
  }
  ck_assert_msg(fabs(E - E0) < 1e-9 * E0, "energy %.12g -> %.12g", E0, E);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(loader_checks_tendon_armature) {
  expect_error(ARM "<tendon><fixed armature='-1'><joint joint='h' coef='1'/></fixed></tendon>"
                   "</mujoco>",
               "tendon armature must be finite and >= 0");
  expect_error(ARM "<tendon><spatial armature='1'><site site='w'/><geom geom='g'/>"
                   "<site site='s'/></spatial></tendon></mujoco>",
               "tendon armature on a path that wraps a geom is not supported");
  /* two bodies on different branches: a J'J would couple their dofs */
  const char* two =
      "<mujoco><worldbody><body><joint name='h1'/><geom size='0.1'/><site name='s1'/></body>"
      "<body pos='1 0 0'><joint name='h2'/><geom size='0.1'/><site name='s2' pos='0 0.1 0'/>"
      "</body></worldbody><tendon>%s</tendon></mujoco>";
  char xml[1000];
  snprintf(xml, sizeof xml, two,
           "<fixed armature='1'><joint joint='h1' coef='1'/><joint joint='h2' coef='1'/></fixed>");
  expect_error(xml, "dofs of different branches of the tree is not supported");
  snprintf(xml, sizeof xml, two,
           "<spatial armature='1'><site site='s1'/><site site='s2'/></spatial>");
  expect_error(xml, "dofs of different branches of the tree is not supported");
  /* allowed, it loads without the tendon's inertia, with a warning */
  imp_model* allowed = imp_test_load_string_allow(xml);
  ck_assert_int_eq(allowed->nwarning, 1);
  ck_assert(strstr(allowed->warnings, "different branches") != NULL);
  imp_assert_near(allowed->tendon_armature[0], 0, 0);
  imp_free_model(allowed);
  /* the same tendons without armature load */
  snprintf(xml, sizeof xml, two,
           "<spatial><site site='s1'/><site site='s2'/></spatial>"
           "<fixed><joint joint='h1' coef='1'/><joint joint='h2' coef='1'/></fixed>");
  imp_free_model(imp_test_load_string_nowarn(xml));
  /* the default class gives it; kept in the model */
  imp_model* m = imp_test_load_string_nowarn(
      ARM "<default><tendon armature='0.5'/></default>" 
      "<tendon><fixed><joint joint='h' coef='1'/></fixed></tendon></mujoco>");
  imp_assert_near(m->tendon_armature[0], 0.5, 0);
  imp_free_model(m);
}
END_TEST

static Suite* tendon_suite(void) {
  Suite* s = suite_create("tendon");
  TCase* t = tcase_create("wrap");
  tcase_add_test(t, sphere_wrap_is_the_shortest_path_around_a_circle);
  tcase_add_test(t, cylinder_wrap_is_a_helix);
  tcase_add_test(t, inside_wrap_meets_the_circle_on_the_symmetry_line);
  tcase_add_test(t, jacobian_matches_finite_differences);
  suite_add_tcase(s, t);
  t = tcase_create("forces");
  tcase_add_test(t, spring_rest_band_and_damping);
  tcase_add_test(t, tendon_frictionloss_holds_then_slips);
  tcase_add_test(t, tendon_limit_holds_to_first_order);
  tcase_add_test(t, tendon_equality_couples_lengths);
  tcase_add_test(t, tendon_actuator_force_range_scales_the_total);
  tcase_add_test(t, fixed_tendon_armature_adds_inertia);
  tcase_add_test(t, spatial_tendon_armature_bias_force);
  tcase_add_test(t, spatial_tendon_armature_conserves_energy);
  suite_add_tcase(s, t);
  t = tcase_create("loader");
  tcase_add_test(t, loader_checks_paths);
  tcase_add_test(t, loader_fills_the_model);
  tcase_add_test(t, loader_checks_tendon_armature);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(tendon_suite()); }
