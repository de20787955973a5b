/* imp_rollout (engine/io/rollout.c): many rollouts on a few threads give the
   bits a plain loop of imp_step gives, whatever the thread count. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"

/* a hinge driven by a motor, with a sensor of its angle and velocity */
static const char* ARM_XML =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body><joint name='h' type='hinge' axis='0 1 0' damping='0.1'/>"
    "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.02'/></body>"
    "</worldbody><actuator><motor name='m' joint='h' gear='2'/></actuator>"
    "<sensor><jointpos joint='h'/><jointvel joint='h'/></sensor></mujoco>";

static imp_model* load_file(const char* path) {
  char err[1000] = "";
  imp_model* m = imp_load_xml(path, err, sizeof err);
  ck_assert_msg(m != NULL, "%s: %s", path, err);
  return m;
}

/* The outputs of one imp_rollout call. */
typedef struct outputs {
  double *qpos, *qvel, *act, *sensordata;
  imp_rollout_status* status;
} outputs;

static outputs alloc_outputs(const imp_model* m, int nroll, int nstep) {
  size_t rows = (size_t)nroll * (size_t)nstep;
  outputs o = {calloc(rows * m->nq + 1, sizeof(double)), calloc(rows * m->nv + 1, sizeof(double)),
               calloc(rows * m->na + 1, sizeof(double)),
               calloc(rows * m->nsensordata + 1, sizeof(double)),
               calloc((size_t)nroll, sizeof(imp_rollout_status))};
  return o;
}

static void free_outputs(outputs* o) {
  free(o->qpos);
  free(o->qvel);
  free(o->act);
  free(o->sensordata);
  free(o->status);
}

static void attach(imp_rollout_opt* opt, const outputs* o) {
  opt->qpos = o->qpos;
  opt->qvel = o->qvel;
  opt->act = o->act;
  opt->sensordata = o->sensordata;
  opt->status = o->status;
}

/* outputs a and b hold the same bits (wall time aside) */
static void assert_same_outputs(const imp_model* m, const outputs* a, const outputs* b, int nroll,
                                int nstep, const char* what) {
  size_t rows = (size_t)nroll * (size_t)nstep;
  ck_assert_msg(memcmp(a->qpos, b->qpos, rows * m->nq * sizeof(double)) == 0, "%s: qpos", what);
  ck_assert_msg(memcmp(a->qvel, b->qvel, rows * m->nv * sizeof(double)) == 0, "%s: qvel", what);
  ck_assert_msg(memcmp(a->act, b->act, rows * m->na * sizeof(double)) == 0, "%s: act", what);
  ck_assert_msg(memcmp(a->sensordata, b->sensordata, rows * m->nsensordata * sizeof(double)) == 0,
                "%s: sensordata", what);
  for (int i = 0; i < nroll; i++) {
    ck_assert_int_eq(a->status[i].exit, b->status[i].exit);
    ck_assert_int_eq(a->status[i].nan_resets, b->status[i].nan_resets);
    ck_assert_int_eq(a->status[i].steps, b->status[i].steps);
    ck_assert_int_eq(a->status[i].not_converged, b->status[i].not_converged);
  }
}

/* Random open-loop controls in the actuators' ranges (or [-1, 1]). */
static double* random_controls(const imp_model* m, int nroll, int nstep) {
  size_t n = (size_t)nroll * (size_t)nstep * (size_t)m->nu;
  double* u = malloc((n + 1) * sizeof(double));
  for (size_t k = 0; k < n; k++) u[k] = imp_test_urand(-1, 1);
  return u;
}

/* Rollouts of a model with contacts on 1, 2 and 4 threads: the same bits.
   The perturbation makes every rollout different, so rollouts differ in
   cost and the dynamic scheduler hands them out in varying orders. */
static void check_threads(const imp_model* m, int nroll, int nstep, const double* ctrl) {
  outputs out[3];
  const int threads[3] = {1, 2, 4};
  for (int t = 0; t < 3; t++) {
    out[t] = alloc_outputs(m, nroll, nstep);
    imp_rollout_opt opt;
    imp_rollout_default(&opt);
    opt.nthread = threads[t];
    opt.perturb_qpos = 0.05;
    opt.perturb_qvel = 0.5;
    opt.seed = 1234;
    opt.ctrl = ctrl;
    attach(&opt, &out[t]);
    char err[200] = "";
    ck_assert_msg(imp_rollout(m, nroll, nstep, &opt, err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < nroll; i++) ck_assert_int_ne(out[t].status[i].exit, IMP_ROLLOUT_NOT_RUN);
  }
  assert_same_outputs(m, &out[0], &out[1], nroll, nstep, "2 threads");
  assert_same_outputs(m, &out[0], &out[2], nroll, nstep, "4 threads");
  /* the rollouts differ from each other: the perturbation is per rollout */
  size_t row = (size_t)nstep * m->nq;
  ck_assert(memcmp(out[0].qpos, out[0].qpos + row, row * sizeof(double)) != 0);
  for (int t = 0; t < 3; t++) free_outputs(&out[t]);
}

START_TEST(test_threads_bitwise_box_pile) {
  imp_model* m = imp_test_load_model("box_pile.xml");
  check_threads(m, 12, 150, NULL);
  imp_free_model(m);
}
END_TEST

START_TEST(test_threads_bitwise_humanoid) {
  FILE* f = fopen(HUMANOID, "r");
  if (!f) {
    printf("skipped: %s not installed (libmujoco-samples)\n", HUMANOID);
    return;
  }
  fclose(f);
  imp_model* m = load_file(HUMANOID);
  double* u = random_controls(m, 6, 100);
  check_threads(m, 6, 100, u);
  free(u);
  imp_free_model(m);
}
END_TEST

/* Rollout i on 3 threads equals a plain loop: imp_rollout_initial_state,
   then ctrl set and imp_step, nstep times, on a data of its own. */
START_TEST(test_equals_plain_loop) {
  imp_model* m = imp_test_load_string(ARM_XML);
  const int nroll = 5, nstep = 300;
  double* u = random_controls(m, nroll, nstep);
  outputs out = alloc_outputs(m, nroll, nstep);
  imp_rollout_opt opt;
  imp_rollout_default(&opt);
  opt.nthread = 3;
  opt.perturb_qpos = 0.3;
  opt.perturb_qvel = 1;
  opt.seed = 99;
  opt.ctrl = u;
  attach(&opt, &out);
  ck_assert_int_eq(imp_rollout(m, nroll, nstep, &opt, NULL, 0), 0);
  imp_data* d = imp_make_data(m);
  for (int i = 0; i < nroll; i++) {
    imp_rollout_initial_state(m, d, -1, 0.3, 1, 99, i);
    for (int k = 0; k < nstep; k++) {
      d->ctrl[0] = u[(size_t)i * nstep + k];
      imp_step(m, d);
      size_t r = (size_t)i * nstep + k;
      ck_assert_msg(out.qpos[r] == d->qpos[0] && out.qvel[r] == d->qvel[0],
                    "rollout %d step %d differs", i, k + 1);
      ck_assert(memcmp(out.sensordata + 2 * r, d->sensordata, 2 * sizeof(double)) == 0);
    }
    ck_assert_int_eq(out.status[i].exit, IMP_ROLLOUT_OK);
    ck_assert_int_eq(out.status[i].steps, nstep);
  }
  /* the sensors are there: jointpos of the state before the step */
  ck_assert(out.sensordata[2 * 1] == out.qpos[0]);
  imp_free_data(d);
  free_outputs(&out);
  free(u);
  imp_free_model(m);
}
END_TEST

/* the noise of rollout i depends on (seed, i) only, and is standard normal */
START_TEST(test_noise_counter_based) {
  double a[7], b[7], c[7], e[7];
  imp_rollout_noise(5, 3, a, 7);
  imp_rollout_noise(5, 2, c, 7);
  imp_rollout_noise(5, 3, b, 7);
  imp_rollout_noise(6, 3, e, 7);
  ck_assert(memcmp(a, b, sizeof a) == 0);
  ck_assert(memcmp(a, c, sizeof a) != 0);
  ck_assert(memcmp(a, e, sizeof a) != 0);
  /* a prefix of a longer draw: draw k does not depend on n */
  double l[20];
  imp_rollout_noise(5, 3, l, 20);
  ck_assert(memcmp(a, l, 6 * sizeof(double)) == 0);
  /* moments over many rollouts: mean 0, variance 1 (standard errors
     1/sqrt(n) and sqrt(2/n) for n = 200000: 0.0022 and 0.0032) */
  const int n = 200000;
  double s = 0, s2 = 0;
  for (int i = 0; i < n / 2; i++) {
    double z[2];
    imp_rollout_noise(42, i, z, 2);
    for (int k = 0; k < 2; k++) {
      s += z[k];
      s2 += z[k] * z[k];
    }
  }
  ck_assert_msg(fabs(s / n) < 0.01, "mean %g", s / n);
  ck_assert_msg(fabs(s2 / n - 1) < 0.015, "variance %g", s2 / n);
}
END_TEST

/* a perturbed free body keeps a unit quaternion; the positions move by
   about the scale asked */
START_TEST(test_perturb_keeps_quaternions_unit) {
  imp_model* m = imp_test_load_model("box_pile.xml");
  imp_data* d = imp_make_data(m);
  imp_rollout_initial_state(m, d, -1, 0.2, 0, 7, 0);
  double moved = 0;
  for (int j = 0; j < m->njnt; j++) {
    const double* q = d->qpos + m->jnt_qposadr[j];
    const double* q0 = m->qpos0 + m->jnt_qposadr[j];
    imp_assert_near(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6], 1.0, 1e-14);
    moved += fabs(q[0] - q0[0]);
  }
  ck_assert_msg(moved > 0.01 && moved < 5 * 0.2 * m->njnt, "moved %g", moved);
  for (int k = 0; k < m->nv; k++) ck_assert(d->qvel[k] == 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* an observer that stops rollout 2 at step 10 */
static int stop_two(const imp_model* m, const imp_data* d, int rollout, long long step,
                    void* user) {
  (void)m;
  (void)d;
  (void)user;
  return rollout == 2 && step == 10;
}

/* the initial qvel of rollout 1 blows the state up: the engine resets it,
   the rollout says so, the others are untouched; skip and stop work */
START_TEST(test_nonfinite_skip_and_stop) {
  imp_model* m = imp_test_load_model("box_pile.xml");
  const int nroll = 5, nstep = 40;
  double* qvel0 = calloc((size_t)nroll * m->nv, sizeof(double));
  qvel0[1 * m->nv + 0] = 1e308;
  qvel0[1 * m->nv + 1] = -1e308;
  unsigned char skip[5] = {0, 0, 0, 1, 0};
  outputs out = alloc_outputs(m, nroll, nstep);
  imp_rollout_opt opt;
  imp_rollout_default(&opt);
  opt.nthread = 2;
  opt.init_qvel = qvel0;
  opt.skip = skip;
  opt.observe = stop_two;
  attach(&opt, &out);
  ck_assert_int_eq(imp_rollout(m, nroll, nstep, &opt, NULL, 0), 0);
  ck_assert_int_eq(out.status[0].exit, IMP_ROLLOUT_OK);
  ck_assert_int_eq(out.status[1].exit, IMP_ROLLOUT_NONFINITE);
  ck_assert_int_gt(out.status[1].nan_resets, 0);
  ck_assert_int_eq(out.status[1].steps, nstep);
  ck_assert_int_eq(out.status[2].exit, IMP_ROLLOUT_STOPPED);
  ck_assert_int_eq(out.status[2].steps, 10);
  ck_assert_int_eq(out.status[3].exit, IMP_ROLLOUT_NOT_RUN);
  ck_assert_int_eq(out.status[4].exit, IMP_ROLLOUT_OK);
  /* rollouts 0 and 4 start alike (no perturbation): same bits */
  size_t row = (size_t)nstep * m->nq;
  ck_assert(memcmp(out.qpos, out.qpos + 4 * row, row * sizeof(double)) == 0);
  for (size_t k = 0; k < row; k++) ck_assert(out.qpos[3 * row + k] == 0); /* skipped: untouched */
  free(qvel0);
  free_outputs(&out);
  imp_free_model(m);
}
END_TEST

/* a per-rollout controller: the callback knows its rollout */
static void ctrl_by_rollout(const imp_model* m, imp_data* d, int rollout, void* user) {
  (void)m;
  d->ctrl[0] = *(const double*)user * rollout;
}

static void other_cb(const imp_model* m, imp_data* d, void* user) {
  (void)m;
  (void)d;
  (void)user;
}

START_TEST(test_callback_and_caller_datas) {
  imp_model* m = imp_test_load_string(ARM_XML);
  const int nroll = 4, nstep = 50;
  imp_data* ds[2] = {imp_make_data(m), imp_make_data(m)};
  int tag = 0;
  imp_set_control_callback(ds[1], other_cb, &tag);
  double gain = 0.5;
  outputs out = alloc_outputs(m, nroll, nstep);
  imp_rollout_opt opt;
  imp_rollout_default(&opt);
  opt.nthread = 2;
  opt.datas = ds;
  opt.ndata = 2;
  opt.control = ctrl_by_rollout;
  opt.control_user = &gain;
  attach(&opt, &out);
  ck_assert_int_eq(imp_rollout(m, nroll, nstep, &opt, NULL, 0), 0);
  /* rollout 0 has no torque: it hangs still (the arm starts horizontal
     and falls under gravity alike in all; torque makes them differ) */
  size_t row = (size_t)nstep;
  for (int i = 1; i < nroll; i++)
    ck_assert(out.qpos[i * row + row - 1] != out.qpos[(i - 1) * row + row - 1]);
  /* the caller's callbacks are back */
  ck_assert(ds[1]->control_fn == other_cb && ds[1]->control_user == &tag);
  ck_assert(ds[0]->control_fn == NULL);
  /* fewer datas than threads: refused before anything runs */
  char err[200] = "";
  opt.nthread = 3;
  ck_assert_int_eq(imp_rollout(m, nroll, nstep, &opt, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "datas") != NULL, "%s", err);
  imp_free_data(ds[0]);
  imp_free_data(ds[1]);
  free_outputs(&out);
  imp_free_model(m);
}
END_TEST

START_TEST(test_bad_arguments) {
  imp_model* m = imp_test_load_string(ARM_XML);
  imp_rollout_opt opt;
  imp_rollout_default(&opt);
  char err[200] = "";
  opt.nthread = 0;
  ck_assert_int_eq(imp_rollout(m, 1, 1, &opt, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "nthread") != NULL, "%s", err);
  opt.nthread = 1;
  opt.key = 0;
  ck_assert_int_eq(imp_rollout(m, 1, 1, &opt, err, sizeof err), -1);
  opt.key = -1;
  opt.perturb_qvel = NAN;
  ck_assert_int_eq(imp_rollout(m, 1, 1, &opt, err, sizeof err), -1);
  opt.perturb_qvel = 0;
  opt.solver = "no-such-solver";
  ck_assert_int_eq(imp_rollout(m, 1, 1, &opt, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "no-such-solver") != NULL, "%s", err);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("rollout");
  TCase* tc = tcase_create("rollout");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_threads_bitwise_box_pile);
  tcase_add_test(tc, test_threads_bitwise_humanoid);
  tcase_add_test(tc, test_equals_plain_loop);
  tcase_add_test(tc, test_noise_counter_based);
  tcase_add_test(tc, test_perturb_keeps_quaternions_unit);
  tcase_add_test(tc, test_nonfinite_skip_and_stop);
  tcase_add_test(tc, test_callback_and_caller_datas);
  tcase_add_test(tc, test_bad_arguments);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
