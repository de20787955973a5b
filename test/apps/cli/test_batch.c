/* impetus batch (apps/cli/cmd_batch.c, apps/cli/batch_manifest.c): the files are
   the same bits with 1, 2 and 4 threads and after an interruption and
   --resume; the manifest records every rollout's outcome. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_files.h"
#include "test_util.h"

#define BOX_PILE IMP_MODELS_DIR "/box_pile.xml"

static char dir[4096], out_path[4200], err_path[4200];

/* a/b in one of 8 rotating buffers (so a call can hold a few, and nest) */
static const char* in_dir(const char* a, const char* b) {
  static char bufs[8][9000];
  static int k = 0;
  char* buf = bufs[k++ % 8];
  char tmp[9000];
  int n = snprintf(tmp, sizeof tmp, "%s/%s", a, b);
  ck_assert_msg(n > 0 && (size_t)n < sizeof tmp, "path too long");
  memcpy(buf, tmp, (size_t)n + 1);
  return buf;
}

static void setup(void) {
  snprintf(dir, sizeof dir, "%s/batch_XXXXXX", IMP_TEST_TMPDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp failed");
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
}

static void teardown(void) { imp_test_remove_dir(dir); }

/* Run `impetus args` with stdout and stderr captured; its exit status. */
static int impetus(const char* args) {
  char cmd[40000];
  int len = snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", IMPETUS_BIN, args,
                     out_path, err_path);
  ck_assert_msg(len > 0 && (size_t)len < sizeof cmd, "command too long: %s", args);
  int st = system(cmd);
  ck_assert(st != -1);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* a whole file (malloc'd, *n its size); NULL when unreadable */
static char* slurp(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* b = malloc((size_t)size + 1);
  *n = fread(b, 1, (size_t)size, f);
  b[*n] = '\0';
  fclose(f);
  return b;
}

static void assert_same_file(const char* a, const char* b) {
  size_t na = 0, nb = 0;
  char* x = slurp(a, &na);
  char* y = slurp(b, &nb);
  ck_assert_msg(x != NULL, "%s missing", a);
  ck_assert_msg(y != NULL, "%s missing", b);
  ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s and %s differ", a, b);
  free(x);
  free(y);
}

/* the manifest without its last column (wall_seconds, which varies) */
static char* manifest_without_wall(const char* out) {
  size_t n = 0;
  char* t = slurp(in_dir(out, "manifest.csv"), &n);
  ck_assert_msg(t != NULL, "no manifest in %s", out);
  char* r = malloc(n + 1);
  size_t k = 0;
  for (char* line = t; *line;) {
    char* nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    size_t keep = len;
    if (line[0] != '#') {
      char* comma = memchr(line, ',', len);
      char* last = NULL;
      for (char* p = comma; p && p < line + len;
           p = memchr(p + 1, ',', (size_t)(line + len - p - 1)))
        last = p;
      if (last) keep = (size_t)(last - line);
    }
    memcpy(r + k, line, keep);
    k += keep;
    r[k++] = '\n';
    line += len + (nl ? 1 : 0);
  }
  r[k] = '\0';
  free(t);
  return r;
}

/* two batch outputs of n rollouts: the same files, the same manifest but
   for wall_seconds */
static void assert_same_batch(const char* a, const char* b, int n) {
  for (int i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "rollout_%06d.npy", i);
    assert_same_file(in_dir(a, name), in_dir(b, name));
    snprintf(name, sizeof name, "rollout_%06d.npy.json", i);
    assert_same_file(in_dir(a, name), in_dir(b, name));
  }
  char* ma = manifest_without_wall(a);
  char* mb = manifest_without_wall(b);
  ck_assert_str_eq(ma, mb);
  free(ma);
  free(mb);
}

/* the number of manifest rows with status (",STATUS,") */
static int count_status(const char* out, const char* status) {
  size_t n = 0;
  char* t = slurp(in_dir(out, "manifest.csv"), &n);
  if (!t) return -1;
  char needle[64];
  snprintf(needle, sizeof needle, ",%s,", status);
  int c = 0;
  for (char* p = t; (p = strstr(p, needle)) != NULL; p++) c++;
  free(t);
  return c;
}

/* files in out whose name ends in suffix */
static int count_suffix(const char* out, const char* suffix) {
  DIR* d = opendir(out);
  if (!d) return -1;
  int c = 0;
  size_t ls = strlen(suffix);
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    size_t l = strlen(e->d_name);
    c += l >= ls && strcmp(e->d_name + l - ls, suffix) == 0;
  }
  closedir(d);
  return c;
}

#define PILE_ARGS "'" BOX_PILE "' --perturb qpos=0.05,qvel=0.5 --seed 11 --quiet"

START_TEST(batch_same_bits_any_threads) {
  const int n = 8;
  const char* outs[3] = {"t1", "t2", "t4"};
  const int threads[3] = {1, 2, 4};
  for (int k = 0; k < 3; k++) {
    char args[32768];
    snprintf(args, sizeof args,
             "batch " PILE_ARGS " --rollouts %d --steps 120 --threads %d --out '%s'", n, threads[k],
             in_dir(dir, outs[k]));
    ck_assert_msg(impetus(args) == 0, "batch failed: %s", imp_test_text_of(err_path));
    ck_assert_msg(strstr(imp_test_text_of(out_path), "ok: 8\n"), "%s", imp_test_text_of(out_path));
  }
  char a[9000], b[9000];
  snprintf(a, sizeof a, "%s", in_dir(dir, "t1"));
  for (int k = 1; k < 3; k++) {
    snprintf(b, sizeof b, "%s", in_dir(dir, outs[k]));
    assert_same_batch(a, b, n);
  }
  ck_assert_int_eq(count_status(a, "ok"), n);
  /* the rollouts differ: a perturbation of their own */
  size_t n0 = 0, n1 = 0;
  char* r0 = slurp(in_dir(a, "rollout_000000.npy"), &n0);
  char* r1 = slurp(in_dir(a, "rollout_000001.npy"), &n1);
  ck_assert(n0 == n1 && memcmp(r0, r1, n0) != 0);
  free(r0);
  free(r1);
  /* an existing manifest is left alone without --resume */
  char args[32768];
  snprintf(args, sizeof args, "batch " PILE_ARGS " --rollouts %d --steps 120 --out '%s'", n, a);
  ck_assert_int_eq(impetus(args), 2);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "--resume"), "%s", imp_test_text_of(err_path));
  /* --resume with other settings: refused, naming them */
  snprintf(args, sizeof args, "batch " PILE_ARGS " --rollouts %d --steps 121 --resume --out '%s'",
           n, a);
  ck_assert_int_eq(impetus(args), 1);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "steps=120"), "%s", imp_test_text_of(err_path));
  /* --resume of a complete batch runs nothing and changes no file */
  snprintf(args, sizeof args, "batch " PILE_ARGS " --rollouts %d --steps 120 --resume --out '%s'",
           n, a);
  ck_assert_int_eq(impetus(args), 0);
  ck_assert_msg(strstr(imp_test_text_of(out_path), "skipped_complete: 8\n"), "%s",
                imp_test_text_of(out_path));
  assert_same_batch(a, b, n);
}
END_TEST

/* Interrupted after some rollouts, resumed: the files and manifest of an
   uninterrupted run. The signal comes once the manifest lists a finished
   rollout (not after a time), and the run is long enough that it cannot
   finish first (40 rollouts of box_pile). */
START_TEST(batch_interrupt_and_resume) {
  const int n = 40;
  const char* full = "full";
  char args[32768], cut[9000];
  snprintf(cut, sizeof cut, "%s", in_dir(dir, "cut"));
  snprintf(args, sizeof args,
           "batch " PILE_ARGS " --rollouts %d --steps 400 --threads 2 --out '%s'", n,
           in_dir(dir, full));
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));

  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    if (!freopen(out_path, "w", stdout) || !freopen(err_path, "w", stderr)) _exit(127);
    execl(IMPETUS_BIN, IMPETUS_BIN, "batch", BOX_PILE, "--perturb", "qpos=0.05,qvel=0.5", "--seed",
          "11", "--quiet", "--rollouts", "40", "--steps", "400", "--threads", "2", "--out", cut,
          (char*)NULL);
    _exit(127);
  }
  for (double t0 = imp_test_now_s(); count_status(cut, "ok") < 1; imp_test_sleep_s(0.005)) {
    if (imp_test_now_s() - t0 > 60) {
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
      ck_abort_msg("no rollout finished; stderr: %s", imp_test_text_of(err_path));
    }
  }
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit %d; stderr: %s",
                WIFEXITED(st) ? WEXITSTATUS(st) : -1, imp_test_text_of(err_path));
  int ok = count_status(cut, "ok");
  int left = count_status(cut, "interrupted") + count_status(cut, "not_run");
  ck_assert_msg(ok >= 1 && ok < n && ok + left == n, "ok %d, left %d", ok, left);
  /* only finished rollouts have files, no temporary file is left */
  ck_assert_int_eq(count_suffix(cut, ".npy"), ok);
  ck_assert_int_eq(count_suffix(cut, ".tmp"), 0);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "--resume"), "%s", imp_test_text_of(err_path));

  snprintf(args, sizeof args,
           "batch " PILE_ARGS " --rollouts %d --steps 400 --threads 1 --resume --out '%s'", n, cut);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  char skipped[64];
  snprintf(skipped, sizeof skipped, "skipped_complete: %d\n", ok);
  ck_assert_msg(strstr(imp_test_text_of(out_path), skipped), "%s", imp_test_text_of(out_path));
  char a[9000];
  snprintf(a, sizeof a, "%s", in_dir(dir, full));
  assert_same_batch(a, cut, n);
}
END_TEST

/* a motor on a hinge: a control of 1e300 makes its state non-finite */
static const char* ARM_XML =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body><joint name='h' type='hinge' axis='0 1 0' damping='0.1'/>"
    "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.02'/></body>"
    "</worldbody><actuator><motor name='m' joint='h' gear='2'/></actuator>"
    "<sensor><jointpos joint='h'/></sensor></mujoco>\n";

static void write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* --ctrl DIR: a file per rollout; the rollout whose control blows up is
   marked nonfinite, keeps its file, and the others go on (exit status 3) */
START_TEST(batch_nonfinite_rollout_recorded) {
  char model[9000], ctrl[9000], out[9000];
  snprintf(model, sizeof model, "%s", in_dir(dir, "arm.xml"));
  snprintf(ctrl, sizeof ctrl, "%s", in_dir(dir, "ctrl"));
  snprintf(out, sizeof out, "%s", in_dir(dir, "out"));
  write_text(model, ARM_XML);
  ck_assert_int_eq(mkdir(ctrl, 0777), 0);
  write_text(in_dir(ctrl, "rollout_000000.csv"), "m\n0.5\n-0.5\n");
  write_text(in_dir(ctrl, "rollout_000001.csv"), "m\n1e300\n");
  write_text(in_dir(ctrl, "rollout_000002.csv"), "m\n0.25\n");
  char args[32768];
  snprintf(args, sizeof args,
           "batch '%s' --rollouts 3 --steps 50 --threads 2 --ctrl '%s' --out '%s'", model, ctrl,
           out);
  ck_assert_int_eq(impetus(args), 3);
  ck_assert_int_eq(count_status(out, "ok"), 2);
  ck_assert_int_eq(count_status(out, "nonfinite"), 1);
  const char* m = imp_test_text_of(in_dir(out, "manifest.csv"));
  ck_assert_msg(strstr(m, "\n1,0,rollout_000001.npy,") && strstr(m, ",nonfinite,"), "%s", m);
  ck_assert_int_eq(count_suffix(out, ".npy"), 3);
  /* the sidecar names the rollout's own control file */
  const char* side = imp_test_text_of(in_dir(out, "rollout_000002.npy.json"));
  ck_assert_msg(strstr(side, "rollout_000002.csv"), "%s", side);

  /* rollout 0 is bitwise `impetus run --ctrl` of the same file */
  char rec[9000];
  snprintf(rec, sizeof rec, "%s", in_dir(dir, "run.npy"));
  snprintf(args, sizeof args, "run '%s' --steps 50 --ctrl '%s' --record '%s'", model,
           in_dir(ctrl, "rollout_000000.csv"), rec);
  ck_assert_int_eq(impetus(args), 0);
  assert_same_file(rec, in_dir(out, "rollout_000000.npy"));

  /* a missing control file is an error before anything runs */
  snprintf(args, sizeof args, "batch '%s' --rollouts 4 --steps 5 --ctrl '%s' --out '%s'", model,
           ctrl, in_dir(dir, "out2"));
  ck_assert_int_eq(impetus(args), 1);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "rollout 3"), "%s", imp_test_text_of(err_path));
  ck_assert(!imp_test_exists(in_dir(in_dir(dir, "out2"), "rollout_000000.npy")));
}
END_TEST

START_TEST(batch_usage_errors) {
  ck_assert_int_eq(impetus("batch '" BOX_PILE "' --rollouts 2 --steps 3"), 2);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "--out"), "%s", imp_test_text_of(err_path));
  ck_assert_int_eq(impetus("batch '" BOX_PILE "' --rollouts 0 --steps 3 --out x"), 2);
  ck_assert_int_eq(impetus("batch '" BOX_PILE "' --rollouts 2 --steps 3 --perturb qacc=1 --out x"),
                   2);
  ck_assert_int_eq(impetus("batch '" BOX_PILE "' --rollouts 2 --steps 3 --seed -4 --out x"), 2);
  /* the program without MPI refuses to be one of several MPI processes */
  char args[32768];
  snprintf(args, sizeof args, "batch '" BOX_PILE "' --rollouts 2 --steps 3 --out '%s'",
           in_dir(dir, "mpi"));
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  int rc = impetus(args);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  ck_assert_int_eq(rc, 2);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "impetus-mpi"), "%s",
                imp_test_text_of(err_path));
  ck_assert(!imp_test_exists(in_dir(dir, "mpi")));
}
END_TEST

int main(void) {
  Suite* s = suite_create("batch");
  TCase* tc = tcase_create("batch");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 280);
  tcase_add_test(tc, batch_same_bits_any_threads);
  tcase_add_test(tc, batch_interrupt_and_resume);
  tcase_add_test(tc, batch_nonfinite_rollout_recorded);
  tcase_add_test(tc, batch_usage_errors);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
