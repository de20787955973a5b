/* Tests of mesh assets: each file format, the convex hull, the mass frame
 * (volume-derived mass and principal moments against the analytic solids,
 * the geom placed where the file put it), inertia="legacy", "shell" and
 * "convex", flat meshes, names, paths and defaults. Shared helpers:
 * mesh_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "mesh_util.h"

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

/* ------------------------------------------------------------ good files */

/* test/data/mesh_cube_offset.obj: the unit cube (1,2,3)..(2,3,4) as quads
   with v, v/vt, v//vn, v/vt/vn and negative indices */
START_TEST(obj_cube_mass_frame_and_placement) {
  imp_model* m = load_in(DATA_DIR,
                         "<mujoco><asset><mesh file='mesh_cube_offset.obj'/></asset><worldbody>"
                         "<body pos='0 0 1'><freejoint/><geom type='mesh' mesh='mesh_cube_offset'/>"
                         "</body></worldbody></mujoco>");
  imp_test_no_warnings(m);
  /* only some faces name a texture coordinate: none kept (no texture, no warning) */
  ck_assert_int_eq(m->nmeshtexcoord, 0);
  ck_assert_int_eq(m->mesh_texcoordadr[0], -1);
  ck_assert_int_eq(m->nmesh, 1);
  ck_assert_int_eq(m->mesh_vertnum[0], 8);
  ck_assert_int_eq(m->mesh_facenum[0], 12); /* 6 quads, fan-triangulated */
  ck_assert_int_eq(m->mesh_hullnum[0], 8);
  ck_assert_int_eq(m->geom_type[0], IMP_GEOM_MESH);
  ck_assert_int_eq(m->geom_dataid[0], 0);
  /* a 1 m^3 cube of density 1000: 1000 kg, moments m (1 + 1) / 12 */
  imp_assert_near(m->body_mass[1], 1000, 1e-9);
  for (int i = 0; i < 3; i++) imp_assert_near(m->body_inertia[3 + i], 1000.0 / 6, 1e-9);
  double centre[3] = {1.5, 2.5, 3.5};
  imp_assert_vec_near(m->body_ipos + 3, centre, 3, TOL);
  /* the mesh frame sits at the centroid: vertices are the cube's corners
     +-0.5, the bounding sphere half the diagonal, the box centred */
  imp_assert_near(m->geom_rbound[0], sqrt(3) / 2, TOL);
  double aabb[6] = {0, 0, 0, 0.5, 0.5, 0.5};
  imp_assert_vec_near(m->geom_aabb, aabb, 6, TOL);
  for (int v = 0; v < 8; v++)
    for (int i = 0; i < 3; i++) imp_assert_near(fabs(m->mesh_vert[3 * v + i]), 0.5, TOL);
  imp_data* d = imp_make_data(m);
  imp_kinematics(m, d);
  double world[3] = {1.5, 2.5, 4.5};
  imp_assert_vec_near(d->geom_xpos, world, 3, TOL);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* the faces are outward: every face normal points away from the centroid */
START_TEST(obj_faces_are_outward_and_hull_indices_local) {
  imp_model* m = load_in(DATA_DIR,
                         "<mujoco><asset><mesh file='mesh_cube_offset.obj'/>"
                         "<mesh name='t' file='mesh_tetra.stl'/></asset><worldbody>"
                         "<geom type='mesh' mesh='t'/><geom type='mesh' mesh='mesh_cube_offset'/>"
                         "</worldbody></mujoco>");
  for (int k = 0; k < m->nmesh; k++) {
    const double* V = m->mesh_vert + 3 * m->mesh_vertadr[k];
    for (int f = 0; f < m->mesh_facenum[k]; f++) {
      const int* F = m->mesh_face + 3 * (m->mesh_faceadr[k] + f);
      double e1[3], e2[3], n[3], s[3];
      for (int i = 0; i < 3; i++) {
        e1[i] = V[3 * F[1] + i] - V[3 * F[0] + i];
        e2[i] = V[3 * F[2] + i] - V[3 * F[0] + i];
        s[i] = V[3 * F[0] + i] + V[3 * F[1] + i] + V[3 * F[2] + i];
      }
      n[0] = e1[1] * e2[2] - e1[2] * e2[1];
      n[1] = e1[2] * e2[0] - e1[0] * e2[2];
      n[2] = e1[0] * e2[1] - e1[1] * e2[0];
      ck_assert_msg(n[0] * s[0] + n[1] * s[1] + n[2] * s[2] > 0, "mesh %d face %d inward", k, f);
    }
    for (int h = 0; h < m->mesh_hullnum[k]; h++) {
      int v = m->mesh_hull[m->mesh_hulladr[k] + h];
      ck_assert(v >= 0 && v < m->mesh_vertnum[k]);
    }
  }
  imp_free_model(m);
}
END_TEST

/* A closed solid: a 2 x 1 rectangle of two quads (fan-triangulated) over
   an apex below. The quads' shared edge is a seam: vertices 2 and 3 have
   different texture coordinates on each quad, as the mug's texture has
   where its picture wraps. Items mix v/vt and v/vt/vn and count back
   from the end (-1). */
static const char* seam_obj =
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\nv 1 .5 -1\n"
    "vt 0 0\nvt .5 0\nvt .5 1\nvt 0 1\nvt .25 .125\nvt .75 .5 .9\nvt 1 1\nvt .6 .4\nvn 0 0 1\n"
    "f 1/1 2/2/1 3/3 4/4\n"
    "f 2/5 5/6 6/7 3/-1\n"
    "f 2/2 1/1 7/8\nf 5/6 2/2 7/8\nf 6/7 5/6 7/8\nf 3/3 6/7 7/8\nf 4/4 3/3 7/8\nf 1/1 4/4 7/8\n";

/* the file's (u, v) of each corner of each triangle, fans expanded */
static const int seam_corners[][3] = {{1, 2, 3}, {1, 3, 4}, {5, 6, 7}, {5, 7, 8}, {2, 1, 8},
                                      {6, 2, 8}, {7, 6, 8}, {3, 7, 8}, {4, 3, 8}, {1, 4, 8}};
static const double seam_vt[][2] = {{0, 0},      {.5, 0},  {.5, 1}, {0, 1},
                                    {.25, .125}, {.75, .5}, {1, 1}, {.6, .4}};

/* corner k of face f of mesh 0: its texture coordinate in the model */
static const float* corner_uv(const imp_model* m, int f, int k) {
  int t = m->mesh_facetexcoord[3 * (m->mesh_faceadr[0] + f) + k];
  ck_assert(t >= 0 && t < m->mesh_texcoordnum[0]);
  return m->mesh_texcoord + 2 * (m->mesh_texcoordadr[0] + t);
}

START_TEST(obj_texture_coordinates_per_corner) {
  write_text("mesh_seam.obj", seam_obj);
  char xml[1024];
  one_mesh_xml(xml, sizeof xml, "mesh_seam.obj", "", "");
  imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->mesh_facenum[0], 10);
  ck_assert_int_eq(m->nmeshtexcoord, 8);
  ck_assert_int_eq(m->mesh_texcoordadr[0], 0);
  /* each corner has its file's (u, v), with v as MuJoCo 2.2.2 keeps it: 1 - v
     (measured from the image's top row); the seam's two sides differ */
  for (int f = 0; f < 10; f++)
    for (int k = 0; k < 3; k++) {
      const double* want = seam_vt[seam_corners[f][k] - 1];
      const float* uv = corner_uv(m, f, k);
      ck_assert_msg(uv[0] == (float)want[0] && uv[1] == (float)(1 - want[1]),
                    "face %d corner %d: (%g, %g), file (%g, %g)", f, k, uv[0], uv[1], want[0],
                    want[1]);
    }
  ck_assert(corner_uv(m, 0, 1)[0] != corner_uv(m, 2, 0)[0]); /* vertex 2 on either side */
  imp_free_model(m);
  /* mirrored (negative scale): faces turn to stay outward, each corner keeps its own */
  one_mesh_xml(xml, sizeof xml, "mesh_seam.obj", "scale='-1 1 1'", "");
  m = load_in(IMP_TEST_TMPDIR, xml);
  for (int f = 0; f < 10; f++) {
    static const int turned[3] = {0, 2, 1};
    for (int k = 0; k < 3; k++) {
      const double* want = seam_vt[seam_corners[f][turned[k]] - 1];
      ck_assert(corner_uv(m, f, k)[0] == (float)want[0]);
      ck_assert(corner_uv(m, f, k)[1] == (float)(1 - want[1]));
    }
  }
  imp_free_model(m);
  /* a second mesh without texture coordinates: none, and the first keeps its own */
  write_text("mesh_plain.obj",
             "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  m = load_in(IMP_TEST_TMPDIR,
              "<mujoco><asset><mesh file='mesh_plain.obj'/><mesh file='mesh_seam.obj'/></asset>"
              "<worldbody><geom type='mesh' mesh='mesh_plain'/><geom type='mesh' "
              "mesh='mesh_seam'/></worldbody></mujoco>");
  ck_assert(m->mesh_texcoordadr[0] == -1 && m->mesh_texcoordnum[0] == 0);
  ck_assert(m->mesh_texcoordadr[1] == 0 && m->mesh_texcoordnum[1] == 8);
  for (int k = 0; k < 3 * m->mesh_facenum[0]; k++) ck_assert_int_eq(m->mesh_facetexcoord[k], -1);
  int f0 = m->mesh_faceadr[1];
  ck_assert(m->mesh_texcoord[2 * m->mesh_facetexcoord[3 * f0 + 2] + 1] == (float)(1 - 1.0));
  imp_free_model(m);
  /* only some corners named (the last face's apex has none): drawn with a
     2D texture, a warning at the <mesh> naming the file and the count */
  char partial[1024];
  snprintf(partial, sizeof partial, "%.*s7\n", (int)(strlen(seam_obj) - 4), seam_obj);
  write_text("mesh_partial.obj", partial);
  m = load_in(IMP_TEST_TMPDIR,
              "<mujoco>\n<asset><texture name='t' type='2d' builtin='checker' width='8' "
              "height='8'/><material name='t' texture='t'/>\n<mesh file='mesh_partial.obj'/>"
              "</asset><worldbody><geom type='mesh' mesh='mesh_partial' material='t'/>"
              "</worldbody></mujoco>");
  ck_assert_int_eq(m->nmeshtexcoord, 0);
  ck_assert_msg(m->warnings && strstr(m->warnings, "t.xml:3: warning: mesh 'mesh_partial'") &&
                    strstr(m->warnings, "mesh_partial.obj") &&
                    strstr(m->warnings, "1 face corners have no texture coordinate"),
                "%s", m->warnings ? m->warnings : "(none)");
  imp_free_model(m);
  /* the same without a texture: nothing drawn differently, nothing to say */
  m = load_in(IMP_TEST_TMPDIR,
              "<mujoco><asset><mesh file='mesh_partial.obj'/></asset><worldbody>"
              "<geom type='mesh' mesh='mesh_partial'/></worldbody></mujoco>");
  imp_test_no_warnings(m);
  imp_free_model(m);
}
END_TEST

/* binary STL box with half sizes (1.5, 1, 0.5): corners merged, mass 6000,
   principal moments m (b^2 + c^2) / 3 ...: 6500 (about z), 5000, 2500; the
   geom's first axis is the file's z (largest moment first, as MuJoCo) */
START_TEST(binary_stl_box_principal_axes) {
  double c[3] = {0.25, 0.5, -0.75}, h[3] = {1.5, 1, 0.5};
  write_box_stl("mesh_good_box.STL", c, h);
  imp_model* m = load_in(IMP_TEST_TMPDIR,
                         "<mujoco><asset><mesh file='mesh_good_box.STL'/></asset><worldbody>"
                         "<body><freejoint/><geom type='mesh' mesh='mesh_good_box'/></body>"
                         "</worldbody></mujoco>");
  ck_assert_int_eq(m->mesh_vertnum[0], 8); /* 36 corners, 8 distinct */
  ck_assert_int_eq(m->mesh_facenum[0], 12);
  ck_assert_int_eq(m->mesh_hullnum[0], 8);
  imp_assert_near(m->body_mass[1], 6000, 1e-8);
  double I[3] = {6500, 5000, 2500};
  imp_assert_vec_near(m->body_inertia + 3, I, 3, 1e-8);
  double T[9], D[9] = {2500, 0, 0, 0, 5000, 0, 0, 0, 6500};
  body_tensor(m, 1, T);
  imp_assert_vec_near(T, D, 9, 1e-8);
  imp_data* d = imp_make_data(m);
  imp_kinematics(m, d);
  imp_assert_vec_near(d->geom_xpos, c, 3, TOL);
  imp_assert_near(fabs(d->geom_xmat[6]), 1, TOL); /* column 0 = +-z */
  double half[3] = {0.5, 1, 1.5};
  imp_assert_vec_near(m->geom_aabb + 3, half, 3, TOL);
  imp_assert_near(m->geom_rbound[0], sqrt(1.5 * 1.5 + 1 + 0.25), TOL);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* a mirroring scale keeps the surface outward: the mass stays positive */
START_TEST(scale_multiplies_the_volume) {
  double c[3] = {0, 0, 0}, h[3] = {0.5, 0.5, 0.5};
  write_box_stl("mesh_unit.stl", c, h);
  imp_model* m = load_in(IMP_TEST_TMPDIR,
                         "<mujoco><default><mesh scale='2 2 2'/></default><asset>"
                         "<mesh name='a' file='mesh_unit.stl' scale='2 3 -1'/>"
                         "<mesh name='b' file='mesh_unit.stl'/></asset><worldbody>"
                         "<body><freejoint/><geom type='mesh' mesh='a'/></body>"
                         "<body><freejoint/><geom type='mesh' mesh='b'/></body></worldbody></mujoco>");
  imp_test_no_warnings(m);
  imp_assert_near(m->body_mass[1], 6000, 1e-9);
  imp_assert_near(m->body_mass[2], 8000, 1e-9); /* the class scale 2 2 2 */
  imp_free_model(m);
}
END_TEST

/* ASCII STL tetrahedron (0,0,0), e1, e2, e3, scaled by 2: V = 8/6, centroid
   (0.5, 0.5, 0.5); central second moments 1000 x (0.2 diagonal, -1/15 off
   diagonal) give moments 1600/3 about (1,1,1) and 1000/3 twice */
START_TEST(ascii_stl_tetrahedron) {
  imp_model* m = load_in(DATA_DIR,
                         "<mujoco><asset><mesh file='mesh_tetra.stl' scale='2 2 2'/></asset>"
                         "<worldbody><body><freejoint/><geom type='mesh' mesh='mesh_tetra'/></body>"
                         "</worldbody></mujoco>");
  ck_assert_int_eq(m->mesh_vertnum[0], 4);
  ck_assert_int_eq(m->mesh_facenum[0], 4);
  ck_assert_int_eq(m->mesh_hullnum[0], 4);
  imp_assert_near(m->body_mass[1], 4000.0 / 3, 1e-9);
  double I[3] = {1600.0 / 3, 1000.0 / 3, 1000.0 / 3}, com[3] = {0.5, 0.5, 0.5};
  imp_assert_vec_near(m->body_inertia + 3, I, 3, 1e-9);
  imp_assert_vec_near(m->body_ipos + 3, com, 3, TOL);
  double R[9];
  imp_quat2mat(R, m->geom_quat);
  for (int i = 0; i < 3; i++) imp_assert_near(fabs(R[3 * i]), 1 / sqrt(3), 1e-12);
  imp_assert_near(m->geom_rbound[0], sqrt(2.75), TOL); /* (2,0,0) from the centroid */
  imp_free_model(m);
}
END_TEST

/* a geom's own pos and orientation act on the mesh as written in the file */
START_TEST(geom_frame_composes_with_mesh_frame) {
  imp_model* m = load_in(DATA_DIR,
                         "<mujoco><asset><mesh file='mesh_cube_offset.obj'/></asset><worldbody>"
                         "<geom type='mesh' mesh='mesh_cube_offset' pos='1 0 0' euler='0 0 90'/>"
                         "</worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_kinematics(m, d);
  double e[3] = {1 - 2.5, 1.5, 3.5}; /* (1,0,0) + Rz(90) (1.5, 2.5, 3.5) */
  imp_assert_vec_near(d->geom_xpos, e, 3, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* a geom mass overrides the density: the unit cube at 3 kg has moments 0.5 */
START_TEST(geom_mass_sets_mesh_density) {
  imp_model* m = load_in(DATA_DIR,
                         "<mujoco><asset><mesh file='mesh_cube_offset.obj'/></asset><worldbody>"
                         "<body><freejoint/><geom type='mesh' mesh='mesh_cube_offset' mass='3'/>"
                         "</body></worldbody></mujoco>");
  imp_assert_near(m->body_mass[1], 3, TOL);
  for (int i = 0; i < 3; i++) imp_assert_near(m->body_inertia[3 + i], 0.5, 1e-12);
  imp_free_model(m);
}
END_TEST

/* The unit cube's eight vertices with faces wound two ways, as the two
   tests below use them ("open" and "inverted", see their comments), into
   the files open_name and inverted_name */
static void write_open_and_inverted_cubes(const char* open_name, const char* inverted_name) {
  static const char* cube_v = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";
  char open[512], inverted[512];
  snprintf(open, sizeof open,
           "%sf 2 3 4 1\nf 5 6 7 8\nf 5 6 2 1\nf 2 3 7 6\nf 7 8 4 3\nf 4 1 5 8\n", cube_v);
  snprintf(inverted, sizeof inverted,
           "%sf 2 3 4 1\nf 8 7 6 5\nf 5 6 2 1\nf 6 7 3 2\nf 7 8 4 3\nf 8 5 1 4\n", cube_v);
  write_text(open_name, open);
  write_text(inverted_name, inverted);
}

/* a box with three faces turned inward (volume 0) and an inside-out box,
   under inertia="exact": mass properties from the hull with a warning
   naming the file. (An open surface whose volume still comes out positive
   is taken as it is, as in MuJoCo 2.2.2.) Under the default "legacy" every
   pyramid counts unsigned, so both are the unit cube they enclose, with no
   warning (legacy_counts_pyramids_unsigned). */
START_TEST(open_or_inverted_mesh_uses_hull_with_warning) {
  write_open_and_inverted_cubes("mesh_open.obj", "mesh_inverted.obj");
  imp_model* m = load_in(IMP_TEST_TMPDIR,
                         "<mujoco><default><mesh inertia='exact'/></default>\n"
                         "<asset><mesh file='mesh_open.obj'/>\n"
                         "<mesh file='mesh_inverted.obj'/></asset><worldbody>"
                         "<body><freejoint/><geom type='mesh' mesh='mesh_open'/></body>"
                         "<body><freejoint/><geom type='mesh' mesh='mesh_inverted'/></body>"
                         "</worldbody></mujoco>");
  ck_assert_int_eq(m->nwarning, 2);
  ck_assert_msg(strstr(m->warnings, "t.xml:2: warning: mesh 'mesh_open'") &&
                    strstr(m->warnings, "mesh_open.obj") && strstr(m->warnings, "t.xml:3:"),
                "%s", m->warnings);
  imp_assert_near(m->body_mass[1], 1000, 1e-9);
  imp_assert_near(m->body_mass[2], 1000, 1e-9);
  ck_assert_int_eq(m->mesh_facenum[0], 12); /* the file's faces are kept */
  imp_free_model(m);
}
END_TEST

/* A U-shaped prism, 3 x 2 x 1 with a 1 x 1 notch (exact volume 5, centre
   of mass x 1.5, y 0.9, z 0.5), faces outward; its caps are cut into
   rectangles with corners on the notch's edge (watertight: the side faces
   follow the same ten-corner outline). */
static const char* k_u_prism =
    "v 0 0 0\nv 3 0 0\nv 3 1 0\nv 3 2 0\nv 2 2 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nv 0 1 0\n"
    "v 0 0 1\nv 3 0 1\nv 3 1 1\nv 3 2 1\nv 2 2 1\nv 2 1 1\nv 1 1 1\nv 1 2 1\nv 0 2 1\nv 0 1 1\n"
    "f 11 12 13\nf 11 13 20\nf 20 17 18\nf 20 18 19\nf 16 13 14\nf 16 14 15\n"
    "f 1 3 2\nf 1 10 3\nf 10 8 7\nf 10 9 8\nf 6 4 3\nf 6 5 4\n"
    "f 1 2 12 11\nf 2 3 13 12\nf 3 4 14 13\nf 4 5 15 14\nf 5 6 16 15\nf 6 7 17 16\n"
    "f 7 8 18 17\nf 8 9 19 18\nf 9 10 20 19\nf 10 1 11 20\n";

/* <mesh inertia="legacy">, MuJoCo's default (MJCF reference: "leads to
   volume overcounting for non-convex meshes"): pyramids from a common apex
   counted unsigned. A convex surface seen from inside is exact (the unit
   cube, also inside out or with faces turned in: 1 m^3, no warning); the
   U's notch faces look away from the apex and add volume instead of
   cancelling it. inertia="exact" and compiler exactmeshinertia="true" give
   the true solid. */
START_TEST(legacy_counts_pyramids_unsigned) {
  write_open_and_inverted_cubes("legacy_open.obj", "legacy_inverted.obj");
  write_text("legacy_u.obj", k_u_prism);
  static const char* body3 =
      "<worldbody><body><freejoint/><geom type='mesh' mesh='o'/></body>"
      "<body><freejoint/><geom type='mesh' mesh='i'/></body>"
      "<body><freejoint/><geom type='mesh' mesh='u'/></body>"
      "<body><freejoint/><geom type='mesh' mesh='ue'/></body></worldbody></mujoco>";
  char xml[2048];
  snprintf(xml, sizeof xml,
           "<mujoco><asset><mesh name='o' file='legacy_open.obj'/>"
           "<mesh name='i' file='legacy_inverted.obj'/><mesh name='u' file='legacy_u.obj'/>"
           "<mesh name='ue' file='legacy_u.obj' inertia='exact'/></asset>%s",
           body3);
  imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
  imp_test_no_warnings(m);
  imp_assert_near(m->body_mass[1], 1000, 1e-9);
  imp_assert_near(m->body_mass[2], 1000, 1e-9);
  double exact_com[3] = {1.5, 0.9, 0.5};
  imp_assert_near(m->body_mass[4], 5000, 1e-9);
  imp_assert_vec_near(m->body_ipos + 12, exact_com, 3, 1e-12);
  ck_assert_msg(m->body_mass[3] > 5100, "legacy U: %g kg, not more than its solid's 5000",
                m->body_mass[3]);
  ck_assert_msg(fabs(m->body_ipos[10] - 0.9) > 0.01, "legacy U: centre y %g", m->body_ipos[10]);
  imp_assert_near(m->body_ipos[9], 1.5, 1e-12); /* the U's mirror plane x = 1.5 */
  imp_free_model(m);

  snprintf(xml, sizeof xml,
           "<mujoco><compiler exactmeshinertia='true'/><asset>"
           "<mesh name='o' file='legacy_open.obj' inertia='convex'/>"
           "<mesh name='i' file='legacy_inverted.obj' inertia='convex'/>"
           "<mesh name='u' file='legacy_u.obj'/><mesh name='ue' file='legacy_u.obj'/></asset>%s",
           body3);
  m = load_in(IMP_TEST_TMPDIR, xml);
  imp_assert_near(m->body_mass[3], 5000, 1e-9);
  imp_assert_vec_near(m->body_ipos + 9, exact_com, 3, 1e-12);
  imp_free_model(m);
}
END_TEST

/* <mesh refpos refquat>: the file's vertices are given in the frame at
   refpos turned by refquat (MJCF reference: refpos is subtracted, the
   conjugate of refquat rotates), and scale applies after: v <- scale
   (R(refquat)' (v - refpos)). convex_box.obj (0.2 x 0.4 x 0.6, centred at
   the origin) with refpos (1, 2, 3), refquat a quarter turn about z given
   unnormalised (1 0 0 1) and scale (2, 1, 1): its centre goes to
   R'(-1, -2, -3) = (-2, 1, -3) and then (-4, 1, -3), its sides become
   0.8 x 0.2 x 0.6 along x, y, z (96 kg), and its tensor in the body frame
   is diag(m (0.2^2 + 0.6^2), m (0.8^2 + 0.6^2), m (0.8^2 + 0.2^2)) / 12. */
START_TEST(refpos_refquat_place_the_vertices) {
  imp_model* m = load_in(IMP_TEST_TMPDIR,
                         "<mujoco><asset><mesh name='b' file='" DATA_DIR "/convex_box.obj' "
                         "refpos='1 2 3' refquat='1 0 0 1' scale='2 1 1'/></asset><worldbody>"
                         "<body><freejoint/><geom type='mesh' mesh='b'/></body>"
                         "</worldbody></mujoco>");
  imp_test_no_warnings(m);
  double com[3] = {-4, 1, -3}, T[9], expect[9] = {0};
  imp_assert_near(m->body_mass[1], 96, 1e-9);
  imp_assert_vec_near(m->body_ipos + 3, com, 3, 1e-12);
  expect[0] = 96 * (0.04 + 0.36) / 12;
  expect[4] = 96 * (0.64 + 0.36) / 12;
  expect[8] = 96 * (0.64 + 0.04) / 12;
  body_tensor(m, 1, T);
  imp_assert_vec_near(T, expect, 9, 1e-12);
  imp_free_model(m);
  expect_mesh_error("<mujoco>\n<asset><mesh file='" DATA_DIR "/convex_box.obj' refquat='0 0 0 0'/>"
                    "</asset></mujoco>",
                    2, NULL, "refquat a finite non-zero quaternion");
}
END_TEST

/* an interior vertex is a mesh vertex but not a hull vertex */
START_TEST(hull_leaves_out_interior_vertices) {
  write_text("mesh_inner.obj",
             "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0.1 0.1 0.1\n"
             "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  imp_model* m = load_in(IMP_TEST_TMPDIR,
                         "<mujoco><asset><mesh file='mesh_inner.obj'/></asset><worldbody>"
                         "<geom type='mesh' mesh='mesh_inner'/></worldbody></mujoco>");
  ck_assert_int_eq(m->mesh_vertnum[0], 5);
  ck_assert_int_eq(m->mesh_hullnum[0], 4);
  for (int h = 0; h < 4; h++) ck_assert_int_ne(m->mesh_hull[h], 4);
  imp_free_model(m);
}
END_TEST

/* names from the file name, name lookup, resolved paths, meshdir/assetdir */
START_TEST(names_paths_and_directories) {
  imp_model* m = load_in(IMP_MODELS_DIR "/..",
                         "<mujoco><compiler assetdir='models' meshdir='test/data'/><asset>"
                         "<mesh file='mesh_cube_offset.obj'/><mesh name='tet' file='mesh_tetra.stl'/>"
                         "</asset><worldbody><geom type='mesh' mesh='tet'/></worldbody></mujoco>");
  ck_assert_int_eq(m->nmesh, 2);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_MESH, "mesh_cube_offset"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_MESH, "tet"), 1);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_MESH, 1), "tet");
  ck_assert_int_eq(m->geom_dataid[0], 1);
  const char* p = m->paths + m->mesh_pathadr[1];
  ck_assert_msg(strstr(p, "test/data/mesh_tetra.stl") != NULL, "%s", p);
  imp_free_model(m);
}
END_TEST

/* the scene of models/ with a mesh loads without warnings and falls */
START_TEST(mesh_drop_scene_loads) {
  imp_model* m = imp_test_load_model("mesh_drop.xml");
  ck_assert_int_eq(m->nmesh, 1);
  int g = imp_test_id(m, IMP_OBJ_GEOM, "wedge");
  ck_assert_int_eq(m->geom_type[g], IMP_GEOM_MESH);
  ck_assert(m->body_mass[m->geom_bodyid[g]] > 0);
  imp_free_model(m);
}
END_TEST

/* A flat mesh (a 0.2 x 0.1 rectangle at z = 0.5, off the origin) loads:
   placed in the frame of its surface (centroid, principal axes: the normal
   first, as it has the largest moment, then the short side), its hull the
   rectangle's corners. It has no volume, which only matters to a geom that
   would take mass from it (Menagerie's hello_robot_stretch, adam_lite: flat
   logos drawn on the robots); such a geom is an error at its own line. */
START_TEST(flat_mesh_loads_and_gives_no_mass) {
  write_text("mesh_flat.obj", "v 1.0 2.0 0.5\nv 1.2 2.0 0.5\nv 1.2 2.1 0.5\nv 1.0 2.1 0.5\n"
                              "f 1 2 3\nf 1 3 4\n");
  imp_model* m = load_in(IMP_TEST_TMPDIR,
                         "<mujoco><compiler inertiagrouprange='0 2'/>\n"
                         "<asset><mesh name='f' file='mesh_flat.obj'/></asset><worldbody>\n"
                         "<geom name='world' type='mesh' mesh='f'/>\n"
                         "<body><freejoint/><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
                         "<geom type='mesh' mesh='f'/></body>\n"
                         "<body><freejoint/><geom size='.1'/><geom type='mesh' mesh='f' group='3'/>"
                         "<geom type='mesh' mesh='f' density='0'/><geom type='mesh' mesh='f' mass='0'/>"
                         "</body>\n</worldbody></mujoco>");
  imp_test_no_warnings(m);
  int g = imp_test_id(m, IMP_OBJ_GEOM, "world");
  double pos[3] = {1.1, 2.05, 0.5}, size[3] = {0, 0.05, 0.1};
  imp_assert_vec_near(m->geom_pos + 3 * g, pos, 3, TOL);
  imp_assert_vec_near(m->geom_size + 3 * g, size, 3, TOL);
  ck_assert_int_eq(m->mesh_hullnum[0], 4);
  imp_assert_near(m->body_mass[2], 4.0 / 3.0 * IMP_PI * 1e-3 * 1000, 1e-9); /* the ball only */
  imp_free_model(m);
  /* a geom that would have mass: the error names the geom's line and the mesh */
  char xml[1024];
  one_mesh_xml(xml, sizeof xml, "mesh_flat.obj", "", "");
  expect_mesh_error(xml, 3, "mesh_flat.obj", "is flat, with no volume");
  /* vertices on a line have no plane either */
  write_text("mesh_line.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nf 1 2 3\nf 2 3 4\n");
  one_mesh_xml(xml, sizeof xml, "mesh_line.obj", "", "");
  expect_mesh_error(xml, 2, "mesh_line.obj", "all on a line");
}
END_TEST

/* <mesh inertia=...>: "shell" puts the mass on the surface (density per
   area), so a flat mesh can have mass: the rectangle is a thin plate of
   20 kg, moments m (a^2 + b^2) / 12 about its normal, m a^2 / 12 and
   m b^2 / 12 in its plane (a, b its sides); a closed box shell weighs
   density x area. "convex" takes the hull without the warning an open
   surface gives otherwise, and that warning waits for a geom with mass. */
START_TEST(mesh_inertia_shell_and_convex) {
  imp_model* m = load_in(IMP_TEST_TMPDIR,
                         "<mujoco><default><mesh inertia='shell'/></default><asset>"
                         "<mesh name='f' file='mesh_flat.obj'/>"
                         "<mesh name='b' file='" IMP_MODELS_DIR "/../test/data/convex_box.obj'/>"
                         "</asset><worldbody>"
                         "<body><freejoint/><geom type='mesh' mesh='f'/></body>"
                         "<body><freejoint/><geom type='mesh' mesh='b'/></body>"
                         "</worldbody></mujoco>");
  imp_test_no_warnings(m);
  double I[3] = {20 * 0.05 / 12, 20 * 0.04 / 12, 20 * 0.01 / 12};
  imp_assert_near(m->body_mass[1], 20, 1e-9);
  imp_assert_vec_near(m->body_inertia + 3, I, 3, 1e-12);
  imp_assert_near(m->body_mass[2], 1000 * 2 * (0.2 * 0.4 + 0.2 * 0.6 + 0.4 * 0.6), 1e-9);
  imp_free_model(m);

  static const char* cube_v = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";
  char open[512];
  snprintf(open, sizeof open,
           "%sf 2 3 4 1\nf 5 6 7 8\nf 5 6 2 1\nf 2 3 7 6\nf 7 8 4 3\nf 4 1 5 8\n", cube_v);
  write_text("mesh_open2.obj", open);
  m = load_in(IMP_TEST_TMPDIR,
              "<mujoco><asset><mesh name='c' file='mesh_open2.obj' inertia='convex'/>"
              "<mesh name='o' file='mesh_open2.obj'/></asset><worldbody>"
              "<body><freejoint/><geom type='mesh' mesh='c'/></body>"
              "<geom type='mesh' mesh='o'/></worldbody></mujoco>");
  imp_test_no_warnings(m); /* 'o' gives no mass: it is in the world body */
  imp_assert_near(m->body_mass[1], 1000, 1e-9);
  imp_free_model(m);
}
END_TEST

static Suite* mesh_suite(void) {
  Suite* s = suite_create("mesh");
  TCase* t = tcase_create("good");
  tcase_add_test(t, obj_cube_mass_frame_and_placement);
  tcase_add_test(t, obj_faces_are_outward_and_hull_indices_local);
  tcase_add_test(t, obj_texture_coordinates_per_corner);
  tcase_add_test(t, binary_stl_box_principal_axes);
  tcase_add_test(t, scale_multiplies_the_volume);
  tcase_add_test(t, ascii_stl_tetrahedron);
  tcase_add_test(t, geom_frame_composes_with_mesh_frame);
  tcase_add_test(t, geom_mass_sets_mesh_density);
  tcase_add_test(t, open_or_inverted_mesh_uses_hull_with_warning);
  tcase_add_test(t, legacy_counts_pyramids_unsigned);
  tcase_add_test(t, refpos_refquat_place_the_vertices);
  tcase_add_test(t, hull_leaves_out_interior_vertices);
  tcase_add_test(t, flat_mesh_loads_and_gives_no_mass);
  tcase_add_test(t, mesh_inertia_shell_and_convex);
  tcase_add_test(t, names_paths_and_directories);
  tcase_add_test(t, mesh_drop_scene_loads);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mesh_suite()); }
