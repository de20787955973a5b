/* Open-loop control files (apps/common/ctrl_file.c) through the program, as a user
   runs them: `impetus run MODEL --ctrl FILE --record X.npy` reproduces
   bitwise the trajectory a C program makes with imp_step and the same
   controls set through the control callback (per-step CSV, timed CSV with
   a header in another order, NPY with a time column), on a model with
   actuators and contacts; bad files are errors naming FILE:LINE with exit
   1 and nothing written. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_files.h"
#include "test_util.h"

#ifndef IMPETUS_BIN
#error "IMPETUS_BIN: the path of the built impetus program"
#endif
#ifndef IMP_TEST_TMPDIR
#define IMP_TEST_TMPDIR "/tmp"
#endif

/* A two-hinge arm (motor, servo with velocity feedback, filtered
   actuator: an activation state) that swings down onto a free box resting
   on a plane. */
static const char* k_model =
    "<mujoco model='ctrl_file'>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='2 2 0.1'/>\n"
    "    <body name='arm' pos='0 0 0.3'>\n"
    "      <joint name='shoulder' type='hinge' axis='0 1 0' damping='0.2'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.04'/>\n"
    "      <body name='fore' pos='0.4 0 0'>\n"
    "        <joint name='elbow' type='hinge' axis='0 1 0' damping='0.1'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.3 0 -0.25' size='0.03'/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='box' pos='0.5 0.02 0.06' euler='0 0 20'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.05 0.06 0.05'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <motor name='m_shoulder' joint='shoulder' gear='5' ctrllimited='true' ctrlrange='-2 2'/>\n"
    "    <position name='p_elbow' joint='elbow' kp='20' kv='1'/>\n"
    "    <general name='filt' joint='elbow' dyntype='filter' dynprm='0.05' gainprm='1'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

#define NU 3
#define STEPS 400

static char dir[4096], out_path[4200], err_path[4200], model_path[4200];

static void setup(void) {
  snprintf(dir, sizeof dir, "%s/ctrlfile_XXXXXX", IMP_TEST_TMPDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp failed");
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  snprintf(model_path, sizeof model_path, "%s/model.xml", dir);
  FILE* f = fopen(model_path, "w");
  ck_assert(f != NULL);
  fputs(k_model, f);
  ck_assert_int_eq(fclose(f), 0);
}

static void teardown(void) { imp_test_remove_dir(dir); }


/* `impetus run MODEL args` with stdout and stderr captured: the exit status */
static int run(const char* args) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run model.xml %s >'%s' 2>'%s' </dev/null", dir,
           IMPETUS_BIN, args, out_path, err_path);
  int st = system(cmd);
  ck_assert(st != -1);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_text(const char* name, const char* text) {
  FILE* f = fopen(imp_test_in_dir(dir, name), "w");
  ck_assert(f != NULL);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* ---- the controls, and the C program's side ---- */

/* a table of controls: rows of [time,] values for the actuators in act[] */
typedef struct table {
  double dt; /* the run's --dt, 0: the model's */
  int timed;
  int nrow, ncol; /* ncol: values per row after the time */
  int act[NU];    /* actuator of each value column */
  double t[1000];
  double v[1000][NU];
} table;

/* The C side's controller: the row of this step (or the zero-order hold at
   d->time, written here from the definition, not from ctrl_file.c) into
   the ctrl of the columns' actuators. */
static void table_control(const imp_model* m, imp_data* d, void* user) {
  const table* tb = user;
  int r;
  if (!tb->timed) {
    r = d->nstep < tb->nrow ? (int)d->nstep : tb->nrow - 1;
  } else {
    r = -1;
    for (int i = 0; i < tb->nrow; i++)
      if (tb->t[i] <= d->time + 1e-6 * m->opt.timestep) r = i;
    if (r < 0) return;
  }
  for (int j = 0; j < tb->ncol; j++) d->ctrl[tb->act[j]] = tb->v[r][j];
}

/* The C program: imp_step STEPS times with the callback; the state of every
   step into states (rows of 1 + nq + nv + nu + na). */
static double* c_trajectory(const table* tb, int* width) {
  char err[1000];
  imp_model* m = imp_load_xml(model_path, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  if (tb->dt > 0) m->opt.timestep = tb->dt;
  imp_data* d = imp_make_data(m);
  imp_set_control_callback(d, table_control, (void*)tb);
  int w = *width = 1 + m->nq + m->nv + m->nu + m->na;
  double* s = malloc(sizeof(double) * (size_t)w * (STEPS + 1));
  int contact_steps = 0;
  for (int k = 0; k <= STEPS; k++) {
    if (k > 0) imp_step(m, d);
    contact_steps += d->ncon > 1; /* the box on the floor and the arm on the box */
    double* row = s + (size_t)k * w;
    row[0] = d->time;
    memcpy(row + 1, d->qpos, sizeof(double) * m->nq);
    memcpy(row + 1 + m->nq, d->qvel, sizeof(double) * m->nv);
    memcpy(row + 1 + m->nq + m->nv, d->ctrl, sizeof(double) * m->nu);
    memcpy(row + 1 + m->nq + m->nv + m->nu, d->act, sizeof(double) * m->na);
  }
  ck_assert_int_gt(contact_steps, 0);
  imp_free_data(d);
  imp_free_model(m);
  return s;
}

/* The rows of an NPY recording (float64, C order, v1 header); *cols set. */
static double* read_npy(const char* path, int* rows, int* cols) {
  FILE* f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "no recording at %s", path);
  unsigned char pre[10];
  ck_assert_int_eq(fread(pre, 1, 10, f), 10);
  int hl = pre[8] | pre[9] << 8;
  char hdr[4096];
  ck_assert_int_lt(hl, (int)sizeof hdr);
  ck_assert_int_eq((int)fread(hdr, 1, (size_t)hl, f), hl);
  hdr[hl] = '\0';
  ck_assert(strstr(hdr, "'<f8'") != NULL);
  const char* sh = strstr(hdr, "'shape': (");
  ck_assert(sh != NULL);
  ck_assert_int_eq(sscanf(sh, "'shape': (%d, %d)", rows, cols), 2);
  size_t n = (size_t)*rows * (size_t)*cols;
  double* v = malloc(sizeof(double) * n);
  ck_assert_int_eq(fread(v, sizeof(double), n, f), n); /* little-endian host (x86, arm) */
  fclose(f);
  return v;
}

/* The recording X.npy equals the C program's states bitwise in time, qpos,
   qvel, ctrl and act, row by row. */
static void assert_reproduces(const char* rec, const table* tb) {
  int width, rows, cols;
  double* c = c_trajectory(tb, &width);
  double* r = read_npy(imp_test_in_dir(dir, rec), &rows, &cols);
  ck_assert_int_eq(rows, STEPS + 1);
  ck_assert_int_ge(cols, width);
  for (int k = 0; k <= STEPS; k++)
    ck_assert_msg(memcmp(c + (size_t)k * width, r + (size_t)k * cols, sizeof(double) * width) == 0,
                  "%s: row %d differs from the C API's trajectory", rec, k);
  /* the controls did something: ctrl columns vary over the run */
  int changed = 0;
  for (int k = 2; k <= STEPS; k++)
    for (int u = 0; u < NU; u++) {
      int at = width - NU - 1 + u; /* ctrl columns (na = 1 after them) */
      changed += r[(size_t)k * cols + at] != r[(size_t)(k - 1) * cols + at];
    }
  ck_assert_int_gt(changed, 10);
  free(c);
  free(r);
}

/* a smooth pattern with values beyond the motor's ctrlrange */
static double pattern(int u, double x) { return (u == 0 ? 3 : 0.8) * sin(3 * x + u); }

/* Per-step CSV without a header: nu columns, 300 rows for 400 steps (the
   last row holds), values written exactly (%.17g). */
START_TEST(test_run_ctrl_csv_per_step_bitwise) {
  table tb = {.timed = 0, .nrow = 300, .ncol = NU, .act = {0, 1, 2}};
  FILE* f = fopen(imp_test_in_dir(dir, "steps.csv"), "w");
  for (int i = 0; i < tb.nrow; i++) {
    for (int u = 0; u < NU; u++) {
      tb.v[i][u] = pattern(u, 0.01 * i);
      fprintf(f, u ? ",%.17g" : "%.17g", tb.v[i][u]);
    }
    fputc('\n', f);
  }
  fclose(f);
  ck_assert_int_eq(run("--steps 400 --ctrl steps.csv --record x.npy"), 0);
  ck_assert_msg(strstr(imp_test_text_of(err_path), "last row also drives steps 301 to 400") != NULL, "%s",
                imp_test_text_of(err_path));
  assert_reproduces("x.npy", &tb);
  /* the sidecar says which control file drove the run */
  ck_assert_msg(strstr(imp_test_text_of(imp_test_in_dir(dir, "x.npy.json")), "\"ctrl\": \"steps.csv\"") != NULL, "%s",
                imp_test_text_of(imp_test_in_dir(dir, "x.npy.json")));
  /* a CSV recording gets the sidecar for it; without --ctrl it has none */
  ck_assert_int_eq(run("--steps 3 --ctrl steps.csv --record x.csv"), 0);
  ck_assert(strstr(imp_test_text_of(imp_test_in_dir(dir, "x.csv.json")), "\"ctrl\": \"steps.csv\"") != NULL);
  ck_assert_int_eq(run("--steps 3 --record y.csv"), 0);
  ck_assert(imp_test_exists(imp_test_in_dir(dir, "y.csv")) && !imp_test_exists(imp_test_in_dir(dir, "y.csv.json")));
}
END_TEST

/* Timed CSV: a header naming two actuators in another order than the
   model's (the filter is left at 0), a comment and a blank line, times that
   are not multiples of the step: zero-order hold. */
START_TEST(test_run_ctrl_csv_timed_header_bitwise) {
  table tb = {.timed = 1, .nrow = 40, .ncol = 2, .act = {1, 0}};
  FILE* f = fopen(imp_test_in_dir(dir, "timed.csv"), "w");
  fprintf(f, "# controls\n time , p_elbow, m_shoulder\n\n");
  for (int i = 0; i < tb.nrow; i++) {
    tb.t[i] = 0.0137 * i + 0.003;
    tb.v[i][0] = pattern(1, tb.t[i] * 10);
    tb.v[i][1] = pattern(0, tb.t[i] * 10);
    fprintf(f, "%.17g, %.17g, %.17g\n", tb.t[i], tb.v[i][0], tb.v[i][1]);
  }
  fclose(f);
  ck_assert_int_eq(run("--steps 400 --ctrl timed.csv --record x.npy"), 0);
  assert_reproduces("x.npy", &tb);
}
END_TEST

/* NPY with nu + 1 columns: time first; times on the grid of every other
   step, 2 i h with h = 0.005, where the summed time of step 2 i rounds
   below 2 i h for about half of them: each row still applies from its
   step (the tolerance of 1e-6 h). */
START_TEST(test_run_ctrl_npy_timed_bitwise) {
  table tb = {.dt = 0.005, .timed = 1, .nrow = 200, .ncol = NU, .act = {0, 1, 2}};
  const int cols = NU + 1;
  char hdr[128];
  int len = snprintf(hdr, sizeof hdr, "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }",
                     tb.nrow, cols);
  int total = 64; /* magic, version, length, dict, padding, newline: a multiple of 64 */
  FILE* f = fopen(imp_test_in_dir(dir, "c.npy"), "wb");
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  unsigned char hl[2] = {(unsigned char)(total + 64 - 10), 0};
  fwrite(hl, 1, 2, f);
  fwrite(hdr, 1, (size_t)len, f);
  for (int i = 10 + len; i < total + 64 - 1; i++) fputc(' ', f);
  fputc('\n', f);
  for (int i = 0; i < tb.nrow; i++) {
    tb.t[i] = 0.005 * (2 * i);
    double row[NU + 1] = {tb.t[i]};
    for (int u = 0; u < NU; u++) row[1 + u] = tb.v[i][u] = pattern(u, 0.02 * i);
    fwrite(row, sizeof(double), (size_t)cols, f);
  }
  fclose(f);
  ck_assert_int_eq(run("--steps 400 --dt 0.005 --ctrl c.npy --record x.npy"), 0);
  assert_reproduces("x.npy", &tb);
}
END_TEST

/* Each bad file: exit 1, the message names FILE:LINE (or the row) and the
   problem, and no recording is left. */
static void expect_error(const char* name, const char* text, const char* where,
                         const char* what) {
  write_text(name, text);
  char args[512];
  snprintf(args, sizeof args, "--steps 10 --ctrl %s --record bad.npy", name);
  ck_assert_int_eq(run(args), 1);
  const char* err = imp_test_text_of(err_path);
  ck_assert_msg(strstr(err, where) != NULL, "%s: '%s' not in: %s", name, where, err);
  ck_assert_msg(strstr(err, what) != NULL, "%s: '%s' not in: %s", name, what, err);
  ck_assert(!imp_test_exists(imp_test_in_dir(dir, "bad.npy")) && !imp_test_exists(imp_test_in_dir(dir, "bad.npy.tmp")) &&
            !imp_test_exists(imp_test_in_dir(dir, "bad.npy.json")));
  ck_assert_str_eq(imp_test_text_of(out_path), "");
}

START_TEST(test_run_ctrl_bad_files) {
  expect_error("unknown.csv", "p_elbow,wrist\n1,2\n", "unknown.csv:1:",
               "'wrist' is no actuator of the model (actuators: m_shoulder, p_elbow, filt)");
  expect_error("twice.csv", "p_elbow,filt,p_elbow\n1,2,3\n", "twice.csv:1:",
               "both name actuator 'p_elbow'");
  expect_error("count.csv", "1,2,3\n4,5,6\n\n7,8\n", "count.csv:4:",
               "2 values, expected 3");
  expect_error("word.csv", "time,p_elbow\n0,1\n0.1,one\n", "word.csv:3:",
               "column 2: 'one' is not a number");
  expect_error("nan.csv", "1,2,nan\n", "nan.csv:1:", "'nan' is not finite");
  expect_error("order.csv", "t,filt\n0,1\n0.5,1\n0.5,2\n", "order.csv:4:",
               "does not come after");
  expect_error("cols.csv", "1,2\n", "cols.csv:1:", "the model has 3 actuators");
  expect_error("empty.csv", "# nothing\n", "empty.csv", "no rows of controls");
  expect_error("bad.npy.in.npy", "not an npy", "bad.npy.in.npy", "not an NPY file");
  ck_assert_int_eq(run("--steps 10 --ctrl missing.csv"), 1);
  ck_assert(strstr(imp_test_text_of(err_path), "missing.csv: No such file or directory") != NULL);
  ck_assert_int_eq(run("--steps 10 --ctrl"), 2); /* no value: bad usage */
}
END_TEST

/* The help of run documents the option. */
START_TEST(test_help_run_documents_ctrl) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "'%s' help run >'%s' 2>'%s'", IMPETUS_BIN, out_path, err_path);
  ck_assert_int_eq(system(cmd), 0);
  const char* t = imp_test_text_of(out_path);
  ck_assert(strstr(t, "--ctrl FILE") != NULL);
  ck_assert(strstr(t, "zero-order hold") != NULL);
  ck_assert(strstr(t, "last row holds") != NULL);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("ctrl_file");
  TCase* tc = tcase_create("run");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_run_ctrl_csv_per_step_bitwise);
  tcase_add_test(tc, test_run_ctrl_csv_timed_header_bitwise);
  tcase_add_test(tc, test_run_ctrl_npy_timed_bitwise);
  tcase_add_test(tc, test_run_ctrl_bad_files);
  tcase_add_test(tc, test_help_run_documents_ctrl);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(suite()); }
