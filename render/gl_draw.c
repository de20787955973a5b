/* Draw passes of the GL backend; see gl_draw.h.
 *
 * Every geom is a unit shape (shapes.c) scaled and placed: sphere (r r r),
 * ellipsoid (a b c), box (half sizes), cylinder (r r half-length), capsule a
 * cylinder and two spheres at its ends, plane [-1, 1]^2 scaled by its half
 * sizes (an infinite plane, size 0, by 10 model extents), a mesh as loaded. */
#include "gl_draw.h"

#include <math.h>
#include <string.h>

void imp_gl_model_matrix(const float* R, const float* p, const float* s, float M[16], float N[9]) {
  for (int c = 0; c < 3; c++) {
    for (int r = 0; r < 3; r++) {
      M[4 * c + r] = R[3 * r + c] * s[c];
      if (N) N[3 * c + r] = R[3 * r + c] / (s[c] != 0 ? s[c] : 1);
    }
    M[4 * c + 3] = 0;
  }
  M[12] = p[0], M[13] = p[1], M[14] = p[2], M[15] = 1;
}

/* p + R * (0, 0, z): a point on the geom's z axis */
static void on_axis(const float* R, const float* p, float z, float out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = p[i] + R[3 * i + 2] * z;
}

/* One part of a drawable: a unit shape range with a scale and an offset along z. */
typedef struct part {
  imp_shape_range range;
  float scale[3];
  float zoff;
} part;

/* The parts a drawable is made of (at most 3: a capsule). */
static int drawable_parts(const imp_renderer* r, const imp_model* m, const imp_drawable* dr,
                          part out[3]) {
  const float* s = dr->size;
  part p = {r->shape[IMP_SHAPE_SPHERE], {s[0], s[0], s[0]}, 0};
  switch (dr->shape) {
    case IMP_GEOM_PLANE: {
      float big = (float)(10 * r->extent);
      p.range = r->shape[IMP_SHAPE_PLANE];
      p.scale[0] = s[0] > 0 ? s[0] : big, p.scale[1] = s[1] > 0 ? s[1] : big, p.scale[2] = 1;
      break;
    }
    case IMP_GEOM_CAPSULE:
      out[1] = p, out[1].zoff = s[1];
      out[2] = p, out[2].zoff = -s[1];
      p.range = r->shape[IMP_SHAPE_CYLINDER];
      p.scale[2] = s[1];
      out[0] = p;
      return 3;
    case IMP_GEOM_ELLIPSOID:
      memcpy(p.scale, s, sizeof p.scale);
      break;
    case IMP_GEOM_CYLINDER:
      p.range = r->shape[IMP_SHAPE_CYLINDER];
      p.scale[2] = s[1];
      break;
    case IMP_GEOM_BOX:
      p.range = r->shape[IMP_SHAPE_BOX];
      memcpy(p.scale, s, sizeof p.scale);
      break;
    case IMP_GEOM_MESH: {
      int id = dr->kind == IMP_DRAW_GEOM ? m->geom_dataid[dr->objid] : -1;
      if (id < 0 || id >= r->nmesh) return 0;
      p.range = r->mesh[id];
      p.scale[0] = p.scale[1] = p.scale[2] = 1;
      break;
    }
    default: /* sphere */
      break;
  }
  out[0] = p;
  return 1;
}

/* Set u_model (and u_nmat, u_scale when given) for one part. */
static void set_part_matrix(const imp_drawable* dr, const part* p, GLint u_model, GLint u_nmat,
                            GLint u_scale) {
  float M[16], N[9], c[3];
  on_axis(dr->mat, dr->pos, p->zoff, c);
  imp_gl_model_matrix(dr->mat, c, p->scale, M, N);
  glUniformMatrix4fv(u_model, 1, GL_FALSE, M);
  if (u_nmat >= 0) glUniformMatrix3fv(u_nmat, 1, GL_FALSE, N);
  if (u_scale >= 0) glUniform3fv(u_scale, 1, p->scale);
}

void imp_gl_draw_shadow_pass(imp_renderer* r, const imp_model* m) {
  glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
  glViewport(0, 0, IMP_SHADOW_SIZE, IMP_SHADOW_SIZE);
  glClear(GL_DEPTH_BUFFER_BIT);
  glUseProgram(r->prog_depth);
  glUniformMatrix4fv(glGetUniformLocation(r->prog_depth, "u_light_vp"), 1, GL_FALSE, r->light_vp);
  GLint u_model = glGetUniformLocation(r->prog_depth, "u_model");
  /* the slope-scaled offset keeps lit surfaces from shadowing themselves (acne) */
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(2.0f, 4.0f);
  for (int i = 0; i < r->scene->ndrawable; i++) {
    const imp_drawable* dr = &r->scene->drawables[i];
    if (dr->shape == IMP_GEOM_PLANE || dr->rgba[3] < 0.5f) continue; /* floors receive, not cast */
    part parts[3];
    int n = drawable_parts(r, m, dr, parts);
    for (int k = 0; k < n; k++) {
      set_part_matrix(dr, &parts[k], u_model, -1, -1);
      glDrawArrays(GL_TRIANGLES, parts[k].range.first, parts[k].range.count);
    }
  }
  glDisable(GL_POLYGON_OFFSET_FILL);
}

/* The selected body's geoms glow a little, so the user sees what is grabbed. */
static int is_selected(const imp_renderer* r, const imp_model* m, const imp_drawable* dr) {
  if (dr->kind == IMP_DRAW_TENDON) return 0; /* tendons belong to no body */
  int b = dr->kind == IMP_DRAW_GEOM ? m->geom_bodyid[dr->objid] : m->site_bodyid[dr->objid];
  return r->opt.selected_body > 0 && b == r->opt.selected_body;
}

static void set_material(imp_renderer* r, const imp_model* m, const imp_drawable* dr, float alpha) {
  const imp_main_uniforms* u = &r->u;
  int mat = dr->matid, tex = mat >= 0 ? m->mat_texid[mat] : -1;
  int selected = is_selected(r, m, dr);
  float rgba[4] = {dr->rgba[0], dr->rgba[1], dr->rgba[2], dr->rgba[3] * alpha};
  glUniform4fv(u->rgba, 1, rgba);
  glUniform1f(u->specular, mat >= 0 ? m->mat_specular[mat] : 0.5f);
  glUniform1f(u->shininess, mat >= 0 ? m->mat_shininess[mat] : 0.5f);
  glUniform1f(u->emission, (mat >= 0 ? m->mat_emission[mat] : 0.0f) + (selected ? 0.5f : 0.0f));
  int use = tex >= 0 && tex < r->ntex && r->tex[tex] != 0;
  int cube = use && m->tex_type[tex] != 0;
  glUniform1i(u->use_tex, cube ? 2 : use);
  if (cube) {
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_CUBE_MAP, r->tex[tex]);
    glActiveTexture(GL_TEXTURE0);
  } else if (use) {
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->tex[tex]);
    glUniform2fv(u->texrepeat, 1, m->mat_texrepeat + 2 * mat);
    glUniform1i(u->texuniform, m->mat_texuniform[mat]);
  }
}

static void draw_lit(imp_renderer* r, const imp_model* m, const imp_drawable* dr, float alpha) {
  part parts[3];
  int n = drawable_parts(r, m, dr, parts);
  set_material(r, m, dr, alpha);
  for (int k = 0; k < n; k++) {
    set_part_matrix(dr, &parts[k], r->u.model, r->u.nmat, r->u.scale);
    glDrawArrays(GL_TRIANGLES, parts[k].range.first, parts[k].range.count);
  }
}

/* Opaque geoms first, then the translucent ones blended over them without
   writing depth, so they do not hide each other. */
void imp_gl_draw_geoms(imp_renderer* r, const imp_model* m) {
  int transparent = (r->opt.flags & IMP_VIS_TRANSPARENT) != 0;
  float alpha = transparent ? r->opt.alpha : 1.0f;
  if (r->opt.flags & IMP_VIS_WIREFRAME) glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      glEnable(GL_BLEND);
      glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      glDepthMask(GL_FALSE);
      /* only the near side of a closed shape: its far side would darken the
         blend a second time (shapes and meshes are wound CCW outward) */
      glEnable(GL_CULL_FACE);
      glCullFace(GL_BACK);
    }
    for (int i = 0; i < r->scene->ndrawable; i++) {
      const imp_drawable* dr = &r->scene->drawables[i];
      float a = dr->shape == IMP_GEOM_PLANE ? 1.0f : alpha; /* the floor stays solid */
      int translucent = dr->rgba[3] * a < 1.0f;
      if (translucent == pass) draw_lit(r, m, dr, a);
    }
  }
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
}

/* A frame whose z axis runs from a to b: rotation (row-major) and length. */
static float axis_frame(const float* a, const float* b, float R[9]) {
  float z[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  float len = sqrtf(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
  if (len < 1e-9f)
    z[0] = 0, z[1] = 0, z[2] = 1, len = 0;
  else
    z[0] /= len, z[1] /= len, z[2] /= len;
  /* x: any unit vector orthogonal to z, from the world axis least aligned with it */
  float h[3] = {0, 0, 0};
  h[fabsf(z[0]) < 0.6f ? 0 : (fabsf(z[1]) < 0.6f ? 1 : 2)] = 1;
  float x[3] = {h[1] * z[2] - h[2] * z[1], h[2] * z[0] - h[0] * z[2], h[0] * z[1] - h[1] * z[0]};
  float xn = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  for (int i = 0; i < 3; i++)
    x[i] /= xn;
  float y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]};
  for (int i = 0; i < 3; i++)
    R[3 * i] = x[i], R[3 * i + 1] = y[i], R[3 * i + 2] = z[i];
  return len;
}

static void draw_flat_shape(GLint u_model, const imp_shape_range* rg, const float* R,
                            const float* p, const float* s) {
  float M[16];
  imp_gl_model_matrix(R, p, s, M, NULL);
  glUniformMatrix4fv(u_model, 1, GL_FALSE, M);
  glDrawArrays(GL_TRIANGLES, rg->first, rg->count);
}

/* An arrow: a shaft up to the head (a cone 4 shaft radii wide, at most half the length). */
static void draw_arrow(imp_renderer* r, GLint u_model, const imp_decor* dc, const float* R,
                       float len) {
  float head = fminf(6 * dc->radius, 0.5f * len), shaft = len - head;
  float c[3], tip[3];
  for (int i = 0; i < 3; i++)
    c[i] = dc->from[i] + R[3 * i + 2] * 0.5f * shaft;
  for (int i = 0; i < 3; i++)
    tip[i] = dc->from[i] + R[3 * i + 2] * shaft;
  float s1[3] = {dc->radius, dc->radius, 0.5f * shaft},
        s2[3] = {2 * dc->radius, 2 * dc->radius, head};
  draw_flat_shape(u_model, &r->shape[IMP_SHAPE_CYLINDER], R, c, s1);
  draw_flat_shape(u_model, &r->shape[IMP_SHAPE_CONE], R, tip, s2);
}

void imp_gl_draw_decor(imp_renderer* r) {
  glUseProgram(r->prog_flat);
  GLint u_model = glGetUniformLocation(r->prog_flat, "u_model");
  GLint u_rgba = glGetUniformLocation(r->prog_flat, "u_rgba");
  glUniformMatrix4fv(glGetUniformLocation(r->prog_flat, "u_view"), 1, GL_FALSE, r->view);
  glUniformMatrix4fv(glGetUniformLocation(r->prog_flat, "u_proj"), 1, GL_FALSE, r->proj);
  glDisable(GL_DEPTH_TEST); /* overlays show through the bodies they belong to */
  for (int i = 0; i < r->scene->ndecor; i++) {
    const imp_decor* dc = &r->scene->decor[i];
    float R[9], len = axis_frame(dc->from, dc->to, R), mid[3];
    glUniform4fv(u_rgba, 1, dc->rgba);
    for (int k = 0; k < 3; k++)
      mid[k] = 0.5f * (dc->from[k] + dc->to[k]);
    float rr = dc->radius, ball[3] = {rr, rr, rr};
    float seg[3] = {rr, rr, 0.5f * len}, disc[3] = {rr, rr, len};
    switch (dc->kind) {
      case IMP_DECOR_ARROW:
        draw_arrow(r, u_model, dc, R, len);
        break;
      case IMP_DECOR_SEGMENT:
        draw_flat_shape(u_model, &r->shape[IMP_SHAPE_CYLINDER], R, mid, seg);
        break;
      case IMP_DECOR_DISC:
        draw_flat_shape(u_model, &r->shape[IMP_SHAPE_CYLINDER], R, dc->from, disc);
        break;
      default:
        draw_flat_shape(u_model, &r->shape[IMP_SHAPE_SPHERE], R, dc->from, ball);
        break;
    }
  }
  glEnable(GL_DEPTH_TEST);
}

void imp_gl_draw_ids(imp_renderer* r, const imp_model* m) {
  glUseProgram(r->prog_flat);
  GLint u_model = glGetUniformLocation(r->prog_flat, "u_model");
  GLint u_rgba = glGetUniformLocation(r->prog_flat, "u_rgba");
  glUniformMatrix4fv(glGetUniformLocation(r->prog_flat, "u_view"), 1, GL_FALSE, r->view);
  glUniformMatrix4fv(glGetUniformLocation(r->prog_flat, "u_proj"), 1, GL_FALSE, r->proj);
  for (int i = 0; i < r->scene->ndrawable; i++) {
    const imp_drawable* dr = &r->scene->drawables[i];
    if (dr->kind != IMP_DRAW_GEOM) continue;
    /* id + 1 in 24 bits of colour: 0 means nothing */
    int id = dr->objid + 1;
    float c[4] = {(id & 255) / 255.0f, ((id >> 8) & 255) / 255.0f, ((id >> 16) & 255) / 255.0f, 1};
    glUniform4fv(u_rgba, 1, c);
    part parts[3];
    int n = drawable_parts(r, m, dr, parts);
    for (int k = 0; k < n; k++) {
      set_part_matrix(dr, &parts[k], u_model, -1, -1);
      glDrawArrays(GL_TRIANGLES, parts[k].range.first, parts[k].range.count);
    }
  }
}
