/* <asset><model> and <body><attach>: sub-models inserted into the body tree
 * (MuJoCo 3.x; MJCF reference: asset/model, body/attach; programming
 * guide, "Model editing: attachment").
 *
 * What MuJoCo does, and what we do the same way:
 *  - <model name file> names another MJCF file (relative to the directory
 *    of the file that declares it); without a name, the file's model name.
 *    The file is read when the asset is, so its XML errors name it.
 *  - <attach model body prefix> copies the sub-model's body of that name
 *    and its subtree (joints, geoms, sites, cameras, lights, composites)
 *    under the body (or frame) holding the element; frame= copies a
 *    <frame> of the sub-model with its contents; with neither, the
 *    contents of its world body go in at that point. The copy's pose is
 *    its own pos/quat, moved by the frames around the <attach>.
 *  - Every name of the sub-model, and every reference to one, gets the
 *    prefix: bodies, joints, geoms, sites, cameras, lights, meshes,
 *    textures, materials, height fields, tendons, actuators, sensors,
 *    equalities, pairs, excludes, default classes, and its own model
 *    assets (an <attach> inside it composes the prefixes). References to
 *    the body "world" keep meaning the world.
 *  - The sub-model's assets, default classes, contact pairs and excludes,
 *    equalities, tendons, actuators and sensors are copied in. Those
 *    outside the body tree come after the main file's own, attachments in
 *    the order they are read, a sub-model's own before those of the
 *    attachments inside it: MuJoCo's reader reads the world body (and so
 *    attaches) after every other section (xml_native_reader.cc,
 *    mjXReader::Parse), and an attachment appends the sub-model's lists
 *    (user_model.cc, mjCModel::operator+=). Here the main file's body tree
 *    is read before its other sections (MuJoCo 2.2.2's order, which the
 *    composites' objects follow), so a sub-model's sections wait in a
 *    queue (ld_attach_finish).
 *  - Its compiler settings apply to its own elements ("the child model
 *    will be compiled using the child flags"): angle and eulerseq to the
 *    angles it writes (joint ranges, ref and springref in its unit, kept
 *    per joint: ld_joint.angle_unit), autolimits to its joints, tendons and
 *    actuators, meshdir / texturedir / assetdir relative to its own file.
 *  - Its <option> loses to the parent's, with a warning when it sets a
 *    value that differs (MuJoCo's compiler conflict="warning", the
 *    default); <size>, <visual> and <statistic> are the parent's alone.
 *  - A copy whose top body's prefixed name exists already is an error at
 *    the <attach> (as MuJoCo's reader checks); other names repeated after
 *    prefixing are the compiler's "repeated ... name" errors (or the
 *    default classes'), at the repeated element's file and line.
 *
 * Decided here (the docs are silent or MuJoCo's behaviour is not ours):
 *  - Compiler settings that act when the model is compiled rather than read
 *    (inertiafromgeom, boundmass, boundinertia, settotalmass,
 *    inertiagrouprange, fitaabb, exactmeshinertia, lengthrange) are one per
 *    model here: a sub-model whose values differ from the parent's is
 *    refused at its <compiler> (unsupported), not compiled with the wrong
 *    ones.
 *  - An element outside the tree (actuator, sensor, tendon ...) that names
 *    something the attached subtree does not contain: MuJoCo skips it
 *    silently (CopyList); here it stays and the compiler's "unknown ..."
 *    error names it, so nothing of the sub-model disappears unannounced.
 *  - A body or frame to attach that lies inside a <frame> of the
 *    sub-model is refused (whether that frame moves the copy is not
 *    documented).
 *  - Keyframes of a sub-model, and self-attachment (no model attribute),
 *    are refused (unsupported). Default classes of a sub-model are its
 *    own: its elements without a class take its top-level defaults, not
 *    the parent's.
 *  - Bounds: attachments nested LD_MAXATTACHDEPTH deep (a model that
 *    attaches itself ends here, or at once when the file repeats in the
 *    chain), LD_MAXATTACHES <attach> elements, LD_MAXATTACHNODES elements
 *    copied in all, the sub-model files' bytes counted with the includes'
 *    (LD_MAXINCLUDEBYTES), and the element nesting of the sub-model files
 *    being read inside one another within LD_MAXDEPTH together (the main
 *    file's within it too: the readers recurse 2 LD_MAXDEPTH deep at most). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

/* attachments inside attachments (a file that attaches itself ends here) */
#define LD_MAXATTACHDEPTH 16
/* <attach> elements read in one load */
#define LD_MAXATTACHES 10000
/* elements copied from sub-models in one load (each <attach> copies its
   model's whole tree): a model attached 10,000 times over stops here */
#define LD_MAXATTACHNODES (1L << 22)

/* a <model> asset */
typedef struct ld_submodel {
  const char* name;
  const char* path; /* the file, resolved */
  const char* dir;  /* its directory, "" or ending in '/' */
  const char* file; /* the <model> element */
  int line;
  ld_node* root;    /* as read (includes spliced); each <attach> copies it */
  int depth;        /* element nesting of the tree */
  struct ld_submodel* next;
} ld_submodel;

typedef struct ld_attach_state {
  ld_submodel* models;
  int nattach;        /* <attach> elements read */
  long nodes;         /* elements copied */
  int depth;          /* attachments being read inside one another */
  int levels;         /* element nesting of those sub-models together */
  const char* prefix; /* names' prefix of the model being read ("" for the main file) */
  const char* chain[LD_MAXATTACHDEPTH]; /* their files, outermost first */
  int builtin;        /* a class of MJCF's built-in defaults, -1 until made */
  struct ld_pending *pending, **tail; /* sub-models whose sections wait, in order */
} ld_attach_state;

static ld_attach_state* state(ld_ctx* c) {
  if (!c->attach) {
    c->attach = ld_alloc(c, sizeof *c->attach);
    c->attach->prefix = "";
    c->attach->builtin = -1;
    c->attach->tail = &c->attach->pending;
  }
  return c->attach;
}

static const char* concat(ld_ctx* c, const char* a, const char* b) {
  size_t na = strlen(a), nb = strlen(b);
  char* s = ld_alloc(c, na + nb + 1);
  memcpy(s, a, na);
  memcpy(s + na, b, nb + 1);
  return s;
}

/* deepest element nesting below n (n itself 1) */
static int tree_depth(const ld_node* n) {
  int d = 0;
  for (const ld_node* ch = n->child; ch; ch = ch->next) {
    int k = tree_depth(ch);
    if (k > d) d = k;
  }
  return d + 1;
}

/* ------------------------------------------------------------ <model> */

void ld_parse_model_asset(ld_ctx* c, ld_node* n) {
  ld_attach_state* st = state(c);
  const char* f = ld_attr_str(n, "file");
  if (!f || !f[0]) ld_error(c, n->file, n->line, "model asset without a file attribute");
  const char* type = ld_attr_str(n, "content_type");
  if (type && strcmp(type, "text/xml"))
    ld_error(c, n->file, n->line, "model asset: content_type '%s' (only text/xml is supported)",
             type);
  const char* name = ld_attr_str(n, "name");
  ld_warn_unused(c, n);
  ld_submodel* sm = ld_alloc(c, sizeof *sm);
  sm->file = n->file;
  sm->line = n->line;
  sm->path = ld_join_path(c, c->dir, f);
  const char* slash = strrchr(sm->path, '/');
  char* dir = ld_alloc(c, strlen(sm->path) + 1);
  if (slash) memcpy(dir, sm->path, (size_t)(slash - sm->path + 1));
  sm->dir = dir;
  long size = 0;
  const char* why = NULL;
  char* text = ld_read_regular_file(c, sm->path, LD_MAXINCLUDEBYTES, &size, &why);
  if (!text) ld_error(c, n->file, n->line, "model file '%s': %s", sm->path, why);
  if ((c->include_bytes += size) > LD_MAXINCLUDEBYTES)
    ld_error(c, n->file, n->line,
             "included and model files exceed %ld MB in total (a file read over and over?)",
             LD_MAXINCLUDEBYTES >> 20);
  /* its includes are relative to its own directory; its elements nest
     inside the sub-models being read (LD_MAXDEPTH bounds them together) */
  const char* olddir = c->dir;
  c->dir = sm->dir;
  sm->root = ld_xml_read_text(c, sm->path, text, 1 + st->levels);
  c->dir = olddir;
  sm->depth = tree_depth(sm->root);
  if (!name || !name[0]) {
    const char* mn = ld_attr_str(sm->root, "model");
    if (!mn || !mn[0])
      ld_error(c, n->file, n->line, "model asset without a name, and file '%s' names no model",
               sm->path);
    name = concat(c, st->prefix, mn); /* a name given here was prefixed with the file's */
  }
  for (ld_submodel* o = st->models; o; o = o->next)
    if (!strcmp(o->name, name)) ld_error(c, n->file, n->line, "repeated model name '%s'", name);
  sm->name = name;
  sm->next = st->models;
  st->models = sm;
}

/* ------------------------------------------------------ copy, rename */

static ld_node* copy_tree(ld_ctx* c, const ld_node* n) {
  ld_attach_state* st = c->attach;
  if (++st->nodes > LD_MAXATTACHNODES)
    ld_error(c, n->file, n->line, "more than %ld elements copied by attachments", LD_MAXATTACHNODES);
  ld_node* m = ld_alloc(c, sizeof *m);
  *m = *n;
  m->attr = ld_alloc(c, sizeof(ld_attr) * (size_t)(n->nattr ? n->nattr : 1));
  for (int i = 0; i < n->nattr; i++) {
    m->attr[i] = n->attr[i];
    m->attr[i].used = 0;
  }
  m->child = m->next = NULL;
  ld_node** tail = &m->child;
  for (const ld_node* ch = n->child; ch; ch = ch->next) {
    *tail = copy_tree(c, ch);
    tail = &(*tail)->next;
  }
  return m;
}

/* attributes whose value names an element of the model */
static int names_element(const char* a) {
  static const char* const k[] = {
      "name",     "class",   "childclass", "joint",     "joint1",    "joint2",   "jointinparent",
      "body",     "body1",   "body2",      "geom",      "geom1",     "geom2",    "site",
      "site1",    "site2",   "sidesite",   "cranksite", "slidersite", "refsite", "tendon",
      "tendon1",  "tendon2", "mesh",       "material",  "texture",   "hfield",   "target",
      "actuator", "objname", "refname",    "camera",    NULL};
  for (int i = 0; k[i]; i++)
    if (!strcmp(a, k[i])) return 1;
  return 0;
}

/* attributes that may name the world body, which keeps its name */
static int may_name_world(const char* a) {
  static const char* const k[] = {"body", "body1", "body2", "target", "objname", "refname", NULL};
  for (int i = 0; k[i]; i++)
    if (!strcmp(a, k[i])) return 1;
  return 0;
}

/* the prefix on every name and reference below n; in an <attach> of the
   sub-model its model (a prefixed asset) and its prefix (composed), not
   its body or frame, which name elements of that other model */
static void rename_tree(ld_ctx* c, ld_node* n, const char* prefix) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    int attach = !strcmp(ch->name, "attach");
    for (int i = 0; i < ch->nattr; i++) {
      ld_attr* a = &ch->attr[i];
      int rename = attach ? !strcmp(a->name, "model") || !strcmp(a->name, "prefix")
                          : names_element(a->name);
      if (!rename || !a->value[0]) continue;
      if (!attach && may_name_world(a->name) && !strcmp(a->value, "world")) continue;
      a->value = concat(c, prefix, a->value);
    }
    rename_tree(c, ch, prefix);
  }
}

static void add_attr(ld_ctx* c, ld_node* n, const char* name, const char* value) {
  ld_attr* a = ld_alloc(c, sizeof(ld_attr) * (size_t)(n->nattr + 1));
  memcpy(a, n->attr, sizeof(ld_attr) * (size_t)n->nattr);
  a[n->nattr].name = name;
  a[n->nattr].value = value;
  a[n->nattr].used = 0;
  n->attr = a;
  n->nattr++;
}

/* The readers of elements outside the body tree take the main file's
   top-level class when an element names none; a sub-model's elements
   take its own: name it on each (meshes, materials, pairs, equalities,
   tendons, actuators). */
static void name_main_class(ld_ctx* c, ld_node* root, const char* mainclass) {
  for (ld_node* s = root->child; s; s = s->next) {
    int all = !strcmp(s->name, "equality") || !strcmp(s->name, "actuator");
    int asset = !strcmp(s->name, "asset"), contact = !strcmp(s->name, "contact"),
        tendon = !strcmp(s->name, "tendon");
    if (!all && !asset && !contact && !tendon) continue;
    for (ld_node* e = s->child; e; e = e->next) {
      int takes = all || (asset && (!strcmp(e->name, "mesh") || !strcmp(e->name, "material"))) ||
                  (contact && !strcmp(e->name, "pair")) ||
                  (tendon && (!strcmp(e->name, "spatial") || !strcmp(e->name, "fixed")));
      if (takes && !ld_attr_str(e, "class")) add_attr(c, e, "class", mainclass);
    }
  }
}

/* ------------------------------------------------- compiler settings */

/* the settings the compiler applies to the whole model */
typedef struct compile_settings {
  int fitaabb, exactmeshinertia, inertiafromgeom, inertiagroup[2];
  double boundmass, boundinertia, settotalmass;
  ld_lropt lr;
} compile_settings;

static void get_compile_settings(const ld_ctx* c, compile_settings* s) {
  s->fitaabb = c->fitaabb;
  s->exactmeshinertia = c->exactmeshinertia;
  s->inertiafromgeom = c->inertiafromgeom;
  s->inertiagroup[0] = c->inertiagroup[0];
  s->inertiagroup[1] = c->inertiagroup[1];
  s->boundmass = c->boundmass;
  s->boundinertia = c->boundinertia;
  s->settotalmass = c->settotalmass;
  s->lr = c->lr;
}

static void set_compile_settings(ld_ctx* c, const compile_settings* s) {
  c->fitaabb = s->fitaabb;
  c->exactmeshinertia = s->exactmeshinertia;
  c->inertiafromgeom = s->inertiafromgeom;
  c->inertiagroup[0] = s->inertiagroup[0];
  c->inertiagroup[1] = s->inertiagroup[1];
  c->boundmass = s->boundmass;
  c->boundinertia = s->boundinertia;
  c->settotalmass = s->settotalmass;
  c->lr = s->lr;
}

/* MJCF's defaults of those settings (as xml.c starts a load) */
static void default_compile_settings(compile_settings* s) {
  memset(s, 0, sizeof *s);
  s->inertiafromgeom = 2;
  s->inertiagroup[1] = 5;
  ld_lengthrange_defaults(&s->lr);
}

/* the first setting that differs, NULL when none */
static const char* differing_setting(const compile_settings* a, const compile_settings* b) {
  if (a->fitaabb != b->fitaabb) return "fitaabb";
  if (a->exactmeshinertia != b->exactmeshinertia) return "exactmeshinertia";
  if (a->inertiafromgeom != b->inertiafromgeom) return "inertiafromgeom";
  if (a->inertiagroup[0] != b->inertiagroup[0] || a->inertiagroup[1] != b->inertiagroup[1])
    return "inertiagrouprange";
  if (a->boundmass != b->boundmass) return "boundmass";
  if (a->boundinertia != b->boundinertia) return "boundinertia";
  if (a->settotalmass != b->settotalmass) return "settotalmass";
  if (memcmp(&a->lr, &b->lr, sizeof a->lr)) return "lengthrange";
  return NULL;
}

/* the settings that apply as a file is read, saved around a sub-model */
typedef struct read_settings {
  int degree, autolimits;
  char eulerseq[4];
  const char *meshdir, *texturedir, *dir;
} read_settings;

/* an attached sub-model whose sections outside the body tree are read
   after the main file's (ld_attach_finish) */
typedef struct ld_pending {
  ld_node* root;            /* its renamed copy */
  const ld_submodel* sm;
  read_settings settings;   /* its own, as its compiler left them */
  struct ld_pending* next;
} ld_pending;

static void get_read_settings(const ld_ctx* c, read_settings* s) {
  s->degree = c->degree;
  s->autolimits = c->autolimits;
  memcpy(s->eulerseq, c->eulerseq, 4);
  s->meshdir = c->meshdir;
  s->texturedir = c->texturedir;
  s->dir = c->dir;
}

static void set_read_settings(ld_ctx* c, const read_settings* s) {
  c->degree = s->degree;
  c->autolimits = s->autolimits;
  memcpy(c->eulerseq, s->eulerseq, 4);
  c->meshdir = s->meshdir;
  c->texturedir = s->texturedir;
  c->dir = s->dir;
}

/* ------------------------------------------------------- the sections */

/* the class a sub-model's elements start from: its top-level <default>
   (one, made a class of its own copied from MJCF's built-in defaults) */
static int sub_main_class(ld_ctx* c, ld_node* root, const char* prefix, ld_node* at) {
  ld_attach_state* st = c->attach;
  if (st->builtin < 0) {
    st->builtin = c->classes.n;
    ld_class* b = ld_push(c, &c->classes);
    ld_defaults_builtin(b);
    b->name = "\001builtin"; /* no XML text can name it */
    b->parent = -1;
  }
  ld_node* top = NULL;
  for (ld_node* s = root->child; s; s = s->next) {
    if (strcmp(s->name, "default")) continue;
    if (top)
      ld_error(c, s->file, s->line,
               "an attached model with more than one top-level <default> is not supported");
    top = s;
  }
  const char* name = top ? ld_attr_str(top, "class") : NULL;
  if (!name) name = concat(c, prefix, "main");
  name_main_class(c, root, name);
  if (top) {
    if (!ld_attr_str(top, "class")) add_attr(c, top, "class", name);
    ld_parse_defaults(c, top, st->builtin);
  } else {
    for (int i = 0; i < c->classes.n; i++)
      if (!strcmp(LD_AT(c->classes, ld_class, i)->name, name))
        ld_error(c, at->file, at->line, "repeated default class name '%s'", name);
    ld_class* cl = ld_push(c, &c->classes);
    ld_defaults_builtin(cl);
    cl->name = name;
    cl->parent = st->builtin;
  }
  return ld_find_class(c, at, name);
}

/* The element named name of kind tag ("body" or "frame") below n (a world
   body or one of its bodies and frames), with the childclass in force at
   it (*cls, NULL: the model's main class) and whether a frame holds it. */
static ld_node* find_element(ld_node* n, const char* tag, const char* name, const char** cls,
                             int* in_frame) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    int isbody = !strcmp(ch->name, "body"), isframe = !strcmp(ch->name, "frame");
    if (!isbody && !isframe) continue;
    const char* nm = ld_attr_str(ch, "name");
    if (!strcmp(ch->name, tag) && nm && !strcmp(nm, name)) return ch;
    const char* outer = *cls;
    int outer_frame = *in_frame;
    const char* cc = ld_attr_str(ch, "childclass");
    if (cc) *cls = cc;
    *in_frame = isframe;
    ld_node* hit = find_element(ch, tag, name, cls, in_frame);
    if (hit) return hit;
    *cls = outer;
    *in_frame = outer_frame;
  }
  return NULL;
}

/* the sub-model's part the <attach> n asks for, into body */
static void attach_tree(ld_ctx* c, ld_node* n, ld_node* root, const ld_submodel* sm,
                        const char* prefix, int mainclass, int body, const double* frame) {
  const char* bname = ld_attr_str(n, "body");
  const char* fname = ld_attr_str(n, "frame");
  if (!bname && !fname) {
    /* the world body's contents, in a frame at the <attach> */
    for (ld_node* w = root->child; w; w = w->next) {
      if (strcmp(w->name, "worldbody")) continue;
      ld_warn_unused(c, w);
      for (ld_node* e = w->child; e; e = e->next)
        if (!strcmp(e->name, "joint") || !strcmp(e->name, "freejoint") ||
            !strcmp(e->name, "inertial"))
          ld_error(c, e->file, e->line, "'%s' is not allowed in the world body", e->name);
      ld_xml_children(c, w, body, mainclass, frame);
    }
    return;
  }
  const char* tag = bname ? "body" : "frame";
  const char* want = concat(c, prefix, bname ? bname : fname);
  ld_node* hit = NULL;
  const char* cls = NULL;
  int in_frame = 0;
  for (ld_node* w = root->child; w && !hit; w = w->next)
    if (!strcmp(w->name, "worldbody")) hit = find_element(w, tag, want, &cls, &in_frame);
  if (!hit)
    ld_error(c, n->file, n->line, "attach: no %s '%s' in model '%s' (file '%s')", tag,
             bname ? bname : fname, sm->name, sm->path);
  if (in_frame) {
    ld_unsupported(c, "attach/inframe", n->file, n->line,
                   "attach: %s '%s' of model '%s' lies inside a <frame> there; attaching it "
                   "is not supported", tag, bname ? bname : fname, sm->name);
    return;
  }
  /* a node holding only the copy, for the body reader */
  ld_node* holder = ld_alloc(c, sizeof *holder);
  holder->name = "body";
  holder->file = hit->file;
  holder->line = hit->line;
  holder->attr = ld_alloc(c, sizeof(ld_attr));
  ld_node* one = ld_alloc(c, sizeof *one);
  *one = *hit;
  one->next = NULL;
  holder->child = one;
  ld_xml_children(c, holder, body, cls ? ld_find_class(c, hit, cls) : mainclass, frame);
}

/* what the sub-model's autolimits and angle unit make of its own joints,
   tendons and actuators from index j0, t0, a0 on (those of attachments
   inside it are settled already) */
static void settle_own_settings(ld_ctx* c, int j0, int t0, int a0, int autolimits, int degree) {
  for (int i = j0; i < c->joints.n; i++) {
    ld_joint* j = LD_AT(c->joints, ld_joint, i);
    if (!j->angle_unit) j->angle_unit = degree ? 2 : 1;
    if (j->limited < 0) j->limited = autolimits ? j->has_range : 0;
    if (j->actfrclimited < 0) j->actfrclimited = autolimits ? j->has_actfrcrange : 0;
  }
  for (int i = t0; i < c->tendons.n; i++) {
    ld_tendon* t = LD_AT(c->tendons, ld_tendon, i);
    if (t->limited < 0) t->limited = autolimits ? t->has_range : 0;
    if (t->actfrclimited < 0) t->actfrclimited = autolimits ? t->has_actfrcrange : 0;
  }
  for (int i = a0; i < c->actuators.n; i++) {
    ld_actuator* a = LD_AT(c->actuators, ld_actuator, i);
    if (a->ctrllimited < 0) a->ctrllimited = autolimits ? a->has_ctrlrange : 0;
    if (a->forcelimited < 0) a->forcelimited = autolimits ? a->has_forcerange : 0;
    if (a->actlimited < 0) a->actlimited = autolimits ? a->has_actrange : 0;
  }
}

/* a file's assets named after their files get the prefix too (references
   to them were prefixed with the rest) */
static void prefix_autonamed(ld_ctx* c, int m0, int x0, int h0, const char* prefix) {
  for (int i = m0; i < c->meshes.n; i++) {
    ld_mesh* m = LD_AT(c->meshes, ld_mesh, i);
    if (m->autoname) m->name = concat(c, prefix, m->name);
  }
  for (int i = x0; i < c->textures.n; i++) {
    ld_texture* t = LD_AT(c->textures, ld_texture, i);
    if (t->autoname) t->name = concat(c, prefix, t->name);
  }
  for (int i = h0; i < c->hfields.n; i++) {
    ld_hfield* h = LD_AT(c->hfields, ld_hfield, i);
    if (h->autoname) h->name = concat(c, prefix, h->name);
  }
}

/* the sub-model's sections, in the order the main file's are read */
static void read_submodel(ld_ctx* c, ld_node* n, ld_node* root, const ld_submodel* sm,
                          const char* prefix, int body, const double* frame) {
  /* its compiler, from MJCF's defaults */
  read_settings own = {1, 1, "xyz", NULL, NULL, sm->dir};
  set_read_settings(c, &own);
  compile_settings parent, sub;
  get_compile_settings(c, &parent);
  default_compile_settings(&sub);
  set_compile_settings(c, &sub);
  ld_node* compiler = NULL;
  for (ld_node* s = root->child; s; s = s->next)
    if (!strcmp(s->name, "compiler")) ld_xml_section(c, compiler = s);
  get_compile_settings(c, &sub);
  set_compile_settings(c, &parent);
  const char* diff = differing_setting(&parent, &sub);
  if (diff)
    ld_unsupported(c, "attach/compiler", compiler ? compiler->file : n->file,
                   compiler ? compiler->line : n->line,
                   "compiler %s of attached model '%s' differs from this model's (one value "
                   "per model here; MuJoCo compiles each model's elements with its own)",
                   diff, sm->name);
  /* its options lose to ours (MuJoCo: compiler conflict="warning") */
  imp_option opt = c->opt;
  for (ld_node* s = root->child; s; s = s->next) {
    if (strcmp(s->name, "option")) continue;
    ld_xml_section(c, s);
    if (memcmp(&opt, &c->opt, sizeof opt))
      ld_warning(c, "attach/option", s->file, s->line,
                 "option of attached model '%s' differs from this model's: this model's apply "
                 "(as MuJoCo's compiler conflict=\"warning\")", sm->name);
    c->opt = opt;
  }
  int mainclass = sub_main_class(c, root, prefix, n);
  int m0 = c->meshes.n, x0 = c->textures.n, h0 = c->hfields.n;
  for (ld_node* s = root->child; s; s = s->next)
    if (!strcmp(s->name, "asset")) {
      ld_warn_unused(c, s);
      ld_parse_asset(c, s);
    }
  prefix_autonamed(c, m0, x0, h0, prefix);
  /* its elements outside the tree wait for the main file's (a place in
     the queue taken before its tree, whose attachments queue theirs) */
  ld_pending* p = ld_alloc(c, sizeof *p);
  p->root = root;
  p->sm = sm;
  get_read_settings(c, &p->settings);
  *c->attach->tail = p;
  c->attach->tail = &p->next;
  int j0 = c->joints.n, t0 = c->tendons.n, a0 = c->actuators.n;
  attach_tree(c, n, root, sm, prefix, mainclass, body, frame);
  settle_own_settings(c, j0, t0, a0, c->autolimits, c->degree);
  /* sections of no consequence here, or unknown ones */
  static const char* const known[] = {"compiler", "option", "size", "visual", "statistic",
                                      "default", "asset", "worldbody", "contact", "equality",
                                      "tendon", "actuator", "sensor", "keyframe", NULL};
  for (ld_node* s = root->child; s; s = s->next) {
    int k = 0;
    while (known[k] && strcmp(known[k], s->name)) k++;
    if (!known[k]) ld_warn_element(c, s);
  }
}

void ld_attach(ld_ctx* c, ld_node* n, int body, int childclass, const double* frame) {
  (void)childclass; /* the sub-model's elements took their defaults from its own classes */
  ld_attach_state* st = state(c);
  const char* model = ld_attr_str(n, "model");
  const char* prefix = ld_attr_str(n, "prefix");
  int has_body = ld_attr_str(n, "body") != NULL, has_frame = ld_attr_str(n, "frame") != NULL;
  ld_warn_unused(c, n);
  if (!prefix) ld_error(c, n->file, n->line, "attach: the prefix attribute is required");
  if (has_body && has_frame)
    ld_error(c, n->file, n->line, "attach: body and frame cannot both be given");
  if (!model) {
    ld_unsupported(c, "attach/self", n->file, n->line,
                   "attach without a model (self-attachment) is not supported");
    return;
  }
  ld_submodel* sm = st->models;
  while (sm && strcmp(sm->name, model)) sm = sm->next;
  if (!sm)
    ld_error(c, n->file, n->line, "attach: unknown model '%s' (no <model> asset of that name)",
             model);
  if (++st->nattach > LD_MAXATTACHES)
    ld_error(c, n->file, n->line, "more than %d attachments", LD_MAXATTACHES);
  for (int i = 0; i < st->depth; i++)
    if (!strcmp(st->chain[i], sm->path))
      ld_error(c, n->file, n->line, "attach: model '%s' (file '%s') attaches itself", model,
               sm->path);
  if (st->depth >= LD_MAXATTACHDEPTH)
    ld_error(c, n->file, n->line, "attachments nested more than %d deep", LD_MAXATTACHDEPTH);
  if (st->levels + sm->depth > LD_MAXDEPTH)
    ld_error(c, n->file, n->line, "elements nested more than %d deep (through attachments)",
             LD_MAXDEPTH);
  /* MuJoCo checks the copy's top body against the model's bodies first */
  if (has_body) {
    const char* top = concat(c, prefix, ld_attr_str(n, "body"));
    if (ld_find_name(&c->bodies, top) >= 0)
      ld_error(c, n->file, n->line, "attach: body '%s' already exists (the prefix '%s' used twice?)",
               top, prefix);
  }
  ld_node* root = copy_tree(c, sm->root);
  rename_tree(c, root, prefix);

  read_settings outer;
  get_read_settings(c, &outer);
  const char* outer_prefix = st->prefix;
  st->chain[st->depth++] = sm->path;
  st->levels += sm->depth;
  st->prefix = prefix;
  read_submodel(c, n, root, sm, prefix, body, frame);
  st->prefix = outer_prefix;
  st->levels -= sm->depth;
  st->depth--;
  set_read_settings(c, &outer);
}

void ld_attach_finish(ld_ctx* c) {
  ld_attach_state* st = c->attach;
  if (!st) return;
  read_settings outer;
  get_read_settings(c, &outer);
  static const char* const kinds[] = {"contact", "equality", "tendon", "actuator", "sensor",
                                      "keyframe", NULL};
  for (ld_pending* p = st->pending; p; p = p->next) {
    set_read_settings(c, &p->settings);
    int t0 = c->tendons.n, a0 = c->actuators.n;
    for (int k = 0; kinds[k]; k++)
      for (ld_node* s = p->root->child; s; s = s->next) {
        if (strcmp(s->name, kinds[k])) continue;
        ld_warn_unused(c, s);
        if (k == 2) ld_parse_tendons(c, s);
        else if (k == 4) ld_parse_sensors(c, p->root, s);
        else if (k == 5 && s->child)
          ld_unsupported(c, "attach/keyframe", s->child->file, s->child->line,
                         "keyframes of an attached model ('%s') are not supported", p->sm->name);
        else if (k < 5) ld_xml_section(c, s);
      }
    settle_own_settings(c, c->joints.n, t0, a0, c->autolimits, c->degree);
  }
  set_read_settings(c, &outer);
}
