/* bench_broadphase [N ...]: how the collision stage scales with the number
 * of geoms. For each N (default 100 1000 10000) it builds a scene of N free
 * spheres of radius 0.05 scattered uniformly in a cube whose side grows as
 * N^(1/3), so the density and the number of touching neighbours per sphere
 * stay constant, and times the collision stage at that state.
 *
 * It prints, per N: the pairs that passed the sweep and the filters (the
 * pairs tested), all N(N-1)/2 pairs for comparison, the contacts found, the
 * time of one collision stage (median of repeats), that time divided by
 * N log2 N, and the time of testing every pair's bounding spheres and
 * narrow phase by brute force (with the same contacts found, as a check).
 * A benchmark, not a test: the figures go into the notes, never into asserts. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collision/collision.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* xorshift64*: uniform in [0, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static char* scene_xml(int n) {
  size_t cap = 200 + (size_t)n * 120;
  char* xml = malloc(cap);
  if (!xml) return NULL;
  double side = 0.25 * cbrt((double)n);
  size_t len = (size_t)snprintf(xml, cap, "<mujoco><size nconmax='%d'/><worldbody>", 20 * n + 100);
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(xml + len, cap - len,
                            "<body pos='%.6f %.6f %.6f'><freejoint/><geom type='sphere' "
                            "size='0.05'/></body>",
                            side * urand(), side * urand(), side * urand());
  snprintf(xml + len, cap - len, "</worldbody></mujoco>");
  return xml;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* brute force: every pair, bounding spheres then narrow phase */
static int all_pairs(const imp_model* m, const imp_data* d, double* seconds) {
  imp_contact con[IMP_MAXCONPAIR];
  int found = 0;
  double t0 = imp_timer_now();
  for (int a = 0; a < m->ngeom; a++)
    for (int b = a + 1; b < m->ngeom; b++) {
      const double *x = d->geom_xpos + 3 * a, *y = d->geom_xpos + 3 * b;
      double dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
      double r = m->geom_rbound[a] + m->geom_rbound[b];
      if (dx * dx + dy * dy + dz * dz > r * r) continue;
      found += imp_collide_geoms(m, d, a, b, 0, con);
    }
  *seconds = imp_timer_now() - t0;
  return found;
}

static int run(int n) {
  char* xml = scene_xml(n);
  char err[1000];
  imp_model* m = xml ? imp_load_xml_string(xml, NULL, "spheres", err, sizeof err) : NULL;
  free(xml);
  if (!m) {
    fprintf(stderr, "bench_broadphase: %s\n", xml ? err : "out of memory");
    return 1;
  }
  imp_data* d = imp_make_data(m);
  imp_forward(m, d);
  enum { REPEAT = 21 };
  double t[REPEAT];
  for (int r = 0; r < REPEAT; r++) {
    double before = d->timer[IMP_TIMER_COLLISION];
    imp_collision(m, d);
    t[r] = d->timer[IMP_TIMER_COLLISION] - before;
  }
  qsort(t, REPEAT, sizeof *t, cmp_double);
  double brute_s;
  int brute = all_pairs(m, d, &brute_s);
  double nlogn = (double)n * log2((double)n);
  printf("%6d %12d %14.0f %9d %14.1f %12.2f %14.1f %8s\n", n, d->npair_broad,
         0.5 * (double)n * (n - 1), d->ncon, 1e6 * t[REPEAT / 2], 1e9 * t[REPEAT / 2] / nlogn,
         1e6 * brute_s, brute == d->ncon ? "same" : "DIFFER");
  int bad = brute != d->ncon;
  imp_free_data(d);
  imp_free_model(m);
  return bad;
}

int main(int argc, char** argv) {
  static const int defaults[] = {100, 1000, 10000};
  printf("%6s %12s %14s %9s %14s %12s %14s %8s\n", "N", "pairs_tested", "all_pairs",
         "contacts", "collision_us", "ns/(NlogN)", "all_pairs_us", "contacts");
  int bad = 0;
  if (argc > 1) {
    for (int i = 1; i < argc; i++) bad |= run(atoi(argv[i]));
  } else {
    for (int i = 0; i < 3; i++) bad |= run(defaults[i]);
  }
  return bad;
}
