/* Tests of the common accuracy measure (solvers/residual.c): De Saxce's
 * natural-map residual is zero at exact solutions of each block law, has the
 * hand-computed value at wrong impulses, scales with the problem's units, and
 * the circular-cone projection matches its closed form and Moreau's
 * decomposition. */
#include <check.h>
#include <math.h>

#include "constraint/contact.h"
#include "core/mathx.h"
#include "test_cproblem.h"
#include "test_util.h"


/* A = diag(d) */
static void set_diag(tprob* t, const double* d) {
  memset(t->A, 0, sizeof t->A);
  for (int i = 0; i < t->n; i++) t->A[i * t->n + i] = d[i];
}

static double residual(const tprob* t, const double* f, double* rel) {
  double work[2 * MAXN];
  imp_cproblem p = view(t);
  return imp_cresidual(&p, f, rel, work);
}

/* one contact, A = I, mu, v0 */
static tprob one_contact(double mu, double v0n, double v0t1, double v0t2) {
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, mu);
  set_diag(&t, (double[]){1, 1, 1});
  t.v0[0] = v0n;
  t.v0[1] = v0t1;
  t.v0[2] = v0t2;
  return t;
}

START_TEST(test_zero_at_sticking_contact) {
  /* v0 = (-1, 0.2, 0), A = I: f = (1, -0.2, 0) stops the contact, inside the cone */
  tprob t = one_contact(1.0, -1, 0.2, 0);
  double f[3] = {1, -0.2, 0}, rel;
  imp_assert_near(residual(&t, f, &rel), 0, 1e-15);
  imp_assert_near(rel, 0, 1e-15);
}
END_TEST

START_TEST(test_zero_at_sliding_contact) {
  /* A = diag(1, 1, 4), v0 = (-1, -0.9, -2.4), mu = 0.5: f = (1, 0.3, 0.4) on
     the cone, slip w_T = v0_T + A_TT f_T = (-0.6, -0.8) = -2 f_T: opposite */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_CONTACT, 3, 0.5);
  set_diag(&t, (double[]){1, 1, 4});
  t.v0[0] = -1;
  t.v0[1] = -0.9;
  t.v0[2] = -2.4;
  double f[3] = {1, 0.3, 0.4}, rel;
  imp_assert_near(residual(&t, f, &rel), 0, 1e-15);
  imp_assert_near(rel, 0, 1e-15);
}
END_TEST

START_TEST(test_zero_at_separating_contact) {
  /* v0 = (2, 1, -1) with b_N = 0.5: separating faster than the target, f = 0 */
  tprob t = one_contact(0.7, 2, 1, -1);
  t.b[0] = 0.5;
  double f[3] = {0, 0, 0};
  imp_assert_near(residual(&t, f, NULL), 0, 1e-15);
}
END_TEST

START_TEST(test_zero_at_limit) {
  /* A = 2, v0 = -4, b = 1: active, f = (b - v0) / A = 2.5; then inactive */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  set_diag(&t, (double[]){2});
  t.v0[0] = -4;
  t.b[0] = 1;
  double f = 2.5;
  imp_assert_near(residual(&t, &f, NULL), 0, 1e-15);
  t.v0[0] = 3; /* w = 2 > 0 at f = 0 */
  f = 0;
  imp_assert_near(residual(&t, &f, NULL), 0, 1e-15);
}
END_TEST

START_TEST(test_zero_at_equality) {
  /* A = [2 1; 1 2], v0 = (1, 2), b = (0.5, -1): f = A^-1 (b - v0) = (2/3, -11/6) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 2, 0);
  double A[4] = {2, 1, 1, 2};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = 1;
  t.v0[1] = 2;
  t.b[0] = 0.5;
  t.b[1] = -1;
  double f[2] = {2.0 / 3.0, -11.0 / 6.0};
  imp_assert_near(residual(&t, f, NULL), 0, 1e-15);
}
END_TEST

START_TEST(test_wrong_limit_value) {
  /* f = 1 where 2.5 is right: w = 2 - 4 - 1 = -3, e = 1 - max(0, 4) = -3;
     relative to max(||v0|| = 4, ||f|| = 1, ||w|| = 3) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_LIMIT, 1, 0);
  set_diag(&t, (double[]){2});
  t.v0[0] = -4;
  t.b[0] = 1;
  double f = 1, rel;
  imp_assert_near(residual(&t, &f, &rel), 3, 1e-15);
  imp_assert_near(rel, 0.75, 1e-15);
}
END_TEST

START_TEST(test_wrong_equality_value) {
  /* e = w = A f + v0 - b = (2 + 1 - 0.5, 1 + 2 + 1) = (2.5, 4) at f = (1, 0) */
  tprob t = {0};
  add_block(&t, IMP_CNSTR_EQUALITY, 2, 0);
  double A[4] = {2, 1, 1, 2};
  memcpy(t.A, A, sizeof A);
  t.v0[0] = 1;
  t.v0[1] = 2;
  t.b[0] = 0.5;
  t.b[1] = -1;
  double f[2] = {1, 0};
  imp_assert_near(residual(&t, f, NULL), sqrt(2.5 * 2.5 + 16), 1e-14);
}
END_TEST

START_TEST(test_wrong_contact_zero_impulse) {
  /* f = 0 on a sliding contact: w = (-1, 3, 0), w_hat = (-1 + 0.5 * 3, 3, 0);
     P(-w_hat) = P(-0.5, -3, 0) = ((-0.5 + 1.5) / 1.25, -(0.5 * 0.8 / 3) 3, 0)
     = (0.8, -0.4, 0), so e = (-0.8, 0.4, 0), ||e|| = sqrt(0.8); relative to
     ||v0|| = ||w|| = sqrt(10) */
  tprob t = one_contact(0.5, -1, 3, 0);
  double f[3] = {0, 0, 0}, rel;
  imp_assert_near(residual(&t, f, &rel), sqrt(0.8), 1e-15);
  imp_assert_near(rel, sqrt(0.08), 1e-15);
}
END_TEST

START_TEST(test_wrong_contact_friction_along_slip) {
  /* friction pushing along the slip: f = (1, 0.5, 0), w = (0, 3.5, 0),
     w_hat = (1.75, 3.5, 0), P(-0.75, -3, 0) = (0.6, -0.3, 0), e = (0.4, 0.8, 0) */
  tprob t = one_contact(0.5, -1, 3, 0);
  double f[3] = {1, 0.5, 0};
  imp_assert_near(residual(&t, f, NULL), sqrt(0.8), 1e-15);
  /* the same magnitude on the right side of the cone is exact */
  f[1] = -0.5;
  imp_assert_near(residual(&t, f, NULL), 0, 1e-15);
}
END_TEST

START_TEST(test_wrong_contact_outside_cone) {
  /* f = (1, 2, 0) outside the cone mu = 0.5 with w = (0, 2, 0): w_hat = (1, 2, 0)
     = f, so P(0) = 0 and e = f */
  tprob t = one_contact(0.5, -1, 0, 0);
  double f[3] = {1, 2, 0};
  imp_assert_near(residual(&t, f, NULL), sqrt(5), 1e-15);
}
END_TEST

/* a coupled problem of every block type built around a known solution f*:
   v0 = w* + b - A f* with (f*, w*) satisfying each block's law */
static void mixed_exact_problem(tprob* t, double* fstar) {
  memset(t, 0, sizeof *t);
  add_block(t, IMP_CNSTR_EQUALITY, 3, 0);
  add_block(t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(t, IMP_CNSTR_LIMIT, 1, 0);
  add_block(t, IMP_CNSTR_CONTACT, 1, 0);
  add_block(t, IMP_CNSTR_CONTACT, 3, 0.8);  /* sticking */
  add_block(t, IMP_CNSTR_CONTACT, 4, 0.5);  /* sliding */
  add_block(t, IMP_CNSTR_CONTACT, 6, 1.2);  /* separating */
  int n = t->n;
  double J[MAXN * 2 * MAXN];
  for (int i = 0; i < n * 2 * n; i++) J[i] = imp_test_urand(-1, 1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) t->A[i * n + j] = imp_dot(J + i * 2 * n, J + j * 2 * n, 2 * n);
  double w[MAXN] = {0};
  double fs[] = {0.3, -1.2, 2.0, /* equality: any f, w = 0 */
                 1.5,             /* limit active: w = 0 */
                 0,               /* limit inactive: w > 0 */
                 0.7,             /* frictionless contact active */
                 2.0, 0.5, -0.9,  /* stick: ||f_T|| = 1.03 < 1.6 */
                 2.0, 0.6, 0, 0.8, /* slide: ||f_T|| = 1 = 0.5 * 2 */
                 0, 0, 0, 0, 0, 0};
  memcpy(fstar, fs, sizeof fs);
  w[4] = 0.9;
  for (int k = 0; k < 3; k++) w[10 + k] = -0.7 * fs[10 + k]; /* slip opposes friction */
  w[13] = 1.1; /* separating: w_N > 0, any w_T */
  for (int k = 14; k < 19; k++) w[k] = imp_test_urand(-1, 1);
  for (int i = 0; i < n; i++) {
    t->b[i] = 0;
  }
  t->b[0] = 0.2;
  t->b[3] = -0.1;
  t->b[9] = 0.05;
  for (int i = 0; i < n; i++)
    t->v0[i] = w[i] + t->b[i] - imp_dot(t->A + i * n, fstar, n);
}

START_TEST(test_zero_at_mixed_exact_solution) {
  tprob t;
  double f[MAXN], rel;
  mixed_exact_problem(&t, f);
  ck_assert_int_eq(t.n, 19);
  residual(&t, f, &rel);
  ck_assert_msg(rel <= 1e-14, "relative residual %.3e at the exact solution", rel);
  /* one wrong entry is seen */
  f[7] += 0.1;
  residual(&t, f, &rel);
  ck_assert_msg(rel > 1e-3, "relative residual %.3e with a wrong friction impulse", rel);
}
END_TEST

START_TEST(test_units) {
  /* f, v0 and b scaled by c (a change of units, A fixed): e scales by c, the
     relative residual is unchanged */
  tprob t;
  double f[MAXN], rel1, rel2;
  mixed_exact_problem(&t, f);
  for (int i = 0; i < t.n; i++) f[i] += imp_test_urand(-0.3, 0.3);
  double e1 = residual(&t, f, &rel1);
  const double c = 1000;
  for (int i = 0; i < t.n; i++) {
    f[i] *= c;
    t.v0[i] *= c;
    t.b[i] *= c;
  }
  double e2 = residual(&t, f, &rel2);
  ck_assert_msg(e1 > 1e-3, "the perturbed f should be wrong: %.3e", e1);
  imp_assert_rel(e2, c * e1, 1e-12);
  imp_assert_rel(rel2, rel1, 1e-12);
}
END_TEST

START_TEST(test_mass_scaling_keeps_solutions) {
  /* all masses times c: A / c, the same velocities with impulses f * c. An exact
     solution stays exact */
  tprob t;
  double f[MAXN], rel;
  mixed_exact_problem(&t, f);
  const double c = 4096;
  for (int i = 0; i < t.n * t.n; i++) t.A[i] /= c;
  for (int i = 0; i < t.n; i++) f[i] *= c;
  residual(&t, f, &rel);
  ck_assert_msg(rel <= 1e-14, "relative residual %.3e after mass scaling", rel);
}
END_TEST

/* ---- the cone projection ---- */

START_TEST(test_project_inside_and_polar) {
  double in[3] = {2, 0.5, -0.5};
  imp_cone_project(in, 3, 1.0);
  imp_assert_vec_near(in, ((double[]){2, 0.5, -0.5}), 3, 0);
  double polar[3] = {-2, 0.5, 0.5}; /* mu ||ft|| = 0.707 <= 2 */
  imp_cone_project(polar, 3, 1.0);
  imp_assert_vec_near(polar, ((double[]){0, 0, 0}), 3, 0);
  double d1a = -3, d1b = 2;
  imp_cone_project(&d1a, 1, 0.5);
  imp_cone_project(&d1b, 1, 0.5);
  imp_assert_near(d1a, 0, 0);
  imp_assert_near(d1b, 2, 0);
}
END_TEST

START_TEST(test_project_boundary_closed_form) {
  /* (0, 1, 0), mu = 1: the foot on the ray (1, 1, 0) / sqrt 2 is (0.5, 0.5, 0) */
  double a[3] = {0, 1, 0};
  imp_cone_project(a, 3, 1.0);
  imp_assert_vec_near(a, ((double[]){0.5, 0.5, 0}), 3, 1e-15);
  /* dim 4: (1, 3, 0, 4), mu = 0.5: fn' = (1 + 2.5) / 1.25 = 2.8, ||ft'|| = 1.4 along (3, 0, 4) / 5 */
  double b4[4] = {1, 3, 0, 4};
  imp_cone_project(b4, 4, 0.5);
  imp_assert_vec_near(b4, ((double[]){2.8, 0.84, 0, 1.12}), 4, 1e-15);
  /* dim 6 inside (mu fn = 4 >= sqrt 5) and onto the boundary */
  double in6[6] = {2, 1, 1, 1, 1, 1};
  imp_cone_project(in6, 6, 2.0);
  imp_assert_vec_near(in6, ((double[]){2, 1, 1, 1, 1, 1}), 6, 0);
  double b6[6] = {-1, 1, 1, 1, 1, 1}; /* t = sqrt 5: fn' = (-1 + 2 sqrt 5) / 5 */
  imp_cone_project(b6, 6, 2.0);
  double fn = (-1 + 2 * sqrt(5)) / 5, ft = 2 * fn / sqrt(5);
  imp_assert_vec_near(b6, ((double[]){fn, ft, ft, ft, ft, ft}), 6, 1e-15);
  /* mu = 0: the cone is the ray f_T = 0, f_N >= 0 */
  double z[3] = {1, 2, 3}, zn[3] = {-1, 2, 3};
  imp_cone_project(z, 3, 0);
  imp_cone_project(zn, 3, 0);
  imp_assert_vec_near(z, ((double[]){1, 0, 0}), 3, 0);
  imp_assert_vec_near(zn, ((double[]){0, 0, 0}), 3, 0);
}
END_TEST

START_TEST(test_project_moreau_decomposition) {
  /* Moreau: x = P_K(x) + P_polar(x) with the two parts orthogonal. So P = P_K(x)
     lies in K, r = x - P lies in the polar cone {mu ||r_T|| <= -r_N}, and P.r = 0;
     this characterizes the projection independently of the closed form. */
  const double mus[] = {0.1, 0.5, 1, 2};
  for (int trial = 0; trial < 4000; trial++) {
    int dim = 2 + trial % 5;
    double mu = mus[(trial / 5) % 4];
    double x[6], P[6], r[6];
    for (int k = 0; k < dim; k++) x[k] = imp_test_urand(-2, 2);
    memcpy(P, x, sizeof x);
    imp_cone_project(P, dim, mu);
    for (int k = 0; k < dim; k++) r[k] = x[k] - P[k];
    double pt = sqrt(imp_dot(P + 1, P + 1, dim - 1));
    double rt = sqrt(imp_dot(r + 1, r + 1, dim - 1));
    ck_assert_msg(pt <= mu * P[0] + 1e-14, "P outside K: ||P_T|| %.17g, mu P_N %.17g", pt,
                  mu * P[0]);
    ck_assert_msg(mu * rt <= -r[0] + 1e-14, "x - P outside the polar cone: %.17g > %.17g",
                  mu * rt, -r[0]);
    imp_assert_near(imp_dot(P, r, dim), 0, 1e-14);
  }
}
END_TEST

static Suite* residual_suite(void) {
  Suite* s = suite_create("residual");
  TCase* tc = tcase_create("natural map");
  tcase_add_test(tc, test_zero_at_sticking_contact);
  tcase_add_test(tc, test_zero_at_sliding_contact);
  tcase_add_test(tc, test_zero_at_separating_contact);
  tcase_add_test(tc, test_zero_at_limit);
  tcase_add_test(tc, test_zero_at_equality);
  tcase_add_test(tc, test_wrong_limit_value);
  tcase_add_test(tc, test_wrong_equality_value);
  tcase_add_test(tc, test_wrong_contact_zero_impulse);
  tcase_add_test(tc, test_wrong_contact_friction_along_slip);
  tcase_add_test(tc, test_wrong_contact_outside_cone);
  tcase_add_test(tc, test_zero_at_mixed_exact_solution);
  tcase_add_test(tc, test_units);
  tcase_add_test(tc, test_mass_scaling_keeps_solutions);
  suite_add_tcase(s, tc);
  TCase* tp = tcase_create("cone projection");
  tcase_add_test(tp, test_project_inside_and_polar);
  tcase_add_test(tp, test_project_boundary_closed_form);
  tcase_add_test(tp, test_project_moreau_decomposition);
  suite_add_tcase(s, tp);
  return s;
}

int main(void) { return imp_test_run_suite(residual_suite()); }
