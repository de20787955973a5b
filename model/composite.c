/* MJCF <composite>: a macro the loader expands into ordinary spec bodies,
 * joints, geoms, sites, tendons, equalities and contact excludes.
 *
 * Semantics: MJCF reference, body/composite and its children (joint,
 * tendon, geom, site, skin, pin). The expansion reproduces MuJoCo 2.2.2's
 * (its user_composite.cc and OneComposite of its XML reader, read for the
 * facts only) so that the compiled model has the same objects, with the
 * same names, in the same order:
 *   - the composite's elements start from MJCF's built-in defaults, never
 *     from the file's default classes; its <geom>, <site>, <joint kind>,
 *     <tendon kind> children set a few attributes of them;
 *   - every element's group is 3 (hidden behind the skin) except geoms and
 *     tendons of kinds that have no skin to show them;
 *   - the internal "fix" equalities of a kind start from solref 0.02 1
 *     (MuJoCo's default), 0.01 1 for the grid's and the 3D shapes' main
 *     tendon; the "smoothing" ones (loop closure, neighbouring sliders of the
 *     3D shapes) from solrefsmooth. Only solref reaches our equalities:
 *     solimp is MuJoCo's softness (accepted, unused, as elsewhere);
 *   - bodies are created in an order whose depth-first preorder is the
 *     creation order (cloth: a row body, its two columns, the next row
 *     body), which is MuJoCo's body numbering.
 * <skin> is visual only: it changes the groups as in MuJoCo and is then
 * skipped with a warning (we have no skins). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

enum { CT_PARTICLE = 0, CT_GRID, CT_ROPE, CT_LOOP, CT_CLOTH, CT_BOX, CT_CYLINDER, CT_ELLIPSOID };
/* element kinds: joints main, twist, stretch; tendons main, shear */
enum { CK_JOINT = 0, CK_TWIST, CK_STRETCH, CK_TENDON, CK_SHEAR, CK_N };

/* most bodies one composite may make (MuJoCo has no bound; ours keeps the
   loader's memory bounded) */
#define COMP_MAXBODY 100000

typedef struct comp {
  const char* file;
  int line;
  const char* prefix;
  int type;
  int count[3];
  double spacing, offset[3], flatinertia;
  double solrefsmooth[2];
  int skin, skinsubgrid;
  int add[CK_N];
  ld_geom geom, site;        /* every element's geom and site */
  ld_joint joint[3];         /* per joint kind */
  ld_tendon tendon[2];       /* main, shear */
  double fixsolref[CK_N][2]; /* solref of each kind's fix equalities */
  int npin, *pin;            /* pin coordinates, 2 per pin */
  int dim;
  int parentclass;           /* childclass of the composite's body, for new bodies */
} comp;

/* ------------------------------------------------------------- helpers */

__attribute__((format(printf, 2, 3))) static const char* cname(ld_ctx* c, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char* s = ld_alloc(c, (size_t)(n > 0 ? n : 0) + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

static void set3(double* v, double a, double b, double d) {
  v[0] = a;
  v[1] = b;
  v[2] = d;
}

static int add_body(ld_ctx* c, const comp* k, int parent, const char* name, const double pos[3]) {
  int id = c->bodies.n;
  if (id >= COMP_MAXBODY * 4)
    ld_error(c, k->file, k->line, "composite: too many bodies in the model");
  ld_body* b = ld_push(c, &c->bodies);
  b->name = name;
  b->file = k->file;
  b->line = k->line;
  b->parent = parent;
  b->childclass = k->parentclass;
  imp_copy(b->pos, pos, 3);
  b->quat[0] = b->iquat[0] = 1;
  return id;
}

static ld_geom* add_geom(ld_ctx* c, const comp* k, int body, const char* name) {
  ld_geom* g = ld_push(c, &c->geoms);
  *g = k->geom;
  g->name = name;
  g->file = k->file;
  g->line = k->line;
  g->body = body;
  return g;
}

static ld_geom* add_site(ld_ctx* c, const comp* k, int body, const char* name) {
  ld_geom* s = ld_push(c, &c->sites);
  *s = k->site;
  s->type = IMP_GEOM_SPHERE;
  s->name = name;
  s->file = k->file;
  s->line = k->line;
  s->body = body;
  return s;
}

/* a joint of kind at pos along axis (type hinge or slide) */
static ld_joint* add_joint(ld_ctx* c, const comp* k, int kind, int body, const char* name,
                           int type, const double pos[3], const double axis[3]) {
  ld_joint* j = ld_push(c, &c->joints);
  *j = k->joint[kind];
  j->name = name;
  j->file = k->file;
  j->line = k->line;
  j->body = body;
  j->type = type;
  imp_copy(j->pos, pos, 3);
  imp_copy(j->axis, axis, 3);
  return j;
}

/* an equality with MJCF's defaults (polycoef 0 1 0 0 0) and solref */
static ld_equality* add_equality(ld_ctx* c, const comp* k, int type, const char* obj1,
                                 const char* obj2, const double solref[2]) {
  ld_equality* e = ld_push(c, &c->equalities);
  e->file = k->file;
  e->line = k->line;
  e->type = type;
  e->obj1 = obj1;
  e->obj2 = obj2;
  e->active = 1;
  e->solref[0] = solref[0];
  e->solref[1] = solref[1];
  e->relpose[1] = 1;
  e->polycoef[1] = 1;
  return e;
}

/* a tendon of kind (CK_TENDON, CK_SHEAR); its path is pushed after it */
static ld_tendon* add_tendon(ld_ctx* c, const comp* k, int kind, const char* name, int spatial) {
  ld_tendon* t = ld_push(c, &c->tendons);
  *t = k->tendon[kind - CK_TENDON];
  t->name = name;
  t->file = k->file;
  t->line = k->line;
  t->spatial = spatial;
  t->wrapadr = c->wraps.n;
  t->wrapnum = 0;
  return t;
}

static void tendon_wrap(ld_ctx* c, const comp* k, int tendon, int type, const char* name,
                        double prm) {
  ld_wrap* w = ld_push(c, &c->wraps);
  w->file = k->file;
  w->line = k->line;
  w->type = type;
  w->name = name;
  w->prm = prm;
  LD_AT(c->tendons, ld_tendon, tendon)->wrapnum++;
}

/* a spatial tendon from site s1 to s2, fixed at its length by an equality */
static void site_tendon(ld_ctx* c, const comp* k, int kind, const char* name, const char* s1,
                        const char* s2) {
  int t = c->tendons.n;
  add_tendon(c, k, kind, name, 1);
  tendon_wrap(c, k, t, IMP_WRAP_SITE, s1, 0);
  tendon_wrap(c, k, t, IMP_WRAP_SITE, s2, 0);
  add_equality(c, k, IMP_EQ_TENDON, name, NULL, k->fixsolref[kind]);
}

/* ----------------------------------------------------------- particle */

/* a free point mass per grid point: three sliders, an unnamed sphere */
static void make_particle(ld_ctx* c, const comp* k, int body) {
  static const double zero[3] = {0, 0, 0};
  for (int ix = 0; ix < k->count[0]; ix++)
    for (int iy = 0; iy < k->count[1]; iy++)
      for (int iz = 0; iz < k->count[2]; iz++) {
        double pos[3] = {k->offset[0] + k->spacing * (ix - 0.5 * k->count[0]),
                         k->offset[1] + k->spacing * (iy - 0.5 * k->count[1]),
                         k->offset[2] + k->spacing * (iz - 0.5 * k->count[2])};
        int b = add_body(c, k, body, NULL, pos);
        for (int i = 0; i < 3; i++) {
          double axis[3] = {0, 0, 0};
          axis[i] = 1;
          add_joint(c, k, CK_JOINT, b, NULL, IMP_JNT_SLIDE, zero, axis);
        }
        add_geom(c, k, b, NULL)->type = IMP_GEOM_SPHERE;
      }
}

/* ---------------------------------------------------------------- grid */

static int pinned(const comp* k, int ix, int iy) {
  for (int p = 0; p < k->npin; p++)
    if (k->pin[2 * p] == ix && k->pin[2 * p + 1] == iy) return 1;
  return 0;
}

/* shear tendons along the cells' diagonals of a 2D grid or cloth */
static void make_shear(ld_ctx* c, const comp* k) {
  const char* P = k->prefix;
  for (int ix = 0; ix < k->count[0] - 1; ix++)
    for (int iy = 0; iy < k->count[1] - 1; iy++)
      site_tendon(c, k, CK_SHEAR, cname(c, "%sTS%d_%d", P, ix, iy),
                  cname(c, "%sS%d_%d", P, ix, iy), cname(c, "%sS%d_%d", P, ix + 1, iy + 1));
}

/* point masses on three sliders each (none when pinned), neighbours tied
   by site tendons held at their lengths */
static void make_grid(ld_ctx* c, const comp* k, int body) {
  static const double zero[3] = {0, 0, 0};
  const char* P = k->prefix;
  if (k->dim > 2) ld_error(c, k->file, k->line, "composite grid can only be 1D or 2D");
  if (k->add[CK_SHEAR] && k->dim != 2)
    ld_error(c, k->file, k->line, "composite grid: shear requires a 2D grid");
  if (k->skin && k->dim != 2) ld_error(c, k->file, k->line, "composite grid: skin requires 2D");
  for (int ix = 0; ix < k->count[0]; ix++)
    for (int iy = 0; iy < k->count[1]; iy++) {
      double pos[3] = {k->offset[0] + k->spacing * (ix - 0.5 * k->count[0]),
                       k->offset[1] + k->spacing * (iy - 0.5 * k->count[1]), k->offset[2]};
      int b = add_body(c, k, body, cname(c, "%sB%d_%d", P, ix, iy), pos);
      add_geom(c, k, b, cname(c, "%sG%d_%d", P, ix, iy))->type = IMP_GEOM_SPHERE;
      add_site(c, k, b, cname(c, "%sS%d_%d", P, ix, iy));
      if (pinned(k, ix, iy)) continue;
      for (int i = 0; i < 3; i++) {
        double axis[3] = {0, 0, 0};
        axis[i] = 1;
        add_joint(c, k, CK_JOINT, b, cname(c, "%sJ%d_%d_%d", P, i, ix, iy), IMP_JNT_SLIDE, zero,
                  axis);
      }
    }
  for (int i = 0; i < 2; i++)
    for (int ix = 0; ix < k->count[0] - (i == 0); ix++)
      for (int iy = 0; iy < k->count[1] - (i == 1); iy++)
        site_tendon(c, k, CK_TENDON, cname(c, "%sT%d_%d_%d", P, i, ix, iy),
                    cname(c, "%sS%d_%d", P, ix, iy),
                    cname(c, "%sS%d_%d", P, ix + (i == 0), iy + (i == 1)));
  if (k->add[CK_SHEAR]) make_shear(c, k);
}

/* ---------------------------------------------------------- rope, loop */

/* the coordinates in the composite's body name "<prefix>B<x>" or
   "<prefix>B<x>_<y>" (rope and cloth grow from that element) */
static void root_coords(ld_ctx* c, const comp* k, const char* bodyname, int n, int* xy) {
  size_t lp = strlen(k->prefix);
  if (!bodyname || strncmp(bodyname, k->prefix, lp) || bodyname[lp] != 'B')
    ld_error(c, k->file, k->line, "composite: '%sB' must be the beginning of the name of its body",
             k->prefix);
  const char* s = bodyname + lp + 1;
  char* end;
  long v[2];
  v[0] = strtol(s, &end, 10);
  int ok = end != s;
  if (ok && n == 2) {
    ok = *end == '_';
    s = end + 1;
    v[1] = strtol(s, &end, 10);
    ok = ok && end != s;
  }
  if (!ok)
    ld_error(c, k->file, k->line, "composite: the body's name must contain its %s coordinate%s",
             n == 2 ? "X_Y" : "X", n == 2 ? "s" : "");
  for (int i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] >= k->count[i])
      ld_error(c, k->file, k->line, "composite: the body's coordinates are out of range");
    xy[i] = (int)v[i];
  }
}

/* A rope element: the body at x1 as a child of the element at x (x1 == x:
   the composite's own body, which gets the geom only). Main joints (hinges
   about y and z), twist (hinge about x) and stretch (slider along x), all
   at the middle of the segment between the two. Returns the body. */
static int rope_body(ld_ctx* c, const comp* k, int body, int x, int x1) {
  const char* P = k->prefix;
  int root = x == x1;
  double dx = k->spacing * (x1 - x);
  if (!root) {
    double pos[3] = {dx, 0, 0}, quat[4] = {1, 0, 0, 0};
    if (k->type == CT_LOOP) {
      /* the loop's elements on a regular polygon of count sides */
      double alpha = 2 * IMP_PI / k->count[0];
      double R = 0.5 * k->spacing * sin(IMP_PI - alpha) / sin(0.5 * alpha);
      double side = x1 > x ? 1 : -1;
      set3(pos, side * R * cos(0.5 * alpha), R * sin(0.5 * alpha), 0);
      quat[0] = cos(0.5 * alpha);
      quat[3] = side * sin(0.5 * alpha);
    }
    body = add_body(c, k, body, cname(c, "%sB%d", P, x1), pos);
    imp_copy(LD_AT(c->bodies, ld_body, body)->quat, quat, 4);
  }
  ld_geom* g = add_geom(c, k, body, cname(c, "%sG%d", P, x1));
  set3(g->pos, 0, 0, 0);
  g->quat[0] = g->quat[2] = sqrt(0.5); /* the capsule along x */
  g->quat[1] = g->quat[3] = 0;
  g->has_fromto = 0;
  if (root) return body;
  double jpos[3] = {-0.5 * dx, 0, 0}, ax[3] = {1, 0, 0};
  for (int i = 0; i < 2; i++) {
    double axis[3] = {0, 0, 0};
    axis[i + 1] = 1;
    add_joint(c, k, CK_JOINT, body, cname(c, "%sJ%d_%d", P, i, x1), IMP_JNT_HINGE, jpos, axis);
  }
  if (k->add[CK_TWIST]) {
    ld_joint* j =
        add_joint(c, k, CK_TWIST, body, cname(c, "%sJT%d", P, x1), IMP_JNT_HINGE, jpos, ax);
    add_equality(c, k, IMP_EQ_JOINT, j->name, NULL, k->fixsolref[CK_TWIST]);
  }
  if (k->add[CK_STRETCH]) {
    ld_joint* j =
        add_joint(c, k, CK_STRETCH, body, cname(c, "%sJS%d", P, x1), IMP_JNT_SLIDE, jpos, ax);
    add_equality(c, k, IMP_EQ_JOINT, j->name, NULL, k->fixsolref[CK_STRETCH]);
  }
  return body;
}

/* a chain grown both ways from the composite's body; a loop closes with a
   connect between its ends, whose contact is excluded */
static void make_rope(ld_ctx* c, const comp* k, int body) {
  if (k->dim != 1)
    ld_error(c, k->file, k->line, "composite %s must be one-dimensional",
             k->type == CT_LOOP ? "loop" : "rope");
  int ox;
  root_coords(c, k, LD_AT(c->bodies, ld_body, body)->name, 1, &ox);
  rope_body(c, k, body, ox, ox);
  int pb = body;
  for (int ix = ox; ix < k->count[0] - 1; ix++) pb = rope_body(c, k, pb, ix, ix + 1);
  pb = body;
  for (int ix = ox; ix > 0; ix--) pb = rope_body(c, k, pb, ix, ix - 1);
  if (k->type != CT_LOOP) return;
  const char* b0 = cname(c, "%sB0", k->prefix);
  const char* b1 = cname(c, "%sB%d", k->prefix, k->count[0] - 1);
  ld_equality* e = add_equality(c, k, IMP_EQ_CONNECT, b0, b1, k->solrefsmooth);
  set3(e->anchor, -0.5 * k->spacing, 0, 0);
  ld_exclude* x = ld_push(c, &c->excludes);
  x->file = k->file;
  x->line = k->line;
  x->body1 = b0;
  x->body2 = b1;
}

/* --------------------------------------------------------------- cloth */

/* A cloth element at (x1, y1), child of the element at (x, y) (the same:
   the composite's own body). Its geom alternates between two orientations;
   flatinertia replaces the body's inertia by that of a thin box. */
static int cloth_body(ld_ctx* c, const comp* k, int body, int x, int y, int x1, int y1) {
  const char* P = k->prefix;
  int root = x == x1 && y == y1;
  double dx = k->spacing * (x1 - x), dy = k->spacing * (y1 - y);
  if (!root) {
    double pos[3] = {dx, dy, 0};
    body = add_body(c, k, body, cname(c, "%sB%d_%d", P, x1, y1), pos);
  }
  ld_geom* g = add_geom(c, k, body, cname(c, "%sG%d_%d", P, x1, y1));
  set3(g->pos, 0, 0, 0);
  g->has_fromto = 0;
  if ((x1 + y1) % 2) {
    g->quat[0] = g->quat[1] = sqrt(0.5);
    g->quat[2] = g->quat[3] = 0;
  } else {
    g->quat[0] = g->quat[1] = g->quat[2] = g->quat[3] = 0.5;
  }
  if (k->flatinertia > 0) {
    ld_body* b = LD_AT(c->bodies, ld_body, body);
    double mass = g->has_mass ? g->mass : g->density * ld_geom_volume(g);
    double h[3] = {0.5 * k->spacing, 0.5 * k->spacing, 0.5 * k->spacing * k->flatinertia};
    b->has_inertial = 1;
    b->mass = mass;
    set3(b->ipos, 0, 0, 0);
    b->iquat[0] = 1;
    b->iquat[1] = b->iquat[2] = b->iquat[3] = 0;
    /* a box of half sizes h: I_x = m (h_y^2 + h_z^2) / 3 ... */
    set3(b->inertia, mass * (h[1] * h[1] + h[2] * h[2]) / 3, mass * (h[0] * h[0] + h[2] * h[2]) / 3,
         mass * (h[0] * h[0] + h[1] * h[1]) / 3);
  }
  ld_geom* s = add_site(c, k, body, cname(c, "%sS%d_%d", P, x1, y1));
  set3(s->pos, 0, 0, 0);
  s->quat[0] = 1;
  s->quat[1] = s->quat[2] = s->quat[3] = 0;
  if (root) return body;
  double jpos[3] = {-dx, -dy, 0};
  for (int i = 0; i < 2; i++) {
    /* universal joint: about y, z from a neighbour in x; about x, z in y */
    double axis[3] = {0, 0, 0};
    axis[x != x1 ? i + 1 : 2 * i] = 1;
    add_joint(c, k, CK_JOINT, body, cname(c, "%sJ%d_%d_%d", P, i, x1, y1), IMP_JNT_HINGE, jpos,
              axis);
  }
  double along[3] = {x != x1, x == x1, 0};
  if (k->add[CK_TWIST]) {
    ld_joint* j = add_joint(c, k, CK_TWIST, body, cname(c, "%sJT%d_%d", P, x1, y1), IMP_JNT_HINGE,
                            jpos, along);
    add_equality(c, k, IMP_EQ_JOINT, j->name, NULL, k->fixsolref[CK_TWIST]);
  }
  if (k->add[CK_STRETCH]) {
    ld_joint* j = add_joint(c, k, CK_STRETCH, body, cname(c, "%sJS%d_%d", P, x1, y1),
                            IMP_JNT_SLIDE, jpos, along);
    add_equality(c, k, IMP_EQ_JOINT, j->name, NULL, k->fixsolref[CK_STRETCH]);
  }
  return body;
}

/* the column through (x, oy) both ways from its row body rb */
static void cloth_columns(ld_ctx* c, const comp* k, int rb, int x, int oy) {
  int pb = rb;
  for (int iy = oy; iy < k->count[1] - 1; iy++) pb = cloth_body(c, k, pb, x, iy, x, iy + 1);
  pb = rb;
  for (int iy = oy; iy > 0; iy--) pb = cloth_body(c, k, pb, x, iy, x, iy - 1);
}

/* A tree grown from the composite's body (ox, oy): its column, then along
   the row to the right and to the left, each row body followed by its
   column. The rows other than oy are then tied along x by site tendons
   held at their lengths (the tree's edges along y and the row oy need
   none), and shear tendons added on request. */
static void make_cloth(ld_ctx* c, const comp* k, int body) {
  const char* P = k->prefix;
  if (k->dim != 2) ld_error(c, k->file, k->line, "composite cloth must be two-dimensional");
  int o[2];
  root_coords(c, k, LD_AT(c->bodies, ld_body, body)->name, 2, o);
  cloth_body(c, k, body, o[0], o[1], o[0], o[1]);
  cloth_columns(c, k, body, o[0], o[1]);
  for (int dir = 1; dir >= -1; dir -= 2) {
    int pb = body;
    for (int ix = o[0]; ix + dir >= 0 && ix + dir < k->count[0]; ix += dir) {
      pb = cloth_body(c, k, pb, ix, o[1], ix + dir, o[1]);
      cloth_columns(c, k, pb, ix + dir, o[1]);
    }
  }
  for (int iy = 0; iy < k->count[1]; iy++) {
    if (iy == o[1]) continue;
    for (int ix = 0; ix < k->count[0] - 1; ix++)
      site_tendon(c, k, CK_TENDON, cname(c, "%sT%d_%d", P, ix, iy),
                  cname(c, "%sS%d_%d", P, ix, iy), cname(c, "%sS%d_%d", P, ix + 1, iy));
  }
  if (k->add[CK_SHEAR]) make_shear(c, k);
}

/* ------------------------------------------- box, cylinder, ellipsoid */

static int on_shell(const comp* k, int ix, int iy, int iz) {
  return ix == 0 || ix == k->count[0] - 1 || iy == 0 || iy == k->count[1] - 1 || iz == 0 ||
         iz == k->count[2] - 1;
}

/* below this squared length a point is not projected (MuJoCo's mjEPS) */
#define SHELL_EPS 1e-14

/* the point p of the cube [-1, 1]^3 mapped onto the shape's surface */
static void shell_point(const comp* k, double p[3]) {
  double size[3];
  for (int i = 0; i < 3; i++) size[i] = 0.5 * k->spacing * (k->count[i] - 1);
  double scale[3] = {1, 1, 1};
  if (k->type == CT_CYLINDER) {
    /* the square's ring through p onto the circle of its half width */
    double L0 = fmax(fabs(p[0]), fabs(p[1])), r2 = p[0] * p[0] + p[1] * p[1];
    if (r2 >= SHELL_EPS) p[0] /= sqrt(r2), p[1] /= sqrt(r2);
    scale[0] = scale[1] = L0;
  } else if (k->type == CT_ELLIPSOID) {
    double r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    if (r2 >= SHELL_EPS) p[0] /= sqrt(r2), p[1] /= sqrt(r2), p[2] /= sqrt(r2);
  }
  for (int i = 0; i < 3; i++) p[i] *= size[i] * scale[i];
}

/* The shell of a count grid mapped onto the shape: a body per shell point
   facing outwards, on a slider along its normal fixed by an equality,
   neighbours' sliders tied by smoothing equalities, the sum of all sliders
   (fixed tendon "T") held constant, and a sphere twice the geom's size at
   the centre. */
static void make_box(ld_ctx* c, const comp* k, int body) {
  const char* P = k->prefix;
  static const double zero[3] = {0, 0, 0}, zaxis[3] = {0, 0, 1};
  if (k->dim != 3)
    ld_error(c, k->file, k->line,
             "composite box, cylinder and ellipsoid must be three-dimensional");
  ld_geom* g0 = add_geom(c, k, body, cname(c, "%sGcenter", P));
  g0->type = IMP_GEOM_SPHERE;
  set3(g0->pos, 0, 0, 0);
  g0->size[0] *= 2;
  g0->size[1] = g0->size[2] = 0;
  int ten = c->tendons.n;
  const char* tname = cname(c, "%sT", P);
  add_tendon(c, k, CK_TENDON, tname, 0);
  for (int ix = 0; ix < k->count[0]; ix++)
    for (int iy = 0; iy < k->count[1]; iy++)
      for (int iz = 0; iz < k->count[2]; iz++) {
        if (!on_shell(k, ix, iy, iz)) continue;
        double pos[3] = {2.0 * ix / (k->count[0] - 1) - 1, 2.0 * iy / (k->count[1] - 1) - 1,
                         2.0 * iz / (k->count[2] - 1) - 1};
        shell_point(k, pos);
        int b = add_body(c, k, body, cname(c, "%sB%d_%d_%d", P, ix, iy, iz), pos);
        double n[3] = {pos[0], pos[1], pos[2]};
        if (imp_normalize3(n) < IMP_MINVAL)
          ld_error(c, k->file, k->line, "composite: a shell point at the centre");
        imp_quat_z2vec(LD_AT(c->bodies, ld_body, b)->quat, n);
        ld_geom* g = add_geom(c, k, b, cname(c, "%sG%d_%d_%d", P, ix, iy, iz));
        g->has_fromto = 0;
        /* inwards from the surface by the geom's reach */
        if (g->type == IMP_GEOM_CAPSULE) {
          g->pos[2] = -(g->size[0] + g->size[1]);
        } else {
          g->type = IMP_GEOM_SPHERE;
          g->pos[2] = -g->size[0];
        }
        const char* jname = cname(c, "%sJ%d_%d_%d", P, ix, iy, iz);
        add_joint(c, k, CK_JOINT, b, jname, IMP_JNT_SLIDE, zero, zaxis);
        add_equality(c, k, IMP_EQ_JOINT, jname, NULL, k->fixsolref[CK_JOINT]);
        tendon_wrap(c, k, ten, IMP_WRAP_JOINT, jname, 1);
        for (int i = 0; i < 3; i++) {
          int x1 = ix + (i == 0), y1 = iy + (i == 1), z1 = iz + (i == 2);
          if (x1 > k->count[0] - 1) x1 = k->count[0] - 1;
          if (y1 > k->count[1] - 1) y1 = k->count[1] - 1;
          if (z1 > k->count[2] - 1) z1 = k->count[2] - 1;
          if (!on_shell(k, x1, y1, z1) || (x1 == ix && y1 == iy && z1 == iz)) continue;
          add_equality(c, k, IMP_EQ_JOINT, jname, cname(c, "%sJ%d_%d_%d", P, x1, y1, z1),
                       k->solrefsmooth);
        }
      }
  add_equality(c, k, IMP_EQ_TENDON, tname, NULL, k->fixsolref[CK_TENDON]);
}

/* ------------------------------------------------------------- reading */

static const char* const comp_types[] = {"particle", "grid",      "rope",      "loop", "cloth",
                                         "box",      "cylinder",  "ellipsoid", NULL};

/* solref (0.01, ...) of MuJoCo's "hard" level 0 and (0.02, ...) of its
   soft level 1; solimp is not ours */
static void soften(double solref[2], int level) { solref[0] = level == 0 ? 0.01 : 0.02; }

/* the starting values of every element, from MJCF's built-in defaults and
   the composite's type (MuJoCo 2.2.2's SetDefault) */
static void set_defaults(comp* k, int tmpdim) {
  ld_class b;
  ld_defaults_builtin(&b);
  k->geom = b.geom;
  k->site = b.site;
  for (int i = 0; i < 3; i++) k->joint[i] = b.joint;
  for (int i = 0; i < 2; i++) k->tendon[i] = b.tendon;
  for (int i = 0; i < CK_N; i++) imp_copy(k->fixsolref[i], b.equality.solref, 2);
  imp_copy(k->solrefsmooth, b.equality.solref, 2);
  int visible = !k->skin || k->type == CT_PARTICLE || k->type == CT_ROPE || k->type == CT_LOOP ||
                (k->type == CT_GRID && tmpdim == 1);
  k->geom.group = k->site.group = visible ? 0 : 3;
  k->site.group = 3;
  for (int i = 0; i < 2; i++) k->tendon[i].group = visible ? 0 : 3;
  switch (k->type) {
    case CT_PARTICLE:
      k->geom.condim = 1; /* no friction with anything */
      k->geom.priority = 1;
      break;
    case CT_GRID: soften(k->fixsolref[CK_TENDON], 0); break;
    case CT_LOOP: soften(k->solrefsmooth, 0); break;
    case CT_BOX:
    case CT_CYLINDER:
    case CT_ELLIPSOID:
      k->geom.contype = 0; /* no self-collisions */
      soften(k->solrefsmooth, 1);
      for (int i = 0; i < CK_N; i++) soften(k->fixsolref[i], 1);
      soften(k->fixsolref[CK_TENDON], 0);
      break;
    default: break;
  }
}

/* 2.2.2 reads a kind's "limited" from the composite element, where its
   schema does not allow it: a <joint>'s or <tendon>'s limited is ignored */
static void warn_limited_ignored(ld_ctx* c, ld_node* n) {
  if (!ld_attr_str(n, "limited")) return;
  ld_warning(c, "composite:limited", n->file, n->line,
             "composite %s: 'limited' is ignored (as by MuJoCo 2.2.2; autolimits decide)",
             n->name);
}

static void read_geom_child(ld_ctx* c, ld_node* n, ld_geom* g) {
  static const char* const types[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                      "cylinder", "box", "mesh", NULL};
  static const char* const ok[] = {"solmix", "solimp", NULL};
  ld_attr_keyword(c, n, "type", types, &g->type);
  double sz[3];
  int ns = ld_attr_nums(c, n, "size", sz, 1, 3);
  for (int i = 0; i < ns; i++) g->size[i] = sz[i];
  if (ns > g->nsize) g->nsize = ns;
  ld_attr_int(c, n, "contype", &g->contype);
  ld_attr_int(c, n, "conaffinity", &g->conaffinity);
  if (ld_attr_int(c, n, "condim", &g->condim) && g->condim != 1 && g->condim != 3 &&
      g->condim != 4 && g->condim != 6)
    ld_error(c, n->file, n->line, "condim must be 1, 3, 4 or 6, not %d", g->condim);
  ld_attr_int(c, n, "group", &g->group);
  ld_attr_int(c, n, "priority", &g->priority);
  ld_attr_nums(c, n, "friction", g->friction, 1, 3);
  ld_attr_nums(c, n, "solref", g->solref, 2, 2);
  ld_attr_nums(c, n, "margin", &g->margin, 1, 1);
  ld_attr_nums(c, n, "gap", &g->gap, 1, 1);
  const char* mat = ld_attr_str(n, "material");
  if (mat) g->material = mat;
  ld_attr_float(c, n, "rgba", g->rgba, 4, 4);
  if (ld_attr_nums(c, n, "mass", &g->mass, 1, 1) > 0) g->has_mass = 1;
  ld_attr_nums(c, n, "density", &g->density, 1, 1);
  ld_accept(n, ok);
  ld_warn_unused(c, n);
}

static void read_site_child(ld_ctx* c, ld_node* n, ld_geom* s) {
  double sz[3];
  int ns = ld_attr_nums(c, n, "size", sz, 1, 3);
  for (int i = 0; i < ns; i++) s->size[i] = sz[i];
  ld_attr_int(c, n, "group", &s->group);
  const char* mat = ld_attr_str(n, "material");
  if (mat) s->material = mat;
  ld_attr_float(c, n, "rgba", s->rgba, 4, 4);
  ld_warn_unused(c, n);
}

static void read_joint_child(ld_ctx* c, comp* k, ld_node* n) {
  static const char* const kinds[] = {"main", "twist", "stretch", NULL};
  static const char* const ok[] = {"group", "solimpfix", "margin", "solimplimit",
                                   "solreffriction", "solimpfriction", NULL};
  int kind;
  if (!ld_attr_keyword(c, n, "kind", kinds, &kind))
    ld_error(c, n->file, n->line, "composite joint: kind is required");
  k->add[kind] = 1;
  ld_joint* j = &k->joint[kind];
  ld_attr_nums(c, n, "solreffix", k->fixsolref[kind], 2, 2);
  warn_limited_ignored(c, n);
  ld_attr_nums(c, n, "solreflimit", j->solref, 2, 2);
  ld_attr_nums(c, n, "stiffness", &j->stiffness, 1, 1);
  if (ld_attr_nums(c, n, "range", j->range, 2, 2) > 0) j->has_range = 1;
  ld_attr_nums(c, n, "armature", &j->armature, 1, 1);
  ld_attr_nums(c, n, "damping", &j->damping, 1, 1);
  if (ld_attr_nums(c, n, "frictionloss", &j->frictionloss, 1, 1) > 0 && !(j->frictionloss >= 0))
    ld_error(c, n->file, n->line, "joint frictionloss must be >= 0 (it is a force bound)");
  ld_accept(n, ok);
  ld_warn_unused(c, n);
}

static void read_tendon_child(ld_ctx* c, comp* k, ld_node* n) {
  static const char* const kinds[] = {"main", "shear", NULL};
  static const char* const ok[] = {"solimpfix", "solimplimit", "solreffriction", "solimpfriction",
                                   NULL};
  int kind;
  if (!ld_attr_keyword(c, n, "kind", kinds, &kind))
    ld_error(c, n->file, n->line, "composite tendon: kind is required");
  k->add[CK_TENDON + kind] = 1;
  ld_tendon* t = &k->tendon[kind];
  ld_attr_nums(c, n, "solreffix", k->fixsolref[CK_TENDON + kind], 2, 2);
  warn_limited_ignored(c, n);
  ld_attr_int(c, n, "group", &t->group);
  ld_attr_nums(c, n, "solreflimit", t->solref, 2, 2);
  if (ld_attr_nums(c, n, "range", t->range, 2, 2) > 0) t->has_range = 1;
  ld_attr_nums(c, n, "margin", &t->margin, 1, 1);
  double v;
  if (ld_attr_nums(c, n, "stiffness", &v, 1, 1) > 0) set3(t->stiffness, v, 0, 0);
  if (ld_attr_nums(c, n, "damping", &v, 1, 1) > 0) set3(t->damping, v, 0, 0);
  ld_attr_nums(c, n, "frictionloss", &t->frictionloss, 1, 1);
  const char* mat = ld_attr_str(n, "material");
  if (mat) t->material = mat;
  ld_attr_float(c, n, "rgba", t->rgba, 4, 4);
  ld_attr_nums(c, n, "width", &t->width, 1, 1);
  ld_accept(n, ok);
  ld_warn_unused(c, n);
}

static ld_node* first_child(ld_node* n, const char* name) {
  for (ld_node* ch = n->child; ch; ch = ch->next)
    if (!strcmp(ch->name, name)) return ch;
  return NULL;
}

/* the composite's attributes and children, in MuJoCo 2.2.2's order: the
   skin first (it decides the groups), then the type's defaults, then what
   the children override */
static void read_composite(ld_ctx* c, ld_node* n, comp* k) {
  k->file = n->file;
  k->line = n->line;
  const char* p = ld_attr_str(n, "prefix");
  k->prefix = p ? p : "";
  if (!ld_attr_keyword(c, n, "type", comp_types, &k->type))
    ld_error(c, n->file, n->line, "composite: type is required");
  k->count[0] = k->count[1] = k->count[2] = 1;
  double v[3];
  int nc = ld_attr_nums(c, n, "count", v, 1, 3);
  if (nc < 0) ld_error(c, n->file, n->line, "composite: count is required");
  for (int i = 0; i < nc; i++) {
    if (v[i] != floor(v[i]) || v[i] < 1 || v[i] > COMP_MAXBODY)
      ld_error(c, n->file, n->line, "composite: counts must be positive integers (at most %d)",
               COMP_MAXBODY);
    k->count[i] = (int)v[i];
  }
  if ((double)k->count[0] * k->count[1] * k->count[2] > COMP_MAXBODY)
    ld_error(c, n->file, n->line, "composite: more than %d elements", COMP_MAXBODY);
  if (ld_attr_nums(c, n, "spacing", &k->spacing, 1, 1) < 0)
    ld_error(c, n->file, n->line, "composite: spacing is required");
  ld_attr_nums(c, n, "offset", k->offset, 3, 3);
  ld_attr_nums(c, n, "flatinertia", &k->flatinertia, 1, 1);
  ld_node* skin = first_child(n, "skin");
  int tmpdim = 0;
  for (int i = 0; i < 3; i++) tmpdim += k->count[i] > 1;
  if (skin) {
    k->skin = 1;
    ld_attr_int(c, skin, "subgrid", &k->skinsubgrid);
    ld_warning(c, "composite:skin", skin->file, skin->line,
               "composite skin is not supported yet (the composite is built without it)");
  }
  set_defaults(k, tmpdim);
  ld_attr_nums(c, n, "solrefsmooth", k->solrefsmooth, 2, 2);
  static const char* const ok[] = {"solimpsmooth", NULL};
  ld_accept(n, ok);
  ld_warn_unused(c, n);
  ld_node* g = first_child(n, "geom");
  if (g) read_geom_child(c, g, &k->geom);
  ld_node* s = first_child(n, "site");
  if (s) read_site_child(c, s, &k->site);
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    if (!strcmp(ch->name, "joint")) {
      read_joint_child(c, k, ch);
    } else if (!strcmp(ch->name, "tendon")) {
      read_tendon_child(c, k, ch);
    } else if (!strcmp(ch->name, "pin")) {
      int xy[2] = {0, 0};
      double pv[2];
      int np = ld_attr_nums(c, ch, "coord", pv, 1, 2);
      if (np < 0) ld_error(c, ch->file, ch->line, "composite pin: coord is required");
      for (int i = 0; i < np; i++) {
        if (pv[i] != floor(pv[i]) || fabs(pv[i]) > 1e9)
          ld_error(c, ch->file, ch->line, "composite pin: coord must be integers");
        xy[i] = (int)pv[i];
      }
      if (k->npin >= COMP_MAXBODY) ld_error(c, ch->file, ch->line, "composite: too many pins");
      int* pin = ld_alloc(c, sizeof(int) * (size_t)(2 * k->npin + 2));
      if (k->npin) memcpy(pin, k->pin, sizeof(int) * (size_t)(2 * k->npin));
      pin[2 * k->npin] = xy[0];
      pin[2 * k->npin + 1] = xy[1];
      k->pin = pin;
      k->npin++;
      ld_warn_unused(c, ch);
    } else if (!strcmp(ch->name, "geom") || !strcmp(ch->name, "site") ||
               !strcmp(ch->name, "skin")) {
      if (ch != g && ch != s && ch != skin)
        ld_error(c, ch->file, ch->line, "composite: at most one '%s'", ch->name);
    } else {
      ld_warn_element(c, ch);
    }
  }
}

/* MuJoCo 2.2.2's checks before any element is made */
static void check_composite(ld_ctx* c, comp* k) {
  if (k->geom.type != IMP_GEOM_SPHERE && k->geom.type != IMP_GEOM_CAPSULE &&
      k->geom.type != IMP_GEOM_ELLIPSOID)
    ld_error(c, k->file, k->line, "composite geom type must be sphere, capsule or ellipsoid");
  if (!(k->spacing >= IMP_MINVAL))
    ld_error(c, k->file, k->line, "composite: positive spacing expected");
  int single = 0;
  for (int i = 0; i < 3; i++) {
    if (k->count[i] == 1) {
      single = 1;
    } else {
      k->dim++;
      if (single) ld_error(c, k->file, k->line, "composite: singleton counts must come last");
    }
  }
  if (k->skin && k->skinsubgrid > 0 && (k->count[0] < 3 || k->count[1] < 3))
    ld_error(c, k->file, k->line, "composite: at least 3x3 required for skin subgrid");
}

void ld_parse_composite(ld_ctx* c, ld_node* n, int body) {
  comp k;
  memset(&k, 0, sizeof k);
  k.parentclass = LD_AT(c->bodies, ld_body, body)->childclass;
  read_composite(c, n, &k);
  check_composite(c, &k);
  switch (k.type) {
    case CT_PARTICLE: make_particle(c, &k, body); break;
    case CT_GRID: make_grid(c, &k, body); break;
    case CT_ROPE:
    case CT_LOOP: make_rope(c, &k, body); break;
    case CT_CLOTH: make_cloth(c, &k, body); break;
    default: make_box(c, &k, body); break;
  }
}
