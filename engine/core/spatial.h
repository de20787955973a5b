/* Spatial (6D) vectors in the com-based frame: world orientation, reference
   point at the subtree centre of mass of each kinematic tree's root.
   Motion vectors are (angular; linear), force vectors (torque; force).
   A body inertia is packed in 10 numbers: the rotational inertia about the
   reference point (xx yy zz xy xz yz), the mass, and mass * (com - ref). */
#ifndef IMPETUS_SPATIAL_H
#define IMPETUS_SPATIAL_H

/* res = v x_m s: the motion cross product (rate of change of a motion
   vector s carried by a frame moving with velocity v). res may not alias. */
void imp_cross_motion(double res[6], const double v[6], const double s[6]);
/* res = v x_f f: the force cross product. res may not alias. */
void imp_cross_force(double res[6], const double v[6], const double f[6]);
/* res = I v for a packed inertia. */
void imp_mul_inert_vec(double res[6], const double inert[10], const double v[6]);
/* Pack the inertia of a body of mass, principal moments about the com and
   principal axes R (row-major world matrix), com at offset c from the ref. */
void imp_inert_pack(double inert[10], double mass, const double moments[3], const double R[9],
                    const double c[3]);

#endif
