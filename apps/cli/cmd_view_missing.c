/* impetus view and replay when the renderer is not built (IMP_BUILD_RENDER=OFF). */
#include <stdio.h>

#include "cmd.h"

const char* const cli_usage_view =
    "usage: impetus view ...\nThis impetus was built without the renderer (IMP_BUILD_RENDER=OFF).\n";
const char* const cli_usage_replay =
    "usage: impetus replay ...\nThis impetus was built without the renderer (IMP_BUILD_RENDER=OFF).\n";

/* Tell the user the renderer was left out of this build. */
static int missing(const char* cmd) {
  fprintf(stderr, "impetus %s: built without the renderer (configure with -DIMP_BUILD_RENDER=ON)\n", cmd);
  return CLI_EXIT_USAGE;
}

/* impetus view without a renderer: bad usage of this build. */
int cmd_view(int argc, char** argv) {
  (void)argc, (void)argv;
  return missing("view");
}

/* impetus replay without a renderer: bad usage of this build. */
int cmd_replay(int argc, char** argv) {
  (void)argc, (void)argv;
  return missing("replay");
}
