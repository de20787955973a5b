/* Real-time pacing for the viewer, as pure arithmetic on times.
 *
 * The simulation owes the wall clock simulated time: each frame adds the
 * frame's wall time times the slow-motion speed to a debt, and the viewer
 * takes as many steps as the debt covers. A pause longer than a frame (the
 * window dragged, a reload) is not caught up in a burst, and when the steps
 * cannot keep up the debt is dropped, so the real-time factor shown is the
 * one actually achieved, never above the requested speed.
 *
 * Promises: no allocation; the steps a frame asks for never advance the
 * simulation more than speed x (wall time, capped) ahead of the clock. */
#ifndef IMPETUS_VIEWER_PACING_H
#define IMPETUS_VIEWER_PACING_H

/* Frames longer than this (s) count as this: no catch-up after a stall.
   Long enough that a slow software-rendered frame (4 FPS on llvmpipe)
   still advances in real time. */
#define IMP_VIEWER_MAX_FRAME 0.25

typedef struct imp_viewer_pacer {
  double debt; /* simulated seconds owed to the wall clock */
} imp_viewer_pacer;

/* Steps of size timestep due after wall_dt seconds at speed (fraction of
   real time); at most maxsteps, the rest of the debt dropped then. */
int imp_viewer_steps_due(imp_viewer_pacer* p, double wall_dt, double speed, double timestep,
                         int maxsteps);

/* Frames per second and the real-time factor, measured over about half a
   second so the numbers are readable. */
typedef struct imp_viewer_meter {
  double wall, sim; /* accumulated since the last publication */
  int frames;
  double fps, rtf;  /* the last published values (0 before the first) */
} imp_viewer_meter;

/* Account one frame of wall_dt seconds that advanced the simulation by sim_dt. */
void imp_viewer_meter_frame(imp_viewer_meter* mt, double wall_dt, double sim_dt);

#endif
