/* Tests of the non-smooth Newton solver (solvers/nsn_fb.c, Macklin et al.
 * 2019) on hand-made problems with closed forms: the single constraint of
 * Figure 9 that the preconditioned minimum map solves in one full step (so
 * the damped step t = 0.75 of Section 8.1 leaves exactly 0.25^k of the
 * error), separation at zero iterations, sticking and anisotropic sliding
 * contacts (the friction fixed point of eq. 33-36 must reach the exact cone,
 * for both NCP functions), warm start at the answer, honest MAXITER, a
 * non-finite problem, and dry friction rows: one row sticking and sliding
 * both ways, where the minimum map's step is exact (so its error is again
 * 0.25^k, which checks its generalized Jacobian) and Billups' box FB
 * converges to the same answers, and two coupled rows, one sticking and one
 * sliding. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "constraint/solvers/nsn.h"
#include "test_cproblem.h"
#include "test_util.h"

static char g_work[1 << 16] __attribute__((aligned(16)));

static imp_csolver_stat run_nsn(const tprob* t, double* f, int maxiter, double tol, int warm,
                                imp_nsn_ncp ncp) {
  imp_cproblem p = view(t);
  imp_csolver_opt o = {maxiter, tol, warm, NULL, NULL, 0};
  imp_csolver_stat s;
  size_t bytes = imp_nsn_work_size(t->n, t->nblock);
  ck_assert(bytes <= sizeof g_work);
  ck_assert(bytes == imp_solver_nsn_fb.work_size(t->n, t->nblock));
  memset(g_work, 0xff, bytes); /* NaN: scratch must be written before read */
  imp_nsn_solve(&p, &o, f, &s, g_work, ncp);
  return s;
}


START_TEST(test_single_limit_minmap_one_step) {
  /* Figure 9 / Section 7: with r = A_ii the min map of one row is a
     straight line min(a f + w0, a f): a full Newton step solves it from any
     start, so with t = 0.75 the error after k steps is 0.25^k f* (exactly
     (1 - 0.75 / (1 + eps))^k with the regularization eps of Section 8.4). */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  t.A[0] = 4;
  t.v0[0] = -2;
  t.b[0] = 0.5; /* f* = (b - v0) / A = 0.625 */
  double f[1];
  for (int k = 1; k <= 4; k++) {
    imp_csolver_stat s = run_nsn(&t, f, k, 1e-300, 0, IMP_NSN_MINMAP);
    ck_assert_int_eq(s.iterations, k);
    ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
    /* the step is (A + eps A) df = -phi with eps = 1e-6 (Section 8.4) */
    ck_assert_double_eq_tol(f[0], 0.625 * (1 - pow(1 - 0.75 / (1 + 1e-6), k)), 1e-14);
  }
  imp_csolver_stat s = run_nsn(&t, f, 100, 1e-12, 0, IMP_NSN_FB);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_double_eq_tol(f[0], 0.625, 1e-11);
  printf("nsn limit: FB %d iterations\n", s.iterations);
}
END_TEST

START_TEST(test_separating_contact) {
  /* v0 >= b: f = 0 is the answer, found at the zero start (eq. 67-68) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 1.0);
  t.A[0] = t.A[4] = t.A[8] = 1;
  t.v0[0] = 0.3;
  t.v0[1] = 2;
  double f[3];
  imp_csolver_stat s = run_nsn(&t, f, 10, 1e-12, 0, IMP_NSN_FB);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 0);
  imp_assert_vec_near(f, ((double[]){0, 0, 0}), 3, 0);
}
END_TEST

START_TEST(test_sliding_contact_anisotropic) {
  /* A = diag(1, 1, 4), v0 = (-1, -0.9, -2.4), mu = 0.5: f = (1, 0.3, 0.4)
     with slip (-0.6, -0.8) = -2 f_T: the isotropic W of eq. (36) still has
     the exact cone at its fixed point */
  for (int ncp = 0; ncp < 2; ncp++) {
    tprob t;
    anisotropic_sliding_problem(&t);
    double f[3];
    imp_csolver_stat s = run_nsn(&t, f, 500, 1e-13, 0, (imp_nsn_ncp)ncp);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    imp_assert_vec_near(f, ((double[]){1, 0.3, 0.4}), 3, 1e-11);
    ck_assert(relative_residual(&t, f) < 1e-11);
    printf("nsn sliding (%s): %d iterations\n", ncp ? "min map" : "FB", s.iterations);
  }
}
END_TEST

START_TEST(test_sticking_contact) {
  /* coupled block, sticking: f = A^-1 (b - v0) inside the cone; A = LL'
     with L lower triangular gives f by two substitutions */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 1.0);
  double A[9] = {2, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1};
  memcpy(t.A, A, sizeof A);
  double v0[3] = {-2, 0.1, -0.1};
  memcpy(t.v0, v0, sizeof v0);
  t.b[0] = 0.05;
  double exact[3] = {t.b[0] - v0[0], -v0[1], -v0[2]};
  /* Gaussian elimination on the 3x3 (exact enough for 1e-12) */
  double M[9];
  memcpy(M, A, sizeof M);
  for (int k = 0; k < 3; k++)
    for (int i = k + 1; i < 3; i++) {
      double l = M[3 * i + k] / M[3 * k + k];
      for (int j = k; j < 3; j++) M[3 * i + j] -= l * M[3 * k + j];
      exact[i] -= l * exact[k];
    }
  for (int i = 2; i >= 0; i--) {
    for (int j = i + 1; j < 3; j++) exact[i] -= M[3 * i + j] * exact[j];
    exact[i] /= M[3 * i + i];
  }
  ck_assert(hypot(exact[1], exact[2]) < exact[0]);
  for (int ncp = 0; ncp < 2; ncp++) {
    double f[3];
    imp_csolver_stat s = run_nsn(&t, f, 500, 1e-14, 0, (imp_nsn_ncp)ncp);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    imp_assert_vec_near(f, exact, 3, 1e-11);
    printf("nsn sticking (%s): %d iterations\n", ncp ? "min map" : "FB", s.iterations);
  }
}
END_TEST

START_TEST(test_equality_chain_and_warm_start) {
  /* two equalities and a limit on a tridiagonal A: all active, so f solves
     A f = b - v0; from its own answer the solver does no iteration */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 2, 0);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  double A[9] = {2, -1, 0, -1, 2, -1, 0, -1, 2};
  memcpy(t.A, A, sizeof A);
  double exact[3] = {1, 2, 1.5}, v0[3];
  for (int i = 0; i < 3; i++) v0[i] = -imp_dot(A + 3 * i, exact, 3);
  memcpy(t.v0, v0, sizeof v0);
  double f[3];
  imp_csolver_stat s = run_nsn(&t, f, 300, 1e-13, 0, IMP_NSN_FB);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, exact, 3, 1e-11);
  s = run_nsn(&t, f, 300, 1e-10, 1, IMP_NSN_FB);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 0);
}
END_TEST

/* one dry friction row: A = [2], bound 0.5, velocity v0 */
static void dry_row_problem(tprob* t, double v0) {
  memset(t, 0, sizeof *t);
  add_block(t, IMP_CNSTR_FRICTION, 1, 0.5);
  t->A[0] = 2;
  t->v0[0] = v0;
}

START_TEST(test_dry_friction_one_row) {
  /* sticking, |v0| / A = 0.15 < 0.5: f = -v0 / A, v = 0. Under the minimum
     map the row's function there is w itself, linear, so each step is the
     exact one scaled by t = 0.75 (and 1 / (1 + eps), Section 8.4): the
     error after k steps is (1 - 0.75 / (1 + eps))^k f*. */
  tprob t;
  dry_row_problem(&t, 0.3);
  double f[1];
  for (int k = 1; k <= 4; k++) {
    imp_csolver_stat s = run_nsn(&t, f, k, 1e-300, 0, IMP_NSN_MINMAP);
    ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
    ck_assert_double_eq_tol(f[0], -0.15 * (1 - pow(1 - 0.75 / (1 + 1e-6), k)), 1e-15);
  }
  /* sliding, |v0| / A = 1.5 > 0.5: the minimum map fixes the row at its
     bound, df = R - f with no regularization, so f_k = R (1 - 0.25^k) */
  dry_row_problem(&t, -3);
  for (int k = 1; k <= 4; k++) {
    imp_csolver_stat s = run_nsn(&t, f, k, 1e-300, 0, IMP_NSN_MINMAP);
    ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
    ck_assert_double_eq_tol(f[0], 0.5 * (1 - pow(0.25, k)), 1e-15);
  }
  /* both functions reach the answers: f = -sign(v0) R, v = v0 + A f of
     v0's sign when sliding */
  const double v0s[3] = {0.3, -3, 3}, want[3] = {-0.15, 0.5, -0.5}, vel[3] = {0, -2, 2};
  for (int ncp = 0; ncp < 2; ncp++)
    for (int c = 0; c < 3; c++) {
      dry_row_problem(&t, v0s[c]);
      imp_csolver_stat s = run_nsn(&t, f, 200, 1e-13, 0, (imp_nsn_ncp)ncp);
      ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
      ck_assert_double_eq_tol(f[0], want[c], 1e-12);
      ck_assert_double_eq_tol(2 * f[0] + v0s[c], vel[c], 1e-12);
      ck_assert(relative_residual(&t, f) < 1e-12);
      printf("nsn dry friction row v0 = %g (%s): %d iterations\n", v0s[c],
             ncp ? "min map" : "FB", s.iterations);
      /* from its own answer: no iteration */
      s = run_nsn(&t, f, 200, 1e-12, 1, (imp_nsn_ncp)ncp);
      ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
      ck_assert_int_eq(s.iterations, 0);
    }
}
END_TEST

START_TEST(test_dry_friction_coupled_rows) {
  /* A = [2 1; 1 2], v0 = (0.4, 1), bounds (1, 0.2): the second row slides
     at f2 = -0.2, the first sticks at f1 = -(0.4 + f2) / 2 = -0.1, and v2 =
     f1 + 2 f2 + 1 = 0.5 > 0 opposes f2; unique since A is definite */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_FRICTION, 1, 1.0);
  add_block(&t, IMP_CNSTR_FRICTION, 1, 0.2);
  double A[4] = {2, 1, 1, 2};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = 0.4;
  t.v0[1] = 1;
  for (int ncp = 0; ncp < 2; ncp++) {
    double f[2];
    imp_csolver_stat s = run_nsn(&t, f, 300, 1e-13, 0, (imp_nsn_ncp)ncp);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    imp_assert_vec_near(f, ((double[]){-0.1, -0.2}), 2, 1e-12);
    ck_assert(relative_residual(&t, f) < 1e-12);
    printf("nsn two coupled dry friction rows (%s): %d iterations\n", ncp ? "min map" : "FB",
           s.iterations);
  }
}
END_TEST

START_TEST(test_honest_maxiter_and_nonfinite) {
  tprob t;
  anisotropic_sliding_problem(&t);
  double f[3];
  imp_csolver_stat s = run_nsn(&t, f, 2, 1e-14, 0, IMP_NSN_FB);
  ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(s.iterations, 2);
  ck_assert(hypot(f[1], f[2]) <= 0.5 * f[0] + 1e-15); /* projected: in the cone */
  t.v0[1] = NAN;
  s = run_nsn(&t, f, 10, 1e-10, 0, IMP_NSN_FB);
  ck_assert_int_eq(s.exit, IMP_EXIT_FAILED);
  imp_assert_vec_near(f, ((double[]){0, 0, 0}), 3, 0);
}
END_TEST

static Suite* nsn_suite(void) {
  Suite* s = suite_create("solver_nsn_fb");
  TCase* tc = tcase_create("closed forms");
  tcase_add_test(tc, test_single_limit_minmap_one_step);
  tcase_add_test(tc, test_separating_contact);
  tcase_add_test(tc, test_sliding_contact_anisotropic);
  tcase_add_test(tc, test_sticking_contact);
  tcase_add_test(tc, test_equality_chain_and_warm_start);
  tcase_add_test(tc, test_honest_maxiter_and_nonfinite);
  tcase_add_test(tc, test_dry_friction_one_row);
  tcase_add_test(tc, test_dry_friction_coupled_rows);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(nsn_suite()); }
