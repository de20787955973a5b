/* Unit tests of the convex narrow phase: support points, checked against
 * closed forms (sphere, capsule, cylinder rim, box corner, a grafted mesh
 * box) and, for the ellipsoid, against the Lagrange conditions of max d.p
 * on the surface plus a brute-force search. Shared helpers and the
 * tolerances: collide_convex_util.h. */
#include "collide_convex_util.h"

/* ---- support points ---- */

START_TEST(support_sphere_and_capsule) {
  int s = geom("sphere1"), c = geom("capsule1");
  for (int trial = 0; trial < 50; trial++) {
    double pos[3], q[4], dir[3], out[3];
    rand_vec(pos, -1, 1);
    imp_test_rand_quat(q);
    rand_vec(dir, -2, 2);
    set_pose(s, pos, q);
    set_pose(c, pos, q);
    double u[3] = {dir[0], dir[1], dir[2]};
    imp_normalize3(u);
    /* sphere: centre + r u */
    double want[3];
    imp_copy(want, pos, 3);
    imp_add_scl(want, u, 0.3, 3);
    imp_geom_support(M, D, s, dir, out);
    imp_assert_vec_near(out, want, 3, 1e-14);
    /* capsule: the segment end on the side of dir, + r u */
    double axis[3] = {D->geom_xmat[9 * c + 2], D->geom_xmat[9 * c + 5], D->geom_xmat[9 * c + 8]};
    imp_copy(want, pos, 3);
    imp_add_scl(want, axis, imp_dot(axis, u, 3) >= 0 ? 0.4 : -0.4, 3);
    imp_add_scl(want, u, 0.2, 3);
    imp_geom_support(M, D, c, dir, out);
    imp_assert_vec_near(out, want, 3, 1e-14);
  }
}
END_TEST

/* The support p of an ellipsoid with semi-axes a along local direction u
   satisfies the Lagrange conditions of max u.p s.t. sum p_i^2/a_i^2 = 1:
   p on the surface and the surface normal (p_i / a_i^2) parallel to u; and
   no sampled surface point beats it. */
START_TEST(support_ellipsoid_lagrange) {
  int e = geom("ellipsoid1");
  const double a[3] = {0.3, 0.2, 0.1};
  for (int trial = 0; trial < 40; trial++) {
    double pos[3], q[4], dir[3], out[3], local[3], u[3];
    rand_vec(pos, -1, 1);
    imp_test_rand_quat(q);
    rand_vec(dir, -1, 1);
    set_pose(e, pos, q);
    imp_geom_support(M, D, e, dir, out);
    for (int i = 0; i < 3; i++) out[i] -= pos[i];
    imp_mat3T_vec(local, D->geom_xmat + 9 * e, out);
    imp_mat3T_vec(u, D->geom_xmat + 9 * e, dir);
    double surf = 0, grad[3];
    for (int i = 0; i < 3; i++) {
      surf += local[i] * local[i] / (a[i] * a[i]);
      grad[i] = local[i] / (a[i] * a[i]);
    }
    imp_assert_near(surf, 1.0, 1e-13);
    imp_normalize3(grad);
    imp_normalize3(u);
    ck_assert_msg(angle_between(grad, u) < 1e-7, "normal at the support not along dir: %g",
                  angle_between(grad, u));
    /* brute force over the surface (a_i cos/sin parametrization) */
    double best = -1e300;
    for (int i = 0; i <= 200; i++)
      for (int j = 0; j < 200; j++) {
        double th = IMP_PI * i / 200, ph = 2 * IMP_PI * j / 200;
        double p[3] = {a[0] * sin(th) * cos(ph), a[1] * sin(th) * sin(ph), a[2] * cos(th)};
        double v = imp_dot(p, u, 3);
        if (v > best) best = v;
      }
    double got = imp_dot(local, u, 3);
    ck_assert_msg(got >= best - 1e-12 && got <= best + 1e-3, "support %g vs sampled max %g", got,
                  best);
  }
}
END_TEST

START_TEST(support_cylinder_rim_and_cap) {
  int y = geom("cylinder1"); /* r 0.2, half-height 0.3 */
  double pos[3] = {0.1, -0.2, 0.3}, q[4], out[3], want[3];
  imp_test_rand_quat(q);
  set_pose(y, pos, q);
  /* local (3, 4, 1): rim point (0.2*0.6, 0.2*0.8, +0.3) */
  double ul[3] = {3, 4, 1}, dir[3];
  imp_mat3_vec(dir, D->geom_xmat + 9 * y, ul);
  imp_geom_support(M, D, y, dir, out);
  to_world(y, (double[3]){0.12, 0.16, 0.3}, want);
  imp_assert_vec_near(out, want, 3, 1e-14);
  /* local (-1, 0, -5): rim (-0.2, 0, -0.3) */
  imp_mat3_vec(dir, D->geom_xmat + 9 * y, (double[3]){-1, 0, -5});
  imp_geom_support(M, D, y, dir, out);
  to_world(y, (double[3]){-0.2, 0, -0.3}, want);
  imp_assert_vec_near(out, want, 3, 1e-14);
  /* along the axis: the centre of the cap */
  imp_mat3_vec(dir, D->geom_xmat + 9 * y, (double[3]){0, 0, -2});
  imp_geom_support(M, D, y, dir, out);
  to_world(y, (double[3]){0, 0, -0.3}, want);
  imp_assert_vec_near(out, want, 3, 1e-14);
}
END_TEST

START_TEST(support_box_corner) {
  int b = geom("box1"); /* 0.3 0.2 0.1 */
  double pos[3] = {1, 2, 3}, q[4], out[3], want[3], dir[3];
  imp_test_rand_quat(q);
  set_pose(b, pos, q);
  const double signs[4][3] = {{1, -2, 3}, {-1, -1, -1}, {0.5, 7, -0.1}, {-3, 1, 1}};
  for (int k = 0; k < 4; k++) {
    imp_mat3_vec(dir, D->geom_xmat + 9 * b, signs[k]);
    imp_geom_support(M, D, b, dir, out);
    double corner[3] = {signs[k][0] > 0 ? 0.3 : -0.3, signs[k][1] > 0 ? 0.2 : -0.2,
                        signs[k][2] > 0 ? 0.1 : -0.1};
    to_world(b, corner, want);
    imp_assert_vec_near(out, want, 3, 1e-14);
  }
}
END_TEST

/* A zero direction gives a finite surface point of every type (a support
   of the zero direction is any point). */
START_TEST(support_zero_direction_finite) {
  const char* names[] = {"sphere1", "capsule1", "ellipsoid1", "cylinder1", "box1"};
  const double zero[3] = {0, 0, 0}, tiny[3] = {1e-300, 0, -1e-300};
  for (int k = 0; k < 5; k++) {
    int g = geom(names[k]);
    double pos[3] = {0.5, 0, 0}, out[3];
    set_pose(g, pos, k_ident);
    imp_geom_support(M, D, g, zero, out);
    for (int i = 0; i < 3; i++) ck_assert_msg(isfinite(out[i]), "%s: NaN support", names[k]);
    ck_assert_msg(imp_norm3((double[3]){out[0] - 0.5, out[1], out[2]}) > 0.05,
                  "%s: zero-direction support is not on the surface", names[k]);
    imp_geom_support(M, D, g, tiny, out);
    for (int i = 0; i < 3; i++) ck_assert_msg(isfinite(out[i]), "%s: NaN support", names[k]);
  }
}
END_TEST

START_TEST(support_mesh_is_box_support) {
  int g = geom("box2"), b = geom("box1");
  double h[3] = {0.3, 0.2, 0.1}, v[24];
  box_corners(v, h);
  imp_model mm = fake_mesh_model(g, v, 8);
  for (int trial = 0; trial < 30; trial++) {
    double pos[3], q[4], dir[3], a[3], c[3];
    rand_vec(pos, -1, 1);
    imp_test_rand_quat(q);
    rand_vec(dir, -1, 1);
    set_pose(g, pos, q);
    set_pose(b, pos, q);
    imp_geom_support(&mm, D, g, dir, a);
    imp_geom_support(M, D, b, dir, c);
    imp_assert_vec_near(a, c, 3, 1e-14);
  }
}
END_TEST

Suite* collide_convex_suite(void) {
  Suite* s = suite_create("collide_convex");
  TCase* tc = tcase_create("support");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, support_sphere_and_capsule);
  tcase_add_test(tc, support_ellipsoid_lagrange);
  tcase_add_test(tc, support_cylinder_rim_and_cap);
  tcase_add_test(tc, support_box_corner);
  tcase_add_test(tc, support_zero_direction_finite);
  tcase_add_test(tc, support_mesh_is_box_support);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(collide_convex_suite()); }
