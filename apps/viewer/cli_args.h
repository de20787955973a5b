/* The command-line arguments impetus view and impetus replay share
   (parsed in cmd_view.c). */
#ifndef IMPETUS_VIEWER_CLI_ARGS_H
#define IMPETUS_VIEWER_CLI_ARGS_H

#include "viewer.h"

typedef struct cli_viewer_args {
  int replay;          /* in: 1 for replay (no --key, --solver) */
  const char* pos[2];  /* the files: MODEL, or TRAJ and MODEL */
  const char* key;     /* --key NAME, resolved against the model later */
  const char* ctrl;    /* --ctrl FILE, read once the model is loaded */
  imp_viewer_opt opt;
} cli_viewer_args;

/* Parse argv (argv[0] the command) expecting npos files. 0 on success, -1
   after printing --help (exit 0), else an exit status (message printed). */
int cli_parse_viewer_args(int argc, char** argv, int npos, cli_viewer_args* a);

#endif
