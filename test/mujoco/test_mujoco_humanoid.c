/* MuJoCo's humanoid (Debian's libmujoco-samples) with the default contact
 * solver, the scene of issue 4's "done means": it falls, lands and lies on
 * the floor without explosion, jitter or NaN.
 *
 * What is checked, and against what:
 *  - the fall: until the first contact both simulators integrate the same
 *    smooth dynamics, so the first step with a floor contact is MuJoCo
 *    2.2.2's first such step (mj_step on the same file);
 *  - after landing, for 10 s (4 to 14 s): no NaN reset, the torso between
 *    0.05 and 0.5 m above the floor, penetration below 1 mm at every step;
 *  - no jitter: from 5 to 12 s every joint speed stays below 0.01 (rad or
 *    m)/s at every step (a limb chattering against a limit showed up as
 *    0.32 rad/s, measured before the fix of limit activation; measured now
 *    1.4e-3 at most; one settling event at 4.47 s moves an ankle at
 *    0.077 rad/s, hence the later start);
 *  - the solver converges on every step of the resting phase.
 * The humanoid sits after landing and, as a balanced seated body, tips
 * over slowly (measured: it falls to lying at about 18 s and then lies
 * still); the resting window ends before that. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>

#include "constraint/contact.h"
#include "test_util.h"

#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"

/* First step (1-based) after which the floor touches the humanoid in MuJoCo. */
static int mujoco_first_contact_step(int maxsteps) {
  char err[1000];
  mjModel* mm = mj_loadXML(HUMANOID, NULL, err, sizeof err);
  ck_assert_msg(mm != NULL, "MuJoCo could not load %s: %s", HUMANOID, err);
  mjData* md = mj_makeData(mm);
  int first = -1;
  for (int s = 1; s <= maxsteps && first < 0; s++) {
    mj_step(mm, md);
    if (md->ncon > 0) first = s;
  }
  mj_deleteData(md);
  mj_deleteModel(mm);
  return first;
}

START_TEST(test_humanoid_falls_lands_and_rests) {
  char err[1000];
  imp_model* m = imp_load_xml(HUMANOID, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  imp_data* d = imp_make_data(m);
  ck_assert_str_eq(imp_solver_name(d->solver), "todorov");
  double h = m->opt.timestep;
  int first = -1, nrest = 0, nconv = 0;
  double vmax = 0, penmax = 0, zmin = INFINITY, zmax = -INFINITY;
  for (int s = 1; d->time < 14 - 0.5 * h; s++) {
    imp_step(m, d);
    if (first < 0 && d->ncon > 0) first = s;
    if (d->time < 4 - 0.5 * h) continue;
    nrest++;
    nconv += d->solver_exit == IMP_EXIT_CONVERGED;
    if (d->time >= 5 - 0.5 * h && d->time <= 12 + 0.5 * h)
      for (int i = 0; i < m->nv; i++) vmax = fmax(vmax, fabs(d->qvel[i]));
    for (int i = 0; i < d->ncon; i++) penmax = fmax(penmax, -d->contact[i].dist);
    zmin = fmin(zmin, d->qpos[2]);
    zmax = fmax(zmax, d->qpos[2]);
  }
  int mj_first = mujoco_first_contact_step(1000);
  printf("humanoid: first floor contact at step %d (MuJoCo 2.2.2: %d); 5-12 s: max |qvel| "
         "%.3e; 4-14 s: max penetration %.3e m, torso z in [%.4f, %.4f] m, solver converged on %d of "
         "%d steps, %d NaN resets\n",
         first, mj_first, vmax, penmax, zmin, zmax, nconv, nrest, d->nwarning_nan);
  ck_assert_int_eq(d->nwarning_nan, 0);
  ck_assert_int_eq(first, mj_first);
  ck_assert_msg(vmax < 0.01, "the resting humanoid moves: max |qvel| = %.3e", vmax);
  ck_assert_msg(penmax < 1e-3, "penetration %.3e m while resting", penmax);
  ck_assert_msg(zmin > 0.05 && zmax < 0.5, "torso height left [0.05, 0.5]: [%g, %g]", zmin,
                zmax);
  ck_assert_int_eq(nconv, nrest);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

static Suite* humanoid_suite(void) {
  Suite* s = suite_create("mujoco_humanoid");
  TCase* tc = tcase_create("rest");
  tcase_set_timeout(tc, 300); /* the sanitizer build is about 30x slower */
  tcase_add_test(tc, test_humanoid_falls_lands_and_rests);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(humanoid_suite()); }
