/* Trajectory recording to CSV or NPY files (see record.h).
 *
 * A recording is complete or absent: rows go to a temporary file of its
 * own beside path ("<path>.XXXXXX.tmp", tmpfile.h: created new, never
 * through a link, so two runs to one path do not share it and a link
 * planted there is not followed), flushed after every row so a crash loses
 * at most the row being written, and imp_recorder_close fsyncs it and
 * renames it over path (rename is atomic on POSIX file systems). The data
 * and its sidecar are renamed under a lock of the directory, so two
 * recordings to one path leave the data and the sidecar of one of them. Everything a row needs is allocated in
 * imp_recorder_open, so writing a row never calls malloc.
 *
 * NPY format, version 1.0: the magic "\x93NUMPY", the version bytes 1 0, the
 * header length as a little-endian uint16, then a Python dict literal padded
 * with spaces and ended by '\n' so that magic + version + length + dict is a
 * multiple of 64 bytes. The number of rows is only known at the end, so the
 * header is written first with the row count padded to the widest one a
 * long long can hold, and rewritten in place (same length) at close. */
#define _POSIX_C_SOURCE 200809L

#include "engine.h"
#include "record.h"
#include "io/record_internal.h"
#include "io/tmpfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { REC_CSV = 0, REC_NPY = 1 };

/* the optional solver columns, in order (IMP_RECORD_SOLVER) */
static const char* const solver_columns[] = {"ncon", "nefc", "solver_iter", "solver_residual"};
#define NSOLVERCOL ((int)(sizeof solver_columns / sizeof solver_columns[0]))

/* bytes before the dict in an NPY v1.0 file: magic (6), version (2), length (2) */
#define NPY_PREFIX 10
/* the widest row count a long long can print as */
#define NPY_ROWS_WIDTH 20

struct imp_recorder {
  FILE* f;               /* the temporary file */
  char* path;            /* final name */
  char* tmppath;         /* the temporary file, "<path>.XXXXXX.tmp" */
  int format;            /* REC_CSV or REC_NPY */
  int nq, nv, nu;        /* sizes of the model the recorder was opened for */
  int na;                /* activation columns: na */
  int nmocap;            /* mocap bodies: 7 columns each (pos, quat) */
  int nsens;             /* sensor columns: nsensordata */
  int nstat;             /* solver columns: NSOLVERCOL with IMP_RECORD_SOLVER, else 0 */
  int ncol;              /* 1 + nq + nv + nu + na + 7 nmocap + nsens + nstat */
  char** names;          /* ncol column names, in one allocation with their text */
  char** desc;           /* ncol column descriptions, the same way (record_describe.c) */
  /* imp_recorder_set_info, for the sidecar (NULL / -1: not told) */
  char* info_model;
  char* info_solver;
  char* info_ctrl;
  long long info_steps, info_every;
  double timestep;       /* m->opt.timestep at open, for the sidecar */
  long long rows;        /* rows written */
  int failed;            /* an I/O error happened: close removes the file */
  int header_len;        /* NPY: total header bytes, a multiple of 64 */
  double* row;           /* ncol: the row being written */
  unsigned char* bytes;  /* NPY: 8 * ncol little-endian bytes of a row */
};

/* s followed by suffix, in a fresh allocation (NULL when out of memory) */
static char* concat(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  char* r = malloc(a + b + 1);
  if (!r) return NULL;
  memcpy(r, s, a);
  memcpy(r + a, suffix, b + 1);
  return r;
}

/* REC_CSV or REC_NPY from the extension of path (case-insensitive), or -1 */
static int format_of(const char* path) {
  const char* dot = strrchr(path, '.');
  const char* slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash) || dot == path || dot[-1] == '/') return -1;
  if (strcasecmp(dot, ".csv") == 0) return REC_CSV;
  if (strcasecmp(dot, ".npy") == 0) return REC_NPY;
  return -1;
}

/* Name of activation column k into buf: act_NAME after its actuator
   (act_NAME_J for activation J of several), actU for an unnamed actuator U. */
static int act_column_name(const imp_model* m, int k, char* buf, size_t n) {
  int u = 0;
  while (u + 1 < m->nu && !(m->actuator_actnum[u] && k >= m->actuator_actadr[u] &&
                            k < m->actuator_actadr[u] + m->actuator_actnum[u]))
    u++;
  const char* name = m->names + m->name_actuatoradr[u];
  int j = k - m->actuator_actadr[u], several = m->actuator_actnum[u] > 1;
  if (name[0])
    return several ? snprintf(buf, n, "act_%s_%d", name, j) : snprintf(buf, n, "act_%s", name);
  return several ? snprintf(buf, n, "act%d_%d", u, j) : snprintf(buf, n, "act%d", u);
}

/* Name of mocap value k (body k / 7: position 0..2, then quaternion 0..3). */
static int mocap_column_name(const imp_model* m, int k, char* buf, size_t n) {
  int id = k / 7, j = k % 7, b = 0;
  while (b < m->nbody && m->body_mocapid[b] != id) b++;
  const char* name = b < m->nbody ? m->names + m->name_bodyadr[b] : "";
  const char* what = j < 3 ? "pos" : "quat";
  int idx = j < 3 ? j : j - 3;
  return name[0] ? snprintf(buf, n, "mocap_%s_%s_%d", name, what, idx)
                 : snprintf(buf, n, "mocap%d_%s_%d", id, what, idx);
}

/* Name of column c ("time", "qpos_3", "sensor_imu_acc_0" ...) into buf, n
   bytes (n 0: only measured); returns its length. Sensor columns are named
   after their sensor: sensor_NAME for one value, sensor_NAME_K for value K
   of several; an unnamed sensor I is sensorI. Mocap columns are named
   after their bodies: mocap_NAME_pos_K, mocap_NAME_quat_K (mocapI_... for
   an unnamed mocap body I). */
static size_t column_name(const imp_recorder* r, const imp_model* m, int c, char* buf,
                          size_t n) {
  int k = c - 1 - r->nq - r->nv - r->nu - r->na - 7 * r->nmocap;
  int w;
  if (c == 0) {
    w = snprintf(buf, n, "time");
  } else if (c <= r->nq) {
    w = snprintf(buf, n, "qpos_%d", c - 1);
  } else if (c <= r->nq + r->nv) {
    w = snprintf(buf, n, "qvel_%d", c - 1 - r->nq);
  } else if (c <= r->nq + r->nv + r->nu) {
    w = snprintf(buf, n, "ctrl_%d", c - 1 - r->nq - r->nv);
  } else if (k < 0) {
    int j = c - 1 - r->nq - r->nv - r->nu; /* after ctrl: act, then mocap */
    w = j < r->na ? act_column_name(m, j, buf, n) : mocap_column_name(m, j - r->na, buf, n);
  } else if (k < r->nsens) {
    /* the sensor of value k: the last with sensor_adr <= k (addresses
       ascend; a sensor of dim 0 shares its address with the next) */
    int lo = 0, hi = m->nsensor - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) / 2;
      if (m->sensor_adr[mid] <= k) lo = mid;
      else hi = mid - 1;
    }
    int i = lo;
    const char* name = m->names + m->name_sensoradr[i];
    int dim = m->sensor_dim[i], j = k - m->sensor_adr[i];
    if (name[0])
      w = dim > 1 ? snprintf(buf, n, "sensor_%s_%d", name, j) : snprintf(buf, n, "sensor_%s", name);
    else
      w = dim > 1 ? snprintf(buf, n, "sensor%d_%d", i, j) : snprintf(buf, n, "sensor%d", i);
  } else {
    w = snprintf(buf, n, "%s", solver_columns[k - r->nsens]);
  }
  return w > 0 ? (size_t)w : 0;
}

/* every column's description, in one allocation like the names; -1 when
   out of memory */
static int make_descriptions(imp_recorder* r, const imp_model* m) {
  size_t text = 0;
  for (int c = 0; c < r->ncol; c++) text += imp_record_describe(m, r->nstat, c, NULL, 0) + 1;
  r->desc = malloc(sizeof(char*) * (size_t)r->ncol + text);
  if (!r->desc) return -1;
  char* p = (char*)(r->desc + r->ncol);
  for (int c = 0; c < r->ncol; c++) {
    size_t len = imp_record_describe(m, r->nstat, c, p, text);
    r->desc[c] = p;
    p += len + 1;
    text -= len + 1;
  }
  return 0;
}

/* every column's name, in one allocation (the pointers, then the text);
   -1 when out of memory */
static int make_names(imp_recorder* r, const imp_model* m) {
  size_t text = 0;
  for (int c = 0; c < r->ncol; c++) text += column_name(r, m, c, NULL, 0) + 1;
  r->names = malloc(sizeof(char*) * (size_t)r->ncol + text);
  if (!r->names) return -1;
  char* p = (char*)(r->names + r->ncol);
  for (int c = 0; c < r->ncol; c++) {
    size_t len = column_name(r, m, c, p, text);
    r->names[c] = p;
    p += len + 1;
    text -= len + 1;
  }
  return 0;
}

/* a name as one CSV field: quoted, with its quotes doubled, when it holds a
   comma, a quote or a line break (RFC 4180); as it is otherwise */
static int csv_field(FILE* f, const char* s) {
  if (!strpbrk(s, ",\"\r\n")) return fputs(s, f) < 0 ? -1 : 0;
  if (fputc('"', f) == EOF) return -1;
  for (; *s; s++)
    if ((*s == '"' && fputc('"', f) == EOF) || fputc(*s, f) == EOF) return -1;
  return fputc('"', f) == EOF ? -1 : 0;
}

/* a name as a JSON string: quotes, backslashes and control characters escaped */
static void json_string(FILE* f, const char* s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

/* Fill buf (header_len bytes) with the NPY header for rows rows, padded to
   header_len; returns the unpadded length (which must not exceed it). */
static int npy_header(const imp_recorder* r, long long rows, unsigned char* buf,
                      int header_len) {
  char dict[160];
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (%lld, %d), }", rows,
                   r->ncol);
  int used = NPY_PREFIX + n + 1; /* + the final '\n' */
  if (used > header_len) return used;
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = 1;
  buf[7] = 0;
  int dict_len = header_len - NPY_PREFIX;
  buf[8] = (unsigned char)(dict_len & 0xff);
  buf[9] = (unsigned char)((dict_len >> 8) & 0xff);
  memcpy(buf + NPY_PREFIX, dict, (size_t)n);
  memset(buf + NPY_PREFIX + n, ' ', (size_t)(header_len - used));
  buf[header_len - 1] = '\n';
  return used;
}

/* Total NPY header length that fits any row count: the header with a row
   count of NPY_ROWS_WIDTH digits, rounded up to a multiple of 64. */
static int npy_header_len(int ncol) {
  char dict[160];
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (%0*d, %d), }",
                   NPY_ROWS_WIDTH, 0, ncol);
  int used = NPY_PREFIX + n + 1;
  return (used + 63) / 64 * 64;
}

/* write the CSV column header line */
static int csv_header(imp_recorder* r) {
  for (int c = 0; c < r->ncol; c++)
    if ((c && fputc(',', r->f) == EOF) || csv_field(r->f, r->names[c]) != 0) return -1;
  if (fputc('\n', r->f) == EOF) return -1;
  return fflush(r->f) == 0 ? 0 : -1;
}

/* free the recorder's memory (the file must already be closed) */
static void destroy(imp_recorder* r) {
  free(r->path);
  free(r->tmppath);
  free(r->row);
  free(r->bytes);
  free(r->names);
  free(r->desc);
  free(r->info_model);
  free(r->info_solver);
  free(r->info_ctrl);
  free(r);
}

imp_recorder* imp_recorder_open(const char* path, const imp_model* m, char* err, int errsz) {
  return imp_recorder_open_flags(path, m, 0, err, errsz);
}

imp_recorder* imp_recorder_open_flags(const char* path, const imp_model* m, int flags, char* err,
                                      int errsz) {
  if (!path || !m) {
    imp_format_error(err, errsz, "recorder: no path or no model");
    return NULL;
  }
  if (flags & ~IMP_RECORD_SOLVER) {
    imp_format_error(err, errsz, "%s: unknown recorder flags 0x%x", path, (unsigned)flags);
    return NULL;
  }
  int format = format_of(path);
  if (format < 0) {
    imp_format_error(err, errsz, "%s: unknown recording format (use .csv or .npy)", path);
    return NULL;
  }
  imp_recorder* r = calloc(1, sizeof *r);
  if (!r) {
    imp_format_error(err, errsz, "%s: out of memory", path);
    return NULL;
  }
  r->format = format;
  r->nq = m->nq;
  r->nv = m->nv;
  r->nu = m->nu;
  r->na = m->na;
  r->nmocap = m->nmocap;
  r->nsens = m->nsensordata;
  r->nstat = flags & IMP_RECORD_SOLVER ? NSOLVERCOL : 0;
  r->ncol = 1 + m->nq + m->nv + m->nu + m->na + 7 * m->nmocap + r->nsens + r->nstat;
  r->timestep = m->opt.timestep;
  r->info_steps = -1;
  r->info_every = 0;
  r->path = concat(path, "");
  r->row = malloc(sizeof(double) * (size_t)r->ncol);
  r->bytes = malloc(8 * (size_t)r->ncol);
  if (!r->path || !r->row || !r->bytes || make_names(r, m) != 0 ||
      make_descriptions(r, m) != 0) {
    destroy(r);
    imp_format_error(err, errsz, "%s: out of memory", path);
    return NULL;
  }

  /* a directory at path would only be found at the rename, after the run */
  int fd = imp_tmpfile_target_ok(r->path) == 0 ? imp_tmpfile_create(r->path, &r->tmppath) : -1;
  r->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!r->f) {
    /* the user's path: the temporary name beside it is ours, not theirs */
    imp_format_error(err, errsz, "%s: cannot create: %s", r->path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(r->tmppath);
    }
    destroy(r);
    return NULL;
  }

  int rc;
  if (format == REC_CSV) {
    rc = csv_header(r);
  } else {
    r->header_len = npy_header_len(r->ncol);
    unsigned char hdr[256];
    if (r->header_len > (int)sizeof hdr) {
      rc = -1;
    } else {
      npy_header(r, 0, hdr, r->header_len);
      rc = fwrite(hdr, 1, (size_t)r->header_len, r->f) == (size_t)r->header_len &&
                   fflush(r->f) == 0
               ? 0
               : -1;
    }
  }
  if (rc != 0) {
    imp_format_error(err, errsz, "%s: cannot write: %s", r->path, strerror(errno));
    fclose(r->f);
    unlink(r->tmppath);
    destroy(r);
    return NULL;
  }
  return r;
}

/* the 8 little-endian bytes of x, whatever the host's byte order */
static void put_f64le(unsigned char* out, double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  for (int i = 0; i < 8; i++) out[i] = (unsigned char)(u >> (8 * i));
}

/* The solver columns of d (in solver_columns' order): the last step's
   statistics, zeros before the first step since the reset. The counts are
   small integers, exact in a double. */
static void solver_stats(const imp_data* d, double* out) {
  int stepped = d->nstep > 0;
  out[0] = stepped ? (double)d->ncon : 0.0;
  out[1] = stepped ? (double)d->nefc : 0.0;
  out[2] = stepped ? (double)d->solver_iter : 0.0;
  out[3] = stepped ? d->solver_residual : 0.0;
}

int imp_recorder_write(imp_recorder* r, const imp_model* m, const imp_data* d) {
  if (!r || r->failed) return -1;
  if (!m || !d || m->nq != r->nq || m->nv != r->nv || m->nu != r->nu || m->na != r->na ||
      m->nmocap != r->nmocap || m->nsensordata != r->nsens) {
    r->failed = 1; /* a recording of a different model is not a recording */
    return -1;
  }
  double* row = r->row;
  row[0] = d->time;
  memcpy(row + 1, d->qpos, sizeof(double) * (size_t)r->nq);
  memcpy(row + 1 + r->nq, d->qvel, sizeof(double) * (size_t)r->nv);
  memcpy(row + 1 + r->nq + r->nv, d->ctrl, sizeof(double) * (size_t)r->nu);
  memcpy(row + 1 + r->nq + r->nv + r->nu, d->act, sizeof(double) * (size_t)r->na);
  double* mocap = row + 1 + r->nq + r->nv + r->nu + r->na;
  for (int i = 0; i < r->nmocap; i++) {
    memcpy(mocap + 7 * i, d->mocap_pos + 3 * i, 3 * sizeof(double));
    memcpy(mocap + 7 * i + 3, d->mocap_quat + 4 * i, 4 * sizeof(double));
  }
  double* sens = mocap + 7 * r->nmocap;
  memcpy(sens, d->sensordata, sizeof(double) * (size_t)r->nsens);
  if (r->nstat) solver_stats(d, sens + r->nsens);

  if (r->format == REC_CSV) {
    /* %.17g round-trips every double exactly through strtod */
    for (int c = 0; c < r->ncol; c++) {
      if (fprintf(r->f, c ? ",%.17g" : "%.17g", row[c]) < 0) {
        r->failed = 1;
        return -1;
      }
    }
    if (fputc('\n', r->f) == EOF) r->failed = 1;
  } else {
    for (int c = 0; c < r->ncol; c++) put_f64le(r->bytes + 8 * c, row[c]);
    if (fwrite(r->bytes, 8, (size_t)r->ncol, r->f) != (size_t)r->ncol) r->failed = 1;
  }
  if (!r->failed && fflush(r->f) != 0) r->failed = 1;
  if (r->failed) return -1;
  r->rows++;
  return 0;
}

int imp_recorder_set_info(imp_recorder* r, const imp_record_info* info) {
  if (!r || !info) return -1;
  char** fields[3] = {&r->info_model, &r->info_solver, &r->info_ctrl};
  const char* values[3] = {info->model, info->solver, info->ctrl};
  int rc = 0;
  for (int i = 0; i < 3; i++) {
    free(*fields[i]);
    *fields[i] = values[i] ? concat(values[i], "") : NULL;
    if (values[i] && !*fields[i]) rc = -1;
  }
  r->info_steps = info->steps >= 0 ? info->steps : -1;
  r->info_every = info->every >= 1 ? info->every : 0;
  return rc;
}

/* a JSON list of strings */
static void json_list(FILE* f, char* const* s, int n) {
  fputc('[', f);
  for (int i = 0; i < n; i++) {
    if (i) fprintf(f, ", ");
    json_string(f, s[i]);
  }
  fputc(']', f);
}

/* s as a JSON string, or null */
static void json_string_or_null(FILE* f, const char* s) {
  if (s)
    json_string(f, s);
  else
    fputs("null", f);
}

/* Write the JSON sidecar of path to a new temporary file, its name in *tmp
   (NULL when none was made); returns 0 or -1. */
static int write_sidecar(const imp_recorder* r, const char* path, char** tmp, int complete) {
  int fd = imp_tmpfile_create(path, tmp);
  FILE* f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    return -1;
  }
  fprintf(f, "{\"columns\": ");
  json_list(f, r->names, r->ncol);
  fprintf(f, ", \"descriptions\": ");
  json_list(f, r->desc, r->ncol);
  fprintf(f,
          ", \"nq\": %d, \"nv\": %d, \"nu\": %d, \"na\": %d, \"nmocap\": %d, "
          "\"nsensordata\": %d, \"timestep\": %.17g, \"rows\": %lld, \"complete\": %s",
          r->nq, r->nv, r->nu, r->na, r->nmocap, r->nsens, r->timestep, r->rows,
          complete ? "true" : "false");
  fprintf(f, ", \"model\": ");
  json_string_or_null(f, r->info_model);
  if (r->info_steps >= 0)
    fprintf(f, ", \"steps\": %lld", r->info_steps);
  else
    fprintf(f, ", \"steps\": null");
  if (r->info_every >= 1)
    fprintf(f, ", \"every\": %lld", r->info_every);
  else
    fprintf(f, ", \"every\": null");
  fprintf(f, ", \"solver\": ");
  json_string_or_null(f, r->info_solver);
  fprintf(f, ", \"ctrl\": ");
  json_string_or_null(f, r->info_ctrl);
  fprintf(f, "}\n");
  int ok = !ferror(f) && fflush(f) == 0 && fsync(fileno(f)) == 0;
  if (fclose(f) != 0) ok = 0;
  return ok ? 0 : -1;
}

/* Finish the file and rename it and its sidecar into place (complete 0:
   a recording cut short, which gets a sidecar whatever its format). */
static int finish(imp_recorder* r, int complete, char* err, int errsz) {
  if (!r) {
    imp_format_error(err, errsz, "recorder: NULL");
    return -1;
  }
  errno = 0;
  int ok = !r->failed;
  const char* what = r->failed ? "an earlier write failed" : "write";
  if (ok && r->format == REC_NPY) {
    /* rewrite the header in place with the final row count */
    unsigned char hdr[256];
    ok = npy_header(r, r->rows, hdr, r->header_len) <= r->header_len &&
         fseek(r->f, 0, SEEK_SET) == 0 &&
         fwrite(hdr, 1, (size_t)r->header_len, r->f) == (size_t)r->header_len;
  }
  if (ok) ok = fflush(r->f) == 0 && fsync(fileno(r->f)) == 0;
  if (fclose(r->f) != 0) ok = 0;
  r->f = NULL;

  char* json = concat(r->path, ".json");
  char* jsontmp = NULL;
  int sidecar = r->format == REC_NPY || !complete || r->info_ctrl;
  if (!json) ok = 0;
  if (ok && sidecar) ok = write_sidecar(r, json, &jsontmp, complete) == 0;
  if (ok) {
    /* another recording to this path renames its pair under the same lock:
       the data and the sidecar that end up there are of one recording */
    int lock = imp_tmpfile_lock_dir(r->path);
    what = "rename";
    ok = imp_tmpfile_commit(r->tmppath, r->path) == 0;
    if (ok && jsontmp) {
      ok = imp_tmpfile_commit(jsontmp, json) == 0;
      if (!ok) unlink(r->path); /* complete or absent: no data without its sidecar */
    } else if (ok) {
      /* an earlier recording's sidecar would describe other data */
      struct stat st;
      if (lstat(json, &st) == 0 && !S_ISDIR(st.st_mode)) unlink(json);
    }
    imp_tmpfile_unlock_dir(lock);
  }
  if (!ok) {
    imp_format_error(err, errsz, "%s: recording failed (%s)%s%s", r->path, what, errno ? ": " : "",
            errno ? strerror(errno) : "");
    unlink(r->tmppath);
    if (jsontmp) unlink(jsontmp);
  }
  free(json);
  free(jsontmp);
  destroy(r);
  return ok ? 0 : -1;
}

int imp_recorder_close(imp_recorder* r, char* err, int errsz) {
  return finish(r, 1, err, errsz);
}

int imp_recorder_close_partial(imp_recorder* r, char* err, int errsz) {
  return finish(r, 0, err, errsz);
}

void imp_recorder_abort(imp_recorder* r) {
  if (!r) return;
  if (r->f) fclose(r->f);
  unlink(r->tmppath);
  destroy(r);
}

const char* imp_recorder_temp_path(const imp_recorder* r) { return r ? r->tmppath : NULL; }
