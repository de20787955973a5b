/* The mouse spring (see perturb.h).
 *
 * Pulling: F = m (w^2 (r - p) - 2 w v_p) at the grabbed point p, moved to
 * the centre of mass as F and (p - c) x F; m the subtree mass, r the mouse
 * point, v_p the point's velocity. Turning: tau = I (w^2 e - 2 w omega),
 * e the rotation vector taking the body's orientation to the held one,
 * I the largest principal moment of the body (a scalar keeps the torque
 * along e). Both are critically damped oscillators of frequency w. */
#include <math.h>
#include <string.h>

#include "perturb.h"
#include "core/quat.h"

#define IMP_VIEWER_PI 3.14159265358979323846

/* r = a x b. */
static void cross3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

/* xpos + xmat localpos: the grabbed point where the body is now. */
void imp_viewer_perturb_point(const imp_data* d, const imp_viewer_perturb* p, double out[3]) {
  const double* R = d->xmat + 9 * p->spring.bodyid;
  const double* x = d->xpos + 3 * p->spring.bodyid;
  const double* l = p->spring.localpos;
  for (int i = 0; i < 3; i++) out[i] = x[i] + R[3 * i] * l[0] + R[3 * i + 1] * l[1] + R[3 * i + 2] * l[2];
}

void imp_viewer_perturb_begin(const imp_model* m, const imp_data* d, int body,
                              const double point[3], int rotate, imp_viewer_perturb* p) {
  memset(p, 0, sizeof *p);
  if (body <= 0 || body >= m->nbody) return;
  const double* R = d->xmat + 9 * body;
  const double* x = d->xpos + 3 * body;
  const double* at = point ? point : d->xipos + 3 * body;
  double rel[3] = {at[0] - x[0], at[1] - x[1], at[2] - x[2]};
  for (int i = 0; i < 3; i++) /* R^T rel: the point in the body frame */
    p->spring.localpos[i] = R[i] * rel[0] + R[3 + i] * rel[1] + R[6 + i] * rel[2];
  memcpy(p->spring.refpos, at, sizeof p->spring.refpos);
  memcpy(p->refquat, d->xquat + 4 * body, sizeof p->refquat);
  p->spring.bodyid = body;
  p->spring.active = 1;
  p->rotate = rotate;
}

void imp_viewer_perturb_drag(imp_viewer_perturb* p, const imp_camera_pose* pose, double dx,
                             double dy) {
  if (!p->spring.active) return;
  if (p->rotate) {
    /* a drag across the whole window height turns the body half a turn */
    double qa[4], qb[4], t[4];
    imp_axisangle2quat(qa, pose->up, IMP_VIEWER_PI * dx);
    imp_axisangle2quat(qb, pose->right, IMP_VIEWER_PI * dy);
    imp_quat_mul(t, qa, p->refquat);
    imp_quat_mul(p->refquat, qb, t);
    imp_quat_normalize(p->refquat);
    return;
  }
  /* the image plane at the held point's depth: one window height spans
     2 depth tan(fovy / 2) metres */
  double rel[3], depth = 0;
  for (int i = 0; i < 3; i++) rel[i] = p->spring.refpos[i] - pose->pos[i];
  for (int i = 0; i < 3; i++) depth += rel[i] * pose->forward[i];
  double span = 2.0 * fabs(depth) * tan(0.5 * pose->fovy * IMP_VIEWER_PI / 180.0);
  for (int i = 0; i < 3; i++) p->spring.refpos[i] += span * (dx * pose->right[i] - dy * pose->up[i]);
}

/* Inactive: the next apply clears the force. */
void imp_viewer_perturb_end(imp_viewer_perturb* p) {
  p->spring.active = 0;
}

/* World velocity of world point pt moving with body b: cvel is (angular;
   linear) at the subtree centre of mass of b's root. */
static void point_velocity(const imp_model* m, const imp_data* d, int b, const double pt[3],
                           double v[3]) {
  const double* cv = d->cvel + 6 * b;
  const double* c = d->subtree_com + 3 * m->body_rootid[b];
  double r[3] = {pt[0] - c[0], pt[1] - c[1], pt[2] - c[2]}, wr[3];
  cross3(wr, cv, r);
  for (int i = 0; i < 3; i++) v[i] = cv[3 + i] + wr[i];
}

/* The rotation vector e with exp(e) q = qref (shortest way round). */
static void rotation_error(const double qref[4], const double q[4], double e[3]) {
  double qc[4], qe[4];
  imp_quat_conj(qc, q);
  imp_quat_mul(qe, qref, qc);
  if (qe[0] < 0)
    for (int i = 0; i < 4; i++) qe[i] = -qe[i];
  double s = sqrt(qe[1] * qe[1] + qe[2] * qe[2] + qe[3] * qe[3]);
  double angle = 2.0 * atan2(s, qe[0]);
  for (int i = 0; i < 3; i++) e[i] = s > 1e-12 ? qe[1 + i] * angle / s : 0.0;
}

static void pull_force(const imp_model* m, const imp_data* d, const imp_viewer_perturb* p,
                       double* xfrc) {
  int b = p->spring.bodyid;
  double w = IMP_VIEWER_PERTURB_OMEGA, mass = m->body_subtreemass[b];
  double pt[3], v[3], f[3], r[3], tau[3];
  imp_viewer_perturb_point(d, p, pt);
  point_velocity(m, d, b, pt, v);
  for (int i = 0; i < 3; i++) f[i] = mass * (w * w * (p->spring.refpos[i] - pt[i]) - 2 * w * v[i]);
  for (int i = 0; i < 3; i++) r[i] = pt[i] - d->xipos[3 * b + i];
  cross3(tau, r, f);
  for (int i = 0; i < 3; i++) xfrc[i] = f[i], xfrc[3 + i] = tau[i];
}

static void turn_torque(const imp_model* m, const imp_data* d, const imp_viewer_perturb* p,
                        double* xfrc) {
  int b = p->spring.bodyid;
  double w = IMP_VIEWER_PERTURB_OMEGA, e[3];
  const double* I = m->body_inertia + 3 * b;
  double inertia = fmax(fmax(I[0], I[1]), fmax(I[2], 1e-9));
  rotation_error(p->refquat, d->xquat + 4 * b, e);
  const double* omega = d->cvel + 6 * b;
  for (int i = 0; i < 3; i++) xfrc[3 + i] = inertia * (w * w * e[i] - 2 * w * omega[i]);
}

/* A mocap body has no dofs for a force to move: as MuJoCo's
   mjv_applyPerturbPose, the mouse sets its pose (mocap_pos, mocap_quat)
   directly. Pulling keeps its orientation and puts the grabbed point at
   the mouse's hold; turning gives it the held orientation about the
   grabbed point (which stays put; MuJoCo turns it about its centre of
   mass, the point its mouse holds). Returns 1 when b is a mocap body. */
static int pose_mocap(const imp_model* m, imp_data* d, const imp_viewer_perturb* p) {
  int id = m->body_mocapid[p->spring.bodyid];
  if (id < 0) return 0;
  double q[4], r[3];
  memcpy(q, p->rotate ? p->refquat : d->mocap_quat + 4 * id, sizeof q);
  imp_quat_normalize(q);
  imp_quat_rotate(r, q, p->spring.localpos);
  for (int i = 0; i < 3; i++) d->mocap_pos[3 * id + i] = p->spring.refpos[i] - r[i];
  memcpy(d->mocap_quat + 4 * id, q, sizeof q);
  return 1;
}

/* Clear every body's applied force, then set the pulled body's (or the
   pose of a mocap body). */
void imp_viewer_perturb_apply(const imp_model* m, imp_data* d, const imp_viewer_perturb* p) {
  memset(d->xfrc_applied, 0, sizeof(double) * 6 * (size_t)m->nbody);
  int b = p->spring.bodyid;
  if (!p->spring.active || b <= 0 || b >= m->nbody) return;
  if (pose_mocap(m, d, p)) return;
  if (p->rotate)
    turn_torque(m, d, p, d->xfrc_applied + 6 * b);
  else
    pull_force(m, d, p, d->xfrc_applied + 6 * b);
}

/* The free joint that carries body b (its root's, when that is the root's
   only joint), or -1: only such a body can be placed without violating a
   joint. */
static int carrying_free_joint(const imp_model* m, int b) {
  int root = m->body_rootid[b], j = m->body_jntadr[root];
  if (j < 0 || m->body_jntnum[root] != 1 || m->jnt_type[j] != IMP_JNT_FREE) return -1;
  return j;
}

int imp_viewer_perturb_place(const imp_model* m, imp_data* d, const imp_viewer_perturb* p) {
  int b = p->spring.bodyid;
  if (!p->spring.active || b <= 0 || b >= m->nbody) return 0;
  if (pose_mocap(m, d, p)) {
    imp_forward(m, d);
    return 1;
  }
  int j = carrying_free_joint(m, b);
  if (j < 0) return 0;
  double* q = d->qpos + m->jnt_qposadr[j];
  if (p->rotate) {
    if (m->body_rootid[b] != b) return 0; /* turning a child would swing it about the root */
    memcpy(q + 3, p->refquat, 4 * sizeof(double));
  } else {
    /* translating the root moves the grabbed point by the same amount */
    double pt[3];
    imp_viewer_perturb_point(d, p, pt);
    for (int i = 0; i < 3; i++) q[i] += p->spring.refpos[i] - pt[i];
  }
  /* a body put down by hand starts from rest when the simulation resumes */
  memset(d->qvel + m->jnt_dofadr[j], 0, 6 * sizeof(double));
  imp_forward(m, d);
  return 1;
}
