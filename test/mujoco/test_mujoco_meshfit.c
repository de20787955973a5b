/* Differential test against MuJoCo 2.2.2: primitives fitted to a mesh's
 * equivalent-inertia box (compiler fitaabb="false", the default). The same
 * file is loaded by both; every geom's type, size, pos and axes, and the
 * masses, centres and principal moments of bodies made of fitted geoms must
 * agree. Axes are compared up to their signs: principal axes have no
 * preferred direction (MuJoCo's frame here is ours turned half a turn about
 * x) and the primitives are symmetric under such turns. MuJoCo keeps mesh
 * vertices in single precision and sizes come through square roots of
 * moment differences, so the tolerance is relative 1e-5. The mesh is an
 * offset, asymmetric wedge (test/data/wedge.obj), also scaled unevenly; the
 * geoms are moved and turned and one is scaled by fitscale. fitaabb="true"
 * is not compared: 2.2.2 fitted it differently, a bug MuJoCo 3.3.7 fixed
 * (test_mesh_fit.c checks the reference's definition). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "quat.h"
#include "test_util.h"

#ifndef IMP_TEST_TMPDIR
#define IMP_TEST_TMPDIR "."
#endif
#define TOL 1e-5

static const char* k_model =
    "<mujoco>\n"
    "  <compiler meshdir='%s'/>\n"
    "  <asset>\n"
    "    <mesh name='w' file='wedge.obj'/>\n"
    "    <mesh name='ws' file='wedge.obj' scale='1 2 0.5'/>\n"
    "  </asset>\n"
    "  <worldbody>\n"
    "    <body name='a' pos='0 0 1'><freejoint/>\n"
    "      <geom type='sphere' mesh='w'/>\n"
    "      <geom type='capsule' mesh='w' pos='0.5 0 0' euler='0 0 90'/>\n"
    "      <geom type='cylinder' mesh='w'/>\n"
    "      <geom type='ellipsoid' mesh='ws'/>\n"
    "      <geom type='box' mesh='ws' pos='0 0.2 0' euler='30 0 -20'/>\n"
    "      <geom type='capsule' mesh='ws' fitscale='2'/>\n"
    "    </body>\n"
    "    <body name='b' pos='1 0 1'><joint type='hinge'/>\n"
    "      <geom type='box' mesh='w' pos='0.1 0 0'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

/* |a - b| <= TOL (|b| + 1e-3): relative, with a floor for values near zero */
static void near(double a, double b, const char* what, int i) {
  ck_assert_msg(fabs(a - b) <= TOL * (fabs(b) + 1e-3), "%s %d: ours %.17g, MuJoCo %.17g", what, i,
                a, b);
}

START_TEST(inertia_box_fit_matches_mujoco) {
  char path[4096], xml[4096], err[1000] = "";
  snprintf(path, sizeof path, "%s/meshfit.xml", IMP_TEST_TMPDIR);
  snprintf(xml, sizeof xml, k_model, IMP_MODELS_DIR "/../test/data");
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(xml, f);
  fclose(f);
  mjModel* mj = mj_loadXML(path, NULL, err, sizeof err);
  ck_assert_msg(mj != NULL, "MuJoCo: %s", err);
  imp_model* m = imp_load_xml(path, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->ngeom, mj->ngeom);
  for (int g = 0; g < m->ngeom; g++) {
    ck_assert_int_eq(m->geom_type[g], mj->geom_type[g]);
    for (int i = 0; i < 3; i++) near(m->geom_size[3 * g + i], mj->geom_size[3 * g + i], "size", g);
    for (int i = 0; i < 3; i++) near(m->geom_pos[3 * g + i], mj->geom_pos[3 * g + i], "pos", g);
    double R[9], Rmj[9];
    imp_quat2mat(R, m->geom_quat + 4 * g);
    mju_quat2Mat(Rmj, mj->geom_quat + 4 * g);
    for (int k = 0; k < 3; k++) { /* column k: axis k of the geom, up to its sign */
      double dot = R[k] * Rmj[k] + R[3 + k] * Rmj[3 + k] + R[6 + k] * Rmj[6 + k];
      for (int i = 0; i < 3; i++) near((dot < 0 ? -1 : 1) * R[3 * i + k], Rmj[3 * i + k], "axis", g);
    }
    printf("geom %d: type %d size %.9g %.9g %.9g\n", g, m->geom_type[g], m->geom_size[3 * g],
           m->geom_size[3 * g + 1], m->geom_size[3 * g + 2]);
  }
  for (int b = 1; b < m->nbody; b++) {
    near(m->body_mass[b], mj->body_mass[b], "mass", b);
    /* principal moments: ours decreasing, MuJoCo's in its own order */
    double a[3], c[3];
    for (int i = 0; i < 3; i++) a[i] = m->body_inertia[3 * b + i], c[i] = mj->body_inertia[3 * b + i];
    for (int i = 0; i < 3; i++)
      for (int j = i + 1; j < 3; j++) {
        if (a[j] > a[i]) { double t = a[i]; a[i] = a[j]; a[j] = t; }
        if (c[j] > c[i]) { double t = c[i]; c[i] = c[j]; c[j] = t; }
      }
    for (int i = 0; i < 3; i++) near(a[i], c[i], "inertia", b);
    for (int i = 0; i < 3; i++) near(m->body_ipos[3 * b + i], mj->body_ipos[3 * b + i], "ipos", b);
  }
  imp_free_model(m);
  mj_deleteModel(mj);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_meshfit");
  TCase* t = tcase_create("meshfit");
  tcase_add_test(t, inertia_box_fit_matches_mujoco);
  suite_add_tcase(s, t);
  return imp_test_run_suite(s);
}
