/* Projected Gauss-Seidel over constraint blocks: the baseline solver.
 *
 * One sweep visits the blocks in order; each block takes the impulse that
 * best satisfies its own law given the current impulses of all the others
 * (Gauss-Seidel: later blocks see the update at once). With w = A f + v0 - b
 * the block's velocity relative to its target and H = A_ii its diagonal
 * block:
 *  - equality: solve H df = -w (so that w = 0), f += df; rows of H with
 *    no mobility of their own (pivot ~ 0: redundant rows) keep their impulse;
 *  - limit and frictionless contact (each row): f = max(0, f - w / H_kk);
 *  - dry friction (each row, bound R = mu[k] fixed in advance):
 *    f = clamp(f - w / H_kk, -R, R). The row's quadratic 1/2 H_kk f^2 + g f
 *    is one-dimensional, so clamping its unconstrained minimizer is its
 *    exact minimizer over the interval, whose KKT conditions are the law:
 *    w = 0 inside, w = -s f with s >= 0 on the bound (the disk below in one
 *    dimension, with a radius that does not depend on a normal impulse);
 *  - contact with friction, "normal then friction": first the normal row
 *    alone, f_N = max(0, f_N - w_N / H_NN); then, with f_N fixed, the
 *    friction impulse minimizes the block's quadratic over the disk
 *        min 1/2 f_T' H_TT f_T + g' f_T,  ||f_T|| <= mu f_N
 *    (g = w_T - H_TT f_T, w_T after the normal update), solved exactly as a
 *    trust-region subproblem (More & Sorensen 1983: Newton on
 *    1/||x(lambda)|| with x(lambda) = -(H_TT + lambda I)^-1 g).
 * Why not the common shortcut of solving H_TT df_T = -w_T and then scaling
 * f_T back onto the disk: when H_TT is not a multiple of the identity its
 * fixed points have sliding friction that does not oppose the slip, so the
 * common residual (residual.c) never reaches 0. The disk minimizer's KKT
 * conditions are w_T = -s f_T, s >= 0, with s = 0 inside the disk: exactly
 * Coulomb's law with maximal dissipation (Todorov 2010, eq. 7), so every
 * fixed point of this sweep solves the problem.
 *
 * Stopping: when the largest change of any impulse during a sweep is at most
 * tol * max(1, ||f||_inf), or after maxiter sweeps. s->residual reports that
 * relative change of the last sweep. The solver allocates nothing (blocks
 * are at most 6 rows: their factors live on the stack). */
#include <math.h>

#include "constraint/contact.h"
#include "core/mathx.h"

#define PGS_MAXDIM 6
/* a pivot below this fraction of A's largest diagonal is a row without
   mobility of its own */
#define PGS_PIVOT_REL 1e-12
/* Newton steps of the disk subproblem: it converges quadratically from its
   safe start, a handful suffice */
#define PGS_DISK_MAXITER 40

/* w = A_i f + v0_i - b_i for the rows adr .. adr+dim-1 */
static void block_velocity(const imp_cproblem* p, const double* f, int adr, int dim,
                           double* w) {
  for (int k = 0; k < dim; k++) {
    int i = adr + k;
    w[k] = imp_cproblem_row_times(p, i, f) + p->v0[i] - p->b[i];
  }
}

/* H = A[r0.., c0..] (m x m sub-block, row-major) */
static void sub_block(const imp_cproblem* p, int r0, int c0, int m, double* H) {
  for (int r = 0; r < m; r++)
    for (int c = 0; c < m; c++) H[r * m + c] = p->A[(size_t)(r0 + r) * (size_t)p->n + c0 + c];
}

/* Cholesky L L' = H + lambda I of a symmetric positive semidefinite m x m
   matrix; a pivot <= eps marks its row as dependent (L_kk = 0, column zero),
   so the solve below fixes that unknown at 0. Returns the number of such rows. */
static int cholesky_semidefinite(double* L, const double* H, int m, double lambda, double eps) {
  int ndrop = 0;
  for (int k = 0; k < m; k++) {
    for (int i = 0; i < m; i++) L[i * m + k] = 0;
    double d = H[k * m + k] + lambda - imp_dot(L + k * m, L + k * m, k);
    if (!(d > eps)) {
      ndrop++;
      continue;
    }
    double lkk = sqrt(d);
    L[k * m + k] = lkk;
    for (int i = k + 1; i < m; i++)
      L[i * m + k] = (H[i * m + k] - imp_dot(L + i * m, L + k * m, k)) / lkk;
  }
  return ndrop;
}

/* y = L^-1 r (forward substitution, dependent rows give 0) */
static void forward_solve(double* y, const double* L, const double* r, int m) {
  for (int k = 0; k < m; k++) {
    double lkk = L[k * m + k];
    y[k] = lkk > 0 ? (r[k] - imp_dot(L + k * m, y, k)) / lkk : 0;
  }
}

/* x = (L L')^-1 r, dependent rows fixed at 0 */
static void cholesky_solve(double* x, const double* L, const double* r, int m) {
  forward_solve(x, L, r, m);
  for (int k = m - 1; k >= 0; k--) {
    double lkk = L[k * m + k];
    if (!(lkk > 0)) {
      x[k] = 0;
      continue;
    }
    double s = x[k];
    for (int i = k + 1; i < m; i++) s -= L[i * m + k] * x[i];
    x[k] = s / lkk;
  }
}

/* largest absolute row sum of H: an upper bound of its largest eigenvalue */
static double row_sum_bound(const double* H, int m) {
  double best = 0;
  for (int r = 0; r < m; r++) {
    double s = 0;
    for (int c = 0; c < m; c++) s += fabs(H[r * m + c]);
    best = fmax(best, s);
  }
  return best;
}

/* x(lambda) = -(H + lambda I)^-1 g and its norm; q = L^-1 x into q when set */
static double shifted_solution(double* x, double* q, const double* H, const double* g, int m,
                               double lambda, double eps) {
  double L[PGS_MAXDIM * PGS_MAXDIM], mg[PGS_MAXDIM];
  cholesky_semidefinite(L, H, m, lambda, eps);
  for (int k = 0; k < m; k++) mg[k] = -g[k];
  cholesky_solve(x, L, mg, m);
  if (q) forward_solve(q, L, x, m);
  return sqrt(imp_dot(x, x, m));
}

/* The trust-region subproblem min 1/2 x'Hx + g'x over ||x|| <= R (H PSD,
   m <= 5). Inside: the unconstrained minimizer. Else the boundary point
   x(lambda), lambda > 0, found by More-Sorensen's Newton iteration on
   psi(lambda) = 1/||x(lambda)|| = 1/R: psi is concave and increasing, so its
   Newton step from any lambda lands at or left of the root, and from the
   left it climbs to the root without passing it:
       lambda += (||x|| / ||q||)^2 (||x|| - R) / R,   q = L^-1 x.
   The root lies in [||g||/R - lambda_max(H), ||g||/R] (||x(lambda)|| is
   between ||g|| / (lambda_max + lambda) and ||g|| / (lambda_min + lambda)). */
static void solve_disk(double* x, const double* H, const double* g, int m, double R,
                       double eps) {
  double gnorm = sqrt(imp_dot(g, g, m));
  if (!(R > 0) || gnorm == 0) {
    imp_zero(x, m);
    return;
  }
  /* the unconstrained minimizer, when H is definite and it lies inside */
  double L[PGS_MAXDIM * PGS_MAXDIM], mg[PGS_MAXDIM];
  if (cholesky_semidefinite(L, H, m, 0, eps) == 0) {
    for (int k = 0; k < m; k++) mg[k] = -g[k];
    cholesky_solve(x, L, mg, m);
    if (imp_dot(x, x, m) <= R * R) return;
  }
  double hi = gnorm / R;
  double lo = fmax(hi - row_sum_bound(H, m), 0.0);
  /* keeps H + lambda I definite */
  double floor_lambda = fmax(1e-14 * (hi + row_sum_bound(H, m)), eps);
  double lambda = hi, q[PGS_MAXDIM];
  for (int it = 0; it < PGS_DISK_MAXITER; it++) {
    double xn = shifted_solution(x, q, H, g, m, lambda, eps);
    if (fabs(xn - R) <= 1e-13 * R) break;
    double qn2 = imp_dot(q, q, m);
    if (!(qn2 > 0)) break;
    double next = lambda + (xn * xn / qn2) * (xn - R) / R;
    next = fmax(next, fmax(lo, floor_lambda));
    if (next >= lambda && xn < R) break; /* the root is below the floor: x is the answer */
    lambda = next;
  }
  double xn = sqrt(imp_dot(x, x, m));
  if (xn > R) imp_scl(x, x, R / xn, m); /* exactly feasible */
}

/* equality block: f += df with H df = -w (dependent rows unchanged) */
static void update_equality(const imp_cproblem* p, double* f, int adr, int dim, const double* w,
                            double eps) {
  double H[PGS_MAXDIM * PGS_MAXDIM], L[PGS_MAXDIM * PGS_MAXDIM], r[PGS_MAXDIM], df[PGS_MAXDIM];
  sub_block(p, adr, adr, dim, H);
  cholesky_semidefinite(L, H, dim, 0, eps);
  for (int k = 0; k < dim; k++) r[k] = -w[k];
  cholesky_solve(df, L, r, dim);
  for (int k = 0; k < dim; k++) f[adr + k] += df[k];
}

/* one unilateral row i: f = max(0, f - w / A_ii) (Gauss-Seidel on the row) */
static void update_unilateral_row(const imp_cproblem* p, double* f, int i, double w, double eps) {
  double a = p->A[(size_t)i * (size_t)p->n + i];
  f[i] = a > eps ? fmax(0.0, f[i] - w / a) : fmax(0.0, f[i]);
}

/* one dry friction row i of bound R: f = clamp(f - w / A_ii, -R, R), the
   exact minimizer of the row's quadratic over the interval. A row without
   mobility of its own keeps its impulse, clamped: any |f| <= R is then as
   good as another for the row, and the interval must hold. */
static void update_dry_row(const imp_cproblem* p, double* f, int i, double w, double bound,
                           double eps) {
  double a = p->A[(size_t)i * (size_t)p->n + i];
  double R = bound > 0 ? bound : 0; /* a negative or NaN bound means no friction */
  double next = a > eps ? f[i] - w / a : f[i];
  f[i] = fmin(fmax(next, -R), R);
}

/* contact with friction: the normal row, then the friction rows on the disk */
static void update_friction(const imp_cproblem* p, double* f, int adr, int dim, double* w,
                            double mu, double eps) {
  int m = dim - 1;
  double fn_old = f[adr];
  update_unilateral_row(p, f, adr, w[0], eps);
  double dfn = f[adr] - fn_old;
  double H[PGS_MAXDIM * PGS_MAXDIM], g[PGS_MAXDIM], x[PGS_MAXDIM];
  sub_block(p, adr + 1, adr + 1, m, H);
  /* g = w_T after the normal update, minus H f_T: the linear term in f_T itself */
  for (int k = 0; k < m; k++) {
    int i = adr + 1 + k;
    g[k] = w[1 + k] + p->A[(size_t)i * (size_t)p->n + adr] * dfn -
           imp_dot(H + k * m, f + adr + 1, m);
  }
  solve_disk(x, H, g, m, (mu > 0 ? mu : 0) * f[adr], eps);
  imp_copy(f + adr + 1, x, m);
}

/* one block's Gauss-Seidel update; returns the largest change of its impulses */
static double update_block(const imp_cproblem* p, double* f, int blk, double eps) {
  int adr = p->blk_adr[blk], dim = p->blk_dim[blk], type = p->blk_type[blk];
  if (dim <= 0 || dim > PGS_MAXDIM) return 0;
  double old[PGS_MAXDIM], w[PGS_MAXDIM];
  imp_copy(old, f + adr, dim);
  if (type == IMP_CNSTR_EQUALITY) {
    block_velocity(p, f, adr, dim, w);
    update_equality(p, f, adr, dim, w, eps);
  } else if (type == IMP_CNSTR_CONTACT && dim > 1) {
    block_velocity(p, f, adr, dim, w);
    update_friction(p, f, adr, dim, w, p->mu[blk], eps);
  } else if (type == IMP_CNSTR_FRICTION) {
    for (int k = 0; k < dim; k++) { /* dim 1 (contact.h); row by row if ever more */
      block_velocity(p, f, adr + k, 1, w);
      update_dry_row(p, f, adr + k, w[0], p->mu[blk], eps);
    }
  } else {
    for (int k = 0; k < dim; k++) { /* row by row: each sees the previous one's update */
      block_velocity(p, f, adr + k, 1, w);
      update_unilateral_row(p, f, adr + k, w[0], eps);
    }
  }
  double change = 0;
  for (int k = 0; k < dim; k++) change = fmax(change, fabs(f[adr + k] - old[k]));
  return change;
}

/* the pivot threshold: a fraction of A's largest diagonal */
static double pivot_threshold(const imp_cproblem* p) {
  double dmax = 0;
  for (int i = 0; i < p->n; i++) dmax = fmax(dmax, p->A[(size_t)i * (size_t)p->n + i]);
  return PGS_PIVOT_REL * dmax;
}

/* warm start as given (non-finite entries cleared), or zeros */
static void initial_impulses(const imp_cproblem* p, const imp_csolver_opt* o, double* f) {
  if (!o->warmstart) {
    imp_zero(f, p->n);
    return;
  }
  for (int i = 0; i < p->n; i++)
    if (!isfinite(f[i])) f[i] = 0;
}



static size_t pgs_work_size(int n, int nblock) {
  (void)n;
  (void)nblock;
  return 0; /* everything lives on the stack */
}

static void pgs_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                      imp_csolver_stat* s, void* work) {
  (void)work;
  initial_impulses(p, o, f);
  if (!imp_cproblem_is_finite(p)) {
    imp_zero(f, p->n);
    *s = (imp_csolver_stat){0, 0, INFINITY, IMP_EXIT_FAILED};
    return;
  }
  double eps = pivot_threshold(p);
  s->iterations = 0;
  s->newton = 0;
  s->residual = 0;
  s->exit = IMP_EXIT_MAXITER;
  for (int it = 0; it < o->maxiter; it++) {
    double change = 0;
    for (int blk = 0; blk < p->nblock; blk++) change = fmax(change, update_block(p, f, blk, eps));
    s->iterations = it + 1;
    double fmax_abs = imp_max_abs_or_inf(f, p->n);
    if (!isfinite(fmax_abs)) { /* never hand NaN back */
      imp_zero(f, p->n);
      s->residual = INFINITY;
      s->exit = IMP_EXIT_DIVERGED;
      if (o->monitor) o->monitor(o->monitor_ctx, it, f); /* one call per iteration, always */
      return;
    }
    s->residual = change / fmax(1.0, fmax_abs);
    if (o->monitor) o->monitor(o->monitor_ctx, it, f);
    if (change <= o->tol * fmax(1.0, fmax_abs)) {
      s->exit = IMP_EXIT_CONVERGED;
      return;
    }
  }
}

const imp_csolver imp_solver_pgs = {
    "pgs",
    "projected Gauss-Seidel over blocks, normal then friction on the disk (baseline)",
    pgs_work_size, pgs_solve, IMP_LAW_CONE, 2, NULL, 1};
