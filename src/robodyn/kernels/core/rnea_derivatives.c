/*
 * The partial derivatives of inverse dynamics, d tau / dq, d tau / dqd and d tau / dqdd = M,
 * by one recursive O(n d) pass (n dofs, tree depth d) over the spatial equations of RNEA
 * in world coordinates (the structure of Carpentier & Mansard, RSS 2018, derived here from
 * MR eqs. 8.50-8.54; robodyn/derivatives.py states the conventions). Every spatial
 * quantity is about the world origin (moved to body 1's origin, as in crba.c), in world
 * axes, so that a subtree's sums need no transform:
 *
 *   S_c = [Ad_T_s,i] S_c^body                    space column c of body i's joint (MR 5.11)
 *   V_i = V_lambda + sum_c S_c qd_c               (MR 5.6)
 *   psid_c  = V_p x S_c                           S_c's rate as its parent p moves
 *   psidd_c = A_p x S_c + V_p x psid_c            its second rate
 *   A_i = A_lambda + sum_c (S_c qdd_c + psid_c qd_c),  A_0 = [0; -g]
 *   F_i = G_i A_i + V_i x* (G_i V_i) - F_ext,i    (MR 8.53 in world coordinates)
 *   sig_c = V_b x S_c + psid_c                    (dS_c/dt + psid_c: d A / d qd_c)
 *
 * with x the motion cross product ad_V (MR def. 8.2), x* = -ad^T its dual, p = lambda(i)
 * and b = i, but for a universal joint, whose axes are two revolute joints with a
 * massless body between them: its first column has b = that body (V_b x S_u = V_p x
 * S_u), its second p = that body (V_p = V_lambda + S_u qd_u, A_p likewise). Over the subtree of body i: Ic = sum G, Bc = sum (dG/dt + bar(G V)) with
 * dG/dt = V x* G - G V x and bar(h) x = x x* h, Fc = sum F. A perturbation of q_c in the
 * tangent space moves the subtree of body(c) by exp([S_c] eps) (q (+) eps e_c); with qd
 * held, each of the subtree's V, A, G, F changes covariantly but for what flows in from
 * the parent (V_p, A_p, not moved), which gives
 *
 *   d Fc_j / dq_c  = S_c x* Fc_j + Ic_j psidd_c + Bc_j psid_c   (body j in c's subtree)
 *   d Fc_j / dqd_c = Ic_j sig_c + Bc_j S_c
 *
 * and, with tau_a = S_a^T Fc_body(a) and d S_a / dq_c = S_c x S_a below c (the S_c x* Fc
 * term then cancels), for dofs a and c on one chain, body(c) below or at body(a):
 *
 *   dtau_c/dq_a  = (Ic S_c) . psidd_a + (Bc^T S_c) . psid_a     (Ic, Bc of body(c))
 *   dtau_c/dqd_a = (Ic S_c) . sig_a   + (Bc^T S_c) . S_a
 *   M_ca         = (Ic S_c) . S_a
 *   and when body(a) is strictly above body(c):
 *   dtau_a/dq_c  = S_a . (Ic psidd_c + Bc psid_c + S_c x* Fc)
 *   dtau_a/dqd_c = S_a . (Ic sig_c + Bc S_c),   M_ac = M_ca
 *
 * Other pairs are 0. A mimic joint's column carries its multiplier and reads its
 * leader's rates, so its entries add into its leader's rows and columns (chain rule).
 * Joint damping b and Coulomb friction add b + f_c/eps sech^2(qd/eps) (eps > 0; with
 * sgn: 0, at qd = 0 too) to d tau/dqd's diagonal, the armature to M's.
 *
 * x[0] = q (nq), x[1] = qd (nv), x[2] = qdd (nv), fext (6 nb) when FL_FEXT; out =
 * [d tau/dq, d tau/dqd, M] (3 nv x nv, row-major each).
 */
#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_s,i (0:12), V_i (12:18), A_i (18:24);
 * then what is summed over its subtree: m (24), h (25:28), I_o (28:37) of Ic, dh (37:40)
 * and dI_o (40:49) of dIc/dt, k = sum G V (49:55), Fc (55:61). After the bodies, per joint
 * column (6 L doubles each, body after body): S, psid, psidd, sig; then nb int64: the
 * first column of body i */
enum { D_R = 0, D_P = 9, D_V = 12, D_A = 18, D_M = 24, D_H = 25, D_IO = 28, D_DH = 37,
       D_DIO = 40, D_K = 49, D_F = 55, WD = 61 };

int64_t rd_rnea_derivatives_work(const model_t *md)
{
    return WD * md->nb + 4 * 6 * axes_count(md) + md->nb;
}

/* ---------------------------------------------------------------- spatial products */
RD_INLINE void motion_cross(int L, const double *a, const double *b, double *c)
{
    /* c = a x b = ad_a b = [a_w x b_w; a_w x b_v + a_v x b_w] (MR def. 8.2); c apart */
    cross_l(L, a, b, c);
    cross_l(L, a, b + 3 * L, c + 3 * L);
    cross_add_l(L, a + 3 * L, b, c + 3 * L);
}

RD_INLINE void force_cross(int L, const double *a, const double *f, double *c)
{
    /* c = a x* f = -ad_a^T f = [a_w x f_m + a_v x f_f; a_w x f_f]; c apart */
    cross_l(L, a, f, c);
    cross_add_l(L, a + 3 * L, f + 3 * L, c);
    cross_l(L, a, f + 3 * L, c + 3 * L);
}

RD_INLINE void rate_times(int L, const double *dh, const double *dI, const double *x,
                          double *out)
{
    /* dG/dt x = [dI_o w + dh x u; -dh x w] for x = [w; u] (the mass does not change) */
    cross_l(L, dh, x + 3 * L, out);
    for (int r = 0; r < 3; r++)
        LANE {
            out[r * L + l] += dI[3 * r * L + l] * x[l] + dI[(3 * r + 1) * L + l] * x[L + l]
                              + dI[(3 * r + 2) * L + l] * x[2 * L + l];
        }
    cross_l(L, x, dh, out + 3 * L);
}

RD_INLINE double dot6(int L, int l, const double *a, const double *b)
{
    return a[l] * b[l] + a[L + l] * b[L + l] + a[2 * L + l] * b[2 * L + l]
           + a[3 * L + l] * b[3 * L + l] + a[4 * L + l] * b[4 * L + l] + a[5 * L + l] * b[5 * L + l];
}

RD_INLINE void add6(int L, double *y, const double *x, double s)
{
    for (int k = 0; k < 6 * L; k++)
        y[k] += s * x[k];
}

/* ---------------------------------------------------------------- forward pass */
RD_INLINE void origin_at_body1(int L, int64_t i, double *p, double *ref)
{
    /* p of a body on the world, about body 1's origin (ref, set at i = 1): the derivatives
     * are the same about any fixed point, and a robot far from the world's origin keeps
     * its digits */
    for (int k = 0; i == 1 && k < 3 * L; k++)
        ref[k] = p[k];
    for (int k = 0; k < 3 * L; k++)
        p[k] -= ref[k];
}

RD_INLINE void world_inertia(int L, const double *Fi, const double *R, const double *p,
                             const double *V, double *Wi)
{
    /* G_i about the world origin (MR eq. 8.42 with parallel axes, eq. 8.26): c' = R c + p,
     * h = m c', I_o = R I_c R^T + m (|c'|^2 1 - c' c'^T); its rate dG/dt = V x* G - G V x:
     * dh = m v + w x h, dI_o = A + A^T + 2 (v.h) 1 - (h v^T + v h^T), A = [w] I_o */
    const double m = Fi[BF_MASS];
    double c[3 * LANES], T[9 * LANES], A[9 * LANES], cc[LANES], vh[LANES];
    double *h = Wi + D_H * L, *Io = Wi + D_IO * L, *dh = Wi + D_DH * L, *dI = Wi + D_DIO * L;
    const double *w = V, *v = V + 3 * L;
    rmul_lc(L, R, Fi + BF_C, c);
    mm_lc(L, R, Fi + BF_IC, T);
    for (int r = 0; r < 3; r++)
        LANE { c[r * L + l] += p[r * L + l], h[r * L + l] = m * c[r * L + l]; }
    LANE { cc[l] = c[l] * c[l] + c[L + l] * c[L + l] + c[2 * L + l] * c[2 * L + l]; }
    for (int r = 0; r < 3; r++) /* symmetric: 6 entries computed, 3 mirrored */
        for (int s = r; s < 3; s++)
            LANE {
                Io[(3 * r + s) * L + l] = Io[(3 * s + r) * L + l]
                    = T[3 * r * L + l] * R[3 * s * L + l] + T[(3 * r + 1) * L + l] * R[(3 * s + 1) * L + l]
                      + T[(3 * r + 2) * L + l] * R[(3 * s + 2) * L + l]
                      + m * ((r == s ? cc[l] : 0.0) - c[r * L + l] * c[s * L + l]);
            }
    LANE { Wi[D_M * L + l] = m; }
    cross_l(L, w, h, dh);
    for (int r = 0; r < 3; r++)
        LANE { dh[r * L + l] += m * v[r * L + l]; }
    for (int s = 0; s < 3; s++) /* column s of [w] I_o = w x I_o[:, s] */
        LANE {
            const double x0 = Io[s * L + l], x1 = Io[(3 + s) * L + l], x2 = Io[(6 + s) * L + l];
            A[s * L + l] = w[L + l] * x2 - w[2 * L + l] * x1;
            A[(3 + s) * L + l] = w[2 * L + l] * x0 - w[l] * x2;
            A[(6 + s) * L + l] = w[l] * x1 - w[L + l] * x0;
        }
    LANE { vh[l] = v[l] * h[l] + v[L + l] * h[L + l] + v[2 * L + l] * h[2 * L + l]; }
    for (int r = 0; r < 3; r++)
        for (int s = r; s < 3; s++)
            LANE {
                dI[(3 * r + s) * L + l] = dI[(3 * s + r) * L + l]
                    = A[(3 * r + s) * L + l] + A[(3 * s + r) * L + l] + (r == s ? 2.0 * vh[l] : 0.0)
                      - (h[r * L + l] * v[s * L + l] + v[r * L + l] * h[s * L + l]);
            }
}

RD_INLINE void body_motion_world(const model_t *md, int L, int64_t i, const double *qd,
                                 const double *qdd, const double *Vl, const double *Al,
                                 double *Wi, double *S, double *PD, double *PDD, double *SG)
{
    /* V_i, A_i and the columns' psid, psidd, sig of body i (its n columns at S, PD, PDD,
     * SG, 6 L doubles each), from its parent's V_lambda, A_lambda */
    const int64_t *Ii = body_i(md, i);
    const int n = (int)Ii[BI_NV], uni = Ii[BI_TYPE] == J_UNIVERSAL;
    double Vp[6 * LANES], Ap[6 * LANES], t[6 * LANES];
    double *V = Wi + D_V * L, *A = Wi + D_A * L;
    for (int k = 0; k < 6 * L; k++)
        Vp[k] = V[k] = Vl[k], Ap[k] = A[k] = Al[k];
    for (int c = 0; c < n; c++) {
        const double *s = S + 6 * c * L, *x = qd + (Ii[BI_VIDX] + c) * L,
                     *y = qdd + (Ii[BI_VIDX] + c) * L;
        double *pd = PD + 6 * c * L, *pdd = PDD + 6 * c * L;
        motion_cross(L, Vp, s, pd);   /* psid = V_p x S */
        motion_cross(L, Ap, s, pdd);  /* psidd = A_p x S + V_p x psid */
        motion_cross(L, Vp, pd, t);
        for (int k = 0; k < 6 * L; k++)
            pdd[k] += t[k];
        for (int r = 0; r < 6; r++)
            LANE {
                V[r * L + l] += s[r * L + l] * x[l];                           /* V += S qd */
                A[r * L + l] += s[r * L + l] * y[l] + pd[r * L + l] * x[l];    /* A += S qdd + psid qd */
            }
        if (uni && c == 0) /* the universal joint's second axis turns on the first */
            for (int k = 0; k < 6 * L; k++)
                Vp[k] = V[k], Ap[k] = A[k];
    }
    for (int c = 0; c < n; c++) {
        /* sig = dS/dt + psid = V_i x S + psid; with one column (or a universal joint's
         * first) V_i x S = V_p x S: sig = 2 psid */
        double *sg = SG + 6 * c * L;
        const double *pd = PD + 6 * c * L;
        if (n == 1 || (uni && c == 0))
            for (int k = 0; k < 6 * L; k++)
                sg[k] = 2.0 * pd[k];
        else {
            motion_cross(L, V, S + 6 * c * L, sg);
            for (int k = 0; k < 6 * L; k++)
                sg[k] += pd[k];
        }
    }
}

RD_INLINE void body_force_world(int L, const double *Wi, const double *fext, double *k,
                                double *F)
{
    /* k = G V (momentum), F = G A + V x* k - F_ext (F_ext in the body frame moved to the
     * world: [R m + p x R f; R f], MR eq. 3.98) */
    const double *m = Wi + D_M * L, *h = Wi + D_H * L, *Io = Wi + D_IO * L;
    const double *V = Wi + D_V * L, *A = Wi + D_A * L;
    double t[6 * LANES];
    inertia_times_l(L, m, h, Io, V, V + 3 * L, k);
    inertia_times_l(L, m, h, Io, A, A + 3 * L, F);
    force_cross(L, V, k, t);
    for (int r = 0; r < 6 * L; r++)
        F[r] += t[r];
    if (fext) {
        wrench_to_parent(L, Wi + D_R * L, Wi + D_P * L, fext, fext + 3 * L, t, t + 3 * L);
        for (int r = 0; r < 6 * L; r++)
            F[r] -= t[r];
    }
}

/* ---------------------------------------------------------------- backward pass */
typedef struct {
    const double *s, *pd, *pdd, *sg;
} col_t;

RD_INLINE col_t column(const double *C, int64_t nc, int L, int64_t c)
{
    /* the four fields of column c (C: the column arrays, nc columns each) */
    col_t x = {C + 6 * c * L, C + 6 * (nc + c) * L, C + 6 * (2 * nc + c) * L,
               C + 6 * (3 * nc + c) * L};
    return x;
}

RD_INLINE void column_below(int L, const double *Wi, col_t c, double *g1, double *g2,
                            double *bs)
{
    /* for column c of body i (Ic, Bc of i's subtree): g1 = Ic S, g2 = Bc^T S and bs = Bc S,
     * where Bc x = dIc/dt x + x x* k, Bc^T x = dIc/dt x - x x* k */
    const double *m = Wi + D_M * L, *h = Wi + D_H * L, *Io = Wi + D_IO * L;
    const double *dh = Wi + D_DH * L, *dI = Wi + D_DIO * L, *k = Wi + D_K * L;
    double gs[6 * LANES], fs[6 * LANES];
    inertia_times_l(L, m, h, Io, c.s, c.s + 3 * L, g1);
    rate_times(L, dh, dI, c.s, gs);
    force_cross(L, c.s, k, fs);
    for (int r = 0; r < 6 * L; r++)
        g2[r] = gs[r] - fs[r], bs[r] = gs[r] + fs[r];
}

RD_INLINE void column_above(int L, const double *Wi, col_t c, const double *bs, double *yq,
                            double *yv)
{
    /* for column c of body i, what its entries in the rows above take: yq = Ic psidd +
     * Bc psid + S x* Fc, yv = Ic sig + Bc S (bs = Bc S) */
    const double *m = Wi + D_M * L, *h = Wi + D_H * L, *Io = Wi + D_IO * L;
    const double *dh = Wi + D_DH * L, *dI = Wi + D_DIO * L, *k = Wi + D_K * L, *F = Wi + D_F * L;
    double t[6 * LANES];
    inertia_times_l(L, m, h, Io, c.sg, c.sg + 3 * L, yv);
    add6(L, yv, bs, 1.0);
    inertia_times_l(L, m, h, Io, c.pdd, c.pdd + 3 * L, yq);
    rate_times(L, dh, dI, c.pd, t);
    add6(L, yq, t, 1.0);
    force_cross(L, c.pd, k, t);
    add6(L, yq, t, 1.0);
    force_cross(L, c.s, F, t);
    add6(L, yq, t, 1.0);
}

RD_INLINE void entries_below(int L, int64_t nv, double *out, int64_t dc, int64_t da, col_t a,
                             const double *g1, const double *g2)
{
    /* the entries of dof c in the columns of dof a (a above c, or beside it on its body):
     * d tau_c/dq_a, d tau_c/dqd_a, M_ca; the rows and columns of a mimic's leader take
     * its entries (+=) */
    double *dq = out, *dv = out + nv * nv * L, *M = out + 2 * nv * nv * L;
    const int64_t ca = (dc * nv + da) * L;
    LANE {
        dq[ca + l] += dot6(L, l, g1, a.pdd) + dot6(L, l, g2, a.pd);
        dv[ca + l] += dot6(L, l, g1, a.sg) + dot6(L, l, g2, a.s);
        M[ca + l] += dot6(L, l, g1, a.s);
    }
}

RD_INLINE void entries_both(int L, int64_t nv, double *out, int64_t dc, int64_t da, col_t a,
                            const double *g1, const double *g2, const double *yq,
                            const double *yv)
{
    /* dof a strictly above dof c: the entries of entries_below and those of a in the
     * column of c, d tau_a/dq_c, d tau_a/dqd_c, M_ac = M_ca */
    double *dq = out, *dv = out + nv * nv * L, *M = out + 2 * nv * nv * L;
    const int64_t ca = (dc * nv + da) * L, ac = (da * nv + dc) * L;
    LANE {
        const double mm = dot6(L, l, g1, a.s);
        dq[ca + l] += dot6(L, l, g1, a.pdd) + dot6(L, l, g2, a.pd);
        dv[ca + l] += dot6(L, l, g1, a.sg) + dot6(L, l, g2, a.s);
        M[ca + l] += mm;
        dq[ac + l] += dot6(L, l, a.s, yq);
        dv[ac + l] += dot6(L, l, a.s, yv);
        M[ac + l] += mm;
    }
}

RD_INLINE void body_entries(const model_t *md, int L, int64_t i, const double *W,
                            const double *C, int64_t nc, const int64_t *first, double *out)
{
    /* every entry of the columns of body i with the columns of i and of its ancestors */
    const int64_t *Ii = body_i(md, i);
    const int64_t nv = md->nv, vi = Ii[BI_VIDX];
    const double *Wi = W + WD * i * L;
    const int uni = Ii[BI_TYPE] == J_UNIVERSAL;
    for (int c = 0; c < Ii[BI_NV]; c++) {
        double g1[6 * LANES], g2[6 * LANES], bs[6 * LANES], yq[6 * LANES], yv[6 * LANES];
        const col_t cc = column(C, nc, L, first[i] + c);
        column_below(L, Wi, cc, g1, g2, bs);
        if (Ii[BI_PARENT] > 0 || (uni && c == 1)) /* a column lies above it */
            column_above(L, Wi, cc, bs, yq, yv);
        else /* none: yq, yv are not read */
            for (int r = 0; r < 6 * L; r++)
                yq[r] = yv[r] = 0.0;
        for (int a = 0; a < Ii[BI_NV]; a++) { /* its own body's columns */
            const col_t ca = column(C, nc, L, first[i] + a);
            if (uni && c == 1 && a == 0) /* a universal joint's second axis is below its first */
                entries_both(L, nv, out, vi + 1, vi, ca, g1, g2, yq, yv);
            else if (!(uni && c == 0 && a == 1))
                entries_below(L, nv, out, vi + c, vi + a, ca, g1, g2);
        }
        for (int64_t j = Ii[BI_PARENT]; j > 0; j = body_i(md, j)[BI_PARENT]) { /* the ancestors */
            const int64_t *Ij = body_i(md, j);
            for (int a = 0; a < Ij[BI_NV]; a++)
                entries_both(L, nv, out, vi + c, Ij[BI_VIDX] + a, column(C, nc, L, first[j] + a),
                             g1, g2, yq, yv);
        }
    }
}

RD_INLINE void joint_terms(const model_t *md, int L, const args_t *a, double *out)
{
    /* damping and Coulomb friction on d tau/dqd's diagonal: b + f_c / eps sech^2(qd / eps)
     * (eps > 0; the derivative of f_c sgn(qd) is 0, taken as 0 at qd = 0 too), the
     * armature on M's */
    const int64_t nv = md->nv;
    const double *d = dof_params(md), *qd = a->x[1];
    double *dv = out + nv * nv * L, *M = out + 2 * nv * nv * L;
    for (int64_t k = 0; (a->flags & FL_FRICTION) && k < nv; k++) {
        const double b = d[k], fc = d[nv + k];
        double *e = dv + (k * nv + k) * L;
        LANE { e[l] += b; }
        if (fc != 0.0 && a->eps > 0.0)
            for (int l = 0; l < L; l++) {
                const double th = tanh(qd[k * L + l] / a->eps);
                e[l] += fc / a->eps * (1.0 - th * th);
            }
    }
    if (a->flags & FL_ARMATURE)
        for (int64_t k = 0; k < nv; k++)
            LANE { M[(k * nv + k) * L + l] += d[2 * nv + k]; }
}

RD_INLINE int rnea_derivatives_lanes(const model_t *md, const int L, const args_t *a,
                                     double *RESTRICT out, double *RESTRICT W)
{
    const int64_t nb = md->nb, nv = md->nv, nc = axes_count(md);
    const double *q = a->x[0], *qd = a->x[1], *qdd = a->x[2];
    const double *fext = (a->flags & FL_FEXT) ? a->fext : NULL;
    double *C = W + WD * nb * L; /* S, psid, psidd, sig: nc columns each */
    int64_t *first = (int64_t *)(C + 4 * 6 * nc * L);
    for (int64_t k = 0; k < 3 * nv * nv * L; k++)
        out[k] = 0.0;
    /* the world: T_s,0 = 1, V_0 = 0, A_0 = [0; -g] (gravity as a base acceleration) */
    for (int k = 0; k < D_M * L; k++)
        W[k] = 0.0;
    LANE { W[0 * L + l] = W[4 * L + l] = W[8 * L + l] = 1.0; }
    if (a->flags & FL_GRAVITY)
        for (int r = 0; r < 3; r++)
            LANE { W[(D_A + 3 + r) * L + l] = -md->F[r]; }
    /* ---- root to leaves: T_s,i, S_c, V_i, A_i, psid, psidd, sig, G_i, dG_i/dt, G_i V_i, F_i */
    double ref[3 * LANES];
    int64_t n0 = 0;
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Wl = W + WD * Ii[BI_PARENT] * L;
        double *Wi = W + WD * i * L, Rl[9 * LANES], pl[3 * LANES];
        double *R = Wi + D_R * L, *p = Wi + D_P * L;
        joint_pose(L, Ii, body_f(md, i), q, Rl, pl);
        compose_l(L, Wl + D_R * L, Wl + D_P * L, Rl, pl, R, p); /* T_s,i = T_s,lambda T_lambda,i */
        if (Ii[BI_PARENT] == 0) /* the world's origin moved to body 1's (as in crba.c) */
            origin_at_body1(L, i, p, ref);
        first[i] = n0;
        double *S = C + 6 * n0 * L;
        n0 += joint_columns(md, L, R, p, q, i, S);
        body_motion_world(md, L, i, qd, qdd, Wl + D_V * L, Wl + D_A * L, Wi, S,
                          S + 6 * nc * L, S + 12 * nc * L, S + 18 * nc * L);
        world_inertia(L, body_f(md, i), R, p, Wi + D_V * L, Wi);
        body_force_world(L, Wi, fext ? fext + 6 * i * L : NULL, Wi + D_K * L, Wi + D_F * L);
    }
    /* ---- leaves to root: body i's subtree sums are complete when i is reached */
    for (int64_t i = nb - 1; i > 0; i--) {
        body_entries(md, L, i, W, C, nc, first, out);
        const int64_t lam = body_i(md, i)[BI_PARENT];
        if (lam > 0) /* Ic, dIc/dt, k, Fc of lambda += those of i */
            for (int k = D_M * L; k < WD * L; k++)
                W[WD * lam * L + k] += W[WD * i * L + k];
    }
    joint_terms(md, L, a, out);
    return 0;
}

CLONES int rd_rnea_derivatives(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                               double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? rnea_derivatives_lanes(md, 1, a, out, W)
                  : rnea_derivatives_lanes(md, LANES, a, out, W);
}
