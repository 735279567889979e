/*
 * The algorithm table entry and the runners of batch.c (one state, or a batch split over
 * threads).
 */
#ifndef RD_BATCH_H
#define RD_BATCH_H

#include "joint.h"

/* sizes of the state arguments, in terms of the model */
enum { SZ_NQ = 1, SZ_NV = 2, SZ_16 = 3 };
enum { RD_MAX_THREADS = 256 };

typedef struct {
    const char *name;
    algo_fn fn;
    size_fn work;      /* workspace doubles a lane */
    size_fn out_size;  /* output doubles a state */
    int nx;            /* state arguments: q, then ... */
    int xsize[4];      /* SZ_* of each */
    long xflag[4];     /* the flag that makes argument k read (0: always read) */
    pattern_fn pattern; /* a batch writes only these entries into zeroed rows (NULL: all) */
    int min_chunks;     /* chunks a thread must have to be worth starting (0: 4); an
                         * algorithm of a few ns a state (cspace.c) needs thousands of states */
    /* optional: the algorithm on the row-major states s0 .. s1-1 of a whole batch, straight
     * from and into the rows (no lanes), the checks of check_state and of the output made
     * on the way; 0 or the error code of the first failing state, *bad = that state. Used
     * when rows_ok(md) says this model takes it (cspace.c: integrate of a model whose
     * every coordinate is integrated as q + v dt). */
    int (*rows)(const model_t *md, const args_t *a, int64_t s0, int64_t s1, double *out,
                int check, int64_t *bad);
    int (*rows_ok)(const model_t *md);
} algo_t;

int64_t rd_size(const model_t *md, int sz);
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

#endif
