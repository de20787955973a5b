/* Tests of the cone complementarity solver (solvers/ccp.c) on hand-made
 * problems with closed forms of the paper's dual problem
 * (ccp-dual-and-primal-convex-formulations: min 1/2 l'G l + g'l over the
 * product of cones; with G = I its answer is the projection P_K(-g)):
 * one contact sticking, one sliding (the relaxation's lift-off w_N = mu
 * ||w_T|| beside the exact law's w_N = 0), a box sliding on a plane (the same
 * effect on a rigid body, closed form from the primal problem), equalities
 * and limits, a frictionless mu = 0 contact, an unbounded dual reported as
 * DIVERGED, dry friction rows (the interval [-F, F]: sticking and sliding
 * exactly as the exact law, no lift-off; and a large bound that must not be
 * taken for a direction of unboundedness), warm start and honest MAXITER. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "test_cproblem.h"
#include "test_util.h"


static imp_csolver_stat run_ccp(const tprob* t, double* f, int maxiter, double tol, int warm) {
  return tp_solve(&imp_solver_ccp, t, f, maxiter, tol, warm, NULL);
}

/* w = A f + v0 - b */
static void velocity(const tprob* t, const double* f, double* w) {
  for (int i = 0; i < t->n; i++) w[i] = imp_dot(t->A + i * t->n, f, t->n) + t->v0[i] - t->b[i];
}

/* one contact of dim 3 with A = I */
static void unit_contact(tprob* t, double mu, double vn, double vt1, double vt2) {
  memset(t, 0, sizeof *t);
  add_block(t, IMP_CNSTR_CONTACT, 3, mu);
  for (int i = 0; i < 3; i++) t->A[i * 3 + i] = 1;
  t->v0[0] = vn;
  t->v0[1] = vt1;
  t->v0[2] = vt2;
}

START_TEST(test_sticking_contact) {
  /* G = I: l = P_K(-g); -g = (1, -0.1, 0.2) is inside the cone mu = 0.5,
     so l = -g and w = 0: sticking, as in the exact law */
  tprob t;
  unit_contact(&t, 0.5, -1, 0.1, -0.2);
  double f[3], w[3];
  imp_csolver_stat s = run_ccp(&t, f, 100, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1, -0.1, 0.2}), 3, 1e-12);
  velocity(&t, f, w);
  imp_assert_vec_near(w, ((double[]){0, 0, 0}), 3, 1e-12);
  printf("ccp sticking contact: %d iterations\n", s.iterations);
}
END_TEST

START_TEST(test_sliding_contact_lifts_off) {
  /* G = I, v0 = (-1, 2, 0), mu = 0.5: -g = (1, -2, 0) is outside K, its
     projection onto the boundary ray (residual.c's closed form) is
     l_N = (1 + mu 2) / (1 + mu^2) = 1.6, l_T = -mu l_N = -0.8, so
     w = l + g = (0.6, 1.2, 0): w_N = mu ||w_T|| = 0.6 > 0, the relaxation's
     lift-off. The exact law (pgs) gives l = (1, -0.5, 0), w = (0, 1.5, 0). */
  tprob t;
  unit_contact(&t, 0.5, -1, 2, 0);
  double f[3], w[3];
  imp_csolver_stat s = run_ccp(&t, f, 100, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){1.6, -0.8, 0}), 3, 1e-12);
  velocity(&t, f, w);
  imp_assert_vec_near(w, ((double[]){0.6, 1.2, 0}), 3, 1e-12);
  ck_assert_double_eq_tol(w[0], 0.5 * hypot(w[1], w[2]), 1e-12);
  /* the exact law on the same contact */
  double fe[3], we[3];
  imp_csolver_stat se = tp_solve(&imp_solver_pgs, &t, fe, 100, 1e-14, 0, NULL);
  ck_assert_int_eq(se.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(fe, ((double[]){1, -0.5, 0}), 3, 1e-12);
  velocity(&t, fe, we);
  imp_assert_vec_near(we, ((double[]){0, 1.5, 0}), 3, 1e-12);
  printf("ccp sliding contact: w_N = %.3f = mu ||w_T|| (exact law: %.1e), %d iterations\n", w[0],
         we[0], s.iterations);
}
END_TEST

START_TEST(test_box_sliding_lifts_off) {
  /* A box sliding along x at vx0 = 1 on a plane, one step h = 0.01 of
     gravity: u_free = (vx0, 0, -g h, 0, 0, 0). Flat (hx > mu hz: it does not
     tip), so neither law rotates it and all corners move alike.
     Exact Coulomb (pgs): the corners stay on the plane, v_N = 0, and slide at
     vx0 - mu g h.
     CCP, by the paper's primal problem min 1/2 |u - u_free|_M^2 s.t. every
     corner's (v_N, v_T) in K* = {v_N >= mu ||v_T||}: with translation only,
     the Euclidean projection of (vx0, -g h) onto {v_z >= mu |v_x|}:
     v_x = (vx0 - mu g h) / (1 + mu^2), v_z = mu v_x > 0: the box lifts off
     at mu times its slip. */
  const double mu = 0.5, h = 0.01, g = 9.81, vx0 = 1;
  const double u[6] = {vx0, 0, -g * h, 0, 0, 0};
  tprob t;
  tp_box_on_plane(&t, 0.5, 0.3, 0.1, 2.0, mu, u, 1, NULL);
  double f[12], w[12], fe[12], we[12];
  imp_csolver_stat s = run_ccp(&t, f, 20000, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  velocity(&t, f, w);
  double vx = (vx0 - mu * g * h) / (1 + mu * mu);
  imp_csolver_stat se = tp_solve(&imp_solver_pgs, &t, fe, 5000, 1e-13, 0, NULL);
  ck_assert_int_eq(se.exit, IMP_EXIT_CONVERGED);
  velocity(&t, fe, we);
  for (int c = 0; c < 4; c++) {
    const double* wc = w + 3 * c;
    ck_assert_double_eq_tol(wc[0], mu * vx, 1e-8);
    ck_assert_double_eq_tol(wc[1], vx, 1e-8);
    ck_assert_double_eq_tol(wc[2], 0, 1e-8);
    ck_assert_double_eq_tol(wc[0], mu * hypot(wc[1], wc[2]), 1e-8); /* v_N = mu ||v_T|| */
    ck_assert_double_eq_tol(we[3 * c], 0, 1e-9);                    /* exact: on the plane */
    ck_assert_double_eq_tol(we[3 * c + 1], vx0 - mu * g * h, 1e-9);
  }
  printf("ccp box sliding: v_N = %.5f = mu |v_T| (v_T %.5f), exact law v_N = %.1e (v_T %.5f); "
         "%d iterations\n", w[0], w[1], we[0], we[1], s.iterations);
}
END_TEST

START_TEST(test_equality_and_limits) {
  /* decoupled blocks: an equality of 2 rows (unconstrained: l = -G^-1 g),
     a limit pushed apart (g > 0: l = 0), a limit pressed (l = -g / G) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 2, 0);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  int n = t.n;
  t.A[0 * n + 0] = 2;
  t.A[0 * n + 1] = 1;
  t.A[1 * n + 0] = 1;
  t.A[1 * n + 1] = 2;
  t.A[2 * n + 2] = 1;
  t.A[3 * n + 3] = 4;
  t.v0[0] = 1;
  t.v0[1] = -1;
  t.b[1] = 0.5;    /* g = (1, -1.5) */
  t.v0[2] = 0.3;   /* limit apart */
  t.v0[3] = -0.3;
  t.b[3] = 0.1;    /* g = -0.4: l = 0.1 */
  /* G^-1 = [[2, -1], [-1, 2]] / 3, so l = -G^-1 g = (-7/6, 4/3) */
  double exact[4] = {-(2 * 1 - 1 * -1.5) / 3, -(-1 * 1 + 2 * -1.5) / 3, 0, 0.1};
  double f[4];
  imp_csolver_stat s = run_ccp(&t, f, 1000, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, exact, 4, 1e-12);
}
END_TEST

START_TEST(test_frictionless_cone) {
  /* mu = 0: K is the ray l_T = 0, K* = {w_N >= 0}, w_T free; G = I gives
     l = (max(0, -g_N), 0, 0) and the relaxation changes nothing */
  tprob t;
  unit_contact(&t, 0, -0.7, 3, -1);
  double f[3];
  imp_csolver_stat s = run_ccp(&t, f, 100, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){0.7, 0, 0}), 3, 1e-13);
  double work[6], rel;
  imp_cproblem p = view(&t);
  imp_cresidual(&p, f, &rel, work);
  ck_assert_double_le(rel, 1e-13); /* the exact law holds too */
}
END_TEST

START_TEST(test_unbounded_dual_diverges) {
  /* two limits with G = [[1, -1], [-1, 1]] (singular) and g = (-1, -1): along
     d = (1, 1) in R+^2, G d = 0 and g'd = -2 < 0, so the dual is unbounded
     below and no answer exists. The solver must say DIVERGED with finite
     impulses. */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  t.A[0] = 1;
  t.A[1] = -1;
  t.A[2] = -1;
  t.A[3] = 1;
  t.v0[0] = t.v0[1] = -1;
  double f[2];
  imp_csolver_stat s = run_ccp(&t, f, 100000, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_DIVERGED);
  ck_assert(isfinite(f[0]) && isfinite(f[1]) && f[0] >= 0 && f[1] >= 0);
  printf("ccp unbounded dual: DIVERGED after %d iterations at |f| %.2e\n", s.iterations,
         hypot(f[0], f[1]));
  /* G = 0 with g in K*: the answer 0 at once */
  memset(t.A, 0, sizeof t.A);
  t.v0[0] = t.v0[1] = 1;
  s = run_ccp(&t, f, 100, 1e-12, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_vec_near(f, ((double[]){0, 0}), 2, 0);
}
END_TEST

START_TEST(test_dry_friction_one_dof) {
  /* one dry friction row, A = [a], bound F: the dual min 1/2 a f^2 + v0 f
     over [-F, F] has f = clamp(-v0 / a, -F, F): sticking (v = 0) when
     |v0| / a < F, else sliding on the bound against the slip (v = v0 + a f
     of v0's sign). The relaxation changes nothing here (no normal to lift),
     so the common residual of the exact law vanishes too. */
  const double a = 2, F = 0.5;
  tprob t = {0};
  add_block(&t, IMP_CNSTR_FRICTION, 1, F);
  t.A[0] = a;
  double f[1], w[1], work[2], rel;
  t.v0[0] = 0.3; /* sticking: |v0| / a = 0.15 < F */
  imp_csolver_stat s = run_ccp(&t, f, 100, 1e-14, 0);
  ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], -0.15, 1e-15);
  velocity(&t, f, w);
  imp_assert_near(w[0], 0, 1e-15);
  for (int side = -1; side <= 1; side += 2) { /* sliding: |v0| / a = 1.5 > F */
    t.v0[0] = 3 * side;
    s = run_ccp(&t, f, 100, 1e-14, 0);
    ck_assert_int_eq(s.exit, IMP_EXIT_CONVERGED);
    imp_assert_near(f[0], -side * F, 0);
    velocity(&t, f, w);
    imp_assert_near(w[0], side * 2.0, 1e-15); /* v0 + a f = +-(3 - 1) */
    ck_assert(w[0] * t.v0[0] > 0 && f[0] * w[0] < 0); /* slips on, friction opposes */
    imp_cproblem p = view(&t);
    imp_cresidual(&p, f, &rel, work);
    ck_assert_double_le(rel, 1e-15); /* the exact law: no lift-off */
  }
}
END_TEST

START_TEST(test_dry_friction_bound_is_not_a_ray) {
  /* test_unbounded_dual_diverges' problem with its second limit made a dry
     friction row of bound F = 1e6: G = [[1, -1], [-1, 1]], g = (-1, -1).
     [-F, F] is bounded, so the dual is bounded below and has the answer
     f = (1 + F, F): w_0 = f_0 - f_1 - 1 = 0 (pressed limit), w_1 = -f_0 +
     f_1 - 1 = -2, opposing f_1 on its bound. Near it x / ||x|| is the old
     ray (1, 1) / sqrt(2) to 1e-6 (d'G d = 2.5e-13 of L = 2, g'd = -1.41):
     a certificate that kept the dry row in its direction would say
     DIVERGED here; the recession direction of an interval is 0, so the
     solver must converge. Warm started near the answer (one iteration
     reaches the certificate's test there), and cold. */
  const double F = 1e6;
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_FRICTION, 1, F);
  t.A[0] = 1;
  t.A[1] = -1;
  t.A[2] = -1;
  t.A[3] = 1;
  t.v0[0] = t.v0[1] = -1;
  for (int warm = 1; warm >= 0; warm--) {
    double f[2] = {F + 0.5, F - 0.25}, w[2];
    imp_csolver_stat s = run_ccp(&t, f, 20000, 1e-14, warm);
    ck_assert_msg(s.exit == IMP_EXIT_CONVERGED, "%s: exit %d after %d iterations",
                  warm ? "warm" : "cold", s.exit, s.iterations);
    imp_assert_near(f[1], F, 0);
    velocity(&t, f, w);
    /* the stopping test is relative to ||f|| = 1.4e6 */
    imp_assert_near(w[0], 0, 1e-14 * 2 * F);
    imp_assert_near(w[1], -2, 1e-14 * 2 * F);
    printf("ccp dry friction bound 1e6 (%s): converged in %d iterations, w = (%.1e, %.6f)\n",
           warm ? "warm" : "cold", s.iterations, w[0], w[1]);
  }
}
END_TEST

START_TEST(test_warm_start_and_maxiter) {
  const double u[6] = {0.7, -0.4, -0.2, 0.1, 0, 0.5};
  tprob t;
  tp_box_on_plane(&t, 0.3, 0.2, 0.25, 1.0, 1.0, u, 1, NULL);
  double f[12];
  imp_csolver_stat cold = run_ccp(&t, f, 20000, 1e-10, 0);
  ck_assert_int_eq(cold.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_gt(cold.iterations, 3);
  /* from its own answer: converged before any iteration */
  int calls = -1;
  imp_csolver_stat warm = tp_solve(&imp_solver_ccp, &t, f, 20000, 1e-10, 1, &calls);
  ck_assert_int_eq(warm.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(warm.iterations, 0);
  ck_assert_int_eq(calls, 0);
  /* a budget too small says so */
  imp_csolver_stat few = run_ccp(&t, f, 3, 1e-10, 0);
  ck_assert_int_eq(few.exit, IMP_EXIT_MAXITER);
  ck_assert_int_eq(few.iterations, 3);
  ck_assert(few.residual > 1e-10);
  for (int i = 0; i < 12; i++) ck_assert(isfinite(f[i]));
  printf("ccp tumbling box: %d iterations cold, 0 warm\n", cold.iterations);
}
END_TEST

START_TEST(test_registry_entry) {
  int i = imp_solver_find("ccp");
  ck_assert_int_ge(i, 2); /* after todorov and pgs */
  ck_assert_ptr_eq(imp_solver_get(i), &imp_solver_ccp);
  ck_assert_uint_eq(imp_solver_ccp.work_size(10, 3), 70 * sizeof(double));
}
END_TEST

static Suite* ccp_suite(void) {
  Suite* s = suite_create("solver_ccp");
  TCase* tc = tcase_create("ccp");
  tcase_add_test(tc, test_sticking_contact);
  tcase_add_test(tc, test_sliding_contact_lifts_off);
  tcase_add_test(tc, test_box_sliding_lifts_off);
  tcase_add_test(tc, test_equality_and_limits);
  tcase_add_test(tc, test_frictionless_cone);
  tcase_add_test(tc, test_unbounded_dual_diverges);
  tcase_add_test(tc, test_dry_friction_one_dof);
  tcase_add_test(tc, test_dry_friction_bound_is_not_a_ray);
  tcase_add_test(tc, test_warm_start_and_maxiter);
  tcase_add_test(tc, test_registry_entry);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(ccp_suite()); }
