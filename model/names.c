/* Names of the loader's objects, looked up and checked in O(n log n): a
 * sorted index per vector of spec objects (every spec struct starts with
 * its name), built on the first lookup and again only when the vector has
 * changed. A linear scan per lookup and a comparison of every pair made a
 * file of 100,000 named objects take minutes (issue 15). */
#include <stdlib.h>
#include <string.h>

#include "loader.h"

/* a name and its element's place, sorted by name then place */
typedef struct named {
  const char* name;
  int i;
} named;

/* the index of one vector as it was when built */
struct ld_name_index {
  const ld_vec* v;
  const char* data; /* v->data and v->n then: either changed, it is rebuilt */
  int n;
  int nnamed;
  named* sorted;
  struct ld_name_index* next;
};

static int compare_named(const void* pa, const void* pb) {
  const named *a = pa, *b = pb;
  int k = strcmp(a->name, b->name);
  return k ? k : (a->i > b->i) - (a->i < b->i);
}

static const char* name_at(const ld_vec* v, int i) {
  return *(const char* const*)(const void*)(v->data + (size_t)i * v->elsz);
}

/* names[0..n) (NULL or "" for none) sorted with their places */
static named* sort_names(ld_ctx* c, const char* const* names, const ld_vec* v, int n, int* nnamed) {
  named* x = ld_alloc(c, sizeof(named) * (size_t)(n + 1));
  int k = 0;
  for (int i = 0; i < n; i++) {
    const char* s = names ? names[i] : name_at(v, i);
    if (s && s[0]) x[k++] = (named){s, i};
  }
  qsort(x, (size_t)k, sizeof *x, compare_named);
  *nnamed = k;
  return x;
}

int ld_first_repeated(ld_ctx* c, const char* const* names, int n) {
  int k = 0, first = -1;
  named* x = sort_names(c, names, NULL, n, &k);
  for (int j = 1; j < k; j++)
    if (!strcmp(x[j].name, x[j - 1].name) && (first < 0 || x[j].i < first))
      first = x[j].i; /* not the first of its name in file order */
  return first;
}

int ld_lookup_name(ld_ctx* c, const ld_vec* v, const char* name) {
  if (!name || !name[0]) return -1;
  struct ld_name_index* x = c->name_index;
  while (x && x->v != v) x = x->next;
  if (!x) {
    x = ld_alloc(c, sizeof *x);
    x->v = v;
    x->next = c->name_index;
    c->name_index = x;
  }
  for (int fresh = 0;; fresh = 1) {
    if (fresh || !x->sorted || x->data != v->data || x->n != v->n) {
      x->sorted = sort_names(c, NULL, v, v->n, &x->nnamed);
      x->data = v->data;
      x->n = v->n;
    }
    /* the first of the name: the lowest place, as a scan in order finds */
    int lo = 0, hi = x->nnamed;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (strcmp(x->sorted[mid].name, name) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo == x->nnamed || strcmp(x->sorted[lo].name, name)) return -1;
    int i = x->sorted[lo].i;
    /* a vector reordered into a buffer at its old address looks unchanged:
       the element found must still carry the name */
    const char* s = name_at(v, i);
    if (fresh || (s && !strcmp(s, name))) return i;
  }
}
