/* Tests of the stage's memory of retargeted islands (contact.c,
 * IMP_ISLAND_RETARGETED, imp_data.warm_retarget): an island whose answer
 * last step was the retry's, with its contacts' targets at 0, gets a short
 * first try at its own targets (IMP_HOLD_MIN_ITER iterations) before that
 * retry, so a pile whose rounding-size targets conflict no longer spends
 * the whole iteration limit on them every step. models/balls_cube.xml's
 * piles of balls do: the memory is what a step keeps, so a copy of the data
 * continues with the same bits, and so do 1 and 2 threads. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "constraint/contact.h"
#include "test_files.h"
#include "test_util.h"

#define STEPS 400

START_TEST(retargeted_islands_try_their_targets_briefly) {
  imp_model* m = imp_test_load_model("balls_cube.xml");
  imp_data* d = imp_make_data(m);
  int retargeted = 0, again = 0, prev = 0;
  long again_iter = 0;
  for (int s = 0; s < STEPS; s++) {
    imp_step(m, d);
    int now = 0;
    for (int i = 0; i < d->nisland; i++) {
      if (!(d->island_flags[i] & IMP_ISLAND_RETARGETED)) continue;
      now = 1;
      retargeted++;
      ck_assert_int_eq(d->island_exit[i], IMP_EXIT_CONVERGED); /* kept only converged */
      if (prev) again++, again_iter += d->island_iter[i];
    }
    prev = now;
  }
  ck_assert_msg(retargeted >= 50, "%d islands retargeted in %d steps", retargeted, STEPS);
  ck_assert_int_gt(again, 0);
  /* after a retargeted step: the short try and a retry from last step's
     answer, far below the limit of 100 the first solve had */
  ck_assert_msg(again_iter <= (IMP_HOLD_MIN_ITER + 5) * (long)again,
                "%ld iterations on %d islands retargeted twice in a row", again_iter, again);
  imp_free_data(d);
  imp_free_model(m);
}
END_TEST

START_TEST(retarget_memory_is_state) {
  imp_model* m = imp_test_load_model("balls_cube.xml");
  imp_data* a = imp_make_data(m);
  imp_data* b = imp_make_data(m);
  imp_data* c = imp_make_data(m);
  ck_assert_int_eq(imp_set_threads(m, c, 2), 0);
  for (int s = 0; s < 250; s++) imp_step(m, a);
  for (int s = 0; s < 250; s++) imp_step(m, c);
  imp_copy_data(m, b, a); /* mid-pile: islands retargeted in the last steps */
  int flagged = 0;
  for (int i = 0; i < a->nisland; i++) flagged |= (a->island_flags[i] & IMP_ISLAND_RETARGETED) != 0;
  ck_assert_msg(flagged, "no island retargeted at step 250");
  for (int s = 0; s < 100; s++) {
    imp_step(m, a);
    imp_step(m, b);
    imp_step(m, c);
    ck_assert(memcmp(a->qpos, b->qpos, m->nq * sizeof *a->qpos) == 0);
    ck_assert(memcmp(a->qvel, b->qvel, m->nv * sizeof *a->qvel) == 0);
    ck_assert(memcmp(a->qvel, c->qvel, m->nv * sizeof *a->qvel) == 0);
    ck_assert_int_eq(a->solver_iter, b->solver_iter);
  }
  imp_free_data(a);
  imp_free_data(b);
  imp_free_data(c);
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("contact_retarget");
  TCase* tc = tcase_create("retarget");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, retargeted_islands_try_their_targets_briefly);
  tcase_add_test(tc, retarget_memory_is_state);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
