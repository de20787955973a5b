/* The contact stage (see contact.h): the registry of solvers by name, and
 * the stage that hands each island's contact-space problem to the chosen
 * solver. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"
#include "mathx.h"
#include "pool.h"

/* ---- the registry: index 0 is the default ---- */

static const imp_csolver* const k_solvers[] = {&imp_solver_todorov, &imp_solver_pgs,
                                                  &imp_solver_ccp,
                                                  &imp_solver_lemke,
                                                  &imp_solver_prox,
                                                  &imp_solver_minmap,
                                                  &imp_solver_nsn_fb};

int imp_solver_count(void) { return (int)(sizeof k_solvers / sizeof k_solvers[0]); }

const imp_csolver* imp_solver_get(int i) {
  return i >= 0 && i < imp_solver_count() ? k_solvers[i] : NULL;
}

int imp_solver_find(const char* name) {
  if (!name) return -1;
  for (int i = 0; i < imp_solver_count(); i++)
    if (!strcmp(k_solvers[i]->name, name)) return i;
  return -1;
}

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

/* Scratch doubles the stage asks besides A and the solver's work. */
static size_t stage_doubles(const imp_model* m) {
  size_t n = (size_t)m->njmax;
  return (size_t)m->nJnnz /* Y */ + 15 * n + 4 * (size_t)m->nv + 64;
}

size_t imp_contact_arena_bytes(const imp_model* m, int solver) {
  size_t n = (size_t)m->njmax, na = (size_t)m->nislandmax;
  const imp_csolver* s = imp_solver_get(solver);
  size_t work = s ? solver_work_bytes(s, m->nislandmax, m->nislandmax) : 0;
  size_t doubles = na * na /* A */ + stage_doubles(m);
  size_t ints = (size_t)m->nJnnz /* Y's pattern */ + 8 * n + 2 * (size_t)m->nv +
                2 * (size_t)m->nbody + 64 + 3 * n /* the pool's island order */;
  /* every allocation may lose up to 64 bytes to alignment */
  return doubles * sizeof(double) + ints * sizeof(int) + work + 64 * 64;
}

/* Rows of the half-solve Y = K L^-1: pattern and values. */
typedef struct half_rows {
  int* nnz;    /* nefc */
  int* colind; /* nefc_J, row r at efc_J_rowadr[r], dofs descending */
  double* val; /* nefc_J, the same */
} half_rows;

/* Insert dof into the descending list dof[0..n) if absent; returns n. */
static int insert_desc(int* dof, int n, int k) {
  int i = 0;
  while (i < n && dof[i] > k) i++;
  if (i < n && dof[i] == k) return n;
  for (int j = n; j > i; j--) dof[j] = dof[j - 1];
  dof[i] = k;
  return n + 1;
}

/* y L = k for one row: scatter, eliminate leaves first over the row's
   pattern closed under ancestors (where the fill goes), gather. */
static void half_solve_row(const imp_model* m, const imp_data* d, const double* LD, int row,
                           double* x, int* colind, double* val, int* nnz_out) {
  int adr = d->efc_J_rowadr[row], nnz = 0;
  for (int i = 0; i < d->efc_J_rownnz[row]; i++) {
    int k = d->efc_J_colind[adr + i];
    x[k] += d->efc_J[adr + i];
    for (; k >= 0; k = m->dof_parentid[k]) {
      int before = nnz;
      nnz = insert_desc(colind, nnz, k);
      if (nnz == before) break; /* the rest of the chain is already in */
    }
  }
  for (int i = 0; i < nnz; i++) {
    int k = colind[i], a = m->dof_Madr[k] + 1;
    for (int j = m->dof_parentid[k]; j >= 0; j = m->dof_parentid[j]) x[j] -= LD[a++] * x[k];
  }
  for (int i = 0; i < nnz; i++) {
    val[i] = x[colind[i]];
    x[colind[i]] = 0;
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
    int row = d->blk_efcadr[k], first = -1;
    for (int r = 0; r < d->blk_dim[k]; r++)
      for (int i = 0; i < d->efc_J_rownnz[row + r]; i++) {
        int tree = m->body_rootid[m->dof_bodyid[d->efc_J_colind[d->efc_J_rowadr[row + r] + i]]];
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

/* ---- warm start: the last step's impulses, block by block ---- */

/* Side of a limit block: 0 lower (row +1), 1 upper or a ball's cone; a
   tendon's is in its id (types.h). */
static int limit_side(const imp_model* m, const imp_data* d, int blk) {
  int row = d->blk_efcadr[blk], j = d->blk_id[blk];
  if (j >= m->njnt) return (j - m->njnt) & 1;
  if (m->jnt_type[j] == IMP_JNT_BALL) return 1;
  return d->efc_J[d->efc_J_rowadr[row]] > 0 ? 0 : 1;
}

/* The key a block is matched by: (type, id, id2). */
static void block_key(const imp_model* m, const imp_data* d, int blk, int* id, int* id2) {
  int t = d->blk_type[blk];
  if (t == IMP_CNSTR_CONTACT) {
    const imp_contact* c = d->contact + d->blk_id[blk];
    *id = c->geom1;
    *id2 = c->geom2;
  } else {
    *id = d->blk_id[blk];
    *id2 = t == IMP_CNSTR_LIMIT ? limit_side(m, d, blk) : 0;
  }
}

/* Two contacts of the same geoms are the same contact across a step when
   their points are within this fraction of the geoms' size. */
#define IMP_WARM_MATCH 0.1

static void save_warm(const imp_model* m, imp_data* d) {
  d->warm_nblk = d->nblk;
  for (int k = 0; k < d->nblk; k++) {
    int row = d->blk_efcadr[k];
    d->warm_type[k] = d->blk_type[k];
    block_key(m, d, k, d->warm_id + k, d->warm_id2 + k);
    imp_zero(d->warm_impulse + 6 * k, 6);
    imp_copy(d->warm_impulse + 6 * k, d->efc_impulse + row, d->blk_dim[k]);
    if (d->blk_type[k] == IMP_CNSTR_CONTACT) {
      const imp_contact* c = d->contact + d->blk_id[k];
      imp_copy(d->warm_pos + 3 * k, c->pos, 3);
      imp_copy(d->warm_frame + 9 * k, c->frame, 9);
    }
  }
}

/* Friction pairs (t1, t2 rows 1-2 and rolling rows 4-5) carried from the
   old frame to the new one through their world vector. */
static void carry_friction(double* f, int dim, const double* old_frame, const double* w,
                           const double* frame) {
  for (int first = 1; first + 1 < dim; first += 3) { /* rows (1, 2), then (4, 5) */
    double v[3];
    for (int a = 0; a < 3; a++)
      v[a] = w[first] * old_frame[3 + a] + w[first + 1] * old_frame[6 + a];
    f[first] = imp_dot(v, frame + 3, 3);
    f[first + 1] = imp_dot(v, frame + 6, 3);
  }
}

/* Start impulses for block k from the saved ones; 1 when matched. */
static int match_warm(const imp_model* m, imp_data* d, int k) {
  int id, id2, t = d->blk_type[k], dim = d->blk_dim[k], best = -1;
  block_key(m, d, k, &id, &id2);
  double best_dist = 0;
  const imp_contact* c = t == IMP_CNSTR_CONTACT ? d->contact + d->blk_id[k] : NULL;
  for (int w = 0; w < d->warm_nblk; w++) {
    if (d->warm_type[w] != t || d->warm_id[w] != id || d->warm_id2[w] != id2) continue;
    if (!c) {
      best = w;
      break;
    }
    double dx[3];
    for (int a = 0; a < 3; a++) dx[a] = c->pos[a] - d->warm_pos[3 * w + a];
    double dist = imp_norm3(dx);
    if (best < 0 || dist < best_dist) best = w, best_dist = dist;
  }
  if (best < 0) return 0;
  double* f = d->efc_impulse + d->blk_efcadr[k];
  const double* w = d->warm_impulse + 6 * best;
  if (c) {
    double size = fmax(m->geom_rbound[c->geom1], m->geom_rbound[c->geom2]);
    if (best_dist > IMP_WARM_MATCH * size) return 0;
    f[0] = w[0];
    if (dim > 1) carry_friction(f, dim, d->warm_frame + 9 * best, w, c->frame);
    if (dim > 3) f[3] = w[3];
  } else {
    imp_copy(f, w, dim);
  }
  return 1;
}

/* ---- the problem hook (for benchmarks that record problems) ---- */

void imp_set_problem_hook(imp_data* d, imp_problem_hook hook, void* ctx) {
  d->problem_hook = hook;
  d->problem_hook_ctx = ctx;
}

/* ---- one island ---- */

/* The mass rows move: on each kinematic tree their dofs belong to, the
   subtree of the body of their first dof there (dofs are numbered root to
   leaf, so that is the moving part of the tree a contact or connect
   moves, or the part a limit's joint carries), each tree counted once.
   first_dof: nbody ints, -1 on entry and on return; roots: nbody ints of
   scratch. */
static double moving_mass(const imp_model* m, const imp_data* d, const int* rows, int n,
                          int* first_dof, int* roots) {
  int nroot = 0;
  for (int i = 0; i < n; i++) {
    int adr = d->efc_J_rowadr[rows[i]];
    for (int t = 0; t < d->efc_J_rownnz[rows[i]]; t++) {
      int dof = d->efc_J_colind[adr + t], r = m->body_rootid[m->dof_bodyid[dof]];
      if (first_dof[r] < 0) roots[nroot++] = r;
      if (first_dof[r] < 0 || dof < first_dof[r]) first_dof[r] = dof;
    }
  }
  double mass = 0;
  for (int k = 0; k < nroot; k++) {
    mass += m->body_subtreemass[m->dof_bodyid[first_dof[roots[k]]]];
    first_dof[roots[k]] = -1;
  }
  return mass;
}

/* Rows of block k that may carry a correction (a contact's normal only),
   and whether target b of such a row is one: unilateral rows correct with
   b > 0 (b < 0 is the approach they may make), equalities either way. */
static int target_rows(const imp_cproblem* p, int k) {
  return p->blk_type[k] == IMP_CNSTR_CONTACT ? 1 : p->blk_dim[k];
}
static int is_correction(const imp_cproblem* p, int k, double b) {
  return b > 0 || (p->blk_type[k] == IMP_CNSTR_EQUALITY && b < 0);
}

/* Corrections bounded in energy as well as in speed. constraints.c caps a
   violated row's target at IMP_STAB_VMAX in the row's own units; met alone
   it costs b_i^2 / (2 A_ii), and a row with a short lever arm has an
   effective mass 1 / A_ii far above its bodies' (Menagerie's piper starts
   with link2's capsule 3.7 cm into the base, 3 cm from the shoulder axis:
   1 / A_ii = 134 kg for a 4 kg arm, and 1 m/s there spun links at 30 rad/s).
   Each correction is held to the energy of the mass M it moves
   (moving_mass) moving at IMP_STAB_VMAX: |b_i| <= IMP_STAB_VMAX
   sqrt(A_ii M). A free body never meets the cap (its effective mass at a
   point is at most its mass), nor does an ordinary resting contact; only
   rotations about a nearby axis do. */
static void cap_correction_energy(const imp_model* m, const imp_data* d, const imp_cproblem* p,
                                  const int* rows, double* b, int* first_dof, int* roots) {
  int n = p->n;
  for (int k = 0; k < p->nblock; k++)
    for (int r = 0, i = p->blk_adr[k]; r < target_rows(p, k); r++, i++) {
      if (!is_correction(p, k, b[i])) continue;
      double mass = moving_mass(m, d, rows + i, 1, first_dof, roots);
      double cap = IMP_STAB_VMAX * sqrt(p->A[(size_t)i * n + i] * mass);
      if (fabs(b[i]) > cap) b[i] = b[i] > 0 ? cap : -cap;
    }
}

/* A row whose velocity no impulse can change (A_ii below IMMOBILE_TOL of
   the island's largest diagonal: a contact point on the axis of the only
   joint that moves it, its normal along that axis) cannot meet a target
   it does not already meet: Menagerie's ur10e starts with a shoulder
   capsule 2.7 cm into the floor, normal along the shoulder's axis, and
   kinova's shoulder mesh inside its base. The target is lowered to what
   the row does anyway (b <= v0 for unilateral rows, b = v0 for equalities)
   and a contact whose normal cannot act loses its friction (mu = 0: a
   normal impulse that does nothing cannot bound anything). Without this
   the problem has no solution and every solver's impulses grow without
   bound (1e15 on kinova's first steps; MuJoCo's soft contact reports a
   force of 3.6e16 on ur10e's). */
#define IMMOBILE_TOL 1e-12

static void disable_immobile_rows(const imp_cproblem* p, double* b, double* mu) {
  int n = p->n;
  double dmax = 0;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, p->A[(size_t)i * n + i]);
  for (int k = 0; k < p->nblock; k++)
    for (int r = 0; r < p->blk_dim[k]; r++) {
      int i = p->blk_adr[k] + r;
      int friction = (p->blk_type[k] == IMP_CNSTR_CONTACT && r > 0) ||
                     p->blk_type[k] == IMP_CNSTR_FRICTION;
      if (friction || p->A[(size_t)i * n + i] > IMMOBILE_TOL * dmax) continue;
      if (p->blk_type[k] == IMP_CNSTR_EQUALITY) {
        b[i] = p->v0[i];
      } else {
        b[i] = fmin(b[i], p->v0[i]);
        if (r == 0) mu[k] = 0;
      }
    }
}

/* the kinetic energy g adds and its rounding scale (contact.h) */
double imp_cproblem_energy_change(const imp_cproblem* p, const double* g, double* work,
                                  double* scale) {
  int n = p->n;
  double dE = 0;
  *scale = 0;
  for (int i = 0; i < n; i++) work[i] = imp_dot(p->A + (size_t)i * n, g, n);
  for (int i = 0; i < n; i++) {
    dE += g[i] * (p->v0[i] + 0.5 * work[i]);
    *scale += fabs(g[i] * p->v0[i]) + fabs(g[i] * work[i]);
  }
  return dE;
}

/* The least kinetic energy that moves every corrected row (is_correction)
   at its target together, b_c' A_cc^-1 b_c / 2 (the minimum of
   |du|^2_M~ / 2 subject to K_c du = b_c), by conjugate gradients on A_cc
   with its diagonal as preconditioner. Each iterate minimises
   x'A_cc x / 2 - b_c'x over a growing space, so b_c'x_k rises monotonically
   to b_c'A_cc^-1 b_c: the energy passes cap on the way when it is above
   it. Returns the energy; INFINITY when it is above cap, when A_cc is not
   positive definite, or when CG does not reach relative residual
   NEED_TOL in 2 n_c iterations (corrections that fight each other put b_c
   along directions A_cc barely moves: the energy is without bound, or
   nearly). work: 5 n doubles. */
#define NEED_TOL 1e-8

static double coupled_correction_energy(const imp_cproblem* p, double cap, double* work) {
  int n = p->n, nc = 0;
  double *bc = work, *x = work + n, *r = work + 2 * n, *dir = work + 3 * n, *q = work + 4 * n;
  imp_zero(bc, n);
  for (int k = 0; k < p->nblock; k++)
    for (int t = 0, i = p->blk_adr[k]; t < target_rows(p, k); t++, i++)
      if (is_correction(p, k, p->b[i]) && p->A[(size_t)i * n + i] > 0) bc[i] = p->b[i], nc++;
  double bnorm = sqrt(imp_dot(bc, bc, n)), rz = 0;
  if (nc == 0) return 0;
  imp_zero(x, n);
  imp_copy(r, bc, n);
  for (int i = 0; i < n; i++) {
    dir[i] = bc[i] != 0 ? r[i] / p->A[(size_t)i * n + i] : 0;
    rz += r[i] * dir[i];
  }
  for (int it = 0; it < 2 * nc; it++) {
    for (int i = 0; i < n; i++) q[i] = bc[i] != 0 ? imp_dot(p->A + (size_t)i * n, dir, n) : 0;
    double dq = imp_dot(dir, q, n);
    if (!(dq > 0)) return INFINITY;
    double alpha = rz / dq, rz_next = 0;
    imp_add_scl(x, dir, alpha, n);
    imp_add_scl(r, q, -alpha, n);
    double need = 0.5 * imp_dot(bc, x, n);
    if (!(need <= cap)) return INFINITY;
    if (sqrt(imp_dot(r, r, n)) <= NEED_TOL * bnorm) return need;
    for (int i = 0; i < n; i++)
      if (bc[i] != 0) rz_next += r[i] * r[i] / p->A[(size_t)i * n + i];
    for (int i = 0; i < n; i++)
      dir[i] = bc[i] != 0 ? r[i] / p->A[(size_t)i * n + i] + rz_next / rz * dir[i] : 0;
    rz = rz_next;
  }
  return INFINITY;
}

/* 1 when the answer g raises the island's kinetic energy by more than its
   corrections can justify. The change is dE = g'v0 + g'A g / 2 (u+ = u_free
   + M~^-1 K' g, so |u+|^2_M~ - |u_free|^2_M~ = 2 g'v0 + g'A g, halved). A
   correction of row i at b_i > 0 alone costs b_i^2 / (2 A_ii) (the row's
   effective mass 1 / A_ii moved at b_i); corrections that fight each
   other (a closed loop whose limits are violated, Menagerie's cassie) can
   only be met by impulses without bound along a direction A barely moves:
   the answer then meets every target, "converges", and throws the model
   (37 m/s). Allowed: IMP_HOLD_FACTOR times the sum over corrected rows,
   plus IMP_COMMON_TOL of dE's scale. The factor is for rows that share bodies: measured dE /
   sum on cassie 1.01 at its first step, up to 3.7e3 on the steps that threw
   it; on a floating four-bar from random violated poses (physics_violations)
   median 6, and 241 where the loop cannot close within its limits. 10 lets
   ordinary coupled corrections through and holds the runaway ones (cassie
   then moves no joint faster than 1 rad/s). Without corrections a
   solution never adds energy (b <= 0: g'v = g'b + friction's g'v <= 0, and
   dE = g'v - g'A g / 2), so a gain beyond the accuracy answers are held
   to (IMP_COMMON_TOL of dE's scale; test_solvers.c checks that converged
   answers stay below it) marks a wrong answer. The sum is also held to the
   energy of the island's moving mass (moving_mass) at
   IMP_STAB_VMAX: corrections that fight each other can be "met" to a small
   relative residual by impulses of 1e9 (nsn_fb on an arm pressed into its
   base by a joint limit, physics_violations), each row's share staying
   below its cap while together they spin the arm at 14 rad/s.
   The sum treats rows as if alone; rows that share bodies can need far
   more together (a 9 x 9 grid of tendon equalities, MuJoCo's grid2pin:
   b_c'A_cc^-1 b_c / 2 at 100 to 2e4 times the sum, every step, so every
   correction was held and the tendons stretched 0.05 -> 0.135 in 1000
   steps). An answer the sum would hold is let through when it stays
   within IMP_HOLD_FACTOR times that exact need and the need is within the
   moving mass's energy at IMP_STAB_VMAX (coupled_correction_energy), which
   corrections that fight each other exceed (their need is without bound).
   work: 6 n doubles. */
static int injects_too_much(const imp_cproblem* p, const double* g, double mass,
                            double* work) {
  int n = p->n;
  double allowed = 0, scale;
  for (int k = 0; k < p->nblock; k++)
    for (int r = 0, i = p->blk_adr[k]; r < target_rows(p, k); r++, i++) {
      double aii = p->A[(size_t)i * n + i], bi = p->b[i];
      if (is_correction(p, k, bi) && aii > 0) allowed += 0.5 * bi * bi / aii;
    }
  double cap = 0.5 * mass * IMP_STAB_VMAX * IMP_STAB_VMAX;
  allowed = fmin(allowed, cap);
  double dE = imp_cproblem_energy_change(p, g, work, &scale);
  double tol = IMP_COMMON_TOL * scale;
  if (dE <= IMP_HOLD_FACTOR * allowed + tol) return 0;
  double need = coupled_correction_energy(p, cap, work + p->n);
  return !(need <= cap && dE <= IMP_HOLD_FACTOR * need + tol);
}

/* 1 when the solver stopped short with an answer that looks like no
   solution at all: it failed outright, or it adds more kinetic energy than
   the island's moving mass M has at IMP_STAB_VMAX, or an impulse exceeds
   IMP_HOLD_FACTOR M IMP_STAB_VMAX. A problem whose corrections conflict
   (a penetration only a move past a joint limit could undo: piper's link2
   in its base while the shoulder sits on its limit) has no solution, and
   solvers stop at their limits with impulses that grow with the iterations
   (pgs: 2.5e4 after 100, 2.5e5 after 1000; todorov 8e3 at piper's second
   step, 2e9 later, spinning a finger at 40 rad/s) where the held problem's
   answer is 5e-3; lemke's ray termination returns zeros that let gravity
   push the link deeper. An ordinary hard step stays well inside both
   bounds (barkour_v0 lying on its floor: 0.02 J and impulses of 3e-3 for
   11 kg; holding it whenever unfinished froze the robot in its
   penetrations). work: n doubles. */
/* The iteration limit of a solve of n rows: maxiter, lowered to keep the
   solve's work within IMP_SOLVE_WORK_MAX (contact.h), never below
   IMP_SOLVE_MIN_ITER. */
/* the work of one iteration of solver s on n rows (contact.h) */
static double iteration_work(const imp_csolver* s, int n) {
  return pow((double)n, s->work_power > 0 ? s->work_power : 3);
}

static int bounded_iterations(const imp_csolver* s, int n, int maxiter) {
  double allowed = floor(IMP_SOLVE_WORK_MAX / fmax(iteration_work(s, n), 1));
  if (allowed >= maxiter) return maxiter;
  return allowed > IMP_SOLVE_MIN_ITER ? (int)allowed : IMP_SOLVE_MIN_ITER;
}

/* The most work an island of n rows may do under the per-solve bound: its
   solve, the held solve (the solver's or pgs's) and the pgs rescue. */
static double island_work_max(const imp_csolver* s, int n, int maxiter) {
  double w = bounded_iterations(s, n, maxiter) * iteration_work(s, n);
  double wp = bounded_iterations(&imp_solver_pgs, n, maxiter) * iteration_work(&imp_solver_pgs, n);
  return w + fmax(w, wp) + wp;
}

/* An island's account with the step's budget (contact.h): what is left of
   its share, the work done, and whether a solve was cut short by it. */
typedef struct budget_account {
  double left, work;
  int cut;
} budget_account;

/* The iteration limit of a solve of n rows by s: the per-solve bound,
   lowered to what is left of the island's share (never below
   IMP_SOLVE_MIN_ITER); sets a->cut when lowered. */
static int budget_iterations(budget_account* a, const imp_csolver* s, int n, int maxiter) {
  int bounded = bounded_iterations(s, n, maxiter);
  double fit = floor(a->left / fmax(iteration_work(s, n), 1));
  if (fit >= bounded) return bounded;
  a->cut = 1;
  return fit > IMP_SOLVE_MIN_ITER ? (int)fit : IMP_SOLVE_MIN_ITER;
}

/* charge a solve of `iterations` on n rows by s to the account */
static void budget_charge(budget_account* a, const imp_csolver* s, int n, int iterations) {
  double w = iterations * iteration_work(s, n);
  a->work += w;
  a->left -= w;
}

static int unfinished_and_suspect(const imp_cproblem* p, imp_csolver_stat st, const double* g,
                                  double mass, double* work) {
  if (st.exit == IMP_EXIT_CONVERGED) return 0;
  if (st.exit == IMP_EXIT_FAILED) return 1;
  if (imp_max_abs_or_inf(g, p->n) > IMP_HOLD_FACTOR * mass * IMP_STAB_VMAX) return 1;
  double scale, dE = imp_cproblem_energy_change(p, g, work, &scale);
  return dE > 0.5 * mass * IMP_STAB_VMAX * IMP_STAB_VMAX + IMP_COMMON_TOL * scale;
}

/* Targets with every correction taken out (b <= 0 on unilateral rows, 0 on
   equalities): "do not let any violation grow". That problem always has
   a solution, v = 0 (v0 = K u_free lies in the range of A). 1 when some
   row had a correction, i.e. when the held problem differs. */
static int hold_corrections(const imp_cproblem* p, double* held) {
  int differs = 0;
  for (int k = 0; k < p->nblock; k++)
    for (int r = 0; r < p->blk_dim[k]; r++) {
      int i = p->blk_adr[k] + r;
      held[i] = p->blk_type[k] == IMP_CNSTR_EQUALITY ? 0 : fmin(p->b[i], 0);
      differs |= held[i] != p->b[i];
    }
  return differs;
}

/* One solve, with the guarantees the stage adds to any solver's: finite
   impulses (zeros and FAILED otherwise), and "converged" only when the
   common residual agrees (solvers of the exact cone: relative residual at
   most IMP_COMMON_TOL). */
static imp_csolver_stat solve_checked(const imp_csolver* solver, const imp_cproblem* p,
                                      const imp_csolver_opt* o, double* g, void* work,
                                      double* res_work) {
  imp_csolver_stat st = {0, 0, 0, IMP_EXIT_CONVERGED};
  solver->solve(p, o, g, &st, work);
  int finite = 1;
  for (int i = 0; i < p->n; i++) finite &= isfinite(g[i]);
  if (!finite) { /* a broken solver must not poison the state */
    imp_zero(g, p->n);
    st.exit = IMP_EXIT_FAILED;
  }
  if (st.exit == IMP_EXIT_CONVERGED && solver->law == IMP_LAW_CONE) {
    double rel = 0;
    imp_cresidual(p, g, &rel, res_work);
    if (!(rel <= IMP_COMMON_TOL)) st.exit = IMP_EXIT_MAXITER;
  }
  return st;
}

/* The energy the blocks of answer g put in against their own laws: the sum
   over blocks of max(0, g_k'(v_k - b_k)), v = A g + v0. Every block of a
   solution has g_k'(v_k - b_k) <= 0 (equalities: v = b; limits and
   normals: complementarity; friction opposes slip), so this is 0 there;
   unlike the island's energy change it is not hidden by what other
   blocks take out. work: n doubles. */
static double work_against_laws(const imp_cproblem* p, const double* g, double* work) {
  int n = p->n;
  for (int i = 0; i < n; i++) work[i] = imp_dot(p->A + (size_t)i * n, g, n) + p->v0[i] - p->b[i];
  double sum = 0;
  for (int k = 0; k < p->nblock; k++) {
    double w = 0;
    for (int r = 0, i = p->blk_adr[k]; r < p->blk_dim[k]; r++, i++) w += g[i] * work[i];
    if (w > 0) sum += w;
  }
  return sum;
}

/* Projected Gauss-Seidel sweeps from an unfinished answer g of a cone
   solver other than pgs (todorov, nsn_fb: Newton methods; prox: a
   proximal fixed point) that the guards below let through: the sweeps
   done, and g replaced by the swept impulses. Why: a Newton iterate is a
   global compromise in which no row need meet its own law, and the damage
   is worst on the rows of light parts (a large diagonal A_ii, the inverse
   of the row's effective mass): an impulse error df there moves the part
   by A_ii df. Menagerie's toddlerbot (MJX files: iterations="1",
   eulerdamp disabled) has a 3 g neck rod (joint-space inertia 1.35e-6, no
   armature, damping 0.01) in a closed loop of connects: alone, its
   explicit damping step u <- (1 - h b / I) u would multiply its velocity
   by -14 a step; the loop, whose motion carries the head, keeps it stable
   only when the loop is solved. Todorov's one iteration left the rod
   slipping against its loop, with its frictionloss row (bound 2e-5: 15
   rad/s a step on that inertia) at its bound the wrong way; the slip grew
   tenfold a step to a NaN reset, and the island's energy guards saw
   nothing, the floor contacts taking out more energy than the rod got
   (injects_too_much). A Gauss-Seidel update gives each block the impulse
   that meets its own law given the others' (solvers/pgs.c: the dry
   friction row then opposes its slip or stops it), so the rows with the
   largest A_ii, the light parts, are put right first: Gauss-Seidel reduces
   the error fastest along a large diagonal, and the iterate has already
   done the global part. Each sweep costs n^2 multiply-adds against n^3 for
   a Newton iteration. The swept answer is kept only when it puts less
   energy in against the blocks' laws (work_against_laws) than the
   solver's. Left alone: answers the guards replaced (sweeping the first
   answer before the guards hid its energy from them), and islands whose
   iterations the work bound cut (IMP_SOLVE_WORK_MAX): Menagerie's
   trossen_vx300s closes its fingers on a 700-row island that todorov gets
   2 iterations for; its answers inject energy (up to 0.07 J against the
   laws) that throws the fingers apart within 8 steps, where swept ones
   kept them pressed, unconverged, every step after (2.2 s for 500 steps
   became 96 s); whether or not the sweep was kept by the common residual
   too. Solvers of another law (ccp, lemke, minmap) keep their answers:
   pgs solves the exact cone. g_kept: n doubles of scratch. */
static int polish_unfinished(const imp_csolver* solver, const imp_cproblem* p,
                             const imp_csolver_opt* o, const imp_csolver_stat* st, double* g,
                             double* g_kept, void* work, double* res_work) {
  if (st->exit == IMP_EXIT_CONVERGED || solver == &imp_solver_pgs || solver->law != IMP_LAW_CONE)
    return 0;
  imp_csolver_opt po = *o;
  po.warmstart = 1;
  po.maxiter = IMP_POLISH_SWEEPS;
  imp_copy(g_kept, g, p->n);
  double before = work_against_laws(p, g, res_work);
  /* the exit stays the solver's: pgs's own test (the last sweep's change)
     may pass on sweeps that crawl, so "converged" stays the Newton
     solver's word, checked by the common residual */
  int sweeps = solve_checked(&imp_solver_pgs, p, &po, g, work, res_work).iterations;
  if (!(work_against_laws(p, g, res_work) < before)) imp_copy(g, g_kept, p->n);
  return sweeps;
}

/* One thread's scratch for the islands it solves: sized for nmax rows and
   bmax blocks, carved from one block of island_scratch_bytes. */
typedef struct island_scratch {
  double *A, *v0, *b, *mu, *g;     /* problem in solver variables */
  double *b_held, *g_first;        /* the targets with corrections held; an answer kept */
  double* dense;                   /* nv, zero between uses: A's assembly */
  int *rows, *adr, *dim, *type;
  int *first_dof, *roots; /* nbody each: moving_mass */
  void* work;
  double* res_work;
} island_scratch;

#define SCRATCH_ALIGN 64

/* bytes of one piece of scratch, rounded to keep the next aligned */
static size_t piece(size_t count, size_t size) {
  return (count * size + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* the solver's work for n rows and nb blocks, and the pgs rescue's */
static size_t solver_work_bytes(const imp_csolver* solver, int n, int nb) {
  size_t w = solver->work_size(n, nb), wpgs = imp_solver_pgs.work_size(n, nb);
  return w > wpgs ? w : wpgs;
}

/* Carve s from base (SCRATCH_ALIGN-aligned; NULL: only count); the bytes.
   first_dof is set to -1 (moving_mass's invariant) and dense to 0. */
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
  PIECE(s->res_work, 6 * (size_t)nmax); /* injects_too_much's 6 n; imp_cresidual's 2 n */
  PIECE(s->b_held, nmax);
  PIECE(s->g_first, nmax);
  PIECE(s->dense, m->nv);
  PIECE(s->rows, nmax);
  PIECE(s->adr, bmax);
  PIECE(s->dim, bmax);
  PIECE(s->type, bmax);
  PIECE(s->first_dof, m->nbody);
  PIECE(s->roots, m->nbody);
#undef PIECE
  s->work = base ? base + off : NULL;
  off += piece(work_bytes, 1);
  if (base) {
    for (int b = 0; b < m->nbody; b++) s->first_dof[b] = -1;
    imp_zero(s->dense, m->nv);
  }
  return off;
}

/* Solve island isl with scratch s: its rows' impulses, velocities and
   targets and its island_* statistics are all it writes of d, so islands
   may be solved in any order, on any thread. */
static void solve_island(const imp_model* m, imp_data* d, int isl, const half_rows* Y,
                         const double* diaginv, island_scratch* s) {
  const imp_csolver* solver = k_solvers[d->solver];
  double* dense = s->dense;
  int nb = d->island_blknum[isl], n = 0, warm = 0, iter = 0, newton = 0, flags = 0;
  const int* blks = d->island_blk + d->island_blkadr[isl];
  for (int i = 0; i < nb; i++) {
    int k = blks[i];
    s->adr[i] = n;
    s->dim[i] = d->blk_dim[k];
    s->type[i] = d->blk_type[k];
    s->mu[i] = d->blk_mu[k];
    if (m->opt.warmstart) warm |= match_warm(m, d, k);
    for (int r = 0; r < d->blk_dim[k]; r++) s->rows[n++] = d->blk_efcadr[k] + r;
  }
  /* A_ij = s_i s_j sum_k Y_ik Y_jk / D_k (the scale maps elliptic cones to
     circular ones, contact.h) */
  for (int i = 0; i < n; i++) {
    int ri = s->rows[i], ai = d->efc_J_rowadr[ri];
    double si = d->blk_scale[6 * d->efc_blk[ri] + (ri - d->blk_efcadr[d->efc_blk[ri]])];
    for (int t = 0; t < Y->nnz[ri]; t++) dense[Y->colind[ai + t]] = Y->val[ai + t] * diaginv[Y->colind[ai + t]];
    for (int j = 0; j <= i; j++) {
      int rj = s->rows[j], aj = d->efc_J_rowadr[rj];
      double sj = d->blk_scale[6 * d->efc_blk[rj] + (rj - d->blk_efcadr[d->efc_blk[rj]])];
      double sum = 0;
      for (int t = 0; t < Y->nnz[rj]; t++) sum += dense[Y->colind[aj + t]] * Y->val[aj + t];
      s->A[i * n + j] = s->A[j * n + i] = si * sj * sum;
    }
    for (int t = 0; t < Y->nnz[ri]; t++) dense[Y->colind[ai + t]] = 0;
    s->v0[i] = si * d->efc_v0[ri];
    s->b[i] = si * d->efc_b[ri];
    s->g[i] = d->efc_impulse[ri] / si;
  }
  imp_cproblem p = {n, nb, s->adr, s->dim, s->type, s->mu, s->A, s->v0, s->b, m->opt.timestep};
  cap_correction_energy(m, d, &p, s->rows, s->b, s->first_dof, s->roots);
  disable_immobile_rows(&p, s->b, s->mu);
  if (d->problem_hook) d->problem_hook(d->problem_hook_ctx, &p, warm ? s->g : NULL);
  budget_account account = {d->island_budget[isl], 0, 0};
  int bounded = bounded_iterations(solver, n, m->opt.iterations) < m->opt.iterations;
  int maxiter = budget_iterations(&account, solver, n, m->opt.iterations);
  imp_csolver_opt o = {maxiter, m->opt.tolerance, warm, NULL, NULL};
  imp_csolver_stat st = solve_checked(solver, &p, &o, s->g, s->work, s->res_work);
  budget_charge(&account, solver, n, st.iterations);
  iter += st.iterations;
  newton += st.newton;
  double mass = moving_mass(m, d, s->rows, n, s->first_dof, s->roots);
  int too_much = injects_too_much(&p, s->g, mass, s->res_work);
  int unfinished = !too_much && unfinished_and_suspect(&p, st, s->g, mass, s->res_work);
  if ((too_much || unfinished) && hold_corrections(&p, s->b_held)) {
    /* The corrections cannot be met at a bounded cost, or perhaps not at
       all (header): solve the step that holds every violation where it is
       instead. A suspect unfinished answer gives way to the held one unless
       that is suspect too and has the larger impulses. */
    imp_cproblem held = p;
    held.b = s->b_held;
    imp_csolver_opt cold = o;
    cold.warmstart = 0;
    if (unfinished) imp_copy(s->g_first, s->g, n);
    /* after an unfinished answer, projected Gauss-Seidel (O(n^2) a sweep):
       the island's solver already failed on this state, and a second
       full-cost failure tripled the steps of Menagerie's aloha (276 rows) */
    const imp_csolver* hs = unfinished ? &imp_solver_pgs : solver;
    bounded |= bounded_iterations(hs, n, m->opt.iterations) < m->opt.iterations;
    cold.maxiter = budget_iterations(&account, hs, n, m->opt.iterations);
    imp_csolver_stat sh = solve_checked(hs, &held, &cold, s->g, s->work, s->res_work);
    budget_charge(&account, hs, n, sh.iterations);
    iter += sh.iterations;
    newton += sh.newton;
    if (unfinished && unfinished_and_suspect(&held, sh, s->g, mass, s->res_work) &&
        imp_max_abs_or_inf(s->g_first, n) <= imp_max_abs_or_inf(s->g, n)) {
      imp_copy(s->g, s->g_first, n);
    } else {
      flags |= IMP_ISLAND_HELD;
      st = sh;
      imp_copy(s->b, s->b_held, n); /* the targets solved, for efc_b below */
    }
  }
  if (solver != &imp_solver_pgs && injects_too_much(&p, s->g, mass, s->res_work)) {
    /* Still more energy than the corrections justify: this is no solution
       of the step (apollo's first step: todorov's best iterate added 1.6e4
       J to a problem whose solutions dissipate, relative residual 0.03).
       Projected Gauss-Seidel descends the problem's energy from f = 0 (its
       answer there took 0.08 J out); the lower-energy answer is kept. */
    double scale, e_first = imp_cproblem_energy_change(&p, s->g, s->res_work, &scale);
    imp_copy(s->g_first, s->g, n);
    imp_csolver_opt cold = o;
    cold.warmstart = 0;
    bounded |= bounded_iterations(&imp_solver_pgs, n, m->opt.iterations) < m->opt.iterations;
    cold.maxiter = budget_iterations(&account, &imp_solver_pgs, n, m->opt.iterations);
    imp_csolver_stat st2 = solve_checked(&imp_solver_pgs, &p, &cold, s->g, s->work, s->res_work);
    budget_charge(&account, &imp_solver_pgs, n, st2.iterations);
    iter += st2.iterations;
    flags |= IMP_ISLAND_RESCUED;
    if (imp_cproblem_energy_change(&p, s->g, s->res_work, &scale) < e_first) {
      st = st2;
    } else {
      imp_copy(s->g, s->g_first, n);
    }
  }
  if (!bounded && !(flags & (IMP_ISLAND_HELD | IMP_ISLAND_RESCUED)))
    iter += polish_unfinished(solver, &p, &o, &st, s->g, s->g_first, s->work, s->res_work);
  double rel = 0, abs_res = imp_cresidual(&p, s->g, &rel, s->res_work);
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
    double vi = imp_dot(s->A + (size_t)i * n, s->g, n) + s->v0[i];
    d->efc_impulse[ri] = s->g[i] * si;
    d->efc_vel[ri] = vi / si;
    d->efc_b[ri] = s->b[i] / si; /* lowered by the immobile rows or the held corrections */
  }
}

/* a worker's scratch: the largest island the data's solver may be given */
static size_t worker_work_bytes(const imp_model* m, const imp_data* d) {
  return solver_work_bytes(k_solvers[d->solver], m->nislandmax, m->nislandmax);
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

static int larger_first(const void* a, const void* b) {
  const island_size *x = a, *y = b;
  if (x->rows != y->rows) return x->rows > y->rows ? -1 : 1;
  return x->island - y->island;
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
  qsort(sizes, (size_t)d->nisland, sizeof *sizes, larger_first);
  int* order = imp_stack_alloc_int(d, d->nisland);
  for (int i = 0; i < d->nisland; i++) order[i] = sizes[i].island;
  /* The islands the solver factors with LAPACK stay on this thread, in
     order, as in a one-thread run: OpenBLAS's kernels are chosen per CPU
     and its results are not promised to be the same from thread to thread
     (CI saw a 3-thread recording differ from the 1-thread one where three
     64-row islands were factored at once, on a machine not this one;
     OpenBLAS reports CPU-specific, thread-dependent results, e.g. its issue
     #5267). Largest first, so they are the front of the order. */
  const imp_csolver* solver = k_solvers[d->solver];
  int min_rows = solver->caller_min_rows ? solver->caller_min_rows() : 0, ncaller = 0;
  while (min_rows > 0 && ncaller < d->nisland && sizes[ncaller].rows >= min_rows) ncaller++;
  islands_job job = {m, d, Y, diaginv, scratch, order};
  imp_pool_run(d->pool, d->nisland, ncaller, island_task, &job);
}

/* Each island's share of the step's budget (contact.h): all it may use
   under the per-solve bound when the sum of those fits, else the budget
   in proportion to them. Fixed before any island is solved, from their
   sizes alone, so the same on every thread count. */
static void share_step_budget(const imp_model* m, imp_data* d) {
  const imp_csolver* solver = k_solvers[d->solver];
  double total = 0;
  for (int i = 0; i < d->nisland; i++) {
    d->island_budget[i] = island_work_max(solver, island_rows(d, i), m->opt.iterations);
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
  /* Y = K L^-1, row by row */
  double* dense = imp_stack_alloc(d, nv);
  imp_zero(dense, nv);
  /* each row reserved its closure's room in efc_J (constraints.c): Y's
     rows go at the same places */
  half_rows Y = {imp_stack_alloc_int(d, d->nefc), imp_stack_alloc_int(d, d->nefc_J),
                 imp_stack_alloc(d, d->nefc_J)};
  for (int r = 0; r < d->nefc; r++)
    half_solve_row(m, d, LD, r, dense, Y.colind + d->efc_J_rowadr[r], Y.val + d->efc_J_rowadr[r],
                   Y.nnz + r);
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
  size_t wbytes = solver_work_bytes(k_solvers[d->solver], nmax, bmax);
  size_t sbytes = carve_island_scratch(m, nmax, bmax, wbytes, NULL, &s);
  char* sbase = (char*)imp_stack_alloc(d, (int)((sbytes + SCRATCH_ALIGN) / sizeof(double)));
  sbase += (SCRATCH_ALIGN - (uintptr_t)sbase % SCRATCH_ALIGN) % SCRATCH_ALIGN;
  carve_island_scratch(m, nmax, bmax, wbytes, sbase, &s);
  share_step_budget(m, d);
  solve_islands(m, d, &Y, diaginv, &s);
  sum_island_statistics(d);
  d->nstep_over_budget += d->solver_over_budget > 0;
  if (d->solver_exit != IMP_EXIT_CONVERGED) {
    if (!d->nwarning_solver)
      imp_warning("contact solver '%s' did not converge at step %lld (exit %d, residual %g); "
                  "the step continues with its best iterate",
                  k_solvers[d->solver]->name, d->nstep, d->solver_exit, d->solver_residual);
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
  save_warm(m, d);
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

int imp_contact_fit_solver(const imp_model* m, imp_data* d, int solver) {
  if (imp_arena_reserve(d, imp_arena_bytes(m, solver)) != 0) return -1;
  int old = d->solver;
  d->solver = solver;
  if (d->nthread > 1 && worker_work_bytes(m, d) > solver_work_bytes(k_solvers[old], m->nislandmax,
                                                                    m->nislandmax)) {
    if (make_workers(m, d, d->nthread) != 0) {
      d->solver = old;
      return -1;
    }
  }
  return 0;
}

int imp_set_solver(const imp_model* m, imp_data* d, const char* name) {
  int i = imp_solver_find(name);
  if (i < 0 || !m || !d) return -1;
  /* the new solver's scratch is reserved now, never inside a step */
  if (imp_contact_fit_solver(m, d, i) != 0) return -1;
  d->warm_nblk = 0; /* another solver's iterate is no warm start to trust */
  return 0;
}

const char* imp_solver_name(int i) {
  const imp_csolver* s = imp_solver_get(i);
  return s ? s->name : NULL;
}

const char* imp_solver_description(int i) {
  const imp_csolver* s = imp_solver_get(i);
  return s ? s->description : NULL;
}

int imp_contact_impulse(const imp_model* m, const imp_data* d, int i, double impulse[6]) {
  (void)m;
  imp_zero(impulse, 6);
  if (i < 0 || i >= d->ncon || d->contact[i].efc_adr < 0) return 0;
  const imp_contact* c = d->contact + i;
  int blk = d->efc_blk[c->efc_adr];
  imp_copy(impulse, d->efc_impulse + c->efc_adr, d->blk_dim[blk]);
  return d->blk_dim[blk];
}

void imp_contact_force_world(const imp_model* m, const imp_data* d, int i, double force[3],
                             double torque[3]) {
  double f[6];
  imp_contact_impulse(m, d, i, f);
  imp_zero(force, 3);
  imp_zero(torque, 3);
  if (i < 0 || i >= d->ncon) return;
  const double* F = d->contact[i].frame;
  double h = m->opt.timestep;
  for (int r = 0; r < 3; r++) {
    imp_add_scl(force, F + 3 * r, f[r] / h, 3);
    imp_add_scl(torque, F + 3 * r, f[3 + r] / h, 3);
  }
}
