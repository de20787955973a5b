/* Real-time pacing and the FPS / real-time factor meter (see pacing.h). */
#include <math.h>

#include "pacing.h"

int imp_viewer_steps_due(imp_viewer_pacer* p, double wall_dt, double speed, double timestep,
                         int maxsteps) {
  if (!(wall_dt > 0) || !(timestep > 0)) return 0;
  if (wall_dt > IMP_VIEWER_MAX_FRAME) wall_dt = IMP_VIEWER_MAX_FRAME;
  p->debt += wall_dt * speed;
  double whole = floor(p->debt / timestep);
  if (whole > maxsteps) {
    p->debt = 0; /* cannot keep up: run as fast as we can, not in bursts */
    return maxsteps;
  }
  p->debt -= whole * timestep;
  return (int)whole;
}

/* Accumulate a frame; publish FPS and real-time factor every half second. */
void imp_viewer_meter_frame(imp_viewer_meter* mt, double wall_dt, double sim_dt) {
  mt->wall += wall_dt;
  mt->sim += sim_dt;
  mt->frames++;
  if (mt->wall < 0.5) return;
  mt->fps = mt->frames / mt->wall;
  mt->rtf = mt->sim / mt->wall;
  mt->wall = mt->sim = 0;
  mt->frames = 0;
}
