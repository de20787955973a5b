/* Forward kinematics: frames of bodies, joints, geoms, sites, cameras and
   lights from qpos; then the com-based quantities of spatial.h.
   Conventions (MuJoCo's, so that states are interchangeable): a hinge or
   slide moves by qpos - qpos0 from the frame of the model file; a ball
   joint's quaternion and a free joint's (position, quaternion) are the
   joint's orientation and world pose directly. */
#include <math.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "core/spatial.h"

/* Frame of an object attached to a body at (pos, quat) in the body frame. */
static void attach_frame(const imp_data* d, int body, const double pos[3], const double quat[4],
                         double xpos[3], double xmat[9]) {
  double q[4];
  imp_mat3_vec(xpos, d->xmat + 9 * body, pos);
  for (int i = 0; i < 3; i++) xpos[i] += d->xpos[3 * body + i];
  imp_quat_mul(q, d->xquat + 4 * body, quat);
  imp_quat_normalize(q);
  imp_quat2mat(xmat, q);
}

/* Move the body frame (xpos, xquat) through joint j, applied in file order. */
static void apply_joint(const imp_model* m, imp_data* d, int j, double xpos[3], double xquat[4]) {
  const double* qpos = d->qpos + m->jnt_qposadr[j];
  double* xanchor = d->xanchor + 3 * j;
  double* xaxis = d->xaxis + 3 * j;
  double qloc[4], off[3];

  if (m->jnt_type[j] == IMP_JNT_FREE) {
    for (int i = 0; i < 3; i++) xpos[i] = qpos[i];
    for (int i = 0; i < 4; i++) xquat[i] = qpos[3 + i];
    imp_quat_normalize(xquat);
    for (int i = 0; i < 3; i++) xanchor[i] = xpos[i];
    xaxis[0] = xaxis[1] = 0;
    xaxis[2] = 1;
    return;
  }
  /* anchor and axis in the world, before this joint moves the body */
  imp_quat_rotate(xaxis, xquat, m->jnt_axis + 3 * j);
  imp_quat_rotate(off, xquat, m->jnt_pos + 3 * j);
  for (int i = 0; i < 3; i++) xanchor[i] = xpos[i] + off[i];

  switch (m->jnt_type[j]) {
    case IMP_JNT_SLIDE: {
      double s = qpos[0] - m->qpos0[m->jnt_qposadr[j]];
      for (int i = 0; i < 3; i++) xpos[i] += xaxis[i] * s;
      return;
    }
    case IMP_JNT_HINGE:
      imp_axisangle2quat(qloc, m->jnt_axis + 3 * j, qpos[0] - m->qpos0[m->jnt_qposadr[j]]);
      break;
    default: /* ball */
      for (int i = 0; i < 4; i++) qloc[i] = qpos[i];
      imp_quat_normalize(qloc);
      break;
  }
  /* rotate about the anchor: keep it fixed while the body turns */
  imp_quat_mul(xquat, xquat, qloc);
  imp_quat_rotate(off, xquat, m->jnt_pos + 3 * j);
  for (int i = 0; i < 3; i++) xpos[i] = xanchor[i] - off[i];
}

void imp_kinematics(const imp_model* m, imp_data* d) {
  for (int b = 1; b < m->nbody; b++) {
    int p = m->body_parentid[b];
    double* xpos = d->xpos + 3 * b;
    double* xquat = d->xquat + 4 * b;
    const double* pos = m->body_pos + 3 * b;
    const double* quat = m->body_quat + 4 * b;
    double mquat[4];
    int id = m->body_mocapid[b];
    if (id >= 0) {
      /* a mocap body (a child of the world) sits where the user put it;
         MuJoCo normalizes a copy of mocap_quat and leaves the user's */
      pos = d->mocap_pos + 3 * id;
      imp_copy(mquat, d->mocap_quat + 4 * id, 4);
      imp_quat_normalize(mquat);
      quat = mquat;
    }
    imp_mat3_vec(xpos, d->xmat + 9 * p, pos);
    for (int i = 0; i < 3; i++) xpos[i] += d->xpos[3 * p + i];
    imp_quat_mul(xquat, d->xquat + 4 * p, quat);
    for (int k = 0; k < m->body_jntnum[b]; k++) apply_joint(m, d, m->body_jntadr[b] + k, xpos, xquat);
    imp_quat_normalize(xquat);
    imp_quat2mat(d->xmat + 9 * b, xquat);
    attach_frame(d, b, m->body_ipos + 3 * b, m->body_iquat + 4 * b, d->xipos + 3 * b,
                 d->ximat + 9 * b);
  }
  for (int g = 0; g < m->ngeom; g++)
    attach_frame(d, m->geom_bodyid[g], m->geom_pos + 3 * g, m->geom_quat + 4 * g,
                 d->geom_xpos + 3 * g, d->geom_xmat + 9 * g);
  for (int s = 0; s < m->nsite; s++)
    attach_frame(d, m->site_bodyid[s], m->site_pos + 3 * s, m->site_quat + 4 * s,
                 d->site_xpos + 3 * s, d->site_xmat + 9 * s);
  for (int c = 0; c < m->ncam; c++)
    attach_frame(d, m->cam_bodyid[c], m->cam_pos + 3 * c, m->cam_quat + 4 * c,
                 d->cam_xpos + 3 * c, d->cam_xmat + 9 * c);
  for (int l = 0; l < m->nlight; l++) {
    int b = m->light_bodyid[l];
    double* xp = d->light_xpos + 3 * l;
    imp_mat3_vec(xp, d->xmat + 9 * b, m->light_pos + 3 * l);
    for (int i = 0; i < 3; i++) xp[i] += d->xpos[3 * b + i];
    imp_mat3_vec(d->light_xdir + 3 * l, d->xmat + 9 * b, m->light_dir + 3 * l);
    imp_normalize3(d->light_xdir + 3 * l);
  }
}

/* Motion subspace of a rotation about world axis a through point p,
   expressed at the reference point ref: (a; a x (ref - p)). */
static void rotation_dof(double cdof[6], const double a[3], const double p[3], const double ref[3]) {
  double r[3] = {ref[0] - p[0], ref[1] - p[1], ref[2] - p[2]};
  for (int i = 0; i < 3; i++) cdof[i] = a[i];
  imp_cross(cdof + 3, a, r);
}

static void translation_dof(double cdof[6], const double a[3]) {
  cdof[0] = cdof[1] = cdof[2] = 0;
  for (int i = 0; i < 3; i++) cdof[3 + i] = a[i];
}

/* Rotations about the three axes of the body frame R through anchor. */
static void ball_cdof(double cdof[18], const double R[9], const double anchor[3], const double ref[3]) {
  for (int k = 0; k < 3; k++) {
    double a[3] = {R[k], R[3 + k], R[6 + k]};
    rotation_dof(cdof + 6 * k, a, anchor, ref);
  }
}

/* Motion subspaces of joint j: hinge/slide along xaxis; ball and free
   rotations about the body's own axes (angular velocity in the child frame);
   free translations along the world axes. */
static void joint_cdof(const imp_model* m, imp_data* d, int j, const double ref[3]) {
  int b = m->jnt_bodyid[j];
  double* cdof = d->cdof + 6 * m->jnt_dofadr[j];
  const double* R = d->xmat + 9 * b;
  const double* anchor = d->xanchor + 3 * j;
  switch (m->jnt_type[j]) {
    case IMP_JNT_HINGE:
      rotation_dof(cdof, d->xaxis + 3 * j, anchor, ref);
      break;
    case IMP_JNT_SLIDE:
      translation_dof(cdof, d->xaxis + 3 * j);
      break;
    case IMP_JNT_FREE:
      for (int k = 0; k < 3; k++) {
        double e[3] = {k == 0, k == 1, k == 2};
        translation_dof(cdof + 6 * k, e);
      }
      /* the rotational half is a ball about the body origin */
      ball_cdof(cdof + 18, R, anchor, ref);
      break;
    case IMP_JNT_BALL:
      ball_cdof(cdof, R, anchor, ref);
      break;
  }
}

void imp_com_pos(const imp_model* m, imp_data* d) {
  /* subtree centres of mass: accumulate mass moments leaf to root */
  for (int b = 0; b < m->nbody; b++)
    imp_scl(d->subtree_com + 3 * b, d->xipos + 3 * b, m->body_mass[b], 3);
  for (int b = m->nbody - 1; b > 0; b--)
    imp_add_scl(d->subtree_com + 3 * m->body_parentid[b], d->subtree_com + 3 * b, 1, 3);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_subtreemass[b] > IMP_MINVAL)
      imp_scl(d->subtree_com + 3 * b, d->subtree_com + 3 * b, 1 / m->body_subtreemass[b], 3);
    else
      imp_copy(d->subtree_com + 3 * b, d->xipos + 3 * b, 3);
  }
  /* body inertias and motion subspaces about each tree's reference point */
  for (int b = 1; b < m->nbody; b++) {
    const double* ref = d->subtree_com + 3 * m->body_rootid[b];
    double c[3] = {d->xipos[3 * b] - ref[0], d->xipos[3 * b + 1] - ref[1],
                   d->xipos[3 * b + 2] - ref[2]};
    imp_inert_pack(d->cinert + 10 * b, m->body_mass[b], m->body_inertia + 3 * b, d->ximat + 9 * b, c);
    for (int k = 0; k < m->body_jntnum[b]; k++) joint_cdof(m, d, m->body_jntadr[b] + k, ref);
  }
}

void imp_com_vel(const imp_model* m, imp_data* d) {
  imp_zero(d->cvel, 6);
  for (int b = 1; b < m->nbody; b++) {
    double v[6], tmp[6];
    imp_copy(v, d->cvel + 6 * m->body_parentid[b], 6);
    for (int k = 0; k < m->body_jntnum[b]; k++) {
      int j = m->body_jntadr[b] + k, adr = m->jnt_dofadr[j];
      const double* qvel = d->qvel + adr;
      const double* cdof = d->cdof + 6 * adr;
      double* cdot = d->cdof_dot + 6 * adr;
      switch (m->jnt_type[j]) {
        case IMP_JNT_HINGE:
        case IMP_JNT_SLIDE:
          /* the axis is carried by the frame before the joint */
          imp_cross_motion(cdot, v, cdof);
          imp_add_scl(v, cdof, qvel[0], 6);
          break;
        case IMP_JNT_BALL:
          /* the axes are carried by the child frame, after the joint */
          for (int i = 0; i < 3; i++) imp_add_scl(v, cdof + 6 * i, qvel[i], 6);
          for (int i = 0; i < 3; i++) imp_cross_motion(cdot + 6 * i, v, cdof + 6 * i);
          break;
        case IMP_JNT_FREE:
          /* world-fixed translation axes; rotation axes carried by the body */
          imp_zero(cdot, 18);
          for (int i = 0; i < 6; i++) imp_add_scl(v, cdof + 6 * i, qvel[i], 6);
          for (int i = 3; i < 6; i++) {
            imp_cross_motion(tmp, v, cdof + 6 * i);
            imp_copy(cdot + 6 * i, tmp, 6);
          }
          break;
      }
    }
    imp_copy(d->cvel + 6 * b, v, 6);
  }
}

/* The point a tracking or aiming mode refers to: a body's origin, or the
   centre of mass of the subtree it roots. */
static const double* mode_point(const imp_data* d, int body, int com) {
  return com ? d->subtree_com + 3 * body : d->xpos + 3 * body;
}

static int is_target_mode(int mode) {
  return mode == IMP_CAMLIGHT_TARGETBODY || mode == IMP_CAMLIGHT_TARGETBODYCOM;
}

/* Camera c looking at target: its -z axis points there, and its x axis is
   horizontal (orthogonal to world z), so the horizon stays level. Left
   body-fixed when the target is on the camera or straight above/below it,
   where no level frame exists. */
static void aim_camera(imp_data* d, int c, const double target[3]) {
  double x[3], y[3], z[3], up[3] = {0, 0, 1};
  for (int i = 0; i < 3; i++) z[i] = d->cam_xpos[3 * c + i] - target[i];
  if (imp_normalize3(z) < IMP_MINVAL) return;
  imp_cross(x, up, z);
  if (imp_normalize3(x) < IMP_MINVAL) return;
  imp_cross(y, z, x);
  double* R = d->cam_xmat + 9 * c; /* row-major: the axes are its columns */
  for (int i = 0; i < 3; i++) R[3 * i] = x[i], R[3 * i + 1] = y[i], R[3 * i + 2] = z[i];
}

static void camera_mode(const imp_model* m, imp_data* d, int c) {
  int mode = m->cam_mode[c], b = m->cam_bodyid[c], t = m->cam_targetbodyid[c];
  double* xpos = d->cam_xpos + 3 * c;
  if (mode == IMP_CAMLIGHT_TRACK || mode == IMP_CAMLIGHT_TRACKCOM) {
    int com = mode == IMP_CAMLIGHT_TRACKCOM;
    const double* off = (com ? m->cam_poscom0 : m->cam_pos0) + 3 * c;
    const double* p = mode_point(d, b, com);
    for (int i = 0; i < 3; i++) xpos[i] = p[i] + off[i];
    imp_copy(d->cam_xmat + 9 * c, m->cam_mat0 + 9 * c, 9);
  } else if (is_target_mode(mode) && t >= 0) {
    aim_camera(d, c, mode_point(d, t, mode == IMP_CAMLIGHT_TARGETBODYCOM));
  }
}

static void light_mode(const imp_model* m, imp_data* d, int l) {
  int mode = m->light_mode[l], b = m->light_bodyid[l], t = m->light_targetbodyid[l];
  double* xpos = d->light_xpos + 3 * l;
  double* xdir = d->light_xdir + 3 * l;
  if (mode == IMP_CAMLIGHT_TRACK || mode == IMP_CAMLIGHT_TRACKCOM) {
    int com = mode == IMP_CAMLIGHT_TRACKCOM;
    const double* off = (com ? m->light_poscom0 : m->light_pos0) + 3 * l;
    const double* p = mode_point(d, b, com);
    for (int i = 0; i < 3; i++) xpos[i] = p[i] + off[i];
    imp_copy(xdir, m->light_dir0 + 3 * l, 3);
  } else if (is_target_mode(mode) && t >= 0) {
    const double* p = mode_point(d, t, mode == IMP_CAMLIGHT_TARGETBODYCOM);
    double v[3] = {p[0] - xpos[0], p[1] - xpos[1], p[2] - xpos[2]};
    /* a light on its target keeps the body-fixed direction */
    if (imp_normalize3(v) >= IMP_MINVAL) imp_copy(xdir, v, 3);
  }
}

void imp_camlight(const imp_model* m, imp_data* d) {
  for (int c = 0; c < m->ncam; c++) camera_mode(m, d, c);
  for (int l = 0; l < m->nlight; l++) light_mode(m, d, l);
}
