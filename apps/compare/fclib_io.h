/* FCLIB local frictional contact problems <-> imp_cproblem (fclib_io.c).
 *
 * FCLIB (Acary, Brémond, Koziara, Pérignon: "FCLIB: a collection of
 * discrete 3D frictional contact problems", 2014; Debian's libfclib-dev)
 * stores one problem per HDF5 file. Its LOCAL problem FC(W, q, mu) is
 *
 *     u = W r + q,  per contact a: r_a = (r_N, r_T1, r_T2),
 *     K_a = { ||r_T|| <= mu_a r_N },  K_a* dual cone,
 *     K* ∋ u + (mu_a ||u_T||, 0, 0) ⊥ r ∈ K     (De Saxce's form).
 *
 * Conventions, checked against fclib.h: normal first in both (FCLIB's r_a
 * and u_a are (N, T1, T2), ours [n, t1, t2]); r_N >= 0 pushes the bodies
 * apart and u_N >= 0 is separation, as our f_N >= 0 and v_N >= b_N; the
 * cone is circular in both. So a problem of ours whose blocks are all
 * condim-3 contacts is exactly the FCLIB problem
 *
 *     W = A,  q = v0 - b,  mu = mu,  r = f,  u = v - b
 *
 * (b is zero on friction rows, contact.h), and an FCLIB problem read here
 * becomes A = W, v0 = q, b = 0, one IMP_CNSTR_CONTACT block of dim 3 per
 * contact. Our problem's time step h is not part of FCLIB: it is written in
 * the info description ("timestep H") and read back from there; a file
 * from elsewhere gets h = 0 (no solver reads h, contact.h).
 *
 * What is not representable, and what happens:
 *  - on export, problems with any other block (equalities, limits,
 *    frictionless condim-1, condim-4/6 contacts) are not written:
 *    fclib_io_representable says so and the caller counts them. (Padding
 *    condim 1 to 3 with mu = 0 would be exact but adds rows the solvers
 *    would then have to solve; left out.)
 *  - on import, spacedim 2 (2D friction), the mixed problem with V, R, s
 *    (equality multipliers), a global problem (M, H, G) and non-square W
 *    are rejected with a message naming the file.
 *
 * W is written in compressed-column form (nz = -1, the form CSparse-based
 * readers such as fclib's own merit function use), entries that are 0
 * left out; W is read in any of FCLIB's three forms (triplet, duplicates
 * summed; CSC; CSR) into our dense row-major A.
 *
 * libfclib exits the process on any HDF5 error while reading, and reads
 * into buffers sized from the file's own counters, so every dataset it
 * will touch is checked (presence, type class, element count) with HDF5
 * first; a bad file then gives a message, never an exit or an overflow.
 * Writing goes to PATH.tmp, renamed to PATH when complete: a file is
 * complete or absent. (libfclib still exits on an HDF5 error in the middle
 * of writing, e.g. a full disk; PATH.tmp then remains, PATH does not.)
 *
 * Built only when libfclib-dev is found (IMP_HAVE_FCLIB); otherwise every
 * function reports that this program was built without FCLIB. */
#ifndef IMPETUS_APPS_FCLIB_IO_H
#define IMPETUS_APPS_FCLIB_IO_H

#include <stddef.h>

#include "constraint/contact.h"

/* Largest FCLIB problem read, in rows: A is dense (n^2 doubles, 288 MB). */
#define FCLIB_IO_MAX_ROWS 6000

/* 1 when this program was built with libfclib. */
int fclib_io_available(void);

/* 1 when p maps exactly onto an FCLIB local problem: at least one block,
   and every block a contact of dim 3, blocks in row order. */
int fclib_io_representable(const imp_cproblem* p);

/* Write p (representable) to the FCLIB local-problem file path, with title
   in the file's info. Returns 0, or -1 with "path: why" in err. */
int fclib_io_write(const char* path, const imp_cproblem* p, const char* title, char* err,
                   size_t nerr);

/* Read the FCLIB local problem at path into *out, whose arrays live in one
   block *mem (the caller frees it with free). Returns 0, or -1 with
   "path: why" in err (*mem NULL). */
int fclib_io_read(const char* path, imp_cproblem* out, void** mem, char* err, size_t nerr);

/* Counts of one scene's export by fclib_io_export. */
typedef struct fclib_io_count {
  int written;
  int skipped; /* not representable */
} fclib_io_count;

/* Export problem k of scene: DIR/<scene>_<k>.hdf5 when representable (count
   written), else count skipped. Returns 0, or -1 after a message on stderr. */
int fclib_io_export(const char* dir, const char* scene, int k, const imp_cproblem* p,
                    fclib_io_count* c);

#endif
