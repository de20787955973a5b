/* A frame of the GL backend: lights, the main light's shadow projection,
 * background, geoms and overlays into the caller's framebuffer; then the
 * pixels read back, and picking by an id pass. See render.h. */
#include <math.h>
#include <string.h>

#include "gl_draw.h"
#include "gl_internal.h"

/* ---- 4x4 helpers (column-major) ---- */

static void mat4_mul(const float* a, const float* b, float* out) {
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      float s = 0;
      for (int k = 0; k < 4; k++)
        s += a[4 * k + r] * b[4 * c + k];
      out[4 * c + r] = s;
    }
}

/* Orthographic box [-h, h]^2 x [n, f] in front of the eye. */
static void mat4_ortho(float h, float n, float f, float* m) {
  memset(m, 0, 16 * sizeof(float));
  m[0] = m[5] = 1 / h;
  m[10] = -2 / (f - n);
  m[14] = -(f + n) / (f - n);
  m[15] = 1;
}

/* ---- lights ---- */

typedef struct light_set {
  int n;
  float pos[IMP_MAX_LIGHTS][3], dir[IMP_MAX_LIGHTS][3], amb[IMP_MAX_LIGHTS][3],
      dif[IMP_MAX_LIGHTS][3], spec[IMP_MAX_LIGHTS][3], att[IMP_MAX_LIGHTS][3];
  int directional[IMP_MAX_LIGHTS];
  float cutoff[IMP_MAX_LIGHTS], exponent[IMP_MAX_LIGHTS];
  int shadow;     /* index of the shadow-casting light, -1 none */
  int shadow_mid; /* its model light id */
} light_set;

static void set3(float* d, const double* s) {
  d[0] = (float)s[0], d[1] = (float)s[1], d[2] = (float)s[2];
}

/* A light's world pose: the engine's light_xpos/light_xdir, which already
   follow the light's MJCF mode (imp_camlight). */
static void light_pose(const imp_data* d, int i, double pos[3], double dir[3]) {
  memcpy(pos, d->light_xpos + 3 * i, 3 * sizeof(double));
  memcpy(dir, d->light_xdir + 3 * i, 3 * sizeof(double));
}

/* The headlight (a directional light along the view, as MuJoCo's) and the
   model's active lights; the main light casts the shadows. */
static void collect_lights(const imp_renderer* r, const imp_model* m, const imp_data* d,
                           const imp_camera_pose* p, light_set* L) {
  memset(L, 0, sizeof *L);
  L->shadow = L->shadow_mid = -1;
  if (m->vis.headlight_active) {
    set3(L->dir[0], p->forward);
    set3(L->amb[0], m->vis.headlight_ambient);
    set3(L->dif[0], m->vis.headlight_diffuse);
    set3(L->spec[0], m->vis.headlight_specular);
    L->directional[0] = 1;
    L->att[0][0] = 1;
    L->n = 1;
  }
  for (int i = 0; i < m->nlight && L->n < IMP_MAX_LIGHTS; i++) {
    if (!m->light_active[i]) continue;
    int k = L->n++;
    double pos[3], dir[3];
    light_pose(d, i, pos, dir);
    set3(L->pos[k], pos);
    set3(L->dir[k], dir);
    memcpy(L->amb[k], m->light_ambient + 3 * i, 3 * sizeof(float));
    memcpy(L->dif[k], m->light_diffuse + 3 * i, 3 * sizeof(float));
    memcpy(L->spec[k], m->light_specular + 3 * i, 3 * sizeof(float));
    memcpy(L->att[k], m->light_attenuation + 3 * i, 3 * sizeof(float));
    L->directional[k] = m->light_directional[i];
    L->cutoff[k] = m->light_cutoff[i];
    L->exponent[k] = m->light_exponent[i];
    /* of the shadow casters, the one pointing most steeply down: its shadows
       fall on the floor next to the bodies, where a viewer looks for them */
    if (m->light_castshadow[i] && (L->shadow < 0 || L->dir[k][2] < L->dir[L->shadow][2]))
      L->shadow = k, L->shadow_mid = i;
  }
}

/* The main light's view-projection: a spot light's cone as a perspective
   frustum (twice its cutoff), a directional light as an orthographic box
   around the model. */
static void shadow_matrix(const imp_renderer* r, const imp_model* m, const imp_data* d, int id,
                          float* vp) {
  imp_camera_pose lp;
  double lpos[3], dir[3];
  light_pose(d, id, lpos, dir);
  double ext = m->extent;
  if (m->light_directional[id]) {
    for (int i = 0; i < 3; i++)
      lp.pos[i] = m->center[i] - 5 * ext * dir[i];
  } else {
    memcpy(lp.pos, lpos, sizeof lp.pos);
  }
  memcpy(lp.forward, dir, sizeof lp.forward);
  /* any up orthogonal to the direction */
  double h[3] = {0, 0, 0};
  h[fabs(dir[2]) < 0.9 ? 2 : 0] = 1;
  lp.right[0] = dir[1] * h[2] - dir[2] * h[1];
  lp.right[1] = dir[2] * h[0] - dir[0] * h[2];
  lp.right[2] = dir[0] * h[1] - dir[1] * h[0];
  double n =
      sqrt(lp.right[0] * lp.right[0] + lp.right[1] * lp.right[1] + lp.right[2] * lp.right[2]);
  for (int i = 0; i < 3; i++)
    lp.right[i] /= n;
  lp.up[0] = lp.right[1] * dir[2] - lp.right[2] * dir[1];
  lp.up[1] = lp.right[2] * dir[0] - lp.right[0] * dir[2];
  lp.up[2] = lp.right[0] * dir[1] - lp.right[1] * dir[0];
  lp.znear = 0.02 * ext;
  lp.zfar = 50 * ext;
  lp.fovy = fmin(160, fmax(10, 2 * m->light_cutoff[id]));
  lp.has_window = 0;
  float view[16], proj[16];
  imp_camera_view_matrix(&lp, view);
  if (m->light_directional[id])
    mat4_ortho((float)(2 * ext), 0.0f, (float)(10 * ext), proj);
  else
    imp_camera_projection_matrix(&lp, 1.0, proj);
  mat4_mul(proj, view, vp);
}

static void upload_lights(imp_renderer* r, const light_set* L, int shadowed) {
  const imp_main_uniforms* u = &r->u;
  glUniform1i(u->nlight, L->n);
  glUniform3fv(u->lpos, L->n, &L->pos[0][0]);
  glUniform3fv(u->ldir, L->n, &L->dir[0][0]);
  glUniform3fv(u->lamb, L->n, &L->amb[0][0]);
  glUniform3fv(u->ldif, L->n, &L->dif[0][0]);
  glUniform3fv(u->lspec, L->n, &L->spec[0][0]);
  glUniform3fv(u->latt, L->n, &L->att[0][0]);
  glUniform1iv(u->ldirectional, L->n, L->directional);
  glUniform1fv(u->lcutoff, L->n, L->cutoff);
  glUniform1fv(u->lexp, L->n, L->exponent);
  glUniform1i(u->use_shadow, shadowed);
  glUniform1i(u->shadow_light, L->shadow);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, r->shadow_tex);
  glUniform1i(u->shadow, 1);
  glUniform1i(u->tex, 0);
  glUniform1i(u->cube, 2); /* samplers of different types may not share a unit */
  glActiveTexture(GL_TEXTURE0);
}

/* ---- background ---- */

static void draw_sky(imp_renderer* r) {
  const imp_camera_pose* p = &r->pose;
  int model_sky = r->has_skybox && (r->opt.flags & IMP_VIS_SKYBOX);
  float f[3], rt[3], up[3], t = (float)tan(0.5 * p->fovy * 3.14159265358979 / 180);
  float tn[2] = {t * (float)r->width / (float)r->height, t};
  set3(f, p->forward), set3(rt, p->right), set3(up, p->up);
  if (p->has_window) { /* a sensor's window, maybe off-centre: aim at its centre */
    const double* w = p->window;
    double fc[3];
    for (int i = 0; i < 3; i++)
      fc[i] = p->forward[i] + 0.5 * (w[0] + w[1]) * p->right[i] + 0.5 * (w[2] + w[3]) * p->up[i];
    set3(f, fc);
    tn[0] = (float)(0.5 * (w[1] - w[0]));
    tn[1] = (float)(0.5 * (w[3] - w[2]));
  }
  glUseProgram(r->prog_sky);
  glUniform3fv(glGetUniformLocation(r->prog_sky, "u_fwd"), 1, f);
  glUniform3fv(glGetUniformLocation(r->prog_sky, "u_right"), 1, rt);
  glUniform3fv(glGetUniformLocation(r->prog_sky, "u_up"), 1, up);
  glUniform2fv(glGetUniformLocation(r->prog_sky, "u_tan"), 1, tn);
  glUniform3fv(glGetUniformLocation(r->prog_sky, "u_top"), 1,
               model_sky ? r->model_sky_top : r->sky_top);
  glUniform3fv(glGetUniformLocation(r->prog_sky, "u_bottom"), 1,
               model_sky ? r->model_sky_bottom : r->sky_bottom);
  int cube = model_sky && r->sky_cube != 0;
  glUniform1i(glGetUniformLocation(r->prog_sky, "u_use_cube"), cube);
  glUniform1i(glGetUniformLocation(r->prog_sky, "u_sky"), 0);
  if (cube) {
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_CUBE_MAP, r->sky_cube);
  }
  glDisable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);
  glBindVertexArray(r->sky_vao);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glDepthMask(GL_TRUE);
  glEnable(GL_DEPTH_TEST);
  glBindVertexArray(r->vao);
}

/* ---- a frame ---- */

static void update_scene(imp_renderer* r, const imp_model* m, const imp_data* d) {
  r->scene->groupmask_geom = r->opt.geomgroup;
  r->scene->groupmask_site = r->opt.sites ? r->opt.sitegroup : 0;
  imp_scene_update(m, d, r->scene);
  imp_decor_opt dec = {r->opt.flags, r->opt.force_scale, r->opt.perturb};
  imp_scene_decorate(m, d, &dec, r->scene);
}

static void set_camera(imp_renderer* r, const imp_model* m, const imp_data* d, imp_camera* cam,
                       int width, int height) {
  imp_camera_pose_compute(m, d, cam, &r->pose); /* model cameras: the engine's modes */
  imp_camera_view_matrix(&r->pose, r->view);
  imp_camera_projection_matrix(&r->pose, (double)width / height, r->proj);
  r->width = width;
  r->height = height;
}

void imp_render_frame(imp_renderer* r, const imp_model* m, const imp_data* d, imp_camera* cam,
                      const imp_render_opt* opt, int width, int height) {
  GLint target = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
  r->opt = *opt;
  update_scene(r, m, d);
  set_camera(r, m, d, cam, width, height);
  light_set L;
  collect_lights(r, m, d, &r->pose, &L);
  glBindVertexArray(r->vao);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  if (opt->multisample)
    glEnable(GL_MULTISAMPLE);
  else
    glDisable(GL_MULTISAMPLE);
  int shadowed = (opt->flags & IMP_VIS_SHADOW) && L.shadow >= 0;
  if (shadowed) {
    shadow_matrix(r, m, d, L.shadow_mid, r->light_vp);
    imp_gl_draw_shadow_pass(r, m);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target);
  glViewport(0, 0, width, height);
  glClear(GL_DEPTH_BUFFER_BIT);
  draw_sky(r);
  glUseProgram(r->prog_main);
  glUniformMatrix4fv(r->u.view, 1, GL_FALSE, r->view);
  glUniformMatrix4fv(r->u.proj, 1, GL_FALSE, r->proj);
  glUniformMatrix4fv(r->u.light_vp, 1, GL_FALSE, r->light_vp);
  float eye[3];
  set3(eye, r->pose.pos);
  glUniform3fv(r->u.eye, 1, eye);
  upload_lights(r, &L, shadowed);
  imp_gl_draw_geoms(r, m);
  imp_gl_draw_decor(r);
}

/* ---- pixels ---- */

/* GL's rows run bottom-up; swap them in place so the top row comes first. */
static void flip_rows(unsigned char* rgb, int width, int height) {
  size_t row = (size_t)width * 3;
  for (int j = 0; j < height / 2; j++) {
    unsigned char *a = rgb + row * (size_t)j, *b = rgb + row * (size_t)(height - 1 - j);
    for (size_t k = 0; k < row; k++) {
      unsigned char t = a[k];
      a[k] = b[k], b[k] = t;
    }
  }
}

void imp_render_read_rgb(imp_renderer* r, unsigned char* rgb, int width, int height) {
  (void)r;
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb);
  flip_rows(rgb, width, height);
}

/* ---- picking ---- */

/* The id framebuffer, at the size of the last frame (remade when it changes:
   only on a click, never in the frame loop). */
static void ensure_pick_buffer(imp_renderer* r) {
  if (r->pick_fbo && r->pick_w == r->width && r->pick_h == r->height) return;
  if (!r->pick_fbo) {
    glGenFramebuffers(1, &r->pick_fbo);
    glGenRenderbuffers(1, &r->pick_color);
    glGenRenderbuffers(1, &r->pick_depth);
  }
  glBindRenderbuffer(GL_RENDERBUFFER, r->pick_color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, r->width, r->height);
  glBindRenderbuffer(GL_RENDERBUFFER, r->pick_depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, r->width, r->height);
  glBindFramebuffer(GL_FRAMEBUFFER, r->pick_fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->pick_color);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->pick_depth);
  r->pick_w = r->width, r->pick_h = r->height;
}

int imp_render_select(imp_renderer* r, const imp_model* m, const imp_data* d, double x, double y,
                      int* geomid, double point[3]) {
  if (r->width <= 0 || x < 0 || y < 0 || x >= r->width || y >= r->height) return -1;
  (void)d;
  GLint target = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
  ensure_pick_buffer(r);
  glBindFramebuffer(GL_FRAMEBUFFER, r->pick_fbo);
  glViewport(0, 0, r->width, r->height);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glBindVertexArray(r->vao);
  imp_gl_draw_ids(r, m);
  unsigned char c[4] = {0, 0, 0, 0};
  float depth = 1;
  int px = (int)x, py = r->height - 1 - (int)y;
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(px, py, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, c);
  glReadPixels(px, py, 1, 1, GL_DEPTH_COMPONENT, GL_FLOAT, &depth);
  glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target);
  int g = (c[0] | c[1] << 8 | c[2] << 16) - 1;
  if (g < 0 || g >= m->ngeom) return -1;
  if (geomid) *geomid = g;
  if (point) {
    /* window depth -> distance along the view axis (inverse of the perspective
       depth mapping), then along the ray through the pixel */
    double n = r->pose.znear, f = r->pose.zfar, zn = 2.0 * depth - 1.0;
    double z = 2 * f * n / (f + n - zn * (f - n));
    double o[3], dir[3];
    imp_camera_ray(&r->pose, r->width, r->height, x, y, o, dir);
    double cosang =
        dir[0] * r->pose.forward[0] + dir[1] * r->pose.forward[1] + dir[2] * r->pose.forward[2];
    for (int i = 0; i < 3; i++)
      point[i] = o[i] + dir[i] * z / cosang;
  }
  int b = m->geom_bodyid[g];
  return b > 0 ? b : -1;
}
