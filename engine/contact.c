/* The contact stage (see contact.h): the registry of solvers by name, and
 * the stage that hands each island's contact-space problem to the chosen
 * solver. */
#include <string.h>

#include "contact.h"
#include "mathx.h"

/* ---- the registry: index 0 is the default ---- */

static const imp_csolver* const k_solvers[] = {&imp_solver_todorov, &imp_solver_pgs};

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
