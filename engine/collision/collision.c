/* The collision stage: which geom pairs may touch (broad phase and MJCF's
 * filters), the narrow-phase routine of each pair of types, and the
 * parameters and frame of each contact.
 *
 * Order of the work, and of d->contact:
 *  1. explicit pairs (contact/pair), in file order, with their own condim,
 *     friction, margin and gap; they bypass every filter;
 *  2. planes against every other geom, tested with the bounding sphere;
 *  3. all other geoms through a bounding-volume tree of their world boxes,
 *     rebuilt each step: O(n log n + k) for k overlapping boxes instead of
 *     n^2/2 pairs.
 * Dynamic pairs (2, 3) pass MJCF's filters: contype/conaffinity bitmasks,
 * geoms welded to the same body, a body and its parent (weld groups, unless
 * the parent is the world), contact/exclude, and pairs already listed
 * explicitly (MuJoCo 2.2.2 checks such a pair once, with the explicit
 * parameters). The contact's geom1 is the geom of lower type, so each
 * routine of the dispatch table sees its types in one order. */
#include <math.h>
#include <string.h>

#include "collision/collision.h"
#include "core/mathx.h"
#include "core/sort.h"

/* Narrow-phase routine per pair of geom types, upper triangle (type1 <= type2);
   NULL where no routine exists (plane-plane, plane-hfield and hfield-hfield,
   as in MuJoCo). */
static const imp_narrow_fn narrow_table[IMP_NGEOMTYPES][IMP_NGEOMTYPES] = {
    [IMP_GEOM_PLANE] = {[IMP_GEOM_SPHERE] = imp_collide_plane_sphere,
                        [IMP_GEOM_CAPSULE] = imp_collide_plane_capsule,
                        [IMP_GEOM_ELLIPSOID] = imp_collide_plane_convex,
                        [IMP_GEOM_CYLINDER] = imp_collide_plane_cylinder,
                        [IMP_GEOM_BOX] = imp_collide_plane_box,
                        [IMP_GEOM_MESH] = imp_collide_plane_convex},
    [IMP_GEOM_HFIELD] = {[IMP_GEOM_SPHERE] = imp_collide_hfield,
                         [IMP_GEOM_CAPSULE] = imp_collide_hfield,
                         [IMP_GEOM_ELLIPSOID] = imp_collide_hfield,
                         [IMP_GEOM_CYLINDER] = imp_collide_hfield,
                         [IMP_GEOM_BOX] = imp_collide_hfield,
                         [IMP_GEOM_MESH] = imp_collide_hfield},
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
  for (int i = 0; i < IMP_MAXCONPAIR; i++) tmp[i].surface = 0;
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
    c->surface = tmp[i].surface;
    c->efc_adr = -1;
  }
}

/* ---- filters ---- */

static int bitmasks_match(const imp_model* m, int g1, int g2) {
  return (m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
         (m->geom_contype[g2] & m->geom_conaffinity[g1]);
}

/* Bodies welded together never collide; nor two weld groups without dofs
   (the world and mocap bodies: no force could act); nor a weld group with
   the group of its parent body, except the world (so everything can land
   on the floor). MuJoCo's filterBodyPair. */
static int bodies_filtered(const imp_model* m, int b1, int b2) {
  int w1 = m->body_weldid[b1], w2 = m->body_weldid[b2];
  if (w1 == w2) return 1;
  if (m->body_dofnum[w1] == 0 && m->body_dofnum[w2] == 0) return 1;
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
  return m->geom_contype[g] || m->geom_conaffinity[g];
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

/* ---- bounding-volume tree over the non-plane geoms ----
 * Built top-down every step by median splits of the box centres along the
 * longest axis of their spread, so the tree is balanced (depth about
 * log2(n / IMP_BVH_LEAF)) and building costs O(n log n); each geom then
 * queries the tree for the boxes it overlaps in O(log n + k). A single-axis
 * sweep and prune degrades to O(n^(5/3)) in a dense 3D cloud (every box
 * overlaps n^(2/3) others in one projection); the tree does not. */

#define IMP_BVH_LEAF 4
#define IMP_BVH_MAXDEPTH 64

typedef struct bvh {
  int nnode;
  double* lo;    /* nnode x 3 */
  double* hi;    /* nnode x 3 */
  int* child;    /* nnode x 2: children, -1 for a leaf */
  int* start;    /* nnode: first entry of idx under the node */
  int* end;      /* nnode: one past the last entry of idx under the node */
  int* maxid;    /* nnode: the largest geom id under the node */
  int* idx;      /* geoms, leaves' entries contiguous */
} bvh;

/* Reorder idx[lo..hi) so that idx[k] has the k-th smallest key and no
   smaller key lies after it (Hoare's selection, expected linear time). */
static void select_kth(int* idx, const double* key, int lo, int hi, int k) {
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    double pivot = key[idx[mid]];
    int i = lo, j = hi - 1;
    while (i <= j) {
      while (key[idx[i]] < pivot) i++;
      while (key[idx[j]] > pivot) j--;
      if (i <= j) {
        int t = idx[i];
        idx[i++] = idx[j];
        idx[j--] = t;
      }
    }
    if (k <= j)
      hi = j + 1;
    else if (k >= i)
      lo = i;
    else
      return;
  }
}

static void bvh_node_box(bvh* t, int node, const double* lo, const double* hi, int s, int e) {
  double* nl = t->lo + 3 * node;
  double* nh = t->hi + 3 * node;
  for (int i = 0; i < 3; i++) {
    nl[i] = INFINITY;
    nh[i] = -INFINITY;
  }
  int maxid = -1;
  for (int k = s; k < e; k++) {
    int g = t->idx[k];
    if (g > maxid) maxid = g;
    for (int i = 0; i < 3; i++) {
      nl[i] = fmin(nl[i], lo[3 * g + i]);
      nh[i] = fmax(nh[i], hi[3 * g + i]);
    }
  }
  t->maxid[node] = maxid;
}

/* axis of the largest spread of the box centres of idx[s..e) */
static int split_axis(const bvh* t, const double* lo, const double* hi, int s, int e) {
  double cl[3] = {INFINITY, INFINITY, INFINITY}, ch[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int k = s; k < e; k++) {
    int g = t->idx[k];
    for (int i = 0; i < 3; i++) {
      double c = lo[3 * g + i] + hi[3 * g + i];
      cl[i] = fmin(cl[i], c);
      ch[i] = fmax(ch[i], c);
    }
  }
  double w0 = ch[0] - cl[0], w1 = ch[1] - cl[1], w2 = ch[2] - cl[2];
  return w0 >= w1 && w0 >= w2 ? 0 : w1 >= w2 ? 1 : 2;
}

static void bvh_build(bvh* t, const double* lo, const double* hi, double* key, int n) {
  int stack_node[IMP_BVH_MAXDEPTH], stack_s[IMP_BVH_MAXDEPTH], stack_e[IMP_BVH_MAXDEPTH];
  int sp = 0;
  t->nnode = 1;
  stack_node[sp] = 0;
  stack_s[sp] = 0;
  stack_e[sp++] = n;
  while (sp > 0) {
    sp--;
    int node = stack_node[sp], s = stack_s[sp], e = stack_e[sp];
    t->start[node] = s;
    t->end[node] = e;
    if (e - s <= IMP_BVH_LEAF) {
      t->child[2 * node] = t->child[2 * node + 1] = -1;
      continue;
    }
    int ax = split_axis(t, lo, hi, s, e);
    for (int k = s; k < e; k++) key[t->idx[k]] = lo[3 * t->idx[k] + ax] + hi[3 * t->idx[k] + ax];
    int mid = s + (e - s) / 2;
    select_kth(t->idx, key, s, e, mid);
    int left = t->nnode++, right = t->nnode++;
    t->child[2 * node] = left;
    t->child[2 * node + 1] = right;
    /* halving keeps the depth below log2(n) + 1 < IMP_BVH_MAXDEPTH */
    stack_node[sp] = left;
    stack_s[sp] = s;
    stack_e[sp++] = mid;
    stack_node[sp] = right;
    stack_s[sp] = mid;
    stack_e[sp++] = e;
  }
  /* boxes bottom up (children come after their parent): a leaf's from its
     geoms, a node's the union of its children's (min and max are exact, so
     the same box as from all its geoms), O(n) where top down was O(n log n) */
  for (int node = t->nnode - 1; node >= 0; node--) {
    int c0 = t->child[2 * node], c1 = t->child[2 * node + 1];
    if (c0 < 0) {
      bvh_node_box(t, node, lo, hi, t->start[node], t->end[node]);
      continue;
    }
    for (int i = 0; i < 3; i++) {
      t->lo[3 * node + i] = fmin(t->lo[3 * c0 + i], t->lo[3 * c1 + i]);
      t->hi[3 * node + i] = fmax(t->hi[3 * c0 + i], t->hi[3 * c1 + i]);
    }
    t->maxid[node] = t->maxid[c0] > t->maxid[c1] ? t->maxid[c0] : t->maxid[c1];
  }
}

static int boxes_overlap(const double* l1, const double* h1, const double* l2, const double* h2) {
  return l1[0] <= h2[0] && l2[0] <= h1[0] && l1[1] <= h2[1] && l2[1] <= h1[1] && l1[2] <= h2[2] &&
         l2[2] <= h1[2];
}

/* ---- the tree's pairs, in a canonical order ----
 * The pairs whose boxes overlap and that pass the filters go to the narrow
 * phase in ascending (g1, g2), g1 < g2: the order of the contacts, and so
 * the step's bits, depend on which pairs touch, never on the tree's shape
 * or the order a traversal meets them. The tree is traversed against
 * itself (each pair of nodes whose boxes overlap is opened once, where a
 * query per geom walked the shared part of the tree again for every geom:
 * 22_humanoids, 419 geoms in a pile, tested ~20 nodes a geom) into a list
 * of IMP_BVH_PAIRS a geom on average, then sorted (sort.h: the pairs are
 * distinct, so the order is unique). When the list is full
 * (an extreme pile), each geom queries the tree instead and its partners
 * are sorted: the same pairs in the same order, in bounded memory. */

#define IMP_BVH_PAIRS 8

typedef struct pair_list {
  int* g; /* cap x 2: (g1, g2), g1 < g2 */
  int n, cap;
} pair_list;

/* pair a before pair b (int[2] each): by g1, then g2 */
static int pair_before(const void* a, const void* b, void* ctx) {
  const int *p = a, *q = b;
  (void)ctx;
  return p[0] != q[0] ? p[0] < q[0] : p[1] < q[1];
}

/* geoms a and b (a != b) into the list when their boxes overlap and the
   filters allow them; 0 when the list is full */
static int list_pair(const imp_model* m, const double* lo, const double* hi, pair_list* pl, int a,
                     int b) {
  if (!boxes_overlap(lo + 3 * a, hi + 3 * a, lo + 3 * b, hi + 3 * b)) return 1;
  int g1 = a < b ? a : b, g2 = a < b ? b : a;
  if (!dynamic_pair_allowed(m, g1, g2)) return 1;
  if (pl->n == pl->cap) return 0;
  pl->g[2 * pl->n] = g1;
  pl->g[2 * pl->n + 1] = g2;
  pl->n++;
  return 1;
}

/* the pairs between (or, a == b, within) two leaves; 0 when the list is full */
static int leaf_pairs(const imp_model* m, const bvh* t, const double* lo, const double* hi,
                      pair_list* pl, int a, int b) {
  for (int i = t->start[a]; i < t->end[a]; i++)
    for (int j = a == b ? i + 1 : t->start[b]; j < t->end[b]; j++)
      if (!list_pair(m, lo, hi, pl, t->idx[i], t->idx[j])) return 0;
  return 1;
}

/* Every pair of the tree into pl by the simultaneous traversal of the tree
   with itself: a node with itself opens into its children with themselves
   and with each other; two nodes whose boxes overlap open the one with
   more geoms. A pair of nodes is a level deeper than the pair it came
   from and each leaves at most two others on the stack, so the stack holds
   at most 2 (2 IMP_BVH_MAXDEPTH) + 1 pairs. 0 when the list is full. */
static int tree_self_pairs(const imp_model* m, const bvh* t, const double* lo, const double* hi,
                           pair_list* pl) {
  int sa[4 * IMP_BVH_MAXDEPTH + 2], sb[4 * IMP_BVH_MAXDEPTH + 2], sp = 0;
  sa[sp] = sb[sp] = 0;
  sp++;
  while (sp > 0) {
    sp--;
    int a = sa[sp], b = sb[sp];
    const int *ca = t->child + 2 * a, *cb = t->child + 2 * b;
    if (a == b) {
      if (ca[0] < 0) {
        if (!leaf_pairs(m, t, lo, hi, pl, a, a)) return 0;
        continue;
      }
      sa[sp] = ca[0], sb[sp++] = ca[1];
      sa[sp] = ca[1], sb[sp++] = ca[1];
      sa[sp] = ca[0], sb[sp++] = ca[0];
      continue;
    }
    if (!boxes_overlap(t->lo + 3 * a, t->hi + 3 * a, t->lo + 3 * b, t->hi + 3 * b)) continue;
    if (ca[0] < 0 && cb[0] < 0) {
      if (!leaf_pairs(m, t, lo, hi, pl, a, b)) return 0;
      continue;
    }
    int open_b = ca[0] < 0 || (cb[0] >= 0 && t->end[b] - t->start[b] > t->end[a] - t->start[a]);
    if (open_b) {
      sa[sp] = a, sb[sp++] = cb[1];
      sa[sp] = a, sb[sp++] = cb[0];
    } else {
      sa[sp] = ca[1], sb[sp++] = b;
      sa[sp] = ca[0], sb[sp++] = b;
    }
  }
  return 1;
}

/* The fallback when the list is full: the geoms g2 > g1 whose boxes
   overlap g1's and that the filters allow, into pl (room for every geom,
   so it never fills) */
static void bvh_query(const imp_model* m, const bvh* t, const double* lo, const double* hi,
                      pair_list* pl, int g1) {
  int stack[2 * IMP_BVH_MAXDEPTH], sp = 0;
  const double *l1 = lo + 3 * g1, *h1 = hi + 3 * g1;
  stack[sp++] = 0;
  while (sp > 0) {
    int node = stack[--sp];
    if (t->maxid[node] <= g1 || !boxes_overlap(l1, h1, t->lo + 3 * node, t->hi + 3 * node))
      continue;
    if (t->child[2 * node] >= 0) {
      stack[sp++] = t->child[2 * node];
      stack[sp++] = t->child[2 * node + 1];
      continue;
    }
    for (int k = t->start[node]; k < t->end[node]; k++)
      if (t->idx[k] > g1) list_pair(m, lo, hi, pl, g1, t->idx[k]);
  }
}

/* the listed pairs to the narrow phase, in the list's order */
static void collide_listed(const imp_model* m, imp_data* d, const pair_list* pl) {
  for (int q = 0; q < pl->n; q++) {
    d->npair_broad++;
    collide_pair(m, d, pl->g[2 * q], pl->g[2 * q + 1], -1);
  }
}

/* Up to this many geoms the broad phase tests every pair of boxes instead
   of building the tree: a robot of a few dozen geoms (MuJoCo Menagerie's
   kuka_iiwa_14: 40 spheres on 8 bodies, aloha: 54 meshes and boxes) spent
   more on building and walking the tree (~50-80k instructions a step)
   than the ~n^2/2 box tests cost, most of them between geoms of one
   body, dropped first by a comparison of weld groups. */
#define IMP_BRUTE_MAXGEOM 128

/* Every pair of idx[0..n) (ascending geom ids) whose boxes overlap and that
   the filters allow, to the narrow phase in ascending (g1, g2): the tree's
   pairs in the tree's order, so the same contacts, bit for bit. wid: the
   geoms' weld groups, in idx's order. */
static void brute_pairs(const imp_model* m, imp_data* d, const int* idx, const int* wid, int n,
                        const double* lo, const double* hi) {
  for (int a = 0; a < n; a++) {
    int g1 = idx[a], w1 = wid[a];
    const double *l1 = lo + 3 * g1, *h1 = hi + 3 * g1;
    for (int b = a + 1; b < n; b++) {
      int g2 = idx[b];
      if (wid[b] == w1 || !boxes_overlap(l1, h1, lo + 3 * g2, hi + 3 * g2)) continue;
      if (!dynamic_pair_allowed(m, g1, g2)) continue;
      d->npair_broad++;
      collide_pair(m, d, g1, g2, -1);
    }
  }
}

/* The broad phase over every non-plane geom. */
static void tree_pairs(const imp_model* m, imp_data* d) {
  int ng = m->ngeom;
  size_t mark = imp_stack_mark(d);
  double* lo = imp_stack_alloc(d, 3 * ng);
  double* hi = imp_stack_alloc(d, 3 * ng);
  bvh t;
  t.idx = imp_stack_alloc_int(d, ng);
  int n = 0;
  for (int g = 0; g < ng; g++) {
    if (!can_collide(m, g) || m->geom_type[g] == IMP_GEOM_PLANE) continue;
    world_box(m, d, g, lo + 3 * g, hi + 3 * g);
    t.idx[n++] = g;
  }
  if (n > 1 && n <= IMP_BRUTE_MAXGEOM) {
    int* wid = imp_stack_alloc_int(d, n);
    for (int k = 0; k < n; k++) wid[k] = m->body_weldid[m->geom_bodyid[t.idx[k]]];
    brute_pairs(m, d, t.idx, wid, n, lo, hi);
  } else if (n > 1) {
    double* key = imp_stack_alloc(d, ng);
    int maxnode = 2 * ng + 1;
    t.lo = imp_stack_alloc(d, 3 * maxnode);
    t.hi = imp_stack_alloc(d, 3 * maxnode);
    t.child = imp_stack_alloc_int(d, 2 * maxnode);
    t.start = imp_stack_alloc_int(d, maxnode);
    t.end = imp_stack_alloc_int(d, maxnode);
    t.maxid = imp_stack_alloc_int(d, maxnode);
    pair_list pl = {imp_stack_alloc_int(d, 2 * IMP_BVH_PAIRS * ng), 0, IMP_BVH_PAIRS * ng};
    bvh_build(&t, lo, hi, key, n);
    if (tree_self_pairs(m, &t, lo, hi, &pl)) {
      imp_heapsort(pl.g, pl.n, 2 * sizeof(int), pair_before, NULL);
      collide_listed(m, d, &pl);
    } else {
      for (int g1 = 0; g1 < ng; g1++) {
        if (!can_collide(m, g1) || m->geom_type[g1] == IMP_GEOM_PLANE) continue;
        pl.n = 0;
        bvh_query(m, &t, lo, hi, &pl, g1);
        imp_heapsort(pl.g, pl.n, 2 * sizeof(int), pair_before, NULL);
        collide_listed(m, d, &pl);
      }
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

/* the most contacts of one pair: its routine's limit, 0 without a routine */
static long pair_max_contacts(const imp_model* m, int g1, int g2) {
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  return narrow_table[t1 < t2 ? t1 : t2][t1 < t2 ? t2 : t1] ? IMP_MAXCONPAIR : 0;
}

long imp_collision_row_bound(const imp_model* m, long cap) {
  if (m->opt.disableflags & (IMP_DSBL_CONTACT | IMP_DSBL_CONSTRAINT)) return 0;
  long rows = 0;
  for (int p = 0; p < m->npair && rows < cap; p++)
    rows += pair_max_contacts(m, m->pair_geom1[p], m->pair_geom2[p]) * m->pair_dim[p];
  long ncollide = 0;
  for (int g = 0; g < m->ngeom; g++) ncollide += can_collide(m, g);
  if (ncollide > IMP_ROWBOUND_GEOMS) return cap; /* not worth ncollide^2 / 2 tests */
  for (int g1 = 0; g1 < m->ngeom && rows < cap; g1++) {
    if (!can_collide(m, g1)) continue;
    for (int g2 = g1 + 1; g2 < m->ngeom && rows < cap; g2++) {
      if (!can_collide(m, g2) || !dynamic_pair_allowed(m, g1, g2)) continue;
      int dim = m->geom_condim[g1] > m->geom_condim[g2] ? m->geom_condim[g1] : m->geom_condim[g2];
      rows += pair_max_contacts(m, g1, g2) * dim; /* priority may pick the smaller */
    }
  }
  return rows < cap ? rows : cap;
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
  tree_pairs(m, d);
  if (d->ncon_dropped > 0) {
    if (d->nwarning_contactfull == 0)
      imp_warning("contact buffer full at step %lld (nconmax %d): %d contacts dropped; raise "
                  "<size nconmax>",
                  d->nstep, m->nconmax, d->ncon_dropped);
    d->nwarning_contactfull++;
  }
  d->timer[IMP_TIMER_COLLISION] += imp_timer_now() - t0;
}
