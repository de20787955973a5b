/* impetus run MODEL.xml --steps N [--dt H] [--key NAME] [--record FILE
   [--record-solver]] [--every K] [--solver NAME]: simulate and optionally record a trajectory (see the usage text in impetus.c). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "record.h"

/* set by SIGINT/SIGTERM: stop stepping and discard the recording */
static volatile sig_atomic_t interrupted = 0;

static void on_signal(int sig) {
  (void)sig;
  interrupted = 1;
}

/* True when path ends in .csv or .npy (any case), the formats of record.c. */
static int known_extension(const char* path) {
  const char* dot = strrchr(path, '.');
  const char* slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash + 2) || dot == path) return 0;
  return strcasecmp(dot, ".csv") == 0 || strcasecmp(dot, ".npy") == 0;
}

/* True when time, qpos and qvel are all finite. */
static int state_finite(const imp_model* m, const imp_data* d) {
  if (!isfinite(d->time)) return 0;
  for (int i = 0; i < m->nq; i++)
    if (!isfinite(d->qpos[i])) return 0;
  for (int i = 0; i < m->nv; i++)
    if (!isfinite(d->qvel[i])) return 0;
  return 1;
}

/* The arguments of run, once validated. */
typedef struct run_args {
  const char* model;
  long long steps;  /* -1 until given */
  double dt;        /* 0: the model's */
  const char* record;
  long long every;
  const char* key;
  int record_solver; /* --record-solver: the solver columns (IMP_RECORD_SOLVER) */
  const char* solver;/* --solver: a registered contact solver, NULL: the model's */
} run_args;

/* Parse argv into a; 0 on success, or an exit status (usage printed). */
static int parse_args(int argc, char** argv, run_args* a) {
  *a = (run_args){NULL, -1, 0, NULL, 1, NULL, 0, NULL};
  for (int i = 1; i < argc; i++) {
    const char* v = NULL;
    int k;
    if (cli_is_help(argv[i])) {
      cli_usage("run", 0);
      return -1; /* help: exit 0, done */
    }
    if ((k = cli_option(argc, argv, &i, "steps", &v)) != 0) {
      if (k < 0 || cli_parse_ll("steps", v, 0, &a->steps)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "dt", &v)) != 0) {
      if (k < 0 || cli_parse_double("dt", v, 1, &a->dt)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "every", &v)) != 0) {
      if (k < 0 || cli_parse_ll("every", v, 1, &a->every)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "record", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      a->record = v;
    } else if ((k = cli_option(argc, argv, &i, "key", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      a->key = v;
    } else if ((k = cli_option(argc, argv, &i, "solver", &v)) != 0) {
      if (k < 0 || cli_check_solver("run", v)) return CLI_EXIT_USAGE;
      a->solver = v;
    } else if (strcmp(argv[i], "--record-solver") == 0) {
      a->record_solver = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "impetus run: unknown option '%s'\n", argv[i]);
      return CLI_EXIT_USAGE;
    } else if (a->model) {
      fprintf(stderr, "impetus run: one model at a time ('%s' and '%s')\n", a->model, argv[i]);
      return CLI_EXIT_USAGE;
    } else {
      a->model = argv[i];
    }
  }
  if (!a->model) {
    fprintf(stderr, "impetus run: no model given\n");
    return CLI_EXIT_USAGE;
  }
  if (a->steps < 0) {
    fprintf(stderr, "impetus run: --steps N is required\n");
    return CLI_EXIT_USAGE;
  }
  if (a->record_solver && !a->record) {
    fprintf(stderr, "impetus run: --record-solver needs --record FILE\n");
    return CLI_EXIT_USAGE;
  }
  if (a->record && !known_extension(a->record)) {
    fprintf(stderr, "impetus run: --record %s: the file must end in .csv or .npy\n", a->record);
    return CLI_EXIT_USAGE;
  }
  return 0;
}

int cmd_run(int argc, char** argv) {
  run_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc < 0) return 0;
  if (rc > 0) {
    cli_usage("run", 1);
    return rc;
  }

  imp_model* m = cli_load(a.model);
  if (!m) return CLI_EXIT_ERROR;
  /* The loader hands back a mutable model; the override goes in before any
     data exists, after which the model is treated as const. */
  if (a.dt > 0) m->opt.timestep = a.dt;

  int key = -1;
  if (a.key) {
    key = imp_name2id(m, IMP_OBJ_KEY, a.key);
    if (key < 0) {
      fprintf(stderr, "impetus run: %s: no keyframe named '%s'\n", a.model, a.key);
      imp_free_model(m);
      return CLI_EXIT_ERROR;
    }
  }
  imp_data* d = imp_make_data(m);
  if (!d) {
    fprintf(stderr, "impetus run: out of memory making the data\n");
    imp_free_model(m);
    return CLI_EXIT_ERROR;
  }
  if (key >= 0) imp_reset_data_keyframe(m, d, key);
  /* the name was checked with the arguments: failing here is a registry bug */
  if (a.solver && imp_set_solver(m, d, a.solver) != 0) {
    cli_check_solver("run", a.solver);
    imp_free_data(d);
    imp_free_model(m);
    return CLI_EXIT_USAGE;
  }

  imp_recorder* rec = NULL;
  if (a.record) {
    char err[1024] = "";
    rec = imp_recorder_open_flags(a.record, m, a.record_solver ? IMP_RECORD_SOLVER : 0, err,
                                  sizeof err);
    if (!rec) {
      fprintf(stderr, "impetus run: %s\n", err);
      imp_free_data(d);
      imp_free_model(m);
      return CLI_EXIT_ERROR;
    }
  }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  int io_error = rec && imp_recorder_write(rec, m, d) != 0;
  long long rows = rec ? 1 : 0, nonfinite = 0, done = 0, iterations = 0;
  int worst_exit = 0; /* IMP_EXIT_CONVERGED: the exits are ordered good to bad */
  double t0 = cli_now();
  for (long long i = 1; i <= a.steps && !interrupted && !io_error; i++) {
    imp_step(m, d);
    done = i;
    iterations += d->solver_iter;
    if (d->solver_exit > worst_exit) worst_exit = d->solver_exit;
    if (!state_finite(m, d)) nonfinite++;
    if (rec && i % a.every == 0) {
      if (imp_recorder_write(rec, m, d) != 0)
        io_error = 1;
      else
        rows++;
    }
  }
  double wall = cli_now() - t0;

  int status = 0;
  if (interrupted || io_error) {
    if (rec) imp_recorder_abort(rec);
    if (interrupted)
      fprintf(stderr, "impetus run: interrupted after %lld steps%s%s\n", done,
              a.record ? "; nothing written to " : "", a.record ? a.record : "");
    else
      fprintf(stderr, "impetus run: %s: write failed after %lld rows; nothing written\n",
              a.record, rows);
    imp_free_data(d);
    imp_free_model(m);
    return interrupted ? 130 : CLI_EXIT_ERROR;
  }
  if (rec) {
    char err[1024] = "";
    if (imp_recorder_close(rec, err, sizeof err) != 0) {
      fprintf(stderr, "impetus run: %s\n", err);
      status = CLI_EXIT_ERROR;
    }
  }

  int nan_resets = d->nwarning_nan;
  printf("model: %s\n", cli_model_name(m));
  printf("steps: %lld\n", done);
  printf("timestep: %g\n", m->opt.timestep);
  printf("time: %.9g\n", d->time);
  printf("wall_seconds: %.6f\n", wall);
  printf("nan_resets: %d\n", nan_resets);
  const char* solver = imp_solver_name(d->solver);
  printf("solver: %s iterations: %lld worst_exit: %s\n", solver ? solver : "?", iterations,
         cli_exit_name(worst_exit));
  if (a.record && status == 0) {
    printf("record: %s\n", a.record);
    printf("rows: %lld\n", rows);
  }
  if (status == 0 && (nan_resets > 0 || nonfinite > 0)) {
    fprintf(stderr, "impetus run: warning: the state went non-finite: the engine reset it %d times",
            nan_resets);
    if (nonfinite > 0) fprintf(stderr, ", %lld steps ended non-finite", nonfinite);
    fprintf(stderr, " (exit status 3)\n");
    status = CLI_EXIT_NONFINITE;
  }
  imp_free_data(d);
  imp_free_model(m);
  return status;
}
