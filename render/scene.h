/* The GL-free half of the renderer: model + data -> a flat list of
   drawables (shape, size, pose, colour), rebuilt each frame into storage
   allocated once. The OpenGL backend and the viewer (a later issue) only
   read this list, so what is shown can be unit-tested without a window.
   Promises: reads m and d only; no allocation in imp_scene_update or
   imp_scene_decorate. */
#ifndef IMPETUS_SCENE_H
#define IMPETUS_SCENE_H

#include "impetus.h"

typedef enum imp_drawable_kind {
  IMP_DRAW_GEOM = 0,
  IMP_DRAW_SITE = 1,
  IMP_DRAW_TENDON = 2 /* one straight piece of a spatial tendon's path: a capsule */
} imp_drawable_kind;

typedef struct imp_drawable {
  int kind;  /* imp_drawable_kind */
  int objid; /* geom, site or tendon id */
  int shape; /* imp_geom_type */
  int matid; /* material, -1 when none */
  float size[3];
  float pos[3];  /* world position */
  float mat[9];  /* world orientation, row-major */
  float rgba[4]; /* the object's colour, or its material's when it has one */
} imp_drawable;

/* Overlay items: contacts, frames, joint axes, centres of mass, the
   perturbation spring. Drawn unlit in their exact colour, on top of geoms'
   depth, so what the user toggles is unmistakable (and testable by colour). */
typedef enum imp_decor_kind {
  IMP_DECOR_ARROW = 0,   /* shaft from -> to with a cone head, radius of the shaft */
  IMP_DECOR_SEGMENT = 1, /* a thin cylinder from -> to */
  IMP_DECOR_SPHERE = 2,  /* centre from, radius */
  IMP_DECOR_DISC = 3,    /* a cylinder centred at from, radius; to - from: axis, half height */
} imp_decor_kind;

typedef struct imp_decor {
  int kind; /* imp_decor_kind */
  float from[3], to[3];
  float radius;
  float rgba[4];
} imp_decor;

/* What the overlays show (imp_render_opt.flags in render.h). */
typedef enum imp_vis_flag {
  IMP_VIS_CONTACT_POINT = 1 << 0, /* a disc at each contact, across its normal */
  IMP_VIS_CONTACT_FORCE = 1 << 1, /* an arrow per contact: the force geom1 applies to geom2 */
  IMP_VIS_BODY_FRAME = 1 << 2,    /* x, y, z axes of every body (red, green, blue) */
  IMP_VIS_JOINT = 1 << 3,         /* joint axes (hinge, slide) at their anchors */
  IMP_VIS_COM = 1 << 4,           /* a sphere at each body's centre of mass */
  IMP_VIS_WIREFRAME = 1 << 5,     /* geoms as lines */
  IMP_VIS_TRANSPARENT = 1 << 6,   /* geoms half transparent */
  IMP_VIS_SHADOW = 1 << 7,        /* shadows from the main light */
  IMP_VIS_SKYBOX = 1 << 8,        /* the model's skybox gradient, else the default one */
  IMP_VIS_PERTURB = 1 << 9,       /* the perturbation spring, when active */
} imp_vis_flag;

/* A spring the viewer attaches to a body (Ctrl + right drag): drawn from the
   body's point localpos to refpos. The renderer only draws it. */
typedef struct imp_perturb {
  int active;         /* 1 while the user drags */
  int bodyid;         /* the body pulled */
  double localpos[3]; /* the grabbed point, in the body frame */
  double refpos[3];   /* where the mouse holds it, world */
} imp_perturb;

/* Overlay colours, fixed so that tests and users can tell them apart. */
#define IMP_RGBA_CONTACT_POINT \
  { 0.1f, 0.9f, 0.9f, 1.0f }
#define IMP_RGBA_CONTACT_FORCE \
  { 1.0f, 0.2f, 1.0f, 1.0f }
#define IMP_RGBA_JOINT \
  { 1.0f, 0.75f, 0.0f, 1.0f }
#define IMP_RGBA_COM \
  { 1.0f, 1.0f, 1.0f, 1.0f }
#define IMP_RGBA_PERTURB \
  { 1.0f, 0.4f, 0.1f, 1.0f }

typedef struct imp_scene {
  int ndrawable;
  int maxdrawable;
  int groupmask_geom; /* bit g set: show geoms of group g (groups 0..5) */
  int groupmask_site;
  int groupmask_tendon;
  imp_drawable* drawables;
  int ndecor;
  int maxdecor;
  imp_decor* decor;
} imp_scene;

/* Sizes of the overlay items, in units of the model extent. */
typedef struct imp_decor_opt {
  unsigned flags;     /* imp_vis_flag bits */
  double force_scale; /* m per N for contact forces; <= 0: the model's weight is 0.3 extent */
  imp_perturb perturb;
} imp_decor_opt;

/* A scene with room for every geom, site and piece of tendon path of m;
   groups 0-2 of geoms, sites and tendons shown, as MuJoCo's viewer does by
   default. NULL on no memory. */
imp_scene* imp_scene_make(const imp_model* m);
void imp_scene_free(imp_scene* s);
/* Rebuild the drawables from d (after imp_forward or imp_step). */
void imp_scene_update(const imp_model* m, const imp_data* d, imp_scene* s);
/* Rebuild the overlay items of d that o asks for (after imp_scene_update). */
void imp_scene_decorate(const imp_model* m, const imp_data* d, const imp_decor_opt* o,
                        imp_scene* s);

#endif
