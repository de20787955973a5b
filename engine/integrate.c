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
 * The integrators differ in D (dynamics.c computes its parts):
 *   Euler         joint damping only, D = -diag(b): M + h diag(b), L'DL
 *                 (tendon damping stays explicit, as in MuJoCo);
 *   implicitfast  joint and tendon damping and actuator velocity terms
 *                 (gain g2 ctrl and bias b2 through the transmission:
 *                 gear^2 dp/dldot, times J'J for a tendon's), a tendon's
 *                 J'J kept on M's pattern only (tendon.c, as MuJoCo 2.2.2),
 *                 without the derivatives of the Coriolis and centrifugal
 *                 forces, and symmetrized D <- (D + D')/2: L'DL;
 *   implicit      those plus -d(C(q, v) v)/dv by the tangent of RNE; D is
 *                 unsymmetric with the pattern of M, so M - h D = U D L
 *                 (inertia.c, no fill-in).
 * With joint transmissions D of Euler and implicitfast is diagonal, and
 * a stiff servo p = kp (ctrl - q) - kv v steps as implicit Euler in its
 * damping: (M + h kv) v+ = (M + h kv) v + h (kp (ctrl - q) - kv v + ...).
 *
 * Constraints: the contact stage poses its problem on the velocity the step
 * ends with, so it uses the step's matrix (contact.c): u_free = v + h (M -
 * h D)^-1 f, A = K (M - h D)^-1 K', and the impulses enter as
 * v+ = u_free + (M - h D)^-1 K' f_c. A solver needs A symmetric, so the
 * impulses of implicit go through implicitfast's symmetric matrix (qH)
 * while its smooth forces use the full LU; the step still ends exactly at
 * the velocity the contact stage solved for. qacc stays M^-1 (f + K' f_c / h),
 * the continuous-time acceleration, as MuJoCo reports it.
 *
 * Positions advance with the new velocity through each joint's kinematic
 * map qdot = G(q) u; for ball and free joints the angular block is
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
    imp_forward_skip_sensor(m, d); /* the step's sensors are those of its start */
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
