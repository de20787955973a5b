/* PLACEHOLDER being replaced by the common residual (issue 4, in progress). */
#include <math.h>
#include "contact.h"
double imp_cresidual(const imp_cproblem* p, const double* f, double* relative, double* work) {
  (void)p; (void)f; (void)work;
  if (relative) *relative = NAN;
  return NAN;
}
void imp_cone_project(double* f, int dim, double mu) { (void)f; (void)dim; (void)mu; }
