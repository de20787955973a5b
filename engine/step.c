/* The pipeline of one step, top to bottom. Each stage lives in the file of
   its name: kinematics.c, tendon.c, inertia.c, dynamics.c, collision.c,
   constraints.c, contact.c (with solvers/), sensor.c, integrate.c. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <time.h>

#include "collision.h"
#include "contact.h"
#include "engine.h"
#include "mathx.h"

double imp_timer_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Values past this are treated as divergence, like non-finite ones. */
#define IMP_MAXVAL 1e10

/* Everything of the state up to qacc; the sensors when asked. */
static void forward(const imp_model* m, imp_data* d, int sensors) {
  /* position-dependent */
  imp_kinematics(m, d);
  imp_com_pos(m, d);
  imp_tendon(m, d);
  imp_camlight(m, d);
  imp_crb(m, d);
  imp_factor_m(m, d);
  /* contacts: where geoms touch (before the actuators: adhesion acts
     through this configuration's contacts, transmission.c) */
  imp_collision(m, d);
  /* velocity-dependent */
  imp_com_vel(m, d);
  imp_tendon_vel(m, d);
  imp_passive(m, d);
  imp_rne(m, d);
  /* control-dependent */
  imp_actuation(m, d);
  /* acceleration without constraints */
  imp_smooth_acc(m, d);
  /* constraint rows, then the contact stage: impulses, qfrc_constraint, qacc */
  imp_constraints(m, d);
  double t0 = imp_timer_now();
  imp_contact_stage(m, d);
  d->timer[IMP_TIMER_SOLVER] += imp_timer_now() - t0;
  /* sensors last, all of them: MuJoCo computes its position, velocity and
     acceleration sensors after the stages of each, but nothing after those
     stages changes what its sensors read, so the values are the same */
  if (sensors) imp_sensor(m, d);
}

void imp_forward(const imp_model* m, imp_data* d) { forward(m, d, 1); }

void imp_forward_skip_sensor(const imp_model* m, imp_data* d) { forward(m, d, 0); }

static int is_bad(const double* v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i]) || fabs(v[i]) > IMP_MAXVAL) return 1;
  return 0;
}

/* Numerical trouble is reported once with the step number, and the
   simulation resets instead of continuing with garbage. */
static int check_state(const imp_model* m, imp_data* d, const char* what, const double* v, int n) {
  if (!is_bad(v, n)) return 0;
  int count = d->nwarning_nan + 1;
  long long step = d->nstep;
  if (count == 1)
    imp_warning("%s is not finite or too large at step %lld, time %g: simulation reset", what,
                step, d->time);
  imp_reset_data(m, d);
  d->nwarning_nan = count;
  return 1;
}

void imp_step(const imp_model* m, imp_data* d) {
  double t0 = imp_timer_now();
  if (check_state(m, d, "qpos", d->qpos, m->nq) || check_state(m, d, "qvel", d->qvel, m->nv) ||
      check_state(m, d, "act", d->act, m->na))
    return;
  imp_forward(m, d);
  if (check_state(m, d, "qacc", d->qacc, m->nv)) return;
  if (m->opt.integrator == IMP_INT_RK4)
    imp_rk4(m, d);
  else
    imp_euler(m, d);
  d->nstep++;
  d->timer[IMP_TIMER_STEP] += imp_timer_now() - t0;
}
