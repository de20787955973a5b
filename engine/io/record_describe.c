/* What each column of a recording holds, in words, for the NPY sidecar's
   "descriptions" (record.h): the joint, actuator, mocap body or sensor a
   column belongs to and which of its values it is, e.g. qpos_3 of a model
   whose first joint is the free joint "torso" is "torso free joint, qw".
   Joint coordinates follow MuJoCo's layout (MJCF reference, joint/type):
   a free joint's qpos is position then unit quaternion (w first), its qvel
   linear then angular velocity; a ball joint's qpos a quaternion, its qvel
   an angular velocity; hinge and slide one value each. */
#include <stdio.h>

#include "io/record_internal.h"

static const char* const free_qpos[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
static const char* const free_qvel[6] = {"vx", "vy", "vz", "wx", "wy", "wz"};
static const char* const ball_qpos[4] = {"qw", "qx", "qy", "qz"};
static const char* const ball_qvel[3] = {"wx", "wy", "wz"};
static const char* const solver_words[4] = {
    "contacts of the step", "constraint rows of the step", "solver iterations of the step",
    "relative residual of the step's contact solve"};

/* "NAME" or "#id" for an object of type t into buf */
static void label(const imp_model* m, int t, int id, char* buf, size_t n) {
  const char* name = imp_id2name(m, t, id);
  if (name && name[0])
    snprintf(buf, n, "%s", name);
  else
    snprintf(buf, n, "#%d", id);
}

static const char* joint_type_name(int type) {
  switch (type) {
    case IMP_JNT_FREE: return "free";
    case IMP_JNT_BALL: return "ball";
    case IMP_JNT_SLIDE: return "slide";
    default: return "hinge";
  }
}

/* The joint that owns coordinate i of qpos (qvel when vel), and i's offset
   in it: the last joint whose address is <= i (addresses ascend). */
static int owner_joint(const imp_model* m, int i, int vel, int* offset) {
  const int* adr = vel ? m->jnt_dofadr : m->jnt_qposadr;
  int j = 0;
  while (j + 1 < m->njnt && adr[j + 1] <= i) j++;
  *offset = i - adr[j];
  return j;
}

/* A joint coordinate: "NAME TYPE joint, COMPONENT". */
static int joint_words(const imp_model* m, int i, int vel, char* buf, size_t n) {
  int k = 0;
  int j = owner_joint(m, i, vel, &k);
  int type = m->jnt_type[j];
  /* "torso free joint", or "free joint #0" when it has no name */
  char name[300];
  const char* given = imp_id2name(m, IMP_OBJ_JOINT, j);
  if (given && given[0])
    snprintf(name, sizeof name, "%.255s %s joint", given, joint_type_name(type));
  else
    snprintf(name, sizeof name, "%s joint #%d", joint_type_name(type), j);
  const char* what;
  if (type == IMP_JNT_FREE)
    what = vel ? free_qvel[k % 6] : free_qpos[k % 7];
  else if (type == IMP_JNT_BALL)
    what = vel ? ball_qvel[k % 3] : ball_qpos[k % 4];
  else if (type == IMP_JNT_SLIDE)
    what = vel ? "velocity" : "position";
  else
    what = vel ? "angular velocity" : "angle";
  return snprintf(buf, n, "%s, %s", name, what);
}

/* The sensor of value k: the last with sensor_adr <= k. */
static int sensor_words(const imp_model* m, int k, char* buf, size_t n) {
  int s = 0;
  while (s + 1 < m->nsensor && m->sensor_adr[s + 1] <= k) s++;
  char name[256];
  label(m, IMP_OBJ_SENSOR, s, name, sizeof name);
  if (m->sensor_dim[s] > 1)
    return snprintf(buf, n, "sensor %s, value %d of %d", name, k - m->sensor_adr[s],
                    m->sensor_dim[s]);
  return snprintf(buf, n, "sensor %s", name);
}

/* Activation k: the actuator whose activations include it. */
static int act_words(const imp_model* m, int k, char* buf, size_t n) {
  int u = 0;
  while (u + 1 < m->nu && !(m->actuator_actnum[u] && k >= m->actuator_actadr[u] &&
                            k < m->actuator_actadr[u] + m->actuator_actnum[u]))
    u++;
  char name[256];
  label(m, IMP_OBJ_ACTUATOR, u, name, sizeof name);
  return snprintf(buf, n, "actuator %s, activation", name);
}

/* Mocap value k: body k / 7, position then quaternion. */
static int mocap_words(const imp_model* m, int k, char* buf, size_t n) {
  int id = k / 7, j = k % 7, b = 0;
  while (b < m->nbody && m->body_mocapid[b] != id) b++;
  char name[256];
  label(m, IMP_OBJ_BODY, b < m->nbody ? b : 0, name, sizeof name);
  return snprintf(buf, n, "mocap body %s, %s", name, free_qpos[j]);
}

size_t imp_record_describe(const imp_model* m, int nstat, int c, char* buf, size_t n) {
  int w;
  int q = m->nq, v = m->nv, u = m->nu, a = m->na, mc = 7 * m->nmocap;
  int k = c - 1;
  if (c == 0)
    w = snprintf(buf, n, "simulated time");
  else if ((k = c - 1) < q)
    w = joint_words(m, k, 0, buf, n);
  else if ((k -= q) < v)
    w = joint_words(m, k, 1, buf, n);
  else if ((k -= v) < u) {
    char name[256];
    label(m, IMP_OBJ_ACTUATOR, k, name, sizeof name);
    w = snprintf(buf, n, "actuator %s, control", name);
  } else if ((k -= u) < a)
    w = act_words(m, k, buf, n);
  else if ((k -= a) < mc)
    w = mocap_words(m, k, buf, n);
  else if ((k -= mc) < m->nsensordata)
    w = sensor_words(m, k, buf, n);
  else if ((k -= m->nsensordata) < nstat && k < 4)
    w = snprintf(buf, n, "%s", solver_words[k]);
  else
    w = snprintf(buf, n, "?");
  return w > 0 ? (size_t)w : 0;
}
