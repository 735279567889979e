/*
 * M(q)^-1 by the articulated-body recursion, in O(n^2) (the structure of Carpentier and
 * Mansard, RSS 2018, and Carpentier's "Analytical inverse of the joint space inertia
 * matrix"; derived here from ABA's equations, Featherstone table 7.1 / MR section 8.5).
 *
 * With qd = 0, no gravity and tau = e_j, ABA's qdd is column j of M^-1. Every quantity of
 * its passes is linear in tau, so the nv unit torques run at once: the bias wrench pA_i
 * becomes a 6 x nv matrix P_i, the acceleration a 6 x nv matrix A_i and qdd_i the rows of
 * M^-1 of joint i's dofs ("row i" below). Every spatial quantity is about the world origin
 * (moved to body 1's origin, as in crba.c), in world axes, so that a wrench or a twist
 * passes between bodies unchanged (Ad = 1) and P is one 6 x nv matrix, column j held by
 * the body whose subtree holds dof j:
 *
 *   root to leaves   T_s,i = T_s,lambda T_{lambda,i}(q)                        (MR 4.13)
 *                    S_i = [Ad_T_s,i] S_i^body, IA_i = G_s,i              (MR 5.11, 8.42)
 *   leaves to root   U_i = IA_i S_i, D_i = S_i^T U_i + diag(armature)      (table 7.1)
 *                    u_i = e_i - S_i^T P_i, row i = D_i^-1 u_i:
 *                      M^-1[i, i] = D_i^-1,  M^-1[i, j] = -D_i^-1 S_i^T P[:, j]
 *                      (j a dof below i; P_i is zero on i's own dofs)
 *                    pa_i = P_i + U_i D_i^-1 u_i:  P[:, j] += U_i M^-1[i, j]
 *                      (j in i's subtree; P then holds P_lambda's share)
 *                    IA_lambda += IA_i - U_i D_i^-1 U_i^T
 *   root to leaves   qdd_i = D_i^-1 (u_i - U_i^T A_lambda), where, with qd = 0,
 *                    A_lambda = sum of S_k qdd_k over the dofs k above i    (MR 5.6):
 *                      M^-1[i, j] -= sum_k (D_i^-1 U_i^T S_k) M^-1[k, j]
 *                    for the columns j >= i's first dof (the upper triangle: row k is
 *                    complete there), then M^-1[j, i] = M^-1[i, j].
 *
 * A fixed joint (no dof) hands IA_i on whole. D_i is n x n for a joint of n dofs (free:
 * 6), factored by Cholesky; its pivots follow ABA's rule (rd.h): a pivot at most F[3]
 * times |w|^2 (BF_SR + tr(IA_rr) / 2) + |v|^2 (BF_ST + tr(IA_tt) / 3) + armature, with S's
 * column [w; v] in body coordinates and IA's blocks about the joint's origin, is zero
 * (error E_PIVOT + the leafmost such body). Mimic joints are not supported (minv.c's
 * Cholesky road takes those models). x[0] = q; out = M^-1 (nv x nv, row-major).
 */
#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_s,i (0:12); IA_i about the world
 * origin, packed (12:33); the space columns S_i (33:69, column c at 33 + 6 c), U_i
 * (69:105, likewise) and D_i^-1 (105:141, entry (r, c) at 105 + 6 r + c). Then P (6 x nv,
 * entry (r, j) at r nv + j), then nb int64: the end of the dofs of body i's subtree */
enum { MV_R = 0, MV_P = 9, MV_IA = 12, MV_S = 33, MV_U = 69, MV_DI = 105, WMV = 141 };

int64_t rd_minv_aba_work(const model_t *md) { return WMV * md->nb + 6 * md->nv + md->nb; }

RD_INLINE void axpy_l(int L, int64_t n, const double *s, double *RESTRICT x, const double *y)
{
    /* x += s y for the laned scalar s and the n laned entries x, y (a row's columns) */
    for (int64_t j = 0; j < n; j++)
        LANE { x[j * L + l] += s[l] * y[j * L + l]; }
}

RD_INLINE void minv_setup(const model_t *md, const int L, const double *q, double *RESTRICT W,
                          int64_t *ve)
{
    /* root to leaves: T_s,i, S_i = [Ad_T_s,i] S_i^body (joint_columns), IA_i = G_s,i
     * (packed from m, h = m c, I_o about the world origin: [[I_o, [h]], [[h]^T, m 1]]), and
     * ve[i] = the end of body i's own dofs (of its subtree's after the backward pass) */
    double ref[3 * LANES], G[13 * LANES];
    for (int k = 0; k < MV_IA * L; k++) /* the world: T_s,0 = 1 */
        W[k] = 0.0;
    LANE { W[0 * L + l] = W[4 * L + l] = W[8 * L + l] = 1.0; }
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        double *Wi = W + WMV * i * L, *IA = Wi + MV_IA * L;
        const double *Wl = W + WMV * Ii[BI_PARENT] * L;
        body_world_pose(md, L, i, q, Wl + MV_R * L, Wl + MV_P * L, Wi + MV_R * L, Wi + MV_P * L, ref);
        double col[36 * LANES];
        const int n = joint_columns(md, L, Wi + MV_R * L, Wi + MV_P * L, q, i, col);
        for (int k = 0; k < 6 * n * L; k++)
            Wi[MV_S * L + k] = col[k];
        inertia_to_world(L, Wi + MV_R * L, Wi + MV_P * L, body_f(md, i), G);
        const double *h = G + L, *Io = G + 4 * L;
        LANE {
            const double e[21] = {
                Io[l], Io[L + l], Io[2 * L + l], 0.0, -h[2 * L + l], h[L + l],
                Io[4 * L + l], Io[5 * L + l], h[2 * L + l], 0.0, -h[l],
                Io[8 * L + l], -h[L + l], h[l], 0.0,
                G[l], 0.0, 0.0, G[l], 0.0, G[l],
            };
            UNROLL21 for (int k = 0; k < 21; k++)
                IA[k * L + l] = e[k];
        }
        ve[i] = n ? Ii[BI_VIDX] + n : 0;
    }
}

RD_INLINE void pivot_scales_world(const int L, const int n, const double *Fi, const double *Wi,
                                  const double *arm, double *RESTRICT sc)
{
    /* the scale of each pivot of D_i (rd.h's rule, as ABA's): for the column [w; v_s] =
     * S_c (world), its body part [w; v] has |w| = |w| and v = v_s - p x w; IA's rotational
     * block about the joint's origin p has the trace tr(A) + 2 tr(B [p]) + |p|^2 tr(C)
     * - p^T C p for IA = [[A, B], [B^T, C]] about the world origin (the shift X^T IA X) */
    const double *IA = Wi + MV_IA * L, *p = Wi + MV_P * L, *S = Wi + MV_S * L;
    LANE {
        double T[21], P[3] = {p[l], p[L + l], p[2 * L + l]};
        UNROLL21 for (int k = 0; k < 21; k++)
            T[k] = IA[k * L + l];
        const double trC = T[SYM[3][3]] + T[SYM[4][4]] + T[SYM[5][5]];
        double pCp = 0.0;
        UNROLL3 for (int r = 0; r < 3; r++)
            UNROLL3 for (int c = 0; c < 3; c++)
                pCp += P[r] * T[SYM[3 + r][3 + c]] * P[c];
        const double trBp = P[2] * (T[SYM[0][4]] - T[SYM[1][3]]) + P[1] * (T[SYM[2][3]] - T[SYM[0][5]])
                            + P[0] * (T[SYM[1][5]] - T[SYM[2][4]]);
        const double trA = T[SYM[0][0]] + T[SYM[1][1]] + T[SYM[2][2]] + 2.0 * trBp
                           + (P[0] * P[0] + P[1] * P[1] + P[2] * P[2]) * trC - pCp;
        const double sr = Fi[BF_SR] + 0.5 * trA, st = Fi[BF_ST] + trC / 3.0;
        for (int c = 0; c < n; c++) {
            const double *s = S + 6 * c * L;
            const double w[3] = {s[l], s[L + l], s[2 * L + l]};
            const double v[3] = {s[3 * L + l] - (P[1] * w[2] - P[2] * w[1]),
                                 s[4 * L + l] - (P[2] * w[0] - P[0] * w[2]),
                                 s[5 * L + l] - (P[0] * w[1] - P[1] * w[0])};
            sc[c * L + l] = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * sr
                            + (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * st + arm[c];
        }
    }
}

RD_INLINE void joint_inverse(const int L, const int n, const double *arm, const double *sc,
                             double rel, double body, double *RESTRICT Wi, double *RESTRICT bad)
{
    /* U_i = IA_i S_i; D_i = S_i^T U_i + diag(arm) = Lc Lc^T (Cholesky; a pivot at most rel
     * times its scale sc makes bad = body unless a leafier body did); D_i^-1 = Lc^-T Lc^-1 */
    const double *S = Wi + MV_S * L;
    double *U = Wi + MV_U * L, *Di = Wi + MV_DI * L, Lc[36 * LANES];
    for (int c = 0; c < n; c++)
        sym_times(L, Wi + MV_IA * L, S + 6 * c * L, U + 6 * c * L);
    for (int r = 0; r < n; r++)
        for (int c = 0; c <= r; c++)
            LANE {
                double d = r == c ? arm[r] : 0.0;
                UNROLL6 for (int k = 0; k < 6; k++)
                    d += S[(6 * r + k) * L + l] * U[(6 * c + k) * L + l];
                Lc[(6 * r + c) * L + l] = d;
            }
    for (int j = 0; j < n; j++) { /* D = Lc Lc^T, column by column */
        LANE {
            double d = Lc[(6 * j + j) * L + l];
            for (int k = 0; k < j; k++)
                d -= Lc[(6 * j + k) * L + l] * Lc[(6 * j + k) * L + l];
            bad[l] = (d > rel * sc[j * L + l] || bad[l] != 0.0) ? bad[l] : body;
            Lc[(6 * j + j) * L + l] = sqrt(fabs(d));
        }
        for (int r = j + 1; r < n; r++)
            LANE {
                double s = Lc[(6 * r + j) * L + l];
                for (int k = 0; k < j; k++)
                    s -= Lc[(6 * r + k) * L + l] * Lc[(6 * j + k) * L + l];
                Lc[(6 * r + j) * L + l] = s / Lc[(6 * j + j) * L + l];
            }
    }
    for (int c = 0; c < n; c++) /* column c of D^-1: Lc y = e_c, then Lc^T x = y */
        LANE {
            double y[6];
            for (int r = 0; r < n; r++) {
                double s = r == c ? 1.0 : 0.0;
                for (int k = 0; k < r; k++)
                    s -= Lc[(6 * r + k) * L + l] * y[k];
                y[r] = s / Lc[(6 * r + r) * L + l];
            }
            for (int r = n - 1; r >= 0; r--) {
                double s = y[r];
                for (int k = r + 1; k < n; k++)
                    s -= Lc[(6 * k + r) * L + l] * y[k];
                y[r] = s / Lc[(6 * r + r) * L + l];
            }
            for (int r = 0; r < n; r++)
                Di[(6 * r + c) * L + l] = y[r];
        }
}

RD_INLINE void minv_backward(const model_t *md, const int L, int64_t i, const double *arm,
                             double *RESTRICT W, double *RESTRICT Mi, double *RESTRICT bad)
{
    /* leaves to root at body i (with dofs): D_i^-1, its rows of M^-1 over its subtree, P
     * and IA_lambda (the equations at the top) */
    const int64_t *Ii = body_i(md, i), nv = md->nv, va = Ii[BI_VIDX], lam = Ii[BI_PARENT];
    const int n = (int)Ii[BI_NV];
    const int64_t *ve = (const int64_t *)(W + (WMV * md->nb + 6 * nv) * L);
    const int64_t ns = ve[i] - va, nd = ve[i] - va - n; /* subtree's dofs, those below i */
    double *Wi = W + WMV * i * L, *P = W + WMV * md->nb * L, sc[6 * LANES];
    double *U = Wi + MV_U * L, *Di = Wi + MV_DI * L, *S = Wi + MV_S * L;
    pivot_scales_world(L, n, body_f(md, i), Wi, arm, sc);
    joint_inverse(L, n, arm, sc, md->F[3], (double)i, Wi, bad);
    /* row i: M^-1[i, i] = D^-1, M^-1[i, j] = -D^-1 S^T P[:, j] for j below i */
    for (int r = 0; r < n; r++) {
        double *row = Mi + ((va + r) * nv + va) * L;
        for (int c = 0; c < n; c++)
            LANE { row[c * L + l] = Di[(6 * r + c) * L + l]; }
        for (int64_t j = n; j < ns; j++)
            LANE { row[j * L + l] = 0.0; }
        for (int c = 0; c < n; c++)
            for (int k = 0; k < 6; k++) {
                double s[LANES]; /* -(D^-1)_rc S_ck */
                LANE { s[l] = -Di[(6 * r + c) * L + l] * S[(6 * c + k) * L + l]; }
                axpy_l(L, nd, s, row + n * L, P + (k * nv + va + n) * L);
            }
    }
    /* P[:, j] += U_i M^-1[i, j] over the subtree (P_lambda's share of pa_i) */
    for (int k = 0; k < 6; k++)
        for (int c = 0; c < n; c++)
            axpy_l(L, ns, U + (6 * c + k) * L, P + (k * nv + va) * L, Mi + ((va + c) * nv + va) * L);
    if (lam <= 0)
        return;
    /* IA_lambda += IA_i - U_i D_i^-1 U_i^T */
    double *IAl = W + (WMV * lam + MV_IA) * L, *IA = Wi + MV_IA * L;
    for (int r = 0; r < 6; r++)
        for (int c = r; c < 6; c++)
            LANE {
                double acc = IA[SYM[r][c] * L + l];
                for (int a = 0; a < n; a++) {
                    double t = 0.0;
                    for (int b = 0; b < n; b++)
                        t += Di[(6 * a + b) * L + l] * U[(6 * b + c) * L + l];
                    acc -= U[(6 * a + r) * L + l] * t;
                }
                IAl[SYM[r][c] * L + l] += acc;
            }
}

RD_INLINE void minv_forward(const model_t *md, const int L, int64_t i, const double *RESTRICT W,
                            double *RESTRICT Mi)
{
    /* root to leaves at body i (with dofs): M^-1[i, j] -= (D_i^-1 U_i^T S_k) M^-1[k, j]
     * for each dof k above i and j from i's first dof on */
    const int64_t *Ii = body_i(md, i), nv = md->nv, va = Ii[BI_VIDX];
    const int n = (int)Ii[BI_NV];
    const double *Wi = W + WMV * i * L, *U = Wi + MV_U * L, *Di = Wi + MV_DI * L;
    for (int64_t b = Ii[BI_PARENT]; b > 0; b = body_i(md, b)[BI_PARENT]) {
        const double *Sb = W + (WMV * b + MV_S) * L;
        for (int c = 0; c < body_i(md, b)[BI_NV]; c++) {
            const int64_t k = body_i(md, b)[BI_VIDX] + c;
            double y[6 * LANES], x[LANES];
            for (int a = 0; a < n; a++) /* y = U_i^T S_k */
                LANE {
                    double t = 0.0;
                    UNROLL6 for (int r = 0; r < 6; r++)
                        t += U[(6 * a + r) * L + l] * Sb[(6 * c + r) * L + l];
                    y[a * L + l] = t;
                }
            for (int r = 0; r < n; r++) { /* row va + r -= (D^-1 y)_r row k */
                LANE {
                    double t = 0.0;
                    for (int a = 0; a < n; a++)
                        t -= Di[(6 * r + a) * L + l] * y[a * L + l];
                    x[l] = t;
                }
                axpy_l(L, nv - va, x, Mi + ((va + r) * nv + va) * L, Mi + (k * nv + va) * L);
            }
        }
    }
}

RD_INLINE int minv_aba_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT Mi,
                             double *RESTRICT W, int *lane)
{
    const int64_t nb = md->nb, nv = md->nv;
    double *P = W + WMV * nb * L, bad[LANES];
    int64_t *ve = (int64_t *)(P + 6 * nv * L);
    const double *d0 = dof_params(md);
    LANE { bad[l] = 0.0; }
    minv_setup(md, L, a->x[0], W, ve);
    for (int64_t k = 0; k < 6 * nv * L; k++) /* P = 0 */
        P[k] = 0.0;
    /* ---- leaves to root: D_i^-1, the rows over the subtrees, P, IA_lambda */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t *Ii = body_i(md, i), lam = Ii[BI_PARENT];
        if (Ii[BI_NV] > 0) {
            double arm[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
            if (a->flags & FL_ARMATURE)
                for (int c = 0; c < Ii[BI_NV]; c++)
                    arm[c] = d0[2 * nv + Ii[BI_VIDX] + c];
            minv_backward(md, L, i, arm, W, Mi, bad);
        }
        else if (lam > 0) { /* a fixed joint: IA_lambda += IA_i */
            double *IAl = W + (WMV * lam + MV_IA) * L;
            const double *IA = W + (WMV * i + MV_IA) * L;
            for (int k = 0; k < 21 * L; k++)
                IAl[k] += IA[k];
        }
        if (lam > 0 && ve[i] > ve[lam])
            ve[lam] = ve[i];
    }
    for (int l = 0; l < L; l++)
        if (bad[l] != 0.0) {
            *lane = l;
            return E_PIVOT + (int)bad[l];
        }
    /* ---- root to leaves: the rows completed on the upper triangle, which is mirrored */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i), va = Ii[BI_VIDX];
        if (Ii[BI_NV] == 0)
            continue;
        /* the columns beyond the subtree start at 0 (the backward pass left them) */
        for (int r = 0; r < Ii[BI_NV]; r++)
            for (int64_t k = ve[i] * L; k < nv * L; k++)
                Mi[(va + r) * nv * L + k] = 0.0;
        minv_forward(md, L, i, W, Mi);
    }
    for (int64_t r = 1; r < nv; r++)
        for (int64_t c = 0; c < r; c++)
            LANE { Mi[(r * nv + c) * L + l] = Mi[(c * nv + r) * L + l]; }
    return 0;
}

CLONES int rd_minv_aba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                       double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? minv_aba_lanes(md, 1, a, out, W, lane) : minv_aba_lanes(md, LANES, a, out, W, lane);
}
