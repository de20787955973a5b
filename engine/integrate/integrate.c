/* Time integration at the velocity level: semi-implicit Euler and its
 * implicit-in-velocity variants (MuJoCo's documentation, Computation >
 * Numerical integration), and RK4.
 *
 * Implicit in velocity: v+ = v + h a(v+), linearized about v (one Newton
 * step), with a(v) = M^-1 f(v) and D = df/dv (the constraint force held
 * fixed):
 *
 *   v+ = v + h a(v) + h M^-1 D (v+ - v)
 *   (M - h D) v+ = (M - h D) v + h f(v)                           (1)
 *   v+ = v + h (M - h D)^-1 f(v)
 *
 * The matrix M - h D of each integrator, its factor and the contact
 * stage's use of it are the smooth dynamics' (smooth/implicit.c); here the
 * velocity and position updates.
 *
 * Positions advance with the new velocity through each joint's kinematic
 * map qdot = G(q) u; for ball and free joints the angular block is
 * 1/2 Q(q) (Macklin et al. 2019, eq. 88-89), integrated exactly for constant
 * angular velocity, so quaternions stay unit length. */
#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"

void imp_integrate_pos(const imp_model* m, double* qpos, const double* qvel, double h) {
  for (int j = 0; j < m->njnt; j++) {
    double* q = qpos + m->jnt_qposadr[j];
    const double* v = qvel + m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
      case IMP_JNT_FREE:
        for (int i = 0; i < 3; i++) q[i] += h * v[i]; /* world linear velocity */
        imp_quat_integrate(q + 3, v + 3, h);        /* body-frame angular velocity */
        break;
      case IMP_JNT_BALL:
        imp_quat_integrate(q, v, h);
        break;
      default:
        q[0] += h * v[0];
        break;
    }
  }
}

void imp_euler(const imp_model* m, imp_data* d) {
  double h = m->opt.timestep;
  size_t mark = imp_stack_mark(d);
  double* acc = imp_stack_alloc(d, m->nv);
  if (!imp_implicit_damping(m)) {
    imp_copy(acc, d->qacc, m->nv);
  } else if (m->opt.integrator != IMP_INT_IMPLICIT) { /* one matrix for all forces */
    double* frc = imp_stack_alloc(d, m->nv);
    for (int i = 0; i < m->nv; i++) frc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
    if (d->nefc == 0) imp_factor_damped(m, d); /* else the contact stage factored it */
    imp_solve_sparse(m, d->qH, d->qHDiagInv, acc, frc);
  } else { /* smooth forces with every derivative, impulses as the contact stage saw them */
    double* dv = imp_stack_alloc(d, m->nv);
    if (d->nefc == 0) imp_factor_damped(m, d);
    imp_implicit_solve(m, d, acc, d->qfrc_smooth);
    if (d->nefc > 0) {
      imp_solve_sparse(m, d->qH, d->qHDiagInv, dv, d->qfrc_constraint);
      imp_add_scl(acc, dv, 1, m->nv);
    }
  }
  imp_advance_act(m, d, d->act_dot); /* MuJoCo's order: act, then qvel, qpos */
  imp_add_scl(d->qvel, acc, h, m->nv);
  imp_integrate_pos(m, d->qpos, d->qvel, h);
  d->time += h;
  imp_stack_release(d, mark);
}

/* Runge-Kutta 4 (Butcher tableau c = 0, 1/2, 1/2, 1; b = 1/6, 1/3, 1/3, 1/6).
   Stage i evaluates the dynamics at qvel_i = u0 + h sum_j a_ij acc_j and at
   qpos_i = q0 (+) h sum_j a_ij qvel_j, so quaternions move on their manifold.
   Activations are part of the state, as in MuJoCo's mj_RungeKutta: stage i
   has act_i = act0 + h sum_j a_ij act_dot_j (unclamped), and the step ends
   with act advanced as one step at the weighted act_dot (imp_advance_act:
   filterexact's exact step, actrange clamp). */
void imp_rk4(const imp_model* m, imp_data* d, imp_forward_fn forward) {
  static const double a[3] = {0.5, 0.5, 1.0}; /* the tableau is diagonal */
  static const double b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  const double h = m->opt.timestep, t0 = d->time;
  const int nv = m->nv;
  size_t mark = imp_stack_mark(d);
  double* q0 = imp_stack_alloc(d, m->nq);
  double* u0 = imp_stack_alloc(d, nv);
  double* vel = imp_stack_alloc(d, 4 * nv); /* stage velocities */
  double* acc = imp_stack_alloc(d, 4 * nv); /* stage accelerations */
  double* dq = imp_stack_alloc(d, nv);
  const int na = m->na;
  double* act0 = imp_stack_alloc(d, na);
  double* adot = imp_stack_alloc(d, 4 * na); /* stage activation rates */
  imp_copy(act0, d->act, na);
  imp_copy(adot, d->act_dot, na);
  imp_copy(q0, d->qpos, m->nq);
  imp_copy(u0, d->qvel, nv);
  imp_copy(vel, u0, nv);
  imp_copy(acc, d->qacc, nv);
  for (int i = 1; i < 4; i++) {
    imp_copy(d->qpos, q0, m->nq);
    imp_scl(dq, vel + (i - 1) * nv, a[i - 1], nv);
    imp_integrate_pos(m, d->qpos, dq, h);
    imp_copy(d->qvel, u0, nv);
    imp_add_scl(d->qvel, acc + (i - 1) * nv, a[i - 1] * h, nv);
    imp_copy(vel + i * nv, d->qvel, nv);
    imp_copy(d->act, act0, na);
    imp_add_scl(d->act, adot + (i - 1) * na, a[i - 1] * h, na);
    d->time = t0 + a[i - 1] * h;
    forward(m, d); /* without sensors: the step's sensors are those of its start */
    imp_copy(acc + i * nv, d->qacc, nv);
    imp_copy(adot + i * na, d->act_dot, na);
  }
  imp_zero(dq, nv);
  imp_copy(d->qvel, u0, nv);
  for (int i = 0; i < 4; i++) {
    imp_add_scl(dq, vel + i * nv, b[i], nv);
    imp_add_scl(d->qvel, acc + i * nv, b[i] * h, nv);
  }
  imp_copy(d->qpos, q0, m->nq);
  imp_integrate_pos(m, d->qpos, dq, h);
  if (na) {
    double* rate = imp_stack_alloc(d, na);
    imp_zero(rate, na);
    for (int i = 0; i < 4; i++) imp_add_scl(rate, adot + i * na, b[i], na);
    imp_copy(d->act, act0, na);
    imp_advance_act(m, d, rate);
  }
  d->time = t0 + h;
  imp_stack_release(d, mark);
}
