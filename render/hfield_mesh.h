/* Height fields as triangles for the GL backend (hfield_mesh.c): no GL.
   Promises: imp_hfield_build writes exactly imp_hfield_vertex_count(m, h)
   vertices of IMP_SHAPE_FLOATS floats, in the geom's frame, and returns
   that count. */
#ifndef IMPETUS_HFIELD_MESH_H
#define IMPETUS_HFIELD_MESH_H

#include "impetus.h"

/* most cells a side drawn (finer fields are drawn from every k-th line) */
#define IMP_HFIELD_DRAW_CELLS 512

int imp_hfield_vertex_count(const imp_model* m, int h);
int imp_hfield_build(const imp_model* m, int h, float* out);

#endif
