/* Tests of the model statistics (model/statistic.c): center, extent,
 * meansize, meanmass and meaninertia computed at qpos0 as MuJoCo 2.2.2
 * computes them, planes left out of the box, and every value <statistic>
 * gives replacing the computed one. Expected numbers are MuJoCo 2.2.2's
 * m->stat for the same files (mj_loadXML, printed with %.17g). */
#include <check.h>
#include <string.h>

#include "impetus.h"
#include "test_util.h"

static char g_err[1000];

/* a free box, and a hinged ball with a site above it (armature on the hinge) */
#define BODIES                                                                         \
  "<body pos='0 0 1'><freejoint/><geom type='box' size='0.1 0.2 0.3'/></body>"         \
  "<body pos='2 0 1'><joint type='hinge' axis='0 1 0' armature='0.5'/>"                \
  "<geom type='sphere' size='0.1' pos='0 0 -0.2'/><site pos='0 0 0.5'/></body>"

START_TEST(computed_values_match_mujoco) {
  imp_model* m = imp_test_load_string_nowarn("<mujoco><worldbody>" BODIES "</worldbody></mujoco>");
  /* MuJoCo 2.2.2: extent 2.4741657386773941 center 0.86291713066130293 0
     1.0629171306613028 meansize 0.28708286933869709 meanmass 26.0943951023932
     meaninertia 21.309186681287233 */
  double center[3] = {0.86291713066130293, 0, 1.0629171306613028};
  imp_assert_rel(m->extent, 2.4741657386773941, 1e-14);
  imp_assert_vec_near(m->center, center, 3, 1e-14);
  imp_assert_rel(m->meansize, 0.28708286933869709, 1e-14);
  imp_assert_rel(m->meanmass, 26.0943951023932, 1e-14);
  imp_assert_rel(m->meaninertia, 21.309186681287233, 1e-13);
  imp_free_model(m);
}
END_TEST

/* A 100 m floor does not make the model 20 m large (MuJoCo 2.2.2 counts a
   tenth of a plane's size and gives extent 20, center 0 0 0 here): the box
   is what the camera frames, with 2.2.2's numbers for the file without the
   floor. An infinite plane (size 0) is left out too. */
START_TEST(planes_are_left_out_of_the_box) {
  const char* fmt = "<mujoco><worldbody><geom type='plane' size='%s'/>"
                    "<body pos='0 0 1'><freejoint/><geom type='box' size='0.1 0.2 0.3'/></body>"
                    "</worldbody></mujoco>";
  const char* sizes[] = {"100 100 0.1", "0 0 1"};
  for (int k = 0; k < 2; k++) {
    char xml[400];
    snprintf(xml, sizeof xml, fmt, sizes[k]);
    imp_model* m = imp_test_load_string_nowarn(xml);
    double center[3] = {0, 0, 1};
    imp_assert_rel(m->extent, 0.74833147735478844, 1e-14);
    imp_assert_vec_near(m->center, center, 3, 1e-14);
    imp_assert_rel(m->meansize, 0.37416573867739417, 1e-14);
    imp_assert_rel(m->meanmass, 48, 1e-14);
    imp_assert_rel(m->meaninertia, 24.746666666666673, 1e-14);
    imp_free_model(m);
  }
  /* only a plane: nothing to measure, and no bodies or dofs (2.2.2: 1, 1) */
  imp_model* m = imp_test_load_string_nowarn("<mujoco><worldbody><geom type='plane' size='5 5 1'/>"
                                             "</worldbody></mujoco>");
  imp_assert_near(m->extent, 2, 0);
  imp_assert_near(m->meanmass, 1, 0);
  imp_assert_near(m->meaninertia, 1, 0);
  imp_free_model(m);
}
END_TEST

/* Every value the file gives replaces the computed one (MuJoCo 2.2.2 reads
   back exactly these); the others stay computed. */
START_TEST(statistic_values_replace_computed_ones) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><statistic center='1 2 3' extent='7' meansize='0.5' meanmass='3' meaninertia='4'/>"
      "<worldbody>" BODIES "</worldbody></mujoco>");
  double center[3] = {1, 2, 3};
  imp_assert_vec_near(m->center, center, 3, 0);
  imp_assert_near(m->extent, 7, 0);
  imp_assert_near(m->meansize, 0.5, 0);
  imp_assert_near(m->meanmass, 3, 0);
  imp_assert_near(m->meaninertia, 4, 0);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><statistic extent='0.3'/><statistic center='0 0 0.1'/>"
      "<worldbody>" BODIES "</worldbody></mujoco>");
  double c2[3] = {0, 0, 0.1};
  imp_assert_vec_near(m->center, c2, 3, 0);
  imp_assert_near(m->extent, 0.3, 0);
  imp_assert_rel(m->meansize, 0.28708286933869709, 1e-14);
  imp_assert_rel(m->meanmass, 26.0943951023932, 1e-14);
  imp_free_model(m);
}
END_TEST

/* visual/global azimuth and elevation are read (defaults 90 and -45) */
START_TEST(free_camera_direction_is_read) {
  imp_model* m = imp_test_load_string_nowarn("<mujoco/>");
  imp_assert_near(m->vis.azimuth, 90, 0);
  imp_assert_near(m->vis.elevation, -45, 0);
  imp_free_model(m);
  m = imp_test_load_string_nowarn(
      "<mujoco><visual><global azimuth='30' elevation='-10'/></visual></mujoco>");
  imp_assert_near(m->vis.azimuth, 30, 0);
  imp_assert_near(m->vis.elevation, -10, 0);
  imp_free_model(m);
}
END_TEST

/* extent must be positive (the reference), meansize too (it is a length);
   all must be finite; unknown attributes are refused as everywhere */
START_TEST(bad_statistic_values_are_errors) {
  const char* bad[] = {"extent='0'", "extent='-1'", "meansize='0'", "center='0 0 nan'",
                       "center='1 2'", "meanmass='inf'"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char xml[200];
    snprintf(xml, sizeof xml, "<mujoco>\n\n<statistic %s/></mujoco>", bad[i]);
    imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", g_err, sizeof g_err);
    ck_assert_msg(m == NULL, "%s loaded", bad[i]);
    ck_assert_msg(strncmp(g_err, "t.xml:3: ", 9) == 0, "%s: %s", bad[i], g_err);
  }
  ck_assert_ptr_null(
      imp_load_xml_string("<mujoco>\n<statistic foo='1'/></mujoco>", NULL, "t.xml", g_err, sizeof g_err));
  ck_assert_msg(strstr(g_err, "t.xml:2: attribute 'foo' of 'statistic'"), "%s", g_err);
}
END_TEST

Suite* statistic_suite(void) {
  Suite* s = suite_create("statistic");
  TCase* t = tcase_create("statistic");
  tcase_add_test(t, computed_values_match_mujoco);
  tcase_add_test(t, planes_are_left_out_of_the_box);
  tcase_add_test(t, statistic_values_replace_computed_ones);
  tcase_add_test(t, free_camera_direction_is_read);
  tcase_add_test(t, bad_statistic_values_are_errors);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(statistic_suite()); }
