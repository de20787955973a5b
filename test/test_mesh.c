/* Tests of mesh assets (model/mesh.c and the loader around it): each file
 * format, the convex hull, the mass frame (volume-derived mass and principal
 * moments against the analytic solids, the geom placed where the file put
 * it), names, paths, defaults, and every broken file giving an error that
 * names the mesh file and the <mesh> element's line. Good meshes are in
 * test/data/ or written by the test (binary STL); broken ones are written
 * into IMP_TEST_TMPDIR. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "impetus.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

#ifndef IMP_TEST_TMPDIR
#define IMP_TEST_TMPDIR "."
#endif
#define DATA_DIR IMP_MODELS_DIR "/../test/data"
#define TOL 1e-12

static char g_err[1000];

/* load text named "t.xml" with meshes resolved against dir; fail on error */
static imp_model* load_in(const char* dir, const char* xml) {
  imp_model* m = imp_load_xml_string(xml, dir, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  return m;
}

static void write_file(const char* name, const void* data, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", IMP_TEST_TMPDIR, name);
  FILE* f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert_uint_eq(fwrite(data, 1, n, f), n);
  fclose(f);
}

static void write_text(const char* name, const char* text) { write_file(name, text, strlen(text)); }

/* binary STL of an axis-aligned box: 12 triangles, outward, 36 corners */
static void write_box_stl(const char* name, const double c[3], const double h[3]) {
  static const int quads[6][4][3] = {
      {{-1, -1, -1}, {-1, 1, -1}, {1, 1, -1}, {1, -1, -1}}, {{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}},
      {{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, {-1, -1, 1}}, {{-1, 1, -1}, {-1, 1, 1}, {1, 1, 1}, {1, 1, -1}},
      {{-1, -1, -1}, {-1, -1, 1}, {-1, 1, 1}, {-1, 1, -1}}, {{1, -1, -1}, {1, 1, -1}, {1, 1, 1}, {1, -1, 1}}};
  unsigned char buf[84 + 12 * 50];
  memset(buf, 0, sizeof buf);
  memcpy(buf, "binary box", 10);
  buf[80] = 12;
  unsigned char* p = buf + 84;
  for (int q = 0; q < 6; q++)
    for (int t = 0; t < 2; t++) {
      const int corner[3] = {0, t ? 2 : 1, t ? 3 : 2};
      p += 12; /* normal left zero */
      for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) {
          float x = (float)(c[i] + quads[q][corner[k]][i] * h[i]);
          memcpy(p, &x, 4); /* little-endian hosts (x86, arm64) */
          p += 4;
        }
      p += 2;
    }
  write_file(name, buf, sizeof buf);
}

/* the error must start with "t.xml:<line>:" and name the mesh file and what */
static void expect_mesh_error(const char* xml, int line, const char* file, const char* what) {
  imp_model* m = imp_load_xml_string(xml, IMP_TEST_TMPDIR, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m == NULL, "loaded although it should fail with '%s'", what);
  char prefix[64];
  snprintf(prefix, sizeof prefix, "t.xml:%d:", line);
  ck_assert_msg(!strncmp(g_err, prefix, strlen(prefix)), "error '%s' does not start with '%s'",
                g_err, prefix);
  if (file) ck_assert_msg(strstr(g_err, file) != NULL, "error '%s' does not name '%s'", g_err, file);
  ck_assert_msg(strstr(g_err, what) != NULL, "error '%s' does not mention '%s'", g_err, what);
}

/* one-mesh model text: <mesh file=file/> on line 2, a free body with it */
static void one_mesh_xml(char* out, size_t n, const char* file, const char* meshattr,
                         const char* geomattr) {
  snprintf(out, n,
           "<mujoco>\n<asset><mesh file='%s' %s/></asset>\n<worldbody><body><freejoint/>"
           "<geom type='mesh' mesh='%.*s' %s/></body></worldbody></mujoco>",
           file, meshattr, (int)(strrchr(file, '.') - file), file, geomattr);
}

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

/* ------------------------------------------------------ loading in threads */

/* Binary STL of a tessellated ellipsoid (radii r, nlat x nlon corners):
   2 nlon (nlat - 1) triangles, the whole surface written copies times, so
   loading spends its time merging the many repeated corners by sorting
   them (mesh.c merge_vertices), not in the hull. */
static void write_ellipsoid_stl(const char* name, const double r[3], int nlat, int nlon,
                                int copies) {
  int ntri = 2 * nlon * (nlat - 1) * copies;
  size_t n = 84 + 50 * (size_t)ntri;
  unsigned char* buf = calloc(1, n);
  ck_assert_ptr_nonnull(buf);
  buf[80] = (unsigned char)(ntri & 255);
  buf[81] = (unsigned char)(ntri >> 8 & 255);
  buf[82] = (unsigned char)(ntri >> 16 & 255);
  unsigned char* p = buf + 84;
  for (int copy = 0; copy < copies; copy++)
  for (int i = 0; i < nlat; i++)
    for (int j = 0; j < nlon; j++) {
      float c[4][3]; /* the quad's corners: (i, j), (i+1, j), (i+1, j+1), (i, j+1) */
      for (int k = 0; k < 4; k++) {
        int a = i + (k == 1 || k == 2), b = (j + (k >= 2)) % nlon;
        double th = IMP_PI * a / nlat, ph = 2 * IMP_PI * b / nlon;
        c[k][0] = (float)(r[0] * sin(th) * cos(ph));
        c[k][1] = (float)(r[1] * sin(th) * sin(ph));
        c[k][2] = (float)(r[2] * cos(th));
        /* -0 to +0: merging compares bits, and a pole's corners would stay apart */
        for (int d = 0; d < 3; d++) c[k][d] += 0.0f;
      }
      static const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
      for (int t = 0; t < 2; t++) {
        if ((i == 0 && t == 1) || (i == nlat - 1 && t == 0)) continue; /* degenerate at poles */
        p += 12; /* normal left zero */
        for (int k = 0; k < 3; k++) memcpy(p + 12 * k, c[tri[t][k]], 12);
        p += 38;
      }
    }
  ck_assert_uint_eq((size_t)(p - buf), n);
  write_file(name, buf, n);
  free(buf);
}

#define NTHREAD_MESH 4
#define NLOAD_PER_THREAD 12

typedef struct mesh_ref {
  char xml[512];
  int nvert, nface;
  double* vert;
  int* face;
  int mismatches; /* loads that failed or differed, counted by the thread */
} mesh_ref;

/* 1 when m's meshes equal ref's bit for bit */
static int same_mesh(const imp_model* m, const mesh_ref* ref) {
  return m->nmeshvert == ref->nvert && m->nmeshface == ref->nface &&
         !memcmp(m->mesh_vert, ref->vert, sizeof(double) * 3 * (size_t)ref->nvert) &&
         !memcmp(m->mesh_face, ref->face, sizeof(int) * 3 * (size_t)ref->nface);
}

static void* load_mesh_repeatedly(void* arg) {
  mesh_ref* ref = arg;
  for (int k = 0; k < NLOAD_PER_THREAD; k++) {
    char err[500];
    imp_model* m = imp_load_xml_string(ref->xml, IMP_TEST_TMPDIR, "t.xml", err, sizeof err);
    if (!m || !same_mesh(m, ref)) ref->mismatches++;
    imp_free_model(m);
  }
  return NULL;
}

/* Issue 15: loads in several threads at once each get exactly the mesh a
   single-threaded load gives (merging STL corners once sorted through a
   global: some concurrent loads got another thread's vertices). Each thread
   loads a different mesh, so any sharing shows. */
START_TEST(concurrent_loads_give_the_single_threaded_meshes) {
  mesh_ref ref[NTHREAD_MESH];
  for (int t = 0; t < NTHREAD_MESH; t++) {
    char name[64];
    snprintf(name, sizeof name, "thread_mesh%d.stl", t);
    double r[3] = {1 + 0.1 * t, 0.7 + 0.05 * t, 0.5 + 0.2 * t};
    /* different tessellations: sorting one mesh's corners by another's
       coordinates would not give the same order */
    write_ellipsoid_stl(name, r, 10 + t, 20 + 3 * t, 300);
    snprintf(ref[t].xml, sizeof ref[t].xml,
             "<mujoco><asset><mesh name='m' file='%s'/></asset><worldbody><body>"
             "<freejoint/><geom type='mesh' mesh='m'/></body></worldbody></mujoco>", name);
    imp_model* m = load_in(IMP_TEST_TMPDIR, ref[t].xml);
    ref[t].nvert = m->nmeshvert;
    ref[t].nface = m->nmeshface;
    ck_assert_int_le(ref[t].nvert, (11 + t) * (20 + 3 * t)); /* the copies' corners merged */
    ref[t].vert = malloc(sizeof(double) * 3 * (size_t)m->nmeshvert);
    ref[t].face = malloc(sizeof(int) * 3 * (size_t)m->nmeshface);
    memcpy(ref[t].vert, m->mesh_vert, sizeof(double) * 3 * (size_t)m->nmeshvert);
    memcpy(ref[t].face, m->mesh_face, sizeof(int) * 3 * (size_t)m->nmeshface);
    ref[t].mismatches = 0;
    imp_free_model(m);
  }
  pthread_t th[NTHREAD_MESH];
  for (int t = 0; t < NTHREAD_MESH; t++)
    ck_assert_int_eq(pthread_create(&th[t], NULL, load_mesh_repeatedly, &ref[t]), 0);
  for (int t = 0; t < NTHREAD_MESH; t++) pthread_join(th[t], NULL);
  int bad = 0;
  for (int t = 0; t < NTHREAD_MESH; t++) {
    bad += ref[t].mismatches;
    free(ref[t].vert);
    free(ref[t].face);
  }
  ck_assert_msg(bad == 0, "%d of %d concurrent loads failed or gave another mesh", bad,
                NTHREAD_MESH * NLOAD_PER_THREAD);
}
END_TEST

/* ---- loading and stepping on several threads ---- */

#define NSTEP_THREADS 150

/* Two bodies with STL meshes (written by the caller) dropped on a floor
   and onto each other: contacts from the first steps on. */
static void mesh_scene_xml(char* xml, size_t n, const char* stl) {
  snprintf(xml, n,
           "<mujoco><option timestep='0.002'/><asset><mesh name='m' file='%s' "
           "scale='0.1 0.1 0.1'/></asset><worldbody><geom type='plane' size='2 2 0.1'/>"
           "<body pos='0 0 0.12' euler='10 20 0'><freejoint/><geom type='mesh' mesh='m'/></body>"
           "<body pos='0.03 0.01 0.3' euler='0 30 40'><freejoint/><geom type='mesh' mesh='m'/>"
           "</body></worldbody></mujoco>",
           stl);
}

/* A stepping job: the model (loaded by the thread when xml is set), the
   data's threads, and the state after NSTEP_THREADS steps. */
typedef struct step_job {
  const char* xml;          /* load this (own model), or use `shared` */
  const imp_model* shared;
  int nthread;              /* imp_set_threads of the data */
  double qpos[14], qvel[12];
  int ncon_seen, failed;
} step_job;

static void* load_and_step(void* arg) {
  step_job* j = arg;
  char err[500] = "";
  imp_model* own = j->xml ? imp_load_xml_string(j->xml, IMP_TEST_TMPDIR, "t.xml", err, sizeof err)
                          : NULL;
  const imp_model* m = j->xml ? own : j->shared;
  imp_data* d = m ? imp_make_data(m) : NULL;
  if (!d || (j->nthread > 1 && imp_set_threads(m, d, j->nthread) != 0)) {
    j->failed = 1;
  } else {
    for (int s = 0; s < NSTEP_THREADS; s++) {
      imp_step(m, d);
      if (d->ncon > j->ncon_seen) j->ncon_seen = d->ncon;
    }
    memcpy(j->qpos, d->qpos, sizeof j->qpos);
    memcpy(j->qvel, d->qvel, sizeof j->qvel);
  }
  imp_free_data(d);
  imp_free_model(own);
  return NULL;
}

/* Issue 15: models with meshes loaded and stepped on several threads at
   once, each thread its own model and data, and several datas (one with
   its own island workers) on one shared model, end bitwise where a run on
   one thread ends. Run under ThreadSanitizer in CI (.ci/run). */
START_TEST(concurrent_load_and_step_is_bitwise_single_threaded) {
  enum { NOWN = 3, NSHARED = 3 };
  char xml[NOWN][700];
  step_job ref[NOWN], job[NOWN + NSHARED];
  for (int t = 0; t < NOWN; t++) {
    char name[64];
    snprintf(name, sizeof name, "step_mesh%d.stl", t);
    double r[3] = {1 + 0.1 * t, 0.8 + 0.05 * t, 0.6 + 0.1 * t};
    write_ellipsoid_stl(name, r, 6 + t, 10 + 2 * t, 20);
    mesh_scene_xml(xml[t], sizeof xml[t], name);
    ref[t] = (step_job){.xml = xml[t], .nthread = 1};
    load_and_step(&ref[t]); /* on this thread, alone */
    ck_assert(!ref[t].failed);
    ck_assert_msg(ref[t].ncon_seen >= 2, "mesh scene %d: only %d contacts", t, ref[t].ncon_seen);
  }
  imp_model* shared = load_in(IMP_TEST_TMPDIR, xml[0]);
  for (int t = 0; t < NOWN; t++) job[t] = (step_job){.xml = xml[t], .nthread = 1};
  for (int t = 0; t < NSHARED; t++)
    job[NOWN + t] = (step_job){.shared = shared, .nthread = t == 0 ? 2 : 1};
  pthread_t th[NOWN + NSHARED];
  for (int t = 0; t < NOWN + NSHARED; t++)
    ck_assert_int_eq(pthread_create(&th[t], NULL, load_and_step, &job[t]), 0);
  for (int t = 0; t < NOWN + NSHARED; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < NOWN + NSHARED; t++) {
    const step_job* want = &ref[t < NOWN ? t : 0];
    ck_assert_msg(!job[t].failed, "thread %d failed", t);
    ck_assert_msg(!memcmp(job[t].qpos, want->qpos, sizeof want->qpos) &&
                      !memcmp(job[t].qvel, want->qvel, sizeof want->qvel),
                  "thread %d did not end where one thread does", t);
  }
  imp_free_model(shared);
}
END_TEST


/* ---- maxhullvert: the collision hull capped (MJCF reference, asset/mesh
   maxhullvert) ---- */

/* An OBJ of two concentric latitude-longitude spheres of radii 1 and 0.5
   (poles included, nlat bands, nlon meridians): the inner shell's vertices
   are inside the hull. */
static void write_two_shells_obj(const char* name, int nlat, int nlon) {
  size_t cap = 200000, len = 0;
  char* buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  int nv = 2 + (nlat - 1) * nlon; /* vertices per shell */
  for (int shell = 0; shell < 2; shell++) {
    double r = shell ? 0.5 : 1;
    len += (size_t)snprintf(buf + len, cap - len, "v 0 0 %.17g\nv 0 0 %.17g\n", r, -r);
    for (int i = 1; i < nlat; i++)
      for (int j = 0; j < nlon; j++) {
        double th = IMP_PI * i / nlat, ph = 2 * IMP_PI * j / nlon;
        len += (size_t)snprintf(buf + len, cap - len, "v %.17g %.17g %.17g\n",
                                r * sin(th) * cos(ph), r * sin(th) * sin(ph), r * cos(th));
      }
  }
  for (int shell = 0; shell < 2; shell++) {
    int o = shell * nv + 1; /* OBJ indices from 1: north pole o, south o + 1 */
#define RING(i, j) (o + 2 + ((i) - 1) * nlon + ((j) % nlon))
    for (int j = 0; j < nlon; j++) {
      len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d\n", o, RING(1, j), RING(1, j + 1));
      len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d\n", o + 1, RING(nlat - 1, j + 1),
                              RING(nlat - 1, j));
      for (int i = 1; i < nlat - 1; i++)
        len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d %d\n", RING(i, j), RING(i + 1, j),
                                RING(i + 1, j + 1), RING(i, j + 1));
    }
#undef RING
  }
  ck_assert_uint_lt(len, cap - 1);
  write_file(name, buf, len);
  free(buf);
}

/* MuJoCo's meaning (its docs: qhull asked "to terminate after maxhullvert
   vertices"): a mesh whose hull has more vertices gets a hull of exactly
   maxhullvert of them; they are points of the full hull's surface (qhull
   adds the furthest point outside a facet, which is extreme in that
   facet's direction), so none of the inner shell; -1 and a cap above the
   hull's size change nothing. */
START_TEST(maxhullvert_caps_the_hull) {
  write_two_shells_obj("shells.obj", 12, 16); /* 178 vertices a shell */
  char xml[600];
  one_mesh_xml(xml, sizeof xml, "shells.obj", "", "");
  imp_model* full = load_in(IMP_TEST_TMPDIR, xml);
  ck_assert_int_eq(full->mesh_vertnum[0], 2 * 178);
  ck_assert_int_eq(full->mesh_hullnum[0], 178);
  const int caps[] = {4, 5, 9, 40, 177, 178, 500, -1};
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
    char attr[40];
    snprintf(attr, sizeof attr, "maxhullvert='%d'", caps[k]);
    one_mesh_xml(xml, sizeof xml, "shells.obj", attr, "");
    imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
    int n = m->mesh_hullnum[0];
    ck_assert_int_eq(n, caps[k] < 0 || caps[k] > 178 ? 178 : caps[k]);
    for (int h = 0; h < n; h++) {
      int v = m->mesh_hull[m->mesh_hulladr[0] + h];
      ck_assert(v >= 0 && v < m->mesh_vertnum[0]);
      if (h > 0) ck_assert_int_gt(v, m->mesh_hull[m->mesh_hulladr[0] + h - 1]); /* distinct */
      /* on the outer shell (the mesh frame is at the common centre) */
      const double* p = m->mesh_vert + 3 * (m->mesh_vertadr[0] + v);
      imp_assert_near(imp_norm3(p), 1, 1e-9);
    }
    /* the mass comes from the mesh's triangles, not from the hull */
    imp_assert_near(m->body_mass[1], full->body_mass[1], 1e-12 * full->body_mass[1]);
    imp_free_model(m);
  }
  imp_free_model(full);
  /* a flat mesh (MuJoCo refuses it; its hull is its outline here): the cap
     applies to the outline, points of its rim, not the disc's centre */
  char obj[4000];
  size_t len = (size_t)snprintf(obj, sizeof obj, "v 0 0 0\n");
  for (int i = 0; i < 40; i++)
    len += (size_t)snprintf(obj + len, sizeof obj - len, "v %.17g %.17g 0\n",
                            cos(2 * IMP_PI * i / 40), sin(2 * IMP_PI * i / 40));
  for (int i = 0; i < 40; i++)
    len += (size_t)snprintf(obj + len, sizeof obj - len, "f 1 %d %d\n", 2 + i, 2 + (i + 1) % 40);
  write_text("disc.obj", obj);
  imp_model* m = load_in(IMP_TEST_TMPDIR, "<mujoco><asset><mesh file='disc.obj' maxhullvert='6'/>"
                                          "</asset><worldbody><geom type='mesh' mesh='disc'/>"
                                          "</worldbody></mujoco>");
  ck_assert_int_eq(m->mesh_hullnum[0], 6);
  for (int h = 0; h < 6; h++)
    imp_assert_near(imp_norm3(m->mesh_vert + 3 * m->mesh_hull[h]), 1, 1e-9);
  imp_free_model(m);
}
END_TEST

/* inertia="convex" takes the hull's solid, as MuJoCo's convex inertia
   takes its (capped) hull: with maxhullvert 4 the tetrahedron of the four
   hull vertices, mass density |det(b - a, c - a, d - a)| / 6. */
START_TEST(maxhullvert_convex_inertia_is_the_capped_hull) {
  write_two_shells_obj("shells4.obj", 10, 12);
  char xml[600];
  one_mesh_xml(xml, sizeof xml, "shells4.obj", "maxhullvert='4' inertia='convex'", "");
  imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
  ck_assert_int_eq(m->mesh_hullnum[0], 4);
  const double* p[4];
  for (int k = 0; k < 4; k++)
    p[k] = m->mesh_vert + 3 * (m->mesh_vertadr[0] + m->mesh_hull[m->mesh_hulladr[0] + k]);
  double e1[3], e2[3], e3[3], x[3];
  for (int i = 0; i < 3; i++)
    e1[i] = p[1][i] - p[0][i], e2[i] = p[2][i] - p[0][i], e3[i] = p[3][i] - p[0][i];
  imp_cross(x, e2, e3);
  double V = fabs(imp_dot(e1, x, 3)) / 6;
  ck_assert(V > 0.1); /* a real tetrahedron in the unit sphere (at most 0.51) */
  imp_assert_near(m->body_mass[1], 1000 * V, 1e-9 * 1000 * V);
  imp_free_model(m);
}
END_TEST

/* The lowest world height of a mesh geom's vertices: of its hull's when
   hull_only, else of all of them. */
static double lowest_vertex(const imp_model* m, const imp_data* d, int g, int hull_only) {
  int me = m->geom_dataid[g], n = hull_only ? m->mesh_hullnum[me] : m->mesh_vertnum[me];
  const double* R = d->geom_xmat + 9 * g;
  double low = INFINITY;
  for (int k = 0; k < n; k++) {
    int v = hull_only ? m->mesh_hull[m->mesh_hulladr[me] + k] : k;
    const double* p = m->mesh_vert + 3 * (m->mesh_vertadr[me] + v);
    double z = d->geom_xpos[3 * g + 2] + R[6] * p[0] + R[7] * p[1] + R[8] * p[2];
    low = fmin(low, z);
  }
  return low;
}

/* A finely tessellated ball (radius 0.1) with maxhullvert 6 dropped on a
   plane comes to rest on its capped hull: a face of it on the plane (three
   hull vertices at the lowest height, that height the contact's small
   penetration), while vertices the cap left out sink well below, as far as
   the ball's surface lies outside the hull. The same ball without the cap
   rolls on its full hull: no vertex below the plane by more than the
   penetration. */
START_TEST(maxhullvert_ball_rests_on_the_capped_hull) {
  const double r[3] = {1, 1, 1};
  write_ellipsoid_stl("ball.stl", r, 16, 24, 1);
  for (int capped = 0; capped < 2; capped++) {
    char xml[800];
    snprintf(xml, sizeof xml,
             "<mujoco><option timestep='0.002'/><asset><mesh name='m' file='ball.stl' "
             "scale='0.1 0.1 0.1' %s/></asset><worldbody><geom type='plane' size='1 1 0.1'/>"
             "<body pos='0 0 0.15' euler='10 20 30'><freejoint/><geom type='mesh' mesh='m'/>"
             "</body></worldbody></mujoco>",
             capped ? "maxhullvert='6'" : "");
    imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
    if (capped) ck_assert_int_eq(m->mesh_hullnum[0], 6);
    else ck_assert_int_gt(m->mesh_hullnum[0], 300);
    imp_data* d = imp_make_data(m);
    for (int s = 0; s < 2500; s++) imp_step(m, d);
    imp_forward(m, d);
    if (capped) /* the full ball may still roll */
      ck_assert_msg(imp_max_abs(d->qvel, 6) < 1e-3, "not at rest: |qvel| %g",
                    imp_max_abs(d->qvel, 6));
    double low_hull = lowest_vertex(m, d, 1, 1), low_all = lowest_vertex(m, d, 1, 0);
    ck_assert_msg(fabs(low_hull) < 1e-4, "hull's lowest point at %g", low_hull);
    if (capped) {
      int on_plane = 0;
      for (int k = 0; k < 6; k++) {
        const double* p = m->mesh_vert + 3 * (m->mesh_vertadr[0] + m->mesh_hull[k]);
        const double* R = d->geom_xmat + 9;
        double z = d->geom_xpos[5] + R[6] * p[0] + R[7] * p[1] + R[8] * p[2];
        on_plane += z < low_hull + 1e-5;
      }
      ck_assert_int_ge(on_plane, 3);
      ck_assert_msg(low_all < -0.02, "left-out vertices only reach %g", low_all);
    } else {
      ck_assert_msg(low_all > -1e-4, "a vertex at %g below the plane", low_all);
    }
    imp_free_data(d);
    imp_free_model(m);
  }
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
  tcase_add_test(t, maxhullvert_caps_the_hull);
  tcase_add_test(t, maxhullvert_convex_inertia_is_the_capped_hull);
  tcase_add_test(t, maxhullvert_ball_rests_on_the_capped_hull);
  tcase_add_test(t, names_paths_and_directories);
  tcase_add_test(t, mesh_drop_scene_loads);
  suite_add_tcase(s, t);
  t = tcase_create("threads");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, concurrent_loads_give_the_single_threaded_meshes);
  tcase_add_test(t, concurrent_load_and_step_is_bitwise_single_threaded);
  suite_add_tcase(s, t);
  t = tcase_create("errors");
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
