/* The interactive viewer: a GLFW window that runs a model in real time
 * (`impetus view`) or plays a recorded trajectory (`impetus replay`), drawn
 * by the renderer library (render/render.h), with MuJoCo's mouse and key
 * habits (input.h) and panels (panels.h).
 *
 * Promises: a model that fails to load while the viewer runs (Ctrl+L, a
 * dropped file, the file changed on disk) shows the loader's message in the
 * window and the previous model keeps running; the viewer never exits on a
 * bad model. Scripted mode (frames > 0) runs that many frames at a fixed
 * 1/60 s of wall time each, writes the screenshot and returns, so the
 * window path can be tested under Xvfb. */
#ifndef IMPETUS_VIEWER_H
#define IMPETUS_VIEWER_H

#include "impetus.h"
#include "input.h"
#include "trajectory.h"

typedef struct imp_viewer_opt {
  const char* model_path;         /* the model's file: reloads and the title */
  int load_options;               /* imp_load_option bits for reloads (--allow-unsupported) */
  const imp_trajectory* traj;     /* replay: the rows to play; NULL simulates */
  int key;                        /* keyframe to start from (and reset to), -1 none */
  const char* solver;             /* contact solver to start with, NULL: the model's */
  long long frames;               /* > 0: scripted, exit after this many frames */
  const char* screenshot;         /* scripted: PNG of the last frame, NULL none */
  int width, height;              /* window size in screen coordinates */
  const imp_viewer_event* script; /* key presses and drops at given frames (input.h) */
  int nscript;
  struct ctrl_file* ctrl;         /* --ctrl: open-loop controls (ctrl_file.h) matched to every
                                     model loaded, through its control callback; NULL none */
  int msaa;                       /* the window's samples per pixel, 0 none (--msaa) */
  int no_shadows;                 /* start with shadows off (--no-shadows; H toggles) */
} imp_viewer_opt;

/* Open the window and run until it is closed (or the scripted frames are
   done). Takes ownership of m (the viewer swaps models on reload). Returns
   an exit status: 0, or 1 when the window, the GL context or the screenshot
   failed (message on stderr). */
int imp_viewer_run(imp_model* m, const imp_viewer_opt* o);

#endif
