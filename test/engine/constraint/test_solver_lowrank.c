/* Todorov's solver through A's factor (todorov_lowrank.c): a problem that
 * carries A = U U' and has many rows per column of U is solved in the
 * joint-space model; its answers must be the dense model's. The scenes are
 * a rigid body (6 dofs) on many contact points, the redundant case the
 * model is for (a gripper's pads, a box on a grid of points). */
#include "test_cproblem.h"

#include "constraint/solvers/todorov_impl.h" /* imp_tod_lr_applies */

/* A body of mass 2 and inertia diag(0.1, 0.2, 0.3) on npt points of the
   plane z = 0 at (x_i, y_i), each a condim-3 contact with friction mu
   (normal z, tangents x and y): K's rows for point p are [e, p x e] for e
   in (z, x, y); U = K M^-1/2. The body moves with velocity u (linear,
   angular); v0 = K u. */
typedef struct body_scene {
  tprob t;
  double U[MAXN * 6]; /* by columns, n each */
  double ones[MAXN];
} body_scene;

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void make_scene_dim(body_scene* s, int npt, int dim, double mu, const double u[6],
                           unsigned seed) {
  memset(s, 0, sizeof *s);
  const double minv_sqrt[6] = {1 / sqrt(2.0), 1 / sqrt(2.0), 1 / sqrt(2.0),
                               1 / sqrt(0.1), 1 / sqrt(0.2), 1 / sqrt(0.3)};
  const double axes[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  srand(seed);
  for (int i = 0; i < npt; i++) {
    add_block(&s->t, IMP_CNSTR_CONTACT, dim, mu);
    double p[3] = {-0.5 + (double)rand() / RAND_MAX, -0.5 + (double)rand() / RAND_MAX, -0.2};
    for (int a = 0; a < dim; a++) {
      int row = dim * i + a;
      double K[6], pxe[3];
      cross(p, axes[a], pxe);
      for (int c = 0; c < 3; c++) K[c] = axes[a][c], K[3 + c] = pxe[c];
      double v = 0;
      for (int c = 0; c < 6; c++) {
        s->U[c * MAXN + row] = K[c] * minv_sqrt[c];
        v += K[c] * u[c];
      }
      s->t.v0[row] = v;
    }
  }
  int n = s->t.n;
  for (int i = 0; i < n; i++) {
    s->ones[i] = 1;
    for (int j = 0; j < n; j++) {
      double sum = 0;
      for (int c = 0; c < 6; c++) sum += s->U[c * MAXN + i] * s->U[c * MAXN + j];
      s->t.A[i * n + j] = sum;
    }
  }
}

static void make_scene(body_scene* s, int npt, double mu, const double u[6], unsigned seed) {
  make_scene_dim(s, npt, 3, mu, u, seed);
}

/* solve with or without the factor; the relative common residual */
static double solve_scene(const body_scene* s, int with_factor, double* f, int* iters) {
  imp_cproblem p = view(&s->t);
  if (with_factor) {
    p.U = s->U, p.rank = 6, p.U_ld = MAXN;
    p.U_rowscale = s->ones, p.U_colweight = s->ones;
  }
  imp_csolver_opt o = {200, 1e-10, 0, NULL, NULL, 0};
  imp_csolver_stat st;
  size_t bytes = imp_solver_todorov.work_size(p.n, p.nblock);
  void* work = aligned_alloc(16, (bytes + 15) / 16 * 16);
  memset(work, 0xff, bytes);
  imp_solver_todorov.solve(&p, &o, f, &st, work);
  free(work);
  double rel = 0, scratch[2 * MAXN];
  imp_cresidual(&p, f, &rel, scratch);
  *iters = st.iterations;
  return rel;
}

/* the velocities A f + v0 */
static void velocities(const tprob* t, const double* f, double* v) {
  for (int i = 0; i < t->n; i++) {
    double sum = t->v0[i];
    for (int j = 0; j < t->n; j++) sum += t->A[i * t->n + j] * f[j];
    v[i] = sum;
  }
}

static void check_same_answer_dim(int npt, int dim, double mu, const double u[6],
                                  unsigned seed) {
  static body_scene s;
  make_scene_dim(&s, npt, dim, mu, u, seed);
  imp_cproblem p = view(&s.t);
  p.U = s.U, p.rank = 6, p.U_ld = MAXN, p.U_rowscale = s.ones, p.U_colweight = s.ones;
  ck_assert(imp_tod_lr_applies(&p)); /* the factor is used */
  double fd[MAXN], fl[MAXN], vd[MAXN], vl[MAXN];
  int itd, itl;
  double rd = solve_scene(&s, 0, fd, &itd), rl = solve_scene(&s, 1, fl, &itl);
  ck_assert_msg(rd <= 1e-6, "dense: relative residual %g (npt %d, mu %g)", rd, npt, mu);
  ck_assert_msg(rl <= 1e-6, "factor: relative residual %g (npt %d, mu %g, %d iterations)", rl,
                npt, mu, itl);
  velocities(&s.t, fd, vd);
  velocities(&s.t, fl, vl);
  double vmax = 0, diff = 0;
  for (int i = 0; i < s.t.n; i++) {
    vmax = fmax(vmax, fabs(vd[i]));
    diff = fmax(diff, fabs(vd[i] - vl[i]));
  }
  /* the contact velocities are unique (the body's motion is) though the
     impulses of redundant contacts are not */
  ck_assert_msg(diff <= 1e-6 * fmax(vmax, 1), "velocities differ by %g (max %g)", diff, vmax);
}

static void check_same_answer(int npt, double mu, const double u[6], unsigned seed) {
  check_same_answer_dim(npt, 3, mu, u, seed);
}

START_TEST(frictionless_points) {
  /* one row a block, as many blocks as rows: the most blocks a problem of
     n rows can have (their factors' scratch), at the smallest n used */
  const double u[6] = {0.2, -0.1, -0.3, 1.5, -0.8, 0.4};
  for (int npt = 36; npt <= 44; npt += 4) check_same_answer_dim(npt, 1, 0, u, (unsigned)npt);
}
END_TEST

START_TEST(pressed_body_sticks) {
  /* pressed down and pushed slowly sideways: sticks on every point */
  const double u[6] = {0.01, -0.02, -1, 0.05, 0.02, 0.01};
  for (unsigned seed = 1; seed <= 3; seed++) check_same_answer(16, 1.0, u, seed);
}
END_TEST

START_TEST(rocking_body_mixes) {
  /* pressed down while tipping: some points lift, some stick, some slide */
  const double u[6] = {0.2, -0.1, -0.3, 1.5, -0.8, 0.4};
  for (unsigned seed = 1; seed <= 5; seed++) check_same_answer(16, 0.8, u, seed);
  for (unsigned seed = 6; seed <= 8; seed++) check_same_answer(21, 0.3, u, seed);
}
END_TEST

START_TEST(pressed_body_slides) {
  /* pushed sideways hard with little friction: slides */
  const double u[6] = {2, 1, -0.5, 0.1, -0.2, 0.3};
  for (unsigned seed = 1; seed <= 5; seed++) check_same_answer(16, 0.2, u, seed);
  for (unsigned seed = 6; seed <= 8; seed++) check_same_answer(21, 0.5, u, seed);
}
END_TEST

START_TEST(lifting_body_breaks) {
  /* moving away: every contact breaks, f = 0 */
  const double u[6] = {0.3, 0, 1, 0, 0, 0.2};
  check_same_answer(16, 0.7, u, 3);
}
END_TEST

START_TEST(small_problems_stay_dense) {
  static body_scene s;
  const double u[6] = {0, 0, -1, 0, 0, 0};
  make_scene(&s, 8, 0.5, u, 1); /* 24 rows: below LOWRANK_MIN_ROWS */
  imp_cproblem p = view(&s.t);
  p.U = s.U, p.rank = 6, p.U_ld = MAXN, p.U_rowscale = s.ones, p.U_colweight = s.ones;
  ck_assert(!imp_tod_lr_applies(&p));
}
END_TEST

int main(void) {
  Suite* su = suite_create("solver_lowrank");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, pressed_body_sticks);
  tcase_add_test(tc, rocking_body_mixes);
  tcase_add_test(tc, frictionless_points);
  tcase_add_test(tc, pressed_body_slides);
  tcase_add_test(tc, lifting_body_breaks);
  tcase_add_test(tc, small_problems_stay_dense);
  suite_add_tcase(su, tc);
  SRunner* sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
