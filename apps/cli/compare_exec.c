/* impetus solvers --compare in the impetus program: runs the impetus-compare
   program that sits beside this one (cmd_compare.c says why it is a program
   of its own) with the same arguments, so users see one command. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

int cli_solvers_compare(int argc, char** argv) {
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) {
    fprintf(stderr, "impetus solvers --compare: cannot find this program's directory: %s\n",
            strerror(errno));
    return CLI_EXIT_ERROR;
  }
  self[len] = '\0';
  char* slash = strrchr(self, '/');
  const char name[] = "impetus-compare";
  size_t dir = slash ? (size_t)(slash - self) + 1 : 0;
  char path[PATH_MAX];
  if (dir + sizeof name > sizeof path) {
    fprintf(stderr, "impetus solvers --compare: this program's path is too long\n");
    return CLI_EXIT_ERROR;
  }
  memcpy(path, self, dir);
  memcpy(path + dir, name, sizeof name);
  /* argv[0] of cmd_solvers is "solvers": the new program gets its own name */
  char** args = calloc((size_t)argc + 1, sizeof *args);
  if (!args) return CLI_EXIT_ERROR;
  args[0] = path;
  for (int i = 1; i < argc; i++) args[i] = argv[i];
  fflush(NULL);
  execv(path, args);
  fprintf(stderr,
          "impetus solvers --compare: cannot run %s: %s (it is built with impetus; "
          "the comparison lives there)\n",
          path, strerror(errno));
  free(args);
  return CLI_EXIT_ERROR;
}
