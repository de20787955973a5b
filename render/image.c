/* PNG output with stb_image_write, written to FILE.tmp and renamed, so a
   file is complete or absent. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_ASSERT(x) ((void)0)
#include <stb/stb_image_write.h>

int imp_image_write_png(const char* path, const unsigned char* rgb, int width, int height,
                        char* err, int errsz) {
  size_t n = strlen(path);
  char* tmp = malloc(n + 5);
  if (!tmp) return snprintf(err, (size_t)errsz, "%s: out of memory", path), -1;
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp", 5);
  int ok = stbi_write_png(tmp, width, height, 3, rgb, width * 3) != 0;
  if (!ok) {
    snprintf(err, (size_t)errsz, "%s: cannot write PNG: %s", path, strerror(errno));
    remove(tmp);
  } else if (rename(tmp, path) != 0) {
    snprintf(err, (size_t)errsz, "%s: cannot write: %s", path, strerror(errno));
    remove(tmp);
    ok = 0;
  }
  free(tmp);
  return ok ? 0 : -1;
}
