/* imp_data: one allocation holding the state, every computed array and a
   stack arena for the scratch of a step, so that stepping never allocates. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "constraint/contact.h"
#include "engine.h"
#include "core/mathx.h"
#include "core/pool.h"

/* The data's arrays and their lengths in doubles, as an X-macro table so
   sizing and pointer assignment cannot disagree. */
#define IMP_DATA_ARRAYS(X)                                     \
  X(qpos, m->nq) X(qvel, m->nv) X(ctrl, m->nu) X(qacc, m->nv)   \
  X(qfrc_applied, m->nv) X(xfrc_applied, 6 * m->nbody)          \
  X(xpos, 3 * m->nbody) X(xquat, 4 * m->nbody)                  \
  X(xmat, 9 * m->nbody) X(xipos, 3 * m->nbody)                  \
  X(ximat, 9 * m->nbody) X(xanchor, 3 * m->njnt)                \
  X(xaxis, 3 * m->njnt) X(geom_xpos, 3 * m->ngeom)              \
  X(geom_xmat, 9 * m->ngeom) X(site_xpos, 3 * m->nsite)         \
  X(site_xmat, 9 * m->nsite) X(cam_xpos, 3 * m->ncam)           \
  X(cam_xmat, 9 * m->ncam) X(light_xpos, 3 * m->nlight)         \
  X(light_xdir, 3 * m->nlight) X(subtree_com, 3 * m->nbody)     \
  X(cdof, 6 * m->nv) X(cinert, 10 * m->nbody)                   \
  X(cvel, 6 * m->nbody) X(cdof_dot, 6 * m->nv)                  \
  X(crb, 10 * m->nbody) X(qM, m->nM) X(qLD, m->nM)              \
  X(qLDiagInv, m->nv) X(qH, m->nM) X(qHDiagInv, m->nv)          \
  X(qLU, m->nM) X(qLUt, m->nM) X(qLUDiagInv, m->nv)             \
  X(ten_length, m->ntendon) X(ten_velocity, m->ntendon)         \
  X(ten_J, (size_t)m->ntendon * m->nJten) X(wrap_xpos, 6 * (size_t)m->nwrap) \
  X(actuator_length, m->nu) X(actuator_velocity, m->nu)         \
  X(actuator_force, m->nu) X(qfrc_actuator, m->nv)              \
  X(actuator_moment, (size_t)m->nu * m->nv)                     \
  X(qfrc_passive, m->nv) X(qfrc_gravcomp, m->nv)                \
  X(qfrc_bias, m->nv)                                           \
  X(qfrc_smooth, m->nv) X(qacc_smooth, m->nv)                   \
  X(qfrc_constraint, m->nv)                                     \
  X(sensordata, m->nsensordata) X(cacc, 6 * m->nbody)           \
  X(cfrc_int, 6 * m->nbody) X(cfrc_ext, 6 * m->nbody)           \
  X(subtree_linvel, 3 * m->nbody) X(subtree_angmom, 3 * m->nbody) \
  X(mocap_pos, 3 * m->nmocap) X(mocap_quat, 4 * m->nmocap)      \
  X(efc_J, m->nJnnz) X(efc_pos, m->njmax)    \
  X(efc_b, m->njmax) X(efc_v0, m->njmax) X(efc_vel, m->njmax)   \
  X(efc_impulse, m->njmax) X(blk_mu, m->njmax)                  \
  X(blk_scale, 6 * (size_t)m->njmax)                            \
  X(warm_pos, 3 * (size_t)m->njmax) X(warm_frame, 9 * (size_t)m->njmax) \
  X(warm_impulse, 6 * (size_t)m->njmax)                         \
  X(island_residual, m->njmax) X(island_residual_abs, m->njmax) \
  X(island_work, m->njmax) X(island_budget, m->njmax)           \
  X(act, m->na) X(act_dot, m->na)

/* The same for int arrays. */
#define IMP_DATA_IARRAYS(X)                                            \
  X(efc_type, m->njmax) X(efc_id, m->njmax) X(efc_blk, m->njmax)        \
  X(efc_J_rownnz, m->njmax) X(efc_J_rowadr, m->njmax)                   \
  X(efc_J_colind, m->nJnnz)                          \
  X(blk_efcadr, m->njmax) X(blk_dim, m->njmax) X(blk_type, m->njmax)    \
  X(blk_id, m->njmax) X(blk_island, m->njmax)                           \
  X(island_blkadr, m->njmax) X(island_blknum, m->njmax)                 \
  X(island_blk, m->njmax) X(island_iter, m->njmax)                     \
  X(island_newton, m->njmax) X(island_exit, m->njmax)                   \
  X(island_flags, m->njmax) X(warm_type, m->njmax) X(warm_id, m->njmax) \
  X(warm_id2, m->njmax) X(warm_order, m->njmax) X(warm_retarget, m->njmax) X(ten_J_rownnz, m->ntendon) X(ten_J_rowadr, m->ntendon) \
  X(ten_J_colind, (size_t)m->ntendon * m->nJten) X(ten_wrapadr, m->ntendon)  \
  X(ten_wrapnum, m->ntendon) X(wrap_obj, 2 * (size_t)m->nwrap)

/* bytes rounded up to a multiple of IMP_ALIGN (what aligned_alloc wants,
   and what keeps the next array aligned) */
static size_t round_up(size_t bytes) { return (bytes + IMP_ALIGN - 1) / IMP_ALIGN * IMP_ALIGN; }

static size_t aligned_bytes(size_t ndouble) { return round_up(ndouble * sizeof(double)); }

static size_t aligned_int_bytes(size_t nint) { return round_up(nint * sizeof(int)); }

/* Scratch a step needs at most: RNE and the integrator use a few arrays
   per body and per dof, the implicit integrators D (2 nM) and the tangent
   of RNE (19 per body, integrate.c, dynamics.c); generous, and checked on
   every allocation. */
size_t imp_arena_bytes(const imp_model* m, int solver) {
  size_t n = 64 * (size_t)m->nbody + 32 * (size_t)m->nv + 4 * (size_t)m->nM + 4 * (size_t)m->nq +
             4 * (size_t)m->nu + 8 * (size_t)m->na + 48 * (size_t)m->ngeom /* collision: boxes, tree, pairs */ +
             2 * (size_t)m->nM + 19 * (size_t)m->nbody /* implicit integrators */ +
             2 * (size_t)m->nv + (size_t)m->nJten + 2 * (size_t)m->nJrow; /* tendon rows */
  size_t b = aligned_bytes(n) + 64 * IMP_ALIGN + imp_contact_arena_bytes(m, solver);
  return round_up(b); /* aligned_alloc wants a multiple */
}

imp_data* imp_make_data(const imp_model* m) {
  if (!m) imp_error("imp_make_data: model is NULL");
  size_t total = 0;
#define IMP_SIZE(name, n) total += aligned_bytes((size_t)(n));
  IMP_DATA_ARRAYS(IMP_SIZE)
#undef IMP_SIZE
#define IMP_ISIZE(name, n) total += aligned_int_bytes((size_t)(n));
  IMP_DATA_IARRAYS(IMP_ISIZE)
#undef IMP_ISIZE
  size_t contact_bytes = sizeof(imp_contact) * (size_t)m->nconmax;
  total += round_up(contact_bytes); /* d->contact, last */
  total = round_up(total);

  imp_data* d = calloc(1, sizeof(imp_data));
  if (!d) return NULL;
  d->buffer = aligned_alloc(IMP_ALIGN, total);
  d->solver = m->opt.solver;
  if (!d->buffer || imp_arena_reserve(d, imp_arena_bytes(m, d->solver)) != 0) {
    free(d->buffer);
    free(d);
    return NULL;
  }
  memset(d->buffer, 0, total);
  d->nbuffer = total;
  char* p = d->buffer;
#define IMP_ASSIGN(name, n)  \
  d->name = (double*)p;      \
  p += aligned_bytes((size_t)(n));
  IMP_DATA_ARRAYS(IMP_ASSIGN)
#undef IMP_ASSIGN
#define IMP_IASSIGN(name, n) \
  d->name = (int*)(void*)p;  \
  p += aligned_int_bytes((size_t)(n));
  IMP_DATA_IARRAYS(IMP_IASSIGN)
#undef IMP_IASSIGN
  d->contact = (imp_contact*)(void*)p;
  d->nthread = 1;
  d->step_budget = IMP_STEP_WORK_DEFAULT;
  imp_reset_data(m, d);
  return d;
}

void imp_free_data(imp_data* d) {
  if (!d) return;
  imp_pool_free(d->pool);
  free(d->worker_scratch);
  free(d->arena);
  free(d->buffer);
  free(d);
}

/* Mocap bodies back to the pose of the model file (MuJoCo's mj_resetData). */
static void reset_mocap(const imp_model* m, imp_data* d) {
  for (int b = 0; b < m->nbody; b++) {
    int id = m->body_mocapid[b];
    if (id < 0) continue;
    imp_copy(d->mocap_pos + 3 * id, m->body_pos + 3 * b, 3);
    imp_copy(d->mocap_quat + 4 * id, m->body_quat + 4 * b, 4);
  }
}

void imp_reset_data(const imp_model* m, imp_data* d) {
  if (!m || !d) imp_error("imp_reset_data: NULL argument");
  /* everything goes back to zero (the arena holds nothing between steps);
     the solver chosen with imp_set_solver stays */
  memset(d->buffer, 0, d->nbuffer);
  d->nefc = d->nblk = d->nefc_dropped = d->nwarning_efcfull = 0;
  d->nefc_J = d->nefc_dropped_J = 0;
  d->nisland = d->warm_nblk = 0;
  d->solver_iter = d->solver_newton = d->solver_exit = d->nwarning_solver = 0;
  d->solver_residual = d->solver_residual_abs = 0;
  d->solver_work = 0;
  d->solver_over_budget = d->nstep_over_budget = 0;
  imp_copy(d->qpos, m->qpos0, m->nq);
  reset_mocap(m, d);
  d->time = 0;
  d->pstack = 0;
  d->nstep = 0;
  d->ncon = d->ncon_dropped = d->nwarning_contactfull = 0;
  d->npair_broad = d->npair_narrow = 0;
  for (int i = 0; i < IMP_NTIMER; i++) d->timer[i] = 0;
  d->sensor_rng = IMP_SENSOR_RNG_SEED; /* the same noise after every reset */
  /* world frame and identity orientations, so an unstepped data is sane */
  for (int b = 0; b < m->nbody; b++) {
    d->xquat[4 * b] = 1;
    d->xmat[9 * b] = d->xmat[9 * b + 4] = d->xmat[9 * b + 8] = 1;
    d->ximat[9 * b] = d->ximat[9 * b + 4] = d->ximat[9 * b + 8] = 1;
  }
}

void imp_reset_data_keyframe(const imp_model* m, imp_data* d, int key) {
  if (key < 0 || key >= m->nkey)
    imp_error("imp_reset_data_keyframe: key %d out of range (nkey %d)", key, m->nkey);
  imp_reset_data(m, d);
  d->time = m->key_time[key];
  imp_copy(d->qpos, m->key_qpos + (size_t)key * m->nq, m->nq);
  imp_copy(d->qvel, m->key_qvel + (size_t)key * m->nv, m->nv);
  imp_copy(d->ctrl, m->key_ctrl + (size_t)key * m->nu, m->nu);
  imp_copy(d->act, m->key_act + (size_t)key * m->na, m->na);
  imp_copy(d->mocap_pos, m->key_mpos + (size_t)key * 3 * m->nmocap, 3 * m->nmocap);
  imp_copy(d->mocap_quat, m->key_mquat + (size_t)key * 4 * m->nmocap, 4 * m->nmocap);
}

void imp_copy_data(const imp_model* m, imp_data* dst, const imp_data* src) {
  if (dst->nbuffer != src->nbuffer) imp_error("imp_copy_data: datas of different models");
  /* src's solver may need more scratch than dst's */
  if (imp_contact_fit_solver(m, dst, src->solver) != 0)
    imp_error("imp_copy_data: out of memory for the scratch of solver %d", src->solver);
  memcpy(dst->buffer, src->buffer, src->nbuffer);
  dst->time = src->time;
  dst->nstep = src->nstep;
  dst->nwarning_nan = src->nwarning_nan;
  dst->ncon = src->ncon;
  dst->ncon_dropped = src->ncon_dropped;
  dst->nwarning_contactfull = src->nwarning_contactfull;
  dst->npair_broad = src->npair_broad;
  dst->npair_narrow = src->npair_narrow;
  for (int i = 0; i < IMP_NTIMER; i++) dst->timer[i] = src->timer[i];
  dst->nefc = src->nefc;
  dst->nblk = src->nblk;
  dst->nefc_dropped = src->nefc_dropped;
  dst->nefc_J = src->nefc_J;
  dst->nefc_dropped_J = src->nefc_dropped_J;
  dst->nwarning_efcfull = src->nwarning_efcfull;
  dst->nisland = src->nisland;
  dst->solver = src->solver;
  dst->solver_iter = src->solver_iter;
  dst->solver_newton = src->solver_newton;
  dst->solver_exit = src->solver_exit;
  dst->solver_residual = src->solver_residual;
  dst->solver_residual_abs = src->solver_residual_abs;
  dst->nwarning_solver = src->nwarning_solver;
  dst->step_budget = src->step_budget;
  dst->solver_work = src->solver_work;
  dst->solver_over_budget = src->solver_over_budget;
  dst->nstep_over_budget = src->nstep_over_budget;
  dst->warm_nblk = src->warm_nblk;
  dst->sensor_rng = src->sensor_rng;
}

int imp_contact_fit_solver(const imp_model* m, imp_data* d, int solver) {
  if (imp_arena_reserve(d, imp_arena_bytes(m, solver)) != 0) return -1;
  int old = d->solver;
  d->solver = solver;
  if (imp_contact_fit_workers(m, d, old) != 0) {
    d->solver = old;
    return -1;
  }
  return 0;
}

int imp_set_solver(const imp_model* m, imp_data* d, const char* name) {
  int i = imp_solver_find(name);
  if (i < 0 || !m || !d) return -1;
  /* the new solver's scratch is reserved now, never inside a step */
  if (imp_contact_fit_solver(m, d, i) != 0) return -1;
  d->warm_nblk = 0; /* another solver's iterate is no warm start to trust */
  return 0;
}
