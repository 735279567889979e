/*
 * The mass-matrix road: M(q)^-1, and forward dynamics by a Cholesky factorisation of M
 * (the path of models with mimic joints, which ABA does not handle):
 *
 *   M = L L^T (CRBA with armature),  qdd = L^-T L^-1 (tau - h),  h = rnea(q, qd, 0)
 *
 * where h holds gravity, the velocity products, external wrenches and joint friction.
 * M^-1 takes the articulated-body recursion instead (minv_aba.c, O(n^2)) when rd.h's
 * minv_by_aba says so: as the flags ask, else from MINV_ABA_NV dofs on, where robodyn
 * bench measured it the faster (the factor's O(n^3) solve is cheaper below: at 6 and 7
 * dofs the recursion takes 1.5x its time, at 18 1.2x one state and 1.0x a batch; on
 * Talos, 50 dofs, 0.45x and 0.3x).
 * minv: x[0] = q; out = M^-1 (nv x nv). forward: x[0] = q, x[1] = qd, x[2] = tau; out = qdd.
 */
#include "batch.h"
#include "mfactor.h"

#include <stdlib.h>

/* M^-1 by the articulated-body recursion from this many dofs on (the measurement above) */
enum { MINV_ABA_NV = 24 };

int64_t rd_minv_work(const model_t *md)
{
    /* CRBA's or RNEA's workspace, then M (nv^2) and h (nv), then the pivots' scales (nv,
     * the same in every lane); or the recursion's, if larger */
    int64_t w = rd_crba_work(md) > rd_rnea_work(md) ? rd_crba_work(md) : rd_rnea_work(md);
    w += md->nv * md->nv + 2 * md->nv;
    return w > rd_minv_aba_work(md) ? w : rd_minv_aba_work(md);
}

RD_INLINE int minv_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT out,
                         double *RESTRICT W, int *lane)
{
    /* the recursion, or M^-1 = M^-1 1: the nv columns solved at once, by the pivots'
     * reciprocals (in h's room, which M^-1 does not use) */
    const int64_t nv = md->nv;
    if (minv_by_aba(md, a->flags, MINV_ABA_NV))
        return rd_minv_aba(md, L, a, out, W, lane);
    double *M = W + (rd_minv_work(md) - nv * nv - 2 * nv) * L;
    double *dinv = M + nv * nv * L, *sc = W + (rd_minv_work(md) - nv) * L;
    int e = mass_factor(md, L, a, a->flags & FL_ARMATURE, M, sc, W, lane);
    if (e)
        return e;
    for (int64_t k = 0; k < nv * nv * L; k++)
        out[k] = 0.0;
    for (int64_t k = 0; k < nv; k++)
        LANE { out[(k * nv + k) * L + l] = 1.0; }
    cholesky_reciprocals(L, nv, M, dinv);
    cholesky_solve_many(L, nv, M, dinv, out, nv);
    return 0;
}

RD_INLINE int forward_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT qdd,
                            double *RESTRICT W, int *lane)
{
    const int64_t nv = md->nv;
    double *M = W + (rd_minv_work(md) - nv * nv - 2 * nv) * L;
    double *sc = W + (rd_minv_work(md) - nv) * L;
    /* h = C(q, qd) qd + g(q) - J^T F_ext + friction: inverse dynamics with qdd = 0 */
    args_t r = *a;
    r.flags = (a->flags & (FL_FRICTION | FL_FEXT | FL_GRAVITY)) | FL_VEL;
    r.x[2] = NULL;
    rd_rnea(md, L, &r, qdd, W, lane);
    for (int64_t k = 0; k < nv * L; k++)
        qdd[k] = a->x[2][k] - qdd[k];
    int e = mass_factor(md, L, a, a->flags & FL_ARMATURE, M, sc, W, lane);
    if (e)
        return e;
    cholesky_solve(L, nv, M, qdd, L);
    return 0;
}

/* ---------------------------------------------------------------- task space */
int64_t rd_task_space_work(const model_t *md)
{
    /* CRBA's or the Jacobian's workspace, then M (nv^2), the pivots' scales (nv), the
     * Jacobian (6 nv), X = M^-1 J^T (6 nv), Phi and Lambda (36 each) */
    const int64_t w = rd_crba_work(md) > rd_kin_work(md) ? rd_crba_work(md) : rd_kin_work(md);
    return w + md->nv * md->nv + 13 * md->nv + 72;
}

RD_INLINE int task_space_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT out,
                               double *RESTRICT W, int *lane, int jbar)
{
    /* out = Lambda (k x k, in the first k^2 of 36 entries), or with jbar Jbar (nv x k, in
     * the first nv k of 6 nv), for the k rows of the Jacobian of a->frame (kind a->kind)
     * picked by the bits of a->rows (0: all six) (Khatib's operational-space inertia, MR
     * eq. 8.88):
     *   M = L_M L_M^T (CRBA with armature), X = M^-1 J^T (two triangular solves per row),
     *   Phi = J X (the inverse task-space inertia), Lambda = Phi^-1 (by Phi's Cholesky
     *   factor), Jbar = X Lambda (the dynamically consistent inverse, J Jbar = 1) */
    const int64_t nv = md->nv;
    double *M = W + (rd_task_space_work(md) - nv * nv - 13 * nv - 72) * L;
    double *sc = M + nv * nv * L, *J = sc + nv * L, *X = J + 6 * nv * L, *Phi = X + 6 * nv * L;
    double *Lam = Phi + 36 * L, bad[LANES];
    int rows[6], k = 0;
    for (int r = 0; r < 6; r++)
        if (a->rows == 0 || (a->rows & (1u << r)))
            rows[k++] = r;
    int e = mass_factor(md, L, a, FL_ARMATURE, M, sc, W, lane); /* M as mass_matrix gives it */
    if (e)
        return e;
    args_t c = *a;
    c.nz = NULL; /* all of J is read */
    rd_jacobian(md, L, &c, J, W, lane);
    /* X = M^-1 J^T, column j = M^-1 (row rows[j] of J)^T; entries (i, j) at (i k + j) L */
    for (int j = 0; j < k; j++) {
        for (int64_t i = 0; i < nv; i++)
            LANE { X[(i * k + j) * L + l] = J[(rows[j] * nv + i) * L + l]; }
        cholesky_solve(L, nv, M, X + j * L, k * L);
    }
    /* Phi = J X, made exactly symmetric: 1/2 (Phi + Phi^T) */
    for (int r = 0; r < k; r++)
        for (int s = 0; s < k; s++)
            LANE {
                double t = 0.0;
                for (int64_t i = 0; i < nv; i++)
                    t += J[(rows[r] * nv + i) * L + l] * X[(i * k + s) * L + l];
                Phi[(r * k + s) * L + l] = t;
            }
    for (int r = 0; r < k; r++)
        for (int s = r + 1; s < k; s++)
            LANE {
                const double t = 0.5 * (Phi[(r * k + s) * L + l] + Phi[(s * k + r) * L + l]);
                Phi[(r * k + s) * L + l] = Phi[(s * k + r) * L + l] = t;
            }
    /* Phi = L_P L_P^T; a pivot at most 1e-12 of its diagonal entry: Phi is singular (a
     * kinematic singularity, or rows of J that are not independent) */
    LANE { bad[l] = 0.0; }
    cholesky(L, k, Phi, md->F[3], NULL, bad);
    for (int l = 0; l < L; l++)
        if (bad[l] != 0.0) {
            *lane = l;
            return E_TASK_SINGULAR;
        }
    /* Lambda = Phi^-1, column by column, made exactly symmetric */
    for (int r = 0; r < k * k; r++)
        LANE { Lam[r * L + l] = 0.0; }
    for (int r = 0; r < k; r++)
        LANE { Lam[(r * k + r) * L + l] = 1.0; }
    for (int s = 0; s < k; s++)
        cholesky_solve(L, k, Phi, Lam + s * L, k * L);
    for (int r = 0; r < k; r++) /* Lambda made exactly symmetric */
        for (int s = r + 1; s < k; s++)
            LANE {
                const double t = 0.5 * (Lam[(r * k + s) * L + l] + Lam[(s * k + r) * L + l]);
                Lam[(r * k + s) * L + l] = Lam[(s * k + r) * L + l] = t;
            }
    if (!jbar) {
        for (int r = 0; r < 36; r++)
            LANE { out[r * L + l] = r < k * k ? Lam[r * L + l] : 0.0; }
        return 0;
    }
    for (int64_t r = nv * k; r < 6 * nv; r++)
        LANE { out[r * L + l] = 0.0; }
    for (int64_t i = 0; i < nv; i++) /* Jbar = X Lambda */
        for (int s = 0; s < k; s++)
            LANE {
                double t = 0.0;
                for (int r = 0; r < k; r++)
                    t += X[(i * k + r) * L + l] * Lam[(r * k + s) * L + l];
                out[(i * k + s) * L + l] = t;
            }
    return 0;
}

CLONES int rd_task_lambda(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                          double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? task_space_lanes(md, 1, a, out, W, lane, 0)
                  : task_space_lanes(md, LANES, a, out, W, lane, 0);
}

CLONES int rd_task_jbar(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                        double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? task_space_lanes(md, 1, a, out, W, lane, 1)
                  : task_space_lanes(md, LANES, a, out, W, lane, 1);
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

static double unit(int64_t n, double *x)
{
    /* x <- x / |x|; |x| */
    double s = 0.0;
    for (int64_t k = 0; k < n; k++)
        s += x[k] * x[k];
    s = sqrt(s);
    for (int64_t k = 0; k < n; k++)
        x[k] /= s;
    return s;
}

static double rayleigh(int64_t n, const double *M, const double *x, double *y)
{
    /* y = M x; x^T M x for a unit x */
    double r = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t k = 0; k < n; k++)
            s += M[i * n + k] * x[k];
        y[i] = s;
        r += x[i] * s;
    }
    return r;
}

double rd_mass_cond(const model_t *md, const double *q, long flags)
{
    /* The condition number of M(q) (with armature when flags has FL_ARMATURE), for the
     * message of a refused pivot: a lower bound rq_max / rq_min from Rayleigh quotients
     * (rq_max <= lambda_max by power iteration on M, rq_min >= lambda_min by inverse
     * iteration with its Cholesky factor), tight after the 40 iterations when lambda_min
     * is well apart, as it is for a nearly singular M; inf when the factorisation meets a
     * pivot <= 0 (M not positive definite to working precision) */
    const int64_t nv = md->nv, n2 = nv * nv;
    if (nv < 1 || nv > 2000)
        return NAN;
    double *W = malloc(sizeof(double) * (size_t)(rd_crba_work(md) + 2 * n2 + 2 * nv));
    if (!W)
        return NAN;
    double *M = W + rd_crba_work(md), *Fc = M + n2, *x = Fc + n2, *y = x + nv;
    args_t c = {{q, NULL, NULL, NULL}, NULL, flags & FL_ARMATURE, 0.0, 0, 0, NULL, NULL, 0};
    int lane;
    rd_crba(md, 1, &c, M, W, &lane);
    double bad = 0.0, cond = INFINITY;
    memcpy(Fc, M, sizeof(double) * (size_t)n2);
    cholesky(1, nv, Fc, 0.0, NULL, &bad);
    if (bad == 0.0) {
        double rmax = 0.0, rmin = 0.0;
        for (int64_t k = 0; k < nv; k++)
            x[k] = 1.0 + 0.01 * (double)k; /* not orthogonal to an eigenvector, in practice */
        unit(nv, x);
        for (int it = 0; it < 40; it++) { /* power iteration */
            rmax = rayleigh(nv, M, x, y);
            memcpy(x, y, sizeof(double) * (size_t)nv);
            unit(nv, x);
        }
        rmax = rmax > rayleigh(nv, M, x, y) ? rmax : rayleigh(nv, M, x, y);
        for (int64_t k = 0; k < nv; k++)
            x[k] = 1.0 - 0.01 * (double)k;
        unit(nv, x);
        for (int it = 0; it < 40; it++) { /* inverse iteration: x <- M^-1 x */
            cholesky_solve(1, nv, Fc, x, 1);
            unit(nv, x);
        }
        rmin = rayleigh(nv, M, x, y);
        cond = rmin > 0.0 ? rmax / rmin : INFINITY;
    }
    free(W);
    return cond;
}
