/*
 * Forward dynamics under k Pfaffian constraints A(q) qd = 0 (course notes 001, eqs.
 * 10.15-10.17; MR section 8.7), the equations of motion and the differentiated constraint
 *
 *   M qdd + h = tau + A^T lambda,     A qdd + dA_v = 0,     h = rnea(q, qd, 0)
 *
 * solved as one KKT system through the Schur complement S = A M^-1 A^T:
 *
 *   M = L L^T (CRBA with armature),   [qdd_0, X] = M^-1 [tau - h, A^T]
 *   lambda = S^-1 (-dA_v - A qdd_0),  S = A X = L_S L_S^T
 *   qdd = qdd_0 + X lambda
 *
 * h holds gravity, the velocity products and, by the flags, joint friction and external
 * wrenches. x[0] = q (nq), x[1] = qd (nv), x[2] = tau (nv), x[3] = A (k x nv, row-major),
 * x[4] = dA_v (k: dA/dt qd, plus any Baumgarte terms); out = [qdd (nv), lambda (k)],
 * k = a->nk (0: the unconstrained qdd by the mass-matrix road).
 *
 * S is singular when the rows of A are linearly dependent: a pivot of its Cholesky factor at
 * most 1e-12 (F[3], the rule of M's pivots) times its own diagonal entry of S is refused
 * (E_CONSTRAINT_SINGULAR), as a pivot of M is (E_CHOLESKY + dof).
 */
#include "batch.h"
#include "mfactor.h"

int64_t rd_constrained_work(const model_t *md)
{
    /* CRBA's or RNEA's workspace, then M (nv^2) and the pivots' scales (nv) */
    int64_t w = rd_crba_work(md) > rd_rnea_work(md) ? rd_crba_work(md) : rd_rnea_work(md);
    return w + md->nv * md->nv + md->nv;
}

int64_t rd_constrained_work_rows(const model_t *md, int64_t nk)
{
    /* Y = [qdd_0, X] (nv x (k + 1)), S (k x k), the right side then lambda (k) */
    return md->nv * (nk + 1) + nk * nk + nk;
}

RD_INLINE void schur_complement(int L, int64_t nv, int64_t k, const double *A, const double *Y,
                                double *S)
{
    /* S = A X, X = columns 1..k of Y (nv x (k + 1)), made exactly symmetric:
     * S_jm = 1/2 (a_j . x_m + a_m . x_j) */
    const int64_t w = k + 1;
    for (int64_t j = 0; j < k; j++)
        for (int64_t m = 0; m <= j; m++)
            LANE {
                double s = 0.0;
                for (int64_t i = 0; i < nv; i++)
                    s += A[(j * nv + i) * L + l] * Y[(i * w + 1 + m) * L + l]
                         + A[(m * nv + i) * L + l] * Y[(i * w + 1 + j) * L + l];
                S[(j * k + m) * L + l] = S[(m * k + j) * L + l] = 0.5 * s;
            }
}

RD_INLINE int constrained_lanes(const model_t *md, const int L, const args_t *a,
                                double *RESTRICT out, double *RESTRICT W, int *lane)
{
    const int64_t nv = md->nv, k = a->nk, w = k + 1;
    double *M = W + (rd_constrained_work(md) - nv * nv - nv) * L, *sc = M + nv * nv * L;
    double *Y = sc + nv * L, *S = Y + nv * w * L, *r = S + k * k * L;
    const double *tau = a->x[2], *A = a->x[3], *dA = a->x[4];
    double *qdd = out, *lam = out + nv * L, bad[LANES];
    /* h = C(q, qd) qd + g(q) - J^T F_ext + friction: inverse dynamics with qdd = 0 */
    args_t h = *a;
    h.flags = (a->flags & (FL_FRICTION | FL_FEXT | FL_GRAVITY)) | FL_VEL;
    h.x[2] = NULL;
    rd_rnea(md, L, &h, qdd, W, lane);
    /* Y = [tau - h, A^T] */
    for (int64_t i = 0; i < nv; i++) {
        LANE { Y[i * w * L + l] = tau[i * L + l] - qdd[i * L + l]; }
        for (int64_t j = 0; j < k; j++)
            LANE { Y[(i * w + 1 + j) * L + l] = A[(j * nv + i) * L + l]; }
    }
    /* M = L L^T, then [qdd_0, X] = M^-1 [tau - h, A^T], column by column (entries w L apart) */
    int e = mass_factor(md, L, a, a->flags & FL_ARMATURE, M, sc, W, lane);
    if (e)
        return e;
    for (int64_t c = 0; c < w; c++)
        cholesky_solve(L, nv, M, Y + c * L, w * L);
    /* eq. 10.17 with qdd = qdd_0 + X lambda: (A X) lambda = -dA_v - A qdd_0 */
    if (k > 0) {
        schur_complement(L, nv, k, A, Y, S);
        LANE { bad[l] = 0.0; }
        cholesky(L, k, S, md->F[3], NULL, bad);
        for (int l = 0; l < L; l++)
            if (bad[l] != 0.0) {
                *lane = l;
                return E_CONSTRAINT_SINGULAR;
            }
        for (int64_t j = 0; j < k; j++)
            LANE {
                double s = -dA[j * L + l];
                for (int64_t i = 0; i < nv; i++)
                    s -= A[(j * nv + i) * L + l] * Y[i * w * L + l];
                r[j * L + l] = s;
            }
        cholesky_solve(L, k, S, r, L);
    }
    /* eq. 10.16 solved: qdd = qdd_0 + X lambda; the multipliers after it */
    for (int64_t i = 0; i < nv; i++)
        LANE {
            double s = Y[i * w * L + l];
            for (int64_t j = 0; j < k; j++)
                s += Y[(i * w + 1 + j) * L + l] * r[j * L + l];
            qdd[i * L + l] = s;
        }
    for (int64_t j = 0; j < k * L; j++)
        lam[j] = r[j];
    return 0;
}

CLONES int rd_constrained(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                          double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? constrained_lanes(md, 1, a, out, W, lane)
                  : constrained_lanes(md, LANES, a, out, W, lane);
}
