/* The GL backend's draw passes (gl_draw.c), called by imp_render_frame in
   gl.c: shadow depth, lit geoms, overlay items, the picking ids.
   Internal to render/. */
#ifndef IMPETUS_GL_DRAW_H
#define IMPETUS_GL_DRAW_H

#include "gl_internal.h"

/* Model matrix (column-major) of rotation R (row-major 3x3), position p and
   per-axis scale s; and the matching normal matrix R diag(1/s). */
void imp_gl_model_matrix(const float* R, const float* p, const float* s, float M[16], float N[9]);
/* The depth map of the scene's geoms seen from the main light into r->shadow_fbo. */
void imp_gl_draw_shadow_pass(imp_renderer* r, const imp_model* m);
/* Every drawable with the main program (lights and shadow already set). */
void imp_gl_draw_geoms(imp_renderer* r, const imp_model* m);
/* The overlay items, unlit, over the geoms. */
void imp_gl_draw_decor(imp_renderer* r);
/* The drawables of geoms with their id + 1 as colour (picking). */
void imp_gl_draw_ids(imp_renderer* r, const imp_model* m);

#endif
