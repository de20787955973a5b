/* The constraint rows (engine/constraint/constraints.c): contacts, joint
   limits and equalities as Jacobian rows with stabilization targets. The
   contact stage that solves them is constraint/contact.h. */
#ifndef IMPETUS_CONSTRAINT_H
#define IMPETUS_CONSTRAINT_H

#include "smooth/smooth.h"

/* ---- constraints.c ---- */

/* Constraint rows of the current state: d->efc_*, d->blk_* for the
   contacts of the last collision, the joint limits and the active
   equalities (in that order: equalities, limits, contacts). Needs
   kinematics, com_pos and qacc_smooth of this forward. */
void imp_constraints(const imp_model* m, imp_data* d);
/* The point at which a contact's constraint rows act (its Jacobian's
   point): on the surface collision chose (imp_contact.surface: a box
   pair's reference face), else on a flat geom's surface (plane, hfield,
   box, mesh; geom1's when both are), else the midpoint between the
   surfaces; why in constraints.c */
void imp_contact_point(const imp_model* m, const imp_contact* c, double p[3]);
/* Stabilization targets (documented in constraints.c): b of a unilateral
   row at violation pos, and of a bilateral row, for solref and step h. */
double imp_unilateral_target(double pos, const double solref[2], double h);
double imp_bilateral_target(double pos, const double solref[2], double h);
/* How far inside the generation distance contacts come to rest (m). */
#define IMP_CONTACT_SLOP 1e-6
/* b of a contact normal at pos: apart by more than IMP_CONTACT_SLOP, the gap
   closed in the step (-pos / h); from there down one linear law, the
   unilateral target's -pos / T, so it is affine across the resting depth
   pos = 0 (why in constraints.c). */
double imp_contact_target(double pos, const double solref[2], double h);
#endif
