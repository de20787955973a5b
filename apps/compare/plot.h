/* Line plots with logarithmic axes written as PNG files (stb_image_write,
   Debian's libstb-dev), text drawn with stb_easy_font's bitmap-style
   strokes (the same package): no font files, no other dependency. */
#ifndef IMPETUS_APPS_PLOT_H
#define IMPETUS_APPS_PLOT_H

/* Every plot is PLOT_W x PLOT_H pixels, RGB. */
enum { PLOT_W = 900, PLOT_H = 600 };

typedef struct plot_series {
  const double* x; /* n points; points with a non-finite or (on a log axis) */
  const double* y; /* non-positive coordinate are skipped (the line breaks) */
  int n;
  int color;       /* index into the palette (plot_color) */
  int thick;       /* 1: thin line, 3: thick line */
  const char* label; /* legend entry, NULL for none */
} plot_series;

typedef struct plot_spec {
  const char* title;
  const char* xlabel;
  const char* ylabel;
  int logx;          /* 1: x axis logarithmic (y is always logarithmic) */
  const plot_series* series;
  int nseries;
} plot_spec;

/* Draw the plot and write it as PNG to path. 0 on success, -1 when the file
   cannot be written. Axis ranges come from the data (whole decades on log
   axes). */
int plot_write_png(const char* path, const plot_spec* spec);

#endif
