/* impetus render when the renderer is not built (IMP_BUILD_RENDER=OFF). */
#include <stdio.h>

#include "cmd.h"

const char* const cli_usage_render =
    "usage: impetus render ...\n"
    "This impetus was built without the renderer (IMP_BUILD_RENDER=OFF).\n";

int cmd_render(int argc, char** argv) {
  (void)argc, (void)argv;
  fprintf(stderr,
          "impetus render: built without the renderer (configure with -DIMP_BUILD_RENDER=ON)\n");
  return CLI_EXIT_USAGE;
}
