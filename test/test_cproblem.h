/* Hand-made contact-space problems for the solver tests (test_residual.c,
 * test_solver_pgs.c, test_solvers.c): storage for up to MAXN rows in MAXB
 * blocks, a block appender that follows contact.h's conventions, the
 * imp_cproblem view a solver reads, and tp_solve: one solve on poisoned
 * scratch with the monitor counted. */
#ifndef IMPETUS_TEST_CPROBLEM_H
#define IMPETUS_TEST_CPROBLEM_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "constraint/contact.h"
#include "core/mathx.h"

#define MAXN 64
#define MAXB 48

typedef struct tprob {
  int n, nblock;
  int adr[MAXB], dim[MAXB], type[MAXB];
  double mu[MAXB];
  double A[MAXN * MAXN], v0[MAXN], b[MAXN];
  char label[64];
} tprob;

/* Append a block of dim rows; mu is kept only where contact.h gives it a
   meaning (contacts with friction rows, dry friction's bound), else 0.
   Returns its index. */
static inline int add_block(tprob* t, int type, int dim, double mu) {
  int k = t->nblock++;
  t->adr[k] = t->n;
  t->dim[k] = dim;
  t->type[k] = type;
  t->mu[k] = (type == IMP_CNSTR_CONTACT && dim > 1) || type == IMP_CNSTR_FRICTION ? mu : 0;
  t->n += dim;
  return k;
}

/* A flat box (half sizes hx, hy, hz; mass m) on z = 0, its 4 bottom corners
   `copies` times each (coincident contacts, as a gripper's pads give),
   contacts of condim 3 (rows z, x, y) with friction mu, free velocity u
   (linear, then angular about the centre): v0 = K u, A = K M^-1 K'. The
   rows of K go to K when it is not NULL (4 copies x 3 rows x 6 doubles). */
static inline void tp_box_on_plane(tprob* t, double hx, double hy, double hz, double m,
                                   double mu, const double u[6], int copies, double* K) {
  memset(t, 0, sizeof *t);
  double minv[6] = {1 / m, 1 / m, 1 / m, 3 / (m * (hy * hy + hz * hz)),
                    3 / (m * (hx * hx + hz * hz)), 3 / (m * (hx * hx + hy * hy))};
  static double Kown[MAXN * 6];
  if (!K) K = Kown;
  const double axes[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  for (int c = 0; c < 4 * copies; c++) {
    double r[3] = {c & 1 ? hx : -hx, c & 2 ? hy : -hy, -hz};
    int adr = t->n;
    add_block(t, IMP_CNSTR_CONTACT, 3, mu);
    for (int row = 0; row < 3; row++) {
      double* k = K + (adr + row) * 6;
      memcpy(k, axes[row], sizeof axes[row]);
      imp_cross(k + 3, r, axes[row]);
    }
  }
  for (int i = 0; i < t->n; i++) {
    for (int j = 0; j < t->n; j++) {
      double s = 0;
      for (int d = 0; d < 6; d++) s += K[i * 6 + d] * minv[d] * K[j * 6 + d];
      t->A[i * t->n + j] = s;
    }
    t->v0[i] = imp_dot(K + i * 6, u, 6);
  }
}

/* The problem as a solver sees it (h = 0.01). */
static inline imp_cproblem view(const tprob* t) {
  imp_cproblem p = {t->n, t->nblock, t->adr, t->dim, t->type, t->mu, t->A, t->v0, t->b, 0.01, NULL, 0, 0, NULL, NULL, 0, NULL, NULL};
  return p;
}

/* Relative common residual (imp_cresidual) of f for t. */
/* counts monitor calls, so a test can hold a solver to one call per iteration */
typedef struct tp_calls {
  int calls;
} tp_calls;

static inline void tp_count_call(void* ctx, int iter, const double* f) {
  (void)iter;
  (void)f;
  ((tp_calls*)ctx)->calls++;
}

/* Solve t with sv on scratch poisoned with 0xff bytes (a solver must not
   read scratch it did not write); f holds the warm start when warm. Checks
   that the monitor ran once per reported iteration; *calls gets the count
   when calls is not NULL. */
static inline imp_csolver_stat tp_solve(const imp_csolver* sv, const tprob* t, double* f,
                                        int maxiter, double tol, int warm, int* calls) {
  imp_cproblem p = view(t);
  tp_calls c = {0};
  imp_csolver_opt o = {maxiter, tol, warm, tp_count_call, &c, 0};
  imp_csolver_stat s = {-1, -1, NAN, -1};
  size_t bytes = (sv->work_size(t->n, t->nblock) + 15) / 16 * 16;
  void* work = aligned_alloc(16, bytes ? bytes : 16);
  memset(work, 0xff, bytes ? bytes : 16);
  sv->solve(&p, &o, f, &s, work);
  free(work);
  ck_assert_int_eq(c.calls, s.iterations);
  if (calls) *calls = c.calls;
  return s;
}

static inline double relative_residual(const tprob* t, const double* f) {
  double work[2 * MAXN], rel;
  imp_cproblem p = view(t);
  imp_cresidual(&p, f, &rel, work);
  return rel;
}

/* One contact sliding on an anisotropic block: A = diag(1, 1, 4),
   v0 = (-1, -0.9, -2.4), mu = 0.5. Exact answer f = (1, 0.3, 0.4) with slip
   (-0.6, -0.8) = -2 f_T; scaling the unconstrained friction (0.9, 0.6) onto
   the disk instead would give friction that does not oppose the slip. */
static inline void anisotropic_sliding_problem(tprob* t) {
  *t = (tprob){0};
  add_block(t, IMP_CNSTR_CONTACT, 3, 0.5);
  t->A[0] = 1;
  t->A[4] = 1;
  t->A[8] = 4;
  t->v0[0] = -1;
  t->v0[1] = -0.9;
  t->v0[2] = -2.4;
}

#endif
