/* The collision stage: geom pairs that may touch (broad phase and MJCF's
   filters), the narrow-phase routine of each pair of types, and the
   parameters and frame of each contact. */
#include <math.h>

#include "collision.h"
#include "mathx.h"

/* Narrow-phase routine per pair of geom types, upper triangle (type1 <= type2);
   NULL where no routine exists (hfield). */
static const imp_narrow_fn narrow_table[IMP_NGEOMTYPES][IMP_NGEOMTYPES] = {
    [IMP_GEOM_PLANE] = {[IMP_GEOM_SPHERE] = imp_collide_plane_sphere,
                        [IMP_GEOM_CAPSULE] = imp_collide_plane_capsule,
                        [IMP_GEOM_ELLIPSOID] = imp_collide_plane_convex,
                        [IMP_GEOM_CYLINDER] = imp_collide_plane_cylinder,
                        [IMP_GEOM_BOX] = imp_collide_plane_box,
                        [IMP_GEOM_MESH] = imp_collide_plane_convex},
    [IMP_GEOM_SPHERE] = {[IMP_GEOM_SPHERE] = imp_collide_sphere_sphere,
                         [IMP_GEOM_CAPSULE] = imp_collide_sphere_capsule,
                         [IMP_GEOM_ELLIPSOID] = imp_collide_convex,
                         [IMP_GEOM_CYLINDER] = imp_collide_convex,
                         [IMP_GEOM_BOX] = imp_collide_sphere_box,
                         [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_CAPSULE] = {[IMP_GEOM_CAPSULE] = imp_collide_capsule_capsule,
                          [IMP_GEOM_ELLIPSOID] = imp_collide_convex,
                          [IMP_GEOM_CYLINDER] = imp_collide_convex,
                          [IMP_GEOM_BOX] = imp_collide_capsule_box,
                          [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_ELLIPSOID] = {[IMP_GEOM_ELLIPSOID] = imp_collide_convex,
                            [IMP_GEOM_CYLINDER] = imp_collide_convex,
                            [IMP_GEOM_BOX] = imp_collide_convex,
                            [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_CYLINDER] = {[IMP_GEOM_CYLINDER] = imp_collide_convex,
                           [IMP_GEOM_BOX] = imp_collide_convex,
                           [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_BOX] = {[IMP_GEOM_BOX] = imp_collide_box_box, [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_MESH] = {[IMP_GEOM_MESH] = imp_collide_convex},
};

void imp_contact_frame(double f[9]) {
  const double* n = f;
  /* t1: n crossed with the world axis least aligned with n, so the cross
     product is never near zero */
  double a[3] = {0, 0, 0};
  int k = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : fabs(n[1]) <= fabs(n[2]) ? 1 : 2;
  a[k] = 1;
  double t1[3];
  imp_cross(t1, n, a);
  imp_scl(t1, t1, 1 / imp_norm3(t1), 3);
  imp_copy(f + 3, t1, 3);
  imp_cross(f + 6, n, t1); /* t2 = n x t1, so t1 x t2 = n */
}

int imp_collide_geoms(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                      imp_contact* con) {
  int flip = m->geom_type[g1] > m->geom_type[g2];
  int a = flip ? g2 : g1, b = flip ? g1 : g2;
  imp_narrow_fn fn = narrow_table[m->geom_type[a]][m->geom_type[b]];
  if (!fn) return 0;
  int n = fn(m, d, a, b, margin, con);
  for (int i = 0; i < n; i++) {
    if (flip) imp_scl(con[i].frame, con[i].frame, -1, 3);
    imp_contact_frame(con[i].frame);
  }
  return n;
}

void imp_collision(const imp_model* m, imp_data* d) {
  d->ncon = 0;
  d->ncon_dropped = 0;
  d->npair_broad = d->npair_narrow = 0;
}
