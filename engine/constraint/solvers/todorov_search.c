/* Todorov 2010: the edge-aware linesearch (Section III.C, eq. 27) and the
 * initialization (Section III.F). The derivations are in the header of
 * todorov.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "core/sort.h"
#include "constraint/solvers/todorov_impl.h"

/* ---- edge-aware linesearch (Section III.C) ---- */

/* crossing a before b: by alpha, then block, then plane before cone (the
   order they are found in, so the sort gives what a stable sort by alpha
   alone gives; alpha is never NaN, see imp_tod_find_crossings) */
static int crossing_before(const void* pa, const void* pb, void* ctx) {
  const crossing *a = pa, *b = pb;
  (void)ctx;
  if (a->alpha != b->alpha) return a->alpha < b->alpha;
  if (a->blk != b->blk) return a->blk < b->blk;
  return a->kind < b->kind;
}

/* the roots of c2 a^2 + c1 a + c0 = 0 (stable form); the count */
static int quadratic_roots(double c2, double c1, double c0, double root[2]) {
  double scale = fmax(fabs(c2), fmax(fabs(c1), fabs(c0)));
  if (!(scale > 0)) return 0;
  if (fabs(c2) <= 1e-14 * scale) {
    if (c1 == 0) return 0;
    root[0] = -c0 / c1;
    return 1;
  }
  double disc = c1 * c1 - 4 * c2 * c0;
  if (disc < 0) return 0;
  double q = -0.5 * (c1 + copysign(sqrt(disc), c1));
  root[0] = q / c2;
  if (q == 0) return 1;
  root[1] = c0 / q;
  return 2;
}

/* Every crossing of P + alpha u, alpha in (0, 1), with a plane or cone edge
   (eq. 27), sorted; the count */
int imp_tod_find_crossings(const tod* s, const double* P, const double* u, crossing* cr) {
  const imp_cproblem* p = s->p;
  int nc = 0;
  for (int k = 0; k < s->nb; k++) {
    if (p->blk_type[k] == IMP_CNSTR_EQUALITY) continue;
    int dim = p->blk_dim[k], adr = p->blk_adr[k];
    if (p->blk_type[k] == IMP_CNSTR_FRICTION) { /* the planes x = +-F */
      for (int side = -1; side <= 1 && p->mu[k] > 0 && u[adr] != 0; side += 2) {
        double al = (side * p->mu[k] - P[adr]) / u[adr];
        if (al > ALPHA_EPS && al < 1 - ALPHA_EPS) cr[nc++] = (crossing){al, k, EDGE_PLANE};
      }
      continue;
    }
    double a = P[adr] - p->b[adr], un = u[adr];
    if (un != 0) {
      double al = -a / un;
      if (al > ALPHA_EPS && al < 1 - ALPHA_EPS) cr[nc++] = (crossing){al, k, EDGE_PLANE};
    }
    if (!imp_tod_has_cone(p, k)) continue;
    double mu2 = p->mu[k] * p->mu[k], root[2];
    double c2 = mu2 * un * un - imp_tod_dot_small(u + adr + 1, u + adr + 1, dim - 1);
    double c1 = 2 * (mu2 * a * un - imp_tod_dot_small(P + adr + 1, u + adr + 1, dim - 1));
    double c0 = mu2 * a * a - imp_tod_dot_small(P + adr + 1, P + adr + 1, dim - 1);
    int nr = quadratic_roots(c2, c1, c0, root);
    for (int i = 0; i < nr; i++)
      if (root[i] > ALPHA_EPS && root[i] < 1 - ALPHA_EPS && a + root[i] * un < 0)
        cr[nc++] = (crossing){root[i], k, EDGE_CONE};
  }
  imp_heapsort(cr, nc, sizeof *cr, crossing_before, NULL); /* sort.h: no malloc */
  return nc;
}

/* put block k of xp exactly on the edge it crosses */
void imp_tod_snap_to_edge(const imp_cproblem* p, const crossing* c, double* xp) {
  int k = c->blk, adr = p->blk_adr[k], dim = p->blk_dim[k];
  if (c->kind == EDGE_PLANE) { /* a dry friction row crosses the plane on its own side */
    xp[adr] = p->blk_type[k] == IMP_CNSTR_FRICTION ? copysign(p->mu[k], xp[adr]) : p->b[adr];
    return;
  }
  double rho = sqrt(imp_tod_dot_small(xp + adr + 1, xp + adr + 1, dim - 1));
  double target = p->mu[k] * (p->b[adr] - xp[adr]);
  if (rho > 0 && target >= 0) imp_scl(xp + adr + 1, xp + adr + 1, target / rho, dim - 1);
}

/* dl/dalpha along u at xp (residual rp) with the Jacobians of the regions in
   s->reg: w'J u, J u = (A - I) F u - u */
static double directional_derivative(tod* s, const double* xp, const double* rp, const double* u) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  double* Fu = s->tmp;
  for (int k = 0; k < s->nb; k++) {
    int adr = p->blk_adr[k];
    imp_tod_block_jacobian_apply(p, k, s->reg[k], xp + adr, u + adr, Fu + adr);
  }
  double dl = 0, *AFu = s->gr; /* gr is free during the linesearch */
  imp_tod_a_mul(s, AFu, Fu);
  for (int i = 0; i < n; i++) {
    double Ju = AFu[i] - Fu[i] - u[i];
    dl += s->D[i] * s->D[i] * rp[i] * Ju;
  }
  return dl;
}

/* Minimizer of the cubic Hermite interpolant of (l0, d0) at a0 and (l1, d1)
   at a1 (Nocedal & Wright 2006, eq. 3.59), clipped into [a0, a1]; when the
   cubic has no minimum, the quadratic through l0, d0, l1; NAN if neither. */
static double cubic_minimizer(double a0, double l0, double d0, double a1, double l1, double d1) {
  double len = a1 - a0;
  double e1 = d0 + d1 - 3 * (l0 - l1) / (a0 - a1);
  double disc = e1 * e1 - d0 * d1;
  double a;
  if (disc >= 0) {
    double e2 = sqrt(disc);
    double den = d1 - d0 + 2 * e2;
    a = den != 0 ? a1 - len * (d1 + e2 - e1) / den : NAN;
  } else {
    double curv = l1 - l0 - d0 * len;
    a = curv > 0 ? a0 - d0 * len * len / (2 * curv) : NAN;
  }
  if (!isfinite(a)) return NAN;
  return fmin(fmax(a, a0), a1);
}

/* keep (xp, fp, rp, lp) as the best point when it beats it */
void imp_tod_offer_candidate(tod* s, const double* xp, const double* fp, const double* rp,
                            double lp, double* lbest) {
  if (!(lp < *lbest)) return;
  *lbest = lp;
  imp_copy(s->xb, xp, s->n);
  imp_copy(s->fb, fp, s->n);
  imp_copy(s->rb, rp, s->n);
}

/* xp = P + alpha u */
void imp_tod_segment_point(const tod* s, const double* P, const double* u, double alpha, double* xp) {
  for (int i = 0; i < s->n; i++) xp[i] = P[i] + alpha * u[i];
}

/* The linesearch over P : Q (l and r known at both ends): every crossing and
   one cubic step in every smooth sub-segment are offered as candidates. */
void imp_tod_search_segment(tod* s, const double* P, const double* rP, double lP, const double* Q,
                           const double* rQ, double lQ, double* lbest) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  double* u = s->u;
  for (int i = 0; i < n; i++) u[i] = Q[i] - P[i];
  int nc = imp_tod_find_crossings(s, P, u, s->cross);
  imp_copy(s->xl, P, n);
  imp_copy(s->rl, rP, n);
  double ll = lP, a0 = 0;
  for (int c = 0; c <= nc; c++) {
    double a1 = c < nc ? s->cross[c].alpha : 1, lr;
    if (c < nc) {
      imp_tod_segment_point(s, P, u, a1, s->xr);
      imp_tod_snap_to_edge(p, &s->cross[c], s->xr);
      lr = imp_tod_eval_point(s, s->xr, s->fr, s->rr);
      imp_tod_offer_candidate(s, s->xr, s->fr, s->rr, lr, lbest);
    } else {
      imp_copy(s->xr, Q, n);
      imp_copy(s->rr, rQ, n);
      lr = lQ;
    }
    if (a1 - a0 > ALPHA_EPS) {
      imp_tod_segment_point(s, P, u, 0.5 * (a0 + a1), s->xt);
      for (int k = 0; k < s->nb; k++) s->reg[k] = imp_tod_block_region(p, k, s->xt + p->blk_adr[k]);
      double d0 = directional_derivative(s, s->xl, s->rl, u);
      double d1 = directional_derivative(s, s->xr, s->rr, u);
      double a = cubic_minimizer(a0, ll, d0, a1, lr, d1);
      if (a > a0 + ALPHA_EPS && a < a1 - ALPHA_EPS) {
        imp_tod_segment_point(s, P, u, a, s->xt);
        double lt = imp_tod_eval_point(s, s->xt, s->ft, s->rt);
        imp_tod_offer_candidate(s, s->xt, s->ft, s->rt, lt, lbest);
      }
    }
    double* t;
    t = s->xl, s->xl = s->xr, s->xr = t;
    t = s->rl, s->rl = s->rr, s->rr = t;
    ll = lr;
    a0 = a1;
  }
}

/* ---- initialization (Section III.F) ---- */

/* imp_pivoted_cholesky (core/mathx.h) for a sparse A, the same bits; *finite: 1 when every
   column of L is finite. A row i whose L(i, k) is 0 is left out of step
   k's update while column k is finite: it would subtract col_j * (+-0) =
   +-0 from each entry, which changes no value and at most a zero's sign
   (-0 - -0 = +0), and no zero's sign can change a value here (zeros are
   only multiplied and added, never divided by: the pivots are > 0; every
   sum of the caller starts at +0, so a +-0 term leaves it as it was).
   Why: the island of MuJoCo's hammock, 180 rows of tendon equalities on a
   particle grid, has 96% of A and 75% of L zero even in pivot order. A
   dense A keeps imp_pivoted_cholesky: the tests cost MuJoCo's cloth (64 rows,
   no zero) a few percent. Not inlined, nor is gram_row_list: inlined, they
   cost that dense path 3% (callgrind, cloth.xml 100 steps) in the code
   the compiler then made of it. */
__attribute__((noinline)) static int pivoted_cholesky_sparse(double* W, int n, int* perm, double* col, int* finite) {
  double dmax = imp_pivot_start(W, n, perm);
  int rank = 0;
  *finite = 1;
  for (int k = 0; k < n; k++) {
    double l = imp_pivot_take(W, n, k, perm, dmax, RANK_TOL);
    if (l == 0) break;
    int colfinite = 1;
    for (int i = k + 1; i < n; i++) {
      col[i] = W[(size_t)i * n + k] /= l;
      colfinite &= isfinite(col[i]) != 0;
    }
    *finite &= colfinite;
    for (int i = k + 1; i < n; i++)
      if (col[i] != 0 || !colfinite)
        imp_sub_scaled(W + (size_t)i * n + k + 1, col + k + 1, col[i], i - k);
    rank = k + 1;
  }
  return rank;
}

/* out[q] = sum over i = k, k + 1, ..., n - 1, in order, of W(i, k) W(i, j0
   + q) for q < 8 (j0 + 7 <= k): eight sums side by side, each row i read
   contiguously */
static void gram_sums8(const double* W, int n, int k, int j0, double out[8]) {
  v4d s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
  for (int i = k; i < n; i++) {
    const double* Wi = W + (size_t)i * n;
    v4d wk = {Wi[k], Wi[k], Wi[k], Wi[k]}, a, b;
    memcpy(&a, Wi + j0, sizeof a);
    memcpy(&b, Wi + j0 + 4, sizeof b);
    s0 += wk * a;
    s1 += wk * b;
  }
  memcpy(out, &s0, sizeof s0);
  memcpy(out + 4, &s1, sizeof s1);
}

/* gram_sums8 for four sums */
static void gram_sums4(const double* W, int n, int k, int j0, double out[4]) {
  v4d s0 = {0, 0, 0, 0};
  for (int i = k; i < n; i++) {
    const double* Wi = W + (size_t)i * n;
    v4d wk = {Wi[k], Wi[k], Wi[k], Wi[k]}, a;
    memcpy(&a, Wi + j0, sizeof a);
    s0 += wk * a;
  }
  memcpy(out, &s0, sizeof s0);
}

/* gram_sums8 over the rows rows[0 .. len) only, ascending: those of i = k,
   ..., n - 1 whose W(i, k) is not 0 (pseudo_inverse_solve) */
static void gram_rows8(const double* W, int n, const int* rows, int len, int k, int j0,
                       double out[8]) {
  v4d s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
  for (int t = 0; t < len; t++) {
    const double* Wi = W + (size_t)rows[t] * n;
    v4d wk = {Wi[k], Wi[k], Wi[k], Wi[k]}, a, b;
    memcpy(&a, Wi + j0, sizeof a);
    memcpy(&b, Wi + j0 + 4, sizeof b);
    s0 += wk * a;
    s1 += wk * b;
  }
  memcpy(out, &s0, sizeof s0);
  memcpy(out + 4, &s1, sizeof s1);
}

/* gram_rows8 for four sums */
static void gram_rows4(const double* W, int n, const int* rows, int len, int k, int j0,
                       double out[4]) {
  v4d s0 = {0, 0, 0, 0};
  for (int t = 0; t < len; t++) {
    const double* Wi = W + (size_t)rows[t] * n;
    v4d wk = {Wi[k], Wi[k], Wi[k], Wi[k]}, a;
    memcpy(&a, Wi + j0, sizeof a);
    s0 += wk * a;
  }
  memcpy(out, &s0, sizeof s0);
}

/* z_k and the lower triangle of row k of G (Gk) over the rows rows[0 ..
   len) of column k of L (pseudo_inverse_solve) */
__attribute__((noinline)) static void gram_row_list(const double* W, int n, const int* rows, int len, int k,
                          const double* c, const int* perm, double* zk, double* Gk) {
  double sum = 0;
  for (int t = 0; t < len; t++) sum += W[(size_t)rows[t] * n + k] * c[perm[rows[t]]];
  *zk = sum;
  int j = 0;
  for (; j + 8 <= k + 1; j += 8) gram_rows8(W, n, rows, len, k, j, Gk + j);
  if (j + 4 <= k + 1) {
    gram_rows4(W, n, rows, len, k, j, Gk + j);
    j += 4;
  }
  for (; j <= k; j++) {
    double g = 0;
    for (int t = 0; t < len; t++) g += W[(size_t)rows[t] * n + k] * W[(size_t)rows[t] * n + j];
    Gk[j] = g;
  }
}

/* f = A^+ c, the minimum-norm least-squares solution, by pivoted Cholesky
   A = P L L' P' (n x rank L) and A^+ = P L (L'L)^-2 L' P' (header). Uses
   s->J (the factor), s->H (L'L), s->tmp and s->g (the factor's column,
   then the rows of column k of L that are not 0, as ints: 2 n fit). */
static void pseudo_inverse_solve(tod* s, const double* c, double* f) {
  int n = s->n;
  double* W = s->J;
  int* perm = s->perm;
  memcpy(W, s->p->A, (size_t)n * n * sizeof(double));
  /* sparse when A's first row is half zero (n tests, not n^2: enough to
     tell a grid's A from the dense one of rows on one tree), in islands of
     64 rows and more: below, the tests cost more than the zeros save
     (humanoid100, 500 steps: 2,680 of 19,839 calls had a quarter of row 0
     zero, and with them the run took 0.2% more instructions) */
  int zeros = 0, finite = 0, rank;
  for (int j = 0; j < n; j++) zeros += W[j] == 0;
  if (n >= 64 && 2 * zeros >= n)
    rank = pivoted_cholesky_sparse(W, n, perm, s->g, &finite);
  else
    rank = imp_pivoted_cholesky(W, n, perm, s->g, RANK_TOL);
  imp_zero(f, n);
  if (rank == 0) return;
  for (int i = 0; i < n && finite; i++) finite &= isfinite(c[i]) != 0;
  /* z = L' P'c and the lower triangle of G = L'L; each sum runs over i =
     k, k + 1, ... in order, less the rows whose L(i, k) is 0 when A is
     sparse and L and c are finite (each left-out term is +-0, which leaves
     a sum started at +0 as it was: the same bits, imp_pivoted_cholesky) */
  double *z = s->tmp, *G = s->H;
  int* rows = (int*)(void*)s->g;
  for (int k = 0; k < rank; k++) {
    double* Gk = G + (size_t)k * rank;
    if (finite) {
      int len = 0;
      for (int i = k; i < n; i++) {
        rows[len] = i;
        len += W[(size_t)i * n + k] != 0; /* a NaN is kept */
      }
      if (4 * len <= 3 * (n - k)) { /* else the contiguous sums are cheaper */
        gram_row_list(W, n, rows, len, k, c, perm, z + k, Gk);
        continue;
      }
    }
    double sum = 0;
    for (int i = k; i < n; i++) sum += W[(size_t)i * n + k] * c[perm[i]];
    z[k] = sum;
    int j = 0;
    for (; j + 8 <= k + 1; j += 8) gram_sums8(W, n, k, j, Gk + j);
    if (j + 4 <= k + 1) {
      gram_sums4(W, n, k, j, Gk + j);
      j += 4;
    }
    for (; j <= k; j++) {
      double g = 0;
      for (int i = k; i < n; i++) g += W[(size_t)i * n + k] * W[(size_t)i * n + j];
      Gk[j] = g;
    }
  }
  if (!imp_tod_cholesky_factor(G, rank)) return; /* cannot happen for pivots > 0; f = 0 then */
  imp_tod_cholesky_solve(G, rank, z, s->csum);
  imp_tod_cholesky_solve(G, rank, z, s->csum);
  for (int i = 0; i < n; i++) {
    double sum = 0;
    for (int k = 0; k < rank && k <= i; k++) sum += W[(size_t)i * n + k] * z[k];
    f[perm[i]] = sum;
  }
}

/* the velocity a row has when its contact sticks: b, 0 on friction rows */
static double sticking_velocity(const imp_cproblem* p, int k, int j) {
  if (p->blk_type[k] == IMP_CNSTR_CONTACT && j > 0) return 0;
  return p->b[p->blk_adr[k] + j];
}

/* x of the sticking initialization: v sticking, f = A^+ (v - v0), x = v - f */
void imp_tod_sticking_point(tod* s, double* x) {
  const imp_cproblem* p = s->p;
  double* c = s->w;
  for (int k = 0; k < s->nb; k++)
    for (int j = 0; j < p->blk_dim[k]; j++) {
      int i = p->blk_adr[k] + j;
      c[i] = sticking_velocity(p, k, j) - p->v0[i];
    }
  pseudo_inverse_solve(s, c, s->y);
  for (int k = 0; k < s->nb; k++)
    for (int j = 0; j < p->blk_dim[k]; j++) {
      int i = p->blk_adr[k] + j;
      x[i] = sticking_velocity(p, k, j) - s->y[i];
    }
}

/* x of a dry friction row (bound F) for a warm start f0 at velocity v, as
   for a contact's friction rows: inside the bound x = -f0 (stick); on or
   beyond it f -> F e (e = sign f0) and x = -(sigma + F) e with the slip
   speed sigma = max(0, -e v); without a bound x = v. */
static double dry_friction_warm_x(double bound, double f0, double v) {
  if (!(bound > 0)) return v;
  if (fabs(f0) < bound * (1 - WARM_CONE_TOL)) return -f0;
  double e = f0 >= 0 ? 1 : -1;
  return -(fmax(0.0, -e * v) + bound) * e;
}

/* x of a warm start f0: v = A f0 + v0 made complementary to f0 per block,
   x = v - f, so that f(x) is f0 projected on the block's feasible set:
   equality x = b - f; f_N <= 0: x_N = max(v_N, b) (breaking), x_T = v_T;
   f_N > 0: x_N = b - f_N; inside the cone x_T = -f_T (stick); on or beyond
   it f_T -> mu f_N e (e = f_T/||f_T||) and x_T = -(sigma + mu f_N) e with
   the slip speed sigma = max(0, -e'v_T), so v_T = -sigma e opposes f_T. */
void imp_tod_warm_start_point(tod* s, const double* f0, double* x) {
  const imp_cproblem* p = s->p;
  double* v = s->y;
  imp_tod_a_mul(s, v, f0);
  for (int i = 0; i < s->n; i++) v[i] += p->v0[i];
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k];
    const double *fk = f0 + adr, *vk = v + adr;
    double* xk = x + adr;
    double bN = p->b[adr];
    if (p->blk_type[k] == IMP_CNSTR_EQUALITY) {
      for (int j = 0; j < dim; j++) xk[j] = p->b[adr + j] - fk[j];
      continue;
    }
    if (p->blk_type[k] == IMP_CNSTR_FRICTION) {
      xk[0] = dry_friction_warm_x(p->mu[k], fk[0], vk[0]);
      continue;
    }
    if (!(fk[0] > 0)) {
      xk[0] = fmax(vk[0], bN);
      for (int j = 1; j < dim; j++) xk[j] = vk[j];
      continue;
    }
    xk[0] = bN - fk[0];
    if (dim == 1) continue;
    double mu = p->mu[k] > 0 ? p->mu[k] : 0;
    double ft = sqrt(imp_dot(fk + 1, fk + 1, dim - 1));
    /* f(x) puts f_T on the cone only to rounding: within WARM_CONE_TOL it is
       on it (a contact sticking at the boundary gets sigma ~ 0: the same x) */
    if (ft < mu * fk[0] * (1 - WARM_CONE_TOL)) {
      for (int j = 1; j < dim; j++) xk[j] = -fk[j];
      continue;
    }
    if (!(ft > 0)) { /* mu = 0 and no friction: any x_T gives f_T = 0 */
      for (int j = 1; j < dim; j++) xk[j] = vk[j];
      continue;
    }
    double sigma = fmax(0.0, -imp_dot(fk + 1, vk + 1, dim - 1) / ft);
    for (int j = 1; j < dim; j++) xk[j] = -(sigma + mu * fk[0]) * fk[j] / ft;
  }
}
