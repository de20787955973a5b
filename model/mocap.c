/* Mocap bodies (MJCF body mocap="true") of the spec into the model.
 *
 * MuJoCo docs, MJCF reference, body/mocap: a mocap body is a child of the
 * world without joints, posed at run time by d->mocap_pos and
 * d->mocap_quat instead of its pos and quat; the compiler refuses any other
 * (MuJoCo 2.2.2: "mocap body is not a fixed child of world"). Its index
 * among the mocap bodies, in body order, is body_mocapid. Keyframes give
 * the mocap poses in mpos (nmocap x 3) and mquat (nmocap x 4); a key
 * without them keeps each mocap body's pos and quat from the file (MuJoCo's
 * compiler, key defaults), and key quaternions are normalized as qpos's
 * are. */
#include <math.h>

#include "engine.h"
#include "loader.h"
#include "core/mathx.h"
#include "core/quat.h"

int ld_resolve_mocap(ld_ctx* c, const int* jntnum, int* mocapid) {
  int n = 0;
  for (int b = 0; b < c->bodies.n; b++) {
    const ld_body* bd = LD_AT(c->bodies, ld_body, b);
    mocapid[b] = -1;
    if (b == 0 || !bd->mocap) continue;
    const char* name = bd->name ? bd->name : "";
    if (bd->parent != 0)
      ld_error(c, bd->file, bd->line,
               "mocap body '%s' must be a child of the world body (mocap bodies are posed "
               "in the world frame)", name);
    if (jntnum[b] > 0)
      ld_error(c, bd->file, bd->line,
               "mocap body '%s' cannot have joints (it is posed by mocap_pos/mocap_quat)", name);
    mocapid[b] = n++;
  }
  for (int i = 0; i < c->keys.n; i++) {
    const ld_key* k = LD_AT(c->keys, ld_key, i);
    if (k->nmpos >= 0 && k->nmpos != 3 * n)
      ld_error(c, k->file, k->line, "key mpos: expected %d numbers (3 per mocap body), got %d",
               3 * n, k->nmpos);
    if (k->nmquat >= 0 && k->nmquat != 4 * n)
      ld_error(c, k->file, k->line, "key mquat: expected %d numbers (4 per mocap body), got %d",
               4 * n, k->nmquat);
    for (int j = 0; j < k->nmquat / 4; j++)
      if (sqrt(imp_dot(k->mquat + 4 * j, k->mquat + 4 * j, 4)) < IMP_MINVAL)
        ld_error(c, k->file, k->line, "key mquat: quaternion %d has zero length", j);
  }
  return n;
}

void ld_put_mocap_keys(ld_ctx* c, imp_model* m) {
  int n = m->nmocap;
  const int* mocapid = m->body_mocapid;
  for (int i = 0; i < m->nkey; i++) {
    const ld_key* k = LD_AT(c->keys, ld_key, i);
    double* mpos = m->key_mpos + 3 * (size_t)n * i;
    double* mquat = m->key_mquat + 4 * (size_t)n * i;
    for (int b = 0; b < m->nbody; b++) {
      int id = mocapid[b];
      if (id < 0) continue;
      imp_copy(mpos + 3 * id, k->nmpos >= 0 ? k->mpos + 3 * id : m->body_pos + 3 * b, 3);
      imp_copy(mquat + 4 * id, k->nmquat >= 0 ? k->mquat + 4 * id : m->body_quat + 4 * b, 4);
      imp_quat_normalize(mquat + 4 * id);
    }
  }
}
