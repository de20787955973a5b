/* FCLIB local problems <-> imp_cproblem (fclib_io.h): conventions, what is
 * representable and why every dataset is checked before libfclib reads it
 * are in the header. */
#define _POSIX_C_SOURCE 200809L

#include "fclib_io.h"
#include "cproblem_block.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fclib_io_representable(const imp_cproblem* p) {
  if (p->nblock <= 0 || p->n != 3 * p->nblock) return 0;
  for (int k = 0; k < p->nblock; k++)
    if (p->blk_type[k] != IMP_CNSTR_CONTACT || p->blk_dim[k] != 3 || p->blk_adr[k] != 3 * k)
      return 0;
  return 1;
}

/* err = "path: " + formatted message */
static void set_err(char* err, size_t nerr, const char* path, const char* fmt, ...) {
  if (!err || nerr == 0) return;
  int k = snprintf(err, nerr, "%s: ", path);
  if (k < 0 || (size_t)k >= nerr) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err + k, nerr - (size_t)k, fmt, ap);
  va_end(ap);
}

int fclib_io_export(const char* dir, const char* scene, int k, const imp_cproblem* p,
                    fclib_io_count* c) {
  if (!fclib_io_representable(p)) {
    c->skipped++;
    return 0;
  }
  char path[4200], title[512], err[4400];
  snprintf(path, sizeof path, "%s/%s_%d.hdf5", dir, scene, k);
  snprintf(title, sizeof title, "%s problem %d", scene, k);
  if (fclib_io_write(path, p, title, err, sizeof err)) {
    fprintf(stderr, "impetus solvers: %s\n", err);
    return -1;
  }
  c->written++;
  return 0;
}

#ifndef IMP_HAVE_FCLIB

#define NO_FCLIB "this impetus was built without FCLIB support (install libfclib-dev and rebuild)"

int fclib_io_available(void) { return 0; }

int fclib_io_write(const char* path, const imp_cproblem* p, const char* title, char* err,
                   size_t nerr) {
  (void)p, (void)title;
  set_err(err, nerr, path, NO_FCLIB);
  return -1;
}

int fclib_io_read(const char* path, imp_cproblem* out, void** mem, char* err, size_t nerr) {
  (void)out;
  *mem = NULL;
  set_err(err, nerr, path, NO_FCLIB);
  return -1;
}

#else /* IMP_HAVE_FCLIB */

#include <fclib.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "io/tmpfile.h"

int fclib_io_available(void) { return 1; }

/* ---- HDF5 with its automatic error printing off ---- */

/* HDF5 prints its error stack for every failed call by default; a missing
   optional dataset is not an error here, so printing is off while we probe
   and back on (to whatever it was) after. */
typedef struct h5_quiet {
  H5E_auto2_t func;
  void* data;
} h5_quiet;

static h5_quiet h5_quiet_begin(void) {
  h5_quiet q = {NULL, NULL};
  H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return q;
}

static void h5_quiet_end(h5_quiet q) { H5Eset_auto2(H5E_DEFAULT, q.func, q.data); }

/* ---- writing ---- */

/* A (n x n, row-major) in FCLIB's compressed-column form, zeros left out:
   the arrays come from one malloc (m->p, freed by free(m->p)). Returns 0 or
   -1 (out of memory). */
static int dense_to_csc(const double* A, int n, struct fclib_matrix* m) {
  size_t nnz = 0;
  for (size_t k = 0; k < (size_t)n * (size_t)n; k++) nnz += A[k] != 0;
  size_t bytes = sizeof(double) * (nnz + 1) + sizeof(int) * ((size_t)n + 1 + nnz + 1);
  double* x = malloc(bytes);
  if (!x) return -1;
  int* colp = (int*)(x + nnz + 1);
  int* rowi = colp + n + 1;
  int z = 0;
  for (int j = 0; j < n; j++) {
    colp[j] = z;
    for (int i = 0; i < n; i++) {
      double a = A[(size_t)i * (size_t)n + (size_t)j];
      if (a != 0) rowi[z] = i, x[z] = a, z++;
    }
  }
  colp[n] = z;
  *m = (struct fclib_matrix){z, n, n, colp, rowi, x, -1, NULL};
  return 0;
}

/* An empty HDF5 file at path (truncating one there): libfclib then adds its
   group to it. Done here so that a path we cannot create is a message, not
   libfclib's exit. */
static int create_empty_hdf5(const char* path) {
  h5_quiet q = h5_quiet_begin();
  errno = 0;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  int ok = f >= 0 && H5Fclose(f) >= 0;
  h5_quiet_end(q);
  return ok ? 0 : -1;
}

int fclib_io_write(const char* path, const imp_cproblem* p, const char* title, char* err,
                   size_t nerr) {
  if (!fclib_io_representable(p)) {
    set_err(err, nerr, path, "not an FCLIB local problem: blocks other than condim-3 contacts");
    return -1;
  }
  int n = p->n;
  struct fclib_matrix W;
  double* q = malloc(sizeof(double) * (size_t)n);
  double* mu = malloc(sizeof(double) * (size_t)p->nblock);
  if (!q || !mu || dense_to_csc(p->A, n, &W)) {
    free(q), free(mu);
    set_err(err, nerr, path, "out of memory");
    return -1;
  }
  /* FCLIB's u = W r + q is our v - b: q = v0 - b (fclib_io.h) */
  for (int i = 0; i < n; i++) q[i] = p->v0[i] - p->b[i];
  memcpy(mu, p->mu, sizeof(double) * (size_t)p->nblock);
  char desc[256], ttl[512];
  snprintf(ttl, sizeof ttl, "%s", title ? title : "impetus problem");
  snprintf(desc, sizeof desc,
           "Impetus contact problem: W = A = K M^-1 K' (Delassus), q = v0 - b; timestep %.17g",
           p->h);
  char math[] = "W symmetric positive semidefinite";
  struct fclib_info info = {ttl, desc, math};
  struct fclib_local lp = {&W, NULL, NULL, mu, q, NULL, 3, &info};
  /* a new temporary file of our own beside path (tmpfile.h: never a link
     or a file someone else made, unique per writer, as the recorder's);
     HDF5 opens files by name, so it reopens the one we just created */
  char* tmp = NULL;
  int fd = imp_tmpfile_target_ok(path) == 0 ? imp_tmpfile_create(path, &tmp) : -1;
  int rc = -1;
  if (fd < 0) {
    set_err(err, nerr, path, "cannot create a temporary file beside it: %s", strerror(errno));
    free(W.x), free(q), free(mu);
    return -1;
  }
  close(fd);
  if (create_empty_hdf5(tmp)) {
    set_err(err, nerr, path, "cannot create %s: %s", tmp, strerror(errno ? errno : EACCES));
  } else if (!fclib_write_local(&lp, tmp)) {
    set_err(err, nerr, path, "libfclib could not write the problem");
  } else if (imp_tmpfile_commit(tmp, path) != 0) {
    set_err(err, nerr, path, "cannot rename %s: %s", tmp, strerror(errno));
  } else {
    rc = 0;
  }
  if (rc) unlink(tmp);
  free(tmp);
  free(W.x), free(q), free(mu);
  return rc;
}

/* ---- checking a file before libfclib reads it ---- */

/* Elements of dataset name in loc, and its type class; -1 when there is no
   such dataset. *badstr: 1 for a string libfclib cannot read safely. */
static long long dataset_count(hid_t loc, const char* name, H5T_class_t* cls, int* badstr) {
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d), t = H5Dget_type(d);
  long long npts = s >= 0 ? (long long)H5Sget_simple_extent_npoints(s) : -1;
  *cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  /* libfclib reads strings into a buffer of the type's size and uses them
     as C strings: variable-length or unterminated ones would overrun it */
  *badstr = t >= 0 && *cls == H5T_STRING &&
            (H5Tis_variable_str(t) != 0 || H5Tget_strpad(t) != H5T_STR_NULLTERM);
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  return npts;
}

/* The checker's state: where it looks and the first problem it found. */
typedef struct checker {
  const char* path;
  char* err;
  size_t nerr;
  int failed;
} checker;

/* Record the first problem found as "path: message"; returns -1. */
static int fail(checker* c, const char* fmt, ...) {
  if (!c->failed) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_err(c->err, c->nerr, c->path, "%s", msg);
  }
  c->failed = 1;
  return -1;
}

static const char* class_name(H5T_class_t cls) {
  return cls == H5T_INTEGER ? "integer" : cls == H5T_FLOAT ? "floating-point" : "string";
}

/* Dataset name of loc must exist with count elements of class cls
   (count < 0: any). Returns its count, or -1 after recording why. */
static long long need(checker* c, hid_t loc, const char* where, const char* name,
                      H5T_class_t cls, long long count) {
  H5T_class_t got;
  int badstr;
  char what[256];
  snprintf(what, sizeof what, "%s%s", where, name);
  long long k = dataset_count(loc, name, &got, &badstr);
  if (k < 0) return fail(c, "not an FCLIB local problem: no dataset %s", what);
  if (got != cls) return fail(c, "dataset %s is not of %s type", what, class_name(cls));
  if (cls == H5T_STRING && badstr)
    return fail(c, "dataset %s is not a fixed-length, null-terminated string (libfclib "
                   "cannot read it)", what);
  if (count >= 0 && k != count)
    return fail(c, "dataset %s has %lld elements, expected %lld", what, k, count);
  return k;
}

/* One int read from a one-element integer dataset (after need()). */
static int read_int(hid_t loc, const char* name) {
  int v = 0;
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d >= 0) {
    if (H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0) v = 0;
    H5Dclose(d);
  }
  return v;
}

static int need_int(checker* c, hid_t loc, const char* where, const char* name, int* v) {
  if (need(c, loc, where, name, H5T_INTEGER, 1) < 0) return -1;
  *v = read_int(loc, name);
  return 0;
}

/* If an optional string dataset is there, it must be one libfclib can read. */
static void check_optional_string(checker* c, hid_t loc, const char* where, const char* name) {
  if (H5Lexists(loc, name, H5P_DEFAULT) > 0) need(c, loc, where, name, H5T_STRING, 1);
}

/* The matrix group W as libfclib's read_matrix will read it. *m gets rows. */
static void check_matrix(checker* c, hid_t file, int* rows) {
  hid_t g = H5Gopen2(file, "/fclib_local/W", H5P_DEFAULT);
  if (g < 0) {
    fail(c, "not an FCLIB local problem: no group /fclib_local/W");
    return;
  }
  const char* w = "/fclib_local/W/";
  int nzmax = 0, m = 0, n = 0, nz = 0;
  if (!need_int(c, g, w, "nzmax", &nzmax) && !need_int(c, g, w, "m", &m) &&
      !need_int(c, g, w, "n", &n) && !need_int(c, g, w, "nz", &nz)) {
    if (m != n) fail(c, "W is %d x %d, not square", m, n);
    else if (m <= 0 || m > FCLIB_IO_MAX_ROWS)
      fail(c, "W has %d rows: 1 to %d supported (dense matrices here)", m, FCLIB_IO_MAX_ROWS);
    else if (m % 3) fail(c, "W has %d rows, not 3 per contact", m);
    else if (nzmax < 0 || (long long)nzmax > (long long)m * n || nz < -2 || nz > nzmax)
      fail(c, "W: inconsistent nzmax %d, nz %d", nzmax, nz);
    else {
      long long np = nz >= 0 ? nz : nz == -1 ? n + 1 : m + 1;
      long long ni = nz >= 0 ? nz : nzmax;
      need(c, g, w, "p", H5T_INTEGER, np);
      need(c, g, w, "i", H5T_INTEGER, ni);
      need(c, g, w, "x", H5T_FLOAT, nzmax);
      if (H5Lexists(g, "conditioning", H5P_DEFAULT) > 0) { /* libfclib then reads all four */
        need(c, g, w, "conditioning", H5T_FLOAT, 1);
        need(c, g, w, "determinant", H5T_FLOAT, 1);
        need(c, g, w, "rank", H5T_INTEGER, 1);
        check_optional_string(c, g, w, "comment");
      }
    }
  }
  *rows = m;
  H5Gclose(g);
}

/* Everything of /fclib_local that libfclib's fclib_read_local touches. */
static void check_local_problem(checker* c, hid_t file) {
  if (H5Lexists(file, "/fclib_local", H5P_DEFAULT) <= 0) {
    if (H5Lexists(file, "/fclib_global", H5P_DEFAULT) > 0)
      fail(c, "an FCLIB global problem (M, H, G): only local problems (W, q, mu) are supported");
    else
      fail(c, "not an FCLIB problem file (no group /fclib_local)");
    return;
  }
  int dim = 0, m = 0;
  if (need_int(c, file, "", "/fclib_local/spacedim", &dim)) return;
  if (dim == 2) {
    fail(c, "spacedim 2 (2D friction): only 3D contacts (spacedim 3) are supported");
    return;
  }
  if (dim != 3) {
    fail(c, "spacedim %d: FCLIB allows 2 or 3, this reader 3", dim);
    return;
  }
  if (H5Lexists(file, "/fclib_local/V", H5P_DEFAULT) > 0 ||
      H5Lexists(file, "/fclib_local/R", H5P_DEFAULT) > 0) {
    fail(c, "a mixed problem (V, R, s: equality multipliers) is not supported");
    return;
  }
  check_matrix(c, file, &m);
  if (c->failed) return;
  const char* v = "/fclib_local/vectors/";
  hid_t g = H5Gopen2(file, "/fclib_local/vectors", H5P_DEFAULT);
  if (g < 0) {
    fail(c, "not an FCLIB local problem: no group /fclib_local/vectors");
    return;
  }
  need(c, g, v, "q", H5T_FLOAT, m);
  need(c, g, v, "mu", H5T_FLOAT, m / 3);
  H5Gclose(g);
  if (H5Lexists(file, "/fclib_local/info", H5P_DEFAULT) > 0) {
    g = H5Gopen2(file, "/fclib_local/info", H5P_DEFAULT);
    if (g < 0) fail(c, "/fclib_local/info is not a group");
    else {
      const char* in = "/fclib_local/info/";
      check_optional_string(c, g, in, "title");
      check_optional_string(c, g, in, "description");
      check_optional_string(c, g, in, "math_info");
      H5Gclose(g);
    }
  }
}

/* 0 when path is an HDF5 file holding a local problem libfclib can read. */
static int check_file(const char* path, char* err, size_t nerr) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    set_err(err, nerr, path, "cannot open: %s", strerror(errno));
    return -1;
  }
  fclose(f);
  checker c = {path, err, nerr, 0};
  h5_quiet q = h5_quiet_begin();
  if (H5Fis_hdf5(path) <= 0) {
    set_err(err, nerr, path, "not an HDF5 file");
    c.failed = 1;
  } else {
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
      set_err(err, nerr, path, "HDF5 cannot open it");
      c.failed = 1;
    } else {
      check_local_problem(&c, file);
      H5Fclose(file);
    }
  }
  h5_quiet_end(q);
  return c.failed ? -1 : 0;
}

/* ---- converting what libfclib read ---- */

/* Add W's entries to the dense row-major A (n x n, zeroed). Returns 0, or
   -1 when an index is out of range or the column/row pointers are not
   monotone within [0, nzmax]. Triplet duplicates are summed (CSparse's
   convention for triplet form). */
static int sparse_to_dense(const struct fclib_matrix* W, double* A) {
  int n = W->n, m = W->m;
  if (W->nz >= 0) {
    for (int k = 0; k < W->nz; k++) {
      int i = W->p[k], j = W->i[k];
      if (i < 0 || i >= m || j < 0 || j >= n) return -1;
      A[(size_t)i * (size_t)n + (size_t)j] += W->x[k];
    }
    return 0;
  }
  int outer = W->nz == -1 ? n : m, inner = W->nz == -1 ? m : n;
  if (W->p[0] < 0) return -1;
  for (int j = 0; j < outer; j++) {
    if (W->p[j + 1] < W->p[j] || W->p[j + 1] > W->nzmax) return -1;
    for (int k = W->p[j]; k < W->p[j + 1]; k++) {
      int i = W->i[k];
      if (i < 0 || i >= inner) return -1;
      size_t r = W->nz == -1 ? (size_t)i : (size_t)j, col = W->nz == -1 ? (size_t)j : (size_t)i;
      A[r * (size_t)n + col] += W->x[k];
    }
  }
  return 0;
}

static int all_finite(const double* v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* Our time step from our own description ("timestep H"), else 0. */
static double timestep_of(const struct fclib_local* lp) {
  const char* d = lp->info ? lp->info->description : NULL;
  const char* t = d ? strstr(d, "timestep ") : NULL;
  double h = t ? strtod(t + 9, NULL) : 0;
  return isfinite(h) && h > 0 ? h : 0;
}

/* lp as an imp_cproblem in one allocation (cproblem_block.h, as the
   comparison's recorder keeps its problems). */
static int local_to_cproblem(const struct fclib_local* lp, imp_cproblem* out, void** mem,
                             const char* path, char* err, size_t nerr) {
  size_t n = (size_t)lp->W->m, nb = n / 3;
  cproblem_arrays a;
  char* blk = cproblem_block_alloc(n, nb, &a);
  if (!blk) {
    set_err(err, nerr, path, "out of memory for %zu rows", n);
    return -1;
  }
  double *mu = a.mu, *A = a.A, *v0 = a.v0, *b = a.b;
  int *adr = a.adr, *dim = a.dim, *type = a.type;
  const char* why = NULL;
  if (sparse_to_dense(lp->W, A)) why = "W has an index out of range";
  else if (!all_finite(A, n * n)) why = "W has a non-finite entry";
  else if (!all_finite(lp->q, n)) why = "q has a non-finite entry";
  for (size_t k = 0; k < nb && !why; k++)
    if (!(lp->mu[k] >= 0) || !isfinite(lp->mu[k])) why = "mu has a negative or non-finite entry";
  if (why) {
    set_err(err, nerr, path, "%s", why);
    free(blk);
    return -1;
  }
  memcpy(v0, lp->q, sizeof(double) * n); /* b stays 0: q = v0 - b */
  memcpy(mu, lp->mu, sizeof(double) * nb);
  for (size_t k = 0; k < nb; k++) adr[k] = 3 * (int)k, dim[k] = 3, type[k] = IMP_CNSTR_CONTACT;
  *out = (imp_cproblem){(int)n, (int)nb, adr, dim, type, mu, A, v0, b, timestep_of(lp), NULL, 0, 0, NULL, NULL, 0, NULL, NULL};
  *mem = blk;
  return 0;
}

int fclib_io_read(const char* path, imp_cproblem* out, void** mem, char* err, size_t nerr) {
  *mem = NULL;
  if (check_file(path, err, nerr)) return -1;
  struct fclib_local* lp = fclib_read_local(path);
  if (!lp) {
    set_err(err, nerr, path, "libfclib could not read the local problem");
    return -1;
  }
  int rc = local_to_cproblem(lp, out, mem, path, err, nerr);
  fclib_delete_local(lp); /* frees the members, not the struct */
  free(lp);
  return rc;
}

#endif /* IMP_HAVE_FCLIB */
