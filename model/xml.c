/* MJCF reading: libxml2 DOM -> light node tree -> spec.
 *
 * libxml2 is used only in this file. Each file (the main one and every
 * <include file=...>) is parsed with NONET and big line numbers, copied into
 * an ld_node tree that remembers file and line of every element, and freed at
 * once; includes are then spliced in place (the included file's <mujoco>
 * children replace the <include> element), paths relative to the main file's
 * directory as MJCF defines. The sections of <mujoco> are then read in
 * MuJoCo's order (compiler, option, size, visual, default, asset, worldbody,
 * contact, equality, actuator, sensor, keyframe), whatever their order in
 * the file; <asset> is read by asset.c, <sensor> by sensor.c.
 *
 * Loading is thread-safe: everything a load changes lives in its ld_ctx.
 * libxml2 wants its global tables set up once before threads parse at the
 * same time (libxml2 docs, xmlInitParser: "call once before processing in
 * case of use in multithreaded programs"); the first load does it, through
 * pthread_once, so a program need not. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

/* ------------------------------------------------------- the node tree */

/* the first error libxml2 reports (later ones are often consequences) */
typedef struct first_error {
  int set, line;
  char msg[512];
} first_error;

static void on_xml_error(void* user, xmlErrorPtr e) {
  first_error* f = user;
  if (f->set || !e) return;
  f->set = 1;
  f->line = e->line;
  snprintf(f->msg, sizeof f->msg, "%s", e->message ? e->message : "malformed XML");
  size_t k = strlen(f->msg);
  while (k && (f->msg[k - 1] == '\n' || f->msg[k - 1] == ' ')) f->msg[--k] = 0;
}

/* An attribute's value being assembled: its text with entity references
   expanded. libxml2 bounds entity amplification when it expands them, but
   without XML_PARSE_NOENT it leaves attribute references in the tree and
   expanding them (xmlNodeListGetString did it here, by repeated strcat)
   passed every bound: one 100 KB entity named 5,000 times took 87 s and
   1 GB (issue 15). So the expansion is ours, linear, and bounded. */
typedef struct attr_text {
  char* s;
  size_t n, cap;
  int fail; /* 1: LD_MAXENTITYBYTES reached, 2: LD_MAXENTITYDEPTH, 3: out of memory */
} attr_text;

static void text_append(ld_ctx* c, attr_text* t, const char* s, int from_entity) {
  size_t k = strlen(s);
  if (from_entity && (c->entity_bytes += (long)k) > LD_MAXENTITYBYTES) {
    t->fail = 1;
    return;
  }
  if (t->n + k + 1 > t->cap) {
    size_t cap = 2 * (t->n + k + 1);
    char* p = realloc(t->s, cap);
    if (!p) {
      t->fail = 3;
      return;
    }
    t->s = p;
    t->cap = cap;
  }
  memcpy(t->s + t->n, s, k + 1);
  t->n += k;
}

/* the text of a node list (an attribute's children, or an entity's), each
   entity reference replaced by its replacement text (depth: entities
   around the list) */
static void expand_text(ld_ctx* c, xmlDocPtr doc, xmlNodePtr list, int depth, attr_text* t) {
  for (xmlNodePtr x = list; x && !t->fail; x = x->next) {
    if (x->type == XML_TEXT_NODE || x->type == XML_CDATA_SECTION_NODE) {
      if (x->content) text_append(c, t, (const char*)x->content, depth > 0);
    } else if (x->type == XML_ENTITY_REF_NODE) {
      if (depth >= LD_MAXENTITYDEPTH) {
        t->fail = 2;
        return;
      }
      xmlEntityPtr e = xmlGetDocEntity(doc, x->name);
      if (e && e->children) expand_text(c, doc, e->children, depth + 1, t);
      else if (e && e->content) text_append(c, t, (const char*)e->content, 1);
    }
  }
}

/* x's line. libxml2 keeps an element's line in 16 bits (65535 past that,
   XML_PARSE_BIG_LINES or not); a text node's line it keeps whole, and that
   line is where the text ends (libxml2 2.9.14, measured): the line of the
   element right after it. Errors in files of 100,000 bodies then name the
   right line. */
static int element_line(xmlNodePtr x) {
  long line = xmlGetLineNo(x);
  if (line >= 65535 && x->prev && x->prev->type == XML_TEXT_NODE) {
    long after = xmlGetLineNo(x->prev);
    if (after > line) line = after;
  }
  return line > 0 && line <= INT_MAX ? (int)line : 0;
}

/* Copy element x and its descendants. An attribute whose entities expand
   past the bounds stops the copy: *bad_line is set to its element's line
   and *fail to attr_text's code, for the caller to report once libxml2's
   document is freed. */
static ld_node* copy_tree(ld_ctx* c, xmlNodePtr x, const char* file, int* fail, int* bad_line) {
  ld_node* n = ld_alloc(c, sizeof *n);
  n->name = ld_strdup(c, (const char*)x->name);
  n->file = file;
  n->line = element_line(x);
  for (xmlAttrPtr a = x->properties; a; a = a->next) n->nattr++;
  n->attr = ld_alloc(c, sizeof(ld_attr) * (size_t)(n->nattr ? n->nattr : 1));
  int i = 0;
  for (xmlAttrPtr a = x->properties; a && !*fail; a = a->next, i++) {
    n->attr[i].name = ld_strdup(c, (const char*)a->name);
    attr_text t = {NULL, 0, 0, 0};
    expand_text(c, x->doc, a->children, 0, &t);
    n->attr[i].value = ld_strdup(c, t.s && !t.fail ? t.s : "");
    free(t.s);
    if (t.fail) {
      *fail = t.fail;
      *bad_line = n->line;
    }
  }
  ld_node** tail = &n->child;
  for (xmlNodePtr ch = x->children; ch && !*fail; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    *tail = copy_tree(c, ch, file, fail, bad_line);
    tail = &(*tail)->next;
  }
  return n;
}

/* Parse one file (or in-memory text when xml != NULL) into a node tree;
   an included file (from: the including file, at fromline) is read whole
   first, refused unless it is a regular file, and counted against
   LD_MAXINCLUDEBYTES. */
static ld_node* read_xml(ld_ctx* c, const char* file, const char* xml, const char* from,
                         int fromline) {
  long size = 0;
  if (!xml && from) {
    const char* why = NULL;
    xml = ld_read_regular_file(c, file, LD_MAXINCLUDEBYTES, &size, &why);
    if (!xml) ld_error(c, from, fromline, "included file '%s': %s", file, why);
    if ((c->include_bytes += size) > LD_MAXINCLUDEBYTES)
      ld_error(c, from, fromline,
               "included files exceed %ld MB in total (a file included over and over?)",
               LD_MAXINCLUDEBYTES >> 20);
  } else if (!xml) {
    FILE* f = fopen(file, "rb");
    if (!f) ld_error(c, file, 0, "cannot open file");
    fclose(f);
  }
  if (xml && !size) size = (long)strlen(xml);
  if (size > INT_MAX) ld_error(c, file, 0, "file too large");
  xmlParserCtxtPtr p = xmlNewParserCtxt();
  if (!p) ld_error(c, file, 0, "out of memory");
  int opt = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
  /* libxml2 keeps the structured handler per thread: install ours for this
     parse only, so nothing is printed and the first error is kept */
  first_error fe = {0, 0, ""};
  void* olduser = xmlStructuredErrorContext;
  xmlStructuredErrorFunc oldfn = xmlStructuredError;
  xmlSetStructuredErrorFunc(&fe, on_xml_error);
  xmlDocPtr doc = xml ? xmlCtxtReadMemory(p, xml, (int)size, file, NULL, opt)
                      : xmlCtxtReadFile(p, file, NULL, opt);
  xmlSetStructuredErrorFunc(olduser, oldfn);
  if (!doc || !p->wellFormed) {
    if (!fe.set) {
      const xmlError* e = xmlCtxtGetLastError(p);
      on_xml_error(&fe, (xmlErrorPtr)e);
    }
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(p);
    ld_error(c, file, fe.line, "XML parse error: %s", fe.set ? fe.msg : "malformed XML");
  }
  xmlFreeParserCtxt(p);
  xmlNodePtr root = xmlDocGetRootElement(doc);
  if (!root) {
    xmlFreeDoc(doc);
    ld_error(c, file, 0, "empty XML document");
  }
  int fail = 0, bad_line = 0;
  ld_node* n = copy_tree(c, root, file, &fail, &bad_line);
  xmlFreeDoc(doc);
  if (fail == 1)
    ld_error(c, file, bad_line,
             "entity references expand to more than %ld MB of attribute text in total "
             "(entity amplification)", LD_MAXENTITYBYTES >> 20);
  if (fail == 2)
    ld_error(c, file, bad_line, "entities nested more than %d deep", LD_MAXENTITYDEPTH);
  if (fail) ld_error(c, file, bad_line, "out of memory");
  if (strcmp(n->name, "mujoco"))
    ld_error(c, file, n->line, "root element must be 'mujoco', not '%s'", n->name);
  return n;
}

const char* ld_join_path(ld_ctx* c, const char* dir, const char* file) {
  if (file[0] == '/' || !dir || !dir[0]) return ld_strdup(c, file);
  size_t a = strlen(dir), b = strlen(file);
  char* p = ld_alloc(c, a + b + 2);
  memcpy(p, dir, a);
  if (dir[a - 1] != '/') p[a++] = '/';
  memcpy(p + a, file, b + 1);
  return p;
}

/* Replace every <include file=.../> below n by the included file's
   children (incdepth: includes around n; level: n's depth in the tree the
   includes make, checked against LD_MAXDEPTH so that no recursive reader
   goes deeper). */
static void expand_includes(ld_ctx* c, ld_node* n, int incdepth, int level) {
  ld_node** link = &n->child;
  while (*link) {
    ld_node* ch = *link;
    if (level + 1 > LD_MAXDEPTH)
      ld_error(c, ch->file, ch->line, "elements nested more than %d deep (through includes)",
               LD_MAXDEPTH);
    if (strcmp(ch->name, "include")) {
      expand_includes(c, ch, incdepth, level + 1);
      link = &ch->next;
      continue;
    }
    const char* f = ld_attr_str(ch, "file");
    if (!f) ld_error(c, ch->file, ch->line, "include without a file attribute");
    if (incdepth >= LD_MAXINCLUDEDEPTH)
      ld_error(c, ch->file, ch->line, "includes nested more than %d deep (a cycle?)",
               LD_MAXINCLUDEDEPTH);
    if (++c->nincludes > LD_MAXINCLUDES)
      ld_error(c, ch->file, ch->line, "more than %d includes (a file included over and over?)",
               LD_MAXINCLUDES);
    ld_warn_unused(c, ch);
    ld_node* root = read_xml(c, ld_join_path(c, c->dir, f), NULL, ch->file, ch->line);
    /* the included file's children take the <include>'s place */
    expand_includes(c, root, incdepth + 1, level);
    if (!root->child) {
      *link = ch->next;
      continue;
    }
    ld_node* last = root->child;
    while (last->next) last = last->next;
    last->next = ch->next;
    *link = root->child;
    link = &last->next;
  }
}

/* ------------------------------------------------------------- sections */

static void parse_compiler(ld_ctx* c, ld_node* n) {
  static const char* const angle[] = {"radian", "degree", NULL};
  static const char* const ifg[] = {"false", "true", "auto", NULL};
  static const char* const coord[] = {"local", "global", NULL};
  static const char* const ok[] = {"strippath", "convexhull", "usethread", NULL};
  ld_attr_keyword(c, n, "angle", angle, &c->degree);
  ld_attr_keyword(c, n, "inertiafromgeom", ifg, &c->inertiafromgeom);
  int al;
  if (ld_attr_bool(c, n, "autolimits", &al)) c->autolimits = al;
  ld_attr_bool(c, n, "fitaabb", &c->fitaabb);
  ld_attr_bool(c, n, "exactmeshinertia", &c->exactmeshinertia);
  const char* s = ld_attr_str(n, "eulerseq");
  if (s) {
    double q[4], z[3] = {0, 0, 0};
    if (strlen(s) != 3 || imp_euler2quat(q, z, s))
      ld_error(c, n->file, n->line, "bad eulerseq '%s'", s);
    memcpy(c->eulerseq, s, 4);
  }
  /* assetdir sets both directories; meshdir and texturedir override it */
  if ((s = ld_attr_str(n, "assetdir"))) c->meshdir = c->texturedir = ld_join_path(c, c->dir, s);
  if ((s = ld_attr_str(n, "meshdir"))) c->meshdir = ld_join_path(c, c->dir, s);
  if ((s = ld_attr_str(n, "texturedir"))) c->texturedir = ld_join_path(c, c->dir, s);
  int co = 0;
  if (ld_attr_keyword(c, n, "coordinate", coord, &co) && co == 1)
    ld_error(c, n->file, n->line, "compiler coordinate='global' is not supported");
  ld_attr_nums(c, n, "boundmass", &c->boundmass, 1, 1);
  ld_attr_nums(c, n, "boundinertia", &c->boundinertia, 1, 1);
  if (ld_attr_nums(c, n, "settotalmass", &c->settotalmass, 1, 1) > 0 &&
      !isfinite(c->settotalmass))
    ld_error(c, n->file, n->line, "compiler settotalmass must be a finite number");
  double g[2];
  if (ld_attr_nums(c, n, "inertiagrouprange", g, 2, 2) == 2) {
    if (!(fabs(g[0]) < 1e9 && fabs(g[1]) < 1e9))
      ld_error(c, n->file, n->line, "inertiagrouprange: expected integers");
    c->inertiagroup[0] = (int)g[0];
    c->inertiagroup[1] = (int)g[1];
  }
  ld_accept(n, ok);
  ld_warn_unused(c, n);
  for (ld_node* ch = n->child; ch; ch = ch->next)
    if (!strcmp(ch->name, "lengthrange")) ld_parse_lengthrange(c, ch);
    else ld_warn_element(c, ch);
}

/* The contact solver named by option solver="...": our registry's names
   (contact.h), and MuJoCo's own so its files load unchanged: "PGS" is our
   pgs; "CG" and "Newton" (solvers of MuJoCo's soft-constraint model, which
   we do not have) mean the default, silently, since the choice there is one
   of speed, not of the physics the file describes. */
static int solver_by_name(ld_ctx* c, ld_node* n, const char* name) {
  if (!strcmp(name, "PGS")) name = "pgs";
  if (!strcmp(name, "CG") || !strcmp(name, "Newton")) return 0;
  int id = imp_solver_find(name);
  if (id >= 0) return id;
  char known[512] = "";
  size_t k = 0;
  for (int i = 0; i < imp_solver_count() && k < sizeof known; i++) {
    int w = snprintf(known + k, sizeof known - k, "%s%s", i ? ", " : "", imp_solver_get(i)->name);
    if (w > 0) k += (size_t)w;
  }
  ld_error(c, n->file, n->line, "unknown solver '%s' (known: %s)", name, known);
}

/* the contact solver settings of <option>: solver, iterations, tolerance */
static void parse_solver_options(ld_ctx* c, ld_node* n) {
  const char* s = ld_attr_str(n, "solver");
  if (s) c->opt.solver = solver_by_name(c, n, s);
  if (ld_attr_int(c, n, "iterations", &c->opt.iterations) && c->opt.iterations < 0)
    ld_error(c, n->file, n->line, "option iterations must be non-negative");
  if (ld_attr_nums(c, n, "tolerance", &c->opt.tolerance, 1, 1) > 0 && !(c->opt.tolerance >= 0))
    ld_error(c, n->file, n->line, "option tolerance must be non-negative");
}

static void parse_option(ld_ctx* c, ld_node* n) {
  static const char* const integ[] = {"Euler", "RK4", "implicit", "implicitfast", NULL};
  static const char* const silent[] = {
      "o_margin", "impratio", "cone", "jacobian", "noslip_iterations", "noslip_tolerance",
      "mpr_iterations", "mpr_tolerance", "o_solref", "o_solimp", "apirate", "collision",
      "ls_iterations", "ls_tolerance", "o_friction", "sdf_iterations", "sdf_initpoints",
      "ccd_iterations", "ccd_tolerance", NULL};
  ld_attr_nums(c, n, "timestep", &c->opt.timestep, 1, 1);
  /* time must advance (0 ran with time stuck at 0); a denormal step is
     below any time the state could resolve */
  if (!(c->opt.timestep > 0))
    ld_error(c, n->file, n->line, "option timestep must be positive, not %g", c->opt.timestep);
  if (c->opt.timestep < DBL_MIN)
    ld_error(c, n->file, n->line,
             "option timestep %g is too small (a denormal number, below %g)", c->opt.timestep,
             DBL_MIN);
  ld_attr_nums(c, n, "gravity", c->opt.gravity, 3, 3);
  parse_solver_options(c, n);
  int it;
  /* the words are in MuJoCo's order, which imp_integrator follows */
  if (ld_attr_keyword(c, n, "integrator", integ, &it)) c->opt.integrator = it;
  /* the medium of the fluid forces (dynamics.c); magnetic feeds only
     magnetometer sensors */
  ld_attr_nums(c, n, "density", &c->opt.density, 1, 1);
  ld_attr_nums(c, n, "viscosity", &c->opt.viscosity, 1, 1);
  ld_attr_nums(c, n, "wind", c->opt.wind, 3, 3);
  ld_attr_nums(c, n, "magnetic", c->opt.magnetic, 3, 3);
  if (!(c->opt.density >= 0) || !(c->opt.viscosity >= 0))
    ld_error(c, n->file, n->line, "option density and viscosity must be >= 0");
  ld_accept(n, silent);
  ld_warn_unused(c, n);
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    if (strcmp(ch->name, "flag")) {
      ld_warn_element(c, ch);
      continue;
    }
    static const char* const flags[] = {"contact",   "gravity",   "limit",      "passive",
                                        "actuation", "eulerdamp", "clampctrl",  "constraint",
                                        "equality",  "frictionloss", "sensor", NULL};
    static const int bits[] = {IMP_DSBL_CONTACT,    IMP_DSBL_GRAVITY,   IMP_DSBL_LIMIT,
                               IMP_DSBL_PASSIVE,    IMP_DSBL_ACTUATION, IMP_DSBL_EULERDAMP,
                               IMP_DSBL_CLAMPCTRL,  IMP_DSBL_CONSTRAINT, IMP_DSBL_EQUALITY,
                               IMP_DSBL_FRICTIONLOSS, IMP_DSBL_SENSOR};
    /* settings of the constraint solver and of outputs we do not compute
       yet: they change nothing in smooth dynamics, so they pass silently */
    static const char* const quiet[] = {"filterparent", "refsafe", "energy", "fwdinv",
                                        "override", "multiccd", "midphase", NULL};
    ld_accept(ch, quiet);
    static const char* const ed[] = {"disable", "enable", NULL};
    int v;
    if (ld_attr_keyword(c, ch, "warmstart", ed, &v)) c->opt.warmstart = v;
    /* an enable flag: sensor noise (sensor.c) */
    if (ld_attr_keyword(c, ch, "sensornoise", ed, &v)) {
      if (v) c->opt.enableflags |= IMP_ENBL_SENSORNOISE;
      else c->opt.enableflags &= ~IMP_ENBL_SENSORNOISE;
    }
    for (int f = 0; flags[f]; f++) {
      if (!ld_attr_keyword(c, ch, flags[f], ed, &v)) continue;
      if (v == 0) c->opt.disableflags |= bits[f];
      else c->opt.disableflags &= ~bits[f];
    }
    ld_warn_unused(c, ch);
  }
}

static void mark_all_used(ld_node* n) {
  for (int i = 0; i < n->nattr; i++) n->attr[i].used = 1;
  for (ld_node* ch = n->child; ch; ch = ch->next) mark_all_used(ch);
}

static void parse_visual(ld_ctx* c, ld_node* n) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    imp_visual* v = &c->vis;
    if (!strcmp(ch->name, "global")) {
      ld_attr_nums(c, ch, "fovy", &v->fovy, 1, 1);
      ld_attr_nums(c, ch, "azimuth", &v->azimuth, 1, 1);
      ld_attr_nums(c, ch, "elevation", &v->elevation, 1, 1);
      ld_attr_int(c, ch, "offwidth", &v->offwidth);
      ld_attr_int(c, ch, "offheight", &v->offheight);
    } else if (!strcmp(ch->name, "map")) {
      ld_attr_nums(c, ch, "znear", &v->znear, 1, 1);
      ld_attr_nums(c, ch, "zfar", &v->zfar, 1, 1);
    } else if (!strcmp(ch->name, "headlight")) {
      ld_attr_nums(c, ch, "ambient", v->headlight_ambient, 3, 3);
      ld_attr_nums(c, ch, "diffuse", v->headlight_diffuse, 3, 3);
      ld_attr_nums(c, ch, "specular", v->headlight_specular, 3, 3);
      ld_attr_int(c, ch, "active", &v->headlight_active);
    } else if (!strcmp(ch->name, "rgba")) {
      ld_attr_float(c, ch, "haze", v->haze, 4, 4);
    } else if (!strcmp(ch->name, "scale")) {
      ld_attr_nums(c, ch, "contactwidth", &v->contactwidth, 1, 1);
      ld_attr_nums(c, ch, "contactheight", &v->contactheight, 1, 1);
      ld_attr_nums(c, ch, "forcewidth", &v->forcewidth, 1, 1);
    }
    mark_all_used(ch);
  }
}

static int element_class(ld_ctx* c, ld_node* n, int childclass);

static void parse_contact(ld_ctx* c, ld_node* n) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    if (!strcmp(ch->name, "pair")) {
      ld_pair* p = ld_push(c, &c->pairs);
      *p = LD_AT(c->classes, ld_class, element_class(c, ch, 0))->pair;
      ld_read_pair(c, ch, p);
      p->name = ld_attr_str(ch, "name");
      p->file = ch->file;
      p->line = ch->line;
      p->geom1 = ld_attr_str(ch, "geom1");
      p->geom2 = ld_attr_str(ch, "geom2");
      if (!p->geom1 || !p->geom2)
        ld_error(c, ch->file, ch->line, "pair needs geom1 and geom2");
      ld_warn_unused(c, ch);
    } else if (!strcmp(ch->name, "exclude")) {
      ld_exclude* e = ld_push(c, &c->excludes);
      e->name = ld_attr_str(ch, "name");
      e->file = ch->file;
      e->line = ch->line;
      e->body1 = ld_attr_str(ch, "body1");
      e->body2 = ld_attr_str(ch, "body2");
      if (!e->body1 || !e->body2)
        ld_error(c, ch->file, ch->line, "exclude needs body1 and body2");
      ld_warn_unused(c, ch);
    } else {
      ld_warn_element(c, ch);
    }
  }
}

/* <equality>: connect, weld, joint and tendon, each starting from its class's
   equality default */
static void parse_equality(ld_ctx* c, ld_node* n) {
  static const char* const types[] = {"connect", "weld", "joint", "tendon", NULL};
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    int type = -1;
    for (int i = 0; types[i]; i++)
      if (!strcmp(ch->name, types[i])) type = i;
    if (type < 0) {
      ld_warn_element(c, ch);
      continue;
    }
    ld_equality* e = ld_push(c, &c->equalities);
    *e = LD_AT(c->classes, ld_class, element_class(c, ch, 0))->equality;
    e->name = ld_attr_str(ch, "name");
    e->file = ch->file;
    e->line = ch->line;
    ld_read_equality(c, ch, e, type);
    ld_warn_unused(c, ch);
  }
}

static void parse_body(ld_ctx* c, ld_node* n, int body, int childclass);

static int element_class(ld_ctx* c, ld_node* n, int childclass) {
  const char* cls = ld_attr_str(n, "class");
  return cls ? ld_find_class(c, n, cls) : childclass;
}

static void parse_inertial(ld_ctx* c, ld_node* n, ld_body* b) {
  double q[4] = {1, 0, 0, 0}, full[6];
  b->has_inertial = 1;
  ld_read_frame(c, n, b->ipos, q);
  if (ld_attr_nums(c, n, "mass", &b->mass, 1, 1) < 0)
    ld_error(c, n->file, n->line, "inertial: mass is required");
  if (!(b->mass > 0)) ld_error(c, n->file, n->line, "inertial: mass must be positive");
  int hasdiag = ld_attr_nums(c, n, "diaginertia", b->inertia, 3, 3) > 0;
  int hasfull = ld_attr_nums(c, n, "fullinertia", full, 6, 6) > 0;
  if (hasdiag && hasfull)
    ld_error(c, n->file, n->line, "inertial: diaginertia and fullinertia both given");
  if (!hasdiag && !hasfull)
    ld_error(c, n->file, n->line, "inertial: diaginertia or fullinertia is required");
  if (hasfull) {
    double A[9] = {full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2]};
    double eq[4];
    imp_eig3(b->inertia, eq, A);
    imp_quat_mul(b->iquat, q, eq);
    imp_quat_normalize(b->iquat);
  } else {
    imp_copy(b->iquat, q, 4);
  }
  for (int i = 0; i < 3; i++)
    if (b->inertia[i] < 0) ld_error(c, n->file, n->line, "inertial: negative inertia");
  ld_warn_unused(c, n);
}

/* Elements a <frame> may hold (MuJoCo's MJCF schema, frame's children);
   those after "light" we skip in a body too, with a warning. */
static const char* const k_frame_children[] = {
    "body", "frame", "inertial", "joint", "freejoint", "geom", "site", "camera", "light",
    "replicate", "attach", "plugin", "composite", "flexcomp", NULL};

/* <frame>: a pure coordinate transformation of its children (MuJoCo docs,
   MJCF reference: frame, body/frame). Its pose, composed with those of the
   frames around it (frame: pos, quat in the body frame, or NULL), is
   accumulated into each child's own pose; its childclass applies to its
   descendants as a body's does. */
static void parse_frame(ld_ctx* c, ld_node* n, int body, int childclass, const double* frame) {
  static const char* const attrs[] = {"name", "childclass", "pos", "quat", "axisangle",
                                      "euler", "xyaxes", "zaxis", NULL};
  for (int i = 0; i < n->nattr; i++) {
    int ok = 0;
    for (int k = 0; attrs[k] && !ok; k++) ok = !strcmp(n->attr[i].name, attrs[k]);
    if (!ok)
      ld_error(c, n->file, n->line, "frame: attribute '%s' is not allowed (a frame has only "
               "name, childclass, pos and an orientation)", n->attr[i].name);
  }
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    int ok = 0;
    for (int k = 0; k_frame_children[k] && !ok; k++) ok = !strcmp(ch->name, k_frame_children[k]);
    if (!ok) ld_error(c, ch->file, ch->line, "element '%s' is not allowed in a frame", ch->name);
    /* MuJoCo's docs move a frame's direct children by its pose, but its
       compiler reads an <inertial> in a frame into the body untransformed:
       rather than pick one silently, the file must say it in the body */
    if (!strcmp(ch->name, "inertial"))
      ld_error(c, ch->file, ch->line,
               "inertial inside a frame is not supported (MuJoCo's docs and compiler disagree "
               "on whether the frame moves it); put it directly in the body");
  }
  double f[7] = {0, 0, 0, 1, 0, 0, 0};
  ld_read_frame(c, n, f, f + 3);
  if (frame) ld_frame_apply(frame, frame + 3, f, f + 3);
  const char* cc = ld_attr_str(n, "childclass");
  ld_attr_str(n, "name"); /* frames disappear at compile: the name names nothing */
  ld_xml_children(c, n, body, cc ? ld_find_class(c, n, cc) : childclass, f);
}

static void parse_body(ld_ctx* c, ld_node* n, int body, int childclass) {
  ld_xml_children(c, n, body, childclass, NULL);
}

/* <freejoint>: the built-in joint defaults (it ignores default classes).
   A function of its own so that the class it builds (kilobytes) is not on
   the stack of every level of the recursive body reader. */
__attribute__((noinline)) static void freejoint_defaults(ld_joint* j) {
  ld_class builtin;
  ld_defaults_builtin(&builtin);
  *j = builtin.joint;
  j->type = IMP_JNT_FREE;
}

/* The children of a body, or of a frame in it (frame: the frame's pose in
   the body, NULL when directly in the body). */
void ld_xml_children(ld_ctx* c, ld_node* n, int body, int childclass, const double* frame) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    const char* e = ch->name;
    if (!strcmp(e, "frame")) {
      parse_frame(c, ch, body, childclass, frame);
    } else if (!strcmp(e, "body")) {
      int id = c->bodies.n;
      ld_body* b = ld_push(c, &c->bodies);
      b->file = ch->file;
      b->line = ch->line;
      b->parent = body;
      b->quat[0] = b->iquat[0] = 1;
      b->name = ld_attr_str(ch, "name");
      const char* cc = ld_attr_str(ch, "childclass");
      b->childclass = cc ? ld_find_class(c, ch, cc) : childclass;
      ld_read_frame(c, ch, b->pos, b->quat);
      if (frame) ld_frame_apply(frame, frame + 3, b->pos, b->quat);
      if (ld_attr_nums(c, ch, "gravcomp", &b->gravcomp, 1, 1) > 0 && !isfinite(b->gravcomp))
        ld_error(c, ch->file, ch->line, "body gravcomp must be a finite number");
      ld_attr_bool(c, ch, "mocap", &b->mocap); /* checked by the compiler (mocap.c) */
      static const char* const ok[] = {"user", NULL};
      ld_accept(ch, ok);
      ld_warn_unused(c, ch);
      parse_body(c, ch, id, b->childclass);
    } else if (!strcmp(e, "inertial")) {
      if (body == 0) ld_error(c, ch->file, ch->line, "the world body cannot have an inertial");
      parse_inertial(c, ch, LD_AT(c->bodies, ld_body, body));
    } else if (!strcmp(e, "joint") || !strcmp(e, "freejoint")) {
      if (body == 0) ld_error(c, ch->file, ch->line, "joints are not allowed in the world body");
      ld_joint* j = ld_push(c, &c->joints);
      if (e[0] == 'j') {
        *j = LD_AT(c->classes, ld_class, element_class(c, ch, childclass))->joint;
        ld_read_joint(c, ch, j);
      } else {
        freejoint_defaults(j);
        ld_accept(ch, (const char* const[]){"group", NULL});
      }
      j->name = ld_attr_str(ch, "name");
      j->file = ch->file;
      j->line = ch->line;
      j->body = body;
      if (frame && j->type != IMP_JNT_FREE) { /* MuJoCo: a free joint has no pose to move */
        double q[4] = {1, 0, 0, 0}, a[3];
        ld_frame_apply(frame, frame + 3, j->pos, q);
        if (j->type != IMP_JNT_BALL) { /* a ball joint's axis is unused */
          imp_quat_rotate(a, frame + 3, j->axis);
          imp_normalize3(a);
          imp_copy(j->axis, a, 3);
        }
      }
      ld_warn_unused(c, ch);
    } else if (!strcmp(e, "geom") || !strcmp(e, "site")) {
      int isgeom = e[0] == 'g';
      ld_geom* g = ld_push(c, isgeom ? &c->geoms : &c->sites);
      ld_class* cl = LD_AT(c->classes, ld_class, element_class(c, ch, childclass));
      *g = isgeom ? cl->geom : cl->site;
      if (isgeom) ld_read_geom(c, ch, g);
      else ld_read_site(c, ch, g);
      g->name = ld_attr_str(ch, "name");
      g->file = ch->file;
      g->line = ch->line;
      g->body = body;
      g->has_frame = frame != NULL;
      if (frame) {
        imp_copy(g->frame_pos, frame, 3);
        imp_copy(g->frame_quat, frame + 3, 4);
      }
      ld_warn_unused(c, ch);
    } else if (!strcmp(e, "camera")) {
      ld_camera* cam = ld_push(c, &c->cameras);
      *cam = LD_AT(c->classes, ld_class, element_class(c, ch, childclass))->camera;
      ld_read_camera(c, ch, cam);
      cam->name = ld_attr_str(ch, "name");
      cam->file = ch->file;
      cam->line = ch->line;
      cam->body = body;
      if (frame) ld_frame_apply(frame, frame + 3, cam->pos, cam->quat);
      ld_warn_unused(c, ch);
    } else if (!strcmp(e, "light")) {
      ld_light* l = ld_push(c, &c->lights);
      *l = LD_AT(c->classes, ld_class, element_class(c, ch, childclass))->light;
      ld_read_light(c, ch, l);
      l->name = ld_attr_str(ch, "name");
      l->file = ch->file;
      l->line = ch->line;
      l->body = body;
      if (frame) {
        double q[4] = {1, 0, 0, 0}, dir[3];
        ld_frame_apply(frame, frame + 3, l->pos, q);
        imp_quat_rotate(dir, frame + 3, l->dir);
        imp_copy(l->dir, dir, 3);
      }
      ld_warn_unused(c, ch);
    } else if (!strcmp(e, "composite")) {
      ld_parse_composite(c, ch, body);
    } else if (!strcmp(e, "attach")) {
      ld_attach(c, ch, body, childclass, frame);
    } else {
      ld_warn_element(c, ch);
    }
  }
}

static void parse_actuators(ld_ctx* c, ld_node* n) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    int fileidx = c->nactuator_file++; /* every child is an actuator of MuJoCo's nu */
    int kind = ld_actuator_kind(ch->name);
    if (kind < 0) {
      ld_warn_element(c, ch);
      continue;
    }
    ld_actuator a = LD_AT(c->classes, ld_class, element_class(c, ch, 0))->actuator;
    ld_read_actuator(c, ch, &a, kind);
    a.fileidx = fileidx;
    a.actfileadr = c->nact_file; /* MuJoCo's act of the whole file, skipped ones included */
    c->nact_file += ld_actuator_actnum(&a);
    a.name = ld_attr_str(ch, "name");
    a.file = ch->file;
    a.line = ch->line;
    /* the transmission: exactly one target attribute (MJCF reference,
       actuator/general joint ... cranksite) */
    static const char* const trn[] = {"joint", "jointinparent", "cranksite", "tendon", "site",
                                      "body", NULL};
    static const int trntype[] = {IMP_TRN_JOINT, IMP_TRN_JOINTINPARENT, IMP_TRN_SLIDERCRANK,
                                  IMP_TRN_TENDON, IMP_TRN_SITE, IMP_TRN_BODY};
    int ntarget = 0;
    for (int i = 0; trn[i]; i++) {
      const char* v = ld_attr_str(ch, trn[i]);
      if (!v) continue;
      ntarget++;
      a.target = v;
      a.trntype = trntype[i];
    }
    if (ntarget > 1)
      ld_error(c, ch->file, ch->line, "actuator can have at most one transmission target");
    a.joint = a.trntype == IMP_TRN_JOINT || a.trntype == IMP_TRN_JOINTINPARENT ? a.target : NULL;
    a.tendon = a.trntype == IMP_TRN_TENDON ? a.target : NULL;
    const char* slidersite = ld_attr_str(ch, "slidersite");
    const char* refsite = ld_attr_str(ch, "refsite");
    int has_crank = ld_attr_str(ch, "cranklength") != NULL;
    if ((slidersite || has_crank) && ntarget && a.trntype != IMP_TRN_SLIDERCRANK)
      ld_error(c, ch->file, ch->line,
               "cranklength and slidersite can only be used in slidercrank transmission");
    if (refsite && ntarget && a.trntype != IMP_TRN_SITE)
      ld_error(c, ch->file, ch->line, "refsite can only be used with site transmission");
    if (kind == LD_ACT_ADHESION && ntarget && a.trntype != IMP_TRN_BODY)
      ld_error(c, ch->file, ch->line, "adhesion: the transmission target must be a body");
    a.site2 = a.trntype == IMP_TRN_SLIDERCRANK ? slidersite : refsite;
    ld_warn_unused(c, ch);
    if (!ntarget)
      ld_error(c, ch->file, ch->line, "actuator '%s' has no transmission target",
               a.name ? a.name : "");
    *(ld_actuator*)ld_push(c, &c->actuators) = a;
  }
}

static double* read_key_vector(ld_ctx* c, ld_node* n, const char* name, int* count) {
  int k = ld_attr_numlist(c, n, name, NULL, 0); /* counts them */
  *count = k;
  if (k < 0) return NULL;
  double* v = ld_alloc(c, sizeof(double) * (size_t)(k ? k : 1));
  ld_attr_numlist(c, n, name, v, k);
  return v;
}

static void parse_keyframe(ld_ctx* c, ld_node* n) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    if (strcmp(ch->name, "key")) {
      ld_warn_element(c, ch);
      continue;
    }
    ld_key* k = ld_push(c, &c->keys);
    k->name = ld_attr_str(ch, "name");
    k->file = ch->file;
    k->line = ch->line;
    ld_attr_nums(c, ch, "time", &k->time, 1, 1);
    k->qpos = read_key_vector(c, ch, "qpos", &k->nqpos);
    k->qvel = read_key_vector(c, ch, "qvel", &k->nqvel);
    k->ctrl = read_key_vector(c, ch, "ctrl", &k->nctrl);
    k->act = read_key_vector(c, ch, "act", &k->nact);
    k->mpos = read_key_vector(c, ch, "mpos", &k->nmpos);
    k->mquat = read_key_vector(c, ch, "mquat", &k->nmquat);
    ld_warn_unused(c, ch);
  }
}

/* ------------------------------------------------ readers for attach.c */

ld_node* ld_xml_read_text(ld_ctx* c, const char* file, const char* text, int level) {
  ld_node* root = read_xml(c, file, text, NULL, 0);
  expand_includes(c, root, 0, level);
  return root;
}

void ld_xml_section(ld_ctx* c, ld_node* n) {
  if (!strcmp(n->name, "compiler")) parse_compiler(c, n);
  else if (!strcmp(n->name, "option")) parse_option(c, n);
  else if (!strcmp(n->name, "contact")) parse_contact(c, n);
  else if (!strcmp(n->name, "equality")) parse_equality(c, n);
  else if (!strcmp(n->name, "actuator")) parse_actuators(c, n);
  else ld_warn_element(c, n);
}

/* --------------------------------------------------------------- driver */

static void init_ctx(ld_ctx* c, char* err, int errsz) {
  memset(c, 0, sizeof *c);
  c->err = err;
  c->errsz = errsz;
  if (err && errsz > 0) err[0] = 0;
  c->degree = 1;
  c->inertiafromgeom = 2;
  c->autolimits = 1;
  ld_lengthrange_defaults(&c->lr);
  memcpy(c->eulerseq, "xyz", 4);
  c->inertiagroup[0] = 0;
  c->inertiagroup[1] = 5;
  c->opt.timestep = 0.002;
  c->opt.gravity[2] = -9.81;
  c->opt.magnetic[1] = -0.5; /* MJCF's default flux, for magnetometers */
  c->opt.integrator = IMP_INT_EULER;
  c->opt.solver = 0; /* the registry's default */
  c->opt.iterations = 100;
  c->opt.tolerance = 1e-8;
  c->opt.warmstart = 1;
  c->njmax = -1;
  c->nislandmax = -1;
  imp_visual* v = &c->vis;
  v->fovy = 45;
  v->azimuth = 90; /* the free camera looks along +y, from above */
  v->elevation = -45;
  v->znear = 0.01;
  v->zfar = 50;
  for (int i = 0; i < 3; i++) {
    v->headlight_ambient[i] = 0.1;
    v->headlight_diffuse[i] = 0.4;
    v->headlight_specular[i] = 0.5;
  }
  v->headlight_active = 1;
  v->offwidth = 640;
  v->offheight = 480;
  v->haze[0] = 0.15f;
  v->haze[1] = 0.25f;
  v->haze[2] = 0.35f;
  v->haze[3] = 1;
  v->contactwidth = v->contactheight = v->forcewidth = 0.1; /* MJCF's defaults */
  c->bodies.elsz = sizeof(ld_body);
  c->joints.elsz = sizeof(ld_joint);
  c->geoms.elsz = sizeof(ld_geom);
  c->sites.elsz = sizeof(ld_geom);
  c->cameras.elsz = sizeof(ld_camera);
  c->lights.elsz = sizeof(ld_light);
  c->materials.elsz = sizeof(ld_material);
  c->textures.elsz = sizeof(ld_texture);
  c->actuators.elsz = sizeof(ld_actuator);
  c->keys.elsz = sizeof(ld_key);
  c->classes.elsz = sizeof(ld_class);
  c->meshes.elsz = sizeof(ld_mesh);
  c->pairs.elsz = sizeof(ld_pair);
  c->excludes.elsz = sizeof(ld_exclude);
  c->equalities.elsz = sizeof(ld_equality);
  c->sensors.elsz = sizeof(ld_sensor);
  c->tendons.elsz = sizeof(ld_tendon);
  c->wraps.elsz = sizeof(ld_wrap);
  c->hfields.elsz = sizeof(ld_hfield);
  c->warnkeys.elsz = sizeof(const char*);
}

static void free_ctx(ld_ctx* c) {
  ld_vec* vecs[] = {&c->bodies,  &c->joints,    &c->geoms,     &c->sites,
                    &c->cameras, &c->lights,    &c->materials, &c->textures,
                    &c->actuators, &c->keys,    &c->classes,   &c->warnkeys,
                    &c->meshes,  &c->pairs,     &c->excludes,  &c->equalities,
                    &c->sensors, &c->tendons,   &c->wraps, &c->hfields};
  for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++) free(vecs[i]->data);
  while (c->arena) {
    ld_block* b = c->arena->next;
    free(c->arena);
    c->arena = b;
  }
  free(c->warn);
}

static void parse_root(ld_ctx* c, ld_node* root) {
  static const char* const order[] = {"compiler", "option", "size", "visual", "statistic",
                                      "default", "custom", "asset", "worldbody", "contact",
                                      "equality", "tendon", "actuator", "sensor", "keyframe",
                                      NULL};
  ld_attr_str(root, "model");
  c->modelname = ld_attr_str(root, "model");
  ld_warn_unused(c, root);
  /* the world body and the class "main" exist from the start */
  ld_class* mainc = ld_push(c, &c->classes);
  ld_defaults_builtin(mainc);
  mainc->name = "main";
  mainc->parent = -1;
  ld_body* world = ld_push(c, &c->bodies);
  world->name = "world";
  world->file = root->file;
  world->line = root->line;
  world->parent = -1;
  world->quat[0] = world->iquat[0] = 1;
  for (ld_node* ch = root->child; ch; ch = ch->next) {
    int known = 0;
    for (int i = 0; order[i]; i++) known |= !strcmp(ch->name, order[i]);
    if (!known) ld_warn_element(c, ch);
  }
  for (int s = 0; order[s]; s++)
    for (ld_node* ch = root->child; ch; ch = ch->next) {
      if (strcmp(ch->name, order[s])) continue;
      switch (s) {
        case 0: parse_compiler(c, ch); break;
        case 1: parse_option(c, ch); break;
        case 2: ld_parse_size(c, ch); mark_all_used(ch); break;
        case 4: ld_parse_statistic(c, ch); break;
        case 3: parse_visual(c, ch); ld_warn_unused(c, ch); break;
        case 5: ld_parse_defaults(c, ch, -1); break;
        case 7: ld_warn_unused(c, ch); ld_parse_asset(c, ch); break;
        case 8: ld_warn_unused(c, ch); parse_body(c, ch, 0, 0); break;
        case 9: ld_warn_unused(c, ch); parse_contact(c, ch); break;
        case 10: ld_warn_unused(c, ch); parse_equality(c, ch); break;
        case 11: ld_warn_unused(c, ch); ld_parse_tendons(c, ch); break;
        case 12: ld_warn_unused(c, ch); parse_actuators(c, ch); break;
        case 13: ld_warn_unused(c, ch); ld_parse_sensors(c, root, ch); break;
        case 14: ld_warn_unused(c, ch); parse_keyframe(c, ch); break;
        default: ld_warn_element(c, ch); break;
      }
    }
  ld_attach_finish(c); /* attached models' elements outside the tree, after ours */
}

/* After an error: the warnings gathered before it, one a line below the
   error's own line, as many whole lines as fit, then how many did not. A
   warning often explains the error (an ignored <flexcomp> leaves a body
   without mass), and a failed load has no model to keep them on. */
static void append_warnings(ld_ctx* c) {
  if (!c->err || c->errsz <= 0 || !c->nwarning) return;
  size_t cap = (size_t)c->errsz, k = strlen(c->err);
  const char* w = c->warn;
  int left = c->nwarning;
  for (; left > 0; left--) {
    const char* eol = strchr(w, '\n');
    size_t n = eol ? (size_t)(eol - w) : strlen(w);
    /* keep room for the line and a possible "(N more warnings)" note */
    if (k + 1 + n + 32 >= cap) break;
    c->err[k++] = '\n';
    memcpy(c->err + k, w, n);
    k += n;
    c->err[k] = 0;
    w += n + (eol != NULL);
  }
  if (left > 0 && k + 32 < cap)
    snprintf(c->err + k, cap - k, "\n(%d more warning%s)", left, left > 1 ? "s" : "");
}

static void init_libxml2(void) { xmlInitParser(); }

static imp_model* load(const char* path, const char* xml, const char* dir, int options,
                       char* err, int errsz) {
  static pthread_once_t libxml2_once = PTHREAD_ONCE_INIT; /* set once, then only read */
  pthread_once(&libxml2_once, init_libxml2);
  ld_ctx* c = calloc(1, sizeof *c);
  if (!c) {
    if (err && errsz > 0) snprintf(err, (size_t)errsz, "out of memory");
    return NULL;
  }
  init_ctx(c, err, errsz);
  c->allow_unsupported = (options & IMP_LOAD_ALLOW_UNSUPPORTED) != 0;
  imp_model* m = NULL;
  if (!setjmp(c->jb)) {
    if (dir) {
      c->dir = ld_strdup(c, dir);
    } else if (!xml) {
      const char* slash = strrchr(path, '/');
      char* d = ld_alloc(c, strlen(path) + 1);
      if (slash) memcpy(d, path, (size_t)(slash - path + 1));
      c->dir = d;
    } else {
      c->dir = "";
    }
    ld_node* root = read_xml(c, ld_strdup(c, path), xml, NULL, 0);
    expand_includes(c, root, 0, 1);
    parse_root(c, root);
    m = ld_compile(c);
  } else {
    imp_free_model(c->building);
    append_warnings(c);
  }
  free_ctx(c);
  free(c);
  return m;
}

imp_model* imp_load_xml_opt(const char* path, int options, char* err, int errsz) {
  if (!path) {
    if (err && errsz > 0) snprintf(err, (size_t)errsz, "no file name given");
    return NULL;
  }
  return load(path, NULL, NULL, options, err, errsz);
}

imp_model* imp_load_xml(const char* path, char* err, int errsz) {
  return imp_load_xml_opt(path, 0, err, errsz);
}

imp_model* imp_load_xml_string_opt(const char* xml, const char* dir, const char* name,
                                   int options, char* err, int errsz) {
  if (!xml) {
    if (err && errsz > 0) snprintf(err, (size_t)errsz, "no XML text given");
    return NULL;
  }
  return load(name ? name : "<string>", xml, dir ? dir : "", options, err, errsz);
}

imp_model* imp_load_xml_string(const char* xml, const char* dir, const char* name, char* err,
                               int errsz) {
  return imp_load_xml_string_opt(xml, dir, name, 0, err, errsz);
}
