/* PLACEHOLDER being replaced by the todorov solver (issue 4, in progress): returns zero impulses. */
#include "contact.h"
static size_t ws(int n, int nblock) { (void)n; (void)nblock; return 16; }
static void solve(const imp_cproblem* p, const imp_csolver_opt* o, double* f, imp_csolver_stat* s, void* w) {
  (void)o; (void)w;
  for (int i = 0; i < p->n; i++) f[i] = 0;
  s->iterations = 0; s->newton = 0; s->residual = 0; s->exit = IMP_EXIT_FAILED;
}
const imp_csolver imp_solver_todorov = {"todorov", "placeholder", ws, solve};
