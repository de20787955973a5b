/* Texture images (render/texture.c), no OpenGL: MJCF's builtin textures
   follow MJCF's description (checker: 2 x 2 squares, rgb1 in the top-left
   and bottom-right; flat: rgb1; mark="edge": markrgb on the border), and
   a PNG texture file is read as written, or refused naming the file. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A PNG of 33 bytes that claims w x h pixels: the signature and an IHDR
   chunk (8-bit RGB) with its CRC, no image data. A decoder that trusts the
   header before checking it allocates w h 3 bytes (and more) for it. */
static void write_png_header(const char* path, uint32_t w, uint32_t h) {
  unsigned char b[33] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
                         'I', 'H', 'D', 'R'};
  for (int k = 0; k < 4; k++) {
    b[16 + k] = (unsigned char)(w >> (24 - 8 * k));
    b[20 + k] = (unsigned char)(h >> (24 - 8 * k));
  }
  b[24] = 8; /* bit depth */
  b[25] = 2; /* colour type: RGB */
  uint32_t crc = 0xffffffffu; /* CRC-32 of type and data (PNG specification, annex D) */
  for (int i = 12; i < 29; i++) {
    crc ^= b[i];
    for (int k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
  }
  crc ^= 0xffffffffu;
  for (int k = 0; k < 4; k++) b[29 + k] = (unsigned char)(crc >> (24 - 8 * k));
  FILE* f = fopen(path, "wb");
  ck_assert(f != NULL);
  ck_assert_int_eq(fwrite(b, 1, sizeof b, f), sizeof b);
  ck_assert_int_eq(fclose(f), 0);
}

/* A texture whose PNG header claims 20000 x 20000 pixels (1.2 GB of RGB
   from a 33-byte file) is refused by the loader at its <texture> line,
   naming the asset, its file and the limit; 4096 x 4096 is allowed. */
START_TEST(huge_png_texture_refused_at_its_line) {
  char path[1024], xml[2048];
  snprintf(path, sizeof path, "%s/render_texture_bomb.png", IMP_TEST_TMPDIR);
  write_png_header(path, 20000, 20000);
  snprintf(xml, sizeof xml,
           "<mujoco><asset>\n<texture name='bomb' type='2d' file='%s'/>\n</asset>"
           "<worldbody/></mujoco>",
           path);
  imp_test_expect_error(xml, 2, "20000 x 20000 pixels: more than the 16777216 allowed");
  char err[IMP_TEST_ERRSZ] = "";
  ck_assert(imp_load_xml_string(xml, NULL, "t.xml", err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, "texture 'bomb'") && strstr(err, "render_texture_bomb.png"), "%s", err);
  write_png_header(path, 4096, 4096); /* at the limit: loads (the renderer decodes it) */
  imp_model* m = imp_test_load_string(xml);
  imp_free_model(m);
  remove(path);
}
END_TEST

/* The renderer checks the header of the bytes it decodes too: a texture
   file replaced by a huge one after the model loaded (16000 x 16000, the
   730 KB PNG that took 3.2 GB; stb_image itself only refuses images of
   more than 2^30 bytes) is refused, naming the file and the limit,
   without decoding it. */
START_TEST(huge_png_texture_refused_before_decoding) {
  char path[1024], xml[2048], err[1200] = "";
  snprintf(path, sizeof path, "%s/render_texture_swap.png", IMP_TEST_TMPDIR);
  unsigned char img[2 * 2 * 3] = {0};
  ck_assert_int_eq(imp_image_write_png(path, img, 2, 2, err, sizeof err), 0);
  snprintf(xml, sizeof xml,
           "<mujoco><asset><texture name='t' type='2d' file='%s'/></asset><worldbody/></mujoco>",
           path);
  imp_model* m = imp_test_load_string(xml);
  write_png_header(path, 16000, 16000);
  int w = 0, h = 0;
  unsigned char* rgb = imp_texture_rgb(m, 0, &w, &h, err, sizeof err);
  ck_assert_ptr_null(rgb);
  ck_assert_msg(strstr(err, path) && strstr(err, "16000 x 16000 pixels: more than the 16777216"),
                "%s", err);
  imp_free_model(m);
  remove(path);
}
END_TEST

/* A link planted at the name PNG output used to write first (FILE.tmp) is
   not followed: its target keeps its bytes, the image is a file of its own. */
START_TEST(png_output_ignores_planted_link) {
  char path[1024], link[1100], victim[1100], err[1200] = "";
  snprintf(path, sizeof path, "%s/render_texture_link.png", IMP_TEST_TMPDIR);
  snprintf(link, sizeof link, "%s.tmp", path);
  snprintf(victim, sizeof victim, "%s.victim", path);
  remove(path);
  remove(link);
  FILE* f = fopen(victim, "w");
  ck_assert(f && fputs("precious", f) >= 0 && fclose(f) == 0);
  ck_assert_int_eq(symlink(victim, link), 0);
  unsigned char img[2 * 2 * 3] = {0};
  ck_assert_msg(imp_image_write_png(path, img, 2, 2, err, sizeof err) == 0, "%s", err);
  struct stat st;
  ck_assert(stat(victim, &st) == 0 && st.st_size == 8);
  ck_assert(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
  ck_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  remove(path);
  remove(link);
  remove(victim);
}
END_TEST

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
  tcase_add_test(tc, huge_png_texture_refused_at_its_line);
  tcase_add_test(tc, huge_png_texture_refused_before_decoding);
  tcase_add_test(tc, png_output_ignores_planted_link);
  tcase_add_test(tc, cube_faces_from_builtins_and_grids);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
