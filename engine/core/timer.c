/* Wall-clock time for d->timer (imp_timer_now, core/core.h): the stages
   time themselves; the times are statistics, never inputs to the physics. */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#include "core/core.h"

double imp_timer_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
