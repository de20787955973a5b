/* Non-smooth Newton on the minimum map (Erleben and Ortiz, "A Non-smooth
 * Newton Method for Multibody Dynamics"), with box friction.
 *
 * The problem (paper eq. 1a-1c) in our notation: x = f, y = A f + q with
 * q = v0 - b (so y is contact.h's w), and per row bounds l(x) <= x <= u(x):
 *  - equality rows:                   l = -inf, u = +inf  (y = 0);
 *  - limits, frictionless contacts
 *    and the normal row of a contact: l = 0,    u = +inf;
 *  - friction rows (1..dim-1) of a
 *    contact with normal row N:       l = -mu x_N, u = mu x_N (the box, or
 *    friction "pyramid" of the paper: each friction row on its own, so
 *    ||f_T|| can reach sqrt(dim - 1) mu f_N, not the circular cone of
 *    contact.h; torsional and rolling rows of condim 4 and 6 get the same
 *    bound on the stage's rescaled rows);
 *  - dry friction rows (IMP_CNSTR_FRICTION, joint frictionloss) with the
 *    fixed bound F = mu[k] of their block: l = -F, u = F. A one-row box is
 *    the interval of contact.h itself, so on these rows the box law is the
 *    exact law (clamp(x - y) = x, i.e. y = 0 inside, y opposing x on the
 *    bound), not an approximation.
 * The complementarity conditions become the non-smooth equation (eq. 5)
 *     H(x) = max(x - u(x), min(x - l(x), y)) = 0     (componentwise),
 * each H_i a selection of three affine pieces. Which piece is active gives
 * the index sets (eq. 10): L (H_i = x_i - l_i), A (H_i = y_i), U (H_i =
 * x_i - u_i), and the B-derivative rows (eq. 9):
 *     L: e_i + mu_i e_N,    A: A_i (row of A),    U: e_i - mu_i e_N
 * (mu_i = 0 for rows whose bound does not move: the normal, limits, and dry
 * friction, whose bound is a constant: no e_N term couples it to any row,
 * so its L and U rows are just e_i and it drops out of the elimination).
 * Newton equation (eq. 6): BH dx = -H. With I = L u U the rows in I say
 *     dx_i = -H_i - s_i mu_i dx_N   (s = +1 in L, -1 in U),
 * i.e. D dx_I + C dx_A = -H_I with D unit lower triangular (a normal row
 * precedes its friction rows), so dx_I = g_I + G dx_A, G = -D^-1 C nonzero
 * only in the columns of normal rows that are in A. The A rows then give
 * the Schur complement system (eq. 11 and the one after it):
 *     S dx_A = -H_A - A_AI g_I,     S = A_AA + A_AI G = A_AA - A_AI D^-1 C.
 * S may be singular (A is only semidefinite: redundant contacts), which the
 * paper meets with an SVD; we use Gaussian elimination with complete
 * pivoting, stopping at pivots below 1e-13 of the largest: the unknowns
 * left are set to 0, which solves any consistent singular system exactly
 * (a basic solution) and never divides by a tiny pivot.
 * The step x += tau dx takes tau by Armijo backtracking on the natural
 * merit theta = 1/2 ||H||^2 (eq. 7): theta(x + tau dx) <= theta(x) +
 * c tau H'(BH dx), tau = 1, 1/2, ... The directional derivative H'(BH dx)
 * is computed, not assumed to be -||H||^2, so a truncated singular solve is
 * still checked for descent.
 * Warm start (paper, "Numerical behavior"): 4 projected Gauss-Seidel sweeps
 * on the same box problem before Newton, counted as iterations as in the
 * paper's Table 2. When Newton finds no descent (backtracking failed, the
 * paper's third outcome) a further Gauss-Seidel sweep is the iteration, and
 * Newton resumes from there; if that sweep moves nothing either the solver
 * has stalled and says so.
 *
 * Stopping: ||H||_2 <= tol * max(||q||, ||x||, ||y||) (H is 0 exactly at a
 * solution of the box problem; scaled as residual.c scales its measure), or
 * H = 0 when all three vanish. s->residual reports that relative ||H||.
 * s->newton counts iterations that took a Newton step. On exit f is the
 * iterate of least theta seen. All scratch is in work. */
#include <math.h>
#include <stdint.h>

#include "constraint/contact.h"
#include "core/mathx.h"

#define MM_PGS_WARM 4        /* Gauss-Seidel sweeps before Newton (the paper's 4) */
#define MM_ARMIJO 1e-4       /* sufficient decrease constant */
/* backtracking failed below this step: near a kink of H the Newton
   direction of the current index sets is only valid for a tiny step, and
   taking such steps crawls (deficient-rank family: 100 iterations at most
   with 1e-10, 23 with 1e-3); a Gauss-Seidel sweep changes the sets instead */
#define MM_TAU_MIN 1e-3
#define MM_PIVOT_REL 1e-13   /* pivots below this fraction of the largest: dependent */
#define MM_ROW_PIVOT_REL 1e-12 /* Gauss-Seidel: rows of A with no mobility of their own */

/* bound kinds: none; [0, inf); [-mu x_N, mu x_N]; [-F, F] with F fixed */
enum { ROW_FREE = 0, ROW_LOWER = 1, ROW_FRICTION = 2, ROW_FIXED = 3 };
enum { SET_A = 0, SET_L = 1, SET_U = 2 };               /* eq. 10 */

/* the solver's scratch, carved from work */
typedef struct mm_work {
  double *q, *y, *H, *dx, *xt, *yt, *Ht, *best, *bhd, *mu, *S, *rhs, *g;
  int *kind, *nrm, *set, *pos, *idx, *rperm, *cperm;
} mm_work;

static size_t align16(size_t b) { return (b + 15) / 16 * 16; }

static size_t mm_work_size(int n, int nblock) {
  (void)nblock;
  size_t nn = (size_t)(n > 0 ? n : 1);
  return align16(nn * nn * sizeof(double)) + 12 * align16(nn * sizeof(double)) +
         7 * align16(nn * sizeof(int)) + 16;
}

static void* carve(char** p, size_t bytes) {
  void* r = *p;
  *p += align16(bytes);
  return r;
}

static mm_work layout(int n, void* work) {
  size_t nn = (size_t)(n > 0 ? n : 1), d = nn * sizeof(double), i = nn * sizeof(int);
  char* p = (char*)(((uintptr_t)work + 15) / 16 * 16);
  mm_work w;
  w.S = carve(&p, nn * d);
  w.q = carve(&p, d), w.y = carve(&p, d), w.H = carve(&p, d), w.dx = carve(&p, d);
  w.xt = carve(&p, d), w.yt = carve(&p, d), w.Ht = carve(&p, d), w.best = carve(&p, d);
  w.bhd = carve(&p, d), w.mu = carve(&p, d), w.rhs = carve(&p, d), w.g = carve(&p, d);
  w.kind = carve(&p, i), w.nrm = carve(&p, i), w.set = carve(&p, i), w.pos = carve(&p, i);
  w.idx = carve(&p, i), w.rperm = carve(&p, i), w.cperm = carve(&p, i);
  return w;
}

/* per row: its bound kind, its normal row and mu (friction rows), or the
   bound itself in mu (dry friction rows, which have no normal: nrm = -1
   keeps every coupling term of newton_direction off for them) */
static void row_bounds(const imp_cproblem* p, mm_work* w) {
  for (int k = 0; k < p->nblock; k++) {
    int adr = p->blk_adr[k], dim = p->blk_dim[k], type = p->blk_type[k];
    for (int r = 0; r < dim; r++) {
      int i = adr + r;
      w->nrm[i] = -1;
      w->mu[i] = 0;
      if (type == IMP_CNSTR_EQUALITY) {
        w->kind[i] = ROW_FREE;
      } else if (type == IMP_CNSTR_CONTACT && dim > 1 && r > 0) {
        w->kind[i] = ROW_FRICTION;
        w->nrm[i] = adr;
        w->mu[i] = p->mu[k] > 0 ? p->mu[k] : 0;
      } else if (type == IMP_CNSTR_FRICTION) {
        w->kind[i] = ROW_FIXED;
        w->mu[i] = p->mu[k] > 0 ? p->mu[k] : 0;
      } else {
        w->kind[i] = ROW_LOWER;
      }
    }
  }
}

/* y = A x + q */
static void velocity(const imp_cproblem* p, const mm_work* w, const double* x, double* y) {
  for (int i = 0; i < p->n; i++) y[i] = imp_dot(p->A + (size_t)i * (size_t)p->n, x, p->n) + w->q[i];
}

/* H(x) of eq. 5 given y, the active piece of each row into set (may be
   NULL); returns theta = 1/2 ||H||^2 */
static double minmap(const imp_cproblem* p, const mm_work* w, const double* x, const double* y,
                     double* H, int* set) {
  double theta = 0;
  for (int i = 0; i < p->n; i++) {
    double xl, xu; /* x - l, x - u */
    int kind = w->kind[i];
    if (kind == ROW_FREE) {
      xl = INFINITY, xu = -INFINITY;
    } else if (kind == ROW_LOWER) {
      xl = x[i], xu = -INFINITY;
    } else if (kind == ROW_FIXED) {
      xl = x[i] + w->mu[i], xu = x[i] - w->mu[i];
    } else {
      double bound = w->mu[i] * x[w->nrm[i]];
      xl = x[i] + bound, xu = x[i] - bound;
    }
    int s;
    double h;
    double lower = fmin(xl, y[i]);
    if (xu > lower) s = SET_U, h = xu;
    else if (xl < y[i]) s = SET_L, h = xl;
    else s = SET_A, h = y[i];
    H[i] = h;
    if (set) set[i] = s;
    theta += 0.5 * h * h;
  }
  return theta;
}

/* ||H|| relative to max(||q||, ||x||, ||y||), as the stopping measure */
static double relative_measure(int n, const double* q, const double* x, const double* y,
                               double theta) {
  double scale = sqrt(fmax(imp_dot(q, q, n), fmax(imp_dot(x, x, n), imp_dot(y, y, n))));
  double hn = sqrt(2 * theta);
  return scale > 0 ? hn / scale : hn;
}

/* Solve the m x m system S z = r (row-major, overwritten) by Gaussian
   elimination with complete pivoting; pivots below rel * the first pivot
   end the elimination and leave their unknowns at 0. Returns the rank. */
static int solve_complete_pivot(double* S, double* r, double* z, int m, int* rp, int* cp,
                                double rel) {
  for (int i = 0; i < m; i++) rp[i] = cp[i] = i;
  double first = 0;
  int rank = 0;
  for (int k = 0; k < m; k++) {
    int bi = k, bj = k;
    double big = -1;
    for (int i = k; i < m; i++)
      for (int j = k; j < m; j++) {
        double a = fabs(S[rp[i] * m + cp[j]]);
        if (a > big) big = a, bi = i, bj = j;
      }
    if (k == 0) first = big;
    if (!(big > rel * first) || !(big > 0)) break;
    int t = rp[k];
    rp[k] = rp[bi], rp[bi] = t;
    t = cp[k], cp[k] = cp[bj], cp[bj] = t;
    double piv = S[rp[k] * m + cp[k]];
    for (int i = k + 1; i < m; i++) {
      double* row = S + rp[i] * m;
      double l = row[cp[k]] / piv;
      if (l == 0) continue;
      for (int j = k; j < m; j++) row[cp[j]] -= l * S[rp[k] * m + cp[j]];
      r[rp[i]] -= l * r[rp[k]];
    }
    rank++;
  }
  for (int j = 0; j < m; j++) z[j] = 0;
  for (int k = rank - 1; k >= 0; k--) {
    const double* row = S + rp[k] * m;
    double s = r[rp[k]];
    for (int j = k + 1; j < rank; j++) s -= row[cp[j]] * z[cp[j]];
    z[cp[k]] = s / row[cp[k]];
  }
  return rank;
}

/* The Newton direction dx from BH dx = -H by the Schur complement (eq. 11);
   returns H'(BH dx), the directional derivative of theta (into bhd: BH dx). */
static double newton_direction(const imp_cproblem* p, mm_work* w) {
  int n = p->n, na = 0;
  /* the A rows, and g_I = -D^-1 H_I (normal rows first within a block) */
  for (int i = 0; i < n; i++) {
    if (w->set[i] == SET_A) {
      w->pos[i] = na;
      w->idx[na++] = i;
      w->g[i] = 0;
    } else {
      w->pos[i] = -1;
      double sgn = w->set[i] == SET_L ? 1 : -1;
      int N = w->nrm[i];
      w->g[i] = -w->H[i];
      if (N >= 0 && w->set[N] != SET_A) w->g[i] -= sgn * w->mu[i] * w->g[N];
    }
  }
  /* S = A_AA + A_AI G and rhs = -H_A - A_AI g_I */
  for (int a = 0; a < na; a++) {
    const double* Ar = p->A + (size_t)w->idx[a] * (size_t)n;
    double* Sr = w->S + (size_t)a * (size_t)na;
    for (int c = 0; c < na; c++) Sr[c] = Ar[w->idx[c]];
    double r = -w->H[w->idx[a]];
    for (int i = 0; i < n; i++) {
      if (w->set[i] == SET_A) continue;
      r -= Ar[i] * w->g[i];
      int N = w->nrm[i];
      if (N >= 0 && w->set[N] == SET_A) {
        double sgn = w->set[i] == SET_L ? 1 : -1;
        Sr[w->pos[N]] += Ar[i] * (-sgn * w->mu[i]);
      }
    }
    w->rhs[a] = r;
  }
  double* z = w->yt; /* dx_A, scratch until the line search */
  solve_complete_pivot(w->S, w->rhs, z, na, w->rperm, w->cperm, MM_PIVOT_REL);
  for (int i = 0; i < n; i++) w->dx[i] = w->set[i] == SET_A ? z[w->pos[i]] : 0;
  /* dx_I = g_I + G dx_A, in row order (a normal row before its friction) */
  for (int i = 0; i < n; i++) {
    if (w->set[i] == SET_A) continue;
    int N = w->nrm[i];
    double sgn = w->set[i] == SET_L ? 1 : -1;
    w->dx[i] = w->g[i];
    if (N >= 0 && w->set[N] == SET_A) w->dx[i] -= sgn * w->mu[i] * w->dx[N];
  }
  /* BH dx (eq. 9), and H'(BH dx) */
  double deriv = 0;
  for (int i = 0; i < n; i++) {
    double v;
    if (w->set[i] == SET_A) {
      v = imp_dot(p->A + (size_t)i * (size_t)n, w->dx, n);
    } else {
      double sgn = w->set[i] == SET_L ? 1 : -1;
      int N = w->nrm[i];
      v = w->dx[i] + (N >= 0 ? sgn * w->mu[i] * w->dx[N] : 0);
    }
    w->bhd[i] = v;
    deriv += w->H[i] * v;
  }
  return deriv;
}

/* One projected Gauss-Seidel sweep over the rows on the box problem (y kept
   current); returns the largest change. */
static double gs_sweep(const imp_cproblem* p, const mm_work* w, double* x, double* y,
                       double eps) {
  int n = p->n;
  double change = 0;
  for (int i = 0; i < n; i++) {
    const double* Ai = p->A + (size_t)i * (size_t)n;
    double a = Ai[i], xi = x[i], r = imp_dot(Ai, x, n) + w->q[i];
    double t = a > eps ? xi - r / a : xi;
    if (w->kind[i] == ROW_LOWER) {
      t = fmax(t, 0);
    } else if (w->kind[i] == ROW_FRICTION) {
      double bound = fmax(w->mu[i] * x[w->nrm[i]], 0);
      t = fmin(fmax(t, -bound), bound);
    } else if (w->kind[i] == ROW_FIXED) {
      t = fmin(fmax(t, -w->mu[i]), w->mu[i]);
    }
    x[i] = t;
    change = fmax(change, fabs(t - xi));
  }
  velocity(p, w, x, y);
  return change;
}

/* clamp x onto its bounds (normals first, then their friction rows; dry
   friction onto its fixed interval);
   returns whether anything moved */
static int project_bounds(const mm_work* w, double* x, int n) {
  int moved = 0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    if (w->kind[i] == ROW_LOWER) {
      t = fmax(t, 0);
    } else if (w->kind[i] == ROW_FRICTION) {
      double bound = fmax(w->mu[i] * x[w->nrm[i]], 0);
      t = fmin(fmax(t, -bound), bound);
    } else if (w->kind[i] == ROW_FIXED) {
      t = fmin(fmax(t, -w->mu[i]), w->mu[i]);
    }
    moved |= t != x[i];
    x[i] = t;
  }
  return moved;
}

static int all_finite(const double* v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}


static void mm_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                     imp_csolver_stat* s, void* work) {
  int n = p->n;
  *s = (imp_csolver_stat){0, 0, 0, IMP_EXIT_CONVERGED};
  if (n <= 0) return;
  if (!imp_cproblem_is_finite(p)) {
    imp_zero(f, n);
    *s = (imp_csolver_stat){0, 0, INFINITY, IMP_EXIT_FAILED};
    return;
  }
  mm_work w = layout(n, work);
  row_bounds(p, &w);
  for (int i = 0; i < n; i++) w.q[i] = p->v0[i] - p->b[i];
  if (!o->warmstart) imp_zero(f, n);
  for (int i = 0; i < n; i++)
    if (!isfinite(f[i])) f[i] = 0;
  double eps = 0;
  for (int i = 0; i < n; i++) eps = fmax(eps, p->A[(size_t)i * (size_t)n + i]);
  eps *= MM_ROW_PIVOT_REL;

  velocity(p, &w, f, w.y);
  double theta = minmap(p, &w, f, w.y, w.H, w.set);
  double best_theta = theta;
  imp_copy(w.best, f, n);
  s->residual = relative_measure(n, w.q, f, w.y, theta);
  if (s->residual <= o->tol) return; /* converged with no iteration */
  s->exit = IMP_EXIT_MAXITER;
  for (int it = 0; it < o->maxiter; it++) {
    int took_newton = 0;
    double change = 0;
    if (it >= MM_PGS_WARM) {
      double deriv = newton_direction(p, &w);
      if (deriv < 0 && all_finite(w.dx, n)) {
        /* Armijo backtracking on theta (eq. 7) */
        for (double tau = 1; tau >= MM_TAU_MIN; tau *= 0.5) {
          for (int i = 0; i < n; i++) w.xt[i] = f[i] + tau * w.dx[i];
          velocity(p, &w, w.xt, w.yt);
          double th = minmap(p, &w, w.xt, w.yt, w.Ht, NULL);
          if (th <= theta + MM_ARMIJO * tau * deriv) {
            for (int i = 0; i < n; i++) change = fmax(change, fabs(w.xt[i] - f[i]));
            imp_copy(f, w.xt, n);
            imp_copy(w.y, w.yt, n);
            took_newton = 1;
            break;
          }
        }
      }
    }
    if (!took_newton) {
      /* warm-up sweep, or backtracking failed: a Gauss-Seidel sweep */
      change = gs_sweep(p, &w, f, w.y, eps);
    }
    s->iterations = it + 1;
    s->newton += took_newton;
    if (!all_finite(f, n) || !all_finite(w.y, n)) {
      imp_copy(f, w.best, n); /* never hand NaN back: the best finite iterate */
      if (!all_finite(f, n)) imp_zero(f, n);
      s->exit = IMP_EXIT_DIVERGED;
      s->residual = INFINITY;
      if (o->monitor) o->monitor(o->monitor_ctx, it, f);
      return;
    }
    theta = minmap(p, &w, f, w.y, w.H, w.set);
    if (theta < best_theta) best_theta = theta, imp_copy(w.best, f, n);
    s->residual = relative_measure(n, w.q, f, w.y, theta);
    if (o->monitor) o->monitor(o->monitor_ctx, it, f);
    if (s->residual <= o->tol) {
      s->exit = IMP_EXIT_CONVERGED;
      break;
    }
    double xmax = 1;
    for (int i = 0; i < n; i++) xmax = fmax(xmax, fabs(f[i]));
    if (!took_newton && it >= MM_PGS_WARM && change <= 1e-15 * xmax) {
      s->exit = IMP_EXIT_STALLED; /* no Newton descent and the sweep moves nothing */
      break;
    }
  }
  int restored = s->exit != IMP_EXIT_CONVERGED && best_theta < theta;
  if (restored) imp_copy(f, w.best, n);
  /* Newton iterates meet the bounds only in the limit: clamp the answer
     onto them (a move of at most |H| per row), and report its measure; also
     when f went back to the best iterate, whose measure is not the last
     one's (least theta is not least relative measure: measured on the dry
     friction deficient family, the last iterate's 4.9e-4 was reported for
     a returned best of 3.6e-2) */
  int moved = project_bounds(&w, f, n);
  if (moved || restored) {
    velocity(p, &w, f, w.y);
    s->residual = relative_measure(n, w.q, f, w.y, minmap(p, &w, f, w.y, w.H, NULL));
  }
}

const imp_csolver imp_solver_minmap = {
    "minmap",
    "non-smooth Newton on the minimum map, box friction, PGS warm start (Erleben-Ortiz)",
    mm_work_size, mm_solve, IMP_LAW_POLYHEDRAL, 3, NULL, 0};
