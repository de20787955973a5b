/* Smooth forces: joint springs and damping, actuators, bias forces by
   recursive Newton-Euler, and the unconstrained acceleration. */
#include <math.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "core/spatial.h"

/* Rotation vector taking quaternion b to a, in b's frame: a = b * exp(r). */
static void quat_difference(double r[3], const double a[4], const double b[4]) {
  double bc[4], dq[4], axis[3];
  imp_quat_conj(bc, b);
  imp_quat_mul(dq, bc, a);
  if (dq[0] < 0)
    for (int i = 0; i < 4; i++) dq[i] = -dq[i];
  for (int i = 0; i < 3; i++) axis[i] = dq[1 + i];
  double s = imp_normalize3(axis);
  double angle = 2 * atan2(s, dq[0]);
  for (int i = 0; i < 3; i++) r[i] = s > IMP_MINVAL ? axis[i] * angle : 0;
}

static void add_body_force(const imp_model* m, imp_data* d, int b, const double frc[6],
                           double* qfrc);

/* Gravity compensation (MJCF body gravcomp): an upward force of gravcomp
   times the body's weight at its centre of mass, -gravcomp m g, into
   qfrc_gravcomp; nothing when gravity is disabled. It is a passive force,
   except on the dofs of joints with actuatorgravcomp, where it is added to
   the actuator force (imp_actuation) and clamped with it by
   actuatorfrcrange (MuJoCo 3.x). */
static void gravcomp(const imp_model* m, imp_data* d) {
  imp_zero(d->qfrc_gravcomp, m->nv);
  if (m->opt.disableflags & IMP_DSBL_GRAVITY) return;
  for (int b = 1; b < m->nbody; b++) {
    double s = m->body_gravcomp[b] * m->body_mass[b];
    if (s == 0) continue;
    double frc[6] = {-s * m->opt.gravity[0], -s * m->opt.gravity[1], -s * m->opt.gravity[2]};
    add_body_force(m, d, b, frc, d->qfrc_gravcomp);
  }
  for (int i = 0; i < m->nv; i++)
    if (!m->jnt_actgravcomp[m->dof_jntid[i]]) d->qfrc_passive[i] += d->qfrc_gravcomp[i];
}

/* Fluid forces, MuJoCo's inertia model (mujoco.readthedocs.io, Computation,
   Fluid forces): each body moves through the medium as its equivalent
   inertia box, half sizes r_i = sqrt(3 / (2 M) (I_j + I_k - I_i)) from its
   principal inertia, and with v, w its centre of mass's velocity relative
   to the wind and its angular velocity, both in the inertia frame, meets
   per axis i (j, k the others)
     quadratic drag   f_i = -2 rho r_j r_k |v_i| v_i
                      g_i = -rho r_i (r_j^4 + r_k^4) |w_i| w_i / 2
     viscous (Stokes) f_i = -6 beta pi r_eq v_i,  g_i = -8 beta pi r_eq^3 w_i
   with r_eq = (r_x + r_y + r_z) / 3, at its centre of mass. Implicit in
   the implicit integrators (imp_deriv_fluid_vel), explicit under Euler, as
   in MuJoCo 2.2.2. */
/* 1 when the medium exerts forces */
int imp_has_fluid(const imp_model* m) { return m->opt.density > 0 || m->opt.viscosity > 0; }

/* Body b's equivalent inertia box (half sizes r); 0 for a massless body. */
static int inertia_box(const imp_model* m, int b, double r[3]) {
  double mass = m->body_mass[b];
  if (!(mass > IMP_MINVAL)) return 0;
  const double* I = m->body_inertia + 3 * b;
  for (int i = 0; i < 3; i++) {
    double s = I[(i + 1) % 3] + I[(i + 2) % 3] - I[i];
    r[i] = sqrt(fmax(s, 0.0) * 1.5 / mass);
  }
  return 1;
}

/* Body b's centre-of-mass velocity relative to the wind, v, and angular
   velocity w, both in its inertia frame (cvel is (w, v) at the tree's
   reference point); *arm gets xipos - that point. */
static void fluid_velocity(const imp_model* m, const imp_data* d, int b, double v[3], double w[3],
                           double arm[3]) {
  const double* cv = d->cvel + 6 * b;
  const double* ref = d->subtree_com + 3 * m->body_rootid[b];
  for (int i = 0; i < 3; i++) arm[i] = d->xipos[3 * b + i] - ref[i];
  double vw[3];
  imp_cross(vw, cv, arm);
  for (int i = 0; i < 3; i++) vw[i] += cv[3 + i] - m->opt.wind[i];
  const double* R = d->ximat + 9 * b;
  imp_mat3T_vec(v, R, vw);
  imp_mat3T_vec(w, R, cv);
}

static void fluid_forces(const imp_model* m, imp_data* d) {
  if (!imp_has_fluid(m)) return;
  double rho = m->opt.density, beta = m->opt.viscosity;
  for (int b = 1; b < m->nbody; b++) {
    double r[3], v[3], w[3], arm[3];
    if (!inertia_box(m, b, r)) continue;
    fluid_velocity(m, d, b, v, w, arm);
    const double* R = d->ximat + 9 * b;
    double req = (r[0] + r[1] + r[2]) / 3, fl[3], gl[3];
    for (int i = 0; i < 3; i++) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      double rj4 = r[j] * r[j] * r[j] * r[j], rk4 = r[k] * r[k] * r[k] * r[k];
      fl[i] = -2 * rho * r[j] * r[k] * fabs(v[i]) * v[i] - 6 * beta * IMP_PI * req * v[i];
      gl[i] = -0.5 * rho * r[i] * (rj4 + rk4) * fabs(w[i]) * w[i] -
              8 * beta * IMP_PI * req * req * req * w[i];
    }
    double frc[6];
    imp_mat3_vec(frc, R, fl);
    imp_mat3_vec(frc + 3, R, gl);
    add_body_force(m, d, b, frc, d->qfrc_passive);
  }
}

void imp_passive(const imp_model* m, imp_data* d) {
  imp_zero(d->qfrc_passive, m->nv);
  if (m->opt.disableflags & IMP_DSBL_PASSIVE) {
    imp_zero(d->qfrc_gravcomp, m->nv);
    return;
  }
  for (int j = 0; j < m->njnt; j++) {
    double k = m->jnt_stiffness[j];
    if (k == 0) continue;
    int qa = m->jnt_qposadr[j], va = m->jnt_dofadr[j];
    const double* q = d->qpos + qa;
    const double* q0 = m->qpos_spring + qa;
    double r[3];
    switch (m->jnt_type[j]) {
      case IMP_JNT_HINGE:
      case IMP_JNT_SLIDE:
        d->qfrc_passive[va] -= k * (q[0] - q0[0]);
        break;
      case IMP_JNT_BALL:
        quat_difference(r, q, q0);
        for (int i = 0; i < 3; i++) d->qfrc_passive[va + i] -= k * r[i];
        break;
      case IMP_JNT_FREE:
        for (int i = 0; i < 3; i++) d->qfrc_passive[va + i] -= k * (q[i] - q0[i]);
        quat_difference(r, q + 3, q0 + 3);
        for (int i = 0; i < 3; i++) d->qfrc_passive[va + 3 + i] -= k * r[i];
        break;
    }
  }
  for (int i = 0; i < m->nv; i++) d->qfrc_passive[i] -= m->dof_damping[i] * d->qvel[i];
  imp_tendon_passive(m, d);
  gravcomp(m, d);
  fluid_forces(m, d);
}

static void actuator_forces(const imp_model* m, imp_data* d);

static double clamp(double x, const double range[2]) {
  return x < range[0] ? range[0] : (x > range[1] ? range[1] : x);
}

/* Each actuator's transmission (transmission.c: length, moment,
   velocity = moment qvel), its activation
   derivative and force law (activation.c: gain * ctrl or act + bias),
   clamped to forcerange when limited. Then per joint (MuJoCo 3.x):
   gravity compensation joins the actuator force of a joint with
   actuatorgravcomp, and the total on a joint with actuatorfrclimited is
   clamped to its actuatorfrcrange (a motor's torque limit however many
   actuators drive it). */
void imp_actuation(const imp_model* m, imp_data* d) {
  imp_transmission(m, d);
  imp_actuator_velocity(m, d);
  imp_actuation_forces(m, d);
}

void imp_actuation_forces(const imp_model* m, imp_data* d) {
  imp_zero(d->qfrc_actuator, m->nv);
  actuator_forces(m, d);
  if (m->opt.disableflags & IMP_DSBL_ACTUATION) return;
  for (int j = 0; j < m->njnt; j++) {
    int va = m->jnt_dofadr[j], ndof = m->jnt_type[j] == IMP_JNT_FREE   ? 6
                                      : m->jnt_type[j] == IMP_JNT_BALL ? 3
                                                                       : 1;
    if (m->jnt_actgravcomp[j])
      for (int k = 0; k < ndof; k++) d->qfrc_actuator[va + k] += d->qfrc_gravcomp[va + k];
    if (m->jnt_actfrclimited[j]) /* hinge and slide only (the loader) */
      d->qfrc_actuator[va] = clamp(d->qfrc_actuator[va], m->jnt_actfrcrange + 2 * j);
  }
}

/* MuJoCo 3.x, tendon actuatorfrcrange: when the actuators on a tendon
   with actuatorfrclimited together pull outside its range, each one's
   force is scaled so that their sum is the range's nearer end (before
   each actuator's own forcerange). */
static void scale_tendon_forces(const imp_model* m, imp_data* d) {
  for (int t = 0; t < m->ntendon; t++) {
    if (!m->tendon_actfrclimited[t]) continue;
    double total = 0;
    for (int u = 0; u < m->nu; u++)
      if (m->actuator_trntype[u] == IMP_TRN_TENDON && m->actuator_trnid[2 * u] == t)
        total += d->actuator_force[u];
    const double* range = m->tendon_actfrcrange + 2 * t;
    double scale = total < range[0] ? range[0] / total : total > range[1] ? range[1] / total : 1;
    if (total == 0 || scale == 1) continue;
    for (int u = 0; u < m->nu; u++)
      if (m->actuator_trntype[u] == IMP_TRN_TENDON && m->actuator_trnid[2 * u] == t)
        d->actuator_force[u] *= scale;
  }
}

/* Each actuator's force and its generalized force through its
   transmission, moment' force (transmission.c). */
static void actuator_forces(const imp_model* m, imp_data* d) {
  int off = (m->opt.disableflags & IMP_DSBL_ACTUATION) != 0;
  for (int u = 0; u < m->nu; u++) {
    d->actuator_force[u] = 0;
    if (off) { /* activations hold (integrate.c) */
      for (int k = 0; k < m->actuator_actnum[u]; k++) d->act_dot[m->actuator_actadr[u] + k] = 0;
      continue;
    }
    imp_actuator_act_dot(m, d, u);
    d->actuator_force[u] = imp_actuator_force_law(m, d, u);
  }
  if (off) return;
  scale_tendon_forces(m, d);
  for (int u = 0; u < m->nu; u++) {
    double f = d->actuator_force[u];
    if (m->actuator_forcelimited[u]) f = clamp(f, m->actuator_forcerange + 2 * u);
    d->actuator_force[u] = f;
    int a = m->actuator_dofadr[u];
    if (f != 0)
      imp_add_scl(d->qfrc_actuator + a, d->actuator_moment + (size_t)u * m->nv + a, f,
                  m->actuator_dofnum[u]);
  }
}

/* ---- velocity derivatives of the smooth forces (the implicit integrators,
   integrate.c). D is tree-sparse like qM: Dl[adr(i, j)] = D_ij and
   Du[adr(i, j)] = D_ji for j an ancestor of i or i itself, adr(i, j) =
   dof_Madr[i] + the steps from i up to j; both hold the diagonal. ---- */

/* dp/dldot of actuator u (imp_actuator_dforce_dvel, activation.c): the
   gain's velocity slope (affine g2, or the muscle's) times its input, ctrl
   or act, + b2 (affine bias), of the force law before forcerange, as
   MuJoCo 2.2.2's implicit integrator takes it (test_mujoco_implicit.c). The clamped force's own derivative, 0, is
   no better a linearization: a servo whose linear band is narrower than one
   explicit kick (kv gear^2 h / I >> 1, Menagerie's kinova) then jumps
   across the band every step and chatters at full force, while the
   unclamped slope keeps pulling it into the band (measured on a hinge with
   kp 1000, kv 100, gear 2, forcerange 30, h 0.01: settles in 60 steps
   this way, chatters at +-30 for good the other). */
/* qfrc = moment' p(length, moment qvel), so d qfrc / d qvel = dp/dldot
   moment' moment: on a hinge's or slide's dof gear^2 dp/dldot, along a
   tendon gear^2 dp/dldot J' J; kept on qM's pattern (imp_add_outer_dense,
   as MuJoCo 2.2.2; test_mujoco_implicit.c). */
void imp_deriv_actuator_vel(const imp_model* m, const imp_data* d, double* Dl, double* Du) {
  if (m->opt.disableflags & IMP_DSBL_ACTUATION) return;
  for (int u = 0; u < m->nu; u++) {
    double s = imp_actuator_dforce_dvel(m, d, u);
    if (s != 0)
      imp_add_outer_dense(m, d->actuator_moment + (size_t)u * m->nv, m->actuator_dofadr[u],
                          m->actuator_dofnum[u], s, Dl, Du);
  }
}

/* Dl, Du += d qfrc_fluid / d qvel. Per body the forces are diagonal in
   its inertia frame, so with J the Jacobian of (centre of mass velocity,
   angular velocity), d qfrc / d qvel = J' blockdiag(R Df R', R Dg R') J,
   Df_i = -4 rho r_j r_k |v_i| - 6 beta pi r_eq and Dg_i = -rho r_i (r_j^4 +
   r_k^4) |w_i| - 8 beta pi r_eq^3: symmetric, non-zero on the dofs of the
   body's chain to the root (the pattern of qM). */
void imp_deriv_fluid_vel(const imp_model* m, imp_data* d, double* Dl, double* Du) {
  if (!imp_has_fluid(m) || (m->opt.disableflags & IMP_DSBL_PASSIVE)) return;
  double rho = m->opt.density, beta = m->opt.viscosity;
  size_t mark = imp_stack_mark(d);
  int* chain = imp_stack_alloc_int(d, m->nv);
  double* col = imp_stack_alloc(d, 6 * (size_t)m->nv); /* lin, ang per chain dof */
  for (int b = 1; b < m->nbody; b++) {
    double r[3], v[3], w[3], arm[3];
    if (!inertia_box(m, b, r)) continue;
    int tip = -1;
    for (int a = b; a > 0 && tip < 0; a = m->body_parentid[a])
      if (m->body_dofnum[a] > 0) tip = m->body_dofadr[a] + m->body_dofnum[a] - 1;
    if (tip < 0) continue;
    fluid_velocity(m, d, b, v, w, arm);
    const double* R = d->ximat + 9 * b;
    double req = (r[0] + r[1] + r[2]) / 3, Bl[9], Ba[9];
    for (int p = 0; p < 3; p++)
      for (int q = 0; q < 3; q++) Bl[3 * p + q] = Ba[3 * p + q] = 0;
    for (int i = 0; i < 3; i++) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      double rj4 = r[j] * r[j] * r[j] * r[j], rk4 = r[k] * r[k] * r[k] * r[k];
      double df = -4 * rho * r[j] * r[k] * fabs(v[i]) - 6 * beta * IMP_PI * req;
      double dg = -rho * r[i] * (rj4 + rk4) * fabs(w[i]) - 8 * beta * IMP_PI * req * req * req;
      for (int p = 0; p < 3; p++) /* += df R_i R_i' (R_i the i-th axis, column i of R) */
        for (int q = 0; q < 3; q++) {
          Bl[3 * p + q] += df * R[3 * p + i] * R[3 * q + i];
          Ba[3 * p + q] += dg * R[3 * p + i] * R[3 * q + i];
        }
    }
    int n = 0;
    for (int k = tip; k >= 0; k = m->dof_parentid[k]) {
      const double* s = d->cdof + 6 * k; /* (angular, linear at the reference point) */
      double* c = col + 6 * n;
      imp_cross(c, s, arm);
      for (int a = 0; a < 3; a++) c[a] += s[3 + a], c[3 + a] = s[a];
      chain[n++] = k;
    }
    for (int a = 0; a < n; a++) { /* chain[c] for c >= a is chain[a] or its ancestor */
      double Bc[6];
      imp_mat3_vec(Bc, Bl, col + 6 * a);
      imp_mat3_vec(Bc + 3, Ba, col + 6 * a + 3);
      for (int c = a; c < n; c++) {
        double val = imp_dot(Bc, col + 6 * c, 6);
        int adr = m->dof_Madr[chain[a]] + (c - a);
        Dl[adr] += val;
        Du[adr] += val;
      }
    }
  }
  imp_stack_release(d, mark);
}

/* Joint damping: d(-b_i v_i)/d v_i = -b_i, on the diagonal. */
void imp_deriv_passive_vel(const imp_model* m, double* Dl, double* Du) {
  if (m->opt.disableflags & IMP_DSBL_PASSIVE) return;
  for (int i = 0; i < m->nv; i++) {
    Dl[m->dof_Madr[i]] -= m->dof_damping[i];
    Du[m->dof_Madr[i]] -= m->dof_damping[i];
  }
}

/* Recursive Newton-Euler with zero joint acceleration (Featherstone, RBDA,
   sec. 5.3): gravity enters as a base acceleration of -g. */
void imp_rne(const imp_model* m, imp_data* d) {
  size_t mark = imp_stack_mark(d);
  double* cacc = imp_stack_alloc(d, 6 * m->nbody);
  double* cfrc = imp_stack_alloc(d, 6 * m->nbody);
  imp_zero(cacc, 6);
  if (!(m->opt.disableflags & IMP_DSBL_GRAVITY)) imp_scl(cacc + 3, m->opt.gravity, -1, 3);
  for (int b = 1; b < m->nbody; b++) {
    double* a = cacc + 6 * b;
    double Iv[6], tmp[6];
    imp_copy(a, cacc + 6 * m->body_parentid[b], 6);
    for (int i = 0; i < m->body_dofnum[b]; i++) {
      int k = m->body_dofadr[b] + i;
      imp_add_scl(a, d->cdof_dot + 6 * k, d->qvel[k], 6);
    }
    /* f = I a + v x* (I v) */
    imp_mul_inert_vec(cfrc + 6 * b, d->cinert + 10 * b, a);
    imp_mul_inert_vec(Iv, d->cinert + 10 * b, d->cvel + 6 * b);
    imp_cross_force(tmp, d->cvel + 6 * b, Iv);
    imp_add_scl(cfrc + 6 * b, tmp, 1, 6);
  }
  for (int b = m->nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    if (p > 0) imp_add_scl(cfrc + 6 * p, cfrc + 6 * b, 1, 6);
  }
  for (int i = 0; i < m->nv; i++)
    d->qfrc_bias[i] = imp_dot(d->cdof + 6 * i, cfrc + 6 * m->dof_bodyid[i], 6);
  imp_stack_release(d, mark);
}

/* Tangent of imp_com_vel and the forward pass of imp_rne at body b in the
   direction e_j of qvel (every line differentiated; gravity is constant):
     dcvel_b = dcvel_p + sum_k cdof_k de_k
     dcdof_dot_k = dv ×m cdof_k         (dv: the tangent of the velocity the
                                        axis is carried by, as in imp_com_vel)
     dacc_b = dacc_p + sum_k (dcdof_dot_k qvel_k + cdof_dot_k de_k)
     df_b = I dacc_b + dcvel_b ×f (I cvel_b) + cvel_b ×f (I dcvel_b)
   de_k = 1 for k = j, else 0. The parent's tangents are zero outside the
   subtree of j's body (the caller starts there). */
static void rne_tangent_body(const imp_model* m, const imp_data* d, int b, int j, double* dcvel,
                             double* dacc, double* dfrc) {
  int p = m->body_parentid[b];
  double dv[6], da[6], dcdot[6], t1[6], t2[6];
  imp_copy(dv, dcvel + 6 * p, 6);
  imp_copy(da, dacc + 6 * p, 6);
  for (int n = 0; n < m->body_jntnum[b]; n++) {
    int jnt = m->body_jntadr[b] + n, adr = m->jnt_dofadr[jnt];
    int type = m->jnt_type[jnt], ndof = type == IMP_JNT_FREE ? 6 : type == IMP_JNT_BALL ? 3 : 1;
    const double* cdof = d->cdof + 6 * adr;
    if (type == IMP_JNT_HINGE || type == IMP_JNT_SLIDE) { /* carried before the joint */
      imp_cross_motion(dcdot, dv, cdof);
      imp_add_scl(da, dcdot, d->qvel[adr], 6);
    }
    for (int i = 0; i < ndof; i++)
      if (adr + i == j) {
        imp_add_scl(dv, cdof + 6 * i, 1, 6);
        imp_add_scl(da, d->cdof_dot + 6 * (adr + i), 1, 6);
      }
    if (type == IMP_JNT_BALL || type == IMP_JNT_FREE) /* carried after the joint */
      for (int i = type == IMP_JNT_FREE ? 3 : 0; i < ndof; i++) {
        imp_cross_motion(dcdot, dv, cdof + 6 * i);
        imp_add_scl(da, dcdot, d->qvel[adr + i], 6);
      }
  }
  imp_copy(dcvel + 6 * b, dv, 6);
  imp_copy(dacc + 6 * b, da, 6);
  const double* I = d->cinert + 10 * b;
  const double* v = d->cvel + 6 * b;
  imp_mul_inert_vec(dfrc + 6 * b, I, da);
  imp_mul_inert_vec(t1, I, v);
  imp_cross_force(t2, dv, t1);
  imp_add_scl(dfrc + 6 * b, t2, 1, 6);
  imp_mul_inert_vec(t1, I, dv);
  imp_cross_force(t2, v, t1);
  imp_add_scl(dfrc + 6 * b, t2, 1, 6);
}

/* Steps from dof i up its ancestor chain to dof j; -1 when j is not on it. */
static int chain_offset(const imp_model* m, int i, int j) {
  int t = 0;
  for (; i >= 0 && i != j; i = m->dof_parentid[i]) t++;
  return i == j ? t : -1;
}

/* Dl, Du -= d qfrc_bias / d qvel: column j by the tangent of RNE in the
   direction e_j, which moves only the subtree of j's body (its velocities
   and accelerations) and so the forces of that subtree and of its
   ancestors. Nonzeros are therefore on j's ancestors and descendants, the
   pattern of qM (rows below j go to Dl, rows at and above j to Du). Needs
   cdof, cinert, cvel, cdof_dot of this forward; O(nv nbody). */
void imp_deriv_rne_vel(const imp_model* m, imp_data* d, double* Dl, double* Du) {
  size_t mark = imp_stack_mark(d);
  double* dcvel = imp_stack_alloc(d, 6 * m->nbody);
  double* dacc = imp_stack_alloc(d, 6 * m->nbody);
  double* dfrc = imp_stack_alloc(d, 6 * m->nbody);
  int* insub = imp_stack_alloc_int(d, m->nbody);
  for (int j = 0; j < m->nv; j++) {
    int bj = m->dof_bodyid[j];
    imp_zero(dcvel, 6 * m->nbody);
    imp_zero(dacc, 6 * m->nbody);
    imp_zero(dfrc, 6 * m->nbody);
    insub[0] = 0;
    for (int b = 1; b < m->nbody; b++) {
      insub[b] = b == bj || insub[m->body_parentid[b]];
      if (insub[b]) rne_tangent_body(m, d, b, j, dcvel, dacc, dfrc);
    }
    for (int b = m->nbody - 1; b > 0; b--) {
      int p = m->body_parentid[b];
      if (p > 0) imp_add_scl(dfrc + 6 * p, dfrc + 6 * b, 1, 6);
    }
    /* rows at and above j: entry (i, j) stored transposed in row j */
    int t = 0;
    for (int i = j; i >= 0; i = m->dof_parentid[i], t++) {
      double dij = imp_dot(d->cdof + 6 * i, dfrc + 6 * m->dof_bodyid[i], 6);
      Du[m->dof_Madr[j] + t] -= dij;
      if (i == j) Dl[m->dof_Madr[j]] -= dij;
    }
    /* rows below j: its descendants, the dofs of the subtree after j */
    for (int i = j + 1; i < m->nv; i++) {
      if (!insub[m->dof_bodyid[i]]) continue;
      int off = chain_offset(m, i, j);
      if (off > 0)
        Dl[m->dof_Madr[i] + off] -= imp_dot(d->cdof + 6 * i, dfrc + 6 * m->dof_bodyid[i], 6);
    }
  }
  imp_stack_release(d, mark);
}

/* Generalized force of a world force and torque applied at a body's centre
   of mass: J' f, walking the dofs from the body to the root. */
static void add_body_force(const imp_model* m, imp_data* d, int b, const double frc[6],
                           double* qfrc) {
  const double* ref = d->subtree_com + 3 * m->body_rootid[b];
  double r[3] = {d->xipos[3 * b] - ref[0], d->xipos[3 * b + 1] - ref[1],
                 d->xipos[3 * b + 2] - ref[2]};
  double f[6];
  imp_cross(f, r, frc); /* torque about the reference point */
  for (int i = 0; i < 3; i++) {
    f[i] += frc[3 + i];
    f[3 + i] = frc[i];
  }
  int dof = -1;
  for (int a = b; a > 0 && dof < 0; a = m->body_parentid[a])
    if (m->body_dofnum[a] > 0) dof = m->body_dofadr[a] + m->body_dofnum[a] - 1;
  for (; dof >= 0; dof = m->dof_parentid[dof]) qfrc[dof] += imp_dot(d->cdof + 6 * dof, f, 6);
}

void imp_smooth_acc(const imp_model* m, imp_data* d) {
  for (int i = 0; i < m->nv; i++)
    d->qfrc_smooth[i] = d->qfrc_passive[i] + d->qfrc_actuator[i] + d->qfrc_applied[i] - d->qfrc_bias[i];
  for (int b = 1; b < m->nbody; b++) {
    const double* frc = d->xfrc_applied + 6 * b;
    if (imp_max_abs(frc, 6) > 0) add_body_force(m, d, b, frc, d->qfrc_smooth);
  }
  imp_solve_sparse(m, d->qLD, d->qLDiagInv, d->qacc_smooth, d->qfrc_smooth);
}
