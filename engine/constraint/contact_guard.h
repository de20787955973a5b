/* The contact stage's answer guards (contact_guard.c), internal to the
 * stage (contact.c): what the stage adds to any solver's answer before it
 * moves the bodies. It promises: a correction (a violated row's target) is
 * bounded in energy by the mass it moves; corrections of limits and
 * equalities that conflict (no velocity meets them with the equalities)
 * are lowered, before the solve, to the part the island can meet, never
 * raised or reversed; an answer that is no solution
 * (not finite, or putting in more energy than its corrections justify) is
 * recognized so the stage can hold the corrections instead; "converged"
 * from a cone solver only when the common residual agrees; unfinished
 * answers of Newton-type cone solvers get Gauss-Seidel sweeps, kept only
 * when they put less energy in against the blocks' laws; an unfinished
 * answer of a cone solver is never farther from a solution, by the common
 * residual, than the warm start it began from; the unilateral
 * rows a warm start has no impulse for (contacts new this step) get, before
 * such a solver starts, the impulse that meets their own law. Nothing here
 * allocates; work buffers are the caller's, of the sizes each comment says. */
#ifndef IMPETUS_CONTACT_GUARD_H
#define IMPETUS_CONTACT_GUARD_H

#include "constraint/contact.h"
#include "types.h"

/* The nonzeros of an island's A by rows, for the conjugate gradients of
   imp_guard_injects_too_much and imp_guard_consistent_corrections: row i's
   columns at col[adr[i] .. adr[i + 1]), ascending. Found once per island
   (imp_guard_pattern_reset after assembling A), the first time a guard's
   CG runs; an island with more than a quarter of A nonzero keeps the dense
   products (state IMP_PATTERN_DENSE). The caller's scratch: adr n + 1
   ints, col cap ints (n^2 / 4 for an island of n rows suffices). */
enum { IMP_PATTERN_UNKNOWN = 0, IMP_PATTERN_SPARSE = 1, IMP_PATTERN_DENSE = 2 };
typedef struct imp_guard_pattern {
  int *adr, *col;
  long long cap; /* ints of col */
  int state;     /* IMP_PATTERN_* */
} imp_guard_pattern;
static inline void imp_guard_pattern_reset(imp_guard_pattern* pat) {
  pat->state = IMP_PATTERN_UNKNOWN;
}
/* pat from A: SPARSE with the pattern, or DENSE when more than a quarter
   of A (or more than pat->cap ints) is nonzero */
void imp_guard_pattern_build(const imp_cproblem* p, imp_guard_pattern* pat);

double imp_guard_moving_mass(const imp_model* m, const imp_data* d, const int* rows, int n,
                          int* first_dof, int* roots);
void imp_guard_cap_correction_energy(const imp_model* m, const imp_data* d, const imp_cproblem* p,
                                  const int* rows, double* b, int* first_dof, int* roots);
void imp_guard_disable_immobile_rows(const imp_cproblem* p, double* b, double* mu);
int imp_guard_injects_too_much(const imp_cproblem* p, const double* g, double mass,
                               imp_guard_pattern* pat, double* work);
/* 1 when the primal rescue (IMP_PRIMAL_RESCUE_ROWS) may answer the island
   after solver's unfinished answer g: an exact-cone solver other than pgs
   stopped short near its answer (g's common relative residual within
   IMP_COMMON_TOL), the island is small, and g meets the relaxed law about
   as well as the exact one (the CCP's absolute residual at g within 10
   times the common one, or the tolerance), i.e. none of its contacts
   slides: where one slides the relaxed answer lifts it off and is no
   answer of the exact law. Measured on Menagerie's pal_tiago
   scene_position from its key (islands of 35 and 59 rows: sliding wheels
   and fingers): at todorov's answers of the 35-row islands the CCP
   residual was 3e-5 .. 1.5e-4 against common ones of 1e-9 .. 5e-8, and
   primal's answers, converged on the relaxed law, were 2e-5 .. 1.5e-4 off
   the exact one; the 59-row islands ended at 2e-5 .. 5e-4, far from any
   answer. Tried on all of them, the rescue was never kept and added 15%
   to its iterations. work: 3n. */
int imp_guard_primal_may_answer(const imp_csolver* solver, const imp_cproblem* p,
                                imp_csolver_stat st, const double* g, double tol, double* work);
/* 1 when the primal rescue's answer g (stat sp) is kept: converged, no
   impulse beyond a suspect answer's bound (IMP_HOLD_FACTOR mass
   IMP_STAB_VMAX, imp_guard_unfinished_and_suspect's), the common residual
   of the exact law within tol, and no more energy than the corrections
   justify (imp_guard_injects_too_much). Impulses far beyond the island's
   velocities set the scale of both the relative residual and the energy's
   rounding, so without the bound an answer that spins a link can pass
   both (test_contact_guard.c). work: 6n. */
int imp_guard_primal_kept(const imp_cproblem* p, imp_csolver_stat sp, const double* g, double tol,
                          double mass, imp_guard_pattern* pat, double* work);
int imp_guard_unfinished_and_suspect(const imp_cproblem* p, imp_csolver_stat st, const double* g,
                                  double mass, double* work);
int imp_guard_consistent_corrections(const imp_cproblem* p, double* b, double mass,
                                     imp_guard_pattern* pat, double* work);
int imp_guard_hold_corrections(const imp_cproblem* p, double* held);
imp_csolver_stat imp_guard_solve_checked(const imp_csolver* solver, const imp_cproblem* p,
                                      const imp_csolver_opt* o, double* g, void* work,
                                      double* res_work);
void imp_guard_start_new_rows(const imp_csolver* solver, const imp_cproblem* p, double* g);
int imp_guard_no_worse_than_start(const imp_csolver* solver, const imp_cproblem* p,
                                  imp_csolver_stat st, double* g, const double* start,
                                  double* work);
int imp_guard_contact_targets_held(const imp_data* d, const int* rows, const imp_cproblem* p,
                                   double within, double* b_held);
/* g becomes last when that is nearer than g to an answer of p with targets
   b, by the common residual: the start of the retry of an island that was
   retargeted last step (contact.c), from last step's answer or from its
   short first try. On the perturbed 22_humanoids batch (seeds 1, 2, 3 with
   4, 8, 8 rollouts) from last step's answer always: 54 steps unconverged
   of seed 1's 2,000 (21 before the short try), with the nearer: 35; seeds
   2 and 3: 143 and 226 (135 and 255 before). work: 2n. */
void imp_guard_nearer_start(const imp_cproblem* p, const double* b, double* g, const double* last,
                            double* work);
int imp_guard_polish_unfinished(const imp_csolver* solver, const imp_cproblem* p,
                             const imp_csolver_opt* o, const imp_csolver_stat* st, double* g,
                             double* g_kept, void* work, double* res_work);

#endif
