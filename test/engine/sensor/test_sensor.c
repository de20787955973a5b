/* Unit tests of the sensors (engine/sensor/sensor.c, engine/collision/ray.c, model/sensor.c).
 *
 * Truths: the definitions (jointpos is qpos, framepos of a site is
 * site_xpos, clock is time), mechanics (a body at rest feels +g upwards, a
 * falling one nothing; a spinning body's gyro reads its angular velocity
 * in the site frame; a resting box's touch sensor and a welded body's force
 * sensor carry its weight, and the torque sensor that weight's moment about
 * the site), geometry (a ray meets a plane at h / cos(angle), a sphere at
 * distance - r, from inside on the way out), the stage rule (after a step
 * the values are those of the state the step started from), the cutoff and
 * noise rules, and the loader's errors and warnings. MuJoCo 2.2.2 agreement
 * is test/mujoco/test_mujoco_sensor.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "collision/collision.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

#define G 9.81

/* sensor value k of the sensor named name */
static double value(const imp_model* m, const imp_data* d, const char* name, int k) {
  int i = imp_test_id(m, IMP_OBJ_SENSOR, name);
  ck_assert_int_lt(k, m->sensor_dim[i]);
  return d->sensordata[m->sensor_adr[i] + k];
}

/* the sensor's values */
static const double* values(const imp_model* m, const imp_data* d, const char* name) {
  return d->sensordata + m->sensor_adr[imp_test_id(m, IMP_OBJ_SENSOR, name)];
}

/* src with its first occurrence of old replaced by new, into out */
static void replace(char* out, size_t n, const char* src, const char* old, const char* new) {
  const char* at = strstr(src, old);
  ck_assert_msg(at != NULL, "'%s' not found", old);
  snprintf(out, n, "%.*s%s%s", (int)(at - src), src, new, at + strlen(old));
}

/* the loader's error for xml (which must not load) */
static void expect_error(const char* xml, const char* what) {
  char err[IMP_TEST_ERRSZ] = "";
  imp_model* m = imp_load_xml_string(xml, NULL, "s.xml", err, sizeof err);
  ck_assert_msg(m == NULL, "loaded, expected: %s", what);
  ck_assert_msg(strstr(err, what) != NULL, "error '%s' does not say '%s'", err, what);
  ck_assert_msg(strncmp(err, "s.xml:", 6) == 0, "error '%s' has no file:line", err);
}

static const char* const k_arm =
    "<mujoco>\n"
    "  <option timestep='0.002'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body name='b1' pos='0 0 1'>\n"
    "      <joint name='hinge' type='hinge' axis='0 1 0'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>\n"
    "      <site name='s1' pos='0.3 0 0' euler='10 20 30'/>\n"
    "      <body name='b2' pos='0.3 0 0'>\n"
    "        <joint name='slide' type='slide' axis='1 0 0'/>\n"
    "        <joint name='ball' type='ball'/>\n"
    "        <geom type='box' size='0.05 0.04 0.03'/>\n"
    "        <site name='s2' pos='0.05 0 0'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator><motor name='mot' joint='hinge' gear='2'/></actuator>\n"
    "  <sensor>\n"
    "    <jointpos name='q' joint='hinge'/>\n"
    "    <jointvel name='v' joint='slide'/>\n"
    "    <ballquat name='bq' joint='ball'/>\n"
    "    <framepos name='p1' objtype='site' objname='s1'/>\n"
    "    <framequat objtype='site' objname='s1'/>\n"
    "    <framepos name='p2in1' objtype='site' objname='s2' reftype='site' refname='s1'/>\n"
    "    <framexaxis name='x1' objtype='site' objname='s1'/>\n"
    "    <framezaxis name='z2' objtype='xbody' objname='b2' reftype='body' refname='b1'/>\n"
    "    <actuatorfrc name='f' actuator='mot'/>\n"
    "    <clock name='t'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

START_TEST(layout_and_names) {
  imp_model* m = imp_test_load_string(k_arm);
  ck_assert_int_eq(m->nsensor, 10);
  ck_assert_int_eq(m->nsensordata, 1 + 1 + 4 + 3 + 4 + 3 + 3 + 3 + 1 + 1);
  int adr = 0;
  for (int i = 0; i < m->nsensor; i++) {
    ck_assert_int_eq(m->sensor_adr[i], adr); /* file order, packed */
    adr += m->sensor_dim[i];
  }
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_SENSOR, "bq"), 2);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_SENSOR, 4), ""); /* unnamed */
  ck_assert_int_eq(m->sensor_type[2], IMP_SENS_BALLQUAT);
  ck_assert_int_eq(m->sensor_datatype[2], IMP_SENSDATA_QUATERNION);
  ck_assert_int_eq(m->sensor_datatype[6], IMP_SENSDATA_AXIS);
  ck_assert_int_eq(m->sensor_needstage[1], IMP_STAGE_VEL);
  ck_assert_int_eq(m->sensor_needstage[8], IMP_STAGE_ACC);
  ck_assert_int_eq(m->sensor_objtype[7], IMP_OBJ_XBODY);
  ck_assert_int_eq(m->sensor_objid[7], imp_name2id(m, IMP_OBJ_BODY, "b2"));
  ck_assert_int_eq(m->sensor_reftype[7], IMP_OBJ_BODY);
  ck_assert_int_eq(m->sensor_refid[5], imp_name2id(m, IMP_OBJ_SITE, "s1"));
  ck_assert_int_eq(m->sensor_refid[0], -1);
  ck_assert_int_eq(m->sensor_objtype[9], -1); /* the clock senses no object */
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_XBODY, "b2"), imp_name2id(m, IMP_OBJ_BODY, "b2"));
  imp_free_model(m);
}
END_TEST

/* After imp_forward the sensors read the state; after imp_step they read
   the state the step started from (MuJoCo's mj_step convention). */
START_TEST(sensors_read_the_state_the_step_started_from) {
  imp_model* m = imp_test_load_string(k_arm);
  imp_data* d = imp_make_data(m);
  d->qpos[0] = 0.3;
  d->qpos[1] = 0.05;
  d->qvel[0] = 1.5;
  d->qvel[1] = -0.7;
  d->time = 2.5;
  imp_forward(m, d);
  imp_assert_near(value(m, d, "q", 0), 0.3, 0);
  imp_assert_near(value(m, d, "v", 0), -0.7, 0);
  imp_assert_near(value(m, d, "t", 0), 2.5, 0);
  imp_assert_vec_near(values(m, d, "bq"), d->qpos + 2, 4, 0);
  for (int s = 0; s < 5; s++) {
    double q = d->qpos[0], v = d->qvel[1], t = d->time;
    imp_step(m, d);
    ck_assert(d->qpos[0] != q);
    imp_assert_near(value(m, d, "q", 0), q, 0);
    imp_assert_near(value(m, d, "v", 0), v, 0);
    imp_assert_near(value(m, d, "t", 0), t, 0);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(frame_sensors_are_the_frames) {
  imp_model* m = imp_test_load_string(k_arm);
  imp_data* d = imp_make_data(m);
  d->qpos[0] = -0.4;
  d->qpos[1] = 0.1;
  double q[4] = {0.9, 0.2, -0.3, 0.1};
  imp_quat_normalize(q);
  imp_copy(d->qpos + 2, q, 4);
  imp_forward(m, d);
  int s1 = imp_test_id(m, IMP_OBJ_SITE, "s1"), s2 = imp_test_id(m, IMP_OBJ_SITE, "s2");
  int b1 = imp_test_id(m, IMP_OBJ_BODY, "b1"), b2 = imp_test_id(m, IMP_OBJ_BODY, "b2");
  imp_assert_vec_near(values(m, d, "p1"), d->site_xpos + 3 * s1, 3, 0);
  /* the quaternion is the site's rotation */
  double R[9];
  imp_quat2mat(R, d->sensordata + m->sensor_adr[4]);
  imp_assert_vec_near(R, d->site_xmat + 9 * s1, 9, 1e-15);
  double x[3] = {d->site_xmat[9 * s1], d->site_xmat[9 * s1 + 3], d->site_xmat[9 * s1 + 6]};
  imp_assert_vec_near(values(m, d, "x1"), x, 3, 0);
  /* relative: R1'(p2 - p1), and body 2's z axis in body 1's inertial frame */
  double dp[3], e[3], z[3] = {d->xmat[9 * b2 + 2], d->xmat[9 * b2 + 5], d->xmat[9 * b2 + 8]};
  for (int k = 0; k < 3; k++) dp[k] = d->site_xpos[3 * s2 + k] - d->site_xpos[3 * s1 + k];
  imp_mat3T_vec(e, d->site_xmat + 9 * s1, dp);
  imp_assert_vec_near(values(m, d, "p2in1"), e, 3, 1e-15);
  imp_mat3T_vec(e, d->ximat + 9 * b1, z);
  imp_assert_vec_near(values(m, d, "z2"), e, 3, 1e-15);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static const char* const k_imu =
    "<mujoco>\n"
    "  <compiler angle='radian'/>\n"
    "  <option timestep='0.001' magnetic='0.3 -0.2 0.5'/>\n"
    "  <worldbody>\n"
    "    <body name='post' pos='0 0 1' euler='0.2 0.4 -0.3'>\n"
    "      <geom type='box' size='0.1 0.1 0.1' mass='3'/>\n"
    "      <site name='fixed' pos='0.1 0 0' euler='0.5 -0.1 0.7'/>\n"
    "    </body>\n"
    "    <body name='flyer' pos='0 0 5'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.2 0.1 0.05' mass='2'/>\n"
    "      <site name='imu' pos='0 0 0' euler='0.3 0.6 -0.2'/>\n"
    "      <site name='offcentre' pos='0.3 0 0'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <sensor>\n"
    "    <accelerometer name='acc_fixed' site='fixed'/>\n"
    "    <magnetometer name='mag' site='fixed'/>\n"
    "    <force name='f_fixed' site='fixed'/>\n"
    "    <torque name='t_fixed' site='fixed'/>\n"
    "    <accelerometer name='acc_fly' site='imu'/>\n"
    "    <gyro name='gyro' site='imu'/>\n"
    "    <velocimeter name='vel' site='imu'/>\n"
    "    <accelerometer name='acc_off' site='offcentre'/>\n"
    "    <subtreecom name='com' body='flyer'/>\n"
    "    <subtreelinvel name='comvel' body='flyer'/>\n"
    "    <subtreeangmom name='L' body='flyer'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

/* A body at rest feels +g upwards (the world's gravity offset), in its
   site frame; a welded body's force sensor carries its weight (what the
   parent applies: m g up), the torque sensor that force's moment about the
   site, (c - p) x m g z; a magnetometer reads the field in its frame. */
START_TEST(resting_body_feels_gravity_upwards) {
  imp_model* m = imp_test_load_string(k_imu);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  int s = imp_test_id(m, IMP_OBJ_SITE, "fixed"), b = imp_test_id(m, IMP_OBJ_BODY, "post");
  const double* R = d->site_xmat + 9 * s;
  double up[3] = {0, 0, G}, e[3], mg[3] = {0, 0, 3 * G};
  imp_mat3T_vec(e, R, up);
  imp_assert_vec_near(values(m, d, "acc_fixed"), e, 3, 1e-12);
  imp_mat3T_vec(e, R, m->opt.magnetic);
  imp_assert_vec_near(values(m, d, "mag"), e, 3, 1e-15);
  imp_mat3T_vec(e, R, mg);
  imp_assert_vec_near(values(m, d, "f_fixed"), e, 3, 1e-12);
  double arm[3], t[3];
  for (int k = 0; k < 3; k++) arm[k] = d->xipos[3 * b + k] - d->site_xpos[3 * s + k];
  imp_cross(t, arm, mg);
  imp_mat3T_vec(e, R, t);
  imp_assert_vec_near(values(m, d, "t_fixed"), e, 3, 1e-12);
  ck_assert(fabs(e[0]) + fabs(e[1]) + fabs(e[2]) > 0.1); /* the moment is not trivially 0 */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A free body falling feels nothing; spinning without gravity its gyro
   reads its angular velocity in the site frame, its velocimeter its
   velocity, and an off-centre accelerometer the centripetal w x (w x r). */
START_TEST(falling_and_spinning_body) {
  imp_model* m = imp_test_load_string(k_imu);
  imp_data* d = imp_make_data(m);
  d->qvel[0] = 1;
  d->qvel[2] = -2;
  imp_step(m, d);
  imp_assert_vec_near(values(m, d, "acc_fly"), ((double[3]){0, 0, 0}), 3, 1e-12);
  imp_free_data(d);
  imp_free_model(m);

  char xml[4096];
  replace(xml, sizeof xml, k_imu, "magnetic='0.3 -0.2 0.5'", "gravity='0 0 0'");
  m = imp_test_load_string(xml);
  d = imp_make_data(m);
  int b = imp_test_id(m, IMP_OBJ_BODY, "flyer"), s = imp_test_id(m, IMP_OBJ_SITE, "imu");
  double v[3] = {0.5, -1, 2}, wb[3] = {0.3, -0.7, 1.1}; /* world velocity, body-frame spin */
  imp_copy(d->qvel, v, 3);
  imp_copy(d->qvel + 3, wb, 3);
  imp_forward(m, d);
  double w[3], e[3];
  imp_mat3_vec(w, d->xmat + 9 * b, wb);
  imp_mat3T_vec(e, d->site_xmat + 9 * s, w);
  imp_assert_vec_near(values(m, d, "gyro"), e, 3, 1e-14);
  imp_mat3T_vec(e, d->site_xmat + 9 * s, v); /* the site is at the origin, the com */
  imp_assert_vec_near(values(m, d, "vel"), e, 3, 1e-14);
  /* off-centre: the torque-free motion has angular acceleration alpha =
     -I^-1 (w x I w), so a = alpha x r + w x (w x r) (site frame = body frame) */
  int o = imp_test_id(m, IMP_OBJ_SITE, "offcentre");
  double r[3], wr[3], a[3], Iw[3], wIw[3], alpha[3], ar[3], lb[3];
  for (int k = 0; k < 3; k++) r[k] = d->site_xpos[3 * o + k] - d->xipos[3 * b + k];
  const double* Ri = d->ximat + 9 * b;
  imp_mat3T_vec(lb, Ri, w);
  for (int k = 0; k < 3; k++) lb[k] *= m->body_inertia[3 * b + k];
  imp_mat3_vec(Iw, Ri, lb);
  imp_cross(wIw, w, Iw);
  imp_mat3T_vec(lb, Ri, wIw);
  for (int k = 0; k < 3; k++) lb[k] /= -m->body_inertia[3 * b + k];
  imp_mat3_vec(alpha, Ri, lb);
  imp_cross(wr, w, r);
  imp_cross(a, w, wr);
  imp_cross(ar, alpha, r);
  for (int k = 0; k < 3; k++) a[k] += ar[k];
  imp_mat3T_vec(e, d->site_xmat + 9 * o, a);
  imp_assert_vec_near(values(m, d, "acc_off"), e, 3, 1e-12);
  /* subtree: its com, velocity, and angular momentum R I R' w */
  imp_assert_vec_near(values(m, d, "com"), d->xipos + 3 * b, 3, 1e-15);
  imp_assert_vec_near(values(m, d, "comvel"), v, 3, 1e-14);
  imp_assert_vec_near(values(m, d, "L"), Iw, 3, 1e-14);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A free body A carrying a body B that a weld holds to the world: at rest
   the weld (an external wrench on B) carries both, so what A applies to B
   is A's weight down, with no moment about A's centre of mass: the force
   sensor on B reads -m_A g z and the torque sensor (c_A - p) x (-m_A g z),
   in the site frame (MuJoCo 2.2.2 reads the same force but 2/3 of this
   torque, measured: its weld wrench in cfrc_ext is not the one that holds
   the body). A pinned L-shaped chain: the connect's force is external to
   its body too (MuJoCo 2.2.2 agrees there). */
START_TEST(force_torque_with_equalities) {
  imp_model* m = imp_test_load_string(
      "<mujoco><compiler angle='degree'/><option timestep='0.002'><flag contact='disable'/>"
      "</option><worldbody>"
      "<body name='A' pos='0 0 1'><freejoint/><geom type='box' size='0.1 0.1 0.1' mass='3'/>"
      "<body name='B' pos='0.3 0 0'><geom type='sphere' size='0.05' mass='1'/>"
      "<site name='sB' pos='0 0 0.05' euler='10 20 30'/></body></body>"
      "<body name='C' pos='1 0 1'><joint type='hinge' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.03' mass='1'/>"
      "<body name='D' pos='0.4 0 0' euler='0 90 0'><joint type='hinge' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.03' mass='1'/>"
      "<site name='sD' pos='0.4 0 0'/></body></body></worldbody>"
      "<equality><weld body1='B'/><connect body1='D' anchor='0.4 0 0'/></equality>"
      "<sensor><force name='f' site='sB'/><torque name='t' site='sB'/>"
      "<force name='fD' site='sD'/><torque name='tD' site='sD'/></sensor></mujoco>");
  imp_data* d = imp_make_data(m);
  for (int s = 0; s < 500; s++) imp_step(m, d);
  int a = imp_test_id(m, IMP_OBJ_BODY, "A"), sb = imp_test_id(m, IMP_OBJ_SITE, "sB");
  double F[3] = {0, 0, -3 * G}, r[3], t[3], e[3];
  for (int k = 0; k < 3; k++) r[k] = d->xipos[3 * a + k] - d->site_xpos[3 * sb + k];
  imp_cross(t, r, F);
  imp_mat3T_vec(e, d->site_xmat + 9 * sb, F);
  imp_assert_vec_near(values(m, d, "f"), e, 3, 1e-6);
  imp_mat3T_vec(e, d->site_xmat + 9 * sb, t);
  imp_assert_vec_near(values(m, d, "t"), e, 3, 1e-6);
  /* D hangs straight down from C's tip to the pin (the site): C, a bar
     hinged at its other end, leans on D with half its weight, which the pin
     carries; so C pushes D down by m_C g / 2, on the pin's vertical: no
     moment about the pin */
  int sd = imp_test_id(m, IMP_OBJ_SITE, "sD");
  double down[3] = {0, 0, -0.5 * G};
  imp_mat3T_vec(e, d->site_xmat + 9 * sd, down);
  imp_assert_vec_near(values(m, d, "fD"), e, 3, 1e-6);
  imp_assert_vec_near(values(m, d, "tD"), ((double[3]){0, 0, 0}), 3, 1e-6);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static const char* const k_box =
    "<mujoco>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='5 5 0.1'/>\n"
    "    <body name='box' pos='0 0 0.1'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.1 0.1 0.1' mass='2'/>\n"
    "      <site name='bottom' type='box' pos='0 0 -0.1' size='0.11 0.11 0.02'/>\n"
    "      <site name='top' type='box' pos='0 0 0.1' size='0.11 0.11 0.02'/>\n"
    "      <site name='centre'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <sensor>\n"
    "    <touch name='touch' site='bottom'/>\n"
    "    <touch name='touch_top' site='top'/>\n"
    "    <touch name='touch_cut' site='bottom' cutoff='5'/>\n"
    "    <accelerometer name='acc' site='centre'/>\n"
    "    <rangefinder name='range_up' site='top'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

/* A box resting on the floor: the touch sensor under it carries its
   weight, the one on top nothing; its accelerometer reads +g. */
START_TEST(touch_reads_the_weight) {
  imp_model* m = imp_test_load_string(k_box);
  imp_data* d = imp_make_data(m);
  for (int s = 0; s < 300; s++) imp_step(m, d);
  ck_assert_int_ge(d->ncon, 4);
  imp_assert_rel(value(m, d, "touch", 0), 2 * G, 1e-6);
  imp_assert_near(value(m, d, "touch_top", 0), 0, 0);
  imp_assert_near(value(m, d, "touch_cut", 0), 5, 0); /* positive: at most the cutoff */
  imp_assert_vec_near(values(m, d, "acc"), ((double[3]){0, 0, G}), 3, 1e-6);
  imp_assert_near(value(m, d, "range_up", 0), -1, 0); /* nothing above */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static const char* const k_eyes =
    "<mujoco>\n"
    "  <compiler angle='degree'/>\n"
    "  <worldbody>\n"
    "    <geom name='floor' type='plane' size='0 0 1'/>\n"
    "    <geom name='ghost' type='sphere' size='0.2' pos='0 0 1' rgba='1 1 1 0'/>\n"
    "    <body name='head' pos='0 0 2'>\n"
    "      <geom name='own' type='sphere' size='0.5'/>\n"
    "      <site name='down' zaxis='0 0 -1'/>\n"
    "      <site name='up' zaxis='0 0 1'/>\n"
    "      <site name='slant' axisangle='0 1 0 150'/>\n"
    "      <site name='side' zaxis='1 0 0'/>\n"
    "    </body>\n"
    "    <site name='below' pos='0 0 -1' zaxis='0 0 1'/>\n"
    "  </worldbody>\n"
    "  <sensor>\n"
    "    <rangefinder name='down' site='down'/>\n"
    "    <rangefinder name='up' site='up'/>\n"
    "    <rangefinder name='slant' site='slant'/>\n"
    "    <rangefinder name='side' site='side'/>\n"
    "    <rangefinder name='cut' site='down' cutoff='1.5'/>\n"
    "    <rangefinder name='below' site='below'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

/* A plane 2 m below: 2 straight down (through the invisible sphere and out
   of the site's own body, both skipped), 2 / cos 30 at 30 degrees from
   the vertical, -1 up or level; a cutoff clamps the distance. From below
   the floor, a world site skips the world's geoms and sees the head; a
   plane is one-sided anyway (as in MuJoCo 2.2.2): imp_ray sees through it
   from behind. */
START_TEST(rangefinder_meets_the_plane) {
  imp_model* m = imp_test_load_string(k_eyes);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_assert_near(value(m, d, "down", 0), 2, 1e-15);
  imp_assert_near(value(m, d, "up", 0), -1, 0);
  imp_assert_near(value(m, d, "slant", 0), 2 / cos(IMP_PI / 6), 1e-14);
  imp_assert_near(value(m, d, "side", 0), -1, 0);
  imp_assert_near(value(m, d, "cut", 0), 1.5, 0);
  imp_assert_near(value(m, d, "below", 0), 2.5, 1e-15);
  int g = -2;
  double p[3] = {0, 0, -1}, up[3] = {0, 0, 1};
  imp_assert_near(imp_ray(m, d, p, up, 0, &g), 2.5, 1e-15);
  ck_assert_int_eq(g, imp_test_id(m, IMP_OBJ_GEOM, "own"));
  imp_assert_near(imp_ray(m, d, p, up, -1, &g), 2.5, 1e-15); /* the plane is one-sided */
  double far[3] = {0, 0, 3}, down[3] = {0, 0, -2};
  imp_assert_near(imp_ray(m, d, far, down, -1, &g), 0.25, 1e-15); /* units of |vec| */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Each primitive, from outside and from inside, against its closed form. */
START_TEST(ray_primitives) {
  double pos[3] = {1, 2, 3}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R[9], q[4];
  double axis[3] = {0.3, -0.5, 0.8};
  imp_normalize3(axis);
  imp_axisangle2quat(q, axis, 0.7);
  imp_quat2mat(R, q);
  double x[3] = {R[0], R[3], R[6]}, z[3] = {R[2], R[5], R[8]}, p[3], v[3];
  /* along the local x axis from 5 units away */
  for (int k = 0; k < 3; k++) p[k] = pos[k] - 5 * x[k];
  double sphere[3] = {0.5, 0, 0}, box[3] = {0.4, 0.3, 0.2}, cyl[3] = {0.3, 0.6, 0};
  double ell[3] = {0.7, 0.2, 0.1}, cap[3] = {0.25, 0.5, 0};
  imp_assert_near(imp_ray_primitive(IMP_GEOM_SPHERE, pos, R, sphere, p, x), 4.5, 1e-14);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_BOX, pos, R, box, p, x), 4.6, 1e-14);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_CYLINDER, pos, R, cyl, p, x), 4.7, 1e-14);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_ELLIPSOID, pos, R, ell, p, x), 4.3, 1e-14);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_CAPSULE, pos, R, cap, p, x), 4.75, 1e-14);
  /* along the local z axis: caps and ends */
  for (int k = 0; k < 3; k++) p[k] = pos[k] - 5 * z[k];
  imp_assert_near(imp_ray_primitive(IMP_GEOM_CYLINDER, pos, R, cyl, p, z), 4.4, 1e-14);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_CAPSULE, pos, R, cap, p, z), 4.25, 1e-14);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_BOX, pos, R, box, p, z), 4.8, 1e-14);
  /* from the centre: the way out */
  imp_assert_near(imp_ray_primitive(IMP_GEOM_SPHERE, pos, R, sphere, pos, z), 0.5, 1e-15);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_BOX, pos, R, box, pos, x), 0.4, 1e-15);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_CAPSULE, pos, R, cap, pos, z), 0.75, 1e-15);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_CYLINDER, pos, R, cyl, pos, x), 0.3, 1e-15);
  imp_assert_near(imp_ray_primitive(IMP_GEOM_ELLIPSOID, pos, R, ell, pos, z), 0.1, 1e-15);
  /* misses: beside the sphere, and past a capsule's cap in the slab */
  for (int k = 0; k < 3; k++) p[k] = pos[k] - 5 * x[k] + 0.6 * z[k], v[k] = x[k];
  ck_assert(imp_ray_primitive(IMP_GEOM_SPHERE, pos, R, sphere, p, v) < 0);
  for (int k = 0; k < 3; k++) p[k] = pos[k] - 5 * x[k] + 0.76 * z[k];
  ck_assert(imp_ray_primitive(IMP_GEOM_CAPSULE, pos, R, cap, p, v) < 0);
  /* pointing away */
  for (int k = 0; k < 3; k++) p[k] = pos[k] - 5 * x[k], v[k] = -x[k];
  ck_assert(imp_ray_primitive(IMP_GEOM_BOX, pos, R, box, p, v) < 0);
  /* a finite plane: met inside its rectangle only */
  double plane[3] = {1, 2, 0}, top[3] = {0.5, 1.5, 1}, out[3] = {1.5, 0, 1}, down[3] = {0, 0, -1};
  imp_assert_near(imp_ray_primitive(IMP_GEOM_PLANE, (double[3]){0, 0, 0}, I, plane, top, down), 1,
                  0);
  ck_assert(imp_ray_primitive(IMP_GEOM_PLANE, (double[3]){0, 0, 0}, I, plane, out, down) < 0);
}
END_TEST

/* A mesh meets rays on its triangles: the wedge (a prism) from above. */
START_TEST(ray_mesh) {
  imp_model* m = imp_test_load_string(
      "<mujoco><compiler meshdir='meshes'/><asset><mesh file='wedge.obj'/></asset>"
      "<worldbody><geom name='w' type='mesh' mesh='wedge'/></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  /* the prism's extent along world z, straight down through its middle */
  double top = -1e9, bottom = 1e9;
  for (int i = 0; i < m->mesh_vertnum[0]; i++) {
    double p[3];
    imp_mat3_vec(p, d->geom_xmat, m->mesh_vert + 3 * i);
    top = fmax(top, p[2] + d->geom_xpos[2]);
    bottom = fmin(bottom, p[2] + d->geom_xpos[2]);
  }
  double from[3] = {d->geom_xpos[0], d->geom_xpos[1], 10}, down[3] = {0, 0, -1};
  int g;
  double t = imp_ray(m, d, from, down, -1, &g);
  ck_assert_int_eq(g, 0);
  ck_assert_msg(t >= 10 - top - 1e-12 && t <= 10 - bottom, "t %g, top %g bottom %g", t, top,
                bottom);
  double inside[3] = {d->geom_xpos[0], d->geom_xpos[1], d->geom_xpos[2]};
  double u = imp_ray(m, d, inside, down, -1, &g); /* from its centroid, the way out */
  ck_assert(u > 0 && u <= d->geom_xpos[2] - bottom + 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static const char* const k_cut =
    "<mujoco>\n"
    "  <option><flag gravity='disable' contact='disable'/></option>\n"
    "  <worldbody><body><joint name='j' type='hinge'/>\n"
    "    <joint name='b' type='ball' armature='0.01'/>\n"
    "    <geom size='0.1'/><site name='s'/></body></worldbody>\n"
    "  <sensor>\n"
    "    <jointvel name='v' joint='j' cutoff='2'/>\n"
    "    <jointpos name='q' joint='j' noise='0.5'/>\n"
    "    <ballquat name='bq' joint='b' cutoff='0.1' noise='0.2'/>\n"
    "    <framexaxis name='x' objtype='site' objname='s' noise='0.3'/>\n"
    "    <gyro name='w' site='s' cutoff='1'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

/* cutoff: real values to [-c, c]; quaternions and axes never. */
START_TEST(cutoff_clamps) {
  imp_model* m = imp_test_load_string(k_cut);
  imp_data* d = imp_make_data(m);
  d->qvel[0] = 5;
  d->qvel[1] = -3;
  imp_forward(m, d);
  imp_assert_near(value(m, d, "v", 0), 2, 0);
  imp_assert_near(value(m, d, "bq", 0), 1, 0); /* not cut to 0.1 */
  const double* w = values(m, d, "w");
  imp_assert_near(w[2], 1, 0);  /* 5 about z */
  imp_assert_near(w[0], -1, 0); /* -3 about x */
  d->qvel[0] = -5;
  imp_forward(m, d);
  imp_assert_near(value(m, d, "v", 0), -2, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* noise: none without the flag; with it, Gaussian of the sensor's standard
   deviation, unit vectors and quaternions kept unit, and the same draws
   after a reset. */
START_TEST(noise_only_with_the_flag) {
  imp_model* m = imp_test_load_string(k_cut);
  imp_data* d = imp_make_data(m);
  d->qpos[0] = 0.25;
  imp_forward(m, d);
  imp_assert_near(value(m, d, "q", 0), 0.25, 0);
  imp_free_data(d);
  imp_free_model(m);

  char xml[4096];
  replace(xml, sizeof xml, k_cut, "gravity='disable'", "sensornoise='enable'");
  m = imp_test_load_string(xml);
  ck_assert(m->opt.enableflags & IMP_ENBL_SENSORNOISE);
  d = imp_make_data(m);
  enum { N = 20000 };
  double sum = 0, sum2 = 0, first[3];
  for (int n = 0; n < N; n++) {
    d->qpos[0] = 0.25;
    imp_forward(m, d);
    double e = value(m, d, "q", 0) - 0.25;
    sum += e;
    sum2 += e * e;
    const double* q = values(m, d, "bq");
    const double* x = values(m, d, "x");
    imp_assert_near(sqrt(imp_dot(q, q, 4)), 1, 1e-12);
    imp_assert_near(imp_norm3(x), 1, 1e-12);
    if (n < 3) first[n] = e;
  }
  double mean = sum / N, sd = sqrt(sum2 / N - mean * mean);
  ck_assert_msg(fabs(mean) < 5 * 0.5 / sqrt(N), "mean %g", mean);
  ck_assert_msg(fabs(sd - 0.5) < 0.02, "standard deviation %g, want 0.5", sd);
  imp_reset_data(m, d);
  for (int n = 0; n < 3; n++) {
    d->qpos[0] = 0.25;
    imp_forward(m, d);
    imp_assert_near(value(m, d, "q", 0) - 0.25, first[n], 0);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* <flag sensor='disable'>: sensordata is left as it was. */
START_TEST(disabled_sensors_keep_their_values) {
  imp_model* m = imp_test_load_string(
      "<mujoco><option><flag sensor='disable'/></option><worldbody><body>"
      "<joint name='j' type='slide'/><geom size='0.1'/></body></worldbody>"
      "<sensor><jointpos joint='j'/><clock/></sensor></mujoco>");
  ck_assert(m->opt.disableflags & IMP_DSBL_SENSOR);
  imp_data* d = imp_make_data(m);
  d->sensordata[0] = 7;
  d->qpos[0] = 1;
  imp_step(m, d);
  imp_assert_near(d->sensordata[0], 7, 0);
  imp_assert_near(d->sensordata[1], 0, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A hinge held against its lower limit by gravity: the limit sensors see
   the row (violation at most the resting slop, no velocity at rest) and
   its force balances the weight's moment, m g l; a joint far from its
   limits reads 0. */
START_TEST(joint_limit_sensors) {
  imp_model* m = imp_test_load_string(
      "<mujoco><compiler angle='radian'/><option timestep='0.002'/><worldbody>"
      "<body pos='0 0 1'><joint name='j' type='hinge' axis='0 -1 0' range='0 1'/>"
      "<geom type='sphere' size='0.05' mass='2' pos='0.5 0 0'/></body>"
      "<body pos='2 0 1'><joint name='free' type='slide' axis='1 0 0' range='-1 1'/>"
      "<geom type='sphere' size='0.05'/></body></worldbody>"
      "<sensor><jointlimitpos name='p' joint='j'/><jointlimitvel name='v' joint='j'/>"
      "<jointlimitfrc name='f' joint='j'/><jointlimitfrc name='none' joint='free'/></sensor>"
      "</mujoco>");
  imp_data* d = imp_make_data(m);
  for (int s = 0; s < 200; s++) imp_step(m, d);
  ck_assert(fabs(value(m, d, "p", 0)) < 1e-5);
  ck_assert(fabs(value(m, d, "v", 0)) < 1e-6);
  imp_assert_rel(value(m, d, "f", 0), 2 * G * 0.5, 1e-6);
  imp_assert_near(value(m, d, "none", 0), 0, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* RK4 computes the step's sensors once, at its start state. */
START_TEST(rk4_sensors_are_the_start_state) {
  imp_model* m = imp_test_load_string(
      "<mujoco><option integrator='RK4' timestep='0.01'/><worldbody><body pos='0 0 1'>"
      "<joint name='j' type='hinge' axis='0 1 0'/><geom type='capsule' fromto='0 0 0 0.4 0 0' "
      "size='0.03'/></body></worldbody><sensor><jointpos joint='j'/><jointvel joint='j'/>"
      "<clock/></sensor></mujoco>");
  imp_data* d = imp_make_data(m);
  for (int s = 0; s < 10; s++) {
    double q = d->qpos[0], v = d->qvel[0], t = d->time;
    imp_step(m, d);
    imp_assert_near(d->sensordata[0], q, 0);
    imp_assert_near(d->sensordata[1], v, 0);
    imp_assert_near(d->sensordata[2], t, 0);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* ---- the loader ---- */

#define BODY \
  "<mujoco><worldbody><site name='ws'/><body name='b'><joint name='h' type='hinge'/>" \
  "<geom size='0.1'/><site name='s'/><body pos='0.3 0 0'><joint name='ball' type='ball'/>" \
  "<geom size='0.1' pos='0.1 0 0'/></body></body></worldbody>" \
  "<actuator><motor name='a' joint='h'/></actuator>"

START_TEST(loader_refuses_bad_sensors) {
  expect_error(BODY "<sensor><jointpos joint='ball'/></sensor></mujoco>",
               "joint must be slide or hinge");
  expect_error(BODY "<sensor><ballquat joint='h'/></sensor></mujoco>", "joint must be ball");
  expect_error(BODY "<sensor><jointlimitpos joint='h'/></sensor></mujoco>",
               "joint must be limited");
  expect_error(BODY "<sensor><touch site='nosuch'/></sensor></mujoco>", "unknown site 'nosuch'");
  expect_error(BODY "<sensor><touch/></sensor></mujoco>", "attribute 'site' is required");
  expect_error(BODY "<sensor><touch site='s' cutoff='-1'/></sensor></mujoco>", "negative cutoff");
  expect_error(BODY "<sensor><touch site='s' noise='-1'/></sensor></mujoco>", "negative noise");
  expect_error(BODY "<sensor><framepos objtype='site' objname='s' reftype='site'/></sensor>"
                    "</mujoco>",
               "reftype given without refname");
  expect_error(BODY "<sensor><framepos objtype='site' objname='s' refname='s'/></sensor>"
                    "</mujoco>",
               "refname 's' given but reftype is missing");
  expect_error(BODY "<sensor><framelinacc objtype='site' objname='s' reftype='site' "
                    "refname='ws'/></sensor></mujoco>",
               "a reference frame (reftype, refname) is not supported");
  expect_error(BODY "<sensor><framepos objtype='joint' objname='h'/></sensor></mujoco>",
               "unknown value 'joint'");
  expect_error(BODY "<sensor><actuatorfrc actuator='b'/></sensor></mujoco>",
               "unknown actuator 'b'");
  expect_error(BODY "<sensor><clock name='c'/><clock name='c'/></sensor></mujoco>",
               "repeated sensor name 'c'");
  expect_error(BODY "<sensor><user objtype='body' objname='b' datatype='real' needstage='acc' "
                    "dim='400001'/></sensor></mujoco>",
               "dim must be between 0 and 400000");
}
END_TEST

/* Sensors on actuators the loader skipped are left out with a warning
   (sensordata shorter than MuJoCo's); unknown elements warn; user sensors
   keep their room, as zeros. */
START_TEST(loader_skips_what_it_cannot_compute) {
  imp_model* m = imp_test_load_string_allow(
      BODY "<actuator><dcmotor name='sa' joint='h'/></actuator>"
           "<sensor><actuatorfrc actuator='sa'/><jointpos name='q' joint='h'/>"
           "<camprojection site='s'/><user name='u' objtype='site' objname='s' datatype='real' "
           "needstage='vel' dim='2'/></sensor></mujoco>");
  ck_assert_int_eq(m->nsensor, 2);
  ck_assert_int_eq(m->nsensordata, 3);
  ck_assert_int_eq(m->sensor_type[1], IMP_SENS_USER);
  ck_assert_int_eq(m->sensor_needstage[1], IMP_STAGE_VEL);
  ck_assert_msg(strstr(m->warnings, "sensor on actuator 'sa', which the loader skipped"), "%s",
                m->warnings);
  ck_assert_msg(strstr(m->warnings, "element 'camprojection'"), "%s", m->warnings);
  ck_assert_msg(strstr(m->warnings, "user sensors are kept as zeros"), "%s", m->warnings);
  imp_data* d = imp_make_data(m);
  imp_step(m, d);
  imp_assert_near(d->sensordata[1], 0, 0);
  imp_assert_near(d->sensordata[2], 0, 0);
  imp_free_data(d);
  imp_free_model(m);

  m = imp_test_load_string_allow(
      "<mujoco><worldbody><body><joint name='h' type='hinge'/><geom size='0.1'/>"
      "<site name='s'/></body></worldbody>"
      "<actuator><dcmotor name='sm' joint='h'/></actuator>"
      "<sensor><actuatorfrc actuator='sm'/><jointpos joint='h'/></sensor></mujoco>");
  ck_assert_int_eq(m->nsensor, 1);
  ck_assert_int_eq(m->sensor_type[0], IMP_SENS_JOINTPOS);
  ck_assert_msg(strstr(m->warnings, "sensor on actuator 'sm', which the loader skipped"), "%s",
                m->warnings);
  imp_free_model(m);
}
END_TEST

/* The model's bounds: the magnetometer's default field, no sensors at all. */
START_TEST(defaults_and_empty) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body><freejoint/><geom size='0.1'/><site name='s'/></body>"
      "</worldbody><sensor><magnetometer name='m' site='s'/></sensor></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_assert_vec_near(values(m, d, "m"), ((double[3]){0, -0.5, 0}), 3, 0);
  imp_free_data(d);
  imp_free_model(m);
  m = imp_test_load_string_nowarn("<mujoco><worldbody/></mujoco>");
  ck_assert_int_eq(m->nsensor, 0);
  ck_assert_int_eq(m->nsensordata, 0);
  d = imp_make_data(m);
  imp_step(m, d);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static Suite* sensor_suite(void) {
  Suite* s = suite_create("sensor");
  TCase* tc = tcase_create("sensor");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, layout_and_names);
  tcase_add_test(tc, sensors_read_the_state_the_step_started_from);
  tcase_add_test(tc, frame_sensors_are_the_frames);
  tcase_add_test(tc, resting_body_feels_gravity_upwards);
  tcase_add_test(tc, falling_and_spinning_body);
  tcase_add_test(tc, touch_reads_the_weight);
  tcase_add_test(tc, force_torque_with_equalities);
  tcase_add_test(tc, rangefinder_meets_the_plane);
  tcase_add_test(tc, ray_primitives);
  tcase_add_test(tc, ray_mesh);
  tcase_add_test(tc, cutoff_clamps);
  tcase_add_test(tc, noise_only_with_the_flag);
  tcase_add_test(tc, disabled_sensors_keep_their_values);
  tcase_add_test(tc, joint_limit_sensors);
  tcase_add_test(tc, rk4_sensors_are_the_start_state);
  tcase_add_test(tc, loader_refuses_bad_sensors);
  tcase_add_test(tc, loader_skips_what_it_cannot_compute);
  tcase_add_test(tc, defaults_and_empty);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(sensor_suite()); }
