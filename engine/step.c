/* The pipeline of one step, top to bottom. Each stage lives in the folder
   of its name (engine/README.md has the map):
     smooth/      kinematics.c, tendon.c, inertia.c, dynamics.c, transmission.c,
                  activation.c, implicit.c (M - h D)
     collision/   collision.c (broad phase), collide_*.c (narrow phase), ray.c
     constraint/  constraints.c (rows), contact.c (the contact stage, solvers/)
     sensor/      sensor.c
     integrate/   integrate.c
   core/ holds what every stage uses (the arena, errors, math, threads);
   io/ (recording, rollouts) drives this file from above. */
#include <math.h>

#include "collision/collision.h"
#include "constraint/contact.h"
#include "engine.h"
#include "core/mathx.h"

/* Values past this are treated as divergence, like non-finite ones. */
#define IMP_MAXVAL 1e10

/* The stages before the controls (MuJoCo's mj_step1 up to mjcb_control):
   everything that depends on positions and velocities, the contacts, the
   actuators' lengths and velocities, and the sensors of those stages when
   asked. */
static void forward_pos_vel(const imp_model* m, imp_data* d, int sensors) {
  /* position-dependent */
  imp_kinematics(m, d);
  imp_com_pos(m, d);
  imp_tendon(m, d);
  imp_camlight(m, d);
  imp_crb(m, d);
  imp_tendon_armature(m, d);
  imp_factor_m(m, d);
  /* contacts: where geoms touch (before the actuators: adhesion acts
     through this configuration's contacts, transmission.c) */
  imp_collision(m, d);
  imp_transmission(m, d);
  /* velocity-dependent */
  imp_com_vel(m, d);
  imp_tendon_vel(m, d);
  imp_actuator_velocity(m, d);
  imp_passive(m, d);
  imp_rne(m, d);
  imp_tendon_bias(m, d);
  if (sensors) imp_sensor_pos_vel(m, d);
}

/* The user's controller, where MuJoCo calls mjcb_control: after the
   velocity stage, before the actuators read ctrl. */
static void control(const imp_model* m, imp_data* d) {
  if (d->control_fn) d->control_fn(m, d, d->control_user);
}

/* The stages after the controls (MuJoCo's mj_step2 up to the integrator):
   actuator forces, qacc, constraints and the contact stage, the other
   sensors. MuJoCo computes its sensors after the stage each reads; nothing
   after those stages changes what they read, so the values are the same. */
static void forward_acc(const imp_model* m, imp_data* d, int sensors) {
  /* control-dependent */
  imp_actuation_forces(m, d);
  /* acceleration without constraints */
  imp_smooth_acc(m, d);
  /* constraint rows, then the contact stage: impulses, qfrc_constraint, qacc */
  imp_constraints(m, d);
  double t0 = imp_timer_now();
  imp_contact_stage(m, d);
  d->timer[IMP_TIMER_SOLVER] += imp_timer_now() - t0;
  if (sensors) imp_sensor_acc(m, d);
}

/* Everything of the state up to qacc; the sensors when asked. */
static void forward(const imp_model* m, imp_data* d, int sensors) {
  forward_pos_vel(m, d, sensors);
  control(m, d);
  forward_acc(m, d, sensors);
}

void imp_forward(const imp_model* m, imp_data* d) { forward(m, d, 1); }

/* the forward RK4's later stages evaluate (MuJoCo computes its sensors
   once per step too) */
static void forward_skip_sensor(const imp_model* m, imp_data* d) { forward(m, d, 0); }

void imp_set_control_callback(imp_data* d, imp_control_fn fn, void* user) {
  if (!d) imp_error("imp_set_control_callback: NULL data");
  d->control_fn = fn;
  d->control_user = fn ? user : NULL;
}

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

/* The checks of the state a step starts from; 1 when it was reset. */
static int check_start(const imp_model* m, imp_data* d) {
  return check_state(m, d, "qpos", d->qpos, m->nq) || check_state(m, d, "qvel", d->qvel, m->nv) ||
         check_state(m, d, "act", d->act, m->na);
}

/* The integrator, after a forward of the state the step starts from. */
static void integrate(const imp_model* m, imp_data* d) {
  if (check_state(m, d, "qacc", d->qacc, m->nv)) return;
  if (m->opt.integrator == IMP_INT_RK4)
    imp_rk4(m, d, forward_skip_sensor);
  else
    imp_euler(m, d);
  d->nstep++;
}

void imp_step(const imp_model* m, imp_data* d) {
  double t0 = imp_timer_now();
  if (check_start(m, d)) return;
  imp_forward(m, d);
  integrate(m, d);
  d->timer[IMP_TIMER_STEP] += imp_timer_now() - t0;
}

/* imp_step = imp_step1, imp_step2 with the same stages in the same order,
   so the two give the same bits. One difference: when the checks reset a
   bad state, imp_step returns at once, while imp_step1 goes on to compute
   the reset state (its sensors are what the controller reads) and
   imp_step2 steps from it, as MuJoCo's mj_step1 and mj_step2 do. */
void imp_step1(const imp_model* m, imp_data* d) {
  double t0 = imp_timer_now();
  check_start(m, d);
  forward_pos_vel(m, d, 1);
  control(m, d);
  d->timer[IMP_TIMER_STEP] += imp_timer_now() - t0;
}

void imp_step2(const imp_model* m, imp_data* d) {
  double t0 = imp_timer_now();
  forward_acc(m, d, 1);
  integrate(m, d);
  d->timer[IMP_TIMER_STEP] += imp_timer_now() - t0;
}
