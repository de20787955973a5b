/* A model's capacities: the contact slots (nconmax), constraint rows
 * (njmax), rows of one island's dense problem (nislandmax), entries of a
 * row (nJrow) and of all rows together (nJnnz) a data reserves. A data is
 * one allocation made by imp_make_data and a step never allocates, so these
 * are chosen here, once, from <size> or from the model.
 *
 * Promises: each fits an int; <size> values are kept as given (only
 * nislandmax is lowered to njmax; njmax="0" reserves no rows); the
 * automatic ones are at least 1 and grow at most linearly with the model's
 * geoms, dofs, joints, tendons and equalities, so a data's constraint
 * memory is linear in the model (the mass matrix, sized elsewhere, is what
 * a deep chain pays for). A step that needs more than reserved drops the
 * excess, counts it (d->ncon_dropped, d->nefc_dropped, d->nefc_dropped_J)
 * and warns once naming the <size> attribute to raise
 * (collision.c, constraints.c); it never writes past them. */
#include <limits.h>

#include "collision/collision.h"
#include "engine.h"
#include "loader.h"

/* Automatic contact slots: 256, plus 16 a geom for the first
   LD_CONTACT_KNEE geoms (room for a dense pile; the largest sample model
   MuJoCo ships, composite/particle.xml, has 1,006 geoms), plus
   LD_CONTACT_PAST_KNEE a geom beyond. A slot reserves 3 rows, about 1.3 KB
   of a data in all: 16 a geom made 100,000 free-standing geoms peak at
   2.3 GB (0.73 GB now, 0.42 GB with 100 slots). MuJoCo does not
   grow with the model at all: 2.2.2 sets nconmax 100 and njmax 500 when
   <size> says nothing (measured with mj_loadXML), and today's MuJoCo sizes
   its arena for those same 100 and 500 and drops contacts past it with a
   warning (docs: Modeling, Memory allocation; XML reference, size). So a
   huge model past the knee still has room for two contacts a geom, more
   than MuJoCo gives, and a scene that needs more is told so (collision.c:
   "contact buffer full ... raise <size nconmax>"). */
#define LD_CONTACT_BASE 256
#define LD_CONTACT_PER_GEOM 16
#define LD_CONTACT_KNEE 4096
#define LD_CONTACT_PAST_KNEE 2

static int auto_contacts(int ngeom) {
  long n = LD_CONTACT_BASE +
           (long)LD_CONTACT_PER_GEOM * (ngeom < LD_CONTACT_KNEE ? ngeom : LD_CONTACT_KNEE);
  if (ngeom > LD_CONTACT_KNEE) n += (long)LD_CONTACT_PAST_KNEE * (ngeom - LD_CONTACT_KNEE);
  return (int)n; /* ngeom <= LD_MAXOBJECTS: at most 2.1 million */
}

void ld_size_rows(const ld_ctx* c, imp_model* m, int nlimited, int nfrictionloss,
                  int ntendon_rows) {
  /* contact slots: <size nconmax> when given, else auto_contacts */
  m->nconmax = c->nconmax > 0 ? c->nconmax : auto_contacts(m->ngeom);
  /* constraint rows: <size njmax> when given, else 3 rows for every contact
     slot (at least 1000) plus every equality (at most 6 rows), limit (2
     sides) and dof with frictionloss; rows cost memory linear in their
     number */
  int ncon_rows = 3 * m->nconmax > 1000 ? 3 * m->nconmax : 1000;
  m->njmax = c->njmax >= 0 ? c->njmax
                           : ncon_rows + 6 * m->neq + 2 * nlimited + nfrictionloss + ntendon_rows;
  /* the largest island's problem is dense (memory quadratic in its rows):
     <size nislandmax> when given, else up to 1000 rows (lowered to what the
     model can make once it is complete: ld_bound_rows) */
  m->nislandmax = c->nislandmax > 0 ? c->nislandmax : (m->njmax < 1000 ? m->njmax : 1000);
  if (m->nislandmax > m->njmax) m->nislandmax = m->njmax;
}

/* most dofs on one body's path to the root: the longest dof chain */
static int longest_dof_chain(const imp_model* m) {
  int best = 0;
  for (int d = 0; d < m->nv; d++) {
    int n = 0;
    for (int p = d; p >= 0; p = m->dof_parentid[p]) n++;
    if (n > best) best = n;
  }
  return best;
}

/* The entries efc_J (and the contact stage's half-solves Y = J L^-1, whose
   rows are J's closed under ancestors) hold for all rows together. A row
   holds at most nJrow; but an island's problem keeps at most nislandmax
   rows (contact.c), each on the island's dofs only, and islands share no
   dofs, so the rows solved hold at most nislandmax nv entries together.
   Sizing by rows alone (njmax nJrow) made a chain 1000 bodies deep reserve
   48,000 rows of 2,000 entries: 1.2 GB (issue 15). Rows past this bound
   are dropped and counted (constraints.c), as rows past njmax are. */
static void jacobian_capacity(imp_model* m) {
  long long rows = (long long)m->njmax * m->nJrow;
  long long solved = (long long)m->nislandmax * (m->nv > 0 ? m->nv : 1);
  long long n = rows < solved ? rows : solved;
  m->nJnnz = n > INT_MAX ? INT_MAX : (int)n;
}

void ld_size_jacobian(imp_model* m, int nJeq) {
  /* a constraint row touches the dofs of two bodies' chains, or a tendon's
     (closed under ancestors: the contact stage fills them in), or two
     tendons' for a tendon equality */
  m->nJrow = 2 * longest_dof_chain(m);
  if (m->nJrow < m->nJten) m->nJrow = m->nJten;
  if (m->nJrow < nJeq) m->nJrow = nJeq;
  if (m->nJrow < 1) m->nJrow = 1;
  if (m->nJten < 1) m->nJten = 1;
  jacobian_capacity(m);
}

/* An automatic nislandmax no larger than the rows the model can have at
   once (its Delassus matrix and solver scratch are sized by it): contacts
   of every pair that may touch (imp_collision_row_bound, at most nconmax
   contacts of 6 rows), 2 rows a limited joint or tendon, 6 an equality, 1 a
   dof or tendon with frictionloss. A pendulum then reserves a few rows'
   scratch instead of 1000's. */
static void bound_island_rows(imp_model* m) {
  long rows = 6L * m->neq;
  for (int j = 0; j < m->njnt; j++) rows += 2L * (m->jnt_limited[j] != 0);
  for (int i = 0; i < m->nv; i++) rows += m->dof_frictionloss[i] > 0;
  for (int t = 0; t < m->ntendon; t++)
    rows += 2L * (m->tendon_limited[t] != 0) + (m->tendon_frictionloss[t] > 0);
  long contact = imp_collision_row_bound(m, m->nislandmax);
  if (contact > 6L * m->nconmax) contact = 6L * m->nconmax;
  rows += contact;
  if (rows < 1) rows = 1;
  if (rows < m->nislandmax) m->nislandmax = (int)rows;
}

void ld_bound_rows(const ld_ctx* c, imp_model* m) {
  if (c->nislandmax <= 0) bound_island_rows(m);
  jacobian_capacity(m);
}

/* <size>'s nconmax, njmax and nislandmax into c, checked against the
   loader's bounds (loader.h) */
void ld_parse_size(ld_ctx* c, ld_node* ch) {
  ld_attr_int(c, ch, "nconmax", &c->nconmax);
  if (c->nconmax < 0) ld_error(c, ch->file, ch->line, "nconmax must be non-negative");
  ld_attr_int(c, ch, "njmax", &c->njmax);
  if (c->njmax < -1)
    ld_error(c, ch->file, ch->line, "njmax must be -1 (automatic) or more");
  ld_attr_int(c, ch, "nislandmax", &c->nislandmax);
  if (c->nislandmax < -1 || c->nislandmax == 0)
    ld_error(c, ch->file, ch->line, "nislandmax must be -1 (automatic) or positive");
  if (c->nconmax > LD_MAXCONTACTS || c->njmax > LD_MAXROWS ||
      c->nislandmax > LD_MAXISLANDROWS)
    ld_error(c, ch->file, ch->line,
             "size beyond the loader's bounds: nconmax %d, njmax %d, nislandmax %d at most",
             LD_MAXCONTACTS, LD_MAXROWS, LD_MAXISLANDROWS);
}
