/* Impetus: the public C API.
 *
 * A model is loaded once from an MJCF file and never changes; a data holds
 * one simulation's state and all its scratch memory. A headless user:
 *
 *   char err[1000];
 *   imp_model* m = imp_load_xml("model.xml", err, sizeof err);
 *   imp_data* d = imp_make_data(m);
 *   for (int i = 0; i < 1000; i++) imp_step(m, d);
 *   imp_free_data(d); imp_free_model(m);
 */
#ifndef IMPETUS_H
#define IMPETUS_H

#include "types.h"
#include "rollout.h" /* imp_rollout: many simulations at once */

#ifdef __cplusplus
extern "C" {
#endif

#define IMP_VERSION_STRING "0.1.0"

/* ---- loading (model/) ---- */

/* Load an MJCF file. On failure returns NULL and writes "file:line: message"
   into err (errsz bytes), followed by the warnings gathered before the error,
   one a line (as many as fit). Warnings are kept on the model (m->warnings). */
imp_model* imp_load_xml(const char* path, char* err, int errsz);

/* Load MJCF text held in memory; relative include/meshdir paths resolve
   against dir (NULL: the working directory). name is used in messages. */
imp_model* imp_load_xml_string(const char* xml, const char* dir, const char* name,
                               char* err, int errsz);

/* Loading options (imp_load_xml_opt, imp_load_xml_string_opt). By default
   a file that uses a feature which changes the physics and that Impetus
   does not implement is refused, naming the feature at its file:line, so
   that no model runs as something other than what its file says. */
typedef enum imp_load_option {
  IMP_LOAD_ALLOW_UNSUPPORTED = 1 /* load it anyway: the feature is dropped with a warning */
} imp_load_option;
imp_model* imp_load_xml_opt(const char* path, int options, char* err, int errsz);
imp_model* imp_load_xml_string_opt(const char* xml, const char* dir, const char* name,
                                   int options, char* err, int errsz);

/* Free a model made by a loader. NULL is allowed. */
void imp_free_model(imp_model* m);

/* ---- data (engine/data.c) ---- */

/* Make a data for m, reset to the model's reference configuration.
   All memory of a simulation is allocated here. */
imp_data* imp_make_data(const imp_model* m);

/* Free a data. NULL is allowed. */
void imp_free_data(imp_data* d);

/* Reset the state to qpos0, zero velocity, zero control, time 0. */
void imp_reset_data(const imp_model* m, imp_data* d);

/* Reset, then load keyframe key (0 <= key < nkey). */
void imp_reset_data_keyframe(const imp_model* m, imp_data* d, int key);

/* Copy the state and all computed quantities of src into dst (same model). */
void imp_copy_data(const imp_model* m, imp_data* dst, const imp_data* src);

/* ---- simulation (engine/step.c) ---- */

/* Compute everything that depends on the state, up to qacc; no integration. */
void imp_forward(const imp_model* m, imp_data* d);

/* Advance the simulation by one time step m->opt.timestep. */
void imp_step(const imp_model* m, imp_data* d);

/* ---- controllers (engine/step.c, engine/smooth/jacobian.c) ----
 *
 * A controller sets d->ctrl (and may set qfrc_applied, xfrc_applied) from
 * the state. Two ways, as in MuJoCo:
 *
 *   imp_set_control_callback(d, my_controller, my_state);
 *   for (...) imp_step(m, d);               (the callback runs inside)
 * or
 *   for (...) { imp_step1(m, d); ...read d, set d->ctrl...; imp_step2(m, d); }
 *
 * imp_step1 then imp_step2 give the same bits as imp_step with the same
 * controls, for every integrator (RK4 too: unlike MuJoCo's mj_step2,
 * imp_step2 does not fall back to Euler). */

/* The position and velocity stages of a step, the sensors of positions and
   velocities (all but the limit sensors), then the control callback. The
   user may then set ctrl, qfrc_applied and xfrc_applied (mocap_pos and
   mocap_quat were read already). */
void imp_step1(const imp_model* m, imp_data* d);

/* The rest of the step begun by imp_step1: actuator forces from ctrl,
   accelerations, constraints and contacts, the other sensors, the
   integrator. */
void imp_step2(const imp_model* m, imp_data* d);

/* Call fn(m, d, user) in every forward of d, where MuJoCo calls
   mjcb_control: after the velocity stage, before the actuators read ctrl
   (imp_forward, imp_step, imp_step1; RK4 calls it at each of its four
   stages). The callback belongs to this data alone (no global): reset and
   imp_copy_data keep it (a copy keeps its own). fn NULL removes it. The
   callback must not step or reset d. */
void imp_set_control_callback(imp_data* d, imp_control_fn fn, void* user);

/* Jacobians of a world point attached to a body, at the configuration of
   the last forward (after imp_step: the state that step started from, as
   MuJoCo's): jacp (3 x nv, row-major) maps qvel to the point's world
   velocity, jacr (3 x nv) to the body's world angular velocity; either may
   be NULL. Columns of dofs that do not move the body are zero. */
void imp_jac(const imp_model* m, const imp_data* d, double* jacp, double* jacr,
             const double point[3], int body);
/* ... of the body frame's origin (xpos) */
void imp_jac_body(const imp_model* m, const imp_data* d, double* jacp, double* jacr, int body);
/* ... of the body's centre of mass (xipos) */
void imp_jac_body_com(const imp_model* m, const imp_data* d, double* jacp, double* jacr,
                      int body);
/* ... of a geom's centre, of a site */
void imp_jac_geom(const imp_model* m, const imp_data* d, double* jacp, double* jacr, int geom);
void imp_jac_site(const imp_model* m, const imp_data* d, double* jacp, double* jacr, int site);

/* res = M vec with the joint-space inertia M of the last forward (nv each;
   res and vec distinct). */
void imp_mul_m(const imp_model* m, const imp_data* d, double* res, const double* vec);

/* x = M^-1 y for n vectors of nv (stored one after another) with the last
   forward's factorization of M (x may be y). */
void imp_solve_m(const imp_model* m, const imp_data* d, double* x, const double* y, int n);

/* ---- the contact stage (engine/constraint/contact.c) ----
 *
 * Sign convention: a contact's impulse is what geom1 applies to geom2 over
 * the step, in the contact frame (normal from geom1 to geom2, then t1, t2;
 * then torsional about n and rolling about t1, t2 for condim 4 and 6).
 * Its normal component is >= 0 (geom2 is pushed along +n, away from
 * geom1); geom1 receives the opposite. Force = impulse / timestep.
 * d->efc_impulse holds every row's impulse (limits, equalities too). */

/* Contact solvers available: count, name and one-line description of
   solver i (NULL out of range). Solver 0 is the default, "todorov". */
int imp_solver_count(void);
const char* imp_solver_name(int i);
const char* imp_solver_description(int i);

/* Use the named contact solver from the next step on (the model's
   option solver="..." is the initial choice). The solver's scratch is
   reserved here (a data holds only its solver's: a pendulum's todorov
   scratch is kilobytes, lemke's dense tableau on 1000 rows 89 MB).
   Returns 0, or -1 for an unknown name or when that scratch cannot be had
   (nothing changed). */
int imp_set_solver(const imp_model* m, imp_data* d, const char* name);

/* Solve the contact stage's independent islands on n threads (the caller's
   and n - 1 workers owned by d, which sleep between steps) from the next
   step on; n = 1, the default, starts none. The results are bitwise the
   same for every n. Returns 0, or -1 when n is outside [1, 64] or the
   threads or their scratch cannot be had (d then keeps one thread). The
   workers and their scratch are made here, never inside a step, and go
   with imp_free_data; a data copied by imp_copy_data keeps its own. */
int imp_set_threads(const imp_model* m, imp_data* d, int n);

/* Bound the work of each step's contact solves to `work` multiply-adds
   (estimated from iterations and rows, never timed: results stay bitwise
   the same on any machine and thread count; engine/constraint/contact.h says how it
   is shared between islands) from the next step on. Islands that stop
   unconverged because of it are counted (d->solver_over_budget, and
   d->nstep_over_budget steps since the reset); d->solver_work is the last
   step's work. Default IMP_STEP_WORK_DEFAULT (1e9); INFINITY: no budget.
   Returns 0, or -1 when work is not > 0 (nan included; d unchanged). */
int imp_set_step_budget(imp_data* d, double work);

/* Impulse of contact i (0 <= i < d->ncon) of the last step in its frame,
   zero-padded to 6; returns its dimension (0 when the contact had no rows). */
int imp_contact_impulse(const imp_model* m, const imp_data* d, int i, double impulse[6]);

/* World force and torque (about the contact point) that geom1 applied to
   geom2 through contact i over the last step: impulse / timestep. */
void imp_contact_force_world(const imp_model* m, const imp_data* d, int i, double force[3],
                             double torque[3]);

/* ---- ray casts (engine/collision/ray.c) ---- */

/* Distance from pnt along vec (in units of |vec|) to the nearest surface of
   a geom of the last forward's frames, -1 when the ray meets none. Geoms of
   body bodyexclude (-1: none) and invisible geoms (alpha 0) are skipped;
   planes are seen from their front only; a ray starting inside a geom
   meets its surface on the way out. *geomid (when not NULL) gets the geom,
   or -1. What a rangefinder sensor measures. */
double imp_ray(const imp_model* m, const imp_data* d, const double pnt[3], const double vec[3],
               int bodyexclude, int* geomid);

/* ---- names ---- */

/* Id of the object of type with that name, or -1. */
int imp_name2id(const imp_model* m, imp_obj_type type, const char* name);

/* Name of object id of type ("" when unnamed), or NULL when id is out of range. */
const char* imp_id2name(const imp_model* m, imp_obj_type type, int id);

/* ---- errors and warnings (engine/core/error.c) ---- */

/* Called on API misuse before abort(); replace to throw or log elsewhere. */
void imp_set_error_handler(void (*handler)(const char* msg));

/* Called for run-time warnings (NaN reset ...); default prints to stderr. */
void imp_set_warning_handler(void (*handler)(const char* msg));

#ifdef __cplusplus
}
#endif
#endif
