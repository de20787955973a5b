/* Time integration at the velocity level: semi-implicit Euler.
 *
 *   u+ = u + h M~^-1 (f_smooth + f_constraint),   M~ = M + h B
 *   q+ = q (+) h u+
 *
 * B is the diagonal of joint damping: treating it implicitly keeps stiff
 * damping stable at any h (the linearization of -B u+ about u). Positions
 * advance with the new velocity through each joint's kinematic map
 * qdot = G(q) u; for ball and free joints the angular block is
 * 1/2 Q(q) (Macklin et al. 2019, eq. 88-89), integrated exactly for constant
 * angular velocity, so quaternions stay unit length. */
#include "engine.h"
#include "mathx.h"
#include "quat.h"

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

int imp_implicit_damping(const imp_model* m) {
  if (m->opt.integrator != IMP_INT_EULER) return 0;
  if (m->opt.disableflags & (IMP_DSBL_EULERDAMP | IMP_DSBL_PASSIVE)) return 0;
  for (int i = 0; i < m->nv; i++)
    if (m->dof_damping[i] > 0) return 1;
  return 0;
}

void imp_factor_damped(const imp_model* m, imp_data* d) {
  imp_copy(d->qH, d->qM, m->nM);
  for (int i = 0; i < m->nv; i++) d->qH[m->dof_Madr[i]] += m->opt.timestep * m->dof_damping[i];
  imp_factor_sparse(m, d->qH, d->qHDiagInv, d->qH);
}

void imp_euler(const imp_model* m, imp_data* d) {
  double h = m->opt.timestep;
  size_t mark = imp_stack_mark(d);
  double* acc = imp_stack_alloc(d, m->nv);
  if (imp_implicit_damping(m)) {
    double* frc = imp_stack_alloc(d, m->nv);
    for (int i = 0; i < m->nv; i++) frc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
    if (d->nefc == 0) imp_factor_damped(m, d); /* else the contact stage factored it */
    imp_solve_sparse(m, d->qH, d->qHDiagInv, acc, frc);
  } else {
    imp_copy(acc, d->qacc, m->nv);
  }
  imp_add_scl(d->qvel, acc, h, m->nv);
  imp_integrate_pos(m, d->qpos, d->qvel, h);
  d->time += h;
  imp_stack_release(d, mark);
}

/* Runge-Kutta 4 (Butcher tableau c = 0, 1/2, 1/2, 1; b = 1/6, 1/3, 1/3, 1/6).
   Stage i evaluates the dynamics at qvel_i = u0 + h sum_j a_ij acc_j and at
   qpos_i = q0 (+) h sum_j a_ij qvel_j, so quaternions move on their manifold. */
void imp_rk4(const imp_model* m, imp_data* d) {
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
    d->time = t0 + a[i - 1] * h;
    imp_forward(m, d);
    imp_copy(acc + i * nv, d->qacc, nv);
  }
  imp_zero(dq, nv);
  imp_copy(d->qvel, u0, nv);
  for (int i = 0; i < 4; i++) {
    imp_add_scl(dq, vel + i * nv, b[i], nv);
    imp_add_scl(d->qvel, acc + i * nv, b[i] * h, nv);
  }
  imp_copy(d->qpos, q0, m->nq);
  imp_integrate_pos(m, d->qpos, dq, h);
  d->time = t0 + h;
  imp_stack_release(d, mark);
}
