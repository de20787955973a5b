/* Open-loop control from a file: `impetus run MODEL --ctrl FILE` and the
 * same in `impetus view` (apps/common/ctrl_file.c).
 *
 * Promises:
 *  - FILE is CSV (one row a line, values separated by commas; blank lines
 *    and lines starting with '#' are skipped) or NPY (float64, 2-D, or 1-D
 *    for one column), by its extension (.npy, anything else is CSV);
 *  - a CSV header (a first line that is not all numbers) names a column per
 *    actuator, in any order; a first column named "time" or "t" makes the
 *    file timed. Actuators the header does not name keep their ctrl (0, or
 *    a keyframe's). Without a header (and in NPY) the columns are the nu
 *    actuators in order, or time then the nu actuators (nu + 1 columns);
 *  - untimed: row i is the control of step i + 1 (the step from d->nstep =
 *    i), the last row holds after the file ends; timed: zero-order hold,
 *    the row with the largest time <= d->time applies (times compared with
 *    a tolerance of 1e-6 timestep, so a row at k h applies at step k despite
 *    the rounding of the summed time), nothing before the first row's time
 *    (ctrl as it was), the last row after it. Times must increase strictly;
 *  - every problem is an error naming the file and its line (CSV) or row
 *    (NPY), found when the file is loaded, before anything is simulated or
 *    written: a header name that is no actuator of the model (the message
 *    lists them), an actuator named twice, rows with a wrong number of
 *    values, values that are not finite numbers, no rows, files over
 *    CTRL_FILE_MAX_BYTES or over CTRL_FILE_MAX_ROWS rows;
 *  - the controls reach the engine through the data's control callback
 *    (imp_set_control_callback), the path a C program uses, so a run with
 *    --ctrl equals bitwise a C program that sets the same values there. */
#ifndef IMPETUS_CTRL_FILE_H
#define IMPETUS_CTRL_FILE_H

#include "impetus.h"

#define CTRL_FILE_MAX_BYTES (256L << 20) /* 256 MiB */
#define CTRL_FILE_MAX_ROWS 10000000L
#define CTRL_FILE_MAX_LINE 65536 /* bytes of one CSV line */

typedef struct ctrl_file ctrl_file;

/* Read path and match its columns to m's actuators. NULL on error, with
   "path:line: message" (CSV) or "path: row R: message" (NPY) in err. */
ctrl_file* ctrl_file_load(const char* path, const imp_model* m, char* err, int errsz);

/* Match the columns again, to another model (the viewer's reload): 0, or
   -1 with the message in err (the file then must not drive that model). */
int ctrl_file_bind(ctrl_file* c, const imp_model* m, char* err, int errsz);

void ctrl_file_free(ctrl_file* c);

const char* ctrl_file_path(const ctrl_file* c);
long ctrl_file_rows(const ctrl_file* c);
/* 1 when the first column is time */
int ctrl_file_timed(const ctrl_file* c);
/* the last row's time (timed files) */
double ctrl_file_last_time(const ctrl_file* c);

/* The row that applies to d's step (untimed) or time (timed), -1 none. */
long ctrl_file_row(const ctrl_file* c, const imp_model* m, const imp_data* d);

/* imp_control_fn: user is the ctrl_file. Sets the ctrl of every actuator
   the file has a column for, from the row that applies. */
void ctrl_file_control(const imp_model* m, imp_data* d, void* user);

#endif
