/* The contact stage's answer guards: see contact_guard.h. Moved out of
 * contact.c, which keeps the registry, the islands and their assembly. */
#include "constraint/contact_guard.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/constraint.h" /* IMP_CONTACT_SLOP */
#include "constraint/contact.h"
#include "core/mathx.h"

/* The mass rows move: on each kinematic tree their dofs belong to, the
   subtree of the body of their first dof there (dofs are numbered root to
   leaf, so that is the moving part of the tree a contact or connect
   moves, or the part a limit's joint carries), each tree counted once.
   first_dof: nbody ints, -1 on entry and on return; roots: nbody ints of
   scratch. */
double imp_guard_moving_mass(const imp_model* m, const imp_data* d, const int* rows, int n,
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
   (imp_guard_moving_mass) moving at IMP_STAB_VMAX: |b_i| <= IMP_STAB_VMAX
   sqrt(A_ii M). A free body never meets the cap (its effective mass at a
   point is at most its mass), nor does an ordinary resting contact; only
   rotations about a nearby axis do. */
void imp_guard_cap_correction_energy(const imp_model* m, const imp_data* d, const imp_cproblem* p,
                                     const int* rows, double* b, int* first_dof, int* roots) {
  int n = p->n;
  for (int k = 0; k < p->nblock; k++)
    for (int r = 0, i = p->blk_adr[k]; r < target_rows(p, k); r++, i++) {
      if (!is_correction(p, k, b[i])) continue;
      double mass = imp_guard_moving_mass(m, d, rows + i, 1, first_dof, roots);
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

void imp_guard_disable_immobile_rows(const imp_cproblem* p, double* b, double* mu) {
  int n = p->n;
  double dmax = 0;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, p->A[(size_t)i * n + i]);
  for (int k = 0; k < p->nblock; k++)
    for (int r = 0; r < p->blk_dim[k]; r++) {
      int i = p->blk_adr[k] + r;
      int friction =
          (p->blk_type[k] == IMP_CNSTR_CONTACT && r > 0) || p->blk_type[k] == IMP_CNSTR_FRICTION;
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
  for (int i = 0; i < n; i++) work[i] = imp_cproblem_row_times(p, i, g);
  for (int i = 0; i < n; i++) {
    dE += g[i] * (p->v0[i] + 0.5 * work[i]);
    *scale += fabs(g[i] * p->v0[i]) + fabs(g[i] * work[i]);
  }
  return dE;
}

/* ---- A's nonzeros, for the conjugate gradients below ----
   Why: MuJoCo's hammock is an 11 x 9 grid of particles tied by 178 tendon
   equalities, one island of about 183 rows whose A has some 7 nonzeros a
   row (a tendon shares particles with six others), and the sum of the
   corrections' lone costs never covers what they cost together, so every
   step runs coupled_correction_energy's CG (about 110 iterations of 180
   dense row products) and, where a limit is past its range,
   imp_guard_consistent_corrections's: 35% of its instructions (callgrind,
   impetus bench hammock.xml --steps 100). A product over the pattern sums
   the same terms in the same order as imp_dot, leaving out A_ij = 0: for a
   finite v_j the term is +-0, and adding +-0 leaves a sequential sum
   started at +0 as it was (it is never -0: x + y is -0 in round-to-nearest
   only when both are), so every result is the same bits. A non-finite v_j
   would make 0 v_j a NaN: such products stay dense. */

/* pat from A: its state SPARSE with the pattern, or DENSE when more than a
   quarter of A (or more than pat->cap) is nonzero */
void imp_guard_pattern_build(const imp_cproblem* p, imp_guard_pattern* pat) {
  int n = p->n;
  long long nnz = 0, limit = (long long)n * n / 4;
  if (limit > pat->cap) limit = pat->cap;
  pat->state = IMP_PATTERN_DENSE;
  for (int i = 0; i < n; i++) {
    const double* Ai = p->A + (size_t)i * n;
    pat->adr[i] = (int)nnz;
    if (limit - nnz >= n) { /* room for the whole row: no branch to mispredict */
      for (int j = 0; j < n; j++) {
        pat->col[nnz] = j;
        nnz += Ai[j] != 0; /* a NaN is kept */
      }
    } else {
      for (int j = 0; j < n; j++) {
        if (Ai[j] == 0) continue;
        if (nnz == limit) return;
        pat->col[nnz++] = j;
      }
    }
  }
  pat->adr[n] = (int)nnz;
  pat->state = IMP_PATTERN_SPARSE;
}

/* 1 when row_times may use pat for v: A sparse (pat built on first use)
   and v finite */
static int pattern_for(const imp_cproblem* p, imp_guard_pattern* pat, const double* v) {
  if (!pat) return 0;
  if (pat->state == IMP_PATTERN_UNKNOWN) imp_guard_pattern_build(p, pat);
  if (pat->state != IMP_PATTERN_SPARSE) return 0;
  for (int j = 0; j < p->n; j++)
    if (!isfinite(v[j])) return 0;
  return 1;
}

/* (A v)_i, imp_dot's sum; over the pattern when sparse (pattern_for) */
static double row_times(const imp_cproblem* p, const imp_guard_pattern* pat, int sparse, int i,
                        const double* v) {
  const double* Ai = p->A + (size_t)i * p->n;
  if (!sparse) return imp_dot(Ai, v, p->n);
  double sum = 0;
  for (int t = pat->adr[i]; t < pat->adr[i + 1]; t++) sum += Ai[pat->col[t]] * v[pat->col[t]];
  return sum;
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
   nearly). pat: A's nonzeros (the products' cost, not their bits). work:
   5 n doubles. */
#define NEED_TOL 1e-8

static double coupled_correction_energy(const imp_cproblem* p, double cap, imp_guard_pattern* pat,
                                        double* work) {
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
    int sparse = pattern_for(p, pat, dir);
    for (int i = 0; i < n; i++) q[i] = bc[i] != 0 ? row_times(p, pat, sparse, i, dir) : 0;
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

/* Corrections that conflict made consistent: the part of them the island
   can meet while its equalities hold, found as a regularized least-squares
   problem on the rows' range. Why: hard targets that no velocity meets
   together have no solution. Menagerie's cassie at qpos0 has its plantar
   four-bar at a dead point: the connect's rows and a foot limit's span a
   direction no motion changes (the foot cannot turn while the loop is
   closed), and the foot is 0.52 rad past its limit. Solvers stopped at
   their limits with compromises that opened the loop (6.3e-4 m in 200
   steps) or with impulses without bound, and holding every correction
   (imp_guard_hold_corrections) kept the violations where they were for
   good (0.41 rad past after 5000 steps).
   The set S: the corrected rows C of limits and equalities, soft, and
   every equality row, hard (the structure: an equality without a
   correction moves at 0). With D_C the diagonal of A on C (the rows'
   inverse effective masses) and Tikhonov's regularization there only,
       x = (A_SS + eps D_C)^-1 b_S,   b_C* = (A_SS x)_C,
   the corrections lose the part of them that only a conflict could meet
   (eps D_C x, large where A_SS barely moves: the dead point) and keep what
   the island moves easily; the equalities keep their targets (A_SS x = 0
   on the hard rows), and b_S* lies in A_SS's range, so some impulses on S
   meet it. Its cost is bounded: from x'A x + eps x'D_C x = b_C'x and
   Cauchy-Schwarz, x'A x / 2 <= sum b_i^2 / (2 A_ii) / (4 eps), 1 / (4 eps)
   times the rows' separate costs that imp_guard_injects_too_much allows
   IMP_HOLD_FACTOR times: eps = 1 / (4 IMP_HOLD_FACTOR) keeps the answer
   within that guard while every row with a target is soft. A correction
   is only ever lowered, by an active set solved again at most
   CONSISTENT_PASSES times: a soft row whose b_C*
   would exceed its own target becomes hard at it (a rounding-size
   correction of an equality must not become the loop's share of the
   conflict: cassie's connect rows at 1e-14 m/s took 6e-3 m/s), and one
   whose b_C* turns against its violation is held (a limit leaves S, since
   v >= 0 is all it asks; an equality stays, hard at 0); everything is
   held when no pass ends without a change. Contacts stay out (below).
   Used only when the least energy that meets the corrections with the
   equalities is beyond the island's moving mass at IMP_STAB_VMAX (as
   coupled_correction_energy, here on S), i.e. when they conflict: other
   problems keep their targets bit for bit. Left to the guards after the
   solve: contacts against limits or equalities (piper's link in its base). */
#define CONSISTENT_EPS (1 / (4 * IMP_HOLD_FACTOR))
#define CONSISTENT_PASSES 8
#define CONSISTENT_TOL 1e-10
/* Corrections that are all rounding (a joint resting on its limit beside
   a closed linkage: targets of 1e-17 to 1e-12 m/s) are not a conflict to
   resolve. Beside rank-deficient equalities (the gripper linkages of
   Menagerie's ufactory_xarm7) no CG reaches CONSISTENT_TOL relative to
   such a right-hand side, so every step ran the check and all
   CONSISTENT_PASSES to hold what was already nothing: 41% of xarm7's
   instructions (callgrind, impetus bench scene.xml --steps 300 from
   qpos0). The check runs only when some corrected row's target is above
   this fraction of the speed floor (|g| h: 2e-11 m/s at h = 2 ms); an
   inconsistency below it is below every solver's measure
   (solvers/README.md). Not the limit's target alone: toddlerbot's limits
   sit on their ranges at 1e-16 to 8e-11 m/s while its doubled connects
   ask 3e-6 to 4e-4 m/s, and the check's passes there are what its
   convergence needs (gated on the limits' targets, toddlerbot_2xm's scene
   went from 249 to 868 of 2,000 steps not converged). */
#define CONSISTENT_ROUNDING 1e-9
/* a row's part in S (in[], doubles to share the caller's work) */
enum { OUT = 0, HARD = 1, SOFT = 2 };

/* x = (A_SS + eps D_C)^-1 rhs on the rows i with in[i] != OUT (x = 0
   elsewhere), D_C the diagonal of A on the rows with in[i] == SOFT (0 on
   the HARD ones), by conjugate gradients with (1 + eps) diag(A) as
   preconditioner, to relative residual CONSISTENT_TOL or 2 |S| iterations
   (it also stops when the matrix is not positive definite on S). With cap
   >= 0 (and eps = 0: the least energy rhs'x / 2 that meets rhs on S) it
   stops as soon as that energy passes cap: it rises monotonically, as in
   coupled_correction_energy. Returns rhs'x / 2, or INFINITY when it
   passed cap, when the matrix is not positive definite, or when CG did
   not converge. pat: A's nonzeros. work: 3 n doubles. */
static double set_solve(const imp_cproblem* p, const double* in, const double* rhs, double eps,
                        double cap, imp_guard_pattern* pat, double* x, double* work) {
  int n = p->n, ns = 0;
  double *r = work, *dir = work + n, *q = work + 2 * n, rz = 0;
  for (int i = 0; i < n; i++) ns += in[i] != 0;
  imp_zero(x, n);
  for (int i = 0; i < n; i++) r[i] = in[i] != 0 ? rhs[i] : 0;
  double rnorm0 = sqrt(imp_dot(r, r, n));
  if (rnorm0 == 0) return 0;
#define REG(i) (in[i] == SOFT ? eps * p->A[(size_t)(i) * n + (i)] : 0)
#define PRECOND(i) (p->A[(size_t)(i) * n + (i)] + REG(i))
  for (int i = 0; i < n; i++) {
    dir[i] = in[i] != 0 ? r[i] / PRECOND(i) : 0;
    rz += r[i] * dir[i];
  }
  for (int it = 0; it < 2 * ns; it++) {
    int sparse = pattern_for(p, pat, dir);
    for (int i = 0; i < n; i++)
      q[i] = in[i] != 0 ? row_times(p, pat, sparse, i, dir) + REG(i) * dir[i] : 0;
    double dq = imp_dot(dir, q, n);
    if (!(dq > 0)) return INFINITY;
    double alpha = rz / dq, rz_next = 0;
    imp_add_scl(x, dir, alpha, n);
    imp_add_scl(r, q, -alpha, n);
    double energy = 0.5 * imp_dot(rhs, x, n); /* x is 0 off S */
    if (cap >= 0 && !(energy <= cap)) return INFINITY;
    if (sqrt(imp_dot(r, r, n)) <= CONSISTENT_TOL * rnorm0) return energy;
    for (int i = 0; i < n; i++)
      if (in[i] != 0) rz_next += r[i] * r[i] / PRECOND(i);
    for (int i = 0; i < n; i++) dir[i] = in[i] != 0 ? r[i] / PRECOND(i) + rz_next / rz * dir[i] : 0;
    rz = rz_next;
  }
#undef REG
#undef PRECOND
  return INFINITY;
}

/* The corrections of b lowered as above when they conflict; 1 when they
   did (b changed). mass: the island's moving mass. pat: A's nonzeros.
   work: 6 n doubles. */
int imp_guard_consistent_corrections(const imp_cproblem* p, double* b, double mass,
                                     imp_guard_pattern* pat, double* work) {
  int n = p->n, any = 0;
  double cap = 0.5 * mass * IMP_STAB_VMAX * IMP_STAB_VMAX, bmax = 0;
  double *in = work, *rhs = work + n, *x = work + 2 * n, *cg = work + 3 * n;
  /* S: the corrected rows of limits and equalities (soft: moved at b_c or
     less) and every equality row (hard: the structure the corrections may
     not break, at 0). Contacts stay out, their targets untouched: a box's
     four corners on a floor are rows a rigid body cannot meet as
     equalities when their depths differ, yet as the inequalities they are
     a face lifts at the deepest corner's speed (treated as equalities,
     box_pyramid.xml and five more of models/ changed their
     trajectories, and box_pyramid's 500 steps took 4 times as long) */
  for (int k = 0; k < p->nblock; k++)
    for (int t = 0, i = p->blk_adr[k]; t < p->blk_dim[k]; t++, i++) {
      int corr = p->blk_type[k] != IMP_CNSTR_CONTACT && t < target_rows(p, k) &&
                 is_correction(p, k, b[i]);
      int eq = p->blk_type[k] == IMP_CNSTR_EQUALITY;
      in[i] = !(p->A[(size_t)i * n + i] > 0) ? OUT : corr ? SOFT : eq ? HARD : OUT;
      rhs[i] = in[i] != OUT ? b[i] : 0;
      any |= in[i] == SOFT && p->blk_type[k] == IMP_CNSTR_LIMIT;
      if (in[i] == SOFT) bmax = fmax(bmax, fabs(b[i]));
    }
  /* only where a limit is past its range: conflicts among equalities alone
     (MuJoCo's softbox, grid2pin: tendon equalities of a composite) are the
     post-solve guard's (imp_guard_injects_too_much with the coupled cost),
     and lowering them here let softbox's equalities open 10x wider (0.012
     -> 0.12 m after 150 steps) */
  if (!any || !(bmax > CONSISTENT_ROUNDING * p->vfloor) ||
      set_solve(p, in, rhs, 0, cap, pat, x, cg) <= cap)
    return 0;
  /* active set: a soft row whose b_c* would exceed its target becomes hard
     at it; one whose b_c* turns against its violation is held (a limit
     leaves S: v >= 0 is all it asks; an equality stays, hard at 0) */
  int consistent = 0;
  for (int pass = 0; pass < CONSISTENT_PASSES && !consistent; pass++) {
    consistent = set_solve(p, in, rhs, CONSISTENT_EPS, -1, pat, x, cg) < INFINITY;
    int sparse = pattern_for(p, pat, x);
    for (int k = 0; k < p->nblock; k++)
      for (int t = 0, i = p->blk_adr[k]; t < target_rows(p, k); t++, i++) {
        if (in[i] != SOFT) continue;
        double bi = row_times(p, pat, sparse, i, x) / rhs[i]; /* b_c* / b_c */
        if (bi > 1) {
          in[i] = HARD, consistent = 0;
        } else if (!(bi > 0)) {
          in[i] = p->blk_type[k] == IMP_CNSTR_EQUALITY ? HARD : OUT;
          rhs[i] = 0, consistent = 0;
        }
      }
  }
  int sparse = consistent && pattern_for(p, pat, x);
  for (int k = 0; k < p->nblock; k++)
    for (int t = 0, i = p->blk_adr[k]; t < target_rows(p, k); t++, i++) {
      if (p->blk_type[k] == IMP_CNSTR_CONTACT || !is_correction(p, k, b[i])) continue;
      /* b_c* = (A_SS x)_i between held (0) and b_i; everything held when
         no consistent set was found */
      double bi = !consistent ? 0 : in[i] == SOFT ? row_times(p, pat, sparse, i, x) : rhs[i];
      b[i] = b[i] > 0 ? fmin(fmax(bi, 0), b[i]) : fmax(fmin(bi, 0), b[i]);
    }
  return 1;
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
   energy of the island's moving mass (imp_guard_moving_mass) at
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
   pat: A's nonzeros. work: 6 n doubles. */
int imp_guard_injects_too_much(const imp_cproblem* p, const double* g, double mass,
                               imp_guard_pattern* pat, double* work) {
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
  double need = coupled_correction_energy(p, cap, pat, work + p->n);
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
int imp_guard_unfinished_and_suspect(const imp_cproblem* p, imp_csolver_stat st, const double* g,
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
int imp_guard_hold_corrections(const imp_cproblem* p, double* held) {
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
imp_csolver_stat imp_guard_solve_checked(const imp_csolver* solver, const imp_cproblem* p,
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
  for (int i = 0; i < n; i++) work[i] = imp_cproblem_row_times(p, i, g) + p->v0[i] - p->b[i];
  double sum = 0;
  for (int k = 0; k < p->nblock; k++) {
    double w = 0;
    for (int r = 0, i = p->blk_adr[k]; r < p->blk_dim[k]; r++, i++) w += g[i] * work[i];
    if (w > 0) sum += w;
  }
  return sum;
}

/* The warm start g of a cone solver other than pgs, completed before the
   solve: each contact normal and limit row of a block the warm start has
   no impulse for (every row of the block 0: a contact new this step, or
   one that carried nothing) takes, in block order, the projected
   Gauss-Seidel update of its row alone, f_i = max(0, f_i - w_i / A_ii),
   w = A g + v0 - b with the rows before it already updated (pgs.c's rule
   for a unilateral row); friction rows keep 0. Why: a warm start is last
   step's answer; a contact that came since starts at f = 0, the breaking
   side of its law, however deep it is or whatever weight it now carries
   (in a pile every step brings some), and todorov's O(n^3) Newton
   iterations first have to load it against the rest of the island; the
   row update costs n multiply-adds. humanoid100 (500 steps, ctrlnoise 0.1,
   seeds 1-8): steps not converged 196 -> 95, iterations a step 43.6 ->
   36.1. Not done: a full sweep of every block (friction onto its disk)
   moved resting contacts onto their cone's edge, where todorov creeps
   (models/balls_cube.xml 1 -> 355 steps not converged); the normal rows
   of every block (humanoid100 251). Left alone: cold solves (the solver's
   own start) and solves the work bound cut (the caller's rule, as for the
   polish): models/arch.xml's 144-row island, keystone contacts new at its
   third step, missed its 13 iterations from the completed start and every
   later step began unconverged (1998 of 2000). */
void imp_guard_start_new_rows(const imp_csolver* solver, const imp_cproblem* p, double* g) {
  if (solver == &imp_solver_pgs || solver->law != IMP_LAW_CONE) return;
  int n = p->n;
  for (int k = 0; k < p->nblock; k++) {
    int type = p->blk_type[k], adr = p->blk_adr[k], carried = 0;
    if (type != IMP_CNSTR_CONTACT && type != IMP_CNSTR_LIMIT) continue;
    for (int r = 0; r < p->blk_dim[k]; r++) carried |= g[adr + r] != 0;
    if (carried) continue;
    /* a contact's normal is its row 0; a limit's block is its rows */
    for (int r = 0, i = adr; r < (type == IMP_CNSTR_CONTACT ? 1 : p->blk_dim[k]); r++, i++) {
      double aii = p->A[(size_t)i * n + i];
      if (!(aii > 0)) continue;
      double w = imp_dot(p->A + (size_t)i * n, g, n) + p->v0[i] - p->b[i];
      g[i] = fmax(0.0, g[i] - w / aii);
    }
  }
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
   (imp_guard_injects_too_much). A Gauss-Seidel update gives each block the impulse
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
int imp_guard_polish_unfinished(const imp_csolver* solver, const imp_cproblem* p,
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
  int sweeps = imp_guard_solve_checked(&imp_solver_pgs, p, &po, g, work, res_work).iterations;
  if (!(work_against_laws(p, g, res_work) < before)) imp_copy(g, g_kept, p->n);
  return sweeps;
}

/* An unfinished solve (the iteration limit or the work bound cut it, or it
   stalled) that ends farther from a solution than its warm start, by the
   common residual (imp_cresidual, absolute), gives way to the start: the
   start is then the better answer of this very problem, and the sweeps of
   imp_guard_polish_unfinished continue from it. Without it, Menagerie's
   unitree_go2 scene_mjx.xml (iterations="1") lost its footing: 2000 steps,
   root height 0.058 m at the end (contacts 1.8 a step), where pgs, prox,
   nsn_fb and MuJoCo 3.3.8 stand at 0.24-0.25 m; with it 0.249 m (4.4
   contacts a step). Only for cone solvers, whose answers that residual
   measures, and not for pgs: a Gauss-Seidel sweep need not lower that
   residual, and pgs has no other way forward (imp_guard_polish_unfinished
   leaves it alone too). work: 2 n. Returns 1 when g was replaced. */
int imp_guard_no_worse_than_start(const imp_csolver* solver, const imp_cproblem* p,
                                  imp_csolver_stat st, double* g, const double* start,
                                  double* work) {
  if (st.exit == IMP_EXIT_CONVERGED || solver == &imp_solver_pgs || solver->law != IMP_LAW_CONE)
    return 0;
  if (!(imp_cresidual(p, start, NULL, work) < imp_cresidual(p, g, NULL, work))) return 0;
  imp_copy(g, start, p->n);
  return 1;
}

/* Contact targets an island cannot meet, held for an unfinished solve.
   Where the island's contacts hold more rows than its bodies have
   freedoms, A is singular: a self-equilibrated set of impulses z (K'z = 0,
   so A z = 0) changes no velocity, and every answer has z'v = z'v0 = 0.
   Contacts that meet their targets then need z'b = 0, which targets from
   the depths and gaps of independent contacts do not give.
    - At rest (pos within IMP_CONTACT_SLOP, b = -k pos of rounding's size)
      the answer must make some contact slip or let go at the targets'
      speed, and finding which means moving the internal impulses along z,
      across the cones, by up to ten times their size (a 10-ball pile of
      balls_cube.xml: A of rank 36 in 42 rows, 3e-5 relative residual after
      100 iterations, 1.2e-9 after 1731).
    - Deep in (links that start inside each other, a foot sunk in a step)
      the targets can conflict outright: z >= 0 on the normals with z'b > 0
      asks contacts to part that no motion parts together, and no answer
      exists (Lemke ray-terminates). Menagerie's aloha from qpos0 at step
      1500: 74 rows of rank 16, todorov 1.8e-3 after 300 iterations,
      nsn_fb 8.7e-6 after 1000; pal_tiago scene_position from its keyframe
      at step 225, 2.2e-3 after 300.
   With the contacts' targets at 0 the answer that holds each contact
   where it is (v_N >= 0, no new depth) exists again: those islands then
   converge in 241 and 3 iterations. So an unfinished solve is tried once
   more with them at 0, its corrections put off for the step (the next
   step's targets ask for them again): the contacts within `within` of
   rest (pos, from rows: the island's rows in d), all of them with
   within = INFINITY. Measured on the 1,900 islands left unconverged by 8
   seeds of balls_cube's scene (2,000 steps each) and humanoid100's 38 of
   500 steps, re-solved warm: 1,868 and 35 converged with every contact's
   target at 0, 1,714 and 33 with those at rest (min(b, 0) on every row,
   imp_guard_hold_corrections' law, 112 and 7: the gaps' targets conflict
   as much as the depths'). Targets brought only as far toward 0 as the
   unfinished answer's speeds (a problem that answer is feasible for) did
   worse on Menagerie: pal_tiago scene_position from its keyframe, 1,982
   of 2,000 steps not converged against 247. Only contact normals: limits
   and equalities have their own guard for conflicting corrections
   (imp_guard_consistent_corrections). Fills b_held with p->b, those
   targets at 0; 1 when any changed. */
int imp_guard_contact_targets_held(const imp_data* d, const int* rows, const imp_cproblem* p,
                                   double within, double* b_held) {
  int differs = 0;
  imp_copy(b_held, p->b, p->n);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_type[k] != IMP_CNSTR_CONTACT || !(fabs(d->efc_pos[rows[i]]) <= within) ||
        b_held[i] == 0)
      continue;
    b_held[i] = 0;
    differs = 1;
  }
  return differs;
}

int imp_guard_primal_may_answer(const imp_csolver* solver, const imp_cproblem* p,
                                imp_csolver_stat st, const double* g, double tol, double* work) {
  int n = p->n;
  if (st.exit == IMP_EXIT_CONVERGED || n > IMP_PRIMAL_RESCUE_ROWS || solver->law != IMP_LAW_CONE ||
      solver == &imp_solver_pgs)
    return 0;
  double* v = work; /* A g + v0, then w = v - b */
  for (int i = 0; i < n; i++) v[i] = imp_dot(p->A + (size_t)i * (size_t)n, g, n) + p->v0[i];
  double exact, exact_abs = imp_cresidual_at(p, g, v, &exact, work + n);
  for (int i = 0; i < n; i++) v[i] -= p->b[i];
  /* the same scale for both: imp_ccp_residual's has no speed floor */
  double scale = fmax(fmax(sqrt(imp_dot(p->v0, p->v0, n)), sqrt(imp_dot(g, g, n))),
                      fmax(sqrt(imp_dot(v, v, n)), DBL_MIN));
  double relaxed_abs = imp_ccp_residual(p, g, v, work + n) * scale;
  return exact <= IMP_COMMON_TOL && relaxed_abs <= 10 * fmax(exact_abs, tol * fmax(scale, p->vfloor));
}

int imp_guard_primal_kept(const imp_cproblem* p, imp_csolver_stat sp, const double* g, double tol,
                          double mass, imp_guard_pattern* pat, double* work) {
  double rel = INFINITY;
  if (sp.exit == IMP_EXIT_CONVERGED &&
      imp_max_abs_or_inf(g, p->n) <= IMP_HOLD_FACTOR * mass * IMP_STAB_VMAX)
    imp_cresidual(p, g, &rel, work);
  return rel <= tol && !imp_guard_injects_too_much(p, g, mass, pat, work);
}

void imp_guard_nearer_start(const imp_cproblem* p, const double* b, double* g, const double* last,
                            double* work) {
  imp_cproblem q = *p;
  q.b = b;
  double rel_g, rel_last;
  imp_cresidual(&q, g, &rel_g, work);
  imp_cresidual(&q, last, &rel_last, work);
  if (rel_last < rel_g) imp_copy(g, last, p->n);
}
