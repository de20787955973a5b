/* Todorov 2010: the model of the iteration: dense linear algebra, f(x)
 * and r(x) (eqs. 10-15), edges and their Jacobians (eqs. 25-26, 29), the
 * Gauss-Newton model restricted to the tangent space (eqs. 20-24, 28).
 * The derivations are in the header of todorov.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "constraint/solvers/todorov_impl.h"

/* ---- small dense linear algebra ---- */

/* two doubles in one SSE register (a clang/gcc extension; lanes are plain
   IEEE operations, so results equal the scalar ones) */
typedef double v2d __attribute__((vector_size(16)));

/* two contiguous doubles as one v2d (memcpy: no alignment assumed) */
static inline v2d load2(const double* p) {
  v2d v;
  memcpy(&v, p, sizeof v);
  return v;
}

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

#ifdef IMP_HAVE_LAPACK
/* LAPACK (Fortran): the trailing length of the character argument */
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
#endif

int imp_tod_caller_min_rows(void) {
#ifdef IMP_HAVE_LAPACK
  return LAPACK_MIN_ROWS;
#else
  return 0;
#endif
}

/* acc[q] = sum over k < j, in that order, of U(k, i0 + q) U(k, j) for q <
   8: eight sums side by side, each row k of U read contiguously */
static void factor_sums8(const double* U, int m, int j, int i0, double acc[8]) {
  v4d s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
  for (int k = 0; k < j; k++) {
    const double* Uk = U + (size_t)k * m + i0;
    double u = U[(size_t)k * m + j];
    v4d ukj = {u, u, u, u}, a, b;
    memcpy(&a, Uk, sizeof a);
    memcpy(&b, Uk + 4, sizeof b);
    s0 += a * ukj;
    s1 += b * ukj;
  }
  memcpy(acc, &s0, sizeof s0);
  memcpy(acc + 4, &s1, sizeof s1);
}

/* the same for two columns i0, i0 + 1 */
static v2d factor_sums2(const double* U, int m, int j, int i0) {
  v2d s0 = {0, 0};
  for (int k = 0; k < j; k++) {
    v2d ukj = {U[(size_t)k * m + j], U[(size_t)k * m + j]};
    s0 += load2(U + (size_t)k * m + i0) * ukj;
  }
  return s0;
}

/* U(j, i0 + q) = (M(i0 + q, j) - acc[q]) / d for q < 2q2, two divisions
   per instruction (each lane rounds as the scalar division would) */
static void factor_divide(double* M, int m, int j, int i0, const v2d* acc, int q2, double d) {
  v2d dd = {d, d};
  for (int q = 0; q < q2; q++) {
    v2d mq = {M[(size_t)(i0 + 2 * q) * m + j], M[(size_t)(i0 + 2 * q + 1) * m + j]};
    v2d u = (mq - acc[q]) / dd;
    memcpy(M + (size_t)j * m + i0 + 2 * q, &u, sizeof u);
  }
}

/* the same for one column i */
static double factor_sum1(const double* U, int m, int j, int i) {
  double s = 0;
  for (int k = 0; k < j; k++) s += U[(size_t)k * m + i] * U[(size_t)k * m + j];
  return s;
}

/* In-place Cholesky M = U'U of the m x m row-major SPD matrix: reads M's
   lower triangle (and diagonal), writes U = L' in the upper triangle and
   the diagonal; 0 when a pivot is not positive or not finite. Row j of U
   is (M_ij - sum_{k<j} U_ki U_kj) / U_jj for i > j: the sums of a row run
   over the rows k of U already made, eight columns side by side from
   contiguous memory (factor_sums8), each sum over k in order, so U is the
   transpose of the textbook column-by-column L to the bit. */
int imp_tod_cholesky_factor(double* M, int m) {
#ifdef IMP_HAVE_LAPACK
  if (m >= LAPACK_MIN_ROWS) {
    /* row-major lower = column-major upper: dpotrf's "U" factor U'U = M is
       L' with the same storage, and it reads and writes only that
       triangle; L is then copied into the upper triangle as U */
    int info = 0;
    dpotrf_("U", &m, M, &m, &info, 1);
    if (info != 0) return 0;
    for (int j = 0; j < m; j++) /* a NaN pivot passes some kernels' test */
      if (!(M[(size_t)j * m + j] > 0) || !isfinite(M[(size_t)j * m + j])) return 0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < i; j++) M[(size_t)j * m + i] = M[(size_t)i * m + j];
    return 1;
  }
#endif
  for (int j = 0; j < m; j++) {
    double* Uj = M + (size_t)j * m;
    double d = Uj[j] - factor_sum1(M, m, j, j);
    if (!(d > 0) || !isfinite(d)) return 0;
    d = sqrt(d);
    Uj[j] = d;
    int i = j + 1;
    for (; i + 8 <= m; i += 8) {
      double acc[8];
      factor_sums8(M, m, j, i, acc);
      v2d a2[4] = {{acc[0], acc[1]}, {acc[2], acc[3]}, {acc[4], acc[5]}, {acc[6], acc[7]}};
      factor_divide(M, m, j, i, a2, 4, d);
    }
    for (; i + 2 <= m; i += 2) {
      v2d a2 = factor_sums2(M, m, j, i);
      factor_divide(M, m, j, i, &a2, 1, d);
    }
    for (; i < m; i++) Uj[i] = (M[(size_t)i * m + j] - factor_sum1(M, m, j, i)) / d;
  }
  return 1;
}

/* Solve U'U z = z in place with the factor of imp_tod_cholesky_factor
   (sums: m scratch). Forward with U': entry i is (z_i - sum_{k<i} U_ki
   z_k) / U_ii, the sum kept apart and grown along row k of U as each z_k
   is known (contiguous, and each sum still in k order); backward with U's
   rows. */
void imp_tod_cholesky_solve(const double* U, int m, double* z, double* sums) {
  imp_zero(sums, m);
  for (int k = 0; k < m; k++) {
    const double* Uk = U + (size_t)k * m;
    double zk = z[k] = (z[k] - sums[k]) / Uk[k];
    for (int i = k + 1; i < m; i++) sums[i] += Uk[i] * zk;
  }
  for (int i = m - 1; i >= 0; i--) {
    const double* Ui = U + (size_t)i * m;
    double s = z[i];
    for (int k = i + 1; k < m; k++) s -= Ui[k] * z[k];
    z[i] = s / Ui[i];
  }
}

/* res = A v, A n x n */
void imp_tod_mat_vec(double* res, const double* A, const double* v, int n) {
  rows_dot(res, A, (size_t)n, v, n, n);
}

/* res[i0 .. i0 + 8) of S v for the symmetric S: row k of S is its column
   k, so entry i is 0 + S_0i v_0 + S_1i v_1 + ..., imp_dot's sum of row i
   term by term in the same order, while the eight entries are read from
   contiguous memory (dot8 gathers them across rows) */
static void sym_cols8(double* res, const double* S, int n, int i0, const double* v) {
  v4d s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
  for (int k = 0; k < n; k++) {
    const double* Sk = S + (size_t)k * n + i0;
    v4d vk = {v[k], v[k], v[k], v[k]}, a, b;
    memcpy(&a, Sk, sizeof a);
    memcpy(&b, Sk + 4, sizeof b);
    s0 += a * vk;
    s1 += b * vk;
  }
  memcpy(res + i0, &s0, sizeof s0);
  memcpy(res + i0 + 4, &s1, sizeof s1);
}

/* sym_cols8 for the four entries i0 .. i0 + 4 */
static void sym_cols4(double* res, const double* S, int n, int i0, const double* v) {
  v4d s0 = {0, 0, 0, 0};
  for (int k = 0; k < n; k++) {
    v4d vk = {v[k], v[k], v[k], v[k]}, a;
    memcpy(&a, S + (size_t)k * n + i0, sizeof a);
    s0 += a * vk;
  }
  memcpy(res + i0, &s0, sizeof s0);
}

/* sym_cols8 for the two entries i0, i0 + 1 */
static void sym_cols2(double* res, const double* S, int n, int i0, const double* v) {
  v2d s0 = {0, 0};
  for (int k = 0; k < n; k++) s0 += load2(S + (size_t)k * n + i0) * (v2d){v[k], v[k]};
  memcpy(res + i0, &s0, sizeof s0);
}

/* res = S v for an n x n S symmetric to the bit (the Delassus matrix A, the
   Gauss-Newton H): the same values as imp_tod_mat_vec */
void imp_tod_sym_mat_vec(double* res, const double* S, const double* v, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) sym_cols8(res, S, n, i, v);
  if (i + 4 <= n) sym_cols4(res, S, n, i, v), i += 4;
  if (i + 2 <= n) sym_cols2(res, S, n, i, v), i += 2;
  if (i < n) rows_dot(res + i, S + (size_t)i * n, (size_t)n, v, n - i, n);
}

/* max |v_i| (0 for n = 0); NaN entries are skipped, as fmax(e, NaN) = e
   would: the comparison form lets the loop use vector max */
double imp_tod_max_abs(const double* v, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    double a = fabs(v[i]);
    e = a > e ? a : e;
  }
  return e;
}

/* ---- f(x) and its Jacobian per block (eqs. 10, 12, 13) ---- */

/* 1 when the block has a friction cone */
int imp_tod_has_cone(const imp_cproblem* p, int k) {
  return p->blk_type[k] == IMP_CNSTR_CONTACT && p->blk_dim[k] > 1 && p->mu[k] > 0;
}

/* v = 0 for a block's dim values, stores of a constant size for the
   usual dims (a call to memset costs more than the stores themselves) */
static inline void zero_vec(double* v, int dim) {
  switch (dim) {
    case 1: v[0] = 0; break;
    case 3: memset(v, 0, 3 * sizeof(double)); break;
    case 4: memset(v, 0, 4 * sizeof(double)); break;
    case 6: memset(v, 0, 6 * sizeof(double)); break;
    default: imp_zero(v, dim);
  }
}

/* F = 0 for a dim x dim block, the same way */
static inline void zero_mat(double* F, int dim) {
  switch (dim) {
    case 1: F[0] = 0; break;
    case 3: memset(F, 0, 9 * sizeof(double)); break;
    case 4: memset(F, 0, 16 * sizeof(double)); break;
    case 6: memset(F, 0, 36 * sizeof(double)); break;
    default: imp_zero(F, dim * dim);
  }
}

/* imp_tod_block_region, and in *rho ||x_T|| when it was computed */
static inline int region_rho(const imp_cproblem* p, int k, const double* xk, double* rho) {
  if (p->blk_type[k] == IMP_CNSTR_EQUALITY) return REG_EQ;
  if (p->blk_type[k] == IMP_CNSTR_FRICTION) /* no bound: f = 0 everywhere, as slipping */
    return p->mu[k] > 0 && fabs(xk[0]) <= p->mu[k] ? REG_STICK : REG_SLIP;
  double a = xk[0] - p->b[p->blk_adr[k]];
  if (a >= 0) return REG_BREAK;
  int dim = p->blk_dim[k];
  if (dim == 1) return REG_STICK;
  if (!(p->mu[k] > 0)) return REG_SLIP; /* friction rows carry nothing */
  *rho = sqrt(imp_tod_dot_small(xk + 1, xk + 1, dim - 1));
  return *rho <= -p->mu[k] * a ? REG_STICK : REG_SLIP;
}

/* the region of block k at its part xk of x */
int imp_tod_block_region(const imp_cproblem* p, int k, const double* xk) {
  double rho;
  return region_rho(p, k, xk, &rho);
}

/* f of block k at xk (eqs. 10, 12, 13; equality: b - x) */
static void block_f(const imp_cproblem* p, int k, const double* xk, double* fk) {
  int dim = p->blk_dim[k], adr = p->blk_adr[k];
  if (p->blk_type[k] == IMP_CNSTR_FRICTION) { /* f = -clamp(x, -F, F) (header) */
    double bound = fmax(p->mu[k], 0.0);
    fk[0] = -fmin(fmax(xk[0], -bound), bound);
    return;
  }
  double rho = -1; /* not computed yet */
  int reg = region_rho(p, k, xk, &rho);
  if (reg == REG_BREAK) {
    zero_vec(fk, dim);
    return;
  }
  fk[0] = p->b[adr] - xk[0];
  if (reg == REG_EQ) {
    for (int j = 1; j < dim; j++) fk[j] = p->b[adr + j] - xk[j];
    return;
  }
  if (dim == 1) return;
  /* the friction rows written out for condim 3 (a two-term loop costs
     more in its set-up than in its body) */
  if (reg == REG_STICK) {
    if (dim == 3) fk[1] = -xk[1], fk[2] = -xk[2];
    else for (int j = 1; j < dim; j++) fk[j] = -xk[j];
    return;
  }
  if (rho < 0) rho = sqrt(imp_tod_dot_small(xk + 1, xk + 1, dim - 1));
  double s = p->mu[k] > 0 && rho > 0 ? p->mu[k] * fk[0] / rho : 0; /* eq. (12), s < 1 here */
  if (dim == 3) fk[1] = -s * xk[1], fk[2] = -s * xk[2];
  else for (int j = 1; j < dim; j++) fk[j] = -s * xk[j];
}

/* F = df/dx (dim x dim, row-major) of block k in region reg, at xk; the
   formulas of the header, continued to the region's boundary */
void imp_tod_block_jacobian(const imp_cproblem* p, int k, int reg, const double* xk, double* F) {
  int dim = p->blk_dim[k];
  zero_mat(F, dim);
  if (reg == REG_BREAK) return;
  if (p->blk_type[k] == IMP_CNSTR_FRICTION && reg == REG_SLIP) return; /* f = -+F: constant */
  if (dim == 3) F[0] = F[4] = F[8] = -1;
  else for (int j = 0; j < dim; j++) F[j * dim + j] = -1;
  if (reg != REG_SLIP) return;
  double mu = p->mu[k] > 0 ? p->mu[k] : 0;
  double fN = fmax(0.0, p->b[p->blk_adr[k]] - xk[0]);
  double rho = sqrt(imp_tod_dot_small(xk + 1, xk + 1, dim - 1));
  double c = rho > 0 ? mu * fN / rho : 0, u[MAXDIM];
  for (int i = 1; i < dim; i++) u[i] = rho > 0 ? xk[i] / rho : 0;
  for (int i = 1; i < dim; i++) {
    F[i * dim] = mu * u[i];
    for (int j = 1; j < dim; j++) F[i * dim + j] = -c * ((i == j) - u[i] * u[j]);
  }
}

/* out = F uk (dim) for F = imp_tod_block_jacobian(p, k, reg, xk), each
   entry imp_dot's sum over F's row in order; where F is constant (0, or -I
   with +0 off the diagonal) the sum is written with F's constant entries
   instead of building F: the same products and additions */
static inline void minus_identity_apply(const double* uk, double* out, int dim) {
  for (int i = 0; i < dim; i++) {
    double sum = 0;
    for (int j = 0; j < i; j++) sum += 0.0 * uk[j];
    sum += -uk[i]; /* -1 u_i */
    for (int j = i + 1; j < dim; j++) sum += 0.0 * uk[j];
    out[i] = sum;
  }
}

void imp_tod_block_jacobian_apply(const imp_cproblem* p, int k, int reg, const double* xk,
                                  const double* uk, double* out) {
  int dim = p->blk_dim[k];
  if (reg == REG_BREAK || (p->blk_type[k] == IMP_CNSTR_FRICTION && reg == REG_SLIP)) {
    double sum = 0; /* every row of F = 0 gives this one sum */
    for (int j = 0; j < dim; j++) sum += 0.0 * uk[j];
    for (int i = 0; i < dim; i++) out[i] = sum;
    return;
  }
  if (reg != REG_SLIP) { /* F = -I */
    if (dim == 3) minus_identity_apply(uk, out, 3); /* unrolled */
    else minus_identity_apply(uk, out, dim);
    return;
  }
  double F[36];
  imp_tod_block_jacobian(p, k, reg, xk, F);
  for (int i = 0; i < dim; i++) out[i] = imp_tod_dot_small(F + i * dim, uk, dim);
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
  imp_tod_a_mul(s, r, f);
  for (int i = 0; i < s->n; i++) {
    r[i] = r[i] - f[i] - x[i] + p->v0[i];
    double e = s->D[i] * r[i];
    l += e * e;
  }
  l *= 0.5;
  return isfinite(l) ? l : INFINITY;
}

/* f(x), r(x) and l(x) */
double imp_tod_eval_point(const tod* s, const double* x, double* f, double* r) {
  ++*s->evals; /* the work bound (todorov.c, budget_left) */
  eval_f(s, x, f);
  return eval_r(s, x, f, r);
}

/* l of the residual r under the current scaling */
double imp_tod_objective(const tod* s, const double* r) {
  double l = 0;
  for (int i = 0; i < s->n; i++) l += (s->D[i] * r[i]) * (s->D[i] * r[i]);
  return 0.5 * l;
}

/* ---- edges and the Jacobian on them (eqs. 25, 26, 29) ---- */

/* the size against which a block's distance to an edge is measured */
static double block_size(const tod* s, int k, const double* xk) {
  const imp_cproblem* p = s->p;
  int dim = p->blk_dim[k];
  if (p->blk_type[k] == IMP_CNSTR_FRICTION) return fmax(fmax(fabs(xk[0]), p->mu[k]), s->tiny);
  double bN = p->b[p->blk_adr[k]];
  double rho = sqrt(imp_tod_dot_small(xk + 1, xk + 1, dim - 1));
  return fmax(fmax(fabs(xk[0] - bN), rho), fmax(fmax(fabs(bN), fabs(xk[0])), s->tiny));
}

/* block_size of a contact or limit block whose ||x_T|| rho is known */
static double contact_size(const tod* s, int k, const double* xk, double rho) {
  double bN = s->p->b[s->p->blk_adr[k]];
  return fmax(fmax(fabs(xk[0] - bN), rho), fmax(fmax(fabs(bN), fabs(xk[0])), s->tiny));
}

/* The edge of a dry friction block: the planes x = +-F (F > 0) between
   slip (side 1, where d = sign(x) points; F = 0) and stick (F = -1). With no
   bound f = 0 on both sides of x = 0: no edge. */
static int friction_edge(const tod* s, int k, const double* xk, double* d, double* F1,
                         double* F2) {
  const imp_cproblem* p = s->p;
  double bound = p->mu[k];
  if (!(bound > 0) || fabs(fabs(xk[0]) - bound) > EDGE_TOL * block_size(s, k, xk))
    return EDGE_NONE;
  d[0] = xk[0] >= 0 ? 1 : -1;
  imp_tod_block_jacobian(p, k, REG_SLIP, xk, F1);
  imp_tod_block_jacobian(p, k, REG_STICK, xk, F2);
  return EDGE_PLANE;
}

/* The edge block k is on (EDGE_NONE, _PLANE, _CONE) with its unit normal d
   (towards side 1) and the Jacobians F1, F2 of the two sides; in *reg the
   block's region (imp_tod_block_region). */
static int block_edge(const tod* s, int k, const double* xk, double* d, double* F1, double* F2,
                      int* reg) {
  const imp_cproblem* p = s->p;
  if (p->blk_type[k] == IMP_CNSTR_EQUALITY) {
    *reg = REG_EQ;
    return EDGE_NONE;
  }
  if (p->blk_type[k] == IMP_CNSTR_FRICTION) {
    *reg = imp_tod_block_region(p, k, xk);
    return friction_edge(s, k, xk, d, F1, F2);
  }
  int dim = p->blk_dim[k];
  double a = xk[0] - p->b[p->blk_adr[k]];
  double rho = sqrt(imp_tod_dot_small(xk + 1, xk + 1, dim - 1));
  double tol = EDGE_TOL * contact_size(s, k, xk, rho);
  /* imp_tod_block_region from the same a and rho */
  *reg = a >= 0                ? REG_BREAK
         : dim == 1            ? REG_STICK
         : !(p->mu[k] > 0)     ? REG_SLIP
         : rho <= -p->mu[k] * a ? REG_STICK
                                : REG_SLIP;
  zero_vec(d, dim);
  if (fabs(a) <= tol) {
    /* side 1 breaks; side 2 sticks at the apex, slips elsewhere */
    d[0] = 1;
    imp_tod_block_jacobian(p, k, REG_BREAK, xk, F1);
    int other = dim == 1 || (imp_tod_has_cone(p, k) && rho <= tol) ? REG_STICK : REG_SLIP;
    double xe[MAXDIM];
    imp_copy(xe, xk, dim);
    xe[0] = p->b[p->blk_adr[k]]; /* f_N = 0 on the plane */
    imp_tod_block_jacobian(p, k, other, xe, F2);
    return EDGE_PLANE;
  }
  if (imp_tod_has_cone(p, k) && a < 0 && fabs(rho + p->mu[k] * a) <= tol && rho > 0) {
    double mu = p->mu[k], nrm = sqrt(1 + mu * mu);
    d[0] = mu / nrm;
    for (int j = 1; j < dim; j++) d[j] = xk[j] / (rho * nrm);
    imp_tod_block_jacobian(p, k, REG_SLIP, xk, F1);
    imp_tod_block_jacobian(p, k, REG_STICK, xk, F2);
    return EDGE_CONE;
  }
  return EDGE_NONE;
}

/* q' F d for a dim-vector q */
static double quad_form(const double* q, const double* F, const double* d, int dim) {
  double sum = 0;
  for (int i = 0; i < dim; i++) sum += q[i] * imp_tod_dot_small(F + i * dim, d, dim);
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

/* Per block: the Jacobian of f to use at x (eqs. 25-26), B (eq. 29) and
   zcol (block_is_zero). Needs s->w = D^2 r and s->y = (A - I) w. */
void imp_tod_choose_jacobians(tod* s) {
  const imp_cproblem* p = s->p;
  int col = 0;
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k];
    const double* xk = s->x + adr;
    double* F = s->F + 36 * k;
    double* B = s->B + 36 * k;
    double d[MAXDIM], F1[36], F2[36];
    int reg, kind = block_edge(s, k, xk, d, F1, F2, &reg);
    s->active[k] = EDGE_NONE;
    s->coladr[k] = col;
    s->ncol[k] = dim;
    if (kind == EDGE_NONE) {
      imp_tod_block_jacobian(p, k, reg, xk, F);
      /* block_is_zero's answer where F is one of the constant ones */
      if (reg == REG_BREAK || (p->blk_type[k] == IMP_CNSTR_FRICTION && reg == REG_SLIP))
        s->zcol[k] = 1; /* F = 0 */
      else if (reg != REG_SLIP)
        s->zcol[k] = -1; /* F = -I, +0 off the diagonal */
      else
        s->zcol[k] = block_is_zero(s, k);
    } else {
      double wd = imp_tod_dot_small(s->w + adr, d, dim);
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
      s->zcol[k] = block_is_zero(s, k);
    }
    if (s->active[k] == EDGE_NONE) {
      zero_mat(B, dim);
      for (int j = 0; j < dim; j++) B[j * dim + j] = 1;
    }
    col += s->ncol[k];
  }
  s->m = col;
}

/* ---- the Gauss-Newton model restricted to the tangent space (eqs. 20-24, 28) ---- */

/* acc[r][c] = sum over i = 0..rows-1, in that order, of P[i][r] Q[i][c]
   (P, Q: columns of row-major matrices with row strides ldp, ldq) */
static void tile_4x4(const double* P, int ldp, const double* Q, int ldq, int rows, double acc[4][4]) {
  v4d s[4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
  for (int i = 0; i < rows; i++) {
    const double *pi = P + (size_t)i * ldp, *qi = Q + (size_t)i * ldq;
    v4d q;
    memcpy(&q, qi, sizeof q);
    for (int r = 0; r < 4; r++) {
      v4d pr = {pi[r], pi[r], pi[r], pi[r]};
      s[r] += pr * q;
    }
  }
  for (int r = 0; r < 4; r++) memcpy(acc[r], &s[r], sizeof s[r]);
}

/* S = P = A D^2 A, the Gauss-Newton products of two sticking columns (F =
   -I, as equalities always are, makes J's column -D A_c: see
   imp_tod_build_gauss_newton). It depends on A and D alone, so it is computed
   once per solve and again when D or A changes (S_ok). */
static void stick_products(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n, np = (n + 3) & ~3;
  double* Js = s->Jd;
  for (int i = 0; i < n; i++) {
    const double* Ai = p->A + (size_t)i * n;
    double* row = Js + (size_t)i * np;
    double di = s->D[i];
    /* -(A - I) - I, scaled by D_i, in one pass: the same operations */
    for (int c = 0; c < i; c++) row[c] = (0.0 - (Ai[c] - 0)) * di;
    row[i] = ((0.0 - (Ai[i] - 1)) - 1) * di;
    for (int c = i + 1; c < n; c++) row[c] = (0.0 - (Ai[c] - 0)) * di;
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

/* G = F + I of block k, entry (j, c) */
static inline double block_g(const double* F, int dim, int j, int c) {
  return F[j * dim + c] + (j == c);
}

/* Column j of T = A D^2 G and of C = P F - T (Tj, Cj: n each), for a
   column j of a block that does not stick (zcol != -1); P = A D^2 A (s->S),
   G = F + I. A is symmetric (the Delassus matrix), so its column b is its
   row b; so is P. Entry i is, in this order, Tj_i = 0 + A_b0i t_b0 + A_b1i
   t_b1 + ... and Cj_i = 0 + P_b0i f_b0 + ... + Tj_i (-1) over the b with a
   nonzero factor: one pass over the rows, four rows to a vector. Hj gets
   -Cj: row j of H in the rows of sticking blocks i, (F'C)_ij = -C_ij (the
   other entries are overwritten). */
static void product_column(const tod* s, int k, int c, double* Cj, double* Tj, double* Hj) {
  const imp_cproblem* p = s->p;
  int n = s->n, dim = p->blk_dim[k], adr = p->blk_adr[k], nf = 0, nt = 0;
  const double* F = s->F + 36 * k;
  const double *Pr[MAXDIM], *Ar[MAXDIM];
  double fs[MAXDIM], ts[MAXDIM];
  for (int b = 0; b < dim; b++) {
    double fb = F[b * dim + c], tb = s->D[adr + b] * s->D[adr + b] * block_g(F, dim, b, c);
    if (fb != 0) Pr[nf] = s->S + (size_t)(adr + b) * n, fs[nf++] = fb;
    if (tb != 0) Ar[nt] = p->A + (size_t)(adr + b) * n, ts[nt++] = tb;
  }
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    v4d cv = {0, 0, 0, 0}, tv = {0, 0, 0, 0}, v;
    for (int q = 0; q < nf; q++) {
      memcpy(&v, Pr[q] + i, sizeof v);
      cv += v * (v4d){fs[q], fs[q], fs[q], fs[q]};
    }
    for (int q = 0; q < nt; q++) {
      memcpy(&v, Ar[q] + i, sizeof v);
      tv += v * (v4d){ts[q], ts[q], ts[q], ts[q]};
    }
    cv += tv * (v4d){-1, -1, -1, -1};
    memcpy(Tj + i, &tv, sizeof tv);
    memcpy(Cj + i, &cv, sizeof cv);
    cv = -cv;
    memcpy(Hj + i, &cv, sizeof cv);
  }
  for (; i < n; i++) {
    double cv = 0, tv = 0;
    for (int q = 0; q < nf; q++) cv += Pr[q][i] * fs[q];
    for (int q = 0; q < nt; q++) tv += Ar[q][i] * ts[q];
    Tj[i] = tv;
    Cj[i] = cv + tv * -1;
    Hj[i] = -Cj[i];
  }
}

/* sum over a in block k of F_{a,c} v_a: entry c of block k of F'v */
static inline double block_ft(const tod* s, int k, int c, const double* v) {
  const imp_cproblem* p = s->p;
  int dim = p->blk_dim[k], adr = p->blk_adr[k];
  if (s->zcol[k] == -1) return -v[adr + c];
  if (s->zcol[k] == 1) return 0;
  const double* F = s->F + 36 * k;
  double sum = 0;
  for (int a = 0; a < dim; a++) sum += F[a * dim + c] * v[adr + a];
  return sum;
}

/* H_ij for columns i (row ci of block ki, F = Fi, dim di) and j (cj of
   kj, Fj, dj) of blocks that do not stick: (F'C)_ij (0 when Fi = 0:
   zero), less (T'F)_ij (T vanishes in sticking columns i), plus (G'D^2
   G)_ij within one block (diag); Ci = C_j's entries and Di = D's from
   block ki's first row, Ti = T_i's from block kj's first row */
static inline double moving_entry(const double* Fi, const double* Ci, const double* Ti,
                                  const double* Fj, const double* Di, int di, int dj, int ci,
                                  int cj, int zero, int diag) {
  double h = 0;
  if (!zero)
    for (int a = 0; a < di; a++) h += Fi[a * di + ci] * Ci[a];
  double tf = 0;
  for (int b = 0; b < dj; b++) tf += Ti[b] * Fj[b * dj + cj];
  h -= tf;
  if (diag)
    for (int b = 0; b < di; b++) h += block_g(Fj, di, b, ci) * Di[b] * Di[b] * block_g(Fj, di, b, cj);
  return h;
}

/* g = F'y - w (n), block by block: block_ft's sums with F's constant
   entries where F is -I (-y_j) or 0 */
void imp_tod_gradient_ft(const tod* s, const double* y, const double* w, double* g) {
  const imp_cproblem* p = s->p;
  for (int j = 0; j < s->n; j++) {
    int k = s->colblk[j];
    if (s->zcol[k] == -1) g[j] = -y[j] - w[j];
    else if (s->zcol[k] == 1) g[j] = 0.0 - w[j];
    else g[j] = block_ft(s, k, j - p->blk_adr[k], y) - w[j];
  }
}

/* The Gauss-Newton model (eqs. 20-21) without forming J: with w = D^2 r
   and y = (A - I) w as iterate left them, J = D((A - I) F - I) = D(A F - G),
   G = F + I, so
     g = J'D r = F'(A w) - G'w = F'y - w (per block),
     H = J'J = F'PF - F'T - T'F + G'D^2 G = F'C - T'F + G'D^2 G,
   with P = A D^2 A, T = A D^2 G, C = PF - T. A sticking block (F = -I, G =
   0) has J's columns -D A_c, so two of them give P_ij, the solve's cache
   (stick_products), and T vanishes in its columns; the rest is one column
   of C and T per column of a block that does not stick: an iteration costs
   O(n) per such column instead of the O(n^2) of J'J, and the sticking
   columns carry none of the cancellation (A - I) F - I would when A is
   small against I. Only the lower triangle of the non-sticking part is
   computed and mirrored: H is symmetric to the bit. C and T use s->J and
   s->Jd as scratch; zcol is imp_tod_choose_jacobians'. Returns max diag H. */
double imp_tod_build_gauss_newton(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  if (!s->S_ok) stick_products(s);
  imp_tod_gradient_ft(s, s->y, s->w, s->g);
  double *H = s->H, *Ct = s->J, *Tt = s->Jd;
  const int *adr = p->blk_adr, *dim = p->blk_dim;
  /* the blocks that do not stick (mv) and the runs [run[2q], run[2q+1]) of
     rows of sticking blocks */
  int *mv = s->dcol, *run = s->runs, nmv = 0, nrun = 0;
  for (int k = 0; k < s->nb; k++) {
    if (s->zcol[k] != -1) {
      mv[nmv++] = k;
    } else if (nrun > 0 && run[2 * nrun - 1] == adr[k]) {
      run[2 * nrun - 1] += dim[k];
    } else {
      run[2 * nrun] = adr[k], run[2 * nrun + 1] = adr[k] + dim[k];
      nrun++;
    }
  }
  /* the rows of sticking blocks get all of S's row, a run of rows at once;
     their entries in non-sticking columns are overwritten below */
  for (int q = 0; q < nrun; q++)
    memcpy(H + (size_t)run[2 * q] * n, s->S + (size_t)run[2 * q] * n,
           (size_t)(run[2 * q + 1] - run[2 * q]) * n * sizeof(double));
  for (int t = 0; t < nmv; t++) {
    int kj = mv[t];
    for (int cj = 0; cj < dim[kj]; cj++)
      product_column(s, kj, cj, Ct + (size_t)(adr[kj] + cj) * n, Tt + (size_t)(adr[kj] + cj) * n,
                     H + (size_t)(adr[kj] + cj) * n);
  }
  /* column (and row) j of each block that does not stick: entries i of
     sticking blocks are (F'C)_ij = -C_ij; the others (with the T'F and
     G'D^2 G terms) only for i >= j, the rest done as (j, i) */
  const double* D = s->D;
  for (int t = 0; t < nmv; t++) {
    int kj = mv[t], dj = dim[kj], aj = adr[kj];
    const double* Fj = s->F + 36 * kj;
    for (int cj = 0; cj < dj; cj++) {
      int j = aj + cj;
      const double* Cj = Ct + (size_t)j * n;
      double* Hj = H + (size_t)j * n;
      for (int q = 0; q < nrun; q++)
        for (int i = run[2 * q]; i < run[2 * q + 1]; i++) H[(size_t)i * n + j] = Hj[i];
      for (int u = t; u < nmv; u++) {
        int ki = mv[u], di = dim[ki], ai = adr[ki], zero = s->zcol[ki] == 1;
        const double* Fi = s->F + 36 * ki;
        for (int ci = ki == kj ? cj : 0; ci < di; ci++) {
          int i = ai + ci;
          const double* Ti = Tt + (size_t)i * n + aj;
          double h = di == 3 && dj == 3 /* the loops unrolled for condim 3 */
                         ? moving_entry(Fi, Cj + ai, Ti, Fj, D + ai, 3, 3, ci, cj, zero, ki == kj)
                         : moving_entry(Fi, Cj + ai, Ti, Fj, D + ai, di, dj, ci, cj, zero, ki == kj);
          Hj[i] = H[(size_t)i * n + j] = h;
        }
      }
    }
  }
  double hmax = 0;
  for (int a = 0; a < n; a++) hmax = fmax(hmax, H[(size_t)a * n + a]);
  return hmax;
}

/* HB = H B (n x m) and gr = B'g. With no active edge (m = n) B = I and
   every sum is 0 + its one term: gr = 0 + g, and HB is not formed
   (imp_tod_restricted_hessian reads H then). */
void imp_tod_restrict_gradient(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n, m = s->m;
  if (m == n) {
    for (int c = 0; c < n; c++) s->gr[c] = 0.0 + s->g[c];
    return;
  }
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

/* Hr = B'HB + lambda I (B'B = I). A row of a block with B = I (no active
   edge) is 0 + 1 HB_j = 0 + HB_j, its one term; with no active edge at all
   (m = n) HB_j = 0 + H_j (imp_tod_restrict_gradient), so the row is 0 + H_j
   (0 + (0 + h) = 0 + h: it only turns -0 into +0). */
void imp_tod_restricted_hessian(tod* s, double lambda) {
  const imp_cproblem* p = s->p;
  int m = s->m;
  if (m == s->n) {
    for (size_t e = 0; e < (size_t)m * m; e++) s->Hr[e] = 0.0 + s->H[e];
    for (int c = 0; c < m; c++) s->Hr[(size_t)c * m + c] += lambda;
    return;
  }
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
/* x_out = x + I xi for a block with B = I (dim rows): the sum of
   imp_tod_expand_step with B's constant entries, 1 xi_j = xi_j and the
   +-0 (or NaN) products 0 xi_c kept */
static inline void expand_identity(const double* x, const double* xi, double* x_out, int dim) {
  for (int j = 0; j < dim; j++) {
    double v = x[j];
    for (int c = 0; c < dim; c++) v += c == j ? xi[c] : 0.0 * xi[c];
    x_out[j] = v;
  }
}

void imp_tod_expand_step(const tod* s, const double* xi, double* x_out) {
  const imp_cproblem* p = s->p;
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], ca = s->coladr[k];
    if (s->active[k] == EDGE_NONE) {
      if (dim == 3) expand_identity(s->x + adr, xi + ca, x_out + adr, 3); /* unrolled */
      else expand_identity(s->x + adr, xi + ca, x_out + adr, dim);
      continue;
    }
    const double* B = s->B + 36 * k;
    imp_copy(x_out + adr, s->x + adr, dim);
    for (int j = 0; j < dim; j++)
      for (int c = 0; c < s->ncol[k]; c++) x_out[adr + j] += B[j * dim + c] * xi[ca + c];
  }
}

/* Nearest point of the cone edge of block k to xk, in place (the closed form
   of the header); a point on the axis keeps the azimuth of `azimuth` */
static void project_on_cone(const imp_cproblem* p, int k, double* xk, const double* azimuth) {
  int dim = p->blk_dim[k];
  double mu = p->mu[k], bN = p->b[p->blk_adr[k]];
  double a = xk[0] - bN, rho = sqrt(imp_tod_dot_small(xk + 1, xk + 1, dim - 1));
  double e[MAXDIM];
  const double* src = rho > 0 ? xk + 1 : azimuth + 1;
  double en = sqrt(imp_tod_dot_small(src, src, dim - 1));
  for (int j = 0; j + 1 < dim; j++) e[j] = en > 0 ? src[j] / en : 0;
  double t = fmax(0.0, (mu * rho - a) / (1 + mu * mu));
  xk[0] = bN - t;
  for (int j = 1; j < dim; j++) xk[j] = mu * t * e[j - 1];
}

/* project the blocks of xp on active cone edges onto their cones */
void imp_tod_project_active_cones(const tod* s, double* xp) {
  const imp_cproblem* p = s->p;
  for (int k = 0; k < s->nb; k++)
    if (s->active[k] == EDGE_CONE) project_on_cone(p, k, xp + p->blk_adr[k], s->x + p->blk_adr[k]);
}

/* The second derivative of f along d (out, dim) for block k at xk: zero
   where f is linear in x (equalities, limits, breaking or sticking
   contacts, dry friction rows); for a slipping contact, f_T = -mu f_N phi
   with phi = x_T / rho, f_N' = -d_N, phi' = (d_T - u (u'd_T)) / rho and
   phi'' = -2 (u'd_T) phi' / rho - u (|d_T|^2 - (u'd_T)^2) / rho^2, u = phi,
   so f_T'' = -mu (2 f_N' phi' + f_N phi''). */
void imp_tod_block_f_second(const imp_cproblem* p, int k, const double* xk, const double* dk,
                            double* out) {
  int dim = p->blk_dim[k];
  zero_vec(out, dim);
  if (!imp_tod_has_cone(p, k) || imp_tod_block_region(p, k, xk) != REG_SLIP) return;
  double rho = sqrt(imp_tod_dot_small(xk + 1, xk + 1, dim - 1));
  if (!(rho > 0)) return;
  double mu = p->mu[k], fN = p->b[p->blk_adr[k]] - xk[0], dN = -dk[0];
  double ud = imp_tod_dot_small(xk + 1, dk + 1, dim - 1) / rho, dd = imp_tod_dot_small(dk + 1, dk + 1, dim - 1);
  for (int j = 1; j < dim; j++) {
    double u = xk[j] / rho, d1 = (dk[j] - u * ud) / rho;
    double d2 = -2 * ud * d1 / rho - u * (dd - ud * ud) / (rho * rho);
    out[j] = -mu * (2 * dN * d1 + fN * d2);
  }
}

/* The geodesic acceleration of the step xi (Transtrum, Machta & Sethna
   2011; Transtrum & Sethna 2012, "Improvements to the Levenberg-Marquardt
   algorithm"): with d = B xi read as a velocity, the second-order term of
   the path that keeps the linearized model valid is a, the solution of the
   same damped normal equations with D r_vv in place of D r, where r_vv is
   the second directional derivative of r along d. r = (A - I) f(x) - x +
   v0 is linear in f and x, so r_vv = (A - I) f_vv, and f_vv is exact per
   block (imp_tod_block_f_second) and nonzero only on the friction rows of slipping
   contacts: r_vv costs n per such row. Writes half_a = a/2 in the
   restricted coordinates (m), using s->Hr as factored for xi, and returns
   |a| / |xi| (inf when not finite). Scratch: the sub-segment arrays, which
   the linesearch refills. */
double imp_tod_geodesic_correction(tod* s, const double* xi, double* half_a) {
  const imp_cproblem* p = s->p;
  int n = s->n, m = s->m;
  double *d = s->xl, *fvv = s->fl, *rvv = s->rl, *y = s->xr, *w = s->fr;
  imp_tod_expand_step(s, xi, d);
  for (int i = 0; i < n; i++) d[i] -= s->x[i];
  for (int k = 0; k < s->nb; k++) {
    int adr = p->blk_adr[k];
    if (s->active[k] != EDGE_NONE) zero_vec(fvv + adr, p->blk_dim[k]);
    else imp_tod_block_f_second(p, k, s->x + adr, d + adr, fvv + adr);
  }
  for (int i = 0; i < n; i++) rvv[i] = -fvv[i];
  for (int j = 0; j < n; j++) /* A symmetric: column j is row j */
    if (fvv[j] != 0) imp_add_scl(rvv, p->A + (size_t)j * n, fvv[j], n);
  /* the right-hand side B'J'D^2 r_vv, as g is built from w = D^2 r */
  for (int i = 0; i < n; i++) w[i] = s->D[i] * s->D[i] * rvv[i];
  if (s->lr) imp_tod_lr_solve(s, w, half_a, -0.5); /* the same through A's factor */
  imp_tod_a_mul(s, y, w);
  for (int i = 0; i < n; i++) y[i] -= w[i];
  double* g = fvv;
  imp_tod_gradient_ft(s, y, w, g);
  for (int k = 0; k < s->nb && !s->lr; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], ca = s->coladr[k];
    const double* B = s->B + 36 * k;
    if (s->active[k] == EDGE_NONE) { /* B'g with B = I's constant entries */
      for (int c = 0; c < dim; c++) {
        double sum = 0;
        for (int j = 0; j < dim; j++) sum += j == c ? g[adr + j] : 0.0 * g[adr + j];
        half_a[ca + c] = -0.5 * sum;
      }
      continue;
    }
    for (int c = 0; c < s->ncol[k]; c++) {
      double sum = 0;
      for (int j = 0; j < dim; j++) sum += B[j * dim + c] * g[adr + j];
      half_a[ca + c] = -0.5 * sum;
    }
  }
  if (!s->lr) imp_tod_cholesky_solve(s->Hr, m, half_a, s->csum);
  double na = 2 * sqrt(imp_dot(half_a, half_a, m)), nv = sqrt(imp_dot(xi, xi, m));
  return nv > 0 && isfinite(na) ? na / nv : INFINITY;
}
