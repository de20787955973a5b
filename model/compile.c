/* Spec -> imp_model.
 *
 * First every cross-reference is resolved and checked (so errors carry the
 * file and line of the element at fault), then all arrays are carved out of
 * one allocation (m->buffer) and filled. Objects that belong to bodies
 * (joints, geoms, sites, cameras, lights) are ordered by body id, then file
 * order: bodies are numbered in depth-first preorder as they appear, so this
 * is MuJoCo's order and joints give MuJoCo's qpos/qvel layout.
 *
 * The mass matrix is tree-sparse: row i holds (i,i), (i,parent(i)),
 * (i,parent(parent(i))) ... so its length is the depth of dof i plus one and
 * dof_Madr[i] is the sum of the lengths of the rows before it.
 *
 * Checked against MuJoCo 2.2.2 (mj_loadXML on the same files), and matched
 * where it differs from a plain reading of the MJCF text:
 *  - fromto: the geom's +z points from 'to' towards 'from'; box and ellipsoid
 *    take size[0] for both cross-section half sizes, so one size is enough;
 *  - hinge/ball ranges are converted from degrees only when limited;
 *  - a massless body keeps its inertial frame at its own pos/quat;
 *  - a jointed body plus its welded descendants needs mass and every summed
 *    principal moment above IMP_MINVAL; explicit inertias must satisfy the
 *    triangle inequality; planes only in static bodies;
 *  - keyframe quaternions are normalized;
 *  - a mesh geom's pos/quat are composed with its mesh's frame (centroid,
 *    principal axes, moments decreasing) and its size is the largest
 *    |coordinate| per axis of that frame; mass properties by the mesh's
 *    inertia attribute, legacy (2.2.2's only method) by default;
 *  - contact pairs: unspecified attributes from the pair class (not the
 *    geoms), geom1's body first, ordered by (body1, body2); excludes with
 *    body1 < body2, ordered likewise.
 * Mesh geoms' rbound is the largest vertex distance (2.2.2: the norm of the
 * size, a looser bound).
 * Deliberate differences: compiler autolimits defaults to true (2.2.2 says
 * false and rejects a range without limited, so every valid 2.2.2 file loads
 * the same); principal moments from geoms come sorted in decreasing order
 * (the same tensor, possibly a different iquat). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "impetus.h"
#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

/* all model arrays: type, field, count */
#define LD_ARRAYS(X)                                                                      \
  X(int, body_parentid, nbody) X(int, body_rootid, nbody) X(int, body_jntnum, nbody)       \
  X(int, body_jntadr, nbody) X(int, body_dofnum, nbody) X(int, body_dofadr, nbody)         \
  X(int, body_geomnum, nbody) X(int, body_geomadr, nbody) X(double, body_pos, 3 * nbody)   \
  X(double, body_quat, 4 * nbody) X(double, body_ipos, 3 * nbody)                          \
  X(double, body_iquat, 4 * nbody) X(double, body_mass, nbody)                             \
  X(double, body_gravcomp, nbody) X(double, body_inertia, 3 * nbody)                       \
  X(double, body_subtreemass, nbody)                                                       \
  X(int, body_weldid, nbody) X(int, geom_dataid, ngeom) X(int, geom_priority, ngeom)       \
  X(double, geom_aabb, 6 * ngeom) X(int, mesh_vertadr, nmesh) X(int, mesh_vertnum, nmesh)  \
  X(int, mesh_faceadr, nmesh) X(int, mesh_facenum, nmesh) X(int, mesh_hulladr, nmesh)      \
  X(int, mesh_hullnum, nmesh) X(double, mesh_vert, 3 * nmeshvert)                          \
  X(int, mesh_face, 3 * nmeshface) X(int, mesh_hull, nmeshhull) X(int, mesh_pathadr, nmesh) \
  X(int, mesh_graphadr, nmesh) X(int, mesh_graph, nmeshgraph)                              \
  X(int, mesh_texcoordadr, nmesh) X(int, mesh_texcoordnum, nmesh)                          \
  X(float, mesh_texcoord, 2 * nmeshtexcoord) X(int, mesh_facetexcoord, 3 * nmeshface)      \
  X(int, pair_geom1, npair) X(int, pair_geom2, npair) X(int, pair_dim, npair)              \
  X(double, pair_friction, 5 * npair) X(double, pair_margin, npair)                        \
  X(double, pair_gap, npair) X(int, exclude_body1, nexclude)                               \
  X(int, exclude_body2, nexclude) X(int, name_meshadr, nmesh) X(int, name_pairadr, npair)  \
  X(int, jnt_type, njnt) X(int, jnt_qposadr, njnt) X(int, jnt_dofadr, njnt)                \
  X(int, jnt_actfrclimited, njnt) X(double, jnt_actfrcrange, 2 * njnt)                     \
  X(int, jnt_actgravcomp, njnt)                                                              \
  X(int, jnt_bodyid, njnt) X(int, jnt_limited, njnt) X(double, jnt_pos, 3 * njnt)          \
  X(double, jnt_axis, 3 * njnt) X(double, jnt_stiffness, njnt)                             \
  X(double, jnt_range, 2 * njnt) X(int, dof_bodyid, nv) X(int, dof_jntid, nv)              \
  X(int, dof_parentid, nv) X(int, dof_Madr, nv) X(double, dof_armature, nv)                \
  X(double, dof_damping, nv) X(double, dof_frictionloss, nv) X(int, geom_type, ngeom) X(int, geom_contype, ngeom)          \
  X(int, geom_conaffinity, ngeom) X(int, geom_condim, ngeom) X(int, geom_bodyid, ngeom)    \
  X(int, geom_group, ngeom) X(int, geom_matid, ngeom) X(double, geom_size, 3 * ngeom)      \
  X(double, geom_pos, 3 * ngeom) X(double, geom_quat, 4 * ngeom)                           \
  X(double, geom_friction, 3 * ngeom) X(double, geom_margin, ngeom)                        \
  X(double, geom_gap, ngeom) X(double, geom_rbound, ngeom) X(float, geom_rgba, 4 * ngeom)  \
  X(int, site_type, nsite) X(int, site_bodyid, nsite) X(int, site_group, nsite)            \
  X(int, site_matid, nsite) X(double, site_size, 3 * nsite) X(double, site_pos, 3 * nsite) \
  X(double, site_quat, 4 * nsite) X(float, site_rgba, 4 * nsite) X(int, cam_bodyid, ncam)  \
  X(int, cam_mode, ncam) X(int, cam_targetbodyid, ncam) X(double, cam_pos, 3 * ncam)       \
  X(double, cam_quat, 4 * ncam) X(double, cam_fovy, ncam) X(int, light_bodyid, nlight)     \
  X(double, cam_pos0, 3 * ncam) X(double, cam_poscom0, 3 * ncam) X(double, cam_mat0, 9 * ncam) \
  X(int, cam_resolution, 2 * ncam) X(double, cam_sensorsize, 2 * ncam)                     \
  X(double, cam_intrinsic, 4 * ncam)                                                       \
  X(double, light_pos0, 3 * nlight) X(double, light_poscom0, 3 * nlight)                   \
  X(double, light_dir0, 3 * nlight)                                                        \
  X(int, light_mode, nlight) X(int, light_targetbodyid, nlight)                            \
  X(int, light_directional, nlight) X(int, light_castshadow, nlight)                       \
  X(int, light_active, nlight) X(double, light_pos, 3 * nlight)                            \
  X(double, light_dir, 3 * nlight) X(float, light_attenuation, 3 * nlight)                 \
  X(float, light_cutoff, nlight) X(float, light_exponent, nlight)                          \
  X(float, light_ambient, 3 * nlight) X(float, light_diffuse, 3 * nlight)                  \
  X(float, light_specular, 3 * nlight) X(int, mat_texid, nmat) X(int, mat_texuniform, nmat) \
  X(float, mat_texrepeat, 2 * nmat) X(float, mat_emission, nmat)                           \
  X(float, mat_specular, nmat) X(float, mat_shininess, nmat)                               \
  X(float, mat_reflectance, nmat) X(float, mat_rgba, 4 * nmat) X(int, tex_type, ntex)      \
  X(int, tex_builtin, ntex) X(int, tex_width, ntex) X(int, tex_height, ntex)               \
  X(int, tex_fileadr, ntex) X(float, tex_rgb1, 3 * ntex) X(float, tex_rgb2, 3 * ntex)      \
  X(float, tex_markrgb, 3 * ntex) X(int, tex_mark, ntex) X(float, tex_random, ntex)        \
  X(int, tex_gridsize, 2 * ntex) X(char, tex_gridlayout, 13 * ntex)                       \
  X(int, actuator_trntype, nu) X(int, actuator_trnid, 2 * nu) X(int, actuator_dyntype, nu) \
  X(int, actuator_gaintype, nu) X(int, actuator_biastype, nu)                              \
  X(int, actuator_ctrllimited, nu) X(int, actuator_forcelimited, nu)                       \
  X(double, actuator_gear, 6 * nu) X(double, actuator_gainprm, IMP_NGAIN * nu)             \
  X(double, actuator_biasprm, IMP_NGAIN * nu) X(double, actuator_ctrlrange, 2 * nu)        \
  X(double, actuator_forcerange, 2 * nu) X(double, key_time, nkey)                         \
  X(double, actuator_dynprm, IMP_NGAIN * nu) X(int, actuator_actadr, nu)                   \
  X(int, actuator_actnum, nu) X(int, actuator_actlimited, nu)                              \
  X(double, actuator_actrange, 2 * nu) X(int, actuator_actearly, nu)                       \
  X(double, actuator_lengthrange, 2 * nu) X(double, actuator_acc0, nu)                     \
  X(double, actuator_cranklength, nu) X(int, actuator_dofadr, nu)                          \
  X(int, actuator_dofnum, nu)                                                              \
  X(double, key_act, nkey * na)                                                            \
  X(double, key_qpos, nkey * nq) X(double, key_qvel, nkey * nv)                            \
  X(double, key_ctrl, nkey * nu) X(double, qpos0, nq) X(double, qpos_spring, nq)           \
  X(int, name_bodyadr, nbody) X(int, name_jntadr, njnt) X(int, name_geomadr, ngeom)        \
  X(int, name_siteadr, nsite) X(int, name_camadr, ncam) X(int, name_lightadr, nlight)      \
  X(int, name_actuatoradr, nu) X(int, name_keyadr, nkey) X(int, name_matadr, nmat)         \
  X(int, name_texadr, ntex) X(char, names, nnames) X(char, paths, npaths)                  \
  X(double, jnt_solref, 2 * njnt) X(double, geom_solref, 2 * ngeom)                        \
  X(double, pair_solref, 2 * npair) X(int, eq_type, neq) X(int, eq_obj1id, neq)            \
  X(int, eq_obj2id, neq) X(int, eq_active, neq) X(double, eq_solref, 2 * neq)              \
  X(double, eq_data, LD_NEQDATA * neq) X(int, name_eqadr, neq)                             \
  X(int, sensor_type, nsensor) X(int, sensor_datatype, nsensor)                            \
  X(int, sensor_needstage, nsensor) X(int, sensor_objtype, nsensor)                        \
  X(int, sensor_objid, nsensor) X(int, sensor_reftype, nsensor)                            \
  X(int, sensor_refid, nsensor) X(int, sensor_dim, nsensor) X(int, sensor_adr, nsensor)    \
  X(double, sensor_cutoff, nsensor) X(double, sensor_noise, nsensor)                       \
  X(int, name_sensoradr, nsensor) X(int, tendon_adr, ntendon) X(int, tendon_num, ntendon)  \
  X(int, tendon_limited, ntendon) X(int, tendon_actfrclimited, ntendon)                    \
  X(int, tendon_group, ntendon) X(int, tendon_matid, ntendon)                              \
  X(double, tendon_range, 2 * ntendon) X(double, tendon_actfrcrange, 2 * ntendon)          \
  X(double, tendon_solref, 2 * ntendon) X(double, tendon_margin, ntendon)                  \
  X(double, tendon_stiffness, 3 * ntendon) X(double, tendon_damping, 3 * ntendon)          \
  X(double, tendon_frictionloss, ntendon) X(double, tendon_lengthspring, 2 * ntendon)      \
  X(double, tendon_armature, ntendon)                                                      \
  X(double, tendon_length0, ntendon) X(double, tendon_width, ntendon)                      \
  X(float, tendon_rgba, 4 * ntendon) X(int, wrap_type, nwrap) X(int, wrap_objid, nwrap)     \
  X(double, wrap_prm, nwrap) X(int, name_tendonadr, ntendon)                              \
  X(int, body_mocapid, nbody) X(double, key_mpos, 3 * nkey * nmocap)                       \
  X(double, key_mquat, 4 * nkey * nmocap)                                                  \
  X(double, hfield_size, 4 * nhfield) X(int, hfield_nrow, nhfield)                         \
  X(int, hfield_ncol, nhfield) X(int, hfield_adr, nhfield)                                 \
  X(float, hfield_data, nhfielddata) X(int, name_hfieldadr, nhfield)

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

/* one allocation for every array of m (sizes already set) */
static void allocate(ld_ctx* c, imp_model* m) {
  int nbody = m->nbody, njnt = m->njnt, nv = m->nv, nq = m->nq, ngeom = m->ngeom,
      nsite = m->nsite, ncam = m->ncam, nlight = m->nlight, nmat = m->nmat, ntex = m->ntex,
      nu = m->nu, na = m->na, nkey = m->nkey, nnames = m->nnames, npaths = m->npaths, nmesh = m->nmesh,
      nmeshvert = m->nmeshvert, nmeshface = m->nmeshface, nmeshhull = m->nmeshhull,
      nmeshgraph = m->nmeshgraph,
      nmeshtexcoord = m->nmeshtexcoord,
      npair = m->npair, nexclude = m->nexclude, neq = m->neq, nsensor = m->nsensor,
      ntendon = m->ntendon, nwrap = m->nwrap, nmocap = m->nmocap, nhfield = m->nhfield,
      nhfielddata = m->nhfielddata;
  size_t off = 0;
#define X(type, field, count) off = align64(off) + sizeof(type) * (size_t)(count);
  LD_ARRAYS(X)
#undef X
  m->nbuffer = off ? off : 1;
  m->buffer = calloc(1, m->nbuffer);
  if (!m->buffer) ld_error(c, "", 0, "out of memory");
  char* b = m->buffer;
  off = 0;
#define X(type, field, count)            \
  off = align64(off);                     \
  m->field = (type*)(void*)(b + off);     \
  off += sizeof(type) * (size_t)(count);
  LD_ARRAYS(X)
#undef X
}

/* stable order of n objects by their body id: perm[k] = index of the k-th
   (a counting sort, O(n + nbody): scanning all objects once per body made
   100,000 bodies take a minute, issue 15); num[b], adr[b] (when num is not
   NULL): each body's count and first place, -1 without any */
static int* order_by_body(ld_ctx* c, const int* bodyof, int n, int nbody, int* num, int* adr) {
  int* perm = ld_alloc(c, sizeof(int) * (size_t)(n + 1));
  int* start = ld_alloc(c, sizeof(int) * (size_t)(nbody + 1));
  for (int i = 0; i < n; i++) start[bodyof[i] + 1]++;
  for (int b = 0; b < nbody; b++) {
    if (num) {
      num[b] = start[b + 1];
      adr[b] = num[b] ? start[b] : -1;
    }
    start[b + 1] += start[b];
  }
  for (int i = 0; i < n; i++) perm[start[bodyof[i]]++] = i;
  return perm;
}

/* An error at the first element (in file order) whose name an earlier one
   has. Sorted, O(n log n): comparing every pair took minutes on 100,000
   named bodies (issue 15). */
static void check_unique(ld_ctx* c, ld_vec* v, const char* what) {
  /* every spec struct starts with name, file, line */
  const char** names = ld_alloc(c, sizeof(const char*) * (size_t)(v->n + 1));
  for (int i = 0; i < v->n; i++)
    names[i] = *(const char* const*)(const void*)(v->data + (size_t)i * v->elsz);
  int first = ld_first_repeated(c, names, v->n);
  if (first < 0) return;
  const char** a = (const char**)(void*)(v->data + (size_t)first * v->elsz);
  ld_error(c, a[1], *(const int*)(a + 2), "repeated %s name '%s'", what, a[0]);
}

int ld_find_name(const ld_vec* v, const char* name) {
  for (int i = 0; i < v->n; i++) {
    const char* s = *(const char* const*)(const void*)(v->data + (size_t)i * v->elsz);
    if (s && !strcmp(s, name)) return i;
  }
  return -1;
}

int ld_named_id(ld_ctx* c, const ld_vec* v, const char* what, const char* name,
                const char* file, int line) {
  int id = ld_lookup_name(c, v, name);
  if (id < 0) ld_error(c, file, line, "unknown %s '%s'", what, name);
  return id;
}

static int body_id(ld_ctx* c, const char* name, const char* file, int line) {
  return ld_named_id(c, &c->bodies, "body", name, file, line);
}

static int material_id(ld_ctx* c, const char* name, const char* file, int line) {
  return name ? ld_named_id(c, &c->materials, "material", name, file, line) : -1;
}

/* fromto and the number of size values of a geom or site */
static void resolve_shape(ld_ctx* c, ld_geom* g, int isgeom) {
  int t = g->type;
  int elongated = t == IMP_GEOM_CAPSULE || t == IMP_GEOM_CYLINDER || t == IMP_GEOM_BOX ||
                  t == IMP_GEOM_ELLIPSOID;
  if (g->has_fromto) {
    if (!elongated)
      ld_error(c, g->file, g->line, "fromto is not allowed for this %s type",
               isgeom ? "geom" : "site");
    double v[3];
    for (int i = 0; i < 3; i++) {
      g->pos[i] = 0.5 * (g->fromto[i] + g->fromto[i + 3]);
      v[i] = g->fromto[i] - g->fromto[i + 3]; /* MuJoCo's z points from 'to' to 'from' */
    }
    if (imp_norm3(v) < IMP_MINVAL) ld_error(c, g->file, g->line, "fromto has zero length");
    imp_quat_z2vec(g->quat, v);
    /* capsule, cylinder: size[1] is the half length; box, ellipsoid: size[0]
       is both the x and y half size and size[2] the half length */
    if (t == IMP_GEOM_CAPSULE || t == IMP_GEOM_CYLINDER) {
      g->size[1] = 0.5 * imp_norm3(v);
    } else {
      g->size[1] = g->size[0];
      g->size[2] = 0.5 * imp_norm3(v);
    }
  }
  if (!isgeom) {
    if (t == IMP_GEOM_HFIELD) /* MuJoCo's rule: a site cannot be a height field */
      ld_error(c, g->file, g->line, "hfield sites are not allowed");
    return;
  }
  int need = t == IMP_GEOM_SPHERE ? 1 : (t == IMP_GEOM_CAPSULE || t == IMP_GEOM_CYLINDER) ? 2
             : (t == IMP_GEOM_BOX || t == IMP_GEOM_ELLIPSOID)                         ? 3
                                                                                      : 0;
  if (g->has_fromto && need > 1) need = 1;
  if (g->nsize < need)
    ld_error(c, g->file, g->line, "geom size: expected %d values, got %d", need, g->nsize);
  if (g->has_fromto) need = t == IMP_GEOM_BOX || t == IMP_GEOM_ELLIPSOID ? 3 : 2;
  for (int i = 0; i < need; i++)
    if (!(g->size[i] > 0)) ld_error(c, g->file, g->line, "geom size must be positive");
}

static double rbound(const ld_geom* g) {
  const double* s = g->size;
  switch (g->type) {
    case IMP_GEOM_SPHERE: return s[0];
    case IMP_GEOM_CAPSULE: return s[0] + s[1];
    case IMP_GEOM_CYLINDER: return sqrt(s[0] * s[0] + s[1] * s[1]);
    case IMP_GEOM_BOX: return imp_norm3(s);
    case IMP_GEOM_ELLIPSOID: return fmax(s[0], fmax(s[1], s[2]));
    default: return 0;
  }
}

/* box around a primitive geom in its own frame: centre, half sizes */
static void geom_aabb(const ld_geom* g, double aabb[6]) {
  const double* s = g->size;
  double h[3] = {0, 0, 0};
  switch (g->type) {
    case IMP_GEOM_SPHERE: h[0] = h[1] = h[2] = s[0]; break;
    case IMP_GEOM_CAPSULE: h[0] = h[1] = s[0]; h[2] = s[0] + s[1]; break;
    case IMP_GEOM_CYLINDER: h[0] = h[1] = s[0]; h[2] = s[1]; break;
    case IMP_GEOM_BOX:
    case IMP_GEOM_ELLIPSOID: imp_copy(h, s, 3); break;
    default: break;
  }
  imp_zero(aabb, 3);
  imp_copy(aabb + 3, h, 3);
}

/* a mesh geom: its mesh, and its frame composed with the mesh frame so the
   vertices (stored in the mesh frame) land where the file put them */
static void resolve_mesh_geom(ld_ctx* c, ld_geom* g) {
  if (!g->mesh) ld_error(c, g->file, g->line, "mesh geom without a mesh attribute");
  for (int k = 0; k < c->meshes.n && g->meshid < 0; k++)
    if (!strcmp(LD_AT(c->meshes, ld_mesh, k)->name, g->mesh)) g->meshid = k;
  if (g->meshid < 0) ld_error(c, g->file, g->line, "unknown mesh '%s'", g->mesh);
  const ld_mesh* me = LD_AT(c->meshes, ld_mesh, g->meshid);
  double r[3], q[4];
  imp_quat_rotate(r, g->quat, me->pos);
  imp_add_scl(g->pos, r, 1, 3);
  imp_quat_mul(q, g->quat, me->quat);
  imp_quat_normalize(q);
  imp_copy(g->quat, q, 4);
  g->mesh_volume = me->volume;
  imp_copy(g->mesh_inertia, me->inertia, 3);
  imp_copy(g->size, me->size, 3); /* as MuJoCo: the largest |coordinate| per axis */
}

/* an hfield geom: its height field (by name, the first of that name, as
   for meshes), and MuJoCo's geom size (radius_x, radius_y, the mean of
   elevation_z and base_z); fromto has no meaning for it */
static void resolve_hfield_geom(ld_ctx* c, ld_geom* g) {
  if (!g->mesh) ld_error(c, g->file, g->line, "hfield geom without an hfield attribute");
  if (g->has_fromto) ld_error(c, g->file, g->line, "fromto is not allowed for hfield geoms");
  g->meshid = ld_named_id(c, &c->hfields, "hfield", g->mesh, g->file, g->line);
  const double* hs = LD_AT(c->hfields, ld_hfield, g->meshid)->size;
  g->size[0] = hs[0];
  g->size[1] = hs[1];
  g->size[2] = 0.5 * (hs[2] + hs[3]);
}

/* the box of an hfield geom in its frame (centre, half sizes) and the
   radius about its origin that holds it: from base to top elevation */
static void hfield_bounds(const double hs[4], double aabb[6], double* rb) {
  double top = hs[2], base = hs[3];
  aabb[0] = aabb[1] = 0;
  aabb[2] = 0.5 * (top - base);
  aabb[3] = hs[0];
  aabb[4] = hs[1];
  aabb[5] = 0.5 * (top + base);
  double z = fmax(top, base);
  *rb = sqrt(hs[0] * hs[0] + hs[1] * hs[1] + z * z);
}

/* contact pairs: geom ids with geom1's body <= geom2's body, sorted stably
   by (body1, body2) as MuJoCo 2.2.2 orders them */
static void resolve_pairs(ld_ctx* c, const ld_geom* G, int ngeom, int* g1, int* g2) {
  int n = c->pairs.n;
  for (int i = 0; i < n; i++) {
    ld_pair* p = LD_AT(c->pairs, ld_pair, i);
    const char* nm[2] = {p->geom1, p->geom2};
    int id[2] = {-1, -1};
    for (int k = 0; k < 2; k++) {
      for (int g = 0; g < ngeom && id[k] < 0; g++)
        if (G[g].name && !strcmp(G[g].name, nm[k])) id[k] = g;
      if (id[k] < 0) ld_error(c, p->file, p->line, "pair: unknown geom '%s'", nm[k]);
    }
    if (id[0] == id[1]) ld_error(c, p->file, p->line, "pair of geom '%s' with itself", nm[0]);
    int b0 = G[id[0]].body, b1 = G[id[1]].body;
    int swap = b0 > b1 || (b0 == b1 && id[0] > id[1]);
    g1[i] = id[swap];
    g2[i] = id[!swap];
  }
  /* insertion sort: stable, and pair lists are short */
  for (int i = 1; i < n; i++) {
    ld_pair p = *LD_AT(c->pairs, ld_pair, i);
    int a = g1[i], b = g2[i], j = i;
    for (; j > 0; j--) {
      int pa = G[g1[j - 1]].body, pb = G[g2[j - 1]].body;
      if (pa < G[a].body || (pa == G[a].body && pb <= G[b].body)) break;
      *LD_AT(c->pairs, ld_pair, j) = *LD_AT(c->pairs, ld_pair, j - 1);
      g1[j] = g1[j - 1];
      g2[j] = g2[j - 1];
    }
    *LD_AT(c->pairs, ld_pair, j) = p;
    g1[j] = a;
    g2[j] = b;
  }
}

/* excluded body pairs: body1 < body2, sorted by (body1, body2) */
static void resolve_excludes(ld_ctx* c, int* b1, int* b2) {
  int n = c->excludes.n;
  for (int i = 0; i < n; i++) {
    ld_exclude* e = LD_AT(c->excludes, ld_exclude, i);
    int a = body_id(c, e->body1, e->file, e->line), b = body_id(c, e->body2, e->file, e->line);
    if (a == b) ld_error(c, e->file, e->line, "exclude of body '%s' with itself", e->body1);
    int lo = a < b ? a : b, hi = a < b ? b : a, j = i;
    for (; j > 0 && (b1[j - 1] > lo || (b1[j - 1] == lo && b2[j - 1] > hi)); j--) {
      b1[j] = b1[j - 1];
      b2[j] = b2[j - 1];
    }
    b1[j] = lo;
    b2[j] = hi;
  }
}

/* copy names into m->names and set the offsets; "" for unnamed */
static void put_names(imp_model* m, int* pos, int* adr, ld_vec* v) {
  for (int i = 0; i < v->n; i++) {
    const char* s = *(const char**)(void*)(v->data + (size_t)i * v->elsz);
    if (!s || !s[0]) {
      adr[i] = (int)strlen(m->names); /* the empty string after the model name */
      continue;
    }
    adr[i] = *pos;
    size_t n = strlen(s) + 1;
    memcpy(m->names + *pos, s, n);
    *pos += (int)n;
  }
}

static size_t names_bytes(ld_vec* v) {
  size_t n = 0;
  for (int i = 0; i < v->n; i++) {
    const char* s = *(const char**)(void*)(v->data + (size_t)i * v->elsz);
    if (s) n += strlen(s) + 1;
  }
  return n;
}

/* gather kept elements of v in the order perm into a fresh vector */
static void permute(ld_ctx* c, ld_vec* v, const int* perm, int n) {
  char* d = malloc(v->elsz * (size_t)(n ? n : 1));
  if (!d) ld_error(c, "", 0, "out of memory");
  for (int i = 0; i < n; i++)
    memcpy(d + (size_t)i * v->elsz, v->data + (size_t)perm[i] * v->elsz, v->elsz);
  free(v->data);
  v->data = d;
  v->n = v->cap = n;
}

/* world poses of the bodies at qpos0: hinge and slide joints sit at their
   ref there and ball and free joints at the file's pose, so each body is
   its parent's pose composed with the file's pos/quat */
static void body_poses_qpos0(const ld_body* B, int nbody, double* xpos, double* xquat) {
  imp_zero(xpos, 3);
  imp_quat_identity(xquat);
  for (int b = 1; b < nbody; b++) {
    int p = B[b].parent;
    double r[3];
    imp_quat_rotate(r, xquat + 4 * p, B[b].pos);
    for (int i = 0; i < 3; i++) xpos[3 * b + i] = xpos[3 * p + i] + r[i];
    imp_quat_mul(xquat + 4 * b, xquat + 4 * p, B[b].quat);
    imp_quat_normalize(xquat + 4 * b);
  }
}

/* References of the track and trackcom modes: the world offsets of each
   camera and light from its body's origin and subtree centre of mass, and
   its world orientation, in the body-fixed frames of qpos0 (so a tracking
   camera starts where a fixed one would). Computed by the engine's own
   kinematics so the two cannot disagree. */
static void camlight_references(ld_ctx* c, imp_model* m) {
  if (m->ncam == 0 && m->nlight == 0) return;
  imp_data* d = imp_make_data(m);
  if (!d) ld_error(c, "", 0, "out of memory");
  imp_kinematics(m, d); /* make_data starts at qpos0 */
  imp_com_pos(m, d);
  for (int i = 0; i < m->ncam; i++) {
    const double *x = d->cam_xpos + 3 * i, *o = d->xpos + 3 * m->cam_bodyid[i],
                 *com = d->subtree_com + 3 * m->cam_bodyid[i];
    for (int k = 0; k < 3; k++)
      m->cam_pos0[3 * i + k] = x[k] - o[k], m->cam_poscom0[3 * i + k] = x[k] - com[k];
    imp_copy(m->cam_mat0 + 9 * i, d->cam_xmat + 9 * i, 9);
  }
  for (int i = 0; i < m->nlight; i++) {
    const double *x = d->light_xpos + 3 * i, *o = d->xpos + 3 * m->light_bodyid[i],
                 *com = d->subtree_com + 3 * m->light_bodyid[i];
    for (int k = 0; k < 3; k++)
      m->light_pos0[3 * i + k] = x[k] - o[k], m->light_poscom0[3 * i + k] = x[k] - com[k];
    imp_copy(m->light_dir0 + 3 * i, d->light_xdir + 3 * i, 3);
  }
  imp_free_data(d);
}

/* Every kind of object within LD_MAXOBJECTS: an error at the first element
   past it (every spec struct but a tendon's path objects starts with name,
   file, line; those start with file, line). */
static void check_counts(ld_ctx* c) {
  struct {
    const ld_vec* v;
    const char* what;
  } kinds[] = {{&c->bodies, "bodies"},       {&c->joints, "joints"},
               {&c->geoms, "geoms"},         {&c->sites, "sites"},
               {&c->cameras, "cameras"},     {&c->lights, "lights"},
               {&c->materials, "materials"}, {&c->textures, "textures"},
               {&c->meshes, "meshes"},       {&c->hfields, "height fields"},
               {&c->actuators, "actuators"}, {&c->keys, "keyframes"},
               {&c->pairs, "contact pairs"}, {&c->excludes, "contact excludes"},
               {&c->equalities, "equalities"}, {&c->tendons, "tendons"}};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    const ld_vec* v = kinds[k].v;
    if (v->n <= LD_MAXOBJECTS) continue;
    const char* const* e = (const char* const*)(const void*)(v->data + (size_t)LD_MAXOBJECTS * v->elsz);
    ld_error(c, e[1], *(const int*)(const void*)(e + 2), "more than %d %s", LD_MAXOBJECTS,
             kinds[k].what);
  }
  if (c->wraps.n > LD_MAXOBJECTS) {
    const ld_wrap* w = LD_AT(c->wraps, ld_wrap, LD_MAXOBJECTS);
    ld_error(c, w->file, w->line, "more than %d objects in tendon paths", LD_MAXOBJECTS);
  }
}

imp_model* ld_compile(ld_ctx* c) {
  check_counts(c);
  int nbody = c->bodies.n;
  ld_body* B = (ld_body*)c->bodies.data;
  double deg = c->degree ? IMP_PI / 180 : 1;

  /* ---- geoms: resolve shapes, height fields and meshes (fitting
     primitives to them), order by body ---- */
  int* keep = ld_alloc(c, sizeof(int) * (size_t)(c->geoms.n + 1));
  int nkeep = 0;
  ld_check_asset_names(c);
  for (int i = 0; i < c->geoms.n; i++) {
    ld_geom* g = LD_AT(c->geoms, ld_geom, i);
    g->meshid = -1;
    if (g->type == IMP_GEOM_HFIELD) resolve_hfield_geom(c, g);
    else if (ld_geom_fits_mesh(g)) ld_fit_geom_to_mesh(c, g); /* sizes come from the mesh */
    else resolve_shape(c, g, 1);
    if (g->type == IMP_GEOM_MESH) resolve_mesh_geom(c, g);
    if (g->has_frame) ld_frame_apply(g->frame_pos, g->frame_quat, g->pos, g->quat);
    keep[nkeep++] = i;
  }
  permute(c, &c->geoms, keep, nkeep);
  for (int i = 0; i < c->sites.n; i++) {
    ld_geom* s = LD_AT(c->sites, ld_geom, i);
    resolve_shape(c, s, 0);
    if (s->has_frame) ld_frame_apply(s->frame_pos, s->frame_quat, s->pos, s->quat);
  }

  /* body ids of each object kind, then the stable orders */
  ld_vec* owned[] = {&c->joints, &c->geoms, &c->sites, &c->cameras, &c->lights};
  size_t bodyoff[] = {offsetof(ld_joint, body), offsetof(ld_geom, body), offsetof(ld_geom, body),
                      offsetof(ld_camera, body), offsetof(ld_light, body)};
  int* jntnum = ld_alloc(c, sizeof(int) * (size_t)nbody);
  int* jntadr = ld_alloc(c, sizeof(int) * (size_t)nbody);
  int* geomnum = ld_alloc(c, sizeof(int) * (size_t)nbody);
  int* geomadr = ld_alloc(c, sizeof(int) * (size_t)nbody);
  for (int k = 0; k < 5; k++) {
    ld_vec* v = owned[k];
    int* bodyof = ld_alloc(c, sizeof(int) * (size_t)(v->n + 1));
    for (int i = 0; i < v->n; i++)
      bodyof[i] = *(int*)(void*)(v->data + (size_t)i * v->elsz + bodyoff[k]);
    int* perm = order_by_body(c, bodyof, v->n, nbody, k == 0 ? jntnum : k == 1 ? geomnum : NULL,
                              k == 0 ? jntadr : geomadr);
    permute(c, v, perm, v->n);
  }
  ld_joint* J = (ld_joint*)c->joints.data;
  ld_geom* G = (ld_geom*)c->geoms.data;

  /* ---- names must be unique within a type ---- */
  check_unique(c, &c->bodies, "body");
  check_unique(c, &c->joints, "joint");
  check_unique(c, &c->geoms, "geom");
  check_unique(c, &c->sites, "site");
  check_unique(c, &c->cameras, "camera");
  check_unique(c, &c->lights, "light");
  check_unique(c, &c->materials, "material");
  check_unique(c, &c->actuators, "actuator");
  check_unique(c, &c->keys, "key");
  check_unique(c, &c->pairs, "pair");
  check_unique(c, &c->sensors, "sensor");
  check_unique(c, &c->tendons, "tendon");
  int* pairg1 = ld_alloc(c, sizeof(int) * (size_t)(c->pairs.n + 1));
  int* pairg2 = ld_alloc(c, sizeof(int) * (size_t)(c->pairs.n + 1));
  resolve_pairs(c, G, c->geoms.n, pairg1, pairg2);
  int* exb1 = ld_alloc(c, sizeof(int) * (size_t)(c->excludes.n + 1));
  int* exb2 = ld_alloc(c, sizeof(int) * (size_t)(c->excludes.n + 1));
  resolve_excludes(c, exb1, exb2);

  /* ---- joints: sizes and checks ---- */
  int nq = 0, nv = 0, nlimited = 0, nfrictionloss = 0;
  for (int j = 0; j < c->joints.n; j++) {
    ld_joint* jt = &J[j];
    if (jt->type == IMP_JNT_FREE && B[jt->body].parent != 0)
      ld_error(c, jt->file, jt->line, "free joint must be in a top-level body");
    nq += jt->type == IMP_JNT_FREE ? 7 : jt->type == IMP_JNT_BALL ? 4 : 1;
    nv += jt->type == IMP_JNT_FREE ? 6 : jt->type == IMP_JNT_BALL ? 3 : 1;
    if (jt->limited < 0) jt->limited = c->autolimits ? jt->has_range : 0;
    /* an attached model's joints in its own unit (attach.c) */
    double jdeg = jt->angle_unit ? (jt->angle_unit == 2 ? IMP_PI / 180 : 1) : deg;
    if (jt->limited && (jt->type == IMP_JNT_HINGE || jt->type == IMP_JNT_BALL)) {
      /* MuJoCo converts the range only of limited joints */
      jt->range[0] *= jdeg;
      jt->range[1] *= jdeg;
    }
    if (jt->type == IMP_JNT_HINGE) {
      jt->ref *= jdeg;
      jt->springref *= jdeg;
    }
    if (jt->limited && jt->type != IMP_JNT_BALL && jt->range[0] >= jt->range[1])
      ld_error(c, jt->file, jt->line, "joint range: lower limit must be below upper limit");
    if (jt->limited && jt->type == IMP_JNT_FREE)
      ld_error(c, jt->file, jt->line, "free joints cannot be limited");
    /* a ball joint's range "0 a" is a cone of half-angle a about its rest
       orientation (MuJoCo 2.2.2 rejects any other lower value) */
    if (jt->limited && jt->type == IMP_JNT_BALL && jt->range[0] != 0)
      ld_error(c, jt->file, jt->line,
               "ball joint range: the first value must be 0 (range is '0 angle')");
    if (jt->limited && jt->type == IMP_JNT_BALL && !(jt->range[1] > 0))
      ld_error(c, jt->file, jt->line, "ball joint range: the cone angle must be positive");
    nlimited += jt->limited;
    /* MuJoCo: clamping the actuator force of ball and free joints is ignored */
    if (jt->actfrclimited < 0) jt->actfrclimited = c->autolimits ? jt->has_actfrcrange : 0;
    if (jt->type == IMP_JNT_BALL || jt->type == IMP_JNT_FREE) jt->actfrclimited = 0;
    if (jt->actfrclimited && jt->actfrcrange[0] > jt->actfrcrange[1])
      ld_error(c, jt->file, jt->line, "invalid actuatorfrcrange: lower above upper");
    if (jt->frictionloss > 0) /* a row of dry friction per dof */
      nfrictionloss += jt->type == IMP_JNT_FREE ? 6 : jt->type == IMP_JNT_BALL ? 3 : 1;
  }
  check_unique(c, &c->equalities, "equality");
  int* eqobj1 = ld_alloc(c, sizeof(int) * (size_t)(c->equalities.n + 1));
  int* eqobj2 = ld_alloc(c, sizeof(int) * (size_t)(c->equalities.n + 1));
  ld_resolve_equalities(c, eqobj1, eqobj2);

  /* ---- materials, textures, cameras, lights references ---- */
  int* mattex = ld_alloc(c, sizeof(int) * (size_t)(c->materials.n + 1));
  for (int i = 0; i < c->materials.n; i++) {
    ld_material* mt = LD_AT(c->materials, ld_material, i);
    mattex[i] = -1;
    if (!mt->texture) continue;
    for (int t = 0; t < c->textures.n && mattex[i] < 0; t++) {
      const char* s = LD_AT(c->textures, ld_texture, t)->name;
      if (s && !strcmp(s, mt->texture)) mattex[i] = t;
    }
    if (mattex[i] < 0) ld_error(c, mt->file, mt->line, "unknown texture '%s'", mt->texture);
  }

  /* ---- tendons: their paths, now that joints, sites and geoms have their
     final ids ---- */
  int nwrap = ld_resolve_tendons(c);
  int ntendon_rows = 0;
  for (int i = 0; i < c->tendons.n; i++) {
    const ld_tendon* t = LD_AT(c->tendons, ld_tendon, i);
    ntendon_rows += 2 * (t->limited != 0) + (t->frictionloss > 0);
  }

  /* ---- actuators: transmission targets (joint, tendon, site, body) ---- */
  int* actjnt = ld_alloc(c, sizeof(int) * (size_t)(c->actuators.n + 1));
  int* actkeep = ld_alloc(c, sizeof(int) * (size_t)(c->actuators.n + 1));
  int nu = ld_resolve_actuators(c, J, actjnt, actkeep);
  permute(c, &c->actuators, actkeep, nu);
  int na = ld_count_activations(c, nu);

  /* ---- sensors: their objects, now that joints, geoms, sites, cameras
     and actuators have their final ids ---- */
  int nsensordata = ld_resolve_sensors(c, J);

  /* ---- mocap bodies: children of the world without joints ---- */
  int* mocapid = ld_alloc(c, sizeof(int) * (size_t)nbody);
  int nmocap = ld_resolve_mocap(c, jntnum, mocapid);

  /* ---- keyframes ---- */
  for (int i = 0; i < c->keys.n; i++) {
    ld_key* k = LD_AT(c->keys, ld_key, i);
    if (k->nqpos >= 0 && k->nqpos != nq)
      ld_error(c, k->file, k->line, "key qpos: expected %d numbers, got %d", nq, k->nqpos);
    if (k->nqvel >= 0 && k->nqvel != nv)
      ld_error(c, k->file, k->line, "key qvel: expected %d numbers, got %d", nv, k->nqvel);
    if (k->nctrl >= 0 && k->nctrl != nu && k->nctrl == c->nactuator_file) {
      /* written for every actuator of the file: keep the values of those
         that remain (the others were skipped with a warning) */
      for (int u = 0; u < nu; u++)
        k->ctrl[u] = k->ctrl[LD_AT(c->actuators, ld_actuator, u)->fileidx];
      k->nctrl = nu;
    }
    if (k->nctrl >= 0 && k->nctrl != nu)
      ld_error(c, k->file, k->line, "key ctrl: expected %d numbers, got %d", nu, k->nctrl);
    ld_key_act(c, k, na);
  }

  /* ---- sizes, allocation ---- */
  imp_model* m = calloc(1, sizeof *m);
  if (!m) ld_error(c, "", 0, "out of memory");
  c->building = m;
  m->nq = nq;
  m->nv = nv;
  m->nu = nu;
  m->na = na;
  m->nbody = nbody;
  m->njnt = c->joints.n;
  m->ngeom = c->geoms.n;
  m->nsite = c->sites.n;
  m->ncam = c->cameras.n;
  m->nlight = c->lights.n;
  m->nmat = c->materials.n;
  m->ntex = c->textures.n;
  m->nkey = c->keys.n;
  m->nmocap = nmocap;
  m->nmesh = c->meshes.n;
  for (int i = 0; i < m->nmesh; i++) {
    const ld_mesh* me = LD_AT(c->meshes, ld_mesh, i);
    m->nmeshvert += me->nvert;
    m->nmeshface += me->nface;
    m->nmeshhull += me->nhull;
    m->nmeshgraph += me->ngraph;
    m->nmeshtexcoord += me->ntexcoord;
  }
  m->nhfield = c->hfields.n;
  for (int i = 0; i < m->nhfield; i++) {
    const ld_hfield* h = LD_AT(c->hfields, ld_hfield, i);
    m->nhfielddata += h->nrow * h->ncol; /* bounded by LD_MAXHFIELDDATA (hfield.c) */
  }
  m->npair = c->pairs.n;
  m->nexclude = c->excludes.n;
  m->neq = c->equalities.n;
  m->nsensor = c->sensors.n;
  m->nsensordata = nsensordata;
  m->ntendon = c->tendons.n;
  m->nwrap = nwrap;
  /* contact slots, constraint rows, the largest island (capacity.c) */
  ld_size_rows(c, m, nlimited, nfrictionloss, ntendon_rows);
  m->opt = c->opt;
  m->vis = c->vis;
  const char* mname = c->modelname ? c->modelname : "";
  size_t nn = strlen(mname) + 2;
  ld_vec* named[] = {&c->bodies, &c->joints,    &c->geoms,    &c->sites,    &c->cameras,
                     &c->lights, &c->actuators, &c->keys,     &c->materials, &c->textures,
                     &c->meshes, &c->pairs,     &c->equalities, &c->sensors, &c->tendons,
                     &c->hfields};
  for (size_t k = 0; k < sizeof named / sizeof *named; k++) nn += names_bytes(named[k]);
  m->nnames = (int)nn;
  size_t np = 0;
  for (int t = 0; t < c->textures.n; t++) {
    const char* p = LD_AT(c->textures, ld_texture, t)->path;
    if (p) np += strlen(p) + 1;
  }
  for (int i = 0; i < c->meshes.n; i++) np += strlen(LD_AT(c->meshes, ld_mesh, i)->path) + 1;
  m->npaths = (int)np;
  int nM = 0;
  m->nM = 0; /* set below, after dof_Madr; no array depends on it */
  allocate(c, m);

  /* ---- bodies and joints ---- */
  int qa = 0, da = 0;
  for (int b = 0; b < nbody; b++) {
    ld_body* bd = &B[b];
    m->body_parentid[b] = b ? bd->parent : 0;
    m->body_rootid[b] = b == 0 ? 0 : bd->parent == 0 ? b : m->body_rootid[bd->parent];
    /* a mocap body roots its own weld group, as in MuJoCo (user_objects.cc,
       weld_root): its children are filtered against it as a parent's */
    m->body_weldid[b] = b == 0 || jntnum[b] > 0 || mocapid[b] >= 0 ? b : m->body_weldid[bd->parent];
    m->body_mocapid[b] = mocapid[b];
    imp_copy(m->body_pos + 3 * b, bd->pos, 3);
    imp_copy(m->body_quat + 4 * b, bd->quat, 4);
    m->body_jntnum[b] = jntnum[b];
    m->body_jntadr[b] = jntadr[b];
    m->body_geomnum[b] = geomnum[b];
    m->body_geomadr[b] = geomadr[b];
    m->body_dofnum[b] = 0;
    m->body_dofadr[b] = -1;
    for (int j = jntadr[b]; j >= 0 && j < jntadr[b] + jntnum[b]; j++) {
      ld_joint* jt = &J[j];
      int nqj = jt->type == IMP_JNT_FREE ? 7 : jt->type == IMP_JNT_BALL ? 4 : 1;
      int nvj = jt->type == IMP_JNT_FREE ? 6 : jt->type == IMP_JNT_BALL ? 3 : 1;
      m->jnt_type[j] = jt->type;
      m->jnt_qposadr[j] = qa;
      m->jnt_dofadr[j] = da;
      m->jnt_bodyid[j] = b;
      m->jnt_limited[j] = jt->limited;
      m->jnt_actfrclimited[j] = jt->actfrclimited;
      imp_copy(m->jnt_actfrcrange + 2 * j, jt->actfrcrange, 2);
      m->jnt_actgravcomp[j] = jt->actgravcomp;
      imp_copy(m->jnt_pos + 3 * j, jt->pos, 3);
      imp_copy(m->jnt_axis + 3 * j, jt->axis, 3);
      m->jnt_stiffness[j] = jt->stiffness;
      imp_copy(m->jnt_solref + 2 * j, jt->solref, 2);
      imp_copy(m->jnt_range + 2 * j, jt->range, 2);
      if (jt->type == IMP_JNT_FREE) {
        imp_copy(m->qpos0 + qa, bd->pos, 3);
        imp_copy(m->qpos0 + qa + 3, bd->quat, 4);
        imp_copy(m->qpos_spring + qa, m->qpos0 + qa, 7);
      } else if (jt->type == IMP_JNT_BALL) {
        m->qpos0[qa] = m->qpos_spring[qa] = 1;
      } else {
        m->qpos0[qa] = jt->ref;
        m->qpos_spring[qa] = jt->springref;
      }
      if (m->body_dofadr[b] < 0) m->body_dofadr[b] = da;
      m->body_dofnum[b] += nvj;
      for (int k = 0; k < nvj; k++) {
        int d = da + k;
        m->dof_bodyid[d] = b;
        m->dof_jntid[d] = j;
        m->dof_armature[d] = jt->armature;
        m->dof_damping[d] = jt->damping;
        m->dof_frictionloss[d] = jt->frictionloss;
        if (d > m->body_dofadr[b]) {
          m->dof_parentid[d] = d - 1;
        } else { /* last dof of the nearest ancestor with dofs */
          int p = bd->parent, pd = -1;
          while (p > 0 && pd < 0) {
            if (m->body_dofnum[p] > 0) pd = m->body_dofadr[p] + m->body_dofnum[p] - 1;
            p = B[p].parent;
          }
          m->dof_parentid[d] = pd;
        }
      }
      qa += nqj;
      da += nvj;
    }
  }
  for (int d = 0; d < nv; d++) {
    m->dof_Madr[d] = nM;
    for (int p = d; p >= 0; p = m->dof_parentid[p]) nM++;
    if (nM > LD_MAXMASSENTRIES) {
      const ld_body* bd = &B[m->dof_bodyid[d]];
      ld_error(c, bd->file, bd->line,
               "the mass matrix would have more than %d entries (dofs times their depth)",
               LD_MAXMASSENTRIES);
    }
  }
  m->nM = nM;
  /* the entries of a constraint row and of all rows (capacity.c) */
  int nJeq;
  ld_tendon_dof_bounds(c, m, &m->nJten, &nJeq);
  ld_size_jacobian(m, nJeq);

  /* ---- mass properties ---- */
  ld_body_mass_properties(c, m);

  /* ---- geoms and sites ---- */
  for (int g = 0; g < m->ngeom; g++) {
    ld_geom* s = &G[g];
    m->geom_type[g] = s->type;
    m->geom_contype[g] = s->contype;
    m->geom_conaffinity[g] = s->conaffinity;
    m->geom_condim[g] = s->condim;
    m->geom_bodyid[g] = s->body;
    m->geom_group[g] = s->group;
    m->geom_matid[g] = material_id(c, s->material, s->file, s->line);
    imp_copy(m->geom_size + 3 * g, s->size, 3);
    imp_copy(m->geom_pos + 3 * g, s->pos, 3);
    imp_copy(m->geom_quat + 4 * g, s->quat, 4);
    imp_copy(m->geom_friction + 3 * g, s->friction, 3);
    m->geom_margin[g] = s->margin;
    m->geom_gap[g] = s->gap;
    m->geom_rbound[g] = rbound(s);
    m->geom_dataid[g] = s->meshid;
    m->geom_priority[g] = s->priority;
    imp_copy(m->geom_solref + 2 * g, s->solref, 2);
    geom_aabb(s, m->geom_aabb + 6 * g);
    if (s->type == IMP_GEOM_MESH) {
      const ld_mesh* me = LD_AT(c->meshes, ld_mesh, s->meshid);
      m->geom_rbound[g] = me->rbound;
      imp_copy(m->geom_aabb + 6 * g, me->aabb, 6);
    }
    if (s->type == IMP_GEOM_HFIELD)
      hfield_bounds(LD_AT(c->hfields, ld_hfield, s->meshid)->size, m->geom_aabb + 6 * g,
                    m->geom_rbound + g);
    memcpy(m->geom_rgba + 4 * g, s->rgba, sizeof s->rgba);
  }
  for (int i = 0; i < m->nsite; i++) {
    ld_geom* s = LD_AT(c->sites, ld_geom, i);
    m->site_type[i] = s->type;
    m->site_bodyid[i] = s->body;
    m->site_group[i] = s->group;
    m->site_matid[i] = material_id(c, s->material, s->file, s->line);
    imp_copy(m->site_size + 3 * i, s->size, 3);
    imp_copy(m->site_pos + 3 * i, s->pos, 3);
    imp_copy(m->site_quat + 4 * i, s->quat, 4);
    memcpy(m->site_rgba + 4 * i, s->rgba, sizeof s->rgba);
  }

  /* ---- cameras, lights, materials, textures, meshes, height fields ---- */
  ld_put_scene_assets(c, m, mattex);

  /* ---- contact pairs and excluded body pairs ---- */
  for (int i = 0; i < m->npair; i++) {
    const ld_pair* p = LD_AT(c->pairs, ld_pair, i);
    m->pair_geom1[i] = pairg1[i];
    m->pair_geom2[i] = pairg2[i];
    m->pair_dim[i] = p->condim;
    imp_copy(m->pair_friction + 5 * i, p->friction, 5);
    m->pair_margin[i] = p->margin;
    m->pair_gap[i] = p->gap;
    imp_copy(m->pair_solref + 2 * i, p->solref, 2);
  }
  for (int i = 0; i < m->nexclude; i++) {
    m->exclude_body1[i] = exb1[i];
    m->exclude_body2[i] = exb2[i];
  }

  /* ---- actuators and sensors ---- */
  ld_put_actuators(c, m, actjnt);
  ld_put_sensors(c, m);
  ld_put_tendons(c, m);

  /* ---- keyframes ---- */
  for (int i = 0; i < m->nkey; i++) {
    ld_key* k = LD_AT(c->keys, ld_key, i);
    m->key_time[i] = k->time;
    double* kq = m->key_qpos + nq * i;
    imp_copy(kq, k->nqpos >= 0 ? k->qpos : m->qpos0, nq);
    for (int j = 0; j < m->njnt; j++) /* MuJoCo normalizes keyframe quaternions */
      if (m->jnt_type[j] == IMP_JNT_FREE) imp_quat_normalize(kq + m->jnt_qposadr[j] + 3);
      else if (m->jnt_type[j] == IMP_JNT_BALL) imp_quat_normalize(kq + m->jnt_qposadr[j]);
    if (k->nqvel >= 0) imp_copy(m->key_qvel + nv * i, k->qvel, nv);
    if (k->nctrl >= 0) imp_copy(m->key_ctrl + nu * i, k->ctrl, nu);
    if (k->nact >= 0) imp_copy(m->key_act + na * i, k->act, na);
  }

  ld_put_mocap_keys(c, m); /* after the bodies' pos, quat and mocapid */

  /* ---- names ---- */
  int pos = (int)strlen(mname) + 2;
  memcpy(m->names, mname, strlen(mname) + 1);
  put_names(m, &pos, m->name_bodyadr, &c->bodies);
  put_names(m, &pos, m->name_jntadr, &c->joints);
  put_names(m, &pos, m->name_geomadr, &c->geoms);
  put_names(m, &pos, m->name_siteadr, &c->sites);
  put_names(m, &pos, m->name_camadr, &c->cameras);
  put_names(m, &pos, m->name_lightadr, &c->lights);
  put_names(m, &pos, m->name_actuatoradr, &c->actuators);
  put_names(m, &pos, m->name_keyadr, &c->keys);
  put_names(m, &pos, m->name_matadr, &c->materials);
  put_names(m, &pos, m->name_texadr, &c->textures);
  put_names(m, &pos, m->name_meshadr, &c->meshes);
  put_names(m, &pos, m->name_pairadr, &c->pairs);
  put_names(m, &pos, m->name_eqadr, &c->equalities);
  put_names(m, &pos, m->name_sensoradr, &c->sensors);
  put_names(m, &pos, m->name_tendonadr, &c->tendons);
  put_names(m, &pos, m->name_hfieldadr, &c->hfields);

  /* ---- the dofs each actuator's moment can reach ---- */
  imp_transmission_spans(m);

  /* ---- equality constraints, from the body poses at qpos0 ---- */
  double* xpos = ld_alloc(c, sizeof(double) * 3 * (size_t)nbody);
  double* xquat = ld_alloc(c, sizeof(double) * 4 * (size_t)nbody);
  body_poses_qpos0(B, nbody, xpos, xquat);
  ld_put_equalities(c, m, eqobj1, eqobj2, xpos, xquat);

  /* ---- tendon lengths at qpos0 and the springs' rest lengths ---- */
  ld_tendons_at_qpos0(c, m);

  /* ---- joints' springdamper, from the inertia at qpos0 ---- */
  ld_joints_springdamper(c, m, J);

  /* ---- position actuators' dampratio, and the stability of explicit
     velocity feedback, from the inertia at qpos0 ---- */
  ld_actuators_at_qpos0(c, m);

  /* ---- statistics (center, extent, meansize ...) at qpos0 ---- */
  ld_compute_statistic(c, m);
  camlight_references(c, m);

  /* ---- the largest island, bounded by the rows the model can make ---- */
  ld_bound_rows(c, m);

  /* ---- warnings: their own allocation, freed with the model ---- */
  m->nwarning = c->nwarning;
  m->warnings = malloc(c->nwarn_bytes + 1);
  if (!m->warnings) ld_error(c, "", 0, "out of memory");
  if (c->nwarn_bytes) memcpy(m->warnings, c->warn, c->nwarn_bytes);
  m->warnings[c->nwarn_bytes] = 0;
  return m;
}
