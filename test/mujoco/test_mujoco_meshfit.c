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

#include "core/quat.h"
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

/* A U-shaped prism (test_mesh_load.c's: 3 x 2 x 1, a 1 x 1 notch, outward
   faces, integer corners that single precision holds exactly), off the
   body's origin. */
static const char* k_u_obj =
    "v 0 0 0\nv 3 0 0\nv 3 1 0\nv 3 2 0\nv 2 2 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nv 0 1 0\n"
    "v 0 0 1\nv 3 0 1\nv 3 1 1\nv 3 2 1\nv 2 2 1\nv 2 1 1\nv 1 1 1\nv 1 2 1\nv 0 2 1\nv 0 1 1\n"
    "f 11 12 13\nf 11 13 20\nf 20 17 18\nf 20 18 19\nf 16 13 14\nf 16 14 15\n"
    "f 1 3 2\nf 1 10 3\nf 10 8 7\nf 10 9 8\nf 6 4 3\nf 6 5 4\n"
    "f 1 2 12 11\nf 2 3 13 12\nf 3 4 14 13\nf 4 5 15 14\nf 5 6 16 15\nf 6 7 17 16\n"
    "f 7 8 18 17\nf 8 9 19 18\nf 9 10 20 19\nf 10 1 11 20\n";

/* the model of one U body, compiler attributes compiler_attr and mesh
   attributes mesh_attr, in dir */
static mjModel* load_u(imp_model** m, const char* compiler_attr, const char* mesh_attr) {
  char path[4096], xml[2048], err[1000] = "";
  snprintf(path, sizeof path, "%s/legacy_u.obj", IMP_TEST_TMPDIR);
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(k_u_obj, f);
  fclose(f);
  snprintf(xml, sizeof xml,
           "<mujoco><compiler meshdir='%s' %s/><asset><mesh name='u' file='legacy_u.obj' "
           "scale='0.5 0.25 0.125' %s/></asset><worldbody><body><freejoint/>"
           "<geom type='mesh' mesh='u' pos='0.1 0.2 0.3' euler='10 20 30' density='700'/>"
           "</body></worldbody></mujoco>",
           IMP_TEST_TMPDIR, compiler_attr, mesh_attr);
  snprintf(path, sizeof path, "%s/legacy_u.xml", IMP_TEST_TMPDIR);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(xml, f);
  fclose(f);
  mjModel* mj = mj_loadXML(path, NULL, err, sizeof err);
  ck_assert_msg(mj != NULL, "MuJoCo: %s", err);
  *m = imp_load_xml(path, err, sizeof err);
  ck_assert_msg(*m != NULL, "%s", err);
  imp_test_no_warnings(*m);
  return mj;
}

/* principal moments of body 1, decreasing */
static void sorted_moments(const double* in, double out[3]) {
  for (int i = 0; i < 3; i++) out[i] = in[3 + i];
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (out[j] > out[i]) { double t = out[i]; out[i] = out[j]; out[j] = t; }
}

/* MuJoCo's default mesh inertia, "legacy" (pyramids of unsigned volume, a
   non-convex mesh overcounted), against 2.2.2. The centre of mass and the
   shape of the tensor (moments per unit mass) are 2.2.2's. Its mass is
   not: 2.2.2 weighs a legacy mesh geom as its equivalent-inertia box
   (density x 8 b0 b1 b2, the box of the same mass and moments; 2.2.2's
   mjCGeom::GetVolume), which 3.x dropped for the pyramids' volume, the
   mass we give; the box is checked from our moments. With compiler
   exactmeshinertia="true" both integrate the solid exactly: everything
   agrees. Single precision (MuJoCo re-centres the vertices in floats)
   bounds the agreement: relative 1e-5. */
START_TEST(legacy_mesh_inertia_matches_mujoco) {
  imp_model* m;
  mjModel* mj = load_u(&m, "", "");
  double a[3], c[3];
  sorted_moments(m->body_inertia, a);
  sorted_moments(mj->body_inertia, c);
  for (int i = 0; i < 3; i++) near(m->body_ipos[3 + i], mj->body_ipos[3 + i], "legacy ipos", i);
  for (int i = 0; i < 3; i++)
    near(a[i] / m->body_mass[1], c[i] / mj->body_mass[1], "legacy moment per kg", i);
  double box = 1;
  for (int i = 0; i < 3; i++) /* full side of the box with moments a and mass m */
    box *= sqrt(6 * (a[(i + 1) % 3] + a[(i + 2) % 3] - a[i]) / m->body_mass[1]);
  near(700 * box, mj->body_mass[1], "2.2.2's legacy mass (its inertia box)", 1);
  double legacy_com[3], legacy_mass = m->body_mass[1];
  for (int i = 0; i < 3; i++) legacy_com[i] = m->body_ipos[3 + i];
  imp_free_model(m);
  mj_deleteModel(mj);

  mj = load_u(&m, "exactmeshinertia='true'", "");
  sorted_moments(m->body_inertia, a);
  sorted_moments(mj->body_inertia, c);
  near(m->body_mass[1], mj->body_mass[1], "exact mass", 1);
  near(m->body_mass[1], 700 * 5 * 0.5 * 0.25 * 0.125, "exact mass, the solid's", 1);
  for (int i = 0; i < 3; i++) near(a[i], c[i], "exact inertia", i);
  for (int i = 0; i < 3; i++) near(m->body_ipos[3 + i], mj->body_ipos[3 + i], "exact ipos", i);
  /* the two methods differ here: the test can tell them apart */
  ck_assert_msg(legacy_mass > 1.02 * m->body_mass[1], "legacy %g, exact %g kg", legacy_mass,
                m->body_mass[1]);
  double dc = 0;
  for (int i = 0; i < 3; i++) dc = fmax(dc, fabs(legacy_com[i] - m->body_ipos[3 + i]));
  ck_assert_msg(dc > 1e-3, "legacy and exact centres %g apart", dc);
  imp_free_model(m);
  mj_deleteModel(mj);
}
END_TEST

/* mesh refpos and refquat (the frame the file's vertices are given in),
   with scale after them, against 2.2.2: the body's mass, centre and
   principal moments, exact and legacy (centre and moments per kg, as
   above). The frame moves the centre: the test can tell. */
START_TEST(refpos_refquat_match_mujoco) {
  static const char* const frame = "refpos='0.3 -0.2 0.7' refquat='0.9 0.1 -0.3 0.2'";
  for (int exact = 0; exact < 2; exact++) {
    imp_model *m, *m0;
    mjModel* mj = load_u(&m, exact ? "exactmeshinertia='true'" : "", frame);
    mjModel* mj0 = load_u(&m0, exact ? "exactmeshinertia='true'" : "", "");
    double a[3], c[3];
    sorted_moments(m->body_inertia, a);
    sorted_moments(mj->body_inertia, c);
    for (int i = 0; i < 3; i++) near(m->body_ipos[3 + i], mj->body_ipos[3 + i], "ipos", i);
    for (int i = 0; i < 3; i++) near(a[i] / m->body_mass[1], c[i] / mj->body_mass[1], "moment per kg", i);
    if (exact) near(m->body_mass[1], mj->body_mass[1], "mass", 1);
    double moved = 0;
    for (int i = 0; i < 3; i++) moved = fmax(moved, fabs(m->body_ipos[3 + i] - m0->body_ipos[3 + i]));
    ck_assert_msg(moved > 0.05, "refpos/refquat moved the centre by %g only", moved);
    imp_free_model(m);
    imp_free_model(m0);
    mj_deleteModel(mj);
    mj_deleteModel(mj0);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_meshfit");
  TCase* t = tcase_create("meshfit");
  tcase_add_test(t, inertia_box_fit_matches_mujoco);
  tcase_add_test(t, legacy_mesh_inertia_matches_mujoco);
  tcase_add_test(t, refpos_refquat_match_mujoco);
  suite_add_tcase(s, t);
  return imp_test_run_suite(s);
}
