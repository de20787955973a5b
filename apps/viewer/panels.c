/* The panels' text (see panels.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "panels.h"
#include "state_panel.h"
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
    row(p, ", / . | / | Z", "its ctrl down / up | to 0 | all to 0");
    row(p, "Drag a ctrl slider", "set that actuator's ctrl");
    row(p, "Scroll over a list", "scroll the joints / actuators");
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
  const double* rec = st->recorded_solver;
  if (rec) { /* what the recorded step did, not what a solve of its end state would */
    row(p, "Contacts", "%.0f (recorded)", rec[0]);
    row(p, "Iterations", "%.0f (recorded)", rec[2]);
    row(p, "Residual", "%.2e (recorded)", rec[3]);
  } else {
    row(p, "Contacts", "%d", d->ncon);
    const char* solver = imp_solver_name(d->solver);
    row(p, "Solver", "%s", solver ? solver : "?");
    row(p, "Iterations", "%d", d->solver_iter);
    row(p, "Residual", "%.2e", d->solver_residual);
  }
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

static void actuator_row(imp_viewer_panel* p, const imp_model* m, const imp_data* d,
                         const imp_viewer_ui* ui, int a) {
  const char* name = imp_id2name(m, IMP_OBJ_ACTUATOR, a);
  char label[128], track[64];
  double range[2];
  snprintf(label, sizeof label, "%s %s", a == ui->actuator ? ">" : " ",
           name && name[0] ? name : "actuator");
  /* the track first: its pixels then do not move with the value's digits */
  imp_viewer_slider_range(m, a, range);
  imp_viewer_slider_text(d->ctrl[a], range, track, sizeof track);
  row(p, label, "%s %.3f", track, d->ctrl[a]);
}

void imp_viewer_state_panel(imp_viewer_panel* p, const imp_model* m, const imp_data* d,
                            const imp_viewer_ui* ui, int maxlines) {
  clear(p);
  imp_viewer_state_layout L;
  imp_viewer_state_arrange(m, ui, maxlines, &L);
  if (L.joint_header >= 0) row(p, "Joints", "");
  for (int j = L.joint_first; j < L.joint_first + L.joint_rows; j++) joint_row(p, m, d, j);
  if (L.act_header >= 0) row(p, "Actuators", "ctrl (drag; Z: all to 0)");
  for (int a = L.act_first; a < L.act_first + L.act_rows; a++) actuator_row(p, m, d, ui, a);
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
