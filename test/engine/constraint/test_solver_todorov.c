/* Tests of Todorov's solver (engine/constraint/solvers/todorov.c) on hand-made
 * contact-space problems with known answers: single contacts in closed form,
 * the ball stack of the paper's Fig. 6, a box on four corners (a singular
 * Delassus matrix), random problems of every block type checked against the
 * conditions of contact.h, warm starts, and degenerate input. The checks of
 * the conditions are written here (not imp_cresidual). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "cproblem_file.h"
#include "constraint/solvers/todorov_impl.h"
#include "test_util.h"

#define MAXN 160
#define MAXB 80
#define G 9.81
#define H 0.005

/* a problem with its own storage */
typedef struct prob {
  imp_cproblem p;
  int adr[MAXB], dim[MAXB], type[MAXB];
  double mu[MAXB];
  double A[MAXN * MAXN], v0[MAXN], b[MAXN];
} prob;

static void prob_init(prob* q) {
  memset(q, 0, sizeof *q);
  q->p.blk_adr = q->adr;
  q->p.blk_dim = q->dim;
  q->p.blk_type = q->type;
  q->p.mu = q->mu;
  q->p.A = q->A;
  q->p.v0 = q->v0;
  q->p.b = q->b;
  q->p.h = H;
}

static void add_block(prob* q, int type, int dim, double mu) {
  int k = q->p.nblock++;
  q->adr[k] = q->p.n;
  q->dim[k] = dim;
  q->type[k] = type;
  q->mu[k] = mu;
  q->p.n += dim;
}

/* A = K M^-1 K' and v0 = K u0 from K (n x nv), the diagonal of M and u0 */
static void from_dynamics(prob* q, const double* K, int nv, const double* Mdiag, const double* u0) {
  int n = q->p.n;
  for (int i = 0; i < n; i++) {
    q->v0[i] = 0;
    for (int a = 0; a < nv; a++) q->v0[i] += K[i * nv + a] * u0[a];
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int a = 0; a < nv; a++) s += K[i * nv + a] * K[j * nv + a] / Mdiag[a];
      q->A[i * n + j] = s;
    }
  }
}

static void* g_work;

static imp_csolver_stat run(prob* q, double* f, double tol, int maxiter, int warm) {
  imp_csolver_opt o = {.maxiter = maxiter, .tol = tol, .warmstart = warm};
  imp_csolver_stat st;
  size_t bytes = imp_solver_todorov.work_size(q->p.n, q->p.nblock);
  g_work = realloc(g_work, bytes);
  ck_assert(g_work != NULL);
  if (!warm)
    for (int i = 0; i < q->p.n; i++) f[i] = NAN; /* undefined on entry */
  imp_solver_todorov.solve(&q->p, &o, f, &st, g_work);
  return st;
}

/* v = A f + v0 */
static void velocity(const prob* q, const double* f, double* v) {
  int n = q->p.n;
  for (int i = 0; i < n; i++) {
    v[i] = q->v0[i];
    for (int j = 0; j < n; j++) v[i] += q->A[i * n + j] * f[j];
  }
}

static double inf_norm(const double* v, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(v[i]));
  return e;
}

/* Check every condition of contact.h at f, velocities to eps_v:
   equality v = b; unilateral f >= 0, v >= b, f (v - b) = 0; cone
   ||f_T|| <= mu f_N (1 + 1e-9); stick v_T = 0 inside, v_T = -s f_T on the
   boundary. */
static void check_conditions(const prob* q, const double* f, double eps_v) {
  double v[MAXN];
  velocity(q, f, v);
  for (int k = 0; k < q->p.nblock; k++) {
    const double *fk = f + q->adr[k], *vk = v + q->adr[k], *bk = q->b + q->adr[k];
    int dim = q->dim[k];
    for (int j = 0; j < dim; j++) ck_assert_msg(isfinite(fk[j]), "block %d: f not finite", k);
    if (q->type[k] == IMP_CNSTR_EQUALITY) {
      for (int j = 0; j < dim; j++)
        ck_assert_msg(fabs(vk[j] - bk[j]) <= eps_v, "equality %d: v - b = %g", k, vk[j] - bk[j]);
      continue;
    }
    ck_assert_msg(fk[0] >= 0, "block %d: f_N = %g < 0", k, fk[0]);
    ck_assert_msg(vk[0] - bk[0] >= -eps_v, "block %d: v_N - b = %g", k, vk[0] - bk[0]);
    /* complementarity: an active contact has no separating velocity */
    if (fk[0] > 0)
      ck_assert_msg(fabs(vk[0] - bk[0]) <= eps_v, "block %d: f_N = %g with v_N - b = %g", k, fk[0],
                    vk[0] - bk[0]);
    if (dim == 1) continue;
    double ft = 0, vt = 0, mu = q->mu[k];
    for (int j = 1; j < dim; j++) ft += fk[j] * fk[j], vt += vk[j] * vk[j];
    ft = sqrt(ft), vt = sqrt(vt);
    ck_assert_msg(ft <= mu * fk[0] * (1 + 1e-9), "block %d: ||f_T|| = %.17g > mu f_N = %.17g", k,
                  ft, mu * fk[0]);
    if (ft < mu * fk[0] * (1 - 1e-6)) {
      ck_assert_msg(vt <= eps_v, "block %d sticks (%g < %g) but ||v_T|| = %g", k, ft, mu * fk[0], vt);
    } else if (ft > 0) {
      /* maximal dissipation: v_T = -(||v_T|| / ||f_T||) f_T */
      for (int j = 1; j < dim; j++)
        ck_assert_msg(fabs(vk[j] + vt / ft * fk[j]) <= eps_v, "block %d: v_T not opposite f_T", k);
    }
  }
}

/* the velocity scale of the stopping test */
static double problem_scale(const prob* q, const double* f) {
  double v[MAXN];
  velocity(q, f, v);
  for (int i = 0; i < q->p.n; i++) v[i] -= q->v0[i]; /* A f */
  return fmax(fmax(inf_norm(q->v0, q->p.n), inf_norm(q->b, q->p.n)), inf_norm(v, q->p.n));
}

/* ---- single contacts in closed form ---- */

START_TEST(frictionless_contact_closed_form) {
  prob q;
  prob_init(&q);
  add_block(&q, IMP_CNSTR_CONTACT, 1, 0);
  q.A[0] = 2, q.v0[0] = -3, q.b[0] = 0.5;
  double f[2];
  imp_csolver_stat st = run(&q, f, 1e-12, 50, 0);
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], (0.5 - -3.0) / 2, 1e-14); /* max(0, (b - v0)/A) */
  q.v0[0] = 1, q.b[0] = 0;                        /* separating: no impulse */
  st = run(&q, f, 1e-12, 50, 0);
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  ck_assert(f[0] == 0);
  add_block(&q, IMP_CNSTR_LIMIT, 1, 0); /* a limit behaves the same */
  q.A[0] = 2, q.A[1] = q.A[2] = 0.5, q.A[3] = 1, q.v0[0] = -1, q.v0[1] = -1, q.b[1] = 0;
  st = run(&q, f, 1e-12, 50, 0);
  /* both active: [2 .5; .5 1] f = [1; 1] */
  imp_assert_near(f[0], 1.0 / 3.5, 1e-13);
  imp_assert_near(f[1], 1.0 - 0.5 / 3.5, 1e-13);
}
END_TEST

/* one friction contact, A = diag(a, c, ..., c): f_N = (b - v0_N)/a; it sticks
   with f_T = -v0_T / c when that is in the cone, else slides with f_T = -mu
   f_N v0_T/||v0_T|| and v_T = v0_T (1 - c mu f_N / ||v0_T||) */
START_TEST(friction_contact_closed_form) {
  const int dims[3] = {3, 4, 6};
  for (int di = 0; di < 3; di++)
    for (int slide = 0; slide < 2; slide++) {
      int dim = dims[di];
      prob q;
      prob_init(&q);
      double a = 1.5, c = 0.7, mu = 0.5;
      add_block(&q, IMP_CNSTR_CONTACT, dim, mu);
      for (int i = 0; i < dim; i++) q.A[i * dim + i] = i ? c : a;
      q.v0[0] = -2, q.b[0] = 0.1;
      double fN = (0.1 + 2) / a, vt = 0;
      for (int j = 1; j < dim; j++) {
        q.v0[j] = (slide ? 1.0 : 0.05) * (j % 2 ? 1 : -0.5);
        vt += q.v0[j] * q.v0[j];
      }
      vt = sqrt(vt);
      double f[6], v[6];
      imp_csolver_stat st = run(&q, f, 1e-12, 100, 0);
      ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
      velocity(&q, f, v);
      imp_assert_near(f[0], fN, 1e-12);
      ck_assert_msg(slide == (vt / c > mu * fN), "test set-up: dim %d slide %d", dim, slide);
      for (int j = 1; j < dim; j++) {
        if (!slide) {
          imp_assert_near(f[j], -q.v0[j] / c, 1e-12);
          imp_assert_near(v[j], 0.0, 1e-12);
        } else {
          imp_assert_near(f[j], -mu * fN * q.v0[j] / vt, 1e-12);
          imp_assert_near(v[j], q.v0[j] * (1 - c * mu * fN / vt), 1e-12);
        }
      }
    }
}
END_TEST

/* ---- the ball stack of Fig. 6 ---- */

/* Five balls (masses 1..5 kg, translation only) falling together at 1 m/s
   when the bottom one touches the floor: contact j joins ball j-1 (or the
   floor) below and ball j above. All normal velocities vanish, so contact j
   carries the momentum of the balls above it: f_N = sum_{i>=j} m_i (1 + g h). */
static void ball_stack(prob* q, int dim) {
  enum { NB = 5 };
  double K[NB * 3 * NB * 3] = {0}, M[NB * 3], u0[NB * 3];
  prob_init(q);
  for (int j = 0; j < NB; j++) add_block(q, IMP_CNSTR_CONTACT, dim, 0.5);
  for (int i = 0; i < NB; i++)
    for (int a = 0; a < 3; a++) {
      M[3 * i + a] = i + 1.0;
      u0[3 * i + a] = a == 2 ? -1.0 - G * H : 0;
    }
  int nv = 3 * NB;
  for (int j = 0; j < NB; j++)
    for (int r = 0; r < dim; r++) {
      int axis = r == 0 ? 2 : r - 1, row = q->adr[j] + r;
      K[row * nv + 3 * j + axis] = 1;
      if (j > 0) K[row * nv + 3 * (j - 1) + axis] = -1;
    }
  from_dynamics(q, K, nv, M, u0);
}

START_TEST(ball_stack_stops_in_one_solve) {
  for (int dim = 1; dim <= 3; dim += 2) {
    prob q;
    ball_stack(&q, dim);
    double f[15], v[15];
    imp_csolver_stat st = run(&q, f, 1e-10, 50, 0);
    ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
    ck_assert_msg(st.iterations <= 2, "ball stack took %d iterations", st.iterations);
    velocity(&q, f, v);
    for (int j = 0; j < 5; j++) {
      double above = 0;
      for (int i = j; i < 5; i++) above += (i + 1.0) * (1 + G * H);
      imp_assert_near(v[q.adr[j]], 0.0, 1e-12);
      imp_assert_rel(f[q.adr[j]], above, 1e-12);
      for (int r = 1; r < dim; r++) imp_assert_near(f[q.adr[j] + r], 0.0, 1e-12);
    }
  }
}
END_TEST

/* ---- a box on four corners: 12 rows of rank 6 ---- */

/* half sizes (0.3, 0.2, 0.1), mass 2, corners (+-0.3, +-0.2, -0.1); rows per
   corner: normal z, tangents x, y; body velocity (v, w) with the corner's
   velocity v + w x r */
static void box_problem(prob* q, double* K, const double* u0, double mu) {
  const double hx = 0.3, hy = 0.2, hz = 0.1, m = 2;
  double M[6] = {m, m, m, m * (hy * hy + hz * hz) / 3, m * (hx * hx + hz * hz) / 3,
                 m * (hx * hx + hy * hy) / 3};
  prob_init(q);
  memset(K, 0, 12 * 6 * sizeof *K);
  for (int c = 0; c < 4; c++) {
    add_block(q, IMP_CNSTR_CONTACT, 3, mu);
    double r[3] = {(c & 1) ? hx : -hx, (c & 2) ? hy : -hy, -hz};
    const int axes[3] = {2, 0, 1};
    for (int rr = 0; rr < 3; rr++) {
      double* row = K + (3 * c + rr) * 6;
      int e = axes[rr];
      row[e] = 1;
      /* (w x r)_e = sum over w: e_e . (w x r) = w . (r x e_e) */
      double ee[3] = {0}, rxe[3];
      ee[e] = 1;
      rxe[0] = r[1] * ee[2] - r[2] * ee[1];
      rxe[1] = r[2] * ee[0] - r[0] * ee[2];
      rxe[2] = r[0] * ee[1] - r[1] * ee[0];
      for (int a = 0; a < 3; a++) row[3 + a] = rxe[a];
    }
  }
  from_dynamics(q, K, 6, M, u0);
}

/* The sticking initialization (maxiter 0 returns it when it is in the cone)
   is the minimum-norm solution of the singular system: A f = -v0 and f in
   range(K) = range(A), i.e. orthogonal to A's null space. */
START_TEST(box_sticking_init_is_minimum_norm) {
  double K[72], u0[6] = {0.01, 0, -G * H, 0, 0, 0.02};
  prob q;
  box_problem(&q, K, u0, 1.0);
  double f[12], v[12];
  run(&q, f, 1e-10, 0, 0);
  velocity(&q, f, v);
  for (int i = 0; i < 12; i++) imp_assert_near(v[i], 0.0, 1e-12);
  /* least squares K q = f through the 6 x 6 normal equations */
  double KtK[36] = {0}, Ktf[6] = {0}, z[6];
  for (int a = 0; a < 6; a++) {
    for (int i = 0; i < 12; i++) Ktf[a] += K[i * 6 + a] * f[i];
    for (int b = 0; b < 6; b++)
      for (int i = 0; i < 12; i++) KtK[a * 6 + b] += K[i * 6 + a] * K[i * 6 + b];
  }
  for (int a = 0; a < 6; a++) { /* Gaussian elimination, KtK is SPD */
    for (int b = a + 1; b < 6; b++) {
      double l = KtK[b * 6 + a] / KtK[a * 6 + a];
      for (int c = a; c < 6; c++) KtK[b * 6 + c] -= l * KtK[a * 6 + c];
      Ktf[b] -= l * Ktf[a];
    }
  }
  for (int a = 5; a >= 0; a--) {
    z[a] = Ktf[a];
    for (int c = a + 1; c < 6; c++) z[a] -= KtK[a * 6 + c] * z[c];
    z[a] /= KtK[a * 6 + a];
  }
  double fnorm = 0, off = 0;
  for (int i = 0; i < 12; i++) {
    double Kz = 0;
    for (int a = 0; a < 6; a++) Kz += K[i * 6 + a] * z[a];
    off = fmax(off, fabs(Kz - f[i]));
    fnorm = fmax(fnorm, fabs(f[i]));
  }
  ck_assert_msg(off <= 1e-12 * fnorm, "f leaves range(K) by %g (|f| %g)", off, fnorm);
  /* resting straight down: the minimum-norm split is m g h / 4 per corner */
  double u1[6] = {0, 0, -G * H, 0, 0, 0};
  box_problem(&q, K, u1, 1.0);
  run(&q, f, 1e-10, 0, 0);
  for (int c = 0; c < 4; c++) {
    imp_assert_near(f[3 * c], 2 * G * H / 4, 1e-14);
    imp_assert_near(f[3 * c + 1], 0.0, 1e-14);
    imp_assert_near(f[3 * c + 2], 0.0, 1e-14);
  }
}
END_TEST

/* A box sliding at (1, 0.5) m/s: all four corners slide; the body keeps
   sliding with speed reduced by mu g h, no rotation, no normal velocity. */
START_TEST(box_sliding_singular) {
  const double mus[4] = {0.1, 0.5, 1, 2};
  for (int t = 0; t < 4; t++) {
    double K[72], u0[6] = {1, 0.5, -G * H, 0, 0, 0};
    prob q;
    box_problem(&q, K, u0, mus[t]);
    double f[12];
    imp_csolver_stat st = run(&q, f, 1e-12, 100, 0);
    ck_assert_msg(st.exit == IMP_EXIT_CONVERGED, "mu %g: exit %d after %d", mus[t], st.exit,
                  st.iterations);
    check_conditions(&q, f, 1e-11 * problem_scale(&q, f));
    /* u = u0 + M^-1 K' f */
    const double m = 2, Ms[6] = {m, m, m, m * (0.04 + 0.01) / 3, m * (0.09 + 0.01) / 3,
                                 m * (0.09 + 0.04) / 3};
    double u[6], speed0 = sqrt(1.25), keep = 1 - mus[t] * G * H / speed0;
    for (int a = 0; a < 6; a++) {
      u[a] = u0[a];
      for (int i = 0; i < 12; i++) u[a] += K[i * 6 + a] * f[i] / Ms[a];
    }
    imp_assert_near(u[0], 1 * keep, 1e-10);
    imp_assert_near(u[1], 0.5 * keep, 1e-10);
    for (int a = 2; a < 6; a++) imp_assert_near(u[a], 0.0, 1e-10);
  }
}
END_TEST

/* ---- random problems ---- */

/* Random blocks (equalities of dim 1-3, limits, contacts of dim 1, 3, 4, 6
   with mu in {0.1, 0.5, 1, 2}), K with random entries and nv columns (rank
   min(n, nv); nv = 0 means n + 5, nv < 0 a random rank in [n/2, n)),
   v0 = K u0, b <= 0 on unilateral rows and 0 on equalities (so u = 0 is
   feasible and a solution exists). */
static void random_problem(prob* q, int ncontact, int mixed, int nv) {
  static const double mus[4] = {0.1, 0.5, 1, 2};
  static double K[MAXN * (MAXN + 8)];
  double M[MAXN + 8], u0[MAXN + 8];
  prob_init(q);
  for (int c = 0; c < ncontact; c++) {
    int kind = mixed ? (int)imp_test_urand(0, 6) : 2;
    double mu = mus[(int)imp_test_urand(0, 4)];
    if (kind == 0) add_block(q, IMP_CNSTR_EQUALITY, 1 + (int)imp_test_urand(0, 3), 0);
    else if (kind == 1) add_block(q, IMP_CNSTR_LIMIT, 1, 0);
    else if (kind == 3) add_block(q, IMP_CNSTR_CONTACT, 1, 0);
    else if (kind == 4) add_block(q, IMP_CNSTR_CONTACT, 4, mu);
    else if (kind == 5) add_block(q, IMP_CNSTR_CONTACT, 6, mu);
    else add_block(q, IMP_CNSTR_CONTACT, 3, mu);
  }
  int n = q->p.n;
  if (nv == 0) nv = n + 5; /* full rank */
  if (nv < 0) nv = (n + 1) / 2 + (int)imp_test_urand(0, (n + 1) / 2); /* rank in [n/2, n) */
  if (nv < 1) nv = 1;
  for (int a = 0; a < nv; a++) {
    M[a] = imp_test_urand(0.5, 2);
    u0[a] = imp_test_urand(-1, 1);
  }
  for (int i = 0; i < q->p.n * nv; i++) K[i] = imp_test_urand(-1, 1);
  from_dynamics(q, K, nv, M, u0);
  for (int k = 0; k < q->p.nblock; k++)
    if (q->type[k] != IMP_CNSTR_EQUALITY) q->b[q->adr[k]] = imp_test_urand(-0.05, 0);
}

static int cmp_int(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }

/* Full-rank random problems (nv = n + 5 columns of K): all but a rare one
   converge (all 200 since the proximal outer loop; 197 with Gauss-Seidel
   restarts, which left local minima of l where the blended Jacobian of an
   active cone edge is singular, or crept past maxiter), and every converged
   one meets every condition to the tolerance. */
START_TEST(random_problems_converge_to_the_conditions) {
  enum { NPROB = 200 };
  int iters[NPROB], nconv = 0, newton = 0, total = 0;
  for (int t = 0; t < NPROB; t++) {
    prob q;
    int nc = 1 + (int)imp_test_urand(0, 20), mixed = t % 2;
    random_problem(&q, nc, mixed, 0);
    double f[MAXN];
    double tol = 1e-10;
    imp_csolver_stat st = run(&q, f, tol, 200, 0);
    iters[t] = st.iterations;
    newton += st.newton, total += st.iterations;
    for (int i = 0; i < q.p.n; i++) ck_assert(isfinite(f[i]));
    if (st.exit != IMP_EXIT_CONVERGED) {
      printf("todorov: full-rank problem %d (n %d) exit %d after %d, |r| %.3g\n", t, q.p.n,
             st.exit, st.iterations, st.residual);
      continue;
    }
    nconv++;
    check_conditions(&q, f, 1.0001 * tol * problem_scale(&q, f));
  }
  ck_assert_int_ge(nconv, NPROB - NPROB / 100);
  qsort(iters, NPROB, sizeof iters[0], cmp_int);
  printf("todorov full-rank random problems: %d/%d converged, median %d iterations (max %d), "
         "Newton %.0f%%\n",
         nconv, NPROB, iters[NPROB / 2], iters[NPROB - 1], 100.0 * newton / (total ? total : 1));
}
END_TEST

/* Problem 26 of the rank-deficient set above (3 contacts, 9 rows, A of
   rank below 9): the iteration reaches a local minimum of l with r != 0
   (Section V.A), where 16 Gauss-Seidel restarts stopped (STALLED after 86
   iterations); the proximal outer loop on A + rho I must reach a point
   that meets every condition of contact.h. */
START_TEST(local_minimum_left_by_the_proximal_loop) {
  prob q;
  for (int t = 0; t <= 26; t++) { /* the same generator sequence as above */
    int nc = 1 + (int)imp_test_urand(0, 12);
    random_problem(&q, nc, t % 2, -1);
  }
  ck_assert_int_eq(q.p.n, 9);
  double f[MAXN], tol = 1e-10;
  imp_csolver_stat st = run(&q, f, tol, 200, 0);
  ck_assert_msg(st.exit == IMP_EXIT_CONVERGED, "exit %d after %d iterations, |r| %g", st.exit,
                st.iterations, st.residual);
  check_conditions(&q, f, 1.0001 * tol * problem_scale(&q, f));
}
END_TEST

/* Rank-deficient random problems (K with fewer columns than rows, as a box
   on four corners has): whatever the exit, f is finite and in its sets (by
   construction of f(x)); the converged ones meet every condition; the
   share that converges is printed (the method can stop at local minima of
   l when J is singular, Section V.A; the proximal loop leaves them: 199 of
   these 200 converge, 193 with Gauss-Seidel restarts), and nearly all must. */
START_TEST(rank_deficient_random_problems) {
  enum { NPROB = 200 };
  int nconv = 0;
  for (int t = 0; t < NPROB; t++) {
    prob q;
    int nc = 1 + (int)imp_test_urand(0, 12), mixed = t % 2;
    random_problem(&q, nc, mixed, -1);
    double f[MAXN], tol = 1e-10;
    imp_csolver_stat st = run(&q, f, tol, 200, 0);
    for (int i = 0; i < q.p.n; i++) ck_assert(isfinite(f[i]));
    if (st.exit != IMP_EXIT_CONVERGED) continue;
    nconv++;
    check_conditions(&q, f, 1.0001 * tol * problem_scale(&q, f));
  }
  printf("todorov rank-deficient random problems (rows / rank in (1, 2]): %d/%d converged\n", nconv,
         NPROB);
  ck_assert_int_ge(nconv, NPROB - NPROB / 100);
}
END_TEST

START_TEST(warm_start_from_solution_is_immediate) {
  int tested = 0;
  for (int t = 0; t < 40; t++) {
    prob q;
    random_problem(&q, 2 + t % 15, t % 2, t % 3 ? 0 : -1);
    double f[MAXN];
    imp_csolver_stat st = run(&q, f, 1e-10, 200, 0);
    if (st.exit != IMP_EXIT_CONVERGED) continue; /* no solution to warm start from */
    tested++;
    imp_csolver_stat ws = run(&q, f, 1e-10, 200, 1);
    ck_assert_int_eq(ws.exit, IMP_EXIT_CONVERGED);
    ck_assert_msg(ws.iterations <= 1, "warm start took %d iterations (cold %d)", ws.iterations,
                  st.iterations);
    check_conditions(&q, f, 1.0001e-10 * problem_scale(&q, f));
  }
  ck_assert_int_ge(tested, 35);
}
END_TEST

/* MuJoCo's 22_humanoids.xml at step 269, one humanoid's island as the
   contact stage gave it (test/data/captured/humanoid22_step269.cproblem:
   two knee limits, each foot's two capsules on the floor, both hands
   sliding; 32 rows, redundant contacts), warm-started with the impulses
   of step 268 as the stage does. From that warm start the iteration crept
   with several foot contacts on their cone edges and stalled at a
   relative residual of 4.7e-8 after 80 iterations; the solve then starts
   again from the sticking point and meets the model's tolerance, 1e-8, in
   its 100 iterations (measured: 84, residual 6.5e-15). */
START_TEST(stalled_warm_start_restarts_at_the_sticking_point) {
  cfile_problem c;
  ck_assert_msg(cfile_read_captured("humanoid22_step269", &c) == 0, "cannot read the problem");
  ck_assert(c.warm != NULL && c.p.n <= MAXN && c.p.nblock <= MAXB);
  prob q;
  prob_init(&q);
  q.p.n = c.p.n, q.p.nblock = c.p.nblock, q.p.h = c.p.h;
  for (int k = 0; k < c.p.nblock; k++)
    q.adr[k] = c.adr[k], q.dim[k] = c.dim[k], q.type[k] = c.type[k], q.mu[k] = c.mu[k];
  memcpy(q.A, c.A, sizeof(double) * (size_t)(c.p.n * c.p.n));
  memcpy(q.v0, c.v0, sizeof(double) * (size_t)c.p.n);
  memcpy(q.b, c.b, sizeof(double) * (size_t)c.p.n);
  double f[MAXN];
  memcpy(f, c.warm, sizeof(double) * (size_t)c.p.n);
  imp_csolver_stat st = run(&q, f, 1e-8, 100, 1);
  printf("22_humanoids step 269 from its warm start: %d iterations, exit %d\n", st.iterations,
         st.exit);
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  check_conditions(&q, f, 1e-8 * problem_scale(&q, f));
  cfile_free(&c);
}
END_TEST

/* ---- degenerate input ---- */

START_TEST(degenerate_input_gives_no_nan) {
  prob q;
  prob_init(&q);
  double f[MAXN];
  imp_csolver_stat st = run(&q, f, 1e-10, 50, 0); /* n = 0 */
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  ck_assert_int_eq(st.iterations, 0);
  for (int k = 0; k < 4; k++) add_block(&q, IMP_CNSTR_CONTACT, 3, 0.5);
  add_block(&q, IMP_CNSTR_EQUALITY, 2, 0);
  add_block(&q, IMP_CNSTR_LIMIT, 1, 0);
  /* A = 0, v0 = 0, b = 0: f = 0 is the solution */
  st = run(&q, f, 1e-10, 50, 0);
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  for (int i = 0; i < q.p.n; i++) ck_assert(f[i] == 0);
  /* A = 0 with v0 != 0 has no solution for the equality rows: finite f, a
     stated failure to converge */
  for (int i = 0; i < q.p.n; i++) q.v0[i] = imp_test_urand(-1, 1);
  st = run(&q, f, 1e-10, 50, 0);
  ck_assert_int_ne(st.exit, IMP_EXIT_CONVERGED);
  for (int i = 0; i < q.p.n; i++) ck_assert(isfinite(f[i]));
  ck_assert(isfinite(st.residual));
  /* mu = 0 on a 3-row contact: frictionless */
  prob_init(&q);
  add_block(&q, IMP_CNSTR_CONTACT, 3, 0);
  q.A[0] = q.A[4] = q.A[8] = 1, q.v0[0] = -1, q.v0[1] = 2;
  st = run(&q, f, 1e-12, 50, 0);
  ck_assert_int_eq(st.exit, IMP_EXIT_CONVERGED);
  imp_assert_near(f[0], 1.0, 1e-12);
  ck_assert(f[1] == 0 && f[2] == 0);
}
END_TEST

/* the monitor sees every iteration, numbered from 1 */
static void count_calls(void* ctx, int iter, const double* f) {
  int* c = ctx;
  ck_assert_int_eq(iter, ++*c);
  (void)f;
}

/* f of a contact block by the paper's formulas, written here: f_N = b - x_N
   (eq. 10, a < 0), f_T = -s x_T with s = min(1, mu f_N / ||x_T||) (12) */
static void contact_f(const prob* q, int k, const double* xk, double* f) {
  int dim = q->dim[k];
  double fN = fmax(0.0, q->b[q->adr[k]] - xk[0]), rho = 0;
  for (int j = 1; j < dim; j++) rho += xk[j] * xk[j];
  rho = sqrt(rho);
  double s = rho > 0 ? fmin(1.0, q->mu[k] * fN / rho) : 1;
  f[0] = fN;
  for (int j = 1; j < dim; j++) f[j] = -s * xk[j];
}

/* The geodesic correction's second derivative of f along d (todorov.c's
   header) is the second difference of eqs. (10)-(13) for slipping contacts
   of dim 3, 4 and 6, and zero where f is linear (sticking, breaking) */
START_TEST(slip_second_derivative_matches_differences) {
  static prob q;
  prob_init(&q);
  add_block(&q, IMP_CNSTR_CONTACT, 3, 0.8);
  add_block(&q, IMP_CNSTR_CONTACT, 4, 0.5);
  add_block(&q, IMP_CNSTR_CONTACT, 6, 1.2);
  for (int i = 0; i < q.p.n; i++) q.b[i] = i == q.adr[0] || i == q.adr[1] || i == q.adr[2] ? 0.1 : 0;
  unsigned seed = 7;
  for (int trial = 0; trial < 200; trial++)
    for (int k = 0; k < 3; k++) {
      int dim = q.dim[k];
      double x[6], d[6], out[6], fp[6], f0[6], fm[6], xp[6], xm[6];
      /* a slipping point: a = x_N - b < 0 and ||x_T|| > -mu a */
      double a = -0.2 - 0.8 * (rand_r(&seed) / (double)RAND_MAX);
      x[0] = q.b[q.adr[k]] + a;
      double rho = 0;
      for (int j = 1; j < dim; j++) x[j] = rand_r(&seed) / (double)RAND_MAX - 0.5, rho += x[j] * x[j];
      rho = sqrt(rho);
      double want = -q.mu[k] * a * (1.2 + rand_r(&seed) / (double)RAND_MAX);
      for (int j = 1; j < dim; j++) x[j] *= want / rho;
      for (int j = 0; j < dim; j++) d[j] = rand_r(&seed) / (double)RAND_MAX - 0.5;
      imp_tod_block_f_second(&q.p, k, x, d, out);
      double h = 1e-4;
      for (int j = 0; j < dim; j++) xp[j] = x[j] + h * d[j], xm[j] = x[j] - h * d[j];
      contact_f(&q, k, xp, fp);
      contact_f(&q, k, x, f0);
      contact_f(&q, k, xm, fm);
      for (int j = 0; j < dim; j++) {
        double fd = (fp[j] - 2 * f0[j] + fm[j]) / (h * h);
        ck_assert_msg(fabs(out[j] - fd) <= 1e-5 * (1 + fabs(fd)),
                      "block %d row %d: f_vv %.9g, second difference %.9g", k, j, out[j], fd);
      }
      /* inside the cone (stick) and above the plane (break) f is linear */
      double xs[6], xb[6];
      for (int j = 0; j < dim; j++) xs[j] = x[j] * (j ? 0.5 * -q.mu[k] * a / want : 1), xb[j] = x[j];
      xb[0] = q.b[q.adr[k]] + 0.3;
      imp_tod_block_f_second(&q.p, k, xs, d, out);
      for (int j = 0; j < dim; j++) ck_assert(out[j] == 0);
      imp_tod_block_f_second(&q.p, k, xb, d, out);
      for (int j = 0; j < dim; j++) ck_assert(out[j] == 0);
    }
}
END_TEST

/* Two limits on one dof that both ask to move away at 1 m/s: no answer
   exists, and the impulses grow along null(A) = (1, 1) with the iterations.
   With a bound on |f| (imp_csolver_opt.fmax) the solve stops as diverged
   once they stayed past it for IMP_FMAX_ITERS iterations; without one it
   runs to its limit. */
START_TEST(conflicting_targets_stop_past_the_impulse_bound) {
  prob q;
  prob_init(&q);
  add_block(&q, IMP_CNSTR_LIMIT, 1, 0);
  add_block(&q, IMP_CNSTR_LIMIT, 1, 0);
  double K[2] = {1, -1}, M[1] = {1}, u0[1] = {0};
  from_dynamics(&q, K, 1, M, u0);
  q.b[0] = q.b[1] = 1;
  double f[2];
  imp_csolver_stat st = run(&q, f, 1e-10, 100, 0);
  ck_assert_int_eq(st.iterations, 100);
  ck_assert_int_ne(st.exit, IMP_EXIT_DIVERGED);
  ck_assert_msg(f[0] > 1e3, "the impulses did not grow: %g", f[0]);
  imp_csolver_opt o = {.maxiter = 100, .tol = 1e-10, .fmax = 10};
  f[0] = f[1] = NAN;
  imp_solver_todorov.solve(&q.p, &o, f, &st, g_work);
  ck_assert_int_eq(st.exit, IMP_EXIT_DIVERGED);
  ck_assert_int_ge(st.iterations, IMP_FMAX_ITERS);
  ck_assert_int_lt(st.iterations, 50);
  ck_assert(isfinite(f[0]) && isfinite(f[1]));
}
END_TEST

START_TEST(monitor_called_every_iteration) {
  prob q;
  random_problem(&q, 12, 0, 0);
  int calls = 0;
  imp_csolver_opt o = {.maxiter = 200, .tol = 1e-10, .monitor = count_calls, .monitor_ctx = &calls};
  imp_csolver_stat st;
  double f[MAXN];
  g_work = realloc(g_work, imp_solver_todorov.work_size(q.p.n, q.p.nblock));
  imp_solver_todorov.solve(&q.p, &o, f, &st, g_work);
  ck_assert_int_eq(calls, st.iterations);
  ck_assert_int_le(st.newton, st.iterations);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("solver_todorov");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, frictionless_contact_closed_form);
  tcase_add_test(tc, friction_contact_closed_form);
  tcase_add_test(tc, ball_stack_stops_in_one_solve);
  tcase_add_test(tc, box_sticking_init_is_minimum_norm);
  tcase_add_test(tc, box_sliding_singular);
  tcase_add_test(tc, random_problems_converge_to_the_conditions);
  tcase_add_test(tc, rank_deficient_random_problems);
  tcase_add_test(tc, local_minimum_left_by_the_proximal_loop);
  tcase_add_test(tc, warm_start_from_solution_is_immediate);
  tcase_add_test(tc, stalled_warm_start_restarts_at_the_sticking_point);
  tcase_add_test(tc, degenerate_input_gives_no_nan);
  tcase_add_test(tc, monitor_called_every_iteration);
  tcase_add_test(tc, conflicting_targets_stop_past_the_impulse_bound);
  tcase_add_test(tc, slip_second_derivative_matches_differences);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(suite()); }
