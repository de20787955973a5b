/* Internals of Todorov's solver shared by its files (not a public header):
 *   todorov.c         the iteration (Section III.E), the proximal outer
 *                     loop, the solver table; the derivations in its header
 *   todorov_model.c   small dense linear algebra, f(x) and r(x) (eqs.
 *                     10-15), edges and the Jacobian on them (25-26, 29),
 *                     the Gauss-Newton model restricted to B (20-24, 28)
 *   todorov_search.c  the edge-aware linesearch (Section III.C, eq. 27) and
 *                     the initialization (Section III.F)
 * What it promises: the solver's state (tod) is carved from the caller's
 * work buffer; no function here allocates. */
#ifndef IMPETUS_TODOROV_IMPL_H
#define IMPETUS_TODOROV_IMPL_H

#include <stddef.h>

#include "constraint/contact.h"
#include "core/mathx.h" /* v4d */

#define MAXDIM 6
#define LAPACK_MIN_ROWS 64 /* from here dpotrf beats our loop (measured: 0.033 vs 0.038 ms at 64, 0.47 vs 1.34 at 276) */
#define EDGE_TOL 1e-9       /* relative distance to an edge counted as "on" it */
#define RANK_TOL 1e-11      /* pivots below this times max diag(A) are zero */
#define LAMBDA_UP 10.0      /* lambda *= otherwise (2, 4, 100 measured: no better) */
#define LAMBDA_DOWN 10.0    /* lambda /= on an accepted Newton point */
#define GEODESIC_MAX 0.75   /* the correction is tried when |a| <= this times |d| */
#define LAMBDA_INIT 1e-8    /* Levenberg-Marquardt lambda, relative to max diag J'J */
#define LAMBDA_MIN 1e-14
#define LAMBDA_MAX 1e8
/* fraction of the predicted decrease (Section III.A) that accepts x_N. The
   paper's implementation uses 0.5; near redundant contacts a Newton point
   gaining 3% where its model promised 5% failed that test, and every other
   iteration became a dogleg step that gained 0.01%, so l crawled in a
   2-iteration rhythm the crawl test never saw (humanoid100's island of 70
   rows: 1.4e-5 to 1.2e-6 in 80 iterations). `impetus bench`, steps not
   converged (iterations a step), 0.5 -> 0.1: humanoid100 500 steps 75 -> 34
   (54.4 -> 47.1), 22_humanoids 1000 1 -> 1 (23.9 -> 23.6), humanoid 5000
   1 -> 1 (0.213 -> 0.221), arch 2000 62 -> 0, balls_cube 21 -> 1,
   capsule_pile 1600 -> 1597 (92.4 -> 74.4), terrain 19 -> 19; 0.25 left
   arch at 60 and 22_humanoids at 5, 0.01 and 1e-4 humanoid at 13-14. */
#define NEWTON_ACCEPT 0.1
#define WARM_CONE_TOL 1e-9  /* relative: a warm f_T this close to the cone is on it */
#define ALPHA_EPS 1e-12     /* crossings closer than this to a segment end are the end */
#define MAX_VALLEYS 32      /* valley moves per solve */
#define VALLEY_CRAWL 1e-2  /* relative decrease of l below which an iteration crawls */
#define NULL_EPS 1e-10      /* filter of the null-space projection, relative to max diag H */
#define VALLEY_NULL_MIN 1e-6 /* ||z|| / ||w|| below this: J is not singular along w */
#define VALLEY_REACH 1e3    /* the valley ray's length relative to ||x||_inf */
#define VALLEY_SLACK 1e-6   /* relative increase of l tolerated at the valley's edge */
#define GS_RESTARTS 3       /* Gauss-Seidel restarts per solve before the proximal loop (todorov.c) */

/* when the residual rescaling of Section V.A is applied */
enum { RESCALE_NEVER = 0, RESCALE_ON_LOCAL_MIN = 1, RESCALE_ALWAYS = 2 };
#define RESCALE_DEFAULT RESCALE_ALWAYS /* measured: see the header */

#define PROX_RHO 10.0      /* the first rho relative to mean diag(A) */
#define PROX_RHO_MIN 1e-10
#define PROX_RHO_MAX 1e4
#define PROX_ETA 0.1      /* an inner solve ends when r_rho fell to this fraction */
#define PROX_GROW 10.0    /* rho *= after an inner local minimum */
#define PROX_SHRINK 10.0  /* rho /= after an inner solve of at most PROX_FAST iterations */
#define PROX_FLOOR 3.0
#define PROX_FLOOR_DECAY 0.5
#define PROX_GOOD 0.5
#define PROX_TOTAL_CRAWLS 5
#define PROX_REACH 1e3
#define PROX_FAST 3
#define PROX_CRAWLS 3
#define PROX_OFF_EDGE_CRAWLS 10 /* consecutive crawls off edges: a smooth local minimum */
#define PROX_STALL_ITERS 20   /* the proximal loop stops when its best ||r|| fell */
#define PROX_STALL_GAIN 0.5   /* by less than this factor over so many iterations */
#define PROX_STALL_NEAR 1e2   /* and is within this factor of the tolerance */

enum { REG_EQ, REG_BREAK, REG_STICK, REG_SLIP };
enum { EDGE_NONE, EDGE_PLANE, EDGE_CONE };

typedef struct crossing {
  double alpha;
  int blk, kind;
} crossing;


/* imp_dot(a, b, len) for the short vectors of one block (a friction
   pair, a block row): the same sum 0 + a0 b0 + a1 b1 + ... in order,
   written out for the usual lengths (the loop's overhead is most of the
   cost of two terms) */
static inline double imp_tod_dot_small(const double* a, const double* b, int len) {
  switch (len) {
    case 1: return 0.0 + a[0] * b[0];
    case 2: return (0.0 + a[0] * b[0]) + a[1] * b[1];
    case 3: return ((0.0 + a[0] * b[0]) + a[1] * b[1]) + a[2] * b[2];
    default: {
      double sum = 0;
      for (int i = 0; i < len; i++) sum += a[i] * b[i];
      return sum;
    }
  }
}

/* the solver's state, all arrays carved from work */
typedef struct tod {
  const imp_cproblem* p;
  int n, nb, m;              /* rows, blocks, columns of B */
  double tiny;               /* absolute size below which a block counts as zero */
  long* evals;               /* evaluations of f and r so far (the caller's counter) */
  long eval_max;             /* the most evaluations one solve may take */
  int beyond, aborted;       /* iterations in a row past imp_csolver_opt.fmax; 1 once
                                IMP_FMAX_ITERS of them */
  double* D;                 /* n: residual scaling (Section V.A), ones when off */
  double *x, *fx, *r;        /* the iterate, f(x), r(x) */
  double *xn, *fn, *rn;      /* Newton point */
  double *xc, *fc, *rc;      /* Cauchy point */
  double *xb, *fb, *rb;      /* best point of the linesearch */
  double *xt, *ft, *rt;      /* trial point */
  double *xk, *fk, *rk;      /* the best iterate so far by ||r|| (restarts go uphill) */
  double *xl, *fl, *rl;      /* sub-segment left end */
  double *xr, *fr, *rr;      /* sub-segment right end */
  double *w, *y, *g, *u, *tmp, *gr, *xi;
  double* csum;              /* n: the Cholesky solve's running sums */
  double *J, *H, *Hr, *HB;   /* n x n scratch (C of the Hessian, the sticking
                                point's work), n x n, m x m, n x m */
  double* Jd;                /* n x (n + 6): scratch (T of the Hessian, P's rows) */
  int *dcol, *zcol;          /* n: the blocks that do not stick; nb: 1 when F = 0, -1 when F = -I */
  int* runs;                 /* 2 nb + 2: the runs of rows of sticking blocks */
  int* colblk;               /* n: the block of each row */
  double* S;                 /* n x n: P = A D^2 A, stick_products' cache */
  int S_ok;                  /* S holds the products for the current D */
  double *F, *B;             /* nb x 36: chosen Jacobian of f, tangent basis */
  int *ncol, *coladr, *active, *reg, *perm;
  crossing* cross;
  /* the proximal outer loop (see prox_phase) */
  imp_cproblem reg_p;        /* the regularized problem: A + rho I, v0 - rho f_k */
  double *Ap, *v0p;          /* n x n, n: its arrays */
  double *fprox, *r0;        /* n: the proximal center f_k; the original problem's r */
  double* xprox;             /* n: x where the inner solve started */
  double rho;                /* the proximal loop's rho while s->p is reg_p */
  /* the joint-space model (todorov_lowrank.c): lr set when the solve uses
     it, r the rank of the factor (p->U), lr_full 1 when the prepared
     columns are all of x's (B = I), 0 when they are B's */
  int lr, rank, lr_full;
} tod;

/* Each function is described at its definition. */

/* ---- todorov_model.c ---- */

int imp_tod_cholesky_factor(double* M, int m);
/* the factor's size from which it calls LAPACK (0 when it never does):
   imp_csolver's caller_min_rows */
int imp_tod_caller_min_rows(void);
void imp_tod_cholesky_solve(const double* L, int m, double* z, double* sums);
void imp_tod_mat_vec(double* res, const double* A, const double* v, int n);
/* the same for an S symmetric to the bit, faster (reads S by rows) */
void imp_tod_sym_mat_vec(double* res, const double* S, const double* v, int n);
double imp_tod_max_abs(const double* v, int n);
int imp_tod_has_cone(const imp_cproblem* p, int k);
int imp_tod_block_region(const imp_cproblem* p, int k, const double* xk);
void imp_tod_block_jacobian(const imp_cproblem* p, int k, int reg, const double* xk, double* F);
void imp_tod_block_jacobian_apply(const imp_cproblem* p, int k, int reg, const double* xk,
                                  const double* uk, double* out);
double imp_tod_eval_point(const tod* s, const double* x, double* f, double* r);
double imp_tod_objective(const tod* s, const double* r);
void imp_tod_choose_jacobians(tod* s);
double imp_tod_build_gauss_newton(tod* s);
void imp_tod_restrict_gradient(tod* s);
void imp_tod_restricted_hessian(tod* s, double lambda);
void imp_tod_expand_step(const tod* s, const double* xi, double* x_out);
void imp_tod_project_active_cones(const tod* s, double* xp);
double imp_tod_geodesic_correction(tod* s, const double* xi, double* half_a);
void imp_tod_block_f_second(const imp_cproblem* p, int k, const double* xk, const double* dk,
                            double* out);

void imp_tod_gradient_ft(const tod* s, const double* y, const double* w, double* g);

/* ---- todorov_lowrank.c: the Gauss-Newton model through A's factor ---- */

/* islands with at least this many rows, and at least LOWRANK_RATIO rows
   per column of A's factor, use the joint-space model (todorov_lowrank.c) */
#define LOWRANK_MIN_ROWS 32
#define LOWRANK_RATIO 6
/* 1 when a solve of p uses the joint-space model */
int imp_tod_lr_applies(const imp_cproblem* p);
void imp_tod_lr_setup(tod* s);
/* res = A v for the problem iterated on: by A's factor in the joint-space
   model (2 n r), else imp_tod_sym_mat_vec (n^2) */
void imp_tod_a_mul(const tod* s, double* res, const double* v);
double imp_tod_lr_build(tod* s);
void imp_tod_lr_restrict_gradient(tod* s);
void imp_tod_lr_prepare(tod* s, int full);
double imp_tod_lr_quad(const tod* s, const double* v, double lambda);
int imp_tod_lr_factor(tod* s, double lambda);
void imp_tod_lr_solve(tod* s, const double* w, double* out, double scale);
double imp_tod_lr_null_component(tod* s, double hscale, double* z);

/* ---- todorov_search.c ---- */

int imp_tod_find_crossings(const tod* s, const double* P, const double* u, crossing* cr);
void imp_tod_snap_to_edge(const imp_cproblem* p, const crossing* c, double* xp);
void imp_tod_offer_candidate(tod* s, const double* xp, const double* fp, const double* rp,
                            double lp, double* lbest);
void imp_tod_segment_point(const tod* s, const double* P, const double* u, double alpha, double* xp);
void imp_tod_search_segment(tod* s, const double* P, const double* rP, double lP, const double* Q,
                           const double* rQ, double lQ, double* lbest);
void imp_tod_sticking_point(tod* s, double* x);
void imp_tod_warm_start_point(tod* s, const double* f0, double* x);

#endif
