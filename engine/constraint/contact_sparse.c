/* Large sparse islands: A's pattern, and Gauss-Seidel sweeps over it first
 * (see contact_sparse.h). */
#include <math.h>

#include "constraint/contact_budget.h"
#include "constraint/contact_sparse.h"
#include "core/mathx.h"

/* Sweeps between two measures of the common residual: the measure costs
   about one sweep (a product over the pattern and the residual's pass). */
#define SWEEP_CHUNK 10
/* The sweeps' rate of convergence is the best residual's fall over the
   last RATE_WINDOW measures; they give up when that rate cannot bring it
   to the tolerance within the work left, or when no measure improved it
   for STALL_MEASURES. Gauss-Seidel's residual does not fall every sweep,
   nor at one rate. On MuJoCo's particle sample (tol 1e-6) it has plateaus
   of 100 sweeps and more and then falls again: a flat window taken for
   the end gave up on islands that converge (one stopped at 140 sweeps
   and 2e-5 converges at 370), 9 in 300 steps with a window of 5 measures,
   3 with 10; a rate from the first measure instead, 2. On
   models/capsule_pile.xml (friction piles of 272-309 rows, tol 1e-8) the
   rate decays steadily: the rate from the first measure kept sweeping
   2,000-4,900 times on islands that end short (34 ms a step, against 8.8
   ms before the sweeps and 4.4 ms with the window). */
#define RATE_WINDOW 10
#define STALL_MEASURES 30

long long imp_sparse_attach(imp_cproblem* p, imp_guard_pattern* pat) {
  imp_guard_pattern_reset(pat);
  if (p->n < IMP_SPARSE_MIN_ROWS) return 0;
  imp_guard_pattern_build(p, pat);
  if (pat->state != IMP_PATTERN_SPARSE) return 0;
  p->A_rowadr = pat->adr;
  p->A_col = pat->col;
  return pat->adr[p->n];
}

/* the trees row r moves into tree[] (distinct; at most TREES_MAX, else
   -1 for "many") */
#define TREES_MAX 8
static int row_trees_of(const imp_model* m, const imp_data* d, int r, int* tree) {
  int nt = 0, a = d->efc_J_rowadr[r];
  for (int t = 0; t < d->efc_J_rownnz[r]; t++) {
    int tr = m->body_rootid[m->dof_bodyid[d->efc_J_colind[a + t]]], seen = 0;
    for (int q = 0; q < nt && !seen; q++) seen = tree[q] == tr;
    if (seen) continue;
    if (nt == TREES_MAX) return -1;
    tree[nt++] = tr;
  }
  return nt;
}

/* count[t] += add over the trees of the island's rows (add = -1 undoes
   add = 1); for add = 1 the sum of c^2 over trees afterwards (it grows by
   2c + 1 when c grows by 1); -1 when a row moves too many trees */
static double count_trees(const imp_model* m, const imp_data* d, int isl, int* count, int add) {
  const int* blks = d->island_blk + d->island_blkadr[isl];
  double pairs = 0;
  for (int j = 0; j < d->island_blknum[isl]; j++)
    for (int k = blks[j], r = d->blk_efcadr[k]; r < d->blk_efcadr[k] + d->blk_dim[k]; r++) {
      int tree[TREES_MAX], nt = row_trees_of(m, d, r, tree);
      if (nt < 0) return -1;
      for (int q = 0; q < nt; q++) {
        pairs += 2.0 * count[tree[q]] + 1;
        count[tree[q]] += add;
      }
    }
  return pairs;
}

int imp_sparse_island_sure(const imp_model* m, const imp_data* d, int isl, int n, int* count) {
  if (n < IMP_SPARSE_MIN_ROWS) return 0;
  double pairs = count_trees(m, d, isl, count, 1);
  /* every count back to 0: the same rows, stopped at the same place */
  count_trees(m, d, isl, count, -1);
  return pairs >= 0 && pairs <= (double)n * n / 4;
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

/* 1 when the best residual's fall over the window (hist: the best after
   each measure, a ring of RATE_WINDOW + 1, the last at k) cannot bring it
   to tol within the measures left; a flat window is left to the stall
   count */
static int out_of_reach(const double* hist, int k, double tol, double left) {
  if (k < RATE_WINDOW || k < left / 3) return 0; /* a quarter of the work first */
  double first = hist[(k - RATE_WINDOW) % (RATE_WINDOW + 1)], last = hist[k % (RATE_WINDOW + 1)];
  if (!(last < first)) return 0;
  double rate = log(last / first) / RATE_WINDOW; /* < 0 */
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
  int since_best = 0;
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
      since_best = 0;
    } else {
      since_best++;
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
    if (since_best >= STALL_MEASURES) {
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
