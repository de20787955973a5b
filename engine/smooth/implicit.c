/* The implicit matrix M - h D of the single-step integrators
 * (integrate/integrate.c, eq. (1) there: (M - h D) v+ = (M - h D) v + h f(v)),
 * its factor, and solves with it.
 *
 * The integrators differ in D (smooth/dynamics.c computes its parts):
 *   Euler         joint damping only, D = -diag(b): M + h diag(b), L'DL
 *                 (tendon damping stays explicit, as in MuJoCo);
 *   implicitfast  joint and tendon damping and actuator velocity terms
 *                 (gain g2 ctrl and bias b2 through the transmission:
 *                 gear^2 dp/dldot, times J'J for a tendon's), a tendon's
 *                 J'J kept on M's pattern only (smooth/tendon.c, as MuJoCo 2.2.2),
 *                 without the derivatives of the Coriolis and centrifugal
 *                 forces, and symmetrized D <- (D + D')/2: L'DL;
 *   implicit      those plus -d(C(q, v) v)/dv by the tangent of RNE; D is
 *                 unsymmetric with the pattern of M, so M - h D = U D L
 *                 (smooth/inertia.c, no fill-in).
 * With joint transmissions D of Euler and implicitfast is diagonal, and
 * a stiff servo p = kp (ctrl - q) - kv v steps as implicit Euler in its
 * damping: (M + h kv) v+ = (M + h kv) v + h (kp (ctrl - q) - kv v + ...).
 *
 * Constraints: the contact stage poses its problem on the velocity the step
 * ends with, so it uses the step's matrix (constraint/contact.c): u_free = v + h (M -
 * h D)^-1 f, A = K (M - h D)^-1 K', and the impulses enter as
 * v+ = u_free + (M - h D)^-1 K' f_c. A solver needs A symmetric, so the
 * impulses of implicit go through implicitfast's symmetric matrix (qH)
 * while its smooth forces use the full LU; the step still ends exactly at
 * the velocity the contact stage solved for. qacc stays M^-1 (f + K' f_c / h),
 * the continuous-time acceleration, as MuJoCo reports it. */
#include "engine.h"
#include "core/mathx.h"

/* 1 when some actuator's force depends on its velocity (affine bias b2,
   affine gain g2, or a muscle's force-velocity curve), so that
   implicitfast has something to treat implicitly. */
static int any_velocity_actuator(const imp_model* m) {
  if (m->opt.disableflags & IMP_DSBL_ACTUATION) return 0;
  for (int u = 0; u < m->nu; u++) {
    if (m->actuator_gaintype[u] == IMP_GAIN_MUSCLE) return 1;
    if (m->actuator_biastype[u] == IMP_BIAS_AFFINE && m->actuator_biasprm[IMP_NGAIN * u + 2] != 0)
      return 1;
    if (m->actuator_gaintype[u] == IMP_GAIN_AFFINE && m->actuator_gainprm[IMP_NGAIN * u + 2] != 0)
      return 1;
  }
  return 0;
}

/* 1 when some dof has joint damping that passive forces apply. */
static int any_damping(const imp_model* m) {
  if (m->opt.disableflags & IMP_DSBL_PASSIVE) return 0;
  for (int i = 0; i < m->nv; i++)
    if (m->dof_damping[i] > 0) return 1;
  return 0;
}

/* 1 when some tendon has damping that passive forces apply. */
static int any_tendon_damping(const imp_model* m) {
  if (m->opt.disableflags & IMP_DSBL_PASSIVE) return 0;
  for (int t = 0; t < m->ntendon; t++)
    if (m->tendon_damping[3 * t] != 0 || m->tendon_damping[3 * t + 1] != 0 ||
        m->tendon_damping[3 * t + 2] != 0)
      return 1;
  return 0;
}

int imp_implicit_damping(const imp_model* m) {
  switch (m->opt.integrator) {
    case IMP_INT_EULER:
      return !(m->opt.disableflags & IMP_DSBL_EULERDAMP) && any_damping(m);
    case IMP_INT_IMPLICITFAST:
      return any_damping(m) || any_tendon_damping(m) || any_velocity_actuator(m) ||
             (imp_has_fluid(m) && !(m->opt.disableflags & IMP_DSBL_PASSIVE));
    case IMP_INT_IMPLICIT:
      return m->nv > 0; /* the Coriolis derivatives move with the state */
    default:
      return 0;
  }
}

/* res = M - h D for tree-sparse M and D (the same places). */
static void implicit_matrix(const imp_model* m, double* res, const double* M, const double* D,
                            double h) {
  for (int i = 0; i < m->nM; i++) res[i] = M[i] - h * D[i];
}

/* Euler's qH = M - h (Dl + Du) / 2 with Dl = Du = -diag(b) the joint
   damping (imp_deriv_passive_vel), without the two nM arrays of zeros:
   each entry the same operations on the same values (0 off the diagonal,
   0 - b on it), so the same bits. */
static void euler_damped_matrix(const imp_model* m, imp_data* d, double h) {
  const double zero = 0, off = 0.5 * h * (zero + zero);
  for (int i = 0; i < m->nM; i++) d->qH[i] = d->qM[i] - off;
  if (m->opt.disableflags & IMP_DSBL_PASSIVE) return;
  for (int i = 0; i < m->nv; i++) {
    int a = m->dof_Madr[i];
    double dl = zero - m->dof_damping[i];
    d->qH[a] = d->qM[a] - 0.5 * h * (dl + dl);
  }
}

/* Eq. (1)'s matrix, factored: D's parts by integrator (header), into qH the
   symmetric one, M - h (Dl + Du)/2 without the Coriolis terms; for implicit
   also M - h D with them, into the LU factor. */
void imp_factor_damped(const imp_model* m, imp_data* d) {
  const double h = m->opt.timestep;
  if (m->opt.integrator == IMP_INT_EULER) { /* no D to build: damping alone */
    euler_damped_matrix(m, d, h);
    imp_factor_sparse(m, d->qH, d->qHDiagInv, d->qH);
    return;
  }
  size_t mark = imp_stack_mark(d);
  double* Dl = imp_stack_alloc(d, m->nM);
  double* Du = imp_stack_alloc(d, m->nM);
  imp_zero(Dl, m->nM);
  imp_zero(Du, m->nM);
  imp_deriv_passive_vel(m, Dl, Du);
  imp_deriv_actuator_vel(m, d, Dl, Du);
  imp_deriv_fluid_vel(m, d, Dl, Du);
  imp_deriv_tendon_vel(m, d, Dl, Du); /* explicit under Euler, as in MuJoCo (above) */
  for (int i = 0; i < m->nM; i++) d->qH[i] = d->qM[i] - 0.5 * h * (Dl[i] + Du[i]);
  imp_factor_sparse(m, d->qH, d->qHDiagInv, d->qH);
  if (m->opt.integrator == IMP_INT_IMPLICIT) {
    imp_deriv_rne_vel(m, d, Dl, Du);
    implicit_matrix(m, d->qLU, d->qM, Dl, h);
    implicit_matrix(m, d->qLUt, d->qM, Du, h);
    imp_factor_lu(m, d->qLU, d->qLUt, d->qLUDiagInv);
  }
  imp_stack_release(d, mark);
}

void imp_implicit_solve(const imp_model* m, const imp_data* d, double* x, const double* y) {
  if (m->opt.integrator == IMP_INT_IMPLICIT)
    imp_solve_lu(m, d->qLU, d->qLUt, d->qLUDiagInv, x, y);
  else
    imp_solve_sparse(m, d->qH, d->qHDiagInv, x, y);
}

