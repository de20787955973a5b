/* Redundant equality rows: found, their targets made consistent, and made
 * inert (see contact_redundant.h). */
#include <math.h>

#include "constraint/contact_redundant.h"
#include "core/mathx.h"

static int capped(int nmax) { return nmax < IMP_REDUNDANT_MAX_ROWS ? nmax : IMP_REDUNDANT_MAX_ROWS; }

size_t imp_redundant_doubles(int nmax) {
  size_t m = (size_t)capped(nmax);
  return m * m + m;
}

size_t imp_redundant_ints(int nmax) { return (size_t)capped(nmax); }

void imp_redundant_carve(imp_redundant* r, double* dbl, int* ints, int nmax) {
  size_t m = (size_t)capped(nmax);
  r->W = dbl;
  r->y = dbl ? dbl + m * m : NULL;
  r->row = ints;
  r->nk = r->nd = 0;
}

/* the island's equality rows into row; their count, or 0 past the cap */
static int equality_rows(const imp_cproblem* p, int* row) {
  int ne = 0;
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] != IMP_CNSTR_EQUALITY) continue;
    if (ne + p->blk_dim[k] > IMP_REDUNDANT_MAX_ROWS) return 0;
    for (int t = 0; t < p->blk_dim[k]; t++) row[ne++] = p->blk_adr[k] + t;
  }
  return ne;
}

/* swap rows and columns k and q of the symmetric ne x ne W, and row[k], row[q] */
static void swap_pivot(double* W, int ne, int* row, int k, int q) {
  for (int j = 0; j < ne; j++) {
    double t = W[(size_t)k * ne + j];
    W[(size_t)k * ne + j] = W[(size_t)q * ne + j];
    W[(size_t)q * ne + j] = t;
  }
  for (int i = 0; i < ne; i++) {
    double t = W[(size_t)i * ne + k];
    W[(size_t)i * ne + k] = W[(size_t)i * ne + q];
    W[(size_t)i * ne + q] = t;
  }
  int t = row[k];
  row[k] = row[q];
  row[q] = t;
}

/* Pivoted Cholesky of W (ne x ne, symmetric, full): L in the lower
   triangle of the first rank columns (rows in pivot order, row[] with
   them), the rest of W the trailing Schur complement; stops at the first
   pivot below IMP_REDUNDANT_TOL of the largest diagonal. Returns the rank. */
static int pivoted_factor(double* W, int ne, int* row) {
  double dmax = 0;
  for (int i = 0; i < ne; i++) dmax = fmax(dmax, W[(size_t)i * ne + i]);
  if (!(dmax > 0) || !isfinite(dmax)) return ne; /* nothing to tell apart: left alone */
  for (int k = 0; k < ne; k++) {
    int q = k;
    for (int i = k + 1; i < ne; i++)
      if (W[(size_t)i * ne + i] > W[(size_t)q * ne + q]) q = i;
    double dq = W[(size_t)q * ne + q];
    if (!isfinite(dq)) return ne;
    if (!(dq > IMP_REDUNDANT_TOL * dmax)) return k;
    if (q != k) swap_pivot(W, ne, row, k, q);
    double l = sqrt(dq);
    W[(size_t)k * ne + k] = l;
    for (int i = k + 1; i < ne; i++) W[(size_t)i * ne + k] /= l;
    for (int i = k + 1; i < ne; i++)
      for (int j = k + 1; j <= i; j++) {
        double v = W[(size_t)i * ne + j] - W[(size_t)i * ne + k] * W[(size_t)j * ne + k];
        W[(size_t)i * ne + j] = W[(size_t)j * ne + i] = v;
      }
  }
  return ne;
}

/* c_d = L11^-T l_d in place over row nk + d's first nk entries (l_d, its
   row of L21): A_dK = l_d' L11' = c_d' A_KK, so row d of the equality block
   is sum_k c_dk times row k, and J_d = sum_k c_dk J_k (A = J M^-1 J' with
   M definite: A's dependent rows are J's) */
static void dependence(double* W, int ne, int nk) {
  for (int d = nk; d < ne; d++) {
    double* c = W + (size_t)d * ne;
    for (int j = nk - 1; j >= 0; j--) {
      double s = c[j];
      for (int i = j + 1; i < nk; i++) s -= W[(size_t)i * ne + j] * c[i];
      c[j] = s / W[(size_t)j * ne + j];
    }
  }
}

/* The targets the rows meet together are (y, C y), y in R^nk: the
   projection of b is y = (I + C'C)^-1 (b_K + C' b_D), into r->y (kept,
   then dependent C y). G = I + C'C overwrites the first nk rows of W
   (L11 is no longer needed; C lives in the rows below). */
static void project_targets(imp_redundant* r, int ne, const double* b) {
  int nk = r->nk;
  double *W = r->W, *y = r->y;
  for (int i = 0; i < nk; i++) {
    double s = b[r->row[i]];
    for (int d = nk; d < ne; d++) s += W[(size_t)d * ne + i] * b[r->row[d]];
    y[i] = s;
    for (int j = 0; j <= i; j++) {
      double g = i == j ? 1 : 0;
      for (int d = nk; d < ne; d++) g += W[(size_t)d * ne + i] * W[(size_t)d * ne + j];
      W[(size_t)i * ne + j] = g;
    }
  }
  /* G's Cholesky in place (definite: I + a Gram matrix), then the solve */
  for (int k = 0; k < nk; k++) {
    double dk = W[(size_t)k * ne + k];
    for (int j = 0; j < k; j++) dk -= W[(size_t)k * ne + j] * W[(size_t)k * ne + j];
    double l = sqrt(dk);
    W[(size_t)k * ne + k] = l;
    for (int i = k + 1; i < nk; i++) {
      double s = W[(size_t)i * ne + k];
      for (int j = 0; j < k; j++) s -= W[(size_t)i * ne + j] * W[(size_t)k * ne + j];
      W[(size_t)i * ne + k] = s / l;
    }
  }
  for (int i = 0; i < nk; i++) {
    double s = y[i];
    for (int j = 0; j < i; j++) s -= W[(size_t)i * ne + j] * y[j];
    y[i] = s / W[(size_t)i * ne + i];
  }
  for (int i = nk - 1; i >= 0; i--) {
    double s = y[i];
    for (int j = i + 1; j < nk; j++) s -= W[(size_t)j * ne + i] * y[j];
    y[i] = s / W[(size_t)i * ne + i];
  }
  for (int d = nk; d < ne; d++) y[d] = imp_dot(W + (size_t)d * ne, y, nk);
}

int imp_redundant_reduce(const imp_cproblem* p, double* A, double* v0, double* b, double* g,
                         int warm, int maxiter, imp_redundant* r) {
  r->nk = r->nd = 0;
  if (maxiter < IMP_REDUNDANT_MIN_ITER) return 0;
  int n = p->n, ne = equality_rows(p, r->row);
  if (ne < 2) return 0;
  double* W = r->W;
  for (int i = 0; i < ne; i++)
    for (int j = 0; j < ne; j++) W[(size_t)i * ne + j] = A[(size_t)r->row[i] * n + r->row[j]];
  int nk = pivoted_factor(W, ne, r->row);
  if (nk == ne) return 0;
  r->nk = nk, r->nd = ne - nk;
  dependence(W, ne, nk);
  project_targets(r, ne, b);
  /* nothing is changed unless every coefficient and target is finite (a
     non-finite row of A leaves the island to the solvers' own checks) */
  int finite = 1;
  for (int i = 0; i < ne; i++) finite &= isfinite(r->y[i]) != 0;
  for (int d = nk; d < ne; d++)
    for (int k = 0; k < nk; k++) finite &= isfinite(W[(size_t)d * ne + k]) != 0;
  if (!finite) {
    r->nk = r->nd = 0;
    return 0;
  }
  for (int i = 0; i < ne; i++) b[r->row[i]] = r->y[i];
  /* the warm impulses of a dependent row moved onto the rows it depends
     on: J_d' f_d = sum_k c_dk J_k' f_d */
  if (warm)
    for (int d = nk; d < ne; d++) {
      double fd = g[r->row[d]];
      for (int k = 0; k < nk; k++) g[r->row[k]] += W[(size_t)d * ne + k] * fd;
      g[r->row[d]] = 0;
    }
  /* inert: w_d = A_dd f_d, target 0, so f_d = 0 in every answer */
  for (int d = nk; d < ne; d++) {
    int i = r->row[d];
    double aii = A[(size_t)i * n + i];
    for (int j = 0; j < n; j++) A[(size_t)i * n + j] = A[(size_t)j * n + i] = 0;
    A[(size_t)i * n + i] = aii;
    v0[i] = b[i] = g[i] = 0;
  }
  return r->nd;
}

void imp_redundant_restore(const imp_redundant* r, double* vel, double* b) {
  int nk = r->nk, ne = r->nk + r->nd;
  for (int d = nk; d < ne; d++) {
    const double* c = r->W + (size_t)d * ne;
    double v = 0, t = 0;
    for (int k = 0; k < nk; k++) {
      v += c[k] * vel[r->row[k]];
      t += c[k] * b[r->row[k]];
    }
    vel[r->row[d]] = v;
    b[r->row[d]] = t;
  }
}
