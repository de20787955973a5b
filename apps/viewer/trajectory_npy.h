/* The NPY half of reading a recording back (trajectory.c does the checks
 * against the model): the float64 matrix that `impetus run --record F.npy`
 * writes, and the column names of its F.npy.json sidecar (engine/io/record.c
 * writes both; README "Recording format").
 *
 * Promises: errors are "file: why" in err; on success the caller frees
 * what is returned with free(). */
#ifndef IMPETUS_VIEWER_TRAJECTORY_NPY_H
#define IMPETUS_VIEWER_TRAJECTORY_NPY_H

#include <stdio.h>

/* 1 when f's first bytes are the NPY magic; f is rewound either way. */
int imp_npy_is_npy(FILE* f);

/* Read a little-endian float64, C-order, two-dimensional NPY array (format
   1.0 or 2.0) of at least one row: *data gets rows x cols doubles. */
int imp_npy_read_f8_matrix(const char* path, double** data, int* rows, int* cols, char* err,
                           int errsz);

/* The "columns" of path.json as one comma-separated line, the CSV header
   the same recording would have had. */
int imp_npy_sidecar_header(const char* path, char** header, char* err, int errsz);

#endif
