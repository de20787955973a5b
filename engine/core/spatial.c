/* Spatial vector algebra (Featherstone, Rigid Body Dynamics Algorithms,
   ch. 2), in the com-based frame of spatial.h. */
#include "core/spatial.h"

#include "core/mathx.h"

void imp_cross_motion(double res[6], const double v[6], const double s[6]) {
  double t[3];
  imp_cross(res, v, s);           /* w x a */
  imp_cross(res + 3, v, s + 3);   /* w x b */
  imp_cross(t, v + 3, s);         /* + v x a */
  for (int i = 0; i < 3; i++) res[3 + i] += t[i];
}

void imp_cross_force(double res[6], const double v[6], const double f[6]) {
  double t[3];
  imp_cross(res, v, f);           /* w x n */
  imp_cross(t, v + 3, f + 3);     /* + v x f */
  for (int i = 0; i < 3; i++) res[i] += t[i];
  imp_cross(res + 3, v, f + 3);   /* w x f */
}

/* Angular momentum about the ref: I_ref w + h x v; linear: m v - h x w,
   with h = m c the first mass moment. */
void imp_mul_inert_vec(double res[6], const double in[10], const double v[6]) {
  const double* w = v;
  const double* lin = v + 3;
  const double* h = in + 7;
  double mass = in[6], t[3];
  res[0] = in[0] * w[0] + in[3] * w[1] + in[4] * w[2];
  res[1] = in[3] * w[0] + in[1] * w[1] + in[5] * w[2];
  res[2] = in[4] * w[0] + in[5] * w[1] + in[2] * w[2];
  imp_cross(t, h, lin);
  for (int i = 0; i < 3; i++) res[i] += t[i];
  imp_cross(t, h, w);
  for (int i = 0; i < 3; i++) res[3 + i] = mass * lin[i] - t[i];
}

/* I_ref = R diag(moments) R' + m (|c|^2 E - c c') (parallel axis theorem). */
void imp_inert_pack(double in[10], double mass, const double mom[3], const double R[9],
                    const double c[3]) {
  double I[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      I[3 * i + j] = R[3 * i] * mom[0] * R[3 * j] + R[3 * i + 1] * mom[1] * R[3 * j + 1] +
                     R[3 * i + 2] * mom[2] * R[3 * j + 2];
  double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  in[0] = I[0] + mass * (cc - c[0] * c[0]);
  in[1] = I[4] + mass * (cc - c[1] * c[1]);
  in[2] = I[8] + mass * (cc - c[2] * c[2]);
  in[3] = I[1] - mass * c[0] * c[1];
  in[4] = I[2] - mass * c[0] * c[2];
  in[5] = I[5] - mass * c[1] * c[2];
  in[6] = mass;
  for (int i = 0; i < 3; i++) in[7 + i] = mass * c[i];
}
