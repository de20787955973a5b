/* Tests of engine/io/record.c: CSV and NPY recordings read back exactly, the
   temporary file and the rename at close (complete or absent), errors. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "test_files.h"
#include "test_util.h"

#ifndef IMP_TEST_TMPDIR
#define IMP_TEST_TMPDIR "/tmp"
#endif

static const char* const tiny_xml =
    "<mujoco><worldbody><body><joint type=\"hinge\" axis=\"0 1 0\"/>"
    "<geom type=\"capsule\" fromto=\"0 0 0 0 0 -1\" size=\".05\"/></body></worldbody></mujoco>";

#define NROWS 5

/* a fresh directory for one test's files */
static void make_tmpdir(char* dir, size_t n) {
  snprintf(dir, n, "%s/record_XXXXXX", IMP_TEST_TMPDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s failed", dir);
}

/* the whole file in a malloc'd buffer (NUL-terminated); *n its size */
static char* slurp(const char* path, long* n) {
  FILE* f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* buf = malloc((size_t)size + 1);
  ck_assert(buf != NULL);
  ck_assert_int_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
  buf[size] = '\0';
  fclose(f);
  if (n) *n = size;
  return buf;
}

/* Put awkward values in the state for row r: every one must survive exactly. */
/* One row of d recorded to <dir>/<stem>.csv (with csv_flags) and
   <dir>/<stem>.npy in a fresh directory dir (4096 bytes); their paths
   (4200) and the sidecar's (4300). */
static void record_one_row(const imp_model* m, const imp_data* d, const char* stem,
                           int csv_flags, char* dir, char* csv, char* npy, char* json) {
  char err[500] = "";
  make_tmpdir(dir, 4096);
  snprintf(csv, 4200, "%s/%s.csv", dir, stem);
  snprintf(npy, 4200, "%s/%s.npy", dir, stem);
  snprintf(json, 4300, "%s.json", npy);
  imp_recorder* rc = imp_recorder_open_flags(csv, m, csv_flags, err, sizeof err);
  ck_assert_msg(rc != NULL, "open: %s", err);
  imp_recorder* rn = imp_recorder_open(npy, m, err, sizeof err);
  ck_assert_msg(rn != NULL, "open: %s", err);
  ck_assert_int_eq(imp_recorder_write(rc, m, d), 0);
  ck_assert_int_eq(imp_recorder_write(rn, m, d), 0);
  ck_assert_msg(imp_recorder_close(rc, err, sizeof err) == 0, "close: %s", err);
  ck_assert_msg(imp_recorder_close(rn, err, sizeof err) == 0, "close: %s", err);
}

/* remove what record_one_row wrote; the directory must then be empty */
static void remove_one_row(const char* dir, const char* csv, const char* npy, const char* json) {
  remove(csv);
  remove(npy);
  remove(json);
  ck_assert_int_eq(rmdir(dir), 0);
}

static void set_state(const imp_model* m, imp_data* d, int r, double* expect) {
  d->time = r * 0.1; /* 0.30000000000000004 and friends */
  for (int i = 0; i < m->nq; i++) d->qpos[i] = 1.0 / 3.0 + r * 1e-17 - r;
  for (int i = 0; i < m->nv; i++) d->qvel[i] = r == 0 ? -0.0 : (r == 1 ? 1e-310 : -2.5e300 / r);
  for (int i = 0; i < m->nu; i++) d->ctrl[i] = 0.1 * r;
  int c = 0;
  expect[c++] = d->time;
  for (int i = 0; i < m->nq; i++) expect[c++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) expect[c++] = d->qvel[i];
  for (int i = 0; i < m->nu; i++) expect[c++] = d->ctrl[i];
}

/* bit-for-bit equality (so -0.0 and 0.0 differ) */
static void assert_same_bits(double a, double b, int row, int col) {
  ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "row %d column %d: read %.17g, wrote %.17g", row,
                col, a, b);
}

START_TEST(csv_round_trip) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_data* d = imp_make_data(m);
  int ncol = 1 + m->nq + m->nv + m->nu;
  ck_assert_int_eq(ncol, 3);
  char dir[4096], path[4200], tmp[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/traj.csv", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);

  imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert_msg(r != NULL, "open: %s", err);
  snprintf(tmp, sizeof tmp, "%s", imp_recorder_temp_path(r)); /* "<path>.XXXXXX.tmp" */
  double expect[NROWS][3];
  for (int k = 0; k < NROWS; k++) {
    set_state(m, d, k, expect[k]);
    ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
    ck_assert(!imp_test_exists(path)); /* nothing at path until close */
    ck_assert(imp_test_exists(tmp));
  }
  ck_assert_msg(imp_recorder_close(r, err, sizeof err) == 0, "close: %s", err);
  ck_assert(imp_test_exists(path));
  ck_assert(!imp_test_exists(tmp));

  char* text = slurp(path, NULL);
  char* save = NULL;
  char* line = strtok_r(text, "\n", &save);
  ck_assert_str_eq(line, "time,qpos_0,qvel_0");
  int rows = 0;
  while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
    ck_assert_int_lt(rows, NROWS);
    char* p = line;
    for (int c = 0; c < ncol; c++) {
      char* end = NULL;
      double v = strtod(p, &end);
      ck_assert_msg(end != p, "row %d column %d does not parse: '%s'", rows, c, p);
      assert_same_bits(v, expect[rows][c], rows, c);
      ck_assert_int_eq(*end, c + 1 < ncol ? ',' : '\0');
      p = end + 1;
    }
    rows++;
  }
  ck_assert_int_eq(rows, NROWS);
  free(text);
  remove(path);
  rmdir(dir);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* read a little-endian double */
static double get_f64le(const unsigned char* b) {
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) u |= (uint64_t)b[i] << (8 * i);
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* Check the NPY header of buf and return the offset of the data. */
static long check_npy_header(const unsigned char* buf, long n, const char* shape) {
  ck_assert_int_ge(n, 10);
  ck_assert(memcmp(buf, "\x93NUMPY", 6) == 0);
  ck_assert_int_eq(buf[6], 1);
  ck_assert_int_eq(buf[7], 0);
  long hlen = buf[8] | (buf[9] << 8);
  long data = 10 + hlen;
  ck_assert_int_eq(data % 64, 0);
  ck_assert_int_le(data, n);
  ck_assert_int_eq(buf[data - 1], '\n');
  char dict[1024];
  ck_assert_int_lt(hlen, (long)sizeof dict);
  memcpy(dict, buf + 10, (size_t)hlen);
  dict[hlen] = '\0';
  ck_assert_msg(strstr(dict, "'descr': '<f8'") != NULL, "header: %s", dict);
  ck_assert_msg(strstr(dict, "'fortran_order': False") != NULL, "header: %s", dict);
  ck_assert_msg(strstr(dict, shape) != NULL, "header %s lacks %s", dict, shape);
  /* after the dict's closing brace only spaces, then the newline */
  char* brace = strrchr(dict, '}');
  ck_assert(brace != NULL);
  for (char* p = brace + 1; p < dict + hlen - 1; p++) ck_assert_int_eq(*p, ' ');
  return data;
}

START_TEST(npy_round_trip) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_data* d = imp_make_data(m);
  int ncol = 1 + m->nq + m->nv + m->nu;
  char dir[4096], path[4200], json[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/traj.npy", dir);
  snprintf(json, sizeof json, "%s.json", path);

  imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert_msg(r != NULL, "open: %s", err);
  double expect[NROWS][3];
  for (int k = 0; k < NROWS; k++) {
    set_state(m, d, k, expect[k]);
    ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
  }
  ck_assert(!imp_test_exists(path));
  ck_assert_msg(imp_recorder_close(r, err, sizeof err) == 0, "close: %s", err);

  long n = 0;
  unsigned char* buf = (unsigned char*)slurp(path, &n);
  char shape[64];
  snprintf(shape, sizeof shape, "'shape': (%d, %d)", NROWS, ncol);
  long data = check_npy_header(buf, n, shape);
  ck_assert_int_eq(n - data, 8L * NROWS * ncol);
  for (int k = 0; k < NROWS; k++)
    for (int c = 0; c < ncol; c++)
      assert_same_bits(get_f64le(buf + data + 8 * (k * ncol + c)), expect[k][c], k, c);
  free(buf);

  char* side = slurp(json, NULL);
  ck_assert_msg(strstr(side, "\"columns\": [\"time\", \"qpos_0\", \"qvel_0\"]") != NULL, "%s",
                side);
  ck_assert_msg(strstr(side, "\"nq\": 1") && strstr(side, "\"nv\": 1") &&
                    strstr(side, "\"nu\": 0") && strstr(side, "\"rows\": 5") &&
                    strstr(side, "\"timestep\": "),
                "%s", side);
  free(side);
  remove(path);
  remove(json);
  rmdir(dir);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(npy_no_rows) {
  imp_model* m = imp_test_load_string(tiny_xml);
  char dir[4096], path[4200], json[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/empty.NPY", dir); /* the extension's case does not matter */
  snprintf(json, sizeof json, "%s.json", path);
  imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert_msg(r != NULL, "open: %s", err);
  ck_assert_int_eq(imp_recorder_close(r, err, sizeof err), 0);
  long n = 0;
  unsigned char* buf = (unsigned char*)slurp(path, &n);
  ck_assert_int_eq(check_npy_header(buf, n, "'shape': (0, 3)"), n);
  free(buf);
  remove(path);
  remove(json);
  rmdir(dir);
  imp_free_model(m);
}
END_TEST

/* Two recorders of one path at once (two runs, or a run and the viewer):
   each writes a temporary file of its own, both close successfully, and
   the path holds the whole recording of the one that closed last with its
   own sidecar. The old fixed "<path>.tmp" let the second truncate the
   first's rows and the first's rename fail. */
START_TEST(two_recorders_one_path) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_data* d = imp_make_data(m);
  char dir[4096], path[4200], json[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/both.npy", dir);
  snprintf(json, sizeof json, "%s.json", path);
  imp_recorder* a = imp_recorder_open(path, m, err, sizeof err);
  imp_recorder* b = imp_recorder_open(path, m, err, sizeof err);
  ck_assert_msg(a && b, "open: %s", err);
  ck_assert_str_ne(imp_recorder_temp_path(a), imp_recorder_temp_path(b));
  /* beside path, so the rename stays in one file system */
  ck_assert(strncmp(imp_recorder_temp_path(a), path, strlen(path)) == 0);
  for (int k = 0; k < 7; k++) {
    d->time = k;
    ck_assert_int_eq(imp_recorder_write(a, m, d), 0);
    if (k < 3) ck_assert_int_eq(imp_recorder_write(b, m, d), 0);
  }
  ck_assert_msg(imp_recorder_close(b, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(imp_recorder_close(a, err, sizeof err) == 0, "%s", err);
  long n = 0;
  char* data = slurp(path, &n);
  int ncol = 1 + m->nq + m->nv + m->nu;
  ck_assert_int_eq(n, 128 + 8 * ncol * 7); /* a's 7 rows, whole */
  for (int k = 0; k < 7; k++) {
    double t;
    memcpy(&t, data + 128 + 8 * ncol * k, 8);
    ck_assert(t == k);
  }
  free(data);
  char* side = slurp(json, NULL);
  ck_assert_msg(strstr(side, "\"rows\": 7,") != NULL, "%s", side);
  free(side);
  remove(path);
  remove(json);
  ck_assert_int_eq(rmdir(dir), 0); /* no temporary file left */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Links planted at the names a recording's temporary files used to have
   are not followed: their target keeps its bytes and the recording is a
   file of its own. A directory at path is refused when the recorder opens,
   not after the run. The file's mode is 0666 less the umask, as for any
   file the user makes. */
START_TEST(planted_links_not_followed) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_data* d = imp_make_data(m);
  char dir[4096], path[4200], victim[4200], link1[4300], link2[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(victim, sizeof victim, "%s/victim", dir);
  FILE* f = fopen(victim, "w");
  ck_assert(f && fputs("precious", f) >= 0 && fclose(f) == 0);
  snprintf(path, sizeof path, "%s/linked.npy", dir);
  snprintf(link1, sizeof link1, "%s.tmp", path);
  snprintf(link2, sizeof link2, "%s.json.tmp", path);
  ck_assert_int_eq(symlink(victim, link1), 0);
  ck_assert_int_eq(symlink(victim, link2), 0);
  mode_t old = umask(027);
  imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert_msg(r != NULL, "open: %s", err);
  ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
  ck_assert_msg(imp_recorder_close(r, err, sizeof err) == 0, "%s", err);
  umask(old);
  char* text = slurp(victim, NULL);
  ck_assert_str_eq(text, "precious");
  free(text);
  struct stat st;
  ck_assert(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
  ck_assert_int_eq(st.st_mode & 0777, 0640);
  ck_assert(lstat(link1, &st) == 0 && S_ISLNK(st.st_mode));
  ck_assert(lstat(link2, &st) == 0 && S_ISLNK(st.st_mode));
  char json[4300];
  snprintf(json, sizeof json, "%s.json", path);
  ck_assert(lstat(json, &st) == 0 && S_ISREG(st.st_mode));
  remove(path);
  remove(json);
  remove(link1);
  remove(link2);

  /* a directory where the recording should go */
  snprintf(path, sizeof path, "%s/adir.csv", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  err[0] = '\0';
  ck_assert(imp_recorder_open(path, m, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, "adir.csv") != NULL, "%s", err);
  ck_assert_int_eq(rmdir(path), 0);
  remove(victim);
  ck_assert_int_eq(rmdir(dir), 0); /* no temporary file left */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(abort_leaves_nothing) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_data* d = imp_make_data(m);
  char dir[4096], path[4200], tmp[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  const char* ext[2] = {"csv", "npy"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/aborted.%s", dir, ext[k]);
    imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
    ck_assert_msg(r != NULL, "open: %s", err);
    snprintf(tmp, sizeof tmp, "%s", imp_recorder_temp_path(r));
    ck_assert(imp_test_exists(tmp));
    ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
    imp_recorder_abort(r);
    ck_assert(!imp_test_exists(path));
    ck_assert(!imp_test_exists(tmp));
    snprintf(tmp, sizeof tmp, "%s.json", path);
    ck_assert(!imp_test_exists(tmp));
  }
  ck_assert_int_eq(rmdir(dir), 0); /* empty */
  imp_recorder_abort(NULL);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(old_file_replaced_only_at_close) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_data* d = imp_make_data(m);
  char dir[4096], path[4200], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/traj.csv", dir);
  FILE* f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs("old\n", f);
  fclose(f);

  imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert_msg(r != NULL, "open: %s", err);
  ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
  char* text = slurp(path, NULL);
  ck_assert_str_eq(text, "old\n"); /* a run in progress does not touch the old file */
  free(text);
  imp_recorder_abort(r);
  text = slurp(path, NULL);
  ck_assert_str_eq(text, "old\n"); /* nor does an aborted one */
  free(text);

  r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert(r != NULL);
  ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
  ck_assert_int_eq(imp_recorder_close(r, err, sizeof err), 0);
  text = slurp(path, NULL);
  ck_assert_msg(strncmp(text, "time,qpos_0,qvel_0\n", 19) == 0, "%s", text);
  free(text);
  remove(path);
  rmdir(dir);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(unwritable_directory) {
  imp_model* m = imp_test_load_string(tiny_xml);
  char dir[4096], path[4200], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  /* a directory that does not exist (permissions do not stop root) */
  snprintf(path, sizeof path, "%s/missing/traj.csv", dir);
  imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert(r == NULL);
  ck_assert_msg(strstr(err, "missing/traj.csv") != NULL, "message: '%s'", err);
  ck_assert(!imp_test_exists(path));
  rmdir(dir);
  imp_free_model(m);
}
END_TEST

START_TEST(unknown_extension) {
  imp_model* m = imp_test_load_string(tiny_xml);
  char dir[4096], path[4200], tmp[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  const char* names[3] = {"traj.txt", "traj", ".csv"};
  for (int k = 0; k < 3; k++) {
    err[0] = '\0';
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_assert(imp_recorder_open(path, m, err, sizeof err) == NULL);
    ck_assert_msg(strstr(err, ".csv or .npy") != NULL, "message: '%s'", err);
    ck_assert(!imp_test_exists(path));
    ck_assert(!imp_test_exists(tmp));
  }
  ck_assert_int_eq(rmdir(dir), 0);
  imp_free_model(m);
}
END_TEST

START_TEST(write_for_another_model_fails) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_model* m2 = imp_test_load_string(
      "<mujoco><worldbody><body><joint type=\"ball\"/><geom size=\".1\"/></body>"
      "</worldbody></mujoco>");
  imp_data* d2 = imp_make_data(m2);
  char dir[4096], path[4200], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/traj.csv", dir);
  imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
  ck_assert(r != NULL);
  ck_assert_int_eq(imp_recorder_write(r, m2, d2), -1);
  ck_assert_int_eq(imp_recorder_close(r, err, sizeof err), -1); /* the failure sticks */
  ck_assert(!imp_test_exists(path));
  ck_assert_int_eq(rmdir(dir), 0);
  imp_free_data(d2);
  imp_free_model(m2);
  imp_free_model(m);
}
END_TEST

/* IMP_RECORD_SOLVER: four more columns, the last step's statistics exactly,
   zeros while the data has not stepped since its reset. */
START_TEST(solver_columns) {
  imp_model* m = imp_test_load_string(tiny_xml);
  imp_data* d = imp_make_data(m);
  char dir[4096], csv[4200], npy[4200], json[4300], err[500] = "";
  make_tmpdir(dir, sizeof dir);
  snprintf(csv, sizeof csv, "%s/stats.csv", dir);
  snprintf(npy, sizeof npy, "%s/stats.npy", dir);
  snprintf(json, sizeof json, "%s.json", npy);
  imp_recorder* rc = imp_recorder_open_flags(csv, m, IMP_RECORD_SOLVER, err, sizeof err);
  ck_assert_msg(rc != NULL, "open: %s", err);
  imp_recorder* rn = imp_recorder_open_flags(npy, m, IMP_RECORD_SOLVER, err, sizeof err);
  ck_assert_msg(rn != NULL, "open: %s", err);

  /* statistics left on an unstepped data (a forward): not a step's, so zeros */
  d->ncon = 5;
  d->nefc = 15;
  d->solver_iter = 9;
  d->solver_residual = 0.5;
  ck_assert_int_eq(imp_recorder_write(rc, m, d), 0);
  ck_assert_int_eq(imp_recorder_write(rn, m, d), 0);
  const double want0[4] = {0, 0, 0, 0};
  /* after a step: the values themselves */
  d->nstep = 1;
  d->ncon = 2;
  d->nefc = 6;
  d->solver_iter = 7;
  d->solver_residual = 1.2345678901234567e-9;
  ck_assert_int_eq(imp_recorder_write(rc, m, d), 0);
  ck_assert_int_eq(imp_recorder_write(rn, m, d), 0);
  const double want1[4] = {2, 6, 7, 1.2345678901234567e-9};
  ck_assert_msg(imp_recorder_close(rc, err, sizeof err) == 0, "close: %s", err);
  ck_assert_msg(imp_recorder_close(rn, err, sizeof err) == 0, "close: %s", err);

  char* text = slurp(csv, NULL);
  char* save = NULL;
  char* line = strtok_r(text, "\n", &save);
  ck_assert_str_eq(line, "time,qpos_0,qvel_0,ncon,nefc,solver_iter,solver_residual");
  for (int r = 0; r < 2; r++) {
    line = strtok_r(NULL, "\n", &save);
    ck_assert(line != NULL);
    double v[7];
    ck_assert_int_eq(sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", v, v + 1, v + 2, v + 3, v + 4,
                            v + 5, v + 6), 7);
    for (int c = 0; c < 4; c++) assert_same_bits(v[3 + c], (r ? want1 : want0)[c], r, 3 + c);
  }
  ck_assert(strtok_r(NULL, "\n", &save) == NULL);
  free(text);

  long n = 0;
  unsigned char* buf = (unsigned char*)slurp(npy, &n);
  long data = check_npy_header(buf, n, "'shape': (2, 7)");
  ck_assert_int_eq(n - data, 8L * 2 * 7);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 4; c++)
      assert_same_bits(get_f64le(buf + data + 8 * (r * 7 + 3 + c)), (r ? want1 : want0)[c], r,
                       3 + c);
  free(buf);
  char* side = slurp(json, NULL);
  ck_assert_msg(strstr(side, "\"columns\": [\"time\", \"qpos_0\", \"qvel_0\", \"ncon\", "
                             "\"nefc\", \"solver_iter\", \"solver_residual\"]") != NULL,
                "%s", side);
  free(side);

  /* flags 0 is the plain recorder; unknown bits are refused, nothing created */
  imp_recorder* r0 = imp_recorder_open_flags(csv, m, 0, err, sizeof err);
  ck_assert(r0 != NULL);
  ck_assert_int_eq(imp_recorder_write(r0, m, d), 0);
  ck_assert_int_eq(imp_recorder_close(r0, err, sizeof err), 0);
  text = slurp(csv, NULL);
  ck_assert_msg(strncmp(text, "time,qpos_0,qvel_0\n", 19) == 0, "%s", text);
  free(text);
  char bad[4200];
  snprintf(bad, sizeof bad, "%s/bad.csv", dir);
  err[0] = '\0';
  ck_assert(imp_recorder_open_flags(bad, m, 2, err, sizeof err) == NULL);
  ck_assert_msg(err[0] != '\0', "no message");
  ck_assert(!imp_test_exists(bad));
  snprintf(bad, sizeof bad, "%s/bad.csv.tmp", dir);
  ck_assert(!imp_test_exists(bad));

  remove(csv);
  remove(npy);
  remove(json);
  ck_assert_int_eq(rmdir(dir), 0); /* nothing else was left */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Sensor columns come after ctrl and before the solver columns, one per
   value of d->sensordata, named after their sensors (sensor_NAME,
   sensor_NAME_K, sensorI for unnamed ones); a name with a comma or a quote
   is quoted in the CSV header and escaped in the JSON sidecar. */
START_TEST(sensor_columns) {
  imp_model* m = imp_test_load_string(
      "<mujoco><worldbody><body><joint name='j' type='hinge' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 0 0 -1' size='.05'/><site name='s'/></body>"
      "</worldbody><sensor><jointpos name='angle' joint='j'/><gyro site='s'/>"
      "<jointvel name='a,&quot;b' joint='j'/></sensor></mujoco>");
  imp_data* d = imp_make_data(m);
  d->qvel[0] = 0.5;
  imp_step(m, d);
  char dir[4096], csv[4200], npy[4200], json[4300];
  record_one_row(m, d, "s", IMP_RECORD_SOLVER, dir, csv, npy, json);

  char* text = slurp(csv, NULL);
  const char* header = "time,qpos_0,qvel_0,sensor_angle,sensor1_0,sensor1_1,sensor1_2,"
                       "\"sensor_a,\"\"b\",ncon,nefc,solver_iter,solver_residual\n";
  ck_assert_msg(strncmp(text, header, strlen(header)) == 0, "%s", text);
  double v[12];
  ck_assert_int_eq(sscanf(text + strlen(header), "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", v, v + 1,
                          v + 2, v + 3, v + 4, v + 5, v + 6, v + 7),
                   8);
  for (int k = 0; k < 5; k++) assert_same_bits(v[3 + k], d->sensordata[k], 1, 3 + k);
  free(text);
  char* side = slurp(json, NULL);
  ck_assert_msg(strstr(side, "\"qvel_0\", \"sensor_angle\", \"sensor1_0\", \"sensor1_1\", "
                             "\"sensor1_2\", \"sensor_a,\\\"b\"]") != NULL,
                "%s", side);
  ck_assert_msg(strstr(side, "\"nsensordata\": 5") != NULL, "%s", side);
  free(side);
  long n = 0;
  unsigned char* buf = (unsigned char*)slurp(npy, &n);
  long data = check_npy_header(buf, n, "'shape': (1, 8)");
  for (int k = 0; k < 5; k++)
    assert_same_bits(get_f64le(buf + data + 8 * (3 + k)), d->sensordata[k], 0, 3 + k);
  free(buf);
  remove_one_row(dir, csv, npy, json);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Mocap columns come after ctrl: each mocap body's mocap_pos then
   mocap_quat, named after the body (mocapI_ for an unnamed one), before the
   sensor columns; the sidecar gives nmocap. */
START_TEST(mocap_columns) {
  imp_model* m = imp_test_load_string(
      "<mujoco><worldbody><body name='hand' mocap='true' pos='1 2 3'/>"
      "<body><joint name='j' type='hinge'/><geom size='.1'/></body>"
      "<body mocap='true'/></worldbody>"
      "<sensor><jointpos name='angle' joint='j'/></sensor></mujoco>");
  imp_data* d = imp_make_data(m);
  double pos[6] = {0.1, 0.2, 0.3, -1.0 / 3.0, 5e-300, -0.0};
  double quat[8] = {0.5, 0.5, 0.5, 0.5, 1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 0};
  memcpy(d->mocap_pos, pos, sizeof pos);
  memcpy(d->mocap_quat, quat, sizeof quat);
  d->qpos[0] = 0.25;
  imp_forward(m, d);
  char dir[4096], csv[4200], npy[4200], json[4300];
  record_one_row(m, d, "m", 0, dir, csv, npy, json);

  const char* names =
      "time,qpos_0,qvel_0,mocap_hand_pos_0,mocap_hand_pos_1,mocap_hand_pos_2,"
      "mocap_hand_quat_0,mocap_hand_quat_1,mocap_hand_quat_2,mocap_hand_quat_3,"
      "mocap1_pos_0,mocap1_pos_1,mocap1_pos_2,mocap1_quat_0,mocap1_quat_1,mocap1_quat_2,"
      "mocap1_quat_3,sensor_angle\n";
  char* text = slurp(csv, NULL);
  ck_assert_msg(strncmp(text, names, strlen(names)) == 0, "%s", text);
  double v[18];
  const char* p = text + strlen(names);
  for (int c = 0; c < 18; c++) {
    char* end;
    v[c] = strtod(p, &end);
    p = end + 1;
  }
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 3; i++) assert_same_bits(v[3 + 7 * k + i], pos[3 * k + i], 1, 3 + 7 * k + i);
    for (int i = 0; i < 4; i++)
      assert_same_bits(v[6 + 7 * k + i], quat[4 * k + i], 1, 6 + 7 * k + i);
  }
  assert_same_bits(v[17], d->sensordata[0], 1, 17);
  free(text);
  char* side = slurp(json, NULL);
  ck_assert_msg(strstr(side, "\"mocap_hand_pos_0\", \"mocap_hand_pos_1\"") != NULL, "%s", side);
  ck_assert_msg(strstr(side, "\"mocap1_quat_3\", \"sensor_angle\"]") != NULL, "%s", side);
  ck_assert_msg(strstr(side, "\"nmocap\": 2") != NULL, "%s", side);
  free(side);
  long n = 0;
  unsigned char* buf = (unsigned char*)slurp(npy, &n);
  long data = check_npy_header(buf, n, "'shape': (1, 18)");
  for (int i = 0; i < 3; i++) assert_same_bits(get_f64le(buf + data + 8 * (10 + i)), pos[3 + i], 0, 10 + i);
  free(buf);
  remove_one_row(dir, csv, npy, json);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Activation columns come after ctrl and before the sensors, one per value
   of d->act, named after their actuators (act_NAME, actU when unnamed);
   the sidecar names them and gives na. */
START_TEST(act_columns) {
  imp_model* m = imp_test_load_string(
      "<mujoco><worldbody><body><joint name='j' type='hinge' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 0 0 -1' size='.05'/></body></worldbody>"
      "<actuator><motor joint='j'/><general name='f' joint='j' dyntype='filter'/>"
      "<general joint='j' dyntype='integrator'/></actuator>"
      "<sensor><jointpos name='angle' joint='j'/></sensor></mujoco>");
  imp_data* d = imp_make_data(m);
  d->ctrl[1] = 0.7;
  d->ctrl[2] = -2;
  for (int k = 0; k < 3; k++) imp_step(m, d);
  char dir[4096], csv[4200], npy[4200], json[4300];
  record_one_row(m, d, "a", 0, dir, csv, npy, json);
  char* text = slurp(csv, NULL);
  const char* header = "time,qpos_0,qvel_0,ctrl_0,ctrl_1,ctrl_2,act_f,act2,sensor_angle\n";
  ck_assert_msg(strncmp(text, header, strlen(header)) == 0, "%s", text);
  double v[9];
  ck_assert_int_eq(sscanf(text + strlen(header), "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", v,
                          v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7, v + 8),
                   9);
  ck_assert(d->act[0] != 0 && d->act[1] != 0);
  for (int k = 0; k < 2; k++) assert_same_bits(v[6 + k], d->act[k], 1, 6 + k);
  assert_same_bits(v[8], d->sensordata[0], 1, 8);
  free(text);
  char* side = slurp(json, NULL);
  ck_assert_msg(strstr(side, "\"ctrl_2\", \"act_f\", \"act2\", \"sensor_angle\"]") != NULL,
                "%s", side);
  ck_assert_msg(strstr(side, "\"na\": 2") != NULL, "%s", side);
  free(side);
  long n = 0;
  unsigned char* buf = (unsigned char*)slurp(npy, &n);
  long data = check_npy_header(buf, n, "'shape': (1, 9)");
  for (int k = 0; k < 2; k++) assert_same_bits(get_f64le(buf + data + 8 * (6 + k)), d->act[k], 0, 6 + k);
  free(buf);
  remove_one_row(dir, csv, npy, json);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static Suite* record_suite(void) {
  Suite* s = suite_create("record");
  TCase* tc = tcase_create("record");
  tcase_add_test(tc, csv_round_trip);
  tcase_add_test(tc, npy_round_trip);
  tcase_add_test(tc, npy_no_rows);
  tcase_add_test(tc, abort_leaves_nothing);
  tcase_add_test(tc, two_recorders_one_path);
  tcase_add_test(tc, planted_links_not_followed);
  tcase_add_test(tc, old_file_replaced_only_at_close);
  tcase_add_test(tc, unwritable_directory);
  tcase_add_test(tc, unknown_extension);
  tcase_add_test(tc, write_for_another_model_fails);
  tcase_add_test(tc, solver_columns);
  tcase_add_test(tc, sensor_columns);
  tcase_add_test(tc, mocap_columns);
  tcase_add_test(tc, act_columns);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(record_suite()); }
