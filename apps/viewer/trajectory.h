/* A recorded trajectory read back for `impetus replay`: the CSV that
 * `impetus run --record` and the viewer's R key write, or the NPY that
 * `impetus run --record F.npy` writes with its F.npy.json sidecar naming
 * the columns (engine/record.h: time, qpos_*, qvel_*, ctrl_*, act* (the
 * activations, when any), mocap_* (7 per mocap body), sensor_* (not
 * replayed), optionally ncon, nefc, solver_iter, solver_residual). The
 * format is told by the
 * file's first bytes.
 *
 * Promises: a trajectory that loads matches the model it was checked
 * against (as many qpos, qvel and ctrl columns as nq, nv, nu, and 7 mocap
 * columns per mocap body), has at least
 * one row and only finite numbers; anything else is refused with
 * "file:line: message". */
#ifndef IMPETUS_VIEWER_TRAJECTORY_H
#define IMPETUS_VIEWER_TRAJECTORY_H

#include "impetus.h"

typedef struct imp_trajectory {
  int nrow, ncol;
  int nq, nv, nu;
  int na;          /* activation columns after ctrl: the model's na, or 0 (none recorded) */
  int nmocap;      /* mocap bodies: 7 columns each after the act ones (pos, quat) */
  int solver_cols; /* 1: the four solver columns come last */
  double* data;    /* nrow x ncol, row-major */
  double* clock;   /* nrow: the playback clock, recorded time that never goes
                      back (a reset in the recording takes no time) */
} imp_trajectory;

/* Read path and check it against m. NULL with the message in err on failure. */
imp_trajectory* imp_trajectory_load(const char* path, const imp_model* m, char* err, int errsz);
void imp_trajectory_free(imp_trajectory* t);

/* The time of row i. */
double imp_trajectory_time(const imp_trajectory* t, int i);

/* The playback clock of row i (the recorded time until a reset). */
double imp_trajectory_clock(const imp_trajectory* t, int i);

/* The row (0..nrow-1) at or just before a playback clock: binary search. */
int imp_trajectory_row_at(const imp_trajectory* t, double clock);

/* The contact stage's figures recorded in row i (--record-solver): ncon,
   nefc, solver_iter, solver_residual into out[4]; 1, or 0 when the
   trajectory has no solver columns. */
int imp_trajectory_solver(const imp_trajectory* t, int i, double out[4]);

/* Put row i into d: time, qpos, qvel, ctrl, act when recorded, mocap_pos/quat;
   then imp_forward so every
   derived quantity (frames, contacts) matches the recorded state. */
void imp_trajectory_apply(const imp_trajectory* t, int i, const imp_model* m, imp_data* d);

#endif
