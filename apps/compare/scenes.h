/* Scene builders shared by the benchmarks (bench_table1, impetus solvers
   --compare): MJCF text generated in memory. */
#ifndef IMPETUS_APPS_SCENES_H
#define IMPETUS_APPS_SCENES_H

#include <stddef.h>
#include <stdint.h>

/* Uniform in [lo, hi) from the xorshift64* generator state *rng (nonzero). */
double scene_urand(uint64_t* rng, double lo, double hi);

/* The balls in a cube of Todorov 2010, Table 1 (Section IV), as MJCF text
   in buf (n bytes): a cube of half side L made of six planes standing on
   z = 0, nb balls (at most SCENE_MAXBALLS) of radius 0.08..0.16 m placed
   without overlap at random from *rng, friction mu, condim 3, h = 0.005.
   The balls start at rest. */
#define SCENE_MAXBALLS 15
void scene_balls_xml(char* buf, size_t n, int nb, double mu, double L, uint64_t* rng);

#endif
