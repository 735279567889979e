/*
 * cspace.c: the configuration space's two group operations, q (+) v dt and q1 (-) q0.
 */
#ifndef RD_CSPACE_H
#define RD_CSPACE_H

#include "rd.h"

/* A zero quaternion in a configuration argument: E_QUATERNION + k for state argument k
 * (batch.c checks every argument of size nq; difference's q1 is argument 1) */
enum { E_QUATERNION_Q1 = E_QUATERNION + 1 };

/* integrate: x[0] = q (nq), x[1] = v (nv), dt in a->eps -> q (+) v dt (nq);
 * difference: x[0] = q0 (nq), x[1] = q1 (nq) -> v (nv) with q0 (+) v = q1 */
int rd_integrate(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                 double *RESTRICT W, int *lane);
int rd_difference(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                  double *RESTRICT W, int *lane);
int64_t rd_cspace_work(const model_t *md);
int64_t rd_integrate_out(const model_t *md); /* nq */
/* integrate as q + v dt on a batch's rows (algo_t.rows) for the models rd_integrate_vector
 * takes (every coordinate integrated as q + v dt) */
int rd_integrate_rows(const model_t *md, const args_t *a, int64_t s0, int64_t s1, double *out,
                      int check, int64_t *bad);
int rd_integrate_vector(const model_t *md);

#endif
