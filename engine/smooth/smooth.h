/* The smooth dynamics (engine/smooth/): everything of a step that is not
   contact or constraint. Positions to frames (kinematics), the joint-space
   inertia and its tree-sparse factor (inertia), bias, passive and actuator
   forces (dynamics, transmission, activation), tendons, point Jacobians on
   the tree (jacobian.c), and the implicit matrix M - h D of the integrators
   (implicit.c). Reads the state and writes its own arrays of imp_data; uses
   only engine/core/. */
#ifndef IMPETUS_SMOOTH_H
#define IMPETUS_SMOOTH_H

#include "core/core.h"
#include "core/mathx.h"

/* ---- kinematics.c ---- */

/* Body, joint, geom, site, camera and light frames from qpos. */
void imp_kinematics(const imp_model* m, imp_data* d);
/* Subtree centres of mass, com-frame inertias cinert and motion axes cdof. */
void imp_com_pos(const imp_model* m, imp_data* d);
/* Cameras and lights moved by their mode (track, trackcom, targetbody,
   targetbodycom) from the body-fixed frames of imp_kinematics; needs
   imp_com_pos's subtree centres of mass. */
void imp_camlight(const imp_model* m, imp_data* d);
/* Body velocities cvel and the time derivatives cdof_dot, from qvel. */
void imp_com_vel(const imp_model* m, imp_data* d);

/* ---- inertia.c ---- */

/* Joint-space inertia qM by the composite rigid body algorithm, plus armature. */
void imp_crb(const imp_model* m, imp_data* d);
/* Tree-sparse L'DL factorization of qM into qLD, qLDiagInv. */
void imp_factor_m(const imp_model* m, imp_data* d);
/* Factor an nM-sized tree-sparse matrix M into LD (may alias) and diaginv. */
void imp_factor_sparse(const imp_model* m, double* LD, double* diaginv, const double* M);
/* Factor an unsymmetric matrix with qM's pattern, A = U D L: Al holds A_ij
   (j up i's chain) and becomes L with D on its diagonal; Au holds A_ji at
   the same places and becomes U (transposed). */
void imp_factor_lu(const imp_model* m, double* Al, double* Au, double* diaginv);
/* x = A^-1 y for a factor made by imp_factor_lu (x may alias y). */
void imp_solve_lu(const imp_model* m, const double* Al, const double* Au, const double* diaginv,
                  double* x, const double* y);
/* x = M^-1 y for a factor made by imp_factor_sparse (x may alias y). */
void imp_solve_sparse(const imp_model* m, const double* LD, const double* diaginv,
                      double* x, const double* y);
/* res = M vec for the tree-sparse M (res may not alias vec). */
void imp_mul_sparse(const imp_model* m, const double* M, double* res, const double* vec);

/* ---- dynamics.c ---- */

/* Joint springs and damping into qfrc_passive. */
void imp_passive(const imp_model* m, imp_data* d);
/* Actuator lengths, velocities, forces and qfrc_actuator from ctrl. */
void imp_actuation(const imp_model* m, imp_data* d);
/* imp_actuation after imp_transmission and imp_actuator_velocity of this
   state (the forward computes those before the controls) */
void imp_actuation_forces(const imp_model* m, imp_data* d);

/* ---- transmission.c: actuator lengths and moments (definitions there) ---- */

/* actuator_length and actuator_moment of every actuator. Needs kinematics,
   com_pos, tendon and, for body (adhesion) transmissions, this
   configuration's contacts. */
void imp_transmission(const imp_model* m, imp_data* d);
/* actuator_dofadr and actuator_dofnum of every actuator from its
   transmission (the compiler's: the model's joints, sites, tendons and
   bodies set) */
void imp_transmission_spans(imp_model* m);
/* actuator_velocity = actuator_moment qvel. */
void imp_actuator_velocity(const imp_model* m, imp_data* d);
/* actuator u's length, and its moment d(length)/d(qvel) as a dense nv
   vector, at d's configuration (as imp_transmission, for one actuator) */
double imp_actuator_length(const imp_model* m, const imp_data* d, int u);
void imp_actuator_moment(const imp_model* m, const imp_data* d, int u, double* moment);
/* Dl, Du += s v v' on the places of qM's tree-sparse pattern (a dense nv
   vector v, zero outside dofs adr .. adr + num - 1; entries coupling
   different branches dropped, as MuJoCo 2.2.2's implicit integrator drops
   them). */
void imp_add_outer_dense(const imp_model* m, const double* v, int adr, int num, double s,
                         double* Dl, double* Du);

/* ---- activation.c: actuator dynamics and force laws (MuJoCo's actuator
   model), given the transmission's actuator_length and _velocity ---- */

/* ctrl of actuator u, clamped to ctrlrange when limited (and not disabled) */
double imp_actuator_ctrl(const imp_model* m, const imp_data* d, int u);
/* d->act_dot of actuator u's activations from its ctrl and act (dyntype) */
void imp_actuator_act_dot(const imp_model* m, imp_data* d, int u);
/* what the gain multiplies: ctrl without a state, else the last
   activation (its next value with actearly) */
double imp_actuator_input(const imp_model* m, const imp_data* d, int u);
/* gain * input + bias, before forcerange */
double imp_actuator_force_law(const imp_model* m, const imp_data* d, int u);
/* its derivative in the actuator velocity, input held (implicit integrators) */
double imp_actuator_dforce_dvel(const imp_model* m, const imp_data* d, int u);
/* act[k] (an activation of actuator u) after one step at rate act_dot:
   Euler, exact for filterexact, clamped to actrange when actlimited */
double imp_next_activation(const imp_model* m, const imp_data* d, int u, int k, double act_dot);
/* every activation one step on (imp_next_activation); nothing when
   actuation is disabled */
void imp_advance_act(const imp_model* m, imp_data* d, const double* act_dot);
/* MuJoCo's muscle curves (activation.c header): active gain (and its
   velocity derivative when dgain_dvel is not NULL), passive bias, and the
   activation rate; prm is gainprm/biasprm or dynprm */
double imp_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                       const double* prm, double* dgain_dvel);
double imp_muscle_bias(double len, const double lengthrange[2], double acc0, const double* prm);
double imp_muscle_act_dot(double ctrl, double act, const double* prm);
/* Bias forces qfrc_bias = C(q, v) v + g(q) by recursive Newton-Euler. */
void imp_rne(const imp_model* m, imp_data* d);
/* Velocity derivatives D = d qfrc_smooth / d qvel for the implicit
   integrators, added into tree-sparse Dl (D_ij, j up i's chain) and Du (D_ji
   at the same places): actuators (gain and bias velocity terms through the
   joint transmission, of the force law before forcerange), joint damping, and
   -d qfrc_bias / d qvel (Coriolis, centrifugal, gyroscopic) by the tangent
   of RNE. Need this forward's actuation, resp. com_vel. */
void imp_deriv_actuator_vel(const imp_model* m, const imp_data* d, double* Dl, double* Du);
void imp_deriv_passive_vel(const imp_model* m, double* Dl, double* Du);
void imp_deriv_fluid_vel(const imp_model* m, imp_data* d, double* Dl, double* Du);
int imp_has_fluid(const imp_model* m);
void imp_deriv_rne_vel(const imp_model* m, imp_data* d, double* Dl, double* Du);
/* qfrc_smooth and qacc_smooth = M^-1 qfrc_smooth. */
void imp_smooth_acc(const imp_model* m, imp_data* d);

/* ---- tendon.c ---- */

/* Tendon lengths, Jacobians (ten_J) and paths (wrap_xpos): needs
   kinematics and com_pos. */
void imp_tendon(const imp_model* m, imp_data* d);
/* ten_velocity = ten_J qvel. */
void imp_tendon_vel(const imp_model* m, imp_data* d);
/* Passive tendon forces into qfrc_passive: springs (with their rest band)
   and damping along each tendon. */
void imp_tendon_passive(const imp_model* m, imp_data* d);
/* Dl, Du += s J_t' J_t for the row of tendon t scaled by s, on the places
   of the tree-sparse pattern of qM only (where D lives: integrate.c);
   entries coupling dofs of different branches are dropped, as MuJoCo
   2.2.2 drops them from its derivative. Du NULL: a symmetric matrix stored
   once (qM). */
void imp_add_tendon_outer(const imp_model* m, const imp_data* d, int t, double s, double* Dl,
                          double* Du);
/* Dl, Du += d(tendon damping force)/d qvel (the implicit integrators). */
void imp_deriv_tendon_vel(const imp_model* m, const imp_data* d, double* Dl, double* Du);
/* qM += armature J'J for every tendon with armature (after imp_crb; needs
   imp_tendon). */
void imp_tendon_armature(const imp_model* m, imp_data* d);
/* qfrc_bias += armature J' (d/dt(J) qvel) for every spatial tendon with
   armature (after imp_rne; needs imp_com_vel). */
void imp_tendon_bias(const imp_model* m, imp_data* d);
/* A tendon path around a sphere or an infinite cylinder (its axis the
   geom's z) of radius r at xpos, xmat, from x0 to x1: the two points where
   it meets the surface into wpnt[6] and the length of the curve between
   them on the surface, or -1 when the straight path misses the obstacle.
   side (NULL: none) is the side site's world position: the path keeps to
   its side, or goes through the obstacle when the side site is inside it. */
double imp_wrap(double wpnt[6], const double x0[3], const double x1[3], const double xpos[3],
                const double xmat[9], double r, int type, const double* side);

/* ---- jacobian.c ---- */

/* Point Jacobians on the tree. The last dof on body b's chain to the root
   (its own, or its nearest ancestor's with dofs), -1 when b is static. */
int imp_chain_tip(const imp_model* m, int b);
/* The union of the dof chains of b1 and b2 into dof[], descending;
   side[i] = 1 when dof[i] moves b1, 2 when it moves b2, 3 both. Returns
   the count (at most nJrow). */
int imp_chain_union(const imp_model* m, int b1, int b2, int* dof, int* side);
/* Linear velocity of the world point p, fixed to a body that dof k moves,
   per unit velocity of dof k: cdof_lin + cdof_ang x (p - c). Inline: the
   constraint rows call it for every dof of every contact. */
static inline void imp_point_column(const imp_model* m, const imp_data* d, int k,
                                    const double p[3], double col[3]) {
  const double* s = d->cdof + 6 * k;
  const double* c = d->subtree_com + 3 * m->body_rootid[m->dof_bodyid[k]];
  double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  imp_cross(col, s, r);
  for (int i = 0; i < 3; i++) col[i] += s[3 + i];
}

/* ---- implicit.c ---- */

/* Whether the step uses the implicit matrix M - h D instead of M (Euler
   with joint damping not disabled, implicitfast with damping or velocity-
   dependent actuators, implicit always; never RK4). The name is the one
   the contact stage knows it by. */
int imp_implicit_damping(const imp_model* m);
/* Factor the step's M - h D (needs this forward's qM and forces): into qH,
   qHDiagInv the symmetric matrix the contact stage and constraint impulses
   use (Euler's, implicitfast's; for implicit, implicitfast's), and for
   implicit also the full unsymmetric one into qLU, qLUt, qLUDiagInv. */
void imp_factor_damped(const imp_model* m, imp_data* d);
/* x = (M - h D)^-1 y with every derivative of the integrator (the LU of
   implicit, else qH), for the smooth forces; x may alias y. */
void imp_implicit_solve(const imp_model* m, const imp_data* d, double* x, const double* y);
#endif
