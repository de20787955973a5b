/* Sensors (MJCF <sensor>): d->sensordata, laid out as MuJoCo lays it out.
 *
 * Promises:
 *  - sensor i writes its sensor_dim[i] values at sensordata[sensor_adr[i]]
 *    and nothing else; sensors are in file order;
 *  - values describe the state imp_forward started from (the state before
 *    the step, after imp_step, as MuJoCo's mj_step leaves them): positions
 *    and velocities of that state, and the accelerations and forces the
 *    step computed for it (qacc, with the contact stage's impulses / h);
 *  - with cutoff c > 0, a real sensor's every value is clamped to [-c, c]
 *    and a positive one's (touch, rangefinder) to at most c; unit vectors
 *    and quaternions are never cut;
 *  - the noise of each sensor is added only under <flag sensornoise=
 *    "enable"> (MuJoCo 2.2.2 does the same; its default is off), before
 *    the cutoff, from a generator whose state is in the data (reset by
 *    imp_reset_data, so runs repeat exactly; the draws are not MuJoCo's,
 *    which come from C's rand());
 *  - the sensors of positions and velocities (all but the limit sensors,
 *    which read the constraint rows) are computed before the controls
 *    (imp_step1, the control callback can read them), the others after the
 *    contact stage; noise is drawn in that order;
 *  - <flag sensor="disable"> leaves sensordata as it was;
 *  - nothing allocates but the arena.
 *
 * Definitions (w, v: a body's angular velocity and the linear velocity of
 * its points, from the com-based cvel: v(p) = v_c + w x (p - c), c the
 * subtree centre of mass of the body's tree root, spatial.h):
 *  - frame sensors read an object's frame: body = its inertial frame
 *    (xipos, ximat), xbody = xpos, xmat, and geoms, sites and cameras their
 *    own. framequat composes the body's quaternion with the object's fixed
 *    one (a tracking camera's mode is ignored, as in MuJoCo 2.2.2). With a
 *    reference frame (pos_r, R_r, w_r): position R_r'(p - pos_r),
 *    orientation q_r^-1 q, axes R_r' a, angular velocity R_r'(w - w_r) and
 *    linear velocity R_r'(v(p) - v_r(pos_r) - w_r x (p - pos_r)): the
 *    velocity seen by an observer riding the reference frame (MuJoCo 2.2.2
 *    measured, test_mujoco_sensor.c);
 *  - accelerations come from cacc, the spatial acceleration of each body
 *    with the gravity offset (the world accelerates at -g, so a body at
 *    rest reads +g upwards, as an accelerometer does): cacc_b = cacc_parent
 *    + sum over its dofs (cdof_dot qvel + cdof qacc). A point's classical
 *    acceleration is a_c + alpha x (p - c) + w x v(p) (Featherstone, RBDA,
 *    sec. 2.11);
 *  - force and torque: cfrc_int, the wrench the parent applies to the
 *    body through the joint, by RNE from the leaves with the step's
 *    accelerations: f_b = I_b cacc_b + cvel_b x* I_b cvel_b - f_ext_b +
 *    sum over children f_child. External wrenches are xfrc_applied and the
 *    contact, connect and weld forces of the contact stage (impulse / h),
 *    the set MuJoCo 2.2.2 counts; forces that act in joint space (limits,
 *    frictionloss, joint equalities, springs, actuators) are carried by
 *    the joint, and so are the passive body forces (gravcomp, fluid), which
 *    MuJoCo 2.2.2 also leaves out. Reported in the site frame, the torque
 *    about the site;
 *  - touch: the normal forces of the contacts of the site's body whose
 *    point lies in the site's volume, or whose normal ray, from the point
 *    away from the site's body, enters it (MuJoCo's re-projection);
 *  - rangefinder: imp_ray from the site along its +z, the site's body
 *    excluded;
 *  - joint limit sensors: the joint's first limit row of the step (lower
 *    side first). Rows exist when a side is met or violated, and also when
 *    this step's motion could reach it (constraints.c), so the position
 *    can be positive there where MuJoCo, whose rows need a violation,
 *    reports 0. Velocity J qvel, force impulse / h; 0 without a row. */
#include <math.h>

#include "engine.h"
#include "collision/collision.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "core/spatial.h"

/* ---- object frames ---- */

/* body that carries object (type, id) */
static int object_body(const imp_model* m, int type, int id) {
  switch (type) {
    case IMP_OBJ_BODY:
    case IMP_OBJ_XBODY: return id;
    case IMP_OBJ_GEOM: return m->geom_bodyid[id];
    case IMP_OBJ_SITE: return m->site_bodyid[id];
    case IMP_OBJ_CAMERA: return m->cam_bodyid[id];
    default: return 0;
  }
}

/* world position and rotation (row-major) of object (type, id) */
static void object_frame(const imp_data* d, int type, int id, const double** pos,
                         const double** mat) {
  switch (type) {
    case IMP_OBJ_BODY: *pos = d->xipos + 3 * id, *mat = d->ximat + 9 * id; return;
    case IMP_OBJ_XBODY: *pos = d->xpos + 3 * id, *mat = d->xmat + 9 * id; return;
    case IMP_OBJ_GEOM: *pos = d->geom_xpos + 3 * id, *mat = d->geom_xmat + 9 * id; return;
    case IMP_OBJ_SITE: *pos = d->site_xpos + 3 * id, *mat = d->site_xmat + 9 * id; return;
    default: *pos = d->cam_xpos + 3 * id, *mat = d->cam_xmat + 9 * id; return;
  }
}

/* world orientation of object (type, id): its body's quaternion times the
   object's own */
static void object_quat(const imp_model* m, const imp_data* d, int type, int id, double q[4]) {
  const double* local;
  int b = object_body(m, type, id);
  switch (type) {
    case IMP_OBJ_BODY: local = m->body_iquat + 4 * id; break;
    case IMP_OBJ_GEOM: local = m->geom_quat + 4 * id; break;
    case IMP_OBJ_SITE: local = m->site_quat + 4 * id; break;
    case IMP_OBJ_CAMERA: local = m->cam_quat + 4 * id; break;
    default: imp_copy(q, d->xquat + 4 * b, 4); return;
  }
  imp_quat_mul(q, d->xquat + 4 * b, local);
}

/* p - c, c the reference point of body b's com-based quantities */
static void from_ref(const imp_model* m, const imp_data* d, int b, const double p[3], double r[3]) {
  const double* c = d->subtree_com + 3 * m->body_rootid[b];
  for (int i = 0; i < 3; i++) r[i] = p[i] - c[i];
}

/* angular velocity w of body b and linear velocity of its point p */
static void point_velocity(const imp_model* m, const imp_data* d, int b, const double p[3],
                           double w[3], double v[3]) {
  const double* cv = d->cvel + 6 * b;
  double r[3];
  from_ref(m, d, b, p, r);
  imp_copy(w, cv, 3);
  imp_cross(v, cv, r);
  for (int i = 0; i < 3; i++) v[i] += cv[3 + i];
}

/* angular acceleration alpha of body b and classical linear acceleration of
   its point p (gravity offset included through cacc) */
static void point_acceleration(const imp_model* m, const imp_data* d, int b, const double p[3],
                               double alpha[3], double a[3]) {
  const double* ca = d->cacc + 6 * b;
  double r[3], w[3], v[3], wv[3];
  from_ref(m, d, b, p, r);
  point_velocity(m, d, b, p, w, v);
  imp_copy(alpha, ca, 3);
  imp_cross(a, ca, r);
  imp_cross(wv, w, v);
  for (int i = 0; i < 3; i++) a[i] += ca[3 + i] + wv[i];
}

/* ---- stage results the sensors share ---- */

/* wrench (torque; force) about body b's reference point of a force f and
   torque t acting at world point p, added into cfrc_ext */
static void add_external(const imp_model* m, imp_data* d, int b, const double p[3],
                         const double f[3], const double t[3], double sign) {
  if (b <= 0) return;
  double r[3], rf[3];
  from_ref(m, d, b, p, r);
  imp_cross(rf, r, f);
  double* e = d->cfrc_ext + 6 * b;
  for (int i = 0; i < 3; i++) {
    e[i] += sign * (t[i] + rf[i]);
    e[3 + i] += sign * f[i];
  }
}

/* world point of body b at local offset */
static void body_point(const imp_data* d, int b, const double local[3], double p[3]) {
  imp_mat3_vec(p, d->xmat + 9 * b, local);
  for (int i = 0; i < 3; i++) p[i] += d->xpos[3 * b + i];
}

/* Wrenches of one constraint block on its two bodies: its rows are
   dir' (v2 - v1) of points p1 on b1 and p2 on b2 (constraints.c), so the
   row force f pushes b2 by f dir at p2 and b1 by -f dir at p1; rows 3-5
   are angular, torques f dir. dirs holds the rows' directions. */
static void block_wrench(const imp_model* m, imp_data* d, int adr, int dim, int b1,
                         const double p1[3], int b2, const double p2[3], const double* dirs) {
  double h = m->opt.timestep, f[3] = {0, 0, 0}, t[3] = {0, 0, 0}, zero[3] = {0, 0, 0};
  for (int r = 0; r < dim; r++)
    imp_add_scl(r < 3 ? f : t, dirs + 3 * (r % 3), d->efc_impulse[adr + r] / h, 3);
  add_external(m, d, b2, p2, f, zero, 1);
  add_external(m, d, b1, p1, f, zero, -1);
  add_external(m, d, b2, p2, zero, t, 1);
  add_external(m, d, b1, p1, zero, t, -1);
}

/* cfrc_ext: applied forces, contacts, connect and weld equalities */
static void external_wrenches(const imp_model* m, imp_data* d) {
  static const double axes[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  imp_zero(d->cfrc_ext, 6 * m->nbody);
  for (int b = 1; b < m->nbody; b++)
    add_external(m, d, b, d->xipos + 3 * b, d->xfrc_applied + 6 * b, d->xfrc_applied + 6 * b + 3,
                 1);
  for (int k = 0; k < d->nblk; k++) {
    int adr = d->blk_efcadr[k], dim = d->blk_dim[k], id = d->blk_id[k];
    if (d->blk_type[k] == IMP_CNSTR_CONTACT) {
      const imp_contact* c = d->contact + id;
      double p[3]; /* where the contact's force acts (its rows' point) */
      imp_contact_point(m, c, p);
      block_wrench(m, d, adr, dim, m->geom_bodyid[c->geom1], p, m->geom_bodyid[c->geom2], p,
                   c->frame);
    } else if (d->blk_type[k] == IMP_CNSTR_EQUALITY && (m->eq_type[id] == IMP_EQ_CONNECT ||
                                                         m->eq_type[id] == IMP_EQ_WELD)) {
      /* the points of constraints.c: connect's two anchors, weld's target
         on body1 and the point of body2 that must meet it */
      int b1 = m->eq_obj1id[id], b2 = m->eq_obj2id[id];
      const double* data = m->eq_data + 11 * id;
      double p1[3], p2[3];
      body_point(d, b1, data, p1);
      body_point(d, b2, data + (m->eq_type[id] == IMP_EQ_CONNECT ? 3 : 7), p2);
      block_wrench(m, d, adr, dim, b1, p1, b2, p2, axes);
    }
  }
}

void imp_rne_post_constraint(const imp_model* m, imp_data* d) {
  imp_zero(d->cacc, 6);
  if (!(m->opt.disableflags & IMP_DSBL_GRAVITY)) imp_scl(d->cacc + 3, m->opt.gravity, -1, 3);
  imp_zero(d->cfrc_int, 6);
  external_wrenches(m, d);
  for (int b = 1; b < m->nbody; b++) {
    double* a = d->cacc + 6 * b;
    double Iv[6], vIv[6];
    imp_copy(a, d->cacc + 6 * m->body_parentid[b], 6);
    for (int i = 0; i < m->body_dofnum[b]; i++) {
      int k = m->body_dofadr[b] + i;
      imp_add_scl(a, d->cdof_dot + 6 * k, d->qvel[k], 6);
      imp_add_scl(a, d->cdof + 6 * k, d->qacc[k], 6);
    }
    double* f = d->cfrc_int + 6 * b;
    imp_mul_inert_vec(f, d->cinert + 10 * b, a);
    imp_mul_inert_vec(Iv, d->cinert + 10 * b, d->cvel + 6 * b);
    imp_cross_force(vIv, d->cvel + 6 * b, Iv);
    for (int i = 0; i < 6; i++) f[i] += vIv[i] - d->cfrc_ext[6 * b + i];
  }
  /* children's wrenches reach their parents (the same reference point: a
     tree's bodies share it, and nothing is passed to the world) */
  for (int b = m->nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    if (p > 0) imp_add_scl(d->cfrc_int + 6 * p, d->cfrc_int + 6 * b, 1, 6);
  }
}

void imp_subtree_vel(const imp_model* m, imp_data* d) {
  /* linear momentum and each body's own angular momentum about its com,
     then leaves to root: L_parent += L_child + M_child (c_child - c) x
     (v_child - v_c), the cross terms of the parallel axis rule */
  double* lin = d->subtree_linvel;
  double* ang = d->subtree_angmom;
  size_t mark = imp_stack_mark(d);
  double* vcom = imp_stack_alloc(d, 3 * m->nbody);
  for (int b = 0; b < m->nbody; b++) {
    double w[3], Iw[3], lw[3];
    point_velocity(m, d, b, d->xipos + 3 * b, w, vcom + 3 * b);
    imp_scl(lin + 3 * b, vcom + 3 * b, m->body_mass[b], 3);
    /* world inertia R diag(I) R' w */
    const double* R = d->ximat + 9 * b;
    imp_mat3T_vec(lw, R, w);
    for (int i = 0; i < 3; i++) lw[i] *= m->body_inertia[3 * b + i];
    imp_mat3_vec(Iw, R, lw);
    imp_copy(ang + 3 * b, Iw, 3);
  }
  for (int b = m->nbody - 1; b > 0; b--)
    imp_add_scl(lin + 3 * m->body_parentid[b], lin + 3 * b, 1, 3);
  for (int b = 0; b < m->nbody; b++) {
    double M = m->body_subtreemass[b];
    if (M > IMP_MINVAL) imp_scl(lin + 3 * b, lin + 3 * b, 1 / M, 3);
    else imp_copy(lin + 3 * b, vcom + 3 * b, 3);
  }
  /* each body's own mass about its subtree's com, then children */
  for (int b = m->nbody - 1; b >= 0; b--) {
    double dx[3], dv[3], t[3];
    for (int i = 0; i < 3; i++) {
      dx[i] = d->xipos[3 * b + i] - d->subtree_com[3 * b + i];
      dv[i] = vcom[3 * b + i] - lin[3 * b + i];
    }
    imp_cross(t, dx, dv);
    imp_add_scl(ang + 3 * b, t, m->body_mass[b], 3);
    if (b == 0) break;
    int p = m->body_parentid[b];
    for (int i = 0; i < 3; i++) {
      dx[i] = d->subtree_com[3 * b + i] - d->subtree_com[3 * p + i];
      dv[i] = lin[3 * b + i] - lin[3 * p + i];
    }
    imp_cross(t, dx, dv);
    imp_add_scl(ang + 3 * p, ang + 3 * b, 1, 3);
    imp_add_scl(ang + 3 * p, t, m->body_subtreemass[b], 3);
  }
  imp_stack_release(d, mark);
}

/* ---- one sensor ---- */

/* the first limit row of limit ids id0 .. id1 in this step (a joint's, or
   a tendon's two sides: types.h), -1 without one */
static int limit_row(const imp_data* d, int id0, int id1) {
  for (int r = 0; r < d->nefc; r++)
    if (d->efc_type[r] == IMP_CNSTR_LIMIT && d->efc_id[r] >= id0 && d->efc_id[r] <= id1) return r;
  return -1;
}

/* J qvel of row r: its velocity at the start of the step */
static double row_velocity(const imp_data* d, int r) {
  double v = 0;
  int adr = d->efc_J_rowadr[r];
  for (int i = 0; i < d->efc_J_rownnz[r]; i++)
    v += d->efc_J[adr + i] * d->qvel[d->efc_J_colind[adr + i]];
  return v;
}

/* touch: normal forces of the contacts of the site's body that fall in the
   site's volume or whose normal ray, away from the body, enters it */
static double touch(const imp_model* m, const imp_data* d, int site) {
  int b = m->site_bodyid[site];
  double sum = 0, h = m->opt.timestep;
  for (int i = 0; i < d->ncon; i++) {
    const imp_contact* c = d->contact + i;
    int b1 = m->geom_bodyid[c->geom1], b2 = m->geom_bodyid[c->geom2];
    if (c->efc_adr < 0 || (b1 != b && b2 != b)) continue;
    double dir[3];
    imp_scl(dir, c->frame, b1 == b ? 1 : -1, 3); /* the normal points from geom1 to geom2 */
    if (imp_ray_primitive(m->site_type[site], d->site_xpos + 3 * site, d->site_xmat + 9 * site,
                          m->site_size + 3 * site, c->pos, dir) >= 0)
      sum += d->efc_impulse[c->efc_adr] / h;
  }
  return sum;
}

/* rotation matrix column k */
static void column(const double R[9], int k, double v[3]) {
  v[0] = R[k], v[1] = R[3 + k], v[2] = R[6 + k];
}

/* position, orientation and axis sensors of a frame */
static void frame_pos_sensor(const imp_model* m, const imp_data* d, int i, double* out) {
  int type = m->sensor_type[i], ot = m->sensor_objtype[i], oid = m->sensor_objid[i];
  int rt = m->sensor_reftype[i], rid = m->sensor_refid[i];
  const double *p, *R, *pr = NULL, *Rr = NULL;
  object_frame(d, ot, oid, &p, &R);
  if (rid >= 0) object_frame(d, rt, rid, &pr, &Rr);
  double v[3];
  if (type == IMP_SENS_FRAMEQUAT) {
    double q[4], qr[4];
    object_quat(m, d, ot, oid, q);
    if (rid < 0) {
      imp_copy(out, q, 4);
      return;
    }
    object_quat(m, d, rt, rid, qr);
    imp_quat_conj(qr, qr);
    imp_quat_mul(out, qr, q);
    return;
  }
  if (type == IMP_SENS_FRAMEPOS) {
    imp_copy(v, p, 3);
    if (rid >= 0)
      for (int k = 0; k < 3; k++) v[k] -= pr[k];
  } else {
    column(R, type - IMP_SENS_FRAMEXAXIS, v);
  }
  if (rid >= 0) imp_mat3T_vec(out, Rr, v);
  else imp_copy(out, v, 3);
}

/* framelinvel, frameangvel: world, or as an observer on the reference
   frame sees them */
static void frame_vel_sensor(const imp_model* m, const imp_data* d, int i, double* out) {
  int ot = m->sensor_objtype[i], oid = m->sensor_objid[i];
  int rt = m->sensor_reftype[i], rid = m->sensor_refid[i];
  const double *p, *R;
  double w[3], v[3], res[3];
  object_frame(d, ot, oid, &p, &R);
  point_velocity(m, d, object_body(m, ot, oid), p, w, v);
  int ang = m->sensor_type[i] == IMP_SENS_FRAMEANGVEL;
  if (rid < 0) {
    imp_copy(out, ang ? w : v, 3);
    return;
  }
  const double *pr, *Rr;
  double wr[3], vr[3], rel[3], wxr[3];
  object_frame(d, rt, rid, &pr, &Rr);
  point_velocity(m, d, object_body(m, rt, rid), pr, wr, vr);
  for (int k = 0; k < 3; k++) rel[k] = p[k] - pr[k];
  imp_cross(wxr, wr, rel);
  for (int k = 0; k < 3; k++) res[k] = ang ? w[k] - wr[k] : v[k] - vr[k] - wxr[k];
  imp_mat3T_vec(out, Rr, res);
}

/* the values of sensor i into out (sensor_dim[i] of them) */
static void compute(const imp_model* m, imp_data* d, int i, double* out) {
  int id = m->sensor_objid[i];
  double w[3], v[3], a[3];
  switch (m->sensor_type[i]) {
    case IMP_SENS_TOUCH: out[0] = touch(m, d, id); break;
    case IMP_SENS_ACCELEROMETER:
    case IMP_SENS_VELOCIMETER:
    case IMP_SENS_GYRO: {
      int b = m->site_bodyid[id], t = m->sensor_type[i];
      const double* p = d->site_xpos + 3 * id;
      if (t == IMP_SENS_ACCELEROMETER) point_acceleration(m, d, b, p, w, v);
      else point_velocity(m, d, b, p, w, v);
      imp_mat3T_vec(out, d->site_xmat + 9 * id, t == IMP_SENS_GYRO ? w : v);
      break;
    }
    case IMP_SENS_FORCE:
    case IMP_SENS_TORQUE: {
      int b = m->site_bodyid[id];
      const double* f = d->cfrc_int + 6 * b;
      if (m->sensor_type[i] == IMP_SENS_FORCE) {
        imp_mat3T_vec(out, d->site_xmat + 9 * id, f + 3);
        break;
      }
      double r[3], rf[3];
      from_ref(m, d, b, d->site_xpos + 3 * id, r);
      imp_cross(rf, r, f + 3); /* the torque about the site: t_c - (p - c) x f */
      for (int k = 0; k < 3; k++) a[k] = f[k] - rf[k];
      imp_mat3T_vec(out, d->site_xmat + 9 * id, a);
      break;
    }
    case IMP_SENS_MAGNETOMETER: imp_mat3T_vec(out, d->site_xmat + 9 * id, m->opt.magnetic); break;
    case IMP_SENS_RANGEFINDER:
      column(d->site_xmat + 9 * id, 2, v);
      out[0] = imp_ray(m, d, d->site_xpos + 3 * id, v, m->site_bodyid[id], NULL);
      break;
    case IMP_SENS_JOINTPOS: out[0] = d->qpos[m->jnt_qposadr[id]]; break;
    case IMP_SENS_JOINTVEL: out[0] = d->qvel[m->jnt_dofadr[id]]; break;
    case IMP_SENS_ACTUATORPOS: out[0] = d->actuator_length[id]; break;
    case IMP_SENS_ACTUATORVEL: out[0] = d->actuator_velocity[id]; break;
    case IMP_SENS_ACTUATORFRC: out[0] = d->actuator_force[id]; break;
    case IMP_SENS_JOINTACTFRC: out[0] = d->qfrc_actuator[m->jnt_dofadr[id]]; break;
    case IMP_SENS_TENDONACTFRC:
      out[0] = 0;
      for (int u = 0; u < m->nu; u++)
        if (m->actuator_trntype[u] == IMP_TRN_TENDON && m->actuator_trnid[2 * u] == id)
          out[0] += d->actuator_force[u];
      break;
    case IMP_SENS_BALLQUAT: imp_copy(out, d->qpos + m->jnt_qposadr[id], 4); break;
    case IMP_SENS_BALLANGVEL: imp_copy(out, d->qvel + m->jnt_dofadr[id], 3); break;
    case IMP_SENS_TENDONPOS: out[0] = d->ten_length[id]; break;
    case IMP_SENS_TENDONVEL: out[0] = d->ten_velocity[id]; break;
    case IMP_SENS_JOINTLIMITPOS:
    case IMP_SENS_JOINTLIMITVEL:
    case IMP_SENS_JOINTLIMITFRC:
    case IMP_SENS_TENDONLIMITPOS:
    case IMP_SENS_TENDONLIMITVEL:
    case IMP_SENS_TENDONLIMITFRC: {
      int t = m->sensor_type[i], tendon = t >= IMP_SENS_TENDONLIMITPOS;
      int r = tendon ? limit_row(d, m->njnt + 2 * id, m->njnt + 2 * id + 1) : limit_row(d, id, id);
      /* the distance to the limit itself: a tendon's row rests at its margin */
      double margin = tendon ? m->tendon_margin[id] : 0;
      out[0] = r < 0 ? 0
               : t == IMP_SENS_JOINTLIMITPOS || t == IMP_SENS_TENDONLIMITPOS ? d->efc_pos[r] + margin
               : t == IMP_SENS_JOINTLIMITVEL || t == IMP_SENS_TENDONLIMITVEL ? row_velocity(d, r)
                                                                            : d->efc_impulse[r] / m->opt.timestep;
      break;
    }
    case IMP_SENS_FRAMEPOS:
    case IMP_SENS_FRAMEQUAT:
    case IMP_SENS_FRAMEXAXIS:
    case IMP_SENS_FRAMEYAXIS:
    case IMP_SENS_FRAMEZAXIS: frame_pos_sensor(m, d, i, out); break;
    case IMP_SENS_FRAMELINVEL:
    case IMP_SENS_FRAMEANGVEL: frame_vel_sensor(m, d, i, out); break;
    case IMP_SENS_FRAMELINACC:
    case IMP_SENS_FRAMEANGACC: {
      int ot = m->sensor_objtype[i];
      const double *p, *R;
      object_frame(d, ot, id, &p, &R);
      point_acceleration(m, d, object_body(m, ot, id), p, w, a);
      imp_copy(out, m->sensor_type[i] == IMP_SENS_FRAMEANGACC ? w : a, 3);
      break;
    }
    case IMP_SENS_SUBTREECOM: imp_copy(out, d->subtree_com + 3 * id, 3); break;
    case IMP_SENS_SUBTREELINVEL: imp_copy(out, d->subtree_linvel + 3 * id, 3); break;
    case IMP_SENS_SUBTREEANGMOM: imp_copy(out, d->subtree_angmom + 3 * id, 3); break;
    case IMP_SENS_CLOCK: out[0] = d->time; break;
    default: break; /* user sensors: nothing computes them */
  }
}

/* ---- noise and cutoff ---- */

/* next 64 random bits (splitmix64, Steele, Lea and Flood 2014) */
static uint64_t next_bits(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* a standard normal draw (Box-Muller), uniforms in (0, 1] */
static double normal_draw(uint64_t* s) {
  double u1 = ((double)(next_bits(s) >> 11) + 1) * 0x1.0p-53;
  double u2 = (double)(next_bits(s) >> 11) * 0x1.0p-53;
  return sqrt(-2 * log(u1)) * cos(2 * IMP_PI * u2);
}

/* a rotation by a normal(0, sigma) angle about a uniformly random axis */
static void random_rotation(uint64_t* s, double sigma, double q[4]) {
  double axis[3];
  do {
    for (int k = 0; k < 3; k++) axis[k] = normal_draw(s);
  } while (imp_normalize3(axis) < 1e-9);
  imp_axisangle2quat(q, axis, sigma * normal_draw(s));
}

/* Gaussian noise of standard deviation sigma that keeps the data type:
   real values move freely, positive ones stay >= 0 (and an inactive value,
   <= 0, stays as it is), unit vectors and quaternions are rotated */
static void add_noise(imp_data* d, int datatype, double sigma, double* x, int dim) {
  double q[4];
  switch (datatype) {
    case IMP_SENSDATA_POSITIVE:
      for (int k = 0; k < dim; k++)
        if (x[k] > 0) x[k] = fmax(0, x[k] + sigma * normal_draw(&d->sensor_rng));
      break;
    case IMP_SENSDATA_AXIS:
      random_rotation(&d->sensor_rng, sigma, q);
      imp_quat_rotate(x, q, x);
      break;
    case IMP_SENSDATA_QUATERNION:
      random_rotation(&d->sensor_rng, sigma, q);
      imp_quat_mul(x, q, x);
      break;
    default:
      for (int k = 0; k < dim; k++) x[k] += sigma * normal_draw(&d->sensor_rng);
      break;
  }
}

static void cut(int datatype, double c, double* x, int dim) {
  for (int k = 0; k < dim; k++)
    if (datatype == IMP_SENSDATA_REAL) x[k] = fmax(-c, fmin(c, x[k]));
    else if (datatype == IMP_SENSDATA_POSITIVE) x[k] = fmin(c, x[k]);
}

/* ---- the stage ---- */

/* which shared results the model's acceleration and velocity sensors need */
static void needs(const imp_model* m, int* rne, int* subtree) {
  *rne = *subtree = 0;
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    *rne |= t == IMP_SENS_ACCELEROMETER || t == IMP_SENS_FORCE || t == IMP_SENS_TORQUE ||
            t == IMP_SENS_FRAMELINACC || t == IMP_SENS_FRAMEANGACC;
    *subtree |= t == IMP_SENS_SUBTREELINVEL || t == IMP_SENS_SUBTREEANGMOM;
  }
}

/* 1 when sensor i reads only what the position and velocity stages make,
   so imp_step1 computes it for a controller to read: the limit sensors
   read the constraint rows, which come after the controls here */
static int before_controls(const imp_model* m, int i) {
  switch (m->sensor_type[i]) {
    case IMP_SENS_JOINTLIMITPOS:
    case IMP_SENS_JOINTLIMITVEL:
    case IMP_SENS_TENDONLIMITPOS:
    case IMP_SENS_TENDONLIMITVEL: return 0;
    default:
      return m->sensor_needstage[i] == IMP_STAGE_POS || m->sensor_needstage[i] == IMP_STAGE_VEL;
  }
}

/* the sensors of one phase: those before the controls (early) or the rest */
static void sensor_phase(const imp_model* m, imp_data* d, int early) {
  if (m->nsensor == 0 || (m->opt.disableflags & IMP_DSBL_SENSOR)) return;
  int rne, subtree;
  needs(m, &rne, &subtree);
  if (early && subtree) imp_subtree_vel(m, d); /* velocity sensors */
  if (!early && rne) imp_rne_post_constraint(m, d); /* acceleration sensors */
  int noisy = (m->opt.enableflags & IMP_ENBL_SENSORNOISE) != 0;
  for (int i = 0; i < m->nsensor; i++) {
    double* out = d->sensordata + m->sensor_adr[i];
    int dim = m->sensor_dim[i], dt = m->sensor_datatype[i];
    if (m->sensor_type[i] == IMP_SENS_USER || before_controls(m, i) != early) continue;
    compute(m, d, i, out);
    if (noisy && m->sensor_noise[i] > 0) add_noise(d, dt, m->sensor_noise[i], out, dim);
    if (m->sensor_cutoff[i] > 0) cut(dt, m->sensor_cutoff[i], out, dim);
  }
}

void imp_sensor_pos_vel(const imp_model* m, imp_data* d) { sensor_phase(m, d, 1); }

void imp_sensor_acc(const imp_model* m, imp_data* d) { sensor_phase(m, d, 0); }

void imp_sensor(const imp_model* m, imp_data* d) {
  imp_sensor_pos_vel(m, d);
  imp_sensor_acc(m, d);
}
