/*
 * Forward kinematics (MR ch. 4), Jacobians and their time derivative (MR ch. 5), the
 * centre of mass and its Jacobian, and the residual of one inverse-kinematics step
 * (MR section 6.2): all from the poses T_s,i = T_s,lambda(i) T_{lambda(i),i}(q) of the
 * bodies, one joint at a time (MR eq. 4.13).
 *
 * x[0] = q; x[1] = qd (jacobian_dot) or T_sd (ik_residual, 4x4 row-major). Operational
 * frame f is fixed to body frame_body[f] at (R, p) = frame_Rp[f]. Jacobians have rows
 * [omega; v]: kind KIND_SPACE (J_s), KIND_BODY (J_b) or KIND_WORLD_ALIGNED (frame origin,
 * world axes).
 */
#include "kinpath.h"

/* ---------------------------------------------------------------- poses */
/* the workspace: WK fields a body, then the support path of a frame (nb int64) and the
 * columns of J it fills (nv int64) */
int64_t rd_kin_work(const model_t *md) { return WK * md->nb + md->nb + md->nv; }

RD_INLINE int64_t support_columns(const model_t *md, int64_t frame, int64_t *cols)
{
    /* the columns of J that the joints between the frame's body and the root fill (a mimic
     * joint's is its leader's), ascending, in cols (room: nv); their number */
    const int64_t nv = md->nv;
    for (int64_t c = 0; c < nv; c++)
        cols[c] = 0;
    for (int64_t j = md->frame_body[frame]; j > 0; j = body_i(md, j)[BI_PARENT])
        for (int64_t r = 0; r < body_i(md, j)[BI_NV]; r++)
            cols[body_i(md, j)[BI_VIDX] + r] = 1;
    int64_t n = 0;
    for (int64_t c = 0; c < nv; c++)
        if (cols[c])
            cols[n++] = c;
    return n;
}

RD_INLINE int body_poses_lanes(const model_t *md, const int L, const args_t *a, double *out,
                               double *W)
{
    /* out (nb, 4, 4): T_s,i of every body, the world first */
    forward_all(md, L, a->x[0], W);
    for (int64_t i = 0; i < md->nb; i++) {
        double *T = out + 16 * i * L;
        const double *Wi = W + WK * i * L;
        for (int r = 0; r < 3; r++)
            LANE {
                for (int c = 0; c < 3; c++)
                    T[(4 * r + c) * L + l] = Wi[(3 * r + c) * L + l];
                T[(4 * r + 3) * L + l] = Wi[(K_P + r) * L + l];
            }
        LANE {
            T[12 * L + l] = T[13 * L + l] = T[14 * L + l] = 0.0;
            T[15 * L + l] = 1.0;
        }
    }
    return 0;
}

RD_INLINE int frame_poses_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                double *W)
{
    /* out (nf, 4, 4): every operational frame */
    forward_all(md, L, a->x[0], W);
    for (int64_t f = 0; f < md->nf; f++)
        frame_pose4(md, L, W, f, out + 16 * f * L);
    return 0;
}

RD_INLINE int frame_pose_lanes(const model_t *md, const int L, const args_t *a, double *out,
                               double *W)
{
    /* out (4, 4): frame a->frame, posing only the bodies that support it */
    forward_path(md, L, a->x[0], a->frame, W, path_area(md, L, W));
    frame_pose4(md, L, W, a->frame, out);
    return 0;
}

RD_INLINE int jacobian_lanes(const model_t *md, const int L, const args_t *a, double *out,
                             double *W)
{
    /* out (6, nv): the Jacobian of frame a->frame, kind a->kind */
    int64_t *path = path_area(md, L, W);
    double T[16 * LANES];
    int n = forward_path(md, L, a->x[0], a->frame, W, path);
    frame_pose4(md, L, W, a->frame, T);
    /* a batch pattern (rd_jacobian_pattern) lists row 0's entries, the columns, first; one
     * state re-expresses only the support's columns too */
    const int64_t *cols = a->nz;
    int64_t ncol = a->nnz / 6;
    if (!cols) {
        int64_t *c = path + md->nb;
        ncol = support_columns(md, a->frame, c);
        cols = c;
    }
    space_jacobian(md, L, W, a->x[0], path, n, out, a->nz, a->nnz);
    change_kind(L, T, a->kind, md->nv, out, cols, ncol);
    return 0;
}

RD_INLINE int jacobian_dot_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                 double *W)
{
    /* out = J (6, nv), dJ/dt (6, nv), the frame twist V (6), all of kind a->kind. Space
     * columns obey dS_i/dt = [ad_{V_i}] S_i with V_i the space twist of body i (and
     * [ad_{S_i}] S_i = 0, so the joint's own rate may be included). Body: dJ_b =
     * -[ad_{V_b}] J_b + [Ad_{T^-1}] dJ_s. World aligned: the linear rows are d/dt (v + w x p)
     * = dv + dw x p + w x pdot. */
    const int64_t nv = md->nv;
    const double *v = a->x[1];
    double *J = out, *dJ = out + 6 * nv * L, *V = out + 12 * nv * L;
    int64_t *path = path_area(md, L, W);
    double T[16 * LANES], col[36 * LANES];
    int n = forward_path(md, L, a->x[0], a->frame, W, path);
    frame_pose4(md, L, W, a->frame, T);
    for (int64_t k = 0; k < 6 * nv * L; k++)
        J[k] = dJ[k] = 0.0;
    /* root to leaf: V_i = V_lambda + sum_c S_c v_c (space twists add, MR eq. 5.6); the
     * columns of joint i are its S_c and their derivatives [ad_{V_i}] S_c */
    for (int j = n - 1; j >= 0; j--) {
        const int64_t i = path[j], va = body_i(md, i)[BI_VIDX];
        double *Vi = W + (WK * i + K_V) * L;
        const double *Vl = W + (WK * body_i(md, i)[BI_PARENT] + K_V) * L;
        int m = joint_columns(md, L, W + (WK * i + K_R) * L, W + (WK * i + K_P) * L, a->x[0], i,
                              col);
        for (int k = 0; k < 6 * L; k++)
            Vi[k] = Vl[k];
        for (int c = 0; c < m; c++)
            for (int r = 0; r < 6; r++)
                LANE {
                    Vi[r * L + l] += col[(6 * c + r) * L + l] * v[(va + c) * L + l];
                    J[(r * nv + va + c) * L + l] += col[(6 * c + r) * L + l];
                }
        for (int c = 0; c < m; c++)
            ad_add(L, Vi, col + 6 * c * L, 1.0, dJ + (va + c) * L, nv * L);
        if (body_i(md, i)[BI_TYPE] == J_UNIVERSAL) {
            /* the first column also turns with t2: + [Ad_T_s,i] [qd2 (u x a2); 0] */
            const double *Fi = body_f(md, i), *R = W + (WK * i + K_R) * L;
            const double *p = W + (WK * i + K_P) * L;
            double u[3 * LANES], s2[LANES], c2[LANES], w[3 * LANES], ws[3 * LANES];
            universal_u(L, Fi, a->x[0] + body_i(md, i)[BI_QIDX] * L, u, s2, c2);
            cross_lc(L, u, Fi + BF_S, w);
            for (int r = 0; r < 3; r++)
                LANE { w[r * L + l] *= v[(va + 1) * L + l]; }
            rmul_l(L, R, w, ws);
            cross_l(L, p, ws, w);
            for (int r = 0; r < 3; r++)
                LANE {
                    dJ[(r * nv + va) * L + l] += ws[r * L + l];
                    dJ[((3 + r) * nv + va) * L + l] += w[r * L + l];
                }
        }
    }
    const double *Vb = W + (WK * md->frame_body[a->frame] + K_V) * L;
    for (int k = 0; k < 6 * L; k++)
        V[k] = Vb[k];
    if (a->kind == KIND_SPACE)
        return 0;
    /* the frame origin's velocity pdot = u + w x p (world axes) */
    double pd[3 * LANES];
    LANE {
        const double px = T[3 * L + l], py = T[7 * L + l], pz = T[11 * L + l];
        const double wx = V[l], wy = V[L + l], wz = V[2 * L + l];
        pd[l] = V[3 * L + l] + wy * pz - wz * py;
        pd[L + l] = V[4 * L + l] + wz * px - wx * pz;
        pd[2 * L + l] = V[5 * L + l] + wx * py - wy * px;
    }
    if (a->kind == KIND_WORLD_ALIGNED) {
        for (int64_t c = 0; c < nv; c++)
            LANE {
                const double px = T[3 * L + l], py = T[7 * L + l], pz = T[11 * L + l];
                const double dx = pd[l], dy = pd[L + l], dz = pd[2 * L + l];
                const double sx = J[c * L + l], sy = J[(nv + c) * L + l], sz = J[(2 * nv + c) * L + l];
                double *d = dJ + c * L + l;
                const double d0 = d[0], d1 = d[nv * L], d2 = d[2 * nv * L];
                d[3 * nv * L] += d1 * pz - d2 * py + sy * dz - sz * dy;
                d[4 * nv * L] += d2 * px - d0 * pz + sz * dx - sx * dz;
                d[5 * nv * L] += d0 * py - d1 * px + sx * dy - sy * dx;
            }
        change_kind(L, T, KIND_WORLD_ALIGNED, nv, J, NULL, 0);
        for (int k = 0; k < 3 * L; k++)
            V[3 * L + k] = pd[k];
        return 0;
    }
    /* body: V_b = Ad_{T^-1} V_s, J_b = Ad_{T^-1} J_s, dJ_b = -ad_{V_b} J_b + Ad_{T^-1} dJ_s */
    change_kind(L, T, KIND_BODY, nv, J, NULL, 0);
    change_kind(L, T, KIND_BODY, nv, dJ, NULL, 0);
    LANE {
        const double wx = V[l], wy = V[L + l], wz = V[2 * L + l];
        const double dx = pd[l], dy = pd[L + l], dz = pd[2 * L + l];
        for (int r = 0; r < 3; r++) {
            const double t0 = T[r * L + l], t1 = T[(4 + r) * L + l], t2 = T[(8 + r) * L + l];
            V[r * L + l] = t0 * wx + t1 * wy + t2 * wz;
            V[(3 + r) * L + l] = t0 * dx + t1 * dy + t2 * dz;
        }
    }
    double Jc[6 * LANES];
    for (int64_t c = 0; c < nv; c++) {
        for (int r = 0; r < 6; r++)
            LANE { Jc[r * L + l] = J[(r * nv + c) * L + l]; }
        ad_add(L, V, Jc, -1.0, dJ + c * L, nv * L);
    }
    return 0;
}

/* ---------------------------------------------------------------- frame twist and acceleration */
RD_INLINE int frame_motion_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                 double *W)
{
    /* out (6): the twist of frame a->frame (x[1] = qd), or with FL_ACC its acceleration
     * (x[2] = qdd), in the coordinates of a->kind, without forming J or dJ/dt. Down the
     * frame's support, root first, with t_i = sum_c S_c qd_c the space twist joint i adds
     * (S_c its space screw axes, MR eq. 5.6):
     *   V_s,i  = V_s,lambda + t_i
     *   dV_s,i = dV_s,lambda + sum_c S_c qdd_c + [ad_{V_s,i}] t_i  (dS_c/dt = [ad_{V_s,i}] S_c)
     * (a universal joint's first axis also turns with its second: + qd_1 [Ad_T_s,i]
     * [qd_2 (u x a2); 0]). Body: V_b = [Ad_{T^-1}] V_s and dV_b = [Ad_{T^-1}] dV_s (the
     * derivative of [Ad_{T^-1}] contributes -[ad_{V_b}] V_b = 0). World aligned: [w; pdot]
     * with pdot = v_s + w x p, and [dw; pddot] with pddot = dv_s + dw x p + w x pdot, the
     * classical acceleration of the frame origin p. */
    const double *q = a->x[0], *v = a->x[1];
    const double *qdd = (a->flags & FL_ACC) ? a->x[2] : NULL;
    const int acc = (a->flags & FL_ACC) != 0;
    int64_t *path = path_area(md, L, W);
    double T[16 * LANES], col[36 * LANES], V[6 * LANES], dV[6 * LANES], t[6 * LANES];
    const int n = forward_path(md, L, q, a->frame, W, path);
    frame_pose4(md, L, W, a->frame, T);
    for (int k = 0; k < 6 * L; k++)
        V[k] = dV[k] = 0.0;
    for (int j = n - 1; j >= 0; j--) {
        const int64_t i = path[j], va = body_i(md, i)[BI_VIDX];
        const double *R = W + (WK * i + K_R) * L, *p = W + (WK * i + K_P) * L;
        const int m = joint_columns(md, L, R, p, q, i, col);
        for (int k = 0; k < 6 * L; k++)
            t[k] = 0.0;
        for (int c = 0; c < m; c++)
            for (int r = 0; r < 6; r++)
                LANE {
                    t[r * L + l] += col[(6 * c + r) * L + l] * v[(va + c) * L + l];
                    if (qdd)
                        dV[r * L + l] += col[(6 * c + r) * L + l] * qdd[(va + c) * L + l];
                }
        for (int k = 0; k < 6 * L; k++)
            V[k] += t[k];
        if (!acc)
            continue;
        ad_add(L, V, t, 1.0, dV, L);
        if (body_i(md, i)[BI_TYPE] == J_UNIVERSAL) {
            const double *Fi = body_f(md, i);
            double u[3 * LANES], s2[LANES], c2[LANES], w[3 * LANES], ws[3 * LANES];
            universal_u(L, Fi, q + body_i(md, i)[BI_QIDX] * L, u, s2, c2);
            cross_lc(L, u, Fi + BF_S, w);
            for (int r = 0; r < 3; r++)
                LANE { w[r * L + l] *= v[(va + 1) * L + l] * v[va * L + l]; }
            rmul_l(L, R, w, ws);
            cross_l(L, p, ws, w);
            for (int k = 0; k < 3 * L; k++)
                dV[k] += ws[k], dV[3 * L + k] += w[k];
        }
    }
    const double *X = acc ? dV : V;
    if (a->kind == KIND_SPACE) {
        for (int k = 0; k < 6 * L; k++)
            out[k] = X[k];
        return 0;
    }
    LANE {
        const double px = T[3 * L + l], py = T[7 * L + l], pz = T[11 * L + l];
        const double wx = V[l], wy = V[L + l], wz = V[2 * L + l];
        /* pdot = v_s + w x p */
        const double dx = V[3 * L + l] + wy * pz - wz * py;
        const double dy = V[4 * L + l] + wz * px - wx * pz;
        const double dz = V[5 * L + l] + wx * py - wy * px;
        const double xw[3] = {X[l], X[L + l], X[2 * L + l]};
        /* the linear part at the frame origin: v + w x p (velocity) or the same for dV */
        double lin[3] = {X[3 * L + l] + xw[1] * pz - xw[2] * py, X[4 * L + l] + xw[2] * px - xw[0] * pz,
                         X[5 * L + l] + xw[0] * py - xw[1] * px};
        if (a->kind == KIND_WORLD_ALIGNED) {
            if (acc) { /* + w x pdot: the classical acceleration */
                lin[0] += wy * dz - wz * dy;
                lin[1] += wz * dx - wx * dz;
                lin[2] += wx * dy - wy * dx;
            }
            for (int r = 0; r < 3; r++)
                out[r * L + l] = xw[r], out[(3 + r) * L + l] = lin[r];
        }
        else /* body: R^T [w; v + w x p] */
            for (int r = 0; r < 3; r++) {
                const double t0 = T[r * L + l], t1 = T[(4 + r) * L + l], t2 = T[(8 + r) * L + l];
                out[r * L + l] = t0 * xw[0] + t1 * xw[1] + t2 * xw[2];
                out[(3 + r) * L + l] = t0 * lin[0] + t1 * lin[1] + t2 * lin[2];
            }
    }
    return 0;
}

/* ---------------------------------------------------------------- centre of mass */
RD_INLINE void com_sum(const model_t *md, int L, const double *W, double *c)
{
    /* c = sum_i (R_i h_i + m_i p_i) / sum_i m_i with h_i = m_i c_i (laned 3-vector) */
    double mt = 0.0, rh[3 * LANES];
    for (int k = 0; k < 3 * L; k++)
        c[k] = 0.0;
    for (int64_t i = 1; i < md->nb; i++) {
        const double *Fi = body_f(md, i), m = Fi[BF_MASS];
        if (m == 0.0)
            continue;
        const double *Wi = W + WK * i * L;
        rmul_lc(L, Wi + K_R * L, Fi + BF_H, rh);
        for (int k = 0; k < 3 * L; k++)
            c[k] += rh[k] + m * Wi[K_P * L + k];
        mt += m;
    }
    for (int k = 0; k < 3 * L; k++)
        c[k] /= mt;
}

RD_INLINE int com_lanes(const model_t *md, const int L, const args_t *a, double *out, double *W)
{
    /* out (3): the centre of mass in the world */
    forward_all(md, L, a->x[0], W);
    com_sum(md, L, W, out);
    return 0;
}

RD_INLINE int com_jacobian_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                 double *W)
{
    /* out = c (3), J_c (3, nv), world axes. A joint moves its whole subtree: with M_i the
     * subtree's mass and h_i the sum of m_j c_j over it (world), each space column
     * S = [w; u] of joint i adds (M_i u + w x h_i) / M (the subtree CoM's velocity,
     * weighted). The subtree sums reuse the twist fields of the workspace. */
    const int64_t nb = md->nb, nv = md->nv;
    double *c = out, *Jc = out + 3 * L, col[36 * LANES], rh[3 * LANES];
    forward_all(md, L, a->x[0], W);
    com_sum(md, L, W, c);
    double mt = 0.0;
    for (int64_t i = 1; i < nb; i++)
        mt += body_f(md, i)[BF_MASS];
    for (int64_t i = 0; i < nb; i++)
        for (int k = 0; k < 4 * L; k++)
            W[(WK * i + K_V) * L + k] = 0.0;
    for (int64_t i = nb - 1; i > 0; i--) {
        const double *Fi = body_f(md, i), m = Fi[BF_MASS];
        double *S = W + (WK * i + K_V) * L; /* M_i (1), h_i (3) */
        rmul_lc(L, W + (WK * i + K_R) * L, Fi + BF_H, rh);
        LANE { S[l] += m; }
        for (int k = 0; k < 3 * L; k++)
            S[L + k] += rh[k] + m * W[(WK * i + K_P) * L + k];
        double *Sl = W + (WK * body_i(md, i)[BI_PARENT] + K_V) * L;
        for (int k = 0; k < 4 * L; k++)
            Sl[k] += S[k];
    }
    for (int64_t k = 0; k < 3 * nv * L; k++)
        Jc[k] = 0.0;
    for (int64_t i = 1; i < nb; i++) {
        const int64_t va = body_i(md, i)[BI_VIDX];
        const double *S = W + (WK * i + K_V) * L;
        int n = joint_columns(md, L, W + (WK * i + K_R) * L, W + (WK * i + K_P) * L, a->x[0], i,
                              col);
        for (int j = 0; j < n; j++) {
            const double *s = col + 6 * j * L;
            LANE {
                const double Ms = S[l], hx = S[L + l], hy = S[2 * L + l], hz = S[3 * L + l];
                const double wx = s[l], wy = s[L + l], wz = s[2 * L + l];
                Jc[(va + j) * L + l] += (Ms * s[3 * L + l] + wy * hz - wz * hy) / mt;
                Jc[(nv + va + j) * L + l] += (Ms * s[4 * L + l] + wz * hx - wx * hz) / mt;
                Jc[(2 * nv + va + j) * L + l] += (Ms * s[5 * L + l] + wx * hy - wy * hx) / mt;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- inverse kinematics */
RD_INLINE void log6_one(const double *T, int s, double *V)
{
    /* exponential coordinates V = [omega theta; v theta] of T (4 x 4, entries s apart)
     * (MR algorithm 3.3.3.2). theta = atan2(|a| / 2, (tr R - 1) / 2) with a = vee(R - R^T)
     * = 2 sin(theta) w is accurate at every angle. For theta <= pi/2, omega theta = a theta
     * / (2 sin theta) (series near 0); beyond, w comes from the symmetric part (R + R^T)/2 -
     * cos(theta) 1 = (1 - cos(theta)) w w^T with the sign of a (stable near pi). Then
     * v theta = G^-1 p with G^-1 = 1 - [w]/2 + D [w]^2 (w = omega theta). */
#define E(r, c) T[(4 * (r) + (c)) * s]
    const double ax = E(2, 1) - E(1, 2), ay = E(0, 2) - E(2, 0), az = E(1, 0) - E(0, 1);
    const double sn = 0.5 * sqrt(ax * ax + ay * ay + az * az);
    const double cs = 0.5 * (E(0, 0) + E(1, 1) + E(2, 2) - 1.0);
    const double th = atan2(sn, cs);
    double wx, wy, wz;
    if (cs >= 0.0) {
        const double f = th < 1e-4 ? 0.5 + th * th / 12.0 : 0.5 * th / sn;
        wx = f * ax, wy = f * ay, wz = f * az;
    }
    else {
        const double one_c = 1.0 - cs, d0 = E(0, 0) - cs, d1 = E(1, 1) - cs, d2 = E(2, 2) - cs;
        double ux, uy, uz, n;
        if (d0 >= d1 && d0 >= d2) {
            ux = d0, uy = 0.5 * (E(1, 0) + E(0, 1)), uz = 0.5 * (E(2, 0) + E(0, 2));
            n = sqrt(d0 * one_c);
        }
        else if (d1 >= d2) {
            ux = 0.5 * (E(0, 1) + E(1, 0)), uy = d1, uz = 0.5 * (E(2, 1) + E(1, 2));
            n = sqrt(d1 * one_c);
        }
        else {
            ux = 0.5 * (E(0, 2) + E(2, 0)), uy = 0.5 * (E(1, 2) + E(2, 1)), uz = d2;
            n = sqrt(d2 * one_c);
        }
        if (ux * ax + uy * ay + uz * az < 0.0)
            n = -n;
        wx = th * ux / n, wy = th * uy / n, wz = th * uz / n;
    }
    double D;
    if (th < 1e-4)
        D = 1.0 / 12.0 + th * th / 720.0;
    else {
        /* theta sin(theta) / (2 (1 - cos theta)) = (theta/2) cot(theta/2): no cancellation */
        const double h = 0.5 * th;
        D = (1.0 - h * cos(h) / sin(h)) / (th * th);
    }
    const double px = E(0, 3), py = E(1, 3), pz = E(2, 3);
    const double cx = wy * pz - wz * py, cy = wz * px - wx * pz, cz = wx * py - wy * px;
    const double ex = wy * cz - wz * cy, ey = wz * cx - wx * cz, ez = wx * cy - wy * cx;
    V[0] = wx, V[s] = wy, V[2 * s] = wz;
    V[3 * s] = px - 0.5 * cx + D * ex;
    V[4 * s] = py - 0.5 * cy + D * ey;
    V[5 * s] = pz - 0.5 * cz + D * ez;
#undef E
}

RD_INLINE int ik_residual_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                double *W)
{
    /* out = T (4, 4), the body Jacobian J_b (6, nv) of frame a->frame, and the body twist
     * error V_b = log6(T^-1 T_sd) (6) for the target T_sd = x[1] (MR section 6.2.2) */
    const int64_t nv = md->nv;
    double *T = out, *J = out + 16 * L, *V = out + (16 + 6 * nv) * L, E[16 * LANES];
    const double *Td = a->x[1];
    int64_t *path = path_area(md, L, W);
    int n = forward_path(md, L, a->x[0], a->frame, W, path);
    frame_pose4(md, L, W, a->frame, T);
    space_jacobian(md, L, W, a->x[0], path, n, J, NULL, 0);
    change_kind(L, T, KIND_BODY, nv, J, NULL, 0);
    /* T^-1 T_sd = [R^T R_sd, R^T (p_sd - p)] */
    for (int r = 0; r < 3; r++)
        LANE {
            for (int c = 0; c < 4; c++) {
                double acc = 0.0;
                for (int k = 0; k < 3; k++)
                    acc += T[(4 * k + r) * L + l]
                           * (Td[(4 * k + c) * L + l] - (c == 3 ? T[(4 * k + 3) * L + l] : 0.0));
                E[(4 * r + c) * L + l] = acc;
            }
        }
    for (int l = 0; l < L; l++)
        log6_one(E + l, L, V + l);
    return 0;
}

int64_t rd_jacobian_pattern(const model_t *md, const args_t *a, int64_t *nz, int64_t *src)
{
    /* J's nonzero columns are the support's (support_columns): rows 0..5 of those columns,
     * ascending (room: 6 nv) */
    const int64_t nv = md->nv, n = support_columns(md, a->frame, nz);
    for (int64_t r = 5; r > 0; r--) /* rows 5 .. 1 land past the n columns they read */
        for (int64_t k = 0; k < n; k++)
            nz[r * n + k] = r * nv + nz[k];
    for (int64_t k = 0; k < 6 * n; k++)
        src[k] = nz[k];
    return 6 * n;
}

/* ---------------------------------------------------------------- parts and measures */
RD_INLINE int jacobian_dot_dj_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                    double *W)
{
    /* out (6, nv): dJ/dt alone, from jacobian_dot's [J, dJ, V] in the workspace's tail */
    const int64_t nv = md->nv;
    double *t = W + rd_kin_work(md) * L;
    jacobian_dot_lanes(md, L, a, t, W);
    for (int64_t k = 0; k < 6 * nv * L; k++)
        out[k] = t[6 * nv * L + k];
    return 0;
}

RD_INLINE int com_jacobian_j_lanes(const model_t *md, const int L, const args_t *a, double *out,
                                   double *W)
{
    /* out (3, nv): J_c alone, from com_jacobian's [c, J_c] in the workspace's tail */
    const int64_t nv = md->nv;
    double *t = W + rd_kin_work(md) * L;
    com_jacobian_lanes(md, L, a, t, W);
    for (int64_t k = 0; k < 3 * nv * L; k++)
        out[k] = t[3 * L + k];
    return 0;
}

RD_INLINE int manipulability_lanes(const model_t *md, const int L, const args_t *a, double *w,
                                   double *W)
{
    /* w = sqrt(det(J_k J_k^T)) for the k rows of J picked by a->rows (0: all six; MR sec.
     * 5.4): the product of J_k's singular values, computed as |det R| of the Householder
     * QR J_k^T = Q R (det(J_k J_k^T) = det(R^T R)), backward stable as an SVD is, so
     * accurate near a singularity; 0 when k > nv (J_k J_k^T has rank <= nv < k) */
    const int64_t nv = md->nv;
    double *J = W + rd_kin_work(md) * L, *A = J + 6 * nv * L; /* A = J_k^T (nv x k) */
    int rows[6], k = 0;
    for (int r = 0; r < 6; r++)
        if (a->rows == 0 || (a->rows & (1u << r)))
            rows[k++] = r;
    if (k > nv) {
        for (int l = 0; l < L; l++)
            w[l] = 0.0;
        return 0;
    }
    args_t c = *a;
    c.nz = NULL; /* all of J */
    jacobian_lanes(md, L, &c, J, W);
    for (int64_t i = 0; i < nv; i++)
        for (int j = 0; j < k; j++)
            LANE { A[(i * k + j) * L + l] = J[(rows[j] * nv + i) * L + l]; }
    LANE { w[l] = 1.0; }
    for (int j = 0; j < k; j++) /* reflect column j's entries j.. onto e_j: R_jj = -+|x| */
        LANE {
            double s = 0.0;
            for (int64_t i = j; i < nv; i++)
                s += A[(i * k + j) * L + l] * A[(i * k + j) * L + l];
            const double x0 = A[(j * k + j) * L + l], nx = sqrt(s);
            const double alpha = x0 > 0.0 ? -nx : nx; /* R_jj */
            w[l] *= nx;
            const double u0 = x0 - alpha, uu = s - x0 * x0 + u0 * u0; /* u = x - alpha e_j */
            if (uu == 0.0)
                continue;
            for (int c2 = j + 1; c2 < k; c2++) { /* A_c -= 2 u (u . A_c) / (u . u) */
                double d = u0 * A[(j * k + c2) * L + l];
                for (int64_t i = j + 1; i < nv; i++)
                    d += A[(i * k + j) * L + l] * A[(i * k + c2) * L + l];
                const double f = 2.0 * d / uu;
                A[(j * k + c2) * L + l] -= f * u0;
                for (int64_t i = j + 1; i < nv; i++)
                    A[(i * k + c2) * L + l] -= f * A[(i * k + j) * L + l];
            }
        }
    return 0;
}

RD_INLINE void jacobi_svd_one(int64_t n, int k, double *A, int sa, double *V)
{
    /* one-sided Jacobi (Hestenes): rotate the k columns of A (n x k, entry (i, j) at
     * A[(i k + j) sa]) in pairs until they are orthogonal, A <- A V with V (k x k,
     * row-major) the product of the rotations: then A = U S, the columns' norms are the
     * singular values and V's columns the right singular vectors. Each rotation zeroes the
     * pair's inner product gamma: t = sgn(z) / (|z| + sqrt(1 + z^2)), z = (beta - alpha) /
     * (2 gamma); it stops when every |gamma| <= 1e-15 sqrt(alpha beta) (every singular value
     * to relative accuracy, the small ones too) or after 60 sweeps */
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            V[i * k + j] = i == j ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int p = 0; p < k - 1; p++)
            for (int q = p + 1; q < k; q++) {
                double alpha = 0.0, beta = 0.0, gamma = 0.0;
                for (int64_t i = 0; i < n; i++) {
                    const double x = A[(i * k + p) * sa], y = A[(i * k + q) * sa];
                    alpha += x * x, beta += y * y, gamma += x * y;
                }
                if (gamma == 0.0 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta))
                    continue;
                rotated = 1;
                const double z = (beta - alpha) / (2.0 * gamma);
                const double t = (z >= 0.0 ? 1.0 : -1.0) / (fabs(z) + sqrt(1.0 + z * z));
                const double cs = 1.0 / sqrt(1.0 + t * t), sn = cs * t;
                for (int64_t i = 0; i < n; i++) {
                    const double x = A[(i * k + p) * sa], y = A[(i * k + q) * sa];
                    A[(i * k + p) * sa] = cs * x - sn * y;
                    A[(i * k + q) * sa] = sn * x + cs * y;
                }
                for (int i = 0; i < k; i++) {
                    const double x = V[i * k + p], y = V[i * k + q];
                    V[i * k + p] = cs * x - sn * y;
                    V[i * k + q] = sn * x + cs * y;
                }
            }
        if (!rotated)
            break;
    }
}

RD_INLINE int ellipsoid_lanes(const model_t *md, const int L, const args_t *a, double *out,
                              double *W)
{
    /* out = [sigma (6), U (6 x 6)]: the singular values of J_k (the k rows of J picked by
     * a->rows; 0: all six), largest first, zero past min(k, nv), and the left singular
     * vectors, the semi-axes' directions of the velocity ellipsoid (MR sec. 5.4: the
     * eigenpairs of J_k J_k^T), as the columns of the k x k matrix packed first in U's 36.
     * By one-sided Jacobi on J_k^T (nv x k), whose right singular vectors are J_k's left
     * ones; state by state (the number of sweeps is the state's own). */
    const int64_t nv = md->nv;
    double *J = W + rd_kin_work(md) * L, *A = J + 6 * nv * L; /* A = J_k^T */
    int rows[6], k = 0;
    for (int r = 0; r < 6; r++)
        if (a->rows == 0 || (a->rows & (1u << r)))
            rows[k++] = r;
    args_t c = *a;
    c.nz = NULL;
    jacobian_lanes(md, L, &c, J, W);
    for (int64_t i = 0; i < nv; i++)
        for (int j = 0; j < k; j++)
            LANE { A[(i * k + j) * L + l] = J[(rows[j] * nv + i) * L + l]; }
    for (int r = 0; r < 42 * L; r++)
        out[r] = 0.0;
    for (int l = 0; l < L; l++) {
        double V[36], sg[6];
        int order[6];
        jacobi_svd_one(nv, k, A + l, L, V);
        for (int j = 0; j < k; j++) {
            double s2 = 0.0;
            for (int64_t i = 0; i < nv; i++)
                s2 += A[(i * k + j) * L + l] * A[(i * k + j) * L + l];
            sg[j] = sqrt(s2);
            order[j] = j;
        }
        for (int i = 1; i < k; i++) /* largest first: an insertion sort of k <= 6 */
            for (int j = i; j > 0 && sg[order[j]] > sg[order[j - 1]]; j--) {
                const int t = order[j];
                order[j] = order[j - 1], order[j - 1] = t;
            }
        for (int j = 0; j < k; j++) {
            out[j * L + l] = sg[order[j]];
            for (int i = 0; i < k; i++)
                out[(6 + i * k + j) * L + l] = V[i * k + order[j]];
        }
    }
    return 0;
}

int64_t rd_kin_part_work(const model_t *md)
{
    /* the kinematics workspace, then a whole result (12 nv + 6) or J and J_k^T (12 nv) */
    return rd_kin_work(md) + 12 * md->nv + 6;
}

/* ---------------------------------------------------------------- entry points */
#define KIN_ENTRY(name)                                                                        \
    CLONES int rd_##name(const model_t *md, int L, const args_t *a, double *RESTRICT out,       \
                         double *RESTRICT W, int *lane)                                        \
    {                                                                                          \
        *lane = 0;                                                                             \
        return L == 1 ? name##_lanes(md, 1, a, out, W) : name##_lanes(md, LANES, a, out, W);   \
    }
KIN_ENTRY(body_poses)
KIN_ENTRY(frame_poses)
KIN_ENTRY(frame_pose)
KIN_ENTRY(jacobian)
KIN_ENTRY(jacobian_dot)
KIN_ENTRY(frame_motion)
KIN_ENTRY(com)
KIN_ENTRY(com_jacobian)
KIN_ENTRY(ik_residual)
KIN_ENTRY(jacobian_dot_dj)
KIN_ENTRY(com_jacobian_j)
KIN_ENTRY(manipulability)
KIN_ENTRY(ellipsoid)

/* log6 of one pose (4 x 4, row-major), for sim.c's task-space law */
void rd_log6(const double *T, double *V) { log6_one(T, 1, V); }
