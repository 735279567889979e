/*
 * The joint-space mass matrix M(q) by the composite rigid body algorithm (Featherstone
 * table 6.2; MR section 8.4), in world coordinates (Featherstone sec. 6.4 notes the
 * choice of frame is free): with every spatial quantity about the world origin, a
 * composite inertia is a plain sum and a column needs no transform on its way to the root.
 *
 *   T_s,i = T_s,lambda T_{lambda,i}(q)                      (MR eq. 4.13)
 *   G_s,i = [Ad_{T_s,i^-1}]^T G_i [Ad_{T_s,i^-1}]            (MR eq. 8.42)
 *   i = n..1:  F = Ic_i S_i,   M_ji = S_j^T F for j = i and each ancestor of i,
 *              Ic_lambda(i) += Ic_i   (Ic_i = G_s,i to start with)
 *
 * with S_i the joint's space screw axes (MR eq. 5.11; joint_columns). x[0] = q; out = M
 * (nv x nv, row-major) plus diag(armature) when FL_ARMATURE. Each pair of dofs is summed
 * once, into the lower triangle (M_rc, r >= c), and mirrored at the end, or by the batch's
 * scatter (a->src). A mimic joint's axes carry its multiplier, so its entries add to its
 * leader's row and column.
 */
#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_s,i (0:12); the composite inertia Ic_i
 * about the world origin, world axes, as m (12), h = m c (13:16), I_o (16:25). Then the
 * space screw axes of the joints (6 L doubles each, body after body), then nb int64: the
 * first axis of body i */
enum { WC = 25, C_R = 0, C_P = 9, C_M = 12, C_H = 13, C_IO = 16 };

int64_t rd_crba_work(const model_t *md) { return WC * md->nb + 6 * axes_count(md) + md->nb; }

RD_INLINE double axis_dot(int L, int l, const double *S, const double *fm, const double *ff)
{
    /* S^T F in lane l, for the laned axis S and wrench F = [fm; ff] */
    return S[l] * fm[l] + S[L + l] * fm[L + l] + S[2 * L + l] * fm[2 * L + l] + S[3 * L + l] * ff[l]
           + S[4 * L + l] * ff[L + l] + S[5 * L + l] * ff[2 * L + l];
}

RD_INLINE int crba_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT M,
                         double *RESTRICT W)
{
    const int64_t nb = md->nb, nv = md->nv;
    const double *q = a->x[0];
    double *S = W + WC * nb * L;                         /* the space screw axes */
    int64_t *first = (int64_t *)(S + 6 * axes_count(md) * L); /* body i's first axis */
    /* M = 0: all of it, or (a batch into zeroed rows) the lower entries the tree can fill */
    if (a->nz) {
        for (int64_t k = 0; k < a->nnz; k++)
            if (a->src[k] == a->nz[k])
                LANE { M[a->nz[k] * L + l] = 0.0; }
    }
    else
        for (int64_t k = 0; k < nv * nv * L; k++)
            M[k] = 0.0;
    /* ---- root to leaves: T_s,i, S_i = [Ad_T_s,i] S_i and Ic_i = G_s,i */
    for (int k = 0; k < 12 * L; k++) /* the world: T_s,0 = 1 */
        W[k] = 0.0;
    LANE { W[0 * L + l] = W[4 * L + l] = W[8 * L + l] = 1.0; }
    int64_t na = 0;
    double ref[3 * LANES]; /* body 1's origin in the world (body_world_pose) */
    for (int64_t i = 1; i < nb; i++) {
        const double *Fi = body_f(md, i);
        const double *Wl = W + WC * body_i(md, i)[BI_PARENT] * L;
        double *Wi = W + WC * i * L, R[9 * LANES], p[3 * LANES];
        joint_pose(L, body_i(md, i), Fi, q, R, p);
        body_world_pose(md, L, i, R, p, Wl + C_R * L, Wl + C_P * L, Wi + C_R * L, Wi + C_P * L,
                        ref);
        first[i] = na;
        na += joint_columns(md, L, Wi + C_R * L, Wi + C_P * L, q, i, S + 6 * first[i] * L);
        inertia_to_world(L, Wi + C_R * L, Wi + C_P * L, Fi, Wi + C_M * L);
    }
    /* ---- leaves to root (Featherstone table 6.2): Ic_i is complete when i is reached;
     * F = Ic_i S_i; M_ji = S_j^T F for j = i and up to the root; Ic_lambda += Ic_i (both
     * about the world origin) */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t *Ii = body_i(md, i);
        const double *m = W + (WC * i + C_M) * L, *h = W + (WC * i + C_H) * L,
                     *Io = W + (WC * i + C_IO) * L;
        for (int k = 0; k < Ii[BI_NV]; k++) {
            /* F = Ic s = [I_o s_w + h x s_v; m s_v - h x s_w] */
            const double *s = S + 6 * (first[i] + k) * L;
            double F[6 * LANES];
            const double *fm = F, *ff = F + 3 * L;
            const int64_t ci = Ii[BI_VIDX] + k;
            inertia_times_l(L, m, h, Io, s, s + 3 * L, F);
            /* M_ii = S_i^T Ic_i S_i (its lower triangle: k2 <= k), then each ancestor j:
             * M_ji = S_j^T F = M_ij, into the lower one of the two */
            for (int k2 = 0; k2 <= k; k2++) {
                const double *Sj = S + 6 * (first[i] + k2) * L;
                double *Mcj = M + (ci * nv + Ii[BI_VIDX] + k2) * L;
                LANE { Mcj[l] += axis_dot(L, l, Sj, fm, ff); }
            }
            for (int64_t j = Ii[BI_PARENT]; j > 0; j = body_i(md, j)[BI_PARENT]) {
                const int64_t *Ij = body_i(md, j);
                for (int k2 = 0; k2 < Ij[BI_NV]; k2++) {
                    /* a mimic below its leader (or below another mimic of it) meets its
                     * own dof: M_cc takes S^T F from both sides */
                    const int64_t cj = Ij[BI_VIDX] + k2;
                    const double *Sj = S + 6 * (first[j] + k2) * L;
                    const double twice = cj == ci ? 2.0 : 1.0;
                    double *Mrc = M + (ci > cj ? ci * nv + cj : cj * nv + ci) * L;
                    LANE { Mrc[l] += twice * axis_dot(L, l, Sj, fm, ff); }
                }
            }
        }
        if (Ii[BI_PARENT] > 0) {
            const double *Wi = W + (WC * i + C_M) * L;
            double *Wlam = W + (WC * Ii[BI_PARENT] + C_M) * L;
            for (int k = 0; k < 13 * L; k++)
                Wlam[k] += Wi[k];
        }
    }
    if (a->flags & FL_ARMATURE) {
        const double *arm = dof_params(md) + 2 * nv;
        for (int64_t k = 0; k < nv; k++)
            LANE { M[(k * nv + k) * L + l] += arm[k]; }
    }
    if (!a->nz) /* M_cr = M_rc (a batch's scatter mirrors the pattern itself) */
        for (int64_t r = 1; r < nv; r++)
            for (int64_t c = 0; c < r; c++)
                LANE { M[(c * nv + r) * L + l] = M[(r * nv + c) * L + l]; }
    return 0;
}

int64_t rd_crba_pattern(const model_t *md, const args_t *a, int64_t *nz, int64_t *src)
{
    /* M_jk can be nonzero only where dofs j and k lie on one chain from the root
     * (Featherstone sec. 6.5, branch-induced sparsity): the entries crba_lanes visits,
     * marked in nz (nv^2 entries) and then gathered in place as ascending indices; each
     * is read from the lower triangle (src) */
    (void)a;
    const int64_t nv = md->nv;
    for (int64_t k = 0; k < nv * nv; k++)
        nz[k] = 0;
    for (int64_t i = 1; i < md->nb; i++)
        for (int64_t j = i; j > 0; j = body_i(md, j)[BI_PARENT]) /* i and its ancestors */
            for (int64_t c = 0; c < body_i(md, i)[BI_NV]; c++)
                for (int64_t r = 0; r < body_i(md, j)[BI_NV]; r++) {
                    const int64_t ci = body_i(md, i)[BI_VIDX] + c, rj = body_i(md, j)[BI_VIDX] + r;
                    nz[rj * nv + ci] = nz[ci * nv + rj] = 1;
                }
    int64_t n = 0;
    for (int64_t k = 0; k < nv * nv; k++)
        if (nz[k]) {
            const int64_t r = k / nv, c = k % nv;
            src[n] = r >= c ? k : c * nv + r;
            nz[n++] = k;
        }
    return n;
}

CLONES int rd_crba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                   double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? crba_lanes(md, 1, a, out, W) : crba_lanes(md, LANES, a, out, W);
}
