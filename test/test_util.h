/* Helpers shared by the Check tests: load a model or fail the test with the
 * loader's message, and compare numbers with messages that show the values.
 *
 *   imp_model* m = imp_test_load_string(xml);          // fails on error
 *   imp_model* m = imp_test_load_string_nowarn(xml);   // fails on warnings too
 *   imp_model* m = imp_test_load_model("pendulum.xml"); // from models/
 *   imp_assert_near(x, 1.0, 1e-12);                    // |x - 1| <= 1e-12
 *   imp_assert_rel(T, T0, 1e-3);                       // |T - T0| <= 1e-3 |T0|
 *   imp_assert_vec_near(a, b, n, 1e-9);                // element-wise
 *
 * Everything is static so each test file gets its own copy; the functions
 * take the caller's file and line through the macros for the messages. */
#ifndef IMPETUS_TEST_UTIL_H
#define IMPETUS_TEST_UTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "impetus.h"

#ifndef IMP_MODELS_DIR
#define IMP_MODELS_DIR "models"
#endif

#define IMP_TEST_ERRSZ 1000

/* ---- loading ---- */

/* Load MJCF text, failing the test with the loader's error; warnings allowed.
   Relative includes resolve against models/. */
static inline imp_model* imp_test_load_string_at(const char* xml, const char* file,
                                                 int line) {
  char err[IMP_TEST_ERRSZ] = "";
  imp_model* m = imp_load_xml_string(xml, IMP_MODELS_DIR, "inline", err, sizeof err);
  ck_assert_msg(m != NULL, "%s:%d: model did not load: %s", file, line, err);
  return m;
}
#define imp_test_load_string(xml) imp_test_load_string_at((xml), __FILE__, __LINE__)

/* The same with IMP_LOAD_ALLOW_UNSUPPORTED: a model that uses what Impetus
   does not implement, loaded with warnings instead of refused. */
static inline imp_model* imp_test_load_string_allow_at(const char* xml, const char* file,
                                                       int line) {
  char err[IMP_TEST_ERRSZ] = "";
  imp_model* m = imp_load_xml_string_opt(xml, IMP_MODELS_DIR, "inline",
                                         IMP_LOAD_ALLOW_UNSUPPORTED, err, sizeof err);
  ck_assert_msg(m != NULL, "%s:%d: model did not load: %s", file, line, err);
  return m;
}
#define imp_test_load_string_allow(xml) \
  imp_test_load_string_allow_at((xml), __FILE__, __LINE__)

/* The MJCF text, named "t.xml", must fail to load with an error starting
   "t.xml:<line>:" that mentions what. */
static inline void imp_test_expect_error_at(const char* xml, int line, const char* what,
                                            const char* file, int fline) {
  char err[IMP_TEST_ERRSZ] = "";
  imp_model* m = imp_load_xml_string(xml, NULL, "t.xml", err, sizeof err);
  ck_assert_msg(m == NULL, "%s:%d: loaded although it should fail with '%s'", file, fline, what);
  char prefix[64];
  snprintf(prefix, sizeof prefix, "t.xml:%d:", line);
  ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0,
                "%s:%d: error '%s' does not start with '%s'", file, fline, err, prefix);
  ck_assert_msg(strstr(err, what) != NULL, "%s:%d: error '%s' does not mention '%s'", file, fline,
                err, what);
}
#define imp_test_expect_error(xml, line, what) \
  imp_test_expect_error_at((xml), (line), (what), __FILE__, __LINE__)

/* Fail the test when m carries loader warnings. */
static inline void imp_test_no_warnings_at(const imp_model* m, const char* file, int line) {
  ck_assert_msg(m->nwarning == 0, "%s:%d: %d loader warning(s):\n%s", file, line,
                m->nwarning, m->warnings ? m->warnings : "");
}
#define imp_test_no_warnings(m) imp_test_no_warnings_at((m), __FILE__, __LINE__)

/* Load MJCF text; fail the test on an error or on any warning. */
static inline imp_model* imp_test_load_string_nowarn_at(const char* xml, const char* file,
                                                        int line) {
  imp_model* m = imp_test_load_string_at(xml, file, line);
  imp_test_no_warnings_at(m, file, line);
  return m;
}
#define imp_test_load_string_nowarn(xml) \
  imp_test_load_string_nowarn_at((xml), __FILE__, __LINE__)

/* Load a file of models/ by name (e.g. "pendulum.xml"); fail on error or warning. */
static inline imp_model* imp_test_load_model_at(const char* name, const char* file,
                                                int line) {
  char path[4096], err[IMP_TEST_ERRSZ] = "";
  snprintf(path, sizeof path, "%s/%s", IMP_MODELS_DIR, name);
  imp_model* m = imp_load_xml(path, err, sizeof err);
  ck_assert_msg(m != NULL, "%s:%d: %s did not load: %s", file, line, path, err);
  imp_test_no_warnings_at(m, file, line);
  return m;
}
#define imp_test_load_model(name) imp_test_load_model_at((name), __FILE__, __LINE__)

/* Id of a named object, failing the test when there is none. */
static inline int imp_test_id_at(const imp_model* m, imp_obj_type type, const char* name,
                                 const char* file, int line) {
  int id = imp_name2id(m, type, name);
  ck_assert_msg(id >= 0, "%s:%d: no object named '%s' of type %d", file, line, name,
                (int)type);
  return id;
}
#define imp_test_id(m, type, name) imp_test_id_at((m), (type), (name), __FILE__, __LINE__)

/* ---- tolerances ---- */

/* |a - b| <= tol (NaN fails). */
static inline void imp_assert_near_at(double a, double b, double tol, const char* ea,
                                      const char* eb, const char* file, int line) {
  double e = fabs(a - b);
  ck_assert_msg(e <= tol, "%s:%d: |%s - %s| = |%.17g - %.17g| = %.3e > %.3e", file, line,
                ea, eb, a, b, e, tol);
}
#define imp_assert_near(a, b, tol) \
  imp_assert_near_at((a), (b), (tol), #a, #b, __FILE__, __LINE__)

/* |a - b| <= rtol |b| (b is the reference; NaN fails). */
static inline void imp_assert_rel_at(double a, double b, double rtol, const char* ea,
                                     const char* eb, const char* file, int line) {
  double e = fabs(a - b), r = b != 0 ? e / fabs(b) : e;
  ck_assert_msg(e <= rtol * fabs(b), "%s:%d: %s = %.17g vs %s = %.17g: relative error %.3e > %.3e",
                file, line, ea, a, eb, b, r, rtol);
}
#define imp_assert_rel(a, b, rtol) \
  imp_assert_rel_at((a), (b), (rtol), #a, #b, __FILE__, __LINE__)

/* max_i |a[i] - b[i]| <= tol, naming the worst index. */
static inline void imp_assert_vec_near_at(const double* a, const double* b, int n, double tol,
                                          const char* ea, const char* eb, const char* file,
                                          int line) {
  int worst = -1;
  double emax = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]);
    if (!(e <= emax)) { /* also catches NaN */
      emax = e;
      worst = i;
      if (isnan(e)) break;
    }
  }
  ck_assert_msg(worst < 0 || emax <= tol, "%s:%d: %s[%d] = %.17g vs %s[%d] = %.17g: |diff| %.3e > %.3e",
                file, line, ea, worst, worst >= 0 ? a[worst] : 0.0, eb, worst,
                worst >= 0 ? b[worst] : 0.0, emax, tol);
}
#define imp_assert_vec_near(a, b, n, tol) \
  imp_assert_vec_near_at((a), (b), (n), (tol), #a, #b, __FILE__, __LINE__)

/* max_i |a[i] - b[i]| (NaN propagates as NaN). */
static inline double imp_max_abs_diff(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    double d = fabs(a[i] - b[i]);
    if (isnan(d)) return d;
    if (d > e) e = d;
  }
  return e;
}

/* ---- a suite runner for main() ---- */

/* Run a suite, print the results, return the process exit status. */
static inline int imp_test_run_suite(Suite* s) {
  /* line-buffered: what a forked test printed survives its failure exit */
  setvbuf(stdout, NULL, _IOLBF, 0);
  SRunner* r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int nfail = srunner_ntests_failed(r);
  srunner_free(r);
  return nfail == 0 ? 0 : 1;
}


/* ---- random numbers: xorshift64*, deterministic, seeded per test file ---- */

static uint64_t imp_test_rng = 0x2545f4914f6cdd1dull;

/* uniform in [lo, hi) */
static inline double imp_test_urand(double lo, double hi) {
  imp_test_rng ^= imp_test_rng >> 12;
  imp_test_rng ^= imp_test_rng << 25;
  imp_test_rng ^= imp_test_rng >> 27;
  uint64_t r = imp_test_rng * 0x2545f4914f6cdd1dull;
  return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

/* a uniformly random unit quaternion (rejection sampling in the 4-ball) */
static inline void imp_test_rand_quat(double q[4]) {
  double n2;
  do {
    for (int i = 0; i < 4; i++) q[i] = imp_test_urand(-1, 1);
    n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  } while (n2 > 1 || n2 < 1e-4);
  for (int i = 0; i < 4; i++) q[i] /= sqrt(n2);
}


/* random positions for every joint of m: unit quaternions for ball and free
   joints, positions and angles in a few units */
static inline void imp_test_random_qpos(const imp_model* m, double* qpos) {
  for (int j = 0; j < m->njnt; j++) {
    double* q = qpos + m->jnt_qposadr[j];
    switch (m->jnt_type[j]) {
      case IMP_JNT_FREE:
        for (int i = 0; i < 3; i++) q[i] = imp_test_urand(-1, 1);
        imp_test_rand_quat(q + 3);
        break;
      case IMP_JNT_BALL:
        imp_test_rand_quat(q);
        break;
      default:
        q[0] = imp_test_urand(-2, 2);
    }
  }
}

/* a random state: random positions and velocities in [-2, 2) */
static inline void imp_test_random_state(const imp_model* m, imp_data* d) {
  imp_test_random_qpos(m, d->qpos);
  for (int i = 0; i < m->nv; i++) d->qvel[i] = imp_test_urand(-2, 2);
}

#endif
