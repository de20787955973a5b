/* Scratch files for the tests that run programs or write recordings: read a
   file's text, test that a path exists, name a file in a scratch directory,
   remove the directory. Include after defining _POSIX_C_SOURCE (stat). */
#ifndef IMPETUS_TEST_FILES_H
#define IMPETUS_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* the file's text (one static buffer, cut at 64 KiB; "" when unreadable) */
static inline const char* imp_test_text_of(const char* path) {
  static char buf[65536];
  buf[0] = '\0';
  FILE* f = fopen(path, "rb");
  if (!f) return buf;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* 1 when something (file, directory, link target) is at path */
static inline int imp_test_exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* dir/name (one of 4 rotating static buffers, so a call can hold a few) */
static inline const char* imp_test_in_dir(const char* dir, const char* name) {
  static char bufs[4][4300];
  static int k = 0;
  char* b = bufs[k++ % 4];
  snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
  return b;
}

/* remove a scratch directory and all it holds (a message when that fails) */
static inline void imp_test_remove_dir(const char* dir) {
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* seconds on the monotonic clock (the includer defines _POSIX_C_SOURCE) */
static inline double imp_test_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* sleep s seconds */
static inline void imp_test_sleep_s(double s) {
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&t, NULL);
}

#endif
