/*
 * Forward dynamics by the articulated body algorithm (Featherstone table 7.1; MR section
 * 8.5): qdd = M(q)^-1 (tau - c(q, qd) - g(q) + J^T F_ext - b qd - f_c sgn(qd)) in O(n).
 *
 *   pass 1 (root to leaves)  V_i, c_i = ad_{V_i} S_i qd_i, IA_i = G_i, pA_i = -ad_{V_i}^T G_i V_i
 *   pass 2 (leaves to root)  U_i = IA_i S_i, D_i = S_i^T U_i + armature, u_i = tau_i - S_i^T pA_i
 *                            Ia = IA_i - U_i D_i^-1 U_i^T, pa = pA_i + Ia c_i + U_i D_i^-1 u_i
 *                            IA_lambda += Ad^T Ia Ad, pA_lambda += Ad^T pa
 *   pass 3 (root to leaves)  a' = Ad dV_lambda + c_i, qdd_i = D_i^-1 (u_i - U_i^T a'),
 *                            dV_i = a' + S_i qdd_i, dV_0 = [0; -g]
 *
 * A fixed joint hands its whole articulated inertia and bias wrench to its parent (Ia =
 * IA_i, pa = pA_i); a free joint (S = 1_6) has a 6x6 D, factored by Cholesky; the
 * spherical, planar, helical and cylindrical joints (up to 3 constant columns) an n x n D.
 * x[0] = q, x[1] = qd, x[2] = tau. Mimic joints are not supported (robodyn.dynamics uses
 * the mass-matrix path, minv.c, for them).
 *
 * Symmetric 6x6 matrices (IA, Ia, the Cholesky factor of a free joint's D) are stored as
 * their upper triangle, 21 entries row by row: (0,0..5), (1,1..5), ..., (5,5).
 */
#include "aba.h"

int64_t rd_aba_work(const model_t *md) { return WA * md->nb; }

RD_INLINE void add_moved(int L, double *X, const double *Y, const double *R, const double *p)
{
    /* X += Ad_{T_{i,lambda}}^T Y Ad_{T_{i,lambda}} for packed symmetric X, Y, (R, p) =
     * T_{lambda,i}. With Y = [[A, B], [B^T, C]] and the blocks rotated (A' = R A R^T, ...):
     * [[A' - B'[p] - (B'[p])^T - [p] C' [p], B' + [p] C'], [., C']]. One lane loop of
     * scalar arithmetic (the 3x3 loops inside are unrolled, their arrays kept in registers). */
    LANE {
        double Rl[9], A[9], B[9], C[9], T[9], A1[9], B1[9], C1[9], Y1[9], Y2[9], Y3[9];
        const double px = p[l], py = p[L + l], pz = p[2 * L + l];
        UNROLL9 for (int k = 0; k < 9; k++) {
            const int r = k / 3, c = k % 3;
            Rl[k] = R[k * L + l];
            A[k] = Y[SYM[r][c] * L + l];
            B[k] = Y[SYM[r][3 + c] * L + l];
            C[k] = Y[SYM[3 + r][3 + c] * L + l];
        }
        /* A1 = R A R^T, B1 = R B R^T, C1 = R C R^T */
#define ROTATE(M, OUT)                                                                         \
        UNROLL9 for (int k = 0; k < 9; k++) {                                                  \
            const int r = k / 3, c = k % 3;                                                    \
            T[k] = Rl[3 * r] * M[c] + Rl[3 * r + 1] * M[3 + c] + Rl[3 * r + 2] * M[6 + c];     \
        }                                                                                      \
        UNROLL9 for (int k = 0; k < 9; k++) {                                                  \
            const int r = k / 3, c = k % 3;                                                    \
            OUT[k] = T[3 * r] * Rl[3 * c] + T[3 * r + 1] * Rl[3 * c + 1] + T[3 * r + 2] * Rl[3 * c + 2]; \
        }
        ROTATE(A, A1)
        ROTATE(B, B1)
        ROTATE(C, C1)
#undef ROTATE
        /* Y1 = [p] C1 (column c: p x C1[:, c]); Y2 = B1 [p]; Y3 = Y1 [p] = [p] C1 [p] */
        UNROLL3 for (int c = 0; c < 3; c++) {
            Y1[c] = py * C1[6 + c] - pz * C1[3 + c];
            Y1[3 + c] = pz * C1[c] - px * C1[6 + c];
            Y1[6 + c] = px * C1[3 + c] - py * C1[c];
        }
        UNROLL3 for (int r = 0; r < 3; r++) {
            Y2[3 * r] = B1[3 * r + 1] * pz - B1[3 * r + 2] * py;
            Y2[3 * r + 1] = B1[3 * r + 2] * px - B1[3 * r] * pz;
            Y2[3 * r + 2] = B1[3 * r] * py - B1[3 * r + 1] * px;
            Y3[3 * r] = Y1[3 * r + 1] * pz - Y1[3 * r + 2] * py;
            Y3[3 * r + 1] = Y1[3 * r + 2] * px - Y1[3 * r] * pz;
            Y3[3 * r + 2] = Y1[3 * r] * py - Y1[3 * r + 1] * px;
        }
        UNROLL9 for (int k = 0; k < 9; k++) {
            const int r = k / 3, c = k % 3;
            if (c >= r) {
                X[SYM[r][c] * L + l] += A1[k] - Y2[k] - Y2[3 * c + r] - Y3[k];
                X[SYM[3 + r][3 + c] * L + l] += C1[k];
            }
            X[SYM[r][3 + c] * L + l] += B1[k] + Y1[k];
        }
    }
}

RD_INLINE void aba_velocities(int L, double m, const double *h, const double *Io,
                               const double *R, const double *p, const double *Vl,
                               const double *jw, const double *jv, double *RESTRICT V,
                               double *RESTRICT c, double *RESTRICT pA)
{
    /* pass 1 of body i, one lane loop, with (R, p) = T_{lambda,i} and [jw; jv] = S_i qd_i:
     *   V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i = [R^T w_l; R^T (v_l + w_l x p)] + S qd
     *   c_i = ad_{V_i} S_i qd_i = [w x jw; w x jv + v x jw]          (MR eq. 8.50)
     *   pA_i = -ad_{V_i}^T G_i V_i = [w x k + v x f; w x f], [k; f] = G_i V_i  (MR eq. 8.53
     *   with dV = 0; G V = [I_o w + h x v; m v - h x w]) */
    LANE {
        const double lw[3] = {Vl[l], Vl[L + l], Vl[2 * L + l]};
        const double px = p[l], py = p[L + l], pz = p[2 * L + l];
        const double t[3] = {Vl[3 * L + l] + lw[1] * pz - lw[2] * py,
                             Vl[4 * L + l] + lw[2] * px - lw[0] * pz,
                             Vl[5 * L + l] + lw[0] * py - lw[1] * px};
        double w[3], u[3], a[3], b[3];
        UNROLL3 for (int r = 0; r < 3; r++) {
            const double r0 = R[r * L + l], r1 = R[(3 + r) * L + l], r2 = R[(6 + r) * L + l];
            a[r] = jw[r * L + l], b[r] = jv[r * L + l];
            w[r] = r0 * lw[0] + r1 * lw[1] + r2 * lw[2] + a[r];
            u[r] = r0 * t[0] + r1 * t[1] + r2 * t[2] + b[r];
        }
        UNROLL3 for (int r = 0; r < 3; r++)
            V[r * L + l] = w[r], V[(3 + r) * L + l] = u[r];
        /* c = [w x a; w x b + u x a] */
        c[l] = w[1] * a[2] - w[2] * a[1];
        c[L + l] = w[2] * a[0] - w[0] * a[2];
        c[2 * L + l] = w[0] * a[1] - w[1] * a[0];
        c[3 * L + l] = w[1] * b[2] - w[2] * b[1] + u[1] * a[2] - u[2] * a[1];
        c[4 * L + l] = w[2] * b[0] - w[0] * b[2] + u[2] * a[0] - u[0] * a[2];
        c[5 * L + l] = w[0] * b[1] - w[1] * b[0] + u[0] * a[1] - u[1] * a[0];
        /* [k; f] = G V */
        double k[3], f[3];
        k[0] = Io[0] * w[0] + Io[1] * w[1] + Io[2] * w[2] + h[1] * u[2] - h[2] * u[1];
        k[1] = Io[3] * w[0] + Io[4] * w[1] + Io[5] * w[2] + h[2] * u[0] - h[0] * u[2];
        k[2] = Io[6] * w[0] + Io[7] * w[1] + Io[8] * w[2] + h[0] * u[1] - h[1] * u[0];
        f[0] = m * u[0] - (h[1] * w[2] - h[2] * w[1]);
        f[1] = m * u[1] - (h[2] * w[0] - h[0] * w[2]);
        f[2] = m * u[2] - (h[0] * w[1] - h[1] * w[0]);
        pA[l] = w[1] * k[2] - w[2] * k[1] + u[1] * f[2] - u[2] * f[1];
        pA[L + l] = w[2] * k[0] - w[0] * k[2] + u[2] * f[0] - u[0] * f[2];
        pA[2 * L + l] = w[0] * k[1] - w[1] * k[0] + u[0] * f[1] - u[1] * f[0];
        pA[3 * L + l] = w[1] * f[2] - w[2] * f[1];
        pA[4 * L + l] = w[2] * f[0] - w[0] * f[2];
        pA[5 * L + l] = w[0] * f[1] - w[1] * f[0];
    }
}

RD_INLINE void aba_dof_pass2(int L, const int c0, const double *ax, double armi, double rel,
                              double sub, double body, const double *tau, const double *fric,
                              double *RESTRICT Wi, double *RESTRICT Ia, double *RESTRICT pa,
                              double *RESTRICT bad)
{
    /* pass 2 of a 1-dof joint, S_i = [axis; 0] (c0 = 0, revolute) or [0; axis] (c0 = 3),
     * one lane loop whose temporaries stay in registers:
     *   U_i = IA_i S_i, D_i = S_i^T U_i + armature, u_i = tau_i - S_i^T pA_i - friction,
     *   Ia = IA_i - U_i D_i^-1 U_i^T, pa = pA_i + Ia c_i + U_i D_i^-1 u_i
     * D_i is zero (bad) at most rel times its scale: the subtree's packed scale sub (BF_SR
     * or BF_ST), IA_i's block trace (/2 rotational, /3 translational) and the armature */
    const double wtr = c0 == 0 ? 0.5 : 1.0 / 3.0;
    const double *IA = Wi + A_IA * L, *pA = Wi + A_PA * L, *c = Wi + A_C * L;
    double *U = Wi + A_U * L, *Dinv = Wi + A_DINV * L, *u = Wi + A_UU * L;
    LANE {
        double T[21], Ul[6];
        UNROLL21 for (int k = 0; k < 21; k++)
            T[k] = IA[k * L + l];
        UNROLL6 for (int r = 0; r < 6; r++)
            Ul[r] = T[SYM[r][c0]] * ax[0] + T[SYM[r][c0 + 1]] * ax[1] + T[SYM[r][c0 + 2]] * ax[2];
        const double D = ax[0] * Ul[c0] + ax[1] * Ul[c0 + 1] + ax[2] * Ul[c0 + 2] + armi;
        const double scale = sub + armi
                             + wtr * (T[SYM[c0][c0]] + T[SYM[c0 + 1][c0 + 1]] + T[SYM[c0 + 2][c0 + 2]]);
        bad[l] = (D > rel * scale || bad[l] != 0.0) ? bad[l] : body; /* the leafmost */
        const double di = 1.0 / D;
        const double uu = tau[l] - ax[0] * pA[c0 * L + l] - ax[1] * pA[(c0 + 1) * L + l]
                          - ax[2] * pA[(c0 + 2) * L + l] - fric[l];
        UNROLL6 for (int r = 0; r < 6; r++)
            U[r * L + l] = Ul[r];
        Dinv[l] = di;
        u[l] = uu;
        UNROLL6 for (int r = 0; r < 6; r++)
            UNROLL6 for (int k = r; k < 6; k++)
                T[SYM[r][k]] -= Ul[r] * Ul[k] * di;
        const double g = uu * di;
        double cl[6];
        UNROLL6 for (int k = 0; k < 6; k++)
            cl[k] = c[k * L + l];
        UNROLL6 for (int r = 0; r < 6; r++) {
            double acc = pA[r * L + l] + Ul[r] * g;
            UNROLL6 for (int k = 0; k < 6; k++)
                acc += T[SYM[r][k]] * cl[k];
            pa[r * L + l] = acc;
        }
        UNROLL21 for (int k = 0; k < 21; k++)
            Ia[k * L + l] = T[k];
    }
}

RD_INLINE void aba_dof_pass3(int L, const int c0, const double *ax, double *RESTRICT Wi,
                              const double *dVl, double *RESTRICT qdd)
{
    /* pass 3 of a 1-dof joint, one lane loop: a' = Ad_{T_{i,lambda}} dV_lambda + c_i =
     * [R^T w_l; R^T (v_l + w_l x p)] + c_i, qdd_i = D_i^-1 (u_i - U_i^T a'),
     * dV_i = a' + S_i qdd_i */
    const double *R = Wi + A_R * L, *p = Wi + A_P * L, *c = Wi + A_C * L, *U = Wi + A_U * L;
    double *dV = Wi + A_V * L;
    LANE {
        const double wx = dVl[l], wy = dVl[L + l], wz = dVl[2 * L + l];
        const double px = p[l], py = p[L + l], pz = p[2 * L + l];
        const double t[3] = {dVl[3 * L + l] + wy * pz - wz * py,
                             dVl[4 * L + l] + wz * px - wx * pz,
                             dVl[5 * L + l] + wx * py - wy * px};
        double ap[6];
        UNROLL3 for (int r = 0; r < 3; r++) {
            const double r0 = R[r * L + l], r1 = R[(3 + r) * L + l], r2 = R[(6 + r) * L + l];
            ap[r] = r0 * wx + r1 * wy + r2 * wz + c[r * L + l];
            ap[3 + r] = r0 * t[0] + r1 * t[1] + r2 * t[2] + c[(3 + r) * L + l];
        }
        double x = Wi[A_UU * L + l];
        UNROLL6 for (int r = 0; r < 6; r++)
            x -= U[r * L + l] * ap[r];
        x *= Wi[A_DINV * L + l];
        qdd[l] = x;
        ap[c0] += ax[0] * x;
        ap[c0 + 1] += ax[1] * x;
        ap[c0 + 2] += ax[2] * x;
        UNROLL6 for (int r = 0; r < 6; r++)
            dV[r * L + l] = ap[r];
    }
}

/* entry (k, r) of S_i for lane l: constant (ls = 0: S[6 k + r]) or laned (ls = 1) */
#define S_KR(k, r) S[(6 * (k) + (r)) * (ls ? L : 1) + (ls ? l : 0)]

RD_INLINE void aba_multi_pass2(int L, int64_t n, const double *S, int ls, const double *arm,
                                double rel, const double *sub, double body, const double *tau,
                                const double *fric, double *RESTRICT Wi, double *RESTRICT Ia,
                                double *RESTRICT pa, double *RESTRICT bad)
{
    /* pass 2 of a joint with n <= 3 columns S (6 each, body coordinates; constant for the
     * spherical, planar, helical and cylindrical joints, laned for a universal one), per
     * lane:
     *   U_i = IA_i S_i (6 x n), D_i = S_i^T U_i + diag(armature) (n x n, Cholesky),
     *   u_i = tau_i - S_i^T pA_i - friction, Ia = IA_i - U_i D_i^-1 U_i^T,
     *   pa = pA_i + Ia c_i + U_i D_i^-1 u_i
     * U_i is kept at A_LF (18), D_i^-1 at A_LF + 18 (9), u_i at A_U (3) for pass 3.
     * Column j's pivot is zero (bad) at most rel times its scale: |w_j|^2 (sub[0] +
     * tr(IA_rr) / 2) + |v_j|^2 (sub[1] + tr(IA_tt) / 3) + armature, S_j = [w_j; v_j]. */
    const double *IA = Wi + A_IA * L, *pA = Wi + A_PA * L, *c = Wi + A_C * L;
    double *Us = Wi + A_LF * L, *Ds = Wi + (A_LF + 18) * L, *us = Wi + A_U * L;
    for (int l = 0; l < L; l++) {
        double T[21], U[3][6], D[3][3], Lc[3][3], Di[3][3], u[3], g[3];
        for (int k = 0; k < 21; k++)
            T[k] = IA[k * L + l];
        for (int k = 0; k < n; k++)
            for (int r = 0; r < 6; r++) {
                double acc = 0.0;
                for (int cc = 0; cc < 6; cc++)
                    acc += T[SYM[r][cc]] * S_KR(k, cc);
                U[k][r] = acc;
            }
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < n; k++) {
                double acc = j == k ? arm[k] : 0.0;
                for (int r = 0; r < 6; r++)
                    acc += S_KR(j, r) * U[k][r];
                D[j][k] = acc;
            }
            double acc = tau[j * L + l] - fric[j * L + l];
            for (int r = 0; r < 6; r++)
                acc -= S_KR(j, r) * pA[r * L + l];
            u[j] = acc;
        }
        /* D = Lc Lc^T, then D^-1 = Lc^-T Lc^-1 */
        const double sr = sub[0] + 0.5 * (T[SYM[0][0]] + T[SYM[1][1]] + T[SYM[2][2]]),
                     st = sub[1] + (T[SYM[3][3]] + T[SYM[4][4]] + T[SYM[5][5]]) / 3.0;
        for (int j = 0; j < n; j++) {
            double dj = D[j][j], w2 = 0.0, v2 = 0.0;
            for (int k = 0; k < j; k++)
                dj -= Lc[j][k] * Lc[j][k];
            for (int r = 0; r < 3; r++)
                w2 += S_KR(j, r) * S_KR(j, r), v2 += S_KR(j, 3 + r) * S_KR(j, 3 + r);
            if (!(dj > rel * (w2 * sr + v2 * st + arm[j])) && bad[l] == 0.0)
                bad[l] = body;
            dj = sqrt(fabs(dj));
            Lc[j][j] = dj;
            for (int r = j + 1; r < n; r++) {
                double sr = D[r][j];
                for (int k = 0; k < j; k++)
                    sr -= Lc[r][k] * Lc[j][k];
                Lc[r][j] = sr / dj;
            }
        }
        for (int cc = 0; cc < n; cc++) { /* column cc of D^-1: solve D x = e_cc */
            double y[3];
            for (int r = 0; r < n; r++) {
                double sr = r == cc ? 1.0 : 0.0;
                for (int k = 0; k < r; k++)
                    sr -= Lc[r][k] * y[k];
                y[r] = sr / Lc[r][r];
            }
            for (int r = (int)n - 1; r >= 0; r--) {
                double sr = y[r];
                for (int k = r + 1; k < n; k++)
                    sr -= Lc[k][r] * y[k];
                y[r] = sr / Lc[r][r];
            }
            for (int r = 0; r < n; r++)
                Di[r][cc] = y[r];
        }
        for (int j = 0; j < n; j++) {
            g[j] = 0.0;
            for (int k = 0; k < n; k++)
                g[j] += Di[j][k] * u[k];
        }
        /* Ia = IA - U D^-1 U^T */
        for (int r = 0; r < 6; r++)
            for (int cc = r; cc < 6; cc++) {
                double acc = 0.0;
                for (int j = 0; j < n; j++)
                    for (int k = 0; k < n; k++)
                        acc += U[j][r] * Di[j][k] * U[k][cc];
                T[SYM[r][cc]] -= acc;
            }
        for (int r = 0; r < 6; r++) {
            double acc = pA[r * L + l];
            for (int j = 0; j < n; j++)
                acc += U[j][r] * g[j];
            for (int k = 0; k < 6; k++)
                acc += T[SYM[r][k]] * c[k * L + l];
            pa[r * L + l] = acc;
        }
        for (int k = 0; k < 21; k++)
            Ia[k * L + l] = T[k];
        for (int j = 0; j < n; j++) {
            for (int r = 0; r < 6; r++)
                Us[(6 * j + r) * L + l] = U[j][r];
            for (int k = 0; k < n; k++)
                Ds[(3 * j + k) * L + l] = Di[j][k];
            us[j * L + l] = u[j];
        }
    }
}

RD_INLINE void aba_multi_pass3(int L, int64_t n, const double *S, int ls, const double *Wi,
                               double *dV, double *RESTRICT qdd)
{
    /* pass 3 of a joint with columns S (constant, or laned when ls), dV = a' on entry:
     * qdd_i = D_i^-1 (u_i - U_i^T a'), dV_i = a' + S_i qdd_i */
    const double *Us = Wi + A_LF * L, *Ds = Wi + (A_LF + 18) * L, *us = Wi + A_U * L;
    for (int l = 0; l < L; l++) {
        double x[3], y[3];
        for (int j = 0; j < n; j++) {
            double acc = us[j * L + l];
            for (int r = 0; r < 6; r++)
                acc -= Us[(6 * j + r) * L + l] * dV[r * L + l];
            x[j] = acc;
        }
        for (int j = 0; j < n; j++) {
            y[j] = 0.0;
            for (int k = 0; k < n; k++)
                y[j] += Ds[(3 * j + k) * L + l] * x[k];
            qdd[j * L + l] = y[j];
        }
        for (int r = 0; r < 6; r++) {
            double acc = 0.0;
            for (int j = 0; j < n; j++)
                acc += S_KR(j, r) * y[j];
            dV[r * L + l] += acc;
        }
    }
}

RD_INLINE void universal_columns(int L, const double *Fi, const double *q0, double *S)
{
    /* the laned columns [u; 0], [a2; 0] of a universal joint (q0: its coordinates) */
    double s2[LANES], c2[LANES];
    universal_u(L, Fi, q0, S, s2, c2);
    for (int r = 0; r < 3; r++)
        LANE {
            S[(3 + r) * L + l] = S[(9 + r) * L + l] = 0.0;
            S[(6 + r) * L + l] = Fi[BF_S + r];
        }
}

RD_INLINE int aba_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT qdd,
                        double *RESTRICT W, int *lane)
{
    const int64_t nb = md->nb, nv = md->nv;
    const long flags = a->flags;
    const double *q = a->x[0], *v = a->x[1], *tau = a->x[2];
    const double *fext = (flags & FL_FEXT) ? a->fext : NULL;
    const double *d0 = dof_params(md), rel = md->F[3];
    const int fr = (flags & FL_FRICTION) != 0, arm = (flags & FL_ARMATURE) != 0;
    double bad[LANES]; /* the body whose pivot failed, per lane (0: none) */
    LANE { bad[l] = 0.0; }
    for (int k = 0; k < A_C * L; k++) /* the world: V_0 = 0 */
        W[k] = 0.0;
    /* ---- pass 1, i = 1..n: V_i, c_i, IA_i = G_i, pA_i */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + WA * i * L;
        const double *Wl = W + WA * Ii[BI_PARENT] * L;
        double *R = Wi + A_R * L, *p = Wi + A_P * L, *w = Wi + A_V * L;
        double jw[3 * LANES], jv[3 * LANES];
        joint_pose(L, Ii, Fi, q, R, p);
        joint_rate(L, Ii, Fi, q, v, jw, jv);
        /* IA_i = G_i = [[I_o, [h]], [[h]^T, m 1]] */
        const double m = Fi[BF_MASS], *h = Fi + BF_H;
        const double G[21] = {
            Fi[BF_IO], Fi[BF_IO + 1], Fi[BF_IO + 2], 0.0, -h[2], h[1],
            Fi[BF_IO + 4], Fi[BF_IO + 5], h[2], 0.0, -h[0],
            Fi[BF_IO + 8], -h[1], h[0], 0.0,
            m, 0.0, 0.0, m, 0.0, m,
        };
        for (int k = 0; k < 21; k++)
            LANE { Wi[(A_IA + k) * L + l] = G[k]; }
        aba_velocities(L, m, h, Fi + BF_IO, R, p, Wl + A_V * L, jw, jv, w, Wi + A_C * L,
                       Wi + A_PA * L);
        if (joint_bias(L, Ii, Fi, q, v, jw)) /* c_i += dS_i/dt qd_i (a universal joint) */
            for (int k = 0; k < 3 * L; k++)
                Wi[A_C * L + k] += jw[k];
        double *pm = Wi + A_PA * L;
        if (fext)
            for (int k = 0; k < 6 * L; k++)
                pm[k] -= fext[6 * i * L + k];
    }
    /* ---- pass 2, i = n..1: articulated inertias and bias wrenches */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + WA * i * L;
        const int64_t lam = Ii[BI_PARENT], jt = Ii[BI_TYPE], va = Ii[BI_VIDX];
        const double *IA = Wi + A_IA * L, *pA = Wi + A_PA * L, *c = Wi + A_C * L;
        double Ia[21 * LANES], pa[6 * LANES];
        if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
            double fric[LANES];
            joint_friction(L, d0, nv, va, fr ? v : NULL, a->eps, fric);
            const double armi = arm ? d0[2 * nv + va] : 0.0;
            if (jt == J_REVOLUTE)
                aba_dof_pass2(L, 0, Fi + BF_AXIS, armi, rel, Fi[BF_SR], (double)i, tau + va * L,
                              fric, Wi, Ia, pa, bad);
            else
                aba_dof_pass2(L, 3, Fi + BF_AXIS, armi, rel, Fi[BF_ST], (double)i, tau + va * L,
                              fric, Wi, Ia, pa, bad);
            if (lam <= 0)
                continue;
        }
        else if (jt == J_FREE) {
            /* U = IA, D = IA + diag(armature) = Lf Lf^T, u = tau - pA - friction */
            double *Lf = Wi + A_LF * L, *u = Wi + A_UF * L;
            for (int k = 0; k < 21 * L; k++)
                Lf[k] = IA[k];
            for (int r = 0; r < 6; r++) {
                double fric[LANES] = {0.0};
                if (fr)
                    joint_friction(L, d0, nv, va + r, v, a->eps, fric);
                LANE {
                    if (arm)
                        Lf[SYM[r][r] * L + l] += d0[2 * nv + va + r];
                    const double uu = tau[(va + r) * L + l] - pA[r * L + l];
                    u[r * L + l] = uu - fric[l];
                }
            }
            /* Cholesky in place, column by column (the factor's (r, j) at SYM[j][r]); pivot
             * j is zero at most rel times its scale: the subtree's (BF_SR, rotations; BF_ST,
             * translations), IA's block trace and the armature */
            double scale[6 * LANES];
            LANE {
                const double sr = Fi[BF_SR] + 0.5 * (IA[SYM[0][0] * L + l] + IA[SYM[1][1] * L + l]
                                                     + IA[SYM[2][2] * L + l]),
                             st = Fi[BF_ST] + (IA[SYM[3][3] * L + l] + IA[SYM[4][4] * L + l]
                                               + IA[SYM[5][5] * L + l]) / 3.0;
                for (int r = 0; r < 6; r++)
                    scale[r * L + l] = (r < 3 ? sr : st) + (arm ? d0[2 * nv + va + r] : 0.0);
            }
            for (int j = 0; j < 6; j++)
                LANE {
                    double dj = Lf[SYM[j][j] * L + l];
                    for (int k = 0; k < j; k++)
                        dj -= Lf[SYM[k][j] * L + l] * Lf[SYM[k][j] * L + l];
                    bad[l] = (dj > rel * scale[j * L + l] || bad[l] != 0.0) ? bad[l] : (double)i;
                    dj = sqrt(fabs(dj));
                    Lf[SYM[j][j] * L + l] = dj;
                    for (int r = j + 1; r < 6; r++) {
                        double s = Lf[SYM[j][r] * L + l];
                        for (int k = 0; k < j; k++)
                            s -= Lf[SYM[k][r] * L + l] * Lf[SYM[k][j] * L + l];
                        Lf[SYM[j][r] * L + l] = s / dj;
                    }
                }
            if (lam <= 0)
                continue;
            /* Ia = IA - IA D^-1 IA;  pa = pA + Ia c + IA D^-1 u */
            double Z[36 * LANES], y[6 * LANES], t[6 * LANES];
            for (int cc = 0; cc < 6; cc++) { /* column cc of Z = D^-1 IA */
                for (int r = 0; r < 6; r++)
                    LANE { Z[(6 * cc + r) * L + l] = IA[SYM[r][cc] * L + l]; }
                chol6_solve(L, Lf, Z + 6 * cc * L);
            }
            for (int r = 0; r < 6; r++)
                for (int cc = r; cc < 6; cc++)
                    LANE {
                        double acc = IA[SYM[r][cc] * L + l];
                        for (int k = 0; k < 6; k++)
                            acc -= IA[SYM[r][k] * L + l] * Z[(6 * cc + k) * L + l];
                        Ia[SYM[r][cc] * L + l] = acc;
                    }
            for (int k = 0; k < 6 * L; k++)
                y[k] = u[k];
            chol6_solve(L, Lf, y);
            sym_times(L, Ia, c, pa);
            sym_times(L, IA, y, t);
            for (int k = 0; k < 6 * L; k++)
                pa[k] += pA[k] + t[k];
        }
        else if (jt >= J_SPHERICAL) {
            const int64_t n = Ii[BI_NV];
            double fric[3 * LANES] = {0.0}, armk[3] = {0.0, 0.0, 0.0};
            for (int k = 0; k < n; k++) {
                if (fr)
                    joint_friction(L, d0, nv, va + k, v, a->eps, fric + k * L);
                if (arm)
                    armk[k] = d0[2 * nv + va + k];
            }
            if (jt == J_UNIVERSAL) {
                double S[12 * LANES];
                universal_columns(L, Fi, q + Ii[BI_QIDX] * L, S);
                aba_multi_pass2(L, n, S, 1, armk, rel, Fi + BF_SR, (double)i, tau + va * L, fric,
                                Wi, Ia, pa, bad);
            }
            else
                aba_multi_pass2(L, n, Fi + BF_S, 0, armk, rel, Fi + BF_SR, (double)i, tau + va * L,
                                fric, Wi, Ia, pa, bad);
            if (lam <= 0)
                continue;
        }
        else {
            /* fixed: the whole articulated inertia and bias wrench go to the parent */
            if (lam <= 0)
                continue;
            for (int k = 0; k < 21 * L; k++)
                Ia[k] = IA[k];
            for (int k = 0; k < 6 * L; k++)
                pa[k] = pA[k];
        }
        /* IA_lambda += Ad^T Ia Ad;  pA_lambda += Ad^T pa  (Featherstone table 7.1) */
        double *Wl = W + WA * lam * L, gm[3 * LANES], gf[3 * LANES];
        add_moved(L, Wl + A_IA * L, Ia, Wi + A_R * L, Wi + A_P * L);
        wrench_to_parent(L, Wi + A_R * L, Wi + A_P * L, pa, pa + 3 * L, gm, gf);
        for (int k = 0; k < 3 * L; k++)
            Wl[A_PA * L + k] += gm[k], Wl[(A_PA + 3) * L + k] += gf[k];
    }
    for (int l = 0; l < L; l++)
        if (bad[l] != 0.0) {
            *lane = l;
            return E_PIVOT + (int)bad[l];
        }
    if (qdd == NULL) /* the articulated inertias only (minv_aba.c reads U_i, D_i^-1) */
        return 0;
    /* ---- pass 3, i = 1..n: accelerations, dV_0 = [0; -g] */
    for (int k = 0; k < 6 * L; k++)
        W[A_V * L + k] = 0.0;
    if (flags & FL_GRAVITY)
        for (int r = 0; r < 3; r++)
            LANE { W[(A_V + 3 + r) * L + l] = -md->F[r]; }
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + WA * i * L;
        const double *Wl = W + WA * Ii[BI_PARENT] * L;
        const int64_t jt = Ii[BI_TYPE], va = Ii[BI_VIDX];
        double *dV = Wi + A_V * L;
        if (jt == J_REVOLUTE)
            aba_dof_pass3(L, 0, Fi + BF_AXIS, Wi, Wl + A_V * L, qdd + va * L);
        else if (jt == J_PRISMATIC)
            aba_dof_pass3(L, 3, Fi + BF_AXIS, Wi, Wl + A_V * L, qdd + va * L);
        else {
            /* a' = Ad_{T_{i,lambda}} dV_lambda + c_i, into dV_i */
            motion_from_parent(L, Wi + A_R * L, Wi + A_P * L, Wl + A_V * L,
                               Wl + A_V * L + 3 * L, dV, dV + 3 * L);
            for (int k = 0; k < 6 * L; k++)
                dV[k] += Wi[A_C * L + k];
        }
        if (jt == J_UNIVERSAL) {
            double S[12 * LANES];
            universal_columns(L, Fi, q + Ii[BI_QIDX] * L, S);
            aba_multi_pass3(L, 2, S, 1, Wi, dV, qdd + va * L);
        }
        else if (jt >= J_SPHERICAL)
            aba_multi_pass3(L, Ii[BI_NV], Fi + BF_S, 0, Wi, dV, qdd + va * L);
        else if (jt == J_FREE) {
            /* qdd_i = D^-1 (u_i - IA_i a'), dV_i = a' + qdd_i */
            double y[6 * LANES];
            sym_times(L, Wi + A_IA * L, dV, y);
            for (int k = 0; k < 6 * L; k++)
                y[k] = Wi[A_UF * L + k] - y[k];
            chol6_solve(L, Wi + A_LF * L, y);
            for (int k = 0; k < 6 * L; k++) {
                qdd[va * L + k] = y[k];
                dV[k] += y[k];
            }
        }
    }
    return 0;
}

CLONES int rd_aba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                  double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? aba_lanes(md, 1, a, out, W, lane) : aba_lanes(md, LANES, a, out, W, lane);
}
