/* Tests of mesh assets: every broken file (missing, not regular, too large,
 * truncated, bad syntax, bad indices, degenerate) and every bad reference or
 * maxhullvert giving an error that names the mesh file and the <mesh>
 * element's line. Shared helpers: mesh_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "mesh_util.h"

/* ---------------------------------------------------------- broken files */

START_TEST(error_missing_and_unknown_files) {
  char xml[1024];
  one_mesh_xml(xml, sizeof xml, "mesh_nothere.obj", "", "");
  expect_mesh_error(xml, 2, "mesh_nothere.obj", "cannot open");
  write_text("mesh_x.ply", "ply\n");
  one_mesh_xml(xml, sizeof xml, "mesh_x.ply", "", "");
  expect_mesh_error(xml, 2, "mesh_x.ply", "unknown mesh file extension");
}
END_TEST

/* A mesh "file" that is a FIFO (the load waited forever for a writer) or a
   directory is refused at the <mesh> element (issue 15). */
START_TEST(error_mesh_file_not_regular) {
  char xml[1024], path[4096];
  snprintf(path, sizeof path, "%s/mesh_fifo.stl", IMP_TEST_TMPDIR);
  unlink(path);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  one_mesh_xml(xml, sizeof xml, "mesh_fifo.stl", "", "");
  expect_mesh_error(xml, 2, "mesh_fifo.stl", "not a regular file");
  unlink(path);
  snprintf(path, sizeof path, "%s/mesh_dir.stl", IMP_TEST_TMPDIR);
  rmdir(path);
  ck_assert_int_eq(mkdir(path, 0700), 0);
  one_mesh_xml(xml, sizeof xml, "mesh_dir.stl", "", "");
  expect_mesh_error(xml, 2, "mesh_dir.stl", "not a regular file");
  rmdir(path);
}
END_TEST

/* An STL's floats reach 3e38, whose volume overflows and whose body reset
   every step (issue 15): coordinates beyond 2^30 are refused, as MuJoCo
   2.2.2 refuses them; 2^30 itself loads. */
START_TEST(error_mesh_coordinates_too_large) {
  /* an outward tetrahedron with legs of length L along the axes */
  static const char* tet =
      "solid t\n"
      "facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 0 %1$s 0\nvertex %1$s 0 0\n"
      "endloop\nendfacet\n"
      "facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex %1$s 0 0\nvertex 0 0 %1$s\n"
      "endloop\nendfacet\n"
      "facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 0 0 %1$s\nvertex 0 %1$s 0\n"
      "endloop\nendfacet\n"
      "facet normal 0 0 0\nouter loop\nvertex %1$s 0 0\nvertex 0 %1$s 0\nvertex 0 0 %1$s\n"
      "endloop\nendfacet\nendsolid t\n";
  char xml[1024], text[2000];
  snprintf(text, sizeof text, tet, "3e38");
  write_text("mesh_huge.stl", text);
  one_mesh_xml(xml, sizeof xml, "mesh_huge.stl", "", "");
  expect_mesh_error(xml, 2, "mesh_huge.stl", "vertex coordinate 3e+38 beyond");
  snprintf(text, sizeof text, tet, "1073741824");
  write_text("mesh_2p30.stl", text);
  one_mesh_xml(xml, sizeof xml, "mesh_2p30.stl", "", "");
  imp_free_model(load_in(IMP_TEST_TMPDIR, xml));
}
END_TEST

START_TEST(error_binary_stl_truncated_or_mismatched) {
  char xml[1024];
  unsigned char hdr[60] = {0};
  write_file("mesh_trunc.stl", hdr, sizeof hdr);
  one_mesh_xml(xml, sizeof xml, "mesh_trunc.stl", "", "");
  expect_mesh_error(xml, 2, "mesh_trunc.stl", "truncated");
  unsigned char bad[84 + 50 + 7] = {0};
  bad[80] = 1;
  write_file("mesh_size.stl", bad, sizeof bad);
  one_mesh_xml(xml, sizeof xml, "mesh_size.stl", "", "");
  expect_mesh_error(xml, 2, "mesh_size.stl", "must have 134 bytes");
}
END_TEST

START_TEST(error_ascii_stl_syntax) {
  char xml[1024];
  write_text("mesh_syntax.stl",
             "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
             "vertex 0 1 0\nendfacet\nendsolid\n");
  one_mesh_xml(xml, sizeof xml, "mesh_syntax.stl", "", "");
  expect_mesh_error(xml, 2, "mesh_syntax.stl", "line 7: expected 'endloop'");
  write_text("mesh_num.stl",
             "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zero\n");
  one_mesh_xml(xml, sizeof xml, "mesh_num.stl", "", "");
  expect_mesh_error(xml, 2, "mesh_num.stl", "'zero' is not a number");
}
END_TEST

START_TEST(error_obj_syntax_and_indices) {
  char xml[1024];
  static const struct {
    const char *file, *text, *what;
  } cases[] = {
      {"mesh_e1.obj", "v 0 0 0\nv 1 0\n", "line 2: a vertex needs 3 coordinates"},
      {"mesh_e2.obj", "v 0 0 0\nv 1 x 0\n", "line 2: 'x' is not a number"},
      {"mesh_e3.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 9\n", "index 9 out of range"},
      {"mesh_e4.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 0 1 2\n", "index 0 out of range"},
      {"mesh_e5.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "index -4 out of range"},
      {"mesh_e6.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2\n", "at least 3 vertices"},
      {"mesh_e7.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf x/1 2 3\n", "bad face vertex"},
      {"mesh_e8.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nf 1/2 2/1 3/1\n",
       "line 6: texture coordinate index 2 out of range"},
      {"mesh_e9.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 x\n", "line 5: 'x' is not a number"},
      {"mesh_e10.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt\n", "line 5: a texture coordinate needs"},
      {"mesh_e11.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nf 1/x 2/1 3/1\n",
       "bad texture coordinate index"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_text(cases[i].file, cases[i].text);
    one_mesh_xml(xml, sizeof xml, cases[i].file, "", "");
    expect_mesh_error(xml, 2, cases[i].file, cases[i].what);
  }
}
END_TEST

START_TEST(error_degenerate_meshes) {
  char xml[1024];
  static const struct {
    const char *file, *text, *what;
  } cases[] = {
      {"mesh_d1.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n", "no triangles"},
      {"mesh_d2.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "at least 4"},
      {"mesh_d4.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nf 1 2 3\nf 2 3 4\n", "degenerate"},
      {"mesh_d5.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 inf\nf 1 2 3\n", "non-finite"},
      {"mesh_d6.obj", "v nan 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n", "non-finite"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_text(cases[i].file, cases[i].text);
    one_mesh_xml(xml, sizeof xml, cases[i].file, "", "");
    expect_mesh_error(xml, 2, cases[i].file, cases[i].what);
  }
  /* a scale of 0 flattens any mesh */
  one_mesh_xml(xml, sizeof xml, "mesh_inner.obj", "scale='1 0 1'", "");
  write_text("mesh_inner.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  expect_mesh_error(xml, 2, NULL, "scale");
}
END_TEST

START_TEST(error_mesh_references) {
  expect_mesh_error("<mujoco>\n<worldbody>\n<geom type='mesh' mesh='nope'/></worldbody></mujoco>",
                    3, NULL, "unknown mesh 'nope'");
  expect_mesh_error("<mujoco>\n<worldbody>\n<geom type='mesh'/></worldbody></mujoco>", 3, NULL,
                    "mesh geom without a mesh attribute");
  write_text("mesh_ok.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  /* names written in the file must be unique (one taken from a file name
     may repeat, as in MuJoCo 2.2.2: test_asset.c) */
  expect_mesh_error("<mujoco><asset>\n<mesh name='a' file='mesh_ok.obj'/>\n<mesh name='a' "
                    "file='mesh_ok.obj'/></asset></mujoco>",
                    3, NULL, "repeated mesh name 'a'");
}
END_TEST

/* MJCF reference: "-1 means unlimited. Positive values must be larger than
   3"; MuJoCo refuses the rest, at the <mesh> or its class's default. */
START_TEST(error_maxhullvert_values) {
  static const double c[3] = {0, 0, 0}, h[3] = {1, 1, 1};
  write_box_stl("box_mhv.stl", c, h);
  const char* bad[] = {"3", "0", "-2", "2.5"};
  for (int k = 0; k < 4; k++) {
    char xml[600], attr[40];
    snprintf(attr, sizeof attr, "maxhullvert='%s'", bad[k]);
    one_mesh_xml(xml, sizeof xml, "box_mhv.stl", attr, "");
    imp_model* m = imp_load_xml_string(xml, IMP_TEST_TMPDIR, "t.xml", g_err, sizeof g_err);
    ck_assert_msg(m == NULL, "maxhullvert='%s' loaded", bad[k]);
    ck_assert_msg(strncmp(g_err, "t.xml:2:", 8) == 0 && strstr(g_err, "maxhullvert"),
                  "error '%s'", g_err);
  }
  imp_model* m = imp_load_xml_string(
      "<mujoco>\n<default><mesh maxhullvert='1'/></default></mujoco>", IMP_TEST_TMPDIR, "t.xml",
      g_err, sizeof g_err);
  ck_assert(m == NULL);
  ck_assert_msg(strncmp(g_err, "t.xml:2:", 8) == 0 && strstr(g_err, "larger than 3"), "%s", g_err);
  /* a class's cap applies; 4 on a cube of 8 hull vertices */
  m = load_in(IMP_TEST_TMPDIR,
              "<mujoco><default><mesh maxhullvert='4'/></default><asset><mesh "
              "file='box_mhv.stl'/></asset><worldbody><body><freejoint/><geom type='mesh' "
              "mesh='box_mhv'/></body></worldbody></mujoco>");
  ck_assert_int_eq(m->mesh_hullnum[0], 4);
  imp_free_model(m);
}
END_TEST

static Suite* mesh_suite(void) {
  Suite* s = suite_create("mesh");
  TCase* t = tcase_create("errors");
  tcase_add_test(t, error_missing_and_unknown_files);
  tcase_add_test(t, error_mesh_file_not_regular);
  tcase_add_test(t, error_mesh_coordinates_too_large);
  tcase_add_test(t, error_binary_stl_truncated_or_mismatched);
  tcase_add_test(t, error_ascii_stl_syntax);
  tcase_add_test(t, error_obj_syntax_and_indices);
  tcase_add_test(t, error_degenerate_meshes);
  tcase_add_test(t, error_mesh_references);
  tcase_add_test(t, error_maxhullvert_values);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mesh_suite()); }
