/* The collision stage: which geom pairs may touch (broad phase and MJCF's
 * filters), the narrow-phase routine of each pair of types, and the
 * parameters and frame of each contact.
 *
 * Order of the work, and of d->contact:
 *  1. explicit pairs (contact/pair), in file order, with their own condim,
 *     friction, margin and gap; they bypass every filter;
 *  2. planes against every other geom, tested with the bounding sphere;
 *  3. all other geoms by sweep and prune: world boxes sorted by their lower
 *     end on the axis where the box centres spread most, then swept, so the
 *     work is O(n log n + k) for k overlapping boxes instead of n^2/2 pairs.
 * Dynamic pairs (2, 3) pass MJCF's filters: contype/conaffinity bitmasks,
 * geoms welded to the same body, a body and its parent (weld groups, unless
 * the parent is the world), contact/exclude, and pairs already listed
 * explicitly (MuJoCo 2.2.2 checks such a pair once, with the explicit
 * parameters). The contact's geom1 is the geom of lower type, so each
 * routine of the dispatch table sees its types in one order. */
#include <math.h>
#include <string.h>

#include "collision.h"
#include "mathx.h"

/* Narrow-phase routine per pair of geom types, upper triangle (type1 <= type2);
   NULL where no routine exists (hfield, plane-plane). */
static const imp_narrow_fn narrow_table[IMP_NGEOMTYPES][IMP_NGEOMTYPES] = {
    [IMP_GEOM_PLANE] = {[IMP_GEOM_SPHERE] = imp_collide_plane_sphere,
                        [IMP_GEOM_CAPSULE] = imp_collide_plane_capsule,
                        [IMP_GEOM_ELLIPSOID] = imp_collide_plane_convex,
                        [IMP_GEOM_CYLINDER] = imp_collide_plane_cylinder,
                        [IMP_GEOM_BOX] = imp_collide_plane_box,
                        [IMP_GEOM_MESH] = imp_collide_plane_convex},
    [IMP_GEOM_SPHERE] = {[IMP_GEOM_SPHERE] = imp_collide_sphere_sphere,
                         [IMP_GEOM_CAPSULE] = imp_collide_sphere_capsule,
                         [IMP_GEOM_ELLIPSOID] = imp_collide_convex,
                         [IMP_GEOM_CYLINDER] = imp_collide_convex,
                         [IMP_GEOM_BOX] = imp_collide_sphere_box,
                         [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_CAPSULE] = {[IMP_GEOM_CAPSULE] = imp_collide_capsule_capsule,
                          [IMP_GEOM_ELLIPSOID] = imp_collide_convex,
                          [IMP_GEOM_CYLINDER] = imp_collide_convex,
                          [IMP_GEOM_BOX] = imp_collide_capsule_box,
                          [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_ELLIPSOID] = {[IMP_GEOM_ELLIPSOID] = imp_collide_convex,
                            [IMP_GEOM_CYLINDER] = imp_collide_convex,
                            [IMP_GEOM_BOX] = imp_collide_convex,
                            [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_CYLINDER] = {[IMP_GEOM_CYLINDER] = imp_collide_convex,
                           [IMP_GEOM_BOX] = imp_collide_convex,
                           [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_BOX] = {[IMP_GEOM_BOX] = imp_collide_box_box, [IMP_GEOM_MESH] = imp_collide_convex},
    [IMP_GEOM_MESH] = {[IMP_GEOM_MESH] = imp_collide_convex},
};

/* ---- contact frame ---- */

void imp_contact_frame(double f[9]) {
  const double* n = f;
  /* t1 is n crossed with the world axis least aligned with n, so the cross
     product is never small: |t1| >= sqrt(2/3) before normalization */
  double a[3] = {0, 0, 0};
  int k = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0
          : fabs(n[1]) <= fabs(n[2])                           ? 1
                                                               : 2;
  a[k] = 1;
  double t1[3];
  imp_cross(t1, n, a);
  imp_scl(t1, t1, 1 / imp_norm3(t1), 3);
  imp_copy(f + 3, t1, 3);
  imp_cross(f + 6, n, t1); /* t2 = n x t1, hence t1 x t2 = n */
}

/* ---- narrow phase of one pair ---- */

int imp_collide_geoms(const imp_model* m, const imp_data* d, int g1, int g2, double margin,
                      imp_contact* con) {
  int flip = m->geom_type[g1] > m->geom_type[g2];
  int a = flip ? g2 : g1, b = flip ? g1 : g2;
  imp_narrow_fn fn = narrow_table[m->geom_type[a]][m->geom_type[b]];
  if (!fn) return 0;
  int n = fn(m, d, a, b, margin, con);
  for (int i = 0; i < n; i++) {
    if (flip) imp_scl(con[i].frame, con[i].frame, -1, 3);
    imp_contact_frame(con[i].frame);
  }
  return n;
}

/* The parameters of a dynamic contact from its two geoms (MJCF): the geom
   of higher priority decides; at equal priority condim and each friction
   coefficient are the larger of the two. Margin and gap: the larger. */
static void mix_geom_params(const imp_model* m, int g1, int g2, imp_contact* c) {
  const double *f1 = m->geom_friction + 3 * g1, *f2 = m->geom_friction + 3 * g2;
  int p1 = m->geom_priority[g1], p2 = m->geom_priority[g2];
  double f[3];
  if (p1 != p2) {
    int g = p1 > p2 ? g1 : g2;
    imp_copy(f, m->geom_friction + 3 * g, 3);
    c->dim = m->geom_condim[g];
  } else {
    for (int i = 0; i < 3; i++) f[i] = fmax(f1[i], f2[i]);
    c->dim = m->geom_condim[g1] > m->geom_condim[g2] ? m->geom_condim[g1] : m->geom_condim[g2];
  }
  /* the triple (sliding, torsional, rolling) acts on 5 directions */
  double f5[5] = {f[0], f[0], f[1], f[2], f[2]};
  imp_copy(c->friction, f5, 5);
  c->margin = fmax(m->geom_margin[g1], m->geom_margin[g2]);
  c->gap = fmax(m->geom_gap[g1], m->geom_gap[g2]);
  c->pair = -1;
}

static void pair_params(const imp_model* m, int p, imp_contact* c) {
  imp_copy(c->friction, m->pair_friction + 5 * p, 5);
  c->dim = m->pair_dim[p];
  c->margin = m->pair_margin[p];
  c->gap = m->pair_gap[p];
  c->pair = p;
}

/* bounding spheres apart by more than the margin: no contact possible */
static int spheres_apart(const imp_model* m, const imp_data* d, int g1, int g2, double margin) {
  double r1 = m->geom_rbound[g1], r2 = m->geom_rbound[g2];
  if (r1 <= 0 || r2 <= 0) return 0; /* a plane: no bound */
  const double *x1 = d->geom_xpos + 3 * g1, *x2 = d->geom_xpos + 3 * g2;
  double dx[3] = {x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]};
  double r = r1 + r2 + margin;
  return imp_dot(dx, dx, 3) > r * r;
}

/* Run the narrow phase of (g1, g2) and append the contacts it finds with
   parameters from explicit pair p (p >= 0) or from the geoms. */
static void collide_pair(const imp_model* m, imp_data* d, int g1, int g2, int p) {
  imp_contact tmp[IMP_MAXCONPAIR];
  imp_contact proto;
  if (p >= 0)
    pair_params(m, p, &proto);
  else
    mix_geom_params(m, g1, g2, &proto);
  if (spheres_apart(m, d, g1, g2, proto.margin)) return;
  d->npair_narrow++;
  /* the lower type first: the dispatch table's order, and MuJoCo's */
  if (m->geom_type[g1] > m->geom_type[g2]) {
    int t = g1;
    g1 = g2;
    g2 = t;
  }
  int n = imp_collide_geoms(m, d, g1, g2, proto.margin, tmp);
  for (int i = 0; i < n; i++) {
    if (d->ncon >= m->nconmax) {
      d->ncon_dropped += n - i;
      return;
    }
    imp_contact* c = d->contact + d->ncon++;
    *c = proto;
    c->dist = tmp[i].dist;
    imp_copy(c->pos, tmp[i].pos, 3);
    imp_copy(c->frame, tmp[i].frame, 9);
    c->geom1 = g1;
    c->geom2 = g2;
    c->efc_adr = -1;
  }
}

/* ---- filters ---- */

static int bitmasks_match(const imp_model* m, int g1, int g2) {
  return (m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
         (m->geom_contype[g2] & m->geom_conaffinity[g1]);
}

/* Bodies welded together never collide; nor does a weld group with the
   group of its parent body, except the world (so everything can land on
   the floor). */
static int bodies_filtered(const imp_model* m, int b1, int b2) {
  int w1 = m->body_weldid[b1], w2 = m->body_weldid[b2];
  if (w1 == w2) return 1;
  if (w1 == 0 || w2 == 0) return 0;
  int p1 = m->body_weldid[m->body_parentid[w1]], p2 = m->body_weldid[m->body_parentid[w2]];
  return w1 == p2 || w2 == p1;
}

/* (b1, b2) in the sorted exclude list */
static int bodies_excluded(const imp_model* m, int b1, int b2) {
  if (b1 > b2) {
    int t = b1;
    b1 = b2;
    b2 = t;
  }
  int lo = 0, hi = m->nexclude - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c1 = m->exclude_body1[mid], c2 = m->exclude_body2[mid];
    if (c1 == b1 && c2 == b2) return 1;
    if (c1 < b1 || (c1 == b1 && c2 < b2))
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0;
}

static int listed_as_pair(const imp_model* m, int g1, int g2) {
  for (int p = 0; p < m->npair; p++)
    if ((m->pair_geom1[p] == g1 && m->pair_geom2[p] == g2) ||
        (m->pair_geom1[p] == g2 && m->pair_geom2[p] == g1))
      return 1;
  return 0;
}

/* may geoms g1, g2 form a dynamic contact pair? */
static int dynamic_pair_allowed(const imp_model* m, int g1, int g2) {
  if (!bitmasks_match(m, g1, g2)) return 0;
  int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
  if (bodies_filtered(m, b1, b2)) return 0;
  if (m->nexclude && bodies_excluded(m, b1, b2)) return 0;
  if (m->npair && listed_as_pair(m, g1, g2)) return 0;
  return 1;
}

static void try_dynamic_pair(const imp_model* m, imp_data* d, int g1, int g2) {
  if (!dynamic_pair_allowed(m, g1, g2)) return;
  d->npair_broad++;
  collide_pair(m, d, g1, g2, -1);
}

/* ---- broad phase ---- */

static int can_collide(const imp_model* m, int g) {
  return (m->geom_contype[g] || m->geom_conaffinity[g]) && m->geom_type[g] != IMP_GEOM_HFIELD;
}

/* World box of geom g, grown by its margin: lo[3], hi[3]. The box in the
   geom frame (centre c, half sizes h) maps to a world box of centre
   x + R c and half sizes |R| h (Arvo 1990). */
static void world_box(const imp_model* m, const imp_data* d, int g, double lo[3], double hi[3]) {
  const double* R = d->geom_xmat + 9 * g;
  const double* x = d->geom_xpos + 3 * g;
  const double *c = m->geom_aabb + 6 * g, *h = m->geom_aabb + 6 * g + 3;
  for (int i = 0; i < 3; i++) {
    double ci = x[i], hi_ = m->geom_margin[g];
    for (int j = 0; j < 3; j++) {
      ci += R[3 * i + j] * c[j];
      hi_ += fabs(R[3 * i + j]) * h[j];
    }
    lo[i] = ci - hi_;
    hi[i] = ci + hi_;
  }
}

/* Stable bottom-up merge sort of idx[0..n) by key[idx], with scratch tmp;
   O(n log n) always, and no allocation (qsort may allocate). */
static void sort_by_key(int* idx, int* tmp, const double* key, int n) {
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = key[idx[j]] < key[idx[i]] ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, sizeof(int) * (size_t)n);
  }
}

/* axis along which the box centres spread most: fewest overlaps on it */
static int sweep_axis(const double* lo, const double* hi, const int* idx, int n) {
  double mean[3] = {0, 0, 0}, var[3] = {0, 0, 0};
  for (int k = 0; k < n; k++)
    for (int i = 0; i < 3; i++) mean[i] += 0.5 * (lo[3 * idx[k] + i] + hi[3 * idx[k] + i]);
  for (int i = 0; i < 3; i++) mean[i] /= n > 0 ? n : 1;
  for (int k = 0; k < n; k++)
    for (int i = 0; i < 3; i++) {
      double c = 0.5 * (lo[3 * idx[k] + i] + hi[3 * idx[k] + i]) - mean[i];
      var[i] += c * c;
    }
  return var[0] >= var[1] && var[0] >= var[2] ? 0 : var[1] >= var[2] ? 1 : 2;
}

/* Sweep and prune over the non-plane geoms. */
static void sweep_and_prune(const imp_model* m, imp_data* d) {
  int ng = m->ngeom;
  size_t mark = imp_stack_mark(d);
  double* lo = imp_stack_alloc(d, 3 * ng);
  double* hi = imp_stack_alloc(d, 3 * ng);
  double* key = imp_stack_alloc(d, ng);
  int* idx = imp_stack_alloc_int(d, ng);
  int* tmp = imp_stack_alloc_int(d, ng);
  int n = 0;
  for (int g = 0; g < ng; g++) {
    if (!can_collide(m, g) || m->geom_type[g] == IMP_GEOM_PLANE) continue;
    world_box(m, d, g, lo + 3 * g, hi + 3 * g);
    idx[n++] = g;
  }
  int ax = sweep_axis(lo, hi, idx, n);
  for (int k = 0; k < n; k++) key[idx[k]] = lo[3 * idx[k] + ax];
  sort_by_key(idx, tmp, key, n);
  int a1 = (ax + 1) % 3, a2 = (ax + 2) % 3;
  for (int k = 0; k < n; k++) {
    int g1 = idx[k];
    double end = hi[3 * g1 + ax];
    for (int j = k + 1; j < n && key[idx[j]] <= end; j++) {
      int g2 = idx[j];
      if (lo[3 * g2 + a1] > hi[3 * g1 + a1] || lo[3 * g1 + a1] > hi[3 * g2 + a1]) continue;
      if (lo[3 * g2 + a2] > hi[3 * g1 + a2] || lo[3 * g1 + a2] > hi[3 * g2 + a2]) continue;
      /* file order inside a pair, as MuJoCo lists them */
      if (g1 < g2)
        try_dynamic_pair(m, d, g1, g2);
      else
        try_dynamic_pair(m, d, g2, g1);
    }
  }
  imp_stack_release(d, mark);
}

/* Planes are unbounded: each one is tested against every other geom's
   bounding sphere (a plane is never the cause of n^2 work, only n per plane). */
static void planes_against_all(const imp_model* m, imp_data* d) {
  for (int p = 0; p < m->ngeom; p++) {
    if (m->geom_type[p] != IMP_GEOM_PLANE || !can_collide(m, p)) continue;
    const double* R = d->geom_xmat + 9 * p;
    double n[3] = {R[2], R[5], R[8]}; /* the plane's local z */
    for (int g = 0; g < m->ngeom; g++) {
      if (g == p || m->geom_type[g] == IMP_GEOM_PLANE || !can_collide(m, g)) continue;
      double dx[3];
      for (int i = 0; i < 3; i++) dx[i] = d->geom_xpos[3 * g + i] - d->geom_xpos[3 * p + i];
      double margin = fmax(m->geom_margin[p], m->geom_margin[g]);
      if (imp_dot(n, dx, 3) - m->geom_rbound[g] > margin) continue;
      if (p < g)
        try_dynamic_pair(m, d, p, g);
      else
        try_dynamic_pair(m, d, g, p);
    }
  }
}

void imp_collision(const imp_model* m, imp_data* d) {
  d->ncon = 0;
  d->ncon_dropped = 0;
  d->npair_broad = d->npair_narrow = 0;
  if (m->opt.disableflags & (IMP_DSBL_CONTACT | IMP_DSBL_CONSTRAINT)) return;
  double t0 = imp_timer_now();
  for (int p = 0; p < m->npair; p++) {
    d->npair_broad++;
    collide_pair(m, d, m->pair_geom1[p], m->pair_geom2[p], p);
  }
  planes_against_all(m, d);
  sweep_and_prune(m, d);
  if (d->ncon_dropped > 0) {
    if (d->nwarning_contactfull == 0)
      imp_warning("contact buffer full at step %lld (nconmax %d): %d contacts dropped; raise "
                  "<size nconmax>",
                  d->nstep, m->nconmax, d->ncon_dropped);
    d->nwarning_contactfull++;
  }
  d->timer[IMP_TIMER_COLLISION] += imp_timer_now() - t0;
}
