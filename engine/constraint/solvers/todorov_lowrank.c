/* Todorov's Gauss-Newton model through the island's factor A = U U'
 * (issue 32: "solve in the smaller space").
 *
 * An island whose rows far outnumber its dofs (a gripper pressing 9 + 9
 * finger pads together: ~350 rows on ~8 dofs) has a Delassus matrix of
 * rank r << n. The dense model (todorov_model.c) forms the n x n
 * H = J'D^2 J and factors it: O(n^3) an iteration, and O(n^3) once a solve
 * for P = A D^2 A. Here nothing n x n is formed or factored.
 *
 * With A = U U' + sigma I (U n x r, the stage's Y = K L^-1 with its scales,
 * imp_cproblem.U; sigma the proximal loop's rho, else 0) and, per block, F
 * (df/dx) and G = F + I, J = D((A - I) F - I) = D(U U'F - (G - sigma F)).
 * On the columns of B (the tangent space of the active edges, eq. 28; all
 * of x for the valley's null space):
 *     J B = D (U Z - Q),   Z = U'F B (r x m),   Q = (G - sigma F) B,
 * Q block diagonal like F and B. So
 *     B'HB + lambda I = Delta + W C W',
 *     Delta = Q'D^2 Q + lambda I         (block diagonal),
 *     W = [Z' Y'] (m x 2r),  Y = U'D^2 Q,  C = [[S, -I], [-I, 0]],  S = U'D^2 U,
 * and the Woodbury identity gives its inverse from Delta's blocks and the
 * 2r x 2r capacitance K = C^-1 + W'Delta^-1 W, C^-1 = [[0, -I], [-I, -S]]:
 * O(m r^2 + r^3) an iteration instead of O(n^3).
 *
 * Every right-hand side the solver needs is B'J'D rho for some n-vector,
 * i.e. B'(F'A w - G'w) with w = D rho (the gradient: w = D^2 r; the
 * geodesic term: w = D^2 r_vv; H w for the valley: w = D J w'), which is
 * Z'a + q with a = U'w and q = -Q'w: W [a; 0] + q. Then
 *     (Delta + W C W')^-1 (W c + q) = Delta^-1 (q + W t),
 *     t = K^-1 (C^-1 c - W'Delta^-1 q),
 * which never forms Delta^-1 W c: where a block sticks (Q = 0) Delta is
 * lambda I, and the textbook form Delta^-1 rhs - Delta^-1 W K^-1 W'Delta^-1
 * rhs subtracts two terms of size |rhs| / lambda to leave one of size
 * |rhs| / |H|, losing lambda / |H| (down to 1e-14) of its digits.
 *
 * Scratch (the dense model's arrays, unused in this mode): U row-major in
 * Jd, S in S (S_ok as for P: it depends on D alone), Z and Y in HB, Q's
 * columns (6 n) and Delta's factors (at most 6 n) in Hr, Delta^-1 W and K
 * in H, W's padded copy in J, K's pivots in perm. LOWRANK_RATIO >= 6 rows
 * a column and LOWRANK_MIN_ROWS >= 12 keep each within its n x n. */
#include <math.h>
#include <string.h>

#include "core/mathx.h"
#include "todorov_impl.h"

/* sigma: A's shift in the problem being iterated (the proximal loop's) */
static double shift(const tod* s) { return s->p == &s->reg_p ? s->rho : 0; }

static int ncols(const tod* s, int k) { return s->lr_full ? s->p->blk_dim[k] : s->ncol[k]; }
static int col0(const tod* s, int k) { return s->lr_full ? s->p->blk_adr[k] : s->coladr[k]; }
static int mcols(const tod* s) { return s->lr_full ? s->n : s->m; }

/* entry (j, c) of block k's basis: I for all of x, else B */
static double basis(const tod* s, int k, int j, int c) {
  int dim = s->p->blk_dim[k];
  return s->lr_full ? (double)(j == c) : s->B[36 * k + j * dim + c];
}

static double* Umat(const tod* s) { return s->Jd; }
static double* Zmat(const tod* s) { return s->HB; }
static double* Ymat(const tod* s) { return s->HB + (size_t)s->n * s->rank; }
static double* Qcol(const tod* s) { return s->Hr; }             /* 6 per column */
/* Delta's blocks' factors, block after block, ncol^2 each (<= 6 n in all) */
static double* Dfac(const tod* s) { return s->Hr + 6 * (size_t)s->n; }
/* the stride of Delta^-1 W's rows and of W's padded copy: 2r to whole v4d's */
static int wstride(const tod* s) { return (2 * s->rank + 3) & ~3; }
static double* DWmat(const tod* s) { return s->H; } /* m x wstride */
static double* Kmat(const tod* s) { return s->H + (size_t)s->n * wstride(s); }

/* 1 when a solve of p uses the joint-space model: p carries A's factor and
   has LOWRANK_RATIO rows per column of it */
int imp_tod_lr_applies(const imp_cproblem* p) {
  return p->U && p->rank > 0 && p->n >= LOWRANK_MIN_ROWS &&
         (long)LOWRANK_RATIO * p->rank <= p->n;
}

/* Set the joint-space model up when it applies: U_il = R_i Y_il sqrt(W_l),
   row-major, in Jd. */
void imp_tod_lr_setup(tod* s) {
  const imp_cproblem* p = s->p;
  s->lr = 0;
  if (!imp_tod_lr_applies(p)) return;
  int n = s->n, r = p->rank;
  double* U = Umat(s);
  for (int l = 0; l < r; l++) {
    double w = p->U_colweight[l] > 0 ? sqrt(p->U_colweight[l]) : 0;
    const double* col = p->U + (size_t)l * p->U_ld;
    for (int i = 0; i < n; i++) U[(size_t)i * r + l] = p->U_rowscale[i] * col[i] * w;
  }
  s->lr = 1;
  s->rank = r;
}

void imp_tod_a_mul(const tod* s, double* res, const double* v) {
  if (!s->lr) {
    imp_tod_sym_mat_vec(res, s->p->A, v, s->n);
    return;
  }
  int n = s->n, r = s->rank;
  const double* U = Umat(s);
  double *t = s->Jd + (size_t)n * r, sigma = shift(s); /* U'v after U (Jd: n (n + 6)) */
  imp_zero(t, r);
  for (int i = 0; i < n; i++)
    if (v[i] != 0) imp_add_scl(t, U + (size_t)i * r, v[i], r);
  for (int i = 0; i < n; i++) res[i] = imp_dot(U + (size_t)i * r, t, r) + sigma * v[i];
}

/* S = U'D^2 U (r x r), once per D */
static void gram(tod* s) {
  int n = s->n, r = s->rank;
  const double* U = Umat(s);
  double* S = s->S;
  imp_zero(S, (size_t)r * r);
  for (int i = 0; i < n; i++) {
    const double* Ui = U + (size_t)i * r;
    double d2 = s->D[i] * s->D[i];
    for (int a = 0; a < r; a++) {
      double c = d2 * Ui[a];
      if (c != 0) imp_add_scl(S + (size_t)a * r, Ui, c, r);
    }
  }
  s->S_ok = 1;
}

/* For column c of block k: fb = F b and q = (G - sigma F) b = b + (1 - sigma) F b
   on the block's rows (b the basis column) */
static void column_vectors(const tod* s, int k, int c, double sigma, double* fb, double* q) {
  int dim = s->p->blk_dim[k];
  const double* F = s->F + 36 * k;
  for (int a = 0; a < dim; a++) {
    double sum = 0;
    for (int j = 0; j < dim; j++) sum += F[a * dim + j] * basis(s, k, j, c);
    fb[a] = sum;
    q[a] = basis(s, k, a, c) + (1 - sigma) * sum;
  }
}

/* out = sum_a c_a U_(adr + a) over the block's rows (r) */
static void rows_combination(const tod* s, int adr, int dim, const double* c, double* out) {
  int r = s->rank;
  imp_zero(out, r);
  for (int a = 0; a < dim; a++)
    if (c[a] != 0) imp_add_scl(out, Umat(s) + (size_t)(adr + a) * r, c[a], r);
}

/* g = F'y - w and max diag J'D^2 J over all of x's columns (what the
   dense build returns): H_jj = z'S z - 2 z'y + |D q|^2 for column j's z =
   U'F e_j, y = U'D^2 q, q = (G - sigma F) e_j */
double imp_tod_lr_build(tod* s) {
  const imp_cproblem* p = s->p;
  imp_tod_gradient_ft(s, s->y, s->w, s->g);
  if (!s->S_ok) gram(s);
  int r = s->rank, full = s->lr_full;
  s->lr_full = 1;
  double sigma = shift(s), hmax = 0, fb[MAXDIM], q[MAXDIM], dq[MAXDIM];
  double *z = s->csum, *y = s->csum + r, *Sz = s->tmp;
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k];
    for (int c = 0; c < dim; c++) {
      column_vectors(s, k, c, sigma, fb, q);
      double qq = 0;
      for (int a = 0; a < dim; a++) {
        double d2 = s->D[adr + a] * s->D[adr + a];
        dq[a] = d2 * q[a];
        qq += dq[a] * q[a];
      }
      rows_combination(s, adr, dim, fb, z);
      rows_combination(s, adr, dim, dq, y);
      for (int a = 0; a < r; a++) Sz[a] = imp_dot(s->S + (size_t)a * r, z, r);
      hmax = fmax(hmax, imp_dot(z, Sz, r) - 2 * imp_dot(z, y, r) + qq);
    }
  }
  s->lr_full = full;
  return hmax;
}

/* gr = B'g */
void imp_tod_lr_restrict_gradient(tod* s) {
  const imp_cproblem* p = s->p;
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], ca = s->coladr[k];
    const double* B = s->B + 36 * k;
    for (int c = 0; c < s->ncol[k]; c++) {
      double sum = 0;
      for (int j = 0; j < dim; j++) sum += B[j * dim + c] * s->g[adr + j];
      s->gr[ca + c] = sum;
    }
  }
}

/* Z, Y and Q's columns for B's columns (full = 0) or all of x's (1) */
void imp_tod_lr_prepare(tod* s, int full) {
  const imp_cproblem* p = s->p;
  s->lr_full = full;
  if (!s->S_ok) gram(s);
  int r = s->rank;
  double sigma = shift(s), fb[MAXDIM], dq[MAXDIM];
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], c0 = col0(s, k);
    for (int c = 0; c < ncols(s, k); c++) {
      double* q = Qcol(s) + 6 * (size_t)(c0 + c);
      column_vectors(s, k, c, sigma, fb, q);
      for (int a = 0; a < dim; a++) dq[a] = s->D[adr + a] * s->D[adr + a] * q[a];
      rows_combination(s, adr, dim, fb, Zmat(s) + (size_t)(c0 + c) * r);
      rows_combination(s, adr, dim, dq, Ymat(s) + (size_t)(c0 + c) * r);
    }
  }
}

/* out = J v on the prepared columns (n): D_i (U_i Z v - (Q v)_i) */
static void apply_j(const tod* s, const double* v, double* out) {
  const imp_cproblem* p = s->p;
  int r = s->rank, mc = mcols(s);
  double* zv = s->csum;
  imp_zero(zv, r);
  for (int c = 0; c < mc; c++)
    if (v[c] != 0) imp_add_scl(zv, Zmat(s) + (size_t)c * r, v[c], r);
  for (int k = 0; k < s->nb; k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], c0 = col0(s, k);
    for (int a = 0; a < dim; a++) {
      double qv = 0;
      for (int c = 0; c < ncols(s, k); c++) qv += Qcol(s)[6 * (size_t)(c0 + c) + a] * v[c0 + c];
      out[adr + a] = s->D[adr + a] * (imp_dot(Umat(s) + (size_t)(adr + a) * r, zv, r) - qv);
    }
  }
}

/* v'(B'HB + lambda I) v = |J B v|^2 + lambda |v|^2 (the Cauchy step's gHg) */
double imp_tod_lr_quad(const tod* s, const double* v, double lambda) {
  double* jv = s->tmp;
  apply_j(s, v, jv);
  int mc = mcols(s);
  return imp_dot(jv, jv, s->n) + lambda * imp_dot(v, v, mc);
}

/* In-place Cholesky L L' of the small SPD matrix M (dim x dim, row-major,
   lower triangle); 0 when a pivot is not positive or not finite */
static int small_cholesky(double* M, int dim) {
  for (int j = 0; j < dim; j++) {
    double d = M[j * dim + j];
    for (int k = 0; k < j; k++) d -= M[j * dim + k] * M[j * dim + k];
    if (!(d > 0) || !isfinite(d)) return 0;
    d = sqrt(d);
    M[j * dim + j] = d;
    for (int i = j + 1; i < dim; i++) {
      double v = M[i * dim + j];
      for (int k = 0; k < j; k++) v -= M[i * dim + k] * M[j * dim + k];
      M[i * dim + j] = v / d;
    }
  }
  return 1;
}

/* x = (L L')^-1 x for small_cholesky's factor; x strided by inc */
static void small_solve(const double* L, int dim, double* x, int inc) {
  for (int i = 0; i < dim; i++) {
    double v = x[i * inc];
    for (int k = 0; k < i; k++) v -= L[i * dim + k] * x[k * inc];
    x[i * inc] = v / L[i * dim + i];
  }
  for (int i = dim - 1; i >= 0; i--) {
    double v = x[i * inc];
    for (int k = i + 1; k < dim; k++) v -= L[k * dim + i] * x[k * inc];
    x[i * inc] = v / L[i * dim + i];
  }
}

/* LU with partial pivoting of the q x q row-major K, pivots in piv; 0 when
   a pivot is 0 or not finite (K is symmetric but indefinite: C is) */
static int lu_factor(double* K, int q, int* piv) {
  for (int j = 0; j < q; j++) {
    int best = j;
    for (int i = j + 1; i < q; i++)
      if (fabs(K[(size_t)i * q + j]) > fabs(K[(size_t)best * q + j])) best = i;
    piv[j] = best;
    if (best != j)
      for (int c = 0; c < q; c++) {
        double t = K[(size_t)j * q + c];
        K[(size_t)j * q + c] = K[(size_t)best * q + c];
        K[(size_t)best * q + c] = t;
      }
    double d = K[(size_t)j * q + j];
    if (!(d != 0) || !isfinite(d)) return 0;
    for (int i = j + 1; i < q; i++) {
      double f = K[(size_t)i * q + j] /= d;
      if (f != 0) imp_add_scl(K + (size_t)i * q + j + 1, K + (size_t)j * q + j + 1, -f, q - j - 1);
    }
  }
  return 1;
}

static void lu_solve(const double* K, int q, const int* piv, double* x) {
  for (int j = 0; j < q; j++) {
    double t = x[j];
    x[j] = x[piv[j]];
    x[piv[j]] = t;
  }
  for (int i = 0; i < q; i++) x[i] -= imp_dot(K + (size_t)i * q, x, i);
  for (int i = q - 1; i >= 0; i--)
    x[i] = (x[i] - imp_dot(K + (size_t)i * q + i + 1, x + i + 1, q - 1 - i)) / K[(size_t)i * q + i];
}

/* K = C^-1 + W'(Delta^-1 W) (q2 x q2), C^-1 = [[0, -I], [-I, -S]]: the
   product's upper triangle by 4 x 4 tiles over the columns (W's rows
   copied padded into J, beside Delta^-1 W's), then mirrored */
static void capacitance(tod* s, int q2, double* K) {
  int r = s->rank, mc = mcols(s), ws = wstride(s);
  double* W = s->J;
  const double* DW = DWmat(s);
  for (int c = 0; c < mc; c++) {
    double* w = W + (size_t)c * ws;
    memcpy(w, Zmat(s) + (size_t)c * r, (size_t)r * sizeof(double));
    memcpy(w + r, Ymat(s) + (size_t)c * r, (size_t)r * sizeof(double));
    imp_zero(w + q2, ws - q2);
  }
  for (int a0 = 0; a0 < q2; a0 += 4)
    for (int b0 = a0; b0 < q2; b0 += 4) {
      v4d acc[4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
      for (int c = 0; c < mc; c++) {
        const double* w = W + (size_t)c * ws + a0;
        v4d d;
        memcpy(&d, DW + (size_t)c * ws + b0, sizeof d);
        for (int i = 0; i < 4; i++) acc[i] += (v4d){w[i], w[i], w[i], w[i]} * d;
      }
      for (int i = 0; i < 4 && a0 + i < q2; i++)
        for (int j = 0; j < 4 && b0 + j < q2; j++)
          if (a0 + i <= b0 + j) K[(size_t)(a0 + i) * q2 + b0 + j] = acc[i][j];
    }
  for (int a = 0; a < r; a++) {
    K[(size_t)a * q2 + r + a] -= 1;
    for (int b = a; b < r; b++) K[(size_t)(r + a) * q2 + r + b] -= s->S[(size_t)a * r + b];
  }
  for (int a = 0; a < q2; a++)
    for (int b = 0; b < a; b++) K[(size_t)a * q2 + b] = K[(size_t)b * q2 + a];
}

/* Factor B'HB + lambda I on the prepared columns: Delta's blocks, Delta^-1 W
   and K (header); 0 when a factor fails */
int imp_tod_lr_factor(tod* s, double lambda) {
  const imp_cproblem* p = s->p;
  int r = s->rank, q2 = 2 * r, ws = wstride(s);
  double *DW = DWmat(s), *K = Kmat(s), *L = Dfac(s);
  for (int k = 0; k < s->nb; L += ncols(s, k) * ncols(s, k), k++) {
    int dim = p->blk_dim[k], adr = p->blk_adr[k], c0 = col0(s, k), nc = ncols(s, k);
    if (nc == 0) continue;
    for (int c = 0; c < nc; c++)
      for (int e = 0; e <= c; e++) {
        const double *qc = Qcol(s) + 6 * (size_t)(c0 + c), *qe = Qcol(s) + 6 * (size_t)(c0 + e);
        double sum = c == e ? lambda : 0;
        for (int a = 0; a < dim; a++) sum += s->D[adr + a] * s->D[adr + a] * qc[a] * qe[a];
        L[c * nc + e] = sum;
      }
    if (!small_cholesky(L, nc)) return 0;
    for (int c = 0; c < nc; c++) {
      double* dw = DW + (size_t)(c0 + c) * ws;
      memcpy(dw, Zmat(s) + (size_t)(c0 + c) * r, (size_t)r * sizeof(double));
      memcpy(dw + r, Ymat(s) + (size_t)(c0 + c) * r, (size_t)r * sizeof(double));
      imp_zero(dw + q2, ws - q2);
    }
    for (int j = 0; j < q2; j++) small_solve(L, nc, DW + (size_t)c0 * ws + j, ws);
  }
  /* K = C^-1 + W'(Delta^-1 W) */
  capacitance(s, q2, K);
  return lu_factor(K, q2, s->perm);
}

/* out = scale (B'HB + lambda I)^-1 B'(F'A w - G'w) on the prepared and
   factored columns, without cancellation (header) */
void imp_tod_lr_solve(tod* s, const double* w, double* out, double scale) {
  const imp_cproblem* p = s->p;
  int n = s->n, r = s->rank, q2 = 2 * r, mc = mcols(s), ws = wstride(s);
  const double* DW = DWmat(s);
  double *t = s->csum, *qv = s->u;
  imp_zero(t, q2);
  for (int i = 0; i < n; i++) /* t = [0; -U'w] */
    if (w[i] != 0) imp_add_scl(t + r, Umat(s) + (size_t)i * r, -w[i], r);
  for (int k = 0; k < s->nb; k++) { /* q = -Q'w */
    int dim = p->blk_dim[k], adr = p->blk_adr[k], c0 = col0(s, k);
    for (int c = 0; c < ncols(s, k); c++) {
      const double* qc = Qcol(s) + 6 * (size_t)(c0 + c);
      double sum = 0;
      for (int a = 0; a < dim; a++) sum += qc[a] * w[adr + a];
      qv[c0 + c] = -sum;
    }
  }
  for (int c = 0; c < mc; c++) /* t -= (Delta^-1 W)'q */
    if (qv[c] != 0) imp_add_scl(t, DW + (size_t)c * ws, -qv[c], q2);
  lu_solve(Kmat(s), q2, s->perm, t);
  const double* L = Dfac(s);
  for (int k = 0; k < s->nb; L += ncols(s, k) * ncols(s, k), k++) {
    int c0 = col0(s, k), nc = ncols(s, k); /* out = Delta^-1 q + Delta^-1 W t */
    if (nc == 0) continue;
    small_solve(L, nc, qv + c0, 1);
    for (int c = 0; c < nc; c++)
      out[c0 + c] = scale * (qv[c0 + c] + imp_dot(DW + (size_t)(c0 + c) * ws, t, q2));
  }
}

/* The valley's null-space component z = w - (H + eps I)^-1 H w of the dense
   model (todorov.c, null_component), with H w = J'D (D J w): the same
   right-hand side form. Returns ||z||_inf / ||w||_inf, 0 when the factor
   fails. */
double imp_tod_lr_null_component(tod* s, double hscale, double* z) {
  int n = s->n;
  imp_tod_lr_prepare(s, 1);
  if (!imp_tod_lr_factor(s, NULL_EPS * hscale)) return 0;
  double* jw = s->tmp;
  apply_j(s, s->w, jw);
  for (int i = 0; i < n; i++) jw[i] *= s->D[i];
  imp_tod_lr_solve(s, jw, z, 1);
  for (int i = 0; i < n; i++) z[i] = s->w[i] - z[i];
  double wmax = imp_tod_max_abs(s->w, n);
  return wmax > 0 ? imp_tod_max_abs(z, n) / wmax : 0;
}
