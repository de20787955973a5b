/* Unit shapes as triangle lists for the GL backend, built once: no GL here.
   A vertex is 8 floats: position, unit normal, texture coordinate.
   Promises: imp_shapes_build writes exactly imp_shapes_vertex_count()
   vertices; each shape's range is recorded in the table it fills. */
#ifndef IMPETUS_SHAPES_H
#define IMPETUS_SHAPES_H

#define IMP_SHAPE_FLOATS 8 /* floats per vertex: x y z nx ny nz u v */

typedef enum imp_shape_id {
  IMP_SHAPE_SPHERE = 0,   /* radius 1 */
  IMP_SHAPE_CYLINDER = 1, /* radius 1, z in [-1, 1], with caps */
  IMP_SHAPE_BOX = 2,      /* [-1, 1]^3 */
  IMP_SHAPE_PLANE = 3,    /* [-1, 1]^2 at z = 0, normal +z */
  IMP_SHAPE_CONE = 4,     /* base radius 1 at z = 0, tip at z = 1 */
  IMP_SHAPE_COUNT = 5
} imp_shape_id;

typedef struct imp_shape_range {
  int first; /* first vertex */
  int count; /* vertices (a multiple of 3) */
} imp_shape_range;

/* Vertices of all unit shapes together. */
int imp_shapes_vertex_count(void);
/* Fill out (imp_shapes_vertex_count() * IMP_SHAPE_FLOATS floats) and the ranges. */
void imp_shapes_build(float* out, imp_shape_range ranges[IMP_SHAPE_COUNT]);
/* The unit normal n of triangle a b c, counter-clockwise seen from its
   front (0 for a degenerate one): flat shading of meshes and height fields. */
void imp_triangle_normal(const double a[3], const double b[3], const double c[3], double n[3]);

#endif
