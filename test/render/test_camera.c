/* Camera and projection math (render/camera.c), no OpenGL: where the eye
   is, where a world point lands in the image, the ray through a pixel, and
   what mouse moves do. Expected values are worked out by hand from the
   definitions (MuJoCo's azimuth/elevation, the pinhole projection). */
#include <math.h>

#include "camera.h"
#include "test_util.h"

static const double pi = 3.14159265358979323846;

static const char* cam_model =
    "<mujoco><visual><global fovy='60'/></visual><worldbody>"
    "<geom type='sphere' size='.1'/>"
    "<camera name='side' pos='0 -3 1' xyaxes='1 0 0 0 0 1'/>"
    "<body name='ball' pos='1 2 3'><freejoint/><geom type='sphere' size='.1'/></body>"
    "</worldbody></mujoco>";

/* A free camera with every parameter set by the test. */
static imp_camera free_camera(double az, double el, double dist) {
  imp_camera c = {IMP_CAMERA_FREE, -1, -1, {0.5, -0.25, 1.0}, dist, az, el};
  return c;
}

START_TEST(free_camera_eye_follows_azimuth_and_elevation) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_camera c = free_camera(90, -45, 2);
  imp_camera_pose p;
  imp_camera_pose_compute(m, d, &c, &p);
  /* azimuth 90 looks along +y, elevation -45 looks down: the eye is behind
     (-y) and above the lookat by 2 cos 45 each */
  double h = 2 * sqrt(0.5);
  double eye[3] = {0.5, -0.25 - h, 1.0 + h}, fwd[3] = {0, sqrt(0.5), -sqrt(0.5)};
  imp_assert_vec_near(p.pos, eye, 3, 1e-12);
  imp_assert_vec_near(p.forward, fwd, 3, 1e-12);
  /* the horizon is level: right is horizontal, up has a positive z */
  double right[3] = {1, 0, 0};
  imp_assert_vec_near(p.right, right, 3, 1e-12);
  ck_assert(p.up[2] > 0);
  imp_assert_near(p.fovy, 60, 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(default_camera_frames_the_model) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_camera c;
  imp_camera_default(m, &c);
  ck_assert_int_eq(c.type, IMP_CAMERA_FREE);
  imp_assert_near(c.azimuth, 90, 0);
  imp_assert_near(c.elevation, -45, 0);
  imp_assert_near(c.distance, 1.5 * m->extent, 1e-12);
  /* the model spans x in [-.1, 1.1], y [-3, 2.1], z [-.1, 3.1] (spheres and the camera site aside)
   */
  ck_assert(c.lookat[1] > -3 && c.lookat[1] < 2.1);
  imp_assert_near(c.lookat[0], m->center[0], 0);
  imp_free_model(m);
}
END_TEST

/* <statistic> and <visual><global> place the default free camera as
   MuJoCo's mjv_defaultFreeCamera does: lookat = center, distance = 1.5
   extent, the file's azimuth and elevation. */
START_TEST(default_camera_follows_statistic_and_visual_global) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><statistic center='0.3 0 0.4' extent='0.8'/>"
      "<visual><global azimuth='120' elevation='-20'/></visual><worldbody>"
      "<geom type='plane' size='100 100 1'/><body pos='5 5 5'><geom size='.1'/></body>"
      "</worldbody></mujoco>");
  imp_camera c;
  imp_camera_default(m, &c);
  double lookat[3] = {0.3, 0, 0.4};
  imp_assert_vec_near(c.lookat, lookat, 3, 0);
  imp_assert_near(c.distance, 1.2, 1e-15);
  imp_assert_near(c.azimuth, 120, 0);
  imp_assert_near(c.elevation, -20, 0);
  imp_free_model(m);
  /* without them: the bodies' box, not the floor's (the sphere at 5 5 5) */
  m = imp_test_load_string_nowarn("<mujoco><worldbody><geom type='plane' size='100 100 1'/>"
                                  "<body pos='5 5 5'><geom size='.1'/></body></worldbody></mujoco>");
  imp_camera_default(m, &c);
  double ball[3] = {5, 5, 5};
  imp_assert_vec_near(c.lookat, ball, 3, 1e-15);
  imp_assert_near(c.distance, 1.5 * 0.2, 1e-14);
  imp_free_model(m);
}
END_TEST

START_TEST(projection_puts_points_where_a_pinhole_would) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_camera c = free_camera(30, -20, 3);
  imp_camera_pose p;
  imp_camera_pose_compute(m, d, &c, &p);
  int W = 400, H = 300;
  double px[2], depth;
  /* the lookat is at the image centre, at depth = distance */
  ck_assert(imp_camera_project(&p, W, H, c.lookat, px, &depth));
  imp_assert_near(px[0], 200, 1e-9);
  imp_assert_near(px[1], 150, 1e-9);
  imp_assert_near(depth, 3, 1e-12);
  /* a point up from the lookat by distance * tan(fovy / 2) along the image's
     up is on the top edge; along right by aspect times that, the right edge */
  double t = 3 * tan(30 * pi / 180), q[3];
  for (int i = 0; i < 3; i++)
    q[i] = c.lookat[i] + t * p.up[i];
  imp_camera_project(&p, W, H, q, px, NULL);
  imp_assert_near(px[0], 200, 1e-9);
  imp_assert_near(px[1], 0, 1e-9);
  for (int i = 0; i < 3; i++)
    q[i] = c.lookat[i] + (4.0 / 3.0) * t * p.right[i];
  imp_camera_project(&p, W, H, q, px, NULL);
  imp_assert_near(px[0], 400, 1e-9);
  imp_assert_near(px[1], 150, 1e-9);
  /* behind the eye: not projected */
  for (int i = 0; i < 3; i++)
    q[i] = p.pos[i] - p.forward[i];
  ck_assert(!imp_camera_project(&p, W, H, q, px, NULL));
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(ray_through_a_pixel_projects_back_to_it) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_camera c = free_camera(-120, 35, 5);
  imp_camera_pose p;
  imp_camera_pose_compute(m, d, &c, &p);
  double pix[4][2] = {{0.5, 0.5}, {639.5, 10}, {123.25, 470}, {320, 240}};
  for (int k = 0; k < 4; k++) {
    double o[3], dir[3], q[3], back[2];
    imp_camera_ray(&p, 640, 480, pix[k][0], pix[k][1], o, dir);
    imp_assert_near(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2], 1, 1e-12);
    for (int i = 0; i < 3; i++)
      q[i] = o[i] + 7.5 * dir[i];
    ck_assert(imp_camera_project(&p, 640, 480, q, back, NULL));
    imp_assert_vec_near(back, pix[k], 2, 1e-9);
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Column-major matrix times a point (w = 1). */
static void mat_apply(const float* M, const double* p, double out[4]) {
  for (int r = 0; r < 4; r++)
    out[r] = M[r] * p[0] + M[4 + r] * p[1] + M[8 + r] * p[2] + M[12 + r];
}

START_TEST(gl_matrices_agree_with_the_projection) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_camera c = free_camera(200, -10, 4);
  imp_camera_pose p;
  imp_camera_pose_compute(m, d, &c, &p);
  float V[16], P[16];
  imp_camera_view_matrix(&p, V);
  imp_camera_projection_matrix(&p, 640.0 / 480.0, P);
  /* the eye maps to the origin, the lookat to (0, 0, -distance) */
  double e[4], l[4], zero[3] = {0, 0, 0}, ahead[3] = {0, 0, -4};
  mat_apply(V, p.pos, e);
  mat_apply(V, c.lookat, l);
  imp_assert_vec_near(e, zero, 3, 1e-5);
  imp_assert_vec_near(l, ahead, 3, 1e-5);
  /* a world point: clip -> NDC -> pixels equals imp_camera_project */
  double q[3] = {0.9, 0.3, 0.2}, v[4], clip[4], px[2];
  mat_apply(V, q, v);
  mat_apply(P, v, clip);
  ck_assert(imp_camera_project(&p, 640, 480, q, px, NULL));
  imp_assert_near(0.5 * (clip[0] / clip[3] + 1) * 640, px[0], 1e-3);
  imp_assert_near(0.5 * (1 - clip[1] / clip[3]) * 480, px[1], 1e-3);
  /* depth: the near plane maps to -1, the far plane to +1 */
  double n[3], f[3], cn[4], cf[4], vn[4], vf[4];
  for (int i = 0; i < 3; i++)
    n[i] = p.pos[i] + p.znear * p.forward[i], f[i] = p.pos[i] + p.zfar * p.forward[i];
  mat_apply(V, n, vn), mat_apply(P, vn, cn);
  mat_apply(V, f, vf), mat_apply(P, vf, cf);
  imp_assert_near(cn[2] / cn[3], -1, 1e-4);
  imp_assert_near(cf[2] / cf[3], 1, 1e-4);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(fixed_camera_uses_the_model_camera) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_camera c = free_camera(0, 0, 1);
  c.type = IMP_CAMERA_FIXED;
  c.fixedcamid = imp_test_id(m, IMP_OBJ_CAMERA, "side");
  imp_camera_pose p;
  imp_camera_pose_compute(m, d, &c, &p);
  /* xyaxes 1 0 0 / 0 0 1: x right, z up, so it looks along +y */
  double pos[3] = {0, -3, 1}, fwd[3] = {0, 1, 0}, up[3] = {0, 0, 1};
  imp_assert_vec_near(p.pos, pos, 3, 1e-12);
  imp_assert_vec_near(p.forward, fwd, 3, 1e-12);
  imp_assert_vec_near(p.up, up, 3, 1e-12);
  imp_assert_near(p.fovy, 45, 1e-12); /* MJCF's camera default */
  /* mouse moves leave a fixed camera alone */
  imp_camera before = c;
  imp_camera_move(&c, IMP_CAMERA_ORBIT, 0.3, 0.2, &p);
  imp_assert_near(c.azimuth, before.azimuth, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(tracking_camera_follows_the_body) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_camera c = free_camera(90, -30, 2);
  c.type = IMP_CAMERA_TRACKING;
  c.trackbodyid = imp_test_id(m, IMP_OBJ_BODY, "ball");
  imp_camera_pose p;
  imp_camera_pose_compute(m, d, &c, &p);
  double ball[3] = {1, 2, 3};
  imp_assert_vec_near(c.lookat, ball, 3, 1e-12);
  for (int i = 0; i < 100; i++)
    imp_step(m, d); /* it falls */
  imp_camera_pose_compute(m, d, &c, &p);
  imp_assert_near(c.lookat[2], d->xipos[3 * c.trackbodyid + 2], 1e-12);
  ck_assert(c.lookat[2] < 3 - 0.1);
  /* the eye keeps its offset from the body */
  imp_assert_near(p.pos[2] - c.lookat[2], 2 * sin(30 * pi / 180), 1e-12);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(mouse_moves_follow_mujoco_conventions) {
  imp_model* m = imp_test_load_string(cam_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  imp_camera c = free_camera(90, -20, 3);
  imp_camera_pose p;
  imp_camera_pose_compute(m, d, &c, &p);
  /* orbit: half a turn per window height */
  imp_camera_move(&c, IMP_CAMERA_ORBIT, 0.5, 0.1, &p);
  imp_assert_near(c.azimuth, 0, 1e-12);
  imp_assert_near(c.elevation, -38, 1e-12);
  imp_camera_move(&c, IMP_CAMERA_ORBIT, 0, -10, &p); /* clamped short of straight up */
  ck_assert(c.elevation < 90 && c.elevation > 89);
  /* pan: the point under the mouse moves with it */
  c = free_camera(90, -20, 3);
  imp_camera_pose_compute(m, d, &c, &p);
  double anchor[3] = {c.lookat[0], c.lookat[1], c.lookat[2]}, px[2];
  imp_camera_move(&c, IMP_CAMERA_PAN_V, 0.1, -0.05, &p);
  imp_camera_pose_compute(m, d, &c, &p);
  imp_camera_project(&p, 600, 400, anchor, px, NULL);
  imp_assert_near(px[0], 300 + 0.1 * 400, 1e-9);
  imp_assert_near(px[1], 200 - 0.05 * 400, 1e-9);
  /* zoom in (scroll up) comes closer; equal steps scale equally */
  double d0 = c.distance;
  imp_camera_move(&c, IMP_CAMERA_ZOOM, 0, 0.05, &p);
  double d1 = c.distance;
  imp_camera_move(&c, IMP_CAMERA_ZOOM, 0, 0.05, &p);
  ck_assert(d1 < d0);
  imp_assert_near(d1 / d0, c.distance / d1, 1e-12);
  /* centring on a point */
  double q[3] = {4, 5, 6};
  imp_camera_lookat(&c, q);
  imp_assert_vec_near(c.lookat, q, 3, 0);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* A camera with a sensor (MJCF sensorsize, focal, principal; MuJoCo 3.x):
   6.4 x 4.8 mm at 320 x 240 pixels (20 um pixels), focal lengths 6 and 5 mm
   (300 and 250 pixels), principal point offset 1.5 and 0.8 mm (75 and 40
   pixels). Its twin gives the same in pixels. */
static const char* sensor_model =
    "<mujoco><worldbody><geom type='sphere' size='.1'/>"
    "<camera name='mm' pos='0 -3 1' xyaxes='1 0 0 0 0 1' resolution='320 240'"
    " sensorsize='0.0064 0.0048' focal='0.006 0.005' principal='0.0015 0.0008'/>"
    "<camera name='px' pos='0 -3 1' xyaxes='1 0 0 0 0 1' resolution='320 240'"
    " sensorsize='0.0064 0.0048' focalpixel='300 250' principalpixel='75 40'/>"
    "</worldbody></mujoco>";

/* The pixel of camera-frame point (x right, y up, z ahead) in a W x H image
   of the camera above: the pinhole formula u = fx X/Z + cx, v = fy Y/Z + cy
   in image coordinates (X right, Y down), with MuJoCo's principal point
   (cx, cy) = (W/2 - 75, H/2 - 40) pixels of the 320 x 240 sensor (see
   render/camera.c), all scaled to W x H. */
static void pinhole_pixel(double x, double y, double z, int W, int H, double px[2]) {
  double fx = 300, fy = 250, cx = 160 - 75, cy = 120 - 40;
  px[0] = (fx * x / z + cx) * W / 320.0;
  px[1] = (fy * (-y) / z + cy) * H / 240.0;
}

START_TEST(sensor_camera_projects_as_a_pinhole) {
  imp_model* m = imp_test_load_string_nowarn(sensor_model);
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  static const double pts[3][3] = {{0.4, -0.3, 2}, {-1.1, 0.6, 5}, {0, 0, 1}};
  static const int sizes[3][2] = {{320, 240}, {640, 480}, {400, 400}};
  for (int cam = 0; cam < 2; cam++) {
    imp_camera c = free_camera(0, 0, 1);
    c.type = IMP_CAMERA_FIXED;
    c.fixedcamid = cam;
    imp_camera_pose p;
    imp_camera_pose_compute(m, d, &c, &p);
    ck_assert_int_eq(p.has_window, 1);
    /* fovy from the sensor height and focal y: 2 atan(2.4 / 5) */
    imp_assert_near(p.fovy, 2 * atan(2.4 / 5) * 180 / pi, 1e-12);
    for (int s = 0; s < 3; s++) {
      int W = sizes[s][0], H = sizes[s][1];
      float V[16], P[16];
      imp_camera_view_matrix(&p, V);
      imp_camera_projection_matrix(&p, (double)W / H, P);
      for (int k = 0; k < 3; k++) {
        const double* e = pts[k]; /* right, up, ahead: the camera looks along +y */
        double q[3] = {e[0], -3 + e[2], 1 + e[1]}, want[2], got[2], depth;
        pinhole_pixel(e[0], e[1], e[2], W, H, want);
        ck_assert(imp_camera_project(&p, W, H, q, got, &depth));
        imp_assert_near(depth, e[2], 1e-12);
        imp_assert_vec_near(got, want, 2, 1e-9);
        /* the GL matrices put it on the same pixel (float precision) */
        double v[4], clip[4];
        mat_apply(V, q, v);
        mat_apply(P, v, clip);
        imp_assert_near(0.5 * (clip[0] / clip[3] + 1) * W, want[0], 2e-3 * W / 320);
        imp_assert_near(0.5 * (1 - clip[1] / clip[3]) * H, want[1], 2e-3 * H / 240);
        /* and the ray through that pixel passes through the point */
        double o[3], dir[3], to[3];
        imp_camera_ray(&p, W, H, want[0], want[1], o, dir);
        double n = sqrt((q[0] - o[0]) * (q[0] - o[0]) + (q[1] - o[1]) * (q[1] - o[1]) +
                        (q[2] - o[2]) * (q[2] - o[2]));
        for (int i = 0; i < 3; i++) to[i] = (q[i] - o[i]) / n;
        imp_assert_vec_near(dir, to, 3, 1e-12);
      }
    }
  }
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("camera");
  TCase* tc = tcase_create("camera");
  tcase_add_test(tc, free_camera_eye_follows_azimuth_and_elevation);
  tcase_add_test(tc, default_camera_frames_the_model);
  tcase_add_test(tc, default_camera_follows_statistic_and_visual_global);
  tcase_add_test(tc, projection_puts_points_where_a_pinhole_would);
  tcase_add_test(tc, ray_through_a_pixel_projects_back_to_it);
  tcase_add_test(tc, gl_matrices_agree_with_the_projection);
  tcase_add_test(tc, fixed_camera_uses_the_model_camera);
  tcase_add_test(tc, sensor_camera_projects_as_a_pinhole);
  tcase_add_test(tc, tracking_camera_follows_the_body);
  tcase_add_test(tc, mouse_moves_follow_mujoco_conventions);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
