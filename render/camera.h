/* Cameras as pure math: no OpenGL here, so every formula is unit-tested.
 *
 * A camera is one of three kinds, as in MuJoCo's viewer:
 *   free      orbits a point: lookat, distance, azimuth and elevation
 *             (degrees; azimuth 90 looks along +y, elevation < 0 looks down)
 *   fixed     one of the model's <camera> elements (cam_xpos, cam_xmat)
 *   tracking  a free camera whose lookat follows a body's centre of mass
 * imp_camera_pose resolves any of them, for one state, into an eye frame;
 * the view and projection matrices, projecting a world point to a pixel and
 * the ray through a pixel all work from that pose.
 *
 * Pixels: x to the right, y down, (0, 0) the top-left corner of the image,
 * a pixel's centre at (i + 0.5, j + 0.5), as in a PNG read row by row.
 *
 * Mouse moves (imp_camera_move) follow MuJoCo's conventions: dx, dy are the
 * mouse motion divided by the window height; dragging right orbits the
 * camera to the left (the scene turns right), dragging up lowers it; a pan
 * drags the scene with the mouse; zoom > 0 (scroll up) comes closer.
 *
 * Promises: reads m and d only; no allocation; matrices are column-major
 * float[16], ready for glUniformMatrix4fv(..., GL_FALSE, ...). */
#ifndef IMPETUS_CAMERA_H
#define IMPETUS_CAMERA_H

#include "impetus.h"

typedef enum imp_camera_type {
  IMP_CAMERA_FREE = 0,
  IMP_CAMERA_FIXED = 1,    /* the model's camera fixedcamid */
  IMP_CAMERA_TRACKING = 2, /* free, centred on body trackbodyid's centre of mass */
} imp_camera_type;

typedef struct imp_camera {
  int type;         /* imp_camera_type */
  int fixedcamid;   /* IMP_CAMERA_FIXED: camera id in the model */
  int trackbodyid;  /* IMP_CAMERA_TRACKING: body id */
  double lookat[3]; /* free/tracking: the point orbited (tracking: updated by imp_camera_pose) */
  double distance;  /* free/tracking: from lookat to the eye, m */
  double azimuth;   /* free/tracking: degrees, about world z from +x */
  double elevation; /* free/tracking: degrees above the horizontal plane (< 0 looks down) */
} imp_camera;

/* A camera resolved for one state: where the eye is and where it looks. */
typedef struct imp_camera_pose {
  double pos[3];      /* eye position */
  double forward[3];  /* unit, the viewing direction */
  double up[3];       /* unit, image up */
  double right[3];    /* unit, image right = forward x up */
  double fovy;        /* vertical field of view, degrees */
  double znear, zfar; /* clip distances, m */
  /* a model camera with a sensor (cam_sensorsize): the image is that sensor
     seen from the eye, whatever the aspect of the image drawn; window is
     its left, right, bottom and top edges on the plane at unit distance
     along forward (right and up coordinates), possibly off-centre */
  int has_window;
  double window[4];
} imp_camera_pose;

typedef enum imp_camera_action {
  IMP_CAMERA_ORBIT = 0, /* change azimuth and elevation */
  IMP_CAMERA_PAN_V = 1, /* move lookat in the image plane (right drag) */
  IMP_CAMERA_PAN_H = 2, /* move lookat in the horizontal plane (shift + right drag) */
  IMP_CAMERA_ZOOM = 3,  /* change distance: dy is the zoom step (scroll: 0.05 per notch) */
} imp_camera_action;

/* The free camera MuJoCo's viewer starts with: looking at the model's centre
   from 1.5 extents (both from <statistic> when the file gives them, else the
   middle and longest side of its bounding box at qpos0), from the azimuth and
   elevation of <visual><global> (default 90 and -45). */
void imp_camera_default(const imp_model* m, imp_camera* cam);

/* Resolve cam for state d (after imp_forward/imp_step). A model camera is
   taken as the engine placed it (cam_xpos/cam_xmat, which follow MJCF's
   track/trackcom/targetbody modes already). A tracking camera's
   lookat is written back, so switching to free keeps the view. An out of
   range camera or body id falls back to the free camera. */
void imp_camera_pose_compute(const imp_model* m, const imp_data* d, imp_camera* cam,
                             imp_camera_pose* pose);

/* The image's left, right, bottom and top edges on the plane at unit
   distance in front of the eye: the sensor's window of a camera with
   intrinsics, else symmetric from fovy and the image's width/height aspect. */
void imp_camera_window(const imp_camera_pose* pose, double aspect, double window[4]);

/* World -> eye (OpenGL: eye looks along -z, y up). */
void imp_camera_view_matrix(const imp_camera_pose* pose, float view[16]);
/* Eye -> clip, a symmetric perspective frustum for width/height aspect, or
   the frustum of a camera's sensor window (which ignores aspect, as MuJoCo). */
void imp_camera_projection_matrix(const imp_camera_pose* pose, double aspect, float proj[16]);

/* The pixel (x right, y down, from the top-left corner) where world point p
   appears in a width x height image; also its distance along forward in
   *depth (may be NULL). Returns 0 when p is behind the eye. */
int imp_camera_project(const imp_camera_pose* pose, int width, int height, const double p[3],
                       double pixel[2], double* depth);

/* The ray through pixel (x, y): origin the eye, dir unit. */
void imp_camera_ray(const imp_camera_pose* pose, int width, int height, double x, double y,
                    double origin[3], double dir[3]);

/* Move a free or tracking camera by a mouse delta (MuJoCo's conventions
   above; dx, dy relative to the window height). pose is the current pose,
   for the pan directions. A fixed camera does not move. */
void imp_camera_move(imp_camera* cam, int action, double dx, double dy,
                     const imp_camera_pose* pose);

/* Centre the free camera on a world point (right double-click). */
void imp_camera_lookat(imp_camera* cam, const double point[3]);

#endif
