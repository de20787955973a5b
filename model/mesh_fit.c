/* Primitive geoms fitted to a mesh: <geom type="capsule" mesh="m"/> (also
 * sphere, cylinder, ellipsoid, box) becomes an ordinary primitive sized from
 * the mesh and placed in the mesh frame (centroid, principal axes with the
 * moments decreasing, so z is the mesh's long axis); the geom's own pos/quat
 * place that frame like a mesh geom's. Its size attribute is not needed and
 * not used, fitscale multiplies the fitted sizes, and mass and collisions
 * are the primitive's.
 *
 * compiler fitaabb="false" (the default) fits the mesh's equivalent-inertia
 * box: the uniform box of the mesh's volume and principal moments, whose
 * half sizes follow from I_x = V (b^2 + c^2) / 3 ... as
 *   a^2 = 3 (I_y + I_z - I_x) / (2 V),  and likewise b, c.
 * From the half sizes a <= b <= c (measured on MuJoCo 2.2.2, which agrees
 * to rounding on every primitive):
 *   box, ellipsoid  a, b, c
 *   sphere          radius (a + b + c) / 3
 *   cylinder        radius (a + b) / 2, half length c
 *   capsule         radius r = (a + b) / 2, half length c - r / 2 (the
 *                   caps add a length r, half of it taken from the cylinder)
 *
 * fitaabb="true" fits the box around the mesh's hull in the mesh frame, as
 * MuJoCo's reference defines it since 3.3.7: the smallest primitive whose
 * own bounding box contains the mesh's, centred on the mesh's box. With
 * half sizes hx, hy, hz: box and ellipsoid hx, hy, hz; sphere radius
 * max(hx, hy, hz); cylinder radius max(hx, hy), half length hz; capsule
 * radius r = max(hx, hy), half length max(hz - r, 0). (MuJoCo 2.2.2 fitted
 * the sphere and cylinders around the box's corners instead and lost the
 * mesh's offset, the bug 3.3.7 fixed; we follow the reference.) */
#include <math.h>
#include <string.h>

#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

/* half sizes of the mesh's equivalent-inertia box, in the mesh frame */
static void inertia_box(const ld_mesh* me, double h[3]) {
  const double* I = me->inertia;
  double V = me->volume;
  for (int i = 0; i < 3; i++) {
    double s = I[(i + 1) % 3] + I[(i + 2) % 3] - I[i];
    h[i] = V > 0 && s > 0 ? sqrt(1.5 * s / V) : 0;
  }
}

/* primitive sizes from the half sizes h of the box being fitted */
static void fit_sizes(int type, int aabb, const double h[3], double size[3]) {
  double rxy = aabb ? fmax(h[0], h[1]) : 0.5 * (h[0] + h[1]);
  size[0] = size[1] = size[2] = 0;
  switch (type) {
    case IMP_GEOM_SPHERE:
      size[0] = aabb ? fmax(h[0], fmax(h[1], h[2])) : (h[0] + h[1] + h[2]) / 3;
      break;
    case IMP_GEOM_CYLINDER:
      size[0] = rxy;
      size[1] = h[2];
      break;
    case IMP_GEOM_CAPSULE:
      size[0] = rxy;
      size[1] = aabb ? fmax(h[2] - rxy, 0) : h[2] - 0.5 * rxy;
      break;
    default: /* box, ellipsoid */
      imp_copy(size, h, 3);
  }
}

int ld_geom_fits_mesh(const ld_geom* g) {
  int t = g->type;
  return g->mesh && (t == IMP_GEOM_SPHERE || t == IMP_GEOM_CAPSULE || t == IMP_GEOM_CYLINDER ||
                     t == IMP_GEOM_ELLIPSOID || t == IMP_GEOM_BOX);
}

void ld_fit_geom_to_mesh(ld_ctx* c, ld_geom* g) {
  int id = -1;
  for (int k = 0; k < c->meshes.n && id < 0; k++)
    if (!strcmp(LD_AT(c->meshes, ld_mesh, k)->name, g->mesh)) id = k;
  if (id < 0) ld_error(c, g->file, g->line, "unknown mesh '%s'", g->mesh);
  const ld_mesh* me = LD_AT(c->meshes, ld_mesh, id);
  if (!(g->fitscale > 0)) ld_error(c, g->file, g->line, "fitscale must be positive");
  double h[3], centre[3] = {0, 0, 0};
  if (c->fitaabb) {
    imp_copy(centre, me->aabb, 3);
    imp_copy(h, me->aabb + 3, 3);
  } else {
    if (!(me->volume > 0))
      ld_error(c, g->file, g->line,
               "mesh '%s' has no volume: no inertia box to fit a %s to (compiler fitaabb=\"true\" "
               "fits its bounding box)", me->name, g->type == IMP_GEOM_BOX ? "box" : "primitive");
    inertia_box(me, h);
  }
  fit_sizes(g->type, c->fitaabb, h, g->size);
  imp_scl(g->size, g->size, g->fitscale, 3);
  g->nsize = 3;
  g->has_fromto = 0;
  /* frame: the geom's pos/quat, then the mesh frame, then the box centre */
  double local[3], r[3], q[4];
  imp_quat_rotate(local, me->quat, centre);
  imp_add_scl(local, me->pos, 1, 3);
  imp_quat_rotate(r, g->quat, local);
  imp_add_scl(g->pos, r, 1, 3);
  imp_quat_mul(q, g->quat, me->quat);
  imp_quat_normalize(q);
  imp_copy(g->quat, q, 4);
  g->mesh = NULL; /* an ordinary primitive from here on */
  /* a flat mesh leaves a size zero (a capsule's half length may be) */
  int t = g->type, need = t == IMP_GEOM_SPHERE ? 1 : t == IMP_GEOM_BOX || t == IMP_GEOM_ELLIPSOID ? 3 : 2;
  for (int i = 0; i < need; i++)
    if (!(g->size[i] > 0 || (t == IMP_GEOM_CAPSULE && i == 1 && g->size[i] == 0)) ||
        !isfinite(g->size[i]))
      ld_error(c, g->file, g->line, "mesh '%s' is too thin to fit this primitive to", me->name);
}
