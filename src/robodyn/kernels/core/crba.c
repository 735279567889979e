/*
 * The joint-space mass matrix M(q) by the composite rigid body algorithm (Featherstone
 * table 6.2; MR section 8.4):
 *
 *   Ic_i = G_i + sum over children j of Ad_{T_{j,i}}^T Ic_j Ad_{T_{j,i}}
 *   M_ii = S_i^T Ic_i S_i,   M_ji = S_j^T (Ad^T ... Ic_i S_i) for each ancestor j
 *
 * x[0] = q; out = M (nv x nv, row-major) plus diag(armature) when FL_ARMATURE.
 */
#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_{lambda,i} (0:12); the composite
 * inertia Ic_i about the body origin as m (12), h = m c (13:16), I_o (16:25); a universal
 * joint's first column u (25:28) */
enum { WC = 28, C_R = 0, C_P = 9, C_M = 12, C_H = 13, C_IO = 16, C_U = 25 };

int64_t rd_crba_work(const model_t *md) { return WC * md->nb; }

RD_INLINE void inertia_to_parent(int L, const double *R, const double *p, const double *m,
                                 const double *h, const double *Io, double *Wl)
{
    /* Ic_lambda += Ad_{T_{i,lambda}}^T Ic_i Ad_{T_{i,lambda}}, (R, p) = T_{lambda,i}, as
     * (m, h, I_o) (MR eq. 8.42 with the parallel-axis theorem, eq. 8.26):
     * h' = R h + m p, I' = R I_o R^T + (2 (R h).p + m |p|^2) 1 - (a p^T + p a^T),
     * a = R h + m p / 2 */
    double rh[3 * LANES], T[9 * LANES], Ir[9 * LANES], ah[3 * LANES], s[LANES];
    rmul_l(L, R, h, rh);
    mm_l(L, R, Io, T);
    for (int r = 0; r < 3; r++) /* Ir = T R^T */
        for (int c = 0; c < 3; c++)
            LANE {
                Ir[(3 * r + c) * L + l] = T[3 * r * L + l] * R[3 * c * L + l]
                                          + T[(3 * r + 1) * L + l] * R[(3 * c + 1) * L + l]
                                          + T[(3 * r + 2) * L + l] * R[(3 * c + 2) * L + l];
            }
    LANE {
        s[l] = 2.0 * (rh[l] * p[l] + rh[L + l] * p[L + l] + rh[2 * L + l] * p[2 * L + l])
               + m[l] * (p[l] * p[l] + p[L + l] * p[L + l] + p[2 * L + l] * p[2 * L + l]);
    }
    for (int r = 0; r < 3; r++)
        LANE { ah[r * L + l] = rh[r * L + l] + 0.5 * m[l] * p[r * L + l]; }
    LANE { Wl[C_M * L + l] += m[l]; }
    for (int r = 0; r < 3; r++)
        LANE { Wl[(C_H + r) * L + l] += rh[r * L + l] + m[l] * p[r * L + l]; }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            LANE {
                double D = r == c ? s[l] - 2.0 * ah[r * L + l] * p[r * L + l]
                                  : -(ah[r * L + l] * p[c * L + l] + p[r * L + l] * ah[c * L + l]);
                Wl[(C_IO + 3 * r + c) * L + l] += Ir[(3 * r + c) * L + l] + D;
            }
}

RD_INLINE double project(int64_t jt, const double *Fi, const double *u, int k, const double *fm,
                         const double *ff, int L, int l)
{
    /* S_{i,k}^T F for the laned wrench F = [m; f], lane l (u: a universal joint's laned
     * first column) */
    const double *ax = Fi + BF_AXIS;
    if (jt == J_UNIVERSAL) {
        const double *a = k == 0 ? u + l : Fi + BF_S;
        const int st = k == 0 ? L : 1;
        return a[0] * fm[l] + a[st] * fm[L + l] + a[2 * st] * fm[2 * L + l];
    }
    if (jt == J_REVOLUTE)
        return ax[0] * fm[l] + ax[1] * fm[L + l] + ax[2] * fm[2 * L + l];
    if (jt == J_PRISMATIC)
        return ax[0] * ff[l] + ax[1] * ff[L + l] + ax[2] * ff[2 * L + l];
    if (jt >= J_SPHERICAL) {
        const double *s = Fi + BF_S + 6 * k;
        return s[0] * fm[l] + s[1] * fm[L + l] + s[2] * fm[2 * L + l] + s[3] * ff[l]
               + s[4] * ff[L + l] + s[5] * ff[2 * L + l];
    }
    return k < 3 ? fm[k * L + l] : ff[(k - 3) * L + l];
}

RD_INLINE int crba_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT M,
                         double *RESTRICT W)
{
    const int64_t nb = md->nb, nv = md->nv;
    const double *q = a->x[0];
    /* M = 0: all of it, or (a batch into zeroed rows) the entries the tree can fill */
    if (a->nz)
        for (int64_t k = 0; k < a->nnz; k++)
            LANE { M[a->nz[k] * L + l] = 0.0; }
    else
        for (int64_t k = 0; k < nv * nv * L; k++)
            M[k] = 0.0;
    /* ---- poses T_{lambda,i}(q) and Ic_i = G_i (body frame, about the body origin) */
    for (int64_t i = 1; i < nb; i++) {
        const double *Fi = body_f(md, i);
        double *Wi = W + WC * i * L;
        joint_pose(L, body_i(md, i), Fi, q, Wi + C_R * L, Wi + C_P * L);
        for (int k = 0; k < 13; k++)
            LANE { Wi[(C_M + k) * L + l] = Fi[BF_MASS + k]; }
        if (body_i(md, i)[BI_TYPE] == J_UNIVERSAL) {
            double s2[LANES], c2[LANES];
            universal_u(L, Fi, q + body_i(md, i)[BI_QIDX] * L, Wi + C_U * L, s2, c2);
        }
    }
    /* ---- composite inertias, i = n..1: Ic_lambda += Ad_{T_{i,lambda}}^T Ic_i Ad */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t lam = body_i(md, i)[BI_PARENT];
        if (lam <= 0)
            continue;
        const double *Wi = W + WC * i * L;
        inertia_to_parent(L, Wi + C_R * L, Wi + C_P * L, Wi + C_M * L, Wi + C_H * L,
                          Wi + C_IO * L, W + WC * lam * L);
    }
    /* ---- columns: F = Ic_i S_i; M_ii = S_i^T F; walk to the root for M_ji */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        const double *Wi = W + WC * i * L;
        const int64_t jt = Ii[BI_TYPE], ncol = Ii[BI_NV], vi = Ii[BI_VIDX];
        const double mi = Fi[BF_MULT];
        for (int k = 0; k < ncol; k++) {
            /* two wrench buffers, swapped at each step to the root */
            double s[6], buf[12 * LANES], c1[3 * LANES], c2[3 * LANES];
            double *fm = buf, *ff = buf + 3 * L, *gm = buf + 6 * L, *gf = buf + 9 * L;
            const double *m = Wi + C_M * L, *h = Wi + C_H * L, *Io = Wi + C_IO * L;
            if (jt == J_UNIVERSAL && k == 0) {
                /* the laned column [u; 0]: Ic s = [I_o u; -h x u] */
                const double *u = Wi + C_U * L;
                cross_l(L, h, u, c2);
                for (int r = 0; r < 3; r++)
                    LANE {
                        fm[r * L + l] = Io[3 * r * L + l] * u[l] + Io[(3 * r + 1) * L + l] * u[L + l]
                                        + Io[(3 * r + 2) * L + l] * u[2 * L + l];
                        ff[r * L + l] = -c2[r * L + l];
                    }
            }
            else {
                if (jt == J_UNIVERSAL) /* its second column [a2; 0] */
                    memset(s, 0, 6 * sizeof(double)), memcpy(s, Fi + BF_S, 3 * sizeof(double));
                else
                    joint_column(jt, Fi, k, s);
                /* Ic s = [I_o s_w + h x s_v; m s_v - h x s_w] */
                cross_lc(L, h, s + 3, c1);
                cross_lc(L, h, s, c2);
                for (int r = 0; r < 3; r++)
                    LANE {
                        fm[r * L + l] = Io[3 * r * L + l] * s[0] + Io[(3 * r + 1) * L + l] * s[1]
                                        + Io[(3 * r + 2) * L + l] * s[2] + c1[r * L + l];
                        ff[r * L + l] = m[l] * s[3 + r] - c2[r * L + l];
                    }
            }
            const int64_t ci = vi + k;
            /* M_ii = S_i^T Ic_i S_i */
            for (int k2 = 0; k2 < ncol; k2++)
                LANE {
                    M[((vi + k2) * nv + ci) * L + l] +=
                        mi * mi * project(jt, Fi, Wi + C_U * L, k2, fm, ff, L, l);
                }
            int64_t j = i, lam = Ii[BI_PARENT];
            while (lam > 0) {
                /* F <- Ad_{T_{j,lambda}}^T F (the wrench moved to the parent frame) */
                const double *Wj = W + WC * j * L;
                double *t;
                wrench_to_parent(L, Wj + C_R * L, Wj + C_P * L, fm, ff, gm, gf);
                t = fm, fm = gm, gm = t;
                t = ff, ff = gf, gf = t;
                j = lam;
                const int64_t *Ij = body_i(md, j);
                const double *Fj = body_f(md, j);
                const int64_t jtj = Ij[BI_TYPE], vj = Ij[BI_VIDX];
                const double mij = mi * Fj[BF_MULT];
                /* M_ji = S_j^T F, M_ij = M_ji^T */
                for (int k2 = 0; k2 < Ij[BI_NV]; k2++)
                    LANE {
                        double val = mij * project(jtj, Fj, W + (WC * j + C_U) * L, k2, fm, ff, L, l);
                        M[((vj + k2) * nv + ci) * L + l] += val;
                        M[(ci * nv + vj + k2) * L + l] += val;
                    }
                lam = Ij[BI_PARENT];
            }
        }
    }
    if (a->flags & FL_ARMATURE) {
        const double *arm = dof_params(md) + 2 * nv;
        for (int64_t k = 0; k < nv; k++)
            LANE { M[(k * nv + k) * L + l] += arm[k]; }
    }
    return 0;
}

int64_t rd_crba_pattern(const model_t *md, const args_t *a, int64_t *nz)
{
    /* M_jk can be nonzero only where dofs j and k lie on one chain from the root
     * (Featherstone sec. 6.5, branch-induced sparsity): the entries crba_lanes visits,
     * marked in nz (nv^2 entries) and then gathered in place as ascending indices */
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
        if (nz[k])
            nz[n++] = k;
    return n;
}

CLONES int rd_crba(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                   double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? crba_lanes(md, 1, a, out, W) : crba_lanes(md, LANES, a, out, W);
}
