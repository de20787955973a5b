/* Tests of <asset> reading (model/asset.c): default names from file names,
 * as the MJCF reference defines them, and the textures that must have one.
 * Texture files are only named here, never opened (the renderer reads them),
 * so the files need not exist. */
#include <check.h>
#include <string.h>

#include "impetus.h"
#include "test_util.h"

static char g_err[1000];

/* A texture given only by its file is named after the file, without
   directory and extension, and a material finds it by that name (Menagerie's
   trossen_vx300s: "unknown texture 'interbotix_black'"). */
START_TEST(texture_named_after_its_file) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler texturedir='textures'/><asset>\n"
      "<texture type='2d' file='sub/interbotix_black.png'/>\n"
      "<texture type='2d' file='wood.grain.png'/>\n"
      "<texture name='given' type='2d' file='other.png'/>\n"
      "<material name='black' texture='interbotix_black'/>\n"
      "<material name='wood' texture='wood.grain'/>\n"
      "<material name='named' texture='given'/>\n"
      "</asset><worldbody><geom size='1' material='black'/></worldbody></mujoco>");
  ck_assert_int_eq(m->ntex, 3);
  ck_assert_int_eq(imp_test_id(m, IMP_OBJ_TEXTURE, "interbotix_black"), 0);
  ck_assert_int_eq(imp_test_id(m, IMP_OBJ_TEXTURE, "wood.grain"), 1); /* only the last dot */
  ck_assert_int_eq(imp_test_id(m, IMP_OBJ_TEXTURE, "given"), 2);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_TEXTURE, "other"), -1);
  ck_assert_int_eq(m->mat_texid[imp_test_id(m, IMP_OBJ_MATERIAL, "black")], 0);
  ck_assert_int_eq(m->mat_texid[imp_test_id(m, IMP_OBJ_MATERIAL, "wood")], 1);
  /* the path keeps texturedir and the directory; only the name drops them */
  ck_assert_str_eq(m->paths + m->tex_fileadr[0], IMP_MODELS_DIR "/textures/sub/interbotix_black.png");
  imp_free_model(m);
}
END_TEST

/* name="" is no name: the file names the texture and the mesh */
START_TEST(empty_name_counts_as_none) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><asset>\n"
      "<texture name='' type='2d' file='a/b/plain.png'/>\n"
      "<mesh name='' file='../test/data/convex_tetra.obj'/>\n"
      "</asset><worldbody><geom type='mesh' mesh='convex_tetra'/></worldbody></mujoco>");
  ck_assert_int_eq(imp_test_id(m, IMP_OBJ_TEXTURE, "plain"), 0);
  ck_assert_int_eq(imp_test_id(m, IMP_OBJ_MESH, "convex_tetra"), 0);
  imp_free_model(m);
}
END_TEST

/* Without a name or a file nothing can refer to a texture: MuJoCo refuses
   it (2.2.2: "empty name in texture") unless it is a skybox; we load it and
   say so at its line. */
START_TEST(unnamed_texture_loads_with_a_warning_unless_skybox) {
  imp_model* m = imp_test_load_string(
      "<mujoco><asset>\n<texture type='2d' builtin='checker' width='8' height='8'/>\n"
      "</asset></mujoco>");
  ck_assert_int_eq(m->ntex, 1);
  ck_assert_int_eq(m->nwarning, 1);
  ck_assert_msg(strstr(m->warnings, ":2: warning: texture without a name"), "%s", m->warnings);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><asset><texture type='skybox' builtin='gradient' width='8' height='8'/>"
      "</asset></mujoco>");
  ck_assert_int_eq(m->ntex, 1);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_TEXTURE, 0), "");
  imp_free_model(m);
}
END_TEST

/* Names from files may repeat (two skyboxes of one image, a mesh named like
   another's file: MuJoCo 2.2.2 loads both) and a reference finds the first;
   names written in the file must be unique. */
START_TEST(only_given_names_must_be_unique) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><asset>\n<texture type='2d' file='a/x.png'/>\n<texture type='skybox' file='b/x.png'/>\n"
      "<texture name='x' type='2d' file='c/y.png'/>\n<material name='m' texture='x'/>\n"
      "<mesh file='../test/data/convex_tetra.obj'/>\n"
      "<mesh name='convex_tetra' file='../test/data/convex_box.obj'/>\n"
      "</asset><worldbody><geom type='mesh' mesh='convex_tetra'/></worldbody></mujoco>");
  ck_assert_int_eq(m->ntex, 3);
  ck_assert_int_eq(m->mat_texid[0], 0);
  ck_assert_int_eq(m->geom_dataid[0], 0);
  ck_assert_int_eq(m->mesh_vertnum[0], 4); /* the tetrahedron, the first of the name */
  imp_free_model(m);
  m = imp_load_xml_string(
      "<mujoco><asset>\n<texture name='x' type='2d' file='a/x.png'/>\n"
      "<texture name='x' type='2d' file='b/y.png'/>\n</asset></mujoco>",
      NULL, "t.xml", g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strncmp(g_err, "t.xml:3: ", 9) == 0 && strstr(g_err, "repeated texture name 'x'"),
                "%s", g_err);
  m = imp_load_xml_string(
      "<mujoco><asset>\n<mesh name='t' file='convex_tetra.obj'/>\n"
      "<mesh name='t' file='convex_box.obj'/>\n</asset></mujoco>",
      IMP_MODELS_DIR "/../test/data", "t.xml", g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strncmp(g_err, "t.xml:3: ", 9) == 0 && strstr(g_err, "repeated mesh name 't'"),
                "%s", g_err);
}
END_TEST

Suite* asset_suite(void) {
  Suite* s = suite_create("asset");
  TCase* t = tcase_create("names");
  tcase_add_test(t, texture_named_after_its_file);
  tcase_add_test(t, empty_name_counts_as_none);
  tcase_add_test(t, unnamed_texture_loads_with_a_warning_unless_skybox);
  tcase_add_test(t, only_given_names_must_be_unique);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(asset_suite()); }
