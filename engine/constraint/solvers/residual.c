/* The common accuracy measure of every contact solver (contact.h), and the
 * projection onto the circular friction cone the solvers share.
 *
 * The measure is the natural map of the frictional contact problem in De
 * Saxce's form (De Saxce & Feng 1998; the error of Siconos'
 * fc3d_compute_error and of the FCLIB benchmarks, with rho = 1):
 *
 *     w = A f + v0 - b                                   (the "v")
 *     e = f - P_K(f - (w + mu ||w_T|| e_N))              per contact block
 *
 * K = {||f_T|| <= mu f_N} is the circular cone. e = 0 exactly when f is in
 * K, w_hat = w + mu ||w_T|| e_N is in the dual cone and f' w_hat = 0, which
 * is Todorov 2010 eqs. (11) and (7) with maximal dissipation: on the cone's
 * boundary w_T = -s f_T, s >= 0, and inside it w_T = 0. For the other
 * blocks the same map with their own sets: unilateral rows (limits,
 * frictionless contacts) K = R+, so e = f - max(0, f - w); equality rows K =
 * R^dim, so e = w; dry friction rows with a fixed bound K = [-mu, mu], so
 * e = f - clamp(f - w), zero exactly when |f| <= mu and w = 0 inside, w
 * opposite to f on the bound (maximal dissipation in one dimension).
 *
 * The relative residual divides ||e|| by max(||v0||, ||f||, ||w||, vfloor)
 * (vfloor: the problem's optional speed floor, contact.h), with w =
 * A f + v0 - b as the issue writes v (contact.h says A f + v0: we follow the
 * issue, because w is the quantity whose complementarity e measures, and at
 * a resting contact ||w|| -> 0 while ||A f + v0|| -> ||b||, which would let
 * the stabilization target inflate the scale). All three terms are velocities
 * or impulses of the same problem, so the ratio is unchanged when f, v0 and
 * b are scaled by one factor (a change of units with A fixed). */
#include <float.h>
#include <math.h>

#include "constraint/contact.h"
#include "core/mathx.h"

/* Projection onto the circular second-order cone K = {(fn, ft): ||ft|| <= mu fn}
   in closed form (the spectral form of the second-order-cone projection,
   Fukushima, Luo & Tseng 2002, Sec. 2, applied to the cone scaled by mu).
   With t = ||ft||:
     t <= mu fn          f in K: unchanged;
     mu t <= -fn         f in the polar cone {mu ||yt|| <= -yn}: 0;
     otherwise           onto the boundary ray through ft / t:
                         fn' = (fn + mu t) / (1 + mu^2),  ft' = mu fn' ft / t.
   The last case is the foot of the perpendicular from f to the boundary ray
   (1, mu ft/t), whose direction has squared length 1 + mu^2. */
void imp_cone_project(double* f, int dim, double mu) {
  if (dim <= 0) return;
  if (dim == 1) {
    f[0] = fmax(f[0], 0.0);
    return;
  }
  if (!(mu > 0)) mu = 0; /* a negative or NaN coefficient means no friction */
  double fn = f[0];
  double t = sqrt(imp_dot(f + 1, f + 1, dim - 1));
  if (t <= mu * fn) return;
  if (mu * t <= -fn) {
    imp_zero(f, dim);
    return;
  }
  /* here t > 0: t = 0 falls in one of the two cases above */
  double fn_new = (fn + mu * t) / (1 + mu * mu);
  double scale = mu * fn_new / t;
  f[0] = fn_new;
  imp_scl(f + 1, f + 1, scale, dim - 1);
}

/* w = A f + v0 - b, the velocity relative to its target */
static void relative_velocity(const imp_cproblem* p, const double* f, double* w) {
  for (int i = 0; i < p->n; i++)
    w[i] = imp_cproblem_row_times(p, i, f) + p->v0[i] - p->b[i];
}

/* De Saxce's natural map of one friction block: e = f - P_K(f - w_hat),
   w_hat = w + mu ||w_T|| e_N */
static void friction_block_error(double* e, const double* f, const double* w, int dim,
                                 double mu) {
  double wt = sqrt(imp_dot(w + 1, w + 1, dim - 1));
  e[0] = f[0] - (w[0] + mu * wt);
  for (int k = 1; k < dim; k++) e[k] = f[k] - w[k];
  imp_cone_project(e, dim, mu);
  for (int k = 0; k < dim; k++) e[k] = f[k] - e[k];
}

/* the natural map of one block of any type, into e (dim values) */
static void block_error(double* e, const imp_cproblem* p, int blk, const double* f,
                        const double* w) {
  int dim = p->blk_dim[blk];
  int type = p->blk_type[blk];
  if (type == IMP_CNSTR_EQUALITY) {
    imp_copy(e, w, dim);
  } else if (type == IMP_CNSTR_CONTACT && dim > 1) {
    friction_block_error(e, f, w, dim, p->mu[blk]);
  } else if (type == IMP_CNSTR_FRICTION) {
    double bound = fmax(p->mu[blk], 0.0);
    e[0] = f[0] - fmin(fmax(f[0] - w[0], -bound), bound);
  } else { /* limits and frictionless contacts: each row on R+ */
    for (int k = 0; k < dim; k++) e[k] = f[k] - fmax(0.0, f[k] - w[k]);
  }
}

/* imp_cresidual from w (in work) on */
static double residual_of(const imp_cproblem* p, const double* f, double* relative, double* work) {
  int n = p->n;
  double* w = work;
  double* e = work + n;
  imp_zero(e, n); /* rows outside every block (none in a valid problem) count 0 */
  for (int blk = 0; blk < p->nblock; blk++) {
    int adr = p->blk_adr[blk];
    block_error(e + adr, p, blk, f + adr, w + adr);
  }
  double err = sqrt(imp_dot(e, e, n));
  if (relative) {
    double scale = fmax(sqrt(imp_dot(p->v0, p->v0, n)),
                        fmax(sqrt(imp_dot(f, f, n)), sqrt(imp_dot(w, w, n))));
    scale = fmax(scale, p->vfloor); /* contact.h: speeds below it are resolved */
    *relative = scale > 0 ? err / scale : err;
  }
  return err;
}

double imp_cresidual(const imp_cproblem* p, const double* f, double* relative, double* work) {
  relative_velocity(p, f, work);
  return residual_of(p, f, relative, work);
}

double imp_cresidual_at(const imp_cproblem* p, const double* f, const double* v, double* relative,
                        double* work) {
  for (int i = 0; i < p->n; i++) work[i] = v[i] - p->b[i]; /* relative_velocity's w */
  return residual_of(p, f, relative, work);
}

double imp_cproblem_row_times(const imp_cproblem* p, int i, const double* v) {
  const double* Ai = p->A + (size_t)i * (size_t)p->n;
  if (!p->A_rowadr) return imp_dot(Ai, v, p->n);
  /* each left-out term is +-0 for a finite v_j, and adding +-0 leaves a
     sum started at +0 as it was (it is never -0) */
  double sum = 0;
  for (int t = p->A_rowadr[i]; t < p->A_rowadr[i + 1]; t++) sum += Ai[p->A_col[t]] * v[p->A_col[t]];
  return sum;
}

int imp_cproblem_is_finite(const imp_cproblem* p) {
  for (int i = 0; i < p->n; i++)
    if (!isfinite(p->A[(size_t)i * (size_t)p->n + i]) || !isfinite(p->v0[i]) ||
        !isfinite(p->b[i]))
      return 0;
  for (int k = 0; k < p->nblock; k++)
    if (!isfinite(p->mu[k])) return 0;
  return 1;
}

double imp_max_abs_or_inf(const double* f, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    if (!isfinite(f[i])) return INFINITY;
    m = fmax(m, fabs(f[i]));
  }
  return m;
}

/* ---- the cone complementarity relaxation's own measure (ccp.c, primal.c) ---- */

/* the Euclidean projection onto K, block by block, in place */
void imp_cproblem_project(const imp_cproblem* p, double* f) {
  for (int k = 0; k < p->nblock; k++) {
    int adr = p->blk_adr[k], dim = p->blk_dim[k], type = p->blk_type[k];
    if (type == IMP_CNSTR_EQUALITY) continue; /* R^dim */
    if (type == IMP_CNSTR_CONTACT && dim > 1) {
      imp_cone_project(f + adr, dim, p->mu[k]);
    } else if (type == IMP_CNSTR_FRICTION) {
      double bound = fmax(p->mu[k], 0.0); /* [-F, F], as residual.c reads it */
      f[adr] = fmin(fmax(f[adr], -bound), bound);
    } else {
      for (int r = 0; r < dim; r++) f[adr + r] = fmax(f[adr + r], 0.0); /* R+ */
    }
  }
}

/* relative natural-map residual of the CCP at x with w = A x + g; tmp: n */
double imp_ccp_residual(const imp_cproblem* p, const double* x, const double* w, double* tmp) {
  int n = p->n;
  for (int i = 0; i < n; i++) tmp[i] = x[i] - w[i];
  imp_cproblem_project(p, tmp);
  double e2 = 0;
  for (int i = 0; i < n; i++) e2 += (x[i] - tmp[i]) * (x[i] - tmp[i]);
  double scale = fmax(sqrt(imp_dot(p->v0, p->v0, n)),
                      fmax(sqrt(imp_dot(x, x, n)), sqrt(imp_dot(w, w, n))));
  return sqrt(e2) / fmax(scale, DBL_MIN);
}
