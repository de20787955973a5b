/* Todorov's implicit nonlinear complementarity solver (Todorov 2010,
 * "Implicit nonlinear complementarity: a new approach to contact dynamics",
 * ../shared/papers/todorov2010-implicit-nonlinear-complementarity.txt).
 *
 * ---- The unknowns (Section II) ----
 * One x per row. Per block, f(x) and v(x) = f(x) + x (eq. 14) satisfy the
 * block's conditions for every x, so the problem becomes the equation
 * r(x) = (A - I) f(x) - x + v0 = 0 (eq. 15):
 *  - equality rows: f = b - x, v = b (always the linear "stick" law);
 *  - limits and condim-1 contacts: f = max(0, b - x), v = max(b, x) (eq. 10);
 *  - contacts of dim 3/4/6: f_N by eq. (10); with nt = dim - 1 friction rows,
 *    s = min(1, mu f_N / ||x_T||) (12), f_T = -s x_T, v_T = x_T - s x_T (13).
 *    mu = 0 gives f_T = 0 (the 0/0 of (12) at x_T = 0 is taken as s = 1).
 *  - dry friction rows with the fixed bound F (MJCF joint frictionloss; the
 *    friction row of a contact whose f_N is known, so the same construction
 *    in one dimension): f = -clamp(x, -F, F), v = x + f: stick (|x| <= F,
 *    v = 0, F = -1) or slip (f = -F sign x, v = x - F sign x of x's sign,
 *    opposing f; F = 0). Its edges are the planes x = +-F, d = sign x
 *    pointing to slip; an active one gets no column of B, like a limit's.
 *
 * ---- Jacobians F = df/dx per block (r'(x) = J = (A - I) F - I, eq. 18) ----
 * With a = x_N - b, rho = ||x_T||, u = x_T / rho:
 *   break (a >= 0):                 F = 0
 *   stick (a < 0, rho <= -mu a):    F = -I
 *   slip  (a < 0, rho > -mu a):     dF_N/dx_N = -1,  dF_N/dx_T = 0,
 *                                   df_T/dx_N = mu u,
 *                                   df_T/dx_T = -(mu f_N / rho)(I - u u')
 *   (f_T = -mu f_N u and du/dx_T = (I - u u') / rho.)
 *   equality: F = -I.
 * F is continuous across the cone within the tangent space and jumps across
 * its normal; it jumps across the plane a = 0 in the x_N column.
 *
 * ---- Edges (Section III.B) ----
 * The plane a = 0 (break | stick or slip), normal d = e_N pointing to break;
 * the cone rho = -mu a, a < 0 (slip | stick), normal d = (mu, u)/sqrt(1+mu^2)
 * pointing to slip. A block is on an edge when its distance to it is at
 * most EDGE_TOL times the block's size max(|a|, rho, |b|, |x_N|, tiny):
 * points the linesearch puts on edges are snapped onto them, and projected
 * Newton/Cauchy points lie on them to rounding, so 1e-9 relative separates
 * "on" from "near" with a wide margin both ways. The apex (a = 0, rho = 0)
 * counts as the plane with the stick Jacobian on the other side.
 * On an edge with sides 1 (where d points) and 2: delta_1 = w' J_1 d,
 * delta_2 = -w' J_2 d (eq. 25, w = D^2 r the gradient of l w.r.t. r). Since
 * J_i d = (A - I) F_i d - d, with y = (A - I) w: w' J_i d = y_blk' F_i d -
 * w_blk' d, a per-block computation. If either delta < 0 the steeper side's
 * F is used; otherwise the edge is active, F = (delta_2 F_1 + delta_1 F_2) /
 * (delta_1 + delta_2) (eq. 26) and the block's column of B spans the edge's
 * tangent space (eqs. 28-29): the friction axes for the plane (the normal is
 * dropped; a 1-row block gets no column), and for the cone the orthogonal
 * complement of its normal d, taken from a Householder reflector (columns
 * 2.. of I - 2 h h'/h'h, h = d + e_N, are orthonormal and orthogonal to d).
 * For nt = 2 that is the span of the generator (a, x_T) and (0, -x3, x2):
 * note eq. (29) prints mu (x1 - b) as the first entry, which is tangent only
 * when mu = 1; we use the true tangent space (B orthonormal, so B B' is the
 * projector and eq. (28) takes the paper's form).
 *
 * ---- Crossings along t(alpha) = x + alpha u (eq. 27) ----
 * Plane: a + alpha u_N = 0. Cone: mu^2 (a + alpha u_N)^2 = ||x_T + alpha u_T||^2,
 *   alpha^2 (mu^2 u_N^2 - u_T'u_T) + 2 alpha (mu^2 a u_N - x_T'u_T)
 *          + (mu^2 a^2 - x_T'x_T) = 0,
 * roots in (0, 1) with a + alpha u_N < 0 (the lower nappe); the same for any
 * nt because only ||t_T||^2 enters.
 *
 * ---- Projection onto a cone edge (Section III.D) ----
 * The nearest point t of {||t_T|| = mu (b - t_N)} to y: Lagrange conditions
 * of min ||t - y||^2 s.t. mu^2 (t_N - b)^2 - ||t_T||^2 = 0 give
 * t_T = y_T / (1 - nu), t_N - b = a / (1 + nu mu^2), and the constraint
 * becomes the quadratic mu^2 a^2 (1 - nu)^2 = rho^2 (1 + nu mu^2)^2, whose
 * two roots are the two generators in the plane of the axis and y; the one
 * on the lower nappe in y's azimuth is nu = (mu a + rho) / (mu a - mu^2 rho),
 * i.e. the foot of the perpendicular on the generator (-1, mu e),
 * e = y_T / rho: t_N = b - s, t_T = mu s e, s = max(0, (mu rho - a)/(1+mu^2)).
 *
 * ---- The iteration (Section III, pseudocode III.E) ----
 * l = r'D^2 r / 2 (19), g = J'D^2 r (20), H = J'D^2 J + lambda I (21), all
 * restricted by B: x_N = x - B (B'HB)^-1 B'g, x_C = x - BB'g g'BB'g /
 * g'BB'HBB'g (28; with B = I, eqs. 22 and 24). x_N is accepted when the
 * actual decrease is at least NEWTON_ACCEPT (0.1; the paper's
 * implementation 0.5, see todorov_impl.h) of the quadratic model's (23);
 * lambda (relative to max diag J'D^2 J) is divided by LAMBDA_DOWN then,
 * multiplied by LAMBDA_UP otherwise. Otherwise the edge-aware linesearch
 * runs over x : x_C and x_C : x_N: crossings sorted, one cubic (Hermite)
 * interpolation of l per smooth sub-segment from the values and one-sided
 * directional derivatives at its ends (Nocedal & Wright, eq. 3.59), every
 * crossing evaluated too; the best point found is accepted if it improves
 * l, else x is a local minimum (Section V.A).
 * Geodesic acceleration: a Newton point that fails (23) is tried once more
 * with the second-order term of Transtrum & Sethna (2012), x + B (xi + a/2)
 * with a from the same factored normal equations and the exact second
 * directional derivative of r along B xi (imp_tod_geodesic_correction),
 * when |a| <= GEODESIC_MAX |xi|. Redundant contacts on one body (a
 * humanoid's foot: 4 contacts, 12 rows, rank 6) make narrow curved valleys
 * of l in which the undamped step overshoots (l x 10-5000) and the damped
 * one gains 3-10% an iteration; the corrected step gained 21% there.
 * Measured on 2,750 islands of 22_humanoids' first 300 steps (every other
 * step, re-solved offline): not converged 1,540 -> 1,325, iterations
 * 98,374 -> 78,099, islands above 1e-6 relative 154 -> 44. Tried: r_vv by
 * a finite difference (h = 0.1, 0.01, 1e-3 of the step: 1,384, 1,395, 1,339
 * not converged), the correction on every Newton point (1,353), the bound
 * 0.5, 1.5 or none (1,325 each).
 * Rescaling (Section V.A): D r(x) = 0 with D = diag(1 / sum_j |A_ij|), the
 * row sums of |A| (floored at 1e-12 of the largest). Measured on 1000
 * random problems per set (tol 1e-10): full rank 995 (never) / 995 (at a
 * local minimum) / 996 (always) converged, rows/rank in (1, 2] 967 / 969 /
 * 968; on ball-contact problems with mass ratios to 64 (Table 1 regime)
 * "always" converged 1-7 more of 100 per cell and raised the Newton share
 * by 2-5 points, so D is applied from the start (RESCALE_DEFAULT).
 * Flat valleys: with redundant contacts (a box on 4 points) the all-stick
 * region's minimum of l is an affine valley along null(A) with r != 0, and
 * LM steps never move along it (see valley_move): at a local minimum, or
 * when an iteration decreases l by less than VALLEY_CRAWL, x moves along the
 * null-space part of w = D^2 r to the valley's first edge crossing (27).
 * Measured on the captured failures (box_pile 76, humanoid 341, Table 1
 * 12): 0 -> 17, 0 -> 21, 1 -> 1 converged.
 * Local minima (Section V.A: "restart the minimization at a different
 * point"): they occur where the blended Jacobian (26) of an active edge,
 * or J in a region with redundant sticking contacts (J = -A there), is
 * singular with r != 0. The restart used here is a proximal point outer
 * loop (Rockafellar 1976; Siconos' PROX solver): with a center f_k, solve
 * the regularized problem
 *     v = (A + rho I) f + v0 - rho f_k
 * by the same iteration (A + rho I is nonsingular, so J = -(A + rho I) in
 * the stick region and the flat valleys are gone), then f_{k+1} = f(x). A
 * fixed point f_{k+1} = f_k is a solution of the original problem, and at
 * the same x: the regularized residual is r_rho = r + rho (f - f_k), so the
 * original r is known at every inner iterate and convergence is judged on
 * it. Each inner solve starts from the previous x (warm) and ends when
 * ||r_rho|| fell to PROX_ETA of its start. rho starts at PROX_RHO times
 * mean diag(A) (the Delassus diagonal), is divided by PROX_SHRINK after an
 * inner solve of at most PROX_FAST iterations (the outer rate is about
 * rho / (rho + sigma) on an eigenvalue sigma of A) and multiplied by
 * PROX_GROW after an inner local minimum; below PROX_FLOOR times the rho
 * that failed it comes back only after outer steps that halve ||r||
 * (otherwise it cycled between a failing small rho and a large one). Along
 * a flat valley the outer steps crawl by r / rho with r unchanged; after
 * each inner solve the edge-aware linesearch of the original l along the
 * ray from the center's x through the inner solution (PROX_REACH times the
 * step) jumps to the valley's end (extrapolate). The loop uses the rest of
 * the iteration budget; the statistics count its inner iterations.
 * Triggers: a local minimum of the iteration (after the valley move), or
 * crawling on an active edge: PROX_CRAWLS consecutive (or PROX_TOTAL_CRAWLS
 * in all) iterations that decrease l by less than VALLEY_CRAWL relative.
 * Off edges a short crawl is left alone: triggering after 3 there too
 * converged 10 more of 951 humanoid islands but the resting humanoid's
 * joints then moved at 7.7e-2 rad/s (another of the non-unique solutions of
 * redundant contacts). A long one (PROX_OFF_EDGE_CRAWLS consecutive) is a
 * smooth local minimum: Menagerie's aloha from qpos0 (its two arms inside
 * each other, 45 condim-6 contacts, 276 rows on 16 dofs) crawled at 3e-4
 * relative a Newton step for 1000 iterations at relative residual 0.24;
 * with the trigger 5e-4 after 100. Sample models, `impetus bench`: humanoid
 * 6.8 -> 6.6 iterations a step, humanoid100 232 -> 204, 22_humanoids
 * 1183 -> 1076.
 * Measured on 2 x 3 cold Table 1 runs (n_b = 15, mu = 0.5, 1, 2: 379, 379,
 * 375 problems), box_pile (987 islands) and the humanoid (951) captured
 * with the problem hook, tol 1e-8, 100 iterations: not converged 17, 60,
 * 53, 61, 139 with 16 Gauss-Seidel restarts (the previous escape) -> 9, 57,
 * 50, 61, 138. In the simulation (bench_table1 --runs 10, 100 iterations,
 * steps not converged summed over the 12 cells) the trajectories differ:
 * warm starts 893 -> 616, cold 1421 -> 1464 (n_b = 15, mu = 1 and 2 cold:
 * 361, 376 -> 484, 429; every other cell fewer), Newton share up 5-14
 * points at n_b >= 10. Tried and no better: the proximal loop from the start (42,
 * 107, 53, 68, 178), after a fixed 20 iterations, PROX_ETA 0.01, rho from
 * 0.1 or 1 mean diag(A), reverting to the center after an inner failure.
 * Gauss-Seidel restarts (Section V.A: "restart the minimization at a
 * different point"): at a local minimum or a crawl, before the proximal
 * loop, up to GS_RESTARTS = 3 times per solve, n sweeps of projected
 * Gauss-Seidel (pgs.c, no scratch) from f(x), then x from those impulses
 * made complementary (imp_tod_warm_start_point), counted as one iteration
 * (n sweeps of n^2 cost what one iteration's n^3 does). Why: in Table 1's
 * piles (n_b = 15: 40-130 rows, A of rank 88 in 99) the iteration from the
 * sticking point reaches, after 7-43 iterations, points with blocks on or
 * next to cone edges where l crawls at relative residuals of 3e-4 to 0.24;
 * 243 of the 280 unconverged cold steps of bench_table1 --runs 1 went on
 * into the proximal loop, whose outer steps crawl at rho / (rho + sigma)
 * (given 1000 iterations, 251 of the 280 converged, after a median 133).
 * The stuck points push on contacts that separate in the solution (one
 * n_b = 10 problem: 8 contacts held with f_N up to 0.36 that the solution
 * breaks); a sweep gives every block its own law's impulse given the
 * others, which leaves that basin. Measured on 288 problems recorded every
 * 5th step of the cold n_b = 10 and 15 cells (all steps, not only
 * failures), the stage's iteration limit: converged 239 -> 270, iterations
 * 5,938 -> 4,446 (10 sweeps: 251, n / 2: 260; 5 restarts as 3; at local
 * minima only, not crawls: 237; these variants measured with the restart
 * not counted as an iteration, which gave 267). bench_table1 --runs 1, steps not
 * converged over the 12 cells: cold 280 -> 90, warm 81 -> 32 (--runs 3:
 * 604 -> 157, 273 -> 78). Not better on the resting piles of balls_cube's
 * scene (10 balls, mu 0.5, stabilized, warm, 8 seeds x 2000 steps: 1,242
 * -> 1,327; balls_cube.xml itself 2 -> 485, its trajectory now settling
 * into a pile whose micro-slips at lightly loaded contacts neither version
 * finds in 100 iterations). Tried on the 288 and no better: weighting D by the rows'
 * residual at a local minimum (233), a floor on lambda proportional to the
 * residual (Fan & Yuan 2005; 50-235), snapping blocks within 1e-4..1e-1 of
 * their cone onto it (228-241), stopping each block of x_N at its first
 * crossing (231-234); the zero-force point as a third start (simulated:
 * cold 278 -> 481 of 2,400 steps).
 * Tried and undone: the restarts only where every target b is 0 (Table 1's
 * problems, unstabilized, where they were measured). Menagerie over 2,000
 * steps: trossen_wx250s 2 -> 905 steps not converged, barkour_v0's
 * scene_barkour 0 -> 598, for what the rest of this paragraph gained (with
 * the proximal-stall restart below, balls_cube.xml is at 16 with the
 * restarts everywhere). With targets, a resting pile of
 * redundant contacts (A singular) has targets no sticking answer meets
 * (contact_guard.c, imp_guard_contact_targets_held), and sweeps that give each
 * block the impulse its own target asks push the impulses along null(A):
 * balls_cube.xml's step 223, warm, crawled at 3.4e-3 relative with its
 * largest impulse grown 0.94 -> 1.19 where the solution's is 0.75 (cold,
 * 7 iterations), and the next ten steps started from there. With the
 * stage's retry at rest, restarts everywhere -> only at b = 0:
 * balls_cube.xml 13 -> 1 of 2000 steps not converged (36.1 -> 2.0
 * iterations a step); 22_humanoids batch (--perturb qpos=0.1,qvel=1.0,
 * 500 steps) seed 1 x 4 48 -> 51, seed 2 x 8 292 -> 197; terrain 4 -> 3
 * (24.3 -> 16.5 iterations a step); cloth 66 -> 50; humanoid100 4 -> 8 of
 * 500; capsule_pile 1504 -> 1561 (74.3 -> 104.7); bench_table1 the same
 * bits. 8 seeds of balls_cube's scene 111 -> 469, of which seed 3 324
 * (1 before): from step 1690 on a warm start carries it into a basin no
 * version leaves in 100 iterations, while 63 of 70 recorded steps converge
 * from the sticking point. Tried: restarts only at cold starts (Table 1
 * warm 78 -> 302 of 2,400 steps); a warm solve's restart from the sticking
 * point before or after the sweeps (balls_cube 9 and 3, at 89.8 and 27.7
 * iterations a step, terrain 59.8 and 100.9, batch seed 1 91 and 214).
 * Stopping: ||r||_inf <= tol * max(||v0||_inf, ||b||_inf, ||A f||_inf),
 * on the unscaled residual: the velocity error relative to the problem's
 * velocities. A solve also stops, "stalled", with its best iterate when
 * over PROX_STALL_ITERS iterations its best ||r|| fell by less than
 * PROX_STALL_GAIN while within PROX_STALL_NEAR of the tolerance: MuJoCo's
 * fallen humanoid has foot contacts on the cone's edge with no slip, where
 * every cone solver here creeps (todorov 1.806e-7 -> 1.770e-7 relative
 * from iteration 5 to 100); those iterations were most of the solver's
 * time on its humanoids. Far from the tolerance the escapes above go on:
 * stopping there too lost 4 of 200 rank-deficient random problems. A band
 * of 1e3 instead of 1e2 saved iterations over the first 200-300 steps of
 * the humanoid samples but doubled humanoid100's solver time over 500
 * (2.55 -> 5.54 ms a step, 157 -> 164 iterations: the cruder answers
 * start the next steps worse).
 * A solve that began at the warm start and stalls so (or whose proximal
 * loop stalls) is restarted once from the sticking point with the
 * iterations left, its Gauss-Seidel restarts and valley moves counted
 * afresh and its stall watch on its own best (the best iterate of both
 * runs is returned): with redundant contacts the forces are not
 * unique, and a warm start can carry last step's split of them into a
 * region where several feet contacts sit on their cone edges and the
 * iteration creeps, while the sticking point, the minimum-norm forces,
 * leads to the exact answer. 22_humanoids' step 269 (every humanoid's
 * island, test/data/captured/humanoid22_step269.cproblem): stalled at
 * 4.7e-8 after 80 iterations; restarted, converged 4 iterations later
 * (6.5e-15). `impetus bench`, steps not converged: 22_humanoids 2 -> 1
 * of 1000; humanoid, humanoid100, terrain, balls_cube, arch unchanged.
 * Restarting at every local minimum instead (before the proximal loop)
 * made balls_cube 21 -> 352 of 2000 and terrain 19 -> 1682. The proximal
 * loop's stall got the restart later: dm_control's humanoid_CMU step 8108
 * (57 rows, feet sliding at 1e-5 m/s on their cone edges) sat at l = 3e-16,
 * relative residual 2.2e-7, through 3 sweeps and the proximal loop (43
 * iterations), and converges from the sticking point 43 iterations later;
 * humanoid_CMU over 10,000 steps, with the stage's retry at rest
 * (contact.c): 457 -> 61 steps not converged (4.77 -> 3.23 iterations a
 * step); the perturbed 22_humanoids batch (500 steps, seed 1 x 4, seed 2 x
 * 8) 51 -> 62 and 197 -> 138; balls_cube.xml 1 -> 16 of 2,000 (in those
 * 16 steps the restarted solve and the stage's retry at rest both end at
 * their iteration limits; why the retry fails after the restart and not
 * after the stall is not known).
 *
 * ---- Initialization (Section III.F) ----
 * Sticking: v = b on normal, limit and equality rows, 0 on friction rows,
 * f = A^+ (v - v0), x = v - f. A^+ by pivoted Cholesky A = P L L' P'
 * (rank-revealing) and A^+ = P L (L'L)^-2 L' P' (the Moore-Penrose inverse
 * of L L' for L of full column rank), so f is the minimum-norm least-squares
 * solution even when A is singular. Warm start: x from the given f made
 * complementary (see warm_start_point); it is kept when its l is no worse
 * than the sticking point's. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "constraint/solvers/todorov_impl.h"

/* ---- the solver ---- */

/* ||r||_inf relative to the problem's velocities (header's stopping test;
   0 / 0 is 0) for problem p */
static double relative_residual(const imp_cproblem* p, const double* x, const double* f,
                                const double* r) {
  double rmax = 0, scale = fmax(imp_tod_max_abs(p->v0, p->n), imp_tod_max_abs(p->b, p->n));
  scale = fmax(scale, p->vfloor); /* contact.h, and contact.c's why */
  for (int i = 0; i < p->n; i++) {
    rmax = fmax(rmax, fabs(r[i]));
    scale = fmax(scale, fabs(r[i] + f[i] + x[i] - p->v0[i])); /* (A f)_i */
  }
  return rmax > 0 ? rmax / scale : 0;
}

/* the stopping test on the unscaled residual (header) for problem p */
static int converged_on(const imp_cproblem* p, const double* x, const double* f, const double* r,
                        double tol) {
  return relative_residual(p, x, f, r) <= tol;
}

/* The hard bound on one solve's work (issue 17: kinova and ur10e hung in
   the proximal loop). Iterations are bounded by maxiter; every iteration
   evaluates f and r a bounded number of times (two trial points, the
   dogleg's two segments with at most 3 nb + 2 crossings each and a cubic
   step between them, a valley move, an extrapolation), so this budget only
   bites when a loop fails to count its iterations: it is the guarantee,
   not the usual exit. */
static long eval_budget(int maxiter, int nb) {
  return ((long)maxiter + 1) * (16 + 8 * (3 * (long)nb + 3));
}

/* 1 while the solve may still evaluate f and r */
static int budget_left(const tod* s) { return *s->evals < s->eval_max; }

/* the stopping test for the problem being iterated on */
static int converged(const tod* s, const double* x, const double* f, const double* r, double tol) {
  return converged_on(s->p, x, f, r, tol);
}

/* D = 1 / row sums of |A| (Section V.A), floored so empty rows stay finite */
static void rescale_rows(tod* s) {
  const imp_cproblem* p = s->p;
  int n = s->n;
  double smax = 0;
  for (int i = 0; i < n; i++) {
    double sum = 0;
    for (int j = 0; j < n; j++) sum += fabs(p->A[(size_t)i * n + j]);
    s->D[i] = sum;
    smax = fmax(smax, sum);
  }
  for (int i = 0; i < n; i++) s->D[i] = smax > 0 ? 1 / fmax(s->D[i], 1e-12 * smax) : 1;
  s->S_ok = 0; /* J's sticking columns scale with D */
}

/* carve the arrays of s from work; the bytes used */
static size_t carve(tod* s, int n, int nb, void* work) {
  char* base = work;
  size_t off = 0, nn = (size_t)n * n;
#define TAKE(ptr, count)                                   \
  do {                                                     \
    (ptr) = (void*)(base ? base + off : NULL);             \
    off += (((size_t)(count) * sizeof *(ptr)) + 15) & ~(size_t)15; \
  } while (0)
  double** vecs[] = {&s->D,  &s->x,  &s->fx, &s->r,  &s->xn, &s->fn,  &s->rn,    &s->xc,
                     &s->fc, &s->rc, &s->xb, &s->fb, &s->rb, &s->xt,  &s->ft,    &s->rt,
                     &s->xk, &s->fk, &s->rk, &s->xl, &s->fl, &s->rl,  &s->xr,    &s->fr,
                     &s->rr, &s->w,  &s->y,  &s->g,  &s->u,  &s->tmp, &s->gr,    &s->xi,
                     &s->v0p, &s->fprox, &s->r0, &s->xprox, &s->csum};
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) TAKE(*vecs[i], n);
  TAKE(s->J, nn);
  TAKE(s->H, nn);
  TAKE(s->Hr, nn);
  TAKE(s->HB, nn);
  TAKE(s->Jd, (size_t)n * (n + 6));
  TAKE(s->S, nn);
  TAKE(s->Ap, nn);
  TAKE(s->F, 36 * (size_t)nb);
  TAKE(s->B, 36 * (size_t)nb);
  TAKE(s->ncol, nb);
  TAKE(s->coladr, nb);
  TAKE(s->active, nb);
  TAKE(s->reg, nb);
  TAKE(s->perm, n);
  TAKE(s->dcol, n);
  TAKE(s->colblk, n);
  TAKE(s->zcol, nb);
  TAKE(s->runs, 2 * (size_t)nb + 2);
  TAKE(s->cross, 3 * (size_t)nb + 2);
#undef TAKE
  return off;
}

static size_t work_size(int n, int nblock) {
  tod s;
  return carve(&s, n > 0 ? n : 0, nblock > 0 ? nblock : 0, NULL) + 16;
}

/* 1 when every value is finite */
static int all_finite(const double* v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* the starting point: warm start or sticking, whichever has the lower l */
static double initialize(tod* s, const imp_csolver_opt* o, const double* f0, int* warm) {
  double l = INFINITY;
  *warm = 0;
  if (o->warmstart && all_finite(f0, s->n)) {
    imp_tod_warm_start_point(s, f0, s->x);
    l = imp_tod_eval_point(s, s->x, s->fx, s->r);
    *warm = 1;
    if (converged(s, s->x, s->fx, s->r, o->tol)) return l;
  }
  imp_tod_sticking_point(s, s->xt);
  double ls = imp_tod_eval_point(s, s->xt, s->ft, s->rt);
  if (ls <= l || !isfinite(l)) {
    imp_copy(s->x, s->xt, s->n);
    imp_copy(s->fx, s->ft, s->n);
    imp_copy(s->r, s->rt, s->n);
    l = ls;
    *warm = 0;
  }
  return l;
}

/* start again from the sticking point: x, f(x), r(x) and its l (a solve
   that began at the warm start and stalled next to the tolerance) */
static double restart_sticking(tod* s) {
  imp_tod_sticking_point(s, s->x);
  return imp_tod_eval_point(s, s->x, s->fx, s->r);
}

/* Restart at a different point (Section V.A) from a local minimum of l
   or a crawl: n sweeps of projected Gauss-Seidel (pgs.c: each block takes
   its own law's impulse given the others; no scratch) from f(x), then x
   from those impulses made complementary (imp_tod_warm_start_point).
   x, f(x), r(x) and its l; the sweeps' impulses pass through s->fn. */
static double sweep_restart(tod* s) {
  imp_csolver_opt o = {s->n, 0, 1, NULL, NULL, 0};
  imp_csolver_stat st = {0, 0, 0, IMP_EXIT_CONVERGED};
  imp_copy(s->fn, s->fx, s->n);
  imp_solver_pgs.solve(s->p, &o, s->fn, &st, NULL);
  imp_tod_warm_start_point(s, s->fn, s->x);
  return imp_tod_eval_point(s, s->x, s->fx, s->r);
}

/* accept (xp, fp, rp) as the iterate */
static void accept_point(tod* s, const double* xp, const double* fp, const double* rp) {
  imp_copy(s->x, xp, s->n);
  imp_copy(s->fx, fp, s->n);
  imp_copy(s->r, rp, s->n);
}

/* ---- leaving a flat valley (Section V.A: a local minimum "can only occur
   when J(x) is singular") ---- */

/* The component z of w = D^2 r in the null space of J (the flat directions
   of r at x): z = w - (H + eps I)^-1 H w with H = J'D^2 J of the last
   iteration, eps = NULL_EPS max diag H, i.e. w minus its part in the range
   of J', filtered at eps. Why w: at a stationary point J'w = 0; in a region
   where every block sticks J = -A, so w itself lies in null(A). Redundant
   contacts (a box on 4 points: A of rank 6 in 12 rows) make that the usual
   case, not a rare one: the stick region's least-squares minimum is a whole
   affine valley along null(A), l is constant on it, and Levenberg-Marquardt
   steps have no component along it. Returns ||z||_inf / ||w||_inf (0 when
   the factorization fails). Uses s->Hr (n x n) and s->tmp. */
static double null_component(tod* s, double hscale, double* z) {
  int n = s->n;
  if (s->lr) return imp_tod_lr_null_component(s, hscale, z);
  double* M = s->Hr;
  memcpy(M, s->H, (size_t)n * n * sizeof(double));
  for (int i = 0; i < n; i++) M[(size_t)i * n + i] += NULL_EPS * hscale;
  if (!imp_tod_cholesky_factor(M, n)) return 0;
  imp_tod_sym_mat_vec(s->tmp, s->H, s->w, n);
  imp_tod_cholesky_solve(M, n, s->tmp, s->csum);
  for (int i = 0; i < n; i++) z[i] = s->w[i] - s->tmp[i];
  double wmax = imp_tod_max_abs(s->w, n);
  return wmax > 0 ? imp_tod_max_abs(z, n) / wmax : 0;
}

/* Move along the flat valley to its first edge. Along +z, f changes by
   -alpha F z: in the stick valley the contacts whose impulse runs to zero
   are those with w_N > 0, whose break side is a descent direction
   (delta_1 = -w_N < 0 in eq. 25), so at that plane crossing (27) eq. (26)
   lets the next iteration descend again. The crossing is accepted when l
   there is no worse than VALLEY_SLACK relative (l is constant along z to
   first order); 1 when x moved. hscale: max diag H of the last iteration. */
static int valley_move(tod* s, double hscale, double* l) {
  int n = s->n;
  double* z = s->u; /* imp_tod_find_crossings reads the direction from its argument */
  double nratio = null_component(s, hscale, s->gr);
  if (!(nratio > VALLEY_NULL_MIN)) return 0;
  /* a ray long enough to reach any edge within VALLEY_REACH times x's size */
  double zmax = imp_tod_max_abs(s->gr, n);
  double reach = VALLEY_REACH * fmax(imp_tod_max_abs(s->x, n), s->tiny);
  for (int i = 0; i < n; i++) z[i] = s->gr[i] * (reach / zmax);
  int nc = imp_tod_find_crossings(s, s->x, z, s->cross);
  if (nc == 0) return 0;
  imp_tod_segment_point(s, s->x, z, s->cross[0].alpha, s->xt);
  imp_tod_snap_to_edge(s->p, &s->cross[0], s->xt);
  double lt = imp_tod_eval_point(s, s->xt, s->ft, s->rt);
  if (!(lt <= *l * (1 + VALLEY_SLACK))) return 0;
  accept_point(s, s->xt, s->ft, s->rt);
  *l = lt;
  return 1;
}


/* When the Newton point x_N = x + B xi failed the test of (23), try it
   with its geodesic acceleration (header): x + B (xi + a/2), projected like
   x_N; it replaces x_N (and *ln) when l is lower there. */
static void geodesic_newton_point(tod* s, double* ln) {
  int n = s->n, m = s->m;
  double* xi2 = s->rr; /* m <= n; the linesearch refills it */
  if (!(imp_tod_geodesic_correction(s, s->xi, xi2) <= GEODESIC_MAX)) return;
  for (int c = 0; c < m; c++) xi2[c] += s->xi[c];
  imp_tod_expand_step(s, xi2, s->xt);
  imp_tod_project_active_cones(s, s->xt);
  double lt = imp_tod_eval_point(s, s->xt, s->ft, s->rt);
  if (!(lt < *ln)) return;
  imp_copy(s->xn, s->xt, n);
  imp_copy(s->fn, s->ft, n);
  imp_copy(s->rn, s->rt, n);
  *ln = lt;
}

/* One iteration of the pseudocode (Section III.E) from x with objective *l:
   1 when a better point was accepted (*newton set when it was x_N), 0 at a
   local minimum. lambda is updated. */
static int iterate(tod* s, double* l, double* lambda, int* newton, double* hscale_out) {
  int n = s->n;
  *newton = 0;
  for (int i = 0; i < n; i++) s->w[i] = s->D[i] * s->D[i] * s->r[i];
  imp_tod_a_mul(s, s->y, s->w);
  for (int i = 0; i < n; i++) s->y[i] -= s->w[i];
  imp_tod_choose_jacobians(s);
  double hscale = fmax(s->lr ? imp_tod_lr_build(s) : imp_tod_build_gauss_newton(s), 1e-300);
  *hscale_out = hscale;
  if (s->lr) {
    imp_tod_lr_restrict_gradient(s);
    imp_tod_lr_prepare(s, 0);
  } else {
    imp_tod_restrict_gradient(s);
  }
  int m = s->m;
  double gg = imp_dot(s->gr, s->gr, m), gHg = 0;
  int ok = 0;
  for (int attempt = 0; attempt < 30 && !ok; attempt++) {
    if (s->lr) { /* the same model through A's factor (todorov_lowrank.c) */
      gHg = imp_tod_lr_quad(s, s->gr, *lambda * hscale);
      ok = imp_tod_lr_factor(s, *lambda * hscale);
      if (!ok) *lambda = fmin(*lambda * LAMBDA_UP, LAMBDA_MAX);
      continue;
    }
    imp_tod_restricted_hessian(s, *lambda * hscale);
    /* with no active edge Hr = 0 + H + lambda I is symmetric to the bit (H is) */
    if (m == n) imp_tod_sym_mat_vec(s->tmp, s->Hr, s->gr, m);
    else imp_tod_mat_vec(s->tmp, s->Hr, s->gr, m);
    gHg = imp_dot(s->gr, s->tmp, m);
    ok = imp_tod_cholesky_factor(s->Hr, m);
    if (!ok) *lambda = fmin(*lambda * LAMBDA_UP, LAMBDA_MAX);
  }
  if (!ok || !(gg > 0)) return 0;
  /* Newton point (eqs. 22, 28) and the model's predicted decrease (23) */
  if (s->lr) {
    imp_tod_lr_solve(s, s->w, s->xi, -1);
  } else {
    for (int c = 0; c < m; c++) s->xi[c] = -s->gr[c];
    imp_tod_cholesky_solve(s->Hr, m, s->xi, s->csum);
  }
  double predicted = -0.5 * imp_dot(s->xi, s->gr, m);
  imp_tod_expand_step(s, s->xi, s->xn);
  imp_tod_project_active_cones(s, s->xn);
  double ln = imp_tod_eval_point(s, s->xn, s->fn, s->rn);
  if (!(ln < *l && *l - ln >= NEWTON_ACCEPT * predicted)) geodesic_newton_point(s, &ln);
  if (ln < *l && *l - ln >= NEWTON_ACCEPT * predicted) {
    accept_point(s, s->xn, s->fn, s->rn);
    *l = ln;
    *lambda = fmax(*lambda / LAMBDA_DOWN, LAMBDA_MIN);
    *newton = 1;
    return 1;
  }
  *lambda = fmin(*lambda * LAMBDA_UP, LAMBDA_MAX);
  /* Cauchy point (eqs. 24, 28), then the dogleg x : x_C : x_N */
  double step = gHg > 0 ? gg / gHg : 0;
  for (int c = 0; c < m; c++) s->xi[c] = -step * s->gr[c];
  imp_tod_expand_step(s, s->xi, s->xc);
  imp_tod_project_active_cones(s, s->xc);
  double lc = imp_tod_eval_point(s, s->xc, s->fc, s->rc);
  double lbest = *l;
  imp_tod_offer_candidate(s, s->xn, s->fn, s->rn, ln, &lbest);
  imp_tod_offer_candidate(s, s->xc, s->fc, s->rc, lc, &lbest);
  imp_tod_search_segment(s, s->x, s->r, *l, s->xc, s->rc, lc, &lbest);
  imp_tod_search_segment(s, s->xc, s->rc, lc, s->xn, s->rn, ln, &lbest);
  if (!(lbest < *l)) return 0;
  accept_point(s, s->xb, s->fb, s->rb);
  *l = lbest;
  return 1;
}

/* remember the iterate when its unscaled ||r|| (r: the original problem's
   residual at it) is the lowest so far */
static void keep_best(tod* s, const double* r, double* rbest2) {
  double r2 = imp_dot(r, r, s->n);
  if (!(r2 < *rbest2)) return;
  *rbest2 = r2;
  imp_copy(s->xk, s->x, s->n);
  imp_copy(s->fk, s->fx, s->n);
  imp_copy(s->rk, r, s->n);
}

/* 1 once f(x) has stayed beyond the caller's bound for IMP_FMAX_ITERS
   iterations in a row (contact.h): the iterates grow without bound, as on a
   problem whose targets conflict, and the solve ends IMP_EXIT_DIVERGED */
static int past_bound(tod* s, const imp_csolver_opt* o) {
  if (!(o->fmax > 0)) return 0;
  s->beyond = imp_tod_max_abs(s->fx, s->n) > o->fmax ? s->beyond + 1 : 0;
  if (s->beyond >= IMP_FMAX_ITERS) s->aborted = 1;
  return s->aborted;
}

/* ---- the proximal outer loop ----
   prox_phase is described in the header. */

/* mean of diag(A): the scale of rho */
static double mean_diag(const imp_cproblem* p) {
  double sum = 0;
  for (int i = 0; i < p->n; i++) sum += p->A[(size_t)i * p->n + i];
  return sum / p->n;
}

/* iterate on the regularized problem A + rho I of the original orig, with
   the scaling D of it when scaled (rescale_rows reads s->p) */
static void prox_set_rho(tod* s, const imp_cproblem* orig, double rho, int scaled) {
  int n = s->n;
  memcpy(s->Ap, orig->A, (size_t)n * n * sizeof(double));
  for (int i = 0; i < n; i++) s->Ap[(size_t)i * n + i] += rho;
  s->p = &s->reg_p;
  s->rho = rho;
  if (scaled) rescale_rows(s);
  s->S_ok = 0; /* J's sticking columns contain A */
}

/* the center f_k = f(x): v0 - rho f_k */
static void prox_center(tod* s, const imp_cproblem* orig, double rho) {
  imp_copy(s->fprox, s->fx, s->n);
  for (int i = 0; i < s->n; i++) s->v0p[i] = orig->v0[i] - rho * s->fprox[i];
}

/* r0 = the original problem's r at the iterate: r_rho - rho (f - f_k) */
static void original_residual(tod* s, double rho) {
  for (int i = 0; i < s->n; i++) s->r0[i] = s->r[i] - rho * (s->fx[i] - s->fprox[i]);
}

/* A solve's progress (main loop or proximal loop): the best ||r||^2 when
   the current window began, at iteration it. */
typedef struct stall_watch {
  int it;
  double r2;
} stall_watch;

/* 1 when the solve has stalled next to the tolerance: its best ||r|| fell by
   less than PROX_STALL_GAIN over PROX_STALL_ITERS iterations and is within
   PROX_STALL_NEAR of the tolerance (header) */
static int stalled(tod* s, const imp_cproblem* orig, const imp_csolver_opt* o,
                   const imp_csolver_stat* st, double rbest2, stall_watch* w) {
  if (st->iterations - w->it < PROX_STALL_ITERS) return 0;
  if (!(rbest2 < PROX_STALL_GAIN * PROX_STALL_GAIN * w->r2) &&
      relative_residual(orig, s->xk, s->fk, s->rk) <= PROX_STALL_NEAR * o->tol)
    return 1;
  *w = (stall_watch){st->iterations, rbest2};
  return 0;
}

/* One inner solve from x on the problem centered at f_k: Todorov iterations
   until r_rho falls to PROX_ETA of its start (or the original problem
   converges: 2); 1 when reached, 0 at a local minimum or the budget, 3 when
   the loop stalled (stalled). */
static int prox_inner(tod* s, const imp_cproblem* orig, const imp_csolver_opt* o,
                      imp_csolver_stat* st, double rho, double* rbest2, stall_watch* watch,
                      int* inner_it) {
  double l = imp_tod_eval_point(s, s->x, s->fx, s->r); /* = the original r: f = f_k */
  double target = PROX_ETA * imp_tod_max_abs(s->r, s->n), lambda = LAMBDA_INIT;
  *inner_it = 0;
  while (st->iterations < o->maxiter && budget_left(s)) {
    if (imp_tod_max_abs(s->r, s->n) <= target) return 1;
    double hscale;
    int newton, progress = iterate(s, &l, &lambda, &newton, &hscale);
    st->iterations++;
    st->newton += newton;
    ++*inner_it;
    original_residual(s, rho);
    keep_best(s, s->r0, rbest2);
    if (o->monitor) o->monitor(o->monitor_ctx, st->iterations, s->fx);
    if (converged_on(orig, s->x, s->fx, s->r0, o->tol)) return 2;
    if (past_bound(s, o)) return 3;
    if (stalled(s, orig, o, st, *rbest2, watch)) return 3;
    if (!progress) return 0;
  }
  return 0;
}

/* The proximal steps along a flat valley: when r of the original problem
   does not change along the step x_c -> x (the center's x to the inner
   solution), the outer loop crawls by steps of r / rho. The edge-aware
   linesearch of the original l over x_c + alpha PROX_REACH (x - x_c) finds
   the valley's end (an edge, eq. 27) at once; its best point is taken when
   it beats x. 1 when the original problem converged there. */
static int extrapolate(tod* s, const imp_cproblem* orig, double tol, double* rbest2) {
  int n = s->n;
  const imp_cproblem* reg = s->p;
  s->p = orig; /* same b, mu and D; A, v0 of the original */
  double lx = imp_tod_eval_point(s, s->x, s->fx, s->r);
  /* buffers the linesearch does not touch: w, y (free between iterations)
     for the center, xn, fn, rn for the ray's end */
  double lc = imp_tod_eval_point(s, s->xprox, s->y, s->w);
  for (int i = 0; i < n; i++) s->xn[i] = s->xprox[i] + PROX_REACH * (s->x[i] - s->xprox[i]);
  double lq = imp_tod_eval_point(s, s->xn, s->fn, s->rn), lbest = lx;
  imp_tod_search_segment(s, s->xprox, s->w, lc, s->xn, s->rn, lq, &lbest);
  if (lbest < lx) {
    accept_point(s, s->xb, s->fb, s->rb);
    keep_best(s, s->r, rbest2);
  }
  int conv = converged_on(orig, s->x, s->fx, s->r, tol);
  s->p = reg;
  imp_tod_eval_point(s, s->x, s->fx, s->r); /* r_rho: f_k is still the center */
  return conv;
}

/* the next rho after an inner solve that ended with res (prox_inner):
   grow it after a local minimum of the inner problem and never come back
   below PROX_FLOOR times that rho until the outer loop made good progress;
   shrink it after a fast inner solve (a well-conditioned inner problem is
   affordable with less regularization, and the outer loop converges at
   about rho / (rho + sigma) per step on an eigenvalue sigma of A) */
static double next_rho(tod* s, int res, int inner_it, double rho, double* floor, double rho_min,
                       double rho_max, double* r0_prev) {
  if (res == 0) {
    *floor = fmax(*floor, PROX_FLOOR * rho);
    return fmin(rho * PROX_GROW, rho_max);
  }
  original_residual(s, rho);
  double r0 = imp_tod_max_abs(s->r0, s->n);
  if (r0 < PROX_GOOD * *r0_prev) *floor = fmax(*floor * PROX_FLOOR_DECAY, rho_min);
  *r0_prev = r0;
  return inner_it <= PROX_FAST ? fmax(rho / PROX_SHRINK, *floor) : rho;
}

/* The proximal point loop from the current x (header); 1 when the original
   problem converged. On return s holds x, f(x) and r(x) of the original
   problem. */
static int prox_phase(tod* s, const imp_csolver_opt* o, imp_csolver_stat* st, int scaled,
                      double* rbest2) {
  const imp_cproblem* orig = s->p;
  double dbar = mean_diag(orig);
  if (!(dbar > 0) || !isfinite(dbar)) return 0;
  s->reg_p = *orig;
  s->reg_p.A = s->Ap;
  s->reg_p.v0 = s->v0p;
  double rho = PROX_RHO * dbar, rho_min = PROX_RHO_MIN * dbar, rho_max = PROX_RHO_MAX * dbar;
  double floor = rho_min;
  double r0_prev = imp_tod_max_abs(s->r, s->n);
  int done = 0;
  stall_watch watch = {st->iterations, *rbest2};
  prox_set_rho(s, orig, rho, scaled);
  while (!done && st->iterations < o->maxiter && budget_left(s)) {
    prox_center(s, orig, rho);
    imp_copy(s->xprox, s->x, s->n);
    int inner_it, res = prox_inner(s, orig, o, st, rho, rbest2, &watch, &inner_it);
    if (res == 3) break;
    if (inner_it == 0) {
      /* a round that iterated nothing still counts: with r_rho already at
         its target and the extrapolation not converging, rounds repeated
         forever (kinova_gen3, ur10e) */
      st->iterations++;
      if (o->monitor) o->monitor(o->monitor_ctx, st->iterations, s->fx);
    }
    done = res == 2 || (res == 1 && extrapolate(s, orig, o->tol, rbest2));
    if (done) break;
    double next = next_rho(s, res, inner_it, rho, &floor, rho_min, rho_max, &r0_prev);
    if (next != rho) prox_set_rho(s, orig, rho = next, scaled);
  }
  s->p = orig;
  if (scaled) rescale_rows(s);
  s->S_ok = 0;
  imp_tod_eval_point(s, s->x, s->fx, s->r);
  return done;
}

/* the solver with a choice of when to rescale the residual (Section V.A) */
static void solve_with(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                       imp_csolver_stat* st, void* work, int rescale) {
  st->iterations = st->newton = 0;
  st->residual = 0;
  st->exit = IMP_EXIT_CONVERGED;
  if (p->n <= 0) return;
  long evals = 0;
  tod s = {.p = p, .n = p->n, .nb = p->nblock, .evals = &evals,
           .eval_max = eval_budget(o->maxiter, p->nblock)};
  carve(&s, p->n, p->nblock, work);
  imp_tod_lr_setup(&s);
  for (int k = 0; k < s.nb; k++)
    for (int j = 0; j < p->blk_dim[k]; j++) s.colblk[p->blk_adr[k] + j] = k;
  double vscale = fmax(imp_tod_max_abs(p->v0, p->n), imp_tod_max_abs(p->b, p->n));
  s.tiny = 1e-12 * (vscale > 0 ? vscale : 1);
  for (int i = 0; i < s.n; i++) s.D[i] = 1;
  if (rescale == RESCALE_ALWAYS) rescale_rows(&s);
  int warm = 0, restarted = 0;
  double l = initialize(&s, o, f, &warm), rbest2 = INFINITY, rrun2 = INFINITY;
  double lambda = LAMBDA_INIT;
  keep_best(&s, s.r, &rbest2);
  int scaled = rescale == RESCALE_ALWAYS, done = 0, proxed = 0, prox_ran = 0, valleys = 0;
  int crawls = 0, total_crawls = 0, sweeps = 0;
  stall_watch watch = {0, rbest2};
  st->exit = IMP_EXIT_MAXITER;
  /* st->iterations, not a count of passes: the sweeps count as iterations */
  while (st->iterations < o->maxiter && isfinite(l) && budget_left(&s)) {
    if (converged(&s, s.x, s.fx, s.r, o->tol)) {
      done = 1;
      break;
    }
    double hscale = 0, lprev = l;
    int prox_stalled = 0;
    int newton = 0, progress = iterate(&s, &l, &lambda, &newton, &hscale);
    /* a crawl (tiny decreases along a nearly flat valley) is left as a local minimum is */
    int crawl = progress && l > lprev * (1 - VALLEY_CRAWL);
    crawls = crawl ? crawls + 1 : 0;
    total_crawls += crawl;
    if (crawl && valleys < MAX_VALLEYS) {
      /* H of this iteration is still in s.H: the Jacobians F (and so J and H)
         were chosen at the iteration's start and nothing since changed them;
         only w = D^2 r moved with the accepted point */
      for (int i = 0; i < s.n; i++) s.w[i] = s.D[i] * s.D[i] * s.r[i];
      if (valley_move(&s, hscale, &l)) valleys++, crawls = 0;
    }
    /* Crawling is a local minimum reached slowly (header): the restricted
       gradient B'g tends to 0 with r != 0 while the iteration keeps taking
       tiny decreases until maxiter, and no escape would ever be tried. */
    int on_edge = s.m < s.n; /* some edge was active (26): B dropped a column */
    int crawled = on_edge ? crawls >= PROX_CRAWLS || total_crawls >= PROX_TOTAL_CRAWLS
                          : crawls >= PROX_OFF_EDGE_CRAWLS;
    if (crawled) progress = 0;
    st->iterations++;
    st->newton += newton;
    if (!progress && !crawled && valleys < MAX_VALLEYS && valley_move(&s, hscale, &l)) {
      valleys++;
      lambda = LAMBDA_INIT;
    } else if (!progress && sweeps < GS_RESTARTS && st->iterations < o->maxiter) {
      if (o->monitor) o->monitor(o->monitor_ctx, st->iterations, s.fx);
      l = sweep_restart(&s); /* Section V.A: restart at a different point (header) */
      sweeps++;
      st->iterations++; /* its n sweeps cost what one iteration does, n^3; the
                           monitor sees it below, as every iteration */
      lambda = LAMBDA_INIT;
      crawls = total_crawls = 0;
    } else if (!progress && rescale == RESCALE_ON_LOCAL_MIN && !scaled) {
      rescale_rows(&s); /* Section V.A: D r(x) = 0 */
      scaled = 1;
      l = imp_tod_objective(&s, s.r);
      lambda = LAMBDA_INIT;
    } else if (!progress) { /* the proximal outer loop takes the rest of the budget */
      if (o->monitor) o->monitor(o->monitor_ctx, st->iterations, s.fx);
      proxed = prox_ran = 1;
      done = prox_phase(&s, o, st, scaled, &rbest2) ? 1 : 2;
      /* stalled on a warm start: the restart below (header) */
      prox_stalled = done == 2 && warm && !restarted && !s.aborted && st->iterations < o->maxiter;
      if (prox_stalled) done = 0;
      else if (done == 2) st->exit = st->iterations >= o->maxiter ? IMP_EXIT_MAXITER : IMP_EXIT_STALLED;
    }
    keep_best(&s, s.r, &rbest2);
    rrun2 = fmin(rrun2, imp_dot(s.r, s.r, s.n));
    if (o->monitor && !proxed) o->monitor(o->monitor_ctx, st->iterations, s.fx);
    if (s.aborted || (!proxed && past_bound(&s, o))) {
      st->exit = IMP_EXIT_DIVERGED;
      done = 2;
      break;
    }
    if (done) break;
    /* after the restart the watch follows the restarted run's own best: the
       best of the first run, which it has not reached yet, would call it
       stalled while it still converges (humanoid_CMU's step 8108: from l =
       1e-5 to 2e-14 in 40 iterations, stopped there; cold, it converges in
       43) */
    if (prox_stalled || stalled(&s, p, o, st, restarted ? rrun2 : rbest2, &watch)) {
      if (warm && !restarted) { /* once, from the sticking point (header) */
        l = restart_sticking(&s);
        restarted = 1, rrun2 = INFINITY;
        /* after the proximal loop, a fresh run: its sweeps, valley moves and
           monitor (prox_ran keeps the best of both) */
        if (prox_stalled) sweeps = valleys = proxed = 0;
        lambda = LAMBDA_INIT;
        crawls = total_crawls = 0;
        watch = (stall_watch){st->iterations, INFINITY};
        continue;
      }
      st->exit = IMP_EXIT_STALLED;
      done = 2;
      break;
    }
  }
  /* the valley moves and the proximal loop go uphill in l: return the best */
  if ((prox_ran || valleys > 0 || restarted || done == 2) && done != 1 && isfinite(rbest2))
    accept_point(&s, s.xk, s.fk, s.rk);
  if (done != 2 && converged(&s, s.x, s.fx, s.r, o->tol)) st->exit = IMP_EXIT_CONVERGED;
  st->residual = sqrt(imp_dot(s.r, s.r, s.n));
  if (all_finite(s.fx, s.n) && isfinite(st->residual)) {
    imp_copy(f, s.fx, s.n);
  } else {
    imp_zero(f, s.n);
    st->exit = IMP_EXIT_FAILED;
  }
}

static void solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                  imp_csolver_stat* st, void* work) {
  solve_with(p, o, f, st, work, RESCALE_DEFAULT);
}

const imp_csolver imp_solver_todorov = {
    "todorov",
    "Todorov 2010: implicit complementarity, Gauss-Newton with edge-aware dogleg",
    work_size, solve, IMP_LAW_CONE, 3, imp_tod_caller_min_rows, 0};
