/* Unit quaternions (w, x, y, z) and the rotations they represent.
   Promises: results are unit length when the inputs are; res may alias
   the inputs only where a function says so. */
#ifndef IMPETUS_QUAT_H
#define IMPETUS_QUAT_H

/* q = identity */
void imp_quat_identity(double q[4]);
/* res = a * b (Hamilton product; res may alias a or b) */
void imp_quat_mul(double res[4], const double a[4], const double b[4]);
/* res = conj(q) */
void imp_quat_conj(double res[4], const double q[4]);
/* q /= |q|; a zero quaternion becomes the identity. Returns the old norm. */
double imp_quat_normalize(double q[4]);
/* res = R(q) v (res may alias v) */
void imp_quat_rotate(double res[3], const double q[4], const double v[3]);
/* res = R(q)' v (res may alias v) */
void imp_quat_rotate_inv(double res[3], const double q[4], const double v[3]);
/* row-major rotation matrix of q */
void imp_quat2mat(double R[9], const double q[4]);
/* quaternion of a rotation matrix (w >= 0) */
void imp_mat2quat(double q[4], const double R[9]);
/* rotation of angle about a unit axis */
void imp_axisangle2quat(double q[4], const double axis[3], double angle);
/* shortest rotation taking +z to the direction of v (v need not be unit) */
void imp_quat_z2vec(double q[4], const double v[3]);
/* q <- q * exp(omega h / 2): integrate a body-frame angular velocity omega
   over h exactly for constant omega, then renormalize */
void imp_quat_integrate(double q[4], const double omega[3], double h);
/* Euler angles (radians) applied in sequence seq: three of "xyzXYZ",
   lower case for rotations about the moving (intrinsic) axes, upper case for
   fixed (extrinsic) axes, as MJCF's compiler eulerseq. Returns 0 or -1 on a
   bad sequence. */
int imp_euler2quat(double q[4], const double euler[3], const char* seq);

#endif
