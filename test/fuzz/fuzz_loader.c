/* libFuzzer target for the MJCF loader and the step: any bytes must either
 * load into a model or fail with a message, never crash, hang, leak or trip
 * a sanitizer; a model that loads is stepped FUZZ_STEPS times with every
 * contact solver, each step under the work budget FUZZ_STEP_BUDGET
 * (imp_set_step_budget: counted work, not time, so an input that fails
 * fails the same way again), so no input's steps cost without bound.
 * The input is copied into a NUL-terminated string (embedded NULs just end
 * the text early) and loaded with models/ as the directory for includes, so
 * the seed corpus (models/) exercises <include> too.
 *
 *   build/bin/fuzz_loader CORPUS_DIR models -max_total_time=60
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "impetus.h"

#ifndef IMP_MODELS_DIR
#define IMP_MODELS_DIR "models"
#endif

/* steps per solver, and the work of one step's solves (multiply-adds, plus
   the minimum iterations of each island, contact.h). The slowest input of
   a 30 s run (models/terrain.xml mutated: 60 rows on a height field) took
   12 s of CPU for its 14 steps in this instrumented build, most of it in
   the height field's collision (EPA), which no budget bounds; at 1e7 and
   3 steps each it took 40 s on a loaded machine. */
#define FUZZ_STEPS 2
#define FUZZ_STEP_BUDGET 1e6

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* FUZZ_STEPS steps of m with every solver from the reference configuration */
static void step_with_every_solver(const imp_model* m, imp_data* d) {
  imp_set_step_budget(d, FUZZ_STEP_BUDGET);
  for (int s = 0; s < imp_solver_count(); s++) {
    /* a solver's scratch that cannot be had is a clean -1, not a crash */
    if (imp_set_solver(m, d, imp_solver_name(s)) != 0) continue;
    imp_reset_data(m, d);
    for (int k = 0; k < FUZZ_STEPS; k++) imp_step(m, d);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0; /* a megabyte of XML is plenty */
  char* xml = malloc(size + 1);
  if (!xml) return 0;
  memcpy(xml, data, size);
  xml[size] = 0;
  char err[1000];
  imp_model* m = imp_load_xml_string(xml, IMP_MODELS_DIR, "fuzz", err, sizeof err);
  if (m) {
    /* a model that loads must also give a data that steps */
    imp_data* d = imp_make_data(m);
    if (d) {
      step_with_every_solver(m, d);
      imp_free_data(d);
    }
  }
  imp_free_model(m);
  free(xml);
  return 0;
}
