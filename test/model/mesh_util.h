/* Helpers shared by the tests of mesh assets (model/mesh.c and the loader
 * around it), test_mesh_*.c: load text with meshes resolved against a
 * directory, write mesh files (text, binary STL boxes and ellipsoids) into
 * IMP_TEST_TMPDIR, expect an error that names the mesh file and the <mesh>
 * element's line. Good meshes are in test/data/ or written by the tests
 * (binary STL); broken ones are written into IMP_TEST_TMPDIR, under fixed
 * names: the test_mesh_* executables share it and take one ctest
 * RESOURCE_LOCK (test/CMakeLists.txt), as the tests ran one after another
 * when they were one executable.
 *
 * Include after defining _POSIX_C_SOURCE (mkfifo). */
#ifndef IMPETUS_MESH_UTIL_H
#define IMPETUS_MESH_UTIL_H

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
static inline imp_model* load_in(const char* dir, const char* xml) {
  imp_model* m = imp_load_xml_string(xml, dir, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  return m;
}

static inline void write_file(const char* name, const void* data, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", IMP_TEST_TMPDIR, name);
  FILE* f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert_uint_eq(fwrite(data, 1, n, f), n);
  fclose(f);
}

static inline void write_text(const char* name, const char* text) { write_file(name, text, strlen(text)); }

/* binary STL of an axis-aligned box: 12 triangles, outward, 36 corners */
static inline void write_box_stl(const char* name, const double c[3], const double h[3]) {
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
static inline void expect_mesh_error(const char* xml, int line, const char* file, const char* what) {
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
static inline void one_mesh_xml(char* out, size_t n, const char* file, const char* meshattr,
                         const char* geomattr) {
  snprintf(out, n,
           "<mujoco>\n<asset><mesh file='%s' %s/></asset>\n<worldbody><body><freejoint/>"
           "<geom type='mesh' mesh='%.*s' %s/></body></worldbody></mujoco>",
           file, meshattr, (int)(strrchr(file, '.') - file), file, geomattr);
}

/* Binary STL of a tessellated ellipsoid (radii r, nlat x nlon corners):
   2 nlon (nlat - 1) triangles, the whole surface written copies times, so
   loading spends its time merging the many repeated corners by sorting
   them (mesh.c merge_vertices), not in the hull. */
static inline void write_ellipsoid_stl(const char* name, const double r[3], int nlat, int nlon,
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

#endif
