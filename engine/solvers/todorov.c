/* Todorov's implicit nonlinear complementarity solver (Todorov 2010,
 * "Implicit nonlinear complementarity: a new approach to contact dynamics",
 * ../shared/papers/todorov2010-implicit-nonlinear-complementarity.txt).
 *
 * ---- The unknowns (Section II) ----
 * One x per row. Per block, f(x) and v(x) = f(x) + x (eq. 14) satisfy the
 * block's conditions for every x, so the problem becomes the equation
 * r(x) = (A - I) f(x) - x + v0 = 0 (eq. 15):
 *  - equality rows: f = b - x, v = b (always the linear "stick" law);
 *  - limits and condim-1 contacts: f = max(0, b - x), v = max(b, x) (eq. 10);
 *  - contacts of dim 3/4/6: f_N by eq. (10); with nt = dim - 1 friction rows,
 *    s = min(1, mu f_N / ||x_T||) (12), f_T = -s x_T, v_T = x_T - s x_T (13).
 *    mu = 0 gives f_T = 0 (the 0/0 of (12) at x_T = 0 is taken as s = 1).
 *
 * ---- Jacobians F = df/dx per block (r'(x) = J = (A - I) F - I, eq. 18) ----
 * With a = x_N - b, rho = ||x_T||, u = x_T / rho:
 *   break (a >= 0):                 F = 0
 *   stick (a < 0, rho <= -mu a):    F = -I
 *   slip  (a < 0, rho > -mu a):     dF_N/dx_N = -1,  dF_N/dx_T = 0,
 *                                   df_T/dx_N = mu u,
 *                                   df_T/dx_T = -(mu f_N / rho)(I - u u')
 *   (f_T = -mu f_N u and du/dx_T = (I - u u') / rho.)
 *   equality: F = -I.
 * F is continuous across the cone within the tangent space and jumps across
 * its normal; it jumps across the plane a = 0 in the x_N column.
 *
 * ---- Edges (Section III.B) ----
 * The plane a = 0 (break | stick or slip), normal d = e_N pointing to break;
 * the cone rho = -mu a, a < 0 (slip | stick), normal d = (mu, u)/sqrt(1+mu^2)
 * pointing to slip. A block is on an edge when its distance to it is at
 * most EDGE_TOL times the block's size max(|a|, rho, |b|, |x_N|, tiny):
 * points the linesearch puts on edges are snapped onto them, and projected
 * Newton/Cauchy points lie on them to rounding, so 1e-9 relative separates
 * "on" from "near" with a wide margin both ways. The apex (a = 0, rho = 0)
 * counts as the plane with the stick Jacobian on the other side.
 * On an edge with sides 1 (where d points) and 2: delta_1 = w' J_1 d,
 * delta_2 = -w' J_2 d (eq. 25, w = D^2 r the gradient of l w.r.t. r). Since
 * J_i d = (A - I) F_i d - d, with y = (A - I) w: w' J_i d = y_blk' F_i d -
 * w_blk' d, a per-block computation. If either delta < 0 the steeper side's
 * F is used; otherwise the edge is active, F = (delta_2 F_1 + delta_1 F_2) /
 * (delta_1 + delta_2) (eq. 26) and the block's column of B spans the edge's
 * tangent space (eqs. 28-29): the friction axes for the plane (the normal is
 * dropped; a 1-row block gets no column), and for the cone the orthogonal
 * complement of its normal d, taken from a Householder reflector (columns
 * 2.. of I - 2 h h'/h'h, h = d + e_N, are orthonormal and orthogonal to d).
 * For nt = 2 that is the span of the generator (a, x_T) and (0, -x3, x2):
 * note eq. (29) prints mu (x1 - b) as the first entry, which is tangent only
 * when mu = 1; we use the true tangent space (B orthonormal, so B B' is the
 * projector and eq. (28) takes the paper's form).
 *
 * ---- Crossings along t(alpha) = x + alpha u (eq. 27) ----
 * Plane: a + alpha u_N = 0. Cone: mu^2 (a + alpha u_N)^2 = ||x_T + alpha u_T||^2,
 *   alpha^2 (mu^2 u_N^2 - u_T'u_T) + 2 alpha (mu^2 a u_N - x_T'u_T)
 *          + (mu^2 a^2 - x_T'x_T) = 0,
 * roots in (0, 1) with a + alpha u_N < 0 (the lower nappe); the same for any
 * nt because only ||t_T||^2 enters.
 *
 * ---- Projection onto a cone edge (Section III.D) ----
 * The nearest point t of {||t_T|| = mu (b - t_N)} to y: Lagrange conditions
 * of min ||t - y||^2 s.t. mu^2 (t_N - b)^2 - ||t_T||^2 = 0 give
 * t_T = y_T / (1 - nu), t_N - b = a / (1 + nu mu^2), and the constraint
 * becomes the quadratic mu^2 a^2 (1 - nu)^2 = rho^2 (1 + nu mu^2)^2, whose
 * two roots are the two generators in the plane of the axis and y; the one
 * on the lower nappe in y's azimuth is nu = (mu a + rho) / (mu a - mu^2 rho),
 * i.e. the foot of the perpendicular on the generator (-1, mu e),
 * e = y_T / rho: t_N = b - s, t_T = mu s e, s = max(0, (mu rho - a)/(1+mu^2)).
 *
 * ---- The iteration (Section III, pseudocode III.E) ----
 * l = r'D^2 r / 2 (19), g = J'D^2 r (20), H = J'D^2 J + lambda I (21), all
 * restricted by B: x_N = x - B (B'HB)^-1 B'g, x_C = x - BB'g g'BB'g /
 * g'BB'HBB'g (28; with B = I, eqs. 22 and 24). x_N is accepted when the
 * actual decrease is at least half the decrease of the quadratic model (23);
 * lambda (relative to max diag J'D^2 J) is divided by LAMBDA_DOWN then,
 * multiplied by LAMBDA_UP otherwise. Otherwise the edge-aware linesearch
 * runs over x : x_C and x_C : x_N: crossings sorted, one cubic (Hermite)
 * interpolation of l per smooth sub-segment from the values and one-sided
 * directional derivatives at its ends (Nocedal & Wright, eq. 3.59), every
 * crossing evaluated too; the best point found is accepted if it improves
 * l, else x is a local minimum (Section V.A).
 * Rescaling (Section V.A): D r(x) = 0 with D = diag(1 / sum_j |A_ij|), the
 * row sums of |A| (floored at 1e-12 of the largest). Measured on 1000
 * random problems per set (tol 1e-10): full rank 995 (never) / 995 (at a
 * local minimum) / 996 (always) converged, rows/rank in (1, 2] 967 / 969 /
 * 968; on ball-contact problems with mass ratios to 64 (Table 1 regime)
 * "always" converged 1-7 more of 100 per cell and raised the Newton share
 * by 2-5 points, so D is applied from the start (RESCALE_DEFAULT).
 * Flat valleys: with redundant contacts (a box on 4 points) the all-stick
 * region's minimum of l is an affine valley along null(A) with r != 0, and
 * LM steps never move along it (see valley_move): at a local minimum, or
 * when an iteration decreases l by less than VALLEY_CRAWL, x moves along the
 * null-space part of w = D^2 r to the valley's first edge crossing (27).
 * Measured on the captured failures (box_pile 76, humanoid 341, Table 1
 * 12): 0 -> 17, 0 -> 21, 1 -> 1 converged.
 * Local minima (Section V.A: "restart the minimization at a different
 * point"): they occur where the blended Jacobian (26) of an active edge,
 * or J in a region with redundant sticking contacts (J = -A there), is
 * singular with r != 0. The restart used here is a proximal point outer
 * loop (Rockafellar 1976; Siconos' PROX solver): with a center f_k, solve
 * the regularized problem
 *     v = (A + rho I) f + v0 - rho f_k
 * by the same iteration (A + rho I is nonsingular, so J = -(A + rho I) in
 * the stick region and the flat valleys are gone), then f_{k+1} = f(x). A
 * fixed point f_{k+1} = f_k is a solution of the original problem, and at
 * the same x: the regularized residual is r_rho = r + rho (f - f_k), so the
 * original r is known at every inner iterate and convergence is judged on
 * it. Each inner solve starts from the previous x (warm) and ends when
 * ||r_rho|| fell to PROX_ETA of its start. rho starts at PROX_RHO times
 * mean diag(A) (the Delassus diagonal), is divided by PROX_SHRINK after an
 * inner solve of at most PROX_FAST iterations (the outer rate is about
 * rho / (rho + sigma) on an eigenvalue sigma of A) and multiplied by
 * PROX_GROW after an inner local minimum; below PROX_FLOOR times the rho
 * that failed it comes back only after outer steps that halve ||r||
 * (otherwise it cycled between a failing small rho and a large one). Along
 * a flat valley the outer steps crawl by r / rho with r unchanged; after
 * each inner solve the edge-aware linesearch of the original l along the
 * ray from the center's x through the inner solution (PROX_REACH times the
 * step) jumps to the valley's end (extrapolate). The loop uses the rest of
 * the iteration budget; the statistics count its inner iterations.
 * Triggers: a local minimum of the iteration (after the valley move), or
 * crawling on an active edge: PROX_CRAWLS consecutive (or PROX_TOTAL_CRAWLS
 * in all) iterations that decrease l by less than VALLEY_CRAWL relative.
 * Off edges crawls are left alone: triggering there too converged 10 more
 * of 951 humanoid islands but the resting humanoid's joints then moved at
 * 7.7e-2 rad/s (another of the non-unique solutions of redundant contacts).
 * Measured on 2 x 3 cold Table 1 runs (n_b = 15, mu = 0.5, 1, 2: 379, 379,
 * 375 problems), box_pile (987 islands) and the humanoid (951) captured
 * with the problem hook, tol 1e-8, 100 iterations: not converged 17, 60,
 * 53, 61, 139 with 16 Gauss-Seidel restarts (the previous escape) -> 9, 57,
 * 50, 61, 138. Tried and no better: the proximal loop from the start (42,
 * 107, 53, 68, 178), after a fixed 20 iterations, PROX_ETA 0.01, rho from
 * 0.1 or 1 mean diag(A), reverting to the center after an inner failure.
 * Stopping: ||r||_inf <= tol * max(||v0||_inf, ||b||_inf, ||A f||_inf),
 * on the unscaled residual: the velocity error relative to the problem's
 * velocities.
 *
 * ---- Initialization (Section III.F) ----
 * Sticking: v = b on normal, limit and equality rows, 0 on friction rows,
 * f = A^+ (v - v0), x = v - f. A^+ by pivoted Cholesky A = P L L' P'
 * (rank-revealing) and A^+ = P L (L'L)^-2 L' P' (the Moore-Penrose inverse
 * of L L' for L of full column rank), so f is the minimum-norm least-squares
 * solution even when A is singular. Warm start: x from the given f made
 * complementary (see warm_start_point); it is kept when its l is no worse
 * than the sticking point's. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"
#include "mathx.h"

#define MAXDIM 6
#define EDGE_TOL 1e-9       /* relative distance to an edge counted as "on" it */
#define RANK_TOL 1e-11      /* pivots below this times max diag(A) are zero */
#define LAMBDA_UP 10.0      /* lambda *= otherwise (2, 4, 100 measured: no better) */
#define LAMBDA_DOWN 10.0    /* lambda /= on an accepted Newton point */
#define LAMBDA_INIT 1e-8    /* Levenberg-Marquardt lambda, relative to max diag J'J */
#define LAMBDA_MIN 1e-14
#define LAMBDA_MAX 1e8
#define NEWTON_ACCEPT 0.5   /* fraction of the predicted decrease (Section III.A) */
#define WARM_CONE_TOL 1e-9  /* relative: a warm f_T this close to the cone is on it */
#define ALPHA_EPS 1e-12
#define MAX_VALLEYS 32      /* valley moves per solve */
#define VALLEY_CRAWL 1e-2  /* relative decrease of l below which an iteration crawls */
#define NULL_EPS 1e-10      /* filter of the null-space projection, relative to max diag H */
#define VALLEY_NULL_MIN 1e-6 /* ||z|| / ||w|| below this: J is not singular along w */
#define VALLEY_REACH 1e3    /* the valley ray's length relative to ||x||_inf */
#define VALLEY_SLACK 1e-6   /* relative increase of l tolerated at the valley's edge */     /* crossings closer than this to a segment end are the end */

/* when the residual rescaling of Section V.A is applied */
enum { RESCALE_NEVER = 0, RESCALE_ON_LOCAL_MIN = 1, RESCALE_ALWAYS = 2 };
#define RESCALE_DEFAULT RESCALE_ALWAYS /* measured: see the header */

#define PROX_RHO 10.0      /* the first rho relative to mean diag(A) */
#define PROX_RHO_MIN 1e-10
#define PROX_RHO_MAX 1e4
#define PROX_ETA 0.1      /* an inner solve ends when r_rho fell to this fraction */
#define PROX_GROW 10.0    /* rho *= after an inner local minimum */
#define PROX_SHRINK 10.0  /* rho /= after an inner solve of at most PROX_FAST iterations */
#define PROX_FLOOR 3.0
#define PROX_FLOOR_DECAY 0.5
#define PROX_GOOD 0.5
#define PROX_TOTAL_CRAWLS 5
#define PROX_REACH 1e3
#define PROX_FAST 3
#define PROX_CRAWLS 3

enum { REG_EQ, REG_BREAK, REG_STICK, REG_SLIP };
enum { EDGE_NONE, EDGE_PLANE, EDGE_CONE };

typedef struct crossing {
  double alpha;
  int blk, kind;
} crossing;

/* the solver's state, all arrays carved from work */
typedef struct tod {
  const imp_cproblem* p;
  int n, nb, m;              /* rows, blocks, columns of B */
  double tiny;               /* absolute size below which a block counts as zero */
  double* D;                 /* n: residual scaling (Section V.A), ones when off */
  double *x, *fx, *r;        /* the iterate, f(x), r(x) */
  double *xn, *fn, *rn;      /* Newton point */
  double *xc, *fc, *rc;      /* Cauchy point */
  double *xb, *fb, *rb;      /* best point of the linesearch */
  double *xt, *ft, *rt;      /* trial point */
  double *xk, *fk, *rk;      /* the best iterate so far by ||r|| (restarts go uphill) */
  double *xl, *fl, *rl;      /* sub-segment left end */
  double *xr, *fr, *rr;      /* sub-segment right end */
  double *w, *y, *g, *u, *tmp, *gr, *xi;
  double *J, *H, *Hr, *HB;   /* n x n, n x n, m x m, n x m */
  double* Jd;                /* n x (n + 6): J's columns of nonzero F, packed */
  int *dcol, *zcol;          /* n: the packed columns; nb: 1 when F = 0, -1 when F = -I */
  int *gcol, *colblk;        /* n: the packed columns in order; the block of each row */
  double* S;                 /* n x n: stick_products' cache */
  int S_ok;                  /* S holds the products for the current D */
  double *F, *B;             /* nb x 36: chosen Jacobian of f, tangent basis */
  int *ncol, *coladr, *active, *reg, *perm;
  crossing* cross;
  /* the proximal outer loop (see prox_phase) */
  imp_cproblem reg_p;        /* the regularized problem: A + rho I, v0 - rho f_k */
  double *Ap, *v0p;          /* n x n, n: its arrays */
  double *fprox, *r0;        /* n: the proximal center f_k; the original problem's r */
  double* xprox;             /* n: x where the inner solve started */
} tod;

/* ---- small dense linear algebra ---- */

/* two doubles in one SSE register (a clang/gcc extension; lanes are plain
   IEEE operations, so results equal the scalar ones) */
typedef double v2d __attribute__((vector_size(16)));

/* out[q] = imp_dot(row[q], v, len) for q < 4: four independent sums, each
   in imp_dot's order (so the same rounding), run side by side so that one
   sum's additions do not wait on the previous ones (a single dot product is
   bound by the latency of its chain of additions) */
static void dot4(const double* r0, const double* r1, const double* r2, const double* r3,
                 const double* v, int len, double out[4]) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int k = 0; k < len; k++) {
    s0 += r0[k] * v[k];
    s1 += r1[k] * v[k];
    s2 += r2[k] * v[k];
    s3 += r3[k] * v[k];
  }
  out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3;
}

/* dot4 for eight rows r, r + ld, ..., in pairs of SSE lanes: enough sums
   side by side to keep the adder busy rather than waiting on its latency */
static void dot8(const double* r, size_t ld, const double* v, int len, double out[8]) {
  v2d s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0}, s3 = {0, 0};
  for (int k = 0; k < len; k++) {
    v2d vk = {v[k], v[k]};
    s0 += (v2d){r[k], r[ld + k]} * vk;
    s1 += (v2d){r[2 * ld + k], r[3 * ld + k]} * vk;
    s2 += (v2d){r[4 * ld + k], r[5 * ld + k]} * vk;
    s3 += (v2d){r[6 * ld + k], r[7 * ld + k]} * vk;
  }
  out[0] = s0[0], out[1] = s0[1], out[2] = s1[0], out[3] = s1[1];
  out[4] = s2[0], out[5] = s2[1], out[6] = s3[0], out[7] = s3[1];
}

/* res[i] = imp_dot(row i of M, v, len) for rows i < nrow of the row-major M
   with row stride ld */
static void rows_dot(double* res, const double* M, size_t ld, const double* v, int nrow, int len) {
  int i = 0;
  for (; i + 8 <= nrow; i += 8) dot8(M + i * ld, ld, v, len, res + i);
  for (; i + 4 <= nrow; i += 4)
    dot4(M + i * ld, M + (i + 1) * ld, M + (i + 2) * ld, M + (i + 3) * ld, v, len, res + i);
  for (; i < nrow; i++) res[i] = imp_dot(M + i * ld, v, len);
}

/* In-place Cholesky L L' of the m x m row-major SPD matrix (lower triangle
   written); 0 when a pivot is not positive or not finite. Column j's
   entries below the diagonal are independent dot products, taken four rows
   at a time (dot4). */
static int cholesky_factor(double* M, int m) {
  for (int j = 0; j < m; j++) {
    double* rj = M + (size_t)j * m;
    double d = rj[j] - imp_dot(rj, rj, j);
    if (!(d > 0) || !isfinite(d)) return 0;
    d = sqrt(d);
    rj[j] = d;
    int i = j + 1;
    for (; i + 4 <= m; i += 4) {
      double* ri = M + (size_t)i * m;
      double sum[4];
      dot4(ri, ri + m, ri + 2 * m, ri + 3 * m, rj, j, sum);
      for (int q = 0; q < 4; q++) ri[(size_t)q * m + j] = (ri[(size_t)q * m + j] - sum[q]) / d;
    }
    for (; i < m; i++) {
      double* ri = M + (size_t)i * m;
      ri[j] = (ri[j] - imp_dot(ri, rj, j)) / d;
    }
  }
  return 1;
}

/* Solve L L' z = z in place with the factor of cholesky_factor. */
static void cholesky_solve(const double* L, int m, double* z) {
  for (int i = 0; i < m; i++) z[i] = (z[i] - imp_dot(L + (size_t)i * m, z, i)) / L[(size_t)i * m + i];
  for (int i = m - 1; i >= 0; i--) {
    double s = z[i];
    for (int k = i + 1; k < m; k++) s -= L[(size_t)k * m + i] * z[k];
    z[i] = s / L[(size_t)i * m + i];
  }
}

/* res = A v, A n x n */
static void mat_vec(double* res, const double* A, const double* v, int n) {
  rows_dot(res, A, (size_t)n, v, n, n);
}

static double max_abs(const double* v, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(v[i]));
  return e;
}

/* ---- f(x) and its Jacobian per block (eqs. 10, 12, 13) ---- */

/* 1 when the block has a friction cone */
static int has_cone(const imp_cproblem* p, int k) {
  return p->blk_type[k] == IMP_CNSTR_CONTACT && p->blk_dim[k] > 1 && p->mu[k] > 0;
}

/* the region of block k at its part xk of x */
static int block_region(const imp_cproblem* p, int k, const double* xk) {
  if (p->blk_type[k] == IMP_CNSTR_EQUALITY) return REG_EQ;
  double a = xk[0] - p->b[p->blk_adr[k]];
  if (a >= 0) return REG_BREAK;
  int dim = p->blk_dim[k];
  if (dim == 1) return REG_STICK;
  if (!(p->mu[k] > 0)) return REG_SLIP; /* friction rows carry nothing */
  double rho = sqrt(imp_dot(xk + 1, xk + 1, dim - 1));
  return rho <= -p->mu[k] * a ? REG_STICK : REG_SLIP;
}

/* f of block k at xk (eqs. 10, 12, 13; equality: b - x) */
static void block_f(const imp_cproblem* p, int k, const double* xk, double* fk) {
  int dim = p->blk_dim[k], adr = p->blk_adr[k];
  int reg = block_region(p, k, xk);
  if (reg == REG_BREAK) {
    imp_zero(fk, dim);
    return;
  }
  fk[0] = p->b[adr] - xk[0];
  if (reg == REG_EQ) {
    for (int j = 1; j < dim; j++) fk[j] = p->b[adr + j] - xk[j];
    return;
  }
  if (dim == 1) return;
  if (reg == REG_STICK) {
    for (int j = 1; j < dim; j++) fk[j] = -xk[j];
    return;
  }
  double rho = sqrt(imp_dot(xk + 1, xk + 1, dim - 1));
  double s = p->mu[k] > 0 && rho > 0 ? p->mu[k] * fk[0] / rho : 0; /* eq. (12), s < 1 here */
  for (int j = 1; j < dim; j++) fk[j] = -s * xk[j];
}

/* F = df/dx (dim x dim, row-major) of block k in region reg, at xk; the
   formulas of the header, continued to the region's boundary */
static void block_jacobian(const imp_cproblem* p, int k, int reg, const double* xk, double* F) {
  int dim = p->blk_dim[k];
  imp_zero(F, dim * dim);
  if (reg == REG_BREAK) return;
  for (int j = 0; j < dim; j++) F[j * dim + j] = -1;
  if (reg != REG_SLIP) return;
  double mu = p->mu[k] > 0 ? p->mu[k] : 0;
  double fN = fmax(0.0, p->b[p->blk_adr[k]] - xk[0]);
  double rho = sqrt(imp_dot(xk + 1, xk + 1, dim - 1));
  double c = rho > 0 ? mu * fN / rho : 0;
  for (int i = 1; i < dim; i++) {
    double ui = rho > 0 ? xk[i] / rho : 0;
    F[i * dim] = mu * ui;
    for (int j = 1; j < dim; j++) {
      double uj = rho > 0 ? xk[j] / rho : 0;
      F[i * dim + j] = -c * ((i == j) - ui * uj);
    }
  }
}

/* f(x) for all blocks */
static void eval_f(const tod* s, const double* x, double* f) {
  const imp_cproblem* p = s->p;
  for (int k = 0; k < s->nb; k++) block_f(p, k, x + p->blk_adr[k], f + p->blk_adr[k]);
}

/* r = (A - I) f - x + v0 (eq. 15) from f; returns l = |D r|^2 / 2 (eq. 19) */
static double eval_r(const tod* s, const double* x, const double* f, double* r) {
  const imp_cproblem* p = s->p;
  double l = 0;
  mat_vec(r, p->A, f, s->n);
  for (int i = 0; i < s->n; i++) {
    r[i] = r[i] - f[i] - x[i] + p->v0[i];
    double e = s->D[i] * r[i];
    l += e * e;
  }
  l *= 0.5;
  return isfinite(l) ? l : INFINITY;
}

/* f(x), r(x) and l(x) */
static double eval_point(const tod* s, const double* x, double* f, double* r) {
  eval_f(s, x, f);
  return eval_r(s, x, f, r);
}

/* l of the residual r under the current scaling */
static double objective(const tod* s, const double* r) {
  double l = 0;
  for (int i = 0; i < s->n; i++) l += (s->D[i] * r[i]) * (s->D[i] * r[i]);
  return 0.5 * l;
}

/* ---- edges and the Jacobian on them (eqs. 25, 26, 29) ---- */

/* the size against which a block's distance to an edge is measured */
static double block_size(const tod* s, int k, const double* xk) {
  const imp_cproblem* p = s->p;
  int dim = p->blk_dim[k];
  double bN = p->b[p->blk_adr[k]];
  double rho = sqrt(imp_dot(xk + 1, xk + 1, dim - 1));
  return fmax(fmax(fabs(xk[0] - bN), rho), fmax(fmax(fabs(bN), fabs(xk[0])), s->tiny));
}

/* The edge block k is on (EDGE_NONE, _PLANE, _CONE) with its unit normal d
   (towards side 1) and the Jacobians F1, F2 of the two sides. */
static int block_edge(const tod* s, int k, const double* xk, double* d, double* F1, double* F2) {
  const imp_cproblem* p = s->p;
  if (p->blk_type[k] == IMP_CNSTR_EQUALITY) return EDGE_NONE;
  int dim = p->blk_dim[k];
  double a = xk[0] - p->b[p->blk_adr[k]];
  double rho = sqrt(imp_dot(xk + 1, xk + 1, dim - 1));
  double tol = EDGE_TOL * block_size(s, k, xk);
  imp_zero(d, dim);
  if (fabs(a) <= tol) {
    /* side 1 breaks; side 2 sticks at the apex, slips elsewhere */
    d[0] = 1;
    block_jacobian(p, k, REG_BREAK, xk, F1);
    int other = dim == 1 || (has_cone(p, k) && rho <= tol) ? REG_STICK : REG_SLIP;
    double xe[MAXDIM];
    imp_copy(xe, xk, dim);
    xe[0] = p->b[p->blk_adr[k]]; /* f_N = 0 on the plane */
    block_jacobian(p, k, other, xe, F2);
    return EDGE_PLANE;
  }
  if (has_cone(p, k) && a < 0 && fabs(rho + p->mu[k] * a) <= tol && rho > 0) {
    double mu = p->mu[k], nrm = sqrt(1 + mu * mu);
    d[0] = mu / nrm;
    for (int j = 1; j < dim; j++) d[j] = xk[j] / (rho * nrm);
    block_jacobian(p, k, REG_SLIP, xk, F1);
    block_jacobian(p, k, REG_STICK, xk, F2);
    return EDGE_CONE;
  }
  return EDGE_NONE;
}

/* q' F d for a dim-vector q */
static double quad_form(const double* q, const double* F, const double* d, int dim) {
  double sum = 0;
  for (int i = 0; i < dim; i++) sum += q[i] * imp_dot(F + i * dim, d, dim);
  return sum;
}

/* B of an active edge: orthonormal columns spanning the tangent space */
static int edge_basis(int kind, const double* d, int dim, double* B) {
  imp_zero(B, dim * dim);
  if (kind == EDGE_PLANE) {
    for (int c = 0; c + 1 < dim; c++) B[(c + 1) * dim + c] = 1;
    return dim - 1;
  }
  /* Householder reflector mapping e_N to -d: its other columns are d's complement */
  double h[MAXDIM];
  imp_copy(h, d, dim);
  h[0] += 1; /* d[0] = mu / sqrt(1 + mu^2) > 0: no cancellation */
  double hh = imp_dot(h, h, dim);
  for (int j = 0; j < dim; j++)
    for (int c = 0; c + 1 < dim; c++)
      B[j * dim + c] = (j == c + 1) - 2 * h[j] * h[c + 1] / hh;
  return dim - 1;
}

/* Per block: the Jacobian of f to use at x (eqs. 25-26) and B (eq. 29).
   Needs s->w = D^2 r and s->y = (A - I) w. */
static void choose_jacobians(tod* s) {
  const imp_cproblem* p = s->p;
  int col = 0;
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k];
    const double* xk = s->x + adr;
    double* F = s->F + 36 * k;
    double* B = s->B + 36 * k;
    double d[MAXDIM], F1[36], F2[36];
    int kind = block_edge(s, k, xk, d, F1, F2);
    s->active[k] = EDGE_NONE;
    s->coladr[k] = col;
    s->ncol[k] = dim;
    if (kind == EDGE_NONE) {
      block_jacobian(p, k, block_region(p, k, xk), xk, F);
    } else {
      double wd = imp_dot(s->w + adr, d, dim);
      double delta1 = quad_form(s->y + adr, F1, d, dim) - wd;    /* eq. (25) */
      double delta2 = -(quad_form(s->y + adr, F2, d, dim) - wd);
      if (delta1 < 0 || delta2 < 0) {
        imp_copy(F, delta1 <= delta2 ? F1 : F2, dim * dim);
      } else {
        double sum = delta1 + delta2;
        double c1 = sum > 0 ? delta2 / sum : 0.5, c2 = sum > 0 ? delta1 / sum : 0.5;
        for (int j = 0; j < dim * dim; j++) F[j] = c1 * F1[j] + c2 * F2[j]; /* eq. (26) */
        s->active[k] = kind;
        s->ncol[k] = edge_basis(kind, d, dim, B);
      }
    }
    if (s->active[k] == EDGE_NONE) {
      imp_zero(B, dim * dim);
      for (int j = 0; j < dim; j++) B[j * dim + j] = 1;
    }
    col += s->ncol[k];
  }
  s->m = col;
}

/* ---- the Gauss-Newton model restricted to the tangent space (eqs. 20-24, 28) ---- */

/* 1 when block k's chosen Jacobian F is zero (a breaking contact or limit),
   -1 when it is -I (sticking, equalities), else 0 */
static int block_is_zero(const tod* s, int k) {
  int dim = s->p->blk_dim[k], zero = 1, minus_id = 1;
  const double* F = s->F + 36 * k;
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) {
      double e = F[i * dim + j];
      if (e != 0) zero = 0;
      /* +0 off the diagonal: the products with it are then +-0 as in the sum */
      if (i == j ? e != -1 : (e != 0 || signbit(e))) minus_id = 0;
    }
  return zero ? 1 : minus_id ? -1 : 0;
}


static inline v2d load2(const double* p) {
  v2d v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* acc[r][c] = sum over i = 0..rows-1, in that order, of P[i][r] Q[i][c]
   (P, Q: columns of row-major matrices with row strides ldp, ldq) */
static void tile_4x4(const double* P, int ldp, const double* Q, int ldq, int rows, double acc[4][4]) {
  v2d s[4][2] = {{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};
  for (int i = 0; i < rows; i++) {
    const double *pi = P + (size_t)i * ldp, *qi = Q + (size_t)i * ldq;
    v2d q0 = load2(qi), q1 = load2(qi + 2);
    for (int r = 0; r < 4; r++) {
      v2d pr = {pi[r], pi[r]};
      s[r][0] += pr * q0;
      s[r][1] += pr * q1;
    }
  }
  for (int r = 0; r < 4; r++) {
    acc[r][0] = s[r][0][0];
    acc[r][1] = s[r][0][1];
    acc[r][2] = s[r][1][0];
    acc[r][3] = s[r][1][1];
  }
}

/* S = Js'Js for the J of every block sticking (F = -I, as equalities always
   are): such a column of J, D_i (0 - (A_ic - [i = c]) - [i = c]), depends on
   A and D alone, so its products with the other such columns are the same
   in every iteration of a solve; computed once (when D is set) in the order
   build_gauss_newton would use, and copied from there on. */
static void stick_products(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n, np = (n + 3) & ~3;
  double* Js = s->Jd;
  for (int i = 0; i < n; i++) {
    const double* Ai = p->A + (size_t)i * n;
    double* row = Js + (size_t)i * np;
    for (int c = 0; c < n; c++) row[c] = 0.0 - (Ai[c] - (i == c));
    row[i] -= 1;
    imp_scl(row, row, s->D[i], n);
    for (int c = n; c < np; c++) row[c] = 0;
  }
  for (int qa = 0; qa < np; qa += 4)
    for (int qb = qa; qb < np; qb += 4) {
      double acc[4][4];
      tile_4x4(Js + qa, np, Js + qb, np, n, acc);
      for (int r = 0; r < 4 && qa + r < n; r++)
        for (int c = 0; c < 4 && qb + c < n; c++)
          s->S[(size_t)(qa + r) * n + qb + c] = s->S[(size_t)(qb + c) * n + qa + r] = acc[r][c];
    }
  s->S_ok = 1;
}

/* J = (A - I) F - I scaled by D, g = J'D^2 r, H = J'D^2 J; returns max diag H.
   Every entry is the same sum in the same order as the plain row-by-row
   accumulation H += J_i' J_i (i = 0..n-1), so the iterates do not depend on
   how it is organized; what is organized is the work:
    - a column of a zero-F block (a breaking contact: F = 0 in eq. 18) is
      J_iu = -D_u [i = u], so its row and column of H are the single products
      H_uc = J_uu J_uc, n per column instead of n^2;
    - products of two columns of F = -I blocks (sticking, equalities) come
      from the solve's cache (stick_products);
    - the remaining products, with a column of a slipping or blended block,
      are accumulated from the packed columns (Jd) in 4 x 4 tiles held in
      registers, the sum over rows i running in increasing order as before.
      Adding a zero product leaves a sum unchanged, so the plain loop's
      skipping of J_ia = 0 needs no counterpart. */
static double build_gauss_newton(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  double* J = s->J;
  int* dense = s->dcol;
  int nd = 0;
  for (int k = 0; k < s->nb; k++) {
    int zero = block_is_zero(s, k);
    s->zcol[k] = zero;
    if (zero != 1)
      for (int j = 0; j < p->blk_dim[k]; j++) dense[nd++] = p->blk_adr[k] + j;
  }
  for (int i = 0; i < n; i++) {
    const double* Ai = p->A + (size_t)i * n;
    double* Ji = J + (size_t)i * n;
    for (int k = 0; k < s->nb; k++) {
      int dim = p->blk_dim[k], adr = p->blk_adr[k];
      const double* F = s->F + 36 * k;
      if (s->zcol[k] == 1) { /* the sum below is +0 for F = 0 */
        imp_zero(Ji + adr, dim);
        continue;
      }
      if (s->zcol[k] < 0) { /* F = -I: the sum below is 0 - (A_ic - [i = c]) */
        for (int c = 0; c < dim; c++) Ji[adr + c] = 0.0 - (Ai[adr + c] - (i == adr + c));
        continue;
      }
      for (int c = 0; c < dim; c++) {
        double sum = 0;
        for (int j = 0; j < dim; j++) sum += (Ai[adr + j] - (i == adr + j)) * F[j * dim + c];
        Ji[adr + c] = sum;
      }
    }
    Ji[i] -= 1;
    imp_scl(Ji, Ji, s->D[i], n);
  }
  for (int a = 0; a < n; a++) s->g[a] = 0;
  for (int i = 0; i < n; i++) imp_add_scl(s->g, J + (size_t)i * n, s->D[i] * s->r[i], n);
  /* zero-F columns u: the only nonzero of column u is J_uu; 0.0 + keeps the
     +0 of the plain sum where J_uc = 0 */
  double* H = s->H;
  for (int k = 0; k < s->nb; k++) {
    if (s->zcol[k] != 1) continue;
    for (int j = 0; j < p->blk_dim[k]; j++) {
      int u = p->blk_adr[k] + j;
      const double* Ju = J + (size_t)u * n;
      for (int c = 0; c < n; c++) H[(size_t)u * n + c] = H[(size_t)c * n + u] = 0.0 + Ju[u] * Ju[c];
    }
  }
  if (!s->S_ok) stick_products(s);
  int* ord = s->gcol; /* the F = -I columns (nst), then the others (ng) */
  int nst = 0, ng = 0;
  for (int q = 0; q < nd; q++)
    if (s->zcol[s->colblk[dense[q]]] == -1) ord[nst++] = dense[q];
  for (int q = 0; q < nd; q++)
    if (s->zcol[s->colblk[dense[q]]] != -1) ord[nst + ng++] = dense[q];
  for (int q = 0; q < nst; q++) {
    const double* Sa = s->S + (size_t)ord[q] * n;
    double* Ha = H + (size_t)ord[q] * n;
    for (int t = 0; t < nst; t++) Ha[ord[t]] = Sa[ord[t]];
  }
  if (ng > 0) {
    /* Jd: the sticking columns in [0, nsp), the others in [nsp, ld), each
       group padded to a multiple of 4 by zero columns; each pair once */
    int nsp = (nst + 3) & ~3, ld = nsp + ((ng + 3) & ~3);
    double* Jd = s->Jd;
    for (int i = 0; i < n; i++) {
      const double* Ji = J + (size_t)i * n;
      double* row = Jd + (size_t)i * ld;
      for (int q = 0; q < ld; q++) row[q] = 0;
      for (int q = 0; q < nst; q++) row[q] = Ji[ord[q]];
      for (int q = 0; q < ng; q++) row[nsp + q] = Ji[ord[nst + q]];
    }
    for (int qa = nsp; qa < ld; qa += 4)
      for (int qb = 0; qb < ld; qb += 4) {
        if (qb >= nsp && qb < qa) continue; /* done as (qb, qa) */
        double acc[4][4];
        tile_4x4(Jd + qa, ld, Jd + qb, ld, n, acc);
        for (int r = 0; r < 4 && qa + r - nsp < ng; r++)
          for (int c = 0; c < 4; c++) {
            int pb = qb + c;
            if (pb < nsp ? pb >= nst : pb - nsp >= ng) continue;
            int a = ord[nst + qa + r - nsp], b = pb < nsp ? ord[pb] : ord[nst + pb - nsp];
            H[(size_t)a * n + b] = H[(size_t)b * n + a] = acc[r][c];
          }
      }
  }
  double hmax = 0;
  for (int a = 0; a < n; a++) hmax = fmax(hmax, H[(size_t)a * n + a]);
  return hmax;
}

/* HB = H B (n x m) and gr = B'g */
static void restrict_gradient(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n, m = s->m;
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], ca = s->coladr[k];
    const double* B = s->B + 36 * k;
    if (s->active[k] == EDGE_NONE) { /* B = I: each sum below is 0 + its one term */
      for (int c = 0; c < dim; c++) {
        s->gr[ca + c] = 0.0 + s->g[adr + c];
        for (int i = 0; i < n; i++) s->HB[(size_t)i * m + ca + c] = 0.0 + s->H[(size_t)i * n + adr + c];
      }
      continue;
    }
    for (int c = 0; c < s->ncol[k]; c++) {
      double sum = 0;
      for (int j = 0; j < dim; j++) sum += B[j * dim + c] * s->g[adr + j];
      s->gr[ca + c] = sum;
      for (int i = 0; i < n; i++) {
        const double* Hi = s->H + (size_t)i * n + adr;
        double h = 0;
        for (int j = 0; j < dim; j++) h += Hi[j] * B[j * dim + c];
        s->HB[(size_t)i * m + ca + c] = h;
      }
    }
  }
}

/* Hr = B'HB + lambda I (B'B = I) */
static void restricted_hessian(tod* s, double lambda) {
  const imp_cproblem* p = s->p;
  int m = s->m;
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], ca = s->coladr[k];
    const double* B = s->B + 36 * k;
    for (int c = 0; c < s->ncol[k]; c++) {
      double* row = s->Hr + (size_t)(ca + c) * m;
      imp_zero(row, m);
      for (int j = 0; j < dim; j++) {
        double bj = B[j * dim + c];
        if (bj != 0) imp_add_scl(row, s->HB + (size_t)(adr + j) * m, bj, m);
      }
      row[ca + c] += lambda;
    }
  }
}

/* x_out = x + B xi */
static void expand_step(const tod* s, const double* xi, double* x_out) {
  const imp_cproblem* p = s->p;
  imp_copy(x_out, s->x, s->n);
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], ca = s->coladr[k];
    const double* B = s->B + 36 * k;
    for (int j = 0; j < dim; j++)
      for (int c = 0; c < s->ncol[k]; c++) x_out[adr + j] += B[j * dim + c] * xi[ca + c];
  }
}

/* Nearest point of the cone edge of block k to xk, in place (the closed form
   of the header); a point on the axis keeps the azimuth of `azimuth` */
static void project_on_cone(const imp_cproblem* p, int k, double* xk, const double* azimuth) {
  int dim = p->blk_dim[k];
  double mu = p->mu[k], bN = p->b[p->blk_adr[k]];
  double a = xk[0] - bN, rho = sqrt(imp_dot(xk + 1, xk + 1, dim - 1));
  double e[MAXDIM];
  const double* src = rho > 0 ? xk + 1 : azimuth + 1;
  double en = sqrt(imp_dot(src, src, dim - 1));
  for (int j = 0; j + 1 < dim; j++) e[j] = en > 0 ? src[j] / en : 0;
  double t = fmax(0.0, (mu * rho - a) / (1 + mu * mu));
  xk[0] = bN - t;
  for (int j = 1; j < dim; j++) xk[j] = mu * t * e[j - 1];
}

/* project the blocks of xp on active cone edges onto their cones */
static void project_active_cones(const tod* s, double* xp) {
  const imp_cproblem* p = s->p;
  for (int k = 0; k < s->nb; k++)
    if (s->active[k] == EDGE_CONE) project_on_cone(p, k, xp + p->blk_adr[k], s->x + p->blk_adr[k]);
}

/* ---- edge-aware linesearch (Section III.C) ---- */

static int cmp_crossing(const void* a, const void* b) {
  double x = ((const crossing*)a)->alpha, y = ((const crossing*)b)->alpha;
  return (x > y) - (x < y);
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
static int find_crossings(const tod* s, const double* P, const double* u, crossing* cr) {
  const imp_cproblem* p = s->p;
  int nc = 0;
  for (int k = 0; k < s->nb; k++) {
    if (p->blk_type[k] == IMP_CNSTR_EQUALITY) continue;
    int dim = p->blk_dim[k], adr = p->blk_adr[k];
    double a = P[adr] - p->b[adr], un = u[adr];
    if (un != 0) {
      double al = -a / un;
      if (al > ALPHA_EPS && al < 1 - ALPHA_EPS) cr[nc++] = (crossing){al, k, EDGE_PLANE};
    }
    if (!has_cone(p, k)) continue;
    double mu2 = p->mu[k] * p->mu[k], root[2];
    double c2 = mu2 * un * un - imp_dot(u + adr + 1, u + adr + 1, dim - 1);
    double c1 = 2 * (mu2 * a * un - imp_dot(P + adr + 1, u + adr + 1, dim - 1));
    double c0 = mu2 * a * a - imp_dot(P + adr + 1, P + adr + 1, dim - 1);
    int nr = quadratic_roots(c2, c1, c0, root);
    for (int i = 0; i < nr; i++)
      if (root[i] > ALPHA_EPS && root[i] < 1 - ALPHA_EPS && a + root[i] * un < 0)
        cr[nc++] = (crossing){root[i], k, EDGE_CONE};
  }
  qsort(cr, (size_t)nc, sizeof *cr, cmp_crossing);
  return nc;
}

/* put block k of xp exactly on the edge it crosses */
static void snap_to_edge(const imp_cproblem* p, const crossing* c, double* xp) {
  int k = c->blk, adr = p->blk_adr[k], dim = p->blk_dim[k];
  if (c->kind == EDGE_PLANE) {
    xp[adr] = p->b[adr];
    return;
  }
  double rho = sqrt(imp_dot(xp + adr + 1, xp + adr + 1, dim - 1));
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
    int dim = p->blk_dim[k], adr = p->blk_adr[k];
    double F[36];
    block_jacobian(p, k, s->reg[k], xp + adr, F);
    for (int i = 0; i < dim; i++) Fu[adr + i] = imp_dot(F + i * dim, u + adr, dim);
  }
  double dl = 0, *AFu = s->gr; /* gr is free during the linesearch */
  mat_vec(AFu, p->A, Fu, n);
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
static void offer_candidate(tod* s, const double* xp, const double* fp, const double* rp,
                            double lp, double* lbest) {
  if (!(lp < *lbest)) return;
  *lbest = lp;
  imp_copy(s->xb, xp, s->n);
  imp_copy(s->fb, fp, s->n);
  imp_copy(s->rb, rp, s->n);
}

/* xp = P + alpha u */
static void segment_point(const tod* s, const double* P, const double* u, double alpha, double* xp) {
  for (int i = 0; i < s->n; i++) xp[i] = P[i] + alpha * u[i];
}

/* The linesearch over P : Q (l and r known at both ends): every crossing and
   one cubic step in every smooth sub-segment are offered as candidates. */
static void search_segment(tod* s, const double* P, const double* rP, double lP, const double* Q,
                           const double* rQ, double lQ, double* lbest) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  double* u = s->u;
  for (int i = 0; i < n; i++) u[i] = Q[i] - P[i];
  int nc = find_crossings(s, P, u, s->cross);
  imp_copy(s->xl, P, n);
  imp_copy(s->rl, rP, n);
  double ll = lP, a0 = 0;
  for (int c = 0; c <= nc; c++) {
    double a1 = c < nc ? s->cross[c].alpha : 1, lr;
    if (c < nc) {
      segment_point(s, P, u, a1, s->xr);
      snap_to_edge(p, &s->cross[c], s->xr);
      lr = eval_point(s, s->xr, s->fr, s->rr);
      offer_candidate(s, s->xr, s->fr, s->rr, lr, lbest);
    } else {
      imp_copy(s->xr, Q, n);
      imp_copy(s->rr, rQ, n);
      lr = lQ;
    }
    if (a1 - a0 > ALPHA_EPS) {
      segment_point(s, P, u, 0.5 * (a0 + a1), s->xt);
      for (int k = 0; k < s->nb; k++) s->reg[k] = block_region(p, k, s->xt + p->blk_adr[k]);
      double d0 = directional_derivative(s, s->xl, s->rl, u);
      double d1 = directional_derivative(s, s->xr, s->rr, u);
      double a = cubic_minimizer(a0, ll, d0, a1, lr, d1);
      if (a > a0 + ALPHA_EPS && a < a1 - ALPHA_EPS) {
        segment_point(s, P, u, a, s->xt);
        double lt = eval_point(s, s->xt, s->ft, s->rt);
        offer_candidate(s, s->xt, s->ft, s->rt, lt, lbest);
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

/* f = A^+ c, the minimum-norm least-squares solution, by pivoted Cholesky
   A = P L L' P' (n x rank L) and A^+ = P L (L'L)^-2 L' P' (header). Uses
   s->J (the factor), s->H (L'L) and s->tmp. */
static void pseudo_inverse_solve(tod* s, const double* c, double* f) {
  int n = s->n;
  double* W = s->J;
  int* perm = s->perm;
  memcpy(W, s->p->A, (size_t)n * n * sizeof(double));
  double dmax = 0;
  for (int i = 0; i < n; i++) {
    perm[i] = i;
    dmax = fmax(dmax, W[(size_t)i * n + i]);
  }
  int rank = 0;
  for (int k = 0; k < n; k++) {
    int piv = k;
    for (int i = k + 1; i < n; i++)
      if (W[(size_t)i * n + i] > W[(size_t)piv * n + piv]) piv = i;
    double dk = W[(size_t)piv * n + piv];
    if (!(dk > RANK_TOL * dmax) || !isfinite(dk)) break;
    if (piv != k) { /* symmetric swap of rows and columns k, piv */
      for (int j = 0; j < n; j++) {
        double t = W[(size_t)k * n + j];
        W[(size_t)k * n + j] = W[(size_t)piv * n + j];
        W[(size_t)piv * n + j] = t;
      }
      for (int i = 0; i < n; i++) {
        double t = W[(size_t)i * n + k];
        W[(size_t)i * n + k] = W[(size_t)i * n + piv];
        W[(size_t)i * n + piv] = t;
      }
      int t = perm[k];
      perm[k] = perm[piv];
      perm[piv] = t;
    }
    double l = sqrt(W[(size_t)k * n + k]);
    W[(size_t)k * n + k] = l;
    for (int i = k + 1; i < n; i++) W[(size_t)i * n + k] /= l;
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j <= i; j++) {
        W[(size_t)i * n + j] -= W[(size_t)i * n + k] * W[(size_t)j * n + k];
        W[(size_t)j * n + i] = W[(size_t)i * n + j];
      }
    rank = k + 1;
  }
  imp_zero(f, n);
  if (rank == 0) return;
  /* z = L' P'c, G = L'L (L(i, k) = W(i, k) for i >= k, k < rank) */
  double *z = s->tmp, *G = s->H;
  for (int k = 0; k < rank; k++) {
    z[k] = 0;
    for (int i = k; i < n; i++) z[k] += W[(size_t)i * n + k] * c[perm[i]];
    for (int j = 0; j <= k; j++) {
      double sum = 0;
      for (int i = k; i < n; i++) sum += W[(size_t)i * n + k] * W[(size_t)i * n + j];
      G[(size_t)k * rank + j] = G[(size_t)j * rank + k] = sum;
    }
  }
  if (!cholesky_factor(G, rank)) return; /* cannot happen for pivots > 0; f = 0 then */
  cholesky_solve(G, rank, z);
  cholesky_solve(G, rank, z);
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
static void sticking_point(tod* s, double* x) {
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

/* x of a warm start f0: v = A f0 + v0 made complementary to f0 per block,
   x = v - f, so that f(x) is f0 projected on the block's feasible set:
   equality x = b - f; f_N <= 0: x_N = max(v_N, b) (breaking), x_T = v_T;
   f_N > 0: x_N = b - f_N; inside the cone x_T = -f_T (stick); on or beyond
   it f_T -> mu f_N e (e = f_T/||f_T||) and x_T = -(sigma + mu f_N) e with
   the slip speed sigma = max(0, -e'v_T), so v_T = -sigma e opposes f_T. */
static void warm_start_point(tod* s, const double* f0, double* x) {
  const imp_cproblem* p = s->p;
  double* v = s->y;
  mat_vec(v, p->A, f0, s->n);
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

/* ---- the solver ---- */

/* the stopping test on the unscaled residual (header) for problem p */
static int converged_on(const imp_cproblem* p, const double* x, const double* f, const double* r,
                        double tol) {
  double rmax = 0, scale = fmax(max_abs(p->v0, p->n), max_abs(p->b, p->n));
  for (int i = 0; i < p->n; i++) {
    rmax = fmax(rmax, fabs(r[i]));
    scale = fmax(scale, fabs(r[i] + f[i] + x[i] - p->v0[i])); /* (A f)_i */
  }
  return rmax <= tol * scale;
}

/* the stopping test for the problem being iterated on */
static int converged(const tod* s, const double* x, const double* f, const double* r, double tol) {
  return converged_on(s->p, x, f, r, tol);
}

/* D = 1 / row sums of |A| (Section V.A), floored so empty rows stay finite */
static void rescale_rows(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  double smax = 0;
  for (int i = 0; i < n; i++) {
    double sum = 0;
    for (int j = 0; j < n; j++) sum += fabs(p->A[(size_t)i * n + j]);
    s->D[i] = sum;
    smax = fmax(smax, sum);
  }
  for (int i = 0; i < n; i++) s->D[i] = smax > 0 ? 1 / fmax(s->D[i], 1e-12 * smax) : 1;
  s->S_ok = 0; /* J's sticking columns scale with D */
}

/* carve the arrays of s from work; the bytes used */
static size_t carve(tod* s, int n, int nb, void* work) {
  char* base = work;
  size_t off = 0, nn = (size_t)n * n;
#define TAKE(ptr, count)                                   \
  do {                                                     \
    (ptr) = (void*)(base ? base + off : NULL);             \
    off += (((size_t)(count) * sizeof *(ptr)) + 15) & ~(size_t)15; \
  } while (0)
  double** vecs[] = {&s->D,  &s->x,  &s->fx, &s->r,  &s->xn, &s->fn, &s->rn, &s->xc, &s->fc,
                     &s->rc, &s->xb, &s->fb, &s->rb, &s->xt, &s->ft, &s->rt, &s->xk, &s->fk, &s->rk, &s->xl, &s->fl,
                     &s->rl, &s->xr, &s->fr, &s->rr, &s->w,  &s->y,  &s->g,  &s->u,  &s->tmp,
                     &s->gr, &s->xi, &s->v0p, &s->fprox, &s->r0, &s->xprox};
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) TAKE(*vecs[i], n);
  TAKE(s->J, nn);
  TAKE(s->H, nn);
  TAKE(s->Hr, nn);
  TAKE(s->HB, nn);
  TAKE(s->Jd, (size_t)n * (n + 6));
  TAKE(s->S, nn);
  TAKE(s->Ap, nn);
  TAKE(s->F, 36 * (size_t)nb);
  TAKE(s->B, 36 * (size_t)nb);
  TAKE(s->ncol, nb);
  TAKE(s->coladr, nb);
  TAKE(s->active, nb);
  TAKE(s->reg, nb);
  TAKE(s->perm, n);
  TAKE(s->dcol, n);
  TAKE(s->gcol, n);
  TAKE(s->colblk, n);
  TAKE(s->zcol, nb);
  TAKE(s->cross, 3 * (size_t)nb + 2);
#undef TAKE
  return off;
}

static size_t work_size(int n, int nblock) {
  tod s;
  return carve(&s, n > 0 ? n : 0, nblock > 0 ? nblock : 0, NULL) + 16;
}

/* 1 when every value is finite */
static int all_finite(const double* v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* the starting point: warm start or sticking, whichever has the lower l */
static double initialize(tod* s, const imp_csolver_opt* o, const double* f0) {
  double l = INFINITY;
  if (o->warmstart && all_finite(f0, s->n)) {
    warm_start_point(s, f0, s->x);
    l = eval_point(s, s->x, s->fx, s->r);
    if (converged(s, s->x, s->fx, s->r, o->tol)) return l;
  }
  sticking_point(s, s->xt);
  double ls = eval_point(s, s->xt, s->ft, s->rt);
  if (ls <= l || !isfinite(l)) {
    imp_copy(s->x, s->xt, s->n);
    imp_copy(s->fx, s->ft, s->n);
    imp_copy(s->r, s->rt, s->n);
    l = ls;
  }
  return l;
}

/* accept (xp, fp, rp) as the iterate */
static void accept_point(tod* s, const double* xp, const double* fp, const double* rp) {
  imp_copy(s->x, xp, s->n);
  imp_copy(s->fx, fp, s->n);
  imp_copy(s->r, rp, s->n);
}

/* ---- leaving a flat valley (Section V.A: a local minimum "can only occur
   when J(x) is singular") ---- */

/* The component z of w = D^2 r in the null space of J (the flat directions
   of r at x): z = w - (H + eps I)^-1 H w with H = J'D^2 J of the last
   iteration, eps = NULL_EPS max diag H, i.e. w minus its part in the range
   of J', filtered at eps. Why w: at a stationary point J'w = 0; in a region
   where every block sticks J = -A, so w itself lies in null(A). Redundant
   contacts (a box on 4 points: A of rank 6 in 12 rows) make that the usual
   case, not a rare one: the stick region's least-squares minimum is a whole
   affine valley along null(A), l is constant on it, and Levenberg-Marquardt
   steps have no component along it. Returns ||z||_inf / ||w||_inf (0 when
   the factorization fails). Uses s->Hr (n x n) and s->tmp. */
static double null_component(tod* s, double hscale, double* z) {
  int n = s->n;
  double* M = s->Hr;
  memcpy(M, s->H, (size_t)n * n * sizeof(double));
  for (int i = 0; i < n; i++) M[(size_t)i * n + i] += NULL_EPS * hscale;
  if (!cholesky_factor(M, n)) return 0;
  mat_vec(s->tmp, s->H, s->w, n);
  cholesky_solve(M, n, s->tmp);
  for (int i = 0; i < n; i++) z[i] = s->w[i] - s->tmp[i];
  double wmax = max_abs(s->w, n);
  return wmax > 0 ? max_abs(z, n) / wmax : 0;
}

/* Move along the flat valley to its first edge. Along +z, f changes by
   -alpha F z: in the stick valley the contacts whose impulse runs to zero
   are those with w_N > 0, whose break side is a descent direction
   (delta_1 = -w_N < 0 in eq. 25), so at that plane crossing (27) eq. (26)
   lets the next iteration descend again. The crossing is accepted when l
   there is no worse than VALLEY_SLACK relative (l is constant along z to
   first order); 1 when x moved. hscale: max diag H of the last iteration. */
static int valley_move(tod* s, double hscale, double* l) {
  int n = s->n;
  double* z = s->u; /* find_crossings reads the direction from its argument */
  double nratio = null_component(s, hscale, s->gr);
  if (!(nratio > VALLEY_NULL_MIN)) return 0;
  /* a ray long enough to reach any edge within VALLEY_REACH times x's size */
  double zmax = max_abs(s->gr, n), reach = VALLEY_REACH * fmax(max_abs(s->x, n), s->tiny);
  for (int i = 0; i < n; i++) z[i] = s->gr[i] * (reach / zmax);
  int nc = find_crossings(s, s->x, z, s->cross);
  if (nc == 0) return 0;
  segment_point(s, s->x, z, s->cross[0].alpha, s->xt);
  snap_to_edge(s->p, &s->cross[0], s->xt);
  double lt = eval_point(s, s->xt, s->ft, s->rt);
  if (!(lt <= *l * (1 + VALLEY_SLACK))) return 0;
  accept_point(s, s->xt, s->ft, s->rt);
  *l = lt;
  return 1;
}


/* One iteration of the pseudocode (Section III.E) from x with objective *l:
   1 when a better point was accepted (*newton set when it was x_N), 0 at a
   local minimum. lambda is updated. */
static int iterate(tod* s, double* l, double* lambda, int* newton, double* hscale_out) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  *newton = 0;
  for (int i = 0; i < n; i++) s->w[i] = s->D[i] * s->D[i] * s->r[i];
  mat_vec(s->y, p->A, s->w, n);
  for (int i = 0; i < n; i++) s->y[i] -= s->w[i];
  choose_jacobians(s);
  double hscale = fmax(build_gauss_newton(s), 1e-300);
  *hscale_out = hscale;
  restrict_gradient(s);
  int m = s->m;
  double gg = imp_dot(s->gr, s->gr, m), gHg = 0;
  int ok = 0;
  for (int attempt = 0; attempt < 30 && !ok; attempt++) {
    restricted_hessian(s, *lambda * hscale);
    mat_vec(s->tmp, s->Hr, s->gr, m);
    gHg = imp_dot(s->gr, s->tmp, m);
    ok = cholesky_factor(s->Hr, m);
    if (!ok) *lambda = fmin(*lambda * LAMBDA_UP, LAMBDA_MAX);
  }
  if (!ok || !(gg > 0)) return 0;
  /* Newton point (eqs. 22, 28) and the model's predicted decrease (23) */
  for (int c = 0; c < m; c++) s->xi[c] = -s->gr[c];
  cholesky_solve(s->Hr, m, s->xi);
  double predicted = -0.5 * imp_dot(s->xi, s->gr, m);
  expand_step(s, s->xi, s->xn);
  project_active_cones(s, s->xn);
  double ln = eval_point(s, s->xn, s->fn, s->rn);
  if (ln < *l && *l - ln >= NEWTON_ACCEPT * predicted) {
    accept_point(s, s->xn, s->fn, s->rn);
    *l = ln;
    *lambda = fmax(*lambda / LAMBDA_DOWN, LAMBDA_MIN);
    *newton = 1;
    return 1;
  }
  *lambda = fmin(*lambda * LAMBDA_UP, LAMBDA_MAX);
  /* Cauchy point (eqs. 24, 28), then the dogleg x : x_C : x_N */
  double step = gHg > 0 ? gg / gHg : 0;
  for (int c = 0; c < m; c++) s->xi[c] = -step * s->gr[c];
  expand_step(s, s->xi, s->xc);
  project_active_cones(s, s->xc);
  double lc = eval_point(s, s->xc, s->fc, s->rc);
  double lbest = *l;
  offer_candidate(s, s->xn, s->fn, s->rn, ln, &lbest);
  offer_candidate(s, s->xc, s->fc, s->rc, lc, &lbest);
  search_segment(s, s->x, s->r, *l, s->xc, s->rc, lc, &lbest);
  search_segment(s, s->xc, s->rc, lc, s->xn, s->rn, ln, &lbest);
  if (!(lbest < *l)) return 0;
  accept_point(s, s->xb, s->fb, s->rb);
  *l = lbest;
  return 1;
}

/* remember the iterate when its unscaled ||r|| (r: the original problem's
   residual at it) is the lowest so far */
static void keep_best(tod* s, const double* r, double* rbest2) {
  double r2 = imp_dot(r, r, s->n);
  if (!(r2 < *rbest2)) return;
  *rbest2 = r2;
  imp_copy(s->xk, s->x, s->n);
  imp_copy(s->fk, s->fx, s->n);
  imp_copy(s->rk, r, s->n);
}

/* ---- the proximal outer loop ----
   prox_phase is described in the header. */

/* mean of diag(A): the scale of rho */
static double mean_diag(const imp_cproblem* p) {
  double sum = 0;
  for (int i = 0; i < p->n; i++) sum += p->A[(size_t)i * p->n + i];
  return sum / p->n;
}

/* iterate on the regularized problem A + rho I of the original orig, with
   the scaling D of it when scaled (rescale_rows reads s->p) */
static void prox_set_rho(tod* s, const imp_cproblem* orig, double rho, int scaled) {
  int n = s->n;
  memcpy(s->Ap, orig->A, (size_t)n * n * sizeof(double));
  for (int i = 0; i < n; i++) s->Ap[(size_t)i * n + i] += rho;
  s->p = &s->reg_p;
  if (scaled) rescale_rows(s);
  s->S_ok = 0; /* J's sticking columns contain A */
}

/* the center f_k = f(x): v0 - rho f_k */
static void prox_center(tod* s, const imp_cproblem* orig, double rho) {
  imp_copy(s->fprox, s->fx, s->n);
  for (int i = 0; i < s->n; i++) s->v0p[i] = orig->v0[i] - rho * s->fprox[i];
}

/* r0 = the original problem's r at the iterate: r_rho - rho (f - f_k) */
static void original_residual(tod* s, double rho) {
  for (int i = 0; i < s->n; i++) s->r0[i] = s->r[i] - rho * (s->fx[i] - s->fprox[i]);
}

/* One inner solve from x on the problem centered at f_k: Todorov iterations
   until r_rho falls to PROX_ETA of its start (or the original problem
   converges: 2); 1 when reached, 0 at a local minimum or the budget. */
static int prox_inner(tod* s, const imp_cproblem* orig, const imp_csolver_opt* o,
                      imp_csolver_stat* st, double rho, double* rbest2, int* inner_it) {
  double l = eval_point(s, s->x, s->fx, s->r); /* = the original r: f = f_k */
  double target = PROX_ETA * max_abs(s->r, s->n), lambda = LAMBDA_INIT;
  *inner_it = 0;
  while (st->iterations < o->maxiter) {
    if (max_abs(s->r, s->n) <= target) return 1;
    double hscale;
    int newton, progress = iterate(s, &l, &lambda, &newton, &hscale);
    st->iterations++;
    st->newton += newton;
    ++*inner_it;
    original_residual(s, rho);
    keep_best(s, s->r0, rbest2);
    if (o->monitor) o->monitor(o->monitor_ctx, st->iterations, s->fx);
    if (converged_on(orig, s->x, s->fx, s->r0, o->tol)) return 2;
    if (!progress) return 0;
  }
  return 0;
}

/* The proximal steps along a flat valley: when r of the original problem
   does not change along the step x_c -> x (the center's x to the inner
   solution), the outer loop crawls by steps of r / rho. The edge-aware
   linesearch of the original l over x_c + alpha PROX_REACH (x - x_c) finds
   the valley's end (an edge, eq. 27) at once; its best point is taken when
   it beats x. 1 when the original problem converged there. */
static int extrapolate(tod* s, const imp_cproblem* orig, double tol, double* rbest2) {
  int n = s->n;
  const imp_cproblem* reg = s->p;
  s->p = orig; /* same b, mu and D; A, v0 of the original */
  double lx = eval_point(s, s->x, s->fx, s->r);
  /* buffers the linesearch does not touch: w, y (free between iterations)
     for the center, xn, fn, rn for the ray's end */
  double lc = eval_point(s, s->xprox, s->y, s->w);
  for (int i = 0; i < n; i++) s->xn[i] = s->xprox[i] + PROX_REACH * (s->x[i] - s->xprox[i]);
  double lq = eval_point(s, s->xn, s->fn, s->rn), lbest = lx;
  search_segment(s, s->xprox, s->w, lc, s->xn, s->rn, lq, &lbest);
  if (lbest < lx) {
    accept_point(s, s->xb, s->fb, s->rb);
    keep_best(s, s->r, rbest2);
  }
  int conv = converged_on(orig, s->x, s->fx, s->r, tol);
  s->p = reg;
  eval_point(s, s->x, s->fx, s->r); /* r_rho: f_k is still the center */
  return conv;
}

/* the next rho after an inner solve that ended with res (prox_inner):
   grow it after a local minimum of the inner problem and never come back
   below PROX_FLOOR times that rho until the outer loop made good progress;
   shrink it after a fast inner solve (a well-conditioned inner problem is
   affordable with less regularization, and the outer loop converges at
   about rho / (rho + sigma) per step on an eigenvalue sigma of A) */
static double next_rho(tod* s, int res, int inner_it, double rho, double* floor, double rho_min,
                       double rho_max, double* r0_prev) {
  if (res == 0) {
    *floor = fmax(*floor, PROX_FLOOR * rho);
    return fmin(rho * PROX_GROW, rho_max);
  }
  original_residual(s, rho);
  double r0 = max_abs(s->r0, s->n);
  if (r0 < PROX_GOOD * *r0_prev) *floor = fmax(*floor * PROX_FLOOR_DECAY, rho_min);
  *r0_prev = r0;
  return inner_it <= PROX_FAST ? fmax(rho / PROX_SHRINK, *floor) : rho;
}

/* The proximal point loop from the current x (header); 1 when the original
   problem converged. On return s holds x, f(x) and r(x) of the original
   problem. */
static int prox_phase(tod* s, const imp_csolver_opt* o, imp_csolver_stat* st, int scaled,
                      double* rbest2) {
  const imp_cproblem* orig = s->p;
  double dbar = mean_diag(orig);
  if (!(dbar > 0) || !isfinite(dbar)) return 0;
  s->reg_p = *orig;
  s->reg_p.A = s->Ap;
  s->reg_p.v0 = s->v0p;
  double rho = PROX_RHO * dbar, rho_min = PROX_RHO_MIN * dbar, rho_max = PROX_RHO_MAX * dbar;
  double floor = rho_min;
  double r0_prev = max_abs(s->r, s->n);
  int done = 0;
  prox_set_rho(s, orig, rho, scaled);
  while (!done && st->iterations < o->maxiter) {
    prox_center(s, orig, rho);
    imp_copy(s->xprox, s->x, s->n);
    int inner_it, res = prox_inner(s, orig, o, st, rho, rbest2, &inner_it);
    done = res == 2 || (res == 1 && extrapolate(s, orig, o->tol, rbest2));
    if (done) break;
    double next = next_rho(s, res, inner_it, rho, &floor, rho_min, rho_max, &r0_prev);
    if (next != rho) prox_set_rho(s, orig, rho = next, scaled);
  }
  s->p = orig;
  if (scaled) rescale_rows(s);
  s->S_ok = 0;
  eval_point(s, s->x, s->fx, s->r);
  return done;
}

/* the solver with a choice of when to rescale the residual (Section V.A) */
static void solve_with(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                       imp_csolver_stat* st, void* work, int rescale) {
  st->iterations = st->newton = 0;
  st->residual = 0;
  st->exit = IMP_EXIT_CONVERGED;
  if (p->n <= 0) return;
  tod s = {.p = p, .n = p->n, .nb = p->nblock};
  carve(&s, p->n, p->nblock, work);
  for (int k = 0; k < s.nb; k++)
    for (int j = 0; j < p->blk_dim[k]; j++) s.colblk[p->blk_adr[k] + j] = k;
  double vscale = fmax(max_abs(p->v0, p->n), max_abs(p->b, p->n));
  s.tiny = 1e-12 * (vscale > 0 ? vscale : 1);
  for (int i = 0; i < s.n; i++) s.D[i] = 1;
  if (rescale == RESCALE_ALWAYS) rescale_rows(&s);
  double l = initialize(&s, o, f), rbest2 = INFINITY;
  double lambda = LAMBDA_INIT;
  keep_best(&s, s.r, &rbest2);
  int scaled = rescale == RESCALE_ALWAYS, done = 0, proxed = 0, valleys = 0;
  int crawls = 0, total_crawls = 0;
  st->exit = IMP_EXIT_MAXITER;
  for (int it = 0; it < o->maxiter && isfinite(l); it++) {
    if (converged(&s, s.x, s.fx, s.r, o->tol)) {
      done = 1;
      break;
    }
    double hscale = 0, lprev = l;
    int newton = 0, progress = iterate(&s, &l, &lambda, &newton, &hscale);
    /* a crawl (tiny decreases along a nearly flat valley) is left as a local minimum is */
    int crawl = progress && l > lprev * (1 - VALLEY_CRAWL);
    crawls = crawl ? crawls + 1 : 0;
    total_crawls += crawl;
    if (crawl && valleys < MAX_VALLEYS) {
      /* H of this iteration is still in s.H: the Jacobians F (and so J and H)
         were chosen at the iteration's start and nothing since changed them;
         only w = D^2 r moved with the accepted point */
      for (int i = 0; i < s.n; i++) s.w[i] = s.D[i] * s.D[i] * s.r[i];
      if (valley_move(&s, hscale, &l)) valleys++, crawls = 0;
    }
    /* Crawling is a local minimum reached slowly (header): the restricted
       gradient B'g tends to 0 with r != 0 while the iteration keeps taking
       tiny decreases until maxiter, and no escape would ever be tried. */
    int on_edge = s.m < s.n; /* some edge was active (26): B dropped a column */
    int crawled = on_edge && (crawls >= PROX_CRAWLS || total_crawls >= PROX_TOTAL_CRAWLS);
    if (crawled) progress = 0;
    st->iterations++;
    st->newton += newton;
    if (!progress && !crawled && valleys < MAX_VALLEYS && valley_move(&s, hscale, &l)) {
      valleys++;
      lambda = LAMBDA_INIT;
    } else if (!progress && rescale == RESCALE_ON_LOCAL_MIN && !scaled) {
      rescale_rows(&s); /* Section V.A: D r(x) = 0 */
      scaled = 1;
      l = objective(&s, s.r);
      lambda = LAMBDA_INIT;
    } else if (!progress) { /* the proximal outer loop takes the rest of the budget */
      if (o->monitor) o->monitor(o->monitor_ctx, st->iterations, s.fx);
      proxed = 1;
      done = prox_phase(&s, o, st, scaled, &rbest2) ? 1 : 2;
      if (done == 2) st->exit = st->iterations >= o->maxiter ? IMP_EXIT_MAXITER : IMP_EXIT_STALLED;
    }
    keep_best(&s, s.r, &rbest2);
    if (o->monitor && !proxed) o->monitor(o->monitor_ctx, st->iterations, s.fx);
    if (done) break;
  }
  /* the valley moves and the proximal loop go uphill in l: return the best */
  if ((proxed || valleys > 0) && done != 1 && isfinite(rbest2)) accept_point(&s, s.xk, s.fk, s.rk);
  if (done != 2 && converged(&s, s.x, s.fx, s.r, o->tol)) st->exit = IMP_EXIT_CONVERGED;
  st->residual = sqrt(imp_dot(s.r, s.r, s.n));
  if (all_finite(s.fx, s.n) && isfinite(st->residual)) {
    imp_copy(f, s.fx, s.n);
  } else {
    imp_zero(f, s.n);
    st->exit = IMP_EXIT_FAILED;
  }
}

static void solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                  imp_csolver_stat* st, void* work) {
  solve_with(p, o, f, st, work, RESCALE_DEFAULT);
}

const imp_csolver imp_solver_todorov = {
    "todorov",
    "Todorov 2010: implicit complementarity, Gauss-Newton with edge-aware dogleg",
    work_size, solve};
