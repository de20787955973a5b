/* placeholder: being written (issue 3); every routine finds nothing yet */
#include "collision.h"

int imp_collide_convex(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_plane_convex(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

void imp_geom_support(const imp_model* m, const imp_data* d, int g, const double dir[3],
                      double out[3]) {
  out[0] = out[1] = out[2] = 0;
}
