/* The cone complementarity relaxation (CCP), solved on its dual convex
 * problem by accelerated projected gradient with adaptive restart.
 *
 * ---- The problem (../shared/papers/ccp-dual-and-primal-convex-formulations.txt) ----
 * The paper's CCP per contact i (eq. "CCP"):  K_mu,i  ∋ lambda_i  ⟂  (c_i - ĉ_i) ∈ K*_mu,i.
 * In our notation lambda = f, G = A, c - ĉ = w = A f + v0 - b, g = v0 - b
 * (eq. "CCP_dual": G lambda + g = c - ĉ). Its conditions are the KKT
 * conditions of the paper's dual problem ("Optimization on the dual"):
 *
 *     min  q(f) = 1/2 f'A f + g'f    over  f in K = K_1 x ... x K_nblock,
 *
 * stationarity A f + g = y, f in K, y in K*, y'f = 0 (the multiplier y is
 * the relative velocity w). Our blocks' sets: equality rows R^dim (K* = {0},
 * so w = 0: unconstrained); limits and frictionless contacts R+ (K* = R+);
 * friction contacts the circular cone ||f_T|| <= mu f_N, whose dual is
 * K* = {mu ||w_T|| <= w_N}. The paper's primal ("Optimization on the
 * primal", min 1/2 |v - v^f|_M^2 s.t. J v - ĉ in K*) shows the body
 * velocities of the answer are unique even where f is not (A singular).
 * Dry friction rows (IMP_CNSTR_FRICTION) add the interval [-F, F], F =
 * mu[k] fixed: not a cone, so K is a convex set rather than a product of
 * cones, and the stationarity above reads in its general form f = P_K(f -
 * y) (-y in the normal cone of K at f). On the interval that is y = 0
 * inside and y opposing f on the bound: exactly contact.h's law, and the
 * dual is still a convex quadratic over a closed convex set, so the method
 * below applies unchanged with the interval's projection, the clamp.
 *
 * ---- What the relaxation changes (known effect, test_solver_ccp.c) ----
 * The exact law (contact.h, residual.c) asks w + mu ||w_T|| e_N in K* with
 * f'(w + mu ||w_T|| e_N) = 0: a sliding contact has w_N = 0. The CCP asks w
 * in K* and f'w = 0: on a sliding contact f is on the cone's boundary and w
 * on the dual cone's boundary, so w_N = mu ||w_T|| > 0 -- a sliding contact
 * separates at a speed mu times its slip (the box on a plane lifts off). At
 * sticking (w = 0) and separating (f = 0) contacts both laws agree.
 * Dry friction rows are not relaxed at all: the lift-off comes from a
 * friction row's bound moving with its normal impulse, and their bound is
 * fixed, so the CCP's condition on them is the exact one.
 * Equivalently, the CCP answer is the exact answer of the problem whose
 * normal targets are raised to b_N + mu ||w_T||: that is how test_solvers.c
 * checks this solver with the common residual.
 *
 * ---- The method ----
 * Nesterov's accelerated projected gradient in the FISTA form (Beck &
 * Teboulle 2009), step 1/L:
 *     x_k   = P_K(y_k - (A y_k + g) / L)
 *     t_k+1 = (1 + sqrt(1 + 4 t_k^2)) / 2
 *     y_k+1 = x_k + (t_k - 1) / t_k+1 (x_k - x_k-1)
 * L: the largest eigenvalue of A by power iteration (POWER_ITERS steps,
 * which approach it from below), then backtracking: the descent lemma for
 * a quadratic holds with equality, q(x) = q(y) + grad'(x - y) + 1/2 d'A d
 * (d = x - y), so the step is safe exactly when d'A d <= L d'd; when an
 * estimate is too small L doubles and the step is redone.
 * Restart: O'Donoghue & Candes 2015 (Sec. 3.2), the GRADIENT scheme:
 * restart the momentum (t = 1, y = x) when (y_k - x_k)'(x_k - x_k-1) > 0,
 * i.e. the generalized gradient makes an obtuse angle with the last step.
 * Each iteration costs one product A x (A y is combined from A x_k, A x_k-1).
 *
 * ---- Stopping (this solver's own measure) ----
 * The natural map of the CCP at x_k: e = x - P_K(x - w), w = A x + g, which
 * is 0 exactly at a CCP solution. s->residual = ||e|| / max(||v0||, ||x||,
 * ||w||, tiny): the same scaling as the common residual's relative one.
 * Converged when it is <= tol; checked also before the first iteration, so
 * a warm start at an answer takes 0 iterations.
 * Divergence: when A is singular the dual can be unbounded below although
 * the exact problem has a solution: a direction d with A d = 0 and g'd < 0
 * along which the ray from 0 stays in K, i.e. d in K's recession cone
 * (test_solvers.c's deficient-rank family, built around an exact solution,
 * has such problems: the relaxation asks every sliding contact to lift off
 * at mu ||w_T||, which a rank-deficient A may not allow). The iterates then
 * run off along d. For the cones every point of K is such a direction; a
 * dry friction row's interval is bounded, so its only one is 0 (those rows
 * cannot run off, they stay within F). Each iteration therefore tests c /
 * ||c||, c = x with the dry friction rows set to 0, as such a certificate
 * (unbounded_ray: x'Ax and g'x, plus nF^2 multiply-adds for nF dry friction
 * rows), and stops with IMP_EXIT_DIVERGED and its last iterate when it
 * holds; also when ||x|| exceeds DIVERGE_NORM times the problem's scale, or
 * an iterate is not finite (then the last finite one is returned).
 *
 * Scratch: 7 n doubles from work (nothing more for dry friction: the
 * certificate finds those rows by walking the blocks). */
#include <float.h>
#include <math.h>

#include "constraint/contact.h"
#include "core/mathx.h"

#define POWER_ITERS 30
#define DIVERGE_NORM 1e12
#define MAX_BACKTRACK 60
/* the unboundedness certificate (unbounded_ray) */
#define NULL_REL 1e-10
#define DESCENT_REL 1e-6
#define RAY_FAR 1e3

/* scratch doubles */
static size_t ccp_work_size(int n, int nblock) {
  (void)nblock;
  return (size_t)(n > 0 ? n : 0) * 7 * sizeof(double);
}

/* y = A x */
static void matvec(const imp_cproblem* p, const double* x, double* y) {
  for (int i = 0; i < p->n; i++) y[i] = imp_dot(p->A + (size_t)i * (size_t)p->n, x, p->n);
}

/* the largest eigenvalue of A (PSD) from below, by POWER_ITERS power steps
   from a fixed generic start; u, v: n doubles */
static double power_estimate(const imp_cproblem* p, double* u, double* v) {
  int n = p->n;
  for (int i = 0; i < n; i++) u[i] = 1.0 + 0.5 * sin(1.0 + i); /* no symmetry to hide in */
  double lam = 0;
  for (int it = 0; it < POWER_ITERS; it++) {
    double un = sqrt(imp_dot(u, u, n));
    if (!(un > 0) || !isfinite(un)) break;
    imp_scl(u, u, 1 / un, n);
    matvec(p, u, v);
    lam = fmax(lam, imp_dot(u, v, n)); /* Rayleigh quotient */
    imp_copy(u, v, n);
  }
  /* the largest diagonal is a lower bound too */
  for (int i = 0; i < n; i++) lam = fmax(lam, p->A[(size_t)i * (size_t)n + i]);
  return lam;
}

/* 1 when x (in K, A x given) certifies, to working precision, that the
   dual is unbounded below: with c = x but 0 on dry friction rows (the
   recession directions of K; header), d = c / ||c|| is a null direction of
   A relative to its scale (d'A d <= NULL_REL L), g'd < 0 strictly, and
   q(s d) = s^2/2 d'Ad + s g'd still decreases far beyond the iterate (its
   minimizer along the ray, -g'd / d'Ad, beyond RAY_FAR ||c||). Without dry
   friction c = x and this costs x'Ax and g'x only. */
static int unbounded_ray(const imp_cproblem* p, const double* x, const double* Ax, double L) {
  int n = p->n;
  double cc = 0, gc = 0, gg = 0;
  for (int k = 0; k < p->nblock; k++) {
    int dry = p->blk_type[k] == IMP_CNSTR_FRICTION;
    for (int i = p->blk_adr[k]; i < p->blk_adr[k] + p->blk_dim[k]; i++) {
      double g = p->v0[i] - p->b[i];
      gg += g * g;
      if (dry) continue; /* summed over c's rows directly: no cancellation */
      cc += x[i] * x[i];
      gc += g * x[i];
    }
  }
  if (!(cc > 0)) return 0; /* only dry friction rows are nonzero: bounded */
  /* c'A c = x'A x - 2 x_F'(A x) + x_F'A_FF x_F over the dry friction rows
     F: nF^2 more multiply-adds, no scratch */
  double cAc = imp_dot(x, Ax, n);
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] != IMP_CNSTR_FRICTION) continue;
    int i = p->blk_adr[k];
    double AFx = 0; /* (A_FF x_F)_i */
    for (int l = 0; l < p->nblock; l++)
      if (p->blk_type[l] == IMP_CNSTR_FRICTION) {
        int j = p->blk_adr[l];
        AFx += p->A[(size_t)i * (size_t)n + j] * x[j];
      }
    cAc += x[i] * (AFx - 2 * Ax[i]);
  }
  double cn = sqrt(cc), dAd = cAc / (cn * cn), gd = gc / cn;
  return dAd <= NULL_REL * L && gd < -DESCENT_REL * sqrt(gg) && dAd * RAY_FAR * cn <= -gd;
}

static int all_finite(const double* x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

static void ccp_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                      imp_csolver_stat* s, void* work) {
  int n = p->n;
  s->iterations = 0;
  s->newton = 0;
  s->residual = 0;
  s->exit = IMP_EXIT_CONVERGED;
  if (n <= 0) return;
  double* x = (double*)work; /* x_k */
  double* xold = x + n;      /* x_k-1 */
  double* y = x + 2 * n;     /* the extrapolated point */
  double* Ax = x + 3 * n;    /* A x_k */
  double* Axold = x + 4 * n; /* A x_k-1 */
  double* Ay = x + 5 * n;    /* A y, then scratch */
  double* tmp = x + 6 * n;

  if (o->warmstart && all_finite(f, n)) imp_copy(x, f, n);
  else imp_zero(x, n);
  imp_cproblem_project(p, x);

  double L = power_estimate(p, Ay, tmp);
  double scale = fmax(sqrt(imp_dot(p->v0, p->v0, n)), sqrt(imp_dot(p->b, p->b, n)));
  /* a zero A: the problem is linear; any positive L keeps the steps finite
     and an unbounded one is reported as diverged */
  if (!(L > 0) || !isfinite(L)) L = 1.0;

  matvec(p, x, Ax);
  for (int i = 0; i < n; i++) tmp[i] = Ax[i] + p->v0[i] - p->b[i]; /* w at x_0 */
  s->residual = imp_ccp_residual(p, x, tmp, Ay);
  imp_copy(f, x, n);
  if (s->residual <= o->tol) return; /* the warm start is an answer */

  imp_copy(xold, x, n);
  imp_copy(Axold, Ax, n);
  imp_copy(y, x, n);
  imp_copy(Ay, Ax, n);
  double t = 1;
  s->exit = IMP_EXIT_MAXITER;
  for (int it = 0; it < o->maxiter; it++) {
    /* x_k = P_K(y - (A y + g) / L), with backtracking on d'A d <= L d'd */
    for (int bt = 0;; bt++) {
      for (int i = 0; i < n; i++) x[i] = y[i] - (Ay[i] + p->v0[i] - p->b[i]) / L;
      imp_cproblem_project(p, x);
      matvec(p, x, Ax);
      double dAd = 0, dd = 0;
      for (int i = 0; i < n; i++) {
        double d = x[i] - y[i];
        dAd += d * (Ax[i] - Ay[i]);
        dd += d * d;
      }
      if (dAd <= L * dd * (1 + 1e-12) || bt >= MAX_BACKTRACK || !isfinite(dAd)) break;
      L *= 2;
    }
    s->iterations = it + 1;
    double xn = sqrt(imp_dot(x, x, n));
    if (!isfinite(xn) || xn > DIVERGE_NORM * fmax(scale, 1.0) * fmax(1.0, 1.0 / L)) {
      /* never hand NaN back: the last finite iterate */
      if (all_finite(x, n)) imp_copy(f, x, n);
      s->exit = IMP_EXIT_DIVERGED;
      s->residual = INFINITY;
      if (o->monitor) o->monitor(o->monitor_ctx, it, f);
      return;
    }
    if (unbounded_ray(p, x, Ax, L)) {
      imp_copy(f, x, n);
      s->exit = IMP_EXIT_DIVERGED;
      s->residual = INFINITY;
      if (o->monitor) o->monitor(o->monitor_ctx, it, f);
      return;
    }
    imp_copy(f, x, n);
    for (int i = 0; i < n; i++) tmp[i] = Ax[i] + p->v0[i] - p->b[i];
    double res = imp_ccp_residual(p, x, tmp, Ay); /* Ay is rebuilt below */
    s->residual = res;
    if (o->monitor) o->monitor(o->monitor_ctx, it, f);
    if (res <= o->tol) {
      s->exit = IMP_EXIT_CONVERGED;
      return;
    }
    /* O'Donoghue-Candes gradient restart: (y - x_k)'(x_k - x_k-1) > 0 */
    double crit = 0;
    for (int i = 0; i < n; i++) crit += (y[i] - x[i]) * (x[i] - xold[i]);
    double beta;
    if (crit > 0) {
      t = 1;
      beta = 0;
    } else {
      double tnext = 0.5 * (1 + sqrt(1 + 4 * t * t));
      beta = (t - 1) / tnext;
      t = tnext;
    }
    /* y = x + beta (x - x_old), A y by the same combination */
    for (int i = 0; i < n; i++) {
      y[i] = x[i] + beta * (x[i] - xold[i]);
      Ay[i] = Ax[i] + beta * (Ax[i] - Axold[i]);
    }
    imp_copy(xold, x, n);
    imp_copy(Axold, Ax, n);
  }
}

const imp_csolver imp_solver_ccp = {
    "ccp",
    "cone complementarity relaxation (w_N = mu ||w_T|| when sliding): accelerated "
    "projected gradient with gradient restart",
    ccp_work_size, ccp_solve, IMP_LAW_RELAXED, 2, NULL, 0};
