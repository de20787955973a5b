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
 * --record DIR writes the problem of every step that did not converge to
 * DIR/{cold,warm}_nbN_muM_runR_stepS.cproblem, in the text format that
 * test/cproblem_file.h reads (cfile_read), so a failure can be replayed
 * and studied outside the simulation (issue 32: 280 such steps cold at
 * --runs 1; replayed alone with the same iteration limit, all 280 fail
 * again, since a cold problem is the same bits as in the simulation). The
 * warm start written is the one the stage handed the hook, before the
 * stage's start of new contact rows.
 *
 * usage: bench_table1 [--runs N] [--solver NAME] [--cube L] [--steps N]
 *                     [--tol T] [--csv FILE] [--record DIR] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h" /* the problem hook */
#include "impetus.h"
#include "scenes.h"

static uint64_t rng_state;
static double g_tol = 0; /* --tol; 0: the model's tolerance */
static char tol_text[32];

static const char *g_record; /* --record DIR; NULL: none */

/* the last problem the stage handed the hook (one island: IMP_DSBL_ISLAND) */
typedef struct captured {
  imp_cproblem p;
  int *adr, *dim, *type, warm;
  double *mu, *A, *v0, *b, *f0;
} captured;

/* a copy of the arrays of length len (elements of size sz) in *dst */
static void *copy_array(void *dst, const void *src, size_t len, size_t sz) {
  size_t bytes = len * sz;
  free(dst);
  dst = malloc(bytes > 0 ? bytes : 1);
  if (dst && bytes > 0)
    memcpy(dst, src, bytes);
  return dst;
}

static void capture_hook(void *ctx, const imp_cproblem *p, const double *warm) {
  captured *c = ctx;
  size_t n = (size_t)p->n, nb = (size_t)p->nblock;
  c->p = *p;
  c->adr = copy_array(c->adr, p->blk_adr, nb, sizeof(int));
  c->dim = copy_array(c->dim, p->blk_dim, nb, sizeof(int));
  c->type = copy_array(c->type, p->blk_type, nb, sizeof(int));
  c->mu = copy_array(c->mu, p->mu, nb, sizeof(double));
  c->A = copy_array(c->A, p->A, n * n, sizeof(double));
  c->v0 = copy_array(c->v0, p->v0, n, sizeof(double));
  c->b = copy_array(c->b, p->b, n, sizeof(double));
  c->warm = warm != NULL;
  if (warm)
    c->f0 = copy_array(c->f0, warm, n, sizeof(double));
}

static void capture_free(captured *c) {
  free(c->adr), free(c->dim), free(c->type), free(c->mu);
  free(c->A), free(c->v0), free(c->b), free(c->f0);
}

/* write the captured problem as test/cproblem_file.h's format (%.17g: it
   reads back bit for bit); 0 on success */
static int capture_write(const captured *c, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  int n = c->p.n, nb = c->p.nblock;
  fprintf(f, "impetus-cproblem 1\nn %d nblock %d h %.17g\n", n, nb, c->p.h);
  for (int k = 0; k < nb; k++)
    fprintf(f, "%d %d %d %.17g\n", c->adr[k], c->dim[k], c->type[k], c->mu[k]);
  for (size_t i = 0; i < (size_t)n * n; i++)
    fprintf(f, "%.17g\n", c->A[i]);
  for (int i = 0; i < n; i++)
    fprintf(f, "%.17g\n", c->v0[i]);
  for (int i = 0; i < n; i++)
    fprintf(f, "%.17g\n", c->b[i]);
  fprintf(f, "warm %d\n", c->warm);
  for (int i = 0; c->warm && i < n; i++)
    fprintf(f, "%.17g\n", c->f0[i]);
  return fclose(f) == 0 ? 0 : -1;
}

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
                   const char *solver, int run, run_result *r) {
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
  captured cap = {0};
  if (g_record)
    imp_set_problem_hook(d, capture_hook, &cap);
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
      if (d->solver_exit != 0) {
        r->nonconverged++;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s_nb%d_mu%g_run%d_step%d.cproblem",
                 g_record ? g_record : "", warm ? "warm" : "cold", nb, mu, run, s);
        if (g_record && cap.A && capture_write(&cap, path))
          fprintf(stderr, "bench_table1: cannot write %s\n", path);
      }
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
  capture_free(&cap);
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
    else if (!strcmp(argv[i], "--record") && i + 1 < argc)
      g_record = argv[++i];
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc &&
             atof(argv[i + 1]) > 0) {
      g_tol = atof(argv[++i]);
      snprintf(tol_text, sizeof tol_text, "%g", g_tol);
    } else {
      fprintf(stderr, "usage: bench_table1 [--runs N] [--steps N] [--cube L] "
                      "[--solver NAME] [--tol T] "
                      "[--csv FILE] [--record DIR]\n");
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
          if (run_one(nballs[c], mus[a], L, warm, steps, solver, run, &r))
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
