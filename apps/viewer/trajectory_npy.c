/* Reading NPY recordings (see trajectory_npy.h). */
#define _POSIX_C_SOURCE 200809L
#include "trajectory_npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

int imp_npy_is_npy(FILE* f) {
  unsigned char head[6];
  int yes = fread(head, 1, 6, f) == 6 && memcmp(head, npy_magic, 6) == 0;
  rewind(f);
  return yes;
}

/* A little-endian unsigned integer of n bytes. */
static uint64_t le_uint(const unsigned char* b, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | b[i];
  return v;
}

/* The header dict after the magic and version: malloc'ed text, or NULL. */
static char* read_dict(FILE* f, const char* path, char* err, int errsz) {
  unsigned char pre[8], len[4];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, npy_magic, 6) != 0 || pre[6] < 1 || pre[6] > 2) {
    snprintf(err, errsz, "%s: not an NPY file of format 1.0 or 2.0", path);
    return NULL;
  }
  int lenbytes = pre[6] == 1 ? 2 : 4; /* format 2.0 widened the header length */
  uint64_t n = fread(len, 1, (size_t)lenbytes, f) == (size_t)lenbytes ? le_uint(len, lenbytes) : 0;
  char* dict = n > 0 && n < (1u << 20) ? malloc(n + 1) : NULL;
  if (!dict || fread(dict, 1, n, f) != n) {
    snprintf(err, errsz, "%s: truncated or unreadable NPY header", path);
    free(dict);
    return NULL;
  }
  dict[n] = '\0';
  return dict;
}

/* Check the dict is a float64 C-order matrix; its shape into rows, cols. */
static int parse_dict(const char* dict, const char* path, int* rows, int* cols, char* err,
                      int errsz) {
  const char* descr = strstr(dict, "'descr'");
  const char* order = strstr(dict, "'fortran_order'");
  const char* shape = strstr(dict, "'shape'");
  if (!descr || !strstr(descr, "'<f8'") || strstr(descr, "'<f8'") > strchr(descr, ',')) {
    snprintf(err, errsz, "%s: the array is not little-endian float64 ('<f8')", path);
    return -1;
  }
  if (!order || strncmp(order + strspn(order + 15, ": ") + 15, "False", 5) != 0) {
    snprintf(err, errsz, "%s: the array is in Fortran order; a recording is C order", path);
    return -1;
  }
  long long r = -1, c = -1;
  if (!shape || sscanf(shape, "'shape': (%lld, %lld)", &r, &c) != 2 || r < 1 || c < 1 ||
      r > INT32_MAX || c > 100000) {
    snprintf(err, errsz, "%s: the array is not a matrix of at least one row", path);
    return -1;
  }
  *rows = (int)r, *cols = (int)c;
  return 0;
}

/* rows x cols little-endian doubles from f; NULL on a short file. */
static double* read_values(FILE* f, int rows, int cols) {
  size_t n = (size_t)rows * (size_t)cols;
  double* v = malloc(n * sizeof(double));
  unsigned char b[8];
  for (size_t i = 0; v && i < n; i++) {
    if (fread(b, 1, 8, f) != 8) {
      free(v);
      return NULL;
    }
    uint64_t bits = le_uint(b, 8); /* byte order of the file, not of the host */
    memcpy(&v[i], &bits, sizeof bits);
  }
  return v;
}

int imp_npy_read_f8_matrix(const char* path, double** data, int* rows, int* cols, char* err,
                           int errsz) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errsz, "%s: %s", path, strerror(errno));
    return -1;
  }
  char* dict = read_dict(f, path, err, errsz);
  int st = dict ? parse_dict(dict, path, rows, cols, err, errsz) : -1;
  if (st == 0 && !(*data = read_values(f, *rows, *cols))) {
    snprintf(err, errsz, "%s: fewer values than the shape (%d, %d) says", path, *rows, *cols);
    st = -1;
  }
  free(dict);
  fclose(f);
  return st;
}

/* The whole of a small text file, malloc'ed; NULL on failure. */
static char* slurp_text(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* s = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && n < (1L << 24) && fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1))) {
    if (fread(s, 1, (size_t)n, f) != (size_t)n) {
      free(s);
      s = NULL;
    } else {
      s[n] = '\0';
    }
  }
  fclose(f);
  return s;
}

/* The quoted strings of the JSON array after "columns", joined by commas
   into out (as long as the array text, so it fits). */
static int join_columns(const char* json, char* out) {
  const char* p = strstr(json, "\"columns\"");
  p = p ? strchr(p, '[') : NULL;
  if (!p) return -1;
  const char* end = strchr(p, ']');
  if (!end) return -1;
  size_t k = 0;
  for (p++; p < end; p++) {
    const char* open = memchr(p, '"', (size_t)(end - p));
    if (!open) break;
    const char* close = memchr(open + 1, '"', (size_t)(end - open - 1));
    if (!close) return -1;
    if (k) out[k++] = ',';
    memcpy(out + k, open + 1, (size_t)(close - open - 1));
    k += (size_t)(close - open - 1);
    p = close;
  }
  out[k] = '\0';
  return k ? 0 : -1;
}

int imp_npy_sidecar_header(const char* path, char** header, char* err, int errsz) {
  size_t n = strlen(path) + 6;
  char* json_path = malloc(n);
  if (!json_path) {
    snprintf(err, errsz, "%s: out of memory", path);
    return -1;
  }
  snprintf(json_path, n, "%s.json", path);
  char* json = slurp_text(json_path);
  *header = json ? malloc(strlen(json) + 1) : NULL;
  int st = *header && join_columns(json, *header) == 0 ? 0 : -1;
  if (st != 0) {
    snprintf(err, errsz, "%s: %s (the sidecar naming the columns)", json_path,
             json ? "no \"columns\" list of names" : "cannot be read");
    free(*header);
    *header = NULL;
  }
  free(json);
  free(json_path);
  return st;
}
