/* Large sparse islands (contact_sparse.c), internal to the contact stage
 * (contact.c). An island of many free bodies (MuJoCo's particle composite:
 * 1,000 spheres, islands of 1,000 frictionless contact rows with 3 to 8
 * nonzeros a row of A) has a Delassus matrix that is almost all zeros, and
 * a dense Newton iteration on it costs n^3: the work bound left todorov 2
 * iterations an island where it needs 36-46 (recorded islands), at 56 ms
 * each. It promises:
 *  - imp_sparse_attach gives an island of at least IMP_SPARSE_MIN_ROWS rows
 *    whose A is at most a quarter nonzero its pattern (imp_cproblem's
 *    A_rowadr, A_col), which products over rows may use with the same bits
 *    (imp_cproblem_row_times);
 *  - imp_sparse_sweeps_first says when such an island is solved by
 *    Gauss-Seidel sweeps over that pattern instead: the island's cone
 *    solver is dense and the work bound would leave it no more than its
 *    least iterations, IMP_SOLVE_MIN_ITER (islands of 272 rows and more at
 *    MuJoCo's default of 100 iterations);
 *  - imp_sparse_sweeps runs those sweeps (pgs, whose fixed points are
 *    answers of the exact law) until the common relative residual
 *    (imp_cresidual) is within the tolerance, or its observed rate cannot
 *    bring it there within the work allowed; the answer is the best iterate
 *    by that residual, and "converged" means exactly that residual within
 *    tol.
 * Why only there: on MuJoCo's hammock (islands of 178-189 rows of tendon
 * equalities, 4% of A nonzero, todorov bounded to 6 iterations) the sweeps
 * converged 296 of 300 steps where the dense path converges 190, but they
 * needed 4,556 sweeps a step: 52 ms a step against 1.8 ms. Gauss-Seidel
 * carries a correction one link of a chain per sweep. */
#ifndef IMPETUS_CONTACT_SPARSE_H
#define IMPETUS_CONTACT_SPARSE_H

#include "constraint/contact.h"
#include "constraint/contact_guard.h"

/* Islands from this many rows get A's pattern when it is sparse. Below,
   one island's pattern costs about what its products save. */
#define IMP_SPARSE_MIN_ROWS 128

/* p's pattern into pat and p (A_rowadr, A_col) when p has at least
   IMP_SPARSE_MIN_ROWS rows and A is at most a quarter nonzero; returns the
   nonzeros then, else 0 (p dense). pat: the stage's scratch, reset. */
long long imp_sparse_attach(imp_cproblem* p, imp_guard_pattern* pat);

/* 1 when island isl (n rows) has A at most a quarter nonzero for sure,
   before A is assembled: only rows that move a tree in common can have
   A_ij != 0 (contact.c, assemble_sparse), and the pairs of its rows that
   share a tree are at most n^2 / 4. So imp_sparse_attach will give it a
   pattern. count: nbody ints, zero on entry and on return. */
int imp_sparse_island_sure(const imp_model* m, const imp_data* d, int isl, int n, int* count);

/* 1 when the island p (pattern attached), solved by solver with the
   iteration limit maxiter, is swept first */
int imp_sparse_sweeps_first(const imp_csolver* solver, const imp_cproblem* p, int maxiter);

/* Sweeps of pgs on p (pattern attached) from g (warm) or zero, within the
   work allowed (imp_iteration_work of pgs a sweep), to the common relative
   residual tol; g gets the best iterate. *work_done: the work charged;
   *cut: 1 when the work allowed ended it, or would have before tol. best: n doubles, vel: n doubles,
   res_work: imp_cresidual_at's. The stat's iterations are the sweeps, its
   residual the common relative residual of g. */
imp_csolver_stat imp_sparse_sweeps(const imp_cproblem* p, double tol, int warm, double allowed,
                                   double* g, double* best, double* vel, double* res_work,
                                   double* work_done, int* cut);

#endif
