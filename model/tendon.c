/* Tendons of the spec into the model (MJCF reference: tendon/spatial,
 * tendon/fixed): their attributes and defaults, their paths resolved and
 * checked as MuJoCo does (a fixed tendon's joints are hinges or slides; a
 * spatial tendon's branches start and end at sites, a geom sits between two
 * sites and is a sphere or a cylinder, pulleys separate branches), and the
 * lengths at qpos0 and qpos_spring from the engine's own tendon stage. */
#include <math.h>
#include <string.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"

void ld_read_tendon(ld_ctx* c, ld_node* n, ld_tendon* t) {
  /* solimp is MuJoCo's softness, which hard limits do not have; friction
     rows are hard too (solreffriction has no role); user data is kept by
     nobody */
  static const char* const ok[] = {"solimplimit", "solreffriction", "solimpfriction", "user", NULL};
  ld_attr_int(c, n, "group", &t->group);
  ld_attr_limited(c, n, "limited", &t->limited);
  ld_attr_limited(c, n, "actuatorfrclimited", &t->actfrclimited);
  if (ld_attr_nums(c, n, "range", t->range, 2, 2) >= 0) t->has_range = 1;
  if (ld_attr_nums(c, n, "actuatorfrcrange", t->actfrcrange, 2, 2) >= 0) t->has_actfrcrange = 1;
  ld_attr_nums(c, n, "solreflimit", t->solref, 2, 2);
  ld_attr_nums(c, n, "margin", &t->margin, 1, 1);
  ld_attr_nums(c, n, "frictionloss", &t->frictionloss, 1, 1);
  ld_attr_nums(c, n, "width", &t->width, 1, 1);
  ld_attr_nums(c, n, "armature", &t->armature, 1, 1);
  double k[3] = {0, 0, 0}, b[3] = {0, 0, 0}, s[2];
  if (ld_attr_nums(c, n, "stiffness", k, 1, 3) >= 0) imp_copy(t->stiffness, k, 3);
  if (ld_attr_nums(c, n, "damping", b, 1, 3) >= 0) imp_copy(t->damping, b, 3);
  int ns = ld_attr_nums(c, n, "springlength", s, 1, 2);
  if (ns == 1) t->springlength[0] = t->springlength[1] = s[0];
  if (ns == 2) t->springlength[0] = s[0], t->springlength[1] = s[1];
  ld_attr_float(c, n, "rgba", t->rgba, 4, 4);
  const char* mat = ld_attr_str(n, "material");
  if (mat) t->material = mat;
  ld_accept(n, ok);
}

/* one path element of a spatial (site, geom, pulley) or fixed (joint) tendon */
static void read_wrap(ld_ctx* c, ld_node* n, int spatial) {
  ld_wrap* w = ld_push(c, &c->wraps);
  w->file = n->file;
  w->line = n->line;
  const char* e = n->name;
  if (!spatial && !strcmp(e, "joint")) {
    w->type = IMP_WRAP_JOINT;
    w->name = ld_attr_str(n, "joint");
    if (!w->name) ld_error(c, n->file, n->line, "fixed tendon joint: joint is required");
    if (ld_attr_nums(c, n, "coef", &w->prm, 1, 1) < 0)
      ld_error(c, n->file, n->line, "fixed tendon joint: coef is required");
  } else if (spatial && !strcmp(e, "site")) {
    w->type = IMP_WRAP_SITE;
    w->name = ld_attr_str(n, "site");
    if (!w->name) ld_error(c, n->file, n->line, "spatial tendon site: site is required");
  } else if (spatial && !strcmp(e, "geom")) {
    w->type = IMP_WRAP_SPHERE; /* or cylinder: from the geom, once resolved */
    w->name = ld_attr_str(n, "geom");
    w->sidesite = ld_attr_str(n, "sidesite");
    if (!w->name) ld_error(c, n->file, n->line, "spatial tendon geom: geom is required");
  } else if (spatial && !strcmp(e, "pulley")) {
    w->type = IMP_WRAP_PULLEY;
    if (ld_attr_nums(c, n, "divisor", &w->prm, 1, 1) < 0)
      ld_error(c, n->file, n->line, "pulley: divisor is required");
    if (!(w->prm > 0)) ld_error(c, n->file, n->line, "pulley: divisor must be positive");
  } else {
    ld_error(c, n->file, n->line, "element '%s' cannot be in a %s tendon", e,
             spatial ? "spatial" : "fixed");
  }
  ld_warn_unused(c, n);
}

void ld_parse_tendons(ld_ctx* c, ld_node* n) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    int spatial = !strcmp(ch->name, "spatial");
    if (!spatial && strcmp(ch->name, "fixed")) {
      ld_warn_element(c, ch);
      continue;
    }
    const char* cls = ld_attr_str(ch, "class");
    ld_tendon* t = ld_push(c, &c->tendons);
    *t = LD_AT(c->classes, ld_class, cls ? ld_find_class(c, ch, cls) : 0)->tendon;
    ld_read_tendon(c, ch, t);
    t->name = ld_attr_str(ch, "name");
    t->file = ch->file;
    t->line = ch->line;
    t->spatial = spatial;
    t->wrapadr = c->wraps.n;
    for (ld_node* w = ch->child; w; w = w->next) read_wrap(c, w, spatial);
    t->wrapnum = c->wraps.n - t->wrapadr;
    ld_warn_unused(c, ch);
  }
}

/* MuJoCo's grammar of a spatial path (its compiler's checks): at least
   two objects; pulleys start branches, never two in a row nor last; a
   site has a neighbour that is not a pulley and is not repeated next to
   itself; a geom sits between two sites. Run once the ids are resolved. */
static void check_spatial_path(ld_ctx* c, const ld_tendon* t) {
  if (t->wrapnum < 2)
    ld_error(c, t->file, t->line, "spatial tendon path needs at least two objects");
  if (!(t->width > 0)) ld_error(c, t->file, t->line, "spatial tendon width must be positive");
  for (int i = 0; i < t->wrapnum; i++) {
    const ld_wrap* w = LD_AT(c->wraps, ld_wrap, t->wrapadr + i);
    const ld_wrap* prev = i > 0 ? w - 1 : NULL;
    const ld_wrap* next = i + 1 < t->wrapnum ? w + 1 : NULL;
    int prev_pulley = !prev || prev->type == IMP_WRAP_PULLEY;
    int next_pulley = !next || next->type == IMP_WRAP_PULLEY;
    if (w->type == IMP_WRAP_PULLEY && ((prev && prev->type == IMP_WRAP_PULLEY) || !next))
      ld_error(c, w->file, w->line, "pulley cannot follow a pulley or end the tendon's path");
    if (w->type == IMP_WRAP_SITE && prev_pulley && next_pulley)
      ld_error(c, w->file, w->line, "a branch of a spatial tendon needs at least two objects");
    if (w->type == IMP_WRAP_SITE && next && next->type == IMP_WRAP_SITE && next->objid == w->objid)
      ld_error(c, w->file, w->line, "site '%s' repeated in the tendon's path", w->name);
    if ((w->type == IMP_WRAP_SPHERE || w->type == IMP_WRAP_CYLINDER) &&
        (!prev || prev->type != IMP_WRAP_SITE || !next || next->type != IMP_WRAP_SITE))
      ld_error(c, w->file, w->line, "tendon wrapping geom must be between two sites");
  }
}

static void resolve_wrap(ld_ctx* c, ld_wrap* w) {
  const ld_joint* J = (const ld_joint*)c->joints.data;
  const ld_geom* G = (const ld_geom*)c->geoms.data;
  w->objid = w->sideid = -1;
  switch (w->type) {
    case IMP_WRAP_JOINT:
      w->objid = ld_named_id(c, &c->joints, "joint", w->name, w->file, w->line);
      if (J[w->objid].type != IMP_JNT_HINGE && J[w->objid].type != IMP_JNT_SLIDE)
        ld_error(c, w->file, w->line, "fixed tendon: joint '%s' is not a hinge or slide", w->name);
      break;
    case IMP_WRAP_SITE:
      w->objid = ld_named_id(c, &c->sites, "site", w->name, w->file, w->line);
      break;
    case IMP_WRAP_SPHERE:
    case IMP_WRAP_CYLINDER: {
      w->objid = ld_named_id(c, &c->geoms, "geom", w->name, w->file, w->line);
      int type = G[w->objid].type;
      if (type != IMP_GEOM_SPHERE && type != IMP_GEOM_CYLINDER)
        ld_error(c, w->file, w->line, "tendon wrapping geom '%s' must be a sphere or a cylinder",
                 w->name);
      w->type = type == IMP_GEOM_SPHERE ? IMP_WRAP_SPHERE : IMP_WRAP_CYLINDER;
      if (w->sidesite) w->sideid = ld_named_id(c, &c->sites, "site", w->sidesite, w->file, w->line);
      break;
    }
    default:
      break;
  }
}

/* Tendon armature (MJCF reference, tendon/spatial armature): not
   negative, and, as MuJoCo refuses it, not on a path that wraps a geom
   (the bias force needs the wrap points' accelerations). Where its dofs
   lie is checked once the dof tree is known (ld_tendon_dof_bounds). */
static void check_armature(ld_ctx* c, const ld_tendon* t) {
  if (!isfinite(t->armature) || t->armature < 0)
    ld_error(c, t->file, t->line, "tendon armature must be finite and >= 0, not %g", t->armature);
  if (t->armature == 0) return;
  for (int k = 0; k < t->wrapnum; k++) {
    int type = LD_AT(c->wraps, ld_wrap, t->wrapadr + k)->type;
    if (type == IMP_WRAP_SPHERE || type == IMP_WRAP_CYLINDER)
      ld_error(c, t->file, t->line,
               "tendon armature on a path that wraps a geom is not supported (MuJoCo refuses it "
               "too: the wrap points' acceleration is not computed)");
  }
}

/* The dofs a tendon with armature moves must lie on one chain to the root:
   qM gains armature J'J, whose entry (i, j) is an entry of the tree-sparse
   pattern (the one our factorization keeps without fill-in) only when one
   of i, j is an ancestor of the other. The marked dofs are closed under
   ancestors (mark_tendon_dofs), so they are one chain exactly when the
   deepest (the highest index: parents come first) has them all above it. */
static void check_armature_chain(ld_ctx* c, const imp_model* m, ld_tendon* t, const int* mark,
                                 int stamp, int n) {
  if (t->armature == 0 || n == 0) return;
  int deepest = -1, onchain = 0;
  for (int i = 0; i < m->nv; i++)
    if (mark[i] == stamp) deepest = i;
  for (int i = deepest; i >= 0; i = m->dof_parentid[i]) onchain++;
  if (onchain == n) return;
  /* Refused unless the caller allows what we do not implement, then
     loaded without the tendon's inertia. MuJoCo 3.x loads it, but (as read
     in its source, mj_tendonArmature) adds a J'J only where its mass
     matrix's tree pattern has entries, dropping the products across
     branches: not the documented inertia, and a matrix that need not be
     positive semi-definite (J = (r, i, j) over a root r and two branches:
     x = (1, -r/i, -r/j) gives x'Ax = -a r^2). */
  ld_unsupported(c, "tendon/armature", t->file, t->line,
                 "tendon armature on a tendon that moves dofs of different branches of the tree "
                 "is not supported: the inertia a J'J would couple dofs that are not ancestors of "
                 "one another, outside the tree-sparse pattern of the mass matrix and its "
                 "factorization (ignored: the tendon has no inertia)");
  t->armature = 0;
}

int ld_resolve_tendons(ld_ctx* c) {
  int nwrap = 0;
  for (int i = 0; i < c->tendons.n; i++) {
    ld_tendon* t = LD_AT(c->tendons, ld_tendon, i);
    if (t->wrapnum == 0)
      ld_error(c, t->file, t->line, "%s tendon has no path", t->spatial ? "spatial" : "fixed");
    for (int k = 0; k < t->wrapnum; k++) resolve_wrap(c, LD_AT(c->wraps, ld_wrap, t->wrapadr + k));
    if (t->spatial) check_spatial_path(c, t);
    if (t->limited < 0) t->limited = c->autolimits ? t->has_range : 0;
    if (t->limited && !(t->range[0] < t->range[1]))
      ld_error(c, t->file, t->line, "tendon range: lower limit must be below upper limit");
    if (t->actfrclimited < 0) t->actfrclimited = c->autolimits ? t->has_actfrcrange : 0;
    if (t->actfrclimited && (t->actfrcrange[0] > 0 || t->actfrcrange[1] < 0))
      ld_error(c, t->file, t->line,
               "tendon actuatorfrcrange: lower must be <= 0 and upper >= 0");
    int auto_rest = t->springlength[0] == -1 && t->springlength[1] == -1;
    if (!auto_rest && t->springlength[0] > t->springlength[1])
      ld_error(c, t->file, t->line, "tendon springlength: the two values must not decrease");
    if (t->frictionloss < 0) ld_error(c, t->file, t->line, "tendon frictionloss must be >= 0");
    check_armature(c, t);
    nwrap += t->wrapnum;
  }
  return nwrap;
}

/* the bodies a tendon's path may move through: mark every dof on their
   chains (closed under ancestors), return how many */
static int mark_tendon_dofs(ld_ctx* c, const imp_model* m, const ld_tendon* t, int* mark,
                            int stamp) {
  int n = 0;
  for (int k = 0; k < t->wrapnum; k++) {
    const ld_wrap* w = LD_AT(c->wraps, ld_wrap, t->wrapadr + k);
    int body = -1; /* from the spec: m has its dof tree, not yet its sites and geoms */
    if (w->type == IMP_WRAP_JOINT) body = LD_AT(c->joints, ld_joint, w->objid)->body;
    else if (w->type == IMP_WRAP_SITE) body = LD_AT(c->sites, ld_geom, w->objid)->body;
    else if (w->type != IMP_WRAP_PULLEY) body = LD_AT(c->geoms, ld_geom, w->objid)->body;
    if (body < 0) continue;
    int tip = w->type == IMP_WRAP_JOINT ? m->jnt_dofadr[w->objid] : imp_chain_tip(m, body);
    for (int dof = tip; dof >= 0 && mark[dof] != stamp; dof = m->dof_parentid[dof]) {
      mark[dof] = stamp;
      n++;
    }
  }
  return n;
}

void ld_tendon_dof_bounds(ld_ctx* c, const imp_model* m, int* nJten, int* nJeq) {
  int* mark = ld_alloc(c, sizeof(int) * (size_t)(m->nv + 1));
  for (int i = 0; i < m->nv; i++) mark[i] = -1;
  int stamp = 0;
  *nJten = *nJeq = 0;
  for (int i = 0; i < c->tendons.n; i++) {
    ld_tendon* t = LD_AT(c->tendons, ld_tendon, i);
    int n = mark_tendon_dofs(c, m, t, mark, stamp);
    check_armature_chain(c, m, t, mark, stamp++, n);
    if (n > *nJten) *nJten = n;
  }
  for (int i = 0; i < c->equalities.n; i++) {
    const ld_equality* e = LD_AT(c->equalities, ld_equality, i);
    if (e->type != IMP_EQ_TENDON) continue;
    int t1 = ld_lookup_name(c, &c->tendons, e->obj1),
        t2 = e->obj2 ? ld_lookup_name(c, &c->tendons, e->obj2) : -1;
    int n = mark_tendon_dofs(c, m, LD_AT(c->tendons, ld_tendon, t1), mark, stamp);
    if (t2 >= 0) n += mark_tendon_dofs(c, m, LD_AT(c->tendons, ld_tendon, t2), mark, stamp);
    stamp++;
    if (n > *nJeq) *nJeq = n;
  }
}

void ld_put_tendons(ld_ctx* c, imp_model* m) {
  int adr = 0;
  for (int i = 0; i < m->ntendon; i++) {
    const ld_tendon* t = LD_AT(c->tendons, ld_tendon, i);
    m->tendon_adr[i] = adr;
    m->tendon_num[i] = t->wrapnum;
    m->tendon_limited[i] = t->limited;
    m->tendon_actfrclimited[i] = t->actfrclimited;
    m->tendon_group[i] = t->group;
    m->tendon_matid[i] =
        t->material ? ld_named_id(c, &c->materials, "material", t->material, t->file, t->line) : -1;
    imp_copy(m->tendon_range + 2 * i, t->range, 2);
    imp_copy(m->tendon_actfrcrange + 2 * i, t->actfrcrange, 2);
    imp_copy(m->tendon_solref + 2 * i, t->solref, 2);
    m->tendon_margin[i] = t->margin;
    imp_copy(m->tendon_stiffness + 3 * i, t->stiffness, 3);
    imp_copy(m->tendon_damping + 3 * i, t->damping, 3);
    m->tendon_frictionloss[i] = t->frictionloss;
    m->tendon_armature[i] = t->armature;
    imp_copy(m->tendon_lengthspring + 2 * i, t->springlength, 2);
    m->tendon_width[i] = t->width;
    memcpy(m->tendon_rgba + 4 * i, t->rgba, sizeof t->rgba);
    for (int k = 0; k < t->wrapnum; k++, adr++) {
      const ld_wrap* w = LD_AT(c->wraps, ld_wrap, t->wrapadr + k);
      m->wrap_type[adr] = w->type;
      m->wrap_objid[adr] = w->objid;
      m->wrap_prm[adr] = w->type == IMP_WRAP_SPHERE || w->type == IMP_WRAP_CYLINDER ? w->sideid
                                                                                  : w->prm;
    }
  }
}

void ld_tendons_at_qpos0(ld_ctx* c, imp_model* m) {
  if (!m->ntendon) return;
  imp_data* d = imp_make_data(m); /* at qpos0 */
  if (!d) ld_error(c, "", 0, "out of memory");
  for (int pass = 0; pass < 2; pass++) {
    imp_copy(d->qpos, pass ? m->qpos_spring : m->qpos0, m->nq);
    imp_kinematics(m, d);
    imp_com_pos(m, d);
    imp_tendon(m, d);
    for (int t = 0; t < m->ntendon; t++) {
      double* rest = m->tendon_lengthspring + 2 * t;
      if (!pass) m->tendon_length0[t] = d->ten_length[t];
      else if (rest[0] == -1 && rest[1] == -1) rest[0] = rest[1] = d->ten_length[t];
    }
  }
  imp_free_data(d);
}
