/* Shared by the differential tests against MuJoCo 2.2.2: a model snippet
 * written to the build tree, and one model loaded by both simulators. */
#ifndef IMPETUS_MJ_PAIR_H
#define IMPETUS_MJ_PAIR_H

#include <mujoco/mujoco.h>
#include <stdio.h>

#include "test_util.h"

typedef struct pair {
  mjModel* mm;
  mjData* md;
  imp_model* m;
  imp_data* d;
} pair;

/* Write xml to IMP_TEST_TMPDIR/<stem>.xml, its path into path. The file is
   left there, so a failing case can be loaded by hand (impetus check,
   mujoco-testxml). */
static inline void mjp_write(const char* stem, const char* xml, char* path, size_t n) {
  int len = snprintf(path, n, "%s/%s.xml", IMP_TEST_TMPDIR, stem);
  ck_assert_msg(len > 0 && (size_t)len < n, "path of %s cut", stem);
  FILE* f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(xml, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* MuJoCo's model and data from mjpath, ours from ipath; the test fails,
   naming the case, when either does not load. */
static inline void mjp_load(pair* p, const char* name, const char* mjpath, const char* ipath) {
  char err[1000] = "";
  p->mm = mj_loadXML(mjpath, NULL, err, sizeof err);
  ck_assert_msg(p->mm != NULL, "%s: MuJoCo did not load %s: %s", name, mjpath, err);
  p->md = mj_makeData(p->mm);
  err[0] = 0;
  p->m = imp_load_xml(ipath, err, sizeof err);
  ck_assert_msg(p->m != NULL, "%s: impetus did not load %s: %s", name, ipath, err);
  p->d = imp_make_data(p->m);
}

/* fmt with one %s filled by integ (an integrator's name), written as
   <prefix>_<integ>.xml and loaded in both; the test fails on a loader
   warning of ours. */
static inline void mjp_load_integrator(pair* p, const char* prefix, const char* fmt,
                                       const char* integ) {
  char xml[8192], path[4096], stem[128];
  int len = snprintf(xml, sizeof xml, fmt, integ);
  ck_assert_int_lt(len, (int)sizeof xml);
  snprintf(stem, sizeof stem, "%s_%s", prefix, integ);
  mjp_write(stem, xml, path, sizeof path);
  mjp_load(p, stem, path, path);
  imp_test_no_warnings(p->m);
}

static inline void mjp_free(pair* p) {
  imp_free_data(p->d);
  imp_free_model(p->m);
  mj_deleteData(p->md);
  mj_deleteModel(p->mm);
}

#endif
