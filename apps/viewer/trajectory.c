/* Reading a recorded CSV or NPY trajectory (see trajectory.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trajectory.h"
#include "trajectory_npy.h"

/* Count the header's columns named prefix + digits. */
static int count_prefix(const char* header, const char* prefix) {
  int n = 0;
  size_t len = strlen(prefix);
  for (const char* p = header; p; p = strchr(p, ',')) {
    if (*p == ',') p++;
    if (strncmp(p, prefix, len) == 0) n++;
  }
  return n;
}

/* Check the header names time, then nq qpos, nv qvel, nu ctrl columns,
   the model's na act columns or none, 7 per mocap body of m, any sensor
   columns (not replayed: imp_forward recomputes them), and maybe the
   solver's four. Returns the column count, -1 with a message. */
static int check_header(const char* path, char* header, const imp_model* m, int* solver_cols,
                        int* na, char* err, int errsz) {
  header[strcspn(header, "\r\n")] = '\0';
  int ncol = 1;
  for (const char* p = header; *p; p++) ncol += *p == ',';
  int nq = count_prefix(header, "qpos_"), nv = count_prefix(header, "qvel_");
  int nu = count_prefix(header, "ctrl_"), nmocap = count_prefix(header, "mocap");
  int nact = count_prefix(header, "act"), nsens = count_prefix(header, "sensor");
  if (strncmp(header, "time,", 5) != 0 && strcmp(header, "time") != 0) {
    snprintf(err, errsz, "%s:1: not a recorded trajectory (the header must start with 'time')", path);
    return -1;
  }
  if (nq != m->nq || nv != m->nv || nu != m->nu) {
    snprintf(err, errsz,
             "%s:1: the trajectory has %d qpos, %d qvel, %d ctrl columns; the model needs %d, %d, %d",
             path, nq, nv, nu, m->nq, m->nv, m->nu);
    return -1;
  }
  if (nact != 0 && nact != m->na) {
    snprintf(err, errsz, "%s:1: the trajectory has %d act columns; the model has %d activations",
             path, nact, m->na);
    return -1;
  }
  *na = nact;
  if (nmocap != 7 * m->nmocap) {
    snprintf(err, errsz,
             "%s:1: the trajectory has %d mocap columns; the model's %d mocap bodies need %d",
             path, nmocap, m->nmocap, 7 * m->nmocap);
    return -1;
  }
  int base = 1 + nq + nv + nu + nact + nmocap + nsens;
  *solver_cols = ncol == base + 4;
  if (ncol != base && !*solver_cols) {
    snprintf(err, errsz, "%s:1: %d columns, expected %d (or 4 more solver columns)", path, ncol,
             base);
    return -1;
  }
  return ncol;
}

/* Parse one data line into row[ncol]; 0, or -1 with "path:line: why". */
static int parse_row(const char* path, int lineno, char* line, double* row, int ncol, char* err,
                     int errsz) {
  char* p = line;
  for (int c = 0; c < ncol; c++) {
    char* end = NULL;
    errno = 0;
    row[c] = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(row[c])) {
      snprintf(err, errsz, "%s:%d: column %d is not a finite number", path, lineno, c + 1);
      return -1;
    }
    p = end;
    if (c + 1 < ncol && *p++ != ',') {
      snprintf(err, errsz, "%s:%d: %d values, expected %d", path, lineno, c + 1, ncol);
      return -1;
    }
  }
  if (*p != '\0' && *p != '\n' && *p != '\r') {
    snprintf(err, errsz, "%s:%d: more than %d values", path, lineno, ncol);
    return -1;
  }
  return 0;
}

/* Append a row slot, growing the array geometrically. */
static double* grow(imp_trajectory* t, int* cap) {
  if (t->nrow == *cap) {
    int ncap = *cap ? 2 * *cap : 256;
    double* nd = realloc(t->data, sizeof(double) * (size_t)ncap * t->ncol);
    if (!nd) return NULL;
    t->data = nd, *cap = ncap;
  }
  return t->data + (size_t)t->nrow++ * t->ncol;
}

/* The playback clock: recorded time, except that a step back in time (the
   data was reset: Backspace while recording, a non-finite state in `impetus
   run`) takes no time, so the clock never decreases and rows can be found
   by a binary search. */
static int make_clock(imp_trajectory* t) {
  t->clock = malloc(sizeof(double) * (size_t)t->nrow);
  if (!t->clock) return -1;
  t->clock[0] = t->data[0];
  for (int i = 1; i < t->nrow; i++) {
    double dt = imp_trajectory_time(t, i) - imp_trajectory_time(t, i - 1);
    t->clock[i] = t->clock[i - 1] + (dt > 0 ? dt : 0);
  }
  return 0;
}

/* Every line after the header into t, growing its storage. */
static int read_rows(FILE* f, const char* path, imp_trajectory* t, char* err, int errsz) {
  char* line = NULL;
  size_t n = 0;
  int lineno = 1, cap = 0, status = 0;
  while (status == 0 && getline(&line, &n, f) > 0) {
    lineno++;
    if (line[strspn(line, " \r\n")] == '\0') continue; /* a blank last line */
    double* row = grow(t, &cap);
    if (!row) {
      snprintf(err, errsz, "%s: out of memory", path);
      status = -1;
    } else {
      status = parse_row(path, lineno, line, row, t->ncol, err, errsz);
    }

  }
  free(line);
  if (status == 0 && t->nrow > 0 && make_clock(t) != 0) {
    snprintf(err, errsz, "%s: out of memory", path);
    status = -1;
  }
  if (status == 0 && t->nrow == 0) {
    snprintf(err, errsz, "%s:2: no rows after the header", path);
    status = -1;
  }
  return status;
}

/* Every value finite, as the CSV reader demands of each number it parses. */
static int check_finite(const char* path, const imp_trajectory* t, char* err, int errsz) {
  for (int i = 0; i < t->nrow; i++)
    for (int c = 0; c < t->ncol; c++)
      if (!isfinite(t->data[(size_t)i * t->ncol + c])) {
        snprintf(err, errsz, "%s: row %d, column %d is not a finite number", path, i + 1, c + 1);
        return -1;
      }
  return 0;
}

/* An NPY recording: the sidecar's column names checked against m as a CSV
   header would be, then the matrix, as wide as the names say. */
static int read_npy(const char* path, const imp_model* m, imp_trajectory* t, char* err,
                    int errsz) {
  char *header = NULL, sidecar[4200];
  snprintf(sidecar, sizeof sidecar, "%s.json", path);
  if (imp_npy_sidecar_header(path, &header, err, errsz) != 0) return -1;
  t->ncol = check_header(sidecar, header, m, &t->solver_cols, &t->na, err, errsz);
  free(header);
  if (t->ncol <= 0) return -1;
  int cols = 0;
  if (imp_npy_read_f8_matrix(path, &t->data, &t->nrow, &cols, err, errsz) != 0) return -1;
  if (cols != t->ncol) {
    snprintf(err, errsz, "%s: %d columns, but %s names %d", path, cols, sidecar, t->ncol);
    return -1;
  }
  if (check_finite(path, t, err, errsz) != 0) return -1;
  if (make_clock(t) != 0) {
    snprintf(err, errsz, "%s: out of memory", path);
    return -1;
  }
  return 0;
}

/* The recording format is told by content: NPY's magic, else CSV text. */
static imp_trajectory* load_npy(const char* path, const imp_model* m, char* err, int errsz) {
  imp_trajectory* t = calloc(1, sizeof *t);
  if (!t) {
    snprintf(err, errsz, "%s: out of memory", path);
    return NULL;
  }
  t->nq = m->nq, t->nv = m->nv, t->nu = m->nu, t->nmocap = m->nmocap;
  if (read_npy(path, m, t, err, errsz) != 0) {
    imp_trajectory_free(t);
    return NULL;
  }
  return t;
}

/* Header checked against m, then the rows, then the playback clock. */
imp_trajectory* imp_trajectory_load(const char* path, const imp_model* m, char* err, int errsz) {
  FILE* f = fopen(path, "r");
  if (!f) {
    snprintf(err, errsz, "%s: %s", path, strerror(errno));
    return NULL;
  }
  if (imp_npy_is_npy(f)) {
    fclose(f);
    return load_npy(path, m, err, errsz);
  }
  imp_trajectory* t = calloc(1, sizeof *t);
  char* header = NULL;
  size_t n = 0;
  int ok = t != NULL;
  if (ok && getline(&header, &n, f) <= 0) {
    snprintf(err, errsz, "%s:1: empty file", path);
    ok = 0;
  }
  if (ok) {
    t->ncol = check_header(path, header, m, &t->solver_cols, &t->na, err, errsz);
    t->nq = m->nq, t->nv = m->nv, t->nu = m->nu, t->nmocap = m->nmocap;
    ok = t->ncol > 0 && read_rows(f, path, t, err, errsz) == 0;
  }
  free(header);
  fclose(f);
  if (!ok) {
    imp_trajectory_free(t);
    return NULL;
  }
  return t;
}

/* Free t and its rows; NULL is allowed. */
void imp_trajectory_free(imp_trajectory* t) {
  if (!t) return;
  free(t->data);
  free(t->clock);
  free(t);
}

/* Column 0 of row i. */
double imp_trajectory_time(const imp_trajectory* t, int i) {
  return t->data[(size_t)i * t->ncol];
}

int imp_trajectory_solver(const imp_trajectory* t, int i, double out[4]) {
  if (!t->solver_cols) return 0;
  /* the solver columns come last (engine/record.h) */
  memcpy(out, t->data + (size_t)i * t->ncol + t->ncol - 4, 4 * sizeof(double));
  return 1;
}

/* The playback clock of row i (make_clock). */
double imp_trajectory_clock(const imp_trajectory* t, int i) {
  return t->clock[i];
}

/* The last row whose clock is not after clock. */
int imp_trajectory_row_at(const imp_trajectory* t, double clock) {
  int lo = 0, hi = t->nrow - 1;
  if (clock <= t->clock[0]) return 0;
  while (lo < hi) { /* invariant: clock[lo] <= clock */
    int mid = (lo + hi + 1) / 2;
    if (t->clock[mid] <= clock) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Copy row i into the state and recompute everything derived from it. */
void imp_trajectory_apply(const imp_trajectory* t, int i, const imp_model* m, imp_data* d) {
  if (i < 0) i = 0;
  if (i >= t->nrow) i = t->nrow - 1;
  const double* row = t->data + (size_t)i * t->ncol;
  d->time = row[0];
  memcpy(d->qpos, row + 1, sizeof(double) * (size_t)t->nq);
  memcpy(d->qvel, row + 1 + t->nq, sizeof(double) * (size_t)t->nv);
  memcpy(d->ctrl, row + 1 + t->nq + t->nv, sizeof(double) * (size_t)t->nu);
  if (t->na) memcpy(d->act, row + 1 + t->nq + t->nv + t->nu, sizeof(double) * (size_t)t->na);
  const double* mocap = row + 1 + t->nq + t->nv + t->nu + t->na;
  for (int k = 0; k < t->nmocap; k++) {
    memcpy(d->mocap_pos + 3 * k, mocap + 7 * k, 3 * sizeof(double));
    memcpy(d->mocap_quat + 4 * k, mocap + 7 * k + 3, 4 * sizeof(double));
  }
  imp_forward(m, d);
}
