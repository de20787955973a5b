/* The processes of `impetus batch`: one without MPI (apps/cli/batch_nompi.c,
   in the impetus program), or the ranks of an MPI job (apps/cli/batch_mpi.c,
   in the impetus-mpi program built with -DIMP_WITH_MPI=ON). The plain
   program never links MPI: a user without it pays nothing (no libmpi,
   hwloc or PMIx loaded at start, no MPI_Init), and a user with it runs
   `mpirun -n P impetus-mpi batch ...`.

   Sharding is static: rollout i runs on rank i mod P (with its threads).
   Rollouts cost alike in a dataset of one model, and a static split needs
   no messages while it runs; inside a rank the threads share rollouts
   dynamically. Rank 0 makes the output directory and the manifest first,
   and gathers every rank's rows at the end. */
#ifndef IMPETUS_APPS_BATCH_COMM_H
#define IMPETUS_APPS_BATCH_COMM_H

#include "batch.h"

typedef struct batch_comm {
  int rank, size;
} batch_comm;

/* Start (MPI_Init); 0, or -1 with a message printed (the plain program
   refuses to run as several processes of an MPI job: each would run every
   rollout). */
int batch_comm_start(int* argc, char*** argv, batch_comm* c);
void batch_comm_end(void);
/* Rank 0's value of *v on every rank (the plain program: nothing to do). */
void batch_comm_broadcast_int(const batch_comm* c, int* v);
/* Rank 0's rows (nroll) on every rank. */
void batch_comm_broadcast_rows(const batch_comm* c, batch_row* rows, int nroll);
/* Every rank's rows of the rollouts it ran (i mod size == rank) into rank
   0's rows. */
void batch_comm_gather(const batch_comm* c, batch_row* rows, int nroll);
/* the largest v over ranks, on every rank */
int batch_comm_max_int(const batch_comm* c, int v);

#endif
