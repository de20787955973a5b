/* `impetus batch` as the ranks of an MPI job (batch_comm.h): the
   impetus-mpi program (-DIMP_WITH_MPI=ON). Rows travel as bytes
   (batch_row is plain data of fixed-size fields, the same layout on every
   rank of one build). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_comm.h"

int batch_comm_start(int* argc, char*** argv, batch_comm* c) {
  int provided = 0;
  /* only the main thread calls MPI; the rollouts' threads never do */
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "impetus batch: MPI_Init failed\n");
    return -1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c->size);
  return 0;
}

void batch_comm_end(void) { MPI_Finalize(); }

void batch_comm_broadcast_int(const batch_comm* c, int* v) {
  (void)c;
  MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* rows in chunks whose byte count fits an int */
#define ROWS_PER_MESSAGE (1 << 20)

void batch_comm_broadcast_rows(const batch_comm* c, batch_row* rows, int nroll) {
  (void)c;
  for (int i = 0; i < nroll; i += ROWS_PER_MESSAGE) {
    int n = nroll - i < ROWS_PER_MESSAGE ? nroll - i : ROWS_PER_MESSAGE;
    MPI_Bcast(rows + i, n * (int)sizeof *rows, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
}

/* Rank 0 receives every other rank's rows, one rank after the other, and
   keeps those of the rollouts that rank ran (i mod size == rank: the
   static sharding of batch_comm.h); the others send theirs. */
void batch_comm_gather(const batch_comm* c, batch_row* rows, int nroll) {
  if (c->size == 1) return;
  if (c->rank != 0) {
    for (int i = 0; i < nroll; i += ROWS_PER_MESSAGE) {
      int n = nroll - i < ROWS_PER_MESSAGE ? nroll - i : ROWS_PER_MESSAGE;
      MPI_Send(rows + i, n * (int)sizeof *rows, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    return;
  }
  int chunk = nroll < ROWS_PER_MESSAGE ? nroll : ROWS_PER_MESSAGE;
  batch_row* buf = malloc((size_t)(chunk > 0 ? chunk : 1) * sizeof *buf);
  if (!buf) {
    fprintf(stderr, "impetus batch: out of memory gathering the manifest\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int r = 1; r < c->size; r++)
    for (int i = 0; i < nroll; i += ROWS_PER_MESSAGE) {
      int n = nroll - i < ROWS_PER_MESSAGE ? nroll - i : ROWS_PER_MESSAGE;
      MPI_Recv(buf, n * (int)sizeof *rows, MPI_BYTE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int k = 0; k < n; k++)
        if ((i + k) % c->size == r && buf[k].status != BATCH_NOT_RUN) rows[i + k] = buf[k];
    }
  free(buf);
}

int batch_comm_max_int(const batch_comm* c, int v) {
  (void)c;
  int m = v;
  MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return m;
}
