/* The scene's objects and assets copied into the model: cameras and lights
 * (with their target bodies and camera intrinsics), materials (with the
 * texture each names, resolved by ld_compile), textures, meshes (vertices,
 * faces, hull, texture coordinates and file path) and height fields
 * (elevations). Every reference
 * but the cameras' and lights' target bodies was checked before. */
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"

/* The body a camera or light of this mode follows: its target in the
   target modes (3 and 4), -1 otherwise; a target mode without a target
   stays fixed, as in current MuJoCo (Menagerie's trossen_wxai has one). */
static int target_body(ld_ctx* c, int mode, const char* target, const char* file, int line) {
  if (mode < 3 || !target) return -1;
  return ld_named_id(c, &c->bodies, "body", target, file, line);
}

/* Mesh i's texture coordinates at *ta (its faces at fa), or -1 adr and
   -1 corners when it has none. */
static void copy_texcoords(imp_model* m, const ld_mesh* me, int i, int fa, int* ta) {
  m->mesh_texcoordnum[i] = me->ntexcoord;
  m->mesh_texcoordadr[i] = me->ntexcoord ? *ta : -1;
  int* corners = m->mesh_facetexcoord + 3 * fa;
  if (!me->ntexcoord) {
    for (int k = 0; k < 3 * me->nface; k++) corners[k] = -1;
    return;
  }
  memcpy(m->mesh_texcoord + 2 * *ta, me->texcoord, sizeof(float) * 2 * (size_t)me->ntexcoord);
  memcpy(corners, me->facetexcoord, sizeof(int) * 3 * (size_t)me->nface);
  *ta += me->ntexcoord;
}

/* A geom that draws a mesh with a 2D texture while the mesh's file named
   texture coordinates for only some face corners (so none were kept):
   the picture would not be where the file says, so say so. */
static void warn_partial_texcoords(ld_ctx* c, const imp_model* m) {
  for (int g = 0; g < m->ngeom; g++) {
    int mat = m->geom_matid[g], mesh = m->geom_dataid[g];
    if (m->geom_type[g] != IMP_GEOM_MESH || mesh < 0 || mat < 0) continue;
    int tex = m->mat_texid[mat];
    const ld_mesh* me = LD_AT(c->meshes, ld_mesh, mesh);
    if (tex < 0 || m->tex_type[tex] != 0 || !me->texcoord_missing) continue;
    char key[1100];
    snprintf(key, sizeof key, "texcoord:%s", me->path); /* once a file */
    ld_warning(c, key, me->file, me->line,
               "mesh '%s' (file '%s'): %d face corners have no texture coordinate, so none are "
               "used and its texture is drawn by a planar projection",
               me->name, me->path, me->texcoord_missing);
  }
}

void ld_put_scene_assets(ld_ctx* c, imp_model* m, const int* mattex) {
  /* ---- cameras and lights ---- */
  for (int i = 0; i < m->ncam; i++) {
    ld_camera* s = LD_AT(c->cameras, ld_camera, i);
    m->cam_bodyid[i] = s->body;
    m->cam_mode[i] = s->mode;
    m->cam_targetbodyid[i] = target_body(c, s->mode, s->target, s->file, s->line);
    imp_copy(m->cam_pos + 3 * i, s->pos, 3);
    imp_copy(m->cam_quat + 4 * i, s->quat, 4);
    m->cam_fovy[i] = s->fovy;
    ld_camera_intrinsics(c, s, m->cam_resolution + 2 * i, m->cam_sensorsize + 2 * i,
                         m->cam_intrinsic + 4 * i, m->cam_fovy + i);
  }
  for (int i = 0; i < m->nlight; i++) {
    ld_light* s = LD_AT(c->lights, ld_light, i);
    m->light_bodyid[i] = s->body;
    m->light_mode[i] = s->mode;
    m->light_targetbodyid[i] = target_body(c, s->mode, s->target, s->file, s->line);
    m->light_directional[i] = s->directional;
    m->light_castshadow[i] = s->castshadow;
    m->light_active[i] = s->active;
    imp_copy(m->light_pos + 3 * i, s->pos, 3);
    imp_copy(m->light_dir + 3 * i, s->dir, 3);
    memcpy(m->light_attenuation + 3 * i, s->attenuation, sizeof s->attenuation);
    m->light_cutoff[i] = s->cutoff;
    m->light_exponent[i] = s->exponent;
    memcpy(m->light_ambient + 3 * i, s->ambient, sizeof s->ambient);
    memcpy(m->light_diffuse + 3 * i, s->diffuse, sizeof s->diffuse);
    memcpy(m->light_specular + 3 * i, s->specular, sizeof s->specular);
  }

  /* ---- materials and textures ---- */
  for (int i = 0; i < m->nmat; i++) {
    ld_material* s = LD_AT(c->materials, ld_material, i);
    m->mat_texid[i] = mattex[i];
    m->mat_texuniform[i] = s->texuniform;
    memcpy(m->mat_texrepeat + 2 * i, s->texrepeat, sizeof s->texrepeat);
    m->mat_emission[i] = s->emission;
    m->mat_specular[i] = s->specular;
    m->mat_shininess[i] = s->shininess;
    m->mat_reflectance[i] = s->reflectance;
    memcpy(m->mat_rgba + 4 * i, s->rgba, sizeof s->rgba);
  }
  int pa = 0;
  for (int i = 0; i < m->ntex; i++) {
    ld_texture* s = LD_AT(c->textures, ld_texture, i);
    m->tex_type[i] = s->type;
    m->tex_builtin[i] = s->builtin;
    m->tex_width[i] = s->width;
    m->tex_height[i] = s->height;
    m->tex_fileadr[i] = -1;
    if (s->path) {
      m->tex_fileadr[i] = pa;
      size_t n = strlen(s->path) + 1;
      memcpy(m->paths + pa, s->path, n);
      pa += (int)n;
    }
    memcpy(m->tex_rgb1 + 3 * i, s->rgb1, sizeof s->rgb1);
    memcpy(m->tex_rgb2 + 3 * i, s->rgb2, sizeof s->rgb2);
    memcpy(m->tex_markrgb + 3 * i, s->markrgb, sizeof s->markrgb);
    m->tex_mark[i] = s->mark;
    m->tex_random[i] = s->random;
    memcpy(m->tex_gridsize + 2 * i, s->gridsize, sizeof s->gridsize);
    memcpy(m->tex_gridlayout + 13 * i, s->gridlayout, 13);
  }

  /* ---- meshes ---- */
  int va = 0, fa = 0, ha = 0, ta = 0, ga = 0;
  for (int i = 0; i < m->nmesh; i++) {
    const ld_mesh* me = LD_AT(c->meshes, ld_mesh, i);
    m->mesh_vertadr[i] = va;
    m->mesh_vertnum[i] = me->nvert;
    m->mesh_faceadr[i] = fa;
    m->mesh_facenum[i] = me->nface;
    m->mesh_hulladr[i] = ha;
    m->mesh_hullnum[i] = me->nhull;
    imp_copy(m->mesh_vert + 3 * va, me->vert, 3 * me->nvert);
    memcpy(m->mesh_face + 3 * fa, me->face, sizeof(int) * 3 * (size_t)me->nface);
    memcpy(m->mesh_hull + ha, me->hull, sizeof(int) * (size_t)me->nhull);
    m->mesh_graphadr[i] = me->ngraph ? ga : -1;
    if (me->ngraph) memcpy(m->mesh_graph + ga, me->graph, sizeof(int) * (size_t)me->ngraph);
    ga += me->ngraph;
    copy_texcoords(m, me, i, fa, &ta);
    va += me->nvert;
    fa += me->nface;
    ha += me->nhull;
    m->mesh_pathadr[i] = pa;
    size_t n = strlen(me->path) + 1;
    memcpy(m->paths + pa, me->path, n);
    pa += (int)n;
  }

  /* ---- height fields ---- */
  int hadr = 0;
  for (int i = 0; i < m->nhfield; i++) {
    const ld_hfield* h = LD_AT(c->hfields, ld_hfield, i);
    imp_copy(m->hfield_size + 4 * i, h->size, 4);
    m->hfield_nrow[i] = h->nrow;
    m->hfield_ncol[i] = h->ncol;
    m->hfield_adr[i] = hadr;
    memcpy(m->hfield_data + hadr, h->data, sizeof(float) * (size_t)h->nrow * (size_t)h->ncol);
    hadr += h->nrow * h->ncol;
  }
  warn_partial_texcoords(c, m);
}
