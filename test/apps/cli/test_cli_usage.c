/* Tests of the impetus program: usage and help, check, bad arguments and
 * errors that write nothing and name what the user typed, and the example
 * program. Shared helpers: cli_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"

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
  tcase_add_test(tc, check_pendulum);
  tcase_add_test(tc, check_contacts);
  tcase_add_test(tc, check_missing_file);
  tcase_add_test(tc, check_failure_prints_earlier_warnings);
  tcase_add_test(tc, malformed_xml);
  tcase_add_test(tc, run_bad_arguments);
  tcase_add_test(tc, run_unknown_extension);
  tcase_add_test(tc, run_errors_write_nothing);
  tcase_add_test(tc, example_runs);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(cli_suite()); }
