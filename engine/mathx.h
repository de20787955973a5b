/* Small dense linear algebra on double arrays: vectors of any length,
   3-vectors and row-major 3x3 matrices. Promises: no allocation, inputs and
   outputs may not alias unless a function says so. */
#ifndef IMPETUS_MATHX_H
#define IMPETUS_MATHX_H

#define IMP_PI 3.14159265358979323846
#define IMP_MINVAL 1e-15

/* res = 0 (n values) */
void imp_zero(double* res, int n);
/* res = v (n values) */
void imp_copy(double* res, const double* v, int n);
/* res = v * s (may alias) */
void imp_scl(double* res, const double* v, double s, int n);
/* res += v * s (may alias) */
void imp_add_scl(double* res, const double* v, double s, int n);
/* v . w */
double imp_dot(const double* v, const double* w, int n);
/* largest |v_i| */
double imp_max_abs(const double* v, int n);

/* res = a x b (3-vectors) */
void imp_cross(double res[3], const double a[3], const double b[3]);
/* |v| of a 3-vector */
double imp_norm3(const double v[3]);
/* v /= |v|; returns the old norm, leaves v alone when it is ~0 */
double imp_normalize3(double v[3]);
/* res = M v (M row-major 3x3; res may not alias v) */
void imp_mat3_vec(double res[3], const double M[9], const double v[3]);
/* res = M' v */
void imp_mat3T_vec(double res[3], const double M[9], const double v[3]);
/* res = A B */
void imp_mat3_mat3(double res[9], const double A[9], const double B[9]);
/* res = A' B */
void imp_mat3T_mat3(double res[9], const double A[9], const double B[9]);

/* Eigen-decomposition of a symmetric 3x3 matrix by Jacobi rotations:
   A = R diag(eigval) R', R returned as the quaternion of its rotation,
   eigenvalues in decreasing order. Returns the number of sweeps. */
int imp_eig3(double eigval[3], double quat[4], const double A[9]);

#endif
