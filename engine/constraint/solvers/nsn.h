/* The non-smooth Newton solver of Macklin et al. 2019 (solvers/nsn_fb.c)
 * with the choice of NCP function exposed for tests: the registered solver
 * "nsn_fb" is imp_nsn_solve with IMP_NSN_FB. Internal to the engine and its
 * tests, not part of the public interface. */
#ifndef IMPETUS_SOLVERS_NSN_H
#define IMPETUS_SOLVERS_NSN_H

#include "constraint/contact.h"

typedef enum imp_nsn_ncp {
  IMP_NSN_FB = 0,     /* Fischer-Burmeister, eq. (23), (93), (104) */
  IMP_NSN_MINMAP = 1  /* minimum map, eq. (18), (96), (105) */
} imp_nsn_ncp;

/* scratch bytes of imp_nsn_solve (the same as the registered solver's) */
size_t imp_nsn_work_size(int n, int nblock);

/* one solve with the given NCP function; the contract of contact.h */
void imp_nsn_solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f,
                   imp_csolver_stat* s, void* work, imp_nsn_ncp ncp);

#endif
