/* imp_rollout (rollout.h): independent rollouts of one model on a few
 * threads.
 *
 * Scheduling: the threads share one atomic counter of the next rollout
 * (atomic_fetch_add), so each takes a new rollout as soon as it is free:
 * dynamic scheduling, which keeps two threads busy when one rollout piles
 * up contacts and another flies freely. Which thread runs which rollout
 * changes from run to run and changes no result: a rollout's data is reset
 * before it starts, it writes only its own rows of the outputs, and its
 * noise is a function of (seed, rollout) (imp_rollout_noise).
 *
 * The noise: SplitMix64 (Steele, Lea, Flood 2014, "Fast splittable
 * pseudorandom number generators") used as a counter-based generator:
 * draw k of rollout i is the SplitMix64 finalizer of key(seed, i) + (k + 1)
 * times the golden gamma, key(seed, i) itself the finalizer of seed and i.
 * Uniforms in (0, 1) from the top 53 bits, normals by Box-Muller
 * (z0 = sqrt(-2 ln u1) cos(2 pi u2), z1 = ... sin), one pair per two draws. */
#define _POSIX_C_SOURCE 200809L

#include "rollout.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "constraint/contact.h" /* IMP_EXIT_CONVERGED */
#include "engine.h"

/* ---- the counter-based generator ---- */

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL

/* SplitMix64's output function (a bijection of 64-bit words) */
static uint64_t splitmix_finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* the stream key of rollout i */
static uint64_t rollout_key(uint64_t seed, int i) {
  return splitmix_finalize(splitmix_finalize(seed) + GOLDEN_GAMMA * ((uint64_t)(uint32_t)i + 1));
}

/* draw k of a stream, uniform in (0, 1): never 0, so log is finite */
static double uniform_draw(uint64_t key, uint64_t k) {
  uint64_t bits = splitmix_finalize(key + GOLDEN_GAMMA * (k + 1)) >> 11;
  return ((double)bits + 0.5) * (1.0 / 9007199254740992.0); /* 2^-53 */
}

void imp_rollout_noise(uint64_t seed, int i, double* z, int n) {
  uint64_t key = rollout_key(seed, i);
  const double two_pi = 6.283185307179586476925286766559;
  for (int j = 0; j < n; j += 2) {
    double r = sqrt(-2.0 * log(uniform_draw(key, (uint64_t)j)));
    double a = two_pi * uniform_draw(key, (uint64_t)j + 1);
    z[j] = r * cos(a);
    if (j + 1 < n) z[j + 1] = r * sin(a);
  }
}

/* ---- one rollout ---- */

void imp_rollout_initial_state(const imp_model* m, imp_data* d, int key, double perturb_qpos,
                               double perturb_qvel, uint64_t seed, int i) {
  if (key >= 0)
    imp_reset_data_keyframe(m, d, key);
  else
    imp_reset_data(m, d);
  if (perturb_qpos == 0 && perturb_qvel == 0) return;
  /* draws 0..nv-1 move the positions, nv..2nv-1 the velocities: the
     arena is free between steps and holds 2 nv doubles easily */
  size_t mark = imp_stack_mark(d);
  double* z = imp_stack_alloc(d, 2 * m->nv);
  imp_rollout_noise(seed, i, z, 2 * m->nv);
  for (int k = 0; k < m->nv; k++) z[k] *= perturb_qpos;
  /* through each joint's kinematic map: quaternions stay unit */
  if (perturb_qpos != 0) imp_integrate_pos(m, d->qpos, z, 1.0);
  for (int k = 0; k < m->nv; k++) d->qvel[k] += perturb_qvel * z[m->nv + k];
  imp_stack_release(d, mark);
}

/* What a thread knows of the call. */
typedef struct rollout_job {
  const imp_model* m;
  const imp_rollout_opt* o;
  int nroll;
  long long nstep;
  imp_data** datas;
  atomic_int next; /* the next rollout to claim */
} rollout_job;

/* The control callback of a data while it runs rollout `rollout`. */
typedef struct worker_ctl {
  const imp_rollout_opt* o;
  int rollout;
} worker_ctl;

static void call_rollout_control(const imp_model* m, imp_data* d, void* user) {
  const worker_ctl* c = user;
  c->o->control(m, d, c->rollout, c->o->control_user);
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int state_finite(const imp_model* m, const imp_data* d) {
  for (int k = 0; k < m->nq; k++)
    if (!isfinite(d->qpos[k])) return 0;
  for (int k = 0; k < m->nv; k++)
    if (!isfinite(d->qvel[k])) return 0;
  for (int k = 0; k < m->na; k++)
    if (!isfinite(d->act[k])) return 0;
  return 1;
}

/* row (i, k) of an nroll x nstep x n output, or NULL */
static double* out_row(double* base, int i, long long k, long long nstep, int n) {
  return base ? base + ((size_t)i * (size_t)nstep + (size_t)k) * (size_t)n : NULL;
}

/* the initial state of rollout i into d */
static void set_initial_state(const imp_model* m, const imp_rollout_opt* o, imp_data* d, int i) {
  imp_rollout_initial_state(m, d, o->key, o->init_qpos ? 0 : o->perturb_qpos,
                            o->init_qvel ? 0 : o->perturb_qvel, o->seed, i);
  if (o->init_qpos) memcpy(d->qpos, o->init_qpos + (size_t)i * m->nq, sizeof(double) * m->nq);
  if (o->init_qvel) memcpy(d->qvel, o->init_qvel + (size_t)i * m->nv, sizeof(double) * m->nv);
  if (o->init_act) memcpy(d->act, o->init_act + (size_t)i * m->na, sizeof(double) * m->na);
}

/* the state after step k + 1 into the outputs */
static void store_state(const imp_model* m, const rollout_job* j, const imp_data* d, int i,
                        long long k) {
  const imp_rollout_opt* o = j->o;
  double* p;
  if ((p = out_row(o->qpos, i, k, j->nstep, m->nq))) memcpy(p, d->qpos, sizeof(double) * m->nq);
  if ((p = out_row(o->qvel, i, k, j->nstep, m->nv))) memcpy(p, d->qvel, sizeof(double) * m->nv);
  if ((p = out_row(o->act, i, k, j->nstep, m->na))) memcpy(p, d->act, sizeof(double) * m->na);
  if ((p = out_row(o->sensordata, i, k, j->nstep, m->nsensordata)))
    memcpy(p, d->sensordata, sizeof(double) * m->nsensordata);
}

/* Rollout i on data d: initial state, nstep steps, status. */
static void run_rollout(rollout_job* j, imp_data* d, int i) {
  const imp_model* m = j->m;
  const imp_rollout_opt* o = j->o;
  imp_rollout_status st = {IMP_ROLLOUT_OK, 0, 0, 0, 0};
  double t0 = now_seconds();
  set_initial_state(m, o, d, i);
  worker_ctl ctl = {o, i};
  if (o->control) imp_set_control_callback(d, call_rollout_control, &ctl);
  int nan0 = d->nwarning_nan;
  int stopped = o->observe && o->observe(m, d, i, 0, o->observe_user);
  for (long long k = 0; k < j->nstep && !stopped; k++) {
    if (o->ctrl)
      memcpy(d->ctrl, out_row((double*)o->ctrl, i, k, j->nstep, m->nu), sizeof(double) * m->nu);
    imp_step(m, d);
    st.steps = k + 1;
    if (d->solver_exit != IMP_EXIT_CONVERGED) st.not_converged++;
    store_state(m, j, d, i, k);
    stopped = o->observe && o->observe(m, d, i, k + 1, o->observe_user);
  }
  if (o->control) imp_set_control_callback(d, NULL, NULL);
  st.nan_resets = d->nwarning_nan - nan0;
  if (st.nan_resets > 0 || !state_finite(m, d)) st.exit = IMP_ROLLOUT_NONFINITE;
  if (stopped && st.steps < j->nstep) st.exit = IMP_ROLLOUT_STOPPED;
  st.wall_seconds = now_seconds() - t0;
  if (o->status) o->status[i] = st;
  if (o->finish) o->finish(m, d, i, &st, o->observe_user);
}

/* A thread's loop: claim rollouts until none is left. */
static void drain(rollout_job* j, int worker) {
  for (;;) {
    int i = atomic_fetch_add(&j->next, 1);
    if (i >= j->nroll) return;
    if (j->o->skip && j->o->skip[i]) continue;
    run_rollout(j, j->datas[worker], i);
  }
}

typedef struct worker_arg {
  rollout_job* job;
  int worker;
} worker_arg;

static void* worker_main(void* arg) {
  worker_arg* a = arg;
  drain(a->job, a->worker);
  return NULL;
}

/* ---- the call ---- */

void imp_rollout_default(imp_rollout_opt* opt) {
  memset(opt, 0, sizeof *opt);
  opt->nthread = 1;
  opt->key = -1;
}

/* the arguments a user can get wrong, before anything runs: 0, or -1
   with the message in err */
static int check_args(const imp_model* m, int nroll, long long nstep, const imp_rollout_opt* o,
                      char* err, int errsz) {
  const char* what = NULL;
  if (!m || !o)
    what = "NULL model or options";
  else if (nroll < 0 || nstep < 0)
    what = "negative nroll or nstep";
  else if (o->nthread < 1 || o->nthread > IMP_ROLLOUT_THREADS_MAX)
    what = "nthread outside [1, IMP_ROLLOUT_THREADS_MAX]";
  else if (o->datas && o->ndata < o->nthread)
    what = "fewer datas than threads (ndata < nthread)";
  else if (o->key >= m->nkey)
    what = "no such keyframe (key >= nkey)";
  else if (!isfinite(o->perturb_qpos) || !isfinite(o->perturb_qvel) || o->perturb_qpos < 0 ||
           o->perturb_qvel < 0)
    what = "perturbation scales must be finite and >= 0";
  if (what) imp_format_error(err, errsz, "imp_rollout: %s", what);
  return what ? -1 : 0;
}

/* nthread datas of m with the options' solver; NULL (err set) on failure */
static imp_data** make_datas(const imp_model* m, const imp_rollout_opt* o, char* err, int errsz) {
  imp_data** ds = calloc((size_t)o->nthread, sizeof *ds);
  if (!ds) {
    imp_format_error(err, errsz, "imp_rollout: out of memory");
    return NULL;
  }
  for (int t = 0; t < o->nthread; t++) {
    ds[t] = imp_make_data(m);
    if (!ds[t] || (o->solver && imp_set_solver(m, ds[t], o->solver) != 0)) {
      if (ds[t])
        imp_format_error(err, errsz, "imp_rollout: unknown solver '%s'", o->solver);
      else
        imp_format_error(err, errsz, "imp_rollout: out of memory");
      for (int k = 0; k <= t; k++) imp_free_data(ds[k]);
      free(ds);
      return NULL;
    }
  }
  return ds;
}

int imp_rollout(const imp_model* m, int nroll, long long nstep, const imp_rollout_opt* o, char* err,
                int errsz) {
  if (check_args(m, nroll, nstep, o, err, errsz)) return -1;
  imp_data** ds = o->datas ? o->datas : make_datas(m, o, err, errsz);
  if (!ds) return -1;
  /* the callers' callbacks, put back on return */
  imp_control_fn* saved_fn = calloc((size_t)o->nthread, sizeof *saved_fn);
  void** saved_user = calloc((size_t)o->nthread, sizeof *saved_user);
  pthread_t* threads = calloc((size_t)o->nthread, sizeof *threads);
  worker_arg* args = calloc((size_t)o->nthread, sizeof *args);
  int rc = 0;
  if (!saved_fn || !saved_user || !threads || !args) {
    imp_format_error(err, errsz, "imp_rollout: out of memory");
    rc = -1;
    goto done;
  }
  for (int t = 0; t < o->nthread; t++) {
    saved_fn[t] = ds[t]->control_fn;
    saved_user[t] = ds[t]->control_user;
  }
  if (o->status)
    for (int i = 0; i < nroll; i++) o->status[i] = (imp_rollout_status){0};
  rollout_job job = {m, o, nroll, nstep, ds, 0};
  atomic_init(&job.next, 0);
  int started = 0;
  for (int t = 1; t < o->nthread; t++) {
    args[t] = (worker_arg){&job, t};
    if (pthread_create(&threads[t], NULL, worker_main, &args[t]) != 0) break;
    started = t;
  }
  /* fewer threads than asked still give the same results, only later */
  drain(&job, 0);
  for (int t = 1; t <= started; t++) pthread_join(threads[t], NULL);
  for (int t = 0; t < o->nthread; t++) imp_set_control_callback(ds[t], saved_fn[t], saved_user[t]);
done:
  free(saved_fn);
  free(saved_user);
  free(threads);
  free(args);
  if (!o->datas) {
    for (int t = 0; t < o->nthread; t++) imp_free_data(ds[t]);
    free(ds);
  }
  return rc;
}
