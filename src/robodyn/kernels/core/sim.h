/*
 * The rollout of sim.c: its settings and entry point.
 */
#ifndef RD_SIM_H
#define RD_SIM_H

#include "batch.h"

enum { INT_EULER = 0, INT_SEMI_IMPLICIT = 1, INT_RK4 = 2 };
enum { LAW_NONE = 0, LAW_PD = 1, LAW_PD_GRAVITY = 2, LAW_CT = 3 };
/* error codes beyond rd.h's: the state became NaN or inf; out of memory */
enum { E_DIVERGED = 16, E_MEMORY = 17 };

typedef struct {
    const model_t *md;      /* the simulated model (1-dof joints only) */
    const model_t *mc;      /* the controller's model (gravity compensation, computed torque) */
    int integrator, law;    /* INT_*, LAW_* */
    long flags;             /* ABA flags of the simulation (gravity, friction, armature) */
    long cflags;            /* RNEA flags of the controller (friction, armature) */
    const double *kp, *kd;  /* (nv) diagonal gains */
    const double *qa, *qb;  /* (nv) reference from q_a to q_b */
    double T;               /* its duration */
    double c[6];            /* s(r) = sum_k c_k r^k */
    const double *tau_max;  /* (nv) saturation (inf: none) */
    int64_t k0;             /* the first sample's index: t = (k0 + k) h (a run in pieces) */
    const poll_t *poll;     /* asked every POLL_STEPS steps whether to stop (NULL: never) */
} sim_t;

int rd_simulate(const sim_t *s, const double *q0, const double *v0, int64_t K, double h,
                double *Q, double *V, double *A, double *TAU, int64_t *done);

#endif
