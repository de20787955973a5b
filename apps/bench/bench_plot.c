/* bench_plot CSV PNG [TITLE]: draw a CSV of positive numbers as a log-log
   line plot (apps/compare/plot.h), the first column against each of the others,
   labelled by the header line. Used by apps/bench/bench_mujoco.py for its
   scaling plot; bad input is refused with the file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/plot.h"

#define MAXCOL 8
#define MAXROW 256

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: bench_plot DATA.csv OUT.png [TITLE]\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "r");
  if (!f) {
    fprintf(stderr, "bench_plot: cannot open %s\n", argv[1]);
    return 1;
  }
  static double val[MAXCOL][MAXROW];
  char line[1024], names[MAXCOL][64];
  int ncol = 0, nrow = 0, lineno = 1;
  if (!fgets(line, sizeof line, f)) {
    fprintf(stderr, "%s:1: no header line\n", argv[1]);
    fclose(f);
    return 1;
  }
  for (char* tok = strtok(line, ",\r\n"); tok; tok = strtok(NULL, ",\r\n")) {
    if (ncol == MAXCOL) {
      fprintf(stderr, "%s:1: more than %d columns\n", argv[1], MAXCOL);
      fclose(f);
      return 1;
    }
    snprintf(names[ncol++], sizeof names[0], "%s", tok);
  }
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (nrow == MAXROW) {
      fprintf(stderr, "%s:%d: more than %d rows\n", argv[1], lineno, MAXROW);
      fclose(f);
      return 1;
    }
    char* p = line;
    for (int c = 0; c < ncol; c++) {
      char* end;
      val[c][nrow] = strtod(p, &end);
      if (end == p || (*end != ',' && c + 1 < ncol)) {
        fprintf(stderr, "%s:%d: column %d is not a number\n", argv[1], lineno, c + 1);
        fclose(f);
        return 1;
      }
      p = end + 1;
    }
    nrow++;
  }
  fclose(f);
  if (ncol < 2 || nrow < 1) {
    fprintf(stderr, "%s: needs two columns and a row of data\n", argv[1]);
    return 1;
  }
  plot_series series[MAXCOL];
  for (int c = 1; c < ncol; c++)
    series[c - 1] = (plot_series){val[0], val[c], nrow, c - 1, 3, names[c]};
  plot_spec spec = {argc > 3 ? argv[3] : "", names[0], "ms per step", 1, series, ncol - 1};
  if (plot_write_png(argv[2], &spec) != 0) {
    fprintf(stderr, "bench_plot: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
