/* Joint-space inertia M(q) and its tree-sparse factorization.
 *
 * Storage: row i of a tree-sparse matrix holds (i,i), (i,p(i)), (i,p(p(i)))...
 * where p is dof_parentid; dof_Madr[i] is where row i starts. Only these
 * entries can be non-zero in M, and the factor M = L'DL with L unit lower
 * triangular has the same pattern (Featherstone 2005, "Efficient factorization
 * of the joint-space inertia matrix for branched kinematic trees"), so it
 * costs O(n d^2) for depth d instead of O(n^3). */
#include "engine.h"
#include "core/mathx.h"
#include "core/spatial.h"

/* Composite rigid body algorithm (Featherstone, RBDA, sec. 6.2):
   M(i,j) = S_j' Ic(body_i) S_i for every ancestor dof j of dof i. */
void imp_crb(const imp_model* m, imp_data* d) {
  imp_copy(d->crb, d->cinert, 10 * m->nbody);
  /* composite inertias leaf to root, never into the world (trees apart) */
  for (int b = m->nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    if (p > 0) imp_add_scl(d->crb + 10 * p, d->crb + 10 * b, 1, 10);
  }
  for (int i = 0; i < m->nv; i++) {
    double F[6];
    imp_mul_inert_vec(F, d->crb + 10 * m->dof_bodyid[i], d->cdof + 6 * i);
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j]) d->qM[adr++] = imp_dot(d->cdof + 6 * j, F, 6);
    d->qM[m->dof_Madr[i]] += m->dof_armature[i];
  }
}

/* Featherstone's LTDL, leaf to root: eliminate row k into its ancestors.
   Because i is an ancestor of k, k's ancestor chain continues as i's, so the
   entries (k, j) for j above i sit at fixed offsets from (k, i). */
void imp_factor_sparse(const imp_model* m, double* LD, double* diaginv, const double* M) {
  if (LD != M) imp_copy(LD, M, m->nM);
  for (int k = m->nv - 1; k >= 0; k--) {
    int kadr = m->dof_Madr[k];
    /* row k's length: the next row's start (rows are stored in order,
       compile.c); row i, off up k's chain, is the rest of it */
    int klen = (k + 1 < m->nv ? m->dof_Madr[k + 1] : m->nM) - kadr, off = 1;
    double dk = LD[kadr];
    for (int i = m->dof_parentid[k]; i >= 0; i = m->dof_parentid[i], off++) {
      double a = LD[kadr + off] / dk;
      imp_sub_scaled(LD + m->dof_Madr[i], LD + kadr + off, a, klen - off);
      LD[kadr + off] = a;
    }
  }
  for (int i = 0; i < m->nv; i++) diaginv[i] = 1 / LD[m->dof_Madr[i]];
}

void imp_factor_m(const imp_model* m, imp_data* d) {
  imp_factor_sparse(m, d->qLD, d->qLDiagInv, d->qM);
}

/* The same elimination for an unsymmetric A with the pattern of M (an
   entry (i, j) only where one of i, j is an ancestor of the other), given as
   Al (row i holds A_ij for j up its chain, diagonal first, as M) and Au
   (the same places hold A_ji). Eliminating k last:
     A = [I u; 0 1] [A11 - a12 a21 / akk, 0; 0, akk] [I 0; l' 1],
     u = a12 / akk, l = a21 / akk,
   and recursively, gives A = U D L with U unit upper (u's into Au) and L
   unit lower (l's into Al), D on Al's diagonal (Au's diagonal is kept
   equal). The Schur update A_ij -= A_ik A_kj / akk only touches pairs of
   ancestors of k, which lie on one chain: no fill-in, as for M. */
void imp_factor_lu(const imp_model* m, double* Al, double* Au, double* diaginv) {
  for (int k = m->nv - 1; k >= 0; k--) {
    int kadr = m->dof_Madr[k];
    int klen = (k + 1 < m->nv ? m->dof_Madr[k + 1] : m->nM) - kadr, off = 1; /* as above */
    double dk = Al[kadr];
    for (int i = m->dof_parentid[k]; i >= 0; i = m->dof_parentid[i], off++) {
      double l = Al[kadr + off] / dk, u = Au[kadr + off] / dk;
      int iadr = m->dof_Madr[i];
      imp_sub_scaled(Al + iadr, Al + kadr + off, u, klen - off); /* A_ij -= A_ik A_kj / akk */
      imp_sub_scaled(Au + iadr, Au + kadr + off, l, klen - off); /* A_ji -= A_jk A_ki / akk */
      Al[kadr + off] = l;
      Au[kadr + off] = u;
    }
  }
  for (int i = 0; i < m->nv; i++) diaginv[i] = 1 / Al[m->dof_Madr[i]];
}

/* x = L^-1 D^-1 U^-1 y */
void imp_solve_lu(const imp_model* m, const double* Al, const double* Au, const double* diaginv,
                  double* x, const double* y) {
  imp_copy(x, y, m->nv);
  for (int i = m->nv - 1; i >= 0; i--) { /* U z = y, leaves first */
    int adr = m->dof_Madr[i] + 1;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) x[j] -= Au[adr++] * x[i];
  }
  for (int i = 0; i < m->nv; i++) x[i] *= diaginv[i];
  for (int i = 0; i < m->nv; i++) { /* L x = w, roots first */
    int adr = m->dof_Madr[i] + 1;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) x[i] -= Al[adr++] * x[j];
  }
}

/* x = L^-1 D^-1 L'^-1 y: the LU solve with U = L' */
void imp_solve_sparse(const imp_model* m, const double* LD, const double* diaginv, double* x,
                      const double* y) {
  imp_solve_lu(m, LD, LD, diaginv, x, y);
}

void imp_mul_sparse(const imp_model* m, const double* M, double* res, const double* vec) {
  for (int i = 0; i < m->nv; i++) res[i] = M[m->dof_Madr[i]] * vec[i];
  for (int i = 0; i < m->nv; i++) {
    int adr = m->dof_Madr[i] + 1;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j], adr++) {
      res[i] += M[adr] * vec[j];
      res[j] += M[adr] * vec[i];
    }
  }
}
