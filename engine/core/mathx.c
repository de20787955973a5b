/* Small dense linear algebra; see mathx.h. */
#include "core/mathx.h"

#include <math.h>
#include <string.h>

#include "core/quat.h"

double imp_max_abs(const double* v, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

void imp_mat3_mat3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

void imp_mat3T_mat3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* One cyclic Jacobi sweep zeroes the three off-diagonal entries in turn,
   accumulating the rotations in V (Golub & Van Loan, sec. 8.5). */
static double jacobi_sweep(double a[9], double V[9]) {
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  double off = 0;
  for (int k = 0; k < 3; k++) {
    int p = pairs[k][0], q = pairs[k][1];
    double apq = a[3 * p + q];
    off += fabs(apq);
    if (fabs(apq) < 1e-300) continue;
    double theta = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
    double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
    double c = 1 / sqrt(t * t + 1), s = t * c;
    for (int i = 0; i < 3; i++) { /* A <- A J, then J' A */
      double aip = a[3 * i + p], aiq = a[3 * i + q];
      a[3 * i + p] = c * aip - s * aiq;
      a[3 * i + q] = s * aip + c * aiq;
    }
    for (int j = 0; j < 3; j++) {
      double apj = a[3 * p + j], aqj = a[3 * q + j];
      a[3 * p + j] = c * apj - s * aqj;
      a[3 * q + j] = s * apj + c * aqj;
    }
    for (int i = 0; i < 3; i++) {
      double vip = V[3 * i + p], viq = V[3 * i + q];
      V[3 * i + p] = c * vip - s * viq;
      V[3 * i + q] = s * vip + c * viq;
    }
  }
  return off;
}

int imp_eig3(double eigval[3], double quat[4], const double A[9]) {
  double a[9], V[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(a, A, sizeof a);
  double scale = fabs(a[0]) + fabs(a[4]) + fabs(a[8]) + 1e-300;
  int sweeps = 0;
  while (sweeps < 50 && jacobi_sweep(a, V) > 1e-17 * scale) sweeps++;
  /* sort columns by decreasing eigenvalue */
  int idx[3] = {0, 1, 2};
  for (int i = 0; i < 2; i++)
    for (int j = i + 1; j < 3; j++)
      if (a[4 * idx[j]] > a[4 * idx[i]]) {
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
      }
  double R[9];
  for (int j = 0; j < 3; j++) {
    eigval[j] = a[4 * idx[j]];
    for (int i = 0; i < 3; i++) R[3 * i + j] = V[3 * i + idx[j]];
  }
  /* keep a right-handed frame */
  double c[3] = {R[0], R[3], R[6]}, d[3] = {R[1], R[4], R[7]}, e[3];
  imp_cross(e, c, d);
  if (e[0] * R[2] + e[1] * R[5] + e[2] * R[8] < 0)
    for (int i = 0; i < 3; i++) R[3 * i + 2] = -R[3 * i + 2];
  imp_mat2quat(quat, R);
  return sweeps;
}

/* Swap indices k < q of the symmetric W held in its lower triangle
   (row-major, W(i, j) for j <= i): rows and columns k and q at once. */
static void swap_lower(double* W, int n, int k, int q) {
  double t;
#define SWAP(a, b) (t = (a), (a) = (b), (b) = t)
  for (int j = 0; j < k; j++) SWAP(W[(size_t)k * n + j], W[(size_t)q * n + j]);
  SWAP(W[(size_t)k * n + k], W[(size_t)q * n + q]);
  for (int j = k + 1; j < q; j++) SWAP(W[(size_t)j * n + k], W[(size_t)q * n + j]);
  for (int i = q + 1; i < n; i++) SWAP(W[(size_t)i * n + k], W[(size_t)i * n + q]);
#undef SWAP
}

double imp_pivot_start(const double* W, int n, int* perm) {
  double dmax = 0;
  for (int i = 0; i < n; i++) {
    perm[i] = i;
    dmax = fmax(dmax, W[(size_t)i * n + i]);
  }
  return dmax;
}

double imp_pivot_take(double* W, int n, int k, int* perm, double dmax, double tol) {
  int piv = k;
  double dk = W[(size_t)k * n + k];
  for (int i = k + 1; i < n; i++) {
    double wi = W[(size_t)i * n + i];
    if (wi > dk) piv = i, dk = wi;
  }
  if (!(dk > tol * dmax) || !isfinite(dk)) return 0;
  if (piv != k) {
    swap_lower(W, n, k, piv);
    int t = perm[k];
    perm[k] = perm[piv];
    perm[piv] = t;
  }
  double l = sqrt(W[(size_t)k * n + k]);
  W[(size_t)k * n + k] = l;
  return l;
}

int imp_pivoted_cholesky(double* W, int n, int* perm, double* col, double tol) {
  double dmax = imp_pivot_start(W, n, perm);
  int rank = 0;
  for (int k = 0; k < n; k++) {
    double l = imp_pivot_take(W, n, k, perm, dmax, tol);
    if (l == 0) break;
    for (int i = k + 1; i < n; i++) col[i] = W[(size_t)i * n + k] /= l;
    for (int i = k + 1; i < n; i++) imp_sub_scaled(W + (size_t)i * n + k + 1, col + k + 1, col[i], i - k);
    rank = k + 1;
  }
  return rank;
}
