/* Tests of the stage's reduction of dependent equality rows
 * (contact_redundant.h): on a hand-made island whose third equality row is
 * the sum of the first two (J_2 = J_0 + J_1, M = I, so A = J J'), with
 * targets that disagree, the dependent row is found, made inert, the
 * targets become their least-squares projection onto the consistent ones
 * (worked out by hand below), a warm start keeps J'f, todorov then
 * converges and every equality row, the dependent one too, meets its
 * target. Islands without dependent rows, and files asking for fewer than
 * IMP_REDUNDANT_MIN_ITER iterations, are left bit for bit. A double-closed
 * linkage in MJCF (light_loop.h: each rod held by two connects along its
 * hinge axis) reaches the solver with its dependent rows inert and reports
 * consistent targets and velocities for all of them. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "constraint/contact_redundant.h"
#include "light_loop.h"
#include "test_util.h"

#define NV 3
#define NMAX 5

/* rows of J (M = I): 0, 1 and 3 independent, 2 = 0 + 1; row 4 a limit */
static const double k_J[NMAX][NV] = {
    {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {0, 1, 1}};

typedef struct island {
  int n, nb, adr[NMAX], dim[NMAX], type[NMAX];
  double mu[NMAX], A[NMAX * NMAX], v0[NMAX], b[NMAX], g[NMAX];
  imp_cproblem p;
} island;

/* rows[0..n) of k_J as an island: equality rows, then a limit row when
   limit; u_free = (0.1, -0.2, 0.3) */
static void make_island(island* s, const int* rows, int n, int limit) {
  static const double u[NV] = {0.1, -0.2, 0.3};
  memset(s, 0, sizeof *s);
  s->n = n + (limit ? 1 : 0);
  for (int i = 0; i < s->n; i++) {
    int ri = i < n ? rows[i] : 4;
    s->adr[i] = i, s->dim[i] = 1, s->type[i] = i < n ? IMP_CNSTR_EQUALITY : IMP_CNSTR_LIMIT;
    for (int j = 0; j < s->n; j++) {
      int rj = j < n ? rows[j] : 4;
      double a = 0;
      for (int k = 0; k < NV; k++) a += k_J[ri][k] * k_J[rj][k];
      s->A[i * s->n + j] = a;
    }
    for (int k = 0; k < NV; k++) s->v0[i] += k_J[ri][k] * u[k];
  }
  s->nb = s->n;
  s->p = (imp_cproblem){s->n, s->nb, s->adr, s->dim, s->type, s->mu, s->A, s->v0,
                        s->b, 0.002, NULL, 0, 0, NULL, NULL, 0, NULL, NULL};
}

/* the reduction's scratch for islands of NMAX rows */
typedef struct scratch {
  imp_redundant r;
  double d[IMP_REDUNDANT_MAX_ROWS * IMP_REDUNDANT_MAX_ROWS + 2 * IMP_REDUNDANT_MAX_ROWS];
  int i[2 * IMP_REDUNDANT_MAX_ROWS];
} scratch;

static void make_scratch(scratch* s) {
  ck_assert_uint_le(imp_redundant_doubles(NMAX), sizeof s->d / sizeof s->d[0]);
  ck_assert_uint_le(imp_redundant_ints(NMAX), sizeof s->i / sizeof s->i[0]);
  imp_redundant_carve(&s->r, s->d, s->i, NMAX);
}

/* J'g over the island's rows (rows as in make_island) */
static void jt_times(const int* rows, int n, const double* g, double* out) {
  for (int k = 0; k < NV; k++) out[k] = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < NV; k++) out[k] += k_J[rows[i]][k] * g[i];
}

START_TEST(dependent_row_made_inert_and_targets_projected) {
  const int rows[4] = {0, 1, 2, 3};
  island s;
  make_island(&s, rows, 4, 1);
  double A0[NMAX * NMAX];
  memcpy(A0, s.A, sizeof A0);
  s.b[0] = 0.01, s.b[1] = 0.02, s.b[2] = 0.05, s.b[3] = 0.004, s.b[4] = -0.003;
  double warm[NMAX] = {0.1, 0.2, 0.3, -0.05, 0.02};
  memcpy(s.g, warm, sizeof warm);
  scratch sc;
  make_scratch(&sc);
  ck_assert_int_eq(imp_redundant_reduce(&s.p, s.A, s.v0, s.b, s.g, 1, 100, &sc.r), 1);
  ck_assert_int_eq(sc.r.nk, 3);
  /* which of rows 0..2 is dependent is the pivoting's choice: the one now
     inert (its row and column of A zero but for the diagonal) */
  int dep = -1;
  for (int i = 0; i < 3; i++) {
    int inert = s.A[i * s.n + i] == A0[i * s.n + i];
    for (int j = 0; j < s.n; j++)
      if (j != i) inert &= s.A[i * s.n + j] == 0 && s.A[j * s.n + i] == 0;
    if (inert) dep = i;
  }
  ck_assert_int_ge(dep, 0);
  ck_assert(s.v0[dep] == 0 && s.b[dep] == 0 && s.g[dep] == 0);
  /* the targets of row 3 (independent) and 4 (the limit) untouched, and
     their rows of A but in the dependent row's column */
  ck_assert(s.b[3] == 0.004 && s.b[4] == -0.003);
  for (int i = 3; i < 5; i++)
    for (int j = 0; j < s.n; j++)
      if (j != dep) ck_assert(s.A[i * s.n + j] == A0[i * s.n + j]);
  /* the warm start's J'f is kept */
  double before[NV], after[NV];
  jt_times(rows, 4, warm, before);
  jt_times(rows, 4, s.g, after);
  for (int k = 0; k < NV; k++) ck_assert_double_eq_tol(after[k], before[k], 1e-15);
  ck_assert(s.g[4] == warm[4]);
  /* the projection: min |y - (0.01, 0.02, 0.05)| with y2 = y0 + y1 gives
     2 y0 + y1 = 0.06 and y0 + 2 y1 = 0.07 */
  double vel[NMAX];
  const imp_csolver* sv = imp_solver_get(imp_solver_find("todorov"));
  void* work = aligned_alloc(64, (sv->work_size(s.n, s.nb) + 63) / 64 * 64);
  imp_csolver_opt o = {100, 1e-10, 1, NULL, NULL, 0};
  imp_csolver_stat st;
  sv->solve(&s.p, &o, s.g, &st, work);
  free(work);
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  ck_assert(s.g[dep] == 0);
  for (int i = 0; i < s.n; i++) {
    vel[i] = s.v0[i];
    for (int j = 0; j < s.n; j++) vel[i] += s.A[i * s.n + j] * s.g[j];
  }
  imp_redundant_restore(&sc.r, vel, s.b);
  ck_assert_double_eq_tol(s.b[0], 0.05 / 3, 1e-15);
  ck_assert_double_eq_tol(s.b[1], 0.08 / 3, 1e-15);
  ck_assert_double_eq_tol(s.b[2], 0.13 / 3, 1e-15);
  /* every equality row meets its target, and the dependent row's velocity
     is J_dep u+ from the original A */
  for (int i = 0; i < 4; i++) ck_assert_double_eq_tol(vel[i], s.b[i], 1e-12);
  double v_dep = 0.1 * k_J[dep][0] - 0.2 * k_J[dep][1] + 0.3 * k_J[dep][2];
  for (int j = 0; j < s.n; j++) v_dep += A0[dep * s.n + j] * s.g[j];
  ck_assert_double_eq_tol(vel[dep], v_dep, 1e-15);
}
END_TEST

/* Many rows kept and few dependent take the Woodbury route
   (contact_redundant.c, project_targets): 40 unit rows e_k of J (M = I)
   and two more, e_0 + e_1 and e_2 - e_3. The consistent targets are
   (u, u_0 + u_1, u_2 - u_3), and the nearest to b is, by hand, u_k = b_k
   for k >= 4, u_0,1 = b_0,1 - s with s = (b_0 + b_1 - b_40) / 3, u_2 =
   b_2 - t and u_3 = b_3 + t with t = (b_2 - b_3 - b_41) / 3, whichever
   rows the pivoting keeps. */
#define WB_NV 40
#define WB_N (WB_NV + 2)

START_TEST(many_rows_few_dependent_projected_by_woodbury) {
  static double J[WB_N][WB_NV], A[WB_N * WB_N], v0[WB_N], b[WB_N], g[WB_N], vel[WB_N];
  static int adr[WB_N], dim[WB_N], type[WB_N];
  static double mu[WB_N];
  memset(J, 0, sizeof J);
  for (int k = 0; k < WB_NV; k++) J[k][k] = 1;
  J[WB_NV][0] = J[WB_NV][1] = 1;
  J[WB_NV + 1][2] = 1, J[WB_NV + 1][3] = -1;
  for (int i = 0; i < WB_N; i++) {
    adr[i] = i, dim[i] = 1, type[i] = IMP_CNSTR_EQUALITY, mu[i] = 0;
    v0[i] = g[i] = 0;
    b[i] = 0.001 * ((i * 7) % 11) - 0.004; /* targets that disagree */
    for (int j = 0; j < WB_N; j++) {
      double a = 0;
      for (int k = 0; k < WB_NV; k++) a += J[i][k] * J[j][k];
      A[i * WB_N + j] = a;
    }
  }
  double b0[WB_N];
  memcpy(b0, b, sizeof b0);
  imp_cproblem p = {WB_N, WB_N, adr, dim, type, mu, A, v0, b, 0.002,
                    NULL, 0, 0, NULL, NULL, 0, NULL, NULL};
  scratch sc;
  ck_assert_uint_le(imp_redundant_doubles(WB_N), sizeof sc.d / sizeof sc.d[0]);
  ck_assert_uint_le(imp_redundant_ints(WB_N), sizeof sc.i / sizeof sc.i[0]);
  imp_redundant_carve(&sc.r, sc.d, sc.i, WB_N);
  ck_assert_int_eq(imp_redundant_reduce(&p, A, v0, b, g, 0, 100, &sc.r), 2);
  ck_assert_int_eq(sc.r.nk, WB_NV);
  for (int i = 0; i < WB_N; i++) vel[i] = 0;
  imp_redundant_restore(&sc.r, vel, b);
  double s = (b0[0] + b0[1] - b0[WB_NV]) / 3, t = (b0[2] - b0[3] - b0[WB_NV + 1]) / 3;
  double want[WB_N];
  memcpy(want, b0, sizeof want);
  want[0] = b0[0] - s, want[1] = b0[1] - s, want[2] = b0[2] - t, want[3] = b0[3] + t;
  want[WB_NV] = want[0] + want[1], want[WB_NV + 1] = want[2] - want[3];
  for (int i = 0; i < WB_N; i++) ck_assert_double_eq_tol(b[i], want[i], 1e-15);
  ck_assert(fabs(s) > 1e-4 && fabs(t) > 1e-4); /* the targets did disagree */
}
END_TEST

START_TEST(independent_rows_and_few_iterations_left_alone) {
  scratch sc;
  make_scratch(&sc);
  /* no dependent row */
  const int rows[3] = {0, 1, 3};
  island s, t;
  make_island(&s, rows, 3, 1);
  s.b[0] = 0.01, s.b[1] = 0.02, s.b[2] = 0.03, s.g[0] = 0.5;
  t = s;
  ck_assert_int_eq(imp_redundant_reduce(&s.p, s.A, s.v0, s.b, s.g, 1, 100, &sc.r), 0);
  ck_assert(memcmp(s.A, t.A, sizeof s.A) == 0 && memcmp(s.b, t.b, sizeof s.b) == 0);
  ck_assert(memcmp(s.v0, t.v0, sizeof s.v0) == 0 && memcmp(s.g, t.g, sizeof s.g) == 0);
  /* dependent rows, but a file asking for fewer iterations */
  const int dep[4] = {0, 1, 2, 3};
  make_island(&s, dep, 4, 0);
  s.b[2] = 0.05;
  t = s;
  ck_assert_int_eq(
      imp_redundant_reduce(&s.p, s.A, s.v0, s.b, s.g, 0, IMP_REDUNDANT_MIN_ITER - 1, &sc.r), 0);
  ck_assert(memcmp(s.A, t.A, sizeof s.A) == 0 && memcmp(s.b, t.b, sizeof s.b) == 0);
  imp_redundant_restore(&sc.r, s.v0, s.b); /* nothing to restore: nd = 0 */
  ck_assert(memcmp(s.b, t.b, sizeof s.b) == 0);
}
END_TEST

typedef struct seen {
  int problems, inert;
} seen;

/* counts the equality rows handed to the solver inert (row and column of
   A zero but for the diagonal, target 0) */
static void count_inert(void* ctx, const imp_cproblem* p, const double* warm) {
  (void)warm;
  seen* c = ctx;
  c->problems++;
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] != IMP_CNSTR_EQUALITY) continue;
    for (int t = 0, i = p->blk_adr[k]; t < p->blk_dim[k]; t++, i++) {
      int inert = p->b[i] == 0 && p->v0[i] == 0;
      for (int j = 0; j < p->n; j++)
        if (j != i) inert &= p->A[(size_t)i * p->n + j] == 0;
      c->inert += inert;
    }
  }
}

START_TEST(double_closed_linkage_reaches_the_solver_reduced) {
  char xml[4096];
  ck_assert_int_lt(imp_test_light_loop_xml(xml, sizeof xml, 0, 100), (int)sizeof xml);
  imp_model* m = imp_test_load_string_nowarn(xml);
  imp_data* d = imp_make_data(m);
  seen c = {0, 0};
  imp_set_problem_hook(d, count_inert, &c);
  for (int s = 0; s < 200; s++) {
    imp_step(m, d);
    ck_assert_int_eq(d->nisland, 1);
    ck_assert_int_eq(d->island_exit[0], IMP_EXIT_CONVERGED);
    /* 12 equality rows of rank 4 (two planar loops): 8 inert each step */
    ck_assert_int_eq(c.inert, 8 * c.problems);
    /* the targets reported are consistent: each connect's x and z rows
       (rows 0 and 2 of its block) equal to its twin's, which moves the
       same rod along the same directions */
    for (int q = 0; q < 2; q++)
      for (int t = 0; t < 3; t += 2) {
        int r1 = 6 * q + t, r2 = 6 * q + 3 + t;
        ck_assert_int_eq(d->efc_type[r1], IMP_CNSTR_EQUALITY);
        ck_assert_double_eq_tol(d->efc_b[r1], d->efc_b[r2], 1e-12);
        ck_assert_double_eq_tol(d->efc_vel[r1], d->efc_vel[r2], 1e-12);
        ck_assert_double_eq_tol(d->efc_vel[r1], d->efc_b[r1], 1e-9);
      }
  }
  ck_assert_int_gt(c.problems, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("contact_redundant");
  TCase* tc = tcase_create("redundant");
  tcase_add_test(tc, dependent_row_made_inert_and_targets_projected);
  tcase_add_test(tc, many_rows_few_dependent_projected_by_woodbury);
  tcase_add_test(tc, independent_rows_and_few_iterations_left_alone);
  tcase_add_test(tc, double_closed_linkage_reaches_the_solver_reduced);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
