/* The controller API against MuJoCo 2.2.2 (built only when libmujoco-dev is
 * found): imp_jac, imp_jac_body, imp_jac_body_com, imp_jac_geom and
 * imp_jac_site against mj_jac, mj_jacBody, mj_jacBodyCom, mj_jacGeom and
 * mj_jacSite, and imp_mul_m, imp_solve_m against mj_mulM, mj_solveM, at
 * states away from the reference (the same qpos and qvel in both: the
 * layouts are the same, a free joint's angular velocity in the body
 * frame). Models: a tree with free, ball, hinge and slide joints, and
 * MuJoCo's humanoid (Debian's libmujoco-samples). */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "core/mathx.h"
#include "mj_pair.h"
#include "test_util.h"

static const char* k_tree =
    "<mujoco model='controller_tree'>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='2 2 0.1'/>\n"
    "    <body name='torso' pos='0 0 1' euler='10 -20 30'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='0.2 0.1 0.05' pos='0.05 0 0'/>\n"
    "      <site name='s_torso' pos='0.1 0.05 -0.02'/>\n"
    "      <body name='upper' pos='0.2 0 0'>\n"
    "        <joint name='h1' type='hinge' axis='0 1 0.3'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.04'/>\n"
    "        <body name='lower' pos='0.3 0 0'>\n"
    "          <joint name='ball' type='ball'/>\n"
    "          <geom type='capsule' fromto='0 0 0 0.2 0.1 -0.2' size='0.03'/>\n"
    "          <body name='hand' pos='0.2 0.1 -0.2'>\n"
    "            <joint name='s1' type='slide' axis='1 1 0'/>\n"
    "            <joint name='h2' type='hinge' axis='1 0 0' pos='0 0.02 0'/>\n"
    "            <geom name='g_hand' type='ellipsoid' size='0.05 0.03 0.02' pos='0.03 0 0'/>\n"
    "            <site name='s_hand' pos='0.08 -0.01 0.02'/>\n"
    "          </body>\n"
    "        </body>\n"
    "      </body>\n"
    "      <body name='other' pos='-0.2 0 0'>\n"
    "        <joint name='h3' type='hinge' axis='0 0 1'/>\n"
    "        <geom type='sphere' size='0.05' pos='-0.05 0 0'/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='swing' pos='1 0 1'>\n"
    "      <joint name='h4' type='hinge' axis='1 0 0'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0 0 -0.4' size='0.03'/>\n"
    "      <site name='s_swing' pos='0 0 -0.4'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

/* the same random state in both: qpos moved along random velocities by our
   kinematic map, random qvel; then a forward in each */
static void random_state(pair* p) {
  const imp_model* m = p->m;
  double* u = calloc((size_t)m->nv, sizeof(double));
  imp_reset_data(m, p->d);
  for (int i = 0; i < m->nv; i++) u[i] = imp_test_urand(-1, 1);
  imp_integrate_pos(m, p->d->qpos, u, 0.8);
  for (int i = 0; i < m->nv; i++) p->d->qvel[i] = imp_test_urand(-1, 1);
  mj_resetData(p->mm, p->md);
  memcpy(p->md->qpos, p->d->qpos, sizeof(double) * m->nq);
  memcpy(p->md->qvel, p->d->qvel, sizeof(double) * m->nv);
  mj_forward(p->mm, p->md);
  imp_forward(m, p->d);
  free(u);
}

static double max_diff(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

typedef struct worst {
  double jac, mul, solve;
} worst;

/* all Jacobians of every body, geom and site, and M products and solves */
static void compare(pair* p, const char* name, worst* w) {
  const imp_model* m = p->m;
  const int nv = m->nv, n3 = 3 * nv;
  ck_assert_int_eq(p->mm->nv, nv);
  ck_assert_int_eq(p->mm->nbody, m->nbody);
  double* buf = calloc(8 * (size_t)n3 + 4 * (size_t)nv, sizeof(double));
  double *jp = buf, *jr = jp + n3, *mp = jr + n3, *mr = mp + n3;
  double *y = mr + n3, *r1 = y + nv, *r2 = r1 + nv;
  double e;
#define CHECK_JAC(what, id)                                                                      \
  e = fmax(max_diff(jp, mp, n3), max_diff(jr, mr, n3));                                        \
  w->jac = fmax(w->jac, e);                                                                    \
  ck_assert_msg(e <= 1e-12, "%s: %s %d: Jacobians differ from MuJoCo's by %.3e", name, what, id, \
                e)
  for (int b = 0; b < m->nbody; b++) {
    imp_jac_body(m, p->d, jp, jr, b);
    mj_jacBody(p->mm, p->md, mp, mr, b);
    CHECK_JAC("body", b);
    imp_jac_body_com(m, p->d, jp, jr, b);
    mj_jacBodyCom(p->mm, p->md, mp, mr, b);
    CHECK_JAC("body com", b);
    double pt[3] = {p->d->xpos[3 * b] + 0.1, p->d->xpos[3 * b + 1] - 0.2, p->d->xpos[3 * b + 2]};
    imp_jac(m, p->d, jp, jr, pt, b);
    mj_jac(p->mm, p->md, mp, mr, pt, b);
    CHECK_JAC("point of body", b);
  }
  for (int g = 0; g < m->ngeom; g++) {
    imp_jac_geom(m, p->d, jp, jr, g);
    mj_jacGeom(p->mm, p->md, mp, mr, g);
    CHECK_JAC("geom", g);
  }
  for (int s = 0; s < m->nsite; s++) {
    imp_jac_site(m, p->d, jp, jr, s);
    mj_jacSite(p->mm, p->md, mp, mr, s);
    CHECK_JAC("site", s);
  }
#undef CHECK_JAC
  /* M, relative to its largest entry */
  double Mmax = 0;
  for (int i = 0; i < nv; i++) Mmax = fmax(Mmax, fabs(p->d->qM[m->dof_Madr[i]]));
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < nv; i++) y[i] = imp_test_urand(-1, 1);
    imp_mul_m(m, p->d, r1, y);
    mj_mulM(p->mm, p->md, r2, y);
    e = max_diff(r1, r2, nv) / Mmax;
    w->mul = fmax(w->mul, e);
    ck_assert_msg(e <= 1e-12, "%s: M y differs from mj_mulM by %.3e (relative)", name, e);
    imp_solve_m(m, p->d, r1, y, 1);
    mj_solveM(p->mm, p->md, r2, y, 1);
    e = max_diff(r1, r2, nv) / fmax(1, imp_max_abs(r2, nv));
    w->solve = fmax(w->solve, e);
    ck_assert_msg(e <= 1e-11, "%s: M^-1 y differs from mj_solveM by %.3e (relative)", name, e);
  }
  free(buf);
}

/* The tree at ten random states. */
START_TEST(test_controller_api_tree) {
  pair p;
  char path[4096];
  mjp_write("controller_tree", k_tree, path, sizeof path);
  mjp_load(&p, "controller_tree", path, path);
  imp_test_no_warnings(p.m);
  worst w = {0, 0, 0};
  for (int t = 0; t < 10; t++) {
    random_state(&p);
    compare(&p, "controller_tree", &w);
  }
  printf("controller_tree: max |J - J_mujoco| %.3e, |M y| rel %.3e, |M^-1 y| rel %.3e\n", w.jac,
         w.mul, w.solve);
  mjp_free(&p);
}
END_TEST

/* MuJoCo's humanoid at five random states. */
START_TEST(test_controller_api_humanoid) {
  pair p;
  const char* path = MUJOCO_MODEL_DIR "/humanoid/humanoid.xml";
  mjp_load(&p, "humanoid", path, path);
  worst w = {0, 0, 0};
  for (int t = 0; t < 5; t++) {
    random_state(&p);
    compare(&p, "humanoid", &w);
  }
  printf("humanoid: max |J - J_mujoco| %.3e, |M y| rel %.3e, |M^-1 y| rel %.3e\n", w.jac, w.mul,
         w.solve);
  mjp_free(&p);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("mujoco_controller");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_controller_api_tree);
  tcase_add_test(tc, test_controller_api_humanoid);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(suite()); }
