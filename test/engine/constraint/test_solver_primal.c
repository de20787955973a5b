/* Tests of the primal interior-point solver of the cone complementarity
 * problem (solvers/primal.c) on hand-made problems with closed forms: the
 * relaxation's lift-off on one sliding contact and on a sliding box (the
 * paper's primal problem projected by hand), a box resting on many
 * coincident contacts (far more rows than dofs: the island the solver is
 * for), redundant equalities, dry friction, the island's factor by its dofs
 * against its own Cholesky factor, an unbounded dual, warm start and an
 * honest MAXITER. test_solvers.c holds it to the common checks on random
 * problems and captured robot islands. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "test_cproblem.h"
#include "test_util.h"

static imp_csolver_stat run_primal(const tprob* t, double* f, int maxiter, double tol,
                                   int warm) {
  return tp_solve(&imp_solver_primal, t, f, maxiter, tol, warm, NULL);
}

/* w = A f + v0 - b */
static void velocity(const tprob* t, const double* f, double* w) {
  for (int i = 0; i < t->n; i++) w[i] = imp_dot(t->A + i * t->n, f, t->n) + t->v0[i] - t->b[i];
}

START_TEST(test_sliding_contact_lifts_off) {
  /* A = I, v0 = (-1, 2, 0), mu = 0.5 (test_solver_ccp.c's closed form): the
     CCP's answer is the projection of -g onto K, l = (1.6, -0.8, 0), and
     w = (0.6, 1.2, 0) with w_N = mu ||w_T|| */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
  for (int i = 0; i < 3; i++) t.A[i * 3 + i] = 1;
  t.v0[0] = -1;
  t.v0[1] = 2;
  double f[3], w[3];
  imp_csolver_stat s = run_primal(&t, f, 100, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1.6, -0.8, 0}), 3, 1e-10);
  velocity(&t, f, w);
  imp_assert_vec_near(w, ((double[]){0.6, 1.2, 0}), 3, 1e-10);
  printf("primal sliding contact: %d iterations\n", s.iterations);
}
END_TEST

/* the box of test_solver_ccp.c (tp_box_on_plane), its corners `copies` times */
static void box_on_plane(tprob* t, int copies, double mu, const double u[6]) {
  tp_box_on_plane(t, 0.5, 0.3, 0.1, 2.0, mu, u, copies, NULL);
}

START_TEST(test_box_sliding_lifts_off) {
  /* test_solver_ccp.c's sliding box: the paper's primal min 1/2 |u -
     u_free|_M^2 with every corner in {v_N >= mu |v_T|} is, with translation
     only, the projection of (vx0, -g h) onto {v_z >= mu |v_x|}: v_x = (vx0 -
     mu g h) / (1 + mu^2), v_z = mu v_x at every corner */
  const double mu = 0.5, h = 0.01, g = 9.81, vx0 = 1;
  const double u[6] = {vx0, 0, -g * h, 0, 0, 0};
  tprob t;
  box_on_plane(&t, 1, mu, u);
  double f[12], w[12];
  imp_csolver_stat s = run_primal(&t, f, 100, 1e-10, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  velocity(&t, f, w);
  double vx = (vx0 - mu * g * h) / (1 + mu * mu);
  for (int c = 0; c < 4; c++) {
    ck_assert_double_eq_tol(w[3 * c], mu * vx, 1e-8);
    ck_assert_double_eq_tol(w[3 * c + 1], vx, 1e-8);
    ck_assert_double_eq_tol(w[3 * c + 2], 0, 1e-8);
  }
  printf("primal sliding box: %d iterations\n", s.iterations);
}
END_TEST

START_TEST(test_box_on_many_coincident_contacts) {
  /* The box falling onto the plane at -g h, its 4 corners each 5 times: 60
     rows on 6 dofs, A of rank 6. Sticking: every corner stops (w = 0) and
     the normal impulses sum to m g h, however they split between copies. */
  const double g = 9.81, h = 0.01, m = 2.0;
  const double u[6] = {0, 0, -g * h, 0, 0, 0};
  tprob t;
  box_on_plane(&t, 5, 0.8, u);
  ck_assert_int_eq(t.n, 60);
  double f[60], w[60];
  imp_csolver_stat s = run_primal(&t, f, 100, 1e-10, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  velocity(&t, f, w);
  double fn = 0;
  for (int i = 0; i < 60; i++) ck_assert_double_eq_tol(w[i], 0, 1e-9);
  for (int c = 0; c < 20; c++) fn += f[3 * c];
  ck_assert_double_eq_tol(fn, m * g * h, 1e-9);
  printf("primal box on 20 contacts (60 rows, rank 6): %d iterations\n", s.iterations);
}
END_TEST

START_TEST(test_redundant_equalities) {
  /* two copies of one equality row (A = [[1, 1], [1, 1]], v0 = -1 each):
     w = 0 is met by any f with f_0 + f_1 = 1; the Schur complement of the
     equalities is singular and its shift must not show in w */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  for (int i = 0; i < 4; i++) t.A[i] = 1;
  t.v0[0] = t.v0[1] = -1;
  double f[2], w[2];
  imp_csolver_stat s = run_primal(&t, f, 100, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  velocity(&t, f, w);
  imp_assert_vec_near(w, ((double[]){0, 0}), 2, 1e-12);
  ck_assert_double_eq_tol(f[0] + f[1], 1, 1e-12);
}
END_TEST

START_TEST(test_dry_friction_one_dof) {
  /* A = [a], bound F: f = clamp(-v0 / a, -F, F) (sticking inside, sliding
     against the slip on the bound) */
  const double a = 2, F = 0.3;
  const double v0s[3] = {0.4, -0.4, 1.0};
  for (int k = 0; k < 3; k++) {
    tprob t = {0};
    add_block(&t, IMP_CNSTR_FRICTION, 1, F);
    t.A[0] = a;
    t.v0[0] = v0s[k];
    double f[1];
    imp_csolver_stat s = run_primal(&t, f, 100, 1e-12, 0);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    ck_assert_double_eq_tol(f[0], fmin(fmax(-v0s[k] / a, -F), F), 1e-10);
    ck_assert(fabs(f[0]) <= F);
  }
}
END_TEST

/* The tumbling box's answer has contacts with f and w at the cones' tips
   together (degenerate): there the natural map falls like the square root
   of the duality gap, and the gap stops near 1e-16 at rounding, so its
   tolerance is 1e-8 (the models' default) rather than 1e-10 */
#define TUMBLE_TOL 1e-8

START_TEST(test_factor_by_dofs_agrees) {
  /* the tumbling box with its factor A = R U W U' R given (U = K, R = 1,
     W = M^-1 diagonal: the stage's form) and without it (the solver's own
     pivoted Cholesky of A): the same velocities */
  const double u[6] = {0.7, -0.4, -0.2, 0.1, 0, 0.5};
  tprob t;
  const double hx = 0.5, hy = 0.3, hz = 0.1, m = 2.0;
  double minv[6] = {1 / m, 1 / m, 1 / m, 3 / (m * (hy * hy + hz * hz)),
                    3 / (m * (hx * hx + hz * hz)), 3 / (m * (hx * hx + hy * hy))};
  static double K[24 * 6], U[6 * 24];
  tp_box_on_plane(&t, hx, hy, hz, m, 1.0, u, 2, K);
  double ones[24];
  for (int i = 0; i < 24; i++)
    for (int d = 0; d < 6; d++) U[d * 24 + i] = K[i * 6 + d]; /* column d */
  for (int i = 0; i < 24; i++) ones[i] = 1;
  imp_cproblem p = view(&t);
  p.U = U;
  p.rank = 6;
  p.U_ld = 24;
  p.U_rowscale = ones;
  p.U_colweight = minv;
  double fu[24], fc[24], wu[24], wc[24];
  void* work = aligned_alloc(16, (imp_solver_primal.work_size(24, 8) + 15) / 16 * 16);
  imp_csolver_opt o = {100, TUMBLE_TOL, 0, NULL, NULL, 0};
  imp_csolver_stat su, sc;
  imp_solver_primal.solve(&p, &o, fu, &su, work);
  imp_cproblem q = view(&t);
  imp_solver_primal.solve(&q, &o, fc, &sc, work);
  free(work);
  ck_assert_int_eq(su.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(sc.exit, IMP_EXIT_CONVERGED);
  velocity(&t, fu, wu);
  velocity(&t, fc, wc);
  imp_assert_vec_near(wu, wc, 24, 1e-8);
  printf("primal tumbling box on 8 contacts: %d iterations with the stage's factor, %d with "
         "its own\n", su.iterations, sc.iterations);
}
END_TEST

START_TEST(test_unbounded_dual_is_not_converged) {
  /* test_solver_ccp.c's two limits with A = [[1, -1], [-1, 1]], g = (-1,
     -1): the dual is unbounded, the primal infeasible (w_0 + w_1 = -2 for
     every motion). No answer: the solver must not say CONVERGED, and its
     impulses stay finite and in K. */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  t.A[0] = t.A[3] = 1;
  t.A[1] = t.A[2] = -1;
  t.v0[0] = t.v0[1] = -1;
  double f[2];
  imp_csolver_stat s = run_primal(&t, f, 200, 1e-10, 0);
  ck_assert_int_ne(s.exit, IMP_EXIT_CONVERGED);
  ck_assert(isfinite(f[0]) && isfinite(f[1]) && f[0] >= 0 && f[1] >= 0);
  printf("primal infeasible primal: exit %d after %d iterations\n", s.exit, s.iterations);
}
END_TEST

START_TEST(test_warm_start_and_maxiter) {
  const double u[6] = {0.7, -0.4, -0.2, 0.1, 0, 0.5};
  tprob t;
  box_on_plane(&t, 1, 1.0, u);
  double f[12];
  imp_csolver_stat cold = run_primal(&t, f, 100, TUMBLE_TOL, 0);
  ck_assert_int_eq(cold.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_gt(cold.iterations, 3);
  int calls = -1;
  imp_csolver_stat warm = tp_solve(&imp_solver_primal, &t, f, 100, TUMBLE_TOL, 1, &calls);
  ck_assert_int_eq(warm.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(warm.iterations, 0);
  imp_csolver_stat few = run_primal(&t, f, 2, TUMBLE_TOL, 0);
  ck_assert_int_eq(few.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(few.iterations, 2);
  ck_assert(few.residual > TUMBLE_TOL);
  /* asked for more than rounding allows on this degenerate problem, it
     says it stalled and hands back its best answer */
  imp_csolver_stat tight = run_primal(&t, f, 100, 1e-14, 0);
  ck_assert_int_eq(tight.exit, IMP_EXIT_STALLED);
  ck_assert(tight.residual <= TUMBLE_TOL);
  for (int i = 0; i < 12; i++) ck_assert(isfinite(f[i]));
}
END_TEST

START_TEST(test_registry_entry) {
  int i = imp_solver_find("primal");
  ck_assert_int_ge(i, 2);
  ck_assert_ptr_eq(imp_solver_get(i), &imp_solver_primal);
  ck_assert_int_eq(imp_solver_primal.law, IMP_LAW_RELAXED);
}
END_TEST

static Suite* primal_suite(void) {
  Suite* s = suite_create("solver_primal");
  TCase* tc = tcase_create("primal");
  tcase_add_test(tc, test_sliding_contact_lifts_off);
  tcase_add_test(tc, test_box_sliding_lifts_off);
  tcase_add_test(tc, test_box_on_many_coincident_contacts);
  tcase_add_test(tc, test_redundant_equalities);
  tcase_add_test(tc, test_dry_friction_one_dof);
  tcase_add_test(tc, test_factor_by_dofs_agrees);
  tcase_add_test(tc, test_unbounded_dual_is_not_converged);
  tcase_add_test(tc, test_warm_start_and_maxiter);
  tcase_add_test(tc, test_registry_entry);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(primal_suite()); }
