/* Tests of the impetus program: run's recordings (CSV, NPY, sensors, the
 * sidecar), bench's speed figures, the run summary, the step budget and
 * the progress lines. Shared helpers: cli_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"

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

/* --key NAME (or #I) starts the benchmark from a keyframe: a ball held 1 m
   up has no contact at its first step, the same ball from its keyframe
   resting on the floor has one; an unknown key is an error naming it. */
START_TEST(bench_from_keyframe) {
  char model[512];
  snprintf(model, sizeof model, "%s/bench_key.xml", IMP_TEST_TMPDIR);
  FILE* f = fopen(model, "w");
  ck_assert_ptr_nonnull(f);
  fputs("<mujoco><worldbody><geom type='plane' size='1 1 0.1'/>"
        "<body pos='0 0 1'><freejoint/><geom type='sphere' size='0.1'/></body></worldbody>"
        "<keyframe><key name='rest' qpos='0 0 0.1 1 0 0 0'/></keyframe></mujoco>\n", f);
  fclose(f);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "bench '%s' --steps 1", model);
  ck_assert_int_eq(impetus(cmd), 0);
  const char* out = imp_test_text_of(out_path);
  ck_assert_msg(strstr(out, "contacts_per_step: 0\n") && !strstr(out, "key: "), "%s", out);
  const char* keys[] = {"rest", "#0"};
  for (int i = 0; i < 2; i++) {
    snprintf(cmd, sizeof cmd, "bench '%s' --steps 1 --key '%s'", model, keys[i]);
    ck_assert_int_eq(impetus(cmd), 0);
    out = imp_test_text_of(out_path);
    ck_assert_msg(strstr(out, "model: ") && strstr(out, "\nkey: rest\nsteps: 1\n"), "%s", out);
    ck_assert_msg(strstr(out, "contacts_per_step: 1\n") != NULL, "%s", out);
  }
  snprintf(cmd, sizeof cmd, "bench '%s' --steps 1 --key nosuch", model);
  ck_assert_int_eq(impetus(cmd), 1);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "no keyframe named 'nosuch'") != NULL, "%s",
                imp_test_text_of(err_path));
}
END_TEST

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
     some steps (box_pile did until contact rows moved to geom1's surface;
     the pile's first 300 steps did until unfinished solves were retried
     with every contact's target at 0) */
  ck_assert_int_eq(impetus("run '" IMP_MODELS_DIR "/capsule_pile.xml' --steps 600"), 0);
  double n = key_number(imp_test_text_of(out_path), "steps_not_converged");
  ck_assert_msg(n > 0, "capsule_pile converged everywhere: the test needs a model that does not");
  char want[200];
  snprintf(want, sizeof want,
           "impetus run: the contact solver stopped short of its tolerance in %.0f of 600 steps",
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

static Suite* cli_suite(void) {
  Suite* s = suite_create("cli");
  TCase* tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, run_progress_lines);
  tcase_add_test(tc, run_reports_every_unconverged_step);
  tcase_add_test(tc, sidecar_describes_columns_and_run);
  tcase_add_test(tc, run_records_csv);
  tcase_add_test(tc, run_records_npy_with_dt);
  tcase_add_test(tc, run_without_recording);
  tcase_add_test(tc, run_records_sensors);
  tcase_add_test(tc, run_nonfinite_exits_3);
  tcase_add_test(tc, bench_prints_speed);
  tcase_add_test(tc, bench_from_keyframe);
  tcase_add_test(tc, run_summary_free_fall);
  tcase_add_test(tc, run_summary_pendulum);
  tcase_add_test(tc, run_summary_resting);
  tcase_add_test(tc, run_summary_not_converged_counts);
  tcase_add_test(tc, run_step_budget_counts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(cli_suite()); }
