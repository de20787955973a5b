/* Unit tests of imp_data (engine/data.c) and the step driver's guards
 * (engine/step.c): reset, keyframes, copy, the scratch arena, determinism,
 * and the NaN reset that counts d->nwarning_nan. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "constraint/contact.h"
#include "engine.h"
#include "core/mathx.h"
#include "core/pool.h"
#include "test_util.h"

/* a branched model with every joint type, an actuator and a keyframe */
static const char* k_model =
    "<mujoco><compiler angle='radian'/><option timestep='0.002'/><worldbody>"
    "<body name='torso' pos='0 0 1' euler='0.1 0.2 0.3'><freejoint/>"
    "  <inertial pos='0.01 0 0' mass='3' diaginertia='0.1 0.2 0.15'/>"
    "  <body pos='0.2 0 0'><joint type='ball' damping='0.1'/>"
    "    <inertial pos='0.1 0 0' mass='1' diaginertia='0.01 0.02 0.025'/>"
    "    <body pos='0.3 0 0'><joint name='elbow' type='hinge' axis='0 1 1' ref='0.2' stiffness='2'/>"
    "      <inertial pos='0.1 0 0' mass='0.5' diaginertia='0.01 0.01 0.01'/></body></body>"
    "  <body pos='0 0 -0.3'><joint type='slide' axis='0 0 1' damping='5'/>"
    "    <inertial pos='0 0 -0.1' mass='1' diaginertia='0.01 0.01 0.01'/></body>"
    "</body></worldbody>"
    "<actuator><motor joint='elbow' gear='2'/></actuator>"
    "<keyframe><key name='k' time='1.5' qpos='1 2 3 0 1 0 0 0.6 0 0.8 0 0.7 0.1'"
    "  qvel='1 2 3 4 5 6 7 8 9 10 11' ctrl='0.25'/></keyframe></mujoco>";

static void run(const imp_model* m, imp_data* d, int n) {
  for (int i = 0; i < n; i++) {
    d->ctrl[0] = sin(0.01 * i);
    imp_step(m, d);
  }
}

START_TEST(test_make_data_is_reset_to_qpos0) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nq, 13);
  ck_assert_int_eq(m->nv, 11);
  imp_assert_vec_near(d->qpos, m->qpos0, m->nq, 0);
  imp_assert_near(m->qpos0[11], 0.2, 0); /* hinge ref */
  for (int i = 0; i < m->nv; i++) ck_assert(d->qvel[i] == 0 && d->qacc[i] == 0 && d->qfrc_applied[i] == 0);
  ck_assert(d->ctrl[0] == 0 && d->time == 0 && d->nstep == 0 && d->nwarning_nan == 0);
  /* the world frame is sane before any step */
  double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  imp_assert_vec_near(d->xmat, id, 9, 0);
  imp_assert_near(d->xquat[0], 1, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* After a run, reset gives back exactly the state of a fresh data, and the
   same run from it gives the same bits. */
START_TEST(test_reset_restores_fresh_state) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  imp_data* d = imp_make_data(m);
  imp_data* fresh = imp_make_data(m);
  run(m, d, 200);
  d->xfrc_applied[6] = 5;
  d->qfrc_applied[0] = 1;
  imp_reset_data(m, d);
  ck_assert(memcmp(d->qpos, fresh->qpos, sizeof(double) * m->nq) == 0);
  ck_assert(d->time == 0 && d->nstep == 0 && d->ctrl[0] == 0);
  ck_assert(d->xfrc_applied[6] == 0 && d->qfrc_applied[0] == 0);
  ck_assert_uint_eq(d->pstack, 0);
  run(m, d, 100);
  run(m, fresh, 100);
  ck_assert(memcmp(d->qpos, fresh->qpos, sizeof(double) * m->nq) == 0);
  ck_assert(memcmp(d->qvel, fresh->qvel, sizeof(double) * m->nv) == 0);
  imp_free_data(d);
  imp_free_data(fresh);
  imp_free_model(m);
}
END_TEST

START_TEST(test_keyframe_loads_state) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nkey, 1);
  run(m, d, 10);
  imp_reset_data_keyframe(m, d, imp_test_id(m, IMP_OBJ_KEY, "k"));
  double qpos[13] = {1, 2, 3, 0, 1, 0, 0, 0.6, 0, 0.8, 0, 0.7, 0.1};
  imp_assert_vec_near(d->qpos, qpos, 13, 0);
  for (int i = 0; i < 11; i++) imp_assert_near(d->qvel[i], i + 1, 0);
  imp_assert_near(d->ctrl[0], 0.25, 0);
  imp_assert_near(d->time, 1.5, 0);
  ck_assert(d->nstep == 0);
  imp_step(m, d);
  imp_assert_near(d->time, 1.502, 1e-15);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A copy taken mid-run continues bit-identically to the original, and
   carries the computed quantities (M, frames) too. */
START_TEST(test_copy_continues_identically) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  imp_data* a = imp_make_data(m);
  imp_data* b = imp_make_data(m);
  run(m, a, 150);
  imp_copy_data(m, b, a);
  ck_assert(b->time == a->time && b->nstep == a->nstep);
  ck_assert(memcmp(b->qM, a->qM, sizeof(double) * m->nM) == 0);
  ck_assert(memcmp(b->xpos, a->xpos, sizeof(double) * 3 * m->nbody) == 0);
  run(m, a, 100);
  run(m, b, 100);
  ck_assert(memcmp(a->qpos, b->qpos, sizeof(double) * m->nq) == 0);
  ck_assert(memcmp(a->qvel, b->qvel, sizeof(double) * m->nv) == 0);
  /* the copy is independent: stepping one leaves the other alone */
  double keep[13];
  imp_copy(keep, b->qpos, m->nq);
  run(m, a, 10);
  ck_assert(memcmp(keep, b->qpos, sizeof keep) == 0);
  imp_free_data(a);
  imp_free_data(b);
  imp_free_model(m);
}
END_TEST

/* Determinism: two datas, the same 1000 steps with controls and applied
   forces, give the same bits (a hash over qpos, qvel would be the same). */
START_TEST(test_determinism_bit_identical) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  imp_data* a = imp_make_data(m);
  imp_data* b = imp_make_data(m);
  imp_reset_data_keyframe(m, a, 0);
  imp_reset_data_keyframe(m, b, 0);
  for (int i = 0; i < 1000; i++) {
    a->xfrc_applied[6 * 2 + 2] = b->xfrc_applied[6 * 2 + 2] = cos(0.03 * i);
    a->ctrl[0] = b->ctrl[0] = sin(0.01 * i);
    imp_step(m, a);
    imp_step(m, b);
  }
  ck_assert(memcmp(a->qpos, b->qpos, sizeof(double) * m->nq) == 0);
  ck_assert(memcmp(a->qvel, b->qvel, sizeof(double) * m->nv) == 0);
  ck_assert(memcmp(a->qacc, b->qacc, sizeof(double) * m->nv) == 0);
  ck_assert_int_eq(a->nwarning_nan, 0);
  /* and it moved */
  ck_assert(fabs(a->qpos[2] - 3) > 0.1);
  imp_free_data(a);
  imp_free_data(b);
  imp_free_model(m);
}
END_TEST


/* several piles, each its own island: boxes, capsules and spheres dropped
   tilted onto each other on a plane */
static const char* k_piles =
    "<mujoco><option timestep='0.004'/><worldbody><geom type='plane' size='5 5 .1'/>"
    "<body pos='0 0 .2' euler='5 3 0'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
    "<body pos='0.02 0 .45' euler='0 7 20'><freejoint/><geom type='box' size='.1 .08 .1'/></body>"
    "<body pos='1 0 .1' euler='0 4 0'><freejoint/><geom type='capsule' size='.05 .2' euler='0 90 0'/></body>"
    "<body pos='1 .02 .3' euler='30 0 0'><freejoint/><geom type='capsule' size='.05 .2' euler='0 90 0'/></body>"
    "<body pos='2 0 .1'><freejoint/><geom type='sphere' size='.1'/></body>"
    "<body pos='2.05 0 .35'><freejoint/><geom type='sphere' size='.1'/></body>"
    "<body pos='3 0 .15' euler='10 10 10'><freejoint/><geom type='box' size='.2 .1 .05'/></body>"
    "<body pos='3 0.05 .4' euler='0 0 45'><freejoint/><geom type='box' size='.1 .1 .05'/></body>"
    "<body pos='4 0 .1' euler='3 0 0'><freejoint/><geom type='box' size='.1 .1 .1' friction='.3'/></body>"
    "</worldbody></mujoco>";

/* The islands solved on 1, 2 or 3 threads give the same bits after every
   step (pool.h's promise: each island writes only its own rows), and the
   thread count can change between steps. */
START_TEST(test_threads_bit_identical) {
  imp_model* m = imp_test_load_string_nowarn(k_piles);
  imp_data* d[3] = {imp_make_data(m), imp_make_data(m), imp_make_data(m)};
  ck_assert_int_eq(imp_set_threads(m, d[0], 0), -1);
  ck_assert_int_eq(imp_set_threads(m, d[0], 65), -1);
  ck_assert_int_eq(imp_set_threads(m, d[1], 2), 0);
  ck_assert_int_eq(imp_set_threads(m, d[2], 3), 0);
  ck_assert_int_eq(d[2]->nthread, 3);
  int most_islands = 0;
  for (int i = 0; i < 400; i++) {
    if (i == 200) ck_assert_int_eq(imp_set_threads(m, d[2], 1), 0);
    if (i == 300) ck_assert_int_eq(imp_set_threads(m, d[2], 2), 0);
    for (int k = 0; k < 3; k++) imp_step(m, d[k]);
    if (d[0]->nisland > most_islands) most_islands = d[0]->nisland;
    for (int k = 1; k < 3; k++) {
      ck_assert_int_eq(d[k]->nefc, d[0]->nefc);
      ck_assert(memcmp(d[k]->qpos, d[0]->qpos, sizeof(double) * m->nq) == 0);
      ck_assert(memcmp(d[k]->qvel, d[0]->qvel, sizeof(double) * m->nv) == 0);
      ck_assert(memcmp(d[k]->efc_impulse, d[0]->efc_impulse, sizeof(double) * d[0]->nefc) == 0);
      ck_assert_int_eq(d[k]->solver_iter, d[0]->solver_iter);
      ck_assert(d[k]->solver_residual == d[0]->solver_residual);
    }
  }
  ck_assert_int_ge(most_islands, 5); /* the pool had islands to share */
  for (int k = 0; k < 3; k++) imp_free_data(d[k]);
  imp_free_model(m);
}
END_TEST

/* The pool's tasks, each run once; the first ncaller on the caller's
   thread (worker 0) in their order: where the contact stage keeps the
   islands it factors with LAPACK (contact.c). */
typedef struct pool_log {
  atomic_int clock;
  int worker[64], when[64], runs[64];
} pool_log;

static void log_task(void* ctx, int task, int worker) {
  pool_log* g = ctx;
  g->worker[task] = worker;
  g->runs[task]++;
  g->when[task] = atomic_fetch_add(&g->clock, 1);
  struct timespec pause = {0, 20000}; /* long enough for sleeping workers to wake */
  nanosleep(&pause, NULL);
}

START_TEST(test_pool_reserved_tasks_on_caller) {
  imp_pool* p = imp_pool_make(3);
  ck_assert_ptr_nonnull(p);
  int shared_elsewhere = 0;
  for (int round = 0; round < 200; round++) {
    int ntask = 1 + round % 64, ncaller = round % 9;
    pool_log g = {0};
    imp_pool_run(p, ntask, ncaller, log_task, &g);
    int mine = ncaller < ntask ? ncaller : ntask;
    for (int t = 0; t < ntask; t++) {
      ck_assert_int_eq(g.runs[t], 1);
      if (t < mine) ck_assert_int_eq(g.worker[t], 0);
      if (t > 0 && t < mine) ck_assert_int_lt(g.when[t - 1], g.when[t]);
      if (t >= mine && g.worker[t] != 0) shared_elsewhere = 1;
    }
  }
  ck_assert(shared_elsewhere); /* the workers took part of the rest */
  imp_pool_free(p);
}
END_TEST

/* Memory is sized to the model and the solver in use (issue 12): a
   pendulum, which can make no contact, reserves a few rows' scratch and no
   solver's dense tables; choosing lemke reserves its tableau then, not
   before, and a copy takes its source's solver with that scratch. */
START_TEST(test_scratch_sized_to_model_and_solver) {
  imp_model* pend = imp_test_load_model("pendulum.xml");
  ck_assert_int_le(pend->nislandmax, 2); /* a hinge limit at most */
  imp_data* dp = imp_make_data(pend);
  ck_assert_uint_lt(dp->narena, (size_t)1 << 20);
  imp_free_data(dp);
  imp_free_model(pend);

  imp_model* m = imp_test_load_string_nowarn(k_piles);
  imp_data* d = imp_make_data(m);
  imp_data* copy = imp_make_data(m);
  size_t todorov_bytes = d->narena;
  ck_assert_uint_eq(todorov_bytes, imp_arena_bytes(m, imp_solver_find("todorov")));
  ck_assert_int_eq(imp_set_threads(m, d, 2), 0);
  ck_assert_int_eq(imp_set_solver(m, d, "lemke"), 0);
  ck_assert_uint_gt(d->narena, todorov_bytes);
  ck_assert_uint_eq(d->narena, imp_arena_bytes(m, imp_solver_find("lemke")));
  for (int i = 0; i < 50; i++) imp_step(m, d); /* an overrun aborts the test */
  ck_assert_int_gt(d->nefc, 0);
  imp_copy_data(m, copy, d);
  ck_assert_uint_ge(copy->narena, d->narena);
  for (int i = 0; i < 5; i++) {
    imp_step(m, d);
    imp_step(m, copy);
    ck_assert(memcmp(copy->qpos, d->qpos, sizeof(double) * m->nq) == 0);
  }
  ck_assert_int_eq(imp_set_solver(m, d, "no such solver"), -1);
  ck_assert_str_eq(imp_solver_name(d->solver), "lemke");
  imp_free_data(copy);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* The automatic nislandmax bounds what the model can make, not less: no
   row of any bundled scene is ever left out of its island, and a pair the
   filters exclude makes no room. */
START_TEST(test_island_bound_holds) {
  const char* files[] = {"box_pile.xml", "box_pyramid.xml", "ball_stack.xml", "heavy_stack.xml",
                         "incline.xml", "capsule_pile.xml", "weld_load.xml", "joint_limits.xml"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    imp_model* m = imp_test_load_model(files[f]);
    imp_data* d = imp_make_data(m);
    for (int i = 0; i < 300; i++) {
      imp_step(m, d);
      /* below the cap of 1000 the bound covers all rows at once */
      ck_assert_msg(m->nislandmax == 1000 || d->nefc <= m->nislandmax,
                    "%s: %d rows > nislandmax %d", files[f], d->nefc, m->nislandmax);
    }
    ck_assert_msg(d->nefc_dropped == 0, "%s dropped rows", files[f]);
    imp_free_data(d);
    imp_free_model(m);
  }
  /* two boxes whose bitmasks never match, on no floor: no contact rows */
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody>"
      "<body><freejoint/><geom type='box' size='.1 .1 .1' contype='1' conaffinity='0'/></body>"
      "<body><freejoint/><geom type='box' size='.1 .1 .1' contype='1' conaffinity='0'/></body>"
      "</worldbody></mujoco>");
  ck_assert_int_eq(m->nislandmax, 1);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><size nislandmax='77'/><worldbody><body><freejoint/><geom size='.1'/></body>"
      "</worldbody></mujoco>");
  ck_assert_int_eq(m->nislandmax, 77); /* the file's own value stays */
  imp_free_model(m);
}
END_TEST

/* A step never leaves scratch on the arena, and uses it within its size. */
START_TEST(test_arena_balanced) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  imp_data* d = imp_make_data(m);
  for (int i = 0; i < 20; i++) {
    imp_step(m, d);
    ck_assert_uint_eq(d->pstack, 0);
  }
  m->opt.integrator = IMP_INT_RK4;
  imp_step(m, d);
  ck_assert_uint_eq(d->pstack, 0);
  ck_assert(d->maxuse_arena > 0 && d->maxuse_arena <= d->narena);
  size_t mark = imp_stack_mark(d);
  double* x = imp_stack_alloc(d, 10);
  int* k = imp_stack_alloc_int(d, 3);
  ck_assert((uintptr_t)x % 64 == 0 && (uintptr_t)k % 64 == 0);
  ck_assert((char*)k >= (char*)(x + 10)); /* no overlap */
  imp_stack_release(d, mark);
  ck_assert_uint_eq(d->pstack, mark);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static int nwarn_seen;
static char last_warning[1024];
static void record_warning(const char* msg) {
  nwarn_seen++;
  snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* A NaN in the state is caught by the next step: the state resets to qpos0,
   the counter goes up by one each time, the message names the step, and
   the simulation can go on. A huge force (qacc past 1e10) counts too. */
START_TEST(test_nan_resets_and_counts) {
  imp_model* m = imp_test_load_string_nowarn(k_model);
  imp_data* d = imp_make_data(m);
  imp_set_warning_handler(record_warning);
  nwarn_seen = 0;
  run(m, d, 30);
  d->qvel[3] = NAN;
  imp_step(m, d);
  ck_assert_int_eq(d->nwarning_nan, 1);
  ck_assert_int_eq(nwarn_seen, 1);
  ck_assert_msg(strstr(last_warning, "30") != NULL, "warning does not name step 30: %s", last_warning);
  imp_assert_vec_near(d->qpos, m->qpos0, m->nq, 0);
  for (int i = 0; i < m->nv; i++) ck_assert(d->qvel[i] == 0);
  ck_assert(d->time == 0 && d->nstep == 0);
  run(m, d, 5);
  ck_assert_int_eq((int)d->nstep, 5);
  d->qpos[0] = INFINITY;
  imp_step(m, d);
  ck_assert_int_eq(d->nwarning_nan, 2);
  d->qfrc_applied[0] = 1e14; /* qacc ~ 1e13 */
  imp_step(m, d);
  ck_assert_int_eq(d->nwarning_nan, 3);
  imp_assert_vec_near(d->qpos, m->qpos0, m->nq, 0);
  ck_assert(d->qfrc_applied[0] == 0); /* the cause is cleared with the state */
  ck_assert_int_eq(nwarn_seen, 1); /* reported once */
  imp_step(m, d);
  ck_assert_int_eq(d->nwarning_nan, 3);
  imp_set_warning_handler(NULL);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("data");
  TCase* tc = tcase_create("data");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_make_data_is_reset_to_qpos0);
  tcase_add_test(tc, test_reset_restores_fresh_state);
  tcase_add_test(tc, test_keyframe_loads_state);
  tcase_add_test(tc, test_copy_continues_identically);
  tcase_add_test(tc, test_determinism_bit_identical);
  tcase_add_test(tc, test_threads_bit_identical);
  tcase_add_test(tc, test_arena_balanced);
  tcase_add_test(tc, test_scratch_sized_to_model_and_solver);
  tcase_add_test(tc, test_island_bound_holds);
  tcase_add_test(tc, test_pool_reserved_tasks_on_caller);
  tcase_add_test(tc, test_nan_resets_and_counts);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
