/* Siconos' 3D friction-contact solvers behind imp_csolver
 * (siconos_bridge.h says what is promised).
 *
 * The mapping. Siconos' reduced problem (FrictionContactProblem.h,
 * dimension 3) is u = W r + q with r in the cone K_mu of each contact and
 * the modified velocity u_N + mu ||u_T|| in its dual, complementary to r
 * (De Saxce's form), the local frame ordered normal first [n, t1, t2].
 * Ours (contact.h) is v = A f + v0 with v_N >= b_N, the same frame order.
 * With u = v - b the two coincide: W = A, q = v0 - b, r = f (b is 0 on
 * friction rows). A 1-row block (limit, frictionless contact) becomes a
 * 3D contact whose two tangent rows are decoupled from everything (W_TT =
 * d I, zero elsewhere; q_T = 0), so u_T = d r_T. Sticking then needs
 * u_T = 0, i.e. r_T = 0; sliding needs u_T = -s r_T with s >= 0, which
 * d > 0 allows only for r_T = 0 too: whatever the cone's mu, r_T = 0 and
 * mu ||u_T|| = 0, so the normal row obeys exactly f >= 0, v >= b,
 * complementarity, and the other rows see nothing of the padding. We give
 * these blocks mu = 1, not 0: Siconos 4.4's Fischer-Burmeister Newton does
 * not converge on mu = 0 cones (one such contact, W = 2 I, q_N = -1.5:
 * 200 iterations, error 0.63, where NSGS and Alart-Curnier take 1 or 2).
 *
 * W is stored dense (NM_DENSE is column-major; A is symmetric, so the
 * row-major copy is the same matrix). Siconos frees W, q and mu with the
 * problem, so they are malloc'd here. */
#define _POSIX_C_SOURCE 200809L

#include "siconos_bridge.h"

#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>

/* ---- which problems map ---- */

/* 1 when block k is a condim-3 contact or a one-row unilateral block. */
static int block_maps(const imp_cproblem* p, int k) {
  int type = p->blk_type[k], dim = p->blk_dim[k];
  if (type == IMP_CNSTR_CONTACT) return dim == 3 || dim == 1;
  return type == IMP_CNSTR_LIMIT && dim == 1;
}

int siconos_bridge_accepts(const imp_cproblem* p) {
  if (p->nblock <= 0) return 0;
  for (int k = 0; k < p->nblock; k++)
    if (!block_maps(p, k)) return 0;
  return 1;
}

/* ---- the conversion ---- */

/* Siconos row of our row i: block k's row a goes to 3 k + a. Fills map (n). */
static void fill_row_map(const imp_cproblem* p, int* map) {
  for (int k = 0; k < p->nblock; k++)
    for (int a = 0; a < p->blk_dim[k]; a++) map[p->blk_adr[k] + a] = 3 * k + a;
}

/* Diagonal of a padded tangent row: the block's normal diagonal keeps W's
   scale (it only conditions Siconos' local solves; r_T stays 0). */
static double padding_diagonal(const imp_cproblem* p, int k) {
  int i = p->blk_adr[k];
  double d = p->A[(size_t)i * (size_t)p->n + (size_t)i];
  return d > 0 && isfinite(d) ? d : 1.0;
}

/* W (N x N, N = 3 nblock), q and mu of Siconos' problem from p. */
static void convert_problem(const imp_cproblem* p, const int* map, double* W, double* q,
                            double* mu) {
  int n = p->n;
  size_t N = 3 * (size_t)p->nblock;
  memset(W, 0, sizeof(double) * N * N);
  memset(q, 0, sizeof(double) * N);
  for (int i = 0; i < n; i++) {
    q[map[i]] = p->v0[i] - p->b[i];
    for (int j = 0; j < n; j++) W[(size_t)map[i] * N + (size_t)map[j]] = p->A[(size_t)i * n + j];
  }
  for (int k = 0; k < p->nblock; k++) {
    mu[k] = p->blk_dim[k] == 3 ? p->mu[k] : 1.0; /* any mu > 0 is exact, see above */
    for (int a = p->blk_dim[k]; a < 3; a++)
      W[(size_t)(3 * k + a) * N + (size_t)(3 * k + a)] = padding_diagonal(p, k);
  }
}

/* our f from Siconos' reactions r */
static void reactions_to_impulses(const imp_cproblem* p, const int* map, const double* r,
                                  double* f) {
  for (int i = 0; i < p->n; i++) f[i] = r[map[i]];
}

/* ---- the per-iteration callback ---- */

typedef struct bridge_env {
  const imp_cproblem* p;
  const imp_csolver_opt* o;
  const int* map;
  double* f; /* n: the current iterate in our layout */
  int calls;
} bridge_env;

/* Siconos' Callback.collectStatsIteration: hand the iterate to our monitor. */
static void collect_iteration(void* env, int size, double* reaction, double* velocity,
                              double error, void* extra) {
  bridge_env* e = env;
  (void)size, (void)velocity, (void)error, (void)extra;
  reactions_to_impulses(e->p, e->map, reaction, e->f);
  e->o->monitor(e->o->monitor_ctx, ++e->calls, e->f);
}

/* ---- solving ---- */

/* Siconos' info and iteration count as our exit reason. */
static int exit_reason(int info, int iterations, int maxiter) {
  if (info == 0) return IMP_EXIT_CONVERGED;
  return iterations >= maxiter ? IMP_EXIT_MAXITER : IMP_EXIT_FAILED;
}

/* ---- surviving Siconos' assertions ---- */

/* Debian's Siconos 4.4 is built with assertions, and some fire on our
   recorded problems (fc3d_FischerBurmeisterFGenerated: `-x12 + x6>=0.`, a
   rounding-negative square-root argument, on 18 of the 100 problems of the
   built-in scenes). An
   assertion calls abort(); one solve must not end the whole comparison, so
   while Siconos runs, SIGABRT jumps back to the bridge, which reports that
   solve as failed. The handler is installed once; outside Siconos it
   restores the default action and re-raises, so other aborts still abort. */
static sigjmp_buf g_abort_jump;
static volatile sig_atomic_t g_in_siconos;

static void on_abort(int sig) {
  if (g_in_siconos) siglongjmp(g_abort_jump, 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_abort_handler(void) {
  static int installed;
  if (installed) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_abort;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGABRT, &sa, NULL);
  installed = 1;
}

/* After the jump SIGABRT is still blocked (sigsetjmp did not save the mask,
   to keep a syscall out of every timed solve): unblock it. */
static void unblock_abort(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGABRT);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* fc3d_driver, or -1 with *aborted set when Siconos aborted. */
static int guarded_driver(FrictionContactProblem* fc, double* r, double* u, SolverOptions* so,
                          int* aborted) {
  volatile int info = -1;
  install_abort_handler();
  *aborted = 0;
  if (sigsetjmp(g_abort_jump, 0) == 0) {
    g_in_siconos = 1;
    info = fc3d_driver(fc, r, u, so);
  } else {
    unblock_abort();
    *aborted = 1;
  }
  g_in_siconos = 0;
  return info;
}

/* A Siconos problem owning copies of p's data; NULL when out of memory. */
static FrictionContactProblem* make_problem(const imp_cproblem* p, const int* map) {
  int nc = p->nblock, N = 3 * nc;
  double* W = malloc(sizeof(double) * (size_t)N * (size_t)N);
  double* q = malloc(sizeof(double) * (size_t)N);
  double* mu = malloc(sizeof(double) * (size_t)nc);
  NumericsMatrix* M = W ? NM_create_from_data(NM_DENSE, N, N, W) : NULL;
  if (!W || !q || !mu || !M) {
    if (M) NM_free(M); /* frees W with it, and the matrix itself */
    else free(W);
    free(q), free(mu);
    return NULL;
  }
  convert_problem(p, map, W, q, mu);
  return frictionContactProblem_new_with_data(3, nc, M, q, mu);
}

/* Siconos 4.4's solver_options_delete releases what a SolverOptions holds
   but not the structures themselves, the top one nor its internal solvers'
   (valgrind: 120 bytes each per solve, allocated in solver_options_create).
   Collect them first (depth first, at most max), free them after. */
static int collect_options(SolverOptions* so, SolverOptions** list, int n, int max) {
  if (!so || n >= max) return n;
  list[n++] = so;
  for (size_t i = 0; i < so->numberOfInternalSolvers; i++)
    n = collect_options(so->internalSolvers[i], list, n, max);
  return n;
}

static void delete_options(SolverOptions* so) {
  SolverOptions* list[16];
  int n = collect_options(so, list, 0, 16);
  solver_options_delete(so);
  for (int i = 0; i < n; i++) free(list[i]);
}

/* Solve p with Siconos' solver id; the imp_csolver contract otherwise. */
static void solve_with(int id, const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                       imp_csolver_stat* s) {
  *s = (imp_csolver_stat){0, 0, INFINITY, IMP_EXIT_FAILED};
  int n = p->n, N = 3 * p->nblock;
  for (int i = 0; i < n; i++) f[i] = 0;
  if (!siconos_bridge_accepts(p) || !imp_cproblem_is_finite(p)) return;
  int* map = malloc(sizeof(int) * (size_t)n);
  double* r = calloc((size_t)N, sizeof(double));
  double* u = calloc((size_t)N, sizeof(double));
  double* fi = malloc(sizeof(double) * (size_t)n);
  FrictionContactProblem* fc = NULL;
  SolverOptions* so = NULL;
  if (map) fill_row_map(p, map), fc = make_problem(p, map);
  if (fc) so = solver_options_create(id);
  if (map && r && u && fi && fc && so) {
    if (o->warmstart) /* a warm start is f in our layout */
      for (int i = 0; i < n; i++) r[map[i]] = f[i];
    so->iparam[SICONOS_IPARAM_MAX_ITER] = o->maxiter;
    so->dparam[SICONOS_DPARAM_TOL] = o->tol;
    bridge_env env = {p, o, map, fi, 0};
    Callback cb = {&env, collect_iteration};
    if (o->monitor) so->callback = &cb;
    int aborted;
    int info = guarded_driver(fc, r, u, so, &aborted);
    so->callback = NULL; /* ours, on the stack: Siconos must not free it */
    s->iterations = aborted ? env.calls : so->iparam[SICONOS_IPARAM_ITER_DONE];
    s->residual = aborted ? INFINITY : so->dparam[SICONOS_DPARAM_RESIDU];
    s->exit = aborted ? IMP_EXIT_FAILED : exit_reason(info, s->iterations, o->maxiter);
    reactions_to_impulses(p, map, r, f);
    if (!(imp_max_abs_or_inf(f, n) < INFINITY)) {
      for (int i = 0; i < n; i++) f[i] = 0;
      s->exit = IMP_EXIT_FAILED;
    }
    if (aborted) { /* Siconos' structures may be half-updated: leak them, not crash */
      fprintf(stderr, "impetus: Siconos aborted (see its assertion above); this solve counts "
                      "as failed\n");
      fc = NULL, so = NULL;
    }
  }
  if (so) delete_options(so);
  if (fc) frictionContactProblem_free(fc);
  free(map), free(r), free(u), free(fi);
}

/* Under AddressSanitizer: Siconos 4.4's nonsmooth Newton solvers (AC and FB)
   lose 64 bytes per solve, an NM_new inside NM_preserve inside
   fc3d_nonsmooth_Newton_solvers_solve (valgrind, full stacks; nothing of
   ours). LeakSanitizer's fast unwinder stops at NM_new, Siconos being built
   without frame pointers, so that is the frame suppressed; valgrind shows
   no other leak through the bridge. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
const char* __lsan_default_suppressions(void);
const char* __lsan_default_suppressions(void) { return "leak:NM_new\n"; }
#endif
#endif

static size_t no_work(int n, int nblock) {
  (void)n, (void)nblock;
  return 0;
}

static void solve_nsgs(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                       imp_csolver_stat* s, void* work) {
  (void)work;
  solve_with(SICONOS_FRICTION_3D_NSGS, p, o, f, s);
}

static void solve_ac(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                     imp_csolver_stat* s, void* work) {
  (void)work;
  solve_with(SICONOS_FRICTION_3D_NSN_AC, p, o, f, s);
}

static void solve_fb(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                     imp_csolver_stat* s, void* work) {
  (void)work;
  solve_with(SICONOS_FRICTION_3D_NSN_FB, p, o, f, s);
}

static const imp_csolver k_solvers[] = {
    {"siconos_nsgs", "Siconos nonsmooth Gauss-Seidel (SICONOS_FRICTION_3D_NSGS)", no_work,
     solve_nsgs, IMP_LAW_CONE, 2, NULL, 0},
    {"siconos_ac", "Siconos Alart-Curnier nonsmooth Newton (SICONOS_FRICTION_3D_NSN_AC)",
     no_work, solve_ac, IMP_LAW_CONE, 3, NULL, 0},
    {"siconos_fb", "Siconos Fischer-Burmeister nonsmooth Newton (SICONOS_FRICTION_3D_NSN_FB)",
     no_work, solve_fb, IMP_LAW_CONE, 3, NULL, 0},
};

int siconos_bridge_count(void) { return (int)(sizeof k_solvers / sizeof k_solvers[0]); }

const imp_csolver* siconos_bridge_solver(int k) {
  return k >= 0 && k < siconos_bridge_count() ? &k_solvers[k] : NULL;
}
