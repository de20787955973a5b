/* impetus replay TRAJ.csv|TRAJ.npy MODEL.xml: play a recorded trajectory (impetus
   run --record, or R in the viewer) in the viewer, with its controls:
   space pauses, arrows scrub, +/- set the speed, the bar on top jumps. */
#include <stdio.h>

#include "cmd.h"
#include "viewer/cli_args.h"

const char* const cli_usage_replay =
    "usage: impetus replay TRAJ.csv|TRAJ.npy MODEL.xml [--size WxH]\n"
    "                      [--frames N [--screenshot FILE.png]]\n"
    "                      [--script EVENTS] [--no-shadows] [--msaa N]\n"
    "\n"
    "Play TRAJ, recorded from MODEL.xml by `impetus run --record` (CSV, or\n"
    "NPY with its TRAJ.npy.json sidecar; with or without --record-solver) or\n"
    "by the viewer's R key, in real time.\n"
    "Space pauses, Right/Left move one row, Up/Down one second, +/- slow it\n"
    "down, Backspace rewinds; a click on the bar at the top jumps there.\n"
    "The trajectory must have the model's nq qpos, nv qvel and nu ctrl\n"
    "columns, and 7 mocap columns (pos, quat) per mocap body; mocap bodies\n"
    "move as recorded. --frames, --screenshot, --script, --no-shadows and\n"
    "--msaa as for `impetus view`.\n"
    "A recording made with --record-solver shows each row's recorded contacts,\n"
    "solver iterations and residual (marked \"recorded\"), not a new solve of\n"
    "the recorded state; --frames then also prints row and recorded_ncon,\n"
    "recorded_solver_iter and recorded_solver_residual of the last row.\n"
    "Exit 1 when the model or the trajectory does not load (file:line:\n"
    "message, no window); 2 on bad usage.\n";

/* Load the model and the trajectory (errors before any window), then play. */
int cmd_replay(int argc, char** argv) {
  int load_options = cli_take_load_options(&argc, argv);
  cli_viewer_args a = {.replay = 1};
  int st = cli_parse_viewer_args(argc, argv, 2, &a);
  if (st) return st < 0 ? 0 : st;
  imp_model* m = cli_load(a.pos[1], load_options);
  if (!m) return CLI_EXIT_ERROR;
  char err[4096] = "";
  imp_trajectory* t = imp_trajectory_load(a.pos[0], m, err, sizeof err);
  if (!t) {
    fprintf(stderr, "%s\n", err);
    imp_free_model(m);
    return CLI_EXIT_ERROR;
  }
  a.opt.model_path = a.pos[1];
  a.opt.load_options = load_options;
  a.opt.traj = t;
  st = imp_viewer_run(m, &a.opt); /* the viewer owns m from here */
  imp_trajectory_free(t);
  return st;
}
