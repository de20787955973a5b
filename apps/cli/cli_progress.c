/* Progress lines of long runs (see cli_progress.h). */
#define _POSIX_C_SOURCE 200809L

#include "cli_progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"

/* IMPETUS_PROGRESS as seconds >= 0, or -1 when unset or not a number. */
static double forced_interval(void) {
  const char* s = getenv("IMPETUS_PROGRESS");
  if (!s || !*s) return -1;
  char* end = NULL;
  double v = strtod(s, &end);
  return *end || !(v >= 0) || !isfinite(v) ? -1 : v;
}

void cli_progress_start(cli_progress* p, const char* what, int quiet, long long total,
                        double time0) {
  double forced = forced_interval();
  p->on = !quiet && (forced >= 0 || isatty(STDERR_FILENO));
  p->interval = forced >= 0 ? forced : CLI_PROGRESS_SECONDS;
  p->start = cli_now();
  p->next = p->start + p->interval;
  p->time0 = time0;
  p->total = total;
  p->what = what;
}

/* seconds as "1h02m03s", "2m05s" or "7s" into buf */
static void duration(double s, char* buf, int n) {
  if (!isfinite(s) || s < 0) s = 0;
  long long t = (long long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, (size_t)n, "%lldh%02lldm%02llds", t / 3600, t / 60 % 60, t % 60);
  else if (t >= 60)
    snprintf(buf, (size_t)n, "%lldm%02llds", t / 60, t % 60);
  else
    snprintf(buf, (size_t)n, "%llds", t);
}

void cli_progress_line(const cli_progress* p, long long done, double time, double wall,
                       char* buf, int n) {
  char eta[32];
  /* the steps left at the mean speed so far */
  duration(done > 0 ? wall * (double)(p->total - done) / (double)done : 0, eta, sizeof eta);
  /* rounded down: 100% only when done */
  long long pct = p->total > 0 ? done * 100 / p->total : 100;
  double rtf = wall > 0 ? (time - p->time0) / wall : 0;
  snprintf(buf, (size_t)n, "%s: %lld/%lld steps (%lld%%), t = %.4g s, %.3g x real time, ETA %s",
           p->what, done, p->total, pct, time, rtf, eta);
}

void cli_progress_step(cli_progress* p, long long done, double time) {
  if (!p->on) return;
  double now = cli_now();
  if (now < p->next) return;
  p->next = now + p->interval;
  char line[512];
  cli_progress_line(p, done, time, now - p->start, line, sizeof line);
  fprintf(stderr, "%s\n", line);
}
