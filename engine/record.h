/* Trajectory recording to CSV or NPY files.
   Promises: a recording is complete or absent. Rows go to a temporary file
   of the recorder's own beside path, "<path>.XXXXXX.tmp" (created new:
   never an existing file, never through a symbolic link; mode 0666 less
   the umask), flushed as they go, and imp_recorder_close renames it to
   path (a link at path is replaced, not followed; a directory there is
   refused at open); a recorder that is aborted or never closed leaves
   nothing at path. Two recordings to one path leave one whole recording,
   with its own sidecar (a stale "<path>.json" of an earlier recording is
   removed when the new one has none). Columns:
   time, qpos_0..qpos_{nq-1}, qvel_0..qvel_{nv-1}, ctrl_0..ctrl_{nu-1},
   then d->act when the model has activations (na > 0), one column each,
   named act_NAME after its actuator (act_NAME_J for several, actU for an
   unnamed actuator U), then for each mocap body (m->nmocap, in mocap id
   order) its d->mocap_pos and d->mocap_quat, named after the body:
   mocap_NAME_pos_0..2, mocap_NAME_quat_0..3 (mocapI_... for an unnamed
   mocap body I), then d->sensordata, one column per value, named after the sensors:
   sensor_NAME (one value) or sensor_NAME_0.. (several), sensorI_.. for an
   unnamed sensor I (names are quoted in the CSV header when they hold a
   comma, a quote or a line break, and escaped in the JSON sidecar);
   then with IMP_RECORD_SOLVER the contact stage's statistics of the step
   that produced the row: ncon, nefc, solver_iter, solver_residual (the
   relative common residual, contact.h); a data that has not stepped since
   its reset (d->nstep == 0, e.g. the initial state) records zeros there.
   NPY: little-endian float64, shape (rows, columns), C order; a sidecar
   "<path>.json" names the columns ("columns"), says in words what each
   holds ("descriptions", e.g. "torso free joint, qw" for qpos_3: the joint,
   actuator, mocap body or sensor and which of its values), and gives nq,
   nv, nu, na, nmocap, nsensordata, timestep, rows, "complete" (true unless
   imp_recorder_close_partial wrote it) and what imp_recorder_set_info
   told (model, steps, every, solver, ctrl; null when not told).
   imp_recorder_close_partial keeps a recording that was cut short: the
   rows so far, with the sidecar (a CSV gets one too, "<path>.json")
   saying "complete": false. A CSV recording of a run driven by a control
   file (info ctrl) gets the sidecar too: it is the only place that names
   the file. */
#ifndef IMPETUS_RECORD_H
#define IMPETUS_RECORD_H

#include "impetus.h"

typedef struct imp_recorder imp_recorder;

/* Optional column groups, or-ed into the flags of imp_recorder_open_flags. */
enum imp_record_flags {
  IMP_RECORD_SOLVER = 1 /* ncon, nefc, solver_iter, solver_residual */
};

/* Open a recorder; the format follows the extension (.csv or .npy).
   Returns NULL and writes a message into err on failure. */
imp_recorder* imp_recorder_open(const char* path, const imp_model* m, char* err, int errsz);
/* The same with optional columns (imp_record_flags; 0 is imp_recorder_open).
   Unknown flag bits are an error (NULL, message in err). */
imp_recorder* imp_recorder_open_flags(const char* path, const imp_model* m, int flags, char* err,
                                      int errsz);
/* What produced the recording, for the sidecar. */
typedef struct imp_record_info {
  const char* model;  /* the model file as the user gave it; NULL: not said */
  long long steps;    /* steps asked for; < 0: not said */
  long long every;    /* a row every this many steps; < 1: not said */
  const char* solver; /* the contact solver; NULL: not said */
  const char* ctrl;   /* the control file the run read; NULL: none */
} imp_record_info;

/* Keep info (the strings are copied) for the sidecar; 0, or -1 when out of
   memory (the recording goes on without it). */
int imp_recorder_set_info(imp_recorder* r, const imp_record_info* info);

/* Append one row with the current state of d. Returns 0, or -1 on an I/O error. */
int imp_recorder_write(imp_recorder* r, const imp_model* m, const imp_data* d);
/* Finish the file and move it to its final name. Returns 0, or -1 (nothing left at path). */
int imp_recorder_close(imp_recorder* r, char* err, int errsz);
/* Keep the rows written so far of a recording cut short: finish it like
   imp_recorder_close, its sidecar (also written for a CSV) saying
   "complete": false. Returns 0, or -1 (nothing left at path). */
int imp_recorder_close_partial(imp_recorder* r, char* err, int errsz);
/* Discard the recording: remove the temporary file, write nothing at path. */
void imp_recorder_abort(imp_recorder* r);
/* The temporary file the rows go to (valid until the recorder is closed or
   aborted), e.g. for a signal handler that must remove it on a forced
   exit: copy it before a signal can come. */
const char* imp_recorder_temp_path(const imp_recorder* r);

#endif
