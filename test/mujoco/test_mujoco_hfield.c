/* Height fields against MuJoCo 2.2.2 (built only when libmujoco-dev is
 * found): the data both load from the same files, and the contact
 * geometry of convex geoms on a terrain.
 *
 * Loading: a binary file (MuJoCo's custom format) and a PNG written here
 * give both simulators the same nrow, ncol, size and normalized data, value
 * for value (both normalize in float).
 *
 * Contacts: a terrain of hills (a binary file of a smooth function on a
 * 21 x 17 grid, the field's geom tilted) with a sphere, a capsule, a box, a
 * cylinder, an ellipsoid and a mesh (models/meshes/wedge.obj) placed at five
 * poses each, sunk 2 to 8 cm, both
 * sides computing contacts from the same qpos. Both treat the field as
 * MuJoCo's prisms (the same triangulation) and make one contact per prism;
 * MuJoCo 2.2.2 measures a prism by MPR (libccd), ours by GJK/EPA.
 * MPR's depth is the distance from the origin of the Minkowski difference
 * to the boundary face its centre-line ray crosses, within mpr_tolerance
 * (1e-6): a supporting plane of the difference, so never less than the
 * minimum translation distance less that tolerance, and more by any amount
 * when the ray misses the nearest face. Ours is that minimum (checked in
 * test_collide_hfield against closed forms). So at every pose:
 *  - both find contact;
 *  - our deepest penetration is at most MuJoCo's plus TOL_MPR (MuJoCo's is
 *    an upper bound of the true one);
 * and the agreement is printed per pose: where MPR's ray meets the nearest
 * face the two agree to 1e-7 or better (sphere poses 2-4, box poses 2-3
 * agree to 1e-16), elsewhere MuJoCo is deeper (up to 1.8 cm on a capsule).
 * Normals are printed, not compared: MuJoCo's come from MPR's portal and are
 * then replaced for spheres, capsules, ellipsoids and cylinders by a guess
 * from the contact point (mjc_fixNormal; a cylinder's turns horizontal).  */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image_write.h>

#include "mj_pair.h"
#include "test_util.h"

#define TOL_MPR 1e-6

#define NROW 17
#define NCOL 21

/* the hills: a smooth function of the grid point, not normalized (both
   simulators normalize it) */
static float hill(int r, int c) {
  double x = (double)c / (NCOL - 1), y = (double)r / (NROW - 1);
  return (float)(3.0 + 2.0 * sin(3.1 * x) * cos(2.3 * y) + 0.5 * x * y);
}

/* MuJoCo's binary format: int32 nrow, int32 ncol, float32 data (row-major);
   the hills on nrow x ncol points */
static void write_binary_grid(const char* path, int nrow, int ncol) {
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  int32_t dims[2] = {nrow, ncol};
  fwrite(dims, sizeof dims, 1, f);
  for (int r = 0; r < nrow; r++)
    for (int c = 0; c < ncol; c++) {
      float v = hill(r * (NROW - 1) / (nrow - 1), c * (NCOL - 1) / (ncol - 1));
      fwrite(&v, sizeof v, 1, f);
    }
  ck_assert_int_eq(fclose(f), 0);
}

static void write_binary(const char* path) { write_binary_grid(path, NROW, NCOL); }

static const char* k_geoms[] = {
    "<geom type='sphere' size='0.3'/>",
    "<geom type='capsule' size='0.2 0.4'/>",
    "<geom type='box' size='0.3 0.2 0.15'/>",
    "<geom type='cylinder' size='0.25 0.2'/>",
    "<geom type='ellipsoid' size='0.3 0.2 0.25'/>",
    "<geom type='mesh' mesh='wedge'/>",
};
static const char* k_names[] = {"sphere", "capsule", "box", "cylinder", "ellipsoid", "mesh"};
#define NGEOMCASE 6

/* poses: position over the terrain (z from the surface height below), and
   an orientation (axis-angle) */
typedef struct pose {
  double x, y, sink; /* sink: how far below touching height the centre goes */
  double axis[3], angle;
} pose;
static const pose k_poses[] = {
    {0.3, 0.2, 0.05, {1, 0, 0}, 0.0},   {-1.1, 0.7, 0.03, {0, 1, 0}, 0.4},
    {1.3, -0.9, 0.08, {1, 1, 0}, 0.9},  {-0.4, -1.2, 0.02, {0, 0, 1}, 1.2},
    {0.9, 1.1, 0.04, {1, -2, 1}, 2.0},
};
#define NPOSE 5

static void model_xml(char* buf, size_t n, const char* hfpath, const char* geom) {
  snprintf(buf, n,
           "<mujoco><asset><hfield name='terrain' file='%s' size='2 1.5 0.6 0.2'/>"
           "<mesh name='wedge' file='" IMP_MODELS_DIR "/meshes/wedge.obj' scale='0.4 0.4 0.4'/>"
           "</asset>"
           "<worldbody><geom name='terrain' type='hfield' hfield='terrain' pos='0.1 -0.2 0.05' "
           "euler='0.05 -0.03 0.2'/>"
           "<body name='b' pos='0 0 2'><freejoint/>%s</body></worldbody></mujoco>",
           hfpath, geom);
}

START_TEST(test_binary_and_png_load_the_same_data) {
  char bin[512], png[512], xml[2048], path[600];
  snprintf(bin, sizeof bin, "%s/hills.bin", IMP_TEST_TMPDIR);
  write_binary(bin);
  /* a grey PNG: 3 rows of 4 pixels, a ramp */
  unsigned char px[12];
  for (int i = 0; i < 12; i++) px[i] = (unsigned char)(20 * i + 5);
  snprintf(png, sizeof png, "%s/ramp.png", IMP_TEST_TMPDIR);
  ck_assert(stbi_write_png(png, 4, 3, 1, px, 4));
  snprintf(xml, sizeof xml,
           "<mujoco><asset><hfield name='a' file='%s' size='1 2 0.5 0.1'/>"
           "<hfield name='p' file='%s' size='3 1 0.2 0.3'/></asset><worldbody>"
           "<geom type='hfield' hfield='a'/><geom type='hfield' hfield='p'/>"
           "</worldbody></mujoco>",
           bin, png);
  mjp_write("hfield_load", xml, path, sizeof path);
  pair p;
  mjp_load(&p, "hfield_load", path, path);
  ck_assert_int_eq(p.m->nhfield, p.mm->nhfield);
  ck_assert_int_eq(p.m->nhfielddata, p.mm->nhfielddata);
  for (int h = 0; h < p.m->nhfield; h++) {
    ck_assert_int_eq(p.m->hfield_nrow[h], p.mm->hfield_nrow[h]);
    ck_assert_int_eq(p.m->hfield_ncol[h], p.mm->hfield_ncol[h]);
    ck_assert_int_eq(p.m->hfield_adr[h], p.mm->hfield_adr[h]);
    for (int k = 0; k < 4; k++)
      ck_assert_double_eq(p.m->hfield_size[4 * h + k], p.mm->hfield_size[4 * h + k]);
  }
  for (int i = 0; i < p.m->nhfielddata; i++)
    ck_assert_msg(p.m->hfield_data[i] == p.mm->hfield_data[i], "value %d: ours %.9g, MuJoCo %.9g",
                  i, (double)p.m->hfield_data[i], (double)p.mm->hfield_data[i]);
  for (int g = 0; g < p.m->ngeom; g++) {
    ck_assert_int_eq(p.m->geom_dataid[g], p.mm->geom_dataid[g]);
    for (int k = 0; k < 3; k++)
      ck_assert_double_eq_tol(p.m->geom_size[3 * g + k], p.mm->geom_size[3 * g + k], 1e-15);
  }
  printf("hfield data: %d values equal to MuJoCo's (binary 17 x 21, PNG 3 x 4)\n",
         p.m->nhfielddata);
  mjp_free(&p);
}
END_TEST

/* the terrain's surface height in world z under world (x, y), from
   MuJoCo's model (its data and geom frame), by bisection along the
   terrain's local z: used only to place the geoms near the surface */
static double surface_z(const mjModel* mm, const mjData* md, int hg, double x, double y) {
  const double* R = md->geom_xmat + 9 * hg;
  const double* p = md->geom_xpos + 3 * hg;
  int h = mm->geom_dataid[hg];
  const double* s = mm->hfield_size + 4 * h;
  int nr = mm->hfield_nrow[h], nc = mm->hfield_ncol[h];
  const float* data = mm->hfield_data + mm->hfield_adr[h];
  /* local coordinates of the vertical line's points: iterate z */
  double z = p[2];
  for (int it = 0; it < 50; it++) {
    double w[3] = {x - p[0], y - p[1], z - p[2]}, l[3];
    for (int i = 0; i < 3; i++) l[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
    /* bilinear height of the grid at (l0, l1) (close enough for placing) */
    double u = (l[0] + s[0]) / (2 * s[0]) * (nc - 1), v = (l[1] + s[1]) / (2 * s[1]) * (nr - 1);
    int c = (int)fmin(fmax(floor(u), 0), nc - 2), r = (int)fmin(fmax(floor(v), 0), nr - 2);
    double fu = u - c, fv = v - r;
    double hgt = (1 - fu) * (1 - fv) * data[r * nc + c] + fu * (1 - fv) * data[r * nc + c + 1] +
                 (1 - fu) * fv * data[(r + 1) * nc + c] + fu * fv * data[(r + 1) * nc + c + 1];
    double lz = hgt * s[2];
    /* move z so the local z reaches lz: along the local z axis's world z */
    z += (lz - l[2]) / R[8];
  }
  return z;
}

/* deepest contact of the terrain pair: index, or -1 */
static int deepest_mj(const mjData* md) {
  int best = -1;
  for (int i = 0; i < md->ncon; i++)
    if (best < 0 || md->contact[i].dist < md->contact[best].dist) best = i;
  return best;
}
static int deepest_imp(const imp_data* d) {
  int best = -1;
  for (int i = 0; i < d->ncon; i++)
    if (best < 0 || d->contact[i].dist < d->contact[best].dist) best = i;
  return best;
}

START_TEST(test_deepest_contact_matches_mujoco) {
  int gi = _i;
  char bin[512], xml[2048], path[600], stem[64];
  snprintf(bin, sizeof bin, "%s/hills_%d.bin", IMP_TEST_TMPDIR, gi);
  write_binary(bin);
  model_xml(xml, sizeof xml, bin, k_geoms[gi]);
  snprintf(stem, sizeof stem, "hfield_%s", k_names[gi]);
  mjp_write(stem, xml, path, sizeof path);
  pair p;
  mjp_load(&p, stem, path, path);
  /* the model's extent counts the field as a ball of a tenth of its
     largest size about its origin, as MuJoCo 2.2.2 does (not with the
     mesh, whose bounding radius differs on purpose: compile.c) */
  if (p.mm->geom_type[1] != mjGEOM_MESH) {
    ck_assert_double_eq_tol(p.m->extent, p.mm->stat.extent, 1e-12);
    for (int i = 0; i < 3; i++)
      ck_assert_double_eq_tol(p.m->center[i], p.mm->stat.center[i], 1e-12);
  }
  double worst_depth = 0, worst_normal = 0, worst_deeper = -INFINITY;
  int ncase = 0;
  for (int k = 0; k < NPOSE; k++) {
    const pose* ps = &k_poses[k];
    double q[7];
    q[0] = ps->x;
    q[1] = ps->y;
    double ax[3] = {ps->axis[0], ps->axis[1], ps->axis[2]};
    double an = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    q[3] = cos(ps->angle / 2);
    for (int i = 0; i < 3; i++) q[4 + i] = sin(ps->angle / 2) * ax[i] / an;
    /* the centre at the surface, raised by the geom's extent below it: its
       support along -z found by MuJoCo's own kinematics at a trial height */
    q[2] = 10;
    memcpy(p.md->qpos, q, sizeof q);
    mj_kinematics(p.mm, p.md);
    double zsurf = surface_z(p.mm, p.md, 0, ps->x, ps->y);
    /* lowest point of the geom relative to its centre: from MuJoCo's aabb
       is not exact for rotated shapes, so probe by the known sizes */
    double low = 10 - p.md->geom_xpos[3 * 1 + 2];
    const double* R = p.md->geom_xmat + 9;
    const double* sz = p.mm->geom_size + 3;
    switch (p.mm->geom_type[1]) {
      case mjGEOM_SPHERE: low += sz[0]; break;
      case mjGEOM_CAPSULE: low += sz[0] + sz[1] * fabs(R[8]); break;
      case mjGEOM_BOX: low += sz[0] * fabs(R[6]) + sz[1] * fabs(R[7]) + sz[2] * fabs(R[8]); break;
      case mjGEOM_CYLINDER:
        low += sz[0] * sqrt(fmax(0, 1 - R[8] * R[8])) + sz[1] * fabs(R[8]);
        break;
      case mjGEOM_MESH: { /* the lowest vertex */
        int me = p.mm->geom_dataid[1];
        const float* v = p.mm->mesh_vert + 3 * p.mm->mesh_vertadr[me];
        double lowest = INFINITY;
        for (int i = 0; i < p.mm->mesh_vertnum[me]; i++)
          lowest = fmin(lowest, R[6] * v[3 * i] + R[7] * v[3 * i + 1] + R[8] * v[3 * i + 2]);
        low -= lowest;
        break;
      }
      default: { /* ellipsoid: |S R^T e_z| */
        double v0 = sz[0] * R[6], v1 = sz[1] * R[7], v2 = sz[2] * R[8];
        low += sqrt(v0 * v0 + v1 * v1 + v2 * v2);
      }
    }
    q[2] = zsurf + low - ps->sink;
    memcpy(p.md->qpos, q, sizeof q);
    mj_forward(p.mm, p.md);
    memcpy(p.d->qpos, q, sizeof q);
    imp_forward(p.m, p.d);
    int a = deepest_mj(p.md), b = deepest_imp(p.d);
    ck_assert_msg(a >= 0 && b >= 0, "%s pose %d: MuJoCo %d contacts, ours %d", k_names[gi], k,
                  p.md->ncon, p.d->ncon);
    ck_assert_int_eq(p.d->contact[b].geom1, 0);
    double dd = fabs(p.md->contact[a].dist - p.d->contact[b].dist);
    double dn = 0;
    for (int i = 0; i < 3; i++)
      dn = fmax(dn, fabs(p.md->contact[a].frame[i] - p.d->contact[b].frame[i]));
    printf("%s pose %d: MuJoCo %d contacts, deepest %.9f n (%.6f %.6f %.6f); ours %d, %.9f "
           "n (%.6f %.6f %.6f); |d depth| %.2e |d n| %.2e\n",
           k_names[gi], k, p.md->ncon, p.md->contact[a].dist, p.md->contact[a].frame[0],
           p.md->contact[a].frame[1], p.md->contact[a].frame[2], p.d->ncon,
           p.d->contact[b].dist, p.d->contact[b].frame[0], p.d->contact[b].frame[1],
           p.d->contact[b].frame[2], dd, dn);
    worst_depth = fmax(worst_depth, dd);
    /* how much deeper ours is than MuJoCo's upper bound */
    worst_deeper = fmax(worst_deeper, p.md->contact[a].dist - p.d->contact[b].dist);
    worst_normal = fmax(worst_normal, dn);
    ncase++;
  }
  printf("%s on hills: %d poses, max |d depth| %.2e, max |d normal| %.2e, ours deeper than "
         "MuJoCo's by at most %.2e\n",
         k_names[gi], ncase, worst_depth, worst_normal, worst_deeper);
  ck_assert_msg(worst_deeper <= TOL_MPR, "ours deeper than MuJoCo's MPR bound by %.3e",
                worst_deeper);
  mjp_free(&p);
}
END_TEST

START_TEST(test_rays_match_mujoco) {
  /* rays from above the tilted hills, in assorted directions, against
     MuJoCo's mj_ray (its base box, surface triangles and side walls). On a
     square grid: MuJoCo 2.2.2 reads a side wall's heights with the row
     stride nrow instead of ncol (engine_ray.c, mj_rayHfield; later
     versions use ncol), so on a 17 x 21 grid it reports a wall hit 0.43 m
     up where the surface is 0.21 m high */
  char bin[512], xml[2048], path[600];
  snprintf(bin, sizeof bin, "%s/hills_ray.bin", IMP_TEST_TMPDIR);
  write_binary_grid(bin, 21, 21);
  model_xml(xml, sizeof xml, bin, "<geom type='sphere' size='0.1'/>");
  mjp_write("hfield_ray", xml, path, sizeof path);
  pair p;
  mjp_load(&p, "hfield_ray", path, path);
  p.md->qpos[2] = p.d->qpos[2] = 50; /* the sphere far above */
  mj_forward(p.mm, p.md);
  imp_forward(p.m, p.d);
  double worst = 0;
  int nhit = 0;
  for (int k = 0; k < 200; k++) {
    double pnt[3] = {-2 + 4 * ((k * 37) % 200) / 200.0, -1.5 + 3 * ((k * 71) % 200) / 200.0, 3};
    double vec[3] = {0.3 * sin(k), 0.3 * cos(1.7 * k), -1};
    int mg = -1, ig = -1;
    double tm = mj_ray(p.mm, p.md, pnt, vec, NULL, 1, -1, &mg);
    double ti = imp_ray(p.m, p.d, pnt, vec, -1, &ig);
    ck_assert_msg(mg == ig, "ray %d: MuJoCo geom %d at %.9f, ours %d at %.9f", k, mg, tm, ig, ti);
    worst = fmax(worst, fabs(tm - ti));
    nhit += ig == 0;
  }
  printf("rays on hills: 200 rays (%d hit the field), max |t - MuJoCo's| %.2e\n", nhit, worst);
  ck_assert_int_ge(nhit, 100);
  ck_assert_msg(worst < 1e-12, "ray distance differs by %.3e", worst);
  mjp_free(&p);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_hfield");
  TCase* tc = tcase_create("hfield");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_binary_and_png_load_the_same_data);
  tcase_add_loop_test(tc, test_deepest_contact_matches_mujoco, 0, NGEOMCASE);
  tcase_add_test(tc, test_rays_match_mujoco);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
