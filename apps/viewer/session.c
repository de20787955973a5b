/* The viewer's model lifecycle and the commands that need the engine:
   loading and reloading (keeping the old model on failure), reset,
   keyframes, solver cycling, actuator control, recording, screenshots,
   stepping and trajectory rows. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/ctrl_file.h"
#include "viewer_internal.h"

/* Show a message in the window and echo it to stdout (errors to stderr). */
void imp_viewer_say(imp_viewer* v, int error, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->message, sizeof v->message, fmt, ap);
  va_end(ap);
  v->message_until = error ? 1e300 : glfwGetTime() + 4.0;
  fprintf(error ? stderr : stdout, "%s\n", v->message);
}

/* Modification time of path into t; 0, or -1 when it cannot be read. */
static int file_mtime(const char* path, struct timespec* t) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  *t = st.st_mtim;
  return 0;
}

/* Close the recording (the file appears complete) and say where it is. */
static void stop_recording(imp_viewer* v) {
  if (!v->rec) return;
  char err[1200] = "";
  if (imp_recorder_close(v->rec, err, sizeof err) == 0)
    imp_viewer_say(v, 0, "recorded %s", v->rec_path);
  else
    imp_viewer_say(v, 1, "recording failed: %s", err);
  v->rec = NULL;
}

/* Free everything of the current model; the window and GL context stay. */
void imp_viewer_unload(imp_viewer* v) {
  stop_recording(v);
  imp_render_free(v->r);
  imp_free_data(v->d);
  imp_free_model(v->m);
  v->r = NULL, v->d = NULL, v->m = NULL;
}

/* The state the viewer starts from and Backspace returns to. */
static void reset_state(imp_viewer* v) {
  if (v->o->traj) {
    v->replay_clock = imp_trajectory_clock(v->o->traj, 0);
    imp_viewer_show_row(v, 0);
    return;
  }
  if (v->ui.key >= 0 && v->ui.key < v->m->nkey)
    imp_reset_data_keyframe(v->m, v->d, v->ui.key);
  else
    imp_reset_data(v->m, v->d);
  imp_forward(v->m, v->d);
  v->pacer.debt = 0;
}

/* A replay can only swap in a model the trajectory's columns fit. */
static int fits_trajectory(const imp_viewer* v, const imp_model* m) {
  const imp_trajectory* t = v->o->traj;
  return !t || (m->nq == t->nq && m->nv == t->nv && m->nu == t->nu);
}

/* Model, data and renderer for path, all or nothing. */
static int make_all(imp_viewer* v, const char* path, imp_model** m, imp_data** d,
                    imp_renderer** r) {
  char err[4096] = "";
  *m = imp_load_xml_opt(path, v->o->load_options, err, sizeof err);
  *d = NULL, *r = NULL;
  if (*m && !fits_trajectory(v, *m))
    snprintf(err, sizeof err, "%s: nq, nv or nu differ from the trajectory's; not loaded", path);
  else if (*m && !(*d = imp_make_data(*m)))
    snprintf(err, sizeof err, "%s: out of memory making the data", path);
  else if (*d)
    *r = imp_render_make(*m, err, sizeof err);
  if (*r) return 0;
  imp_viewer_say(v, 1, "%s", err[0] ? err : "the model did not load");
  imp_free_data(*d);
  imp_free_model(*m);
  return -1;
}

/* Install a freshly made model in place of the old one. */
static void install(imp_viewer* v, imp_model* m, imp_data* d, imp_renderer* r, int keep_camera) {
  imp_viewer_unload(v);
  v->m = m, v->d = d, v->r = r;
  v->selected = -1;
  v->slider = -1; /* a slider held across a reload would move another model's actuator */
  imp_viewer_perturb_end(&v->pert);
  if (v->ui.actuator >= m->nu || v->ui.actuator < 0) v->ui.actuator = m->nu > 0 ? 0 : -1;
  if (v->ui.key >= m->nkey) v->ui.key = -1;
  if (!keep_camera) imp_camera_default(m, &v->cam);
  if (v->cam.type == IMP_CAMERA_FIXED && v->cam.fixedcamid >= m->ncam) v->cam.type = IMP_CAMERA_FREE;
  if (v->cam.type == IMP_CAMERA_TRACKING) v->cam.type = IMP_CAMERA_FREE;
  if (v->o->ctrl) { /* --ctrl drives this model too when its actuators match */
    char err[4600] = "";
    if (ctrl_file_bind(v->o->ctrl, m, err, sizeof err) == 0)
      imp_set_control_callback(d, ctrl_file_control, v->o->ctrl);
    else
      imp_viewer_say(v, 1, "--ctrl %s; this model runs without it", err);
  }
  reset_state(v);
}

/* "impetus view FILE": the window says which file it shows. */
static void set_title(imp_viewer* v) {
  char title[4200];
  snprintf(title, sizeof title, "impetus %s %s", v->o->traj ? "replay" : "view", v->path);
  if (v->win) glfwSetWindowTitle(v->win, title);
}

/* Data and renderer for the command's model, then the first state. */
int imp_viewer_start(imp_viewer* v, imp_model* m) {
  struct timespec t = {0, 0};
  file_mtime(v->path, &t);
  v->mtime = t;
  char err[4096] = "";
  imp_data* d = imp_make_data(m);
  imp_renderer* r = d ? imp_render_make(m, err, sizeof err) : NULL;
  if (!r) {
    fprintf(stderr, "impetus: %s\n", err[0] ? err : "out of memory making the data");
    imp_free_data(d);
    imp_free_model(m);
    return -1;
  }
  install(v, m, d, r, 0);
  set_title(v);
  if (v->o->solver) imp_set_solver(m, d, v->o->solver); /* checked with the arguments */
  if (v->o->key >= 0 && v->o->key < m->nkey) {
    v->ui.key = v->o->key;
    reset_state(v);
  }
  return 0;
}

/* All or nothing: the old model runs on unless the new one loads completely. */
int imp_viewer_load(imp_viewer* v, const char* path, int keep_camera) {
  struct timespec t = {0, 0};
  file_mtime(path, &t);
  imp_model* m;
  imp_data* d;
  imp_renderer* r;
  int same = strcmp(path, v->path) == 0;
  if (same) v->mtime = t; /* a failed version is not retried until the file changes again */
  /* a dropped file that fails leaves the running model's file the one watched and reloaded */
  if (make_all(v, path, &m, &d, &r)) return -1;
  if (!same) {
    snprintf(v->path, sizeof v->path, "%s", path);
    v->mtime = t;
  }
  /* a reload keeps the solver the user chose with S; a new file starts with its own */
  const char* solver = keep_camera && v->d ? imp_solver_name(v->d->solver) : NULL;
  install(v, m, d, r, keep_camera);
  if (solver) imp_set_solver(m, d, solver);
  v->message[0] = '\0';
  if (m->warnings && m->warnings[0]) imp_viewer_say(v, 0, "%s", m->warnings);
  set_title(v);
  return 0;
}

/* Stat the model file twice a second; a new mtime reloads it. */
void imp_viewer_poll_file(imp_viewer* v, double now) {
  if (now < v->next_poll || !v->path[0]) return;
  v->next_poll = now + 0.5;
  struct timespec t;
  if (file_mtime(v->path, &t) != 0) return; /* mid-save (removed, renamed): wait */
  if (t.tv_sec == v->mtime.tv_sec && t.tv_nsec == v->mtime.tv_nsec) return;
  if (imp_viewer_load(v, v->path, 1) == 0) imp_viewer_say(v, 0, "reloaded %s (changed on disk)", v->path);
}

/* Mouse spring, engine step, recorder row. */
void imp_viewer_step(imp_viewer* v) {
  imp_viewer_perturb_apply(v->m, v->d, &v->pert);
  imp_step(v->m, v->d);
  v->nsteps++;
  v->not_converged += v->d->solver_exit != 0; /* imp_solver_exit: 0 is converged */
  if (v->rec && imp_recorder_write(v->rec, v->m, v->d) != 0) {
    imp_recorder_abort(v->rec);
    v->rec = NULL;
    imp_viewer_say(v, 1, "%s: write failed; recording discarded", v->rec_path);
  }
}

/* The trajectory's row i becomes the data's state. */
void imp_viewer_show_row(imp_viewer* v, int i) {
  const imp_trajectory* t = v->o->traj;
  v->row = i < 0 ? 0 : i >= t->nrow ? t->nrow - 1 : i;
  imp_trajectory_apply(t, v->row, v->m, v->d);
}

/* "<model file stem>_<date>_<time><ext>" in the working directory. */
static void stamped_path(const imp_viewer* v, const char* ext, char* out, size_t n) {
  const char* base = strrchr(v->path, '/');
  base = base ? base + 1 : v->path;
  size_t stem = strcspn(base, ".");
  char when[32];
  time_t now = time(NULL);
  struct tm tmv;
  localtime_r(&now, &tmv);
  strftime(when, sizeof when, "%Y%m%d_%H%M%S", &tmv);
  snprintf(out, n, "%.*s_%s%s", (int)stem, base, when, ext);
}

/* R: open a recorder with the state now as its first row, or close it. */
static void toggle_recording(imp_viewer* v) {
  if (v->o->traj) { imp_viewer_say(v, 0, "replaying: nothing new to record"); return; }
  if (v->rec) { stop_recording(v); return; }
  char err[1200] = "";
  stamped_path(v, ".csv", v->rec_path, sizeof v->rec_path);
  v->rec = imp_recorder_open(v->rec_path, v->m, err, sizeof err);
  if (!v->rec) { imp_viewer_say(v, 1, "cannot record: %s", err); return; }
  int driven = v->d->control_fn == ctrl_file_control && v->o->ctrl;
  imp_record_info info = {v->path, -1, 1, imp_solver_name(v->d->solver),
                          driven ? ctrl_file_path(v->o->ctrl) : NULL};
  imp_recorder_set_info(v->rec, &info); /* out of memory: recorded without it */
  if (imp_recorder_write(v->rec, v->m, v->d) != 0) { /* the first row: the state now */
    imp_recorder_abort(v->rec);
    v->rec = NULL;
    { imp_viewer_say(v, 1, "%s: write failed", v->rec_path); return; }
  }
  imp_viewer_say(v, 0, "recording to %s (R stops)", v->rec_path);
}

/* Read the window's framebuffer and write it as PNG. */
int imp_viewer_screenshot(imp_viewer* v, const char* path) {
  int w, h;
  glfwGetFramebufferSize(v->win, &w, &h);
  unsigned char* rgb = malloc((size_t)w * h * 3);
  char err[4400] = "";
  int st = -1;
  if (!rgb) snprintf(err, sizeof err, "%s: out of memory", path);
  else {
    imp_render_read_rgb(v->r, rgb, w, h);
    st = imp_image_write_png(path, rgb, w, h, err, sizeof err);
  }
  free(rgb);
  if (st) imp_viewer_say(v, 1, "screenshot failed: %s", err);
  return st;
}

/* Ctrl+P: a screenshot named after the model and the time. */
void imp_viewer_screenshot_stamped(imp_viewer* v) {
  char path[4200];
  stamped_path(v, ".png", path, sizeof path);
  if (imp_viewer_screenshot(v, path) == 0) imp_viewer_say(v, 0, "screenshot %s", path);
}

/* PageDown / PageUp: the next or previous keyframe, wrapping. */
static void load_keyframe(imp_viewer* v, int dir) {
  int n = v->m->nkey;
  if (n == 0) { imp_viewer_say(v, 0, "the model has no keyframes"); return; }
  v->ui.key = v->ui.key < 0 ? (dir > 0 ? 0 : n - 1) : ((v->ui.key + dir) % n + n) % n;
  reset_state(v);
  const char* name = imp_id2name(v->m, IMP_OBJ_KEY, v->ui.key);
  imp_viewer_say(v, 0, "keyframe %d/%d %s", v->ui.key + 1, n, name ? name : "");
}

/* S: the next registered contact solver, from the next step on. */
static void next_solver(imp_viewer* v) {
  int next = (v->d->solver + 1) % imp_solver_count();
  imp_set_solver(v->m, v->d, imp_solver_name(next));
  imp_viewer_say(v, 0, "contact solver: %s", imp_solver_name(v->d->solver));
}

/* ctrl of the selected actuator: nudged (dir +-1) or zeroed (dir 0). */
static void set_ctrl(imp_viewer* v, int dir) {
  int a = v->ui.actuator;
  if (v->o->traj || a < 0 || a >= v->m->nu) return;
  const double* range = v->m->actuator_ctrlrange + 2 * a;
  int limited = v->m->actuator_ctrllimited[a];
  double c = dir ? imp_viewer_nudge_ctrl(v->d->ctrl[a], limited, range, dir) : 0.0;
  if (!dir && limited && range[1] > range[0]) c = c < range[0] ? range[0] : c > range[1] ? range[1] : c;
  v->d->ctrl[a] = c;
}

/* Z: every actuator's ctrl to 0, clamped into its range when limited
   (a range that excludes 0 takes its nearer end). */
static void zero_all_ctrl(imp_viewer* v) {
  if (v->o->traj) return; /* a replay's ctrl is the recording's */
  for (int a = 0; a < v->m->nu; a++) {
    const double* r = v->m->actuator_ctrlrange + 2 * a;
    int limited = v->m->actuator_ctrllimited[a] && r[1] > r[0];
    v->d->ctrl[a] = limited ? (0.0 < r[0] ? r[0] : 0.0 > r[1] ? r[1] : 0.0) : 0.0;
  }
  imp_viewer_say(v, 0, "every ctrl to 0");
}

/* Right arrow, left arrow, up/down in replay: always pause first. */
static void step_or_scrub(imp_viewer* v, imp_viewer_cmd c) {
  v->ui.running = 0;
  if (!v->o->traj) {
    if (c.action == IMP_ACT_STEP) imp_viewer_step(v);
    return;
  }
  int row = v->row;
  if (c.action == IMP_ACT_STEP) row++;
  else if (c.action == IMP_ACT_STEP_BACK) row--;
  else /* recorded times are sums of steps: a hair of slack lands on the exact second */
    row = imp_trajectory_row_at(v->o->traj, imp_trajectory_clock(v->o->traj, row) + c.arg + 1e-9);
  imp_viewer_show_row(v, row);
  v->replay_clock = imp_trajectory_clock(v->o->traj, v->row);
}

/* The commands that need the engine, the files or the window. */
void imp_viewer_command(imp_viewer* v, imp_viewer_cmd c) {
  switch (c.action) {
    case IMP_ACT_STEP:
    case IMP_ACT_STEP_BACK:
    case IMP_ACT_JUMP: step_or_scrub(v, c); break;
    case IMP_ACT_RESET: reset_state(v); break;
    case IMP_ACT_RELOAD:
      if (imp_viewer_load(v, v->path, 1) == 0) imp_viewer_say(v, 0, "reloaded %s", v->path);
      break;
    case IMP_ACT_SCREENSHOT: v->want_screenshot = 1; break;
    case IMP_ACT_KEY_NEXT: load_keyframe(v, 1); break;
    case IMP_ACT_KEY_PREV: load_keyframe(v, -1); break;
    case IMP_ACT_SOLVER_NEXT: next_solver(v); break;
    case IMP_ACT_RECORD: toggle_recording(v); break;
    case IMP_ACT_ACTUATOR:
      v->ui.actuator = imp_viewer_next_actuator(v->ui.actuator, v->m->nu, c.arg);
      v->ui.follow_actuator = 1; /* the panel scrolls to it */
      break;
    case IMP_ACT_CTRL: set_ctrl(v, c.arg); break;
    case IMP_ACT_CTRL_ZERO: set_ctrl(v, 0); break;
    case IMP_ACT_CTRL_ZERO_ALL: zero_all_ctrl(v); break;
    case IMP_ACT_QUIT: v->quit = 1; break;
    default: break;
  }
}
