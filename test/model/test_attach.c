/* <asset><model> and <attach> (model/attach.c; MuJoCo 3.x, MJCF reference:
 * asset/model, body/attach). MuJoCo 2.2.2 has no attachment, so the oracle
 * is the same model written out by hand: a scene attaching a sub-model
 * twice (once inside a rotated frame) must load into the same sizes, names
 * and references, and run the same trajectory, as the scene with the
 * sub-model's elements copied in, renamed and converted by hand. The
 * sub-model lives in another directory, with its meshes in its own
 * meshdir, angles in radians while the scene's are in degrees, its own
 * default classes, and a tendon, an exclude, an actuator and a sensor. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/mathx.h"
#include "test_files.h"
#include "test_util.h"

static char g_dir[1024]; /* the scratch directory of this test process */

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* the sub-model, in radians: a base turned by a quarter turn (euler in
   radians), a hinge with a class's range and stiffness, a second hinge
   with a spring rest angle, a mesh from its own meshdir; a body that is
   not attached */
static const char* k_arm =
    "<mujoco model='arm'>\n"
    "  <compiler angle='radian' meshdir='meshes' autolimits='true'/>\n"
    "  <option timestep='0.002'/>\n"
    "  <default>\n"
    "    <joint damping='0.1'/>\n"
    "    <default class='stiff'><joint stiffness='2' range='-0.5 1.0'/></default>\n"
    "  </default>\n"
    "  <asset>\n"
    "    <mesh name='wedge' file='wedge.obj'/>\n"
    "    <material name='red' rgba='1 0 0 1'/>\n"
    "  </asset>\n"
    "  <worldbody>\n"
    "    <body name='base' pos='0 0 -0.1' euler='0 0 1.5707963267948966'>\n"
    "      <joint name='hinge1' axis='0 1 0' class='stiff'/>\n"
    "      <geom name='g1' type='capsule' fromto='0 0 0 0.3 0 0' size='0.03' material='red'/>\n"
    "      <site name='tip' pos='0.3 0 0'/>\n"
    "      <body name='fore' pos='0.3 0 0' euler='0.3 0 0'>\n"
    "        <joint name='hinge2' axis='0 1 0' range='-1 1' springref='0.2' stiffness='1'/>\n"
    "        <geom name='g2' type='mesh' mesh='wedge' density='800'/>\n"
    "        <geom name='g3' type='sphere' size='0.05' pos='0.2 0 0'/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='other' pos='1 0 0'><geom size='0.1'/></body>\n"
    "  </worldbody>\n"
    "  <contact><exclude body1='base' body2='fore'/></contact>\n"
    "  <tendon>\n"
    "    <fixed name='t'><joint joint='hinge1' coef='1'/><joint joint='hinge2' coef='-1'/></fixed>\n"
    "  </tendon>\n"
    "  <actuator><motor name='mot' joint='hinge1' gear='2' ctrlrange='-1 1'/></actuator>\n"
    "  <sensor><jointpos name='jp' joint='hinge2'/><tendonpos name='tp' tendon='t'/></sensor>\n"
    "</mujoco>\n";

/* the scene, in degrees: the arm twice, once in a frame turned by 90
   degrees; its own actuators and sensor refer to attached joints */
static const char* k_scene =
    "<mujoco>\n"
    "  <asset><model name='arm' file='../sub/arm.xml'/></asset>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='2 2 0.1'/>\n"
    "    <body name='cart' pos='0 0 1'>\n"
    "      <joint name='slide' type='slide' axis='1 0 0'/>\n"
    "      <joint name='swing' axis='0 0 1' range='-90 90'/>\n"
    "      <geom name='box' type='box' size='0.1 0.1 0.1'/>\n"
    "      <frame pos='0 0 -0.2' euler='0 0 90'>\n"
    "        <attach model='arm' body='base' prefix='L_'/>\n"
    "      </frame>\n"
    "      <attach model='arm' body='base' prefix='R_'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <motor name='m0' joint='slide'/>\n"
    "    <position name='p' joint='L_hinge2' kp='5'/>\n"
    "  </actuator>\n"
    "  <sensor><jointpos name='s0' joint='R_hinge1'/></sensor>\n"
    "</mujoco>\n";

/* The same written out: the arm's elements renamed, in radians (the
   scene's 90 degrees as radians), the attached actuators, tendons and
   sensors after the scene's own, in attachment order (MuJoCo reads the
   world body, and so attaches, after every other section). */
#define ARM(P, POSE)                                                                          \
  "      <body name='" P "base' " POSE ">\n"                                                  \
  "        <joint name='" P "hinge1' axis='0 1 0' damping='0.1' stiffness='2'"               \
  " range='-0.5 1.0'/>\n"                                                                     \
  "        <geom name='" P "g1' type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'"            \
  " material='" P "red'/>\n"                                                                  \
  "        <site name='" P "tip' pos='0.3 0 0'/>\n"                                           \
  "        <body name='" P "fore' pos='0.3 0 0' euler='0.3 0 0'>\n"                           \
  "          <joint name='" P "hinge2' axis='0 1 0' damping='0.1' range='-1 1'"              \
  " springref='0.2' stiffness='1'/>\n"                                                        \
  "          <geom name='" P "g2' type='mesh' mesh='" P "wedge' density='800'/>\n"            \
  "          <geom name='" P "g3' type='sphere' size='0.05' pos='0.2 0 0'/>\n"                \
  "        </body>\n"                                                                         \
  "      </body>\n"

static const char* k_by_hand_fmt =
    "<mujoco>\n"
    "  <compiler angle='radian'/>\n"
    "  <asset>\n"
    "    <mesh name='L_wedge' file='%s/sub/meshes/wedge.obj'/>\n"
    "    <material name='L_red' rgba='1 0 0 1'/>\n"
    "    <mesh name='R_wedge' file='%s/sub/meshes/wedge.obj'/>\n"
    "    <material name='R_red' rgba='1 0 0 1'/>\n"
    "  </asset>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='2 2 0.1'/>\n"
    "    <body name='cart' pos='0 0 1'>\n"
    "      <joint name='slide' type='slide' axis='1 0 0'/>\n"
    "      <joint name='swing' axis='0 0 1' range='-1.5707963267948966 1.5707963267948966'/>\n"
    "      <geom name='box' type='box' size='0.1 0.1 0.1'/>\n"
    "      <frame pos='0 0 -0.2' euler='0 0 1.5707963267948966'>\n"
    ARM("L_", "pos='0 0 -0.1' euler='0 0 1.5707963267948966'")
    "      </frame>\n"
    ARM("R_", "pos='0 0 -0.1' euler='0 0 1.5707963267948966'")
    "    </body>\n"
    "  </worldbody>\n"
    "  <contact>\n"
    "    <exclude body1='L_base' body2='L_fore'/>\n"
    "    <exclude body1='R_base' body2='R_fore'/>\n"
    "  </contact>\n"
    "  <tendon>\n"
    "    <fixed name='L_t'><joint joint='L_hinge1' coef='1'/><joint joint='L_hinge2' coef='-1'/>"
    "</fixed>\n"
    "    <fixed name='R_t'><joint joint='R_hinge1' coef='1'/><joint joint='R_hinge2' coef='-1'/>"
    "</fixed>\n"
    "  </tendon>\n"
    "  <actuator>\n"
    "    <motor name='m0' joint='slide'/>\n"
    "    <position name='p' joint='L_hinge2' kp='5'/>\n"
    "    <motor name='L_mot' joint='L_hinge1' gear='2' ctrlrange='-1 1'/>\n"
    "    <motor name='R_mot' joint='R_hinge1' gear='2' ctrlrange='-1 1'/>\n"
    "  </actuator>\n"
    "  <sensor>\n"
    "    <jointpos name='s0' joint='R_hinge1'/>\n"
    "    <jointpos name='L_jp' joint='L_hinge2'/><tendonpos name='L_tp' tendon='L_t'/>\n"
    "    <jointpos name='R_jp' joint='R_hinge2'/><tendonpos name='R_tp' tendon='R_t'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

/* scratch files: DIR/sub/arm.xml, DIR/sub/meshes/wedge.obj, DIR/scene/scene.xml */
static void make_files(void) {
  snprintf(g_dir, sizeof g_dir, "%s/attach_%ld", IMP_TEST_TMPDIR, (long)getpid());
  char p[1200];
  mkdir(g_dir, 0755);
  snprintf(p, sizeof p, "%s/sub", g_dir);
  mkdir(p, 0755);
  snprintf(p, sizeof p, "%s/sub/meshes", g_dir);
  mkdir(p, 0755);
  snprintf(p, sizeof p, "%s/scene", g_dir);
  mkdir(p, 0755);
  char wedge[4096];
  snprintf(wedge, sizeof wedge, "%s", imp_test_text_of(IMP_MODELS_DIR "/meshes/wedge.obj"));
  ck_assert(strlen(wedge) > 0);
  snprintf(p, sizeof p, "%s/sub/meshes/wedge.obj", g_dir);
  write_file(p, wedge);
  snprintf(p, sizeof p, "%s/sub/arm.xml", g_dir);
  write_file(p, k_arm);
  snprintf(p, sizeof p, "%s/scene/scene.xml", g_dir);
  write_file(p, k_scene);
}

static imp_model* load_file(const char* path) {
  char err[2000] = "";
  imp_model* m = imp_load_xml(path, err, sizeof err);
  ck_assert_msg(m != NULL, "%s did not load: %s", path, err);
  ck_assert_msg(m->nwarning == 0, "%s: warnings: %s", path, m->warnings);
  return m;
}

static imp_model* load_scene(void) {
  make_files();
  char p[1200];
  snprintf(p, sizeof p, "%s/scene/scene.xml", g_dir);
  return load_file(p);
}

static imp_model* load_by_hand(void) {
  static char xml[16384];
  snprintf(xml, sizeof xml, k_by_hand_fmt, g_dir, g_dir);
  char err[2000] = "";
  imp_model* m = imp_load_xml_string(xml, NULL, "by_hand.xml", err, sizeof err);
  ck_assert_msg(m != NULL, "by hand: %s", err);
  ck_assert_msg(m->nwarning == 0, "by hand: warnings: %s", m->warnings);
  return m;
}

static void same_names(const imp_model* a, const imp_model* b, imp_obj_type t, int n,
                       const char* what) {
  for (int i = 0; i < n; i++) {
    const char* na = imp_id2name(a, t, i);
    const char* nb = imp_id2name(b, t, i);
    ck_assert_msg(na && nb && !strcmp(na, nb), "%s %d: '%s' attached, '%s' by hand", what, i,
                  na ? na : "(null)", nb ? nb : "(null)");
  }
}

static void same_vec(const char* what, const double* a, const double* b, int n, double tol) {
  for (int i = 0; i < n; i++)
    ck_assert_msg(fabs(a[i] - b[i]) <= tol, "%s[%d]: %.17g attached, %.17g by hand", what, i,
                  a[i], b[i]);
}

static void same_int(const char* what, const int* a, const int* b, int n) {
  for (int i = 0; i < n; i++)
    ck_assert_msg(a[i] == b[i], "%s[%d]: %d attached, %d by hand", what, i, a[i], b[i]);
}

START_TEST(attached_model_equals_the_file_written_by_hand) {
  imp_model* a = load_scene();
  imp_model* b = load_by_hand();
  ck_assert_int_eq(a->nq, b->nq);
  ck_assert_int_eq(a->nv, b->nv);
  ck_assert_int_eq(a->nbody, b->nbody);
  ck_assert_int_eq(a->ngeom, b->ngeom);
  ck_assert_int_eq(a->njnt, b->njnt);
  ck_assert_int_eq(a->nu, b->nu);
  ck_assert_int_eq(a->nsensor, b->nsensor);
  ck_assert_int_eq(a->ntendon, b->ntendon);
  ck_assert_int_eq(a->nexclude, b->nexclude);
  ck_assert_int_eq(a->nmesh, b->nmesh);
  ck_assert_int_eq(a->nbody, 6); /* world, cart, two arms of two; "other" not attached */
  same_names(a, b, IMP_OBJ_BODY, a->nbody, "body");
  same_names(a, b, IMP_OBJ_JOINT, a->njnt, "joint");
  same_names(a, b, IMP_OBJ_GEOM, a->ngeom, "geom");
  same_names(a, b, IMP_OBJ_SITE, a->nsite, "site");
  same_names(a, b, IMP_OBJ_ACTUATOR, a->nu, "actuator");
  same_names(a, b, IMP_OBJ_SENSOR, a->nsensor, "sensor");
  same_names(a, b, IMP_OBJ_TENDON, a->ntendon, "tendon");
  same_names(a, b, IMP_OBJ_MESH, a->nmesh, "mesh");
  same_names(a, b, IMP_OBJ_MATERIAL, a->nmat, "material");
  same_int("body_parentid", a->body_parentid, b->body_parentid, a->nbody);
  same_vec("body_pos", a->body_pos, b->body_pos, 3 * a->nbody, 1e-12);
  same_vec("body_quat", a->body_quat, b->body_quat, 4 * a->nbody, 1e-12);
  same_vec("body_mass", a->body_mass, b->body_mass, a->nbody, 1e-12);
  same_vec("body_inertia", a->body_inertia, b->body_inertia, 3 * a->nbody, 1e-12);
  same_vec("jnt_range", a->jnt_range, b->jnt_range, 2 * a->njnt, 1e-12);
  same_vec("qpos_spring", a->qpos_spring, b->qpos_spring, a->nq, 1e-12);
  same_vec("geom_pos", a->geom_pos, b->geom_pos, 3 * a->ngeom, 1e-12);
  same_int("actuator_trnid", a->actuator_trnid, b->actuator_trnid, 2 * a->nu);
  same_int("sensor_objid", a->sensor_objid, b->sensor_objid, a->nsensor);
  same_int("exclude_body1", a->exclude_body1, b->exclude_body1, a->nexclude);
  same_int("exclude_body2", a->exclude_body2, b->exclude_body2, a->nexclude);
  same_int("wrap_objid", a->wrap_objid, b->wrap_objid, a->nwrap);

  /* the same motion under the same controls */
  imp_data* da = imp_make_data(a);
  imp_data* db = imp_make_data(b);
  double maxdiff = 0;
  for (int s = 0; s < 1000; s++) {
    for (int i = 0; i < a->nu; i++) da->ctrl[i] = db->ctrl[i] = 0.8 * sin(0.01 * s + i);
    imp_step(a, da);
    imp_step(b, db);
    for (int i = 0; i < a->nq; i++) {
      double d = fabs(da->qpos[i] - db->qpos[i]);
      if (d > maxdiff) maxdiff = d;
    }
  }
  ck_assert_msg(maxdiff <= 1e-12, "qpos differ by %g after 1000 steps", maxdiff);
  ck_assert_int_eq(da->nwarning_nan, 0);
  imp_free_data(da);
  imp_free_data(db);
  imp_free_model(a);
  imp_free_model(b);
  imp_test_remove_dir(g_dir);
}
END_TEST

/* references of the attached elements and of the scene's elements point at
   the prefixed objects of the right copy */
START_TEST(references_are_prefixed) {
  imp_model* m = load_scene();
  int lh1 = imp_name2id(m, IMP_OBJ_JOINT, "L_hinge1"), rh1 = imp_name2id(m, IMP_OBJ_JOINT, "R_hinge1");
  int lh2 = imp_name2id(m, IMP_OBJ_JOINT, "L_hinge2"), rh2 = imp_name2id(m, IMP_OBJ_JOINT, "R_hinge2");
  ck_assert(lh1 >= 0 && rh1 >= 0 && lh2 >= 0 && rh2 >= 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_JOINT, "hinge1"), -1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "L_other"), -1);
  ck_assert_int_eq(m->actuator_trnid[2 * imp_name2id(m, IMP_OBJ_ACTUATOR, "L_mot")], lh1);
  ck_assert_int_eq(m->actuator_trnid[2 * imp_name2id(m, IMP_OBJ_ACTUATOR, "R_mot")], rh1);
  ck_assert_int_eq(m->actuator_trnid[2 * imp_name2id(m, IMP_OBJ_ACTUATOR, "p")], lh2);
  ck_assert_int_eq(m->sensor_objid[imp_name2id(m, IMP_OBJ_SENSOR, "R_jp")], rh2);
  ck_assert_int_eq(m->sensor_objid[imp_name2id(m, IMP_OBJ_SENSOR, "s0")], rh1);
  ck_assert_int_eq(m->sensor_objid[imp_name2id(m, IMP_OBJ_SENSOR, "L_tp")],
                   imp_name2id(m, IMP_OBJ_TENDON, "L_t"));
  /* the excludes pair each copy's own bodies */
  ck_assert_int_eq(m->nexclude, 2);
  int lb = imp_name2id(m, IMP_OBJ_BODY, "L_base"), lf = imp_name2id(m, IMP_OBJ_BODY, "L_fore");
  int rb = imp_name2id(m, IMP_OBJ_BODY, "R_base"), rf = imp_name2id(m, IMP_OBJ_BODY, "R_fore");
  int found_l = 0, found_r = 0;
  for (int i = 0; i < m->nexclude; i++) {
    found_l |= m->exclude_body1[i] == lb && m->exclude_body2[i] == lf;
    found_r |= m->exclude_body1[i] == rb && m->exclude_body2[i] == rf;
  }
  ck_assert(found_l && found_r);
  /* the geoms use their copy's material and mesh */
  int g1 = imp_name2id(m, IMP_OBJ_GEOM, "R_g1"), g2 = imp_name2id(m, IMP_OBJ_GEOM, "L_g2");
  ck_assert_int_eq(m->geom_matid[g1], imp_name2id(m, IMP_OBJ_MATERIAL, "R_red"));
  ck_assert_int_eq(m->geom_dataid[g2], imp_name2id(m, IMP_OBJ_MESH, "L_wedge"));
  imp_free_model(m);
  imp_test_remove_dir(g_dir);
}
END_TEST

/* the sub-model's angle unit applies to its joints, the scene's to its own;
   and the other way round */
START_TEST(sub_model_angles_in_its_own_unit) {
  imp_model* m = load_scene();
  int sw = imp_name2id(m, IMP_OBJ_JOINT, "swing"), h1 = imp_name2id(m, IMP_OBJ_JOINT, "L_hinge1");
  int h2 = imp_name2id(m, IMP_OBJ_JOINT, "R_hinge2");
  imp_assert_near(m->jnt_range[2 * sw + 1], IMP_PI / 2, 1e-15);     /* 90 degrees */
  ck_assert(m->jnt_range[2 * h1] == -0.5 && m->jnt_range[2 * h1 + 1] == 1.0); /* radians */
  ck_assert(m->qpos_spring[m->jnt_qposadr[h2]] == 0.2);
  imp_free_model(m);

  /* a scene in radians attaching a sub-model in degrees */
  char p[1200];
  snprintf(p, sizeof p, "%s/sub/deg.xml", g_dir);
  write_file(p,
             "<mujoco model='deg'>\n"
             "  <worldbody><body name='b' euler='0 0 90'>\n"
             "    <joint name='h' range='-30 60' springref='45' stiffness='1'/>\n"
             "    <geom size='0.1'/></body></worldbody>\n"
             "</mujoco>\n");
  snprintf(p, sizeof p, "%s/scene/rad.xml", g_dir);
  write_file(p,
             "<mujoco>\n"
             "  <compiler angle='radian'/>\n"
             "  <asset><model file='../sub/deg.xml'/></asset>\n"
             "  <worldbody><body name='a'><joint name='own' range='-1 2'/><geom size='0.1'/>\n"
             "    <attach model='deg' body='b' prefix='d'/></body></worldbody>\n"
             "</mujoco>\n");
  m = load_file(p);
  int own = imp_name2id(m, IMP_OBJ_JOINT, "own"), h = imp_name2id(m, IMP_OBJ_JOINT, "dh");
  ck_assert(m->jnt_range[2 * own] == -1 && m->jnt_range[2 * own + 1] == 2);
  imp_assert_near(m->jnt_range[2 * h], -IMP_PI / 6, 1e-15);
  imp_assert_near(m->jnt_range[2 * h + 1], IMP_PI / 3, 1e-15);
  imp_assert_near(m->qpos_spring[m->jnt_qposadr[h]], IMP_PI / 4, 1e-15);
  int b = imp_name2id(m, IMP_OBJ_BODY, "db");
  imp_assert_near(m->body_quat[4 * b], cos(IMP_PI / 4), 1e-15); /* about z by 90 degrees */
  imp_assert_near(m->body_quat[4 * b + 3], sin(IMP_PI / 4), 1e-15);
  imp_free_model(m);
  imp_test_remove_dir(g_dir);
}
END_TEST

/* the load fails with an error starting "file:line:" and mentioning what */
static void expect_error(const char* path, int line, const char* what) {
  char err[2000] = "";
  imp_model* m = imp_load_xml(path, err, sizeof err);
  ck_assert_msg(m == NULL, "%s loaded although it should fail with '%s'", path, what);
  char prefix[1300];
  snprintf(prefix, sizeof prefix, "%s:%d:", path, line);
  ck_assert_msg(!strncmp(err, prefix, strlen(prefix)), "error '%s' does not start with '%s'", err,
                prefix);
  ck_assert_msg(strstr(err, what) != NULL, "error '%s' does not mention '%s'", err, what);
}

static const char* scene_with(const char* name, const char* body) {
  static char p[1200];
  char xml[2000];
  snprintf(xml, sizeof xml,
           "<mujoco>\n"
           "  <asset><model name='arm' file='../sub/arm.xml'/></asset>\n"
           "  <worldbody>\n"
           "    <body name='a'><geom size='0.1'/>\n"
           "%s\n"
           "    </body>\n"
           "  </worldbody>\n"
           "</mujoco>\n",
           body);
  snprintf(p, sizeof p, "%s/scene/%s", g_dir, name);
  write_file(p, xml);
  return p;
}

START_TEST(errors_name_file_and_line) {
  make_files();
  expect_error(scene_with("unknown.xml", "      <attach model='leg' body='base' prefix='x'/>"), 5,
               "unknown model 'leg'");
  expect_error(scene_with("nobody.xml", "      <attach model='arm' body='foot' prefix='x'/>"), 5,
               "no body 'foot'");
  expect_error(scene_with("noprefix.xml", "      <attach model='arm' body='base'/>"), 5,
               "prefix");
  /* self-attachment (no model) is refused, not ignored */
  expect_error(scene_with("self.xml", "      <attach body='a' prefix='x'/>"), 5,
               "self-attachment");
  imp_test_remove_dir(g_dir);
}
END_TEST

/* the same prefix twice: the copy's top body exists already, an error at
   the second <attach> (as MuJoCo's reader checks); another name repeated
   by prefixing is an error at the repeated element */
START_TEST(repeated_prefix_is_a_name_collision) {
  make_files();
  expect_error(scene_with("twice.xml",
                          "      <attach model='arm' body='base' prefix='x'/>\n"
                          "      <attach model='arm' body='base' prefix='x'/>"),
               6, "body 'xbase' already exists");
  const char* p = scene_with("clash.xml",
                             "      <geom name='Lg1' size='0.1'/>\n"
                             "      <attach model='arm' body='base' prefix='L'/>");
  char err[2000] = "";
  imp_model* m = imp_load_xml(p, err, sizeof err);
  ck_assert(m == NULL);
  ck_assert_msg(strstr(err, "repeated geom name 'Lg1'") != NULL, "%s", err);
  imp_test_remove_dir(g_dir);
}
END_TEST

/* a model that attaches itself: an error at the inner <attach>, not a hang */
START_TEST(model_attaching_itself_is_an_error) {
  make_files();
  char p[1200];
  snprintf(p, sizeof p, "%s/scene/loop.xml", g_dir);
  write_file(p,
             "<mujoco model='loop'>\n"
             "  <asset><model name='me' file='loop.xml'/></asset>\n"
             "  <worldbody>\n"
             "    <body name='b'><geom size='0.1'/>\n"
             "      <attach model='me' body='b' prefix='x'/>\n"
             "    </body>\n"
             "  </worldbody>\n"
             "</mujoco>\n");
  expect_error(p, 5, "attaches itself");
  /* two files attaching each other */
  snprintf(p, sizeof p, "%s/scene/ping.xml", g_dir);
  write_file(p,
             "<mujoco>\n"
             "  <asset><model name='pong' file='pong.xml'/></asset>\n"
             "  <worldbody><body name='b'><geom size='0.1'/>\n"
             "    <attach model='pong' body='b' prefix='x'/></body></worldbody>\n"
             "</mujoco>\n");
  char q[1200];
  snprintf(q, sizeof q, "%s/scene/pong.xml", g_dir);
  write_file(q,
             "<mujoco>\n"
             "  <asset><model name='ping' file='ping.xml'/></asset>\n"
             "  <worldbody><body name='b'><geom size='0.1'/>\n"
             "    <attach model='ping' body='b' prefix='y'/></body></worldbody>\n"
             "</mujoco>\n");
  char err[2000] = "";
  imp_model* m = imp_load_xml(p, err, sizeof err);
  ck_assert(m == NULL);
  ck_assert_msg(strstr(err, "attaches itself") || strstr(err, "nested more than"), "%s", err);
  ck_assert_msg(strstr(err, ".xml:4:") != NULL, "%s", err);
  imp_test_remove_dir(g_dir);
}
END_TEST

/* what is not implemented is refused at its line: keyframes of a sub-model,
   compile-time compiler settings that differ from the scene's */
START_TEST(unimplemented_parts_are_refused) {
  make_files();
  char p[1200];
  snprintf(p, sizeof p, "%s/sub/keyed.xml", g_dir);
  write_file(p,
             "<mujoco>\n"
             "  <worldbody><body name='b'><joint/><geom size='0.1'/></body></worldbody>\n"
             "  <keyframe>\n"
             "    <key qpos='0.5'/>\n"
             "  </keyframe>\n"
             "</mujoco>\n");
  char err[2000] = "";
  snprintf(p, sizeof p, "%s/scene/k.xml", g_dir);
  write_file(p,
             "<mujoco><asset><model name='k' file='../sub/keyed.xml'/></asset>\n"
             "<worldbody><attach model='k' body='b' prefix='x'/></worldbody></mujoco>\n");
  imp_model* m = imp_load_xml(p, err, sizeof err);
  ck_assert(m == NULL);
  ck_assert_msg(strstr(err, "keyed.xml:4:") && strstr(err, "keyframes"), "%s", err);

  snprintf(p, sizeof p, "%s/sub/ifg.xml", g_dir);
  write_file(p,
             "<mujoco>\n"
             "  <compiler inertiafromgeom='true'/>\n"
             "  <worldbody><body name='b'><joint/><geom size='0.1'/></body></worldbody>\n"
             "</mujoco>\n");
  snprintf(p, sizeof p, "%s/scene/i.xml", g_dir);
  write_file(p,
             "<mujoco><asset><model name='i' file='../sub/ifg.xml'/></asset>\n"
             "<worldbody><attach model='i' body='b' prefix='x'/></worldbody></mujoco>\n");
  m = imp_load_xml(p, err, sizeof err);
  ck_assert(m == NULL);
  ck_assert_msg(strstr(err, "ifg.xml:2:") && strstr(err, "inertiafromgeom"), "%s", err);
  imp_test_remove_dir(g_dir);
}
END_TEST

/* without body or frame, the world body's contents; frame= a frame's */
START_TEST(world_and_frame_attachments) {
  make_files();
  char p[1200];
  snprintf(p, sizeof p, "%s/sub/w.xml", g_dir);
  write_file(p,
             "<mujoco>\n"
             "  <worldbody>\n"
             "    <geom name='ground' size='0.2'/>\n"
             "    <frame name='f' pos='1 0 0'><body name='b'><joint/><geom size='0.1'/></body>"
             "</frame>\n"
             "  </worldbody>\n"
             "</mujoco>\n");
  snprintf(p, sizeof p, "%s/scene/w.xml", g_dir);
  write_file(p,
             "<mujoco><asset><model name='w' file='../sub/w.xml'/></asset>\n"
             "<worldbody>\n"
             "  <frame pos='0 0 1'><attach model='w' prefix='a'/></frame>\n"
             "  <attach model='w' frame='f' prefix='c'/>\n"
             "</worldbody></mujoco>\n");
  imp_model* m = load_file(p);
  ck_assert_int_eq(m->nbody, 3);
  int g = imp_name2id(m, IMP_OBJ_GEOM, "aground");
  ck_assert(g >= 0 && imp_name2id(m, IMP_OBJ_GEOM, "cground") < 0);
  imp_assert_near(m->geom_pos[3 * g + 2], 1, 0);
  int ab = imp_name2id(m, IMP_OBJ_BODY, "ab"), cb = imp_name2id(m, IMP_OBJ_BODY, "cb");
  imp_assert_near(m->body_pos[3 * ab], 1, 0);
  imp_assert_near(m->body_pos[3 * ab + 2], 1, 0);
  imp_assert_near(m->body_pos[3 * cb], 1, 0);
  imp_assert_near(m->body_pos[3 * cb + 2], 0, 0);
  imp_free_model(m);
  imp_test_remove_dir(g_dir);
}
END_TEST

/* a sub-model attaching its own sub-model (its file relative to the
   sub-model's directory): the prefixes compose, and an asset named after
   its file gets them too */
START_TEST(nested_attachments_compose_prefixes) {
  make_files();
  char p[1200];
  snprintf(p, sizeof p, "%s/sub/finger.xml", g_dir);
  write_file(p,
             "<mujoco model='finger'>\n"
             "  <compiler meshdir='meshes'/>\n"
             "  <asset><mesh file='wedge.obj'/></asset>\n"
             "  <worldbody><body name='tip' pos='0 0 -0.1'><joint name='j'/>\n"
             "    <geom name='g' type='mesh' mesh='wedge'/></body></worldbody>\n"
             "  <actuator><motor name='m' joint='j'/></actuator>\n"
             "</mujoco>\n");
  snprintf(p, sizeof p, "%s/sub/hand.xml", g_dir);
  write_file(p,
             "<mujoco model='hand'>\n"
             "  <asset><model file='finger.xml'/></asset>\n"
             "  <worldbody><body name='palm'><joint name='j'/><geom size='0.05'/>\n"
             "    <attach model='finger' body='tip' prefix='f1_'/>\n"
             "    <attach model='finger' body='tip' prefix='f2_'/>\n"
             "  </body></worldbody>\n"
             "</mujoco>\n");
  snprintf(p, sizeof p, "%s/scene/hands.xml", g_dir);
  write_file(p,
             "<mujoco><asset><model file='../sub/hand.xml'/></asset>\n"
             "<worldbody>\n"
             "  <attach model='hand' body='palm' prefix='L_'/>\n"
             "  <attach model='hand' body='palm' prefix='R_'/>\n"
             "</worldbody></mujoco>\n");
  imp_model* m = load_file(p);
  ck_assert_int_eq(m->nbody, 7);
  ck_assert_int_eq(m->nu, 4);
  /* each attachment's elements in the order the attachments are read */
  const char* order[] = {"L_f1_m", "L_f2_m", "R_f1_m", "R_f2_m"};
  for (int i = 0; i < 4; i++) ck_assert_str_eq(imp_id2name(m, IMP_OBJ_ACTUATOR, i), order[i]);
  ck_assert_int_eq(m->nmesh, 4);
  int j = imp_name2id(m, IMP_OBJ_JOINT, "R_f2_j");
  ck_assert(j >= 0);
  ck_assert_int_eq(m->jnt_bodyid[j], imp_name2id(m, IMP_OBJ_BODY, "R_f2_tip"));
  ck_assert_int_eq(m->body_parentid[m->jnt_bodyid[j]], imp_name2id(m, IMP_OBJ_BODY, "R_palm"));
  ck_assert_int_eq(m->actuator_trnid[2 * imp_name2id(m, IMP_OBJ_ACTUATOR, "L_f1_m")],
                   imp_name2id(m, IMP_OBJ_JOINT, "L_f1_j"));
  int g = imp_name2id(m, IMP_OBJ_GEOM, "L_f2_g");
  ck_assert_int_eq(m->geom_dataid[g], imp_name2id(m, IMP_OBJ_MESH, "L_f2_wedge"));
  imp_free_model(m);
  imp_test_remove_dir(g_dir);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("attach");
  TCase* t = tcase_create("attach");
  tcase_add_test(t, attached_model_equals_the_file_written_by_hand);
  tcase_add_test(t, references_are_prefixed);
  tcase_add_test(t, sub_model_angles_in_its_own_unit);
  tcase_add_test(t, errors_name_file_and_line);
  tcase_add_test(t, repeated_prefix_is_a_name_collision);
  tcase_add_test(t, model_attaching_itself_is_an_error);
  tcase_add_test(t, unimplemented_parts_are_refused);
  tcase_add_test(t, world_and_frame_attachments);
  tcase_add_test(t, nested_attachments_compose_prefixes);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(suite()); }
