/* The contact stage: the pluggable solver interface, the solver registry,
 * the common accuracy measure, and the stage that builds each island's
 * contact-space problem and hands it to the chosen solver.
 *
 *   contact.c            the stage imp_contact_stage: islands, Delassus
 *                        matrices, warm start, impulses back to joint space;
 *                        the registry of solvers by name
 *   solvers/residual.c   the common residual every solver is measured by
 *   solvers/<name>.c     one solver per file (todorov, pgs, ...)
 *
 * The problem of one island (Todorov 2010, eq. 1 and 11):
 *
 *     v = A f + v0,   A = K M^-1 K' (n x n, symmetric positive semidefinite)
 *
 * with one block per constraint, rows in order, and the laws per block:
 *  - IMP_CNSTR_EQUALITY (dim 1..6): v = b, f free;
 *  - IMP_CNSTR_LIMIT (dim 1): f >= 0, v >= b, f (v - b) = 0;
 *  - IMP_CNSTR_CONTACT, dim 1: as a limit (frictionless);
 *  - IMP_CNSTR_CONTACT, dim 3, 4 or 6: row 0 the normal, rows 1.. friction;
 *    f in the circular cone ||f_T|| <= mu f_N, v_N >= b_N, f_N (v_N - b_N)
 *    = 0, and friction opposes slip with maximal dissipation: if
 *    ||f_T|| < mu f_N then v_T = 0, else v_T = -s f_T for some s >= 0.
 *    b is zero on friction rows.
 *  - IMP_CNSTR_FRICTION (dim 1): dry friction with a bound fixed in advance
 *    (MJCF joint frictionloss times h), held in mu[k]: |f| <= mu[k], and
 *    friction opposes slip with maximal dissipation: if |f| < mu[k] then
 *    v = 0, else v = -s f for some s >= 0. b is zero. It is the friction
 *    row of a contact whose normal impulse is known, so it keeps the
 *    dissipation law: f v <= 0.
 * The MJCF elliptic cone of condim 4 and 6 (torsional and rolling friction)
 * reaches the solvers as this circular cone: the stage divides those rows'
 * impulses by their coefficient relative to the sliding one (d->blk_scale)
 * and multiplies their velocities by it, which maps the elliptic cone onto
 * the circular one and keeps f'v, so the dissipation law is unchanged.
 *
 * What a solver promises:
 *  - it reads the problem and writes f (and s) only; it never allocates:
 *    all scratch comes from work, work_size(n, nblock) bytes, 16-byte aligned;
 *  - it knows nothing of bodies or geoms, so it is testable on hand-made
 *    problems;
 *  - on entry f holds a warm start when o->warmstart is set (otherwise its
 *    content is undefined and the solver initializes itself);
 *  - on exit f is its best iterate, never NaN (a solver that fails returns
 *    zeros or its last finite iterate and says so in s->exit);
 *  - it calls o->monitor (when set) once per iteration with its current f,
 *    so a benchmark can measure any solver the same way (residual.c). */
#ifndef IMPETUS_CONTACT_H
#define IMPETUS_CONTACT_H

#include <stddef.h>

#include "engine.h"

/* The contact-space problem of one island. Arrays are the problem's, the
   solver must not write them. */
typedef struct imp_cproblem {
  int n;              /* rows */
  int nblock;         /* constraint blocks */
  const int* blk_adr; /* nblock: first row of each block */
  const int* blk_dim; /* nblock: rows of each block */
  const int* blk_type;/* nblock: imp_constraint_type */
  const double* mu;   /* nblock: cone coefficient (contacts with dim > 1), the
                         impulse bound (IMP_CNSTR_FRICTION, >= 0), else 0 */
  const double* A;    /* n x n, row-major, symmetric positive semidefinite */
  const double* v0;   /* n: v when f = 0 */
  const double* b;    /* n: stabilization targets (0 on friction rows) */
  double h;           /* time step, for solvers that scale by it */
  /* Optional (U NULL when absent): A by the island's dofs, A = R U W U' R
     to rounding, with U n x rank by columns (column l at U + l U_ld),
     R = diag(U_rowscale) (n) and W = diag(U_colweight) (rank, >= 0): the
     stage's Y = K L^-1 (contact.c). A solver may use it to work in the
     rank-dimensional space of the island's dofs when that is much smaller
     than n (todorov's joint-space Gauss-Newton model); A stays what the
     problem means. */
  const double* U;
  int rank, U_ld;
  const double *U_rowscale, *U_colweight;
  /* Optional (0 when absent): a speed below which velocity errors count as
     resolved, the floor of the relative residuals' scales (todorov's
     stopping test, imp_cresidual). The stage sets it to |gravity| h, what
     gravity adds to a speed in one step (contact.c, speed_floor). */
  double vfloor;
  /* Optional (NULL when absent): A's nonzeros by rows, row i's columns at
     A_col[A_rowadr[i] .. A_rowadr[i + 1]), ascending; every entry left out
     is +-0. A product over them (imp_cproblem_row_times) is the same bits
     as the dense one for a finite vector. The stage gives it to large
     islands whose A is sparse (contact_sparse.h). */
  const int *A_rowadr, *A_col;
} imp_cproblem;

/* Why a solver stopped. Ordered from good to bad: the stage reports the
   worst over islands. */
typedef enum imp_solver_exit {
  IMP_EXIT_CONVERGED = 0, /* own stopping test met */
  IMP_EXIT_MAXITER = 1,   /* o->maxiter reached */
  IMP_EXIT_STALLED = 2,   /* no progress possible (Todorov: local minimum) */
  IMP_EXIT_DIVERGED = 3,  /* the iterates grew without bound; reported, not hidden */
  IMP_EXIT_FAILED = 4,    /* no solution found (e.g. Lemke's ray termination) */
  IMP_NEXIT
} imp_solver_exit;

typedef struct imp_csolver_opt {
  int maxiter;      /* most iterations */
  double tol;       /* tolerance on the solver's own stopping measure */
  int warmstart;    /* 1: f holds a starting point */
  /* called after every iteration with the current impulses (may be NULL) */
  void (*monitor)(void* ctx, int iter, const double* f);
  void* monitor_ctx;
  /* 0, or a bound on |f| past which the iterates of a problem are taken to
     grow without bound: a solver may stop with IMP_EXIT_DIVERGED once its
     impulses stayed beyond it for IMP_FMAX_ITERS iterations in a row
     (todorov does; the stage passes IMP_HOLD_FACTOR M IMP_STAB_VMAX, its
     bound of a suspect answer) */
  double fmax;
} imp_csolver_opt;

/* Iterations in a row beyond imp_csolver_opt.fmax before a solver gives up.
   Conflicting corrections (targets no motion meets together) have no
   solution, and the iterates' impulses grow past the bound and stay: on
   Menagerie's barkour_v0 scene_barkour from qpos0, todorov's largest
   impulse went from 1.8 to 227 between iterations 10 and 20 and was 375 at
   its limit of 100, every step, where the held problem the stage then
   solves converges in 7 to 35. */
#define IMP_FMAX_ITERS 10

typedef struct imp_csolver_stat {
  int iterations;     /* iterations done */
  int newton;         /* iterations that accepted a Newton point (0 if the solver has none) */
  double residual;    /* the solver's own final measure */
  int exit;           /* imp_solver_exit */
} imp_csolver_stat;

/* The law a solver's answers satisfy. Only IMP_LAW_CONE answers are held to
   the common residual (the stage downgrades their "converged" when it
   disagrees); the others solve a different problem on purpose and are
   measured by their own law (test_solvers.c). */
typedef enum imp_solver_law {
  IMP_LAW_CONE = 0,       /* the exact circular cone with maximal dissipation */
  IMP_LAW_RELAXED = 1,    /* the cone complementarity relaxation (ccp) */
  IMP_LAW_POLYHEDRAL = 2  /* a pyramid or box of friction (lemke, minmap) */
} imp_solver_law;

/* The relative common residual (imp_cresidual) above which the stage does
   not believe a cone solver's "converged" (measured: converged answers of
   every cone solver are below 1e-6 on test_solvers.c's problems). */
#define IMP_COMMON_TOL 1e-6
/* The contact stage (contact.c) keeps an answer that adds at most this many
   times the kinetic energy its corrections justify; past it, the step that
   holds every violation is solved instead. */
#define IMP_HOLD_FACTOR 10.0
/* Sweeps of projected Gauss-Seidel the stage gives an unfinished answer of
   a cone solver other than pgs, warm-started from it, when the guards let
   the answer through (contact.c, polish_unfinished). Measured on
   Menagerie's toddlerbot_2xc scene_mjx.xml (iterations="1"), 2000 steps:
   NaN resets 222 without, 0 with 5 sweeps (fastest body 3.0 m/s); swept
   before the guards and kept unconditionally, 1, 5 and 20 sweeps all gave
   0 resets, the fastest joint 32, 16 and 13 rad/s. */
#define IMP_POLISH_SWEEPS 5

/* The work bound of one island's solve (issue 17: every solve ends, and
   its cost is bounded): the iteration limit is lowered so that iterations
   times n^work_power stays within IMP_SOLVE_WORK_MAX multiply-adds, never
   below IMP_SOLVE_MIN_ITER. 4e7 is 1,000 iterations of a 34-row island and
   leaves every island of MuJoCo's humanoid samples and our scenes below 160
   rows its full limit; Menagerie's aloha from qpos0 (276 rows that no solver
   converges) gets 2 Todorov iterations and 100 sweeps of the held step.
   Islands cut short are counted (imp_data.solver_bounded). */
#define IMP_SOLVE_WORK_MAX 4e7

/* The least iteration limit at which an unfinished solve is tried again
   with every contact's target at 0 (contact.c, contact_guard.c); below it
   only those of contacts at rest. An answer cut that short is the limit's
   doing more than the targets': held, two boxes sunk into each other with
   iterations="2" stayed sunk (each retry converged at f = 0). */
#define IMP_HOLD_MIN_ITER 10

/* Islands of at most this many rows whose cone solve stopped short of the
   tolerance (stalled or at its limit, no guard suspecting it) are solved
   once more by `primal` (solvers/primal.c), cold, and its answer is kept
   when the common residual of the exact law is within the tolerance: the
   relaxed answer is the exact one wherever no contact slides. Measured on
   Menagerie's i2rt_yam (29 rows, 6 identical gripper pad blocks), where
   todorov stalls at 1.4e-8 .. 6.2e-8 relative: primal converged on every
   recorded island in 15-21 iterations, to 1.6e-11 .. 5.6e-9. The bound
   keeps its scratch (about 13 n^2 doubles) small in every arena. */
#define IMP_PRIMAL_RESCUE_ROWS 64
#define IMP_SOLVE_MIN_ITER 2

typedef struct imp_csolver {
  const char* name;        /* as in option solver="..." and --solver */
  const char* description; /* one line for `impetus solvers` */
  /* scratch bytes solve needs for a problem of n rows and nblock blocks */
  size_t (*work_size)(int n, int nblock);
  void (*solve)(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                imp_csolver_stat* s, void* work);
  int law;                 /* imp_solver_law; 0 (the cone) when not given */
  /* an iteration on n rows costs about n^work_power multiply-adds: 3 for
     the Newton solvers (a dense factor), 2 for the sweeps and pivots; the
     stage bounds a solve's work with it (IMP_SOLVE_WORK_MAX) */
  int work_power;
  /* islands of this many rows or more are solved on the caller's thread
     (0: on any): from there the solver factors with LAPACK (OpenBLAS),
     whose results are not promised to be the same on every thread, so the
     caller's thread makes them those of a one-thread run (contact.c) */
  int (*caller_min_rows)(void); /* NULL: 0 */
  /* 1 when the solver reads A only by rows' products
     (imp_cproblem_row_times) and row blocks: an iteration then costs about
     nnz(A) + n where the problem carries A's pattern (pgs) */
  int sparse_rows;
} imp_csolver;

/* ---- the registry (solvers/registry.c) ---- */

/* Number of solvers; solver i; index of a name or -1. Index 0 is the default. */
int imp_solver_count(void);
const imp_csolver* imp_solver_get(int i);
int imp_solver_find(const char* name);

/* The solvers (solvers/<name>.c) */
extern const imp_csolver imp_solver_todorov;
extern const imp_csolver imp_solver_pgs;
extern const imp_csolver imp_solver_ccp;
extern const imp_csolver imp_solver_lemke;
extern const imp_csolver imp_solver_nsn_fb;
extern const imp_csolver imp_solver_minmap;
extern const imp_csolver imp_solver_prox;
extern const imp_csolver imp_solver_primal;

/* lemke's friction pyramid: this many unit directions (cos 2 pi k / F,
   sin 2 pi k / F) in the (t1, t2) plane of a contact, plus +-e_r for each
   torsional and rolling row (solvers/lemke.c) */
#define IMP_LEMKE_FACETS 8

/* ---- the common accuracy measure (solvers/residual.c) ---- */

/* Natural-map residual of the problem's conditions at f, in De Saxce's
   form: per block e = f - P(f - w) with w = v - b, v = A f + v0, and for
   friction blocks w_N += mu ||w_T|| and P the projection onto the cone
   ||f_T|| <= mu f_N (for limits and frictionless contacts f_N >= 0, for
   equalities all of R^dim, so e = w, for dry friction rows the interval
   [-mu, mu]). Returns ||e|| (2-norm over all
   rows); *relative (may be NULL) gets ||e|| / max(||v0||, ||f||, ||w||)
   with w = A f + v0 - b, as the issue writes it (||e|| itself when all
   three are 0). work: 2n doubles. The measure of
   Siconos' fc3d_compute_error and FCLIB, so numbers compare with theirs. */
double imp_cresidual(const imp_cproblem* p, const double* f, double* relative, double* work);
/* (A v)_i, a sequential sum over j as imp_dot's, over A's pattern when p
   carries one (A_rowadr): the same bits for a finite v */
double imp_cproblem_row_times(const imp_cproblem* p, int i, const double* v);
/* The same for a caller that has v = A f + v0 (each v_i imp_dot(A_i, f, n)
   + v0_i): the same bits, without computing A f again. */
double imp_cresidual_at(const imp_cproblem* p, const double* f, const double* v, double* relative,
                        double* work);

/* The Euclidean projection of f onto the problem's set K, block by block,
   in place: cones for friction contacts, R+ for limits and frictionless
   contacts, [-mu, mu] for dry friction, nothing for equalities. */
void imp_cproblem_project(const imp_cproblem* p, double* f);
/* The relative natural-map residual of the cone complementarity relaxation
   at x with w = A x + v0 - b: ||x - P_K(x - w)|| / max(||v0||, ||x||, ||w||)
   (DBL_MIN when all are 0); 0 exactly at a CCP solution. The stopping
   measure of ccp.c and primal.c, so their answers compare. tmp: n. */
double imp_ccp_residual(const imp_cproblem* p, const double* x, const double* w, double* tmp);

/* Shared checks for solvers: A's diagonal, v0, b and mu all finite (else
   there is nothing to solve); ||f||_inf, or +inf when any entry is not
   finite (fmax would skip a NaN). */
int imp_cproblem_is_finite(const imp_cproblem* p);
double imp_max_abs_or_inf(const double* f, int n);

/* The kinetic energy impulses f add to the island, dE = f'v0 + f'A f / 2
   (u+ = u_free + M~^-1 K' f, energies in the metric of M~), and in *scale
   the size of its rounding (sum of |f_i v0_i| + |f_i (A f)_i|). A solution
   of a problem with b <= 0 never adds energy (dE = f'v - f'A f / 2 and f'v
   = f'b + friction's f_T'v_T <= 0); the stage uses this to reject answers
   (contact.c). work: n doubles. (contact.c) */
double imp_cproblem_energy_change(const imp_cproblem* p, const double* f, double* work,
                                  double* scale);

/* Euclidean projection of (fn, ft[0..nt)) onto the cone ||ft|| <= mu fn
   (in place). For dim 1 blocks use fmax(fn, 0). */
void imp_cone_project(double* f, int dim, double mu);

/* ---- recording problems (contact.c) ---- */

/* Called by the stage with every island's problem of data d just before
   it is solved, and the warm start it will be given (NULL when cold). The
   pointers are valid only during the call: copy what you keep. The hook
   belongs to the data (d->problem_hook; NULL: none), so datas stepped on
   other threads have their own; with imp_set_threads > 1 it is called
   from the workers, one island at a time per worker, and must be safe for
   that (the recorders in apps/ and test/ use one thread). */
typedef void (*imp_problem_hook)(void* ctx, const imp_cproblem* p, const double* warm);
void imp_set_problem_hook(imp_data* d, imp_problem_hook hook, void* ctx);

/* ---- the step's work budget (contact.c) ----
 *
 * Work is counted, never timed, so results are bitwise the same whatever
 * the machine's load and the thread count: a solve of n rows that ran k
 * iterations did k n^work_power multiply-adds (imp_csolver.work_power),
 * an estimate of the solver's own cost (the Delassus assembly and the
 * residual checks, O(n^2) a solve, are not counted). d->solver_work sums
 * it over the step's solves (retries included) and islands.
 *
 * The budget d->step_budget (imp_set_step_budget) is split between the
 * islands before any is solved, in proportion to the most work each may
 * do under its per-solve bound (IMP_SOLVE_WORK_MAX: the solve, the held
 * solve and the pgs rescue); when that sum fits the budget every island
 * gets all it may use and nothing changes. An island's solves then draw
 * on its share in order: a solve's iteration limit is lowered to what is
 * left (never below IMP_SOLVE_MIN_ITER). An island stopped unconverged
 * because of it is marked IMP_ISLAND_OVER_BUDGET; d->solver_over_budget
 * counts those islands, d->nstep_over_budget the forwards with one. A
 * share fixed in advance, not what the islands before left over, because
 * islands are solved in any order on any thread.
 *
 * So a step's solver work is at most the budget plus, per island of n
 * rows, the minimum iterations of its three solves (four on islands of at
 * most IMP_PRIMAL_RESCUE_ROWS rows): 4 IMP_SOLVE_MIN_ITER n^3, bounded by
 * the model's size (nislandmax, njmax) whatever the input.
 * The default, 1e9 (a few seconds of one core: test_cli_signals' step of 100 pgs
 * islands at their per-solve bound took 2.6 s with it, 7.9 s without, on
 * a loaded machine), is more than any step of
 * our scenes, tests and MuJoCo's samples does; one island of 177 rows
 * (models/box_pyramid.xml with one box moved 4 cm, todorov at its limit
 * every step) does 4e7 (the per-solve bound). */
#define IMP_STEP_WORK_DEFAULT 1e9

/* ---- the stage (contact.c) ---- */

/* Bytes of arena the stage needs at most for model m with solver index
   `solver`: the largest island's Delassus matrix and that solver's scratch
   (and the pgs rescue's), for data.c's sizing. */
size_t imp_contact_arena_bytes(const imp_model* m, int solver);

/* With threads, grow the workers' scratch from solver index `old`'s need
   to d->solver's (the arena is the caller's: imp_contact_fit_solver in
   engine/data.c). 0, or -1 when the memory cannot be had. */
int imp_contact_fit_workers(const imp_model* m, imp_data* d, int old);

/* Solve every island of the rows made by imp_constraints with d->solver,
   write efc_impulse, efc_vel, qfrc_constraint and the statistics. */
void imp_contact_stage(const imp_model* m, imp_data* d);

#endif
