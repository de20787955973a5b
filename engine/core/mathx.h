/* Small dense linear algebra on double arrays: vectors of any length,
   3-vectors and row-major 3x3 matrices. Promises: no allocation, inputs and
   outputs may not alias unless a function says so. */
#ifndef IMPETUS_MATHX_H
#define IMPETUS_MATHX_H

#include <math.h>
#include <string.h>

/* The innermost helpers are inline: they run in every loop of a step and a
   call per 6-vector would cost more than the arithmetic. */

#define IMP_PI 3.14159265358979323846
#define IMP_MINVAL 1e-15

/* Four doubles: one AVX register where the build has AVX (CMakeLists.txt
   IMP_AVX2), two SSE registers otherwise, the same lane by lane; kept to
   locals (never passed or returned, whose ABI differs between the two). */
typedef double v4d __attribute__((vector_size(32)));

/* y -= x a over n entries: each entry on its own, so four at a time give
   the same bits as one at a time. The tail is written out: a loop of its
   own the compiler vectorizes again, at more cost than it saves on the
   short rows of the sparse factorizations and the sticking point. */
static inline void imp_sub_scaled(double* y, const double* x, double a, int n) {
  v4d av = {a, a, a, a}, xv, yv;
  int t = 0;
  for (; t + 4 <= n; t += 4) {
    memcpy(&xv, x + t, sizeof xv);
    memcpy(&yv, y + t, sizeof yv);
    yv -= xv * av;
    memcpy(y + t, &yv, sizeof yv);
  }
  switch (n - t) {
    case 3: y[t + 2] -= x[t + 2] * a; /* fall through */
    case 2: y[t + 1] -= x[t + 1] * a; /* fall through */
    case 1: y[t] -= x[t] * a;
  }
}

/* res = 0 (n values) */
static inline void imp_zero(double* res, int n) {
  for (int i = 0; i < n; i++) res[i] = 0;
}
/* res = v (n values) */
static inline void imp_copy(double* res, const double* v, int n) {
  if (res != v) memmove(res, v, (size_t)(n > 0 ? n : 0) * sizeof(double));
}
/* res = v * s (may alias) */
static inline void imp_scl(double* res, const double* v, double s, int n) {
  for (int i = 0; i < n; i++) res[i] = v[i] * s;
}
/* res += v * s (may alias) */
static inline void imp_add_scl(double* res, const double* v, double s, int n) {
  for (int i = 0; i < n; i++) res[i] += v[i] * s;
}
/* v . w */
static inline double imp_dot(const double* v, const double* w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * w[i];
  return s;
}
/* largest |v_i| */
double imp_max_abs(const double* v, int n);

/* res = a x b (3-vectors) */
static inline void imp_cross(double res[3], const double a[3], const double b[3]) {
  double r0 = a[1] * b[2] - a[2] * b[1], r1 = a[2] * b[0] - a[0] * b[2];
  double r2 = a[0] * b[1] - a[1] * b[0];
  res[0] = r0;
  res[1] = r1;
  res[2] = r2;
}
/* |v| of a 3-vector (inline: EPA's faces and the contact frames call it
   millions of times a second, and the call cost more than its square root) */
static inline double imp_norm3(const double v[3]) {
  return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}
/* v /= |v|; returns the old norm, leaves v alone when it is ~0 */
static inline double imp_normalize3(double v[3]) {
  double n = imp_norm3(v);
  if (n > IMP_MINVAL) {
    v[0] /= n;
    v[1] /= n;
    v[2] /= n;
  }
  return n;
}
/* res = M v (M row-major 3x3; res may not alias v) */
static inline void imp_mat3_vec(double res[3], const double M[9], const double v[3]) {
  double r0 = M[0] * v[0] + M[1] * v[1] + M[2] * v[2];
  double r1 = M[3] * v[0] + M[4] * v[1] + M[5] * v[2];
  res[2] = M[6] * v[0] + M[7] * v[1] + M[8] * v[2];
  res[0] = r0;
  res[1] = r1;
}
/* res = M' v */
static inline void imp_mat3T_vec(double res[3], const double M[9], const double v[3]) {
  double r0 = M[0] * v[0] + M[3] * v[1] + M[6] * v[2];
  double r1 = M[1] * v[0] + M[4] * v[1] + M[7] * v[2];
  res[2] = M[2] * v[0] + M[5] * v[1] + M[8] * v[2];
  res[0] = r0;
  res[1] = r1;
}
/* res = A B */
void imp_mat3_mat3(double res[9], const double A[9], const double B[9]);
/* res = A' B */
void imp_mat3T_mat3(double res[9], const double A[9], const double B[9]);

/* Rank-revealing pivoted Cholesky A = P L L' P' of the symmetric n x n W
   held in its lower triangle (row-major, W(i, j) for j <= i; the upper
   triangle is neither read nor written), in place: diagonal pivoting (the
   largest remaining diagonal, the first of equals), stopped at the first
   pivot not above tol times the largest diagonal of A, or not finite.
   L(i, k) = W(i, k) for i >= k and k < rank; perm[k] is the index in A of
   pivot k; col: n doubles of scratch. The update of step k runs along rows
   (col holds column k), so each entry sees the operations of the textbook
   column form in their order: the bits do not depend on the vector width.
   Returns the rank. Shared by the sticking point of todorov
   (solvers/todorov_search.c) and the dependent equality rows
   (constraint/contact_redundant.c). */
int imp_pivoted_cholesky(double* W, int n, int* perm, double* col, double tol);
/* its steps, for variants that skip work (todorov_search.c's sparse
   factor): perm = identity, returning the largest diagonal of W; and step
   k's pivot swapped to k and its root L(k, k) written, returning the root,
   or 0 when it is not above tol dmax or not finite (the rank is then k) */
double imp_pivot_start(const double* W, int n, int* perm);
double imp_pivot_take(double* W, int n, int k, int* perm, double dmax, double tol);

/* Eigen-decomposition of a symmetric 3x3 matrix by Jacobi rotations:
   A = R diag(eigval) R', R returned as the quaternion of its rotation,
   eigenvalues in decreasing order. Returns the number of sweeps. */
int imp_eig3(double eigval[3], double quat[4], const double A[9]);

#endif
