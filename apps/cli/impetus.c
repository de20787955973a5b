/* impetus: the command-line program. Dispatches to one function per
   subcommand (cmd_check.c, cmd_run.c, cmd_bench.c, cmd_solvers.c ...) and
   prints their usage; the helpers they share are in cli.c. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"

static const char* const usage_main =
    "usage: impetus <command> [arguments]\n"
    "\n"
    "Impetus " IMP_VERSION_STRING ", a MuJoCo-style physics simulator.\n"
    "\n"
    "commands:\n"
    "  check MODEL.xml [--contacts]     load a model, print its sizes (and contacts)\n"
    "  run MODEL.xml --steps N [...]    simulate, optionally recording a trajectory\n"
    "  batch MODEL.xml --rollouts N --steps K --out DIR [...]  many rollouts to NPY files\n"
    "  bench MODEL.xml [--steps N] ...  measure the speed of the time step\n"
    "  solvers [--compare ...]          list (or benchmark) the contact solvers\n"
    "  render MODEL.xml --steps N --out DIR|FILE.png [...]  draw a headless run to PNG\n"
    "  view MODEL.xml [...]             simulate in a window, interactively\n"
    "  replay TRAJ.csv MODEL.xml [...]  play a recorded trajectory in a window\n"
    "  help [COMMAND]                   this text, or the options of COMMAND\n"
    "\n"
    "A model file that uses physics Impetus does not implement is refused, naming\n"
    "the feature at its file:line; every command that loads a model takes\n"
    "--allow-unsupported to load it anyway, dropping the feature with a warning.\n"
    "\n"
    "exit status: 0 success, 1 error (model, keyframe or file), 2 bad usage,\n"
    "3 the state went non-finite during `run` (the file is still complete).\n";

static const char* const usage_check =
    "usage: impetus check MODEL.xml [--contacts [--key NAME] [--solver NAME]]\n"
    "\n"
    "Load MODEL.xml. Loader warnings go to stderr; stdout gets one `key: value`\n"
    "a line: model, nq, nv, nbody, njnt, ngeom, nmesh, npair, nexclude, nu,\n"
    "timestep, warnings, nkey, then `key I: NAME` for each keyframe (#I when\n"
    "it has no name; run --key takes either).\n"
    "--contacts also computes the contacts at the initial state (the model's\n"
    "reference configuration, or keyframe NAME with --key) and prints ncon,\n"
    "then one line per contact: index, geom1 and geom2 (name or #id, and\n"
    "type), dist (signed distance, negative when penetrating), pos and the\n"
    "normal (pointing from geom1 to geom2), condim and friction.\n"
    "--solver NAME (with --contacts) solves the initial contacts with that\n"
    "contact solver (see `impetus solvers`) and adds one line: solver, its\n"
    "iterations, its exit reason and the relative residual.\n"
    "Exit 0 when the model loads, 1 (with file:line: message) when it does not.\n";

static const char* const usage_run =
    "usage: impetus run MODEL.xml --steps N [--dt H] [--key NAME]\n"
    "                   [--record FILE.csv|FILE.npy [--record-solver]] [--every K]\n"
    "                   [--solver NAME] [--threads T] [--ctrl FILE.csv|FILE.npy]\n"
    "                   [--step-budget W] [--quiet] [--keep-partial]\n"
    "\n"
    "Simulate N steps (N >= 0) from the model's reference configuration, or\n"
    "from keyframe NAME (#I: keyframe number I). --dt overrides the model's\n"
    "timestep (H > 0).\n"
    "--ctrl FILE drives the actuators open-loop (the C API's control\n"
    "callback: the same bits as a C program setting the same ctrl). CSV or\n"
    "NPY (float64), one row per step: row i is the ctrl of step i + 1, and\n"
    "when the file has fewer rows than steps its last row holds (a note on\n"
    "stderr says so). A CSV header names the actuators of the columns, in\n"
    "any order; actuators it does not name keep their ctrl (0, or the\n"
    "keyframe's). A first column named time (or t) makes the rows a\n"
    "zero-order hold: the row with the largest time <= the simulation time\n"
    "applies (times within 1e-6 timestep count as reached; strictly\n"
    "increasing; before the first time ctrl stays as it was; the last row\n"
    "holds). Without a header (and in NPY) the columns are the nu actuators\n"
    "in order, or time then the nu actuators. Blank lines and lines starting\n"
    "with # are skipped. An unknown actuator name, a row with the wrong number\n"
    "of values, a value that is not a finite number, no rows, or more than\n"
    "10,000,000 rows or 256 MiB is an error naming FILE:LINE (NPY: the row),\n"
    "exit 1, before anything is simulated or written. A recording's JSON\n"
    "sidecar (FILE.npy.json, or FILE.csv.json with --ctrl) records the\n"
    "control file as \"ctrl\".\n"
    "--record writes the initial state and then the state after every K-th\n"
    "step (K >= 1, default 1): columns time, qpos_*, qvel_*, ctrl_*, then\n"
    "act_* (actuator activations), mocap_* (7 per mocap body) and sensor_*\n"
    "when the model has them. The "
    "format follows the extension: CSV with a header line, or NPY (float64,\n"
    "shape (rows, columns)) with a FILE.npy.json sidecar naming the columns,\n"
    "saying what each holds (\"descriptions\": e.g. \"torso free joint, qw\")\n"
    "and recording the model path, steps, every, solver and \"complete\".\n"
    "Rows go to a new temporary file FILE.XXXXXX.tmp of the run's own (never\n"
    "through a link), which becomes FILE only when the run completes: a\n"
    "recording is complete or absent (also on Ctrl-C, which exits 130), and\n"
    "two runs to one FILE leave the whole recording of one of them.\n"
    "--record-solver adds the columns ncon, nefc, solver_iter and\n"
    "solver_residual: contacts, constraint rows, solver iterations and the\n"
    "relative residual of the step that produced the row (0 in the initial row).\n"
    "--solver NAME uses that contact solver instead of the model's (see\n"
    "`impetus solvers`); an unknown name is bad usage.\n"
    "--threads T (1 to 64, default 1) solves independent contact islands on\n"
    "T threads; the recording is bitwise that of one thread.\n"
    "--step-budget W (> 0, default 1e9) bounds the work of each step's contact\n"
    "solves to W multiply-adds, counted from iterations and rows, never\n"
    "timed (results stay bitwise the same on any machine): islands that\n"
    "would need more stop early, unconverged, and are counted in\n"
    "steps_over_budget (engine/constraint/contact.h: the step's work budget).\n"
    "\n"
    "A summary goes to stdout, one `key: value` a line: steps, final time,\n"
    "wall time, nan_resets, a line `solver: NAME iterations: N worst_exit: E`\n"
    "(the solver's iterations over the run and its worst exit reason:\n"
    "converged, maxiter, stalled, diverged, failed), then\n"
    "  steps_not_converged  steps whose worst island did not exit converged\n"
    "  steps_work_bounded   of those, steps with an island stopped by the\n"
    "                       work bound of a solve (engine/constraint/README.md)\n"
    "  steps_over_budget    steps with an island stopped unconverged by the\n"
    "                       step's work budget (--step-budget)\n"
    "  max_body_speed       the largest speed (m/s) of a body's centre of\n"
    "                       mass after any step\n"
    "  max_body_speed_body  that body (name, #id unnamed, none without steps)\n"
    "  max_body_speed_step  the step after which it was reached\n"
    "  root_height          world z of the first free joint's body at the\n"
    "                       end (its qpos z), or none\n"
    "If the state goes non-finite the engine resets it and counts it;\n"
    "the run goes on, the file is written completely, a warning is printed and\n"
    "the exit status is 3.\n"
    "When the contact solver stopped short of its tolerance in some steps (the\n"
    "engine warns at the first), a line on stderr after the summary says in\n"
    "how many.\n"
    "On a terminal a progress line goes to stderr every few seconds (steps,\n"
    "simulated time, real-time factor, time left); --quiet turns it off.\n"
    "--keep-partial (with --record): on SIGINT, SIGTERM or SIGHUP keep the rows\n"
    "written so far instead, with the sidecar FILE.json (written for a CSV too)\n"
    "saying \"complete\": false; the exit status is still 130.\n"
    "SIGINT (Ctrl-C), SIGTERM or SIGHUP stops the run at the end of the step, discards\n"
    "the recording and exits 130; a step that has not ended 2 s after the\n"
    "signal (or a second signal) ends the process at once, with the same\n"
    "status and nothing written.\n"
    "Exit 1: model, keyframe or file error; 2: bad arguments (nothing written).\n";


static const char* const usage_batch =
    "usage: impetus batch MODEL.xml --rollouts N --steps K --out DIR [--threads T]\n"
    "                     [--perturb qpos=S,qvel=S] [--seed X] [--key NAME]\n"
    "                     [--ctrl DIR|FILE] [--solver NAME] [--resume] [--quiet]\n"
    "\n"
    "N independent rollouts of K steps of one model (imp_rollout), on T threads\n"
    "(default 1) that take the next rollout as they come free. Rollout I starts\n"
    "from the model's reference state (or keyframe NAME), its velocities plus\n"
    "S_qvel times standard normal draws and its positions moved by S_qpos times\n"
    "others (through each joint's kinematic map), from a generator seeded by\n"
    "(X, I) alone (--seed, default 0). --ctrl FILE drives every rollout with one\n"
    "control file (the format of `impetus run --ctrl`); --ctrl DIR drives rollout I\n"
    "with DIR/rollout_IIIIII.csv (or .npy), one per rollout.\n"
    "\n"
    "Outputs, in DIR (made if missing): rollout_IIIIII.npy, the state before the\n"
    "first step and after each (K + 1 rows; the columns of `impetus run --record`),\n"
    "with its sidecar rollout_IIIIII.npy.json; and manifest.csv, one row per\n"
    "rollout: rollout, seed, file, init_hash (FNV-1a 64 of the initial qpos, qvel,\n"
    "act, which are also row 0 of its file), status (ok, nonfinite, interrupted,\n"
    "not_run, write_error), nan_resets, steps, steps_not_converged, wall_seconds.\n"
    "A rollout whose state went non-finite (the engine reset it) keeps its file,\n"
    "is marked nonfinite, and the others go on (exit status 3).\n"
    "\n"
    "The files are the same bits whatever --threads, with impetus-mpi under\n"
    "mpirun (rollout I on rank I mod P), and after an interruption and --resume;\n"
    "only the manifest's last column, wall_seconds, differs from run to run.\n"
    "\n"
    "SIGINT, SIGTERM or SIGHUP stop every rollout at the end of its step: finished\n"
    "rollouts keep their files, cut ones leave none (exit status 130).\n"
    "--resume runs the rollouts the manifest in DIR does not list as ok or\n"
    "nonfinite; its settings (model, rollouts, steps, key, perturbation, seed,\n"
    "ctrl, solver) must be this run's. Without --resume an existing manifest is\n"
    "left alone (exit status 2). Progress lines on stderr as for run.\n";

static const char* const usage_bench =
    "usage: impetus bench MODEL.xml [--steps N] [--dt H] [--ctrlnoise S]\n"
    "                     [--seed X] [--solver NAME] [--threads T]\n"
    "                     [--step-budget W] [--key NAME]\n"
    "\n"
    "Reset, then time N steps (default 10000) on the monotonic clock and\n"
    "print model, steps, timestep, ctrlnoise, steps_per_second,\n"
    "realtime_factor (simulated / wall time) and ns_per_step, one a line,\n"
    "then contacts_per_step (mean over the steps), pairs_broad_per_step and\n"
    "pairs_narrow_per_step (geom pairs past the broad phase and filters, and\n"
    "of those the pairs whose bounding spheres met) and collision_ns_per_step\n"
    "(the time of the collision stage within the step), then the contact\n"
    "stage: solver (its name; --solver NAME picks another, see `impetus\n"
    "solvers`), solver_iterations_per_step (mean), newton_share (iterations\n"
    "whose Newton point was accepted over all iterations, 0 without any),\n"
    "solver_residual_max (the largest relative residual of a step),\n"
    "steps_not_converged (steps where any island's solver stopped short of\n"
    "its tolerance), steps_work_bounded (of those, steps with an island\n"
    "stopped by the work bound of a solve), steps_over_budget (steps with an\n"
    "island stopped unconverged by the step's work budget, --step-budget W as\n"
    "in `impetus run`), solver_work_per_step_max (the largest work of a step's\n"
    "solves, in multiply-adds), island_iterations_median, _p90\n"
    "and _max (iterations of one island's solve, retries included, over\n"
    "every island of every step), constraint_rows_per_step and\n"
    "islands_per_step (means) and solver_ns_per_step (the time of the\n"
    "contact stage within the step).\n"
    "--threads T (1 to 64, default 1) solves independent islands on T\n"
    "threads; the results are bitwise those of one thread.\n"
    "--ctrlnoise S (default 0) sets, before each step, every control to\n"
    "mid + S * halfrange * g for a control-limited actuator (clamped to its\n"
    "range) and to S * g otherwise, g a standard normal from a deterministic\n"
    "generator seeded by --seed (default 1), like mujoco's testspeed. The\n"
    "noise is drawn outside the timed region.\n"
    "--key NAME starts from keyframe NAME (#I: keyframe number I) instead of\n"
    "the model's reference configuration, and prints it as key: after model.\n";

int cli_usage(const char* name, int to_stderr) {
  FILE* out = to_stderr ? stderr : stdout;
  const char* text = NULL;
  if (!name)
    text = usage_main;
  else if (strcmp(name, "check") == 0)
    text = usage_check;
  else if (strcmp(name, "run") == 0)
    text = usage_run;
  else if (strcmp(name, "bench") == 0)
    text = usage_bench;
  else if (strcmp(name, "batch") == 0)
    text = usage_batch;
  else if (strcmp(name, "solvers") == 0)
    text = cli_usage_solvers;
  else if (strcmp(name, "render") == 0)
    text = cli_usage_render;
  else if (strcmp(name, "view") == 0)
    text = cli_usage_view;
  else if (strcmp(name, "replay") == 0)
    text = cli_usage_replay;
  if (!text) return -1;
  fputs(text, out);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    cli_usage(NULL, 1);
    return CLI_EXIT_USAGE;
  }
  const char* cmd = argv[1];
  if (cli_is_help(cmd) || strcmp(cmd, "help") == 0) {
    if (argc > 2 && cli_usage(argv[2], 0) == 0) return 0;
    if (argc > 2) {
      fprintf(stderr, "impetus: no command '%s'\n", argv[2]);
      cli_usage(NULL, 1);
      return CLI_EXIT_USAGE;
    }
    cli_usage(NULL, 0);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("impetus %s\n", IMP_VERSION_STRING);
    return 0;
  }
  cli_set_command(cmd);
  if (strcmp(cmd, "check") == 0) return cmd_check(argc - 1, argv + 1);
  if (strcmp(cmd, "run") == 0) return cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
  if (strcmp(cmd, "batch") == 0) return cmd_batch(argc - 1, argv + 1);
  if (strcmp(cmd, "solvers") == 0) return cmd_solvers(argc - 1, argv + 1);
  if (strcmp(cmd, "render") == 0) return cmd_render(argc - 1, argv + 1);
  if (strcmp(cmd, "view") == 0) return cmd_view(argc - 1, argv + 1);
  if (strcmp(cmd, "replay") == 0) return cmd_replay(argc - 1, argv + 1);
  fprintf(stderr, "impetus: unknown command '%s'\n\n", cmd);
  cli_usage(NULL, 1);
  return CLI_EXIT_USAGE;
}
