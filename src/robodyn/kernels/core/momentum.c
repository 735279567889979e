/*
 * Energy and momentum of the whole robot, from one forward pass over the bodies (MR
 * sections 8.2-8.3, course notes 001 eq. 10.13; Orin, Briggs and Goswami, "Centroidal
 * dynamics of a humanoid robot", Auton. Robots 2013):
 *
 *   kinetic        K   = 1/2 sum_i V_i^T G_i V_i  (+ 1/2 sum_k armature_k qd_k^2); kind 1: K + U
 *   potential      U   = -sum_i m_i g^T c_i     (c_i: body i's CoM in the world)
 *   energy_regressor  K + U = e(q, v) . pi, linear in the bodies' inertial parameters
 *   momentum       h_o = sum_i Ad_{T_s,i}^-T (G_i V_i) = [L_o; p]     (world origin, axes)
 *                  h_G = [L_o - c x p; p]                             (about the CoM c)
 *                  com_vel: dc/dt = p / m
 *   momentum_rate  dh_o/dt = sum_i Ad_{T_s,i}^-T (G_i dV_i - ad_{V_i}^T G_i V_i)
 *                  dh_G/dt = [dL_o/dt - c x dp/dt; dp/dt]   (dc/dt x p = 0: p = m dc/dt)
 *                  with qdd = 0 this is dA_G/dt qd; com_acc: d2c/dt2 = (dp/dt) / m
 *   ccrba          A_o = [Ic_1 S_1 ... ]: column k of A is the composite inertia of the
 *                  subtree its joint moves times the joint's space screw axis (world
 *                  coordinates), so h_o = A_o qd; A_G = [1, -[c]; 0, 1] A_o (h_G = A_G qd)
 *
 * V_i, dV_i are the body twist and acceleration of body i (MR eqs. 8.50-8.51, gravity
 * left out), G_i its spatial inertia (m, h = m c_i, I_o about its frame's origin). The
 * body's momentum G_i V_i and its rate (the net body wrench of MR eq. 8.53's own part) are
 * moved to the world as wrenches: Ad_T^-T [m; f] = [R m + p x (R f); R f] (T = T_s,i).
 * a->kind picks the point: 0 the world origin, 1 the centre of mass. Rows are [angular;
 * linear] (robodyn's [m; f] order); Pinocchio's computeCentroidalMap, computeCentroidalMomentum
 * and computeCentroidalMomentumTimeVariation are the same quantities with the rows swapped.
 */
#include "joint.h"

/* GCC 12's SLP vectoriser fuses the quaternion's x y -+ w z pairs of joint_pose into
 * vfmaddsub in this file's one-state code although contraction is off (-std=c11), so one
 * state would round otherwise than the same state in a batch (tests/test_batch_rule.py);
 * the batch's lane loops are vectorised across states and do not need SLP */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

/* workspace of body i, fields of L lanes: R, p of T_s,i (0:12); w, v, dw, dv (12:24); a
 * spatial inertia in world coordinates (m 24, h 25:28, I_o 28:37) */
enum { WM = 37, M_R = 0, M_P = 9, M_V = 12, M_M = 24, M_H = 25, M_I = 28 };
/* what the forward pass computes besides T_{lambda,i}: the world poses, the twists, the
 * accelerations */
enum { PASS_WORLD = 1, PASS_TWIST = 2, PASS_ACC = 4 };

int64_t rd_momentum_work(const model_t *md) { return WM * md->nb; }

RD_INLINE void forward_pass(const model_t *md, int L, const double *q, const double *v,
                            const double *qdd, int what, double *W)
{
    /* world pose T_s,i = T_s,lambda T_{lambda,i}(q) (MR eq. 4.13) and V_i, dV_i (MR eqs.
     * 8.50-8.51 with dV_0 = 0), root to leaves */
    for (int k = 0; k < M_M * L; k++)
        W[k] = 0.0;
    LANE { W[(M_R + 0) * L + l] = W[(M_R + 4) * L + l] = W[(M_R + 8) * L + l] = 1.0; }
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + WM * i * L;
        const double *Wl = W + WM * Ii[BI_PARENT] * L;
        double R[9 * LANES], p[3 * LANES];
        joint_pose(L, Ii, Fi, q, R, p); /* T_{lambda,i} */
        if (what & PASS_TWIST)
            body_motion(L, Ii, Fi, q, v, qdd, R, p, Wl + M_V * L, Wi + M_V * L,
                        (what & PASS_ACC) != 0);
        if (what & PASS_WORLD)
            compose_l(L, Wl + M_R * L, Wl + M_P * L, R, p, Wi + M_R * L, Wi + M_P * L);
    }
}

RD_INLINE void to_world_add(int L, const double *Wi, const double *km, const double *kf,
                            double *h)
{
    /* h (6, laned) += Ad_{T_s,i}^-T [km; kf] = [R km + p x (R kf); R kf] (MR eq. 3.83) */
    double gm[3 * LANES], gf[3 * LANES];
    wrench_to_parent(L, Wi + M_R * L, Wi + M_P * L, km, kf, gm, gf);
    for (int k = 0; k < 3 * L; k++)
        h[k] += gm[k], h[3 * L + k] += gf[k];
}

RD_INLINE double total_mass(const model_t *md)
{
    double m = 0.0;
    for (int64_t i = 1; i < md->nb; i++)
        m += body_f(md, i)[BF_MASS];
    return m;
}

RD_INLINE void com_moment_add(const model_t *md, int L, const double *W, int64_t i, double *mc)
{
    /* mc (3, laned) += m_i c_i^s = R_i h_i + m_i p_i (the body's CoM in the world, weighted) */
    const double *Fi = body_f(md, i), *Wi = W + WM * i * L;
    double rh[3 * LANES];
    rmul_lc(L, Wi + M_R * L, Fi + BF_H, rh);
    for (int k = 0; k < 3 * L; k++)
        mc[k] += rh[k] + Fi[BF_MASS] * Wi[M_P * L + k];
}

RD_INLINE void about_com(int L, const double *mc, double mt, double *h, int64_t stride)
{
    /* the moment rows of h (6 rows stride apart, laned) moved from the world origin to the
     * centre of mass c = mc / mt: n_G = n_o - c x f */
    LANE {
        const double cx = mc[l] / mt, cy = mc[L + l] / mt, cz = mc[2 * L + l] / mt;
        const double fx = h[3 * stride + l], fy = h[4 * stride + l], fz = h[5 * stride + l];
        h[l] -= cy * fz - cz * fy;
        h[stride + l] -= cz * fx - cx * fz;
        h[2 * stride + l] -= cx * fy - cy * fx;
    }
}

/* ---------------------------------------------------------------- energy */
RD_INLINE void potential_add(const model_t *md, int L, const double *W, double *U)
{
    /* U += -sum_i m_i g^T c_i^s = -g^T sum_i (R_i h_i + m_i p_i) (c_i^s: body i's CoM in the
     * world; zero for a model without mass) */
    const double *g = md->F; /* the model's gravity, F[0:3] */
    double mc[3 * LANES];
    for (int k = 0; k < 3 * L; k++)
        mc[k] = 0.0;
    for (int64_t i = 1; i < md->nb; i++)
        com_moment_add(md, L, W, i, mc);
    LANE { U[l] -= g[0] * mc[l] + g[1] * mc[L + l] + g[2] * mc[2 * L + l]; }
}

RD_INLINE int potential_lanes(const model_t *md, const int L, const args_t *a, double *U, double *W)
{
    forward_pass(md, L, a->x[0], NULL, NULL, PASS_WORLD, W);
    for (int l = 0; l < L; l++)
        U[l] = 0.0;
    potential_add(md, L, W, U);
    return 0;
}

RD_INLINE int kinetic_lanes(const model_t *md, const int L, const args_t *a, double *K, double *W)
{
    /* K = 1/2 sum_i V_i^T G_i V_i (+ armature), from the body twists (kind 0); kind 1: the
     * mechanical energy K + U */
    const double *v = a->x[1];
    forward_pass(md, L, a->x[0], v, NULL, PASS_TWIST | (a->kind == 1 ? PASS_WORLD : 0), W);
    for (int l = 0; l < L; l++)
        K[l] = 0.0;
    for (int64_t i = 1; i < md->nb; i++) {
        const double *Fi = body_f(md, i), *Vi = W + (WM * i + M_V) * L;
        double km[3 * LANES], kf[3 * LANES];
        inertia_times_c(L, Fi[BF_MASS], Fi + BF_H, Fi + BF_IO, Vi, Vi + 3 * L, km, kf); /* G V */
        LANE {
            double e = 0.0;
            for (int r = 0; r < 3; r++)
                e += Vi[r * L + l] * km[r * L + l] + Vi[(3 + r) * L + l] * kf[r * L + l];
            K[l] += 0.5 * e;
        }
    }
    if (a->flags & FL_ARMATURE) {
        const double *arm = dof_params(md) + 2 * md->nv;
        for (int64_t k = 0; k < md->nv; k++)
            LANE { K[l] += 0.5 * arm[k] * v[k * L + l] * v[k * L + l]; }
    }
    if (a->kind == 1)
        potential_add(md, L, W, K);
    return 0;
}

RD_INLINE int energy_regressor_lanes(const model_t *md, const int L, const args_t *a, double *e,
                                     double *W)
{
    /* e (10 (nb - 1)): the total energy K + U = e . pi, linear in each body's ten
     * parameters pi_i = (m, h = m c, I_o: xx xy xz yy yz zz) (MR eq. 8.43 and U):
     *   K_i = 1/2 w^T I_o w + h . (u x w) + 1/2 m u . u,  U_i = -g . (m p_i + R_i h)
     * with V_i = [w; u] the body twist and (R_i, p_i) = T_s,i */
    const double *g = md->F;
    forward_pass(md, L, a->x[0], a->x[1], NULL, PASS_WORLD | PASS_TWIST, W);
    for (int64_t i = 1; i < md->nb; i++) {
        const double *Wi = W + WM * i * L, *R = Wi + M_R * L, *p = Wi + M_P * L;
        const double *w = Wi + M_V * L, *u = w + 3 * L;
        double *ei = e + 10 * (i - 1) * L, uw[3 * LANES];
        cross_l(L, u, w, uw);
        LANE {
            const double w0 = w[l], w1 = w[L + l], w2 = w[2 * L + l];
            const double uu = u[l] * u[l] + u[L + l] * u[L + l] + u[2 * L + l] * u[2 * L + l];
            ei[l] = 0.5 * uu - (p[l] * g[0] + p[L + l] * g[1] + p[2 * L + l] * g[2]);
            for (int r = 0; r < 3; r++) /* u x w - R^T g */
                ei[(1 + r) * L + l] = uw[r * L + l]
                                      - (R[r * L + l] * g[0] + R[(3 + r) * L + l] * g[1]
                                         + R[(6 + r) * L + l] * g[2]);
            ei[4 * L + l] = 0.5 * w0 * w0;
            ei[5 * L + l] = w0 * w1;
            ei[6 * L + l] = w0 * w2;
            ei[7 * L + l] = 0.5 * w1 * w1;
            ei[8 * L + l] = w1 * w2;
            ei[9 * L + l] = 0.5 * w2 * w2;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- momentum */
RD_INLINE int momentum_sum(const model_t *md, const int L, const args_t *a, double *out,
                           double *W, int rate)
{
    /* the bodies' momenta G_i V_i (rate: their rates, the net body wrenches F_i = G_i dV_i
     * - ad_{V_i}^T G_i V_i of MR eq. 8.53's own part, no gravity) moved to the world and
     * summed, h = sum_i Ad_{T_s,i}^-T (...): about the world origin (kind 0) or the CoM
     * (kind 1); kind 2: the linear part over the total mass, p / m = dc/dt (rate: d2c/dt2) */
    const double *qdd = rate && (a->flags & FL_ACC) ? a->x[2] : NULL;
    forward_pass(md, L, a->x[0], a->x[1], qdd, PASS_WORLD | PASS_TWIST | (rate ? PASS_ACC : 0), W);
    double mc[3 * LANES], hd[6 * LANES], *h = a->kind == 2 ? hd : out;
    for (int k = 0; k < 6 * L; k++)
        h[k] = 0.0;
    for (int k = 0; k < 3 * L; k++)
        mc[k] = 0.0;
    for (int64_t i = 1; i < md->nb; i++) {
        const double *Fi = body_f(md, i), *Wi = W + WM * i * L, *Vi = Wi + M_V * L;
        double km[3 * LANES], kf[3 * LANES];
        if (rate)
            body_wrench(L, Fi, Vi, Vi + 3 * L, Vi + 6 * L, Vi + 9 * L, km, kf);
        else
            inertia_times_c(L, Fi[BF_MASS], Fi + BF_H, Fi + BF_IO, Vi, Vi + 3 * L, km, kf);
        to_world_add(L, Wi, km, kf, h);
        if (a->kind == 1)
            com_moment_add(md, L, W, i, mc);
    }
    const double mt = total_mass(md);
    if (a->kind == 1)
        about_com(L, mc, mt, h, L);
    else if (a->kind == 2)
        for (int k = 0; k < 3 * L; k++)
            out[k] = hd[3 * L + k] / mt;
    return 0;
}

RD_INLINE int momentum_lanes(const model_t *md, const int L, const args_t *a, double *out,
                             double *W)
{
    return momentum_sum(md, L, a, out, W, 0); /* h, or dc/dt */
}

RD_INLINE int momentum_rate_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                  double *W)
{
    return momentum_sum(md, L, a, out, W, 1); /* dh/dt (qdd = 0: dA/dt qd), or d2c/dt2 */
}

/* ---------------------------------------------------------------- CCRBA */
RD_INLINE void world_inertia(const model_t *md, int L, int64_t i, double *Wi)
{
    /* the spatial inertia of body i in world coordinates, into its fields M_M..: with
     * (R, p) = T_s,i and g = R h: m; h_s = g + m p; I_s = R I_o R^T + 2 (g . p) 1 - p g^T
     * - g p^T + m (|p|^2 1 - p p^T) (the parallel-axis rule for a frame moved by p) */
    const double *Fi = body_f(md, i), m = Fi[BF_MASS], *Io = Fi + BF_IO;
    const double *R = Wi + M_R * L, *p = Wi + M_P * L;
    double *hs = Wi + M_H * L, *Is = Wi + M_I * L, g[3 * LANES], RI[9 * LANES];
    rmul_lc(L, R, Fi + BF_H, g);
    for (int r = 0; r < 3; r++) /* R I_o */
        for (int c = 0; c < 3; c++)
            LANE {
                RI[(3 * r + c) * L + l] = R[3 * r * L + l] * Io[c] + R[(3 * r + 1) * L + l] * Io[3 + c]
                                          + R[(3 * r + 2) * L + l] * Io[6 + c];
            }
    LANE {
        Wi[M_M * L + l] = m;
        double gp = 0.0, pp = 0.0;
        for (int r = 0; r < 3; r++) {
            gp += g[r * L + l] * p[r * L + l];
            pp += p[r * L + l] * p[r * L + l];
            hs[r * L + l] = g[r * L + l] + m * p[r * L + l];
        }
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double x = RI[3 * r * L + l] * R[3 * c * L + l] + RI[(3 * r + 1) * L + l] * R[(3 * c + 1) * L + l]
                           + RI[(3 * r + 2) * L + l] * R[(3 * c + 2) * L + l]; /* (R I_o R^T)_rc */
                x -= p[r * L + l] * g[c * L + l] + g[r * L + l] * p[c * L + l] + m * p[r * L + l] * p[c * L + l];
                if (r == c)
                    x += 2.0 * gp + m * pp;
                Is[(3 * r + c) * L + l] = x;
            }
    }
}

RD_INLINE int ccrba_lanes(const model_t *md, const int L, const args_t *a, double *A, double *W)
{
    /* A (6, nv): the momentum matrix about the world origin (kind 0) or the centroidal
     * momentum matrix A_G (kind 1), world axes */
    const int64_t nb = md->nb, nv = md->nv;
    forward_pass(md, L, a->x[0], NULL, NULL, PASS_WORLD, W);
    for (int64_t i = 1; i < nb; i++)
        world_inertia(md, L, i, W + WM * i * L);
    /* composite inertias, leaves to root: Ic_lambda += Ic_i (world coordinates add);
     * the root's children add into the world body 0, whose Ic is then the whole robot's */
    for (int k = M_M * L; k < WM * L; k++)
        W[k] = 0.0;
    for (int64_t i = nb - 1; i > 0; i--) {
        const double *Ci = W + (WM * i + M_M) * L;
        double *Cl = W + (WM * body_i(md, i)[BI_PARENT] + M_M) * L;
        for (int k = 0; k < (WM - M_M) * L; k++)
            Cl[k] += Ci[k];
    }
    /* column of dof k of joint i: Ic_i S_k, S_k its space screw axis (a mimic joint's,
     * scaled by its multiplier, adds to its leader's column) */
    for (int64_t k = 0; k < 6 * nv * L; k++)
        A[k] = 0.0;
    double col[36 * LANES], f[6 * LANES];
    for (int64_t i = 1; i < nb; i++) {
        const double *Wi = W + WM * i * L, *C = Wi + M_M * L;
        const int64_t va = body_i(md, i)[BI_VIDX];
        const int n = joint_columns(md, L, Wi + M_R * L, Wi + M_P * L, a->x[0], i, col);
        for (int c = 0; c < n; c++) {
            inertia_times_l(L, C, C + L, C + 4 * L, col + 6 * c * L, col + (6 * c + 3) * L, f);
            for (int r = 0; r < 6; r++)
                LANE { A[(r * nv + va + c) * L + l] += f[r * L + l]; }
        }
    }
    if (a->kind == 1) /* A_G = [1, -[c]; 0, 1] A_o with c = h_s / m of the whole robot */
        for (int64_t c = 0; c < nv; c++)
            about_com(L, W + M_H * L, W[M_M * L], A + c * L, nv * L);
    return 0;
}

/* ---------------------------------------------------------------- entry points */
#define MOMENTUM_ENTRY(name)                                                                   \
    CLONES int rd_##name(const model_t *md, int L, const args_t *a, double *RESTRICT out,       \
                         double *RESTRICT W, int *lane)                                        \
    {                                                                                          \
        *lane = 0;                                                                             \
        return L == 1 ? name##_lanes(md, 1, a, out, W) : name##_lanes(md, LANES, a, out, W);   \
    }
MOMENTUM_ENTRY(kinetic)
MOMENTUM_ENTRY(potential)
MOMENTUM_ENTRY(energy_regressor)
MOMENTUM_ENTRY(momentum)
MOMENTUM_ENTRY(momentum_rate)
MOMENTUM_ENTRY(ccrba)
