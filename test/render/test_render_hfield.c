/* Height fields as drawn (render/hfield_mesh.c): the triangles close the
 * solid the collider uses. Checked by laws of the surface: the count the
 * builder promises, every surface vertex on the data, surface normals up,
 * and the divergence theorem: the closed surface's area-weighted normals
 * sum to zero and its volume, sum of (p . n) area / 3, equals the prisms'
 * (each cell triangle's area times its mean height above the base). */
#include <math.h>
#include <stdlib.h>

#include "hfield_mesh.h"
#include "shapes.h"
#include "test_util.h"

static const char* k_xml =
    "<mujoco><asset><hfield name='h' nrow='4' ncol='5' size='1.5 1 0.4 0.2' elevation='"
    "0 1 3 2 1  1 2 4 3 1  0 3 5 4 2  1 2 3 2 2'/></asset>"
    "<worldbody><geom type='hfield' hfield='h'/></worldbody></mujoco>";

START_TEST(triangles_close_the_prisms) {
  imp_model* m = imp_test_load_string_nowarn(k_xml);
  int n = imp_hfield_vertex_count(m, 0);
  float* v = malloc(sizeof(float) * IMP_SHAPE_FLOATS * (size_t)n);
  ck_assert_int_eq(imp_hfield_build(m, 0, v), n);
  ck_assert_int_eq(n, 6 * (3 * 4 + 2 * 3 + 2 * 4 + 1));
  const double* s = m->hfield_size;
  double sum[3] = {0, 0, 0}, vol = 0;
  for (int t = 0; t < n / 3; t++) {
    const float *a = v + 8 * (3 * t), *b = a + 8, *c = b + 8;
    double e1[3], e2[3], x[3];
    for (int i = 0; i < 3; i++) e1[i] = b[i] - a[i], e2[i] = c[i] - a[i];
    x[0] = e1[1] * e2[2] - e1[2] * e2[1];
    x[1] = e1[2] * e2[0] - e1[0] * e2[2];
    x[2] = e1[0] * e2[1] - e1[1] * e2[0]; /* twice the area times the normal */
    for (int i = 0; i < 3; i++) sum[i] += 0.5 * x[i];
    vol += (a[0] * x[0] + a[1] * x[1] + a[2] * x[2]) / 6;
    /* the stored normal is the face's */
    double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(a[3 + i], x[i] / len, 1e-6);
    if (t < 2 * 3 * 4) { /* the surface first: up, on the data */
      ck_assert(x[2] > 0);
      for (int k = 0; k < 3; k++) {
        const float* p = a + 8 * k;
        int col = (int)lround((p[0] + s[0]) / (2 * s[0]) * 4);
        int row = (int)lround((p[1] + s[1]) / (2 * s[1]) * 3);
        ck_assert_double_eq_tol(p[2], m->hfield_data[row * 5 + col] * s[2], 1e-6);
      }
    }
  }
  /* the prisms' volume: per cell triangle, its area times its mean height
     over the base, in MuJoCo's triangulation */
  double expect = 0, dx = 2 * s[0] / 4, dy = 2 * s[1] / 3;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 4; c++) {
      const float* z = m->hfield_data;
      double z00 = z[r * 5 + c], z01 = z[r * 5 + c + 1], z10 = z[(r + 1) * 5 + c],
             z11 = z[(r + 1) * 5 + c + 1];
      expect += 0.5 * dx * dy * ((z10 + z00 + z11) / 3 * s[2] + s[3]);
      expect += 0.5 * dx * dy * ((z00 + z11 + z01) / 3 * s[2] + s[3]);
    }
  printf("hfield drawn: %d vertices, sum of area normals (%.2e %.2e %.2e), volume %.9f "
         "(prisms %.9f)\n",
         n, sum[0], sum[1], sum[2], vol, expect);
  for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(sum[i], 0, 1e-5);
  ck_assert_double_eq_tol(vol, expect, 1e-5);
  free(v);
  imp_free_model(m);
}
END_TEST

START_TEST(fine_fields_are_drawn_bounded) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><asset><hfield name='h' nrow='2000' ncol='1500' size='1 1 1 1'/></asset>"
      "<worldbody><geom type='hfield' hfield='h'/></worldbody></mujoco>");
  int n = imp_hfield_vertex_count(m, 0);
  /* every 4th row line (500 cells), every 3rd column line (500 cells) */
  ck_assert_int_eq(n, 6 * (500 * 500 + 2 * 500 + 2 * 500 + 1));
  float* v = malloc(sizeof(float) * IMP_SHAPE_FLOATS * (size_t)n);
  ck_assert_int_eq(imp_hfield_build(m, 0, v), n);
  free(v);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("render_hfield");
  TCase* t = tcase_create("mesh");
  tcase_add_test(t, triangles_close_the_prisms);
  tcase_add_test(t, fine_fields_are_drawn_bounded);
  suite_add_tcase(s, t);
  return imp_test_run_suite(s);
}
