/* Redundant equality rows (contact_redundant.c), internal to the contact
 * stage (contact.c). A mechanism closed twice over (Menagerie's
 * toddlerbot: each of its parallel linkages is closed by two connect
 * equalities on one hinge axis, 21 equality rows of rank 12) gives an
 * island whose equality rows are linearly dependent: J_d = sum_k c_dk J_k.
 * Their targets (the stabilization of each row's own position error) then
 * need not be consistent: b_d != sum_k c_dk b_k by 5e-6 to 1e-5 m/s on
 * toddlerbot, so no impulses meet every row, the solvers' impulses grow
 * along the null space (to 3e5 on its 93-row islands) and todorov ended
 * 800-2,000 of 2,000 steps at its iteration limit. It promises, for an
 * island with 2 to IMP_REDUNDANT_MAX_ROWS equality rows:
 *  - imp_redundant_reduce finds the dependent rows (pivoted Cholesky of the
 *    equality rows' block of A, pivots below IMP_REDUNDANT_TOL of its
 *    largest diagonal) and, only when there are some, replaces the
 *    equality targets by their least-squares projection onto the targets
 *    the rows can meet together, moves a warm start's impulses off the
 *    dependent rows onto the rows they depend on (J'f unchanged), and makes
 *    each dependent row inert (its row and column of A zero but for the
 *    diagonal, v0 = b = 0: its impulse is 0 in any answer). An island
 *    without dependent equality rows is left bit for bit as it was.
 *  - imp_redundant_restore gives the dependent rows their velocities
 *    (sum_k c_dk v_k) and projected targets after the solve; their
 *    impulses stay 0. The answer then meets every equality row, dependent
 *    or not, as well as it meets the rows kept.
 * Nothing here allocates: the caller's scratch, carved by the sizes below. */
#ifndef IMPETUS_CONTACT_REDUNDANT_H
#define IMPETUS_CONTACT_REDUNDANT_H

#include <stddef.h>

#include "constraint/contact.h"

/* Islands with more equality rows are left as they are: the test costs the
   cube of their count / 6 a step (64 rows: 44k multiply-adds), and
   MuJoCo's composites (softbox: 651 tendon equality rows in one island)
   would pay it for nothing. */
#define IMP_REDUNDANT_MAX_ROWS 64
/* A pivot below this fraction of the largest diagonal marks a dependent
   row. toddlerbot's dependent rows leave pivots of 1e-16 to 1e-12 of it,
   its smallest independent one is 2e-5; Menagerie's cassie near its
   loops' dead point has an eigenvalue of 5e-10 of the largest, which stays
   a row. */
#define IMP_REDUNDANT_TOL 1e-11

/* Islands are reduced only where the file allows a solve this many
   iterations or more. The reduction is for convergence; a file that asks
   for fewer (MJX's iterations="1") asks for a fixed-cost step, and there
   the reduced problem's one Gauss-Newton iteration let a double-closed
   linkage slide through its joints' dry friction
   (test_joint_friction.c's light loop: 4.3 rad/s after 2,000 steps,
   against 9.6e-3 as given), while toddlerbot's MJX scenes stop at their
   limit either way. */
#define IMP_REDUNDANT_MIN_ITER 10

typedef struct imp_redundant {
  int nk, nd;   /* rows kept and dependent (nd = 0: nothing was changed) */
  int* row;     /* the island's equality rows, kept first (pivot order) */
  double* W;    /* IMP_REDUNDANT_MAX_ROWS^2: the factor, then c_d by rows */
  double* y;    /* the projected targets, kept then dependent */
  int* perm;    /* IMP_REDUNDANT_MAX_ROWS: the factor's pivot order */
  double* col;  /* IMP_REDUNDANT_MAX_ROWS: the factor's column scratch */
} imp_redundant;

/* doubles and ints of the scratch for islands of at most nmax rows, and
   r's arrays set in them (dbl, ints: as many as those) */
size_t imp_redundant_doubles(int nmax);
size_t imp_redundant_ints(int nmax);
void imp_redundant_carve(imp_redundant* r, double* dbl, int* ints, int nmax);

/* The island p (A, v0, b, g its writable arrays, n = p->n; g a warm start
   when warm) reduced as above when maxiter (the file's iterations) is at
   least IMP_REDUNDANT_MIN_ITER; returns r->nd (0: p unchanged). */
int imp_redundant_reduce(const imp_cproblem* p, double* A, double* v0, double* b, double* g,
                         int warm, int maxiter, imp_redundant* r);

/* After the solve: the dependent rows' velocities vel and targets b (g's
   are 0) from the rows kept */
void imp_redundant_restore(const imp_redundant* r, double* vel, double* b);

#endif
