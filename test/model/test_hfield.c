/* Height fields (model/hfield.c, engine/collision/collide_hfield.c): loading from
 * inline elevation, PNG and binary files written here at run time, the
 * errors of bad input, contact geometry against closed forms, and physics
 * by its laws (rest heights, a frictionless slide down a ramp, a box at
 * rest). MuJoCo 2.2.2's data and contacts are compared in
 * test/mujoco/test_mujoco_hfield.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image_write.h>

#include "collision/collision.h"
#include "engine.h"
#include "core/mathx.h"
#include "test_util.h"

static char g_err[1000];

static imp_model* load(const char* xml) {
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "did not load: %s", g_err);
  return m;
}


static void tmp_path(char* out, size_t n, const char* name) {
  snprintf(out, n, "%s/%s", IMP_TEST_TMPDIR, name);
}

/* MuJoCo's binary format with the header's dimensions and nval floats */
static void write_binary(const char* path, int32_t nrow, int32_t ncol, const float* v, int nval) {
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  int32_t dims[2] = {nrow, ncol};
  fwrite(dims, sizeof dims, 1, f);
  if (nval) fwrite(v, sizeof(float), (size_t)nval, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* ---- loading ---- */

START_TEST(inline_elevation_is_flipped_and_normalized) {
  /* the first row written is the top of the picture, +y: stored last */
  imp_model* m = load("<mujoco><asset>"
                      "<hfield name='h' nrow='2' ncol='3' size='1 2 0.5 0.1' "
                      "elevation='0 1 2 3 4 5'/></asset><worldbody>"
                      "<geom name='g' type='hfield' hfield='h'/></worldbody></mujoco>");
  imp_test_no_warnings(m);
  ck_assert_int_eq(m->nhfield, 1);
  ck_assert_int_eq(m->nhfielddata, 6);
  ck_assert_int_eq(m->hfield_nrow[0], 2);
  ck_assert_int_eq(m->hfield_ncol[0], 3);
  ck_assert_int_eq(m->hfield_adr[0], 0);
  const float expect[6] = {0.6f, 0.8f, 1.0f, 0.0f, 0.2f, 0.4f};
  for (int i = 0; i < 6; i++) ck_assert_float_eq_tol(m->hfield_data[i], expect[i], 1e-7f);
  const double size[4] = {1, 2, 0.5, 0.1};
  for (int k = 0; k < 4; k++) ck_assert_double_eq(m->hfield_size[k], size[k]);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_HFIELD, "h"), 0);
  ck_assert_int_eq(m->geom_type[0], IMP_GEOM_HFIELD);
  ck_assert_int_eq(m->geom_dataid[0], 0);
  /* MuJoCo's geom size: radius_x, radius_y, mean of elevation and base */
  ck_assert_double_eq(m->geom_size[0], 1);
  ck_assert_double_eq(m->geom_size[1], 2);
  ck_assert_double_eq_tol(m->geom_size[2], 0.3, 1e-15);
  /* the bounding sphere holds the field's box, from base to top */
  ck_assert_double_eq_tol(m->geom_rbound[0], sqrt(1 + 4 + 0.25), 1e-15);
  imp_free_model(m);
}
END_TEST

START_TEST(nrow_ncol_alone_give_zeros) {
  imp_model* m = load("<mujoco><asset><hfield name='h' nrow='3' ncol='4' size='1 1 1 1'/>"
                      "</asset><worldbody><geom type='hfield' hfield='h'/></worldbody></mujoco>");
  ck_assert_int_eq(m->nhfielddata, 12);
  for (int i = 0; i < 12; i++) ck_assert_float_eq(m->hfield_data[i], 0.0f);
  imp_free_model(m);
}
END_TEST

START_TEST(png_rows_flip_and_take_red) {
  char grey[512], rgb[512], xml[2048];
  tmp_path(grey, sizeof grey, "hf_grey.png");
  tmp_path(rgb, sizeof rgb, "hf_rgb.png");
  /* 2 rows x 3 columns, top row first */
  const unsigned char g[6] = {0, 50, 100, 150, 200, 250};
  ck_assert(stbi_write_png(grey, 3, 2, 1, g, 3));
  /* colour: elevation from red, green and blue ignored (lodepng's grey) */
  unsigned char c[18];
  for (int i = 0; i < 6; i++) c[3 * i] = g[i], c[3 * i + 1] = 255, c[3 * i + 2] = (unsigned char)(7 * i);
  ck_assert(stbi_write_png(rgb, 3, 2, 3, c, 9));
  snprintf(xml, sizeof xml,
           "<mujoco><asset><hfield file='%s' size='1 1 1 1'/>"
           "<hfield name='c' file='%s' size='1 1 1 1'/></asset><worldbody>"
           "<geom type='hfield' hfield='hf_grey'/><geom type='hfield' hfield='c'/>"
           "</worldbody></mujoco>",
           grey, rgb);
  imp_model* m = load(xml);
  ck_assert_int_eq(m->nhfield, 2);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_HFIELD, "hf_grey"), 0); /* named after its file */
  const float expect[6] = {150 / 250.f, 200 / 250.f, 1, 0, 50 / 250.f, 100 / 250.f};
  for (int h = 0; h < 2; h++) {
    ck_assert_int_eq(m->hfield_nrow[h], 2);
    ck_assert_int_eq(m->hfield_ncol[h], 3);
    for (int i = 0; i < 6; i++)
      ck_assert_float_eq_tol(m->hfield_data[m->hfield_adr[h] + i], expect[i], 1e-7f);
  }
  imp_free_model(m);
}
END_TEST

START_TEST(binary_file_keeps_its_row_order) {
  char path[512], xml[1024];
  tmp_path(path, sizeof path, "hf_data.bin");
  const float v[6] = {-1, 0, 1, 3, 2, 1};
  write_binary(path, 2, 3, v, 6);
  snprintf(xml, sizeof xml,
           "<mujoco><asset><hfield name='h' file='%s' size='1 1 1 1'/></asset><worldbody>"
           "<geom type='hfield' hfield='h'/></worldbody></mujoco>",
           path);
  imp_model* m = load(xml);
  for (int i = 0; i < 6; i++) ck_assert_float_eq_tol(m->hfield_data[i], (v[i] + 1) / 4, 1e-7f);
  imp_free_model(m);
}
END_TEST

START_TEST(bad_input_errors_name_the_line) {
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' nrow='2' ncol='2'/></asset></mujoco>", 2,
               "size");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' nrow='2' ncol='2' size='1 1 0 1'/>"
               "</asset></mujoco>",
               2, "positive");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' size='1 1 1 1'/></asset></mujoco>", 2,
               "nrow and ncol");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' nrow='1' ncol='5' size='1 1 1 1'/>"
               "</asset></mujoco>",
               2, "at least 2 rows");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' nrow='2' ncol='2' size='1 1 1 1' "
               "elevation='1 2 3'/></asset></mujoco>",
               2, "elevation has 3 values");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' nrow='100000' ncol='100000' size='1 1 1 1'/>"
               "</asset></mujoco>",
               2, "more than");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' file='x.png' nrow='2' ncol='2' "
               "size='1 1 1 1'/></asset></mujoco>",
               2, "from a file and from nrow");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' file='/nonexistent/x.png' size='1 1 1 1'/>"
               "</asset></mujoco>",
               2, "cannot open");
  imp_test_expect_error("<mujoco><asset>\n<hfield name='h' file='a.bin' content_type='text/plain' "
               "size='1 1 1 1'/></asset></mujoco>",
               2, "content_type");
  imp_test_expect_error("<mujoco><asset><hfield name='h' nrow='2' ncol='2' size='1 1 1 1'/></asset>"
               "<worldbody>\n<geom type='hfield' hfield='nope'/></worldbody></mujoco>",
               2, "unknown hfield 'nope'");
  imp_test_expect_error("<mujoco><asset><hfield name='h' nrow='2' ncol='2' size='1 1 1 1'/></asset>"
               "<worldbody>\n<geom type='hfield'/></worldbody></mujoco>",
               2, "hfield attribute");
  imp_test_expect_error("<mujoco><worldbody>\n<site type='hfield'/></worldbody></mujoco>", 2,
               "hfield sites");
  /* like planes, only in static bodies (MuJoCo's rule) */
  imp_test_expect_error("<mujoco><asset><hfield name='h' nrow='2' ncol='2' size='1 1 1 1'/></asset>"
               "<worldbody><body><freejoint/><geom size='1'/>\n<geom type='hfield' hfield='h'/>"
               "</body></worldbody></mujoco>",
               2, "static bodies");
}
END_TEST

START_TEST(bad_files_are_refused_before_decoding) {
  char path[512], xml[1024];
  /* a PNG whose header claims 20000 x 20000 pixels (4e8 values): refused
     from the header alone, nothing decoded */
  tmp_path(path, sizeof path, "hf_huge.png");
  static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                      0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                      0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20, /* 20000 x 20000 */
                                      8, 0, 0, 0, 0, 0, 0, 0, 0};
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(png, 1, sizeof png, f);
  ck_assert_int_eq(fclose(f), 0);
  snprintf(xml, sizeof xml, "<mujoco><asset>\n<hfield name='h' file='%s' size='1 1 1 1'/>"
           "</asset></mujoco>", path);
  imp_test_expect_error(xml, 2, "20000 x 20000 elevation values: more than");
  /* a binary header claiming 1e5 x 1e5 with no data */
  tmp_path(path, sizeof path, "hf_huge.bin");
  write_binary(path, 100000, 100000, NULL, 0);
  snprintf(xml, sizeof xml, "<mujoco><asset>\n<hfield name='h' file='%s' size='1 1 1 1'/>"
           "</asset></mujoco>", path);
  imp_test_expect_error(xml, 2, "more than");
  /* a binary file one value short */
  tmp_path(path, sizeof path, "hf_short.bin");
  const float v[5] = {0};
  write_binary(path, 2, 3, v, 5);
  snprintf(xml, sizeof xml, "<mujoco><asset>\n<hfield name='h' file='%s' size='1 1 1 1'/>"
           "</asset></mujoco>", path);
  imp_test_expect_error(xml, 2, "need a file of 32 bytes, not 28");
  /* negative dimensions */
  tmp_path(path, sizeof path, "hf_neg.bin");
  write_binary(path, -2, 3, v, 0);
  snprintf(xml, sizeof xml, "<mujoco><asset>\n<hfield name='h' file='%s' size='1 1 1 1'/>"
           "</asset></mujoco>", path);
  imp_test_expect_error(xml, 2, "non-positive dimensions");
}
END_TEST

/* ---- contact geometry against closed forms ---- */

/* closest point of triangle abc to p (Ericson 2005, 5.1.5), squared distance */
static double point_triangle2(const double p[3], const double a[3], const double b[3],
                              const double c[3], double q[3]) {
  double ab[3], ac[3], ap[3];
  for (int i = 0; i < 3; i++) ab[i] = b[i] - a[i], ac[i] = c[i] - a[i], ap[i] = p[i] - a[i];
  double d1 = imp_dot(ab, ap, 3), d2 = imp_dot(ac, ap, 3);
  double bp[3], cp[3];
  for (int i = 0; i < 3; i++) bp[i] = p[i] - b[i], cp[i] = p[i] - c[i];
  double d3 = imp_dot(ab, bp, 3), d4 = imp_dot(ac, bp, 3);
  double d5 = imp_dot(ab, cp, 3), d6 = imp_dot(ac, cp, 3);
  double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
  double s = 0, t = 0;
  if (d1 <= 0 && d2 <= 0) s = t = 0;
  else if (d3 >= 0 && d4 <= d3) s = 1, t = 0;
  else if (d6 >= 0 && d5 <= d6) s = 0, t = 1;
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) s = d1 / (d1 - d3), t = 0;
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) s = 0, t = d2 / (d2 - d6);
  else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    s = 1 - w, t = w;
  } else {
    double den = 1 / (va + vb + vc);
    s = vb * den, t = vc * den;
  }
  for (int i = 0; i < 3; i++) q[i] = a[i] + s * ab[i] + t * ac[i];
  double e[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
  return imp_dot(e, e, 3);
}

/* distance from p (outside) to the prism of 6 vertices (top 0-2, bottom
   3-5 under them): the nearest of its 8 boundary triangles */
static double point_prism(const double p[3], double v[6][3], double q[3]) {
  static const int tri[8][3] = {{0, 1, 2}, {3, 4, 5}, {0, 1, 4}, {0, 4, 3},
                                {1, 2, 5}, {1, 5, 4}, {2, 0, 3}, {2, 3, 5}};
  double best = INFINITY, qq[3] = {0, 0, 0};
  for (int k = 0; k < 8; k++) {
    double d2 = point_triangle2(p, v[tri[k][0]], v[tri[k][1]], v[tri[k][2]], qq);
    if (d2 < best) best = d2, imp_copy(q, qq, 3);
  }
  return sqrt(best);
}

/* the field's prisms in world coordinates, MuJoCo's triangulation */
static int prism_world(const imp_model* m, const imp_data* d, int g, int r, int c, int t,
                       double v[6][3]) {
  static const int tri[2][3][2] = {{{1, 0}, {0, 0}, {1, 1}}, {{0, 0}, {1, 1}, {0, 1}}};
  int h = m->geom_dataid[g], nc = m->hfield_ncol[h], nr = m->hfield_nrow[h];
  const double* s = m->hfield_size + 4 * h;
  for (int k = 0; k < 3; k++) {
    int rr = r + tri[t][k][0], cc = c + tri[t][k][1];
    double top[3] = {2 * s[0] * cc / (nc - 1) - s[0], 2 * s[1] * rr / (nr - 1) - s[1],
                     m->hfield_data[m->hfield_adr[h] + rr * nc + cc] * s[2]};
    double bot[3] = {top[0], top[1], -s[3]};
    imp_mat3_vec(v[k], d->geom_xmat + 9 * g, top);
    imp_mat3_vec(v[k + 3], d->geom_xmat + 9 * g, bot);
    imp_add_scl(v[k], d->geom_xpos + 3 * g, 1, 3);
    imp_add_scl(v[k + 3], d->geom_xpos + 3 * g, 1, 3);
  }
  return 1;
}

/* the surface's local z over the field's local (x, y): the plane of the
   triangle holding it (the diagonal (r, c)-(r+1, c+1) splits each cell;
   above it, fv > fu, the triangle (r+1, c), (r, c), (r+1, c+1)) */
static double surface_z(const imp_model* m, int h, double x, double y) {
  int nc = m->hfield_ncol[h], nr = m->hfield_nrow[h];
  const double* s = m->hfield_size + 4 * h;
  const float* z = m->hfield_data + m->hfield_adr[h];
  double u = (x + s[0]) / (2 * s[0]) * (nc - 1), v = (y + s[1]) / (2 * s[1]) * (nr - 1);
  int c = (int)fmin(floor(u), nc - 2), r = (int)fmin(floor(v), nr - 2);
  double fu = u - c, fv = v - r, z00 = z[r * nc + c], z01 = z[r * nc + c + 1],
         z10 = z[(r + 1) * nc + c], z11 = z[(r + 1) * nc + c + 1];
  double top = fv > fu ? z00 + fu * (z11 - z10) + fv * (z10 - z00)
                       : z00 + fu * (z01 - z00) + fv * (z11 - z01);
  return top * s[2];
}

/* world point x in field geom g's frame */
static void to_field(const imp_data* d, int g, const double x[3], double l[3]) {
  double w[3] = {x[0] - d->geom_xpos[3 * g], x[1] - d->geom_xpos[3 * g + 1],
                 x[2] - d->geom_xpos[3 * g + 2]};
  imp_mat3T_vec(l, d->geom_xmat + 9 * g, w);
}

/* is world point x inside the field's solid (under its surface, above its
   base, within its rectangle)? */
static int inside_field(const imp_model* m, const imp_data* d, int g, const double x[3]) {
  int h = m->geom_dataid[g];
  const double* s = m->hfield_size + 4 * h;
  double l[3];
  to_field(d, g, x, l);
  if (fabs(l[0]) > s[0] || fabs(l[1]) > s[1] || l[2] < -s[3]) return 0;
  return l[2] < surface_z(m, h, l[0], l[1]);
}

static const char* k_hills =
    "<mujoco><asset><hfield name='h' nrow='5' ncol='6' size='1.5 1 0.4 0.2' elevation='"
    "0 1 3 2 1 0  1 2 4 3 1 1  0 3 5 4 2 1  1 2 3 2 2 0  0 0 1 1 0 0'/></asset>"
    "<worldbody><geom type='hfield' hfield='h' pos='0.2 0.1 -0.3' euler='0.1 -0.2 0.3'/>"
    "<body name='b'><freejoint/><geom type='sphere' size='0.25'/></body></worldbody></mujoco>";

/* the next number in [0, 1) of a 64-bit linear congruential sequence
   (Knuth's MMIX constants): the same samples on every machine */
static double next_uniform(uint64_t* rng) {
  *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*rng >> 11) / 9007199254740992.0;
}

START_TEST(sphere_depth_is_its_distance_to_the_nearest_prism) {
  /* a sphere whose centre is outside every prism penetrates prism P by
     r - dist(centre, P), along (centre - nearest point) / dist: each prism's
     contact must equal that, and the deepest over the field the deepest */
  imp_model* m = load(k_hills);
  imp_data* d = imp_make_data(m);
  double worst = 0, worst_n = 0;
  int checked = 0;
  uint64_t rng = 12345;
  for (int trial = 0; trial < 200; trial++) {
    double u[3];
    for (int i = 0; i < 3; i++) u[i] = next_uniform(&rng);
    d->qpos[0] = -1.2 + 2.4 * u[0];
    d->qpos[1] = -0.8 + 1.6 * u[1];
    d->qpos[2] = -0.3 + 0.6 * u[2];
    d->qpos[3] = 1, d->qpos[4] = d->qpos[5] = d->qpos[6] = 0;
    imp_forward(m, d);
    const double* ctr = d->geom_xpos + 3;
    double r = m->geom_size[3];
    /* closed form: nearest prism, the centre outside them all */
    double best = INFINITY, bq[3] = {0, 0, 0};
    for (int rr = 0; rr < 4; rr++)
      for (int cc = 0; cc < 5; cc++)
        for (int t = 0; t < 2; t++) {
          double v[6][3], q[3] = {0, 0, 0};
          prism_world(m, d, 0, rr, cc, t, v);
          double dist = point_prism(ctr, v, q);
          if (dist < best) best = dist, imp_copy(bq, q, 3);
        }
    /* no contact, the centre inside the solid (the distance to the
       boundary is not the depth there), or within 1 mm of the surface */
    if (best > r || best < 1e-3 || inside_field(m, d, 0, ctr)) continue;
    int deepest = -1;
    for (int i = 0; i < d->ncon; i++)
      if (deepest < 0 || d->contact[i].dist < d->contact[deepest].dist) deepest = i;
    ck_assert_msg(deepest >= 0, "trial %d: no contact, closed form depth %.6f", trial, r - best);
    double n[3] = {ctr[0] - bq[0], ctr[1] - bq[1], ctr[2] - bq[2]};
    imp_normalize3(n);
    double dd = fabs(d->contact[deepest].dist - (best - r)), dn = 0;
    for (int i = 0; i < 3; i++) dn = fmax(dn, fabs(d->contact[deepest].frame[i] - n[i]));
    worst = fmax(worst, dd);
    worst_n = fmax(worst_n, dn);
    checked++;
  }
  printf("sphere on hills: %d poses, max |depth - closed form| %.2e, max |normal - closed form| "
         "%.2e\n",
         checked, worst, worst_n);
  ck_assert_int_ge(checked, 30);
  ck_assert_msg(worst < 1e-10, "depth off by %.3e", worst);
  /* the convex collider's normal is within sqrt(2 IMP_GJK_TOL) ~ 1.4e-6 rad
     on curved shapes (collide_convex.c) */
  ck_assert_msg(worst_n < 2e-6, "normal off by %.3e", worst_n);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(rays_meet_the_surface) {
  /* rays along the field's -z from above land on the surface; along +z
     from inside leave through it; from outside the rectangle sideways they
     meet its wall; a ray past its edge misses */
  imp_model* m = load(k_hills);
  imp_data* d = imp_make_data(m);
  d->qpos[2] = 50; /* the sphere out of the way */
  imp_forward(m, d);
  const double* R = d->geom_xmat;
  double down[3] = {-R[2], -R[5], -R[8]}, up[3] = {R[2], R[5], R[8]};
  double worst = 0;
  uint64_t rng = 777;
  for (int k = 0; k < 300; k++) {
    double u[2];
    for (int i = 0; i < 2; i++) u[i] = next_uniform(&rng);
    double lx = -1.5 + 3 * u[0], ly = -1 + 2 * u[1], zs = surface_z(m, 0, lx, ly);
    /* from 2 m above, in the field's frame, straight down */
    double lp[3] = {lx, ly, 2}, wp[3];
    imp_mat3_vec(wp, R, lp);
    imp_add_scl(wp, d->geom_xpos, 1, 3);
    int geom = -2;
    double t = imp_ray(m, d, wp, down, -1, &geom);
    ck_assert_int_eq(geom, 0);
    worst = fmax(worst, fabs(t - (2 - zs)));
    /* from inside, 1 cm under the surface, up: out 1 cm later */
    double ip[3] = {lx, ly, zs - 0.01}, wi[3];
    imp_mat3_vec(wi, R, ip);
    imp_add_scl(wi, d->geom_xpos, 1, 3);
    t = imp_ray(m, d, wi, up, 1, &geom);
    ck_assert_int_eq(geom, 0);
    worst = fmax(worst, fabs(t - 0.01));
  }
  /* sideways at the wall x = -1.5, at a height inside the base */
  double lp[3] = {-3, 0.3, -0.1}, wp[3], dir[3] = {R[0], R[3], R[6]};
  imp_mat3_vec(wp, R, lp);
  imp_add_scl(wp, d->geom_xpos, 1, 3);
  int geom = -2;
  double t = imp_ray(m, d, wp, dir, 1, &geom);
  ck_assert_int_eq(geom, 0);
  imp_assert_near(t, 1.5, 1e-12);
  /* down past the rectangle's corner: nothing */
  double op[3] = {1.6, 1.1, 2}, wo[3];
  imp_mat3_vec(wo, R, op);
  imp_add_scl(wo, d->geom_xpos, 1, 3);
  t = imp_ray(m, d, wo, down, 1, &geom);
  ck_assert_int_eq(geom, -1);
  ck_assert_double_eq(t, -1);
  printf("rays on hills: 600 rays, max |t - closed form| %.2e\n", worst);
  ck_assert_msg(worst < 1e-12, "ray off by %.3e", worst);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(planes_and_fields_do_not_collide_with_fields) {
  imp_model* m = load("<mujoco><asset><hfield name='h' nrow='2' ncol='2' size='1 1 1 1'/>"
                      "</asset><worldbody><geom type='plane' size='5 5 1'/>"
                      "<geom type='hfield' hfield='h' pos='0 0 -0.5'/>"
                      "<geom type='hfield' hfield='h' pos='0.5 0 -0.3'/>"
                      "</worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  ck_assert_int_eq(d->ncon, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(contacts_per_pair_are_bounded_and_spread) {
  /* a large box sunk into a fine flat field: one candidate per prism under
     it, IMP_MAXCONPAIR kept, the deepest among them and spread over it */
  imp_model* m = load("<mujoco><asset><hfield name='h' nrow='41' ncol='41' size='2 2 0.1 0.1'/>"
                      "</asset><worldbody><geom type='hfield' hfield='h'/>"
                      "<body pos='0.03 0.02 0.49'><freejoint/><geom type='box' size='0.5 0.4 0.5'/>"
                      "</body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  ck_assert_int_eq(d->ncon, IMP_MAXCONPAIR);
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int i = 0; i < d->ncon; i++) {
    imp_assert_near(d->contact[i].dist, -0.01, 1e-12);
    imp_assert_near(d->contact[i].frame[2], 1, 1e-12);
    for (int k = 0; k < 2; k++) {
      lo[k] = fmin(lo[k], d->contact[i].pos[k]);
      hi[k] = fmax(hi[k], d->contact[i].pos[k]);
    }
  }
  /* spread over most of the box's 1 x 0.8 footprint */
  ck_assert_msg(hi[0] - lo[0] > 0.8 && hi[1] - lo[1] > 0.6, "contacts span %.3f x %.3f",
                hi[0] - lo[0], hi[1] - lo[1]);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* ---- physics by its laws ---- */

START_TEST(sphere_rests_on_a_plateau_at_its_height) {
  /* 3 x 3 elevations, all 1 but one corner 0: the plateau is at the top
     elevation, z = pos_z + elevation_z; a sphere dropped on it rests at
     that plus its radius */
  imp_model* m = load("<mujoco><asset><hfield name='h' nrow='3' ncol='3' size='2 2 0.3 0.2' "
                      "elevation='0 1 1 1 1 1 1 1 1'/></asset><worldbody>"
                      "<geom type='hfield' hfield='h' pos='0 0 0.1'/>"
                      "<body pos='0.6 -0.7 0.8'><freejoint/><geom type='sphere' size='0.1'/>"
                      "</body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  int n = (int)lround(3.0 / m->opt.timestep);
  for (int k = 0; k < n; k++) imp_step(m, d);
  /* the contact stage rests contacts IMP_CONTACT_SLOP = 1e-6 m deep
     (constraints.c) */
  double expect = 0.1 + 0.3 + 0.1 - 1e-6;
  printf("sphere on a plateau: rests at z %.12f (expected %.12f), speed %.2e, %d contacts\n",
         d->qpos[2], expect, imp_norm3(d->qvel), d->ncon);
  imp_assert_near(d->qpos[2], expect, 1e-9);
  ck_assert_msg(imp_norm3(d->qvel) < 1e-6, "still moving at %.3e", imp_norm3(d->qvel));
  /* straight down onto the face: its normal exactly (collide_hfield.c
     snaps a normal within 1e-5 rad of a face's to it), nothing sideways */
  imp_assert_near(d->qpos[0], 0.6, 1e-12);
  imp_assert_near(d->qpos[1], -0.7, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* second derivative of the least-squares parabola through (t[i], x[i]),
   i in [s0, n): times centred, normal equations by Cramer's rule */
static double fit_acceleration(const double* t, const double* x, int s0, int n) {
  int cnt = n - s0;
  double tm = 0;
  for (int i = s0; i < n; i++) tm += t[i] / cnt;
  double S[5] = {0}, T[3] = {0};
  for (int i = s0; i < n; i++) {
    double uu = t[i] - tm, p = 1;
    for (int k = 0; k < 5; k++) {
      S[k] += p;
      if (k < 3) T[k] += p * x[i];
      p *= uu;
    }
  }
  double det = S[0] * (S[2] * S[4] - S[3] * S[3]) - S[1] * (S[1] * S[4] - S[3] * S[2]) +
               S[2] * (S[1] * S[3] - S[2] * S[2]);
  double det2 = S[0] * (S[2] * T[2] - T[1] * S[3]) - S[1] * (S[1] * T[2] - T[1] * S[2]) +
                T[0] * (S[1] * S[3] - S[2] * S[2]);
  return 2 * det2 / det;
}

START_TEST(sphere_rolls_down_a_ramp_at_five_sevenths_g_sin_theta) {
  /* a ramp of 8 x 4 cells, elevation rising along x: every prism's top on
     one plane, the sphere crossing their edges and diagonals as it rolls.
     Rolling without slipping (friction 1 > (2/7) tan theta): the centre
     accelerates at (5/7) g sin(theta) along the slope. The contact
     stage's own error on this law (2.9e-6 relative, the same on a tilted
     plane geom) bounds the comparison with the law; against the plane the
     field must agree to 1e-9 */
  imp_model* m = load("<mujoco><option timestep='0.002'/><asset>"
                      "<hfield name='h' nrow='5' ncol='9' size='3 1 1.2 0.2' elevation='"
                      "0 1 2 3 4 5 6 7 8  0 1 2 3 4 5 6 7 8  0 1 2 3 4 5 6 7 8  "
                      "0 1 2 3 4 5 6 7 8  0 1 2 3 4 5 6 7 8'/></asset><worldbody>"
                      "<geom type='hfield' hfield='h' friction='1 0 0'/>"
                      "<body pos='2 0.13 1.2'><freejoint/><geom type='sphere' size='0.1' "
                      "friction='1 0 0'/></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  double theta = atan(1.2 / 6), g = 9.81;
  double x0 = 2, zs = (x0 + 3) / 6 * 1.2;
  d->qpos[0] = x0 - 0.1 * sin(theta);
  d->qpos[2] = zs + 0.1 * cos(theta);
  enum { N = 500 };
  static double t[N], x[N];
  for (int k = 0; k < N; k++) {
    imp_step(m, d);
    t[k] = d->time;
    x[k] = d->qpos[0];
  }
  double a = fit_acceleration(t, x, N / 2, N), expect = -5.0 / 7 * g * sin(theta) * cos(theta);
  double y = d->qpos[1];
  imp_free_data(d);
  imp_free_model(m);
  /* the same slope as a plane geom */
  char xml[1024];
  snprintf(xml, sizeof xml,
           "<mujoco><option timestep='0.002'/><compiler angle='radian'/><worldbody>"
           "<geom type='plane' size='5 5 1' euler='0 %.17g 0' friction='1 0 0'/>"
           "<body pos='0 0.13 0.5'><freejoint/><geom type='sphere' size='0.1' friction='1 0 0'/>"
           "</body></worldbody></mujoco>",
           -theta);
  m = load(xml);
  d = imp_make_data(m);
  d->qpos[0] = -0.1 * sin(theta);
  d->qpos[2] = 0.1 * cos(theta);
  for (int k = 0; k < N; k++) {
    imp_step(m, d);
    t[k] = d->time;
    x[k] = d->qpos[0];
  }
  double ap = fit_acceleration(t, x, N / 2, N);
  printf("rolling down a ramp of %.3f deg: horizontal acceleration %.12f m/s^2, on a plane geom "
         "%.12f, (5/7) g sin cos = %.12f (rel. error %.2e), y drift %.2e\n",
         theta * 180 / IMP_PI, a, ap, expect, fabs(a - expect) / fabs(expect), y - 0.13);
  imp_assert_rel(a, ap, 1e-9);
  imp_assert_rel(a, expect, 1e-5);
  imp_assert_near(y, 0.13, 1e-9);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(frictionless_sphere_slides_down_a_ramp_at_g_sin_theta) {
  /* 2 x 2 elevations rising along x: one plane of slope tan(theta) =
     elevation_z / (2 radius_x), both triangles of the cell on it. A
     frictionless sphere (condim 1) accelerates along the slope at
     g sin(theta): horizontally g sin(theta) cos(theta) */
  imp_model* m = load("<mujoco><option timestep='0.002'/><asset>"
                      "<hfield name='h' nrow='2' ncol='2' size='3 1 1.2 0.2' elevation='0 1 0 1'/>"
                      "</asset><worldbody><geom type='hfield' hfield='h' condim='1'/>"
                      "<body pos='1.5 0.1 1.2'><freejoint/><geom type='sphere' size='0.1' "
                      "condim='1'/></body></worldbody></mujoco>");
  imp_data* d = imp_make_data(m);
  double theta = atan(1.2 / 6), g = 9.81;
  /* settle onto the slope first: place it touching, at rest */
  double nz = cos(theta), nx = -sin(theta); /* the slope's normal */
  double x0 = 1.5, zs = (x0 + 3) / 6 * 1.2;   /* surface height under x0 */
  d->qpos[0] = x0 + 0.1 * nx;
  d->qpos[2] = zs + 0.1 * nz;
  enum { N = 400 };
  static double t[N], x[N];
  for (int k = 0; k < N; k++) {
    imp_step(m, d);
    t[k] = d->time;
    x[k] = d->qpos[0];
  }
  /* the second half: contact established */
  double a = fit_acceleration(t, x, N / 2, N), expect = -g * sin(theta) * cos(theta);
  printf("frictionless slide on a ramp of %.3f deg: horizontal acceleration %.9f m/s^2, "
         "g sin cos = %.9f (rel. error %.2e); %d contacts\n",
         theta * 180 / IMP_PI, a, expect, fabs(a - expect) / fabs(expect), d->ncon);
  imp_assert_rel(a, expect, 1e-6);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* convex geoms lying on a flat field of 0.1 m cells, their edges across
   prisms and the cells' diagonals: each rests at its height, without
   drift or rocking over 5 s (the prisms' inner walls push no one sideways) */
static const struct resting {
  const char* geom;
  double z; /* resting height of the centre above the surface */
} k_resting[] = {
    {"<geom type='box' size='0.17 0.11 0.1'/>", 0.1},
    {"<geom type='capsule' size='0.05 0.2' euler='0 90 0'/>", 0.05},
    {"<geom type='cylinder' size='0.12 0.06'/>", 0.06},
    {"<geom type='ellipsoid' size='0.2 0.15 0.08'/>", 0.08},
};

START_TEST(geoms_rest_on_a_flat_field) {
  const struct resting* rc = &k_resting[_i];
  char xml[1024];
  snprintf(xml, sizeof xml,
           "<mujoco><asset><hfield name='h' nrow='21' ncol='21' size='1 1 0.5 0.1'/></asset>"
           "<worldbody><geom type='hfield' hfield='h' pos='0 0 -0.2'/>"
           "<body pos='0.013 -0.027 %.6f' euler='0 0 0.3'><freejoint/>%s</body></worldbody>"
           "</mujoco>",
           -0.2 + rc->z + 0.001, rc->geom);
  imp_model* m = load(xml);
  imp_data* d = imp_make_data(m);
  double pen = 0, x0[2] = {0, 0}, spin = 0;
  int n = (int)lround(5.0 / m->opt.timestep), settle = (int)lround(0.5 / m->opt.timestep);
  for (int k = 0; k < n; k++) {
    imp_step(m, d);
    if (k == settle) x0[0] = d->qpos[0], x0[1] = d->qpos[1];
    if (k > settle) {
      for (int i = 0; i < d->ncon; i++) pen = fmax(pen, -d->contact[i].dist);
      spin = fmax(spin, imp_norm3(d->qvel + 3));
    }
  }
  double drift = hypot(d->qpos[0] - x0[0], d->qpos[1] - x0[1]);
  printf("%s on a flat field 5 s: z %.9f (expected %.9f), penetration %.3e, drift %.3e, "
         "angular speed %.3e, %d contacts\n",
         rc->geom, d->qpos[2], -0.2 + rc->z - 1e-6, pen, drift, spin, d->ncon);
  /* resting IMP_CONTACT_SLOP = 1e-6 m deep, as on planes (constraints.c) */
  imp_assert_near(d->qpos[2], -0.2 + rc->z - 1e-6, 1e-7);
  ck_assert_msg(pen < 1e-4, "penetration %.3e", pen);
  ck_assert_msg(drift < 1e-9, "drift %.3e", drift);
  ck_assert_msg(spin < 1e-6, "rocking at %.3e rad/s", spin);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(terrain_scene_settles_on_the_surface) {
  /* models/terrain.xml: five primitives dropped onto hills with rolling
     friction (condim 6) come to rest in 8 s, each touching the field, each
     centre above its surface, none sunk more than 1e-4 */
  imp_model* m = imp_test_load_model("terrain.xml");
  imp_data* d = imp_make_data(m);
  int n = (int)lround(8.0 / m->opt.timestep);
  for (int k = 0; k < n; k++) imp_step(m, d);
  double vmax = 0, pen = 0;
  for (int i = 0; i < m->nv; i++) vmax = fmax(vmax, fabs(d->qvel[i]));
  for (int i = 0; i < d->ncon; i++) pen = fmax(pen, -d->contact[i].dist);
  printf("terrain.xml after 8 s: largest |qvel| %.2e, deepest contact %.3e, %d contacts\n", vmax,
         pen, d->ncon);
  ck_assert_msg(vmax < 1e-6, "still moving: |qvel| %.3e", vmax);
  ck_assert_msg(pen < 1e-4, "penetration %.3e", pen);
  int field = imp_test_id(m, IMP_OBJ_GEOM, "hills");
  for (int b = 1; b < m->nbody; b++) {
    int g = m->body_geomadr[b], touching = 0;
    for (int i = 0; i < d->ncon; i++)
      touching |= d->contact[i].geom1 == field && d->contact[i].geom2 == g;
    ck_assert_msg(touching, "body %d does not touch the field", b);
    ck_assert_msg(!inside_field(m, d, field, d->geom_xpos + 3 * g), "body %d is under the surface",
                  b);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("hfield");
  TCase* t = tcase_create("load");
  tcase_add_test(t, inline_elevation_is_flipped_and_normalized);
  tcase_add_test(t, nrow_ncol_alone_give_zeros);
  tcase_add_test(t, png_rows_flip_and_take_red);
  tcase_add_test(t, binary_file_keeps_its_row_order);
  tcase_add_test(t, bad_input_errors_name_the_line);
  tcase_add_test(t, bad_files_are_refused_before_decoding);
  suite_add_tcase(s, t);
  t = tcase_create("collide");
  tcase_add_test(t, sphere_depth_is_its_distance_to_the_nearest_prism);
  tcase_add_test(t, planes_and_fields_do_not_collide_with_fields);
  tcase_add_test(t, rays_meet_the_surface);
  tcase_add_test(t, contacts_per_pair_are_bounded_and_spread);
  suite_add_tcase(s, t);
  t = tcase_create("physics");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, sphere_rests_on_a_plateau_at_its_height);
  tcase_add_test(t, frictionless_sphere_slides_down_a_ramp_at_g_sin_theta);
  tcase_add_test(t, sphere_rolls_down_a_ramp_at_five_sevenths_g_sin_theta);
  tcase_add_loop_test(t, geoms_rest_on_a_flat_field, 0, 4);
  tcase_add_test(t, terrain_scene_settles_on_the_surface);
  suite_add_tcase(s, t);
  return imp_test_run_suite(s);
}
