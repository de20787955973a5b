/* The loader's shared utilities (loader.h, "xml.c: utilities shared by the
 * loader files" before they moved here): the arena and vectors of the
 * spec, errors and warnings with file:line, the refusal of unsupported
 * physics (ld_unsupported) and what only warns, attribute readers that mark
 * what they read, and frames (pos/quat/axisangle/euler/xyaxes/zaxis). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

/* ---------------------------------------------------------------- memory */

void* ld_alloc(ld_ctx* c, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!c->arena || c->arena->used + n > c->arena->cap) {
    size_t cap = n > 65536 ? n : 65536;
    ld_block* b = malloc(sizeof(ld_block) + 16 + cap);
    if (!b) ld_error(c, "", 0, "out of memory");
    b->next = c->arena;
    b->used = 0;
    b->cap = cap;
    c->arena = b;
  }
  char* base = (char*)c->arena + ((sizeof(ld_block) + 15) & ~(size_t)15);
  void* p = base + c->arena->used;
  c->arena->used += n;
  memset(p, 0, n);
  return p;
}

const char* ld_strdup(ld_ctx* c, const char* s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char* p = ld_alloc(c, n);
  memcpy(p, s, n);
  return p;
}

void* ld_push(ld_ctx* c, ld_vec* v) {
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 16;
    char* d = realloc(v->data, (size_t)cap * v->elsz);
    if (!d) ld_error(c, "", 0, "out of memory");
    v->data = d;
    v->cap = cap;
  }
  void* p = v->data + (size_t)v->n * v->elsz;
  memset(p, 0, v->elsz);
  v->n++;
  return p;
}

/* ------------------------------------------------------------ files */

char* ld_read_regular_file(ld_ctx* c, const char* path, long max, long* size, const char** why) {
  /* O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever
     (issue 15); it changes nothing for a regular file */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = "cannot open file";
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    *why = "not a regular file (a directory, device or pipe cannot be read as a model file)";
    return NULL;
  }
  if (st.st_size > max) {
    close(fd);
    *why = "file too large";
    return NULL;
  }
  long n = (long)st.st_size, got = 0;
  char* buf = ld_alloc(c, (size_t)n + 1); /* zeroed: NUL-terminated */
  while (got < n) {
    ssize_t k = read(fd, buf + got, (size_t)(n - got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += k;
  }
  close(fd);
  if (got != n) {
    *why = "cannot read file";
    return NULL;
  }
  *size = n;
  return buf;
}

/* ------------------------------------------------------ errors, warnings */

void ld_error(ld_ctx* c, const char* file, int line, const char* fmt, ...) {
  if (c->err && c->errsz > 0) {
    int k = 0;
    if (file && file[0]) k = snprintf(c->err, (size_t)c->errsz, "%s:%d: ", file, line);
    if (k < 0) k = 0;
    if (k < c->errsz) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(c->err + k, (size_t)(c->errsz - k), fmt, ap);
      va_end(ap);
    }
  }
  longjmp(c->jb, 1);
}

void ld_warning(ld_ctx* c, const char* key, const char* file, int line, const char* fmt, ...) {
  for (int i = 0; i < c->warnkeys.n; i++)
    if (!strcmp(*LD_AT(c->warnkeys, const char*, i), key)) return;
  *(const char**)ld_push(c, &c->warnkeys) = ld_strdup(c, key);
  char msg[1024];
  int k = snprintf(msg, sizeof msg, "%s:%d: warning: ", file, line);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
  va_end(ap);
  size_t len = strlen(msg);
  if (c->nwarn_bytes + len + 2 > c->capwarn) {
    size_t cap = 2 * (c->capwarn + len + 2);
    char* w = realloc(c->warn, cap);
    if (!w) ld_error(c, "", 0, "out of memory");
    c->warn = w;
    c->capwarn = cap;
  }
  memcpy(c->warn + c->nwarn_bytes, msg, len);
  c->nwarn_bytes += len;
  c->warn[c->nwarn_bytes++] = '\n';
  c->warn[c->nwarn_bytes] = 0;
  c->nwarning++;
}

void ld_asset_error(ld_ctx* c, const char* kind, const char* name, const char* path,
                    const char* file, int line, const char* fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (path) ld_error(c, file, line, "%s '%s' (file '%s'): %s", kind, name ? name : "", path, msg);
  ld_error(c, file, line, "%s '%s': %s", kind, name ? name : "", msg);
}

void ld_unsupported(ld_ctx* c, const char* key, const char* file, int line, const char* fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (c->allow_unsupported) {
    ld_warning(c, key, file, line, "%s", msg);
    return;
  }
  ld_error(c, file, line,
           "%s; the model would not run as written, so it is refused (--allow-unsupported, or "
           "IMP_LOAD_ALLOW_UNSUPPORTED, loads it anyway with a warning)",
           msg);
}

/* What we do not implement but changes nothing the simulation computes:
   appearance, user data, and hints to MuJoCo's own compiler. A warning;
   anything else unknown is taken to change the physics (ld_unsupported),
   as MuJoCo itself refuses what it does not know. */
static int harmless_element(const char* name) {
  static const char* const k[] = {"skin", "custom", NULL};
  for (int i = 0; k[i]; i++)
    if (!strcmp(name, k[i])) return 1;
  return 0;
}

static int harmless_attribute(const char* elem, const char* attr) {
  static const char* const k[][2] = {
      {"material", "metallic"},  {"material", "roughness"}, {"material", "emission"},
      {"light", "type"},         {"light", "intensity"},    {"light", "range"},
      {"light", "texture"},      {"camera", "orthographic"}, {"camera", "projection"},
      /* MuJoCo merges static bodies into their parents: the same dynamics */
      {"compiler", "fusestatic"}, {"compiler", "discardvisual"}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (!strcmp(elem, k[i][0]) && !strcmp(attr, k[i][1])) return 1;
  return 0;
}

void ld_warn_element(ld_ctx* c, ld_node* n) {
  char key[160];
  snprintf(key, sizeof key, "e:%s", n->name);
  if (harmless_element(n->name))
    ld_warning(c, key, n->file, n->line, "element '%s' is not supported yet (ignored)", n->name);
  else
    ld_unsupported(c, key, n->file, n->line, "element '%s' is not supported yet", n->name);
}

/* ------------------------------------------------------------ attributes */

static ld_attr* find_attr(ld_node* n, const char* name) {
  for (int i = 0; i < n->nattr; i++)
    if (!strcmp(n->attr[i].name, name)) {
      n->attr[i].used = 1;
      return &n->attr[i];
    }
  return NULL;
}

const char* ld_attr_str(ld_node* n, const char* name) {
  ld_attr* a = find_attr(n, name);
  return a ? a->value : NULL;
}

void ld_accept(ld_node* n, const char* const* names) {
  for (; *names; names++) find_attr(n, *names);
}

void ld_warn_unused(ld_ctx* c, ld_node* n) {
  for (int i = 0; i < n->nattr; i++)
    if (!n->attr[i].used) {
      char key[200];
      const char* a = n->attr[i].name;
      snprintf(key, sizeof key, "a:%s/%s", n->name, a);
      if (harmless_attribute(n->name, a))
        ld_warning(c, key, n->file, n->line, "attribute '%s' of '%s' is not supported yet (ignored)",
                   a, n->name);
      else
        ld_unsupported(c, key, n->file, n->line, "attribute '%s' of '%s' is not supported yet", a,
                       n->name);
    }
}

/* count and parse the numbers of a value; out may be NULL (count only) */
static int parse_numbers(ld_ctx* c, ld_node* n, const char* name, const char* s, double* out,
                         int max) {
  int k = 0;
  const char* p = s;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p) break;
    char* end;
    double v = strtod(p, &end);
    if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
      ld_error(c, n->file, n->line, "attribute '%s' of '%s': '%s' is not a number", name, n->name,
               s);
    /* no attribute of MJCF means infinity or "not a number": such a value
       (or one that overflows, 1e999) would load and then reset the
       simulation every step (issue 15) */
    if (!isfinite(v))
      ld_error(c, n->file, n->line, "attribute '%s' of '%s': '%.*s' is not a finite number",
               name, n->name, (int)(end - p), p);
    if (out && k < max) out[k] = v;
    k++;
    p = end;
  }
  return k;
}

int ld_attr_nums(ld_ctx* c, ld_node* n, const char* name, double* out, int nmin, int nmax) {
  const char* s = ld_attr_str(n, name);
  if (!s) return -1;
  double tmp[64];
  int k = parse_numbers(c, n, name, s, tmp, 64);
  /* an empty value (rgba="", in Menagerie's trossen_wxai) is the attribute
     left out, as current MuJoCo reads it */
  if (k == 0 && nmin > 0) return -1;
  if (k < nmin || k > nmax) {
    if (nmin == nmax)
      ld_error(c, n->file, n->line, "attribute '%s' of '%s': expected %d numbers, got %d", name,
               n->name, nmin, k);
    ld_error(c, n->file, n->line, "attribute '%s' of '%s': expected %d to %d numbers, got %d",
             name, n->name, nmin, nmax, k);
  }
  memcpy(out, tmp, sizeof(double) * (size_t)k);
  return k;
}

int ld_attr_numlist(ld_ctx* c, ld_node* n, const char* name, double* out, int max) {
  const char* s = ld_attr_str(n, name);
  return s ? parse_numbers(c, n, name, s, out, max) : -1;
}

int ld_attr_float(ld_ctx* c, ld_node* n, const char* name, float* out, int nmin, int nmax) {
  double tmp[64];
  int k = ld_attr_nums(c, n, name, tmp, nmin, nmax);
  for (int i = 0; i < k; i++) out[i] = (float)tmp[i];
  return k;
}

int ld_attr_int(ld_ctx* c, ld_node* n, const char* name, int* out) {
  double v;
  if (ld_attr_nums(c, n, name, &v, 1, 1) < 0) return 0;
  if (v != floor(v) || fabs(v) > 1e9)
    ld_error(c, n->file, n->line, "attribute '%s' of '%s': expected an integer", name, n->name);
  *out = (int)v;
  return 1;
}

int ld_attr_keyword(ld_ctx* c, ld_node* n, const char* name, const char* const* words, int* out) {
  const char* s = ld_attr_str(n, name);
  if (!s) return 0;
  for (int i = 0; words[i]; i++)
    if (!strcmp(s, words[i])) {
      *out = i;
      return 1;
    }
  ld_error(c, n->file, n->line, "attribute '%s' of '%s': unknown value '%s'", name, n->name, s);
}

int ld_attr_bool(ld_ctx* c, ld_node* n, const char* name, int* out) {
  static const char* const w[] = {"false", "true", NULL};
  return ld_attr_keyword(c, n, name, w, out);
}

int ld_attr_limited(ld_ctx* c, ld_node* n, const char* name, int* out) {
  static const char* const w[] = {"false", "true", "auto", NULL};
  int v;
  if (!ld_attr_keyword(c, n, name, w, &v)) return 0;
  *out = v == 2 ? -1 : v;
  return 1;
}

int ld_read_frame(ld_ctx* c, ld_node* n, double pos[3], double quat[4]) {
  ld_attr_nums(c, n, "pos", pos, 3, 3);
  double v[6];
  int given = 0;
  double unit = c->degree ? IMP_PI / 180 : 1;
  static const char* const forms[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  for (int f = 0; f < 5; f++) {
    static const int cnt[] = {4, 4, 3, 6, 3};
    if (ld_attr_nums(c, n, forms[f], v, cnt[f], cnt[f]) < 0) continue;
    if (given++)
      ld_error(c, n->file, n->line, "'%s': more than one orientation given", n->name);
    if (f == 0) {
      imp_copy(quat, v, 4);
      if (imp_quat_normalize(quat) < IMP_MINVAL)
        ld_error(c, n->file, n->line, "'%s': zero quaternion", n->name);
    } else if (f == 1) {
      if (imp_normalize3(v) < IMP_MINVAL)
        ld_error(c, n->file, n->line, "'%s': zero axis in axisangle", n->name);
      imp_axisangle2quat(quat, v, v[3] * unit);
    } else if (f == 2) {
      for (int i = 0; i < 3; i++) v[i] *= unit;
      if (imp_euler2quat(quat, v, c->eulerseq))
        ld_error(c, n->file, n->line, "bad compiler eulerseq '%s'", c->eulerseq);
    } else if (f == 3) {
      double R[9], x[3] = {v[0], v[1], v[2]}, y[3] = {v[3], v[4], v[5]}, z[3];
      if (imp_normalize3(x) < IMP_MINVAL)
        ld_error(c, n->file, n->line, "'%s': zero x axis in xyaxes", n->name);
      imp_add_scl(y, x, -imp_dot(x, y, 3), 3);
      if (imp_normalize3(y) < IMP_MINVAL)
        ld_error(c, n->file, n->line, "'%s': y axis parallel to x in xyaxes", n->name);
      imp_cross(z, x, y);
      for (int i = 0; i < 3; i++) {
        R[3 * i] = x[i];
        R[3 * i + 1] = y[i];
        R[3 * i + 2] = z[i];
      }
      imp_mat2quat(quat, R);
    } else {
      if (imp_norm3(v) < IMP_MINVAL)
        ld_error(c, n->file, n->line, "'%s': zero zaxis", n->name);
      imp_quat_z2vec(quat, v);
    }
  }
  return given;
}

void ld_frame_apply(const double fpos[3], const double fquat[4], double pos[3], double quat[4]) {
  double p[3], q[4];
  imp_quat_rotate(p, fquat, pos);
  for (int i = 0; i < 3; i++) pos[i] = fpos[i] + p[i];
  imp_quat_mul(q, fquat, quat);
  imp_quat_normalize(q);
  imp_copy(quat, q, 4);
}

