/* Mesh assets: file readers, convex hull, mass frame.
 *
 * A mesh goes through three steps, each its own group of functions:
 *  1. a reader per format fills a vertex list and a triangle list:
 *     binary STL (80-byte header, uint32 count, 50 bytes a triangle, the
 *     size must match exactly), ASCII STL ("solid ... facet normal ... outer
 *     loop, vertex x y z (3 times), endloop, endfacet ... endsolid") and
 *     Wavefront OBJ ("v x y z", "vt u [v [w]]"; "f" with v, v/vt, v//vn or
 *     v/vt/vn items, negative indices counted back from the last vertex
 *     read, polygons fan-triangulated; other statements ignored). Texture
 *     coordinates are kept per face corner when every face item names one
 *     (a vertex may have different ones on different faces: a seam), with
 *     v flipped to 1 - v as MuJoCo 2.2.2 does (its images' first row is
 *     the top; OBJ's v runs up from the bottom). STL stores each triangle
 *     with its own corners, so equal corners are merged into one vertex;
 *  2. the convex hull by qhull (reentrant API): the indices of the hull's
 *     vertices, and its triangles for the fallback below; at most
 *     maxhullvert vertices when the <mesh> asks (qhull_flags), a hull that
 *     collision, inertia="convex" and the fallback then use. A flat mesh (qhull
 *     finds no volume) gets the polygon around its vertices in their plane
 *     (qhull in 2D on the two widest principal directions) and no triangles;
 *     vertices on a line are an error;
 *  3. the mass frame: volume, centroid and inertia tensor of the closed
 *     triangle surface by the divergence theorem, summing signed tetrahedra
 *     (origin, a, b, c) (Mirtich 1996, "Fast and accurate computation of
 *     polyhedral mass properties"; the covariance form of Blow and Binstock
 *     2004): a tetrahedron with vertices 0, a, b, c has volume
 *     v = a.(b x c)/6 and second moment
 *       C = v/20 (a a' + b b' + c c' + s s'),  s = a + b + c,
 *     about the origin; summed over the surface, shifted to the centroid
 *     (C - V g g') and turned into the inertia tensor trace(C) 1 - C. When
 *     the volume is not positive (an open or inconsistently oriented
 *     surface), the hull's triangles are used instead, with a warning when a
 *     geom takes mass from the mesh. <mesh inertia="shell"> integrates the
 *     surface as a thin shell instead (triangle area A: A/12 in place of
 *     v/20), "convex" the hull. A flat mesh is placed by its surface's frame
 *     and has no volume: only a geom that would take mass from it is an
 *     error (ld_mesh_check_mass). The vertices are then re-expressed in the
 *     frame at the centroid whose axes are the principal axes, moments
 *     decreasing (as MuJoCo 2.2.2), and the geom's pos/quat are later
 *     composed with this frame.
 * All memory is the loader's arena, so an error (longjmp) leaks nothing;
 * qhull's own memory is freed before any error is raised. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libqhull_r/qhull_ra.h>

#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

#define MESH_MAXFILE ((long)1 << 31) /* bytes: counts stay well inside int */

/* a raw mesh while it is read */
typedef struct raw_mesh {
  int nvert, nface;
  double* vert;
  int* face;
  int ntex;      /* OBJ "vt" lines */
  double* tex;   /* ntex x 2, as in the file */
  int* facetex;  /* nface x 3: indices into tex, -1 where a face item has none */
  int texmissing; /* face corners without one in a file that has some (then none kept) */
} raw_mesh;

/* "mesh 'name' (file 'path')" errors at the <mesh> element */
#define MESH_ERROR(c, me, ...) \
  ld_asset_error(c, "mesh", (me)->name, (me)->path, (me)->file, (me)->line, __VA_ARGS__)

/* the whole file in arena memory, NUL-terminated */
static char* read_file(ld_ctx* c, const ld_mesh* me, long* size) {
  const char* why = NULL;
  char* buf = ld_read_regular_file(c, me->path, MESH_MAXFILE, size, &why);
  if (!buf) MESH_ERROR(c, me, "%s", why);
  return buf;
}

/* ------------------------------------------------------------ binary STL */

static float read_f32(const unsigned char* p) {
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void read_stl_binary(ld_ctx* c, const ld_mesh* me, const char* buf, long size,
                            raw_mesh* r) {
  const unsigned char* p = (const unsigned char*)buf;
  if (size < 84) MESH_ERROR(c, me, "binary STL truncated: %ld bytes, the header needs 84", size);
  uint32_t n = (uint32_t)p[80] | (uint32_t)p[81] << 8 | (uint32_t)p[82] << 16 |
               (uint32_t)p[83] << 24;
  if ((uint64_t)size != 84 + 50 * (uint64_t)n)
    MESH_ERROR(c, me, "binary STL of %u triangles must have %llu bytes, not %ld", n,
               (unsigned long long)(84 + 50 * (uint64_t)n), size);
  r->nface = (int)n;
  r->nvert = 3 * (int)n;
  r->vert = ld_alloc(c, sizeof(double) * 9 * (size_t)(n ? n : 1));
  r->face = ld_alloc(c, sizeof(int) * 3 * (size_t)(n ? n : 1));
  for (uint32_t t = 0; t < n; t++) {
    const unsigned char* q = p + 84 + 50 * (size_t)t + 12; /* skip the normal */
    for (int k = 0; k < 9; k++) r->vert[9 * t + k] = read_f32(q + 4 * k);
    for (int k = 0; k < 3; k++) r->face[3 * t + k] = 3 * (int)t + k;
  }
}

/* ------------------------------------------------------------- ASCII STL */

/* a whitespace-separated token reader that counts lines */
typedef struct tokens {
  const char* p;
  int line;
  char tok[64];
} tokens;

static const char* next_token(tokens* t) {
  while (*t->p && isspace((unsigned char)*t->p)) {
    if (*t->p == '\n') t->line++;
    t->p++;
  }
  size_t k = 0;
  while (*t->p && !isspace((unsigned char)*t->p)) {
    if (k + 1 < sizeof t->tok) t->tok[k++] = *t->p;
    t->p++;
  }
  t->tok[k] = 0;
  return t->tok;
}

static void skip_line(tokens* t) {
  while (*t->p && *t->p != '\n') t->p++;
}

static void expect_word(ld_ctx* c, const ld_mesh* me, tokens* t, const char* w) {
  if (strcmp(next_token(t), w))
    MESH_ERROR(c, me, "line %d: expected '%s', found '%s'", t->line, w,
               t->tok[0] ? t->tok : "end of file");
}

static double parse_number(ld_ctx* c, const ld_mesh* me, const char* s, int line) {
  char* end;
  double v = strtod(s, &end);
  if (end == s || *end) MESH_ERROR(c, me, "line %d: '%s' is not a number", line, s);
  if (!isfinite(v)) MESH_ERROR(c, me, "line %d: non-finite number '%s'", line, s);
  return v;
}

static void read_stl_ascii(ld_ctx* c, const ld_mesh* me, const char* buf, raw_mesh* r) {
  /* the number of triangles bounds the "facet" words */
  int cap = 0;
  for (const char* s = buf; (s = strstr(s, "facet")); s += 5) cap++;
  r->vert = ld_alloc(c, sizeof(double) * 9 * (size_t)(cap + 1));
  r->face = ld_alloc(c, sizeof(int) * 3 * (size_t)(cap + 1));
  tokens t = {buf, 1, ""};
  expect_word(c, me, &t, "solid");
  skip_line(&t); /* the solid's name */
  for (;;) {
    const char* w = next_token(&t);
    if (!strcmp(w, "endsolid")) break;
    if (strcmp(w, "facet"))
      MESH_ERROR(c, me, "line %d: expected 'facet' or 'endsolid', found '%s'", t.line,
                 w[0] ? w : "end of file");
    expect_word(c, me, &t, "normal");
    for (int k = 0; k < 3; k++) parse_number(c, me, next_token(&t), t.line);
    expect_word(c, me, &t, "outer");
    expect_word(c, me, &t, "loop");
    if (r->nface >= cap) MESH_ERROR(c, me, "line %d: too many facets", t.line);
    for (int v = 0; v < 3; v++) {
      expect_word(c, me, &t, "vertex");
      for (int k = 0; k < 3; k++)
        r->vert[3 * r->nvert + k] = parse_number(c, me, next_token(&t), t.line);
      r->face[3 * r->nface + v] = r->nvert++;
    }
    expect_word(c, me, &t, "endloop");
    expect_word(c, me, &t, "endfacet");
    r->nface++;
  }
}

/* ------------------------------------------------------------------ OBJ */

/* the next line of an OBJ file, NUL-terminated in place; NULL at the end */
static char* next_line(char** p) {
  if (!**p) return NULL;
  char* s = *p;
  char* e = strchr(s, '\n');
  if (e) {
    *e = 0;
    *p = e + 1;
  } else {
    *p = s + strlen(s);
  }
  char* hash = strchr(s, '#');
  if (hash) *hash = 0;
  return s;
}

/* vertex index of one face item ("7", "7/2", "7//3", "-1/2/3"), 0-based */
static int obj_index(ld_ctx* c, const ld_mesh* me, const char* item, int nseen, int line) {
  char* end;
  long v = strtol(item, &end, 10);
  if (end == item || (*end && *end != '/'))
    MESH_ERROR(c, me, "line %d: bad face vertex '%s'", line, item);
  long i = v > 0 ? v - 1 : v < 0 ? nseen + v : -1;
  if (v == 0 || i < 0 || i >= nseen)
    MESH_ERROR(c, me, "line %d: face vertex index %ld out of range (%d vertices so far)", line, v,
               nseen);
  return (int)i;
}

/* texture coordinate index of one face item ("7/2", "7/2/3", 0-based), -1
   when it has none ("7", "7//3") */
static int obj_texindex(ld_ctx* c, const ld_mesh* me, const char* item, int nseen, int line) {
  const char* slash = strchr(item, '/');
  if (!slash || slash[1] == '/' || !slash[1]) return -1;
  char* end;
  long v = strtol(slash + 1, &end, 10);
  if (end == slash + 1 || (*end && *end != '/'))
    MESH_ERROR(c, me, "line %d: bad texture coordinate index in '%s'", line, item);
  long i = v > 0 ? v - 1 : v < 0 ? nseen + v : -1;
  if (v == 0 || i < 0 || i >= nseen)
    MESH_ERROR(c, me,
               "line %d: texture coordinate index %ld out of range (%d texture coordinates so far)",
               line, v, nseen);
  return (int)i;
}

/* "vt u [v [w]]": u and v (v 0 when absent, as the OBJ format says) */
static void obj_texcoord(ld_ctx* c, const ld_mesh* me, char** save, int line, double uv[2]) {
  uv[0] = uv[1] = 0;
  for (int k = 0; k < 3; k++) {
    char* w = strtok_r(NULL, " \t\r", save);
    if (!w) {
      if (k == 0) MESH_ERROR(c, me, "line %d: a texture coordinate needs at least u", line);
      return;
    }
    double x = parse_number(c, me, w, line);
    if (k < 2) uv[k] = x;
  }
}

/* one pass over the file: counts only when r->vert is NULL, else fills */
static void obj_pass(ld_ctx* c, const ld_mesh* me, char* text, raw_mesh* r) {
  int fill = r->vert != NULL, nv = 0, nf = 0, nt = 0, line = 0;
  char* p = text;
  for (char* s; (s = next_line(&p));) {
    line++;
    char* save;
    char* key = strtok_r(s, " \t\r", &save);
    if (!key) continue;
    if (!strcmp(key, "v")) {
      for (int k = 0; k < 3; k++) {
        char* w = strtok_r(NULL, " \t\r", &save);
        if (!w) MESH_ERROR(c, me, "line %d: a vertex needs 3 coordinates", line);
        double x = parse_number(c, me, w, line);
        if (fill) r->vert[3 * nv + k] = x;
      }
      nv++;
    } else if (!strcmp(key, "vt")) {
      double uv[2];
      obj_texcoord(c, me, &save, line, uv);
      if (fill) r->tex[2 * nt] = uv[0], r->tex[2 * nt + 1] = uv[1];
      nt++;
    } else if (!strcmp(key, "f")) {
      int first = -1, prev = -1, k = 0, tfirst = -1, tprev = -1;
      for (char* w; (w = strtok_r(NULL, " \t\r", &save)); k++) {
        int i = obj_index(c, me, w, nv, line), t = obj_texindex(c, me, w, nt, line);
        if (k >= 2) { /* fan: (first, prev, i) */
          if (fill) {
            int corner[3] = {first, prev, i}, tcorner[3] = {tfirst, tprev, t};
            memcpy(r->face + 3 * nf, corner, sizeof corner);
            memcpy(r->facetex + 3 * nf, tcorner, sizeof tcorner);
          }
          nf++;
        }
        if (k == 0) first = i, tfirst = t;
        prev = i, tprev = t;
      }
      if (k < 3) MESH_ERROR(c, me, "line %d: a face needs at least 3 vertices", line);
    }
    /* vn, vp, g, o, s, l, usemtl, mtllib ...: not geometry we use */
  }
  r->nvert = nv;
  r->nface = nf;
  r->ntex = nt;
}

/* Keep the texture coordinates only when every face corner has one: a
   mesh textured in part would show the rest with an arbitrary corner of
   the image (MuJoCo's OBJ reader needs all or none too). How many corners
   lacked one is kept for the warning when a geom draws it with a texture
   (ld_put_scene_assets). */
static void obj_check_texcoords(raw_mesh* r) {
  int missing = 0;
  for (int k = 0; k < 3 * r->nface; k++) missing += r->facetex[k] < 0;
  r->texmissing = r->ntex > 0 ? missing : 0;
  if (r->ntex == 0 || missing > 0) r->ntex = 0, r->tex = NULL, r->facetex = NULL;
}

static void read_obj(ld_ctx* c, const ld_mesh* me, char* buf, long size, raw_mesh* r) {
  /* next_line cuts lines in place: count on a copy, then fill */
  char* copy = ld_alloc(c, (size_t)size + 1);
  memcpy(copy, buf, (size_t)size + 1);
  obj_pass(c, me, copy, r);
  int nv = r->nvert, nf = r->nface, nt = r->ntex;
  r->vert = ld_alloc(c, sizeof(double) * 3 * (size_t)(nv + 1));
  r->face = ld_alloc(c, sizeof(int) * 3 * (size_t)(nf + 1));
  r->tex = ld_alloc(c, sizeof(double) * 2 * (size_t)(nt + 1));
  r->facetex = ld_alloc(c, sizeof(int) * 3 * (size_t)(nf + 1));
  obj_pass(c, me, buf, r);
  obj_check_texcoords(r);
}

/* ------------------------------------------------ merging STL vertices */

/* A vertex with its index: sorting these needs no context beyond the two
   elements compared, so loads in several threads share nothing (qsort has
   no context argument, and a global one raced: issue 15). */
typedef struct keyed_vertex {
  double x[3];
  int id;
} keyed_vertex;

/* coordinates lexicographically, then the index: a total order, so the
   result does not depend on qsort's algorithm */
static int cmp_keyed_vertex(const void* a, const void* b) {
  const keyed_vertex* u = a;
  const keyed_vertex* v = b;
  for (int k = 0; k < 3; k++)
    if (u->x[k] != v->x[k]) return u->x[k] < v->x[k] ? -1 : 1;
  return (u->id > v->id) - (u->id < v->id);
}

/* one vertex per distinct position (exact equality), faces renumbered */
static void merge_vertices(ld_ctx* c, raw_mesh* r) {
  int n = r->nvert;
  int* order = ld_alloc(c, sizeof(int) * (size_t)(n + 1));
  int* newid = ld_alloc(c, sizeof(int) * (size_t)(n + 1));
  double* vert = ld_alloc(c, sizeof(double) * 3 * (size_t)(n + 1));
  keyed_vertex* kv = ld_alloc(c, sizeof(keyed_vertex) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    memcpy(kv[i].x, r->vert + 3 * i, sizeof kv[i].x);
    kv[i].id = i;
  }
  qsort(kv, (size_t)n, sizeof *kv, cmp_keyed_vertex);
  for (int i = 0; i < n; i++) order[i] = kv[i].id;
  /* ids in order of first appearance keep the file's order */
  int* first = ld_alloc(c, sizeof(int) * (size_t)(n + 1));
  for (int k = 0; k < n; k++) {
    int same = k > 0 && !memcmp(r->vert + 3 * order[k], r->vert + 3 * order[k - 1],
                                3 * sizeof(double));
    first[order[k]] = same ? first[order[k - 1]] : order[k];
  }
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (first[i] == i) {
      newid[i] = m;
      imp_copy(vert + 3 * m, r->vert + 3 * i, 3);
      m++;
    } else {
      newid[i] = newid[first[i]];
    }
  }
  for (int k = 0; k < 3 * r->nface; k++) r->face[k] = newid[r->face[k]];
  r->vert = vert;
  r->nvert = m;
}

/* ---------------------------------------------------------------- hull */

typedef struct hull {
  int nvert, nface;
  int* vert; /* indices of hull vertices, ascending */
  int* face; /* outward triangles */
} hull;

static int cmp_int(const void* a, const void* b) {
  return *(const int*)a - *(const int*)b;
}

/* copy qhull's vertices and (triangulated, outward) facets */
static void collect_hull(ld_ctx* c, qhT* qh, const double* pts, hull* h) {
  h->vert = ld_alloc(c, sizeof(int) * (size_t)(qh->num_vertices + 1));
  h->face = ld_alloc(c, sizeof(int) * 3 * (size_t)(qh->num_facets + 1));
  vertexT *vertex, **vertexp;
  facetT* facet;
  FORALLvertices h->vert[h->nvert++] = qh_pointid(qh, vertex->point);
  qsort(h->vert, (size_t)h->nvert, sizeof(int), cmp_int);
  FORALLfacets {
    int k = 0, id[3];
    FOREACHvertex_(facet->vertices) if (k < 3) id[k++] = qh_pointid(qh, vertex->point);
    if (k < 3) continue;
    double e1[3], e2[3], nrm[3];
    for (int i = 0; i < 3; i++) {
      e1[i] = pts[3 * id[1] + i] - pts[3 * id[0] + i];
      e2[i] = pts[3 * id[2] + i] - pts[3 * id[0] + i];
    }
    imp_cross(nrm, e1, e2);
    if (imp_dot(nrm, facet->normal, 3) < 0) { /* make it counter-clockwise outside */
      int tmp = id[1];
      id[1] = id[2];
      id[2] = tmp;
    }
    memcpy(h->face + 3 * h->nface++, id, sizeof id);
  }
}

/* qhull's options for a hull of at most maxvert vertices (-1: no limit).
   The cap is MuJoCo's <mesh maxhullvert> (MJCF reference: qhull is asked
   "to terminate after maxhullvert vertices"): qhull's "TAn" stops after n
   vertices added to the initial simplex (dim + 1 vertices), and "Q9" adds
   at each step the point furthest outside of all facets' outside sets, so
   the partial hull spans as much as n vertices allow (MuJoCo 3.x since its
   changelog's "improved the quality of coarse convex hulls"). Each added
   point maximizes a facet normal's direction over all points, so the
   partial hull's vertices are points of the full hull's surface. */
static void qhull_flags(char* flags, size_t n, int dim, int maxvert) {
  if (maxvert < 0) snprintf(flags, n, "qhull Qt");
  else snprintf(flags, n, "qhull Qt Q9 TA%d", maxvert - (dim + 1));
}

/* qhull's hull of n points of dimension dim (2 or 3) into h, of at most
   maxvert vertices (-1: all it needs); qhull's exit code, 0 when it found
   one */
static int run_qhull(ld_ctx* c, const ld_mesh* me, int dim, int n, double* pts, int maxvert,
                     hull* h) {
  FILE* errfile = fopen("/dev/null", "w"); /* qhull prints nothing */
  if (!errfile) MESH_ERROR(c, me, "cannot open /dev/null for qhull");
  qhT* qh = ld_alloc(c, sizeof(qhT));
  qh_zero(qh, errfile);
  char flags[64];
  qhull_flags(flags, sizeof flags, dim, maxvert);
  int code = qh_new_qhull(qh, dim, n, pts, False, flags, NULL, errfile);
  if (!code) collect_hull(c, qh, pts, h); /* in 2D: vertices only, no triangles */
  qh_freeqhull(qh, !qh_ALL);
  int curlong, totlong;
  qh_memfreeshort(qh, &curlong, &totlong);
  fclose(errfile);
  return code;
}

/* A flat mesh's hull: the polygon around its vertices in their plane,
   spanned by the two widest principal directions of the vertex cloud, as
   vertex indices and no triangles (the support function needs no more). An
   error when the vertices lie on a line. */
static void planar_hull(ld_ctx* c, const ld_mesh* me, const raw_mesh* r, hull* h) {
  int n = r->nvert;
  double mean[3] = {0, 0, 0}, S[9] = {0}, var[3], q[4], R[9];
  for (int v = 0; v < n; v++) imp_add_scl(mean, r->vert + 3 * v, 1.0 / n, 3);
  for (int v = 0; v < n; v++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        S[3 * i + j] += (r->vert[3 * v + i] - mean[i]) * (r->vert[3 * v + j] - mean[j]);
  imp_eig3(var, q, S);
  imp_quat2mat(R, q);
  double* p2 = ld_alloc(c, sizeof(double) * 2 * (size_t)n);
  for (int v = 0; v < n; v++)
    for (int k = 0; k < 2; k++) {
      p2[2 * v + k] = 0;
      for (int i = 0; i < 3; i++) p2[2 * v + k] += (r->vert[3 * v + i] - mean[i]) * R[3 * i + k];
    }
  *h = (hull){0, 0, NULL, NULL};
  if (!(var[1] > 1e-24 * var[0]) || run_qhull(c, me, 2, n, p2, me->maxhullvert, h) ||
      h->nvert < 3)
    MESH_ERROR(c, me, "degenerate mesh: its vertices span no area (all on a line?)");
  h->nface = 0;
}

/* The convex hull of the vertices: a polyhedron, or for a flat mesh (qhull
   finds no volume) the polygon in its plane, h->nface 0; of at most
   me->maxhullvert vertices when that is not -1 (qhull_flags). MuJoCo 3.x
   refuses a flat mesh; the cap applies to its polygon here the same way
   (qhull's initial simplex in 2D is 3 vertices). */
static void convex_hull(ld_ctx* c, const ld_mesh* me, const raw_mesh* r, hull* h) {
  if (!run_qhull(c, me, 3, r->nvert, r->vert, me->maxhullvert, h) && h->nvert >= 4 &&
      h->nface >= 4)
    return;
  planar_hull(c, me, r, h);
}

/* ----------------------------------------------------------- mass frame */

/* volume, centroid and second moment about the origin of the solid bounded
   by the triangles (divergence theorem, see the top of the file) */
static double surface_integrals(const double* vert, const int* face, int nface, double com[3],
                                double C[9]) {
  double V = 0, first[3] = {0, 0, 0};
  imp_zero(C, 9);
  for (int f = 0; f < nface; f++) {
    const double* a = vert + 3 * face[3 * f];
    const double* b = vert + 3 * face[3 * f + 1];
    const double* d = vert + 3 * face[3 * f + 2];
    double bxd[3], s[3];
    imp_cross(bxd, b, d);
    double v = imp_dot(a, bxd, 3) / 6;
    for (int i = 0; i < 3; i++) s[i] = a[i] + b[i] + d[i];
    V += v;
    imp_add_scl(first, s, v / 4, 3); /* tetrahedron centroid s/4 */
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        C[3 * i + j] += v / 20 * (a[i] * a[j] + b[i] * b[j] + d[i] * d[j] + s[i] * s[j]);
  }
  if (V != 0) imp_scl(com, first, 1 / V, 3);
  else imp_zero(com, 3);
  return V;
}

/* |volume| of the pyramid with apex p on triangle (a, b, d): the unsigned
   (a - p).((b - a) x (d - a)) / 6, the same for every apex on the
   triangle's plane, so any corner serves for (a - p) */
static double pyramid_volume(const double* p, const double* a, const double* b,
                             const double* d) {
  double e1[3], e2[3], n[3], r[3];
  for (int i = 0; i < 3; i++) e1[i] = b[i] - a[i], e2[i] = d[i] - a[i], r[i] = a[i] - p[i];
  imp_cross(n, e1, e2);
  return fabs(imp_dot(r, n, 3)) / 6;
}

/* MuJoCo's "legacy" mesh inertia, the default of <mesh inertia> (MJCF
   reference, mesh/inertia: "legacy ... leads to volume overcounting for
   non-convex meshes"): the surface is cut into pyramids with a common apex
   and each counts with its volume's absolute value, so a pyramid outside
   the solid adds mass instead of cancelling. The law, as MuJoCo 2.2.2
   applies it (and 3.x's legacy mode): the apex is first the area-weighted
   centroid of the triangles, which gives the centre of mass (each
   pyramid's at 3/4 of the way from the apex to its base's centroid); then
   the centre of mass, which gives the volume and the second moment (the
   tetrahedron formula of surface_integrals, with |v|). The same as
   surface_integrals for a convex surface seen from inside. Returns the
   volume; com; C the second moment about the origin (that about com plus
   V com com', which mass_frame takes off again). */
static double legacy_integrals(const double* vert, const int* face, int nface, double com[3],
                               double C[9]) {
  double area = 0, apex[3] = {0, 0, 0}, V = 0, first[3] = {0, 0, 0};
  for (int f = 0; f < nface; f++) { /* the triangles' area-weighted centroid */
    const double *a = vert + 3 * face[3 * f], *b = vert + 3 * face[3 * f + 1],
                 *d = vert + 3 * face[3 * f + 2];
    double e1[3], e2[3], n[3];
    for (int i = 0; i < 3; i++) e1[i] = b[i] - a[i], e2[i] = d[i] - a[i];
    imp_cross(n, e1, e2);
    double A = 0.5 * imp_norm3(n);
    area += A;
    for (int i = 0; i < 3; i++) apex[i] += A * (a[i] + b[i] + d[i]) / 3;
  }
  if (area > 0) imp_scl(apex, apex, 1 / area, 3);
  for (int f = 0; f < nface; f++) { /* centre of mass from pyramids at apex */
    const double *a = vert + 3 * face[3 * f], *b = vert + 3 * face[3 * f + 1],
                 *d = vert + 3 * face[3 * f + 2];
    double v = pyramid_volume(apex, a, b, d);
    V += v;
    for (int i = 0; i < 3; i++) first[i] += v * ((a[i] + b[i] + d[i]) / 4 + apex[i] / 4);
  }
  imp_zero(C, 9);
  if (!(V > 0)) {
    imp_zero(com, 3);
    return 0;
  }
  imp_scl(com, first, 1 / V, 3);
  V = 0;
  for (int f = 0; f < nface; f++) { /* volume and second moment about com */
    const double *a = vert + 3 * face[3 * f], *b = vert + 3 * face[3 * f + 1],
                 *d = vert + 3 * face[3 * f + 2];
    double v = pyramid_volume(com, a, b, d), ra[3], rb[3], rd[3], s[3];
    for (int i = 0; i < 3; i++) {
      ra[i] = a[i] - com[i], rb[i] = b[i] - com[i], rd[i] = d[i] - com[i];
      s[i] = ra[i] + rb[i] + rd[i];
    }
    V += v;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        C[3 * i + j] += v / 20 * (ra[i] * ra[j] + rb[i] * rb[j] + rd[i] * rd[j] + s[i] * s[j]);
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[3 * i + j] += V * com[i] * com[j];
  return V;
}

/* area, centroid and second moment about the origin of the triangles as a
   thin shell: a triangle (a, b, c) of area A has centroid s/3 and second
   moment A/12 (a a' + b b' + c c' + s s'), s = a + b + c (the simplex
   formula of the tetrahedron's v/20 one dimension down) */
static double shell_integrals(const double* vert, const int* face, int nface, double com[3],
                              double C[9]) {
  double A = 0, first[3] = {0, 0, 0};
  imp_zero(C, 9);
  for (int f = 0; f < nface; f++) {
    const double* a = vert + 3 * face[3 * f];
    const double* b = vert + 3 * face[3 * f + 1];
    const double* d = vert + 3 * face[3 * f + 2];
    double e1[3], e2[3], n[3], s[3];
    for (int i = 0; i < 3; i++) e1[i] = b[i] - a[i], e2[i] = d[i] - a[i], s[i] = a[i] + b[i] + d[i];
    imp_cross(n, e1, e2);
    double area = 0.5 * imp_norm3(n);
    A += area;
    imp_add_scl(first, s, area / 3, 3);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        C[3 * i + j] += area / 12 * (a[i] * a[j] + b[i] * b[j] + d[i] * d[j] + s[i] * s[j]);
  }
  if (A > 0) imp_scl(com, first, 1 / A, 3);
  else imp_zero(com, 3);
  return A;
}

/* the frame: centroid and principal axes; moments per unit density */
static void mass_frame(ld_mesh* me, double V, const double com[3], const double C[9]) {
  double Cc[9], I[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Cc[3 * i + j] = C[3 * i + j] - V * com[i] * com[j];
  double tr = Cc[0] + Cc[4] + Cc[8];
  for (int i = 0; i < 9; i++) I[i] = (i % 4 == 0 ? tr : 0) - Cc[i];
  me->volume = V;
  imp_copy(me->pos, com, 3);
  imp_eig3(me->inertia, me->quat, I);
}

/* vertices into the mesh frame: v' = R' (v - pos); box and bounding radius */
static void to_mesh_frame(ld_mesh* me) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  me->rbound = 0;
  for (int v = 0; v < me->nvert; v++) {
    double* p = me->vert + 3 * v;
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = p[i] - me->pos[i];
    imp_quat_rotate_inv(p, me->quat, d);
    me->rbound = fmax(me->rbound, imp_norm3(p));
    for (int i = 0; i < 3; i++) me->size[i] = fmax(me->size[i], fabs(p[i]));
  }
  /* over all vertices: the box of the full hull also when maxhullvert cut
     the collision hull (the mesh's extent, as MuJoCo's fitaabb takes it) */
  for (int v = 0; v < me->nvert; v++)
    for (int i = 0; i < 3; i++) {
      lo[i] = fmin(lo[i], me->vert[3 * v + i]);
      hi[i] = fmax(hi[i], me->vert[3 * v + i]);
    }
  for (int i = 0; i < 3; i++) {
    me->aabb[i] = 0.5 * (lo[i] + hi[i]);
    me->aabb[3 + i] = 0.5 * (hi[i] - lo[i]);
  }
}

/* Volume (area for inertia="shell"), centroid and second moment of the
   mesh by its inertia attribute (vertices relative to their mean, ext their
   largest coordinate):
     shell            the surface as a thin shell;
     convex           the solid of the convex hull;
     legacy           MuJoCo's pyramids of unsigned volume (legacy_integrals;
                      exact instead under compiler exactmeshinertia="true");
     exact            the solid the surface bounds, or when its volume is
                      not positive (an open or inside-out surface) the hull's,
                      with a warning when a geom takes mass from it.
   Without a hull volume the mesh is flat: its frame comes from the surface
   and it has no volume, an error only for a geom that takes mass from it
   (ld_mesh_check_mass). */
static double mass_integrals(ld_ctx* c, ld_mesh* me, const double* local, const raw_mesh* r,
                             const hull* h, double ext, double com[3], double C[9]) {
  double tiny = 1e-9 * ext * ext * ext, V;
  if (me->inertia_mode == LD_MESH_SHELL) {
    V = shell_integrals(local, r->face, r->nface, com, C);
    if (!(V > 1e-9 * ext * ext)) MESH_ERROR(c, me, "degenerate mesh: its surface has no area");
    return V;
  }
  if (me->inertia_mode == LD_MESH_LEGACY && !c->exactmeshinertia) {
    V = legacy_integrals(local, r->face, r->nface, com, C);
    if (V > tiny) return V;
  }
  if (me->inertia_mode != LD_MESH_CONVEX) {
    V = surface_integrals(local, r->face, r->nface, com, C);
    if (V > tiny) return V;
    me->surface_volume = V;
    me->from_hull = 1;
  }
  V = h->nface ? surface_integrals(local, h->face, h->nface, com, C) : 0;
  if (V > tiny) return V;
  me->flat = 1;
  me->from_hull = 0;
  V = shell_integrals(local, r->face, r->nface, com, C);
  if (!(V > 1e-9 * ext * ext)) MESH_ERROR(c, me, "degenerate mesh: its triangles have no area");
  return V;
}

void ld_mesh_check_mass(ld_ctx* c, const ld_mesh* me, const ld_geom* g) {
  if (g->has_mass ? !(g->mass > 0) : !(g->density > 0)) return; /* gives no mass */
  if (me->flat)
    ld_error(c, g->file, g->line,
             "mesh '%s' (file '%s') is flat, with no volume to give this geom mass: make the geom "
             "massless (mass=\"0\" or density=\"0\"), move it out of compiler "
             "inertiagrouprange, give its body an <inertial>, or use <mesh inertia=\"shell\">",
             me->name, me->path);
  if (me->from_hull)
    ld_warning(c, me->path, me->file, me->line,
               "mesh '%s' (file '%s'): volume %g is not positive (open or inconsistently "
               "oriented surface): mass properties from its convex hull",
               me->name, me->path, me->surface_volume);
}

/* ---------------------------------------------------------------- driver */

/* extension of a path, without the dot ("" when none) */
static const char* extension(const char* path) {
  const char* slash = strrchr(path, '/');
  const char* dot = strrchr(path, '.');
  return dot && (!slash || dot > slash) ? dot + 1 : "";
}

static void read_any(ld_ctx* c, const ld_mesh* me, raw_mesh* r) {
  const char* ext = extension(me->path);
  int stl = !strcasecmp(ext, "stl"), obj = !strcasecmp(ext, "obj");
  if (!stl && !obj)
    MESH_ERROR(c, me, "unknown mesh file extension '%s' (expected .stl or .obj)", ext);
  long size;
  char* buf = read_file(c, me, &size);
  if (obj) {
    read_obj(c, me, buf, size, r);
    return;
  }
  /* ASCII when it starts with "solid" and is not a binary file of the right
     size (some binary headers start with "solid" too) */
  int binary_size = 0;
  if (size >= 84) {
    const unsigned char* p = (const unsigned char*)buf;
    uint64_t n = (uint64_t)p[80] | (uint64_t)p[81] << 8 | (uint64_t)p[82] << 16 |
                 (uint64_t)p[83] << 24;
    binary_size = (uint64_t)size == 84 + 50 * n;
  }
  const char* s = buf;
  while (isspace((unsigned char)*s)) s++;
  if (!binary_size && !strncmp(s, "solid", 5) && (s[5] == 0 || isspace((unsigned char)s[5])))
    read_stl_ascii(c, me, buf, r);
  else
    read_stl_binary(c, me, buf, size, r);
  merge_vertices(c, r);
}

/* The texture coordinates into me, v flipped to MuJoCo's convention (the
   image's first row at v = 0). */
static void keep_texcoords(ld_ctx* c, ld_mesh* me, const raw_mesh* r) {
  me->texcoord_missing = r->texmissing;
  me->ntexcoord = r->ntex;
  if (!r->ntex) return;
  me->texcoord = ld_alloc(c, sizeof(float) * 2 * (size_t)r->ntex);
  for (int t = 0; t < r->ntex; t++) {
    me->texcoord[2 * t] = (float)r->tex[2 * t];
    me->texcoord[2 * t + 1] = (float)(1.0 - r->tex[2 * t + 1]);
    if (!isfinite(me->texcoord[2 * t]) || !isfinite(me->texcoord[2 * t + 1]))
      MESH_ERROR(c, me, "non-finite texture coordinate");
  }
  me->facetexcoord = r->facetex;
}

/* mesh refpos/refquat (MJCF reference: the position and orientation
   relative to which the file's vertices are defined; refpos is subtracted
   and the conjugate of refquat rotates them), before scale, in MuJoCo's
   order: v <- scale (R(refquat)' (v - refpos)) */
static void to_reference_frame(const ld_mesh* me, raw_mesh* r) {
  const double* p = me->refpos;
  double q[4];
  imp_copy(q, me->refquat, 4);
  if (p[0] == 0 && p[1] == 0 && p[2] == 0 && q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0)
    return;
  imp_scl(q, q, 1 / sqrt(imp_dot(q, q, 4)), 4);
  for (int v = 0; v < r->nvert; v++) {
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = r->vert[3 * v + i] - p[i];
    imp_quat_rotate_inv(r->vert + 3 * v, q, d);
  }
}

void ld_mesh_load(ld_ctx* c, ld_mesh* me) {
  raw_mesh r = {0, 0, NULL, NULL, 0, NULL, NULL, 0};
  read_any(c, me, &r);
  if (r.nface == 0) MESH_ERROR(c, me, "no triangles");
  if (r.nvert < 4) MESH_ERROR(c, me, "%d vertices: a mesh needs at least 4", r.nvert);
  if ((c->mesh_vert_read += r.nvert) > LD_MAXMESHVERT)
    MESH_ERROR(c, me, "the model's meshes have more than %d vertices", LD_MAXMESHVERT);
  if ((c->mesh_face_read += r.nface) > LD_MAXMESHFACE)
    MESH_ERROR(c, me, "the model's meshes have more than %d triangles", LD_MAXMESHFACE);
  double flip = me->scale[0] * me->scale[1] * me->scale[2];
  for (int k = 0; k < 3 * r.nvert; k++)
    if (!(fabs(r.vert[k]) <= LD_MAXMESHCOORD))
      MESH_ERROR(c, me, "vertex coordinate %g beyond %g in magnitude", r.vert[k],
                 LD_MAXMESHCOORD);
  to_reference_frame(me, &r);
  for (int v = 0; v < r.nvert; v++)
    for (int i = 0; i < 3; i++) {
      r.vert[3 * v + i] *= me->scale[i];
      if (!isfinite(r.vert[3 * v + i])) MESH_ERROR(c, me, "non-finite vertex coordinate");
    }
  if (flip < 0) /* a mirror turns the surface inside out: keep it outward */
    for (int f = 0; f < r.nface; f++) {
      int t = r.face[3 * f + 1];
      r.face[3 * f + 1] = r.face[3 * f + 2];
      r.face[3 * f + 2] = t;
      if (r.facetex) { /* each corner keeps its texture coordinate */
        t = r.facetex[3 * f + 1];
        r.facetex[3 * f + 1] = r.facetex[3 * f + 2];
        r.facetex[3 * f + 2] = t;
      }
    }
  keep_texcoords(c, me, &r);
  hull h = {0, 0, NULL, NULL};
  convex_hull(c, me, &r, &h);

  /* integrate about the vertices' mean for accuracy, then shift back */
  double mean[3] = {0, 0, 0}, com[3], C[9];
  for (int v = 0; v < r.nvert; v++) imp_add_scl(mean, r.vert + 3 * v, 1.0 / r.nvert, 3);
  double* local = ld_alloc(c, sizeof(double) * 3 * (size_t)r.nvert);
  double ext = 0;
  for (int v = 0; v < r.nvert; v++)
    for (int i = 0; i < 3; i++) {
      local[3 * v + i] = r.vert[3 * v + i] - mean[i];
      ext = fmax(ext, fabs(local[3 * v + i]));
    }
  double V = mass_integrals(c, me, local, &r, &h, ext, com, C);
  mass_frame(me, V, com, C);
  if (me->flat) { /* the frame of its surface, but no mass to give */
    me->volume = 0;
    imp_zero(me->inertia, 3);
  }
  imp_add_scl(me->pos, mean, 1, 3);
  me->nvert = r.nvert;
  me->nface = r.nface;
  me->vert = r.vert;
  me->face = r.face;
  me->nhull = h.nvert;
  me->hull = h.vert;
  me->ngraph = ld_mesh_graph(c, h.vert, h.nvert, h.face, h.nface, r.nvert, &me->graph);
  to_mesh_frame(me);
}
