/* Actuator length ranges (MJCF reference, compiler/lengthrange; Modeling >
 * Length range): the feasible lengths of an actuator's transmission, which
 * muscles need to normalize their length (activation.c).
 *
 * For the actuators <compiler><lengthrange mode> selects (muscles by
 * default), a range already given (lo < hi) is kept when useexisting; with
 * uselimit a limited joint's or tendon's range is copied (as MuJoCo
 * copies it: the range, not times gear); otherwise the range is found as MuJoCo
 * finds it, by simulation: from qpos0, for each direction, the model runs
 * for inttotal seconds at the option's timestep with contacts, gravity,
 * passive forces, frictionloss and actuation off (limits and equalities
 * stay), pushed by a force along the actuator's moment J scaled so that
 * the acceleration |M^-1 J f| equals accel (capped at maxforce), its
 * velocity damped by exp(-h / timeconst) before every step. The smallest
 * (largest) length over the last interval seconds is the range's end; the
 * run must end in a valid range and settle to within tolrange of it.
 *
 * The result is this engine's, not MuJoCo's: our limits are hard
 * constraints (ends at the limit), MuJoCo's are soft (ends slightly past
 * it), so a range found against a limit differs by the soft constraint's
 * give. Length and moment are the transmission's (dynamics.c: joint or
 * tendon). */
#include <math.h>
#include <string.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"

void ld_lengthrange_defaults(ld_lropt* o) {
  o->mode = 1;
  o->useexisting = 1;
  o->uselimit = 0;
  o->accel = 20;
  o->maxforce = 0;
  o->timeconst = 1;
  o->timestep = 0.01;
  o->inttotal = 10;
  o->interval = 2;
  o->tolrange = 0.05;
}

void ld_parse_lengthrange(ld_ctx* c, ld_node* n) {
  static const char* const modes[] = {"none", "muscle", "muscleuser", "all", NULL};
  ld_lropt* o = &c->lr;
  ld_attr_keyword(c, n, "mode", modes, &o->mode);
  ld_attr_bool(c, n, "useexisting", &o->useexisting);
  ld_attr_bool(c, n, "uselimit", &o->uselimit);
  ld_attr_nums(c, n, "accel", &o->accel, 1, 1);
  ld_attr_nums(c, n, "maxforce", &o->maxforce, 1, 1);
  ld_attr_nums(c, n, "timeconst", &o->timeconst, 1, 1);
  ld_attr_nums(c, n, "timestep", &o->timestep, 1, 1);
  ld_attr_nums(c, n, "inttotal", &o->inttotal, 1, 1);
  ld_attr_nums(c, n, "interval", &o->interval, 1, 1);
  ld_attr_nums(c, n, "tolrange", &o->tolrange, 1, 1);
  if (!(o->accel > 0) || !(o->timestep >= 0) || !(o->inttotal > 0) || !(o->interval > 0) ||
      !(o->inttotal <= 1e4) || !(o->tolrange >= 0) || !(o->maxforce >= 0))
    ld_error(c, n->file, n->line,
             "lengthrange: accel, inttotal (at most 10000 s) and interval must be positive, "
             "timestep, tolrange and maxforce non-negative");
  ld_warn_unused(c, n);
}

/* 1 when mode selects actuator u (muscleuser: user types are not kept, so
   it selects the muscles) */
static int selected(const ld_lropt* o, const imp_model* m, int u) {
  int muscle = m->actuator_gaintype[u] == IMP_GAIN_MUSCLE ||
               m->actuator_biastype[u] == IMP_BIAS_MUSCLE;
  return o->mode == 3 || (o->mode >= 1 && muscle);
}

/* One run pushing actuator u towards its shorter (side 0) or longer end:
   the least (side 0) or greatest length over the last interval; the
   spread over that interval in *spread. 0, or -1 when the state went bad. */
static int push(const imp_model* m, imp_data* d, const ld_lropt* o, int u, int side,
                double* moment, double* acc, double* end, double* spread) {
  imp_reset_data(m, d);
  double h = m->opt.timestep, decay = exp(-h / fmax(0.01, o->timeconst));
  double lo = 0, hi = 0;
  int seen = 0;
  while (d->time < o->inttotal) {
    imp_scl(d->qvel, d->qvel, decay, m->nv);
    imp_kinematics(m, d);
    imp_com_pos(m, d);
    imp_tendon(m, d);
    imp_crb(m, d);
    imp_tendon_armature(m, d);
    imp_factor_m(m, d);
    imp_actuator_moment(m, d, u, moment);
    imp_solve_sparse(m, d->qLD, d->qLDiagInv, acc, moment);
    double f = (2 * side - 1) * o->accel / fmax(IMP_MINVAL, sqrt(imp_dot(acc, acc, m->nv)));
    imp_scl(d->qfrc_applied, moment, f, m->nv);
    double norm = sqrt(imp_dot(d->qfrc_applied, d->qfrc_applied, m->nv));
    if (o->maxforce > 0 && norm > o->maxforce)
      imp_scl(d->qfrc_applied, d->qfrc_applied, o->maxforce / norm, m->nv);
    double len = imp_actuator_length(m, d, u); /* at the step's start, as MuJoCo reads it */
    imp_step(m, d);
    if (d->time == 0 || d->nwarning_nan) return -1;
    if (d->time > o->inttotal - o->interval) {
      if (!seen || len < lo) lo = len;
      if (!seen || len > hi) hi = len;
      seen = 1;
    }
  }
  *end = side ? hi : lo;
  *spread = hi - lo;
  return 0;
}

void ld_compute_lengthranges(ld_ctx* c, imp_model* m) {
  const ld_lropt* o = &c->lr;
  int any = 0;
  for (int u = 0; u < m->nu && !any; u++) {
    const double* lr = m->actuator_lengthrange + 2 * u;
    any = selected(o, m, u) && !(o->useexisting && lr[0] < lr[1]);
  }
  if (!any) return;
  imp_option saved = m->opt;
  m->opt.disableflags = IMP_DSBL_FRICTIONLOSS | IMP_DSBL_CONTACT | IMP_DSBL_PASSIVE |
                        IMP_DSBL_GRAVITY | IMP_DSBL_ACTUATION;
  if (o->timestep > 0) m->opt.timestep = o->timestep;
  double* moment = ld_alloc(c, sizeof(double) * (size_t)m->nv);
  double* acc = ld_alloc(c, sizeof(double) * (size_t)m->nv);
  imp_data* d = imp_make_data(m);
  if (!d) ld_error(c, "", 0, "out of memory");
  for (int u = 0; u < m->nu; u++) {
    double* lr = m->actuator_lengthrange + 2 * u;
    const ld_actuator* a = LD_AT(c->actuators, ld_actuator, u);
    if (!selected(o, m, u) || (o->useexisting && lr[0] < lr[1])) continue;
    int j = m->actuator_trnid[2 * u], type = m->actuator_trntype[u];
    int tendon = type == IMP_TRN_TENDON;
    int limited = tendon ? m->tendon_limited[j]
                  : type == IMP_TRN_JOINT || type == IMP_TRN_JOINTINPARENT ? m->jnt_limited[j]
                                                                           : 0;
    if (o->uselimit && limited) {
      const double* range = tendon ? m->tendon_range + 2 * j : m->jnt_range + 2 * j;
      lr[0] = range[0];
      lr[1] = range[1];
      continue;
    }
    double spread[2];
    for (int side = 0; side < 2; side++)
      if (push(m, d, o, u, side, moment, acc, lr + side, spread + side) != 0) {
        imp_free_data(d);
        m->opt = saved;
        ld_error(c, a->file, a->line, "actuator '%s': unstable lengthrange simulation",
                 a->name ? a->name : "");
      }
    double dif = lr[1] - lr[0];
    const char* why = !(dif > 0) ? "invalid lengthrange"
                      : spread[0] > o->tolrange * dif || spread[1] > o->tolrange * dif
                          ? "lengthrange simulation did not converge"
                          : NULL;
    if (why) {
      imp_free_data(d);
      m->opt = saved;
      ld_error(c, a->file, a->line,
               "actuator '%s': %s (%g, %g; spread %g, %g over the last interval): give "
               "lengthrange, or limit its %s '%s'",
               a->name ? a->name : "", why, lr[0], lr[1], spread[0], spread[1],
               a->tendon ? "tendon" : "joint", a->tendon ? a->tendon : a->joint);
    }
  }
  imp_free_data(d);
  m->opt = saved;
}
