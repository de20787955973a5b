/* Unit tests of the analytic narrow phase (engine/collision/collide_primitive.c,
 * engine/collision/collide_box.c), called directly and through imp_collide_geoms.
 *
 * Each pair type has a scene whose distance is known in closed form: geom 2
 * sits at distance base + delta from geom 1 along a direction, so the
 * surfaces are delta apart along a known normal. delta runs over touching
 * (0), separated within the margin, beyond it, shallow and deep
 * penetration. The same scenes are checked in both orders (the normal
 * flips), and under random rigid motions of both geoms (distances are
 * invariant, normals and points rotate). Manifold tests check the resting
 * contacts a simulation needs: 4 corners of a box on a plane or on a box,
 * 2 ends of a lying capsule, 3+ non-collinear points under a cylinder, one
 * point for a box standing on a corner or crossing edges. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collision/collision.h"
#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

#define TOL 1e-12

/* A model of two geoms: g1 (a plane goes in the world) and g2, each in a
   body of its own. Poses are then set with set_pose. */
static imp_model* two_geoms(const char* geom1, const char* geom2) {
  char xml[2000];
  int plane = strstr(geom1, "plane") != NULL;
  snprintf(xml, sizeof xml,
           "<mujoco><worldbody>%s%s%s<body><freejoint/>%s</body></worldbody></mujoco>",
           plane ? geom1 : "<body><freejoint/>", plane ? "" : geom1, plane ? "" : "</body>",
           geom2);
  return imp_test_load_string(xml);
}

static void set_pose(imp_data* d, int g, const double pos[3], const double quat[4]) {
  imp_copy(d->geom_xpos + 3 * g, pos, 3);
  imp_quat2mat(d->geom_xmat + 9 * g, quat);
}

/* the contacts all have unit normals and orthonormal right-handed frames */
static void check_frames(const imp_contact* con, int n) {
  for (int i = 0; i < n; i++) {
    const double* f = con[i].frame;
    double c[3];
    imp_assert_near(imp_norm3(f), 1, 1e-12);
    imp_assert_near(imp_norm3(f + 3), 1, 1e-12);
    imp_assert_near(imp_dot(f, f + 3, 3), 0, 1e-12);
    imp_cross(c, f + 3, f + 6);
    imp_assert_vec_near(c, f, 3, 1e-12);
  }
}

/* Is there a contact at (x, y, z)? */
static int has_point(const imp_contact* con, int n, double x, double y, double z, double tol) {
  for (int i = 0; i < n; i++)
    if (fabs(con[i].pos[0] - x) <= tol && fabs(con[i].pos[1] - y) <= tol &&
        fabs(con[i].pos[2] - z) <= tol)
      return 1;
  return 0;
}

/* ---- the closed-form scenes ---- */

typedef struct pair_case {
  const char* name;
  const char* geom1;
  const char* geom2;
  imp_narrow_fn fn;
  double quat1[4], quat2[4]; /* orientations */
  double dir[3];             /* unit: geom 2's centre is at dir (base + delta) */
  double base;
  int count; /* contacts when within the margin, all at dist delta */
} pair_case;

#define S2 0.70710678118654752
static const pair_case k_cases[] = {
    {"plane-sphere", "<geom type='plane' size='1 1 .1'/>", "<geom type='sphere' size='.5'/>",
     imp_collide_plane_sphere, {1, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 1}, 0.5, 1},
    /* upright capsule: only its lower end */
    {"plane-capsule", "<geom type='plane' size='1 1 .1'/>", "<geom type='capsule' size='.2 .5'/>",
     imp_collide_plane_capsule, {1, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 1}, 0.7, 1},
    {"plane-box", "<geom type='plane' size='1 1 .1'/>", "<geom type='box' size='.3 .4 .5'/>",
     imp_collide_plane_box, {1, 0, 0, 0}, {S2, 0, 0, S2}, {0, 0, 1}, 0.5, 4},
    {"plane-cylinder", "<geom type='plane' size='1 1 .1'/>",
     "<geom type='cylinder' size='.3 .4'/>", imp_collide_plane_cylinder, {1, 0, 0, 0},
     {1, 0, 0, 0}, {0, 0, 1}, 0.4, 4},
    {"sphere-sphere", "<geom type='sphere' size='.5'/>", "<geom type='sphere' size='.3'/>",
     imp_collide_sphere_sphere, {1, 0, 0, 0}, {1, 0, 0, 0}, {1. / 3, 2. / 3, 2. / 3}, 0.8, 1},
    /* sphere beside the middle of a capsule */
    {"sphere-capsule", "<geom type='sphere' size='.5'/>", "<geom type='capsule' size='.2 .6'/>",
     imp_collide_sphere_capsule, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0}, 0.7, 1},
    /* crossing capsules: axes z and x, apart along y */
    {"capsule-capsule", "<geom type='capsule' size='.2 .6'/>",
     "<geom type='capsule' size='.3 .5'/>", imp_collide_capsule_capsule, {1, 0, 0, 0},
     {S2, 0, S2, 0}, {0, 1, 0}, 0.5, 1},
    /* sphere facing the -x face; at delta = -0.6 its centre is inside */
    {"sphere-box", "<geom type='sphere' size='.5'/>", "<geom type='box' size='.3 .4 .5'/>",
     imp_collide_sphere_box, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0}, 0.8, 1},
    /* capsule along the -x face, longer than it: contacts at the face's ends */
    {"capsule-box", "<geom type='capsule' size='.2 .6'/>", "<geom type='box' size='.3 .4 .5'/>",
     imp_collide_capsule_box, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0}, 0.5, 2},
    /* small box on a large one, turned 30 degrees about z */
    {"box-box", "<geom type='box' size='.5 .6 .5'/>", "<geom type='box' size='.2 .2 .2'/>",
     imp_collide_box_box, {1, 0, 0, 0}, {0.96592582628906829, 0, 0, 0.25881904510252076},
     {0, 0, 1}, 0.7, 4},
};
#define NCASE ((int)(sizeof k_cases / sizeof k_cases[0]))

static const double k_margin = 0.05;
/* touching, within the margin, beyond it, shallow, deep */
static const double k_deltas[] = {0, 0.02, 0.07, -0.01, -0.3};
#define NDELTA 5

/* Pose both geoms of case c at separation delta, after a rigid motion
   (R, t) of the whole scene. */
static void pose_case(imp_data* d, const pair_case* c, double delta, const double q[4],
                      const double t[3]) {
  double p1[3], p2[3], q1[4], q2[4], c2[3];
  imp_scl(c2, c->dir, c->base + delta, 3);
  imp_quat_rotate(p1, q, (double[3]){0, 0, 0});
  imp_quat_rotate(p2, q, c2);
  for (int i = 0; i < 3; i++) {
    p1[i] += t[i];
    p2[i] += t[i];
  }
  imp_quat_mul(q1, q, c->quat1);
  imp_quat_mul(q2, q, c->quat2);
  set_pose(d, 0, p1, q1);
  set_pose(d, 1, p2, q2);
}

/* Run case c at every delta under the motion (q, t), both directly and
   through imp_collide_geoms in both orders. */
static void check_case(const pair_case* c, const double q[4], const double t[3]) {
  imp_model* m = two_geoms(c->geom1, c->geom2);
  imp_data* d = imp_make_data(m);
  imp_kinematics(m, d);
  double n[3];
  imp_quat_rotate(n, q, c->dir);
  for (int k = 0; k < NDELTA; k++) {
    double delta = k_deltas[k];
    pose_case(d, c, delta, q, t);
    imp_contact con[IMP_MAXCONPAIR], con2[IMP_MAXCONPAIR], con3[IMP_MAXCONPAIR];
    int nc = c->fn(m, d, 0, 1, k_margin, con);
    int expect = delta <= k_margin ? c->count : 0;
    ck_assert_msg(nc == expect, "%s delta %g: %d contacts, expected %d", c->name, delta, nc,
                  expect);
    for (int i = 0; i < nc; i++) {
      imp_assert_near(con[i].dist, delta, TOL);
      imp_assert_vec_near(con[i].frame, n, 3, TOL);
      for (int j = 0; j < 3; j++) ck_assert(isfinite(con[i].pos[j]));
    }
    /* through the dispatcher, in both orders */
    int n2 = imp_collide_geoms(m, d, 0, 1, k_margin, con2);
    int n3 = imp_collide_geoms(m, d, 1, 0, k_margin, con3);
    ck_assert_int_eq(n2, nc);
    ck_assert_int_eq(n3, nc);
    check_frames(con2, n2);
    check_frames(con3, n3);
    /* geoms of one type run the routine itself with the roles swapped:
       the same contacts up to round-off, possibly in another order */
    for (int i = 0; i < nc; i++) {
      double flipped[3];
      imp_scl(flipped, con3[i].frame, -1, 3);
      imp_assert_near(con2[i].dist, con[i].dist, 0);
      imp_assert_vec_near(con2[i].pos, con[i].pos, 3, 0);
      imp_assert_vec_near(con2[i].frame, n, 3, TOL);
      imp_assert_near(con3[i].dist, delta, TOL);
      imp_assert_vec_near(flipped, n, 3, TOL);
      ck_assert_msg(has_point(con3, n3, con[i].pos[0], con[i].pos[1], con[i].pos[2], TOL),
                    "%s delta %g: contact %d missing in the swapped order", c->name, delta, i);
    }
  }
  imp_free_data(d);
  imp_free_model(m);
}

START_TEST(test_analytic_distances) {
  double q[4] = {1, 0, 0, 0}, t[3] = {0, 0, 0};
  check_case(&k_cases[_i], q, t);
}
END_TEST

/* The same scenes moved by random rigid motions: distances do not change,
   normals turn with the scene, and the points move with it. */
START_TEST(test_rigid_motion_invariance) {
  const pair_case* c = &k_cases[_i];
  imp_test_rng = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
  for (int trial = 0; trial < 5; trial++) {
    double q[4], t[3];
    imp_test_rand_quat(q);
    for (int i = 0; i < 3; i++) t[i] = imp_test_urand(-3, 3);
    check_case(c, q, t);
  }
  /* points: compare against the unmoved scene at a shallow penetration */
  imp_model* m = two_geoms(c->geom1, c->geom2);
  imp_data* d = imp_make_data(m);
  imp_kinematics(m, d);
  double q0[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0}, q[4], t[3] = {0.3, -1.2, 2.5};
  imp_test_rand_quat(q);
  imp_contact a[IMP_MAXCONPAIR], b[IMP_MAXCONPAIR];
  pose_case(d, c, -0.01, q0, t0);
  int na = c->fn(m, d, 0, 1, k_margin, a);
  pose_case(d, c, -0.01, q, t);
  int nb = c->fn(m, d, 0, 1, k_margin, b);
  ck_assert_int_eq(na, nb);
  for (int i = 0; i < na; i++) {
    double p[3];
    imp_quat_rotate(p, q, a[i].pos);
    for (int j = 0; j < 3; j++) p[j] += t[j];
    /* the same point somewhere in the moved set (order may follow round-off) */
    double best = INFINITY;
    for (int k = 0; k < nb; k++) {
      double e = imp_max_abs_diff(p, b[k].pos, 3);
      if (e < best) best = e;
    }
    imp_assert_near(best, 0, 1e-12);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* ---- manifolds: the contacts a resting body needs ---- */

/* collide geoms 0 and 1 of a model posed by hand */
static int collide_posed(imp_model* m, imp_data* d, const double p1[3], const double q1[4],
                         const double p2[3], const double q2[4], double margin,
                         imp_contact* con) {
  imp_kinematics(m, d);
  set_pose(d, 0, p1, q1);
  set_pose(d, 1, p2, q2);
  return imp_collide_geoms(m, d, 0, 1, margin, con);
}

static const double k_id[4] = {1, 0, 0, 0}, k_zero[3] = {0, 0, 0};

START_TEST(test_box_on_plane_four_corners) {
  imp_model* m = two_geoms("<geom type='plane' size='1 1 .1'/>", "<geom type='box' size='.3 .4 .5'/>");
  imp_data* d = imp_make_data(m);
  imp_contact con[IMP_MAXCONPAIR];
  /* 1 cm into the plane: each contact halfway between corner and plane */
  int n = collide_posed(m, d, k_zero, k_id, (double[3]){1, 2, 0.49}, k_id, 0, con);
  ck_assert_int_eq(n, 4);
  for (int sx = -1; sx <= 1; sx += 2)
    for (int sy = -1; sy <= 1; sy += 2)
      ck_assert(has_point(con, n, 1 + 0.3 * sx, 2 + 0.4 * sy, -0.005, 1e-12));
  for (int i = 0; i < n; i++) imp_assert_near(con[i].dist, -0.01, 1e-12);
  /* exactly touching at margin 0 is a contact (dist <= margin, as MuJoCo) */
  n = collide_posed(m, d, k_zero, k_id, (double[3]){1, 2, 0.5}, k_id, 0, con);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) imp_assert_near(con[i].dist, 0, 0);
  /* stood on a corner: one contact at the corner */
  double q[4], axis[3] = {1, -1, 0};
  imp_normalize3(axis);
  /* the (1,1,1) diagonal of a cube turned onto -z: by -acos(-1/sqrt 3)
     about (1,-1,0)/sqrt 2, which is perpendicular to it */
  imp_model* mc = two_geoms("<geom type='plane' size='1 1 .1'/>", "<geom type='box' size='.5 .5 .5'/>");
  imp_data* dc = imp_make_data(mc);
  imp_axisangle2quat(q, axis, -acos(-1 / sqrt(3)));
  double half_diag = 0.5 * sqrt(3);
  n = collide_posed(mc, dc, k_zero, k_id, (double[3]){0, 0, half_diag - 0.01}, q, 0, con);
  ck_assert_int_eq(n, 1);
  imp_assert_near(con[0].dist, -0.01, 1e-12);
  ck_assert(has_point(con, n, 0, 0, -0.005, 1e-12));
  imp_free_data(dc);
  imp_free_model(mc);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(test_capsule_lying_on_plane_two_ends) {
  imp_model* m = two_geoms("<geom type='plane' size='1 1 .1'/>", "<geom type='capsule' size='.2 .6'/>");
  imp_data* d = imp_make_data(m);
  imp_contact con[IMP_MAXCONPAIR];
  double q[4] = {S2, 0, S2, 0}; /* axis along x */
  int n = collide_posed(m, d, k_zero, k_id, (double[3]){0, 0, 0.2}, q, 0.001, con);
  ck_assert_int_eq(n, 2);
  ck_assert(has_point(con, n, 0.6, 0, 0, 1e-12));
  ck_assert(has_point(con, n, -0.6, 0, 0, 1e-12));
  /* raised by 1 mm at one end: only the low end remains without margin */
  double tilt[4], y[3] = {0, 1, 0};
  imp_axisangle2quat(tilt, y, asin(0.001 / 1.2));
  imp_quat_mul(q, tilt, q);
  n = collide_posed(m, d, k_zero, k_id, (double[3]){0, 0, 0.2}, q, 0, con);
  ck_assert_int_eq(n, 1);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* twice the largest triangle area over the contacts (0 when collinear) */
static double spread_area(const imp_contact* con, int n) {
  double best = 0;
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      for (int c = b + 1; c < n; c++) {
        double u[3], v[3], w[3];
        for (int i = 0; i < 3; i++) {
          u[i] = con[b].pos[i] - con[a].pos[i];
          v[i] = con[c].pos[i] - con[a].pos[i];
        }
        imp_cross(w, u, v);
        best = fmax(best, imp_norm3(w));
      }
  return best;
}

START_TEST(test_cylinder_standing_and_lying) {
  imp_model* m = two_geoms("<geom type='plane' size='1 1 .1'/>", "<geom type='cylinder' size='.3 .4'/>");
  imp_data* d = imp_make_data(m);
  imp_contact con[IMP_MAXCONPAIR];
  int n = collide_posed(m, d, k_zero, k_id, (double[3]){0.5, 0, 0.39}, k_id, 0, con);
  ck_assert_int_ge(n, 3);
  /* the points are on the bottom rim and span it: the square inscribed in
     the rim has triangles of area r^2 (twice: 2 r^2) */
  imp_assert_near(spread_area(con, n), 2 * 0.3 * 0.3, 1e-12);
  for (int i = 0; i < n; i++) {
    imp_assert_near(con[i].dist, -0.01, 1e-12);
    imp_assert_near(hypot(con[i].pos[0] - 0.5, con[i].pos[1]), 0.3, 1e-12);
  }
  /* upside down: the other face rests the same way */
  double flip[4] = {0, 1, 0, 0};
  n = collide_posed(m, d, k_zero, k_id, (double[3]){0.5, 0, 0.39}, flip, 0, con);
  ck_assert_int_ge(n, 3);
  imp_assert_near(spread_area(con, n), 2 * 0.3 * 0.3, 1e-12);
  /* lying on its side: the two ends of the contact line */
  double side[4] = {S2, S2, 0, 0}; /* axis along y */
  n = collide_posed(m, d, k_zero, k_id, (double[3]){0, 0, 0.29}, side, 0, con);
  ck_assert_int_eq(n, 2);
  ck_assert(has_point(con, n, 0, 0.4, -0.005, 1e-12));
  ck_assert(has_point(con, n, 0, -0.4, -0.005, 1e-12));
  /* tilted by 30 degrees: the deepest rim point comes first, exactly */
  double tilt[4], x[3] = {1, 0, 0};
  imp_axisangle2quat(tilt, x, IMP_PI / 6);
  double low = 0.4 * cos(IMP_PI / 6) + 0.3 * sin(IMP_PI / 6); /* centre height of contact */
  n = collide_posed(m, d, k_zero, k_id, (double[3]){0, 0, low - 0.02}, tilt, 0, con);
  ck_assert_int_ge(n, 1);
  imp_assert_near(con[0].dist, -0.02, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(test_box_on_box_manifolds) {
  imp_model* m = two_geoms("<geom type='box' size='1 1 .5'/>", "<geom type='box' size='.2 .3 .4'/>");
  imp_data* d = imp_make_data(m);
  imp_contact con[IMP_MAXCONPAIR];
  /* face down on the larger box, 1 cm deep: the 4 bottom corners */
  int n = collide_posed(m, d, k_zero, k_id, (double[3]){0.1, -0.2, 0.89}, k_id, 0, con);
  ck_assert_int_eq(n, 4);
  for (int sx = -1; sx <= 1; sx += 2)
    for (int sy = -1; sy <= 1; sy += 2)
      ck_assert(has_point(con, n, 0.1 + 0.2 * sx, -0.2 + 0.3 * sy, 0.495, 1e-12));
  for (int i = 0; i < n; i++) {
    imp_assert_near(con[i].dist, -0.01, 1e-12);
    imp_assert_vec_near(con[i].frame, ((double[3]){0, 0, 1}), 3, 1e-12);
  }
  /* the larger box upside down on the small one: its face is clipped to
     the small box's face, 4 points at the small box's corners */
  n = collide_posed(m, d, (double[3]){0, 0, 0.89}, k_id, k_zero, k_id, 0, con);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    imp_assert_near(con[i].dist, -0.01, 1e-12);
    imp_assert_vec_near(con[i].frame, ((double[3]){0, 0, -1}), 3, 1e-12);
  }
  ck_assert(has_point(con, n, 0.2, 0.3, 0.395, 1e-12));
  /* stood on a corner: one contact */
  imp_model* mc = two_geoms("<geom type='box' size='1 1 .5'/>", "<geom type='box' size='.5 .5 .5'/>");
  imp_data* dc = imp_make_data(mc);
  double q[4], axis[3] = {S2, -S2, 0};
  imp_axisangle2quat(q, axis, -acos(-1 / sqrt(3)));
  n = collide_posed(mc, dc, k_zero, k_id, (double[3]){0.2, 0.1, 0.5 + 0.5 * sqrt(3) - 0.01}, q,
                    0, con);
  ck_assert_int_eq(n, 1);
  imp_assert_near(con[0].dist, -0.01, 1e-12);
  ck_assert(has_point(con, n, 0.2, 0.1, 0.495, 1e-12));
  imp_free_data(dc);
  imp_free_model(mc);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A box resting on another, tilted 0.01 rad against it so that its
   corners sink by different depths: whichever box's face is the reference
   (the tilted box on top, or the base tilted under an upright box, so
   both geom1's and geom2's), the points where the rows act
   (imp_contact_point) lie in one plane normal to the contact normal, the
   reference face. Sticking at all of them is then one rigid motion; on
   the incident face (geom1's surface when the reference was geom2's) they
   were up to the depth spread apart along n and a resting stack could
   only micro-slip (humanoid100). */
START_TEST(test_box_on_box_points_on_the_reference_face) {
  const char *base = "<geom type='box' size='.6 .5 .2'/>", *top = "<geom type='box' size='.2 .3 .1'/>";
  double q[4], axis[3] = {1, 0.5, 0}, up[3] = {0.05, -0.02, 0.29};
  imp_normalize3(axis);
  imp_axisangle2quat(q, axis, 0.01);
  int seen[3] = {0, 0, 0};
  for (int order = 0; order < 2; order++) { /* the base as geom1, then as geom2 */
    imp_model* m = order ? two_geoms(top, base) : two_geoms(base, top);
    imp_data* d = imp_make_data(m);
    imp_contact con[IMP_MAXCONPAIR];
    for (int which = 0; which < 2; which++) { /* the upper box tilted, then the base */
      for (int i = 0; i < IMP_MAXCONPAIR; i++) con[i].surface = 0;
      const double *qb = which ? q : k_id, *qt = which ? k_id : q;
      int n = order ? collide_posed(m, d, up, qt, k_zero, qb, 0, con)
                    : collide_posed(m, d, k_zero, qb, up, qt, 0, con);
      ck_assert_int_ge(n, 3);
      double lo = INFINITY, hi = -INFINITY, dmin = INFINITY, dmax = -INFINITY;
      for (int i = 0; i < n; i++) {
        con[i].geom1 = 0, con[i].geom2 = 1;
        ck_assert(con[i].surface == 1 || con[i].surface == 2);
        seen[con[i].surface] = 1;
        double p[3];
        imp_contact_point(m, con + i, p);
        double h = imp_dot(p, con[i].frame, 3);
        lo = fmin(lo, h), hi = fmax(hi, h);
        dmin = fmin(dmin, con[i].dist), dmax = fmax(dmax, con[i].dist);
      }
      printf("box on box, base geom%d, %s tilted: %d contacts on geom%d's face, depths %.3g to "
             "%.3g, points %.3g apart along n\n",
             order + 1, which ? "base" : "top", n, con[0].surface, dmin, dmax, hi - lo);
      ck_assert_msg(dmax - dmin > 1e-3, "the corners sink by different depths");
      ck_assert_msg(hi - lo <= 1e-15, "points %.3g apart along the normal", hi - lo);
    }
    imp_free_data(d);
    imp_free_model(m);
  }
  ck_assert_msg(seen[1] && seen[2], "both geom1's and geom2's face were the reference");
}
END_TEST

/* Two unit cubes on crossed edges: the lower one turned 45 degrees about x
   (top edge along x at height sqrt(2)/2), the upper one 45 degrees about y
   (bottom edge along y). One contact where the edges cross. */
START_TEST(test_box_edge_edge) {
  imp_model* m = two_geoms("<geom type='box' size='.5 .5 .5'/>", "<geom type='box' size='.5 .5 .5'/>");
  imp_data* d = imp_make_data(m);
  imp_contact con[IMP_MAXCONPAIR];
  double qa[4], qb[4], x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
  imp_axisangle2quat(qa, x, IMP_PI / 4);
  imp_axisangle2quat(qb, y, IMP_PI / 4);
  double r = 0.5 * sqrt(2);
  for (int k = 0; k < NDELTA; k++) {
    double delta = k_deltas[k];
    if (delta < -0.2) continue; /* deep crossings turn into face contacts */
    int n = collide_posed(m, d, k_zero, qa, (double[3]){0, 0, 2 * r + delta}, qb, k_margin, con);
    ck_assert_int_eq(n, delta < k_margin ? 1 : 0);
    if (!n) continue;
    imp_assert_near(con[0].dist, delta, 1e-12);
    imp_assert_vec_near(con[0].frame, ((double[3]){0, 0, 1}), 3, 1e-12);
    imp_assert_vec_near(con[0].pos, ((double[3]){0, 0, r + delta / 2}), 3, 1e-12);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(test_capsule_manifolds) {
  /* parallel capsules side by side, overlapping over x in [-0.2, 0.6] */
  imp_model* m = two_geoms("<geom type='capsule' size='.2 .6'/>", "<geom type='capsule' size='.3 .4'/>");
  imp_data* d = imp_make_data(m);
  imp_contact con[IMP_MAXCONPAIR];
  double q[4] = {S2, 0, S2, 0}; /* axis along x */
  int n = collide_posed(m, d, k_zero, q, (double[3]){0.2, 0, 0.49}, q, 0, con);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < n; i++) {
    imp_assert_near(con[i].dist, -0.01, 1e-12);
    imp_assert_vec_near(con[i].frame, ((double[3]){0, 0, 1}), 3, 1e-12);
  }
  ck_assert(has_point(con, n, -0.2, 0, 0.195, 1e-12));
  ck_assert(has_point(con, n, 0.6, 0, 0.195, 1e-12));
  /* a capsule lying on a box face, its ends over the face: 2 contacts at
     the ends */
  imp_model* mb = two_geoms("<geom type='capsule' size='.2 .6'/>", "<geom type='box' size='1 1 .5'/>");
  imp_data* db = imp_make_data(mb);
  n = collide_posed(mb, db, (double[3]){0.1, 0.2, 0.69}, q, k_zero, k_id, 0, con);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < n; i++) {
    imp_assert_near(con[i].dist, -0.01, 1e-12);
    imp_assert_vec_near(con[i].frame, ((double[3]){0, 0, -1}), 3, 1e-12);
  }
  ck_assert(has_point(con, n, 0.7, 0.2, 0.495, 1e-12));
  ck_assert(has_point(con, n, -0.5, 0.2, 0.495, 1e-12));
  /* a capsule beyond a box's edge, in line with it: its near end
     (0.3, 1.3, 0.8) is closest to the edge point (0.3, 1, 0.5) */
  double qy[4] = {S2, -S2, 0, 0}; /* axis along y */
  n = collide_posed(mb, db, (double[3]){0.3, 1.2 + 0.6 + 0.1, 0.8}, qy, k_zero, k_id, 0.5, con);
  ck_assert_int_eq(n, 1);
  imp_assert_near(con[0].dist, sqrt(0.3 * 0.3 + 0.3 * 0.3) - 0.2, 1e-12);
  imp_assert_vec_near(con[0].frame, ((double[3]){0, -S2, -S2}), 3, 1e-12);
  imp_free_data(db);
  imp_free_model(mb);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* ---- degenerate poses: deterministic, never NaN ---- */

START_TEST(test_coincident_centres) {
  static const struct {
    const char *g1, *g2;
    double dist; /* the minimum translation, analytic */
  } cases[] = {
      {"<geom type='sphere' size='.5'/>", "<geom type='sphere' size='.3'/>", -0.8},
      {"<geom type='sphere' size='.5'/>", "<geom type='capsule' size='.3 .4'/>", -0.8},
      {"<geom type='capsule' size='.2 .6'/>", "<geom type='capsule' size='.3 .4'/>", -0.5},
      /* sphere centre at the box centre: out through the nearest (x) face */
      {"<geom type='sphere' size='.5'/>", "<geom type='box' size='.3 .4 .5'/>", -0.8},
      {"<geom type='capsule' size='.2 .1'/>", "<geom type='box' size='.3 .4 .5'/>", -0.5},
      {"<geom type='box' size='.3 .4 .5'/>", "<geom type='box' size='.3 .4 .5'/>", -0.6},
  };
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    imp_model* m = two_geoms(cases[c].g1, cases[c].g2);
    imp_data* d = imp_make_data(m);
    imp_contact con[IMP_MAXCONPAIR], again[IMP_MAXCONPAIR];
    memset(con, 0, sizeof con);
    memset(again, 0, sizeof again);
    int n = collide_posed(m, d, k_zero, k_id, k_zero, k_id, 0, con);
    ck_assert_int_ge(n, 1);
    check_frames(con, n);
    double dmin = INFINITY;
    for (int i = 0; i < n; i++) {
      dmin = fmin(dmin, con[i].dist);
      for (int j = 0; j < 3; j++) ck_assert(isfinite(con[i].pos[j]));
    }
    imp_assert_near(dmin, cases[c].dist, 1e-12);
    ck_assert_int_eq(collide_posed(m, d, k_zero, k_id, k_zero, k_id, 0, again), n);
    ck_assert(memcmp(con, again, (size_t)n * sizeof con[0]) == 0);
    imp_free_data(d);
    imp_free_model(m);
  }
}
END_TEST

static Suite* collide_primitive_suite(void) {
  Suite* s = suite_create("collide_primitive");
  TCase* tc = tcase_create("distances");
  tcase_add_loop_test(tc, test_analytic_distances, 0, NCASE);
  suite_add_tcase(s, tc);
  tc = tcase_create("invariance");
  tcase_add_loop_test(tc, test_rigid_motion_invariance, 0, NCASE);
  suite_add_tcase(s, tc);
  tc = tcase_create("manifolds");
  tcase_add_test(tc, test_box_on_plane_four_corners);
  tcase_add_test(tc, test_capsule_lying_on_plane_two_ends);
  tcase_add_test(tc, test_cylinder_standing_and_lying);
  tcase_add_test(tc, test_box_on_box_manifolds);
  tcase_add_test(tc, test_box_on_box_points_on_the_reference_face);
  tcase_add_test(tc, test_box_edge_edge);
  tcase_add_test(tc, test_capsule_manifolds);
  suite_add_tcase(s, tc);
  tc = tcase_create("degenerate");
  tcase_add_test(tc, test_coincident_centres);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(collide_primitive_suite()); }
