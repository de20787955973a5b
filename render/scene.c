/* Model + data -> drawables; see scene.h. */
#include "scene.h"

#include <stdlib.h>

imp_scene* imp_scene_make(const imp_model* m) {
  imp_scene* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->maxdrawable = m->ngeom + m->nsite;
  s->drawables = calloc((size_t)(s->maxdrawable > 0 ? s->maxdrawable : 1), sizeof(imp_drawable));
  if (!s->drawables) {
    free(s);
    return NULL;
  }
  s->groupmask_geom = s->groupmask_site = 0x7;
  return s;
}

void imp_scene_free(imp_scene* s) {
  if (!s) return;
  free(s->drawables);
  free(s);
}

static int group_shown(int mask, int group) { return group >= 0 && group < 31 && (mask >> group) & 1; }

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
  for (int i = 0; i < 3; i++) dr->size[i] = (float)size[i];
  for (int i = 0; i < 3; i++) dr->pos[i] = (float)pos[i];
  for (int i = 0; i < 9; i++) dr->mat[i] = (float)mat[i];
  const float* c = matid >= 0 ? m->mat_rgba + 4 * matid : rgba;
  for (int i = 0; i < 4; i++) dr->rgba[i] = c[i];
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
}
