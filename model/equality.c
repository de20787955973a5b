/* Equality constraints of the spec into the model: their objects (bodies,
 * sites' bodies or joints, checked as MuJoCo 2.2.2 checks them) and their
 * eq_data (layout in types.h), from the body poses at qpos0 or the sites'
 * poses. */
#include <string.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

/* the spec site of an equality's site1 or site2 */
static const ld_geom* equality_site(ld_ctx* c, const ld_equality* e, const char* name) {
  return LD_AT(c->sites, ld_geom, ld_named_id(c, &c->sites, "site", name, e->file, e->line));
}

/* equality references: body ids (body2 omitted: the world), joint ids
   (joint2 omitted: -1) or tendon ids (tendon2 omitted: -1), checked as MuJoCo 2.2.2 does: two distinct
   objects, and joint equalities only between hinge or slide joints */
void ld_resolve_equalities(ld_ctx* c, int* obj1, int* obj2) {
  const ld_joint* J = (const ld_joint*)c->joints.data;
  for (int i = 0; i < c->equalities.n; i++) {
    const ld_equality* e = LD_AT(c->equalities, ld_equality, i);
    if (e->type == IMP_EQ_JOINT) {
      obj1[i] = ld_named_id(c, &c->joints, "joint", e->obj1, e->file, e->line);
      obj2[i] = e->obj2 ? ld_named_id(c, &c->joints, "joint", e->obj2, e->file, e->line) : -1;
      for (int k = 0; k < 2; k++) {
        int j = k ? obj2[i] : obj1[i];
        if (j >= 0 && J[j].type != IMP_JNT_HINGE && J[j].type != IMP_JNT_SLIDE)
          ld_error(c, e->file, e->line, "joint equality: joint '%s' is not a hinge or slide",
                   J[j].name);
      }
    } else if (e->type == IMP_EQ_TENDON) {
      obj1[i] = ld_named_id(c, &c->tendons, "tendon", e->obj1, e->file, e->line);
      obj2[i] = e->obj2 ? ld_named_id(c, &c->tendons, "tendon", e->obj2, e->file, e->line) : -1;
    } else if (e->site1) { /* the sites' bodies */
      obj1[i] = equality_site(c, e, e->site1)->body;
      obj2[i] = equality_site(c, e, e->site2)->body;
    } else {
      obj1[i] = ld_named_id(c, &c->bodies, "body", e->obj1, e->file, e->line);
      obj2[i] = e->obj2 ? ld_named_id(c, &c->bodies, "body", e->obj2, e->file, e->line) : 0;
    }
    if (obj1[i] == obj2[i])
      ld_error(c, e->file, e->line, "%s equality between %s'%s' and itself",
               e->type == IMP_EQ_CONNECT ? "connect" : e->type == IMP_EQ_WELD ? "weld"
               : e->type == IMP_EQ_JOINT ? "joint" : "tendon",
               e->site1 ? "the body of site " : "", e->site1 ? e->site1 : e->obj1);
  }
}

/* eq_data of a connect or weld by sites, from the sites' poses in their
   bodies (p_i, q_i), whatever the configuration (the sites "snap
   together"). connect: the two site positions, the anchors of the body
   form. weld: the frames coincide when the points p_1 of body1 and p_2 of
   body2 do and q_b2 = q_b1 q_1 q_2^-1 (eq_data's layout, types.h: the
   position rows act at the sites, as MuJoCo's do). */
static void site_equality_data(const ld_equality* e, const ld_geom* s1, const ld_geom* s2,
                               double* data) {
  if (e->type == IMP_EQ_CONNECT) {
    imp_copy(data, s1->pos, 3);
    imp_copy(data + 3, s2->pos, 3);
    return;
  }
  double q1[4], q2c[4];
  imp_copy(q1, s1->quat, 4);
  imp_quat_normalize(q1);
  imp_copy(q2c, s2->quat, 4);
  imp_quat_normalize(q2c);
  imp_quat_conj(q2c, q2c);
  imp_copy(data, s1->pos, 3);
  imp_quat_mul(data + 3, q1, q2c);
  imp_quat_normalize(data + 3);
  imp_copy(data + 7, s2->pos, 3);
}

/* eq_data of one equality (layout in types.h). connect: the anchor in
   body1's frame, and the world point it marks at qpos0 in body2's frame,
   p2 = R2' (x1 + R1 a - x2). weld: body2's pose in body1's frame,
   p = R1' (x2 - x1), q = q1^-1 q2 (so q2 = q1 q), from qpos0 unless relpose
   has a non-zero quaternion. joint: polycoef. */
static void equality_data(const ld_equality* e, int b1, int b2, const double* xpos,
                          const double* xquat, double* data) {
  const double *x1 = xpos + 3 * b1, *x2 = xpos + 3 * b2;
  const double *q1 = xquat + 4 * b1, *q2 = xquat + 4 * b2;
  double w[3], d[3];
  if (e->type == IMP_EQ_CONNECT) {
    imp_copy(data, e->anchor, 3);
    imp_quat_rotate(w, q1, e->anchor);
    for (int i = 0; i < 3; i++) d[i] = x1[i] + w[i] - x2[i];
    imp_quat_rotate_inv(data + 3, q2, d);
  } else if (e->type == IMP_EQ_WELD) {
    const double* rq = e->relpose + 3;
    if (rq[0] != 0 || rq[1] != 0 || rq[2] != 0 || rq[3] != 0) {
      imp_copy(data, e->relpose, 7);
      imp_quat_normalize(data + 3);
      return;
    }
    double q1inv[4];
    for (int i = 0; i < 3; i++) d[i] = x2[i] - x1[i];
    imp_quat_rotate_inv(data, q1, d);
    imp_quat_conj(q1inv, q1);
    imp_quat_mul(data + 3, q1inv, q2);
    imp_quat_normalize(data + 3);
  } else {
    imp_copy(data, e->polycoef, 5);
  }
}

void ld_put_equalities(ld_ctx* c, imp_model* m, const int* obj1, const int* obj2,
                       const double* xpos, const double* xquat) {
  for (int i = 0; i < m->neq; i++) {
    const ld_equality* e = LD_AT(c->equalities, ld_equality, i);
    m->eq_type[i] = e->type;
    m->eq_obj1id[i] = obj1[i];
    m->eq_obj2id[i] = obj2[i];
    m->eq_active[i] = e->active;
    imp_copy(m->eq_solref + 2 * i, e->solref, 2);
    /* joint and tendon ids do not index body poses */
    int isbody = e->type == IMP_EQ_CONNECT || e->type == IMP_EQ_WELD;
    if (e->site1)
      site_equality_data(e, equality_site(c, e, e->site1), equality_site(c, e, e->site2),
                         m->eq_data + LD_NEQDATA * i);
    else
      equality_data(e, isbody ? obj1[i] : 0, isbody ? obj2[i] : 0, xpos, xquat,
                    m->eq_data + LD_NEQDATA * i);
  }
}
