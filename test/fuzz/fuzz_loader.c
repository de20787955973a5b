/* libFuzzer target for the MJCF loader: any bytes must either load into a
 * model or fail with a message, never crash, hang, leak or trip a sanitizer.
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

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

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
      imp_step(m, d);
      imp_free_data(d);
    }
  }
  imp_free_model(m);
  free(xml);
  return 0;
}
