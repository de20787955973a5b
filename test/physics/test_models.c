/* The example scenes of models/: the contact-free ones load without
 * warnings, step to finite states and do what their comments promise; the
 * contact scenes (k_contact_models) load without warnings and report the
 * contacts their comments promise at the initial state (their geometry is
 * checked against MuJoCo in test/mujoco/test_mujoco_contacts.c); the scenes
 * of the contact stage are listed here and tested in
 * test_contact_physics.c. And a determinism check: the same run
 * twice gives bit-identical states, and a copied data continues exactly as
 * the original. */
#define _DEFAULT_SOURCE /* DT_REG, M_PI */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "test_util.h"

static const char* k_models[] = {
    "pendulum.xml",      "double_pendulum.xml", "double_pendulum_undamped.xml",
    "slider_spring.xml", "ball_pendulum.xml",   "tennis_racket.xml",
    "arm_servo.xml",     "free_fall.xml",       "slider_fall.xml",
    "sensors.xml",       "tendons.xml",
};
#define NMODEL ((int)(sizeof k_models / sizeof k_models[0]))

static const char* k_contact_models[] = {"contact_primitives.xml", "capsule_pile.xml",
                                         "mesh_drop.xml"};
#define NCONTACT_MODEL ((int)(sizeof k_contact_models / sizeof k_contact_models[0]))

/* scenes of the contact stage, each checked against analytic physics in
   test_contact_physics.c */
static const char* k_constraint_models[] = {
    "incline.xml",    "box_slide.xml",       "ball_stack.xml",     "box_rest.xml",
    "heavy_stack.xml", "joint_limits.xml",   "weld_load.xml",      "connect_pendulum.xml",
    "joint_coupling.xml", "box_pile.xml",    "arch.xml",           "box_pyramid.xml",
    "balls_cube.xml",
    "terrain.xml" /* test/model/test_hfield.c */};
#define NCONSTRAINT_MODEL ((int)(sizeof k_constraint_models / sizeof k_constraint_models[0]))

/* Every .xml at the top of models/ is in the list above (so the MuJoCo
   differential test, which lists them too, misses none). */
START_TEST(test_list_is_complete) {
  DIR* dir = opendir(IMP_MODELS_DIR);
  ck_assert_msg(dir != NULL, "cannot open %s", IMP_MODELS_DIR);
  struct dirent* e;
  while ((e = readdir(dir)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".xml") != 0) continue;
    int found = 0;
    for (int i = 0; i < NMODEL; i++) found |= !strcmp(k_models[i], e->d_name);
    for (int i = 0; i < NCONTACT_MODEL; i++) found |= !strcmp(k_contact_models[i], e->d_name);
    for (int i = 0; i < NCONSTRAINT_MODEL; i++)
      found |= !strcmp(k_constraint_models[i], e->d_name);
    ck_assert_msg(found, "models/%s is not listed in the tests (test_models.c, and "
                         "test/mujoco/test_mujoco_diff.c, test_mujoco_contacts.c or "
                         "test_contact_physics.c)", e->d_name);
  }
  closedir(dir);
}
END_TEST

/* Loads cleanly, contact free, no limits, 2000 finite steps from each start. */
START_TEST(test_model_steps) {
  imp_model* m = imp_test_load_model(k_models[_i]);
  imp_data* d = imp_make_data(m);
  int collide = 0;
  for (int g = 0; g < m->ngeom; g++) collide |= m->geom_contype[g] || m->geom_conaffinity[g];
  ck_assert_msg((m->opt.disableflags & IMP_DSBL_CONTACT) || !collide,
                "%s: contact is not disabled", k_models[_i]);
  for (int j = 0; j < m->njnt; j++)
    ck_assert_msg(!m->jnt_limited[j], "%s: joint %d is limited", k_models[_i], j);
  ck_assert_msg(m->opt.timestep > 0 && m->opt.timestep <= 0.002, "%s: timestep %g",
                k_models[_i], m->opt.timestep);
  for (int k = -1; k < m->nkey; k++) {
    if (k < 0)
      imp_reset_data(m, d);
    else
      imp_reset_data_keyframe(m, d, k);
    for (int s = 0; s < 2000; s++) imp_step(m, d);
    for (int i = 0; i < m->nq; i++)
      ck_assert_msg(isfinite(d->qpos[i]), "%s: qpos[%d] = %g", k_models[_i], i, d->qpos[i]);
    for (int i = 0; i < m->nv; i++)
      ck_assert_msg(isfinite(d->qvel[i]), "%s: qvel[%d] = %g", k_models[_i], i, d->qvel[i]);
    ck_assert_int_eq(d->nwarning_nan, 0);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* contact_primitives.xml: every primitive rests 1 mm deep in what it lies
   on, so each plane-primitive pair and the three stacked pairs report
   contacts at depth 1 mm, and the two touching balls at depth 0. */
START_TEST(test_contact_primitives_initial_contacts) {
  imp_model* m = imp_test_load_model("contact_primitives.xml");
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  const char* on_floor[] = {"ball", "capsule", "box", "cylinder", "ellipsoid", "crossed_a",
                            "twin_a", "twin_b"};
  int floor = imp_test_id(m, IMP_OBJ_GEOM, "floor");
  for (size_t k = 0; k < sizeof on_floor / sizeof *on_floor; k++) {
    int g = imp_test_id(m, IMP_OBJ_GEOM, on_floor[k]), n = 0;
    double expect = !strncmp(on_floor[k], "twin", 4) ? 0 : -0.001;
    for (int i = 0; i < d->ncon; i++) {
      const imp_contact* c = d->contact + i;
      if (c->geom1 != floor || c->geom2 != g) continue;
      n++;
      imp_assert_near(c->dist, expect, 1e-9);
      imp_assert_near(c->frame[2], 1, 1e-12); /* the floor's normal, up */
    }
    ck_assert_msg(n >= 1, "%s: no contact with the floor", on_floor[k]);
  }
  const char* stacked[][2] = {{"box_ball", "box"}, {"crossed_a", "crossed_b"},
                              {"twin_a", "twin_b"}};
  for (int k = 0; k < 3; k++) {
    int a = imp_test_id(m, IMP_OBJ_GEOM, stacked[k][0]), b = imp_test_id(m, IMP_OBJ_GEOM, stacked[k][1]), n = 0;
    for (int i = 0; i < d->ncon; i++) {
      const imp_contact* c = d->contact + i;
      if ((c->geom1 == a && c->geom2 == b) || (c->geom1 == b && c->geom2 == a)) {
        n++;
        imp_assert_near(c->dist, -0.001, 1e-9);
      }
    }
    ck_assert_msg(n == 1, "%s-%s: %d contacts", stacked[k][0], stacked[k][1], n);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* The servo arm settles near its targets: gravity leaves an offset of
   about m g r / kp (MuJoCo 2.2.2: -0.7396, 1.2343, -0.4945 for targets
   -0.8, 1.2, -0.5 after 5 s). */
START_TEST(test_arm_reaches) {
  imp_model* m = imp_test_load_model("arm_servo.xml");
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nu, 4);
  imp_reset_data_keyframe(m, d, imp_test_id(m, IMP_OBJ_KEY, "reach"));
  int n = (int)(5.0 / m->opt.timestep + 0.5);
  for (int s = 0; s < n; s++) imp_step(m, d);
  const char* joints[3] = {"shoulder", "elbow", "wrist"};
  const char* servos[3] = {"shoulder_servo", "elbow_servo", "wrist_servo"};
  printf("arm_servo after 5 s:");
  for (int i = 0; i < 3; i++) {
    int j = imp_test_id(m, IMP_OBJ_JOINT, joints[i]);
    int a = imp_test_id(m, IMP_OBJ_ACTUATOR, servos[i]);
    double q = d->qpos[m->jnt_qposadr[j]], target = d->ctrl[a];
    printf(" %s %.4f (target %.2f)", joints[i], q, target);
    ck_assert_msg(fabs(q - target) < 0.1, "%s at %g, target %g", joints[i], q, target);
    ck_assert_msg(fabs(d->qvel[m->jnt_dofadr[j]]) < 1e-2, "%s still moving: %g", joints[i],
                  d->qvel[m->jnt_dofadr[j]]);
  }
  printf("\n");
  fflush(stdout);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Mechanical energy at the current state (runs a forward pass). */
static double energy(const imp_model* m, imp_data* d) {
  imp_forward(m, d);
  double Mv[16], e = 0;
  ck_assert_int_le(m->nv, 16);
  imp_mul_sparse(m, d->qM, Mv, d->qvel);
  for (int i = 0; i < m->nv; i++) e += 0.5 * d->qvel[i] * Mv[i];
  for (int b = 1; b < m->nbody; b++)
    for (int k = 0; k < 3; k++) e -= m->body_mass[b] * m->opt.gravity[k] * d->xipos[3 * b + k];
  return e;
}

/* The damped double pendulum loses energy, and with light damping (a time
   constant of about a minute) it loses it slowly: sample every 10 s. */
START_TEST(test_double_pendulum_loses_energy) {
  imp_model* m = imp_test_load_model("double_pendulum.xml");
  imp_data* d = imp_make_data(m);
  imp_reset_data_keyframe(m, d, imp_test_id(m, IMP_OBJ_KEY, "swing"));
  double e[4];
  e[0] = energy(m, d);
  for (int k = 1; k < 4; k++) {
    for (int s = 0; s < 10000; s++) imp_step(m, d);
    e[k] = energy(m, d);
  }
  printf("double_pendulum: energy %.4f, %.4f, %.4f, %.4f J at 0, 10, 20, 30 s\n", e[0], e[1],
         e[2], e[3]);
  fflush(stdout);
  for (int k = 1; k < 4; k++)
    ck_assert_msg(e[k] < e[k - 1], "energy grew from %g to %g J", e[k - 1], e[k]);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Two runs of the same model are bit-identical, and so is a copy. */
START_TEST(test_determinism) {
  imp_model* m = imp_test_load_model("ball_pendulum.xml");
  imp_data* a = imp_make_data(m);
  imp_data* b = imp_make_data(m);
  imp_data* c = imp_make_data(m);
  int key = imp_test_id(m, IMP_OBJ_KEY, "tilt");
  imp_reset_data_keyframe(m, a, key);
  imp_reset_data_keyframe(m, b, key);
  for (int s = 0; s < 500; s++) imp_step(m, a), imp_step(m, b);
  imp_copy_data(m, c, a);
  for (int s = 0; s < 500; s++) imp_step(m, a), imp_step(m, b), imp_step(m, c);
  ck_assert_msg(!memcmp(a->qpos, b->qpos, sizeof(double) * m->nq) &&
                    !memcmp(a->qvel, b->qvel, sizeof(double) * m->nv),
                "two identical runs differ");
  ck_assert_msg(!memcmp(a->qpos, c->qpos, sizeof(double) * m->nq) &&
                    !memcmp(a->qvel, c->qvel, sizeof(double) * m->nv),
                "a copied data continues differently");
  ck_assert(a->time == c->time);
  imp_free_data(a);
  imp_free_data(b);
  imp_free_data(c);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("physics_models");
  TCase* tc = tcase_create("models");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_list_is_complete);
  tcase_add_loop_test(tc, test_model_steps, 0, NMODEL);
  tcase_add_test(tc, test_arm_reaches);
  tcase_add_test(tc, test_contact_primitives_initial_contacts);
  tcase_add_test(tc, test_double_pendulum_loses_energy);
  tcase_add_test(tc, test_determinism);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
