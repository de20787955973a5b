/* Unit tests of the joint-space inertia (engine/smooth/inertia.c): the composite
 * rigid body algorithm, armature, and the tree-sparse L'DL factor.
 *
 * Truths: the analytic mass matrix of a planar double pendulum of rods;
 * the definition M = sum_b (m_b Jv_b' Jv_b + Jw_b' I_b Jw_b) with the body
 * Jacobians taken by central finite differences of the com positions and
 * orientations (imp_integrate_pos along unit velocities); the kinetic
 * energy of each body from its com velocity; and dense linear algebra for
 * the solve. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

/* dense nv x nv copy of a tree-sparse matrix */
static void sparse2dense(const imp_model* m, double* D, const double* M) {
  int n = m->nv;
  memset(D, 0, sizeof(double) * n * n);
  for (int i = 0; i < n; i++) {
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) D[n * i + j] = D[n * j + i] = M[adr];
  }
}

/* world inertia about the com: ximat diag(I) ximat' */
static void world_inertia(double I[9], const imp_model* m, const imp_data* d, int b) {
  const double* R = d->ximat + 9 * b;
  const double* J = m->body_inertia + 3 * b;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      I[3 * i + j] = R[3 * i] * J[0] * R[3 * j] + R[3 * i + 1] * J[1] * R[3 * j + 1] +
                     R[3 * i + 2] * J[2] * R[3 * j + 2];
}

/* A humanoid-like tree: free torso with a ball-jointed head, two 3-hinge
   legs, two arms (ball shoulder, hinge elbow, slide "telescope"), and a
   second, separate tree (a hinge-slide pendulum). nv = 6+3+6+2*5+2 = 27. */
static const char* k_humanoid =
    "<mujoco><compiler angle='radian'/>"
    "<default><joint armature='0'/></default><worldbody>"
    "<body name='torso' pos='0 0 1.2' euler='0.1 -0.2 0.3'><freejoint/>"
    "  <inertial pos='0 0.01 0.05' quat='0.95 0.1 0.2 0.2' mass='10' diaginertia='0.5 0.4 0.2'/>"
    "  <body name='head' pos='0 0 0.4'><joint type='ball' pos='0 0 -0.05'/>"
    "    <inertial pos='0 0 0.1' mass='2' diaginertia='0.02 0.02 0.015'/></body>"
    "  <body name='thigh_r' pos='0 -0.1 -0.3'><joint type='hinge' axis='0 1 0'/>"
    "    <joint type='hinge' axis='1 0 0'/>"
    "    <inertial pos='0 0 -0.2' mass='4' diaginertia='0.06 0.06 0.01'/>"
    "    <body name='shin_r' pos='0 0 -0.45'><joint type='hinge' axis='0 1 0'/>"
    "      <inertial pos='0 0 -0.2' mass='3' diaginertia='0.04 0.04 0.006'/></body></body>"
    "  <body name='thigh_l' pos='0 0.1 -0.3'><joint type='hinge' axis='0 1 0'/>"
    "    <joint type='hinge' axis='1 0 0'/>"
    "    <inertial pos='0 0 -0.2' mass='4' diaginertia='0.06 0.06 0.01'/>"
    "    <body name='shin_l' pos='0 0 -0.45'><joint type='hinge' axis='0 1 0'/>"
    "      <inertial pos='0 0 -0.2' mass='3' diaginertia='0.04 0.04 0.006'/></body></body>"
    "  <body name='arm_r' pos='0 -0.2 0.3'><joint type='ball'/>"
    "    <inertial pos='0 -0.1 -0.1' mass='1.5' diaginertia='0.01 0.012 0.004'/>"
    "    <body name='forearm_r' pos='0 -0.05 -0.3'><joint type='hinge' axis='1 0 0'/>"
    "      <inertial pos='0 0 -0.12' mass='1' diaginertia='0.006 0.006 0.001'/>"
    "      <body pos='0 0 -0.25'><joint type='slide' axis='0 0 1'/>"
    "        <inertial pos='0 0 -0.05' mass='0.3' diaginertia='0.001 0.001 0.001'/></body>"
    "    </body></body>"
    "  <body name='arm_l' pos='0 0.2 0.3' euler='0.3 0 0'><joint type='ball'/>"
    "    <inertial pos='0 0.1 -0.1' mass='1.5' diaginertia='0.01 0.012 0.004'/>"
    "    <body name='forearm_l' pos='0 0.05 -0.3'><joint type='hinge' axis='1 0 0'/>"
    "      <inertial pos='0 0 -0.12' mass='1' diaginertia='0.006 0.006 0.001'/>"
    "      <body pos='0 0 -0.25'><joint type='slide' axis='0 0.3 1'/>"
    "        <inertial pos='0 0 -0.05' mass='0.3' diaginertia='0.001 0.001 0.001'/></body>"
    "    </body></body>"
    "</body>"
    "<body pos='3 0 1'><joint type='hinge' axis='0 1 0'/>"
    "  <inertial pos='0 0 -0.3' mass='1' diaginertia='0.01 0.01 0.01'/>"
    "  <body pos='0 0 -0.6'><joint type='slide' axis='1 0 0'/>"
    "    <inertial pos='0 0 -0.1' mass='0.5' diaginertia='0.002 0.002 0.002'/></body>"
    "</body></worldbody></mujoco>";

static void position_stages(const imp_model* m, imp_data* d) {
  imp_kinematics(m, d);
  imp_com_pos(m, d);
  imp_crb(m, d);
}

/* Planar double pendulum of uniform rods (length L_i, mass m_i, com at the
   middle, I_i = m_i L_i^2 / 12 about the y axis), hinges about y:
     M11 = I1 + m1 c1^2 + I2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2)
     M12 = I2 + m2 (c2^2 + l1 c2 cos q2)
     M22 = I2 + m2 c2^2 */
START_TEST(test_double_pendulum_mass_matrix_analytic) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body pos='0 0 2'><joint type='hinge' axis='0 1 0'/>"
      "  <inertial pos='0 0 -0.4' mass='2' diaginertia='0.10666666666666667 0.10666666666666667 0.001'/>"
      "  <body pos='0 0 -0.8'><joint type='hinge' axis='0 1 0'/>"
      "    <inertial pos='0 0 -0.3' mass='1.5' diaginertia='0.045 0.045 0.001'/>"
      "  </body></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  const double m1 = 2, m2 = 1.5, l1 = 0.8, c1 = 0.4, c2 = 0.3;
  const double I1 = m1 * 0.8 * 0.8 / 12, I2 = m2 * 0.6 * 0.6 / 12;
  ck_assert_int_eq(m->nM, 3);
  for (int t = 0; t < 20; t++) {
    d->qpos[0] = imp_test_urand(-3, 3);
    d->qpos[1] = imp_test_urand(-3, 3);
    position_stages(m, d);
    double D[4], cq = cos(d->qpos[1]);
    sparse2dense(m, D, d->qM);
    double M11 = I1 + m1 * c1 * c1 + I2 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * cq);
    double M12 = I2 + m2 * (c2 * c2 + l1 * c2 * cq), M22 = I2 + m2 * c2 * c2;
    imp_assert_near(D[0], M11, 1e-14);
    imp_assert_near(D[1], M12, 1e-14);
    imp_assert_near(D[2], M12, 1e-14);
    imp_assert_near(D[3], M22, 1e-14);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* M from CRBA equals sum_b m Jv'Jv + Jw' I Jw with finite-difference
   Jacobians, on a branched tree with every joint type and two trees. */
START_TEST(test_crb_matches_jacobian_definition) {
  imp_model* m = imp_test_load_string_nowarn(k_humanoid);
  ck_assert_int_eq(m->nv, 27);
  int nv = m->nv, nb = m->nbody;
  imp_data* d = imp_make_data(m);
  imp_data* dp = imp_make_data(m);
  imp_data* dm = imp_make_data(m);
  double* Jv = calloc((size_t)nb * 3 * nv, sizeof(double));
  double* Jw = calloc((size_t)nb * 3 * nv, sizeof(double));
  double* Mfd = calloc((size_t)nv * nv, sizeof(double));
  double* Md = calloc((size_t)nv * nv, sizeof(double));
  double* e = calloc((size_t)nv, sizeof(double));
  const double eps = 1e-6;
  for (int t = 0; t < 3; t++) {
    imp_test_random_qpos(m, d->qpos);
    position_stages(m, d);
    for (int i = 0; i < nv; i++) {
      memset(e, 0, sizeof(double) * nv);
      e[i] = 1;
      imp_copy(dp->qpos, d->qpos, m->nq);
      imp_copy(dm->qpos, d->qpos, m->nq);
      imp_integrate_pos(m, dp->qpos, e, eps);
      imp_integrate_pos(m, dm->qpos, e, -eps);
      imp_kinematics(m, dp);
      imp_kinematics(m, dm);
      for (int b = 1; b < nb; b++) {
        double dR[9], W[9];
        for (int k = 0; k < 3; k++)
          Jv[(3 * b + k) * nv + i] = (dp->xipos[3 * b + k] - dm->xipos[3 * b + k]) / (2 * eps);
        for (int k = 0; k < 9; k++) dR[k] = (dp->xmat[9 * b + k] - dm->xmat[9 * b + k]) / (2 * eps);
        /* [w]x = dR R' */
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++)
            W[3 * r + c] = dR[3 * r] * d->xmat[9 * b + 3 * c] + dR[3 * r + 1] * d->xmat[9 * b + 3 * c + 1] +
                           dR[3 * r + 2] * d->xmat[9 * b + 3 * c + 2];
        Jw[(3 * b + 0) * nv + i] = W[7];
        Jw[(3 * b + 1) * nv + i] = W[2];
        Jw[(3 * b + 2) * nv + i] = W[3];
      }
    }
    memset(Mfd, 0, sizeof(double) * nv * nv);
    for (int b = 1; b < nb; b++) {
      double I[9];
      world_inertia(I, m, d, b);
      for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) {
          double s = 0;
          for (int k = 0; k < 3; k++) s += m->body_mass[b] * Jv[(3 * b + k) * nv + i] * Jv[(3 * b + k) * nv + j];
          for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) s += Jw[(3 * b + k) * nv + i] * I[3 * k + l] * Jw[(3 * b + l) * nv + j];
          Mfd[nv * i + j] += s;
        }
    }
    sparse2dense(m, Md, d->qM);
    /* central differences: O(eps^2) truncation and 1e-16/eps rounding on
       Jacobian entries of order 1, times masses of order 10 */
    for (int i = 0; i < nv * nv; i++)
      ck_assert_msg(fabs(Md[i] - Mfd[i]) < 1e-8, "M(%d,%d) = %.12g, Jacobian definition %.12g",
                    i / nv, i % nv, Md[i], Mfd[i]);
  }
  free(Jv);
  free(Jw);
  free(Mfd);
  free(Md);
  free(e);
  imp_free_data(d);
  imp_free_data(dp);
  imp_free_data(dm);
  imp_free_model(m);
}
END_TEST

/* 1/2 v'Mv = sum_b 1/2 m |v_com|^2 + 1/2 w' I w, and M is positive
   definite (a dense Cholesky of it has positive pivots). */
START_TEST(test_kinetic_energy_and_positive_definite) {
  imp_model* m = imp_test_load_string_nowarn(k_humanoid);
  int nv = m->nv;
  imp_data* d = imp_make_data(m);
  double* Md = calloc((size_t)nv * nv, sizeof(double));
  double* Mv = calloc((size_t)nv, sizeof(double));
  for (int t = 0; t < 10; t++) {
    imp_test_random_qpos(m, d->qpos);
    for (int i = 0; i < nv; i++) d->qvel[i] = imp_test_urand(-2, 2);
    position_stages(m, d);
    imp_com_vel(m, d);
    imp_mul_sparse(m, d->qM, Mv, d->qvel);
    double T = 0.5 * imp_dot(d->qvel, Mv, nv), Tb = 0;
    for (int b = 1; b < m->nbody; b++) {
      const double* cv = d->cvel + 6 * b;
      const double* ref = d->subtree_com + 3 * m->body_rootid[b];
      double r[3], wr[3], v[3], I[9], Iw[3];
      for (int i = 0; i < 3; i++) r[i] = d->xipos[3 * b + i] - ref[i];
      imp_cross(wr, cv, r);
      for (int i = 0; i < 3; i++) v[i] = cv[3 + i] + wr[i];
      world_inertia(I, m, d, b);
      imp_mat3_vec(Iw, I, cv);
      Tb += 0.5 * m->body_mass[b] * imp_dot(v, v, 3) + 0.5 * imp_dot(cv, Iw, 3);
    }
    imp_assert_near(T, Tb, 1e-12 * Tb);
    /* dense Cholesky */
    sparse2dense(m, Md, d->qM);
    for (int j = 0; j < nv; j++) {
      double s = Md[nv * j + j];
      for (int k = 0; k < j; k++) s -= Md[nv * j + k] * Md[nv * j + k];
      ck_assert_msg(s > 0, "M is not positive definite: pivot %d is %g", j, s);
      Md[nv * j + j] = sqrt(s);
      for (int i = j + 1; i < nv; i++) {
        double r = Md[nv * i + j];
        for (int k = 0; k < j; k++) r -= Md[nv * i + k] * Md[nv * j + k];
        Md[nv * i + j] = r / Md[nv * j + j];
      }
    }
  }
  free(Md);
  free(Mv);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* imp_solve_sparse(imp_factor_sparse(M)) inverts M: M x = y to rounding,
   also in place (LD aliasing M, x aliasing y), and imp_mul_sparse equals the
   dense product. */
START_TEST(test_factor_solve_inverts_m) {
  imp_model* m = imp_test_load_string_nowarn(k_humanoid);
  int nv = m->nv;
  imp_data* d = imp_make_data(m);
  double* Md = calloc((size_t)nv * nv, sizeof(double));
  double* x = calloc((size_t)nv, sizeof(double));
  double* y = calloc((size_t)nv, sizeof(double));
  double* Mx = calloc((size_t)nv, sizeof(double));
  double* dense = calloc((size_t)nv, sizeof(double));
  double* LD = calloc((size_t)m->nM, sizeof(double));
  double* dinv = calloc((size_t)nv, sizeof(double));
  for (int t = 0; t < 10; t++) {
    imp_test_random_qpos(m, d->qpos);
    position_stages(m, d);
    imp_factor_m(m, d);
    sparse2dense(m, Md, d->qM);
    for (int i = 0; i < nv; i++) y[i] = imp_test_urand(-10, 10);
    /* mul_m against the dense product */
    imp_mul_sparse(m, d->qM, Mx, y);
    for (int i = 0; i < nv; i++) {
      dense[i] = 0;
      for (int j = 0; j < nv; j++) dense[i] += Md[nv * i + j] * y[j];
    }
    imp_assert_vec_near(Mx, dense, nv, 1e-13);
    /* solve */
    imp_solve_sparse(m, d->qLD, d->qLDiagInv, x, y);
    imp_mul_sparse(m, d->qM, Mx, x);
    imp_assert_vec_near(Mx, y, nv, 1e-12);
    /* in place */
    imp_copy(LD, d->qM, m->nM);
    imp_factor_sparse(m, LD, dinv, LD);
    imp_assert_vec_near(LD, d->qLD, m->nM, 0);
    imp_assert_vec_near(dinv, d->qLDiagInv, nv, 0);
    imp_copy(Mx, y, nv);
    imp_solve_sparse(m, d->qLD, d->qLDiagInv, Mx, Mx);
    imp_assert_vec_near(Mx, x, nv, 0);
  }
  free(Md);
  free(x);
  free(y);
  free(Mx);
  free(dense);
  free(LD);
  free(dinv);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* imp_factor_lu on an unsymmetric matrix with M's pattern, A = M - h D for
   a random D on that pattern: A x = y to rounding (dense product), in place;
   and with Au = Al it is imp_factor_sparse's L'DL bit for bit. */
START_TEST(test_factor_lu_inverts_unsymmetric) {
  imp_model* m = imp_test_load_string_nowarn(k_humanoid);
  int nv = m->nv;
  imp_data* d = imp_make_data(m);
  double* Al = calloc((size_t)m->nM, sizeof(double));
  double* Au = calloc((size_t)m->nM, sizeof(double));
  double* dinv = calloc((size_t)nv, sizeof(double));
  double* A = calloc((size_t)nv * nv, sizeof(double));
  double* x = calloc((size_t)nv, sizeof(double));
  double* y = calloc((size_t)nv, sizeof(double));
  for (int t = 0; t < 10; t++) {
    imp_test_random_qpos(m, d->qpos);
    position_stages(m, d);
    imp_factor_m(m, d);
    for (int k = 0; k < m->nM; k++) {
      Al[k] = d->qM[k] + 0.05 * imp_test_urand(-1, 1) * d->qM[k];
      Au[k] = d->qM[k] + 0.05 * imp_test_urand(-1, 1) * d->qM[k];
    }
    for (int i = 0; i < nv; i++) Au[m->dof_Madr[i]] = Al[m->dof_Madr[i]];
    memset(A, 0, sizeof(double) * (size_t)nv * nv);
    for (int i = 0; i < nv; i++) {
      int adr = m->dof_Madr[i];
      for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
        A[nv * i + j] = Al[adr];
        A[nv * j + i] = Au[adr];
      }
    }
    for (int i = 0; i < nv; i++) y[i] = imp_test_urand(-10, 10);
    imp_factor_lu(m, Al, Au, dinv);
    imp_solve_lu(m, Al, Au, dinv, x, y);
    double worst = 0;
    for (int i = 0; i < nv; i++) {
      double r = -y[i];
      for (int j = 0; j < nv; j++) r += A[nv * i + j] * x[j];
      worst = fmax(worst, fabs(r));
    }
    ck_assert_msg(worst < 1e-11, "A x - y = %.3e", worst);
    imp_solve_lu(m, Al, Au, dinv, y, y); /* in place */
    imp_assert_vec_near(y, x, nv, 0);
    /* symmetric: the same factor as L'DL */
    imp_copy(Al, d->qM, m->nM);
    imp_copy(Au, d->qM, m->nM);
    imp_factor_lu(m, Al, Au, dinv);
    imp_assert_vec_near(Al, d->qLD, m->nM, 0);
    imp_assert_vec_near(Au, d->qLD, m->nM, 0);
    imp_assert_vec_near(dinv, d->qLDiagInv, nv, 0);
  }
  free(Al);
  free(Au);
  free(dinv);
  free(A);
  free(x);
  free(y);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Armature adds to the diagonal of M and nowhere else. */
START_TEST(test_armature_adds_to_diagonal_only) {
  imp_model* m0 = imp_test_load_string_nowarn(k_humanoid);
  size_t len = strlen(k_humanoid) + 1;
  char* xml = malloc(len);
  memcpy(xml, k_humanoid, len);
  char* p = strstr(xml, "armature='0'");
  ck_assert_ptr_nonnull(p);
  memcpy(p, "armature='7'", 12);
  imp_model* m1 = imp_test_load_string_nowarn(xml);
  free(xml);
  imp_data* d0 = imp_make_data(m0);
  imp_data* d1 = imp_make_data(m1);
  imp_test_random_qpos(m0, d0->qpos);
  imp_copy(d1->qpos, d0->qpos, m0->nq);
  position_stages(m0, d0);
  position_stages(m1, d1);
  int nfree = 0;
  for (int i = 0; i < m0->nv; i++) {
    int type = m0->jnt_type[m0->dof_jntid[i]];
    /* the default class applies to <joint>, not to <freejoint> */
    double arm = type == IMP_JNT_FREE ? 0 : 7;
    nfree += type == IMP_JNT_FREE;
    imp_assert_near(m1->dof_armature[i], arm, 0);
    int adr = m0->dof_Madr[i];
    imp_assert_near(d1->qM[adr] - d0->qM[adr], arm, 1e-13);
    for (int j = m0->dof_parentid[i], a = adr + 1; j >= 0; j = m0->dof_parentid[j], a++)
      imp_assert_near(d1->qM[a], d0->qM[a], 0);
  }
  ck_assert_int_eq(nfree, 6);
  imp_free_data(d0);
  imp_free_data(d1);
  imp_free_model(m0);
  imp_free_model(m1);
}
END_TEST

int main(void) {
  imp_test_rng = 0x853c49e6748fea9bull;
  Suite* s = suite_create("inertia");
  TCase* tc = tcase_create("inertia");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_double_pendulum_mass_matrix_analytic);
  tcase_add_test(tc, test_crb_matches_jacobian_definition);
  tcase_add_test(tc, test_kinetic_energy_and_positive_definite);
  tcase_add_test(tc, test_factor_solve_inverts_m);
  tcase_add_test(tc, test_factor_lu_inverts_unsymmetric);
  tcase_add_test(tc, test_armature_adds_to_diagonal_only);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
