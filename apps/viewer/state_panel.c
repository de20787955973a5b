/* The state panel's lines, scrolling and ctrl sliders (see state_panel.h). */
#include "state_panel.h"

#include <math.h>
#include <string.h>

/* Lines for joints and actuators within maxlines, each header included:
   when both do not fit, each gets half, so the actuators the keys control
   stay visible. */
static void split_lines(const imp_model* m, int maxlines, int* njoint, int* nact) {
  int want_j = m->njnt > 0 ? 1 + m->njnt : 0, want_a = m->nu > 0 ? 1 + m->nu : 0;
  int half = maxlines / 2;
  if (want_j + want_a <= maxlines) *nact = want_a;
  else if (want_a <= half) *nact = want_a;
  else if (want_j <= half) *nact = maxlines - want_j;
  else *nact = half;
  *njoint = maxlines - *nact < want_j ? maxlines - *nact : want_j;
}

/* first clamped so rows rows starting there lie within 0..n-1. */
static int clamp_first(int first, int rows, int n) {
  if (first > n - rows) first = n - rows;
  return first < 0 ? 0 : first;
}

void imp_viewer_state_arrange(const imp_model* m, const imp_viewer_ui* ui, int maxlines,
                             imp_viewer_state_layout* L) {
  int nj, na;
  split_lines(m, maxlines > 0 ? maxlines : 0, &nj, &na);
  memset(L, 0, sizeof *L);
  L->joint_header = nj > 0 ? 0 : -1;
  L->joint_line = 1;
  L->joint_rows = nj > 1 ? nj - 1 : 0;
  L->joint_first = clamp_first(ui->joint_first, L->joint_rows, m->njnt);
  L->act_header = na > 0 ? nj : -1;
  L->act_line = nj + 1;
  L->act_rows = na > 1 ? na - 1 : 0;
  int first = ui->actuator_first;
  if (ui->follow_actuator && ui->actuator >= 0 && L->act_rows > 0) {
    if (ui->actuator < first) first = ui->actuator;
    if (ui->actuator >= first + L->act_rows) first = ui->actuator - L->act_rows + 1;
  }
  L->act_first = clamp_first(first, L->act_rows, m->nu);
  L->nlines = nj + na;
}

void imp_viewer_state_commit(imp_viewer_ui* ui, const imp_viewer_state_layout* L) {
  ui->joint_first = L->joint_first;
  ui->actuator_first = L->act_first;
  ui->follow_actuator = 0;
}

/* Is line within the section that starts at header and has rows rows? */
static int in_section(int line, int header, int rows) {
  return header >= 0 && line >= header && line <= header + rows;
}

int imp_viewer_state_scroll(imp_viewer_ui* ui, const imp_model* m,
                            const imp_viewer_state_layout* L, int line, int notches) {
  if (in_section(line, L->joint_header, L->joint_rows)) {
    ui->joint_first = clamp_first(ui->joint_first - notches, L->joint_rows, m->njnt);
    return 1;
  }
  if (in_section(line, L->act_header, L->act_rows)) {
    ui->actuator_first = clamp_first(ui->actuator_first - notches, L->act_rows, m->nu);
    ui->follow_actuator = 0; /* the wheel, not the selection, decides what shows now */
    return 1;
  }
  return 0;
}

int imp_viewer_panel_line(const imp_viewer_panel_geom* g, int nlines, double x, double y) {
  if (x < g->x0 || x > g->x1 || y < g->y0 || y > g->y1 || !(g->line_height > 0)) return -1;
  double f = floor((y - g->text_top) / g->line_height);
  return f >= 0 && f < nlines ? (int)f : -1;
}

int imp_viewer_slider_at(const imp_viewer_state_layout* L, const imp_viewer_panel_geom* g,
                         double x, double y) {
  int line = imp_viewer_panel_line(g, L->nlines, x, y);
  if (line < L->act_line || line >= L->act_line + L->act_rows) return -1;
  double slack = 0.5 * g->line_height; /* the ends are thin targets */
  if (x < g->track_x0 - slack || x > g->track_x1 + slack) return -1;
  return L->act_first + (line - L->act_line);
}

void imp_viewer_slider_range(const imp_model* m, int a, double range[2]) {
  const double* r = m->actuator_ctrlrange + 2 * a;
  int limited = m->actuator_ctrllimited[a] && r[1] > r[0];
  range[0] = limited ? r[0] : -1.0;
  range[1] = limited ? r[1] : 1.0;
}

double imp_viewer_slider_value(const imp_viewer_panel_geom* g, double x, const double range[2]) {
  double w = g->track_x1 - g->track_x0;
  double f = w > 0 ? (x - g->track_x0) / w : 0.0;
  f = f < 0 ? 0 : f > 1 ? 1 : f;
  return range[0] + f * (range[1] - range[0]);
}

void imp_viewer_slider_text(double value, const double range[2], char* out, size_t n) {
  char t[IMP_VIEWER_TRACK + 3];
  double w = range[1] - range[0];
  double f = w > 0 ? (value - range[0]) / w : 0.0;
  f = !(f > 0) ? 0 : f > 1 ? 1 : f; /* NaN to the low end */
  t[0] = '[';
  memset(t + 1, '-', IMP_VIEWER_TRACK);
  t[1 + (int)lround(f * (IMP_VIEWER_TRACK - 1))] = '|';
  t[IMP_VIEWER_TRACK + 1] = ']';
  t[IMP_VIEWER_TRACK + 2] = '\0';
  if (n) {
    size_t k = strlen(t) < n - 1 ? strlen(t) : n - 1;
    memcpy(out, t, k);
    out[k] = '\0';
  }
}
