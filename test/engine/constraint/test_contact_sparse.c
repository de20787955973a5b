/* Tests of large sparse islands (contact_sparse.c, contact_sparse.h): a
 * product over A's pattern is the same bits as the dense one, and so is pgs
 * with the pattern; the sweeps converge on a pile whose impulses have a
 * closed form (columns of particles: each contact carries the weight above
 * it), stop within the work they are allowed, and are chosen only where the
 * dense solver would get its least iterations; in the stage, 300 particles
 * in columns under a plate (one island of 400 rows) are solved converged,
 * at rest and with Lemke's velocities, with a small part of one dense
 * iteration's work, the same on 1 and 2 threads. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "constraint/contact_budget.h"
#include "constraint/contact_sparse.h"
#include "core/mathx.h"
#include "test_util.h"

/* ---- columns of particles, as an island problem ----
   ncol columns of height h side by side along x, unit masses, 3 slide dofs
   each; contacts (frictionless, dim 1): each bottom particle on the floor,
   each particle on the one below, each particle against its neighbour in
   the next column (normal along x). A = J M^-1 J' with M = I; v0 = J u
   with u the free velocity, gravity's g h down; b = 0. The answer: a
   contact under k particles carries k g h, the side contacts nothing. */
typedef struct pile {
  int n, nb, ncol, h;
  double *A, *v0, *b, *mu;
  int *adr, *dim, *type;
  int* expect_k; /* particles carried by row i, -1 for a side contact */
} pile;

#define GRAV_H 0.02 /* g h: 9.81 x 0.002, rounded */

static int particle(int c, int k, int h) { return c * h + k; }

static void pile_make(pile* p, int ncol, int h) {
  int np = ncol * h, n = ncol /* floor */ + ncol * (h - 1) /* stacked */ + (ncol - 1) * h /* side */;
  p->n = n, p->nb = n, p->ncol = ncol, p->h = h;
  double* J = calloc((size_t)n * 3 * np, sizeof *J);
  p->A = calloc((size_t)n * n, sizeof *p->A);
  p->v0 = calloc(n, sizeof *p->v0);
  p->b = calloc(n, sizeof *p->b);
  p->mu = calloc(n, sizeof *p->mu);
  p->adr = calloc(n, sizeof *p->adr);
  p->dim = calloc(n, sizeof *p->dim);
  p->type = calloc(n, sizeof *p->type);
  p->expect_k = calloc(n, sizeof *p->expect_k);
  int r = 0;
  for (int c = 0; c < ncol; c++) { /* floor: normal +z on the bottom particle */
    J[(size_t)r * 3 * np + 3 * particle(c, 0, h) + 2] = 1;
    p->expect_k[r++] = h;
  }
  for (int c = 0; c < ncol; c++)
    for (int k = 1; k < h; k++) { /* particle k on k - 1: +z on k, -z on k - 1 */
      J[(size_t)r * 3 * np + 3 * particle(c, k, h) + 2] = 1;
      J[(size_t)r * 3 * np + 3 * particle(c, k - 1, h) + 2] = -1;
      p->expect_k[r++] = h - k;
    }
  for (int c = 0; c + 1 < ncol; c++)
    for (int k = 0; k < h; k++) { /* side: +x on column c + 1, -x on c */
      J[(size_t)r * 3 * np + 3 * particle(c + 1, k, h)] = 1;
      J[(size_t)r * 3 * np + 3 * particle(c, k, h)] = -1;
      p->expect_k[r++] = -1;
    }
  for (int i = 0; i < n; i++) {
    p->adr[i] = i, p->dim[i] = 1, p->type[i] = IMP_CNSTR_CONTACT;
    for (int j = 0; j < n; j++)
      p->A[(size_t)i * n + j] = imp_dot(J + (size_t)i * 3 * np, J + (size_t)j * 3 * np, 3 * np);
    double v = 0;
    for (int q = 0; q < np; q++) v += J[(size_t)i * 3 * np + 3 * q + 2] * -GRAV_H;
    p->v0[i] = v;
  }
  free(J);
}

static imp_cproblem pile_view(const pile* p) {
  imp_cproblem q = {p->n, p->nb, p->adr, p->dim, p->type, p->mu, p->A, p->v0, p->b, 0.002,
                    NULL, 0, 0, NULL, NULL, GRAV_H, NULL, NULL};
  return q;
}

static void pile_free(pile* p) {
  free(p->A), free(p->v0), free(p->b), free(p->mu);
  free(p->adr), free(p->dim), free(p->type), free(p->expect_k);
}

/* the pattern's scratch for n rows */
typedef struct pattern_mem {
  imp_guard_pattern pat;
} pattern_mem;

static void pattern_alloc(pattern_mem* pm, int n) {
  pm->pat.adr = calloc((size_t)n + 1, sizeof(int));
  pm->pat.cap = (long long)n * n / 4;
  pm->pat.col = calloc((size_t)pm->pat.cap, sizeof(int));
}

static void pattern_release(pattern_mem* pm) { free(pm->pat.adr), free(pm->pat.col); }

/* a pile's problem with its pattern attached; *nnz its nonzeros */
static imp_cproblem pile_attached(pile* p, pattern_mem* pm, int ncol, int h, long long* nnz) {
  pile_make(p, ncol, h);
  imp_cproblem q = pile_view(p);
  pattern_alloc(pm, p->n);
  *nnz = imp_sparse_attach(&q, &pm->pat);
  return q;
}

START_TEST(test_row_times_same_bits) {
  pile p;
  pattern_mem pm;
  long long nnz;
  imp_cproblem q = pile_attached(&p, &pm, 20, 8, &nnz);
  ck_assert_int_ge(p.n, IMP_SPARSE_MIN_ROWS);
  ck_assert_msg(nnz > 0 && nnz < (long long)p.n * p.n / 20, "nnz %lld of %d^2", nnz, p.n);
  ck_assert_ptr_nonnull(q.A_rowadr);
  double* v = malloc(p.n * sizeof *v);
  srand(7);
  for (int i = 0; i < p.n; i++) v[i] = (double)rand() / RAND_MAX - 0.5;
  for (int i = 0; i < p.n; i++) {
    double dense = imp_dot(p.A + (size_t)i * p.n, v, p.n), sparse = imp_cproblem_row_times(&q, i, v);
    ck_assert_msg(memcmp(&dense, &sparse, sizeof dense) == 0, "row %d: %.17g vs %.17g", i, dense,
                  sparse);
  }
  /* a small island gets no pattern: below IMP_SPARSE_MIN_ROWS it does not pay */
  pile small;
  pile_make(&small, 4, 4);
  imp_cproblem qs = pile_view(&small);
  ck_assert_int_lt(small.n, IMP_SPARSE_MIN_ROWS);
  ck_assert_int_eq(imp_sparse_attach(&qs, &pm.pat), 0);
  ck_assert_ptr_null(qs.A_rowadr);
  free(v);
  pile_free(&small);
  pattern_release(&pm);
  pile_free(&p);
}
END_TEST

START_TEST(test_pgs_same_bits_with_pattern) {
  pile p;
  pile_make(&p, 16, 10);
  imp_cproblem dense = pile_view(&p), sparse = dense;
  pattern_mem pm;
  pattern_alloc(&pm, p.n);
  ck_assert(imp_sparse_attach(&sparse, &pm.pat) > 0);
  double* f1 = calloc(p.n, sizeof *f1);
  double* f2 = calloc(p.n, sizeof *f2);
  imp_csolver_opt o = {60, 0.0, 0, NULL, NULL, 0};
  imp_csolver_stat s1, s2;
  imp_solver_pgs.solve(&dense, &o, f1, &s1, NULL);
  imp_solver_pgs.solve(&sparse, &o, f2, &s2, NULL);
  ck_assert_int_eq(s1.iterations, 60);
  ck_assert_int_eq(s2.iterations, 60);
  ck_assert(memcmp(f1, f2, p.n * sizeof *f1) == 0);
  ck_assert(memcmp(&s1.residual, &s2.residual, sizeof s1.residual) == 0);
  /* the work of a sweep over the pattern is its nonzeros and rows, of a
     dense sweep n^2 */
  long long nnz = sparse.A_rowadr[p.n];
  ck_assert_double_eq(imp_iteration_work(&imp_solver_pgs, p.n, nnz), (double)nnz + IMP_SWEEP_ROW_WORK * p.n);
  ck_assert_double_eq(imp_iteration_work(&imp_solver_pgs, p.n, 0), (double)p.n * p.n);
  ck_assert_double_eq(imp_iteration_work(&imp_solver_todorov, p.n, nnz),
                      (double)p.n * p.n * p.n);
  free(f1), free(f2);
  pattern_release(&pm);
  pile_free(&p);
}
END_TEST

START_TEST(test_sweeps_meet_closed_form) {
  pile p;
  pattern_mem pm;
  long long nnz;
  imp_cproblem q = pile_attached(&p, &pm, 30, 10, &nnz); /* 30 + 270 + 290 = 590 rows */
  ck_assert(nnz > 0);
  ck_assert(imp_sparse_sweeps_first(&imp_solver_todorov, &q, 100));
  int n = p.n;
  double *g = calloc(n, sizeof *g), *best = calloc(n, sizeof *best), *vel = calloc(n, sizeof *vel);
  double* res = calloc(4 * n, sizeof *res);
  double done;
  int cut;
  const double tol = 1e-10;
  imp_csolver_stat st =
      imp_sparse_sweeps(&q, tol, 0, IMP_SOLVE_WORK_MAX, g, best, vel, res, &done, &cut);
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(cut, 0);
  ck_assert(done <= IMP_SOLVE_WORK_MAX);
  double rel;
  imp_cresidual(&q, g, &rel, res);
  ck_assert_msg(rel <= tol, "common residual %g", rel);
  ck_assert(fabs(rel - st.residual) <= 1e-3 * tol + 1e-300 || rel <= st.residual);
  /* the closed form: a contact under k particles carries k g h */
  double err = 0;
  for (int i = 0; i < n; i++) {
    double want = p.expect_k[i] < 0 ? 0 : p.expect_k[i] * GRAV_H;
    err = fmax(err, fabs(g[i] - want));
  }
  ck_assert_msg(err <= 1e-7 * p.h * GRAV_H, "largest impulse error %g", err);
  free(g), free(best), free(vel), free(res);
  pattern_release(&pm);
  pile_free(&p);
}
END_TEST

START_TEST(test_sweeps_stop_within_their_work) {
  pile p;
  pattern_mem pm;
  long long nnz;
  imp_cproblem q = pile_attached(&p, &pm, 30, 10, &nnz);
  int n = p.n;
  double *g = calloc(n, sizeof *g), *best = calloc(n, sizeof *best), *vel = calloc(n, sizeof *vel);
  double* res = calloc(4 * n, sizeof *res);
  double done;
  int cut;
  /* room for 35 sweeps and their measures: far from 1e-10 */
  double allowed = 35 * ((double)nnz + IMP_SWEEP_ROW_WORK * n) * 1.1;
  imp_csolver_stat st = imp_sparse_sweeps(&q, 1e-10, 0, allowed, g, best, vel, res, &done, &cut);
  ck_assert_int_ne(st.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(cut, 1);
  ck_assert(done <= allowed);
  ck_assert_int_le(st.iterations, 35);
  /* the best iterate by the common residual is what g holds */
  double rel;
  imp_cresidual(&q, g, &rel, res);
  ck_assert(rel == st.residual);
  /* a tolerance no rate reaches ends them once a quarter of the work is
     spent (the rate), or once the residual stops falling at rounding */
  imp_zero(g, n);
  st = imp_sparse_sweeps(&q, 1e-300, 0, IMP_SOLVE_WORK_MAX, g, best, vel, res, &done, &cut);
  ck_assert_int_ne(st.exit, IMP_EXIT_CONVERGED);
  ck_assert_msg(done < 0.3 * IMP_SOLVE_WORK_MAX, "work %g", done);
  free(g), free(best), free(vel), free(res);
  pattern_release(&pm);
  pile_free(&p);
}
END_TEST

START_TEST(test_sweeps_chosen_where_dense_cannot_run) {
  pile big, mid;
  pile_make(&big, 30, 10); /* 590 rows */
  pile_make(&mid, 12, 8);  /* 12 + 84 + 88 = 184 rows: todorov gets 6 iterations */
  imp_cproblem qb = pile_view(&big), qm = pile_view(&mid);
  pattern_mem pb, pmid;
  pattern_alloc(&pb, big.n);
  pattern_alloc(&pmid, mid.n);
  /* without the pattern: never */
  ck_assert(!imp_sparse_sweeps_first(&imp_solver_todorov, &qb, 100));
  ck_assert(imp_sparse_attach(&qb, &pb.pat) > 0);
  ck_assert(imp_sparse_attach(&qm, &pmid.pat) > 0);
  ck_assert(imp_sparse_sweeps_first(&imp_solver_todorov, &qb, 100));
  ck_assert(!imp_sparse_sweeps_first(&imp_solver_todorov, &qm, 100));
  /* pgs sweeps anyway; relaxed and polyhedral solvers answer other laws;
     a file that asks for 2 iterations gets 2 */
  ck_assert(!imp_sparse_sweeps_first(&imp_solver_pgs, &qb, 100));
  ck_assert(!imp_sparse_sweeps_first(&imp_solver_ccp, &qb, 100));
  ck_assert(!imp_sparse_sweeps_first(&imp_solver_lemke, &qb, 100));
  ck_assert(!imp_sparse_sweeps_first(&imp_solver_todorov, &qb, IMP_SOLVE_MIN_ITER));
  pattern_release(&pb), pattern_release(&pmid);
  pile_free(&big), pile_free(&mid);
}
END_TEST

/* ---- the stage ---- */

/* ncol x ncol columns of nh particles (radius 0.05, three slide joints,
   condim 1), each 1e-5 into the one below, 2e-4 apart from the next
   column, under a plate of 1 kg on a slide joint that rests on every
   column: one island of ncol^2 (2 + nh) - ... rows (floor, stacked and
   plate contacts), with A sparse but for the plate's block */
static char* particle_pile_xml(int ncol, int nh) {
  size_t cap = 4096 + (size_t)ncol * ncol * nh * 400;
  char* xml = malloc(cap);
  size_t at = (size_t)snprintf(xml, cap,
                               "<mujoco><option timestep='0.002'/>"
                               "<size nconmax='4000' njmax='4000'/>"
                               "<default><geom condim='1'/></default><worldbody>"
                               "<geom type='plane' size='5 5 0.1'/>");
  for (int i = 0; i < ncol; i++)
    for (int j = 0; j < ncol; j++)
      for (int k = 0; k < nh; k++)
        at += (size_t)snprintf(xml + at, cap - at,
                               "<body pos='%.5f %.5f %.5f'>"
                               "<joint type='slide' axis='1 0 0'/><joint type='slide' axis='0 1 0'/>"
                               "<joint type='slide' axis='0 0 1'/>"
                               "<geom type='sphere' size='0.05' mass='0.01'/></body>",
                               i * 0.1002, j * 0.1002, 0.04999 + k * 0.09999);
  double mid = (ncol - 1) * 0.1002 / 2, top = 0.04999 + (nh - 1) * 0.09999 + 0.05 + 0.02 - 1e-5;
  snprintf(xml + at, cap - at,
           "<body pos='%.5f %.5f %.5f'><joint type='slide' axis='0 0 1'/>"
           "<geom type='box' size='%.3f %.3f 0.02' mass='1'/></body></worldbody></mujoco>",
           mid, mid, top, mid + 0.1, mid + 0.1);
  return xml;
}

static int largest_island(const imp_data* d) {
  int best = 0;
  for (int i = 0; i < d->nisland; i++) {
    int n = 0;
    for (int j = 0; j < d->island_blknum[i]; j++)
      n += d->blk_dim[d->island_blk[d->island_blkadr[i] + j]];
    if (n > best) best = n;
  }
  return best;
}

START_TEST(test_stage_solves_pile_by_sweeps) {
  char* xml = particle_pile_xml(10, 3); /* 300 particles, 400 rows */
  imp_model* m = imp_test_load_string(xml);
  free(xml);
  imp_data* d1 = imp_make_data(m);
  imp_data* d2 = imp_make_data(m);
  imp_data* dl = imp_make_data(m);
  ck_assert_int_eq(imp_set_threads(m, d2, 2), 0);
  ck_assert_int_eq(imp_set_solver(m, dl, "lemke"), 0);
  long iterations = 0;
  for (int s = 0; s < 20; s++) {
    imp_step(m, d1);
    iterations += d1->solver_iter;
    imp_step(m, d2);
    imp_step(m, dl);
    double n = largest_island(d1);
    ck_assert_msg(n >= 400, "step %d: largest island %g rows", s, n);
    ck_assert_msg(d1->solver_exit == IMP_EXIT_CONVERGED, "step %d: exit %d, residual %g", s,
                  d1->solver_exit, d1->solver_residual);
    /* a twentieth of one dense iteration (n^3) at most */
    ck_assert_msg(d1->solver_work < 0.05 * n * n * n, "step %d: work %g for %g rows", s,
                  d1->solver_work, n);
    ck_assert(memcmp(d1->qpos, d2->qpos, m->nq * sizeof *d1->qpos) == 0);
    ck_assert(memcmp(d1->qvel, d2->qvel, m->nv * sizeof *d1->qvel) == 0);
  }
  /* swept: one todorov iteration would cost n^3, none would leave the
     island as it started */
  ck_assert_msg(iterations >= 20 * 10, "%ld iterations", iterations);
  /* at rest: the velocities of the exact LCP (Lemke's pivots: the
     frictionless problem's velocities are unique), and slow */
  double vmax = 0, dv = 0;
  for (int i = 0; i < m->nv; i++) {
    vmax = fmax(vmax, fabs(d1->qvel[i]));
    dv = fmax(dv, fabs(d1->qvel[i] - dl->qvel[i]));
  }
  ck_assert_msg(vmax < 0.005, "fastest dof %g m/s", vmax);
  ck_assert_msg(dv < 1e-6, "velocities %g m/s from Lemke's", dv);
  imp_free_data(d1);
  imp_free_data(d2);
  imp_free_data(dl);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("contact_sparse");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_row_times_same_bits);
  tcase_add_test(tc, test_pgs_same_bits_with_pattern);
  tcase_add_test(tc, test_sweeps_meet_closed_form);
  tcase_add_test(tc, test_sweeps_stop_within_their_work);
  tcase_add_test(tc, test_sweeps_chosen_where_dense_cannot_run);
  tcase_add_test(tc, test_stage_solves_pile_by_sweeps);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
