/* Tests of Lemke's algorithm on the pyramid LCP (solvers/lemke.c) on
 * hand-made problems with closed forms: a sliding block whose friction lies
 * on the pyramid's edge direction nearest opposite the slip, or on a facet's
 * midpoint when the slip is between two directions; sticking; torsional
 * sliding on condim 6; an equality chain (split f = f+ - f-); ray
 * termination on an infeasible problem and on Painleve's example of
 * Schindler, Nguyen & Trinkle 2011 (eq. 45, G < 0, b < 0: no solution); the
 * trivial solution when q >= 0; warm start; honest MAXITER (the pivot
 * budget of lemke.c's pivot_budget really exhausted); a 4096:1 pair of
 * boxes on 8 contacts, at rest (the weights) and moving (convergence); dry
 * friction rows with a fixed bound (IMP_CNSTR_FRICTION, exact in the LCP):
 * one dof sticking and sliding either way, a bound of 0, one coupled to a
 * limit in both regimes, and a chain of them. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "test_cproblem.h"
#include "test_util.h"

/* run lemke on poisoned scratch; f holds the warm start when warm */
static imp_csolver_stat run_lemke(const tprob* t, double* f, int maxiter, int warm) {
  imp_csolver_stat s = tp_solve(&imp_solver_lemke, t, f, maxiter, 1e-12, warm, NULL);
  for (int i = 0; i < t->n; i++) ck_assert(isfinite(f[i]));
  return s;
}

/* one contact, A = I, mu, v0 = (-1, vt) */
static void one_contact(tprob* t, int dim, double mu, const double* vt) {
  memset(t, 0, sizeof *t);
  add_block(t, IMP_CNSTR_CONTACT, dim, mu);
  for (int i = 0; i < dim; i++) t->A[i * dim + i] = 1;
  t->v0[0] = -1;
  for (int i = 1; i < dim; i++) t->v0[i] = vt[i - 1];
}

START_TEST(test_sliding_on_edge_direction) {
  /* A = I, f_N = 1, the slip -10 (cos 10deg, sin 10deg): friction minimizes
     v_T' f_T over the octagon of radius mu, i.e. f_T is the projection of
     -v0_T onto it: the vertex mu d_0 = (0.5, 0), since -v0_T - mu d_0 lies
     within +-22.5 degrees of d_0 (the vertex's normal cone). The circular
     cone would give 0.5 (cos 10, sin 10): the pyramid's error. */
  const double deg = 3.14159265358979323846 / 180;
  tprob t;
  one_contact(&t, 3, 0.5, (double[]){-10 * cos(10 * deg), -10 * sin(10 * deg)});
  double f[3];
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, 0.5, 0}), 3, 1e-14);
  ck_assert_double_le(s.residual, 1e-14);
  /* measured 4 pivots: z0, then beta_0, f_N and lambda enter (z0 leaves) */
  printf("lemke sliding on an edge direction: %d pivots\n", s.iterations);
  ck_assert_int_eq(s.iterations, 4);
}
END_TEST

START_TEST(test_sliding_on_facet) {
  /* the slip exactly between d_0 and d_1 (22.5 degrees): friction at the
     facet's midpoint, mu cos(pi/8) (cos pi/8, sin pi/8), both betas active
     with mu/2 each */
  const double a = 3.14159265358979323846 / 8;
  tprob t;
  one_contact(&t, 3, 0.5, (double[]){-10 * cos(a), -10 * sin(a)});
  double f[3];
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, 0.5 * cos(a) * cos(a), 0.5 * cos(a) * sin(a)}), 3, 1e-13);
  printf("lemke sliding on a facet: %d pivots\n", s.iterations);
  ck_assert_int_eq(s.iterations, 5); /* measured: one more than a vertex, beta_1 */
}
END_TEST

START_TEST(test_sticking) {
  /* small slip inside the pyramid: f_T = -v0_T exactly, f_N = 1 */
  tprob t;
  one_contact(&t, 3, 0.5, (double[]){0.1, -0.2});
  double f[3];
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, -0.1, 0.2}), 3, 1e-14);
  /* warm start at the answer: it solves the pyramid LCP, no pivot */
  s = run_lemke(&t, f, 100, 1);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 0);
  imp_assert_vec_near(f, ((double[]){1, -0.1, 0.2}), 3, 1e-14);
}
END_TEST

START_TEST(test_torsion_sliding_condim6) {
  /* condim 6, A = I, spinning: v0 = (-1, 0, 0, -3, 0, 0); the torsional row
     has its own pair +-e, so the torsional impulse is mu f_N = 0.5, the rest
     0; the rolling rows stick at 0 */
  tprob t;
  one_contact(&t, 6, 0.5, (double[]){0, 0, -3, 0, 0});
  double f[6];
  imp_csolver_stat s = run_lemke(&t, f, 200, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, 0, 0, 0.5, 0, 0}), 6, 1e-14);
}
END_TEST

START_TEST(test_equality_chain) {
  /* A = tridiag(-1, 2, -1), v0 = -A (1, -2, 3): equality impulses of both
     signs through the split f = f+ - f- */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 2, 0);
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  double A[9] = {2, -1, 0, -1, 2, -1, 0, -1, 2}, fs[3] = {1, -2, 3};
  memcpy(t.A, A, sizeof A);
  for (int i = 0; i < 3; i++) t.v0[i] = -imp_dot(A + 3 * i, fs, 3);
  double f[3];
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, fs, 3, 1e-13);
  printf("lemke equality chain: %d pivots\n", s.iterations);
}
END_TEST

START_TEST(test_ray_termination_infeasible) {
  /* two limits, A = [1 -1; -1 1] (PSD), v0 = (-1, -1): w_1 + w_2 = -2 < 0
     for every f, no solution. By hand: z0 enters (z0 = 1), z_2 enters with
     w_1 leaving degenerately, then z_1 has no blocking row: ray after 2
     pivots. FAILED, f = 0. */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  double A[4] = {1, -1, -1, 1};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = t.v0[1] = -1;
  double f[2] = {7, 7};
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_FAILED);
  ck_assert_int_eq(s.iterations, 2);
  imp_assert_vec_near(f, ((double[]){0, 0}), 2, 0);
}
END_TEST

START_TEST(test_painleve) {
  /* Schindler et al. eq. 45: 0 <= lambda _|_ G lambda + b >= 0 with G < 0.
     b < 0 (Fig. 11): no solution, Lemke ray-terminates after z0's pivot.
     b > 0 (Fig. 12): two solutions, Lemke takes the trivial one, 0 pivots. */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  t.A[0] = -0.5;
  t.v0[0] = -1;
  double f[1] = {3};
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_FAILED);
  ck_assert_int_eq(s.iterations, 1);
  ck_assert_double_eq(f[0], 0);
  t.v0[0] = 1;
  s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 0);
  ck_assert_double_eq(f[0], 0);
}
END_TEST

START_TEST(test_frictionless_pivots) {
  /* k independent pressing limits (A = I, v0 = -1 .. -k): z0 enters at the most
     negative row (w_k), then z_k, z_(k-1), ... enter, z0 leaving with z_1:
     k + 1 pivots */
  tprob t = {0};
  int k = 4;
  for (int i = 0; i < k; i++) add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  for (int i = 0; i < k; i++) t.A[i * k + i] = 1, t.v0[i] = -(i + 1);
  double f[4];
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, 2, 3, 4}), 4, 1e-14);
  ck_assert_int_eq(s.iterations, k + 1);
}
END_TEST

/* k independent pressing limits as in test_frictionless_pivots: N = k
   unknowns, k + 1 pivots needed */
static void pressing_limits(tprob* t, int k) {
  memset(t, 0, sizeof *t);
  for (int i = 0; i < k; i++) add_block(t, IMP_CNSTR_LIMIT, 1, 0);
  for (int i = 0; i < k; i++) t->A[i * k + i] = 1, t->v0[i] = -(i + 1);
}

START_TEST(test_maxiter_is_honest) {
  /* maxiter below 4 N is read per unknown (lemke.c, pivot_budget): 1 gives
     N = 4 pivots, one short of the k + 1 = 5 this problem needs: MAXITER
     after exactly 4, f a clipped iterate */
  tprob t;
  pressing_limits(&t, 4);
  double f[4];
  imp_csolver_stat s = run_lemke(&t, f, 1, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(s.iterations, 4);
  for (int i = 0; i < 4; i++) ck_assert(f[i] >= 0);
  /* 2 per unknown (8 pivots) is enough */
  s = run_lemke(&t, f, 2, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 5);
  /* a budget of 4 N or more is taken as it is; 8 limits need 9 pivots */
  pressing_limits(&t, 8);
  double f8[8];
  s = run_lemke(&t, f8, 1, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(s.iterations, 8);
  s = run_lemke(&t, f8, 40, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 9);
  /* and maxiter 0 allows no pivot at all */
  s = run_lemke(&t, f8, 0, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(s.iterations, 0);
}
END_TEST

/* A box of mass mtop (20 cm cube) resting on one of mass 1 on the ground,
   4 corner contacts each (condim 3, mu 0.8), with body velocities u0
   (world linear, angular; NULL: at rest) plus gravity: v0 = K (u0 + h g).
   Rows [n, t1, t2] = world z, x, y; the box-box contacts' velocity is the
   top box's minus the bottom box's at the corner. The 4096:1 stack of
   models/heavy_stack.xml with one box less. */
static void heavy_pair(tprob* t, double mtop, const double* u0) {
  memset(t, 0, sizeof *t);
  const double hs = 0.1, h = 0.002, g = 9.81;
  double K[24 * 12] = {0}, minv[12];
  double mass[2] = {1, mtop};
  for (int b = 0; b < 2; b++)
    for (int d = 0; d < 6; d++) minv[6 * b + d] = d < 3 ? 1 / mass[b] : 6 / (mass[b] * 4 * hs * hs * 2);
  const double axes[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  for (int c = 0; c < 8; c++) {
    int top = c >= 4; /* contacts 0-3 ground / bottom box, 4-7 bottom / top box */
    double x = c & 1 ? hs : -hs, y = c & 2 ? hs : -hs;
    int adr = t->n;
    add_block(t, IMP_CNSTR_CONTACT, 3, 0.8);
    for (int row = 0; row < 3; row++) {
      double* k = K + (adr + row) * 12;
      double r_lo[3] = {x, y, top ? hs : -hs}, r_hi[3] = {x, y, -hs}, rx[3];
      if (top) { /* + top box, - bottom box */
        memcpy(k + 6, axes[row], sizeof axes[row]);
        imp_cross(rx, r_hi, axes[row]);
        memcpy(k + 9, rx, sizeof rx);
        for (int d = 0; d < 3; d++) k[d] = -axes[row][d];
        imp_cross(rx, r_lo, axes[row]);
        for (int d = 0; d < 3; d++) k[3 + d] = -rx[d];
      } else {
        memcpy(k, axes[row], sizeof axes[row]);
        imp_cross(rx, r_lo, axes[row]);
        memcpy(k + 3, rx, sizeof rx);
      }
    }
  }
  int n = t->n;
  double u[12] = {0};
  if (u0) memcpy(u, u0, sizeof u);
  u[2] -= g * h, u[8] -= g * h;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int d = 0; d < 12; d++) s += K[i * 12 + d] * minv[d] * K[j * 12 + d];
      t->A[i * n + j] = s;
    }
    t->v0[i] = imp_dot(K + i * 12, u, 12);
  }
}

START_TEST(test_heavy_pair) {
  /* Degenerate (8 contacts on 2 bodies: rank 12 of 24 rows) and badly
     scaled (4096:1). At rest the normal impulses carry the weights, h g
     m_top on the top contacts and h g (m_top + 1) on the ground, with no
     friction. */
  tprob t;
  const double mtop = 4096, w = 9.81 * 0.002;
  heavy_pair(&t, mtop, NULL);
  double f[24] = {0};
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_double_le(s.residual, 1e-12);
  double fn_ground = 0, fn_top = 0, ft = 0;
  for (int c = 0; c < 8; c++) {
    *(c < 4 ? &fn_ground : &fn_top) += f[3 * c];
    ft = fmax(ft, hypot(f[3 * c + 1], f[3 * c + 2]));
  }
  ck_assert_double_le(fabs(fn_top - mtop * w), 1e-9 * mtop * w);
  ck_assert_double_le(fabs(fn_ground - (mtop + 1) * w), 1e-9 * mtop * w);
  ck_assert_double_le(ft, 1e-9 * mtop * w);
}
END_TEST

START_TEST(test_heavy_pair_moving) {
  /* the same pair sliding, spinning and tilting (random body velocities):
     every trial must converge, cold and warm from its own answer. Measured:
     the solver before the measures of lemke.c's "Rounding" left 17 of these
     80 solves unconverged. */
  int bad = 0;
  for (int trial = 0; trial < 40; trial++) {
    double u[12];
    for (int d = 0; d < 12; d++) u[d] = imp_test_urand(-1, 1) * (d % 6 < 3 ? 0.5 : 2);
    tprob t;
    heavy_pair(&t, 4096, u);
    double f[24] = {0};
    imp_csolver_stat s = run_lemke(&t, f, 100, 0);
    bad += s.exit != IMP_EXIT_CONVERGED;
    s = run_lemke(&t, f, 100, 1);
    bad += s.exit != IMP_EXIT_CONVERGED;
  }
  printf("lemke heavy pair moving: %d of 80 solves not converged\n", bad);
  ck_assert_int_eq(bad, 0);
}
END_TEST

/* one dof of dry friction: A = [a], bound F, v0 */
static void one_dry(tprob* t, double a, double F, double v0) {
  memset(t, 0, sizeof *t);
  add_block(t, IMP_CNSTR_FRICTION, 1, F);
  t->A[0] = a;
  t->v0[0] = v0;
}

START_TEST(test_dry_friction_one_dof) {
  /* A = [2], F = 1. |v0| / a below F sticks: f = -v0 / a, v = 0. Above it
     slides: f = -sign(v0) F on the bound, v = v0 + a f keeps v0's sign
     (friction opposes the slip, f v < 0). Both signs, since f = f+ - f-
     and each half is its own unknown. Exact (an interval, no pyramid), so
     to rounding. */
  const double a = 2, F = 1;
  const double v0s[4] = {-0.5, 0.5, -5, 5};
  tprob t;
  for (int c = 0; c < 4; c++) {
    double v0 = v0s[c], f[1];
    one_dry(&t, a, F, v0);
    imp_csolver_stat s = run_lemke(&t, f, 100, 0);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    ck_assert_double_le(s.residual, 1e-15);
    int sliding = fabs(v0) / a > F;
    double want = sliding ? -copysign(F, v0) : -v0 / a, v = v0 + a * f[0];
    ck_assert_double_le(fabs(f[0] - want), 1e-15);
    if (sliding) {
      ck_assert(v * v0 > 0);
      ck_assert_double_le(fabs(v - (v0 - copysign(a * F, v0))), 1e-14);
    } else {
      ck_assert_double_le(fabs(v), 1e-15);
    }
    ck_assert_double_le(relative_residual(&t, f), 1e-15);
    /* measured: sticking z0 and f+- (2 pivots); sliding also lambda, with
       w_lambda leaving at the bound (3) */
    ck_assert_int_eq(s.iterations, sliding ? 3 : 2);
    /* warm start at the answer: it solves the LCP, no pivot */
    s = run_lemke(&t, f, 100, 1);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    ck_assert_int_eq(s.iterations, 0);
    ck_assert_double_le(fabs(f[0] - want), 1e-15);
  }
}
END_TEST

START_TEST(test_dry_friction_zero_bound) {
  /* F = 0 admits only f = 0: lemke gives the block no unknowns, so the
     answer is the trivial one, with no pivot, whatever the slip */
  tprob t;
  one_dry(&t, 2, 0, -5);
  double f[1] = {7};
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(s.iterations, 0);
  ck_assert_double_eq(f[0], 0);
}
END_TEST

START_TEST(test_dry_friction_with_limit) {
  /* a limit (row 0) and dry friction (row 1) on coupled rows, A = [2 1; 1
     2], v0 = (-2, 3). F = 1 slides: w_0 = 0 and f_1 = -F give f_0 = (2 +
     F) / 2 = 1.5 and v_1 = f_0 + 2 f_1 + 3 = 2.5 > 0, opposite f_1. F = 4
     sticks: v = 0 gives f = (7/3, -8/3), |f_1| < F. */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  int k = add_block(&t, IMP_CNSTR_FRICTION, 1, 1);
  double A[4] = {2, 1, 1, 2};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = -2, t.v0[1] = 3;
  double f[2];
  imp_csolver_stat s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1.5, -1}), 2, 1e-14);
  ck_assert_double_le(relative_residual(&t, f), 1e-14);
  t.mu[k] = 4;
  s = run_lemke(&t, f, 100, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){7.0 / 3, -8.0 / 3}), 2, 1e-14);
  ck_assert_double_le(relative_residual(&t, f), 1e-14);
}
END_TEST

START_TEST(test_dry_friction_chain) {
  /* Six dry friction rows on a chain, A = tridiag(-1, 2.5, -1), random
     slips and bounds: every row of the answer must meet the interval law
     exactly. With no contact the common residual measures exactly that (no
     pyramid in it), so it must be at rounding, and f v <= 0 row by row. Six
     one-row blocks are also the LCP's largest size per row (3 unknowns a
     row, lcp_bound), on the scratch work_size gives. */
  int bad = 0;
  for (int trial = 0; trial < 20; trial++) {
    tprob t = {0};
    int n = 6;
    for (int i = 0; i < n; i++) add_block(&t, IMP_CNSTR_FRICTION, 1, imp_test_urand(0.05, 1));
    for (int i = 0; i < n; i++) {
      t.A[i * n + i] = 2.5;
      if (i > 0) t.A[i * n + i - 1] = t.A[(i - 1) * n + i] = -1;
      t.v0[i] = imp_test_urand(-3, 3);
    }
    double f[6];
    imp_csolver_stat s = run_lemke(&t, f, 100, 0);
    bad += s.exit != IMP_EXIT_CONVERGED;
    ck_assert_double_le(relative_residual(&t, f), 1e-13);
    for (int i = 0; i < n; i++) {
      double v = imp_dot(t.A + i * n, f, n) + t.v0[i];
      ck_assert_double_le(fabs(f[i]), t.mu[i]);
      ck_assert_double_le(f[i] * v, 1e-14);
    }
  }
  ck_assert_int_eq(bad, 0);
}
END_TEST

static Suite* lemke_suite(void) {
  Suite* s = suite_create("solver_lemke");
  TCase* tc = tcase_create("closed forms");
  tcase_add_test(tc, test_sliding_on_edge_direction);
  tcase_add_test(tc, test_sliding_on_facet);
  tcase_add_test(tc, test_sticking);
  tcase_add_test(tc, test_torsion_sliding_condim6);
  tcase_add_test(tc, test_equality_chain);
  tcase_add_test(tc, test_ray_termination_infeasible);
  tcase_add_test(tc, test_painleve);
  tcase_add_test(tc, test_frictionless_pivots);
  tcase_add_test(tc, test_maxiter_is_honest);
  tcase_add_test(tc, test_heavy_pair);
  tcase_add_test(tc, test_heavy_pair_moving);
  tcase_add_test(tc, test_dry_friction_one_dof);
  tcase_add_test(tc, test_dry_friction_zero_bound);
  tcase_add_test(tc, test_dry_friction_with_limit);
  tcase_add_test(tc, test_dry_friction_chain);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(lemke_suite()); }
