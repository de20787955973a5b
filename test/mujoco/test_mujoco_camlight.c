/* Cameras and lights by their MJCF mode (fixed, track, trackcom,
 * targetbody, targetbodycom) against MuJoCo 2.2.2's mj_camlight.
 *
 * The trajectories of the two simulators part after the first contact, so
 * the states compared are ours: every so often while we step, our qpos goes
 * into MuJoCo (same layout), mj_forward places its cameras and lights, and
 * cam_xpos, cam_xmat, light_xpos, light_xdir must agree to 1e-9. So that
 * the check cannot pass with the modes ignored, each state's body-fixed
 * frames (composed from MuJoCo's body frames) must differ
 * from the moded ones by more than 1e-2 somewhere, for each mode. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"

#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"
#define TOL 1e-9

/* A tumbling box on a hinged arm, with a camera and a light in each mode;
   the world carries aiming ones too. */
static const char* const SMALL_XML =
    "<mujoco>"
    "  <worldbody>"
    "    <geom type='plane' size='5 5 .1'/>"
    "    <camera name='w_target' pos='2 -2 1' mode='targetbody' target='box'/>"
    "    <light name='w_targetcom' pos='-1 2 3' mode='targetbodycom' target='box'/>"
    "    <body name='box' pos='0 0 1' euler='10 20 30'>"
    "      <freejoint/>"
    "      <geom type='box' size='.2 .1 .05' mass='2'/>"
    "      <camera name='c_fixed' pos='.5 0 .2' euler='0 30 0'/>"
    "      <camera name='c_track' pos='0 -1 .3' mode='track'/>"
    "      <camera name='c_trackcom' pos='-1 0 .5' xyaxes='0 -1 0 1 0 2' mode='trackcom'/>"
    "      <camera name='c_target' pos='0 1 .5' mode='targetbody' target='arm'/>"
    "      <camera name='c_targetcom' pos='1 1 1' mode='targetbodycom' target='world'/>"
    "      <light name='l_fixed' pos='0 0 1' dir='0 1 -1'/>"
    "      <light name='l_track' pos='0 .5 1' dir='1 0 -1' mode='track'/>"
    "      <light name='l_trackcom' pos='.3 0 2' mode='trackcom'/>"
    "      <light name='l_target' pos='0 0 1' mode='targetbody' target='arm'/>"
    "      <body name='arm' pos='.2 0 0'>"
    "        <joint type='hinge' axis='0 1 0' damping='.01'/>"
    "        <geom type='capsule' fromto='0 0 0 .3 0 0' size='.03' mass='.5'/>"
    "        <light name='l_targetcom' pos='.3 0 .2' mode='targetbodycom' target='box'/>"
    "      </body>"
    "    </body>"
    "  </worldbody>"
    "</mujoco>";

typedef struct camlight_err {
  double ours;        /* max |ours - MuJoCo's| over all compared values */
  double moded[5];    /* per mode: max |body-fixed - moded| in MuJoCo */
  int ncompared;
} camlight_err;

static double maxdiff(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

/* One object's comparison: ours against MuJoCo's moded value, and how far
   the mode moved it from its body-fixed value. */
static void compare(camlight_err* e, int mode, const double* ours, const double* mj,
                    const double* fixed, int n) {
  e->ours = fmax(e->ours, maxdiff(ours, mj, n));
  e->moded[mode] = fmax(e->moded[mode], maxdiff(fixed, mj, n));
}

/* Body-fixed frames of MuJoCo's state (mj_camlight computes all modes,
   fixed included, so they are composed here from its body frames). */
static void body_fixed_frames(const mjModel* mm, const mjData* md, double* fixed) {
  for (int c = 0; c < mm->ncam; c++) {
    int b = mm->cam_bodyid[c];
    double R[9], *f = fixed + 12 * c;
    mju_mulMatVec(f, md->xmat + 9 * b, mm->cam_pos + 3 * c, 3, 3);
    mju_addTo3(f, md->xpos + 3 * b);
    mju_quat2Mat(R, mm->cam_quat + 4 * c);
    mju_mulMatMat(f + 3, md->xmat + 9 * b, R, 3, 3, 3);
  }
  for (int l = 0; l < mm->nlight; l++) {
    int b = mm->light_bodyid[l];
    double* f = fixed + 12 * mm->ncam + 6 * l;
    mju_mulMatVec(f, md->xmat + 9 * b, mm->light_pos + 3 * l, 3, 3);
    mju_addTo3(f, md->xpos + 3 * b);
    mju_mulMatVec(f + 3, md->xmat + 9 * b, mm->light_dir + 3 * l, 3, 3);
    mju_normalize3(f + 3);
  }
}

/* Place MuJoCo at our qpos and compare every camera and light. */
static void compare_state(const imp_model* m, const imp_data* d, const mjModel* mm, mjData* md,
                          camlight_err* e) {
  double fixed[12 * 16 + 6 * 16];
  int nc = 12 * m->ncam;
  ck_assert_int_le(nc + 6 * m->nlight, (int)(sizeof fixed / sizeof *fixed));
  memcpy(md->qpos, d->qpos, sizeof(double) * (size_t)m->nq);
  mj_forward(mm, md);
  body_fixed_frames(mm, md, fixed);
  for (int c = 0; c < m->ncam; c++) {
    ck_assert_int_eq(m->cam_mode[c], mm->cam_mode[c]);
    compare(e, m->cam_mode[c], d->cam_xpos + 3 * c, md->cam_xpos + 3 * c, fixed + 12 * c, 3);
    compare(e, m->cam_mode[c], d->cam_xmat + 9 * c, md->cam_xmat + 9 * c, fixed + 12 * c + 3, 9);
  }
  for (int l = 0; l < m->nlight; l++) {
    ck_assert_int_eq(m->light_mode[l], mm->light_mode[l]);
    const double* f = fixed + nc + 6 * l;
    compare(e, m->light_mode[l], d->light_xpos + 3 * l, md->light_xpos + 3 * l, f, 3);
    compare(e, m->light_mode[l], d->light_xdir + 3 * l, md->light_xdir + 3 * l, f + 3, 3);
  }
  e->ncompared++;
}

/* Step ours for `seconds`, comparing every `every` steps (and at qpos0). */
static camlight_err run(imp_model* m, mjModel* mm, double seconds, int every) {
  camlight_err e = {0};
  imp_data* d = imp_make_data(m);
  mjData* md = mj_makeData(mm);
  ck_assert_int_eq(m->nq, mm->nq);
  ck_assert_int_eq(m->ncam, mm->ncam);
  ck_assert_int_eq(m->nlight, mm->nlight);
  if (m->nv >= 6) d->qvel[3] = 2, d->qvel[4] = -3, d->qvel[5] = 1; /* tumble */
  imp_forward(m, d);
  compare_state(m, d, mm, md, &e);
  for (int s = 1; d->time < seconds; s++) {
    imp_step(m, d);
    if (s % every == 0) {
      imp_forward(m, d); /* frames of the new qpos */
      compare_state(m, d, mm, md, &e);
    }
  }
  ck_assert_int_eq(d->nwarning_nan, 0);
  mj_deleteData(md);
  imp_free_data(d);
  return e;
}

static void report(const char* what, const camlight_err* e) {
  printf("%s: %d states, max |ours - MuJoCo| %.3e; mode moved frames by fixed %.2e track %.2e "
         "trackcom %.2e targetbody %.2e targetbodycom %.2e\n",
         what, e->ncompared, e->ours, e->moded[0], e->moded[1], e->moded[2], e->moded[3],
         e->moded[4]);
}

START_TEST(test_each_mode_on_a_small_model) {
  char err[1000];
  imp_model* m = imp_test_load_string(SMALL_XML);
  mjVFS vfs; /* the same text for MuJoCo, from memory */
  mj_defaultVFS(&vfs);
  ck_assert_int_eq(mj_makeEmptyFileVFS(&vfs, "small.xml", (int)strlen(SMALL_XML)), 0);
  memcpy(vfs.filedata[vfs.nfile - 1], SMALL_XML, strlen(SMALL_XML));
  mjModel* mm = mj_loadXML("small.xml", &vfs, err, sizeof err);
  ck_assert_msg(mm != NULL, "MuJoCo: %s", err);
  camlight_err e = run(m, mm, 2, 50);
  report("small model", &e);
  ck_assert_msg(e.ours < TOL, "cameras/lights differ from MuJoCo's by %.3e", e.ours);
  ck_assert_msg(e.moded[0] < TOL, "fixed frames are not body-fixed: %.3e", e.moded[0]);
  for (int k = 1; k < 5; k++)
    ck_assert_msg(e.moded[k] > 1e-2, "mode %d never moved a frame: the check is vacuous", k);
  mj_deleteVFS(&vfs);
  mj_deleteModel(mm);
  imp_free_model(m);
}
END_TEST

START_TEST(test_humanoid_trackcom_cameras_and_lights) {
  char err[1000];
  imp_model* m = imp_load_xml(HUMANOID, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  mjModel* mm = mj_loadXML(HUMANOID, NULL, err, sizeof err);
  ck_assert_msg(mm != NULL, "MuJoCo: %s", err);
  camlight_err e = run(m, mm, 3, 100);
  report("humanoid", &e);
  ck_assert_msg(e.ours < TOL, "cameras/lights differ from MuJoCo's by %.3e", e.ours);
  ck_assert_msg(e.moded[2] > 1e-2 && e.moded[4] > 1e-2,
                "trackcom/targetbodycom never moved a frame: the check is vacuous");
  mj_deleteModel(mm);
  imp_free_model(m);
}
END_TEST

static Suite* camlight_suite(void) {
  Suite* s = suite_create("mujoco_camlight");
  TCase* tc = tcase_create("modes");
  tcase_set_timeout(tc, 300); /* the sanitizer build is about 30x slower */
  tcase_add_test(tc, test_each_mode_on_a_small_model);
  tcase_add_test(tc, test_humanoid_trackcom_cameras_and_lights);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(camlight_suite()); }
