/* Unit tests of forward kinematics (engine/smooth/kinematics.c).
 *
 * Positions and orientations are checked against closed-form forward
 * kinematics (the planar two-link arm), against frames composed by hand
 * from rotation matrices (Rodrigues' formula, not the engine's quaternion
 * code), and against invariants (a joint anchor does not move). Velocities
 * (cvel) and the motion-axis derivatives (cdof_dot) are checked against
 * central finite differences of the positions along a random qvel, with
 * positions advanced by imp_integrate_pos. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

/* Rodrigues' rotation matrix about axis n (normalized here) */
static void rodrigues(double R[9], const double axis[3], double angle) {
  double n[3] = {axis[0], axis[1], axis[2]};
  double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int i = 0; i < 3; i++) n[i] /= l;
  double c = cos(angle), s = sin(angle), t = 1 - c;
  double M[9] = {c + t * n[0] * n[0],        t * n[0] * n[1] - s * n[2], t * n[0] * n[2] + s * n[1],
                 t * n[1] * n[0] + s * n[2], c + t * n[1] * n[1],        t * n[1] * n[2] - s * n[0],
                 t * n[2] * n[0] - s * n[1], t * n[2] * n[1] + s * n[0], c + t * n[2] * n[2]};
  memcpy(R, M, sizeof M);
}

static void matmul3(double C[9], const double A[9], const double B[9]) {
  double T[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      T[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
  memcpy(C, T, sizeof T);
}

static void matvec3(double r[3], const double A[9], const double v[3]) {
  double t[3];
  for (int i = 0; i < 3; i++) t[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
  memcpy(r, t, sizeof t);
}

/* x = p + R v */
static void transform(double x[3], const double p[3], const double R[9], const double v[3]) {
  matvec3(x, R, v);
  for (int i = 0; i < 3; i++) x[i] += p[i];
}

/* ---- positions ---- */

/* Two links hanging along -z from a pivot at height 2, both hinges about y.
   A rotation by q about y takes (0, 0, -l) to (-l sin q, 0, -l cos q), so
   the tip is at (-(l1 sin q1 + l2 sin(q1+q2)), 0, 2 - (l1 cos q1 + l2 cos(q1+q2))). */
static const char* k_planar =
    "<mujoco><compiler angle='radian'/><worldbody>"
    "<body name='l1' pos='0 0 2'><joint type='hinge' axis='0 1 0'/>"
    "  <inertial pos='0 0 -0.35' mass='1' diaginertia='0.01 0.01 0.001'/>"
    "  <body name='l2' pos='0 0 -0.7'><joint type='hinge' axis='0 1 0'/>"
    "    <inertial pos='0 0 -0.25' mass='0.5' diaginertia='0.01 0.01 0.001'/>"
    "    <site name='tip' pos='0 0 -0.5'/>"
    "  </body></body></worldbody></mujoco>";

START_TEST(test_planar_two_link_matches_analytic) {
  imp_model* m = imp_test_load_string_nowarn(k_planar);
  imp_data* d = imp_make_data(m);
  int tip = imp_test_id(m, IMP_OBJ_SITE, "tip"), b2 = imp_test_id(m, IMP_OBJ_BODY, "l2");
  const double l1 = 0.7, l2 = 0.5;
  for (int t = 0; t < 50; t++) {
    double q1 = imp_test_urand(-4, 4), q2 = imp_test_urand(-4, 4);
    d->qpos[0] = q1;
    d->qpos[1] = q2;
    imp_kinematics(m, d);
    double expect[3] = {-(l1 * sin(q1) + l2 * sin(q1 + q2)), 0,
                        2 - (l1 * cos(q1) + l2 * cos(q1 + q2))};
    imp_assert_vec_near(d->site_xpos + 3 * tip, expect, 3, 1e-14);
    /* elbow and the second link's com */
    double elbow[3] = {-l1 * sin(q1), 0, 2 - l1 * cos(q1)};
    imp_assert_vec_near(d->xpos + 3 * b2, elbow, 3, 1e-14);
    double com2[3] = {elbow[0] - 0.25 * sin(q1 + q2), 0, elbow[2] - 0.25 * cos(q1 + q2)};
    imp_assert_vec_near(d->xipos + 3 * b2, com2, 3, 1e-14);
    /* orientation: a rotation by q1 + q2 about y */
    double R[9], y[3] = {0, 1, 0};
    rodrigues(R, y, q1 + q2);
    imp_assert_vec_near(d->xmat + 9 * b2, R, 9, 1e-14);
    imp_assert_vec_near(d->site_xmat + 9 * tip, R, 9, 1e-14);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Slide joint with ref: qpos0 = ref, and the body moves from its file pose
   by (qpos - ref) along the axis, the axis given in the (rotated) body frame. */
START_TEST(test_slide_moves_along_axis_by_q_minus_ref) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body name='base' pos='0.3 -0.2 0.5' axisangle='0 0 1 0.7'>"
      "<body name='b' pos='0.1 0.2 0.3' axisangle='1 0 0 0.4'>"
      "<joint type='slide' axis='1 2 2' ref='0.3'/>"
      "<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/></body></body>"
      "</worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  int b = imp_test_id(m, IMP_OBJ_BODY, "b");
  imp_assert_near(m->qpos0[0], 0.3, 0);
  imp_assert_near(d->qpos[0], 0.3, 0);
  double Rbase[9], Rb[9], R[9], z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  rodrigues(Rbase, z, 0.7);
  rodrigues(Rb, x, 0.4);
  matmul3(R, Rbase, Rb);
  double p0[3], base[3] = {0.3, -0.2, 0.5}, off[3] = {0.1, 0.2, 0.3};
  transform(p0, base, Rbase, off);
  double axis_body[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, axis[3];
  matvec3(axis, R, axis_body);
  for (int t = 0; t < 20; t++) {
    double q = imp_test_urand(-2, 2);
    d->qpos[0] = q;
    imp_kinematics(m, d);
    double expect[3];
    for (int i = 0; i < 3; i++) expect[i] = p0[i] + (q - 0.3) * axis[i];
    imp_assert_vec_near(d->xpos + 3 * b, expect, 3, 1e-14);
    imp_assert_vec_near(d->xmat + 9 * b, R, 9, 1e-15); /* no rotation */
    imp_assert_vec_near(d->xaxis, axis, 3, 1e-15);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Hinge with ref and an off-centre anchor, two hinges on one body applied in
   file order: R = R_file Rot(a1, q1 - ref1) Rot(a2, q2), the second axis in
   the frame already turned by the first; the anchor of the first joint is a
   fixed point in space for every q. */
START_TEST(test_hinges_in_file_order_and_fixed_anchor) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body name='b' pos='0.5 0.1 1' axisangle='1 1 0 0.3'>"
      "<joint name='j1' type='hinge' axis='0 0 1' pos='0.2 0 0' ref='0.25'/>"
      "<joint name='j2' type='hinge' axis='1 0 0' pos='0.2 0 0'/>"
      "<inertial pos='0.1 0 0' mass='1' diaginertia='1 1 1'/>"
      "<geom name='g' type='box' size='0.1 0.05 0.02' pos='0.3 0.1 0' axisangle='0 1 0 0.5'/>"
      "</body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  int b = imp_test_id(m, IMP_OBJ_BODY, "b"), g = imp_test_id(m, IMP_OBJ_GEOM, "g");
  double R0[9], n0[3] = {1, 1, 0}, p0[3] = {0.5, 0.1, 1}, anchor_body[3] = {0.2, 0, 0};
  rodrigues(R0, n0, 0.3);
  double anchor[3];
  transform(anchor, p0, R0, anchor_body);
  double a1[3] = {0, 0, 1}, a2[3] = {1, 0, 0}, gaxis[3] = {0, 1, 0}, gpos[3] = {0.3, 0.1, 0};
  for (int t = 0; t < 30; t++) {
    double q1 = imp_test_urand(-3, 3), q2 = imp_test_urand(-3, 3);
    d->qpos[0] = q1;
    d->qpos[1] = q2;
    imp_kinematics(m, d);
    double R1[9], R2[9], R[9], Rg[9], G[9];
    rodrigues(R1, a1, q1 - 0.25);
    rodrigues(R2, a2, q2);
    matmul3(R, R0, R1);
    matmul3(R, R, R2);
    imp_assert_vec_near(d->xmat + 9 * b, R, 9, 1e-14);
    /* the body point at the anchor stays at the anchor */
    double pa[3];
    transform(pa, d->xpos + 3 * b, d->xmat + 9 * b, anchor_body);
    imp_assert_vec_near(pa, anchor, 3, 1e-14);
    imp_assert_vec_near(d->xanchor, anchor, 3, 1e-14);
    imp_assert_vec_near(d->xanchor + 3, anchor, 3, 1e-14);
    /* body origin: anchor - R anchor_body */
    double org[3];
    matvec3(org, R, anchor_body);
    for (int i = 0; i < 3; i++) org[i] = anchor[i] - org[i];
    imp_assert_vec_near(d->xpos + 3 * b, org, 3, 1e-14);
    /* world axes: the first turns with R0 only, the second with R0 R1 */
    double w1[3], w2[3], R01[9];
    matvec3(w1, R0, a1);
    matmul3(R01, R0, R1);
    matvec3(w2, R01, a2);
    imp_assert_vec_near(d->xaxis, w1, 3, 1e-15);
    imp_assert_vec_near(d->xaxis + 3, w2, 3, 1e-14);
    /* the geom follows: x = xpos + R gpos, frame R Rg */
    double gx[3];
    transform(gx, org, R, gpos);
    imp_assert_vec_near(d->geom_xpos + 3 * g, gx, 3, 1e-14);
    rodrigues(Rg, gaxis, 0.5);
    matmul3(G, R, Rg);
    imp_assert_vec_near(d->geom_xmat + 9 * g, G, 9, 1e-14);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A free root with a ball-jointed child: the root sits exactly at qpos
   (whatever its file pose), qpos0 is the file pose; the child's frame is
   root * (body offset) * (qpos quaternion, normalized) about its anchor. */
START_TEST(test_free_and_ball_joints) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><compiler angle='radian'/><worldbody>"
      "<body name='root' pos='1 2 3' axisangle='0 1 0 0.4'><freejoint/>"
      "  <inertial pos='0 0 0' mass='2' diaginertia='1 1 1'/>"
      "  <body name='arm' pos='0.3 0 0.1' axisangle='1 0 0 0.6'>"
      "    <joint type='ball' pos='0 0.05 0'/>"
      "    <inertial pos='0.1 0 0' mass='1' diaginertia='1 1 1'/>"
      "    <site name='s' pos='0.2 0.1 -0.1' axisangle='0 0 1 0.3'/>"
      "  </body></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  int root = imp_test_id(m, IMP_OBJ_BODY, "root"), arm = imp_test_id(m, IMP_OBJ_BODY, "arm");
  int s = imp_test_id(m, IMP_OBJ_SITE, "s");
  ck_assert_int_eq(m->nq, 11);
  ck_assert_int_eq(m->nv, 9);
  double y[3] = {0, 1, 0}, x[3] = {1, 0, 0}, z[3] = {0, 0, 1}, qf[4];
  imp_axisangle2quat(qf, y, 0.4);
  double q0[11] = {1, 2, 3, qf[0], qf[1], qf[2], qf[3], 1, 0, 0, 0};
  imp_assert_vec_near(m->qpos0, q0, 11, 1e-15);
  double Rarm[9], Rs[9], anchor_body[3] = {0, 0.05, 0}, armpos[3] = {0.3, 0, 0.1};
  rodrigues(Rarm, x, 0.6);
  rodrigues(Rs, z, 0.3);
  for (int t = 0; t < 30; t++) {
    double qr[4], qb[4], Rr[9], Rb[9];
    imp_test_rand_quat(qr);
    imp_test_rand_quat(qb);
    double pos[3] = {imp_test_urand(-5, 5), imp_test_urand(-5, 5), imp_test_urand(-5, 5)}, scale = imp_test_urand(0.5, 2);
    imp_copy(d->qpos, pos, 3);
    imp_copy(d->qpos + 3, qr, 4);
    for (int i = 0; i < 4; i++) d->qpos[7 + i] = scale * qb[i]; /* not unit on purpose */
    imp_kinematics(m, d);
    imp_quat2mat(Rr, qr);
    imp_quat2mat(Rb, qb);
    imp_assert_vec_near(d->xpos + 3 * root, pos, 3, 0);
    imp_assert_vec_near(d->xmat + 9 * root, Rr, 9, 1e-15);
    /* child: R = Rr Rarm Rb, and the anchor point is where it is at qb = 1 */
    double R[9], anchor[3], org[3], ra[3];
    matmul3(R, Rr, Rarm);
    double Rnoball[9];
    memcpy(Rnoball, R, sizeof R);
    matmul3(R, R, Rb);
    imp_assert_vec_near(d->xmat + 9 * arm, R, 9, 1e-14);
    transform(org, pos, Rr, armpos);
    transform(anchor, org, Rnoball, anchor_body);
    imp_assert_vec_near(d->xanchor + 3, anchor, 3, 1e-14);
    matvec3(ra, R, anchor_body);
    for (int i = 0; i < 3; i++) org[i] = anchor[i] - ra[i];
    imp_assert_vec_near(d->xpos + 3 * arm, org, 3, 1e-14);
    double sp[3] = {0.2, 0.1, -0.1}, sx[3], SM[9];
    transform(sx, org, R, sp);
    imp_assert_vec_near(d->site_xpos + 3 * s, sx, 3, 1e-14);
    matmul3(SM, R, Rs);
    imp_assert_vec_near(d->site_xmat + 9 * s, SM, 9, 1e-14);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* ---- a tree with every joint type, for the velocity checks ---- */

static const char* k_tree =
    "<mujoco><compiler angle='radian'/><worldbody>"
    "<body name='torso' pos='0.1 0.2 1' euler='0.2 0.3 0.4'><freejoint/>"
    "  <inertial pos='0.01 0.02 0.03' quat='0.9 0.1 0.3 0.2' mass='3' diaginertia='0.1 0.2 0.15'/>"
    "  <body name='arm' pos='0.2 0 0.1' euler='0.5 0 0'>"
    "    <joint type='ball' pos='0 0 0.05'/>"
    "    <inertial pos='0.1 0 0' mass='1' diaginertia='0.01 0.02 0.025'/>"
    "    <body name='forearm' pos='0.3 0 0'>"
    "      <joint type='hinge' axis='0 1 1' pos='-0.02 0 0'/>"
    "      <joint type='slide' axis='1 0 0.5'/>"
    "      <inertial pos='0.12 0.01 0' mass='0.7' diaginertia='0.005 0.01 0.012'/>"
    "    </body></body>"
    "  <body name='leg' pos='0 0.05 -0.3' euler='0 0.2 0'>"
    "    <joint type='hinge' axis='1 0 0' pos='0 0 0.02'/>"
    "    <joint type='hinge' axis='0 1 0'/>"
    "    <inertial pos='0 0 -0.2' mass='1.5' diaginertia='0.03 0.03 0.005'/>"
    "  </body></body>"
    "<body name='pend' pos='2 0 1'><joint type='hinge' axis='0 1 0' pos='0 0 0.1'/>"
    "  <inertial pos='0 0 -0.3' mass='0.8' diaginertia='0.01 0.01 0.01'/>"
    "  <body pos='0 0 -0.6'><joint type='slide' axis='0 0 1'/>"
    "    <inertial pos='0.05 0 -0.1' mass='0.4' diaginertia='0.002 0.002 0.002'/></body>"
    "</body></worldbody></mujoco>";

static void position_stages(const imp_model* m, imp_data* d) {
  imp_kinematics(m, d);
  imp_com_pos(m, d);
}

/* A random state in d with its velocity stages, and the position stages at
   q moved by +eps and -eps along qvel in dp and dm, for central differences. */
static void random_state_and_neighbours(const imp_model* m, imp_data* d, imp_data* dp,
                                        imp_data* dm, double eps) {
  imp_test_random_state(m, d);
  position_stages(m, d);
  imp_com_vel(m, d);
  imp_copy(dp->qpos, d->qpos, m->nq);
  imp_copy(dm->qpos, d->qpos, m->nq);
  imp_integrate_pos(m, dp->qpos, d->qvel, eps);
  imp_integrate_pos(m, dm->qpos, d->qvel, -eps);
  position_stages(m, dp);
  position_stages(m, dm);
}

/* cvel of every body against central differences along qvel:
   angular velocity from (R+ - R-)/(2e) R' = [w]x, com velocity from the
   com positions; cvel holds (w; velocity of the point at the tree's ref),
   so v_com = v_ref + w x (xipos - ref). */
START_TEST(test_cvel_matches_finite_differences) {
  imp_model* m = imp_test_load_string_nowarn(k_tree);
  imp_data* d = imp_make_data(m);
  imp_data* dp = imp_make_data(m);
  imp_data* dm = imp_make_data(m);
  const double eps = 1e-6;
  for (int t = 0; t < 10; t++) {
    random_state_and_neighbours(m, d, dp, dm, eps);
    for (int b = 1; b < m->nbody; b++) {
      const double* cv = d->cvel + 6 * b;
      const double* ref = d->subtree_com + 3 * m->body_rootid[b];
      double r[3], wr[3], vcom[3], fd[3];
      for (int i = 0; i < 3; i++) r[i] = d->xipos[3 * b + i] - ref[i];
      imp_cross(wr, cv, r);
      for (int i = 0; i < 3; i++) {
        vcom[i] = cv[3 + i] + wr[i];
        fd[i] = (dp->xipos[3 * b + i] - dm->xipos[3 * b + i]) / (2 * eps);
      }
      imp_assert_vec_near(vcom, fd, 3, 1e-8);
      /* dR/dt R' = [w]x */
      double dR[9], RT[9], WW[9];
      for (int i = 0; i < 9; i++) dR[i] = (dp->xmat[9 * b + i] - dm->xmat[9 * b + i]) / (2 * eps);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) RT[3 * i + j] = d->xmat[9 * b + 3 * j + i];
      matmul3(WW, dR, RT);
      double w[3] = {WW[7], WW[2], WW[3]};
      imp_assert_vec_near(cv, w, 3, 1e-8);
      /* [w]x is skew: the diagonal of dR R' vanishes */
      for (int i = 0; i < 3; i++) imp_assert_near(WW[4 * i], 0, 1e-8);
    }
  }
  imp_free_data(d);
  imp_free_data(dp);
  imp_free_data(dm);
  imp_free_model(m);
}
END_TEST

/* cdof_dot is the time derivative of cdof along qvel with the reference
   point held fixed in space (the com frame of the current instant):
   differentiate cdof(q +- e qvel), each moved to the ref point of q
   (linear part l + a x (ref - ref+-)). */
START_TEST(test_cdof_dot_matches_finite_differences) {
  imp_model* m = imp_test_load_string_nowarn(k_tree);
  imp_data* d = imp_make_data(m);
  imp_data* dp = imp_make_data(m);
  imp_data* dm = imp_make_data(m);
  const double eps = 1e-6;
  for (int t = 0; t < 10; t++) {
    random_state_and_neighbours(m, d, dp, dm, eps);
    for (int k = 0; k < m->nv; k++) {
      int root = m->body_rootid[m->dof_bodyid[k]];
      const double* ref = d->subtree_com + 3 * root;
      double sp[6], sm[6], fd[6], t3[3], dr[3];
      imp_copy(sp, dp->cdof + 6 * k, 6);
      imp_copy(sm, dm->cdof + 6 * k, 6);
      for (int i = 0; i < 3; i++) dr[i] = ref[i] - dp->subtree_com[3 * root + i];
      imp_cross(t3, sp, dr);
      for (int i = 0; i < 3; i++) sp[3 + i] += t3[i];
      for (int i = 0; i < 3; i++) dr[i] = ref[i] - dm->subtree_com[3 * root + i];
      imp_cross(t3, sm, dr);
      for (int i = 0; i < 3; i++) sm[3 + i] += t3[i];
      for (int i = 0; i < 6; i++) fd[i] = (sp[i] - sm[i]) / (2 * eps);
      ck_assert_msg(imp_max_abs_diff(d->cdof_dot + 6 * k, fd, 6) < 1e-8,
                    "dof %d (joint type %d): cdof_dot differs from d/dt cdof by %.3e", k,
                    m->jnt_type[m->dof_jntid[k]], imp_max_abs_diff(d->cdof_dot + 6 * k, fd, 6));
    }
  }
  imp_free_data(d);
  imp_free_data(dp);
  imp_free_data(dm);
  imp_free_model(m);
}
END_TEST

/* subtree_com is the mass-weighted mean of the com of every body below;
   cdof columns have unit angular (rotation) or unit linear (translation) part. */
START_TEST(test_subtree_com_and_cdof_axes) {
  imp_model* m = imp_test_load_string_nowarn(k_tree);
  imp_data* d = imp_make_data(m);
  imp_test_random_state(m, d);
  position_stages(m, d);
  for (int b = 1; b < m->nbody; b++) {
    double mc[3] = {0, 0, 0}, mass = 0;
    for (int c = b; c < m->nbody; c++) {
      int a = c;
      while (a > b) a = m->body_parentid[a];
      if (a != b) continue;
      mass += m->body_mass[c];
      for (int i = 0; i < 3; i++) mc[i] += m->body_mass[c] * d->xipos[3 * c + i];
    }
    for (int i = 0; i < 3; i++) mc[i] /= mass;
    imp_assert_near(m->body_subtreemass[b], mass, 1e-14);
    imp_assert_vec_near(d->subtree_com + 3 * b, mc, 3, 1e-14);
  }
  for (int k = 0; k < m->nv; k++) {
    double na = imp_norm3(d->cdof + 6 * k), nl = imp_norm3(d->cdof + 6 * k + 3);
    int type = m->jnt_type[m->dof_jntid[k]];
    int translation = type == IMP_JNT_SLIDE || (type == IMP_JNT_FREE && k - m->jnt_dofadr[m->dof_jntid[k]] < 3);
    if (translation) {
      imp_assert_near(na, 0, 0);
      imp_assert_near(nl, 1, 1e-15);
    } else {
      imp_assert_near(na, 1, 1e-15);
    }
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A free box with a camera and a light in each moving mode; at qpos0 the
   box is unrotated, so qpos0's world offsets are the file's positions. */
static const char* const k_camlight =
    "<mujoco><worldbody>"
    "  <body name='target' pos='3 0 0'><joint axis='0 0 1'/>"
    "    <geom type='sphere' size='.1' pos='.5 0 0'/></body>"
    "  <body name='box' pos='0 0 1'><freejoint/><geom type='box' size='.2 .1 .1'/>"
    "    <body pos='.4 0 0'><geom type='sphere' size='.1' mass='3'/></body>"
    "    <camera pos='0 -1 0' euler='90 0 0' mode='track'/>"
    "    <camera pos='0 -1 .5' euler='90 0 0' mode='trackcom'/>"
    "    <camera pos='0 .5 .5' mode='targetbody' target='target'/>"
    "    <light pos='0 0 2' dir='0 0 -1' mode='track'/>"
    "    <light pos='0 0 2' mode='targetbodycom' target='target'/>"
    "  </body></worldbody></mujoco>";

/* Column k of a row-major 3x3 matrix. */
static void column(double v[3], const double* R, int k) {
  for (int i = 0; i < 3; i++) v[i] = R[3 * i + k];
}

START_TEST(test_camera_and_light_modes) {
  imp_model* m = imp_test_load_string_nowarn(k_camlight);
  imp_data* d0 = imp_make_data(m);
  imp_data* d = imp_make_data(m);
  position_stages(m, d0);
  imp_camlight(m, d0);
  imp_test_random_state(m, d);
  position_stages(m, d);
  imp_camlight(m, d);
  int box = imp_test_id(m, IMP_OBJ_BODY, "box"), tgt = imp_test_id(m, IMP_OBJ_BODY, "target");
  double R0[9], q[4], ex[3] = {1, 0, 0};
  imp_axisangle2quat(q, ex, IMP_PI / 2);
  imp_quat2mat(R0, q); /* the file's euler='90 0 0' */
  for (int c = 0; c < 2; c++) { /* track, trackcom: qpos0's orientation, world offset */
    const double* o = c == 0 ? d->xpos + 3 * box : d->subtree_com + 3 * box;
    const double* o0 = c == 0 ? d0->xpos + 3 * box : d0->subtree_com + 3 * box;
    double off[3], off0[3];
    for (int i = 0; i < 3; i++)
      off[i] = d->cam_xpos[3 * c + i] - o[i], off0[i] = d0->cam_xpos[3 * c + i] - o0[i];
    imp_assert_vec_near(off, off0, 3, 1e-12);
    imp_assert_vec_near(d->cam_xmat + 9 * c, R0, 9, 1e-12);
  }
  /* qpos0's offset: the file's position, the box unrotated */
  double want[3] = {0, -1, 1};
  imp_assert_vec_near(d0->cam_xpos, want, 3, 1e-12);
  /* targetbody: -z looks at the target's origin, x level */
  double x[3], z[3], v[3];
  column(x, d->cam_xmat + 18, 0);
  column(z, d->cam_xmat + 18, 2);
  for (int i = 0; i < 3; i++) v[i] = d->xpos[3 * tgt + i] - d->cam_xpos[6 + i];
  imp_normalize3(v);
  imp_scl(z, z, -1, 3);
  imp_assert_vec_near(z, v, 3, 1e-12);
  imp_assert_near(x[2], 0, 1e-12);
  /* lights: track keeps qpos0's direction; targetbodycom aims at the com */
  imp_assert_vec_near(d->light_xdir, d0->light_xdir, 3, 1e-12);
  for (int i = 0; i < 3; i++) v[i] = d->subtree_com[3 * tgt + i] - d->light_xpos[3 + i];
  imp_normalize3(v);
  imp_assert_vec_near(d->light_xdir + 3, v, 3, 1e-12);
  imp_free_data(d0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  imp_test_rng = 0x2545f4914f6cdd1dull;
  Suite* s = suite_create("kinematics");
  TCase* tc = tcase_create("positions");
  tcase_add_test(tc, test_planar_two_link_matches_analytic);
  tcase_add_test(tc, test_slide_moves_along_axis_by_q_minus_ref);
  tcase_add_test(tc, test_hinges_in_file_order_and_fixed_anchor);
  tcase_add_test(tc, test_free_and_ball_joints);
  tcase_add_test(tc, test_subtree_com_and_cdof_axes);
  tcase_add_test(tc, test_camera_and_light_modes);
  suite_add_tcase(s, tc);
  tc = tcase_create("velocities");
  tcase_add_test(tc, test_cvel_matches_finite_differences);
  tcase_add_test(tc, test_cdof_dot_matches_finite_differences);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
