/* The registry of contact solvers (contact.h): their order fixes the
 * indices `imp_set_solver`, recordings and Python see, so a new solver goes
 * at the end. Index 0 is the default. */
#include <string.h>

#include "constraint/contact.h"
#include "impetus.h"

static const imp_csolver* const k_solvers[] = {
    &imp_solver_todorov, &imp_solver_pgs,    &imp_solver_ccp,    &imp_solver_lemke,
    &imp_solver_prox,    &imp_solver_minmap, &imp_solver_nsn_fb, &imp_solver_primal};

int imp_solver_count(void) { return (int)(sizeof k_solvers / sizeof k_solvers[0]); }

const imp_csolver* imp_solver_get(int i) {
  return i >= 0 && i < imp_solver_count() ? k_solvers[i] : NULL;
}

int imp_solver_find(const char* name) {
  if (!name) return -1;
  for (int i = 0; i < imp_solver_count(); i++)
    if (!strcmp(k_solvers[i]->name, name)) return i;
  return -1;
}

const char* imp_solver_name(int i) {
  const imp_csolver* s = imp_solver_get(i);
  return s ? s->name : NULL;
}

const char* imp_solver_description(int i) {
  const imp_csolver* s = imp_solver_get(i);
  return s ? s->description : NULL;
}
