/* impetus render MODEL.xml --steps N --out DIR|FILE.png [--every K]
   [--size WxH] [--camera NAME] [--key NAME] [--contacts] [--no-shadows]
   [--msaa N]: a headless run
   drawn into PNG frames (EGL without any display, else a hidden GLFW
   window). Usage text: cli_usage_render below. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli_interrupt.h"
#include "cli_progress.h"
#include "cmd.h"
#include "render.h"

const char* const cli_usage_render =
    "usage: impetus render MODEL.xml --steps N --out DIR|FILE.png [--every K]\n"
    "                      [--size WxH] [--camera NAME] [--key NAME] [--contacts]\n"
    "                      [--no-shadows] [--msaa N] [--quiet]\n"
    "\n"
    "Simulates N steps without a display and draws the state into PNG images.\n"
    "--out DIR writes DIR/frame_00000.png ... : the initial state and the state\n"
    "after every K-th step (default every step), 1 + floor(N / K) frames; DIR\n"
    "is made if missing. --out FILE.png writes one image, the state after N\n"
    "steps; any other image extension (.jpg ...) is refused. --size WxH (default the model's <global offwidth offheight>,\n"
    "640x480), --camera NAME a camera of the model (default the free camera\n"
    "MuJoCo's viewer starts with), --key NAME start from a keyframe,\n"
    "--contacts draw contact points and force arrows. --no-shadows skips the\n"
    "shadow map and --msaa N sets the samples per pixel (default 4, 0 none):\n"
    "both make software rendering (llvmpipe) faster.\n"
    "OpenGL: EGL on Mesa's surfaceless platform, else a hidden GLFW window\n"
    "(IMP_GL=egl or IMP_GL=glfw picks one). Prints frames, backend,\n"
    "render_seconds and render_fps (drawing and reading pixels, not PNG\n"
    "encoding). Each PNG is written to a new FILE.XXXXXX.tmp (never through a\n"
    "link) and renamed when complete.\n"
    "On a terminal a progress line goes to stderr every few seconds (steps,\n"
    "simulated time, real-time factor, time left); --quiet turns it off.\n"
    "SIGINT (Ctrl-C), SIGTERM or SIGHUP stops at the end of the frame or step in\n"
    "progress and exits 130: every PNG written is complete and none is half\n"
    "written (a frame still being written 2 s after the signal, or at a\n"
    "second signal, is removed).\n";

typedef struct render_args {
  const char* model;
  const char* out;
  const char* camera;
  const char* key;
  long long steps, every;
  int width, height; /* 0: the model's */
  int contacts;
  int no_shadows;
  long long msaa; /* samples per pixel, 0 single-sampled */
  int single; /* --out ends in .png */
  int quiet;  /* --quiet: no progress lines */
} render_args;

/* "WxH" with both in 1..8192. */
static int parse_size(const char* s, int* w, int* h) {
  char tail;
  if (sscanf(s, "%dx%d%c", w, h, &tail) != 2 || *w < 1 || *h < 1 || *w > 8192 || *h > 8192) {
    cli_usage_error("--size '%s' is not WxH (1 to 8192 each)", s);
    return -1;
  }
  return 0;
}

/* --msaa N: samples per pixel, 0 to 16 (GL lowers it to what it offers). */
static int parse_msaa(const char* s, long long* n) {
  if (cli_parse_ll("msaa", s, 0, n)) return -1;
  if (*n <= 16) return 0;
  fprintf(stderr, "impetus render: --msaa %lld: at most 16 samples\n", *n);
  return -1;
}

static int ends_with_png(const char* s) {
  size_t n = strlen(s);
  return n > 4 && strcasecmp(s + n - 4, ".png") == 0;
}

/* True when the last component of path ends in an image format's
   extension other than .png: --out would make a directory of that name. */
static int other_image_extension(const char* path) {
  static const char* const ext[] = {".jpg", ".jpeg", ".gif", ".bmp", ".tga", ".tif", ".tiff",
                                    ".webp", ".ppm", ".pgm", ".pnm", ".exr", ".hdr", ".avif"};
  const char* dot = strrchr(path, '.');
  const char* slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) return 0;
  for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
    if (strcasecmp(dot, ext[i]) == 0) return 1;
  return 0;
}

/* One option at argv[*i]; 0 matched, 1 not an option of render, 2 bad usage. */
static int parse_option(int argc, char** argv, int* i, render_args* a) {
  const char* v = NULL;
  int k;
  if ((k = cli_option(argc, argv, i, "steps", &v)) != 0)
    return k < 0 || cli_parse_ll("steps", v, 0, &a->steps) ? 2 : 0;
  if ((k = cli_option(argc, argv, i, "every", &v)) != 0)
    return k < 0 || cli_parse_ll("every", v, 1, &a->every) ? 2 : 0;
  if ((k = cli_option(argc, argv, i, "size", &v)) != 0)
    return k < 0 || parse_size(v, &a->width, &a->height) ? 2 : 0;
  if ((k = cli_option(argc, argv, i, "out", &v)) != 0) return k < 0 ? 2 : (a->out = v, 0);
  if ((k = cli_option(argc, argv, i, "camera", &v)) != 0) return k < 0 ? 2 : (a->camera = v, 0);
  if ((k = cli_option(argc, argv, i, "key", &v)) != 0) return k < 0 ? 2 : (a->key = v, 0);
  if ((k = cli_option(argc, argv, i, "msaa", &v)) != 0)
    return k < 0 || parse_msaa(v, &a->msaa) ? 2 : 0;
  if (strcmp(argv[*i], "--contacts") == 0) return a->contacts = 1, 0;
  if (strcmp(argv[*i], "--quiet") == 0) return a->quiet = 1, 0;
  if (strcmp(argv[*i], "--no-shadows") == 0) return a->no_shadows = 1, 0;
  return 1;
}

/* Parse argv into a; 0 on success, -1 for help, else an exit status. */
static int parse_args(int argc, char** argv, render_args* a) {
  *a = (render_args){0};
  a->steps = -1, a->every = 1, a->msaa = 4;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) return cli_usage("render", 0), -1;
    int k = parse_option(argc, argv, &i, a);
    if (k == 2) return CLI_EXIT_USAGE;
    if (k == 0) continue;
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option '%s'", argv[i]);
    }
    if (a->model) {
      return cli_usage_error("more than one model ('%s', '%s')", a->model, argv[i]);
    }
    a->model = argv[i];
  }
  const char* missing = !a->model      ? "a MODEL.xml"
                        : a->steps < 0 ? "--steps N"
                        : !a->out      ? "--out DIR|FILE.png"
                                       : NULL;
  if (missing) {
    return cli_usage_error("%s is needed", missing);
  }
  a->single = ends_with_png(a->out);
  if (!a->single && other_image_extension(a->out))
    return cli_usage_error("--out %s: images are written as PNG only: name the file .png, or "
                           "give a directory", a->out);
  return 0;
}

/* DIR exists or is made. */
static int ensure_dir(const char* dir) {
  struct stat st;
  if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  if (mkdir(dir, 0777) == 0) return 0;
  fprintf(stderr, "impetus render: %s: cannot make the directory: %s\n", dir, strerror(errno));
  return -1;
}

/* The model-dependent choices: camera, keyframe, size. */
static int setup(const imp_model* m, imp_data* d, render_args* a, imp_camera* cam) {
  imp_camera_default(m, cam);
  if (a->camera) {
    int id = imp_name2id(m, IMP_OBJ_CAMERA, a->camera);
    if (id < 0) {
      fprintf(stderr, "impetus render: %s: no camera '%s'\n", a->model, a->camera);
      return -1;
    }
    cam->type = IMP_CAMERA_FIXED, cam->fixedcamid = id;
  }
  if (a->key) {
    int id = cli_find_key(m, a->model, a->key);
    if (id < 0) return -1;
    imp_reset_data_keyframe(m, d, id);
  }
  if (!a->width) {
    a->width = m->vis.offwidth > 0 ? m->vis.offwidth : 640;
    a->height = m->vis.offheight > 0 ? m->vis.offheight : 480;
  }
  return 0;
}

typedef struct render_ctx {
  imp_offscreen* o;
  imp_renderer* r;
  imp_render_opt opt;
  imp_camera cam;
  unsigned char* rgb;
  double seconds; /* drawing and reading only */
  long long frames;
} render_ctx;

/* Draw d and write it to path; 0 or -1 (message printed). */
static int write_frame(render_ctx* c, const imp_model* m, const imp_data* d, const render_args* a,
                       const char* path) {
  double t0 = cli_now();
  imp_offscreen_bind(c->o);
  imp_render_frame(c->r, m, d, &c->cam, &c->opt, a->width, a->height);
  imp_offscreen_read_rgb(c->o, c->rgb);
  c->seconds += cli_now() - t0;
  c->frames++;
  char err[1200];
  /* image.c writes a temporary file of its own and renames it: the guard
     learns its name, removed if a signal forces an exit */
  int rc = imp_image_write_png_guarded(path, c->rgb, a->width, a->height, cli_interrupt_guard, err,
                                       sizeof err);
  if (rc) {
    fprintf(stderr, "impetus render: %s\n", err);
    return -1;
  }
  return 0;
}

/* The run: frames every K steps into DIR, or the last state into FILE.png.
   A signal stops it between steps or frames (*steps_done: the steps taken). */
static int simulate(render_ctx* c, const imp_model* m, imp_data* d, const render_args* a,
                    long long* steps_done) {
  size_t n = strlen(a->out) + 32;
  char* path = malloc(n);
  if (!path) return fprintf(stderr, "impetus render: out of memory\n"), -1;
  int status = 0;
  cli_progress progress;
  cli_progress_start(&progress, "impetus render", a->quiet, a->steps, d->time);
  imp_forward(m, d);
  *steps_done = 0;
  for (long long s = 0; s <= a->steps && !status && !cli_interrupted(); s++) {
    if (s > 0) {
      imp_step(m, d);
      *steps_done = s;
      cli_progress_step(&progress, s, d->time);
    }
    if (a->single) {
      if (s == a->steps) status = write_frame(c, m, d, a, a->out);
    } else if (s % a->every == 0) {
      snprintf(path, n, "%s/frame_%05lld.png", a->out, s / a->every);
      status = write_frame(c, m, d, a, path);
    }
  }
  free(path);
  return status;
}

static int render_model(const imp_model* m, imp_data* d, render_args* a) {
  render_ctx c = {0};
  if (setup(m, d, a, &c.cam) || (!a->single && ensure_dir(a->out))) return CLI_EXIT_ERROR;
  char err[1200] = "";
  c.o = imp_offscreen_make_samples(a->width, a->height, IMP_GL_AUTO, (int)a->msaa, err,
                                   sizeof err);
  c.r = c.o ? imp_render_make(m, err, sizeof err) : NULL;
  c.rgb = malloc((size_t)a->width * a->height * 3);
  int status = CLI_EXIT_ERROR;
  if (!c.r || !c.rgb) {
    fprintf(stderr, "impetus render: %s\n", err[0] ? err : "out of memory");
  } else {
    imp_render_opt_default(&c.opt);
    if (a->contacts) c.opt.flags |= IMP_VIS_CONTACT_POINT | IMP_VIS_CONTACT_FORCE;
    if (a->no_shadows) c.opt.flags &= ~(unsigned)IMP_VIS_SHADOW;
    long long done = 0;
    int rc = simulate(&c, m, d, a, &done);
    if (rc == 0 && cli_interrupted()) {
      if (a->single)
        fprintf(stderr, "impetus render: interrupted after %lld steps; nothing written to %s\n",
                done, a->out);
      else
        fprintf(stderr, "impetus render: interrupted after %lld steps; %lld complete frames in %s\n",
                done, c.frames, a->out);
      status = 130;
    } else if (rc == 0) {
      printf("frames: %lld\nsize: %dx%d\nbackend: %s\nrender_seconds: %.3f\nrender_fps: %.1f\n",
             c.frames, a->width, a->height, imp_offscreen_backend(c.o), c.seconds,
             c.seconds > 0 ? (double)c.frames / c.seconds : 0.0);
      status = 0;
    }
  }
  free(c.rgb);
  imp_render_free(c.r);
  imp_offscreen_free(c.o);
  return status;
}

int cmd_render(int argc, char** argv) {
  int load_options = cli_take_load_options(&argc, argv);
  render_args a;
  int st = parse_args(argc, argv, &a);
  if (st) return st < 0 ? 0 : st;
  /* from here a signal stops the run between frames (cli_interrupt.h) */
  cli_interrupt_install("impetus render", "work that did not end; stopped at once");
  imp_model* m = cli_load(a.model, load_options);
  if (!m) return CLI_EXIT_ERROR;
  imp_data* d = imp_make_data(m);
  st = d ? render_model(m, d, &a) : CLI_EXIT_ERROR;
  cli_interrupt_done();
  imp_free_data(d);
  imp_free_model(m);
  return st;
}
