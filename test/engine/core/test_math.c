/* Unit tests of the small linear algebra (mathx), quaternions (quat) and
 * spatial vectors (spatial).
 *
 * Every check compares against something outside the function under test:
 * rotation matrices built by hand from cos/sin (elemental rotations,
 * Rodrigues' formula), algebraic identities (associativity, orthogonality,
 * the Jacobi identity of the motion cross product, force/motion duality),
 * and the textbook rigid-body kinetic energy and momentum. Random inputs
 * come from a fixed-seed generator, so failures reproduce. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "core/spatial.h"
#include "test_util.h"

/* ---- helpers ---- */


/* uniform in [lo, hi) from a 64-bit xorshift* generator */

/* a uniformly random unit quaternion (rejection from the 4-ball) */

static void rand_unit3(double v[3]) {
  double n2;
  do {
    for (int i = 0; i < 3; i++) v[i] = imp_test_urand(-1, 1);
    n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  } while (n2 > 1 || n2 < 1e-4);
  for (int i = 0; i < 3; i++) v[i] /= sqrt(n2);
}

/* Rodrigues' rotation matrix about a unit axis n, written out by hand:
   R = cos E + sin [n]x + (1 - cos) n n'. */
static void rodrigues(double R[9], const double n[3], double angle) {
  double c = cos(angle), s = sin(angle), t = 1 - c;
  R[0] = c + t * n[0] * n[0];
  R[1] = t * n[0] * n[1] - s * n[2];
  R[2] = t * n[0] * n[2] + s * n[1];
  R[3] = t * n[1] * n[0] + s * n[2];
  R[4] = c + t * n[1] * n[1];
  R[5] = t * n[1] * n[2] - s * n[0];
  R[6] = t * n[2] * n[0] - s * n[1];
  R[7] = t * n[2] * n[1] + s * n[0];
  R[8] = c + t * n[2] * n[2];
}

/* plain row-major 3x3 product, independent of imp_mat3_mat3 */
static void matmul3(double C[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += A[3 * i + k] * B[3 * k + j];
      C[3 * i + j] = s;
    }
}

/* |q1 - q2| up to the sign ambiguity of quaternions */
static double quat_dist(const double a[4], const double b[4]) {
  double dp = 0, dm = 0;
  for (int i = 0; i < 4; i++) {
    dp = fmax(dp, fabs(a[i] - b[i]));
    dm = fmax(dm, fabs(a[i] + b[i]));
  }
  return fmin(dp, dm);
}

static double quat_norm(const double q[4]) {
  return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}

/* ---- mathx ---- */

START_TEST(test_mat3_products_match_definition) {
  for (int t = 0; t < 100; t++) {
    double A[9], B[9], v[3], ref[9], res[9], r3[3], e3[3];
    for (int i = 0; i < 9; i++) A[i] = imp_test_urand(-2, 2), B[i] = imp_test_urand(-2, 2);
    for (int i = 0; i < 3; i++) v[i] = imp_test_urand(-2, 2);
    matmul3(ref, A, B);
    imp_mat3_mat3(res, A, B);
    imp_assert_vec_near(res, ref, 9, 1e-15);
    double At[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) At[3 * i + j] = A[3 * j + i];
    matmul3(ref, At, B);
    imp_mat3T_mat3(res, A, B);
    imp_assert_vec_near(res, ref, 9, 1e-15);
    double V[9] = {v[0], 0, 0, v[1], 0, 0, v[2], 0, 0}, AV[9];
    matmul3(AV, A, V);
    imp_mat3_vec(r3, A, v);
    for (int i = 0; i < 3; i++) e3[i] = AV[3 * i];
    imp_assert_vec_near(r3, e3, 3, 1e-15);
    matmul3(AV, At, V);
    imp_mat3T_vec(r3, A, v);
    for (int i = 0; i < 3; i++) e3[i] = AV[3 * i];
    imp_assert_vec_near(r3, e3, 3, 1e-15);
    /* cross product: orthogonal to both factors, |a x b|^2 = |a|^2|b|^2 - (a.b)^2 */
    double c[3];
    imp_cross(c, A, B);
    imp_assert_near(imp_dot(c, A, 3), 0, 1e-14);
    imp_assert_near(imp_dot(c, B, 3), 0, 1e-14);
    double aa = imp_dot(A, A, 3), bb = imp_dot(B, B, 3), ab = imp_dot(A, B, 3);
    imp_assert_near(imp_dot(c, c, 3), aa * bb - ab * ab, 1e-13);
  }
}
END_TEST

START_TEST(test_normalize3_small_vectors) {
  double v[3] = {3, 4, 12};
  imp_assert_near(imp_normalize3(v), 13, 0);
  imp_assert_near(imp_norm3(v), 1, 1e-16);
  double tiny[3] = {1e-17, 0, 0};
  imp_normalize3(tiny);
  ck_assert_msg(tiny[0] == 1e-17, "a ~0 vector must be left alone, got %g", tiny[0]);
  double z[4] = {0, 0, 0, 0};
  imp_quat_normalize(z);
  double id[4] = {1, 0, 0, 0};
  imp_assert_vec_near(z, id, 4, 0);
}
END_TEST

/* ---- quaternions ---- */

START_TEST(test_quat_product_associative_and_composes_rotations) {
  for (int t = 0; t < 200; t++) {
    double a[4], b[4], c[4], ab[4], bc[4], l[4], r[4];
    imp_test_rand_quat(a);
    imp_test_rand_quat(b);
    imp_test_rand_quat(c);
    imp_quat_mul(ab, a, b);
    imp_quat_mul(bc, b, c);
    imp_quat_mul(l, ab, c);
    imp_quat_mul(r, a, bc);
    imp_assert_vec_near(l, r, 4, 1e-15);
    imp_assert_near(quat_norm(ab), 1, 1e-15);
    /* R(a b) = R(a) R(b): rotating by b first, then by a */
    double Ra[9], Rb[9], Rab[9], RaRb[9];
    imp_quat2mat(Ra, a);
    imp_quat2mat(Rb, b);
    imp_quat2mat(Rab, ab);
    matmul3(RaRb, Ra, Rb);
    imp_assert_vec_near(Rab, RaRb, 9, 1e-15);
    /* aliasing allowed: res may be a or b */
    double x[4];
    memcpy(x, a, sizeof x);
    imp_quat_mul(x, x, b);
    imp_assert_vec_near(x, ab, 4, 0);
    memcpy(x, b, sizeof x);
    imp_quat_mul(x, a, x);
    imp_assert_vec_near(x, ab, 4, 0);
    /* q conj(q) = identity */
    double ac[4], id[4] = {1, 0, 0, 0};
    imp_quat_conj(ac, a);
    imp_quat_mul(x, a, ac);
    imp_assert_vec_near(x, id, 4, 1e-15);
  }
}
END_TEST

START_TEST(test_axisangle_matches_rodrigues) {
  for (int t = 0; t < 200; t++) {
    double n[3], q[4], R[9], Rq[9], v[3], rv[3], rinv[3], Rv[3];
    rand_unit3(n);
    double angle = imp_test_urand(-2 * IMP_PI, 2 * IMP_PI);
    imp_axisangle2quat(q, n, angle);
    rodrigues(R, n, angle);
    imp_quat2mat(Rq, q);
    imp_assert_vec_near(Rq, R, 9, 1e-15);
    for (int i = 0; i < 3; i++) v[i] = imp_test_urand(-3, 3);
    imp_quat_rotate(rv, q, v);
    for (int i = 0; i < 3; i++) Rv[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
    imp_assert_vec_near(rv, Rv, 3, 1e-14);
    imp_quat_rotate_inv(rinv, q, rv);
    imp_assert_vec_near(rinv, v, 3, 1e-14);
    /* in place */
    imp_quat_rotate(v, q, v);
    imp_assert_vec_near(v, rv, 3, 0);
  }
  /* a quarter turn about z takes x to y */
  double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, q[4], r[3], y[3] = {0, 1, 0};
  imp_axisangle2quat(q, z, IMP_PI / 2);
  imp_quat_rotate(r, q, x);
  imp_assert_vec_near(r, y, 3, 4e-16);
}
END_TEST

/* Round trip quat -> matrix -> quat, the matrix orthonormal with det +1,
   including rotations near and at 180 degrees (w ~ 0), where the trace-based
   formula loses all precision and Shepperd's branches must take over. */
START_TEST(test_quat_mat_round_trip) {
  double ws[] = {-1, 1, 0.5, 1e-3, 1e-6, 1e-9, 1e-12, 0, -1e-9};
  for (int t = 0; t < 900; t++) {
    double q[4], R[9], RtR[9], Rt[9], p[4];
    imp_test_rand_quat(q);
    double w = ws[t % 9];
    if (w != -1) { /* force the scalar part, keep the axis random */
      double s = sqrt(1 - w * w), n = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      q[0] = w;
      for (int i = 1; i < 4; i++) q[i] *= s / n;
    }
    imp_quat2mat(R, q);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Rt[3 * i + j] = R[3 * j + i];
    matmul3(RtR, Rt, R);
    double E[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    imp_assert_vec_near(RtR, E, 9, 4e-15); /* a few ulp: products of rounded entries */
    double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                 R[2] * (R[3] * R[7] - R[4] * R[6]);
    imp_assert_near(det, 1, 4e-15); /* six triple products of rounded entries */
    imp_mat2quat(p, R);
    ck_assert_msg(p[0] >= 0, "mat2quat must return w >= 0, got %g", p[0]);
    imp_assert_near(quat_norm(p), 1, 1e-15);
    double e = quat_dist(p, q);
    ck_assert_msg(e <= 2e-15, "round trip error %.3e at w = %g: q = (%g %g %g %g), p = (%g %g %g %g)",
                  e, q[0], q[0], q[1], q[2], q[3], p[0], p[1], p[2], p[3]);
  }
  /* exact half turns about the coordinate axes and a diagonal */
  double axes[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.6, 0, -0.8}};
  for (int k = 0; k < 4; k++) {
    double R[9], p[4], q[4] = {0, axes[k][0], axes[k][1], axes[k][2]};
    rodrigues(R, axes[k], IMP_PI);
    imp_mat2quat(p, R);
    ck_assert_msg(quat_dist(p, q) < 1e-15, "half turn %d: (%g %g %g %g)", k, p[0], p[1], p[2], p[3]);
  }
}
END_TEST

/* Integration of a constant body-frame angular velocity: after n steps the
   orientation is q0 * rotation(|w| n h about w/|w|), i.e. the axis is fixed
   in the body, not in the world. */
START_TEST(test_quat_integrate_constant_omega_exact) {
  double q0[4], w[3] = {0.3, -1.2, 2.0};
  imp_test_rand_quat(q0);
  double q[4];
  memcpy(q, q0, sizeof q);
  double h = 1e-3;
  int n = 1000;
  for (int i = 0; i < n; i++) imp_quat_integrate(q, w, h);
  double n3 = imp_norm3(w), axis[3] = {w[0] / n3, w[1] / n3, w[2] / n3}, r[4], expect[4];
  imp_axisangle2quat(r, axis, n3 * n * h);
  imp_quat_mul(expect, q0, r);
  ck_assert_msg(quat_dist(q, expect) < 1e-13, "error %.3e", quat_dist(q, expect));
  /* the world-frame alternative r * q0 is far from it: the frame matters */
  double world[4];
  imp_quat_mul(world, r, q0);
  ck_assert_msg(quat_dist(q, world) > 1e-2, "test is blind to the frame of omega");
  /* derivative: (q(h) - q)/h -> 1/2 q (0, w) */
  double qh[4], wq[4] = {0, w[0], w[1], w[2]}, dq[4], fd[4];
  double hs = 1e-7;
  memcpy(qh, q0, sizeof qh);
  imp_quat_integrate(qh, w, hs);
  imp_quat_mul(dq, q0, wq);
  for (int i = 0; i < 4; i++) {
    fd[i] = (qh[i] - q0[i]) / hs;
    dq[i] *= 0.5;
  }
  imp_assert_vec_near(fd, dq, 4, 1e-6);
  /* zero omega leaves q alone */
  double zero[3] = {0, 0, 0};
  memcpy(q, q0, sizeof q);
  imp_quat_integrate(q, zero, 1);
  imp_assert_vec_near(q, q0, 4, 0);
}
END_TEST

/* 1e6 steps: the norm stays 1 to rounding and the orientation is still the
   exact rotation; the accumulated rounding of 1e6 products is a few 1e-16
   per step at most, so 1e-9 bounds the worst (linear) growth. */
START_TEST(test_quat_integrate_1e6_steps_unit) {
  double q[4] = {1, 0, 0, 0}, w[3] = {1.0, 2.0, -0.5};
  double h = 1e-4;
  int n = 1000000;
  double maxdev = 0;
  for (int i = 0; i < n; i++) {
    imp_quat_integrate(q, w, h);
    maxdev = fmax(maxdev, fabs(quat_norm(q) - 1));
  }
  ck_assert_msg(maxdev < 4e-16, "norm deviates by %.3e", maxdev);
  double n3 = imp_norm3(w), axis[3] = {w[0] / n3, w[1] / n3, w[2] / n3}, expect[4];
  imp_axisangle2quat(expect, axis, n3 * n * h);
  double e = quat_dist(q, expect);
  ck_assert_msg(e < 1e-9, "after 1e6 steps: error %.3e from the exact rotation", e);
}
END_TEST

/* elemental rotation matrices about x, y, z, written out */
static void elemental(double R[9], char axis, double a) {
  double c = cos(a), s = sin(a);
  double Rx[9] = {1, 0, 0, 0, c, -s, 0, s, c};
  double Ry[9] = {c, 0, s, 0, 1, 0, -s, 0, c};
  double Rz[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
  memcpy(R, axis == 'x' ? Rx : axis == 'y' ? Ry : Rz, sizeof Rx);
}

/* Intrinsic "abc": R = Ra Rb Rc (each turn about the already-moved axes);
   extrinsic "ABC": R = Rc Rb Ra (each about the fixed world axes). */
START_TEST(test_euler_sequences) {
  const char* seqs[] = {"xyz", "zyx", "zxz", "yzx", "XYZ", "ZYX", "ZXZ", "xYz", "XyZ"};
  for (int s = 0; s < 9; s++)
    for (int t = 0; t < 20; t++) {
      double e[3] = {imp_test_urand(-3, 3), imp_test_urand(-1.5, 1.5), imp_test_urand(-3, 3)}, q[4], R[9], expect[9];
      ck_assert_int_eq(imp_euler2quat(q, e, seqs[s]), 0);
      double acc[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Ri[9], tmp[9];
      for (int i = 0; i < 3; i++) {
        char c = seqs[s][i];
        elemental(Ri, (char)(c | 0x20), e[i]);
        if (c >= 'a') matmul3(tmp, acc, Ri);
        else matmul3(tmp, Ri, acc);
        memcpy(acc, tmp, sizeof tmp);
      }
      memcpy(expect, acc, sizeof acc);
      imp_quat2mat(R, q);
      imp_assert_vec_near(R, expect, 9, 1e-15);
      imp_assert_near(quat_norm(q), 1, 1e-15);
    }
  /* intrinsic xyz equals extrinsic ZYX with the angles reversed */
  double e[3] = {0.3, -0.7, 1.1}, er[3] = {1.1, -0.7, 0.3}, qi[4], qe[4];
  imp_euler2quat(qi, e, "xyz");
  imp_euler2quat(qe, er, "ZYX");
  ck_assert_msg(quat_dist(qi, qe) < 1e-15, "xyz vs reversed ZYX differ");
  /* a concrete case: intrinsic x then z by 90 degrees; the moved z is -y */
  double e2[3] = {IMP_PI / 2, 0, IMP_PI / 2}, q[4], v[3] = {1, 0, 0}, r[3];
  imp_euler2quat(q, e2, "xyz");
  imp_quat_rotate(r, q, v); /* x -> (turn about body z = world -y) -> world z */
  double expect[3] = {0, 0, 1};
  imp_assert_vec_near(r, expect, 3, 1e-15);
  /* bad sequences */
  double qq[4];
  ck_assert_int_eq(imp_euler2quat(qq, e, "xy"), -1);
  ck_assert_int_eq(imp_euler2quat(qq, e, "xyw"), -1);
  ck_assert_int_eq(imp_euler2quat(qq, e, "xyzx"), -1);
  ck_assert_int_eq(imp_euler2quat(qq, e, NULL), -1);
}
END_TEST

/* q = z2vec(v): R(q) z = v/|v|, the rotation axis is perpendicular to both
   z and v (the shortest rotation), also for v = +-z and v next to -z. */
START_TEST(test_quat_z2vec) {
  double z[3] = {0, 0, 1};
  for (int t = 0; t < 203; t++) {
    double v[3], q[4], r[3], u[3];
    if (t < 200) {
      rand_unit3(v);
      double s = imp_test_urand(0.01, 10);
      for (int i = 0; i < 3; i++) v[i] *= s;
    } else if (t == 200) {
      v[0] = 0, v[1] = 0, v[2] = -2.5;
    } else if (t == 201) {
      v[0] = 1e-9, v[1] = -2e-9, v[2] = -1;
    } else {
      v[0] = 0, v[1] = 0, v[2] = 3;
    }
    imp_quat_z2vec(q, v);
    imp_assert_near(quat_norm(q), 1, 1e-15);
    imp_quat_rotate(r, q, z);
    double nv = imp_norm3(v);
    for (int i = 0; i < 3; i++) u[i] = v[i] / nv;
    imp_assert_vec_near(r, u, 3, 1e-15);
    /* shortest: vector part (the axis) has no component along z or v */
    imp_assert_near(q[3], 0, 1e-15);
    imp_assert_near(imp_dot(q + 1, u, 3), 0, 1e-15);
  }
  double q[4], zero[3] = {0, 0, 0}, id[4] = {1, 0, 0, 0};
  imp_quat_z2vec(q, zero);
  imp_assert_vec_near(q, id, 4, 0);
}
END_TEST

/* ---- eigen-decomposition ---- */

/* A = R diag(l) R' from a quaternion and eigenvalues */
static void compose_sym(double A[9], const double q[4], const double l[3]) {
  double R[9];
  imp_quat2mat(R, q);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      A[3 * i + j] = R[3 * i] * l[0] * R[3 * j] + R[3 * i + 1] * l[1] * R[3 * j + 1] +
                     R[3 * i + 2] * l[2] * R[3 * j + 2];
}

/* Check eig3 on A: reconstruction to tol * (|l|max), decreasing order,
   each column an eigenvector, and the eigenvalues of the construction. */
static void check_eig(const double A[9], const double lexp[3], double tol) {
  double l[3], q[4], B[9], R[9];
  imp_eig3(l, q, A);
  imp_assert_near(quat_norm(q), 1, 1e-15);
  ck_assert_msg(l[0] >= l[1] && l[1] >= l[2], "eigenvalues not decreasing: %g %g %g", l[0], l[1],
                l[2]);
  double scale = fmax(1e-300, fmax(fabs(lexp[0]), fabs(lexp[2])));
  double ls[3] = {lexp[0], lexp[1], lexp[2]};
  for (int i = 0; i < 2; i++) /* sort the expected values decreasing */
    for (int j = i + 1; j < 3; j++)
      if (ls[j] > ls[i]) {
        double x = ls[i];
        ls[i] = ls[j];
        ls[j] = x;
      }
  imp_assert_vec_near(l, ls, 3, tol * scale);
  compose_sym(B, q, l);
  imp_assert_vec_near(B, A, 9, tol * scale);
  imp_quat2mat(R, q);
  for (int k = 0; k < 3; k++) {
    double c[3] = {R[k], R[3 + k], R[6 + k]}, Ac[3];
    imp_mat3_vec(Ac, A, c);
    for (int i = 0; i < 3; i++) imp_assert_near(Ac[i], l[k] * c[i], tol * scale);
  }
}

START_TEST(test_eig3_random_symmetric) {
  for (int t = 0; t < 500; t++) {
    double q[4], l[3], A[9];
    imp_test_rand_quat(q);
    for (int i = 0; i < 3; i++) l[i] = imp_test_urand(-2, 3);
    compose_sym(A, q, l);
    check_eig(A, l, 1e-14);
  }
}
END_TEST

START_TEST(test_eig3_degenerate) {
  double cases[][3] = {{1, 1, 2}, {2, 1, 1}, {3, 3, 3}, {0, 0, 0}, {1, 1e-9 + 1, 1}, {5, 0, 0},
                       {1e6, 1, 1e-6}};
  for (int c = 0; c < 7; c++)
    for (int t = 0; t < 40; t++) {
      double q[4], A[9];
      imp_test_rand_quat(q);
      compose_sym(A, q, cases[c]);
      check_eig(A, cases[c], 1e-14);
    }
  /* already diagonal, out of order: eigenvalues come back sorted */
  double D[9] = {1, 0, 0, 0, 3, 0, 0, 0, 2}, l[3] = {1, 3, 2};
  check_eig(D, l, 1e-15);
}
END_TEST

/* ---- spatial vectors ---- */

static void rand6(double v[6]) {
  for (int i = 0; i < 6; i++) v[i] = imp_test_urand(-2, 2);
}

START_TEST(test_spatial_cross_identities) {
  for (int t = 0; t < 200; t++) {
    double v[6], s[6], u[6], f[6], r[6], a[6], b[6], c[6], tmp[6], zero[6] = {0};
    rand6(v);
    rand6(s);
    rand6(u);
    rand6(f);
    /* v x_m v = 0 and v x_f applied to ... antisymmetry v x_m s = -s x_m v */
    imp_cross_motion(r, v, v);
    imp_assert_vec_near(r, zero, 6, 1e-15);
    imp_cross_motion(a, v, s);
    imp_cross_motion(b, s, v);
    for (int i = 0; i < 6; i++) b[i] = -b[i];
    imp_assert_vec_near(a, b, 6, 1e-15);
    /* duality: <v x_m s, f> = -<s, v x_f f> */
    imp_cross_force(b, v, f);
    imp_assert_near(imp_dot(a, f, 6), -imp_dot(s, b, 6), 1e-13);
    /* Jacobi identity of the motion bracket */
    double sum[6] = {0};
    imp_cross_motion(tmp, s, u);
    imp_cross_motion(c, v, tmp);
    imp_add_scl(sum, c, 1, 6);
    imp_cross_motion(tmp, u, v);
    imp_cross_motion(c, s, tmp);
    imp_add_scl(sum, c, 1, 6);
    imp_cross_motion(tmp, v, s);
    imp_cross_motion(c, u, tmp);
    imp_add_scl(sum, c, 1, 6);
    imp_assert_vec_near(sum, zero, 6, 1e-13);
  }
  /* a concrete case: a frame spinning about z at 1 rad/s carries the motion
     vector "translate along x" into "translate along y" */
  double w[6] = {0, 0, 1, 0, 0, 0}, tx[6] = {0, 0, 0, 1, 0, 0}, r[6], ty[6] = {0, 0, 0, 0, 1, 0};
  imp_cross_motion(r, w, tx);
  imp_assert_vec_near(r, ty, 6, 0);
}
END_TEST

/* A body of mass m, principal moments J about its com, axes R, com at c
   from the reference point, moving with spatial velocity (w; v_ref):
   v_com = v_ref + w x c, momentum p = m v_com, angular momentum about the
   ref L = R J R' w + c x p, kinetic energy 1/2 m |v_com|^2 + 1/2 w'R J R'w. */
START_TEST(test_inert_pack_energy_momentum) {
  for (int t = 0; t < 200; t++) {
    double q[4], R[9], J[3], c[3], vel[6], in[10], Iv[6];
    imp_test_rand_quat(q);
    imp_quat2mat(R, q);
    double mass = imp_test_urand(0.1, 5);
    J[0] = imp_test_urand(0.01, 1), J[1] = imp_test_urand(0.01, 1);
    J[2] = imp_test_urand(fabs(J[0] - J[1]) + 1e-3, J[0] + J[1]); /* triangle inequality */
    for (int i = 0; i < 3; i++) c[i] = imp_test_urand(-1, 1);
    rand6(vel);
    imp_inert_pack(in, mass, J, R, c);
    imp_mul_inert_vec(Iv, in, vel);
    const double* w = vel;
    double vc[3], wc[3], wb[3], Jw[3], Icw[3], L[3], p[3], cp[3];
    imp_cross(wc, w, c);
    for (int i = 0; i < 3; i++) vc[i] = vel[3 + i] + wc[i];
    imp_mat3T_vec(wb, R, w); /* w in principal axes */
    for (int i = 0; i < 3; i++) Jw[i] = J[i] * wb[i];
    imp_mat3_vec(Icw, R, Jw);
    for (int i = 0; i < 3; i++) p[i] = mass * vc[i];
    imp_cross(cp, c, p);
    for (int i = 0; i < 3; i++) L[i] = Icw[i] + cp[i];
    imp_assert_vec_near(Iv, L, 3, 1e-13);
    imp_assert_vec_near(Iv + 3, p, 3, 1e-13);
    double ke = 0.5 * mass * imp_dot(vc, vc, 3) + 0.5 * imp_dot(wb, Jw, 3);
    imp_assert_near(0.5 * imp_dot(vel, Iv, 6), ke, 1e-13 * fmax(1, ke));
    /* the 6x6 matrix is symmetric: <a, I b> = <b, I a> */
    double a6[6], Ia[6];
    rand6(a6);
    imp_mul_inert_vec(Ia, in, a6);
    imp_assert_near(imp_dot(vel, Ia, 6), imp_dot(a6, Iv, 6), 1e-12);
  }
}
END_TEST

/* Moving the reference point by a pure translation of the velocity's
   expression point: the energy of the same motion is the same. Inertia
   packed about ref with offset c, velocity (w; v_ref) equals inertia packed
   about ref' = ref + d with offset c - d and velocity (w; v_ref + w x d). */
START_TEST(test_inert_pack_reference_invariance) {
  for (int t = 0; t < 100; t++) {
    double q[4], R[9], J[3] = {0.3, 0.5, 0.7}, c[3], dd[3], vel[6], vel2[6], in1[10], in2[10];
    double Iv1[6], Iv2[6], c2[3], wd[3];
    imp_test_rand_quat(q);
    imp_quat2mat(R, q);
    for (int i = 0; i < 3; i++) c[i] = imp_test_urand(-1, 1), dd[i] = imp_test_urand(-1, 1);
    rand6(vel);
    for (int i = 0; i < 3; i++) c2[i] = c[i] - dd[i];
    imp_inert_pack(in1, 2.0, J, R, c);
    imp_inert_pack(in2, 2.0, J, R, c2);
    imp_cross(wd, vel, dd);
    for (int i = 0; i < 3; i++) vel2[i] = vel[i], vel2[3 + i] = vel[3 + i] + wd[i];
    imp_mul_inert_vec(Iv1, in1, vel);
    imp_mul_inert_vec(Iv2, in2, vel2);
    imp_assert_near(imp_dot(vel, Iv1, 6), imp_dot(vel2, Iv2, 6), 1e-12);
    imp_assert_vec_near(Iv1 + 3, Iv2 + 3, 3, 1e-13); /* linear momentum */
  }
}
END_TEST

int main(void) {
  imp_test_rng = 0x9e3779b97f4a7c15ull;
  Suite* s = suite_create("math");
  TCase* tc = tcase_create("mathx");
  tcase_add_test(tc, test_mat3_products_match_definition);
  tcase_add_test(tc, test_normalize3_small_vectors);
  tcase_add_test(tc, test_eig3_random_symmetric);
  tcase_add_test(tc, test_eig3_degenerate);
  suite_add_tcase(s, tc);
  tc = tcase_create("quat");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_quat_product_associative_and_composes_rotations);
  tcase_add_test(tc, test_axisangle_matches_rodrigues);
  tcase_add_test(tc, test_quat_mat_round_trip);
  tcase_add_test(tc, test_quat_integrate_constant_omega_exact);
  tcase_add_test(tc, test_quat_integrate_1e6_steps_unit);
  tcase_add_test(tc, test_euler_sequences);
  tcase_add_test(tc, test_quat_z2vec);
  suite_add_tcase(s, tc);
  tc = tcase_create("spatial");
  tcase_add_test(tc, test_spatial_cross_identities);
  tcase_add_test(tc, test_inert_pack_energy_momentum);
  tcase_add_test(tc, test_inert_pack_reference_invariance);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
