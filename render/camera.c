/* Camera math; see camera.h.
 *
 * Free camera (MuJoCo's convention): with azimuth a and elevation e the
 * viewing direction is f = (cos e cos a, cos e sin a, sin e) and the eye is
 * lookat - distance * f. The image's right is f x z normalized and up is
 * right x f, so the horizon stays level.
 *
 * Projection (the standard OpenGL perspective frustum): with
 * s = 1 / tan(fovy / 2), an eye-space point (x right, y up, z along f)
 * maps to normalized device coordinates (s x / (aspect z), s y / z), and
 * those to pixels by x_pix = (ndc_x + 1) W / 2, y_pix = (1 - ndc_y) H / 2.
 *
 * A model camera with a sensor (MJCF sensorsize, focal, principal) is a
 * pinhole camera instead: with focal lengths fx, fy, sensor size w, h and
 * principal point offset cx, cy (length units, cam_intrinsic), the image
 * spans x from -(w/2 - cx)/fx to (w/2 + cx)/fx and y from -(h/2 + cy)/fy to
 * (h/2 - cy)/fy on the plane at unit distance, the frustum MuJoCo's renderer
 * draws (engine_vis_visualize.c, with the vertical bounds as fixed in
 * MuJoCo 3.6, google-deepmind/mujoco#3150). In pixels of a W x H image of
 * that camera, with fx_p = fx W / w and the principal point
 * (u0, v0) = (W/2 - cx W / w, H/2 - cy H / h), an eye-space point at depth z
 * lands at (u0 + fx_p x / z, v0 - fy_p y / z): the pinhole formula with
 * image y down. A general frustum maps a point at (x/z, y/z) on that plane
 * to ndc ((2 x/z - (R + L)) / (R - L), (2 y/z - (T + B)) / (T - B)). */
#include "camera.h"

#include <math.h>
#include <string.h>

static const double deg = 3.14159265358979323846 / 180.0;

static double dot3(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(double* r, const double* a, const double* b) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

/* Normalize v; a zero vector becomes fallback. */
static void normalize3(double* v, const double* fallback) {
  double n = sqrt(dot3(v, v));
  if (n < 1e-12) {
    memcpy(v, fallback, 3 * sizeof(double));
    return;
  }
  for (int i = 0; i < 3; i++)
    v[i] /= n;
}

void imp_camera_default(const imp_model* m, imp_camera* cam) {
  memset(cam, 0, sizeof *cam);
  cam->type = IMP_CAMERA_FREE;
  cam->fixedcamid = cam->trackbodyid = -1;
  memcpy(cam->lookat, m->center, sizeof cam->lookat);
  cam->distance = 1.5 * m->extent;
  cam->azimuth = m->vis.azimuth;
  cam->elevation = m->vis.elevation;
}

/* The viewing direction of azimuth az and elevation el (degrees). */
static void orbit_forward(double az, double el, double f[3]) {
  f[0] = cos(el * deg) * cos(az * deg);
  f[1] = cos(el * deg) * sin(az * deg);
  f[2] = sin(el * deg);
}

/* right = f x z, up = right x f; looking straight up or down keeps +y as up. */
static void level_frame(imp_camera_pose* p) {
  static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  cross3(p->right, p->forward, z);
  normalize3(p->right, x);
  cross3(p->up, p->right, p->forward);
}

static void orbit_pose(const imp_camera* cam, imp_camera_pose* p) {
  orbit_forward(cam->azimuth, cam->elevation, p->forward);
  for (int i = 0; i < 3; i++)
    p->pos[i] = cam->lookat[i] - cam->distance * p->forward[i];
  level_frame(p);
}

/* A model camera: its x axis is right, y up and it looks along -z
   (columns of the row-major cam_xmat). */
static void fixed_pose(const imp_data* d, int id, imp_camera_pose* p) {
  const double* R = d->cam_xmat + 9 * id;
  memcpy(p->pos, d->cam_xpos + 3 * id, sizeof p->pos);
  for (int i = 0; i < 3; i++) {
    p->right[i] = R[3 * i + 0];
    p->up[i] = R[3 * i + 1];
    p->forward[i] = -R[3 * i + 2];
  }
}

/* The window of model camera id when it has a sensor (see the top). */
static int sensor_window(const imp_model* m, int id, double w[4]) {
  const double* size = m->cam_sensorsize + 2 * id;
  const double* k = m->cam_intrinsic + 4 * id; /* fx, fy, cx, cy */
  if (!(size[0] > 0 && size[1] > 0 && k[0] > 0 && k[1] > 0)) return 0;
  w[0] = -(0.5 * size[0] - k[2]) / k[0];
  w[1] = (0.5 * size[0] + k[2]) / k[0];
  w[2] = -(0.5 * size[1] + k[3]) / k[1];
  w[3] = (0.5 * size[1] - k[3]) / k[1];
  return 1;
}

void imp_camera_pose_compute(const imp_model* m, const imp_data* d, imp_camera* cam,
                             imp_camera_pose* pose) {
  pose->fovy = m->vis.fovy;
  pose->znear = m->vis.znear * m->extent;
  pose->zfar = m->vis.zfar * m->extent;
  pose->has_window = 0;
  if (cam->type == IMP_CAMERA_FIXED && cam->fixedcamid >= 0 && cam->fixedcamid < m->ncam) {
    fixed_pose(d, cam->fixedcamid, pose);
    pose->fovy = m->cam_fovy[cam->fixedcamid];
    pose->has_window = sensor_window(m, cam->fixedcamid, pose->window);
    return;
  }
  if (cam->type == IMP_CAMERA_TRACKING && cam->trackbodyid >= 0 && cam->trackbodyid < m->nbody)
    memcpy(cam->lookat, d->subtree_com + 3 * cam->trackbodyid, sizeof cam->lookat);
  orbit_pose(cam, pose);
}

void imp_camera_view_matrix(const imp_camera_pose* p, float v[16]) {
  /* rows: right, up, -forward; translation -R pos (column-major storage) */
  const double* rows[3] = {p->right, p->up, p->forward};
  for (int r = 0; r < 3; r++) {
    double sign = r == 2 ? -1 : 1;
    for (int c = 0; c < 3; c++)
      v[4 * c + r] = (float)(sign * rows[r][c]);
    v[12 + r] = (float)(-sign * dot3(rows[r], p->pos));
  }
  v[3] = v[7] = v[11] = 0;
  v[15] = 1;
}

void imp_camera_window(const imp_camera_pose* p, double aspect, double w[4]) {
  if (p->has_window) {
    memcpy(w, p->window, 4 * sizeof(double));
    return;
  }
  double t = tan(0.5 * p->fovy * deg);
  w[0] = -aspect * t;
  w[1] = aspect * t;
  w[2] = -t;
  w[3] = t;
}

void imp_camera_projection_matrix(const imp_camera_pose* p, double aspect, float m[16]) {
  double s = 1 / tan(0.5 * p->fovy * deg), n = p->znear, f = p->zfar;
  memset(m, 0, 16 * sizeof(float));
  if (p->has_window) { /* glFrustum of the window scaled to the near plane */
    const double* w = p->window;
    m[0] = (float)(2 / (w[1] - w[0]));
    m[5] = (float)(2 / (w[3] - w[2]));
    m[8] = (float)((w[1] + w[0]) / (w[1] - w[0]));
    m[9] = (float)((w[3] + w[2]) / (w[3] - w[2]));
    m[10] = (float)(-(f + n) / (f - n));
    m[11] = -1;
    m[14] = (float)(-2 * f * n / (f - n));
    return;
  }
  m[0] = (float)(s / aspect);
  m[5] = (float)s;
  m[10] = (float)(-(f + n) / (f - n));
  m[11] = -1;
  m[14] = (float)(-2 * f * n / (f - n));
}

int imp_camera_project(const imp_camera_pose* p, int width, int height, const double w[3],
                       double pixel[2], double* depth) {
  double v[3] = {w[0] - p->pos[0], w[1] - p->pos[1], w[2] - p->pos[2]};
  double z = dot3(v, p->forward), s = 1 / tan(0.5 * p->fovy * deg);
  double aspect = (double)width / height;
  if (depth) *depth = z;
  if (z <= 0) return 0;
  if (p->has_window) {
    const double* b = p->window;
    double ndc_x = (2 * dot3(v, p->right) / z - (b[1] + b[0])) / (b[1] - b[0]);
    double ndc_y = (2 * dot3(v, p->up) / z - (b[3] + b[2])) / (b[3] - b[2]);
    pixel[0] = 0.5 * (ndc_x + 1) * width;
    pixel[1] = 0.5 * (1 - ndc_y) * height;
    return 1;
  }
  double ndc_x = s * dot3(v, p->right) / (aspect * z), ndc_y = s * dot3(v, p->up) / z;
  pixel[0] = 0.5 * (ndc_x + 1) * width;
  pixel[1] = 0.5 * (1 - ndc_y) * height;
  return 1;
}

void imp_camera_ray(const imp_camera_pose* p, int width, int height, double x, double y,
                    double origin[3], double dir[3]) {
  double t = tan(0.5 * p->fovy * deg), aspect = (double)width / height;
  double ndc_x = 2 * x / width - 1, ndc_y = 1 - 2 * y / height;
  if (p->has_window) { /* the point of the window under the pixel */
    const double* b = p->window;
    double u = b[0] + x / width * (b[1] - b[0]), v = b[3] - y / height * (b[3] - b[2]);
    for (int i = 0; i < 3; i++) {
      origin[i] = p->pos[i];
      dir[i] = p->forward[i] + u * p->right[i] + v * p->up[i];
    }
    normalize3(dir, p->forward);
    return;
  }
  for (int i = 0; i < 3; i++) {
    origin[i] = p->pos[i];
    dir[i] = p->forward[i] + ndc_x * aspect * t * p->right[i] + ndc_y * t * p->up[i];
  }
  normalize3(dir, p->forward);
}

/* Height of the view at the lookat distance: a pan by the full window
   height moves the scene by this much, so the point under the mouse follows it. */
static double view_height(const imp_camera* cam, const imp_camera_pose* p) {
  return 2 * cam->distance * tan(0.5 * p->fovy * deg);
}

static void pan(imp_camera* cam, const double* dir_x, const double* dir_y, double dx, double dy,
                double h) {
  for (int i = 0; i < 3; i++)
    cam->lookat[i] += h * (-dx * dir_x[i] + dy * dir_y[i]);
}

void imp_camera_move(imp_camera* cam, int action, double dx, double dy,
                     const imp_camera_pose* pose) {
  if (cam->type == IMP_CAMERA_FIXED) return;
  double h = view_height(cam, pose);
  switch (action) {
    case IMP_CAMERA_ORBIT:
      /* half a turn per window height, as MuJoCo */
      cam->azimuth = fmod(cam->azimuth - 180 * dx, 360);
      cam->elevation = fmin(89.9, fmax(-89.9, cam->elevation - 180 * dy));
      break;
    case IMP_CAMERA_PAN_V:
      pan(cam, pose->right, pose->up, dx, dy, h);
      break;
    case IMP_CAMERA_PAN_H: {
      /* the forward direction flattened onto the floor */
      double fh[3] = {pose->forward[0], pose->forward[1], 0};
      normalize3(fh, pose->up);
      pan(cam, pose->right, fh, dx, dy, h);
      break;
    }
    case IMP_CAMERA_ZOOM:
      /* exponential, so equal scroll steps scale the distance equally */
      cam->distance = fmax(1e-4, cam->distance * exp(-4 * dy));
      break;
    default:
      break;
  }
}

void imp_camera_lookat(imp_camera* cam, const double point[3]) {
  if (cam->type == IMP_CAMERA_FIXED) cam->type = IMP_CAMERA_FREE;
  memcpy(cam->lookat, point, sizeof cam->lookat);
}
