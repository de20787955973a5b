/* The GL-free overlay items (render/scene.c, imp_scene_decorate): what is
   drawn for contacts, frames, joints, centres of mass and the perturbation
   spring follows the physics. A resting ball's contact carries its weight
   m g straight up, so its arrow is vertical with length scale * m g. */
#include <math.h>

#include "scene.h"
#include "test_util.h"

static const char* rest_xml =
    "<mujoco><worldbody><geom type='plane' size='2 2 .1'/>"
    "<body name='ball' pos='0 0 .1'><freejoint/><geom type='sphere' size='.1' mass='2'/></body>"
    "<body name='arm' pos='1 0 1'><joint name='hinge' type='hinge' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 .3 0 0' size='.02' contype='0' conaffinity='0'/></body>"
    "</worldbody></mujoco>";

static int count_kind(const imp_scene* s, int kind) {
  int n = 0;
  for (int i = 0; i < s->ndecor; i++)
    n += s->decor[i].kind == kind;
  return n;
}

START_TEST(contact_arrow_carries_the_weight) {
  imp_model* m = imp_test_load_string(rest_xml);
  imp_data* d = imp_make_data(m);
  imp_scene* s = imp_scene_make(m);
  for (int i = 0; i < 200; i++)
    imp_step(m, d);
  ck_assert_int_eq(d->ncon, 1);
  imp_decor_opt o = {IMP_VIS_CONTACT_FORCE, 0.01, {0}}; /* 1 cm per newton */
  imp_scene_decorate(m, d, &o, s);
  ck_assert_int_eq(s->ndecor, 1);
  const imp_decor* a = &s->decor[0];
  ck_assert_int_eq(a->kind, IMP_DECOR_ARROW);
  imp_assert_near(a->to[0] - a->from[0], 0, 1e-4);
  imp_assert_near(a->to[1] - a->from[1], 0, 1e-4);
  imp_assert_near(a->to[2] - a->from[2], 0.01 * 2 * 9.81, 1e-4); /* m g, up */
  static const float magenta[4] = IMP_RGBA_CONTACT_FORCE;
  ck_assert(memcmp(a->rgba, magenta, sizeof magenta) == 0);
  /* automatic scale: the model's weight is 0.3 extent */
  o.force_scale = 0;
  imp_scene_decorate(m, d, &o, s);
  double total = 0;
  for (int b = 1; b < m->nbody; b++)
    total += m->body_mass[b];
  imp_assert_rel(s->decor[0].to[2] - s->decor[0].from[2], 0.3 * m->extent * 2 / total, 1e-4);
  /* off: nothing */
  o.flags = 0;
  imp_scene_decorate(m, d, &o, s);
  ck_assert_int_eq(s->ndecor, 0);
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Contact discs are sized like MuJoCo's, in the model's mean body size:
   the ball's size is its radius .1, the arm's the reach of its capsule from
   its centre of mass (.15 + .02), so the mean is .135; <visual><scale>
   changes the fractions. */
START_TEST(contact_disc_sized_by_mean_body_size) {
  imp_model* m = imp_test_load_string(rest_xml);
  imp_assert_near(m->meansize, 0.135, 1e-9);
  imp_data* d = imp_make_data(m);
  imp_scene* s = imp_scene_make(m);
  for (int i = 0; i < 200; i++)
    imp_step(m, d);
  imp_decor_opt o = {IMP_VIS_CONTACT_POINT, 0, {0}};
  imp_scene_decorate(m, d, &o, s);
  ck_assert_int_eq(s->ndecor, 1);
  const imp_decor* disc = &s->decor[0];
  ck_assert_int_eq(disc->kind, IMP_DECOR_DISC);
  imp_assert_near(disc->radius, 0.1 * 0.135, 1e-6);
  imp_assert_near(disc->to[2] - disc->from[2], 0.1 * 0.135, 1e-6); /* half height, along +z */
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);

  char xml[1024];
  snprintf(xml, sizeof xml, "<mujoco><visual><scale contactwidth='.05' contactheight='.02'/>"
                            "</visual>%s", rest_xml + strlen("<mujoco>"));
  m = imp_test_load_string(xml);
  d = imp_make_data(m);
  s = imp_scene_make(m);
  for (int i = 0; i < 200; i++)
    imp_step(m, d);
  imp_scene_decorate(m, d, &o, s);
  ck_assert_int_eq(s->ndecor, 1);
  imp_assert_near(s->decor[0].radius, 0.05 * 0.135, 1e-6);
  imp_assert_near(s->decor[0].to[2] - s->decor[0].from[2], 0.02 * 0.135, 1e-6);
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* The complaint of issue 6: on a pile of bodies the discs hid them. Each
   disc is now under a quarter of the bounding radius of either geom it
   touches (planes aside), and force arrows are thinner than the discs. */
START_TEST(contact_marks_small_against_the_pile) {
  imp_model* m = imp_test_load_model("box_pile.xml");
  imp_data* d = imp_make_data(m);
  imp_scene* s = imp_scene_make(m);
  for (int i = 0; i < 150; i++)
    imp_step(m, d);
  ck_assert_int_ge(d->ncon, 8);
  imp_decor_opt o = {IMP_VIS_CONTACT_POINT | IMP_VIS_CONTACT_FORCE, 0, {0}};
  imp_scene_decorate(m, d, &o, s);
  int ndisc = 0;
  float disc_radius = 0, arrow_radius = 0;
  for (int i = 0; i < s->ndecor; i++)
    if (s->decor[i].kind == IMP_DECOR_DISC) {
      disc_radius = s->decor[i].radius;
      ndisc++;
    } else {
      arrow_radius = s->decor[i].radius;
    }
  ck_assert_int_eq(ndisc, d->ncon);
  for (int i = 0; i < d->ncon; i++) {
    const imp_contact* c = &d->contact[i];
    int gs[2] = {c->geom1, c->geom2};
    for (int k = 0; k < 2; k++)
      if (m->geom_type[gs[k]] != IMP_GEOM_PLANE)
        ck_assert_double_lt(disc_radius, 0.25 * m->geom_rbound[gs[k]]);
  }
  ck_assert_float_gt(arrow_radius, 0);
  ck_assert_float_lt(arrow_radius, disc_radius);
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(frames_joints_coms_and_spring) {
  imp_model* m = imp_test_load_string(rest_xml);
  imp_data* d = imp_make_data(m);
  imp_scene* s = imp_scene_make(m);
  imp_forward(m, d);
  imp_decor_opt o = {IMP_VIS_BODY_FRAME | IMP_VIS_JOINT | IMP_VIS_COM, 0, {0}};
  imp_scene_decorate(m, d, &o, s);
  /* two bodies: 3 axes each, 2 COMs; one hinge (the free joint has no axis) */
  ck_assert_int_eq(count_kind(s, IMP_DECOR_SEGMENT), 6);
  ck_assert_int_eq(count_kind(s, IMP_DECOR_SPHERE), 2);
  ck_assert_int_eq(count_kind(s, IMP_DECOR_ARROW), 1);
  for (int i = 0; i < s->ndecor; i++)
    if (s->decor[i].kind == IMP_DECOR_ARROW) { /* the hinge's axis, along +y at the anchor */
      ck_assert_float_eq_tol(s->decor[i].from[0], 1.0f, 1e-6f);
      ck_assert(s->decor[i].to[1] > s->decor[i].from[1]);
    }
  /* the spring from the grabbed point (body frame) to the mouse point */
  o.flags = IMP_VIS_PERTURB;
  o.perturb = (imp_perturb){1, imp_test_id(m, IMP_OBJ_BODY, "arm"), {.3, 0, 0}, {2, 0, 3}};
  imp_scene_decorate(m, d, &o, s);
  ck_assert_int_eq(count_kind(s, IMP_DECOR_SEGMENT), 1);
  ck_assert_float_eq_tol(s->decor[0].from[0], 1.3f, 1e-6f);
  ck_assert_float_eq_tol(s->decor[0].to[2], 3.0f, 1e-6f);
  o.perturb.active = 0;
  imp_scene_decorate(m, d, &o, s);
  ck_assert_int_eq(s->ndecor, 0);
  imp_scene_free(s);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("render_decor");
  TCase* tc = tcase_create("render_decor");
  tcase_add_test(tc, contact_arrow_carries_the_weight);
  tcase_add_test(tc, frames_joints_coms_and_spring);
  tcase_add_test(tc, contact_disc_sized_by_mean_body_size);
  tcase_add_test(tc, contact_marks_small_against_the_pile);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
