/* Tests of the MJCF loader: the qpos layout, body order and names, options,
 * keyframes, warnings for what is not supported, sites, cameras and lights,
 * contact pairs and excludes. Shared helpers: loader_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "loader_util.h"

/* ---------------------------------------------------------- layout, names */

START_TEST(qpos_layout_free_ball_hinge_slide) {
  imp_model* m = load(
      "<mujoco><worldbody><body pos='1 2 3' quat='0 1 0 0'><freejoint/><geom size='1'/>"
      "<body><joint type='ball'/><joint type='slide' ref='0.5'/><geom size='1'/>"
      "<body><joint/><geom size='1'/></body></body></body></worldbody></mujoco>");
  ck_assert_int_eq(m->nq, 7 + 4 + 1 + 1);
  ck_assert_int_eq(m->nv, 6 + 3 + 1 + 1);
  int qadr[4] = {0, 7, 11, 12}, dadr[4] = {0, 6, 9, 10};
  for (int j = 0; j < 4; j++) {
    ck_assert_int_eq(m->jnt_qposadr[j], qadr[j]);
    ck_assert_int_eq(m->jnt_dofadr[j], dadr[j]);
  }
  double q0[13] = {1, 2, 3, 0, 1, 0, 0, 1, 0, 0, 0, 0.5, 0};
  assert_vec(m->qpos0, q0, 13, TOL);
  assert_vec(m->qpos_spring, q0, 11, TOL);
  /* dof tree: a chain */
  for (int d = 0; d < m->nv; d++) ck_assert_int_eq(m->dof_parentid[d], d - 1);
  ck_assert_int_eq(m->dof_Madr[3], 1 + 2 + 3);
  ck_assert_int_eq(m->nM, m->nv * (m->nv + 1) / 2);
  ck_assert_int_eq(m->body_dofnum[2], 4);
  ck_assert_int_eq(m->body_dofadr[2], 6);
  imp_free_model(m);
}
END_TEST

START_TEST(dof_parent_skips_bodies_without_dofs) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint/><geom size='1'/><body><geom size='1'/>"
      "<body><joint/><geom size='1'/></body></body><body><joint/><geom size='1'/></body></body>"
      "<body><joint/><geom size='1'/></body></worldbody></mujoco>");
  int parent[4] = {-1, 0, 0, -1}, madr[4] = {0, 1, 3, 5};
  for (int d = 0; d < 4; d++) {
    ck_assert_int_eq(m->dof_parentid[d], parent[d]);
    ck_assert_int_eq(m->dof_Madr[d], madr[d]);
  }
  ck_assert_int_eq(m->nM, 6);
  imp_free_model(m);
}
END_TEST

START_TEST(joints_and_geoms_are_ordered_by_body) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='a'><geom name='g1' size='1'/><joint name='j1'/>"
      "<body name='b'><joint name='j2'/><geom name='g2' size='1'/></body>"
      "<geom name='g3' size='1'/><joint name='j3'/></body></worldbody></mujoco>");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_JOINT, "j3"), 1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_JOINT, "j2"), 2);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_GEOM, "g3"), 1);
  ck_assert_int_eq(m->body_geomadr[2], 2);
  ck_assert_int_eq(m->body_geomnum[1], 2);
  imp_free_model(m);
}
END_TEST

START_TEST(names_lookup_both_ways) {
  imp_model* m = load(
      "<mujoco model='mod'><asset><texture name='t' builtin='checker' width='2' height='2'/>"
      "<material name='mat' texture='t'/></asset><worldbody>"
      "<body name='b'><joint name='j'/><geom name='g' size='1' material='mat'/><site name='s'/>"
      "<camera name='c'/><light name='l'/></body><geom size='2'/></worldbody>"
      "<actuator><motor name='a' joint='j'/></actuator><keyframe><key name='k'/></keyframe>"
      "</mujoco>");
  ck_assert_str_eq(m->names, "mod");
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_BODY, 0), "world");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "b"), 1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_JOINT, "j"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_GEOM, "g"), 1);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_GEOM, 0), "");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_SITE, "s"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_CAMERA, "c"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_LIGHT, "l"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_ACTUATOR, "a"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_KEY, "k"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_MATERIAL, "mat"), 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_TEXTURE, "t"), 0);
  ck_assert_int_eq(m->geom_matid[1], 0);
  ck_assert_int_eq(m->mat_texid[0], 0);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "nope"), -1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, ""), -1);
  ck_assert_ptr_null(imp_id2name(m, IMP_OBJ_BODY, 5));
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_KEY, 0), "k");
  imp_free_model(m);
}
END_TEST

/* ----------------------------------------------------- option, keys, misc */

START_TEST(option_and_visual_defaults_and_values) {
  imp_model* m = load("<mujoco><worldbody/></mujoco>");
  ck_assert_double_eq(m->opt.timestep, 0.002);
  ck_assert_double_eq(m->opt.gravity[2], -9.81);
  ck_assert_int_eq(m->opt.integrator, IMP_INT_EULER);
  ck_assert_double_eq(m->vis.fovy, 45);
  ck_assert_int_eq(m->vis.offwidth, 640);
  ck_assert_int_eq(m->nwarning, 0);
  imp_free_model(m);
  m = load("<mujoco><option timestep='0.01' gravity='0 0 -1' integrator='RK4'>"
           "<flag contact='disable' gravity='disable'/></option>"
           "<visual><global fovy='60' offwidth='800'/><map zfar='30'/></visual></mujoco>");
  ck_assert_double_eq(m->opt.timestep, 0.01);
  ck_assert_double_eq(m->opt.gravity[2], -1);
  ck_assert_int_eq(m->opt.integrator, IMP_INT_RK4);
  ck_assert_int_eq(m->opt.disableflags, IMP_DSBL_CONTACT | IMP_DSBL_GRAVITY);
  ck_assert_double_eq(m->vis.fovy, 60);
  ck_assert_double_eq(m->vis.zfar, 30);
  ck_assert_int_eq(m->nwarning, 0); /* RK4 is stepped as RK4 */
  imp_free_model(m);
  /* every MJCF integrator is stepped as itself, numbered as MuJoCo numbers them */
  static const char* const integ[] = {"Euler", "RK4", "implicit", "implicitfast"};
  for (int i = 0; i < 4; i++) {
    char xml[200];
    snprintf(xml, sizeof xml,
             "<mujoco><option integrator='%s'><flag constraint='disable' energy='enable'/>"
             "</option></mujoco>", integ[i]);
    m = load(xml);
    ck_assert_int_eq(m->opt.integrator, i);
    ck_assert_int_eq(m->opt.disableflags, IMP_DSBL_CONSTRAINT);
    ck_assert_int_eq(m->nwarning, 0);
    imp_free_model(m);
  }
  ck_assert_int_eq(IMP_INT_IMPLICIT, 2);
  ck_assert_int_eq(IMP_INT_IMPLICITFAST, 3);
}
END_TEST

START_TEST(keyframes_fill_missing_with_qpos0_and_zeros) {
  imp_model* m = load(
      "<mujoco><worldbody><body><joint name='j' ref='0.3' range='-90 90'/><geom size='1'/>"
      "</body></worldbody><actuator><motor joint='j'/></actuator><keyframe>"
      "<key name='a' time='2' qpos='0.5' qvel='1' ctrl='3'/><key/></keyframe></mujoco>");
  ck_assert_int_eq(m->nkey, 2);
  ck_assert_double_eq(m->key_time[0], 2);
  ck_assert_double_eq(m->key_qpos[0], 0.5);
  ck_assert_double_eq(m->key_qvel[0], 1);
  ck_assert_double_eq(m->key_ctrl[0], 3);
  imp_assert_near(m->key_qpos[1], 0.3 * PI / 180, TOL);
  ck_assert_double_eq(m->key_qvel[1], 0);
  imp_free_model(m);
}
END_TEST

START_TEST(keyframe_quaternions_are_normalized) {
  imp_model* m = load(
      "<mujoco><worldbody><body><freejoint/><geom size='1'/><body><joint type='ball'/>"
      "<geom size='1'/></body></body></worldbody><keyframe>"
      "<key qpos='1 2 3 2 0 0 0 0 0 3 4'/></keyframe></mujoco>");
  double e[11] = {1, 2, 3, 1, 0, 0, 0, 0, 0, 0.6, 0.8};
  assert_vec(m->key_qpos, e, 11, TOL);
  imp_free_model(m);
}
END_TEST

/* What we do not implement is refused by default, at its file:line and
   naming it: an unknown attribute, an unknown element. What changes
   nothing the simulation computes (user data, appearance) only warns.
   IMP_LOAD_ALLOW_UNSUPPORTED loads the rest too, each kind warned once. */
START_TEST(unsupported_elements_and_attributes_warn_once) {
  ck_assert_ptr_null(imp_load_xml_string(
      "<mujoco>\n<worldbody>\n<geom size='1' foo='1'/></worldbody></mujoco>", NULL, "t.xml",
      g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:3: attribute 'foo' of 'geom' is not supported yet") &&
                    strstr(g_err, "--allow-unsupported"),
                "%s", g_err);
  ck_assert_ptr_null(imp_load_xml_string("<mujoco>\n<worldbody>\n<body><flexcomp/></body>"
                                         "</worldbody></mujoco>",
                                         NULL, "t.xml", g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:3: element 'flexcomp' is not supported yet"), "%s", g_err);
  /* the ellipsoid fluid model would change the forces; 'none' and fluidcoef alone do not */
  ck_assert_ptr_null(imp_load_xml_string("<mujoco><option density='1.2'/>\n<worldbody>\n"
                                         "<body><freejoint/><geom size='.1' fluidshape='ellipsoid'/>"
                                         "</body></worldbody></mujoco>",
                                         NULL, "t.xml", g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:3: geom fluidshape 'ellipsoid'"), "%s", g_err);
  imp_model* none = load("<mujoco><worldbody><geom size='1' fluidshape='none' fluidcoef='1 1 1 1 1'/>"
                         "</worldbody></mujoco>");
  ck_assert_int_eq(none->nwarning, 0);
  imp_free_model(none);
  imp_model* h = load("<mujoco>\n<custom/>\n<asset><material name='m' metallic='1'/></asset>"
                      "<worldbody><geom size='1'/></worldbody></mujoco>");
  ck_assert_int_eq(h->nwarning, 2);
  ck_assert_msg(strstr(h->warnings, "t.xml:2: warning: element 'custom'"), "%s", h->warnings);
  imp_free_model(h);
  imp_model* m = load_allow(
      "<mujoco>\n<skin/>\n<skin/>\n<worldbody>\n<geom size='1' foo='1'/>\n"
      "<geom size='1' foo='2'/></worldbody>\n<custom/></mujoco>");
  ck_assert_int_eq(m->nwarning, 3);
  ck_assert_msg(strstr(m->warnings, "t.xml:2: warning: element 'skin' is not supported yet"),
                "%s", m->warnings);
  ck_assert_msg(strstr(m->warnings, "t.xml:5: warning: attribute 'foo' of 'geom' is not supported"),
                "%s", m->warnings);
  ck_assert_msg(strstr(m->warnings, "element 'custom'"), "%s", m->warnings);
  imp_free_model(m);
}
END_TEST

/* A failed load has no model to keep warnings on: they follow the error in
   err, one a line, since they often explain it (the ignored <flexcomp>
   below, loaded with IMP_LOAD_ALLOW_UNSUPPORTED, leaves its body without
   mass). Only whole lines, and a count of those that did not fit. */
START_TEST(failed_load_reports_the_warnings_before_the_error) {
  const char* xml = "<mujoco><worldbody>\n<body>\n<joint/>\n<flexcomp type='grid' count='2 2 1'/>\n"
                    "<geom size='1' foo='1' mass='0'/>\n<geom size='1' bar='1' mass='0'/>\n"
                    "</body></worldbody></mujoco>";
  const int allow = IMP_LOAD_ALLOW_UNSUPPORTED;
  char big[1000];
  ck_assert_ptr_null(imp_load_xml_string_opt(
      "<mujoco><worldbody>\n<body>\n<joint/>\n<flexcomp type='grid' count='2 2 1'/>\n"
      "</body></worldbody></mujoco>", NULL, "t.xml", allow, big, sizeof big));
  ck_assert_msg(strncmp(big, "t.xml:2: mass and inertia of moving bodies", 42) == 0, "%s", big);
  ck_assert_msg(strstr(big, "\nt.xml:4: warning: element 'flexcomp' is not supported yet") &&
                    big[strlen(big) - 1] != '\n',
                "%s", big);
  ck_assert_ptr_null(imp_load_xml_string_opt(xml, NULL, "t.xml", allow, big, sizeof big));
  ck_assert_msg(strstr(big, "flexcomp") && strstr(big, "'foo'") && strstr(big, "'bar'") &&
                    !strstr(big, "more warning"),
                "%s", big);
  /* a small buffer: the error, then as many whole warnings as fit */
  char small[200];
  ck_assert_ptr_null(imp_load_xml_string_opt(xml, NULL, "t.xml", allow, small, sizeof small));
  ck_assert_msg(strncmp(small, "t.xml:2: mass", 13) == 0 && strstr(small, "flexcomp") &&
                    !strstr(small, "'foo'") && strstr(small, "\n(2 more warnings)"),
                "%s", small);
}
END_TEST

/* As current MuJoCo reads them (Menagerie's trossen_wxai): an empty
   numeric value is the attribute left out, and a camera in a target mode
   without a target stays fixed to its body. */
START_TEST(empty_values_and_targetless_cameras) {
  imp_model* m = load(
      "<mujoco><worldbody><camera name='c' mode='targetbody' pos='1 0 0'/>"
      "<geom size='1' rgba=''/></worldbody></mujoco>");
  ck_assert(m->geom_rgba[0] == 0.5f && m->geom_rgba[3] == 1.0f); /* the default colour */
  ck_assert_int_eq(m->cam_targetbodyid[0], -1);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  ck_assert_double_eq(d->cam_xpos[0], 1);
  ck_assert_double_eq(d->cam_xmat[0], 1); /* not turned towards anything */
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(actuators_on_sites_and_ball_joints_load) {
  imp_model* m = load_allow(
      "<mujoco><worldbody><body><joint name='b' type='ball'/><joint name='h'/><geom size='1'/>"
      "<site name='s'/></body></worldbody><actuator><motor site='s'/><motor joint='b'/>"
      "<motor joint='h'/></actuator></mujoco>");
  ck_assert_int_eq(m->nu, 3);
  ck_assert_int_eq(m->actuator_trntype[0], IMP_TRN_SITE);
  ck_assert_int_eq(m->actuator_trnid[0], 0);
  ck_assert_int_eq(m->actuator_trnid[1], -1);
  ck_assert_int_eq(m->actuator_trntype[1], IMP_TRN_JOINT);
  ck_assert_int_eq(m->actuator_trnid[2], 0);
  ck_assert_int_eq(m->actuator_trnid[4], 1);
  ck_assert_int_eq(m->nwarning, 0);
  imp_free_model(m);
  /* a keyframe written for every actuator of the file keeps the values of
     those that remain (Menagerie's xarm7 and stretch: a tendon gripper);
     one written for what remains reads as it is; any other count is an error */
  static const char* fmt =
      "<mujoco><worldbody><body><joint name='b' type='ball'/><joint name='h'/><geom size='1'/>"
      "<site name='s'/></body></worldbody><actuator><dcmotor joint='h'/><motor joint='h'/>"
      "<dcmotor joint='b'/><motor joint='h'/></actuator><keyframe><key ctrl='%s'/></keyframe>"
      "</mujoco>";
  char xml[1024];
  snprintf(xml, sizeof xml, fmt, "1 2 3 4");
  m = load_allow(xml);
  ck_assert_int_eq(m->nu, 2);
  ck_assert_double_eq(m->key_ctrl[0], 2);
  ck_assert_double_eq(m->key_ctrl[1], 4);
  imp_free_model(m);
  snprintf(xml, sizeof xml, fmt, "5 6");
  m = load_allow(xml);
  ck_assert_double_eq(m->key_ctrl[0], 5);
  ck_assert_double_eq(m->key_ctrl[1], 6);
  imp_free_model(m);
  snprintf(xml, sizeof xml, fmt, "1 2 3");
  ck_assert_ptr_null(imp_load_xml_string_opt(xml, NULL, "t.xml", IMP_LOAD_ALLOW_UNSUPPORTED,
                                             g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:1: key ctrl: expected 2 numbers, got 3"), "%s", g_err);
}
END_TEST

/* Camera intrinsics (MuJoCo 3.x): resolution, sensor size, focal length
   and principal point, pixel values winning over lengths, in cam_* fields;
   with a sensor fovy follows from it, without one fovy is kept. Classes
   carry them too. Focal or principal without a sensor, or a sensor without
   a resolution or a focal length, are errors at the camera's line. */
START_TEST(camera_intrinsics_stored_and_checked) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><default><camera resolution='640 480' sensorsize='0.004 0.003'/></default>"
      "<worldbody>"
      "<camera name='a' focal='0.002 0.0025' principal='0.0001 -0.0002'/>"
      "<camera name='b' focal='1 1' focalpixel='400 500' principal='1 1'"
      " principalpixel='-10 20'/>"
      "<camera name='c' sensorsize='0 0' fovy='30' resolution='64 32'/>"
      "</worldbody></mujoco>");
  ck_assert_int_eq(m->cam_resolution[0], 640);
  ck_assert_int_eq(m->cam_resolution[1], 480);
  ck_assert_double_eq(m->cam_sensorsize[0], 0.004);
  ck_assert_double_eq(m->cam_sensorsize[1], 0.003);
  double ka[4] = {0.002, 0.0025, 0.0001, -0.0002};
  assert_vec(m->cam_intrinsic, ka, 4, 0);
  imp_assert_near(m->cam_fovy[0], 2 * atan(0.0015 / 0.0025) * 180 / PI, 1e-12);
  /* pixels of 0.004 / 640 = 6.25 um */
  double kb[4] = {400 * 6.25e-6, 500 * 6.25e-6, -10 * 6.25e-6, 20 * 6.25e-6};
  assert_vec(m->cam_intrinsic + 4, kb, 4, 1e-18);
  imp_assert_near(m->cam_fovy[1], 2 * atan(0.0015 / (500 * 6.25e-6)) * 180 / PI, 1e-12);
  ck_assert_int_eq(m->cam_resolution[4], 64);
  ck_assert_double_eq(m->cam_sensorsize[4], 0);
  ck_assert_double_eq(m->cam_fovy[2], 30);
  imp_free_model(m);
  imp_test_expect_error("<mujoco><worldbody>\n<camera focal='0.01 0.01'/></worldbody></mujoco>", 2,
               "require sensorsize");
  imp_test_expect_error("<mujoco><worldbody>\n<camera principalpixel='3 0'/></worldbody></mujoco>", 2,
               "require sensorsize");
  imp_test_expect_error("<mujoco><worldbody>\n<camera sensorsize='0.01 0.01' resolution='0 10' "
               "focal='0.01 0.01'/></worldbody></mujoco>",
               2, "positive resolution");
  imp_test_expect_error("<mujoco><worldbody>\n<camera sensorsize='0.01 0.01'/></worldbody></mujoco>", 2,
               "positive focal length");
  imp_test_expect_error("<mujoco><worldbody>\n<camera resolution='10.5 10'/></worldbody></mujoco>", 2,
               "resolution");
}
END_TEST

START_TEST(sites_cameras_lights) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='b' pos='0 0 1'><geom size='1'/><site/>"
      "<camera mode='targetbody' target='b' fovy='60'/>"
      "<light dir='0 0 -2' directional='true'/></body></worldbody></mujoco>");
  ck_assert_double_eq(m->site_size[0], 0.005);
  ck_assert_float_eq(m->site_rgba[0], 0.5f);
  ck_assert_int_eq(m->cam_mode[0], 3);
  ck_assert_int_eq(m->cam_targetbodyid[0], 1);
  ck_assert_double_eq(m->cam_fovy[0], 60);
  ck_assert_double_eq(m->light_dir[2], -1);
  ck_assert_int_eq(m->light_directional[0], 1);
  ck_assert_int_eq(m->light_castshadow[0], 1);
  ck_assert(m->extent >= 1);
  imp_free_model(m);
}
END_TEST

/* ------------------------------------------------- contact pairs, excludes */

/* Unspecified pair attributes take the pair class's values (MuJoCo 2.2.2:
   condim 3, friction 1 1 0.005 0.0001 0.0001, margin and gap 0), not the
   geoms'; fewer than 5 friction values replace the leading ones only. */
START_TEST(pairs_take_class_values_and_partial_friction) {
  imp_model* m = load(
      "<mujoco><default><default class='pc'><pair condim='6' margin='0.05' gap='0.01' "
      "friction='0.7 0.8 0.01 0.002 0.003'/></default></default><worldbody>"
      "<geom name='floor' type='plane' size='1 1 1' friction='0.3 0.02 0.003' condim='4' "
      "margin='0.1'/><body name='a'><freejoint/><geom name='s' size='0.1' condim='6'/></body>"
      "</worldbody><contact><pair name='p0' geom1='floor' geom2='s'/>"
      "<pair geom1='floor' geom2='s' friction='0.5'/>"
      "<pair geom1='floor' geom2='s' friction='0.5 0.6 0.1'/>"
      "<pair name='p3' class='pc' geom1='floor' geom2='s' friction='1 2' solref='0.02 1' "
      "solimp='0.9 0.95 0.001'/></contact></mujoco>");
  ck_assert_int_eq(m->nwarning, 0);
  ck_assert_int_eq(m->npair, 4);
  double f0[5] = {1, 1, 0.005, 0.0001, 0.0001}, f1[5] = {0.5, 1, 0.005, 0.0001, 0.0001},
         f2[5] = {0.5, 0.6, 0.1, 0.0001, 0.0001}, f3[5] = {1, 2, 0.01, 0.002, 0.003};
  assert_vec(m->pair_friction, f0, 5, 0);
  assert_vec(m->pair_friction + 5, f1, 5, 0);
  assert_vec(m->pair_friction + 10, f2, 5, 0);
  assert_vec(m->pair_friction + 15, f3, 5, 0);
  ck_assert_int_eq(m->pair_dim[0], 3);
  ck_assert_double_eq(m->pair_margin[0], 0);
  ck_assert_double_eq(m->pair_gap[0], 0);
  ck_assert_int_eq(m->pair_dim[3], 6);
  ck_assert_double_eq(m->pair_margin[3], 0.05);
  ck_assert_double_eq(m->pair_gap[3], 0.01);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_PAIR, "p3"), 3);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_PAIR, 0), "p0");
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_PAIR, 1), "");
  imp_free_model(m);
}
END_TEST

/* geom1's body comes first, and pairs are ordered by (body1, body2) with
   file order kept among equals, as MuJoCo 2.2.2 orders them */
START_TEST(pairs_are_ordered_by_bodies) {
  imp_model* m = load(
      "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 1'/>"
      "<body name='a'><freejoint/><geom name='s' size='0.1'/>"
      "<body name='b'><geom name='t' size='0.1'/></body></body></worldbody><contact>"
      "<pair name='ts' geom1='t' geom2='s'/><pair name='sf' geom1='s' geom2='floor'/>"
      "<pair name='tf' geom1='t' geom2='floor'/></contact></mujoco>");
  ck_assert_int_eq(m->npair, 3);
  const char* order[3] = {"sf", "tf", "ts"};
  int g1[3] = {0, 0, 1}, g2[3] = {1, 2, 2};
  for (int i = 0; i < 3; i++) {
    ck_assert_str_eq(imp_id2name(m, IMP_OBJ_PAIR, i), order[i]);
    ck_assert_int_eq(m->pair_geom1[i], g1[i]);
    ck_assert_int_eq(m->pair_geom2[i], g2[i]);
  }
  imp_free_model(m);
}
END_TEST

START_TEST(excludes_are_ordered_body_pairs) {
  imp_model* m = load(
      "<mujoco><worldbody><body name='a'><freejoint/><geom size='0.1'/>"
      "<body name='b'><geom size='0.1'/></body></body><body name='c'><freejoint/>"
      "<geom size='0.1'/></body></worldbody><contact><exclude body1='c' body2='a'/>"
      "<exclude name='e' body1='b' body2='a'/><exclude body1='world' body2='c'/>"
      "</contact></mujoco>");
  ck_assert_int_eq(m->nwarning, 0);
  ck_assert_int_eq(m->nexclude, 3);
  int b1[3] = {0, 1, 1}, b2[3] = {3, 2, 3};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(m->exclude_body1[i], b1[i]);
    ck_assert_int_eq(m->exclude_body2[i], b2[i]);
  }
  imp_free_model(m);
}
END_TEST

Suite* loader_suite(void) {
  Suite* s = suite_create("loader");
  TCase* t = tcase_create("structure");
  tcase_add_test(t, qpos_layout_free_ball_hinge_slide);
  tcase_add_test(t, dof_parent_skips_bodies_without_dofs);
  tcase_add_test(t, joints_and_geoms_are_ordered_by_body);
  tcase_add_test(t, names_lookup_both_ways);
  tcase_add_test(t, option_and_visual_defaults_and_values);
  tcase_add_test(t, keyframes_fill_missing_with_qpos0_and_zeros);
  tcase_add_test(t, keyframe_quaternions_are_normalized);
  tcase_add_test(t, unsupported_elements_and_attributes_warn_once);
  tcase_add_test(t, failed_load_reports_the_warnings_before_the_error);
  tcase_add_test(t, actuators_on_sites_and_ball_joints_load);
  tcase_add_test(t, empty_values_and_targetless_cameras);
  tcase_add_test(t, sites_cameras_lights);
  tcase_add_test(t, camera_intrinsics_stored_and_checked);
  tcase_add_test(t, pairs_take_class_values_and_partial_friction);
  tcase_add_test(t, pairs_are_ordered_by_bodies);
  tcase_add_test(t, excludes_are_ordered_body_pairs);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(loader_suite()); }
