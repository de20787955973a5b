/* The prox formulation solved by fixed-point iteration (Schindler, Nguyen &
 * Trinkle 2011, "Understanding the difference between prox and
 * complementarity formulations", Section III; the formulation of Alart &
 * Curnier 1991, their ref. [1]).
 *
 * Every law of contact.h is written as a fixed point of a proximal map
 * (eq. 8: prox_C(x) = the point of the convex set C closest to x), with
 * w = A f + v0 - b the velocity relative to its target and r > 0 a free
 * parameter (eq. 9):
 *   - equality     f = prox_{R^dim}(f - r w)          (eq. 9a, C_B = R, eq. 10)
 *                  : no projection, so the fixed point is w = 0 (eq. 14);
 *   - limit, frictionless contact, and the normal row of a contact
 *                  f_N = prox_{R+}(f_N - r_N w_N)     (eq. 9b, C_U, eq. 11);
 *   - friction rows of a contact (sliding, torsional and rolling, the
 *     circular cone of contact.h)
 *                  f_T = prox_{C_T(f_N)}(f_T - r_T w_T)   (eq. 9c)
 *     with C_T(f_N) the disk ||f_T|| <= mu f_N (eq. 12), so that (f_N, f_T)
 *     lands in the exact circular cone, never in a pyramid;
 *   - dry friction (one row with the bound R = mu[k] fixed in advance)
 *                  f = prox_{[-R, R]}(f - r w)
 *     eq. 9c with a one-dimensional disk whose radius is the given R
 *     instead of mu f_N. Its fixed points: inside the interval w = 0; on
 *     the bound f - r w lies beyond it, so w = -k f with k >= 0: the law
 *     of contact.h (Section IV's argument for eq. 15-18 in one dimension,
 *     where one row's scalar r is trivially the block's).
 * Section IV proves each fixed-point set equal to its complementarity law
 * (eq. 13); for friction this needs one scalar r_T for all friction rows
 * of a block: then f_T - r_T w_T outside the disk is projected radially, and
 * a fixed point on the rim has w_T = -k f_T, k >= 0 (eq. 15-18), Coulomb's
 * law with maximal dissipation. (A per-row r_T would give w_T = -k R^-1 f_T:
 * friction not opposing the slip.)
 *
 * The iteration: Gauss-Seidel sweeps over the blocks (later blocks see the
 * update at once, the "interleaving" of Section V.A). Equality, limit and
 * dry friction blocks go row by row; a contact takes its normal row first
 * (eq. 9b), then its friction rows with w_T corrected for the new f_N
 * (eq. 9c on the disk of the new normal impulse).
 *
 * The parameter r (Section V.A). For one row of mass m the iteration is
 * eq. 25, f <- prox((1 - r/m) f - (r/m) h): it contracts by |1 - r/m| for
 * 0 < r < 2m and is exact in one step at r = m (for a dry friction row too:
 * projecting a one-dimensional quadratic's minimizer onto an interval gives
 * its minimizer over the interval). In contact space 1/m is the Delassus
 * diagonal A_ii, so we take, as the paper's closing remark of Section V.A
 * suggests (r related to the Delassus matrix),
 *     r_i = alpha / A_ii              (one row: limit, equality, normal,
 *                                      dry friction),
 *     r_T = alpha / max_{k in T} A_kk (the friction rows of a block),
 * alpha = 1 at the start: eq. 25's one-step choice on each row. When the
 * Delassus matrix couples rows strongly, alpha = 1 can overshoot (the
 * friction step is a projected gradient step, stable for r_T < 2 /
 * lambda_max(A_TT), and lambda_max can exceed twice the largest diagonal).
 * The adaptation rule:
 *   - diverging: the sweep's step (change / alpha) grew in DIVERGE_SWEEPS
 *     consecutive sweeps and by more than DIVERGE_GROWTH overall, or an
 *     iterate is not finite: alpha is halved and the iteration restarts
 *     from its best iterate (smallest relative change);
 *   - stalled at a reduced alpha: after RECOVER_SWEEPS sweeps without a
 *     growth event, alpha is doubled again (at most 1), since a small r
 *     makes every step (and the convergence) proportionally slower;
 *   - still diverging at alpha = ALPHA_MIN = 1/32: there every
 *     block's own step contracts (a row: |1 - alpha| < 1, eq. 25; the
 *     friction rows: r_T lambda_max(A_TT) <= alpha * 5 < 2, since
 *     lambda_max <= (dim - 1) max diagonal), so the growth is not an
 *     overshoot of r but the problem's: Section V.B shows the fixed-point
 *     iteration diverging for every r on the Painleve problem without a
 *     solution (Fig. 11) and from a start beyond the second solution
 *     (Fig. 12). The solver stops with IMP_EXIT_DIVERGED and its best
 *     finite iterate; it does not hide it.
 * (Larger alpha on stalls, over-relaxation up to 1.9, was tried and did not
 * help: on the box family it oscillated between growth and stall, 861
 * sweeps instead of 855 on condim 6.)
 *
 * Stopping: the change of one sweep is the prox residual of eq. 9 at the
 * sweep's Gauss-Seidel iterates (f - prox(f - r w)); divided by alpha it
 * does not shrink with r. Converged when that is at most
 * tol * max(1, ||f||_inf); s->residual is the same ratio. The solver
 * allocates nothing: its scratch (the best iterate) is in work. */
#include <math.h>

#include "constraint/contact.h"
#include "core/mathx.h"

#define PROX_MAXDIM 6
/* a diagonal below this fraction of A's largest is a row without mobility */
#define PROX_PIVOT_REL 1e-12
#define DIVERGE_SWEEPS 4
#define DIVERGE_GROWTH 2.0
#define RECOVER_SWEEPS 50
#define ALPHA_MIN (1.0 / 32)

/* the solver's state for one solve */
typedef struct prox_state {
  double alpha; /* r = alpha / diagonal */
  double eps;   /* pivot threshold */
} prox_state;

/* w_k = A_k f + v0_k - b_k for row k */
static double row_velocity(const imp_cproblem* p, const double* f, int k) {
  return imp_dot(p->A + (size_t)k * (size_t)p->n, f, p->n) + p->v0[k] - p->b[k];
}

/* A_kk, or 0 for a row without mobility. Its magnitude: A is PSD, but the
   Painleve tests of Section V.B hand a negative "Delassus" value, and r > 0
   must hold (eq. 9). */
static double row_diagonal(const imp_cproblem* p, int k, double eps) {
  double a = fabs(p->A[(size_t)k * (size_t)p->n + k]);
  return a > eps ? a : 0;
}

/* the set a single row's impulse is projected onto */
typedef enum prox_row_set {
  PROX_ROW_FREE = 0,       /* equality: R (eq. 9a, no projection) */
  PROX_ROW_UNILATERAL = 1, /* limit, frictionless contact: R+ (eq. 9b) */
  PROX_ROW_INTERVAL = 2    /* dry friction: [-bound, bound] (eq. 9c in 1-D) */
} prox_row_set;

/* one row k of an equality, unilateral or dry friction block; bound is the
   dry friction's R (unused otherwise); returns |df| */
static double update_row(const imp_cproblem* p, double* f, int k, prox_row_set set,
                         double bound, const prox_state* st) {
  double a = row_diagonal(p, k, st->eps);
  double old = f[k];
  double next = a > 0 ? old - st->alpha / a * row_velocity(p, f, k) : old;
  if (set == PROX_ROW_UNILATERAL) {
    next = fmax(0.0, next); /* prox onto C_U = R+ (eq. 11) */
  } else if (set == PROX_ROW_INTERVAL) {
    double R = bound > 0 ? bound : 0; /* a negative or NaN bound means no friction */
    next = fmin(fmax(next, -R), R);   /* prox onto the interval */
  }
  f[k] = next;
  return fabs(next - old);
}

/* a contact with friction: eq. 9b on the normal row, then eq. 9c on the
   friction rows with w_T updated for the new f_N; returns the largest |df| */
static double update_contact(const imp_cproblem* p, double* f, int adr, int dim, double mu,
                             const prox_state* st) {
  double w[PROX_MAXDIM];
  for (int k = 0; k < dim; k++) w[k] = row_velocity(p, f, adr + k);
  /* normal: r_N = alpha / A_NN */
  double aN = row_diagonal(p, adr, st->eps);
  double fN_old = f[adr];
  double fN = aN > 0 ? fmax(0.0, fN_old - st->alpha / aN * w[0]) : fmax(0.0, fN_old);
  double dfN = fN - fN_old;
  f[adr] = fN;
  double change = fabs(dfN);
  /* friction: one scalar r_T = alpha / max diagonal of the friction rows */
  double aT = 0;
  for (int k = 1; k < dim; k++) aT = fmax(aT, row_diagonal(p, adr + k, st->eps));
  double y[PROX_MAXDIM], yn2 = 0;
  for (int k = 1; k < dim; k++) {
    int i = adr + k;
    double wk = w[k] + p->A[(size_t)i * (size_t)p->n + adr] * dfN;
    y[k] = aT > 0 ? f[i] - st->alpha / aT * wk : f[i];
    yn2 += y[k] * y[k];
  }
  /* prox onto the disk C_T(f_N) of radius mu f_N (eq. 12): radial */
  double radius = mu > 0 ? mu * fN : 0;
  double scale = yn2 > radius * radius ? (radius > 0 ? radius / sqrt(yn2) : 0) : 1;
  for (int k = 1; k < dim; k++) {
    double next = y[k] * scale;
    change = fmax(change, fabs(next - f[adr + k]));
    f[adr + k] = next;
  }
  return change;
}

/* one Gauss-Seidel sweep over all blocks; returns the largest |df| */
static double sweep(const imp_cproblem* p, double* f, const prox_state* st) {
  double change = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->blk_adr[blk], dim = p->blk_dim[blk], type = p->blk_type[blk];
    if (type == IMP_CNSTR_CONTACT && dim > 1) {
      change = fmax(change, update_contact(p, f, adr, dim, p->mu[blk], st));
    } else {
      prox_row_set set = type == IMP_CNSTR_EQUALITY   ? PROX_ROW_FREE
                         : type == IMP_CNSTR_FRICTION ? PROX_ROW_INTERVAL
                                                      : PROX_ROW_UNILATERAL;
      for (int k = 0; k < dim; k++)
        change = fmax(change, update_row(p, f, adr + k, set, p->mu[blk], st));
    }
  }
  return change;
}



/* the start: the warm start made feasible (non-finite entries cleared,
   unilateral rows >= 0, friction in its cone, dry friction in its
   interval), or zeros */
static void initial_impulses(const imp_cproblem* p, const imp_csolver_opt* o, double* f) {
  if (!o->warmstart) {
    imp_zero(f, p->n);
    return;
  }
  for (int i = 0; i < p->n; i++)
    if (!isfinite(f[i])) f[i] = 0;
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->blk_adr[blk], dim = p->blk_dim[blk], type = p->blk_type[blk];
    if (type == IMP_CNSTR_CONTACT && dim > 1) {
      imp_cone_project(f + adr, dim, p->mu[blk]);
    } else if (type == IMP_CNSTR_FRICTION) {
      double R = p->mu[blk] > 0 ? p->mu[blk] : 0;
      for (int k = 0; k < dim; k++) f[adr + k] = fmin(fmax(f[adr + k], -R), R);
    } else if (type != IMP_CNSTR_EQUALITY) {
      for (int k = 0; k < dim; k++) f[adr + k] = fmax(0.0, f[adr + k]);
    }
  }
}

static size_t prox_work_size(int n, int nblock) {
  (void)nblock;
  return (size_t)n * sizeof(double); /* the best iterate */
}

static void prox_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                       imp_csolver_stat* s, void* work) {
  *s = (imp_csolver_stat){0, 0, INFINITY, IMP_EXIT_MAXITER};
  initial_impulses(p, o, f);
  if (!imp_cproblem_is_finite(p)) {
    imp_zero(f, p->n);
    s->exit = IMP_EXIT_FAILED;
    return;
  }
  double dmax = 0;
  for (int i = 0; i < p->n; i++) dmax = fmax(dmax, fabs(p->A[(size_t)i * (size_t)p->n + i]));
  prox_state st = {1.0, PROX_PIVOT_REL * dmax};
  double* best = work;
  imp_copy(best, f, p->n);
  double best_measure = INFINITY, prev = INFINITY, run_start = INFINITY;
  int growth = 0, calm = 0;
  for (int it = 0; it < o->maxiter; it++) {
    double change = sweep(p, f, &st);
    s->iterations = it + 1;
    double fabs_max = imp_max_abs_or_inf(f, p->n);
    double measure = isfinite(fabs_max) && isfinite(change)
                         ? change / st.alpha / fmax(1.0, fabs_max)
                         : INFINITY;
    if (measure < best_measure) {
      best_measure = measure;
      imp_copy(best, f, p->n);
    }
    /* divergence: the step (change / alpha, not relative to ||f||, which
       saturates while f grows geometrically) grew in DIVERGE_SWEEPS
       consecutive sweeps and by DIVERGE_GROWTH overall */
    double step = change / st.alpha;
    if (step > prev) {
      if (growth++ == 0) run_start = prev;
      calm = 0;
    } else {
      growth = 0;
      calm++;
    }
    prev = step;
    int diverging = !isfinite(measure) ||
                    (growth >= DIVERGE_SWEEPS && step > DIVERGE_GROWTH * run_start);
    if (diverging) {
      st.alpha *= 0.5;
      imp_copy(f, best, p->n); /* restart from the best iterate */
      growth = calm = 0;
      prev = INFINITY;
      if (st.alpha < ALPHA_MIN) { /* no r left to try: Section V.B, Figs. 11-12 */
        s->residual = best_measure;
        s->exit = IMP_EXIT_DIVERGED;
        if (o->monitor) o->monitor(o->monitor_ctx, it, f);
        return;
      }
    } else if (calm >= RECOVER_SWEEPS && st.alpha < 1) { /* stalled at a small r */
      st.alpha = fmin(1.0, 2 * st.alpha);
      calm = 0;
    }
    s->residual = isfinite(measure) ? measure : best_measure;
    if (o->monitor) o->monitor(o->monitor_ctx, it, f);
    if (!diverging && measure <= o->tol) {
      s->exit = IMP_EXIT_CONVERGED;
      return;
    }
  }
  /* MAXITER: hand back the best iterate */
  imp_copy(f, best, p->n);
  s->residual = best_measure;
}

const imp_csolver imp_solver_prox = {
    "prox",
    "prox (Alart-Curnier) fixed point, Gauss-Seidel, exact cone, r = alpha/A_ii adapted",
    prox_work_size, prox_solve, IMP_LAW_CONE, 2, NULL, 0};
