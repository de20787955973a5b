/* Helpers shared by the unit tests of the convex narrow phase
 * (engine/collision/collide_convex.c), test_collide_convex_*.c: the test
 * model and its fixture, placing geoms, a mesh grafted onto the loaded
 * model.
 *
 * Support points are checked against closed forms (sphere, capsule, cylinder
 * rim, box corner) and, for the ellipsoid, against the Lagrange conditions
 * of max d.p on the surface plus a brute-force search. Pairs through
 * imp_collide_convex (GJK distance, EPA penetration) are checked against
 * exact distances where the geometry gives one (equal axes ellipsoids =
 * spheres, stacked and side-by-side cylinders, a cylinder on a box, mesh
 * cubes corner to corner, an ellipsoid on a plane), against a sampled
 * ellipsoid-box distance, for the normal flip of the two orders,
 * invariance under a rigid motion, and against the analytic routines of
 * collide_primitive.c / collide_box.c on random poses.
 *
 * Geoms are placed by writing d->geom_xpos / geom_xmat directly: the
 * narrow phase reads nothing else.
 *
 * Tolerances: GJK's and EPA's bounds on the distance meet to 1e-12 of the
 * pair's size, and polyhedra are exact, so a distance is within ~1e-12 of
 * the truth: TOL_DIST = 1e-9 leaves room for rounding of the test's own
 * closed forms. On curved shapes a normal whose gap is within e of the
 * optimum is within sqrt(2 e / L) of the true normal (the gap falls off as
 * L theta^2 / 2, L ~ the size): ~1.4e-6 rad: TOL_ANGLE = 1e-5 rad. A
 * contact position is unique for curved contacts; on a flat patch (face on
 * face) it is some point of the patch, which one depends on the path EPA
 * took: TOL_POS = 5e-3 m, as loose as the invariance test must be there. */
#ifndef IMPETUS_COLLIDE_CONVEX_UTIL_H
#define IMPETUS_COLLIDE_CONVEX_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/collision.h"
#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

#define TOL_DIST 1e-9
#define TOL_ANGLE 1e-5
#define TOL_POS 5e-3

/* two geoms of every convex type, and a plane; sizes are set per test */
static const char* k_model =
    "<mujoco><worldbody>"
    "<geom name='plane' type='plane' size='1 1 0.1'/>"
    "<geom name='sphere1' type='sphere' size='0.3'/>"
    "<geom name='sphere2' type='sphere' size='0.2'/>"
    "<geom name='capsule1' type='capsule' size='0.2 0.4'/>"
    "<geom name='capsule2' type='capsule' size='0.15 0.3'/>"
    "<geom name='ellipsoid1' type='ellipsoid' size='0.3 0.2 0.1'/>"
    "<geom name='ellipsoid2' type='ellipsoid' size='0.1 0.25 0.4'/>"
    "<geom name='cylinder1' type='cylinder' size='0.2 0.3'/>"
    "<geom name='cylinder2' type='cylinder' size='0.1 0.25'/>"
    "<geom name='box1' type='box' size='0.3 0.2 0.1'/>"
    "<geom name='box2' type='box' size='0.1 0.25 0.15'/>"
    "</worldbody></mujoco>";

static imp_model* M;
static imp_data* D;

static inline void setup(void) {
  imp_test_rng = 0x9e3779b97f4a7c15ull;
  M = imp_test_load_string(k_model);
  D = imp_make_data(M);
  imp_forward(M, D);
}

static inline void teardown(void) {
  imp_free_data(D);
  imp_free_model(M);
}

static inline int geom(const char* name) { return imp_test_id(M, IMP_OBJ_GEOM, name); }

static inline void set_size(int g, double a, double b, double c) {
  M->geom_size[3 * g] = a;
  M->geom_size[3 * g + 1] = b;
  M->geom_size[3 * g + 2] = c;
}

/* place geom g at pos with orientation quat (w, x, y, z) */
static inline void set_pose(int g, const double pos[3], const double quat[4]) {
  imp_copy(D->geom_xpos + 3 * g, pos, 3);
  double q[4] = {quat[0], quat[1], quat[2], quat[3]};
  imp_quat_normalize(q);
  imp_quat2mat(D->geom_xmat + 9 * g, q);
}

static const double k_ident[4] = {1, 0, 0, 0};

static inline void rand_vec(double v[3], double lo, double hi) {
  for (int i = 0; i < 3; i++) v[i] = imp_test_urand(lo, hi);
}

/* angle between two unit vectors, robust near 0 */
static inline double angle_between(const double a[3], const double b[3]) {
  double c[3];
  imp_cross(c, a, b);
  return atan2(imp_norm3(c), imp_dot(a, b, 3));
}

/* world = pos + R local for geom g */
static inline void to_world(int g, const double local[3], double world[3]) {
  imp_mat3_vec(world, D->geom_xmat + 9 * g, local);
  imp_add_scl(world, D->geom_xpos + 3 * g, 1, 3);
}

/* ---- a mesh grafted onto the loaded model ---- */

/* Geom g of the test model turned into a mesh with the given vertices (all
   on the hull), in a copy of the model struct: the loader-independent way to
   test the mesh paths. */
#define FAKE_MAXG 32
#define FAKE_MAXV 16
static int fake_type[FAKE_MAXG], fake_dataid[FAKE_MAXG], fake_hull[FAKE_MAXV];
static int fake_zero, fake_num, fake_nograph = -1;
static double fake_vert[3 * FAKE_MAXV], fake_rbound[FAKE_MAXG];

static inline imp_model fake_mesh_model(int g, const double* vert, int nvert) {
  ck_assert_int_le(M->ngeom, FAKE_MAXG);
  imp_model mm = *M;
  for (int i = 0; i < M->ngeom; i++) {
    fake_type[i] = M->geom_type[i];
    fake_dataid[i] = -1;
    fake_rbound[i] = M->geom_rbound[i];
  }
  fake_type[g] = IMP_GEOM_MESH;
  fake_dataid[g] = 0;
  fake_rbound[g] = 0;
  for (int i = 0; i < nvert; i++) {
    imp_copy(fake_vert + 3 * i, vert + 3 * i, 3);
    fake_hull[i] = i;
    fake_rbound[g] = fmax(fake_rbound[g], imp_norm3(vert + 3 * i));
  }
  fake_zero = 0;
  fake_num = nvert;
  mm.geom_type = fake_type;
  mm.geom_dataid = fake_dataid;
  mm.geom_rbound = fake_rbound;
  mm.nmesh = 1;
  mm.mesh_vertadr = mm.mesh_hulladr = &fake_zero;
  mm.mesh_vertnum = mm.mesh_hullnum = &fake_num;
  mm.mesh_vert = fake_vert;
  mm.mesh_hull = fake_hull;
  mm.mesh_graphadr = &fake_nograph; /* scanned: no vertex graph */
  return mm;
}

/* the 8 corners of a box of half sizes h */
static inline void box_corners(double v[24], const double h[3]) {
  for (int i = 0; i < 8; i++) {
    v[3 * i] = (i & 1) ? h[0] : -h[0];
    v[3 * i + 1] = (i & 2) ? h[1] : -h[1];
    v[3 * i + 2] = (i & 4) ? h[2] : -h[2];
  }
}

/* one contact of g1, g2 through imp_collide_convex; returns the count */
static inline int convex(const imp_model* m, int g1, int g2, double margin, imp_contact* con) {
  memset(con, 0, sizeof *con);
  return imp_collide_convex(m, D, g1, g2, margin, con);
}

/* x -> t + R x applied to a pose (pos, quat) given in the motion's frame */
static inline void place(int g, const double t[3], const double qt[4], const double pos[3],
                  const double quat[4]) {
  double Rt[9], p[3], q[4];
  imp_quat2mat(Rt, qt);
  imp_mat3_vec(p, Rt, pos);
  imp_add_scl(p, t, 1, 3);
  imp_quat_mul(q, qt, quat);
  set_pose(g, p, q);
}

#endif
