/* Trajectory recording to CSV or NPY files.
   Promises: a recording is complete or absent. Rows go to "<path>.tmp"
   (flushed as they go) and imp_recorder_close renames it to path; a recorder
   that is aborted or never closed leaves nothing at path. Columns:
   time, qpos_0..qpos_{nq-1}, qvel_0..qvel_{nv-1}, ctrl_0..ctrl_{nu-1}.
   NPY: little-endian float64, shape (rows, columns), C order; a sidecar
   "<path>.json" names the columns and gives nq, nv, nu and timestep. */
#ifndef IMPETUS_RECORD_H
#define IMPETUS_RECORD_H

#include "impetus.h"

typedef struct imp_recorder imp_recorder;

/* Open a recorder; the format follows the extension (.csv or .npy).
   Returns NULL and writes a message into err on failure. */
imp_recorder* imp_recorder_open(const char* path, const imp_model* m, char* err, int errsz);
/* Append one row with the current state of d. Returns 0, or -1 on an I/O error. */
int imp_recorder_write(imp_recorder* r, const imp_model* m, const imp_data* d);
/* Finish the file and move it to its final name. Returns 0, or -1 (nothing left at path). */
int imp_recorder_close(imp_recorder* r, char* err, int errsz);
/* Discard the recording: remove the temporary file, write nothing at path. */
void imp_recorder_abort(imp_recorder* r);

#endif
