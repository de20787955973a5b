/* MJCF <sensor>: its children into the spec, then into the model.
 *
 * Every sensor element of MuJoCo 2.2.2 is read, with its common attributes
 * name, noise, cutoff (both >= 0) and user (accepted, not kept). The object
 * attribute depends on the element: site (touch, accelerometer,
 * velocimeter, gyro, force, torque, magnetometer, rangefinder), joint
 * (jointpos, jointvel: hinge or slide; ballquat, ballangvel: ball;
 * jointlimitpos/vel/frc: a limited joint), actuator (actuatorpos/vel/frc),
 * objtype + objname and optionally reftype + refname (framepos, framequat,
 * frame[xyz]axis, framelinvel, frameangvel; framelinacc and frameangacc
 * take no reference frame), body (subtreecom, subtreelinvel,
 * subtreeangmom), none (clock), and for user sensors objtype, objname,
 * datatype, needstage and dim. MuJoCo has no sensor defaults, and neither
 * do we. Checks and their wording follow MuJoCo's compiler.
 *
 * Skipped with a warning, so that sensordata leaves them out (and is then
 * shorter than MuJoCo's): sensors on an actuator the loader skipped (a transmission we do not have), and
 * elements we do not know (MuJoCo 3.x sensors). User sensors are kept, as
 * zeros: nothing computes them (we have no callback). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "loader.h"

/* what a sensor element attaches to */
enum { AT_SITE, AT_JOINT, AT_TENDON, AT_ACTUATOR, AT_FRAME, AT_FRAMEACC, AT_BODY, AT_NONE,
       AT_USER };

typedef struct sensor_kind {
  const char* elem;
  int type;     /* imp_sensor_type */
  int attach;   /* AT_* */
  int dim;
  int datatype; /* imp_sensor_datatype */
  int stage;    /* imp_stage */
} sensor_kind;

#define R IMP_SENSDATA_REAL
#define P IMP_STAGE_POS
#define V IMP_STAGE_VEL
#define A IMP_STAGE_ACC
static const sensor_kind k_kinds[] = {
    {"touch", IMP_SENS_TOUCH, AT_SITE, 1, IMP_SENSDATA_POSITIVE, A},
    {"accelerometer", IMP_SENS_ACCELEROMETER, AT_SITE, 3, R, A},
    {"velocimeter", IMP_SENS_VELOCIMETER, AT_SITE, 3, R, V},
    {"gyro", IMP_SENS_GYRO, AT_SITE, 3, R, V},
    {"force", IMP_SENS_FORCE, AT_SITE, 3, R, A},
    {"torque", IMP_SENS_TORQUE, AT_SITE, 3, R, A},
    {"magnetometer", IMP_SENS_MAGNETOMETER, AT_SITE, 3, R, P},
    {"rangefinder", IMP_SENS_RANGEFINDER, AT_SITE, 1, IMP_SENSDATA_POSITIVE, P},
    {"jointpos", IMP_SENS_JOINTPOS, AT_JOINT, 1, R, P},
    {"jointvel", IMP_SENS_JOINTVEL, AT_JOINT, 1, R, V},
    {"tendonpos", IMP_SENS_TENDONPOS, AT_TENDON, 1, R, P},
    {"tendonvel", IMP_SENS_TENDONVEL, AT_TENDON, 1, R, V},
    {"actuatorpos", IMP_SENS_ACTUATORPOS, AT_ACTUATOR, 1, R, P},
    {"actuatorvel", IMP_SENS_ACTUATORVEL, AT_ACTUATOR, 1, R, V},
    {"actuatorfrc", IMP_SENS_ACTUATORFRC, AT_ACTUATOR, 1, R, A},
    {"ballquat", IMP_SENS_BALLQUAT, AT_JOINT, 4, IMP_SENSDATA_QUATERNION, P},
    {"ballangvel", IMP_SENS_BALLANGVEL, AT_JOINT, 3, R, V},
    {"jointlimitpos", IMP_SENS_JOINTLIMITPOS, AT_JOINT, 1, R, P},
    {"jointlimitvel", IMP_SENS_JOINTLIMITVEL, AT_JOINT, 1, R, V},
    {"jointlimitfrc", IMP_SENS_JOINTLIMITFRC, AT_JOINT, 1, R, A},
    {"tendonlimitpos", IMP_SENS_TENDONLIMITPOS, AT_TENDON, 1, R, P},
    {"tendonlimitvel", IMP_SENS_TENDONLIMITVEL, AT_TENDON, 1, R, V},
    {"tendonlimitfrc", IMP_SENS_TENDONLIMITFRC, AT_TENDON, 1, R, A},
    {"framepos", IMP_SENS_FRAMEPOS, AT_FRAME, 3, R, P},
    {"framequat", IMP_SENS_FRAMEQUAT, AT_FRAME, 4, IMP_SENSDATA_QUATERNION, P},
    {"framexaxis", IMP_SENS_FRAMEXAXIS, AT_FRAME, 3, IMP_SENSDATA_AXIS, P},
    {"frameyaxis", IMP_SENS_FRAMEYAXIS, AT_FRAME, 3, IMP_SENSDATA_AXIS, P},
    {"framezaxis", IMP_SENS_FRAMEZAXIS, AT_FRAME, 3, IMP_SENSDATA_AXIS, P},
    {"framelinvel", IMP_SENS_FRAMELINVEL, AT_FRAME, 3, R, V},
    {"frameangvel", IMP_SENS_FRAMEANGVEL, AT_FRAME, 3, R, V},
    {"framelinacc", IMP_SENS_FRAMELINACC, AT_FRAMEACC, 3, R, A},
    {"frameangacc", IMP_SENS_FRAMEANGACC, AT_FRAMEACC, 3, R, A},
    {"subtreecom", IMP_SENS_SUBTREECOM, AT_BODY, 3, R, P},
    {"subtreelinvel", IMP_SENS_SUBTREELINVEL, AT_BODY, 3, R, V},
    {"subtreeangmom", IMP_SENS_SUBTREEANGMOM, AT_BODY, 3, R, V},
    {"clock", IMP_SENS_CLOCK, AT_NONE, 1, R, P},
    {"user", IMP_SENS_USER, AT_USER, 0, R, A},
    /* MuJoCo 3.x: the actuators' total force at a joint (qfrc_actuator at
       its dof, actuatorgravcomp included) and on a tendon */
    {"jointactuatorfrc", IMP_SENS_JOINTACTFRC, AT_JOINT, 1, R, A},
    {"tendonactuatorfrc", IMP_SENS_TENDONACTFRC, AT_TENDON, 1, R, A},
};
#undef R
#undef P
#undef V
#undef A
#define NKIND ((int)(sizeof k_kinds / sizeof k_kinds[0]))

/* the kind of a sensor element, NULL when we do not know it */
static const sensor_kind* kind_of(const char* elem) {
  for (int k = 0; k < NKIND; k++)
    if (!strcmp(k_kinds[k].elem, elem)) return &k_kinds[k];
  return NULL;
}

/* the words of MJCF objtype/reftype for frames, and their object types */
static const char* const k_frame_words[] = {"body", "xbody", "geom", "site", "camera", NULL};
static const int k_frame_types[] = {IMP_OBJ_BODY, IMP_OBJ_XBODY, IMP_OBJ_GEOM, IMP_OBJ_SITE,
                                    IMP_OBJ_CAMERA};

/* a user sensor's objtype: MuJoCo's object words, and our object types
   (-1: a kind of object we do not have, resolved to no object) */
static const char* const k_user_words[] = {
    "body",   "xbody",    "joint",  "dof",     "geom",     "site",  "camera",  "light",
    "mesh",   "skin",     "hfield", "texture", "material", "pair",  "exclude", "equality",
    "tendon", "actuator", "sensor", "numeric", "text",     "tuple", "key",     NULL};
static const int k_user_types[] = {
    IMP_OBJ_BODY,    IMP_OBJ_XBODY,    IMP_OBJ_JOINT,    -1, /* dof */
    IMP_OBJ_GEOM,    IMP_OBJ_SITE,     IMP_OBJ_CAMERA,   IMP_OBJ_LIGHT,
    IMP_OBJ_MESH,    -1, /* skin */    IMP_OBJ_HFIELD,   IMP_OBJ_TEXTURE,
    IMP_OBJ_MATERIAL, IMP_OBJ_PAIR,    -1, /* exclude */ IMP_OBJ_EQUALITY,
    IMP_OBJ_TENDON,  IMP_OBJ_ACTUATOR, IMP_OBJ_SENSOR,   -1, /* numeric */
    -1, /* text */   -1, /* tuple */   IMP_OBJ_KEY};

/* 1 when the file has an actuator element of that name (kept or not) */
static int file_has_actuator(ld_node* root, const char* name) {
  for (ld_node* sec = root->child; sec; sec = sec->next) {
    if (strcmp(sec->name, "actuator")) continue;
    for (ld_node* a = sec->child; a; a = a->next) {
      const char* s = ld_attr_str(a, "name");
      if (s && !strcmp(s, name)) return 1;
    }
  }
  return 0;
}

/* a required name attribute */
static const char* required(ld_ctx* c, ld_node* n, const char* attr) {
  const char* s = ld_attr_str(n, attr);
  if (!s) ld_error(c, n->file, n->line, "%s sensor: attribute '%s' is required", n->name, attr);
  return s;
}

/* objtype/objname and reftype/refname of a frame sensor */
static void read_frame(ld_ctx* c, ld_node* n, ld_sensor* s, int reference) {
  int k;
  if (!ld_attr_keyword(c, n, "objtype", k_frame_words, &k))
    ld_error(c, n->file, n->line, "%s sensor: attribute 'objtype' is required", n->name);
  s->objtype = k_frame_types[k];
  s->objname = required(c, n, "objname");
  s->reftype = -1;
  if (!reference) {
    if (ld_attr_str(n, "reftype") || ld_attr_str(n, "refname"))
      ld_error(c, n->file, n->line,
               "%s sensor: a reference frame (reftype, refname) is not supported for it "
               "(nor by MuJoCo 2.2.2)", n->name);
    return;
  }
  int has_type = ld_attr_keyword(c, n, "reftype", k_frame_words, &k);
  s->refname = ld_attr_str(n, "refname");
  if (has_type && !s->refname)
    ld_error(c, n->file, n->line, "%s sensor: reftype given without refname", n->name);
  if (!has_type && s->refname)
    ld_error(c, n->file, n->line, "%s sensor: refname '%s' given but reftype is missing", n->name,
             s->refname);
  if (has_type) s->reftype = k_frame_types[k];
}

/* a user sensor's objtype, objname, datatype, needstage and dim */
static void read_user(ld_ctx* c, ld_node* n, ld_sensor* s) {
  static const char* const datatypes[] = {"real", "positive", "axis", "quaternion", NULL};
  static const char* const stages[] = {"pos", "vel", "acc", NULL};
  int k;
  if (!ld_attr_keyword(c, n, "objtype", k_user_words, &k))
    ld_error(c, n->file, n->line, "user sensor: attribute 'objtype' is required");
  s->objtype = k_user_types[k];
  s->objname = required(c, n, "objname");
  if (!ld_attr_keyword(c, n, "datatype", datatypes, &s->datatype))
    ld_error(c, n->file, n->line, "user sensor: attribute 'datatype' is required");
  if (!ld_attr_keyword(c, n, "needstage", stages, &k))
    ld_error(c, n->file, n->line, "user sensor: attribute 'needstage' is required");
  s->needstage = IMP_STAGE_POS + k;
  if (!ld_attr_int(c, n, "dim", &s->dim))
    ld_error(c, n->file, n->line, "user sensor: attribute 'dim' is required");
  if (s->dim < 0 || s->dim > LD_MAXSENSORDATA)
    ld_error(c, n->file, n->line, "user sensor: dim must be between 0 and %d", LD_MAXSENSORDATA);
  ld_warning(c, "sensor/user", n->file, n->line,
             "user sensors are kept as zeros: Impetus has no sensor callback to compute them");
}

/* one sensor element into the spec */
static void parse_sensor(ld_ctx* c, ld_node* root, ld_node* n) {
  const sensor_kind* k = kind_of(n->name);
  if (!k) {
    /* MuJoCo 3.x sensors, misspellings: a sensor changes no motion, so a
       warning (sensordata then leaves it out) */
    char key[160];
    snprintf(key, sizeof key, "e:%s", n->name);
    ld_warning(c, key, n->file, n->line, "element '%s' is not supported yet (ignored)", n->name);
    return;
  }
  if (c->sensors.n >= LD_MAXSENSOR)
    ld_error(c, n->file, n->line, "more than %d sensors", LD_MAXSENSOR);
  ld_sensor* s = ld_push(c, &c->sensors);
  s->name = ld_attr_str(n, "name");
  s->file = n->file;
  s->line = n->line;
  s->type = k->type;
  s->objtype = s->reftype = -1;
  s->objid = s->refid = -1;
  s->dim = k->dim;
  s->datatype = k->datatype;
  s->needstage = k->stage;
  ld_attr_nums(c, n, "noise", &s->noise, 1, 1);
  ld_attr_nums(c, n, "cutoff", &s->cutoff, 1, 1);
  if (!(s->noise >= 0) || !isfinite(s->noise))
    ld_error(c, n->file, n->line, "negative noise in sensor '%s'", s->name ? s->name : "");
  if (!(s->cutoff >= 0) || !isfinite(s->cutoff))
    ld_error(c, n->file, n->line, "negative cutoff in sensor '%s'", s->name ? s->name : "");
  ld_accept(n, (const char* const[]){"user", NULL});
  switch (k->attach) {
    case AT_SITE: s->objtype = IMP_OBJ_SITE, s->objname = required(c, n, "site"); break;
    case AT_JOINT: s->objtype = IMP_OBJ_JOINT, s->objname = required(c, n, "joint"); break;
    case AT_TENDON: s->objtype = IMP_OBJ_TENDON, s->objname = required(c, n, "tendon"); break;
    case AT_ACTUATOR:
      s->objtype = IMP_OBJ_ACTUATOR;
      s->objname = required(c, n, "actuator");
      s->actuator_in_file = file_has_actuator(root, s->objname);
      break;
    case AT_FRAME: read_frame(c, n, s, 1); break;
    case AT_FRAMEACC: read_frame(c, n, s, 0); break;
    case AT_BODY: s->objtype = IMP_OBJ_BODY, s->objname = required(c, n, "body"); break;
    case AT_USER: read_user(c, n, s); break;
    default: break;
  }
  ld_warn_unused(c, n);
}

void ld_parse_sensors(ld_ctx* c, ld_node* root, ld_node* n) {
  for (ld_node* ch = n->child; ch; ch = ch->next) parse_sensor(c, root, ch);
}

/* ---- compile ---- */

/* the spec vector of an object type, NULL for types without objects here */
static const ld_vec* objects_of(ld_ctx* c, int type) {
  switch (type) {
    case IMP_OBJ_BODY:
    case IMP_OBJ_XBODY: return &c->bodies;
    case IMP_OBJ_JOINT: return &c->joints;
    case IMP_OBJ_GEOM: return &c->geoms;
    case IMP_OBJ_SITE: return &c->sites;
    case IMP_OBJ_CAMERA: return &c->cameras;
    case IMP_OBJ_LIGHT: return &c->lights;
    case IMP_OBJ_ACTUATOR: return &c->actuators;
    case IMP_OBJ_KEY: return &c->keys;
    case IMP_OBJ_MATERIAL: return &c->materials;
    case IMP_OBJ_TEXTURE: return &c->textures;
    case IMP_OBJ_MESH: return &c->meshes;
    case IMP_OBJ_PAIR: return &c->pairs;
    case IMP_OBJ_EQUALITY: return &c->equalities;
    case IMP_OBJ_SENSOR: return &c->sensors;
    case IMP_OBJ_TENDON: return &c->tendons;
    case IMP_OBJ_HFIELD: return &c->hfields;
    default: return NULL;
  }
}

static const char* type_word(int type) {
  switch (type) {
    case IMP_OBJ_BODY: return "body";
    case IMP_OBJ_XBODY: return "xbody";
    case IMP_OBJ_JOINT: return "joint";
    case IMP_OBJ_GEOM: return "geom";
    case IMP_OBJ_SITE: return "site";
    case IMP_OBJ_CAMERA: return "camera";
    case IMP_OBJ_ACTUATOR: return "actuator";
    case IMP_OBJ_TENDON: return "tendon";
    default: return "object";
  }
}

/* the id of (type, name) for sensor s: an error at the sensor when unknown */
static int resolve(ld_ctx* c, const ld_sensor* s, int type, const char* name) {
  const ld_vec* v = objects_of(c, type);
  if (!v) return -1;
  int id = ld_lookup_name(c, v, name);
  if (id < 0) ld_error(c, s->file, s->line, "unknown %s '%s' in sensor", type_word(type), name);
  return id;
}

/* MuJoCo's compiler checks of a joint sensor */
static void check_joint(ld_ctx* c, const ld_sensor* s, const ld_joint* jt) {
  int scalar = jt->type == IMP_JNT_HINGE || jt->type == IMP_JNT_SLIDE;
  switch (s->type) {
    case IMP_SENS_JOINTPOS:
    case IMP_SENS_JOINTVEL:
    case IMP_SENS_JOINTACTFRC:
      if (!scalar) ld_error(c, s->file, s->line, "joint must be slide or hinge in sensor");
      break;
    case IMP_SENS_BALLQUAT:
    case IMP_SENS_BALLANGVEL:
      if (jt->type != IMP_JNT_BALL) ld_error(c, s->file, s->line, "joint must be ball in sensor");
      break;
    default: /* the limit sensors */
      if (!jt->limited) ld_error(c, s->file, s->line, "joint must be limited in sensor");
      break;
  }
}

int ld_resolve_sensors(ld_ctx* c, const ld_joint* J) {
  /* sensors on actuators the loader skipped go too, with a warning */
  int n = 0;
  for (int i = 0; i < c->sensors.n; i++) {
    ld_sensor* s = LD_AT(c->sensors, ld_sensor, i);
    if (s->objtype == IMP_OBJ_ACTUATOR && s->type != IMP_SENS_USER &&
        ld_lookup_name(c, &c->actuators, s->objname) < 0 && s->actuator_in_file) {
      ld_warning(c, "sensor/skipped-actuator", s->file, s->line,
                 "sensor on actuator '%s', which the loader skipped (sensor skipped: sensordata "
                 "leaves it out)", s->objname);
      continue;
    }
    *LD_AT(c->sensors, ld_sensor, n++) = *s;
  }
  c->sensors.n = n;
  long total = 0;
  for (int i = 0; i < n; i++) {
    ld_sensor* s = LD_AT(c->sensors, ld_sensor, i);
    if (s->objtype >= 0) s->objid = resolve(c, s, s->objtype, s->objname);
    if (s->reftype >= 0) s->refid = resolve(c, s, s->reftype, s->refname);
    if (s->objtype == IMP_OBJ_JOINT && s->type != IMP_SENS_USER) check_joint(c, s, &J[s->objid]);
    if (s->objtype == IMP_OBJ_TENDON && s->type >= IMP_SENS_TENDONLIMITPOS &&
        s->type <= IMP_SENS_TENDONLIMITFRC && !LD_AT(c->tendons, ld_tendon, s->objid)->limited)
      ld_error(c, s->file, s->line, "tendon must be limited in sensor");
    total += s->dim;
    if (total > LD_MAXSENSORDATA)
      ld_error(c, s->file, s->line, "more than %d sensor values in all", LD_MAXSENSORDATA);
  }
  return (int)total;
}

void ld_put_sensors(ld_ctx* c, imp_model* m) {
  int adr = 0;
  for (int i = 0; i < m->nsensor; i++) {
    const ld_sensor* s = LD_AT(c->sensors, ld_sensor, i);
    m->sensor_type[i] = s->type;
    m->sensor_datatype[i] = s->datatype;
    m->sensor_needstage[i] = s->needstage;
    m->sensor_objtype[i] = s->objid >= 0 ? s->objtype : -1;
    m->sensor_objid[i] = s->objid;
    m->sensor_reftype[i] = s->refid >= 0 ? s->reftype : -1;
    m->sensor_refid[i] = s->refid;
    m->sensor_dim[i] = s->dim;
    m->sensor_adr[i] = adr;
    m->sensor_cutoff[i] = s->cutoff;
    m->sensor_noise[i] = s->noise;
    adr += s->dim;
  }
}
