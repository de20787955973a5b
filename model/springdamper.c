/* <joint springdamper="timeconst dampratio"> (MJCF reference: joint
 * springdamper): when both values are positive the compiler replaces the
 * joint's stiffness and damping by those of a mass-spring-damper with that
 * time constant and damping ratio, "taking into account the joint inertia in
 * the model reference configuration", in the format of solref.
 *
 * The formulas are solref's (MuJoCo docs, Modeling: solver parameters),
 * b = 2 / timeconst and k = 1 / (timeconst^2 dampratio^2) per unit inertia
 * (d_width = d(r) = 1), scaled by the joint's inertia I:
 *
 *   damping = 2 I / timeconst,   stiffness = I / (timeconst dampratio)^2,
 *
 * so that the joint alone oscillates at natural frequency
 * w = sqrt(stiffness / I) = 1 / (timeconst dampratio) with damping ratio
 * damping / (2 sqrt(stiffness I)) = dampratio. As in MuJoCo (2.2.2 and 3.x,
 * mj_setConst's dof_invweight0), I is the inverse of the joint's diagonal
 * of M^-1 at qpos0 (armature included): for a ball joint the mean of its
 * three diagonal entries, for a free joint the mean of the translational
 * mean and the rotational mean (6 / (3 a_trans + 3 a_rot)), and the same
 * damping goes to every dof of the joint. */
#include <math.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"

/* MuJoCo's dof_invweight0 summed over joint j's dofs: the diagonal of M^-1
   at qpos0, each free joint's translational and rotational triples replaced
   by their means and each ball joint's by its mean (which keeps the sum). */
static double inverse_weight_sum(const imp_model* m, const imp_data* d, int j, double* e,
                                 double* x) {
  int adr = m->jnt_dofadr[j];
  int ndof = m->jnt_type[j] == IMP_JNT_FREE ? 6 : m->jnt_type[j] == IMP_JNT_BALL ? 3 : 1;
  double sum = 0;
  for (int k = 0; k < ndof; k++) {
    imp_zero(e, m->nv);
    e[adr + k] = 1;
    imp_solve_sparse(m, d->qLD, d->qLDiagInv, x, e);
    sum += x[adr + k];
  }
  return sum;
}

void ld_joints_springdamper(ld_ctx* c, imp_model* m, const ld_joint* J) {
  int any = 0;
  for (int j = 0; j < m->njnt; j++) {
    const double* sd = J[j].springdamper;
    if ((sd[0] != 0 || sd[1] != 0) && !(sd[0] > 0 && sd[1] > 0)) /* as MuJoCo */
      ld_error(c, J[j].file, J[j].line, "joint springdamper: when given, both values must be "
               "positive (time constant, damping ratio)");
    any |= sd[0] > 0;
  }
  if (!any) return;
  imp_data* d = imp_make_data(m); /* at qpos0 */
  if (!d) ld_error(c, "", 0, "out of memory");
  imp_kinematics(m, d);
  imp_com_pos(m, d);
  imp_tendon(m, d);
  imp_crb(m, d);
  imp_tendon_armature(m, d);
  imp_factor_m(m, d);
  double* e = ld_alloc(c, sizeof(double) * (size_t)m->nv);
  double* x = ld_alloc(c, sizeof(double) * (size_t)m->nv);
  for (int j = 0; j < m->njnt; j++) {
    double timeconst = J[j].springdamper[0], dampratio = J[j].springdamper[1];
    if (!(timeconst > 0)) continue; /* not given: stiffness and damping as written */
    int ndof = m->jnt_type[j] == IMP_JNT_FREE ? 6 : m->jnt_type[j] == IMP_JNT_BALL ? 3 : 1;
    double inertia = ndof / fmax(IMP_MINVAL, inverse_weight_sum(m, d, j, e, x));
    m->jnt_stiffness[j] =
        inertia / fmax(IMP_MINVAL, timeconst * timeconst * dampratio * dampratio);
    for (int k = 0; k < ndof; k++)
      m->dof_damping[m->jnt_dofadr[j] + k] = 2 * inertia / fmax(IMP_MINVAL, timeconst);
  }
  imp_free_data(d);
}
