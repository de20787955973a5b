/* The data's stack arena (engine.h, "arena"): scratch of a step, taken and
   released in stack order, so that a step never allocates. The arena is
   sized for the model and solver by the data's lifecycle (engine/data.c);
   here it is only grown and used. */
#include <stdlib.h>

#include "engine.h"

/* bytes rounded up to a multiple of IMP_ALIGN (what aligned_alloc wants,
   and what keeps the next array aligned) */
static size_t round_up(size_t bytes) { return (bytes + IMP_ALIGN - 1) / IMP_ALIGN * IMP_ALIGN; }

int imp_arena_reserve(imp_data* d, size_t bytes) {
  if (bytes <= d->narena) return 0;
  if (d->pstack != 0) imp_error("imp_arena_reserve: called inside a step");
  bytes = round_up(bytes);
  /* not cleared: its pages (the Delassus matrix and solver scratch of the
     largest island) are only touched when used */
  void* arena = aligned_alloc(IMP_ALIGN, bytes);
  if (!arena) return -1;
  free(d->arena);
  d->arena = arena;
  d->narena = bytes;
  return 0;
}

static void* stack_alloc_bytes(imp_data* d, size_t bytes) {
  size_t start = round_up(d->pstack);
  if (start + bytes > d->narena)
    imp_error("arena exhausted: %zu bytes asked, %zu of %zu in use", bytes, d->pstack, d->narena);
  d->pstack = start + bytes;
  if (d->pstack > d->maxuse_arena) d->maxuse_arena = d->pstack;
  return (char*)d->arena + start;
}

double* imp_stack_alloc(imp_data* d, int n) {
  return stack_alloc_bytes(d, (size_t)(n > 0 ? n : 1) * sizeof(double));
}

int* imp_stack_alloc_int(imp_data* d, int n) {
  return stack_alloc_bytes(d, (size_t)(n > 0 ? n : 1) * sizeof(int));
}

size_t imp_stack_mark(const imp_data* d) { return d->pstack; }

void imp_stack_release(imp_data* d, size_t mark) { d->pstack = mark; }
