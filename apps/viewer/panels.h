/* The text of the viewer's panels, built from the model, the data and the
 * viewer's state: no OpenGL, so tests read exactly what a user sees.
 * Each panel is two columns of '\n'-separated lines (imp_render_overlay).
 *
 * Promises: the help panel lists the bindings of input.c's key map; the
 * info panel shows simulated time, the requested and achieved speed, FPS,
 * contacts and the contact solver with its iterations and residual of the
 * last step; text is cut to the buffers given, never overflowing them. */
#ifndef IMPETUS_VIEWER_PANELS_H
#define IMPETUS_VIEWER_PANELS_H

#include <stddef.h>

#include "camera.h"
#include "input.h"

/* Numbers the window measures, for the info panel. */
typedef struct imp_viewer_status {
  double fps, rtf;           /* measured (pacing.h) */
  const char* recording;     /* the file being recorded, NULL when not */
  int replay_row, replay_nrow; /* replay: the row shown and the rows (nrow 0: simulating) */
  /* replay of a recording with solver columns: the row's recorded ncon,
     nefc, solver_iter, solver_residual, shown instead of a re-solve of the
     recorded state; NULL otherwise */
  const double* recorded_solver;
  int msaa;                  /* the window's samples per pixel (0: none) */
} imp_viewer_status;

/* A two-column panel's text. */
typedef struct imp_viewer_panel {
  char left[4096];
  char right[4096];
} imp_viewer_panel;

void imp_viewer_help_panel(imp_viewer_panel* p, int replay);
void imp_viewer_info_panel(imp_viewer_panel* p, const imp_model* m, const imp_data* d,
                           const imp_viewer_ui* ui, const imp_camera* cam,
                           const imp_viewer_status* st);
/* Joint values (hinge and slide: the value; ball and free: position and
   quaternion abridged) then, when the model has actuators, their ctrl as a
   slider and a number, the one the keys move marked by '>'. At most
   maxlines lines, the lists scrolled as ui says (state_panel.h). */
void imp_viewer_state_panel(imp_viewer_panel* p, const imp_model* m, const imp_data* d,
                            const imp_viewer_ui* ui, int maxlines);

/* Break msg into lines of at most width characters at spaces (or anywhere
   when a word is longer), into out (size n). */
void imp_viewer_wrap(const char* msg, int width, char* out, size_t n);

#endif
