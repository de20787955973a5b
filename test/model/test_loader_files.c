/* Tests of the MJCF loader: <include> and hostile files (nesting, entity
 * expansion, the number and bytes of includes, non-regular files,
 * non-finite numbers, a missing main file). Shared helpers: loader_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "loader_util.h"

/* ----------------------------------------------------------------- include */

START_TEST(include_splices_children_relative_to_main_dir) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[400], sub[300], main_[300], inc[300], inc2[300];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  snprintf(main_, sizeof main_, "%s/main.xml", dir);
  snprintf(inc, sizeof inc, "%s/sub/a.xml", dir);
  snprintf(inc2, sizeof inc2, "%s/b.xml", dir);
  FILE* f = fopen(main_, "w");
  fputs("<mujoco model='inc'>\n<worldbody>\n<include file='sub/a.xml'/>\n"
        "<geom name='last' size='1'/></worldbody></mujoco>\n", f);
  fclose(f);
  f = fopen(inc, "w");
  /* paths are relative to the main file, not to sub/ */
  fputs("<mujoco><body name='x'><geom size='1'/></body><include file='b.xml'/></mujoco>\n", f);
  fclose(f);
  f = fopen(inc2, "w");
  fputs("<mujoco><body name='y'><geom size='1'/></body></mujoco>\n", f);
  fclose(f);
  imp_model* m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->nbody, 3);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "x"), 1);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_BODY, "y"), 2);
  ck_assert_int_eq(imp_name2id(m, IMP_OBJ_GEOM, "last"), 0); /* world geoms first */
  imp_free_model(m);
  /* a missing include names the file and the including file:line */
  f = fopen(main_, "w");
  fputs("<mujoco>\n<worldbody>\n\n<include file='nope.xml'/></worldbody></mujoco>\n", f);
  fclose(f);
  m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  snprintf(path, sizeof path, "%s:4:", main_);
  ck_assert_msg(strstr(g_err, path) && strstr(g_err, "nope.xml"), "%s", g_err);
  /* an error inside an included file names that file */
  f = fopen(main_, "w");
  fputs("<mujoco><worldbody><include file='b.xml'/></worldbody></mujoco>\n", f);
  fclose(f);
  f = fopen(inc2, "w");
  fputs("<mujoco>\n\n<body><joint type='bogus'/></body></mujoco>\n", f);
  fclose(f);
  m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  snprintf(path, sizeof path, "%s:3:", inc2);
  ck_assert_msg(strstr(g_err, path) && strstr(g_err, "bogus"), "%s", g_err);
  unlink(main_);
  unlink(inc);
  unlink(inc2);
  rmdir(sub);
  rmdir(dir);
}
END_TEST

/* ------------------------------------------------- hostile files (issue 15) */

/* text into dir/name */
static void put_file(const char* dir, const char* name, const char* text) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* remove dir and the files in it */
static void remove_dir(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return;
  struct dirent* e;
  char path[600];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(dir);
}

/* load dir/main.xml: NULL expected, the error naming where and what */
static void expect_load_error(const char* dir, const char* where, const char* what) {
  char main_[600];
  snprintf(main_, sizeof main_, "%s/main.xml", dir);
  imp_model* m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_msg(m == NULL, "loaded although it should fail with '%s'", what);
  ck_assert_msg(strstr(g_err, where) && strstr(g_err, what), "error '%s' lacks '%s' or '%s'",
                g_err, where, what);
}

/* nfile files, each nesting per bodies, the next included in the innermost */
static void write_nested_files(const char* dir, int nfile, int per) {
  size_t cap = (size_t)per * 40 + 200;
  char* s = malloc(cap);
  ck_assert_ptr_nonnull(s);
  for (int i = 0; i < nfile; i++) {
    size_t k = (size_t)snprintf(s, cap, "<mujoco>\n");
    for (int b = 0; b < per; b++) k += (size_t)snprintf(s + k, cap - k, "<body><geom size='.1'/>");
    if (i + 1 < nfile) k += (size_t)snprintf(s + k, cap - k, "<include file='d%d.xml'/>", i + 1);
    for (int b = 0; b < per; b++) k += (size_t)snprintf(s + k, cap - k, "</body>");
    snprintf(s + k, cap - k, "</mujoco>\n");
    char name[32];
    snprintf(name, sizeof name, "d%d.xml", i);
    put_file(dir, name, s);
  }
  free(s);
  put_file(dir, "main.xml", "<mujoco><worldbody><include file='d0.xml'/></worldbody></mujoco>\n");
}

/* Bodies nested through includes deeper than any one file may nest them
   (libxml2 stops at 256) load up to LD_MAXDEPTH; beyond it an error names
   the file and line instead of the recursive readers overflowing the stack
   (4,000 levels crashed). */
START_TEST(nesting_through_includes_is_bounded) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  write_nested_files(dir, 2, 150); /* 300 bodies deep */
  char main_[600];
  snprintf(main_, sizeof main_, "%s/main.xml", dir);
  imp_model* m = imp_load_xml(main_, g_err, sizeof g_err);
  ck_assert_msg(m != NULL, "%s", g_err);
  ck_assert_int_eq(m->nbody, 301);
  ck_assert_int_eq(m->body_parentid[300], 299);
  imp_free_model(m);
  remove_dir(dir);
  ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/imp_test_loaderXXXXXX")));
  write_nested_files(dir, 20, 200); /* 4,000 deep */
  expect_load_error(dir, "d4.xml:2:", "nested more than 1000 deep");
  remove_dir(dir);
}
END_TEST

/* An internal entity is expanded in attributes; the text it adds is
   bounded: 100 references to a 100 KB entity (10 MB of attribute text;
   5,000 of them took 87 s and 1 GB) are refused at the element's line. */
START_TEST(entity_expansion_is_bounded) {
  imp_model* m = imp_test_load_string_nowarn(
      "<?xml version='1.0'?>\n<!DOCTYPE mujoco [<!ENTITY r '0.25'><!ENTITY s '&r; 0.5'>]>\n"
      "<mujoco><worldbody><body><geom type='capsule' size='&s;'/>\n"
      "<geom type='sphere' size='&r;' pos='0 0 1&r;'/></body></worldbody></mujoco>");
  ck_assert_double_eq(m->geom_size[0], 0.25);
  ck_assert_double_eq(m->geom_size[1], 0.5);
  ck_assert_double_eq(m->geom_pos[5], 10.25); /* text and entity joined */
  imp_free_model(m);
  size_t big = 100000, nref = 100, cap = big + 5 * nref + 400;
  char* xml = malloc(cap);
  ck_assert_ptr_nonnull(xml);
  size_t k = (size_t)snprintf(xml, cap, "<?xml version='1.0'?>\n<!DOCTYPE mujoco [<!ENTITY e '");
  memset(xml + k, 'a', big);
  k += big;
  k += (size_t)snprintf(xml + k, cap - k, "'>]>\n<mujoco>\n<worldbody>\n<body name='");
  for (size_t i = 0; i < nref; i++) k += (size_t)snprintf(xml + k, cap - k, "&e;");
  snprintf(xml + k, cap - k, "'><geom size='1'/></body></worldbody></mujoco>\n");
  imp_test_expect_error(xml, 5, "entity");
  free(xml);
}
END_TEST

/* A chain of files each including the next twice reads 2^levels files:
   the includes of one load are bounded in number (LD_MAXINCLUDES) and in
   total bytes (LD_MAXINCLUDEBYTES), each with an error at the <include>. */
START_TEST(includes_are_bounded_in_number_and_bytes) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  for (int i = 0; i < 15; i++) { /* 32,767 includes */
    char name[32], text[200];
    snprintf(name, sizeof name, "c%d.xml", i);
    if (i < 14)
      snprintf(text, sizeof text, "<mujoco><include file='c%d.xml'/><include file='c%d.xml'/></mujoco>\n",
               i + 1, i + 1);
    else
      snprintf(text, sizeof text, "<mujoco><geom size='.1'/></mujoco>\n");
    put_file(dir, name, text);
  }
  put_file(dir, "main.xml", "<mujoco><worldbody><include file='c0.xml'/></worldbody></mujoco>\n");
  expect_load_error(dir, ".xml:1:", "more than 10000 includes");
  remove_dir(dir);
  /* a 1 MB file included 70 times: 70 MB */
  ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/imp_test_loaderXXXXXX")));
  size_t n = 1 << 20;
  char* big = malloc(n + 100);
  ck_assert_ptr_nonnull(big);
  size_t k = (size_t)snprintf(big, 100, "<mujoco><!--");
  memset(big + k, '.', n);
  snprintf(big + k + n, 100, "--><geom size='.1'/></mujoco>\n");
  put_file(dir, "big.xml", big);
  free(big);
  char text[3000] = "<mujoco><worldbody>\n";
  for (int i = 0; i < 70; i++) strcat(text, "<include file='big.xml'/>");
  strcat(text, "</worldbody></mujoco>\n");
  put_file(dir, "main.xml", text);
  expect_load_error(dir, "main.xml:2:", "included files exceed 64 MB");
  remove_dir(dir);
}
END_TEST

/* An include that names a FIFO (which blocked the load forever), a
   directory or a device is refused at the <include>. */
START_TEST(include_of_a_non_regular_file_is_refused) {
  char dir[] = "/tmp/imp_test_loaderXXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char fifo[600];
  snprintf(fifo, sizeof fifo, "%s/fifo.xml", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  put_file(dir, "main.xml", "<mujoco><worldbody>\n<include file='fifo.xml'/></worldbody></mujoco>\n");
  expect_load_error(dir, "main.xml:2:", "not a regular file");
  put_file(dir, "main.xml", "<mujoco><worldbody>\n\n<include file='/dev/zero'/></worldbody></mujoco>\n");
  expect_load_error(dir, "main.xml:3:", "not a regular file");
  put_file(dir, "main.xml", "<mujoco><worldbody>\n<include file='.'/></worldbody></mujoco>\n");
  expect_load_error(dir, "main.xml:2:", "not a regular file");
  remove_dir(dir);
}
END_TEST

/* Numbers a model needs finite (all of them) and positive (the time step)
   or non-negative (masses, densities, inertias) are checked where they are
   read, with file:line (issue 15: a timestep of 0 ran with time stuck, a
   nan or inf mass loaded and reset every step). */
START_TEST(numbers_must_be_finite_and_in_range) {
  static const struct {
    const char* xml; /* the element on line 2 */
    const char* what;
  } bad[] = {
      {"<option timestep='0'/>", "timestep must be positive"},
      {"<option timestep='-0.001'/>", "timestep must be positive"},
      {"<option timestep='nan'/>", "'nan' is not a finite number"},
      {"<option timestep='inf'/>", "'inf' is not a finite number"},
      {"<option timestep='1e-320'/>", "too small"},
      {"<option gravity='0 0 -inf'/>", "not a finite number"},
      {"<option density='1e999'/>", "not a finite number"},
      {"<worldbody><body><freejoint/><inertial pos='0 0 0' mass='inf' diaginertia='1 1 1'/>"
       "</body></worldbody>", "not a finite number"},
      {"<worldbody><body><freejoint/><inertial pos='0 0 0' mass='1' diaginertia='nan 1 1'/>"
       "</body></worldbody>", "not a finite number"},
      {"<worldbody><body><freejoint/><geom size='.1' mass='nan'/></body></worldbody>",
       "not a finite number"},
      {"<worldbody><body><freejoint/><geom size='.1' mass='-1'/></body></worldbody>",
       "mass and density must be non-negative"},
      {"<worldbody><body><freejoint/><geom size='.1' density='-1'/></body></worldbody>",
       "mass and density must be non-negative"},
      {"<worldbody><body><freejoint/><geom size='.1' density='inf'/></body></worldbody>",
       "not a finite number"},
      {"<worldbody><body><freejoint/><geom size='inf'/></body></worldbody>", "not a finite"},
      {"<worldbody><body pos='0 nan 0'><freejoint/><geom size='1'/></body></worldbody>",
       "not a finite number"},
      /* finite, but its mass overflows */
      {"<worldbody><body><freejoint/><geom size='1e200'/></body></worldbody>",
       "mass or inertia is not finite"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char xml[600];
    snprintf(xml, sizeof xml, "<mujoco>\n%s\n</mujoco>", bad[i].xml);
    imp_test_expect_error(xml, 2, bad[i].what);
  }
  /* the smallest normal time step is allowed */
  imp_model* m = imp_test_load_string("<mujoco><option timestep='2.3e-308'/></mujoco>");
  ck_assert_double_eq(m->opt.timestep, 2.3e-308);
  imp_free_model(m);
}
END_TEST

START_TEST(missing_main_file_is_named) {
  imp_model* m = imp_load_xml("/nonexistent/dir/model.xml", g_err, sizeof g_err);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(g_err, "/nonexistent/dir/model.xml"), "%s", g_err);
}
END_TEST

Suite* loader_suite(void) {
  Suite* s = suite_create("loader");
  TCase* t = tcase_create("structure");
  tcase_add_test(t, include_splices_children_relative_to_main_dir);
  tcase_add_test(t, nesting_through_includes_is_bounded);
  tcase_add_test(t, entity_expansion_is_bounded);
  tcase_add_test(t, includes_are_bounded_in_number_and_bytes);
  tcase_add_test(t, include_of_a_non_regular_file_is_refused);
  tcase_add_test(t, numbers_must_be_finite_and_in_range);
  tcase_add_test(t, missing_main_file_is_named);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return imp_test_run_suite(loader_suite()); }
