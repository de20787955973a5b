/* The model's mean body size, MuJoCo's statistic meansize: the unit the
   renderer sizes contact marks in, so they scale with the bodies that touch
   rather than with the whole scene (a floor makes the extent large). */
#include <math.h>

#include "loader.h"

static double dist3(const double* a, const double* b) {
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

/* One body's size: the farthest its joint anchors and geoms (centre plus
   bounding radius) reach from its centre of mass, all in the body frame. */
static double body_size(const imp_model* m, int b) {
  const double* com = m->body_ipos + 3 * b;
  double size = 0;
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_bodyid[j] == b) size = fmax(size, dist3(com, m->jnt_pos + 3 * j));
  for (int g = 0; g < m->ngeom; g++)
    if (m->geom_bodyid[g] == b && m->geom_rbound[g] > 0)
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
