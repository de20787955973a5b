/* Actuator dynamics and force laws: what an actuator does with its control
 * once the transmission (dynamics.c) has given its length and velocity.
 *
 * MuJoCo's actuator model (mujoco.readthedocs.io, Computation > Actuation
 * model; MJCF reference, actuator/general):
 *
 *   force = gain(length, velocity) * input + bias(length, velocity)
 *   input = ctrl (clamped to ctrlrange)    without a state (dyntype none)
 *         = act                            with one (the last activation)
 *         = act after this step's update   with actearly (MuJoCo 3.x)
 *
 * and the activation follows act_dot by dyntype:
 *   integrator   act_dot = ctrl
 *   filter       act_dot = (ctrl - act) / tau,  tau = dynprm[0]
 *   filterexact  the same act_dot; the step integrates it exactly:
 *                act+ = act + (ctrl - act) (1 - exp(-h / tau))
 *   muscle       act_dot = (c - act) / tau(act, c - act), c = ctrl clamped
 *                to [0, 1] (below)
 *   user         0: there are no callbacks (MuJoCo without mjcb_act_dyn)
 * Every other type steps by Euler, act+ = act + h act_dot, and the result is
 * clamped to actrange when actlimited (Computation > Activation clamping).
 *
 * Muscles (Computation > Muscles; MJCF reference, actuator/muscle). The
 * parameters are range (r0, r1), force F, scale, lmin, lmax, vmax, fpmax,
 * fvmax. With the actuator's lengthrange (l_min, l_max), the optimal length
 * is L0 = (l_max - l_min) / (r1 - r0), the normalized length
 * L = r0 + (length - l_min) / L0 and velocity V = velocity / (L0 vmax).
 * The peak force F, when negative, is scale / acc0 (acc0: the acceleration
 * unit actuator force gives at qpos0, compile time). Then
 *   gain = -F FL(L) FV(V),  bias = -F FP(L), force = gain act + bias,
 * FL: two half-quadratic bumps from 0 at lmin to 1 at L = 1 and back to 0
 * at lmax, joined at a = (lmin + 1) / 2 and b = (1 + lmax) / 2:
 *   FL = x^2 / 2, x = (L - lmin) / (a - lmin)         lmin <= L <= a
 *   FL = 1 - x^2 / 2, x = (1 - L) / (1 - a)          a <= L <= 1
 *   FL = 1 - x^2 / 2, x = (L - 1) / (b - 1)          1 <= L <= b
 *   FL = x^2 / 2, x = (lmax - L) / (lmax - b)         b <= L <= lmax
 * FV: 0 for V <= -1, (V + 1)^2 up to V = 0, fvmax - (y - V)^2 / y up to
 *   V = y = fvmax - 1, then fvmax (shortening is V < 0: force drops);
 * FP: 0 for L <= 1, fpmax x^2 / 2 with x = (L - 1) / (b - 1) up to b, then
 *   fpmax (1/2 + (L - b) / (b - 1)), linear.
 * Activation: time constants tau_act (0.5 + 1.5 act) rising and
 * tau_deact / (0.5 + 1.5 act) falling, act clamped to [0, 1] in them
 * (Millard et al. 2013); with tausmooth w > 0 the switch is blended,
 * tau = tau_deact + (tau_act - tau_deact) s((c - act) / w + 1/2), s the
 * quintic smoothstep 6x^5 - 15x^4 + 10x^3 on [0, 1] (MuJoCo 3.x).
 * (MuJoCo 2.2.2 differs below lmin: its first FL branch tests L >= lmin
 * and the next only L <= 1, so FL there is 1 - x^2/2, negative far out;
 * 3.x and the documentation give 0, as here.)
 * Divisions are guarded by IMP_MINVAL as MuJoCo guards them, so a
 * degenerate parameter gives a finite force, not a NaN. */
#include <math.h>

#include "engine.h"
#include "core/mathx.h"

static double clamp_to(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* guarded divisor: never below IMP_MINVAL */
static double pos(double x) { return x > IMP_MINVAL ? x : IMP_MINVAL; }

double imp_actuator_ctrl(const imp_model* m, const imp_data* d, int u) {
  double ctrl = d->ctrl[u];
  if (m->actuator_ctrllimited[u] && !(m->opt.disableflags & IMP_DSBL_CLAMPCTRL))
    ctrl = clamp_to(ctrl, m->actuator_ctrlrange[2 * u], m->actuator_ctrlrange[2 * u + 1]);
  return ctrl;
}

/* ---- muscle curves (header) ---- */

/* FL(L): the active force-length curve */
static double muscle_fl(double L, double lmin, double lmax) {
  if (!(L >= lmin && L <= lmax)) return 0;
  double a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax), x;
  if (L <= a) {
    x = (L - lmin) / pos(a - lmin);
    return 0.5 * x * x;
  }
  if (L <= 1) {
    x = (1 - L) / pos(1 - a);
    return 1 - 0.5 * x * x;
  }
  if (L <= b) {
    x = (L - 1) / pos(b - 1);
    return 1 - 0.5 * x * x;
  }
  x = (lmax - L) / pos(lmax - b);
  return 0.5 * x * x;
}

/* FV(V) and its derivative dFV/dV: the force-velocity curve */
static double muscle_fv(double V, double fvmax, double* dfv) {
  double y = fvmax - 1;
  if (V <= -1) {
    *dfv = 0;
    return 0;
  }
  if (V <= 0) {
    *dfv = 2 * (V + 1);
    return (V + 1) * (V + 1);
  }
  if (V <= y) {
    *dfv = 2 * (y - V) / pos(y);
    return fvmax - (y - V) * (y - V) / pos(y);
  }
  *dfv = 0;
  return fvmax;
}

/* peak force: F, or scale / acc0 when F < 0 */
static double muscle_peak(const double* prm, double acc0) {
  return prm[2] < 0 ? prm[3] / pos(acc0) : prm[2];
}

/* optimal length L0 and the normalized length L of actuator length len */
static double muscle_length(double len, const double lengthrange[2], const double* prm,
                            double* L0) {
  *L0 = (lengthrange[1] - lengthrange[0]) / pos(prm[1] - prm[0]);
  return prm[0] + (len - lengthrange[0]) / pos(*L0);
}

double imp_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                       const double* prm, double* dgain_dvel) {
  double L0, L = muscle_length(len, lengthrange, prm, &L0);
  double vscale = pos(L0 * prm[6]);
  double dfv, fv = muscle_fv(vel / vscale, prm[8], &dfv);
  double f = muscle_peak(prm, acc0) * muscle_fl(L, prm[4], prm[5]);
  if (dgain_dvel) *dgain_dvel = -f * dfv / vscale;
  return -f * fv;
}

double imp_muscle_bias(double len, const double lengthrange[2], double acc0, const double* prm) {
  double L0, L = muscle_length(len, lengthrange, prm, &L0);
  double b = 0.5 * (1 + prm[5]), fp;
  if (L <= 1) return 0;
  if (L <= b) {
    double x = (L - 1) / pos(b - 1);
    fp = 0.5 * x * x;
  } else {
    fp = 0.5 + (L - b) / pos(b - 1);
  }
  return -muscle_peak(prm, acc0) * prm[7] * fp;
}

/* the quintic smoothstep on [0, 1] */
static double smoothstep5(double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return x * x * x * (x * (6 * x - 15) + 10);
}

double imp_muscle_act_dot(double ctrl, double act, const double* prm) {
  double c = clamp_to(ctrl, 0, 1), a = clamp_to(act, 0, 1);
  double tau_act = prm[0] * (0.5 + 1.5 * a), tau_deact = prm[1] / (0.5 + 1.5 * a);
  double excess = c - act, tau;
  if (prm[2] < IMP_MINVAL) tau = excess > 0 ? tau_act : tau_deact;
  else tau = tau_deact + (tau_act - tau_deact) * smoothstep5(excess / prm[2] + 0.5);
  return excess / pos(tau);
}

/* ---- activation ---- */

void imp_actuator_act_dot(const imp_model* m, imp_data* d, int u) {
  int n = m->actuator_actnum[u];
  if (!n) return;
  double* act_dot = d->act_dot + m->actuator_actadr[u];
  const double* act = d->act + m->actuator_actadr[u];
  const double* prm = m->actuator_dynprm + IMP_NGAIN * u;
  int last = n - 1;
  for (int k = 0; k < n; k++) act_dot[k] = 0;
  double ctrl = imp_actuator_ctrl(m, d, u);
  switch (m->actuator_dyntype[u]) {
    case IMP_DYN_INTEGRATOR:
      act_dot[last] = ctrl;
      break;
    case IMP_DYN_FILTER:
    case IMP_DYN_FILTEREXACT:
      act_dot[last] = (ctrl - act[last]) / pos(prm[0]);
      break;
    case IMP_DYN_MUSCLE:
      act_dot[last] = imp_muscle_act_dot(ctrl, act[last], prm);
      break;
    default: /* user: no callback, the state holds */
      break;
  }
}

double imp_next_activation(const imp_model* m, const imp_data* d, int u, int k, double act_dot) {
  double act = d->act[k], h = m->opt.timestep;
  if (m->actuator_dyntype[u] == IMP_DYN_FILTEREXACT) {
    /* act(h) = ctrl + (act - ctrl) e^(-h/tau) = act + act_dot tau (1 - e^(-h/tau)) */
    double tau = pos(m->actuator_dynprm[IMP_NGAIN * u]);
    act += act_dot * tau * (1 - exp(-h / tau));
  } else {
    act += act_dot * h;
  }
  if (m->actuator_actlimited[u])
    act = clamp_to(act, m->actuator_actrange[2 * u], m->actuator_actrange[2 * u + 1]);
  return act;
}

void imp_advance_act(const imp_model* m, imp_data* d, const double* act_dot) {
  if (!m->na || (m->opt.disableflags & IMP_DSBL_ACTUATION)) return;
  for (int u = 0; u < m->nu; u++)
    for (int k = m->actuator_actadr[u]; k < m->actuator_actadr[u] + m->actuator_actnum[u]; k++)
      d->act[k] = imp_next_activation(m, d, u, k, act_dot[k]);
}

/* ---- force ---- */

double imp_actuator_input(const imp_model* m, const imp_data* d, int u) {
  if (!m->actuator_actnum[u]) return imp_actuator_ctrl(m, d, u);
  int k = m->actuator_actadr[u] + m->actuator_actnum[u] - 1;
  if (m->actuator_actearly[u]) return imp_next_activation(m, d, u, k, d->act_dot[k]);
  return d->act[k];
}

/* gain of actuator u; *dgain_dvel its derivative in the actuator velocity */
static double actuator_gain(const imp_model* m, const imp_data* d, int u, double* dgain_dvel) {
  const double* prm = m->actuator_gainprm + IMP_NGAIN * u;
  double l = d->actuator_length[u], ldot = d->actuator_velocity[u];
  switch (m->actuator_gaintype[u]) {
    case IMP_GAIN_AFFINE:
      *dgain_dvel = prm[2];
      return prm[0] + prm[1] * l + prm[2] * ldot;
    case IMP_GAIN_MUSCLE:
      return imp_muscle_gain(l, ldot, m->actuator_lengthrange + 2 * u, m->actuator_acc0[u], prm,
                             dgain_dvel);
    default:
      *dgain_dvel = 0;
      return prm[0];
  }
}

/* bias of actuator u */
static double actuator_bias(const imp_model* m, const imp_data* d, int u) {
  const double* prm = m->actuator_biasprm + IMP_NGAIN * u;
  double l = d->actuator_length[u], ldot = d->actuator_velocity[u];
  switch (m->actuator_biastype[u]) {
    case IMP_BIAS_AFFINE:
      return prm[0] + prm[1] * l + prm[2] * ldot;
    case IMP_BIAS_MUSCLE:
      return imp_muscle_bias(l, m->actuator_lengthrange + 2 * u, m->actuator_acc0[u], prm);
    default:
      return 0;
  }
}

double imp_actuator_force_law(const imp_model* m, const imp_data* d, int u) {
  double dgain;
  return actuator_gain(m, d, u, &dgain) * imp_actuator_input(m, d, u) + actuator_bias(m, d, u);
}

double imp_actuator_dforce_dvel(const imp_model* m, const imp_data* d, int u) {
  double dgain = 0, dp = 0;
  actuator_gain(m, d, u, &dgain);
  if (dgain != 0) dp += dgain * imp_actuator_input(m, d, u);
  if (m->actuator_biastype[u] == IMP_BIAS_AFFINE) dp += m->actuator_biasprm[IMP_NGAIN * u + 2];
  return dp;
}
