/* What a user reads of the contact stage's answer (contact.h, impetus.h):
 * a contact's impulse in its own frame, and its force and torque in the
 * world frame. */
#include "constraint/contact.h"
#include "core/mathx.h"

int imp_contact_impulse(const imp_model* m, const imp_data* d, int i, double impulse[6]) {
  (void)m;
  imp_zero(impulse, 6);
  if (i < 0 || i >= d->ncon || d->contact[i].efc_adr < 0) return 0;
  const imp_contact* c = d->contact + i;
  int blk = d->efc_blk[c->efc_adr];
  imp_copy(impulse, d->efc_impulse + c->efc_adr, d->blk_dim[blk]);
  return d->blk_dim[blk];
}

void imp_contact_force_world(const imp_model* m, const imp_data* d, int i, double force[3],
                             double torque[3]) {
  double f[6];
  imp_contact_impulse(m, d, i, f);
  imp_zero(force, 3);
  imp_zero(torque, 3);
  if (i < 0 || i >= d->ncon) return;
  const double* F = d->contact[i].frame;
  double h = m->opt.timestep;
  for (int r = 0; r < 3; r++) {
    imp_add_scl(force, F + 3 * r, f[r] / h, 3);
    imp_add_scl(torque, F + 3 * r, f[3 + r] / h, 3);
  }
}
