/* impetus solvers --compare: record the contact problems of scenes and
   solve each with every registered solver (solver_compare.c). */
#ifndef IMPETUS_APPS_SOLVER_COMPARE_H
#define IMPETUS_APPS_SOLVER_COMPARE_H

typedef struct compare_opt {
  const char* out;   /* output directory (created) */
  int steps;         /* simulation steps per scene (after the humanoid's settling) */
  int every;         /* keep every k-th problem */
  int max_problems;  /* at most this many problems per scene */
  int maxiter;       /* iterations per solve */
  double tol;        /* the solvers' own tolerance */
  const char* const* scenes; /* model files or FCLIB problem files (.hdf5, .h5);
                                NULL (nscenes 0): the built-in scenes */
  int nscenes;
  const char* fclib_out; /* NULL, or write each recorded problem FCLIB can hold
                            here as <scene>_<k>.hdf5 (fclib_io.h) */
  int no_siconos;    /* 1: leave out Siconos' solvers (siconos_bridge.h) where built */
} compare_opt;

/* Returns a CLI exit status (0, 1 on files that cannot be read or written). */
int solver_compare(const compare_opt* o);

#endif
