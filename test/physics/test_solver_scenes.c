/* Every registered contact solver runs every scene of the solver comparison
 * (issue 5: `impetus run MODEL.xml --solver NAME` works for every name on
 * every scene): the balls in a cube, the 4096:1 heavy stack, the arch, the
 * box pyramid and MuJoCo's humanoid (when libmujoco-samples is installed).
 * Each pair runs long enough for contacts to carry the bodies, and must
 * give what a user needs from any solver, exact or not: the named solver is
 * the one in use and solves problems, the state stays finite without the
 * engine's non-finite reset, and nothing explodes (no body faster than
 * 10 m/s; the fastest honest motion here is a fall of under 0.5 m, 3 m/s).
 * How well each solver does is the comparison's business (impetus solvers
 * --compare); its accuracy per solver is in test_solvers.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "constraint/contact.h"
#include "engine.h"
#include "test_util.h"

#define HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"

typedef struct scene {
  const char *file; /* in models/, or an absolute path */
  int steps;        /* until contacts carry the bodies */
} scene;

static const scene k_scenes[] = {
    {"balls_cube.xml", 60},  /* h 0.005: the lowest ball lands at step 18 */
    {"heavy_stack.xml", 40}, /* resting from the start */
    {"arch.xml", 40},
    {"box_pyramid.xml",
     25},           /* 68 contacts: minmap's dense elimination is slow */
    {HUMANOID, 60}, /* first floor contact at step 43 */
};
#define NSCENE ((int)(sizeof k_scenes / sizeof k_scenes[0]))

static imp_model *load_scene(const scene *s) {
  if (s->file[0] == '/') {
    char err[1000];
    imp_model *m = imp_load_xml(s->file, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
  }
  return imp_test_load_model(s->file);
}

/* fastest body origin over the last step, from positions (qvel mixes in
   angular rates: a rolling ball spins at 10 rad/s honestly) */
static double max_body_speed(const imp_model *m, const imp_data *d,
                             double *xprev) {
  double v = 0;
  for (int b = 1; b < m->nbody; b++) {
    double dx = 0;
    for (int a = 0; a < 3; a++)
      dx += pow(d->xpos[3 * b + a] - xprev[3 * b + a], 2);
    v = fmax(v, isfinite(dx) ? sqrt(dx) / m->opt.timestep : INFINITY);
    for (int a = 0; a < 3; a++)
      xprev[3 * b + a] = d->xpos[3 * b + a];
  }
  return v;
}

/* _i runs over scene x solver */
START_TEST(test_solver_runs_scene) {
  int ns = imp_solver_count();
  const scene *s = &k_scenes[_i / ns];
  const char *solver = imp_solver_name(_i % ns);
  if (s->file[0] == '/' && access(s->file, R_OK) != 0) {
    printf("%s skipped: %s is not installed (libmujoco-samples)\n", solver,
           s->file);
    return;
  }
  imp_model *m = load_scene(s);
  imp_data *d = imp_make_data(m);
  ck_assert_int_eq(imp_set_solver(m, d, solver), 0);
  ck_assert_int_eq(d->solver, _i % ns);
  int solved = 0, worst = IMP_EXIT_CONVERGED;
  double vmax = 0, *xprev = malloc(sizeof(double) * 3 * (size_t)m->nbody);
  ck_assert(xprev != NULL);
  imp_forward(m, d);
  for (int i = 0; i < 3 * m->nbody; i++)
    xprev[i] = d->xpos[i];
  for (int k = 0; k < s->steps; k++) {
    imp_step(m, d);
    solved += d->nefc > 0;
    if (d->nefc > 0 && d->solver_exit > worst)
      worst = d->solver_exit;
    vmax = fmax(vmax, max_body_speed(m, d, xprev));
    for (int i = 0; i < m->nq; i++)
      ck_assert_msg(isfinite(d->qpos[i]),
                    "%s on %s: qpos[%d] not finite at step %d", solver, s->file,
                    i, k);
  }
  printf("%-8s on %-16s: %d steps with constraints, worst exit %d, fastest "
         "body %.3g m/s\n",
         solver, s->file[0] == '/' ? "humanoid.xml" : s->file, solved, worst,
         vmax);
  ck_assert_msg(solved > 0, "%s on %s: no constraint problem was solved",
                solver, s->file);
  ck_assert_msg(d->nwarning_nan == 0, "%s on %s: %d non-finite resets", solver,
                s->file, d->nwarning_nan);
  ck_assert_msg(vmax < 10, "%s on %s: a body moved at %g m/s", solver, s->file,
                vmax);
  free(xprev);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite *su = suite_create("physics_solver_scenes");
  TCase *tc = tcase_create("solver_scenes");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_solver_runs_scene, 0,
                      NSCENE * imp_solver_count());
  suite_add_tcase(su, tc);
  return imp_test_run_suite(su);
}
