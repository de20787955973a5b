/* mj_rollout: MuJoCo's side of the Menagerie survey (survey.sh). Loads a
 * model with MuJoCo's own loader, optionally resets to a keyframe, steps it
 * and prints, one `key: value` a line as `impetus run` does:
 *
 *   steps, time, wall_seconds, nan_resets (MuJoCo's bad-qacc warnings, each
 *   a reset), root_height (qpos z of the first free joint, or none)
 *
 *   mj_rollout MODEL.xml [--steps N] [--key NAME|#I]
 *
 * Exit 0; 1 when MuJoCo cannot load the file (its message on stderr, one
 * line, prefixed "mujoco: ") or has no such keyframe; 2 bad usage.
 * MuJoCo's warnings go to stderr instead of its log file (MUJOCO_LOG.TXT in
 * the current directory), so a survey leaves nothing behind. */
#define _POSIX_C_SOURCE 200809L

#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* MuJoCo's warnings: to stderr, on one line, never to its log file. */
static void on_warning(const char* msg) { fprintf(stderr, "mujoco warning: %s\n", msg); }

/* MuJoCo's fatal errors: reported as a load failure would be. */
static void on_error(const char* msg) {
  fprintf(stderr, "mujoco: %s\n", msg);
  exit(1);
}

/* Seconds on the monotonic clock. */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The keyframe called name, or number I for "#I" when none is called that
   (as impetus run --key); -1 when there is none. */
static int key_id(const mjModel* m, const char* name) {
  int k = mj_name2id(m, mjOBJ_KEY, name);
  if (k >= 0 || name[0] != '#') return k;
  char* end = NULL;
  long i = strtol(name + 1, &end, 10);
  return name[1] && !*end && i >= 0 && i < m->nkey ? (int)i : -1;
}

/* Line breaks in MuJoCo's message become spaces, so it stays one line. */
static void one_line(char* s) {
  for (; *s; s++)
    if (*s == '\n' || *s == '\r') *s = ' ';
}

int main(int argc, char** argv) {
  const char* path = NULL;
  const char* key = NULL;
  long steps = 2000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
      char* end = NULL;
      steps = strtol(argv[++i], &end, 10);
      if (!*argv[i] || *end || steps < 0) {
        fprintf(stderr, "mj_rollout: --steps: not a count: '%s'\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
      key = argv[++i];
    } else if (argv[i][0] == '-' || path) {
      fprintf(stderr, "usage: mj_rollout MODEL.xml [--steps N] [--key NAME|#I]\n");
      return 2;
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    fprintf(stderr, "usage: mj_rollout MODEL.xml [--steps N] [--key NAME|#I]\n");
    return 2;
  }
  mju_user_warning = on_warning;
  mju_user_error = on_error;

  char err[1000] = "";
  mjModel* m = mj_loadXML(path, NULL, err, sizeof err);
  if (!m) {
    one_line(err);
    fprintf(stderr, "mujoco: %s\n", err[0] ? err : "the model did not load");
    return 1;
  }
  mjData* d = mj_makeData(m);
  if (key) {
    int k = key_id(m, key);
    if (k < 0) {
      fprintf(stderr, "mj_rollout: %s: no keyframe named '%s'\n", path, key);
      mj_deleteData(d);
      mj_deleteModel(m);
      return 1;
    }
    mj_resetDataKeyframe(m, d, k);
  }
  double t0 = now_s();
  for (long s = 0; s < steps; s++) mj_step(m, d);
  double wall = now_s() - t0;

  printf("steps: %ld\n", steps);
  printf("time: %.9g\n", d->time);
  printf("wall_seconds: %.6f\n", wall);
  printf("nan_resets: %d\n", d->warning[mjWARN_BADQACC].number);
  int root = -1;
  for (int j = 0; j < m->njnt && root < 0; j++)
    if (m->jnt_type[j] == mjJNT_FREE) root = j;
  if (root >= 0)
    printf("root_height: %.9g\n", d->qpos[m->jnt_qposadr[root] + 2]);
  else
    printf("root_height: none\n");
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
