/* Default classes and the attribute readers of MJCF elements.
 *
 * A class holds one complete struct per element kind (joint, geom, site,
 * camera, light, material, actuator). Class "main" starts from MJCF's
 * built-in values; a nested <default class="x"> starts as a copy of its
 * parent after the parent's own elements were applied. A real element starts
 * from its class (its class= attribute, else the childclass of the nearest
 * enclosing body that has one, else "main") and its own attributes override:
 * the same reader applies the attributes in both places.
 *
 * Actuators: MJCF keeps a single actuator default per class. Each shortcut
 * in a <default> (<motor>, <position>, <velocity>, <general>) is applied to
 * that one default exactly as the shortcut applies to a real actuator: the
 * common fields (gear, ctrlrange, forcerange, ctrllimited, forcelimited) are
 * set where given, and the shortcut sets gain and bias: motor gain 1 and no
 * bias; position kp (default: the class's gainprm[0]) with bias (0, -kp,
 * -kv), its damping kv or dampratio (exclusive; default: the class's when
 * the class default is a <position>, else none); velocity kv with gain kv
 * and bias (0, 0, -kv); general its explicit gainprm/biasprm/types. A real
 * actuator then applies its own shortcut on top of its class default, so
 * <position/> in a class whose default was <position kp="5" dampratio="1"/>
 * gets kp 5 and dampratio 1. dampratio becomes kv at compile time
 * (compile.c), from the inertia at qpos0; inheritrange (position) becomes
 * ctrlrange there too.
 *
 * solref (geom contact, pair, joint solreflimit, equality) defaults to
 * MJCF's (0.02, 1) everywhere and is stored as given, the negative "direct"
 * form included: the constraint stage interprets it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

static void set_solref_default(double solref[2]) {
  solref[0] = IMP_SOLREF_TIMECONST;
  solref[1] = IMP_SOLREF_DAMPRATIO;
}

void ld_defaults_builtin(ld_class* cls) {
  memset(cls, 0, sizeof *cls);
  ld_joint* j = &cls->joint;
  j->type = IMP_JNT_HINGE;
  j->axis[2] = 1;
  j->limited = -1;
  j->actfrclimited = -1;
  set_solref_default(j->solref);

  ld_geom* g = &cls->geom;
  g->type = IMP_GEOM_SPHERE;
  g->quat[0] = 1;
  g->density = 1000;
  g->fitscale = 1;
  g->rgba[0] = g->rgba[1] = g->rgba[2] = 0.5f;
  g->rgba[3] = 1;
  g->friction[0] = 1;
  g->friction[1] = 0.005;
  g->friction[2] = 0.0001;
  g->contype = g->conaffinity = 1;
  g->condim = 3;
  set_solref_default(g->solref);

  ld_geom* s = &cls->site;
  s->type = IMP_GEOM_SPHERE;
  s->quat[0] = 1;
  s->size[0] = s->size[1] = s->size[2] = 0.005;
  s->nsize = 3;
  s->rgba[0] = s->rgba[1] = s->rgba[2] = 0.5f;
  s->rgba[3] = 1;

  cls->camera.quat[0] = 1;
  cls->camera.fovy = 45;
  cls->camera.resolution[0] = cls->camera.resolution[1] = 1;

  ld_light* l = &cls->light;
  l->dir[2] = -1;
  l->castshadow = 1;
  l->active = 1;
  l->attenuation[0] = 1;
  l->cutoff = 45;
  l->exponent = 10;
  l->diffuse[0] = l->diffuse[1] = l->diffuse[2] = 0.7f;
  l->specular[0] = l->specular[1] = l->specular[2] = 0.3f;

  ld_material* m = &cls->material;
  m->texrepeat[0] = m->texrepeat[1] = 1;
  m->specular = 0.5f;
  m->shininess = 0.5f;
  m->rgba[0] = m->rgba[1] = m->rgba[2] = m->rgba[3] = 1;

  ld_actuator* a = &cls->actuator;
  a->gear[0] = 1;
  a->ctrllimited = a->forcelimited = a->actlimited = -1;
  a->gainprm[0] = 1;
  a->dynprm[0] = 1; /* MJCF's dynprm default "1 0 ... 0" */
  a->actdim = -1;

  /* MuJoCo 2.2.2 gives an unspecified pair attribute the pair class's value,
     not one inferred from the geoms (measured with mj_loadXML) */
  ld_pair* p = &cls->pair;
  p->condim = 3;
  p->friction[0] = p->friction[1] = 1;
  p->friction[2] = 0.005;
  p->friction[3] = p->friction[4] = 0.0001;
  set_solref_default(p->solref);

  /* MJCF's equality defaults; relpose's zero quaternion means "the relative
     pose at qpos0" (MuJoCo 2.2.2's default "0 1 0 0 0 0 0") */
  ld_equality* e = &cls->equality;
  e->active = 1;
  set_solref_default(e->solref);
  e->relpose[1] = 1;
  e->polycoef[1] = 1;

  /* MJCF's tendon defaults (tendon/spatial) */
  ld_tendon* t = &cls->tendon;
  t->limited = t->actfrclimited = -1;
  t->width = 0.003;
  t->rgba[0] = t->rgba[1] = t->rgba[2] = 0.5f;
  t->rgba[3] = 1;
  t->springlength[0] = t->springlength[1] = -1;
  set_solref_default(t->solref);

  cls->mesh_scale[0] = cls->mesh_scale[1] = cls->mesh_scale[2] = 1;
  cls->mesh_inertia = LD_MESH_LEGACY;
  cls->mesh_maxhullvert = -1;
}

int ld_find_class(ld_ctx* c, ld_node* at, const char* name) {
  for (int i = 0; i < c->classes.n; i++)
    if (!strcmp(LD_AT(c->classes, ld_class, i)->name, name)) return i;
  ld_error(c, at->file, at->line, "unknown default class '%s'", name);
}

static const char* const geom_types[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                         "cylinder", "box", "mesh", NULL};

void ld_read_joint(ld_ctx* c, ld_node* n, ld_joint* j) {
  static const char* const types[] = {"free", "ball", "slide", "hinge", NULL};
  static const char* const ok[] = {"solref", "solimp", "solimplimit", "solreffriction",
                                   "solimpfriction", "margin", "group", "user", NULL};
  const char* t = ld_attr_str(n, "type");
  if (t) {
    int known = 0;
    for (int i = 0; types[i]; i++)
      if (!strcmp(t, types[i])) {
        j->type = i;
        known = 1;
      }
    if (!known) ld_error(c, n->file, n->line, "unknown joint type '%s'", t);
  }
  ld_attr_nums(c, n, "pos", j->pos, 3, 3);
  if (ld_attr_nums(c, n, "axis", j->axis, 3, 3) > 0 && imp_normalize3(j->axis) < IMP_MINVAL)
    ld_error(c, n->file, n->line, "joint axis is zero");
  if (ld_attr_nums(c, n, "range", j->range, 2, 2) > 0) j->has_range = 1;
  ld_attr_limited(c, n, "limited", &j->limited);
  ld_attr_nums(c, n, "damping", &j->damping, 1, 1);
  ld_attr_nums(c, n, "stiffness", &j->stiffness, 1, 1);
  ld_attr_nums(c, n, "springref", &j->springref, 1, 1);
  ld_attr_nums(c, n, "armature", &j->armature, 1, 1);
  ld_attr_nums(c, n, "ref", &j->ref, 1, 1);
  ld_attr_nums(c, n, "solreflimit", j->solref, 2, 2);
  if (ld_attr_nums(c, n, "springdamper", j->springdamper, 2, 2) > 0 &&
      !(isfinite(j->springdamper[0]) && isfinite(j->springdamper[1])))
    ld_error(c, n->file, n->line, "joint springdamper must be finite");
  if (ld_attr_nums(c, n, "actuatorfrcrange", j->actfrcrange, 2, 2) > 0) j->has_actfrcrange = 1;
  ld_attr_limited(c, n, "actuatorfrclimited", &j->actfrclimited);
  ld_attr_bool(c, n, "actuatorgravcomp", &j->actgravcomp);
  if (ld_attr_nums(c, n, "frictionloss", &j->frictionloss, 1, 1) > 0 && !(j->frictionloss >= 0))
    ld_error(c, n->file, n->line, "joint frictionloss must be >= 0 (it is a force bound)");
  ld_accept(n, ok);
}

/* attributes geoms and sites share */
static void read_geomlike(ld_ctx* c, ld_node* n, ld_geom* g) {
  const char* t = ld_attr_str(n, "type");
  if (t) {
    int known = 0;
    for (int i = 0; geom_types[i]; i++)
      if (!strcmp(t, geom_types[i])) {
        g->type = i;
        known = 1;
      }
    if (!known) ld_error(c, n->file, n->line, "unknown %s type '%s'", n->name, t);
  }
  double sz[3];
  int k = ld_attr_nums(c, n, "size", sz, 0, 3);
  for (int i = 0; i < k; i++) g->size[i] = sz[i];
  if (k > g->nsize) g->nsize = k;
  if (ld_read_frame(c, n, g->pos, g->quat) || ld_attr_str(n, "pos")) g->has_fromto = 0;
  if (ld_attr_nums(c, n, "fromto", g->fromto, 6, 6) > 0) g->has_fromto = 1;
  ld_attr_float(c, n, "rgba", g->rgba, 4, 4);
  ld_attr_int(c, n, "group", &g->group);
  const char* mat = ld_attr_str(n, "material");
  if (mat) g->material = mat;
}

void ld_read_geom(ld_ctx* c, ld_node* n, ld_geom* g) {
  static const char* const ok[] = {"solimp", "solmix", "user", "fluidshape", "fluidcoef", NULL};
  read_geomlike(c, n, g);
  /* fluidcoef alone changes nothing; the ellipsoid model it tunes would */
  const char* fluid = ld_attr_str(n, "fluidshape");
  if (fluid && strcmp(fluid, "none") != 0)
    ld_unsupported(c, "geom/fluidshape", n->file, n->line,
                   "geom fluidshape '%s' (MuJoCo's ellipsoid fluid model) is not supported yet "
                   "(ignored: the inertia-box model of option density and viscosity acts instead)",
                   fluid);
  ld_attr_nums(c, n, "density", &g->density, 1, 1);
  if (ld_attr_nums(c, n, "mass", &g->mass, 1, 1) > 0) g->has_mass = 1;
  /* as MuJoCo 2.2.2 refuses them ("mass, inertia or density are negative") */
  if (g->mass < 0 || g->density < 0)
    ld_error(c, n->file, n->line, "geom mass and density must be non-negative");
  ld_attr_nums(c, n, "friction", g->friction, 1, 3);
  ld_attr_int(c, n, "contype", &g->contype);
  ld_attr_int(c, n, "conaffinity", &g->conaffinity);
  if (ld_attr_int(c, n, "condim", &g->condim) && g->condim != 1 && g->condim != 3 &&
      g->condim != 4 && g->condim != 6)
    ld_error(c, n->file, n->line, "condim must be 1, 3, 4 or 6, not %d", g->condim);
  ld_attr_nums(c, n, "margin", &g->margin, 1, 1);
  ld_attr_nums(c, n, "gap", &g->gap, 1, 1);
  ld_attr_int(c, n, "priority", &g->priority);
  ld_attr_nums(c, n, "solref", g->solref, 2, 2);
  const char* mesh = ld_attr_str(n, "mesh");
  if (mesh) g->mesh = mesh;
  ld_attr_nums(c, n, "fitscale", &g->fitscale, 1, 1);
  const char* hf = ld_attr_str(n, "hfield");
  if (hf) g->mesh = hf;
  ld_accept(n, ok);
}

/* friction with fewer than 5 values overwrites the leading ones and keeps
   the rest (as MuJoCo 2.2.2 does: "0.5" gives 0.5 1 0.005 0.0001 0.0001);
   solref from the pair class, not the geoms (measured); solimp accepted
   unstored, as on geoms */
void ld_read_pair(ld_ctx* c, ld_node* n, ld_pair* p) {
  static const char* const ok[] = {"solimp", "solreffriction", NULL};
  if (ld_attr_int(c, n, "condim", &p->condim) && p->condim != 1 && p->condim != 3 &&
      p->condim != 4 && p->condim != 6)
    ld_error(c, n->file, n->line, "condim must be 1, 3, 4 or 6, not %d", p->condim);
  ld_attr_nums(c, n, "friction", p->friction, 1, 5);
  ld_attr_nums(c, n, "margin", &p->margin, 1, 1);
  ld_attr_nums(c, n, "gap", &p->gap, 1, 1);
  ld_attr_nums(c, n, "solref", p->solref, 2, 2);
  ld_accept(n, ok);
}

/* the bodies or joints an equality of this type names: body1/body2 or
   joint1/joint2, the first required; a connect or weld may instead name
   site1 and site2 (both, and then no body1, body2, anchor or relpose) */
static void read_equality_objects(ld_ctx* c, ld_node* n, ld_equality* e) {
  const char* k1 = e->type == IMP_EQ_JOINT ? "joint1" : e->type == IMP_EQ_TENDON ? "tendon1" : "body1";
  const char* k2 = e->type == IMP_EQ_JOINT ? "joint2" : e->type == IMP_EQ_TENDON ? "tendon2" : "body2";
  e->obj1 = ld_attr_str(n, k1);
  e->obj2 = ld_attr_str(n, k2);
  if (e->type == IMP_EQ_CONNECT || e->type == IMP_EQ_WELD) {
    e->site1 = ld_attr_str(n, "site1");
    e->site2 = ld_attr_str(n, "site2");
  }
  if (e->site1 || e->site2) {
    if (!e->site1 || !e->site2)
      ld_error(c, n->file, n->line, "%s: site1 and site2 go together", n->name);
    static const char* const body_form[] = {"body1", "body2", "anchor", "relpose", NULL};
    for (int i = 0; body_form[i]; i++)
      if (ld_attr_str(n, body_form[i]))
        ld_error(c, n->file, n->line, "%s: %s cannot be given with site1 and site2", n->name,
                 body_form[i]);
    return;
  }
  if (!e->obj1)
    ld_error(c, n->file, n->line, "%s: %s is required%s", n->name, k1,
             e->type == IMP_EQ_CONNECT || e->type == IMP_EQ_WELD ? " (or site1 and site2)" : "");
}

/* weld anchor and torquescale (MuJoCo 2.2.2) are not in our weld rows: a
   warning when they differ from their neutral values */
static void read_weld_extras(ld_ctx* c, ld_node* n) {
  double a[3] = {0, 0, 0}, ts = 1;
  ld_attr_nums(c, n, "anchor", a, 3, 3);
  ld_attr_nums(c, n, "torquescale", &ts, 1, 1);
  if (a[0] != 0 || a[1] != 0 || a[2] != 0 || ts != 1)
    ld_unsupported(c, "weld/anchor", n->file, n->line,
               "weld anchor and torquescale are not supported yet (ignored)");
}

void ld_read_equality(ld_ctx* c, ld_node* n, ld_equality* e, int type) {
  static const char* const ok[] = {"solimp", NULL};
  ld_attr_bool(c, n, "active", &e->active);
  ld_attr_nums(c, n, "solref", e->solref, 2, 2);
  ld_accept(n, ok);
  if (type < 0) return;
  e->type = type;
  read_equality_objects(c, n, e);
  if (type == IMP_EQ_CONNECT) {
    if (!e->site1 && ld_attr_nums(c, n, "anchor", e->anchor, 3, 3) < 0)
      ld_error(c, n->file, n->line, "connect: anchor is required");
  } else if (type == IMP_EQ_WELD) {
    ld_attr_nums(c, n, "relpose", e->relpose, 7, 7);
    read_weld_extras(c, n);
  } else {
    ld_attr_nums(c, n, "polycoef", e->polycoef, 5, 5);
  }
}

void ld_read_site(ld_ctx* c, ld_node* n, ld_geom* s) {
  static const char* const ok[] = {"user", NULL};
  read_geomlike(c, n, s);
  ld_accept(n, ok);
}

static const char* const cam_modes[] = {"fixed", "track", "trackcom", "targetbody",
                                        "targetbodycom", NULL};

void ld_read_camera(ld_ctx* c, ld_node* n, ld_camera* cam) {
  static const char* const ok[] = {"ipd", "user", NULL};
  ld_read_frame(c, n, cam->pos, cam->quat);
  ld_attr_keyword(c, n, "mode", cam_modes, &cam->mode);
  const char* t = ld_attr_str(n, "target");
  if (t) cam->target = t;
  ld_attr_nums(c, n, "fovy", &cam->fovy, 1, 1);
  double r[2];
  if (ld_attr_nums(c, n, "resolution", r, 2, 2) > 0) {
    for (int i = 0; i < 2; i++) {
      if (!(r[i] >= 0 && r[i] <= 1e6 && r[i] == floor(r[i])))
        ld_error(c, n->file, n->line, "camera resolution: expected two whole numbers of pixels "
                 "(at most 1e6)");
      cam->resolution[i] = (int)r[i];
    }
  }
  static const char* const two[] = {"sensorsize", "focal", "focalpixel", "principal",
                                    "principalpixel"};
  double* dst[] = {cam->sensorsize, cam->focal, cam->focalpixel, cam->principal,
                   cam->principalpixel};
  for (int k = 0; k < 5; k++)
    if (ld_attr_nums(c, n, two[k], dst[k], 2, 2) > 0 &&
        !(isfinite(dst[k][0]) && isfinite(dst[k][1])))
      ld_error(c, n->file, n->line, "camera %s must be finite", two[k]);
  ld_accept(n, ok);
}

/* MuJoCo docs, MJCF reference: camera sensorsize ("when specified, all
   intrinsic attributes become active and fovy is ignored"), focal /
   focalpixel and principal / principalpixel (pixel values win when both are
   given); the field of view "computed automatically from the focal length
   and sensor size": fovy = 2 atan(sensor height / 2 / focal y), the
   principal point taken at the centre. Like MuJoCo, focal or principal
   without a sensor and a sensor without a resolution are errors; a sensor
   seen through a zero focal length (no image) is one too. */
void ld_camera_intrinsics(ld_ctx* c, const ld_camera* cam, int resolution[2],
                          double sensorsize[2], double intrinsic[4], double* fovy) {
  int has_intrinsic = 0;
  for (int i = 0; i < 2; i++)
    has_intrinsic |= cam->focal[i] != 0 || cam->focalpixel[i] != 0 || cam->principal[i] != 0 ||
                     cam->principalpixel[i] != 0;
  int has_sensor = cam->sensorsize[0] > 0 && cam->sensorsize[1] > 0;
  if (has_intrinsic && !has_sensor)
    ld_error(c, cam->file, cam->line, "camera focal/principal require sensorsize");
  if (has_sensor && (cam->resolution[0] <= 0 || cam->resolution[1] <= 0))
    ld_error(c, cam->file, cam->line, "camera sensorsize requires a positive resolution");
  resolution[0] = cam->resolution[0];
  resolution[1] = cam->resolution[1];
  for (int i = 0; i < 4; i++) intrinsic[i] = 0;
  sensorsize[0] = sensorsize[1] = 0;
  if (!has_sensor) return;
  for (int i = 0; i < 2; i++) {
    double per_pixel = cam->sensorsize[i] / cam->resolution[i]; /* length of a pixel */
    sensorsize[i] = cam->sensorsize[i];
    intrinsic[i] = cam->focalpixel[i] != 0 ? cam->focalpixel[i] * per_pixel : cam->focal[i];
    intrinsic[2 + i] =
        cam->principalpixel[i] != 0 ? cam->principalpixel[i] * per_pixel : cam->principal[i];
    if (!(intrinsic[i] > 0))
      ld_error(c, cam->file, cam->line,
               "camera sensorsize needs a positive focal length (focal or focalpixel)");
  }
  *fovy = 2 * atan2(0.5 * sensorsize[1], intrinsic[1]) * 180 / IMP_PI;
}

void ld_read_light(ld_ctx* c, ld_node* n, ld_light* l) {
  static const char* const ok[] = {"bulbradius", NULL};
  ld_attr_nums(c, n, "pos", l->pos, 3, 3);
  if (ld_attr_nums(c, n, "dir", l->dir, 3, 3) > 0 && imp_normalize3(l->dir) < IMP_MINVAL)
    ld_error(c, n->file, n->line, "light dir is zero");
  ld_attr_bool(c, n, "directional", &l->directional);
  ld_attr_bool(c, n, "castshadow", &l->castshadow);
  ld_attr_bool(c, n, "active", &l->active);
  ld_attr_float(c, n, "attenuation", l->attenuation, 3, 3);
  ld_attr_float(c, n, "cutoff", &l->cutoff, 1, 1);
  ld_attr_float(c, n, "exponent", &l->exponent, 1, 1);
  ld_attr_float(c, n, "ambient", l->ambient, 3, 3);
  ld_attr_float(c, n, "diffuse", l->diffuse, 3, 3);
  ld_attr_float(c, n, "specular", l->specular, 3, 3);
  ld_attr_keyword(c, n, "mode", cam_modes, &l->mode);
  const char* t = ld_attr_str(n, "target");
  if (t) l->target = t;
  ld_accept(n, ok);
}

void ld_read_material(ld_ctx* c, ld_node* n, ld_material* m) {
  const char* t = ld_attr_str(n, "texture");
  if (t) m->texture = t;
  ld_attr_float(c, n, "texrepeat", m->texrepeat, 2, 2);
  ld_attr_bool(c, n, "texuniform", &m->texuniform);
  ld_attr_float(c, n, "emission", &m->emission, 1, 1);
  ld_attr_float(c, n, "specular", &m->specular, 1, 1);
  ld_attr_float(c, n, "shininess", &m->shininess, 1, 1);
  ld_attr_float(c, n, "reflectance", &m->reflectance, 1, 1);
  ld_attr_float(c, n, "rgba", m->rgba, 4, 4);
}

/* <position>: gain kp, bias (0, -kp, -kv); the damping as kv or as
   dampratio (exclusive in one element; either given replaces the class's,
   which only a class default made by <position> has: a velocity or general
   default's bias is not a position's damping, as in MuJoCo 2.2.2, whose
   position has no kv); inheritrange kept for the compiler, exclusive with
   the element's own ctrlrange. MJCF's kp, kv, dampratio >= 0. */
static void read_position(ld_ctx* c, ld_node* n, ld_actuator* a, int class_position,
                          int own_ctrlrange) {
  double kp = a->gainprm[0];
  double kv = class_position ? -a->biasprm[2] : 0, ratio = class_position ? a->dampratio : 0;
  int has_kp = ld_attr_nums(c, n, "kp", &kp, 1, 1) > 0;
  int has_kv = ld_attr_nums(c, n, "kv", &kv, 1, 1) > 0;
  int has_ratio = ld_attr_nums(c, n, "dampratio", &ratio, 1, 1) > 0;
  if (has_kv && has_ratio)
    ld_error(c, n->file, n->line, "position: kv and dampratio cannot both be given");
  if ((has_kp && kp < 0) || (has_kv && kv < 0) || (has_ratio && ratio < 0))
    ld_error(c, n->file, n->line, "position: kp, kv and dampratio must be non-negative");
  if (has_kv) ratio = 0;
  if (has_ratio) kv = 0;
  memset(a->gainprm, 0, sizeof a->gainprm);
  memset(a->biasprm, 0, sizeof a->biasprm);
  a->gainprm[0] = kp;
  a->biasprm[1] = -kp;
  a->biasprm[2] = -kv;
  a->dampratio = ratio;
  a->gaintype = IMP_GAIN_FIXED;
  a->biastype = IMP_BIAS_AFFINE;
  /* timeconst > 0: a first-order filter on the setpoint, integrated exactly
     (MJCF reference, position/timeconst, MuJoCo 3.x); 0 none; absent: the
     class's dynamics stay, as MuJoCo's parser leaves them */
  double tc;
  if (ld_attr_nums(c, n, "timeconst", &tc, 1, 1) > 0) {
    if (tc < 0) ld_error(c, n->file, n->line, "position: timeconst cannot be negative");
    a->dynprm[0] = tc;
    a->dyntype = tc == 0 ? IMP_DYN_NONE : IMP_DYN_FILTEREXACT;
  }
  if (ld_attr_nums(c, n, "inheritrange", &a->inheritrange, 1, 1) > 0) {
    /* inheritrange 0 is the default "do not inherit" and may stand beside a
       ctrlrange (Menagerie's i2rt_yam writes both in a default class) */
    if (own_ctrlrange && a->inheritrange > 0)
      ld_error(c, n->file, n->line, "%s: %s and inheritrange cannot both be given", n->name,
               a->kind == LD_ACT_INTVELOCITY ? "actrange" : "ctrlrange");
    if (a->inheritrange < 0)
      ld_error(c, n->file, n->line, "position: inheritrange must be non-negative");
  }
}

/* <damper>: force -kv velocity ctrl, gain affine (0, 0, -kv), no bias,
   ctrl limited to a non-negative range (MJCF reference, actuator/damper);
   kv defaults to the class's when the class default is a damper. */
static void read_damper(ld_ctx* c, ld_node* n, ld_actuator* a) {
  double kv = a->gaintype == IMP_GAIN_AFFINE ? -a->gainprm[2] : 0;
  ld_attr_nums(c, n, "kv", &kv, 1, 1);
  if (kv < 0) ld_error(c, n->file, n->line, "damper: kv cannot be negative");
  memset(a->gainprm, 0, sizeof a->gainprm);
  a->gainprm[2] = -kv;
  a->ctrllimited = 1;
  a->dyntype = IMP_DYN_NONE;
  a->gaintype = IMP_GAIN_AFFINE;
  a->biastype = IMP_BIAS_NONE;
  a->dampratio = 0;
  if (a->ctrlrange[0] < 0 || a->ctrlrange[1] < 0)
    ld_error(c, n->file, n->line, "damper: ctrlrange cannot be negative");
}

/* <cylinder>: a filter of time constant timeconst, gain area (or pi/4
   diameter^2, diameter winning), affine bias (bias, 3 values) (MJCF
   reference, actuator/cylinder); unspecified values are the class's. */
static void read_cylinder(ld_ctx* c, ld_node* n, ld_actuator* a) {
  double tc = a->dynprm[0], area = a->gainprm[0], diameter = -1;
  double bias[3] = {a->biasprm[0], a->biasprm[1], a->biasprm[2]};
  ld_attr_nums(c, n, "timeconst", &tc, 1, 1);
  ld_attr_nums(c, n, "bias", bias, 3, 3);
  ld_attr_nums(c, n, "area", &area, 1, 1);
  ld_attr_nums(c, n, "diameter", &diameter, 1, 1);
  a->dynprm[0] = tc;
  a->gainprm[0] = diameter >= 0 ? 0.25 * IMP_PI * diameter * diameter : area;
  for (int i = 0; i < 3; i++) a->biasprm[i] = bias[i];
  a->dyntype = IMP_DYN_FILTER;
  a->gaintype = IMP_GAIN_FIXED;
  a->biastype = IMP_BIAS_AFFINE;
  a->dampratio = 0;
}

/* <muscle>: dynprm (tau_act, tau_deact, tausmooth), gainprm = biasprm =
   (range(2), force, scale, lmin, lmax, vmax, fpmax, fvmax) (MJCF
   reference, actuator/muscle). Parameters still at the general defaults
   (a class that never made a muscle) take the muscle defaults: timeconst
   0.01 0.04, range 0.75 1.05, force -1, scale 200, lmin 0.5, lmax 1.6,
   vmax 1.5, fpmax 1.3, fvmax 1.2, as MuJoCo's parser does; the element's
   own values win. */
static void read_muscle(ld_ctx* c, ld_node* n, ld_actuator* a) {
  static const double muscle_default[9] = {0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
  static const char* const names[9] = {NULL, NULL, "force", "scale", "lmin",
                                       "lmax", "vmax",  "fpmax", "fvmax"};
  double* g = a->gainprm;
  if (a->dynprm[0] == 1) a->dynprm[0] = 0.01;
  if (a->dynprm[1] == 0) a->dynprm[1] = 0.04;
  if (g[0] == 1) g[0] = muscle_default[0];
  for (int i = 1; i < 9; i++)
    if (g[i] == 0) g[i] = muscle_default[i];
  double tc[2], range[2], v;
  if (ld_attr_nums(c, n, "timeconst", tc, 2, 2) > 0) a->dynprm[0] = tc[0], a->dynprm[1] = tc[1];
  if (ld_attr_nums(c, n, "tausmooth", &v, 1, 1) > 0) {
    if (v < 0) ld_error(c, n->file, n->line, "muscle: tausmooth cannot be negative");
    a->dynprm[2] = v;
  }
  if (ld_attr_nums(c, n, "range", range, 2, 2) > 0) g[0] = range[0], g[1] = range[1];
  for (int i = 2; i < 9; i++)
    if (ld_attr_nums(c, n, names[i], &v, 1, 1) > 0) g[i] = v;
  for (int i = 0; i < 9; i++) a->biasprm[i] = g[i];
  a->dyntype = IMP_DYN_MUSCLE;
  a->gaintype = IMP_GAIN_MUSCLE;
  a->biastype = IMP_BIAS_MUSCLE;
  a->dampratio = 0;
}

/* <general>'s types and parameters, as given */
static void read_general(ld_ctx* c, ld_node* n, ld_actuator* a) {
  static const char* const gt[] = {"fixed", "affine", "muscle", "user", NULL};
  static const char* const bt[] = {"none", "affine", "muscle", "user", NULL};
  static const char* const dt[] = {"none", "integrator", "filter", "filterexact", "muscle",
                                   "user", NULL};
  int v;
  if (ld_attr_keyword(c, n, "gaintype", gt, &v)) {
    if (v == 3)
      ld_unsupported(c, "general/gaintype", n->file, n->line,
                 "actuator gaintype '%s' is not supported yet (treated as fixed)", gt[v]);
    a->gaintype = v == 3 ? IMP_GAIN_FIXED : v;
  }
  if (ld_attr_keyword(c, n, "biastype", bt, &v)) {
    if (v == 3)
      ld_unsupported(c, "general/biastype", n->file, n->line,
                 "actuator biastype '%s' is not supported yet (treated as none)", bt[v]);
    a->biastype = v == 3 ? IMP_BIAS_NONE : v;
  }
  if (ld_attr_keyword(c, n, "dyntype", dt, &v)) {
    if (v == IMP_DYN_USER)
      ld_unsupported(c, "general/dyntype", n->file, n->line,
                 "actuator dyntype 'user' has no callback here: its activation stays "
                 "constant (act_dot = 0, as MuJoCo without mjcb_act_dyn)");
    a->dyntype = v;
  }
  ld_attr_nums(c, n, "gainprm", a->gainprm, 1, IMP_NGAIN);
  if (ld_attr_nums(c, n, "biasprm", a->biasprm, 1, IMP_NGAIN) > 0) a->dampratio = 0;
  ld_attr_nums(c, n, "dynprm", a->dynprm, 1, IMP_NGAIN);
  ld_attr_bool(c, n, "actearly", &a->actearly);
  double dim;
  if (ld_attr_nums(c, n, "actdim", &dim, 1, 1) > 0) {
    if (dim != floor(dim) || dim < -1 || dim > 1e6)
      ld_error(c, n->file, n->line, "actdim: expected an integer >= -1");
    a->actdim = (int)dim;
  }
}

/* <adhesion>: force gain ctrl through a body transmission, ctrl limited to
   a non-negative range (MJCF reference, actuator/adhesion: dyntype none,
   gaintype fixed, gainprm (gain, 0, 0), biastype none, ctrllimited). */
static void read_adhesion(ld_ctx* c, ld_node* n, ld_actuator* a) {
  double gain = 1;
  ld_attr_nums(c, n, "gain", &gain, 1, 1);
  if (gain < 0) ld_error(c, n->file, n->line, "adhesion gain cannot be negative");
  memset(a->gainprm, 0, sizeof a->gainprm);
  memset(a->biasprm, 0, sizeof a->biasprm);
  a->gainprm[0] = gain;
  a->ctrllimited = 1;
  a->dyntype = IMP_DYN_NONE;
  a->gaintype = IMP_GAIN_FIXED;
  a->biastype = IMP_BIAS_NONE;
  a->dampratio = 0;
  if (a->ctrlrange[0] < 0 || a->ctrlrange[1] < 0)
    ld_error(c, n->file, n->line, "adhesion control range cannot be negative");
}

int ld_actuator_kind(const char* elem) {
  static const char* const kinds[] = {"general",  "motor",  "position", "velocity", "intvelocity",
                                      "damper",   "cylinder", "muscle", "adhesion", NULL};
  for (int i = 0; kinds[i]; i++)
    if (!strcmp(elem, kinds[i])) return i;
  return -1;
}

void ld_read_actuator(ld_ctx* c, ld_node* n, ld_actuator* a, int kind) {
  static const char* const ok[] = {"group", "user", NULL};
  int class_kind = a->kind; /* the shortcut the class default was made by */
  a->kind = kind;
  ld_attr_nums(c, n, "gear", a->gear, 1, 6);
  int own_ctrlrange = ld_attr_nums(c, n, "ctrlrange", a->ctrlrange, 2, 2) > 0;
  if (own_ctrlrange && kind != LD_ACT_INTVELOCITY) a->inheritrange = 0; /* the later one wins */
  if (own_ctrlrange) a->has_ctrlrange = 1;
  if (ld_attr_nums(c, n, "forcerange", a->forcerange, 2, 2) > 0) a->has_forcerange = 1;
  int own_actrange = ld_attr_nums(c, n, "actrange", a->actrange, 2, 2) > 0;
  if (own_actrange) a->has_actrange = 1;
  if (own_actrange && kind == LD_ACT_INTVELOCITY) a->inheritrange = 0;
  ld_attr_limited(c, n, "ctrllimited", &a->ctrllimited);
  ld_attr_limited(c, n, "forcelimited", &a->forcelimited);
  ld_attr_limited(c, n, "actlimited", &a->actlimited);
  ld_attr_nums(c, n, "lengthrange", a->lengthrange, 2, 2);
  ld_attr_nums(c, n, "cranklength", &a->cranklength, 1, 1);
  if (kind == LD_ACT_MOTOR) {
    memset(a->gainprm, 0, sizeof a->gainprm);
    a->gainprm[0] = 1; /* the bias parameters stay (MuJoCo's), unused without a bias */
    a->dyntype = IMP_DYN_NONE;
    a->gaintype = IMP_GAIN_FIXED;
    a->biastype = IMP_BIAS_NONE;
    a->dampratio = 0;
  } else if (kind == LD_ACT_POSITION || kind == LD_ACT_INTVELOCITY) {
    int servo_class = class_kind == LD_ACT_POSITION || class_kind == LD_ACT_INTVELOCITY;
    read_position(c, n, a, servo_class, kind == LD_ACT_POSITION ? own_ctrlrange : own_actrange);
    /* intvelocity: ctrl is a velocity, integrated into the servo's
       setpoint act (MJCF reference, actuator/intvelocity) */
    if (kind == LD_ACT_INTVELOCITY) a->dyntype = IMP_DYN_INTEGRATOR;
  } else if (kind == LD_ACT_VELOCITY) {
    double k = a->gainprm[0];
    ld_attr_nums(c, n, "kv", &k, 1, 1);
    memset(a->gainprm, 0, sizeof a->gainprm);
    memset(a->biasprm, 0, sizeof a->biasprm);
    a->gainprm[0] = k;
    a->biasprm[2] = -k;
    a->dyntype = IMP_DYN_NONE;
    a->gaintype = IMP_GAIN_FIXED;
    a->biastype = IMP_BIAS_AFFINE;
    a->dampratio = 0;
  } else if (kind == LD_ACT_DAMPER) {
    read_damper(c, n, a);
  } else if (kind == LD_ACT_CYLINDER) {
    read_cylinder(c, n, a);
  } else if (kind == LD_ACT_MUSCLE) {
    read_muscle(c, n, a);
  } else if (kind == LD_ACT_ADHESION) {
    read_adhesion(c, n, a);
  } else {
    read_general(c, n, a);
  }
  ld_accept(n, ok);
}

void ld_parse_defaults(ld_ctx* c, ld_node* n, int parent) {
  int id;
  const char* name = ld_attr_str(n, "class");
  if (parent < 0) {
    id = 0; /* the top-level <default> is class "main" */
    if (name) LD_AT(c->classes, ld_class, 0)->name = name;
  } else {
    if (!name) ld_error(c, n->file, n->line, "nested default without a class name");
    for (int i = 0; i < c->classes.n; i++)
      if (!strcmp(LD_AT(c->classes, ld_class, i)->name, name))
        ld_error(c, n->file, n->line, "repeated default class name '%s'", name);
    id = c->classes.n;
    ld_class* cl = ld_push(c, &c->classes);
    *cl = *LD_AT(c->classes, ld_class, parent);
    cl->name = name;
    cl->parent = parent;
  }
  ld_warn_unused(c, n);
  /* the class's own elements first, then nested classes copy the result */
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    ld_class* cl = LD_AT(c->classes, ld_class, id);
    const char* e = ch->name;
    int kind = ld_actuator_kind(e);
    if (!strcmp(e, "default")) continue;
    if (!strcmp(e, "joint")) ld_read_joint(c, ch, &cl->joint);
    else if (!strcmp(e, "geom")) ld_read_geom(c, ch, &cl->geom);
    else if (!strcmp(e, "site")) ld_read_site(c, ch, &cl->site);
    else if (!strcmp(e, "camera")) ld_read_camera(c, ch, &cl->camera);
    else if (!strcmp(e, "light")) ld_read_light(c, ch, &cl->light);
    else if (!strcmp(e, "material")) ld_read_material(c, ch, &cl->material);
    else if (kind >= 0) ld_read_actuator(c, ch, &cl->actuator, kind);
    else if (!strcmp(e, "pair")) ld_read_pair(c, ch, &cl->pair);
    else if (!strcmp(e, "equality")) ld_read_equality(c, ch, &cl->equality, -1);
    else if (!strcmp(e, "tendon")) ld_read_tendon(c, ch, &cl->tendon);
    else if (!strcmp(e, "mesh")) ld_read_mesh_attrs(c, ch, cl->mesh_scale, &cl->mesh_inertia,
                                                     &cl->mesh_maxhullvert);
    else {
      char key[160];
      snprintf(key, sizeof key, "e:%s", e);
      ld_warning(c, key, ch->file, ch->line, "element '%s' is not supported yet (ignored)", e);
      continue;
    }
    ld_warn_unused(c, ch);
  }
  for (ld_node* ch = n->child; ch; ch = ch->next)
    if (!strcmp(ch->name, "default")) ld_parse_defaults(c, ch, id);
}
