/* Unit shapes as triangle lists; see shapes.h. */
#include "shapes.h"

#include <math.h>
#include <stddef.h>

#define SLICES 32 /* around the z axis */
#define STACKS 16 /* pole to pole */

static const float pi = 3.14159265358979f;

static float* vertex(float* v, float x, float y, float z, float nx, float ny, float nz, float u,
                     float t) {
  v[0] = x, v[1] = y, v[2] = z, v[3] = nx, v[4] = ny, v[5] = nz, v[6] = u, v[7] = t;
  return v + IMP_SHAPE_FLOATS;
}

/* The unit sphere point at longitude index i and latitude index j; the
   normal is the point itself. */
static float* sphere_vertex(float* v, int i, int j) {
  float lon = 2 * pi * i / SLICES, lat = pi * j / STACKS - 0.5f * pi;
  float x = cosf(lat) * cosf(lon), y = cosf(lat) * sinf(lon), z = sinf(lat);
  return vertex(v, x, y, z, x, y, z, (float)i / SLICES, (float)j / STACKS);
}

static float* build_sphere(float* v) {
  for (int j = 0; j < STACKS; j++)
    for (int i = 0; i < SLICES; i++) {
      v = sphere_vertex(v, i, j), v = sphere_vertex(v, i + 1, j),
      v = sphere_vertex(v, i + 1, j + 1);
      v = sphere_vertex(v, i, j), v = sphere_vertex(v, i + 1, j + 1),
      v = sphere_vertex(v, i, j + 1);
    }
  return v;
}

/* A cap disc at height z facing sign (+1 up, -1 down), CCW seen from outside. */
static float* build_cap(float* v, float z, float sign) {
  for (int i = 0; i < SLICES; i++) {
    float a0 = 2 * pi * i / SLICES, a1 = 2 * pi * (i + 1) / SLICES;
    if (sign < 0) {
      float t = a0;
      a0 = a1, a1 = t;
    }
    v = vertex(v, 0, 0, z, 0, 0, sign, 0.5f, 0.5f);
    v = vertex(v, cosf(a0), sinf(a0), z, 0, 0, sign, 0.5f + 0.5f * cosf(a0),
               0.5f + 0.5f * sinf(a0));
    v = vertex(v, cosf(a1), sinf(a1), z, 0, 0, sign, 0.5f + 0.5f * cosf(a1),
               0.5f + 0.5f * sinf(a1));
  }
  return v;
}

static float* build_cylinder(float* v) {
  for (int i = 0; i < SLICES; i++) {
    float a0 = 2 * pi * i / SLICES, a1 = 2 * pi * (i + 1) / SLICES;
    float c0 = cosf(a0), s0 = sinf(a0), c1 = cosf(a1), s1 = sinf(a1);
    float u0 = (float)i / SLICES, u1 = (float)(i + 1) / SLICES;
    v = vertex(v, c0, s0, -1, c0, s0, 0, u0, 0), v = vertex(v, c1, s1, -1, c1, s1, 0, u1, 0);
    v = vertex(v, c1, s1, 1, c1, s1, 0, u1, 1);
    v = vertex(v, c0, s0, -1, c0, s0, 0, u0, 0), v = vertex(v, c1, s1, 1, c1, s1, 0, u1, 1);
    v = vertex(v, c0, s0, 1, c0, s0, 0, u0, 1);
  }
  v = build_cap(v, 1, 1);
  return build_cap(v, -1, -1);
}

/* One face of the cube: normal n along axis a with sign s; two triangles CCW from outside. */
static float* build_box_face(float* v, int a, float s) {
  int b = (a + 1) % 3, c = (a + 2) % 3;
  float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  int order[6] = {0, 1, 2, 0, 2, 3};
  for (int k = 0; k < 6; k++) {
    int q = order[s > 0 ? k : 5 - k];
    float p[3], n[3] = {0, 0, 0};
    p[a] = s, p[b] = corner[q][0], p[c] = corner[q][1];
    n[a] = s;
    v = vertex(v, p[0], p[1], p[2], n[0], n[1], n[2], 0.5f * (corner[q][0] + 1),
               0.5f * (corner[q][1] + 1));
  }
  return v;
}

static float* build_box(float* v) {
  for (int a = 0; a < 3; a++)
    v = build_box_face(v, a, 1), v = build_box_face(v, a, -1);
  return v;
}

static float* build_plane(float* v) {
  v = vertex(v, -1, -1, 0, 0, 0, 1, 0, 0), v = vertex(v, 1, -1, 0, 0, 0, 1, 1, 0);
  v = vertex(v, 1, 1, 0, 0, 0, 1, 1, 1);
  v = vertex(v, -1, -1, 0, 0, 0, 1, 0, 0), v = vertex(v, 1, 1, 0, 0, 0, 1, 1, 1);
  return vertex(v, -1, 1, 0, 0, 0, 1, 0, 1);
}

/* Side normals of a cone with slope 1 (radius 1, height 1) lean up by 45 degrees. */
static float* build_cone(float* v) {
  const float k = 0.70710678f;
  for (int i = 0; i < SLICES; i++) {
    float a0 = 2 * pi * i / SLICES, a1 = 2 * pi * (i + 1) / SLICES, am = 0.5f * (a0 + a1);
    v = vertex(v, cosf(a0), sinf(a0), 0, k * cosf(a0), k * sinf(a0), k, 0, 0);
    v = vertex(v, cosf(a1), sinf(a1), 0, k * cosf(a1), k * sinf(a1), k, 1, 0);
    v = vertex(v, 0, 0, 1, k * cosf(am), k * sinf(am), k, 0.5f, 1);
  }
  return build_cap(v, 0, -1);
}

static const int counts[IMP_SHAPE_COUNT] = {
    6 * SLICES * STACKS,     /* sphere */
    6 * SLICES + 6 * SLICES, /* cylinder: side and two caps */
    36,
    6,                       /* box, plane */
    3 * SLICES + 3 * SLICES, /* cone: side and base */
};

int imp_shapes_vertex_count(void) {
  int n = 0;
  for (int i = 0; i < IMP_SHAPE_COUNT; i++)
    n += counts[i];
  return n;
}

void imp_shapes_build(float* out, imp_shape_range ranges[IMP_SHAPE_COUNT]) {
  float* (*build[IMP_SHAPE_COUNT])(float*) = {build_sphere, build_cylinder, build_box, build_plane,
                                              build_cone};
  int first = 0;
  for (int i = 0; i < IMP_SHAPE_COUNT; i++) {
    build[i](out + (size_t)first * IMP_SHAPE_FLOATS);
    ranges[i].first = first;
    ranges[i].count = counts[i];
    first += counts[i];
  }
}

void imp_triangle_normal(const double a[3], const double b[3], const double c[3], double n[3]) {
  double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
         e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  n[0] = e1[1] * e2[2] - e1[2] * e2[1];
  n[1] = e1[2] * e2[0] - e1[0] * e2[2];
  n[2] = e1[0] * e2[1] - e1[1] * e2[0];
  double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (nn > 0) n[0] /= nn, n[1] /= nn, n[2] /= nn;
}
