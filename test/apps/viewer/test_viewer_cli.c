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
/* gcc reports the header's unused static declarations at the end of the
   file (render/texture.c says why they are there) */
#pragma GCC diagnostic ignored "-Wunused-function"

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
  ck_assert_int_lt(snprintf(full, sizeof full, "%s >'%s' 2>'%s'", cmd, out, err), (int)sizeof full);
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
  snprintf(cmd, sizeof cmd, "%s'%s' replay '%s' '%s/double_pendulum.xml' --frames 12 --size 256x192 --no-shadows --msaa 0 --screenshot '%s'",
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

/* Run a scripted view or replay (args after the command) in dir; stdout and
   then stderr in text, the simulated time at the end returned. Fails on a non-zero exit. */
static double scripted(const char* prefix, const char* dir, const char* args, char* text,
                       size_t n) {
  char out[1200], err[1200], cmd[8192];
  tmp(out, sizeof out, "scripted.out");
  tmp(err, sizeof err, "scripted.err");
  snprintf(cmd, sizeof cmd, "cd '%s' && %s'%s' %s", dir, prefix, IMPETUS_BIN, args);
  int st = run(cmd, out, err);
  slurp(err, text, n);
  ck_assert_msg(st == 0, "exit %d: %s\n%s", st, cmd, text);
  slurp(out, text, n / 2);
  slurp(err, text + strlen(text), n / 2); /* stdout, then stderr */
  const char* t = strstr(text, "\ntime: ");
  ck_assert_msg(t != NULL, "%s", text);
  return atof(t + 7);
}

/* A fresh directory for one test's files. */
static void fresh_dir(char* dir, size_t n, const char* name) {
  char cmd[1400];
  ck_assert_int_lt(snprintf(dir, n, "%s/viewer_cli_%s", IMP_TEST_TMPDIR, name), (int)n);
  ck_assert_int_lt(snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir),
                   (int)sizeof cmd);
  ck_assert_int_eq(system(cmd), 0);
}

START_TEST(a_bad_dropped_model_keeps_the_old_one_running) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char dir[1100], bad[1200], args[4096], text[8192], want[1300];
  fresh_dir(dir, sizeof dir, "drop");
  snprintf(bad, sizeof bad, "%s/bad.xml", dir);
  FILE* f = fopen(bad, "w");
  ck_assert(f != NULL);
  fputs("<mujoco>\n<worldbody>\n<geom type='sphere' size='x'/>\n</worldbody>\n</mujoco>\n", f);
  fclose(f);
  /* dropped at frame 5, then Ctrl+L reloads the model still running */
  snprintf(args, sizeof args, "view '%s/box_rest.xml' --frames 20 --size 200x150 --script '5:drop %s;10:key ctrl+l'",
           IMP_MODELS_DIR, bad);
  double t = scripted(prefix, dir, args, text, sizeof text);
  ck_assert_msg(strstr(text, "reloaded") != NULL, "%s", text);
  imp_assert_near(t, 10 / 60.0, 0.01); /* frames 10..19 after the reload */
  snprintf(want, sizeof want, "%s:3:", bad);
  ck_assert_msg(strstr(text, want) != NULL, "no '%s' in: %s", want, text);
}
END_TEST

START_TEST(keys_pause_record_and_screenshot) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char dir[1100], args[4096], text[8192], cmd[2400];
  fresh_dir(dir, sizeof dir, "keys");
  /* paused for frames 0-9, recording frames 10-19, a screenshot at 20 */
  snprintf(args, sizeof args, "view '%s/box_rest.xml' --frames 22 --size 200x150 --script '0:key space;10:key space;10:key r;20:key r;20:key ctrl+p;21:key s'",
           IMP_MODELS_DIR);
  double t = scripted(prefix, dir, args, text, sizeof text);
  imp_assert_near(t, 12 / 60.0, 0.01);
  ck_assert_msg(strstr(text, "contact solver: ") != NULL, "%s", text);
  /* the recording: a header and the state at its start and after each step */
  snprintf(cmd, sizeof cmd, "cd '%s' && test $(ls *.csv | wc -l) = 1 && head -1 *.csv | grep -q '^time,qpos_0' && test $(cat *.csv | wc -l) -ge 80",
           dir);
  ck_assert_msg(system(cmd) == 0, "no recording of 80 rows in %s", dir);
  snprintf(cmd, sizeof cmd, "cd '%s' && ls *.png", dir);
  FILE* p = popen(cmd, "r");
  char png[1200] = "", path[2400];
  ck_assert(p && fgets(png, sizeof png, p));
  pclose(p);
  png[strcspn(png, "\n")] = '\0';
  snprintf(path, sizeof path, "%s/%s", dir, png);
  check_screenshot(path, 200, 150);
}
END_TEST

START_TEST(double_click_selects_and_ctrl_right_drag_pulls) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char dir[1100], args[4096], text[8192], cmd[2400];
  fresh_dir(dir, sizeof dir, "mouse");
  /* the default camera looks at the model's centre: the box is mid-window;
     select it, record, pull it up with Ctrl + right drag, let go, stop */
  snprintf(args, sizeof args, "view '%s/box_rest.xml' --frames 40 --size 320x240 --script "
           "'1:dclick left 160 120;2:key r;3:press ctrl+right 160 120;4:move 160 60;38:release right;39:key r'",
           IMP_MODELS_DIR);
  scripted(prefix, dir, args, text, sizeof text);
  ck_assert_msg(strstr(text, "selected: box\n") != NULL, "%s", text);
  /* qpos_2, the box's height, first and last recorded rows */
  snprintf(cmd, sizeof cmd, "cd '%s' && awk -F, 'NR==2{a=$4} END{print a, $4}' *.csv", dir);
  FILE* p = popen(cmd, "r");
  double z0 = 0, z1 = 0;
  ck_assert(p && fscanf(p, "%lf %lf", &z0, &z1) == 2);
  pclose(p);
  imp_assert_near(z0, 0.1, 1e-3); /* resting on the floor */
  ck_assert_msg(z1 > z0 + 0.01, "the box did not rise: %g -> %g", z0, z1);
}
END_TEST

START_TEST(paused_ctrl_right_drag_moves_the_box) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char dir[1100], args[4096], text[8192], cmd[2400];
  fresh_dir(dir, sizeof dir, "paused_drag");
  /* paused from the start: select the box, drag it up while holding, and
     record one row (R writes the state at once) while it is held */
  snprintf(args, sizeof args, "view '%s/box_rest.xml' --frames 12 --size 320x240 --script "
           "'0:key space;1:dclick left 160 120;3:press ctrl+right 160 120;4:move 160 60;"
           "6:key r;7:key r;8:release right'",
           IMP_MODELS_DIR);
  double t = scripted(prefix, dir, args, text, sizeof text);
  ck_assert_msg(strstr(text, "selected: box\n") != NULL, "%s", text);
  imp_assert_near(t, 0, 0); /* no step was taken */
  snprintf(cmd, sizeof cmd, "cd '%s' && awk -F, 'NR==2{print $4}' *.csv", dir);
  FILE* p = popen(cmd, "r");
  double z = 0;
  ck_assert(p && fscanf(p, "%lf", &z) == 1);
  pclose(p);
  ck_assert_msg(z > 0.1 + 0.05, "the paused box was not lifted: z = %g", z);
}
END_TEST

/* The same keys on the CSV and the NPY recording of one run (`run --record
   F.npy` writes the NPY with its F.npy.json sidecar) land on the same time. */
START_TEST(replay_keys_step_and_jump) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char dir[1100], args[4096], text[8192], cmd[2400];
  fresh_dir(dir, sizeof dir, "replay_keys");
  static const char* const files[] = {"p.csv", "p.npy"};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "'%s' run '%s/pendulum.xml' --steps 3000 --record '%s/%s' >/dev/null",
             IMPETUS_BIN, IMP_MODELS_DIR, dir, files[k]);
    ck_assert_int_eq(system(cmd), 0);
    /* pause on row 0, two rows forward, then one second on */
    snprintf(args, sizeof args, "replay %s '%s/pendulum.xml' --frames 6 --size 200x150 --script '0:key space;1:key right;2:key right;3:key up'",
             files[k], IMP_MODELS_DIR);
    double t = scripted(prefix, dir, args, text, sizeof text);
    imp_assert_near(t, 1.002, 1e-9);
  }
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
                        "view a.xml --solver nope", "replay a.csv b.xml --key k",
                        "view a.xml --script '1:key nosuchkey'", "view a.xml --script '5:key a;2:key b'",
                        "view a.xml --script '1:press thumb 3 4'", "view a.xml --script '1:move 3'",
                        "view a.xml --msaa 17", "view a.xml --msaa -1", "replay a.csv b.xml --msaa x"};
  for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
    snprintf(cmd, sizeof cmd, "env -u DISPLAY '%s' %s", IMPETUS_BIN, args[i]);
    ck_assert_msg(run(cmd, out, err) == 2, "impetus %s: not exit 2", args[i]);
  }
}
END_TEST

/* Without a display, view says how to run headless: a virtual display
   (xvfb-run) or impetus render. */
START_TEST(no_display_says_how_to_run_headless) {
  char out[1200], err[1200], cmd[4096], text[4096];
  tmp(out, sizeof out, "nodisp.out");
  tmp(err, sizeof err, "nodisp.err");
  snprintf(cmd, sizeof cmd, "env -u DISPLAY -u WAYLAND_DISPLAY '%s' view '%s/pendulum.xml'",
           IMPETUS_BIN, IMP_MODELS_DIR);
  ck_assert_int_eq(run(cmd, out, err), 1);
  slurp(err, text, sizeof text);
  ck_assert_msg(strstr(text, "no display") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "xvfb-run -a impetus view") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "impetus render MODEL.xml --steps N --out DIR") != NULL, "%s", text);
}
END_TEST

/* The last field of the last line of a CSV file, and the 4th from last. */
static void last_row_solver(const char* csv, double* ncon, double* iter, double* residual) {
  static char buf[1 << 20];
  FILE* f = fopen(csv, "r");
  ck_assert(f != NULL);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  while (n > 0 && buf[n - 1] == '\n') buf[--n] = '\0';
  char* line = strrchr(buf, '\n');
  ck_assert(line != NULL);
  double v[4096];
  int k = 0;
  for (char* p = line + 1; k < 4096;) {
    v[k++] = strtod(p, &p);
    if (*p != ',') break;
    p++;
  }
  ck_assert_int_ge(k, 5);
  *ncon = v[k - 4], *iter = v[k - 2], *residual = v[k - 1];
}

/* Replay of a recording made with --record-solver shows what was recorded
   (contacts, iterations, residual of the step), not a re-solve of the
   recorded state; view counts the steps whose solver fell short. */
START_TEST(replay_shows_the_recorded_solver_figures) {
  SKIP_WITHOUT_DISPLAY(prefix);
  char csv[1200], out[1200], err[1200], cmd[4096], text[8192];
  tmp(csv, sizeof csv, "solver.csv");
  tmp(out, sizeof out, "solver.out");
  tmp(err, sizeof err, "solver.err");
  /* 60 steps of 5 ms: 0.3 s, less than 40 frames of 1/60 s play */
  snprintf(cmd, sizeof cmd, "'%s' run '%s/box_pile.xml' --steps 60 --record '%s' --record-solver",
           IMPETUS_BIN, IMP_MODELS_DIR, csv);
  ck_assert_int_eq(run(cmd, out, err), 0);
  double ncon, iter, residual;
  last_row_solver(csv, &ncon, &iter, &residual);
  ck_assert_msg(ncon > 0 && iter > 0, "box_pile has contacts at its 60th step");
  snprintf(cmd, sizeof cmd, "%s'%s' replay '%s' '%s/box_pile.xml' --frames 40 --size 160x120",
           prefix, IMPETUS_BIN, csv, IMP_MODELS_DIR);
  ck_assert_int_eq(run(cmd, out, err), 0);
  slurp(out, text, sizeof text);
  char want[512];
  snprintf(want, sizeof want,
           "row: 60\nrecorded_ncon: %.0f\nrecorded_solver_iter: %.0f\n"
           "recorded_solver_residual: %.17g\n",
           ncon, iter, residual);
  ck_assert_msg(strstr(text, want) != NULL, "want\n%s\nin\n%s", want, text);

  snprintf(cmd, sizeof cmd, "%s'%s' view '%s/box_pile.xml' --frames 40 --size 160x120", prefix,
           IMPETUS_BIN, IMP_MODELS_DIR);
  ck_assert_int_eq(run(cmd, out, err), 0);
  slurp(out, text, sizeof text);
  const char* nc = strstr(text, "steps_not_converged: ");
  ck_assert_msg(strstr(text, "\nsteps: ") && nc, "%s", text);
  long long k = atoll(nc + strlen("steps_not_converged: "));
  slurp(err, text, sizeof text);
  if (k > 0) {
    snprintf(want, sizeof want, "impetus view: the contact solver stopped short of its tolerance in %lld of ", k);
    ck_assert_msg(strstr(text, want) != NULL, "want %s in %s", want, text);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_cli");
  TCase* tc = tcase_create("viewer_cli");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, view_runs_frames_and_takes_a_screenshot);
  tcase_add_test(tc, replay_plays_a_recording_and_takes_a_screenshot);
  tcase_add_test(tc, a_bad_dropped_model_keeps_the_old_one_running);
  tcase_add_test(tc, keys_pause_record_and_screenshot);
  tcase_add_test(tc, double_click_selects_and_ctrl_right_drag_pulls);
  tcase_add_test(tc, paused_ctrl_right_drag_moves_the_box);
  tcase_add_test(tc, replay_keys_step_and_jump);
  tcase_add_test(tc, a_bad_model_is_an_error_before_any_window);
  tcase_add_test(tc, bad_usage_exits_2);
  tcase_add_test(tc, no_display_says_how_to_run_headless);
  tcase_add_test(tc, replay_shows_the_recorded_solver_figures);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
