/* impetus batch MODEL.xml --rollouts N --steps K --out DIR [--threads T]
   [--perturb qpos=S,qvel=S] [--seed X] [--key NAME] [--ctrl DIR|FILE]
   [--solver NAME] [--resume] [--quiet]: N rollouts of K steps through
   imp_rollout (engine/rollout.h), each recorded to DIR/rollout_IIIIII.npy
   with its sidecar (engine/record.h), and a manifest DIR/manifest.csv of
   every rollout's outcome (apps/cli/batch.h). See the usage text in impetus.c.

   The files of a rollout depend on the model, its settings, the seed and
   the rollout's index only: the same bits with any --threads, with any
   number of MPI ranks (impetus-mpi, batch_comm.h), and after an
   interruption and --resume.

   Stopping on SIGINT/SIGTERM/SIGHUP (cli_interrupt.h): every thread reads
   the flag after each step; a rollout cut short leaves no file (its
   recorder is aborted), finished rollouts keep theirs, and the manifest
   says which is which. A step that never ends is cut short by the grace
   alarm (exit 130): recordings in progress then leave their temporary
   "rollout_IIIIII.npy.XXXXXX.tmp" files, never a partial file under a
   final name. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch.h"
#include "batch_comm.h"
#include "cli_interrupt.h"
#include "cli_progress.h"
#include "cmd.h"
#include "common/ctrl_file.h"
#include "record.h"

#define BATCH_MAX_ROLLOUTS 10000000LL /* about 50 bytes each in memory */
#define BATCH_PATH_MAX 4000

/* The arguments of batch, once validated. */
typedef struct batch_args {
  const char* model;
  long long rollouts, steps, threads;
  double perturb_qpos, perturb_qvel;
  uint64_t seed;
  const char* key;
  const char* ctrl;   /* FILE for every rollout, or DIR of rollout_IIIIII.csv|npy */
  const char* solver; /* NULL: the model's */
  const char* out;
  int resume, quiet, load_options;
} batch_args;

/* --perturb qpos=S,qvel=S (either or both) */
static int parse_perturb(const char* v, batch_args* a) {
  char buf[256];
  if (strlen(v) >= sizeof buf) return cli_usage_error("--perturb: too long");
  strcpy(buf, v);
  for (char* item = buf; item && *item;) {
    char* next = strchr(item, ',');
    if (next) *next++ = '\0';
    char* eq = strchr(item, '=');
    if (!eq) return cli_usage_error("--perturb: expected qpos=S,qvel=S, got '%s'", v);
    *eq = '\0';
    double* dst = strcmp(item, "qpos") == 0   ? &a->perturb_qpos
                  : strcmp(item, "qvel") == 0 ? &a->perturb_qvel
                                              : NULL;
    if (!dst) return cli_usage_error("--perturb: unknown '%s' (qpos or qvel)", item);
    if (cli_parse_double("perturb", eq + 1, 0, dst) || *dst < 0)
      return *dst < 0 ? cli_usage_error("--perturb: scales must be >= 0") : CLI_EXIT_USAGE;
    item = next;
  }
  return 0;
}

/* --seed: an unsigned 64-bit integer */
static int parse_seed(const char* v, uint64_t* seed) {
  char* end = NULL;
  errno = 0;
  unsigned long long s = strtoull(v, &end, 10);
  if (!*v || *end || errno == ERANGE || v[0] == '-')
    return cli_usage_error("--seed: not an unsigned integer: '%s'", v);
  *seed = (uint64_t)s;
  return 0;
}

/* Parse argv into a; 0 on success, -1 for help, or an exit status. */
static int parse_args(int argc, char** argv, batch_args* a) {
  *a = (batch_args){.rollouts = -1, .steps = -1, .threads = 1};
  for (int i = 1; i < argc; i++) {
    const char* v = NULL;
    int k, rc = 0;
    if (cli_is_help(argv[i])) {
      cli_usage("batch", 0);
      return -1;
    }
    if ((k = cli_option(argc, argv, &i, "rollouts", &v)) != 0) {
      if (k < 0 || cli_parse_ll("rollouts", v, 1, &a->rollouts)) return CLI_EXIT_USAGE;
      if (a->rollouts > BATCH_MAX_ROLLOUTS)
        return cli_usage_error("--rollouts must be at most %lld", BATCH_MAX_ROLLOUTS);
    } else if ((k = cli_option(argc, argv, &i, "steps", &v)) != 0) {
      if (k < 0 || cli_parse_ll("steps", v, 0, &a->steps)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "threads", &v)) != 0) {
      if (k < 0 || cli_parse_threads("batch", v, &a->threads)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "perturb", &v)) != 0) {
      if (k < 0 || (rc = parse_perturb(v, a)) != 0) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "seed", &v)) != 0) {
      if (k < 0 || parse_seed(v, &a->seed)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "key", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      a->key = v;
    } else if ((k = cli_option(argc, argv, &i, "ctrl", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      a->ctrl = v;
    } else if ((k = cli_option(argc, argv, &i, "solver", &v)) != 0) {
      if (k < 0 || cli_check_solver("batch", v)) return CLI_EXIT_USAGE;
      a->solver = v;
    } else if ((k = cli_option(argc, argv, &i, "out", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      a->out = v;
    } else if (strcmp(argv[i], "--resume") == 0) {
      a->resume = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option '%s'", argv[i]);
    } else if (a->model) {
      return cli_usage_error("one model at a time ('%s' and '%s')", a->model, argv[i]);
    } else {
      a->model = argv[i];
    }
  }
  if (!a->model) return cli_usage_error("no model given");
  if (a->rollouts < 0) return cli_usage_error("--rollouts N is required");
  if (a->steps < 0) return cli_usage_error("--steps K is required");
  if (!a->out) return cli_usage_error("--out DIR is required");
  if (strlen(a->out) > BATCH_PATH_MAX || (a->ctrl && strlen(a->ctrl) > BATCH_PATH_MAX))
    return cli_usage_error("--out or --ctrl: the path is too long");
  /* the settings line of the manifest is one line */
  if (strchr(a->model, '\n') || (a->ctrl && strchr(a->ctrl, '\n')))
    return cli_usage_error("a path with a line break");
  return 0;
}

/* The manifest's settings line: everything that decides the files' bits. */
static void settings_line(const batch_args* a, const imp_model* m, char* buf, int n) {
  const char* solver = a->solver ? a->solver : imp_solver_name(m->opt.solver);
  snprintf(buf, (size_t)n,
           "# settings: model=%s rollouts=%lld steps=%lld key=%s perturb_qpos=%.17g "
           "perturb_qvel=%.17g seed=%" PRIu64 " ctrl=%s solver=%s",
           a->model, a->rollouts, a->steps, a->key ? a->key : "-", a->perturb_qpos, a->perturb_qvel,
           a->seed, a->ctrl ? a->ctrl : "-", solver ? solver : "?");
}

/* ---- the run: what the rollouts' callbacks share ---- */

typedef struct batch_run {
  const batch_args* a;
  char dir_ctrl;         /* --ctrl names a directory */
  ctrl_file* ctrl_one;   /* --ctrl FILE */
  ctrl_file** ctrl_each; /* --ctrl DIR: nroll, loaded for this rank's rollouts */
  imp_recorder** rec;    /* nroll: the recording of a running rollout */
  batch_row* rows;       /* nroll */
  pthread_mutex_t lock;  /* journal and progress */
  FILE* journal;         /* rank 0: the manifest, rows appended as rollouts end */
  int journal_failed;
  cli_progress progress;
  atomic_llong steps_done;
} batch_run;

/* FNV-1a 64 over n bytes, continuing from h */
static uint64_t fnv1a(uint64_t h, const void* p, size_t n) {
  const unsigned char* b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

static uint64_t state_hash(const imp_model* m, const imp_data* d) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = fnv1a(h, d->qpos, sizeof(double) * (size_t)m->nq);
  h = fnv1a(h, d->qvel, sizeof(double) * (size_t)m->nv);
  return fnv1a(h, d->act, sizeof(double) * (size_t)m->na);
}

/* "DIR/NAME" into buf; -1 when it does not fit */
static int join_path(const char* dir, const char* name, char* buf, size_t n) {
  int k = snprintf(buf, n, "%s/%s", dir, name);
  return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* the control file of rollout i in --ctrl DIR: rollout_IIIIII.csv, else .npy */
static void ctrl_path(const char* dir, int i, char* buf, size_t n) {
  char name[64];
  snprintf(name, sizeof name, "rollout_%06d.csv", i);
  join_path(dir, name, buf, n);
  struct stat st;
  if (stat(buf, &st) == 0) return;
  snprintf(name, sizeof name, "rollout_%06d.npy", i);
  join_path(dir, name, buf, n);
}

/* Start rollout i's recording: 0, or -1 (message printed). */
static int open_recording(batch_run* r, const imp_model* m, const imp_data* d, int i) {
  char name[64], path[BATCH_PATH_MAX + 80], ctrl[BATCH_PATH_MAX + 80], err[1024] = "";
  batch_file_name(i, name, sizeof name);
  join_path(r->a->out, name, path, sizeof path);
  imp_recorder* rec = imp_recorder_open(path, m, err, sizeof err);
  if (!rec) {
    fprintf(stderr, "impetus batch: rollout %d: %s\n", i, err);
    return -1;
  }
  if (r->dir_ctrl) ctrl_path(r->a->ctrl, i, ctrl, sizeof ctrl);
  const char* solver = imp_solver_name(d->solver);
  imp_record_info info = {r->a->model, r->a->steps, 1, solver, r->dir_ctrl ? ctrl : r->a->ctrl};
  imp_recorder_set_info(rec, &info);
  r->rec[i] = rec;
  return 0;
}

/* imp_rollout_observe_fn: record the state; stop on a signal or an error */
static int observe(const imp_model* m, const imp_data* d, int i, long long step, void* user) {
  batch_run* r = user;
  batch_row* row = &r->rows[i];
  if (step == 0) {
    if (cli_interrupted()) return 1; /* not started: stays not_run */
    row->has_hash = 1;
    row->init_hash = state_hash(m, d);
    if (open_recording(r, m, d, i) != 0) {
      row->status = BATCH_WRITE_ERROR;
      return 1;
    }
  }
  if (imp_recorder_write(r->rec[i], m, d) != 0) {
    fprintf(stderr, "impetus batch: rollout %d: write failed at step %lld\n", i, step);
    row->status = BATCH_WRITE_ERROR;
    return 1;
  }
  if (step > 0) {
    long long done = atomic_fetch_add(&r->steps_done, 1) + 1;
    if (r->progress.on && pthread_mutex_trylock(&r->lock) == 0) {
      cli_progress_step(&r->progress, done, (double)done * m->opt.timestep);
      pthread_mutex_unlock(&r->lock);
    }
  }
  return cli_interrupted();
}

/* The row of a rollout that ended with status st. */
static void fill_row(batch_row* row, int i, const imp_rollout_status* st) {
  row->rollout = i;
  row->nan_resets = st->nan_resets;
  row->steps = st->steps;
  row->not_converged = st->not_converged;
  row->wall_seconds = st->wall_seconds;
  if (row->status == BATCH_WRITE_ERROR) return;
  if (!row->has_hash)
    row->status = BATCH_NOT_RUN;
  else if (st->exit == IMP_ROLLOUT_STOPPED)
    row->status = BATCH_INTERRUPTED;
  else
    row->status = st->exit == IMP_ROLLOUT_NONFINITE ? BATCH_NONFINITE : BATCH_OK;
}

/* imp_rollout_finish_fn: keep or drop the file, write the manifest row */
static void finish(const imp_model* m, const imp_data* d, int i, const imp_rollout_status* st,
                   void* user) {
  (void)m;
  (void)d;
  batch_run* r = user;
  batch_row* row = &r->rows[i];
  fill_row(row, i, st);
  if (r->rec[i]) {
    char err[1024] = "";
    if (!batch_row_done(row)) {
      imp_recorder_abort(r->rec[i]);
    } else if (imp_recorder_close(r->rec[i], err, sizeof err) != 0) {
      fprintf(stderr, "impetus batch: rollout %d: %s\n", i, err);
      row->status = BATCH_WRITE_ERROR;
    }
    r->rec[i] = NULL;
  }
  if (row->status == BATCH_NOT_RUN) return;
  pthread_mutex_lock(&r->lock);
  if (r->journal && batch_manifest_append(r->journal, row, r->a->seed) != 0) r->journal_failed = 1;
  pthread_mutex_unlock(&r->lock);
}

/* imp_rollout_control_fn: the rollout's control file */
static void control(const imp_model* m, imp_data* d, int i, void* user) {
  batch_run* r = user;
  ctrl_file_control(m, d, r->dir_ctrl ? r->ctrl_each[i] : r->ctrl_one);
}

/* Load --ctrl for the rollouts this rank runs (mine); 0, or -1 (printed). */
static int load_controls(batch_run* r, const imp_model* m, const unsigned char* mine, int nroll) {
  const char* path = r->a->ctrl;
  if (!path) return 0;
  struct stat st;
  r->dir_ctrl = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
  char err[4600] = "";
  if (!r->dir_ctrl) {
    r->ctrl_one = ctrl_file_load(path, m, err, sizeof err);
    if (!r->ctrl_one) fprintf(stderr, "impetus batch: --ctrl %s\n", err);
    return r->ctrl_one ? 0 : -1;
  }
  r->ctrl_each = calloc((size_t)nroll, sizeof *r->ctrl_each);
  if (!r->ctrl_each) return -1;
  for (int i = 0; i < nroll; i++) {
    if (!mine[i]) continue;
    char file[BATCH_PATH_MAX + 80];
    ctrl_path(path, i, file, sizeof file);
    r->ctrl_each[i] = ctrl_file_load(file, m, err, sizeof err);
    if (!r->ctrl_each[i]) {
      fprintf(stderr, "impetus batch: --ctrl %s: rollout %d: %s\n", path, i, err);
      return -1;
    }
  }
  return 0;
}

static void free_controls(batch_run* r, int nroll) {
  ctrl_file_free(r->ctrl_one);
  if (r->ctrl_each)
    for (int i = 0; i < nroll; i++) ctrl_file_free(r->ctrl_each[i]);
  free(r->ctrl_each);
}

/* ---- rank 0: the output directory and the manifest ---- */

/* Make DIR (one level) unless it exists. */
static int make_dir(const char* dir) {
  struct stat st;
  if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  if (mkdir(dir, 0777) == 0) return 0;
  fprintf(stderr, "impetus batch: --out %s: %s\n", dir, strerror(errno));
  return -1;
}

/* Rank 0 before the rollouts: the directory, the rows of an earlier run
   (--resume), the manifest rewritten with them and opened for appending.
   0, or an exit status (message printed). */
static int prepare_output(batch_run* r, const char* manifest, const char* settings, int nroll) {
  if (make_dir(r->a->out) != 0) return CLI_EXIT_ERROR;
  char err[8400] = "";
  int have = batch_manifest_read(manifest, settings, nroll, r->rows, err, sizeof err);
  if (have < 0) {
    fprintf(stderr, "impetus batch: %s\n", err);
    return CLI_EXIT_ERROR;
  }
  if (have == 0 && !r->a->resume) {
    fprintf(stderr,
            "impetus batch: %s exists: --resume to finish that batch, or choose another --out\n",
            manifest);
    return CLI_EXIT_USAGE;
  }
  /* rollouts of an earlier run not done run again: their rows start anew */
  for (int i = 0; i < nroll; i++)
    if (!batch_row_done(&r->rows[i])) r->rows[i] = (batch_row){.rollout = i};
  if (batch_manifest_write(manifest, settings, nroll, r->rows, r->a->seed, err, sizeof err) != 0) {
    fprintf(stderr, "impetus batch: %s\n", err);
    return CLI_EXIT_ERROR;
  }
  r->journal = fopen(manifest, "a");
  if (!r->journal) {
    fprintf(stderr, "impetus batch: %s: %s\n", manifest, strerror(errno));
    return CLI_EXIT_ERROR;
  }
  return 0;
}

/* What the batch did, on stdout (rank 0), and its exit status. */
static int summarize(const batch_args* a, const imp_model* m, const batch_row* rows, int nroll,
                     int ranks, long long skipped, long long steps, double wall,
                     const char* manifest) {
  long long count[BATCH_WRITE_ERROR + 1] = {0};
  for (int i = 0; i < nroll; i++) count[rows[i].status]++;
  printf("model: %s\n", cli_model_name(m));
  printf("rollouts: %d\n", nroll);
  printf("steps_per_rollout: %lld\n", a->steps);
  printf("ranks: %d\n", ranks);
  printf("threads_per_rank: %lld\n", a->threads);
  printf("skipped_complete: %lld\n", skipped);
  for (int s = BATCH_OK; s <= BATCH_WRITE_ERROR; s++)
    printf("%s: %lld\n", batch_status_name(s), count[s]);
  printf("not_run: %lld\n", count[BATCH_NOT_RUN]);
  printf("steps: %lld\n", steps);
  printf("wall_seconds: %.6f\n", wall);
  printf("steps_per_second: %.1f\n", wall > 0 ? (double)steps / wall : 0.0);
  printf("manifest: %s\n", manifest);
  if (count[BATCH_INTERRUPTED] > 0 || (cli_interrupted() && count[BATCH_NOT_RUN] > 0)) {
    fprintf(stderr,
            "impetus batch: interrupted: %lld rollouts done, %lld cut short and %lld not started "
            "(no files); --resume runs them\n",
            count[BATCH_OK] + count[BATCH_NONFINITE], count[BATCH_INTERRUPTED],
            count[BATCH_NOT_RUN]);
    return 130;
  }
  if (count[BATCH_WRITE_ERROR] > 0 || count[BATCH_NOT_RUN] > 0) return CLI_EXIT_ERROR;
  if (count[BATCH_NONFINITE] > 0) {
    fprintf(stderr,
            "impetus batch: warning: %lld rollouts went non-finite (status nonfinite in the "
            "manifest; exit status 3)\n",
            count[BATCH_NONFINITE]);
    return CLI_EXIT_NONFINITE;
  }
  return 0;
}

/* Run-time warnings of the engine, but not that a contact solve stopped
   short of its tolerance: every rollout would say it once, and the
   manifest counts those steps (steps_not_converged). */
static void batch_warning(const char* msg) {
  if (!strstr(msg, "did not converge")) fprintf(stderr, "impetus warning: %s\n", msg);
}

/* Load the model and its keyframe; NULL (printed) on error. */
static imp_model* load_model(const batch_args* a, int* key) {
  imp_model* m = cli_load(a->model, a->load_options);
  *key = -1;
  if (m && a->key && (*key = cli_find_key(m, a->model, a->key)) < 0) {
    imp_free_model(m);
    return NULL;
  }
  return m;
}

/* The rollouts of this rank on its threads; 0, or -1 (printed). */
static int run_rollouts(batch_run* r, const imp_model* m, int key, const unsigned char* skip,
                        int nroll) {
  const batch_args* a = r->a;
  imp_rollout_opt opt;
  imp_rollout_default(&opt);
  opt.nthread = (int)a->threads;
  opt.solver = a->solver;
  opt.key = key;
  opt.perturb_qpos = a->perturb_qpos;
  opt.perturb_qvel = a->perturb_qvel;
  opt.seed = a->seed;
  if (a->ctrl) {
    opt.control = control;
    opt.control_user = r;
  }
  opt.skip = skip;
  opt.observe = observe;
  opt.finish = finish;
  opt.observe_user = r;
  char err[256] = "";
  int rc = imp_rollout(m, nroll, a->steps, &opt, err, sizeof err);
  if (rc != 0) fprintf(stderr, "impetus batch: %s\n", err);
  return rc;
}

int cmd_batch(int argc, char** argv) {
  batch_args a;
  int load_options = cli_take_load_options(&argc, argv);
  int quiet = cli_take_flag(&argc, argv, "--quiet");
  int rc = parse_args(argc, argv, &a);
  if (rc < 0) return 0;
  if (rc > 0) return rc;
  a.load_options = load_options;
  a.quiet = quiet;
  batch_comm comm;
  if (batch_comm_start(&argc, &argv, &comm) != 0) return CLI_EXIT_USAGE;
  cli_interrupt_install("impetus batch", "a step that did not end; finished rollouts kept");
  imp_set_warning_handler(batch_warning);

  int key = -1, nroll = (int)a.rollouts;
  imp_model* m = load_model(&a, &key);
  batch_run r = {.a = &a};
  pthread_mutex_init(&r.lock, NULL);
  atomic_init(&r.steps_done, 0);
  r.rows = m ? calloc((size_t)nroll, sizeof *r.rows) : NULL;
  r.rec = m ? calloc((size_t)nroll, sizeof *r.rec) : NULL;
  /* per rollout: done before this run, run by this rank, left alone by it */
  unsigned char* flags = m ? calloc((size_t)nroll, 3) : NULL;
  unsigned char *before = flags, *mine = flags ? flags + nroll : NULL,
                *skip = flags ? flags + 2 * (size_t)nroll : NULL;
  char settings[2 * BATCH_PATH_MAX + 400], manifest[BATCH_PATH_MAX + 40];
  join_path(a.out, "manifest.csv", manifest, sizeof manifest);
  int status = m && r.rows && r.rec && flags ? 0 : CLI_EXIT_ERROR;
  if (status == 0) {
    for (int i = 0; i < nroll; i++) r.rows[i].rollout = i;
    settings_line(&a, m, settings, sizeof settings);
    if (comm.rank == 0) status = prepare_output(&r, manifest, settings, nroll);
  }
  /* every rank stops if one cannot start (rank 0's files, a model) */
  status = batch_comm_max_int(&comm, status);
  long long skipped = 0, steps = 0;
  double t0 = cli_now();
  if (status == 0) {
    /* the rows of the manifest rank 0 read: the rollouts already done */
    batch_comm_broadcast_rows(&comm, r.rows, nroll);
    for (int i = 0; i < nroll; i++) {
      before[i] = (unsigned char)batch_row_done(&r.rows[i]);
      skipped += before[i];
      mine[i] = !before[i] && i % comm.size == comm.rank;
      skip[i] = !mine[i];
    }
    status = load_controls(&r, m, mine, nroll) != 0 ? CLI_EXIT_ERROR : 0;
    status = batch_comm_max_int(&comm, status);
  }
  if (status == 0) {
    long long n = 0;
    for (int i = 0; i < nroll; i++) n += mine[i];
    cli_progress_start(&r.progress, "impetus batch", a.quiet || comm.rank != 0, n * a.steps, 0);
    if (run_rollouts(&r, m, key, skip, nroll) != 0) status = CLI_EXIT_ERROR;
    status = batch_comm_max_int(&comm, status);
  }
  double wall = cli_now() - t0;
  cli_interrupt_done();
  if (status == 0) {
    batch_comm_gather(&comm, r.rows, nroll);
    /* the steps of this run on all ranks: of the rollouts not done before it */
    for (int i = 0; i < nroll; i++) steps += before[i] ? 0 : r.rows[i].steps;
    if (comm.rank == 0) {
      char err[8400] = "";
      if (r.journal) fclose(r.journal);
      r.journal = NULL;
      if (batch_manifest_write(manifest, settings, nroll, r.rows, a.seed, err, sizeof err) != 0) {
        fprintf(stderr, "impetus batch: %s\n", err);
        status = CLI_EXIT_ERROR;
      }
      int s = summarize(&a, m, r.rows, nroll, comm.size, skipped, steps, wall, manifest);
      if (status == 0) status = s;
    }
    batch_comm_broadcast_int(&comm, &status);
  }
  if (r.journal) fclose(r.journal);
  free_controls(&r, nroll);
  pthread_mutex_destroy(&r.lock);
  free(r.rows);
  free(r.rec);
  free(flags);
  imp_free_model(m);
  batch_comm_end();
  return status;
}
