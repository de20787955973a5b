/* Differential tests of the implicit-in-velocity integrators against MuJoCo
 * 2.2.2 (built only when libmujoco-dev is found).
 *
 * 2.2.2 has integrator="implicit" (D = damping, actuator and RNE velocity
 * derivatives) but not yet "implicitfast" (the same without the RNE
 * derivatives, D symmetrized; MuJoCo 2.3.3). On a model without Coriolis
 * or centrifugal forces the two are the same step: one hinge or slider
 * whose axis is fixed in the world, and chains of sliders (the RNE bias of
 * pure translation does not depend on the velocity), where D is the
 * diagonal of damping and actuator terms. So:
 *
 *   - implicitfast (ours) = implicit (2.2.2) on such models: servos with
 *     stiff kp and kv at a timestep where Euler explodes, general actuators
 *     with affine bias and gain velocity terms, gear, joint damping;
 *   - implicit (ours) = implicit (2.2.2) on models with Coriolis,
 *     centrifugal and gyroscopic forces: fast double pendulums, ball and
 *     free joints, the humanoid; here the RNE derivative matters.
 *
 * Contact-free models (no constraint rows): the constraint stage poses its
 * problem differently from MuJoCo's, the integrators are what is compared.
 * Every case prints its deviation so ctest -V shows how close we are. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mj_pair.h"
#include "test_util.h"

/* ---- the models: %s is the integrator, written into both files ---- */

/* A hinge about the world z axis (gravity does not turn it) with a stiff
   position servo: kp h^2 / I = 100 at the 0.01 s step, so Euler's
   explicit damping kv h / I = 20 explodes at once. */
static const char* k_hinge_servo =
    "<mujoco model='hinge_servo'>\n"
    "  <option timestep='0.01' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1'>\n"
    "      <joint name='j' type='hinge' axis='0 0 1' damping='0.5' armature='0.01'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.05' mass='2'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <general joint='j' gear='2' gaintype='fixed' biastype='affine'\n"
    "             gainprm='1000' biasprm='0 -1000 -100'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

/* The same servo with forcerange 30: it saturates while it swings in. The
   velocity term stays implicit with the slope of the unclamped law, as in
   2.2.2 (dynamics.c says why). */
static const char* k_hinge_clamped =
    "<mujoco model='hinge_servo_clamped'>\n"
    "  <option timestep='0.01' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1'>\n"
    "      <joint name='j' type='hinge' axis='0 0 1' damping='0.5' armature='0.01'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.05' mass='2'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <general joint='j' gear='2' gaintype='fixed' biastype='affine' forcelimited='true'\n"
    "             forcerange='-30 30' gainprm='1000' biasprm='0 -1000 -100'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

/* Two sliders in a chain (pure translation: no velocity product terms)
   with general actuators: affine bias and affine gain (velocity terms
   b2 and g2 ctrl), gear, joint damping, a motor that has no derivative. */
static const char* k_slider_chain =
    "<mujoco model='slider_chain'>\n"
    "  <option timestep='0.005' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1'>\n"
    "      <joint name='x' type='slide' axis='1 0 0' damping='3'/>\n"
    "      <geom type='box' size='0.1 0.1 0.1' mass='1.5'/>\n"
    "      <body pos='0 0 -0.3'>\n"
    "        <joint name='z' type='slide' axis='0.3 0 1' stiffness='40' damping='0.2'/>\n"
    "        <geom type='sphere' size='0.05' mass='0.4'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <general joint='x' gear='1.5' gaintype='affine' biastype='affine'\n"
    "             gainprm='50 -5 -20' biasprm='1 -300 -40'/>\n"
    "    <general joint='z' gaintype='fixed' biastype='affine' gainprm='800'\n"
    "             biasprm='0 -800 -60'/>\n"
    "    <motor joint='z' gear='0.7'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

/* A fast double pendulum under gravity with a damped servo on its first
   joint: Coriolis and centrifugal forces couple the joints. */
static const char* k_double_pendulum =
    "<mujoco model='double_pendulum_fast'>\n"
    "  <option timestep='0.002' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 2'>\n"
    "      <joint name='a' type='hinge' axis='0 1 0' damping='0.05'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.04'/>\n"
    "      <body pos='0.5 0 0'>\n"
    "        <joint name='b' type='hinge' axis='0 1 0'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.4 0 -0.1' size='0.04'/>\n"
    "        <body pos='0.4 0 -0.1'>\n"
    "          <joint type='hinge' axis='1 0 0' armature='0.002'/>\n"
    "          <geom type='box' size='0.1 0.03 0.05'/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <general joint='a' gaintype='fixed' biastype='affine' gainprm='30'\n"
    "             biasprm='0 -30 -3'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

/* Ball and free joints: gyroscopic forces of asymmetric bodies (principal
   moments given: a fullinertia would differ by MuJoCo's eigen-solver's
   1e-10, test_mujoco_diff.c). */
static const char* k_ball_free =
    "<mujoco model='ball_free_implicit'>\n"
    "  <option timestep='0.002' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <body name='floater' pos='0 0 2' quat='0.8 0.2 -0.4 0.4'>\n"
    "      <freejoint/>\n"
    "      <inertial pos='0.05 -0.02 0.03' quat='0.9 0.1 -0.3 0.2' mass='1.3'\n"
    "                diaginertia='0.05 0.03 0.02'/>\n"
    "      <body pos='0.1 0 -0.1'>\n"
    "        <joint type='ball' damping='0.02'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0 0.1 -0.3' size='0.02'/>\n"
    "        <body pos='0 0.1 -0.3'>\n"
    "          <joint type='ball' armature='0.01'/>\n"
    "          <joint name='s' type='slide' axis='0 1 0' stiffness='20' damping='0.01'/>\n"
    "          <geom type='ellipsoid' size='0.05 0.03 0.04'/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <general joint='s' gaintype='fixed' biastype='affine' gainprm='5' biasprm='0 -5 -2'/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

typedef struct implicit_case {
  const char* name;
  const char* xml;  /* printf format: the integrator */
  const char* ours; /* our integrator, compared with MuJoCo's implicit */
  int nstep;
  double vscale;    /* initial qvel amplitude */
  double tol;
} implicit_case;

static const implicit_case k_cases[] = {
    {"hinge_servo", NULL, "implicitfast", 500, 3, 1e-10},
    {"hinge_servo_clamped", NULL, "implicitfast", 300, 0.5, 1e-10},
    {"slider_chain", NULL, "implicitfast", 1000, 2, 1e-10},
    {"hinge_servo", NULL, "implicit", 500, 3, 1e-10},
    {"hinge_servo_clamped", NULL, "implicit", 300, 0.5, 1e-10},
    {"slider_chain", NULL, "implicit", 1000, 2, 1e-10},
    {"double_pendulum_fast", NULL, "implicit", 1000, 15, 1e-10},
    {"ball_free_implicit", NULL, "implicit", 1000, 8, 1e-10},
};
#define NCASE ((int)(sizeof k_cases / sizeof k_cases[0]))

static const char* case_format(int i) {
  const char* n = k_cases[i].name;
  if (!strcmp(n, "hinge_servo")) return k_hinge_servo;
  if (!strcmp(n, "hinge_servo_clamped")) return k_hinge_clamped;
  if (!strcmp(n, "slider_chain")) return k_slider_chain;
  if (!strcmp(n, "double_pendulum_fast")) return k_double_pendulum;
  return k_ball_free;
}

/* Write the model with the given integrator to the build tree as
   mjimplicit_<name>_<integrator>.xml; path out. */
static void write_case(int i, const char* integrator, char* path, size_t n) {
  char stem[128], xml[8192];
  snprintf(stem, sizeof stem, "mjimplicit_%s_%s", k_cases[i].name, integrator);
  int len = snprintf(xml, sizeof xml, case_format(i), integrator);
  ck_assert_int_lt(len, (int)sizeof xml);
  mjp_write(stem, xml, path, n);
}


/* MuJoCo's model with integrator="implicit", ours with the case's. */
static void pair_load(int i, pair* p) {
  char mpath[4096], ipath[4096];
  write_case(i, "implicit", mpath, sizeof mpath);
  write_case(i, k_cases[i].ours, ipath, sizeof ipath);
  mjp_load(p, k_cases[i].name, mpath, ipath);
  ck_assert_int_eq(p->mm->opt.integrator, mjINT_IMPLICIT);
  imp_test_no_warnings(p->m);
  ck_assert_int_eq(p->m->nq, p->mm->nq);
  ck_assert_int_eq(p->m->nv, p->mm->nv);
  ck_assert_int_eq(p->m->nu, p->mm->nu);
}

/* Step both from the same state; the largest deviations of qpos, qvel. */
static void run_and_compare(int i, pair* p, const char* start) {
  const implicit_case* c = k_cases + i;
  double dq = 0, dv = 0, vmax = 0, dv1 = 0;
  for (int s = 0; s < c->nstep; s++) {
    mj_step(p->mm, p->md);
    imp_step(p->m, p->d);
    dq = fmax(dq, imp_max_abs_diff(p->md->qpos, p->d->qpos, p->mm->nq));
    dv = fmax(dv, imp_max_abs_diff(p->md->qvel, p->d->qvel, p->mm->nv));
    for (int k = 0; k < p->mm->nv; k++) vmax = fmax(vmax, fabs(p->md->qvel[k]));
    if (s == 0) dv1 = dv;
  }
  printf("model %s, %s vs MuJoCo's implicit (%s): max qpos dev %.2e, max qvel dev %.2e over "
         "%d steps (after 1 step %.2e; max |qvel| %.3g)\n",
         c->name, c->ours, start, dq, dv, c->nstep, dv1, vmax);
  fflush(stdout);
  ck_assert_int_eq(p->d->nwarning_nan, 0);
  ck_assert_msg(dq < c->tol && dv < c->tol * fmax(1, vmax),
                "model %s, %s (%s): qpos dev %.3e, qvel dev %.3e; tolerance %.0e", c->name,
                c->ours, start, dq, dv, c->tol);
}

/* From qpos0 with a velocity and controls inside every range. */
START_TEST(test_implicit_trajectory) {
  pair p;
  pair_load(_i, &p);
  for (int k = 0; k < p.mm->nv; k++)
    p.md->qvel[k] = p.d->qvel[k] = k_cases[_i].vscale * cos(0.9 * k + 0.3);
  for (int u = 0; u < p.mm->nu; u++) p.md->ctrl[u] = p.d->ctrl[u] = 0.6 * sin(1.3 * u + 0.7);
  run_and_compare(_i, &p, "qpos0 + qvel, ctrl");
  mjp_free(&p);
}
END_TEST

/* The comparison can tell the integrators apart: where Coriolis forces
   act, implicitfast (no RNE derivatives) is not MuJoCo's implicit. */
START_TEST(test_implicitfast_differs_where_coriolis_acts) {
  (void)_i;
  int i = 0;
  while (strcmp(k_cases[i].name, "double_pendulum_fast")) i++;
  char mpath[4096], ipath[4096], err[1000] = "";
  write_case(i, "implicit", mpath, sizeof mpath);
  write_case(i, "implicitfast", ipath, sizeof ipath);
  mjModel* mm = mj_loadXML(mpath, NULL, err, sizeof err);
  ck_assert_ptr_nonnull(mm);
  mjData* md = mj_makeData(mm);
  imp_model* m = imp_load_xml(ipath, err, sizeof err);
  ck_assert_ptr_nonnull(m);
  imp_data* d = imp_make_data(m);
  for (int k = 0; k < mm->nv; k++) md->qvel[k] = d->qvel[k] = 15 * cos(0.9 * k + 0.3);
  mj_step(mm, md);
  imp_step(m, d);
  double dv = imp_max_abs_diff(md->qvel, d->qvel, mm->nv);
  printf("model double_pendulum_fast, implicitfast vs MuJoCo's implicit: qvel dev %.2e after "
         "one step\n", dv);
  ck_assert_msg(dv > 1e-4, "implicitfast matched implicit (%.3e): the test cannot see D", dv);
  imp_free_data(d);
  imp_free_model(m);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

/* MuJoCo's humanoid stepped with implicit by both, contacts and limits
   off (the constraint stages differ), from qpos0 with a velocity. */
START_TEST(test_implicit_humanoid) {
  (void)_i;
  const char* path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  char err[1000] = "";
  mjModel* mm = mj_loadXML(path, NULL, err, sizeof err);
  if (!mm) {
    printf("%s not loadable (%s): skipped\n", path, err);
    return;
  }
  mm->opt.integrator = mjINT_IMPLICIT;
  mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT;
  mjData* md = mj_makeData(mm);
  imp_model* m = imp_load_xml(path, err, sizeof err);
  ck_assert_msg(m != NULL, "impetus did not load %s: %s", path, err);
  m->opt.integrator = IMP_INT_IMPLICIT;
  m->opt.disableflags |= IMP_DSBL_CONTACT | IMP_DSBL_LIMIT;
  imp_data* d = imp_make_data(m);
  ck_assert_int_eq(m->nv, mm->nv);
  for (int k = 0; k < mm->nv; k++) md->qvel[k] = d->qvel[k] = 2 * cos(0.7 * k + 0.1);
  for (int u = 0; u < mm->nu; u++) md->ctrl[u] = d->ctrl[u] = 0.3 * sin(1.1 * u);
  double dq = 0, dv = 0, dv1 = 0;
  for (int s = 0; s < 500; s++) {
    mj_step(mm, md);
    imp_step(m, d);
    dq = fmax(dq, imp_max_abs_diff(md->qpos, d->qpos, mm->nq));
    dv = fmax(dv, imp_max_abs_diff(md->qvel, d->qvel, mm->nv));
    if (s == 0) dv1 = dv;
  }
  printf("model humanoid, implicit vs MuJoCo's implicit (no contact, no limits): max qpos dev "
         "%.2e, max qvel dev %.2e over 500 steps (after 1 step %.2e)\n", dq, dv, dv1);
  ck_assert_int_eq(d->nwarning_nan, 0);
  ck_assert_msg(dq < 1e-8 && dv < 1e-8, "humanoid: qpos dev %.3e, qvel dev %.3e", dq, dv);
  imp_free_data(d);
  imp_free_model(m);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

static Suite* implicit_suite(void) {
  Suite* s = suite_create("mujoco_implicit");
  TCase* tc = tcase_create("trajectories");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_implicit_trajectory, 0, NCASE);
  tcase_add_loop_test(tc, test_implicitfast_differs_where_coriolis_acts, 0, 1);
  tcase_add_loop_test(tc, test_implicit_humanoid, 0, 1);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(implicit_suite()); }
