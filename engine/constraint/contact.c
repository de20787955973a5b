/* The contact stage (see contact.h): the registry of solvers by name, and
 * the stage that hands each island's contact-space problem to the chosen
 * solver. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "constraint/contact_budget.h"
#include "constraint/contact_guard.h"
#include "constraint/contact_redundant.h"
#include "constraint/contact_sparse.h"
#include "constraint/contact_warm.h"
#include "core/mathx.h"
#include "core/pool.h"
#include "core/sort.h"

/* ---- the stage ----
 *
 * Per step (DESIGN.md, "constraints" and "contact"):
 *   u_free = u + h M~^-1 tau                 the velocity without impulses
 *   v0     = K u_free                        (Todorov 2010, eq. 1: v = A f + v0)
 *   A      = K M~^-1 K' = Y D^-1 Y'          with M~ = L'DL and Y = K L^-1,
 * M~ the mass matrix, plus h times the joint damping when the Euler
 * integrator treats damping implicitly, so that the problem is exactly the
 * step the integrator takes (M~ u+ = M~ u + h tau + K' f, eqs. 4-5). Y has
 * the sparsity of K's rows closed under ancestors (the factor is tree
 * sparse), so A costs sparse dot products, and M is never inverted.
 * Islands are the trees (bodies under the world) coupled by a block; each
 * island's problem is solved alone, in the same scratch. */

static size_t solver_work_bytes(const imp_csolver* solver, int n, int nb);

/* ints of an island's pattern of A (imp_guard_pattern): a quarter of A's
   entries, past which the guards keep dense products */
static size_t pattern_cap(int nmax) { return (size_t)nmax * (size_t)nmax / 4; }

/* Scratch doubles the stage asks besides A and the solver's work. */
static size_t stage_doubles(const imp_model* m) {
  size_t n = (size_t)m->njmax;
  return (size_t)m->nJnnz /* Y */ + 15 * n + 4 * (size_t)m->nv + 64;
}

size_t imp_contact_arena_bytes(const imp_model* m, int solver) {
  size_t n = (size_t)m->njmax, na = (size_t)m->nislandmax;
  const imp_csolver* s = imp_solver_get(solver);
  size_t work = s ? solver_work_bytes(s, m->nislandmax, m->nislandmax) : 0;
  size_t doubles = na * na /* A */ + stage_doubles(m) + (size_t)m->nJnnz /* ycols */ +
                   3 * na + 4 /* scale, acc, vel */ + (size_t)m->nv /* coef */ +
                   imp_redundant_doubles(m->nislandmax);
  size_t ints = (size_t)m->nJnnz /* Y's pattern */ + 8 * n + 7 * (size_t)m->nv +
                3 * (size_t)m->nbody /* + trees' row counts */ + 64 + 3 * n /* the pool's island order */ +
                pattern_cap(m->nislandmax) + na + 1 /* A's pattern */ +
                2 * na /* rows' trees */ + imp_redundant_ints(m->nislandmax);
  /* every allocation may lose up to 64 bytes to alignment */
  return doubles * sizeof(double) + ints * sizeof(int) + work + 64 * 64;
}

/* Rows of the half-solve Y = K L^-1: pattern and values. */
typedef struct half_rows {
  const double* LD; /* the factor L'DL they solve with */
  int* nnz;    /* nefc */
  int* colind; /* nefc_J, row r at efc_J_rowadr[r], dofs descending */
  double* val; /* nefc_J, the same */
} half_rows;

/* sort dof[0..n) descending (insertion: the list is runs of ancestor
   chains, each already descending) */
static void sort_desc(int* dof, int n) {
  for (int a = 1; a < n; a++) {
    int v = dof[a], b = a;
    for (; b > 0 && dof[b - 1] < v; b--) dof[b] = dof[b - 1];
    dof[b] = v;
  }
}

/* y L = k for one row: scatter, eliminate leaves first over the row's
   pattern closed under ancestors (where the fill goes; collected by
   walking each nonzero's chain up to the first dof already marked, mark
   all 0 on entry and on return), gather. */
static void half_solve_row(const imp_model* m, const imp_data* d, const double* LD, int row,
                           double* x, char* mark, int* colind, double* val, int* nnz_out) {
  int adr = d->efc_J_rowadr[row], nnz = 0;
  for (int i = 0; i < d->efc_J_rownnz[row]; i++) {
    int k = d->efc_J_colind[adr + i];
    x[k] += d->efc_J[adr + i];
    for (; k >= 0 && !mark[k]; k = m->dof_parentid[k]) {
      mark[k] = 1;
      colind[nnz++] = k;
    }
  }
  sort_desc(colind, nnz);
  for (int i = 0; i < nnz; i++) {
    int k = colind[i], a = m->dof_Madr[k] + 1;
    for (int j = m->dof_parentid[k]; j >= 0; j = m->dof_parentid[j]) x[j] -= LD[a++] * x[k];
  }
  for (int i = 0; i < nnz; i++) {
    val[i] = x[colind[i]];
    x[colind[i]] = 0;
    mark[colind[i]] = 0;
  }
  *nnz_out = nnz;
}

/* ---- islands: union-find over trees ---- */

static int uf_find(int* parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* Group blocks by the trees their rows move: d->blk_island, island_*. */
static void find_islands(const imp_model* m, imp_data* d, int* parent, int* label) {
  for (int b = 0; b < m->nbody; b++) parent[b] = b, label[b] = -1;
  for (int k = 0; k < d->nblk; k++) {
    int row = d->blk_efcadr[k], first = -1, last = -1;
    for (int r = 0; r < d->blk_dim[k]; r++)
      for (int i = 0; i < d->efc_J_rownnz[row + r]; i++) {
        int tree = m->body_rootid[m->dof_bodyid[d->efc_J_colind[d->efc_J_rowadr[row + r] + i]]];
        if (tree == last) continue; /* joined already: a row's dofs run along few trees */
        last = tree;
        if (first < 0) first = tree;
        int a = uf_find(parent, first), b = uf_find(parent, tree);
        if (a != b) parent[a] = b;
      }
    d->blk_island[k] = first; /* a tree for now, labelled below */
  }
  d->nisland = 0;
  if (m->opt.disableflags & IMP_DSBL_ISLAND) /* one problem, as in Todorov 2010's tests */
    for (int k = 0; k < d->nblk; k++) {
      int a = uf_find(parent, d->blk_island[k]), b = uf_find(parent, d->blk_island[0]);
      if (a != b) parent[a] = b;
    }
  for (int k = 0; k < d->nblk; k++) {
    int root = uf_find(parent, d->blk_island[k]);
    if (label[root] < 0) label[root] = d->nisland++;
    d->blk_island[k] = label[root];
  }
  for (int i = 0; i < d->nisland; i++) d->island_blknum[i] = 0;
  for (int k = 0; k < d->nblk; k++) d->island_blknum[d->blk_island[k]]++;
  int adr = 0;
  for (int i = 0; i < d->nisland; i++) {
    d->island_blkadr[i] = adr;
    adr += d->island_blknum[i];
    d->island_blknum[i] = 0;
  }
  for (int k = 0; k < d->nblk; k++) {
    int i = d->blk_island[k];
    d->island_blk[d->island_blkadr[i] + d->island_blknum[i]++] = k;
  }
}

/* ---- the problem hook (for benchmarks that record problems) ---- */

void imp_set_problem_hook(imp_data* d, imp_problem_hook hook, void* ctx) {
  d->problem_hook = hook;
  d->problem_hook_ctx = ctx;
}

/* ---- one island ---- */

/* One thread's scratch for the islands it solves: sized for nmax rows and
   bmax blocks, carved from one block of island_scratch_bytes. */
typedef struct island_scratch {
  double *A, *v0, *b, *mu, *g;     /* problem in solver variables */
  double *b_held, *g_first;        /* the targets with corrections held; an answer kept */
  double* dense;                   /* nv, zero between uses: A's assembly */
  double *scale, *acc;             /* rows' scales; a row of A's sums (assemble_columns) */
  double* vel;                     /* the rows' velocities A g + v0 at the end */
  double *ycols, *coef;            /* Y by dofs (half_solve_columns); a row's Y_ik / D_k */
  int ycap;                        /* doubles of ycols */
  int *loc, *cols, *coff;          /* nv each: a dof's place in cols (-1 between uses) */
  char* mark;                      /* nv, 0 between uses: half_solve_row's */
  int *rows, *adr, *dim, *type;
  int* tree;              /* 2 nmax: the trees of a row (assemble_sparse) */
  int *first_dof, *roots; /* nbody each: imp_guard_moving_mass */
  imp_guard_pattern pat;  /* A's nonzeros for the guards, found once an island */
  imp_redundant red;      /* the island's dependent equality rows (contact_redundant.h) */
  void* work;
  double* res_work;
} island_scratch;

#define SCRATCH_ALIGN 64

/* bytes of one piece of scratch, rounded to keep the next aligned */
static size_t piece(size_t count, size_t size) {
  return (count * size + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* the solver's work for n rows and nb blocks, the pgs rescue's and the
   primal rescue's */
static size_t solver_work_bytes(const imp_csolver* solver, int n, int nb) {
  size_t w = solver->work_size(n, nb), wpgs = imp_solver_pgs.work_size(n, nb);
  int np = n < IMP_PRIMAL_RESCUE_ROWS ? n : IMP_PRIMAL_RESCUE_ROWS; /* and the primal rescue's */
  size_t wp = imp_solver_primal.work_size(np, nb < np ? nb : np);
  w = w > wpgs ? w : wpgs;
  return w > wp ? w : wp;
}

/* ycols' stride: the island's rows rounded up to whole v4d's */
static int column_stride(int n) { return (n + 3) / 4 * 4; }

/* Doubles of an island's Y by columns (half_solve_columns): as many as the
   step's Y may hold (nJnnz), never more than nmax rows (rounded up to
   whole v4d's) over every dof; larger islands go row by row. */
static int columns_cap(const imp_model* m, int nmax) {
  long long all = (long long)column_stride(nmax) * m->nv;
  return all < m->nJnnz ? (int)all : m->nJnnz;
}

/* Carve s from base (SCRATCH_ALIGN-aligned; NULL: only count); the bytes.
   first_dof and loc are set to -1 (imp_guard_moving_mass's and
   island_columns's invariants), dense and mark to 0. */
static size_t carve_island_scratch(const imp_model* m, int nmax, int bmax, size_t work_bytes,
                                   char* base, island_scratch* s) {
  size_t off = 0;
#define PIECE(ptr, count)                              \
  do {                                                 \
    (ptr) = (void*)(base ? base + off : NULL);         \
    off += piece((size_t)(count), sizeof *(ptr));      \
  } while (0)
  PIECE(s->A, (size_t)nmax * nmax);
  PIECE(s->v0, nmax);
  PIECE(s->b, nmax);
  PIECE(s->g, nmax);
  PIECE(s->mu, bmax);
  PIECE(s->res_work, 6 * (size_t)nmax); /* imp_guard_injects_too_much's and
                                          imp_guard_consistent_corrections's 6 n;
                                          imp_cresidual's 2 n */
  PIECE(s->b_held, nmax);
  PIECE(s->g_first, nmax);
  PIECE(s->dense, m->nv);
  PIECE(s->scale, nmax);
  PIECE(s->acc, column_stride(nmax));
  PIECE(s->vel, nmax);
  s->ycap = columns_cap(m, nmax);
  PIECE(s->ycols, s->ycap);
  PIECE(s->coef, m->nv);
  PIECE(s->loc, m->nv);
  PIECE(s->cols, m->nv);
  PIECE(s->coff, m->nv);
  PIECE(s->mark, m->nv);
  PIECE(s->rows, nmax);
  PIECE(s->adr, bmax);
  PIECE(s->dim, bmax);
  PIECE(s->type, bmax);
  PIECE(s->tree, 2 * (size_t)nmax);
  PIECE(s->first_dof, m->nbody);
  PIECE(s->roots, m->nbody);
  PIECE(s->pat.adr, (size_t)nmax + 1);
  s->pat.cap = (long long)pattern_cap(nmax);
  PIECE(s->pat.col, pattern_cap(nmax));
  double* red;
  int* red_rows;
  PIECE(red, imp_redundant_doubles(nmax));
  PIECE(red_rows, imp_redundant_ints(nmax));
#undef PIECE
  imp_redundant_carve(&s->red, red, red_rows, nmax);
  s->work = base ? base + off : NULL;
  off += piece(work_bytes, 1);
  if (base) {
    for (int b = 0; b < m->nbody; b++) s->first_dof[b] = -1;
    for (int i = 0; i < m->nv; i++) s->loc[i] = -1;
    for (int i = 0; i < m->nv; i++) s->mark[i] = 0;
    imp_zero(s->dense, m->nv);
  }
  return off;
}

/* row r's scale s_r (maps elliptic cones to circular ones, contact.h) */
static double row_scale(const imp_data* d, int r) {
  int k = d->efc_blk[r];
  return d->blk_scale[6 * k + (r - d->blk_efcadr[k])];
}

/* The trees row r moves into tree[0..2): -1 for none; tree[0] = -2 when
   more than two (a long tendon) or when its row of Y is not finite (0 times
   it is not 0) */
static void row_trees(const imp_model* m, const imp_data* d, const half_rows* Y, int r,
                      int* tree) {
  tree[0] = tree[1] = -1;
  for (int t = 0; t < Y->nnz[r]; t++)
    if (!isfinite(Y->val[d->efc_J_rowadr[r] + t])) {
      tree[0] = -2;
      return;
    }
  for (int t = 0; t < d->efc_J_rownnz[r]; t++) {
    int tr = m->body_rootid[m->dof_bodyid[d->efc_J_colind[d->efc_J_rowadr[r] + t]]];
    if (tr == tree[0] || tr == tree[1]) continue;
    if (tree[0] < 0) {
      tree[0] = tr;
    } else if (tree[1] < 0) {
      tree[1] = tr;
    } else {
      tree[0] = -2;
      return;
    }
  }
}

/* 1 when rows with trees a and b (row_trees) move no tree in common */
static int trees_apart(const int* a, const int* b) {
  if (a[0] == -2 || b[0] == -2) return 0;
  for (int p = 0; p < 2; p++)
    if (a[p] >= 0 && (a[p] == b[0] || a[p] == b[1])) return 0;
  return 1;
}

/* A_ij = s_i s_j sum_k Y_ik Y_jk / D_k for the island's n rows, summed over
   row j's entries in their order (dofs descending), Y_ik / D_k scattered
   into dense (zero elsewhere). Rows that move no tree in common share no
   dof of Y (its rows' dofs are their K's and those dofs' ancestors, in the
   same trees): every term of their sum is +-0 (Y finite) and the sum +0, which is
   what it is set to without the loop (same bits). Why: MuJoCo's hammock,
   an island of ~183 rows on 99 particles (each its own tree) and a
   humanoid, is assembled row by row (its Y by columns does not fit):
   callgrind, impetus bench hammock.xml --steps 100, 1,535M -> 1,497M. */
static void assemble_sparse(const imp_model* m, const imp_data* d, const half_rows* Y,
                            const double* diaginv, island_scratch* s, int n) {
  double* dense = s->dense;
  for (int i = 0; i < n; i++) row_trees(m, d, Y, s->rows[i], s->tree + 2 * i);
  /* when one tree of row 0 is in every row (a humanoid and its floor), no
     two rows are apart and the test is left out */
  int apart = 1;
  for (int p = 0; p < 2 && apart; p++) {
    int t = s->tree[p], every = t >= 0;
    for (int i = 1; i < n && every; i++) every = s->tree[2 * i] == t || s->tree[2 * i + 1] == t;
    if (every) apart = 0;
  }
  for (int i = 0; i < n; i++) {
    int ri = s->rows[i], ai = d->efc_J_rowadr[ri];
    double si = s->scale[i];
    for (int t = 0; t < Y->nnz[ri]; t++)
      dense[Y->colind[ai + t]] = Y->val[ai + t] * diaginv[Y->colind[ai + t]];
    for (int j = 0; j <= i; j++) {
      int rj = s->rows[j], aj = d->efc_J_rowadr[rj];
      double sum = 0;
      if (!apart || !trees_apart(s->tree + 2 * i, s->tree + 2 * j))
        for (int t = 0; t < Y->nnz[rj]; t++) sum += dense[Y->colind[aj + t]] * Y->val[aj + t];
      s->A[i * n + j] = s->A[j * n + i] = si * s->scale[j] * sum;
    }
    for (int t = 0; t < Y->nnz[ri]; t++) dense[Y->colind[ai + t]] = 0;
  }
}

/* k > l first (imp_heapsort; dofs are distinct) */
static int dof_desc(const void* a, const void* b, void* ctx) {
  (void)ctx;
  return *(const int*)a > *(const int*)b;
}

/* The dofs where the island's rows of Y = K L^-1 may have entries (K's and
   their ancestors: the factor is tree sparse) into cols, descending (loc
   marks them); the count. */
static int island_columns(const imp_model* m, const imp_data* d, island_scratch* s, int n) {
  int nloc = 0, top = -1, bottom = m->nv;
  for (int i = 0; i < n; i++) {
    int r = s->rows[i], a = d->efc_J_rowadr[r];
    for (int t = 0; t < d->efc_J_rownnz[r]; t++)
      for (int k = d->efc_J_colind[a + t]; k >= 0 && s->loc[k] < 0; k = m->dof_parentid[k]) {
        s->cols[nloc] = k, s->loc[k] = nloc++;
        if (k > top) top = k;
        if (k < bottom) bottom = k;
      }
  }
  /* an island's dofs are mostly its trees', a range of dofs: read off the
     marks down from the highest when they fill a quarter of it */
  if (4 * nloc >= top - bottom + 1) {
    for (int k = top, l = 0; k >= bottom; k--)
      if (s->loc[k] >= 0) s->cols[l++] = k;
  } else if (nloc > 64) { /* runs of chains, each descending: insertion sort for few */
    imp_heapsort(s->cols, nloc, sizeof *s->cols, dof_desc, NULL);
  } else {
    sort_desc(s->cols, nloc);
  }
  return nloc;
}


/* half_solve_row for all the island's rows at once, a row a lane of
   ycols[l ns + j] (dof cols[l] at loc, row j): K scattered, then each dof, leaves
   first, eliminated into its ancestors. A row's entries are the same
   operations in the same order; the dofs outside its pattern hold +-0 and
   subtract +-0 from the others, which changes no value but a zero's sign
   (and the sums of assemble_columns do not see the sign of a zero). */
static void half_solve_columns(const imp_model* m, const imp_data* d, const double* LD,
                               island_scratch* s, int n, int nloc) {
  const int ns = column_stride(n);
  double* yc = s->ycols;
  /* each column zeroed where its place is set: a few vector stores, where
     one memset of all (what a loop of its own becomes) takes a string
     instruction that valgrind counts a byte at a time */
  for (int l = 0; l < nloc; l++) {
    s->loc[s->cols[l]] = l;
    imp_zero(yc + (size_t)l * ns, ns);
  }
  for (int j = 0; j < n; j++) {
    int r = s->rows[j], a = d->efc_J_rowadr[r];
    for (int t = 0; t < d->efc_J_rownnz[r]; t++)
      yc[(size_t)s->loc[d->efc_J_colind[a + t]] * ns + j] += d->efc_J[a + t];
  }
  for (int l = 0; l < nloc; l++) {
    int k = s->cols[l], a = m->dof_Madr[k] + 1;
    const double* yk = yc + (size_t)l * ns;
    for (int p = m->dof_parentid[k]; p >= 0; p = m->dof_parentid[p], a++) {
      imp_sub_scaled(yc + (size_t)s->loc[p] * ns, yk, LD[a], ns);
    }
  }
}

/* assemble_sparse's A from ycols, four j's at a time: A_ij sums Y_ik / D_k
   Y_jk over the dofs k where Y_ik is not 0, descending. Each A_ij adds the
   products of the dofs both rows have, in the same order; the others are
   +-0 (finite values times a zero), and adding +-0 leaves a sum started at
   +0 as it was (it is never -0), so A is the same bits. */
static void assemble_columns(const double* diaginv, island_scratch* s, int n, int nloc) {
  const int ns = column_stride(n);
  const double* yc = s->ycols;
  for (int i = 0; i < n; i++) {
    int nz = 0;
    for (int l = 0; l < nloc; l++) { /* kept when not 0: no branch to mispredict */
      double y = yc[(size_t)l * ns + i];
      s->coff[nz] = l * ns;
      s->coef[nz] = y * diaginv[s->cols[l]];
      nz += y != 0;
    }
    for (int j0 = 0; j0 <= i; j0 += 4) {
      v4d sum = {0, 0, 0, 0}, y;
      for (int q = 0; q < nz; q++) {
        v4d c = {s->coef[q], s->coef[q], s->coef[q], s->coef[q]};
        memcpy(&y, yc + s->coff[q] + j0, sizeof y);
        sum += c * y;
      }
      memcpy(s->acc + j0, &sum, sizeof sum);
    }
    for (int j = 0; j <= i; j++)
      s->A[i * n + j] = s->A[j * n + i] = s->scale[i] * s->scale[j] * s->acc[j];
  }
}

/* The island's A (contact.h): by columns when they fit in ycols, else row
   by row (the same bits either way). By columns, ycols keeps Y and coef
   the weights 1 / D_k of its columns, A's factor for the solver
   (imp_cproblem.U): the number of columns then, else 0. */
static int assemble_island(const imp_model* m, const imp_data* d, const half_rows* Y,
                           const double* diaginv, island_scratch* s, int n) {
  int nloc = island_columns(m, d, s, n), by_columns = 0;
  if ((long long)nloc * column_stride(n) <= s->ycap) {
    half_solve_columns(m, d, Y->LD, s, n, nloc);
    assemble_columns(diaginv, s, n, nloc);
    for (int l = 0; l < nloc; l++) s->coef[l] = diaginv[s->cols[l]];
    by_columns = 1;
  } else {
    for (int i = 0; i < n; i++) {
      int r = s->rows[i], a = d->efc_J_rowadr[r];
      half_solve_row(m, d, Y->LD, r, s->dense, s->mark, Y->colind + a, Y->val + a, Y->nnz + r);
    }
    assemble_sparse(m, d, Y, diaginv, s, n);
  }
  for (int l = 0; l < nloc; l++) s->loc[s->cols[l]] = -1;
  return by_columns ? nloc : 0;
}

/* Solve island isl with scratch s: its rows' impulses, velocities and
   targets and its island_* statistics are all it writes of d, so islands
   may be solved in any order, on any thread. */
/* The speed below which an island's velocity errors count as resolved
   (imp_cproblem.vfloor): |gravity| h, what gravity adds to any speed in one
   step, 0 without gravity. The relative tests scale by the problem's own
   speeds, and an island can have none: Menagerie's google_robot holds two
   wheel joints at their limits against their frictionloss, the impulses
   cancel (9.16 x 0.004 each way) and every speed is 1e-12 to 1e-15 m/s, so
   answers exact to 1e-16 m/s failed tests of 1e-8 relative to 1e-15, and
   1,909 of 2,000 steps ended at maxiter. Where gravity moves the island
   its speeds are at least of this size and the tests are unchanged. */
static double speed_floor(const imp_model* m) {
  if (m->opt.disableflags & IMP_DSBL_GRAVITY) return 0;
  const double* g = m->opt.gravity;
  return sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * m->opt.timestep;
}

/* One more solve of the island's problem p with targets b by sv, from g
   (warm) or from sv's own start: its limit, most iterations, lowered to
   the work bound (which *bounded records) and to the island's share,
   charged to the account, its iterations and Newton steps added to *iter
   and *newton. */
static imp_csolver_stat solve_again(const imp_model* m, const imp_csolver* sv,
                                    const imp_cproblem* p, const double* b, int warm,
                                    imp_budget_account* account, island_scratch* s, int* bounded,
                                    int* iter, int* newton, int most) {
  int n = p->n;
  long long nz = p->A_rowadr ? p->A_rowadr[n] : 0;
  imp_cproblem q = *p;
  q.b = b;
  *bounded |= imp_bounded_iterations(sv, n, nz, most) < most;
  imp_csolver_opt o = {imp_budget_iterations(account, sv, n, nz, most),
                       m->opt.tolerance, warm, NULL, NULL, 0};
  imp_csolver_stat st = imp_guard_solve_checked(sv, &q, &o, s->g, s->work, s->res_work);
  imp_budget_charge(account, st.iterations * imp_iteration_work(sv, n, nz));
  *iter += st.iterations;
  *newton += st.newton;
  return st;
}

static void solve_island(const imp_model* m, imp_data* d, int isl, const half_rows* Y,
                         const double* diaginv, island_scratch* s) {
  const imp_csolver* solver = imp_solver_get(d->solver);
  int nb = d->island_blknum[isl], n = 0, warm = 0, iter = 0, newton = 0, flags = 0;
  int retargeted = 0; /* some block's island kept its targets at 0 last step */
  int pile = 1;       /* contacts and limits only: no equality, no dry friction */
  const int* blks = d->island_blk + d->island_blkadr[isl];
  for (int i = 0; i < nb; i++) {
    int k = blks[i];
    s->adr[i] = n;
    s->dim[i] = d->blk_dim[k];
    s->type[i] = d->blk_type[k];
    s->mu[i] = d->blk_mu[k];
    int matched = m->opt.warmstart ? imp_warm_match(m, d, k) : 0;
    warm |= matched & 1, retargeted |= matched >> 1;
    pile &= d->blk_type[k] == IMP_CNSTR_CONTACT || d->blk_type[k] == IMP_CNSTR_LIMIT;
    for (int r = 0; r < d->blk_dim[k]; r++) s->rows[n++] = d->blk_efcadr[k] + r;
  }
  for (int i = 0; i < n; i++) {
    int ri = s->rows[i];
    double si = row_scale(d, ri);
    s->scale[i] = si;
    s->v0[i] = si * d->efc_v0[ri];
    s->b[i] = si * d->efc_b[ri];
    s->g[i] = d->efc_impulse[ri] / si;
  }
  int rank = assemble_island(m, d, Y, diaginv, s, n);
  imp_cproblem p = {n,    nb,   s->adr, s->dim, s->type, s->mu, s->A, s->v0,
                    s->b, m->opt.timestep, NULL, 0, 0, NULL, NULL, speed_floor(m), NULL, NULL};
  if (rank > 0) {
    p.U = s->ycols, p.rank = rank, p.U_ld = column_stride(n);
    p.U_rowscale = s->scale, p.U_colweight = s->coef;
  }
  long long nz = imp_sparse_attach(&p, &s->pat);
  imp_guard_cap_correction_energy(m, d, &p, s->rows, s->b, s->first_dof, s->roots);
  imp_guard_disable_immobile_rows(&p, s->b, s->mu);
  double mass = imp_guard_moving_mass(m, d, s->rows, n, s->first_dof, s->roots);
  /* corrections that conflict lowered to the part the island can meet
     (contact_guard.h), so the solver is given a problem with a solution */
  imp_guard_consistent_corrections(&p, s->b, mass, &s->pat, s->res_work);
  imp_redundant_reduce(&p, s->A, s->v0, s->b, s->g, warm, m->opt.iterations, &s->red);
  if (d->problem_hook) d->problem_hook(d->problem_hook_ctx, &p, warm ? s->g : NULL);
  imp_budget_account account = {d->island_budget[isl], 0, 0};
  /* a large sparse island beyond the dense solver's iterations is swept
     instead, and the paths below take it for pgs's (contact_sparse.h) */
  int swept = imp_sparse_sweeps_first(solver, &p, m->opt.iterations), cut = 0;
  imp_csolver_stat st;
  if (swept) {
    double done;
    st = imp_sparse_sweeps(&p, m->opt.tolerance, warm, fmin(IMP_SOLVE_WORK_MAX, account.left),
                           s->g, s->b_held, s->vel, s->res_work, &done, &cut);
    imp_budget_charge(&account, done);
    iter += st.iterations;
    solver = &imp_solver_pgs;
  }
  int bounded = imp_bounded_iterations(solver, n, nz, m->opt.iterations) < m->opt.iterations ||
                (swept && cut);
  int maxiter = imp_budget_iterations(&account, solver, n, nz, m->opt.iterations);
  /* the first solve ends once its impulses pass a suspect answer's bound */
  imp_csolver_opt o = {maxiter, m->opt.tolerance, warm, NULL, NULL, 0}, first = o;
  first.fmax = IMP_HOLD_FACTOR * mass * IMP_STAB_VMAX;
  /* an island of contacts and limits that last step met its contacts'
     targets only at 0 gets a short first try at them before the retry
     below (README.md, "Remembered retries"), where its limit is 5 such
     tries or more: MuJoCo's cloth (islands of 128 to 271 rows, limits of 5
     to 19) went from 18 to 48 of 300 steps unconverged with it at every
     limit above one try */
  if (retargeted && pile && warm && !swept && maxiter >= 5 * IMP_HOLD_MIN_ITER) {
    first.maxiter = IMP_HOLD_MIN_ITER;
    imp_copy(s->vel, s->g, n); /* last step's answer: the retry may start there */
  }
  if (!swept) {
    /* rows new to the island start at their own law's impulse (contact_guard.h) */
    if (warm && !bounded) imp_guard_start_new_rows(solver, &p, s->g);
    if (warm) imp_copy(s->g_first, s->g, n);
    st = imp_guard_solve_checked(solver, &p, &first, s->g, s->work, s->res_work);
    if (warm) imp_guard_no_worse_than_start(solver, &p, st, s->g, s->g_first, s->res_work);
    imp_budget_charge(&account, st.iterations * imp_iteration_work(solver, n, nz));
    iter += st.iterations;
  }
  newton += st.newton;
  int too_much = imp_guard_injects_too_much(&p, s->g, mass, &s->pat, s->res_work);
  int unfinished = !too_much && imp_guard_unfinished_and_suspect(&p, st, s->g, mass, s->res_work);
  int held_solve = (too_much || unfinished) && imp_guard_hold_corrections(&p, s->b_held);
  /* a cone solve that stopped short (not the limit's doing: as the retry's)
     on a small island without sliding contacts: the relaxed problem on its
     primal (IMP_PRIMAL_RESCUE_ROWS), kept where it meets the exact law */
  if (!too_much && !unfinished && o.maxiter >= IMP_HOLD_MIN_ITER &&
      account.left >= imp_bounded_iterations(&imp_solver_primal, n, nz, m->opt.iterations) *
                          imp_iteration_work(&imp_solver_primal, n, nz) &&
      imp_guard_primal_may_answer(solver, &p, st, s->g, m->opt.tolerance, s->res_work)) {
    imp_copy(s->g_first, s->g, n);
    imp_csolver_stat sp =
        solve_again(m, &imp_solver_primal, &p, p.b, 0, &account, s, &bounded, &iter, &newton,
                    m->opt.iterations);
    if (imp_guard_primal_kept(&p, sp, s->g, m->opt.tolerance, mass, &s->pat, s->res_work)) st = sp;
    else imp_copy(s->g, s->g_first, n);
  }
  /* an unfinished answer that is no suspect: once more from it with the
     contacts' targets at 0, which a redundant pile or links sunk into each
     other cannot meet (contact_guard.c; those at rest only below
     IMP_HOLD_MIN_ITER); with the held solve excluded, at most the three
     solves island_work_max allows, and only with a whole solve's budget */
  double within = o.maxiter >= IMP_HOLD_MIN_ITER ? INFINITY : IMP_CONTACT_SLOP;
  int retried = !too_much && !unfinished && st.exit != IMP_EXIT_CONVERGED &&
                solver != &imp_solver_pgs &&
                account.left >= imp_bounded_iterations(solver, n, nz, m->opt.iterations) *
                                    imp_iteration_work(solver, n, nz) &&
                imp_guard_contact_targets_held(d, s->rows, &p, within, s->b_held);
  if (retried) {
    imp_copy(s->g_first, s->g, n);
    if (first.maxiter < o.maxiter) imp_guard_nearer_start(&p, s->b_held, s->g, s->vel, s->res_work);
    imp_csolver_stat sr =
        solve_again(m, solver, &p, s->b_held, 1, &account, s, &bounded, &iter, &newton,
                    m->opt.iterations);
    if (sr.exit == IMP_EXIT_CONVERGED) {
      st = sr, flags |= IMP_ISLAND_RETARGETED;
      imp_copy(s->b, s->b_held, n);
    } else {
      imp_copy(s->g, s->g_first, n);
    }
  }
  /* the short first try, unfinished and not retargeted: the rest of it,
     within the island's share (no solve beyond the three of contact.h's
     floor) */
  if (first.maxiter < o.maxiter && !too_much && !unfinished && !(flags & IMP_ISLAND_RETARGETED) &&
      st.exit != IMP_EXIT_CONVERGED &&
      account.left >= (maxiter - first.maxiter) * imp_iteration_work(solver, n, nz))
    st = solve_again(m, solver, &p, p.b, 1, &account, s, &bounded, &iter, &newton,
                     maxiter - first.maxiter);
  if (held_solve) {
    /* The corrections cannot be met at a bounded cost, or perhaps not at
       all (header): solve the step that holds every violation where it is
       instead. A suspect unfinished answer gives way to the held one unless
       that is suspect too and has the larger impulses. */
    if (unfinished) imp_copy(s->g_first, s->g, n);
    /* after an unfinished answer the island's solver again, warm from it:
       the held targets are consistent where the first ones conflicted
       (barkour_v0 scene_barkour from its key: 1,893 of 2,000 steps not
       converged, then 12); pgs where the work bound cut it, a second
       full-cost failure tripled the steps of aloha from qpos0 (276 rows) */
    int sweep = unfinished && bounded;
    imp_csolver_stat sh = solve_again(m, sweep ? &imp_solver_pgs : solver, &p, s->b_held,
                                      unfinished && !sweep, &account, s, &bounded, &iter, &newton,
                    m->opt.iterations);
    imp_cproblem held = p;
    held.b = s->b_held;
    if (unfinished && imp_guard_unfinished_and_suspect(&held, sh, s->g, mass, s->res_work) &&
        imp_max_abs_or_inf(s->g_first, n) <= imp_max_abs_or_inf(s->g, n)) {
      imp_copy(s->g, s->g_first, n);
    } else {
      flags |= IMP_ISLAND_HELD;
      st = sh;
      imp_copy(s->b, s->b_held, n); /* the targets solved, for efc_b below */
    }
  }
  /* the check again only where the held solve changed g or b: it is a
     function of the problem and g alone */
  if (solver != &imp_solver_pgs &&
      (held_solve || retried ? imp_guard_injects_too_much(&p, s->g, mass, &s->pat, s->res_work)
                            : too_much)) {
    /* Still more energy than the corrections justify: this is no solution
       of the step (apollo's first step: todorov's best iterate added 1.6e4
       J to a problem whose solutions dissipate, relative residual 0.03).
       Projected Gauss-Seidel descends the problem's energy from f = 0 (its
       answer there took 0.08 J out); the lower-energy answer is kept. */
    double scale, e_first = imp_cproblem_energy_change(&p, s->g, s->res_work, &scale);
    imp_copy(s->g_first, s->g, n);
    imp_csolver_stat st2 =
        solve_again(m, &imp_solver_pgs, &p, p.b, 0, &account, s, &bounded, &iter, &newton,
                    m->opt.iterations);
    flags |= IMP_ISLAND_RESCUED;
    if (imp_cproblem_energy_change(&p, s->g, s->res_work, &scale) < e_first) {
      st = st2;
    } else {
      imp_copy(s->g, s->g_first, n);
    }
  }
  if (!bounded && !(flags & (IMP_ISLAND_HELD | IMP_ISLAND_RESCUED)))
    iter +=
        imp_guard_polish_unfinished(solver, &p, &o, &st, s->g, s->g_first, s->work, s->res_work);
  /* the rows' velocities, for the residual and for efc_vel */
  for (int i = 0; i < n; i++) s->vel[i] = imp_cproblem_row_times(&p, i, s->g) + s->v0[i];
  imp_redundant_restore(&s->red, s->vel, s->b);
  double rel = 0, abs_res = imp_cresidual_at(&p, s->g, s->vel, &rel, s->res_work);
  if (bounded && st.exit != IMP_EXIT_CONVERGED) flags |= IMP_ISLAND_BOUNDED;
  if (account.cut && st.exit != IMP_EXIT_CONVERGED) flags |= IMP_ISLAND_OVER_BUDGET;
  d->island_work[isl] = account.work;
  d->island_iter[isl] = iter;
  d->island_newton[isl] = newton;
  d->island_exit[isl] = st.exit;
  d->island_flags[isl] = flags;
  d->island_residual[isl] = rel;
  d->island_residual_abs[isl] = abs_res;
  for (int i = 0; i < n; i++) {
    int ri = s->rows[i];
    double si = d->blk_scale[6 * d->efc_blk[ri] + (ri - d->blk_efcadr[d->efc_blk[ri]])];
    d->efc_impulse[ri] = s->g[i] * si;
    d->efc_vel[ri] = s->vel[i] / si;
    d->efc_b[ri] = s->b[i] / si; /* lowered by the immobile rows or the held corrections */
  }
}

/* a worker's scratch: the largest island the data's solver may be given */
static size_t worker_work_bytes(const imp_model* m, const imp_data* d) {
  return solver_work_bytes(imp_solver_get(d->solver), m->nislandmax, m->nislandmax);
}

/* the islands' work for the pool: one island per task */
typedef struct islands_job {
  const imp_model* m;
  imp_data* d;
  const half_rows* Y;
  const double* diaginv;
  island_scratch* scratch; /* per worker: [0] the caller's */
  const int* order;        /* islands, largest first */
} islands_job;

static void island_task(void* ctx, int task, int worker) {
  islands_job* j = ctx;
  solve_island(j->m, j->d, j->order[task], j->Y, j->diaginv, j->scratch + worker);
}

/* rows of island i (after those past nislandmax were left out) */
static int island_rows(const imp_data* d, int i) {
  int rows = 0;
  for (int j = 0; j < d->island_blknum[i]; j++)
    rows += d->blk_dim[d->island_blk[d->island_blkadr[i] + j]];
  return rows;
}

/* an island and its rows, to order the pool's tasks */
typedef struct island_size {
  int rows, island;
} island_size;

/* more rows first, then the lower island (a total order: imp_heapsort) */
static int larger_first(const void* a, const void* b, void* ctx) {
  const island_size *x = a, *y = b;
  (void)ctx;
  if (x->rows != y->rows) return x->rows > y->rows;
  return x->island < y->island;
}

/* Solve every island: in order on the caller's thread, or on the data's
   pool, largest first (the longest solves start first, so the threads end
   together). Each island writes only its own rows and statistics, so the
   results are the same bitwise either way. */
static void solve_islands(const imp_model* m, imp_data* d, const half_rows* Y,
                          const double* diaginv, island_scratch* s0) {
  if (!d->pool || d->nisland < 2) {
    for (int i = 0; i < d->nisland; i++) solve_island(m, d, i, Y, diaginv, s0);
    return;
  }
  /* the table imp_set_threads made: [0] is the caller's, this step's */
  island_scratch* scratch = d->worker_scratch;
  scratch[0] = *s0;
  island_size* sizes = (island_size*)imp_stack_alloc_int(d, 2 * d->nisland);
  for (int i = 0; i < d->nisland; i++) sizes[i] = (island_size){island_rows(d, i), i};
  imp_heapsort(sizes, d->nisland, sizeof *sizes, larger_first, NULL);
  int* order = imp_stack_alloc_int(d, d->nisland);
  for (int i = 0; i < d->nisland; i++) order[i] = sizes[i].island;
  /* The islands the solver factors with LAPACK stay on this thread, in
     order, as in a one-thread run: OpenBLAS's kernels are chosen per CPU
     and its results are not promised to be the same from thread to thread
     (CI saw a 3-thread recording differ from the 1-thread one where three
     64-row islands were factored at once, on a machine not this one;
     OpenBLAS reports CPU-specific, thread-dependent results, e.g. its issue
     #5267). Largest first, so they are the front of the order. */
  const imp_csolver* solver = imp_solver_get(d->solver);
  int min_rows = solver->caller_min_rows ? solver->caller_min_rows() : 0, ncaller = 0;
  while (min_rows > 0 && ncaller < d->nisland && sizes[ncaller].rows >= min_rows) ncaller++;
  islands_job job = {m, d, Y, diaginv, scratch, order};
  imp_pool_run(d->pool, d->nisland, ncaller, island_task, &job);
}

/* Each island's share of the step's budget (contact.h): all it may use
   under the per-solve bound when the sum of those fits, else the budget
   in proportion to them. Fixed before any island is solved, from their
   sizes alone, so the same on every thread count. */
static void share_step_budget(const imp_model* m, imp_data* d, int* count) {
  const imp_csolver* solver = imp_solver_get(d->solver);
  double total = 0;
  for (int i = 0; i < d->nisland; i++) {
    int n = island_rows(d, i), sparse = imp_sparse_island_sure(m, d, i, n, count);
    d->island_budget[i] = imp_island_work_max(solver, n, m->opt.iterations, sparse);
    total += d->island_budget[i];
  }
  if (total <= d->step_budget) return;
  for (int i = 0; i < d->nisland; i++)
    d->island_budget[i] = d->step_budget * (d->island_budget[i] / total);
}

/* The step's solver statistics from the islands', in island order. */
static void sum_island_statistics(imp_data* d) {
  for (int i = 0; i < d->nisland; i++) {
    int flags = d->island_flags[i];
    d->solver_iter += d->island_iter[i];
    d->solver_newton += d->island_newton[i];
    d->solver_held += (flags & IMP_ISLAND_HELD) != 0;
    d->solver_rescued += (flags & IMP_ISLAND_RESCUED) != 0;
    d->solver_bounded += (flags & IMP_ISLAND_BOUNDED) != 0;
    d->solver_over_budget += (flags & IMP_ISLAND_OVER_BUDGET) != 0;
    d->solver_work += d->island_work[i];
    if (d->island_exit[i] > d->solver_exit) d->solver_exit = d->island_exit[i];
    if (!(d->island_residual[i] <= d->solver_residual)) d->solver_residual = d->island_residual[i];
    if (!(d->island_residual_abs[i] <= d->solver_residual_abs))
      d->solver_residual_abs = d->island_residual_abs[i];
  }
}

void imp_contact_stage(const imp_model* m, imp_data* d) {
  const int nv = m->nv;
  double h = m->opt.timestep;
  imp_zero(d->qfrc_constraint, nv);
  d->solver_iter = d->solver_newton = d->solver_held = d->solver_rescued = 0;
  d->solver_bounded = d->solver_over_budget = 0;
  d->solver_work = 0;
  d->solver_exit = IMP_EXIT_CONVERGED;
  d->solver_residual = d->solver_residual_abs = 0;
  d->nisland = 0;
  if (d->nefc == 0) {
    d->warm_nblk = 0;
    imp_copy(d->qacc, d->qacc_smooth, nv);
    return;
  }
  size_t mark = imp_stack_mark(d);
  /* the factor of the matrix the integrator steps with */
  const double *LD = d->qLD, *diaginv = d->qLDiagInv;
  double* ufree = imp_stack_alloc(d, nv);
  imp_copy(ufree, d->qacc_smooth, nv);
  if (imp_implicit_damping(m)) { /* the step's M - h D (integrate.c) */
    imp_factor_damped(m, d);
    imp_implicit_solve(m, d, ufree, d->qfrc_smooth);
    LD = d->qH, diaginv = d->qHDiagInv;
  }
  for (int i = 0; i < nv; i++) ufree[i] = d->qvel[i] + h * ufree[i];
  for (int r = 0; r < d->nefc; r++) {
    double v = 0;
    for (int i = 0; i < d->efc_J_rownnz[r]; i++)
      v += d->efc_J[d->efc_J_rowadr[r] + i] * ufree[d->efc_J_colind[d->efc_J_rowadr[r] + i]];
    d->efc_v0[r] = v;
  }
  double* dense = imp_stack_alloc(d, nv);
  /* Y = K L^-1, solved island by island (assemble_island); each row
     reserved its closure's room in efc_J (constraints.c): Y's rows go at
     the same places when an island is solved row by row */
  half_rows Y = {LD, imp_stack_alloc_int(d, d->nefc), imp_stack_alloc_int(d, d->nefc_J),
                 imp_stack_alloc(d, d->nefc_J)};
  int* parent = imp_stack_alloc_int(d, m->nbody);
  int* label = imp_stack_alloc_int(d, m->nbody);
  find_islands(m, d, parent, label);
  /* scratch for the largest island; blocks past nislandmax rows are left
     out of their island (no impulse), in row order, so contacts go first */
  int nmax = 0, bmax = 0, nleft = 0;
  for (int i = 0; i < d->nisland; i++) {
    int n = 0, kept = 0;
    for (int j = 0; j < d->island_blknum[i]; j++) {
      int dim = d->blk_dim[d->island_blk[d->island_blkadr[i] + j]];
      if (n + dim > m->nislandmax) {
        nleft += dim;
        continue;
      }
      d->island_blk[d->island_blkadr[i] + kept++] = d->island_blk[d->island_blkadr[i] + j];
      n += dim;
    }
    d->island_blknum[i] = kept;
    if (n > nmax) nmax = n;
    if (kept > bmax) bmax = kept;
  }
  if (nleft) {
    if (!d->nwarning_efcfull)
      imp_warning("an island has more than nislandmax = %d rows at step %lld: %d rows left "
                  "out; raise <size nislandmax>", m->nislandmax, d->nstep, nleft);
    d->nwarning_efcfull++;
    d->nefc_dropped += nleft;
  }
  island_scratch s;
  size_t wbytes = solver_work_bytes(imp_solver_get(d->solver), nmax, bmax);
  size_t sbytes = carve_island_scratch(m, nmax, bmax, wbytes, NULL, &s);
  char* sbase = (char*)imp_stack_alloc(d, (int)((sbytes + SCRATCH_ALIGN) / sizeof(double)));
  sbase += (SCRATCH_ALIGN - (uintptr_t)sbase % SCRATCH_ALIGN) % SCRATCH_ALIGN;
  carve_island_scratch(m, nmax, bmax, wbytes, sbase, &s);
  int* count = imp_stack_alloc_int(d, m->nbody); /* imp_sparse_island_sure's */
  for (int b = 0; b < m->nbody; b++) count[b] = 0;
  share_step_budget(m, d, count);
  solve_islands(m, d, &Y, diaginv, &s);
  sum_island_statistics(d);
  d->nstep_over_budget += d->solver_over_budget > 0;
  if (d->solver_exit != IMP_EXIT_CONVERGED) {
    if (!d->nwarning_solver)
      imp_warning("contact solver '%s' did not converge at step %lld (exit %d, residual %g); "
                  "the step continues with its best iterate",
                  imp_solver_get(d->solver)->name, d->nstep, d->solver_exit, d->solver_residual);
    d->nwarning_solver++;
  }
  /* impulses to generalized forces: qfrc = K' f / h */
  for (int r = 0; r < d->nefc; r++)
    for (int i = 0; i < d->efc_J_rownnz[r]; i++)
      d->qfrc_constraint[d->efc_J_colind[d->efc_J_rowadr[r] + i]] +=
          d->efc_J[d->efc_J_rowadr[r] + i] * d->efc_impulse[r] / h;
  /* qacc with M, as MuJoCo reports it; the integrator applies M~ */
  for (int i = 0; i < nv; i++) dense[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  imp_solve_sparse(m, d->qLD, d->qLDiagInv, d->qacc, dense);
  imp_warm_save(m, d);
  imp_stack_release(d, mark);
}

/* ---- public API ---- */

/* the pool of n threads and its workers' scratch for d's solver; 0, or -1
   with d unchanged */
static int make_workers(const imp_model* m, imp_data* d, int n) {
  /* one block: the table of n scratches, then workers 1..n-1's arrays,
     carved once (solve_island leaves first_dof and dense as it found them) */
  island_scratch s;
  size_t wbytes = worker_work_bytes(m, d);
  size_t bytes = carve_island_scratch(m, m->nislandmax, m->nislandmax, wbytes, NULL, &s);
  size_t table = piece((size_t)n, sizeof(island_scratch));
  size_t total = table + bytes * (size_t)(n - 1);
  /* pages of the scratch are touched only by the islands a worker solves */
  char* block = aligned_alloc(SCRATCH_ALIGN, total);
  imp_pool* pool = block ? imp_pool_make(n) : NULL;
  if (!pool) {
    free(block);
    return -1;
  }
  island_scratch* scratch = (island_scratch*)(void*)block;
  for (int w = 1; w < n; w++)
    carve_island_scratch(m, m->nislandmax, m->nislandmax, wbytes,
                         block + table + (size_t)(w - 1) * bytes, scratch + w);
  imp_pool_free(d->pool);
  free(d->worker_scratch);
  d->pool = pool;
  d->worker_scratch = block;
  d->worker_scratch_bytes = total;
  d->nthread = n;
  return 0;
}

int imp_set_threads(const imp_model* m, imp_data* d, int n) {
  if (!m || !d || n < 1 || n > IMP_THREADS_MAX) return -1;
  if (n == d->nthread || (n == 1 && !d->pool)) return 0;
  if (n > 1) return make_workers(m, d, n) == 0 ? 0 : -1;
  imp_pool_free(d->pool);
  free(d->worker_scratch);
  d->pool = NULL;
  d->worker_scratch = NULL;
  d->worker_scratch_bytes = 0;
  d->nthread = 1;
  return 0;
}

int imp_set_step_budget(imp_data* d, double work) {
  if (!d || !(work > 0)) return -1;
  d->step_budget = work;
  return 0;
}

int imp_contact_fit_workers(const imp_model* m, imp_data* d, int old) {
  if (d->nthread > 1 && worker_work_bytes(m, d) > solver_work_bytes(imp_solver_get(old), m->nislandmax,
                                                                    m->nislandmax)) {
    if (make_workers(m, d, d->nthread) != 0) return -1;
  }
  return 0;
}
