/* impetus render from the command line: numbered PNG frames of a headless
   run (as many as the options say, each a PNG of the asked size), one
   image for --out FILE.png, and bad input refused before anything is
   written. PNGs are checked by their signature and IHDR chunk (PNG spec,
   sections 5.2 and 11.2.2), not by our writer. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_files.h"
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

/* --out with an image extension other than .png is bad usage (it used to
   make a directory of that name and fill it with PNG frames). */
START_TEST(out_with_another_image_extension_is_refused) {
  char dir[1024], args[2048];
  fresh_dir(dir, sizeof dir, "jpg");
  const char* names[] = {"shot.jpg", "shot.JPEG", "frames.webp", "a.tiff"};
  for (int i = 0; i < 4; i++) {
    snprintf(args, sizeof args, "render '%s/box_rest.xml' --steps 1 --size 32x24 --out '%s/%s'",
             IMP_MODELS_DIR, dir, names[i]);
    ck_assert_msg(run_impetus(args) == 2, "%s accepted", names[i]);
  }
  ck_assert_int_eq(count_files(dir), 0);
  /* a directory name without an extension, and .png, still work */
  snprintf(args, sizeof args, "render '%s/box_rest.xml' --steps 1 --size 32x24 --out '%s/seq'",
           IMP_MODELS_DIR, dir);
  ck_assert_int_eq(run_impetus(args), 0);
}
END_TEST

/* IMPETUS_PROGRESS=0 forces a progress line after every step (on stderr);
   without it, and with stderr not a terminal, there is none; --quiet turns
   even the forced lines off. */
START_TEST(progress_lines) {
  char dir[1024], cmd[4096], err[1200], buf[8192];
  fresh_dir(dir, sizeof dir, "progress");
  snprintf(err, sizeof err, "%s/stderr.txt", dir);
  const char* const env[] = {"env IMPETUS_PROGRESS=0", "env -u IMPETUS_PROGRESS",
                             "env IMPETUS_PROGRESS=0"};
  const char* const opt[] = {"", "", "--quiet"};
  for (int k = 0; k < 3; k++) {
    ck_assert_int_lt(
        snprintf(cmd, sizeof cmd,
                 "%s '%s' render '%s/box_rest.xml' --steps 4 --size 32x24 --out '%s/p%d.png' %s "
                 ">/dev/null 2>'%s'",
                 env[k], IMPETUS_BIN, IMP_MODELS_DIR, dir, k, opt[k], err),
        (int)sizeof cmd);
    ck_assert_int_eq(system(cmd), 0);
    FILE* f = fopen(err, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
    if (k == 0) {
      ck_assert_msg(strstr(buf, "impetus render: 1/4 steps (25%), t = ") != NULL, "%s", buf);
      ck_assert_msg(strstr(buf, "impetus render: 4/4 steps (100%)") != NULL, "%s", buf);
      ck_assert_msg(strstr(buf, "x real time, ETA ") != NULL, "%s", buf);
    } else {
      ck_assert_msg(strstr(buf, "steps (") == NULL, "progress when not asked: %s", buf);
    }
  }
}
END_TEST

static void sleep_10ms(void) {
  struct timespec t = {0, 10000000};
  nanosleep(&t, NULL);
}

/* Ctrl-C in a long render stops it at a frame boundary with exit 130:
   every frame written is a whole PNG and no FILE.tmp is left. */
START_TEST(interrupt_leaves_only_whole_frames) {
  char dir[1024], seq[1100], err[1100], first[1200];
  fresh_dir(dir, sizeof dir, "interrupt");
  snprintf(seq, sizeof seq, "%s/seq", dir);
  snprintf(err, sizeof err, "%s/stderr.txt", dir);
  snprintf(first, sizeof first, "%s/frame_00002.png", seq);
  char model[1100];
  snprintf(model, sizeof model, "%s/box_rest.xml", IMP_MODELS_DIR);
  for (int sig = 0; sig < 2; sig++) {
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
      if (!freopen("/dev/null", "w", stdout) || !freopen(err, "w", stderr)) _exit(127);
      execl(IMPETUS_BIN, IMPETUS_BIN, "render", model, "--steps", "100000000", "--size",
            "320x240", "--out", seq, (char*)NULL);
      _exit(127);
    }
    for (double t0 = imp_test_now_s(); access(first, F_OK) != 0;) {
      if (imp_test_now_s() - t0 > 60) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        ck_abort_msg("%s did not appear", first);
      }
      sleep_10ms();
    }
    kill(pid, sig ? SIGTERM : SIGINT);
    int st = 0;
    for (double t0 = imp_test_now_s(); waitpid(pid, &st, WNOHANG) == 0; sleep_10ms()) {
      if (imp_test_now_s() - t0 > 30) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        ck_abort_msg("render still running 30 s after the signal");
      }
    }
    ck_assert_msg(WIFEXITED(st), "render died of signal %d", WTERMSIG(st));
    ck_assert_int_eq(WEXITSTATUS(st), 130);
    int n = count_files(seq);
    ck_assert_int_ge(n, 3);
    DIR* d = opendir(seq);
    ck_assert(d != NULL);
    struct dirent* e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char f[1400];
      snprintf(f, sizeof f, "%s/%s", seq, e->d_name);
      ck_assert_msg(png_of_size(f, 320, 240), "%s is not a whole 320x240 PNG", f);
    }
    closedir(d);
    char msg[2048] = "";
    FILE* f = fopen(err, "r");
    ck_assert(f != NULL);
    size_t got = fread(msg, 1, sizeof msg - 1, f);
    msg[got] = '\0';
    fclose(f);
    ck_assert_msg(strstr(msg, "interrupted after ") && strstr(msg, "complete frames in "), "%s",
                  msg);
    fresh_dir(dir, sizeof dir, "interrupt");
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("render_cli");
  TCase* tc = tcase_create("render_cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, frames_every_k_steps);
  tcase_add_test(tc, one_image_of_the_last_state);
  tcase_add_test(tc, bad_input_writes_nothing);
  tcase_add_test(tc, out_with_another_image_extension_is_refused);
  tcase_add_test(tc, progress_lines);
  tcase_add_test(tc, interrupt_leaves_only_whole_frames);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
