/* Tests of the Siconos bridge (apps/compare/siconos_bridge.c), built only when
 * libsiconos-numerics-dev is found: single contacts with closed-form
 * answers solved by Siconos' NSGS, Alart-Curnier and Fischer-Burmeister
 * solvers through the bridge and by our todorov; the exact mapping of limits
 * and frictionless contacts onto 3D contacts with mu = 0; which problems are
 * refused; Siconos' per-iteration callback reaching our monitor; and a
 * problem recorded from models/box_rest.xml on which every answer meets the
 * common residual and carries the box's weight. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "compare/siconos_bridge.h"
#include "test_cproblem.h"
#include "test_util.h"

#define TOL 1e-10

/* Solve t with solver sv from a cold start; returns the relative common residual. */
static double solve_cold(const imp_csolver* sv, const tprob* t, double* f, imp_csolver_stat* st,
                         void (*monitor)(void*, int, const double*), void* ctx) {
  imp_cproblem p = view(t);
  size_t ws = sv->work_size(p.n, p.nblock) + 16;
  void* work = aligned_alloc(16, (ws + 15) / 16 * 16);
  ck_assert_ptr_nonnull(work);
  imp_csolver_opt o = {200, TOL, 0, monitor, ctx, 0};
  sv->solve(&p, &o, f, st, work);
  free(work);
  return relative_residual(t, f);
}

/* one contact, W = I, v0 = q (b = 0), friction mu */
static void unit_contact(tprob* t, double qn, double qt1, double qt2, double mu) {
  *t = (tprob){0};
  add_block(t, IMP_CNSTR_CONTACT, 3, mu);
  t->A[0] = t->A[4] = t->A[8] = 1;
  t->v0[0] = qn, t->v0[1] = qt1, t->v0[2] = qt2;
}

/* Every Siconos solver and todorov give the closed-form answer of t. */
static void assert_all_give(const tprob* t, const double* expect) {
  const imp_csolver* all[4] = {siconos_bridge_solver(0), siconos_bridge_solver(1),
                               siconos_bridge_solver(2), &imp_solver_todorov};
  for (int k = 0; k < 4; k++) {
    double f[MAXN];
    imp_csolver_stat st;
    double rel = solve_cold(all[k], t, f, &st, NULL, NULL);
    ck_assert_msg(st.exit == IMP_EXIT_CONVERGED, "%s: exit %d", all[k]->name, st.exit);
    ck_assert_msg(rel < 1e-9, "%s: residual %g", all[k]->name, rel);
    for (int i = 0; i < t->n; i++)
      ck_assert_msg(fabs(f[i] - expect[i]) < 1e-9, "%s: f[%d] = %.17g, expected %g",
                    all[k]->name, i, f[i], expect[i]);
  }
}

START_TEST(three_solvers_named) {
  ck_assert_int_eq(siconos_bridge_count(), 3);
  ck_assert_str_eq(siconos_bridge_solver(0)->name, "siconos_nsgs");
  ck_assert_str_eq(siconos_bridge_solver(1)->name, "siconos_ac");
  ck_assert_str_eq(siconos_bridge_solver(2)->name, "siconos_fb");
  ck_assert_ptr_null(siconos_bridge_solver(3));
}
END_TEST

/* W = I, q = (-1, 0, 0): the contact sticks, r = (1, 0, 0) stops it. */
START_TEST(sticking_contact_closed_form) {
  tprob t;
  unit_contact(&t, -1, 0, 0, 0.5);
  const double expect[3] = {1, 0, 0};
  assert_all_give(&t, expect);
}
END_TEST

/* W = I, q = (-1, 2, 0), mu = 0.5: r_N = 1 stops the approach, the
   tangential velocity 2 would need friction 2 > mu r_N, so it slides with
   r_T = -mu r_N (1, 0) = (-0.5, 0) and slip u_T = (1.5, 0) opposite r_T. */
START_TEST(sliding_contact_closed_form) {
  tprob t;
  unit_contact(&t, -1, 2, 0, 0.5);
  const double expect[3] = {1, -0.5, 0};
  assert_all_give(&t, expect);
}
END_TEST

/* The anisotropic sliding fixture of test_cproblem.h: f = (1, 0.3, 0.4). */
START_TEST(anisotropic_sliding_fixture) {
  tprob t;
  anisotropic_sliding_problem(&t);
  const double expect[3] = {1, 0.3, 0.4};
  assert_all_give(&t, expect);
}
END_TEST

/* A limit (A = 2, v0 = -1, b = 0.5: f = 0.75 makes v = 0.5 = b) and a
   frictionless contact (A = 1, v0 = 2: apart, f = 0) beside a sticking
   contact, coupled through A: the mapping onto mu = 0 contacts is exact, so
   Siconos meets our common residual on our problem and agrees with todorov. */
START_TEST(limit_and_frictionless_map_exactly) {
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&t, IMP_CNSTR_CONTACT, 1, 0);
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.8);
  double A[5][5] = {{2, 0, 0.3, 0.1, 0},
                    {0, 1, 0, 0, 0},
                    {0.3, 0, 1.5, 0, 0.2},
                    {0.1, 0, 0, 1, 0},
                    {0, 0, 0.2, 0, 1}};
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) t.A[i * 5 + j] = A[i][j];
  t.v0[0] = -1, t.v0[1] = 2, t.v0[2] = -1, t.v0[3] = 0.1, t.v0[4] = 0.05;
  t.b[0] = 0.5;
  imp_cproblem p = view(&t);
  ck_assert(siconos_bridge_accepts(&p));
  double ref[MAXN];
  imp_csolver_stat st;
  ck_assert_double_lt(solve_cold(&imp_solver_todorov, &t, ref, &st, NULL, NULL), 1e-12);
  imp_assert_near(ref[1], 0.0, 1e-12); /* the frictionless contact is apart */
  for (int k = 0; k < 3; k++) {
    double f[MAXN];
    double rel = solve_cold(siconos_bridge_solver(k), &t, f, &st, NULL, NULL);
    ck_assert_msg(rel < 1e-9, "%s: residual %g", siconos_bridge_solver(k)->name, rel);
    imp_assert_vec_near(f, ref, 5, 1e-8);
  }
}
END_TEST

/* Equalities (f free) and condim 4/6 have no 3D Siconos counterpart. */
START_TEST(other_blocks_refused) {
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
  add_block(&t, IMP_CNSTR_EQUALITY, 1, 0);
  for (int i = 0; i < t.n; i++) t.A[i * t.n + i] = 1;
  imp_cproblem p = view(&t);
  ck_assert(!siconos_bridge_accepts(&p));
  t = (tprob){0};
  add_block(&t, IMP_CNSTR_CONTACT, 4, 0.5);
  p = view(&t);
  ck_assert(!siconos_bridge_accepts(&p));
  t = (tprob){0};
  add_block(&t, IMP_CNSTR_CONTACT, 6, 0.5);
  p = view(&t);
  ck_assert(!siconos_bridge_accepts(&p));
  /* a refused problem returns zeros and says it failed, it does not crash */
  double f[MAXN];
  imp_csolver_stat st;
  solve_cold(siconos_bridge_solver(0), &t, f, &st, NULL, NULL);
  ck_assert_int_eq(st.exit, IMP_EXIT_FAILED);
  for (int i = 0; i < t.n; i++) ck_assert(f[i] == 0);
}
END_TEST

/* ---- a recorded box on the plane ---- */

typedef struct capture {
  tprob t;
  int have, skip;
} capture;

/* keep the problem of the skip-th call (one island: the box) */
static void capture_hook(void* ctx, const imp_cproblem* p, const double* warm) {
  capture* c = ctx;
  (void)warm;
  if (c->have || c->skip-- > 0 || p->n > MAXN) return;
  c->t = (tprob){.n = p->n, .nblock = p->nblock};
  memcpy(c->t.adr, p->blk_adr, sizeof(int) * (size_t)p->nblock);
  memcpy(c->t.dim, p->blk_dim, sizeof(int) * (size_t)p->nblock);
  memcpy(c->t.type, p->blk_type, sizeof(int) * (size_t)p->nblock);
  memcpy(c->t.mu, p->mu, sizeof(double) * (size_t)p->nblock);
  memcpy(c->t.A, p->A, sizeof(double) * (size_t)(p->n * p->n));
  memcpy(c->t.v0, p->v0, sizeof(double) * (size_t)p->n);
  memcpy(c->t.b, p->b, sizeof(double) * (size_t)p->n);
  c->have = 1;
}

typedef struct counter {
  int calls;
  double last_rel;
  const tprob* t;
} counter;

static void count_calls(void* ctx, int iter, const double* f) {
  counter* c = ctx;
  (void)iter;
  c->calls++;
  c->last_rel = relative_residual(c->t, f);
}

/* models/box_rest.xml, step 80 (settled: it sinks its first micron at
   the contact's rate 1/T): four corner contacts (12 rows of rank 6,
   A singular). Every Siconos solver meets the common residual, as todorov
   does, and the normal impulses carry the 1 kg box's weight over the step,
   m g h = 9.81 * 0.002 (resting: the box's velocity stays zero). Siconos'
   callback reaches our monitor once per reported iteration, and the last
   call sees the returned answer. */
START_TEST(recorded_box_rest_agrees) {
  imp_model* m = imp_test_load_model("box_rest.xml");
  imp_data* d = imp_make_data(m);
  capture c = {.skip = 80};
  imp_set_problem_hook(d, capture_hook, &c);
  for (int s = 0; s < 90; s++) imp_step(m, d);
  imp_set_problem_hook(d, NULL, NULL);
  ck_assert(c.have);
  ck_assert_int_eq(c.t.n, 12);
  imp_cproblem p = view(&c.t);
  ck_assert(siconos_bridge_accepts(&p));
  const double weight = 1.0 * 9.81 * m->opt.timestep;
  const imp_csolver* all[4] = {&imp_solver_todorov, siconos_bridge_solver(0),
                               siconos_bridge_solver(1), siconos_bridge_solver(2)};
  for (int k = 0; k < 4; k++) {
    double f[MAXN];
    imp_csolver_stat st;
    counter cnt = {0, INFINITY, &c.t};
    double rel = solve_cold(all[k], &c.t, f, &st, count_calls, &cnt);
    ck_assert_msg(rel < 1e-9, "%s: residual %g", all[k]->name, rel);
    double fn = 0;
    for (int b = 0; b < c.t.nblock; b++) fn += f[c.t.adr[b]];
    ck_assert_msg(fabs(fn - weight) < 1e-6 * weight, "%s: sum f_N = %.12g, m g h = %.12g",
                  all[k]->name, fn, weight);
    if (k > 0) {
      ck_assert_msg(cnt.calls == st.iterations && cnt.calls > 0, "%s: %d callbacks, %d iterations",
                    all[k]->name, cnt.calls, st.iterations);
      imp_assert_near(cnt.last_rel, rel, 1e-15);
      ck_assert_msg(st.residual <= TOL, "%s: own error %g", all[k]->name, st.residual);
    }
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("siconos_bridge");
  TCase* tc = tcase_create("bridge");
  tcase_add_test(tc, three_solvers_named);
  tcase_add_test(tc, sticking_contact_closed_form);
  tcase_add_test(tc, sliding_contact_closed_form);
  tcase_add_test(tc, anisotropic_sliding_fixture);
  tcase_add_test(tc, limit_and_frictionless_map_exactly);
  tcase_add_test(tc, other_blocks_refused);
  tcase_add_test(tc, recorded_box_rest_agrees);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(suite()); }
