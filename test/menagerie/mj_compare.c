/* mj_compare MODEL [STEPS]: one model file against MuJoCo 2.2.2,
 * for the survey of real files (issue 13's table). Prints one line:
 *
 *   file | impetus: loads, warnings | mujoco: loads | nq nv nu nsensor |
 *   contact-free deviation over STEPS (default 1000) | smooth deviation |
 *   by kind | mass/inertia rel dev | nan resets in 2000 steps with contacts
 *
 * The contact-free run disables contacts in both (a hard and a soft
 * contact model cannot agree), and the smooth run limits, equalities and
 * dry friction too (smooth dynamics alone), both from qpos0 with zero
 * control; the deviation is the largest |qpos - qpos_mj| and |qvel -
 * qvel_mj| over the run. Where a run reaches a limit, equality or dry
 * friction, the two differ by design (ours are hard, MuJoCo's soft): the
 * line gives the rows of each kind with a force in both at the first step
 * past 1e-8,
 * and when the contact-free run is past 1e-8, one more run per kind with
 * that kind alone, so the reader can tell which constraint a deviation
 * starts at. The mass/inertia column is the largest relative difference
 * of the bodies' masses and sums of principal moments (MuJoCo 2.2.2 gives
 * a mesh the mass of its equivalent inertia box, the current docs that of
 * its volume). Built only with MuJoCo; not a test (real files are not
 * ours to commit). */
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

/* the constraint kinds the contact-free run keeps, by which the two
   engines differ by design (ours hard, MuJoCo's soft) */
enum { KIND_EQUALITY, KIND_LIMIT, KIND_FRICTIONLOSS, NKIND };
static const char* const kind_name[NKIND] = {"equality", "limit", "frictionloss"};
static const int kind_imp_flag[NKIND] = {IMP_DSBL_EQUALITY, IMP_DSBL_LIMIT, IMP_DSBL_FRICTIONLOSS};
static const int kind_mj_flag[NKIND] = {mjDSBL_EQUALITY, mjDSBL_LIMIT, mjDSBL_FRICTIONLOSS};

/* rows of each kind with a force at the last step (the rows of its
   forward pass; ours enter a step before they are reached, with no force
   until they are); a force below FORCE_MIN (N or N m) is rounding, as a
   bilateral row's at rest */
#define FORCE_MIN 1e-9

static void imp_rows(const imp_model* m, const imp_data* d, int n[NKIND]) {
  for (int k = 0; k < NKIND; k++) n[k] = 0;
  for (int r = 0; r < d->nefc; r++) {
    int t = fabs(d->efc_impulse[r]) > FORCE_MIN * m->opt.timestep ? d->efc_type[r] : -1;
    n[KIND_EQUALITY] += t == IMP_CNSTR_EQUALITY;
    n[KIND_LIMIT] += t == IMP_CNSTR_LIMIT;
    n[KIND_FRICTIONLOSS] += t == IMP_CNSTR_FRICTION;
  }
}

static void mj_rows(const mjData* md, int n[NKIND]) {
  for (int k = 0; k < NKIND; k++) n[k] = 0;
  for (int r = 0; r < md->nefc; r++) {
    int t = fabs(md->efc_force[r]) > FORCE_MIN ? md->efc_type[r] : -1;
    n[KIND_EQUALITY] += t == mjCNSTR_EQUALITY;
    n[KIND_LIMIT] += t == mjCNSTR_LIMIT_JOINT || t == mjCNSTR_LIMIT_TENDON;
    n[KIND_FRICTIONLOSS] += t == mjCNSTR_FRICTION_DOF || t == mjCNSTR_FRICTION_TENDON;
  }
}

/* One run from qpos0 with zero control, contacts off in both, and of the
   three kinds only those in `on` (a bit per kind): the largest |qpos -
   qpos_mj|, |qvel - qvel_mj| over nstep steps, the first step past 1e-8
   (-1 when none) and the rows of each kind with a force in each at that
   step. */
typedef struct run_result {
  double dev;
  int first, imp_n[NKIND], mj_n[NKIND];
  double imp_viol[2], mj_viol[2]; /* largest |equality residual| and limit overshoot */
  double viol0[2];                 /* the same at qpos0 (ours; the file's own) */
  double imp_end[2], mj_end[2];    /* the same at the last step */
  int held;                        /* steps where our contact stage held the corrections */
} run_result;

/* the largest |residual| of the equality rows and overshoot of the limit
   rows (ours hard: ~0; MuJoCo's soft: what its solref allows) */
static void imp_violation(const imp_data* d, double v[2]) {
  for (int r = 0; r < d->nefc; r++) {
    if (d->efc_type[r] == IMP_CNSTR_EQUALITY) v[0] = fmax(v[0], fabs(d->efc_pos[r]));
    if (d->efc_type[r] == IMP_CNSTR_LIMIT) v[1] = fmax(v[1], -d->efc_pos[r]);
  }
}

static void mj_violation(const mjModel* mm, const mjData* md, double v[2]) {
  for (int r = 0; r < md->nefc; r++) {
    int t = md->efc_type[r];
    if (t == mjCNSTR_EQUALITY) v[0] = fmax(v[0], fabs(md->efc_pos[r]));
    /* efc_pos of a limit is its distance to the range (the margin apart) */
    if (t == mjCNSTR_LIMIT_JOINT || t == mjCNSTR_LIMIT_TENDON) v[1] = fmax(v[1], -md->efc_pos[r]);
  }
  (void)mm;
}

static run_result run(imp_model* m, imp_data* d, mjModel* mm, int on, int nstep) {
  int ioff = IMP_DSBL_CONTACT, mjoff = mjDSBL_CONTACT;
  for (int k = 0; k < NKIND; k++)
    if (!(on >> k & 1)) ioff |= kind_imp_flag[k], mjoff |= kind_mj_flag[k];
  mjData* md = mj_makeData(mm);
  imp_reset_data(m, d);
  mm->opt.disableflags |= mjoff;
  m->opt.disableflags |= ioff;
  run_result r = {0, -1, {0}, {0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, 0};
  for (int s = 0; s < nstep; s++) {
    mj_step(mm, md);
    imp_step(m, d);
    imp_violation(d, r.imp_viol);
    if (s == 0) imp_violation(d, r.viol0);
    if (s == nstep - 1) {
      imp_violation(d, r.imp_end);
      mj_violation(mm, md, r.mj_end);
    }
    int held = 0;
    for (int k = 0; k < d->nisland; k++) held |= d->island_flags[k] & IMP_ISLAND_HELD;
    r.held += held;
    mj_violation(mm, md, r.mj_viol);
    r.dev = fmax(r.dev, fmax(max_dev(md->qpos, d->qpos, m->nq), max_dev(md->qvel, d->qvel, m->nv)));
    if (r.first < 0 && r.dev > 1e-8) {
      r.first = s;
      imp_rows(m, d, r.imp_n);
      mj_rows(md, r.mj_n);
    }
  }
  mm->opt.disableflags &= ~mjoff;
  m->opt.disableflags &= ~ioff;
  mj_deleteData(md);
  return r;
}

/* "(past 1e-8 at step S, N constraint rows with force: equality/limit/
   frictionloss ours E/L/F, MuJoCo's e/l/f)" */
static void print_first(const run_result* r) {
  if (r->first < 0) return;
  int ours = 0;
  for (int k = 0; k < NKIND; k++) ours += r->imp_n[k];
  printf(" (past 1e-8 at step %d, %d constraint rows with force", r->first, ours);
  if (ours || r->mj_n[0] || r->mj_n[1] || r->mj_n[2])
    printf(": equality/limit/frictionloss ours %d/%d/%d, MuJoCo's %d/%d/%d", r->imp_n[0], r->imp_n[1],
           r->imp_n[2], r->mj_n[0], r->mj_n[1], r->mj_n[2]);
  printf(")");
}

/* "; largest equality residual ours X, MuJoCo's Y (at qpos0 Z, at the
   end ...); limit overshoot ... [; corrections held by our contact stage
   on N steps]" */
static void print_violation(const run_result* r) {
  if (r->first < 0) return;
  printf("; largest equality residual ours %.2g, MuJoCo's %.2g (at qpos0 %.2g, at the end ours %.2g, "
         "MuJoCo's %.2g); limit overshoot ours %.2g, MuJoCo's %.2g (at qpos0 %.2g, at the end ours "
         "%.2g, MuJoCo's %.2g)",
         r->imp_viol[0], r->mj_viol[0], r->viol0[0], r->imp_end[0], r->mj_end[0], r->imp_viol[1],
         r->mj_viol[1], r->viol0[1], r->imp_end[1], r->mj_end[1]);
  /* a held island keeps its violations where they are (contact.c) */
  if (r->held) printf("; corrections held by our contact stage on %d steps", r->held);
}

/* largest relative difference of the bodies' mass and principal moments
   (MuJoCo 2.2.2 and the current docs compute mesh masses differently) */
static double mass_dev(const imp_model* m, const mjModel* mm) {
  double dev = 0;
  for (int b = 1; b < m->nbody && b < mm->nbody; b++) {
    double scale = fmax(fabs(mm->body_mass[b]), 1e-300);
    dev = fmax(dev, fabs(m->body_mass[b] - mm->body_mass[b]) / scale);
    /* moments in either order: both sort them, but ties may swap */
    double a = m->body_inertia[3 * b] + m->body_inertia[3 * b + 1] + m->body_inertia[3 * b + 2];
    double c = mm->body_inertia[3 * b] + mm->body_inertia[3 * b + 1] + mm->body_inertia[3 * b + 2];
    dev = fmax(dev, fabs(a - c) / fmax(fabs(c), 1e-300));
  }
  return dev;
}

/* MuJoCo's bodies given our mass, centre of mass, principal axes and
   moments; mj_setConst redoes what depends on them */
static void give_our_masses(const imp_model* m, mjModel* mm) {
  for (int b = 0; b < m->nbody; b++) {
    mm->body_mass[b] = m->body_mass[b];
    for (int i = 0; i < 3; i++) {
      mm->body_inertia[3 * b + i] = m->body_inertia[3 * b + i];
      mm->body_ipos[3 * b + i] = m->body_ipos[3 * b + i];
    }
    for (int i = 0; i < 4; i++) mm->body_iquat[4 * b + i] = m->body_iquat[4 * b + i];
  }
  mjData* md = mj_makeData(mm);
  mj_setConst(mm, md);
  mj_deleteData(md);
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
      /* contact-free, then also without limits, equalities and dry
         friction (the smooth dynamics alone: where hard and soft
         constraints cannot differ) */
      run_result cf = run(m, d, mm, 7, nstep), sm = run(m, d, mm, 0, nstep);
      printf(" | contact-free dev %.2g over %d steps", cf.dev, nstep);
      print_first(&cf);
      print_violation(&cf);
      printf(" | smooth (no contact, limit, equality, frictionloss) dev %.2g over %d steps", sm.dev,
             nstep);
      print_first(&sm);
      double mdev = mass_dev(m, mm);
      printf(" | mass/inertia rel dev %.2g", mdev);
      if (mdev > 1e-6) {
        /* the same runs with MuJoCo given our bodies' mass frames: what
           is left is not the mesh mass convention */
        give_our_masses(m, mm);
        cf = run(m, d, mm, 7, nstep);
        sm = run(m, d, mm, 0, nstep);
        printf(" | MuJoCo with our masses: contact-free dev %.2g", cf.dev);
        print_first(&cf);
        printf("; smooth dev %.2g", sm.dev);
        print_first(&sm);
      }
      /* where the two differ, each kind alone (contacts off): the first
         deviation of a kind's run comes at a step where that kind has
         rows, or the cause is elsewhere */
      printf(" | by kind%s:", mdev > 1e-6 ? " (with our masses)" : "");
      if (cf.dev > 1e-8) {
        for (int k = 0; k < NKIND; k++) {
          run_result r = run(m, d, mm, 1 << k, nstep);
          printf("%s %s only dev %.2g", k ? ";" : "", kind_name[k], r.dev);
          print_first(&r);
        }
      } else {
        printf(" not needed");
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
