/* Scene builders shared by the benchmarks (scenes.h). */
#include "scenes.h"

#include <math.h>
#include <stdio.h>

double scene_urand(uint64_t* rng, double lo, double hi) {
  uint64_t s = *rng; /* xorshift64* */
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  *rng = s;
  uint64_t r = s * 0x2545f4914f6cdd1dull;
  return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

void scene_balls_xml(char* buf, size_t n, int nb, double mu, double L, uint64_t* rng) {
  double pos[SCENE_MAXBALLS][3], rad[SCENE_MAXBALLS];
  if (nb > SCENE_MAXBALLS) nb = SCENE_MAXBALLS;
  for (int i = 0; i < nb; i++) {
    for (int tries = 0;; tries++) {
      rad[i] = scene_urand(rng, 0.08, 0.16);
      for (int a = 0; a < 3; a++) pos[i][a] = scene_urand(rng, -L + rad[i], L - rad[i]);
      pos[i][2] += L; /* the cube stands on the floor z = 0 */
      int ok = 1;
      for (int j = 0; j < i && ok; j++) {
        double d2 = 0;
        for (int a = 0; a < 3; a++) d2 += (pos[i][a] - pos[j][a]) * (pos[i][a] - pos[j][a]);
        ok = sqrt(d2) > rad[i] + rad[j] + 1e-3;
      }
      if (ok || tries > 10000) break;
    }
  }
  size_t k = (size_t)snprintf(
      buf, n,
      "<mujoco model='table1'>\n"
      " <option timestep='0.005'/>\n"
      " <default><geom friction='%g 0 0' condim='3'/></default>\n"
      " <worldbody>\n"
      "  <geom type='plane' size='%g %g 0.1'/>\n"
      "  <geom type='plane' size='%g %g 0.1' pos='0 0 %g' quat='0 1 0 0'/>\n"
      "  <geom type='plane' size='%g %g 0.1' pos='%g 0 %g' quat='0.70710678 0 -0.70710678 0'/>\n"
      "  <geom type='plane' size='%g %g 0.1' pos='%g 0 %g' quat='0.70710678 0 0.70710678 0'/>\n"
      "  <geom type='plane' size='%g %g 0.1' pos='0 %g %g' quat='0.70710678 0.70710678 0 0'/>\n"
      "  <geom type='plane' size='%g %g 0.1' pos='0 %g %g' quat='0.70710678 -0.70710678 0 0'/>\n",
      mu, L, L, L, L, 2 * L, L, L, L, L, L, L, -L, L, L, L, L, L, L, L, -L, L);
  for (int i = 0; i < nb && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k,
                          "  <body pos='%.6f %.6f %.6f'><freejoint/>"
                          "<geom type='sphere' size='%.6f'/></body>\n",
                          pos[i][0], pos[i][1], pos[i][2], rad[i]);
  if (k < n) snprintf(buf + k, n - k, " </worldbody>\n</mujoco>\n");
}
