/* impetus bench MODEL.xml [--steps N] [--dt H] [--ctrlnoise S] [--seed X]
   [--solver NAME]: time the simulation step, like mujoco's testspeed, and
   report what the contact stage did on the way.

   Control noise: before each step every control is set to
   mid + S * halfrange * g (clamped to the range) for a control-limited
   actuator and to S * g otherwise, g a standard normal. The normals come
   from splitmix64 (Steele, Lea, Flood 2014) through the Box-Muller transform,
   so a seed gives the same controls on every machine. They are drawn in
   blocks outside the timed region, which covers imp_step alone. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#define BLOCK 1024 /* steps of noise drawn between timed stretches */

/* The contact stage's statistics summed (or maxed) over the steps. */
typedef struct solver_totals {
  long long iter, newton, nefc, nisland;
  long long not_converged, work_bounded, over_budget; /* steps where any island ... */
  double work_max; /* the largest work of a step's solves */
  double residual_max;
  long long* hist; /* nhist: island solves by iterations (the last bin: that many or more) */
  int nhist;
} solver_totals;

/* Add the statistics of the step d just took. */
static void add_step(const imp_data* d, solver_totals* t) {
  t->iter += d->solver_iter;
  t->newton += d->solver_newton;
  t->nefc += d->nefc;
  t->nisland += d->nisland;
  t->not_converged += d->solver_exit != 0; /* imp_solver_exit: 0 is converged */
  t->work_bounded += d->solver_bounded > 0;
  t->over_budget += d->solver_over_budget > 0;
  if (d->solver_work > t->work_max) t->work_max = d->solver_work;
  if (d->solver_residual > t->residual_max) t->residual_max = d->solver_residual;
  for (int i = 0; i < d->nisland; i++) {
    int it = d->island_iter[i];
    t->hist[it < t->nhist - 1 ? it : t->nhist - 1]++;
  }
}

/* the iterations at quantile q of the island solves in hist */
static int hist_quantile(const solver_totals* t, double q) {
  long long total = 0, seen = 0;
  for (int i = 0; i < t->nhist; i++) total += t->hist[i];
  if (total == 0) return 0;
  long long rank = (long long)ceil(q * (double)total); /* nearest rank */
  if (rank < 1) rank = 1;
  for (int i = 0; i < t->nhist; i++)
    if ((seen += t->hist[i]) >= rank) return i;
  return t->nhist - 1;
}

/* Print the contact stage's lines of the report. */
static void print_solver(const imp_data* d, const solver_totals* t, long long steps) {
  const char* name = imp_solver_name(d->solver);
  double per = 1.0 / (double)steps;
  printf("solver: %s\n", name ? name : "?");
  printf("solver_iterations_per_step: %.6g\n", (double)t->iter * per);
  /* share of iterations that accepted the Newton point (Todorov 2010, eqs. 22-23) */
  printf("newton_share: %.6g\n", t->iter > 0 ? (double)t->newton / (double)t->iter : 0.0);
  printf("solver_residual_max: %.6g\n", t->residual_max);
  /* how often the solver gave up, not just the first time (the warning) */
  printf("steps_not_converged: %lld\n", t->not_converged);
  printf("steps_work_bounded: %lld\n", t->work_bounded);
  printf("steps_over_budget: %lld\n", t->over_budget);
  printf("solver_work_per_step_max: %.6g\n", t->work_max);
  printf("island_iterations_median: %d\n", hist_quantile(t, 0.5));
  printf("island_iterations_p90: %d\n", hist_quantile(t, 0.9));
  printf("island_iterations_max: %d\n", hist_quantile(t, 1.0));
  printf("constraint_rows_per_step: %.6g\n", (double)t->nefc * per);
  printf("islands_per_step: %.6g\n", (double)t->nisland * per);
  /* the engine's own timer, like collision_ns_per_step */
  printf("solver_ns_per_step: %.6g\n",
         1e9 * d->timer[IMP_TIMER_SOLVER] / (double)(d->nstep > 0 ? d->nstep : 1));
}

/* splitmix64: the next 64 random bits of state *s */
static uint64_t splitmix64(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* uniform in (0, 1]: 53 random bits, never 0 so that log() is finite */
static double uniform01(uint64_t* s) {
  return (double)((splitmix64(s) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* a standard normal by Box-Muller (one of the pair; simple over fast) */
static double normal(uint64_t* s) {
  double u1 = uniform01(s), u2 = uniform01(s);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Fill ctrl (nsteps x nu) with noisy controls for m. */
static void draw_controls(const imp_model* m, double S, uint64_t* seed, double* ctrl,
                          int nsteps) {
  for (int t = 0; t < nsteps; t++) {
    for (int j = 0; j < m->nu; j++) {
      double g = normal(seed), u;
      if (m->actuator_ctrllimited[j]) {
        double lo = m->actuator_ctrlrange[2 * j], hi = m->actuator_ctrlrange[2 * j + 1];
        u = 0.5 * (lo + hi) + S * 0.5 * (hi - lo) * g;
        u = u < lo ? lo : u > hi ? hi : u;
      } else {
        u = S * g;
      }
      ctrl[t * m->nu + j] = u;
    }
  }
}

int cmd_bench(int argc, char** argv) {
  int load_options = cli_take_load_options(&argc, argv);
  const char* path = NULL;
  long long steps = 10000, seed_arg = 1;
  double dt = 0, noise = 0;
  const char* solver = NULL;
  const char* key_name = NULL;
  long long threads = 1;
  double step_budget = 0;
  for (int i = 1; i < argc; i++) {
    const char* v = NULL;
    int k;
    if (cli_is_help(argv[i])) {
      cli_usage("bench", 0);
      return 0;
    }
    if ((k = cli_option(argc, argv, &i, "steps", &v)) != 0) {
      if (k < 0 || cli_parse_ll("steps", v, 1, &steps)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "dt", &v)) != 0) {
      if (k < 0 || cli_parse_double("dt", v, 1, &dt)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "ctrlnoise", &v)) != 0) {
      if (k < 0 || cli_parse_double("ctrlnoise", v, 0, &noise)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "seed", &v)) != 0) {
      if (k < 0 || cli_parse_ll("seed", v, 0, &seed_arg)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "solver", &v)) != 0) {
      if (k < 0 || cli_check_solver("bench", v)) return CLI_EXIT_USAGE;
      solver = v;
    } else if ((k = cli_option(argc, argv, &i, "key", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      key_name = v;
    } else if ((k = cli_option(argc, argv, &i, "threads", &v)) != 0) {
      if (k < 0 || cli_parse_threads("bench", v, &threads)) return CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "step-budget", &v)) != 0) {
      if (k < 0 || cli_parse_double("step-budget", v, 1, &step_budget)) return CLI_EXIT_USAGE;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option '%s'", argv[i]);
    } else if (path) {
      return cli_usage_error("one model at a time ('%s' and '%s')", path, argv[i]);
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    return cli_usage_error("no model given");
  }

  imp_model* m = cli_load(path, load_options);
  if (!m) return CLI_EXIT_ERROR;
  int key = -1; /* --key: start from a keyframe, as run does (issue 32's benchmark) */
  if (key_name && (key = cli_find_key(m, path, key_name)) < 0) {
    imp_free_model(m);
    return CLI_EXIT_ERROR;
  }
  if (dt > 0) m->opt.timestep = dt; /* before any data: the model is const from here */
  imp_data* d = imp_make_data(m);
  double* ctrl = noise > 0 && m->nu > 0 ? malloc(sizeof(double) * BLOCK * (size_t)m->nu) : NULL;
  if (!d || (noise > 0 && m->nu > 0 && !ctrl)) {
    fprintf(stderr, "impetus bench: out of memory\n");
    free(ctrl);
    imp_free_data(d);
    imp_free_model(m);
    return CLI_EXIT_ERROR;
  }
  imp_reset_data(m, d);
  if (key >= 0) imp_reset_data_keyframe(m, d, key);
  if (solver && imp_set_solver(m, d, solver) != 0) { /* checked above: a registry bug */
    cli_check_solver("bench", solver);
    free(ctrl);
    imp_free_data(d);
    imp_free_model(m);
    return CLI_EXIT_USAGE;
  }

  if (step_budget > 0) imp_set_step_budget(d, step_budget); /* > 0: checked */
  if (threads > 1 && imp_set_threads(m, d, (int)threads) != 0) {
    fprintf(stderr, "impetus bench: cannot start %lld threads\n", threads);
    free(ctrl);
    imp_free_data(d);
    imp_free_model(m);
    return CLI_EXIT_ERROR;
  }

  uint64_t seed = (uint64_t)seed_arg;
  double wall = 0;
  long long ncon = 0, nbroad = 0, nnarrow = 0;
  /* an island's solve, retries included, runs at most 3 x the limit (contact.c) */
  /* in long long: option iterations may be up to INT_MAX (3 x that
     overflowed, and a crash followed); past 3e5 bins the last one holds
     the rest, so quantiles above it read as 3e5 (the per-solve work bound
     keeps real islands far below: 100 iterations at most from 35 rows) */
  long long bins = 3LL * m->opt.iterations + 2;
  int nhist = bins < 300002 ? (int)bins : 300002;
  long long* hist = calloc((size_t)nhist, sizeof *hist);
  if (!hist) {
    fprintf(stderr, "impetus bench: out of memory\n");
    free(ctrl);
    imp_free_data(d);
    imp_free_model(m);
    return CLI_EXIT_ERROR;
  }
  solver_totals st = {0, 0, 0, 0, 0, 0, 0, 0.0, 0.0, hist, nhist};
  for (long long done = 0; done < steps;) {
    int n = steps - done < BLOCK ? (int)(steps - done) : BLOCK;
    if (ctrl) draw_controls(m, noise, &seed, ctrl, n);
    double t0 = cli_now();
    for (int t = 0; t < n; t++) {
      if (ctrl) memcpy(d->ctrl, ctrl + (size_t)t * (size_t)m->nu, sizeof(double) * (size_t)m->nu);
      imp_step(m, d);
      ncon += d->ncon;
      nbroad += d->npair_broad;
      nnarrow += d->npair_narrow;
      add_step(d, &st);
    }
    wall += cli_now() - t0;
    done += n;
  }
  if (wall <= 0) wall = 1e-9; /* a clock too coarse for the run: avoid dividing by 0 */

  printf("model: %s\n", cli_model_name(m));
  if (key >= 0) {
    const char* kn = imp_id2name(m, IMP_OBJ_KEY, key);
    if (kn && kn[0]) printf("key: %s\n", kn);
    else printf("key: #%d\n", key);
  }
  printf("steps: %lld\n", steps);
  printf("timestep: %g\n", m->opt.timestep);
  printf("ctrlnoise: %g\n", noise);
  printf("steps_per_second: %.6g\n", (double)steps / wall);
  printf("realtime_factor: %.6g\n", (double)steps * m->opt.timestep / wall);
  printf("ns_per_step: %.6g\n", 1e9 * wall / (double)steps);
  printf("contacts_per_step: %.6g\n", (double)ncon / (double)steps);
  printf("pairs_broad_per_step: %.6g\n", (double)nbroad / (double)steps);
  printf("pairs_narrow_per_step: %.6g\n", (double)nnarrow / (double)steps);
  /* the engine's own timer: resets (non-finite states) restart it */
  printf("collision_ns_per_step: %.6g\n",
         1e9 * d->timer[IMP_TIMER_COLLISION] / (double)(d->nstep > 0 ? d->nstep : 1));
  print_solver(d, &st, steps);
  if (d->nwarning_nan > 0)
    fprintf(stderr, "impetus bench: warning: the state went non-finite %d times\n",
            d->nwarning_nan);
  free(hist);
  free(ctrl);
  imp_free_data(d);
  imp_free_model(m);
  return 0;
}
