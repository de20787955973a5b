/* The viewer's state shared by window.c (GLFW, events, the frame loop) and
   session.c (model, data and renderer lifecycle, the commands that need the
   engine). Not an API: only the viewer's own files include it. */
#ifndef IMPETUS_VIEWER_INTERNAL_H
#define IMPETUS_VIEWER_INTERNAL_H

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <time.h>

#include "input.h"
#include "pacing.h"
#include "panels.h"
#include "perturb.h"
#include "state_panel.h"
#include "record.h"
#include "render.h"
#include "viewer.h"

typedef struct imp_viewer {
  const imp_viewer_opt* o;
  GLFWwindow* win;
  imp_model* m;
  imp_data* d;
  imp_renderer* r;
  imp_camera cam;
  imp_render_opt opt;
  imp_viewer_ui ui;
  imp_viewer_perturb pert;
  imp_viewer_pacer pacer;
  imp_viewer_meter meter;
  int selected;          /* selected body, -1 none */
  double sel_local[3];   /* where it was picked, in its frame */
  /* the model file, watched for changes */
  char path[4096];
  struct timespec mtime; /* of the loaded (or last failed) version */
  double next_poll;
  /* recording */
  imp_recorder* rec;
  char rec_path[4200];
  /* a message in the window: an error stays until the next success */
  char message[4096];
  double message_until;
  /* mouse */
  int drag;              /* imp_viewer_drag */
  double mx, my;
  imp_viewer_press press;
  double frame_seconds;  /* the last frame's wall time: double-click slack */
  /* replay */
  int row;
  double replay_clock;   /* simulated time of the play head */
  double bar_x0, bar_x1, bar_y0, bar_y1; /* the scrub bar, framebuffer pixels */
  int scrubbing;         /* the left button went down on the bar and is held */
  /* the state panel as last drawn: its lines and pixels, for the mouse */
  imp_viewer_state_layout state;
  imp_viewer_panel_geom state_geom; /* all 0 when not drawn */
  int slider;            /* the actuator whose ctrl slider is dragged, -1 none */
  /* requests from callbacks, served by the frame loop */
  int want_screenshot;
  int next_event;        /* the next scripted event to play */
  char drop[4096];
  int quit;
  /* steps simulated this session, and of those the steps whose contact
     solver stopped short of its tolerance (the engine warns at the first) */
  long long nsteps, not_converged;
} imp_viewer;

/* ---- session.c ---- */

/* Adopt the model the command loaded (v->path names its file): data and
   renderer for it, in the window's context; -1 (message on stderr, m freed)
   when they cannot be made. */
int imp_viewer_start(imp_viewer* v, imp_model* m);
/* Load path as the new model (keep_camera: a reload of the same file).
   On failure the message is shown and the old model stays; 0 or -1. */
int imp_viewer_load(imp_viewer* v, const char* path, int keep_camera);
/* Free the model, data, renderer; close a recording. */
void imp_viewer_unload(imp_viewer* v);
/* Show a message for a few seconds (error: until replaced). */
void imp_viewer_say(imp_viewer* v, int error, const char* fmt, ...);
/* Carry out a command imp_viewer_apply left to the window. */
void imp_viewer_command(imp_viewer* v, imp_viewer_cmd c);
/* One simulation step with the mouse spring, recorded when recording. */
void imp_viewer_step(imp_viewer* v);
/* Show row i of the trajectory (clamped). */
void imp_viewer_show_row(imp_viewer* v, int i);
/* Reload when the model file's modification time changed (polled at 2 Hz). */
void imp_viewer_poll_file(imp_viewer* v, double now);
/* Write the window's current image to path; 0 or -1 (message shown). */
int imp_viewer_screenshot(imp_viewer* v, const char* path);
/* Ctrl+P: the window's image to "<model>_<date>_<time>.png". */
void imp_viewer_screenshot_stamped(imp_viewer* v);

#endif
