/*
 * The algorithm table entry and the runners of batch.c (one state, or a batch split over
 * threads).
 */
#ifndef RD_BATCH_H
#define RD_BATCH_H

#include "joint.h"

/* sizes of the state arguments, in terms of the model (and of the call's rows k of the
 * constraint matrix A, args_t.nk) */
enum { SZ_NQ = 1, SZ_NV = 2, SZ_16 = 3, SZ_K = 4, SZ_KNV = 5 };
enum { RD_MAX_THREADS = 256 };

typedef struct {
    const char *name;
    algo_fn fn;
    size_fn work;      /* workspace doubles a lane */
    size_fn out_size;  /* output doubles a state */
    int nx;            /* state arguments: q, then ... */
    int xsize[RD_MAX_X];   /* SZ_* of each */
    long xflag[RD_MAX_X];  /* the flag that makes argument k read (0: always read) */
    pattern_fn pattern; /* a batch writes only these entries into zeroed rows (NULL: all) */
    int min_chunks;     /* chunks a thread must have to be worth starting (0: 4); an
                         * algorithm of a few ns a state (cspace.c) needs thousands of states */
    /* the constrained dynamics' sizes also grow with the rows k of A (args_t.nk): output
     * doubles a state per row, and the workspace's extra doubles a lane for k rows */
    int64_t out_per_row;
    int64_t (*work_rows)(const model_t *md, int64_t nk);
    /* optional: the algorithm on the row-major states s0 .. s1-1 of a whole batch, straight
     * from and into the rows (no lanes), the checks of check_state and of the output made
     * on the way; 0 or the error code of the first failing state, *bad = that state. Used
     * when rows_ok(md) says this model takes it (cspace.c: integrate of a model whose
     * every coordinate is integrated as q + v dt). */
    int (*rows)(const model_t *md, const args_t *a, int64_t s0, int64_t s1, double *out,
                int check, int64_t *bad);
    int (*rows_ok)(const model_t *md);
} algo_t;

int64_t rd_size(const model_t *md, const args_t *a, int sz);
int64_t rd_out_size(const model_t *md, const algo_t *al, const args_t *a);
int64_t rd_work_size(const model_t *md, const algo_t *al, const args_t *a);
int rd_cpu_count(void);
int rd_run_one(const model_t *md, const algo_t *al, const args_t *a, double *out, int check,
               double *W);
int rd_run_batch(const model_t *md, const algo_t *al, const args_t *a, int64_t N, double *out,
                 int threads, int check, int64_t *bad, const poll_t *poll);

/* kinematics.c */
int64_t rd_kin_work(const model_t *md);
int64_t rd_kin_part_work(const model_t *md);
int64_t rd_jacobian_pattern(const model_t *md, const args_t *a, int64_t *nz, int64_t *src);
#define KIN_DECL(name)                                                                         \
    int rd_##name(const model_t *md, int L, const args_t *a, double *RESTRICT out,             \
                  double *RESTRICT W, int *lane);
KIN_DECL(body_poses)
KIN_DECL(frame_poses)
KIN_DECL(frame_pose)
KIN_DECL(jacobian)
KIN_DECL(jacobian_dot)
KIN_DECL(frame_motion)
KIN_DECL(com)
KIN_DECL(com_jacobian)
KIN_DECL(ik_residual)
KIN_DECL(jacobian_dot_dj)
KIN_DECL(com_jacobian_j)
KIN_DECL(manipulability)
KIN_DECL(ellipsoid)
#undef KIN_DECL

/* kinderiv.c: the kinematic Hessian; the frame's twist (x[1] = v) or, with FL_ACC, its
 * acceleration (x[2] = a) differentiated */
int rd_kinematic_hessian(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                         double *RESTRICT W, int *lane);
int rd_motion_derivatives(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                          double *RESTRICT W, int *lane);
int64_t rd_kinderiv_work(const model_t *md);

/* aba_derivatives.c: [da/dq, da/dv, M^-1] of forward dynamics (x = q, qd, tau) */
int rd_aba_derivatives(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                       double *RESTRICT W, int *lane);
int64_t rd_aba_derivatives_work(const model_t *md);

/* constrained.c */
int rd_constrained(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                   double *RESTRICT W, int *lane);
int64_t rd_constrained_work(const model_t *md);
int64_t rd_constrained_work_rows(const model_t *md, int64_t nk);

#endif
