/* Helpers shared by the tests of the impetus program (apps/), test_cli_*.c,
 * which run it as a user would: exit codes, messages, and that bad input
 * never leaves a file behind. A scratch directory per test (the fixture
 * setup/teardown), the program run with its output captured, the files a
 * recording may leave, the summary's "key: value" lines, models written
 * into the scratch directory.
 *
 * Include after defining _POSIX_C_SOURCE (mkdtemp, kill, symlink). */
#ifndef IMPETUS_CLI_UTIL_H
#define IMPETUS_CLI_UTIL_H

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

static inline void setup(void) {
  snprintf(dir, sizeof dir, "%s/cli_XXXXXX", IMP_TEST_TMPDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp failed");
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
}

static inline void teardown(void) { imp_test_remove_dir(dir); }


/* Run `IMPETUS_BIN args` (args already shell-quoted where needed) with
   stdout and stderr captured; return its exit status (-1: killed). */
static inline int run_prog(const char* prog, const char* args) {
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
static inline int count_lines(const char* path) {
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
static inline int find_temp(const char* rec, char* out, size_t n) {
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
static inline void assert_nothing_at(const char* path) {
  char p[4400];
  ck_assert_msg(!imp_test_exists(path), "%s exists", path);
  snprintf(p, sizeof p, "%s.tmp", path);
  ck_assert_msg(!imp_test_exists(p), "%s exists", p);
  ck_assert_msg(!find_temp(path, p, sizeof p), "%s exists", p);
  snprintf(p, sizeof p, "%s.json", path);
  ck_assert_msg(!imp_test_exists(p), "%s exists", p);
}

/* A 0.1 m ball resting 1 mm into a plane: one condim-3 contact, so 3 rows
   and one island whatever the solver (contact.h). */
static const char* const ball_on_plane_xml =
    "<mujoco model=\"ball_on_plane\"><option timestep=\"0.002\"/><worldbody>"
    "<geom name=\"floor\" type=\"plane\" size=\"1 1 0.1\"/>"
    "<body name=\"ball\" pos=\"0 0 0.099\"><freejoint/>"
    "<geom name=\"ball\" type=\"sphere\" size=\"0.1\" condim=\"3\"/></body>"
    "</worldbody></mujoco>\n";

/* Write the ball-on-plane model into the scratch directory; its path. */
static inline const char* write_ball_on_plane(void) {
  const char* path = imp_test_in_dir(dir, "ball_on_plane.xml");
  FILE* f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs(ball_on_plane_xml, f);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

/* The value of "key: " in text as a number that must parse to the end of
   its line (fails the test otherwise). */
static inline double key_number(const char* text, const char* key) {
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
static inline int is_whole(double v) { return v == floor(v); }

/* Write pairs islands of two free bodies of 4 overlapping boxes each (192
   redundant contact rows an island, no gravity) under option to file name
   in the test directory; its path. */
static inline const char* write_box_pairs(const char* name, const char* option, int pairs) {
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

#endif
