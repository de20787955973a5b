/* The C API for controllers (engine/step.c, engine/smooth/jacobian.c): imp_step1 and
 * imp_step2 against imp_step, the control callback, Jacobians against finite
 * differences of the engine's own kinematics, M products and solves against
 * a dense M, and names in both directions. MuJoCo 2.2.2's mj_jac*, mj_mulM
 * and mj_solveM are compared in test/mujoco/test_mujoco_controller.c. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

/* An arm of two hinges (motor, servo with velocity feedback, filtered
   actuator) that falls onto a free box resting on a plane, a pendulum on a
   ball joint, sensors of every stage (noisy ones too, so the order of the
   noise draws counts), a joint limit. %s: the integrator. */
static const char* k_model =
    "<mujoco model='controller'>"
    "  <option timestep='0.002' integrator='%s'><flag sensornoise='enable'/></option>"
    "  <worldbody>"
    "    <geom type='plane' size='2 2 0.1'/>"
    "    <body name='arm' pos='0 0 0.3'>"
    "      <joint name='shoulder' type='hinge' axis='0 1 0' damping='0.2' limited='true'"
    "             range='-0.6 1'/>"
    "      <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.04'/>"
    "      <body name='fore' pos='0.4 0 0'>"
    "        <joint name='elbow' type='hinge' axis='0 1 0' damping='0.1'/>"
    "        <geom type='capsule' fromto='0 0 0 0.3 0 -0.25' size='0.03'/>"
    "        <site name='tip' pos='0.3 0 -0.25' size='0.01'/>"
    "      </body>"
    "    </body>"
    "    <body name='box' pos='0.5 0.02 0.1' euler='0 0 20'>"
    "      <freejoint name='box'/>"
    "      <geom type='box' size='0.05 0.06 0.05'/>"
    "      <site name='boxsite' type='box' size='0.06 0.07 0.06'/>"
    "    </body>"
    "    <body name='bob' pos='-0.3 0 0.4'>"
    "      <joint type='ball' name='ball' damping='0.05'/>"
    "      <geom type='capsule' fromto='0 0 0 0.05 0.1 -0.2' size='0.03'/>"
    "      <site name='bobsite' pos='0.05 0.1 -0.2'/>"
    "    </body>"
    "  </worldbody>"
    "  <actuator>"
    "    <motor name='m_shoulder' joint='shoulder' gear='5' ctrllimited='true' ctrlrange='-2 2'/>"
    "    <position name='p_elbow' joint='elbow' kp='20' kv='1'/>"
    "    <general name='filt' joint='elbow' dyntype='filter' dynprm='0.05' gainprm='1'/>"
    "  </actuator>"
    "  <sensor>"
    "    <jointpos joint='shoulder' noise='0.01'/>"
    "    <jointvel joint='elbow' noise='0.02'/>"
    "    <touch site='boxsite' noise='0.1'/>"
    "    <accelerometer site='tip'/>"
    "    <framepos objtype='site' objname='tip'/>"
    "    <jointlimitpos joint='shoulder'/>"
    "    <actuatorpos actuator='p_elbow'/>"
    "    <actuatorvel actuator='p_elbow' noise='0.01'/>"
    "    <actuatorfrc actuator='p_elbow'/>"
    "  </sensor>"
    "</mujoco>";

static imp_model* load_integrator(const char* integ) {
  char xml[8192];
  ck_assert_int_lt(snprintf(xml, sizeof xml, k_model, integ), (int)sizeof xml);
  return imp_test_load_string_nowarn(xml);
}

/* A feedback controller that reads the state, a noisy sensor and time;
   the shoulder's control leaves its ctrlrange at times (clamped). */
static void controller(const imp_model* m, imp_data* d, void* user) {
  int* calls = user;
  if (calls) (*calls)++;
  d->ctrl[0] = 3 * sin(3 * d->time) - 0.5 * d->qvel[0];
  d->ctrl[1] = 0.5 * cos(2 * d->time) - 0.1 * d->sensordata[0];
  d->ctrl[2] = 0.3 + 0.1 * d->sensordata[m->sensor_adr[1]];
}

/* Bitwise equality of everything a user reads after a step. */
static void assert_same_state(const imp_model* m, const imp_data* a, const imp_data* b, int step,
                              const char* integ) {
  const char* what = NULL;
  if (memcmp(&a->time, &b->time, sizeof(double))) what = "time";
  else if (memcmp(a->qpos, b->qpos, sizeof(double) * m->nq)) what = "qpos";
  else if (memcmp(a->qvel, b->qvel, sizeof(double) * m->nv)) what = "qvel";
  else if (memcmp(a->act, b->act, sizeof(double) * m->na)) what = "act";
  else if (memcmp(a->ctrl, b->ctrl, sizeof(double) * m->nu)) what = "ctrl";
  else if (memcmp(a->qacc, b->qacc, sizeof(double) * m->nv)) what = "qacc";
  else if (memcmp(a->sensordata, b->sensordata, sizeof(double) * m->nsensordata))
    what = "sensordata";
  else if (a->ncon != b->ncon) what = "ncon";
  ck_assert_msg(!what, "%s: step %d: %s differs between imp_step and imp_step1/imp_step2",
                integ, step, what);
}

static const char* const k_integrators[] = {"Euler", "implicitfast", "implicit", "RK4"};

/* imp_step with the callback against imp_step1, the same callback, then
   imp_step2: the same bits at every step, contacts and a joint limit
   included, for every integrator. */
START_TEST(test_step_split_callback_bitwise) {
  const char* integ = k_integrators[_i];
  imp_model* m = load_integrator(integ);
  imp_data* a = imp_make_data(m);
  imp_data* b = imp_make_data(m);
  imp_set_control_callback(a, controller, NULL);
  imp_set_control_callback(b, controller, NULL);
  int contact_steps = 0, limit_steps = 0;
  for (int s = 0; s < 600; s++) {
    imp_step(m, a);
    imp_step1(m, b);
    imp_step2(m, b);
    assert_same_state(m, a, b, s, integ);
    contact_steps += a->ncon > 0;
    limit_steps += a->sensordata[m->sensor_adr[5]] != 0;
  }
  ck_assert_int_gt(contact_steps, 300); /* the box rests, the arm hits it */
  ck_assert_int_gt(limit_steps, 0);
  ck_assert_int_eq(a->nwarning_nan, 0);
  imp_free_data(a);
  imp_free_data(b);
  imp_free_model(m);
}
END_TEST

/* imp_step with the callback against imp_step1, the controller called by
   hand on what step1 left (no callback), imp_step2: the same bits. The
   controller reads a sensor, so step1 must have computed the sensors of
   positions and velocities before the point where the callback runs. RK4
   calls the callback again at its later stages, so only the single-stage
   integrators compare this way. */
START_TEST(test_step_split_by_hand_bitwise) {
  const char* integ = k_integrators[_i];
  imp_model* m = load_integrator(integ);
  imp_data* a = imp_make_data(m);
  imp_data* b = imp_make_data(m);
  int calls_a = 0, calls_b = 0;
  imp_set_control_callback(a, controller, &calls_a);
  for (int s = 0; s < 600; s++) {
    imp_step(m, a);
    imp_step1(m, b);
    controller(m, b, &calls_b);
    imp_step2(m, b);
    assert_same_state(m, a, b, s, integ);
  }
  ck_assert_int_eq(calls_a, 600);
  ck_assert_int_eq(calls_b, 600);
  imp_free_data(a);
  imp_free_data(b);
  imp_free_model(m);
}
END_TEST

/* After imp_step1 the sensors of positions and velocities hold the values
   imp_forward gives for the state (noise off here: the draws differ in
   number), before any control is set. */
START_TEST(test_step1_sensors) {
  imp_model* m = load_integrator("Euler");
  m->opt.enableflags &= ~IMP_ENBL_SENSORNOISE;
  imp_data* a = imp_make_data(m);
  for (int s = 0; s < 50; s++) imp_step(m, a);
  imp_data* b = imp_make_data(m);
  imp_copy_data(m, b, a);
  imp_forward(m, a);
  memset(b->sensordata, 0, sizeof(double) * m->nsensordata);
  imp_step1(m, b);
  const int pos_vel[] = {0, 1, 4, 6, 7}; /* jointpos, jointvel, framepos, actuatorpos, vel */
  for (int k = 0; k < 5; k++) {
    int i = pos_vel[k], adr = m->sensor_adr[i];
    imp_assert_vec_near(b->sensordata + adr, a->sensordata + adr, m->sensor_dim[i], 0);
  }
  imp_free_data(a);
  imp_free_data(b);
  imp_free_model(m);
}
END_TEST

/* A slider of mass 2 without gravity, a motor of gear 3: the callback's
   ctrl acts in the step that called it (v = h gear ctrl / m after one
   Euler step); it runs once per forward and four times per RK4 step;
   reset keeps it, NULL removes it, a copy keeps its own. */
static void set_one(const imp_model* m, imp_data* d, void* user) {
  (void)m;
  (*(int*)user)++;
  d->ctrl[0] = 1;
}

START_TEST(test_callback_point_and_count) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><option gravity='0 0 0' timestep='0.01'/><worldbody><body>"
      "<joint name='x' type='slide' axis='1 0 0'/>"
      "<geom type='sphere' size='0.1' mass='2'/></body></worldbody>"
      "<actuator><motor joint='x' gear='3'/></actuator></mujoco>");
  imp_data* d = imp_make_data(m);
  int calls = 0;
  imp_set_control_callback(d, set_one, &calls);
  imp_step(m, d);
  ck_assert_int_eq(calls, 1);
  imp_assert_near(d->qvel[0], 0.01 * 3 / 2, 1e-15);
  imp_forward(m, d);
  ck_assert_int_eq(calls, 2);
  imp_step1(m, d);
  ck_assert_int_eq(calls, 3);
  d->ctrl[0] = 0; /* the user overrides the callback between the halves */
  imp_step2(m, d);
  ck_assert_int_eq(calls, 3);
  imp_assert_near(d->qvel[0], 0.01 * 3 / 2, 1e-15); /* no force in that step */
  imp_reset_data(m, d);
  imp_step(m, d);
  ck_assert_int_eq(calls, 4);
  imp_data* c = imp_make_data(m);
  imp_copy_data(m, c, d);
  c->ctrl[0] = 0;
  imp_step(m, c);
  ck_assert_int_eq(calls, 4); /* c has no callback of its own: ctrl stays 0 */
  imp_assert_near(c->qvel[0], d->qvel[0], 0);
  imp_set_control_callback(d, NULL, &calls);
  imp_step(m, d);
  ck_assert_int_eq(calls, 4);
  m->opt.integrator = IMP_INT_RK4;
  imp_set_control_callback(d, set_one, &calls);
  imp_step(m, d);
  ck_assert_int_eq(calls, 8);
  imp_free_data(c);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* ---- Jacobians ---- */

/* A state away from the reference: positions moved along random
   velocities through the kinematic map, random velocities. */
static void random_state(const imp_model* m, imp_data* d) {
  double* u = calloc((size_t)m->nv, sizeof(double));
  for (int i = 0; i < m->nv; i++) u[i] = imp_test_urand(-1, 1);
  imp_integrate_pos(m, d->qpos, u, 0.7);
  for (int i = 0; i < m->nv; i++) d->qvel[i] = imp_test_urand(-1, 1);
  free(u);
}

/* world position of the point fixed to body b at local, and b's orientation */
static void point_at(const imp_data* d, int b, const double local[3], double p[3], double q[4]) {
  double r[3];
  imp_mat3_vec(r, d->xmat + 9 * b, local);
  for (int k = 0; k < 3; k++) p[k] = d->xpos[3 * b + k] + r[k];
  memcpy(q, d->xquat + 4 * b, 4 * sizeof(double));
}

/* Central differences of the point's position and of the body's
   orientation along each dof (qpos moved through imp_integrate_pos, the
   engine's map: a free joint's first three dofs in the world, its rotation
   in the body frame) match imp_jac's columns. */
START_TEST(test_jac_finite_differences) {
  imp_model* m = load_integrator("Euler");
  imp_data* d = imp_make_data(m);
  imp_data* e = imp_make_data(m);
  const int nv = m->nv;
  double* jacp = calloc(3 * (size_t)nv, sizeof(double));
  double* jacr = calloc(3 * (size_t)nv, sizeof(double));
  double* dq = calloc((size_t)nv, sizeof(double));
  const double eps = 1e-6, local[3] = {0.03, -0.05, 0.08};
  double worst_p = 0, worst_r = 0;
  for (int trial = 0; trial < 3; trial++) {
    imp_reset_data(m, d);
    random_state(m, d);
    imp_forward(m, d);
    for (int b = 1; b < m->nbody; b++) {
      double p[3], q[4];
      point_at(d, b, local, p, q);
      imp_jac(m, d, jacp, jacr, p, b);
      for (int k = 0; k < nv; k++) {
        double pp[3], pm[3], qp[4], qm[4], dqr[4], qmc[4];
        for (int s = 0; s < 2; s++) {
          imp_copy_data(m, e, d);
          imp_zero(dq, nv);
          dq[k] = 1;
          imp_integrate_pos(m, e->qpos, dq, s ? -eps : eps);
          imp_kinematics(m, e);
          point_at(e, b, local, s ? pm : pp, s ? qm : qp);
        }
        /* rotation from qm to qp in the world frame: qp qm^-1 = exp(w 2 eps / 2) */
        imp_quat_conj(qmc, qm);
        imp_quat_mul(dqr, qp, qmc);
        if (dqr[0] < 0)
          for (int c = 0; c < 4; c++) dqr[c] = -dqr[c];
        double sn = sqrt(dqr[1] * dqr[1] + dqr[2] * dqr[2] + dqr[3] * dqr[3]);
        double angle = 2 * atan2(sn, dqr[0]), s = sn > 0 ? angle / sn : 2;
        for (int a = 0; a < 3; a++) {
          double fdp = (pp[a] - pm[a]) / (2 * eps), fdr = s * dqr[1 + a] / (2 * eps);
          worst_p = fmax(worst_p, fabs(fdp - jacp[a * nv + k]));
          worst_r = fmax(worst_r, fabs(fdr - jacr[a * nv + k]));
          ck_assert_msg(fabs(fdp - jacp[a * nv + k]) < 1e-8,
                        "body %d dof %d row %d: jacp %.12g, differences %.12g", b, k, a,
                        jacp[a * nv + k], fdp);
          ck_assert_msg(fabs(fdr - jacr[a * nv + k]) < 1e-8,
                        "body %d dof %d row %d: jacr %.12g, differences %.12g", b, k, a,
                        jacr[a * nv + k], fdr);
        }
      }
    }
  }
  /* a finite-difference check that cannot pass by accident: the columns are
     not all zero */
  ck_assert_double_gt(imp_max_abs(jacp, 3 * nv), 0.05);
  free(jacp);
  free(jacr);
  free(dq);
  imp_free_data(e);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* The Jacobians map qvel to the velocities the engine computes itself:
   a site's velocimeter-style linear velocity (from cvel) and the body's
   angular velocity; the site/body/com/geom forms are imp_jac at their
   points; columns of other branches are zero; NULL skips a part. */
START_TEST(test_jac_velocities_and_forms) {
  imp_model* m = load_integrator("Euler");
  imp_data* d = imp_make_data(m);
  const int nv = m->nv;
  random_state(m, d);
  imp_forward(m, d);
  double* jp = calloc(3 * (size_t)nv, sizeof(double));
  double* jr = calloc(3 * (size_t)nv, sizeof(double));
  double* jp2 = calloc(3 * (size_t)nv, sizeof(double));
  double* jr2 = calloc(3 * (size_t)nv, sizeof(double));
  int tip = imp_test_id(m, IMP_OBJ_SITE, "tip"), fore = imp_test_id(m, IMP_OBJ_BODY, "fore");
  imp_jac_site(m, d, jp, jr, tip);
  imp_jac(m, d, jp2, jr2, d->site_xpos + 3 * tip, fore);
  imp_assert_vec_near(jp, jp2, 3 * nv, 0);
  imp_assert_vec_near(jr, jr2, 3 * nv, 0);
  /* v = jacp qvel against the finite difference of the site's position over a
     short time: positions advanced by the kinematic map */
  imp_data* e = imp_make_data(m);
  double v[3], w[3], pp[3], pm[3];
  const double dt = 1e-6;
  for (int s = 0; s < 2; s++) {
    imp_copy_data(m, e, d);
    imp_integrate_pos(m, e->qpos, e->qvel, s ? -dt : dt);
    imp_kinematics(m, e);
    memcpy(s ? pm : pp, e->site_xpos + 3 * tip, sizeof pp);
  }
  for (int a = 0; a < 3; a++) {
    v[a] = imp_dot(jp + a * nv, d->qvel, nv);
    w[a] = imp_dot(jr + a * nv, d->qvel, nv);
    imp_assert_near(v[a], (pp[a] - pm[a]) / (2 * dt), 1e-8);
    imp_assert_near(w[a], d->cvel[6 * fore + a], 1e-12); /* cvel's angular part is world */
  }
  /* the box's Jacobian has only its free joint's six columns */
  int box = imp_test_id(m, IMP_OBJ_BODY, "box");
  int adr = m->jnt_dofadr[imp_test_id(m, IMP_OBJ_JOINT, "box")];
  imp_jac_body(m, d, jp, jr, box);
  for (int a = 0; a < 3; a++)
    for (int k = 0; k < nv; k++) {
      int own = k >= adr && k < adr + 6;
      if (!own) ck_assert(jp[a * nv + k] == 0 && jr[a * nv + k] == 0);
      /* the free joint's linear dofs move the frame origin one to one */
      if (k >= adr && k < adr + 3) imp_assert_near(jp[a * nv + k], a == k - adr, 0);
    }
  imp_jac(m, d, jp2, NULL, d->xpos + 3 * box, box);
  imp_assert_vec_near(jp2, jp, 3 * nv, 0);
  imp_jac(m, d, NULL, jr2, d->xpos + 3 * box, box);
  imp_assert_vec_near(jr2, jr, 3 * nv, 0);
  imp_jac_body_com(m, d, jp, jr, fore);
  imp_jac(m, d, jp2, jr2, d->xipos + 3 * fore, fore);
  imp_assert_vec_near(jp, jp2, 3 * nv, 0);
  imp_jac_geom(m, d, jp, jr, m->body_geomadr[fore]);
  imp_jac(m, d, jp2, jr2, d->geom_xpos + 3 * m->body_geomadr[fore], fore);
  imp_assert_vec_near(jp, jp2, 3 * nv, 0);
  imp_jac_body(m, d, jp, jr, 0); /* the world: nothing moves it */
  for (int i = 0; i < 3 * nv; i++) ck_assert(jp[i] == 0 && jr[i] == 0);
  free(jp);
  free(jr);
  free(jp2);
  free(jr2);
  imp_free_data(e);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* ---- M ---- */

/* dense nv x nv M from the tree-sparse qM: M_ij at dof_Madr[i] + the steps
   from i up to its ancestor j (types.h) */
static void dense_m(const imp_model* m, const imp_data* d, double* M) {
  const int nv = m->nv;
  imp_zero(M, nv * nv);
  for (int i = 0; i < nv; i++) {
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j], adr++)
      M[i * nv + j] = M[j * nv + i] = d->qM[adr];
  }
}

/* imp_mul_m equals the dense product; imp_solve_m inverts it for three
   vectors at once, in place too. */
START_TEST(test_mul_solve_m) {
  imp_model* m = load_integrator("Euler");
  imp_data* d = imp_make_data(m);
  const int nv = m->nv;
  random_state(m, d);
  imp_forward(m, d);
  double* M = calloc((size_t)nv * nv, sizeof(double));
  double* y = calloc(3 * (size_t)nv, sizeof(double));
  double* x = calloc(3 * (size_t)nv, sizeof(double));
  double* r = calloc(3 * (size_t)nv, sizeof(double));
  dense_m(m, d, M);
  int coupled = 0; /* the arm's two hinges share off-diagonal inertia */
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < i; j++) coupled += M[i * nv + j] != 0;
  ck_assert_int_gt(coupled, 3);
  for (int i = 0; i < 3 * nv; i++) y[i] = imp_test_urand(-1, 1);
  for (int v = 0; v < 3; v++) {
    imp_mul_m(m, d, r, y + v * nv);
    for (int i = 0; i < nv; i++)
      imp_assert_near(r[i], imp_dot(M + i * nv, y + v * nv, nv), 1e-14);
  }
  imp_solve_m(m, d, x, y, 3);
  for (int v = 0; v < 3; v++) {
    for (int i = 0; i < nv; i++)
      imp_assert_near(imp_dot(M + i * nv, x + v * nv, nv), y[v * nv + i], 1e-12);
  }
  memcpy(r, y, 3 * (size_t)nv * sizeof(double));
  imp_solve_m(m, d, r, r, 3);
  imp_assert_vec_near(r, x, 3 * nv, 0);
  free(M);
  free(y);
  free(x);
  free(r);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

/* Every named object of every type is found by its name, and the name of
   every id is the one it was given; unnamed objects give "". */
START_TEST(test_names_both_directions) {
  imp_model* m = load_integrator("Euler");
  int named = 0;
  for (int t = 0; t < IMP_NOBJTYPES; t++)
    for (int id = 0;; id++) {
      const char* name = imp_id2name(m, (imp_obj_type)t, id);
      if (!name) break;
      if (!name[0]) continue;
      ck_assert_int_eq(imp_name2id(m, (imp_obj_type)t, name), id);
      named++;
    }
  ck_assert_int_ge(named, 14);
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_ACTUATOR, 1), "p_elbow");
  ck_assert_str_eq(imp_id2name(m, IMP_OBJ_JOINT, imp_test_id(m, IMP_OBJ_JOINT, "ball")), "ball");
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_ACTUATOR, "nope"), -1);
  ck_assert_ptr_null(imp_id2name(m, IMP_OBJ_ACTUATOR, m->nu));
  imp_free_model(m);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("controller");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_step_split_callback_bitwise, 0, 4);
  tcase_add_loop_test(tc, test_step_split_by_hand_bitwise, 0, 3);
  tcase_add_test(tc, test_step1_sensors);
  tcase_add_test(tc, test_callback_point_and_count);
  tcase_add_test(tc, test_jac_finite_differences);
  tcase_add_test(tc, test_jac_velocities_and_forms);
  tcase_add_test(tc, test_mul_solve_m);
  tcase_add_test(tc, test_names_both_directions);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(suite()); }
