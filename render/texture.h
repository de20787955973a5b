/* Texture images of a model, GL-free: MJCF's builtin textures (checker,
   gradient, flat, with edge/cross marks) generated, and 2D texture files
   (PNG and what else stb_image reads) loaded. The GL backend uploads them.
   Promises: reads m only; the loader allocates (at renderer creation). */
#ifndef IMPETUS_TEXTURE_H
#define IMPETUS_TEXTURE_H

#include "impetus.h"

/* Most pixels of a texture file (width x height, 4096 x 4096), checked
   from the image's header before it is decoded; beyond, the texture is
   refused with "file: why". Generous: the largest texture of MuJoCo's
   sample models and of MuJoCo Menagerie is 2048 x 2048 (4.2 million). The
   loader checks a PNG's header against the same number (model/loader.h,
   LD_MAXTEXTUREPIXELS), with the file and line of its <texture>. */
#define IMP_TEXTURE_MAXPIXELS (1 << 24)

/* RGB pixels of texture texid (3 * width * height bytes, malloc'ed, top
   row first) with its size; NULL with "file: why" in err when a texture
   file does not load. Builtin textures without a size get 64 x 64. */
unsigned char* imp_texture_rgb(const imp_model* m, int texid, int* width, int* height, char* err,
                               int errsz);

/* The six square faces of a cube or skybox texture, each size x size RGB
   (6 * 3 * size * size bytes, malloc'ed, top row first), in the order
   right, left, up, down, front, back (GL's +X -X +Y -Y +Z -Z). Builtins
   draw their pattern on every face (width texels wide, default 64); a file
   is cut by gridsize / gridlayout (MJCF) into faces, and with a 1 x 1 grid
   the whole image is every face. A face the layout omits is black. NULL
   with "file: why" in err. */
unsigned char* imp_texture_cube_faces(const imp_model* m, int texid, int* size, char* err,
                                      int errsz);

/* The colour of builtin texture texid at texel (i, j) of a w x h image,
   MJCF's rules: checker 2 x 2 squares (rgb1 top-left and bottom-right),
   gradient rgb1 at the centre to rgb2 at the rim, flat rgb1; marks in
   markrgb on the edges (mark="edge") or the middle lines (mark="cross"). */
void imp_texture_builtin_texel(const imp_model* m, int texid, int i, int j, int w, int h,
                               float rgb[3]);

#endif
