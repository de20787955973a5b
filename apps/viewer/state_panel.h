/* The state panel (top right: joints, then actuators with ctrl sliders) as
 * lines and pixels, without a window: which lines show which joints and
 * actuators, scrolling each list with the mouse wheel, and the sliders
 * that set an actuator's ctrl by dragging, as MuJoCo's simulate does.
 *
 * The window measures the panel (the renderer's font) and hands the
 * pixels over as imp_viewer_panel_geom; everything else is arithmetic
 * here, so test/apps/viewer/test_viewer_state_panel.c checks hits, mapping and
 * clamping the way a user's mouse would meet them.
 *
 * Promises: the rows shown always lie within the model's joints and
 * actuators (scrolling clamps); a slider's value always lies within its
 * range: the actuator's ctrlrange when it is control-limited, else
 * [-1, 1] (MuJoCo's simulate); no function allocates. */
#ifndef IMPETUS_VIEWER_STATE_PANEL_H
#define IMPETUS_VIEWER_STATE_PANEL_H

#include <stddef.h>

#include "impetus.h"
#include "input.h"

/* Which line of the panel shows what; lines count from 0 at the top. */
typedef struct imp_viewer_state_layout {
  int nlines;
  int joint_header;            /* the "Joints" line, -1 when none is shown */
  int joint_line, joint_rows;  /* the first joint row's line, and how many rows */
  int joint_first;             /* the joint on the first joint row */
  int act_header;              /* the "Actuators" line, -1 when none */
  int act_line, act_rows, act_first;
} imp_viewer_state_layout;

/* The layout in at most maxlines lines: joints and actuators share them
   (each at least half when both do not fit), each list starting at ui's
   scroll position clamped so the rows stay full; when ui->follow_actuator
   is set the actuator list moves the least that shows ui->actuator. */
void imp_viewer_state_arrange(const imp_model* m, const imp_viewer_ui* ui, int maxlines,
                             imp_viewer_state_layout* L);

/* Keep L's (clamped) scroll positions in ui; the follow request is done. */
void imp_viewer_state_commit(imp_viewer_ui* ui, const imp_viewer_state_layout* L);

/* The wheel at line (notches > 0: up, towards the first rows) scrolls the
   list that line belongs to, a row a notch. 1 when a list was under it. */
int imp_viewer_state_scroll(imp_viewer_ui* ui, const imp_model* m,
                            const imp_viewer_state_layout* L, int line, int notches);

/* Where the window drew the panel, framebuffer pixels (y down). */
typedef struct imp_viewer_panel_geom {
  double x0, y0, x1, y1;    /* the panel's box */
  double text_top;          /* the top of line 0 */
  double line_height;
  double track_x0, track_x1; /* a slider's track, from its low end to its high end */
} imp_viewer_panel_geom;

/* The line under pixel (x, y), or -1 outside the panel or its lines. */
int imp_viewer_panel_line(const imp_viewer_panel_geom* g, int nlines, double x, double y);

/* The actuator whose slider is under (x, y), or -1. A press a few pixels
   beyond either end of the track still takes it (to reach the range's ends). */
int imp_viewer_slider_at(const imp_viewer_state_layout* L, const imp_viewer_panel_geom* g,
                         double x, double y);

/* The range a slider spans for actuator a: ctrlrange when control-limited
   (and not empty), else [-1, 1]. */
void imp_viewer_slider_range(const imp_model* m, int a, double range[2]);

/* The value at pixel column x of the track: linear from range[0] at
   track_x0 to range[1] at track_x1, clamped to the range. */
double imp_viewer_slider_value(const imp_viewer_panel_geom* g, double x, const double range[2]);

/* The track's characters: IMP_VIEWER_TRACK dashes in brackets, the one
   nearest value's place replaced by '|' (clamped to the ends). */
#define IMP_VIEWER_TRACK 21
void imp_viewer_slider_text(double value, const double range[2], char* out, size_t n);

#endif
