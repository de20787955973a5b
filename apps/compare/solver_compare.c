/* impetus solvers --compare (solver_compare.h).
 *
 * 1. Recording: each scene is simulated with the default solver; the
 *    contact stage's problem hook (imp_set_problem_hook, contact.h) copies
 *    every island's problem; every k-th is kept, at most P per scene.
 * 2. Solving: every kept problem is solved by every registered solver from
 *    a cold start (o.warmstart = 0) with the same maxiter and tol. The
 *    monitor (o.monitor, called once per iteration) evaluates the common
 *    residual imp_cresidual (relative form) and the time since the solve
 *    began. The monitor's own time is measured too (clock at its entry and
 *    exit) and subtracted: the time of iteration k is the wall time since
 *    the start minus the time spent in the k-1 monitor calls before it, and
 *    the time per solve is the wall time minus all monitor calls, so the
 *    residual evaluation does not count as solver work (the clock reads
 *    themselves, ~20 ns each, remain).
 * FCLIB (fclib_io.h): a scene file ending in .hdf5 or .h5 is an FCLIB
 *    local problem, solved like a recorded one; with o->fclib_out every
 *    recorded problem FCLIB can hold (condim-3 contacts only) is also
 *    written there as <scene>_<k>.hdf5, k its problem number in the CSV.
 * 3. Output in the directory: iterations.csv, summary.csv and two PNGs per
 *    scene (plot.c):
 *      <scene>_work_precision.png  residual vs time (log-log)
 *      <scene>_convergence.png     residual vs iteration (log-y)
 *    each problem a thin line in its solver's color, and a thick line for
 *    the median over the scene's problems: at each time (or iteration) the
 *    median of every problem's latest residual, a finished solve keeping its
 *    final value, a solve not yet at its first iteration counting as +inf.
 *    A solver that returns without iterating (its own start already meets
 *    its test) has one row, iteration 0: its answer at its solve time.
 */
#define _POSIX_C_SOURCE 200809L

#include "solver_compare.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "constraint/contact.h"
#include "cproblem_block.h"
#include "fclib_io.h"
#include "plot.h"
#include "scenes.h"
#include "siconos_bridge.h"

/* ---- recorded problems ---- */

typedef struct rec_problem {
  imp_cproblem p;
  void* mem; /* one block holding every array of p */
} rec_problem;

typedef struct recorder {
  rec_problem* list;
  int n, cap;
  long long seen;
  int every, max;
} recorder;

static void record_hook(void* ctx, const imp_cproblem* p, const double* warm) {
  recorder* r = ctx;
  (void)warm;
  long long k = r->seen++;
  if (k % r->every != 0 || r->n >= r->max || p->n <= 0) return;
  if (r->n == r->cap) {
    int cap = r->cap ? 2 * r->cap : 16;
    rec_problem* l = realloc(r->list, sizeof *l * (size_t)cap);
    if (!l) return;
    r->list = l, r->cap = cap;
  }
  size_t n = (size_t)p->n, nb = (size_t)p->nblock;
  cproblem_arrays a;
  void* mem = cproblem_block_alloc(n, nb, &a);
  if (!mem) return;
  memcpy(a.mu, p->mu, sizeof(double) * nb);
  memcpy(a.A, p->A, sizeof(double) * n * n);
  memcpy(a.v0, p->v0, sizeof(double) * n);
  memcpy(a.b, p->b, sizeof(double) * n);
  memcpy(a.adr, p->blk_adr, sizeof(int) * nb);
  memcpy(a.dim, p->blk_dim, sizeof(int) * nb);
  memcpy(a.type, p->blk_type, sizeof(int) * nb);
  rec_problem* q = &r->list[r->n++];
  q->mem = mem;
  q->p = (imp_cproblem){p->n, p->nblock, a.adr, a.dim, a.type, a.mu, a.A, a.v0, a.b, p->h, NULL, 0, 0, NULL, NULL, p->vfloor, NULL, NULL};
}

static void recorder_free(recorder* r) {
  for (int i = 0; i < r->n; i++) free(r->list[i].mem);
  free(r->list);
  memset(r, 0, sizeof *r);
}

/* ---- the scenes ---- */

#define HUMANOID_XML "/usr/share/mujoco/model/humanoid/humanoid.xml"

typedef struct scene {
  const char* name;
  imp_model* m;
  int settle_steps; /* steps before recording */
  int humanoid;     /* lay the free joint down first */
  rec_problem fclib; /* m NULL: the one problem of an FCLIB file */
} scene;

/* the models directory: IMP_MODELS_DIR when built in, else ./models */
#ifndef IMP_MODELS_DIR
#define IMP_MODELS_DIR "models"
#endif

/* The directory of the built-in scenes' models: the installed copy when this
   program runs from an install (IMP_INSTALLED_MODELS_REL, the models'
   directory relative to the program's, made by cmake --install), else
   IMP_MODELS_DIR, the source tree's. */
static void models_dir(char* dir, size_t size) {
  snprintf(dir, size, "%s", IMP_MODELS_DIR);
#ifdef IMP_INSTALLED_MODELS_REL
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return;
  self[len] = '\0';
  char* slash = strrchr(self, '/');
  if (!slash) return;
  *slash = '\0';
  char installed[PATH_MAX];
  int n = snprintf(installed, sizeof installed, "%s/%s", self, IMP_INSTALLED_MODELS_REL);
  struct stat st;
  if (n > 0 && (size_t)n < size && stat(installed, &st) == 0 && S_ISDIR(st.st_mode))
    snprintf(dir, size, "%s", installed);
#endif
}

/* Loads the built-in scenes; a missing humanoid is skipped with a message.
   Returns the count, or -1 after a message. */
static int builtin_scenes(scene* s) {
  int k = 0;
  static char xml[1 << 16];
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  scene_balls_xml(xml, sizeof xml, 10, 0.5, 0.35, &rng);
  char err[1000];
  imp_model* m = imp_load_xml_string(xml, NULL, "balls", err, sizeof err);
  if (!m) {
    fprintf(stderr, "impetus solvers: the balls scene did not load: %s\n", err);
    return -1;
  }
  m->opt.disableflags |= IMP_DSBL_ISLAND; /* Table 1: one problem per step */
  s[k++] = (scene){.name = "balls", .m = m};
  static const char* const files[] = {"heavy_stack", "arch", "box_pyramid"};
  char dir[PATH_MAX];
  models_dir(dir, sizeof dir);
  for (int i = 0; i < 3; i++) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s.xml", dir, files[i]);
    m = cli_load(path, 0);
    if (!m) return -1;
    s[k++] = (scene){.name = files[i], .m = m};
  }
  FILE* f = fopen(HUMANOID_XML, "r");
  if (!f) {
    fprintf(stderr, "impetus solvers: %s not found: humanoid scene skipped "
                    "(install libmujoco-samples)\n", HUMANOID_XML);
  } else {
    fclose(f);
    m = cli_load(HUMANOID_XML, 0);
    if (!m) return -1;
    s[k++] = (scene){"humanoid", m, (int)lround(1.0 / m->opt.timestep), 1, {{0}, NULL}};
  }
  return k;
}

/* scene name from a file: its base name without .xml */
static void name_of_file(char* buf, size_t n, const char* path) {
  const char* b = strrchr(path, '/');
  b = b ? b + 1 : path;
  snprintf(buf, n, "%s", b);
  char* dot = strrchr(buf, '.');
  if (dot && dot != buf) *dot = '\0';
}

/* ---- FCLIB problem files (fclib_io.h) ---- */

static int is_fclib_file(const char* path) {
  const char* dot = strrchr(path, '.');
  return dot && (!strcmp(dot, ".hdf5") || !strcmp(dot, ".h5"));
}

/* An FCLIB file as a scene of one problem; -1 after a message. */
static int load_fclib_scene(const char* path, scene* s) {
  char err[4400];
  if (fclib_io_read(path, &s->fclib.p, &s->fclib.mem, err, sizeof err) == 0) return 0;
  fprintf(stderr, "impetus solvers: %s\n", err);
  return -1;
}

/* Hand the FCLIB scene's problem to the recorder (which then frees it). */
static void recorder_adopt(recorder* r, rec_problem* q) {
  rec_problem* l = realloc(r->list, sizeof *l * (size_t)(r->n + 1));
  if (!l) return;
  r->list = l, r->cap = r->n + 1;
  r->list[r->n++] = *q;
  q->mem = NULL;
}

/* Write the scene's recorded problems that FCLIB can hold; the others are
   counted on stderr. */
static int export_fclib(const char* dir, const char* name, const recorder* r) {
  fclib_io_count cnt = {0, 0};
  for (int q = 0; q < r->n; q++)
    if (fclib_io_export(dir, name, q, &r->list[q].p, &cnt)) return -1;
  fprintf(stderr, "impetus solvers: %s: %d problems written to %s as FCLIB files", name,
          cnt.written, dir);
  if (cnt.skipped)
    fprintf(stderr, ", %d not (blocks other than condim-3 contacts: limits, equalities, "
                    "condim 1, 4 or 6)", cnt.skipped);
  fprintf(stderr, "\n");
  return 0;
}

static void free_scenes(scene* s, int n) {
  for (int j = 0; j < n; j++) imp_free_model(s[j].m), free(s[j].fclib.mem);
}

/* Simulate the scene with the default solver and record its problems. */
static void record_scene(const scene* sc, const compare_opt* o, recorder* r) {
  imp_data* d = imp_make_data(sc->m);
  if (sc->humanoid) {
    /* lying on the floor: the free joint's quaternion turned 90 degrees
       about x, the root 0.15 m up, then settle_steps steps of settling */
    double c = sqrt(0.5);
    d->qpos[2] = 0.15;
    double q[4] = {d->qpos[3], d->qpos[4], d->qpos[5], d->qpos[6]};
    /* (c, c, 0, 0) * q */
    d->qpos[3] = c * q[0] - c * q[1];
    d->qpos[4] = c * q[1] + c * q[0];
    d->qpos[5] = c * q[2] - c * q[3];
    d->qpos[6] = c * q[3] + c * q[2];
  }
  for (int s = 0; s < sc->settle_steps; s++) imp_step(sc->m, d);
  r->every = o->every;
  r->max = o->max_problems;
  imp_set_problem_hook(d, record_hook, r);
  for (int s = 0; s < o->steps && r->n < r->max; s++) imp_step(sc->m, d);
  imp_set_problem_hook(d, NULL, NULL);
  imp_free_data(d);
}

/* ---- the solvers compared: ours, then Siconos' where it is built ---- */

static int compared_count(const compare_opt* o) {
  return imp_solver_count() + (o->no_siconos ? 0 : siconos_bridge_count());
}

static const imp_csolver* compared_solver(int s) {
  int n = imp_solver_count();
  return s < n ? imp_solver_get(s) : siconos_bridge_solver(s - n);
}

/* Ours take every problem; Siconos' only those that map exactly (siconos_bridge.h). */
static int compared_solver_takes(int s, const imp_cproblem* p) {
  return s < imp_solver_count() || siconos_bridge_accepts(p);
}

/* ---- solving ---- */

typedef struct trace {
  int n, cap;
  double* t;   /* solver time at each iteration */
  double* res; /* relative common residual */
} trace;

typedef struct monitor_ctx {
  const imp_cproblem* p;
  double* res_work;
  double start, spent; /* solve start; time spent inside the monitor */
  trace* tr;
} monitor_ctx;

static void monitor(void* ctx, int iter, const double* f) {
  monitor_ctx* c = ctx;
  double t_in = cli_now();
  (void)iter; /* solvers number iterations from 0 or 1: we count the calls */
  trace* tr = c->tr;
  if (tr->n == tr->cap) {
    int cap = tr->cap ? 2 * tr->cap : 64;
    double* t = realloc(tr->t, sizeof(double) * (size_t)cap);
    if (t) tr->t = t;
    double* r = realloc(tr->res, sizeof(double) * (size_t)cap);
    if (r) tr->res = r;
    if (!t || !r) return;
    tr->cap = cap;
  }
  double rel = INFINITY;
  imp_cresidual(c->p, f, &rel, c->res_work);
  tr->t[tr->n] = t_in - c->start - c->spent;
  tr->res[tr->n] = isfinite(rel) ? rel : INFINITY;
  tr->n++;
  c->spent += cli_now() - t_in;
}

typedef struct solve_result {
  trace tr;
  int iterations, exit;
  int zero_iter; /* tr holds one point, the returned f, as iteration 0 */
  int skipped;   /* the solver does not take this problem: no trace, not in the medians */
  double time, final_res;
} solve_result;

static int solve_one(const imp_cproblem* p, const imp_csolver* sv, const compare_opt* o,
                     solve_result* out) {
  size_t ws = sv->work_size(p->n, p->nblock);
  ws = (ws + 15) / 16 * 16 + 16;
  void* work = aligned_alloc(16, ws);
  double* f = calloc((size_t)p->n, sizeof(double));
  double* rw = malloc(sizeof(double) * 2 * (size_t)p->n);
  if (!work || !f || !rw) {
    free(work), free(f), free(rw);
    return -1;
  }
  memset(out, 0, sizeof *out);
  monitor_ctx mc = {p, rw, 0, 0, &out->tr};
  imp_csolver_opt so = {o->maxiter, o->tol, 0, monitor, &mc, 0};
  imp_csolver_stat st = {0, 0, 0, IMP_EXIT_CONVERGED};
  mc.start = cli_now();
  sv->solve(p, &so, f, &st, work);
  out->time = cli_now() - mc.start - mc.spent;
  out->iterations = st.iterations;
  out->exit = st.exit;
  double rel = INFINITY;
  imp_cresidual(p, f, &rel, rw);
  out->final_res = isfinite(rel) ? rel : INFINITY;
  if (out->tr.n == 0) { /* returned without iterating: its start met its test */
    mc.spent = 0;
    mc.start = cli_now() - out->time;
    monitor(&mc, 0, f);
    out->tr.t[0] = out->time;
    out->zero_iter = 1;
  }
  free(work), free(f), free(rw);
  return 0;
}

/* The accuracy the summary times every solver to: the 1e-6 of the
   common relative residual. */
#define COMPARE_TARGET 1e-6

/* Solver time at the first iteration whose residual is <= target (the
   returned answer counts too, at the solve's end); +inf when never. */
static double time_to_target(const solve_result* r, double target) {
  for (int j = 0; j < r->tr.n; j++)
    if (r->tr.res[j] <= target) return r->tr.t[j];
  return r->final_res <= target ? r->time : INFINITY;
}

/* the smallest residual of any iterate or of the answer */
static double best_residual(const solve_result* r) {
  double b = r->final_res;
  for (int j = 0; j < r->tr.n; j++) b = fmin(b, r->tr.res[j]);
  return b;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* residual of trace tr at time t (latest iteration at or before t; +inf before the first) */
static double res_at_time(const trace* tr, double t) {
  double r = INFINITY;
  for (int i = 0; i < tr->n && tr->t[i] <= t; i++) r = tr->res[i];
  return r;
}

/* Plots of one scene: results[prob * ns + solver]. */
static int scene_plots(const char* dir, const char* scene_name, solve_result* res, int np, int ns) {
  int nser = ns * (np + 1);
  plot_series* ser = calloc((size_t)nser, sizeof *ser);
  double** owned = calloc((size_t)ns * 2, sizeof(double*));
  char path[4200], title[256];
  int rc = 0;
  if (!ser || !owned) { free(ser), free(owned); return -1; }
  for (int kind = 0; kind < 2 && rc == 0; kind++) { /* 0: work-precision, 1: convergence */
    int k = 0, maxit = 1;
    double tmin = INFINITY, tmax = 0;
    for (int i = 0; i < np * ns; i++) {
      trace* tr = &res[i].tr;
      if (tr->n > maxit) maxit = tr->n;
      for (int j = 0; j < tr->n; j++) {
        if (tr->t[j] > 0 && tr->t[j] < tmin) tmin = tr->t[j];
        if (tr->t[j] > tmax) tmax = tr->t[j];
      }
    }
    if (!(tmin < tmax)) tmin = 1e-9, tmax = fmax(tmax, 1e-8);
    /* iteration numbers 1..maxit for the convergence plot */
    double* iters = malloc(sizeof(double) * (size_t)maxit);
    for (int j = 0; iters && j < maxit; j++) iters[j] = j + 1;
    int ngrid = 200;
    for (int s = 0; s < ns; s++) {
      for (int q = 0; q < np; q++) {
        trace* tr = &res[q * ns + s].tr;
        static const double zero = 0; /* a solve of iteration 0 only */
        const double* x = res[q * ns + s].zero_iter ? &zero : iters;
        ser[k++] = (plot_series){kind ? x : tr->t, tr->res, tr->n, s, 1, NULL};
      }
      /* the median line */
      int ng = kind ? maxit : ngrid;
      double* mx = malloc(sizeof(double) * (size_t)ng);
      double* my = malloc(sizeof(double) * (size_t)ng);
      double* col = malloc(sizeof(double) * (size_t)(np > 0 ? np : 1));
      owned[2 * s] = mx, owned[2 * s + 1] = my;
      if (!mx || !my || !col || !iters) { free(col); rc = -1; break; }
      for (int g = 0; g < ng; g++) {
        double t = tmin * pow(tmax / tmin, (double)g / (ngrid - 1));
        int nc = 0;
        for (int q = 0; q < np; q++) {
          const trace* tr = &res[q * ns + s].tr;
          if (res[q * ns + s].skipped) continue;
          col[nc++] = kind ? (tr->n ? tr->res[g < tr->n ? g : tr->n - 1] : INFINITY) : res_at_time(tr, t);
        }
        mx[g] = kind ? g + 1 : t;
        my[g] = median(col, nc);
      }
      free(col);
      ser[k++] = (plot_series){mx, my, ng, s, 3, compared_solver(s)->name};
    }
    if (rc == 0) {
      snprintf(title, sizeof title, "%s: %s (%d problems; thin: each, thick: median)",
               scene_name, kind ? "convergence" : "work-precision", np);
      plot_spec sp = {title, kind ? "iteration" : "solver time [s]", "common residual (relative)",
                      kind ? 0 : 1, ser, k};
      snprintf(path, sizeof path, "%s/%s_%s.png", dir, scene_name, kind ? "convergence" : "work_precision");
      if (plot_write_png(path, &sp)) {
        fprintf(stderr, "impetus solvers: cannot write %s\n", path);
        rc = -1;
      }
    }
    for (int s = 0; s < 2 * ns; s++) free(owned[s]), owned[s] = NULL;
    free(iters);
  }
  free(ser);
  free(owned);
  return rc;
}

/* mkdir -p */
static int make_dirs(const char* path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char* p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      if (c == '\0') break;
      *p = c;
    }
  }
  return 0;
}

int solver_compare(const compare_opt* o) {
  const char* dirs[2] = {o->out, o->fclib_out};
  for (int i = 0; i < 2; i++)
    if (dirs[i] && make_dirs(dirs[i])) {
      fprintf(stderr, "impetus solvers: cannot create directory %s\n", dirs[i]);
      return CLI_EXIT_ERROR;
    }
  scene scenes[64];
  int nsc = 0;
  char names[64][256];
  if (o->nscenes == 0) {
    nsc = builtin_scenes(scenes);
    if (nsc < 0) return CLI_EXIT_ERROR;
  } else {
    for (int i = 0; i < o->nscenes && i < 64; i++) {
      name_of_file(names[i], sizeof names[i], o->scenes[i]);
      scenes[nsc] = (scene){.name = names[i]};
      if (is_fclib_file(o->scenes[i]) ? load_fclib_scene(o->scenes[i], &scenes[nsc])
                                      : !(scenes[nsc].m = cli_load(o->scenes[i], 0))) {
        free_scenes(scenes, nsc);
        return CLI_EXIT_ERROR;
      }
      nsc++;
    }
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/iterations.csv", o->out);
  FILE* it = fopen(path, "w");
  snprintf(path, sizeof path, "%s/summary.csv", o->out);
  FILE* sum = fopen(path, "w");
  if (!it || !sum) {
    fprintf(stderr, "impetus solvers: cannot write in %s\n", o->out);
    if (it) fclose(it);
    if (sum) fclose(sum);
    free_scenes(scenes, nsc);
    return CLI_EXIT_ERROR;
  }
  fprintf(it, "scene,problem,n,solver,iter,time_s,residual_rel\n");
  fprintf(sum, "scene,solver,problems,median_iterations,median_time_s,median_final_residual,"
               "converged_share,target_residual,reached_share,median_time_to_target_s,"
               "median_best_residual\n");
  int ns = compared_count(o), rc = 0;
  printf("%-12s %-12s %8s %10s %12s %12s %9s %8s %12s %12s\n", "scene", "solver", "problems",
         "med_iter", "med_time_s", "med_resid", "converged", "to_1e-6", "med_t_1e-6",
         "med_best");
  for (int c = 0; c < nsc && rc == 0; c++) {
    recorder r = {0};
    if (scenes[c].m) record_scene(&scenes[c], o, &r);
    else recorder_adopt(&r, &scenes[c].fclib);
    if (o->fclib_out && scenes[c].m && export_fclib(o->fclib_out, scenes[c].name, &r))
      rc = CLI_EXIT_ERROR;
    int np = r.n;
    solve_result* res = calloc((size_t)(np * ns) + 1, sizeof *res);
    if (!res) { recorder_free(&r); rc = CLI_EXIT_ERROR; break; }
    int nskip = 0; /* problems Siconos' solvers do not take */
    for (int q = 0; q < np; q++) {
      nskip += ns > imp_solver_count() && !siconos_bridge_accepts(&r.list[q].p);
      for (int s = 0; s < ns; s++) {
        solve_result* sr = &res[q * ns + s];
        if (!compared_solver_takes(s, &r.list[q].p)) { sr->skipped = 1; continue; }
        if (solve_one(&r.list[q].p, compared_solver(s), o, sr)) { rc = CLI_EXIT_ERROR; continue; }
        for (int j = 0; j < sr->tr.n; j++)
          fprintf(it, "%s,%d,%d,%s,%d,%.6e,%.6e\n", scenes[c].name, q, r.list[q].p.n,
                  compared_solver(s)->name, j + 1 - sr->zero_iter, sr->tr.t[j], sr->tr.res[j]);
      }
    }
    if (nskip)
      fprintf(stderr, "impetus solvers: %s: %d of %d problems skipped for Siconos (equality "
                      "or condim 4/6 blocks)\n", scenes[c].name, nskip, np);
    double* v = malloc(sizeof(double) * (size_t)(np + 1));
    const solve_result** sr = malloc(sizeof *sr * (size_t)(np + 1));
    for (int s = 0; s < ns && v && sr; s++) {
      /* over the problems this solver took (all, except Siconos' skips) */
      int conv = 0, nt = 0;
      for (int q = 0; q < np; q++)
        if (!res[q * ns + s].skipped) sr[nt++] = &res[q * ns + s];
      for (int q = 0; q < nt; q++) conv += sr[q]->exit == IMP_EXIT_CONVERGED;
      for (int q = 0; q < nt; q++) v[q] = sr[q]->iterations;
      double mi = median(v, nt);
      for (int q = 0; q < nt; q++) v[q] = sr[q]->time;
      double mt = median(v, nt);
      for (int q = 0; q < nt; q++) v[q] = sr[q]->final_res;
      double mr = median(v, nt);
      double share = nt ? (double)conv / nt : NAN;
      /* time to the target: the median over the problems, a problem never
         reaching it counting as +inf (so inf: not reached on most) */
      int reached = 0;
      for (int q = 0; q < nt; q++) {
        v[q] = time_to_target(sr[q], COMPARE_TARGET);
        reached += isfinite(v[q]);
      }
      double mtt = median(v, nt);
      for (int q = 0; q < nt; q++) v[q] = best_residual(sr[q]);
      double mb = median(v, nt);
      double rshare = nt ? (double)reached / nt : NAN;
      const char* sn = compared_solver(s)->name;
      fprintf(sum, "%s,%s,%d,%g,%.6e,%.6e,%.4f,%g,%.4f,%.6e,%.6e\n", scenes[c].name, sn, nt, mi,
              mt, mr, share, COMPARE_TARGET, rshare, mtt, mb);
      printf("%-12s %-12s %8d %10g %12.3e %12.3e %8.0f%% %7.0f%% %12.3e %12.3e\n",
             scenes[c].name, sn, nt, mi, mt, mr, 100 * share, 100 * rshare, mtt, mb);
    }
    free(v), free(sr);
    if (np > 0 && scene_plots(o->out, scenes[c].name, res, np, ns)) rc = CLI_EXIT_ERROR;
    if (np == 0) printf("%-12s (no contact problems recorded)\n", scenes[c].name);
    for (int i = 0; i < np * ns; i++) free(res[i].tr.t), free(res[i].tr.res);
    free(res);
    recorder_free(&r);
  }
  if (fclose(it) != 0 || fclose(sum) != 0) rc = CLI_EXIT_ERROR;
  free_scenes(scenes, nsc);
  if (rc == 0) printf("written to %s: iterations.csv, summary.csv, <scene>_work_precision.png, "
                      "<scene>_convergence.png\n", o->out);
  return rc;
}
