/* Tests of the impetus program (apps/) run as a user would: exit codes,
   messages, and that bad input never leaves a file behind. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "constraint/contact.h"
#include "test_files.h"
#include "test_util.h"

#ifndef IMPETUS_BIN
#error "IMPETUS_BIN: the path of the built impetus program"
#endif
#ifndef EXAMPLE_BIN
#error "EXAMPLE_BIN: the path of the built example_headless program"
#endif
#ifndef IMP_TEST_TMPDIR
#define IMP_TEST_TMPDIR "/tmp"
#endif

#define PENDULUM IMP_MODELS_DIR "/pendulum.xml"

/* this test's scratch directory, and where the program's output goes */
static char dir[4096], out_path[4200], err_path[4200];

static void setup(void) {
  snprintf(dir, sizeof dir, "%s/cli_XXXXXX", IMP_TEST_TMPDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp failed");
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
}

static void teardown(void) { imp_test_remove_dir(dir); }


/* Run `IMPETUS_BIN args` (args already shell-quoted where needed) with
   stdout and stderr captured; return its exit status (-1: killed). */
static int run_prog(const char* prog, const char* args) {
  char cmd[16384];
  int len = snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", prog, args, out_path,
                     err_path);
  ck_assert_msg(len > 0 && (size_t)len < sizeof cmd, "command too long: %s", args);
  int st = system(cmd);
  ck_assert_msg(st != -1, "system() failed for: %s", cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
#define impetus(args) run_prog(IMPETUS_BIN, (args))

/* number of '\n' in the file */
static int count_lines(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  int n = 0, c;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

/* path of a file name in the scratch directory (one of 4 rotating buffers) */
/* A temporary file of a recording at rec (record.h: "<rec>.XXXXXX.tmp", or
   the fixed "<rec>.tmp" of older versions;
   also its sidecar's "<rec>.json.XXXXXX.tmp") into out; 1 when there is one. */
static int find_temp(const char* rec, char* out, size_t n) {
  const char* slash = strrchr(rec, '/');
  char d[4400];
  snprintf(d, sizeof d, "%.*s", slash ? (int)(slash - rec) : 1, slash ? rec : ".");
  const char* base = slash ? slash + 1 : rec;
  size_t bl = strlen(base);
  DIR* dp = opendir(d);
  if (!dp) return 0;
  int found = 0;
  for (struct dirent* e; !found && (e = readdir(dp));) {
    size_t len = strlen(e->d_name);
    if (len >= bl + 4 && strncmp(e->d_name, base, bl) == 0 && e->d_name[bl] == '.' &&
        strcmp(e->d_name + len - 4, ".tmp") == 0) {
      int k = snprintf(out, n, "%s/%s", d, e->d_name);
      found = k >= 0 && (size_t)k < n;
    }
  }
  closedir(dp);
  return found;
}

/* No file of any kind was left for a recording at path. */
static void assert_nothing_at(const char* path) {
  char p[4400];
  ck_assert_msg(!imp_test_exists(path), "%s exists", path);
  snprintf(p, sizeof p, "%s.tmp", path);
  ck_assert_msg(!imp_test_exists(p), "%s exists", p);
  ck_assert_msg(!find_temp(path, p, sizeof p), "%s exists", p);
  snprintf(p, sizeof p, "%s.json", path);
  ck_assert_msg(!imp_test_exists(p), "%s exists", p);
}

START_TEST(usage_and_help) {
  ck_assert_int_eq(impetus(""), 2);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "usage: impetus") != NULL, "%s", imp_test_text_of(err_path));
  ck_assert_int_eq(impetus("--help"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "usage: impetus") != NULL);
  ck_assert_int_eq(impetus("help"), 0);
  ck_assert_int_eq(impetus("help run"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "--record") != NULL);
  ck_assert_int_eq(impetus("run --help"), 0);
  ck_assert_int_eq(impetus("bench -h"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "--ctrlnoise") != NULL);
  ck_assert_int_eq(impetus("frobnicate"), 2);
  ck_assert(strstr(imp_test_text_of(err_path), "frobnicate") != NULL);
  ck_assert(strstr(imp_test_text_of(err_path), "usage: impetus") != NULL);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  ck_assert_int_eq(impetus("help frobnicate"), 2);
}
END_TEST

START_TEST(check_pendulum) {
  ck_assert_int_eq(impetus("check '" PENDULUM "'"), 0);
  const char* out = imp_test_text_of(out_path);
  const char* keys[] = {"model: pendulum\n", "nq: 1\n", "nv: 1\n", "nbody: 2\n", "njnt: 1\n",
                        "nu: 0\n", "na: 0\n", "ntendon: 0\n", "nmocap: 0\n",
                        "nhfield: 0\n", "nsensor: 0\n", "timestep: 0.001\n", "warnings: 0\n",
                        "nkey: 1\n", "key 0: release\n"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    ck_assert_msg(strstr(out, keys[i]) != NULL, "no '%s' in:\n%s", keys[i], out);
  ck_assert_int_eq(count_lines(out_path), 19); /* exactly the eighteen keys and one keyframe */
}
END_TEST

/* --contacts lists the initial contacts (19: MuJoCo finds 18, its standing
   cylinder gets 3 points where ours gets 4), e.g. the ball 1 mm into the floor */
START_TEST(check_contacts) {
  ck_assert_int_eq(impetus("check --contacts '" IMP_MODELS_DIR "/contact_primitives.xml'"), 0);
  const char* out = imp_test_text_of(out_path);
  ck_assert_msg(strstr(out, "ncon: 19\n") != NULL, "no 'ncon: 19' in:\n%s", out);
  ck_assert_msg(strstr(out, "floor (plane) - ball (sphere) dist -0.001 pos -1 0 -0.0005 normal 0 0 1") != NULL,
                "no floor-ball contact in:\n%s", out);
  ck_assert_int_eq(count_lines(out_path), 19 + 19); /* nkey: 0, no key lines */
  /* --key needs --contacts; an unknown keyframe is the user's error */
  ck_assert_int_eq(impetus("check --key x '" IMP_MODELS_DIR "/contact_primitives.xml'"), 2);
  ck_assert_int_eq(impetus("check --contacts --key nosuch '" IMP_MODELS_DIR "/contact_primitives.xml'"), 1);
  ck_assert(strstr(imp_test_text_of(err_path), "nosuch") != NULL);
}
END_TEST

START_TEST(check_missing_file) {
  const char* missing = imp_test_in_dir(dir, "no_such_model.xml");
  char args[4400];
  snprintf(args, sizeof args, "check '%s'", missing);
  ck_assert_int_eq(impetus(args), 1);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "no_such_model.xml") != NULL, "stderr: %s",
                imp_test_text_of(err_path));
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  ck_assert_int_eq(impetus("check"), 2);
  ck_assert_int_eq(impetus("check --verbose '" PENDULUM "'"), 2);
}
END_TEST

/* a model that fails: stderr has the error and, after it, the warnings
   gathered before it (here the <flexcomp> that --allow-unsupported
   dropped, leaving the body without mass); nothing on stdout. Without
   --allow-unsupported the flexcomp itself is the error. */
START_TEST(check_failure_prints_earlier_warnings) {
  const char* bad = imp_test_in_dir(dir, "massless.xml");
  FILE* f = fopen(bad, "w");
  ck_assert(f != NULL);
  fputs("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<flexcomp type='grid' count='2 2 1'/>\n"
        "</body></worldbody></mujoco>\n", f);
  fclose(f);
  char args[4400];
  snprintf(args, sizeof args, "check --allow-unsupported '%s'", bad);
  ck_assert_int_eq(impetus(args), 1);
  const char* err = imp_test_text_of(err_path);
  const char* e = strstr(err, "massless.xml:3: mass and inertia of moving bodies");
  const char* w = strstr(err, "massless.xml:5: warning: element 'flexcomp' is not supported");
  ck_assert_msg(e && w && e < w, "stderr: %s", err);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  snprintf(args, sizeof args, "check '%s'", bad);
  ck_assert_int_eq(impetus(args), 1);
  err = imp_test_text_of(err_path);
  ck_assert_msg(strstr(err, "massless.xml:5: element 'flexcomp' is not supported yet") &&
                    strstr(err, "--allow-unsupported"),
                "stderr: %s", err);
}
END_TEST

START_TEST(malformed_xml) {
  const char* bad = imp_test_in_dir(dir, "broken.xml");
  FILE* f = fopen(bad, "w");
  ck_assert(f != NULL);
  fputs("<mujoco>\n  <worldbody>\n    <body>\n  </worldbody>\n", f); /* unbalanced */
  fclose(f);
  char args[4400];
  snprintf(args, sizeof args, "check '%s'", bad);
  ck_assert_int_eq(impetus(args), 1);
  const char* err = imp_test_text_of(err_path);
  ck_assert_msg(strstr(err, "broken.xml:") != NULL, "want file:line: message, got: %s", err);
  const char* rec = imp_test_in_dir(dir, "broken.csv");
  snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s'", bad, rec);
  ck_assert_int_eq(impetus(args), 1);
  assert_nothing_at(rec);
}
END_TEST

START_TEST(run_bad_arguments) {
  static const char* const bad[] = {
      "--steps",           "--steps abc",          "--steps -5",       "--steps 1e3",
      "--steps 10 --dt 0", "--steps 10 --dt -1",   "--steps 10 --dt nan",
      "--steps 10 --dt",   "--steps 10 --every 0", "--steps 10 --every x",
      "--steps 10 --frob", "--steps 10 --record",  "",
      "--steps 10 --dt 1e999",
  };
  const char* rec = imp_test_in_dir(dir, "out.csv");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char args[8800];
    /* the recording first, so that every bad argument comes after it */
    snprintf(args, sizeof args, "run --record '%s' '%s' %s", rec, PENDULUM, bad[i]);
    ck_assert_msg(impetus(args) == 2, "'%s' should exit 2; stderr: %s", bad[i],
                  imp_test_text_of(err_path));
    ck_assert_msg(imp_test_text_of(err_path)[0] != '\0', "'%s': no message", bad[i]);
    assert_nothing_at(rec);
  }
  ck_assert_int_eq(impetus("run --steps 10"), 2); /* no model */
  /* a denormal step is finite: the message says what is wrong with it */
  char args[8800];
  snprintf(args, sizeof args, "run --record '%s' '%s' --steps 10 --dt 1e-320", rec, PENDULUM);
  ck_assert_int_eq(impetus(args), 2);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "'1e-320' is too small") != NULL, "%s",
                imp_test_text_of(err_path));
}
END_TEST

START_TEST(run_unknown_extension) {
  const char* names[] = {"out.txt", "out", "out.csv.bak"};
  for (int k = 0; k < 3; k++) {
    const char* rec = imp_test_in_dir(dir, names[k]);
    char args[8800];
    snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s'", PENDULUM, rec);
    ck_assert_int_eq(impetus(args), 2);
    ck_assert_msg(strstr(imp_test_text_of(err_path), ".csv or .npy") != NULL, "%s", imp_test_text_of(err_path));
    assert_nothing_at(rec);
  }
}
END_TEST

START_TEST(run_errors_write_nothing) {
  const char* rec = imp_test_in_dir(dir, "out.npy");
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s'", imp_test_in_dir(dir, "none.xml"), rec);
  ck_assert_int_eq(impetus(args), 1);
  assert_nothing_at(rec);
  snprintf(args, sizeof args, "run '%s' --steps 10 --key nosuchkey --record '%s'", PENDULUM,
           rec);
  ck_assert_int_eq(impetus(args), 1);
  ck_assert(strstr(imp_test_text_of(err_path), "nosuchkey") != NULL);
  assert_nothing_at(rec);
  const char* deep = imp_test_in_dir(dir, "missing_dir/out.csv");
  snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s'", PENDULUM, deep);
  ck_assert_int_eq(impetus(args), 1);
  assert_nothing_at(deep);
}
END_TEST

START_TEST(run_records_csv) {
  const char* rec = imp_test_in_dir(dir, "pend.csv");
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 100 --every 10 --key release --record '%s'",
           PENDULUM, rec);
  ck_assert_msg(impetus(args) == 0, "stderr: %s", imp_test_text_of(err_path));
  ck_assert(strstr(imp_test_text_of(out_path), "steps: 100\n") != NULL);
  ck_assert(strstr(imp_test_text_of(out_path), "rows: 11\n") != NULL);
  ck_assert_int_eq(count_lines(rec), 1 + 11); /* header, initial state, 10 more */
  char tmp[4400];
  ck_assert(!find_temp(rec, tmp, sizeof tmp));

  FILE* f = fopen(rec, "r");
  ck_assert(f != NULL);
  char line[1024];
  ck_assert(fgets(line, sizeof line, f) != NULL);
  ck_assert_str_eq(line, "time,qpos_0,qvel_0\n");
  double t = -1, q = 0, v = 1;
  ck_assert(fgets(line, sizeof line, f) != NULL);
  ck_assert_int_eq(sscanf(line, "%lf,%lf,%lf", &t, &q, &v), 3);
  ck_assert(t == 0 && v == 0);
  imp_assert_near(q, 0.785398163397448, 1e-15); /* the keyframe */
  while (fgets(line, sizeof line, f)) ck_assert_int_eq(sscanf(line, "%lf,%lf,%lf", &t, &q, &v), 3);
  fclose(f);
  imp_assert_near(t, 0.1, 1e-12); /* 100 steps of 1 ms */
}
END_TEST

START_TEST(run_records_npy_with_dt) {
  const char* rec = imp_test_in_dir(dir, "pend.npy");
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps=7 --dt=0.01 --record='%s'", PENDULUM, rec);
  ck_assert_msg(impetus(args) == 0, "stderr: %s", imp_test_text_of(err_path));
  ck_assert(strstr(imp_test_text_of(out_path), "timestep: 0.01\n") != NULL);
  struct stat st;
  ck_assert_int_eq(stat(rec, &st), 0);
  ck_assert_int_eq(st.st_size, 128 + 8 * 3 * 8); /* header, 8 rows of 3 doubles */
  char json[4400];
  snprintf(json, sizeof json, "%s.json", rec);
  const char* side = imp_test_text_of(json);
  ck_assert_msg(strstr(side, "\"rows\": 8") != NULL, "%s", side);
  ck_assert_msg(strstr(side, "\"timestep\": 0.01") != NULL, "%s", side);
}
END_TEST

/* A model with sensors records them after ctrl, named after the sensors;
   row k's are the values of step k's start state (MuJoCo's convention), so
   the jointpos of row 2 is the qpos of row 1. */
START_TEST(run_records_sensors) {
  const char* rec = imp_test_in_dir(dir, "sensors.csv");
  char args[8800];
  snprintf(args, sizeof args, "run '%s/sensors.xml' --steps 3 --key reach --record '%s'",
           IMP_MODELS_DIR, rec);
  ck_assert_msg(impetus(args) == 0, "stderr: %s", imp_test_text_of(err_path));
  const char* text = imp_test_text_of(rec);
  ck_assert_msg(strstr(text, ",ctrl_3,sensor_yaw,sensor_shoulder_vel,sensor_extend,"
                             "sensor_wrist_quat_0,sensor_wrist_quat_1,") != NULL,
                "%.400s", text);
  ck_assert_msg(strstr(text, ",sensor_clock,sensor36_0,sensor36_1,sensor36_2\n") != NULL,
                "%.2000s", text);
  ck_assert_int_eq(count_lines(rec), 1 + 4);
  /* qpos_0 of row 1 is the yaw sensor of row 2 (the first sensor column) */
  const char* row1 = strchr(text, '\n') + 1;
  row1 = strchr(row1, '\n') + 1;
  const char* row2 = strchr(row1, '\n') + 1;
  double t1, q1, t2;
  ck_assert_int_eq(sscanf(row1, "%lf,%lf", &t1, &q1), 2);
  ck_assert_int_eq(sscanf(row2, "%lf", &t2), 1);
  const char* p = row2;
  for (int c = 0; c < 1 + 8 + 7 + 4; c++) p = strchr(p, ',') + 1; /* time, qpos, qvel, ctrl */
  double yaw = strtod(p, NULL);
  ck_assert(t2 > t1);
  ck_assert_msg(yaw == q1, "yaw sensor %.17g, qpos_0 of the row before %.17g", yaw, q1);
}
END_TEST

START_TEST(run_without_recording) {
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 0"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "steps: 0\n") != NULL);
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 50"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "time: 0.05\n") != NULL);
  ck_assert(strstr(imp_test_text_of(out_path), "nan_resets: 0\n") != NULL);
}
END_TEST

START_TEST(run_nonfinite_exits_3) {
  /* a 40 N/m spring on 1 kg stepped with h = 1 s: explicit in the spring, it blows up */
  const char* rec = imp_test_in_dir(dir, "blowup.csv");
  char args[8800];
  snprintf(args, sizeof args, "run '%s/slider_spring.xml' --steps 100 --dt 1 --record '%s'",
           IMP_MODELS_DIR, rec);
  ck_assert_int_eq(impetus(args), 3);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "non-finite") != NULL, "%s", imp_test_text_of(err_path));
  ck_assert(strstr(imp_test_text_of(out_path), "nan_resets: 0\n") == NULL);
  ck_assert_int_eq(count_lines(rec), 1 + 101); /* the recording is still complete */
}
END_TEST

START_TEST(bench_prints_speed) {
  ck_assert_msg(impetus("bench '" PENDULUM "' --steps 200 --ctrlnoise 0.01") == 0, "%s",
                imp_test_text_of(err_path));
  const char* out = imp_test_text_of(out_path);
  const char* keys[] = {"model: pendulum\n", "steps: 200\n", "timestep: 0.001\n",
                        "steps_per_second: ", "realtime_factor: ", "ns_per_step: "};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    ck_assert_msg(strstr(out, keys[i]) != NULL, "no '%s' in:\n%s", keys[i], out);
  ck_assert_msg(strstr(out, "contacts_per_step: 0\n") != NULL, "pendulum has no contacts:\n%s", out);
  /* a scene with contacts: 19 at the first step (4 of them the standing cylinder) */
  ck_assert_int_eq(impetus("bench '" IMP_MODELS_DIR "/contact_primitives.xml' --steps 1"), 0);
  out = imp_test_text_of(out_path);
  ck_assert_msg(strstr(out, "contacts_per_step: 19\n") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "collision_ns_per_step: ") != NULL, "%s", out);
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 0"), 2);
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --ctrlnoise -1"), 2);
  ck_assert_int_eq(impetus("bench"), 2);
}
END_TEST

/* ---- the contact solvers on the command line ---- */

/* A 0.1 m ball resting 1 mm into a plane: one condim-3 contact, so 3 rows
   and one island whatever the solver (contact.h). */
static const char* const ball_on_plane_xml =
    "<mujoco model=\"ball_on_plane\"><option timestep=\"0.002\"/><worldbody>"
    "<geom name=\"floor\" type=\"plane\" size=\"1 1 0.1\"/>"
    "<body name=\"ball\" pos=\"0 0 0.099\"><freejoint/>"
    "<geom name=\"ball\" type=\"sphere\" size=\"0.1\" condim=\"3\"/></body>"
    "</worldbody></mujoco>\n";

/* Write the ball-on-plane model into the scratch directory; its path. */
static const char* write_ball_on_plane(void) {
  const char* path = imp_test_in_dir(dir, "ball_on_plane.xml");
  FILE* f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs(ball_on_plane_xml, f);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

/* The value of "key: " in text as a number that must parse to the end of
   its line (fails the test otherwise). */
static double key_number(const char* text, const char* key) {
  char pat[128];
  snprintf(pat, sizeof pat, "\n%s: ", key);
  const char* p = strstr(text, pat);
  if (!p && strncmp(text, pat + 1, strlen(pat + 1)) == 0) p = text - 1; /* the first line */
  ck_assert_msg(p != NULL, "no '%s: ' in:\n%s", key, text);
  p += strlen(pat);
  char* end = NULL;
  double v = strtod(p, &end);
  ck_assert_msg(end != p && *end == '\n', "%s: not a number: '%.40s'", key, p);
  ck_assert_msg(isfinite(v), "%s: %g", key, v);
  return v;
}

/* True when the value is a whole number (counts printed by %.6g stay exact below 1e6). */
static int is_whole(double v) { return v == floor(v); }

/* ---- the run summary: solver, speed and height figures ---- */

/* The text after "key: " up to the end of its line, into buf. */
static const char* key_text(const char* text, const char* key, char* buf, size_t n) {
  char pat[128];
  snprintf(pat, sizeof pat, "\n%s: ", key);
  const char* p = strstr(text, pat);
  ck_assert_msg(p != NULL, "no '%s: ' in:\n%s", key, text);
  p += strlen(pat);
  size_t len = strcspn(p, "\n");
  ck_assert_msg(len < n, "%s: value too long", key);
  memcpy(buf, p, len);
  buf[len] = '\0';
  return buf;
}

/* A body dropped from rest reaches g t at the end of the fall, and its free
   joint's height follows the parabola up to the Euler step's error. */
START_TEST(run_summary_free_fall) {
  char buf[256];
  ck_assert_msg(impetus("run '" IMP_MODELS_DIR "/free_fall.xml' --steps 1000") == 0, "%s",
                imp_test_text_of(err_path));
  const char* out = imp_test_text_of(out_path);
  double t = key_number(out, "time"), g = 9.81, h = 0.001;
  imp_assert_near(t, 1, 1e-12);
  imp_assert_near(key_number(out, "max_body_speed"), g * t, 1e-9);
  ck_assert_str_eq(key_text(out, "max_body_speed_body", buf, sizeof buf), "box");
  ck_assert_int_eq((int)key_number(out, "max_body_speed_step"), 1000);
  /* semi-implicit Euler falls g t h / 2 further than the parabola */
  imp_assert_near(key_number(out, "root_height"), 3 - g * t * t / 2 - g * t * h / 2, 1e-9);
  ck_assert_int_eq((int)key_number(out, "steps_not_converged"), 0); /* contact disabled */
  /* no step: nothing has moved yet, and the body is where the file puts it */
  ck_assert_int_eq(impetus("run '" IMP_MODELS_DIR "/free_fall.xml' --steps 0"), 0);
  out = imp_test_text_of(out_path);
  ck_assert(key_number(out, "max_body_speed") == 0);
  ck_assert_str_eq(key_text(out, "max_body_speed_body", buf, sizeof buf), "none");
  ck_assert(key_number(out, "root_height") == 3);
}
END_TEST

/* The pendulum released from 45 degrees: its centre of mass is fastest at
   the bottom, a quarter period after the release, at the speed energy
   conservation gives (light damping takes a fraction of a percent). */
START_TEST(run_summary_pendulum) {
  char buf[256];
  ck_assert_msg(impetus("run '" PENDULUM "' --steps 1000 --key release") == 0, "%s",
                imp_test_text_of(err_path));
  const char* out = imp_test_text_of(out_path);
  /* rod 0.05 kg (0 to 0.8 m, thin), bob 1 kg sphere of radius 0.06 at 0.8 m */
  double mass = 1.05, rc = (0.05 * 0.4 + 1 * 0.8) / mass, g = 9.81, th = atan(1);
  double inertia = 0.05 * 0.64 / 3 + 0.4 * 0.06 * 0.06 + 0.64;
  double w = sqrt(2 * mass * g * rc * (1 - cos(th)) / inertia);
  imp_assert_rel(key_number(out, "max_body_speed"), w * rc, 0.01);
  ck_assert_str_eq(key_text(out, "max_body_speed_body", buf, sizeof buf), "pole");
  /* quarter period with the amplitude correction T0 (1 + th^2/16 + 11 th^4/3072) */
  double T = 8 * atan(1) * sqrt(inertia / (mass * g * rc)) *
             (1 + th * th / 16 + 11 * pow(th, 4) / 3072);
  double step = key_number(out, "max_body_speed_step");
  ck_assert_msg(fabs(step - T / 4 / 0.001) <= 5, "fastest at step %g, a quarter period is %g",
                step, T / 4 / 0.001);
  ck_assert_str_eq(key_text(out, "root_height", buf, sizeof buf), "none"); /* a hinge only */
  /* the keyframe by number (#0) is the keyframe by name */
  char by_name[256];
  key_text(out, "max_body_speed", by_name, sizeof by_name);
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 1000 --key '#0'"), 0);
  ck_assert_str_eq(key_text(imp_test_text_of(out_path), "max_body_speed", buf, sizeof buf), by_name);
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10 --key '#1'"), 1);
}
END_TEST

/* A box at rest on the floor: every step's contact problem converges, it
   stays where it is and barely moves. */
START_TEST(run_summary_resting) {
  ck_assert_msg(impetus("run '" IMP_MODELS_DIR "/box_rest.xml' --steps 2000") == 0, "%s",
                imp_test_text_of(err_path));
  const char* out = imp_test_text_of(out_path);
  ck_assert_int_eq((int)key_number(out, "steps_not_converged"), 0);
  ck_assert_msg(strstr(out, "worst_exit: converged\n") != NULL, "%s", out);
  ck_assert_msg(key_number(out, "max_body_speed") < 1e-3, "%s", out);
  imp_assert_near(key_number(out, "root_height"), 0.1, 1e-4);
}
END_TEST

/* steps_not_converged agrees with the worst exit: zero exactly when every
   step converged, and never more than the steps. */
START_TEST(run_summary_not_converged_counts) {
  ck_assert_int_eq(impetus("run '" IMP_MODELS_DIR "/box_pile.xml' --steps 300"), 0);
  const char* out = imp_test_text_of(out_path);
  double n = key_number(out, "steps_not_converged");
  ck_assert(is_whole(n) && n >= 0 && n <= 300);
  int all_converged = strstr(out, "worst_exit: converged\n") != NULL;
  ck_assert_msg(all_converged == (n == 0), "steps_not_converged %g with:\n%s", n, out);
}
END_TEST

/* --step-budget W: a budget below what the pile's steps need stops some
   islands early and counts the steps; the default counts none; W must be
   a positive number (bad usage otherwise, nothing run). */
START_TEST(run_step_budget_counts) {
  ck_assert_int_eq(impetus("run '" IMP_MODELS_DIR "/box_pile.xml' --steps 300"), 0);
  ck_assert_int_eq((int)key_number(imp_test_text_of(out_path), "steps_over_budget"), 0);
  ck_assert_int_eq(impetus("run '" IMP_MODELS_DIR "/box_pile.xml' --steps 300 --step-budget 2e3"),
                   0);
  const char* out = imp_test_text_of(out_path);
  double n = key_number(out, "steps_over_budget");
  ck_assert_msg(is_whole(n) && n > 0 && n <= key_number(out, "steps_not_converged"), "%s", out);
  const char* bad[] = {"0", "-1", "abc", "inf"};
  for (int i = 0; i < 4; i++) {
    char args[600];
    snprintf(args, sizeof args, "run '" PENDULUM "' --steps 10 --step-budget %s", bad[i]);
    ck_assert_msg(impetus(args) == 2, "--step-budget %s", bad[i]);
    ck_assert_str_eq(imp_test_text_of(out_path), "");
  }
}
END_TEST

/* ---- stopping on SIGTERM and SIGINT ---- */

/* A step far longer than the 2 s the signal handler waits: 100 pairs of
   free bodies of 4 overlapping boxes each, every pair an island of 192
   redundant contact rows, solved by projected Gauss-Seidel with a limit of a
   billion sweeps and a tolerance of 0 that only a bit-exact fixed point
   meets. The stage's work bound (IMP_SOLVE_WORK_MAX) ends each island's
   solve, so the step ends, but only after 100 islands at their bound: about
   5 s here, longer under the sanitizers. It stands for a step that does not
   end in time, with no hook in the engine. */
/* Write pairs islands of two free bodies of 4 overlapping boxes each (192
   redundant contact rows an island, no gravity) under option to file name
   in the test directory; its path. */
static const char* write_box_pairs(const char* name, const char* option, int pairs) {
  const char* path = imp_test_in_dir(dir, name);
  FILE* f = fopen(path, "w");
  ck_assert(f != NULL);
  fprintf(f, "<mujoco><option %s gravity='0 0 0'/><worldbody>\n", option);
  for (int p = 0; p < pairs; p++)
    for (int b = 0; b < 2; b++) {
      fprintf(f, "<body pos='%g %g %g'><freejoint/>", p + 0.05 * b, 0.05 * b, 1 + 0.05 * b);
      for (int i = 0; i < 4; i++)
        fprintf(f, "<geom type='box' size='.1 .1 .1' pos='%g 0 0'/>", 0.001 * i);
      fputs("</body>\n", f);
    }
  fputs("</worldbody></mujoco>\n", f);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

/* (run with --step-budget 1e15: the default budget of 1e9 ends its step
   in about 2.5 s here, too close to the 2 s grace these tests need) */
static const char* write_endless_step_model(void) {
  return write_box_pairs("endless_step.xml",
                         "solver='pgs' iterations='1000000000' tolerance='0'", 100);
}

/* Start `impetus run model --steps N --record rec` in the background,
   stdout and stderr to the test's files; its pid. */
static pid_t start_run_opt(const char* model, const char* steps, const char* rec,
                           const char* opt, const char* value);
static pid_t start_run(const char* model, const char* steps, const char* rec) {
  return start_run_opt(model, steps, rec, NULL, NULL);
}

/* The same with one more option and its value (opt NULL: none). */
static pid_t start_run_opt(const char* model, const char* steps, const char* rec,
                           const char* opt, const char* value) {
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    if (!freopen(out_path, "w", stdout) || !freopen(err_path, "w", stderr)) _exit(127);
    execl(IMPETUS_BIN, IMPETUS_BIN, "run", model, "--steps", steps, "--record", rec, opt, value,
          (char*)NULL);
    _exit(127);
  }
  return pid;
}

/* Wait until the recording of rec has its temporary file (the recorder has
   opened it and the loop is about to step), its name into tmp; fails the
   test after 20 s. */
static void wait_for_temp(const char* rec, pid_t pid, char* tmp, size_t n) {
  for (double t0 = imp_test_now_s(); !find_temp(rec, tmp, n); imp_test_sleep_s(0.01)) {
    if (imp_test_now_s() - t0 > 20) {
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
      ck_abort_msg("no temporary file of %s appeared; stderr: %s", rec, imp_test_text_of(err_path));
    }
  }
}

/* The threads of process pid (/proc/PID/status), -1 when unreadable. */
static int thread_count(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  int n = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  fclose(f);
  return n;
}

/* Wait up to limit seconds for pid to exit; its exit status (the test
   fails, the process killed, if it is still running or died of a signal).
   *took: seconds waited. */
static int wait_exit(pid_t pid, double limit, double* took) {
  double t0 = imp_test_now_s();
  int st = 0;
  while (waitpid(pid, &st, WNOHANG) == 0) {
    if (imp_test_now_s() - t0 > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
      ck_abort_msg("impetus run still running %g s after the signal", limit);
    }
    imp_test_sleep_s(0.01);
  }
  *took = imp_test_now_s() - t0;
  ck_assert_msg(WIFEXITED(st), "impetus run died of signal %d", WTERMSIG(st));
  return WEXITSTATUS(st);
}

/* The program users simulate with runs in one thread, also while the
   contact stage factors islands with LAPACK (islands of 192 rows, above
   LAPACK_MIN_ROWS): no library brings a thread pool (Siconos' threaded
   OpenBLAS lives in impetus-compare only). */
START_TEST(run_is_one_thread) {
  const char* path = write_box_pairs("one_thread.xml", "", 10);
  const char* rec = imp_test_in_dir(dir, "one_thread.csv");
  char tmp[4400];
  pid_t pid = start_run(path, "1000000", rec);
  wait_for_temp(rec, pid, tmp, sizeof tmp);
  imp_test_sleep_s(0.3); /* stepping */
  int threads = thread_count(pid);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  unlink(tmp);
  ck_assert_msg(threads == 1, "impetus run had %d threads", threads);
}
END_TEST

/* Between steps: the loop sees the flag at the next step boundary, discards
   the recording and says how far it got. */
START_TEST(run_signal_between_steps) {
  const int sigs[] = {SIGTERM, SIGINT};
  for (int k = 0; k < 2; k++) {
    const char* rec = imp_test_in_dir(dir, k ? "int.csv" : "term.csv");
    char tmp[4400];
    pid_t pid = start_run(PENDULUM, "1000000000", rec);
    wait_for_temp(rec, pid, tmp, sizeof tmp);
    imp_test_sleep_s(0.2); /* well into the steps */
    kill(pid, sigs[k]);
    double took = 0;
    ck_assert_int_eq(wait_exit(pid, 30, &took), 130);
    const char* err = imp_test_text_of(err_path);
    ck_assert_msg(strstr(err, "interrupted after ") && strstr(err, "nothing written to "),
                  "want the step-boundary message: %s", err);
    ck_assert_str_eq(imp_test_text_of(out_path), ""); /* no summary of a run that did not finish */
    assert_nothing_at(rec);
  }
}
END_TEST

/* In a step that does not end: 2 s after the signal the process exits 130
   from the handler, removing the recording's temporary file. */
START_TEST(run_signal_in_endless_step) {
  const char* model = write_endless_step_model();
  const char* rec = imp_test_in_dir(dir, "endless.npy");
  char tmp[4400];
  pid_t pid = start_run_opt(model, "10", rec, "--step-budget", "1e15");
  wait_for_temp(rec, pid, tmp, sizeof tmp);
  imp_test_sleep_s(0.5); /* inside the first step */
  kill(pid, SIGTERM);
  double took = 0;
  ck_assert_int_eq(wait_exit(pid, 30, &took), 130);
  const char* err = imp_test_text_of(err_path);
  ck_assert_msg(strstr(err, "in the middle of a step") != NULL, "want the grace message: %s",
                err);
  ck_assert_msg(strstr(err, "interrupted after ") == NULL, "the step ended after all: %s", err);
  /* the grace is 2 s; the bound leaves room for a loaded machine */
  ck_assert_msg(took >= 1.5 && took < 10, "exited %g s after the signal", took);
  assert_nothing_at(rec);
}
END_TEST

/* A second signal does not wait for the grace to run out. */
START_TEST(run_second_signal_exits_at_once) {
  const char* model = write_endless_step_model();
  const char* rec = imp_test_in_dir(dir, "twice.csv");
  char tmp[4400];
  pid_t pid = start_run_opt(model, "10", rec, "--step-budget", "1e15");
  wait_for_temp(rec, pid, tmp, sizeof tmp);
  imp_test_sleep_s(0.5);
  kill(pid, SIGINT);
  imp_test_sleep_s(0.1);
  double t0 = imp_test_now_s();
  kill(pid, SIGINT);
  double took = 0;
  ck_assert_int_eq(wait_exit(pid, 30, &took), 130);
  took = imp_test_now_s() - t0;
  ck_assert_msg(strstr(imp_test_text_of(err_path), "in the middle of a step") != NULL, "%s",
                imp_test_text_of(err_path));
  ck_assert_msg(took < 1.5, "exited %g s after the second signal (the grace is 2 s)", took);
  assert_nothing_at(rec);
}
END_TEST

/* A closed terminal (SIGHUP) stops the run like Ctrl-C: exit 130 and no
   file left behind, the temporary one included. */
START_TEST(run_sighup_leaves_nothing) {
  const char* rec = imp_test_in_dir(dir, "hup.csv");
  char tmp[4400];
  pid_t pid = start_run(PENDULUM, "1000000000", rec);
  wait_for_temp(rec, pid, tmp, sizeof tmp);
  imp_test_sleep_s(0.2);
  kill(pid, SIGHUP);
  double took = 0;
  ck_assert_int_eq(wait_exit(pid, 30, &took), 130);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "interrupted after ") != NULL, "%s", imp_test_text_of(err_path));
  assert_nothing_at(rec);
}
END_TEST

/* Symbolic links planted where the recording's temporary files used to go
   ("<rec>.tmp", "<rec>.json.tmp") are not followed: the file they point
   at keeps its bytes, the links stay, and the recording is a file of its
   own at rec with its sidecar. */
START_TEST(run_record_ignores_planted_links) {
  const char* victim = imp_test_in_dir(dir, "victim.txt");
  FILE* f = fopen(victim, "w");
  ck_assert(f && fputs("precious\n", f) >= 0 && fclose(f) == 0);
  const char* rec = imp_test_in_dir(dir, "linked.npy");
  char link1[4400], link2[4400];
  snprintf(link1, sizeof link1, "%s.tmp", rec);
  snprintf(link2, sizeof link2, "%s.json.tmp", rec);
  ck_assert_int_eq(symlink(victim, link1), 0);
  ck_assert_int_eq(symlink(victim, link2), 0);
  char args[9000];
  snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s'", PENDULUM, rec);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  ck_assert_str_eq(imp_test_text_of(victim), "precious\n");
  struct stat st;
  ck_assert(lstat(rec, &st) == 0 && S_ISREG(st.st_mode));
  ck_assert_int_eq((long long)st.st_size, 128 + 3 * 8 * 11); /* 11 rows of 3 columns */
  char json[4400];
  snprintf(json, sizeof json, "%s.json", rec);
  ck_assert(lstat(json, &st) == 0 && S_ISREG(st.st_mode));
  ck_assert(lstat(link1, &st) == 0 && S_ISLNK(st.st_mode));
  ck_assert(lstat(link2, &st) == 0 && S_ISLNK(st.st_mode));
  char tmp[4400];
  ck_assert_msg(!find_temp(rec, tmp, sizeof tmp) || strcmp(tmp, link1) == 0 ||
                    strcmp(tmp, link2) == 0,
                "%s left behind", tmp);
}
END_TEST

/* Two runs recording to one path at once: both succeed, and what is left
   is the whole recording of one of them, its sidecar with it (a run that
   ends while the other is still writing does not share its file). */
START_TEST(run_two_runs_one_path) {
  const char* rec = imp_test_in_dir(dir, "both.npy");
  char tmp[4400], json[4400];
  snprintf(json, sizeof json, "%s.json", rec);
  pid_t a = start_run(PENDULUM, "400000", rec); /* long: still writing when b ends */
  wait_for_temp(rec, a, tmp, sizeof tmp);
  pid_t b = fork();
  ck_assert(b >= 0);
  if (b == 0) {
    execl(IMPETUS_BIN, IMPETUS_BIN, "run", PENDULUM, "--steps", "999", "--record", rec,
          "--quiet", (char*)NULL);
    _exit(127);
  }
  int st = 0;
  ck_assert_int_eq(waitpid(b, &st, 0), b);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the short run failed");
  double took = 0;
  ck_assert_msg(wait_exit(a, 120, &took) == 0, "the long run failed: %s", imp_test_text_of(err_path));
  /* the long run ended last: its recording, whole, and its sidecar */
  struct stat sb;
  ck_assert_int_eq(stat(rec, &sb), 0);
  ck_assert_int_eq((long long)sb.st_size, 128 + 3 * 8 * 400001LL);
  ck_assert_msg(strstr(imp_test_text_of(json), "\"rows\": 400001,") != NULL, "%s", imp_test_text_of(json));
  FILE* f = fopen(rec, "rb");
  ck_assert(f != NULL);
  char head[129] = "";
  ck_assert_int_eq(fread(head, 1, 128, f), 128);
  ck_assert_msg(strstr(head + 10, "(400001, 3)") != NULL, "header: %.118s", head + 10);
  /* row k is at time k dt: no row of the other run in between */
  double row[3], dt = 0.001;
  for (long k = 0; k <= 400000; k += 997) {
    ck_assert_int_eq(fseek(f, 128 + 24 * k, SEEK_SET), 0);
    ck_assert_int_eq(fread(row, 8, 3, f), 3);
    ck_assert_msg(fabs(row[0] - dt * (double)k) < 1e-6, "row %ld has time %g", k, row[0]);
  }
  fclose(f);
  ck_assert_msg(!find_temp(rec, tmp, sizeof tmp), "%s left behind", tmp);
}
END_TEST

START_TEST(solvers_lists_registry) {
  ck_assert_int_eq(impetus("solvers"), 0);
  const char* out = imp_test_text_of(out_path);
  int n = imp_solver_count();
  ck_assert_int_ge(n, 2);
  ck_assert_int_eq(count_lines(out_path), n); /* one solver a line, nothing else */
  /* line i: the name as its first word, the description, the default (index 0) marked */
  const char* line = out;
  for (int i = 0; i < n; i++) {
    const char* eol = strchr(line, '\n');
    ck_assert(eol != NULL);
    size_t len = strlen(imp_solver_name(i));
    ck_assert_msg(strncmp(line, imp_solver_name(i), len) == 0 && line[len] == ' ',
                  "line %d does not start with '%s': %s", i, imp_solver_name(i), out);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(eol - line), line);
    ck_assert_msg(strstr(buf, imp_solver_description(i)) != NULL, "no description in '%s'", buf);
    ck_assert_msg((strstr(buf, "(default)") != NULL) == (i == 0), "default mark: '%s'", buf);
    line = eol + 1;
  }
  ck_assert_msg(strncmp(out, "todorov ", 8) == 0, "todorov is not the default:\n%s", out);
  ck_assert_msg(strstr(out, "\npgs ") != NULL, "no pgs in:\n%s", out);

  ck_assert_int_eq(impetus("help solvers"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "usage: impetus solvers") != NULL);
  ck_assert_int_eq(impetus("solvers --help"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "usage: impetus solvers") != NULL);
  ck_assert_int_eq(impetus("help"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "  solvers ") != NULL);
  ck_assert_int_eq(impetus("solvers extra"), 2);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  /* every command's help names the option */
  const char* cmds[] = {"help run", "help bench", "help check"};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(impetus(cmds[i]), 0);
    ck_assert_msg(strstr(imp_test_text_of(out_path), "--solver NAME") != NULL, "%s", cmds[i]);
  }
  ck_assert(impetus("help run") == 0 && strstr(imp_test_text_of(out_path), "--record-solver") != NULL);
}
END_TEST

START_TEST(solver_option_accepted) {
  /* no constraint rows in the pendulum: no iterations, nothing to fail */
  ck_assert_msg(impetus("run '" PENDULUM "' --steps 10 --solver pgs") == 0, "%s",
                imp_test_text_of(err_path));
  ck_assert_msg(strstr(imp_test_text_of(out_path), "solver: pgs iterations: 0 worst_exit: converged\n"),
                "%s", imp_test_text_of(out_path));
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10"), 0);
  ck_assert_msg(strstr(imp_test_text_of(out_path), "solver: todorov iterations: 0 worst_exit: converged\n"),
                "%s", imp_test_text_of(out_path));
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10 --solver=todorov"), 0);
  ck_assert_msg(impetus("bench '" PENDULUM "' --steps 10 --solver pgs") == 0, "%s",
                imp_test_text_of(err_path));
  ck_assert_msg(strstr(imp_test_text_of(out_path), "\nsolver: pgs\n") != NULL, "%s", imp_test_text_of(out_path));
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 10 --solver=pgs"), 0);
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 10 --solver"), 2);
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10 --solver"), 2);

  /* check --contacts --solver: one more line after the contacts */
  const char* ball = write_ball_on_plane();
  char args[8800];
  snprintf(args, sizeof args, "check --contacts --solver pgs '%s'", ball);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  const char* out = imp_test_text_of(out_path);
  ck_assert_msg(strstr(out, "ncon: 1\n") != NULL, "%s", out);
  const char* line = strstr(out, "\nsolver: pgs iterations: ");
  ck_assert_msg(line != NULL, "%s", out);
  int iters = -1;
  char exit_name[32] = "";
  double residual = -1;
  ck_assert_int_eq(sscanf(line, "\nsolver: pgs iterations: %d exit: %31s residual: %lf", &iters,
                          exit_name, &residual), 3);
  ck_assert_int_ge(iters, 0);
  ck_assert(residual >= 0);
  ck_assert_int_eq(count_lines(out_path), 19 + 1 + 1);
  snprintf(args, sizeof args, "check --solver pgs '%s'", ball); /* needs --contacts */
  ck_assert_int_eq(impetus(args), 2);
}
END_TEST

START_TEST(unknown_solver_is_usage) {
  const char* recs[] = {imp_test_in_dir(dir, "s.csv"), imp_test_in_dir(dir, "s.npy")};
  for (int k = 0; k < 2; k++) {
    char args[8800];
    snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s' --record-solver --solver nosuch",
             PENDULUM, recs[k]);
    ck_assert_int_eq(impetus(args), 2);
    const char* err = imp_test_text_of(err_path);
    ck_assert_msg(strstr(err, "nosuch") && strstr(err, "todorov") && strstr(err, "pgs"),
                  "the message should list the known solvers: %s", err);
    assert_nothing_at(recs[k]);
  }
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 10 --solver nosuch"), 2);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  ck_assert(strstr(imp_test_text_of(err_path), "pgs") != NULL);
  ck_assert_int_eq(impetus("check --contacts --solver nosuch '" PENDULUM "'"), 2);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  /* --record-solver without a recording is bad usage too */
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10 --record-solver"), 2);
}
END_TEST

START_TEST(bench_prints_solver_figures) {
  const char* keys[] = {"solver_iterations_per_step", "newton_share", "solver_residual_max",
                        "constraint_rows_per_step", "islands_per_step", "solver_ns_per_step"};
  /* the pendulum: no rows, so the figures are zeros, except the timer */
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 20"), 0);
  const char* out = imp_test_text_of(out_path);
  ck_assert_msg(strstr(out, "\nsolver: todorov\n") != NULL, "%s", out);
  for (int i = 0; i < 5; i++) ck_assert_msg(key_number(out, keys[i]) == 0, "%s:\n%s", keys[i], out);
  ck_assert(key_number(out, "solver_ns_per_step") >= 0);
  ck_assert_int_eq(count_lines(out_path), 11 + 7 + 5 + 2); /* the old lines and the new ones */
  ck_assert_msg(key_number(out, "steps_over_budget") == 0, "%s", out);
  ck_assert_msg(key_number(out, "solver_work_per_step_max") == 0, "%s", out);
  ck_assert_msg(key_number(out, "steps_not_converged") == 0, "%s", out);
  ck_assert_msg(key_number(out, "island_iterations_max") == 0, "%s", out);

  /* the ball on the plane: 1 contact, 3 rows, 1 island on every step, any solver */
  const char* ball = write_ball_on_plane();
  const char* solvers[] = {"todorov", "pgs"};
  for (int s = 0; s < 2; s++) {
    char args[8800];
    snprintf(args, sizeof args, "bench '%s' --steps 20 --solver %s", ball, solvers[s]);
    ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
    out = imp_test_text_of(out_path);
    char want[64];
    snprintf(want, sizeof want, "\nsolver: %s\n", solvers[s]);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_msg(key_number(out, "contacts_per_step") == 1, "%s", out);
    ck_assert_msg(key_number(out, "constraint_rows_per_step") == 3, "%s", out);
    ck_assert_msg(key_number(out, "islands_per_step") == 1, "%s", out);
    double it = key_number(out, "solver_iterations_per_step");
    double share = key_number(out, "newton_share");
    ck_assert_msg(it >= 0 && share >= 0 && share <= 1, "%s", out);
    ck_assert(key_number(out, "solver_residual_max") >= 0);
    ck_assert(key_number(out, "solver_ns_per_step") >= 0);
    ck_assert(is_whole(20 * it)); /* a mean of 20 counts */
    ck_assert_msg(key_number(out, "steps_not_converged") == 0, "%s", out);
    double med = key_number(out, "island_iterations_median");
    double p90 = key_number(out, "island_iterations_p90");
    double max = key_number(out, "island_iterations_max");
    ck_assert_msg(med >= 0 && med <= p90 && p90 <= max && max <= 3 * 100 + 1, "%s", out);
    ck_assert_msg(max >= it, "%s", out); /* one island a step: its mean is at most the max */
  }
}
END_TEST

/* the 1-based number of the first line where a and b differ; 0 if none */
static int first_differing_line(const char* a, const char* b) {
  int line = 1;
  for (; *a && *a == *b; a++, b++) line += *a == '\n';
  return *a == *b ? 0 : line;
}

/* A recording made with islands on 3 threads is byte for byte the one made
   on 1 (imp_set_threads' promise, seen from the command line). */
START_TEST(run_threads_record_the_same) {
  const char* path = write_box_pairs("three_pairs.xml", "timestep='0.002'", 3);
  char args[8800];
  const char* one = imp_test_in_dir(dir, "one_thread.csv");
  const char* three = imp_test_in_dir(dir, "three_threads.csv");
  snprintf(args, sizeof args, "run '%s' --steps 40 --every 2 --record '%s' --record-solver", path, one);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  snprintf(args, sizeof args, "run '%s' --steps 40 --every 2 --record '%s' --record-solver --threads 3", path,
           three);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  char* a = strdup(imp_test_text_of(one));
  const char* b = imp_test_text_of(three);
  ck_assert(strlen(a) > 1000);
  ck_assert_msg(strcmp(a, b) == 0, "the recordings differ from line %d on", first_differing_line(a, b));
  free(a);
  snprintf(args, sizeof args, "run '%s' --steps 1 --threads 65", path);
  ck_assert_int_eq(impetus(args), 2);
}
END_TEST

/* Every step that did not converge is counted, by bench as by run, and
   bench's figures do not depend on the number of threads. Boxes pushed
   into each other with two iterations allowed cannot converge. */
START_TEST(bench_counts_unconverged_steps) {
  const char* path = write_box_pairs("two_iterations.xml", "iterations='2' tolerance='1e-12'", 3);
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 30", path);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  double run_nc = key_number(imp_test_text_of(out_path), "steps_not_converged");
  ck_assert_msg(run_nc > 0, "%s", imp_test_text_of(out_path));
  double first[6] = {0};
  const char* keys[] = {"steps_not_converged", "island_iterations_median", "island_iterations_p90",
                        "island_iterations_max", "solver_iterations_per_step", "islands_per_step"};
  for (int t = 1; t <= 3; t += 2) {
    snprintf(args, sizeof args, "bench '%s' --steps 30 --threads %d", path, t);
    ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
    const char* out = imp_test_text_of(out_path);
    for (int k = 0; k < 6; k++) {
      double v = key_number(out, keys[k]);
      if (t == 1) first[k] = v;
      ck_assert_msg(v == first[k], "%s with %d threads:\n%s", keys[k], t, out);
    }
    ck_assert_msg(key_number(out, "steps_not_converged") == run_nc, "%s", out);
    ck_assert_msg(key_number(out, "island_iterations_max") >= 2, "%s", out);
    ck_assert_msg(key_number(out, "islands_per_step") >= 2, "%s", out);
  }
  snprintf(args, sizeof args, "bench '%s' --steps 3 --threads 0", path);
  ck_assert_int_eq(impetus(args), 2);
  snprintf(args, sizeof args, "bench '%s' --steps 3 --threads 65", path);
  ck_assert_int_eq(impetus(args), 2);
}
END_TEST

/* The data lines of a CSV recording: the last four fields of each row. */
static int read_solver_columns(const char* path, double cols[][4], int maxrows, char* header,
                               size_t hsz) {
  FILE* f = fopen(path, "r");
  ck_assert_msg(f != NULL, "no %s", path);
  static char line[65536];
  ck_assert(fgets(line, sizeof line, f) != NULL);
  size_t hlen = strnlen(line, hsz - 1); /* cut to hsz - 1 as snprintf would, without gcc's warning */
  memcpy(header, line, hlen);
  header[hlen] = '\0';
  int rows = 0;
  while (fgets(line, sizeof line, f)) {
    ck_assert_int_lt(rows, maxrows);
    char* p = line + strlen(line);
    int commas = 0;
    while (p > line && commas < 4) commas += *--p == ',';
    ck_assert_int_eq(commas, 4);
    ck_assert_int_eq(sscanf(p, ",%lf,%lf,%lf,%lf", &cols[rows][0], &cols[rows][1],
                            &cols[rows][2], &cols[rows][3]), 4);
    rows++;
  }
  fclose(f);
  return rows;
}

START_TEST(record_solver_csv) {
  const char* ball = write_ball_on_plane();
  const char* rec = imp_test_in_dir(dir, "ball.csv");
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 10 --every 2 --record '%s' --record-solver", ball,
           rec);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  ck_assert(strstr(imp_test_text_of(out_path), "rows: 6\n") != NULL);
  double cols[8][4];
  char header[4096];
  ck_assert_int_eq(read_solver_columns(rec, cols, 8, header, sizeof header), 6);
  ck_assert_str_eq(header,
                   "time,qpos_0,qpos_1,qpos_2,qpos_3,qpos_4,qpos_5,qpos_6,"
                   "qvel_0,qvel_1,qvel_2,qvel_3,qvel_4,qvel_5,"
                   "ncon,nefc,solver_iter,solver_residual\n");
  for (int c = 0; c < 4; c++) ck_assert(cols[0][c] == 0); /* the initial row: no step yet */
  for (int r = 1; r < 6; r++) {
    ck_assert_msg(cols[r][0] == 1 && cols[r][1] == 3, "row %d: ncon %g nefc %g", r, cols[r][0],
                  cols[r][1]);
    ck_assert(cols[r][2] >= 0 && is_whole(cols[r][2]));
    ck_assert(cols[r][3] >= 0);
  }
  /* without the option, the old columns only */
  snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s'", ball, rec);
  ck_assert_int_eq(impetus(args), 0);
  FILE* f = fopen(rec, "r");
  ck_assert(f != NULL);
  ck_assert(fgets(header, sizeof header, f) != NULL);
  fclose(f);
  ck_assert_msg(strstr(header, "ncon") == NULL && strstr(header, "qvel_5\n") != NULL, "%s",
                header);
  ck_assert_int_eq(count_lines(rec), 1 + 11);
}
END_TEST

START_TEST(record_solver_npy) {
  const char* rec = imp_test_in_dir(dir, "pend.npy");
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 7 --record '%s' --record-solver", PENDULUM, rec);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  struct stat st;
  ck_assert_int_eq(stat(rec, &st), 0);
  ck_assert_int_eq(st.st_size, 128 + 8 * 7 * 8); /* header, 8 rows of 7 doubles */
  char json[4400];
  snprintf(json, sizeof json, "%s.json", rec);
  const char* side = imp_test_text_of(json);
  ck_assert_msg(strstr(side, "\"columns\": [\"time\", \"qpos_0\", \"qvel_0\", \"ncon\", "
                             "\"nefc\", \"solver_iter\", \"solver_residual\"]") != NULL,
                "%s", side);
  ck_assert_msg(strstr(side, "\"rows\": 8") != NULL, "%s", side);
}
END_TEST

/* The PNG file at path: signature, and its IHDR width and height. */
static int png_size(const char* path, unsigned* w, unsigned* h) {
  unsigned char b[24];
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (n < 24 || memcmp(b, sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return -1;
  *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
  *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
  return 0;
}

/* The solvers --compare adds beside ours when built with Siconos
   (apps/siconos_bridge.h); box_rest's condim-3 contacts are theirs too. */
#ifdef IMP_HAVE_SICONOS
static const char* const k_siconos[] = {"siconos_nsgs", "siconos_ac", "siconos_fb"};
enum { NSICONOS = 3 };
#else
static const char* const k_siconos[] = {""};
enum { NSICONOS = 0 };
#endif

/* index of a compared solver: ours, then Siconos' after them; -1 unknown */
static int compared_index(const char* name) {
  int s = imp_solver_find(name);
  for (int k = 0; s < 0 && k < NSICONOS; k++)
    if (!strcmp(name, k_siconos[k])) s = imp_solver_count() + k;
  return s;
}

/* impetus solvers --compare on a small model: both CSVs with their headers,
   one iterations.csv row per (problem, solver, iteration) numbered 1, 2, ...
   (or a single row 0 for a solve without iterations), finite residuals,
   one summary row per solver (Siconos' included when built), and two
   900 x 600 PNGs. */
START_TEST(solvers_compare_writes_csv_and_png) {
  char args[8192];
  const char* out = imp_test_in_dir(dir, "cmp");
  snprintf(args, sizeof args,
           "solvers --compare --steps 20 --max-problems 3 '%s' --out '%s'",
           IMP_MODELS_DIR "/box_rest.xml", out);
  ck_assert_int_eq(impetus(args), 0);
  const char* it_path = imp_test_in_dir(dir, "cmp/iterations.csv");
  FILE* f = fopen(it_path, "r");
  ck_assert_msg(f != NULL, "%s missing", it_path);
  char line[1024];
  ck_assert(fgets(line, sizeof line, f) != NULL);
  ck_assert_str_eq(line, "scene,problem,n,solver,iter,time_s,residual_rel\n");
  int ns = imp_solver_count() + NSICONOS, rows = 0;
  int last_iter[3][16];
  for (int q = 0; q < 3; q++)
    for (int s = 0; s < 16; s++) last_iter[q][s] = -1;
  int seen_problem[3] = {0, 0, 0};
  while (fgets(line, sizeof line, f)) {
    char scene[64], solver[64];
    int prob, n, iter;
    double t, r;
    ck_assert_msg(sscanf(line, "%63[^,],%d,%d,%63[^,],%d,%lf,%lf", scene, &prob, &n, solver, &iter,
                         &t, &r) == 7, "bad row: %s", line);
    ck_assert_str_eq(scene, "box_rest");
    ck_assert_msg(prob >= 0 && prob < 3, "problem %d", prob);
    ck_assert_int_eq(n, 12); /* four corner contacts, condim 3 */
    int s = compared_index(solver);
    ck_assert_msg(s >= 0 && s < 16, "unknown solver %s", solver);
    ck_assert_msg(isfinite(r) && r >= 0, "residual %g in: %s", r, line);
    ck_assert_msg(isfinite(t) && t >= 0, "time %g in: %s", t, line);
    /* consecutive iterations per (problem, solver): 1, 2, ... or a lone 0 */
    int prev = last_iter[prob][s];
    ck_assert_msg(prev == -1 ? (iter == 0 || iter == 1) : (prev > 0 && iter == prev + 1),
                  "iteration %d after %d: %s", iter, prev, line);
    last_iter[prob][s] = iter;
    seen_problem[prob] = 1;
    rows++;
  }
  fclose(f);
  ck_assert_msg(seen_problem[0] && seen_problem[1] && seen_problem[2], "3 problems expected");
  for (int q = 0; q < 3; q++)
    for (int s = 0; s < ns && s < 16; s++)
      ck_assert_msg(last_iter[q][s] >= 0, "no rows for problem %d, solver %d", q, s);
  ck_assert_int_gt(rows, 0);
  const char* sum_path = imp_test_in_dir(dir, "cmp/summary.csv");
  ck_assert_int_eq(count_lines(sum_path), 1 + ns);
  ck_assert_msg(strncmp(imp_test_text_of(sum_path),
                        "scene,solver,problems,median_iterations,median_time_s,"
                        "median_final_residual,converged_share,target_residual,reached_share,"
                        "median_time_to_target_s,median_best_residual\n", 167) == 0,
                "%s", imp_test_text_of(sum_path));
  const char* pngs[2] = {"cmp/box_rest_work_precision.png", "cmp/box_rest_convergence.png"};
  for (int k = 0; k < 2; k++) {
    unsigned w = 0, h = 0;
    ck_assert_msg(png_size(imp_test_in_dir(dir, pngs[k]), &w, &h) == 0, "%s is not a PNG", pngs[k]);
    ck_assert_uint_eq(w, 900);
    ck_assert_uint_eq(h, 600);
  }
  /* --no-siconos: our solvers only, one summary row each */
  snprintf(args, sizeof args,
           "solvers --compare --no-siconos --steps 20 --max-problems 1 '%s' --out '%s'",
           IMP_MODELS_DIR "/box_rest.xml", imp_test_in_dir(dir, "cmp_ours"));
  ck_assert_int_eq(impetus(args), 0);
  ck_assert_int_eq(count_lines(imp_test_in_dir(dir, "cmp_ours/summary.csv")), 1 + imp_solver_count());
  /* bad usage writes nothing */
  ck_assert_int_eq(impetus("solvers --compare --steps 0"), 2);
  ck_assert_int_eq(impetus("solvers --compare --frobnicate"), 2);
}
END_TEST

/* ---- the CLI tells the truth (issue 14) ---- */

/* Bad usage of every command is one line on stderr naming the error and
   where the options are, never the whole usage text, and exit 2. */
START_TEST(bad_usage_is_one_line_for_every_command) {
  static const struct {
    const char* cmd;  /* the command, as `impetus help CMD` names it */
    const char* args; /* arguments after it */
    const char* what; /* the error the line names */
  } cases[] = {
      {"run", "'" PENDULUM "' --steps 1 --bogus", "unknown option '--bogus'"},
      {"run", "'" PENDULUM "'", "--steps N is required"},
      {"run", "'" PENDULUM "' --steps x", "not an integer: 'x'"},
      {"run", "'" PENDULUM "' --steps", "--steps needs a value"},
      {"run", "", "no model given"},
      {"check", "'" PENDULUM "' --bogus", "unknown option '--bogus'"},
      {"check", "", "no model given"},
      {"bench", "'" PENDULUM "' --bogus", "unknown option '--bogus'"},
      {"bench", "'" PENDULUM "' --threads 65", "at most 64"},
      {"solvers", "--bogus", "'--bogus'"},
      {"solvers", "--compare --steps 0", "--steps must be at least 1"},
      {"render", "'" PENDULUM "' --bogus", "unknown option '--bogus'"},
      {"render", "'" PENDULUM "' --steps 1", "--out DIR|FILE.png is needed"},
      {"view", "'" PENDULUM "' --bogus", "unknown option '--bogus'"},
      {"view", "", "no model given"},
      {"replay", "t.csv '" PENDULUM "' --bogus", "unknown option '--bogus'"},
      {"replay", "t.csv", "needs TRAJ.csv and MODEL.xml"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char args[4400], hint[64];
    snprintf(args, sizeof args, "%s %s", cases[i].cmd, cases[i].args);
    snprintf(hint, sizeof hint, "(see `impetus help %s`)\n", cases[i].cmd);
    ck_assert_msg(impetus(args) == 2, "impetus %s: exit not 2", args);
    const char* err = imp_test_text_of(err_path);
    ck_assert_msg(count_lines(err_path) == 1, "impetus %s: not one line:\n%s", args, err);
    ck_assert_msg(strstr(err, cases[i].what) != NULL, "impetus %s: '%s' not named:\n%s", args,
                  cases[i].what, err);
    ck_assert_msg(strstr(err, hint) != NULL, "impetus %s: no hint '%s':\n%s", args, hint, err);
    ck_assert_msg(strstr(err, "usage:") == NULL, "impetus %s: printed the usage:\n%s", args, err);
    ck_assert_str_eq(imp_test_text_of(out_path), "");
  }
}
END_TEST

/* A missing model is "No such file" with the path as typed, for every
   command that loads one; a recording that cannot be created names the
   user's path, not the temporary file beside it; an unknown keyframe lists
   the keyframes the model has. */
START_TEST(errors_name_what_the_user_typed) {
  static const char* const loads[] = {"check", "run --steps 1", "bench --steps 1",
                                      "render --steps 1 --out x.png", "view"};
  for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
    char args[256];
    snprintf(args, sizeof args, "%s no/such_model.xml", loads[i]);
    ck_assert_msg(impetus(args) == 1, "impetus %s: exit not 1", args);
    const char* err = imp_test_text_of(err_path);
    ck_assert_msg(strstr(err, "no/such_model.xml: No such file") != NULL, "impetus %s:\n%s",
                  args, err);
    ck_assert_int_eq(count_lines(err_path), 1);
  }

  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 1 --record no_dir/out.csv"), 1);
  const char* err = imp_test_text_of(err_path);
  ck_assert_msg(strstr(err, "no_dir/out.csv: cannot create: No such file") != NULL, "%s", err);
  ck_assert_msg(strstr(err, ".tmp") == NULL, "names the temporary file: %s", err);

  /* three keyframes, the second unnamed: listed as #1, as check lists it */
  const char* keys = imp_test_in_dir(dir, "keys.xml");
  FILE* f = fopen(keys, "w");
  ck_assert(f != NULL);
  fputs("<mujoco><worldbody><body><joint type=\"hinge\"/><geom size=\"0.1\"/></body>"
        "</worldbody><keyframe><key name=\"up\" qpos=\"1\"/><key qpos=\"2\"/>"
        "<key name=\"down\" qpos=\"3\"/></keyframe></mujoco>\n", f);
  ck_assert_int_eq(fclose(f), 0);
  static const char* const keyed[] = {"run --steps 1", "check --contacts", "view",
                                      "render --steps 1 --out k.png"};
  for (size_t i = 0; i < sizeof keyed / sizeof keyed[0]; i++) {
    char args[4400];
    snprintf(args, sizeof args, "%s '%s' --key nokey", keyed[i], keys);
    ck_assert_msg(impetus(args) == 1, "impetus %s: exit not 1", args);
    err = imp_test_text_of(err_path);
    ck_assert_msg(strstr(err, "no keyframe named 'nokey'; the model has 3: up, #1, down\n"),
                  "impetus %s:\n%s", args, err);
  }
  ck_assert_int_eq(impetus("run '" IMP_MODELS_DIR "/incline.xml' --steps 1 --key k"), 1);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "no keyframe named 'k'; the model has no keyframes\n"),
                "%s", imp_test_text_of(err_path));
}
END_TEST

/* Progress lines of run on stderr: forced by IMPETUS_PROGRESS=0 (a line
   after every step), none when stderr is not a terminal and nothing forces
   them, none with --quiet. The summary on stdout is the same in all three. */
START_TEST(run_progress_lines) {
  ck_assert_int_eq(run_prog("/usr/bin/env", "IMPETUS_PROGRESS=0 '" IMPETUS_BIN "' run '" PENDULUM
                                            "' --steps 5"),
                   0);
  const char* err = imp_test_text_of(err_path);
  ck_assert_msg(strstr(err, "impetus run: 1/5 steps (20%), t = 0.001 s, ") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "impetus run: 5/5 steps (100%), t = 0.005 s, ") != NULL, "%s", err);
  ck_assert_msg(strstr(err, " x real time, ETA ") != NULL, "%s", err);
  ck_assert_int_eq(count_lines(err_path), 5);
  ck_assert(strstr(imp_test_text_of(out_path), "steps: 5\n") != NULL);
  ck_assert_int_eq(run_prog("/usr/bin/env", "IMPETUS_PROGRESS=0 '" IMPETUS_BIN "' run '" PENDULUM
                                            "' --steps 5 --quiet"),
                   0);
  ck_assert_str_eq(imp_test_text_of(err_path), "");
  ck_assert(strstr(imp_test_text_of(out_path), "steps: 5\n") != NULL);
  ck_assert_int_eq(run_prog("/usr/bin/env", "-u IMPETUS_PROGRESS '" IMPETUS_BIN "' run '" PENDULUM
                                            "' --steps 5"),
                   0);
  ck_assert_str_eq(imp_test_text_of(err_path), "");
}
END_TEST

/* The engine warns at the first step its contact solver ends short of the
   tolerance; run says at the end in how many steps it did, the same count
   as the summary's steps_not_converged. */
START_TEST(run_reports_every_unconverged_step) {
  /* the capsule pile: interlocked capsules, where the default solver misses
     some steps (box_pile did until contact rows moved to geom1's surface) */
  ck_assert_int_eq(impetus("run '" IMP_MODELS_DIR "/capsule_pile.xml' --steps 300"), 0);
  double n = key_number(imp_test_text_of(out_path), "steps_not_converged");
  ck_assert_msg(n > 0, "capsule_pile converged everywhere: the test needs a model that does not");
  char want[200];
  snprintf(want, sizeof want,
           "impetus run: the contact solver stopped short of its tolerance in %.0f of 300 steps",
           n);
  ck_assert_msg(strstr(imp_test_text_of(err_path), want) != NULL, "want '%s' in:\n%s", want,
                imp_test_text_of(err_path));
  /* a run where every step converges says nothing of the kind */
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10"), 0);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "stopped short") == NULL, "%s", imp_test_text_of(err_path));
}
END_TEST

/* The NPY sidecar names what each column holds and what made the file. */
START_TEST(sidecar_describes_columns_and_run) {
  const char* rec = imp_test_in_dir(dir, "desc.npy");
  char args[4400], json[4400];
  snprintf(args, sizeof args,
           "run '" IMP_MODELS_DIR "/sensors.xml' --steps 6 --every 2 --solver pgs --record '%s'",
           rec);
  ck_assert_int_eq(impetus(args), 0);
  snprintf(json, sizeof json, "%s.json", rec);
  const char* side = imp_test_text_of(json);
  const char* want[] = {
      "\"descriptions\": [\"simulated time\", \"yaw hinge joint, angle\"",
      "\"wrist ball joint, qw\", \"wrist ball joint, qx\"",
      "\"extend slide joint, velocity\", \"wrist ball joint, wx\"",
      "\"actuator yaw_servo, control\"",
      "\"sensor wrist_quat, value 0 of 4\"",
      "\"complete\": true",
      "\"model\": \"" IMP_MODELS_DIR "/sensors.xml\"",
      "\"steps\": 6, \"every\": 2, \"solver\": \"pgs\", \"ctrl\": null",
      "\"rows\": 4,"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(strstr(side, want[i]) != NULL, "want %s in:\n%s", want[i], side);

  /* a free joint: position, then the quaternion, w first */
  rec = imp_test_in_dir(dir, "free.npy");
  snprintf(args, sizeof args, "run '%s' --steps 1 --record '%s'", write_ball_on_plane(), rec);
  ck_assert_int_eq(impetus(args), 0);
  snprintf(json, sizeof json, "%s.json", rec);
  side = imp_test_text_of(json);
  ck_assert_msg(strstr(side, "\"simulated time\", \"free joint #0, x\", \"free joint #0, y\", "
                             "\"free joint #0, z\", \"free joint #0, qw\"") != NULL,
                "%s", side);
}
END_TEST

/* --keep-partial: Ctrl-C keeps the rows so far, the sidecar (a CSV gets one
   too) saying "complete": false; without it the run still writes nothing. */
START_TEST(run_keep_partial) {
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 1 --keep-partial"), 2);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "--keep-partial needs --record"), "%s",
                imp_test_text_of(err_path));
  const char* const names[] = {"partial.csv", "partial.npy"};
  for (int k = 0; k < 2; k++) {
    const char* rec = imp_test_in_dir(dir, names[k]);
    char tmp[4400], json[4400];
    snprintf(json, sizeof json, "%s.json", rec);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
      if (!freopen(out_path, "w", stdout) || !freopen(err_path, "w", stderr)) _exit(127);
      execl(IMPETUS_BIN, IMPETUS_BIN, "run", PENDULUM, "--steps", "1000000000", "--every", "7",
            "--record", rec, "--keep-partial", (char*)NULL);
      _exit(127);
    }
    wait_for_temp(rec, pid, tmp, sizeof tmp);
    imp_test_sleep_s(0.3);
    kill(pid, SIGINT);
    double took = 0;
    ck_assert_int_eq(wait_exit(pid, 30, &took), 130);
    char err[4096]; /* text_of's buffer is reused for the sidecar */
    snprintf(err, sizeof err, "%s", imp_test_text_of(err_path));
    ck_assert_msg(strstr(err, "interrupted after ") && strstr(err, "rows in ") &&
                      strstr(err, "marked incomplete"),
                  "%s", err);
    ck_assert_msg(imp_test_exists(rec) && !imp_test_exists(tmp), "%s", err);
    const char* side = imp_test_text_of(json);
    ck_assert_msg(strstr(side, "\"complete\": false") != NULL, "%s", side);
    ck_assert_msg(strstr(side, "\"every\": 7") != NULL, "%s", side);
    /* as many rows as the message and the sidecar say, a whole number of them */
    long long said = 0;
    const char* r = strstr(side, "\"rows\": ");
    ck_assert(r && sscanf(r, "\"rows\": %lld", &said) == 1 && said >= 2);
    long long kept = 0;
    const char* k_at = strstr(err, "kept ");
    ck_assert(k_at && sscanf(k_at, "kept %lld rows", &kept) == 1);
    ck_assert_int_eq(kept, said);
    if (k == 0) {
      ck_assert_int_eq(count_lines(rec), 1 + said); /* the header, then the rows */
    } else {
      struct stat st;
      ck_assert_int_eq(stat(rec, &st), 0);
      /* pendulum: time, qpos, qvel = 3 columns, 8 bytes each, after a 128-byte header */
      ck_assert_int_eq((long long)st.st_size, 128 + 3 * 8 * said);
    }
  }
}
END_TEST

START_TEST(example_runs) {
  ck_assert_msg(run_prog(EXAMPLE_BIN, "'" PENDULUM "'") == 0, "%s", imp_test_text_of(err_path));
  ck_assert_msg(strstr(imp_test_text_of(out_path), "time 1") != NULL, "%s", imp_test_text_of(out_path));
  ck_assert_msg(run_prog(EXAMPLE_BIN, "'" PENDULUM "' release") == 0, "%s", imp_test_text_of(err_path));
  ck_assert_msg(strstr(imp_test_text_of(out_path), "qpos[0] 0\n") == NULL, "released but did not move: %s",
                imp_test_text_of(out_path));
  ck_assert_int_eq(run_prog(EXAMPLE_BIN, "'" PENDULUM "' nosuchkey"), 1);
  ck_assert_int_eq(run_prog(EXAMPLE_BIN, ""), 1);
  ck_assert_int_eq(run_prog(EXAMPLE_BIN, "/nonexistent/model.xml"), 1);
}
END_TEST

static Suite* cli_suite(void) {
  Suite* s = suite_create("cli");
  TCase* tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, usage_and_help);
  tcase_add_test(tc, bad_usage_is_one_line_for_every_command);
  tcase_add_test(tc, errors_name_what_the_user_typed);
  tcase_add_test(tc, run_progress_lines);
  tcase_add_test(tc, run_reports_every_unconverged_step);
  tcase_add_test(tc, sidecar_describes_columns_and_run);
  tcase_add_test(tc, run_keep_partial);
  tcase_add_test(tc, check_pendulum);
  tcase_add_test(tc, check_contacts);
  tcase_add_test(tc, check_missing_file);
  tcase_add_test(tc, check_failure_prints_earlier_warnings);
  tcase_add_test(tc, malformed_xml);
  tcase_add_test(tc, run_bad_arguments);
  tcase_add_test(tc, run_unknown_extension);
  tcase_add_test(tc, run_errors_write_nothing);
  tcase_add_test(tc, run_records_csv);
  tcase_add_test(tc, run_records_npy_with_dt);
  tcase_add_test(tc, run_without_recording);
  tcase_add_test(tc, run_records_sensors);
  tcase_add_test(tc, run_nonfinite_exits_3);
  tcase_add_test(tc, bench_prints_speed);
  tcase_add_test(tc, run_summary_free_fall);
  tcase_add_test(tc, run_summary_pendulum);
  tcase_add_test(tc, run_summary_resting);
  tcase_add_test(tc, run_summary_not_converged_counts);
  tcase_add_test(tc, run_step_budget_counts);
  tcase_add_test(tc, run_is_one_thread);
  tcase_add_test(tc, run_signal_between_steps);
  tcase_add_test(tc, run_signal_in_endless_step);
  tcase_add_test(tc, run_second_signal_exits_at_once);
  tcase_add_test(tc, run_sighup_leaves_nothing);
  tcase_add_test(tc, run_record_ignores_planted_links);
  tcase_add_test(tc, run_two_runs_one_path);
  tcase_add_test(tc, solvers_lists_registry);
  tcase_add_test(tc, solver_option_accepted);
  tcase_add_test(tc, unknown_solver_is_usage);
  tcase_add_test(tc, bench_prints_solver_figures);
  tcase_add_test(tc, bench_counts_unconverged_steps);
  tcase_add_test(tc, run_threads_record_the_same);
  tcase_add_test(tc, record_solver_csv);
  tcase_add_test(tc, record_solver_npy);
  tcase_add_test(tc, solvers_compare_writes_csv_and_png);
  tcase_add_test(tc, example_runs);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(cli_suite()); }
