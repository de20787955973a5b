/* placeholder: being written (issue 3); every routine finds nothing yet */
#include "collision.h"

int imp_collide_plane_sphere(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_plane_capsule(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_plane_box(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_plane_cylinder(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_sphere_sphere(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_sphere_capsule(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_capsule_capsule(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_sphere_box(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

int imp_collide_capsule_box(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
    imp_contact* con) {
  return 0;
}

