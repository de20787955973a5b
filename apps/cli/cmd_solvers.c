/* impetus solvers: list the registered contact solvers, or compare them
   (--compare: cli_solvers_compare, which the impetus program hands to the
   impetus-compare program, compare_exec.c, and which that program runs,
   cmd_compare.c); and the helpers that run, bench and check share for
   --solver and the solver's exit reasons. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "constraint/contact.h" /* imp_solver_exit: the names below follow its order */

/* The names of imp_solver_exit, by value, so a reordered enum cannot
   mislabel them silently; a new reason must get a name here. */
static const char* const exit_names[IMP_NEXIT] = {
    [IMP_EXIT_CONVERGED] = "converged", [IMP_EXIT_MAXITER] = "maxiter",
    [IMP_EXIT_STALLED] = "stalled",     [IMP_EXIT_DIVERGED] = "diverged",
    [IMP_EXIT_FAILED] = "failed",
};
_Static_assert(IMP_NEXIT == 5, "name the new solver exit reason in exit_names");

const char* const cli_usage_solvers =
    "usage: impetus solvers\n"
    "       impetus solvers --compare [--out DIR] [--steps N] [--every K]\n"
    "                       [--max-problems P] [--maxiter N] [--tol T]\n"
    "                       [--fclib-out DIR] [--no-siconos]\n"
    "                       [SCENE.xml | PROBLEM.hdf5 ...]\n"
    "\n"
    "List the contact solvers, one a line: the name (what --solver NAME and\n"
    "the MJCF option solver=\"NAME\" take), then a description; the default\n"
    "is marked (default). run and bench take --solver NAME, as does\n"
    "check --contacts.\n"
    "\n"
    "--compare: simulate each scene N steps (default 200) with the default\n"
    "solver, record every K-th contact problem (default 5, at most P = 20 per\n"
    "scene) and solve each with every solver from a cold start (--maxiter,\n"
    "default 1000; --tol, default 1e-10), measuring the common residual and\n"
    "the time at each iteration. Without SCENE files: balls in a cube, the\n"
    "heavy stack, the arch, the box pyramid and MuJoCo's humanoid lying down.\n"
    "Writes DIR (default build/solver_compare): iterations.csv, summary.csv,\n"
    "SCENE_work_precision.png and SCENE_convergence.png (900 x 600).\n"
    "A PROBLEM.hdf5 (or .h5) is an FCLIB local problem (W, q, mu), solved\n"
    "like a recorded one. --fclib-out DIR writes every recorded problem made\n"
    "of condim-3 contacts only as DIR/SCENE_K.hdf5 (K: its problem number in\n"
    "iterations.csv); the others are counted on stderr.\n"
    "When built with libsiconos-numerics-dev, Siconos' siconos_nsgs,\n"
    "siconos_ac and siconos_fb run beside ours; --no-siconos leaves them out.\n";

const char* cli_exit_name(int exit_reason) {
  if (exit_reason < 0 || exit_reason >= IMP_NEXIT) return "unknown";
  return exit_names[exit_reason];
}

int cli_check_solver(const char* cmd, const char* name) {
  for (int i = 0; i < imp_solver_count(); i++)
    if (strcmp(imp_solver_name(i), name) == 0) return 0;
  fprintf(stderr, "impetus %s: no contact solver named '%s'; known solvers:", cmd, name);
  for (int i = 0; i < imp_solver_count(); i++)
    fprintf(stderr, "%s %s", i ? "," : "", imp_solver_name(i));
  fprintf(stderr, " (see `impetus solvers`)\n");
  return -1;
}

/* Width of the longest solver name, to align the descriptions. */
static int name_width(void) {
  int w = 0;
  for (int i = 0; i < imp_solver_count(); i++) {
    int n = (int)strlen(imp_solver_name(i));
    if (n > w) w = n;
  }
  return w;
}

int cmd_solvers(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--compare")) return cli_solvers_compare(argc, argv);
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(cli_usage_solvers, stdout);
      return 0;
    }
    return cli_usage_error("unexpected argument '%s'", argv[i]);
  }
  /* one solver a line: the name (the first word, as --solver takes it),
     its description, and the registry's default (index 0) marked */
  int w = name_width();
  for (int i = 0; i < imp_solver_count(); i++) {
    const char* desc = imp_solver_description(i);
    printf("%-*s  %s%s\n", w, imp_solver_name(i), desc ? desc : "", i == 0 ? " (default)" : "");
  }
  return 0;
}
