/*
 * The compiled rollout's shared declarations: its settings (sim_t, the laws' parameter
 * layouts), and the functions of sim.c (the rollout), force.c (the force laws) and
 * taskref.c (the pose references and errors both use). A header of its own, not sim.c's,
 * so that the law files depend on it and not on each other.
 */
#ifndef RD_ROLLOUT_H
#define RD_ROLLOUT_H

#include "batch.h"

enum { INT_EULER = 0, INT_SEMI_IMPLICIT = 1, INT_RK4 = 2 };
enum { LAW_NONE = 0, LAW_PD = 1, LAW_PD_GRAVITY = 2, LAW_CT = 3, LAW_TASK_CT = 4,
       LAW_SCHEDULE = 5, LAW_FORCE = 6, LAW_HYBRID = 7, LAW_IMPEDANCE = 8, LAW_ADMITTANCE = 9 };
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
/* The force laws' parameters (sim_t.force, force.c; their pose reference, if any, in
 * sim_t.task's TP_KIND .. TP_S, timed by sim_t's T and c): the controlled frame and the
 * sensor's (indices of the controller's model), the sensor filter's omega_c = 2 pi f_c
 * (0: no filter), the k rows S of the body twist the law controls (ascending) and k,
 * k_null, the desired wrench F_d (6), five gains G_0 .. G_4 (6 x 6 row-major each, the
 * k x k of rows S in their top-left corner) and the hybrid law's constraint matrix A
 * (FP_NA rows of 6). The gains: ForceControl kfp, kfi, kdamp; HybridMotionForce kp, ki,
 * kd, kfp, kfi; Impedance M, B, K; Admittance M, B, K, kp, kd. robodyn/sim/_compiled.py
 * writes the same layout. */
enum {
    FP_FRAME = 0, FP_SENSOR = 1, FP_OMEGA_C = 2, FP_K = 3, FP_ROWS = 4, FP_KNULL = 10,
    FP_FD = 11, FP_G = 17, FP_A = 197, FP_NA = 233, FP_SIZE = 234
};
RD_INLINE int force_law(int law) { return law >= LAW_FORCE && law <= LAW_ADMITTANCE; }
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
    const double *force;    /* (FP_SIZE) the force laws' parameters (LAW_FORCE ..) */
    const double *env;      /* the environment's contacts (contact.h's block), NULL: none */
    const double *fext;     /* (nb x 6) constant wrenches on the bodies, NULL: none */
    int64_t nz;             /* the law's own states z, integrated with q and v */
} sim_t;

/* The samples of a rollout: Q (K + 1, nq), V, A, TAU (K + 1, nv), the law's states
 * Z (K + 1, nz) and the contact forces FC (K + 1, 3 nc) (NULL without states, contacts) */
typedef struct {
    double *Q, *V, *A, *TAU, *Z, *FC;
} samples_t;

RD_INLINE void pose_times(const double *Xa, const double *R, const double *p, double *X)
{
    /* X (4 x 4) = X_a [R, p; 0, 1] */
    for (int r = 0; r < 3; r++) {
        const double a0 = Xa[4 * r], a1 = Xa[4 * r + 1], a2 = Xa[4 * r + 2];
        for (int c = 0; c < 3; c++)
            X[4 * r + c] = a0 * R[c] + a1 * R[3 + c] + a2 * R[6 + c];
        X[4 * r + 3] = a0 * p[0] + a1 * p[1] + a2 * p[2] + Xa[4 * r + 3];
    }
    X[12] = X[13] = X[14] = 0.0;
    X[15] = 1.0;
}

/* kinematics.c: the exponential coordinates [omega theta; v theta] of T (4 x 4, row-major) */
void rd_log6(const double *T, double *V);

/* x = J^# y, the damped least-squares inverse of J (6 x n, row-major) with the damping
 * schedule of robodyn.control.TaskSpaceComputedTorque (sim.c); work: rd_damped_solve_work(n) */
int64_t rd_damped_solve_work(int64_t n);
void rd_damped_solve(const double *J, int64_t n, const double *y, double damping,
                     double threshold, double *x, double *work);

/* sim.c's SE(3) pieces the force laws share: the exponential exp([e]) = (R, p) (R 3 x 3
 * row-major), the pose reference X_d(t), V_d, dV_d of sim_t.task, and the body error
 * twist X_e = log(X^-1 X_d) with W = [Ad_E] V_d and dW = [Ad_E] dV_d + [ad_W] V; and
 * y <- A^-1 y for a dense n x n A (row-major, overwritten; n <= 6) */
void rd_time_scaling(const sim_t *s, double t, double *ps, double *psd, double *psdd);
void rd_exp6(const double *e, double *R, double *p);
void rd_pose_reference(const sim_t *s, double t, double *Xd, double *Vd, double *dVd);
void rd_pose_error(const double *X, const double *Xd, const double *Vd, const double *dVd,
                   const double *V, double *Xe, double *W, double *dW);
void rd_solve_dense(int n, double *A, double *y);

/* force.c: the force laws of robodyn.control (LAW_FORCE .. LAW_ADMITTANCE): their states
 * nz, workspace (doubles), and tau, dz = law(t, q, v, z) under the external wrenches fe on
 * the bodies (nb x 6; NULL: none); 0 or an error code */
int64_t rd_force_states(const sim_t *s);
int rd_force_valid(const model_t *mc, int law, const double *P);
int64_t rd_force_work(const model_t *mc);
int rd_force_torque(const sim_t *s, double t, const double *q, const double *v, const double *z,
                    const double *fe, double *tau, double *dz, double *W, double *Wc);

int rd_simulate(const sim_t *s, const double *q0, const double *v0, const double *z0,
                int64_t K, double h, const samples_t *out, int64_t *done);

#endif
