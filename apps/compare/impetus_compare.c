/* impetus-compare: the contact-solver comparison (`impetus solvers
   --compare`, which runs this program), with Siconos' solvers and FCLIB
   files when built with them. A program of its own: see cmd_compare.c.
   Takes the arguments of `impetus solvers`. */
#include <stdio.h>

#include "cli/cmd.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fputs(cli_usage_solvers, stderr);
    return CLI_EXIT_USAGE;
  }
  cli_set_command("solvers");
  return cmd_solvers(argc, argv);
}
