/* Every registered contact solver on the same random problems, measured by
 * the common residual (solvers/residual.c). This is the acceptance test of a
 * solver: add it to the registry (contact.c) and it is checked here; give it
 * a line in k_settings when it needs other iteration limits.
 *
 * Problem families (A = K M^-1 K' in every case):
 *  - full rank: K random n x 2n, M = I; random v0 and b. A is positive
 *    definite, so a solution exists for any v0, b.
 *  - deficient rank: K random n x n/2 (rank n/2). Random v0 may have no
 *    solution, so the problem is built around a random exact one: per block
 *    a state (equality; limit active or not; contact separating, sticking or
 *    sliding) with (f*, w*) satisfying its law, b random and v0 = w* + b - A f*.
 *  - a box on the floor: one rigid body on 4 corner contacts of condim 1, 3,
 *    4 or 6 (rank 6 for up to 24 rows: redundant contacts are the normal
 *    case), falling for one step and sliding sideways.
 *  - with dry friction: the full and deficient rank families again, with
 *    about a third of the blocks rows of dry friction (IMP_CNSTR_FRICTION,
 *    MJCF's joint frictionloss) of random bounds.
 * mu cycles through {0.1, 0.5, 1, 2}; blocks of every type and dims 1..6.
 *
 * Checks, per solver and problem: exit CONVERGED within the generous limits
 * below (full rank and box: always; deficient rank: at least half of the
 * problems, the others must say MAXITER or worse, since there the solution
 * set can be unbounded along internal forces and a Gauss-Seidel iteration
 * may drift along it); when it says converged, relative common residual <=
 * 1e-6; always impulses finite, unilateral ones >= 0 and friction inside its
 * cone, the problem untouched, the monitor called once per iteration; the
 * same again from a warm start at the answer (no more iterations than cold)
 * and at a perturbed answer.
 *
 * IMP_TEST_SOLVER=name restricts the run to one solver (for development). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "cproblem_file.h"
#include "test_cproblem.h"
#include "test_util.h"

#define NTRIAL 12
#define RESIDUAL_MAX 1e-6

/* iteration limit and tolerance per solver; others get the first line's */
typedef struct solver_setting {
  const char* name;
  int maxiter;
  double tol;
  /* the law the answer is checked against: LAW_EXACT (the common residual,
     Coulomb with maximal dissipation), LAW_CCP or LAW_PYRAMID (see below) */
  int law;
  /* of the NTRIAL box problems, how many must converge (NTRIAL for every
     solver unless its line documents why not; the others must then say
     MAXITER or worse honestly, and all the other checks still apply) */
  int box_converged;
} solver_setting;

enum { LAW_EXACT = 0, LAW_CCP = 1, LAW_PYRAMID = 2, LAW_BOX = 3 };

/* LAW_BOX: each friction row alone in [-mu f_N, mu f_N] (the "pyramid" of
   Erleben and Ortiz, used by minmap): its answers lie in a box, not in the
   cone (||f_T|| reaches sqrt(dim - 1) mu f_N, and friction that slides
   along a diagonal does not oppose the slip exactly), so the common
   residual of the cone problem does not vanish at them. For these solvers
   feasibility is checked in the box and "converged" against the same
   natural-map residual of the box problem (box_residual, scaled as
   imp_cresidual scales its own); every other check is the same. The family
   prints how far the box answers are from the cone. Measured (minmap,
   converged answers): ||f_T|| / (mu f_N) up to 2.236 = sqrt(5) on full and
   deficient rank (condim 6 with all five rows at their bound), 2.213 on the
   box; common relative residual up to 0.182 (full rank), 0.216 (deficient
   rank), 0.129 (box), against box residuals <= 1e-6. */

/* how far box answers are from the cone, over one family (LAW_BOX) */
static double g_cone_ratio, g_cone_residual;

/* LAW_CCP, for the cone complementarity relaxation (solvers/ccp.c): its
   answer satisfies f in K, w = A f + v0 - b in K* and f'w = 0, so a sliding
   contact has w_N = mu ||w_T|| > 0 where the exact law has w_N = 0 (the
   relaxation's known lift-off, shown in test_solver_ccp.c). The common
   residual of such an answer is about mu ||w_T|| on every sliding contact
   (measured: up to ~1e-1 relative on the full-rank family), so it cannot be
   the test of convergence for this solver. The CCP's own optimality is the
   same residual for the problem whose normal targets are raised to b_N + mu
   ||w_T|| (w at the answer): then w' = w - mu ||w_T|| e_N and the natural
   map's w' + mu ||w'_T|| e_N = w, i.e. exactly the CCP conditions. That is
   checked with the same bound RESIDUAL_MAX. Every other check (cone
   feasibility, finite impulses, the problem untouched, the monitor, warm
   starts, the convergence counts) is the exact one.
   Measured (ccp, 20000 iterations, tol 1e-9 on its own relative natural
   map): full rank 12/12 converged in 33-71 iterations, exact common
   residual of those answers 1.9e-2 .. 1.8e-1 (the lift-off), CCP residual
   <= 1e-9; box 12/12 in 18-2228 iterations (condim 1: exact residual =
   CCP residual, no friction rows; condim 3/4/6: exact 1.2e-2 .. 1.1e-1);
   deficient rank 6/12 in 127-400 iterations, the other 6 exit DIVERGED
   after 1509-8611 iterations: their relaxed dual is unbounded below (the
   iterates run off along d in K with d'A d ~ 1e-10 L and g'd = -0.15 ..
   -2.2, ccp.c's certificate), since a problem built around an exact
   solution need not admit the relaxation's lift-off. With dry friction
   rows (exact in the relaxation: an interval has no normal to lift off):
   full rank 12/12 in at most 78 iterations, deficient rank 10/12 in at
   most 2323, the other 2 DIVERGED by the same certificate. */
static const solver_setting k_settings[] = {
    {NULL, 1000, 1e-10, LAW_EXACT, NTRIAL}, /* any solver not listed */
    {"pgs", 1000, 1e-10, LAW_EXACT, NTRIAL},
    {"todorov", 1000, 1e-10, LAW_EXACT, NTRIAL},
    {"ccp", 20000, 1e-9, LAW_CCP, NTRIAL},
    /* an interior point: its natural map falls like the square root of the
       duality gap on degenerate contacts, so 1e-10 is past rounding there */
    {"primal", 100, 1e-8, LAW_CCP, NTRIAL},
    /* pivots, not sweeps: Lemke needs about one per active unknown of the LCP
       (N <= 2n + 4 per friction block), and its own measure is the LCP's
       natural residual after refinement */
    {"lemke", 5000, 1e-10, LAW_PYRAMID, NTRIAL},
    {"minmap", 200, 1e-10, LAW_BOX, NTRIAL},
    /* Macklin et al.'s non-smooth Newton: a fixed damped step (t = 0.75) and
       a friction fixed point, no convergence guarantee. Measured: box condim
       6 mu 2 #3 (one contact sliding with all 5 friction rows on its cone,
       the three others separating at w_N ~ 1e-3; pgs needs 519 sweeps) cycles
       at relative residual 1e-2 for 1000 iterations, with or without the
       watchdog; the other 11 converge in at most 129 iterations cold (190 from
       a perturbed warm start). Exit MAXITER there is reported, not hidden. */
    {"nsn_fb", 1000, 1e-10, LAW_EXACT, NTRIAL - 1},
    /* prox: the exact circular cone (no pyramid), so every check applies
       unchanged. Its friction step takes one scalar r per block (needed
       for Coulomb's fixed point, Schindler et al. 2011 Sec. IV), a
       projected gradient step that is slow on the box's anisotropic condim
       4/6 blocks: measured at most 964 sweeps cold there (condim 4), 855
       (condim 6), against <= 50 on full rank and <= 383 on deficient rank;
       2000 keeps that honest margin from the limit. */
    {"prox", 2000, 1e-10, LAW_EXACT, NTRIAL},
};

/* Solvers that answer a polyhedral approximation of the cone, checked by
   their own problem's conditions instead of the common residual (which
   measures the circular cone). lemke: the Stewart-Trinkle pyramid of 8 facet
   directions (+-e_r for torsion and rolling): a pyramid solution misses the
   circular cone's conditions by the polygon's geometry (sliding friction is
   on a pyramid edge direction up to 22.5 degrees off the slip, and a radius
   cos(pi/8) = 0.924 of the disk on a facet): measured common relative
   residual up to 0.098 (full rank), 0.28 (deficient rank), 0.079 (box),
   printed below, far above RESIDUAL_MAX. So lemke's answers are checked by
   pyramid_residual <= RESIDUAL_MAX (its own stopping measure, the LCP's
   natural residual, is <= 1e-10); every other check is the common one. */

static solver_setting setting_of(const char* name) {
  for (size_t i = 1; i < sizeof k_settings / sizeof k_settings[0]; i++)
    if (!strcmp(k_settings[i].name, name)) return k_settings[i];
  return k_settings[0];
}

static int is_pyramid_solver(const char* name) { return setting_of(name).law == LAW_PYRAMID; }

static const double k_mus[4] = {0.1, 0.5, 1, 2};

/* ---- problems ---- */

/* random blocks of every type until at least nmin rows */
static void random_blocks(tprob* t, int nmin, double mu) {
  static const int contact_dims[4] = {1, 3, 4, 6};
  while (t->n < nmin) {
    int kind = (int)imp_test_urand(0, 6);
    if (kind == 0)
      add_block(t, IMP_CNSTR_EQUALITY, 1 + (int)imp_test_urand(0, 6), 0);
    else if (kind == 1)
      add_block(t, IMP_CNSTR_LIMIT, 1, 0);
    else
      add_block(t, IMP_CNSTR_CONTACT, contact_dims[kind - 2], mu);
  }
}

/* random_blocks with about a third of the blocks rows of dry friction,
   bounds in [0.02, 0.5] (the impulses of these problems are of order 1) */
static void random_blocks_dry(tprob* t, int nmin, double mu) {
  while (t->n < nmin) {
    if (imp_test_urand(0, 3) < 1)
      add_block(t, IMP_CNSTR_FRICTION, 1, imp_test_urand(0.02, 0.5));
    else
      random_blocks(t, t->n + 1, mu);
  }
}

/* A = K K' / nv with K n x nv uniform in [-1, 1] */
static void random_delassus(tprob* t, int nv) {
  static double K[MAXN * 2 * MAXN];
  int n = t->n;
  for (int i = 0; i < n * nv; i++) K[i] = imp_test_urand(-1, 1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) t->A[i * n + j] = imp_dot(K + i * nv, K + j * nv, nv) / nv;
}

/* b random on every row but friction rows (zero there, contact.h) */
static void random_targets(tprob* t) {
  for (int k = 0; k < t->nblock; k++)
    for (int r = 0; r < t->dim[k]; r++)
      t->b[t->adr[k] + r] = (t->type[k] == IMP_CNSTR_CONTACT && r > 0) ||
                                    t->type[k] == IMP_CNSTR_FRICTION
                                ? 0
                                : imp_test_urand(-0.2, 0.2);
}

static void full_rank_blocks(tprob* t, int trial, int dry) {
  memset(t, 0, sizeof *t);
  if (dry)
    random_blocks_dry(t, 24, k_mus[trial % 4]);
  else
    random_blocks(t, 24, k_mus[trial % 4]);
  random_delassus(t, 2 * t->n);
  for (int i = 0; i < t->n; i++) t->v0[i] = imp_test_urand(-1, 1);
  random_targets(t);
  snprintf(t->label, sizeof t->label, "full rank%s #%d (n %d)", dry ? " dry" : "", trial, t->n);
}

static void full_rank_problem(tprob* t, int trial) { full_rank_blocks(t, trial, 0); }
static void full_rank_dry_problem(tprob* t, int trial) { full_rank_blocks(t, trial, 1); }

/* one block's exact (f, w) in a random state of its law */
static void random_block_solution(const tprob* t, int k, double* f, double* w) {
  int dim = t->dim[k];
  double mu = t->mu[k];
  double state = imp_test_urand(0, 3);
  for (int r = 0; r < dim; r++) f[r] = w[r] = 0;
  if (t->type[k] == IMP_CNSTR_EQUALITY) {
    for (int r = 0; r < dim; r++) f[r] = imp_test_urand(-1, 1);
  } else if (t->type[k] == IMP_CNSTR_FRICTION) { /* sticking inside, or sliding on the bound */
    double side = imp_test_urand(-1, 1) < 0 ? -1 : 1;
    if (state < 1.5) {
      f[0] = imp_test_urand(-0.9, 0.9) * mu;
    } else {
      f[0] = side * mu;
      w[0] = -side * imp_test_urand(0.1, 1);
    }
  } else if (t->type[k] == IMP_CNSTR_LIMIT || dim == 1) {
    if (state < 1.5) f[0] = imp_test_urand(0.1, 1);
    else w[0] = imp_test_urand(0.1, 1);
  } else if (state < 1) { /* separating: any tangential velocity */
    w[0] = imp_test_urand(0.1, 1);
    for (int r = 1; r < dim; r++) w[r] = imp_test_urand(-1, 1);
  } else { /* sticking strictly inside, or sliding on the cone against the slip */
    f[0] = imp_test_urand(0.2, 1);
    double d[6], dn = 0;
    for (int r = 1; r < dim; r++) {
      d[r] = imp_test_urand(-1, 1);
      dn += d[r] * d[r];
    }
    dn = sqrt(dn);
    double radius = state < 2 ? imp_test_urand(0, 0.9) * mu * f[0] : mu * f[0];
    double slip = state < 2 ? 0 : imp_test_urand(0.1, 2);
    for (int r = 1; r < dim; r++) {
      f[r] = radius * d[r] / dn;
      w[r] = -slip * f[r];
    }
  }
}

static void deficient_rank_blocks(tprob* t, int trial, int dry) {
  memset(t, 0, sizeof *t);
  if (dry)
    random_blocks_dry(t, 24, k_mus[trial % 4]);
  else
    random_blocks(t, 24, k_mus[trial % 4]);
  random_delassus(t, t->n / 2);
  double f[MAXN], w[MAXN];
  for (int k = 0; k < t->nblock; k++) random_block_solution(t, k, f + t->adr[k], w + t->adr[k]);
  random_targets(t);
  for (int i = 0; i < t->n; i++) t->v0[i] = w[i] + t->b[i] - imp_dot(t->A + i * t->n, f, t->n);
  snprintf(t->label, sizeof t->label, "deficient rank%s #%d (n %d)", dry ? " dry" : "", trial,
           t->n);
}

static void deficient_rank_problem(tprob* t, int trial) { deficient_rank_blocks(t, trial, 0); }
static void deficient_rank_dry_problem(tprob* t, int trial) { deficient_rank_blocks(t, trial, 1); }

/* A box of half sizes (hx, hy, hz) and mass m on z = 0, on its 4 bottom
   corners, each a contact of condim dim: rows [n, t1, t2] = world z, x, y at
   the corner (v = d.(u + omega x r) = d.u + (r x d).omega), then the
   torsional row (omega . n) and the rolling rows (omega . t1, omega . t2).
   M = diag(m, m, m, I) with the box's principal inertia. One step h from
   velocity u: v0 = K (u + h g). */
static void box_problem(tprob* t, int trial) {
  static const int dims[4] = {1, 3, 4, 6};
  memset(t, 0, sizeof *t);
  int dim = dims[trial % 4];
  double mu = k_mus[(trial + trial / 4) % 4]; /* every dim meets several mu */
  double hx = imp_test_urand(0.05, 0.5), hy = imp_test_urand(0.05, 0.5);
  double hz = imp_test_urand(0.05, 0.5), m = imp_test_urand(0.1, 10), h = 0.01;
  double minv[6] = {1 / m, 1 / m, 1 / m, 3 / (m * (hy * hy + hz * hz)),
                    3 / (m * (hx * hx + hz * hz)), 3 / (m * (hx * hx + hy * hy))};
  double u[6] = {imp_test_urand(-1, 1), imp_test_urand(-1, 1), imp_test_urand(-0.5, 0),
                 imp_test_urand(-0.2, 0.2), imp_test_urand(-0.2, 0.2), imp_test_urand(-1, 1)};
  u[2] -= 9.81 * h;
  double K[24 * 6] = {0};
  const double axes[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  for (int c = 0; c < 4; c++) {
    double r[3] = {c & 1 ? hx : -hx, c & 2 ? hy : -hy, -hz};
    int adr = t->n;
    add_block(t, IMP_CNSTR_CONTACT, dim, mu);
    for (int row = 0; row < dim; row++) {
      double* k = K + (adr + row) * 6;
      if (row < 3) {
        memcpy(k, axes[row], sizeof axes[row]);
        imp_cross(k + 3, r, axes[row]);
      } else {
        memcpy(k + 3, axes[row - 3], sizeof axes[row - 3]);
      }
    }
  }
  int n = t->n;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int d = 0; d < 6; d++) s += K[i * 6 + d] * minv[d] * K[j * 6 + d];
      t->A[i * n + j] = s;
    }
    t->v0[i] = imp_dot(K + i * 6, u, 6);
    t->b[i] = 0;
  }
  snprintf(t->label, sizeof t->label, "box condim %d mu %g #%d", dim, mu, trial);
}

typedef void (*problem_maker)(tprob* t, int trial);

/* ---- running a solver ---- */

typedef struct monitor_count {
  int calls;
} monitor_count;

static void count_calls(void* ctx, int iter, const double* f) {
  (void)iter;
  (void)f;
  ((monitor_count*)ctx)->calls++;
}

/* solve with fresh, poisoned scratch; f holds the warm start when warm */
static imp_csolver_stat run(const imp_csolver* sv, const tprob* t, double* f, int warm,
                            int* monitor_calls) {
  solver_setting set = setting_of(sv->name);
  size_t bytes = sv->work_size(t->n, t->nblock);
  size_t rounded = (bytes + 15) / 16 * 16;
  void* work = rounded ? aligned_alloc(16, rounded) : NULL;
  if (work) memset(work, 0xff, rounded); /* NaN everywhere: scratch must be written first */
  imp_cproblem p = view(t);
  monitor_count count = {0};
  imp_csolver_opt o = {set.maxiter, set.tol, warm, count_calls, &count, 0};
  imp_csolver_stat s = {-1, -1, NAN, -1};
  sv->solve(&p, &o, f, &s, work);
  free(work);
  *monitor_calls = count.calls;
  return s;
}

/* Natural-map residual of the box-friction problem: per row e = f - P(f - w)
   with w = A f + v0 - b and P the clamp to the row's bounds (none for
   equalities, [0, inf) for limits and normals, [-mu f_N, mu f_N] for
   friction rows, [-mu, mu] for dry friction); returns ||e|| / max(||v0||, ||f||, ||w||) as
   imp_cresidual scales. */
static double box_residual(const tprob* t, const double* f) {
  double e2 = 0, v2 = 0, f2 = 0, w2 = 0;
  for (int k = 0; k < t->nblock; k++)
    for (int r = 0; r < t->dim[k]; r++) {
      int i = t->adr[k] + r;
      double w = imp_dot(t->A + i * t->n, f, t->n) + t->v0[i] - t->b[i], z = f[i] - w;
      if (t->type[k] == IMP_CNSTR_EQUALITY) {
      } else if (t->type[k] == IMP_CNSTR_FRICTION) {
        z = fmin(fmax(z, -t->mu[k]), t->mu[k]);
      } else if (t->type[k] == IMP_CNSTR_CONTACT && t->dim[k] > 1 && r > 0) {
        double bound = fmax(t->mu[k] * f[t->adr[k]], 0);
        z = fmin(fmax(z, -bound), bound);
      } else {
        z = fmax(z, 0);
      }
      e2 += (f[i] - z) * (f[i] - z);
      v2 += t->v0[i] * t->v0[i], f2 += f[i] * f[i], w2 += w * w;
    }
  double scale = sqrt(fmax(v2, fmax(f2, w2)));
  return scale > 0 ? sqrt(e2) / scale : sqrt(e2);
}

/* f is finite, unilateral impulses are >= 0, friction is in its cone (in
   its box for LAW_BOX) and dry friction within its bound */
static void check_feasible(const tprob* t, const double* f, int law, const char* what) {
  double scale = 0;
  for (int i = 0; i < t->n; i++) {
    ck_assert_msg(isfinite(f[i]), "%s: f[%d] = %g", what, i, f[i]);
    scale = fmax(scale, fabs(f[i]));
  }
  double slack = 1e-9 * scale;
  for (int k = 0; k < t->nblock; k++) {
    const double* fk = f + t->adr[k];
    if (t->type[k] == IMP_CNSTR_EQUALITY) continue;
    if (t->type[k] == IMP_CNSTR_FRICTION) {
      ck_assert_msg(fabs(fk[0]) <= t->mu[k] + slack,
                    "%s: dry friction block %d beyond its bound: |f| %.17g > %.17g", what, k,
                    fabs(fk[0]), t->mu[k]);
    } else if (t->type[k] == IMP_CNSTR_CONTACT && t->dim[k] > 1 && law == LAW_BOX) {
      for (int r = 1; r < t->dim[k]; r++)
        ck_assert_msg(fabs(fk[r]) <= t->mu[k] * fk[0] + slack,
                      "%s: block %d row %d outside its box: |f| %.17g > mu f_N %.17g", what, k,
                      r, fabs(fk[r]), t->mu[k] * fk[0]);
      double ft = sqrt(imp_dot(fk + 1, fk + 1, t->dim[k] - 1));
      if (fk[0] > 0 && t->mu[k] > 0) g_cone_ratio = fmax(g_cone_ratio, ft / (t->mu[k] * fk[0]));
    } else if (t->type[k] == IMP_CNSTR_CONTACT && t->dim[k] > 1) {
      double ft = sqrt(imp_dot(fk + 1, fk + 1, t->dim[k] - 1));
      ck_assert_msg(ft <= t->mu[k] * fk[0] + slack,
                    "%s: block %d outside its cone: ||f_T|| %.17g > mu f_N %.17g", what, k, ft,
                    t->mu[k] * fk[0]);
    } else {
      ck_assert_msg(fk[0] >= -slack, "%s: unilateral block %d pulls: f = %.17g", what, k, fk[0]);
    }
  }
}

/* r = t with every friction contact's normal target raised by mu ||w_T||,
   w = A f + v0 - b at f: the problem the CCP answer f solves exactly */
static void raise_normal_targets(const tprob* t, const double* f, tprob* r) {
  *r = *t;
  for (int k = 0; k < t->nblock; k++) {
    if (t->type[k] != IMP_CNSTR_CONTACT || t->dim[k] < 2) continue;
    double wt2 = 0;
    for (int row = 1; row < t->dim[k]; row++) {
      int i = t->adr[k] + row;
      double w = imp_dot(t->A + i * t->n, f, t->n) + t->v0[i] - t->b[i];
      wt2 += w * w;
    }
    r->b[t->adr[k]] += t->mu[k] * sqrt(wt2);
  }
}

/* gauge of f_T (m rows) for lemke's pyramid: min e'beta with D beta = f_T
   (contact.h, IMP_LEMKE_FACETS directions in the (t1, t2) plane, +-e_r for
   the other rows; [1 -1] for one friction row) */
static double pyramid_gauge(const double* ft, int m) {
  if (m == 1) return fabs(ft[0]);
  const double pi = 3.14159265358979323846, step = 2 * pi / IMP_LEMKE_FACETS;
  double ang = atan2(ft[1], ft[0]);
  if (ang < 0) ang += 2 * pi;
  double a0 = step * floor(ang / step), a1 = a0 + step;
  /* f = a d(a0) + b d(a1) */
  double a = (ft[0] * sin(a1) - ft[1] * cos(a1)) / sin(step);
  double b = (ft[1] * cos(a0) - ft[0] * sin(a0)) / sin(step);
  double g = fabs(a) + fabs(b);
  for (int r = 2; r < m; r++) g += fabs(ft[r]);
  return g;
}

/* largest dissipation -d_k' w_T over the pyramid's directions, >= 0 */
static double pyramid_slip(const double* wt, int m) {
  double lam = 0;
  if (m == 1) return fabs(wt[0]);
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < IMP_LEMKE_FACETS; k++) {
    double a = 2 * pi * k / IMP_LEMKE_FACETS;
    lam = fmax(lam, -(cos(a) * wt[0] + sin(a) * wt[1]));
  }
  for (int r = 2; r < m; r++) lam = fmax(lam, fabs(wt[r]));
  return lam;
}

/* The pyramid problem's own conditions at f, relative like the common
   residual: per block with w = A f + v0 - b, equality |w|, unilateral
   |min(f, w)|, friction |min(f_N, w_N)|, the gauge's excess over mu f_N,
   and the dissipation gap (f_T' w_T + mu f_N lambda) / (mu f_N) with lambda
   = max_k -d_k' w_T (zero iff f_T maximizes dissipation over the pyramid);
   dry friction rows (an interval, exact in every law) the same with the
   fixed bound in place of mu f_N. */
static double pyramid_residual(const tprob* t, const double* f) {
  double e2 = 0, v2 = 0, f2 = 0, w2 = 0;
  for (int k = 0; k < t->nblock; k++) {
    int adr = t->adr[k], dim = t->dim[k];
    double w[6];
    for (int r = 0; r < dim; r++) {
      int i = adr + r;
      w[r] = imp_dot(t->A + i * t->n, f, t->n) + t->v0[i] - t->b[i];
      v2 += t->v0[i] * t->v0[i], f2 += f[i] * f[i], w2 += w[r] * w[r];
    }
    const double* fk = f + adr;
    if (t->type[k] == IMP_CNSTR_EQUALITY) {
      for (int r = 0; r < dim; r++) e2 += w[r] * w[r];
    } else if (t->type[k] == IMP_CNSTR_FRICTION) {
      double R = t->mu[k];
      e2 += pow(fmax(0, fabs(fk[0]) - R), 2);
      e2 += R > 0 ? pow((fk[0] * w[0] + R * fabs(w[0])) / R, 2) : fk[0] * fk[0];
    } else if (t->type[k] != IMP_CNSTR_CONTACT || dim == 1) {
      for (int r = 0; r < dim; r++) e2 += pow(fmin(fk[r], w[r]), 2);
    } else {
      e2 += pow(fmin(fk[0], w[0]), 2);
      double R = t->mu[k] * fk[0];
      if (!(R > 0)) {
        for (int r = 1; r < dim; r++) e2 += fk[r] * fk[r];
        continue;
      }
      e2 += pow(fmax(0, pyramid_gauge(fk + 1, dim - 1) - R), 2);
      double gap = imp_dot(fk + 1, w + 1, dim - 1) + R * pyramid_slip(w + 1, dim - 1);
      e2 += pow(gap / R, 2);
    }
  }
  double scale = sqrt(fmax(v2, fmax(f2, w2)));
  return scale > 0 ? sqrt(e2) / scale : sqrt(e2);
}

/* the largest common relative residual a pyramid solver's answers had */
static double pyramid_common_max;

/* one solve and its checks. A solver that says CONVERGED must have relative
   residual <= RESIDUAL_MAX; when must_converge is 0 it may instead say
   honestly that it did not (exit MAXITER or worse), and then returns -1.
   Otherwise returns its iterations. */
static int solve_and_check(const imp_csolver* sv, const tprob* t, double* f, int warm,
                           const char* start, int must_converge) {
  char what[160];
  snprintf(what, sizeof what, "%s, %s, %s start", sv->name, t->label, start);
  tprob before = *t;
  int calls;
  imp_csolver_stat s = run(sv, t, f, warm, &calls);
  ck_assert_msg(!memcmp(&before, t, sizeof before), "%s: the solver wrote the problem", what);
  ck_assert_msg(s.exit >= IMP_EXIT_CONVERGED && s.exit < IMP_NEXIT, "%s: exit %d", what, s.exit);
  ck_assert_msg(s.exit == IMP_EXIT_CONVERGED || !must_converge,
                "%s: exit %d after %d iterations", what, s.exit, s.iterations);
  ck_assert_msg(calls == s.iterations, "%s: monitor called %d times in %d iterations", what,
                calls, s.iterations);
  int law = setting_of(sv->name).law;
  check_feasible(t, f, law, what);
  if (s.exit != IMP_EXIT_CONVERGED) return -1;
  double work[2 * MAXN], rel;
  if (law == LAW_CCP) {
    static tprob raised;
    raise_normal_targets(t, f, &raised);
    imp_cproblem p = view(&raised);
    imp_cresidual(&p, f, &rel, work);
  } else if (law == LAW_BOX) { /* the common residual is recorded, the box one checked */
    imp_cproblem p = view(t);
    imp_cresidual(&p, f, &rel, work);
    g_cone_residual = fmax(g_cone_residual, rel);
    rel = box_residual(t, f);
  } else if (law == LAW_PYRAMID) {
    imp_cproblem p = view(t);
    imp_cresidual(&p, f, &rel, work);
    pyramid_common_max = fmax(pyramid_common_max, rel);
    rel = pyramid_residual(t, f);
  } else {
    imp_cproblem p = view(t);
    imp_cresidual(&p, f, &rel, work);
  }
  ck_assert_msg(rel <= RESIDUAL_MAX, "%s: says converged at relative residual %.3e > %.0e (%d iterations)", what,
                rel, RESIDUAL_MAX, s.iterations);
  return s.iterations;
}

/* the solver of this loop index, or NULL when IMP_TEST_SOLVER names another */
static const imp_csolver* solver_under_test(int i) {
  const imp_csolver* sv = imp_solver_get(i);
  ck_assert_ptr_nonnull(sv);
  const char* only = getenv("IMP_TEST_SOLVER");
  if (only && *only && strcmp(only, sv->name)) return NULL;
  return sv;
}

/* 1 when t asks no correction (b <= 0 on unilateral rows, 0 on equalities) */
static int without_corrections(const tprob* t) {
  for (int k = 0; k < t->nblock; k++)
    for (int r = 0; r < t->dim[k]; r++) {
      double b = t->b[t->adr[k] + r];
      if (t->type[k] == IMP_CNSTR_EQUALITY ? b != 0 : b > 0) return 0;
    }
  return 1;
}

/* A converged answer of a problem without corrections adds no kinetic
   energy beyond IMP_COMMON_TOL of its scale: the contact stage rejects
   answers that do (imp_cproblem_energy_change), and must never reject a
   solution. */
static void check_dissipates(const imp_csolver* sv, const tprob* t, const double* f) {
  if (!without_corrections(t)) return;
  imp_cproblem p = view(t);
  double work[MAXN], scale, dE = imp_cproblem_energy_change(&p, f, work, &scale);
  ck_assert_msg(dE <= IMP_COMMON_TOL * scale, "%s, %s: a converged answer adds %.3g (scale %.3g)",
                sv->name, t->label, dE, scale);
}

/* Every check on NTRIAL problems of one family. must_converge: every cold
   solve must converge; otherwise (deficient rank, where the solution set can
   be unbounded along internal forces and Gauss-Seidel is known to drift)
   at least min_converged of the cold solves must, and the others must say
   they did not. */
static void check_family(int solver_index, problem_maker make, const char* family,
                         int must_converge, int min_converged) {
  const imp_csolver* sv = solver_under_test(solver_index);
  if (!sv) return;
  imp_test_rng = 0x9e3779b97f4a7c15ull; /* the same problems for every solver */
  static tprob t;
  int most = 0, most_warm = 0, converged = 0;
  pyramid_common_max = 0;
  g_cone_ratio = g_cone_residual = 0;
  for (int trial = 0; trial < NTRIAL; trial++) {
    make(&t, trial);
    double f[MAXN];
    for (int i = 0; i < t.n; i++) f[i] = NAN; /* undefined without a warm start */
    int cold = solve_and_check(sv, &t, f, 0, "cold", must_converge);
    if (cold < 0) continue;
    converged++;
    check_dissipates(sv, &t, f);
    int warm = solve_and_check(sv, &t, f, 1, "answer as warm", 1);
    ck_assert_msg(warm <= cold, "%s, %s: %d iterations from its own answer, %d cold", sv->name,
                  t.label, warm, cold);
    for (int i = 0; i < t.n; i++) f[i] *= 1 + imp_test_urand(-0.2, 0.2);
    int perturbed = solve_and_check(sv, &t, f, 1, "perturbed warm", must_converge);
    most = cold > most ? cold : most;
    most_warm = perturbed > most_warm ? perturbed : most_warm;
  }
  printf("%s on %s: %d of %d converged, at most %d iterations cold, %d from a perturbed warm "
         "start\n", sv->name, family, converged, NTRIAL, most, most_warm);
  if (setting_of(sv->name).law == LAW_BOX)
    printf("%s on %s (box friction): ||f_T|| / (mu f_N) up to %.3f, common relative residual "
           "up to %.3g at converged answers\n", sv->name, family, g_cone_ratio, g_cone_residual);
  if (is_pyramid_solver(sv->name))
    printf("%s on %s: pyramid residual <= %.0e checked; common (circular cone) relative residual "
           "up to %.3g\n", sv->name, family, RESIDUAL_MAX, pyramid_common_max);
  ck_assert_msg(converged >= min_converged, "%s on %s: only %d of %d problems converged",
                sv->name, family, converged, NTRIAL);
}

START_TEST(test_full_rank) { check_family(_i, full_rank_problem, "full rank", 1, NTRIAL); }
END_TEST

START_TEST(test_full_rank_dry) {
  check_family(_i, full_rank_dry_problem, "full rank with dry friction", 1, NTRIAL);
}
END_TEST

START_TEST(test_deficient_rank_dry) {
  check_family(_i, deficient_rank_dry_problem, "deficient rank with dry friction", 0, NTRIAL / 2);
}
END_TEST

START_TEST(test_deficient_rank) { check_family(_i, deficient_rank_problem, "deficient rank", 0, NTRIAL / 2); }
END_TEST

START_TEST(test_box_on_floor) {
  const imp_csolver* sv = imp_solver_get(_i);
  int need = sv ? setting_of(sv->name).box_converged : NTRIAL;
  check_family(_i, box_problem, "box on 4 contacts", need == NTRIAL, need);
}
END_TEST

START_TEST(test_registry) {
  /* names are unique and found again; index 0 is the default */
  ck_assert_int_ge(imp_solver_count(), 2);
  for (int i = 0; i < imp_solver_count(); i++) {
    const imp_csolver* sv = imp_solver_get(i);
    ck_assert_ptr_nonnull(sv);
    ck_assert_int_eq(imp_solver_find(sv->name), i);
    ck_assert(sv->solve && sv->work_size && sv->description);
  }
  ck_assert_ptr_null(imp_solver_get(imp_solver_count()));
  ck_assert_int_eq(imp_solver_find("no such solver"), -1);
}
END_TEST

/* Problems captured from Menagerie robots (test/data/captured/, raw: before
   the stage's immobile-row handling) on which todorov hung for ever before
   its work bound (issue 17): kinova_gen3's steps 8 and 9 (a contact whose
   normal no impulse can move: A_NN = 7e-36, target 0.6 m/s, warm start
   f_N = 1e15) and ur10e's step 218 (its shoulder capsule in the floor,
   likewise). Every solver must return, within its iteration limit, with
   finite impulses inside the cone, whatever it says about convergence:
   the problems have no solution. Check's timeout (CAPTURED_TIMEOUT) is
   what fails a hang. */
#define CAPTURED_TIMEOUT 60
static const char* const k_captured[] = {"kinova_gen3_step8", "kinova_gen3_step9",
                                         "ur10e_step218"};
#define NCAPTURED ((int)(sizeof k_captured / sizeof k_captured[0]))

START_TEST(test_captured_problems_terminate) {
  const imp_csolver* sv = imp_solver_get(_i / NCAPTURED);
  cfile_problem c;
  ck_assert_msg(cfile_read_captured(k_captured[_i % NCAPTURED], &c) == 0, "cannot read %s",
                k_captured[_i % NCAPTURED]);
  for (int warm = 0; warm <= (c.warm != NULL); warm++) {
    int n = c.p.n, maxiter = 100;
    double* f = calloc((size_t)n, sizeof *f);
    if (warm) memcpy(f, c.warm, (size_t)n * sizeof *f);
    size_t bytes = (sv->work_size(n, c.p.nblock) + 15) / 16 * 16;
    void* work = aligned_alloc(16, bytes ? bytes : 16);
    memset(work, 0xff, bytes ? bytes : 16);
    monitor_count count = {0};
    imp_csolver_opt o = {maxiter, 1e-8, warm, count_calls, &count, 0};
    imp_csolver_stat st = {-1, -1, NAN, -1};
    sv->solve(&c.p, &o, f, &st, work);
    printf("%-8s %-18s %s: %d iterations, exit %d, |f|inf %.3g\n", sv->name,
           k_captured[_i % NCAPTURED], warm ? "warm" : "cold", st.iterations, st.exit,
           imp_max_abs_or_inf(f, n));
    ck_assert_int_le(st.iterations, maxiter);
    ck_assert_int_eq(count.calls, st.iterations);
    ck_assert(st.exit >= IMP_EXIT_CONVERGED && st.exit < IMP_NEXIT);
    for (int k = 0; k < c.p.nblock; k++) {
      const double* fk = f + c.p.blk_adr[k];
      for (int r = 0; r < c.p.blk_dim[k]; r++) ck_assert(isfinite(fk[r]));
    }
    free(work);
    free(f);
  }
  cfile_free(&c);
}
END_TEST

/* Apollo's first step (test/data/captured/, raw), solved with the 4
   iterations its scene asks: todorov's best iterate there added 1.3e5 of
   kinetic energy to the island (|f| 2e3; the robot was launched to 17 m),
   so the stage replaces it with pgs's answer when that one's energy is
   lower. Checked: the rescue's answer (pgs, cold, 4 sweeps) takes the
   energy of the first iterate no higher than the corrections allow, and
   every cone solver's answer that the stage would accept (within the
   rule) is finite. Prints each solver's energy for the record. */
START_TEST(test_apollo_rescue_has_an_answer) {
  cfile_problem c;
  ck_assert_msg(cfile_read_captured("apptronik_apollo_step0", &c) == 0, "cannot read apollo");
  int n = c.p.n;
  double allowed = 0;
  for (int i = 0; i < n; i++)
    if (c.b[i] > 0) allowed += 0.5 * c.b[i] * c.b[i] / c.A[(size_t)i * n + i];
  double* work = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < imp_solver_count(); i++) {
    const imp_csolver* sv = imp_solver_get(i);
    double* f = calloc((size_t)n, sizeof *f);
    size_t bytes = (sv->work_size(n, c.p.nblock) + 15) / 16 * 16;
    void* w = aligned_alloc(16, bytes ? bytes : 16);
    imp_csolver_opt o = {4, 1e-8, 0, NULL, NULL, 0};
    imp_csolver_stat st = {0, 0, 0, 0};
    sv->solve(&c.p, &o, f, &st, w);
    double scale, dE = imp_cproblem_energy_change(&c.p, f, work, &scale);
    printf("apollo step 0, %-8s 4 iterations: dE %.4g (corrections allow %.4g x 10)\n", sv->name,
           dE, allowed);
    if (!strcmp(sv->name, "pgs"))
      ck_assert_msg(dE <= 10 * allowed, "pgs adds %.3g, more than the corrections allow", dE);
    free(w);
    free(f);
  }
  free(work);
  cfile_free(&c);
}
END_TEST

static Suite* solvers_suite(void) {
  Suite* s = suite_create("solvers");
  int count = imp_solver_count();
  TCase* tc = tcase_create("every solver");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_registry);
  tcase_add_loop_test(tc, test_full_rank, 0, count);
  tcase_add_loop_test(tc, test_deficient_rank, 0, count);
  tcase_add_loop_test(tc, test_full_rank_dry, 0, count);
  tcase_add_loop_test(tc, test_deficient_rank_dry, 0, count);
  tcase_add_loop_test(tc, test_box_on_floor, 0, count);
  suite_add_tcase(s, tc);
  TCase* cap = tcase_create("captured robot problems");
  tcase_set_timeout(cap, CAPTURED_TIMEOUT);
  tcase_add_loop_test(cap, test_captured_problems_terminate, 0, count * NCAPTURED);
  tcase_add_test(cap, test_apollo_rescue_has_an_answer);
  suite_add_tcase(s, cap);
  return s;
}

int main(void) { return imp_test_run_suite(solvers_suite()); }
