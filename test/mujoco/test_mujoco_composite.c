/* MJCF <composite> against MuJoCo 2.2.2 (built only when libmujoco-dev is
 * found): MuJoCo's own sample models that use it (every model/composite file but scene.xml,
 * flag/flag.xml, hammock/hammock.xml), loaded by both from the same path.
 *
 * The expansion must give the same model: the same counts (bodies, joints,
 * geoms, sites, tendons and their paths, equalities, excludes, nq, nv), the
 * same objects in the same order (names, tree, joint types and axes,
 * equality and tendon references), and body_pos, body_quat, body_mass,
 * body_inertia, geom sizes and poses to 1e-12. Then the dynamics: contacts
 * off in both (a hard and a soft contact model cannot agree), and the
 * equalities too where the run pulls on them (ours are hard, MuJoCo's soft:
 * grid2pin's and the hammock's tendons hanging from their pins), qpos and
 * qvel must agree to 1e-8 over 1000 steps. softbox's equalities are off
 * only for time (about 800 rows in one problem every step; in free fall they
 * hold, and mj_compare measures 8.5e-14 with them on). The run prints the
 * largest deviations, so ctest -V shows how close. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "mj_pair.h"
#include "test_util.h"

#define NSTEP 1000
#define TOL 1e-8
#define TOL_MODEL 1e-12

typedef struct sample {
  const char* path; /* under MUJOCO_MODEL_DIR */
  int equality_off; /* equalities off in both (see above) */
} sample;

static const sample k_samples[] = {
    {"composite/particle.xml", 0}, {"composite/grid2pin.xml", 1}, {"composite/rope.xml", 0},
    {"composite/loop.xml", 0},     {"composite/cloth.xml", 0},    {"composite/softbox.xml", 1},
    {"flag/flag.xml", 0},          {"hammock/hammock.xml", 1},
};
#define NSAMPLE ((int)(sizeof k_samples / sizeof *k_samples))

static double max_dev(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

static void sample_path(int i, char* path, size_t n) {
  int len = snprintf(path, n, "%s/%s", MUJOCO_MODEL_DIR, k_samples[i].path);
  ck_assert(len > 0 && (size_t)len < n);
}

/* the names of every object of one kind agree */
static void check_names(const pair* p, const char* file, imp_obj_type it, mjtObj mt, int n,
                        const char* what) {
  for (int i = 0; i < n; i++) {
    const char* a = imp_id2name(p->m, it, i);
    const char* b = mj_id2name(p->mm, mt, i);
    ck_assert_msg(!strcmp(a ? a : "", b ? b : ""), "%s: %s %d named '%s', MuJoCo '%s'", file,
                  what, i, a ? a : "", b ? b : "");
  }
}

#define EQ_INT(f) \
  ck_assert_msg(p->m->f == p->mm->f, "%s: " #f " %d, MuJoCo %d", name, p->m->f, p->mm->f)
#define EQ_INTS(f, n)                                                                       \
  for (int k = 0; k < (n); k++)                                                             \
  ck_assert_msg(p->m->f[k] == p->mm->f[k], "%s: " #f "[%d] %d, MuJoCo %d", name, k, p->m->f[k], \
                p->mm->f[k])
#define EQ_REALS(f, n)                                                                          \
  do {                                                                                          \
    double e_ = max_dev(p->m->f, p->mm->f, (n));                                                \
    ck_assert_msg(e_ <= TOL_MODEL, "%s: " #f " differs by %g", name, e_);                       \
  } while (0)

/* the model p->m compiled from the file is MuJoCo's p->mm */
static void check_same_model(const pair* p, const char* name) {
  EQ_INT(nbody);
  EQ_INT(njnt);
  EQ_INT(ngeom);
  EQ_INT(nsite);
  EQ_INT(ntendon);
  EQ_INT(nwrap);
  EQ_INT(neq);
  EQ_INT(nexclude);
  EQ_INT(nq);
  EQ_INT(nv);
  ck_assert_msg(p->m->nbody > 5, "%s: the composite made no bodies", name);
  check_names(p, name, IMP_OBJ_BODY, mjOBJ_BODY, p->m->nbody, "body");
  check_names(p, name, IMP_OBJ_JOINT, mjOBJ_JOINT, p->m->njnt, "joint");
  check_names(p, name, IMP_OBJ_GEOM, mjOBJ_GEOM, p->m->ngeom, "geom");
  check_names(p, name, IMP_OBJ_SITE, mjOBJ_SITE, p->m->nsite, "site");
  check_names(p, name, IMP_OBJ_TENDON, mjOBJ_TENDON, p->m->ntendon, "tendon");
  EQ_INTS(body_parentid, p->m->nbody);
  EQ_INTS(jnt_type, p->m->njnt);
  EQ_INTS(jnt_bodyid, p->m->njnt);
  EQ_INTS(geom_type, p->m->ngeom);
  EQ_INTS(geom_bodyid, p->m->ngeom);
  EQ_INTS(geom_contype, p->m->ngeom);
  EQ_INTS(geom_condim, p->m->ngeom);
  EQ_INTS(geom_priority, p->m->ngeom);
  EQ_INTS(geom_group, p->m->ngeom);
  EQ_INTS(site_bodyid, p->m->nsite);
  EQ_INTS(eq_type, p->m->neq);
  EQ_INTS(eq_obj1id, p->m->neq);
  EQ_INTS(eq_obj2id, p->m->neq);
  EQ_INTS(tendon_adr, p->m->ntendon);
  EQ_INTS(tendon_num, p->m->ntendon);
  EQ_INTS(tendon_group, p->m->ntendon);
  EQ_INTS(wrap_type, p->m->nwrap);
  EQ_INTS(wrap_objid, p->m->nwrap);
  /* MuJoCo's signature: (body1 + 1) << 16 | (body2 + 1) */
  for (int k = 0; k < p->m->nexclude; k++)
    ck_assert_msg(((p->m->exclude_body1[k] + 1) << 16 | (p->m->exclude_body2[k] + 1)) ==
                      p->mm->exclude_signature[k],
                  "%s: exclude %d", name, k);
  EQ_REALS(body_pos, 3 * p->m->nbody);
  EQ_REALS(body_quat, 4 * p->m->nbody);
  EQ_REALS(body_mass, p->m->nbody);
  EQ_REALS(body_inertia, 3 * p->m->nbody);
  EQ_REALS(body_ipos, 3 * p->m->nbody);
  EQ_REALS(jnt_pos, 3 * p->m->njnt);
  EQ_REALS(jnt_axis, 3 * p->m->njnt);
  EQ_REALS(dof_damping, p->m->nv);
  EQ_REALS(dof_armature, p->m->nv);
  EQ_REALS(dof_frictionloss, p->m->nv);
  EQ_REALS(jnt_stiffness, p->m->njnt);
  EQ_REALS(jnt_range, 2 * p->m->njnt);
  EQ_REALS(geom_friction, 3 * p->m->ngeom);
  EQ_REALS(geom_size, 3 * p->m->ngeom);
  EQ_REALS(geom_pos, 3 * p->m->ngeom);
  EQ_REALS(geom_quat, 4 * p->m->ngeom);
  EQ_REALS(site_pos, 3 * p->m->nsite);
  EQ_REALS(eq_solref, 2 * p->m->neq);
  EQ_REALS(wrap_prm, p->m->nwrap);
  /* joint and tendon equalities: polycoef */
  for (int e = 0; e < p->m->neq; e++)
    if (p->m->eq_type[e] == IMP_EQ_JOINT || p->m->eq_type[e] == IMP_EQ_TENDON)
      ck_assert_msg(max_dev(p->m->eq_data + 11 * e, p->mm->eq_data + mjNEQDATA * e, 5) == 0,
                    "%s: equality %d polycoef", name, e);
  EQ_REALS(tendon_length0, p->m->ntendon);
  for (int t = 0; t < p->m->ntendon; t++) {
    ck_assert_msg(fabs(p->m->tendon_stiffness[3 * t] - p->mm->tendon_stiffness[t]) <= TOL_MODEL,
                  "%s: tendon %d stiffness", name, t);
    ck_assert_msg(fabs(p->m->tendon_damping[3 * t] - p->mm->tendon_damping[t]) <= TOL_MODEL,
                  "%s: tendon %d damping", name, t);
  }
}

START_TEST(model_matches_mujoco) {
  char path[4096];
  sample_path(_i, path, sizeof path);
  pair p;
  mjp_load(&p, k_samples[_i].path, path, path);
  check_same_model(&p, k_samples[_i].path);
  mjp_free(&p);
}
END_TEST

START_TEST(contact_free_run_matches_mujoco) {
  char path[4096];
  sample_path(_i, path, sizeof path);
  pair p;
  mjp_load(&p, k_samples[_i].path, path, path);
  p.mm->opt.disableflags |= mjDSBL_CONTACT;
  p.m->opt.disableflags |= IMP_DSBL_CONTACT;
  if (k_samples[_i].equality_off) {
    p.mm->opt.disableflags |= mjDSBL_EQUALITY;
    p.m->opt.disableflags |= IMP_DSBL_EQUALITY;
  }
  double eq = 0, ev = 0, moved = 0;
  for (int s = 0; s < NSTEP; s++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    eq = fmax(eq, max_dev(p.d->qpos, p.md->qpos, p.m->nq));
    ev = fmax(ev, max_dev(p.d->qvel, p.md->qvel, p.m->nv));
  }
  moved = max_dev(p.md->qpos, p.mm->qpos0, p.m->nq);
  printf("%s: qpos dev %.1e, qvel dev %.1e over %d steps (moved %.2f)\n", k_samples[_i].path, eq,
         ev, NSTEP, moved);
  ck_assert_int_eq(p.d->nwarning_nan, 0);
  ck_assert_msg(moved > 0.1, "%s: the run hardly moved (%g)", k_samples[_i].path, moved);
  ck_assert_msg(eq <= TOL && ev <= TOL, "%s: qpos dev %g, qvel dev %g", k_samples[_i].path, eq,
                ev);
  mjp_free(&p);
}
END_TEST

/* The largest |L - L0| over the tendons, L0 the lengths at the start. */
static double tendon_stray(const double* len, const double* len0, int n) {
  return max_dev(len, len0, n);
}

/* grid2pin's and the hammock's tendon equalities, on, contacts off: ours
   are hard, MuJoCo's soft, so the trajectories part, but both hold the
   tendons near their lengths. Ours stray by what the velocity-level rows
   let through within a step, pulled back the next; they may not stray
   more than twice as far as MuJoCo's (measured: grid2pin 0.017 against
   0.011, hammock 0.0018 against 0.0033). Before the energy guard learnt the
   need of coupled corrections (contact.c, injects_too_much) it held every
   correction of these grids and the tendons stretched steadily (grid2pin:
   0.085 over 1000 steps). */
START_TEST(tendon_equalities_hold_like_mujocos) {
  static const char* const files[] = {"composite/grid2pin.xml", "hammock/hammock.xml"};
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", MUJOCO_MODEL_DIR, files[_i]);
  pair p;
  mjp_load(&p, files[_i], path, path);
  p.mm->opt.disableflags |= mjDSBL_CONTACT;
  p.m->opt.disableflags |= IMP_DSBL_CONTACT;
  int nt = p.m->ntendon;
  ck_assert_int_gt(nt, 0);
  ck_assert_int_eq(nt, p.mm->ntendon);
  imp_forward(p.m, p.d);
  mj_forward(p.mm, p.md);
  double len0[1024], ours = 0, theirs = 0;
  ck_assert_int_le(nt, 1024);
  for (int t = 0; t < nt; t++) len0[t] = p.d->ten_length[t];
  for (int s = 0; s < NSTEP; s++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    imp_forward(p.m, p.d);
    mj_forward(p.mm, p.md);
    ours = fmax(ours, tendon_stray(p.d->ten_length, len0, nt));
    theirs = fmax(theirs, tendon_stray(p.md->ten_length, len0, nt));
  }
  printf("%s: tendons stray at most %.2g from their lengths over %d steps (MuJoCo %.2g)\n",
         files[_i], ours, NSTEP, theirs);
  ck_assert_int_eq(p.d->nwarning_nan, 0);
  ck_assert_msg(theirs > 1e-3, "%s: MuJoCo's tendons hardly moved (%g)", files[_i], theirs);
  ck_assert_msg(ours <= 2 * theirs, "%s: ours stray %g, MuJoCo's %g", files[_i], ours, theirs);
  mjp_free(&p);
}
END_TEST

/* ---- our own snippets: the kinds and options the samples leave out ---- */

typedef struct snippet {
  const char* name;
  const char* body; /* inside <worldbody> */
  int off;          /* extra disable flags of the run: 1 equality, 2 limits */
} snippet;

static const snippet k_snippets[] = {
    {"cylinder",
     "<body pos='0 0 1'><freejoint/>"
     "<composite type='cylinder' count='6 6 5' spacing='0.05'>"
     "<geom type='sphere' size='.01'/><joint kind='main' stiffness='1' damping='.1'/>"
     "</composite></body>",
     1},
    {"ellipsoid",
     "<body pos='0 0 1' euler='10 20 30'><freejoint/>"
     "<composite prefix='e' type='ellipsoid' count='5 7 4' spacing='0.04'"
     " solrefsmooth='0.05 0.8'>"
     "<geom type='ellipsoid' size='.01 .01 .02' mass='0.01'/>"
     "<joint kind='main' armature='0.01' range='-0.01 0.01'/>"
     "<tendon kind='main' solreffix='0.04 1'/>"
     "</composite></body>",
     3},
    {"rope_twist_stretch",
     "<body name='rB3' pos='0 0 1'><joint type='ball'/>"
     "<composite prefix='r' type='rope' count='8 1 1' spacing='0.06'>"
     "<geom type='sphere' size='.02' mass='.1'/>"
     "<joint kind='main' damping='.01' stiffness='.2'/>"
     "<joint kind='twist' stiffness='.5' damping='.01' solreffix='0.05 1'/>"
     "<joint kind='stretch' stiffness='30' damping='.1'/>"
     "</composite></body>",
     1},
    {"cloth_shear",
     "<body name='cB2_1' pos='0 0 1' euler='0 30 0'><freejoint/>"
     "<composite prefix='c' type='cloth' count='5 4 1' spacing='0.05'>"
     "<geom type='ellipsoid' size='.02 .01 .015'/><site size='.01' group='2'/>"
     "<joint kind='main' damping='.002'/><joint kind='twist' damping='.002'/>"
     "<joint kind='stretch' damping='.01' stiffness='10'/>"
     "<tendon kind='main' stiffness='20' damping='.01' width='.002'/>"
     "<tendon kind='shear' stiffness='10' damping='.01'/>"
     "</composite></body>",
     1},
    {"grid_1d",
     "<composite type='grid' count='7 1 1' spacing='0.1' offset='0 0 1'>"
     "<pin coord='0'/><pin coord='6'/><geom size='.02' density='300'/>"
     "<joint kind='main' damping='.05'/><tendon kind='main' stiffness='50' damping='.1'/>"
     "</composite>",
     1},
    {"grid_2d_shear",
     "<body pos='0.2 0 1' euler='0 0 30'>"
     "<composite prefix='g' type='grid' count='4 5 1' spacing='0.08' offset='0.1 0 0.2'>"
     "<pin coord='0 0'/><pin coord='3 4'/><geom type='capsule' size='.02 .01'/>"
     "<tendon kind='shear' stiffness='5' damping='.1'/><tendon kind='main' damping='.2'/>"
     "</composite></body>",
     1},
    {"particle_classes",
     "<body name='a' pos='0 0 1' childclass='red'><geom size='.1'/>"
     "<body name='before' pos='0 0 .5'><joint axis='1 0 0'/><geom size='.05'/></body>"
     "<composite type='particle' count='3 2 1' spacing='0.1' offset='0 1 0'>"
     "<geom size='.03' friction='.5'/></composite>"
     "<body name='after' pos='0 0 -.5'><joint axis='0 1 0'/><geom size='.05'/></body>"
     "</body>",
     0},
};
#define NSNIPPET ((int)(sizeof k_snippets / sizeof *k_snippets))

/* the snippet's file: a class "red" and the main class's geom changed, which
   the composite must not see; autolimits, which MuJoCo 2.2.2 needs for a
   composite joint's range (it reads no "limited" of a composite joint) */
static void snippet_path(int i, char* path, size_t n) {
  char xml[4096];
  int len = snprintf(xml, sizeof xml,
                     "<mujoco model='%s'>\n"
                     "  <compiler autolimits='true'/><option timestep='0.002'/>\n"
                     "  <default><geom condim='6' density='500' rgba='1 0 0 1'/>"
                     "<joint damping='3'/><site size='.2'/>\n"
                     "    <default class='red'><geom condim='4'/></default></default>\n"
                     "  <worldbody>\n    %s\n  </worldbody>\n</mujoco>\n",
                     k_snippets[i].name, k_snippets[i].body);
  ck_assert(len > 0 && (size_t)len < sizeof xml);
  char stem[128];
  snprintf(stem, sizeof stem, "mjcomposite_%s", k_snippets[i].name);
  mjp_write(stem, xml, path, n);
}

START_TEST(snippet_model_matches_mujoco) {
  char path[4096];
  snippet_path(_i, path, sizeof path);
  pair p;
  mjp_load(&p, k_snippets[_i].name, path, path);
  imp_test_no_warnings(p.m);
  check_same_model(&p, k_snippets[_i].name);
  mjp_free(&p);
}
END_TEST

START_TEST(snippet_run_matches_mujoco) {
  char path[4096];
  snippet_path(_i, path, sizeof path);
  pair p;
  mjp_load(&p, k_snippets[_i].name, path, path);
  int off = k_snippets[_i].off;
  p.mm->opt.disableflags |= mjDSBL_CONTACT | (off & 1 ? mjDSBL_EQUALITY : 0) |
                            (off & 2 ? mjDSBL_LIMIT : 0);
  p.m->opt.disableflags |= IMP_DSBL_CONTACT | (off & 1 ? IMP_DSBL_EQUALITY : 0) |
                           (off & 2 ? IMP_DSBL_LIMIT : 0);
  /* the same start velocity in both, so that every joint works (the
     sliders of the 3D shapes would stay put in free fall) */
  for (int i = 0; i < p.m->nv; i++) p.d->qvel[i] = p.md->qvel[i] = 0.3 * sin(1.7 * i + 0.5);
  double eq = 0, ev = 0;
  for (int s = 0; s < NSTEP; s++) {
    mj_step(p.mm, p.md);
    imp_step(p.m, p.d);
    eq = fmax(eq, max_dev(p.d->qpos, p.md->qpos, p.m->nq));
    ev = fmax(ev, max_dev(p.d->qvel, p.md->qvel, p.m->nv));
  }
  double moved = max_dev(p.md->qpos, p.mm->qpos0, p.m->nq);
  printf("%s: qpos dev %.1e, qvel dev %.1e over %d steps (moved %.2f)\n", k_snippets[_i].name, eq,
         ev, NSTEP, moved);
  ck_assert_int_eq(p.d->nwarning_nan, 0);
  ck_assert_msg(moved > 0.1, "%s: the run hardly moved (%g)", k_snippets[_i].name, moved);
  ck_assert_msg(eq <= TOL && ev <= TOL, "%s: qpos dev %g, qvel dev %g", k_snippets[_i].name, eq,
                ev);
  mjp_free(&p);
}
END_TEST

static Suite* composite_suite(void) {
  Suite* s = suite_create("mujoco_composite");
  TCase* tc = tcase_create("samples");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, model_matches_mujoco, 0, NSAMPLE);
  tcase_add_loop_test(tc, contact_free_run_matches_mujoco, 0, NSAMPLE);
  tcase_add_loop_test(tc, tendon_equalities_hold_like_mujocos, 0, 2);
  tcase_add_loop_test(tc, snippet_model_matches_mujoco, 0, NSNIPPET);
  tcase_add_loop_test(tc, snippet_run_matches_mujoco, 0, NSNIPPET);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return imp_test_run_suite(composite_suite()); }
