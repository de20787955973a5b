/* impetus check MODEL.xml: load a model and print its sizes. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int cmd_check(int argc, char** argv) {
  const char* path = NULL;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      cli_usage("check", 0);
      return 0;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "impetus check: unknown option '%s'\n", argv[i]);
      cli_usage("check", 1);
      return CLI_EXIT_USAGE;
    }
    if (path) {
      fprintf(stderr, "impetus check: one model at a time ('%s' and '%s')\n", path, argv[i]);
      return CLI_EXIT_USAGE;
    }
    path = argv[i];
  }
  if (!path) {
    fprintf(stderr, "impetus check: no model given\n");
    cli_usage("check", 1);
    return CLI_EXIT_USAGE;
  }

  imp_model* m = cli_load(path);
  if (!m) return CLI_EXIT_ERROR;
  printf("model: %s\n", cli_model_name(m));
  printf("nq: %d\n", m->nq);
  printf("nv: %d\n", m->nv);
  printf("nbody: %d\n", m->nbody);
  printf("njnt: %d\n", m->njnt);
  printf("ngeom: %d\n", m->ngeom);
  printf("nu: %d\n", m->nu);
  printf("timestep: %g\n", m->opt.timestep);
  printf("warnings: %d\n", m->nwarning);
  imp_free_model(m);
  return 0;
}
