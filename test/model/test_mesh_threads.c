/* Tests of mesh assets loaded, and models with meshes stepped, on several
 * threads at once (issue 15): the "threads" case, which CI also runs under
 * ThreadSanitizer (.ci/run). Shared helpers: mesh_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "mesh_util.h"

/* ------------------------------------------------------ loading in threads */

#define NTHREAD_MESH 4
#define NLOAD_PER_THREAD 12

typedef struct mesh_ref {
  char xml[512];
  int nvert, nface;
  double* vert;
  int* face;
  int mismatches; /* loads that failed or differed, counted by the thread */
} mesh_ref;

/* 1 when m's meshes equal ref's bit for bit */
static int same_mesh(const imp_model* m, const mesh_ref* ref) {
  return m->nmeshvert == ref->nvert && m->nmeshface == ref->nface &&
         !memcmp(m->mesh_vert, ref->vert, sizeof(double) * 3 * (size_t)ref->nvert) &&
         !memcmp(m->mesh_face, ref->face, sizeof(int) * 3 * (size_t)ref->nface);
}

static void* load_mesh_repeatedly(void* arg) {
  mesh_ref* ref = arg;
  for (int k = 0; k < NLOAD_PER_THREAD; k++) {
    char err[500];
    imp_model* m = imp_load_xml_string(ref->xml, IMP_TEST_TMPDIR, "t.xml", err, sizeof err);
    if (!m || !same_mesh(m, ref)) ref->mismatches++;
    imp_free_model(m);
  }
  return NULL;
}

/* Issue 15: loads in several threads at once each get exactly the mesh a
   single-threaded load gives (merging STL corners once sorted through a
   global: some concurrent loads got another thread's vertices). Each thread
   loads a different mesh, so any sharing shows. */
START_TEST(concurrent_loads_give_the_single_threaded_meshes) {
  mesh_ref ref[NTHREAD_MESH];
  for (int t = 0; t < NTHREAD_MESH; t++) {
    char name[64];
    snprintf(name, sizeof name, "thread_mesh%d.stl", t);
    double r[3] = {1 + 0.1 * t, 0.7 + 0.05 * t, 0.5 + 0.2 * t};
    /* different tessellations: sorting one mesh's corners by another's
       coordinates would not give the same order */
    write_ellipsoid_stl(name, r, 10 + t, 20 + 3 * t, 300);
    snprintf(ref[t].xml, sizeof ref[t].xml,
             "<mujoco><asset><mesh name='m' file='%s'/></asset><worldbody><body>"
             "<freejoint/><geom type='mesh' mesh='m'/></body></worldbody></mujoco>", name);
    imp_model* m = load_in(IMP_TEST_TMPDIR, ref[t].xml);
    ref[t].nvert = m->nmeshvert;
    ref[t].nface = m->nmeshface;
    ck_assert_int_le(ref[t].nvert, (11 + t) * (20 + 3 * t)); /* the copies' corners merged */
    ref[t].vert = malloc(sizeof(double) * 3 * (size_t)m->nmeshvert);
    ref[t].face = malloc(sizeof(int) * 3 * (size_t)m->nmeshface);
    memcpy(ref[t].vert, m->mesh_vert, sizeof(double) * 3 * (size_t)m->nmeshvert);
    memcpy(ref[t].face, m->mesh_face, sizeof(int) * 3 * (size_t)m->nmeshface);
    ref[t].mismatches = 0;
    imp_free_model(m);
  }
  pthread_t th[NTHREAD_MESH];
  for (int t = 0; t < NTHREAD_MESH; t++)
    ck_assert_int_eq(pthread_create(&th[t], NULL, load_mesh_repeatedly, &ref[t]), 0);
  for (int t = 0; t < NTHREAD_MESH; t++) pthread_join(th[t], NULL);
  int bad = 0;
  for (int t = 0; t < NTHREAD_MESH; t++) {
    bad += ref[t].mismatches;
    free(ref[t].vert);
    free(ref[t].face);
  }
  ck_assert_msg(bad == 0, "%d of %d concurrent loads failed or gave another mesh", bad,
                NTHREAD_MESH * NLOAD_PER_THREAD);
}
END_TEST

/* ---- loading and stepping on several threads ---- */

#define NSTEP_THREADS 150

/* Two bodies with STL meshes (written by the caller) dropped on a floor
   and onto each other: contacts from the first steps on. */
static void mesh_scene_xml(char* xml, size_t n, const char* stl) {
  snprintf(xml, n,
           "<mujoco><option timestep='0.002'/><asset><mesh name='m' file='%s' "
           "scale='0.1 0.1 0.1'/></asset><worldbody><geom type='plane' size='2 2 0.1'/>"
           "<body pos='0 0 0.12' euler='10 20 0'><freejoint/><geom type='mesh' mesh='m'/></body>"
           "<body pos='0.03 0.01 0.3' euler='0 30 40'><freejoint/><geom type='mesh' mesh='m'/>"
           "</body></worldbody></mujoco>",
           stl);
}

/* A stepping job: the model (loaded by the thread when xml is set), the
   data's threads, and the state after NSTEP_THREADS steps. */
typedef struct step_job {
  const char* xml;          /* load this (own model), or use `shared` */
  const imp_model* shared;
  int nthread;              /* imp_set_threads of the data */
  double qpos[14], qvel[12];
  int ncon_seen, failed;
} step_job;

static void* load_and_step(void* arg) {
  step_job* j = arg;
  char err[500] = "";
  imp_model* own = j->xml ? imp_load_xml_string(j->xml, IMP_TEST_TMPDIR, "t.xml", err, sizeof err)
                          : NULL;
  const imp_model* m = j->xml ? own : j->shared;
  imp_data* d = m ? imp_make_data(m) : NULL;
  if (!d || (j->nthread > 1 && imp_set_threads(m, d, j->nthread) != 0)) {
    j->failed = 1;
  } else {
    for (int s = 0; s < NSTEP_THREADS; s++) {
      imp_step(m, d);
      if (d->ncon > j->ncon_seen) j->ncon_seen = d->ncon;
    }
    memcpy(j->qpos, d->qpos, sizeof j->qpos);
    memcpy(j->qvel, d->qvel, sizeof j->qvel);
  }
  imp_free_data(d);
  imp_free_model(own);
  return NULL;
}

/* Issue 15: models with meshes loaded and stepped on several threads at
   once, each thread its own model and data, and several datas (one with
   its own island workers) on one shared model, end bitwise where a run on
   one thread ends. Run under ThreadSanitizer in CI (.ci/run). */
START_TEST(concurrent_load_and_step_is_bitwise_single_threaded) {
  enum { NOWN = 3, NSHARED = 3 };
  char xml[NOWN][700];
  step_job ref[NOWN], job[NOWN + NSHARED];
  for (int t = 0; t < NOWN; t++) {
    char name[64];
    snprintf(name, sizeof name, "step_mesh%d.stl", t);
    double r[3] = {1 + 0.1 * t, 0.8 + 0.05 * t, 0.6 + 0.1 * t};
    write_ellipsoid_stl(name, r, 6 + t, 10 + 2 * t, 20);
    mesh_scene_xml(xml[t], sizeof xml[t], name);
    ref[t] = (step_job){.xml = xml[t], .nthread = 1};
    load_and_step(&ref[t]); /* on this thread, alone */
    ck_assert(!ref[t].failed);
    ck_assert_msg(ref[t].ncon_seen >= 2, "mesh scene %d: only %d contacts", t, ref[t].ncon_seen);
  }
  imp_model* shared = load_in(IMP_TEST_TMPDIR, xml[0]);
  for (int t = 0; t < NOWN; t++) job[t] = (step_job){.xml = xml[t], .nthread = 1};
  for (int t = 0; t < NSHARED; t++)
    job[NOWN + t] = (step_job){.shared = shared, .nthread = t == 0 ? 2 : 1};
  pthread_t th[NOWN + NSHARED];
  for (int t = 0; t < NOWN + NSHARED; t++)
    ck_assert_int_eq(pthread_create(&th[t], NULL, load_and_step, &job[t]), 0);
  for (int t = 0; t < NOWN + NSHARED; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < NOWN + NSHARED; t++) {
    const step_job* want = &ref[t < NOWN ? t : 0];
    ck_assert_msg(!job[t].failed, "thread %d failed", t);
    ck_assert_msg(!memcmp(job[t].qpos, want->qpos, sizeof want->qpos) &&
                      !memcmp(job[t].qvel, want->qvel, sizeof want->qvel),
                  "thread %d did not end where one thread does", t);
  }
  imp_free_model(shared);
}
END_TEST

static Suite* mesh_suite(void) {
  Suite* s = suite_create("mesh");
  TCase* t = tcase_create("threads");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, concurrent_loads_give_the_single_threaded_meshes);
  tcase_add_test(t, concurrent_load_and_step_is_bitwise_single_threaded);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(mesh_suite()); }
