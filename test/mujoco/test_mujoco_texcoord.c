/* Texture coordinates of an OBJ mesh against MuJoCo 2.2.2: its mug sample
 * (mug.obj, 24,544 triangles with a seam where the picture wraps) loaded by
 * both. MuJoCo 2.2.2 gives every face corner a vertex of its own (face f is
 * vertices 3f, 3f+1, 3f+2) with a texture coordinate; we keep the vertices
 * shared and a texture coordinate index per corner. Every corner of every
 * face must carry the same (u, v), the file's u and 1 - v, in the same
 * face order. Floats: MuJoCo computes 1 - v in single precision, we in
 * double then round, so they may differ in the last bit. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>

#include "test_util.h"

#define MUG MUJOCO_MODEL_DIR "/mug/mug.xml"

START_TEST(mug_corners_have_mujocos_texture_coordinates) {
  char err[1000] = "";
  mjModel* mj = mj_loadXML(MUG, NULL, err, sizeof err);
  ck_assert_msg(mj != NULL, "MuJoCo: %s", err);
  imp_model* m = imp_load_xml(MUG, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert(mj->nmesh == 1 && m->nmesh == 1);
  ck_assert_int_eq(m->mesh_facenum[0], mj->mesh_facenum[0]);
  ck_assert(mj->mesh_texcoordadr[0] >= 0 && m->mesh_texcoordadr[0] >= 0);
  double worst = 0;
  int differ = 0;
  for (int f = 0; f < m->mesh_facenum[0]; f++)
    for (int k = 0; k < 3; k++) {
      int vj = mj->mesh_face[3 * (mj->mesh_faceadr[0] + f) + k];
      const float* want = mj->mesh_texcoord + 2 * (mj->mesh_texcoordadr[0] + vj);
      int t = m->mesh_facetexcoord[3 * (m->mesh_faceadr[0] + f) + k];
      ck_assert(t >= 0 && t < m->mesh_texcoordnum[0]);
      const float* got = m->mesh_texcoord + 2 * (m->mesh_texcoordadr[0] + t);
      for (int i = 0; i < 2; i++) {
        double e = fabs((double)got[i] - want[i]);
        worst = fmax(worst, e);
        differ += got[i] != want[i];
      }
    }
  printf("mug: %d faces, %d texture coordinates (MuJoCo %d corner vertices); "
         "largest difference %.3g, %d of %d numbers not bitwise equal\n",
         m->mesh_facenum[0], m->mesh_texcoordnum[0], mj->nmeshtexvert, worst, differ,
         6 * m->mesh_facenum[0]);
  ck_assert_msg(worst <= 1e-7, "largest difference %g", worst); /* within a float's last bit */
  imp_free_model(m);
  mj_deleteModel(mj);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_texcoord");
  TCase* tc = tcase_create("mujoco_texcoord");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, mug_corners_have_mujocos_texture_coordinates);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
