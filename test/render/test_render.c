/* The renderer drawing headless (EGL surfaceless, or a hidden GLFW window
   under Xvfb) and the image it makes: its size, the background where
   nothing is, a lit sphere's colour where the camera math says it projects,
   contact force arrows when asked for and only then, picking, text.
   Expected colours follow from MJCF's definitions: a headlight with ambient
   a and diffuse k lights a surface of colour c facing it at angle t as
   c (a + k cos t); a skybox gradient runs from rgb2 (down) to rgb1 (up). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "test_util.h"

#define W 320
#define H 240

/* A sphere of known colour at x = 0.3, a gradient sky, only the headlight. */
static const char* ball_xml =
    "<mujoco><visual><headlight ambient='.3 .3 .3' diffuse='.7 .7 .7' specular='0 0 0'/></visual>"
    "<asset><texture type='skybox' builtin='gradient' rgb1='.8 .8 1' rgb2='.2 .1 0' width='64' "
    "height='64'/></asset>"
    "<worldbody><body name='ball' pos='.3 0 0'><geom type='sphere' size='.2' rgba='.8 .3 .1 "
    "1'/></body>"
    "</worldbody></mujoco>";

/* A sphere resting on a floor: one contact carrying its weight. */
static const char* rest_xml =
    "<mujoco><visual><headlight ambient='.3 .3 .3' diffuse='.7 .7 .7' specular='0 0 0'/></visual>"
    "<worldbody><geom type='plane' size='2 2 .1' rgba='.5 .5 .5 1'/>"
    "<body name='ball' pos='0 0 .1'><freejoint/><geom type='sphere' size='.1' rgba='.2 .6 .2 "
    "1'/></body>"
    "</worldbody></mujoco>";

typedef struct fixture {
  imp_model* m;
  imp_data* d;
  imp_offscreen* o;
  imp_renderer* r;
  imp_render_opt opt;
  imp_camera cam;
  unsigned char rgb[W * H * 3];
} fixture;

static fixture* setup(const char* xml) {
  fixture* f = calloc(1, sizeof *f);
  char err[1000] = "";
  f->m = imp_test_load_string(xml);
  f->d = imp_make_data(f->m);
  imp_forward(f->m, f->d);
  f->o = imp_offscreen_make(W, H, IMP_GL_AUTO, err, sizeof err);
  ck_assert_msg(f->o != NULL, "no headless GL context: %s", err);
  f->r = imp_render_make(f->m, err, sizeof err);
  ck_assert_msg(f->r != NULL, "renderer: %s", err);
  imp_render_opt_default(&f->opt);
  f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {0, 0, 0}, 2, 90, 0};
  return f;
}

static void teardown(fixture* f) {
  imp_render_free(f->r);
  imp_offscreen_free(f->o);
  imp_free_data(f->d);
  imp_free_model(f->m);
  free(f);
}

static void draw(fixture* f) {
  imp_offscreen_bind(f->o);
  imp_render_frame(f->r, f->m, f->d, &f->cam, &f->opt, W, H);
  imp_offscreen_read_rgb(f->o, f->rgb);
}

static const unsigned char* pixel(const fixture* f, int x, int y) {
  return f->rgb + 3 * (y * W + x);
}

/* Each channel of pixel (x, y) within tol (0..1) of rgb. */
static void assert_pixel(const fixture* f, int x, int y, const double rgb[3], double tol) {
  const unsigned char* p = pixel(f, x, y);
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(p[k] / 255.0 - rgb[k]) <= tol,
                  "pixel (%d, %d) = (%d %d %d), expected (%.0f %.0f %.0f)", x, y, p[0], p[1], p[2],
                  255 * rgb[0], 255 * rgb[1], 255 * rgb[2]);
}

/* Pixels within 4 levels of the colour rgba (0..1). */
static int count_colour(const fixture* f, const float rgba[4]) {
  int n = 0;
  for (int i = 0; i < W * H; i++) {
    int close = 1;
    for (int k = 0; k < 3; k++)
      close &= abs(f->rgb[3 * i + k] - (int)lrintf(255 * rgba[k])) <= 4;
    n += close;
  }
  return n;
}

START_TEST(background_is_the_skybox_gradient) {
  fixture* f = setup(ball_xml);
  draw(f);
  /* corners: the ray's height z sets the mix of rgb2 (z = -1) and rgb1 (z = 1) */
  int corners[4][2] = {{2, 2}, {W - 3, 2}, {2, H - 3}, {W - 3, H - 3}};
  const imp_camera_pose* p = imp_render_pose(f->r);
  for (int c = 0; c < 4; c++) {
    double o[3], dir[3], t, rgb[3];
    imp_camera_ray(p, W, H, corners[c][0] + 0.5, corners[c][1] + 0.5, o, dir);
    t = 0.5 * (dir[2] + 1);
    double lo[3] = {.2, .1, 0}, hi[3] = {.8, .8, 1};
    for (int k = 0; k < 3; k++)
      rgb[k] = lo[k] + t * (hi[k] - lo[k]);
    assert_pixel(f, corners[c][0], corners[c][1], rgb, 3 / 255.0);
  }
  teardown(f);
}
END_TEST

START_TEST(sphere_shows_its_lit_colour_where_it_projects) {
  fixture* f = setup(ball_xml);
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  double centre[3] = {.3, 0, 0}, px[2], o[3], dir[3];
  ck_assert(imp_camera_project(p, W, H, centre, px, NULL));
  int x = (int)px[0], y = (int)px[1];
  ck_assert(x > W / 2 + 5); /* right of the image centre, as x = 0.3 must be */
  /* the surface seen there faces back along the pixel's ray; the headlight
     shines along the view axis */
  imp_camera_ray(p, W, H, x + 0.5, y + 0.5, o, dir);
  double cosang = dir[0] * p->forward[0] + dir[1] * p->forward[1] + dir[2] * p->forward[2];
  double rgba[3] = {.8, .3, .1}, lit[3];
  for (int k = 0; k < 3; k++)
    lit[k] = rgba[k] * (0.3 + 0.7 * cosang);
  assert_pixel(f, x, y, lit, 3 / 255.0);
  /* and the image centre, left of the sphere's rim, is sky, not sphere */
  const unsigned char* c = pixel(f, W / 2 - 20, H / 2);
  ck_assert_msg(!(abs(c[0] - (int)(255 * lit[0])) < 20 && abs(c[1] - (int)(255 * lit[1])) < 20),
                "the sphere spills over the image centre");
  teardown(f);
}
END_TEST

START_TEST(contact_force_arrows_only_when_asked) {
  fixture* f = setup(rest_xml);
  for (int i = 0; i < 20; i++)
    imp_step(f->m, f->d);
  ck_assert_int_ge(f->d->ncon, 1);
  f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {0, 0, .1}, 0.8, 90, -35};
  static const float arrow[4] = IMP_RGBA_CONTACT_FORCE, point[4] = IMP_RGBA_CONTACT_POINT;
  draw(f);
  ck_assert_int_eq(count_colour(f, arrow), 0);
  ck_assert_int_eq(count_colour(f, point), 0);
  f->opt.flags |= IMP_VIS_CONTACT_FORCE | IMP_VIS_CONTACT_POINT;
  draw(f);
  int n = count_colour(f, arrow);
  ck_assert_msg(n > 15, "only %d arrow pixels", n);
  ck_assert_int_gt(count_colour(f, point), 10);
  /* the arrow points up from the contact (the floor pushes the ball up):
     it appears above the contact point's pixel */
  const imp_camera_pose* p = imp_render_pose(f->r);
  double cp[2];
  imp_camera_project(p, W, H, f->d->contact[0].pos, cp, NULL);
  int above = 0, below = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const unsigned char* q = pixel(f, x, y);
      if (abs(q[0] - 255) <= 4 && abs(q[1] - 51) <= 4 && abs(q[2] - 255) <= 4) {
        above += y < cp[1] - 2;
        below += y > cp[1] + 2;
      }
    }
  ck_assert_int_gt(above, 20);
  ck_assert_int_eq(below, 0);
  teardown(f);
}
END_TEST

START_TEST(picking_finds_the_body_under_the_pixel) {
  fixture* f = setup(ball_xml);
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  double centre[3] = {.3, 0, 0}, px[2], hit[3];
  imp_camera_project(p, W, H, centre, px, NULL);
  int geom = -1;
  int body = imp_render_select(f->r, f->m, f->d, px[0], px[1], &geom, hit);
  ck_assert_int_eq(body, imp_test_id(f->m, IMP_OBJ_BODY, "ball"));
  ck_assert_int_eq(geom, 0);
  /* the point hit is on the sphere's near side: radius 0.2 from its centre,
     toward the camera */
  double r = sqrt((hit[0] - .3) * (hit[0] - .3) + hit[1] * hit[1] + hit[2] * hit[2]);
  imp_assert_near(r, 0.2, 2e-3);
  ck_assert(hit[1] < -0.15);
  /* sky: nothing */
  ck_assert_int_eq(imp_render_select(f->r, f->m, f->d, 3, 3, NULL, NULL), -1);
  /* the frame drawn before is untouched by the id pass */
  unsigned char before[3];
  memcpy(before, pixel(f, (int)px[0], (int)px[1]), 3);
  imp_offscreen_read_rgb(f->o, f->rgb);
  ck_assert(memcmp(before, pixel(f, (int)px[0], (int)px[1]), 3) == 0);
  teardown(f);
}
END_TEST

START_TEST(overlay_text_is_drawn_in_its_corner) {
  fixture* f = setup(ball_xml);
  draw(f);
  long sum_plain = 0;
  for (int y = 0; y < 25; y++)
    for (int x = 0; x < 60; x++)
      sum_plain += pixel(f, x, y)[1];
  imp_offscreen_bind(f->o);
  imp_render_frame(f->r, f->m, f->d, &f->cam, &f->opt, W, H);
  imp_render_overlay(f->r, IMP_CORNER_TOPLEFT, "time", "1.00");
  imp_offscreen_read_rgb(f->o, f->rgb);
  long sum = 0;
  int white = 0;
  for (int y = 0; y < 25; y++)
    for (int x = 0; x < 60; x++) {
      const unsigned char* q = pixel(f, x, y);
      sum += q[1];
      white += q[0] > 230 && q[1] > 230 && q[2] > 230;
    }
  ck_assert_msg(white > 5, "no white text pixels in the corner");
  ck_assert(sum < sum_plain); /* the translucent panel darkens the corner */
  /* the opposite corner is untouched */
  const unsigned char* q = pixel(f, W - 3, H - 3);
  ck_assert(q[0] < 230 || q[1] < 230);
  teardown(f);
}
END_TEST

/* One geom of every type in a row along x, all red, seen from the front. */
static const char* shapes_xml =
    "<mujoco><compiler meshdir='meshes'/>"
    "<visual><headlight ambient='.3 .3 .3' diffuse='.7 .7 .7' specular='0 0 0'/></visual>"
    "<asset><mesh name='wedge' file='wedge.obj'/></asset>"
    "<default><geom rgba='1 0 0 1'/></default><worldbody>"
    "<geom type='sphere' pos='-1.25 0 0' size='.15'/>"
    "<geom type='capsule' pos='-.75 0 0' size='.1 .15'/>"
    "<geom type='ellipsoid' pos='-.25 0 0' size='.15 .1 .2'/>"
    "<geom type='cylinder' pos='.25 0 0' size='.15 .15'/>"
    "<geom type='box' pos='.75 0 0' size='.15 .15 .15'/>"
    "<geom type='mesh' mesh='wedge' pos='1.25 0 0'/>"
    "</worldbody></mujoco>";

START_TEST(every_geom_type_is_drawn_where_it_projects) {
  fixture* f = setup(shapes_xml);
  f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {0, 0, 0}, 4, 90, -10};
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  for (int g = 0; g < f->m->ngeom; g++) {
    double px[2];
    ck_assert(imp_camera_project(p, W, H, f->d->geom_xpos + 3 * g, px, NULL));
    const unsigned char* q = pixel(f, (int)px[0], (int)px[1]);
    /* red and lit (at least the ambient 0.3), nothing of the bluish sky */
    ck_assert_msg(q[0] > 70 && q[1] < 10 && q[2] < 10, "geom %d (type %d) not drawn: %d %d %d", g,
                  f->m->geom_type[g], q[0], q[1], q[2]);
  }
  teardown(f);
}
END_TEST

/* A floor with MJCF's builtin checker, 1 repeat per metre: squares of 0.5 m. */
static const char* floor_xml =
    "<mujoco><visual><headlight ambient='.3 .3 .3' diffuse='.7 .7 .7' specular='0 0 0'/></visual>"
    "<asset><texture name='grid' type='2d' builtin='checker' width='64' height='64' rgb1='.9 .1 "
    ".1' rgb2='.1 .1 .9'/>"
    "<material name='grid' texture='grid' texrepeat='1 1' texuniform='true' specular='0'/></asset>"
    "<worldbody><geom type='plane' size='3 3 .1' material='grid'/></worldbody></mujoco>";

START_TEST(floor_shows_the_checker_texture) {
  fixture* f = setup(floor_xml);
  f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {.5, .5, 0}, 2, 90, -89};
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  /* square centres: (.25, .25) rgb1, (.75, .25) rgb2, (.75, .75) rgb1 */
  double pts[3][3] = {{.25, .25, 0}, {.75, .25, 0}, {.75, .75, 0}};
  double cols[3][3] = {{.9, .1, .1}, {.1, .1, .9}, {.9, .1, .1}};
  for (int k = 0; k < 3; k++) {
    double px[2], lit[3];
    ck_assert(imp_camera_project(p, W, H, pts[k], px, NULL));
    /* the floor's normal is +z; the headlight shines along the view axis */
    double cosang = fabs(p->forward[2]);
    for (int c = 0; c < 3; c++)
      lit[c] = cols[k][c] * (0.3 + 0.7 * cosang);
    assert_pixel(f, (int)px[0], (int)px[1], lit, 4 / 255.0);
  }
  teardown(f);
}
END_TEST

/* A PNG laid out as MJCF's cross (gridsize 3 4, gridlayout .U..LFRB.D..),
   each face a 2 x 2 square of its own colour: face_rgb[k] for "RLUDFB"[k]. */
static const unsigned char face_rgb[6][3] = {
    {200, 40, 40}, {40, 200, 40}, {230, 230, 60}, {40, 40, 200}, {200, 40, 200}, {40, 200, 200}};

static void write_cross_png(const char* path) {
  static const char layout[] = ".U..LFRB.D..";
  unsigned char img[6 * 8 * 3] = {0};
  for (int y = 0; y < 6; y++)
    for (int x = 0; x < 8; x++) {
      char cell = layout[(y / 2) * 4 + x / 2];
      const char* at = cell != '.' ? strchr("RLUDFB", cell) : NULL;
      if (at) memcpy(img + 3 * (y * 8 + x), face_rgb[at - "RLUDFB"], 3);
    }
  char err[1200] = "";
  ck_assert_msg(imp_image_write_png(path, img, 8, 6, err, sizeof err) == 0, "%s", err);
}

/* A white-material box textured with the cross: seen from straight above it
   shows the up face's colour lit head on (ambient .3 + diffuse .7), from
   straight below the down face's; the material colour alone would be grey. */
START_TEST(cube_texture_puts_its_faces_on_a_box) {
  char png[1024], xml[2048];
  snprintf(png, sizeof png, "%s/render_cube_cross.png", IMP_TEST_TMPDIR);
  write_cross_png(png);
  snprintf(xml, sizeof xml,
           "<mujoco><visual><headlight ambient='.3 .3 .3' diffuse='.7 .7 .7' specular='0 0 0'/>"
           "</visual><asset><texture name='c' type='cube' file='%s' gridsize='3 4' "
           "gridlayout='.U..LFRB.D..'/><material name='c' texture='c' specular='0'/></asset>"
           "<worldbody><geom type='box' size='.3 .3 .3' material='c'/></worldbody></mujoco>",
           png);
  fixture* f = setup(xml);
  f->opt.flags &= ~(unsigned)IMP_VIS_SHADOW;
  double elevation[2] = {-89.9, 89.9};
  int face[2] = {2, 3}; /* up, down */
  for (int k = 0; k < 2; k++) {
    f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {0, 0, 0}, 2, 90, elevation[k]};
    draw(f);
    double lit[3];
    for (int c = 0; c < 3; c++) lit[c] = face_rgb[face[k]][c] / 255.0;
    assert_pixel(f, W / 2, H / 2, lit, 4 / 255.0);
  }
  teardown(f);
}
END_TEST

/* An OBJ square (x, z in [-1, 1], facing the camera at -y) textured by its
   file's texture coordinates with a picture of four coloured quarters: the
   picture appears upright and unmirrored, its top-left quarter at the
   square's top left (OBJ's v runs up from the picture's bottom row). */
static const unsigned char quarter_rgb[4][3] = {
    {220, 30, 30}, {30, 220, 30}, {30, 30, 220}, {220, 220, 30}}; /* TL TR BL BR */

START_TEST(obj_texture_coordinates_place_the_picture) {
  char png[1024], obj[1024], xml[4096];
  snprintf(png, sizeof png, "%s/render_quarters.png", IMP_TEST_TMPDIR);
  snprintf(obj, sizeof obj, "%s/render_square.obj", IMP_TEST_TMPDIR);
  unsigned char img[8 * 8 * 3];
  for (int y = 0; y < 8; y++) /* rows from the top, as PNG stores them */
    for (int x = 0; x < 8; x++) memcpy(img + 3 * (8 * y + x), quarter_rgb[2 * (y >= 4) + (x >= 4)], 3);
  char err[1200] = "";
  ck_assert_msg(imp_image_write_png(png, img, 8, 8, err, sizeof err) == 0, "%s", err);
  FILE* fo = fopen(obj, "w");
  ck_assert(fo != NULL);
  fputs("v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
        "f 1/1 2/2 3/3 4/4\n", fo);
  fclose(fo);
  snprintf(xml, sizeof xml,
           "<mujoco><visual><headlight ambient='.3 .3 .3' diffuse='.7 .7 .7' specular='0 0 0'/>"
           "</visual><asset><texture name='q' type='2d' file='%s'/><material name='q' "
           "texture='q' specular='0'/><mesh name='sq' file='%s'/></asset><worldbody>"
           "<geom type='mesh' mesh='sq' material='q' density='0'/></worldbody></mujoco>",
           png, obj);
  fixture* f = setup(xml);
  f->opt.flags &= ~(unsigned)IMP_VIS_SHADOW;
  f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {0, 0, 0}, 3, 90, 0}; /* from -y, z up */
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  double pts[4][3] = {{-.5, 0, .5}, {.5, 0, .5}, {-.5, 0, -.5}, {.5, 0, -.5}};
  for (int k = 0; k < 4; k++) {
    double px[2];
    ck_assert(imp_camera_project(p, W, H, pts[k], px, NULL));
    const unsigned char* c = pixel(f, (int)px[0], (int)px[1]);
    /* the quarter's colour, lit: its strong channels above 120, the weak below 60 */
    for (int i = 0; i < 3; i++)
      ck_assert_msg(quarter_rgb[k][i] > 100 ? c[i] > 120 : c[i] < 60,
                    "quarter %d at (%d, %d): (%d %d %d)", k, (int)px[0], (int)px[1], c[0], c[1],
                    c[2]);
  }
  teardown(f);
}
END_TEST

/* A skybox from the same file: looking straight up the background is the
   up face's colour, straight down the down face's, unlit. */
START_TEST(skybox_file_is_the_background) {
  char png[1024], xml[2048];
  snprintf(png, sizeof png, "%s/render_sky_cross.png", IMP_TEST_TMPDIR);
  write_cross_png(png);
  snprintf(xml, sizeof xml,
           "<mujoco><asset><texture type='skybox' file='%s' gridsize='3 4' "
           "gridlayout='.U..LFRB.D..'/></asset><worldbody/></mujoco>",
           png);
  fixture* f = setup(xml);
  double elevation[2] = {89.9, -89.9};
  int face[2] = {2, 3};
  for (int k = 0; k < 2; k++) {
    f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {0, 0, 0}, 2, 90, elevation[k]};
    draw(f);
    double rgb[3];
    for (int c = 0; c < 3; c++) rgb[c] = face_rgb[face[k]][c] / 255.0;
    assert_pixel(f, W / 2, H / 2, rgb, 2 / 255.0);
  }
  teardown(f);
}
END_TEST

START_TEST(selection_glows_and_transparency_blends) {
  fixture* f = setup(ball_xml);
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  double centre[3] = {.3, 0, 0}, px[2];
  imp_camera_project(p, W, H, centre, px, NULL);
  int x = (int)px[0], y = (int)px[1];
  unsigned char plain[3];
  memcpy(plain, pixel(f, x, y), 3);
  /* selected: brighter in every channel that is not saturated */
  f->opt.selected_body = imp_test_id(f->m, IMP_OBJ_BODY, "ball");
  draw(f);
  const unsigned char* q = pixel(f, x, y);
  ck_assert(q[0] > plain[0] + 20 && q[1] > plain[1] + 10);
  /* transparent at alpha 0.5: half the lit colour over half the sky behind.
     The sky there: the same pixel with the sphere hidden (group 3) */
  f->opt.selected_body = -1;
  f->opt.geomgroup = 0;
  draw(f);
  unsigned char sky[3];
  memcpy(sky, pixel(f, x, y), 3);
  f->opt.geomgroup = 0x7;
  f->opt.flags |= IMP_VIS_TRANSPARENT;
  f->opt.alpha = 0.5f;
  draw(f);
  double mix[3];
  for (int k = 0; k < 3; k++)
    mix[k] = (0.5 * plain[k] + 0.5 * sky[k]) / 255.0;
  assert_pixel(f, x, y, mix, 3 / 255.0);
  teardown(f);
}
END_TEST

/* A sphere above a floor under a directional light straight down: its
   shadow falls on the floor right below it. */
static const char* shadow_xml =
    "<mujoco><visual><headlight ambient='.2 .2 .2' diffuse='.3 .3 .3' specular='0 0 0'/></visual>"
    "<worldbody><light pos='0 0 3' dir='0 0 -1' directional='true' diffuse='.6 .6 .6'/>"
    "<geom type='plane' size='2 2 .1' rgba='.5 .5 .5 1'/>"
    "<body pos='0 0 .5'><geom type='sphere' size='.2' rgba='.2 .6 .2 1'/></body>"
    "</worldbody></mujoco>";

/* Sum of the three channels at pixel (x, y). */
static int brightness(const fixture* f, int x, int y) {
  const unsigned char* p = pixel(f, x, y);
  return p[0] + p[1] + p[2];
}

START_TEST(shadows_darken_the_floor_only_when_on) {
  fixture* f = setup(shadow_xml);
  f->cam = (imp_camera){IMP_CAMERA_FREE, -1, -1, {0, 0, 0}, 3, 90, -60};
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  /* the floor right below the ball: the camera looks down from -y, so the
     ball appears above that point, not over it */
  double under[3] = {0, 0, 0}, away[3] = {1.2, 0.8, 0}, px[2], qx[2];
  imp_camera_project(p, W, H, under, px, NULL);
  imp_camera_project(p, W, H, away, qx, NULL);
  int ux = (int)px[0], uy = (int)px[1], ax = (int)qx[0], ay = (int)qx[1];
  int shadowed = brightness(f, ux, uy), lit_far = brightness(f, ax, ay);
  f->opt.flags &= ~(unsigned)IMP_VIS_SHADOW;
  draw(f);
  int unshadowed = brightness(f, ux, uy);
  /* the light's diffuse .6 on a .5 floor is 77 levels a channel: most of it goes */
  ck_assert_msg(unshadowed - shadowed > 3 * 50, "under the ball: %d with shadows, %d without",
                shadowed, unshadowed);
  ck_assert_int_le(abs(brightness(f, ax, ay) - lit_far), 3); /* away from it, no change */
  teardown(f);
}
END_TEST

/* The ball drawn into a framebuffer of the given samples, multisampling on or off. */
static void draw_samples(fixture* f, int samples, int multisample, unsigned char* rgb) {
  char err[1000] = "";
  imp_offscreen* o = imp_offscreen_make_samples(W, H, IMP_GL_AUTO, samples, err, sizeof err);
  ck_assert_msg(o != NULL, "%s", err);
  imp_renderer* r = imp_render_make(f->m, err, sizeof err);
  ck_assert_msg(r != NULL, "%s", err);
  if (samples >= 4) ck_assert_int_ge(imp_offscreen_samples(o), 2);
  if (samples <= 1) ck_assert_int_eq(imp_offscreen_samples(o), 0);
  f->opt.multisample = multisample;
  imp_offscreen_bind(o);
  imp_render_frame(r, f->m, f->d, &f->cam, &f->opt, W, H);
  imp_offscreen_read_rgb(o, rgb);
  imp_render_free(r);
  imp_offscreen_free(o);
}

START_TEST(multisampling_smooths_edges_and_can_be_turned_off) {
  fixture* f = setup(ball_xml);
  static unsigned char one[W * H * 3], off[W * H * 3], on[W * H * 3];
  draw_samples(f, 0, 1, one);
  draw_samples(f, 4, 0, off);
  draw_samples(f, 4, 1, on);
  /* multisampling off on a 4x framebuffer: every sample of a pixel gets
     the pixel centre's colour, the single-sampled image */
  int differ_off = 0, differ_on = 0;
  for (int i = 0; i < W * H * 3; i++) {
    differ_off += abs(one[i] - off[i]) > 1;
    differ_on += one[i] != on[i];
  }
  ck_assert_int_eq(differ_off, 0);
  /* on: the sphere's outline (about 2 pi 0.2 / (2 tan 45deg) * H = 300
     pixels) is blended with the sky, the inside and the sky are not */
  ck_assert_msg(differ_on > 50 && differ_on < 3000, "%d channels differ", differ_on);
  teardown(f);
}
END_TEST

START_TEST(missing_texture_file_is_an_error_naming_it) {
  char err[1000] = "";
  imp_offscreen* o = imp_offscreen_make(16, 16, IMP_GL_AUTO, err, sizeof err);
  ck_assert_msg(o != NULL, "%s", err);
  imp_model* m = imp_test_load_string(
      "<mujoco><asset><texture name='t' type='2d' file='no/such/texture.png'/>"
      "<material name='m' texture='t'/></asset><worldbody><geom size='.1' "
      "material='m'/></worldbody></mujoco>");
  ck_assert_ptr_null(imp_render_make(m, err, sizeof err));
  ck_assert_msg(strstr(err, "no/such/texture.png") != NULL, "message: %s", err);
  imp_free_model(m);
  imp_offscreen_free(o);
}
END_TEST

/* MJCF camera modes: trackcom keeps its qpos0 orientation and its offset
   from the centre of mass while the body falls and spins. */
START_TEST(trackcom_camera_follows_without_turning) {
  fixture* f = setup(
      "<mujoco><option gravity='0 0 -9.81'/><worldbody><body name='b' pos='0 0 2'><freejoint/>"
      "<geom type='box' size='.1 .2 .3'/>"
      "<camera name='c' mode='trackcom' pos='0 -2 .5' xyaxes='1 0 0 0 0 1'/></body>"
      "</worldbody></mujoco>");
  f->cam.type = IMP_CAMERA_FIXED;
  f->cam.fixedcamid = 0;
  draw(f);
  imp_camera_pose p0 = *imp_render_pose(f->r);
  double fwd[3] = {0, 1, 0}, off0[3];
  imp_assert_vec_near(p0.forward, fwd, 3, 1e-12);
  for (int k = 0; k < 3; k++) off0[k] = p0.pos[k] - f->d->subtree_com[3 + k];
  f->d->qvel[3] = 3, f->d->qvel[4] = 4, f->d->qvel[5] = 5; /* spin */
  for (int i = 0; i < 100; i++) imp_step(f->m, f->d);
  ck_assert(f->d->subtree_com[5] < 2 - 0.1); /* it fell */
  draw(f);
  const imp_camera_pose* p = imp_render_pose(f->r);
  imp_assert_vec_near(p->forward, fwd, 3, 1e-12);
  for (int k = 0; k < 3; k++) imp_assert_near(p->pos[k] - f->d->subtree_com[3 + k], off0[k], 1e-12);
  teardown(f);
}
END_TEST

int main(void) {
  Suite* s = suite_create("render");
  TCase* tc = tcase_create("render");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, background_is_the_skybox_gradient);
  tcase_add_test(tc, sphere_shows_its_lit_colour_where_it_projects);
  tcase_add_test(tc, contact_force_arrows_only_when_asked);
  tcase_add_test(tc, picking_finds_the_body_under_the_pixel);
  tcase_add_test(tc, overlay_text_is_drawn_in_its_corner);
  tcase_add_test(tc, every_geom_type_is_drawn_where_it_projects);
  tcase_add_test(tc, floor_shows_the_checker_texture);
  tcase_add_test(tc, selection_glows_and_transparency_blends);
  tcase_add_test(tc, missing_texture_file_is_an_error_naming_it);
  tcase_add_test(tc, trackcom_camera_follows_without_turning);
  tcase_add_test(tc, cube_texture_puts_its_faces_on_a_box);
  tcase_add_test(tc, skybox_file_is_the_background);
  tcase_add_test(tc, shadows_darken_the_floor_only_when_on);
  tcase_add_test(tc, obj_texture_coordinates_place_the_picture);
  tcase_add_test(tc, multisampling_smooths_edges_and_can_be_turned_off);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
