/* `impetus batch` (apps/cli/cmd_batch.c): its manifest (apps/cli/batch_manifest.c)
   and its processes (apps/cli/batch_comm.h).

   The manifest is OUT/manifest.csv, one row per rollout:
     rollout,seed,file,init_hash,status,nan_resets,steps,steps_not_converged,wall_seconds
   after two comment lines: "# impetus batch manifest 1" and "# settings:
   ..." (what decides the files' bits: model, rollouts, steps, key,
   perturbation, seed, controls, solver; not the threads or processes).
   CSV, not JSON: a row is appended with one write as its rollout ends, so
   the file holds every finished rollout however the run stops, and a row
   cut by a hard kill is a last line without its newline, which the reader
   drops; JSON would have to be rewritten whole at every rollout. At the end
   of a run rank 0 rewrites it (temporary file, then rename) with all
   rollouts in order, one row each: the same bytes whatever the threads,
   processes or interruptions, except the last column, wall_seconds, which
   is the only column that varies from run to run (tests ignore it). */
#ifndef IMPETUS_APPS_BATCH_H
#define IMPETUS_APPS_BATCH_H

#include <stdint.h>
#include <stdio.h>

/* status column */
enum batch_status {
  BATCH_NOT_RUN = 0,     /* "not_run": not started (interrupted before, or another rank's) */
  BATCH_OK = 1,          /* "ok": all steps, finite, the file complete */
  BATCH_NONFINITE = 2,   /* "nonfinite": all steps, the file complete, but the engine
                            reset a non-finite state (nan_resets > 0) */
  BATCH_INTERRUPTED = 3, /* "interrupted": stopped by a signal, no file */
  BATCH_WRITE_ERROR = 4  /* "write_error": its file could not be written */
};

/* One rollout's row: plain data, so MPI ranks send rows as bytes. */
typedef struct batch_row {
  int32_t rollout;
  int32_t status; /* batch_status */
  int32_t nan_resets;
  int32_t has_hash; /* the rollout started: init_hash is its initial state's */
  int64_t steps;
  int64_t not_converged;
  uint64_t init_hash; /* FNV-1a 64 of the initial qpos, qvel, act (as bytes) */
  double wall_seconds;
} batch_row;

/* 1 for the statuses of a rollout that need not run again */
int batch_row_done(const batch_row* r);
const char* batch_status_name(int status);

/* "rollout_000042.npy" */
void batch_file_name(int rollout, char* buf, int n);

/* The manifest's first line and the settings line (without newline). */
#define BATCH_MANIFEST_MAGIC "# impetus batch manifest 1"

/* Write the row as a CSV line to f (one fputs of a whole line). */
int batch_manifest_append(FILE* f, const batch_row* r, uint64_t seed);

/* Read path's rows into rows (nroll, indexed by rollout; rows not listed
   are left as they are; the last row of a rollout wins). Returns 0; -1
   with a message in err when the file is not a manifest or its settings
   are not `settings`; 1 when there is no file. */
int batch_manifest_read(const char* path, const char* settings, int nroll, batch_row* rows,
                        char* err, int errsz);

/* Write the whole manifest to path through a temporary file and a rename. */
int batch_manifest_write(const char* path, const char* settings, int nroll, const batch_row* rows,
                         uint64_t seed, char* err, int errsz);

#endif
