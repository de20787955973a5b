/* Mass properties of geoms and of bodies made of geoms.
 *
 * A geom is a solid of uniform density (geom density, or mass/volume when a
 * geom mass is given). Principal moments about the geom centre in the geom
 * frame (r radius, half sizes a b c, h full height of a cylinder part):
 *   sphere     V = 4/3 pi r^3,        I = 2/5 m r^2
 *   cylinder   V = pi r^2 h,          Ixx = m (3r^2 + h^2)/12, Izz = m r^2/2
 *   capsule    cylinder (m_c) + two hemispheres (together m_s, a full ball);
 *              each hemisphere's centre of mass sits 3r/8 beyond the cap
 *              plane, so by the parallel axis theorem
 *              Ixx = m_c (3r^2 + h^2)/12 + m_s (2r^2/5 + h^2/4 + 3hr/8),
 *              Izz = m_c r^2/2 + 2/5 m_s r^2
 *   box        V = 8abc,              Ixx = m (b^2 + c^2)/3 ...
 *   ellipsoid  V = 4/3 pi abc,        Ixx = m (b^2 + c^2)/5 ...
 *   mesh       V (an area for a shell mesh) and the principal moments per
 *              unit density come from the mesh (mesh.c); the geom frame is
 *              the mesh's principal frame; a flat mesh has none, and a geom
 *              that would take mass from it is an error
 *   plane      no volume, no mass.
 * A body sums its geoms about their joint centre of mass (parallel axis
 * theorem, each geom tensor rotated into the body frame by its quaternion)
 * and diagonalizes the total: principal moments and the quaternion of the
 * principal axes. */
#include <math.h>

#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

double ld_geom_volume(const ld_geom* g) {
  const double* s = g->size;
  switch (g->type) {
    case IMP_GEOM_SPHERE: return 4.0 / 3.0 * IMP_PI * s[0] * s[0] * s[0];
    case IMP_GEOM_CAPSULE:
      return IMP_PI * s[0] * s[0] * 2 * s[1] + 4.0 / 3.0 * IMP_PI * s[0] * s[0] * s[0];
    case IMP_GEOM_CYLINDER: return IMP_PI * s[0] * s[0] * 2 * s[1];
    case IMP_GEOM_BOX: return 8 * s[0] * s[1] * s[2];
    case IMP_GEOM_ELLIPSOID: return 4.0 / 3.0 * IMP_PI * s[0] * s[1] * s[2];
    case IMP_GEOM_MESH: return g->mesh_volume;
    default: return 0;
  }
}

void ld_geom_inertia(const ld_geom* g, double* mass, double I[3]) {
  double V = ld_geom_volume(g);
  const double* s = g->size;
  double m = g->has_mass ? g->mass : g->density * V;
  if (V <= 0) m = 0;
  *mass = m;
  I[0] = I[1] = I[2] = 0;
  double r = s[0], h = 2 * s[1];
  switch (g->type) {
    case IMP_GEOM_SPHERE: I[0] = I[1] = I[2] = 0.4 * m * r * r; break;
    case IMP_GEOM_CAPSULE: {
      double vc = IMP_PI * r * r * h, vs = 4.0 / 3.0 * IMP_PI * r * r * r;
      double mc = m * vc / (vc + vs), ms = m * vs / (vc + vs);
      I[0] = I[1] = mc * (3 * r * r + h * h) / 12 +
                    ms * (0.4 * r * r + h * h / 4 + 3 * h * r / 8);
      I[2] = mc * r * r / 2 + 0.4 * ms * r * r;
      break;
    }
    case IMP_GEOM_CYLINDER:
      I[0] = I[1] = m * (3 * r * r + h * h) / 12;
      I[2] = m * r * r / 2;
      break;
    case IMP_GEOM_BOX:
      I[0] = m * (s[1] * s[1] + s[2] * s[2]) / 3;
      I[1] = m * (s[0] * s[0] + s[2] * s[2]) / 3;
      I[2] = m * (s[0] * s[0] + s[1] * s[1]) / 3;
      break;
    case IMP_GEOM_ELLIPSOID:
      I[0] = m * (s[1] * s[1] + s[2] * s[2]) / 5;
      I[1] = m * (s[0] * s[0] + s[2] * s[2]) / 5;
      I[2] = m * (s[0] * s[0] + s[1] * s[1]) / 5;
      break;
    case IMP_GEOM_MESH: /* moments per unit density, times density m/V */
      for (int i = 0; i < 3 && V > 0; i++) I[i] = g->mesh_inertia[i] * m / V;
      break;
    default: break;
  }
}

void ld_body_from_geoms(ld_ctx* c, const int* gi, int n, double* mass, double ipos[3],
                        double iquat[4], double inertia[3]) {
  double M = 0, com[3] = {0, 0, 0}, I[9] = {0};
  double gm[64], *gmass = n <= 64 ? gm : ld_alloc(c, sizeof(double) * (size_t)n);
  double gI3[64 * 3], *gI = n <= 64 ? gI3 : ld_alloc(c, sizeof(double) * 3 * (size_t)n);
  for (int k = 0; k < n; k++) {
    const ld_geom* g = LD_AT(c->geoms, ld_geom, gi[k]);
    if (g->type == IMP_GEOM_MESH) ld_mesh_check_mass(c, LD_AT(c->meshes, ld_mesh, g->meshid), g);
    ld_geom_inertia(g, &gmass[k], gI + 3 * k);
    M += gmass[k];
    imp_add_scl(com, g->pos, gmass[k], 3);
  }
  *mass = M;
  imp_quat_identity(iquat);
  imp_zero(inertia, 3);
  imp_zero(ipos, 3);
  if (M < IMP_MINVAL) { /* massless geoms: their plain centroid, as MuJoCo */
    for (int k = 0; k < n; k++) imp_add_scl(ipos, LD_AT(c->geoms, ld_geom, gi[k])->pos, 1.0 / n, 3);
    return;
  }
  imp_scl(ipos, com, 1 / M, 3);
  if (n == 1) { /* MuJoCo keeps a lone geom's own frame and axis order: its
                   fluid forces act on the inertia box in that frame, and a
                   capsule's two equal moments leave eig3's choice arbitrary */
    const ld_geom* g = LD_AT(c->geoms, ld_geom, gi[0]);
    imp_copy(iquat, g->quat, 4);
    imp_copy(inertia, gI, 3);
    return;
  }
  for (int k = 0; k < n; k++) {
    const ld_geom* g = LD_AT(c->geoms, ld_geom, gi[k]);
    double R[9], D[9] = {0}, RD[9], T[9], d[3];
    imp_quat2mat(R, g->quat);
    for (int i = 0; i < 3; i++) D[4 * i] = gI[3 * k + i];
    imp_mat3_mat3(RD, R, D);
    for (int i = 0; i < 3; i++) /* T = R D R' */
      for (int j = 0; j < 3; j++) T[3 * i + j] = RD[3 * i] * R[3 * j] + RD[3 * i + 1] * R[3 * j + 1] +
                                                 RD[3 * i + 2] * R[3 * j + 2];
    for (int i = 0; i < 3; i++) d[i] = g->pos[i] - ipos[i];
    double dd = imp_dot(d, d, 3);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        I[3 * i + j] += T[3 * i + j] + gmass[k] * ((i == j ? dd : 0) - d[i] * d[j]);
  }
  imp_eig3(inertia, iquat, I);
}
