/*
 * The mass-matrix road: M(q)^-1, and forward dynamics by a Cholesky factorisation of M
 * (the path of models with mimic joints, which ABA does not handle):
 *
 *   M = L L^T (CRBA with armature),  qdd = L^-T L^-1 (tau - h),  h = rnea(q, qd, 0)
 *
 * where h holds gravity, the velocity products, external wrenches and joint friction.
 * minv: x[0] = q; out = M^-1 (nv x nv). forward: x[0] = q, x[1] = qd, x[2] = tau; out = qdd.
 */
#include "joint.h"

int64_t rd_minv_work(const model_t *md)
{
    /* CRBA's or RNEA's workspace, then M (nv^2) and h (nv) */
    int64_t w = rd_crba_work(md) > rd_rnea_work(md) ? rd_crba_work(md) : rd_rnea_work(md);
    return w + md->nv * md->nv + md->nv;
}

RD_INLINE void cholesky(int L, int64_t n, double *A, double *bad)
{
    /* A = L L^T in place (lower triangle, laned n x n); bad[l] = k + 1 for the first dof k
     * whose pivot is not positive in lane l */
    for (int64_t j = 0; j < n; j++) {
        LANE {
            double d = A[(j * n + j) * L + l];
            for (int64_t k = 0; k < j; k++)
                d -= A[(j * n + k) * L + l] * A[(j * n + k) * L + l];
            bad[l] = (d > 0.0 || bad[l] != 0.0) ? bad[l] : (double)(j + 1);
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

RD_INLINE int first_bad(int L, const double *bad, int *lane)
{
    for (int l = 0; l < L; l++)
        if (bad[l] != 0.0) {
            *lane = l;
            return E_CHOLESKY + (int)bad[l] - 1;
        }
    return 0;
}

RD_INLINE int minv_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT out,
                         double *RESTRICT W, int *lane)
{
    /* M^-1 column by column: solve M x = e_c */
    const int64_t nv = md->nv;
    double *M = W + (rd_minv_work(md) - nv * nv - nv) * L, bad[LANES];
    args_t c = *a;
    c.flags = a->flags & FL_ARMATURE;
    c.nz = NULL; /* the Cholesky factorisation reads all of M */
    rd_crba(md, L, &c, M, W, lane);
    LANE { bad[l] = 0.0; }
    cholesky(L, nv, M, bad);
    int e = first_bad(L, bad, lane);
    if (e)
        return e;
    for (int64_t k = 0; k < nv * nv * L; k++)
        out[k] = 0.0;
    for (int64_t k = 0; k < nv; k++)
        LANE { out[(k * nv + k) * L + l] = 1.0; }
    for (int64_t k = 0; k < nv; k++) /* column k, its entries nv L apart */
        cholesky_solve(L, nv, M, out + k * L, nv * L);
    return 0;
}

RD_INLINE int forward_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT qdd,
                            double *RESTRICT W, int *lane)
{
    const int64_t nv = md->nv;
    double *M = W + (rd_minv_work(md) - nv * nv - nv) * L, bad[LANES];
    /* h = C(q, qd) qd + g(q) - J^T F_ext + friction: inverse dynamics with qdd = 0 */
    args_t r = *a;
    r.flags = (a->flags & (FL_FRICTION | FL_FEXT | FL_GRAVITY)) | FL_VEL;
    r.x[2] = NULL;
    rd_rnea(md, L, &r, qdd, W, lane);
    args_t c = *a;
    c.flags = a->flags & FL_ARMATURE;
    c.nz = NULL; /* the Cholesky factorisation reads all of M */
    rd_crba(md, L, &c, M, W, lane);
    for (int64_t k = 0; k < nv * L; k++)
        qdd[k] = a->x[2][k] - qdd[k];
    LANE { bad[l] = 0.0; }
    cholesky(L, nv, M, bad);
    int e = first_bad(L, bad, lane);
    if (e)
        return e;
    cholesky_solve(L, nv, M, qdd, L);
    return 0;
}

CLONES int rd_minv(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                   double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? minv_lanes(md, 1, a, out, W, lane) : minv_lanes(md, LANES, a, out, W, lane);
}

CLONES int rd_forward(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                      double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? forward_lanes(md, 1, a, out, W, lane) : forward_lanes(md, LANES, a, out, W, lane);
}
