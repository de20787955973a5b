/* The Impetus C API in thirty lines: load a model, step it, read the state.
   usage: example_headless MODEL.xml   (e.g. models/pendulum.xml) */
#include <stdio.h>

#include "impetus.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.xml\n", argv[0]);
    return 1;
  }
  char err[1000];
  imp_model* m = imp_load_xml(argv[1], err, sizeof err); /* NULL: err says file:line: why */
  if (!m) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  imp_data* d = imp_make_data(m); /* the state, reset to the model's configuration */
  if (!d) {
    fprintf(stderr, "out of memory\n");
    imp_free_model(m);
    return 1;
  }
  for (int i = 0; i < 1000; i++) imp_step(m, d); /* advance by m->opt.timestep each */
  printf("time %g  qpos[0] %s%.9g\n", d->time, m->nq > 0 ? "" : "(none) ",
         m->nq > 0 ? d->qpos[0] : 0.0);
  imp_free_data(d);
  imp_free_model(m);
  return 0;
}
