/* Texture images (render/texture.c), no OpenGL: MJCF's builtin textures
   follow MJCF's description (checker: 2 x 2 squares, rgb1 in the top-left
   and bottom-right; flat: rgb1; mark="edge": markrgb on the border), and
   a PNG texture file is read as written, or refused naming the file. */
#include <stdio.h>
#include <stdlib.h>

#include "render.h"
#include "test_util.h"
#include "texture.h"

static const char* builtin_xml =
    "<mujoco><asset>"
    "<texture name='chk' type='2d' builtin='checker' width='8' height='8' rgb1='1 0 0' rgb2='0 0 "
    "1'/>"
    "<texture name='flat' type='2d' builtin='flat' width='4' height='4' rgb1='0 1 0' mark='edge' "
    "markrgb='1 1 1'/>"
    "</asset><worldbody/></mujoco>";

static void assert_texel(const unsigned char* rgb, int w, int i, int j, int r, int g, int b) {
  const unsigned char* p = rgb + 3 * (j * w + i);
  ck_assert_msg(p[0] == r && p[1] == g && p[2] == b, "texel (%d, %d) = %d %d %d, expected %d %d %d",
                i, j, p[0], p[1], p[2], r, g, b);
}

START_TEST(builtin_checker_and_flat_with_marks) {
  imp_model* m = imp_test_load_string(builtin_xml);
  char err[500] = "";
  int w, h;
  unsigned char* c = imp_texture_rgb(m, 0, &w, &h, err, sizeof err);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(w, 8);
  ck_assert_int_eq(h, 8);
  assert_texel(c, w, 0, 0, 255, 0, 0); /* top-left square: rgb1 */
  assert_texel(c, w, 3, 3, 255, 0, 0);
  assert_texel(c, w, 4, 0, 0, 0, 255); /* top-right: rgb2 */
  assert_texel(c, w, 0, 7, 0, 0, 255); /* bottom-left: rgb2 */
  assert_texel(c, w, 7, 7, 255, 0, 0); /* bottom-right: rgb1 */
  free(c);
  unsigned char* f = imp_texture_rgb(m, 1, &w, &h, err, sizeof err);
  ck_assert_ptr_nonnull(f);
  assert_texel(f, w, 0, 2, 255, 255, 255); /* the edge mark */
  assert_texel(f, w, 1, 1, 0, 255, 0);     /* inside: rgb1 */
  free(f);
  imp_free_model(m);
}
END_TEST

START_TEST(png_texture_file_is_read_as_written) {
  char path[1024], xml[2048], err[1200] = "";
  snprintf(path, sizeof path, "%s/render_texture_test.png", IMP_TEST_TMPDIR);
  unsigned char img[2 * 3 * 3] = {10,  20,  30,  40,  50,  60,  70,  80,  90,
                                  100, 110, 120, 130, 140, 150, 160, 170, 180};
  ck_assert_int_eq(imp_image_write_png(path, img, 3, 2, err, sizeof err), 0);
  snprintf(xml, sizeof xml,
           "<mujoco><asset><texture name='t' type='2d' file='%s'/></asset><worldbody/></mujoco>",
           path);
  imp_model* m = imp_test_load_string(xml);
  int w, h;
  unsigned char* rgb = imp_texture_rgb(m, 0, &w, &h, err, sizeof err);
  ck_assert_msg(rgb != NULL, "%s", err);
  ck_assert_int_eq(w, 3);
  ck_assert_int_eq(h, 2);
  ck_assert(memcmp(rgb, img, sizeof img) == 0);
  free(rgb);
  imp_free_model(m);
  /* a file that is not there: NULL, and the message names it */
  snprintf(xml, sizeof xml,
           "<mujoco><asset><texture name='t' type='2d' "
           "file='%s/none.png'/></asset><worldbody/></mujoco>",
           IMP_TEST_TMPDIR);
  m = imp_test_load_string(xml);
  err[0] = '\0';
  ck_assert_ptr_null(imp_texture_rgb(m, 0, &w, &h, err, sizeof err));
  ck_assert_msg(strstr(err, "none.png") != NULL, "message without the file: %s", err);
  imp_free_model(m);
}
END_TEST

/* Cube faces, GL-free: a builtin's pattern on all six; a 2 x 3 grid file
   (gridlayout RLU DFB) cut into its cells in the order R L U D F B; a 1 x 1
   file on every face; a layout that does not fit the grid is refused. */
START_TEST(cube_faces_from_builtins_and_grids) {
  char path[1024], xml[2048], err[1200] = "";
  snprintf(path, sizeof path, "%s/render_texture_grid.png", IMP_TEST_TMPDIR);
  unsigned char img[2 * 3 * 3];
  for (int k = 0; k < 6; k++) /* cell k grey level 40 k */
    img[3 * k] = img[3 * k + 1] = img[3 * k + 2] = (unsigned char)(40 * k);
  ck_assert_int_eq(imp_image_write_png(path, img, 3, 2, err, sizeof err), 0);
  int len = snprintf(xml, sizeof xml,
                     "<mujoco><asset><texture type='cube' builtin='flat' width='4' rgb1='0 1 0'/>"
                     "<texture type='cube' file='%s' gridsize='2 3' gridlayout='RLUDFB'/>"
                     "<texture type='skybox' file='%s'/></asset><worldbody/></mujoco>",
                     path, path);
  ck_assert_int_lt(len, (int)sizeof xml);
  imp_model* m = imp_test_load_string(xml);
  int size;
  unsigned char* f = imp_texture_cube_faces(m, 0, &size, err, sizeof err);
  ck_assert_msg(f != NULL, "%s", err);
  ck_assert_int_eq(size, 4);
  for (int k = 0; k < 6 * 16; k++) assert_texel(f, 1, k, 0, 0, 255, 0);
  free(f);
  f = imp_texture_cube_faces(m, 1, &size, err, sizeof err);
  ck_assert_msg(f != NULL, "%s", err);
  ck_assert_int_eq(size, 1);
  for (int k = 0; k < 6; k++) assert_texel(f, 1, k, 0, 40 * k, 40 * k, 40 * k);
  free(f);
  f = imp_texture_cube_faces(m, 2, &size, err, sizeof err);
  ck_assert_msg(f != NULL, "%s", err);
  ck_assert_int_eq(size, 2); /* the whole 3 x 2 image, squared to its height */
  for (int k = 0; k < 6; k++) ck_assert(memcmp(f + 12 * k, f, 12) == 0);
  free(f);
  imp_free_model(m);
  char bad[] = "<mujoco><asset><texture type='cube' builtin='flat' gridsize='2 3' "
               "gridlayout='RLUD'/></asset><worldbody/></mujoco>";
  ck_assert_ptr_null(imp_load_xml_string(bad, ".", "bad", err, sizeof err));
  ck_assert_msg(strstr(err, "gridlayout") != NULL, "%s", err);
}
END_TEST

int main(void) {
  Suite* s = suite_create("render_texture");
  TCase* tc = tcase_create("render_texture");
  tcase_add_test(tc, builtin_checker_and_flat_with_marks);
  tcase_add_test(tc, png_texture_file_is_read_as_written);
  tcase_add_test(tc, cube_faces_from_builtins_and_grids);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
