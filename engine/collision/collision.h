/* Collision detection: which geoms touch, where, along which normal and how
 * deep. Internal to the engine; the public result is d->contact[0..ncon).
 *
 *   collision.c          the stage imp_collision: broad phase (a tree of
 *                        world boxes traversed against itself), MJCF
 *                        filters, explicit pairs, the dispatch table,
 *                        contact parameters and frames
 *   collide_primitive.c  analytic routines for plane, sphere, capsule, box
 *                        and cylinder-plane pairs
 *   collide_box.c        box-box with its contact manifold
 *   collide_convex.c     every other convex pair by GJK distance and EPA, and
 *                        plane against ellipsoid and mesh
 *   collide_hfield.c     height fields against convex geoms, prism by prism
 *   collide_plane_convex.c  plane against convex meshes
 *   ray.c                rays against geoms (imp_ray, rangefinders)
 *
 * What a narrow-phase routine promises (every imp_narrow_fn):
 *  - it is called with geom types type(g1) <= type(g2), as the dispatch
 *    table is laid out (imp_collide_geoms accepts any order and swaps);
 *  - it reads only the model and the geoms' world frames d->geom_xpos,
 *    d->geom_xmat, and writes nothing but con[0..return value);
 *  - it writes at most IMP_MAXCONPAIR contacts and only those with
 *    dist <= margin (touching counts at margin 0, as in MuJoCo 2.2.2); for each it fills dist, pos (midpoint between the two
 *    surface points) and frame[0..2], the unit normal from g1 to g2, and
 *    leaves surface as the caller set it (0) unless it knows the pair's
 *    reference face (collide_box: 1 or 2), copying no contact whose
 *    surface it did not set. The rest of the contact (tangents, geoms,
 *    friction, condim, margin) is filled by the caller;
 *  - deep penetration gives the minimum-translation normal; coincident
 *    centres give a deterministic normal, never NaN. */
#ifndef IMPETUS_COLLISION_H
#define IMPETUS_COLLISION_H

#include "engine.h"

typedef int (*imp_narrow_fn)(const imp_model* m, const imp_data* d, int g1, int g2,
                             double margin, imp_contact* con);

/* ---- collision.c ---- */

/* The stage: fills d->contact, d->ncon and the broad-phase counters from the
   geom frames of the last kinematics. Nothing when contacts are disabled.
   The contacts come pair by pair: explicit pairs in their order, each
   plane's pairs, then the other dynamic pairs in ascending (lower geom id,
   higher geom id), an order that depends only on which pairs touch. */
void imp_collision(const imp_model* m, imp_data* d);

/* Narrow phase of geoms g1, g2 in either order: the normal points from g1 to
   g2. Fills dist, pos and the whole frame (tangents completed); returns the
   number of contacts (0 when the pair has no routine or dist > margin). */
int imp_collide_geoms(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                      imp_contact* con);

/* An upper bound on the contact rows model m can have at once, at most cap:
   every pair that may touch (explicit pairs, and dynamic pairs past the
   filters: bitmasks, welds, parents, excludes) whose types have a routine,
   with IMP_MAXCONPAIR contacts of the larger condim. Over IMP_ROWBOUND_GEOMS
   colliding geoms the pairs are not counted (their number is quadratic)
   and the bound is cap. */
#define IMP_ROWBOUND_GEOMS 4096
long imp_collision_row_bound(const imp_model* m, long cap);

/* Complete frame[3..8] with unit tangents so that (n, t1, t2) is a
   right-handed orthonormal frame; frame[0..2] holds the unit normal n. */
void imp_contact_frame(double frame[9]);

/* ---- collide_primitive.c ---- */

int imp_collide_plane_sphere(const imp_model* m, const imp_data* d, int g1, int g2,
                             double margin, imp_contact* con);
/* up to 2: the two segment ends */
int imp_collide_plane_capsule(const imp_model* m, const imp_data* d, int g1, int g2,
                              double margin, imp_contact* con);
/* up to 4: the deepest corners */
int imp_collide_plane_box(const imp_model* m, const imp_data* d, int g1, int g2,
                          double margin, imp_contact* con);
/* up to 4: deepest rim point, its opposite, and two points across the face */
int imp_collide_plane_cylinder(const imp_model* m, const imp_data* d, int g1, int g2,
                               double margin, imp_contact* con);
int imp_collide_sphere_sphere(const imp_model* m, const imp_data* d, int g1, int g2,
                              double margin, imp_contact* con);
int imp_collide_sphere_capsule(const imp_model* m, const imp_data* d, int g1, int g2,
                               double margin, imp_contact* con);
int imp_collide_capsule_capsule(const imp_model* m, const imp_data* d, int g1, int g2,
                                double margin, imp_contact* con);
int imp_collide_sphere_box(const imp_model* m, const imp_data* d, int g1, int g2,
                           double margin, imp_contact* con);
/* up to 2 when the capsule lies along a face */
int imp_collide_capsule_box(const imp_model* m, const imp_data* d, int g1, int g2,
                            double margin, imp_contact* con);

/* Closest points of segments p1 + s d1 and p2 + t d2, s, t in [0, 1]
   (Ericson 2005, 5.1.9); returns 1 when the segments are parallel (then s
   starts from 0). Shared by the capsule and box routines. */
int imp_segment_segment_params(const double p1[3], const double d1[3], const double p2[3],
                               const double d2[3], double* s, double* t);

/* ---- collide_box.c ---- */

/* up to IMP_MAXCONPAIR: the clipped face-face manifold, or one edge-edge point */
int imp_collide_box_box(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                        imp_contact* con);

/* ---- collide_convex.c ---- */

/* Any two convex geoms (sphere, capsule, ellipsoid, cylinder, box, mesh hull)
   by their support points: GJK for the distance of separated geoms, EPA on
   a fixed-size polytope for the depth of overlapping ones (exact for
   polyhedra, within 1e-12 of the size on curved shapes). One contact: dist
   the exact gap along the normal, pos the midpoint of the witness points. */
int imp_collide_convex(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                       imp_contact* con);
/* The same for the convex hull of nvert world points (vert, nvert x 3) in
   place of geom g1, whose axes only seed the search: one contact, normal
   from the points to g2. */
int imp_collide_polytope_convex(const imp_model* m, const imp_data* d, int g1,
                                const double* vert, int nvert, int g2, double margin,
                                imp_contact* con);
/* Plane against an ellipsoid (one contact, exact support point) or a mesh
   (up to 4 hull vertices: the deepest and those spreading the support). */
int imp_collide_plane_convex(const imp_model* m, const imp_data* d, int g1, int g2,
                             double margin, imp_contact* con);

/* ---- collide_hfield.c ---- */

/* Height field g1 against convex geom g2: one contact per prism of the
   field within the margin (normal from the field to g2), at most
   IMP_MAXCONPAIR of them: the deepest and those spreading the set. */
int imp_collide_hfield(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                       imp_contact* con);

/* ---- support.c ---- */

/* Support point of geom g in world direction dir (need not be unit): the
   point of the geom's surface farthest along dir. For tests and GJK/EPA. */
void imp_geom_support(const imp_model* m, const imp_data* d, int g, const double dir[3],
                      double out[3]);
/* The same with a hint (NULL: none): on a mesh, the hull position where the
   search starts, updated to the support found. Any hint gives the same
   point; a near one is faster. */
void imp_geom_support_hint(const imp_model* m, const imp_data* d, int g, const double dir[3],
                           int* hint, double out[3]);
/* Support of geom g in its own frame along the unit local direction u. */
void imp_local_support(const imp_model* m, int g, const double u[3], int* hint, double p[3]);
/* Position in mesh id's hull list of the hull vertex of greatest u . v (u
   unit, in the mesh frame), the first in hull order among equals: the
   scan's answer, by hill climbing where the hull has a graph. rbound: the
   largest vertex distance (scales the climb's tolerance). */
int imp_mesh_support(const imp_model* m, int id, const double u[3], double rbound, int* hint);

/* ray.c: */
/* Distance along pnt + t vec (t >= 0, units of |vec|) to the surface of a
   primitive of imp_geom_type type, size, at world pos and rotation mat;
   -1 when missed (from inside: the way out). Planes are one-sided and
   bounded by positive sizes; meshes are not primitives (-1). */
double imp_ray_primitive(int type, const double pos[3], const double mat[9],
                         const double size[3], const double pnt[3], const double vec[3]);


#endif
