/* The OpenGL 3.3 core backend: the renderer object, its GL resources and a
 * frame (background, shadow map, lit geoms, overlays), readback and picking.
 * Draw passes are in gl_draw.c, shaders in gl_shader.c, text in text.c.
 *
 * Why 3.3 core: it is what Mesa's llvmpipe offers through EGL surfaceless
 * (no compatibility profile there beyond 3.0 without a display), it is what
 * GLFW asks for on every desktop, and shaders make per-fragment lighting and
 * shadow maps simple. Functions come from libOpenGL (GLVND) directly with
 * GL_GLEXT_PROTOTYPES: no loader library is needed under EGL or GLX. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_draw.h"
#include "gl_internal.h"
#include "hfield_mesh.h"
#include "texture.h"

void imp_render_opt_default(imp_render_opt* opt) {
  memset(opt, 0, sizeof *opt);
  opt->geomgroup = opt->sitegroup = 0x7;
  opt->flags = IMP_VIS_SHADOW | IMP_VIS_SKYBOX | IMP_VIS_PERTURB;
  opt->selected_body = -1;
  opt->alpha = 0.5f;
  opt->multisample = 1;
}

/* ---- resources made once ---- */

/* Every unit shape, every mesh and every height field (flat-shaded
   triangles) in one buffer. */
static int upload_vertices(imp_renderer* r, const imp_model* m, char* err, int errsz) {
  int nv = imp_shapes_vertex_count();
  for (int i = 0; i < m->nmesh; i++)
    nv += 3 * m->mesh_facenum[i];
  for (int i = 0; i < m->nhfield; i++)
    nv += imp_hfield_vertex_count(m, i);
  float* v = malloc((size_t)nv * IMP_SHAPE_FLOATS * sizeof(float));
  r->nmesh = m->nmesh;
  r->mesh = calloc((size_t)(m->nmesh > 0 ? m->nmesh : 1), sizeof *r->mesh);
  r->nhfield = m->nhfield;
  r->hfield = calloc((size_t)(m->nhfield > 0 ? m->nhfield : 1), sizeof *r->hfield);
  if (!v || !r->mesh || !r->hfield) {
    free(v);
    snprintf(err, (size_t)errsz, "renderer: out of memory");
    return 0;
  }
  imp_shapes_build(v, r->shape);
  int first = imp_shapes_vertex_count();
  for (int i = 0; i < m->nmesh; i++) {
    r->mesh[i].first = first;
    r->mesh[i].count = 3 * m->mesh_facenum[i];
    const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[i];
    /* the file's texture coordinates per corner; without them x, y in the
       mesh frame (a planar projection, what texuniform also uses) */
    const float* uv = m->mesh_texcoordadr[i] >= 0 ? m->mesh_texcoord + 2 * m->mesh_texcoordadr[i]
                                                  : NULL;
    for (int f = 0; f < m->mesh_facenum[i]; f++) {
      const int* face = m->mesh_face + 3 * (m->mesh_faceadr[i] + f);
      const int* tface = m->mesh_facetexcoord + 3 * (m->mesh_faceadr[i] + f);
      const double *a = vert + 3 * face[0], *b = vert + 3 * face[1], *c = vert + 3 * face[2];
      double n[3];
      imp_triangle_normal(a, b, c, n);
      for (int k = 0; k < 3; k++) {
        const double* p = vert + 3 * face[k];
        float* o = v + (size_t)(first + 3 * f + k) * IMP_SHAPE_FLOATS;
        for (int j = 0; j < 3; j++)
          o[j] = (float)p[j], o[3 + j] = (float)n[j];
        if (uv)
          o[6] = uv[2 * tface[k]], o[7] = uv[2 * tface[k] + 1];
        else
          o[6] = (float)p[0], o[7] = (float)p[1];
      }
    }
    first += r->mesh[i].count;
  }
  for (int i = 0; i < m->nhfield; i++) {
    r->hfield[i].first = first;
    r->hfield[i].count = imp_hfield_build(m, i, v + (size_t)first * IMP_SHAPE_FLOATS);
    first += r->hfield[i].count;
  }
  glGenVertexArrays(1, &r->vao);
  glGenBuffers(1, &r->vbo);
  glBindVertexArray(r->vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)nv * IMP_SHAPE_FLOATS * sizeof(float)), v,
               GL_STATIC_DRAW);
  GLsizei stride = IMP_SHAPE_FLOATS * sizeof(float);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, (void*)0);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride, (void*)(3 * sizeof(float)));
  glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, stride, (void*)(6 * sizeof(float)));
  for (int i = 0; i < 3; i++)
    glEnableVertexAttribArray((GLuint)i);
  free(v);
  return 1;
}

/* A cube or skybox texture as a GL cube map; 0 on failure (err set). */
static GLuint upload_cube(const imp_model* m, int t, char* err, int errsz) {
  int size;
  unsigned char* faces = imp_texture_cube_faces(m, t, &size, err, errsz);
  if (!faces) return 0;
  GLuint id;
  glGenTextures(1, &id);
  glBindTexture(GL_TEXTURE_CUBE_MAP, id);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  for (int f = 0; f < 6; f++) /* right left up down front back: +X -X +Y -Y +Z -Z */
    glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + (GLenum)f, 0, GL_RGB8, size, size, 0, GL_RGB,
                 GL_UNSIGNED_BYTE, faces + (size_t)f * 3 * size * size);
  glGenerateMipmap(GL_TEXTURE_CUBE_MAP);
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  /* clamped, so filtering at a face's edge does not bleed in the opposite edge */
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_WRAP_R, GL_CLAMP_TO_EDGE);
  free(faces);
  return id;
}

/* A gradient skybox is drawn by the sky shader from its two colours, which
   needs no texture and has no seams; any other skybox is a cube map. */
static int is_gradient_sky(const imp_model* m, int t) {
  return m->tex_type[t] == 2 && m->tex_fileadr[t] < 0 && m->tex_builtin[t] == 1;
}

/* 2D textures go to GL with mipmaps, cube and skybox textures as cube maps. */
static int upload_textures(imp_renderer* r, const imp_model* m, char* err, int errsz) {
  r->ntex = m->ntex;
  r->tex = calloc((size_t)(m->ntex > 0 ? m->ntex : 1), sizeof(GLuint));
  if (!r->tex) return snprintf(err, (size_t)errsz, "renderer: out of memory"), 0;
  for (int t = 0; t < m->ntex; t++) {
    if (is_gradient_sky(m, t)) continue;
    /* six separate files are not read yet: no image, so the material's colour */
    if (m->tex_type[t] != 0 && m->tex_fileadr[t] < 0 && m->tex_builtin[t] == 0) continue;
    if (m->tex_type[t] != 0) {
      if (!(r->tex[t] = upload_cube(m, t, err, errsz))) return 0;
      continue;
    }
    int w, h;
    unsigned char* rgb = imp_texture_rgb(m, t, &w, &h, err, errsz);
    if (!rgb) return 0;
    glGenTextures(1, &r->tex[t]);
    glBindTexture(GL_TEXTURE_2D, r->tex[t]);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB8, w, h, 0, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    free(rgb);
  }
  return 1;
}

/* The skybox: the model's first skybox texture, a cube map or the gradient
   rgb1 up, rgb2 down (a builtin gradient); without one a neutral blue-grey. */
static void choose_sky(imp_renderer* r, const imp_model* m) {
  static const float top[3] = {0.45f, 0.55f, 0.65f}, bottom[3] = {0.1f, 0.1f, 0.12f};
  memcpy(r->sky_top, top, sizeof top);
  memcpy(r->sky_bottom, bottom, sizeof bottom);
  memcpy(r->model_sky_top, top, sizeof top);
  memcpy(r->model_sky_bottom, bottom, sizeof bottom);
  for (int t = 0; t < m->ntex; t++)
    if (m->tex_type[t] == 2) {
      memcpy(r->model_sky_top, m->tex_rgb1 + 3 * t, sizeof top);
      memcpy(r->model_sky_bottom, m->tex_rgb2 + 3 * t, sizeof bottom);
      r->has_skybox = 1;
      r->sky_cube = r->tex[t];
      break;
    }
}

static int make_shadow_map(imp_renderer* r, char* err, int errsz) {
  glGenTextures(1, &r->shadow_tex);
  glBindTexture(GL_TEXTURE_2D, r->shadow_tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, IMP_SHADOW_SIZE, IMP_SHADOW_SIZE, 0,
               GL_DEPTH_COMPONENT, GL_FLOAT, NULL);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
  glGenFramebuffers(1, &r->shadow_fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, r->shadow_tex, 0);
  glDrawBuffer(GL_NONE);
  glReadBuffer(GL_NONE);
  int ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (!ok) snprintf(err, (size_t)errsz, "renderer: shadow framebuffer incomplete");
  return ok;
}

/* The context must give us at least 3.3 before anything is compiled. */
static int check_version(char* err, int errsz) {
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor >= 33) return 1;
  const char* v = (const char*)glGetString(GL_VERSION);
  snprintf(err, (size_t)errsz, "renderer: OpenGL 3.3 core needed, the context has %s",
           v ? v : "none (is a context current?)");
  return 0;
}

imp_renderer* imp_render_make(const imp_model* m, char* err, int errsz) {
  if (!check_version(err, errsz)) return NULL;
  imp_renderer* r = calloc(1, sizeof *r);
  if (!r) return snprintf(err, (size_t)errsz, "renderer: out of memory"), NULL;
  r->extent = m->extent;
  imp_render_opt_default(&r->opt);
  r->scene = imp_scene_make(m);
  int ok = r->scene != NULL;
  if (!ok) snprintf(err, (size_t)errsz, "renderer: out of memory");
  ok = ok && imp_gl_build_programs(r, err, errsz);
  ok = ok && upload_vertices(r, m, err, errsz);
  ok = ok && upload_textures(r, m, err, errsz);
  ok = ok && make_shadow_map(r, err, errsz);
  if (!ok) {
    imp_render_free(r);
    return NULL;
  }
  choose_sky(r, m);
  glGenVertexArrays(1, &r->sky_vao);
  imp_font_make(&r->font);
  return r;
}

void imp_render_free(imp_renderer* r) {
  if (!r) return;
  GLuint progs[5] = {r->prog_main, r->prog_depth, r->prog_flat, r->prog_sky, r->prog_text};
  for (int i = 0; i < 5; i++)
    if (progs[i]) glDeleteProgram(progs[i]);
  if (r->vbo) glDeleteBuffers(1, &r->vbo);
  if (r->vao) glDeleteVertexArrays(1, &r->vao);
  if (r->sky_vao) glDeleteVertexArrays(1, &r->sky_vao);
  if (r->tex) glDeleteTextures(r->ntex, r->tex);
  if (r->shadow_tex) glDeleteTextures(1, &r->shadow_tex);
  if (r->shadow_fbo) glDeleteFramebuffers(1, &r->shadow_fbo);
  if (r->pick_fbo) glDeleteFramebuffers(1, &r->pick_fbo);
  if (r->pick_color) glDeleteRenderbuffers(1, &r->pick_color);
  if (r->pick_depth) glDeleteRenderbuffers(1, &r->pick_depth);
  imp_font_free(&r->font);
  imp_scene_free(r->scene);
  free(r->tex);
  free(r->mesh);
  free(r->hfield);
  free(r);
}

const imp_scene* imp_render_scene(const imp_renderer* r) { return r->scene; }
const imp_camera_pose* imp_render_pose(const imp_renderer* r) { return &r->pose; }
