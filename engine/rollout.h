/* Many independent simulations of one model at once: imp_rollout.
 *
 * What it promises:
 *  - rollout i starts from its own initial state (the caller's arrays, or
 *    the model's reference or a keyframe plus a seeded perturbation), takes
 *    nstep steps with its own controls (open-loop rows, a callback, or
 *    both), and writes its states into row i of the caller's arrays;
 *  - rollouts run on nthread threads (the caller's and nthread - 1 workers
 *    started for the call and joined before it returns) that take the next
 *    rollout from a shared atomic counter, so a slow rollout (many
 *    contacts) does not hold the others back;
 *  - the results are bitwise the same whatever nthread and whatever order
 *    the rollouts finish in: a rollout's data is reset before it starts
 *    (nothing of an earlier rollout on the same data carries over, warm
 *    starts included) and its perturbation comes from a generator seeded
 *    by (seed, i) alone (imp_rollout_noise), not from shared state;
 *  - no allocation inside a step: the datas (one per thread, reused from
 *    rollout to rollout) exist before the first rollout starts;
 *  - a rollout whose state goes non-finite (the engine resets it, counted
 *    in d->nwarning_nan) is reported as IMP_ROLLOUT_NONFINITE in its
 *    status and runs its remaining steps; the others are not affected.
 *
 * Datas: one per thread, not one per rollout, so memory grows with the
 * threads, not with the rollouts (10,000 rollouts of a humanoid need two
 * datas on two threads). The caller may hand them in (opt.datas, at least
 * nthread of them, made for m: their contact solver and island threads are
 * the caller's choice; a data's own control callback runs in its rollouts
 * unless opt.control is set, and is put back on return) or leave
 * opt.datas NULL and imp_rollout makes them (with opt.solver). */
#ifndef IMPETUS_ROLLOUT_H
#define IMPETUS_ROLLOUT_H

#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a rollout ended (imp_rollout_status.exit). */
typedef enum imp_rollout_exit {
  IMP_ROLLOUT_NOT_RUN = 0,   /* skipped (opt.skip) or never started */
  IMP_ROLLOUT_OK = 1,        /* all nstep steps, finite throughout */
  IMP_ROLLOUT_NONFINITE = 2, /* all nstep steps, but the state went non-finite
                                and the engine reset it (nan_resets > 0) */
  IMP_ROLLOUT_STOPPED = 3    /* opt.observe asked it to stop early */
} imp_rollout_exit;

/* What became of one rollout. */
typedef struct imp_rollout_status {
  int exit;                /* imp_rollout_exit */
  int nan_resets;          /* times the engine reset a non-finite state */
  long long steps;         /* steps taken */
  long long not_converged; /* steps whose contact solve stopped short of its tolerance */
  double wall_seconds;     /* wall time of the rollout (varies from run to run) */
} imp_rollout_status;

/* A per-rollout controller: called where imp_set_control_callback's is
   (every forward, after the velocity stage), with the rollout's index. */
typedef void (*imp_rollout_control_fn)(const imp_model* m, imp_data* d, int rollout, void* user);
/* Called on the rollout's thread with its state before the first step
   (step 0) and after each step (1..nstep); a nonzero return stops the
   rollout there (IMP_ROLLOUT_STOPPED). */
typedef int (*imp_rollout_observe_fn)(const imp_model* m, const imp_data* d, int rollout,
                                      long long step, void* user);
/* Called on the rollout's thread when it has ended, with its status. */
typedef void (*imp_rollout_finish_fn)(const imp_model* m, const imp_data* d, int rollout,
                                      const imp_rollout_status* status, void* user);

typedef struct imp_rollout_opt {
  int nthread;      /* threads, 1 to IMP_ROLLOUT_THREADS_MAX */
  imp_data** datas; /* ndata >= nthread datas of m, or NULL: made inside */
  int ndata;
  const char* solver; /* contact solver of the datas made inside; NULL: the model's */

  /* initial state of rollout i: reset (key < 0) or keyframe key, then
     init_* rows where given, else the seeded perturbation of
     imp_rollout_initial_state */
  int key;
  const double* init_qpos; /* nroll x nq, or NULL */
  const double* init_qvel; /* nroll x nv, or NULL */
  const double* init_act;  /* nroll x na, or NULL */
  double perturb_qpos;     /* std. deviation of the position noise (per dof, through
                              the joints' kinematic map, so quaternions stay unit) */
  double perturb_qvel;     /* std. deviation of the velocity noise */
  uint64_t seed;

  /* controls: row k of rollout i, nu values, is d->ctrl for step k + 1;
     the callback (if any) then runs inside each forward */
  const double* ctrl; /* nroll x nstep x nu, or NULL: ctrl as reset left it */
  imp_rollout_control_fn control;
  void* control_user;

  /* outputs, the state after each step: nroll x nstep x (nq, nv, na,
     nsensordata); NULL: not wanted */
  double* qpos;
  double* qvel;
  double* act;
  double* sensordata;
  imp_rollout_status* status; /* nroll, or NULL */

  const unsigned char* skip; /* nroll: nonzero leaves rollout i alone; NULL: run all */
  imp_rollout_observe_fn observe;
  imp_rollout_finish_fn finish;
  void* observe_user; /* user of observe and finish */
} imp_rollout_opt;

#define IMP_ROLLOUT_THREADS_MAX 256

/* Defaults: one thread, datas made inside, the model's solver and
   reference state, no perturbation, seed 0, nothing else. */
void imp_rollout_default(imp_rollout_opt* opt);

/* Run rollouts 0..nroll-1 (nstep steps each) as opt says. Returns 0, or -1
   with a message in err (bad arguments, datas or threads that cannot be
   had) before any rollout started. */
int imp_rollout(const imp_model* m, int nroll, long long nstep, const imp_rollout_opt* opt,
                char* err, int errsz);

/* Set d to the initial state imp_rollout gives rollout i without init_*
   arrays: reset (key < 0) or keyframe key, then qvel += perturb_qvel z and
   qpos (+)= perturb_qpos z' with z, z' standard normal draws of
   imp_rollout_noise(seed, i). */
void imp_rollout_initial_state(const imp_model* m, imp_data* d, int key, double perturb_qpos,
                               double perturb_qvel, uint64_t seed, int i);

/* n standard normal draws for rollout i of seed: a counter-based generator
   (SplitMix64 of seed and i, Box-Muller), so the draws of rollout i depend
   on (seed, i) alone, never on other rollouts or threads. */
void imp_rollout_noise(uint64_t seed, int i, double* z, int n);

#ifdef __cplusplus
}
#endif
#endif
