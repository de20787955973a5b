/* Progress of a long command-line run (`impetus run`, `impetus render`):
   one line on stderr every few seconds, when stderr is a terminal and the
   user did not pass --quiet, saying how many steps are done, the simulated
   time, the real-time factor and the time left.

   The environment variable IMPETUS_PROGRESS=SECONDS forces the lines on,
   terminal or not (--quiet still wins), every SECONDS of wall time (0: after every step), so
   tests and logs can have them without a terminal and without timing. */
#ifndef IMPETUS_APPS_CLI_PROGRESS_H
#define IMPETUS_APPS_CLI_PROGRESS_H

/* seconds between lines on a terminal */
#define CLI_PROGRESS_SECONDS 3.0

typedef struct cli_progress {
  int on;            /* print at all */
  double interval;   /* wall seconds between lines */
  double start;      /* wall clock at cli_progress_start */
  double next;       /* wall clock of the next line */
  double time0;      /* simulated time at the start */
  long long total;   /* steps the run will take */
  const char* what;  /* the command, for the line's prefix ("impetus run") */
} cli_progress;

/* Start timing a run of total steps from simulated time time0. quiet
   (--quiet) turns the lines off, also when IMPETUS_PROGRESS asks for them. */
void cli_progress_start(cli_progress* p, const char* what, int quiet, long long total,
                        double time0);

/* After step done (1..total) at simulated time: a line when one is due. */
void cli_progress_step(cli_progress* p, long long done, double time);

/* The line itself: "WHAT: DONE/TOTAL steps (P%), t = T s, R x real time,
   ETA E" into buf (n bytes), for wall seconds since the start. */
void cli_progress_line(const cli_progress* p, long long done, double time, double wall,
                       char* buf, int n);

#endif
