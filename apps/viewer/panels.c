/* The panels' text (see panels.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "panels.h"
#include "scene.h"

/* Append formatted text to buf (size n), cutting it when full. */
static void append(char* buf, size_t n, const char* fmt, ...) {
  size_t len = strlen(buf);
  if (len + 1 >= n) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, n - len, fmt, ap);
  va_end(ap);
}

/* One row of a panel: a label on the left, a value on the right. */
static void row(imp_viewer_panel* p, const char* label, const char* fmt, ...) {
  char value[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  /* both columns get a line per row, even an empty one, so they stay aligned */
  const char* sep = p->left[0] ? "\n" : "";
  append(p->left, sizeof p->left, "%s%s", sep, label);
  append(p->right, sizeof p->right, "%s%s", sep, value);
}

/* Empty both columns. */
static void clear(imp_viewer_panel* p) {
  p->left[0] = p->right[0] = '\0';
}

/* The bindings of input.c's key map and mouse, as the README's table. */
void imp_viewer_help_panel(imp_viewer_panel* p, int replay) {
  clear(p);
  row(p, "Space", "run / pause");
  if (replay) {
    row(p, "Right / Left", "one row forward / back");
    row(p, "Up / Down", "one second forward / back");
    row(p, "Backspace", "back to the first row");
  } else {
    row(p, "Right", "one step");
    row(p, "Backspace", "reset");
    row(p, "PageDown / PageUp", "next / previous keyframe");
    row(p, "S", "next contact solver");
    row(p, "R", "record the trajectory (CSV)");
    row(p, "Up / Down", "select an actuator");
    row(p, ", / . | /", "its ctrl down / up | to 0");
  }
  row(p, "+ / -", "speed (at most real time)");
  row(p, "[ / ] | Esc", "model cameras | free camera");
  row(p, "Tab | F1 | F2", "panels | help | info");
  row(p, "0 - 5", "geom groups");
  row(p, "C F E J M", "contacts, forces, frames, joints, com");
  row(p, "W T", "wireframe, transparency");
  row(p, "H A", "shadows, multisampling (faster off)");
  row(p, "Ctrl+L | Ctrl+P", "reload | screenshot");
  row(p, "Left / right drag", "orbit / pan (Shift: horizontal)");
  row(p, "Scroll | middle drag", "zoom");
  row(p, "Double click", "select a body");
  row(p, "Right double click", "centre here (Ctrl: track body)");
  row(p, "Ctrl+left / right drag", "turn / pull the selected body");
  row(p, "Drop a file", "open that model");
}

/* "free", "tracking NAME", "fixed NAME (i/n)". */
static void camera_text(const imp_model* m, const imp_camera* cam, char* out, size_t n) {
  if (cam->type == IMP_CAMERA_FIXED && cam->fixedcamid >= 0 && cam->fixedcamid < m->ncam) {
    const char* name = imp_id2name(m, IMP_OBJ_CAMERA, cam->fixedcamid);
    snprintf(out, n, "%s (%d/%d)", name && name[0] ? name : "unnamed", cam->fixedcamid + 1, m->ncam);
  } else if (cam->type == IMP_CAMERA_TRACKING && cam->trackbodyid > 0 &&
             cam->trackbodyid < m->nbody) {
    const char* name = imp_id2name(m, IMP_OBJ_BODY, cam->trackbodyid);
    snprintf(out, n, "tracking %s", name && name[0] ? name : "body");
  } else {
    snprintf(out, n, "free");
  }
}

void imp_viewer_info_panel(imp_viewer_panel* p, const imp_model* m, const imp_data* d,
                           const imp_viewer_ui* ui, const imp_camera* cam,
                           const imp_viewer_status* st) {
  clear(p);
  char text[256];
  row(p, "Time", "%.3f s%s", d->time, ui->running ? "" : " (paused)");
  if (ui->running)
    row(p, "Speed", "%g%% (achieved %.1f%%)", 100.0 * imp_viewer_speed(ui->speed), 100.0 * st->rtf);
  else
    row(p, "Speed", "%g%%", 100.0 * imp_viewer_speed(ui->speed));
  row(p, "FPS", "%.0f", st->fps);
  if (st->replay_nrow > 0) row(p, "Row", "%d / %d", st->replay_row + 1, st->replay_nrow);
  row(p, "Contacts", "%d", d->ncon);
  const char* solver = imp_solver_name(d->solver);
  row(p, "Solver", "%s", solver ? solver : "?");
  row(p, "Iterations", "%d", d->solver_iter);
  row(p, "Residual", "%.2e", d->solver_residual);
  camera_text(m, cam, text, sizeof text);
  row(p, "Camera", "%s", text);
  if (ui->key >= 0) {
    const char* key = imp_id2name(m, IMP_OBJ_KEY, ui->key);
    row(p, "Keyframe", "%s (%d/%d)", key && key[0] ? key : "unnamed", ui->key + 1, m->nkey);
  }
  if (st->recording) row(p, "Recording", "%s", st->recording);
  /* what the frame rate pays for: shadows (H) and the window's samples (A) */
  char samples[32] = "one sample";
  if (st->msaa > 0 && ui->multisample) snprintf(samples, sizeof samples, "%dx multisampled", st->msaa);
  row(p, "Render", "shadows %s, %s", (ui->flags & IMP_VIS_SHADOW) ? "on" : "off", samples);
}

/* One joint's line: hinge and slide show their value, a ball joint its
   quaternion, a free joint its position (the panel stays narrow). */
static void joint_row(imp_viewer_panel* p, const imp_model* m, const imp_data* d, int j) {
  const char* name = imp_id2name(m, IMP_OBJ_JOINT, j);
  char label[128];
  snprintf(label, sizeof label, "%s", name && name[0] ? name : "joint");
  if (!(name && name[0])) snprintf(label, sizeof label, "joint %d", j);
  const double* q = d->qpos + m->jnt_qposadr[j];
  switch (m->jnt_type[j]) {
    case IMP_JNT_FREE:
      row(p, label, "%.3f %.3f %.3f", q[0], q[1], q[2]);
      break;
    case IMP_JNT_BALL: row(p, label, "%.3f %.3f %.3f %.3f", q[0], q[1], q[2], q[3]); break;
    default: row(p, label, "%.4f", q[0]); break;
  }
}

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

static void actuator_row(imp_viewer_panel* p, const imp_model* m, const imp_data* d,
                         const imp_viewer_ui* ui, int a) {
  const char* name = imp_id2name(m, IMP_OBJ_ACTUATOR, a);
  char label[128];
  snprintf(label, sizeof label, "%s %s", a == ui->actuator ? ">" : " ",
           name && name[0] ? name : "actuator");
  row(p, label, "%.3f", d->ctrl[a]);
}

void imp_viewer_state_panel(imp_viewer_panel* p, const imp_model* m, const imp_data* d,
                            const imp_viewer_ui* ui, int maxlines) {
  clear(p);
  int nj, na;
  split_lines(m, maxlines, &nj, &na);
  if (nj > 0) row(p, "Joints", "");
  for (int j = 0; j < nj - 1; j++) joint_row(p, m, d, j);
  if (na > 0) row(p, "Actuators", "ctrl");
  /* a window onto the actuators that keeps the selected one in view */
  int first = ui->actuator - (na - 1) / 2;
  if (first > m->nu - (na - 1)) first = m->nu - (na - 1);
  if (first < 0) first = 0;
  for (int a = first; a < first + na - 1 && a < m->nu; a++) actuator_row(p, m, d, ui, a);
}

/* Greedy wrapping at spaces; a word longer than width is cut. */
void imp_viewer_wrap(const char* msg, int width, char* out, size_t n) {
  if (!n) return;
  out[0] = '\0';
  size_t len = strlen(msg), pos = 0, o = 0;
  while (pos < len && o + 2 < n) {
    size_t take = len - pos;
    if (take > (size_t)width) {
      take = (size_t)width;
      size_t cut = take;
      while (cut > 0 && msg[pos + cut] != ' ') cut--;
      if (cut > 0) take = cut; /* break at the last space that fits */
    }
    for (size_t i = 0; i < take && o + 2 < n; i++) {
      char c = msg[pos + i];
      out[o++] = c == '\n' ? ' ' : c;
    }
    pos += take;
    while (pos < len && msg[pos] == ' ') pos++;
    if (pos < len && o + 2 < n) out[o++] = '\n';
  }
  out[o] = '\0';
}
