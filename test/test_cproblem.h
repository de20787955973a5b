/* Hand-made contact-space problems for the solver tests (test_residual.c,
 * test_solver_pgs.c, test_solvers.c): storage for up to MAXN rows in MAXB
 * blocks, a block appender that follows contact.h's conventions, and the
 * imp_cproblem view a solver reads. */
#ifndef IMPETUS_TEST_CPROBLEM_H
#define IMPETUS_TEST_CPROBLEM_H

#include <stdio.h>

#include "contact.h"

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
   meaning (contacts with friction rows), else 0. Returns its index. */
static inline int add_block(tprob* t, int type, int dim, double mu) {
  int k = t->nblock++;
  t->adr[k] = t->n;
  t->dim[k] = dim;
  t->type[k] = type;
  t->mu[k] = type == IMP_CNSTR_CONTACT && dim > 1 ? mu : 0;
  t->n += dim;
  return k;
}

/* The problem as a solver sees it (h = 0.01). */
static inline imp_cproblem view(const tprob* t) {
  imp_cproblem p = {t->n, t->nblock, t->adr, t->dim, t->type, t->mu, t->A, t->v0, t->b, 0.01};
  return p;
}

/* Relative common residual (imp_cresidual) of f for t. */
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
