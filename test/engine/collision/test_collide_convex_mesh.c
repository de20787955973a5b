/* Unit tests of the convex narrow phase on meshes: grafted onto the test
 * model (cubes corner to corner, a mesh box against a box, contacts with a
 * plane) and loaded from test/data/convex_*.obj. Shared helpers and the
 * tolerances: collide_convex_util.h. */
#include "collide_convex_util.h"

/* ---- meshes (grafted) ---- */

/* Two unit-cube meshes (half size 0.5, same orientation), the second
   displaced by (1 + a, 1 + b, 1 + c): with a, b, c > 0 the nearest points
   are the corners (0.5, 0.5, 0.5) and (0.5 + a, 0.5 + b, 0.5 + c), so
   dist = |(a, b, c)|, the normal along (a, b, c), pos their midpoint; with
   -1 < c < 0 the z edges overlap and dist = |(a, b)|, the normal along
   (a, b, 0), pos on the overlap of the edges. The pair is moved by a random
   rigid motion. GJK is exact on polyhedra: rounding tolerances. */
START_TEST(mesh_mesh_cube_diagonal) {
  int g1 = geom("box1"), g2 = geom("box2");
  double h[3] = {0.5, 0.5, 0.5}, v[24];
  box_corners(v, h);
  imp_model mm = fake_mesh_model(g2, v, 8);
  fake_type[g1] = IMP_GEOM_MESH;
  fake_dataid[g1] = 0;
  fake_rbound[g1] = fake_rbound[g2];
  for (int trial = 0; trial < 60; trial++) {
    double a = imp_test_urand(0.001, 0.1), b = imp_test_urand(0.001, 0.1);
    int corner = trial % 2 == 0;
    double c = corner ? imp_test_urand(0.001, 0.1) : imp_test_urand(-0.9, -0.1);
    double qt[4], t[3], Rt[9];
    imp_test_rand_quat(qt);
    rand_vec(t, -2, 2);
    imp_quat2mat(Rt, qt);
    place(g1, t, qt, (double[3]){0, 0, 0}, k_ident);
    place(g2, t, qt, (double[3]){1 + a, 1 + b, 1 + c}, k_ident);
    imp_contact con;
    ck_assert_int_eq(convex(&mm, g1, g2, 0.2, &con), 1);
    double nl[3] = {a, b, corner ? c : 0}, n[3];
    double dist = imp_normalize3(nl);
    imp_mat3_vec(n, Rt, nl);
    imp_assert_near(con.dist, dist, 1e-12);
    ck_assert_msg(angle_between(con.frame, n) < 1e-12, "trial %d: normal off by %g rad", trial,
                  angle_between(con.frame, n));
    /* pos in the first cube's frame */
    double rel[3] = {con.pos[0] - t[0], con.pos[1] - t[1], con.pos[2] - t[2]}, loc[3];
    imp_mat3T_vec(loc, Rt, rel);
    imp_assert_near(loc[0], 0.5 + 0.5 * a, 1e-12);
    imp_assert_near(loc[1], 0.5 + 0.5 * b, 1e-12);
    if (corner) imp_assert_near(loc[2], 0.5 + 0.5 * c, 1e-12);
    else ck_assert(loc[2] >= fmax(-0.5, 0.5 + c) - 1e-12 && loc[2] <= 0.5 + 1e-12);
    /* beyond the margin: nothing */
    ck_assert_int_eq(convex(&mm, g1, g2, 0.999 * dist, &con), 0);
  }
}
END_TEST

/* A mesh box against a box: the box-box distance of the same shapes,
   face on face (exact). */
START_TEST(mesh_box_against_box) {
  int g = geom("box2"), b = geom("box1");
  double h[3] = {0.1, 0.1, 0.1}, v[24];
  box_corners(v, h);
  imp_model mm = fake_mesh_model(g, v, 8);
  const double gaps[] = {-0.03, 0.0, 0.004};
  for (int k = 0; k < 3; k++) {
    set_pose(b, (double[3]){0, 0, 0}, k_ident);
    set_pose(g, (double[3]){0.05, 0.02, 0.1 + 0.1 + gaps[k]}, (double[4]){1, 0, 0, 0.2});
    imp_contact con;
    ck_assert_int_eq(convex(&mm, b, g, 0.005, &con), 1);
    imp_assert_near(con.dist, gaps[k], TOL_DIST);
    ck_assert_msg(angle_between(con.frame, (double[3]){0, 0, 1}) < TOL_ANGLE, "mesh normal");
  }
}
END_TEST

/* A mesh cube resting on a face: its 4 bottom corners; a mesh tetrahedron
   on a vertex: one; on an edge: two. */
START_TEST(mesh_on_plane_manifold) {
  int p = geom("plane"), g = geom("box2");
  double h[3] = {0.1, 0.1, 0.1}, v[24];
  box_corners(v, h);
  imp_model mm = fake_mesh_model(g, v, 8);
  double qp[4];
  imp_test_rand_quat(qp);
  double o[3] = {0.2, -0.1, 0.3};
  set_pose(p, o, qp);
  const double* Rp = D->geom_xmat + 9 * p;
  double n[3] = {Rp[2], Rp[5], Rp[8]}, c[3];
  /* cube with its local axes = the plane's, 0.01 deep */
  imp_copy(c, o, 3);
  imp_add_scl(c, n, 0.1 - 0.01, 3);
  set_pose(g, c, qp);
  imp_contact con[IMP_MAXCONPAIR];
  int nc = imp_collide_plane_convex(&mm, D, p, g, 0.001, con);
  ck_assert_int_eq(nc, 4);
  int seen = 0;
  for (int k = 0; k < 4; k++) {
    imp_assert_near(con[k].dist, -0.01, 1e-12);
    imp_assert_vec_near(con[k].frame, n, 3, 1e-15);
    /* which bottom corner: its local (x, y) signs */
    double rel[3] = {con[k].pos[0] - c[0], con[k].pos[1] - c[1], con[k].pos[2] - c[2]}, loc[3];
    imp_mat3T_vec(loc, D->geom_xmat + 9 * g, rel);
    imp_assert_near(fabs(loc[0]), 0.1, 1e-12);
    imp_assert_near(fabs(loc[1]), 0.1, 1e-12);
    imp_assert_near(loc[2], -0.1 + 0.005, 1e-12); /* pos halfway to the plane */
    seen |= 1 << ((loc[0] > 0) + 2 * (loc[1] > 0));
  }
  ck_assert_int_eq(seen, 15);
  /* lifted beyond the margin: nothing */
  imp_add_scl(c, n, 0.0111, 3);
  set_pose(g, c, qp);
  ck_assert_int_eq(imp_collide_plane_convex(&mm, D, p, g, 0.001, con), 0);

  /* regular tetrahedron (alternate cube corners); turned by 180 deg about x
     its lowest vertices are (0.1, -0.1, -0.1) and (-0.1, 0.1, -0.1): an edge */
  const double tet[12] = {0.1, 0.1, 0.1, 0.1, -0.1, -0.1, -0.1, 0.1, -0.1, -0.1, -0.1, 0.1};
  mm = fake_mesh_model(g, tet, 4);
  set_pose(p, (double[3]){0, 0, 0}, k_ident);
  set_pose(g, (double[3]){0, 0, 0.1 - 0.002}, (double[4]){0, 1, 0, 0});
  nc = imp_collide_plane_convex(&mm, D, p, g, 0, con);
  ck_assert_int_eq(nc, 2);
  for (int k = 0; k < 2; k++) imp_assert_near(con[k].dist, -0.002, 1e-12);
  /* vertex (1, 1, 1) 0.1 pointing straight down: one contact */
  double qz[4], qv[4], qx[4] = {0, 1, 0, 0};
  imp_quat_z2vec(qz, (double[3]){1, 1, 1});
  imp_quat_conj(qz, qz); /* takes (1, 1, 1)/sqrt(3) to +z */
  imp_quat_mul(qv, qx, qz); /* then to -z */
  set_pose(g, (double[3]){0.3, 0.1, 0.1 * sqrt(3.0) - 0.002}, qv);
  nc = imp_collide_plane_convex(&mm, D, p, g, 0.001, con);
  ck_assert_int_eq(nc, 1);
  imp_assert_near(con[0].dist, -0.002, 1e-12);
  imp_assert_vec_near(con[0].pos, ((double[3]){0.3, 0.1, -0.001}), 3, 1e-12);
}
END_TEST

/* ---- meshes through the loader (test/data/convex_*.obj) ---- */

#define DATA_DIR IMP_MODELS_DIR "/../test/data"

static const char* k_mesh_model =
    "<mujoco><asset><mesh file='convex_box.obj'/><mesh file='convex_tetra.obj'/></asset>"
    "<worldbody><geom name='plane' type='plane' size='1 1 0.1'/>"
    "<geom name='mbox' type='mesh' mesh='convex_box'/>"
    "<geom name='mbox2' type='mesh' mesh='convex_box'/>"
    "<geom name='mtet' type='mesh' mesh='convex_tetra'/>"
    "<geom name='sphere' type='sphere' size='0.05'/>"
    "<geom name='box' type='box' size='0.1 0.2 0.3'/></worldbody></mujoco>";

static void mesh_setup(void) {
  imp_test_rng = 0x243f6a8885a308d3ull;
  char err[IMP_TEST_ERRSZ] = "";
  M = imp_load_xml_string(k_mesh_model, DATA_DIR, "t.xml", err, sizeof err);
  ck_assert_msg(M != NULL, "mesh model did not load: %s", err);
  D = imp_make_data(M);
  imp_forward(M, D);
  /* the tests place geoms in the mesh frame; the box file is centred and
     principal already, so its mesh frame is the file's */
  int id = M->geom_dataid[geom("mbox")];
  double ext[3] = {0, 0, 0};
  for (int i = 0; i < M->mesh_hullnum[id]; i++) {
    const double* v = M->mesh_vert + 3 * (M->mesh_vertadr[id] + M->mesh_hull[M->mesh_hulladr[id] + i]);
    for (int k = 0; k < 3; k++) ext[k] = fmax(ext[k], fabs(v[k]));
  }
  ck_assert_int_eq(M->mesh_hullnum[id], 8);
  imp_assert_vec_near(ext, ((double[3]){0.1, 0.2, 0.3}), 3, 1e-12);
}

/* A sphere near a loaded mesh box, outside it within the margin, over the
   middle half of a face: dist = distance to the face - r, normal the face's. */
START_TEST(mesh_box_sphere_closed_form) {
  int b = geom("mbox"), s = geom("sphere"), ab = geom("box");
  const double h[3] = {0.1, 0.2, 0.3};
  double worst = 0, worst_a = 0;
  for (int trial = 0; trial < 100; trial++) {
    double q[4], pb[3], dir[3], sup1[3], sup2[3];
    imp_test_rand_quat(q);
    rand_vec(pb, -1, 1);
    set_pose(b, pb, q);
    set_pose(ab, pb, q);
    /* the mesh's support is the box's */
    rand_vec(dir, -1, 1);
    imp_geom_support(M, D, b, dir, sup1);
    imp_geom_support(M, D, ab, dir, sup2);
    imp_assert_vec_near(sup1, sup2, 3, 1e-14);
    /* face k, side sg, a point over its middle half, 0.05 + gap out */
    int k = trial % 3;
    double sg = trial % 2 ? 1 : -1, local[3], off[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) local[i] = imp_test_urand(-0.5, 0.5) * h[i];
    double gap = imp_test_urand(0, 0.02);
    local[k] = sg * (h[k] + 0.05 + gap);
    off[k] = sg;
    double c[3], n_want[3];
    to_world(b, local, c);
    imp_mat3_vec(n_want, D->geom_xmat + 9 * b, off);
    set_pose(s, c, k_ident);
    imp_contact con[IMP_MAXCONPAIR];
    ck_assert_int_eq(imp_collide_geoms(M, D, b, s, 0.02, con), 1);
    worst = fmax(worst, fabs(con[0].dist - gap));
    worst_a = fmax(worst_a, angle_between(con[0].frame, n_want));
  }
  printf("mesh box-sphere over faces: worst |dist err| %.3g, normal %.3g rad\n", worst, worst_a);
  ck_assert_msg(worst <= TOL_DIST, "dist error %g", worst);
  ck_assert_msg(worst_a <= TOL_ANGLE, "normal error %g", worst_a);
}
END_TEST

/* Two loaded mesh boxes stacked, face on face, both orders. */
START_TEST(mesh_mesh_stacked) {
  int a = geom("mbox"), b = geom("mbox2");
  const double gaps[] = {-0.02, 0.0, 0.003};
  for (int k = 0; k < 3; k++) {
    set_pose(a, (double[3]){0, 0, 0}, k_ident);
    set_pose(b, (double[3]){0.03, -0.05, 0.6 + gaps[k]}, (double[4]){1, 0, 0, 0.1});
    imp_contact con[IMP_MAXCONPAIR], rev[IMP_MAXCONPAIR];
    ck_assert_int_eq(imp_collide_geoms(M, D, a, b, 0.005, con), 1);
    ck_assert_int_eq(imp_collide_geoms(M, D, b, a, 0.005, rev), 1);
    imp_assert_near(con[0].dist, gaps[k], TOL_DIST);
    imp_assert_near(rev[0].dist, gaps[k], TOL_DIST);
    ck_assert(angle_between(con[0].frame, (double[3]){0, 0, 1}) < TOL_ANGLE);
    ck_assert(angle_between(rev[0].frame, (double[3]){0, 0, -1}) < TOL_ANGLE);
    imp_assert_near(con[0].pos[2], 0.3 + 0.5 * gaps[k], TOL_DIST);
  }
}
END_TEST

/* A loaded mesh box on a plane: its 4 bottom corners; a tetrahedron with a
   face down: its 3 corners. */
START_TEST(mesh_on_plane_loaded) {
  int p = geom("plane"), b = geom("mbox"), t = geom("mtet");
  set_pose(p, (double[3]){0, 0, 0}, k_ident);
  set_pose(b, (double[3]){0.5, 0, 0.3 - 0.004}, k_ident);
  imp_contact con[IMP_MAXCONPAIR];
  ck_assert_int_eq(imp_collide_geoms(M, D, p, b, 0.001, con), 4);
  int seen = 0;
  for (int k = 0; k < 4; k++) {
    imp_assert_near(con[k].dist, -0.004, 1e-12);
    imp_assert_near(con[k].pos[2], -0.002, 1e-12);
    imp_assert_near(fabs(con[k].pos[0] - 0.5), 0.1, 1e-12);
    imp_assert_near(fabs(con[k].pos[1]), 0.2, 1e-12);
    seen |= 1 << ((con[k].pos[0] > 0.5) + 2 * (con[k].pos[1] > 0));
  }
  ck_assert_int_eq(seen, 15);
  /* the face opposite vertex (1, 1, 1) has outward normal -(1, 1, 1)/sqrt(3)
     at distance 0.1/sqrt(3) from the centre: turn (1, 1, 1) to +z */
  double q[4];
  imp_quat_z2vec(q, (double[3]){1, 1, 1});
  imp_quat_conj(q, q);
  double hface = 0.1 / sqrt(3.0);
  set_pose(t, (double[3]){0, 0.5, hface - 0.001}, q);
  ck_assert_int_eq(imp_collide_geoms(M, D, p, t, 0.0005, con), 3);
  for (int k = 0; k < 3; k++) imp_assert_near(con[k].dist, -0.001, 1e-12);
}
END_TEST

Suite* collide_convex_suite(void) {
  Suite* s = suite_create("collide_convex");
  TCase* tc = tcase_create("pairs");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, mesh_mesh_cube_diagonal);
  tcase_add_test(tc, mesh_box_against_box);
  tcase_add_test(tc, mesh_on_plane_manifold);
  suite_add_tcase(s, tc);

  tc = tcase_create("meshes");
  tcase_add_checked_fixture(tc, mesh_setup, teardown);
  tcase_add_test(tc, mesh_box_sphere_closed_form);
  tcase_add_test(tc, mesh_mesh_stacked);
  tcase_add_test(tc, mesh_on_plane_loaded);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(collide_convex_suite()); }
