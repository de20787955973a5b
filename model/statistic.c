/* The model's statistics (MJCF <statistic>, MuJoCo's mjStatistic), computed
 * at qpos0 from the compiled model, then replaced by any value the file
 * gives:
 *   center, extent  the middle and the longest side of the box around the
 *                   bodies' centres of mass, the geoms (centre +- bounding
 *                   radius) and the sites: the renderer's default free camera
 *                   looks at center from 1.5 extents, and clip planes and
 *                   decorations scale with extent;
 *   meansize        the mean over bodies of how far joint anchors and geoms
 *                   reach from the centre of mass: the unit of contact marks
 *                   (a floor makes the extent large, not the bodies);
 *   meanmass        the mean body mass, world excluded;
 *   meaninertia     the mean diagonal element of the joint-space inertia.
 * Measured on MuJoCo 2.2.2 and kept: extent is the box's full longest side
 * (the current reference says half, which would put the camera at half the
 * distance 2.2.2 and our renderer use), 2 when there is nothing to measure;
 * meanmass and meaninertia are 1 without bodies or dofs. Deliberate
 * difference: planes are left out of the box (2.2.2 counts a tenth of their
 * size, so a 100 m floor made the extent 20 m whatever stood on it); an
 * infinite plane has no size to count, and the reference speaks of the
 * model's bounding box, not the floor's. */
#include <math.h>
#include <string.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"

static double dist3(const double* a, const double* b) {
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

/* One body's size: the farthest its joint anchors and geoms (centre plus
   bounding radius) reach from its centre of mass, all in the body frame. */
static double body_size(const imp_model* m, int b) {
  const double* com = m->body_ipos + 3 * b;
  double size = 0;
  /* the body's own joints and geoms (ordered by body): scanning all of
     them for every body was quadratic (issue 15) */
  for (int j = m->body_jntadr[b]; j < m->body_jntadr[b] + m->body_jntnum[b]; j++)
    size = fmax(size, dist3(com, m->jnt_pos + 3 * j));
  for (int g = m->body_geomadr[b]; g < m->body_geomadr[b] + m->body_geomnum[b]; g++)
    if (m->geom_rbound[g] > 0 && m->geom_type[g] != IMP_GEOM_HFIELD)
      size = fmax(size, m->geom_rbound[g] + dist3(com, m->geom_pos + 3 * g));
  return fmax(size, 1e-5); /* a point mass still has a size to draw marks at */
}

double ld_mean_body_size(const imp_model* m) {
  if (m->nbody < 2) return 0.1 * m->extent; /* only the world: a size from the scene */
  double sum = 0;
  for (int b = 1; b < m->nbody; b++)
    sum += body_size(m, b);
  return sum / (m->nbody - 1);
}

/* grow the box lo..hi by the ball of radius r around p */
static void grow(double lo[3], double hi[3], const double* p, double r) {
  for (int i = 0; i < 3; i++) {
    lo[i] = fmin(lo[i], p[i] - r);
    hi[i] = fmax(hi[i], p[i] + r);
  }
}

/* a geom's radius in the bounding box: its bounding radius, but for a
   height field a tenth of the largest of its four sizes (MuJoCo 2.2.2,
   mj_setConst), so a large terrain does not swallow the model */
static double statistic_radius(const imp_model* m, int g) {
  if (m->geom_type[g] != IMP_GEOM_HFIELD) return m->geom_rbound[g];
  const double* s = m->hfield_size + 4 * m->geom_dataid[g];
  return 0.1 * fmax(fmax(s[0], s[1]), fmax(s[2], s[3]));
}

/* center and extent from the frames of d (kinematics at qpos0) */
static void bounding_box(imp_model* m, const imp_data* d) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int b = 1; b < m->nbody; b++) grow(lo, hi, d->xipos + 3 * b, 0);
  for (int g = 0; g < m->ngeom; g++)
    if (m->geom_type[g] != IMP_GEOM_PLANE)
      grow(lo, hi, d->geom_xpos + 3 * g, statistic_radius(m, g));
  for (int s = 0; s < m->nsite; s++) grow(lo, hi, d->site_xpos + 3 * s, 0);
  m->extent = 2; /* nothing to measure */
  imp_zero(m->center, 3);
  if (!(lo[0] <= hi[0])) return;
  for (int i = 0; i < 3; i++) m->center[i] = 0.5 * (lo[i] + hi[i]);
  m->extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (!(m->extent > 1e-6)) m->extent = 2;
}

/* mean body mass (world excluded) and mean diagonal of M at qpos0 */
static void mean_mass_inertia(imp_model* m, imp_data* d) {
  m->meanmass = 1;
  if (m->nbody > 1) {
    double sum = 0;
    for (int b = 1; b < m->nbody; b++) sum += m->body_mass[b];
    m->meanmass = sum / (m->nbody - 1);
  }
  m->meaninertia = 1;
  if (m->nv > 0) {
    imp_com_pos(m, d);
    imp_tendon(m, d);
    imp_crb(m, d);
    imp_tendon_armature(m, d);
    double sum = 0;
    for (int i = 0; i < m->nv; i++) sum += d->qM[m->dof_Madr[i]];
    m->meaninertia = sum / m->nv;
  }
}

void ld_compute_statistic(ld_ctx* c, imp_model* m) {
  const ld_statistic* s = &c->stat;
  imp_data* d = imp_make_data(m); /* at qpos0 */
  if (!d) ld_error(c, "", 0, "out of memory");
  imp_kinematics(m, d);
  bounding_box(m, d);
  if (s->has_center) imp_copy(m->center, s->center, 3);
  if (s->has_extent) m->extent = s->extent;
  /* with the file's extent, a world-only model sizes its marks from it */
  m->meansize = s->has_meansize ? s->meansize : ld_mean_body_size(m);
  mean_mass_inertia(m, d);
  if (s->has_meanmass) m->meanmass = s->meanmass;
  if (s->has_meaninertia) m->meaninertia = s->meaninertia;
  imp_free_data(d);
}

/* one value of <statistic>: finite, and positive where asked */
static int read_value(ld_ctx* c, ld_node* n, const char* name, double* v, int k, int positive) {
  if (ld_attr_nums(c, n, name, v, k, k) < 0) return 0;
  for (int i = 0; i < k; i++)
    if (!isfinite(v[i]) || (positive && !(v[i] > 0)))
      ld_error(c, n->file, n->line, "statistic %s must be %s", name,
               positive ? "positive" : "finite");
  return 1;
}

void ld_parse_statistic(ld_ctx* c, ld_node* n) {
  ld_statistic* s = &c->stat;
  s->has_center |= read_value(c, n, "center", s->center, 3, 0);
  s->has_extent |= read_value(c, n, "extent", &s->extent, 1, 1); /* the reference: > 0 */
  s->has_meansize |= read_value(c, n, "meansize", &s->meansize, 1, 1);
  s->has_meanmass |= read_value(c, n, "meanmass", &s->meanmass, 1, 0);
  s->has_meaninertia |= read_value(c, n, "meaninertia", &s->meaninertia, 1, 0);
  ld_warn_unused(c, n);
  for (ld_node* ch = n->child; ch; ch = ch->next) ld_warn_element(c, ch);
}
