/* The viewer's input logic (see input.h): key map, pure state changes,
   mouse modes and double clicks. GLFW's header only for its key codes. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "scene.h"

/* Fractions of real time, fastest first: a user slows down to watch a
   contact and never runs ahead of the wall clock (MuJoCo's levels). */
static const double speed_levels[IMP_VIEWER_NSPEED] = {1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01};

/* The fraction of real time of a slow-motion level. */
double imp_viewer_speed(int index) {
  if (index < 0) index = 0;
  if (index >= IMP_VIEWER_NSPEED) index = IMP_VIEWER_NSPEED - 1;
  return speed_levels[index];
}

/* Running, real time, panels and info shown, the renderer's default overlays. */
void imp_viewer_ui_default(imp_viewer_ui* ui, int geomgroup, unsigned flags, int nu) {
  *ui = (imp_viewer_ui){0};
  ui->running = 1;
  ui->panels = 1;
  ui->info = 1;
  ui->geomgroup = geomgroup;
  ui->flags = flags;
  ui->actuator = nu > 0 ? 0 : -1;
  ui->key = -1;
  ui->multisample = 1;
}

/* A command value, for the tables below. */
static imp_viewer_cmd cmd(int action, int arg) {
  return (imp_viewer_cmd){action, arg};
}

/* Keys that mean the same with or without ctrl: letters for overlays. */
static imp_viewer_cmd letter_action(int key) {
  switch (key) {
    case GLFW_KEY_C: return cmd(IMP_ACT_VIS, IMP_VIS_CONTACT_POINT);
    case GLFW_KEY_F: return cmd(IMP_ACT_VIS, IMP_VIS_CONTACT_FORCE);
    case GLFW_KEY_W: return cmd(IMP_ACT_VIS, IMP_VIS_WIREFRAME);
    case GLFW_KEY_T: return cmd(IMP_ACT_VIS, IMP_VIS_TRANSPARENT);
    case GLFW_KEY_J: return cmd(IMP_ACT_VIS, IMP_VIS_JOINT);
    case GLFW_KEY_M: return cmd(IMP_ACT_VIS, IMP_VIS_COM);
    case GLFW_KEY_E: return cmd(IMP_ACT_VIS, IMP_VIS_BODY_FRAME);
    /* shadows and multisampling cost most on software GL (llvmpipe): keys
       to drop them when the frame rate falls */
    case GLFW_KEY_H: return cmd(IMP_ACT_VIS, IMP_VIS_SHADOW);
    case GLFW_KEY_A: return cmd(IMP_ACT_MULTISAMPLE, 0);
    case GLFW_KEY_Z: return cmd(IMP_ACT_CTRL_ZERO_ALL, 0);
    case GLFW_KEY_S: return cmd(IMP_ACT_SOLVER_NEXT, 0);
    case GLFW_KEY_R: return cmd(IMP_ACT_RECORD, 0);
    default: return cmd(IMP_ACT_NONE, 0);
  }
}

/* Ctrl + key: the commands that touch files or the program. */
static imp_viewer_cmd ctrl_action(int key) {
  switch (key) {
    case GLFW_KEY_L: return cmd(IMP_ACT_RELOAD, 0);
    case GLFW_KEY_P: return cmd(IMP_ACT_SCREENSHOT, 0);
    case GLFW_KEY_Q: return cmd(IMP_ACT_QUIT, 0);
    default: return cmd(IMP_ACT_NONE, 0);
  }
}

/* The arrows: stepping and actuator choice while simulating, scrubbing in replay. */
static imp_viewer_cmd arrow_action(int key, int replay) {
  switch (key) {
    case GLFW_KEY_RIGHT: return cmd(IMP_ACT_STEP, 0);
    case GLFW_KEY_LEFT: return cmd(replay ? IMP_ACT_STEP_BACK : IMP_ACT_NONE, 0);
    case GLFW_KEY_UP: return replay ? cmd(IMP_ACT_JUMP, 1) : cmd(IMP_ACT_ACTUATOR, -1);
    case GLFW_KEY_DOWN: return replay ? cmd(IMP_ACT_JUMP, -1) : cmd(IMP_ACT_ACTUATOR, 1);
    default: return cmd(IMP_ACT_NONE, 0);
  }
}

/* The key map: ctrl chords, groups, arrows, then the other keys. */
imp_viewer_cmd imp_viewer_key_action(int key, int mods, int replay) {
  if (mods & GLFW_MOD_CONTROL) return ctrl_action(key);
  if (key >= GLFW_KEY_0 && key <= GLFW_KEY_5) return cmd(IMP_ACT_GROUP, key - GLFW_KEY_0);
  if (key >= GLFW_KEY_RIGHT && key <= GLFW_KEY_UP) return arrow_action(key, replay);
  switch (key) {
    case GLFW_KEY_SPACE: return cmd(IMP_ACT_RUN_TOGGLE, 0);
    case GLFW_KEY_BACKSPACE: return cmd(IMP_ACT_RESET, 0);
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: return cmd(IMP_ACT_FASTER, 0);
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: return cmd(IMP_ACT_SLOWER, 0);
    case GLFW_KEY_RIGHT_BRACKET: return cmd(IMP_ACT_CAMERA_NEXT, 0);
    case GLFW_KEY_LEFT_BRACKET: return cmd(IMP_ACT_CAMERA_PREV, 0);
    case GLFW_KEY_ESCAPE: return cmd(IMP_ACT_CAMERA_FREE, 0);
    case GLFW_KEY_TAB: return cmd(IMP_ACT_PANELS, 0);
    case GLFW_KEY_F1: return cmd(IMP_ACT_HELP, 0);
    case GLFW_KEY_F2: return cmd(IMP_ACT_INFO, 0);
    case GLFW_KEY_PAGE_DOWN: return cmd(IMP_ACT_KEY_NEXT, 0);
    case GLFW_KEY_PAGE_UP: return cmd(IMP_ACT_KEY_PREV, 0);
    case GLFW_KEY_PERIOD: return cmd(IMP_ACT_CTRL, 1);
    case GLFW_KEY_COMMA: return cmd(IMP_ACT_CTRL, -1);
    case GLFW_KEY_SLASH: return cmd(IMP_ACT_CTRL_ZERO, 0);
    default: return letter_action(key);
  }
}

/* Free -> camera 0 -> ... -> camera ncam-1 -> free (reversed for dir < 0). */
void imp_viewer_cycle_camera(imp_camera* cam, int ncam, int dir) {
  if (ncam <= 0) return;
  if (cam->type != IMP_CAMERA_FIXED) {
    cam->type = IMP_CAMERA_FIXED;
    cam->fixedcamid = dir > 0 ? 0 : ncam - 1;
    return;
  }
  int next = cam->fixedcamid + (dir > 0 ? 1 : -1);
  if (next < 0 || next >= ncam)
    cam->type = IMP_CAMERA_FREE; /* the free camera sits between the last and the first */
  else
    cam->fixedcamid = next;
}

/* The next (previous) actuator, wrapping around. */
int imp_viewer_next_actuator(int current, int nu, int dir) {
  if (nu <= 0) return -1;
  int next = current + (dir > 0 ? 1 : -1);
  return ((next % nu) + nu) % nu;
}

/* One twentieth of the control range per press, or 0.1 when unlimited. */
double imp_viewer_nudge_ctrl(double ctrl, int limited, const double range[2], int dir) {
  int sign = dir > 0 ? 1 : -1;
  if (!limited || !(range[1] > range[0])) return ctrl + 0.1 * sign;
  double v = ctrl + sign * (range[1] - range[0]) / 20.0;
  return v < range[0] ? range[0] : v > range[1] ? range[1] : v;
}

/* Flip bit g of a group mask (groups 0..5 only). */
static int toggle_group(int mask, int g) {
  return g >= 0 && g <= 5 ? mask ^ (1 << g) : mask;
}

/* The pure commands change ui or cam here; the rest return 0 for the window. */
int imp_viewer_apply(imp_viewer_ui* ui, imp_camera* cam, int ncam, imp_viewer_cmd c) {
  switch (c.action) {
    case IMP_ACT_RUN_TOGGLE: ui->running = !ui->running; return 1;
    case IMP_ACT_FASTER: ui->speed = ui->speed > 0 ? ui->speed - 1 : 0; return 1;
    case IMP_ACT_SLOWER:
      ui->speed = ui->speed < IMP_VIEWER_NSPEED - 1 ? ui->speed + 1 : IMP_VIEWER_NSPEED - 1;
      return 1;
    case IMP_ACT_CAMERA_NEXT: imp_viewer_cycle_camera(cam, ncam, 1); return 1;
    case IMP_ACT_CAMERA_PREV: imp_viewer_cycle_camera(cam, ncam, -1); return 1;
    case IMP_ACT_CAMERA_FREE: cam->type = IMP_CAMERA_FREE; return 1;
    case IMP_ACT_PANELS: ui->panels = !ui->panels; return 1;
    case IMP_ACT_HELP: ui->help = !ui->help; return 1;
    case IMP_ACT_INFO: ui->info = !ui->info; return 1;
    case IMP_ACT_GROUP: ui->geomgroup = toggle_group(ui->geomgroup, c.arg); return 1;
    case IMP_ACT_VIS: ui->flags ^= (unsigned)c.arg; return 1;
    case IMP_ACT_MULTISAMPLE: ui->multisample = !ui->multisample; return 1;
    default: return 0;
  }
}

/* ---- mouse ---- */

/* MuJoCo's mouse: left orbits, right pans, middle zooms, ctrl perturbs a selection. */
int imp_viewer_drag_mode(int button, int mods, int selected_body) {
  int ctrl = (mods & GLFW_MOD_CONTROL) != 0;
  if (ctrl && selected_body > 0) {
    if (button == GLFW_MOUSE_BUTTON_LEFT) return IMP_DRAG_PERTURB_ROTATE;
    if (button == GLFW_MOUSE_BUTTON_RIGHT) return IMP_DRAG_PERTURB_MOVE;
  }
  switch (button) {
    case GLFW_MOUSE_BUTTON_LEFT: return IMP_DRAG_ORBIT;
    case GLFW_MOUSE_BUTTON_RIGHT: return (mods & GLFW_MOD_SHIFT) ? IMP_DRAG_PAN_H : IMP_DRAG_PAN;
    case GLFW_MOUSE_BUTTON_MIDDLE: return IMP_DRAG_ZOOM;
    default: return IMP_DRAG_NONE;
  }
}

/* The camera.h action of a drag, -1 when the drag is not the camera's. */
int imp_viewer_camera_action(int drag) {
  switch (drag) {
    case IMP_DRAG_ORBIT: return IMP_CAMERA_ORBIT;
    case IMP_DRAG_PAN: return IMP_CAMERA_PAN_V;
    case IMP_DRAG_PAN_H: return IMP_CAMERA_PAN_H;
    case IMP_DRAG_ZOOM: return IMP_CAMERA_ZOOM;
    default: return -1;
  }
}

/* Double left selects, double right centres, ctrl + double right tracks. */
int imp_viewer_click_action(int button, int mods) {
  if (button == GLFW_MOUSE_BUTTON_LEFT) return IMP_CLICK_SELECT;
  if (button == GLFW_MOUSE_BUTTON_RIGHT)
    return (mods & GLFW_MOD_CONTROL) ? IMP_CLICK_TRACK : IMP_CLICK_CENTER;
  return IMP_CLICK_NONE;
}

int imp_viewer_is_double_click(imp_viewer_press* last, int button, double t, double x, double y,
                               double slack) {
  int dbl = last->button == button && t - last->t <= 0.35 + slack && fabs(x - last->x) <= 5 &&
            fabs(y - last->y) <= 5;
  /* a third press starts a new pair instead of being a second double click */
  *last = dbl ? (imp_viewer_press){-1, 0, 0, 0} : (imp_viewer_press){button, t, x, y};
  return dbl;
}

/* ---- scripted input ---- */

static const struct { const char* name; int key; } key_names[] = {
    {"space", GLFW_KEY_SPACE},         {"right", GLFW_KEY_RIGHT},
    {"left", GLFW_KEY_LEFT},           {"up", GLFW_KEY_UP},
    {"down", GLFW_KEY_DOWN},           {"backspace", GLFW_KEY_BACKSPACE},
    {"tab", GLFW_KEY_TAB},             {"escape", GLFW_KEY_ESCAPE},
    {"f1", GLFW_KEY_F1},               {"f2", GLFW_KEY_F2},
    {"pageup", GLFW_KEY_PAGE_UP},      {"pagedown", GLFW_KEY_PAGE_DOWN},
    {"plus", GLFW_KEY_EQUAL},          {"minus", GLFW_KEY_MINUS},
    {"[", GLFW_KEY_LEFT_BRACKET},      {"]", GLFW_KEY_RIGHT_BRACKET},
    {"comma", GLFW_KEY_COMMA},         {"period", GLFW_KEY_PERIOD},
    {"slash", GLFW_KEY_SLASH},
};

/* The modifier bits of "ctrl+" and "shift+" prefixes; name moves past them. */
static int strip_modifiers(const char** name) {
  int mods = 0;
  for (;;) {
    if (strncmp(*name, "ctrl+", 5) == 0) mods |= GLFW_MOD_CONTROL, *name += 5;
    else if (strncmp(*name, "shift+", 6) == 0) mods |= GLFW_MOD_SHIFT, *name += 6;
    else return mods;
  }
}

/* A key name of the script (or the help) -> GLFW key code and modifiers. */
int imp_viewer_parse_key(const char* name, int* key, int* mods) {
  *mods = strip_modifiers(&name);
  if (name[0] && !name[1]) { /* one letter or digit: GLFW codes are their upper-case ASCII */
    char c = name[0];
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return *key = c, 0;
  }
  for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
    if (strcmp(name, key_names[i].name) == 0) return *key = key_names[i].key, 0;
  return -1;
}

/* "[ctrl+][shift+]left|right|middle" -> GLFW button and mods; 0 or -1. */
static int parse_button(const char* name, int* button, int* mods) {
  const char* b = name;
  *mods = strip_modifiers(&b);
  if (strcmp(b, "left") == 0) *button = GLFW_MOUSE_BUTTON_LEFT;
  else if (strcmp(b, "right") == 0) *button = GLFW_MOUSE_BUTTON_RIGHT;
  else if (strcmp(b, "middle") == 0) *button = GLFW_MOUSE_BUTTON_MIDDLE;
  else return -1;
  return 0;
}

/* The action part of an event (after "FRAME:"); 0 or -1. */
static int parse_action(const char* what, imp_viewer_event* e) {
  char word[16], arg[64];
  int used = 0;
  if (strncmp(what, "drop ", 5) == 0 && what[5]) {
    e->kind = IMP_EVENT_DROP;
    snprintf(e->path, sizeof e->path, "%s", what + 5);
    return 0;
  }
  if (strncmp(what, "key ", 4) == 0) {
    e->kind = IMP_EVENT_KEY;
    return imp_viewer_parse_key(what + 4, &e->key, &e->mods);
  }
  if (sscanf(what, "move %lf %lf %n", &e->x, &e->y, &used) == 2 && !what[used]) {
    e->kind = IMP_EVENT_MOVE;
    return 0;
  }
  if (sscanf(what, "scroll %lf %lf %d %n", &e->x, &e->y, &e->key, &used) == 3 && !what[used]) {
    e->kind = IMP_EVENT_SCROLL;
    return 0;
  }
  if (sscanf(what, "%15s %63s %n", word, arg, &used) < 2) return -1;
  if (strcmp(word, "release") == 0 && !what[used]) {
    e->kind = IMP_EVENT_RELEASE;
    return parse_button(arg, &e->key, &e->mods);
  }
  if (sscanf(what + used, "%lf %lf %n", &e->x, &e->y, &used) < 2) return -1;
  if (strcmp(word, "press") == 0) e->kind = IMP_EVENT_PRESS;
  else if (strcmp(word, "dclick") == 0) e->kind = IMP_EVENT_DCLICK;
  else return -1;
  return parse_button(arg, &e->key, &e->mods);
}

/* One "FRAME:ACTION" of length n into e. */
static int parse_event(const char* s, size_t n, imp_viewer_event* e, char* err, int errsz) {
  char item[1200];
  snprintf(item, sizeof item, "%.*s", (int)n, s);
  char* colon = strchr(item, ':');
  char* end = NULL;
  memset(e, 0, sizeof *e);
  e->frame = strtoll(item, &end, 10);
  if (!colon || end != colon || e->frame < 0) {
    snprintf(err, errsz, "script: '%s' is not FRAME:ACTION", item);
    return -1;
  }
  if (parse_action(colon + 1, e) == 0) return 0;
  snprintf(err, errsz, "script: '%s': unknown action, key or button", item);
  return -1;
}

/* Split on ';' and parse each event, checking the frames never decrease. */
int imp_viewer_parse_script(const char* text, imp_viewer_event* ev, int max, char* err, int errsz) {
  int n = 0;
  for (const char* s = text; *s;) {
    size_t len = strcspn(s, ";");
    if (len > 0) {
      if (n == max) {
        snprintf(err, errsz, "script: more than %d events", max);
        return -1;
      }
      if (parse_event(s, len, &ev[n], err, errsz)) return -1;
      if (n > 0 && ev[n].frame < ev[n - 1].frame) {
        snprintf(err, errsz, "script: frames must not decrease (%lld after %lld)", ev[n].frame,
                 ev[n - 1].frame);
        return -1;
      }
      n++;
    }
    s += len + (s[len] == ';');
  }
  return n;
}
