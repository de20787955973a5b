/* Tests of the prox fixed-point solver (solvers/prox.c) on hand-made
 * problems with closed forms from Schindler, Nguyen & Trinkle 2011:
 *  - the point mass on a plane of Section V.A: the normal row (eq. 25) and
 *    the friction rows (eq. 26) are exact after one sweep at r = m, the
 *    choice r = alpha / A_ii makes with alpha = 1;
 *  - Section IV's equivalence: the fixed point of eq. 9c with one scalar r_T
 *    is Coulomb's law even for an anisotropic friction block;
 *  - equality blocks (eq. 9a, no projection) and a redundant equality;
 *  - dry friction, eq. 9c on the interval [-R, R]: one row sticking and
 *    sliding both ways, exact after one sweep at r = 1 / A_ii as eq. 25
 *    is, and a warm start beyond the bound made feasible before the first
 *    sweep;
 *  - the Painleve problem of Section V.B, eq. 45 (G < 0 is not PSD: the
 *    paper's own example, handed to the solver as a 1-row "Delassus"
 *    matrix): unique solution for G > 0 (Figs. 9-10); two solutions for
 *    G < 0 < b, the iteration converging to 0 from below the second one and
 *    diverging from above it (Fig. 12); divergence from any start when
 *    G < 0 and b < 0 (Fig. 11), reported as IMP_EXIT_DIVERGED;
 *  - the adaptation of r: a friction block whose coupling makes alpha = 1
 *    overshoot (lambda_max(A_TT) = 2.9 > 2 A_kk) still converges;
 *  - honest MAXITER, scratch poisoned with NaN. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "test_cproblem.h"
#include "test_util.h"

/* run prox with poisoned scratch; f holds the warm start when warm, and
   NaN otherwise, which a cold start must not read */
static imp_csolver_stat run_prox(const tprob* t, double* f, int maxiter, double tol, int warm) {
  if (!warm)
    for (int i = 0; i < t->n; i++) f[i] = NAN;
  imp_csolver_stat s = tp_solve(&imp_solver_prox, t, f, maxiter, tol, warm, NULL);
  for (int i = 0; i < t->n; i++) ck_assert_msg(isfinite(f[i]), "f[%d] = %g", i, f[i]);
  return s;
}


START_TEST(test_normal_row_eq25) {
  /* m = 2 (A = 1/m), pushed into the plane: lambda* = -h, one sweep at r = m
     (1 - r/m = 0 in eq. 25), the second sweep confirms (change 0) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  t.A[0] = 0.5;
  t.v0[0] = -3;
  double f[1];
  imp_csolver_stat s = run_prox(&t, f, 100, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 2);
  ck_assert_double_eq_tol(f[0], 6, 1e-15);
  /* pulled away (h_y > 0): lambda* = 0, the first sweep changes nothing */
  t.v0[0] = 1;
  s = run_prox(&t, f, 100, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 1);
  ck_assert_double_eq(f[0], 0);
}
END_TEST

START_TEST(test_particle_on_plane_eq26) {
  /* A = I/m, m = 2, v0 = (-3, vx, 0), mu = 0.5: lambda_U = 6; sticking
     lambda_T = -m vx while |vx| <= mu lambda_U / m = 1.5, else sliding at
     -mu lambda_U sign(vx). Exact after one sweep at r = m (eq. 25-26). */
  const double vxs[3] = {1, 4, -2}, want[3] = {-2, -3, 3};
  for (int c = 0; c < 3; c++) {
    tprob t = {0};
    add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
    t.A[0] = t.A[4] = t.A[8] = 0.5;
    t.v0[0] = -3;
    t.v0[1] = vxs[c];
    double f[3];
    imp_csolver_stat s = run_prox(&t, f, 100, 1e-12, 0);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    ck_assert_int_eq(s.iterations, 2);
    imp_assert_vec_near(f, ((double[]){6, want[c], 0}), 3, 1e-14);
  }
}
END_TEST

START_TEST(test_anisotropic_sliding_section4) {
  /* A = diag(1, 1, 4), v0 = (-1, -0.9, -2.4), mu = 0.5: f = (1, 0.3, 0.4),
     slip (-0.6, -0.8) = -2 f_T. One scalar r_T per block makes the fixed
     point Coulomb's (eq. 15-18); a per-row r_T would not. */
  tprob t;
  anisotropic_sliding_problem(&t);
  double f[3];
  imp_csolver_stat s = run_prox(&t, f, 1000, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, 0.3, 0.4}), 3, 1e-12);
  printf("prox anisotropic sliding: %d sweeps, relative residual %.1e\n", s.iterations,
         relative_residual(&t, f));
}
END_TEST

START_TEST(test_equalities_eq9a) {
  /* A = [[2, 1], [1, 2]], v0 = (1, -1): w = 0 at f = -A^-1 v0 = (-1, 1) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 2, 0);
  double A[4] = {2, 1, 1, 2};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = 1;
  t.v0[1] = -1;
  double f[2];
  imp_csolver_stat s = run_prox(&t, f, 1000, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){-1, 1}), 2, 1e-12);
  /* a redundant pair (rank 1): any f with f1 + f2 = 1 */
  double R[4] = {1, 1, 1, 1};
  memcpy(t.A, R, sizeof R);
  t.v0[0] = t.v0[1] = -1;
  s = run_prox(&t, f, 1000, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_double_eq_tol(f[0] + f[1], 1, 1e-14);
}
END_TEST

START_TEST(test_dry_friction_interval) {
  /* A = [0.5] (m = 2), bound 1. Sticking while |v0| m <= 1: f = -m v0, v =
     0; else sliding at f = -sign(v0), v = v0 + f / m of v0's sign. The
     projection onto the interval of the row's exact minimizer is the
     answer, so one sweep at r = m solves it and the second confirms. */
  const double v0s[3] = {0.2, -3, 3}, want[3] = {-0.4, 1, -1}, vel[3] = {0, -2.5, 2.5};
  for (int c = 0; c < 3; c++) {
    tprob t = {0};
    add_block(&t, IMP_CNSTR_FRICTION, 1, 1.0);
    t.A[0] = 0.5;
    t.v0[0] = v0s[c];
    double f[1];
    imp_csolver_stat s = run_prox(&t, f, 100, 1e-12, 0);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    ck_assert_int_eq(s.iterations, 2);
    ck_assert_double_eq_tol(f[0], want[c], 1e-15);
    ck_assert_double_eq_tol(t.A[0] * f[0] + t.v0[0], vel[c], 1e-15);
    ck_assert(relative_residual(&t, f) <= 1e-15);
  }
  /* a warm start far beyond the bound: the start is clamped onto it (the
     sliding answer), so the first sweep already changes nothing */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_FRICTION, 1, 1.0);
  t.A[0] = 0.5;
  t.v0[0] = -3;
  double f[1] = {40};
  imp_csolver_stat s = run_prox(&t, f, 100, 1e-12, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 1);
  ck_assert_double_eq(f[0], 1);
}
END_TEST

/* eq. 45, 0 <= lambda _|_ G lambda + b >= 0, as a limit row */
static void painleve(tprob* t, double G, double b) {
  memset(t, 0, sizeof *t);
  add_block(t, IMP_CNSTR_LIMIT, 1, 0);
  t->A[0] = G;
  t->v0[0] = b;
}

START_TEST(test_painleve_unique_figs9_10) {
  tprob t;
  double f[1];
  painleve(&t, 0.5, -1); /* Fig. 9: contact maintained, lambda = 2 */
  imp_csolver_stat s = run_prox(&t, f, 100, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_double_eq_tol(f[0], 2, 1e-14);
  painleve(&t, 0.5, 1); /* Fig. 10: contact lost */
  s = run_prox(&t, f, 100, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_double_eq(f[0], 0);
}
END_TEST

START_TEST(test_painleve_two_solutions_fig12) {
  /* G = -0.5, b = 1: solutions 0 and 2. From below 2 the iterates go to 0;
     from above they diverge for every r (Section V.B) */
  tprob t;
  double f[1];
  painleve(&t, -0.5, 1);
  imp_csolver_stat s = run_prox(&t, f, 1000, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_double_eq(f[0], 0);
  f[0] = 1.5;
  s = run_prox(&t, f, 1000, 1e-12, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_double_eq(f[0], 0);
  f[0] = 3;
  s = run_prox(&t, f, 1000, 1e-12, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_DIVERGED);
  ck_assert(s.iterations < 1000);
  printf("prox Painleve Fig. 12 from 3: DIVERGED after %d sweeps, f = %g\n", s.iterations, f[0]);
}
END_TEST

START_TEST(test_painleve_no_solution_fig11) {
  /* G = -0.5, b = -1: no solution; diverges from any start */
  tprob t;
  double f[1];
  painleve(&t, -0.5, -1);
  imp_csolver_stat s = run_prox(&t, f, 1000, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_DIVERGED);
  ck_assert(s.iterations < 1000);
  printf("prox Painleve Fig. 11: DIVERGED after %d sweeps, f = %g\n", s.iterations, f[0]);
}
END_TEST

START_TEST(test_adaptive_r) {
  /* condim 4, friction rows coupled: A_TT = 0.05 I + 0.95 ones (eigenvalues
     2.9, 0.05, 0.05), so r_T = 1 / A_kk overshoots (|1 - 2.9| > 1). mu = 2
     and f_N = 10 keep the contact sticking: f_T = -A_TT^-1 v_T. */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 4, 2);
  t.A[0] = 1;
  for (int i = 1; i < 4; i++)
    for (int j = 1; j < 4; j++) t.A[i * 4 + j] = i == j ? 1 : 0.95;
  t.v0[0] = -10;
  t.v0[1] = 0.1;
  t.v0[2] = 0.2;
  t.v0[3] = 0.25;
  /* A_TT^-1 = (I - 0.95 / (0.05 + 3 * 0.95) ones) / 0.05 (Sherman-Morrison) */
  double sum = 0.1 + 0.2 + 0.25, want[4] = {10, 0, 0, 0};
  for (int k = 1; k < 4; k++) want[k] = -(t.v0[k] - 0.95 / 2.9 * sum) / 0.05;
  ck_assert(sqrt(imp_dot(want + 1, want + 1, 3)) < 2 * 10); /* inside the cone */
  double f[4];
  imp_csolver_stat s = run_prox(&t, f, 5000, 1e-13, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, want, 4, 1e-9);
  printf("prox coupled friction rows (alpha = 1 overshoots): %d sweeps\n", s.iterations);
}
END_TEST

START_TEST(test_honest_maxiter) {
  tprob t;
  anisotropic_sliding_problem(&t);
  double f[3];
  imp_csolver_stat s = run_prox(&t, f, 2, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(s.iterations, 2);
  ck_assert(s.residual > 1e-14);
}
END_TEST

static Suite* prox_suite(void) {
  Suite* s = suite_create("solver_prox");
  TCase* tc = tcase_create("prox");
  tcase_add_test(tc, test_normal_row_eq25);
  tcase_add_test(tc, test_particle_on_plane_eq26);
  tcase_add_test(tc, test_anisotropic_sliding_section4);
  tcase_add_test(tc, test_equalities_eq9a);
  tcase_add_test(tc, test_dry_friction_interval);
  tcase_add_test(tc, test_painleve_unique_figs9_10);
  tcase_add_test(tc, test_painleve_two_solutions_fig12);
  tcase_add_test(tc, test_painleve_no_solution_fig11);
  tcase_add_test(tc, test_adaptive_r);
  tcase_add_test(tc, test_honest_maxiter);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(prox_suite()); }
