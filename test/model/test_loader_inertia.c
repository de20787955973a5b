/* Tests of the MJCF loader: inertia from geoms (every primitive, parallel
 * axes, <inertial>, fullinertia, settotalmass) and fromto. Shared helpers:
 * loader_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "loader_util.h"

/* body inertia tensor in the body frame, R diag(I) R' */
static void body_tensor(const imp_model* m, int b, double T[9]) {
  double R[9];
  imp_quat2mat(R, m->body_iquat + 4 * b);
  const double* d = m->body_inertia + 3 * b;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      T[3 * i + j] = R[3 * i] * d[0] * R[3 * j] + R[3 * i + 1] * d[1] * R[3 * j + 1] +
                     R[3 * i + 2] * d[2] * R[3 * j + 2];
}

/* ----------------------------------------------------------------- inertia */

/* mass and principal moments of one geom in a body of its own */
static imp_model* one_geom(const char* geom) {
  char xml[1000];
  snprintf(xml, sizeof xml, "<mujoco><worldbody><body><joint/>%s</body></worldbody></mujoco>",
           geom);
  return load(xml);
}

START_TEST(sphere_inertia) {
  imp_model* m = one_geom("<geom type='sphere' size='0.5' density='2'/>");
  double mass = 2 * 4.0 / 3 * PI * 0.125;
  imp_assert_near(m->body_mass[1], mass, TOL);
  for (int i = 0; i < 3; i++) imp_assert_near(m->body_inertia[3 + i], 0.4 * mass * 0.25, TOL);
  imp_free_model(m);
}
END_TEST

START_TEST(capsule_inertia) {
  imp_model* m = one_geom("<geom type='capsule' size='0.2 0.5'/>");
  double r = 0.2, h = 1.0, mc = 1000 * PI * r * r * h, ms = 1000 * 4.0 / 3 * PI * r * r * r;
  double Ixx = mc * (3 * r * r + h * h) / 12 + ms * (0.4 * r * r + h * h / 4 + 3 * h * r / 8);
  double Izz = mc * r * r / 2 + 0.4 * ms * r * r;
  imp_assert_near(m->body_mass[1], mc + ms, 1e-9);
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(T[0], Ixx, 1e-9);
  imp_assert_near(T[4], Ixx, 1e-9);
  imp_assert_near(T[8], Izz, 1e-9);
  imp_free_model(m);
}
END_TEST

START_TEST(cylinder_inertia) {
  imp_model* m = one_geom("<geom type='cylinder' size='0.2 0.5' mass='3'/>");
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(m->body_mass[1], 3, TOL);
  imp_assert_near(T[0], 3 * (3 * 0.04 + 1) / 12, 1e-12);
  imp_assert_near(T[8], 3 * 0.04 / 2, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(box_inertia) {
  imp_model* m = one_geom("<geom type='box' size='0.1 0.2 0.3'/>");
  double mass = 1000 * 8 * 0.006, T[9];
  body_tensor(m, 1, T);
  imp_assert_near(m->body_mass[1], mass, 1e-9);
  imp_assert_near(T[0], mass * (0.04 + 0.09) / 3, 1e-9);
  imp_assert_near(T[4], mass * (0.01 + 0.09) / 3, 1e-9);
  imp_assert_near(T[8], mass * (0.01 + 0.04) / 3, 1e-9);
  imp_free_model(m);
}
END_TEST

START_TEST(ellipsoid_inertia) {
  imp_model* m = one_geom("<geom type='ellipsoid' size='0.1 0.2 0.3' mass='5'/>");
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(T[0], 5 * (0.04 + 0.09) / 5, 1e-12);
  imp_assert_near(T[4], 5 * (0.01 + 0.09) / 5, 1e-12);
  imp_assert_near(T[8], 5 * (0.01 + 0.04) / 5, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(geoms_combine_by_parallel_axis) {
  imp_model* m = one_geom(
      "<geom size='0.1' mass='1' pos='1 0 0'/><geom size='0.1' mass='3' pos='-1 0 0'/>");
  double T[9], ipos[3] = {-0.5, 0, 0};
  imp_assert_near(m->body_mass[1], 4, TOL);
  assert_vec(m->body_ipos + 3, ipos, 3, TOL);
  body_tensor(m, 1, T);
  double Is = 0.4 * 0.01;
  imp_assert_near(T[0], 4 * Is, 1e-12);
  imp_assert_near(T[4], 4 * Is + 1 * 1.5 * 1.5 + 3 * 0.5 * 0.5, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(rotated_geom_inertia_rotates) {
  imp_model* m = one_geom("<geom type='box' size='0.1 0.2 0.3' mass='1' euler='0 0 90'/>");
  double T[9];
  body_tensor(m, 1, T);
  imp_assert_near(T[0], (0.01 + 0.09) / 3, 1e-12); /* x and y swap */
  imp_assert_near(T[4], (0.04 + 0.09) / 3, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(inertial_wins_in_auto_and_geoms_win_when_true) {
  const char* body =
      "<worldbody><body><joint/><inertial pos='0 0 1' mass='2' diaginertia='1 2 3'/>"
      "<geom size='0.1' mass='5'/></body></worldbody></mujoco>";
  char xml[600];
  snprintf(xml, sizeof xml, "<mujoco>%s", body);
  imp_model* m = load(xml);
  ck_assert_double_eq(m->body_mass[1], 2);
  ck_assert_double_eq(m->body_ipos[5], 1);
  imp_free_model(m);
  snprintf(xml, sizeof xml, "<mujoco><compiler inertiafromgeom='true'/>%s", body);
  m = load(xml);
  ck_assert_double_eq(m->body_mass[1], 5);
  imp_free_model(m);
}
END_TEST

START_TEST(fullinertia_is_diagonalized) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint/><inertial pos='0 0 0' mass='1' "
      "fullinertia='1 2 2.5 0.1 0.2 0.3'/></body></worldbody></mujoco>");
  double T[9], e[9] = {1, 0.1, 0.2, 0.1, 2, 0.3, 0.2, 0.3, 2.5};
  body_tensor(m, 1, T);
  assert_vec(T, e, 9, 1e-12);
  imp_free_model(m);
}
END_TEST

START_TEST(subtreemass_and_rootid) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='a'><geom size='0.1' mass='1'/><body name='b'>"
      "<geom size='0.1' mass='2'/></body></body><body name='c'><geom size='0.1' mass='4'/>"
      "</body></worldbody></mujoco>");
  ck_assert_double_eq(m->body_subtreemass[0], 7);
  ck_assert_double_eq(m->body_subtreemass[1], 3);
  ck_assert_int_eq(m->body_rootid[2], 1);
  ck_assert_int_eq(m->body_rootid[3], 3);
  ck_assert_int_eq(m->body_rootid[0], 0);
  imp_free_model(m);
}
END_TEST

/* <compiler settotalmass>: the masses (boundmass included: MuJoCo scales
   last) sum to the total, each mass and moment scaled by one factor. */
START_TEST(settotalmass_scales_masses_and_inertias) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler settotalmass='14' boundmass='1' boundinertia='0.01'/><worldbody>"
      "<body name='a'><joint/><geom size='0.2' mass='2'/><body name='b'><joint/>"
      "<inertial pos='0 0 0' mass='3' diaginertia='0.1 0.2 0.3'/></body>"
      "<body name='c'><joint/><site/></body></body></worldbody></mujoco>");
  /* before scaling: 2 + 3 + 1 (c raised to boundmass) = 6 */
  double k = 14.0 / 6;
  imp_assert_near(m->body_mass[1], 2 * k, 1e-13);
  imp_assert_near(m->body_mass[2], 3 * k, 1e-13);
  imp_assert_near(m->body_mass[3], 1 * k, 1e-13);
  imp_assert_near(m->body_subtreemass[0], 14, 1e-13);
  imp_assert_near(m->body_subtreemass[1], 14, 1e-13);
  /* a solid sphere: 2/5 m r^2 */
  imp_assert_near(m->body_inertia[3], 0.4 * 2 * 0.04 * k, 1e-13);
  double I[3] = {0.1 * k, 0.2 * k, 0.3 * k};
  assert_vec(m->body_inertia + 6, I, 3, 1e-13);
  double Ic[3] = {0.01 * k, 0.01 * k, 0.01 * k};
  assert_vec(m->body_inertia + 9, Ic, 3, 1e-13);
  imp_free_model(m);
}
END_TEST

/* ------------------------------------------------------------------ fromto */

START_TEST(fromto_sets_pos_quat_and_length) {
  imp_model* m = load(
      "<mujoco><worldbody><geom type='capsule' fromto='0 0 0 0 0 2' size='0.1'/>"
      "<geom type='box' fromto='1 0 0 3 0 0' size='0.2'/></worldbody></mujoco>");
  double p0[3] = {0, 0, 1}, s0[3] = {0.1, 1, 0}, p1[3] = {2, 0, 0}, s1[3] = {0.2, 0.2, 1};
  assert_vec(m->geom_pos, p0, 3, TOL);
  assert_vec(m->geom_size, s0, 3, TOL);
  assert_vec(m->geom_pos + 3, p1, 3, TOL);
  assert_vec(m->geom_size + 3, s1, 3, TOL);
  double z[3] = {0, 0, 1}, v[3];
  imp_quat_rotate(v, m->geom_quat + 4, z); /* the long axis lies along x */
  imp_assert_near(fabs(v[0]), 1, TOL);
  imp_assert_near(m->geom_rbound[0], 1.1, TOL);
  imp_free_model(m);
}
END_TEST

Suite* loader_suite(void) {
  Suite* s = suite_create("loader");
  TCase* t = tcase_create("inertia");
  tcase_add_test(t, sphere_inertia);
  tcase_add_test(t, capsule_inertia);
  tcase_add_test(t, cylinder_inertia);
  tcase_add_test(t, box_inertia);
  tcase_add_test(t, ellipsoid_inertia);
  tcase_add_test(t, geoms_combine_by_parallel_axis);
  tcase_add_test(t, rotated_geom_inertia_rotates);
  tcase_add_test(t, inertial_wins_in_auto_and_geoms_win_when_true);
  tcase_add_test(t, fullinertia_is_diagonalized);
  tcase_add_test(t, subtreemass_and_rootid);
  tcase_add_test(t, settotalmass_scales_masses_and_inertias);
  tcase_add_test(t, fromto_sets_pos_quat_and_length);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(loader_suite()); }
