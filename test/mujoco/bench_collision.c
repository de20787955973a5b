/* bench_mujoco_collision MODEL.xml [STEPS]: the time of our collision stage
 * beside MuJoCo 2.2.2's whole step, on the same states. (A benchmark program,
 * built with the differential tests when MuJoCo is found; never a test.)
 *
 * MuJoCo simulates the model with its own contact solver for STEPS steps
 * (default 2000), so humanoids fall and lie on the floor and on each other.
 * At every step the state is copied into an Impetus data, which runs
 * kinematics and then our collision stage alone. Printed per model: MuJoCo's
 * mean step time and its collision timer (mjTIMER_POS_COLLISION), our mean
 * collision time on the same states, the contacts per step of both, and the
 * ratio of our collision time to MuJoCo's whole step. */
#define _POSIX_C_SOURCE 200809L
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/collision.h"

/* MuJoCo's timers read the clock through this callback (seconds here) */
static mjtNum clock_seconds(void) { return imp_timer_now(); }

int main(int argc, char** argv) {
  mjcb_time = clock_seconds;
  if (argc < 2) {
    fprintf(stderr, "usage: bench_mujoco_collision MODEL.xml [STEPS]\n");
    return 2;
  }
  int steps = argc > 2 ? atoi(argv[2]) : 2000;
  char err[1000];
  mjModel* mm = mj_loadXML(argv[1], NULL, err, sizeof err);
  if (!mm) {
    fprintf(stderr, "MuJoCo: %s\n", err);
    return 1;
  }
  imp_model* m = imp_load_xml(argv[1], err, sizeof err);
  if (!m) {
    fprintf(stderr, "Impetus: %s\n", err);
    return 1;
  }
  mjData* md = mj_makeData(mm);
  imp_data* d = imp_make_data(m);
  double mj_step_s = 0, ours_s = 0;
  long long mj_con = 0, our_con = 0;
  for (int s = 0; s < steps; s++) {
    double t0 = imp_timer_now();
    mj_step(mm, md);
    mj_step_s += imp_timer_now() - t0;
    mj_con += md->ncon;
    memcpy(d->qpos, md->qpos, sizeof(double) * (size_t)m->nq);
    imp_kinematics(m, d);
    double c0 = d->timer[IMP_TIMER_COLLISION];
    imp_collision(m, d);
    ours_s += d->timer[IMP_TIMER_COLLISION] - c0;
    our_con += d->ncon;
  }
  double mj_coll = md->timer[mjTIMER_POS_COLLISION].duration;
  printf("model: %s\nsteps: %d\n", argv[1], steps);
  printf("mujoco_step_us: %.3f\n", 1e6 * mj_step_s / steps);
  printf("mujoco_collision_us: %.3f\n", 1e6 * mj_coll / steps);
  printf("impetus_collision_us: %.3f\n", 1e6 * ours_s / steps);
  printf("mujoco_contacts_per_step: %.2f\n", (double)mj_con / steps);
  printf("impetus_contacts_per_step: %.2f\n", (double)our_con / steps);
  printf("impetus_collision_over_mujoco_step: %.3f\n", ours_s / mj_step_s);
  printf("impetus_collision_over_mujoco_collision: %.3f\n", ours_s / mj_coll);
  imp_free_data(d);
  imp_free_model(m);
  mj_deleteData(md);
  mj_deleteModel(mm);
  return 0;
}
