/* The installed renderer, used as a program outside this tree uses it: draw
   one headless frame of a model and say whether anything was drawn.
   usage: render_probe MODEL.xml   prints "drawn: W x H, N colours" and exits
   0 when the frame holds more than one colour (a model over the skybox). */
#include <stdio.h>
#include <stdlib.h>

#include <impetus/render.h>

enum { W = 64, H = 48 };

/* distinct RGB triples in the image, counted up to 2 (all that is asked) */
static int colours_at_least_two(const unsigned char* rgb) {
  for (int i = 1; i < W * H; i++)
    for (int c = 0; c < 3; c++)
      if (rgb[3 * i + c] != rgb[c]) return 2;
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.xml\n", argv[0]);
    return 2;
  }
  char err[1000];
  imp_model* m = imp_load_xml(argv[1], err, sizeof err);
  if (!m) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  imp_data* d = imp_make_data(m);
  imp_offscreen* o = d ? imp_offscreen_make(W, H, IMP_GL_AUTO, err, sizeof err) : NULL;
  imp_renderer* r = o ? imp_render_make(m, err, sizeof err) : NULL;
  int status = 1;
  if (r) {
    imp_forward(m, d);
    imp_render_opt opt;
    imp_render_opt_default(&opt);
    imp_camera cam;
    imp_camera_default(m, &cam);
    imp_offscreen_bind(o);
    imp_render_frame(r, m, d, &cam, &opt, W, H);
    static unsigned char rgb[3 * W * H];
    imp_offscreen_read_rgb(o, rgb);
    int n = colours_at_least_two(rgb);
    printf("drawn: %d x %d, %s colours\n", W, H, n > 1 ? "several" : "one");
    status = n > 1 ? 0 : 1;
  } else {
    fprintf(stderr, "render_probe: %s\n", d ? err : "out of memory");
  }
  imp_render_free(r);
  imp_offscreen_free(o);
  imp_free_data(d);
  imp_free_model(m);
  return status;
}
