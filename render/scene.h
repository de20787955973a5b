/* The GL-free half of the renderer: model + data -> a flat list of
   drawables (shape, size, pose, colour), rebuilt each frame into storage
   allocated once. The OpenGL backend and the viewer (a later issue) only
   read this list, so what is shown can be unit-tested without a window.
   Promises: reads m and d only; no allocation in imp_scene_update. */
#ifndef IMPETUS_SCENE_H
#define IMPETUS_SCENE_H

#include "impetus.h"

typedef enum imp_drawable_kind { IMP_DRAW_GEOM = 0, IMP_DRAW_SITE = 1 } imp_drawable_kind;

typedef struct imp_drawable {
  int kind;      /* imp_drawable_kind */
  int objid;     /* geom or site id */
  int shape;     /* imp_geom_type */
  int matid;     /* material, -1 when none */
  float size[3];
  float pos[3];  /* world position */
  float mat[9];  /* world orientation, row-major */
  float rgba[4]; /* the object's colour, or its material's when it has one */
} imp_drawable;

typedef struct imp_scene {
  int ndrawable;
  int maxdrawable;
  int groupmask_geom; /* bit g set: show geoms of group g (groups 0..5) */
  int groupmask_site;
  imp_drawable* drawables;
} imp_scene;

/* A scene with room for every geom and site of m; groups 0-2 of geoms and
   0-2 of sites shown, as MuJoCo's viewer does by default. NULL on no memory. */
imp_scene* imp_scene_make(const imp_model* m);
void imp_scene_free(imp_scene* s);
/* Rebuild the drawables from d (after imp_forward or imp_step). */
void imp_scene_update(const imp_model* m, const imp_data* d, imp_scene* s);

#endif
