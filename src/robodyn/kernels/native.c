/*
 * Single-state RNEA, CRBA, ABA, Coriolis matrix, frame poses and Jacobians in C: the fast path of
 * robodyn.dynamics and robodyn.kinematics.
 *
 * Why C here, when every other kernel is numba: for one state of a 6-7 dof arm the
 * arithmetic of inverse dynamics is ~1 us, but a call into a numba kernel from Python
 * costs ~2 us before any arithmetic (the dispatcher types each argument, the output is
 * allocated by a Python call), and importing numba takes ~0.4 s before the first call.
 * This extension is compiled when robodyn is installed, so a single-state call costs
 * one C call that checks its arguments, allocates its output and runs the algorithm,
 * and the first call needs no compiler at all. Batches stay in the numba kernels
 * (prange over states, vectorised across states), which are also the fallback when
 * this file could not be compiled.
 *
 * The algorithms are those of kernels/rnea.py (MR eqs. 8.50-8.54), kernels/crba.py
 * (Featherstone table 6.2) and kernels/aba.py (Featherstone table 7.1), on the same
 * packed model (kernels/_pack.py), term for term in the same order: the tests check
 * this file against those kernels, against Pinocchio and against the numpy reference.
 *
 * Conventions: body coordinates, twists V = [omega, v], wrenches F = [m, f]; 3x3
 * matrices row-major in 9 doubles; gravity enters as the base acceleration
 * dV_0 = [0, -g].
 *
 * Python interface (all return the result array, or an int error code):
 *   rnea(P, q, v, a, fext, flags, eps) -> tau (nv,)
 *   aba(P, q, v, tau, fext, flags, eps) -> qdd (nv,)
 *   crba(P, q, flags) -> M (nv, nv)
 *   coriolis(P, q, v, flags) -> C (nv, nv)          (kernels/coriolis.py)
 *   frame_pose(I, F, q, frame) -> T (4, 4)          (kernels/kinematics.py: frame_pose)
 *   frame_poses(I, F, q) -> T (nf, 4, 4)            (frame_poses)
 *   jacobian(I, F, q, frame, kind) -> J (6, nv)     (jacobian, kind 0 space 1 body 2
 *                                                    world aligned)
 * P is the packed model (Packed.P); v / a may be None when FL_VEL / FL_ACC are not set,
 * fext is None or an (nb, 6) array (read when FL_FEXT is set). Error codes: -1 an
 * argument is not a C-contiguous float64 vector / (nb, 6) array (the caller converts it
 * and calls again); 1-4 the size of the 1st-4th state argument is wrong; 11-14 it
 * contains NaN or inf; 15 zero quaternion; 1000 + i the articulated inertia pivot of
 * body i is not positive (singular mass matrix). I, F of the kinematic functions are the
 * kinematic packing (pack_kinematics: the model plus its operational frames).
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <numpy/arrayobject.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

/* numpy includes complex.h, whose I (the imaginary unit) is the book's I here */
#undef I

/* ---- packed layout: mirrors kernels/_pack.py (compared at import by dynamics.py) */
enum { HI = 8, WI = 8, HF = 8, WF = 52 };
enum { BI_PARENT = 0, BI_END = 1, BI_TYPE = 2, BI_QIDX = 3, BI_VIDX = 4, BI_NV = 5 };
enum {
    BF_MASS = 0, BF_H = 1, BF_IO = 4, BF_AXIS = 13, BF_R0 = 16, BF_P0 = 25, BF_MULT = 28,
    BF_OFF = 29, BF_A1 = 30, BF_A2 = 39, BF_RA = 48
};
enum { J_FIXED = 0, J_REVOLUTE = 1, J_PRISMATIC = 2, J_FREE = 3 };
enum {
    FL_FRICTION = 1, FL_ARMATURE = 2, FL_CHECK = 4, FL_GRAVITY = 8, FL_VEL = 16,
    FL_ACC = 32, FL_FEXT = 64
};
/* workspace widths per body (as in rnea.py, crba.py, aba.py) */
enum { WW = 30, WC = 25, WA = 122, SCRATCH = 114 };
/* models up to this many bodies use a workspace on the stack */
enum { STACK_BODIES = 24 };
/* release the GIL from this many bodies on (below, the call is shorter than the swap) */
enum { NOGIL_BODIES = 16 };

/* The three algorithms are compiled twice on x86-64: for the baseline ISA and for
 * x86-64-v3 (AVX2, FMA), picked at load time by the CPU (a fused multiply-add rounds
 * once instead of twice: results differ from the numba kernels by a few ulps). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

typedef struct {
    const int64_t *restrict I; /* HI + WI nb */
    const double *restrict F;  /* HF + WF nb + 3 nv */
    int64_t nb, nq, nv;
} model_t;

/* ---------------------------------------------------------------- small helpers */
static inline void cross(const double *a, const double *b, double *c)
{
    /* c = a x b */
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    c[0] = x;
    c[1] = y;
    c[2] = z;
}

static inline void rmul(const double *R, const double *x, double *y)
{
    /* y = R x */
    y[0] = R[0] * x[0] + R[1] * x[1] + R[2] * x[2];
    y[1] = R[3] * x[0] + R[4] * x[1] + R[5] * x[2];
    y[2] = R[6] * x[0] + R[7] * x[1] + R[8] * x[2];
}

static inline void rtmul(const double *R, const double *x, double *y)
{
    /* y = R^T x */
    y[0] = R[0] * x[0] + R[3] * x[1] + R[6] * x[2];
    y[1] = R[1] * x[0] + R[4] * x[1] + R[7] * x[2];
    y[2] = R[2] * x[0] + R[5] * x[1] + R[8] * x[2];
}

static inline void mm(const double *A, const double *B, double *C)
{
    /* C = A B */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            C[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
}

static inline void rot_sandwich(const double *R, const double *A, double *out)
{
    /* out = R A R^T */
    double T[9];
    mm(R, A, T);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            out[3 * r + c] = T[3 * r] * R[3 * c] + T[3 * r + 1] * R[3 * c + 1]
                             + T[3 * r + 2] * R[3 * c + 2];
}

static inline void skew_left(const double *p, const double *A, double *out)
{
    /* out = [p] A */
    for (int c = 0; c < 3; c++) {
        out[c] = p[1] * A[6 + c] - p[2] * A[3 + c];
        out[3 + c] = p[2] * A[c] - p[0] * A[6 + c];
        out[6 + c] = p[0] * A[3 + c] - p[1] * A[c];
    }
}

static inline void transpose9(const double *A, double *out)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            out[3 * c + r] = A[3 * r + c];
}

static inline void wrench_to_parent(const double *R, const double *p, const double *m,
                                    const double *f, double *gm, double *gf)
{
    /* Ad_{T_{i,lambda}}^T F_i = [R m + p x (R f); R f], (R, p) = T_{lambda,i} */
    double rm[3], c[3];
    rmul(R, m, rm);
    rmul(R, f, gf);
    cross(p, gf, c);
    gm[0] = rm[0] + c[0];
    gm[1] = rm[1] + c[1];
    gm[2] = rm[2] + c[2];
}

static inline double coulomb(double fr, double x, double eps)
{
    /* f_c sgn(x), or f_c tanh(x / eps) when eps > 0 */
    if (eps > 0.0)
        return fr * tanh(x / eps);
    if (x > 0.0)
        return fr;
    if (x < 0.0)
        return -fr;
    return 0.0;
}

static inline int nonfinite(const double *x, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (!isfinite(x[k]))
            return 1;
    return 0;
}

static inline void quat_rot(double w, double x, double y, double z, double *R)
{
    /* rotation of the quaternion (w, x, y, z), normalised on the fly (2/|q|^2 scaling) */
    double s = 2.0 / (w * w + x * x + y * y + z * z);
    R[0] = 1.0 - s * (y * y + z * z);
    R[1] = s * (x * y - w * z);
    R[2] = s * (x * z + w * y);
    R[3] = s * (x * y + w * z);
    R[4] = 1.0 - s * (x * x + z * z);
    R[5] = s * (y * z - w * x);
    R[6] = s * (x * z - w * y);
    R[7] = s * (y * z + w * x);
    R[8] = 1.0 - s * (x * x + y * y);
}

/* ---------------------------------------------------------------- the joint model */
static inline int joint_pose(const int64_t *Ii, const double *Fi, const double *q, double *Wi)
{
    /* (R, p) = T_{lambda(i), i}(q) = T(jnt_R, jnt_p) X_J(q_i) into Wi[0:12].
     * Revolute: R = R0 Rot(axis, th) = R0 + sin th R0 [a] + (1 - cos th) R0 [a]^2
     * (MR eq. 3.51); prismatic: p = p0 + d R0 axis; free: R = R0 R(quat), p = p0 + R0 xyz.
     * A mimic joint reads th = mult q[leader] + offset. Returns 15 for a zero quaternion. */
    const int64_t jt = Ii[BI_TYPE];
    const double *q0 = q + Ii[BI_QIDX];
    if (jt == J_REVOLUTE) {
        double th = Fi[BF_MULT] * q0[0] + Fi[BF_OFF];
        double s = sin(th), c = 1.0 - cos(th);
        for (int k = 0; k < 9; k++)
            Wi[k] = Fi[BF_R0 + k] + s * Fi[BF_A1 + k] + c * Fi[BF_A2 + k];
        memcpy(Wi + 9, Fi + BF_P0, 3 * sizeof(double));
    }
    else if (jt == J_PRISMATIC) {
        double d = Fi[BF_MULT] * q0[0] + Fi[BF_OFF];
        memcpy(Wi, Fi + BF_R0, 9 * sizeof(double));
        for (int k = 0; k < 3; k++)
            Wi[9 + k] = Fi[BF_P0 + k] + d * Fi[BF_RA + k];
    }
    else if (jt == J_FREE) {
        double Rq[9], d[3];
        if (q0[3] * q0[3] + q0[4] * q0[4] + q0[5] * q0[5] + q0[6] * q0[6] == 0.0)
            return 15;
        quat_rot(q0[3], q0[4], q0[5], q0[6], Rq);
        mm(Fi + BF_R0, Rq, Wi);
        rmul(Fi + BF_R0, q0, d);
        for (int k = 0; k < 3; k++)
            Wi[9 + k] = Fi[BF_P0 + k] + d[k];
    }
    else {
        memcpy(Wi, Fi + BF_R0, 12 * sizeof(double)); /* R0 then p0 */
    }
    return 0;
}

static inline void joint_rate(const int64_t *Ii, const double *Fi, const double *x, double *jw,
                       double *jv)
{
    /* the joint twist S_i x_i = [jw; jv] in body coordinates, from v or a (x = NULL: 0).
     * Revolute S = [axis; 0], prismatic [0; axis] (a mimic scales its leader's rate by its
     * multiplier), free S = 1_6, fixed S = 0. */
    const int64_t jt = Ii[BI_TYPE];
    jw[0] = jw[1] = jw[2] = jv[0] = jv[1] = jv[2] = 0.0;
    if (x == NULL)
        return;
    const double *x0 = x + Ii[BI_VIDX];
    if (jt == J_FREE) {
        jw[0] = x0[0], jw[1] = x0[1], jw[2] = x0[2];
        jv[0] = x0[3], jv[1] = x0[4], jv[2] = x0[5];
    }
    else if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
        double r = Fi[BF_MULT] * x0[0];
        double *out = jt == J_REVOLUTE ? jw : jv;
        out[0] = Fi[BF_AXIS] * r;
        out[1] = Fi[BF_AXIS + 1] * r;
        out[2] = Fi[BF_AXIS + 2] * r;
    }
}

static inline void body_wrench(const double *Fi, const double *w, const double *v, const double *dw,
                        const double *dv, double *fm, double *ff)
{
    /* G_i dV_i - ad_{V_i}^T (G_i V_i) with G = [[I_o, [h]], [[h]^T, m 1]], h = m c:
     * G V = [I_o w + h x v; m v - h x w] =: [k; l], -ad_V^T [k; l] = [w x k + v x l; w x l]
     * (MR eq. 8.53, own part) */
    const double m = Fi[BF_MASS], *h = Fi + BF_H, *Io = Fi + BF_IO;
    double c1[3], c2[3], c3[3], c4[3], c5[3], c6[3], c7[3], k[3], l[3];
    cross(h, v, c1);
    for (int r = 0; r < 3; r++)
        k[r] = Io[3 * r] * w[0] + Io[3 * r + 1] * w[1] + Io[3 * r + 2] * w[2] + c1[r];
    cross(h, w, c2);
    for (int r = 0; r < 3; r++)
        l[r] = m * v[r] - c2[r];
    cross(h, dv, c3);
    cross(h, dw, c4);
    cross(w, k, c5);
    cross(v, l, c6);
    cross(w, l, c7);
    for (int r = 0; r < 3; r++) {
        fm[r] = Io[3 * r] * dw[0] + Io[3 * r + 1] * dw[1] + Io[3 * r + 2] * dw[2] + c3[r] + c5[r]
                + c6[r];
        ff[r] = m * dv[r] - c4[r] + c7[r];
    }
}

/* ---------------------------------------------------------------- RNEA */
CLONES static int rnea_core(const model_t *md, const double *restrict q, const double *restrict v,
                     const double *restrict a, const double *restrict fext, long flags,
                     double eps, double *restrict tau, double *restrict W)
{
    /* tau = rnea(q, v, a) (MR section 8.3.2); W: WW nb doubles. Workspace row of body i:
     * R (9), p (3) of T_{lambda,i}; V_i (6); dV_i (6); F_i (6). */
    const int64_t *I = md->I;
    const double *F = md->F;
    const int64_t nb = md->nb, nv = md->nv;
    const int use_f = (flags & FL_FEXT) != 0;
    if (!(flags & FL_VEL))
        v = NULL;
    if (!(flags & FL_ACC))
        a = NULL;
    if (flags & FL_CHECK) {
        if (nonfinite(q, md->nq))
            return 11;
        if (v && nonfinite(v, nv))
            return 12;
        if (a && nonfinite(a, nv))
            return 13;
        if (use_f && nonfinite(fext, 6 * nb))
            return 14;
    }
    /* base: V_0 = 0, dV_0 = [0, -g] (gravity as a fictitious base acceleration) */
    memset(W + 12, 0, 18 * sizeof(double));
    if (flags & FL_GRAVITY)
        W[21] = -F[0], W[22] = -F[1], W[23] = -F[2];
    memset(tau, 0, nv * sizeof(double));
    /* ---- forward pass, i = 1..n: velocities and accelerations, MR eqs. 8.50-8.52 */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        double *Wi = W + WW * i;
        const double *Wl = W + WW * Ii[BI_PARENT];
        int err = joint_pose(Ii, Fi, q, Wi);
        if (err)
            return err;
        const double *R = Wi, *p = Wi + 9;
        double jw[3], jv[3], aw[3], av[3], t[3], c[3], e1[3], e2[3], e3[3];
        joint_rate(Ii, Fi, v, jw, jv); /* S_i qd_i */
        joint_rate(Ii, Fi, a, aw, av); /* S_i qdd_i */
        /* 8.50: V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i
         *       = [R^T w_l; R^T (v_l + w_l x p)] + V_J */
        double *w = Wi + 12, *vb = Wi + 15, *dw = Wi + 18, *dv = Wi + 21;
        cross(Wl + 12, p, c);
        for (int r = 0; r < 3; r++)
            t[r] = Wl[15 + r] + c[r];
        rtmul(R, Wl + 12, w);
        rtmul(R, t, vb);
        for (int r = 0; r < 3; r++)
            w[r] += jw[r], vb[r] += jv[r];
        /* 8.51: dV_i = Ad_{T_{i,lambda}} dV_lambda + ad_{V_i}(S_i qd_i) + S_i qdd_i,
         *       ad_V V_J = [w x w_J; w x v_J + v x w_J] */
        cross(Wl + 18, p, c);
        for (int r = 0; r < 3; r++)
            t[r] = Wl[21 + r] + c[r];
        cross(w, jw, e1);
        cross(w, jv, e2);
        cross(vb, jw, e3);
        rtmul(R, Wl + 18, dw);
        rtmul(R, t, dv);
        for (int r = 0; r < 3; r++) {
            dw[r] += e1[r] + aw[r];
            dv[r] += e2[r] + e3[r] + av[r];
        }
        /* 8.53 (own part): F_i = G_i dV_i - ad_{V_i}^T (G_i V_i) - F_ext,i */
        double *fm = Wi + 24, *ff = Wi + 27;
        body_wrench(Fi, w, vb, dw, dv, fm, ff);
        if (use_f) {
            const double *fe = fext + 6 * i;
            for (int r = 0; r < 3; r++)
                fm[r] -= fe[r], ff[r] -= fe[3 + r];
        }
    }
    /* ---- backward pass, i = n..1: MR eqs. 8.53-8.54 */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        const double *Wi = W + WW * i;
        const double *fm = Wi + 24, *ff = Wi + 27, *ax = Fi + BF_AXIS;
        const int64_t jt = Ii[BI_TYPE], va = Ii[BI_VIDX];
        /* 8.54: tau_i = F_i^T S_i (a mimic adds mult S_i^T F_i to its leader) */
        if (jt == J_FREE) {
            for (int r = 0; r < 3; r++)
                tau[va + r] += fm[r], tau[va + 3 + r] += ff[r];
        }
        else if (jt == J_REVOLUTE)
            tau[va] += Fi[BF_MULT] * (ax[0] * fm[0] + ax[1] * fm[1] + ax[2] * fm[2]);
        else if (jt != J_FIXED)
            tau[va] += Fi[BF_MULT] * (ax[0] * ff[0] + ax[1] * ff[1] + ax[2] * ff[2]);
        /* 8.53 (child part): F_lambda += Ad_{T_{i,lambda}}^T F_i */
        const int64_t lam = Ii[BI_PARENT];
        if (lam > 0) {
            double gm[3], gf[3];
            double *Wl = W + WW * lam;
            wrench_to_parent(Wi, Wi + 9, fm, ff, gm, gf);
            for (int r = 0; r < 3; r++)
                Wl[24 + r] += gm[r], Wl[27 + r] += gf[r];
        }
    }
    /* ---- joint friction and rotor inertia: tau += b qd + f_c sgn(qd) + armature qdd */
    const double *d = F + HF + WF * nb;
    if ((flags & FL_FRICTION) && v)
        for (int64_t k = 0; k < nv; k++)
            tau[k] += d[k] * v[k] + coulomb(d[nv + k], v[k], eps);
    if ((flags & FL_ARMATURE) && a)
        for (int64_t k = 0; k < nv; k++)
            tau[k] += d[2 * nv + k] * a[k];
    return 0;
}

/* ---------------------------------------------------------------- CRBA */
static inline void crba_column(int64_t jt, const double *Fi, int k, double *s)
{
    /* column k of S_i: revolute [axis; 0], prismatic [0; axis], free e_k */
    memset(s, 0, 6 * sizeof(double));
    if (jt == J_REVOLUTE)
        memcpy(s, Fi + BF_AXIS, 3 * sizeof(double));
    else if (jt == J_PRISMATIC)
        memcpy(s + 3, Fi + BF_AXIS, 3 * sizeof(double));
    else
        s[k] = 1.0;
}

static inline double crba_project(int64_t jt, const double *Fi, int k, const double *fm,
                                  const double *ff)
{
    /* S_{i,k}^T F for the wrench F = [m; f] */
    const double *ax = Fi + BF_AXIS;
    if (jt == J_REVOLUTE)
        return ax[0] * fm[0] + ax[1] * fm[1] + ax[2] * fm[2];
    if (jt == J_PRISMATIC)
        return ax[0] * ff[0] + ax[1] * ff[1] + ax[2] * ff[2];
    return k < 3 ? fm[k] : ff[k - 3];
}

CLONES static int crba_core(const model_t *md, const double *restrict q, long flags,
                     double *restrict M, double *restrict W)
{
    /* M(q) into M (nv x nv, row-major); W: WC nb doubles. Workspace row of body i:
     * R (9), p (3) of T_{lambda,i}; the composite inertia Ic_i as m, h (3), I_o (9). */
    const int64_t *I = md->I;
    const double *F = md->F;
    const int64_t nb = md->nb, nv = md->nv;
    if ((flags & FL_CHECK) && nonfinite(q, md->nq))
        return 11;
    memset(M, 0, nv * nv * sizeof(double));
    /* ---- poses T_{lambda,i}(q) and Ic_i = G_i (body frame, about the body origin) */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        double *Wi = W + WC * i;
        int err = joint_pose(Ii, Fi, q, Wi);
        if (err)
            return err;
        memcpy(Wi + 12, Fi + BF_MASS, 13 * sizeof(double));
    }
    /* ---- composite inertias, i = n..1: Ic_lambda += Ad_{T_{i,lambda}}^T Ic_i Ad */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t lam = I[HI + WI * i + BI_PARENT];
        if (lam <= 0)
            continue;
        const double *Wi = W + WC * i, *R = Wi, *p = Wi + 9;
        double *Wl = W + WC * lam;
        const double m = Wi[12];
        /* moved to the parent frame: h' = R h + m p,
         * I' = R I_o R^T + (2 (R h).p + m |p|^2) 1 - ((R h) p^T + p (R h)^T + m p p^T) */
        double h[3], Ir[9];
        rmul(R, Wi + 13, h);
        rot_sandwich(R, Wi + 16, Ir);
        double s = 2.0 * (h[0] * p[0] + h[1] * p[1] + h[2] * p[2])
                   + m * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        /* (R h) p^T + p (R h)^T + m p p^T = a p^T + p a^T with a = R h + m p / 2 */
        double ah[3];
        for (int r = 0; r < 3; r++)
            ah[r] = h[r] + 0.5 * m * p[r];
        Wl[12] += m;
        for (int r = 0; r < 3; r++)
            Wl[13 + r] += h[r] + m * p[r];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double D = (r == c ? s - 2.0 * ah[r] * p[r] : -(ah[r] * p[c] + p[r] * ah[c]));
                Wl[16 + 3 * r + c] += Ir[3 * r + c] + D;
            }
    }
    /* ---- columns: F = Ic_i S_i; M_ii = S_i^T F; walk to the root for M_ji */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        const double *Wi = W + WC * i;
        const int64_t jt = Ii[BI_TYPE], ncol = Ii[BI_NV], vi = Ii[BI_VIDX];
        const double mi = Fi[BF_MULT], m = Wi[12], *h = Wi + 13, *Io = Wi + 16;
        for (int k = 0; k < ncol; k++) {
            double s[6], c1[3], c2[3], fm[3], ff[3];
            crba_column(jt, Fi, k, s);
            /* Ic s = [I_o w + h x u; m u - h x w] */
            cross(h, s + 3, c1);
            cross(h, s, c2);
            for (int r = 0; r < 3; r++) {
                fm[r] = Io[3 * r] * s[0] + Io[3 * r + 1] * s[1] + Io[3 * r + 2] * s[2] + c1[r];
                ff[r] = m * s[3 + r] - c2[r];
            }
            const int64_t ci = vi + k;
            /* M_ii = S_i^T Ic_i S_i */
            for (int k2 = 0; k2 < ncol; k2++)
                M[(vi + k2) * nv + ci] += mi * mi * crba_project(jt, Fi, k2, fm, ff);
            int64_t j = i, lam = Ii[BI_PARENT];
            while (lam > 0) {
                /* F <- Ad_{T_{j,lambda}}^T F (the wrench moved to the parent frame) */
                const double *Wj = W + WC * j;
                double gm[3], gf[3];
                wrench_to_parent(Wj, Wj + 9, fm, ff, gm, gf);
                memcpy(fm, gm, sizeof fm);
                memcpy(ff, gf, sizeof ff);
                j = lam;
                const int64_t *Ij = I + HI + WI * j;
                const double *Fj = F + HF + WF * j;
                const int64_t jtj = Ij[BI_TYPE], vj = Ij[BI_VIDX];
                const double mj = Fj[BF_MULT];
                /* M_ji = S_j^T F, M_ij = M_ji^T */
                for (int k2 = 0; k2 < Ij[BI_NV]; k2++) {
                    double val = mi * mj * crba_project(jtj, Fj, k2, fm, ff);
                    M[(vj + k2) * nv + ci] += val;
                    M[ci * nv + vj + k2] += val;
                }
                lam = Ij[BI_PARENT];
            }
        }
    }
    if (flags & FL_ARMATURE) {
        const double *arm = F + HF + WF * nb + 2 * nv;
        for (int64_t k = 0; k < nv; k++)
            M[k * nv + k] += arm[k];
    }
    return 0;
}

/* ---------------------------------------------------------------- ABA */
/* Workspace row of body i (WA doubles): R, p (0:12); V (12:18); c (18:24); pA (24:30);
 * IA (30:66, 6x6 row-major); U = IA S (66:72); 1/D (72); u (73); dV (74:80); for a free
 * joint the Cholesky factor of D (80:116) and u (116:122). After the rows: SCRATCH
 * doubles for the free joint: D/L (36), Z (36), Ia (36), pa (6). */

static inline void blocks(const double *X, double *A, double *B, double *C)
{
    /* the 3x3 blocks A (ang-ang), B (ang-lin), C (lin-lin) of the symmetric 6x6 X */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            A[3 * r + c] = X[6 * r + c];
            B[3 * r + c] = X[6 * r + c + 3];
            C[3 * r + c] = X[6 * (r + 3) + c + 3];
        }
}

static inline void add_moved(double *X, const double *A, const double *B, const double *C,
                      const double *R, const double *p)
{
    /* X += Ad_{T_{i,lambda}}^T [[A, B], [B^T, C]] Ad_{T_{i,lambda}}, (R, p) = T_{lambda,i}:
     * rotate each block (R Y R^T), then shift by p: C'' = C', B'' = B' + [p] C',
     * A'' = A' - B'[p] - (B'[p])^T - [p] C' [p]. */
    double A1[9], B1[9], C1[9], Y[9], E[9], Z[9], T1[9], T2[9];
    rot_sandwich(R, A, A1);
    rot_sandwich(R, B, B1);
    rot_sandwich(R, C, C1);
    skew_left(p, C1, Y); /* [p] C' */
    transpose9(B1, T1);
    skew_left(p, T1, T2);
    transpose9(T2, E); /* -(B'[p]) */
    transpose9(Y, T1);
    skew_left(p, T1, T2);
    transpose9(T2, Z); /* -([p] C' [p]) */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int k = 3 * r + c;
            X[6 * r + c] += A1[k] + E[k] + E[3 * c + r] + Z[k];
            double b = B1[k] + Y[k];
            X[6 * r + c + 3] += b;
            X[6 * (c + 3) + r] += b;
            X[6 * (r + 3) + c + 3] += C1[k];
        }
}

static inline int chol6(double *L, double tol)
{
    /* Cholesky of the 6x6 L in place (lower triangle); 0 if a pivot is <= tol */
    for (int j = 0; j < 6; j++) {
        double d = L[7 * j];
        for (int k = 0; k < j; k++)
            d -= L[6 * j + k] * L[6 * j + k];
        if (!(d > tol))
            return 0;
        d = sqrt(d);
        L[7 * j] = d;
        for (int r = j + 1; r < 6; r++) {
            double s = L[6 * r + j];
            for (int k = 0; k < j; k++)
                s -= L[6 * r + k] * L[6 * j + k];
            L[6 * r + j] = s / d;
        }
    }
    return 1;
}

static inline void chol6_solve_col(const double *L, double *X, int c)
{
    /* solve L L^T x = b for column c of the 6x6 X, in place */
    for (int r = 0; r < 6; r++) {
        double s = X[6 * r + c];
        for (int k = 0; k < r; k++)
            s -= L[6 * r + k] * X[6 * k + c];
        X[6 * r + c] = s / L[7 * r];
    }
    for (int r = 5; r >= 0; r--) {
        double s = X[6 * r + c];
        for (int k = r + 1; k < 6; k++)
            s -= L[6 * k + r] * X[6 * k + c];
        X[6 * r + c] = s / L[7 * r];
    }
}

static inline int free_pass2(const double *d0, int64_t nv, double *Wi, double *S, int64_t va,
                      const double *tau, const double *v, long flags, double eps, double tol,
                      int has_parent)
{
    /* pass 2 of ABA for a free joint (S = 1_6): U = IA, D = IA + diag(armature) (its
     * Cholesky factor into Wi[80:]), u = tau - pA - friction (into Wi[116:]); with a
     * parent: Ia = IA - IA D^-1 IA into S[72:] and pa = pA + Ia c + IA D^-1 u into S[108:].
     * Returns 0 if D is not positive definite. */
    const double *IA = Wi + 30;
    double *L = S;
    memcpy(L, IA, 36 * sizeof(double));
    for (int k = 0; k < 6; k++) {
        Wi[116 + k] = tau[va + k] - Wi[24 + k];
        if (flags & FL_ARMATURE)
            L[7 * k] += d0[2 * nv + va + k];
        if (flags & FL_FRICTION)
            Wi[116 + k] -= d0[va + k] * v[va + k] + coulomb(d0[nv + va + k], v[va + k], eps);
    }
    if (!chol6(L, tol))
        return 0;
    memcpy(Wi + 80, L, 36 * sizeof(double));
    if (!has_parent)
        return 1;
    /* Z = D^-1 IA; Ia = IA - IA Z; pa = pA + Ia c + IA D^-1 u */
    double *Z = S + 36, *Ia = S + 72, *y = S;
    memcpy(Z, IA, 36 * sizeof(double));
    for (int c = 0; c < 6; c++)
        chol6_solve_col(Wi + 80, Z, c);
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
            double acc = IA[6 * r + c];
            for (int k = 0; k < 6; k++)
                acc -= IA[6 * r + k] * Z[6 * k + c];
            Ia[6 * r + c] = acc;
        }
    for (int k = 0; k < 6; k++) /* y = D^-1 u in column 0 of the first scratch block */
        y[6 * k] = Wi[116 + k];
    chol6_solve_col(Wi + 80, y, 0);
    for (int r = 0; r < 6; r++) {
        double acc = Wi[24 + r];
        for (int k = 0; k < 6; k++)
            acc += Ia[6 * r + k] * Wi[18 + k] + IA[6 * r + k] * y[6 * k];
        S[108 + r] = acc;
    }
    return 1;
}

CLONES static int aba_core(const model_t *md, const double *restrict q, const double *restrict v,
                    const double *restrict tau, const double *restrict fext, long flags,
                    double eps, double *restrict qdd, double *restrict W)
{
    /* qdd = aba(q, v, tau) (Featherstone table 7.1); W: WA nb + SCRATCH doubles. */
    const int64_t *I = md->I;
    const double *F = md->F;
    const int64_t nb = md->nb, nv = md->nv;
    const int use_f = (flags & FL_FEXT) != 0, fr = (flags & FL_FRICTION) != 0;
    const double *d0 = F + HF + WF * nb, tol = F[3];
    if (flags & FL_CHECK) {
        if (nonfinite(q, md->nq))
            return 11;
        if (nonfinite(v, nv))
            return 12;
        if (nonfinite(tau, nv))
            return 13;
        if (use_f && nonfinite(fext, 6 * nb))
            return 14;
    }
    memset(W + 12, 0, 18 * sizeof(double));
    /* ---- pass 1, i = 1..n: V_i, c_i, IA_i = G_i, pA_i */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        double *Wi = W + WA * i;
        const double *Wl = W + WA * Ii[BI_PARENT];
        int err = joint_pose(Ii, Fi, q, Wi);
        if (err)
            return err;
        const double *R = Wi, *p = Wi + 9;
        double jw[3], jv[3], t[3], c[3], e1[3], e2[3], e3[3];
        joint_rate(Ii, Fi, v, jw, jv);
        /* V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i (MR 8.50) */
        double *w = Wi + 12, *vb = Wi + 15;
        cross(Wl + 12, p, c);
        for (int r = 0; r < 3; r++)
            t[r] = Wl[15 + r] + c[r];
        rtmul(R, Wl + 12, w);
        rtmul(R, t, vb);
        for (int r = 0; r < 3; r++)
            w[r] += jw[r], vb[r] += jv[r];
        /* c_i = ad_{V_i} S_i qd_i = [w x w_J; w x v_J + v x w_J] */
        cross(w, jw, e1);
        cross(w, jv, e2);
        cross(vb, jw, e3);
        for (int r = 0; r < 3; r++)
            Wi[18 + r] = e1[r], Wi[21 + r] = e2[r] + e3[r];
        /* IA_i = G_i = [[I_o, [h]], [[h]^T, m 1]] */
        const double m = Fi[BF_MASS], *h = Fi + BF_H;
        double *X = Wi + 30;
        for (int r = 0; r < 3; r++)
            for (int cc = 0; cc < 3; cc++) {
                X[6 * r + cc] = Fi[BF_IO + 3 * r + cc];
                X[6 * (r + 3) + cc + 3] = r == cc ? m : 0.0;
            }
        X[3] = 0.0, X[4] = -h[2], X[5] = h[1];
        X[9] = h[2], X[10] = 0.0, X[11] = -h[0];
        X[15] = -h[1], X[16] = h[0], X[17] = 0.0;
        X[18] = 0.0, X[19] = h[2], X[20] = -h[1];
        X[24] = -h[2], X[25] = 0.0, X[26] = h[0];
        X[30] = h[1], X[31] = -h[0], X[32] = 0.0;
        /* pA_i = -ad_{V_i}^T G_i V_i - F_ext,i (body_wrench with dV = 0) */
        static const double zero[3] = {0.0, 0.0, 0.0};
        body_wrench(Fi, w, vb, zero, zero, Wi + 24, Wi + 27);
        if (use_f)
            for (int k = 0; k < 6; k++)
                Wi[24 + k] -= fext[6 * i + k];
    }
    /* ---- pass 2, i = n..1: articulated inertias and bias wrenches */
    double *S = W + WA * nb;
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        double *Wi = W + WA * i;
        const int64_t lam = Ii[BI_PARENT], jt = Ii[BI_TYPE], va = Ii[BI_VIDX];
        double A[9], B[9], C[9], pm[3], pf[3];
        blocks(Wi + 30, A, B, C);
        if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
            const double *ax = Fi + BF_AXIS;
            double uw[3], uv[3], D, sp;
            /* U_i = IA_i S_i (S = [axis; 0] or [0; axis]) */
            if (jt == J_REVOLUTE) {
                rmul(A, ax, uw);
                rtmul(B, ax, uv);
                D = ax[0] * uw[0] + ax[1] * uw[1] + ax[2] * uw[2];
                sp = ax[0] * Wi[24] + ax[1] * Wi[25] + ax[2] * Wi[26];
            }
            else {
                rmul(B, ax, uw);
                rmul(C, ax, uv);
                D = ax[0] * uv[0] + ax[1] * uv[1] + ax[2] * uv[2];
                sp = ax[0] * Wi[27] + ax[1] * Wi[28] + ax[2] * Wi[29];
            }
            /* D_i = S_i^T U_i + armature;  u_i = tau_i - S_i^T pA_i - friction */
            if (flags & FL_ARMATURE)
                D += d0[2 * nv + va];
            if (!(D > tol))
                return (int)(1000 + i);
            double u = tau[va] - sp;
            if (fr)
                u -= d0[va] * v[va] + coulomb(d0[nv + va], v[va], eps);
            const double Dinv = 1.0 / D;
            memcpy(Wi + 66, uw, sizeof uw);
            memcpy(Wi + 69, uv, sizeof uv);
            Wi[72] = Dinv;
            Wi[73] = u;
            if (lam <= 0)
                continue;
            /* Ia = IA - U D^-1 U^T (blockwise) */
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    A[3 * r + c] -= uw[r] * uw[c] * Dinv;
                    B[3 * r + c] -= uw[r] * uv[c] * Dinv;
                    C[3 * r + c] -= uv[r] * uv[c] * Dinv;
                }
            /* pa = pA + Ia c + U D^-1 u */
            const double *cw = Wi + 18, *cv = Wi + 21, g = u * Dinv;
            for (int r = 0; r < 3; r++) {
                pm[r] = Wi[24 + r] + A[3 * r] * cw[0] + A[3 * r + 1] * cw[1] + A[3 * r + 2] * cw[2]
                        + B[3 * r] * cv[0] + B[3 * r + 1] * cv[1] + B[3 * r + 2] * cv[2]
                        + uw[r] * g;
                pf[r] = Wi[27 + r] + B[r] * cw[0] + B[3 + r] * cw[1] + B[6 + r] * cw[2]
                        + C[3 * r] * cv[0] + C[3 * r + 1] * cv[1] + C[3 * r + 2] * cv[2]
                        + uv[r] * g;
            }
        }
        else if (jt == J_FREE) {
            if (!free_pass2(d0, nv, Wi, S, va, tau, v, flags, eps, tol, lam > 0))
                return (int)(1000 + i);
            if (lam <= 0)
                continue;
            memcpy(pm, S + 108, sizeof pm);
            memcpy(pf, S + 111, sizeof pf);
            blocks(S + 72, A, B, C);
        }
        else
            continue;
        /* IA_lambda += Ad^T Ia Ad;  pA_lambda += Ad^T pa  (Featherstone table 7.1) */
        double *Wl = W + WA * lam, gm[3], gf[3];
        add_moved(Wl + 30, A, B, C, Wi, Wi + 9);
        wrench_to_parent(Wi, Wi + 9, pm, pf, gm, gf);
        for (int r = 0; r < 3; r++)
            Wl[24 + r] += gm[r], Wl[27 + r] += gf[r];
    }
    /* ---- pass 3, i = 1..n: accelerations, dV_0 = [0, -g] */
    memset(W + 74, 0, 6 * sizeof(double));
    if (flags & FL_GRAVITY)
        W[77] = -F[0], W[78] = -F[1], W[79] = -F[2];
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        double *Wi = W + WA * i;
        const double *Wl = W + WA * Ii[BI_PARENT];
        const int64_t jt = Ii[BI_TYPE], va = Ii[BI_VIDX];
        const double *R = Wi, *p = Wi + 9;
        /* a' = Ad_{T_{i,lambda}} dV_lambda + c_i */
        double c[3], t[3], aw[3], av[3];
        cross(Wl + 74, p, c);
        for (int r = 0; r < 3; r++)
            t[r] = Wl[77 + r] + c[r];
        rtmul(R, Wl + 74, aw);
        rtmul(R, t, av);
        for (int r = 0; r < 3; r++)
            aw[r] += Wi[18 + r], av[r] += Wi[21 + r];
        if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
            /* qdd_i = D_i^-1 (u_i - U_i^T a');  dV_i = a' + S_i qdd_i */
            double x = Wi[72] * (Wi[73] - Wi[66] * aw[0] - Wi[67] * aw[1] - Wi[68] * aw[2]
                                 - Wi[69] * av[0] - Wi[70] * av[1] - Wi[71] * av[2]);
            qdd[va] = x;
            double *out = jt == J_REVOLUTE ? aw : av;
            for (int r = 0; r < 3; r++)
                out[r] += Fi[BF_AXIS + r] * x;
        }
        else if (jt == J_FREE) {
            /* qdd_i = D^-1 (u_i - IA_i a'), dV_i = a' + qdd_i */
            double ap[6] = {aw[0], aw[1], aw[2], av[0], av[1], av[2]}, *y = S;
            for (int r = 0; r < 6; r++) {
                double acc = Wi[116 + r];
                for (int k = 0; k < 6; k++)
                    acc -= Wi[30 + 6 * r + k] * ap[k];
                y[6 * r] = acc;
            }
            chol6_solve_col(Wi + 80, y, 0);
            for (int k = 0; k < 6; k++)
                qdd[va + k] = y[6 * k];
            for (int r = 0; r < 3; r++)
                aw[r] += y[6 * r], av[r] += y[6 * (r + 3)];
        }
        memcpy(Wi + 74, aw, sizeof aw);
        memcpy(Wi + 77, av, sizeof av);
    }
    return 0;
}

/* ---------------------------------------------------------------- Coriolis matrix */
/* The Christoffel-consistent C(q, v) of kernels/coriolis.py (Echeandia & Wensing 2021),
 * in world coordinates. Workspace row of body i (WCO doubles): R (9), p (3) of T_s,i;
 * V_i (6); composite Ic: m, h (3), I_o (9); dIc/dt: dh (3), dI_o (9); k = sum G V (6);
 * then up to 6 columns [S_a (6), dS_a/dt (6)]. */
enum { CO_P = 9, CO_V = 12, CO_M = 18, CO_H = 19, CO_IO = 22, CO_DH = 31, CO_DIO = 34,
       CO_K = 43, CO_S = 49, WCO = 49 + 72 };

static inline void inertia_times(double m, const double *h, const double *Io, const double *w,
                                 const double *u, double *out)
{
    /* G [w; u] = [I_o w + h x u; m u - h x w] for G = (m, h, I_o) */
    double c1[3], c2[3];
    cross(h, u, c1);
    cross(h, w, c2);
    for (int r = 0; r < 3; r++) {
        out[r] = Io[3 * r] * w[0] + Io[3 * r + 1] * w[1] + Io[3 * r + 2] * w[2] + c1[r];
        out[3 + r] = m * u[r] - c2[r];
    }
}

static inline double dot6(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

CLONES static int coriolis_core(const model_t *md, const double *restrict q,
                                const double *restrict v, long flags, double *restrict C,
                                double *restrict W)
{
    /* C(q, v) into C (nv x nv, row-major); W: WCO nb doubles */
    const int64_t *I = md->I;
    const double *F = md->F;
    const int64_t nb = md->nb, nv = md->nv;
    if (flags & FL_CHECK) {
        if (nonfinite(q, md->nq))
            return 11;
        if (nonfinite(v, nv))
            return 12;
    }
    memset(C, 0, nv * nv * sizeof(double));
    /* world body 0: T_s,0 = identity, V_0 = 0 */
    memset(W, 0, 18 * sizeof(double));
    W[0] = W[4] = W[8] = 1.0;
    /* ---- forward sweep, i = 1..n: poses, screw axes, twists, inertias in world coordinates */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = I + HI + WI * i;
        const double *Fi = F + HF + WF * i;
        double *Wi = W + WCO * i, local[12], d[3];
        const double *Wl = W + WCO * Ii[BI_PARENT];
        int err = joint_pose(Ii, Fi, q, local); /* T_{lambda,i}(q) */
        if (err)
            return err;
        /* T_s,i = T_s,lambda T_lambda,i: R = R_l R_li, p = p_l + R_l p_li */
        double *R = Wi, *p = Wi + CO_P;
        mm(Wl, local, R);
        rmul(Wl, local + 9, d);
        for (int r = 0; r < 3; r++)
            p[r] = Wl[CO_P + r] + d[r];
        /* V_i = V_lambda + sum_a S_a v_a (space twists add along the chain, MR eq. 5.6) */
        double *V = Wi + CO_V;
        memcpy(V, Wl + CO_V, 6 * sizeof(double));
        const int64_t jt = Ii[BI_TYPE], ncol = Ii[BI_NV], va = Ii[BI_VIDX];
        for (int k = 0; k < ncol; k++) {
            /* S_a = [Ad_T_s,i] S^body = [R s_w; p x (R s_w) + R s_u] (MR def. 3.20) */
            double s[6], c[3], *S = Wi + CO_S + 12 * k;
            crba_column(jt, Fi, k, s);
            rmul(R, s, S);
            cross(p, S, c);
            rmul(R, s + 3, S + 3);
            for (int r = 0; r < 3; r++)
                S[3 + r] += c[r];
            /* V_i += S_a v_a, with v_a = mult v[leader] for a mimic joint */
            const double rate = Fi[BF_MULT] * v[va + k];
            for (int r = 0; r < 6; r++)
                V[r] += rate * S[r];
        }
        for (int k = 0; k < ncol; k++) {
            /* dS_a/dt = [ad_V_i] S_a = [w x s_w; w x s_u + v x s_w] (MR def. 8.2) */
            double *S = Wi + CO_S + 12 * k, e[3], f[3], g[3];
            cross(V, S, e);
            cross(V, S + 3, f);
            cross(V + 3, S, g);
            for (int r = 0; r < 3; r++)
                S[6 + r] = e[r], S[9 + r] = f[r] + g[r];
        }
        /* G^s_i = [Ad_T_i,s]^T G_i [Ad_T_i,s] (MR eq. 8.42) as (m, h, I_o):
         * h = R h_b + m p, I_o = R I_b R^T + (2 (R h_b).p + m |p|^2) 1 - (a p^T + p a^T),
         * a = R h_b + m p / 2 (parallel axes, MR eq. 8.26) */
        const double m = Fi[BF_MASS];
        double rh[3], Ir[9], a[3], *h = Wi + CO_H, *Io = Wi + CO_IO;
        rmul(R, Fi + BF_H, rh);
        rot_sandwich(R, Fi + BF_IO, Ir);
        const double sp = 2.0 * (rh[0] * p[0] + rh[1] * p[1] + rh[2] * p[2])
                          + m * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        for (int r = 0; r < 3; r++)
            a[r] = rh[r] + 0.5 * m * p[r];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                Io[3 * r + c] = Ir[3 * r + c]
                                + (r == c ? sp - 2.0 * a[r] * p[r] : -(a[r] * p[c] + p[r] * a[c]));
        for (int r = 0; r < 3; r++)
            h[r] = rh[r] + m * p[r];
        Wi[CO_M] = m;
        /* momentum G V = [I_o w + h x v; m v - h x w] */
        inertia_times(m, h, Io, V, V + 3, Wi + CO_K);
        /* dG/dt = -([ad_V]^T G + G [ad_V]): dh = m v + w x h,
         * dI_o = A + A^T + 2 (v.h) 1 - (h v^T + v h^T), A = [w] I_o */
        double c[3], A[9];
        cross(V, h, c);
        for (int r = 0; r < 3; r++)
            Wi[CO_DH + r] = m * V[3 + r] + c[r];
        skew_left(V, Io, A);
        const double t = 2.0 * (V[3] * h[0] + V[4] * h[1] + V[5] * h[2]);
        for (int r = 0; r < 3; r++)
            for (int cc = 0; cc < 3; cc++)
                Wi[CO_DIO + 3 * r + cc] = A[3 * r + cc] + A[3 * cc + r]
                                          + (r == cc ? t : 0.0)
                                          - (h[r] * V[3 + cc] + V[3 + r] * h[cc]);
    }
    /* ---- backward sweep, i = n..1: composite sums over the subtree (world frame, no
     * transforms): Ic_lambda += Ic_i, dIc_lambda += dIc_i, k_lambda += k_i */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t lam = I[HI + WI * i + BI_PARENT];
        if (lam > 0)
            for (int k = CO_M; k < CO_S; k++)
                W[WCO * lam + k] += W[WCO * i + k];
    }
    /* ---- columns: for each dof c of body i, walk to the root over the dofs a of body j */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = I + HI + WI * i;
        const int64_t ncol = Ii[BI_NV], vi = Ii[BI_VIDX];
        const double *Wi = W + WCO * i, mi = F[HF + WF * i + BF_MULT];
        const double m = Wi[CO_M], *h = Wi + CO_H, *Io = Wi + CO_IO, *D = Wi + CO_DIO;
        /* Bc = 1/2 (dIc/dt + bar(k)) = 1/2 [[dI_o - [k_m], [dh] - [k_f]], [-[dh] - [k_f], 0]] */
        double dh[3], km[3], kf[3];
        for (int r = 0; r < 3; r++) {
            dh[r] = 0.5 * Wi[CO_DH + r];
            km[r] = 0.5 * Wi[CO_K + r];
            kf[r] = 0.5 * Wi[CO_K + 3 + r];
        }
        for (int k = 0; k < ncol; k++) {
            const double *S = Wi + CO_S + 12 * k; /* S_c, then dS_c/dt at S + 6 */
            double g1[6], i1[6], ds[3], a1[3], a2[3], a3[3], a4[3], a5[3], f1[6], g2[6];
            inertia_times(m, h, Io, S, S + 3, g1);     /* G1 = Ic S */
            inertia_times(m, h, Io, S + 6, S + 9, i1); /* Ic S' */
            /* Bc S   = 1/2 [dI_o s_w + dh x s_u - k_m x s_w - k_f x s_u; -dh x s_w - k_f x s_w]
             * Bc^T S = 1/2 [dI_o s_w + dh x s_u + k_m x s_w + k_f x s_u; -dh x s_w + k_f x s_w] */
            for (int r = 0; r < 3; r++)
                ds[r] = 0.5 * (D[3 * r] * S[0] + D[3 * r + 1] * S[1] + D[3 * r + 2] * S[2]);
            cross(dh, S + 3, a1);
            cross(km, S, a2);
            cross(kf, S + 3, a3);
            cross(dh, S, a4);
            cross(kf, S, a5);
            for (int r = 0; r < 3; r++) {
                f1[r] = i1[r] + ds[r] + a1[r] - a2[r] - a3[r]; /* F1 = Ic S' + Bc S */
                f1[3 + r] = i1[3 + r] - a4[r] - a5[r];
                g2[r] = ds[r] + a1[r] + a2[r] + a3[r]; /* G2 = Bc^T S */
                g2[3 + r] = a5[r] - a4[r];
            }
            const int64_t ci = vi + k;
            for (int64_t j = i; j > 0; j = I[HI + WI * j + BI_PARENT]) {
                const int64_t *Ij = I + HI + WI * j;
                const double *Wj = W + WCO * j;
                const int64_t vj = Ij[BI_VIDX];
                const double mm_ = mi * F[HF + WF * j + BF_MULT];
                for (int k2 = 0; k2 < Ij[BI_NV]; k2++) {
                    const double *Sa = Wj + CO_S + 12 * k2;
                    /* C_ac = S_a^T (Ic S'_c + Bc S_c)   (b(a) ancestor of or equal to b(c)) */
                    C[(vj + k2) * nv + ci] += mm_ * dot6(Sa, f1);
                    if (j != i) /* C_ca = (Ic S_c)^T S'_a + (Bc^T S_c)^T S_a (b(a) above) */
                        C[ci * nv + vj + k2] += mm_ * (dot6(g1, Sa + 6) + dot6(g2, Sa));
                }
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- kinematics */
/* The kinematic packing (kernels/_pack.py, pack_kinematics) appends the operational
 * frames: I += [ff0, nf, body of frame 0..nf-1, fi0], F += [R (9), p (3)] per frame from
 * F[ff0]. Workspace: T_s,i as R (9), p (3) per body (WK doubles). */
enum { WK = 12 };
enum { KIND_SPACE = 0, KIND_BODY = 1, KIND_WORLD_ALIGNED = 2 };

typedef struct {
    model_t md;
    int64_t nf, fi0, ff0;
} kin_t;

static int kin_check(const model_t *md, const double *q)
{
    /* 11 if q is not finite, 15 if a free joint's quaternion is zero (on any body) */
    if (nonfinite(q, md->nq))
        return 11;
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = md->I + HI + WI * i;
        if (Ii[BI_TYPE] == J_FREE) {
            const double *e = q + Ii[BI_QIDX] + 3;
            if (e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] == 0.0)
                return 15;
        }
    }
    return 0;
}

static inline int kin_path(const kin_t *k, int64_t frame, int64_t *path)
{
    /* the bodies supporting frame's body, leaf first (world excluded); their number */
    int n = 0;
    for (int64_t b = k->md.I[k->fi0 + 2 + frame]; b > 0; b = k->md.I[HI + WI * b + BI_PARENT])
        path[n++] = b;
    return n;
}

CLONES static void kin_forward(const model_t *md, const double *restrict q, const int64_t *path,
                               int n, double *restrict W)
{
    /* T_s,i = T_s,lambda(i) T_{lambda(i),i}(q) (MR eq. 4.13, one joint at a time) for the
     * bodies of path, root first; the world's pose is the identity */
    static const double eye[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    memcpy(W, eye, sizeof eye);
    for (int j = n - 1; j >= 0; j--) {
        const int64_t i = path[j];
        const int64_t *Ii = md->I + HI + WI * i;
        const double *Wl = W + WK * Ii[BI_PARENT];
        double *Wi = W + WK * i, local[12], d[3];
        if (joint_pose(Ii, md->F + HF + WF * i, q, local))
            return; /* a zero quaternion: kin_check has rejected it before */
        mm(Wl, local, Wi);
        rmul(Wl, local + 9, d);
        for (int r = 0; r < 3; r++)
            Wi[9 + r] = Wl[9 + r] + d[r];
    }
}

static void frame_pose4(const kin_t *k, const double *W, int64_t frame, double *out)
{
    /* out (4 x 4) = T_s,b T_b,f for operational frame f fixed to body b */
    const double *G = k->md.F + k->ff0 + 12 * frame;
    const double *Wb = W + WK * k->md.I[k->fi0 + 2 + frame];
    for (int r = 0; r < 3; r++) {
        const double a0 = Wb[3 * r], a1 = Wb[3 * r + 1], a2 = Wb[3 * r + 2];
        for (int c = 0; c < 3; c++)
            out[4 * r + c] = a0 * G[c] + a1 * G[3 + c] + a2 * G[6 + c];
        out[4 * r + 3] = Wb[9 + r] + a0 * G[9] + a1 * G[10] + a2 * G[11];
    }
    out[12] = out[13] = out[14] = 0.0;
    out[15] = 1.0;
}

CLONES static void space_jacobian(const kin_t *k, const double *restrict W,
                                  const int64_t *path, int n, double *restrict J)
{
    /* J (6 x nv, row-major) = the space screw axes of the joints supporting the frame
     * (MR eq. 5.11), zero elsewhere. Revolute S = [w; p x w], w = R_s,i a; prismatic
     * [0; R_s,i a]; a mimic scales its axis by its multiplier and adds to its leader's
     * column; a free joint's six columns are [Ad_T_s,i] (its velocity is the body twist). */
    const int64_t nv = k->md.nv;
    memset(J, 0, 6 * nv * sizeof(double));
    for (int j = 0; j < n; j++) {
        const int64_t i = path[j];
        const int64_t *Ii = k->md.I + HI + WI * i;
        const double *Fi = k->md.F + HF + WF * i, *R = W + WK * i, *p = R + 9;
        const int64_t jt = Ii[BI_TYPE], va = Ii[BI_VIDX];
        if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
            double w[3], pw[3];
            rmul(R, Fi + BF_AXIS, w);
            for (int r = 0; r < 3; r++)
                w[r] *= Fi[BF_MULT];
            if (jt == J_REVOLUTE) {
                cross(p, w, pw);
                for (int r = 0; r < 3; r++)
                    J[r * nv + va] += w[r], J[(3 + r) * nv + va] += pw[r];
            }
            else
                for (int r = 0; r < 3; r++)
                    J[(3 + r) * nv + va] += w[r];
        }
        else if (jt == J_FREE) {
            for (int c = 0; c < 3; c++) {
                /* angular column c: [R e_c; p x R e_c]; linear column c: [0; R e_c] */
                const double e[3] = {R[c], R[3 + c], R[6 + c]};
                double pe[3];
                cross(p, e, pe);
                for (int r = 0; r < 3; r++) {
                    J[r * nv + va + c] += e[r];
                    J[(3 + r) * nv + va + c] += pe[r];
                    J[(3 + r) * nv + va + 3 + c] += e[r];
                }
            }
        }
    }
}

static void change_kind(const double *T, int kind, int64_t nv, double *J)
{
    /* re-express the space columns of J for the frame pose T: body J_b = [Ad_{T^-1}] J_s
     * (MR eq. 5.22); world aligned: angular rows kept, linear rows v + w x p */
    if (kind == KIND_SPACE)
        return;
    const double px = T[3], py = T[7], pz = T[11];
    for (int64_t c = 0; c < nv; c++) {
        const double wx = J[c], wy = J[nv + c], wz = J[2 * nv + c];
        const double vx = J[3 * nv + c] + wy * pz - wz * py;
        const double vy = J[4 * nv + c] + wz * px - wx * pz;
        const double vz = J[5 * nv + c] + wx * py - wy * px;
        if (kind == KIND_BODY)
            for (int r = 0; r < 3; r++) {
                J[r * nv + c] = T[r] * wx + T[4 + r] * wy + T[8 + r] * wz;
                J[(3 + r) * nv + c] = T[r] * vx + T[4 + r] * vy + T[8 + r] * vz;
            }
        else {
            J[3 * nv + c] = vx;
            J[4 * nv + c] = vy;
            J[5 * nv + c] = vz;
        }
    }
}

/* ---------------------------------------------------------------- Python glue */
static int get_model(PyObject *P, model_t *md)
{
    /* the packed model P (int64 vector: I, then the bytes of F); -1 with an exception */
    if (!PyArray_Check(P) || PyArray_TYPE((PyArrayObject *)P) != NPY_INT64
        || PyArray_NDIM((PyArrayObject *)P) != 1 || !PyArray_ISCARRAY_RO((PyArrayObject *)P)) {
        PyErr_SetString(PyExc_TypeError, "P must be a packed model (Packed.P)");
        return -1;
    }
    const int64_t *I = (const int64_t *)PyArray_DATA((PyArrayObject *)P);
    npy_intp n = PyArray_DIM((PyArrayObject *)P, 0);
    if (n < HI || I[0] < 1 || I[1] < 0 || I[2] < 0
        || n != HI + WI * I[0] + HF + WF * I[0] + 3 * I[2]) {
        PyErr_SetString(PyExc_ValueError, "P is not a packed model (its sizes do not add up)");
        return -1;
    }
    md->I = I;
    md->F = (const double *)(I + HI + WI * I[0]);
    md->nb = I[0], md->nq = I[1], md->nv = I[2];
    return 0;
}

static int vec(PyObject *o, npy_intp n, int code, const double **out)
{
    /* 0 and *out = data if o is a C-contiguous native float64 vector of size n; -1 if o
     * is not such a vector (any size); code if its size is not n. */
    if (!PyArray_Check(o))
        return -1;
    PyArrayObject *x = (PyArrayObject *)o;
    if (PyArray_TYPE(x) != NPY_DOUBLE || PyArray_NDIM(x) != 1 || !PyArray_ISCARRAY_RO(x))
        return -1;
    if (PyArray_DIM(x, 0) != n)
        return code;
    *out = (const double *)PyArray_DATA(x);
    return 0;
}

static int wrenches(PyObject *o, npy_intp nb, const double **out)
{
    /* fext: a C-contiguous native float64 (nb, 6) array; -1 if not such an array, 4 if
     * its shape is wrong */
    if (!PyArray_Check(o))
        return -1;
    PyArrayObject *x = (PyArrayObject *)o;
    if (PyArray_TYPE(x) != NPY_DOUBLE || PyArray_NDIM(x) != 2 || !PyArray_ISCARRAY_RO(x))
        return -1;
    if (PyArray_DIM(x, 0) != nb || PyArray_DIM(x, 1) != 6)
        return 4;
    *out = (const double *)PyArray_DATA(x);
    return 0;
}

static PyObject *result(PyObject *out, int err)
{
    /* the output array, or (dropping it) the error code */
    if (err == 0)
        return out;
    Py_DECREF(out);
    return PyLong_FromLong(err);
}

/* the state arguments of rnea / aba and their workspace; returns 0, an error code, or -2
 * with a Python exception set */
typedef struct {
    model_t md;
    const double *x[3]; /* q, then v and a (rnea) or v and tau (aba); NULL when unused */
    const double *fext;
    long flags;
    double eps;
} call_t;

static int parse_state(PyObject *const *args, Py_ssize_t nargs, const char *name, int is_rnea,
                       call_t *c)
{
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "%s takes 7 arguments (%zd given)", name, nargs);
        return -2;
    }
    if (get_model(args[0], &c->md))
        return -2;
    c->flags = PyLong_AsLong(args[5]);
    c->eps = PyFloat_AsDouble(args[6]);
    if (PyErr_Occurred())
        return -2;
    const npy_intp n[3] = {c->md.nq, c->md.nv, c->md.nv};
    /* rnea reads v, a only when their flag is set; aba always reads v and tau */
    const int need[3] = {1, !is_rnea || (c->flags & FL_VEL), !is_rnea || (c->flags & FL_ACC)};
    for (int k = 0; k < 3; k++) {
        c->x[k] = NULL;
        if (!need[k])
            continue;
        int e = vec(args[1 + k], n[k], k + 1, &c->x[k]);
        if (e)
            return e;
    }
    c->fext = NULL;
    if (c->flags & FL_FEXT) {
        int e = wrenches(args[4], c->md.nb, &c->fext);
        if (e)
            return e;
    }
    return 0;
}

typedef int (*state_core_t)(const model_t *, const double *, const double *, const double *,
                            const double *, long, double, double *, double *);

static PyObject *run_state(call_t *c, state_core_t core, int64_t width)
{
    /* allocate the output (nv,) and a workspace of width doubles a body (+ SCRATCH), run
     * core with the GIL released for big models; the output or the error code */
    npy_intp dims[1] = {c->md.nv};
    PyObject *out = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (out == NULL)
        return NULL;
    double stackW[WA * STACK_BODIES + SCRATCH], *W = stackW; /* ABA's is the widest */
    if (c->md.nb > STACK_BODIES
        && !(W = PyMem_RawMalloc((width * c->md.nb + SCRATCH) * sizeof(double)))) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    double *res = (double *)PyArray_DATA((PyArrayObject *)out);
    int err;
    if (c->md.nb >= NOGIL_BODIES) {
        Py_BEGIN_ALLOW_THREADS
        err = core(&c->md, c->x[0], c->x[1], c->x[2], c->fext, c->flags, c->eps, res, W);
        Py_END_ALLOW_THREADS
    }
    else
        err = core(&c->md, c->x[0], c->x[1], c->x[2], c->fext, c->flags, c->eps, res, W);
    if (W != stackW)
        PyMem_RawFree(W);
    return result(out, err);
}

static PyObject *py_rnea(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    call_t c;
    int err = parse_state(args, nargs, "rnea", 1, &c);
    if (err)
        return err == -2 ? NULL : PyLong_FromLong(err);
    return run_state(&c, rnea_core, WW);
}

static PyObject *py_aba(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    call_t c;
    int err = parse_state(args, nargs, "aba", 0, &c);
    if (err)
        return err == -2 ? NULL : PyLong_FromLong(err);
    return run_state(&c, aba_core, WA);
}

static PyObject *py_crba(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    model_t md;
    const double *q = NULL;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "crba takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    if (get_model(args[0], &md))
        return NULL;
    long flags = PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred())
        return NULL;
    int err = vec(args[1], md.nq, 1, &q);
    if (err)
        return PyLong_FromLong(err);
    npy_intp dims[2] = {md.nv, md.nv};
    PyObject *out = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (out == NULL)
        return NULL;
    double *M = (double *)PyArray_DATA((PyArrayObject *)out);
    double stackW[WC * STACK_BODIES], *W = stackW;
    if (md.nb > STACK_BODIES && !(W = PyMem_RawMalloc(WC * md.nb * sizeof(double)))) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    if (md.nb >= NOGIL_BODIES) {
        Py_BEGIN_ALLOW_THREADS
        err = crba_core(&md, q, flags, M, W);
        Py_END_ALLOW_THREADS
    }
    else
        err = crba_core(&md, q, flags, M, W);
    if (W != stackW)
        PyMem_RawFree(W);
    return result(out, err);
}

static PyObject *py_coriolis(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    model_t md;
    const double *q = NULL, *v = NULL;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "coriolis takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    if (get_model(args[0], &md))
        return NULL;
    long flags = PyLong_AsLong(args[3]);
    if (flags == -1 && PyErr_Occurred())
        return NULL;
    int err = vec(args[1], md.nq, 1, &q);
    if (err == 0)
        err = vec(args[2], md.nv, 2, &v);
    if (err)
        return PyLong_FromLong(err);
    npy_intp dims[2] = {md.nv, md.nv};
    PyObject *out = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (out == NULL)
        return NULL;
    double *Cm = (double *)PyArray_DATA((PyArrayObject *)out);
    double stackW[WCO * 16], *W = stackW;
    if (md.nb > 16 && !(W = PyMem_RawMalloc(WCO * md.nb * sizeof(double)))) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    if (md.nb >= NOGIL_BODIES) {
        Py_BEGIN_ALLOW_THREADS
        err = coriolis_core(&md, q, v, flags, Cm, W);
        Py_END_ALLOW_THREADS
    }
    else
        err = coriolis_core(&md, q, v, flags, Cm, W);
    if (W != stackW)
        PyMem_RawFree(W);
    return result(out, err);
}

static int get_kin(PyObject *I, PyObject *F, kin_t *k)
{
    /* the kinematic packing (I int64, F float64); -1 with an exception */
    PyArrayObject *a = (PyArrayObject *)I, *b = (PyArrayObject *)F;
    if (!PyArray_Check(I) || PyArray_TYPE(a) != NPY_INT64 || PyArray_NDIM(a) != 1
        || !PyArray_ISCARRAY_RO(a) || !PyArray_Check(F) || PyArray_TYPE(b) != NPY_DOUBLE
        || PyArray_NDIM(b) != 1 || !PyArray_ISCARRAY_RO(b)) {
        PyErr_SetString(PyExc_TypeError, "I, F must be a kinematic packing (pack_kinematics)");
        return -1;
    }
    const int64_t *Id = (const int64_t *)PyArray_DATA(a);
    const npy_intp ni = PyArray_DIM(a, 0), nf_ = PyArray_DIM(b, 0);
    if (ni < HI + 3 || Id[0] < 1) {
        PyErr_SetString(PyExc_ValueError, "I is not a kinematic packing");
        return -1;
    }
    const int64_t nb = Id[0], nv = Id[2], fi0 = Id[ni - 1];
    if (fi0 != HI + WI * nb || ni != fi0 + Id[fi0 + 1] + 3 || Id[fi0] != HF + WF * nb + 3 * nv
        || nf_ != Id[fi0] + 12 * Id[fi0 + 1]) {
        PyErr_SetString(PyExc_ValueError, "I, F are not a kinematic packing (sizes differ)");
        return -1;
    }
    k->md.I = Id;
    k->md.F = (const double *)PyArray_DATA(b);
    k->md.nb = nb, k->md.nq = Id[1], k->md.nv = nv;
    k->fi0 = fi0, k->ff0 = Id[fi0], k->nf = Id[fi0 + 1];
    return 0;
}

static int get_frame(PyObject *o, const kin_t *k, int64_t *frame)
{
    long f = PyLong_AsLong(o);
    if (f == -1 && PyErr_Occurred())
        return -1;
    if (f < 0 || f >= k->nf) {
        PyErr_Format(PyExc_IndexError, "frame index %ld out of range (%ld frames)", f,
                     (long)k->nf);
        return -1;
    }
    *frame = f;
    return 0;
}

/* the arguments and workspace of the kinematics entry points */
typedef struct {
    kin_t k;
    const double *q;
    double *W, stackW[WK * STACK_BODIES];
    int64_t *path, stack_path[STACK_BODIES];
} kin_call_t;

static int kin_begin(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want,
                     const char *name, kin_call_t *c)
{
    /* check (I, F, q, ...) and set up the workspace: 0, an error code for q (nothing to
     * free), or -2 with a Python exception */
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", name, want, nargs);
        return -2;
    }
    if (get_kin(args[0], args[1], &c->k))
        return -2;
    int err = vec(args[2], c->k.md.nq, 1, &c->q);
    if (err == 0)
        err = kin_check(&c->k.md, c->q);
    if (err)
        return err;
    c->W = c->stackW;
    c->path = c->stack_path;
    if (c->k.md.nb > STACK_BODIES) {
        c->W = PyMem_RawMalloc(WK * c->k.md.nb * sizeof(double));
        c->path = PyMem_RawMalloc(c->k.md.nb * sizeof(int64_t));
        if (!c->W || !c->path) {
            PyMem_RawFree(c->W);
            PyMem_RawFree(c->path);
            PyErr_NoMemory();
            return -2;
        }
    }
    return 0;
}

static PyObject *kin_end(kin_call_t *c, PyObject *out)
{
    if (c->W != c->stackW) {
        PyMem_RawFree(c->W);
        PyMem_RawFree(c->path);
    }
    return out;
}

static PyObject *py_frame_pose(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    kin_call_t c;
    int64_t frame;
    int err = kin_begin(args, nargs, 4, "frame_pose", &c);
    if (err)
        return err == -2 ? NULL : PyLong_FromLong(err);
    npy_intp dims[2] = {4, 4};
    PyObject *out = NULL;
    if (get_frame(args[3], &c.k, &frame) == 0 && (out = PyArray_SimpleNew(2, dims, NPY_DOUBLE))) {
        kin_forward(&c.k.md, c.q, c.path, kin_path(&c.k, frame, c.path), c.W);
        frame_pose4(&c.k, c.W, frame, (double *)PyArray_DATA((PyArrayObject *)out));
    }
    return kin_end(&c, out);
}

static PyObject *py_frame_poses(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* every frame: the poses of every body, then each frame's */
    kin_call_t c;
    int err = kin_begin(args, nargs, 3, "frame_poses", &c);
    if (err)
        return err == -2 ? NULL : PyLong_FromLong(err);
    npy_intp dims[3] = {c.k.nf, 4, 4};
    PyObject *out = PyArray_SimpleNew(3, dims, NPY_DOUBLE);
    if (out) {
        const int64_t nb = c.k.md.nb;
        for (int64_t i = 1; i < nb; i++) /* all bodies, leaf first: nb - 1 .. 1 */
            c.path[nb - 1 - i] = i;
        kin_forward(&c.k.md, c.q, c.path, (int)(nb - 1), c.W);
        double *T = (double *)PyArray_DATA((PyArrayObject *)out);
        for (int64_t f = 0; f < c.k.nf; f++)
            frame_pose4(&c.k, c.W, f, T + 16 * f);
    }
    return kin_end(&c, out);
}

static PyObject *py_jacobian(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    kin_call_t c;
    int64_t frame;
    double T[16];
    int err = kin_begin(args, nargs, 5, "jacobian", &c);
    if (err)
        return err == -2 ? NULL : PyLong_FromLong(err);
    PyObject *out = NULL;
    long kind = PyLong_AsLong(args[4]);
    if (get_frame(args[3], &c.k, &frame) || (kind == -1 && PyErr_Occurred()))
        return kin_end(&c, NULL);
    if (kind < KIND_SPACE || kind > KIND_WORLD_ALIGNED) {
        PyErr_Format(PyExc_ValueError, "kind must be 0, 1 or 2, got %ld", kind);
        return kin_end(&c, NULL);
    }
    npy_intp dims[2] = {6, c.k.md.nv};
    if ((out = PyArray_SimpleNew(2, dims, NPY_DOUBLE))) {
        double *J = (double *)PyArray_DATA((PyArrayObject *)out);
        int n = kin_path(&c.k, frame, c.path);
        kin_forward(&c.k.md, c.q, c.path, n, c.W);
        frame_pose4(&c.k, c.W, frame, T);
        space_jacobian(&c.k, c.W, c.path, n, J);
        change_kind(T, (int)kind, c.k.md.nv, J);
    }
    return kin_end(&c, out);
}

typedef struct {
    const char *name;
    long value;
} named_t;

#define NAMED(x) {#x, x}
static const named_t LAYOUT[] = {
    NAMED(HI), NAMED(WI), NAMED(HF), NAMED(WF), NAMED(BI_PARENT), NAMED(BI_END),
    NAMED(BI_TYPE), NAMED(BI_QIDX), NAMED(BI_VIDX), NAMED(BI_NV), NAMED(BF_MASS), NAMED(BF_H),
    NAMED(BF_IO), NAMED(BF_AXIS), NAMED(BF_R0), NAMED(BF_P0), NAMED(BF_MULT), NAMED(BF_OFF),
    NAMED(BF_A1), NAMED(BF_A2), NAMED(BF_RA), NAMED(J_FIXED), NAMED(J_REVOLUTE),
    NAMED(J_PRISMATIC), NAMED(J_FREE), NAMED(FL_FRICTION), NAMED(FL_ARMATURE), NAMED(FL_CHECK),
    NAMED(FL_GRAVITY), NAMED(FL_VEL), NAMED(FL_ACC), NAMED(FL_FEXT), NAMED(KIND_SPACE),
    NAMED(KIND_BODY), NAMED(KIND_WORLD_ALIGNED), {NULL, 0},
};

static PyMethodDef methods[] = {
    {"rnea", (PyCFunction)(void (*)(void))py_rnea, METH_FASTCALL,
     "rnea(P, q, v, a, fext, flags, eps) -> tau or an int error code"},
    {"aba", (PyCFunction)(void (*)(void))py_aba, METH_FASTCALL,
     "aba(P, q, v, tau, fext, flags, eps) -> qdd or an int error code"},
    {"crba", (PyCFunction)(void (*)(void))py_crba, METH_FASTCALL,
     "crba(P, q, flags) -> M or an int error code"},
    {"coriolis", (PyCFunction)(void (*)(void))py_coriolis, METH_FASTCALL,
     "coriolis(P, q, v, flags) -> C (nv, nv) or an int error code"},
    {"frame_pose", (PyCFunction)(void (*)(void))py_frame_pose, METH_FASTCALL,
     "frame_pose(I, F, q, frame) -> T (4, 4) or an int error code"},
    {"frame_poses", (PyCFunction)(void (*)(void))py_frame_poses, METH_FASTCALL,
     "frame_poses(I, F, q) -> T (nf, 4, 4) or an int error code"},
    {"jacobian", (PyCFunction)(void (*)(void))py_jacobian, METH_FASTCALL,
     "jacobian(I, F, q, frame, kind) -> J (6, nv) or an int error code"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native",
    "Single-state RNEA, CRBA, ABA, Coriolis matrix, poses and Jacobians in C (native.c).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
    import_array();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* the layout this file was compiled with, compared with kernels/_pack.py at import */
    PyObject *layout = PyDict_New();
    if (layout == NULL || PyModule_AddObject(m, "LAYOUT", layout) < 0) {
        Py_XDECREF(layout);
        Py_DECREF(m);
        return NULL;
    }
    for (const named_t *c = LAYOUT; c->name; c++) {
        PyObject *v = PyLong_FromLong(c->value);
        if (v == NULL || PyDict_SetItemString(layout, c->name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(m);
            return NULL;
        }
        Py_DECREF(v);
    }
    return m;
}
