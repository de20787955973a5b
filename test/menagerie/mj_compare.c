/* mj_compare MODEL [STEPS]: one model file against MuJoCo 2.2.2,
 * for the survey of real files (issue 13's table). Prints one line:
 *
 *   file | impetus: loads, warnings | mujoco: loads | nq nv nu nsensor equal |
 *   contact-free deviation over STEPS (default 1000) | nan resets in 2000
 *   steps with contacts
 *
 * The contact-free run disables contacts in both (a hard and a soft
 * contact model cannot agree), and once more without limits and equalities
 * and dry friction too (smooth dynamics alone), from qpos0 with zero control; the
 * deviation is the largest |qpos - qpos_mj| and |qvel - qvel_mj| over the
 * run. Limits and equalities stay on: where the run reaches one, the two
 * differ by design (ours are hard), and the line says how many constraint
 * rows we had at the first step past 1e-8 so the reader can tell. Built
 * only with MuJoCo; not a test (real files are not ours to commit). */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "impetus.h"

static double max_dev(const double* a, const double* b, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL [STEPS]\n", argv[0]);
    return 2;
  }
  int nstep = argc > 2 ? atoi(argv[2]) : 1000;
  char err[4000] = "";
  imp_model* m = imp_load_xml(argv[1], err, sizeof err);
  char mjerr[1000] = "";
  mjModel* mm = mj_loadXML(argv[1], NULL, mjerr, sizeof mjerr);
  printf("%s | impetus: %s", argv[1], m ? "loads" : "refused");
  if (!m) {
    char* nl = strchr(err, '\n');
    if (nl) *nl = 0;
    printf(" (%s)", err);
  } else {
    printf(", %d warnings", m->nwarning);
  }
  printf(" | mujoco 2.2.2: %s", mm ? "loads" : "does not load");
  if (!m) {
    printf("\n");
    return 0;
  }
  imp_data* d = imp_make_data(m);
  int nan = 0;
  for (int s = 0; s < 2000; s++) imp_step(m, d);
  nan = d->nwarning_nan;
  if (mm) {
    printf(" | nq %d/%d nv %d/%d nu %d/%d nsensor %d/%d", m->nq, mm->nq, m->nv, mm->nv, m->nu,
           mm->nu, m->nsensor, mm->nsensor);
    int same = m->nq == mm->nq && m->nv == mm->nv && m->nu == mm->nu && m->nsensor == mm->nsensor;
    if (same) {
      /* contact-free, then also without limits and equalities (the smooth
         dynamics alone: the part where hard and soft constraints cannot
         differ) */
      for (int pass = 0; pass < 2; pass++) {
        mjData* md = mj_makeData(mm);
        imp_reset_data(m, d);
        int mjoff = mjDSBL_CONTACT | (pass ? mjDSBL_LIMIT | mjDSBL_EQUALITY | mjDSBL_FRICTIONLOSS : 0);
        int ioff = IMP_DSBL_CONTACT | (pass ? IMP_DSBL_LIMIT | IMP_DSBL_EQUALITY | IMP_DSBL_FRICTIONLOSS : 0);
        mm->opt.disableflags |= mjoff;
        m->opt.disableflags |= ioff;
        double dev = 0;
        int first = -1, rows = 0;
        for (int s = 0; s < nstep; s++) {
          mj_step(mm, md);
          imp_step(m, d);
          dev = fmax(dev, fmax(max_dev(md->qpos, d->qpos, m->nq), max_dev(md->qvel, d->qvel, m->nv)));
          if (first < 0 && dev > 1e-8) first = s, rows = d->nefc;
        }
        printf(" | %s dev %.2g over %d steps", pass ? "smooth (no contact, limit, equality, frictionloss)" : "contact-free",
               dev, nstep);
        if (first >= 0) printf(" (past 1e-8 at step %d, %d constraint rows)", first, rows);
        mm->opt.disableflags &= ~mjoff;
        m->opt.disableflags &= ~ioff;
        mj_deleteData(md);
      }
    }
    mj_deleteModel(mm);
  }
  printf(" | nan resets %d\n", nan);
  if (m->nwarning) printf("%s", m->warnings);
  imp_free_data(d);
  imp_free_model(m);
  return 0;
}
