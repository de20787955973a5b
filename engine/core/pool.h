/* A pool of worker threads owned by one imp_data (imp_set_threads): the
 * contact stage hands it the islands of a step. What it promises:
 *  - no thread exists until a data asks for more than one (imp_set_threads),
 *    so a program that never asks runs on one thread;
 *  - imp_pool_run returns when every task has run, each exactly once; the
 *    caller's thread takes tasks too (worker index 0);
 *  - idle workers sleep on a condition variable, they do not spin;
 *  - which worker runs a task is not fixed, so a task must compute the
 *    same result on any worker: its scratch is chosen by worker index, and
 *    tasks write disjoint outputs (the results are then bitwise the same
 *    whatever the thread count). */
#ifndef IMPETUS_POOL_H
#define IMPETUS_POOL_H

#define IMP_THREADS_MAX 64 /* imp_set_threads refuses more */

typedef struct imp_pool imp_pool;

/* task(ctx, task index, worker index in [0, nthread)) */
typedef void (*imp_pool_task)(void* ctx, int task, int worker);

/* a pool of nthread - 1 workers besides the caller (2 <= nthread <=
   IMP_THREADS_MAX); NULL when the threads or memory cannot be had */
imp_pool* imp_pool_make(int nthread);
int imp_pool_threads(const imp_pool* p);
/* run task(ctx, t, worker) for t in [0, ntask) on the pool and the caller;
   tasks [0, ncaller) run on the caller's thread (worker 0), in order, the
   others on whichever thread claims them first */
void imp_pool_run(imp_pool* p, int ntask, int ncaller, imp_pool_task task, void* ctx);
/* stop and join the workers, free the pool (NULL is ignored) */
void imp_pool_free(imp_pool* p);

#endif
