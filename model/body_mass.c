/* Mass properties of bodies, the compiler's stage between the body tree and
 * the geoms: each body's mass, inertial frame and principal moments from its
 * <inertial> or from its geoms (compiler inertiafromgeom, inertiagroup),
 * bounded by compiler boundmass and boundinertia, checked as MuJoCo checks
 * them (the triangle inequality of explicit moments; a jointed body with its
 * welded descendants above IMP_MINVAL in mass and every moment; planes and
 * height fields only in static bodies), scaled by settotalmass last, and
 * summed into subtree masses. The geoms' own mass properties are in
 * inertia_from_geom.c. */
#include <math.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"

/* <compiler settotalmass>: every body's mass and inertia scaled by one
   factor so that the masses sum to total. MuJoCo docs, MJCF reference:
   compiler/settotalmass "is performed last, after all other operations
   affecting the body mass and inertia" (after inertias from geoms,
   boundmass and boundinertia); MuJoCo checks the masses of moving bodies
   before it, and guards the factor against zeros by mjMINVAL as here. The
   subtree masses are summed again from the scaled masses. */
static void set_total_mass(imp_model* m, double total) {
  double sum = 0;
  for (int b = 1; b < m->nbody; b++) sum += m->body_mass[b];
  double scale = fmax(IMP_MINVAL, total / fmax(IMP_MINVAL, sum));
  for (int b = 1; b < m->nbody; b++) {
    m->body_mass[b] *= scale;
    for (int i = 0; i < 3; i++) m->body_inertia[3 * b + i] *= scale;
  }
  for (int b = 0; b < m->nbody; b++) m->body_subtreemass[b] = 0;
  for (int b = m->nbody - 1; b >= 0; b--) {
    m->body_subtreemass[b] += m->body_mass[b];
    if (b > 0) m->body_subtreemass[m->body_parentid[b]] += m->body_subtreemass[b];
  }
}

void ld_body_mass_properties(ld_ctx* c, imp_model* m) {
  int nbody = c->bodies.n;
  ld_body* B = (ld_body*)c->bodies.data;
  const ld_geom* G = (const ld_geom*)c->geoms.data;
  int* gi = ld_alloc(c, sizeof(int) * (size_t)(c->geoms.n + 1));
  /* moving[b]: the body or an ancestor has joints (parents come first) */
  int* moving_body = ld_alloc(c, sizeof(int) * (size_t)(nbody + 1));
  for (int b = 1; b < nbody; b++)
    moving_body[b] = m->body_jntnum[b] > 0 || moving_body[B[b].parent];
  for (int b = 1; b < nbody; b++) {
    ld_body* bd = &B[b];
    int moving = moving_body[b];
    int ng = 0, adr = m->body_geomadr[b], num = m->body_geomnum[b];
    for (int g = adr; g >= 0 && g < adr + num; g++) {
      if (G[g].type == IMP_GEOM_PLANE && moving)
        ld_error(c, G[g].file, G[g].line, "plane geoms are only allowed in static bodies");
      if (G[g].type == IMP_GEOM_HFIELD && moving) /* MuJoCo's rule, as for planes */
        ld_error(c, G[g].file, G[g].line, "hfield geoms are only allowed in static bodies");
      if (G[g].group >= c->inertiagroup[0] && G[g].group <= c->inertiagroup[1]) gi[ng++] = g;
    }
    if (bd->has_inertial) {
      double* I = bd->inertia;
      double tol = 1e-12 * (I[0] + I[1] + I[2]);
      if (I[0] + I[1] < I[2] - tol || I[0] + I[2] < I[1] - tol || I[1] + I[2] < I[0] - tol)
        ld_error(c, bd->file, bd->line, "inertia must satisfy A + B >= C");
    }
    int fromgeom = c->inertiafromgeom == 1 || (c->inertiafromgeom == 2 && !bd->has_inertial);
    if (fromgeom && ng > 0) {
      ld_body_from_geoms(c, gi, ng, &bd->mass, bd->ipos, bd->iquat, bd->inertia);
    } else if (!bd->has_inertial || fromgeom) {
      /* massless: MuJoCo leaves the inertial frame at the body's own pos and
         quat (a harmless quirk we copy so models compare equal) */
      bd->mass = 0;
      imp_copy(bd->ipos, bd->pos, 3);
      imp_copy(bd->iquat, bd->quat, 4);
      imp_zero(bd->inertia, 3);
    }
    if (c->boundmass > 0 && bd->mass < c->boundmass) bd->mass = c->boundmass;
    for (int i = 0; i < 3 && c->boundinertia > 0; i++)
      if (bd->inertia[i] < c->boundinertia) bd->inertia[i] = c->boundinertia;
    /* finite inputs can still overflow (a size of 1e300 cubed): such a body
       would load and reset the simulation every step */
    int finite = isfinite(bd->mass);
    for (int i = 0; i < 3; i++) finite &= isfinite(bd->inertia[i]) && isfinite(bd->ipos[i]);
    if (!finite)
      ld_error(c, bd->file, bd->line,
               "body mass or inertia is not finite (sizes, densities or masses too large)");
  }
  for (int b = 0; b < nbody; b++) {
    m->body_mass[b] = B[b].mass;
    m->body_gravcomp[b] = B[b].gravcomp;
    imp_copy(m->body_ipos + 3 * b, B[b].ipos, 3);
    imp_copy(m->body_iquat + 4 * b, B[b].iquat, 4);
    imp_copy(m->body_inertia + 3 * b, B[b].inertia, 3);
  }
  for (int b = nbody - 1; b >= 0; b--) {
    m->body_subtreemass[b] += m->body_mass[b];
    if (b > 0) m->body_subtreemass[B[b].parent] += m->body_subtreemass[b];
  }
  /* a body with joints, together with the descendants welded to it (reached
     without crossing a joint), needs mass and each principal moment summed
     over that group above IMP_MINVAL (MuJoCo's rule) */
  /* group[d]: the first body with joints on d's path up (d itself
     included), 0 when none; parents come first, so one pass finds them all
     and sums each group in body order (a scan of every later body for each
     jointed one was quadratic, issue 15) */
  int* group = ld_alloc(c, sizeof(int) * (size_t)(nbody + 1));
  double* gmass = ld_alloc(c, sizeof(double) * (size_t)(nbody + 1));
  double* ginertia = ld_alloc(c, sizeof(double) * 3 * (size_t)(nbody + 1));
  for (int d = 1; d < nbody; d++) {
    group[d] = m->body_jntnum[d] ? d : group[B[d].parent];
    if (!group[d]) continue;
    gmass[group[d]] += m->body_mass[d];
    imp_add_scl(ginertia + 3 * group[d], m->body_inertia + 3 * d, 1, 3);
  }
  for (int b = 1; b < nbody; b++) {
    if (!m->body_jntnum[b]) continue;
    double wm = gmass[b], *wi = ginertia + 3 * b;
    if (wm < IMP_MINVAL || wi[0] < IMP_MINVAL || wi[1] < IMP_MINVAL || wi[2] < IMP_MINVAL)
      ld_error(c, B[b].file, B[b].line,
               "mass and inertia of moving bodies must be larger than %g", IMP_MINVAL);
  }
  if (c->settotalmass > 0) set_total_mass(m, c->settotalmass);
}
