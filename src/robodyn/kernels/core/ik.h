/*
 * ik.c: one damped-least-squares inverse-kinematics start, whole in C.
 */
#ifndef RD_IK_H
#define RD_IK_H

#include "rd.h"

enum { IK_CONVERGED = 0, IK_MAX_ITERATIONS = 1, IK_STALLED = 2, IK_NOT_FINITE = 3 };

typedef struct {
    double tol_omega, tol_v; /* tolerances on |omega_b| and |v_b| (rows kept) */
    double lam2;             /* damping^2 */
    double max_step;         /* largest |dq_i| per update */
    int max_iterations;
    int stall;               /* stop a start whose error is not halved in 15 iterations */
    int position_only;       /* e = p_sd - p in the world, the angular rows dropped */
    int it0;                 /* > 0: continue a start at this iteration (errors in hist0) */
} ik_opts_t;

typedef struct {
    int status;     /* IK_* */
    int iterations; /* updates of q */
    double err;     /* smallest error norm of the start (at q_best) */
} ik_out_t;

/* q0, lo, hi (nv); T_sd (16, row-major); w (6) row weights of [omega; v] (0 drops a
 * row); hist0 (o->it0) the errors of the iterations already done; writes the last iterate
 * to q and the best to q_best; 0, or -3 out of memory */
int rd_ik_dls(const model_t *md, int64_t frame, const double *T_sd, const double *q0,
              const double *lo, const double *hi, const double *w, const ik_opts_t *o,
              const double *hist0, double *q, double *q_best, ik_out_t *res);

#endif
