/* impetus run MODEL.xml --steps N [--dt H] [--key NAME] [--record FILE
   [--record-solver]] [--every K] [--solver NAME]: simulate, optionally
   record a trajectory, and summarize the run (see the usage text in
   impetus.c).

   Stopping on SIGINT/SIGTERM/SIGHUP (a closed terminal), cli_interrupt.h:
   the loop reads the flag between steps, so a normal run stops cleanly at
   the next step boundary; a step that never ends is cut short by the grace
   alarm, which removes the recording's temporary file (guarded) and exits
   130. Either way nothing half-done is left at the recording's path. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli_interrupt.h"
#include "cli_progress.h"
#include "cmd.h"
#include "constraint/contact.h" /* IMP_EXIT_CONVERGED */
#include "common/ctrl_file.h"
#include "record.h"

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
  long long threads; /* --threads: islands solved on this many threads */
  int load_options;  /* --allow-unsupported */
  const char* ctrl;  /* --ctrl FILE: open-loop controls (ctrl_file.h), NULL none */
  double step_budget;/* --step-budget: work of a step's solves, 0: the default */
} run_args;

/* Parse argv into a; 0 on success, or an exit status (usage printed). */
static int parse_args(int argc, char** argv, run_args* a) {
  *a = (run_args){NULL, -1, 0, NULL, 1, NULL, 0, NULL, 1, 0, NULL, 0};
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
    } else if ((k = cli_option(argc, argv, &i, "threads", &v)) != 0) {
      if (k < 0 || cli_parse_threads("run", v, &a->threads)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "step-budget", &v)) != 0) {
      if (k < 0 || cli_parse_double("step-budget", v, 1, &a->step_budget)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "ctrl", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      a->ctrl = v;
    } else if (strcmp(argv[i], "--record-solver") == 0) {
      a->record_solver = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option '%s'", argv[i]);
    } else if (a->model) {
      return cli_usage_error("one model at a time ('%s' and '%s')", a->model, argv[i]);
    } else {
      a->model = argv[i];
    }
  }
  if (!a->model) {
    return cli_usage_error("no model given");
  }
  if (a->steps < 0) {
    return cli_usage_error("--steps N is required");
  }
  if (a->record_solver && !a->record) {
    return cli_usage_error("--record-solver needs --record FILE");
  }
  if (a->record && !known_extension(a->record)) {
    return cli_usage_error("--record %s: the file must end in .csv or .npy", a->record);
  }
  if (a->record && strlen(a->record) + sizeof ".XXXXXX.tmp" > 4096) { /* cli_interrupt_guard */
    return cli_usage_error("--record: the path is too long");
  }
  return 0;
}

/* What the run saw besides the state, for the summary. */
typedef struct run_stats {
  long long iterations;          /* solver iterations over the run */
  int worst_exit;                /* worst solver exit (exits are ordered good to bad) */
  long long not_converged;       /* steps whose worst island exit was not converged */
  long long work_bounded;        /* steps with an island stopped by the work bound */
  long long over_budget;         /* steps with an island stopped by the step's budget */
  long long nonfinite;           /* steps that ended with a non-finite state */
  double max_speed;              /* largest linear speed of a body's com, m/s */
  int max_speed_body;            /* its body, -1 before any step */
  long long max_speed_step;      /* the step it happened */
} run_stats;

/* Linear speed of a body's centre of mass xipos, from the body's 6D
   velocity v (angular; linear) about the point ref: |v_lin + w x (xipos - ref)|. */
static double com_speed(const double v[6], const double xipos[3], const double ref[3]) {
  double r[3] = {xipos[0] - ref[0], xipos[1] - ref[1], xipos[2] - ref[2]};
  double u[3] = {v[3] + v[1] * r[2] - v[2] * r[1], v[4] + v[2] * r[0] - v[0] * r[2],
                 v[5] + v[0] * r[1] - v[1] * r[0]};
  return sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
}

/* After step `step`: the fastest body's com speed into s. The velocities are
   those the step ended with (qvel), carried by the motion subspaces cdof the
   step computed, as imp_com_vel sums them; vel is nbody x 6 scratch, so no
   allocation per step. Non-finite speeds are left to nan_resets. */
static void track_speed(const imp_model* m, const imp_data* d, double* vel, long long step,
                        run_stats* s) {
  for (int k = 0; k < 6; k++) vel[k] = 0;
  for (int b = 1; b < m->nbody; b++) {
    double* v = vel + 6 * b;
    const double* vp = vel + 6 * m->body_parentid[b];
    for (int k = 0; k < 6; k++) v[k] = vp[k];
    for (int i = 0; i < m->body_dofnum[b]; i++) {
      int dof = m->body_dofadr[b] + i;
      for (int k = 0; k < 6; k++) v[k] += d->cdof[6 * dof + k] * d->qvel[dof];
    }
    double speed = com_speed(v, d->xipos + 3 * b, d->subtree_com + 3 * m->body_rootid[b]);
    if (isfinite(speed) && (speed > s->max_speed || s->max_speed_body < 0)) {
      s->max_speed = speed;
      s->max_speed_body = b;
      s->max_speed_step = step;
    }
  }
}

/* The contact stage's figures of one step, and whether it ended finite, into s. */
static void track_step(const imp_model* m, const imp_data* d, run_stats* s) {
  s->iterations += d->solver_iter;
  if (d->solver_exit > s->worst_exit) s->worst_exit = d->solver_exit;
  if (d->solver_exit != IMP_EXIT_CONVERGED) s->not_converged++;
  if (d->solver_bounded > 0) s->work_bounded++;
  if (d->solver_over_budget > 0) s->over_budget++;
  if (!state_finite(m, d)) s->nonfinite++;
}

/* qpos z of the model's first free joint: its body's world height (a free
   joint sits on a child of the world); NAN when there is none. */
static double root_height(const imp_model* m, const imp_data* d) {
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_type[j] == IMP_JNT_FREE) return d->qpos[m->jnt_qposadr[j] + 2];
  return NAN;
}

/* Print the summary's figures of s and the final state (stdout). */
static void print_summary(const imp_model* m, const imp_data* d, const run_stats* s,
                          long long done, double wall) {
  printf("model: %s\n", cli_model_name(m));
  printf("steps: %lld\n", done);
  printf("timestep: %g\n", m->opt.timestep);
  printf("time: %.9g\n", d->time);
  printf("wall_seconds: %.6f\n", wall);
  printf("nan_resets: %d\n", d->nwarning_nan);
  const char* solver = imp_solver_name(d->solver);
  printf("solver: %s iterations: %lld worst_exit: %s\n", solver ? solver : "?", s->iterations,
         cli_exit_name(s->worst_exit));
  printf("steps_not_converged: %lld\n", s->not_converged);
  printf("steps_work_bounded: %lld\n", s->work_bounded);
  printf("steps_over_budget: %lld\n", s->over_budget);
  printf("max_body_speed: %.9g\n", s->max_speed);
  if (s->max_speed_body < 0) {
    printf("max_body_speed_body: none\n");
  } else {
    const char* name = imp_id2name(m, IMP_OBJ_BODY, s->max_speed_body);
    if (name && name[0])
      printf("max_body_speed_body: %s\n", name);
    else
      printf("max_body_speed_body: #%d\n", s->max_speed_body);
  }
  printf("max_body_speed_step: %lld\n", s->max_speed_step);
  double z = root_height(m, d);
  if (isnan(z))
    printf("root_height: none\n");
  else
    printf("root_height: %.9g\n", z);
}

/* Load the model, apply --dt and --key and --solver: the data to step, or
   NULL with *status set (messages printed). */
static imp_data* prepare(const run_args* a, imp_model** mp, int* status) {
  *status = CLI_EXIT_ERROR;
  imp_model* m = *mp = cli_load(a->model, a->load_options);
  if (!m) return NULL;
  /* The loader hands back a mutable model; the override goes in before any
     data exists, after which the model is treated as const. */
  if (a->dt > 0) m->opt.timestep = a->dt;
  int key = -1;
  if (a->key && (key = cli_find_key(m, a->model, a->key)) < 0) return NULL;
  imp_data* d = imp_make_data(m);
  if (!d) {
    fprintf(stderr, "impetus run: out of memory making the data\n");
    return NULL;
  }
  if (key >= 0) imp_reset_data_keyframe(m, d, key);
  /* the name was checked with the arguments: failing here is a registry bug */
  if (a->solver && imp_set_solver(m, d, a->solver) != 0) {
    cli_check_solver("run", a->solver);
    imp_free_data(d);
    *status = CLI_EXIT_USAGE;
    return NULL;
  }
  if (a->step_budget > 0) imp_set_step_budget(d, a->step_budget); /* > 0: checked */
  if (a->threads > 1 && imp_set_threads(m, d, (int)a->threads) != 0) {
    fprintf(stderr, "impetus run: cannot start %lld threads\n", a->threads);
    imp_free_data(d);
    *status = CLI_EXIT_ERROR;
    return NULL;
  }
  *status = 0;
  return d;
}

/* --ctrl FILE: read and match it, and make it d's controller (through the
   control callback, the path a C program uses). NULL when not asked;
   *failed (message printed) when the file is bad. */
static ctrl_file* open_ctrl(const run_args* a, const imp_model* m, imp_data* d, int* failed) {
  *failed = 0;
  if (!a->ctrl) return NULL;
  char err[4600] = "";
  ctrl_file* c = ctrl_file_load(a->ctrl, m, err, sizeof err);
  if (!c) {
    fprintf(stderr, "impetus run: --ctrl %s\n", err);
    *failed = 1;
    return NULL;
  }
  imp_set_control_callback(d, ctrl_file_control, c);
  long rows = ctrl_file_rows(c);
  double end = d->time + (double)a->steps * m->opt.timestep;
  if (!ctrl_file_timed(c) && rows < a->steps)
    fprintf(stderr, "impetus run: note: %s has %ld rows for %lld steps: its last row also "
            "drives steps %ld to %lld\n", a->ctrl, rows, a->steps, rows + 1, a->steps);
  else if (ctrl_file_timed(c) && ctrl_file_last_time(c) < end - m->opt.timestep)
    fprintf(stderr, "impetus run: note: %s ends at time %g, the run at %g: its last row holds\n",
            a->ctrl, ctrl_file_last_time(c), end);
  return c;
}

/* What the sidecar says produced the recording. */
static imp_record_info record_info(const run_args* a, const imp_data* d) {
  imp_record_info info = {a->model, a->steps, a->every, imp_solver_name(d->solver), a->ctrl};
  return info;
}

/* --keep-partial on an interrupted run: the rows so far, marked incomplete
   in the sidecar; 0, or CLI_EXIT_ERROR when even that failed. */
static int keep_partial_recording(imp_recorder* rec, const char* path, long long done,
                                  long long rows) {
  char err[1024] = "";
  if (imp_recorder_close_partial(rec, err, sizeof err) != 0) {
    fprintf(stderr, "impetus run: interrupted after %lld steps; %s\n", done, err);
    return CLI_EXIT_ERROR;
  }
  fprintf(stderr,
          "impetus run: interrupted after %lld steps; kept %lld rows in %s, marked incomplete "
          "in %s.json\n",
          done, rows, path, path);
  return 0;
}

/* After the summary: how many steps the contact solver ended short of its
   tolerance (the engine warns at the first one only). */
static void report_not_converged(const run_stats* s, long long done) {
  if (s->not_converged > 0)
    fprintf(stderr,
            "impetus run: the contact solver stopped short of its tolerance in %lld of %lld "
            "steps (steps_not_converged)\n",
            s->not_converged, done);
}

/* Open the recording of --record (NULL when not asked; *failed on error). */
static imp_recorder* open_recording(const run_args* a, const imp_model* m, int* failed) {
  *failed = 0;
  if (!a->record) return NULL;
  /* the recorder picks a unique temporary name: the handler learns it with
     the signals blocked, so no forced exit comes between the file's
     creation and the moment the handler knows its name */
  sigset_t old;
  cli_interrupt_hold(&old);
  char err[1024] = "";
  imp_recorder* rec = imp_recorder_open_flags(
      a->record, m, a->record_solver ? IMP_RECORD_SOLVER : 0, err, sizeof err);
  cli_interrupt_guard(imp_recorder_temp_path(rec));
  cli_interrupt_release(&old);
  if (!rec) {
    fprintf(stderr, "impetus run: %s\n", err);
    *failed = 1;
  }
  return rec;
}

int cmd_run(int argc, char** argv) {
  run_args a;
  int load_options = cli_take_load_options(&argc, argv);
  int quiet = cli_take_flag(&argc, argv, "--quiet");
  int keep_partial = cli_take_flag(&argc, argv, "--keep-partial");
  int rc = parse_args(argc, argv, &a);
  a.load_options = load_options;
  if (rc < 0) return 0;
  if (rc > 0) return rc; /* the one-line message is printed */
  if (keep_partial && !a.record) return cli_usage_error("--keep-partial needs --record FILE");
  /* from here on a signal stops the run, also while a large model loads */
  cli_interrupt_install("impetus run", "a step that did not end; nothing written");

  imp_model* m = NULL;
  imp_data* d = prepare(&a, &m, &rc);
  double* vel = d ? malloc(sizeof(double) * 6 * (size_t)m->nbody) : NULL;
  int open_failed = 0;
  ctrl_file* ctl = vel ? open_ctrl(&a, m, d, &open_failed) : NULL;
  imp_recorder* rec = vel && !open_failed ? open_recording(&a, m, &open_failed) : NULL;
  if (!d || !vel || open_failed) {
    if (d && !vel) fprintf(stderr, "impetus run: out of memory\n");
    ctrl_file_free(ctl);
    free(vel);
    imp_free_data(d);
    imp_free_model(m);
    cli_interrupt_done();
    return rc ? rc : CLI_EXIT_ERROR;
  }

  if (rec) {
    imp_record_info info = record_info(&a, d);
    imp_recorder_set_info(rec, &info);
  }
  cli_progress progress;
  cli_progress_start(&progress, "impetus run", quiet, a.steps, d->time);
  int io_error = rec && imp_recorder_write(rec, m, d) != 0;
  long long rows = rec ? 1 : 0, done = 0;
  run_stats s = {0, 0, 0, 0, 0, 0, 0.0, -1, 0};
  double t0 = cli_now();
  for (long long i = 1; i <= a.steps && !cli_interrupted() && !io_error; i++) {
    imp_step(m, d);
    done = i;
    track_step(m, d, &s);
    track_speed(m, d, vel, i, &s);
    if (rec && i % a.every == 0) {
      if (imp_recorder_write(rec, m, d) != 0)
        io_error = 1;
      else
        rows++;
    }
    cli_progress_step(&progress, i, d->time);
  }
  double wall = cli_now() - t0;
  free(vel);
  /* no step is in progress any more: what is left ends by itself, and a
     signal from here on is handled below or not at all */
  cli_interrupt_done();

  int status = 0;
  if (cli_interrupted() && !io_error && rec && keep_partial) {
    int kept = keep_partial_recording(rec, a.record, done, rows);
    imp_free_data(d);
    imp_free_model(m);
    return kept ? kept : 130;
  }
  if (cli_interrupted() || io_error) {
    if (rec) imp_recorder_abort(rec);
    if (cli_interrupted())
      fprintf(stderr, "impetus run: interrupted after %lld steps%s%s\n", done,
              a.record ? "; nothing written to " : "", a.record ? a.record : "");
    else
      fprintf(stderr, "impetus run: %s: write failed after %lld rows; nothing written\n",
              a.record, rows);
    imp_free_data(d);
    imp_free_model(m);
    ctrl_file_free(ctl);
    return cli_interrupted() ? 130 : CLI_EXIT_ERROR;
  }
  if (rec) {
    char err[1024] = "";
    if (imp_recorder_close(rec, err, sizeof err) != 0) {
      fprintf(stderr, "impetus run: %s\n", err);
      status = CLI_EXIT_ERROR;
    }
  }

  print_summary(m, d, &s, done, wall);
  report_not_converged(&s, done);
  if (a.record && status == 0) {
    printf("record: %s\n", a.record);
    printf("rows: %lld\n", rows);
  }
  int nan_resets = d->nwarning_nan;
  if (status == 0 && (nan_resets > 0 || s.nonfinite > 0)) {
    fprintf(stderr, "impetus run: warning: the state went non-finite: the engine reset it %d times",
            nan_resets);
    if (s.nonfinite > 0) fprintf(stderr, ", %lld steps ended non-finite", s.nonfinite);
    fprintf(stderr, " (exit status 3)\n");
    status = CLI_EXIT_NONFINITE;
  }
  imp_free_data(d);
  imp_free_model(m);
  ctrl_file_free(ctl);
  return status;
}
