/* Open-loop control files (promises in ctrl_file.h): a table of rows read
   once, with each column's actuator, and the control callback that copies
   the row of the current step or time into d->ctrl. The callback holds no
   state of its own (the row comes from d->nstep or d->time), so a reset or
   the viewer's rewind starts the file again. */
#define _POSIX_C_SOURCE 200809L
#include "engine.h"
#include "ctrl_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct ctrl_file {
  char* path;
  int npy;          /* 1: NPY (messages name rows), 0: CSV (lines) */
  int ncol;         /* columns, time included */
  long nrow;
  double* v;        /* nrow x ncol */
  int* line;        /* nrow: CSV line of each row (NULL for NPY) */
  char** names;     /* ncol header names, NULL without a header */
  int header_line;  /* CSV line of the header */
  int timed;        /* column 0 is time (fixed by the header, else by bind) */
  int* act;         /* ncol: actuator of each column, -1 for time */
};

/* "path:LINE" for CSV row r, "path: row R" (1-based) for NPY, into buf */
static const char* where(const ctrl_file* c, long r, char* buf, size_t n) {
  if (c->npy)
    snprintf(buf, n, "%s: row %ld", c->path, r + 1);
  else
    snprintf(buf, n, "%s:%d", c->path, c->line[r]);
  return buf;
}

void ctrl_file_free(ctrl_file* c) {
  if (!c) return;
  if (c->names)
    for (int i = 0; i < c->ncol; i++) free(c->names[i]);
  free(c->names);
  free(c->path);
  free(c->v);
  free(c->line);
  free(c->act);
  free(c);
}

/* ---- reading the file ---- */

/* The whole file into a NUL-terminated buffer, at most CTRL_FILE_MAX_BYTES. */
static char* slurp(const char* path, size_t* len, char* err, int errsz) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    imp_format_error(err, errsz, "%s: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    imp_format_error(err, errsz, "%s: not a regular file", path);
    fclose(f);
    return NULL;
  }
  if (st.st_size > CTRL_FILE_MAX_BYTES) {
    imp_format_error(err, errsz, "%s: %lld bytes, more than the %ld MiB a control file may have", path,
            (long long)st.st_size, CTRL_FILE_MAX_BYTES >> 20);
    fclose(f);
    return NULL;
  }
  char* buf = malloc((size_t)st.st_size + 1);
  size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
  int bad = !buf || ferror(f) || n != (size_t)st.st_size;
  fclose(f);
  if (bad) {
    imp_format_error(err, errsz, "%s: %s", path, buf ? "read failed" : "out of memory");
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* Room for one more row: grow v and line (doubling). 0, or -1. */
static int grow(ctrl_file* c, long* cap) {
  if (c->nrow < *cap) return 0;
  long ncap = *cap ? 2 * *cap : 256;
  if (ncap > CTRL_FILE_MAX_ROWS) ncap = CTRL_FILE_MAX_ROWS;
  double* v = realloc(c->v, sizeof(double) * (size_t)ncap * (size_t)c->ncol);
  if (!v) return -1;
  c->v = v;
  int* line = realloc(c->line, sizeof(int) * (size_t)ncap);
  if (!line) return -1;
  c->line = line;
  *cap = ncap;
  return 0;
}

/* s without leading and trailing blanks (in place) */
static char* trim(char* s) {
  while (*s == ' ' || *s == '\t') s++;
  char* e = s + strlen(s);
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = '\0';
  return s;
}

/* Split line at commas into at most max fields (pointers into line);
   returns the count, or max + 1 when there are more. */
static int split(char* line, char** field, int max) {
  int n = 0;
  for (char* p = line;;) {
    char* comma = strchr(p, ',');
    if (comma) *comma = '\0';
    if (n == max) return max + 1;
    field[n++] = trim(p);
    if (!comma) return n;
    p = comma + 1;
  }
}

/* 1 when s is a number as a whole (strtod), its value in *x */
static int number(const char* s, double* x) {
  char* end = NULL;
  if (!*s) return 0;
  errno = 0;
  *x = strtod(s, &end);
  return *end == '\0';
}

/* A header's names: quotes around a name are dropped (the recorder quotes
   names with commas). 0, or -1 with the message. */
static int read_header(ctrl_file* c, char** field, int n, int lineno, char* err, int errsz) {
  c->names = calloc((size_t)n, sizeof(char*));
  if (!c->names) return imp_format_error(err, errsz, "%s: out of memory", c->path), -1;
  c->ncol = n;
  c->header_line = lineno;
  for (int i = 0; i < n; i++) {
    char* s = field[i];
    size_t len = strlen(s);
    if (len >= 2 && s[0] == '"' && s[len - 1] == '"') s[len - 1] = '\0', s++;
    if (!*s) {
      imp_format_error(err, errsz, "%s:%d: column %d of the header has no name", c->path, lineno, i + 1);
      return -1;
    }
    if (!(c->names[i] = strdup(s))) return imp_format_error(err, errsz, "%s: out of memory", c->path), -1;
  }
  c->timed = !strcasecmp(c->names[0], "time") || !strcasecmp(c->names[0], "t");
  return 0;
}

/* One data line into a new row; 0, or -1 with the message. */
static int read_row(ctrl_file* c, long* cap, char** field, int n, int lineno, char* err,
                    int errsz) {
  if (n != c->ncol) {
    imp_format_error(err, errsz, "%s:%d: %d values, expected %d (as %s)", c->path, lineno, n, c->ncol,
            c->names ? "the header names" : "in the first row");
    return -1;
  }
  if (c->nrow >= CTRL_FILE_MAX_ROWS) {
    imp_format_error(err, errsz, "%s:%d: more than %ld rows", c->path, lineno, CTRL_FILE_MAX_ROWS);
    return -1;
  }
  if (grow(c, cap)) return imp_format_error(err, errsz, "%s: out of memory", c->path), -1;
  double* row = c->v + (size_t)c->nrow * (size_t)c->ncol;
  for (int i = 0; i < n; i++) {
    if (!number(field[i], &row[i])) {
      imp_format_error(err, errsz, "%s:%d: column %d: '%.40s' is not a number", c->path, lineno, i + 1,
              field[i]);
      return -1;
    }
    if (!isfinite(row[i])) {
      imp_format_error(err, errsz, "%s:%d: column %d: '%.40s' is not finite", c->path, lineno, i + 1,
              field[i]);
      return -1;
    }
  }
  c->line[c->nrow++] = lineno;
  return 0;
}

static int read_lines(ctrl_file* c, char* buf, char** field, int max, char* err, int errsz);

/* The CSV text buf (NUL-terminated, modified) into c. 0, or -1. */
static int read_csv(ctrl_file* c, char* buf, char* err, int errsz) {
  enum { MAXF = 4096 };
  char** field = malloc(sizeof(char*) * (MAXF + 1));
  if (!field) return imp_format_error(err, errsz, "%s: out of memory", c->path), -1;
  int rc = read_lines(c, buf, field, MAXF, err, errsz);
  free(field);
  return rc;
}

/* The lines of buf into c's header and rows; field: room for max + 1. */
static int read_lines(ctrl_file* c, char* buf, char** field, int max, char* err, int errsz) {
  long cap = 0;
  int lineno = 0;
  for (char* p = buf; *p;) {
    char* nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    char* line = p;
    p = nl ? nl + 1 : p + strlen(p);
    lineno++;
    if (strlen(line) > CTRL_FILE_MAX_LINE) {
      imp_format_error(err, errsz, "%s:%d: line longer than %d bytes", c->path, lineno, CTRL_FILE_MAX_LINE);
      return -1;
    }
    char* s = trim(line);
    if (!*s || *s == '#') continue;
    int n = split(s, field, max);
    if (n > max) {
      imp_format_error(err, errsz, "%s:%d: more than %d columns", c->path, lineno, max);
      return -1;
    }
    if (c->ncol == 0) { /* the first line: a header unless all numbers */
      int all = 1;
      double x;
      for (int i = 0; i < n && all; i++) all = number(field[i], &x);
      if (!all) {
        if (read_header(c, field, n, lineno, err, errsz)) return -1;
        continue;
      }
      c->ncol = n;
    }
    if (read_row(c, &cap, field, n, lineno, err, errsz)) return -1;
  }
  return 0;
}

/* little-endian float64 at p, whatever the host's byte order */
static double get_f64le(const unsigned char* p) {
  uint64_t u = 0;
  for (int i = 7; i >= 0; i--) u = u << 8 | p[i];
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* the value of 'key' in an NPY header dict (a pointer after its colon) */
static const char* dict_value(const char* dict, const char* key) {
  const char* k = strstr(dict, key);
  if (!k) return NULL;
  const char* colon = strchr(k + strlen(key), ':');
  if (!colon) return NULL;
  colon++;
  while (*colon == ' ') colon++;
  return colon;
}

/* An NPY file (v1, v2 or v3 header; '<f8', C or Fortran order; 1-D or 2-D)
   into c. 0, or -1. */
static int read_npy(ctrl_file* c, const unsigned char* buf, size_t len, char* err, int errsz) {
  c->npy = 1;
  if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
    imp_format_error(err, errsz, "%s: not an NPY file (no \\x93NUMPY magic)", c->path);
    return -1;
  }
  int major = buf[6];
  size_t hl, start;
  if (major == 1) {
    hl = (size_t)buf[8] | (size_t)buf[9] << 8;
    start = 10;
  } else if ((major == 2 || major == 3) && len >= 12) {
    hl = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    start = 12;
  } else {
    imp_format_error(err, errsz, "%s: NPY version %d is not supported", c->path, major);
    return -1;
  }
  if (hl > 65536 || start + hl > len) {
    imp_format_error(err, errsz, "%s: NPY header cut short", c->path);
    return -1;
  }
  char dict[65537];
  memcpy(dict, buf + start, hl);
  dict[hl] = '\0';
  const char* descr = dict_value(dict, "'descr'");
  const char* order = dict_value(dict, "'fortran_order'");
  const char* shape = dict_value(dict, "'shape'");
  if (!descr || !order || !shape) {
    imp_format_error(err, errsz, "%s: NPY header without descr, fortran_order and shape", c->path);
    return -1;
  }
  if (strncmp(descr, "'<f8'", 5) != 0 && strncmp(descr, "'<d'", 4) != 0) {
    imp_format_error(err, errsz, "%s: NPY dtype %.8s: a control file must be float64 ('<f8')", c->path,
            descr);
    return -1;
  }
  int fortran = strncmp(order, "True", 4) == 0;
  long long rows = -1, cols = 1;
  char tail = 0;
  int k = sscanf(shape, "(%lld, %lld%c", &rows, &cols, &tail);
  if (k == 3 && tail == ',') k = 0; /* three dimensions */
  if (k < 2) {
    k = sscanf(shape, "(%lld,%c", &rows, &tail);
    cols = 1;
    if (k != 2 || tail != ')') k = 0;
  }
  if (k < 2 || rows < 0 || cols < 1 || cols > 4096) {
    imp_format_error(err, errsz, "%s: NPY shape %.40s: a control file is 1-D or 2-D (rows, columns)",
            c->path, shape);
    return -1;
  }
  if (rows > CTRL_FILE_MAX_ROWS) {
    imp_format_error(err, errsz, "%s: %lld rows, more than %ld", c->path, rows, CTRL_FILE_MAX_ROWS);
    return -1;
  }
  size_t data = start + hl, need = (size_t)rows * (size_t)cols * 8;
  if (len - data < need) {
    imp_format_error(err, errsz, "%s: NPY data cut short: %zu bytes for %lld x %lld values", c->path,
            len - data, rows, cols);
    return -1;
  }
  c->ncol = (int)cols;
  c->nrow = (long)rows;
  c->v = malloc(need ? need : 1);
  if (!c->v) return imp_format_error(err, errsz, "%s: out of memory", c->path), -1;
  for (long r = 0; r < c->nrow; r++)
    for (int j = 0; j < c->ncol; j++) {
      size_t at = fortran ? (size_t)j * (size_t)rows + (size_t)r : (size_t)r * cols + (size_t)j;
      double x = get_f64le(buf + data + 8 * at);
      if (!isfinite(x)) {
        imp_format_error(err, errsz, "%s: row %ld, column %d: not finite", c->path, r + 1, j + 1);
        return -1;
      }
      c->v[(size_t)r * cols + (size_t)j] = x;
    }
  return 0;
}

/* 1 when path ends in .npy (any case) */
static int is_npy(const char* path) {
  size_t n = strlen(path);
  return n >= 4 && strcasecmp(path + n - 4, ".npy") == 0;
}

/* ---- matching the columns to a model ---- */

/* the model's actuator names, comma-separated, into buf ("#I" unnamed) */
static void actuator_list(const imp_model* m, char* buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int u = 0; u < m->nu && used + 1 < n; u++) {
    const char* name = imp_id2name(m, IMP_OBJ_ACTUATOR, u);
    int w = name && name[0] ? snprintf(buf + used, n - used, "%s%s", u ? ", " : "", name)
                            : snprintf(buf + used, n - used, "%s#%d (unnamed)", u ? ", " : "", u);
    if (w < 0) break;
    used += (size_t)w;
  }
  if (m->nu == 0) snprintf(buf, n, "none");
}

/* Times of a timed file strictly increasing; 0, or -1 naming the row. */
static int check_times(const ctrl_file* c, char* err, int errsz) {
  char at[4200];
  for (long r = 1; r < c->nrow; r++) {
    double t0 = c->v[(size_t)(r - 1) * c->ncol], t1 = c->v[(size_t)r * c->ncol];
    if (!(t1 > t0)) {
      imp_format_error(err, errsz, "%s: time %.17g does not come after the previous row's %.17g",
              where(c, r, at, sizeof at), t1, t0);
      return -1;
    }
  }
  return 0;
}

int ctrl_file_bind(ctrl_file* c, const imp_model* m, char* err, int errsz) {
  char list[2048];
  int* act = malloc(sizeof(int) * (size_t)c->ncol);
  if (!act) return imp_format_error(err, errsz, "%s: out of memory", c->path), -1;
  if (c->names) {
    for (int i = 0; i < c->ncol; i++) {
      act[i] = -1;
      if (i == 0 && c->timed) continue;
      int u = imp_name2id(m, IMP_OBJ_ACTUATOR, c->names[i]);
      if (u < 0) {
        actuator_list(m, list, sizeof list);
        imp_format_error(err, errsz, "%s:%d: column %d: '%s' is no actuator of the model (actuators: %s)",
                c->path, c->header_line, i + 1, c->names[i], list);
        free(act);
        return -1;
      }
      for (int j = 0; j < i; j++)
        if (act[j] == u) {
          imp_format_error(err, errsz, "%s:%d: columns %d and %d both name actuator '%s'", c->path,
                  c->header_line, j + 1, i + 1, c->names[i]);
          free(act);
          return -1;
        }
      act[i] = u;
    }
  } else {
    if (c->ncol != m->nu && c->ncol != m->nu + 1) {
      char at[4200];
      imp_format_error(err, errsz,
              "%s: %d columns; the model has %d actuators: a file without a header has %d "
              "columns (one row per step) or %d (time first), or a header naming actuators",
              c->nrow > 0 ? where(c, 0, at, sizeof at) : c->path, c->ncol, m->nu, m->nu,
              m->nu + 1);
      free(act);
      return -1;
    }
    c->timed = c->ncol == m->nu + 1;
    for (int i = 0; i < c->ncol; i++) act[i] = i - c->timed;
  }
  if (c->timed && check_times(c, err, errsz)) {
    free(act);
    return -1;
  }
  free(c->act);
  c->act = act;
  return 0;
}

ctrl_file* ctrl_file_load(const char* path, const imp_model* m, char* err, int errsz) {
  size_t len = 0;
  char* buf = slurp(path, &len, err, errsz);
  if (!buf) return NULL;
  ctrl_file* c = calloc(1, sizeof *c);
  if (!c || !(c->path = strdup(path))) {
    imp_format_error(err, errsz, "%s: out of memory", path);
    free(c);
    free(buf);
    return NULL;
  }
  int rc = is_npy(path) ? read_npy(c, (const unsigned char*)buf, len, err, errsz)
                        : read_csv(c, buf, err, errsz);
  free(buf);
  if (rc == 0 && c->nrow == 0) {
    imp_format_error(err, errsz, "%s: no rows of controls", path);
    rc = -1;
  }
  if (rc == 0) rc = ctrl_file_bind(c, m, err, errsz);
  if (rc != 0) {
    ctrl_file_free(c);
    return NULL;
  }
  return c;
}

const char* ctrl_file_path(const ctrl_file* c) { return c->path; }
long ctrl_file_rows(const ctrl_file* c) { return c->nrow; }
int ctrl_file_timed(const ctrl_file* c) { return c->timed; }
double ctrl_file_last_time(const ctrl_file* c) {
  return c->timed ? c->v[(size_t)(c->nrow - 1) * c->ncol] : NAN;
}

/* ---- the controller ---- */

long ctrl_file_row(const ctrl_file* c, const imp_model* m, const imp_data* d) {
  if (!c->timed) return d->nstep < c->nrow ? (long)d->nstep : c->nrow - 1;
  /* the last row whose time is <= d->time (with the tolerance), by bisection */
  double t = d->time + 1e-6 * m->opt.timestep;
  long lo = 0, hi = c->nrow; /* rows before lo qualify; rows from hi on do not */
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (c->v[(size_t)mid * c->ncol] <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

void ctrl_file_control(const imp_model* m, imp_data* d, void* user) {
  const ctrl_file* c = user;
  long r = ctrl_file_row(c, m, d);
  if (r < 0) return;
  const double* row = c->v + (size_t)r * c->ncol;
  for (int i = c->timed; i < c->ncol; i++) d->ctrl[c->act[i]] = row[i];
}
