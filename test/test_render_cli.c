/* impetus render from the command line: numbered PNG frames of a headless
   run (as many as the options say, each a PNG of the asked size), one
   image for --out FILE.png, and bad input refused before anything is
   written. PNGs are checked by their signature and IHDR chunk (PNG spec,
   sections 5.2 and 11.2.2), not by our writer. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* Run impetus with args, output discarded; the exit status. */
static int run_impetus(const char* args) {
  char cmd[2048];
  /* a cut command would run something else */
  ck_assert_int_lt(snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", IMPETUS_BIN, args),
                   (int)sizeof cmd);
  int st = system(cmd);
  ck_assert_msg(st != -1, "system() failed for: %s", cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A fresh empty directory for one test (removed first if it exists). */
static void fresh_dir(char* out, size_t n, const char* name) {
  ck_assert_int_lt(snprintf(out, n, "%s/render_cli_%s", IMP_TEST_TMPDIR, name), (int)n);
  char cmd[1200];
  ck_assert_int_lt(snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out),
                   (int)sizeof cmd);
  ck_assert_int_eq(system(cmd), 0);
}

/* 1 when path is a PNG of width x height. */
static int png_of_size(const char* path, unsigned width, unsigned height) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char b[24];
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  if (n != sizeof b || memcmp(b, sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return 0;
  unsigned w = (unsigned)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
  unsigned h = (unsigned)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
  return w == width && h == height;
}

static int count_files(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

START_TEST(frames_every_k_steps) {
  char dir[1024], args[2048], f[1100];
  fresh_dir(dir, sizeof dir, "frames");
  /* 10 steps, every 4th: the initial state and steps 4 and 8 */
  snprintf(args, sizeof args,
           "render '%s/box_rest.xml' --steps 10 --every 4 --size 64x48 --out '%s/seq'",
           IMP_MODELS_DIR, dir);
  ck_assert_int_eq(run_impetus(args), 0);
  snprintf(f, sizeof f, "%s/seq", dir);
  ck_assert_int_eq(count_files(f), 3);
  for (int i = 0; i < 3; i++) {
    snprintf(f, sizeof f, "%s/seq/frame_%05d.png", dir, i);
    ck_assert_msg(png_of_size(f, 64, 48), "%s is not a 64x48 PNG", f);
  }
}
END_TEST

START_TEST(one_image_of_the_last_state) {
  char dir[1024], args[2048], f[1100];
  fresh_dir(dir, sizeof dir, "single");
  snprintf(f, sizeof f, "%s/last.png", dir);
  snprintf(args, sizeof args,
           "render '%s/box_rest.xml' --steps 3 --size 80x60 --out '%s' --contacts --no-shadows --msaa 0", IMP_MODELS_DIR,
           f);
  ck_assert_int_eq(run_impetus(args), 0);
  ck_assert(png_of_size(f, 80, 60));
  ck_assert_int_eq(count_files(dir), 1); /* no FILE.tmp left */
}
END_TEST

START_TEST(bad_input_writes_nothing) {
  char dir[1024], args[2048], f[1100];
  fresh_dir(dir, sizeof dir, "bad");
  snprintf(f, sizeof f, "%s/x.png", dir);
  /* malformed size, missing --out, a negative step count: usage, exit 2 */
  snprintf(args, sizeof args, "render '%s/box_rest.xml' --steps 1 --size 0x5 --out '%s'",
           IMP_MODELS_DIR, f);
  ck_assert_int_eq(run_impetus(args), 2);
  snprintf(args, sizeof args, "render '%s/box_rest.xml' --steps 1", IMP_MODELS_DIR);
  ck_assert_int_eq(run_impetus(args), 2);
  snprintf(args, sizeof args, "render '%s/box_rest.xml' --steps -1 --out '%s'", IMP_MODELS_DIR, f);
  ck_assert_int_eq(run_impetus(args), 2);
  snprintf(args, sizeof args, "render '%s/box_rest.xml' --steps 1 --msaa 17 --out '%s'", IMP_MODELS_DIR, f);
  ck_assert_int_eq(run_impetus(args), 2);
  /* a model that does not exist, a camera the model lacks: exit 1 */
  ck_assert_int_lt(
      snprintf(args, sizeof args, "render '%s/nope.xml' --steps 1 --out '%s'", dir, f),
      (int)sizeof args);
  ck_assert_int_eq(run_impetus(args), 1);
  snprintf(args, sizeof args, "render '%s/box_rest.xml' --steps 1 --camera nope --out '%s'",
           IMP_MODELS_DIR, f);
  ck_assert_int_eq(run_impetus(args), 1);
  ck_assert_int_eq(count_files(dir), 0);
}
END_TEST

int main(void) {
  Suite* s = suite_create("render_cli");
  TCase* tc = tcase_create("render_cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, frames_every_k_steps);
  tcase_add_test(tc, one_image_of_the_last_state);
  tcase_add_test(tc, bad_input_writes_nothing);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
