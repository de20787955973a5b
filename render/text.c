/* Overlay text: DejaVu Sans (Debian's fonts-dejavu-core) baked once into a
 * glyph atlas with stb_truetype; a line of text is a run of textured quads
 * in pixel coordinates, written into a vertex array allocated once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#include "gl_internal.h"

#define ATLAS_W 512
#define ATLAS_H 512
#define FONT_PX 18.0f
#define FONT_FILE "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

/* The whole font file (IMP_FONT overrides the path); NULL when unreadable. */
static unsigned char* read_font(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char* buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    }
  }
  fclose(f);
  return buf;
}

static int bake_atlas(imp_font* f, const unsigned char* ttf) {
  unsigned char* atlas = calloc(ATLAS_W * ATLAS_H, 1);
  if (!atlas) return 0;
  int ok = stbtt_BakeFontBitmap(ttf, 0, FONT_PX, atlas, ATLAS_W, ATLAS_H, 32, 96, f->glyph) > 0;
  if (ok) {
    glGenTextures(1, &f->tex);
    glBindTexture(GL_TEXTURE_2D, f->tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, ATLAS_W, ATLAS_H, 0, GL_RED, GL_UNSIGNED_BYTE, atlas);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  }
  free(atlas);
  return ok;
}

void imp_font_make(imp_font* f) {
  memset(f, 0, sizeof *f);
  const char* path = getenv("IMP_FONT") ? getenv("IMP_FONT") : FONT_FILE;
  unsigned char* ttf = read_font(path);
  f->size = FONT_PX;
  f->verts = malloc(IMP_TEXT_MAX_GLYPHS * 6 * 4 * sizeof(float));
  if (!ttf || !f->verts || !bake_atlas(f, ttf)) {
    fprintf(stderr, "impetus: %s: cannot load the overlay font; text is not drawn\n", path);
    free(ttf);
    return;
  }
  free(ttf);
  glGenVertexArrays(1, &f->vao);
  glGenBuffers(1, &f->vbo);
  glBindVertexArray(f->vao);
  glBindBuffer(GL_ARRAY_BUFFER, f->vbo);
  glBufferData(GL_ARRAY_BUFFER, IMP_TEXT_MAX_GLYPHS * 6 * 4 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void*)0);
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void*)(2 * sizeof(float)));
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  f->ok = 1;
}

void imp_font_free(imp_font* f) {
  if (f->tex) glDeleteTextures(1, &f->tex);
  if (f->vbo) glDeleteBuffers(1, &f->vbo);
  if (f->vao) glDeleteVertexArrays(1, &f->vao);
  free(f->verts);
  memset(f, 0, sizeof *f);
}

/* ---- drawing ---- */

static float* quad(float* v, float x0, float y0, float x1, float y1, float s0, float t0, float s1,
                   float t1) {
  const float q[6][4] = {{x0, y0, s0, t0}, {x1, y0, s1, t0}, {x1, y1, s1, t1},
                         {x0, y0, s0, t0}, {x1, y1, s1, t1}, {x0, y1, s0, t1}};
  memcpy(v, q, sizeof q);
  return v + 24;
}

static void begin_2d(imp_renderer* r, const float rgba[4], int solid) {
  float size[2] = {(float)r->width, (float)r->height};
  glUseProgram(r->prog_text);
  glUniform2fv(glGetUniformLocation(r->prog_text, "u_size"), 1, size);
  glUniform4fv(glGetUniformLocation(r->prog_text, "u_rgba"), 1, rgba);
  glUniform1i(glGetUniformLocation(r->prog_text, "u_solid"), solid);
  glUniform1i(glGetUniformLocation(r->prog_text, "u_font"), 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, r->font.tex);
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glBindVertexArray(r->font.vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->font.vbo);
}

static void end_2d(imp_renderer* r, int nvert) {
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)nvert * 4 * sizeof(float)),
                  r->font.verts);
  glDrawArrays(GL_TRIANGLES, 0, nvert);
  glDisable(GL_BLEND);
  glEnable(GL_DEPTH_TEST);
  glBindVertexArray(r->vao);
}

/* Glyph quads of text from (x, baseline); returns the vertices written. */
static int layout_line(imp_renderer* r, float x, float baseline, const char* text, int nvert) {
  float* v = r->font.verts + (size_t)nvert * 4;
  for (const char* c = text; *c && *c != '\n' && nvert + 6 <= IMP_TEXT_MAX_GLYPHS * 6; c++) {
    int ch = (unsigned char)*c;
    if (ch < 32 || ch >= 128) ch = '?';
    stbtt_aligned_quad q;
    stbtt_GetBakedQuad(r->font.glyph, ATLAS_W, ATLAS_H, ch - 32, &x, &baseline, &q, 1);
    v = quad(v, q.x0, q.y0, q.x1, q.y1, q.s0, q.t0, q.s1, q.t1);
    nvert += 6;
  }
  return nvert;
}

double imp_render_line_height(const imp_renderer* r) { return 1.3 * r->font.size; }

double imp_render_text_width(const imp_renderer* r, const char* text) {
  if (!r->font.ok) return 0;
  float x = 0, y = 0;
  for (const char* c = text; *c && *c != '\n'; c++) {
    int ch = (unsigned char)*c;
    if (ch < 32 || ch >= 128) ch = '?';
    stbtt_aligned_quad q;
    stbtt_GetBakedQuad(r->font.glyph, ATLAS_W, ATLAS_H, ch - 32, &x, &y, &q, 1);
  }
  return x;
}

void imp_render_text(imp_renderer* r, double x, double y, const char* text, const float rgb[3]) {
  if (!r->font.ok || r->width <= 0) return;
  float rgba[4] = {rgb[0], rgb[1], rgb[2], 1};
  begin_2d(r, rgba, 0);
  end_2d(r, layout_line(r, (float)x, (float)(y + r->font.size), text, 0));
}

/* Widest line of a '\n'-separated block, and its number of lines. */
static double block_size(const imp_renderer* r, const char* s, int* nlines) {
  double w = 0;
  *nlines = 0;
  while (s && *s) {
    double lw = imp_render_text_width(r, s);
    w = lw > w ? lw : w;
    (*nlines)++;
    const char* nl = strchr(s, '\n');
    s = nl ? nl + 1 : NULL;
  }
  return w;
}

/* Every line of s, left-aligned at x from the top y. */
static int layout_block(imp_renderer* r, float x, float y, const char* s, int nvert) {
  float lh = (float)imp_render_line_height(r);
  for (int i = 0; s && *s; i++) {
    nvert = layout_line(r, x, y + r->font.size + lh * (float)i, s, nvert);
    const char* nl = strchr(s, '\n');
    s = nl ? nl + 1 : NULL;
  }
  return nvert;
}

/* The panel's geometry (see render.h): one computation for drawing and for
   the viewer's mouse. */
void imp_render_overlay_box(const imp_renderer* r, int corner, const char* left, const char* right,
                            double box[4], double* text_top, double* right_x) {
  int nl, nr;
  double pad = 8, gap = 16, wl = block_size(r, left, &nl), wr = block_size(r, right, &nr);
  double w = wl + (nr ? gap + wr : 0) + 2 * pad;
  double h = (nl > nr ? nl : nr) * imp_render_line_height(r) + 2 * pad;
  double x = (corner == IMP_CORNER_TOPRIGHT || corner == IMP_CORNER_BOTTOMRIGHT) ? r->width - w : 0;
  double y =
      (corner == IMP_CORNER_BOTTOMLEFT || corner == IMP_CORNER_BOTTOMRIGHT) ? r->height - h : 0;
  box[0] = x, box[1] = y, box[2] = x + w, box[3] = y + h;
  *text_top = y + pad;
  *right_x = x + pad + wl + gap;
}

void imp_render_overlay(imp_renderer* r, int corner, const char* left, const char* right) {
  if (!r->font.ok || r->width <= 0) return;
  double b[4], top, rx;
  imp_render_overlay_box(r, corner, left, right, b, &top, &rx);
  /* the panel: dark and translucent so the scene shows through */
  static const float panel[4] = {0, 0, 0, 0.5f}, ink[4] = {1, 1, 1, 1};
  begin_2d(r, panel, 1);
  quad(r->font.verts, (float)b[0], (float)b[1], (float)b[2], (float)b[3], 0, 0, 0, 0);
  end_2d(r, 6);
  begin_2d(r, ink, 0);
  int nv = layout_block(r, (float)(b[0] + (top - b[1])), (float)top, left, 0);
  nv = layout_block(r, (float)rx, (float)top, right, nv);
  end_2d(r, nv);
}
