/*
 * The partial derivatives of forward dynamics qdd = FD(q, qd, tau), from those of inverse
 * dynamics by the implicit function theorem (ID(q, qd, FD(q, qd, tau)) = tau):
 *
 *   qdd = FD(q, qd, tau)                      ABA (Featherstone 7.1); the Cholesky road
 *                                             of minv.c for a model with mimic joints
 *   [dtau/dq, dtau/dqd, M] = ID derivatives at (q, qd, qdd)      (rnea_derivatives.c)
 *   dqdd/dq = -M^-1 dtau/dq,  dqdd/dqd = -M^-1 dtau/dqd,  dqdd/dtau = M^-1
 *
 * (Carpentier and Mansard, RSS 2018, sec. IV: the same route), M^-1 through M's Cholesky
 * factor with the pivot rule of rd.h. q is differentiated in the tangent space, as the
 * inverse dynamics derivatives are; friction, armature and external wrenches enter both
 * FD and its derivatives by the flags. x[0] = q (nq), x[1] = qd (nv), x[2] = tau (nv);
 * out = [dqdd/dq, dqdd/dqd, dqdd/dtau] (3 nv x nv, row-major each).
 */
#include "batch.h"
#include "mfactor.h"

int64_t rd_aba_derivatives_work(const model_t *md)
{
    /* the largest of ABA's, the Cholesky road's and the derivatives' workspaces (and of the
     * solve's right sides, 3 nv^2, which reuse it), then the inverse dynamics derivatives
     * (3 nv^2), qdd (nv) and the pivots' scales (nv) */
    int64_t w = 3 * md->nv * md->nv;
    if (rd_aba_work(md) > w)
        w = rd_aba_work(md);
    if (rd_minv_work(md) > w)
        w = rd_minv_work(md);
    if (rd_rnea_derivatives_work(md) > w)
        w = rd_rnea_derivatives_work(md);
    return w + 3 * md->nv * md->nv + 2 * md->nv;
}

RD_INLINE int aba_derivatives_lanes(const model_t *md, const int L, const args_t *a,
                                    double *RESTRICT out, double *RESTRICT W, int *lane)
{
    const int64_t nv = md->nv, n2 = nv * nv;
    double *D = W + (rd_aba_derivatives_work(md) - 3 * n2 - 2 * nv) * L;
    double *qdd = D + 3 * n2 * L, *sc = qdd + nv * L, bad[LANES];
    /* qdd = FD(q, qd, tau) (ABA, measured faster here than M's factor and a solve; a
     * mimic joint couples bodies that ABA cannot: the Cholesky road) */
    int e = md->I[3] ? rd_forward(md, L, a, qdd, W, lane) : rd_aba(md, L, a, qdd, W, lane);
    if (e)
        return e;
    /* [dtau/dq, dtau/dqd, M] at (q, qd, qdd), then M = L L^T in place */
    args_t id = *a;
    id.x[2] = qdd;
    rd_rnea_derivatives(md, L, &id, D, W, lane);
    double *M = D + 2 * n2 * L;
    LANE { bad[l] = 0.0; }
    pivot_scales(md, sc);
    cholesky(L, nv, M, md->F[3], sc, bad);
    if ((e = first_bad(L, bad, lane)))
        return e;
    /* [dqdd/dq, dqdd/dqd, dqdd/dtau] = M^-1 [-dtau/dq, -dtau/dqd, 1]: one solve with the
     * 3 nv right sides side by side, X (nv x 3 nv) in out's room, then moved into the three
     * blocks (the pivots' reciprocals in qdd's room: qdd is read no more) */
    const int64_t m = 3 * nv;
    double *X = W; /* the workspace's front: ABA's and the derivatives' passes are done */
    for (int64_t r = 0; r < nv; r++)
        for (int64_t j = 0; j < nv; j++)
            LANE {
                X[(r * m + j) * L + l] = -D[(r * nv + j) * L + l];
                X[(r * m + nv + j) * L + l] = -D[(n2 + r * nv + j) * L + l];
                X[(r * m + 2 * nv + j) * L + l] = r == j ? 1.0 : 0.0;
            }
    cholesky_reciprocals(L, nv, M, qdd);
    cholesky_solve_many(L, nv, M, qdd, X, m);
    for (int blk = 0; blk < 3; blk++)
        for (int64_t r = 0; r < nv; r++)
            for (int64_t j = 0; j < nv; j++)
                LANE { out[(blk * n2 + r * nv + j) * L + l] = X[(r * m + blk * nv + j) * L + l]; }
    return 0;
}

CLONES int rd_aba_derivatives(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                              double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? aba_derivatives_lanes(md, 1, a, out, W, lane)
                  : aba_derivatives_lanes(md, LANES, a, out, W, lane);
}
