/* Headless GL contexts: EGL on Mesa's surfaceless platform first (no X
 * server, software rasterizer llvmpipe when there is no GPU), else a hidden
 * GLFW window (needs a display; Xvfb will do). Either way the image goes to
 * our own multisampled (4x unless asked otherwise) framebuffer, resolved into a single-sampled one
 * to read. The environment variable IMP_GL=egl|glfw picks one. */
#include "gl_internal.h" /* first: GL with its extension prototypes */

#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct imp_offscreen {
  int width, height;
  int backend; /* IMP_GL_EGL or IMP_GL_GLFW */
  EGLDisplay dpy;
  EGLContext ctx;
  GLFWwindow* win;
  GLuint fbo, color, depth; /* multisampled, drawn into */
  GLuint rfbo, rcolor;      /* resolved, read from */
  int samples;              /* of fbo: 0 single-sampled */
};

/* ---- EGL surfaceless ---- */

static int egl_make(imp_offscreen* o, char* err, int errsz) {
  PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  const char* ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!get_display || !ext || !strstr(ext, "EGL_MESA_platform_surfaceless"))
    return snprintf(err, (size_t)errsz, "EGL: no EGL_MESA_platform_surfaceless"), 0;
  o->dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  EGLint major, minor;
  if (o->dpy == EGL_NO_DISPLAY || !eglInitialize(o->dpy, &major, &minor))
    return snprintf(err, (size_t)errsz, "EGL: cannot initialize the surfaceless display"), 0;
  const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                             EGL_NONE};
  EGLConfig cfg = NULL;
  EGLint ncfg = 0;
  eglChooseConfig(o->dpy, cfg_attr, &cfg, 1, &ncfg);
  const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION,
                             3,
                             EGL_CONTEXT_MINOR_VERSION,
                             3,
                             EGL_CONTEXT_OPENGL_PROFILE_MASK,
                             EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                             EGL_NONE};
  if (!eglBindAPI(EGL_OPENGL_API) ||
      (o->ctx = eglCreateContext(o->dpy, ncfg ? cfg : (EGLConfig)0, EGL_NO_CONTEXT, ctx_attr)) ==
          EGL_NO_CONTEXT ||
      !eglMakeCurrent(o->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, o->ctx)) {
    snprintf(err, (size_t)errsz, "EGL: no OpenGL 3.3 core context (error 0x%x)", eglGetError());
    return 0;
  }
  o->backend = IMP_GL_EGL;
  return 1;
}

/* ---- hidden GLFW window ---- */

static int glfw_make(imp_offscreen* o, char* err, int errsz) {
  if (!glfwInit()) return snprintf(err, (size_t)errsz, "GLFW: cannot initialize (no display?)"), 0;
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  o->win = glfwCreateWindow(64, 64, "impetus offscreen", NULL, NULL);
  if (!o->win) {
    glfwTerminate();
    return snprintf(err, (size_t)errsz, "GLFW: cannot create a hidden OpenGL 3.3 window"), 0;
  }
  glfwMakeContextCurrent(o->win);
  o->backend = IMP_GL_GLFW;
  return 1;
}

/* ---- framebuffers ---- */

static GLuint renderbuffer(GLenum format, int samples, int w, int h) {
  GLuint rb;
  glGenRenderbuffers(1, &rb);
  glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, format, w, h);
  return rb;
}

/* The samples asked for, within what the GL offers (0 for 0 or 1). */
static int clamp_samples(int samples) {
  GLint max = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max);
  if (samples <= 1) return 0;
  return samples < max ? samples : max;
}

static int make_framebuffers(imp_offscreen* o, int samples, char* err, int errsz) {
  o->samples = clamp_samples(samples);
  o->color = renderbuffer(GL_RGBA8, o->samples, o->width, o->height);
  o->depth = renderbuffer(GL_DEPTH_COMPONENT24, o->samples, o->width, o->height);
  glGenFramebuffers(1, &o->fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, o->fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->color);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, o->depth);
  int ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  o->rcolor = renderbuffer(GL_RGBA8, 0, o->width, o->height);
  glGenFramebuffers(1, &o->rfbo);
  glBindFramebuffer(GL_FRAMEBUFFER, o->rfbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->rcolor);
  ok = ok && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, o->fbo);
  if (!ok)
    snprintf(err, (size_t)errsz, "offscreen: %dx%d framebuffer incomplete", o->width, o->height);
  return ok;
}

/* IMP_GL in the environment narrows IMP_GL_AUTO to one backend. */
static int backend_from_env(int backend) {
  const char* e = getenv("IMP_GL");
  if (backend != IMP_GL_AUTO || !e) return backend;
  if (!strcmp(e, "egl")) return IMP_GL_EGL;
  if (!strcmp(e, "glfw")) return IMP_GL_GLFW;
  return IMP_GL_AUTO;
}

imp_offscreen* imp_offscreen_make(int width, int height, int backend, char* err, int errsz) {
  return imp_offscreen_make_samples(width, height, backend, 4, err, errsz);
}

imp_offscreen* imp_offscreen_make_samples(int width, int height, int backend, int samples,
                                          char* err, int errsz) {
  if (width < 1 || height < 1 || width > 8192 || height > 8192) {
    snprintf(err, (size_t)errsz, "offscreen: size %dx%d out of range (1 to 8192)", width, height);
    return NULL;
  }
  imp_offscreen* o = calloc(1, sizeof *o);
  if (!o) return snprintf(err, (size_t)errsz, "offscreen: out of memory"), NULL;
  o->width = width, o->height = height;
  backend = backend_from_env(backend);
  char egl_err[200] = "";
  int ok = backend != IMP_GL_GLFW && egl_make(o, egl_err, sizeof egl_err);
  if (!ok && backend != IMP_GL_EGL) {
    ok = glfw_make(o, err, errsz);
    if (!ok && egl_err[0]) {
      char both[400];
      snprintf(both, sizeof both, "%s; %s", egl_err, err);
      snprintf(err, (size_t)errsz, "%s", both);
    }
  } else if (!ok) {
    snprintf(err, (size_t)errsz, "%s", egl_err);
  }
  if (ok) ok = make_framebuffers(o, samples, err, errsz);
  if (!ok) {
    imp_offscreen_free(o);
    return NULL;
  }
  return o;
}

void imp_offscreen_free(imp_offscreen* o) {
  if (!o) return;
  if (o->backend) {
    imp_offscreen_bind(o);
    GLuint fb[2] = {o->fbo, o->rfbo}, rb[3] = {o->color, o->depth, o->rcolor};
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(2, fb);
    glDeleteRenderbuffers(3, rb);
  }
  /* The display is not terminated: EGL hands every caller of the same
     platform the same display, so terminating it would invalidate the
     contexts of other offscreen objects (and a window's) in this process. */
  if (o->backend == IMP_GL_EGL) {
    eglMakeCurrent(o->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(o->dpy, o->ctx);
  }
  if (o->win) {
    glfwDestroyWindow(o->win);
    glfwTerminate();
  }
  free(o);
}

void imp_offscreen_bind(imp_offscreen* o) {
  if (o->backend == IMP_GL_EGL)
    eglMakeCurrent(o->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, o->ctx);
  else
    glfwMakeContextCurrent(o->win);
  glBindFramebuffer(GL_FRAMEBUFFER, o->fbo);
}

void imp_offscreen_read_rgb(imp_offscreen* o, unsigned char* rgb) {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, o->fbo);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, o->rfbo);
  glBlitFramebuffer(0, 0, o->width, o->height, 0, 0, o->width, o->height, GL_COLOR_BUFFER_BIT,
                    GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, o->rfbo);
  size_t row = (size_t)o->width * 3;
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, o->width, o->height, GL_RGB, GL_UNSIGNED_BYTE, rgb);
  /* bottom-up rows to top-down, in place */
  for (int j = 0; j < o->height / 2; j++) {
    unsigned char *a = rgb + row * (size_t)j, *b = rgb + row * (size_t)(o->height - 1 - j);
    for (size_t k = 0; k < row; k++) {
      unsigned char t = a[k];
      a[k] = b[k], b[k] = t;
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, o->fbo);
}

int imp_offscreen_samples(const imp_offscreen* o) {
  return o->samples;
}

const char* imp_offscreen_backend(const imp_offscreen* o) {
  return o->backend == IMP_GL_EGL ? "egl" : "glfw";
}
