/* The viewer's input logic as pure functions: a key or mouse event and the
 * viewer's state in, the new state (or an action for the window to carry
 * out) back. No window, no OpenGL: test/apps/viewer/test_viewer_input.c drives every
 * binding the way a user would.
 *
 * Key codes and modifier bits are GLFW's (GLFW_KEY_*, GLFW_MOD_*), used as
 * plain numbers; nothing here calls GLFW.
 *
 * Promises: imp_viewer_key_action is the one key map (the help panel lists
 * the same bindings); the simulation speed never exceeds real time (100%);
 * camera cycling visits the model's cameras in order and then the free
 * camera; no function allocates. */
#ifndef IMPETUS_VIEWER_INPUT_H
#define IMPETUS_VIEWER_INPUT_H

#include "camera.h"

/* What a key asks for. The pure ones change imp_viewer_ui in
   imp_viewer_apply; the others (step, reset, reload ...) need the engine
   or the window, and the window carries them out. */
typedef enum imp_viewer_action {
  IMP_ACT_NONE = 0,
  IMP_ACT_RUN_TOGGLE,  /* space */
  IMP_ACT_STEP,        /* right arrow: one step (replay: one row forward) */
  IMP_ACT_STEP_BACK,   /* left arrow: replay only, one row back */
  IMP_ACT_JUMP,        /* up/down arrows in replay: arg = +1 / -1 second */
  IMP_ACT_RESET,       /* backspace */
  IMP_ACT_RELOAD,      /* ctrl + L */
  IMP_ACT_FASTER,      /* + (=, keypad +) */
  IMP_ACT_SLOWER,      /* - */
  IMP_ACT_CAMERA_NEXT, /* ] */
  IMP_ACT_CAMERA_PREV, /* [ */
  IMP_ACT_CAMERA_FREE, /* esc */
  IMP_ACT_PANELS,      /* tab */
  IMP_ACT_HELP,        /* F1 */
  IMP_ACT_INFO,        /* F2 */
  IMP_ACT_GROUP,       /* 0-5: arg = geom group */
  IMP_ACT_VIS,         /* C F W T J M E H: arg = imp_vis_flag bit (H: shadows) */
  IMP_ACT_SCREENSHOT,  /* ctrl + P */
  IMP_ACT_KEY_NEXT,    /* page down: load the next keyframe */
  IMP_ACT_KEY_PREV,    /* page up */
  IMP_ACT_SOLVER_NEXT, /* S: the next contact solver, live */
  IMP_ACT_RECORD,      /* R: start / stop recording the trajectory */
  IMP_ACT_ACTUATOR,    /* up/down arrows (view): arg = +1 / -1, select an actuator */
  IMP_ACT_CTRL,        /* . and , : arg = +1 / -1, nudge the selected actuator's ctrl */
  IMP_ACT_CTRL_ZERO,   /* / : the selected actuator's ctrl to 0 (clamped into range) */
  IMP_ACT_QUIT,        /* ctrl + Q */
  IMP_ACT_MULTISAMPLE, /* A: multisampling (antialiasing) on / off */
  IMP_ACT_CTRL_ZERO_ALL, /* Z: every actuator's ctrl to 0 (clamped into range) */
} imp_viewer_action;

typedef struct imp_viewer_cmd {
  int action; /* imp_viewer_action */
  int arg;
} imp_viewer_cmd;

/* The slow-motion levels, real time first: 100, 50, 20, 10, 5, 2, 1 %. */
#define IMP_VIEWER_NSPEED 7
double imp_viewer_speed(int index); /* the fraction of real time of level index (clamped) */

/* The viewer's own state, everything that is not the model, the data or
   the GL objects. */
typedef struct imp_viewer_ui {
  int running;      /* 1: the simulation advances in real time */
  int speed;        /* slow-motion level, 0 = real time */
  int panels;       /* 0: Tab hid every panel */
  int help, info;   /* F1, F2 */
  int geomgroup;    /* bit g: geom group g shown */
  unsigned flags;   /* imp_vis_flag bits */
  int actuator;     /* the actuator the keys control, -1 when the model has none */
  int key;          /* the keyframe loaded last, -1 none */
  int replay;       /* 1: playing a trajectory (arrow keys scrub) */
  int multisample;  /* 1: edges smoothed by the window's samples (A toggles) */
  int joint_first, actuator_first; /* the state panel's lists scroll: their first rows */
  int follow_actuator;             /* 1: scroll the actuators to the selected one */
} imp_viewer_ui;

/* The state a viewer opens with: running, real time, panels and info on,
   help off, multisampling on, MuJoCo's default groups and overlays (render
   opt defaults). */
void imp_viewer_ui_default(imp_viewer_ui* ui, int geomgroup, unsigned flags, int nu);

/* The key map: key and mods (GLFW codes and bits) -> a command. replay
   changes the arrows: left/right scrub one row, up/down one second. */
imp_viewer_cmd imp_viewer_key_action(int key, int mods, int replay);

/* Carry out the pure part of c on ui and cam (ncam: the model's cameras).
   Returns 1 when c changed something here, 0 when the window must act
   (step, reset, reload, screenshot, keyframe, solver, record, ctrl, quit). */
int imp_viewer_apply(imp_viewer_ui* ui, imp_camera* cam, int ncam, imp_viewer_cmd c);

/* The camera after ] (dir +1) or [ (dir -1): the free or a tracking camera
   goes to the model's first (last) camera, the last (first) back to the free
   camera; without model cameras it stays. */
void imp_viewer_cycle_camera(imp_camera* cam, int ncam, int dir);

/* The selected actuator after up (+1) / down (-1), wrapping; -1 when nu = 0. */
int imp_viewer_next_actuator(int current, int nu, int dir);

/* ctrl nudged by one step (dir +1 / -1): 1/20 of the range when the
   actuator is control-limited (and clamped into it), else 0.1. */
double imp_viewer_nudge_ctrl(double ctrl, int limited, const double range[2], int dir);

/* ---- mouse ---- */

typedef enum imp_viewer_drag {
  IMP_DRAG_NONE = 0,
  IMP_DRAG_ORBIT,          /* left */
  IMP_DRAG_PAN,            /* right: in the image plane */
  IMP_DRAG_PAN_H,          /* shift + right: in the horizontal plane */
  IMP_DRAG_ZOOM,           /* middle */
  IMP_DRAG_PERTURB_ROTATE, /* ctrl + left with a body selected */
  IMP_DRAG_PERTURB_MOVE,   /* ctrl + right with a body selected */
} imp_viewer_drag;

/* GLFW mouse buttons: 0 left, 1 right, 2 middle. */
int imp_viewer_drag_mode(int button, int mods, int selected_body);

/* The camera.h action of a camera drag mode, -1 for the others. */
int imp_viewer_camera_action(int drag);

typedef enum imp_viewer_click {
  IMP_CLICK_NONE = 0,
  IMP_CLICK_SELECT, /* double left: select the body under the mouse (none: unselect) */
  IMP_CLICK_CENTER, /* double right: centre the camera on the point */
  IMP_CLICK_TRACK,  /* ctrl + double right: track the body under the mouse */
} imp_viewer_click;

/* What a double click of button with mods does. */
int imp_viewer_click_action(int button, int mods);

/* A press is the second of a double click when it comes within 0.35 s and
   5 pixels of the previous press of the same button. Events are timed when
   the frame loop polls them, so slack (the last frame's duration) widens
   the window: at 3 FPS in software rendering two quick clicks land in
   different frames. */
typedef struct imp_viewer_press {
  int button; /* -1: none yet */
  double t, x, y;
} imp_viewer_press;
int imp_viewer_is_double_click(imp_viewer_press* last, int button, double t, double x, double y,
                               double slack);

/* ---- scripted input (--script, for tests and demos) ---- */

/* A key by name: a letter or digit, space, right, left, up, down,
   backspace, tab, escape, f1, f2, pageup, pagedown, plus, minus, [, ],
   comma, period, slash; prefixed by ctrl+ and/or shift+. 0, or -1 when
   the name is unknown. */
int imp_viewer_parse_key(const char* name, int* key, int* mods);

/* One scripted event at a frame: what a user's keyboard, mouse or file
   manager would send the window. */
typedef enum imp_viewer_event_kind {
  IMP_EVENT_KEY = 0,  /* key NAME */
  IMP_EVENT_DROP,     /* drop PATH */
  IMP_EVENT_PRESS,    /* press BUTTON X Y (BUTTON: [ctrl+][shift+]left|right|middle) */
  IMP_EVENT_MOVE,     /* move X Y */
  IMP_EVENT_RELEASE,  /* release BUTTON */
  IMP_EVENT_DCLICK,   /* dclick BUTTON X Y: two presses and releases */
  IMP_EVENT_SCROLL,   /* scroll X Y N: the wheel N notches (> 0 up) at X Y */
} imp_viewer_event_kind;

typedef struct imp_viewer_event {
  long long frame;
  int kind;        /* imp_viewer_event_kind */
  int key, mods;   /* key; or the mouse button (GLFW_MOUSE_BUTTON_*); scroll: notches */
  double x, y;     /* mouse: window coordinates, from the top-left */
  char path[1024]; /* drop: the file */
} imp_viewer_event;

/* Parse "FRAME:ACTION;FRAME:ACTION;..." (ACTION as in imp_viewer_event_kind)
   into at most max events, in frame order. Returns the count, or -1 with a message in err. */
int imp_viewer_parse_script(const char* text, imp_viewer_event* ev, int max, char* err, int errsz);

#endif
