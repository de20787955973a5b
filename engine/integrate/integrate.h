/* Time integration (engine/integrate/integrate.c): the velocity and
   position updates that end a step. */
#ifndef IMPETUS_INTEGRATE_H
#define IMPETUS_INTEGRATE_H

#include "core/core.h"

/* A forward of the pipeline, as RK4's later stages evaluate it. */
typedef void (*imp_forward_fn)(const imp_model* m, imp_data* d);

/* ---- integrate.c ---- */

/* qpos <- qpos (+) h qvel through each joint's kinematic map (exact for
   ball and free joints at constant angular velocity). */
void imp_integrate_pos(const imp_model* m, double* qpos, const double* qvel, double h);
/* The velocity update of the single-step integrators (Euler, implicitfast,
   implicit): qvel += h (M - h D)^-1 (qfrc_smooth + qfrc_constraint); then qpos. */
void imp_euler(const imp_model* m, imp_data* d);
/* Classic fourth-order Runge-Kutta on (qpos, qvel), positions through the
   kinematic map; d must hold a forward of the current state, and `forward`
   evaluates the later stages (the pipeline's forward without sensors,
   step.c: the integrator is below the pipeline and is handed it). */
void imp_rk4(const imp_model* m, imp_data* d, imp_forward_fn forward);

#endif
