/* Warm starts of the contact stage (contact.h, contact_warm.h): the last
 * step's impulses saved block by block, and each new block's start found
 * among them by its key (type; joint, tendon or equality id and a limit's
 * side; a contact's two geoms and nearest point), friction carried from
 * the old contact frame to the new one. */
#include <math.h>

#include "constraint/contact_warm.h"
#include "core/mathx.h"
#include "core/sort.h"

/* Side of a limit block: 0 lower (row +1), 1 upper or a ball's cone; a
   tendon's is in its id (types.h). */
static int limit_side(const imp_model* m, const imp_data* d, int blk) {
  int row = d->blk_efcadr[blk], j = d->blk_id[blk];
  if (j >= m->njnt) return (j - m->njnt) & 1;
  if (m->jnt_type[j] == IMP_JNT_BALL) return 1;
  return d->efc_J[d->efc_J_rowadr[row]] > 0 ? 0 : 1;
}

/* The key a block is matched by: (type, id, id2). */
static void block_key(const imp_model* m, const imp_data* d, int blk, int* id, int* id2) {
  int t = d->blk_type[blk];
  if (t == IMP_CNSTR_CONTACT) {
    const imp_contact* c = d->contact + d->blk_id[blk];
    *id = c->geom1;
    *id2 = c->geom2;
  } else {
    *id = d->blk_id[blk];
    *id2 = t == IMP_CNSTR_LIMIT ? limit_side(m, d, blk) : 0;
  }
}

/* Two contacts of the same geoms are the same contact across a step when
   their points are within this fraction of the geoms' size. */
#define IMP_WARM_MATCH 0.1

/* saved block w against the key (t, id, id2): -1 before it, 0 equal, 1
   after, by type, then id, then id2 */
static int warm_key_cmp(const imp_data* d, int w, int t, int id, int id2) {
  if (d->warm_type[w] != t) return d->warm_type[w] < t ? -1 : 1;
  if (d->warm_id[w] != id) return d->warm_id[w] < id ? -1 : 1;
  if (d->warm_id2[w] != id2) return d->warm_id2[w] < id2 ? -1 : 1;
  return 0;
}

/* saved block *a before saved block *b in warm_order (ctx: the data): by
   key, then index (a total order, so the sort's result is unique) */
static int warm_before(const void* a, const void* b, void* ctx) {
  const imp_data* d = ctx;
  int x = *(const int*)a, y = *(const int*)b;
  int c = warm_key_cmp(d, x, d->warm_type[y], d->warm_id[y], d->warm_id2[y]);
  return c != 0 ? c < 0 : x < y;
}

/* warm_order: the saved blocks sorted (sort.h: no allocation in the step;
   n log n, where matching each block by a scan of all was n^2: 3% of
   humanoid100's instructions) */
static void sort_warm(imp_data* d) {
  int n = d->warm_nblk, *o = d->warm_order;
  for (int k = 0; k < n; k++) o[k] = k;
  imp_heapsort(o, n, sizeof *o, warm_before, d);
}

/* the first place in warm_order whose block has key (t, id, id2) or a
   later one */
static int warm_lower_bound(const imp_data* d, int t, int id, int id2) {
  int lo = 0, hi = d->warm_nblk;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (warm_key_cmp(d, d->warm_order[mid], t, id, id2) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* the step's impulses, keyed, then warm_order sorted (contact_warm.h) */
void imp_warm_save(const imp_model* m, imp_data* d) {
  d->warm_nblk = d->nblk;
  for (int k = 0; k < d->nblk; k++) {
    int row = d->blk_efcadr[k];
    d->warm_type[k] = d->blk_type[k];
    d->warm_retarget[k] = (d->island_flags[d->blk_island[k]] & IMP_ISLAND_RETARGETED) != 0;
    block_key(m, d, k, d->warm_id + k, d->warm_id2 + k);
    imp_zero(d->warm_impulse + 6 * k, 6);
    imp_copy(d->warm_impulse + 6 * k, d->efc_impulse + row, d->blk_dim[k]);
    if (d->blk_type[k] == IMP_CNSTR_CONTACT) {
      const imp_contact* c = d->contact + d->blk_id[k];
      imp_copy(d->warm_pos + 3 * k, c->pos, 3);
      imp_copy(d->warm_frame + 9 * k, c->frame, 9);
    }
  }
  sort_warm(d);
}

/* Friction pairs (t1, t2 rows 1-2 and rolling rows 4-5) carried from the
   old frame to the new one through their world vector. */
static void carry_friction(double* f, int dim, const double* old_frame, const double* w,
                           const double* frame) {
  for (int first = 1; first + 1 < dim; first += 3) { /* rows (1, 2), then (4, 5) */
    double v[3];
    for (int a = 0; a < 3; a++)
      v[a] = w[first] * old_frame[3 + a] + w[first + 1] * old_frame[6 + a];
    f[first] = imp_dot(v, frame + 3, 3);
    f[first + 1] = imp_dot(v, frame + 6, 3);
  }
}

/* block k's start from the saved block of its key (contact_warm.h) */
int imp_warm_match(const imp_model* m, imp_data* d, int k) {
  int id, id2, t = d->blk_type[k], dim = d->blk_dim[k], best = -1;
  block_key(m, d, k, &id, &id2);
  double best_dist = 0;
  const imp_contact* c = t == IMP_CNSTR_CONTACT ? d->contact + d->blk_id[k] : NULL;
  /* the saved blocks of this key, in index order: the first, or for a
     contact the nearest (the first of equals) */
  for (int q = warm_lower_bound(d, t, id, id2); q < d->warm_nblk; q++) {
    int w = d->warm_order[q];
    if (warm_key_cmp(d, w, t, id, id2) != 0) break;
    if (!c) {
      best = w;
      break;
    }
    double dx[3];
    for (int a = 0; a < 3; a++) dx[a] = c->pos[a] - d->warm_pos[3 * w + a];
    double dist = imp_norm3(dx);
    if (best < 0 || dist < best_dist) best = w, best_dist = dist;
  }
  if (best < 0) return 0;
  double* f = d->efc_impulse + d->blk_efcadr[k];
  const double* w = d->warm_impulse + 6 * best;
  if (c) {
    double size = fmax(m->geom_rbound[c->geom1], m->geom_rbound[c->geom2]);
    if (best_dist > IMP_WARM_MATCH * size) return 0;
    f[0] = w[0];
    if (dim > 1) carry_friction(f, dim, d->warm_frame + 9 * best, w, c->frame);
    if (dim > 3) f[3] = w[3];
  } else {
    imp_copy(f, w, dim);
  }
  return 1 | d->warm_retarget[best] << 1;
}
