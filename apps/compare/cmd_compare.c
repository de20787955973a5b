/* impetus solvers --compare, run by the impetus-compare program (apps/
   impetus_compare.c): the solver comparison with Siconos' solvers and FCLIB
   files beside ours. Its own program because Siconos brings OpenBLAS's
   threaded build, whose thread pool starts with any process that links it
   and whose symbols clash with the single-threaded OpenBLAS the engine
   factors with: the programs users simulate with link neither. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "fclib_io.h"
#include "solver_compare.h"

/* impetus solvers --compare [--out DIR] [--steps N] [--every K]
   [--max-problems P] [--maxiter N] [--tol T] [--fclib-out DIR] [--no-siconos] [SCENE...] */
int cli_solvers_compare(int argc, char** argv) {
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
      fputs(cli_usage_solvers, stdout);
      free(scenes);
      return 0;
    }
    if ((k = cli_option(argc, argv, &i, "out", &v)) != 0) {
      if (k < 0) rc = CLI_EXIT_USAGE;
      else o.out = v;
    } else if ((k = cli_option(argc, argv, &i, "steps", &v)) != 0) {
      if (k < 0 || cli_parse_ll("steps", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.steps = (int)(x > 1000000 ? 1000000 : x);
    } else if ((k = cli_option(argc, argv, &i, "every", &v)) != 0) {
      if (k < 0 || cli_parse_ll("every", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.every = (int)(x > 1000000 ? 1000000 : x);
    } else if ((k = cli_option(argc, argv, &i, "max-problems", &v)) != 0) {
      if (k < 0 || cli_parse_ll("max-problems", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.max_problems = (int)(x > 100000 ? 100000 : x);
    } else if ((k = cli_option(argc, argv, &i, "maxiter", &v)) != 0) {
      if (k < 0 || cli_parse_ll("maxiter", v, 1, &x)) rc = CLI_EXIT_USAGE;
      else o.maxiter = (int)(x > 1000000 ? 1000000 : x);
    } else if ((k = cli_option(argc, argv, &i, "tol", &v)) != 0) {
      if (k < 0 || cli_parse_double("tol", v, 1, &o.tol)) rc = CLI_EXIT_USAGE;
    } else if ((k = cli_option(argc, argv, &i, "fclib-out", &v)) != 0) {
      if (k < 0) rc = CLI_EXIT_USAGE;
      else if (!fclib_io_available()) {
        rc = cli_usage_error("--fclib-out: this impetus was built without FCLIB support "
                             "(install libfclib-dev and rebuild)");
      } else o.fclib_out = v;
    } else if (!strcmp(argv[i], "--no-siconos")) {
      o.no_siconos = 1;
    } else if (argv[i][0] == '-') {
      rc = cli_usage_error("unknown option '%s'", argv[i]);
    } else {
      scenes[o.nscenes++] = argv[i];
    }
  }
  if (rc == 0) {
    o.scenes = scenes;
    rc = solver_compare(&o);
  }
  free(scenes);
  return rc;
}
