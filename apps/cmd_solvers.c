/* impetus solvers: list the registered contact solvers, or compare them
   (--compare, solver_compare.c); and the helpers that
   run, bench and check share for --solver and the solver's exit reasons. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "contact.h" /* imp_solver_exit: the names below follow its order */
#include "fclib_io.h"
#include "solver_compare.h"

/* The names of imp_solver_exit, by value, so a reordered enum cannot
   mislabel them silently; a new reason must get a name here. */
static const char* const exit_names[IMP_NEXIT] = {
    [IMP_EXIT_CONVERGED] = "converged", [IMP_EXIT_MAXITER] = "maxiter",
    [IMP_EXIT_STALLED] = "stalled",     [IMP_EXIT_DIVERGED] = "diverged",
    [IMP_EXIT_FAILED] = "failed",
};
_Static_assert(IMP_NEXIT == 5, "name the new solver exit reason in exit_names");

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

/* impetus solvers --compare [--out DIR] [--steps N] [--every K]
   [--max-problems P] [--maxiter N] [--tol T] [--fclib-out DIR] [--no-siconos] [SCENE...] */
static int cmd_compare(int argc, char** argv) {
  compare_opt o = {"build/solver_compare", 200, 5, 20, 1000, 1e-10, NULL, 0, NULL, 0};
  const char** scenes = calloc((size_t)argc + 1, sizeof *scenes);
  if (!scenes) return CLI_EXIT_ERROR;
  int rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    const char* v;
    long long x;
    int k;
    if (!strcmp(argv[i], "--compare")) continue;
    if (cli_is_help(argv[i])) {
      cli_usage("solvers", 0);
      free(scenes);
      return 0;
    }
    if ((k = cli_option(argc, argv, &i, "out", &v)) != 0) {
      if (k < 0) rc = CLI_EXIT_USAGE;
      else o.out = v;
    } else if ((k = cli_option(argc, argv, &i, "steps", &v)) != 0) {
      if (k < 0 || cli_parse_ll("--steps", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.steps = (int)(x > 1000000 ? 1000000 : x);
    } else if ((k = cli_option(argc, argv, &i, "every", &v)) != 0) {
      if (k < 0 || cli_parse_ll("--every", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.every = (int)(x > 1000000 ? 1000000 : x);
    } else if ((k = cli_option(argc, argv, &i, "max-problems", &v)) != 0) {
      if (k < 0 || cli_parse_ll("--max-problems", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.max_problems = (int)(x > 100000 ? 100000 : x);
    } else if ((k = cli_option(argc, argv, &i, "maxiter", &v)) != 0) {
      if (k < 0 || cli_parse_ll("--maxiter", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.maxiter = (int)(x > 1000000 ? 1000000 : x);
    } else if ((k = cli_option(argc, argv, &i, "tol", &v)) != 0) {
      if (k < 0 || cli_parse_double("--tol", v, 1, &o.tol)) rc = CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "fclib-out", &v)) != 0) {
      if (k < 0) rc = CLI_EXIT_USAGE;
      else if (!fclib_io_available()) {
        fprintf(stderr, "impetus solvers: --fclib-out: this impetus was built without FCLIB "
                        "support (install libfclib-dev and rebuild)\n");
        rc = CLI_EXIT_USAGE;
      } else o.fclib_out = v;
    } else if (!strcmp(argv[i], "--no-siconos")) {
      o.no_siconos = 1;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "impetus solvers: unknown option '%s'\n", argv[i]);
      rc = CLI_EXIT_USAGE;
    } else {
      scenes[o.nscenes++] = argv[i];
    }
  }
  if (rc == CLI_EXIT_USAGE) cli_usage("solvers", 1);
  if (rc == 0) {
    o.scenes = scenes;
    rc = solver_compare(&o);
  }
  free(scenes);
  return rc;
}

int cmd_solvers(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--compare")) return cmd_compare(argc, argv);
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      cli_usage("solvers", 0);
      return 0;
    }
    fprintf(stderr, "impetus solvers: unexpected argument '%s'\n", argv[i]);
    cli_usage("solvers", 1);
    return CLI_EXIT_USAGE;
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
