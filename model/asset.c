/* <asset>: textures, materials, meshes, height fields (hfield.c).
 *
 * Naming as the MJCF reference says: a mesh, an hfield or a texture read
 * from one file may go without a name and is then named after that file,
 * without directory and extension ("assets/wood.grain.png" -> "wood.grain").
 * Measured on MuJoCo 2.2.2 and copied: names given in the file must be
 * unique, names taken from file names are not checked (two skyboxes of one
 * image load), and a reference finds the first asset of a name. MuJoCo
 * refuses a texture left without any name unless it is a skybox; we load it
 * with a warning, since nothing is lost but the means to refer to it.
 * Meshes are read as their element is parsed (mesh.c), so their errors
 * carry its file and line. */
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "loader.h"
#include "core/mathx.h"

/* the file name without directory and extension: the default asset name */
static const char* file_stem(ld_ctx* c, const char* path) {
  const char* slash = strrchr(path, '/');
  const char* base = slash ? slash + 1 : path;
  char* s = (char*)ld_strdup(c, base);
  char* dot = strrchr(s, '.');
  if (dot && dot != s) *dot = 0;
  return s;
}

/* name="" counts as no name, as in MuJoCo */
static const char* asset_name(ld_node* n) {
  const char* s = ld_attr_str(n, "name");
  return s && s[0] ? s : NULL;
}

void ld_read_mesh_attrs(ld_ctx* c, ld_node* n, double scale[3], int* inertia, int* maxhullvert) {
  static const char* const modes[] = {"convex", "exact", "legacy", "shell", NULL};
  ld_attr_nums(c, n, "scale", scale, 3, 3);
  ld_attr_keyword(c, n, "inertia", modes, inertia);
  /* MJCF reference, asset/mesh/maxhullvert: "-1 means unlimited. Positive
     values must be larger than 3"; MuJoCo refuses every other value */
  if (ld_attr_int(c, n, "maxhullvert", maxhullvert) && *maxhullvert != -1 && *maxhullvert < 4)
    ld_error(c, n->file, n->line,
             "attribute 'maxhullvert' of '%s': %d; it must be -1 (no limit) or larger than 3",
             n->name, *maxhullvert);
}

static void parse_mesh(ld_ctx* c, ld_node* n) {
  static const char* const ok[] = {"smoothnormal", "content_type", NULL};
  const char* cls = ld_attr_str(n, "class");
  ld_class* cl = LD_AT(c->classes, ld_class, cls ? ld_find_class(c, n, cls) : 0);
  ld_mesh* me = ld_push(c, &c->meshes);
  me->file = n->file;
  me->line = n->line;
  imp_copy(me->scale, cl->mesh_scale, 3);
  me->inertia_mode = cl->mesh_inertia;
  me->maxhullvert = cl->mesh_maxhullvert;
  ld_read_mesh_attrs(c, n, me->scale, &me->inertia_mode, &me->maxhullvert);
  me->refquat[0] = 1; /* refpos 0: ld_push zeroes the new element */
  ld_attr_nums(c, n, "refpos", me->refpos, 3, 3);
  ld_attr_nums(c, n, "refquat", me->refquat, 4, 4);
  const char* f = ld_attr_str(n, "file");
  me->name = asset_name(n);
  ld_accept(n, ok);
  ld_warn_unused(c, n);
  if (!f) ld_error(c, n->file, n->line, "mesh without a file (inline vertex data is not supported yet)");
  if (!me->name) me->name = file_stem(c, f), me->autoname = 1;
  me->path = ld_join_path(c, c->meshdir ? c->meshdir : c->dir, f);
  for (int i = 0; i < 3; i++)
    if (!isfinite(me->scale[i]) || me->scale[i] == 0)
      ld_error(c, n->file, n->line, "mesh '%s': scale must be finite and non-zero", me->name);
  double qn = 0;
  for (int i = 0; i < 4; i++) qn += me->refquat[i] * me->refquat[i];
  for (int i = 0; i < 3; i++)
    if (!isfinite(me->refpos[i]) || !(qn > 1e-20 && isfinite(qn)))
      ld_error(c, n->file, n->line,
               "mesh '%s': refpos must be finite and refquat a finite non-zero quaternion",
               me->name);
  ld_mesh_load(c, me);
}

/* gridsize and gridlayout: how a cube or skybox file's faces are laid out
   in one image; 1 x 1 (the default) repeats the image on every face. */
static void parse_texture_grid(ld_ctx* c, ld_node* n, ld_texture* t) {
  double g[2] = {1, 1};
  ld_attr_nums(c, n, "gridsize", g, 2, 2);
  if (!(g[0] >= 1 && g[1] >= 1 && g[0] * g[1] <= 12))
    ld_error(c, n->file, n->line, "gridsize must be two positive integers, at most 12 cells");
  t->gridsize[0] = (int)g[0], t->gridsize[1] = (int)g[1];
  const char* s = ld_attr_str(n, "gridlayout");
  if (s && (strlen(s) != (size_t)(t->gridsize[0] * t->gridsize[1]) || s[strspn(s, "RLUDFB.")]))
    ld_error(c, n->file, n->line, "gridlayout must have one of R L U D F B . per grid cell");
  snprintf(t->gridlayout, sizeof t->gridlayout, "%s", s ? s : "");
}

/* A PNG texture's size from its header (signature, then the IHDR chunk's
   width and height, big-endian: PNG specification, 5.2 and 11.2.2),
   refused with the element's file and line when it has more pixels than
   LD_MAXTEXTUREPIXELS: a small file can claim gigabytes of pixels, which
   the renderer would otherwise only refuse without a line. A file that
   cannot be read or is no PNG is left to the renderer, as before. */
static void check_texture_size(ld_ctx* c, const ld_texture* t) {
  FILE* f = fopen(t->path, "rb");
  if (!f) return;
  unsigned char h[24];
  size_t got = fread(h, 1, sizeof h, f);
  fclose(f);
  if (got != sizeof h || memcmp(h, "\x89PNG\r\n\x1a\n", 8) != 0 || memcmp(h + 12, "IHDR", 4) != 0)
    return;
  unsigned long w = (unsigned long)h[16] << 24 | (unsigned long)h[17] << 16 |
                    (unsigned long)h[18] << 8 | h[19];
  unsigned long hgt = (unsigned long)h[20] << 24 | (unsigned long)h[21] << 16 |
                      (unsigned long)h[22] << 8 | h[23];
  if ((unsigned long long)w * hgt > LD_MAXTEXTUREPIXELS)
    ld_asset_error(c, "texture", t->name, t->path, t->file, t->line,
                   "%lu x %lu pixels: more than the %d allowed", w, hgt, LD_MAXTEXTUREPIXELS);
}

static void parse_texture(ld_ctx* c, ld_node* n) {
  static const char* const types[] = {"2d", "cube", "skybox", NULL};
  static const char* const builtin[] = {"none", "gradient", "checker", "flat", NULL};
  static const char* const marks[] = {"none", "edge", "cross", "random", NULL};
  static const char* const ok[] = {"content_type", "fileright", "fileleft", "fileup",
                                   "filedown", "filefront", "fileback", "hflip", "vflip", NULL};
  ld_texture* t = ld_push(c, &c->textures);
  t->file = n->file;
  t->line = n->line;
  t->name = asset_name(n);
  t->type = 1;
  t->rgb1[0] = t->rgb1[1] = t->rgb1[2] = 0.8f;
  t->rgb2[0] = t->rgb2[1] = t->rgb2[2] = 0.5f;
  t->random = 0.01f;
  ld_attr_keyword(c, n, "type", types, &t->type);
  ld_attr_keyword(c, n, "builtin", builtin, &t->builtin);
  ld_attr_keyword(c, n, "mark", marks, &t->mark);
  ld_attr_float(c, n, "rgb1", t->rgb1, 3, 3);
  ld_attr_float(c, n, "rgb2", t->rgb2, 3, 3);
  ld_attr_float(c, n, "markrgb", t->markrgb, 3, 3);
  ld_attr_float(c, n, "random", &t->random, 1, 1);
  ld_attr_int(c, n, "width", &t->width);
  ld_attr_int(c, n, "height", &t->height);
  parse_texture_grid(c, n, t);
  const char* f = ld_attr_str(n, "file");
  if (f) t->path = ld_join_path(c, c->texturedir ? c->texturedir : c->dir, f);
  if (!t->name && f) t->name = file_stem(c, f), t->autoname = 1;
  if (f) check_texture_size(c, t);
  if (!t->name && t->type != 2)
    ld_warning(c, "texture/noname", n->file, n->line,
               "texture without a name or a file to be named after: nothing can refer to it");
  ld_accept(n, ok);
  ld_warn_unused(c, n);
}

void ld_parse_asset(ld_ctx* c, ld_node* n) {
  for (ld_node* ch = n->child; ch; ch = ch->next) {
    if (!strcmp(ch->name, "texture")) {
      parse_texture(c, ch);
    } else if (!strcmp(ch->name, "material")) {
      const char* cls = ld_attr_str(ch, "class");
      int ci = cls ? ld_find_class(c, ch, cls) : 0;
      ld_material* m = ld_push(c, &c->materials);
      *m = LD_AT(c->classes, ld_class, ci)->material;
      m->file = ch->file;
      m->line = ch->line;
      m->name = ld_attr_str(ch, "name");
      ld_read_material(c, ch, m);
      ld_warn_unused(c, ch);
    } else if (!strcmp(ch->name, "mesh")) {
      parse_mesh(c, ch);
    } else if (!strcmp(ch->name, "hfield")) {
      ld_parse_hfield(c, ch);
    } else if (!strcmp(ch->name, "model")) {
      ld_parse_model_asset(c, ch);
    } else {
      ld_warn_element(c, ch);
    }
  }
}

/* names given in the file are unique among the textures and among the
   meshes; names taken from file names may repeat (see the top) */
/* the first of vector v's assets (name and autoname at those offsets) whose
   given name an earlier one has (file-derived names may repeat), -1 none */
static int first_repeated_asset(ld_ctx* c, const ld_vec* v, size_t autoname_at) {
  const char** names = ld_alloc(c, sizeof(const char*) * (size_t)(v->n + 1));
  for (int i = 0; i < v->n; i++) {
    const char* e = v->data + (size_t)i * v->elsz;
    int autoname = *(const int*)(const void*)(e + autoname_at);
    names[i] = autoname ? NULL : *(const char* const*)(const void*)e;
  }
  return ld_first_repeated(c, names, v->n);
}

void ld_check_asset_names(ld_ctx* c) {
  /* sorted, O(n log n) (issue 15) */
  int i = first_repeated_asset(c, &c->textures, offsetof(ld_texture, autoname));
  if (i >= 0) {
    const ld_texture* a = LD_AT(c->textures, ld_texture, i);
    ld_error(c, a->file, a->line, "repeated texture name '%s'", a->name);
  }
  i = first_repeated_asset(c, &c->meshes, offsetof(ld_mesh, autoname));
  if (i >= 0) {
    const ld_mesh* a = LD_AT(c->meshes, ld_mesh, i);
    ld_error(c, a->file, a->line, "repeated mesh name '%s'", a->name);
  }
  i = first_repeated_asset(c, &c->hfields, offsetof(ld_hfield, autoname));
  if (i >= 0) {
    const ld_hfield* a = LD_AT(c->hfields, ld_hfield, i);
    ld_error(c, a->file, a->line, "repeated hfield name '%s'", a->name);
  }
}
