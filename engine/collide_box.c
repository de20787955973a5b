/* placeholder: being written (issue 3); every routine finds nothing yet */
#include "collision.h"

int imp_collide_box_box(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

