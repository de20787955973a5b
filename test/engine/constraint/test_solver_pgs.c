/* Tests of the projected Gauss-Seidel solver (solvers/pgs.c) on hand-made
 * problems with closed-form solutions: one contact sticking and sliding (with
 * an anisotropic friction block, where scaling onto the disk would be wrong),
 * an equality chain and a redundant equality, coupled limits, dry friction
 * (one row sticking and sliding both ways, two coupled rows), a random
 * well-conditioned problem, a heavy stack whose closed form is the weight it
 * carries, and honest MAXITER when stopped early. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "test_cproblem.h"
#include "test_util.h"


/* run pgs; f holds the warm start when warm is set */
static imp_csolver_stat run_pgs(const tprob* t, double* f, int maxiter, double tol, int warm) {
  imp_cproblem p = view(t);
  imp_csolver_opt o = {maxiter, tol, warm, NULL, NULL, 0};
  imp_csolver_stat s;
  ck_assert(imp_solver_pgs.work_size(t->n, t->nblock) == 0);
  imp_solver_pgs.solve(&p, &o, f, &s, NULL);
  return s;
}


START_TEST(test_sticking_contact) {
  /* coupled 3x3 block; sticking means w = 0, so f = A^-1 (b - v0), inside the cone */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 1.0);
  double A[9] = {2, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1};
  memcpy(t.A, A, sizeof A);
  double v0[3] = {-2, 0.1, -0.1};
  memcpy(t.v0, v0, sizeof v0);
  t.b[0] = 0.05;
  /* f = A^-1 r by Cramer's rule */
  double r[3] = {t.b[0] - v0[0], -v0[1], -v0[2]};
  double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
               A[2] * (A[3] * A[7] - A[4] * A[6]);
  double exact[3];
  for (int c = 0; c < 3; c++) {
    double M[9];
    memcpy(M, A, sizeof M);
    for (int i = 0; i < 3; i++) M[3 * i + c] = r[i];
    exact[c] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
                M[2] * (M[3] * M[7] - M[4] * M[6])) / det;
  }
  ck_assert_msg(hypot(exact[1], exact[2]) < exact[0], "the test's contact should stick");
  double f[3];
  imp_csolver_stat s = run_pgs(&t, f, 200, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, exact, 3, 1e-12);
  printf("pgs sticking contact: %d sweeps\n", s.iterations);
}
END_TEST

START_TEST(test_sliding_contact_anisotropic) {
  /* A = diag(1, 1, 4), v0 = (-1, -0.9, -2.4), mu = 0.5: the exact answer is
     f = (1, 0.3, 0.4) with slip (-0.6, -0.8) = -2 f_T. Solving the friction
     rows unconstrained, (0.9, 0.6), and scaling onto the disk would give
     0.5 (0.832, 0.555): friction not opposing the slip. */
  tprob t;
  anisotropic_sliding_problem(&t);
  double f[3];
  imp_csolver_stat s = run_pgs(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, 0.3, 0.4}), 3, 1e-13);
  /* decoupled normal: one sweep solves it, the second confirms */
  ck_assert_int_le(s.iterations, 2);
}
END_TEST

START_TEST(test_sliding_contact_isotropic_dim6) {
  /* condim 6 with A = I and mu = 0.5: f_N = 1, the friction impulse is the
     disk's radius against the slip direction, in all five rows */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 6, 0.5);
  for (int i = 0; i < 6; i++) t.A[i * 6 + i] = 1;
  double v0[6] = {-1, 3, -4, 0, 0, 0};
  memcpy(t.v0, v0, sizeof v0);
  double f[6];
  imp_csolver_stat s = run_pgs(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, -0.3, 0.4, 0, 0, 0}), 6, 1e-14);
}
END_TEST

START_TEST(test_equality_chain) {
  /* four unit masses on a line joined by three rows u_i - u_{i+1} = 0 (a
     2-row and a 1-row block): A = tridiag(-1, 2, -1); with v0 = -A (1, 2, 3)
     the impulses are (1, 2, 3) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 2, 0);
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  double A[9] = {2, -1, 0, -1, 2, -1, 0, -1, 2};
  memcpy(t.A, A, sizeof A);
  double fs[3] = {1, 2, 3};
  for (int i = 0; i < 3; i++) t.v0[i] = -imp_dot(A + 3 * i, fs, 3);
  double f[3];
  imp_csolver_stat s = run_pgs(&t, f, 500, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, fs, 3, 1e-12);
  printf("pgs equality chain: %d sweeps\n", s.iterations);
}
END_TEST

START_TEST(test_redundant_equality) {
  /* the same row twice (A = [1 1; 1 1], singular): only f1 + f2 = 2 is
     determined; Gauss-Seidel gives it all to the first and stops */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  double A[4] = {1, 1, 1, 1};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = t.v0[1] = -2;
  double f[2];
  imp_csolver_stat s = run_pgs(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0] + f[1], 2, 1e-14);
  ck_assert(relative_residual(&t, f) <= 1e-15);
  /* a dim-2 block whose own rows are the same: the dependent row keeps 0 */
  tprob u = {0};
  add_block(&u, IMP_CNSTR_EQUALITY, 2, 0);
  memcpy(u.A, A, sizeof A);
  u.v0[0] = u.v0[1] = -2;
  s = run_pgs(&u, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){2, 0}), 2, 1e-14);
}
END_TEST

START_TEST(test_limits) {
  /* one limit: A = 2, v0 = -4, b = 1 gives f = 2.5; then two coupled limits,
     A = [2 1; 1 2], v0 = (-3, 1): the second separates (f = (1.5, 0), w2 = 2.5) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  t.A[0] = 2;
  t.v0[0] = -4;
  t.b[0] = 1;
  double f[2];
  imp_csolver_stat s = run_pgs(&t, f, 10, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], 2.5, 1e-15);
  tprob u = {0};
  add_block(&u, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&u, IMP_CNSTR_CONTACT, 1, 0);
  double A[4] = {2, 1, 1, 2};
  memcpy(u.A, A, sizeof A);
  u.v0[0] = -3;
  u.v0[1] = 1;
  s = run_pgs(&u, f, 10, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1.5, 0}), 2, 1e-15);
}
END_TEST

START_TEST(test_dry_friction_one_row) {
  /* A = [2], bound 0.5. Sticking (|v0| / A = 0.15 < 0.5): f = -v0 / A and
     v = 0, exact in one sweep, confirmed by the second. Sliding (|v0| / A =
     1.5 > 0.5): f = -sign(v0) 0.5 and v = v0 + 2 f = +-2, the sign of v0:
     friction opposes the slip. */
  const double v0s[3] = {0.3, -3, 3}, want[3] = {-0.15, 0.5, -0.5}, vel[3] = {0, -2, 2};
  for (int c = 0; c < 3; c++) {
    tprob t = {0};
    add_block(&t, IMP_CNSTR_FRICTION, 1, 0.5);
    t.A[0] = 2;
    t.v0[0] = v0s[c];
    double f[1];
    imp_csolver_stat s = run_pgs(&t, f, 10, 1e-14, 0);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    ck_assert_int_eq(s.iterations, 2);
    imp_assert_near(f[0], want[c], 1e-15);
    imp_assert_near(t.A[0] * f[0] + t.v0[0], vel[c], 1e-15);
    ck_assert(relative_residual(&t, f) <= 1e-15);
  }
  /* a warm start beyond the bound is brought back onto it */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_FRICTION, 1, 0.5);
  t.A[0] = 2;
  t.v0[0] = -3;
  double f[1] = {-7};
  imp_csolver_stat s = run_pgs(&t, f, 10, 1e-14, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], 0.5, 1e-15);
}
END_TEST

START_TEST(test_dry_friction_coupled_rows) {
  /* A = [2 1; 1 2], v0 = (0.4, 1), bounds (1, 0.2). The second row slides
     at f2 = -0.2, the first sticks: 2 f1 + f2 + 0.4 = 0 gives f1 = -0.1
     (|f1| < 1), and then v2 = f1 + 2 f2 + 1 = 0.5 > 0 opposes f2. A is
     definite, so this is the only answer (the minimizer of a strictly
     convex quadratic over a box). */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_FRICTION, 1, 1.0);
  add_block(&t, IMP_CNSTR_FRICTION, 1, 0.2);
  double A[4] = {2, 1, 1, 2};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = 0.4;
  t.v0[1] = 1;
  double f[2];
  imp_csolver_stat s = run_pgs(&t, f, 200, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){-0.1, -0.2}), 2, 1e-14);
  imp_assert_near(imp_dot(A, f, 2) + t.v0[0], 0, 1e-14);
  imp_assert_near(imp_dot(A + 2, f, 2) + t.v0[1], 0.5, 1e-14);
  ck_assert(relative_residual(&t, f) <= 1e-14);
  printf("pgs two coupled dry friction rows: %d sweeps\n", s.iterations);
}
END_TEST

/* a random problem, A = J J' with J of n x 2n entries in [-1, 1]: well
   conditioned; blocks of every type */
static void random_problem(tprob* t) {
  memset(t, 0, sizeof *t);
  const double mus[] = {0.1, 0.5, 1, 2};
  while (t->n < 30) {
    int kind = (int)imp_test_urand(0, 6);
    if (kind == 0) add_block(t, IMP_CNSTR_EQUALITY, 1 + (int)imp_test_urand(0, 3), 0);
    else if (kind == 1) add_block(t, IMP_CNSTR_LIMIT, 1, 0);
    else if (kind == 2) add_block(t, IMP_CNSTR_CONTACT, 1, 0);
    else {
      const int dims[] = {3, 4, 6};
      add_block(t, IMP_CNSTR_CONTACT, dims[kind - 3], mus[(int)imp_test_urand(0, 4)]);
    }
  }
  int n = t->n, nv = 2 * n;
  static double J[MAXN * 2 * MAXN];
  for (int i = 0; i < n * nv; i++) J[i] = imp_test_urand(-1, 1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) t->A[i * n + j] = imp_dot(J + i * nv, J + j * nv, nv) / nv;
  for (int k = 0; k < t->nblock; k++) {
    for (int r = 0; r < t->dim[k]; r++) {
      int i = t->adr[k] + r;
      t->v0[i] = imp_test_urand(-1, 1);
      int friction_row = t->type[k] == IMP_CNSTR_CONTACT && r > 0;
      t->b[i] = friction_row ? 0 : imp_test_urand(-0.1, 0.1);
    }
  }
}

START_TEST(test_random_well_conditioned) {
  tprob t;
  int worst = 0;
  double worst_res = 0;
  for (int trial = 0; trial < 20; trial++) {
    random_problem(&t);
    double f[MAXN];
    imp_csolver_stat s = run_pgs(&t, f, 5000, 1e-12, 0);
    ck_assert_msg(s.exit == IMP_EXIT_CONVERGED, "trial %d: exit %d after %d sweeps", trial,
                  s.exit, s.iterations);
    double rel = relative_residual(&t, f);
    ck_assert_msg(rel <= 1e-8, "trial %d: relative residual %.3e", trial, rel);
    worst = s.iterations > worst ? s.iterations : worst;
    worst_res = fmax(worst_res, rel);
    /* from its own answer it stops after one sweep */
    s = run_pgs(&t, f, 5000, 1e-12, 1);
    ck_assert_int_eq(s.iterations, 1);
  }
  printf("pgs random n>=30: at most %d sweeps, worst relative residual %.2e\n", worst,
         worst_res);
}
END_TEST

/* A vertical stack on the ground: body 0 at the bottom, contact row j
   between body j-1 (or the ground) and body j, v_j = u_j - u_{j-1};
   masses m[j]. Falling for one step from rest: v0 = -g h on the ground row
   only. The static answer: row j carries the weight of bodies j.. above,
   f_j = g h sum_{i >= j} m_i. */
static void stack_problem(tprob* t, const double* mass, int nb, double gh) {
  memset(t, 0, sizeof *t);
  for (int j = 0; j < nb; j++) add_block(t, IMP_CNSTR_CONTACT, 1, 0);
  /* K_j = e_j - e_{j-1}: A = K M^-1 K' is tridiagonal */
  for (int j = 0; j < nb; j++) {
    t->A[j * nb + j] = 1 / mass[j] + (j > 0 ? 1 / mass[j - 1] : 0);
    if (j > 0) t->A[j * nb + j - 1] = t->A[(j - 1) * nb + j] = -1 / mass[j - 1];
  }
  t->v0[0] = -gh;
}

START_TEST(test_heavy_stack) {
  /* a light body under a 4096 times heavier one: Gauss-Seidel passes the
     weight down one ratio at a time, the classic slow case */
  const double mass[2] = {1, 4096}, gh = 9.81 * 0.01;
  tprob t;
  stack_problem(&t, mass, 2, gh);
  double exact[2] = {gh * (mass[0] + mass[1]), gh * mass[1]};
  double f[2];
  imp_csolver_stat s = run_pgs(&t, f, 2, 1e-10, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(s.iterations, 2);
  double rel = relative_residual(&t, f);
  ck_assert_msg(rel > 0.1, "after 2 sweeps the stack is far from solved: %.3e", rel);
  ck_assert_msg(s.residual > 1e-10, "the reported change %.3e contradicts MAXITER", s.residual);
  /* given enough sweeps it reaches the closed form */
  s = run_pgs(&t, f, 1000000, 1e-13, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, exact, 2, 1e-6 * exact[0]);
  printf("pgs heavy stack 1:4096: %d sweeps to 1e-13, residual after 2 sweeps %.3f\n",
         s.iterations, rel);
}
END_TEST

/* the monitor sees every sweep */
typedef struct monitor_log {
  int calls, last_iter;
  double last_f0;
} monitor_log;

static void count_sweeps(void* ctx, int iter, const double* f) {
  monitor_log* log = ctx;
  log->calls++;
  log->last_iter = iter;
  log->last_f0 = f[0];
}

START_TEST(test_monitor_every_sweep) {
  const double mass[3] = {1, 8, 64};
  tprob t;
  stack_problem(&t, mass, 3, 0.1);
  imp_cproblem p = view(&t);
  monitor_log log = {0, -1, 0};
  imp_csolver_opt o = {100000, 1e-12, 0, count_sweeps, &log, 0};
  imp_csolver_stat s;
  double f[3];
  imp_solver_pgs.solve(&p, &o, f, &s, NULL);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(log.calls, s.iterations);
  ck_assert_int_eq(log.last_iter, s.iterations - 1);
  imp_assert_near(log.last_f0, f[0], 0);
  imp_assert_rel(f[0], 0.1 * 73, 1e-9);
}
END_TEST

START_TEST(test_never_nan) {
  /* a warm start with NaN and inf entries is cleared; the answer is finite */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
  for (int i = 0; i < 3; i++) t.A[i * 3 + i] = 1;
  t.v0[0] = -1;
  t.v0[1] = 3;
  double f[3] = {NAN, INFINITY, -INFINITY};
  imp_csolver_stat s = run_pgs(&t, f, 50, 1e-14, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, -0.5, 0}), 3, 1e-14);
  /* an infinite entry of A: zeros and DIVERGED, not NaN */
  t.A[4] = INFINITY;
  s = run_pgs(&t, f, 50, 1e-14, 0);
  for (int i = 0; i < 3; i++) ck_assert(isfinite(f[i]));
  ck_assert_int_ne(s.exit, IMP_EXIT_CONVERGED);
}
END_TEST

static Suite* pgs_suite(void) {
  Suite* s = suite_create("solver_pgs");
  TCase* tc = tcase_create("closed forms");
  tcase_add_test(tc, test_sticking_contact);
  tcase_add_test(tc, test_sliding_contact_anisotropic);
  tcase_add_test(tc, test_sliding_contact_isotropic_dim6);
  tcase_add_test(tc, test_equality_chain);
  tcase_add_test(tc, test_redundant_equality);
  tcase_add_test(tc, test_limits);
  tcase_add_test(tc, test_dry_friction_one_row);
  tcase_add_test(tc, test_dry_friction_coupled_rows);
  tcase_add_test(tc, test_heavy_stack);
  tcase_add_test(tc, test_monitor_every_sweep);
  tcase_add_test(tc, test_never_nan);
  suite_add_tcase(s, tc);
  TCase* tr = tcase_create("random");
  tcase_add_test(tr, test_random_well_conditioned);
  suite_add_tcase(s, tr);
  return s;
}

int main(void) { return imp_test_run_suite(pgs_suite()); }
