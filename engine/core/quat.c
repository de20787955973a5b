/* Quaternions (w, x, y, z); see quat.h. */
#include "core/quat.h"

#include <math.h>
#include <string.h>

#include "core/mathx.h"

void imp_quat_identity(double q[4]) {
  q[0] = 1;
  q[1] = q[2] = q[3] = 0;
}

void imp_quat_mul(double res[4], const double a[4], const double b[4]) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(res, r, sizeof r);
}

void imp_quat_conj(double res[4], const double q[4]) {
  res[0] = q[0];
  res[1] = -q[1];
  res[2] = -q[2];
  res[3] = -q[3];
}

double imp_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < IMP_MINVAL) {
    imp_quat_identity(q);
  } else {
    for (int i = 0; i < 4; i++) q[i] /= n;
  }
  return n;
}

/* v' = v + 2w (u x v) + 2 u x (u x v), u the vector part */
void imp_quat_rotate(double res[3], const double q[4], const double v[3]) {
  const double* u = q + 1;
  double t[3], s[3];
  imp_cross(t, u, v);
  for (int i = 0; i < 3; i++) t[i] *= 2;
  imp_cross(s, u, t);
  double r[3] = {v[0] + q[0] * t[0] + s[0], v[1] + q[0] * t[1] + s[1], v[2] + q[0] * t[2] + s[2]};
  memcpy(res, r, sizeof r);
}

void imp_quat_rotate_inv(double res[3], const double q[4], const double v[3]) {
  double c[4];
  imp_quat_conj(c, q);
  imp_quat_rotate(res, c, v);
}

void imp_quat2mat(double R[9], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double ww = w * w, xx = x * x, yy = y * y, zz = z * z;
  R[0] = ww + xx - yy - zz;
  R[4] = ww - xx + yy - zz;
  R[8] = ww - xx - yy + zz;
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
}

/* Shepperd's method: pick the largest of w, x, y, z to divide by. */
void imp_mat2quat(double q[4], const double R[9]) {
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = 2 * sqrt(1 + tr);
    q[0] = s / 4;
    q[1] = (R[7] - R[5]) / s;
    q[2] = (R[2] - R[6]) / s;
    q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s;
    q[1] = s / 4;
    q[2] = (R[1] + R[3]) / s;
    q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s;
    q[1] = (R[1] + R[3]) / s;
    q[2] = s / 4;
    q[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s;
    q[1] = (R[2] + R[6]) / s;
    q[2] = (R[5] + R[7]) / s;
    q[3] = s / 4;
  }
  if (q[0] < 0)
    for (int i = 0; i < 4; i++) q[i] = -q[i];
  imp_quat_normalize(q);
}

void imp_axisangle2quat(double q[4], const double axis[3], double angle) {
  double s = sin(angle / 2);
  q[0] = cos(angle / 2);
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}

void imp_quat_z2vec(double q[4], const double v[3]) {
  double u[3] = {v[0], v[1], v[2]}, z[3] = {0, 0, 1}, axis[3];
  imp_quat_identity(q);
  if (imp_normalize3(u) < IMP_MINVAL) return;
  imp_cross(axis, z, u);
  double s = imp_normalize3(axis);
  if (s < IMP_MINVAL) { /* parallel or anti-parallel to z */
    if (u[2] < 0) {
      q[0] = 0;
      q[1] = 1;
    }
    return;
  }
  imp_axisangle2quat(q, axis, atan2(s, u[2]));
}

/* For constant body-frame omega, q(t+h) = q(t) * exp(omega h / 2) exactly:
   a rotation by |omega| h about omega/|omega| (Macklin et al. 2019, eq. 88-89,
   integrated in closed form). */
void imp_quat_integrate(double q[4], const double omega[3], double h) {
  double axis[3] = {omega[0], omega[1], omega[2]};
  double speed = imp_normalize3(axis);
  if (speed < IMP_MINVAL) return;
  double dq[4];
  imp_axisangle2quat(dq, axis, speed * h);
  imp_quat_mul(q, q, dq);
  imp_quat_normalize(q);
}

int imp_euler2quat(double q[4], const double euler[3], const char* seq) {
  if (!seq || strlen(seq) != 3) return -1;
  imp_quat_identity(q);
  for (int i = 0; i < 3; i++) {
    double axis[3] = {0, 0, 0}, r[4];
    char c = seq[i];
    switch (c) {
      case 'x': case 'X': axis[0] = 1; break;
      case 'y': case 'Y': axis[1] = 1; break;
      case 'z': case 'Z': axis[2] = 1; break;
      default: return -1;
    }
    imp_axisangle2quat(r, axis, euler[i]);
    if (c >= 'a') imp_quat_mul(q, q, r); /* about the moving axes */
    else imp_quat_mul(q, r, q);          /* about the fixed axes */
  }
  return 0;
}
