/* Line plots as PNG (plot.h): a small RGB canvas, lines, text, axes. */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#include <stb/stb_easy_font.h>

typedef struct canvas {
  unsigned char* px; /* PLOT_W * PLOT_H * 3 */
} canvas;

static const unsigned char k_palette[][3] = {
    {31, 119, 180}, {214, 39, 40}, {44, 160, 44}, {255, 127, 14},
    {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}, {127, 127, 127},
    /* three more, so Siconos' solvers in solvers --compare get their own colors */
    {188, 189, 34}, {0, 0, 0}, {0, 0, 128}};
#define NPALETTE ((int)(sizeof k_palette / sizeof k_palette[0]))

/* blend color c with weight a (0..1) into pixel (x, y) */
static void put(canvas* c, int x, int y, const unsigned char col[3], double a) {
  if (x < 0 || y < 0 || x >= PLOT_W || y >= PLOT_H) return;
  unsigned char* p = c->px + 3 * ((size_t)y * PLOT_W + (size_t)x);
  for (int k = 0; k < 3; k++) p[k] = (unsigned char)lround(p[k] * (1 - a) + col[k] * a);
}

static void fill_rect(canvas* c, int x0, int y0, int x1, int y1, const unsigned char col[3]) {
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) put(c, x, y, col, 1);
}

/* a line of width w (1 or more) by stepping along its longer extent */
static void line(canvas* c, double x0, double y0, double x1, double y1, const unsigned char col[3],
                 int w, double alpha) {
  double dx = x1 - x0, dy = y1 - y0;
  int steps = (int)ceil(fmax(fabs(dx), fabs(dy)));
  if (steps < 1) steps = 1;
  if (steps > 4 * PLOT_W) steps = 4 * PLOT_W;
  for (int i = 0; i <= steps; i++) {
    double t = (double)i / steps;
    int x = (int)lround(x0 + t * dx), y = (int)lround(y0 + t * dy);
    for (int a = -(w / 2); a <= w / 2; a++)
      for (int b = -(w / 2); b <= w / 2; b++) put(c, x + a, y + b, col, alpha);
  }
}

/* text at pixel (x, y) (top left), scale s: stb_easy_font gives axis-aligned
   quads of its stroke font, which are filled as rectangles. */
static int text_width(const char* s, int scale) { return stb_easy_font_width((char*)s) * scale; }
static void text(canvas* c, int x, int y, const char* s, int scale, const unsigned char col[3]) {
  static char buf[60000];
  int nq = stb_easy_font_print(0, 0, (char*)s, NULL, buf, (int)sizeof buf);
  for (int q = 0; q < nq; q++) {
    const float* v0 = (const float*)(buf + 64 * q);      /* vertex 0: x, y, z, color */
    const float* v2 = (const float*)(buf + 64 * q + 32); /* vertex 2: the opposite corner */
    fill_rect(c, x + (int)lroundf(v0[0] * scale), y + (int)lroundf(v0[1] * scale),
              x + (int)lroundf(v2[0] * scale), y + (int)lroundf(v2[1] * scale), col);
  }
}

/* the data range of one coordinate over all series */
static void range(const plot_spec* sp, int axis, int logscale, double* lo, double* hi) {
  *lo = INFINITY;
  *hi = -INFINITY;
  for (int s = 0; s < sp->nseries; s++)
    for (int i = 0; i < sp->series[s].n; i++) {
      double v = axis ? sp->series[s].y[i] : sp->series[s].x[i];
      if (!isfinite(v) || (logscale && v <= 0)) continue;
      if (v < *lo) *lo = v;
      if (v > *hi) *hi = v;
    }
  if (!(*lo <= *hi)) { *lo = logscale ? 1e-16 : 0; *hi = 1; }
  if (logscale) {
    *lo = floor(log10(*lo));
    *hi = ceil(log10(*hi));
    if (*hi <= *lo) *hi = *lo + 1;
  } else if (*hi <= *lo) {
    *hi = *lo + 1;
  } else {
    *lo = 0;
  }
}

/* decimal tick label: 1e-6 on log axes, %g on linear ones */
static void tick_label(char* buf, size_t n, double v, int logscale) {
  if (logscale) snprintf(buf, n, "1e%d", (int)lround(v));
  else snprintf(buf, n, "%g", v);
}

int plot_write_png(const char* path, const plot_spec* sp) {
  canvas c = {malloc((size_t)PLOT_W * PLOT_H * 3)};
  if (!c.px) return -1;
  memset(c.px, 255, (size_t)PLOT_W * PLOT_H * 3);
  static const unsigned char black[3] = {0, 0, 0}, grid[3] = {225, 225, 225};
  const int L = 90, R = PLOT_W - 190, T = 50, B = PLOT_H - 70; /* plot area */
  double xlo, xhi, ylo, yhi;
  range(sp, 0, sp->logx, &xlo, &xhi);
  range(sp, 1, 1, &ylo, &yhi);
#define XP(v) (L + ((sp->logx ? log10(v) : (v)) - xlo) / (xhi - xlo) * (R - L))
#define YP(v) (B - (log10(v) - ylo) / (yhi - ylo) * (B - T))
  /* grid and ticks: whole decades on log axes (every k-th when many), 5 steps on linear */
  char lab[64];
  int ky = (int)ceil((yhi - ylo) / 10);
  for (double e = ylo; e <= yhi + 1e-9; e += ky) {
    int y = (int)lround(B - (e - ylo) / (yhi - ylo) * (B - T));
    line(&c, L, y, R, y, grid, 1, 1);
    line(&c, L - 5, y, L, y, black, 1, 1);
    tick_label(lab, sizeof lab, e, 1);
    text(&c, L - 10 - text_width(lab, 2), y - 7, lab, 2, black);
  }
  double xstep = sp->logx ? ceil((xhi - xlo) / 8) : (xhi - xlo) / 5;
  for (double e = xlo; e <= xhi + 1e-9 * fabs(xhi); e += xstep) {
    int x = (int)lround(L + (e - xlo) / (xhi - xlo) * (R - L));
    line(&c, x, T, x, B, grid, 1, 1);
    line(&c, x, B, x, B + 5, black, 1, 1);
    tick_label(lab, sizeof lab, e, sp->logx);
    text(&c, x - text_width(lab, 2) / 2, B + 10, lab, 2, black);
  }
  /* the series, thin ones first so thick ones stay on top */
  for (int pass = 0; pass < 2; pass++)
    for (int s = 0; s < sp->nseries; s++) {
      const plot_series* se = &sp->series[s];
      if ((se->thick > 1) != pass) continue;
      const unsigned char* col = k_palette[((se->color % NPALETTE) + NPALETTE) % NPALETTE];
      int have = 0;
      double px = 0, py = 0;
      for (int i = 0; i < se->n; i++) {
        double x = se->x[i], y = se->y[i];
        if (!isfinite(x) || !isfinite(y) || y <= 0 || (sp->logx && x <= 0)) { have = 0; continue; }
        double qx = XP(x), qy = YP(y);
        if (have) line(&c, px, py, qx, qy, col, se->thick, se->thick > 1 ? 1 : 0.35);
        else if (se->n == 1 || (i + 1 < se->n && !isfinite(se->y[i + 1])))
          line(&c, qx, qy, qx, qy, col, se->thick + 2, 1); /* a lone point */
        px = qx, py = qy, have = 1;
      }
    }
#undef XP
#undef YP
  /* frame, labels, legend */
  line(&c, L, T, R, T, black, 1, 1);
  line(&c, L, B, R, B, black, 1, 1);
  line(&c, L, T, L, B, black, 1, 1);
  line(&c, R, T, R, B, black, 1, 1);
  if (sp->title) text(&c, L, 6, sp->title, 2, black);
  if (sp->xlabel) text(&c, (L + R) / 2 - text_width(sp->xlabel, 2) / 2, B + 38, sp->xlabel, 2, black);
  if (sp->ylabel) text(&c, 8, T - 22, sp->ylabel, 2, black);
  int ly = T + 5;
  for (int s = 0; s < sp->nseries; s++) {
    if (!sp->series[s].label) continue;
    const unsigned char* col = k_palette[((sp->series[s].color % NPALETTE) + NPALETTE) % NPALETTE];
    fill_rect(&c, R + 12, ly + 4, R + 40, ly + 9, col);
    text(&c, R + 46, ly, sp->series[s].label, 2, black);
    ly += 22;
  }
  int ok = stbi_write_png(path, PLOT_W, PLOT_H, 3, c.px, PLOT_W * 3);
  free(c.px);
  return ok ? 0 : -1;
}
