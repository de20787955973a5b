/* The vertex adjacency of a mesh's convex hull, for the collider's support
 * search by hill climbing (engine/collision/mesh_support.c).
 *
 * Why it is only kept for a closed surface: the climb is exact because, on
 * the triangulated boundary of a convex body, the vertices where a linear
 * function is at least t are connected through the triangles' edges for
 * every t (a triangle meeting that part of the surface has such a vertex,
 * and two such triangles sharing an edge share one). That needs every
 * triangle edge shared by exactly two triangles and a sphere's topology
 * (V - E + F = 2); a hull that is anything else (a flat mesh's polygon,
 * qhull output we did not expect) gets no graph and is scanned.
 *
 * Layout of one mesh's graph, positions p in 0..nhull) of the hull's vertex
 * list (mesh_hull): g[p] .. g[p + 1] is the range of g holding the positions
 * of p's neighbours, ascending; the first nhull + 1 entries are those
 * offsets, counted from the graph's start. */
#include <stdlib.h>
#include <string.h>

#include "loader.h"

static int cmp_edge(const void* a, const void* b) {
  const int *p = a, *q = b;
  return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0]) : (p[1] > q[1]) - (p[1] < q[1]);
}

int ld_mesh_graph(ld_ctx* c, const int* hull, int nhull, const int* face, int nface, int nvert,
                  int** graph) {
  *graph = NULL;
  if (nhull < 4 || nface < 4) return 0;
  int* pos = ld_alloc(c, sizeof(int) * (size_t)nvert);
  for (int v = 0; v < nvert; v++) pos[v] = -1;
  for (int p = 0; p < nhull; p++) pos[hull[p]] = p;
  int ne = 3 * nface;
  int* e = ld_alloc(c, sizeof(int) * 2 * (size_t)ne);
  for (int f = 0; f < nface; f++)
    for (int k = 0; k < 3; k++) {
      int a = pos[face[3 * f + k]], b = pos[face[3 * f + (k + 1) % 3]];
      if (a < 0 || b < 0 || a == b) return 0; /* a corner off the vertex list */
      e[6 * f + 2 * k] = a;
      e[6 * f + 2 * k + 1] = b;
    }
  qsort(e, (size_t)ne, 2 * sizeof(int), cmp_edge);
  /* each directed edge once, and its reverse present: a closed surface */
  for (int i = 0; i < ne; i++) {
    if (i > 0 && e[2 * i] == e[2 * i - 2] && e[2 * i + 1] == e[2 * i - 1]) return 0;
    int rev[2] = {e[2 * i + 1], e[2 * i]};
    if (!bsearch(rev, e, (size_t)ne, 2 * sizeof(int), cmp_edge)) return 0;
  }
  if (nhull - ne / 2 + nface != 2) return 0; /* Euler: a sphere */
  int* g = ld_alloc(c, sizeof(int) * (size_t)(nhull + 1 + ne));
  int k = 0;
  for (int p = 0; p < nhull; p++) {
    g[p] = nhull + 1 + k;
    while (k < ne && e[2 * k] == p) {
      g[nhull + 1 + k] = e[2 * k + 1];
      k++;
    }
    if (g[p] + 3 > nhull + 1 + k) return 0; /* fewer than 3 neighbours */
  }
  g[nhull] = nhull + 1 + k;
  *graph = g;
  return nhull + 1 + ne;
}
