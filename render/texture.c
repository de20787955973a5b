/* Texture images: builtin generation and file loading; see texture.h. */
#include "texture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
/* Debian's stb_image.h declares the GIF and thread-local loaders static
   even when STBI_ONLY_* leaves out their definitions: gcc then rejects the
   header itself under -Werror (clang does not warn). gcc reports unused
   statics at the end of the file, so the warning stays off to the end;
   clang still checks this file's own functions. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>

/* bytes of a texture file read to decode it */
#define TEXTURE_MAXFILE (256L << 20)

enum { BUILTIN_NONE = 0, BUILTIN_GRADIENT = 1, BUILTIN_CHECKER = 2, BUILTIN_FLAT = 3 };
enum { MARK_NONE = 0, MARK_EDGE = 1, MARK_CROSS = 2 };

static void copy3(float* d, const float* s) { d[0] = s[0], d[1] = s[1], d[2] = s[2]; }

/* A mark line is one texel wide (two on images wider than 256). */
static int on_mark(int mark, int i, int j, int w, int h) {
  int t = w > 256 ? 2 : 1;
  if (mark == MARK_EDGE) return i < t || j < t || i >= w - t || j >= h - t;
  if (mark == MARK_CROSS) return abs(2 * i - w) < t || abs(2 * j - h) < t;
  return 0;
}

void imp_texture_builtin_texel(const imp_model* m, int texid, int i, int j, int w, int h,
                               float rgb[3]) {
  const float *c1 = m->tex_rgb1 + 3 * texid, *c2 = m->tex_rgb2 + 3 * texid;
  switch (m->tex_builtin[texid]) {
    case BUILTIN_CHECKER:
      copy3(rgb, ((2 * i < w) == (2 * j < h)) ? c1 : c2);
      break;
    case BUILTIN_GRADIENT: {
      /* radial: rgb1 at the centre, rgb2 at the corners' circle */
      double x = (i + 0.5) / w - 0.5, y = (j + 0.5) / h - 0.5;
      double t = fmin(1, sqrt(2 * (x * x + y * y)));
      for (int k = 0; k < 3; k++)
        rgb[k] = (float)((1 - t) * c1[k] + t * c2[k]);
      break;
    }
    default:
      copy3(rgb, c1);
      break;
  }
  if (on_mark(m->tex_mark[texid], i, j, w, h)) copy3(rgb, m->tex_markrgb + 3 * texid);
}

static unsigned char* builtin_rgb(const imp_model* m, int texid, int w, int h) {
  unsigned char* rgb = malloc((size_t)w * h * 3);
  if (!rgb) return NULL;
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++) {
      float c[3];
      imp_texture_builtin_texel(m, texid, i, j, w, h, c);
      for (int k = 0; k < 3; k++)
        rgb[3 * ((size_t)j * w + i) + k] = (unsigned char)lrintf(255 * fminf(1, fmaxf(0, c[k])));
    }
  return rgb;
}

/* the whole file (at most TEXTURE_MAXFILE bytes) in a malloc'ed buffer;
   NULL with the reason in err */
static unsigned char* read_texture_file(const char* path, long* size, char* err, int errsz) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    snprintf(err, (size_t)errsz, "%s: cannot load texture: cannot open file", path);
    return NULL;
  }
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  unsigned char* buf = n > 0 && n <= TEXTURE_MAXFILE && fseek(f, 0, SEEK_SET) == 0
                           ? malloc((size_t)n) : NULL;
  int ok = buf && fread(buf, 1, (size_t)n, f) == (size_t)n;
  fclose(f);
  if (!ok) {
    snprintf(err, (size_t)errsz, "%s: cannot load texture: %s", path,
             n > TEXTURE_MAXFILE ? "file larger than 256 MB" : "cannot read file");
    free(buf);
    return NULL;
  }
  *size = n;
  return buf;
}

/* A texture file decoded to RGB. The pixel count is read from the image's
   header and bounded (IMP_TEXTURE_MAXPIXELS) before anything is decoded: a
   PNG of little bytes can claim billions of pixels (a "decompression
   bomb"). The bytes are read once, so the header checked is the image
   decoded. */
static unsigned char* file_rgb(const char* path, int* w, int* h, char* err, int errsz) {
  long size = 0;
  unsigned char* buf = read_texture_file(path, &size, err, errsz);
  if (!buf) return NULL;
  int n;
  if (!stbi_info_from_memory(buf, (int)size, w, h, &n)) {
    snprintf(err, (size_t)errsz, "%s: cannot load texture: %s", path, stbi_failure_reason());
    free(buf);
    return NULL;
  }
  if (*w < 1 || *h < 1 || (long long)*w * *h > IMP_TEXTURE_MAXPIXELS) {
    snprintf(err, (size_t)errsz, "%s: texture of %d x %d pixels: more than the %d allowed", path,
             *w, *h, IMP_TEXTURE_MAXPIXELS);
    free(buf);
    return NULL;
  }
  unsigned char* rgb = stbi_load_from_memory(buf, (int)size, w, h, &n, 3);
  free(buf);
  if (!rgb) {
    snprintf(err, (size_t)errsz, "%s: cannot load texture: %s", path, stbi_failure_reason());
    return NULL;
  }
  /* stb_image's buffer is freed with free() (STBI_FREE default), so callers need not know */
  return rgb;
}

unsigned char* imp_texture_rgb(const imp_model* m, int texid, int* width, int* height, char* err,
                               int errsz) {
  if (m->tex_fileadr[texid] >= 0)
    return file_rgb(m->paths + m->tex_fileadr[texid], width, height, err, errsz);
  /* builtins are generated at most 512 wide: the look does not need more */
  *width = m->tex_width[texid] > 0 ? (m->tex_width[texid] < 512 ? m->tex_width[texid] : 512) : 64;
  *height =
      m->tex_height[texid] > 0 ? (m->tex_height[texid] < 512 ? m->tex_height[texid] : 512) : 64;
  unsigned char* rgb = builtin_rgb(m, texid, *width, *height);
  if (!rgb) snprintf(err, (size_t)errsz, "texture %d: out of memory", texid);
  return rgb;
}

/* Which grid cell (row-major) of texid's layout holds face f (0..5, R L U
   D F B); -1 when none. A 1 x 1 grid holds every face. */
static int face_cell(const imp_model* m, int texid, int f) {
  const int* g = m->tex_gridsize + 2 * texid;
  const char* layout = m->tex_gridlayout + 13 * texid;
  if (g[0] * g[1] == 1) return 0;
  const char* at = strchr(layout, "RLUDFB"[f]);
  return at ? (int)(at - layout) : -1;
}

/* Cut the six faces out of an image laid out as texid's grid, each resampled
   (nearest texel) to a size x size square, as a cube map's faces must be. */
static void cut_faces(const imp_model* m, int texid, const unsigned char* img, int w, int h,
                      int size, unsigned char* faces) {
  const int* g = m->tex_gridsize + 2 * texid;
  int cw = w / g[1], ch = h / g[0];
  for (int f = 0; f < 6; f++) {
    unsigned char* out = faces + (size_t)f * 3 * size * size;
    int cell = face_cell(m, texid, f);
    if (cell < 0) {
      memset(out, 0, (size_t)3 * size * size);
      continue;
    }
    int x0 = (cell % g[1]) * cw, y0 = (cell / g[1]) * ch;
    for (int j = 0; j < size; j++)
      for (int i = 0; i < size; i++) {
        int x = x0 + i * cw / size, y = y0 + j * ch / size;
        memcpy(out + 3 * ((size_t)j * size + i), img + 3 * ((size_t)y * w + x), 3);
      }
  }
}

static unsigned char* file_faces(const imp_model* m, int texid, int* size, char* err, int errsz) {
  int w, h;
  const char* path = m->paths + m->tex_fileadr[texid];
  unsigned char* img = file_rgb(path, &w, &h, err, errsz);
  if (!img) return NULL;
  const int* g = m->tex_gridsize + 2 * texid;
  int cw = w / g[1], ch = h / g[0];
  *size = cw < ch ? cw : ch;
  unsigned char* faces = *size > 0 ? malloc((size_t)18 * *size * *size) : NULL;
  if (faces) cut_faces(m, texid, img, w, h, *size, faces);
  else snprintf(err, (size_t)errsz, "%s: %dx%d cannot be cut into a %dx%d grid of faces", path, w,
                h, g[0], g[1]);
  free(img);
  return faces;
}

unsigned char* imp_texture_cube_faces(const imp_model* m, int texid, int* size, char* err,
                                      int errsz) {
  if (m->tex_fileadr[texid] >= 0) return file_faces(m, texid, size, err, errsz);
  int w = m->tex_width[texid];
  *size = w > 0 ? (w < 512 ? w : 512) : 64;
  unsigned char* face = builtin_rgb(m, texid, *size, *size);
  unsigned char* faces = face ? malloc((size_t)18 * *size * *size) : NULL;
  for (int f = 0; faces && f < 6; f++)
    memcpy(faces + (size_t)f * 3 * *size * *size, face, (size_t)3 * *size * *size);
  free(face);
  if (!faces) snprintf(err, (size_t)errsz, "texture %d: out of memory", texid);
  return faces;
}
