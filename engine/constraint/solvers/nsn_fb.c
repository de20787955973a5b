/* Non-smooth Newton with the Fischer-Burmeister function (Macklin, Erleben,
 * Mueller, Chentanez, Jeschke, Makoviychuk 2019, "Non-smooth Newton methods
 * for deformable multi-body dynamics",
 * ../shared/papers/macklin2019-nonsmooth-newton-deformable-multibody.txt).
 *
 * ---- From the paper's primal system to contact space ----
 * The paper solves for (u, lambda) with the saddle system (53)/(56): rows
 * H du - J' dlambda h = -g (momentum, H = M~ - h^2 K) and J du + C dlambda h
 * = -h_c (constraints), and reduces it to the Schur complement (59),
 * [J H^-1 J' + C] dlambda = ... . For rigid bodies we drop the geometric
 * stiffness K (Section 8.3 is optional; left out), so H = M and the momentum
 * row is linear: u = u~ + M^-1 K' f with f = h lambda the impulse. Eliminating
 * u exactly is the Schur complement, and J H^-1 J' = K M^-1 K' = A: the
 * velocities seen by the constraints are w = A f + v0 - b (v0 = K u~, b the
 * stabilization target, so w plays the role of the paper's C_n / h and of
 * D' q_dot). So in contact space the unknowns are f only, and a Newton step
 * solves
 *     (D_alpha A + D_beta) df = -phi(f)
 * per row: the derivative of phi with respect to w times A (dw/df = A), plus
 * the derivative with respect to f (the paper's C block, eq. 54-55).
 * Positions are not updated inside the solve (the problem is the linearized
 * one the stage built), so eq. (63) is absent.
 *
 * ---- The NCP functions per block ----
 *  - equality: phi = w (eq. 47 with E = 0, velocity level).
 *  - limit, frictionless contact, the normal row of a contact:
 *      FB (eq. 23, 93):  phi = w + r f - sqrt(w^2 + r^2 f^2)
 *      derivatives (eq. 24-25, 94-95) alpha = 1 - w/s, beta = 1 - r f/s,
 *      s = sqrt(w^2 + r^2 f^2), and at (0, 0) alpha = 0, beta = 1 (eq. 26-27);
 *      minimum map (eq. 18, 96-98): phi = min(w, r f).
 *  - friction rows of a contact with mu f_N > 0 (the set A of Section 3.5):
 *      phi_T = w_T + W f_T (eq. 36), W held constant in the step (eq. 37),
 *      W the fixed-point compliance (eq. 33-35) in its closed form:
 *      with a = ||w_T||, s = mu f_N - ||f_T||, q = sqrt(a^2 + r^2 s^2):
 *        ||w_T||+ = q - r s                       (eq. 99-100)
 *        ||f_T||+ = (a + r mu f_N - q) / r        (eq. 101-102)
 *        W_FB = ||w_T||+ / ||f_T||+               (eq. 103-104)
 *      (eq. 102 and 104 print ||D'q_dot||^2 in the numerator of ||f_T||+;
 *      substituting (101) into the FB function gives ||D'q_dot|| to the first
 *      power, as units require: we use that.) Minimum map (eq. 105):
 *      W = 0 if a <= r s, else (a - r s) / (mu f_N).
 *  - friction rows of an inactive contact (mu f_N <= 0): phi_T = r f_T, the
 *    "disabled rows" of Section 6.1 (eq. 106's identity block), so the step
 *    sets f_T = 0.
 *  - dry friction (one row, bound R = mu[k] fixed in advance: contact.h).
 *    It is the friction row of a contact whose normal impulse is known, but
 *    the paper's friction function (eq. 36) is not used for it: its W is
 *    held constant in the step (eq. 37), so the step is a fixed-point
 *    update, not a Newton step on the row. With one row and a constant
 *    bound the law is the box complementarity problem f in [-R, R], w >= 0
 *    at -R, w <= 0 at R, w = 0 between (a mixed complementarity problem,
 *    Billups 1995), which has nonsmooth functions whose generalized
 *    Jacobian is known exactly. With l = r (f + R) and u = r (R - f):
 *      FB (Billups' nesting of eq. 23):
 *          phi = FB(l, -FB(u, -w))
 *      The inner -FB(u, -w) is zero exactly when u >= 0, w <= 0, u w = 0
 *      (the upper bound's complementarity) and tends to w as u grows; the
 *      outer adds the lower bound the same way. phi = 0 exactly at the law
 *      (with R = 0: f = 0 and any w). Its derivatives by the chain rule
 *      of eq. (24-25), with (a_i, b_i) the partials of the inner FB in
 *      (-w, u) and (a_o, b_o) those of the outer in (inner, l):
 *          dphi/dw = a_o a_i,   dphi/df = r (a_o b_i + b_o),
 *      both >= 0, so the row enters the reduced system as a unilateral
 *      row does (c = dphi/df / dphi/dw, fixed when dphi/dw vanishes); at
 *      (0, 0) each FB takes eq. (26-27)'s choice, derivative 1 in its
 *      impulse argument and 0 in its velocity one.
 *      Minimum map: phi = mid(r (f - R), w, r (f + R)) (the box's natural
 *      map, eq. 18 with two bounds): w's row where it is the middle value
 *      (df from A df = -w, c = 0), else fixed at its bound (df = R - f at
 *      the upper one, -R - f at the lower).
 *
 * ---- Complementarity preconditioner r (Section 7) ----
 * Eq. (66) r_i = h^2 [J M~^-1 J']_ii for a position-level constraint and
 * force lambda: with C = h w and lambda = f / h the product r lambda =
 * h A_ii f, and dividing the NCP's both arguments by h (the solutions are
 * invariant to a positive scale) gives phi(w, A_ii f). For friction (a
 * velocity-force relation) r = h [J M~^-1 J']_ii gives the same A_ii f. So
 * in contact space r_i = A_ii for unilateral rows, and for the friction
 * block r_T is the mean of its tangential rows' diagonal: h cancels.
 *
 * ---- The symmetric reduced system (eq. 59) ----
 * Rows are classified per step:
 *  - fixed: a row whose step does not depend on the others: inactive
 *    friction rows (df = -f_T), FB normal rows with alpha = 0 (df = -phi /
 *    (beta r)), minimum-map normal rows in the "otherwise" case of (97-98)
 *    (df = -f), dry friction rows with dphi/dw = 0 (df = -phi / (dphi/df))
 *    or, under the minimum map, at a bound. Their columns move to the
 *    right-hand side.
 *  - free: the rest. A unilateral (or dry friction) row alpha A df + beta r
 *    df_i = -phi is divided by alpha, giving A df + (beta r / alpha) df_i =
 *    -phi / alpha, so every free row reads A df + c_i df_i = rhs_i: the
 *    system (A_FF + diag(c)) df_F = rhs is the contact-space form of (59),
 *    symmetric positive semidefinite, C = diag(c) the paper's compliance
 *    block (S / h^2 after scaling, W for friction, 0 for equalities).
 *  - regularization (Section 8.4): c_i += eps A_ii, eps = 1e-6 (the paper's
 *    identity shift, relative to the row's own scale so units stay right).
 *    It only changes the step, not the solution.
 * It is solved inexactly by preconditioned conjugate residual with a Jacobi
 * (diagonal) preconditioner (Section 8.2, Saad 2003's CR with a left
 * preconditioner: each iteration minimizes the residual in the
 * preconditioner's norm over the Krylov space, eq. 69), stopped at a
 * relative residual of NSN_CR_RTOL or NSN_CR_MAXITER (at most n) iterations.
 *
 * ---- Step and start (Section 8.1) ----
 * No line search: the damped step f += t df with t = 0.75 (the paper's value
 * for all its examples), from f = 0 (eq. 67-68) unless o->warmstart, where
 * the given impulses are used (non-finite entries cleared).
 *
 * ---- Stopping measure (the solver's own) ----
 * The Newton iterate may leave the cones; what the solver reports, returns
 * and hands the monitor is its projection onto them (per block: f_N >= 0,
 * ||f_T|| <= mu f_N, dry friction clamped to [-R, R]). At that point the
 * measure is the norm of the exact conditions written with the FB function
 * (eq. 23, 31-32):
 *   equality w; unilateral FB(w, r f); dry friction Billups' box FB
 *   above (with f in [-R, R]); contact FB(w_N, r_N f_N) and, when
 *   mu f_N > 0, psi = FB(||w_T||, r_T (mu f_N - ||f_T||)) (eq. 32) and the
 *   direction w_T + (||w_T|| / ||f_T||) f_T (eq. 31, dropped when f_T = 0,
 *   where psi alone vanishes only for w_T = 0); else r_T f_T.
 * All terms are velocities; relative to max(||v0||, ||w||, ||r f||). It is
 * zero exactly at solutions of the problem (contact.h), whichever NCP
 * function drives the step. Converged when it is <= tol; the best projected
 * iterate seen is returned.
 *
 * ---- Watchdog (ours) ----
 * With t fixed the iteration can cycle on redundant contact sets (the
 * iterate drifts along A's null space, normal rows cross zero and switch
 * their friction rows on and off). When the best measure has not halved
 * for NSN_WATCHDOG iterations the remaining iterations project the iterate
 * onto the cones after each step. Measured on test_solvers' deficient-rank
 * family: 11 of 12 converged without it, 12 of 12 with it.
 *
 * ---- Not done ----
 * Geometric stiffness (Section 8.3, optional for rigid bodies; the
 * stage's problem is already linearized). The minimum map is selected at
 * run time through imp_nsn_solve (solvers/nsn.h); the registered solver
 * uses Fischer-Burmeister. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "constraint/solvers/nsn.h"

#define NSN_DAMPING 0.75       /* Section 8.1: t */
#define NSN_REG 1e-6           /* Section 8.4: epsilon, relative to A_ii */
#define NSN_CR_RTOL 1e-3       /* inexact Newton: CR's relative residual */
#define NSN_CR_MAXITER 100     /* and its most iterations (also <= n) */
#define NSN_PIVOT_REL 1e-12    /* r floor: fraction of A's largest diagonal */
#define NSN_ALPHA_FIX 1e-12    /* FB rows with alpha below this are fixed */
#define NSN_MAXDIM 6
#define NSN_WATCHDOG 20

/* scratch: doubles per row */
#define NSN_NVEC 17

typedef struct nsn_ws {
  double *x;     /* n: the Newton iterate (may leave the cones) */
  double *fp;    /* n: its projection, what is reported */
  double *best;  /* n: the best projected iterate so far */
  double *w;     /* n: A f + v0 - b at the current point */
  double *r;     /* n: complementarity preconditioner per row (Section 7) */
  double *c;     /* n: diagonal compliance of the reduced system */
  double *rhs;   /* n: right-hand side of the reduced system */
  double *fixed; /* n: 1 on fixed rows, 0 on free ones */
  double *dx;    /* n: the Newton step */
  double *jac;   /* n: inverse Jacobi preconditioner */
  double *cr_r, *cr_z, *cr_p, *cr_bz, *cr_bp, *cr_mbp, *tmp; /* n each: CR */
} nsn_ws;

static size_t nsn_work_size_impl(int n, int nblock) {
  (void)nblock;
  return (size_t)NSN_NVEC * (size_t)(n > 0 ? n : 0) * sizeof(double);
}

size_t imp_nsn_work_size(int n, int nblock) { return nsn_work_size_impl(n, nblock); }

static nsn_ws carve(void* work, int n) {
  double* d = (double*)work;
  nsn_ws ws;
  double** slots[NSN_NVEC] = {&ws.x,     &ws.fp,   &ws.best,  &ws.w,    &ws.r,    &ws.c,
                              &ws.rhs,   &ws.fixed, &ws.dx,   &ws.jac,  &ws.cr_r, &ws.cr_z,
                              &ws.cr_p,  &ws.cr_bz, &ws.cr_bp, &ws.cr_mbp, &ws.tmp};
  for (int k = 0; k < NSN_NVEC; k++) *slots[k] = d + (size_t)k * (size_t)n;
  return ws;
}

/* Fischer-Burmeister function, eq. (23) */
static double fb(double a, double b) { return a + b - hypot(a, b); }

/* its partial derivatives, eq. (24-25), and the choice (26-27) at (0, 0) */
static void fb_partials(double a, double b, double* alpha, double* beta) {
  double s = hypot(a, b);
  if (s == 0) {
    *alpha = 0;
    *beta = 1;
    return;
  }
  *alpha = 1 - a / s;
  *beta = 1 - b / s;
}

/* w = A f + v0 - b */
static void velocity(const imp_cproblem* p, const double* f, double* w) {
  for (int i = 0; i < p->n; i++)
    w[i] = imp_dot(p->A + (size_t)i * (size_t)p->n, f, p->n) + p->v0[i] - p->b[i];
}

/* a contact with friction rows (the other blocks are handled row by row) */
static int is_friction_block(const imp_cproblem* p, int k) {
  return p->blk_type[k] == IMP_CNSTR_CONTACT && p->blk_dim[k] > 1;
}

/* a row of dry friction with a fixed bound (contact.h) */
static int is_dry_block(const imp_cproblem* p, int k) {
  return p->blk_type[k] == IMP_CNSTR_FRICTION;
}

/* the bound of a dry friction block (a negative or NaN one means none) */
static double dry_bound(const imp_cproblem* p, int k) {
  return p->mu[k] > 0 ? p->mu[k] : 0;
}

/* Billups' box FB of one dry friction row (see the top): phi at (f, w) with
   bound R and preconditioner r, and into *dw, *df (when dw is not NULL)
   its partial derivatives in w and in f */
static double box_fb(double f, double w, double R, double r, double* dw, double* df) {
  double l = r * (f + R), u = r * (R - f);
  double inner = -fb(-w, u);
  double phi = fb(inner, l);
  if (dw) {
    double ai, bi, ao, bo;
    fb_partials(-w, u, &ai, &bi);    /* d/d(-w), d/du: (0, 1) at (0, 0) */
    fb_partials(inner, l, &ao, &bo); /* d/d(inner), d/dl: (0, 1) at (0, 0) */
    /* d inner/dw = ai, d inner/df = -bi du/df = r bi, dl/df = r */
    *dw = ao * ai;
    *df = r * (ao * bi + bo);
  }
  return phi;
}

/* r per row (Section 7, in contact space: A_ii; friction rows: their mean;
   a dry friction row is one row, so its own A_ii) */
static void preconditioner_r(const imp_cproblem* p, double* r) {
  double dmax = 0;
  for (int i = 0; i < p->n; i++) dmax = fmax(dmax, p->A[(size_t)i * (size_t)p->n + i]);
  double floor_r = dmax > 0 ? NSN_PIVOT_REL * dmax : 1.0;
  for (int i = 0; i < p->n; i++) r[i] = fmax(p->A[(size_t)i * (size_t)p->n + i], floor_r);
  for (int k = 0; k < p->nblock; k++) {
    if (!is_friction_block(p, k)) continue;
    int adr = p->blk_adr[k], nt = p->blk_dim[k] - 1;
    double mean = 0;
    for (int t = 1; t <= nt; t++) mean += r[adr + t];
    mean /= nt;
    for (int t = 1; t <= nt; t++) r[adr + t] = mean;
  }
}

/* per block: f_N >= 0 and ||f_T|| <= mu f_N (unilateral rows: f >= 0, dry
   friction: |f| <= R) */
static void project(const imp_cproblem* p, const double* x, double* f) {
  imp_copy(f, x, p->n);
  for (int k = 0; k < p->nblock; k++) {
    int adr = p->blk_adr[k], dim = p->blk_dim[k];
    if (p->blk_type[k] == IMP_CNSTR_EQUALITY) continue;
    if (is_friction_block(p, k)) {
      imp_cone_project(f + adr, dim, fmax(p->mu[k], 0.0));
    } else if (is_dry_block(p, k)) {
      double R = dry_bound(p, k);
      for (int t = 0; t < dim; t++) f[adr + t] = fmin(fmax(f[adr + t], -R), R);
    } else {
      for (int t = 0; t < dim; t++) f[adr + t] = fmax(f[adr + t], 0.0);
    }
  }
}

/* The stopping measure at f (in its cones) with w = A f + v0 - b: the exact
   conditions in FB form (see the top); relative. */
static double measure(const imp_cproblem* p, const double* f, const double* w, const double* r) {
  double e2 = 0, v02 = 0, w2 = 0, rf2 = 0;
  for (int i = 0; i < p->n; i++) {
    v02 += p->v0[i] * p->v0[i];
    w2 += w[i] * w[i];
    rf2 += r[i] * f[i] * r[i] * f[i];
  }
  for (int k = 0; k < p->nblock; k++) {
    int adr = p->blk_adr[k], dim = p->blk_dim[k];
    const double *fk = f + adr, *wk = w + adr, *rk = r + adr;
    if (p->blk_type[k] == IMP_CNSTR_EQUALITY) {
      for (int t = 0; t < dim; t++) e2 += wk[t] * wk[t];
    } else if (is_dry_block(p, k)) {
      for (int t = 0; t < dim; t++) {
        double e = box_fb(fk[t], wk[t], dry_bound(p, k), rk[t], NULL, NULL);
        e2 += e * e;
      }
    } else if (!is_friction_block(p, k)) {
      for (int t = 0; t < dim; t++) {
        double e = fb(wk[t], rk[t] * fk[t]);
        e2 += e * e;
      }
    } else {
      int nt = dim - 1;
      double en = fb(wk[0], rk[0] * fk[0]);
      e2 += en * en;
      double mufn = p->mu[k] * fk[0];
      if (!(mufn > 0)) { /* inactive: friction must vanish */
        for (int t = 1; t <= nt; t++) e2 += rk[t] * fk[t] * rk[t] * fk[t];
        continue;
      }
      double a = sqrt(imp_dot(wk + 1, wk + 1, nt)), ft = sqrt(imp_dot(fk + 1, fk + 1, nt));
      double psi = fb(a, rk[1] * (mufn - ft)); /* eq. (32) */
      e2 += psi * psi;
      if (ft > 0) /* eq. (31) */
        for (int t = 1; t <= nt; t++) {
          double d = wk[t] + a / ft * fk[t];
          e2 += d * d;
        }
    }
  }
  double scale = sqrt(fmax(v02, fmax(w2, rf2)));
  double e = sqrt(e2);
  return scale > 0 ? e / scale : e;
}

/* The friction compliance W of one active contact (eq. 99-105) */
static double friction_compliance(double a, double fn, double ft, double mu, double r,
                                  imp_nsn_ncp ncp) {
  double mufn = mu * fn, s = mufn - ft;
  if (ncp == IMP_NSN_MINMAP) /* eq. (105) */
    return a <= r * s ? 0.0 : (a - r * s) / mufn;
  double q = hypot(a, r * s);
  double vnext = q - r * s;            /* eq. (100) */
  double lnext = (a + r * mufn - q) / r; /* eq. (102), first power of a */
  if (!(vnext > 0)) return 0.0;        /* sticking: no compliance */
  /* ||f_T||+ <= 0 happens only far outside the cone (||f_T|| > 2 mu f_N):
     keep W finite and large, so the step pulls f_T back */
  lnext = fmax(lnext, 1e-6 * mufn);
  return vnext / lnext; /* eq. (103-104) */
}

/* One normal / unilateral row i at (x_i, w_i): fills c, rhs or the fixed step */
static void unilateral_row(nsn_ws* ws, int i, imp_nsn_ncp ncp) {
  double a = ws->w[i], ri = ws->r[i], b = ri * ws->x[i];
  if (ncp == IMP_NSN_MINMAP) { /* eq. (96-98) */
    if (a <= b) {
      ws->c[i] = 0;
      ws->rhs[i] = -a;
    } else {
      ws->fixed[i] = 1;
      ws->dx[i] = -ws->x[i];
    }
    return;
  }
  double alpha, beta, phi = fb(a, b); /* eq. (93-95) */
  fb_partials(a, b, &alpha, &beta);
  if (alpha <= NSN_ALPHA_FIX) { /* the row's step is its own */
    ws->fixed[i] = 1;
    ws->dx[i] = -phi / (fmax(beta, 1e-300) * ri);
    return;
  }
  ws->c[i] = beta * ri / alpha;
  ws->rhs[i] = -phi / alpha;
}

/* One dry friction row i of bound R at (x_i, w_i): fills c, rhs or the
   fixed step (see the top: Billups' box FB or the box's mid map) */
static void dry_row(nsn_ws* ws, int i, double R, imp_nsn_ncp ncp) {
  double f = ws->x[i], w = ws->w[i], ri = ws->r[i];
  if (ncp == IMP_NSN_MINMAP) {
    if (w < ri * (f - R)) { /* phi = r (f - R): at the upper bound */
      ws->fixed[i] = 1;
      ws->dx[i] = R - f;
    } else if (w > ri * (f + R)) { /* phi = r (f + R): at the lower bound */
      ws->fixed[i] = 1;
      ws->dx[i] = -R - f;
    } else { /* phi = w: sticking, the row's own velocity to 0 */
      ws->c[i] = 0;
      ws->rhs[i] = -w;
    }
    return;
  }
  double dw, df, phi = box_fb(f, w, R, ri, &dw, &df);
  if (dw <= NSN_ALPHA_FIX) { /* the row's step is its own */
    ws->fixed[i] = 1;
    ws->dx[i] = -phi / fmax(df, 1e-300 * ri);
    return;
  }
  ws->c[i] = df / dw;
  ws->rhs[i] = -phi / dw;
}

/* the reduced system of one Newton step at ws->x (ws->w current) */
static void assemble(const imp_cproblem* p, nsn_ws* ws, imp_nsn_ncp ncp) {
  int n = p->n;
  imp_zero(ws->fixed, n);
  imp_zero(ws->dx, n);
  imp_zero(ws->c, n);
  imp_zero(ws->rhs, n);
  for (int k = 0; k < p->nblock; k++) {
    int adr = p->blk_adr[k], dim = p->blk_dim[k];
    if (p->blk_type[k] == IMP_CNSTR_EQUALITY) {
      for (int t = 0; t < dim; t++) ws->rhs[adr + t] = -ws->w[adr + t];
    } else if (is_dry_block(p, k)) {
      for (int t = 0; t < dim; t++) dry_row(ws, adr + t, dry_bound(p, k), ncp);
    } else if (!is_friction_block(p, k)) {
      for (int t = 0; t < dim; t++) unilateral_row(ws, adr + t, ncp);
    } else {
      int nt = dim - 1;
      unilateral_row(ws, adr, ncp);
      double* xt = ws->x + adr + 1;
      double* wt = ws->w + adr + 1;
      double mu = fmax(p->mu[k], 0.0), fn = ws->x[adr];
      if (!(mu * fn > 0)) { /* inactive: the disabled rows of Section 6.1 */
        for (int t = 0; t < nt; t++) {
          ws->fixed[adr + 1 + t] = 1;
          ws->dx[adr + 1 + t] = -xt[t];
        }
        continue;
      }
      double a = sqrt(imp_dot(wt, wt, nt)), ft = sqrt(imp_dot(xt, xt, nt));
      double W = friction_compliance(a, fn, ft, mu, ws->r[adr + 1], ncp);
      for (int t = 0; t < nt; t++) { /* eq. (36-37) */
        ws->c[adr + 1 + t] = W;
        ws->rhs[adr + 1 + t] = -(wt[t] + W * xt[t]);
      }
    }
  }
  /* fixed columns to the right-hand side; regularization (Section 8.4) */
  for (int i = 0; i < n; i++) {
    if (ws->fixed[i] != 0) continue;
    const double* Ai = p->A + (size_t)i * (size_t)n;
    double s = 0;
    for (int j = 0; j < n; j++)
      if (ws->fixed[j] != 0) s += Ai[j] * ws->dx[j];
    ws->rhs[i] -= s;
    ws->c[i] += NSN_REG * Ai[i];
  }
}

/* out = (A_FF + diag c) v on free rows, 0 on fixed ones (v is 0 there) */
static void reduced_product(const imp_cproblem* p, const nsn_ws* ws, const double* v,
                            double* out) {
  int n = p->n;
  for (int i = 0; i < n; i++) {
    if (ws->fixed[i] != 0) {
      out[i] = 0;
      continue;
    }
    out[i] = imp_dot(p->A + (size_t)i * (size_t)n, v, n) + ws->c[i] * v[i];
  }
}

/* Preconditioned conjugate residual (Section 8.2) for the reduced system,
   Jacobi preconditioner; the solution into ws->dx's free rows. Returns its
   iterations. */
static int conjugate_residual(const imp_cproblem* p, nsn_ws* ws) {
  int n = p->n;
  double *y = ws->tmp, *r = ws->cr_r, *z = ws->cr_z, *pp = ws->cr_p;
  double *bz = ws->cr_bz, *bp = ws->cr_bp, *mbp = ws->cr_mbp;
  for (int i = 0; i < n; i++) {
    double d = ws->fixed[i] != 0 ? 0 : p->A[(size_t)i * (size_t)n + i] + ws->c[i];
    ws->jac[i] = d > 0 ? 1 / d : 0;
    y[i] = 0;
    r[i] = ws->fixed[i] != 0 ? 0 : ws->rhs[i];
    z[i] = ws->jac[i] * r[i];
    pp[i] = z[i];
  }
  double rhs_norm = sqrt(imp_dot(r, r, n));
  int maxit = n < NSN_CR_MAXITER ? n : NSN_CR_MAXITER, it = 0;
  if (rhs_norm > 0) {
    reduced_product(p, ws, z, bz);
    imp_copy(bp, bz, n);
    double zbz = imp_dot(z, bz, n);
    for (it = 0; it < maxit;) {
      for (int i = 0; i < n; i++) mbp[i] = ws->jac[i] * bp[i];
      double den = imp_dot(bp, mbp, n);
      if (!(den > 0) || !(zbz > 0)) break; /* breakdown: keep what we have */
      double alpha = zbz / den;
      imp_add_scl(y, pp, alpha, n);
      imp_add_scl(r, bp, -alpha, n);
      imp_add_scl(z, mbp, -alpha, n);
      it++;
      if (sqrt(imp_dot(r, r, n)) <= NSN_CR_RTOL * rhs_norm) break;
      reduced_product(p, ws, z, bz);
      double zbz_new = imp_dot(z, bz, n);
      double beta = zbz_new / zbz;
      zbz = zbz_new;
      for (int i = 0; i < n; i++) {
        pp[i] = z[i] + beta * pp[i];
        bp[i] = bz[i] + beta * bp[i];
      }
    }
  }
  for (int i = 0; i < n; i++)
    if (ws->fixed[i] == 0) ws->dx[i] = y[i];
  return it;
}

static int all_finite(const double* v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}


void imp_nsn_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                   imp_csolver_stat* s, void* work, imp_nsn_ncp ncp) {
  int n = p->n;
  *s = (imp_csolver_stat){0, 0, 0, IMP_EXIT_CONVERGED};
  if (n <= 0) return;
  if (!imp_cproblem_is_finite(p)) {
    imp_zero(f, n);
    *s = (imp_csolver_stat){0, 0, INFINITY, IMP_EXIT_FAILED};
    return;
  }
  nsn_ws ws = carve(work, n);
  preconditioner_r(p, ws.r);
  /* start: eq. (67-68), or the warm start */
  if (o->warmstart)
    for (int i = 0; i < n; i++) ws.x[i] = isfinite(f[i]) ? f[i] : 0;
  else
    imp_zero(ws.x, n);
  project(p, ws.x, ws.fp);
  velocity(p, ws.fp, ws.w);
  double best = measure(p, ws.fp, ws.w, ws.r);
  imp_copy(ws.best, ws.fp, n);
  s->residual = best;
  s->exit = best <= o->tol ? IMP_EXIT_CONVERGED : IMP_EXIT_MAXITER;
  double watch_best = best;
  int projected = 0, watch_it = 0, watchdog = NSN_WATCHDOG;
  for (int it = 0; it < o->maxiter && s->exit != IMP_EXIT_CONVERGED; it++) {
    velocity(p, ws.x, ws.w); /* the step is linearized at the Newton iterate */
    assemble(p, &ws, ncp);
    conjugate_residual(p, &ws);
    imp_add_scl(ws.x, ws.dx, NSN_DAMPING, n); /* eq. (61), t of Section 8.1 */
    s->iterations = it + 1;
    s->newton = it + 1;
    if (!all_finite(ws.x, n)) { /* never hand NaN back: the best finite iterate */
      imp_copy(f, ws.best, n);
      s->residual = best;
      s->exit = IMP_EXIT_DIVERGED;
      if (o->monitor) o->monitor(o->monitor_ctx, it, f);
      return;
    }
    project(p, ws.x, ws.fp);
    if (projected) imp_copy(ws.x, ws.fp, n);
    velocity(p, ws.fp, ws.w);
    double e = measure(p, ws.fp, ws.w, ws.r);
    if (e <= best) {
      best = e;
      imp_copy(ws.best, ws.fp, n);
    }
    /* watchdog (ours; Section 8.1 names watchdog strategies without using
       one): when the best measure has not halved in NSN_WATCHDOG Newton
       iterations, the iteration continues projected onto the cones (x = P(x)
       after every step), which settles the drift of redundant rows */
    if (best <= 0.5 * watch_best) {
      watch_best = best;
      watch_it = it;
    } else if (it - watch_it >= watchdog) {
      imp_copy(ws.x, ws.fp, n);
      projected = 1;
      watch_best = best;
      watch_it = it;
    }
    s->residual = best;
    if (o->monitor) o->monitor(o->monitor_ctx, it, ws.fp);
    if (e <= o->tol) s->exit = IMP_EXIT_CONVERGED;
  }
  imp_copy(f, ws.best, n);
}

static void nsn_fb_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                         imp_csolver_stat* s, void* work) {
  imp_nsn_solve(p, o, f, s, work, IMP_NSN_FB);
}

const imp_csolver imp_solver_nsn_fb = {
    "nsn_fb",
    "non-smooth Newton, Fischer-Burmeister + friction fixed point, PCR (Macklin et al. 2019)",
    nsn_work_size_impl, nsn_fb_solve, IMP_LAW_CONE, 3, NULL, 0};
