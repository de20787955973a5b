/* The collision stage (engine/collision/collision.c): MJCF's filtering rules one test
 * each, explicit pairs, contact parameters, the contact frame, the broad
 * phase against all pairs, and a full contact buffer. The narrow-phase
 * routines have their own tests (test_collide_primitive.c,
 * test_collide_convex_*.c). */
#include <stdlib.h>

#include "collision/collision.h"
#include "test_util.h"

/* The collision stage alone at the current state: the frames it reads, then
   the contacts (the contact stage that acts on them is tested elsewhere). */
static void collide(const imp_model* m, imp_data* d) {
  imp_kinematics(m, d);
  imp_collision(m, d);
}

/* load xml, make its data and compute the contacts of the initial state */
static imp_model* load_forward(const char* xml, imp_data** d) {
  imp_model* m = imp_test_load_string(xml);
  *d = imp_make_data(m);
  collide(m, *d);
  return m;
}

static int count_pair(const imp_model* m, const imp_data* d, const char* a, const char* b) {
  int ga = imp_test_id(m, IMP_OBJ_GEOM, a), gb = imp_test_id(m, IMP_OBJ_GEOM, b), n = 0;
  for (int i = 0; i < d->ncon; i++) {
    const imp_contact* c = d->contact + i;
    if ((c->geom1 == ga && c->geom2 == gb) || (c->geom1 == gb && c->geom2 == ga)) n++;
  }
  return n;
}

static void free_both(imp_model* m, imp_data* d) {
  imp_free_data(d);
  imp_free_model(m);
}

/* two free spheres of radius 0.1, centres 0.15 apart (overlapping by 0.05),
   with extra attributes for each geom */
static char* two_spheres(char* buf, size_t n, const char* attr1, const char* attr2) {
  snprintf(buf, n,
           "<mujoco><worldbody>"
           "<body pos='0 0 1'><freejoint/><geom name='a' type='sphere' size='0.1' %s/></body>"
           "<body pos='0.15 0 1'><freejoint/><geom name='b' type='sphere' size='0.1' %s/></body>"
           "</worldbody></mujoco>",
           attr1, attr2);
  return buf;
}

START_TEST(test_overlapping_spheres_touch) {
  char xml[2000];
  imp_data* d;
  imp_model* m = load_forward(two_spheres(xml, sizeof xml, "", ""), &d);
  ck_assert_int_eq(d->ncon, 1);
  imp_assert_near(d->contact[0].dist, -0.05, 1e-12);
  ck_assert_int_eq(d->pstack, 0);
  free_both(m, d);
}
END_TEST

START_TEST(test_filter_bitmasks) {
  char xml[2000];
  imp_data* d;
  /* contype 2 against conaffinity 1 both ways: no common bit */
  imp_model* m =
      load_forward(two_spheres(xml, sizeof xml, "contype='2' conaffinity='2'",
                               "contype='1' conaffinity='1'"), &d);
  ck_assert_int_eq(d->ncon, 0);
  free_both(m, d);
  /* one direction is enough: a's type meets b's affinity */
  m = load_forward(two_spheres(xml, sizeof xml, "contype='4' conaffinity='0'",
                               "contype='0' conaffinity='4'"), &d);
  ck_assert_int_eq(d->ncon, 1);
  free_both(m, d);
}
END_TEST

START_TEST(test_filter_same_body) {
  imp_data* d;
  imp_model* m = load_forward(
      "<mujoco><worldbody><body><freejoint/>"
      "<geom name='a' type='sphere' size='0.1'/><geom name='b' type='sphere' size='0.1' "
      "pos='0.15 0 0'/></body></worldbody></mujoco>",
      &d);
  ck_assert_int_eq(d->ncon, 0);
  free_both(m, d);
}
END_TEST

START_TEST(test_filter_welded_child) {
  /* a child body without joints is welded to its parent: one rigid body */
  imp_data* d;
  imp_model* m = load_forward(
      "<mujoco><worldbody><body><freejoint/><geom name='a' type='sphere' size='0.1'/>"
      "<body pos='0.15 0 0'><geom name='b' type='sphere' size='0.1'/></body>"
      "</body></worldbody></mujoco>",
      &d);
  ck_assert_int_eq(d->ncon, 0);
  free_both(m, d);
}
END_TEST

START_TEST(test_filter_parent_child) {
  /* a hinged child never collides with its parent; its grandchild does */
  imp_data* d;
  imp_model* m = load_forward(
      "<mujoco><worldbody><body><freejoint/><geom name='a' type='sphere' size='0.1'/>"
      "<body pos='0.15 0 0'><joint type='hinge'/><geom name='b' type='sphere' size='0.1'/>"
      "<body pos='-0.15 0.02 0'><joint type='hinge'/><geom name='c' type='sphere' size='0.1'/>"
      "</body></body></body></worldbody></mujoco>",
      &d);
  ck_assert_int_eq(count_pair(m, d, "a", "b"), 0);
  ck_assert_int_eq(count_pair(m, d, "b", "c"), 0);
  ck_assert_int_eq(count_pair(m, d, "a", "c"), 1);
  free_both(m, d);
}
END_TEST

START_TEST(test_filter_world_parent_collides) {
  /* the world is exempt from the parent rule: a body on the floor touches it */
  imp_data* d;
  imp_model* m = load_forward(
      "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 0.1'/>"
      "<body pos='0 0 0.09'><freejoint/><geom name='ball' type='sphere' size='0.1'/></body>"
      "</worldbody></mujoco>",
      &d);
  ck_assert_int_eq(count_pair(m, d, "floor", "ball"), 1);
  imp_assert_near(d->contact[0].dist, -0.01, 1e-12);
  free_both(m, d);
}
END_TEST

START_TEST(test_filter_static_geoms) {
  /* two geoms fixed to the world never make contacts, even overlapping */
  imp_data* d;
  imp_model* m = load_forward(
      "<mujoco><worldbody><geom name='a' type='sphere' size='0.1'/>"
      "<body pos='0.15 0 0'><geom name='b' type='sphere' size='0.1'/></body>"
      "</worldbody></mujoco>",
      &d);
  ck_assert_int_eq(d->ncon, 0);
  free_both(m, d);
}
END_TEST

START_TEST(test_filter_exclude) {
  imp_data* d;
  imp_model* m = load_forward(
      "<mujoco><worldbody>"
      "<body name='A' pos='0 0 1'><freejoint/><geom name='a' type='sphere' size='0.1'/></body>"
      "<body name='B' pos='0.15 0 1'><freejoint/><geom name='b' type='sphere' size='0.1'/></body>"
      "<body name='C' pos='0.3 0 1'><freejoint/><geom name='c' type='sphere' size='0.1'/></body>"
      "</worldbody><contact><exclude body1='B' body2='A'/></contact></mujoco>",
      &d);
  ck_assert_int_eq(count_pair(m, d, "a", "b"), 0);
  ck_assert_int_eq(count_pair(m, d, "b", "c"), 1);
  free_both(m, d);
}
END_TEST

START_TEST(test_explicit_pair) {
  /* a pair is checked whatever the bitmasks say, with its own parameters,
     and only once even when the dynamic filters would also allow it */
  imp_data* d;
  imp_model* m = load_forward(
      "<mujoco><worldbody>"
      "<body pos='0 0 1'><freejoint/><geom name='a' type='sphere' size='0.1' contype='0' "
      "conaffinity='0'/></body>"
      "<body pos='0.15 0 1'><freejoint/><geom name='b' type='sphere' size='0.1'/></body>"
      "<body pos='0.3 0 1'><freejoint/><geom name='c' type='sphere' size='0.1'/></body>"
      "</worldbody><contact><pair geom1='b' geom2='a' condim='1' friction='0.3 0.4 0.01 0.002 "
      "0.003' margin='0.01'/><pair geom1='c' geom2='b' condim='4'/></contact></mujoco>",
      &d);
  ck_assert_int_eq(count_pair(m, d, "a", "b"), 1);
  ck_assert_int_eq(count_pair(m, d, "b", "c"), 1);
  const imp_contact* c = d->contact; /* explicit pairs come first, in file order */
  ck_assert_int_eq(c->pair, 0);
  ck_assert_int_eq(c->dim, 1);
  double f[5] = {0.3, 0.4, 0.01, 0.002, 0.003};
  imp_assert_vec_near(c->friction, f, 5, 0);
  imp_assert_near(c->margin, 0.01, 0);
  ck_assert_int_eq(d->contact[1].pair, 1);
  ck_assert_int_eq(d->contact[1].dim, 4);
  free_both(m, d);
}
END_TEST

START_TEST(test_dynamic_parameters) {
  char xml[2000];
  imp_data* d;
  /* equal priority: each friction coefficient and condim the larger */
  imp_model* m = load_forward(two_spheres(xml, sizeof xml, "friction='0.5 0.02 0.001' condim='1'",
                                          "friction='0.9 0.01 0.003' condim='6'"),
                              &d);
  ck_assert_int_eq(d->ncon, 1);
  double f[5] = {0.9, 0.9, 0.02, 0.003, 0.003};
  imp_assert_vec_near(d->contact[0].friction, f, 5, 0);
  ck_assert_int_eq(d->contact[0].dim, 6);
  ck_assert_int_eq(d->contact[0].pair, -1);
  free_both(m, d);
  /* higher priority: that geom's values, even the smaller ones */
  m = load_forward(two_spheres(xml, sizeof xml, "friction='0.5 0.02 0.001' condim='1' priority='1'",
                               "friction='0.9 0.01 0.003' condim='6'"),
                   &d);
  double g[5] = {0.5, 0.5, 0.02, 0.001, 0.001};
  imp_assert_vec_near(d->contact[0].friction, g, 5, 0);
  ck_assert_int_eq(d->contact[0].dim, 1);
  free_both(m, d);
}
END_TEST

START_TEST(test_margin_makes_contact_before_touching) {
  /* spheres 0.02 apart: no contact without margin, a positive-distance one
     with margin 0.03 on either geom (the larger margin applies) */
  imp_data* d;
  const char* fmt =
      "<mujoco><worldbody>"
      "<body pos='0 0 1'><freejoint/><geom name='a' type='sphere' size='0.1' %s/></body>"
      "<body pos='0.22 0 1'><freejoint/><geom name='b' type='sphere' size='0.1'/></body>"
      "</worldbody></mujoco>";
  char xml[1000];
  snprintf(xml, sizeof xml, fmt, "");
  imp_model* m = load_forward(xml, &d);
  ck_assert_int_eq(d->ncon, 0);
  free_both(m, d);
  snprintf(xml, sizeof xml, fmt, "margin='0.03' gap='0.005'");
  m = load_forward(xml, &d);
  ck_assert_int_eq(d->ncon, 1);
  imp_assert_near(d->contact[0].dist, 0.02, 1e-12);
  imp_assert_near(d->contact[0].margin, 0.03, 0);
  imp_assert_near(d->contact[0].gap, 0.005, 0);
  free_both(m, d);
}
END_TEST

START_TEST(test_contact_disabled) {
  char xml[2000];
  imp_data* d;
  two_spheres(xml, sizeof xml, "", "");
  const char* tail = strstr(xml, "<worldbody>");
  char xml2[2100];
  snprintf(xml2, sizeof xml2, "<mujoco><option><flag contact='disable'/></option>%s", tail);
  imp_model* m = load_forward(xml2, &d);
  ck_assert_int_eq(d->ncon, 0);
  free_both(m, d);
}
END_TEST

START_TEST(test_contact_frame_orthonormal) {
  imp_test_rng = 7;
  for (int k = 0; k < 1000; k++) {
    double f[9];
    for (int i = 0; i < 3; i++) f[i] = imp_test_urand(-1, 1);
    if (k < 6) { /* the axes themselves, both signs */
      f[0] = f[1] = f[2] = 0;
      f[k % 3] = k < 3 ? 1 : -1;
    }
    double nn = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; i++) f[i] /= nn;
    imp_contact_frame(f);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double dot = f[3 * a] * f[3 * b] + f[3 * a + 1] * f[3 * b + 1] + f[3 * a + 2] * f[3 * b + 2];
        imp_assert_near(dot, a == b ? 1 : 0, 1e-14);
      }
    /* right-handed: t1 x t2 = n */
    double c[3] = {f[4] * f[8] - f[5] * f[7], f[5] * f[6] - f[3] * f[8], f[3] * f[7] - f[4] * f[6]};
    imp_assert_vec_near(c, f, 3, 1e-14);
  }
}
END_TEST

/* The contacts of dynamic pairs without a plane come in ascending (lower
   geom id, higher geom id): an order set by which pairs touch, not by the
   broad phase's tree (collision.c). */
static void assert_canonical_order(const imp_model* m, const imp_data* d) {
  int last1 = -1, last2 = -1, nchecked = 0;
  for (int i = 0; i < d->ncon; i++) {
    const imp_contact* c = d->contact + i;
    if (m->geom_type[c->geom1] == IMP_GEOM_PLANE || m->geom_type[c->geom2] == IMP_GEOM_PLANE)
      continue;
    int g1 = c->geom1 < c->geom2 ? c->geom1 : c->geom2, g2 = c->geom1 ^ c->geom2 ^ g1;
    ck_assert_msg(g1 > last1 || (g1 == last1 && g2 >= last2),
                  "contact %d (%d, %d) after (%d, %d)", i, g1, g2, last1, last2);
    last1 = g1, last2 = g2, nchecked++;
  }
  ck_assert_int_gt(nchecked, 10);
}

/* Many geoms scattered in a box: the sweep must find exactly the contacts
   that testing every allowed pair finds. */
START_TEST(test_broad_phase_finds_all_pairs) {
  char* xml = malloc(200000);
  ck_assert_ptr_nonnull(xml);
  size_t len = (size_t)snprintf(xml, 200000, "<mujoco><worldbody><geom name='floor' type='plane' "
                                             "size='5 5 .1'/>");
  imp_test_rng = 11;
  const char* types[] = {"sphere' size='0.1", "capsule' size='0.05 0.12", "box' size='0.08 0.1 0.06"};
  for (int i = 0; i < 300; i++) {
    double x = imp_test_urand(0, 1.5), y = imp_test_urand(0, 1.5),
           z = imp_test_urand(0, 1);
    double e[3] = {imp_test_urand(0, 3), imp_test_urand(0, 3), imp_test_urand(0, 3)};
    len += (size_t)snprintf(xml + len, 200000 - len,
                            "<body pos='%g %g %g' euler='%g %g %g'><freejoint/><geom type='%s'/>"
                            "</body>",
                            x, y, z, e[0], e[1], e[2], types[i % 3]);
  }
  snprintf(xml + len, 200000 - len, "</worldbody><size nconmax='20000'/></mujoco>");
  imp_data* d;
  imp_model* m = load_forward(xml, &d);
  free(xml);
  ck_assert_int_gt(d->ncon, 50);
  /* all pairs: same filters as MJCF defines them (all bodies free, so only
     geoms of one body are excluded, and there is one geom per body) */
  int brute = 0;
  imp_contact con[IMP_MAXCONPAIR];
  for (int a = 0; a < m->ngeom; a++)
    for (int b = a + 1; b < m->ngeom; b++) {
      if (m->geom_bodyid[a] == m->geom_bodyid[b]) continue;
      brute += imp_collide_geoms(m, d, a, b, 0, con);
    }
  ck_assert_int_eq(d->ncon, brute);
  /* and the sweep tested far fewer pairs than all of them */
  ck_assert_int_lt(d->npair_broad, m->ngeom * (m->ngeom - 1) / 8);
  assert_canonical_order(m, d);
  free_both(m, d);
}
END_TEST

/* A clump where every geom touches every other (more pairs than the
   traversal's list holds, so each geom queries the tree instead): all the
   pairs, in the same canonical order. */
START_TEST(test_broad_phase_clump_finds_all_pairs_in_order) {
  char xml[20000];
  size_t len = (size_t)snprintf(xml, sizeof xml, "<mujoco><size nconmax='2000'/><worldbody>");
  imp_test_rng = 5;
  int n = 40;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(xml + len, sizeof xml - len,
                            "<body pos='%g %g %g'><freejoint/><geom type='sphere' size='0.1'/>"
                            "</body>",
                            imp_test_urand(0, 0.05), imp_test_urand(0, 0.05),
                            imp_test_urand(1, 1.05));
  snprintf(xml + len, sizeof xml - len, "</worldbody></mujoco>");
  imp_data* d;
  imp_model* m = load_forward(xml, &d);
  ck_assert_int_eq(d->ncon, n * (n - 1) / 2);
  ck_assert_int_eq(d->npair_broad, n * (n - 1) / 2);
  assert_canonical_order(m, d);
  free_both(m, d);
}
END_TEST

static int nwarn;
static void count_warning(const char* msg) {
  (void)msg;
  nwarn++;
}

START_TEST(test_full_buffer_warns_and_drops) {
  imp_data* d;
  imp_set_warning_handler(count_warning);
  imp_model* m = load_forward(
      "<mujoco><size nconmax='2'/><worldbody><geom type='plane' size='1 1 .1'/>"
      "<body pos='0 0 0.09'><freejoint/><geom type='sphere' size='0.1'/></body>"
      "<body pos='1 0 0.09'><freejoint/><geom type='sphere' size='0.1'/></body>"
      "<body pos='2 0 0.09'><freejoint/><geom type='sphere' size='0.1'/></body>"
      "</worldbody></mujoco>",
      &d);
  ck_assert_int_eq(m->nconmax, 2);
  ck_assert_int_eq(d->ncon, 2);
  ck_assert_int_eq(d->ncon_dropped, 1);
  collide(m, d);
  ck_assert_int_eq(nwarn, 1); /* reported once, counted every time */
  ck_assert_int_eq(d->nwarning_contactfull, 2);
  free_both(m, d);
}
END_TEST

int main(void) {
  Suite* s = suite_create("collision");
  TCase* tf = tcase_create("filters");
  tcase_add_test(tf, test_overlapping_spheres_touch);
  tcase_add_test(tf, test_filter_bitmasks);
  tcase_add_test(tf, test_filter_same_body);
  tcase_add_test(tf, test_filter_welded_child);
  tcase_add_test(tf, test_filter_parent_child);
  tcase_add_test(tf, test_filter_world_parent_collides);
  tcase_add_test(tf, test_filter_static_geoms);
  tcase_add_test(tf, test_filter_exclude);
  tcase_add_test(tf, test_explicit_pair);
  suite_add_tcase(s, tf);
  TCase* tp = tcase_create("parameters");
  tcase_add_test(tp, test_dynamic_parameters);
  tcase_add_test(tp, test_margin_makes_contact_before_touching);
  tcase_add_test(tp, test_contact_disabled);
  tcase_add_test(tp, test_contact_frame_orthonormal);
  suite_add_tcase(s, tp);
  TCase* tb = tcase_create("broad_phase");
  tcase_set_timeout(tb, 60);
  tcase_add_test(tb, test_broad_phase_finds_all_pairs);
  tcase_add_test(tb, test_broad_phase_clump_finds_all_pairs_in_order);
  tcase_add_test(tb, test_full_buffer_warns_and_drops);
  suite_add_tcase(s, tb);
  return imp_test_run_suite(s);
}
