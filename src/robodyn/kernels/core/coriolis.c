/*
 * The Christoffel-consistent Coriolis matrix C(q, qd) (Echeandia & Wensing 2021; course
 * notes 001 eqs. 10.8-10.10: C_ij = sum_k Gamma_ijk qd_k), in world coordinates, O(n d)
 * for n dofs and tree depth d (robodyn/coriolis.py derives it; its numpy reference
 * coriolis_matrix_reference is the parity oracle):
 *
 *   forward   T_s,i; space screw axes S_a = [Ad_T_s,i] S_a^body and their rates
 *             dS_a/dt = [ad_{V_i}] S_a; twists V_i = V_lambda + sum_a S_a qd_a; the body
 *             inertia about the world origin G_i^s (m, h, I_o) (MR eq. 8.42), its rate
 *             dG/dt = -([ad_V]^T G + G [ad_V]) and its momentum G V
 *   backward  composite sums over each subtree of G (Ic), dG/dt and G V (k): plain sums
 *             in world coordinates; Bc = 1/2 (dIc/dt + bar(k))
 *   columns   for dof c of body i: F1 = Ic S'_c + Bc S_c, G1 = Ic S_c, G2 = Bc^T S_c;
 *             walking to the root over the dofs a of each body j: C_ac = S_a^T F1 and,
 *             when j != i, C_ca = G1^T S'_a + G2^T S_a
 *
 * A mimic joint contributes mult_a mult_c times its entries at its leader's dof.
 * x[0] = q, x[1] = qd; out = C (nv x nv, row-major).
 */
#include "joint.h"

/* workspace of body i, fields of L lanes: R (0:9), p (9:12) of T_s,i; V_i (12:18);
 * composite Ic: m (18), h (19:22), I_o (22:31); dIc/dt: dh (31:34), dI_o (34:43); k = sum
 * G V (43:49); then up to 6 columns [S_a (6), dS_a/dt (6)] (49:121); the body's own G^s_i:
 * m (121), h (122:125), I_o (125:134) */
enum { CO_R = 0, CO_P = 9, CO_V = 12, CO_M = 18, CO_H = 19, CO_IO = 22, CO_DH = 31, CO_DIO = 34,
       CO_K = 43, CO_S = 49, CO_G = 121, WCO = 121 + 13 };

int64_t rd_coriolis_work(const model_t *md) { return WCO * md->nb; }

RD_INLINE void body_inertia_world(const int L, const double *Fi, const double *R, const double *p,
                                  double *RESTRICT G)
{
    /* G^s_i = [Ad_T_i,s]^T G_i [Ad_T_i,s] (MR eq. 8.42) as (m, h, I_o) in G (13 L):
     * h = R h_b + m p, I_o = R I_b R^T + (2 (R h_b).p + m |p|^2) 1 - (a p^T + p a^T),
     * a = R h_b + m p / 2 (parallel axes, MR eq. 8.26) */
    const double m = Fi[BF_MASS];
    double rh[3 * LANES], T[9 * LANES], *h = G + L, *Io = G + 4 * L;
    rmul_lc(L, R, Fi + BF_H, rh);
    mm_lc(L, R, Fi + BF_IO, T);
    LANE {
        double Rl[9], T9[9], pp[3], a[3];
        UNROLL9 for (int k = 0; k < 9; k++)
            Rl[k] = R[k * L + l], T9[k] = T[k * L + l];
        UNROLL3 for (int k = 0; k < 3; k++)
            pp[k] = p[k * L + l], a[k] = rh[k * L + l] + 0.5 * m * pp[k];
        const double sp = 2.0 * (rh[l] * pp[0] + rh[L + l] * pp[1] + rh[2 * L + l] * pp[2])
                          + m * (pp[0] * pp[0] + pp[1] * pp[1] + pp[2] * pp[2]);
        UNROLL9 for (int k = 0; k < 9; k++) {
            const int r = k / 3, c = k % 3;
            const double Ir = T9[3 * r] * Rl[3 * c] + T9[3 * r + 1] * Rl[3 * c + 1]
                              + T9[3 * r + 2] * Rl[3 * c + 2];
            Io[k * L + l] = Ir + (r == c ? sp - 2.0 * a[r] * pp[r] : -(a[r] * pp[c] + pp[r] * a[c]));
        }
    }
    for (int r = 0; r < 3; r++)
        LANE { h[r * L + l] = rh[r * L + l] + m * p[r * L + l]; }
    LANE { G[l] = m; }
}

RD_INLINE void coriolis_pose(const model_t *md, const int L, const double *q, double *RESTRICT W)
{
    /* the part of q alone: poses T_s,i, space screw axes S_a, each body's G^s_i and the
     * composite Ic of its subtree (world coordinates, the world frame moved to body 1's
     * origin: C is the same in any fixed frame, and a robot far from the world's origin
     * keeps its digits, as in crba.c) */
    const int64_t nb = md->nb;
    /* world body 0: T_s,0 = identity, V_0 = 0 */
    for (int k = 0; k < CO_M * L; k++)
        W[k] = 0.0;
    LANE { W[0 * L + l] = W[4 * L + l] = W[8 * L + l] = 1.0; }
    double ref[3 * LANES];
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + WCO * i * L, Rl[9 * LANES], pl[3 * LANES];
        const double *Wl = W + WCO * Ii[BI_PARENT] * L;
        double *R = Wi + CO_R * L, *p = Wi + CO_P * L;
        /* T_s,i = T_s,lambda T_{lambda,i}(q) */
        joint_pose(L, Ii, Fi, q, Rl, pl);
        compose_l(L, Wl + CO_R * L, Wl + CO_P * L, Rl, pl, R, p);
        if (Ii[BI_PARENT] == 0) {
            if (i == 1)
                for (int k = 0; k < 3 * L; k++)
                    ref[k] = p[k];
            for (int k = 0; k < 3 * L; k++)
                p[k] -= ref[k];
        }
        const int64_t jt = Ii[BI_TYPE], ncol = Ii[BI_NV];
        for (int k = 0; k < ncol; k++) {
            /* S_a = [Ad_T_s,i] S^body = [R s_w; p x (R s_w) + R s_u] (MR def. 3.20) */
            double s[6], *S = Wi + (CO_S + 12 * k) * L, t[3 * LANES];
            if (jt == J_UNIVERSAL && k == 0) { /* the laned column [u; 0] */
                double u[3 * LANES], s2[LANES], c2[LANES];
                universal_u(L, Fi, q + Ii[BI_QIDX] * L, u, s2, c2);
                rmul_l(L, R, u, S);
                cross_l(L, p, S, S + 3 * L);
            }
            else {
                if (jt == J_UNIVERSAL) /* [a2; 0] */
                    memset(s, 0, 6 * sizeof(double)), memcpy(s, Fi + BF_S, 3 * sizeof(double));
                else
                    joint_column(jt, Fi, k, s);
                rmul_lc(L, R, s, S);
                rmul_lc(L, R, s + 3, t);
                cross_l(L, p, S, S + 3 * L);
                for (int r = 0; r < 3 * L; r++)
                    S[3 * L + r] += t[r];
            }
        }
        body_inertia_world(L, Fi, R, p, Wi + CO_G * L);
        memcpy(Wi + CO_M * L, Wi + CO_G * L, 13 * L * sizeof(double));
    }
    /* composite inertias, i = n..1: Ic_lambda += Ic_i (world frame, no transforms) */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t lam = body_i(md, i)[BI_PARENT];
        if (lam > 0)
            for (int k = CO_M * L; k < CO_DH * L; k++)
                W[WCO * lam * L + k] += W[WCO * i * L + k];
    }
}

RD_INLINE void coriolis_rates(const model_t *md, const int L, const double *q, const double *v,
                              double *RESTRICT W)
{
    /* the part of qd, on coriolis_pose's W: twists V_i, rates dS_a/dt, dG^s_i/dt and
     * momenta G^s_i V_i, and their composite sums dIc/dt and k */
    const int64_t nb = md->nb;
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + WCO * i * L, *V = Wi + CO_V * L;
        const double *Wl = W + WCO * Ii[BI_PARENT] * L, *R = Wi + CO_R * L, *p = Wi + CO_P * L;
        /* V_i = V_lambda + sum_a S_a qd_a (space twists add along the chain, MR eq. 5.6),
         * with qd_a = mult qd[leader] for a mimic joint */
        for (int k = 0; k < 6 * L; k++)
            V[k] = Wl[CO_V * L + k];
        const int64_t jt = Ii[BI_TYPE], ncol = Ii[BI_NV], va = Ii[BI_VIDX];
        for (int k = 0; k < ncol; k++) {
            const double *S = Wi + (CO_S + 12 * k) * L;
            for (int r = 0; r < 6; r++)
                LANE { V[r * L + l] += Fi[BF_MULT] * v[(va + k) * L + l] * S[r * L + l]; }
        }
        for (int k = 0; k < ncol; k++) {
            /* dS_a/dt = [ad_V_i] S_a = [w x s_w; w x s_u + v x s_w] (MR def. 8.2) */
            double *S = Wi + (CO_S + 12 * k) * L;
            cross_l(L, V, S, S + 6 * L);
            cross_l(L, V, S + 3 * L, S + 9 * L);
            cross_add_l(L, V + 3 * L, S, S + 9 * L);
        }
        if (jt == J_UNIVERSAL) {
            /* its first column also turns with t2: + [Ad_T_s,i] [qd2 (u x a2); 0] */
            double u[3 * LANES], s2[LANES], c2[LANES], w[3 * LANES], ws[3 * LANES];
            double *S = Wi + CO_S * L;
            universal_u(L, Fi, q + Ii[BI_QIDX] * L, u, s2, c2);
            cross_lc(L, u, Fi + BF_S, w);
            for (int r = 0; r < 3; r++)
                LANE { w[r * L + l] *= v[(va + 1) * L + l]; }
            rmul_l(L, R, w, ws);
            for (int r = 0; r < 3 * L; r++)
                S[6 * L + r] += ws[r];
            cross_l(L, p, ws, w);
            for (int r = 0; r < 3 * L; r++)
                S[9 * L + r] += w[r];
        }
        /* momentum G V = [I_o w + h x v; m v - h x w] of the body's own G^s_i */
        const double *m = Wi + CO_G * L, *h = m + L, *Io = m + 4 * L;
        inertia_times_l(L, m, h, Io, V, V + 3 * L, Wi + CO_K * L);
        /* dG/dt = -([ad_V]^T G + G [ad_V]): dh = m v + w x h,
         * dI_o = A + A^T + 2 (v.h) 1 - (h v^T + v h^T), A = [w] I_o */
        double c[3 * LANES], A[9 * LANES];
        cross_l(L, V, h, c);
        for (int r = 0; r < 3; r++)
            LANE { Wi[(CO_DH + r) * L + l] = m[l] * V[(3 + r) * L + l] + c[r * L + l]; }
        for (int cc = 0; cc < 3; cc++) /* column cc of [w] I_o = w x I_o[:, cc] */
            LANE {
                const double wx = V[l], wy = V[L + l], wz = V[2 * L + l];
                const double x0 = Io[cc * L + l], x1 = Io[(3 + cc) * L + l], x2 = Io[(6 + cc) * L + l];
                A[cc * L + l] = wy * x2 - wz * x1;
                A[(3 + cc) * L + l] = wz * x0 - wx * x2;
                A[(6 + cc) * L + l] = wx * x1 - wy * x0;
            }
        for (int r = 0; r < 3; r++)
            for (int cc = 0; cc < 3; cc++)
                LANE {
                    const double t = 2.0 * (V[3 * L + l] * h[l] + V[4 * L + l] * h[L + l]
                                            + V[5 * L + l] * h[2 * L + l]);
                    Wi[(CO_DIO + 3 * r + cc) * L + l] = A[(3 * r + cc) * L + l] + A[(3 * cc + r) * L + l]
                                                        + (r == cc ? t : 0.0)
                                                        - (h[r * L + l] * V[(3 + cc) * L + l]
                                                           + V[(3 + r) * L + l] * h[cc * L + l]);
                }
    }
    /* composite sums, i = n..1: dIc_lambda += dIc_i, k_lambda += k_i */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t lam = body_i(md, i)[BI_PARENT];
        if (lam > 0)
            for (int k = CO_DH * L; k < CO_S * L; k++)
                W[WCO * lam * L + k] += W[WCO * i * L + k];
    }
}

RD_INLINE void coriolis_columns(const model_t *md, const int L, const double *RESTRICT W,
                                double *RESTRICT C)
{
    /* C (nv x nv) from coriolis_pose's and coriolis_rates' W: for each dof c of body i,
     * walk to the root over the dofs a of body j */
    const int64_t nb = md->nb, nv = md->nv;
    for (int64_t k = 0; k < nv * nv * L; k++)
        C[k] = 0.0;
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const int64_t ncol = Ii[BI_NV], vi = Ii[BI_VIDX];
        const double *Wi = W + WCO * i * L, mi = body_f(md, i)[BF_MULT];
        const double *m = Wi + CO_M * L, *h = Wi + CO_H * L, *Io = Wi + CO_IO * L;
        const double *D = Wi + CO_DIO * L;
        /* Bc = 1/2 (dIc/dt + bar(k)) = 1/2 [[dI_o - [k_m], [dh] - [k_f]], [-[dh] - [k_f], 0]] */
        double dh[3 * LANES], km[3 * LANES], kf[3 * LANES];
        for (int r = 0; r < 3 * L; r++) {
            dh[r] = 0.5 * Wi[CO_DH * L + r];
            km[r] = 0.5 * Wi[CO_K * L + r];
            kf[r] = 0.5 * Wi[(CO_K + 3) * L + r];
        }
        for (int k = 0; k < ncol; k++) {
            const double *S = Wi + (CO_S + 12 * k) * L; /* S_c, then dS_c/dt at S + 6 L */
            double g1[6 * LANES], i1[6 * LANES], ds[3 * LANES], a1[3 * LANES], a2[3 * LANES],
                a3[3 * LANES], a4[3 * LANES], a5[3 * LANES], f1[6 * LANES], g2[6 * LANES];
            inertia_times_l(L, m, h, Io, S, S + 3 * L, g1);           /* G1 = Ic S */
            inertia_times_l(L, m, h, Io, S + 6 * L, S + 9 * L, i1);   /* Ic S' */
            /* Bc S   = 1/2 [dI_o s_w + dh x s_u - k_m x s_w - k_f x s_u; -dh x s_w - k_f x s_w]
             * Bc^T S = 1/2 [dI_o s_w + dh x s_u + k_m x s_w + k_f x s_u; -dh x s_w + k_f x s_w] */
            for (int r = 0; r < 3; r++)
                LANE {
                    ds[r * L + l] = 0.5 * (D[3 * r * L + l] * S[l] + D[(3 * r + 1) * L + l] * S[L + l]
                                           + D[(3 * r + 2) * L + l] * S[2 * L + l]);
                }
            cross_l(L, dh, S + 3 * L, a1);
            cross_l(L, km, S, a2);
            cross_l(L, kf, S + 3 * L, a3);
            cross_l(L, dh, S, a4);
            cross_l(L, kf, S, a5);
            for (int r = 0; r < 3 * L; r++) {
                f1[r] = i1[r] + ds[r] + a1[r] - a2[r] - a3[r]; /* F1 = Ic S' + Bc S */
                f1[3 * L + r] = i1[3 * L + r] - a4[r] - a5[r];
                g2[r] = ds[r] + a1[r] + a2[r] + a3[r]; /* G2 = Bc^T S */
                g2[3 * L + r] = a5[r] - a4[r];
            }
            const int64_t ci = vi + k;
            for (int64_t j = i; j > 0; j = body_i(md, j)[BI_PARENT]) {
                const int64_t *Ij = body_i(md, j);
                const double *Wj = W + WCO * j * L;
                const int64_t vj = Ij[BI_VIDX];
                const double mm_ = mi * body_f(md, j)[BF_MULT];
                for (int k2 = 0; k2 < Ij[BI_NV]; k2++) {
                    const double *Sa = Wj + (CO_S + 12 * k2) * L;
                    LANE {
                        double s1 = 0.0, s2 = 0.0;
                        for (int r = 0; r < 6; r++) {
                            s1 += Sa[r * L + l] * f1[r * L + l];
                            s2 += g1[r * L + l] * Sa[(6 + r) * L + l] + g2[r * L + l] * Sa[r * L + l];
                        }
                        /* C_ac = S_a^T (Ic S'_c + Bc S_c)   (b(a) ancestor of or equal to b(c)) */
                        C[((vj + k2) * nv + ci) * L + l] += mm_ * s1;
                        /* C_ca = (Ic S_c)^T S'_a + (Bc^T S_c)^T S_a   (b(a) strictly above) */
                        if (j != i)
                            C[(ci * nv + vj + k2) * L + l] += mm_ * s2;
                    }
                }
            }
        }
    }
}

RD_INLINE int coriolis_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT C,
                             double *RESTRICT W)
{
    coriolis_pose(md, L, a->x[0], W);
    coriolis_rates(md, L, a->x[0], a->x[1], W);
    coriolis_columns(md, L, W, C);
    return 0;
}

CLONES int rd_coriolis(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                       double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? coriolis_lanes(md, 1, a, out, W) : coriolis_lanes(md, LANES, a, out, W);
}

/* ---------------------------------------------------------------- dM/dt */
int64_t rd_mass_matrix_dot_work(const model_t *md) { return WCO * md->nb + md->nv * md->nv; }

RD_INLINE int mass_matrix_dot_lanes(const model_t *md, const int L, const args_t *a,
                                    double *RESTRICT out, double *RESTRICT W)
{
    /* dM/dt = C + C^T (dM/dt - 2 C is skew-symmetric, course notes 003), C in the
     * workspace's tail */
    const int64_t nv = md->nv;
    double *C = W + WCO * md->nb * L;
    coriolis_lanes(md, L, a, C, W);
    for (int64_t i = 0; i < nv; i++)
        for (int64_t j = 0; j < nv; j++)
            LANE { out[(i * nv + j) * L + l] = C[(i * nv + j) * L + l] + C[(j * nv + i) * L + l]; }
    return 0;
}

CLONES int rd_mass_matrix_dot(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                              double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? mass_matrix_dot_lanes(md, 1, a, out, W)
                  : mass_matrix_dot_lanes(md, LANES, a, out, W);
}

/* ---------------------------------------------------------------- Gamma and dM/dq
 * C(q, qd) is linear in qd with C_ij = sum_k Gamma_ijk qd_k (course notes 001 eq. 10.9),
 * so Gamma[:, :, k] = C(q, e_k): the part of q (poses, screw axes, composite inertias) is
 * computed once, then the part of qd and the columns for each unit rate e_k. For a
 * floating base these are the right-trivialised derivatives with Koszul's bracket terms
 * (robodyn/coriolis.py). dM_ij/dq_k = Gamma_ijk + Gamma_jik. out = (nv, nv, nv) row-major,
 * [i, j, k]. */
int64_t rd_christoffel_work(const model_t *md)
{
    return WCO * md->nb + md->nv * md->nv + md->nv; /* + C(q, e_k), e_k */
}

RD_INLINE int christoffel_lanes(const model_t *md, const int L, const args_t *a,
                                double *RESTRICT out, double *RESTRICT W, const int dM)
{
    const int64_t nv = md->nv;
    double *C = W + WCO * md->nb * L, *e = C + nv * nv * L;
    coriolis_pose(md, L, a->x[0], W);
    for (int64_t k = 0; k < nv * L; k++)
        e[k] = 0.0;
    for (int64_t k = 0; k < nv; k++) {
        LANE { e[k * L + l] = 1.0; } /* qd = e_k */
        coriolis_rates(md, L, a->x[0], e, W);
        coriolis_columns(md, L, W, C);
        LANE { e[k * L + l] = 0.0; }
        for (int64_t i = 0; i < nv; i++)
            for (int64_t j = 0; j < nv; j++) {
                double *o = out + ((i * nv + j) * nv + k) * L;
                const double *cij = C + (i * nv + j) * L, *cji = C + (j * nv + i) * L;
                if (dM) /* dM_ij/dq_k = Gamma_ijk + Gamma_jik */
                    LANE { o[l] = cij[l] + cji[l]; }
                else /* Gamma_ijk = C(q, e_k)_ij */
                    LANE { o[l] = cij[l]; }
            }
    }
    return 0;
}

CLONES int rd_christoffel(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                          double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? christoffel_lanes(md, 1, a, out, W, 0)
                  : christoffel_lanes(md, LANES, a, out, W, 0);
}

CLONES int rd_mass_matrix_derivative(const model_t *md, int L, const args_t *a,
                                     double *RESTRICT out, double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? christoffel_lanes(md, 1, a, out, W, 1)
                  : christoffel_lanes(md, LANES, a, out, W, 1);
}
