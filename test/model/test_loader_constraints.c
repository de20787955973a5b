/* Tests of the MJCF loader: the constraint settings (solver options, njmax,
 * nJrow, solref, ball joint cones, equalities) and MuJoCo's samples with
 * equalities. Shared helpers: loader_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "loader_util.h"

/* ------------------------------------------------ constraints and solvers */

#ifndef MUJOCO_MODEL_DIR
#define MUJOCO_MODEL_DIR "/usr/share/mujoco/model"
#endif

/* option solver="..." takes our registry's names and MuJoCo's ("PGS" is
   pgs, "CG" and "Newton" the default) without a warning; anything else is
   an error at the option's line that lists the known solvers */
START_TEST(option_solver_by_name) {
  imp_model* m = imp_test_load_string_nowarn("<mujoco/>");
  ck_assert_int_eq(m->opt.solver, 0);
  ck_assert_str_eq(imp_solver_get(0)->name, "todorov");
  imp_free_model(m);
  const char* names[] = {"todorov", "pgs", "PGS", "CG", "Newton"};
  const char* means[] = {"todorov", "pgs", "pgs", "todorov", "todorov"};
  for (int i = 0; i < 5; i++) {
    char xml[200];
    snprintf(xml, sizeof xml, "<mujoco><option solver='%s'/></mujoco>", names[i]);
    m = imp_test_load_string_nowarn(xml);
    ck_assert_msg(m->opt.solver == imp_solver_find(means[i]), "%s: solver %d", names[i],
                  m->opt.solver);
    imp_free_model(m);
  }
  imp_test_expect_error("<mujoco>\n\n<option solver='xyz'/></mujoco>", 3,
               "unknown solver 'xyz' (known: todorov, pgs");
}
END_TEST

/* iterations, tolerance and the warmstart flag; flag equality='disable'
   sets IMP_DSBL_EQUALITY as MuJoCo's flag does */
START_TEST(option_iterations_tolerance_warmstart) {
  imp_model* m = load("<mujoco/>");
  ck_assert_int_eq(m->opt.iterations, 100);
  ck_assert_double_eq(m->opt.tolerance, 1e-8);
  ck_assert_int_eq(m->opt.warmstart, 1);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><option iterations='7' tolerance='1e-5'><flag warmstart='disable'/></option>"
      "</mujoco>");
  ck_assert_int_eq(m->opt.iterations, 7);
  ck_assert_double_eq(m->opt.tolerance, 1e-5);
  ck_assert_int_eq(m->opt.warmstart, 0);
  ck_assert_int_eq(m->opt.disableflags, 0);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><option><flag equality='disable' limit='disable'/></option></mujoco>");
  ck_assert_int_eq(m->opt.disableflags, IMP_DSBL_EQUALITY | IMP_DSBL_LIMIT);
  ck_assert_int_eq(m->opt.warmstart, 1);
  imp_free_model(m);
  imp_test_expect_error("<mujoco>\n<option iterations='-1'/></mujoco>", 2, "iterations");
  imp_test_expect_error("<mujoco>\n<option tolerance='-1e-3'/></mujoco>", 2, "tolerance");
}
END_TEST

/* njmax: as given, else 1000 plus 6 rows per equality and 2 per limited
   joint (a limited ball joint counts like any limited joint) */
START_TEST(njmax_default_and_given) {
  const char* body =
      "<worldbody><body name='a'><joint name='h' range='-10 10'/><joint type='slide'/>"
      "<geom size='0.1'/><body name='b'><joint type='ball' range='0 30'/><geom size='0.1'/>"
      "</body></body></worldbody><equality><connect body1='b' anchor='0 0 0'/>"
      "<joint joint1='h'/></equality>";
  char xml[1000];
  snprintf(xml, sizeof xml, "<mujoco>%s</mujoco>", body);
  imp_model* m = load(xml);
  ck_assert_int_eq(m->neq, 2);
  ck_assert_int_eq(m->njmax, 1000 + 6 * 2 + 2 * 2);
  imp_free_model(m);
  snprintf(xml, sizeof xml, "<mujoco><size njmax='-1'/>%s</mujoco>", body);
  m = load(xml);
  ck_assert_int_eq(m->njmax, 1016);
  imp_free_model(m);
  snprintf(xml, sizeof xml, "<mujoco><size njmax='37'/>%s</mujoco>", body);
  m = load(xml);
  ck_assert_int_eq(m->njmax, 37);
  imp_free_model(m);
  imp_test_expect_error("<mujoco>\n<size njmax='-2'/></mujoco>", 2, "njmax");
}
END_TEST

/* nJrow is twice the most dofs on one body's path to the root: here a free
   body (6) carrying a hinge (1) and a ball (3) below it is the longest
   chain, 10, beside a 2-dof slide chain; a model without dofs gets 1 */
START_TEST(nJrow_is_twice_the_longest_chain) {
  imp_model* m = load(
      "<mujoco><worldbody><body><freejoint/><geom size='0.1'/><body><joint/><geom size='0.1'/>"
      "<body><joint type='ball'/><geom size='0.1'/></body></body><body><joint/>"
      "<geom size='0.1'/></body></body><body><joint type='slide'/><geom size='0.1'/><body>"
      "<joint type='slide' axis='1 0 0'/><geom size='0.1'/></body></body></worldbody>"
      "</mujoco>");
  ck_assert_int_eq(m->nv, 13);
  ck_assert_int_eq(m->nJrow, 20);
  imp_free_model(m);
  m = load("<mujoco><worldbody><geom type='plane' size='1 1 1'/></worldbody></mujoco>");
  ck_assert_int_eq(m->nJrow, 1);
  imp_free_model(m);
}
END_TEST

/* solref: geom (contact), pair, joint solreflimit and equality, each (0.02,
   1) by default, from the classes, overridden by the element; the negative
   "direct" form is stored as given. Pairs take the pair class's solref, not
   the geoms' (MuJoCo 2.2.2 measured: geom solref 0.03 0.5 and pair default
   0.07 0.3 give pair_solref 0.07 0.3) */
START_TEST(solref_on_geom_pair_joint_equality_and_defaults) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><default><default class='c'><geom solref='0.03 0.5'/><pair solref='0.07 0.3'/>"
      "<joint solreflimit='0.04 0.9'/><equality solref='0.05 0.7'/></default></default>"
      "<worldbody><geom name='f' type='plane' size='1 1 1'/><body name='a'>"
      "<joint name='j0' range='-1 1'/><joint name='j1' class='c' range='-1 1'/>"
      "<joint name='j2' class='c' solreflimit='-1000 -20' range='-1 1'/>"
      "<geom name='g0' size='0.1'/><geom name='g1' class='c' size='0.1'/>"
      "<geom name='g2' class='c' size='0.1' solref='-500 -3'/></body></worldbody>"
      "<contact><pair geom1='f' geom2='g0'/><pair geom1='f' geom2='g1' class='c'/>"
      "<pair geom1='f' geom2='g2' class='c' solref='0.01 2'/></contact><equality>"
      "<weld body1='a'/><weld body1='a' class='c'/><weld body1='a' class='c' solref='0.1 3'/>"
      "</equality></mujoco>");
  /* per kind (geom, pair, joint, equality): default, class, element */
  const double want[4][3][2] = {{{0.02, 1}, {0.03, 0.5}, {-500, -3}},
                                {{0.02, 1}, {0.07, 0.3}, {0.01, 2}},
                                {{0.02, 1}, {0.04, 0.9}, {-1000, -20}},
                                {{0.02, 1}, {0.05, 0.7}, {0.1, 3}}};
  const char* geoms[3] = {"g0", "g1", "g2"};
  const char* joints[3] = {"j0", "j1", "j2"};
  for (int i = 0; i < 3; i++) {
    int g = imp_test_id(m, IMP_OBJ_GEOM, geoms[i]);
    int j = imp_test_id(m, IMP_OBJ_JOINT, joints[i]);
    assert_vec(m->geom_solref + 2 * g, want[0][i], 2, 0);
    assert_vec(m->pair_solref + 2 * i, want[1][i], 2, 0);
    assert_vec(m->jnt_solref + 2 * j, want[2][i], 2, 0);
    assert_vec(m->eq_solref + 2 * i, want[3][i], 2, 0);
  }
  assert_vec(m->geom_solref, want[0][0], 2, 0); /* the plane */
  imp_free_model(m);
}
END_TEST

/* a ball joint's range "0 a" is a cone of half-angle a: degrees by default,
   radians with compiler angle="radian"; any other lower value is an error */
START_TEST(ball_range_is_a_cone_angle) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint type='ball' range='0 40'/><geom size='0.1'/></body>"
      "</worldbody></mujoco>");
  ck_assert_int_eq(m->jnt_limited[0], 1);
  double r[2] = {0, 40 * PI / 180};
  assert_vec(m->jnt_range, r, 2, TOL);
  imp_free_model(m);
  m = load("<mujoco><compiler angle='radian'/><worldbody><body><joint type='ball' "
           "range='0 0.5'/><geom size='0.1'/></body></worldbody></mujoco>");
  double rr[2] = {0, 0.5};
  assert_vec(m->jnt_range, rr, 2, 0);
  imp_free_model(m);
  imp_test_expect_error("<mujoco><worldbody><body>\n<joint type='ball' range='10 40'/>"
               "<geom size='0.1'/></body></worldbody></mujoco>", 2,
               "ball joint range: the first value must be 0");
  imp_test_expect_error("<mujoco><worldbody><body>\n<joint type='ball' range='0 0'/>"
               "<geom size='0.1'/></body></worldbody></mujoco>", 2, "cone angle must be positive");
}
END_TEST

/* two top-level bodies: a at (1,0,0) turned 90 deg about z, b at (0,0,1)
   turned 90 deg about x */
#define EQ_PAIR_BODIES                                                                    \
  "<worldbody><body name='a' pos='1 0 0' axisangle='0 0 1 90'><freejoint/>"               \
  "<geom size='0.1'/></body><body name='b' pos='0 0 1' axisangle='1 0 0 90'><freejoint/>" \
  "<geom size='0.1'/></body></worldbody>"

/* connect: the anchor (0.5,0,0) of a is the world point (1,0.5,0); in b's
   frame that is Rx(90)' ((1,0.5,0) - (0,0,1)) = (1,-1,-0.5). With body2
   omitted the second body is the world and the point is (1,0.5,0) */
START_TEST(connect_anchor_in_both_frames) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco>" EQ_PAIR_BODIES "<equality><connect name='c' body1='a' body2='b' "
      "anchor='0.5 0 0'/><connect body1='a' anchor='0.5 0 0' active='false'/></equality>"
      "</mujoco>");
  ck_assert_int_eq(m->neq, 2);
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_CONNECT);
  ck_assert_int_eq(m->eq_obj1id[0], 1);
  ck_assert_int_eq(m->eq_obj2id[0], 2);
  ck_assert_int_eq(m->eq_obj2id[1], 0);
  ck_assert_int_eq(m->eq_active[0], 1);
  ck_assert_int_eq(m->eq_active[1], 0);
  double e0[11] = {0.5, 0, 0, 1, -1, -0.5}, e1[11] = {0.5, 0, 0, 1, 0.5, 0};
  assert_vec(m->eq_data, e0, 11, TOL);
  assert_vec(m->eq_data + 11, e1, 11, TOL);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_EQUALITY, "c"), 0);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_EQUALITY, 1), "");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_EQUALITY, "nope"), -1);
  imp_free_model(m);
}
END_TEST

/* weld from qpos0: b's origin in a's frame is Rz(90)' ((0,0,1) - (1,0,0)) =
   (0,1,1) and q_a^-1 q_b = (c,0,0,-s)(c,s,0,0) = (1/2, 1/2, -1/2, -1/2)
   with c = s = sqrt(1/2). A relpose with a non-zero quaternion is taken as
   given (quaternion normalized); a zero quaternion means qpos0, whatever
   its position part (MuJoCo 2.2.2's default relpose is 0 1 0 0 0 0 0) */
START_TEST(weld_relative_pose_from_qpos0_and_relpose) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco>" EQ_PAIR_BODIES "<equality><weld body1='a' body2='b'/>"
      "<weld body1='a' body2='b' relpose='1 2 3 2 0 0 0'/>"
      "<weld body1='a' body2='b' relpose='5 5 5 0 0 0 0'/><weld body1='b'/></equality>"
      "</mujoco>");
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_WELD);
  double e0[11] = {0, 1, 1, 0.5, 0.5, -0.5, -0.5}, e1[11] = {1, 2, 3, 1, 0, 0, 0};
  assert_vec(m->eq_data, e0, 11, TOL);
  assert_vec(m->eq_data + 11, e1, 11, TOL);
  assert_vec(m->eq_data + 22, e0, 11, TOL);
  /* the world in b's frame: Rx(90)' (0 - (0,0,1)) = (0,-1,0), q_b^-1 */
  double c = sqrt(0.5), e3[11] = {0, -1, 0, c, -c, 0, 0};
  ck_assert_int_eq(m->eq_obj2id[3], 0);
  assert_vec(m->eq_data + 33, e3, 11, TOL);
  imp_free_model(m);
}
END_TEST

/* connect and weld by sites (MuJoCo 3.x's form): the sites' poses in their
   bodies, whatever the configuration, since the sites snap together.
   connect: the two site positions. weld: site1's position, q = q_1 q_2^-1
   (so that q_b2 = q_b1 q makes the frames coincide) and site2's position;
   here q_1 = Rz(90), q_2 = Rx(90), so q = (c,0,0,s)(c,-s,0,0) =
   (c^2, -cs, -s^2, cs) = (1/2, -1/2, -1/2, 1/2), c = s = sqrt(1/2). */
START_TEST(connect_and_weld_by_sites) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><site name='w' pos='0 0 3'/>"
      "<body name='a' pos='1 0 0'><freejoint/><geom size='0.1'/>"
      "<site name='s1' pos='0.1 0.2 0.3' axisangle='0 0 1 90'/></body>"
      "<body name='b' pos='0 0 1'><freejoint/><geom size='0.1'/>"
      "<site name='s2' pos='-0.5 0 0' axisangle='1 0 0 90'/></body></worldbody>"
      "<equality><connect site1='s1' site2='w'/><weld site1='s1' site2='s2'/></equality>"
      "</mujoco>");
  ck_assert_int_eq(m->eq_obj1id[0], 1);
  ck_assert_int_eq(m->eq_obj2id[0], 0);
  ck_assert_int_eq(m->eq_obj1id[1], 1);
  ck_assert_int_eq(m->eq_obj2id[1], 2);
  double e0[11] = {0.1, 0.2, 0.3, 0, 0, 3};
  double e1[11] = {0.1, 0.2, 0.3, 0.5, -0.5, -0.5, 0.5, -0.5, 0, 0};
  assert_vec(m->eq_data, e0, 11, TOL);
  assert_vec(m->eq_data + 11, e1, 11, TOL);
  imp_free_model(m);
}
END_TEST

/* joint: polycoef as given, default 0 1 0 0 0 (joint1 = joint2); joint2
   omitted is -1 */
START_TEST(joint_equality_polycoef) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body><joint name='j1'/><joint name='j2' type='slide'/>"
      "<geom size='0.1'/></body></worldbody><equality><joint joint1='j1' joint2='j2'/>"
      "<joint joint1='j2' polycoef='0.1 0.2 0.3 0.4 0.5'/></equality></mujoco>");
  ck_assert_int_eq(m->eq_type[0], IMP_EQ_JOINT);
  ck_assert_int_eq(m->eq_obj1id[0], 0);
  ck_assert_int_eq(m->eq_obj2id[0], 1);
  ck_assert_int_eq(m->eq_obj1id[1], 1);
  ck_assert_int_eq(m->eq_obj2id[1], -1);
  double e0[11] = {0, 1, 0, 0, 0}, e1[11] = {0.1, 0.2, 0.3, 0.4, 0.5};
  assert_vec(m->eq_data, e0, 11, 0);
  assert_vec(m->eq_data + 11, e1, 11, 0);
  imp_free_model(m);
}
END_TEST

/* nested bodies with Euler angles, a hinge and a slide at non-zero ref and
   a free body: eq_data as MuJoCo 2.2.2 computes it (mj_loadXML on the
   same text, printed with %.12g), so composition and qpos0 are right */
START_TEST(equality_data_matches_mujoco_on_nested_bodies) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><default><equality solref='0.05 0.7'/><default class='stiff'>"
      "<equality solref='0.01 2' active='false'/></default></default><worldbody>"
      "<body name='a' pos='1 2 3' euler='30 0 45'><joint name='ja' axis='0 1 0' ref='20'/>"
      "<geom size='0.1'/><body name='b' pos='0.5 0 0' euler='0 60 0'>"
      "<joint name='jb' type='slide' ref='0.3'/><geom size='0.1'/></body></body>"
      "<body name='c' pos='-1 0 0.5' quat='0.9 0.1 0.3 -0.2'><freejoint/><geom size='0.1'/>"
      "</body></worldbody><equality><connect body1='a' body2='c' anchor='0.1 0.2 0.3'/>"
      "<connect body1='b' anchor='0.1 0.2 0.3' class='stiff'/><weld body1='a' body2='c'/>"
      "</equality></mujoco>");
  const double mj[3][7] = {
      {0.1, 0.2, 0.3, -0.990642734038, 2.85358832062, 2.63572249522, 0},
      {0.1, 0.2, 0.3, 1.43119910412, 2.58667962273, 3.41192471887, 0},
      {-3.52284191025, -0.694414785502, -1.16506350946, 0.742221941606, -0.0357881311143,
       0.279141018443, -0.608199055321}};
  for (int i = 0; i < 3; i++) assert_vec(m->eq_data + 11 * i, mj[i], 7, 1e-10);
  double s0[2] = {0.05, 0.7}, s1[2] = {0.01, 2};
  assert_vec(m->eq_solref, s0, 2, 0);
  assert_vec(m->eq_solref + 2, s1, 2, 0);
  assert_vec(m->eq_solref + 4, s0, 2, 0);
  ck_assert_int_eq(m->eq_active[1], 0);
  ck_assert_int_eq(m->eq_active[2], 1);
  imp_free_model(m);
}
END_TEST

/* the engine's own kinematics at qpos0 satisfies every connect and weld of
   the nested model above: the anchor seen from both bodies is one world
   point, and body2's pose is body1's composed with the stored relative pose */
START_TEST(equalities_hold_in_kinematics_at_qpos0) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body name='a' pos='1 2 3' euler='30 0 45'>"
      "<joint axis='0 1 0' ref='20'/><geom size='0.1'/><body name='b' pos='0.5 0 0' "
      "euler='0 60 0'><joint type='slide' ref='0.3'/><joint type='ball'/><geom size='0.1'/>"
      "</body></body><body name='c' pos='-1 0 0.5' quat='0.9 0.1 0.3 -0.2'><freejoint/>"
      "<geom size='0.1'/></body></worldbody><equality>"
      "<connect body1='b' body2='c' anchor='0.1 0.2 0.3'/><connect body1='c' anchor='1 0 0'/>"
      "<weld body1='b' body2='c'/><weld body1='c' body2='a'/></equality></mujoco>");
  imp_data* d = imp_make_data(m);
  ck_assert_ptr_nonnull(d);
  imp_copy(d->qpos, m->qpos0, m->nq);
  imp_kinematics(m, d);
  for (int i = 0; i < m->neq; i++) {
    int b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
    const double* e = m->eq_data + 11 * i;
    double p1[3], p2[3], q[4];
    if (m->eq_type[i] == IMP_EQ_CONNECT) {
      imp_mat3_vec(p1, d->xmat + 9 * b1, e);
      imp_mat3_vec(p2, d->xmat + 9 * b2, e + 3);
      imp_add_scl(p1, d->xpos + 3 * b1, 1, 3);
      imp_add_scl(p2, d->xpos + 3 * b2, 1, 3);
      assert_vec(p1, p2, 3, 1e-12);
    } else {
      imp_mat3_vec(p1, d->xmat + 9 * b1, e);
      imp_add_scl(p1, d->xpos + 3 * b1, 1, 3);
      assert_vec(p1, d->xpos + 3 * b2, 3, 1e-12);
      imp_quat_mul(q, d->xquat + 4 * b1, e + 3);
      assert_quat(q, d->xquat + 4 * b2);
    }
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(error_bad_equalities_have_lines) {
  const char* head =
      "<mujoco><worldbody><body name='a'><joint name='h'/><joint name='s' type='slide'/>"
      "<geom size='0.1'/><site name='sa'/><site name='sa2'/><body name='b'><joint name='ball' "
      "type='ball'/><geom size='0.1'/><site name='sb'/></body></body></worldbody>\n<equality>\n";
  struct { const char *eq, *what; } cases[] = {
      {"<connect body1='zz' anchor='0 0 0'/>", "unknown body 'zz'"},
      {"<weld body1='a' body2='zz'/>", "unknown body 'zz'"},
      {"<joint joint1='h' joint2='zz'/>", "unknown joint 'zz'"},
      {"<joint joint1='ball'/>", "joint 'ball' is not a hinge or slide"},
      {"<joint joint1='h' joint2='ball'/>", "joint 'ball' is not a hinge or slide"},
      {"<weld body1='a' body2='a'/>", "weld equality between 'a' and itself"},
      {"<connect body1='world' anchor='0 0 0'/>", "and itself"},
      {"<joint joint1='h' joint2='h'/>", "and itself"},
      {"<connect body1='a'/>", "connect: anchor is required"},
      {"<weld body2='a'/>", "weld: body1 is required"},
      {"<joint joint2='h'/>", "joint: joint1 is required"},
      {"<weld body1='a' relpose='1 2 3'/>", "expected 7 numbers"},
      {"<joint joint1='h' polycoef='0 1'/>", "expected 5 numbers"},
      {"<weld body1='a' class='nope'/>", "unknown default class 'nope'"},
      {"<weld body1='a' active='maybe'/>", "unknown value 'maybe'"},
      {"<connect site1='sa'/>", "connect: site1 and site2 go together"},
      {"<weld site2='sa'/>", "weld: site1 and site2 go together"},
      {"<connect site1='sa' site2='sb' anchor='0 0 0'/>", "anchor cannot be given with site1"},
      {"<weld site1='sa' site2='sb' body1='a'/>", "body1 cannot be given with site1"},
      {"<weld site1='sa' site2='zz'/>", "unknown site 'zz'"},
      {"<connect site1='sa' site2='sa2'/>", "between the body of site 'sa' and itself"},
  };
  char xml[1024];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(xml, sizeof xml, "%s%s</equality></mujoco>", head, cases[i].eq);
    imp_test_expect_error(xml, 3, cases[i].what);
  }
  snprintf(xml, sizeof xml,
           "%s<weld name='w' body1='a'/>\n<weld name='w' body1='b'/></equality></mujoco>", head);
  imp_test_expect_error(xml, 4, "repeated equality name 'w'");
}
END_TEST

/* does the file's text contain "<equality"? */
static int file_has_equality(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strstr(buf, "<equality") != NULL;
}

/* load every .xml below dir that has an <equality> section; returns how
   many, failing the test on any load error */
static int load_samples_with_equality(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      n += load_samples_with_equality(path);
      continue;
    }
    size_t k = strlen(path);
    if (k < 4 || strcmp(path + k - 4, ".xml") || !file_has_equality(path)) continue;
    /* allowed: active_adhesion.xml has adhesion actuators, not our subject */
    imp_model* m = imp_load_xml_opt(path, IMP_LOAD_ALLOW_UNSUPPORTED, g_err, sizeof g_err);
    ck_assert_msg(m != NULL, "%s did not load: %s", path, g_err);
    ck_assert_msg(m->neq > 0, "%s: no equality loaded", path);
    imp_free_model(m);
    n++;
  }
  closedir(d);
  return n;
}

/* MuJoCo's samples with <equality> load; active_adhesion's two joint
   couplings are as MuJoCo 2.2.2 compiles them (joint ids 1,2 and 3,1,
   polycoef 0 -0.5 0 0 0 and the default 0 1 0 0 0) */
START_TEST(mujoco_samples_with_equality_load) {
  struct stat st;
  if (stat(MUJOCO_MODEL_DIR, &st)) {
    printf("%s absent (libmujoco-samples): samples not checked\n", MUJOCO_MODEL_DIR);
    return;
  }
  ck_assert_int_ge(load_samples_with_equality(MUJOCO_MODEL_DIR), 1);
  imp_model* m = imp_load_xml_opt(MUJOCO_MODEL_DIR "/adhesion/active_adhesion.xml",
                                  IMP_LOAD_ALLOW_UNSUPPORTED, g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->neq, 2);
  int o1[2] = {1, 3}, o2[2] = {2, 1};
  double pc[2][5] = {{0, -0.5, 0, 0, 0}, {0, 1, 0, 0, 0}};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(m->eq_obj1id[i], o1[i]);
    ck_assert_int_eq(m->eq_obj2id[i], o2[i]);
    assert_vec(m->eq_data + 11 * i, pc[i], 5, 0);
  }
  ck_assert_int_eq(m->njmax, 1000); /* <size njmax="1000"/> */
  imp_free_model(m);
}
END_TEST

Suite* loader_suite(void) {
  Suite* s = suite_create("loader");
  TCase* t = tcase_create("constraints");
  tcase_add_test(t, option_solver_by_name);
  tcase_add_test(t, option_iterations_tolerance_warmstart);
  tcase_add_test(t, njmax_default_and_given);
  tcase_add_test(t, nJrow_is_twice_the_longest_chain);
  tcase_add_test(t, solref_on_geom_pair_joint_equality_and_defaults);
  tcase_add_test(t, ball_range_is_a_cone_angle);
  tcase_add_test(t, connect_anchor_in_both_frames);
  tcase_add_test(t, weld_relative_pose_from_qpos0_and_relpose);
  tcase_add_test(t, connect_and_weld_by_sites);
  tcase_add_test(t, joint_equality_polycoef);
  tcase_add_test(t, equality_data_matches_mujoco_on_nested_bodies);
  tcase_add_test(t, equalities_hold_in_kinematics_at_qpos0);
  tcase_add_test(t, error_bad_equalities_have_lines);
  tcase_add_test(t, mujoco_samples_with_equality_load);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(loader_suite()); }
