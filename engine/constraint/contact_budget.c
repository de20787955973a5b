/* The work bound of island solves and the islands' accounts (see
 * contact_budget.h). */
#include <math.h>

#include "constraint/contact_budget.h"
#include "constraint/contact_sparse.h"

double imp_iteration_work(const imp_csolver* s, int n, long long nnz) {
  /* a sweep over A's rows reads each nonzero once, and each row's law */
  if (s->sparse_rows && nnz > 0) return (double)nnz + IMP_SWEEP_ROW_WORK * (double)n;
  /* n^power by products: exact, as pow's correctly rounded result is, for
     any island the row limits allow (n^3 < 2^53), at a fraction of a
     call to pow in every island of every step */
  double w = 1;
  for (int k = s->work_power > 0 ? s->work_power : 3; k > 0; k--) w *= (double)n;
  return w;
}

int imp_bounded_iterations(const imp_csolver* s, int n, long long nnz, int maxiter) {
  double allowed = floor(IMP_SOLVE_WORK_MAX / fmax(imp_iteration_work(s, n, nnz), 1));
  if (allowed >= maxiter) return maxiter;
  return allowed > IMP_SOLVE_MIN_ITER ? (int)allowed : IMP_SOLVE_MIN_ITER;
}

double imp_island_work_max(const imp_csolver* s, int n, int maxiter, int sparse) {
  double w = imp_bounded_iterations(s, n, 0, maxiter) * imp_iteration_work(s, n, 0);
  /* An island sure to be sparse that its solver can give no more than its
     least iterations is swept instead, within the bound (contact_sparse.h).
     Counted dense, such islands took most of the step's budget from the
     islands beside them: on MuJoCo's particle sample three piles of 1,000
     rows (2e9 each) left piles of 93 to 228 rows a share too small for
     their own solves (cut unconverged at a residual of 0.1 to 0.9). */
  if (sparse && n >= IMP_SPARSE_MIN_ROWS && s->law == IMP_LAW_CONE && !s->sparse_rows &&
      maxiter > IMP_SOLVE_MIN_ITER && imp_bounded_iterations(s, n, 0, maxiter) <= IMP_SOLVE_MIN_ITER)
    w = IMP_SOLVE_WORK_MAX;
  const imp_csolver* pg = &imp_solver_pgs;
  double wp = imp_bounded_iterations(pg, n, 0, maxiter) * imp_iteration_work(pg, n, 0);
  const imp_csolver* pr = &imp_solver_primal; /* the primal rescue of small islands */
  double wr = n <= IMP_PRIMAL_RESCUE_ROWS
                  ? imp_bounded_iterations(pr, n, 0, maxiter) * imp_iteration_work(pr, n, 0)
                  : 0;
  return w + fmax(w, wp) + wp + wr;
}

int imp_budget_iterations(imp_budget_account* a, const imp_csolver* s, int n, long long nnz,
                          int maxiter) {
  int bounded = imp_bounded_iterations(s, n, nnz, maxiter);
  double fit = floor(a->left / fmax(imp_iteration_work(s, n, nnz), 1));
  if (fit >= bounded) return bounded;
  a->cut = 1;
  return fit > IMP_SOLVE_MIN_ITER ? (int)fit : IMP_SOLVE_MIN_ITER;
}

void imp_budget_charge(imp_budget_account* a, double work) {
  a->work += work;
  a->left -= work;
}
