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

/* Whether any dof has damping to treat implicitly. */
static int has_implicit_damping(const imp_model* m) {
  if (m->opt.disableflags & (IMP_DSBL_EULERDAMP | IMP_DSBL_PASSIVE)) return 0;
  for (int i = 0; i < m->nv; i++)
    if (m->dof_damping[i] > 0) return 1;
  return 0;
}

void imp_euler(const imp_model* m, imp_data* d) {
  double h = m->opt.timestep;
  size_t mark = imp_stack_mark(d);
  double* acc = imp_stack_alloc(d, m->nv);
  if (has_implicit_damping(m)) {
    double* frc = imp_stack_alloc(d, m->nv);
    for (int i = 0; i < m->nv; i++) frc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
    imp_copy(d->qH, d->qM, m->nM);
    for (int i = 0; i < m->nv; i++) d->qH[m->dof_Madr[i]] += h * m->dof_damping[i];
    imp_factor_sparse(m, d->qH, d->qHDiagInv, d->qH);
    imp_solve_sparse(m, d->qH, d->qHDiagInv, acc, frc);
  } else {
    imp_copy(acc, d->qacc, m->nv);
  }
  imp_add_scl(d->qvel, acc, h, m->nv);
  imp_integrate_pos(m, d->qpos, d->qvel, h);
  d->time += h;
  imp_stack_release(d, mark);
}
