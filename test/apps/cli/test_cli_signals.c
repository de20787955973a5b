/* Tests of the impetus program: a run in one thread, stopped by SIGTERM,
 * SIGINT or SIGHUP between steps or inside one, --keep-partial, and
 * recordings that follow no planted link and survive two runs on one path.
 * Shared helpers: cli_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"

/* ---- stopping on SIGTERM and SIGINT ---- */

/* A step far longer than the 2 s the signal handler waits: 100 pairs of
   free bodies of 4 overlapping boxes each, every pair an island of 192
   redundant contact rows, solved by projected Gauss-Seidel with a limit of a
   billion sweeps and a tolerance of 0 that only a bit-exact fixed point
   meets. The stage's work bound (IMP_SOLVE_WORK_MAX) ends each island's
   solve, so the step ends, but only after 100 islands at their bound: about
   5 s here, longer under the sanitizers. It stands for a step that does not
   end in time, with no hook in the engine. */
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

static Suite* cli_suite(void) {
  Suite* s = suite_create("cli");
  TCase* tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, run_keep_partial);
  tcase_add_test(tc, run_is_one_thread);
  tcase_add_test(tc, run_signal_between_steps);
  tcase_add_test(tc, run_signal_in_endless_step);
  tcase_add_test(tc, run_second_signal_exits_at_once);
  tcase_add_test(tc, run_sighup_leaves_nothing);
  tcase_add_test(tc, run_record_ignores_planted_links);
  tcase_add_test(tc, run_two_runs_one_path);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(cli_suite()); }
