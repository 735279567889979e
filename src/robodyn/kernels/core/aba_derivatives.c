/*
 * The partial derivatives of forward dynamics qdd = FD(q, qd, tau), from those of inverse
 * dynamics by the implicit function theorem (ID(q, qd, FD(q, qd, tau)) = tau):
 *
 *   qdd = FD(q, qd, tau)                      ABA (Featherstone 7.1); the Cholesky road
 *                                             of minv.c for a model with mimic joints
 *   [dtau/dq, dtau/dqd, M] = ID derivatives at (q, qd, qdd)      (rnea_derivatives.c)
 *   dqdd/dq = -M^-1 dtau/dq,  dqdd/dqd = -M^-1 dtau/dqd,  dqdd/dtau = M^-1
 *
 * (Carpentier and Mansard, RSS 2018, sec. IV: the same route). M^-1 comes by one of two
 * roads (rd.h's minv_by_aba: FL_MINV_ABA, FL_MINV_CHOLESKY, else by nv):
 *
 *   recursive   M^-1 from the U_i, D_i^-1 of the ABA pass just run (minv_aba.c, O(n^2)),
 *               then -M^-1 dtau/dx row by row (minv_times_derivatives)
 *   Cholesky    M = L L^T (rd.h's pivot rule), one solve with the 3 nv right sides
 *               [-dtau/dq, -dtau/dqd, 1]
 *
 * robodyn bench measured the recursive road the faster from about 12 dofs on (at 6 and 7,
 * one state: 5 % slower, a batch: even; at 18: 0-25 % faster; Talos, 50: 1.6x one state,
 * 2.5x a batch), hence DERIV_ABA_NV. q is differentiated in the tangent space, as the
 * inverse dynamics derivatives are; friction, armature and external wrenches enter both
 * FD and its derivatives by the flags. x[0] = q (nq), x[1] = qd (nv), x[2] = tau (nv);
 * out = [dqdd/dq, dqdd/dqd, dqdd/dtau] (3 nv x nv, row-major each).
 */
#include "batch.h"
#include "mfactor.h"

/* M^-1 by the articulated-body recursion from this many dofs on (the measurement above) */
enum { DERIV_ABA_NV = 12 };

int64_t rd_aba_derivatives_work(const model_t *md)
{
    /* the largest of ABA's (with the recursive M^-1's), the Cholesky road's and the
     * derivatives' workspaces, and of the solve's right sides (3 nv^2, which reuse it),
     * then the inverse dynamics derivatives (3 nv^2), qdd (nv) and the pivots' scales (nv) */
    int64_t w = 3 * md->nv * md->nv;
    if (rd_minv_aba_work(md) > w)
        w = rd_minv_aba_work(md);
    if (rd_minv_work(md) > w)
        w = rd_minv_work(md);
    if (rd_rnea_derivatives_work(md) > w)
        w = rd_rnea_derivatives_work(md);
    return w + 3 * md->nv * md->nv + 2 * md->nv;
}

RD_INLINE void minv_times_derivatives(const model_t *md, const int L, const double *Mi,
                                      const double *D, double *RESTRICT W, double *RESTRICT out)
{
    /* out_b = -M^-1 D_b for D_0 = dtau/dq, D_1 = dtau/dqd, row by row: row r of out_b =
     * sum_k x_k (row k of D_b), x = -(row r of M^-1), four rows k at a time (combine_rows);
     * row k of D_b is zero beyond the dofs of the subtree of k's body (D_b[k][c] = 0 unless
     * dofs k and c lie on one chain from the root: rnea_derivatives.c), so that a group
     * reads its rows up to the largest of their ends. W: x (nv laned), then the dofs k and
     * their ends (nv int64 each) */
    const int64_t nv = md->nv, n2 = nv * nv;
    double *x = W;
    int64_t *kx = (int64_t *)(x + nv * L), *e = kx + nv;
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t va = body_i(md, i)[BI_VIDX], end = dof_end(md, i);
        for (int64_t k = va; k < va + body_i(md, i)[BI_NV]; k++)
            kx[k] = k, e[k] = end;
    }
    for (int64_t r = 0; r < nv; r++) {
        double *o0 = out + r * nv * L, *o1 = o0 + n2 * L;
        for (int64_t k = 0; k < nv * L; k++)
            x[k] = -Mi[r * nv * L + k], o0[k] = o1[k] = 0.0;
        for (int64_t k = 0; k < nv; k += 4) {
            const int64_t na = nv - k < 4 ? nv - k : 4;
            int64_t n = 0;
            for (int64_t a = 0; a < na; a++)
                n = e[k + a] > n ? e[k + a] : n;
            combine_rows(L, n, na, x + k * L, kx + k, D, nv, o0);
            combine_rows(L, n, na, x + k * L, kx + k, D + n2 * L, nv, o1);
        }
    }
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
    const int by_aba = minv_by_aba(md, a->flags, DERIV_ABA_NV);
    if (by_aba) /* M^-1 from ABA's U_i, D_i^-1, before the next pass overwrites them */
        rd_minv_aba_rows(md, L, a->x[0], W, out + 2 * n2 * L);
    /* [dtau/dq, dtau/dqd, M] at (q, qd, qdd) */
    args_t id = *a;
    id.x[2] = qdd;
    rd_rnea_derivatives(md, L, &id, D, W, lane);
    if (by_aba) {
        minv_times_derivatives(md, L, out + 2 * n2 * L, D, W, out);
        return 0;
    }
    /* else M = L L^T in place */
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
