/* `impetus batch` as one process (batch_comm.h): the impetus program,
   which never links MPI. */
#include <stdio.h>
#include <stdlib.h>

#include "batch_comm.h"

/* the size of the MPI job this process was started in, from the variables
   OpenMPI (OMPI_COMM_WORLD_SIZE) and PMI launchers (PMI_SIZE: MPICH's
   mpiexec, Slurm's srun --mpi=pmi2) set; 1 outside one */
static int launcher_size(void) {
  const char* names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
  for (int i = 0; i < 3; i++) {
    const char* s = getenv(names[i]);
    if (s && atoi(s) > 1) return atoi(s);
  }
  return 1;
}

int batch_comm_start(int* argc, char*** argv, batch_comm* c) {
  (void)argc;
  (void)argv;
  c->rank = 0;
  c->size = 1;
  int n = launcher_size();
  if (n > 1) {
    fprintf(stderr,
            "impetus batch: started as one of %d processes of an MPI job, but this impetus is "
            "built without MPI: every process would run every rollout. Run impetus-mpi (built "
            "with -DIMP_WITH_MPI=ON) under mpirun, or impetus alone with --threads\n",
            n);
    return -1;
  }
  return 0;
}

void batch_comm_end(void) {}
void batch_comm_broadcast_int(const batch_comm* c, int* v) {
  (void)c;
  (void)v;
}
void batch_comm_broadcast_rows(const batch_comm* c, batch_row* rows, int nroll) {
  (void)c;
  (void)rows;
  (void)nroll;
}
void batch_comm_gather(const batch_comm* c, batch_row* rows, int nroll) {
  (void)c;
  (void)rows;
  (void)nroll;
}
int batch_comm_max_int(const batch_comm* c, int v) {
  (void)c;
  return v;
}
