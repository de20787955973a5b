/* Constraint rows: contacts, joint and tendon limits, joint and tendon friction and equalities, each a block of
 * rows with its Jacobian K (v = K u, u the generalized velocity), its
 * violation and its stabilization target b (Todorov 2010, eq. 11).
 *
 * Jacobians. A world point p fixed on body b moves with
 *     v_p = sum over the dofs k on b's chain to the root of
 *           (cdof_lin_k + cdof_ang_k x (p - c)) u_k,
 * cdof being each dof's motion axis about c, the centre of mass of b's
 * tree (kinematics.c), and the body turns with w = sum cdof_ang_k u_k. A
 * row between bodies b1 and b2 is (that of b2) - (that of b1), non-zero
 * only on the union of their two chains, which is closed under ancestors:
 * the property the Delassus assembly in contact.c relies on.
 *
 * Rows and violations (pos > 0 apart / within range, < 0 violated):
 *  - contact (condim 1, 3, 4, 6): rows n, t1, t2 (relative linear velocity
 *    of geom2's point at the contact point with respect to geom1's), then
 *    n, t1, t2 of the relative angular velocity (torsional, rolling). The
 *    contact point is on a flat geom's surface when the pair has one, else
 *    the midpoint pos that collision reports (and MuJoCo uses): see
 *    imp_contact_point for why. pos = dist -
 *    (margin - gap) + slop: contacts rest at margin - gap - slop, a hair
 *    inside the distance at which they are generated (dist <= margin).
 *    Resting exactly at that distance, rounding (1e-17 m) decided whether
 *    a resting corner was generated at all: a box on the floor lost two of
 *    its four contacts and tipped (measured, test_contact_physics.c). The
 *    slop, IMP_CONTACT_SLOP = 1e-6 m, is the resting penetration. The
 *    target is one linear law, -k pos, from the slop apart (pos = slop:
 *    touching, with margin 0) down through the resting depth to any
 *    depth (imp_contact_target); only a contact apart by more (a margin) gets
 *    -pos / h. Contacts rest at pos = 0, and with the kink between the
 *    apart and violated laws there, the corners of a resting box, sunk by
 *    rounding-level differences on both sides of it, got targets that no
 *    rigid motion meets (1e-9 m/s apart, the tolerance's size), so the
 *    solver had to unload a corner to meet them (humanoid100: 102 of 500
 *    steps not converged, 32 with one law, `impetus bench`). The price:
 *    a contact that starts touching sinks its last micron at the rate k
 *    (T = 0.02 s) instead of in one step. A law of slope 1/h through the
 *    resting depth (pushing back the first micron of a penetration in the
 *    step) was worse, 49 of 500 and 6 of humanoid's 5000 (1 with this
 *    one): its kink a micron deep is crossed by the corners of every box
 *    coming back from a deeper penetration, one by one;
 *  - joint limit, one block per side that can be reached in this step:
 *    hinge and slide pos = q - lower or upper - q; a ball joint's cone
 *    pos = range[1] - angle, its row the rotation axis of the joint;
 *  - joint friction (MJCF frictionloss): one row per dof of a joint with
 *    frictionloss > 0, in every step whatever the motion (MuJoCo's rule:
 *    dry friction acts at rest too), the dof's velocity, with the impulse
 *    bound frictionloss * h (IMP_CNSTR_FRICTION, contact.h); pos 0;
 *  - tendon limit and friction: the same along the tendon's Jacobian
 *    ten_J (tendon.c), pos = L - (range0 + margin) and (range1 - margin) - L:
 *    MuJoCo's soft limit rests at its margin, ours is there;
 *  - equality: connect (3 rows: the two anchors' world positions), weld
 *    (3 position rows, 3 orientation rows), joint (1 row,
 *    q1 - q1ref = poly(q2 - q2ref)), tendon (1 row, L1 - L1_0 = poly(L2 -
 *    L2_0)); pos is the residual, signed like v.
 *
 * Stabilization, documented for users: with T = solref time constant
 * (default 0.02 s; a non-positive value means the default) clamped to at
 * least 2h, rate k = 1/T:
 *  - unilateral rows apart (pos >= 0): b = -pos/h, the rows may close the
 *    gap in this step but not cross it (hard contact, no tunnelling);
 *    contact normals apart by at most the slop take -k pos instead
 *    (imp_contact_target);
 *  - unilateral rows violated (pos < 0): b = -k pos > 0, penetration decays
 *    as exp(-t/T) (pushed out at rate k, never faster than half per step);
 *  - equality rows: b = -k pos, drift decays the same way;
 *  - friction, torsional and rolling rows: b = 0.
 * Corrections are bounded: |b| of a violated row is at most IMP_STAB_VMAX
 * = 1 (m/s on contact normals and connect/weld positions, rad/s on limits,
 * joint equalities and weld orientations), so a model that starts far from
 * its constraints (a keyframe 0.5 rad past a limit, a deep penetration) is
 * brought back over several steps at that speed, never in one violent
 * step: Menagerie's cassie, 0.52 rad outside four limits in a closed
 * kinematic loop, was thrown at 37 m/s by uncapped targets (issue 17).
 * Targets that conflict (no velocity meets them all: a loop at a dead
 * point with a joint past its limit) are lowered by the contact stage to
 * the part it can meet with the equalities kept (contact_guard.c,
 * imp_guard_consistent_corrections), so a violation comes back when the
 * motion allows it, never by opening another.
 * The damping ratio of solref has no role in this hard, velocity-level
 * scheme: the correction is first order, without overshoot. */
#include <math.h>

#include "engine.h"
#include "core/mathx.h"
#include "core/quat.h"

/* Relative Jacobian of points p1 on b1 and p2 on b2: columns over the
   union of the chains, lin[3 x n] = J(p2) - J(p1), ang[3 x n] = Jw2 - Jw1. */
typedef struct rel_jac {
  int n;
  int* dof;         /* nJrow */
  int* side;        /* nJrow */
  double (*lin)[3]; /* nJrow */
  double (*ang)[3]; /* nJrow */
  int* mark;        /* nv, all 0 between uses: closure_width's marks */
} rel_jac;

/* Scratch for one relative Jacobian, on the arena. */
static rel_jac rel_jac_alloc(const imp_model* m, imp_data* d) {
  rel_jac J;
  J.n = 0;
  J.dof = imp_stack_alloc_int(d, m->nJrow);
  J.side = imp_stack_alloc_int(d, m->nJrow);
  J.lin = (double(*)[3])imp_stack_alloc(d, 3 * m->nJrow);
  J.ang = (double(*)[3])imp_stack_alloc(d, 3 * m->nJrow);
  J.mark = imp_stack_alloc_int(d, m->nv);
  for (int i = 0; i < m->nv; i++) J.mark[i] = 0;
  return J;
}

static void relative_jacobian(const imp_model* m, const imp_data* d, int b1, const double p1[3],
                              int b2, const double p2[3], rel_jac* J) {
  int* side = J->side;
  J->n = imp_chain_union(m, b1, b2, J->dof, side);
  for (int i = 0; i < J->n; i++) {
    int k = J->dof[i];
    double c1[3] = {0, 0, 0}, c2[3] = {0, 0, 0};
    if (side[i] & 1) imp_point_column(m, d, k, p1, c1);
    if (side[i] & 2) imp_point_column(m, d, k, p2, c2);
    double w = (side[i] & 2 ? 1.0 : 0.0) - (side[i] & 1 ? 1.0 : 0.0);
    for (int a = 0; a < 3; a++) {
      J->lin[i][a] = c2[a] - c1[a];
      J->ang[i][a] = w * d->cdof[6 * k + a];
    }
  }
}

/* ---- rows and blocks ---- */

/* Dofs in the ancestor closure of the dofs a[0..na) and b[0..nb): the
   entries the contact stage's half-solve of a row on them fills (contact.c),
   so what the row reserves of efc_J. mark (nv) is all 0 before and after. */
static int closure_width(const imp_model* m, int* mark, int na, const int* a, int nb,
                         const int* b) {
  int n = 0;
  for (int i = 0; i < na + nb; i++)
    for (int k = i < na ? a[i] : b[i - na]; k >= 0 && !mark[k]; k = m->dof_parentid[k])
      mark[k] = 1, n++;
  /* each walk above marked a path up to a dof marked before it: clearing in
     the same order stops at the same places */
  for (int i = 0; i < na + nb; i++)
    for (int k = i < na ? a[i] : b[i - na]; k >= 0 && mark[k]; k = m->dof_parentid[k]) mark[k] = 0;
  return n;
}

/* Open a block of dim rows, each with room for width entries of efc_J (its
   dofs closed under ancestors); -1 (and the rows counted as dropped) when
   the data has no room for the rows (njmax) or their entries (nJnnz). */
static int add_block(const imp_model* m, imp_data* d, int type, int id, int dim, int width) {
  if (d->nefc + dim > m->njmax || (long long)dim * width > (long long)m->nJnnz - d->nefc_J) {
    d->nefc_dropped += dim;
    if (d->nefc + dim <= m->njmax) d->nefc_dropped_J += dim;
    return -1;
  }
  int blk = d->nblk++;
  d->blk_efcadr[blk] = d->nefc;
  d->blk_dim[blk] = dim;
  d->blk_type[blk] = type;
  d->blk_id[blk] = id;
  d->blk_island[blk] = -1;
  d->blk_mu[blk] = 0;
  for (int r = 0; r < dim; r++) {
    int row = d->nefc++;
    d->efc_type[row] = type;
    d->efc_id[row] = id;
    d->efc_blk[row] = blk;
    d->efc_J_rowadr[row] = d->nefc_J;
    d->efc_J_rownnz[row] = 0;
    d->nefc_J += width;
    d->efc_pos[row] = 0;
    d->efc_b[row] = 0;
    d->efc_impulse[row] = 0;
    d->blk_scale[6 * blk + r] = 1;
  }
  return blk;
}

/* Row = dir' (lin or ang part of J): the non-zeros over J's dofs. */
static void set_row(imp_data* d, int row, const rel_jac* J, const double dir[3], int angular) {
  int adr = d->efc_J_rowadr[row], nnz = 0;
  for (int i = 0; i < J->n; i++) {
    const double* c = angular ? J->ang[i] : J->lin[i];
    d->efc_J_colind[adr + nnz] = J->dof[i];
    d->efc_J[adr + nnz] = dir[0] * c[0] + dir[1] * c[1] + dir[2] * c[2];
    nnz++;
  }
  d->efc_J_rownnz[row] = nnz;
}

/* Row with explicit (dof, value) entries, dofs descending. */
static void set_row_entries(imp_data* d, int row, int n, const int* dof, const double* val) {
  int adr = d->efc_J_rowadr[row];
  for (int i = 0; i < n; i++) {
    d->efc_J_colind[adr + i] = dof[i];
    d->efc_J[adr + i] = val[i];
  }
  d->efc_J_rownnz[row] = n;
}

/* Rate 1/T of the stabilization, T from solref clamped to 2h. */
static double stab_rate(const double solref[2], double h) {
  double T = solref[0] > 0 ? solref[0] : IMP_SOLREF_TIMECONST;
  return 1 / fmax(T, 2 * h);
}

double imp_unilateral_target(double pos, const double solref[2], double h) {
  return pos >= 0 ? -pos / h : fmin(-pos * stab_rate(solref, h), IMP_STAB_VMAX);
}

double imp_bilateral_target(double pos, const double solref[2], double h) {
  return fmax(fmin(-pos * stab_rate(solref, h), IMP_STAB_VMAX), -IMP_STAB_VMAX);
}

/* ---- contacts ---- */

/* solref of a contact: the explicit pair's; else the higher-priority geom's;
   else the mean of the two (MJCF's solmix at its default). */
static void contact_solref(const imp_model* m, const imp_contact* c, double s[2]) {
  if (c->pair >= 0) {
    imp_copy(s, m->pair_solref + 2 * c->pair, 2);
    return;
  }
  int g1 = c->geom1, g2 = c->geom2;
  const double *s1 = m->geom_solref + 2 * g1, *s2 = m->geom_solref + 2 * g2;
  if (m->geom_priority[g1] != m->geom_priority[g2]) {
    imp_copy(s, m->geom_priority[g1] > m->geom_priority[g2] ? s1 : s2, 2);
    return;
  }
  s[0] = 0.5 * (s1[0] + s2[0]);
  s[1] = 0.5 * (s1[1] + s2[1]);
}

/* 1 for geom types whose surface is flat where it touches: a plane, a
   height field's triangles, a box's faces and a mesh's hull facets */
static int flat_surface(int type) {
  return type == IMP_GEOM_PLANE || type == IMP_GEOM_HFIELD || type == IMP_GEOM_BOX ||
         type == IMP_GEOM_MESH;
}

/* The point at which contact c's rows act: on the surface of a flat geom
   when the pair has one (geom1's when both are: pos - (dist / 2) n, n =
   frame[0..2] pointing from geom1 to geom2; geom2's is pos + (dist / 2) n),
   else the midpoint pos between the two surfaces that collision reports
   (and MuJoCo uses). Why: the contacts of one face (a foot's or a box's
   corners on the floor) then lie in one plane, so sticking at all of them
   is a consistent set of equations. At the midpoints they are (dist_i -
   dist_j) / 2 apart along n, and a face that tilts, as it does whenever
   its corners sink by different depths and the stabilization (b) lifts
   them back at different rates, slides those points tangentially by its
   tilt rate times that offset: sticking everywhere has no solution, and
   the exact answer is a micro-slip (1e-7 m/s on MuJoCo's humanoid standing:
   both feet's contacts slipping with their friction on the cone, internal
   forces of order m g) that the solvers crawl towards. Measured with
   `impetus bench`, midpoint -> here, steps not converged: humanoid.xml
   117 -> 1 of 5000, 22_humanoids.xml 120 -> 4 of 300, humanoid100.xml
   355 -> 99 of 500, models/arch.xml 1997 -> 122 of 2000. Between two
   curved surfaces (one contact point each, no face) the midpoint is kept:
   14 random variants of models/balls_cube.xml gave 3731 steps not
   converged in all with midpoints, 5582 with geom1's surface for
   sphere-sphere contacts too, 3431 with this rule. The point moves by
   |dist| / 2 (the resting depth is IMP_CONTACT_SLOP); on a plane it is
   where the penetrating body meets the plane. */
void imp_contact_point(const imp_model* m, const imp_contact* c, double p[3]) {
  double side = c->surface == 1                          ? -0.5
                : c->surface == 2                        ? 0.5
                : flat_surface(m->geom_type[c->geom1])   ? -0.5
                : flat_surface(m->geom_type[c->geom2]) ? 0.5
                                                       : 0;
  for (int a = 0; a < 3; a++) p[a] = c->pos[a] + side * c->dist * c->frame[a];
}

/* b of a contact normal (engine.h; the law in the header) */
double imp_contact_target(double pos, const double solref[2], double h) {
  if (pos > IMP_CONTACT_SLOP) return -pos / h;
  return pos < 0 ? imp_unilateral_target(pos, solref, h) : -stab_rate(solref, h) * pos;
}

static void add_contact(const imp_model* m, imp_data* d, int i, rel_jac* J) {
  imp_contact* c = d->contact + i;
  c->efc_adr = -1;
  int b1 = m->geom_bodyid[c->geom1], b2 = m->geom_bodyid[c->geom2];
  if (imp_chain_tip(m, b1) < 0 && imp_chain_tip(m, b2) < 0) return; /* nothing can move */
  /* no sliding friction: frictionless, whatever the condim */
  int dim = c->friction[0] > IMP_MINVAL ? c->dim : 1;
  double p[3];
  imp_contact_point(m, c, p);
  relative_jacobian(m, d, b1, p, b2, p, J); /* closed under ancestors */
  int blk = add_block(m, d, IMP_CNSTR_CONTACT, i, dim, J->n);
  if (blk < 0) return;
  int row = d->blk_efcadr[blk];
  c->efc_adr = row;
  const double* F = c->frame;
  for (int r = 0; r < dim; r++) /* rows 0-2 linear n, t1, t2; 3-5 angular n, t1, t2 */
    set_row(d, row + r, J, F + 3 * (r % 3), r >= 3);
  double solref[2], h = m->opt.timestep;
  contact_solref(m, c, solref);
  double pos = c->dist - (c->margin - c->gap) + IMP_CONTACT_SLOP;
  d->efc_pos[row] = pos;
  d->efc_b[row] = imp_contact_target(pos, solref, h);
  if (dim > 1) {
    d->blk_mu[blk] = c->friction[0];
    /* friction rows k = 1..dim-1 have coefficients friction[k-1]; in solver
       variables g = f / scale the elliptic cone is the circular cone of
       the sliding coefficient (contact.h) */
    for (int r = 1; r < dim; r++) d->blk_scale[6 * blk + r] = c->friction[r - 1] / c->friction[0];
  }
}

/* ---- joint limits ---- */

/* Angle of a ball joint's rotation and its unit axis (child frame). */
static double ball_angle(const double q[4], double axis[3]) {
  double w = q[0], s;
  double v[3] = {q[1], q[2], q[3]};
  if (w < 0) w = -w, v[0] = -v[0], v[1] = -v[1], v[2] = -v[2];
  s = imp_normalize3(v);
  imp_copy(axis, v, 3);
  if (s < IMP_MINVAL) axis[0] = 1, axis[1] = axis[2] = 0;
  return 2 * atan2(s, w);
}

/* A limit side enters the problem when it is violated or met (pos <= 0,
   whatever the motion: leaving it out while the joint moves outwards let
   springs and gravity push it back in the next step, a six-step limit
   cycle measured on the humanoid's ankle; and a joint on its limit, as
   Menagerie's piper is at qpos0, was carried past it by a contact's
   correction) or when the motion of this step could reach it: the
   unconstrained motion, pos + h * (its rate under u_free) < 0 with u_free
   approximated by qvel + h qacc_smooth, or a correction elsewhere moving it
   at up to IMP_STAB_VMAX, pos < h IMP_STAB_VMAX (after the step above the
   piper's shoulder sat 1e-9 rad inside its limit, and the next step's
   correction carried it 0.02 rad past). */
static void add_limit(const imp_model* m, imp_data* d, int* mark, int id, double pos, int n,
                      const int* dof, const double* val, const double solref[2]) {
  double h = m->opt.timestep, rate = 0;
  for (int i = 0; i < n; i++)
    rate += val[i] * (d->qvel[dof[i]] + h * d->qacc_smooth[dof[i]]);
  if (pos >= h * IMP_STAB_VMAX && pos + h * rate >= 0) return;
  int blk = add_block(m, d, IMP_CNSTR_LIMIT, id, 1, closure_width(m, mark, n, dof, 0, NULL));
  if (blk < 0) return;
  int row = d->blk_efcadr[blk];
  set_row_entries(d, row, n, dof, val);
  d->efc_pos[row] = pos;
  d->efc_b[row] = imp_unilateral_target(pos, solref, h);
}

static void add_limits(const imp_model* m, imp_data* d, int* mark) {
  for (int j = 0; j < m->njnt; j++) {
    if (!m->jnt_limited[j]) continue;
    const double* range = m->jnt_range + 2 * j;
    int qa = m->jnt_qposadr[j], va = m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
      case IMP_JNT_HINGE:
      case IMP_JNT_SLIDE: {
        double q = d->qpos[qa], plus = 1, minus = -1;
        add_limit(m, d, mark, j, q - range[0], 1, &va, &plus, m->jnt_solref + 2 * j);
        add_limit(m, d, mark, j, range[1] - q, 1, &va, &minus, m->jnt_solref + 2 * j);
        break;
      }
      case IMP_JNT_BALL: {
        double axis[3];
        double angle = ball_angle(d->qpos + qa, axis);
        int dof[3] = {va + 2, va + 1, va};
        double val[3] = {-axis[2], -axis[1], -axis[0]}; /* d(range - angle)/dt = -axis . w */
        add_limit(m, d, mark, j, range[1] - angle, 3, dof, val, m->jnt_solref + 2 * j);
        break;
      }
      default:
        break;
    }
  }
}

/* ---- joint friction ---- */

static void add_joint_friction(const imp_model* m, imp_data* d, int* mark) {
  for (int i = 0; i < m->nv; i++) {
    if (!(m->dof_frictionloss[i] > 0)) continue;
    int blk = add_block(m, d, IMP_CNSTR_FRICTION, i, 1, closure_width(m, mark, 1, &i, 0, NULL));
    if (blk < 0) return;
    double one = 1;
    set_row_entries(d, d->blk_efcadr[blk], 1, &i, &one);
    d->blk_mu[blk] = m->dof_frictionloss[i] * m->opt.timestep; /* a force bound, as an impulse */
  }
}

/* ---- tendon limits and friction: rows along ten_J ---- */

/* Limit rows of tendon t, block ids njnt + 2 t (lower) and + 1 (upper):
   pos = L - (range0 + margin) and (range1 - margin) - L, the rows +-J. A
   tendon no dof moves has none. */
static void add_tendon_limits(const imp_model* m, imp_data* d, int* mark) {
  size_t top = imp_stack_mark(d);
  double* neg = imp_stack_alloc(d, m->nJten);
  for (int t = 0; t < m->ntendon; t++) {
    int adr = d->ten_J_rowadr[t], n = d->ten_J_rownnz[t];
    if (!m->tendon_limited[t] || n == 0) continue;
    const double *range = m->tendon_range + 2 * t, *J = d->ten_J + adr;
    const int* dof = d->ten_J_colind + adr;
    double L = d->ten_length[t], margin = m->tendon_margin[t];
    for (int i = 0; i < n; i++) neg[i] = -J[i];
    add_limit(m, d, mark, m->njnt + 2 * t, L - range[0] - margin, n, dof, J,
              m->tendon_solref + 2 * t);
    add_limit(m, d, mark, m->njnt + 2 * t + 1, range[1] - margin - L, n, dof, neg,
              m->tendon_solref + 2 * t);
  }
  imp_stack_release(d, top);
}

/* A row of dry friction along tendon t (id nv + t), bound frictionloss h. */
static void add_tendon_friction(const imp_model* m, imp_data* d, int* mark) {
  for (int t = 0; t < m->ntendon; t++) {
    int adr = d->ten_J_rowadr[t], n = d->ten_J_rownnz[t];
    if (!(m->tendon_frictionloss[t] > 0) || n == 0) continue;
    int blk = add_block(m, d, IMP_CNSTR_FRICTION, m->nv + t, 1,
                        closure_width(m, mark, n, d->ten_J_colind + adr, 0, NULL));
    if (blk < 0) return;
    set_row_entries(d, d->blk_efcadr[blk], n, d->ten_J_colind + adr, d->ten_J + adr);
    d->blk_mu[blk] = m->tendon_frictionloss[t] * m->opt.timestep;
  }
}

/* ---- equalities ---- */

static void body_point(const imp_data* d, int b, const double local[3], double p[3]) {
  imp_mat3_vec(p, d->xmat + 9 * b, local);
  for (int i = 0; i < 3; i++) p[i] += d->xpos[3 * b + i];
}

/* Bilateral block of dim rows: rows e_a' (lin or ang of J), residual e. */
static void add_equality_rows(const imp_model* m, imp_data* d, int blk, int first, const rel_jac* J,
                              const double e[3], int angular) {
  static const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const double* solref = m->eq_solref + 2 * d->blk_id[blk];
  for (int a = 0; a < 3; a++) {
    int row = d->blk_efcadr[blk] + first + a;
    set_row(d, row, J, axes[a], angular);
    d->efc_pos[row] = e[a];
    d->efc_b[row] = imp_bilateral_target(e[a], solref, m->opt.timestep);
  }
}

static void add_connect(const imp_model* m, imp_data* d, int e, rel_jac* J) {
  int b1 = m->eq_obj1id[e], b2 = m->eq_obj2id[e];
  const double* data = m->eq_data + 11 * e;
  double p1[3], p2[3], r[3];
  body_point(d, b1, data, p1);
  body_point(d, b2, data + 3, p2);
  relative_jacobian(m, d, b1, p1, b2, p2, J);
  int blk = add_block(m, d, IMP_CNSTR_EQUALITY, e, 3, J->n);
  if (blk < 0) return;
  for (int i = 0; i < 3; i++) r[i] = p2[i] - p1[i];
  add_equality_rows(m, d, blk, 0, J, r, 0);
}

static void add_weld(const imp_model* m, imp_data* d, int e, rel_jac* J) {
  int b1 = m->eq_obj1id[e], b2 = m->eq_obj2id[e];
  const double* data = m->eq_data + 11 * e;
  double target[3], p2[3], r[3], q1t[4], qerr[4], qc[4];
  body_point(d, b1, data, target); /* where body2's point data[7..9] belongs */
  body_point(d, b2, data + 7, p2);
  relative_jacobian(m, d, b1, target, b2, p2, J);
  int blk = add_block(m, d, IMP_CNSTR_EQUALITY, e, 6, J->n);
  if (blk < 0) return;
  for (int i = 0; i < 3; i++) r[i] = p2[i] - target[i];
  add_equality_rows(m, d, blk, 0, J, r, 0);
  /* orientation error as a world rotation vector: q2 = qerr * q1 * qrel,
     whose rate is w2 - w1 to first order */
  imp_quat_mul(q1t, d->xquat + 4 * b1, data + 3);
  imp_quat_conj(qc, q1t);
  imp_quat_mul(qerr, d->xquat + 4 * b2, qc);
  double axis[3];
  double angle = ball_angle(qerr, axis);
  for (int i = 0; i < 3; i++) r[i] = axis[i] * angle;
  add_equality_rows(m, d, blk, 3, J, r, 1);
}

/* q1 - q1ref = a0 + a1 x + ... + a4 x^4 with x = q2 - q2ref (or 0 without
   joint2): row dq1 - poly'(x) dq2. */
static void add_joint_equality(const imp_model* m, imp_data* d, int e, int* mark) {
  int j1 = m->eq_obj1id[e], j2 = m->eq_obj2id[e];
  const double* a = m->eq_data + 11 * e;
  int q1 = m->jnt_qposadr[j1];
  double x = 0, poly = a[0], dpoly = 0;
  if (j2 >= 0) {
    int q2 = m->jnt_qposadr[j2];
    x = d->qpos[q2] - m->qpos0[q2];
    poly = a[0] + x * (a[1] + x * (a[2] + x * (a[3] + x * a[4])));
    dpoly = a[1] + x * (2 * a[2] + x * (3 * a[3] + x * 4 * a[4]));
  }
  int dof[2] = {m->jnt_dofadr[j1], j2 >= 0 ? m->jnt_dofadr[j2] : -1};
  double val[2] = {1, -dpoly};
  int n = j2 >= 0 && dof[1] != dof[0] ? 2 : 1;
  if (n == 2 && dof[1] > dof[0]) { /* keep dofs descending */
    int t = dof[0];
    dof[0] = dof[1], dof[1] = t;
    double v = val[0];
    val[0] = val[1], val[1] = v;
  }
  int blk = add_block(m, d, IMP_CNSTR_EQUALITY, e, 1, closure_width(m, mark, n, dof, 0, NULL));
  if (blk < 0) return;
  int row = d->blk_efcadr[blk];
  set_row_entries(d, row, n, dof, val);
  double pos = d->qpos[q1] - m->qpos0[q1] - poly;
  d->efc_pos[row] = pos;
  d->efc_b[row] = imp_bilateral_target(pos, m->eq_solref + 2 * e, m->opt.timestep);
}

/* L1 - L1_0 = a0 + a1 x + ... + a4 x^4 with x = L2 - L2_0 (L_0 the lengths
   at qpos0; without tendon2 x = 0): row J1 - poly'(x) J2, merged with dofs
   descending. */
static void add_tendon_equality(const imp_model* m, imp_data* d, int e, int* mark) {
  int t1 = m->eq_obj1id[e], t2 = m->eq_obj2id[e];
  const double* a = m->eq_data + 11 * e;
  double x = 0, poly = a[0], dpoly = 0;
  if (t2 >= 0) {
    x = d->ten_length[t2] - m->tendon_length0[t2];
    poly = a[0] + x * (a[1] + x * (a[2] + x * (a[3] + x * a[4])));
    dpoly = a[1] + x * (2 * a[2] + x * (3 * a[3] + x * 4 * a[4]));
  }
  int n1 = d->ten_J_rownnz[t1], n2 = t2 >= 0 ? d->ten_J_rownnz[t2] : 0;
  const int *c1 = d->ten_J_colind + d->ten_J_rowadr[t1],
            *c2 = t2 >= 0 ? d->ten_J_colind + d->ten_J_rowadr[t2] : NULL;
  const double *v1 = d->ten_J + d->ten_J_rowadr[t1], *v2 = t2 >= 0 ? d->ten_J + d->ten_J_rowadr[t2] : NULL;
  if (n1 + n2 == 0) return;
  int blk = add_block(m, d, IMP_CNSTR_EQUALITY, e, 1, closure_width(m, mark, n1, c1, n2, c2));
  if (blk < 0) return;
  int row = d->blk_efcadr[blk], adr = d->efc_J_rowadr[row], n = 0, i = 0, k = 0;
  while (i < n1 || k < n2) { /* the compiler sized nJrow for the union */
    int di = i < n1 ? c1[i] : -1, dk = k < n2 ? c2[k] : -1, dof = di > dk ? di : dk;
    double v = 0;
    if (di == dof) v += v1[i++];
    if (dk == dof) v -= dpoly * v2[k++];
    d->efc_J_colind[adr + n] = dof;
    d->efc_J[adr + n++] = v;
  }
  d->efc_J_rownnz[row] = n;
  double pos = d->ten_length[t1] - m->tendon_length0[t1] - poly;
  d->efc_pos[row] = pos;
  d->efc_b[row] = imp_bilateral_target(pos, m->eq_solref + 2 * e, m->opt.timestep);
}

static void add_equalities(const imp_model* m, imp_data* d, rel_jac* J) {
  for (int e = 0; e < m->neq; e++) {
    if (!m->eq_active[e]) continue;
    switch (m->eq_type[e]) {
      case IMP_EQ_CONNECT: add_connect(m, d, e, J); break;
      case IMP_EQ_WELD: add_weld(m, d, e, J); break;
      case IMP_EQ_JOINT: add_joint_equality(m, d, e, J->mark); break;
      case IMP_EQ_TENDON: add_tendon_equality(m, d, e, J->mark); break;
      default: break;
    }
  }
}

/* Drop blocks whose every row is zero (e.g. an equality between two static
   bodies): nothing can act on them. Compacts rows and blocks in place. */
static void drop_empty_blocks(const imp_model* m, imp_data* d) {
  int nb = 0, nr = 0;
  for (int b = 0; b < d->nblk; b++) {
    int adr = d->blk_efcadr[b], dim = d->blk_dim[b], nnz = 0;
    for (int r = 0; r < dim; r++) nnz += d->efc_J_rownnz[adr + r];
    if (!nnz) {
      if (d->blk_type[b] == IMP_CNSTR_CONTACT) d->contact[d->blk_id[b]].efc_adr = -1;
      continue;
    }
    if (nb != b || nr != adr) {
      d->blk_efcadr[nb] = nr;
      d->blk_dim[nb] = dim;
      d->blk_type[nb] = d->blk_type[b];
      d->blk_id[nb] = d->blk_id[b];
      d->blk_mu[nb] = d->blk_mu[b];
      imp_copy(d->blk_scale + 6 * nb, d->blk_scale + 6 * b, 6);
      for (int r = 0; r < dim; r++) {
        int s = adr + r, t = nr + r;
        d->efc_type[t] = d->efc_type[s];
        d->efc_id[t] = d->efc_id[s];
        d->efc_blk[t] = nb;
        d->efc_J_rowadr[t] = d->efc_J_rowadr[s]; /* the entries stay where they are */
        d->efc_J_rownnz[t] = d->efc_J_rownnz[s];
        d->efc_pos[t] = d->efc_pos[s];
        d->efc_b[t] = d->efc_b[s];
      }
      if (d->blk_type[nb] == IMP_CNSTR_CONTACT) d->contact[d->blk_id[nb]].efc_adr = nr;
    }
    nb++;
    nr += dim;
  }
  d->nblk = nb;
  d->nefc = nr;
}

void imp_constraints(const imp_model* m, imp_data* d) {
  d->nefc = d->nblk = d->nefc_dropped = d->nefc_J = d->nefc_dropped_J = 0;
  for (int i = 0; i < d->ncon; i++) d->contact[i].efc_adr = -1;
  if (m->opt.disableflags & IMP_DSBL_CONSTRAINT) return;
  size_t mark = imp_stack_mark(d);
  rel_jac J = rel_jac_alloc(m, d);
  if (!(m->opt.disableflags & IMP_DSBL_EQUALITY)) add_equalities(m, d, &J);
  if (!(m->opt.disableflags & IMP_DSBL_FRICTIONLOSS)) {
    add_joint_friction(m, d, J.mark);
    add_tendon_friction(m, d, J.mark);
  }
  if (!(m->opt.disableflags & IMP_DSBL_LIMIT)) {
    add_limits(m, d, J.mark);
    add_tendon_limits(m, d, J.mark);
  }
  if (!(m->opt.disableflags & IMP_DSBL_CONTACT))
    for (int i = 0; i < d->ncon; i++) add_contact(m, d, i, &J);
  imp_stack_release(d, mark);
  drop_empty_blocks(m, d);
  if (m->opt.disableflags & IMP_DSBL_STABILIZE) imp_zero(d->efc_b, d->nefc);
  if (d->nefc_dropped) {
    if (!d->nwarning_efcfull && d->nefc_dropped_J)
      imp_warning("constraint rows need more than nJnnz = %d Jacobian entries at step %lld "
                  "(nislandmax x nv): %d rows dropped; raise <size nislandmax> or njmax",
                  m->nJnnz, d->nstep, d->nefc_dropped);
    else if (!d->nwarning_efcfull)
      imp_warning("more than njmax = %d constraint rows at step %lld: %d rows dropped; raise "
                  "<size njmax>", m->njmax, d->nstep, d->nefc_dropped);
    d->nwarning_efcfull++;
  }
}
