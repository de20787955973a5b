/* Large sparse islands: A's pattern, and Gauss-Seidel sweeps over it first
 * (see contact_sparse.h). */
#include <math.h>

#include "constraint/contact_budget.h"
#include "constraint/contact_sparse.h"
#include "core/mathx.h"

/* Sweeps between two measures of the common residual: the measure costs
   about one sweep (a product over the pattern and the residual's pass). */
#define SWEEP_CHUNK 10
/* The window, in measures, over which the sweeps' rate of convergence is
   taken: the best residual's fall over the last RATE_WINDOW measures.
   Gauss-Seidel's residual does not fall every sweep, but it falls over 50
   on every island that converges (particle's recorded islands). */
#define RATE_WINDOW 5

long long imp_sparse_attach(imp_cproblem* p, imp_guard_pattern* pat) {
  imp_guard_pattern_reset(pat);
  if (p->n < IMP_SPARSE_MIN_ROWS) return 0;
  imp_guard_pattern_build(p, pat);
  if (pat->state != IMP_PATTERN_SPARSE) return 0;
  p->A_rowadr = pat->adr;
  p->A_col = pat->col;
  return pat->adr[p->n];
}

int imp_sparse_sweeps_first(const imp_csolver* solver, const imp_cproblem* p, int maxiter) {
  if (!p->A_rowadr || solver->sparse_rows || solver->law != IMP_LAW_CONE) return 0;
  return maxiter > IMP_SOLVE_MIN_ITER &&
         imp_bounded_iterations(solver, p->n, 0, maxiter) <= IMP_SOLVE_MIN_ITER;
}

/* v = A g + v0 over the pattern; the common relative residual at g */
static double common_residual(const imp_cproblem* p, const double* g, double* vel,
                              double* res_work) {
  for (int i = 0; i < p->n; i++) vel[i] = imp_cproblem_row_times(p, i, g) + p->v0[i];
  double rel = INFINITY;
  imp_cresidual_at(p, g, vel, &rel, res_work);
  return isnan(rel) ? INFINITY : rel;
}

/* 1 when the best residuals' fall over the window (hist[k - RATE_WINDOW ..
   k], a linear rate per measure) cannot bring best down to tol within the
   measures left */
static int out_of_reach(const double* hist, int k, double tol, double left) {
  if (k < RATE_WINDOW) return 0;
  double first = hist[(k - RATE_WINDOW) % (RATE_WINDOW + 1)], last = hist[k % (RATE_WINDOW + 1)];
  if (!(last < first)) return 1;
  double rate = log(last / first) / RATE_WINDOW; /* < 0: log of the fall per measure */
  return log(tol / last) / rate > left;
}

imp_csolver_stat imp_sparse_sweeps(const imp_cproblem* p, double tol, int warm, double allowed,
                                   double* g, double* best, double* vel, double* res_work,
                                   double* work_done, int* cut) {
  const imp_csolver* pgs = &imp_solver_pgs;
  int n = p->n;
  long long nnz = p->A_rowadr[n];
  double sweep = imp_iteration_work(pgs, n, nnz);
  double chunk = SWEEP_CHUNK * sweep + sweep; /* the sweeps and the residual's product */
  imp_csolver_stat st = {0, 0, INFINITY, IMP_EXIT_MAXITER};
  double best_rel = INFINITY, hist[RATE_WINDOW + 1];
  *work_done = 0;
  *cut = 0;
  if (!warm) imp_zero(g, n);
  for (int k = 0;; k++) {
    if (*work_done + chunk > allowed) {
      *cut = 1;
      break;
    }
    /* no stopping test of pgs's own: the common residual decides */
    imp_csolver_opt o = {SWEEP_CHUNK, 0.0, 1, NULL, NULL, 0};
    imp_csolver_stat c = {0, 0, 0, IMP_EXIT_MAXITER};
    pgs->solve(p, &o, g, &c, NULL);
    st.iterations += c.iterations;
    *work_done += c.iterations * sweep + sweep;
    if (c.exit == IMP_EXIT_DIVERGED || c.exit == IMP_EXIT_FAILED) {
      st.exit = c.exit;
      break;
    }
    double rel = common_residual(p, g, vel, res_work);
    if (rel < best_rel) {
      best_rel = rel;
      imp_copy(best, g, n);
    }
    hist[k % (RATE_WINDOW + 1)] = best_rel;
    if (best_rel <= tol) {
      st.exit = IMP_EXIT_CONVERGED;
      break;
    }
    /* a fixed point of the sweeps (no impulse changed), or a rate that
       cannot reach tol with the work left: sweeping on would waste it */
    if (c.exit == IMP_EXIT_CONVERGED) {
      st.exit = IMP_EXIT_STALLED;
      break;
    }
    if (out_of_reach(hist, k, tol, (allowed - *work_done) / chunk)) {
      *cut = 1;
      break;
    }
  }
  if (isfinite(best_rel)) imp_copy(g, best, n);
  st.residual = best_rel;
  return st;
}
