/* Internal interface of the engine: the pipeline stages, the scratch arena
   and run-time error reporting. Not installed; apps and tests may use it.
   Every stage has the form void imp_<stage>(const imp_model*, imp_data*)
   and reads only what earlier stages of the same step wrote. */
#ifndef IMPETUS_ENGINE_H
#define IMPETUS_ENGINE_H

#include <stddef.h>

#include "impetus.h"

/* ---- arena (data.c): a stack in the data's own allocation, sized for
   the model and the data's contact solver ---- */

/* n doubles of scratch, 64-byte aligned; aborts through the error hook
   when the arena is exhausted (a sizing bug, never user input). */
double* imp_stack_alloc(imp_data* d, int n);
/* n ints of scratch */
int* imp_stack_alloc_int(imp_data* d, int n);
/* current stack mark, to release everything allocated after it */
size_t imp_stack_mark(const imp_data* d);
void imp_stack_release(imp_data* d, size_t mark);
/* Bytes of arena a step of model m needs with contact solver `solver`. */
size_t imp_arena_bytes(const imp_model* m, int solver);
/* Make the arena at least `bytes` long (between steps only: the stack must
   be empty); 0, or -1 when the memory cannot be had (the arena is kept). */
int imp_arena_reserve(imp_data* d, size_t bytes);

/* ---- errors (error.c) ---- */

/* Report API misuse or an internal bug through the error hook, then abort. */
void imp_error(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Report a run-time warning through the warning hook. */
void imp_warning(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* printf into a caller's error buffer err of errsz bytes (nothing when err
   is NULL or errsz <= 0): the "char* err, int errsz" convention of the
   functions that return an error message instead of reporting it. */
void imp_format_error(char* err, int errsz, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- step.c ---- */

/* Monotonic wall-clock seconds, for d->timer. */
double imp_timer_now(void);

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
/* Point Jacobians on the tree. The last dof on body b's chain to the root
   (its own, or its nearest ancestor's with dofs), -1 when b is static. */
int imp_chain_tip(const imp_model* m, int b);
/* The union of the dof chains of b1 and b2 into dof[], descending;
   side[i] = 1 when dof[i] moves b1, 2 when it moves b2, 3 both. Returns
   the count (at most nJrow). */
int imp_chain_union(const imp_model* m, int b1, int b2, int* dof, int* side);
/* Linear velocity of the world point p, fixed to a body that dof k moves,
   per unit velocity of dof k. */
void imp_point_column(const imp_model* m, const imp_data* d, int k, const double p[3],
                      double col[3]);

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

/* ---- sensor.c ---- */

/* State of the sensor noise generator after imp_reset_data. */
#define IMP_SENSOR_RNG_SEED 0x1234567887654321ULL
/* Every sensor into d->sensordata (promises and definitions in sensor.c).
   Needs a whole forward of the current state, up to the contact stage. */
void imp_sensor(const imp_model* m, imp_data* d);
/* imp_sensor in the two phases of imp_step1 and imp_step2: the sensors of
   positions and velocities a controller reads (all but the limit sensors,
   which read constraint rows; needs the position and velocity stages and
   the transmission), then the rest (needs the contact stage). The noise is
   drawn in that order. */
void imp_sensor_pos_vel(const imp_model* m, imp_data* d);
void imp_sensor_acc(const imp_model* m, imp_data* d);
/* cacc, cfrc_ext and cfrc_int from this forward's qacc and impulses (RNE
   after the constraints, Featherstone's recursion with the step's
   accelerations); imp_sensor calls it when a sensor needs it. */
void imp_rne_post_constraint(const imp_model* m, imp_data* d);
/* subtree_linvel and subtree_angmom from cvel (imp_sensor calls it when a
   sensor needs it). */
void imp_subtree_vel(const imp_model* m, imp_data* d);
/* imp_forward without the sensors: RK4's later stages (MuJoCo computes its
   sensors once per step too). */
void imp_forward_skip_sensor(const imp_model* m, imp_data* d);

/* ---- ray.c ---- */

/* Distance along pnt + t vec (t >= 0, units of |vec|) to the surface of a
   primitive of imp_geom_type type, size, at world pos and rotation mat;
   -1 when missed (from inside: the way out). Planes are one-sided and
   bounded by positive sizes; meshes are not primitives (-1). */
double imp_ray_primitive(int type, const double pos[3], const double mat[9],
                         const double size[3], const double pnt[3], const double vec[3]);

/* ---- integrate.c ---- */

/* qpos <- qpos (+) h qvel through each joint's kinematic map (exact for
   ball and free joints at constant angular velocity). */
void imp_integrate_pos(const imp_model* m, double* qpos, const double* qvel, double h);
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
/* The velocity update of the single-step integrators (Euler, implicitfast,
   implicit): qvel += h (M - h D)^-1 (qfrc_smooth + qfrc_constraint); then qpos. */
void imp_euler(const imp_model* m, imp_data* d);
/* Classic fourth-order Runge-Kutta on (qpos, qvel), positions through the
   kinematic map; d must hold a forward of the current state. */
void imp_rk4(const imp_model* m, imp_data* d);

#endif
