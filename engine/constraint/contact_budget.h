/* The work bound of one island's solve and an island's account with the
 * step's budget (contact_budget.c), internal to the contact stage
 * (contact.c). It promises: every solve of n rows is given an iteration
 * limit whose work, iterations times the solver's cost of one iteration,
 * stays within IMP_SOLVE_WORK_MAX (contact.h), never below
 * IMP_SOLVE_MIN_ITER; an island never takes more than its share of the
 * step's budget (types.h, step_budget) beyond that minimum, and says so
 * (cut). An iteration's cost is n^work_power for the dense solvers and
 * about nnz for a solver that reads A by rows (imp_csolver.sparse_rows) when
 * the island carries A's nonzeros (nnz, imp_cproblem.A_rowadr; 0: dense):
 * nnz + IMP_SWEEP_ROW_WORK n. */
#ifndef IMPETUS_CONTACT_BUDGET_H
#define IMPETUS_CONTACT_BUDGET_H

#include "constraint/contact.h"

/* The work of one row's law in a sweep over A's pattern, in multiply-adds
   of its products: measured on two recorded islands of MuJoCo's particle
   sample (1,000 frictionless rows, 3,466 and 7,820 nonzeros: 16.4 and
   19.9 us a sweep), a nonzero costs 0.8 ns and a row 13.6 ns, where a
   dense pgs sweep reads an entry of A in 0.6 ns (n = 1,000: 0.61 ms). */
#define IMP_SWEEP_ROW_WORK 16

/* An island's account: what is left of its share, the work done, and
   whether a solve was cut short by it. */
typedef struct imp_budget_account {
  double left, work;
  int cut;
} imp_budget_account;

/* the work of one iteration of s on n rows with nnz nonzeros of A (0: dense) */
double imp_iteration_work(const imp_csolver* s, int n, long long nnz);
/* maxiter lowered to the per-solve work bound, never below IMP_SOLVE_MIN_ITER */
int imp_bounded_iterations(const imp_csolver* s, int n, long long nnz, int maxiter);
/* The most work an island of n rows may do under the per-solve bound, from
   its size alone (dense costs): its solve, the held solve (the solver's or
   pgs's), the pgs rescue, on small islands the primal rescue; for an
   island sure to be sparse (imp_sparse_island_sure) that its solver can
   give only its least iterations, the sweeps of contact_sparse.h in place
   of its solve. */
double imp_island_work_max(const imp_csolver* s, int n, int maxiter, int sparse);
/* The iteration limit of a solve of n rows by s: the per-solve bound,
   lowered to what is left of the island's share (never below
   IMP_SOLVE_MIN_ITER); sets a->cut when lowered. */
int imp_budget_iterations(imp_budget_account* a, const imp_csolver* s, int n, long long nnz,
                          int maxiter);
/* charge work to the account */
void imp_budget_charge(imp_budget_account* a, double work);

#endif
