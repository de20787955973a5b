/* Trajectories for impetus replay: what the recorder writes reads back
   exactly (with or without the solver columns), rows are found by time,
   and a file that does not fit the model or is malformed is refused with
   its file and line. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "record.h"
#include "test_util.h"
#include "trajectory.h"

static void tmp_path(char* out, size_t n, const char* name) {
  snprintf(out, n, "%s/viewer_traj_%s", IMP_TEST_TMPDIR, name);
}

/* Record steps steps of model to path (flags: record.h); the final time. */
static double record(const imp_model* m, const char* path, int steps, int flags, double* qpos_end) {
  char err[1000] = "";
  imp_data* d = imp_make_data(m);
  imp_recorder* r = imp_recorder_open_flags(path, m, flags, err, sizeof err);
  ck_assert_msg(r != NULL, "%s", err);
  ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
  for (int i = 0; i < steps; i++) {
    imp_step(m, d);
    ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
  }
  ck_assert_int_eq(imp_recorder_close(r, err, sizeof err), 0);
  double t = d->time;
  memcpy(qpos_end, d->qpos, sizeof(double) * m->nq);
  imp_free_data(d);
  return t;
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs(text, f);
  fclose(f);
}

START_TEST(recorded_rows_read_back_exactly) {
  imp_model* m = imp_test_load_model("double_pendulum.xml");
  char path[1200], err[1000] = "";
  double qend[16];
  for (int flags = 0; flags <= IMP_RECORD_SOLVER; flags++) {
    tmp_path(path, sizeof path, flags ? "solver.csv" : "plain.csv");
    double tend = record(m, path, 50, flags, qend);
    imp_trajectory* t = imp_trajectory_load(path, m, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(t->nrow, 51);
    ck_assert_int_eq(t->solver_cols, flags);
    imp_data* d = imp_make_data(m);
    imp_trajectory_apply(t, 50, m, d);
    ck_assert(d->time == tend); /* %.17g round-trips */
    for (int i = 0; i < m->nq; i++) ck_assert(d->qpos[i] == qend[i]);
    /* the row shown at a time is the last one not after it */
    double h = m->opt.timestep;
    ck_assert_int_eq(imp_trajectory_row_at(t, -1), 0);
    ck_assert_int_eq(imp_trajectory_row_at(t, 10.5 * h), 10);
    ck_assert_int_eq(imp_trajectory_row_at(t, 1e9), 50);
    imp_free_data(d);
    imp_trajectory_free(t);
  }
  imp_free_model(m);
}
END_TEST

START_TEST(a_trajectory_of_another_model_is_refused) {
  imp_model* m = imp_test_load_model("double_pendulum.xml");
  imp_model* other = imp_test_load_model("pendulum.xml");
  char path[1200], err[1000] = "", want[1300];
  double qend[16];
  tmp_path(path, sizeof path, "other.csv");
  record(other, path, 3, 0, qend);
  ck_assert(imp_trajectory_load(path, m, err, sizeof err) == NULL);
  snprintf(want, sizeof want, "%s:1: ", path);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && strstr(err, "the model needs"), "%s", err);
  imp_free_model(other);
  imp_free_model(m);
}
END_TEST

START_TEST(malformed_files_name_the_line) {
  imp_model* m = imp_test_load_model("pendulum.xml");
  ck_assert_int_eq(m->nq, 1);
  char path[1200], err[1000] = "", want[1300];
  tmp_path(path, sizeof path, "bad.csv");
  struct { const char* text; const char* where; const char* what; } cases[] = {
      {"time,qpos_0,qvel_0\n0,0.1,0\n0.001,x,0\n", ":3: ", "not a finite number"},
      {"time,qpos_0,qvel_0\n0,0.1\n", ":2: ", "2 values, expected 3"},
      {"time,qpos_0,qvel_0\n0,0.1,0,7\n", ":2: ", "more than 3 values"},
      {"time,qpos_0,qvel_0\n", ":2: ", "no rows"},
      {"", ":1: ", "empty"},
      {"a,b,c\n1,2,3\n", ":1: ", "header must start with 'time'"},
      {"time,qpos_0,qvel_0\n0,nan,0\n", ":2: ", "not a finite number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_file(path, cases[i].text);
    ck_assert(imp_trajectory_load(path, m, err, sizeof err) == NULL);
    snprintf(want, sizeof want, "%s%s", path, cases[i].where);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && strstr(err, cases[i].what),
                  "case %zu: %s", i, err);
  }
  tmp_path(path, sizeof path, "missing.csv");
  remove(path);
  ck_assert(imp_trajectory_load(path, m, err, sizeof err) == NULL);
  ck_assert(strstr(err, path) != NULL);
  imp_free_model(m);
}
END_TEST

/* The NPY a run records reads back as the very same rows as its CSV, with
   or without the solver columns. */
START_TEST(npy_recordings_read_back_like_csv) {
  imp_model* m = imp_test_load_model("double_pendulum.xml");
  char csv[1200], npy[1200], err[1000] = "";
  double qend[16];
  for (int flags = 0; flags <= IMP_RECORD_SOLVER; flags++) {
    tmp_path(csv, sizeof csv, flags ? "same_solver.csv" : "same.csv");
    tmp_path(npy, sizeof npy, flags ? "same_solver.npy" : "same.npy");
    record(m, csv, 40, flags, qend);
    double tend = record(m, npy, 40, flags, qend);
    imp_trajectory* a = imp_trajectory_load(csv, m, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    imp_trajectory* b = imp_trajectory_load(npy, m, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    ck_assert_int_eq(b->nrow, 41);
    ck_assert_int_eq(b->ncol, a->ncol);
    ck_assert_int_eq(b->solver_cols, flags);
    ck_assert(memcmp(a->data, b->data, sizeof(double) * (size_t)a->nrow * a->ncol) == 0);
    imp_data* d = imp_make_data(m);
    imp_trajectory_apply(b, 40, m, d);
    ck_assert(d->time == tend);
    for (int i = 0; i < m->nq; i++) ck_assert(d->qpos[i] == qend[i]);
    imp_free_data(d);
    imp_trajectory_free(a);
    imp_trajectory_free(b);
  }
  imp_free_model(m);
}
END_TEST

/* An NPY without its sidecar, of another model, or cut short is refused,
   naming the file at fault. */
START_TEST(bad_npy_recordings_are_refused) {
  imp_model* m = imp_test_load_model("double_pendulum.xml");
  imp_model* other = imp_test_load_model("pendulum.xml");
  char npy[1200], json[1300], cmd[4000], err[1000] = "";
  double qend[16];
  tmp_path(npy, sizeof npy, "bad.npy");
  snprintf(json, sizeof json, "%s.json", npy);
  record(m, npy, 10, 0, qend);
  ck_assert(imp_trajectory_load(npy, other, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, json) && strstr(err, "the model needs"), "%s", err);
  snprintf(cmd, sizeof cmd, "truncate -s -8 '%s'", npy); /* the last value gone */
  ck_assert_int_eq(system(cmd), 0);
  ck_assert(imp_trajectory_load(npy, m, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, "fewer values"), "%s", err);
  remove(json);
  ck_assert(imp_trajectory_load(npy, m, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, json) && strstr(err, "cannot be read"), "%s", err);
  imp_free_model(other);
  imp_free_model(m);
}
END_TEST

START_TEST(a_reset_in_the_recording_takes_no_playback_time) {
  imp_model* m = imp_test_load_model("pendulum.xml");
  char path[1200], err[1000] = "";
  tmp_path(path, sizeof path, "reset.csv");
  write_file(path, "time,qpos_0,qvel_0\n0,0,0\n0.5,1,0\n1,2,0\n0,3,0\n0.5,4,0\n");
  imp_trajectory* t = imp_trajectory_load(path, m, err, sizeof err);
  ck_assert_msg(t != NULL, "%s", err);
  /* the clock runs 0, 0.5, 1, 1, 1.5: rows are found in order */
  imp_assert_near(imp_trajectory_clock(t, 3), 1.0, 0);
  imp_assert_near(imp_trajectory_clock(t, 4), 1.5, 0);
  ck_assert_int_eq(imp_trajectory_row_at(t, 0.7), 1);
  ck_assert_int_eq(imp_trajectory_row_at(t, 1.2), 3);
  ck_assert_int_eq(imp_trajectory_row_at(t, 1.5), 4);
  imp_data* d = imp_make_data(m);
  imp_trajectory_apply(t, 3, m, d);
  ck_assert(d->time == 0 && d->qpos[0] == 3); /* the state shown is as recorded */
  imp_free_data(d);
  imp_trajectory_free(t);
  imp_free_model(m);
}
END_TEST

/* A recording of a model with mocap bodies and sensors (run --record, CSV
   or NPY) replays the mocap bodies where they were: the rows carry their
   poses and applying a row puts the body there; the sensor columns are
   read past. One with the mocap columns missing is refused. */
START_TEST(mocap_bodies_replay_where_they_were_recorded) {
  imp_model* m = imp_test_load_string(
      "<mujoco><worldbody><body name='hand' mocap='true' pos='0 0 1'>"
      "<geom size='.1' contype='0' conaffinity='0'/></body>"
      "<body><joint name='j' type='hinge' axis='0 1 0'/><geom size='.1' pos='0 0 -1'/></body>"
      "</worldbody><sensor><jointpos name='angle' joint='j'/></sensor></mujoco>");
  int hand = imp_test_id(m, IMP_OBJ_BODY, "hand");
  for (int npy = 0; npy < 2; npy++) {
    char path[1200], err[1000] = "";
    tmp_path(path, sizeof path, npy ? "mocap.npy" : "mocap.csv");
    imp_data* d = imp_make_data(m);
    imp_recorder* r = imp_recorder_open(path, m, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    for (int i = 0; i < 20; i++) {
      d->mocap_pos[0] = 0.1 * i; /* the hand slides along x, turning about z */
      d->mocap_quat[0] = cos(0.05 * i);
      d->mocap_quat[3] = sin(0.05 * i);
      imp_step(m, d);
      ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
    }
    ck_assert_int_eq(imp_recorder_close(r, err, sizeof err), 0);
    imp_trajectory* t = imp_trajectory_load(path, m, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(t->nmocap, 1);
    imp_data* e = imp_make_data(m);
    imp_trajectory_apply(t, 7, m, e);
    double x[3] = {0.1 * 7, 0, 1}, q[4] = {cos(0.05 * 7), 0, 0, sin(0.05 * 7)};
    imp_assert_vec_near(e->mocap_pos, x, 3, 0);
    imp_assert_vec_near(e->mocap_quat, q, 4, 0);
    imp_assert_vec_near(e->xpos + 3 * hand, x, 3, 1e-15);
    imp_assert_vec_near(e->xquat + 4 * hand, q, 4, 1e-15);
    imp_free_data(e);
    imp_free_data(d);
    imp_trajectory_free(t);
  }
  char path[1200], err[1000] = "";
  tmp_path(path, sizeof path, "nomocap.csv");
  write_file(path, "time,qpos_0,qvel_0,sensor_angle\n0,0,0,0\n");
  ck_assert(imp_trajectory_load(path, m, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, ":1:") && strstr(err, "0 mocap columns") &&
                    strstr(err, "need 7"),
                "%s", err);
  imp_free_model(m);
}
END_TEST

/* A model with activations and sensors records act and sensor columns
   after ctrl; the trajectory reads back in both formats and a row puts its
   activations back into the data. */
START_TEST(act_and_sensor_columns_read_back) {
  imp_model* m = imp_test_load_string_nowarn(
      "<mujoco><worldbody><body><joint name='j' axis='0 1 0'/>"
      "<geom type='capsule' fromto='0 0 0 0 0 -1' size='.05'/></body></worldbody>"
      "<actuator><general name='f' joint='j' dyntype='filter' dynprm='0.05'/></actuator>"
      "<sensor><jointpos joint='j'/><actuatorfrc actuator='f'/></sensor></mujoco>");
  static const char* const names[] = {"act.csv", "act.npy"};
  for (int k = 0; k < 2; k++) {
    char path[1200], err[1000] = "";
    tmp_path(path, sizeof path, names[k]);
    imp_data* d = imp_make_data(m);
    d->ctrl[0] = 0.8;
    imp_recorder* r = imp_recorder_open_flags(path, m, k ? 0 : IMP_RECORD_SOLVER, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    for (int i = 0; i < 20; i++) {
      imp_step(m, d);
      ck_assert_int_eq(imp_recorder_write(r, m, d), 0);
    }
    ck_assert_int_eq(imp_recorder_close(r, err, sizeof err), 0);
    imp_trajectory* t = imp_trajectory_load(path, m, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(t->na, 1);
    ck_assert_int_eq(t->solver_cols, !k);
    imp_data* e = imp_make_data(m);
    imp_trajectory_apply(t, 19, m, e);
    ck_assert(d->act[0] > 0.3); /* 0.8 (1 - 0.96^20) */
    ck_assert(e->act[0] == d->act[0]);
    ck_assert(e->qpos[0] == d->qpos[0]);
    imp_free_data(e);
    imp_free_data(d);
    imp_trajectory_free(t);
    remove(path);
    if (k) {
      strcat(path, ".json");
      remove(path);
    }
  }
  imp_free_model(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("viewer_trajectory");
  TCase* tc = tcase_create("viewer_trajectory");
  tcase_add_test(tc, recorded_rows_read_back_exactly);
  tcase_add_test(tc, a_trajectory_of_another_model_is_refused);
  tcase_add_test(tc, malformed_files_name_the_line);
  tcase_add_test(tc, a_reset_in_the_recording_takes_no_playback_time);
  tcase_add_test(tc, npy_recordings_read_back_like_csv);
  tcase_add_test(tc, bad_npy_recordings_are_refused);
  tcase_add_test(tc, mocap_bodies_replay_where_they_were_recorded);
  tcase_add_test(tc, act_and_sensor_columns_read_back);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
