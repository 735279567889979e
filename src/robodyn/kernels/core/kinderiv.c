/*
 * Derivatives of a frame's kinematics with respect to q, v and a: the kinematic Hessian
 * dJ/dq, and the partial derivatives of the frame's twist and acceleration.
 *
 * Along the frame's support, root first, every joint axis b (a column of the Jacobian,
 * S_b its space screw axis from joint_columns, a mimic's scaled by its multiplier) adds
 * S_b v_b to the twist and S_b a_b + [ad_{P_b}] S_b v_b to the (spatial) acceleration
 * (dS_b/dt = [ad_{P_b}] S_b, MR eq. 8.18 with P_b the twist of the axes that move S_b):
 *
 *   V_s = sum_b S_b v_b,     A_s = sum_b (S_b a_b + [ad_{P_b}] S_b v_b)
 *
 * Derivatives in q are taken in the tangent space, q (+) eps e_j (rd.integrate): moving
 * axis b by eps moves every axis c it "affects" by eps [ad_{S_b}] S_c: the axes of the
 * joints below it and, in its own joint, the later axes (a universal joint's second axis
 * turns with its first), or all of them for a joint whose velocity is a body twist (free,
 * spherical, planar: q (+) eps e_j right-multiplies the joint's transform). With V_b and
 * A_b the twist and acceleration of the axes b does not affect (the motion "before" b):
 *
 *   dJ_c/dq_b = [ad_{S_b}] S_c  (b affects c),          dV_s/dq_b = [ad_{S_b}] (V_s - V_b)
 *   dA_s/dq_b = [ad_{S_b}] (A_s - A_b) + [ad_{[ad_{V_b}] S_b}] (V_s - V_b)
 *   dA_s/dv_b = [ad_{S_b}] (V_s - V_b) + [ad_{P_b}] S_b,   dV_s/dv = dA_s/da = J_s
 *
 * (the second line by the Jacobi identity [ad_{[ad_X] Y}] = [ad_X][ad_Y] - [ad_Y][ad_X];
 * Carpentier and Mansard, RSS 2018, write the same recursion in joint frames). The frame's
 * coordinates follow: body, X_b = [Ad_{T^-1}] X_s with d[Ad_{T^-1}]/dq_j = -[Ad_{T^-1}]
 * [ad_{J_j}]; world aligned, [w; v + w x p] and the classical acceleration [dw; a + dw x p
 * + w x pdot] differentiated by the product rule (p the frame origin, pdot = v + w x p).
 */
#include "batch.h"
#include "kinpath.h"

/* an axis record, laned: S_b (0:6), V_b (6:12), A_b (12:18), P_b (18:24) */
enum { XR = 24, X_S = 0, X_V = 6, X_A = 12, X_P = 18 };
/* the axis' integers: its column of J, its body's place on the path (root 0), its place in
 * its joint, whether its joint's velocity is a body twist */
enum { XI = 4 };

int64_t rd_kinderiv_work(const model_t *md)
{
    /* the poses (WK a body), the path (nb int64), the axes' integers (XI each), their
     * laned records (XR each), then J_s and dV_s/dq (6 nv each) */
    const int64_t na = axes_count(md);
    return WK * md->nb + md->nb + XI * na + XR * na + 12 * md->nv;
}

RD_INLINE int body_twist_joint(int64_t jt)
{
    return jt == J_FREE || jt == J_SPHERICAL || jt == J_PLANAR;
}

RD_INLINE int affects(const int64_t *xb, const int64_t *xc)
{
    /* whether moving axis b moves axis c (their integers) */
    return xb[1] < xc[1] || (xb[1] == xc[1] && (xb[3] || xc[2] >= xb[2]));
}

RD_INLINE void acc6(int L, double *x, const double *y, double s)
{
    for (int k = 0; k < 6 * L; k++)
        x[k] += s * y[k];
}

RD_INLINE void velocity_product(int L, const double *P, double *r, const double *vb, double *A)
{
    /* the record's P_b = P, and A += [ad_{P_b}] S_b v_b (vb: the lanes of v_b; NULL: 0) */
    double t[6 * LANES];
    for (int k = 0; k < 6 * L; k++)
        r[X_P * L + k] = P[k], t[k] = 0.0;
    if (!vb)
        return;
    ad_add(L, P, r + X_S * L, 1.0, t, L);
    for (int rr = 0; rr < 6; rr++)
        LANE { A[rr * L + l] += t[rr * L + l] * vb[l]; }
}

RD_INLINE int64_t support_axes(const model_t *md, int L, const args_t *a, double *W,
                               int64_t **xi_out, double **xr_out, double *T, double *V,
                               double *A)
{
    /* the poses of the frame's support, its axes' records and integers, the frame pose T
     * and its space twist V and acceleration A (v = x[1], a = x[2], each NULL: zero);
     * returns the number of axes */
    const double *q = a->x[0], *v = a->x[1], *qdd = a->x[2];
    int64_t *path = path_area(md, L, W), *xi = path + md->nb;
    double *xr = (double *)(xi + XI * axes_count(md)), col[36 * LANES];
    const int n = forward_path(md, L, q, a->frame, W, path);
    frame_pose4(md, L, W, a->frame, T);
    for (int k = 0; k < 6 * L; k++)
        V[k] = A[k] = 0.0;
    int64_t na = 0;
    for (int j = n - 1; j >= 0; j--) {
        const int64_t i = path[j], *Ii = body_i(md, i), va = Ii[BI_VIDX];
        const int m = joint_columns(md, L, W + (WK * i + K_R) * L, W + (WK * i + K_P) * L, q, i,
                                    col);
        const int bt = body_twist_joint(Ii[BI_TYPE]);
        double V0[6 * LANES], A0[6 * LANES];
        for (int k = 0; k < 6 * L; k++)
            V0[k] = V[k], A0[k] = A[k];
        for (int c = 0; c < m; c++) {
            int64_t *x = xi + XI * (na + c);
            double *r = xr + XR * (na + c) * L;
            const double *S = col + 6 * c * L;
            x[0] = va + c, x[1] = n - 1 - j, x[2] = c, x[3] = bt;
            for (int k = 0; k < 6 * L; k++) /* S_b, and V_b, A_b: before the joint, or axis */
                r[X_S * L + k] = S[k], r[X_V * L + k] = bt ? V0[k] : V[k],
                r[X_A * L + k] = bt ? A0[k] : A[k];
            if (v) /* V_s += S_b v_b (MR eq. 5.6) */
                for (int rr = 0; rr < 6; rr++)
                    LANE { V[rr * L + l] += S[rr * L + l] * v[(va + c) * L + l]; }
            if (qdd)
                for (int rr = 0; rr < 6; rr++)
                    LANE { A[rr * L + l] += S[rr * L + l] * qdd[(va + c) * L + l]; }
            if (!bt) /* P_b, the twist up to this axis: A_s += [ad_{P_b}] S_b v_b now, so
                      * that the joint's next axis starts from it */
                velocity_product(L, V, r, v ? v + (va + c) * L : NULL, A);
        }
        for (int c = 0; bt && c < m; c++) /* P_b: the twist after the whole joint */
            velocity_product(L, V, xr + XR * (na + c) * L, v ? v + (va + c) * L : NULL, A);
        na += m;
    }
    *xi_out = xi, *xr_out = xr;
    return na;
}

/* ---------------------------------------------------------------- coordinates */
RD_INLINE void to_body(int L, const double *T, double *x, int64_t stride)
{
    /* x <- [Ad_{T^-1}] x = [R^T w; R^T (v + w x p)] for one laned 6-vector, rows stride apart */
    LANE {
        const double px = T[3 * L + l], py = T[7 * L + l], pz = T[11 * L + l];
        const double wx = x[l], wy = x[stride + l], wz = x[2 * stride + l];
        const double vx = x[3 * stride + l] + wy * pz - wz * py;
        const double vy = x[4 * stride + l] + wz * px - wx * pz;
        const double vz = x[5 * stride + l] + wx * py - wy * px;
        for (int r = 0; r < 3; r++) {
            const double t0 = T[r * L + l], t1 = T[(4 + r) * L + l], t2 = T[(8 + r) * L + l];
            x[r * stride + l] = t0 * wx + t1 * wy + t2 * wz;
            x[(3 + r) * stride + l] = t0 * vx + t1 * vy + t2 * vz;
        }
    }
}

RD_INLINE void point_rate(int L, const double *T, const double *x, int64_t stride, double *pd)
{
    /* pd = v + w x p: the velocity (or rate) of the frame origin p for x = [w; v] */
    LANE {
        const double px = T[3 * L + l], py = T[7 * L + l], pz = T[11 * L + l];
        const double wx = x[l], wy = x[stride + l], wz = x[2 * stride + l];
        pd[l] = x[3 * stride + l] + wy * pz - wz * py;
        pd[L + l] = x[4 * stride + l] + wz * px - wx * pz;
        pd[2 * L + l] = x[5 * stride + l] + wx * py - wy * px;
    }
}

RD_INLINE void cross_acc(int L, const double *a, int64_t sa, const double *b, int64_t sb,
                         double *c, int64_t sc)
{
    /* c += a x b for laned 3-vectors with their own strides */
    LANE {
        const double ax = a[l], ay = a[sa + l], az = a[2 * sa + l];
        const double bx = b[l], by = b[sb + l], bz = b[2 * sb + l];
        c[l] += ay * bz - az * by;
        c[sc + l] += az * bx - ax * bz;
        c[2 * sc + l] += ax * by - ay * bx;
    }
}

/* ---------------------------------------------------------------- the kinematic Hessian */
RD_INLINE int hessian_lanes(const model_t *md, const int L, const args_t *a, double *out,
                            double *W)
{
    /* out (6, nv, nv): H[r, i, j] = dJ[r, i]/dq_j for the Jacobian of a->frame, kind
     * a->kind (dJ/dt = H v, contracted over j) */
    const int64_t nv = md->nv, n2 = nv * nv;
    int64_t *xi;
    double *xr, T[16 * LANES], V[6 * LANES], A[6 * LANES];
    args_t k0 = *a;
    k0.x[1] = k0.x[2] = NULL;
    const int64_t na = support_axes(md, L, &k0, W, &xi, &xr, T, V, A);
    for (int64_t k = 0; k < 6 * n2 * L; k++)
        out[k] = 0.0;
    /* space: H[:, c, b] += [ad_{S_b}] S_c for each axis b and each axis c it affects */
    for (int64_t b = 0; b < na; b++)
        for (int64_t c = 0; c < na; c++)
            if (affects(xi + XI * b, xi + XI * c))
                ad_add(L, xr + XR * b * L, xr + XR * c * L, 1.0,
                       out + (xi[XI * c] * nv + xi[XI * b]) * L, n2 * L);
    if (a->kind == KIND_SPACE)
        return 0;
    /* J_s (6, nv) summed from the axes (a mimic adds to its leader's column) */
    double *J = xr + XR * na * L;
    for (int64_t k = 0; k < 6 * nv * L; k++)
        J[k] = 0.0;
    for (int64_t b = 0; b < na; b++)
        for (int r = 0; r < 6; r++)
            LANE { J[(r * nv + xi[XI * b]) * L + l] += xr[(XR * b + X_S + r) * L + l]; }
    if (a->kind == KIND_BODY) {
        /* dJ_b,i/dq_j = [Ad_{T^-1}] (H_s[:, i, j] - [ad_{J_j}] J_i) */
        double Ji[6 * LANES], Jj[6 * LANES];
        for (int64_t i = 0; i < nv; i++)
            for (int64_t j = 0; j < nv; j++) {
                for (int r = 0; r < 6; r++)
                    LANE {
                        Ji[r * L + l] = J[(r * nv + i) * L + l];
                        Jj[r * L + l] = J[(r * nv + j) * L + l];
                    }
                double *h = out + (i * nv + j) * L;
                ad_add(L, Jj, Ji, -1.0, h, n2 * L);
                to_body(L, T, h, n2 * L);
            }
        return 0;
    }
    /* world aligned: d/dq_j [w_i; v_i + w_i x p] = [dw; dv + dw x p + w_i x pdot_j], with
     * pdot_j = v_j + w_j x p the origin's velocity along dof j */
    for (int64_t j = 0; j < nv; j++) {
        double pd[3 * LANES];
        point_rate(L, T, J + j * L, nv * L, pd);
        for (int64_t i = 0; i < nv; i++) {
            double *h = out + (i * nv + j) * L, pdl[3 * LANES];
            point_rate(L, T, h, n2 * L, pdl);
            for (int r = 0; r < 3; r++)
                LANE { h[(3 + r) * n2 * L + l] = pdl[r * L + l]; }
            cross_acc(L, J + i * L, nv * L, pd, L, h + 3 * n2 * L, n2 * L);
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- frame twist and acceleration */
RD_INLINE void column(int L, const double *M, int64_t nv, int64_t j, double *x)
{
    /* x (laned 6) = column j of the laned 6 x nv matrix M */
    for (int r = 0; r < 6; r++)
        LANE { x[r * L + l] = M[(r * nv + j) * L + l]; }
}

RD_INLINE void space_motion_derivatives(int L, int64_t nv, int64_t na, const int64_t *xi,
                                        const double *xr, const double *V, const double *A,
                                        int acc, double *J, double *dVq, double *dAq, double *dAv)
{
    /* J_s, dV_s/dq, and with acc dA_s/dq and dA_s/dv (6 x nv each, laned), axis by axis */
    for (int64_t k = 0; k < 6 * nv * L; k++)
        J[k] = dVq[k] = 0.0;
    if (acc)
        for (int64_t k = 0; k < 6 * nv * L; k++)
            dAq[k] = dAv[k] = 0.0;
    for (int64_t b = 0; b < na; b++) {
        const double *r = xr + XR * b * L, *S = r + X_S * L;
        const int64_t j = xi[XI * b];
        double dV[6 * LANES], dA[6 * LANES], t[6 * LANES];
        for (int k = 0; k < 6 * L; k++) /* V_s - V_b, A_s - A_b: what b moves */
            dV[k] = V[k] - r[X_V * L + k], dA[k] = A[k] - r[X_A * L + k];
        for (int rr = 0; rr < 6; rr++)
            LANE { J[(rr * nv + j) * L + l] += S[rr * L + l]; }
        ad_add(L, S, dV, 1.0, dVq + j * L, nv * L); /* dV_s/dq_b = [ad_{S_b}] (V_s - V_b) */
        if (!acc)
            continue;
        /* dA_s/dq_b = [ad_{S_b}] (A_s - A_b) + [ad_{[ad_{V_b}] S_b}] (V_s - V_b) */
        ad_add(L, S, dA, 1.0, dAq + j * L, nv * L);
        for (int k = 0; k < 6 * L; k++)
            t[k] = 0.0;
        ad_add(L, r + X_V * L, S, 1.0, t, L);
        ad_add(L, t, dV, 1.0, dAq + j * L, nv * L);
        /* dA_s/dv_b = [ad_{S_b}] (V_s - V_b) + [ad_{P_b}] S_b */
        ad_add(L, S, dV, 1.0, dAv + j * L, nv * L);
        ad_add(L, r + X_P * L, S, 1.0, dAv + j * L, nv * L);
    }
}

RD_INLINE void world_aligned_rates(int L, int64_t nv, const double *T, const double *V,
                                   const double *A, const double *J, const double *dVq,
                                   int acc, double *out)
{
    /* out = the derivatives of [w; pdot] (acc = 0: dV/dq, dV/dv) or of [dw; pddot]
     * (dA/dq, dA/dv, dA/da; out holds dA_s/dq and dA_s/dv on entry), pdot = v + w x p,
     * pddot = a + dw x p + w x pdot; pdot_j = v_j + w_j x p the origin's rate along dof j */
    const int64_t s = nv * L;
    double pd[3 * LANES];
    point_rate(L, T, V, L, pd);
    for (int64_t j = 0; j < nv; j++) {
        double pj[3 * LANES], x[3 * LANES];
        point_rate(L, T, J + j * L, s, pj);
        double *q0 = out + j * L, *v0 = out + 6 * s + j * L;
        if (!acc) { /* [dw_j; dv_j + dw_j x p + w x pdot_j], [w_j; pdot_j] */
            point_rate(L, T, q0, s, x);
            cross_acc(L, V, L, pj, L, x, L);
            for (int r = 0; r < 3; r++)
                LANE {
                    q0[(3 + r) * s + l] = x[r * L + l];
                    v0[r * s + l] = J[(r * nv + j) * L + l];
                    v0[(3 + r) * s + l] = pj[r * L + l];
                }
            continue;
        }
        /* dq: da + d(dw) x p + dw x pdot_j + d(w) x pdot + w x d(pdot), d(pdot) = rate of
         * dV/dq_j + w x pdot_j */
        double dpd[3 * LANES];
        point_rate(L, T, dVq + j * L, s, dpd);
        cross_acc(L, V, L, pj, L, dpd, L);
        point_rate(L, T, q0, s, x);
        cross_acc(L, A, L, pj, L, x, L);
        cross_acc(L, dVq + j * L, s, pd, L, x, L);
        cross_acc(L, V, L, dpd, L, x, L);
        for (int r = 0; r < 3; r++)
            LANE { q0[(3 + r) * s + l] = x[r * L + l]; }
        /* dv: da + d(dw) x p + w_j x pdot + w x pdot_j */
        point_rate(L, T, v0, s, x);
        cross_acc(L, J + j * L, s, pd, L, x, L);
        cross_acc(L, V, L, pj, L, x, L);
        double *a0 = out + 12 * s + j * L;
        for (int r = 0; r < 3; r++)
            LANE {
                v0[(3 + r) * s + l] = x[r * L + l];
                a0[r * s + l] = J[(r * nv + j) * L + l];
                a0[(3 + r) * s + l] = pj[r * L + l];
            }
    }
}

RD_INLINE int motion_derivatives_lanes(const model_t *md, const int L, const args_t *a,
                                       double *out, double *W)
{
    /* out = dV/dq, dV/dv (6 x nv each) of the twist of a->frame (x[1] = v), or with FL_ACC
     * dA/dq, dA/dv, dA/da of its acceleration (x[2] = a), in the coordinates of a->kind */
    const int64_t nv = md->nv, s = 6 * nv * L;
    const int acc = (a->flags & FL_ACC) != 0;
    int64_t *xi;
    double *xr, T[16 * LANES], V[6 * LANES], A[6 * LANES];
    args_t k0 = *a;
    if (!acc)
        k0.x[2] = NULL;
    const int64_t na = support_axes(md, L, &k0, W, &xi, &xr, T, V, A);
    double *J = xr + XR * na * L, *dVq = J + s;
    space_motion_derivatives(L, nv, na, xi, xr, V, A, acc, J, dVq, out, out + s);
    if (a->kind == KIND_WORLD_ALIGNED) {
        if (!acc)
            for (int64_t k = 0; k < s; k++)
                out[k] = dVq[k];
        world_aligned_rates(L, nv, T, V, A, J, dVq, acc, out);
        return 0;
    }
    /* space or body: [dX/dq, dX/dv(, dX/da)] with dV/dv = dA/da = J */
    if (!acc)
        for (int64_t k = 0; k < s; k++)
            out[k] = dVq[k], out[s + k] = J[k];
    else
        for (int64_t k = 0; k < s; k++)
            out[2 * s + k] = J[k];
    if (a->kind == KIND_SPACE)
        return 0;
    /* body: dX_b/dq_j = [Ad_{T^-1}] (dX_s/dq_j + [ad_{X_s}] J_j), X = V or A; the other
     * blocks [Ad_{T^-1}] of theirs */
    const double *X = acc ? A : V;
    for (int64_t j = 0; j < nv; j++) {
        double Jj[6 * LANES];
        column(L, J, nv, j, Jj);
        ad_add(L, X, Jj, 1.0, out + j * L, nv * L);
        for (int blk = 0; blk < (acc ? 3 : 2); blk++)
            to_body(L, T, out + blk * s + j * L, nv * L);
    }
    return 0;
}

/* ---------------------------------------------------------------- entry points */
CLONES int rd_kinematic_hessian(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                                double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? hessian_lanes(md, 1, a, out, W) : hessian_lanes(md, LANES, a, out, W);
}

CLONES int rd_motion_derivatives(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                                 double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? motion_derivatives_lanes(md, 1, a, out, W)
                  : motion_derivatives_lanes(md, LANES, a, out, W);
}
