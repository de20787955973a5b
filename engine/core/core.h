/* The core every stage uses (engine/core/): the data's scratch arena,
   run-time errors and the clock. Math (mathx.h, quat.h, spatial.h), the
   thread pool (pool.h) and sorting (sort.h) have headers of their own.
   Nothing here knows a pipeline stage. */
#ifndef IMPETUS_CORE_H
#define IMPETUS_CORE_H

#include <stddef.h>

#include "impetus.h"

/* ---- arena (core/arena.c): a stack in the data's own allocation, sized
   for the model and the data's contact solver by engine/data.c ---- */

/* alignment of the data's arrays and of every arena allocation (bytes) */
#define IMP_ALIGN 64

/* n doubles of scratch, 64-byte aligned; aborts through the error hook
   when the arena is exhausted (a sizing bug, never user input). */
double* imp_stack_alloc(imp_data* d, int n);
/* n ints of scratch */
int* imp_stack_alloc_int(imp_data* d, int n);
/* current stack mark, to release everything allocated after it */
size_t imp_stack_mark(const imp_data* d);
void imp_stack_release(imp_data* d, size_t mark);
/* Make the arena at least `bytes` long (between steps only: the stack must
   be empty); 0, or -1 when the memory cannot be had (the arena is kept). */
int imp_arena_reserve(imp_data* d, size_t bytes);

/* ---- errors (error.c) ---- */

/* Report API misuse or an internal bug through the error hook, then abort. */
void imp_error(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Report a run-time warning through the warning hook. */
void imp_warning(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* printf into a caller's error buffer err of errsz bytes (nothing when err
   is NULL or errsz <= 0): the "char* err, int errsz" convention of the
   functions that return an error message instead of reporting it. */
void imp_format_error(char* err, int errsz, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- timer.c ---- */

/* Monotonic wall-clock seconds, for d->timer. */
double imp_timer_now(void);

#endif
