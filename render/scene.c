/* Model + data -> drawables; see scene.h. */
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

imp_scene* imp_scene_make(const imp_model* m) {
  imp_scene* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->maxdrawable = m->ngeom + m->nsite + 2 * m->nwrap; /* a tendon's pieces: < its points */
  /* per contact a disc and an arrow; per body three axes and a COM; per
     joint an axis; the perturbation spring and its two ends */
  s->maxdecor = 2 * m->nconmax + 4 * m->nbody + m->njnt + 3;
  s->drawables = calloc((size_t)(s->maxdrawable > 0 ? s->maxdrawable : 1), sizeof(imp_drawable));
  s->decor = calloc((size_t)s->maxdecor, sizeof(imp_decor));
  if (!s->drawables || !s->decor) {
    imp_scene_free(s);
    return NULL;
  }
  s->groupmask_geom = s->groupmask_site = s->groupmask_tendon = 0x7;
  return s;
}

void imp_scene_free(imp_scene* s) {
  if (!s) return;
  free(s->drawables);
  free(s->decor);
  free(s);
}

static int group_shown(int mask, int group) {
  return group >= 0 && group < 31 && (mask >> group) & 1;
}

/* One drawable from an object's frame, size and colour (material colour wins,
   as in MJCF). */
static void add_drawable(const imp_model* m, imp_scene* s, int kind, int id, int shape, int matid,
                         const double* size, const double* pos, const double* mat,
                         const float* rgba) {
  imp_drawable* dr = &s->drawables[s->ndrawable++];
  dr->kind = kind;
  dr->objid = id;
  dr->shape = shape;
  dr->matid = matid;
  for (int i = 0; i < 3; i++)
    dr->size[i] = (float)size[i];
  for (int i = 0; i < 3; i++)
    dr->pos[i] = (float)pos[i];
  for (int i = 0; i < 9; i++)
    dr->mat[i] = (float)mat[i];
  const float* c = matid >= 0 ? m->mat_rgba + 4 * matid : rgba;
  for (int i = 0; i < 4; i++)
    dr->rgba[i] = c[i];
}

/* A piece of tendon from a to b: a capsule of radius r along it (its z). */
static void add_tendon_piece(const imp_model* m, imp_scene* s, int t, const double* a,
                             const double* b, double r) {
  double z[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double len = sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
  if (len < 1e-12) return;
  for (int i = 0; i < 3; i++) z[i] /= len;
  /* x: perpendicular to z, from the world axis least aligned with it */
  int k = fabs(z[0]) < fabs(z[1]) ? (fabs(z[0]) < fabs(z[2]) ? 0 : 2) : (fabs(z[1]) < fabs(z[2]) ? 1 : 2);
  double e[3] = {0, 0, 0}, x[3], y[3];
  e[k] = 1;
  y[0] = z[1] * e[2] - z[2] * e[1], y[1] = z[2] * e[0] - z[0] * e[2], y[2] = z[0] * e[1] - z[1] * e[0];
  double ny = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
  for (int i = 0; i < 3; i++) y[i] /= ny;
  x[0] = y[1] * z[2] - y[2] * z[1], x[1] = y[2] * z[0] - y[0] * z[2], x[2] = y[0] * z[1] - y[1] * z[0];
  double mat[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
  double pos[3] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])};
  double size[3] = {r, 0.5 * len, 0};
  add_drawable(m, s, IMP_DRAW_TENDON, t, IMP_GEOM_CAPSULE, m->tendon_matid[t], size, pos, mat,
               m->tendon_rgba + 4 * t);
}

/* Spatial tendons along their paths (tendon.c's wrap points): a piece
   between consecutive points, none across a pulley; the piece over a
   wrapping geom at half width, as MuJoCo draws it. Fixed tendons have no
   path to draw. */
static void add_tendons(const imp_model* m, const imp_data* d, imp_scene* s) {
  for (int t = 0; t < m->ntendon; t++) {
    if (!group_shown(s->groupmask_tendon, m->tendon_group[t])) continue;
    int a = d->ten_wrapadr[t], n = d->ten_wrapnum[t];
    for (int k = a; k + 1 < a + n; k++) {
      int o0 = d->wrap_obj[k], o1 = d->wrap_obj[k + 1];
      if (o0 == -2 || o1 == -2) continue;
      double r = m->tendon_width[t] * (o0 >= 0 && o0 == o1 ? 0.5 : 1);
      add_tendon_piece(m, s, t, d->wrap_xpos + 3 * k, d->wrap_xpos + 3 * k + 3, r);
    }
  }
}

void imp_scene_update(const imp_model* m, const imp_data* d, imp_scene* s) {
  s->ndrawable = 0;
  for (int g = 0; g < m->ngeom; g++) {
    if (!group_shown(s->groupmask_geom, m->geom_group[g])) continue;
    add_drawable(m, s, IMP_DRAW_GEOM, g, m->geom_type[g], m->geom_matid[g], m->geom_size + 3 * g,
                 d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, m->geom_rgba + 4 * g);
  }
  for (int i = 0; i < m->nsite; i++) {
    if (!group_shown(s->groupmask_site, m->site_group[i])) continue;
    add_drawable(m, s, IMP_DRAW_SITE, i, m->site_type[i], m->site_matid[i], m->site_size + 3 * i,
                 d->site_xpos + 3 * i, d->site_xmat + 9 * i, m->site_rgba + 4 * i);
  }
  add_tendons(m, d, s);
}

/* ---- overlay items ---- */

static void add_decor(imp_scene* s, int kind, const double* from, const double* to, double radius,
                      const float rgba[4]) {
  if (s->ndecor >= s->maxdecor) return;
  imp_decor* dc = &s->decor[s->ndecor++];
  dc->kind = kind;
  for (int i = 0; i < 3; i++) {
    dc->from[i] = (float)from[i];
    dc->to[i] = (float)(to ? to[i] : from[i]);
  }
  dc->radius = (float)radius;
  memcpy(dc->rgba, rgba, 4 * sizeof(float));
}

/* from + t * dir */
static void along(double* r, const double* from, const double* dir, double t) {
  for (int i = 0; i < 3; i++)
    r[i] = from[i] + t * dir[i];
}

/* Metres per newton of the force arrows: the user's, or such that the
   model's weight is 0.3 extent long. */
static double force_scale(const imp_model* m, const imp_decor_opt* o) {
  if (o->force_scale > 0) return o->force_scale;
  double mass = 0,
         g = sqrt(m->opt.gravity[0] * m->opt.gravity[0] + m->opt.gravity[1] * m->opt.gravity[1] +
                  m->opt.gravity[2] * m->opt.gravity[2]);
  for (int b = 1; b < m->nbody; b++)
    mass += m->body_mass[b];
  double weight = mass * g;
  return 0.3 * m->extent / (weight > 1e-9 ? weight : 1);
}

/* Contact marks are sized as MuJoCo sizes them, in units of the mean body
   size (not the extent, which a floor inflates): a disc contactwidth wide
   across and contactheight thick, but at least as thick as the penetration
   so it shows through both surfaces; arrows forcewidth wide. */
static double contact_disc_radius(const imp_model* m) {
  return m->vis.contactwidth * m->meansize;
}

static double contact_disc_half_height(const imp_model* m, const imp_contact* c) {
  double h = m->vis.contactheight * m->meansize;
  return -0.5 * c->dist > h ? -0.5 * c->dist : h;
}

static double force_arrow_radius(const imp_model* m) {
  return 0.5 * m->vis.forcewidth * m->meansize;
}

static void decorate_contacts(const imp_model* m, const imp_data* d, const imp_decor_opt* o,
                              imp_scene* s) {
  static const float point_rgba[4] = IMP_RGBA_CONTACT_POINT, force_rgba[4] = IMP_RGBA_CONTACT_FORCE;
  double scale = force_scale(m, o);
  /* arrows first, then the points on top, so a point is not hidden by its arrow's base */
  for (int i = 0; i < d->ncon && (o->flags & IMP_VIS_CONTACT_FORCE); i++) {
    const imp_contact* c = &d->contact[i];
    double f[3], t[3], tip[3];
    imp_contact_force_world(m, d, i, f, t);
    along(tip, c->pos, f, scale);
    double len = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) * scale;
    if (len > 1e-6 * m->extent)
      add_decor(s, IMP_DECOR_ARROW, c->pos, tip, force_arrow_radius(m), force_rgba);
  }
  for (int i = 0; i < d->ncon && (o->flags & IMP_VIS_CONTACT_POINT); i++) {
    const imp_contact* c = &d->contact[i];
    double tip[3];
    along(tip, c->pos, c->frame, contact_disc_half_height(m, c));
    add_decor(s, IMP_DECOR_DISC, c->pos, tip, contact_disc_radius(m), point_rgba);
  }
}

/* Body axes: column k of xmat, 0.1 extent long, red-green-blue. */
static void decorate_frames(const imp_model* m, const imp_data* d, imp_scene* s) {
  static const float rgb[3][4] = {
      {0.9f, 0.1f, 0.1f, 1}, {0.1f, 0.9f, 0.1f, 1}, {0.1f, 0.1f, 0.9f, 1}};
  double len = 0.1 * m->extent;
  for (int b = 1; b < m->nbody; b++) {
    const double *p = d->xpos + 3 * b, *R = d->xmat + 9 * b;
    for (int k = 0; k < 3; k++) {
      double axis[3] = {R[k], R[3 + k], R[6 + k]}, tip[3];
      along(tip, p, axis, len);
      add_decor(s, IMP_DECOR_SEGMENT, p, tip, 0.005 * m->extent, rgb[k]);
    }
  }
}

static void decorate_joints(const imp_model* m, const imp_data* d, imp_scene* s) {
  static const float rgba[4] = IMP_RGBA_JOINT;
  double len = 0.1 * m->extent;
  for (int j = 0; j < m->njnt; j++) {
    int t = m->jnt_type[j];
    if (t != IMP_JNT_HINGE && t != IMP_JNT_SLIDE) continue;
    double tip[3];
    along(tip, d->xanchor + 3 * j, d->xaxis + 3 * j, len);
    add_decor(s, IMP_DECOR_ARROW, d->xanchor + 3 * j, tip, 0.006 * m->extent, rgba);
  }
}

static void decorate_coms(const imp_model* m, const imp_data* d, imp_scene* s) {
  static const float rgba[4] = IMP_RGBA_COM;
  for (int b = 1; b < m->nbody; b++)
    add_decor(s, IMP_DECOR_SPHERE, d->xipos + 3 * b, NULL, 0.015 * m->extent, rgba);
}

/* The spring from the grabbed point (body frame -> world) to the mouse. */
static void decorate_perturb(const imp_model* m, const imp_data* d, const imp_perturb* p,
                             imp_scene* s) {
  static const float rgba[4] = IMP_RGBA_PERTURB;
  if (!p->active || p->bodyid < 1 || p->bodyid >= m->nbody) return;
  const double *R = d->xmat + 9 * p->bodyid, *x = d->xpos + 3 * p->bodyid;
  double w[3];
  for (int i = 0; i < 3; i++)
    w[i] = x[i] + R[3 * i] * p->localpos[0] + R[3 * i + 1] * p->localpos[1] +
           R[3 * i + 2] * p->localpos[2];
  add_decor(s, IMP_DECOR_SEGMENT, w, p->refpos, 0.004 * m->extent, rgba);
  add_decor(s, IMP_DECOR_SPHERE, w, NULL, 0.01 * m->extent, rgba);
  add_decor(s, IMP_DECOR_SPHERE, p->refpos, NULL, 0.01 * m->extent, rgba);
}

void imp_scene_decorate(const imp_model* m, const imp_data* d, const imp_decor_opt* o,
                        imp_scene* s) {
  s->ndecor = 0;
  if (o->flags & (IMP_VIS_CONTACT_POINT | IMP_VIS_CONTACT_FORCE)) decorate_contacts(m, d, o, s);
  if (o->flags & IMP_VIS_BODY_FRAME) decorate_frames(m, d, s);
  if (o->flags & IMP_VIS_JOINT) decorate_joints(m, d, s);
  if (o->flags & IMP_VIS_COM) decorate_coms(m, d, s);
  if (o->flags & IMP_VIS_PERTURB) decorate_perturb(m, d, &o->perturb, s);
}
