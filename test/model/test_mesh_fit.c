/* Tests of primitives fitted to meshes (model/mesh_fit.c): sizes worked out
 * by hand on a box mesh (its inertia box and its bounding box are the box),
 * fitscale, placement in the mesh frame, mass of the primitive, and with
 * compiler fitaabb="true" on an offset wedge, that the fitted box is the
 * smallest around the mesh: it holds every vertex and touches each face.
 * MuJoCo 2.2.2's numbers for the default fit are checked by
 * test/mujoco/test_mujoco_meshfit.c. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "impetus.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

#define DATA_DIR IMP_MODELS_DIR "/../test/data"

static char g_err[1000];

static imp_model* load_data(const char* xml) {
  imp_model* m = imp_load_xml_string(xml, DATA_DIR, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  imp_test_no_warnings(m);
  return m;
}

static void assert_size(const imp_model* m, const char* geom, double s0, double s1, double s2) {
  int g = imp_test_id(m, IMP_OBJ_GEOM, geom);
  double want[3] = {s0, s1, s2};
  imp_assert_vec_near(m->geom_size + 3 * g, want, 3, 1e-12);
}

/* The box mesh (half sizes 0.1 0.2 0.3) is its own inertia box and its own
   bounding box, so every fit is written down from the rules in mesh_fit.c. */
START_TEST(box_mesh_fits_by_hand) {
  const char* fmt =
      "<mujoco><compiler fitaabb='%s'/><asset><mesh file='convex_box.obj'/></asset><worldbody>"
      "<body><freejoint/>"
      "<geom name='box' type='box' mesh='convex_box'/>"
      "<geom name='ell' type='ellipsoid' mesh='convex_box'/>"
      "<geom name='sph' type='sphere' mesh='convex_box'/>"
      "<geom name='cyl' type='cylinder' mesh='convex_box'/>"
      "<geom name='cap' type='capsule' mesh='convex_box'/>"
      "<geom name='big' type='capsule' mesh='convex_box' fitscale='2'/>"
      "</body></worldbody></mujoco>";
  char xml[1000];
  snprintf(xml, sizeof xml, fmt, "false");
  imp_model* m = load_data(xml);
  ck_assert_int_eq(m->nmesh, 1); /* the primitives keep no reference to it */
  assert_size(m, "box", 0.1, 0.2, 0.3);
  assert_size(m, "ell", 0.1, 0.2, 0.3);
  assert_size(m, "sph", 0.2, 0, 0);            /* mean half size */
  assert_size(m, "cyl", 0.15, 0.3, 0);         /* mean of x, y; z */
  assert_size(m, "cap", 0.15, 0.3 - 0.075, 0); /* half a radius off the length */
  assert_size(m, "big", 0.3, 0.45, 0);
  for (int g = 0; g < m->ngeom; g++) ck_assert_int_eq(m->geom_dataid[g], -1);
  ck_assert_int_eq(m->geom_type[imp_test_id(m, IMP_OBJ_GEOM, "cap")], IMP_GEOM_CAPSULE);
  imp_free_model(m);

  snprintf(xml, sizeof xml, fmt, "true");
  m = load_data(xml);
  assert_size(m, "box", 0.1, 0.2, 0.3);
  assert_size(m, "ell", 0.1, 0.2, 0.3);
  assert_size(m, "sph", 0.3, 0, 0);      /* its box holds the mesh's box */
  assert_size(m, "cyl", 0.2, 0.3, 0);
  assert_size(m, "cap", 0.2, 0.1, 0);    /* caps included: 0.1 + 0.2 = 0.3 */
  assert_size(m, "big", 0.4, 0.2, 0);
  imp_free_model(m);
}
END_TEST

/* The fitted geom is an ordinary primitive: its mass is the primitive's
   (a fitted sphere of radius 0.2 weighs 4/3 pi 0.2^3 1000), and the size
   attribute it does not need is not asked for. */
START_TEST(fitted_geom_has_the_primitive_mass) {
  imp_model* m = load_data(
      "<mujoco><asset><mesh file='convex_box.obj'/></asset><worldbody>"
      "<body name='s'><freejoint/><geom type='sphere' mesh='convex_box'/></body>"
      "<body name='b'><freejoint/><geom type='box' mesh='convex_box' size='9 9 9'/></body>"
      "</worldbody></mujoco>");
  imp_assert_rel(m->body_mass[imp_test_id(m, IMP_OBJ_BODY, "s")], 4.0 / 3.0 * IMP_PI * 0.008 * 1000,
                 1e-12);
  imp_assert_rel(m->body_mass[imp_test_id(m, IMP_OBJ_BODY, "b")], 48, 1e-12);
  imp_free_model(m);
}
END_TEST

/* The geom sits in the mesh frame composed with its own pos/quat, like a
   mesh geom of the same mesh: with the offset cube (centroid 1.5 2.5 3.5)
   and a geom turned 90 degrees about z and moved by 1 0 0, the fitted box
   and the mesh geom coincide. */
START_TEST(fitted_geom_is_placed_like_the_mesh_geom) {
  imp_model* m = load_data(
      "<mujoco><asset><mesh file='mesh_cube_offset.obj'/></asset><worldbody>"
      "<geom name='mesh' type='mesh' mesh='mesh_cube_offset' pos='1 0 0' euler='0 0 90'/>"
      "<geom name='box' type='box' mesh='mesh_cube_offset' pos='1 0 0' euler='0 0 90'/>"
      "</worldbody></mujoco>");
  int gm = imp_test_id(m, IMP_OBJ_GEOM, "mesh"), gb = imp_test_id(m, IMP_OBJ_GEOM, "box");
  double pos[3] = {1 - 2.5, 1.5, 3.5};
  imp_assert_vec_near(m->geom_pos + 3 * gb, pos, 3, 1e-12);
  imp_assert_vec_near(m->geom_pos + 3 * gm, pos, 3, 1e-12);
  imp_assert_vec_near(m->geom_quat + 4 * gb, m->geom_quat + 4 * gm, 4, 1e-12);
  assert_size(m, "box", 0.5, 0.5, 0.5);
  imp_free_model(m);
}
END_TEST

/* fitaabb on an offset, asymmetric wedge: the box is centred on the mesh's
   box, not on its centroid, holds every vertex and touches every face. */
START_TEST(aabb_box_is_the_smallest_around_the_mesh) {
  imp_model* m = load_data(
      "<mujoco><compiler fitaabb='true'/><asset><mesh file='wedge.obj'/></asset><worldbody>"
      "<geom name='mesh' type='mesh' mesh='wedge'/>"
      "<geom name='box' type='box' mesh='wedge'/>"
      "</worldbody></mujoco>");
  int gm = imp_test_id(m, IMP_OBJ_GEOM, "mesh"), gb = imp_test_id(m, IMP_OBJ_GEOM, "box");
  const double* h = m->geom_size + 3 * gb;
  double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
  const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[0];
  for (int v = 0; v < m->mesh_vertnum[0]; v++) {
    double w[3], d[3], b[3]; /* the vertex in the world, then in the box's frame */
    imp_quat_rotate(w, m->geom_quat + 4 * gm, vert + 3 * v);
    for (int i = 0; i < 3; i++) d[i] = w[i] + m->geom_pos[3 * gm + i] - m->geom_pos[3 * gb + i];
    imp_quat_rotate_inv(b, m->geom_quat + 4 * gb, d);
    for (int i = 0; i < 3; i++) lo[i] = fmin(lo[i], b[i]), hi[i] = fmax(hi[i], b[i]);
  }
  for (int i = 0; i < 3; i++) {
    imp_assert_near(hi[i], h[i], 1e-12);
    imp_assert_near(lo[i], -h[i], 1e-12);
  }
  /* the wedge's box is off its centroid (a triangle's centroid is a third
     of the way up): the fitted geom is not at the mesh geom's position */
  ck_assert(imp_max_abs_diff(m->geom_pos + 3 * gb, m->geom_pos + 3 * gm, 3) > 0.01);
  imp_free_model(m);
}
END_TEST

/* fitscale comes from default classes too; a primitive fitted to a mesh of
   a class of primitives (Menagerie's "collision" classes) loads without a
   size; unknown meshes and a flat mesh's missing inertia box are errors at
   the geom's line. */
START_TEST(classes_and_errors) {
  imp_model* m = load_data(
      "<mujoco><default><default class='col'><geom type='capsule' fitscale='0.5'/></default>"
      "</default><asset><mesh file='convex_box.obj'/></asset><worldbody>"
      "<geom name='c' class='col' mesh='convex_box'/></worldbody></mujoco>");
  assert_size(m, "c", 0.075, 0.1125, 0);
  imp_free_model(m);
  ck_assert_ptr_null(imp_load_xml_string(
      "<mujoco><worldbody>\n<geom type='capsule' mesh='nope'/></worldbody></mujoco>", DATA_DIR,
      "t.xml", g_err, sizeof g_err));
  ck_assert_msg(strncmp(g_err, "t.xml:2: ", 9) == 0 && strstr(g_err, "unknown mesh 'nope'"), "%s",
                g_err);
  ck_assert_ptr_null(imp_load_xml_string(
      "<mujoco><asset><mesh file='convex_box.obj'/></asset><worldbody>\n"
      "<geom type='box' mesh='convex_box' fitscale='0'/></worldbody></mujoco>",
      DATA_DIR, "t.xml", g_err, sizeof g_err));
  ck_assert_msg(strncmp(g_err, "t.xml:2: ", 9) == 0 && strstr(g_err, "fitscale"), "%s", g_err);
}
END_TEST

Suite* mesh_fit_suite(void) {
  Suite* s = suite_create("mesh_fit");
  TCase* t = tcase_create("fit");
  tcase_add_test(t, box_mesh_fits_by_hand);
  tcase_add_test(t, fitted_geom_has_the_primitive_mass);
  tcase_add_test(t, fitted_geom_is_placed_like_the_mesh_geom);
  tcase_add_test(t, aabb_box_is_the_smallest_around_the_mesh);
  tcase_add_test(t, classes_and_errors);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mesh_fit_suite()); }
