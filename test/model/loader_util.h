/* Helpers shared by the tests of the MJCF loader (model/), test_loader_*.c:
 * load inline text named "t.xml" (failing the test on an error), compare
 * vectors and rotations. The tests cover defaults and classes, orientations,
 * angle units, inertia from geoms, includes, keyframes, the qpos layout,
 * names, warnings, the constraint settings (solver options, njmax, nJrow,
 * solref, ball joint cones, equalities), and every error with its file and
 * line. Independent of MuJoCo: expected values come from the MJCF
 * definitions and analytic formulas.
 *
 * Include after defining _POSIX_C_SOURCE (mkdtemp, stat). */
#ifndef IMPETUS_LOADER_UTIL_H
#define IMPETUS_LOADER_UTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "constraint/contact.h"
#include "engine.h"
#include "impetus.h"
#include "core/mathx.h"
#include "core/quat.h"
#include "test_util.h"

#define PI 3.14159265358979323846
#define TOL 1e-12

static char g_err[1000];

/* load inline text named "t.xml"; fail the test on error */
static inline imp_model* load(const char* xml) {
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  return m;
}

/* the same with IMP_LOAD_ALLOW_UNSUPPORTED */
static inline imp_model* load_allow(const char* xml) {
  imp_model* m = imp_load_xml_string_opt(xml, NULL, "t.xml", IMP_LOAD_ALLOW_UNSUPPORTED, g_err,
                                         sizeof g_err);
  ck_assert_msg(m != NULL, "load failed: %s", g_err);
  return m;
}

static inline void assert_vec(const double* a, const double* b, int n, double tol) {
  for (int i = 0; i < n; i++)
    ck_assert_msg(fabs(a[i] - b[i]) <= tol, "[%d]: %.17g vs %.17g", i, a[i], b[i]);
}

/* same rotation (q or -q) */
static inline void assert_quat(const double* q, const double* e) {
  double s = q[0] * e[0] + q[1] * e[1] + q[2] * e[2] + q[3] * e[3];
  ck_assert_msg(fabs(fabs(s) - 1) < 1e-12, "quat %g %g %g %g vs %g %g %g %g", q[0], q[1], q[2],
                q[3], e[0], e[1], e[2], e[3]);
}

#endif
