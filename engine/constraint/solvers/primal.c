/* The cone complementarity problem solved on its primal, in joint space,
 * by a primal-dual interior-point method.
 *
 * ---- The problem (../shared/papers/ccp-dual-and-primal-convex-formulations.txt) ----
 * The paper's "Optimization on the primal": the velocities of the CCP's
 * answer minimize the kinetic-energy distance to the free motion,
 *
 *     min 1/2 |v - v^f|_M^2   subject to   J v - ĉ in K*,
 *
 * whose dual is the CCP dual that ccp.c solves (ccp.c's header: f in K,
 * w = A f + g in K*, f'w = 0, g = v0 - b). Here the island's A is factored
 * by its dofs, A = G G' (G n x r: the stage's R U W^1/2 when the island has
 * at most n dofs, else a pivoted Cholesky of A, whose rank is at most n),
 * and x in R^r is the velocity change in the metric of M made Euclidean
 * (x = G'f at the answer: for A = J M^-1 J', x = L'(v - v^f) with M = L L').
 * Then w = G x + g, and per block:
 *  - equality rows:   G_E x + g_E = 0            (multiplier -f_E)
 *  - R+ rows (limits, frictionless contacts, the normal of a contact with
 *    mu = 0, whose friction rows then carry no impulse):  w >= 0
 *  - friction contacts: mu ||w_T|| <= w_N, i.e. S w in the standard
 *    second-order cone Q (S = diag(1, mu, .., mu)); its multiplier
 *    lambda in Q gives f = S lambda, in K = {||f_T|| <= mu f_N}
 *  - dry friction rows with bound F: the primal pays F |w| (the support
 *    function of [-F, F]); written with one more variable t >= |w| as
 *    t - w >= 0 and t + w >= 0 with cost F t, their multipliers a, c >= 0
 *    sum to F and f = c - a lies in [-F, F].
 * The whole is a conic quadratic program in z = (x, t),
 *     min 1/2 x'x + F't   s.t.   Gc z + s = h, s in C,   Ae z = be,
 * with C a product of R+'s and Q's; its KKT conditions are the CCP's, so
 * this solver answers the same relaxed law as ccp.c (IMP_LAW_RELAXED).
 *
 * ---- The method ----
 * Mehrotra's predictor-corrector path following with Nesterov-Todd scaling,
 * as in Vandenberghe's CVXOPT cone solvers ("The CVXOPT linear and
 * quadratic cone program solvers", 2010, Sections 5-8; written here from
 * those equations): residuals rx = Pz + q + Gc'lambda + Ae'y, ry = Ae z -
 * be, rz = Gc z + s - h; scaling W per cone with W lambda = W^-1 s =: l;
 * the Newton system with the complementarity linearized as
 * l o (W dlambda + W^-1 ds) = rc, solved by eliminating ds and dlambda:
 *     (P + Gh'Gh) dz + Ae'dy = -rx - Gh'(W^-1 rz + l o\ rc),  Gh = W^-1 Gc,
 * and the equalities through the Schur complement Ae H^-1 Ae' (a tiny
 * diagonal shift keeps it factorable when equality rows are redundant).
 * On a cone Q the scaling is W = beta (2 v v' - J), J = diag(1, -1, ..),
 * v'Jv = 1 (CVXOPT, Sec. 5.2). An iteration costs O(m nz^2) for Gh'Gh plus
 * nz^3/3 and neq^2 nz for the factors (m cone rows, nz = r + dry friction
 * rows, neq equality rows): with r the island's dofs, O(n r^2) where a
 * gripper presses many pads on few dofs.
 *
 * ---- Stopping ----
 * The CCP's natural map at f (f read off the multipliers), ccp.c's measure,
 * at o->tol, with the same map relative to the velocities alone at most
 * sqrt(o->tol), so that the growing impulses of an infeasible problem do
 * not pass for an answer (ranked_residual). Interior
 * iterates approach that measure like the square root of the duality gap
 * on contacts with f = 0 and w = 0 together, so a degenerate problem can
 * stall at rounding before it: the solver stops when an iterate leaves the
 * cones' interior to rounding or a factor fails, returns its best f and
 * says IMP_EXIT_STALLED. An iterate that grows beyond DIVERGE_NORM times
 * the problem's scale (an infeasible primal: the dual is unbounded, as
 * ccp.c's header explains) ends with IMP_EXIT_DIVERGED.
 *
 * A warm start sets the multipliers (f mapped into the cones' interior) and
 * x = G'f. Scratch: work_size below (about 13 n^2 doubles: this solver is a
 * reference, not the default). */
#include <float.h>
#include <math.h>

#include "constraint/contact.h"
#include "core/mathx.h"

#define DIVERGE_NORM 1e12
#define STEP_FRACTION 0.95
/* pivots of A's Cholesky below this fraction of its largest diagonal end the
   factor: the directions left have no mobility */
#define PIVOT_REL 1e-13
/* the shift of the equalities' Schur complement, relative to its mean pivot */
#define SCHUR_SHIFT 1e-14
#define CONE_MAXDIM 6

enum { CONE_LIN = 0, CONE_SOC = 1, CONE_DRY_LO = 2, CONE_DRY_HI = 3 };

typedef struct cone {
  int kind;  /* CONE_* */
  int off;   /* first slot in s, lambda */
  int dim;   /* slots */
  int row;   /* first problem row */
  int t;     /* dry friction: the index of its t in z (r + k) */
  int woff;  /* offset of its scaling matrices in W, Wi */
  double mu; /* SOC: the cone coefficient */
} cone;

typedef struct ipm {
  const imp_cproblem* p;
  int n, r, nz, m, ncone, neq, deg;
  double *G;          /* n x r, row-major */
  cone* cones;        /* ncone */
  int* erow;          /* neq: the equality rows */
  double *W, *Wi;     /* packed scaling matrices, dim x dim per cone */
  double *Gh, *H, *Z, *SE;
  double* q;          /* the cost of z: 0 on x, F on each t */
} ipm;

static size_t round16(size_t b) { return (b + 15) & ~(size_t)15; }

static size_t primal_work_size(int n, int nblock) {
  (void)nblock;
  size_t N = (size_t)(n > 0 ? n : 0);
  size_t m = 2 * N, nz = 2 * N;
  size_t d = N * N            /* G */
             + m * nz         /* Gh */
             + nz * nz        /* H */
             + nz * N         /* Z */
             + N * N          /* SE */
             + 2 * 6 * m      /* W, Wi: sum of dim^2 <= 6 m */
             + CONE_MAXDIM * nz /* one cone's rows of Gc */
             + 24 * m + 10 * N + 8 * nz; /* vectors */
  return round16(d * sizeof(double)) + round16(m * sizeof(cone)) + round16(N * sizeof(int)) +
         64;
}

/* ---- A = G G' ---- */

/* G from the stage's factor: G_il = R_i U_il sqrt(W_l) */
static int factor_from_u(const imp_cproblem* p, double* G) {
  int n = p->n, r = p->rank;
  for (int i = 0; i < n; i++)
    for (int l = 0; l < r; l++)
      G[(size_t)i * r + l] = p->U_rowscale[i] * p->U[(size_t)l * p->U_ld + i] *
                             sqrt(fmax(p->U_colweight[l], 0.0));
  return r;
}

/* Pivoted Cholesky A = P G G' P' (outer products, the largest remaining
   diagonal first), stopped when the pivots left are below PIVOT_REL of the
   largest diagonal: G n x r with r <= n (G needs n x n doubles while it is
   built). dg: n doubles, used: n ints. */
static int factor_by_cholesky(const imp_cproblem* p, double* G, double* dg, int* used) {
  int n = p->n;
  double dmax = 0;
  for (int i = 0; i < n; i++) {
    dg[i] = p->A[(size_t)i * n + i];
    dmax = fmax(dmax, dg[i]);
    used[i] = 0;
  }
  /* G is written column by column into an n x n row-major array with
     stride n, then compacted to stride r */
  int r = 0;
  while (r < n) {
    int k = -1;
    for (int i = 0; i < n; i++)
      if (!used[i] && (k < 0 || dg[i] > dg[k])) k = i;
    if (k < 0 || !(dg[k] > PIVOT_REL * dmax)) break;
    used[k] = 1;
    double piv = sqrt(dg[k]);
    /* rows pivoted earlier have an exactly zero row in the remaining
       Schur complement: their entry is 0 (the factor is triangular up to
       the permutation) */
    for (int i = 0; i < n; i++) {
      double a = 0;
      if (i == k) a = piv;
      else if (!used[i]) {
        a = p->A[(size_t)i * n + k];
        for (int l = 0; l < r; l++) a -= G[(size_t)i * n + l] * G[(size_t)k * n + l];
        a /= piv;
      }
      G[(size_t)i * n + r] = a;
    }
    for (int i = 0; i < n; i++)
      if (!used[i]) dg[i] -= G[(size_t)i * n + r] * G[(size_t)i * n + r];
    r++;
  }
  for (int i = 0; i < n; i++)
    for (int l = 0; l < r; l++) G[(size_t)i * r + l] = G[(size_t)i * n + l];
  return r;
}

/* ---- the cones ---- */

static void add_cone(ipm* s, int kind, int dim, int row, int t, double mu, int* woff) {
  cone* c = &s->cones[s->ncone++];
  c->kind = kind;
  c->off = s->m;
  c->dim = dim;
  c->row = row;
  c->t = t;
  c->mu = mu;
  c->woff = *woff;
  *woff += dim * dim;
  s->m += dim;
}

/* the cones of the problem's blocks (header), the equality rows, and the
   cost q of z = (x, t) */
static void build_cones(ipm* s) {
  const imp_cproblem* p = s->p;
  int woff = 0, nf = 0;
  s->m = s->ncone = s->neq = 0;
  for (int k = 0; k < p->nblock; k++) {
    int adr = p->blk_adr[k], dim = p->blk_dim[k], type = p->blk_type[k];
    if (type == IMP_CNSTR_EQUALITY) {
      for (int i = 0; i < dim; i++) s->erow[s->neq++] = adr + i;
    } else if (type == IMP_CNSTR_CONTACT && dim > 1) {
      if (p->mu[k] > 0) add_cone(s, CONE_SOC, dim, adr, -1, p->mu[k], &woff);
      else add_cone(s, CONE_LIN, 1, adr, -1, 0, &woff); /* f_T = 0 */
    } else if (type == IMP_CNSTR_FRICTION) {
      double F = fmax(p->mu[k], 0.0);
      if (F > 0) {
        int t = s->r + nf;
        s->q[t] = F;
        nf++;
        add_cone(s, CONE_DRY_LO, 1, adr, t, 0, &woff);
        add_cone(s, CONE_DRY_HI, 1, adr, t, 0, &woff);
      }
    } else {
      for (int i = 0; i < dim; i++) add_cone(s, CONE_LIN, 1, adr + i, -1, 0, &woff);
    }
  }
  s->nz = s->r + nf;
  for (int j = 0; j < s->r; j++) s->q[j] = 0;
  s->deg = s->ncone;
}

/* the factor of G's row in slot a of cone c's row of Gc (cone_rows) */
static double row_coef(const cone* c, int a) {
  return (c->kind == CONE_DRY_LO ? 1.0 : -1.0) * (c->kind == CONE_SOC && a > 0 ? c->mu : 1.0);
}

/* the rows of Gc and h of cone c (header: s = h - Gc z): out dim x nz */
static void cone_rows(const ipm* s, const cone* c, double* out, double* h) {
  const double* g0 = s->p->v0;
  const double* b = s->p->b;
  int r = s->r, nz = s->nz;
  for (int a = 0; a < c->dim; a++) {
    int i = c->row + a;
    double coef = row_coef(c, a);
    double* o = out + (size_t)a * nz;
    for (int j = 0; j < nz; j++) o[j] = 0;
    for (int l = 0; l < r; l++) o[l] = coef * s->G[(size_t)i * r + l];
    if (c->t >= 0) o[c->t] = -1.0;
    if (h) h[a] = -coef * (g0[i] - b[i]);
  }
}

/* f from the multipliers (header) */
static void multipliers_to_f(const ipm* s, const double* lam, const double* y, double* f) {
  imp_zero(f, s->n);
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    const double* l = lam + c->off;
    if (c->kind == CONE_LIN) f[c->row] = l[0];
    else if (c->kind == CONE_SOC) {
      f[c->row] = l[0];
      for (int a = 1; a < c->dim; a++) f[c->row + a] = c->mu * l[a];
    } else f[c->row] += c->kind == CONE_DRY_HI ? l[0] : -l[0];
  }
  for (int e = 0; e < s->neq; e++) f[s->erow[e]] = -y[e];
  /* a + c = F holds only at the answer: an iterate's f may leave [-F, F]
     by the dual residual; the cones' multipliers are interior already */
  imp_cproblem_project(s->p, f);
}

/* the multipliers of f (the inverse map; dry friction splits f in [-F, F]
   as (F - f)/2, (F + f)/2) */
static void f_to_multipliers(const ipm* s, const double* f, double* lam, double* y) {
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    double* l = lam + c->off;
    if (c->kind == CONE_LIN) l[0] = f[c->row];
    else if (c->kind == CONE_SOC) {
      l[0] = f[c->row];
      for (int a = 1; a < c->dim; a++) l[a] = f[c->row + a] / c->mu;
    } else {
      double F = s->q[c->t], fi = fmin(fmax(f[c->row], -F), F);
      l[0] = 0.5 * (c->kind == CONE_DRY_HI ? F + fi : F - fi);
    }
  }
  for (int e = 0; e < s->neq; e++) y[e] = -f[s->erow[e]];
}

/* ---- Jordan algebra of the cones (CVXOPT, Sec. 5) ---- */

/* the smallest eigenvalue of u over all cones: u0 - ||u1|| on Q */
static double min_eig(const ipm* s, const double* u) {
  double e = INFINITY;
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    const double* v = u + c->off;
    double t = 0;
    for (int a = 1; a < c->dim; a++) t += v[a] * v[a];
    e = fmin(e, v[0] - sqrt(t));
  }
  return e;
}

/* u += alpha e (e the identity of the cones) */
static void add_identity(const ipm* s, double* u, double alpha) {
  for (int k = 0; k < s->ncone; k++) u[s->cones[k].off] += alpha;
}

/* out = u o v */
static void jordan_mul(const ipm* s, const double* u, const double* v, double* out) {
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    int o = c->off, d = c->dim;
    out[o] = imp_dot(u + o, v + o, d);
    for (int a = 1; a < d; a++) out[o + a] = u[o] * v[o + a] + v[o] * u[o + a];
  }
}

/* out solves l o out = rhs (l interior) */
static void jordan_div(const ipm* s, const double* l, const double* rhs, double* out) {
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    int o = c->off, d = c->dim;
    double l1r1 = 0, l1l1 = 0;
    for (int a = 1; a < d; a++) {
      l1r1 += l[o + a] * rhs[o + a];
      l1l1 += l[o + a] * l[o + a];
    }
    double u0 = (l[o] * rhs[o] - l1r1) / ((l[o] - sqrt(l1l1)) * (l[o] + sqrt(l1l1)));
    out[o] = u0;
    for (int a = 1; a < d; a++) out[o + a] = (rhs[o + a] - u0 * l[o + a]) / l[o];
  }
}

/* the largest alpha with u + alpha du in the cones (INFINITY when every
   alpha is) */
static double max_step(const ipm* s, const double* u, const double* du) {
  double amax = INFINITY;
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    int o = c->off, d = c->dim;
    double u0 = u[o], d0 = du[o];
    if (d0 < 0) amax = fmin(amax, -u0 / d0);
    if (d == 1) continue;
    /* (u0 + a d0)^2 - ||u1 + a d1||^2 >= 0: qa a^2 + qb a + qc */
    double qa = d0 * d0, qb = u0 * d0, uu = 0;
    for (int a = 1; a < d; a++) {
      qa -= du[o + a] * du[o + a];
      qb -= u[o + a] * du[o + a];
      uu += u[o + a] * u[o + a];
    }
    double qc = (u0 - sqrt(uu)) * (u0 + sqrt(uu));
    qb *= 2;
    double disc = qb * qb - 4 * qa * qc;
    if (fabs(qa) > 0 && disc >= 0) {
      double qq = -0.5 * (qb + copysign(sqrt(disc), qb));
      double r1 = qq / qa, r2 = qq != 0 ? qc / qq : INFINITY;
      if (r1 > 0) amax = fmin(amax, r1);
      if (r2 > 0) amax = fmin(amax, r2);
    } else if (qa == 0 && qb < 0) {
      amax = fmin(amax, -qc / qb);
    }
  }
  return amax;
}

/* Nesterov-Todd scaling of s, lambda (CVXOPT, Sec. 5.2): W and W^-1 per
   cone, and l = W lambda. 0 when a pair is not interior to rounding. */
static int nt_scaling(ipm* st, const double* s, const double* lam, double* l) {
  for (int k = 0; k < st->ncone; k++) {
    const cone* c = &st->cones[k];
    int o = c->off, d = c->dim;
    double* W = st->W + c->woff;
    double* Wi = st->Wi + c->woff;
    if (d == 1) {
      if (!(s[o] > 0) || !(lam[o] > 0)) return 0;
      W[0] = sqrt(s[o] / lam[o]);
      Wi[0] = 1 / W[0];
      l[o] = sqrt(s[o] * lam[o]);
      continue;
    }
    double ss = 0, ll = 0;
    for (int a = 1; a < d; a++) {
      ss += s[o + a] * s[o + a];
      ll += lam[o + a] * lam[o + a];
    }
    double sJs = (s[o] - sqrt(ss)) * (s[o] + sqrt(ss));
    double lJl = (lam[o] - sqrt(ll)) * (lam[o] + sqrt(ll));
    if (!(sJs > 0) || !(lJl > 0) || !(s[o] > 0) || !(lam[o] > 0)) return 0;
    double sn = sqrt(sJs), ln = sqrt(lJl);
    double sb[CONE_MAXDIM], lb[CONE_MAXDIM], v[CONE_MAXDIM];
    double sl = 0;
    for (int a = 0; a < d; a++) {
      sb[a] = s[o + a] / sn;
      lb[a] = lam[o + a] / ln;
      sl += sb[a] * lb[a];
    }
    double gam = sqrt(0.5 * (1 + sl));
    /* wbar = (sbar + J lbar) / (2 gamma), v = (wbar + e) / sqrt(2 (wbar0 + 1)) */
    double wb0 = (sb[0] + lb[0]) / (2 * gam);
    double nv = sqrt(2 * (wb0 + 1));
    v[0] = (wb0 + 1) / nv;
    for (int a = 1; a < d; a++) v[a] = (sb[a] - lb[a]) / (2 * gam) / nv;
    double beta = sqrt(sn / ln);
    /* W = beta (2 v v' - J), W^-1 = (2 J v v' J - J) / beta */
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) {
        double J = a == b ? (a == 0 ? 1.0 : -1.0) : 0.0;
        double Jv = (a == 0) == (b == 0) ? 1.0 : -1.0; /* (Jv)_a (Jv)_b / (v_a v_b) */
        W[a * d + b] = beta * (2 * v[a] * v[b] - J);
        Wi[a * d + b] = (2 * Jv * v[a] * v[b] - J) / beta;
      }
    for (int a = 0; a < d; a++) l[o + a] = imp_dot(W + a * d, lam + o, d);
  }
  return 1;
}

/* out = M u per cone, M = W or Wi (symmetric) */
static void scale_apply(const ipm* s, const double* M, const double* u, double* out) {
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    int o = c->off, d = c->dim;
    for (int a = 0; a < d; a++) out[o + a] = imp_dot(M + c->woff + a * d, u + o, d);
  }
}

/* ---- the Newton system ---- */

/* lower Cholesky in place (row-major n x n); 0 when not positive definite */
static int cholesky(double* a, int n) {
  for (int j = 0; j < n; j++) {
    double d = a[(size_t)j * n + j] - imp_dot(a + (size_t)j * n, a + (size_t)j * n, j);
    if (!(d > 0) || !isfinite(d)) return 0;
    d = sqrt(d);
    a[(size_t)j * n + j] = d;
    for (int i = j + 1; i < n; i++)
      a[(size_t)i * n + j] =
          (a[(size_t)i * n + j] - imp_dot(a + (size_t)i * n, a + (size_t)j * n, j)) / d;
  }
  return 1;
}

/* b <- L^-1 b, then (when both) L'^-1 b */
static void forward(const double* L, int n, double* b) {
  for (int i = 0; i < n; i++) b[i] = (b[i] - imp_dot(L + (size_t)i * n, b, i)) / L[(size_t)i * n + i];
}
static void backward(const double* L, int n, double* b) {
  for (int i = n - 1; i >= 0; i--) {
    double a = b[i];
    for (int j = i + 1; j < n; j++) a -= L[(size_t)j * n + i] * b[j];
    b[i] = a / L[(size_t)i * n + i];
  }
}

/* Gh = W^-1 Gc, H = P + Gh'Gh and its factor, and the equalities' Schur
   complement's: 0 when a factor fails. tmp: CONE_MAXDIM nz doubles. */
static int factor_newton(ipm* s, double* tmp) {
  int nz = s->nz, r = s->r;
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    cone_rows(s, c, tmp, NULL);
    for (int a = 0; a < c->dim; a++) {
      double* out = s->Gh + (size_t)(c->off + a) * nz;
      const double* Wr = s->Wi + c->woff + a * c->dim;
      for (int j = 0; j < nz; j++) {
        double v = 0;
        for (int b = 0; b < c->dim; b++) v += Wr[b] * tmp[(size_t)b * nz + j];
        out[j] = v;
      }
    }
  }
  for (int i = 0; i < nz; i++)
    for (int j = 0; j <= i; j++) {
      double v = i == j && i < r ? 1.0 : 0.0;
      for (int a = 0; a < s->m; a++) v += s->Gh[(size_t)a * nz + i] * s->Gh[(size_t)a * nz + j];
      s->H[(size_t)i * nz + j] = v;
    }
  if (!cholesky(s->H, nz)) return 0;
  if (s->neq == 0) return 1;
  double trace = 0;
  for (int e = 0; e < s->neq; e++) {
    double* z = s->Z + (size_t)e * nz;
    for (int j = 0; j < nz; j++) z[j] = j < r ? s->G[(size_t)s->erow[e] * r + j] : 0.0;
    forward(s->H, nz, z);
  }
  for (int a = 0; a < s->neq; a++)
    for (int b = 0; b <= a; b++) {
      double v = imp_dot(s->Z + (size_t)a * nz, s->Z + (size_t)b * nz, nz);
      s->SE[(size_t)a * s->neq + b] = v;
      if (a == b) trace += v;
    }
  double shift = SCHUR_SHIFT * fmax(trace / s->neq, DBL_MIN);
  for (int a = 0; a < s->neq; a++) s->SE[(size_t)a * s->neq + a] += shift;
  return cholesky(s->SE, s->neq);
}

/* [H Ae'; Ae 0] (dz, dy) = (bx, by); bx is overwritten. tmp: nz doubles */
static void solve_kkt(const ipm* s, double* bx, const double* by, double* dz, double* dy,
                      double* tmp) {
  int nz = s->nz, r = s->r;
  if (s->neq > 0) {
    imp_copy(tmp, bx, nz);
    forward(s->H, nz, tmp);
    backward(s->H, nz, tmp); /* H^-1 bx */
    for (int e = 0; e < s->neq; e++)
      dy[e] = imp_dot(s->G + (size_t)s->erow[e] * r, tmp, r) - by[e];
    forward(s->SE, s->neq, dy);
    backward(s->SE, s->neq, dy);
    for (int e = 0; e < s->neq; e++)
      imp_sub_scaled(bx, s->G + (size_t)s->erow[e] * r, dy[e], r);
  }
  imp_copy(dz, bx, nz);
  forward(s->H, nz, dz);
  backward(s->H, nz, dz);
}

/* out = Gc z (m) */
static void gc_mul(const ipm* s, const double* z, double* out) {
  int r = s->r;
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    for (int a = 0; a < c->dim; a++) {
      double v = row_coef(c, a) * imp_dot(s->G + (size_t)(c->row + a) * r, z, r);
      out[c->off + a] = c->t >= 0 ? v - z[c->t] : v;
    }
  }
}

/* out += Gc' lam (nz) */
static void gct_mul_add(const ipm* s, const double* lam, double* out) {
  int r = s->r;
  for (int k = 0; k < s->ncone; k++) {
    const cone* c = &s->cones[k];
    for (int a = 0; a < c->dim; a++) {
      double la = lam[c->off + a];
      imp_sub_scaled(out, s->G + (size_t)(c->row + a) * r, -row_coef(c, a) * la, r);
      if (c->t >= 0) out[c->t] -= la;
    }
  }
}

/* out = Gh' u (nz) */
static void ght_mul(const ipm* s, const double* u, double* out) {
  imp_zero(out, s->nz);
  for (int a = 0; a < s->m; a++) imp_sub_scaled(out, s->Gh + (size_t)a * s->nz, -u[a], s->nz);
}

typedef struct newton_buf {
  double *u, *bz, *bx, *mby, *tmpz;
} newton_buf;

/* one Newton direction for the complementarity target rc (header): dz,
   dy, dl (lambda), ds, and dlt = W dl, u = l o\ rc for the corrector */
static void newton_step(const ipm* s, const double* l, const double* rc, const double* rx,
                        const double* ry, const double* rz, double* dz, double* dy, double* dl,
                        double* ds, double* dlt, newton_buf* nb) {
  int m = s->m, nz = s->nz;
  jordan_div(s, l, rc, nb->u);
  scale_apply(s, s->Wi, rz, nb->bz);
  for (int a = 0; a < m; a++) nb->bz[a] += nb->u[a];
  ght_mul(s, nb->bz, nb->bx);
  for (int j = 0; j < nz; j++) nb->bx[j] = -rx[j] - nb->bx[j];
  for (int e = 0; e < s->neq; e++) nb->mby[e] = -ry[e];
  solve_kkt(s, nb->bx, nb->mby, dz, dy, nb->tmpz);
  for (int a = 0; a < m; a++) dlt[a] = imp_dot(s->Gh + (size_t)a * nz, dz, nz) + nb->bz[a];
  scale_apply(s, s->Wi, dlt, dl);
  for (int a = 0; a < m; a++) ds[a] = nb->u[a] - dlt[a];
  scale_apply(s, s->W, ds, nb->bz); /* bz is free now */
  imp_copy(ds, nb->bz, m);
}

/* the vectors of one path */
typedef struct ipm_vec {
  double *dz, *rx, *l, *rz, *h, *rc, *dl, *ds, *dlt, *ua, *dlta, *dy, *ry, *rows;
  newton_buf nb;
} ipm_vec;

/* One predictor-corrector step from (z, y, lambda, s) (header):
   IMP_EXIT_MAXITER when it moved, IMP_EXIT_STALLED when the scaling or a
   factor failed at rounding (nothing moved), IMP_EXIT_DIVERGED when the
   iterate left DIVERGE_NORM times the problem's scale. */
static int ipm_iteration(ipm* s, ipm_vec* v, double* sv, double* lam, double* y, double* z,
                         double scale) {
  const imp_cproblem* p = s->p;
  int r = s->r, nz = s->nz, m = s->m;
  /* residuals of the KKT conditions */
  for (int j = 0; j < r; j++) v->rx[j] = z[j];
  for (int j = r; j < nz; j++) v->rx[j] = s->q[j];
  gct_mul_add(s, lam, v->rx);
  for (int e = 0; e < s->neq; e++) {
    int i = s->erow[e];
    imp_sub_scaled(v->rx, s->G + (size_t)i * r, -y[e], r);
    v->ry[e] = imp_dot(s->G + (size_t)i * r, z, r) + p->v0[i] - p->b[i];
  }
  gc_mul(s, z, v->rz);
  for (int a = 0; a < m; a++) v->rz[a] += sv[a] - v->h[a];
  if (!nt_scaling(s, sv, lam, v->l) || !factor_newton(s, v->rows)) return IMP_EXIT_STALLED;
  double mu = imp_dot(sv, lam, m) / fmax(s->deg, 1);
  /* predictor: rc = -l o l */
  jordan_mul(s, v->l, v->l, v->rc);
  for (int a = 0; a < m; a++) v->rc[a] = -v->rc[a];
  newton_step(s, v->l, v->rc, v->rx, v->ry, v->rz, v->dz, v->dy, v->dl, v->ds, v->dlta, &v->nb);
  imp_copy(v->ua, v->nb.u, m);
  double aa = fmin(1.0, fmin(max_step(s, sv, v->ds), max_step(s, lam, v->dl)));
  double sigma = (1 - aa) * (1 - aa) * (1 - aa);
  /* corrector: rc = -l o l + sigma mu e - (W^-1 ds_a) o (W dl_a) */
  for (int a = 0; a < m; a++) v->ua[a] -= v->dlta[a]; /* W^-1 ds_a */
  jordan_mul(s, v->ua, v->dlta, v->rc);
  jordan_mul(s, v->l, v->l, v->ua);
  for (int a = 0; a < m; a++) v->rc[a] = -v->ua[a] - v->rc[a];
  add_identity(s, v->rc, sigma * mu);
  newton_step(s, v->l, v->rc, v->rx, v->ry, v->rz, v->dz, v->dy, v->dl, v->ds, v->dlt, &v->nb);
  double alpha = fmin(1.0, STEP_FRACTION * fmin(max_step(s, sv, v->ds), max_step(s, lam, v->dl)));
  if (!(alpha > 0)) return IMP_EXIT_STALLED;
  imp_sub_scaled(z, v->dz, -alpha, nz);
  imp_sub_scaled(y, v->dy, -alpha, s->neq);
  imp_sub_scaled(lam, v->dl, -alpha, m);
  imp_sub_scaled(sv, v->ds, -alpha, m);
  double big = fmax(imp_max_abs_or_inf(z, nz), imp_max_abs_or_inf(lam, m));
  return big <= DIVERGE_NORM * scale ? IMP_EXIT_MAXITER : IMP_EXIT_DIVERGED;
}

/* ---- the solver ---- */

static double* take(char** at, size_t count) {
  double* d = (double*)*at;
  *at += round16(count * sizeof(double));
  return d;
}

/* w = A f + v0 - b */
static void velocity(const imp_cproblem* p, const double* f, double* w) {
  for (int i = 0; i < p->n; i++)
    w[i] = imp_dot(p->A + (size_t)i * (size_t)p->n, f, p->n) + p->v0[i] - p->b[i];
}

/* The stopping measure: the CCP's natural map (imp_ccp_residual, ccp.c's
   measure, relative to max(||v0||, ||f||, ||w||)), returned in *res, and
   the key by which iterates are ranked: *res where the same map relative
   to the velocities alone, max(||v0||, ||w||, vfloor), is at most
   sqrt(tol), else 10 plus that. Each entry of the map is at most the
   velocity it complements (on R+ it is min(f, w) when both are positive;
   on an equality, w), so an answer's map is small against its velocities;
   but on an infeasible problem the iterates' impulses grow without bound
   and the first measure alone calls them converged: on an arm whose link
   is sunk into its base against a joint limit (test_violations.c) an
   iterate with impulses of 1e11 left 26 rad/s on the limit row and
   measured 1.5e-10. The second test alone, as the stopping test, left
   well-posed problems with impulses far above their velocities stalling
   at rounding before it. tmp: n. */
static double ranked_residual(const imp_cproblem* p, const double* f, const double* w,
                              double tol, double* tmp, double* res) {
  int n = p->n;
  double v0n = sqrt(imp_dot(p->v0, p->v0, n)), wn = sqrt(imp_dot(w, w, n));
  double full = fmax(fmax(fmax(v0n, sqrt(imp_dot(f, f, n))), wn), DBL_MIN);
  *res = imp_ccp_residual(p, f, w, tmp);
  double vrel = *res * full / fmax(fmax(fmax(v0n, wn), p->vfloor), DBL_MIN);
  return vrel <= sqrt(tol) ? *res : 10 + vrel;
}

/* s, lambda moved into the cones' interior as CVXOPT starts: u += (1 + a) e
   when its smallest eigenvalue -a is not positive */
static void into_interior(const ipm* s, double* u) {
  double a = -min_eig(s, u);
  if (a >= 0) add_identity(s, u, 1 + a);
}

static void primal_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                         imp_csolver_stat* st, void* work) {
  int n = p->n;
  st->iterations = 0;
  st->newton = 0;
  st->residual = 0;
  st->exit = IMP_EXIT_CONVERGED;
  if (n <= 0) return;
  if (!imp_cproblem_is_finite(p)) {
    imp_zero(f, n);
    st->exit = IMP_EXIT_FAILED;
    st->residual = INFINITY;
    return;
  }
  size_t N = (size_t)n, M = 2 * N, NZ = 2 * N;
  char* at = (char*)work;
  ipm s = {0};
  s.p = p;
  s.n = n;
  s.G = take(&at, N * N);
  s.Gh = take(&at, M * NZ);
  s.H = take(&at, NZ * NZ);
  s.Z = take(&at, NZ * N);
  s.SE = take(&at, N * N);
  s.W = take(&at, 6 * M);
  s.Wi = take(&at, 6 * M);
  double* rows = take(&at, CONE_MAXDIM * NZ);
  s.q = take(&at, NZ);
  ipm_vec v;
  v.rows = rows;
  double* z = take(&at, NZ);
  v.dz = take(&at, NZ);
  v.rx = take(&at, NZ);
  v.nb.bx = take(&at, NZ);
  v.nb.tmpz = take(&at, NZ);
  double *sv = take(&at, M), *lam = take(&at, M);
  v.l = take(&at, M);
  v.rz = take(&at, M);
  double* h = take(&at, M);
  v.h = h;
  v.rc = take(&at, M);
  v.dl = take(&at, M);
  v.ds = take(&at, M);
  v.dlt = take(&at, M);
  v.ua = take(&at, M);
  v.dlta = take(&at, M);
  v.nb.u = take(&at, M);
  v.nb.bz = take(&at, M);
  double* y = take(&at, N);
  v.dy = take(&at, N);
  v.ry = take(&at, N);
  double *fc = take(&at, N), *w = take(&at, N), *tmp = take(&at, N), *dg = take(&at, N);
  double *fs = take(&at, N), *ws = take(&at, N);
  v.nb.mby = take(&at, N);
  s.cones = (cone*)at;
  at += round16(M * sizeof(cone));
  s.erow = (int*)at;

  /* A = G G' */
  if (p->U && p->rank > 0 && p->rank <= n) s.r = factor_from_u(p, s.G);
  else s.r = factor_by_cholesky(p, s.G, dg, s.erow); /* erow is free until build_cones */
  build_cones(&s);
  int r = s.r, nz = s.nz, m = s.m;
  for (int k = 0; k < s.ncone; k++) cone_rows(&s, &s.cones[k], rows, h + s.cones[k].off);

  double scale = fmax(fmax(sqrt(imp_dot(p->v0, p->v0, n)), sqrt(imp_dot(p->b, p->b, n))), 1.0);
  double best = INFINITY, best_res = INFINITY, res = INFINITY; /* best: ranked_residual's key */
  int warm = 0;
  if (o->warmstart) {
    imp_copy(fc, f, n);
    imp_cproblem_project(p, fc);
    warm = 1;
    for (int i = 0; i < n; i++) warm &= isfinite(fc[i]) != 0;
    if (warm) {
      /* a warm start that answers already takes no iteration */
      velocity(p, fc, w);
      best = ranked_residual(p, fc, w, o->tol, tmp, &res);
      imp_copy(f, fc, n);
      if (best <= o->tol) {
        st->residual = res;
        return;
      }
      best_res = res;
    }
  }
  /* one path from the warm start, and when it stalls one more from 0: the
     shift into the cones' interior can leave a warm start badly centred */
  int done = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    int from_warm = warm && attempt == 0;
    /* the starting point: the warm start's multipliers and x = G'f, or 0 */
    imp_zero(z, nz);
    imp_zero(lam, m);
    imp_zero(y, s.neq);
    if (from_warm) {
      f_to_multipliers(&s, fc, lam, y);
      for (int i = 0; i < n; i++) imp_sub_scaled(z, s.G + (size_t)i * r, -fc[i], r);
      for (int k = 0; k < s.ncone; k++)
        if (s.cones[k].t >= 0) z[s.cones[k].t] = fabs(w[s.cones[k].row]);
    }
    gc_mul(&s, z, sv);
    for (int a = 0; a < m; a++) sv[a] = h[a] - sv[a];
    into_interior(&s, sv);
    into_interior(&s, lam);
    st->exit = IMP_EXIT_MAXITER;
    for (int it = 0;; it++) {
      multipliers_to_f(&s, lam, y, fc);
      velocity(p, fc, w);
      double key = ranked_residual(p, fc, w, o->tol, tmp, &res);
      /* the iterate snapped onto its faces, P_K(f - w): an interior iterate
         keeps every multiplier off its bound by about gap / slack; one
         projection puts a sliding dry friction row on its bound and a
         separating row at 0 exactly (header). Kept when it ranks better. */
      for (int i = 0; i < n; i++) fs[i] = fc[i] - w[i];
      imp_cproblem_project(p, fs);
      velocity(p, fs, ws);
      double res_s, key_s = ranked_residual(p, fs, ws, o->tol, tmp, &res_s);
      if (key_s < key) {
        key = key_s;
        res = res_s;
        imp_copy(fc, fs, n);
      }
      if (key < best || !isfinite(best)) {
        best = key;
        best_res = res;
        imp_copy(f, fc, n);
      }
      if (it > 0 && o->monitor) o->monitor(o->monitor_ctx, done - 1, fc);
      if (key <= o->tol) {
        st->exit = IMP_EXIT_CONVERGED;
        break;
      }
      if (done >= o->maxiter) break;
      st->exit = ipm_iteration(&s, &v, sv, lam, y, z, scale);
      if (st->exit == IMP_EXIT_STALLED) break;
      st->iterations = ++done;
      if (st->exit == IMP_EXIT_DIVERGED) {
        if (o->monitor) {
          multipliers_to_f(&s, lam, y, fc);
          o->monitor(o->monitor_ctx, done - 1, fc);
        }
        break;
      }
      st->exit = IMP_EXIT_MAXITER;
    }
    if (!(st->exit == IMP_EXIT_STALLED && from_warm)) break;
  }
  st->residual = best_res;
  if (st->exit == IMP_EXIT_DIVERGED) st->residual = INFINITY;
}

const imp_csolver imp_solver_primal = {
    "primal",
    "cone complementarity relaxation on its primal in joint space (min |v - v_f|_M^2, "
    "J v - c in K*): interior point",
    primal_work_size, primal_solve, IMP_LAW_RELAXED, 3, NULL, 0};
