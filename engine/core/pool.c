/* The worker pool of a data (pool.h). One job at a time: imp_pool_run
 * publishes it under the mutex with a new generation number, wakes the
 * workers, runs the tasks reserved for the caller, takes tasks from the
 * shared counter, then waits until every worker has reported the
 * generation done. Tasks are claimed one by
 * one under the mutex: islands cost microseconds to milliseconds, so the
 * lock is not what limits the speed-up, and a claim order that varies
 * from run to run changes nothing a task computes (pool.h). */
#include "core/pool.h"

#include <pthread.h>
#include <stdlib.h>

struct imp_pool {
  int nthread;
  pthread_t* threads;     /* nthread - 1 */
  pthread_mutex_t lock;
  pthread_cond_t wake;    /* a new job or the end */
  pthread_cond_t done;    /* a worker finished its part of the job */
  long generation;        /* jobs published so far */
  int finished;           /* workers done with the current generation */
  int stop;
  int ntask, next;        /* the job: tasks, the next unclaimed one */
  imp_pool_task task;
  void* ctx;
};

typedef struct worker_arg {
  imp_pool* pool;
  int index;
} worker_arg;

/* claim the next task of the current job; -1 when none is left */
static int claim(imp_pool* p) {
  pthread_mutex_lock(&p->lock);
  int t = p->next < p->ntask ? p->next++ : -1;
  pthread_mutex_unlock(&p->lock);
  return t;
}

/* run tasks of the current job until none is left */
static void drain(imp_pool* p, int worker) {
  for (int t = claim(p); t >= 0; t = claim(p)) p->task(p->ctx, t, worker);
}

static void* worker_main(void* arg) {
  worker_arg a = *(worker_arg*)arg;
  free(arg);
  imp_pool* p = a.pool;
  long seen = 0;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    while (!p->stop && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
    if (p->stop) {
      pthread_mutex_unlock(&p->lock);
      return NULL;
    }
    seen = p->generation;
    pthread_mutex_unlock(&p->lock);
    drain(p, a.index);
    pthread_mutex_lock(&p->lock);
    p->finished++;
    pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->lock);
  }
}

imp_pool* imp_pool_make(int nthread) {
  if (nthread < 2 || nthread > IMP_THREADS_MAX) return NULL;
  imp_pool* p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->threads = calloc((size_t)nthread - 1, sizeof *p->threads);
  if (!p->threads || pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p->threads);
    free(p);
    return NULL;
  }
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  for (int i = 0; i < nthread - 1; i++) {
    worker_arg* a = malloc(sizeof *a);
    if (a) *a = (worker_arg){p, i + 1};
    if (!a || pthread_create(&p->threads[i], NULL, worker_main, a) != 0) {
      free(a);
      p->nthread = i + 1; /* the workers started so far, joined by free */
      imp_pool_free(p);
      return NULL;
    }
  }
  p->nthread = nthread;
  return p;
}

int imp_pool_threads(const imp_pool* p) { return p ? p->nthread : 1; }

void imp_pool_run(imp_pool* p, int ntask, int ncaller, imp_pool_task task, void* ctx) {
  if (ncaller > ntask) ncaller = ntask;
  pthread_mutex_lock(&p->lock);
  p->task = task;
  p->ctx = ctx;
  p->ntask = ntask;
  p->next = ncaller; /* the workers' share starts after the caller's own */
  p->finished = 0;
  p->generation++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int t = 0; t < ncaller; t++) task(ctx, t, 0);
  drain(p, 0);
  pthread_mutex_lock(&p->lock);
  while (p->finished < p->nthread - 1) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

void imp_pool_free(imp_pool* p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stop = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->nthread - 1; i++) pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  free(p->threads);
  free(p);
}
