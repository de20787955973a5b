/* Tests of the non-smooth Newton solver on the minimum map (solvers/minmap.c,
 * Erleben and Ortiz) on hand-made problems with closed forms: a single limit
 * (eq. 5 reduces to min(x, a x + q) = 0), a contact sliding in the box along
 * one tangent and sticking along the other (the L set's B-derivative row
 * e_i + mu e_N of eq. 9, through the Schur complement), an equality block
 * (l = -inf, u = +inf: H affine, so one Newton step after the 4 Gauss-Seidel
 * sweeps solves it exactly), rank-deficient problems where the Schur
 * complement is singular (duplicated rows; a box resting on 4 contacts,
 * rank 6 of 12 rows), dry friction rows with a fixed bound (joint
 * frictionloss: the interval [-F, F], sets L and U with the B-derivative
 * row e_i and no coupling, alone and eliminated beside a coupled limit),
 * and the interface promises (poisoned scratch, monitor, warm start at the
 * answer, honest MAXITER and FAILED, no NaN). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "test_cproblem.h"
#include "test_util.h"

/* run minmap with poisoned scratch; f holds the warm start when warm */
static imp_csolver_stat run_mm(const tprob* t, double* f, int maxiter, double tol, int warm) {
  imp_csolver_stat s = tp_solve(&imp_solver_minmap, t, f, maxiter, tol, warm, NULL);
  for (int i = 0; i < t->n; i++) ck_assert(isfinite(f[i]));
  return s;
}

/* w = A f + v0 - b */
static void slack(const tprob* t, const double* f, double* w) {
  for (int i = 0; i < t->n; i++) w[i] = imp_dot(t->A + i * t->n, f, t->n) + t->v0[i] - t->b[i];
}

START_TEST(test_single_limit) {
  /* min(f, a f + v0 - b) = 0: f = (b - v0) / a when positive, else 0 */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  t.A[0] = 2, t.v0[0] = -1, t.b[0] = 0.1;
  double f[1];
  imp_csolver_stat s = run_mm(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], 0.55, 1e-15);
  t.v0[0] = 1; /* separating */
  s = run_mm(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], 0, 0);
}
END_TEST

START_TEST(test_slide_one_tangent) {
  /* Coupled 3x3 contact, mu 0.5. Box friction lets t1 slide (f_1 = l =
     -mu f_N, set L: H_1 = f_1 + mu f_N, eq. 9 row e_1 + mu e_N) while t2
     sticks (set A). With f_1 = -mu f_N, rows N and 2 of y = 0 are the 2x2
     system [A_NN - mu A_N1, A_N2; A_2N - mu A_21, A_22] (f_N, f_2) = -v0. */
  tprob t = {0};
  double mu = 0.5;
  add_block(&t, IMP_CNSTR_CONTACT, 3, mu);
  double A[9] = {2, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1};
  memcpy(t.A, A, sizeof A);
  double v0[3] = {-2, 3, 0.05};
  memcpy(t.v0, v0, sizeof v0);
  double m00 = A[0] - mu * A[1], m01 = A[2], m10 = A[6] - mu * A[7], m11 = A[8];
  double det = m00 * m11 - m01 * m10;
  double fn = (-v0[0] * m11 + v0[2] * m01) / det, f2 = (-v0[2] * m00 + v0[0] * m10) / det;
  double exact[3] = {fn, -mu * fn, f2};
  double w[3];
  slack(&t, exact, w);
  ck_assert_msg(fn > 0 && fabs(f2) < mu * fn && w[1] > 0, "the test's contact should slide on t1");
  double f[3];
  imp_csolver_stat s = run_mm(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, exact, 3, 1e-13);
  ck_assert_int_ge(s.newton, 1);
  printf("minmap one tangent sliding: %d iterations (%d Newton), residual %.2e\n", s.iterations,
         s.newton, s.residual);
  /* from the answer: nothing to do */
  s = run_mm(&t, f, 50, 1e-14, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 0);
}
END_TEST

START_TEST(test_equality_one_newton_step) {
  /* 3-row equality: H = A f + v0 - b is affine and BH = A, so after the 4
     Gauss-Seidel sweeps one full Newton step is exact */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 3, 0);
  double A[9] = {2, 0.9, 0.5, 0.9, 1.5, 0.7, 0.5, 0.7, 1};
  memcpy(t.A, A, sizeof A);
  double v0[3] = {1, -2, 0.5}, b[3] = {0.1, 0, -0.2};
  memcpy(t.v0, v0, sizeof v0);
  memcpy(t.b, b, sizeof b);
  double f[3], w[3];
  imp_csolver_stat s = run_mm(&t, f, 50, 1e-13, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 5);
  ck_assert_int_eq(s.newton, 1);
  slack(&t, f, w);
  for (int i = 0; i < 3; i++) imp_assert_near(w[i], 0, 1e-13);
}
END_TEST

START_TEST(test_duplicated_rows_singular_schur) {
  /* 4 limits with K = [1 0.3; 0.2 1; 1 1; 1 1] (rank 2), M = I, u = (-1, -2).
     f = (0.2128, 1.436, 0.25, 0.25) >= 0 has K'f = -u, so the body stops:
     v = 0 on every row, and since w is the same at every solution of a
     monotone LCP, every solution has v = 0 and K'f = -u (K has full column
     rank). With all rows active, S = A_AA = K K' is singular (rank 2 of 4)
     but the Newton system is consistent. */
  tprob t = {0};
  double K[8] = {1, 0.3, 0.2, 1, 1, 1, 1, 1}, u[2] = {-1, -2};
  for (int i = 0; i < 4; i++) add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) t.A[i * 4 + j] = imp_dot(K + 2 * i, K + 2 * j, 2);
    t.v0[i] = imp_dot(K + 2 * i, u, 2);
  }
  double f[4], w[4];
  imp_csolver_stat s = run_mm(&t, f, 50, 1e-13, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_ge(s.newton, 1);
  slack(&t, f, w);
  for (int i = 0; i < 4; i++) {
    ck_assert(f[i] >= 0);
    imp_assert_near(w[i], 0, 1e-12);
  }
  imp_assert_near(f[0] + 0.2 * f[1] + f[2] + f[3], 1, 1e-12);
  imp_assert_near(0.3 * f[0] + f[1] + f[2] + f[3], 2, 1e-12);
  printf("minmap duplicated rows: %d iterations (%d Newton)\n", s.iterations, s.newton);
}
END_TEST

START_TEST(test_box_resting) {
  /* a box (half sizes 0.3, 0.2, 0.1, mass 2) falling at g h onto 4 corner
     contacts of condim 3, mu 0.8: 12 rows, rank 6, so the Schur complement
     of the sticking set is singular. Closed form: the box stops, so the
     impulses' net force and torque cancel its momentum: sum f_N = m g h,
     sum f_x = sum f_y = 0, and every corner's velocity is 0. */
  tprob t = {0};
  double hx = 0.3, hy = 0.2, hz = 0.1, m = 2, h = 0.01, mu = 0.8;
  double minv[6] = {1 / m, 1 / m, 1 / m, 3 / (m * (hy * hy + hz * hz)),
                    3 / (m * (hx * hx + hz * hz)), 3 / (m * (hx * hx + hy * hy))};
  double u[6] = {0, 0, -9.81 * h, 0, 0, 0}, K[12 * 6] = {0};
  const double axes[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  for (int c = 0; c < 4; c++) {
    double r[3] = {c & 1 ? hx : -hx, c & 2 ? hy : -hy, -hz};
    int adr = t.n;
    add_block(&t, IMP_CNSTR_CONTACT, 3, mu);
    for (int row = 0; row < 3; row++) {
      memcpy(K + (adr + row) * 6, axes[row], sizeof axes[row]);
      imp_cross(K + (adr + row) * 6 + 3, r, axes[row]);
    }
  }
  for (int i = 0; i < 12; i++) {
    for (int j = 0; j < 12; j++) {
      double s = 0;
      for (int d = 0; d < 6; d++) s += K[i * 6 + d] * minv[d] * K[j * 6 + d];
      t.A[i * 12 + j] = s;
    }
    t.v0[i] = imp_dot(K + i * 6, u, 6);
  }
  double f[12], w[12], net[3] = {0};
  imp_csolver_stat s = run_mm(&t, f, 100, 1e-13, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  slack(&t, f, w);
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 3; r++) {
      net[r] += f[3 * c + r];
      imp_assert_near(w[3 * c + r], 0, 1e-12);
      if (r) ck_assert(fabs(f[3 * c + r]) <= mu * f[3 * c] + 1e-15);
    }
  imp_assert_near(net[0], m * 9.81 * h, 1e-12);
  imp_assert_near(net[1], 0, 1e-12);
  imp_assert_near(net[2], 0, 1e-12);
  printf("minmap box resting on 4 contacts: %d iterations (%d Newton), residual %.2e\n",
         s.iterations, s.newton, s.residual);
}
END_TEST

START_TEST(test_dry_friction_one_dof) {
  /* one dry friction row, A = [a], bound F: sticking when |v0| / a < F
     (f = -v0 / a, v = 0), else sliding on the bound against the slip
     (f = -sign(v0) F, v = v0 + a f of v0's sign); F = 0 holds nothing */
  const double a = 2, F = 0.5;
  tprob t = {0};
  add_block(&t, IMP_CNSTR_FRICTION, 1, F);
  t.A[0] = a;
  double f[1], w[1];
  t.v0[0] = 0.3; /* sticking: |v0| / a = 0.15 < F */
  imp_csolver_stat s = run_mm(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], -0.15, 1e-15);
  slack(&t, f, w);
  imp_assert_near(w[0], 0, 1e-15);
  for (int side = -1; side <= 1; side += 2) { /* sliding: |v0| / a = 1.5 > F */
    t.v0[0] = 3 * side;
    s = run_mm(&t, f, 50, 1e-14, 0);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    imp_assert_near(f[0], -side * F, 0);
    slack(&t, f, w);
    imp_assert_near(w[0], side * 2.0, 1e-15); /* v0 + a f = +-(3 - 1) */
    ck_assert(w[0] * t.v0[0] > 0 && f[0] * w[0] < 0); /* slips on, friction opposes */
  }
  t.mu[0] = 0; /* no bound: the row carries nothing */
  t.v0[0] = 0.3;
  s = run_mm(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], 0, 0);
}
END_TEST

START_TEST(test_dry_friction_coupled) {
  /* a limit (row 0) and two dry friction rows, coupled by A: row 1 (F1 =
     0.2) slides (f_1 = -F1: set U, B-derivative row e_1, eliminated with no
     e_N term since its bound is fixed), row 2 (F2 = 0.5) sticks and the
     limit is pressed (set A). With f_1 = -F1, rows 0 and 2 of y = 0 are the
     2x2 system [A00 A02; A20 A22] (f_0, f_2) = -(v0_0, v0_2) - f_1 (A01, A21). */
  tprob t = {0};
  const double F1 = 0.2, F2 = 0.5;
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_FRICTION, 1, F1);
  add_block(&t, IMP_CNSTR_FRICTION, 1, F2);
  double A[9] = {2, 0.4, 0.3, 0.4, 1.5, 0.2, 0.3, 0.2, 1};
  memcpy(t.A, A, sizeof A);
  double v0[3] = {-1, 2, 0.1};
  memcpy(t.v0, v0, sizeof v0);
  double r0 = -v0[0] + F1 * A[1], r2 = -v0[2] + F1 * A[7];
  double det = A[0] * A[8] - A[2] * A[6];
  double exact[3] = {(r0 * A[8] - A[2] * r2) / det, -F1, (A[0] * r2 - A[6] * r0) / det};
  double w[3];
  slack(&t, exact, w);
  ck_assert_msg(exact[0] > 0 && fabs(exact[2]) < F2 && w[1] > 0,
                "the test's limit should be pressed, row 1 slide and row 2 stick");
  double f[3];
  imp_csolver_stat s = run_mm(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, exact, 3, 1e-14);
  ck_assert_int_ge(s.newton, 1);
  printf("minmap limit and two dry friction rows: %d iterations (%d Newton), residual %.2e\n",
         s.iterations, s.newton, s.residual);
  /* from the answer: nothing to do */
  s = run_mm(&t, f, 50, 1e-14, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 0);
}
END_TEST

START_TEST(test_honest_exits) {
  /* stopped early: MAXITER, feasible (in the box) and finite */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
  double A[9] = {2, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = -2, t.v0[1] = 3, t.v0[2] = 0.05;
  double f[3];
  imp_csolver_stat s = run_mm(&t, f, 1, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(s.iterations, 1);
  ck_assert(f[0] >= 0 && fabs(f[1]) <= 0.5 * f[0] && fabs(f[2]) <= 0.5 * f[0]);
  /* garbage warm start is cleared, not propagated */
  f[0] = NAN, f[1] = INFINITY, f[2] = 1;
  s = run_mm(&t, f, 50, 1e-14, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  /* a non-finite problem: FAILED and zeros */
  t.v0[1] = NAN;
  s = run_mm(&t, f, 50, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_FAILED);
  for (int i = 0; i < 3; i++) ck_assert(f[i] == 0);
}
END_TEST

static Suite* minmap_suite(void) {
  Suite* s = suite_create("solver_minmap");
  TCase* tc = tcase_create("minmap");
  tcase_add_test(tc, test_single_limit);
  tcase_add_test(tc, test_slide_one_tangent);
  tcase_add_test(tc, test_equality_one_newton_step);
  tcase_add_test(tc, test_duplicated_rows_singular_schur);
  tcase_add_test(tc, test_box_resting);
  tcase_add_test(tc, test_dry_friction_one_dof);
  tcase_add_test(tc, test_dry_friction_coupled);
  tcase_add_test(tc, test_honest_exits);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(minmap_suite()); }
