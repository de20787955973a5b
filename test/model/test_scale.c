/* Scale (issue 15, items 8 and 9): memory linear in the model and loading
 * O(n log n) in bodies. No test here measures time: the memory test checks
 * the bytes a data reserves, the loading test loads 100,000 bodies, which
 * the quadratic loader took 100 s over (more than the suite's timeout under
 * the sanitizers) and the loader now takes about a second over. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "impetus.h"
#include "test_files.h"
#include "test_util.h"

static char g_err[IMP_TEST_ERRSZ];

/* dir/name with text s */
static void put_file(const char* dir, const char* name, const char* s) {
  FILE* f = fopen(imp_test_in_dir(dir, name), "w");
  ck_assert_ptr_nonnull(f);
  fputs(s, f);
  fclose(f);
}

/* A chain of nfile x per bodies, each a hinge and a capsule above the last,
   per bodies a file (libxml2 nests at most 256 elements in one file), each
   file including the next in its innermost body; dir/main.xml holds it
   (with size, when not NULL, in <mujoco>). */
static void write_chain(const char* dir, int nfile, int per, const char* size) {
  size_t cap = (size_t)per * 160 + 200;
  char* s = malloc(cap);
  ck_assert_ptr_nonnull(s);
  for (int i = 0; i < nfile; i++) {
    size_t k = (size_t)snprintf(s, cap, "<mujoco>\n");
    for (int b = 0; b < per; b++)
      k += (size_t)snprintf(s + k, cap - k,
                            "<body pos='0 0 .1'><joint axis='0 1 0'/>"
                            "<geom type='capsule' fromto='0 0 0 0 0 .1' size='.02'/>\n");
    if (i + 1 < nfile) k += (size_t)snprintf(s + k, cap - k, "<include file='c%d.xml'/>", i + 1);
    for (int b = 0; b < per; b++) k += (size_t)snprintf(s + k, cap - k, "</body>");
    snprintf(s + k, cap - k, "</mujoco>\n");
    char name[32];
    snprintf(name, sizeof name, "c%d.xml", i);
    put_file(dir, name, s);
  }
  snprintf(s, cap,
           "<mujoco>%s<worldbody><geom type='plane' size='5 5 .1'/>"
           "<include file='c0.xml'/></worldbody></mujoco>\n",
           size ? size : "");
  put_file(dir, "main.xml", s);
  free(s);
}

static imp_model* load_main(const char* dir) {
  imp_model* m = imp_load_xml(imp_test_in_dir(dir, "main.xml"), g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  return m;
}

/* A chain 990 bodies deep (near the loader's depth bound): the data held
   1.19 GB, 48,288 rows of 1,980 Jacobian entries each, reserved whatever
   the rows would hold. The mass matrix of a chain is dense (nM = nv (nv+1)/2
   entries, a few arrays of them), the rest is linear: the bound below is 6
   doubles per mass-matrix entry and 32 KB per geom (a free-standing geom
   costs about 21 KB, most of it its share of contact rows); the data
   holds 52 MB, its arena 110 MB (it reserved 1.25 GB). The Jacobian
   holds what the islands can solve: nislandmax rows each on the dofs of
   its island, which share none. */
START_TEST(deep_chain_memory_is_linear) {
  char dir[] = "/tmp/imp_test_scaleXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  write_chain(dir, 5, 198, NULL);
  imp_model* m = load_main(dir);
  ck_assert_int_eq(m->nv, 990);
  ck_assert_int_eq(m->nM, 990 * 991 / 2);
  ck_assert_int_le(m->nJnnz, m->nislandmax * m->nv);
  imp_data* d = imp_make_data(m);
  ck_assert_ptr_nonnull(d);
  size_t bound = 6 * sizeof(double) * (size_t)m->nM + 32768 * (size_t)m->ngeom;
  ck_assert_msg(d->nbuffer <= bound, "data holds %zu bytes, more than %zu", d->nbuffer, bound);
  /* the arena adds the largest island's dense problem: its Delassus matrix,
     factor and solver work, a few nislandmax^2 doubles */
  size_t island = 16 * sizeof(double) * (size_t)m->nislandmax * (size_t)m->nislandmax;
  ck_assert_msg(d->narena <= bound + island, "arena holds %zu bytes, more than %zu", d->narena,
                bound + island);
  imp_free_data(d);
  imp_free_model(m);
  imp_test_remove_dir(dir);
}
END_TEST

/* The chain folds onto the floor: rows touch up to 2 x 100 dofs each, and
   with nislandmax 2 the Jacobian holds 2 nv entries: rows past it are
   dropped and counted (nefc_dropped_J), the step goes on, and the rows kept
   hold exactly their ancestor closures without overlapping. */
START_TEST(rows_past_the_jacobian_capacity_are_dropped_and_counted) {
  char dir[] = "/tmp/imp_test_scaleXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  write_chain(dir, 1, 100, "<size nislandmax='2'/>");
  imp_model* m = load_main(dir);
  ck_assert_int_eq(m->nJnnz, 2 * m->nv);
  imp_data* d = imp_make_data(m);
  ck_assert_ptr_nonnull(d);
  for (int i = 0; i < m->nv; i++) d->qpos[i] = i == 0 ? 1.5 : 0.3; /* curls down to the floor */
  int dropped = 0;
  for (int s = 0; s < 300 && !dropped; s++) {
    imp_step(m, d);
    dropped = d->nefc_dropped_J;
    ck_assert_int_le(d->nefc_J, m->nJnnz);
    int end = 0;
    for (int r = 0; r < d->nefc; r++) {
      ck_assert_int_ge(d->efc_J_rowadr[r], end); /* rows in order, apart */
      end = d->efc_J_rowadr[r] + d->efc_J_rownnz[r];
    }
    ck_assert_int_le(end, m->nJnnz);
    for (int i = 0; i < m->nq; i++) ck_assert(isfinite(d->qpos[i]));
  }
  ck_assert_msg(dropped > 0, "the chain never needed more than %d entries", m->nJnnz);
  ck_assert_int_ge(d->nefc_dropped, d->nefc_dropped_J);
  imp_free_data(d);
  imp_free_model(m);
  imp_test_remove_dir(dir);
}
END_TEST

/* 100,000 named bodies under the world, each with a hinge and a sphere:
   the loader ordered joints and geoms by scanning every object once per
   body, measured each body's size over every joint and geom, summed welded
   groups over every later body and compared every pair of names. The
   result must be what the file says: ids in file order, each joint and
   geom on its body, the mean body size that of one sphere. */
START_TEST(hundred_thousand_bodies_load) {
  enum { N = 100000 };
  size_t cap = (size_t)N * 120 + 400, k = 0;
  char* xml = malloc(cap);
  ck_assert_ptr_nonnull(xml);
  /* few contact slots: the loader is under test, not the data's size */
  k += (size_t)snprintf(xml + k, cap - k,
                        "<mujoco><size nconmax='100' njmax='300'/><worldbody>\n");
  for (int i = 0; i < N; i++)
    k += (size_t)snprintf(xml + k, cap - k,
                          "<body name='b%d' pos='%d %d 1'><joint name='j%d'/>"
                          "<geom size='.%d'/></body>\n",
                          i, i % 300, i / 300, i, 1 + i % 4);
  snprintf(xml + k, cap - k, "</worldbody></mujoco>\n");
  imp_model* m = imp_load_xml_string(xml, NULL, "flat.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->nbody, N + 1);
  ck_assert_int_eq(m->njnt, N);
  ck_assert_int_eq(m->ngeom, N);
  for (int i = 0; i < N; i += 9973) {
    ck_assert_int_eq(m->jnt_bodyid[i], i + 1);
    ck_assert_int_eq(m->geom_bodyid[i], i + 1);
    ck_assert_int_eq(m->body_jntadr[i + 1], i);
    ck_assert_int_eq(m->body_geomadr[i + 1], i);
    ck_assert_double_eq(m->geom_size[3 * i], (1 + i % 4) / 10.0);
  }
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "b77777"), 77778);
  /* each body's size is its sphere's radius (the joint sits at the centre) */
  imp_assert_rel(m->meansize, (0.1 + 0.2 + 0.3 + 0.4) / 4, 1e-12);
  imp_free_model(m);
  /* a repeated name is still found, at the second element in file order
     (body 12000 on line 12002 takes the name of body 10042) */
  char* at = strstr(xml, "name='b12000'");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "name='b10042'", 13);
  m = imp_load_xml_string(xml, NULL, "flat.xml", g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(g_err, "flat.xml:12002:") && strstr(g_err, "repeated body name 'b10042'"),
                "%s", g_err);
  /* past line 65,535, where libxml2 stops counting an element's lines */
  memcpy(at, "name='b12000'", 13);
  at = strstr(xml, "name='b99998'");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "name='b70000'", 13);
  m = imp_load_xml_string(xml, NULL, "flat.xml", g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(g_err, "flat.xml:100000:") && strstr(g_err, "repeated body name 'b70000'"),
                "%s", g_err);
  free(xml);
}
END_TEST

/* n bodies under the world, each with a slide joint and a sphere, without
   <size>: the automatic capacities */
static imp_model* load_flat(int n) {
  size_t cap = (size_t)n * 100 + 200, k = 0;
  char* xml = malloc(cap);
  ck_assert_ptr_nonnull(xml);
  k += (size_t)snprintf(xml + k, cap - k,
                        "<mujoco><worldbody><geom type='plane' size='9 9 .1'/>\n");
  for (int i = 0; i < n; i++)
    k += (size_t)snprintf(xml + k, cap - k,
                          "<body pos='%d %d 1'><joint type='slide'/><geom size='.1'/></body>\n",
                          i % 300, i / 300);
  snprintf(xml + k, cap - k, "</worldbody></mujoco>\n");
  imp_model* m = imp_load_xml_string(xml, NULL, "flat.xml", g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  free(xml);
  return m;
}

static size_t data_bytes(const imp_model* m) {
  imp_data* d = imp_make_data(m);
  ck_assert_ptr_nonnull(d);
  size_t n = d->nbuffer;
  imp_free_data(d);
  return n;
}

/* Without <size>, a model keeps 16 contact slots a geom (3 rows each) up
   to 4,096 geoms, room for a dense pile in every real model, and 2 a geom
   past them: 16 a geom made 100,000 free-standing spheres reserve 2.1 GB
   of data (2.3 GB at peak), about 21 KB a geom, where the data of a geom
   past the knee now takes under 4 KB. */
START_TEST(huge_models_reserve_few_contacts_per_geom) {
  imp_model* small = load_flat(4095); /* and the floor: 4,096 geoms */
  ck_assert_int_eq(small->nconmax, 256 + 16 * 4096);
  size_t bytes_small = data_bytes(small);
  imp_model* big = load_flat(20000);
  ck_assert_int_eq(big->nconmax, 256 + 16 * 4096 + 2 * (big->ngeom - 4096));
  size_t bytes_big = data_bytes(big);
  size_t per_geom = (bytes_big - bytes_small) / (size_t)(big->ngeom - small->ngeom);
  ck_assert_msg(per_geom < 4096, "a geom past 4,096 costs %zu bytes of data", per_geom);
  imp_free_model(small);
  imp_free_model(big);
}
END_TEST

/* Sizes past the loader's bounds are refused at their element: <size>
   values, and a mass matrix of more than LD_MAXMASSENTRIES entries (one
   body with 17,000 hinges: a chain of 17,000 dofs, 144 million entries). */
START_TEST(sizes_past_the_bounds_are_refused) {
  imp_test_expect_error("<mujoco>\n<size nconmax='100000000'/></mujoco>", 2, "nconmax");
  imp_test_expect_error("<mujoco>\n<size njmax='1000000000'/></mujoco>", 2, "njmax");
  imp_test_expect_error("<mujoco>\n<size nislandmax='100000'/></mujoco>", 2, "nislandmax");
  enum { NJ = 17000 };
  size_t cap = (size_t)NJ * 20 + 200, k = 0;
  char* xml = malloc(cap);
  ck_assert_ptr_nonnull(xml);
  k += (size_t)snprintf(xml + k, cap - k, "<mujoco><worldbody>\n<body>\n<geom size='1'/>");
  for (int i = 0; i < NJ; i++) k += (size_t)snprintf(xml + k, cap - k, "<joint/>");
  snprintf(xml + k, cap - k, "</body></worldbody></mujoco>\n");
  imp_test_expect_error(xml, 2, "mass matrix would have more than");
  free(xml);
}
END_TEST

int main(void) {
  Suite* s = suite_create("scale");
  TCase* t = tcase_create("scale");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, deep_chain_memory_is_linear);
  tcase_add_test(t, rows_past_the_jacobian_capacity_are_dropped_and_counted);
  tcase_add_test(t, hundred_thousand_bodies_load);
  tcase_add_test(t, huge_models_reserve_few_contacts_per_geom);
  tcase_add_test(t, sizes_past_the_bounds_are_refused);
  suite_add_tcase(s, t);
  return imp_test_run_suite(s);
}
