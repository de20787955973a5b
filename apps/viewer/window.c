/* The viewer's window: GLFW setup, input callbacks turned into input.c's
   commands, and the frame loop (pace the simulation or the replay, draw,
   panels, screenshots). Model lifecycle and engine commands: session.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer_internal.h"

/* Under AddressSanitizer, leaks are checked before glfwTerminate unloads
   Mesa's GL driver: after the unload LeakSanitizer finds the driver's own
   allocations through an unknown module and fails every run. Checked
   earlier, the driver's memory is still reachable and ours is all freed. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IMP_VIEWER_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define IMP_VIEWER_LSAN 1
#endif
#ifdef IMP_VIEWER_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#define IMP_VIEWER_STEP_BUDGET (1.0 / 30.0) /* wall seconds of stepping per frame at most */
#define IMP_VIEWER_SCRIPT_DT (1.0 / 60.0)   /* wall time a scripted frame stands for */

/* The viewer a GLFW callback belongs to. */
static imp_viewer* from(GLFWwindow* w) {
  return (imp_viewer*)glfwGetWindowUserPointer(w);
}

/* Keys whose auto-repeat makes sense: stepping, scrubbing, nudging. */
static int repeatable(int action) {
  return action == IMP_ACT_STEP || action == IMP_ACT_STEP_BACK || action == IMP_ACT_JUMP ||
         action == IMP_ACT_CTRL;
}

/* A key press (repeat: held down) from the keyboard or the script. */
static void press_key(imp_viewer* v, int key, int mods, int repeat) {
  imp_viewer_cmd c = imp_viewer_key_action(key, mods, v->o->traj != NULL);
  if (c.action == IMP_ACT_NONE || (repeat && !repeatable(c.action))) return;
  if (!imp_viewer_apply(&v->ui, &v->cam, v->m->ncam, c)) imp_viewer_command(v, c);
}

/* GLFW key callback: presses and repeats, not releases. */
static void on_key(GLFWwindow* w, int key, int scancode, int action, int mods) {
  (void)scancode;
  if (action != GLFW_RELEASE) press_key(from(w), key, mods, action == GLFW_REPEAT);
}

/* Window coordinates -> framebuffer pixels (they differ on HiDPI screens). */
static void to_pixels(GLFWwindow* w, double x, double y, double* px, double* py) {
  int ww, wh, fw, fh;
  glfwGetWindowSize(w, &ww, &wh);
  glfwGetFramebufferSize(w, &fw, &fh);
  *px = ww > 0 ? x * fw / ww : x;
  *py = wh > 0 ? y * fh / wh : y;
}

/* The body-frame point of a world point on body b. */
static void to_local(const imp_data* d, int b, const double p[3], double out[3]) {
  const double* R = d->xmat + 9 * b;
  double r[3] = {p[0] - d->xpos[3 * b], p[1] - d->xpos[3 * b + 1], p[2] - d->xpos[3 * b + 2]};
  for (int i = 0; i < 3; i++) out[i] = R[i] * r[0] + R[3 + i] * r[1] + R[6 + i] * r[2];
}

/* Pick what is under the mouse and select, centre on or track it. */
static void double_click(imp_viewer* v, int button, int mods, double x, double y) {
  double px, py, point[3];
  int geom = -1;
  to_pixels(v->win, x, y, &px, &py);
  int body = imp_render_select(v->r, v->m, v->d, px, py, &geom, point);
  switch (imp_viewer_click_action(button, mods)) {
    case IMP_CLICK_SELECT:
      v->selected = body;
      if (body > 0) to_local(v->d, body, point, v->sel_local);
      break;
    case IMP_CLICK_CENTER:
      if (geom >= 0) v->cam.type = IMP_CAMERA_FREE, imp_camera_lookat(&v->cam, point);
      break;
    case IMP_CLICK_TRACK:
      if (body > 0) v->cam.type = IMP_CAMERA_TRACKING, v->cam.trackbodyid = body;
      break;
    default: break;
  }
}

/* Show the row at fraction (pixel px) of the scrub bar, clamped to its ends. */
static void scrub_to(imp_viewer* v, double px) {
  const imp_trajectory* t = v->o->traj;
  double f = (px - v->bar_x0) / (v->bar_x1 - v->bar_x0);
  f = f < 0 ? 0 : f > 1 ? 1 : f;
  imp_viewer_show_row(v, (int)lround(f * (t->nrow - 1)));
  v->replay_clock = imp_trajectory_clock(v->o->traj, v->row);
}

/* A press on the replay's scrub bar jumps there and starts scrubbing;
   returns 1 when it did. */
static int scrub_click(imp_viewer* v, double x, double y) {
  double px, py;
  to_pixels(v->win, x, y, &px, &py);
  if (!v->o->traj || !(v->bar_x1 > v->bar_x0) || px < v->bar_x0 || px > v->bar_x1 ||
      py < v->bar_y0 || py > v->bar_y1)
    return 0;
  scrub_to(v, px);
  v->scrubbing = 1;
  return 1;
}

/* The dragged slider's actuator takes the value at window column x. */
static void slide_to(imp_viewer* v, double x, double y) {
  double px, py, range[2];
  to_pixels(v->win, x, y, &px, &py);
  imp_viewer_slider_range(v->m, v->slider, range);
  v->d->ctrl[v->slider] = imp_viewer_slider_value(&v->state_geom, px, range);
}

/* A press on an actuator's ctrl slider selects the actuator, sets its ctrl
   there and holds the slider until release (MuJoCo's simulate); 1 when it did. */
static int slider_click(imp_viewer* v, double x, double y) {
  double px, py;
  to_pixels(v->win, x, y, &px, &py);
  int a = v->o->traj || !v->ui.panels ? -1 : imp_viewer_slider_at(&v->state, &v->state_geom, px, py);
  if (a < 0 || a >= v->m->nu) return 0;
  v->slider = a;
  v->ui.actuator = a;
  slide_to(v, x, y);
  return 1;
}

/* Ctrl + drag on the selected body: grab it where it was picked. */
static void begin_perturb(imp_viewer* v, int rotate) {
  double p[3];
  imp_viewer_perturb tmp = {.spring = {.bodyid = v->selected}};
  memcpy(tmp.spring.localpos, v->sel_local, sizeof v->sel_local);
  imp_viewer_perturb_point(v->d, &tmp, p);
  imp_viewer_perturb_begin(v->m, v->d, v->selected, p, rotate, &v->pert);
}

/* A mouse button pressed or released at window point (x, y), from GLFW or the script. */
static void mouse_button(imp_viewer* v, int button, int action, int mods, double x, double y) {
  if (action == GLFW_RELEASE) {
    v->drag = IMP_DRAG_NONE;
    v->scrubbing = 0;
    v->slider = -1;
    imp_viewer_perturb_end(&v->pert);
    return;
  }
  v->mx = x, v->my = y;
  if (button == GLFW_MOUSE_BUTTON_LEFT && scrub_click(v, x, y)) return;
  if (button == GLFW_MOUSE_BUTTON_LEFT && slider_click(v, x, y)) return;
  if (imp_viewer_is_double_click(&v->press, button, glfwGetTime(), x, y, v->frame_seconds)) {
    double_click(v, button, mods, x, y);
    return;
  }
  v->drag = imp_viewer_drag_mode(button, mods, v->o->traj ? -1 : v->selected);
  if (v->drag == IMP_DRAG_PERTURB_ROTATE || v->drag == IMP_DRAG_PERTURB_MOVE)
    begin_perturb(v, v->drag == IMP_DRAG_PERTURB_ROTATE);
}

/* GLFW mouse button callback, at the cursor's position. */
static void on_button(GLFWwindow* w, int button, int action, int mods) {
  double x, y;
  glfwGetCursorPos(w, &x, &y);
  mouse_button(from(w), button, action, mods, x, y);
}

/* The mouse moved to window point (x, y): drag the camera, the spring or the play head. */
static void mouse_move(imp_viewer* v, double x, double y) {
  GLFWwindow* w = v->win;
  int wh, ww;
  glfwGetWindowSize(w, &ww, &wh);
  double dx = (x - v->mx) / (wh > 0 ? wh : 1), dy = (y - v->my) / (wh > 0 ? wh : 1);
  v->mx = x, v->my = y;
  if (v->scrubbing && v->bar_x1 > v->bar_x0) {
    double px, py;
    to_pixels(w, x, y, &px, &py);
    scrub_to(v, px);
  }
  if (v->slider >= 0 && v->slider < v->m->nu) slide_to(v, x, y);
  if (v->drag == IMP_DRAG_NONE) return;
  const imp_camera_pose* pose = imp_render_pose(v->r);
  int cam_action = imp_viewer_camera_action(v->drag);
  if (cam_action >= 0)
    imp_camera_move(&v->cam, cam_action, dx, dy, pose);
  else
    imp_viewer_perturb_drag(&v->pert, pose, dx, dy);
}

/* GLFW cursor callback. */
static void on_cursor(GLFWwindow* w, double x, double y) {
  mouse_move(from(w), x, y);
}

/* The wheel at window point (x, y): over the state panel's joints or
   actuators it scrolls that list, elsewhere it zooms, 0.05 of the distance
   a notch (camera.h). */
static void wheel(imp_viewer* v, double x, double y, double notches) {
  double px, py;
  to_pixels(v->win, x, y, &px, &py);
  int line = v->ui.panels ? imp_viewer_panel_line(&v->state_geom, v->state.nlines, px, py) : -1;
  /* a touchpad sends fractions of a notch: a row once they add up to one */
  int rows = (int)lround(notches);
  if (line >= 0) {
    if (rows) imp_viewer_state_scroll(&v->ui, v->m, &v->state, line, rows);
    return;
  }
  imp_camera_move(&v->cam, IMP_CAMERA_ZOOM, 0, 0.05 * notches, imp_render_pose(v->r));
}

/* GLFW scroll callback, at the cursor's position. */
static void on_scroll(GLFWwindow* w, double xoff, double yoff) {
  (void)xoff;
  double x, y;
  glfwGetCursorPos(w, &x, &y);
  wheel(from(w), x, y, yoff);
}

/* GLFW drop callback: remember the first file for the frame loop. */
static void on_drop(GLFWwindow* w, int count, const char** paths) {
  /* loading makes GL objects: done by the frame loop, not inside the callback */
  if (count > 0) snprintf(from(w)->drop, sizeof from(w)->drop, "%s", paths[0]);
}

/* An OpenGL 3.3 core window, multisampled o->msaa times (0: not at all;
   software GL pays for every sample), its context current. */
static GLFWwindow* open_window(const imp_viewer_opt* o) {
  const char* cmd = o->traj ? "replay" : "view";
  if (!glfwInit()) {
    const char* disp = getenv("DISPLAY");
    const char* wl = getenv("WAYLAND_DISPLAY");
    if ((disp && disp[0]) || (wl && wl[0]))
      fprintf(stderr, "impetus %s: cannot open a window on the display '%s'\n", cmd,
              disp && disp[0] ? disp : wl);
    else
      fprintf(stderr, "impetus %s: cannot open a window: no display (DISPLAY is not set)\n", cmd);
    fprintf(stderr,
            "impetus %s: to run without a screen use a virtual one, `xvfb-run -a impetus %s ...` "
            "(Debian package xvfb), or draw PNGs headless with `impetus render MODEL.xml --steps "
            "N --out DIR`\n",
            cmd, cmd);
    return NULL;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, o->msaa);
  GLFWwindow* w = glfwCreateWindow(o->width, o->height, "impetus", NULL, NULL);
  if (!w) {
    fprintf(stderr, "impetus: cannot make an OpenGL 3.3 core window\n");
    glfwTerminate();
    return NULL;
  }
  glfwMakeContextCurrent(w);
  glfwSwapInterval(o->frames > 0 ? 0 : 1); /* scripted runs as fast as it can */
  return w;
}

/* Route the window's input to v. */
static void install_callbacks(imp_viewer* v) {
  glfwSetWindowUserPointer(v->win, v);
  glfwSetKeyCallback(v->win, on_key);
  glfwSetMouseButtonCallback(v->win, on_button);
  glfwSetCursorPosCallback(v->win, on_cursor);
  glfwSetScrollCallback(v->win, on_scroll);
  glfwSetDropCallback(v->win, on_drop);
}

/* ---- the frame loop ---- */

/* Simulate in real time: the steps the pacer asks for, within the budget. */
static double advance_simulation(imp_viewer* v, double wall_dt) {
  double t0 = v->d->time, start = glfwGetTime();
  int n = imp_viewer_steps_due(&v->pacer, wall_dt, imp_viewer_speed(v->ui.speed),
                               v->m->opt.timestep, 10000);
  for (int i = 0; i < n; i++) {
    imp_viewer_step(v);
    if (v->o->frames <= 0 && glfwGetTime() - start > IMP_VIEWER_STEP_BUDGET) {
      v->pacer.debt = 0; /* slower than real time: show what is achieved */
      break;
    }
  }
  return v->d->time - t0;
}

/* Replay: move the play head by wall time x speed; pause at the end. */
static double advance_replay(imp_viewer* v, double wall_dt) {
  const imp_trajectory* t = v->o->traj;
  double advance = fmin(wall_dt, IMP_VIEWER_MAX_FRAME) * imp_viewer_speed(v->ui.speed);
  v->replay_clock += advance;
  imp_viewer_show_row(v, imp_trajectory_row_at(t, v->replay_clock));
  if (v->row == t->nrow - 1) v->ui.running = 0;
  return advance; /* the playback clock's, not the recorded time's (resets jump back) */
}

/* Start the replay again when space is pressed at its end. */
static void rewind_finished_replay(imp_viewer* v) {
  const imp_trajectory* t = v->o->traj;
  if (t && v->ui.running && v->row == t->nrow - 1) {
    imp_viewer_show_row(v, 0);
    v->replay_clock = imp_trajectory_clock(v->o->traj, v->row);
  }
}

/* The renderer's options from the viewer's state. */
static void sync_render_opt(imp_viewer* v) {
  v->opt.geomgroup = v->ui.geomgroup;
  v->opt.flags = v->ui.flags;
  v->opt.multisample = v->ui.multisample;
  v->opt.selected_body = v->selected;
  v->opt.perturb = v->pert.spring;
}

/* The replay's scrub bar: a track of dashes across the middle 40% of the
   top edge (clear of the corner panels) and a marker at the play head;
   a click on it jumps there (scrub_click). */
static void draw_scrub_bar(imp_viewer* v, int w) {
  static const float grey[3] = {0.6f, 0.6f, 0.6f}, white[3] = {1, 1, 1};
  char track[401];
  double dash = imp_render_text_width(v->r, "-"), lh = imp_render_line_height(v->r);
  int n = dash > 0 ? (int)(0.4 * w / dash) : 0;
  n = n < 2 ? 2 : n > 400 ? 400 : n;
  memset(track, '-', (size_t)n);
  track[n] = '\0';
  double tw = imp_render_text_width(v->r, track), x0 = 0.5 * (w - tw), y = 0.5 * lh;
  const imp_trajectory* t = v->o->traj;
  double f = t->nrow > 1 ? (double)v->row / (t->nrow - 1) : 0;
  imp_render_text(v->r, x0, y, track, grey);
  imp_render_text(v->r, x0 + f * tw - 0.5 * imp_render_text_width(v->r, "|"), y, "|", white);
  v->bar_x0 = x0, v->bar_x1 = x0 + tw, v->bar_y0 = 0, v->bar_y1 = y + 1.5 * lh;
}

/* Lines of text in a panel. */
static int count_lines(const char* s) {
  int n = 1;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* The state panel at the top right, as tall as half the window (at least
   4 lines), its lines and pixels kept for the wheel and the sliders. */
static void draw_state_panel(imp_viewer* v, int h, imp_viewer_panel* p) {
  double lh = imp_render_line_height(v->r), box[4], top, rx;
  int lines = (int)(h / lh) / 2;
  lines = lines > 4 ? lines : 4;
  imp_viewer_state_arrange(v->m, &v->ui, lines, &v->state);
  imp_viewer_state_commit(&v->ui, &v->state);
  imp_viewer_state_panel(p, v->m, v->d, &v->ui, lines);
  if (!p->left[0]) return;
  imp_render_overlay(v->r, IMP_CORNER_TOPRIGHT, p->left, p->right);
  imp_render_overlay_box(v->r, IMP_CORNER_TOPRIGHT, p->left, p->right, box, &top, &rx);
  /* the track: between the bracket and the last dash of "[---...---]" */
  char track[IMP_VIEWER_TRACK + 2] = "[";
  memset(track + 1, '-', IMP_VIEWER_TRACK);
  track[IMP_VIEWER_TRACK + 1] = '\0';
  double dash = imp_render_text_width(v->r, "-");
  v->state_geom = (imp_viewer_panel_geom){box[0], box[1], box[2], box[3], top, lh,
                                          rx + imp_render_text_width(v->r, "[") + 0.5 * dash,
                                          rx + imp_render_text_width(v->r, track) - 0.5 * dash};
}

/* Help (top left), info (bottom left), state (top right), messages. */
static void draw_panels(imp_viewer* v, int h) {
  static imp_viewer_panel p;
  double lh = imp_render_line_height(v->r);
  int help_lines = 0;
  double recorded[4];
  int has_recorded = v->o->traj && imp_trajectory_solver(v->o->traj, v->row, recorded);
  imp_viewer_status st = {v->meter.fps, v->meter.rtf, v->rec ? v->rec_path : NULL,
                          v->o->traj ? v->row : 0, v->o->traj ? v->o->traj->nrow : 0,
                          has_recorded ? recorded : NULL, v->o->msaa};
  if (v->ui.panels && v->ui.help) {
    imp_viewer_help_panel(&p, v->o->traj != NULL);
    imp_render_overlay(v->r, IMP_CORNER_TOPLEFT, p.left, p.right);
    help_lines = count_lines(p.left);
  }
  if (v->ui.panels && v->ui.info) {
    imp_viewer_info_panel(&p, v->m, v->d, &v->ui, &v->cam, &st);
    /* both on the left: in a short window help wins until F1 closes it */
    if ((help_lines + count_lines(p.left) + 2) * lh <= h)
      imp_render_overlay(v->r, IMP_CORNER_BOTTOMLEFT, p.left, p.right);
  }
  v->state_geom = (imp_viewer_panel_geom){0};
  if (v->ui.panels) draw_state_panel(v, h, &p);
  if (v->message[0] && glfwGetTime() < v->message_until) {
    imp_viewer_wrap(v->message, 70, p.left, sizeof p.left);
    imp_render_overlay(v->r, IMP_CORNER_BOTTOMRIGHT, p.left, NULL);
  }
}

/* Scene, panels, scrub bar, then a requested screenshot of exactly that. */
static void draw(imp_viewer* v) {
  int w, h;
  glfwGetFramebufferSize(v->win, &w, &h);
  if (w <= 0 || h <= 0) return; /* minimized */
  sync_render_opt(v);
  imp_render_frame(v->r, v->m, v->d, &v->cam, &v->opt, w, h);
  draw_panels(v, h);
  v->bar_x0 = v->bar_x1 = 0; /* no bar drawn, none to click */
  if (v->o->traj && v->ui.panels) draw_scrub_bar(v, w);
  if (v->want_screenshot) { /* Ctrl+P: the image just drawn, panels included */
    v->want_screenshot = 0;
    imp_viewer_screenshot_stamped(v);
  }
}

/* The script's events of frame n, as if the user pressed or dropped them. */
static void play_script(imp_viewer* v, long long n) {
  while (v->next_event < v->o->nscript && v->o->script[v->next_event].frame <= n) {
    const imp_viewer_event* e = &v->o->script[v->next_event++];
    switch (e->kind) {
      case IMP_EVENT_KEY: press_key(v, e->key, e->mods, 0); break;
      case IMP_EVENT_DROP: snprintf(v->drop, sizeof v->drop, "%s", e->path); break;
      case IMP_EVENT_MOVE: mouse_move(v, e->x, e->y); break;
      case IMP_EVENT_SCROLL: wheel(v, e->x, e->y, e->key); break;
      case IMP_EVENT_RELEASE: mouse_button(v, e->key, GLFW_RELEASE, e->mods, v->mx, v->my); break;
      case IMP_EVENT_PRESS: mouse_button(v, e->key, GLFW_PRESS, e->mods, e->x, e->y); break;
      case IMP_EVENT_DCLICK:
        for (int i = 0; i < 2; i++) {
          mouse_button(v, e->key, GLFW_PRESS, e->mods, e->x, e->y);
          mouse_button(v, e->key, GLFW_RELEASE, e->mods, e->x, e->y);
        }
        break;
      default: break;
    }
  }
}

/* One frame (number n): events, file changes, the simulation or replay, drawing. */
static void frame(imp_viewer* v, long long n, double* last) {
  glfwPollEvents();
  play_script(v, n);
  if (v->drop[0]) {
    char path[sizeof v->drop];
    memcpy(path, v->drop, sizeof path);
    v->drop[0] = '\0';
    if (imp_viewer_load(v, path, 0) == 0) imp_viewer_say(v, 0, "opened %s", path);
  }
  double now = glfwGetTime();
  imp_viewer_poll_file(v, now);
  double wall_dt = v->o->frames > 0 ? IMP_VIEWER_SCRIPT_DT : now - *last;
  v->frame_seconds = now - *last;
  *last = now;
  double sim_dt = 0;
  if (v->ui.running) {
    rewind_finished_replay(v);
    sim_dt = v->o->traj ? advance_replay(v, wall_dt) : advance_simulation(v, wall_dt);
  } else if (!v->o->traj) {
    imp_viewer_perturb_place(v->m, v->d, &v->pert); /* paused: the mouse moves the body itself */
  }
  draw(v);
  glfwSwapBuffers(v->win);
  imp_viewer_meter_frame(&v->meter, v->o->frames > 0 ? glfwGetTime() - now : wall_dt, sim_dt);
}

/* Scripted mode's last act: the screenshot and a summary on stdout. */
static int finish_script(imp_viewer* v, long long frames, double seconds) {
  int w, h, st = 0;
  glfwGetFramebufferSize(v->win, &w, &h);
  if (v->o->screenshot) {
    imp_render_frame(v->r, v->m, v->d, &v->cam, &v->opt, w, h);
    draw_panels(v, h);
    st = imp_viewer_screenshot(v, v->o->screenshot) ? 1 : 0;
  }
  printf("frames: %lld\nsize: %dx%d\ntime: %.6g\nfps: %.1f\n", frames, w, h, v->d->time,
         seconds > 0 ? frames / seconds : 0.0);
  const char* sel = v->selected > 0 ? imp_id2name(v->m, IMP_OBJ_BODY, v->selected) : NULL;
  printf("selected: %s\n", sel && sel[0] ? sel : v->selected > 0 ? "(unnamed)" : "none");
  if (v->o->screenshot && !st) printf("screenshot: %s\n", v->o->screenshot);
  if (!v->o->traj)
    printf("steps: %lld\nsteps_not_converged: %lld\n", v->nsteps, v->not_converged);
  double rec[4];
  if (v->o->traj) printf("row: %d\n", v->row);
  if (v->o->traj && imp_trajectory_solver(v->o->traj, v->row, rec))
    printf("recorded_ncon: %.0f\nrecorded_solver_iter: %.0f\nrecorded_solver_residual: %.17g\n",
           rec[0], rec[2], rec[3]);
  return st;
}

/* Window, model, the frame loop until closed or the script is done. */
int imp_viewer_run(imp_model* m, const imp_viewer_opt* o) {
  static imp_viewer v; /* large (paths, messages): not on the stack */
  memset(&v, 0, sizeof v);
  v.o = o;
  v.selected = -1;
  v.press.button = -1;
  v.slider = -1;
  snprintf(v.path, sizeof v.path, "%s", o->model_path);
  if (!(v.win = open_window(o))) {
    imp_free_model(m);
    return 1;
  }
  install_callbacks(&v);
  imp_render_opt_default(&v.opt);
  if (o->no_shadows) v.opt.flags &= ~(unsigned)IMP_VIS_SHADOW;
  imp_viewer_ui_default(&v.ui, v.opt.geomgroup, v.opt.flags, m->nu);
  v.ui.replay = o->traj != NULL;
  int status = 1;
  if (imp_viewer_start(&v, m) == 0) {
    double start = glfwGetTime(), last = start;
    long long n = 0;
    while (!v.quit && !glfwWindowShouldClose(v.win) && (o->frames <= 0 || n < o->frames)) {
      frame(&v, n, &last);
      n++;
    }
    status = o->frames > 0 ? finish_script(&v, n, glfwGetTime() - start) : 0;
    if (v.not_converged > 0)
      fprintf(stderr,
              "impetus view: the contact solver stopped short of its tolerance in %lld of %lld "
              "steps\n",
              v.not_converged, v.nsteps);
    imp_viewer_unload(&v);
  }
  glfwDestroyWindow(v.win);
#ifdef IMP_VIEWER_LSAN
  __lsan_do_leak_check(); /* exits with the report when the viewer leaked */
#endif
  glfwTerminate();
  return status;
}
