/* Sorting inside a step. What it promises:
 *  - no allocation: the C library's qsort may take its buffer from malloc
 *    (glibc's merge sort, for an array over 1 kB), which a step may not;
 *  - O(n log n) comparisons whatever the input (a heapsort: Williams 1964,
 *    with Floyd's construction);
 *  - with a total order (no two elements equal under `before`) the result
 *    is the one sorted order, whatever the input order: callers that need
 *    the order of a stable sort break ties by the original position.
 * Inline, so that each caller's comparison is compiled into its own copy
 * (the warm start sorts a few hundred blocks a step; a call per comparison
 * cost humanoid100 1.7% more instructions). */
#ifndef IMPETUS_SORT_H
#define IMPETUS_SORT_H

#include <stddef.h>
#include <string.h>

#include "engine.h"

/* 1 when a comes strictly before b (ctx: the caller's) */
typedef int (*imp_before_fn)(const void* a, const void* b, void* ctx);

/* The largest element imp_heapsort moves. */
#define IMP_SORT_MAXSIZE 64

static inline void imp_sort_swap(char* a, char* b, size_t size) {
  char t[IMP_SORT_MAXSIZE];
  memcpy(t, a, size);
  memcpy(a, b, size);
  memcpy(b, t, size);
}

/* sift element i down the max-heap of the first end elements */
static inline void imp_sort_sift(char* v, size_t size, int i, int end, imp_before_fn before,
                                 void* ctx) {
  for (int c; (c = 2 * i + 1) < end; i = c) {
    if (c + 1 < end && before(v + (size_t)c * size, v + (size_t)(c + 1) * size, ctx)) c++;
    if (!before(v + (size_t)i * size, v + (size_t)c * size, ctx)) return;
    imp_sort_swap(v + (size_t)i * size, v + (size_t)c * size, size);
  }
}

/* Sort n elements of size bytes (at most IMP_SORT_MAXSIZE, else imp_error)
   at base in place, ascending by before. */
static inline void imp_heapsort(void* base, int n, size_t size, imp_before_fn before, void* ctx) {
  char* v = base;
  if (size > IMP_SORT_MAXSIZE)
    imp_error("imp_heapsort: elements of %zu bytes (at most %d)", size, IMP_SORT_MAXSIZE);
  if (n < 2) return;
  for (int i = n / 2 - 1; i >= 0; i--) imp_sort_sift(v, size, i, n, before, ctx);
  for (int end = n - 1; end > 0; end--) {
    imp_sort_swap(v, v + (size_t)end * size, size);
    imp_sort_sift(v, size, 0, end, before, ctx);
  }
}

#endif
