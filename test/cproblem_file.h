/* Contact-space problems captured from simulations (the stage's problem
 * hook, imp_set_problem_hook) and stored as text in test/data/captured/ (.cproblem),
 * so a solver test can replay exactly the problem a real model produced.
 *
 * The format, one value a line after the header lines:
 *   impetus-cproblem 1
 *   n N nblock B h H
 *   B lines "adr dim type mu"
 *   N*N values of A (row-major), N of v0, N of b
 *   "warm 0" or "warm 1" then N values of the warm start
 * Values are printed with %.17g, so a problem reads back bit for bit. */
#ifndef IMPETUS_TEST_CPROBLEM_FILE_H
#define IMPETUS_TEST_CPROBLEM_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"

/* A captured problem and the arrays behind its view. */
typedef struct cfile_problem {
  imp_cproblem p;
  int *adr, *dim, *type;
  double *mu, *A, *v0, *b, *warm; /* warm is NULL when captured cold */
} cfile_problem;

/* Free what cfile_read allocated. */
static inline void cfile_free(cfile_problem* c) {
  free(c->adr), free(c->dim), free(c->type);
  free(c->mu), free(c->A), free(c->v0), free(c->b), free(c->warm);
  memset(c, 0, sizeof *c);
}

/* read count doubles; 1 when all were read */
static inline int cfile_doubles(FILE* f, double* v, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (fscanf(f, "%lg", v + i) != 1) return 0;
  return 1;
}

/* Read a captured problem from path into c; 0 on success, -1 on a missing
   or malformed file (c is then empty). */
static inline int cfile_read(const char* path, cfile_problem* c) {
  memset(c, 0, sizeof *c);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  int version = 0, n = 0, nb = 0, warm = 0, ok = 1;
  double h = 0;
  ok = fscanf(f, " impetus-cproblem %d n %d nblock %d h %lg", &version, &n, &nb, &h) == 4 &&
       version == 1 && n > 0 && nb > 0 && n <= 4096 && nb <= n;
  if (ok) {
    size_t nn = (size_t)n * n;
    c->adr = calloc((size_t)nb, sizeof(int)), c->dim = calloc((size_t)nb, sizeof(int));
    c->type = calloc((size_t)nb, sizeof(int)), c->mu = calloc((size_t)nb, sizeof(double));
    c->A = malloc(nn * sizeof(double)), c->v0 = malloc((size_t)n * sizeof(double));
    c->b = malloc((size_t)n * sizeof(double));
    ok = c->adr && c->dim && c->type && c->mu && c->A && c->v0 && c->b;
    for (int k = 0; ok && k < nb; k++)
      ok = fscanf(f, "%d %d %d %lg", c->adr + k, c->dim + k, c->type + k, c->mu + k) == 4;
    ok = ok && cfile_doubles(f, c->A, nn) && cfile_doubles(f, c->v0, (size_t)n) &&
         cfile_doubles(f, c->b, (size_t)n) && fscanf(f, " warm %d", &warm) == 1;
    if (ok && warm) {
      c->warm = malloc((size_t)n * sizeof(double));
      ok = c->warm && cfile_doubles(f, c->warm, (size_t)n);
    }
  }
  fclose(f);
  if (!ok) {
    cfile_free(c);
    return -1;
  }
  c->p = (imp_cproblem){n, nb, c->adr, c->dim, c->type, c->mu, c->A, c->v0, c->b, h, NULL, 0, 0, NULL, NULL, 0, NULL, NULL};
  return 0;
}

#ifdef IMP_MODELS_DIR
/* cfile_read of test/data/captured/NAME.cproblem (next to models/) */
static inline int cfile_read_captured(const char* name, cfile_problem* c) {
  char path[512];
  snprintf(path, sizeof path, "%s/../test/data/captured/%s.cproblem", IMP_MODELS_DIR, name);
  return cfile_read(path, c);
}
#endif

#endif
