/* Actuators of the spec into the model: their transmissions (joint,
 * jointinparent, slider-crank, tendon, site with refsite, body: names
 * resolved, MuJoCo's checks), ctrl/force/act limits with compiler autolimits, position and
 * intvelocity inheritrange, activation addresses and keyframe act,
 * lengthrange (lengthrange.c), acc0 and dampratio from the inertia at
 * qpos0, and the warning for velocity feedback an explicit integrator
 * cannot take. */
#include <math.h>
#include <string.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"

/* position inheritrange X: ctrlrange = the joint's or tendon's range
   scaled by X about its midpoint (MJCF reference, position/inheritrange);
   intvelocity's sets actrange instead, its setpoint being the state
   (intvelocity/inheritrange). It must have a range. */
static void inherit_range(ld_ctx* c, ld_actuator* a, int limited, const double range[2]) {
  if (!limited)
    ld_error(c, a->file, a->line, "inheritrange: %s '%s' has no range",
             a->tendon ? "tendon" : "joint", a->tendon ? a->tendon : a->joint);
  double mid = 0.5 * (range[0] + range[1]);
  double half = 0.5 * a->inheritrange * (range[1] - range[0]);
  int act = a->kind == LD_ACT_INTVELOCITY;
  double* out = act ? a->actrange : a->ctrlrange;
  out[0] = mid - half;
  out[1] = mid + half;
  if (act) {
    a->has_actrange = 1;
    if (a->actlimited < 0) a->actlimited = 1;
  } else {
    a->has_ctrlrange = 1;
    if (a->ctrllimited < 0) a->ctrllimited = 1;
  }
}

int ld_actuator_actnum(const ld_actuator* a) {
  return a->actdim >= 0 ? a->actdim : a->dyntype != IMP_DYN_NONE;
}

/* actdim as MuJoCo checks it: 0 with dynamics and 1 without are errors,
   more than 1 only for user dynamics (whose last activation makes the
   force). */
static void check_actdim(ld_ctx* c, const ld_actuator* a) {
  if (a->actdim < 0) return;
  if (a->actdim > 1 && a->dyntype != IMP_DYN_USER)
    ld_error(c, a->file, a->line, "actdim > 1 is only allowed for dyntype 'user'");
  if (a->actdim == 1 && a->dyntype == IMP_DYN_NONE)
    ld_error(c, a->file, a->line, "invalid actdim 1 in stateless actuator");
  if (a->actdim == 0 && a->dyntype != IMP_DYN_NONE)
    ld_error(c, a->file, a->line, "invalid actdim 0 in stateful actuator");
}

int ld_count_activations(ld_ctx* c, int nu) {
  long long na = 0;
  for (int u = 0; u < nu; u++) {
    const ld_actuator* a = LD_AT(c->actuators, ld_actuator, u);
    check_actdim(c, a);
    na += ld_actuator_actnum(a);
    if (na > 1000000) ld_error(c, a->file, a->line, "too many activations (more than 1000000)");
  }
  return (int)na;
}

void ld_key_act(ld_ctx* c, ld_key* k, int na) {
  if (k->nact < 0 || k->nact == na) {
    if (k->nact == na && na == 0) k->nact = -1; /* act="" on a stateless model */
    return;
  }
  if (k->nact != c->nact_file)
    ld_error(c, k->file, k->line, "key act: expected %d numbers, got %d", na, k->nact);
  /* written for every actuator of the file: keep the values of those that
     remain, in their order (each lands at or before where it was read) */
  int pos = 0;
  for (int u = 0; u < c->actuators.n; u++) {
    const ld_actuator* a = LD_AT(c->actuators, ld_actuator, u);
    int n = ld_actuator_actnum(a);
    for (int j = 0; j < n && pos < na; j++) k->act[pos++] = k->act[a->actfileadr + j];
  }
  k->nact = na;
}

/* The inertia actuator u moves at qpos0, armature included: the sum over
   its moment's entries of M_ii / moment_i^2 (MuJoCo's "reflected"
   inertia): M_ii / gear^2 through a joint. */
static double reflected_mass(const imp_model* m, imp_data* d, int u) {
  size_t mark = imp_stack_mark(d);
  double* moment = imp_stack_alloc(d, m->nv), mass = 0;
  imp_actuator_moment(m, d, u, moment);
  for (int i = 0; i < m->nv; i++) {
    double trn2 = moment[i] * moment[i];
    if (trn2 > IMP_MINVAL) mass += d->qM[m->dof_Madr[i]] / trn2;
  }
  imp_stack_release(d, mark);
  return mass;
}

/* position dampratio r: kv = r 2 sqrt(kp m), the damping of a critically
   damped oscillator for r = 1, with m the reflected inertia at qpos0 (MJCF
   reference, position/dampratio). Applied to position-like actuators
   (fixed gain kp, affine bias (0, -kp, 0)); the bias becomes (0, -kp, -kv). */
static void actuator_dampratio(ld_ctx* c, imp_model* m, imp_data* d) {
  for (int u = 0; u < m->nu; u++) {
    double ratio = LD_AT(c->actuators, ld_actuator, u)->dampratio;
    double* g = m->actuator_gainprm + IMP_NGAIN * u;
    double* b = m->actuator_biasprm + IMP_NGAIN * u;
    int position_like = m->actuator_gaintype[u] == IMP_GAIN_FIXED &&
                        m->actuator_biastype[u] == IMP_BIAS_AFFINE && b[1] == -g[0] && b[2] == 0;
    if (!(ratio > 0) || !position_like || !(g[0] >= 0)) continue;
    b[2] = -ratio * 2 * sqrt(g[0] * reflected_mass(m, d, u));
  }
}

/* An actuator's velocity feedback (affine bias -kv v through gear) is
   explicit under Euler and RK4, as in MuJoCo: on its own joint it decays
   only while h kv gear^2 / M_ii stays below 2 (Euler) or 2.785 (RK4's
   stability limit on the real axis), M_ii with armature at qpos0. Past it
   the joint's velocity flips sign and grows every step. Menagerie's
   franka_fr3_v2 asks for Euler with kv = 450 on 0.2 kg m^2 of armature
   (4.5): its wrist reached 3000 m/s, and MuJoCo 2.2.2 diverges on the same
   file (bad qacc at 0.028 s). Worth a warning naming the actuator; the
   file is run as written. */
static void warn_unstable_velocity_feedback(ld_ctx* c, const imp_model* m, imp_data* d) {
  double limit = m->opt.integrator == IMP_INT_EULER ? 2 : m->opt.integrator == IMP_INT_RK4 ? 2.785 : 0;
  if (!(limit > 0)) return;
  for (int u = 0; u < m->nu; u++) {
    if (m->actuator_biastype[u] != IMP_BIAS_AFFINE) continue;
    double kv = -m->actuator_biasprm[IMP_NGAIN * u + 2], mass = reflected_mass(m, d, u);
    double ratio = mass > 0 ? m->opt.timestep * kv / mass : 0;
    if (!(ratio > limit)) continue;
    const ld_actuator* a = LD_AT(c->actuators, ld_actuator, u);
    ld_warning(c, "unstable velocity feedback", a->file, a->line,
               "actuator '%s': velocity feedback h kv / M = %.3g exceeds %.3g, the stability "
               "limit of integrator %s for it (kv %g, inertia %g at qpos0): the joint will "
               "oscillate and diverge; integrator=\"implicitfast\" steps it implicitly",
               a->name ? a->name : "", ratio, limit,
               m->opt.integrator == IMP_INT_EULER ? "Euler" : "RK4", kv, mass);
  }
}

/* acc0 of every actuator: |M^-1 J'| at qpos0 for its moment J
   (transmission.c; zero for a body transmission, which has no contacts
   here), the joint-space acceleration of unit actuator force; muscles with force < 0 take scale / acc0 as their peak
   force (MJCF reference, muscle/scale). */
static void actuator_acc0(imp_model* m, imp_data* d) {
  double* moment = imp_stack_alloc(d, m->nv);
  double* acc = imp_stack_alloc(d, m->nv);
  for (int u = 0; u < m->nu; u++) {
    imp_actuator_moment(m, d, u, moment);
    imp_solve_sparse(m, d->qLD, d->qLDiagInv, acc, moment);
    m->actuator_acc0[u] = sqrt(imp_dot(acc, acc, m->nv));
  }
}

void ld_actuators_at_qpos0(ld_ctx* c, imp_model* m) {
  if (!m->nu) return;
  imp_data* d = imp_make_data(m); /* at qpos0 */
  if (!d) ld_error(c, "", 0, "out of memory");
  imp_kinematics(m, d);
  imp_com_pos(m, d);
  imp_tendon(m, d);
  imp_crb(m, d);
  imp_tendon_armature(m, d);
  imp_factor_m(m, d);
  actuator_acc0(m, d);
  imp_stack_release(d, 0);
  actuator_dampratio(c, m, d);
  warn_unstable_velocity_feedback(c, m, d);
  imp_free_data(d);
  ld_compute_lengthranges(c, m);
}

int ld_resolve_actuators(ld_ctx* c, const ld_joint* J, int* actjnt, int* keep) {
  int nu = 0;
  for (int i = 0; i < c->actuators.n; i++) {
    ld_actuator* a = LD_AT(c->actuators, ld_actuator, i);
    int j = -1;
    a->id2 = -1;
    switch (a->trntype) {
      case IMP_TRN_TENDON: {
        j = ld_named_id(c, &c->tendons, "tendon", a->tendon, a->file, a->line);
        const ld_tendon* t = LD_AT(c->tendons, ld_tendon, j);
        if (a->inheritrange > 0) inherit_range(c, a, t->limited, t->range);
        break;
      }
      case IMP_TRN_JOINT:
      case IMP_TRN_JOINTINPARENT:
        j = ld_named_id(c, &c->joints, "joint", a->joint, a->file, a->line);
        if (a->inheritrange > 0) {
          if (J[j].type == IMP_JNT_FREE || J[j].type == IMP_JNT_BALL)
            ld_error(c, a->file, a->line, "inheritrange needs a hinge or slide joint");
          inherit_range(c, a, J[j].limited, J[j].range);
        }
        break;
      case IMP_TRN_SLIDERCRANK:
        j = ld_named_id(c, &c->sites, "site", a->target, a->file, a->line);
        if (!a->site2)
          ld_error(c, a->file, a->line, "slider-crank actuator '%s': missing slidersite",
                   a->name ? a->name : "");
        a->id2 = ld_named_id(c, &c->sites, "site", a->site2, a->file, a->line);
        if (!(a->cranklength > 0))
          ld_error(c, a->file, a->line, "slider-crank actuator '%s': cranklength must be positive",
                   a->name ? a->name : "");
        break;
      case IMP_TRN_SITE:
        j = ld_named_id(c, &c->sites, "site", a->target, a->file, a->line);
        if (a->site2) a->id2 = ld_named_id(c, &c->sites, "site", a->site2, a->file, a->line);
        break;
      case IMP_TRN_BODY:
        j = ld_named_id(c, &c->bodies, "body", a->target, a->file, a->line);
        break;
    }
    if (a->inheritrange > 0 && a->trntype != IMP_TRN_TENDON && a->trntype != IMP_TRN_JOINT &&
        a->trntype != IMP_TRN_JOINTINPARENT)
      ld_error(c, a->file, a->line, "inheritrange needs a joint or tendon transmission");
    if (a->ctrllimited < 0) a->ctrllimited = c->autolimits ? a->has_ctrlrange : 0;
    if (a->forcelimited < 0) a->forcelimited = c->autolimits ? a->has_forcerange : 0;
    if (a->ctrllimited && a->ctrlrange[0] >= a->ctrlrange[1])
      ld_error(c, a->file, a->line, "invalid ctrlrange");
    if (a->forcelimited && a->forcerange[0] >= a->forcerange[1])
      ld_error(c, a->file, a->line, "invalid forcerange");
    if (a->actlimited < 0) a->actlimited = c->autolimits ? a->has_actrange : 0;
    if (a->actlimited && a->actrange[0] >= a->actrange[1])
      ld_error(c, a->file, a->line, "invalid actrange");
    if (a->actlimited && a->dyntype == IMP_DYN_NONE)
      ld_error(c, a->file, a->line, "actrange specified but dyntype is 'none'");
    actjnt[nu] = j;
    keep[nu++] = i;
  }
  return nu;
}

void ld_put_actuators(ld_ctx* c, imp_model* m, const int* actjnt) {
  int adr = 0;
  for (int i = 0; i < m->nu; i++) {
    const ld_actuator* a = LD_AT(c->actuators, ld_actuator, i);
    m->actuator_trntype[i] = a->trntype;
    m->actuator_trnid[2 * i] = actjnt[i];
    m->actuator_trnid[2 * i + 1] = a->id2;
    m->actuator_cranklength[i] = a->cranklength;
    m->actuator_dyntype[i] = a->dyntype;
    m->actuator_actnum[i] = ld_actuator_actnum(a);
    m->actuator_actadr[i] = m->actuator_actnum[i] ? adr : -1;
    adr += m->actuator_actnum[i];
    m->actuator_actlimited[i] = a->actlimited;
    m->actuator_actearly[i] = a->actearly;
    imp_copy(m->actuator_dynprm + IMP_NGAIN * i, a->dynprm, IMP_NGAIN);
    imp_copy(m->actuator_actrange + 2 * i, a->actrange, 2);
    m->actuator_gaintype[i] = a->gaintype;
    m->actuator_biastype[i] = a->biastype;
    m->actuator_ctrllimited[i] = a->ctrllimited;
    m->actuator_forcelimited[i] = a->forcelimited;
    imp_copy(m->actuator_gear + 6 * i, a->gear, 6);
    imp_copy(m->actuator_gainprm + IMP_NGAIN * i, a->gainprm, IMP_NGAIN);
    imp_copy(m->actuator_biasprm + IMP_NGAIN * i, a->biasprm, IMP_NGAIN);
    imp_copy(m->actuator_ctrlrange + 2 * i, a->ctrlrange, 2);
    imp_copy(m->actuator_forcerange + 2 * i, a->forcerange, 2);
    imp_copy(m->actuator_lengthrange + 2 * i, a->lengthrange, 2); /* given, or computed later */
  }
}
