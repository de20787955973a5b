/* bench_table1: reproduces Table 1 of Todorov 2010 ("Implicit nonlinear
 * complementarity", Section IV): n_b balls of different radii moving in a
 * cube under gravity, n_b in {5, 10, 15}, mu in {0.1, 0.5, 1.0, 2.0}, 10
 * random runs per cell, 200 steps at h = 0.005, b = 0, sticking
 * initialization and no warm start. Per cell it prints the paper's two
 * numbers: iterations per step (the median over a run's steps, averaged
 * over the runs) and the percent of iterations whose Newton point was
 * accepted; then the same again with warm starts.
 *
 * As in the paper, all contacts of a step form one problem
 * (IMP_DSBL_ISLAND) and b = 0 (IMP_DSBL_STABILIZE). The median is over
 * the steps that had contacts (steps in free fall have no problem to
 * solve). The scenes come from apps/compare/scenes.c, one MJCF text per run: a cube of
 * side 2 L made of six planes, balls of radius 0.08..0.16 m placed without
 * overlap at random, at rest.
 *
 * The paper does not state its stopping tolerance, so --tol sets ours (the
 * model's default, 1e-8, otherwise) to show how the counts depend on it.
 *
 * usage: bench_table1 [--runs N] [--solver NAME] [--cube L] [--steps N]
 *                     [--tol T] [--csv FILE] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impetus.h"
#include "scenes.h"

static uint64_t rng_state;
static double g_tol = 0; /* --tol; 0: the model's tolerance */
static char tol_text[32];

static int cmp_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

typedef struct run_result {
  double median_iter;  /* over steps with contacts */
  double newton_share; /* accepted Newton points / iterations */
  double mean_ncon;    /* over all steps */
  int nonconverged;    /* steps whose solver did not converge */
  double max_residual; /* largest relative common residual */
} run_result;

static int run_one(int nb, double mu, double L, int warm, int steps,
                   const char *solver, run_result *r) {
  static char xml[1 << 16];
  scene_balls_xml(xml, sizeof xml, nb, mu, L, &rng_state);
  char err[1000];
  imp_model *m = imp_load_xml_string(xml, NULL, "table1", err, sizeof err);
  if (!m) {
    fprintf(stderr, "bench_table1: scene did not load: %s\n", err);
    return -1;
  }
  m->opt.disableflags |= IMP_DSBL_ISLAND | IMP_DSBL_STABILIZE;
  m->opt.warmstart = warm;
  if (g_tol > 0)
    m->opt.tolerance = g_tol;
  imp_data *d = imp_make_data(m);
  if (solver && imp_set_solver(m, d, solver)) {
    fprintf(stderr, "bench_table1: unknown solver '%s'\n", solver);
    return -1;
  }
  int *iters = malloc(sizeof(int) * (size_t)steps);
  int nsolved = 0;
  long long sum_iter = 0, sum_newton = 0, sum_con = 0;
  r->nonconverged = 0;
  r->max_residual = 0;
  for (int s = 0; s < steps; s++) {
    imp_step(m, d);
    sum_con += d->ncon;
    if (d->nefc > 0) {
      iters[nsolved++] = d->solver_iter;
      sum_iter += d->solver_iter;
      sum_newton += d->solver_newton;
      if (d->solver_exit != 0)
        r->nonconverged++;
      if (d->solver_residual > r->max_residual)
        r->max_residual = d->solver_residual;
    }
  }
  qsort(iters, (size_t)nsolved, sizeof(int), cmp_int);
  r->median_iter = nsolved == 0 ? 0
                   : nsolved % 2
                       ? iters[nsolved / 2]
                       : 0.5 * (iters[nsolved / 2 - 1] + iters[nsolved / 2]);
  r->newton_share = sum_iter ? (double)sum_newton / (double)sum_iter : 0;
  r->mean_ncon = (double)sum_con / steps;
  free(iters);
  imp_free_data(d);
  imp_free_model(m);
  return 0;
}

int main(int argc, char **argv) {
  int runs = 10, steps = 200;
  double L = 0.35;
  const char *solver = NULL;
  const char *csv = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cube") && i + 1 < argc)
      L = atof(argv[++i]);
    else if (!strcmp(argv[i], "--solver") && i + 1 < argc)
      solver = argv[++i];
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
      csv = argv[++i];
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc &&
             atof(argv[i + 1]) > 0) {
      g_tol = atof(argv[++i]);
      snprintf(tol_text, sizeof tol_text, "%g", g_tol);
    } else {
      fprintf(stderr, "usage: bench_table1 [--runs N] [--steps N] [--cube L] "
                      "[--solver NAME] [--tol T] "
                      "[--csv FILE]\n");
      return 2;
    }
  }
  static const int nballs[3] = {5, 10, 15};
  static const double mus[4] = {0.1, 0.5, 1.0, 2.0};
  FILE *out = csv ? fopen(csv, "w") : NULL;
  if (csv && !out) {
    fprintf(stderr, "bench_table1: cannot write %s\n", csv);
    return 1;
  }
  if (out)
    fprintf(out, "warm,mu,nb,run,median_iter,newton_share,mean_ncon,"
                 "nonconverged,max_residual\n");
  for (int warm = 0; warm < 2; warm++) {
    double cell_iter[4][3], cell_newton[4][3], col_ncon[3] = {0, 0, 0};
    int cell_bad[4][3];
    double cell_res[4][3];
    for (int a = 0; a < 4; a++)
      for (int c = 0; c < 3; c++) {
        cell_iter[a][c] = cell_newton[a][c] = cell_res[a][c] = 0;
        cell_bad[a][c] = 0;
        for (int run = 0; run < runs; run++) {
          rng_state = 0x9e3779b97f4a7c15ull * (uint64_t)(1 + run + 100 * c);
          run_result r;
          if (run_one(nballs[c], mus[a], L, warm, steps, solver, &r))
            return 1;
          cell_iter[a][c] += r.median_iter / runs;
          cell_newton[a][c] += 100 * r.newton_share / runs;
          col_ncon[c] += r.mean_ncon / (4 * runs);
          cell_bad[a][c] += r.nonconverged;
          if (r.max_residual > cell_res[a][c])
            cell_res[a][c] = r.max_residual;
          if (out)
            fprintf(out, "%d,%g,%d,%d,%g,%g,%g,%d,%g\n", warm, mus[a],
                    nballs[c], run, r.median_iter, r.newton_share, r.mean_ncon,
                    r.nonconverged, r.max_residual);
        }
      }
    printf("\n%s (solver %s, %d runs x %d steps, h = 0.005, b = 0, cube side "
           "%.2f m, tol %s)\n",
           warm ? "With warm starts"
                : "Table 1: sticking initialization, no warm start",
           solver ? solver : "default", runs, steps, 2 * L,
           g_tol > 0 ? tol_text : "model's");
    printf("%-10s", "");
    for (int c = 0; c < 3; c++)
      printf("   n_b = %-2d       ", nballs[c]);
    printf("\n%-10s", "");
    for (int c = 0; c < 3; c++)
      printf("   n_c = %-5.1f    ", col_ncon[c]);
    printf("\n");
    for (int a = 0; a < 4; a++) {
      printf("mu = %-5.1f", mus[a]);
      for (int c = 0; c < 3; c++)
        printf("   %5.1f  %5.1f %%  ", cell_iter[a][c], cell_newton[a][c]);
      printf("\n");
    }
    printf("steps not converged per cell (max relative residual):\n");
    for (int a = 0; a < 4; a++) {
      printf("mu = %-5.1f", mus[a]);
      for (int c = 0; c < 3; c++)
        printf("   %4d (%8.1e)   ", cell_bad[a][c], cell_res[a][c]);
      printf("\n");
    }
  }
  if (out)
    fclose(out);
  return 0;
}
