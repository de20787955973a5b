/* A height field as flat-shaded triangles for the GL backend (no GL here):
 * the surface, two triangles per cell split as the collider splits them
 * (engine/collision/collide_hfield.c), and the four walls and the bottom of its base,
 * so it draws as the solid it collides as. Coordinates are in the geom's
 * frame; the texture coordinate is (x, y), as a plane's. Fields finer than
 * IMP_HFIELD_DRAW_CELLS cells a side are drawn from every k-th grid line
 * (the drawing only: collisions use every cell), so the vertex buffer
 * stays bounded. Drawn from the data at the renderer's creation. */
#include "hfield_mesh.h"
#include "shapes.h"

/* grid lines drawn: every step-th, and always the last */
static int hf_step(int n) { return (n - 1 + IMP_HFIELD_DRAW_CELLS - 1) / IMP_HFIELD_DRAW_CELLS; }
static int hf_lines(int n, int step) { return (n - 1 + step - 1) / step + 1; }
static int hf_index(int k, int n, int step) { return k * step < n - 1 ? k * step : n - 1; }

int imp_hfield_vertex_count(const imp_model* m, int h) {
  int sr = hf_step(m->hfield_nrow[h]), sc = hf_step(m->hfield_ncol[h]);
  int nr = hf_lines(m->hfield_nrow[h], sr), nc = hf_lines(m->hfield_ncol[h], sc);
  /* surface, 4 walls of (n - 1) quads, the bottom: 6 vertices a quad */
  return 6 * ((nr - 1) * (nc - 1) + 2 * (nr - 1) + 2 * (nc - 1) + 1);
}

/* one vertex: position, the face's unit normal, (x, y) */
static float* put(float* o, const double p[3], const double n[3]) {
  for (int j = 0; j < 3; j++) o[j] = (float)p[j], o[3 + j] = (float)n[j];
  o[6] = (float)p[0], o[7] = (float)p[1];
  return o + 8;
}

/* triangle a b c, counter-clockwise seen from outside, with its normal */
static float* tri(float* o, const double a[3], const double b[3], const double c[3]) {
  double n[3];
  imp_triangle_normal(a, b, c, n);
  o = put(o, a, n);
  o = put(o, b, n);
  return put(o, c, n);
}

/* quad a b c d (counter-clockwise from outside) as two triangles */
static float* quad(float* o, const double a[3], const double b[3], const double c[3],
                   const double d[3]) {
  o = tri(o, a, b, c);
  return tri(o, a, c, d);
}

int imp_hfield_build(const imp_model* m, int h, float* out) {
  int nrow = m->hfield_nrow[h], ncol = m->hfield_ncol[h];
  const double* s = m->hfield_size + 4 * h;
  const float* data = m->hfield_data + m->hfield_adr[h];
  int sr = hf_step(nrow), sc = hf_step(ncol), nr = hf_lines(nrow, sr), nc = hf_lines(ncol, sc);
  float* o = out;
#define HF_POINT(P, k, l)                                                     \
  do {                                                                        \
    int rr_ = hf_index(k, nrow, sr), cc_ = hf_index(l, ncol, sc);             \
    (P)[0] = 2 * s[0] * cc_ / (ncol - 1) - s[0];                              \
    (P)[1] = 2 * s[1] * rr_ / (nrow - 1) - s[1];                              \
    (P)[2] = data[rr_ * ncol + cc_] * s[2];                                   \
  } while (0)
  for (int k = 0; k + 1 < nr; k++)
    for (int l = 0; l + 1 < nc; l++) {
      double p00[3], p01[3], p10[3], p11[3];
      HF_POINT(p00, k, l);
      HF_POINT(p01, k, l + 1);
      HF_POINT(p10, k + 1, l);
      HF_POINT(p11, k + 1, l + 1);
      /* the diagonal from (r, c) to (r + 1, c + 1), as the collider */
      o = tri(o, p00, p11, p10);
      o = tri(o, p00, p01, p11);
    }
  double base = -s[3];
  for (int k = 0; k + 1 < nr; k++) { /* walls at x = -size0 and +size0 */
    double a[3], b[3];
    HF_POINT(a, k, 0);
    HF_POINT(b, k + 1, 0);
    double a0[3] = {a[0], a[1], base}, b0[3] = {b[0], b[1], base};
    o = quad(o, a0, a, b, b0);
    HF_POINT(a, k, nc - 1);
    HF_POINT(b, k + 1, nc - 1);
    double a1[3] = {a[0], a[1], base}, b1[3] = {b[0], b[1], base};
    o = quad(o, a1, b1, b, a);
  }
  for (int l = 0; l + 1 < nc; l++) { /* walls at y = -size1 and +size1 */
    double a[3], b[3];
    HF_POINT(a, 0, l);
    HF_POINT(b, 0, l + 1);
    double a0[3] = {a[0], a[1], base}, b0[3] = {b[0], b[1], base};
    o = quad(o, a0, b0, b, a);
    HF_POINT(a, nr - 1, l);
    HF_POINT(b, nr - 1, l + 1);
    double a1[3] = {a[0], a[1], base}, b1[3] = {b[0], b[1], base};
    o = quad(o, a1, a, b, b1);
  }
#undef HF_POINT
  double c0[3] = {-s[0], -s[1], base}, c1[3] = {s[0], -s[1], base}, c2[3] = {s[0], s[1], base},
         c3[3] = {-s[0], s[1], base};
  o = quad(o, c0, c3, c2, c1); /* the bottom, facing down */
  return (int)((o - out) / 8);
}
