/* Tendons against MuJoCo 2.2.2 (built only when libmujoco-dev is found).
 *
 * Every step of 1000, from the same state and controls, both must give the
 * same tendon lengths, Jacobians (dense), velocities and path points
 * (wrap_obj, wrap_xpos), the same actuator lengths, velocities and forces,
 * and afterwards the same qpos, qvel and sensordata: to TOL. Contact-free
 * models without active limits or equalities (ours are hard, MuJoCo's
 * soft: those are judged by their laws in test_tendon.c):
 *   models/tendons.xml  an arm with a cylinder and a sphere wrap (side
 *                       sites), a wrap through a sphere, pulleys, fixed
 *                       tendons with springs and a servo, a hanging weight;
 *                       each kind of wrap must actually wrap in the run;
 *   inline_swing3d      a ball-jointed arm swinging in 3D (the sphere's
 *                       wrap plane turns) round a sphere on the world and a
 *                       cylinder on the arm, pulled by motors;
 *   inline_implicit     the same stepped by the implicit integrator with
 *                       tendon damping and a tendon servo's kv coupling
 *                       sibling branches: 2.2.2 keeps the derivative only
 *                       on qM's pattern, and so do we;
 *   inline_rk4          RK4 with tendon springs and damping. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "mj_pair.h"
#include "test_util.h"

#define NSTEP 1000
#define TOL 1e-8

static const char* k_swing3d =
    "<mujoco model='swing3d'>\n"
    "  <compiler angle='radian'/>\n"
    "  <option timestep='0.002' integrator='%s'><flag contact='disable'/></option>\n"
    "  <worldbody>\n"
    "    <site name='top' pos='0.05 0.1 0.35'/>\n"
    "    <site name='low' pos='0.1 -0.1 -0.3'/>\n"
    "    <geom name='post' type='sphere' pos='0.15 0 0.15' size='0.05'/>\n"
    "    <site name='post_side' pos='0.25 0.05 0.2'/>\n"
    "    <body name='arm'>\n"
    "      <joint name='shoulder' type='ball' damping='0.02'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.35 0 0' size='0.02'/>\n"
    "      <geom name='drum' type='cylinder' pos='0.2 0 0' size='0.04 0.03' euler='1.2 0.3 0'/>\n"
    "      <site name='a_mid' pos='0.15 0.02 0.05'/>\n"
    "      <site name='a_tip' pos='0.35 0 0.02'/>\n"
    "      <site name='drum_side' pos='0.2 0.05 -0.08'/>\n"
    "      <body name='hand' pos='0.35 0 0'>\n"
    "        <joint name='wrist' axis='0 0 1' damping='0.01'/>\n"
    "        <geom type='box' size='0.05 0.02 0.01' pos='0.05 0 0'/>\n"
    "        <site name='h_tip' pos='0.1 0 0'/>\n"
    "      </body>\n"
    "      <body name='twin' pos='0.1 0 0'>\n"
    "        <joint name='flap' axis='1 0 0' damping='0.01'/>\n"
    "        <geom type='box' size='0.03 0.05 0.005' pos='0 0.05 0'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <tendon>\n"
    "    <spatial name='over_post' %s>\n"
    "      <site site='top'/><geom geom='post' sidesite='post_side'/><site site='a_tip'/>\n"
    "    </spatial>\n"
    "    <spatial name='round_drum' %s>\n"
    "      <site site='low'/><site site='a_mid'/><geom geom='drum' sidesite='drum_side'/>\n"
    "      <site site='h_tip'/>\n"
    "    </spatial>\n"
    "    <fixed name='siblings' %s>\n"
    "      <joint joint='wrist' coef='1'/><joint joint='flap' coef='-0.5'/>\n"
    "    </fixed>\n"
    "  </tendon>\n"
    "  <actuator>\n"
    "    <motor name='m_post' tendon='over_post'/>\n"
    "    <motor name='m_drum' tendon='round_drum'/>\n"
    "    <general name='servo' tendon='siblings' gainprm='0.5' biastype='affine'\n"
    "             biasprm='0 -0.5 -0.05'/>\n"
    "  </actuator>\n"
    "  <sensor>\n"
    "    <tendonpos tendon='over_post'/><tendonvel tendon='round_drum'/>\n"
    "    <tendonpos tendon='siblings'/><actuatorfrc actuator='servo'/>\n"
    "  </sensor>\n"
    "</mujoco>\n";

typedef struct tendon_case {
  const char* name;
  const char* file;       /* in models/, or NULL: inline */
  const char* integrator; /* inline cases */
  const char* spring;     /* attributes of the tendons, inline cases */
  double ctrl[4];
} tendon_case;

static const tendon_case k_cases[] = {
    {"tendons", "tendons.xml", NULL, NULL, {2, -1, 0.005, 0.1}},
    {"inline_swing3d", NULL, "Euler", "", {3, -2, 0.1, 0}},
    {"inline_implicit", NULL, "implicit", "damping='0.3'", {3, -2, 0.1, 0}},
    {"inline_rk4", NULL, "RK4", "stiffness='20' damping='0.1'", {1, -1, 0.1, 0}},
};
#define NCASE ((int)(sizeof k_cases / sizeof k_cases[0]))

static void load_case(const tendon_case* c, pair* p) {
  char path[512];
  if (c->file) {
    snprintf(path, sizeof path, "%s/%s", IMP_MODELS_DIR, c->file);
  } else {
    char xml[8192];
    snprintf(xml, sizeof xml, k_swing3d, c->integrator, c->spring, c->spring, c->spring);
    mjp_write(c->name, xml, path, sizeof path);
  }
  mjp_load(p, c->name, path, path);
  ck_assert_msg(p->m->nwarning == 0, "%s: %s", c->name, p->m->warnings);
}

/* ten_J of tendon t as a dense row */
static void dense_row(const imp_data* d, int t, int nv, double* row) {
  for (int i = 0; i < nv; i++) row[i] = 0;
  for (int i = 0; i < d->ten_J_rownnz[t]; i++)
    row[d->ten_J_colind[d->ten_J_rowadr[t] + i]] = d->ten_J[d->ten_J_rowadr[t] + i];
}

START_TEST(test_tendon_trajectory) {
  const tendon_case* c = &k_cases[_i];
  pair p;
  load_case(c, &p);
  const mjModel* mm = p.mm;
  mjData* md = p.md;
  imp_data* d = p.d;
  int nv = mm->nv;
  ck_assert_int_eq(p.m->ntendon, mm->ntendon);
  ck_assert_int_eq(p.m->nwrap, mm->nwrap);
  ck_assert_int_eq(p.m->nsensordata, mm->nsensordata);
  for (int t = 0; t < mm->ntendon; t++) {
    imp_assert_near(p.m->tendon_length0[t], mm->tendon_length0[t], TOL);
    imp_assert_near(p.m->tendon_lengthspring[2 * t], mm->tendon_lengthspring[t], TOL);
  }
  for (int u = 0; u < mm->nu; u++) md->ctrl[u] = d->ctrl[u] = c->ctrl[u];
  double dev_len = 0, dev_J = 0, dev_vel = 0, dev_path = 0, dev_act = 0, dev_state = 0,
         dev_sens = 0;
  int wrapped[3] = {0, 0, 0}; /* sphere, cylinder, through */
  double mjrow[64], row[64];
  ck_assert(nv <= 64);
  for (int s = 0; s < NSTEP; s++) {
    mj_forward(p.mm, md);
    imp_forward(p.m, d);
    for (int t = 0; t < mm->ntendon; t++) {
      dev_len = fmax(dev_len, fabs(md->ten_length[t] - d->ten_length[t]));
      dev_vel = fmax(dev_vel, fabs(md->ten_velocity[t] - d->ten_velocity[t]));
      dense_row(d, t, nv, row);
      for (int i = 0; i < nv; i++) mjrow[i] = md->ten_J[t * nv + i];
      dev_J = fmax(dev_J, imp_max_abs_diff(mjrow, row, nv));
      ck_assert_int_eq(d->ten_wrapnum[t], md->ten_wrapnum[t]);
      ck_assert_int_eq(d->ten_wrapadr[t], md->ten_wrapadr[t]);
    }
    for (int k = 0; k < md->ten_wrapadr[mm->ntendon - 1] + md->ten_wrapnum[mm->ntendon - 1]; k++) {
      ck_assert_int_eq(d->wrap_obj[k], md->wrap_obj[k]);
      dev_path = fmax(dev_path, imp_max_abs_diff(md->wrap_xpos + 3 * k, d->wrap_xpos + 3 * k, 3));
      int g = md->wrap_obj[k];
      if (g >= 0) { /* a wrap point on geom g: which kind of wrap */
        int through = k + 1 < 2 * mm->nwrap && md->wrap_obj[k + 1] == g &&
                      imp_max_abs_diff(md->wrap_xpos + 3 * k, md->wrap_xpos + 3 * k + 3, 3) == 0;
        wrapped[through ? 2 : mm->geom_type[g] == mjGEOM_SPHERE ? 0 : 1] = 1;
      }
    }
    dev_act = fmax(dev_act, imp_max_abs_diff(md->actuator_length, d->actuator_length, mm->nu));
    dev_act = fmax(dev_act, imp_max_abs_diff(md->actuator_velocity, d->actuator_velocity, mm->nu));
    dev_act = fmax(dev_act, imp_max_abs_diff(md->actuator_force, d->actuator_force, mm->nu));
    mj_step(p.mm, md);
    imp_step(p.m, d);
    dev_state = fmax(dev_state, imp_max_abs_diff(md->qpos, d->qpos, mm->nq));
    dev_state = fmax(dev_state, imp_max_abs_diff(md->qvel, d->qvel, nv));
    dev_sens = fmax(dev_sens, imp_max_abs_diff(md->sensordata, d->sensordata, mm->nsensordata));
  }
  printf("%s: tendon length %.1e, Jacobian %.1e, velocity %.1e, path %.1e, actuators %.1e, "
         "state %.1e, sensors %.1e over %d steps; wrapped sphere %d cylinder %d through %d\n",
         c->name, dev_len, dev_J, dev_vel, dev_path, dev_act, dev_state, dev_sens, NSTEP,
         wrapped[0], wrapped[1], wrapped[2]);
  ck_assert_msg(dev_len < TOL && dev_J < TOL && dev_vel < TOL && dev_path < TOL, "%s: tendons",
                c->name);
  ck_assert_msg(dev_act < TOL, "%s: actuators %g", c->name, dev_act);
  ck_assert_msg(dev_state < TOL, "%s: state %g", c->name, dev_state);
  ck_assert_msg(dev_sens < TOL, "%s: sensors %g", c->name, dev_sens);
  /* the run exercised what it claims to */
  ck_assert_msg(wrapped[0] && wrapped[1], "%s: sphere %d, cylinder %d wraps", c->name, wrapped[0],
                wrapped[1]);
  if (c->file) ck_assert_msg(wrapped[2], "%s: no wrap through a sphere", c->name);
  mjp_free(&p);
}
END_TEST

static Suite* mujoco_tendon_suite(void) {
  Suite* s = suite_create("mujoco_tendon");
  TCase* t = tcase_create("trajectory");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_tendon_trajectory, 0, NCASE);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mujoco_tendon_suite()); }
