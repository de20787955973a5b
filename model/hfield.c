/* <hfield> assets: height fields read from a PNG file, from MuJoCo's
 * binary format, from inline elevation values, or left at zero for the
 * user to fill (MJCF reference, asset/hfield).
 *
 * What MuJoCo does and we do alike (the docs, and MuJoCo 2.2.2 measured):
 *  - size = (radius_x, radius_y, elevation_z, base_z), all four positive;
 *  - the file is found in the compiler's meshdir (as MuJoCo resolves it);
 *    ".png" (any case) or content_type "image/png" is a PNG, anything else
 *    (or "image/vnd.mujoco.hfield") the binary format: int32 nrow, int32
 *    ncol, then nrow x ncol float32, row-major, 4 (2 + nrow ncol) bytes;
 *  - a PNG's rows run top to bottom and are stored bottom to top, so the
 *    top of the picture is +y; the binary format is stored as it is;
 *  - inline elevation (nrow x ncol values) is written top row first and
 *    stored flipped likewise (MuJoCo's docs: "bottom-to-top");
 *  - nrow, ncol without elevation: zeros; a file together with nrow or
 *    ncol is an error;
 *  - the data is normalized to [0, 1]: minus its minimum, divided by its
 *    range when that exceeds 1e-15 (in float, as MuJoCo stores it).
 * A PNG pixel's elevation is its red (or grey) channel: MuJoCo 2.2.2 decodes
 * to grey with lodepng, which takes the red channel of a colour image.
 * Our own choices: at least 2 rows and 2 columns (the grid spacing divides
 * by ncol - 1 and nrow - 1), and at most LD_MAXHFIELDDATA values per field
 * and in all, checked from the PNG's header or the binary header before any
 * pixel is decoded, so a huge image is refused without allocating it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loader.h"
#include "core/mathx.h"

#define STBI_ONLY_PNG
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ASSERT(x) ((void)0)
/* without failure strings: stb_image's PNG reader otherwise writes an
   unknown chunk's name into a static buffer (not thread-safe, a mutable
   global of the loader), and its reasons ("bad png sig") say little more
   than our own messages */
#define STBI_NO_FAILURE_STRINGS
/* Debian's stb_image.h declares static loaders that STBI_ONLY_PNG leaves
   undefined: gcc then warns about the header itself (see render/texture.c) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>

/* "hfield 'name' (file 'path'): ..." errors at the <hfield> element */
#define HF_ERROR(c, h, ...) \
  ld_asset_error(c, "hfield", (h)->name, (h)->path, (h)->file, (h)->line, __VA_ARGS__)

/* the grid's dimensions, refused when they are too small or too many values */
static void check_dims(ld_ctx* c, const ld_hfield* h, long nrow, long ncol) {
  if (nrow < 2 || ncol < 2)
    HF_ERROR(c, h, "needs at least 2 rows and 2 columns, has %ld x %ld", nrow, ncol);
  if (nrow > LD_MAXHFIELDDATA / ncol)
    HF_ERROR(c, h, "%ld x %ld elevation values: more than the %d allowed", nrow, ncol,
             LD_MAXHFIELDDATA);
}

/* a PNG: dimensions from its header first, then the red or grey channel,
   rows flipped so the top of the image is +y */
static void load_png(ld_ctx* c, ld_hfield* h) {
  int w, hgt, comp;
  if (!stbi_info(h->path, &w, &hgt, &comp)) {
    FILE* f = fopen(h->path, "rb");
    if (!f) HF_ERROR(c, h, "cannot open file");
    fclose(f);
    HF_ERROR(c, h, "not a PNG image");
  }
  check_dims(c, h, hgt, w);
  unsigned char* px = stbi_load(h->path, &w, &hgt, &comp, 0);
  if (!px) HF_ERROR(c, h, "cannot decode the PNG image");
  h->nrow = hgt;
  h->ncol = w;
  h->data = ld_alloc(c, sizeof(float) * (size_t)w * (size_t)hgt);
  for (int r = 0; r < hgt; r++)
    for (int col = 0; col < w; col++)
      h->data[(size_t)(hgt - 1 - r) * (size_t)w + (size_t)col] =
          (float)px[((size_t)r * (size_t)w + (size_t)col) * (size_t)comp];
  stbi_image_free(px);
}

static int32_t read_i32(const unsigned char* p) {
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  int32_t i;
  memcpy(&i, &u, 4);
  return i;
}

/* MuJoCo's binary format (little-endian, as MuJoCo writes it on x86) */
static void load_binary(ld_ctx* c, ld_hfield* h) {
  FILE* f = fopen(h->path, "rb");
  if (!f) HF_ERROR(c, h, "cannot open file");
  unsigned char head[8];
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size < 8 || fseek(f, 0, SEEK_SET) != 0 || fread(head, 1, 8, f) != 8) {
    fclose(f);
    HF_ERROR(c, h, "binary hfield file too short for its header (int32 nrow, int32 ncol)");
  }
  long nrow = read_i32(head), ncol = read_i32(head + 4);
  if (nrow < 1 || ncol < 1) {
    fclose(f);
    HF_ERROR(c, h, "non-positive dimensions %ld x %ld in the file's header", nrow, ncol);
  }
  if (nrow < 2 || ncol < 2 || nrow > LD_MAXHFIELDDATA / ncol) {
    fclose(f);
    check_dims(c, h, nrow, ncol);
  }
  long n = nrow * ncol;
  if (size != 8 + 4 * n) {
    fclose(f);
    HF_ERROR(c, h, "%ld x %ld values need a file of %ld bytes, not %ld", nrow, ncol, 8 + 4 * n,
             size);
  }
  unsigned char* raw = ld_alloc(c, 4 * (size_t)n);
  size_t got = fread(raw, 1, 4 * (size_t)n, f);
  fclose(f);
  if (got != 4 * (size_t)n) HF_ERROR(c, h, "cannot read file");
  h->nrow = (int)nrow;
  h->ncol = (int)ncol;
  h->data = ld_alloc(c, sizeof(float) * (size_t)n);
  for (long i = 0; i < n; i++) {
    uint32_t u = (uint32_t)read_i32(raw + 4 * i);
    memcpy(h->data + i, &u, 4);
    if (!isfinite(h->data[i])) HF_ERROR(c, h, "value %ld is not finite", i);
  }
}

/* minus the minimum, over the range when it is not ~0 (MuJoCo's rule) */
static void normalize(float* data, long n) {
  float lo = data[0], hi = data[0];
  for (long i = 1; i < n; i++) {
    lo = data[i] < lo ? data[i] : lo;
    hi = data[i] > hi ? data[i] : hi;
  }
  for (long i = 0; i < n; i++) {
    data[i] -= lo;
    if (hi - lo > IMP_MINVAL) data[i] /= hi - lo;
  }
}

/* the file name without directory and extension: the default asset name */
static const char* file_stem(ld_ctx* c, const char* path) {
  const char* slash = strrchr(path, '/');
  char* s = (char*)ld_strdup(c, slash ? slash + 1 : path);
  char* dot = strrchr(s, '.');
  if (dot && dot != s) *dot = 0;
  return s;
}

/* inline elevation: nrow x ncol values, top row first, stored flipped */
static void read_elevation(ld_ctx* c, ld_node* n, ld_hfield* h) {
  long cnt = (long)h->nrow * h->ncol;
  int got = ld_attr_numlist(c, n, "elevation", NULL, 0); /* counted before any allocation */
  if (got != cnt)
    HF_ERROR(c, h, "elevation has %d values, nrow x ncol = %ld needs as many", got, cnt);
  double* v = ld_alloc(c, sizeof(double) * (size_t)cnt);
  ld_attr_numlist(c, n, "elevation", v, (int)cnt);
  for (int r = 0; r < h->nrow; r++)
    for (int col = 0; col < h->ncol; col++) {
      double x = v[(long)r * h->ncol + col];
      if (!isfinite(x)) HF_ERROR(c, h, "elevation values must be finite");
      h->data[(long)(h->nrow - 1 - r) * h->ncol + col] = (float)x;
    }
}

void ld_parse_hfield(ld_ctx* c, ld_node* n) {
  static const char* const types[] = {"image/png", "image/vnd.mujoco.hfield", NULL};
  ld_hfield* h = ld_push(c, &c->hfields);
  h->file = n->file;
  h->line = n->line;
  const char* name = ld_attr_str(n, "name");
  h->name = name && name[0] ? name : NULL;
  const char* f = ld_attr_str(n, "file");
  int nrow = 0, ncol = 0, ctype = -1;
  ld_attr_int(c, n, "nrow", &nrow);
  ld_attr_int(c, n, "ncol", &ncol);
  const char* ct = ld_attr_str(n, "content_type");
  if (ct) {
    for (int k = 0; types[k] && ctype < 0; k++)
      if (!strcmp(ct, types[k])) ctype = k;
    if (ctype < 0) ld_error(c, n->file, n->line, "hfield: unsupported content_type '%s'", ct);
  }
  if (ld_attr_nums(c, n, "size", h->size, 4, 4) != 4)
    ld_error(c, n->file, n->line, "hfield: size (radius_x radius_y elevation_z base_z) is required");
  for (int i = 0; i < 4; i++)
    if (!(h->size[i] > 0) || !isfinite(h->size[i]))
      ld_error(c, n->file, n->line, "hfield: size values must be positive and finite");
  if (!h->name && f) h->name = file_stem(c, f), h->autoname = 1;
  if (!h->name) ld_error(c, n->file, n->line, "hfield needs a name or a file to be named after");
  if (f) {
    if (nrow || ncol || ld_attr_str(n, "elevation"))
      ld_error(c, n->file, n->line,
               "hfield '%s': data from a file and from nrow/ncol/elevation at once", h->name);
    h->path = ld_join_path(c, c->meshdir ? c->meshdir : c->dir, f);
    size_t len = strlen(f);
    int png = ctype == 0 || (ctype < 0 && len >= 4 && !strcasecmp(f + len - 4, ".png"));
    if (png) load_png(c, h);
    else load_binary(c, h);
  } else {
    if (nrow <= 0 || ncol <= 0)
      ld_error(c, n->file, n->line,
               "hfield '%s': give a file, or nrow and ncol (with or without elevation)", h->name);
    check_dims(c, h, nrow, ncol);
    h->nrow = nrow;
    h->ncol = ncol;
    h->data = ld_alloc(c, sizeof(float) * (size_t)nrow * (size_t)ncol);
    if (ld_attr_str(n, "elevation")) read_elevation(c, n, h);
  }
  long total = 0;
  for (int i = 0; i < c->hfields.n; i++) {
    const ld_hfield* o = LD_AT(c->hfields, ld_hfield, i);
    total += (long)o->nrow * o->ncol;
  }
  if (total > LD_MAXHFIELDDATA)
    HF_ERROR(c, h, "the model's height fields hold more than %d values", LD_MAXHFIELDDATA);
  normalize(h->data, (long)h->nrow * h->ncol);
  ld_warn_unused(c, n);
}
