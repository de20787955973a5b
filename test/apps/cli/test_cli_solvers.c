/* Tests of the impetus program: the contact solvers on the command line
 * (solvers, --solver, bench's solver figures, --threads, --record-solver,
 * solvers --compare with Siconos' solvers when built: IMP_HAVE_SICONOS,
 * set in test/CMakeLists.txt). Shared helpers: cli_util.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"

/* ---- the contact solvers on the command line ---- */

START_TEST(solvers_lists_registry) {
  ck_assert_int_eq(impetus("solvers"), 0);
  const char* out = imp_test_text_of(out_path);
  int n = imp_solver_count();
  ck_assert_int_ge(n, 2);
  ck_assert_int_eq(count_lines(out_path), n); /* one solver a line, nothing else */
  /* line i: the name as its first word, the description, the default (index 0) marked */
  const char* line = out;
  for (int i = 0; i < n; i++) {
    const char* eol = strchr(line, '\n');
    ck_assert(eol != NULL);
    size_t len = strlen(imp_solver_name(i));
    ck_assert_msg(strncmp(line, imp_solver_name(i), len) == 0 && line[len] == ' ',
                  "line %d does not start with '%s': %s", i, imp_solver_name(i), out);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(eol - line), line);
    ck_assert_msg(strstr(buf, imp_solver_description(i)) != NULL, "no description in '%s'", buf);
    ck_assert_msg((strstr(buf, "(default)") != NULL) == (i == 0), "default mark: '%s'", buf);
    line = eol + 1;
  }
  ck_assert_msg(strncmp(out, "todorov ", 8) == 0, "todorov is not the default:\n%s", out);
  ck_assert_msg(strstr(out, "\npgs ") != NULL, "no pgs in:\n%s", out);

  ck_assert_int_eq(impetus("help solvers"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "usage: impetus solvers") != NULL);
  ck_assert_int_eq(impetus("solvers --help"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "usage: impetus solvers") != NULL);
  ck_assert_int_eq(impetus("help"), 0);
  ck_assert(strstr(imp_test_text_of(out_path), "  solvers ") != NULL);
  ck_assert_int_eq(impetus("solvers extra"), 2);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  /* every command's help names the option */
  const char* cmds[] = {"help run", "help bench", "help check"};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(impetus(cmds[i]), 0);
    ck_assert_msg(strstr(imp_test_text_of(out_path), "--solver NAME") != NULL, "%s", cmds[i]);
  }
  ck_assert(impetus("help run") == 0 && strstr(imp_test_text_of(out_path), "--record-solver") != NULL);
}
END_TEST

START_TEST(solver_option_accepted) {
  /* no constraint rows in the pendulum: no iterations, nothing to fail */
  ck_assert_msg(impetus("run '" PENDULUM "' --steps 10 --solver pgs") == 0, "%s",
                imp_test_text_of(err_path));
  ck_assert_msg(strstr(imp_test_text_of(out_path), "solver: pgs iterations: 0 worst_exit: converged\n"),
                "%s", imp_test_text_of(out_path));
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10"), 0);
  ck_assert_msg(strstr(imp_test_text_of(out_path), "solver: todorov iterations: 0 worst_exit: converged\n"),
                "%s", imp_test_text_of(out_path));
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10 --solver=todorov"), 0);
  ck_assert_msg(impetus("bench '" PENDULUM "' --steps 10 --solver pgs") == 0, "%s",
                imp_test_text_of(err_path));
  ck_assert_msg(strstr(imp_test_text_of(out_path), "\nsolver: pgs\n") != NULL, "%s", imp_test_text_of(out_path));
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 10 --solver=pgs"), 0);
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 10 --solver"), 2);
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10 --solver"), 2);

  /* check --contacts --solver: one more line after the contacts */
  const char* ball = write_ball_on_plane();
  char args[8800];
  snprintf(args, sizeof args, "check --contacts --solver pgs '%s'", ball);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  const char* out = imp_test_text_of(out_path);
  ck_assert_msg(strstr(out, "ncon: 1\n") != NULL, "%s", out);
  const char* line = strstr(out, "\nsolver: pgs iterations: ");
  ck_assert_msg(line != NULL, "%s", out);
  int iters = -1;
  char exit_name[32] = "";
  double residual = -1;
  ck_assert_int_eq(sscanf(line, "\nsolver: pgs iterations: %d exit: %31s residual: %lf", &iters,
                          exit_name, &residual), 3);
  ck_assert_int_ge(iters, 0);
  ck_assert(residual >= 0);
  ck_assert_int_eq(count_lines(out_path), 19 + 1 + 1);
  snprintf(args, sizeof args, "check --solver pgs '%s'", ball); /* needs --contacts */
  ck_assert_int_eq(impetus(args), 2);
}
END_TEST

START_TEST(unknown_solver_is_usage) {
  const char* recs[] = {imp_test_in_dir(dir, "s.csv"), imp_test_in_dir(dir, "s.npy")};
  for (int k = 0; k < 2; k++) {
    char args[8800];
    snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s' --record-solver --solver nosuch",
             PENDULUM, recs[k]);
    ck_assert_int_eq(impetus(args), 2);
    const char* err = imp_test_text_of(err_path);
    ck_assert_msg(strstr(err, "nosuch") && strstr(err, "todorov") && strstr(err, "pgs"),
                  "the message should list the known solvers: %s", err);
    assert_nothing_at(recs[k]);
  }
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 10 --solver nosuch"), 2);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  ck_assert(strstr(imp_test_text_of(err_path), "pgs") != NULL);
  ck_assert_int_eq(impetus("check --contacts --solver nosuch '" PENDULUM "'"), 2);
  ck_assert_str_eq(imp_test_text_of(out_path), "");
  /* --record-solver without a recording is bad usage too */
  ck_assert_int_eq(impetus("run '" PENDULUM "' --steps 10 --record-solver"), 2);
}
END_TEST

START_TEST(bench_prints_solver_figures) {
  const char* keys[] = {"solver_iterations_per_step", "newton_share", "solver_residual_max",
                        "constraint_rows_per_step", "islands_per_step", "solver_ns_per_step"};
  /* the pendulum: no rows, so the figures are zeros, except the timer */
  ck_assert_int_eq(impetus("bench '" PENDULUM "' --steps 20"), 0);
  const char* out = imp_test_text_of(out_path);
  ck_assert_msg(strstr(out, "\nsolver: todorov\n") != NULL, "%s", out);
  for (int i = 0; i < 5; i++) ck_assert_msg(key_number(out, keys[i]) == 0, "%s:\n%s", keys[i], out);
  ck_assert(key_number(out, "solver_ns_per_step") >= 0);
  ck_assert_int_eq(count_lines(out_path), 11 + 7 + 5 + 2); /* the old lines and the new ones */
  ck_assert_msg(key_number(out, "steps_over_budget") == 0, "%s", out);
  ck_assert_msg(key_number(out, "solver_work_per_step_max") == 0, "%s", out);
  ck_assert_msg(key_number(out, "steps_not_converged") == 0, "%s", out);
  ck_assert_msg(key_number(out, "island_iterations_max") == 0, "%s", out);

  /* the ball on the plane: 1 contact, 3 rows, 1 island on every step, any solver */
  const char* ball = write_ball_on_plane();
  const char* solvers[] = {"todorov", "pgs"};
  for (int s = 0; s < 2; s++) {
    char args[8800];
    snprintf(args, sizeof args, "bench '%s' --steps 20 --solver %s", ball, solvers[s]);
    ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
    out = imp_test_text_of(out_path);
    char want[64];
    snprintf(want, sizeof want, "\nsolver: %s\n", solvers[s]);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_msg(key_number(out, "contacts_per_step") == 1, "%s", out);
    ck_assert_msg(key_number(out, "constraint_rows_per_step") == 3, "%s", out);
    ck_assert_msg(key_number(out, "islands_per_step") == 1, "%s", out);
    double it = key_number(out, "solver_iterations_per_step");
    double share = key_number(out, "newton_share");
    ck_assert_msg(it >= 0 && share >= 0 && share <= 1, "%s", out);
    ck_assert(key_number(out, "solver_residual_max") >= 0);
    ck_assert(key_number(out, "solver_ns_per_step") >= 0);
    ck_assert(is_whole(20 * it)); /* a mean of 20 counts */
    ck_assert_msg(key_number(out, "steps_not_converged") == 0, "%s", out);
    double med = key_number(out, "island_iterations_median");
    double p90 = key_number(out, "island_iterations_p90");
    double max = key_number(out, "island_iterations_max");
    ck_assert_msg(med >= 0 && med <= p90 && p90 <= max && max <= 3 * 100 + 1, "%s", out);
    ck_assert_msg(max >= it, "%s", out); /* one island a step: its mean is at most the max */
  }
}
END_TEST

/* the 1-based number of the first line where a and b differ; 0 if none */
static int first_differing_line(const char* a, const char* b) {
  int line = 1;
  for (; *a && *a == *b; a++, b++) line += *a == '\n';
  return *a == *b ? 0 : line;
}

/* A recording made with islands on 3 threads is byte for byte the one made
   on 1 (imp_set_threads' promise, seen from the command line). */
START_TEST(run_threads_record_the_same) {
  const char* path = write_box_pairs("three_pairs.xml", "timestep='0.002'", 3);
  char args[8800];
  const char* one = imp_test_in_dir(dir, "one_thread.csv");
  const char* three = imp_test_in_dir(dir, "three_threads.csv");
  snprintf(args, sizeof args, "run '%s' --steps 40 --every 2 --record '%s' --record-solver", path, one);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  snprintf(args, sizeof args, "run '%s' --steps 40 --every 2 --record '%s' --record-solver --threads 3", path,
           three);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  char* a = strdup(imp_test_text_of(one));
  const char* b = imp_test_text_of(three);
  ck_assert(strlen(a) > 1000);
  ck_assert_msg(strcmp(a, b) == 0, "the recordings differ from line %d on", first_differing_line(a, b));
  free(a);
  snprintf(args, sizeof args, "run '%s' --steps 1 --threads 65", path);
  ck_assert_int_eq(impetus(args), 2);
}
END_TEST

/* Every step that did not converge is counted, by bench as by run, and
   bench's figures do not depend on the number of threads. Boxes pushed
   into each other with two iterations allowed cannot converge. */
START_TEST(bench_counts_unconverged_steps) {
  const char* path = write_box_pairs("two_iterations.xml", "iterations='2' tolerance='1e-12'", 3);
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 30", path);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  double run_nc = key_number(imp_test_text_of(out_path), "steps_not_converged");
  ck_assert_msg(run_nc > 0, "%s", imp_test_text_of(out_path));
  double first[6] = {0};
  const char* keys[] = {"steps_not_converged", "island_iterations_median", "island_iterations_p90",
                        "island_iterations_max", "solver_iterations_per_step", "islands_per_step"};
  for (int t = 1; t <= 3; t += 2) {
    snprintf(args, sizeof args, "bench '%s' --steps 30 --threads %d", path, t);
    ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
    const char* out = imp_test_text_of(out_path);
    for (int k = 0; k < 6; k++) {
      double v = key_number(out, keys[k]);
      if (t == 1) first[k] = v;
      ck_assert_msg(v == first[k], "%s with %d threads:\n%s", keys[k], t, out);
    }
    ck_assert_msg(key_number(out, "steps_not_converged") == run_nc, "%s", out);
    ck_assert_msg(key_number(out, "island_iterations_max") >= 2, "%s", out);
    ck_assert_msg(key_number(out, "islands_per_step") >= 2, "%s", out);
  }
  snprintf(args, sizeof args, "bench '%s' --steps 3 --threads 0", path);
  ck_assert_int_eq(impetus(args), 2);
  snprintf(args, sizeof args, "bench '%s' --steps 3 --threads 65", path);
  ck_assert_int_eq(impetus(args), 2);
}
END_TEST

/* The data lines of a CSV recording: the last four fields of each row. */
static int read_solver_columns(const char* path, double cols[][4], int maxrows, char* header,
                               size_t hsz) {
  FILE* f = fopen(path, "r");
  ck_assert_msg(f != NULL, "no %s", path);
  static char line[65536];
  ck_assert(fgets(line, sizeof line, f) != NULL);
  size_t hlen = strnlen(line, hsz - 1); /* cut to hsz - 1 as snprintf would, without gcc's warning */
  memcpy(header, line, hlen);
  header[hlen] = '\0';
  int rows = 0;
  while (fgets(line, sizeof line, f)) {
    ck_assert_int_lt(rows, maxrows);
    char* p = line + strlen(line);
    int commas = 0;
    while (p > line && commas < 4) commas += *--p == ',';
    ck_assert_int_eq(commas, 4);
    ck_assert_int_eq(sscanf(p, ",%lf,%lf,%lf,%lf", &cols[rows][0], &cols[rows][1],
                            &cols[rows][2], &cols[rows][3]), 4);
    rows++;
  }
  fclose(f);
  return rows;
}

START_TEST(record_solver_csv) {
  const char* ball = write_ball_on_plane();
  const char* rec = imp_test_in_dir(dir, "ball.csv");
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 10 --every 2 --record '%s' --record-solver", ball,
           rec);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  ck_assert(strstr(imp_test_text_of(out_path), "rows: 6\n") != NULL);
  double cols[8][4];
  char header[4096];
  ck_assert_int_eq(read_solver_columns(rec, cols, 8, header, sizeof header), 6);
  ck_assert_str_eq(header,
                   "time,qpos_0,qpos_1,qpos_2,qpos_3,qpos_4,qpos_5,qpos_6,"
                   "qvel_0,qvel_1,qvel_2,qvel_3,qvel_4,qvel_5,"
                   "ncon,nefc,solver_iter,solver_residual\n");
  for (int c = 0; c < 4; c++) ck_assert(cols[0][c] == 0); /* the initial row: no step yet */
  for (int r = 1; r < 6; r++) {
    ck_assert_msg(cols[r][0] == 1 && cols[r][1] == 3, "row %d: ncon %g nefc %g", r, cols[r][0],
                  cols[r][1]);
    ck_assert(cols[r][2] >= 0 && is_whole(cols[r][2]));
    ck_assert(cols[r][3] >= 0);
  }
  /* without the option, the old columns only */
  snprintf(args, sizeof args, "run '%s' --steps 10 --record '%s'", ball, rec);
  ck_assert_int_eq(impetus(args), 0);
  FILE* f = fopen(rec, "r");
  ck_assert(f != NULL);
  ck_assert(fgets(header, sizeof header, f) != NULL);
  fclose(f);
  ck_assert_msg(strstr(header, "ncon") == NULL && strstr(header, "qvel_5\n") != NULL, "%s",
                header);
  ck_assert_int_eq(count_lines(rec), 1 + 11);
}
END_TEST

START_TEST(record_solver_npy) {
  const char* rec = imp_test_in_dir(dir, "pend.npy");
  char args[8800];
  snprintf(args, sizeof args, "run '%s' --steps 7 --record '%s' --record-solver", PENDULUM, rec);
  ck_assert_msg(impetus(args) == 0, "%s", imp_test_text_of(err_path));
  struct stat st;
  ck_assert_int_eq(stat(rec, &st), 0);
  ck_assert_int_eq(st.st_size, 128 + 8 * 7 * 8); /* header, 8 rows of 7 doubles */
  char json[4400];
  snprintf(json, sizeof json, "%s.json", rec);
  const char* side = imp_test_text_of(json);
  ck_assert_msg(strstr(side, "\"columns\": [\"time\", \"qpos_0\", \"qvel_0\", \"ncon\", "
                             "\"nefc\", \"solver_iter\", \"solver_residual\"]") != NULL,
                "%s", side);
  ck_assert_msg(strstr(side, "\"rows\": 8") != NULL, "%s", side);
}
END_TEST

/* The PNG file at path: signature, and its IHDR width and height. */
static int png_size(const char* path, unsigned* w, unsigned* h) {
  unsigned char b[24];
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (n < 24 || memcmp(b, sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return -1;
  *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
  *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
  return 0;
}

/* The solvers --compare adds beside ours when built with Siconos
   (apps/compare/siconos_bridge.h); box_rest's condim-3 contacts are theirs too. */
#ifdef IMP_HAVE_SICONOS
static const char* const k_siconos[] = {"siconos_nsgs", "siconos_ac", "siconos_fb"};
enum { NSICONOS = 3 };
#else
static const char* const k_siconos[] = {""};
enum { NSICONOS = 0 };
#endif

/* index of a compared solver: ours, then Siconos' after them; -1 unknown */
static int compared_index(const char* name) {
  int s = imp_solver_find(name);
  for (int k = 0; s < 0 && k < NSICONOS; k++)
    if (!strcmp(name, k_siconos[k])) s = imp_solver_count() + k;
  return s;
}

/* impetus solvers --compare on a small model: both CSVs with their headers,
   one iterations.csv row per (problem, solver, iteration) numbered 1, 2, ...
   (or a single row 0 for a solve without iterations), finite residuals,
   one summary row per solver (Siconos' included when built), and two
   900 x 600 PNGs. */
START_TEST(solvers_compare_writes_csv_and_png) {
  char args[8192];
  const char* out = imp_test_in_dir(dir, "cmp");
  snprintf(args, sizeof args,
           "solvers --compare --steps 20 --max-problems 3 '%s' --out '%s'",
           IMP_MODELS_DIR "/box_rest.xml", out);
  ck_assert_int_eq(impetus(args), 0);
  const char* it_path = imp_test_in_dir(dir, "cmp/iterations.csv");
  FILE* f = fopen(it_path, "r");
  ck_assert_msg(f != NULL, "%s missing", it_path);
  char line[1024];
  ck_assert(fgets(line, sizeof line, f) != NULL);
  ck_assert_str_eq(line, "scene,problem,n,solver,iter,time_s,residual_rel\n");
  int ns = imp_solver_count() + NSICONOS, rows = 0;
  int last_iter[3][16];
  for (int q = 0; q < 3; q++)
    for (int s = 0; s < 16; s++) last_iter[q][s] = -1;
  int seen_problem[3] = {0, 0, 0};
  while (fgets(line, sizeof line, f)) {
    char scene[64], solver[64];
    int prob, n, iter;
    double t, r;
    ck_assert_msg(sscanf(line, "%63[^,],%d,%d,%63[^,],%d,%lf,%lf", scene, &prob, &n, solver, &iter,
                         &t, &r) == 7, "bad row: %s", line);
    ck_assert_str_eq(scene, "box_rest");
    ck_assert_msg(prob >= 0 && prob < 3, "problem %d", prob);
    ck_assert_int_eq(n, 12); /* four corner contacts, condim 3 */
    int s = compared_index(solver);
    ck_assert_msg(s >= 0 && s < 16, "unknown solver %s", solver);
    ck_assert_msg(isfinite(r) && r >= 0, "residual %g in: %s", r, line);
    ck_assert_msg(isfinite(t) && t >= 0, "time %g in: %s", t, line);
    /* consecutive iterations per (problem, solver): 1, 2, ... or a lone 0 */
    int prev = last_iter[prob][s];
    ck_assert_msg(prev == -1 ? (iter == 0 || iter == 1) : (prev > 0 && iter == prev + 1),
                  "iteration %d after %d: %s", iter, prev, line);
    last_iter[prob][s] = iter;
    seen_problem[prob] = 1;
    rows++;
  }
  fclose(f);
  ck_assert_msg(seen_problem[0] && seen_problem[1] && seen_problem[2], "3 problems expected");
  for (int q = 0; q < 3; q++)
    for (int s = 0; s < ns && s < 16; s++)
      ck_assert_msg(last_iter[q][s] >= 0, "no rows for problem %d, solver %d", q, s);
  ck_assert_int_gt(rows, 0);
  const char* sum_path = imp_test_in_dir(dir, "cmp/summary.csv");
  ck_assert_int_eq(count_lines(sum_path), 1 + ns);
  ck_assert_msg(strncmp(imp_test_text_of(sum_path),
                        "scene,solver,problems,median_iterations,median_time_s,"
                        "median_final_residual,converged_share,target_residual,reached_share,"
                        "median_time_to_target_s,median_best_residual\n", 167) == 0,
                "%s", imp_test_text_of(sum_path));
  const char* pngs[2] = {"cmp/box_rest_work_precision.png", "cmp/box_rest_convergence.png"};
  for (int k = 0; k < 2; k++) {
    unsigned w = 0, h = 0;
    ck_assert_msg(png_size(imp_test_in_dir(dir, pngs[k]), &w, &h) == 0, "%s is not a PNG", pngs[k]);
    ck_assert_uint_eq(w, 900);
    ck_assert_uint_eq(h, 600);
  }
  /* --no-siconos: our solvers only, one summary row each */
  snprintf(args, sizeof args,
           "solvers --compare --no-siconos --steps 20 --max-problems 1 '%s' --out '%s'",
           IMP_MODELS_DIR "/box_rest.xml", imp_test_in_dir(dir, "cmp_ours"));
  ck_assert_int_eq(impetus(args), 0);
  ck_assert_int_eq(count_lines(imp_test_in_dir(dir, "cmp_ours/summary.csv")), 1 + imp_solver_count());
  /* bad usage writes nothing */
  ck_assert_int_eq(impetus("solvers --compare --steps 0"), 2);
  ck_assert_int_eq(impetus("solvers --compare --frobnicate"), 2);
}
END_TEST

static Suite* cli_suite(void) {
  Suite* s = suite_create("cli");
  TCase* tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, solvers_lists_registry);
  tcase_add_test(tc, solver_option_accepted);
  tcase_add_test(tc, unknown_solver_is_usage);
  tcase_add_test(tc, bench_prints_solver_figures);
  tcase_add_test(tc, bench_counts_unconverged_steps);
  tcase_add_test(tc, run_threads_record_the_same);
  tcase_add_test(tc, record_solver_csv);
  tcase_add_test(tc, record_solver_npy);
  tcase_add_test(tc, solvers_compare_writes_csv_and_png);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(cli_suite()); }
