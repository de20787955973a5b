/* impetus check MODEL.xml [--contacts [--key NAME] [--solver NAME]]: load a
   model, print its sizes, and optionally the contacts of its initial state
   (and what a chosen contact solver made of them). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const char* const geom_type_names[IMP_NGEOMTYPES] = {
    "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};

/* "name" or "#id" of geom g into buf */
static const char* geom_label(const imp_model* m, int g, char* buf, size_t n) {
  const char* name = imp_id2name(m, IMP_OBJ_GEOM, g);
  if (name && name[0])
    snprintf(buf, n, "%s", name);
  else
    snprintf(buf, n, "#%d", g);
  return buf;
}

static void print_contacts(const imp_model* m, const imp_data* d) {
  printf("ncon: %d\n", d->ncon);
  if (d->ncon_dropped) printf("ncon_dropped: %d\n", d->ncon_dropped);
  for (int i = 0; i < d->ncon; i++) {
    const imp_contact* c = d->contact + i;
    char a[64], b[64];
    printf("contact %d: %s (%s) - %s (%s) dist %.9g pos %.9g %.9g %.9g normal %.9g %.9g %.9g "
           "condim %d friction %g %g %g\n",
           i, geom_label(m, c->geom1, a, sizeof a), geom_type_names[m->geom_type[c->geom1]],
           geom_label(m, c->geom2, b, sizeof b), geom_type_names[m->geom_type[c->geom2]], c->dist,
           c->pos[0], c->pos[1], c->pos[2], c->frame[0], c->frame[1], c->frame[2], c->dim,
           c->friction[0], c->friction[2], c->friction[3]);
  }
}

/* nkey, then one line per keyframe, "key I: NAME" (names may hold spaces,
   so one a line; an unnamed keyframe shows as #I, which run --key takes) */
static void print_keys(const imp_model* m) {
  printf("nkey: %d\n", m->nkey);
  for (int k = 0; k < m->nkey; k++) {
    const char* name = imp_id2name(m, IMP_OBJ_KEY, k);
    if (name && name[0])
      printf("key %d: %s\n", k, name);
    else
      printf("key %d: #%d\n", k, k);
  }
}

/* the contact stage's line for --solver: what the solver did at the initial state */
static void print_solver(const imp_data* d) {
  const char* name = imp_solver_name(d->solver);
  printf("solver: %s iterations: %d exit: %s residual: %.6g\n", name ? name : "?",
         d->solver_iter, cli_exit_name(d->solver_exit), d->solver_residual);
}

/* contacts at the initial state, solved by solver (NULL: the model's and no
   solver line); 0 or an exit status */
static int check_contacts(const imp_model* m, const char* path, const char* key,
                          const char* solver) {
  imp_data* d = imp_make_data(m);
  if (!d) {
    fprintf(stderr, "impetus check: out of memory\n");
    return CLI_EXIT_ERROR;
  }
  if (key) {
    int k = cli_find_key(m, path, key);
    if (k < 0) {
      imp_free_data(d);
      return CLI_EXIT_ERROR;
    }
    imp_reset_data_keyframe(m, d, k);
  }
  if (solver && imp_set_solver(m, d, solver) != 0) { /* checked with the arguments */
    cli_check_solver("check", solver);
    imp_free_data(d);
    return CLI_EXIT_USAGE;
  }
  imp_forward(m, d);
  print_contacts(m, d);
  if (solver) print_solver(d);
  imp_free_data(d);
  return 0;
}

int cmd_check(int argc, char** argv) {
  int load_options = cli_take_load_options(&argc, argv);
  const char* path = NULL;
  const char* key = NULL;
  const char* solver = NULL;
  int contacts = 0;
  for (int i = 1; i < argc; i++) {
    const char* v = NULL;
    int k;
    if (cli_is_help(argv[i])) {
      cli_usage("check", 0);
      return 0;
    }
    if (!strcmp(argv[i], "--contacts")) {
      contacts = 1;
      continue;
    }
    if ((k = cli_option(argc, argv, &i, "key", &v)) != 0) {
      if (k < 0) return CLI_EXIT_USAGE;
      key = v;
      continue;
    }
    if ((k = cli_option(argc, argv, &i, "solver", &v)) != 0) {
      if (k < 0 || cli_check_solver("check", v)) return CLI_EXIT_USAGE;
      solver = v;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option '%s'", argv[i]);
    }
    if (path) {
      return cli_usage_error("one model at a time ('%s' and '%s')", path, argv[i]);
    }
    path = argv[i];
  }
  if (!path) {
    return cli_usage_error("no model given");
  }
  if ((key || solver) && !contacts) {
    return cli_usage_error("--%s needs --contacts", key ? "key" : "solver");
  }

  imp_model* m = cli_load(path, load_options);
  if (!m) return CLI_EXIT_ERROR;
  printf("model: %s\n", cli_model_name(m));
  printf("nq: %d\n", m->nq);
  printf("nv: %d\n", m->nv);
  printf("nbody: %d\n", m->nbody);
  printf("njnt: %d\n", m->njnt);
  printf("ngeom: %d\n", m->ngeom);
  printf("nmesh: %d\n", m->nmesh);
  printf("npair: %d\n", m->npair);
  printf("nexclude: %d\n", m->nexclude);
  printf("nu: %d\n", m->nu);
  printf("na: %d\n", m->na);
  printf("ntendon: %d\n", m->ntendon);
  printf("nmocap: %d\n", m->nmocap);
  printf("nhfield: %d\n", m->nhfield);
  printf("nsensor: %d\n", m->nsensor);
  printf("timestep: %g\n", m->opt.timestep);
  printf("warnings: %d\n", m->nwarning);
  print_keys(m);
  int rc = contacts ? check_contacts(m, path, key, solver) : 0;
  imp_free_model(m);
  return rc;
}
