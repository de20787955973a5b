/* Siconos' 3D friction-contact solvers behind our solver interface, for
 * the side-by-side of `impetus solvers --compare` (siconos_bridge.c).
 *
 * Built only when Debian's libsiconos-numerics-dev is found (CMake defines
 * IMP_HAVE_SICONOS for the command-line program alone; the core library
 * never links Siconos). Without it the functions below are inline stubs:
 * no solvers, nothing accepted, so callers need no #ifdef.
 *
 * What the bridge promises:
 *  - three solvers as imp_csolver tables, named "siconos_nsgs" (nonsmooth
 *    Gauss-Seidel, SICONOS_FRICTION_3D_NSGS), "siconos_ac" (Alart-Curnier
 *    nonsmooth Newton, SICONOS_FRICTION_3D_NSN_AC) and "siconos_fb"
 *    (Fischer-Burmeister nonsmooth Newton, SICONOS_FRICTION_3D_NSN_FB), each
 *    run with Siconos' defaults except o->maxiter and o->tol;
 *  - a problem is accepted when every block is a condim-3 contact, a
 *    frictionless (condim-1) contact or a limit: the latter two have the same
 *    law (f >= 0, v >= b, complementarity) as a 3D contact whose two added
 *    tangent rows are decoupled (zero off-diagonal, q_T = 0), so the mapping
 *    is exact: its friction stays 0 (siconos_bridge.c). Equalities (f free) and
 *    condim 4/6 blocks have no counterpart in Siconos' 3D problem;
 *  - the reactions come back in our row order (normal first, as in Siconos'
 *    local frame [n, t1, t2]), finite (a non-finite answer becomes zeros
 *    with exit IMP_EXIT_FAILED); s->iterations and s->residual are Siconos'
 *    own iteration count and error (fc3d_compute_error's, relative to ||q||);
 *  - o->monitor is called from Siconos' per-iteration callback
 *    (SolverOptions.callback->collectStatsIteration) with the reactions in
 *    our layout, so the benchmark measures these solvers as it measures ours;
 *  - unlike our solvers these allocate: Siconos' drivers do, and the bridge
 *    copies A into Siconos' dense NumericsMatrix (work_size is 0). They are
 *    for the benchmark, never for a simulation step. */
#ifndef IMPETUS_APPS_SICONOS_BRIDGE_H
#define IMPETUS_APPS_SICONOS_BRIDGE_H

#include "constraint/contact.h"

#ifdef IMP_HAVE_SICONOS

/* Number of Siconos solvers (3) and solver k of them. */
int siconos_bridge_count(void);
const imp_csolver* siconos_bridge_solver(int k);

/* 1 when p maps exactly onto Siconos' 3D friction-contact problem. */
int siconos_bridge_accepts(const imp_cproblem* p);

#else

static inline int siconos_bridge_count(void) { return 0; }
static inline const imp_csolver* siconos_bridge_solver(int k) {
  (void)k;
  return NULL;
}
static inline int siconos_bridge_accepts(const imp_cproblem* p) {
  (void)p;
  return 0;
}

#endif
#endif
