/* One allocation holding every array of a contact-space problem
   (imp_cproblem, contact.h), for the apps that keep problems beyond the
   step that made them: the comparison's recorder and the FCLIB reader.
   Layout: mu, A, v0, b (doubles), then blk_adr, blk_dim, blk_type (ints). */
#ifndef IMPETUS_APPS_CPROBLEM_BLOCK_H
#define IMPETUS_APPS_CPROBLEM_BLOCK_H

#include <stdlib.h>

typedef struct cproblem_arrays {
  double *mu, *A, *v0, *b;
  int *adr, *dim, *type;
} cproblem_arrays;

/* A zeroed block for n rows and nb blocks with a's pointers into it (free
   it with free()); NULL when out of memory. */
static inline void *cproblem_block_alloc(size_t n, size_t nb,
                                         cproblem_arrays *a) {
  size_t bytes = sizeof(double) * (nb + n * n + 2 * n) + sizeof(int) * 3 * nb;
  char *mem = calloc(1, bytes ? bytes : 1);
  if (!mem)
    return NULL;
  a->mu = (double *)mem;
  a->A = a->mu + nb;
  a->v0 = a->A + n * n;
  a->b = a->v0 + n;
  a->adr = (int *)(a->b + n);
  a->dim = a->adr + nb;
  a->type = a->dim + nb;
  return mem;
}

#endif
