/* Tests of the contact stage's guards (contact_guard.c) that act on the
 * problem before a solve: imp_guard_start_new_rows gives the unilateral
 * rows a warm start has no impulse for (contacts new this step) the
 * projected Gauss-Seidel update of their row, in block order, and leaves
 * every other impulse, and every impulse given to pgs, as it was;
 * imp_guard_contact_targets_held sets the targets an unfinished solve is
 * retried with. */
#include <check.h>
#include <math.h>

#include "constraint/contact.h"
#include "constraint/contact_guard.h"
#include "test_cproblem.h"
#include "test_util.h"

/* A = L L' + I for a fixed lower-triangular L: symmetric positive definite,
   every row coupled to every other, as in a pile's island */
static void set_coupled(tprob* t) {
  int n = t->n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double sum = i == j ? 1.0 : 0.0;
      for (int k = 0; k <= (i < j ? i : j); k++)
        sum += (0.3 + 0.1 * ((i + 2 * k) % 5)) * (0.3 + 0.1 * ((j + 2 * k) % 5));
      t->A[i * n + j] = sum;
    }
}

static double row_velocity(const tprob* t, const double* g, int i) {
  double v = t->v0[i] - t->b[i];
  for (int j = 0; j < t->n; j++) v += t->A[i * t->n + j] * g[j];
  return v;
}

/* a contact carried from last step (impulse loaded), a new contact pressed
   in (v0 < b on its normal), a new contact moving apart, a new limit and
   an equality: rows 0-2, 3-5, 6-8, 9, 10 */
static tprob mixed_island(void) {
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.8);
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.8);
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.8);
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  set_coupled(&t);
  double v0[11] = {-0.2, 0.05, 0.0, -1.5, 0.3, -0.1, 4.0, 0.2, 0.1, -3.0, 0.4};
  double b[11] = {0.01, 0, 0, 0.02, 0, 0, -0.5, 0, 0, 0.0, -0.1};
  memcpy(t.v0, v0, sizeof v0);
  memcpy(t.b, b, sizeof b);
  return t;
}

START_TEST(test_new_rows_meet_their_own_law) {
  tprob t = mixed_island();
  imp_cproblem p = view(&t);
  double g[11] = {0.6, -0.1, 0.2, 0, 0, 0, 0, 0, 0, 0, 0.05}, g0[11];
  memcpy(g0, g, sizeof g);
  imp_guard_start_new_rows(&imp_solver_todorov, &p, g);
  /* the carried contact and the equality keep their warm impulses bitwise */
  for (int i = 0; i < 3; i++) ck_assert(g[i] == g0[i]);
  ck_assert(g[10] == g0[10]);
  /* the pressed contact's normal: its row's Gauss-Seidel update from the
     warm start, so its row meets its target with the impulses before it;
     friction stays 0 */
  ck_assert(g[3] > 0);
  double g9 = g[9], w3;
  g[9] = 0; /* the limit's update comes after */
  w3 = row_velocity(&t, g, 3);
  g[9] = g9;
  ck_assert_msg(fabs(w3) <= 1e-14, "w_3 = %g", w3);
  ck_assert(g[4] == 0 && g[5] == 0);
  /* the contact moving apart stays unloaded (its update is clamped at 0) */
  ck_assert(g[6] == 0 && g[7] == 0 && g[8] == 0);
  /* the limit is updated after the new contact, seeing its impulse */
  double w9 = row_velocity(&t, g, 9);
  ck_assert(g[9] > 0);
  ck_assert_msg(fabs(w9) <= 1e-14, "w_9 = %g", w9);
}
END_TEST

START_TEST(test_block_with_friction_impulse_is_carried) {
  /* a block whose friction rows carry impulse is not new, even at f_N = 0 */
  tprob t = mixed_island();
  imp_cproblem p = view(&t);
  double g[11] = {0.6, -0.1, 0.2, 0, 0.1, 0, 0, 0, 0, 0, 0.05};
  imp_guard_start_new_rows(&imp_solver_todorov, &p, g);
  ck_assert(g[3] == 0 && g[4] == 0.1 && g[5] == 0);
}
END_TEST

START_TEST(test_pgs_and_other_laws_untouched) {
  /* pgs does the same update itself; solvers of another law keep theirs */
  tprob t = mixed_island();
  imp_cproblem p = view(&t);
  const imp_csolver* untouched[] = {&imp_solver_pgs, &imp_solver_ccp};
  for (size_t s = 0; s < sizeof untouched / sizeof untouched[0]; s++) {
    double g[11] = {0.6, -0.1, 0.2, 0, 0, 0, 0, 0, 0, 0, 0.05}, g0[11];
    memcpy(g0, g, sizeof g);
    imp_guard_start_new_rows(untouched[s], &p, g);
    for (int i = 0; i < 11; i++) ck_assert(g[i] == g0[i]);
  }
}
END_TEST

/* The retry's targets (imp_guard_contact_targets_held): with within at
   the slop, only the normal of the contact at rest loses its target; with
   INFINITY, every contact normal's (depth or gap) does; friction rows,
   limits and equalities keep theirs; a problem without contact targets is
   left as it was (0 returned). */
START_TEST(test_contact_targets_held) {
  tprob t = mixed_island();
  imp_cproblem p = view(&t);
  double pos[11] = {-5e-7, 0, 0, -0.01, 0, 0, 0.05, 0, 0, -0.2, 0.1};
  int rows[11];
  for (int i = 0; i < 11; i++) rows[i] = i;
  imp_data d = {0};
  d.efc_pos = pos;
  double held[11];
  ck_assert_int_eq(imp_guard_contact_targets_held(&d, rows, &p, IMP_CONTACT_SLOP, held), 1);
  for (int i = 0; i < 11; i++) ck_assert(held[i] == (i == 0 ? 0 : t.b[i]));
  ck_assert_int_eq(imp_guard_contact_targets_held(&d, rows, &p, INFINITY, held), 1);
  for (int i = 0; i < 11; i++) ck_assert(held[i] == (i == 0 || i == 3 || i == 6 ? 0 : t.b[i]));
  t.b[0] = t.b[3] = t.b[6] = 0;
  p = view(&t);
  ck_assert_int_eq(imp_guard_contact_targets_held(&d, rows, &p, INFINITY, held), 0);
  for (int i = 0; i < 11; i++) ck_assert(held[i] == t.b[i]);
}
END_TEST

/* one contact (A = I, mu = 0.5) with free velocity v0 */
static tprob one_contact(double vn, double vt) {
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
  for (int i = 0; i < 3; i++) t.A[i * 3 + i] = 1;
  t.v0[0] = vn;
  t.v0[1] = vt;
  return t;
}

/* When the primal rescue may answer (imp_guard_primal_may_answer): after
   todorov stopped near a sticking answer, yes; at the exact answer of a
   sliding contact (f = (1, -0.5, 0) for v0 = (-1, 2, 0): w_T = 1.5, which
   the relaxation would lift off), no; nor after a converged solve, nor
   after pgs or a relaxed solver, nor far from an answer. */
START_TEST(test_primal_rescue_only_without_sliding) {
  double work[3 * MAXN];
  imp_csolver_stat stalled = {100, 0, 1e-7, IMP_EXIT_STALLED};
  tprob stick = one_contact(-1, 0.2);
  imp_cproblem p = view(&stick);
  double near[3] = {1 + 1e-10, -0.2, 0}; /* the answer (1, -0.2, 0), slightly off */
  ck_assert_int_eq(imp_guard_primal_may_answer(&imp_solver_todorov, &p, stalled, near, 1e-8, work), 1);
  imp_csolver_stat done = stalled;
  done.exit = IMP_EXIT_CONVERGED;
  ck_assert_int_eq(imp_guard_primal_may_answer(&imp_solver_todorov, &p, done, near, 1e-8, work), 0);
  ck_assert_int_eq(imp_guard_primal_may_answer(&imp_solver_pgs, &p, stalled, near, 1e-8, work), 0);
  ck_assert_int_eq(imp_guard_primal_may_answer(&imp_solver_ccp, &p, stalled, near, 1e-8, work), 0);
  double far[3] = {0.5, 0, 0};
  ck_assert_int_eq(imp_guard_primal_may_answer(&imp_solver_todorov, &p, stalled, far, 1e-8, work), 0);
  tprob slide = one_contact(-1, 2);
  p = view(&slide);
  double sliding[3] = {1, -0.5, 0};
  double rel, w2[2 * MAXN];
  imp_cresidual(&p, sliding, &rel, w2);
  ck_assert_double_le(rel, 1e-15); /* the exact law's answer */
  ck_assert_int_eq(imp_guard_primal_may_answer(&imp_solver_todorov, &p, stalled, sliding, 1e-8, work), 0);
}
END_TEST

/* Which rescue answers are kept (imp_guard_primal_kept): a converged exact
   answer, yes; the same said unconverged, or with the common residual
   above the tolerance, no; and an answer whose impulses are so large that
   they set the residual's scale, with energy no correction justifies, no. */
START_TEST(test_primal_rescue_kept) {
  tprob t = one_contact(-1, 0.2);
  imp_cproblem p = view(&t);
  double work[6 * MAXN];
  int adr[MAXN + 1], col[MAXN * MAXN];
  imp_guard_pattern pat = {adr, col, MAXN * MAXN, IMP_PATTERN_UNKNOWN};
  imp_csolver_stat ok = {12, 0, 1e-10, IMP_EXIT_CONVERGED}, stalled = ok;
  stalled.exit = IMP_EXIT_STALLED;
  double answer[3] = {1, -0.2, 0}, off[3] = {1.001, -0.2, 0};
  ck_assert_int_eq(imp_guard_primal_kept(&p, ok, answer, 1e-8, 1.0, &pat, work), 1);
  ck_assert_int_eq(imp_guard_primal_kept(&p, stalled, answer, 1e-8, 1.0, &pat, work), 0);
  ck_assert_int_eq(imp_guard_primal_kept(&p, ok, off, 1e-8, 1.0, &pat, work), 0);
  /* one dof of unit mass at rest with two limits that conflict (J = [1;
     -1], A = [[1, -1], [-1, 1]], both asking v >= 1: no motion meets
     both): f = (F + 27, F) leaves the dof at 27 (w = (26, -28)), and with
     F = 1e12 the relative residual, whose scale F sets, is 4e-11; the
     energy it adds, 27^2 / 2, no correction of 1 justifies */
  tprob lim = {0};
  add_block(&lim, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&lim, IMP_CNSTR_LIMIT, 1, 0);
  lim.A[0] = lim.A[3] = 1;
  lim.A[1] = lim.A[2] = -1;
  lim.b[0] = lim.b[1] = 1;
  p = view(&lim);
  double huge[2] = {1e12 + 27, 1e12}, rel, w2[2 * MAXN];
  imp_cresidual(&p, huge, &rel, w2);
  ck_assert_double_le(rel, 1e-8);
  pat.state = IMP_PATTERN_UNKNOWN;
  ck_assert_int_eq(imp_guard_primal_kept(&p, ok, huge, 1e-8, 1.0, &pat, work), 0);
}
END_TEST

static Suite* contact_guard_suite(void) {
  Suite* s = suite_create("contact_guard");
  TCase* tc = tcase_create("new rows of a warm start");
  tcase_add_test(tc, test_new_rows_meet_their_own_law);
  tcase_add_test(tc, test_block_with_friction_impulse_is_carried);
  tcase_add_test(tc, test_pgs_and_other_laws_untouched);
  suite_add_tcase(s, tc);
  TCase* held = tcase_create("targets of a retry");
  tcase_add_test(held, test_contact_targets_held);
  suite_add_tcase(s, held);
  TCase* rescue = tcase_create("the primal rescue");
  tcase_add_test(rescue, test_primal_rescue_only_without_sliding);
  tcase_add_test(rescue, test_primal_rescue_kept);
  suite_add_tcase(s, rescue);
  return s;
}

int main(void) { return imp_test_run_suite(contact_guard_suite()); }
