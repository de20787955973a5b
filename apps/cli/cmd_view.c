/* impetus view MODEL.xml: the interactive viewer (apps/viewer/), and the
   argument parsing it shares with impetus replay (cmd_replay.c). The model
   (and a replay's trajectory) load before any window opens, so a bad file
   is a message and exit 1 even without a display. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/ctrl_file.h"
#include "viewer/cli_args.h"

const char* const cli_usage_view =
    "usage: impetus view MODEL.xml [--key NAME] [--solver NAME] [--size WxH]\n"
    "                    [--frames N [--screenshot FILE.png]] [--script EVENTS]\n"
    "                    [--ctrl FILE.csv|FILE.npy]\n"
    "                    [--no-shadows] [--msaa N]\n"
    "\n"
    "Open a window and simulate MODEL.xml in real time (from keyframe NAME\n"
    "with --key, with contact solver NAME with --solver). F1 in the window\n"
    "lists the controls; the README has the table. --size WxH sets the window\n"
    "(default 1200x900). --frames N runs N frames (each 1/60 s of simulated\n"
    "real time), writes the last one to --screenshot FILE.png and exits: the\n"
    "scripted mode tests use (under Xvfb), printing frames, size, fps, steps\n"
    "and steps_not_converged (steps whose contact solver stopped short of its\n"
    "tolerance; on closing, stderr says how many when there were any).\n"
    "Without a display: `xvfb-run -a impetus view ...`, or `impetus render`.\n"
    "--script 'F:ACTION;...' does at frame F what a user would: key NAME\n"
    "(ctrl+l, space, right, s, r, f1 ...), press BUTTON X Y, move X Y,\n"
    "release BUTTON, dclick BUTTON X Y (BUTTON: [ctrl+][shift+]left|right|\n"
    "middle; X Y window pixels), scroll X Y N (N wheel notches, > 0 up),\n"
    "drop FILE.\n"
    "--ctrl FILE drives the actuators from a control file as `impetus run\n"
    "--ctrl` does (`impetus help run` has the format): row i for step i + 1\n"
    "after a reset, or by time with a time column; the actuators it names\n"
    "follow it, the others stay under the keys. A bad file is an error before\n"
    "any window opens; a reloaded model whose actuators do not match it runs\n"
    "without it (the message shows in the window). Recordings (R) note it in\n"
    "their JSON sidecar.\n"
    "--no-shadows starts without shadows (H toggles them) and --msaa N sets\n"
    "the window's samples per pixel (default 4, 0 none; A toggles their use):\n"
    "with software OpenGL (llvmpipe) both keep the window responsive.\n"
    "Exit 1 when the model does not load (file:line: message, no window) or\n"
    "no window can be opened; 2 on bad usage.\n";

/* "WxH", each 16..8192. */
static int parse_size(const char* s, int* w, int* h) {
  char tail;
  if (sscanf(s, "%dx%d%c", w, h, &tail) != 2 || *w < 16 || *h < 16 || *w > 8192 || *h > 8192) {
    cli_usage_error("--size '%s' is not WxH (16 to 8192 each)", s);
    return -1;
  }
  return 0;
}

/* --msaa N: samples per pixel, 0 to 16 (GL lowers it to what it offers). */
static int parse_msaa(const char* cmd, const char* s, int* out) {
  long long n;
  if (cli_parse_ll("msaa", s, 0, &n)) return -1;
  if (n > 16) {
    fprintf(stderr, "impetus %s: --msaa %lld: at most 16 samples\n", cmd, n);
    return -1;
  }
  *out = (int)n;
  return 0;
}

/* One option of view/replay; 1 matched, 0 not an option of ours, -1 bad. */
static int parse_option(int argc, char** argv, int* i, cli_viewer_args* a) {
  const char* v = NULL;
  int k;
  long long n;
  if ((k = cli_option(argc, argv, i, "frames", &v)) != 0) {
    if (k < 0 || cli_parse_ll("frames", v, 1, &n)) return -1;
    a->opt.frames = n;
  } else if ((k = cli_option(argc, argv, i, "screenshot", &v)) != 0) {
    if (k < 0) return -1;
    a->opt.screenshot = v;
  } else if ((k = cli_option(argc, argv, i, "script", &v)) != 0) {
    static imp_viewer_event events[256];
    char err[1400];
    if (k < 0) return -1;
    a->opt.nscript = imp_viewer_parse_script(v, events, 256, err, sizeof err);
    if (a->opt.nscript < 0) {
      cli_usage_error("--%s", err);
      return -1;
    }
    a->opt.script = events;
  } else if ((k = cli_option(argc, argv, i, "msaa", &v)) != 0) {
    if (k < 0 || parse_msaa(a->replay ? "replay" : "view", v, &a->opt.msaa)) return -1;
  } else if (strcmp(argv[*i], "--no-shadows") == 0) {
    a->opt.no_shadows = 1;
  } else if ((k = cli_option(argc, argv, i, "size", &v)) != 0) {
    if (k < 0 || parse_size(v, &a->opt.width, &a->opt.height)) return -1;
  } else if (!a->replay && (k = cli_option(argc, argv, i, "key", &v)) != 0) {
    if (k < 0) return -1;
    a->key = v;
  } else if (!a->replay && (k = cli_option(argc, argv, i, "ctrl", &v)) != 0) {
    if (k < 0) return -1;
    a->ctrl = v;
  } else if (!a->replay && (k = cli_option(argc, argv, i, "solver", &v)) != 0) {
    if (k < 0 || cli_check_solver("view", v)) return -1;
    a->opt.solver = v;
  } else {
    return 0;
  }
  return 1;
}

/* Options and the npos files of view or replay. */
int cli_parse_viewer_args(int argc, char** argv, int npos, cli_viewer_args* a) {
  const char* cmd = a->replay ? "replay" : "view";
  a->opt = (imp_viewer_opt){.key = -1, .width = 1200, .height = 900, .msaa = 4};
  int got = 0;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return cli_usage(cmd, 0), -1;
    int k = parse_option(argc, argv, &i, a);
    if (k < 0) return CLI_EXIT_USAGE;
    if (k > 0) continue;
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option '%s'", argv[i]);
    }
    if (got == npos) {
      return cli_usage_error("too many files ('%s')", argv[i]);
    }
    a->pos[got++] = argv[i];
  }
  if (got < npos) {
    return cli_usage_error("%s", npos == 1 ? "no model given" : "needs TRAJ.csv and MODEL.xml");
  }
  if (a->opt.screenshot && a->opt.frames <= 0) {
    return cli_usage_error("--screenshot needs --frames N");
  }
  return 0;
}

/* Load the model (errors before any window), then hand it to the viewer. */
int cmd_view(int argc, char** argv) {
  int load_options = cli_take_load_options(&argc, argv);
  cli_viewer_args a = {.replay = 0};
  int st = cli_parse_viewer_args(argc, argv, 1, &a);
  if (st) return st < 0 ? 0 : st;
  imp_model* m = cli_load(a.pos[0], load_options);
  if (!m) return CLI_EXIT_ERROR;
  if (a.key && (a.opt.key = cli_find_key(m, a.pos[0], a.key)) < 0) {
    imp_free_model(m);
    return CLI_EXIT_ERROR;
  }
  ctrl_file* ctl = NULL;
  if (a.ctrl) {
    char err[4600] = "";
    if (!(ctl = ctrl_file_load(a.ctrl, m, err, sizeof err))) {
      fprintf(stderr, "impetus view: --ctrl %s\n", err);
      imp_free_model(m);
      return CLI_EXIT_ERROR;
    }
  }
  a.opt.model_path = a.pos[0];
  a.opt.load_options = load_options;
  a.opt.ctrl = ctl;
  int st_run = imp_viewer_run(m, &a.opt); /* the viewer owns m from here */
  ctrl_file_free(ctl);
  return st_run;
}
