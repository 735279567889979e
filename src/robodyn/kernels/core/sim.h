/*
 * The rollout of sim.c: its settings and entry point.
 */
#ifndef RD_SIM_H
#define RD_SIM_H

#include "batch.h"

enum { INT_EULER = 0, INT_SEMI_IMPLICIT = 1, INT_RK4 = 2 };
enum { LAW_NONE = 0, LAW_PD = 1, LAW_PD_GRAVITY = 2, LAW_CT = 3, LAW_TASK_CT = 4,
       LAW_SCHEDULE = 5 };
/* The gain schedule's parameters (sim_t.sched; LQR and TVLQR): N, t_0, the step, then N
 * records of q_k (nq), d_k = q_{k+1} (-) q_k, v_k, tau_k (nv each) and K_k (nv x 2 nv,
 * row-major): over [t_k, t_k + step) (k clamped to 0 .. N - 1) the reference runs from
 * sample k to k + 1 (q_k (+) s d_k, v and tau linear in s; the last sample held), and
 * tau = tau_ref - K_k [q_ref^-1 q; v - v_ref] */
RD_INLINE int64_t sched_record(const model_t *md)
{
    return md->nq + 3 * md->nv + 2 * md->nv * md->nv;
}
/* The task-space law's parameters (sim_t.task), offsets in doubles: the frame (an index of
 * the controller's model), K_p and K_d (6 x 6, row-major), k_null, the inverse's largest
 * damping and the singular value below which it damps, the reference's kind (REF_*), its
 * start pose X_a (4 x 4, row-major) and its screw S = log(X_a^-1 X_b) (REF_SCREW) or the
 * rotation w = log(R_a^T R_b) and the translation p_b - p_a (REF_CARTESIAN), 6 doubles;
 * sim_t's T and c time it. robodyn/sim/_compiled.py writes the same layout. */
enum {
    TP_FRAME = 0, TP_KP = 1, TP_KD = 37, TP_KNULL = 73, TP_DAMPING = 74, TP_THRESHOLD = 75,
    TP_KIND = 76, TP_XA = 77, TP_S = 93, TP_SIZE = 99
};
enum { REF_POSE = 0, REF_SCREW = 1, REF_CARTESIAN = 2 };
/* error codes beyond rd.h's: the state became NaN or inf; out of memory */
enum { E_DIVERGED = 16, E_MEMORY = 17 };

typedef struct {
    const model_t *md;      /* the simulated model (any joints, mimic ones too) */
    const model_t *mc;      /* the controller's model (gravity compensation, computed torque;
                             * the same nq and nv as md) */
    int integrator, law;    /* INT_*, LAW_* */
    long flags;             /* ABA flags of the simulation (gravity, friction, armature) */
    long cflags;            /* RNEA flags of the controller (friction, armature) */
    const double *kp, *kd;  /* (nv) diagonal gains */
    const double *qa, *qb;  /* (nq) reference from q_a to q_b (equal when nq != nv) */
    double T;               /* its duration */
    double c[6];            /* s(r) = sum_k c_k r^k */
    const double *tau_max;  /* (nv) saturation (inf: none) */
    int64_t k0;             /* the first sample's index: t = (k0 + k) h (a run in pieces) */
    const poll_t *poll;     /* asked every POLL_STEPS steps whether to stop (NULL: never) */
    const double *task;     /* (TP_SIZE) the task-space law's parameters (LAW_TASK_CT) */
    const double *sched;    /* the gain schedule (LAW_SCHEDULE) */
} sim_t;

/* kinematics.c: the exponential coordinates [omega theta; v theta] of T (4 x 4, row-major) */
void rd_log6(const double *T, double *V);

/* x = J^# y, the damped least-squares inverse of J (6 x n, row-major) with the damping
 * schedule of robodyn.control.TaskSpaceComputedTorque (sim.c); work: rd_damped_solve_work(n) */
int64_t rd_damped_solve_work(int64_t n);
void rd_damped_solve(const double *J, int64_t n, const double *y, double damping,
                     double threshold, double *x, double *work);

int rd_simulate(const sim_t *s, const double *q0, const double *v0, int64_t K, double h,
                double *Q, double *V, double *A, double *TAU, int64_t *done);

#endif
