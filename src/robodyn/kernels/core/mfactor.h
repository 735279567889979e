/*
 * The Cholesky factor of the mass matrix, M = L L^T, and solves with it: shared by minv.c
 * (M^-1, forward dynamics of mimic models, the task space) and constrained.c (the KKT
 * system of Pfaffian constraints). Laned like every algorithm (rd.h): entry (r, c) of an
 * n x n matrix of lane l at A[(r n + c) L + l].
 */
#ifndef RD_MFACTOR_H
#define RD_MFACTOR_H

#include "rd.h"

RD_INLINE void pivot_scales(const model_t *md, double *sc)
{
    /* sc[k]: the scale of dof k's Cholesky pivot, what its joint's subtree can put on it
     * (the packed bounds of rd.h: BF_SR for a rotation, BF_ST for a translation, |w|^2
     * BF_SR + |v|^2 BF_ST for a column S = [w; v]); a mimic joint adds mult^2 times its
     * own to its leader's dof */
    for (int64_t k = 0; k < md->nv; k++)
        sc[k] = 0.0;
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        const int64_t jt = Ii[BI_TYPE];
        const double m2 = Ii[BI_MIMIC] ? Fi[BF_MULT] * Fi[BF_MULT] : 1.0;
        for (int64_t c = 0; c < Ii[BI_NV]; c++) {
            double w2 = 1.0, v2 = 0.0; /* revolute, universal, free's first three */
            if (jt == J_PRISMATIC || (jt == J_FREE && c >= 3))
                w2 = 0.0, v2 = 1.0;
            else if (jt >= J_SPHERICAL && jt != J_UNIVERSAL) {
                const double *S = Fi + BF_S + 6 * c;
                w2 = S[0] * S[0] + S[1] * S[1] + S[2] * S[2];
                v2 = S[3] * S[3] + S[4] * S[4] + S[5] * S[5];
            }
            sc[Ii[BI_VIDX] + c] += m2 * (w2 * Fi[BF_SR] + v2 * Fi[BF_ST]);
        }
    }
}

RD_INLINE void cholesky(int L, int64_t n, double *A, double rel, const double *sc,
                       double *bad)
{
    /* A = L L^T in place (lower triangle, laned n x n); bad[l] = k + 1 for the first dof k
     * whose pivot is at most rel times its scale in lane l: its diagonal entry A_kk plus
     * sc[k] (pivot_scales; rel = 0: a pivot that is not positive). A pivot below the
     * round-off of the entries it comes from (~1e-16 of the subtree's inertia) cannot be
     * told from zero: M is singular there */
    for (int64_t j = 0; j < n; j++) {
        const double s = sc ? sc[j] : 0.0;
        LANE {
            const double a = A[(j * n + j) * L + l];
            double d = a;
            for (int64_t k = 0; k < j; k++)
                d -= A[(j * n + k) * L + l] * A[(j * n + k) * L + l];
            bad[l] = (d > rel * (a + s) || bad[l] != 0.0) ? bad[l] : (double)(j + 1);
            A[(j * n + j) * L + l] = sqrt(fabs(d));
        }
        for (int64_t r = j + 1; r < n; r++)
            LANE {
                double s = A[(r * n + j) * L + l];
                for (int64_t k = 0; k < j; k++)
                    s -= A[(r * n + k) * L + l] * A[(j * n + k) * L + l];
                A[(r * n + j) * L + l] = s / A[(j * n + j) * L + l];
            }
    }
}

RD_INLINE void cholesky_solve(int L, int64_t n, const double *A, double *x, int64_t stride)
{
    /* x <- (L L^T)^-1 x for the factor in A; x laned with entries stride apart */
    for (int64_t r = 0; r < n; r++)
        LANE {
            double s = x[r * stride + l];
            for (int64_t k = 0; k < r; k++)
                s -= A[(r * n + k) * L + l] * x[k * stride + l];
            x[r * stride + l] = s / A[(r * n + r) * L + l];
        }
    for (int64_t r = n - 1; r >= 0; r--)
        LANE {
            double s = x[r * stride + l];
            for (int64_t k = r + 1; k < n; k++)
                s -= A[(k * n + r) * L + l] * x[k * stride + l];
            x[r * stride + l] = s / A[(r * n + r) * L + l];
        }
}

RD_INLINE void cholesky_reciprocals(int L, int64_t n, const double *A, double *dinv)
{
    /* dinv (n, laned) = 1 / the pivots of the factor in A, for cholesky_solve_many */
    for (int64_t r = 0; r < n; r++)
        LANE { dinv[r * L + l] = 1.0 / A[(r * n + r) * L + l]; }
}

RD_INLINE void cholesky_solve_many(int L, int64_t n, const double *A, const double *dinv,
                                   double *X, int64_t m)
{
    /* X <- (L L^T)^-1 X for the factor in A and the laned n x m matrix X (entry (r, c) at
     * X[(r m + c) L + l]): its m columns at once, multiplying by the pivots' reciprocals
     * dinv (cholesky_reciprocals) where cholesky_solve divides */
    for (int64_t r = 0; r < n; r++) { /* forward: L y = x, row by row */
        for (int64_t k = 0; k < r; k++)
            for (int64_t c = 0; c < m; c++)
                LANE { X[(r * m + c) * L + l] -= A[(r * n + k) * L + l] * X[(k * m + c) * L + l]; }
        for (int64_t c = 0; c < m; c++)
            LANE { X[(r * m + c) * L + l] *= dinv[r * L + l]; }
    }
    for (int64_t r = n - 1; r >= 0; r--) { /* backward: L^T x = y */
        for (int64_t k = r + 1; k < n; k++)
            for (int64_t c = 0; c < m; c++)
                LANE { X[(r * m + c) * L + l] -= A[(k * n + r) * L + l] * X[(k * m + c) * L + l]; }
        for (int64_t c = 0; c < m; c++)
            LANE { X[(r * m + c) * L + l] *= dinv[r * L + l]; }
    }
}

RD_INLINE int first_bad(int L, const double *bad, int *lane)
{
    for (int l = 0; l < L; l++)
        if (bad[l] != 0.0) {
            *lane = l;
            return E_CHOLESKY + (int)bad[l] - 1;
        }
    return 0;
}

RD_INLINE int mass_factor(const model_t *md, const int L, const args_t *a, long flags, double *M,
                          double *sc, double *W, int *lane)
{
    /* M = L L^T in place: CRBA (flags: FL_ARMATURE or 0) and the Cholesky factor with the
     * pivot rule of rd.h (sc: room for the pivots' scales); 0 or E_CHOLESKY + dof */
    double bad[LANES];
    args_t c = *a;
    c.flags = flags;
    c.nz = NULL; /* the Cholesky factorisation reads all of M */
    rd_crba(md, L, &c, M, W, lane);
    LANE { bad[l] = 0.0; }
    pivot_scales(md, sc);
    cholesky(L, md->nv, M, md->F[3], sc, bad);
    return first_bad(L, bad, lane);
}

#endif
