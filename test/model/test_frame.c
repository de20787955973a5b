/* <frame> (MuJoCo 3.x, MJCF reference: frame, body/frame): a pure
 * coordinate transformation inside worldbody and bodies, nested at will,
 * whose pose is accumulated into its children's (bodies, geoms, sites,
 * joints, cameras, lights, frames) and whose childclass applies to its
 * descendants. MuJoCo 2.2.2 has no frames, so the oracle here is the same
 * model written without them: both must load into the same imp_model. The
 * poses of the frame-free model were composed by hand (rotations by 90
 * degrees, whose products are exact to rounding). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "test_util.h"

static char g_err[1000];

/* Frames in the world and in a body, nested, with childclass; every kind
   of child, a capsule from fromto and a mesh geom (whose body's mass
   properties then depend on where the frame put it). */
static const char* k_with_frames =
    "<mujoco>\n"
    "  <compiler meshdir='" IMP_MODELS_DIR "/meshes'/>\n"
    "  <asset><mesh name='wedge' file='wedge.obj'/></asset>\n"
    "  <default>\n"
    "    <default class='red'><geom rgba='1 0 0 1' size='0.05'/><joint damping='3'/></default>\n"
    "  </default>\n"
    "  <worldbody>\n"
    "    <frame name='f1' pos='1 0 0' euler='0 0 90'>\n"
    "      <geom name='g0' type='box' pos='1 0 0' size='0.1 0.2 0.3'/>\n"
    "      <site name='s0' pos='0 1 0'/>\n"
    "      <camera name='c0' pos='0 0 1'/>\n"
    "      <light name='l0' pos='0 0 2' dir='1 0 0'/>\n"
    "      <body name='b1' pos='0.5 0 0'>\n"
    "        <joint name='j1' type='hinge' axis='1 0 0'/>\n"
    "        <geom name='g3' type='sphere' size='0.1'/>\n"
    "        <frame pos='0 0 -0.5' euler='90 0 0' childclass='red'>\n"
    "          <joint name='j2' type='slide' pos='0.1 0 0' axis='0 1 0'/>\n"
    "          <geom name='g1' type='capsule' fromto='0 0 0 0.3 0 0'/>\n"
    "          <frame pos='0.2 0 0' euler='0 90 0'>\n"
    "            <body name='b2' pos='0 0 0.1'>\n"
    "              <joint name='j3' axis='0 0 1'/>\n"
    "              <geom name='g2'/>\n"
    "              <frame pos='0.1 0 0' euler='0 0 90'>\n"
    "                <geom name='gm' type='mesh' mesh='wedge' pos='0 0.05 0' density='500'/>\n"
    "              </frame>\n"
    "            </body>\n"
    "          </frame>\n"
    "        </frame>\n"
    "      </body>\n"
    "    </frame>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

/* The same model with the frames' poses composed into their children by
   hand: f1 = (1 0 0, about z by 90); in b1, F2 = (0 0 -0.5, about x by 90);
   F3 = F2 (0.2 0 0, about y by 90) = (0.2 0 -0.5, quat .5 .5 .5 .5); in b2,
   F4 = (0.1 0 0, about z by 90). The capsule's fromto gives it pos 0.15 0 0
   and quat (c, 0, -c, 0) (z along from - to) before F2 moves it. */
#define C "0.70710678118654752"
static const char* k_without_frames =
    "<mujoco>\n"
    "  <compiler meshdir='" IMP_MODELS_DIR "/meshes'/>\n"
    "  <asset><mesh name='wedge' file='wedge.obj'/></asset>\n"
    "  <default>\n"
    "    <default class='red'><geom rgba='1 0 0 1' size='0.05'/><joint damping='3'/></default>\n"
    "  </default>\n"
    "  <worldbody>\n"
    "    <geom name='g0' type='box' pos='1 1 0' quat='" C " 0 0 " C "' size='0.1 0.2 0.3'/>\n"
    "    <site name='s0' pos='0 0 0' quat='" C " 0 0 " C "'/>\n"
    "    <camera name='c0' pos='1 0 1' quat='" C " 0 0 " C "'/>\n"
    "    <light name='l0' pos='1 0 2' dir='0 1 0'/>\n"
    "    <body name='b1' pos='1 0.5 0' quat='" C " 0 0 " C "'>\n"
    "      <joint name='j1' type='hinge' axis='1 0 0'/>\n"
    "      <geom name='g3' type='sphere' size='0.1'/>\n"
    "      <joint name='j2' class='red' type='slide' pos='0.1 0 -0.5' axis='0 0 1'/>\n"
    "      <geom name='g1' class='red' type='capsule' size='0.05 0.15' pos='0.15 0 -0.5'\n"
    "            quat='0.5 0.5 -0.5 -0.5'/>\n"
    "      <body name='b2' childclass='red' pos='0.3 0 -0.5' quat='0.5 0.5 0.5 0.5'>\n"
    "        <joint name='j3' axis='0 0 1'/>\n"
    "        <geom name='g2'/>\n"
    "        <geom name='gm' type='mesh' mesh='wedge' pos='0.05 0 0' quat='" C " 0 0 " C "'\n"
    "              density='500'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";
#undef C

static imp_model* load(const char* xml) {
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  ck_assert_msg(m->nwarning == 0, "warnings: %s", m->warnings);
  return m;
}

/* arrays of both models equal to tol, named in the failure */
static void same(const char* what, const double* a, const double* b, int n, double tol) {
  for (int i = 0; i < n; i++)
    ck_assert_msg(fabs(a[i] - b[i]) <= tol, "%s[%d]: %.17g with frames, %.17g without", what, i,
                  a[i], b[i]);
}

static void same_int(const char* what, const int* a, const int* b, int n) {
  for (int i = 0; i < n; i++)
    ck_assert_msg(a[i] == b[i], "%s[%d]: %d with frames, %d without", what, i, a[i], b[i]);
}

#define SAME(field, n) same(#field, a->field, b->field, (n), 1e-12)
#define SAME_INT(field, n) same_int(#field, a->field, b->field, (n))

START_TEST(frames_compose_into_their_children) {
  imp_model* a = load(k_with_frames);
  imp_model* b = load(k_without_frames);
  ck_assert_int_eq(a->nbody, b->nbody);
  ck_assert_int_eq(a->njnt, b->njnt);
  ck_assert_int_eq(a->ngeom, b->ngeom);
  ck_assert_int_eq(a->nsite, 1);
  ck_assert_int_eq(a->ncam, 1);
  ck_assert_int_eq(a->nlight, 1);
  SAME_INT(body_parentid, a->nbody);
  SAME(body_pos, 3 * a->nbody);
  SAME(body_quat, 4 * a->nbody);
  SAME(body_mass, a->nbody);
  SAME(body_ipos, 3 * a->nbody);
  SAME(body_iquat, 4 * a->nbody);
  SAME(body_inertia, 3 * a->nbody);
  SAME_INT(jnt_type, a->njnt);
  SAME_INT(jnt_bodyid, a->njnt);
  SAME(jnt_pos, 3 * a->njnt);
  SAME(jnt_axis, 3 * a->njnt);
  SAME(dof_damping, a->nv);
  SAME_INT(geom_type, a->ngeom);
  SAME_INT(geom_bodyid, a->ngeom);
  SAME(geom_pos, 3 * a->ngeom);
  SAME(geom_quat, 4 * a->ngeom);
  SAME(geom_size, 3 * a->ngeom);
  SAME(site_pos, 3);
  SAME(site_quat, 4);
  SAME(cam_pos, 3);
  SAME(cam_quat, 4);
  SAME(cam_pos0, 3);
  SAME(cam_mat0, 9);
  SAME(light_pos, 3);
  SAME(light_dir, 3);
  for (int g = 0; g < a->ngeom; g++)
    for (int k = 0; k < 4; k++) ck_assert_float_eq(a->geom_rgba[4 * g + k], b->geom_rgba[4 * g + k]);
  /* the frame's childclass reached the joint and geoms in it and, through
     b2, their descendants: damping 3 and red geoms */
  int j2 = imp_test_id(a, IMP_OBJ_JOINT, "j2"), j3 = imp_test_id(a, IMP_OBJ_JOINT, "j3");
  int j1 = imp_test_id(a, IMP_OBJ_JOINT, "j1");
  ck_assert_double_eq(a->dof_damping[a->jnt_dofadr[j2]], 3);
  ck_assert_double_eq(a->dof_damping[a->jnt_dofadr[j3]], 3);
  ck_assert_double_eq(a->dof_damping[a->jnt_dofadr[j1]], 0);
  int g2 = imp_test_id(a, IMP_OBJ_GEOM, "g2"), g3 = imp_test_id(a, IMP_OBJ_GEOM, "g3");
  ck_assert_float_eq(a->geom_rgba[4 * g2 + 1], 0); /* red */
  ck_assert_double_eq(a->geom_size[3 * g2], 0.05);
  ck_assert_float_eq(a->geom_rgba[4 * g3 + 1], 0.5f); /* MJCF's default grey */
  /* and the frames are really there: b1 is not at its own pos */
  ck_assert(fabs(a->body_pos[3 * 1 + 1] - 0.5) < 1e-12);
  imp_free_model(a);
  imp_free_model(b);
}
END_TEST

/* The same frames in a moving model: the world poses after kinematics at a
   nonzero configuration agree too. */
START_TEST(frames_give_the_same_kinematics) {
  imp_model* a = load(k_with_frames);
  imp_model* b = load(k_without_frames);
  imp_data* da = imp_make_data(a);
  imp_data* db = imp_make_data(b);
  for (int i = 0; i < a->nq; i++) da->qpos[i] = db->qpos[i] = 0.3 + 0.2 * i;
  imp_kinematics(a, da);
  imp_kinematics(b, db);
  same("xpos", da->xpos, db->xpos, 3 * a->nbody, 1e-12);
  same("geom_xpos", da->geom_xpos, db->geom_xpos, 3 * a->ngeom, 1e-12);
  same("geom_xmat", da->geom_xmat, db->geom_xmat, 9 * a->ngeom, 1e-12);
  same("xanchor", da->xanchor, db->xanchor, 3 * a->njnt, 1e-12);
  same("xaxis", da->xaxis, db->xaxis, 3 * a->njnt, 1e-12);
  imp_free_data(da);
  imp_free_data(db);
  imp_free_model(a);
  imp_free_model(b);
}
END_TEST


/* What a frame may not hold or say is refused at its line: elements outside
   MuJoCo's schema for frame, attributes a frame does not have, an unknown
   childclass, two orientations, joints in a frame of the world; and an
   inertial, whose meaning MuJoCo leaves unclear. */
START_TEST(frame_errors_have_lines) {
  imp_test_expect_error("<mujoco><worldbody>\n<body><frame>\n<tendon/></frame><geom size='1'/>"
               "</body></worldbody></mujoco>",
               3, "'tendon' is not allowed in a frame");
  imp_test_expect_error("<mujoco><worldbody>\n<frame class='x'>\n<geom size='1'/></frame>"
               "</worldbody></mujoco>",
               2, "attribute 'class'");
  imp_test_expect_error("<mujoco><worldbody>\n<frame childclass='nope'>\n<geom size='1'/></frame>"
               "</worldbody></mujoco>",
               2, "nope");
  imp_test_expect_error("<mujoco><worldbody>\n<frame quat='1 0 0 0' euler='0 0 1'>\n<geom size='1'/>"
               "</frame></worldbody></mujoco>",
               2, "more than one orientation");
  imp_test_expect_error("<mujoco><worldbody>\n<frame>\n<joint/></frame></worldbody></mujoco>", 3,
               "joints are not allowed in the world body");
  imp_test_expect_error("<mujoco><worldbody><body>\n<frame>\n<inertial mass='1' diaginertia='1 1 1'/>"
               "</frame></body></worldbody></mujoco>",
               3, "inertial inside a frame");
}
END_TEST

/* A free joint in a frame stays the body's: MuJoCo gives it no pose. */
START_TEST(free_joint_in_a_frame_is_unmoved) {
  imp_model* a = load("<mujoco><worldbody><body pos='0 0 1'><frame pos='1 2 3' euler='0 90 0'>"
                      "<freejoint/></frame><geom size='0.1'/></body></worldbody></mujoco>");
  ck_assert_int_eq(a->jnt_type[0], IMP_JNT_FREE);
  double q0[7] = {0, 0, 1, 1, 0, 0, 0};
  same("qpos0", a->qpos0, q0, 7, 0);
  imp_free_model(a);
}
END_TEST

int main(void) {
  Suite* s = suite_create("frame");
  TCase* t = tcase_create("frame");
  tcase_add_test(t, frames_compose_into_their_children);
  tcase_add_test(t, frames_give_the_same_kinematics);
  tcase_add_test(t, frame_errors_have_lines);
  tcase_add_test(t, free_joint_in_a_frame_is_unmoved);
  suite_add_tcase(s, t);
  return imp_test_run_suite(s);
}
