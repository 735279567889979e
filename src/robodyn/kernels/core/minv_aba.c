/*
 * M(q)^-1 by the articulated-body recursion, in O(n^2) (the structure of Carpentier and
 * Mansard, RSS 2018, and Carpentier's "Analytical inverse of the joint space inertia
 * matrix"; derived here from ABA's equations, Featherstone table 7.1 / MR section 8.5).
 *
 * With qd = 0, no gravity and tau = e_j, ABA's qdd is column j of M^-1. Every quantity of
 * its passes is linear in tau, so the nv unit torques run at once: the bias wrench pA_i
 * becomes a 6 x nv matrix P_i, the acceleration a 6 x nv matrix A_i and qdd_i the rows of
 * M^-1 of joint i's dofs ("row i" below). The articulated inertias do not depend on tau
 * (nor on qd): U_i = IA_i S_i and D_i^-1 are those of any ABA pass at q (aba.h says where
 * it leaves them). The rest runs about the world origin (moved to body 1's origin, as in
 * crba.c), in world axes, so that a wrench or a twist passes between bodies unchanged
 * (Ad = 1) and P is one 6 x nv matrix, column j held by the body whose subtree holds dof j:
 *
 *   root to leaves   T_s,i = T_s,lambda T_{lambda,i}                           (MR 4.13)
 *                    S_i = [Ad_T_s,i] S_i^body,  U_i = [Ad_T_i,s]^T U_i^body  (MR 5.11, 8.42)
 *   leaves to root   u_i = e_i - S_i^T P_i and row i = D_i^-1 u_i            (table 7.1):
 *                      M^-1[i, i] = D_i^-1,  M^-1[i, j] = -D_i^-1 S_i^T P[:, j]
 *                      (j a dof below i; P_i is zero on i's own dofs)
 *                    pa_i = P_i + U_i D_i^-1 u_i:  P[:, j] += U_i M^-1[i, j]
 *                      (j in i's subtree; P then holds pA_lambda's share)
 *   root to leaves   qdd_i = D_i^-1 (u_i - U_i^T A_lambda), where, with qd = 0,
 *                    A_lambda = sum of S_k qdd_k over the dofs k above i      (MR 5.6):
 *                      M^-1[i, j] -= sum_k (D_i^-1 U_i^T S_k) M^-1[k, j]
 *                    for the columns j >= i's first dof (the upper triangle: row k is
 *                    complete there), then M^-1[j, i] = M^-1[i, j].
 *
 * A fixed joint has no row (its subtree's columns of P pass on as they are). ABA refuses
 * a singular D_i (E_PIVOT); mimic joints are not supported (minv.c's Cholesky road takes
 * those models). x[0] = q; out = M^-1 (nv x nv, row-major).
 */
#include "aba.h"

/* workspace: ABA's, then for body i, fields of L lanes: R, p of T_s,i (0:12); S_i (12:48)
 * and U_i (48:84) in world coordinates, column c at 6 c; D_i^-1 (84:120, (r, c) at 6 r + c).
 * Then P (6 x nv, (r, j) at r nv + j), room for S_i^T P (6 nv), the forward pass's
 * coefficients (nv) and their dofs (nv int64), a zero tau for ABA (nv) */
enum { MV_R = 0, MV_P = 9, MV_S = 12, MV_U = 48, MV_DI = 84, WMV = 120 };

int64_t rd_minv_aba_work(const model_t *md)
{
    return rd_aba_work(md) + WMV * md->nb + 15 * md->nv;
}

RD_INLINE void axpy_l(int L, int64_t n, const double *s, double *RESTRICT x, const double *y)
{
    /* x += s y for the laned scalar s and the n laned entries x, y (a row's columns) */
    for (int64_t j = 0; j < n; j++)
        LANE { x[j * L + l] += s[l] * y[j * L + l]; }
}

RD_INLINE void joint_blocks(const int L, int64_t jt, int n, const double *Wa, double *RESTRICT Ub,
                            double *RESTRICT Di)
{
    /* U_i (body coordinates, column c at 6 c) and D_i^-1 ((r, c) at 6 r + c) from ABA's
     * workspace of body i (aba.h) */
    if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
        for (int k = 0; k < 6 * L; k++)
            Ub[k] = Wa[A_U * L + k];
        LANE { Di[l] = Wa[A_DINV * L + l]; }
    }
    else if (jt == J_FREE) { /* U = IA; D^-1 column c solves D x = e_c by its factor */
        for (int c = 0; c < 6; c++) {
            double *x = Ub + 6 * c * L, y[6 * LANES];
            for (int r = 0; r < 6; r++)
                LANE {
                    x[r * L + l] = Wa[(A_IA + SYM[r][c]) * L + l];
                    y[r * L + l] = r == c ? 1.0 : 0.0;
                }
            chol6_solve(L, Wa + A_LF * L, y);
            for (int r = 0; r < 6; r++)
                LANE { Di[(6 * r + c) * L + l] = y[r * L + l]; }
        }
    }
    else {
        for (int k = 0; k < 6 * n * L; k++)
            Ub[k] = Wa[A_LF * L + k];
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                LANE { Di[(6 * r + c) * L + l] = Wa[(A_LF + 18 + 3 * r + c) * L + l]; }
    }
}

RD_INLINE void minv_frames(const model_t *md, const int L, const double *q, double *RESTRICT W,
                           double *RESTRICT V)
{
    /* root to leaves into V (this file's fields): T_s,i from ABA's T_{lambda,i}; S_i =
     * [Ad_T_s,i] S_i^body (joint_columns); U_i = [Ad_T_i,s]^T U_i^body, the wrench
     * [R m + p x (R f); R f] for (R, p) = T_s,i; D_i^-1 */
    double ref[3 * LANES] = {0.0}; /* body 1's origin (body_world_pose) */
    for (int k = 0; k < 12 * L; k++) /* the world: T_s,0 = 1 */
        V[k] = 0.0;
    LANE { V[0 * L + l] = V[4 * L + l] = V[8 * L + l] = 1.0; }
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Wa = W + WA * i * L, *Vl = V + WMV * Ii[BI_PARENT] * L;
        double *Vi = V + WMV * i * L, *R = Vi + MV_R * L, *p = Vi + MV_P * L, Ub[36 * LANES];
        body_world_pose(md, L, i, Wa + A_R * L, Wa + A_P * L, Vl + MV_R * L, Vl + MV_P * L, R,
                        p, ref);
        const int n = joint_columns(md, L, R, p, q, i, Vi + MV_S * L);
        joint_blocks(L, Ii[BI_TYPE], n, Wa, Ub, Vi + MV_DI * L);
        for (int c = 0; c < n; c++) {
            double *u = Vi + (MV_U + 6 * c) * L;
            wrench_to_parent(L, R, p, Ub + 6 * c * L, Ub + (6 * c + 3) * L, u, u + 3 * L);
        }
    }
}

RD_INLINE void minv_backward(const model_t *md, const int L, int64_t i, const double *V,
                             double *RESTRICT P, double *RESTRICT Mi)
{
    /* leaves to root at body i (with dofs): its rows of M^-1 over its subtree, and P */
    const int64_t *Ii = body_i(md, i), nv = md->nv, va = Ii[BI_VIDX];
    const int n = (int)Ii[BI_NV];
    const int64_t ns = dof_end(md, i) - va; /* the subtree's dofs */
    const double *Vi = V + WMV * i * L, *S = Vi + MV_S * L, *U = Vi + MV_U * L;
    const double *Di = Vi + MV_DI * L;
    double *Pa = P + va * L;
    if (n == 1) { /* one pass over the columns */
        double *row = Mi + (va * nv + va) * L;
        LANE { row[l] = Di[l]; }
        for (int64_t j = 1; j < ns; j++) /* M^-1[i, j] = -D^-1 S^T P[:, j] (in 3 pairs) */
            LANE {
                const double *p = Pa + j * L + l;
                const double t = (S[l] * p[0] + S[L + l] * p[nv * L])
                                 + (S[2 * L + l] * p[2 * nv * L] + S[3 * L + l] * p[3 * nv * L])
                                 + (S[4 * L + l] * p[4 * nv * L] + S[5 * L + l] * p[5 * nv * L]);
                row[j * L + l] = -Di[l] * t;
            }
        for (int64_t j = 0; j < ns; j++) /* P[:, j] += U_i M^-1[i, j] */
            LANE {
                const double x = row[j * L + l];
                UNROLL6 for (int k = 0; k < 6; k++)
                    Pa[(k * nv + j) * L + l] += U[k * L + l] * x;
            }
        return;
    }
    /* M^-1[i, i] = D^-1; for j below i, T[:, j] = S^T P[:, j], M^-1[i, j] = -D^-1 T[:, j]
     * (T: n rows of nd entries, in P's room's next 6 nv; axpys over the columns) */
    const int64_t nd = ns - n;
    double *row = Mi + (va * nv + va) * L, *T = P + 6 * nv * L;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            LANE { row[(r * nv + c) * L + l] = Di[(6 * r + c) * L + l]; }
    for (int64_t k = 0; k < n * nd * L; k++)
        T[k] = 0.0;
    for (int c = 0; c < n; c++)
        for (int k = 0; k < 6; k++)
            axpy_l(L, nd, S + (6 * c + k) * L, T + c * nd * L, Pa + (k * nv + n) * L);
    for (int r = 0; r < n; r++) {
        for (int64_t k = n * L; k < ns * L; k++)
            row[r * nv * L + k] = 0.0;
        for (int c = 0; c < n; c++) {
            double s[LANES];
            LANE { s[l] = -Di[(6 * r + c) * L + l]; }
            axpy_l(L, nd, s, row + (r * nv + n) * L, T + c * nd * L);
        }
    }
    for (int k = 0; k < 6; k++) /* P[:, j] += U_i M^-1[i, j] */
        for (int c = 0; c < n; c++)
            axpy_l(L, ns, U + (6 * c + k) * L, Pa + k * nv * L, row + c * nv * L);
}

RD_INLINE void minv_forward(const model_t *md, const int L, int64_t i, const double *V,
                            double *RESTRICT x, int64_t *kx, double *RESTRICT Mi)
{
    /* root to leaves at body i (with dofs): M^-1[i, j] -= sum_k (D_i^-1 U_i^T S_k) M^-1[k, j]
     * over the dofs k above i (their coefficients in x, their indices in kx), for j from
     * i's first dof on */
    const int64_t *Ii = body_i(md, i), nv = md->nv, va = Ii[BI_VIDX];
    const int n = (int)Ii[BI_NV];
    const double *Vi = V + WMV * i * L, *U = Vi + MV_U * L, *Di = Vi + MV_DI * L;
    for (int r = 0; r < n; r++) {
        int64_t na = 0;
        for (int64_t b = Ii[BI_PARENT]; b > 0; b = body_i(md, b)[BI_PARENT]) {
            const double *Sb = V + (WMV * b + MV_S) * L;
            for (int c = 0; c < body_i(md, b)[BI_NV]; c++, na++) {
                kx[na] = body_i(md, b)[BI_VIDX] + c;
                LANE { /* x = -(D^-1 U^T S_k)_r */
                    double t = 0.0;
                    for (int a = 0; a < n; a++) {
                        double y = 0.0;
                        UNROLL6 for (int k = 0; k < 6; k++)
                            y += U[(6 * a + k) * L + l] * Sb[(6 * c + k) * L + l];
                        t -= Di[(6 * r + a) * L + l] * y;
                    }
                    x[na * L + l] = t;
                }
            }
        }
        combine_rows(L, nv - va, na, x, kx, Mi + va * L, nv, Mi + ((va + r) * nv + va) * L);
    }
}

RD_INLINE void minv_rows(const model_t *md, const int L, const double *q, double *RESTRICT W,
                         double *RESTRICT Mi)
{
    /* M^-1 into Mi from ABA's workspace at the front of W (an ABA pass at q just ran) */
    const int64_t nb = md->nb, nv = md->nv;
    double *V = W + rd_aba_work(md) * L, *P = V + WMV * nb * L, *x = P + 12 * nv * L;
    int64_t *kx = (int64_t *)(P + 13 * nv * L);
    minv_frames(md, L, q, W, V);
    for (int64_t k = 0; k < 6 * nv * L; k++) /* P = 0 */
        P[k] = 0.0;
    for (int64_t i = nb - 1; i > 0; i--)
        if (body_i(md, i)[BI_NV] > 0)
            minv_backward(md, L, i, V, P, Mi);
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i), va = Ii[BI_VIDX];
        if (Ii[BI_NV] == 0)
            continue;
        for (int r = 0; r < Ii[BI_NV]; r++) /* beyond the subtree, the rows start at 0 */
            for (int64_t k = dof_end(md, i) * L; k < nv * L; k++)
                Mi[(va + r) * nv * L + k] = 0.0;
        minv_forward(md, L, i, V, x, kx, Mi);
    }
    for (int64_t r = 1; r < nv; r++) /* the lower triangle: M^-1 is symmetric */
        for (int64_t c = 0; c < r; c++)
            LANE { Mi[(r * nv + c) * L + l] = Mi[(c * nv + r) * L + l]; }
}

CLONES void rd_minv_aba_rows(const model_t *md, int L, const double *q, double *RESTRICT W,
                             double *RESTRICT out)
{
    /* for a caller that has just run ABA (aba_derivatives.c) */
    if (L == 1)
        minv_rows(md, 1, q, W, out);
    else
        minv_rows(md, LANES, q, W, out);
}

RD_INLINE int minv_aba_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT Mi,
                             double *RESTRICT W, int *lane)
{
    /* ABA's passes 1 and 2 at qd = 0, tau = 0, no gravity (for its U_i and D_i^-1; with
     * armature as the flags say; its pivots refuse a singular M), then the rows */
    const int64_t nv = md->nv;
    double *tau = W + (rd_minv_aba_work(md) - nv) * L;
    for (int64_t k = 0; k < nv * L; k++)
        tau[k] = 0.0;
    args_t c = {{a->x[0], NULL, tau, NULL, NULL}, NULL, a->flags & FL_ARMATURE, 0.0, 0, 0,
                NULL, NULL, 0, 0, 0};
    int e = rd_aba(md, L, &c, NULL, W, lane);
    if (e)
        return e;
    minv_rows(md, L, a->x[0], W, Mi);
    return 0;
}

CLONES int rd_minv_aba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                       double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? minv_aba_lanes(md, 1, a, out, W, lane) : minv_aba_lanes(md, LANES, a, out, W, lane);
}
