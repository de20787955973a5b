/* The Impetus C API in thirty lines: load a model, step it, read the state.
   usage: example_headless MODEL.xml [KEYFRAME]   (e.g. models/pendulum.xml release) */
#include <stdio.h>

#include <impetus/impetus.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.xml [KEYFRAME]\n", argv[0]);
    return 1;
  }
  char err[1000];
  imp_model* m = imp_load_xml(argv[1], err, sizeof err); /* NULL: err says file:line: why */
  if (!m) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  imp_data* d = imp_make_data(m); /* the state, reset to the model's configuration */
  int key = argc > 2 ? imp_name2id(m, IMP_OBJ_KEY, argv[2]) : -1;
  if (!d || (argc > 2 && key < 0)) {
    if (d) fprintf(stderr, "%s: no keyframe '%s'\n", argv[1], argv[2]);
    else fprintf(stderr, "out of memory\n");
    imp_free_data(d);
    imp_free_model(m);
    return 1;
  }
  if (key >= 0) imp_reset_data_keyframe(m, d, key); /* start from the keyframe's state */
  for (int i = 0; i < 1000; i++) imp_step(m, d);   /* advance by m->opt.timestep each */
  printf("time %g  qpos[0] %.9g\n", d->time, m->nq > 0 ? d->qpos[0] : 0.0);
  imp_free_data(d);
  imp_free_model(m);
  return 0;
}
