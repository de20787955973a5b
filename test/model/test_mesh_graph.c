/* Tests of the hull's vertex graph (model/mesh_graph.c) and of the support
 * search that climbs it (engine/collision/support.c): the graph is
 * symmetric with at least 3 neighbours a vertex, and the climb returns the
 * very vertex a scan of every hull vertex returns (the greatest u . v, the
 * first in hull order among equals) from any start, on a tessellated
 * ellipsoid (many nearly coplanar neighbours) and on a prism whose caps are
 * 40-gons (exact ties along the axis, beyond the climb's cap of vertices
 * along it when the polygon is larger). Shared helpers: mesh_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "collision/collision.h"
#include "mesh_util.h"

/* the scan the climb must reproduce */
static int scan(const imp_model* m, int id, const double u[3]) {
  const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  const int* hull = m->mesh_hull + m->mesh_hulladr[id];
  int best = 0;
  double dbest = imp_dot(vert + 3 * hull[0], u, 3);
  for (int i = 1; i < m->mesh_hullnum[id]; i++) {
    double dv = imp_dot(vert + 3 * hull[i], u, 3);
    if (dv > dbest) dbest = dv, best = i;
  }
  return best;
}

/* an OBJ prism: two regular n-gons of radius r at z = +-h, quads between */
static void write_prism_obj(const char* name, int n, double r, double h) {
  size_t cap = 100000, len = 0;
  char* buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  for (int s = 0; s < 2; s++)
    for (int j = 0; j < n; j++)
      len += (size_t)snprintf(buf + len, cap - len, "v %.17g %.17g %.17g\n",
                              r * cos(2 * IMP_PI * j / n), r * sin(2 * IMP_PI * j / n),
                              s ? h : -h);
  for (int j = 0; j < n; j++) /* sides, then fans on the caps */
    len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d %d\n", j + 1, (j + 1) % n + 1,
                            n + (j + 1) % n + 1, n + j + 1);
  for (int j = 1; j + 1 < n; j++) {
    len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d\n", 1, j + 2, j + 1);
    len += (size_t)snprintf(buf + len, cap - len, "f %d %d %d\n", n + 1, n + j + 1, n + j + 2);
  }
  ck_assert_uint_lt(len, cap - 1);
  write_file(name, buf, len);
  free(buf);
}

/* symmetric, >= 3 neighbours, no self loop; then the climb against the scan
   on random directions, the axes and the directions of hull vertices, from
   random starts */
static void check_mesh(const imp_model* m, int id, int ndir) {
  int n = m->mesh_hullnum[id], adr = m->mesh_graphadr[id];
  ck_assert_int_ge(adr, 0);
  const int* g = m->mesh_graph + adr;
  for (int p = 0; p < n; p++) {
    ck_assert_int_ge(g[p + 1] - g[p], 3);
    for (int k = g[p]; k < g[p + 1]; k++) {
      int q = g[k], back = 0;
      ck_assert(q >= 0 && q < n && q != p);
      for (int l = g[q]; l < g[q + 1]; l++) back |= g[l] == p;
      ck_assert_msg(back, "edge %d-%d one way", p, q);
    }
  }
  const double* vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  double rb = 0;
  for (int p = 0; p < n; p++) rb = fmax(rb, imp_norm3(vert + 3 * m->mesh_hull[m->mesh_hulladr[id] + p]));
  for (int t = 0; t < ndir; t++) {
    double u[3] = {0, 0, 0};
    if (t < 6) {
      u[t / 2] = t % 2 ? -1 : 1;
    } else if (t < 6 + n) {
      imp_copy(u, vert + 3 * m->mesh_hull[m->mesh_hulladr[id] + t - 6], 3);
    } else {
      for (int i = 0; i < 3; i++) u[i] = imp_test_urand(-1, 1);
    }
    if (imp_normalize3(u) == 0) continue;
    int hint = (int)imp_test_urand(0, n), want = scan(m, id, u);
    ck_assert_int_eq(imp_mesh_support(m, id, u, rb, &hint), want);
    ck_assert_int_eq(hint, want);
    ck_assert_int_eq(imp_mesh_support(m, id, u, rb, NULL), want);
  }
}

START_TEST(graph_climb_ellipsoid) {
  imp_test_rng = 0x13198a2e03707344ull;
  write_ellipsoid_stl("graph_ellipsoid.stl", (double[3]){0.3, 0.2, 0.1}, 24, 32, 1);
  char xml[600];
  one_mesh_xml(xml, sizeof xml, "graph_ellipsoid.stl", "", "");
  imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
  ck_assert_int_gt(m->mesh_hullnum[0], 600);
  check_mesh(m, 0, 6 + m->mesh_hullnum[0] + 5000);
  imp_free_model(m);
}
END_TEST

START_TEST(graph_climb_prism_ties) {
  imp_test_rng = 0xa4093822299f31d0ull;
  const int sides[] = {40, 100};
  for (int k = 0; k < 2; k++) {
    write_prism_obj("graph_prism.obj", sides[k], 0.2, 0.05);
    char xml[600];
    one_mesh_xml(xml, sizeof xml, "graph_prism.obj", "", "");
    imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
    ck_assert_int_eq(m->mesh_hullnum[0], 2 * sides[k]);
    check_mesh(m, 0, 6 + m->mesh_hullnum[0] + 2000);
    imp_free_model(m);
  }
}
END_TEST

/* a flat mesh has a polygon for a hull and no graph: scanned */
START_TEST(graph_none_when_flat) {
  write_text("graph_flat.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n");
  char xml[600];
  snprintf(xml, sizeof xml,
           "<mujoco><asset><mesh file='graph_flat.obj'/></asset><worldbody>"
           "<geom type='mesh' mesh='graph_flat'/></worldbody></mujoco>");
  imp_model* m = load_in(IMP_TEST_TMPDIR, xml);
  ck_assert_int_eq(m->mesh_graphadr[0], -1);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mesh_graph");
  TCase* tc = tcase_create("graph");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, graph_climb_ellipsoid);
  tcase_add_test(tc, graph_climb_prism_ties);
  tcase_add_test(tc, graph_none_when_flat);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
