/* PNG output with stb_image_write, written to a temporary file of its own
   (engine/io/tmpfile.h: "<path>.XXXXXX.tmp", created new, never through a
   link) and renamed, so a file is complete or absent and two writers of
   one path do not share a file. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render.h"
#include "io/tmpfile.h"

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_ASSERT(x) ((void)0)
#include <stb/stb_image_write.h>

/* stb_image_write's output goes to our descriptor; a short write is remembered */
typedef struct png_sink {
  FILE* f;
  int failed;
} png_sink;

static void sink_write(void* ctx, void* data, int size) {
  png_sink* s = ctx;
  if (size > 0 && fwrite(data, 1, (size_t)size, s->f) != (size_t)size) s->failed = 1;
}

int imp_image_write_png_guarded(const char* path, const unsigned char* rgb, int width, int height,
                                void (*guard)(const char* tmp), char* err, int errsz) {
  char* tmp = NULL;
  /* a guard (a signal handler's file to remove) learns the name with the
     signals blocked, so no forced exit comes between creation and that */
  sigset_t all, old;
  sigfillset(&all);
  if (guard) pthread_sigmask(SIG_BLOCK, &all, &old);
  int fd = imp_tmpfile_create(path, &tmp);
  if (guard && fd >= 0) guard(tmp);
  if (guard) pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) return snprintf(err, (size_t)errsz, "%s: cannot create: %s", path, strerror(errno)), -1;
  png_sink s = {fdopen(fd, "wb"), 0};
  int ok = s.f != NULL;
  if (!ok) close(fd);
  errno = 0;
  if (ok) ok = stbi_write_png_to_func(sink_write, &s, width, height, 3, rgb, width * 3) != 0;
  if (s.f && fclose(s.f) != 0) ok = 0;
  if (!ok || s.failed) {
    snprintf(err, (size_t)errsz, "%s: cannot write PNG: %s", path,
             errno ? strerror(errno) : "encoding failed");
    unlink(tmp);
    ok = 0;
  } else if (imp_tmpfile_commit(tmp, path) != 0) {
    snprintf(err, (size_t)errsz, "%s: cannot write: %s", path, strerror(errno));
    unlink(tmp);
    ok = 0;
  }
  if (guard) guard(NULL);
  free(tmp);
  return ok ? 0 : -1;
}

int imp_image_write_png(const char* path, const unsigned char* rgb, int width, int height,
                        char* err, int errsz) {
  return imp_image_write_png_guarded(path, rgb, width, height, NULL, err, errsz);
}
