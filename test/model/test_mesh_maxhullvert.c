/* Tests of mesh assets: maxhullvert, the collision hull capped (its
 * vertices, the convex inertia, a ball resting on the capped hull). Shared
 * helpers: mesh_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "mesh_util.h"

/* ---- maxhullvert: the collision hull capped (MJCF reference, asset/mesh
   maxhullvert) ---- */

/* An OBJ of two concentric latitude-longitude spheres of radii 1 and 0.5
   (poles included, nlat bands, nlon meridians): the inner shell's vertices
   are inside the hull. */
static void write_two_shells_obj(const char* name, int nlat, int nlon) {
  size_t cap = 200000, len = 0;
  char* buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  int nv = 2 + (nlat - 1) * nlon; /* vertices per shell */
  for (int shell = 0; shell < 2; shell++) {
    double r = shell ? 0.5 : 1;
    len += (size_t)snprintf(buf + len, cap - len, "v 0 0 %.17g\nv 0 0 %.17g\n", r, -r);
    for (int i = 1; i < nlat; i++)
      for (int j = 0; j < nlon; j++) {
        double th = IMP_PI * i / nlat, ph = 2 * IMP_PI * j / nlon;
        len += (size_t)snprintf(buf + len, cap - len, "v %.17g %.17g %.17g\n",
                                r * sin(th) * cos(ph), r * sin(th) * sin(ph), r * cos(th));
      }
  }
  for (int shell = 0; shell < 2; shell++) {
    int o = shell * nv + 1; /* OBJ indices from 1: north pole o, south o + 1 */
#define RING(i, j) (o + 2 + ((i) - 1) * nlon + ((j) % nlon))
    for (int j = 0; j < nlon; j++) {
      len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d\n", o, RING(1, j), RING(1, j + 1));
      len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d\n", o + 1, RING(nlat - 1, j + 1),
                              RING(nlat - 1, j));
      for (int i = 1; i < nlat - 1; i++)
        len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d %d\n", RING(i, j), RING(i + 1, j),
                                RING(i + 1, j + 1), RING(i, j + 1));
    }
#undef RING
  }
  ck_assert_uint_lt(len, cap - 1);
  write_file(name, buf, len);
  free(buf);
}

/* MuJoCo's meaning (its docs: qhull asked "to terminate after maxhullvert
   vertices"): a mesh whose hull has more vertices gets a hull of exactly
   maxhullvert of them; they are points of the full hull's surface (qhull
   adds the furthest point outside a facet, which is extreme in that
   facet's direction), so none of the inner shell; -1 and a cap above the
   hull's size change nothing. */
START_TEST(maxhullvert_caps_the_hull) {
  write_two_shells_obj("shells.obj", 12, 16); /* 178 vertices a shell */
  char xml[600];
  one_mesh_xml(xml, sizeof xml, "shells.obj", "", "");
  imp_model* full = load_in(IMP_TEST_TMPDIR, xml);
  ck_assert_int_eq(full->mesh_vertnum[0], 2 * 178);
  ck_assert_int_eq(full->mesh_hullnum[0], 178);
  const int caps[] = {4, 5, 9, 40, 177, 178, 500, -1};
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
    char attr[40];
    snprintf(attr, sizeof attr, "maxhullvert='%d'", caps[k]);
    one_mesh_xml(xml, sizeof xml, "shells.obj", attr, "");
    imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
    int n = m->mesh_hullnum[0];
    ck_assert_int_eq(n, caps[k] < 0 || caps[k] > 178 ? 178 : caps[k]);
    for (int h = 0; h < n; h++) {
      int v = m->mesh_hull[m->mesh_hulladr[0] + h];
      ck_assert(v >= 0 && v < m->mesh_vertnum[0]);
      if (h > 0) ck_assert_int_gt(v, m->mesh_hull[m->mesh_hulladr[0] + h - 1]); /* distinct */
      /* on the outer shell (the mesh frame is at the common centre) */
      const double* p = m->mesh_vert + 3 * (m->mesh_vertadr[0] + v);
      imp_assert_near(imp_norm3(p), 1, 1e-9);
    }
    /* the mass comes from the mesh's triangles, not from the hull */
    imp_assert_near(m->body_mass[1], full->body_mass[1], 1e-12 * full->body_mass[1]);
    imp_free_model(m);
  }
  imp_free_model(full);
  /* a flat mesh (MuJoCo refuses it; its hull is its outline here): the cap
     applies to the outline, points of its rim, not the disc's centre */
  char obj[4000];
  size_t len = (size_t)snprintf(obj, sizeof obj, "v 0 0 0\n");
  for (int i = 0; i < 40; i++)
    len += (size_t)snprintf(obj + len, sizeof obj - len, "v %.17g %.17g 0\n",
                            cos(2 * IMP_PI * i / 40), sin(2 * IMP_PI * i / 40));
  for (int i = 0; i < 40; i++)
    len += (size_t)snprintf(obj + len, sizeof obj - len, "f 1 %d %d\n", 2 + i, 2 + (i + 1) % 40);
  write_text("disc.obj", obj);
  imp_model* m = load_in(IMP_TEST_TMPDIR, "<mujoco><asset><mesh file='disc.obj' maxhullvert='6'/>"
                                          "</asset><worldbody><geom type='mesh' mesh='disc'/>"
                                          "</worldbody></mujoco>");
  ck_assert_int_eq(m->mesh_hullnum[0], 6);
  for (int h = 0; h < 6; h++)
    imp_assert_near(imp_norm3(m->mesh_vert + 3 * m->mesh_hull[h]), 1, 1e-9);
  imp_free_model(m);
}
END_TEST

/* inertia="convex" takes the hull's solid, as MuJoCo's convex inertia
   takes its (capped) hull: with maxhullvert 4 the tetrahedron of the four
   hull vertices, mass density |det(b - a, c - a, d - a)| / 6. */
START_TEST(maxhullvert_convex_inertia_is_the_capped_hull) {
  write_two_shells_obj("shells4.obj", 10, 12);
  char xml[600];
  one_mesh_xml(xml, sizeof xml, "shells4.obj", "maxhullvert='4' inertia='convex'", "");
  imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
  ck_assert_int_eq(m->mesh_hullnum[0], 4);
  const double* p[4];
  for (int k = 0; k < 4; k++)
    p[k] = m->mesh_vert + 3 * (m->mesh_vertadr[0] + m->mesh_hull[m->mesh_hulladr[0] + k]);
  double e1[3], e2[3], e3[3], x[3];
  for (int i = 0; i < 3; i++)
    e1[i] = p[1][i] - p[0][i], e2[i] = p[2][i] - p[0][i], e3[i] = p[3][i] - p[0][i];
  imp_cross(x, e2, e3);
  double V = fabs(imp_dot(e1, x, 3)) / 6;
  ck_assert(V > 0.1); /* a real tetrahedron in the unit sphere (at most 0.51) */
  imp_assert_near(m->body_mass[1], 1000 * V, 1e-9 * 1000 * V);
  imp_free_model(m);
}
END_TEST

/* The lowest world height of a mesh geom's vertices: of its hull's when
   hull_only, else of all of them. */
static double lowest_vertex(const imp_model* m, const imp_data* d, int g, int hull_only) {
  int me = m->geom_dataid[g], n = hull_only ? m->mesh_hullnum[me] : m->mesh_vertnum[me];
  const double* R = d->geom_xmat + 9 * g;
  double low = INFINITY;
  for (int k = 0; k < n; k++) {
    int v = hull_only ? m->mesh_hull[m->mesh_hulladr[me] + k] : k;
    const double* p = m->mesh_vert + 3 * (m->mesh_vertadr[me] + v);
    double z = d->geom_xpos[3 * g + 2] + R[6] * p[0] + R[7] * p[1] + R[8] * p[2];
    low = fmin(low, z);
  }
  return low;
}

/* A finely tessellated ball (radius 0.1) with maxhullvert 6 dropped on a
   plane comes to rest on its capped hull: a face of it on the plane (three
   hull vertices at the lowest height, that height the contact's small
   penetration), while vertices the cap left out sink well below, as far as
   the ball's surface lies outside the hull. The same ball without the cap
   rolls on its full hull: no vertex below the plane by more than the
   penetration. */
START_TEST(maxhullvert_ball_rests_on_the_capped_hull) {
  const double r[3] = {1, 1, 1};
  write_ellipsoid_stl("ball.stl", r, 16, 24, 1);
  for (int capped = 0; capped < 2; capped++) {
    char xml[800];
    snprintf(xml, sizeof xml,
             "<mujoco><option timestep='0.002'/><asset><mesh name='m' file='ball.stl' "
             "scale='0.1 0.1 0.1' %s/></asset><worldbody><geom type='plane' size='1 1 0.1'/>"
             "<body pos='0 0 0.15' euler='10 20 30'><freejoint/><geom type='mesh' mesh='m'/>"
             "</body></worldbody></mujoco>",
             capped ? "maxhullvert='6'" : "");
    imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
    if (capped) ck_assert_int_eq(m->mesh_hullnum[0], 6);
    else ck_assert_int_gt(m->mesh_hullnum[0], 300);
    imp_data* d = imp_make_data(m);
    for (int s = 0; s < 2500; s++) imp_step(m, d);
    imp_forward(m, d);
    if (capped) /* the full ball may still roll */
      ck_assert_msg(imp_max_abs(d->qvel, 6) < 1e-3, "not at rest: |qvel| %g",
                    imp_max_abs(d->qvel, 6));
    double low_hull = lowest_vertex(m, d, 1, 1), low_all = lowest_vertex(m, d, 1, 0);
    ck_assert_msg(fabs(low_hull) < 1e-4, "hull's lowest point at %g", low_hull);
    if (capped) {
      int on_plane = 0;
      for (int k = 0; k < 6; k++) {
        const double* p = m->mesh_vert + 3 * (m->mesh_vertadr[0] + m->mesh_hull[k]);
        const double* R = d->geom_xmat + 9;
        double z = d->geom_xpos[5] + R[6] * p[0] + R[7] * p[1] + R[8] * p[2];
        on_plane += z < low_hull + 1e-5;
      }
      ck_assert_int_ge(on_plane, 3);
      ck_assert_msg(low_all < -0.02, "left-out vertices only reach %g", low_all);
    } else {
      ck_assert_msg(low_all > -1e-4, "a vertex at %g below the plane", low_all);
    }
    imp_free_data(d);
    imp_free_model(m);
  }
}
END_TEST

static Suite* mesh_suite(void) {
  Suite* s = suite_create("mesh");
  TCase* t = tcase_create("good");
  tcase_add_test(t, maxhullvert_caps_the_hull);
  tcase_add_test(t, maxhullvert_convex_inertia_is_the_capped_hull);
  tcase_add_test(t, maxhullvert_ball_rests_on_the_capped_hull);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mesh_suite()); }
