/* Sensors against MuJoCo 2.2.2 (built only when libmujoco-dev is found).
 *
 * The same file loaded in both must give the same sensor layout (nsensor,
 * nsensordata, and per sensor its type, data type, stage, object and
 * reference, dim, address, cutoff, noise and name), and from the same
 * state, stepped 1000 times, the same sensordata after every mj_step /
 * imp_step: the values of the state each step started from, positions,
 * velocities, and the accelerations and forces of the step (RNE after the
 * constraints). Contact-free models, whose trajectories agree to rounding
 * (test_mujoco_diff.c), so every sensor value v must agree to TOL max(1,
 * |v|) (relative for values above 1: the floating body's angular
 * acceleration reaches 3e3 rad/s^2 while its trajectory agrees to 1e-10):
 *   models/sensors.xml  an arm on a turning base with a ball wrist, servos,
 *                       a sensor of every kind that needs no contact;
 *   inline_floating     a free body with a ball-jointed arm, frame sensors
 *                       of every object type and reference frame;
 *   inline_rays         rangefinders sweeping over every primitive, a mesh,
 *                       an invisible geom, a plane from below and from
 *                       inside an ellipsoid (the mesh
 *                       agrees to 5e-9 only: MuJoCo 2.2.2 keeps mesh
 *                       vertices in single precision);
 *   inline_rk4          RK4: the sensors are those of the step's start.
 * Every run prints the largest deviation per sensor type, so ctest -V
 * shows how close we are. Noise is not compared: MuJoCo draws it from C's
 * rand(); both leave it out unless <flag sensornoise="enable">. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mj_pair.h"
#include "test_util.h"

#define NSTEP 1000
#define TOL 1e-8

static const char* k_floating =
    "<mujoco model='floating'>\n"
    "  <compiler angle='radian'/>\n"
    "  <option timestep='0.002' magnetic='0.1 -0.4 0.3'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <site name='world_site' pos='0.5 0.5 0.5' euler='0.2 0.3 0.4'/>\n"
    "    <body name='floater' pos='0 0 1' quat='0.8 0.2 -0.4 0.4'>\n"
    "      <freejoint/>\n"
    "      <inertial pos='0.05 -0.02 0.03' mass='1.3' fullinertia='0.05 0.04 0.03"
    " 0.005 -0.004 0.006'/>\n"
    "      <geom name='fbox' type='box' size='0.1 0.08 0.05'/>\n"
    "      <site name='imu' pos='0.05 0.03 -0.02' euler='0.3 -0.2 0.5'/>\n"
    "      <camera name='cam' pos='0.1 0 0.1' euler='0.1 0.2 0.3'/>\n"
    "      <body name='arm' pos='0.1 0 -0.1'>\n"
    "        <joint name='ball' type='ball' damping='0.02'/>\n"
    "        <geom name='armgeom' type='capsule' fromto='0 0 0 0 0.1 -0.3' size='0.02'/>\n"
    "        <site name='tip' pos='0 0.1 -0.3' zaxis='1 0.2 -0.3'/>\n"
    "        <body name='hand' pos='0 0.1 -0.3'>\n"
    "          <joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>\n"
    "          <joint name='slide' type='slide' axis='1 0 0' stiffness='20'/>\n"
    "          <geom name='handgeom' type='ellipsoid' size='0.05 0.03 0.04' euler='0.2 0.1 0'/>\n"
    "          <site name='handsite' pos='0.02 0 0.01' quat='0.9 0.1 0.2 0.3'/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='pend' pos='1 0 1'>\n"
    "      <joint name='pj' type='hinge' axis='1 1 0'/>\n"
    "      <geom name='pendgeom' type='cylinder' fromto='0 0 0 0 0 -0.5' size='0.04'/>\n"
    "      <site name='pendsite' pos='0 0 -0.5' zaxis='1 0 0'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <motor name='m_hinge' joint='hinge' gear='2'/>\n"
    "    <position name='p_slide' joint='slide' kp='5'/>\n"
    "    <velocity name='v_pj' joint='pj' kv='0.5'/>\n"
    "  </actuator>\n"
    "  <sensor>\n"
    "    <accelerometer name='acc' site='imu'/>\n"
    "    <gyro name='gyro' site='imu'/>\n"
    "    <velocimeter name='vel' site='imu'/>\n"
    "    <magnetometer name='mag' site='imu'/>\n"
    "    <force name='force' site='tip'/>\n"
    "    <torque name='torque' site='tip'/>\n"
    "    <force name='force_hand' site='handsite'/>\n"
    "    <torque name='torque_hand' site='handsite'/>\n"
    "    <accelerometer name='acc_hand' site='handsite' cutoff='5'/>\n"
    "    <ballquat name='bq' joint='ball'/>\n"
    "    <ballangvel name='bav' joint='ball'/>\n"
    "    <actuatorfrc name='af3' actuator='v_pj' cutoff='0.01'/>\n"
    "    <framepos name='fp_body' objtype='body' objname='arm'/>\n"
    "    <framepos name='fp_geom' objtype='geom' objname='handgeom' reftype='camera'"
    " refname='cam'/>\n"
    "    <framepos name='fp_cam' objtype='camera' objname='cam' reftype='geom'"
    " refname='pendgeom'/>\n"
    "    <framequat name='fq_body' objtype='body' objname='floater'/>\n"
    "    <framequat name='fq_geom' objtype='geom' objname='armgeom' reftype='site'"
    " refname='imu'/>\n"
    "    <framequat name='fq_site' objtype='site' objname='handsite' reftype='xbody'"
    " refname='pend'/>\n"
    "    <framexaxis name='fx' objtype='site' objname='tip' reftype='body' refname='hand'/>\n"
    "    <frameyaxis name='fy' objtype='geom' objname='fbox'/>\n"
    "    <framezaxis name='fz' objtype='xbody' objname='hand' reftype='site'"
    " refname='world_site'/>\n"
    "    <framelinvel name='flv' objtype='body' objname='hand'/>\n"
    "    <framelinvel name='flv_ref' objtype='geom' objname='handgeom'"
    " reftype='body' refname='pend'/>\n"
    "    <frameangvel name='fav_ref' objtype='site' objname='tip' reftype='xbody'"
    " refname='floater'/>\n"
    "    <framelinacc name='fla' objtype='geom' objname='handgeom'/>\n"
    "    <frameangacc name='faa' objtype='xbody' objname='hand'/>\n"
    "    <subtreecom name='stc' body='floater'/>\n"
    "    <subtreelinvel name='stlv' body='arm'/>\n"
    "    <subtreeangmom name='stam' body='floater'/>\n"
    "    <subtreeangmom name='stam_world' body='world'/>\n"
    "    <clock name='clock'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

/* the mesh comes from models/meshes (meshdir is written in at run time) */
static const char* k_rays_fmt =
    "<mujoco model='rays'>\n"
    "  <compiler angle='radian' meshdir='%s/meshes'/>\n"
    "  <option timestep='0.002' gravity='0 0 0'><flag contact='disable'/></option>\n"
    "  <asset><mesh name='wedge' file='wedge.obj' scale='2 2 2'/></asset>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='2 2 0.1' pos='0 0 -0.3'/>\n"
    "    <geom name='wedge' type='mesh' mesh='wedge' euler='0.1 0.2 0.3'/>\n"
    "    <geom name='ball' type='sphere' size='0.1' pos='0.5 0.5 0'/>\n"
    "    <geom name='egg' type='ellipsoid' size='0.1 0.15 0.2' pos='-0.5 0.5 0'"
    " euler='0.3 0.2 0.1'/>\n"
    "    <geom name='can' type='cylinder' size='0.1 0.15' pos='-0.5 -0.5 0' euler='0.5 0.2 0.1'/>\n"
    "    <geom name='pill' type='capsule' size='0.08 0.15' pos='0.5 -0.5 0' euler='0.2 0.7 0.1'/>\n"
    "    <geom name='crate' type='box' size='0.1 0.12 0.15' pos='0 0.7 0' euler='0.2 0.1 0.4'/>\n"
    "    <geom name='ghost' type='sphere' size='0.3' pos='0 -0.7 0' rgba='1 0 0 0'/>\n"
    "    <site name='under' pos='0.2 0.1 -1' zaxis='0 0 1'/>\n"
    "    <body name='spinner' pos='0 0 0.8'>\n"
    "      <joint name='spin' type='hinge' axis='0 0 1'/>\n"
    "      <joint name='nod' type='hinge' axis='1 0 0'/>\n"
    "      <geom type='sphere' size='0.05'/>\n"
    "      <site name='eye1' zaxis='0.6 0.1 -1'/>\n"
    "      <site name='eye2' zaxis='0.3 0.6 -1'/>\n"
    "      <site name='eye3' zaxis='0.1 0.2 -1'/>\n"
    "      <site name='eye4' zaxis='0.7 -0.5 -1'/>\n"
    "      <site name='eye5' zaxis='1.5 0.2 -0.2'/>\n"
    "      <site name='eye6' zaxis='0.5 0.5 -0.8'/>\n"
    "    </body>\n"
    "    <body name='inside' pos='-0.5 0.5 0.02'>\n"
    "      <joint name='turn' type='hinge' axis='0.2 0.3 1'/>\n"
    "      <geom type='sphere' size='0.01' contype='0' conaffinity='0'/>\n"
    "      <site name='inner_eye' zaxis='1 0.3 0.2'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <sensor>\n"
    "    <rangefinder site='eye1'/><rangefinder site='eye2'/><rangefinder site='eye3'/>\n"
    "    <rangefinder site='eye4'/><rangefinder site='eye5' cutoff='1'/><rangefinder"
    " site='eye6'/>\n"
    "    <rangefinder name='from_inside' site='inner_eye'/>\n"
    "    <rangefinder name='from_below' site='under'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";
static char k_rays[4096];

static const char* k_rk4 =
    "<mujoco model='rk4'>\n"
    "  <compiler angle='radian'/>\n"
    "  <option timestep='0.005' integrator='RK4'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1' axisangle='1 0 0 0.3'>\n"
    "      <joint name='h1' type='hinge' axis='0 1 0' damping='0.1'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03'/>\n"
    "      <body pos='0 0 -0.5'>\n"
    "        <joint name='h2' type='hinge' axis='1 0 0'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.3 0 -0.3' size='0.025'/>\n"
    "        <site name='s' pos='0.3 0 -0.3'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator><motor name='m' joint='h1' gear='2'/></actuator>\n"
    "  <sensor>\n"
    "    <jointpos joint='h1'/><jointvel joint='h2'/><actuatorfrc actuator='m'/>\n"
    "    <accelerometer site='s'/><force site='s'/><torque site='s'/><velocimeter site='s'/>\n"
    "    <framelinacc objtype='site' objname='s'/><clock/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

typedef struct sensor_case {
  const char* name;
  const char* file; /* in models/, or NULL for an inline snippet */
} sensor_case;

static const sensor_case k_cases[] = {
    {"sensors", "sensors.xml"},
    {"inline_floating", NULL},
    {"inline_rays", NULL},
    {"inline_rk4", NULL},
};
#define NCASE ((int)(sizeof k_cases / sizeof k_cases[0]))

static const char* case_xml(const char* name) {
  if (!strcmp(name, "inline_floating")) return k_floating;
  if (!strcmp(name, "inline_rk4")) return k_rk4;
  snprintf(k_rays, sizeof k_rays, k_rays_fmt, IMP_MODELS_DIR);
  return k_rays;
}

/* models/<file>, or the snippet written to the build tree as
   mjsensor_<name>.xml */
static void case_path(int i, char* path, size_t n) {
  if (k_cases[i].file) {
    snprintf(path, n, "%s/%s", IMP_MODELS_DIR, k_cases[i].file);
    return;
  }
  char stem[128];
  snprintf(stem, sizeof stem, "mjsensor_%s", k_cases[i].name);
  mjp_write(stem, case_xml(k_cases[i].name), path, n);
}

static void pair_load(int i, pair* p) {
  char path[4096];
  case_path(i, path, sizeof path);
  mjp_load(p, k_cases[i].name, path, path);
  ck_assert_msg(p->mm->opt.disableflags & mjDSBL_CONTACT, "%s: contact must be disabled",
                k_cases[i].name);
}

/* our object type of a MuJoCo mjtObj (the kinds sensors refer to); -1 none */
static int our_objtype(int mjtype) {
  switch (mjtype) {
    case mjOBJ_BODY: return IMP_OBJ_BODY;
    case mjOBJ_XBODY: return IMP_OBJ_XBODY;
    case mjOBJ_JOINT: return IMP_OBJ_JOINT;
    case mjOBJ_GEOM: return IMP_OBJ_GEOM;
    case mjOBJ_SITE: return IMP_OBJ_SITE;
    case mjOBJ_CAMERA: return IMP_OBJ_CAMERA;
    case mjOBJ_ACTUATOR: return IMP_OBJ_ACTUATOR;
    case mjOBJ_UNKNOWN: return -1;
    default: return -100; /* a kind this test does not expect */
  }
}

/* The same layout: sizes and every sensor's description. */
START_TEST(test_layout_matches) {
  pair p;
  pair_load(_i, &p);
  const char* name = k_cases[_i].name;
  const mjModel* mm = p.mm;
  const imp_model* m = p.m;
  ck_assert_msg(m->nsensor == mm->nsensor && m->nsensordata == mm->nsensordata,
                "%s: nsensor %d/%d nsensordata %d/%d (impetus/MuJoCo)", name, m->nsensor,
                mm->nsensor, m->nsensordata, mm->nsensordata);
  for (int i = 0; i < mm->nsensor; i++) {
    const char* mn = mj_id2name(mm, mjOBJ_SENSOR, i);
    ck_assert_msg(m->sensor_type[i] == mm->sensor_type[i] &&
                      m->sensor_datatype[i] == mm->sensor_datatype[i] &&
                      m->sensor_needstage[i] == mm->sensor_needstage[i] &&
                      m->sensor_dim[i] == mm->sensor_dim[i] &&
                      m->sensor_adr[i] == mm->sensor_adr[i],
                  "%s: sensor %d: type %d/%d datatype %d/%d stage %d/%d dim %d/%d adr %d/%d", name,
                  i,
                  m->sensor_type[i], mm->sensor_type[i], m->sensor_datatype[i],
                  mm->sensor_datatype[i], m->sensor_needstage[i], mm->sensor_needstage[i],
                  m->sensor_dim[i], mm->sensor_dim[i], m->sensor_adr[i], mm->sensor_adr[i]);
    ck_assert_msg(m->sensor_objtype[i] == our_objtype(mm->sensor_objtype[i]) &&
                      m->sensor_objid[i] == mm->sensor_objid[i] &&
                      m->sensor_reftype[i] == our_objtype(mm->sensor_reftype[i]) &&
                      m->sensor_refid[i] == mm->sensor_refid[i],
                  "%s: sensor %d: object %d:%d / mj %d:%d, reference %d:%d / mj %d:%d", name, i,
                  m->sensor_objtype[i], m->sensor_objid[i], mm->sensor_objtype[i],
                  mm->sensor_objid[i], m->sensor_reftype[i], m->sensor_refid[i],
                  mm->sensor_reftype[i], mm->sensor_refid[i]);
    ck_assert_msg(m->sensor_cutoff[i] == mm->sensor_cutoff[i] &&
                      m->sensor_noise[i] == mm->sensor_noise[i],
                  "%s: sensor %d: cutoff %g/%g noise %g/%g", name, i, m->sensor_cutoff[i],
                  mm->sensor_cutoff[i], m->sensor_noise[i], mm->sensor_noise[i]);
    ck_assert_str_eq(imp_id2name(m, IMP_OBJ_SENSOR, i), mn ? mn : "");
    if (mn) ck_assert_int_eq(imp_name2id(m, IMP_OBJ_SENSOR, mn), i);
  }
  printf("model %s: nsensor %d nsensordata %d, the same layout\n", name, m->nsensor,
         m->nsensordata);
  mjp_free(&p);
}
END_TEST

#define NTYPE (mjSENS_USER + 1)

/* Step both NSTEP times from their current (identical) states, comparing
   sensordata after every step; report the largest deviation per sensor
   type and check every value v against TOL max(1, |v|). */
static void run_and_compare(const char* name, const char* start, pair* p) {
  const mjModel* mm = p->mm;
  double dev[NTYPE], mag[NTYPE];
  int seen[NTYPE] = {0};
  for (int t = 0; t < NTYPE; t++) dev[t] = mag[t] = 0;
  double worst = 0, dq = 0; /* worst: of |diff| / max(1, |v|) */
  int worst_sensor = -1, worst_step = -1;
  for (int s = 0; s < NSTEP; s++) {
    mj_step(p->mm, p->md);
    imp_step(p->m, p->d);
    for (int i = 0; i < mm->nsensor; i++) {
      int t = mm->sensor_type[i], adr = mm->sensor_adr[i], dim = mm->sensor_dim[i];
      seen[t] = 1;
      for (int k = 0; k < dim; k++) {
        double v = p->md->sensordata[adr + k], e = fabs(v - p->d->sensordata[adr + k]);
        double scaled = e / fmax(1, fabs(v));
        if (!(e <= dev[t])) dev[t] = e;
        mag[t] = fmax(mag[t], fabs(v));
        if (!(scaled <= worst)) worst = scaled, worst_sensor = i, worst_step = s;
      }
    }
  }
  dq = imp_max_abs_diff(p->md->qpos, p->d->qpos, mm->nq);
  printf("model %s (%s): after %d steps max qpos dev %.2e, max sensordata dev %.2e of "
         "max(1, |value|)\n", name, start, NSTEP, dq, worst);
  static const char* const words[NTYPE] = {
      "touch",         "accelerometer", "velocimeter",   "gyro",          "force",
      "torque",        "magnetometer",  "rangefinder",   "jointpos",      "jointvel",
      "tendonpos",     "tendonvel",     "actuatorpos",   "actuatorvel",   "actuatorfrc",
      "ballquat",      "ballangvel",    "jointlimitpos", "jointlimitvel", "jointlimitfrc",
      "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc", "framepos",    "framequat",
      "framexaxis",    "frameyaxis",    "framezaxis",    "framelinvel",   "frameangvel",
      "framelinacc",   "frameangacc",   "subtreecom",    "subtreelinvel", "subtreeangmom",
      "clock",         "user"};
  for (int t = 0; t < NTYPE; t++)
    if (seen[t])
      printf("  %-14s max |diff| %.2e  (max |value| %.3g)\n", words[t], dev[t], mag[t]);
  fflush(stdout);
  ck_assert_msg(worst < TOL,
                "model %s (%s): sensor %d ('%s') deviates by %.3e of max(1, |value|) at step %d",
                name, start, worst_sensor, mj_id2name(mm, mjOBJ_SENSOR, worst_sensor), worst,
                worst_step);
}

/* From qpos0 with a nonzero velocity and constant nonzero controls. */
START_TEST(test_sensordata_from_qpos0) {
  pair p;
  pair_load(_i, &p);
  const mjModel* mm = p.mm;
  for (int i = 0; i < mm->nv; i++) p.md->qvel[i] = p.d->qvel[i] = 0.4 * cos(0.9 * i + 0.3);
  for (int i = 0; i < mm->nu; i++) {
    double c = 0.5 * sin(1.3 * i + 0.7);
    if (mm->actuator_ctrllimited[i])
      c = fmin(fmax(c, mm->actuator_ctrlrange[2 * i]), mm->actuator_ctrlrange[2 * i + 1]);
    p.md->ctrl[i] = p.d->ctrl[i] = c;
  }
  if (!strcmp(k_cases[_i].name, "inline_rays")) /* sweep the eyes over the scene */
    p.md->qvel[0] = p.d->qvel[0] = 3, p.md->qvel[1] = p.d->qvel[1] = 0.7;
  run_and_compare(k_cases[_i].name, "qpos0 + qvel, ctrl", &p);
  mjp_free(&p);
}
END_TEST

/* From every keyframe. */
START_TEST(test_sensordata_from_keyframes) {
  pair p;
  pair_load(_i, &p);
  ck_assert_int_eq(p.m->nkey, p.mm->nkey);
  for (int k = 0; k < p.mm->nkey; k++) {
    mj_resetDataKeyframe(p.mm, p.md, k);
    imp_reset_data_keyframe(p.m, p.d, k);
    char start[64];
    snprintf(start, sizeof start, "keyframe %d", k);
    run_and_compare(k_cases[_i].name, start, &p);
  }
  mjp_free(&p);
}
END_TEST

/* sensordata after a step is that of the state the step started from, in
   both: a forward of that state gives the same values. */
START_TEST(test_step_reports_the_start_state) {
  pair p;
  pair_load(0, &p);
  const mjModel* mm = p.mm;
  for (int i = 0; i < mm->nv; i++) p.md->qvel[i] = p.d->qvel[i] = 0.3 * sin(i + 1.0);
  for (int s = 0; s < 10; s++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
  }
  imp_data* again = imp_make_data(p.m);
  imp_copy_data(p.m, again, p.d);
  imp_forward(p.m, again); /* the state the next step starts from */
  double* before = malloc(sizeof(double) * (size_t)mm->nsensordata);
  ck_assert(before != NULL);
  memcpy(before, again->sensordata, sizeof(double) * (size_t)mm->nsensordata);
  mj_step(p.mm, p.md);
  imp_step(p.m, p.d);
  double e = imp_max_abs_diff(before, p.d->sensordata, mm->nsensordata);
  double emj = imp_max_abs_diff(p.md->sensordata, p.d->sensordata, mm->nsensordata);
  printf("sensordata after a step vs a forward of its start state: %.2e (MuJoCo: %.2e)\n", e,
         emj);
  ck_assert_msg(e == 0, "imp_step's sensordata differs from its start state's by %.3e", e);
  ck_assert_msg(emj < TOL, "MuJoCo differs by %.3e", emj);
  free(before);
  imp_free_data(again);
  mjp_free(&p);
}
END_TEST

static Suite* sensor_suite(void) {
  Suite* s = suite_create("mujoco_sensor");
  TCase* tc = tcase_create("sensor");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_layout_matches, 0, NCASE);
  tcase_add_loop_test(tc, test_sensordata_from_qpos0, 0, NCASE);
  tcase_add_loop_test(tc, test_sensordata_from_keyframes, 0, NCASE);
  tcase_add_test(tc, test_step_reports_the_start_state);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  mju_user_warning = NULL;
  return imp_test_run_suite(sensor_suite());
}
