/* Tests of apps/compare/fclib_io.c (FCLIB local problems <-> imp_cproblem) and of
   `impetus solvers --compare` with FCLIB files: a recorded box-on-plane
   problem survives the round trip exactly and solves to the weight of the
   box; files written by libfclib's own writer with known solutions are read
   and solved to them; bad files give an error naming the file instead of
   libfclib's exit. Built only when libfclib-dev is found. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <fclib.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "constraint/contact.h"
#include "compare/fclib_io.h"
#include "test_cproblem.h"
#include "test_files.h"
#include "test_util.h"

#ifndef IMP_TEST_TMPDIR
#define IMP_TEST_TMPDIR "/tmp"
#endif

static char dir[4096];

static void setup(void) {
  snprintf(dir, sizeof dir, "%s/fclib_XXXXXX", IMP_TEST_TMPDIR);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp failed");
}

static void teardown(void) { imp_test_remove_dir(dir); }


/* ---- a recorded problem: the box of models/box_rest.xml on the floor ---- */

/* the hook's copy of the last problem it saw */
typedef struct captured {
  tprob t;
  double h;
  int count;
} captured;

static void capture_hook(void* ctx, const imp_cproblem* p, const double* warm) {
  captured* c = ctx;
  (void)warm;
  ck_assert_int_le(p->n, MAXN);
  ck_assert_int_le(p->nblock, MAXB);
  tprob* t = &c->t;
  *t = (tprob){0};
  t->n = p->n, t->nblock = p->nblock;
  memcpy(t->adr, p->blk_adr, sizeof(int) * (size_t)p->nblock);
  memcpy(t->dim, p->blk_dim, sizeof(int) * (size_t)p->nblock);
  memcpy(t->type, p->blk_type, sizeof(int) * (size_t)p->nblock);
  memcpy(t->mu, p->mu, sizeof(double) * (size_t)p->nblock);
  memcpy(t->A, p->A, sizeof(double) * (size_t)(p->n * p->n));
  memcpy(t->v0, p->v0, sizeof(double) * (size_t)p->n);
  memcpy(t->b, p->b, sizeof(double) * (size_t)p->n);
  c->h = p->h;
  c->count++;
}

/* The box's problem after `steps` steps (settled: the box rests on its four
   bottom corners, and its problem is that of the last step). */
static void record_box_rest(captured* c, int steps) {
  imp_model* m = imp_test_load_model("box_rest.xml");
  imp_data* d = imp_make_data(m);
  *c = (captured){0};
  imp_set_problem_hook(d, capture_hook, c);
  for (int s = 0; s < steps; s++) imp_step(m, d);
  imp_set_problem_hook(d, NULL, NULL);
  imp_free_data(d);
  imp_free_model(m);
  ck_assert_int_eq(c->count, steps);
  ck_assert_int_eq(c->t.n, 12); /* four corner contacts, condim 3 */
}

/* Solve p with solver name from a cold start; f gets the answer. */
static imp_csolver_stat solve_with(const char* name, const imp_cproblem* p, double* f) {
  int k = imp_solver_find(name);
  ck_assert_msg(k >= 0, "no solver %s", name);
  const imp_csolver* s = imp_solver_get(k);
  void* work = aligned_alloc(16, (s->work_size(p->n, p->nblock) + 15) / 16 * 16 + 16);
  ck_assert(work != NULL);
  memset(f, 0, sizeof(double) * (size_t)p->n);
  imp_csolver_opt o = {1000, 1e-12, 0, NULL, NULL, 0};
  imp_csolver_stat st = {0, 0, 0, IMP_EXIT_FAILED};
  s->solve(p, &o, f, &st, work);
  free(work);
  return st;
}

/* files in d whose names end in ".tmp" */
static int count_tmp_files(const char* d) {
  DIR* h = opendir(d);
  ck_assert(h != NULL);
  int n = 0;
  for (struct dirent* e; (e = readdir(h)) != NULL;) {
    size_t len = strlen(e->d_name);
    n += len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0;
  }
  closedir(h);
  return n;
}

/* The file goes through a temporary file of its own (tmpfile.h), as the
   recorder's: a symbolic link planted at the old fixed name "<path>.tmp"
   is neither followed nor removed, its target keeps its content, and the
   problem still lands at path (issue 15: a fixed name let two writers
   clobber each other and a planted link overwrite any file). */
START_TEST(write_ignores_a_planted_link) {
  captured c;
  record_box_rest(&c, 20);
  imp_cproblem p = view(&c.t);
  p.h = c.h;
  const char* victim = imp_test_in_dir(dir, "victim.txt");
  FILE* f = fopen(victim, "w");
  ck_assert(f != NULL);
  fputs("precious", f);
  fclose(f);
  char path[4400], link[4400], err[4400] = "";
  ck_assert((size_t)snprintf(path, sizeof path, "%s", imp_test_in_dir(dir, "box.hdf5")) < 4000);
  ck_assert((size_t)snprintf(link, sizeof link, "%s", imp_test_in_dir(dir, "box.hdf5.tmp")) <
            sizeof link);
  ck_assert(symlink(victim, link) == 0);
  ck_assert_msg(fclib_io_write(path, &p, "box_rest", err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(imp_test_text_of(victim), "precious");
  struct stat st;
  ck_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  ck_assert(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
  ck_assert_int_eq(count_tmp_files(dir), 1); /* the planted link alone */
  imp_cproblem r;
  void* mem = NULL;
  ck_assert_msg(fclib_io_read(path, &r, &mem, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r.n, p.n);
  free(mem);
}
END_TEST

/* Written and read back, the box's problem is the same problem bit for bit
   in FCLIB's form: A = W, v0 - b = q, mu, and the time step. */
START_TEST(round_trip_is_exact) {
  captured c;
  record_box_rest(&c, 200);
  imp_cproblem p = view(&c.t);
  p.h = c.h;
  ck_assert(fclib_io_representable(&p));
  char err[4400] = "";
  const char* path = imp_test_in_dir(dir, "box.hdf5");
  ck_assert_msg(fclib_io_write(path, &p, "box_rest problem 0", err, sizeof err) == 0, "%s", err);
  ck_assert_msg(count_tmp_files(dir) == 0, "temporary file left behind");
  imp_cproblem r;
  void* mem = NULL;
  ck_assert_msg(fclib_io_read(path, &r, &mem, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r.n, p.n);
  ck_assert_int_eq(r.nblock, 4);
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(r.blk_adr[k], 3 * k);
    ck_assert_int_eq(r.blk_dim[k], 3);
    ck_assert_int_eq(r.blk_type[k], IMP_CNSTR_CONTACT);
    ck_assert_msg(r.mu[k] == p.mu[k], "mu[%d] %.17g vs %.17g", k, r.mu[k], p.mu[k]);
  }
  ck_assert_msg(r.mu[0] == 0.8, "box_rest.xml says friction 0.8, read %.17g", r.mu[0]);
  for (int i = 0; i < p.n * p.n; i++)
    ck_assert_msg(r.A[i] == p.A[i], "A[%d] %.17g vs %.17g", i, r.A[i], p.A[i]);
  for (int i = 0; i < p.n; i++) {
    ck_assert_msg(r.v0[i] == p.v0[i] - p.b[i], "q[%d] %.17g vs v0 - b %.17g", i, r.v0[i],
                  p.v0[i] - p.b[i]);
    ck_assert_msg(r.b[i] == 0, "b[%d] = %g", i, r.b[i]);
  }
  ck_assert_msg(r.h == 0.002, "timestep %.17g, box_rest.xml says 0.002", r.h);
  free(mem);
}
END_TEST

/* The read problem solves to what the box needs: the floor carries its
   weight, total normal impulse m g h = 1 kg * 9.81 * 0.002 s, no net
   friction (nothing pushes it sideways; how the four redundant contacts
   share the load and any internal friction is not unique); and pgs and
   todorov give the read problem the same impulses as the recorded one. */
START_TEST(read_problem_solves_to_the_weight) {
  captured c;
  /* step 80: the box has settled (it starts touching, 1e-6 m above its
     resting depth, and sinks that micron at the contact's rate 1/T, T =
     0.02 s: at step 50 its impulse was still 1.6e-6 relative short of the
     weight); later the sticking answer's residual grows by rounding
     (relative 1.1e-12 at step 150, past this test's tolerance of 1e-12) */
  record_box_rest(&c, 80);
  imp_cproblem p = view(&c.t);
  char err[4400] = "";
  const char* path = imp_test_in_dir(dir, "box.hdf5");
  ck_assert_msg(fclib_io_write(path, &p, "box", err, sizeof err) == 0, "%s", err);
  imp_cproblem r;
  void* mem = NULL;
  ck_assert_msg(fclib_io_read(path, &r, &mem, err, sizeof err) == 0, "%s", err);
  const char* names[2] = {"pgs", "todorov"};
  for (int s = 0; s < 2; s++) {
    double f_read[12], f_orig[12], work[24], rel = 1;
    imp_csolver_stat st = solve_with(names[s], &r, f_read);
    ck_assert_msg(st.exit == IMP_EXIT_CONVERGED, "%s: exit %d", names[s], st.exit);
    solve_with(names[s], &p, f_orig);
    imp_cresidual(&r, f_read, &rel, work);
    ck_assert_msg(rel <= 1e-8, "%s: relative residual %.3e", names[s], rel);
    /* four contacts of one plane share the frame: sums are the net impulse */
    double fn = 0, ft1 = 0, ft2 = 0;
    for (int k = 0; k < 4; k++) {
      fn += f_read[3 * k];
      ft1 += f_read[3 * k + 1];
      ft2 += f_read[3 * k + 2];
    }
    imp_assert_rel(fn, 1.0 * 9.81 * 0.002, 1e-6);
    ck_assert_msg(fabs(ft1) <= 1e-9 && fabs(ft2) <= 1e-9,
                  "%s: net friction (%.3e, %.3e) on a box at rest", names[s], ft1, ft2);
    /* same solver, same numbers up to the rounding of v0 - b */
    imp_assert_vec_near(f_read, f_orig, 12, 1e-12);
  }
  free(mem);
}
END_TEST

/* Write a local problem with libfclib's own writer (not ours): W (3m x 3m)
   given in the form the caller set up, q, mu, spacedim. */
static void fclib_writes(const char* path, struct fclib_matrix* W, double* q, double* mu,
                         int spacedim) {
  struct fclib_local lp = {W, NULL, NULL, mu, q, NULL, spacedim, NULL};
  ck_assert_msg(fclib_write_local(&lp, path) == 1, "libfclib did not write %s", path);
}

/* One contact, W = I in compressed columns, q = (-1, 0, 0): the contact
   must push with r = (1, 0, 0) to stop the approach, u = 0. */
START_TEST(fclib_file_one_contact) {
  int colp[4] = {0, 1, 2, 3}, rowi[3] = {0, 1, 2};
  double x[3] = {1, 1, 1}, q[3] = {-1, 0, 0}, mu[1] = {0.5};
  struct fclib_matrix W = {3, 3, 3, colp, rowi, x, -1, NULL};
  const char* path = imp_test_in_dir(dir, "one.hdf5");
  fclib_writes(path, &W, q, mu, 3);
  imp_cproblem r;
  void* mem = NULL;
  char err[4400] = "";
  ck_assert_msg(fclib_io_read(path, &r, &mem, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r.n, 3);
  ck_assert_msg(r.h == 0, "a foreign file has no time step: h %g", r.h);
  const double expect[3] = {1, 0, 0};
  for (int s = 0; s < imp_solver_count(); s++) {
    double f[3];
    solve_with(imp_solver_get(s)->name, &r, f);
    imp_assert_vec_near(f, expect, 3, 1e-8);
  }
  free(mem);
}
END_TEST

/* The anisotropic sliding contact of test_cproblem.h in triplet form with a
   split entry (W_33 = 3 + 1: triplets sum): W = diag(1, 1, 4), q = (-1,
   -0.9, -2.4), mu = 0.5. Exact answer r = (1, 0.3, 0.4), sliding. */
START_TEST(fclib_file_triplets_sliding) {
  int rows[4] = {0, 1, 2, 2}, cols[4] = {0, 1, 2, 2};
  double x[4] = {1, 1, 3, 1}, q[3] = {-1, -0.9, -2.4}, mu[1] = {0.5};
  struct fclib_matrix W = {4, 3, 3, rows, cols, x, 4, NULL};
  const char* path = imp_test_in_dir(dir, "slide.h5");
  fclib_writes(path, &W, q, mu, 3);
  imp_cproblem r;
  void* mem = NULL;
  char err[4400] = "";
  ck_assert_msg(fclib_io_read(path, &r, &mem, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(r.A[8] == 4, "W_33 %g: triplets must sum", r.A[8]);
  const double expect[3] = {1, 0.3, 0.4};
  /* the exact-cone solvers (minmap and lemke solve a pyramid, ccp a relaxation) */
  const char* names[4] = {"todorov", "pgs", "prox", "nsn_fb"};
  for (int s = 0; s < 4; s++) {
    double f[3];
    solve_with(names[s], &r, f);
    imp_assert_vec_near(f, expect, 3, 1e-8);
  }
  free(mem);
}
END_TEST

/* One unsymmetric matrix M = [2 1 0; 0 3 0; 4 0 5] written by libfclib in
   its three forms (triplet, compressed columns, compressed rows) reads back
   as the same row-major matrix: rows and columns are not swapped. */
START_TEST(sparse_forms_read_alike) {
  const double M[9] = {2, 1, 0, 0, 3, 0, 4, 0, 5};
  int trow[5] = {0, 0, 1, 2, 2}, tcol[5] = {0, 1, 1, 0, 2};
  double tx[5] = {2, 1, 3, 4, 5};
  int cp[4] = {0, 2, 4, 5}, ci[5] = {0, 2, 0, 1, 2};
  double cx[5] = {2, 4, 1, 3, 5};
  int rp[4] = {0, 2, 3, 5}, ri[5] = {0, 1, 1, 0, 2};
  double rx[5] = {2, 1, 3, 4, 5};
  struct fclib_matrix W[3] = {{5, 3, 3, trow, tcol, tx, 5, NULL},
                              {5, 3, 3, cp, ci, cx, -1, NULL},
                              {5, 3, 3, rp, ri, rx, -2, NULL}};
  for (int k = 0; k < 3; k++) {
    double q[3] = {-1, 0, 0}, mu[1] = {0.5};
    char name[32];
    snprintf(name, sizeof name, "form%d.hdf5", k);
    const char* path = imp_test_in_dir(dir, name);
    fclib_writes(path, &W[k], q, mu, 3);
    imp_cproblem r;
    void* mem = NULL;
    char err[4400] = "";
    ck_assert_msg(fclib_io_read(path, &r, &mem, err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < 9; i++)
      ck_assert_msg(r.A[i] == M[i], "form %d: A[%d] = %g, expected %g", k, i, r.A[i], M[i]);
    free(mem);
  }
}
END_TEST

/* err names the file and says why */
static void assert_error(const char* path, const char* why) {
  imp_cproblem r;
  void* mem = (void*)1;
  char err[4400] = "";
  ck_assert_int_eq(fclib_io_read(path, &r, &mem, err, sizeof err), -1);
  ck_assert(mem == NULL);
  ck_assert_msg(strncmp(err, path, strlen(path)) == 0, "error does not name %s: %s", path, err);
  ck_assert_msg(strstr(err, why) != NULL, "expected '%s' in: %s", why, err);
}

/* Missing, non-HDF5, non-FCLIB, 2D and incomplete files: a message naming
   the file, never libfclib's exit (Check would see the process die). */
START_TEST(bad_files_name_the_file) {
  assert_error(imp_test_in_dir(dir, "missing.hdf5"), "cannot open");
  const char* text = imp_test_in_dir(dir, "text.hdf5");
  FILE* f = fopen(text, "w");
  ck_assert(f != NULL);
  fputs("<mujoco/>\n", f);
  fclose(f);
  assert_error(text, "not an HDF5 file");
  /* an HDF5 file of something else */
  const char* other = imp_test_in_dir(dir, "other.hdf5");
  hid_t h = H5Fcreate(other, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(h >= 0);
  hid_t g = H5Gcreate2(h, "/images", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(g);
  H5Fclose(h);
  assert_error(other, "not an FCLIB problem file");
  /* 2D friction */
  int colp[3] = {0, 1, 2}, rowi[2] = {0, 1};
  double x[2] = {1, 1}, q[2] = {-1, 0}, mu[1] = {0.3};
  struct fclib_matrix W2 = {2, 2, 2, colp, rowi, x, -1, NULL};
  const char* flat = imp_test_in_dir(dir, "flat.hdf5");
  fclib_writes(flat, &W2, q, mu, 2);
  assert_error(flat, "spacedim 2");
  /* a valid file with q removed: libfclib alone would exit(1) */
  int colp3[4] = {0, 1, 2, 3}, rowi3[3] = {0, 1, 2};
  double x3[3] = {1, 1, 1}, q3[3] = {-1, 0, 0};
  struct fclib_matrix W3 = {3, 3, 3, colp3, rowi3, x3, -1, NULL};
  const char* noq = imp_test_in_dir(dir, "noq.hdf5");
  fclib_writes(noq, &W3, q3, mu, 3);
  h = H5Fopen(noq, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert(h >= 0);
  ck_assert(H5Ldelete(h, "/fclib_local/vectors/q", H5P_DEFAULT) >= 0);
  H5Fclose(h);
  assert_error(noq, "/fclib_local/vectors/q");
}
END_TEST

/* Only all-condim-3 problems are written; a limit block is counted as
   skipped and leaves no file; an unwritable path is an error naming it. */
START_TEST(export_skips_what_fclib_cannot_hold) {
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  for (int i = 0; i < t.n; i++) t.A[i * t.n + i] = 1;
  imp_cproblem p = view(&t);
  ck_assert(!fclib_io_representable(&p));
  fclib_io_count c = {0, 0};
  ck_assert_int_eq(fclib_io_export(dir, "mixed", 3, &p, &c), 0);
  ck_assert_int_eq(c.skipped, 1);
  ck_assert_int_eq(c.written, 0);
  ck_assert(!imp_test_exists(imp_test_in_dir(dir, "mixed_3.hdf5")));
  tprob one;
  anisotropic_sliding_problem(&one);
  p = view(&one);
  ck_assert_int_eq(fclib_io_export(dir, "slide", 7, &p, &c), 0);
  ck_assert_int_eq(c.written, 1);
  ck_assert(imp_test_exists(imp_test_in_dir(dir, "slide_7.hdf5")));
  char err[4400] = "";
  const char* bad = imp_test_in_dir(dir, "no/such/dir/x.hdf5");
  ck_assert_int_eq(fclib_io_write(bad, &p, "x", err, sizeof err), -1);
  ck_assert_msg(strncmp(err, bad, strlen(bad)) == 0, "error does not name the file: %s", err);
  ck_assert(!imp_test_exists(bad));
}
END_TEST

/* ---- the program ---- */

static int impetus(const char* args) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", IMPETUS_BIN, args,
           imp_test_in_dir(dir, "stdout.txt"), imp_test_in_dir(dir, "stderr.txt"));
  int st = system(cmd);
  ck_assert(st != -1);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --fclib-out writes the recorded problems as SCENE_K.hdf5, and --compare
   on such a file solves its problem with every solver: one iterations.csv
   row per iteration under the file's stem, and a summary row per solver. */
START_TEST(cli_writes_and_compares_fclib_files) {
  char args[8192];
  snprintf(args, sizeof args,
           "solvers --compare --steps 20 --max-problems 2 --out '%s' --fclib-out '%s' '%s'",
           imp_test_in_dir(dir, "cmp"), imp_test_in_dir(dir, "fc"), IMP_MODELS_DIR "/box_rest.xml");
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(imp_test_in_dir(dir, "stderr.txt")));
  ck_assert(imp_test_exists(imp_test_in_dir(dir, "fc/box_rest_0.hdf5")));
  ck_assert(imp_test_exists(imp_test_in_dir(dir, "fc/box_rest_1.hdf5")));
  ck_assert(!imp_test_exists(imp_test_in_dir(dir, "fc/box_rest_2.hdf5")));
  ck_assert_msg(strstr(imp_test_text_of(imp_test_in_dir(dir, "stderr.txt")), "2 problems written") != NULL, "%s",
                imp_test_text_of(imp_test_in_dir(dir, "stderr.txt")));
  /* our solvers only: Siconos' (where built) are test_siconos_bridge's concern */
  snprintf(args, sizeof args, "solvers --compare --no-siconos --out '%s' '%s'", imp_test_in_dir(dir, "cmp2"),
           imp_test_in_dir(dir, "fc/box_rest_1.hdf5"));
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(imp_test_in_dir(dir, "stderr.txt")));
  FILE* f = fopen(imp_test_in_dir(dir, "cmp2/iterations.csv"), "r");
  ck_assert(f != NULL);
  char line[1024];
  ck_assert(fgets(line, sizeof line, f) != NULL);
  int ns = imp_solver_count(), seen[16] = {0}, rows = 0;
  while (fgets(line, sizeof line, f)) {
    char scene[64], solver[64];
    int prob, n, iter;
    double t, res;
    ck_assert_msg(sscanf(line, "%63[^,],%d,%d,%63[^,],%d,%lf,%lf", scene, &prob, &n, solver,
                         &iter, &t, &res) == 7, "bad row: %s", line);
    ck_assert_str_eq(scene, "box_rest_1");
    ck_assert_int_eq(prob, 0);
    ck_assert_int_eq(n, 12);
    int s = imp_solver_find(solver);
    ck_assert_msg(s >= 0 && s < 16, "unknown solver %s", solver);
    ck_assert_msg(isfinite(res), "%s", line);
    seen[s] = 1;
    rows++;
  }
  fclose(f);
  for (int s = 0; s < ns && s < 16; s++)
    ck_assert_msg(seen[s], "no rows for %s", imp_solver_get(s)->name);
  ck_assert_int_gt(rows, ns);
  ck_assert_msg(strstr(imp_test_text_of(imp_test_in_dir(dir, "cmp2/summary.csv")), "box_rest_1,todorov,1,") != NULL,
                "%s", imp_test_text_of(imp_test_in_dir(dir, "cmp2/summary.csv")));
  /* a missing problem file: exit 1, named, no CSV */
  snprintf(args, sizeof args, "solvers --compare --out '%s' '%s'", imp_test_in_dir(dir, "cmp3"),
           imp_test_in_dir(dir, "fc/nonexistent.hdf5"));
  ck_assert_int_eq(impetus(args), 1);
  ck_assert_msg(strstr(imp_test_text_of(imp_test_in_dir(dir, "stderr.txt")), "nonexistent.hdf5: cannot open") != NULL,
                "%s", imp_test_text_of(imp_test_in_dir(dir, "stderr.txt")));
  ck_assert(!imp_test_exists(imp_test_in_dir(dir, "cmp3/iterations.csv")));
}
END_TEST

static Suite* fclib_suite(void) {
  Suite* s = suite_create("fclib_io");
  TCase* tc = tcase_create("fclib_io");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, round_trip_is_exact);
  tcase_add_test(tc, write_ignores_a_planted_link);
  tcase_add_test(tc, read_problem_solves_to_the_weight);
  tcase_add_test(tc, fclib_file_one_contact);
  tcase_add_test(tc, fclib_file_triplets_sliding);
  tcase_add_test(tc, sparse_forms_read_alike);
  tcase_add_test(tc, bad_files_name_the_file);
  tcase_add_test(tc, export_skips_what_fclib_cannot_hold);
  tcase_add_test(tc, cli_writes_and_compares_fclib_files);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(fclib_suite()); }
