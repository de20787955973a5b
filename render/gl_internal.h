/* Shared by the GL backend's files (gl.c, gl_draw.c, gl_shader.c, text.c):
   the renderer's GL objects. Not part of the public API (render.h). */
#ifndef IMPETUS_GL_INTERNAL_H
#define IMPETUS_GL_INTERNAL_H

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <stb/stb_truetype.h>

#include "render.h"
#include "shapes.h"

#define IMP_MAX_LIGHTS 8     /* the headlight and the first seven model lights */
#define IMP_SHADOW_SIZE 2048 /* shadow map texels per side */
#define IMP_TEXT_MAX_GLYPHS 4096

/* The main shader's uniform locations, looked up once. */
typedef struct imp_main_uniforms {
  GLint model, nmat, scale, view, proj, light_vp, eye;
  GLint rgba, specular, shininess, emission, use_tex, tex, cube, texrepeat, texuniform;
  GLint nlight, lpos, ldir, lamb, ldif, lspec, latt, ldirectional, lcutoff, lexp;
  GLint shadow, shadow_light, use_shadow;
} imp_main_uniforms;

typedef struct imp_font {
  int ok;                    /* 0: no font file, text calls draw nothing */
  GLuint tex;                /* one-channel glyph atlas */
  stbtt_bakedchar glyph[96]; /* ASCII 32..127 */
  float size;                /* pixel height */
  GLuint vao, vbo;
  float* verts; /* IMP_TEXT_MAX_GLYPHS * 6 vertices * 4 floats, allocated once */
} imp_font;

struct imp_renderer {
  GLuint prog_main, prog_depth, prog_flat, prog_sky, prog_text;
  imp_main_uniforms u;
  GLuint vao, vbo;
  imp_shape_range shape[IMP_SHAPE_COUNT];
  int nmesh;
  imp_shape_range* mesh; /* nmesh: vertex range of each mesh in vbo */
  int nhfield;
  imp_shape_range* hfield; /* nhfield: vertex range of each height field in vbo */
  int ntex;
  GLuint* tex; /* ntex: 2D or cube map (by tex_type); 0 for gradient skyboxes */
  GLuint shadow_fbo, shadow_tex;
  GLuint pick_fbo, pick_color, pick_depth;
  int pick_w, pick_h;
  GLuint sky_vao;
  float sky_top[3], sky_bottom[3], model_sky_top[3], model_sky_bottom[3];
  int has_skybox;
  GLuint sky_cube; /* the skybox as a cube map (a file, checker, flat), or 0: the gradient */
  imp_font font;
  imp_scene* scene;
  imp_camera_pose pose;
  imp_render_opt opt;
  float view[16], proj[16], light_vp[16];
  int width, height;
  double extent;
};

/* gl_shader.c: compile and link the renderer's programs; 0 and err on failure. */
int imp_gl_build_programs(imp_renderer* r, char* err, int errsz);
/* text.c: bake the overlay font (a missing font file disables text, with a warning). */
void imp_font_make(imp_font* f);
void imp_font_free(imp_font* f);

#endif
