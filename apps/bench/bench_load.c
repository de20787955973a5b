/* bench_load [--max N] [--dir DIR]: how loading scales (issue 15). Writes
   models of 1,000, 10,000 and 100,000 bodies (up to N), flat (each body a
   child of the world with a hinge and a sphere) and in chains as deep as
   the loader allows (990 bodies, each a hinge and a capsule, 198 a file,
   each file including the next: libxml2 nests at most 256 elements in one
   file), then loads each in a child process and prints the time to load,
   the time to make the data, and the child's peak resident memory
   (getrusage ru_maxrss, as /usr/bin/time -v reports it). A benchmark, not a
   test: the times are the machine's. */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <impetus/impetus.h>

#define CHAIN_DEPTH 990 /* bodies: the deepest a chain may be is just under 1000 */
#define PER_FILE 198    /* bodies nested in one file */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static FILE* open_in(const char* dir, const char* name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  return f;
}

/* dir/flatN.xml: n bodies under the world */
static void write_flat(const char* dir, int n, char* name, size_t namesz) {
  snprintf(name, namesz, "flat%d.xml", n);
  FILE* f = open_in(dir, name);
  fprintf(f, "<mujoco model='flat%d'>\n<worldbody>\n<geom type='plane' size='500 500 .1'/>\n", n);
  for (int i = 0; i < n; i++)
    fprintf(f, "<body name='b%d' pos='%d %d 1'><joint type='hinge'/><geom size='.1'/></body>\n", i,
            i % 300, i / 300);
  fputs("</worldbody>\n</mujoco>\n", f);
  fclose(f);
}

/* dir/chainN.xml: n / CHAIN_DEPTH chains (at least one) of CHAIN_DEPTH bodies, all
   including the same files link0.xml ... */
static void write_chains(const char* dir, int n, char* name, size_t namesz) {
  int nfile = CHAIN_DEPTH / PER_FILE;
  for (int i = 0; i < nfile; i++) {
    char part[32];
    snprintf(part, sizeof part, "link%d.xml", i);
    FILE* f = open_in(dir, part);
    fputs("<mujoco>\n", f);
    for (int b = 0; b < PER_FILE; b++)
      fputs("<body pos='0 0 .1'><joint type='hinge' axis='0 1 0'/>"
            "<geom type='capsule' fromto='0 0 0 0 0 .1' size='.02'/>\n", f);
    if (i + 1 < nfile) fprintf(f, "<include file='link%d.xml'/>", i + 1);
    for (int b = 0; b < PER_FILE; b++) fputs("</body>", f);
    fputs("\n</mujoco>\n", f);
    fclose(f);
  }
  int nchain = n / CHAIN_DEPTH > 1 ? n / CHAIN_DEPTH : 1;
  snprintf(name, namesz, "chain%d.xml", n);
  FILE* f = open_in(dir, name);
  fprintf(f, "<mujoco model='chains%d'>\n<worldbody>\n<geom type='plane' size='500 500 .1'/>\n",
          n);
  for (int c = 0; c < nchain; c++)
    fprintf(f, "<body pos='%d 0 0'><include file='link0.xml'/></body>\n", c);
  fputs("</worldbody>\n</mujoco>\n", f);
  fclose(f);
}

/* Load dir/name in a child; print its times and peak memory. */
static void measure(const char* dir, const char* name, const char* kind, int n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd[2];
  if (pipe(fd) != 0) {
    perror("pipe");
    exit(1);
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    char err[1000], line[1100];
    double t0 = now();
    imp_model* m = imp_load_xml(path, err, sizeof err);
    double t1 = now();
    imp_data* d = m ? imp_make_data(m) : NULL;
    double t2 = now();
    if (!m || !d)
      snprintf(line, sizeof line, "error: %s", m ? "out of memory" : err);
    else
      snprintf(line, sizeof line, "%8d %8d %9.3f %9.3f %10.1f", m->nbody - 1, m->nv, t1 - t0,
               t2 - t1, (double)(d->nbuffer + d->narena) / 1048576.0);
    if (write(fd[1], line, strlen(line) + 1) < 0) _exit(1);
    imp_free_data(d);
    imp_free_model(m);
    _exit(0);
  }
  close(fd[1]);
  char line[1100] = "";
  ssize_t got = read(fd[0], line, sizeof line - 1);
  line[got > 0 ? got : 0] = 0;
  close(fd[0]);
  int status = 0;
  struct rusage ru;
  if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
    perror("fork/wait");
    exit(1);
  }
  printf("%-6s %7d  %s %9.1f\n", kind, n, line, (double)ru.ru_maxrss / 1024.0);
  fflush(stdout);
}

int main(int argc, char** argv) {
  int max = 100000;
  const char* where = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max") && i + 1 < argc) max = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) where = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--max N] [--dir DIR]\n", argv[0]);
      return 2;
    }
  }
  char tmpl[] = "/tmp/impetus_bench_loadXXXXXX";
  const char* dir = where ? where : mkdtemp(tmpl);
  if (!dir) {
    perror("mkdtemp");
    return 1;
  }
  printf("%-6s %7s  %8s %8s %9s %9s %10s %9s\n", "kind", "asked", "bodies", "dofs", "load(s)",
         "data(s)", "data(MB)", "peak(MB)");
  static const int sizes[] = {1000, 10000, 100000};
  char name[64];
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 3 && sizes[i] <= max; i++) {
      if (k == 0) write_flat(dir, sizes[i], name, sizeof name);
      else write_chains(dir, sizes[i], name, sizeof name);
      measure(dir, name, k == 0 ? "flat" : "chain", sizes[i]);
    }
  if (!where) {
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  }
  return 0;
}
