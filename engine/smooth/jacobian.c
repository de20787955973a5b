/* Point Jacobians on the tree: the chains of dofs that move a body, which
 * the constraint rows, tendons and transmissions build on, and what a
 * controller asks of a computed state (impetus.h, "controllers"):
 * Jacobians of points on the tree, and products and solves with the
 * joint-space inertia M. All read what the last forward (or imp_step1)
 * computed: the motion subspaces cdof about the subtree centres of mass,
 * and qM with its L'DL factor qLD.
 *
 * Jacobian of a world point p fixed to body b: column k, for a dof k on
 * b's chain to the root, is the velocity of p per unit velocity of dof k,
 *   jacp[:, k] = cdof_lin(k) + cdof_ang(k) x (p - c),   jacr[:, k] = cdof_ang(k),
 * c the subtree centre of mass of the tree's root about which cdof is
 * expressed (Featherstone, RBDA, sec. 2.8: a motion vector moved to the
 * point p); the other columns are zero. With qvel's layout (a free joint's
 * linear velocity in the world, its angular one in the body frame) these
 * are the matrices with v(p) = jacp qvel and w = jacr qvel, MuJoCo's
 * mj_jac (test_mujoco_controller.c). */
#include "engine.h"
#include "core/mathx.h"

/* ---- the chains of dofs that move a body ---- */

/* The last dof on body b's chain to the root (its own, or its nearest
   ancestor's with dofs), -1 when b is static. */
int imp_chain_tip(const imp_model* m, int b) {
  for (; b > 0; b = m->body_parentid[b])
    if (m->body_dofnum[b] > 0) return m->body_dofadr[b] + m->body_dofnum[b] - 1;
  return -1;
}

/* Union of the dof chains of b1 and b2, descending; side[i] = 1 when dof[i]
   moves b1, 2 when it moves b2, 3 both. Returns the count. */
int imp_chain_union(const imp_model* m, int b1, int b2, int* dof, int* side) {
  int i = imp_chain_tip(m, b1), j = imp_chain_tip(m, b2), n = 0;
  while (i >= 0 || j >= 0) {
    if (i == j) {
      dof[n] = i, side[n++] = 3;
      i = m->dof_parentid[i];
      j = m->dof_parentid[j];
    } else if (i > j) {
      dof[n] = i, side[n++] = 1;
      i = m->dof_parentid[i];
    } else {
      dof[n] = j, side[n++] = 2;
      j = m->dof_parentid[j];
    }
  }
  return n;
}

/* ---- what a controller asks ---- */

/* Jacobians of point p on body b into jacp, jacr (each 3 x nv, NULL to skip) */
static void point_jacobian(const imp_model* m, const imp_data* d, double* jacp, double* jacr,
                           const double p[3], int b) {
  const int nv = m->nv;
  if (jacp) imp_zero(jacp, 3 * nv);
  if (jacr) imp_zero(jacr, 3 * nv);
  for (int k = imp_chain_tip(m, b); k >= 0; k = m->dof_parentid[k]) {
    double col[3];
    imp_point_column(m, d, k, p, col);
    for (int a = 0; a < 3; a++) {
      if (jacp) jacp[a * nv + k] = col[a];
      if (jacr) jacr[a * nv + k] = d->cdof[6 * k + a];
    }
  }
}

static void check_id(const char* fn, const char* what, int id, int n) {
  if (id < 0 || id >= n) imp_error("%s: %s %d out of range [0, %d)", fn, what, id, n);
}

void imp_jac(const imp_model* m, const imp_data* d, double* jacp, double* jacr,
             const double point[3], int body) {
  check_id("imp_jac", "body", body, m->nbody);
  point_jacobian(m, d, jacp, jacr, point, body);
}

void imp_jac_body(const imp_model* m, const imp_data* d, double* jacp, double* jacr, int body) {
  check_id("imp_jac_body", "body", body, m->nbody);
  point_jacobian(m, d, jacp, jacr, d->xpos + 3 * body, body);
}

void imp_jac_body_com(const imp_model* m, const imp_data* d, double* jacp, double* jacr,
                      int body) {
  check_id("imp_jac_body_com", "body", body, m->nbody);
  point_jacobian(m, d, jacp, jacr, d->xipos + 3 * body, body);
}

void imp_jac_geom(const imp_model* m, const imp_data* d, double* jacp, double* jacr, int geom) {
  check_id("imp_jac_geom", "geom", geom, m->ngeom);
  point_jacobian(m, d, jacp, jacr, d->geom_xpos + 3 * geom, m->geom_bodyid[geom]);
}

void imp_jac_site(const imp_model* m, const imp_data* d, double* jacp, double* jacr, int site) {
  check_id("imp_jac_site", "site", site, m->nsite);
  point_jacobian(m, d, jacp, jacr, d->site_xpos + 3 * site, m->site_bodyid[site]);
}

void imp_mul_m(const imp_model* m, const imp_data* d, double* res, const double* vec) {
  if (res == vec) imp_error("imp_mul_m: res and vec must not be the same array");
  imp_mul_sparse(m, d->qM, res, vec);
}

void imp_solve_m(const imp_model* m, const imp_data* d, double* x, const double* y, int n) {
  if (n < 0) imp_error("imp_solve_m: n = %d vectors", n);
  for (int i = 0; i < n; i++)
    imp_solve_sparse(m, d->qLD, d->qLDiagInv, x + (size_t)i * m->nv, y + (size_t)i * m->nv);
}
