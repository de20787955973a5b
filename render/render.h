/* The renderer's public API: draw the state of any model with OpenGL 3.3
 * core, overlays and text on top, read the pixels back, pick the body under
 * a pixel, and (offscreen.c) make a headless GL context with a framebuffer.
 *
 *   imp_offscreen* o = imp_offscreen_make(640, 480, IMP_GL_AUTO, err, sizeof err);
 *   imp_renderer* r = imp_render_make(m, err, sizeof err);   // GL context current
 *   imp_render_opt opt; imp_render_opt_default(&opt);
 *   imp_camera cam; imp_camera_default(m, &cam);
 *   imp_offscreen_bind(o);
 *   imp_render_frame(r, m, d, &cam, &opt, 640, 480);
 *   imp_render_overlay(r, IMP_CORNER_TOPLEFT, "time\nncon", "1.25\n4");
 *   imp_offscreen_read_rgb(o, rgb);                          // 640*480*3 bytes, top row first
 *   imp_render_free(r); imp_offscreen_free(o);
 *
 * A window (the viewer) makes its own context with GLFW and calls the same
 * functions with its framebuffer bound.
 *
 * Promises: the renderer reads m and d only (model + data, nothing of the
 * engine's internals); GL objects for meshes, textures and shapes are made
 * once in imp_render_make, so drawing a frame allocates no memory; every
 * function needs the GL context current that imp_render_make ran in.
 * Errors (no GL 3.3, a texture file that does not load) come back as a
 * message naming the file, never as an exit. */
#ifndef IMPETUS_RENDER_H
#define IMPETUS_RENDER_H

#include "camera.h"
#include "impetus.h"
#include "scene.h"

/* ---- what to draw ---- */

/* imp_vis_flag and imp_perturb are in scene.h (the GL-free overlays). */

typedef struct imp_render_opt {
  int geomgroup;      /* bit g: draw geoms of group g (0..5) */
  int sitegroup;      /* bit g: draw sites of group g */
  unsigned flags;     /* imp_vis_flag bits */
  int selected_body;  /* highlighted body, -1 none */
  double force_scale; /* contact force arrows: m per N; 0 = the model's weight is 0.3 extent */
  float alpha;        /* IMP_VIS_TRANSPARENT: geom opacity */
  int sites;          /* 1: draw sites of sitegroup */
  imp_perturb perturb;
  int multisample;    /* 1: smooth edges when the framebuffer has samples (GL_MULTISAMPLE);
                         0 rasterizes one sample a pixel, cheaper on software GL */
} imp_render_opt;

/* MuJoCo's viewer defaults: geom and site groups 0-2, shadows, skybox,
   the perturbation spring, multisampling on; no contacts, frames or joints;
   nothing selected. */
void imp_render_opt_default(imp_render_opt* opt);

/* ---- the renderer ---- */

typedef struct imp_renderer imp_renderer;

/* Upload m's meshes, textures (PNG via stb_image, MJCF builtins) and shape
   buffers; compile the shaders; load the overlay font. Needs a current
   OpenGL >= 3.3 core context. NULL with a message in err on failure. */
imp_renderer* imp_render_make(const imp_model* m, char* err, int errsz);
void imp_render_free(imp_renderer* r);

/* Draw the state d seen by cam into the bound framebuffer's
   (0, 0, width, height) viewport: background, shadowed lit geoms, overlays.
   cam is not const: a tracking camera's lookat follows its body. */
void imp_render_frame(imp_renderer* r, const imp_model* m, const imp_data* d, imp_camera* cam,
                      const imp_render_opt* opt, int width, int height);

/* The scene (drawables) of the last frame, for tests and for the viewer's info. */
const imp_scene* imp_render_scene(const imp_renderer* r);
/* The camera pose of the last frame. */
const imp_camera_pose* imp_render_pose(const imp_renderer* r);

/* ---- text on top of the last frame (call after imp_render_frame) ---- */

typedef enum imp_corner {
  IMP_CORNER_TOPLEFT = 0,
  IMP_CORNER_TOPRIGHT = 1,
  IMP_CORNER_BOTTOMLEFT = 2,
  IMP_CORNER_BOTTOMRIGHT = 3,
} imp_corner;

/* A two-column table in a corner on a translucent panel: left and right are
   lines separated by '\n' (right may be NULL), as MuJoCo's info overlay. */
void imp_render_overlay(imp_renderer* r, int corner, const char* left, const char* right);
/* Where imp_render_overlay puts that panel in the last frame's image
   (pixels, y down): box = x0, y0, x1, y1; the top of its first line and
   the left edge of its right column. For the mouse over a panel. */
void imp_render_overlay_box(const imp_renderer* r, int corner, const char* left, const char* right,
                            double box[4], double* text_top, double* right_x);
/* One line of text with its top-left corner at pixel (x, y), colour rgb. */
void imp_render_text(imp_renderer* r, double x, double y, const char* text, const float rgb[3]);
/* The width in pixels of text in the overlay font, and the line height. */
double imp_render_text_width(const imp_renderer* r, const char* text);
double imp_render_line_height(const imp_renderer* r);

/* ---- pixels ---- */

/* Read the bound (single-sampled, e.g. a window's) framebuffer's width x
   height RGB pixels into rgb (3 * width * height bytes), top row first.
   Offscreen, imp_offscreen_read_rgb resolves the multisampled image first. */
void imp_render_read_rgb(imp_renderer* r, unsigned char* rgb, int width, int height);

/* ---- picking ---- */

/* The body whose geom is seen at pixel (x, y) (x right, y down from the
   top-left) in the last frame's camera and options, or -1 for none (or the
   world's geoms: a click on the floor selects nothing). *geomid and the
   world point hit (may be NULL) are filled when something is hit.
   Draws an id pass into the renderer's own small framebuffer, so the
   window's image is untouched. */
int imp_render_select(imp_renderer* r, const imp_model* m, const imp_data* d, double x, double y,
                      int* geomid, double point[3]);

/* ---- headless contexts (offscreen.c) ---- */

typedef enum imp_gl_backend {
  IMP_GL_AUTO = 0, /* EGL surfaceless, then a hidden GLFW window; IMP_GL=egl|glfw overrides */
  IMP_GL_EGL = 1,  /* Mesa's surfaceless platform: no X server needed */
  IMP_GL_GLFW = 2, /* a hidden GLFW window: needs a display (Xvfb will do) */
} imp_gl_backend;

typedef struct imp_offscreen imp_offscreen;

/* A GL 3.3 core context made current, with a width x height framebuffer
   (4x multisampled, resolved on read). NULL with a message on failure. */
imp_offscreen* imp_offscreen_make(int width, int height, int backend, char* err, int errsz);
/* The same with samples per pixel for the framebuffer: 0 (or 1) draws
   single-sampled, the cheapest on software GL; more than the GL's
   GL_MAX_SAMPLES is lowered to it. */
imp_offscreen* imp_offscreen_make_samples(int width, int height, int backend, int samples,
                                          char* err, int errsz);
/* The samples per pixel of o's framebuffer (0: single-sampled). */
int imp_offscreen_samples(const imp_offscreen* o);
void imp_offscreen_free(imp_offscreen* o);
/* Make o's context current and bind its framebuffer for drawing. */
void imp_offscreen_bind(imp_offscreen* o);
/* Resolve the multisampled image and read it: 3 * width * height bytes, top row first. */
void imp_offscreen_read_rgb(imp_offscreen* o, unsigned char* rgb);
/* "egl" or "glfw": which backend made the context. */
const char* imp_offscreen_backend(const imp_offscreen* o);

/* ---- images (image.c) ---- */

/* Write RGB pixels (top row first) as PNG, atomically: to a new temporary
   file of its own beside path ("path.XXXXXX.tmp", never through a link,
   engine/io/tmpfile.h), then renamed over path (a directory there is
   refused). 0 on success, else -1 with "path: why" in err. */
int imp_image_write_png(const char* path, const unsigned char* rgb, int width, int height,
                        char* err, int errsz);
/* The same, telling guard the temporary file's name once it exists (with
   the signals blocked until guard returns) and NULL once it is gone, e.g.
   for a signal handler that removes it on a forced exit. */
int imp_image_write_png_guarded(const char* path, const unsigned char* rgb, int width, int height,
                                void (*guard)(const char* tmp), char* err, int errsz);

#endif
