/* Lemke's complementary pivoting on the pyramid-friction LCP (Stewart-Trinkle
 * form): the classical complementarity solver of Schindler, Nguyen & Trinkle
 * 2011 (Section II and V.A, eq. 27-32, "solved by a pivoting scheme, known as
 * Lemke's algorithm") with the friction pyramid of Todorov 2010, Section I.A.
 *
 * The LCP. Unknowns z >= 0, slacks w = M z + q >= 0, z'w = 0. Per block of
 * the problem (contact.h), with w_r = (A f + v0 - b)_r the velocity of row r
 * relative to its target and f = G z the impulses the LCP unknowns make:
 *  - limit, frictionless contact (dim 1), contact with mu <= 0 (normal row
 *    only, its friction impulses are 0 = the cone {0}): one unknown f_r with
 *    row  w_r >= 0  (Signorini, Schindler et al. eq. 5 / 29);
 *  - equality rows: free impulses, split f_r = f+ - f- (no Schur complement,
 *    so singular A_EE of redundant equalities needs no special case), rows
 *       w+ =  w_r >= 0  _|_ f+ >= 0,      w- = -w_r >= 0  _|_ f- >= 0,
 *    together w_r = 0;
 *  - contact with friction (dim >= 2, mu > 0), Stewart-Trinkle: f_N, the
 *    pyramid weights beta (one per direction d_k, f_T = D beta) and the slip
 *    bound lambda (Schindler et al. eq. 30-32 with D = [1 -1] in the plane,
 *    sigma = lambda):
 *       w_N      = w_N(f)                 >= 0  _|_ f_N    >= 0
 *       w_beta   = D' w_T(f) + e lambda   >= 0  _|_ beta   >= 0
 *       w_lambda = mu f_N - e' beta       >= 0  _|_ lambda >= 0
 *    At a solution lambda = max_k (-d_k' v_T): the friction impulse lies in
 *    the pyramid P = { D beta : e'beta <= mu f_N } and maximizes dissipation
 *    over it; it sits on the pyramid's edge direction (or facet) nearest
 *    opposite the slip.
 *  - dry friction (IMP_CNSTR_FRICTION, dim 1, bound F = mu[k] > 0): the
 *    contact's friction part with f_N a known constant, so mu f_N becomes F
 *    and moves from M to q; D = [1 -1] (f = f+ - f-), which in one
 *    dimension is the interval itself, not an approximation:
 *       w+       =  w_r + lambda          >= 0  _|_ f+     >= 0
 *       w-       = -w_r + lambda          >= 0  _|_ f-     >= 0
 *       w_lambda =  F - f+ - f-           >= 0  _|_ lambda >= 0
 *    (lambda = |w_r| when sliding, 0 when sticking). F <= 0 admits only
 *    f = 0: such a block gets no unknowns at all, as a contact with mu <= 0
 *    gets no friction unknowns, rather than a degenerate LCP of three.
 * So with G the n x N map of the unknowns to impulses (columns: e_r for
 * normals and limits, +-e_r for the equality halves and dry friction's
 * f+-, (0, d_k) in the block's friction rows for beta, 0 for lambda) and C
 * the per-contact coupling
 *       M = G' A G + C,   q = G' (v0 - b) (+ F on dry friction's lambda rows),
 *       C = [ 0    0    0 ]     rows/columns (f_N, beta, lambda) of one
 *           [ 0    0    e ]     contact (dry friction: the same without the
 *           [ mu  -e'   0 ]     f_N row and column); 0 elsewhere
 * The pyramid's directions D: IMP_LEMKE_FACETS (8) unit vectors
 * d_k = (cos 2 pi k / 8, sin 2 pi k / 8) in the sliding plane (t1, t2), and
 * for condim 4 and 6 the torsional and rolling rows each get their own pair
 * +-e_r (a pyramid over all friction rows: the convex hull of the octagon
 * and the axis points, inscribed in the circular cone of contact.h). A dim 2
 * contact (one friction row) has D = [1 -1], exactly its cone.
 *
 * Lemke's algorithm (covering vector e = 1): with the artificial z0, the
 * dictionary x_B = rhs + T x_N starts at w = q + M z + e z0 (all w basic);
 * z0 enters at the most negative q, then each step enters the complement of
 * the variable that just left, the leaving row by the minimum ratio test,
 * until z0 leaves (a solution) or the entering column has no blocking row
 * (ray termination: no solution found, IMP_EXIT_FAILED with f = 0). Ties of
 * the ratio test (degenerate bases are the rule: a box on 4 contacts has 24
 * rows and rank 6) are broken lexicographically on the rows of B^-1, read
 * off the dictionary (column of a nonbasic w_j is -B^-1 e_j, a basic w_j
 * gives e_r), which excludes cycling; z0's row is preferred among ties.
 * Every pivot is one iteration (o->monitor is called once per pivot); the
 * budget is pivot_budget(o->maxiter, N, n).
 *
 * Rounding. The problems are highly degenerate and the dictionary loses
 * digits with every pivot; in floating point Lemke then ray-terminates,
 * cycles or ends in an infeasible basis where Stewart & Trinkle's LCP has a
 * solution (a heavy stack, an arch, a box pyramid). Four measures, each
 * measured on problems recorded from those scenes:
 *  - pivots below LEMKE_PIVOT of their column are rounded zeros, not pivots;
 *  - refactor rebuilds the dictionary of a basis from M (Gauss-Jordan from
 *    the trivial basis, complete pivoting over the block of the exchanged
 *    variables, rank detection for the singular blocks of redundant
 *    contacts): before a ray is believed, and for the final basis, whose z
 *    then solves M_ZZ z_Z = -q_Z to the accuracy of that factorization;
 *  - when z0 is already ~0 at a ray, or stays ~0 while degenerate pivots go
 *    on, z0 is taken out of the basis by name (z0_out) instead of waiting
 *    for a pivot that rounding may never allow;
 *  - a final basis that is infeasible after refactor is a start for Lemke
 *    again (covering vector B 1), at most LEMKE_RESTARTS times.
 * A ray that none of these resolve is still reported as IMP_EXIT_FAILED.
 *
 * Warm start: the warm impulses guess the basis: the unknowns z(f) (f_N,
 * beta from the two pyramid directions around f_T, lambda from the slip of
 * A f + v0 - b) that are positive are pivoted in by principal pivots (a
 * skipped zero pivot is retried after the others: lambda's diagonal is 0
 * until its beta is basic). A feasible basis is a solution at once; else
 * Lemke continues from that basis with covering vector B 1 (the z0 column
 * reset to 1); if that ray-terminates the solve restarts cold.
 *
 * Stopping measure (s->residual): the LCP's natural residual
 *   max_i |min(z_i, w_i)| / max(1, ||q||_inf, ||z||_inf),  w = M z + q
 * recomputed from A (not the dictionary) for the refactored final basis
 * after two steps of iterative refinement x_B += B^-1 (q + M z - w);
 * CONVERGED when it is <= o->tol, else STALLED (a basis found but not
 * accurate enough; the most accurate of the restarts is returned). Cost: a dense
 * dictionary of N x (N + 1) doubles, N <= 2 n + 4 per contact with friction
 * in a plane + 1 per dry friction row (lcp_bound), O(N^2) per pivot.
 * Nothing is allocated: all of it lives in work. */
#include <math.h>
#include <stdint.h>

#include "constraint/contact.h"
#include "core/mathx.h"

#define NP IMP_LEMKE_FACETS
#define LEMKE_MAXDIM 6
#define LEMKE_REFINE 2
/* Lemke continues from a refactored final basis that rounding left
   infeasible at most this many times */
#define LEMKE_RESTARTS 3
/* Lemke needs about N to 2N pivots on contact problems (pivot_budget) */
#define LEMKE_PIVOTS_PER_UNKNOWN 4
/* z0 this small relative to the basis' values is a solution's 0 (z0_out) */
#define LEMKE_Z0_TINY 1e-6
/* z0 this small ends Lemke's pivoting at once (lemke_run) */
#define LEMKE_Z0_STUCK 1e-8
/* pivots without a decrease of z0 that make a z0 below LEMKE_Z0_TINY stuck */
#define LEMKE_STUCK_PIVOTS 100
/* rounding tolerance of a basis' feasibility, relative to its largest value */
#define LEMKE_FEAS 1e-13
/* a block pivot of a refactorization below this, relative to the block's
   largest entry, is taken for 0 (a singular basis) */
#define LEMKE_RANK 1e-11
/* The ratio test's pivots: an entry below this relative to its column's
   largest is taken for a rounded 0. The dictionary loses digits with every
   pivot on these degenerate problems, and a pivot on a rounded 0 sends Lemke
   off its path (rays, infeasible final bases). Measured on 88 problems the
   old solver failed (heavy stack, arch, box pyramid): 1e-11 left 35 unsolved,
   1e-9 12, 1e-8 5, 1e-7 1, 1e-6 2, 1e-5 5. The answer is recomputed from M
   anyway (refactor), so a skipped tiny pivot costs no accuracy. */
#define LEMKE_PIVOT 1e-7
#define LEMKE_PI 3.14159265358979323846

enum { KIND_ROW = 0, KIND_BETA = 1, KIND_LAMBDA = 2 };

/* The LCP's structure and dictionary, all carved from work. */
typedef struct lcp {
  int N;         /* unknowns (= rows) of the LCP */
  int n;         /* rows of the problem */
  double* T;     /* N x (N+1) dictionary, column N starts as z0 */
  double* rhs;   /* N: values of the basic variables */
  double* q;     /* N */
  double* gval;  /* N x LEMKE_MAXDIM: the column of G within its rows */
  double* z;     /* N */
  double* w;     /* N */
  double* tmp;   /* n */
  double* tmp2;  /* n */
  double* rho;   /* N */
  int* gadr;     /* N: first problem row of G's column */
  int* gdim;     /* N: rows of G's column (0 for lambda) */
  int* kind;     /* N */
  int* blk;      /* N: block of the unknown */
  int* basic;    /* N: variable of each dictionary row */
  int* nonbasic; /* N+1: variable of each dictionary column */
  int* pos;      /* 2N+1: row r >= 0, or -(column+1) */
  int* cand;     /* N: candidate rows of a ratio test */
  double* lexv;  /* N */
  double* zs;    /* N: physical value of unknown j = zs[j] * z[j] (the scaling) */
  double* cover; /* N: the covering vector d of w = q + M z + d z0 */
  double* best;  /* N: z of the most accurate basis found */
  int* mark;     /* 2N+1: variables a refactorization brings into the basis */
} lcp;

/* variable ids: w_j = j, z_j = N + j, z0 = 2N */
static int var_w(const lcp* L, int j) {
  (void)L;
  return j;
}
static int var_z(const lcp* L, int j) { return L->N + j; }
static int var_z0(const lcp* L) { return 2 * L->N; }
static int complement(const lcp* L, int v) { return v < L->N ? v + L->N : v - L->N; }

/* LCP unknowns of one block */
static int block_unknowns(int type, int dim, double mu) {
  if (type == IMP_CNSTR_EQUALITY) return 2 * dim;
  if (type == IMP_CNSTR_FRICTION) return mu > 0 ? 3 : 0; /* f+, f-, lambda */
  if (type != IMP_CNSTR_CONTACT || dim == 1 || !(mu > 0)) return dim == 1 || type != IMP_CNSTR_CONTACT ? dim : 1;
  int m = dim - 1;
  return 1 + (m == 1 ? 2 : NP + 2 * (m - 2)) + 1;
}

/* Bound on N from n and nblock alone: 2 per row, plus an excess of NP - 4
   per contact block of 3 or more rows and 1 per dry friction block (3
   unknowns on 1 row). The most excess the rows and blocks allow is
   maximized over the number a of such contacts, dry friction taking the
   rows and blocks they leave (for NP = 8 that is as many contacts as fit,
   but the loop keeps the bound true for any IMP_LEMKE_FACETS). */
static int lcp_bound(int n, int nblock) {
  int ec = NP > 4 ? NP - 4 : 0, most = 0;
  for (int a = 0; a <= nblock && 3 * a <= n; a++) {
    int nd = n - 3 * a < nblock - a ? n - 3 * a : nblock - a;
    if (ec * a + nd > most) most = ec * a + nd;
  }
  return 2 * n + most;
}

static size_t align16(size_t b) { return (b + 15) / 16 * 16; }

static size_t lemke_work_size(int n, int nblock) {
  size_t N = (size_t)lcp_bound(n, nblock);
  size_t doubles = N * (N + 1) + 10 * N + N * LEMKE_MAXDIM + 2 * (size_t)n;
  size_t ints = 11 * N + 3;
  return align16(doubles * sizeof(double)) + align16(ints * sizeof(int)) + 64;
}

/* carve the arrays for N unknowns out of work */
static void lcp_carve(lcp* L, int N, int n, void* work) {
  double* d = (double*)work;
  L->N = N;
  L->n = n;
  L->T = d, d += (size_t)N * (size_t)(N + 1);
  L->rhs = d, d += N;
  L->q = d, d += N;
  L->gval = d, d += (size_t)N * LEMKE_MAXDIM;
  L->z = d, d += N;
  L->w = d, d += N;
  L->rho = d, d += N;
  L->lexv = d, d += N;
  L->zs = d, d += N;
  L->cover = d, d += N;
  L->best = d, d += N;
  L->tmp = d, d += n;
  L->tmp2 = d, d += n;
  int* k = (int*)((char*)work + align16((size_t)((char*)d - (char*)work)));
  L->gadr = k, k += N;
  L->gdim = k, k += N;
  L->kind = k, k += N;
  L->blk = k, k += N;
  L->basic = k, k += N;
  L->nonbasic = k, k += N + 1;
  L->pos = k, k += 2 * N + 1;
  L->cand = k, k += N;
  L->mark = k;
}

/* direction k of a friction block with m friction rows, into d[0..m) */
static void pyramid_direction(int m, int k, double* d) {
  for (int r = 0; r < m; r++) d[r] = 0;
  if (m == 1) {
    d[0] = k == 0 ? 1 : -1;
  } else if (k < NP) {
    double a = 2 * LEMKE_PI * k / NP;
    d[0] = cos(a);
    d[1] = sin(a);
  } else {
    int e = (k - NP) / 2;
    d[2 + e] = (k - NP) % 2 == 0 ? 1 : -1;
  }
}

/* A block's friction rows, the ones its betas and lambda act on: a
   contact's rows after the normal, or the single row of dry friction
   (whose bound is a constant, not a normal impulse). Returns their number,
   the first in *adr. */
static int friction_rows(const imp_cproblem* p, int b, int* adr) {
  int dry = p->blk_type[b] == IMP_CNSTR_FRICTION;
  *adr = p->blk_adr[b] + (dry ? 0 : 1);
  return dry ? 1 : p->blk_dim[b] - 1;
}

/* The first beta of the block of lambda unknown lam (the betas precede
   their lambda), and in *normal the unknown of the contact's f_N before
   them, or -1 for dry friction, whose bound is in q instead. */
static int betas_of(const imp_cproblem* p, const lcp* L, int lam, int* normal) {
  int b = L->blk[lam], first = lam;
  while (first > 0 && L->blk[first - 1] == b && L->kind[first - 1] == KIND_BETA) first--;
  *normal = p->blk_type[b] == IMP_CNSTR_FRICTION ? -1 : first - 1;
  return first;
}

/* the unknowns' structure (G, kinds); returns N */
static int lcp_structure(const imp_cproblem* p, lcp* L) {
  int j = 0;
  for (int b = 0; b < p->nblock; b++) {
    int adr = p->blk_adr[b], dim = p->blk_dim[b], type = p->blk_type[b];
    double* g;
    if (type == IMP_CNSTR_EQUALITY) {
      for (int r = 0; r < dim; r++)
        for (int s = 0; s < 2; s++, j++) {
          L->gadr[j] = adr + r, L->gdim[j] = 1, L->kind[j] = KIND_ROW, L->blk[j] = b;
          L->gval[j * LEMKE_MAXDIM] = s == 0 ? 1 : -1;
        }
    } else if (type == IMP_CNSTR_FRICTION) {
      if (!(p->mu[b] > 0)) continue; /* f = 0: no unknowns (block_unknowns) */
      /* f+ and f-: the pyramid D = [1 -1] of a one-row friction part */
      for (int k = 0; k < 2; k++, j++) {
        L->gadr[j] = adr, L->gdim[j] = 1, L->kind[j] = KIND_BETA, L->blk[j] = b;
        L->gval[j * LEMKE_MAXDIM] = k == 0 ? 1 : -1;
      }
      L->gadr[j] = adr, L->gdim[j] = 0, L->kind[j] = KIND_LAMBDA, L->blk[j] = b;
      j++;
    } else if (type != IMP_CNSTR_CONTACT || dim == 1 || !(p->mu[b] > 0)) {
      int rows = type == IMP_CNSTR_CONTACT ? 1 : dim;
      for (int r = 0; r < rows; r++, j++) {
        L->gadr[j] = adr + r, L->gdim[j] = 1, L->kind[j] = KIND_ROW, L->blk[j] = b;
        L->gval[j * LEMKE_MAXDIM] = 1;
      }
    } else {
      int m = dim - 1, ndir = m == 1 ? 2 : NP + 2 * (m - 2);
      L->gadr[j] = adr, L->gdim[j] = 1, L->kind[j] = KIND_ROW, L->blk[j] = b;
      L->gval[j * LEMKE_MAXDIM] = 1;
      j++;
      for (int k = 0; k < ndir; k++, j++) {
        L->gadr[j] = adr + 1, L->gdim[j] = m, L->kind[j] = KIND_BETA, L->blk[j] = b;
        g = L->gval + (size_t)j * LEMKE_MAXDIM;
        pyramid_direction(m, k, g);
      }
      L->gadr[j] = adr, L->gdim[j] = 0, L->kind[j] = KIND_LAMBDA, L->blk[j] = b;
      j++;
    }
  }
  return j;
}

/* Diagonal scaling of the LCP. A heavy stack (4096:1 masses) gives A
   entries spanning 1e4 and more, and the ratio tests then tie or break on
   rounding: ray terminations and inaccurate bases where a solution exists
   (Stewart & Trinkle's LCP always has one). Substituting z = S z' and
   multiplying the rows by positive numbers keeps every complementary pair
   (z_i w_i = 0 iff z'_i w'_i = 0), so the scaled LCP has the same
   solutions. Per block, f_N and the betas (and a limit's or equality's
   rows) are scaled by s = 1/sqrt(A_rr) of their first row, which makes the
   diagonal of G'AG about 1; the coupling C stays as it is when lambda is
   scaled by 1/s (lambda' = s lambda): mu s f_N' - s e'beta' >= 0 is the
   lambda row times s, and s D'w_T + e lambda' is the beta rows times s.
   Dry friction is scaled by its own row (the first of its block) the same
   way: its lambda row F - e'beta >= 0 becomes F / s - e'beta' >= 0, so its
   q is F zs[lambda] (lcp_rhs). */
static void lcp_scale(const imp_cproblem* p, lcp* L) {
  for (int j = 0; j < L->N; j++) {
    int row = p->blk_adr[L->blk[j]];
    if (L->kind[j] == KIND_ROW) row = L->gadr[j];
    double a = p->A[(size_t)row * (size_t)p->n + row];
    double s = a > 0 && isfinite(a) ? 1 / sqrt(a) : 1;
    if (L->kind[j] == KIND_LAMBDA) {
      L->zs[j] = 1 / s;
      continue;
    }
    L->zs[j] = s;
    double* g = L->gval + (size_t)j * LEMKE_MAXDIM;
    for (int r = 0; r < L->gdim[j]; r++) g[r] *= s;
  }
}

/* f = G z */
static void impulses_of(const imp_cproblem* p, const lcp* L, const double* z, double* f) {
  imp_zero(f, p->n);
  for (int j = 0; j < L->N; j++) {
    if (z[j] == 0) continue;
    const double* g = L->gval + (size_t)j * LEMKE_MAXDIM;
    for (int r = 0; r < L->gdim[j]; r++) f[L->gadr[j] + r] += g[r] * z[j];
  }
}

/* g_j' x */
static double g_dot(const lcp* L, int j, const double* x) {
  const double* g = L->gval + (size_t)j * LEMKE_MAXDIM;
  double s = 0;
  for (int r = 0; r < L->gdim[j]; r++) s += g[r] * x[L->gadr[j] + r];
  return s;
}

/* q = G' (v0 - b); on lambda rows 0 for contacts (their bound mu f_N is in
   M) and the scaled bound F / s for dry friction (lcp_scale) */
static void lcp_rhs(const imp_cproblem* p, lcp* L) {
  for (int i = 0; i < p->n; i++) L->tmp[i] = p->v0[i] - p->b[i];
  for (int i = 0; i < L->N; i++) {
    int b = L->blk[i];
    if (L->kind[i] != KIND_LAMBDA) L->q[i] = g_dot(L, i, L->tmp);
    else L->q[i] = p->blk_type[b] == IMP_CNSTR_FRICTION ? p->mu[b] * L->zs[i] : 0;
  }
}

/* w = M z + q from A (the coupling C per contact), Stewart-Trinkle rows */
static void lcp_slack(const imp_cproblem* p, lcp* L, const double* z, double* w) {
  int n = p->n;
  impulses_of(p, L, z, L->tmp);
  for (int i = 0; i < n; i++) L->tmp2[i] = imp_dot(p->A + (size_t)i * (size_t)n, L->tmp, n);
  for (int i = 0; i < L->N; i++) {
    if (L->kind[i] == KIND_LAMBDA) continue;
    w[i] = g_dot(L, i, L->tmp2) + L->q[i];
  }
  /* coupling: beta rows + lambda, lambda row mu f_N - e'beta (+ q: dry
     friction's bound F) */
  for (int lam = 0; lam < L->N; lam++) {
    if (L->kind[lam] != KIND_LAMBDA) continue;
    int normal, first = betas_of(p, L, lam, &normal);
    double s = (normal >= 0 ? p->mu[L->blk[lam]] * z[normal] : 0) + L->q[lam];
    for (int k = first; k < lam; k++) {
      s -= z[k];
      w[k] += z[lam];
    }
    w[lam] = s;
  }
}

/* the dictionary of the trivial basis: T = [M d], rhs = q, all w basic */
static void lcp_init_dictionary(const imp_cproblem* p, lcp* L) {
  int N = L->N, n = p->n;
  for (int j = 0; j < N; j++) {
    /* column j of G'AG: a = A g_j, then g_i' a */
    imp_zero(L->tmp, n);
    const double* g = L->gval + (size_t)j * LEMKE_MAXDIM;
    for (int r = 0; r < L->gdim[j]; r++) {
      int row = L->gadr[j] + r;
      for (int i = 0; i < n; i++) L->tmp[i] += p->A[(size_t)i * (size_t)n + row] * g[r];
    }
    for (int i = 0; i < N; i++) L->T[(size_t)i * (N + 1) + j] = g_dot(L, i, L->tmp);
  }
  for (int i = 0; i < N; i++) L->T[(size_t)i * (N + 1) + N] = L->cover[i];
  /* the coupling C */
  for (int lam = 0; lam < N; lam++) {
    if (L->kind[lam] != KIND_LAMBDA) continue;
    int normal, first = betas_of(p, L, lam, &normal);
    if (normal >= 0) L->T[(size_t)lam * (N + 1) + normal] = p->mu[L->blk[lam]];
    for (int k = first; k < lam; k++) {
      L->T[(size_t)k * (N + 1) + lam] = 1;
      L->T[(size_t)lam * (N + 1) + k] = -1;
    }
  }
  for (int i = 0; i < N; i++) {
    L->rhs[i] = L->q[i];
    L->basic[i] = var_w(L, i);
    L->pos[var_w(L, i)] = i;
    L->nonbasic[i] = var_z(L, i);
    L->pos[var_z(L, i)] = -(i + 1);
  }
  L->nonbasic[N] = var_z0(L);
  L->pos[var_z0(L)] = -(N + 1);
}

/* exchange the basic variable of row r with the nonbasic one of column c */
static void pivot(lcp* L, int r, int c) {
  int N = L->N, W = N + 1;
  double* Tr = L->T + (size_t)r * W;
  double piv = Tr[c];
  for (int k = 0; k < W; k++) Tr[k] = -Tr[k] / piv;
  Tr[c] = 1 / piv;
  L->rhs[r] = -L->rhs[r] / piv;
  for (int i = 0; i < N; i++) {
    if (i == r) continue;
    double* Ti = L->T + (size_t)i * W;
    double tic = Ti[c];
    if (tic == 0) continue;
    for (int k = 0; k < W; k++) Ti[k] += tic * Tr[k];
    Ti[c] = tic * Tr[c];
    L->rhs[i] += tic * L->rhs[r];
  }
  int in = L->nonbasic[c], out = L->basic[r];
  L->basic[r] = in;
  L->pos[in] = r;
  L->nonbasic[c] = out;
  L->pos[out] = -(c + 1);
}

/* B^-1[r][j] read off the dictionary */
static double binv(const lcp* L, int r, int j) {
  int at = L->pos[var_w(L, j)];
  if (at >= 0) return at == r ? 1 : 0;
  return -L->T[(size_t)r * (L->N + 1) + (-at - 1)];
}

/* Among the candidate rows cand[0..nc) with denominators den (> 0), the
   lexicographic minimum of (rhs_i, B^-1 row i) / den_i; rows of z0 win ties
   when prefer_z0. */
static int lex_min(lcp* L, int nc, const double* den, int prefer_z0) {
  double best = INFINITY, big = 0;
  for (int a = 0; a < nc; a++) {
    double v = fmax(L->rhs[L->cand[a]], 0) / den[a];
    best = fmin(best, v);
    big = fmax(big, fabs(v));
  }
  double tie = 1e-12 * fmax(1, big);
  int kept = 0;
  for (int a = 0; a < nc; a++)
    if (fmax(L->rhs[L->cand[a]], 0) / den[a] <= best + tie) {
      L->cand[kept] = L->cand[a];
      L->lexv[kept++] = den[a];
    }
  if (prefer_z0)
    for (int a = 0; a < kept; a++)
      if (L->basic[L->cand[a]] == var_z0(L)) return L->cand[a];
  for (int j = 0; j < L->N && kept > 1; j++) {
    double lo = INFINITY;
    for (int a = 0; a < kept; a++) lo = fmin(lo, binv(L, L->cand[a], j) / L->lexv[a]);
    int k2 = 0;
    for (int a = 0; a < kept; a++)
      if (binv(L, L->cand[a], j) / L->lexv[a] <= lo + 1e-12 * fmax(1, fabs(lo))) {
        L->cand[k2] = L->cand[a];
        L->lexv[k2++] = L->lexv[a];
      }
    kept = k2;
  }
  return L->cand[0];
}

/* the current z (basic values, nonbasic 0); returns z0 */
static double current_z(const lcp* L, double* z) {
  for (int j = 0; j < L->N; j++) {
    int at = L->pos[var_z(L, j)];
    z[j] = at >= 0 ? fmax(L->rhs[at], 0) : 0;
  }
  int at = L->pos[var_z0(L)];
  return at >= 0 ? fmax(L->rhs[at], 0) : 0;
}

/* z0's value (0 when nonbasic) */
static double current_z0(const lcp* L) {
  int at = L->pos[var_z0(L)];
  return at >= 0 ? L->rhs[at] : 0;
}

/* scale each friction impulse into its cone, clamp dry friction to its
   interval (only moves f when not a solution) */
static void clip_to_cones(const imp_cproblem* p, double* f) {
  for (int b = 0; b < p->nblock; b++) {
    int adr = p->blk_adr[b], dim = p->blk_dim[b];
    if (p->blk_type[b] == IMP_CNSTR_EQUALITY) continue;
    if (p->blk_type[b] == IMP_CNSTR_FRICTION) {
      double F = fmax(p->mu[b], 0);
      f[adr] = fmin(fmax(f[adr], -F), F);
      continue;
    }
    if (p->blk_type[b] != IMP_CNSTR_CONTACT || dim == 1) {
      for (int r = 0; r < dim; r++) f[adr + r] = fmax(f[adr + r], 0);
      continue;
    }
    f[adr] = fmax(f[adr], 0);
    double ft = sqrt(imp_dot(f + adr + 1, f + adr + 1, dim - 1));
    double R = fmax(p->mu[b], 0) * f[adr];
    if (ft > R) imp_scl(f + adr + 1, f + adr + 1, ft > 0 ? R / ft : 0, dim - 1);
  }
}

typedef struct run_state {
  const imp_cproblem* p;
  const imp_csolver_opt* o;
  double* f;
  int iter;
  int maxpivot; /* pivot budget (pivot_budget) */
} run_state;

/* one pivot = one iteration: pivot, then the monitor with the current f */
static void step(run_state* st, lcp* L, int r, int c) {
  pivot(L, r, c);
  if (st->o->monitor) {
    current_z(L, L->z);
    impulses_of(st->p, L, L->z, st->f);
    clip_to_cones(st->p, st->f);
    st->o->monitor(st->o->monitor_ctx, st->iter, st->f);
  }
  st->iter++;
}

/* NEAR: a ray with z0 ~ 0, z0 forced out of the basis (z0_out) */
enum { LEMKE_SOLVED, LEMKE_RAY, LEMKE_MAXITER, LEMKE_NEAR };

/* The pivot budget. A pivot is an iteration, but MJCF's `iterations`
   (default 100, meant for sweeps of iterative solvers) stops Lemke half way
   on problems of 100 unknowns and more, which need N to 2N pivots (a heavy
   stack of 3 boxes: 160 unknowns, 150-250 pivots). So a maxiter below
   P N (P = LEMKE_PIVOTS_PER_UNKNOWN), which may be too few for the whole
   solve, is read per unknown: min(maxiter, P) * N pivots (1 gives N, a
   small budget a caller can still ask for; more than P N pivots is cycling
   in rounding, measured up to 50000 pivots and 5 s on one problem); a
   maxiter of P N or more is the budget itself. The budget is monotone and
   continuous in maxiter. It never exceeds maxiter n pivots (n rows): the
   stage charges a pivot as an iteration of n^2 work (work_power 2) and
   promises a solve given maxiter iterations at most maxiter n^3 (contact.h:
   a step's work is at most its budget plus IMP_SOLVE_MIN_ITER n^3 per
   solve). With N > n unknowns (a condim-3 contact has 10 per 3 rows),
   IMP_SOLVE_MIN_ITER * N pivots broke that (test_contact_budget, the moved
   pyramid under a budget of 1e5); at the default maxiter, 100 n exceeds
   P N, so nothing else changes. */
static int pivot_budget(int maxiter, int N, int n) {
  if (maxiter <= 0) return 0;
  int floor = LEMKE_PIVOTS_PER_UNKNOWN * N;
  int b = maxiter >= floor ? maxiter : maxiter < LEMKE_PIVOTS_PER_UNKNOWN ? maxiter * N : floor;
  long cap = (long)maxiter * n;
  return b > cap ? (int)cap : b;
}

/* Rebuild the dictionary of the current basis from M, q and d: Gauss-Jordan
   from the trivial basis (all w basic), exchanging the basis' nonbasic w's
   for its basic z's (and z0) with complete pivoting over that block, so the
   rounding that many pivots accumulate in T is gone and B^-1 is as accurate
   as a pivoted factorization of the block K = -M_RU makes it (the rows R of
   the nonbasic w's, the columns U of the basic z's). A block pivot below
   LEMKE_RANK of the block's largest entry means K is singular (redundant
   contacts): its variables stay nonbasic. Returns how many did. These
   exchanges are a factorization, not Lemke steps: not iterations. */
static int refactor(const imp_cproblem* p, lcp* L) {
  int N = L->N, W = N + 1, left = 0;
  for (int v = 0; v <= 2 * N; v++) L->mark[v] = 0;
  for (int r = 0; r < N; r++)
    if (L->basic[r] >= N) L->mark[L->basic[r]] = 1, left++; /* to enter */
  for (int j = 0; j < N; j++)
    if (L->pos[var_w(L, j)] < 0) L->mark[var_w(L, j)] = 2; /* to leave */
  lcp_init_dictionary(p, L);
  double scale = -1;
  while (left > 0) {
    double big = 0;
    int br = -1, bc = -1;
    for (int r = 0; r < N; r++) {
      if (L->mark[L->basic[r]] != 2) continue;
      const double* Tr = L->T + (size_t)r * W;
      for (int c = 0; c < W; c++)
        if (L->mark[L->nonbasic[c]] == 1 && fabs(Tr[c]) > big) big = fabs(Tr[c]), br = r, bc = c;
    }
    if (scale < 0) scale = big;
    if (br < 0 || !(big > LEMKE_RANK * scale)) break;
    L->mark[L->basic[br]] = L->mark[L->nonbasic[bc]] = 0;
    pivot(L, br, bc);
    left--;
  }
  return left;
}

/* The covering vector of the current basis (z0 nonbasic) with z0's column
   reset to 1: T[:, z0] = -B^-1 E_z0 = 1 for E = [I -M -d], so d = B 1, the
   sum of the basic columns of E: d_i = [w_i basic] - (M 1_Zb)_i over the
   basic z's Zb. Kept so that refactor can rebuild the dictionary. */
static void cover_of_basis(const imp_cproblem* p, lcp* L) {
  int N = L->N;
  for (int j = 0; j < N; j++) L->z[j] = L->pos[var_z(L, j)] >= 0 ? 1 : 0;
  lcp_slack(p, L, L->z, L->w);
  for (int i = 0; i < N; i++)
    L->cover[i] = (L->pos[var_w(L, i)] >= 0 ? 1 : 0) - (L->w[i] - L->q[i]);
  int c = -L->pos[var_z0(L)] - 1;
  for (int i = 0; i < N; i++) L->T[(size_t)i * (N + 1) + c] = 1;
}

/* the row where z0 enters: the lexicographic minimum of (rhs_i, B^-1 row i)
   (T[i][z0] = 1 in every row, so the most negative rhs first); -1 when the
   basis is feasible up to rounding (a degenerate w of -1e-17): a solution */
static int z0_row(lcp* L) {
  int N = L->N, nc = 0;
  double best = INFINITY, big = 1;
  for (int i = 0; i < N; i++) best = fmin(best, L->rhs[i]), big = fmax(big, fabs(L->rhs[i]));
  if (best >= -LEMKE_FEAS * big) return -1;
  for (int i = 0; i < N; i++)
    if (L->rhs[i] <= best + 1e-12 * fmax(1, fabs(best))) L->cand[nc++] = i;
  for (int j = 0; j < N && nc > 1; j++) {
    double lo = INFINITY;
    for (int a = 0; a < nc; a++) lo = fmin(lo, binv(L, L->cand[a], j));
    int k2 = 0;
    for (int a = 0; a < nc; a++)
      if (binv(L, L->cand[a], j) <= lo + 1e-12) L->cand[k2++] = L->cand[a];
    nc = k2;
  }
  return L->cand[0];
}

/* the blocking rows of column c (T[i][c] < 0 beyond rounding) into cand/rho;
   returns their number */
static int blocking_rows(lcp* L, int c) {
  int N = L->N, W = N + 1, nc = 0;
  double colmax = 0;
  for (int i = 0; i < N; i++) colmax = fmax(colmax, fabs(L->T[(size_t)i * W + c]));
  double ptol = LEMKE_PIVOT * colmax;
  for (int i = 0; i < N; i++) {
    double t = L->T[(size_t)i * W + c];
    if (t < -ptol) {
      L->cand[nc] = i;
      L->rho[nc++] = -t;
    }
  }
  return nc;
}

/* A ray where z0 is already ~0 (below LEMKE_Z0_TINY of the basis' largest
   value): the basis is a solution but for z0, and the ray an artefact of
   the degenerate, rounded path (Stewart & Trinkle's LCP has a solution).
   Measured on stacks: the entering column and the one that just left are
   both ~0 in z0's row, so no pivot can take z0 out. Instead the basis is
   changed by name: z0 out, the w of the nonbasic complementary pair in
   (its row of w = 0 is dropped, the basic z's stay), and refactor rebuilds
   the dictionary from M, leaving out (nonbasic, 0) what the now singular
   block cannot pivot in. lemke_from_basis measures that basis and continues
   from it if it is infeasible. Returns 0 when z0 is not small. */
static int z0_out(run_state* st, lcp* L, int entering, double tiny) {
  int N = L->N, r = L->pos[var_z0(L)];
  if (r < 0) return 1; /* a singular refactorization left z0 out already */
  double big = 1;
  for (int i = 0; i < N; i++) big = fmax(big, fabs(L->rhs[i]));
  if (!(fabs(L->rhs[r]) <= tiny * big)) return 0;
  int v = entering < N ? entering : complement(L, entering);
  if (L->pos[v] >= 0) v = complement(L, v); /* a singular refactor moved the pair */
  if (L->pos[v] >= 0) return 0;
  int c = -L->pos[v] - 1;
  L->basic[r] = v, L->pos[v] = r;
  L->nonbasic[c] = var_z0(L), L->pos[var_z0(L)] = -(c + 1);
  refactor(st->p, L);
  return 1;
}

/* Lemke's complementary pivoting from the current basis with z0's column as
   the covering vector (all w_i or z_i basic, z0 nonbasic). The dictionary is
   rebuilt from M (refactor) before a ray termination is believed, so a ray
   that only rounding made is resolved. (Rebuilding it every 50 or 200
   pivots as well changed nothing measurable once LEMKE_PIVOT was right.) */
static int lemke_run(run_state* st, lcp* L) {
  int r = z0_row(L);
  if (r < 0) return LEMKE_SOLVED; /* finish() refines it, measures the residual */
  if (st->iter >= st->maxpivot) return LEMKE_MAXITER;
  int leaving = L->basic[r];
  step(st, L, r, -L->pos[var_z0(L)] - 1);
  int refactored = 0, since = 0;
  double z0_last = INFINITY;
  for (;;) {
    if (st->iter >= st->maxpivot) return LEMKE_MAXITER;
    int entering = complement(L, leaving);
    /* a basis a singular refactorization left with both of a pair basic:
       complementary pivoting cannot go on from it */
    if (L->pos[entering] >= 0) return LEMKE_RAY;
    int c = -L->pos[entering] - 1;
    int nc = blocking_rows(L, c);
    if (nc == 0) {
      /* Schindler et al.: no solution found, unless rounding made the ray */
      if (!refactored && refactor(st->p, L) == 0) {
        refactored = 1;
        continue;
      }
      /* confirmed, or the basis was singular (refactor left z0 out or not) */
      return z0_out(st, L, entering, LEMKE_Z0_TINY) ? LEMKE_NEAR : LEMKE_RAY;
    }
    r = lex_min(L, nc, L->rho, 1);
    leaving = L->basic[r];
    step(st, L, r, c);
    refactored = 0;
    if (leaving == var_z0(L)) return LEMKE_SOLVED;
    /* z0 at a rounded 0: the degenerate pivots that remain can cycle in
       rounding (measured: thousands of pivots at z0 ~ 1e-10 on the box
       pyramid), so the basis is taken as it is; likewise when a small z0
       has not decreased for LEMKE_STUCK_PIVOTS pivots (measured: 1800
       pivots at z0 = 3.5e-7) */
    double z0 = current_z0(L);
    if (z0 < z0_last) z0_last = z0, since = 0;
    double tiny = ++since >= LEMKE_STUCK_PIVOTS ? LEMKE_Z0_TINY : LEMKE_Z0_STUCK;
    if (z0_out(st, L, complement(L, leaving), tiny)) return LEMKE_NEAR;
  }
}

/* the stopping measure at z (>= 0): max |min(z_i, w_i)| relative, w = M z + q */
static double natural_residual(const imp_cproblem* p, lcp* L, const double* z) {
  lcp_slack(p, L, z, L->w);
  double e = 0, scale = 1;
  for (int i = 0; i < L->N; i++) {
    e = fmax(e, fabs(fmin(z[i], L->w[i])));
    scale = fmax(scale, fmax(fabs(L->q[i]), z[i]));
  }
  return isfinite(e) ? e / scale : INFINITY;
}

/* refine the basic solution (z0 nonbasic), then the natural residual */
static double finish(const imp_cproblem* p, lcp* L) {
  int N = L->N, W = N + 1;
  for (int it = 0; it < LEMKE_REFINE; it++) {
    for (int j = 0; j < N; j++) L->z[j] = L->pos[var_z(L, j)] >= 0 ? L->rhs[L->pos[var_z(L, j)]] : 0;
    lcp_slack(p, L, L->z, L->w);
    /* rho = q + M z - w_basis: w's basic values subtracted */
    for (int i = 0; i < N; i++) {
      int at = L->pos[var_w(L, i)];
      L->rho[i] = L->w[i] - (at >= 0 ? L->rhs[at] : 0);
    }
    for (int r = 0; r < N; r++) {
      int v = L->basic[r];
      double d = v < N ? L->rho[v] : 0;
      for (int c = 0; c < W; c++) {
        int u = L->nonbasic[c];
        if (u < N) d -= L->T[(size_t)r * W + c] * L->rho[u];
      }
      L->z[r] = d;
    }
    for (int r = 0; r < N; r++) L->rhs[r] += L->z[r];
  }
  current_z(L, L->z);
  return natural_residual(p, L, L->z);
}

/* Lemke from the current basis, then the answer refined and measured
   (finish); if that is not accurate, recomputed from M, not from the
   dictionary Lemke ended with: the final basis refactored (refactor). If
   rounding left that basis infeasible, Lemke continues from it with
   covering vector B 1, at most LEMKE_RESTARTS times. The z of the most
   accurate basis goes to L->best. */
static int lemke_from_basis(run_state* st, lcp* L, double* residual) {
  int near = 0, have = 0;
  *residual = INFINITY;
  for (int k = 0;; k++) {
    int status = lemke_run(st, L);
    if (status == LEMKE_NEAR) near = 1;
    else if (status != LEMKE_SOLVED) return have ? LEMKE_SOLVED : status;
    /* the dictionary's answer when it is accurate (most problems: the
       refactorization costs about as much as Lemke's pivots), else the
       refactored basis' */
    double e = finish(st->p, L); /* leaves the basis' z in L->z */
    if (!(e <= st->o->tol)) {
      refactor(st->p, L);
      e = finish(st->p, L);
    }
    if (!(e >= *residual)) *residual = e, have = 1, imp_copy(L->best, L->z, L->N);
    if (e <= st->o->tol) return LEMKE_SOLVED;
    if (k >= LEMKE_RESTARTS || z0_row(L) < 0) break;
    cover_of_basis(st->p, L);
  }
  /* a forced z0_out that did not end near a solution was a ray */
  return near && !(*residual <= LEMKE_Z0_TINY) ? LEMKE_RAY : LEMKE_SOLVED;
}

/* The unknowns z(f) of impulses f: f_N, the equality halves, beta from the
   two pyramid directions around f_T in the plane (and the axis pairs; dry
   friction's f+- = max(+-f, 0) like a one-row friction part),
   lambda = max_k -d_k' w_T of the slip w = A f + v0 - b. z(f) solves the LCP
   exactly when f solves the pyramid problem. */
static void guess_z(const imp_cproblem* p, lcp* L, const double* f) {
  int N = L->N, n = p->n;
  for (int i = 0; i < n; i++)
    L->tmp2[i] = imp_dot(p->A + (size_t)i * (size_t)n, f, n) + p->v0[i] - p->b[i];
  double* z = L->z;
  for (int j = 0; j < N; j++) {
    const double* g = L->gval + (size_t)j * LEMKE_MAXDIM;
    if (L->kind[j] == KIND_ROW) {
      z[j] = fmax((g[0] > 0 ? 1 : -1) * f[L->gadr[j]], 0);
    } else if (L->kind[j] == KIND_LAMBDA) {
      int adr, normal, m = friction_rows(p, L->blk[j], &adr), ndir = betas_of(p, L, j, &normal);
      double lam = 0, d[LEMKE_MAXDIM];
      for (int k = 0; k < j - ndir; k++) {
        pyramid_direction(m, k, d);
        lam = fmax(lam, -imp_dot(d, L->tmp2 + adr, m));
      }
      z[j] = lam;
    } else {
      int b = L->blk[j], adr, m = friction_rows(p, b, &adr), first = j;
      while (first > 0 && L->kind[first - 1] == KIND_BETA && L->blk[first - 1] == b) first--;
      int k = j - first;
      const double* ft = f + adr;
      if (m == 1 || k >= NP) {
        int row = m == 1 ? 0 : 2 + (k - NP) / 2;
        double sgn = (m == 1 ? k : (k - NP)) % 2 == 0 ? 1 : -1;
        z[j] = fmax(sgn * ft[row], 0);
      } else { /* f_T in the plane between d_s and d_s+1 */
        double ang = atan2(ft[1], ft[0]);
        if (ang < 0) ang += 2 * LEMKE_PI;
        int s = (int)floor(ang / (2 * LEMKE_PI / NP)) % NP;
        double a0 = 2 * LEMKE_PI * s / NP, a1 = 2 * LEMKE_PI * (s + 1) / NP, det = sin(a1 - a0);
        double ca = (ft[0] * sin(a1) - ft[1] * cos(a1)) / det;
        double cb = (ft[1] * cos(a0) - ft[0] * sin(a0)) / det;
        z[j] = k == s ? fmax(ca, 0) : k == (s + 1) % NP ? fmax(cb, 0) : 0;
      }
    }
  }
  for (int j = 0; j < N; j++) z[j] /= L->zs[j]; /* to the scaled unknowns (lcp_scale) */
}

/* Warm start: principal pivots on the positive unknowns of z(f) (in L->z). */
static int warm_basis(run_state* st, lcp* L) {
  int N = L->N, W = N + 1;
  const double* z = L->z;
  double zmax = 0, mmax = 0;
  for (int j = 0; j < N; j++) zmax = fmax(zmax, z[j]);
  for (size_t i = 0; i < (size_t)N * W; i++) mmax = fmax(mmax, fabs(L->T[i]));
  double thresh = 1e-8 * zmax, ptol = 1e-10 * mmax;
  if (!(zmax > 0) || !isfinite(zmax)) return 0;
  for (int j = 0; j < N; j++) L->cand[j] = z[j] > thresh; /* still to pivot in */
  int progress = 1, pivots = 0;
  while (progress) {
    progress = 0;
    for (int j = 0; j < N; j++) {
      if (!L->cand[j] || st->iter >= st->maxpivot) continue;
      int r = L->pos[var_w(L, j)], c = -L->pos[var_z(L, j)] - 1;
      if (fabs(L->T[(size_t)r * W + c]) <= ptol) continue;
      step(st, L, r, c);
      L->cand[j] = 0;
      progress = 1;
      pivots++;
    }
  }
  return pivots;
}

static int problem_is_usable(const imp_cproblem* p) {
  for (int i = 0; i < p->n; i++)
    if (!isfinite(p->v0[i]) || !isfinite(p->b[i])) return 0;
  for (size_t i = 0; i < (size_t)p->n * (size_t)p->n; i++)
    if (!isfinite(p->A[i])) return 0;
  for (int b = 0; b < p->nblock; b++) {
    if (p->blk_dim[b] < 1 || p->blk_dim[b] > LEMKE_MAXDIM || !isfinite(p->mu[b])) return 0;
    /* dry friction is one row (contact.h); lcp_bound counts on it */
    if (p->blk_type[b] == IMP_CNSTR_FRICTION && p->blk_dim[b] != 1) return 0;
  }
  return 1;
}

static void lemke_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                        imp_csolver_stat* s, void* work) {
  *s = (imp_csolver_stat){0, 0, INFINITY, IMP_EXIT_FAILED};
  int N = 0;
  if (problem_is_usable(p))
    for (int b = 0; b < p->nblock; b++)
      N += block_unknowns(p->blk_type[b], p->blk_dim[b], p->mu[b]);
  int warm = o->warmstart;
  if (warm)
    for (int i = 0; i < p->n; i++)
      if (!isfinite(f[i])) warm = 0;
  if (!problem_is_usable(p) || N > lcp_bound(p->n, p->nblock)) {
    imp_zero(f, p->n);
    return;
  }
  lcp L;
  lcp_carve(&L, N, p->n, work);
  lcp_structure(p, &L);
  lcp_scale(p, &L);
  run_state st = {p, o, f, 0, pivot_budget(o->maxiter, N, p->n)};
  int status = LEMKE_RAY;
  lcp_rhs(p, &L);
  for (int i = 0; i < N; i++) L.cover[i] = 1;
  if (warm) {
    /* the warm impulses may solve the pyramid problem already */
    guess_z(p, &L, f);
    double e = natural_residual(p, &L, L.z);
    if (e <= o->tol) {
      clip_to_cones(p, f);
      *s = (imp_csolver_stat){0, 0, e, IMP_EXIT_CONVERGED};
      return;
    }
    lcp_init_dictionary(p, &L);
    guess_z(p, &L, f);
    warm_basis(&st, &L);
    cover_of_basis(p, &L); /* Lemke from the guessed basis, covering vector B 1 */
    status = lemke_from_basis(&st, &L, &s->residual);
    if (status == LEMKE_SOLVED && !(s->residual <= o->tol)) status = LEMKE_RAY; /* try cold */
  }
  if (status == LEMKE_RAY) {
    for (int i = 0; i < N; i++) L.cover[i] = 1;
    lcp_init_dictionary(p, &L);
    status = lemke_from_basis(&st, &L, &s->residual);
  }
  s->iterations = st.iter;
  if (status == LEMKE_RAY) {
    imp_zero(f, p->n);
    s->residual = INFINITY;
    s->exit = IMP_EXIT_FAILED;
    return;
  }
  if (status == LEMKE_SOLVED) imp_copy(L.z, L.best, N);
  else current_z(&L, L.z);
  impulses_of(p, &L, L.z, f);
  clip_to_cones(p, f);
  for (int i = 0; i < p->n; i++)
    if (!isfinite(f[i])) {
      imp_zero(f, p->n);
      s->exit = IMP_EXIT_DIVERGED;
      return;
    }
  if (status == LEMKE_MAXITER) {
    s->residual = INFINITY;
    s->exit = IMP_EXIT_MAXITER;
  } else {
    s->exit = s->residual <= o->tol ? IMP_EXIT_CONVERGED : IMP_EXIT_STALLED;
  }
}

const imp_csolver imp_solver_lemke = {
    "lemke",
    "Lemke's complementary pivoting on the Stewart-Trinkle pyramid LCP (8 facets, exact pivots)",
    lemke_work_size, lemke_solve, IMP_LAW_POLYHEDRAL, 2, NULL, 0};
