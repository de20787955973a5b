/* Unit tests of the <composite> expansion (model/composite.c): for each
 * kind, the objects it makes (counts, names, order), where it puts them
 * (positions from the spacing, the loop's polygon, the 3D shapes' surfaces)
 * and the constraints that hold them; and the errors of malformed
 * composites, each naming the file and line. MuJoCo 2.2.2's own expansion
 * is compared in test/mujoco/test_mujoco_composite.c. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "impetus.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"
#include "types.h"

static char k_xml[8192];

/* a model whose worldbody is body */
static imp_model* load_world(const char* body) {
  snprintf(k_xml, sizeof k_xml,
           "<mujoco><option><flag contact='disable'/></option><worldbody>%s</worldbody></mujoco>",
           body);
  return imp_test_load_string(k_xml);
}

static int id(const imp_model* m, imp_obj_type t, const char* name) {
  return imp_test_id(m, t, name);
}

START_TEST(particles_fill_a_grid_around_the_offset) {
  imp_model* m = load_world(
      "<composite type='particle' count='3 2 4' spacing='0.1' offset='0 0 1'>"
      "<geom size='.02'/></composite>");
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->nbody, 1 + 24);
  ck_assert_int_eq(m->njnt, 3 * 24);
  ck_assert_int_eq(m->ngeom, 24);
  ck_assert_int_eq(m->nq, 72);
  /* body k = (ix * 2 + iy) * 4 + iz at offset + spacing (i - count / 2) */
  double first[3] = {-0.15, -0.1, 0.8}, last[3] = {0.05, 0.0, 1.1};
  imp_assert_vec_near(m->body_pos + 3, first, 3, 1e-15);
  imp_assert_vec_near(m->body_pos + 3 * 24, last, 3, 1e-15);
  for (int j = 0; j < m->njnt; j++) {
    ck_assert_int_eq(m->jnt_type[j], IMP_JNT_SLIDE);
    ck_assert_double_eq(m->jnt_axis[3 * j + j % 3], 1);
  }
  /* frictionless: condim 1, priority 1 */
  ck_assert_int_eq(m->geom_condim[0], 1);
  ck_assert_int_eq(m->geom_priority[0], 1);
  imp_free_model(m);
}
END_TEST

START_TEST(grid_1d_ties_neighbours_with_tendons_and_pins) {
  imp_model* m = load_world(
      "<composite prefix='p' type='grid' count='4 1 1' spacing='0.2' offset='0 0 1'>"
      "<pin coord='0'/><geom size='.02'/><tendon kind='main' stiffness='5'/></composite>");
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->nbody, 5);
  ck_assert_int_eq(m->njnt, 9); /* pB0_0 is pinned */
  ck_assert_int_eq(m->nsite, 4);
  ck_assert_int_eq(m->ntendon, 3);
  ck_assert_int_eq(m->neq, 3);
  ck_assert_int_eq(m->body_jntnum[id(m, IMP_OBJ_BODY, "pB0_0")], 0);
  ck_assert_int_eq(m->body_jntnum[id(m, IMP_OBJ_BODY, "pB3_0")], 3);
  id(m, IMP_OBJ_JOINT, "pJ2_3_0");
  id(m, IMP_OBJ_GEOM, "pG1_0");
  for (int t = 0; t < 3; t++) {
    char name[32];
    snprintf(name, sizeof name, "pT0_%d_0", t);
    ck_assert_int_eq(id(m, IMP_OBJ_TENDON, name), t);
    imp_assert_near(m->tendon_length0[t], 0.2, 1e-15);
    ck_assert_double_eq(m->tendon_stiffness[3 * t], 5);
    ck_assert_int_eq(m->eq_type[t], IMP_EQ_TENDON);
    ck_assert_int_eq(m->eq_obj1id[t], t);
    ck_assert_double_eq(m->eq_solref[2 * t], 0.01); /* the grid's hard main tendons */
  }
  /* offset + spacing (i - count / 2), the singleton y included */
  double p3[3] = {0.2, -0.1, 1};
  imp_assert_vec_near(m->body_pos + 3 * id(m, IMP_OBJ_BODY, "pB3_0"), p3, 3, 1e-15);
  imp_free_model(m);
}
END_TEST

START_TEST(grid_2d_with_skin_and_shear) {
  imp_model* m = load_world(
      "<composite type='grid' count='3 4 1' spacing='0.1'>"
      "<skin subgrid='2'/><geom size='.02'/><tendon kind='shear'/></composite>");
  ck_assert_int_eq(m->nwarning, 1);
  ck_assert_msg(strstr(m->warnings, "inline:1: warning: composite skin is not supported"), "%s",
                m->warnings);
  ck_assert_int_eq(m->nbody, 13);
  /* 2 x 4 along x, 3 x 3 along y, then 2 x 3 shear */
  ck_assert_int_eq(m->ntendon, 8 + 9 + 6);
  ck_assert_int_eq(m->neq, 23);
  int ts = id(m, IMP_OBJ_TENDON, "TS1_2");
  imp_assert_near(m->tendon_length0[ts], 0.1 * sqrt(2), 1e-15);
  /* hidden behind the skin */
  ck_assert_int_eq(m->geom_group[0], 3);
  ck_assert_int_eq(m->tendon_group[0], 3);
  imp_free_model(m);
}
END_TEST

START_TEST(rope_grows_both_ways_from_its_body) {
  imp_model* m = load_world(
      "<body name='B2' pos='0 0 1'><freejoint/>"
      "<composite type='rope' count='5 1 1' spacing='0.1'>"
      "<geom type='capsule' size='.01 .04'/><joint kind='twist'/><joint kind='stretch'/>"
      "</composite></body>");
  imp_test_no_warnings(m);
  const char* order[] = {"world", "B2", "B3", "B4", "B1", "B0"};
  for (int b = 0; b < 6; b++) ck_assert_str_eq(imp_id2name(m, IMP_OBJ_BODY, b), order[b]);
  ck_assert_int_eq(m->body_parentid[5], 4);
  double p3[3] = {0.1, 0, 0}, p1[3] = {-0.1, 0, 0};
  imp_assert_vec_near(m->body_pos + 3 * 2, p3, 3, 0);
  imp_assert_vec_near(m->body_pos + 3 * 4, p1, 3, 0);
  /* free joint, then 4 per element: J0 (y), J1 (z), JT (x hinge), JS (x slide) */
  ck_assert_int_eq(m->njnt, 1 + 4 * 4);
  int j = id(m, IMP_OBJ_JOINT, "J1_1");
  double axis[3] = {0, 0, 1}, pos[3] = {0.05, 0, 0};
  imp_assert_vec_near(m->jnt_axis + 3 * j, axis, 3, 0);
  imp_assert_vec_near(m->jnt_pos + 3 * j, pos, 3, 0);
  ck_assert_int_eq(m->jnt_type[id(m, IMP_OBJ_JOINT, "JS4")], IMP_JNT_SLIDE);
  ck_assert_int_eq(m->neq, 8); /* twist and stretch fixed */
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_JOINT);
  ck_assert_int_eq(m->eq_obj1id[0], id(m, IMP_OBJ_JOINT, "JT3"));
  /* the capsules lie along the rope */
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  int g = id(m, IMP_OBJ_GEOM, "G0");
  imp_assert_near(fabs(d->geom_xmat[9 * g + 2]), 1, 1e-15); /* local z along world x */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(loop_closes_on_a_polygon) {
  imp_model* m = load_world(
      "<body name='B0' pos='0 0 1'><freejoint/>"
      "<composite type='loop' count='6 1 1' spacing='0.1'><geom size='.01'/></composite></body>");
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->nbody, 7);
  ck_assert_int_eq(m->neq, 1);
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_CONNECT);
  ck_assert_int_eq(m->eq_obj1id[0], id(m, IMP_OBJ_BODY, "B0"));
  ck_assert_int_eq(m->eq_obj2id[0], id(m, IMP_OBJ_BODY, "B5"));
  ck_assert_int_eq(m->nexclude, 1);
  /* the bodies are the vertices' midpoints of a regular hexagon of side
     0.1: all at the apothem 0.1 * sqrt(3) / 2 from its centre, and B0's
     back end (-0.05, 0, 0) is B5's front end (0.05, 0, 0) */
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  double ctr[3] = {0, 0, 0};
  for (int b = 1; b < 7; b++)
    for (int i = 0; i < 3; i++) ctr[i] += d->xpos[3 * b + i] / 6;
  for (int b = 1; b < 7; b++) {
    double r = hypot(d->xpos[3 * b] - ctr[0], d->xpos[3 * b + 1] - ctr[1]);
    imp_assert_near(r, 0.1 * sqrt(3) / 2, 1e-14);
  }
  double back[3], front[3];
  for (int i = 0; i < 3; i++) {
    back[i] = d->xpos[3 + i] - 0.05 * d->xmat[9 + 3 * i];
    front[i] = d->xpos[3 * 6 + i] + 0.05 * d->xmat[9 * 6 + 3 * i];
  }
  imp_assert_vec_near(back, front, 3, 1e-14);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(cloth_is_a_tree_of_rows_and_columns) {
  imp_model* m = load_world(
      "<body name='B1_1' pos='0 0 1'>"
      "<composite type='cloth' count='3 3 1' spacing='0.1' flatinertia='0.01'>"
      "<geom type='sphere' size='.02'/><joint kind='main' damping='.1'/></composite></body>");
  imp_test_no_warnings(m);
  const char* order[] = {"B1_1", "B1_2", "B1_0", "B2_1", "B2_2", "B2_0", "B0_1", "B0_2", "B0_0"};
  for (int b = 0; b < 9; b++) ck_assert_str_eq(imp_id2name(m, IMP_OBJ_BODY, b + 1), order[b]);
  ck_assert_int_eq(m->body_parentid[id(m, IMP_OBJ_BODY, "B2_2")], id(m, IMP_OBJ_BODY, "B2_1"));
  ck_assert_int_eq(m->njnt, 16);
  /* a column's joints: about x, then z */
  double ax[3] = {1, 0, 0}, az[3] = {0, 0, 1};
  imp_assert_vec_near(m->jnt_axis + 3 * id(m, IMP_OBJ_JOINT, "J0_1_2"), ax, 3, 0);
  imp_assert_vec_near(m->jnt_axis + 3 * id(m, IMP_OBJ_JOINT, "J1_1_2"), az, 3, 0);
  /* rows 0 and 2 tied along x */
  ck_assert_int_eq(m->ntendon, 4);
  id(m, IMP_OBJ_TENDON, "T1_2");
  /* flat inertia: the geom's mass spread over a 0.1 x 0.1 x 0.001 box */
  double mass = 1000 * 4.0 / 3 * IMP_PI * 0.02 * 0.02 * 0.02;
  int b = id(m, IMP_OBJ_BODY, "B0_0");
  imp_assert_rel(m->body_mass[b], mass, 1e-14);
  imp_assert_rel(m->body_inertia[3 * b + 2], mass * (0.05 * 0.05 * 2) / 3, 1e-12);
  imp_assert_rel(m->body_inertia[3 * b], mass * (0.05 * 0.05 + 0.0005 * 0.0005) / 3, 1e-12);
  imp_free_model(m);
}
END_TEST

/* largest |body z axis - the body's direction from the centre| */
static double outward_error(const imp_model* m, int b) {
  double R[9], p[3];
  imp_quat2mat(R, m->body_quat + 4 * b);
  imp_copy(p, m->body_pos + 3 * b, 3);
  double n = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), e = 0;
  for (int i = 0; i < 3; i++) e = fmax(e, fabs(R[3 * i + 2] - p[i] / n));
  return e;
}

START_TEST(box_shell_faces_outwards_on_fixed_sliders) {
  imp_model* m = load_world(
      "<body pos='0 0 1'><freejoint/><composite type='box' count='3 4 5' spacing='0.1'>"
      "<geom type='capsule' size='.01 .02'/></composite></body>");
  imp_test_no_warnings(m);
  int nshell = 3 * 4 * 5 - 1 * 2 * 3;
  ck_assert_int_eq(m->nbody, 2 + nshell);
  ck_assert_int_eq(m->njnt, 1 + nshell);
  ck_assert_int_eq(m->ngeom, 1 + nshell);
  ck_assert_int_eq(m->ntendon, 1);
  ck_assert_int_eq(m->tendon_num[0], nshell);
  int center = id(m, IMP_OBJ_GEOM, "Gcenter");
  ck_assert_double_eq(m->geom_size[3 * center], 0.02);
  ck_assert_int_eq(m->geom_type[center], IMP_GEOM_SPHERE);
  /* corners at the half sizes spacing (count - 1) / 2 */
  double corner[3] = {0.1, 0.15, 0.2};
  imp_assert_vec_near(m->body_pos + 3 * id(m, IMP_OBJ_BODY, "B2_3_4"), corner, 3, 1e-15);
  for (int b = 2; b < m->nbody; b++) ck_assert(outward_error(m, b) < 1e-15);
  /* the capsule inwards by its reach */
  int g = id(m, IMP_OBJ_GEOM, "G0_0_0");
  imp_assert_near(m->geom_pos[3 * g + 2], -0.03, 1e-17);
  /* no self-collisions */
  ck_assert_int_eq(m->geom_contype[g], 0);
  /* equalities: one fix per slider, the sum, and neighbours */
  int fix = 0, pairs = 0, sum = 0;
  for (int e = 0; e < m->neq; e++) {
    if (m->eq_type[e] == IMP_EQ_TENDON) sum++;
    else if (m->eq_obj2id[e] < 0) fix++;
    else pairs++;
  }
  ck_assert_int_eq(fix, nshell);
  ck_assert_int_eq(sum, 1);
  ck_assert_int_eq(m->eq_type[m->neq - 1], IMP_EQ_TENDON);
  ck_assert_int_gt(pairs, nshell);
  imp_free_model(m);
}
END_TEST

START_TEST(ellipsoid_and_cylinder_points_lie_on_their_surfaces) {
  imp_model* m = load_world(
      "<body pos='0 0 1'><freejoint/><composite type='ellipsoid' count='5 4 3' spacing='0.1'>"
      "<geom type='ellipsoid' size='.01 .01 .02'/></composite></body>");
  double a[3] = {0.2, 0.15, 0.1};
  for (int b = 2; b < m->nbody; b++) {
    const double* p = m->body_pos + 3 * b;
    double s = 0;
    for (int i = 0; i < 3; i++) s += p[i] * p[i] / (a[i] * a[i]);
    /* the cube's point along its ray to the unit sphere, then scaled by
       the half sizes: on the ellipsoid */
    imp_assert_near(s, 1, 1e-14);
    ck_assert(outward_error(m, b) < 1e-15);
  }
  ck_assert_int_eq(m->geom_type[1], IMP_GEOM_SPHERE); /* ellipsoids become spheres */
  imp_free_model(m);
  m = load_world(
      "<body pos='0 0 1'><freejoint/><composite type='cylinder' count='5 5 3' spacing='0.1'>"
      "<geom size='.01'/></composite></body>");
  /* the square rings onto circles: a ring's radius is its half width */
  for (int b = 2; b < m->nbody; b++) {
    const double* p = m->body_pos + 3 * b;
    double r = hypot(p[0], p[1]);
    ck_assert(fabs(r - 0.2) < 1e-15 || fabs(r - 0.1) < 1e-15 || r < 1e-15);
  }
  imp_free_model(m);
}
END_TEST

/* the load fails with an error at line that contains what */
static void expect_error(const char* body, int line, const char* what) {
  char xml[4096], err[1000] = "";
  snprintf(xml, sizeof xml, "<mujoco><worldbody>\n%s\n</worldbody></mujoco>", body);
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", err, sizeof err);
  ck_assert_msg(m == NULL, "loaded: %s", body);
  char pre[32];
  snprintf(pre, sizeof pre, "t.xml:%d: ", line);
  ck_assert_msg(!strncmp(err, pre, strlen(pre)) && strstr(err, what), "error '%s', expected %s%s",
                err, pre, what);
}

START_TEST(malformed_composites_are_errors_at_their_line) {
  expect_error("<body name='rope'><composite type='rope' count='3' spacing='.1'>"
               "<geom size='.1'/></composite></body>",
               2, "'B' must be the beginning");
  expect_error("<body name='B7'><composite type='rope' count='3' spacing='.1'>"
               "<geom size='.1'/></composite></body>",
               2, "out of range");
  expect_error("<body name='B1'><composite type='cloth' count='3 3' spacing='.1'>"
               "<geom size='.1'/></composite></body>",
               2, "X_Y");
  expect_error("<composite type='grid' count='1 3' spacing='.1'><geom size='.1'/></composite>", 2,
               "singleton counts must come last");
  expect_error("<composite type='grid' count='2 2 2' spacing='.1'><geom size='.1'/></composite>",
               2, "1D or 2D");
  expect_error("<composite type='box' count='2 2' spacing='.1'><geom size='.1'/></composite>", 2,
               "three-dimensional");
  expect_error("<composite type='grid' count='3' spacing='.1'><geom type='box' size='.1'/>"
               "</composite>",
               2, "sphere, capsule or ellipsoid");
  expect_error("<composite type='blob' count='3' spacing='.1'/>", 2, "unknown value 'blob'");
  expect_error("<composite type='grid' count='3'/>", 2, "spacing is required");
  expect_error("<composite type='grid' count='3' spacing='0'/>", 2, "positive spacing");
  expect_error("<composite type='grid' count='3 0' spacing='.1'/>", 2, "positive integers");
  expect_error("<composite type='particle' count='1000 1000 1000' spacing='.1'/>", 2,
               "more than");
  expect_error("<composite type='grid' count='2 2' spacing='.1'><skin subgrid='2'/></composite>",
               2, "3x3");
  expect_error("<composite type='grid' count='3' spacing='.1'>\n<joint kind='bend'/></composite>",
               3, "unknown value 'bend'");
  /* no size: the geom's own check, at the composite's line */
  expect_error("<composite type='grid' count='3' spacing='.1'/>", 2, "geom size");
}
END_TEST

/* A plugin in a composite is physics we do not have: refused by default
   at its line, dropped with a warning under IMP_LOAD_ALLOW_UNSUPPORTED;
   limited on a composite joint, which 2.2.2 never reads, only warns. */
START_TEST(unknown_children_are_warnings) {
  const char* body =
      "<composite type='grid' count='3' spacing='.1'><geom size='.01'/><plugin/>"
      "<joint kind='main' limited='true' range='-1 1'/></composite>";
  snprintf(k_xml, sizeof k_xml,
           "<mujoco><option><flag contact='disable'/></option><worldbody>%s</worldbody></mujoco>",
           body);
  imp_test_expect_error(k_xml, 1, "element 'plugin' is not supported yet");
  imp_model* m = imp_test_load_string_allow(k_xml);
  ck_assert_int_eq(m->nwarning, 2);
  ck_assert_msg(strstr(m->warnings, "element 'plugin'") && strstr(m->warnings, "'limited'"),
                "%s", m->warnings);
  imp_free_model(m);
}
END_TEST

static Suite* composite_suite(void) {
  Suite* s = suite_create("composite");
  TCase* t = tcase_create("kinds");
  tcase_add_test(t, particles_fill_a_grid_around_the_offset);
  tcase_add_test(t, grid_1d_ties_neighbours_with_tendons_and_pins);
  tcase_add_test(t, grid_2d_with_skin_and_shear);
  tcase_add_test(t, rope_grows_both_ways_from_its_body);
  tcase_add_test(t, loop_closes_on_a_polygon);
  tcase_add_test(t, cloth_is_a_tree_of_rows_and_columns);
  tcase_add_test(t, box_shell_faces_outwards_on_fixed_sliders);
  tcase_add_test(t, ellipsoid_and_cylinder_points_lie_on_their_surfaces);
  suite_add_tcase(s, t);
  TCase* e = tcase_create("errors");
  tcase_add_test(e, malformed_composites_are_errors_at_their_line);
  tcase_add_test(e, unknown_children_are_warnings);
  suite_add_tcase(s, e);
  return s;
}

int main(void) { return imp_test_run_suite(composite_suite()); }
