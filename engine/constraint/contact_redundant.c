/* Redundant equality rows: found, their targets made consistent, and made
 * inert (see contact_redundant.h). */
#include <math.h>

#include "constraint/contact_redundant.h"
#include "core/mathx.h"

static int capped(int nmax) { return nmax < IMP_REDUNDANT_MAX_ROWS ? nmax : IMP_REDUNDANT_MAX_ROWS; }

size_t imp_redundant_doubles(int nmax) {
  size_t m = (size_t)capped(nmax);
  return m * m + 2 * m;
}

size_t imp_redundant_ints(int nmax) { return 2 * (size_t)capped(nmax); }

void imp_redundant_carve(imp_redundant* r, double* dbl, int* ints, int nmax) {
  size_t m = (size_t)capped(nmax);
  r->W = dbl;
  r->y = dbl ? dbl + m * m : NULL;
  r->col = dbl ? dbl + m * m + m : NULL;
  r->row = ints;
  r->perm = ints ? ints + m : NULL;
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

/* Pivoted Cholesky of the equality block W (ne x ne, its lower triangle)
   by imp_pivoted_cholesky (core/mathx.h; the sticking point's, so the two
   cannot drift apart): L in the lower triangle of the first rank columns,
   rows in pivot order and row[] with them; stops at the first pivot below
   IMP_REDUNDANT_TOL of the largest diagonal. Returns the rank, or ne (the
   block left alone) when no diagonal is positive or the first pivot left
   out is not finite. */
static int pivoted_factor(double* W, int ne, imp_redundant* r) {
  double dmax = 0;
  for (int i = 0; i < ne; i++) dmax = fmax(dmax, W[(size_t)i * ne + i]);
  if (!(dmax > 0) || !isfinite(dmax)) return ne; /* nothing to tell apart: left alone */
  int nk = imp_pivoted_cholesky(W, ne, r->perm, r->col, IMP_REDUNDANT_TOL);
  if (nk < ne) { /* the pivot the factor stopped at, as it chose it */
    double dq = W[(size_t)nk * ne + nk];
    for (int i = nk + 1; i < ne; i++)
      if (W[(size_t)i * ne + i] > dq) dq = W[(size_t)i * ne + i];
    if (!isfinite(dq)) return ne;
  }
  /* row[] in pivot order (col, free now, holds the row numbers exactly) */
  for (int k = 0; k < ne; k++) r->col[k] = r->row[r->perm[k]];
  for (int k = 0; k < ne; k++) r->row[k] = (int)r->col[k];
  return nk;
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

/* Cholesky L L' of the k x k matrix in W's top-left corner (row stride
   ne, lower triangle; definite: I plus a Gram matrix), in place */
static void corner_cholesky(double* W, int ne, int k) {
  for (int c = 0; c < k; c++) {
    double dk = W[(size_t)c * ne + c];
    for (int j = 0; j < c; j++) dk -= W[(size_t)c * ne + j] * W[(size_t)c * ne + j];
    double l = sqrt(dk);
    W[(size_t)c * ne + c] = l;
    for (int i = c + 1; i < k; i++) {
      double s = W[(size_t)i * ne + c];
      for (int j = 0; j < c; j++) s -= W[(size_t)i * ne + j] * W[(size_t)c * ne + j];
      W[(size_t)i * ne + c] = s / l;
    }
  }
}

/* y = (L L')^-1 y with L the corner's factor (corner_cholesky) */
static void corner_solve(const double* W, int ne, int k, double* y) {
  for (int i = 0; i < k; i++) {
    double s = y[i];
    for (int j = 0; j < i; j++) s -= W[(size_t)i * ne + j] * y[j];
    y[i] = s / W[(size_t)i * ne + i];
  }
  for (int i = k - 1; i >= 0; i--) {
    double s = y[i];
    for (int j = i + 1; j < k; j++) s -= W[(size_t)j * ne + i] * y[j];
    y[i] = s / W[(size_t)i * ne + i];
  }
}

/* The targets the rows meet together are (y, C y), y in R^nk: the
   projection of b is y = (I + C'C)^-1 u, u = b_K + C' b_D, into r->y
   (kept, then dependent C y). C lives in W's rows nk.. ; L11 is no
   longer needed, so W's top-left corner is free. With few dependent rows
   (Menagerie's iit_softfoot: 60 equality rows of rank 55) the Woodbury
   identity (I + C'C)^-1 = I - C'(I + CC')^-1 C works on nd x nd instead:
   nk nd^2 / 2 + nd^3 / 6 multiply-adds against nk^2 nd / 2 + nk^3 / 6
   (on softfoot the direct route was a third of the reduction's cost),
   chosen where it costs less than half as much and the direct route
   more than REDUNDANT_DIRECT_WORK; elsewhere (toddlerbot: 12 kept, 9
   dependent; cassie's loops) the direct route, as before: there the
   choice saves a few hundred multiply-adds and would only move the
   trajectories by rounding. */
#define REDUNDANT_DIRECT_WORK 4096
static void project_targets(imp_redundant* r, int ne, const double* b) {
  int nk = r->nk, nd = ne - nk;
  double *W = r->W, *y = r->y;
  for (int i = 0; i < nk; i++) { /* u */
    double s = b[r->row[i]];
    for (int d = nk; d < ne; d++) s += W[(size_t)d * ne + i] * b[r->row[d]];
    y[i] = s;
  }
  double direct = (double)nk * nk * nd / 2 + (double)nk * nk * nk / 6;
  double woodbury = (double)nk * nd * nd / 2 + (double)nd * nd * nd / 6;
  if (nd <= nk && 2 * woodbury < direct && direct > REDUNDANT_DIRECT_WORK) {
    double* t = r->col; /* C u, then (I + CC')^-1 C u */
    for (int d = 0; d < nd; d++) t[d] = imp_dot(W + (size_t)(nk + d) * ne, y, nk);
    for (int d = 0; d < nd; d++) /* I + CC' into the corner (nd <= nk) */
      for (int e = 0; e <= d; e++)
        W[(size_t)d * ne + e] = (d == e) + imp_dot(W + (size_t)(nk + d) * ne,
                                                   W + (size_t)(nk + e) * ne, nk);
    corner_cholesky(W, ne, nd);
    corner_solve(W, ne, nd, t);
    for (int d = 0; d < nd; d++) imp_sub_scaled(y, W + (size_t)(nk + d) * ne, t[d], nk);
  } else {
    for (int i = 0; i < nk; i++) /* G = I + C'C into the corner */
      for (int j = 0; j <= i; j++) {
        double g = i == j ? 1 : 0;
        for (int d = nk; d < ne; d++) g += W[(size_t)d * ne + i] * W[(size_t)d * ne + j];
        W[(size_t)i * ne + j] = g;
      }
    corner_cholesky(W, ne, nk);
    corner_solve(W, ne, nk, y);
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
    for (int j = 0; j <= i; j++) W[(size_t)i * ne + j] = A[(size_t)r->row[i] * n + r->row[j]];
  int nk = pivoted_factor(W, ne, r);
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
