/* impetus view and impetus replay for real: the scripted mode opens the
   window, runs N frames, writes a screenshot and exits 0. Under Xvfb as CI
   runs it: when DISPLAY is unset the commands run inside `xvfb-run -a`
   (Debian's xvfb); without either the window tests are skipped with a
   message. Bad files are refused before any window opens. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#define STBI_ONLY_PNG
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

#include "test_util.h"

/* The prefix that gives a command a display, or NULL when there is none. */
static const char* display_prefix(void) {
  const char* disp = getenv("DISPLAY");
  if (disp && disp[0]) return "";
  if (system("command -v xvfb-run >/dev/null 2>&1") == 0)
    return "xvfb-run -a -s '-screen 0 1280x1024x24' ";
  return NULL;
}

/* Run a shell command, stdout and stderr into files; the exit status. */
static int run(const char* cmd, const char* out, const char* err) {
  char full[4096];
  snprintf(full, sizeof full, "%s >'%s' 2>'%s'", cmd, out, err);
  int st = system(full);
  ck_assert_msg(st != -1, "system() failed: %s", full);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void slurp(const char* path, char* buf, size_t n) {
  FILE* f = fopen(path, "r");
  size_t got = f ? fread(buf, 1, n - 1, f) : 0;
  buf[got] = '\0';
  if (f) fclose(f);
}

static void tmp(char* out, size_t n, const char* name) {
  snprintf(out, n, "%s/viewer_cli_%s", IMP_TEST_TMPDIR, name);
  remove(out);
}

/* Check a screenshot: a PNG (signature), width x height, not one colour. */
static void check_screenshot(const char* path, int width, int height) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8] = {0};
  FILE* f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "no screenshot at %s", path);
  ck_assert_int_eq(fread(head, 1, 8, f), 8);
  fclose(f);
  ck_assert_msg(memcmp(head, sig, 8) == 0, "%s is not a PNG", path);
  int w, h, c;
  unsigned char* px = stbi_load(path, &w, &h, &c, 3);
  ck_assert_msg(px != NULL, "%s does not decode", path);
  ck_assert_int_eq(w, width);
  ck_assert_int_eq(h, height);
  long differ = 0;
  for (long i = 1; i < (long)w * h; i++) differ += memcmp(px, px + 3 * i, 3) != 0;
  stbi_image_free(px);
  ck_assert_msg(differ > (long)w * h / 10, "%s is (almost) a single colour", path);
}

#define SKIP_WITHOUT_DISPLAY(prefix)                                                          \
  const char* prefix = display_prefix();                                                      \
  if (!prefix) {                                                                              \
    fprintf(stderr, "%s: skipped: no DISPLAY and no xvfb-run (apt-get install xvfb xauth)\n", \
            __func__);                                                                        \
    return;                                                                                   \
  }

START_TEST(view_runs_frames_and_takes_a_screenshot) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char png[1200], out[1200], err[1200], cmd[4096], text[4096];
  tmp(png, sizeof png, "view.png");
  tmp(out, sizeof out, "view.out");
  tmp(err, sizeof err, "view.err");
  snprintf(cmd, sizeof cmd, "%s'%s' view '%s/box_pile.xml' --frames 30 --size 320x240 --screenshot '%s'",
           prefix, IMPETUS_BIN, IMP_MODELS_DIR, png);
  int st = run(cmd, out, err);
  slurp(err, text, sizeof text);
  ck_assert_msg(st == 0, "exit %d: %s", st, text);
  check_screenshot(png, 320, 240);
  slurp(out, text, sizeof text);
  ck_assert_msg(strstr(text, "frames: 30\n") && strstr(text, "size: 320x240\n"), "%s", text);
  /* 30 scripted frames of 1/60 s at real time: half a second simulated */
  const char* t = strstr(text, "time: ");
  ck_assert(t != NULL);
  imp_assert_near(atof(t + 6), 0.5, 0.01);
}
END_TEST

START_TEST(replay_plays_a_recording_and_takes_a_screenshot) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char csv[1200], png[1200], out[1200], err[1200], cmd[4096], text[4096];
  tmp(csv, sizeof csv, "traj.csv");
  tmp(png, sizeof png, "replay.png");
  tmp(out, sizeof out, "replay.out");
  tmp(err, sizeof err, "replay.err");
  snprintf(cmd, sizeof cmd, "'%s' run '%s/double_pendulum.xml' --steps 2000 --record '%s'",
           IMPETUS_BIN, IMP_MODELS_DIR, csv);
  ck_assert_int_eq(run(cmd, out, err), 0);
  snprintf(cmd, sizeof cmd, "%s'%s' replay '%s' '%s/double_pendulum.xml' --frames 12 --size 256x192 --screenshot '%s'",
           prefix, IMPETUS_BIN, csv, IMP_MODELS_DIR, png);
  int st = run(cmd, out, err);
  slurp(err, text, sizeof text);
  ck_assert_msg(st == 0, "exit %d: %s", st, text);
  check_screenshot(png, 256, 192);
  slurp(out, text, sizeof text);
  const char* t = strstr(text, "time: ");
  ck_assert_msg(t != NULL, "%s", text);
  imp_assert_near(atof(t + 6), 0.2, 0.01); /* 12 frames of 1/60 s: the row at 0.2 s */
}
END_TEST

START_TEST(a_bad_model_is_an_error_before_any_window) {
  char xml[1200], out[1200], err[1200], cmd[4096], text[4096], want[1300];
  tmp(xml, sizeof xml, "bad.xml");
  tmp(out, sizeof out, "bad.out");
  tmp(err, sizeof err, "bad.err");
  FILE* f = fopen(xml, "w");
  ck_assert(f != NULL);
  fputs("<mujoco>\n<worldbody>\n<geom type='sphere' size='x'/>\n</worldbody>\n</mujoco>\n", f);
  fclose(f);
  /* no display at all: a window attempt would say so instead */
  snprintf(cmd, sizeof cmd, "env -u DISPLAY '%s' view '%s' --frames 1", IMPETUS_BIN, xml);
  ck_assert_int_eq(run(cmd, out, err), 1);
  slurp(err, text, sizeof text);
  snprintf(want, sizeof want, "%s:3:", xml);
  ck_assert_msg(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
  ck_assert_msg(strstr(text, "window") == NULL, "tried a window: %s", text);
  /* replay: a trajectory that does not exist, then one of another model */
  snprintf(cmd, sizeof cmd, "env -u DISPLAY '%s' replay '%s/none.csv' '%s/pendulum.xml'",
           IMPETUS_BIN, IMP_TEST_TMPDIR, IMP_MODELS_DIR);
  ck_assert_int_eq(run(cmd, out, err), 1);
  snprintf(cmd, sizeof cmd, "env -u DISPLAY '%s' replay '%s' '%s/pendulum.xml'", IMPETUS_BIN, xml,
           IMP_MODELS_DIR);
  ck_assert_int_eq(run(cmd, out, err), 1);
  slurp(err, text, sizeof text);
  ck_assert_msg(strstr(text, ":1: not a recorded trajectory") != NULL, "%s", text);
}
END_TEST

START_TEST(bad_usage_exits_2) {
  char out[1200], err[1200], cmd[4096];
  tmp(out, sizeof out, "usage.out");
  tmp(err, sizeof err, "usage.err");
  const char* args[] = {"view", "view a.xml b.xml", "view a.xml --frames 0",
                        "view a.xml --screenshot x.png", "view a.xml --size 10", "replay a.csv",
                        "view a.xml --solver nope", "replay a.csv b.xml --key k"};
  for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
    snprintf(cmd, sizeof cmd, "env -u DISPLAY '%s' %s", IMPETUS_BIN, args[i]);
    ck_assert_msg(run(cmd, out, err) == 2, "impetus %s: not exit 2", args[i]);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_cli");
  TCase* tc = tcase_create("viewer_cli");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, view_runs_frames_and_takes_a_screenshot);
  tcase_add_test(tc, replay_plays_a_recording_and_takes_a_screenshot);
  tcase_add_test(tc, a_bad_model_is_an_error_before_any_window);
  tcase_add_test(tc, bad_usage_exits_2);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
