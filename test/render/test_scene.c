/* The GL-free scene: what the renderer would draw follows the model and
   the simulated state. */
#include <math.h>

#include "scene.h"
#include "test_util.h"

static const char* two_links =
    "<mujoco><asset><material name='red' rgba='1 0 0 1'/></asset><worldbody>"
    "<geom name='floor' type='plane' size='1 1 .1'/>"
    "<body name='a' pos='0 0 1'><joint type='hinge' axis='0 1 0'/>"
    "<geom name='rod' type='capsule' fromto='0 0 0 1 0 0' size='.05' material='red'/>"
    "<geom name='hidden' type='sphere' size='.1' group='4'/>"
    "<site name='tip' pos='1 0 0' size='.02' rgba='0 1 0 1'/></body>"
    "</worldbody></mujoco>";

START_TEST(scene_lists_visible_geoms_and_sites) {
  imp_model* m = imp_test_load_string(two_links);
  imp_data* d = imp_make_data(m);
  imp_scene* s = imp_scene_make(m);
  imp_forward(m, d);
  imp_scene_update(m, d, s);
  /* floor, rod and site; the group-4 sphere is hidden by default */
  ck_assert_int_eq(s->ndrawable, 3);
  ck_assert_int_eq(s->drawables[0].shape, IMP_GEOM_PLANE);
  ck_assert_int_eq(s->drawables[1].shape, IMP_GEOM_CAPSULE);
  ck_assert_int_eq(s->drawables[2].kind, IMP_DRAW_SITE);
  /* material colour wins over the geom's own */
  ck_assert_float_eq(s->drawables[1].rgba[0], 1.0f);
  ck_assert_float_eq(s->drawables[1].rgba[1], 0.0f);
  s->groupmask_geom |= 1 << 4;
  imp_scene_update(m, d, s);
  ck_assert_int_eq(s->ndrawable, 4);
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(scene_follows_the_state) {
  imp_model* m = imp_test_load_string(two_links);
  imp_data* d = imp_make_data(m);
  imp_scene* s = imp_scene_make(m);
  /* rotate the hinge by -90 degrees about y: the rod's tip goes from +x to +z */
  d->qpos[0] = -1.5707963267948966;
  imp_forward(m, d);
  imp_scene_update(m, d, s);
  const imp_drawable* site = &s->drawables[2];
  ck_assert_float_eq_tol(site->pos[0], 0.0f, 1e-6f);
  ck_assert_float_eq_tol(site->pos[2], 2.0f, 1e-6f);
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Spatial tendons are drawn along their paths: capsules of the tendon's
   width and colour between consecutive points, half width over a wrapping
   geom, none across a pulley; hidden groups and fixed tendons not at all. */
START_TEST(scene_draws_tendon_paths) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><site name='a' pos='-1 0 0.1'/><site name='b' pos='1 0 0.1'/>"
      "<site name='c' pos='0 2 0'/><site name='d' pos='0 3 0'/>"
      "<body name='x'><joint name='h'/><geom name='ball' size='0.2'/></body></worldbody>"
      "<tendon><spatial width='0.01' rgba='0 0 1 1'><site site='a'/><geom geom='ball'/>"
      "<site site='b'/><pulley divisor='2'/><site site='c'/><site site='d'/></spatial>"
      "<spatial group='4'><site site='a'/><site site='c'/></spatial>"
      "<fixed><joint joint='h' coef='1'/></fixed></tendon></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_scene* s = imp_scene_make(m);
  imp_forward(m, d);
  imp_scene_update(m, d, s);
  int n = 0;
  double total = 0;
  for (int i = 0; i < s->ndrawable; i++) {
    const imp_drawable* dr = &s->drawables[i];
    if (dr->kind != IMP_DRAW_TENDON) continue;
    ck_assert_int_eq(dr->objid, 0);
    ck_assert_int_eq(dr->shape, IMP_GEOM_CAPSULE);
    ck_assert_float_eq(dr->rgba[2], 1.0f);
    ck_assert_msg(dr->size[0] == 0.01f || dr->size[0] == 0.005f, "width %g", dr->size[0]);
    total += 2 * dr->size[1];
    n++;
  }
  /* a -> wrap -> wrap -> b, then c -> d after the pulley: 4 pieces */
  ck_assert_int_eq(n, 4);
  /* the pieces span the path: the branch a-b's straight legs and chord, plus c-d */
  double legs = 0;
  for (int k = d->ten_wrapadr[0]; k < d->ten_wrapadr[0] + 3; k++)
    legs += sqrt(pow(d->wrap_xpos[3 * k + 3] - d->wrap_xpos[3 * k], 2) +
                 pow(d->wrap_xpos[3 * k + 4] - d->wrap_xpos[3 * k + 1], 2) +
                 pow(d->wrap_xpos[3 * k + 5] - d->wrap_xpos[3 * k + 2], 2));
  ck_assert_double_eq_tol(total, legs + 1, 1e-5);
  s->groupmask_tendon |= 1 << 4;
  imp_scene_update(m, d, s);
  n = 0;
  for (int i = 0; i < s->ndrawable; i++) n += s->drawables[i].kind == IMP_DRAW_TENDON;
  ck_assert_int_eq(n, 5);
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* suite = suite_create("scene");
  TCase* tc = tcase_create("scene");
  tcase_add_test(tc, scene_lists_visible_geoms_and_sites);
  tcase_add_test(tc, scene_follows_the_state);
  tcase_add_test(tc, scene_draws_tendon_paths);
  suite_add_tcase(suite, tc);
  SRunner* sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
