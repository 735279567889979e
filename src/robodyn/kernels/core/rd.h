/*
 * robodyn's compiled core: the definitions every algorithm file shares.
 *
 * Each algorithm (rnea.c, crba.c, aba.c, coriolis.c, kinematics.c, minv.c) is written
 * once, over L "lanes": L states computed together, every per-body quantity stored as L
 * consecutive doubles (x[k * L + l] is component k of lane l). A single state is L = 1
 * (the loops over lanes vanish); a batch runs chunks of LANES states, where each
 * arithmetic line is a loop over the lanes with the same control flow in every lane
 * (the tree and the joint types do not depend on the state), which the compiler turns
 * into vector instructions across states (batch.c gathers a chunk into this layout and
 * scatters the result back).
 *
 * Conventions (Modern Robotics): twists V = [omega; v], wrenches F = [m; f], body
 * coordinates unless a name says otherwise; 3x3 matrices row-major in 9 doubles; the
 * model is the packed arrays of kernels/_pack.py (layout constants below, compared with
 * _pack.py when the module is imported).
 */
#ifndef RD_H
#define RD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- portability */
#if defined(_MSC_VER)
#define RD_INLINE static __forceinline
#define RESTRICT __restrict
#define LANE_PRAGMA __pragma(loop(ivdep))
#define UNROLL3
#define UNROLL6
#define UNROLL9
#define UNROLL21
#else
#define RD_INLINE static inline __attribute__((always_inline))
#define RESTRICT __restrict__
#define LANE_PRAGMA _Pragma("GCC ivdep")
/* fully unrolled small loops inside a lane loop, so that it stays straight-line code */
#if defined(__clang__)
#define UNROLL3 _Pragma("unroll")
#define UNROLL6 _Pragma("unroll")
#define UNROLL9 _Pragma("unroll")
#define UNROLL21 _Pragma("unroll")
#else
#define UNROLL3 _Pragma("GCC unroll 3")
#define UNROLL6 _Pragma("GCC unroll 6")
#define UNROLL9 _Pragma("GCC unroll 9")
#define UNROLL21 _Pragma("GCC unroll 21")
#endif
#endif

/* The algorithms are compiled twice on x86-64 Linux with GCC: for the baseline ISA and
 * for x86-64-v3 (AVX2, FMA), picked at load time by the CPU. RD_BASELINE (CFLAGS=
 * -DRD_BASELINE) builds the baseline alone, as a CPU without AVX2 runs it (.ci/wheel-check) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) \
    && !defined(RD_BASELINE)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

/* states per chunk of a batch */
enum { LANES = 16 };

/* a loop over the lanes of the current chunk; its iterations are independent */
#define LANE LANE_PRAGMA for (int l = 0; l < L; l++)

/* ---------------------------------------------------------------- packed model layout */
/* mirrors kernels/_pack.py: header sizes and record widths */
enum { HI = 8, WI = 8, HF = 8, WF = 84 };
/* int record of body i: I[HI + WI i + field] */
enum { BI_PARENT = 0, BI_END = 1, BI_TYPE = 2, BI_QIDX = 3, BI_VIDX = 4, BI_NV = 5, BI_MIMIC = 6 };
/* float record of body i: F[HF + WF i + field] */
enum {
    BF_MASS = 0, BF_H = 1, BF_IO = 4, BF_AXIS = 13, BF_R0 = 16, BF_P0 = 25, BF_MULT = 28,
    BF_OFF = 29, BF_A1 = 30, BF_A2 = 39, BF_RA = 48, BF_S = 51, BF_PITCH = 69, BF_C = 70,
    BF_IC = 73, BF_SR = 82, BF_ST = 83
};
/* The pivots of ABA and of M's Cholesky factor are "zero" (the mass matrix singular) when
 * at most F[3] (1e-12, dimensionless) times their own scale, in the pivot's units (kg m^2
 * for a rotation, kg for a translation): what the joint's subtree can put on it, the
 * packed bound BF_SR (sum over the subtree of tr(I_c)/2 + m r^2, r bounding the centre's
 * distance from the joint) or BF_ST (the subtree's mass), plus the state's own part (ABA:
 * the trace of the articulated inertia's block; Cholesky: M's diagonal entry) and the
 * armature. Round-off leaves ~1e-16 of that scale in a pivot that is zero: such a pivot
 * cannot be told from zero. A 1e-6 kg body beside a 1e3 kg one is as regular as its own
 * inertia says (the scale is its own subtree's, not the robot's), and a subtree with no
 * mass, or no inertia about its joint, is refused. */
/* joint types; spherical to cylindrical have up to 3 constant columns of S_i at BF_S (body
 * coordinates, 6 doubles each); a universal joint keeps a2, a2 x a1, a2 x (a2 x a1) there */
enum {
    J_FIXED = 0, J_REVOLUTE = 1, J_PRISMATIC = 2, J_FREE = 3, J_SPHERICAL = 4, J_PLANAR = 5,
    J_HELICAL = 6, J_CYLINDRICAL = 7, J_UNIVERSAL = 8
};
/* what an algorithm includes */
enum {
    FL_FRICTION = 1, FL_ARMATURE = 2, FL_CHECK = 4, FL_GRAVITY = 8, FL_VEL = 16,
    FL_ACC = 32, FL_FEXT = 64, FL_MINV_ABA = 128, FL_MINV_CHOLESKY = 256
};
/* Jacobian kinds */
enum { KIND_SPACE = 0, KIND_BODY = 1, KIND_WORLD_ALIGNED = 2 };

/* Error codes (robodyn.kernels.call turns them into messages): 11 + k argument k of the
 * state (q, v, a/tau, f_ext or A, dA_v: at most RD_MAX_X) holds NaN or inf; 16 and 17 are
 * rollout.h's; 18 a long loop was interrupted (poll_t); 19 the state's inputs are finite but its
 * output is not (a product overflowed); 20 the task-space matrix J M^-1 J^T is singular;
 * 21 + k a zero quaternion in state argument k (q, or difference's q1: cspace.h); 23 the
 * constraint matrix A M^-1 A^T is singular (dependent rows of A: constrained.c);
 * 1000 + i the articulated inertia pivot of body i is not positive; 2000 + k the Cholesky
 * pivot of dof k of M is not positive. */
enum { E_NONFINITE = 11, E_INTERRUPTED = 18, E_OVERFLOW = 19, E_TASK_SINGULAR = 20,
       E_QUATERNION = 21, E_CONSTRAINT_SINGULAR = 23, E_PIVOT = 1000, E_CHOLESKY = 2000 };
/* state arguments an algorithm may take */
enum { RD_MAX_X = 5 };

/* Interruption (Ctrl-C): a long loop calls fn(ctx) every so often from the thread that
 * started it; a nonzero answer stops the loop with E_INTERRUPTED, keeping what it finished.
 * The core knows nothing of Python: module.c's fn takes the GIL and checks for signals. */
typedef struct {
    int (*fn)(void *ctx);
    void *ctx;
} poll_t;

/* The model: the int and float records, and the operational frames appended by
 * _pack.py (frame f is fixed to body frame_body[f] at (R, p) = F[ff0 + 12 f ...]). */
typedef struct {
    const int64_t *I;
    const double *F;
    int64_t nb, nq, nv;
    int64_t has_free;           /* a free, spherical or planar joint (q is not integrated as
                                 * q + v dt; a quaternion must be nonzero) */
    int64_t nf;                 /* operational frames */
    const int64_t *frame_body;  /* (nf,) */
    const double *frame_Rp;     /* (nf, 12): R row-major, then p */
} model_t;

RD_INLINE const int64_t *body_i(const model_t *md, int64_t i) { return md->I + HI + WI * i; }
RD_INLINE const double *body_f(const model_t *md, int64_t i) { return md->F + HF + WF * i; }
/* damping (nv), Coulomb friction (nv), armature (nv) after the body records */
RD_INLINE const double *dof_params(const model_t *md) { return md->F + HF + WF * md->nb; }

RD_INLINE int64_t dof_end(const model_t *md, int64_t i)
{
    /* the end of the dofs of body i's subtree (bodies i .. BI_END - 1, depth first): the
     * first dof of the next body that has one, or nv (for a model without mimic joints,
     * whose dofs follow the bodies) */
    for (int64_t j = body_i(md, i)[BI_END]; j < md->nb; j++)
        if (body_i(md, j)[BI_NV] > 0)
            return body_i(md, j)[BI_VIDX];
    return md->nv;
}

RD_INLINE int minv_by_aba(const model_t *md, long flags, int64_t nv_min)
{
    /* whether M^-1 comes from the articulated-body recursion (minv_aba.c) rather than M's
     * Cholesky factor: as flags ask (FL_MINV_ABA, FL_MINV_CHOLESKY), else when nv is at
     * least nv_min (where the bench measured it the faster); never with mimic joints,
     * which ABA cannot express */
    if (md->I[3] || (flags & FL_MINV_CHOLESKY))
        return 0;
    return (flags & FL_MINV_ABA) || md->nv >= nv_min;
}

/* The arguments of an algorithm, lane-major: x[k] holds state argument k (q, v, a or tau,
 * ...) as x[k][j L + l]; NULL means zero. fext is (6 nb, L) when FL_FEXT is set. */
typedef struct {
    const double *x[RD_MAX_X];
    const double *fext;
    long flags;
    double eps;      /* Coulomb friction: sgn(v) when 0, tanh(v / eps) when > 0;
                      * cspace.c's integrate: the time step dt */
    int64_t frame;   /* kinematics: the operational frame */
    int kind;        /* kinematics: KIND_* */
    /* a batch into rows that are already zero: the nnz entries of a state's output that
     * the algorithm can make nonzero (flat indices, ascending), and where each is read in
     * the algorithm's lane output, src[k] (a symmetric output computes one triangle, the
     * batch mirrors it); NULL: it fills all of out */
    const int64_t *nz, *src;
    int64_t nnz;
    unsigned rows;   /* task space: the rows of J kept, bit r for row r of [omega; v] */
    int64_t nk;      /* constrained.c: the rows k of the constraint matrix A (k x nv) */
} args_t;

/* An algorithm: computes L lanes of out (out_size(md) doubles a lane, lane-major; more for
 * the rows of A of the constrained dynamics: batch.h's rd_out_size) using the workspace W
 * (batch.h's rd_work_size doubles a lane); returns 0 or an error code and the failing lane
 * in *lane. */
typedef int (*algo_fn)(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                       double *RESTRICT W, int *lane);
typedef int64_t (*size_fn)(const model_t *md);
/* The entries of one state's output an algorithm can make nonzero, whatever the state
 * (the tree's sparsity): their flat indices in nz (room for out_size(md)), ascending,
 * the entries of its lane output they are copied from in src (the same room), and their
 * count. */
typedef int64_t (*pattern_fn)(const model_t *md, const args_t *a, int64_t *nz, int64_t *src);

/* ---------------------------------------------------------------- 3-vectors over lanes */
/* A laned 3-vector x holds component r of lane l at x[r L + l]; a laned 3x3 matrix R
 * holds entry (r, c) at R[(3 r + c) L + l]. "const" arguments (model data, the same in
 * every lane) are plain double[3] / double[9]. */

RD_INLINE void cross_l(int L, const double *a, const double *b, double *c)
{
    /* c = a x b */
    LANE {
        double ax = a[l], ay = a[L + l], az = a[2 * L + l];
        double bx = b[l], by = b[L + l], bz = b[2 * L + l];
        c[l] = ay * bz - az * by;
        c[L + l] = az * bx - ax * bz;
        c[2 * L + l] = ax * by - ay * bx;
    }
}

RD_INLINE void cross_add_l(int L, const double *a, const double *b, double *c)
{
    /* c += a x b */
    LANE {
        double ax = a[l], ay = a[L + l], az = a[2 * L + l];
        double bx = b[l], by = b[L + l], bz = b[2 * L + l];
        c[l] += ay * bz - az * by;
        c[L + l] += az * bx - ax * bz;
        c[2 * L + l] += ax * by - ay * bx;
    }
}

RD_INLINE void cross_cl(int L, const double *a, const double *b, double *c)
{
    /* c = a x b with a constant */
    LANE {
        double bx = b[l], by = b[L + l], bz = b[2 * L + l];
        c[l] = a[1] * bz - a[2] * by;
        c[L + l] = a[2] * bx - a[0] * bz;
        c[2 * L + l] = a[0] * by - a[1] * bx;
    }
}

RD_INLINE void cross_lc(int L, const double *a, const double *b, double *c)
{
    /* c = a x b with b constant */
    LANE {
        double ax = a[l], ay = a[L + l], az = a[2 * L + l];
        c[l] = ay * b[2] - az * b[1];
        c[L + l] = az * b[0] - ax * b[2];
        c[2 * L + l] = ax * b[1] - ay * b[0];
    }
}

RD_INLINE void rmul_l(int L, const double *R, const double *x, double *y)
{
    /* y = R x */
    LANE {
        double x0 = x[l], x1 = x[L + l], x2 = x[2 * L + l];
        y[l] = R[l] * x0 + R[L + l] * x1 + R[2 * L + l] * x2;
        y[L + l] = R[3 * L + l] * x0 + R[4 * L + l] * x1 + R[5 * L + l] * x2;
        y[2 * L + l] = R[6 * L + l] * x0 + R[7 * L + l] * x1 + R[8 * L + l] * x2;
    }
}

RD_INLINE void rmul_lc(int L, const double *R, const double *x, double *y)
{
    /* y = R x with x constant */
    LANE {
        y[l] = R[l] * x[0] + R[L + l] * x[1] + R[2 * L + l] * x[2];
        y[L + l] = R[3 * L + l] * x[0] + R[4 * L + l] * x[1] + R[5 * L + l] * x[2];
        y[2 * L + l] = R[6 * L + l] * x[0] + R[7 * L + l] * x[1] + R[8 * L + l] * x[2];
    }
}

RD_INLINE void rtmul_l(int L, const double *R, const double *x, double *y)
{
    /* y = R^T x */
    LANE {
        double x0 = x[l], x1 = x[L + l], x2 = x[2 * L + l];
        y[l] = R[l] * x0 + R[3 * L + l] * x1 + R[6 * L + l] * x2;
        y[L + l] = R[L + l] * x0 + R[4 * L + l] * x1 + R[7 * L + l] * x2;
        y[2 * L + l] = R[2 * L + l] * x0 + R[5 * L + l] * x1 + R[8 * L + l] * x2;
    }
}

RD_INLINE void mm_l(int L, const double *A, const double *B, double *C)
{
    /* C = A B (C must not overlap A or B) */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            LANE {
                C[(3 * r + c) * L + l] = A[(3 * r) * L + l] * B[c * L + l]
                                         + A[(3 * r + 1) * L + l] * B[(3 + c) * L + l]
                                         + A[(3 * r + 2) * L + l] * B[(6 + c) * L + l];
            }
}

RD_INLINE void mm_lc(int L, const double *A, const double *B, double *C)
{
    /* C = A B with B constant (C must not overlap A) */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            LANE {
                C[(3 * r + c) * L + l] = A[(3 * r) * L + l] * B[c]
                                         + A[(3 * r + 1) * L + l] * B[3 + c]
                                         + A[(3 * r + 2) * L + l] * B[6 + c];
            }
}

RD_INLINE void mm_cl(int L, const double *A, const double *B, double *C)
{
    /* C = A B with A constant (C must not overlap B) */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            LANE {
                C[(3 * r + c) * L + l] = A[3 * r] * B[c * L + l] + A[3 * r + 1] * B[(3 + c) * L + l]
                                         + A[3 * r + 2] * B[(6 + c) * L + l];
            }
}

RD_INLINE void compose_l(int L, const double *Ra, const double *pa, const double *Rb,
                         const double *pb, double *R, double *p)
{
    /* T = T_a T_b: R = R_a R_b, p = p_a + R_a p_b (R, p must not overlap the inputs) */
    mm_l(L, Ra, Rb, R);
    rmul_l(L, Ra, pb, p);
    for (int r = 0; r < 3; r++)
        LANE { p[r * L + l] += pa[r * L + l]; }
}

RD_INLINE void motion_from_parent(int L, const double *R, const double *p, const double *wl,
                                  const double *vl, double *w, double *v)
{
    /* [w; v] = Ad_{T_{i,lambda}} [w_l; v_l] = [R^T w_l; R^T (v_l + w_l x p)] with
     * (R, p) = T_{lambda,i} (MR eq. 8.50, parent part) */
    double t[3 * LANES];
    cross_l(L, wl, p, t);
    for (int r = 0; r < 3; r++)
        LANE { t[r * L + l] += vl[r * L + l]; }
    rtmul_l(L, R, wl, w);
    rtmul_l(L, R, t, v);
}

RD_INLINE void wrench_to_parent(int L, const double *R, const double *p, const double *m,
                                const double *f, double *gm, double *gf)
{
    /* [gm; gf] = Ad_{T_{i,lambda}}^T [m; f] = [R m + p x (R f); R f], (R, p) = T_{lambda,i}
     * (MR eq. 8.53, child part) */
    double rm[3 * LANES];
    rmul_l(L, R, m, rm);
    rmul_l(L, R, f, gf);
    cross_l(L, p, gf, gm);
    for (int r = 0; r < 3; r++)
        LANE { gm[r * L + l] += rm[r * L + l]; }
}

RD_INLINE void inertia_times_l(int L, const double *m, const double *h, const double *Io,
                               const double *w, const double *u, double *out)
{
    /* G [w; u] = [I_o w + h x u; m u - h x w] for the laned G = (m, h, I_o), w, u */
    double c1[3 * LANES], c2[3 * LANES];
    cross_l(L, h, u, c1);
    cross_l(L, h, w, c2);
    for (int r = 0; r < 3; r++)
        LANE {
            out[r * L + l] = Io[3 * r * L + l] * w[l] + Io[(3 * r + 1) * L + l] * w[L + l]
                             + Io[(3 * r + 2) * L + l] * w[2 * L + l] + c1[r * L + l];
            out[(3 + r) * L + l] = m[l] * u[r * L + l] - c2[r * L + l];
        }
}

RD_INLINE void inertia_times_c(int L, double m, const double *h, const double *Io,
                               const double *w, const double *u, double *km, double *kf)
{
    /* G [w; u] = [I_o w + h x u; m u - h x w] for the constant G = (m, h = m c, I_o) */
    double c1[3 * LANES], c2[3 * LANES];
    cross_cl(L, h, u, c1);
    cross_cl(L, h, w, c2);
    for (int r = 0; r < 3; r++)
        LANE {
            km[r * L + l] = Io[3 * r] * w[l] + Io[3 * r + 1] * w[L + l] + Io[3 * r + 2] * w[2 * L + l]
                            + c1[r * L + l];
            kf[r * L + l] = m * u[r * L + l] - c2[r * L + l];
        }
}

RD_INLINE void body_wrench(int L, const double *Fi, const double *w, const double *v,
                           const double *dw, const double *dv, double *fm, double *ff)
{
    /* F_i = G_i dV_i - ad_{V_i}^T (G_i V_i), G = [[I_o, [h]], [[h]^T, m 1]], h = m c:
     * G V = [I_o w + h x v; m v - h x w] =: [k; l], -ad_V^T [k; l] = [w x k + v x l; w x l]
     * (MR eq. 8.53, own part); dw, dv = NULL: dV = 0 */
    const double m = Fi[BF_MASS], *h = Fi + BF_H, *Io = Fi + BF_IO;
    double k[3 * LANES], lf[3 * LANES];
    inertia_times_c(L, m, h, Io, w, v, k, lf); /* [k; l] = G V */
    if (dw)
        inertia_times_c(L, m, h, Io, dw, dv, fm, ff); /* G dV */
    else
        for (int r = 0; r < 3 * L; r++)
            fm[r] = ff[r] = 0.0;
    cross_add_l(L, w, k, fm);
    cross_add_l(L, v, lf, fm);
    cross_add_l(L, w, lf, ff);
}

RD_INLINE void joint_friction(int L, const double *d0, int64_t nv, int64_t k, const double *v,
                              double eps, double *f)
{
    /* f = b_k v_k + f_c,k sgn(v_k), or f_c,k tanh(v_k / eps) when eps > 0, for the lanes of
     * dof k (d0: damping, then Coulomb friction, nv each). The branch on eps is outside
     * the lane loop, so the sgn loop vectorises (tanh is a scalar call). */
    const double b = d0[k], fc = d0[nv + k];
    if (v == NULL || (b == 0.0 && fc == 0.0)) { /* no friction on this joint: exactly 0 */
        for (int l = 0; l < L; l++)
            f[l] = 0.0;
        return;
    }
    const double *x = v + k * L;
    if (eps > 0.0)
        for (int l = 0; l < L; l++)
            f[l] = b * x[l] + fc * tanh(x[l] / eps);
    else
        LANE { f[l] = b * x[l] + (x[l] > 0.0 ? fc : (x[l] < 0.0 ? -fc : 0.0)); }
}

RD_INLINE int nonfinite(const double *x, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (!isfinite(x[k]))
            return 1;
    return 0;
}

/* Whether an output holds NaN or inf, at about one vector addition per four doubles: a sum
 * is NaN or inf when one of its terms is (inf - inf is NaN, NaN + x is NaN), and the sums
 * run in 16 independent partial sums the compiler keeps in vector registers (no
 * reassociation needed). A finite output can make a partial sum overflow only when its
 * entries are within a factor ~n of the largest double (~1.8e308), where the next operation
 * on them overflows anyway: it counts as overflow too. */
RD_INLINE int nonfinite_sum(const double *x, int64_t n)
{
    double a[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
        for (int j = 0; j < 8; j++)
            a[j] += x[k + j];
    for (int j = 0; k < n; k++, j++)
        a[j] += x[k];
    int bad = 0;
    for (int j = 0; j < 8; j++)
        bad |= !isfinite(a[j]);
    return bad;
}

RD_INLINE void inertia_to_world(int L, const double *R, const double *p, const double *Fi,
                                double *G)
{
    /* the body's spatial inertia about the world origin, world axes, from its mass m, centre
     * of mass c and inertia I_c about it (body frame), the body at (R, p) = T_s,i (MR eq.
     * 8.42 with the parallel-axis theorem, eq. 8.26): c' = R c + p, h' = m c',
     * I' = R I_c R^T + m (|c'|^2 1 - c' c'^T) (symmetric: 6 entries computed), as m, h', I'
     * at G (13 laned doubles: m, then h' (3), then I' (9) row-major) */
    const double m = Fi[BF_MASS];
    double cw[3 * LANES], T[9 * LANES], cc[LANES];
    rmul_lc(L, R, Fi + BF_C, cw);
    mm_lc(L, R, Fi + BF_IC, T);
    for (int r = 0; r < 3; r++)
        LANE { cw[r * L + l] += p[r * L + l]; }
    LANE {
        cc[l] = cw[l] * cw[l] + cw[L + l] * cw[L + l] + cw[2 * L + l] * cw[2 * L + l];
        G[l] = m;
    }
    for (int r = 0; r < 3; r++)
        LANE { G[(1 + r) * L + l] = m * cw[r * L + l]; }
    for (int r = 0; r < 3; r++)
        for (int c = r; c < 3; c++)
            LANE {
                const double v = T[3 * r * L + l] * R[3 * c * L + l]
                                 + T[(3 * r + 1) * L + l] * R[(3 * c + 1) * L + l]
                                 + T[(3 * r + 2) * L + l] * R[(3 * c + 2) * L + l]
                                 + m * ((r == c ? cc[l] : 0.0) - cw[r * L + l] * cw[c * L + l]);
                G[(4 + 3 * r + c) * L + l] = G[(4 + 3 * c + r) * L + l] = v;
            }
}

RD_INLINE void combine_rows(int L, int64_t n, int64_t na, const double *x, const int64_t *kx,
                             const double *R, int64_t stride, double *RESTRICT y)
{
    /* y += sum_a x_a (row kx[a] of R) over n laned entries (row k at R + k stride L), x_a
     * laned at x + a L; four rows per pass over y, so that y is loaded and stored once for
     * four products and the pass vectorises (over the entries when L = 1) */
    int64_t a = 0;
    for (; a + 4 <= na; a += 4) {
        const double *r0 = R + kx[a] * stride * L, *r1 = R + kx[a + 1] * stride * L,
                     *r2 = R + kx[a + 2] * stride * L, *r3 = R + kx[a + 3] * stride * L;
        const double *x0 = x + a * L, *x1 = x0 + L, *x2 = x1 + L, *x3 = x2 + L;
        for (int64_t j = 0; j < n; j++)
            LANE {
                y[j * L + l] += x0[l] * r0[j * L + l] + x1[l] * r1[j * L + l]
                                + x2[l] * r2[j * L + l] + x3[l] * r3[j * L + l];
            }
    }
    for (; a < na; a++) {
        const double *r0 = R + kx[a] * stride * L, *x0 = x + a * L;
        for (int64_t j = 0; j < n; j++)
            LANE { y[j * L + l] += x0[l] * r0[j * L + l]; }
    }
}

/* ---------------------------------------------------------------- symmetric 6x6 over lanes */
/* A symmetric 6x6 matrix (an articulated inertia: aba.c, minv_aba.c) is stored as its upper
 * triangle, 21 entries row by row: (0,0..5), (1,1..5), ..., (5,5); laned, entry k of lane l at
 * X[k L + l]. */

/* packed index of entry (r, c) of a symmetric 6x6 matrix */
static const int SYM[6][6] = {
    {0, 1, 2, 3, 4, 5},      {1, 6, 7, 8, 9, 10},     {2, 7, 11, 12, 13, 14},
    {3, 8, 12, 15, 16, 17},  {4, 9, 13, 16, 18, 19},  {5, 10, 14, 17, 19, 20},
};

RD_INLINE void sym_times(int L, const double *X, const double *x, double *y)
{
    /* y = X x for the packed symmetric X (6x6) and laned 6-vectors x, y */
    LANE {
        double xl[6], acc[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        UNROLL6 for (int c = 0; c < 6; c++)
            xl[c] = x[c * L + l];
        UNROLL6 for (int r = 0; r < 6; r++)
            UNROLL6 for (int c = 0; c < 6; c++)
                acc[r] += X[SYM[r][c] * L + l] * xl[c];
        UNROLL6 for (int r = 0; r < 6; r++)
            y[r * L + l] = acc[r];
    }
}

/* ---------------------------------------------------------------- the algorithms */
/* each defined in its own file; out and work sizes are per lane */
int rd_rnea(const model_t *md, int L, const args_t *a, double *RESTRICT out,
            double *RESTRICT W, int *lane);
int64_t rd_rnea_work(const model_t *md);
int rd_rnea_derivatives(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                        double *RESTRICT W, int *lane);
int64_t rd_rnea_derivatives_work(const model_t *md);
int rd_regressor(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                 double *RESTRICT W, int *lane);
int64_t rd_regressor_work(const model_t *md);
int rd_crba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
            double *RESTRICT W, int *lane);
int64_t rd_crba_work(const model_t *md);
int64_t rd_crba_pattern(const model_t *md, const args_t *a, int64_t *nz, int64_t *src);
int rd_aba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
           double *RESTRICT W, int *lane);
int64_t rd_aba_work(const model_t *md);
int rd_coriolis(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                double *RESTRICT W, int *lane);
int64_t rd_coriolis_work(const model_t *md);
int rd_mass_matrix_dot(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                       double *RESTRICT W, int *lane);
int64_t rd_mass_matrix_dot_work(const model_t *md);
int rd_christoffel(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                   double *RESTRICT W, int *lane);
int rd_mass_matrix_derivative(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                              double *RESTRICT W, int *lane);
int64_t rd_christoffel_work(const model_t *md);
int rd_minv(const model_t *md, int L, const args_t *a, double *RESTRICT out,
            double *RESTRICT W, int *lane);
int rd_forward(const model_t *md, int L, const args_t *a, double *RESTRICT out,
               double *RESTRICT W, int *lane);
int64_t rd_minv_work(const model_t *md);
int rd_minv_aba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                double *RESTRICT W, int *lane);
int64_t rd_minv_aba_work(const model_t *md);
/* M^-1 (out, L lanes) from the workspace W of an ABA pass at q just run (minv_aba.c) */
void rd_minv_aba_rows(const model_t *md, int L, const double *q, double *RESTRICT W,
                      double *RESTRICT out);
int rd_task_lambda(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                   double *RESTRICT W, int *lane);
int rd_task_jbar(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                 double *RESTRICT W, int *lane);
int64_t rd_task_space_work(const model_t *md);
/* momentum.c: kinetic energy, momentum and its rate, the momentum matrix (CCRBA) */
int64_t rd_momentum_work(const model_t *md);
int rd_kinetic(const model_t *md, int L, const args_t *a, double *RESTRICT out,
               double *RESTRICT W, int *lane);
int rd_potential(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                 double *RESTRICT W, int *lane);
int rd_energy_regressor(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                        double *RESTRICT W, int *lane);
int rd_momentum(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                double *RESTRICT W, int *lane);
int rd_momentum_rate(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                     double *RESTRICT W, int *lane);
int rd_ccrba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
             double *RESTRICT W, int *lane);
/* cond(M(q)) estimated from below (power and inverse iteration on M); inf when M is not
 * positive definite to working precision; NaN when nv > 2000 or memory is short */
double rd_mass_cond(const model_t *md, const double *q, long flags);

#endif
