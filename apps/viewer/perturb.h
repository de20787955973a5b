/* Pulling and turning a body with the mouse (Ctrl + right / left drag), as
 * a spring-damper the engine sees as a force and torque on the body's
 * centre of mass (d->xfrc_applied).
 *
 * The spring is scaled by the pulled body's subtree mass (and inertia for
 * turning), so every body follows the mouse with the same natural
 * frequency, IMP_VIEWER_PERTURB_OMEGA, critically damped: light and heavy
 * bodies feel alike, and the explicit force stays stable for any time step
 * with omega * h well below 1.
 *
 * A mocap body (MJCF mocap="true") cannot be pushed: as in MuJoCo's
 * simulate, the same gestures set its pose (d->mocap_pos, mocap_quat)
 * directly, running or paused: pulling moves it so the grabbed point is at
 * the mouse's hold, turning gives it the held orientation about the
 * grabbed point.
 *
 * Promises: pure functions of m, d and the mouse; imp_viewer_perturb_apply
 * writes xfrc_applied (all bodies zero except the pulled one) and, for a
 * grabbed mocap body, that body's mocap_pos and mocap_quat only;
 * imp_viewer_perturb_place (paused) writes one free joint's qpos and qvel,
 * or a grabbed mocap body's pose. */
#ifndef IMPETUS_VIEWER_PERTURB_H
#define IMPETUS_VIEWER_PERTURB_H

#include "camera.h"
#include "scene.h"

#define IMP_VIEWER_PERTURB_OMEGA 15.0 /* rad/s: sags g / omega^2 = 4 cm under gravity */

typedef struct imp_viewer_perturb {
  imp_perturb spring; /* what the renderer draws: grabbed point, mouse point */
  int rotate;         /* 1: turning (Ctrl + left), 0: pulling (Ctrl + right) */
  double refquat[4];  /* turning: the orientation the mouse holds, world */
} imp_viewer_perturb;

/* Grab body at world point (the picked point; NULL: its centre of mass). */
void imp_viewer_perturb_begin(const imp_model* m, const imp_data* d, int body,
                              const double point[3], int rotate, imp_viewer_perturb* p);

/* Move the mouse's hold by a drag (dx, dy relative to the window height, y
   down): pulling moves the point in the image plane at its depth, turning
   rotates the held orientation about the image's up and right axes. */
void imp_viewer_perturb_drag(imp_viewer_perturb* p, const imp_camera_pose* pose, double dx,
                             double dy);

/* Let go: the spring disappears (xfrc_applied cleared by the next apply). */
void imp_viewer_perturb_end(imp_viewer_perturb* p);

/* The grabbed point in world coordinates now. */
void imp_viewer_perturb_point(const imp_data* d, const imp_viewer_perturb* p, double out[3]);

/* Write the spring's force and torque into d->xfrc_applied (zero for every
   body when the perturbation is inactive). */
void imp_viewer_perturb_apply(const imp_model* m, imp_data* d, const imp_viewer_perturb* p);

/* Paused, there is no step for a force to act in: as MuJoCo does, move the
   body kinematically instead. Pulling translates the free joint of the
   body's tree so the grabbed point is at the mouse's hold; turning sets a
   free root body's orientation to the held one. The joint's velocity is
   zeroed and imp_forward recomputes d. A mocap body is posed as by
   imp_viewer_perturb_apply. Returns 1 when d changed, 0 when inactive or
   the body is neither a mocap body nor carried by a free joint. */
int imp_viewer_perturb_place(const imp_model* m, imp_data* d, const imp_viewer_perturb* p);

#endif
