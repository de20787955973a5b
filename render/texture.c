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
#include <stb/stb_image.h>

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

static unsigned char* file_rgb(const char* path, int* w, int* h, char* err, int errsz) {
  int n;
  unsigned char* rgb = stbi_load(path, w, h, &n, 3);
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
