/*
 * The joint model: the one place in C that knows the joint types (add a type here and in
 * robodyn/reference/_joint.py). Every algorithm asks it for
 *
 *   joint_pose    T_{lambda(i), i}(q) = T(jnt_R, jnt_p) X_J(q_i)
 *   joint_rate    the joint twist S_i x_i (x = qd or qdd) in body coordinates
 *   joint_column  column k of S_i (constant in body coordinates)
 *   joint_columns the space screw axes [Ad_T_s,i] S_i at the body's pose T_s,i
 *
 * Revolute S = [axis; 0], prismatic [0; axis], free S = 1_6 (its velocity is the body
 * twist, its configuration (x, y, z, qw, qx, qy, qz)), fixed S = 0 (no column). A mimic
 * joint reads mult q[leader] + offset and adds mult S_i^T F to its leader's torque.
 *
 * The joints of MR Table 2.1 beyond R and P keep S_i constant in body coordinates (the
 * columns at BF_S, written by _pack.py), so no S-dot term appears anywhere:
 *   spherical    q = (qw, qx, qy, qz), v = omega_b:        X_J = (R(quat), 0), S = [1_3; 0]
 *   planar       q = (phi, x, y), v = (omega_n, v_1, v_2):  X_J = (Rot(n, phi), x t1 + y t2),
 *                S = [n, 0, 0; 0, t1, t2] (n = axis, (t1, t2, n) right-handed)
 *   helical      q = theta:                                 X_J = (Rot(a, th), h th a),
 *                S = [a; h a] (pitch h in m/rad)
 *   cylindrical  q = (theta, d):                            X_J = (Rot(a, th), d a),
 *                S = [a, 0; 0, a]
 * The planar v is the body twist of the chassis (MR ch. 13), not the rate of (phi, x, y).
 *
 * The universal joint, q = (t1, t2): X_J = (Rot(a1, t1) Rot(a2, t2), 0) (Pinocchio's
 * JointModelUniversal), has S_i = [u, a2; 0, 0] with u = Rot(a2, t2)^T a1, which moves:
 * its rate dS/dt qd = c_J = [qd1 qd2 (u x a2); 0] (joint_bias) enters every velocity
 * product, and the algorithms take its columns per lane (universal_u).
 */
#ifndef RD_JOINT_H
#define RD_JOINT_H

#include "rd.h"

RD_INLINE void sincos_poly(double x, double *s, double *c)
{
    /* (sin x, cos x) for |x| < 1e5 in arithmetic only, so that a lane loop vectorises
     * (libm's sin and cos are scalar calls): Cody-Waite reduction x = n pi/2 + r with pi/2
     * in three parts (exact products n * part for |n| < 2^20), then minimax polynomials on
     * |r| <= pi/4 (Cephes' coefficients), within 1-2 ulp of libm. */
    double n = floor(x * 0.6366197723675814 + 0.5);
    double r = x - n * 1.57079632673412561417e00;
    r = r - n * 6.07710050630396597660e-11;
    r = r - n * 2.02226624871116645580e-21;
    double z = r * r;
    double ps = 1.58962301576546568060e-10;
    ps = ps * z - 2.50507477628578072866e-8;
    ps = ps * z + 2.75573136213857245213e-6;
    ps = ps * z - 1.98412698295895385996e-4;
    ps = ps * z + 8.33333333332211858878e-3;
    ps = ps * z - 1.66666666666666307295e-1;
    double sr = r + r * z * ps;
    double pc = -1.13585365213876817300e-11;
    pc = pc * z + 2.08757008419747316778e-9;
    pc = pc * z - 2.75573141792967388112e-7;
    pc = pc * z + 2.48015872888517045348e-5;
    pc = pc * z - 1.38888888888730564116e-3;
    pc = pc * z + 4.16666666666665929218e-2;
    double cr = 1.0 - 0.5 * z + z * z * pc;
    /* quadrant k = n mod 4: (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s); selected
     * with double comparisons only, so that the lane loop vectorises */
    const double k = n - 4.0 * floor(n * 0.25);
    const double odd = k - 2.0 * floor(k * 0.5);
    const double sn = odd != 0.0 ? cr : sr, cs = odd != 0.0 ? sr : cr;
    *s = k >= 2.0 ? -sn : sn;
    *c = fabs(k - 1.5) < 1.0 ? -cs : cs;
}

RD_INLINE void universal_u(int L, const double *Fi, const double *q0, double *u, double *s2,
                           double *c2)
{
    /* u = Rot(a2, t2)^T a1 = a1 - sin t2 (a2 x a1) + (1 - cos t2) a2 x (a2 x a1) (MR eq.
     * 3.51 transposed), laned, with sin t2 and 1 - cos t2 (q0: the joint's coordinates) */
    const double *a1 = Fi + BF_AXIS, *w1 = Fi + BF_S + 3, *w2 = Fi + BF_S + 6;
    LANE {
        s2[l] = sin(q0[L + l]), c2[l] = 1.0 - cos(q0[L + l]);
    }
    for (int r = 0; r < 3; r++)
        LANE { u[r * L + l] = a1[r] - s2[l] * w1[r] + c2[l] * w2[r]; }
}

RD_INLINE void joint_pose(int L, const int64_t *Ii, const double *Fi, const double *q,
                          double *RESTRICT R, double *RESTRICT p)
{
    /* (R, p) = T_{lambda(i), i}(q), laned. Revolute: R = R0 Rot(axis, th) = R0 + sin th
     * R0 [a] + (1 - cos th) R0 [a]^2 (MR eq. 3.51), p = p0; prismatic: R = R0, p = p0 + d R0
     * axis; free: R = R0 R(quat), p = p0 + R0 xyz (the quaternion is normalised on the
     * fly by the 2 / |quat|^2 scaling; a zero one is rejected before any algorithm runs). */
    const int64_t jt = Ii[BI_TYPE];
    const double *q0 = q + Ii[BI_QIDX] * L;
    const double mult = Fi[BF_MULT], off = Fi[BF_OFF];
    if (jt == J_UNIVERSAL) {
        /* R = (R0 + sin t1 R0 [a1] + (1 - cos t1) R0 [a1]^2) Rot(a2, t2), with Rot(a2, t2)
         * = 1 + sin t2 [a2] + (1 - cos t2) (a2 a2^T - 1) (MR eq. 3.51), p = p0 */
        double R1[9 * LANES], R2[9 * LANES], s[LANES], c[LANES];
        const double *a2 = Fi + BF_S;
        LANE { s[l] = sin(q0[l]), c[l] = 1.0 - cos(q0[l]); }
        for (int k = 0; k < 9; k++)
            LANE { R1[k * L + l] = Fi[BF_R0 + k] + s[l] * Fi[BF_A1 + k] + c[l] * Fi[BF_A2 + k]; }
        LANE { s[l] = sin(q0[L + l]), c[l] = 1.0 - cos(q0[L + l]); }
        const double K[9] = {0.0, -a2[2], a2[1], a2[2], 0.0, -a2[0], -a2[1], a2[0], 0.0};
        for (int k = 0; k < 9; k++) {
            const int r = k / 3, cc = k % 3;
            const double K2 = a2[r] * a2[cc] - (r == cc ? 1.0 : 0.0);
            LANE { R2[k * L + l] = (r == cc ? 1.0 : 0.0) + s[l] * K[k] + c[l] * K2; }
        }
        mm_l(L, R1, R2, R);
        for (int k = 0; k < 3; k++)
            LANE { p[k * L + l] = Fi[BF_P0 + k]; }
    }
    else if (jt == J_REVOLUTE || jt == J_HELICAL || jt == J_CYLINDRICAL || jt == J_PLANAR) {
        /* the rotation by the first coordinate (mult = 1, off = 0 but for a mimic) */
        double s[LANES], c[LANES];
        int big = 0;
        LANE { big |= fabs(mult * q0[l] + off) > 1e5; }
        if (big)
            LANE {
                double th = mult * q0[l] + off;
                s[l] = sin(th), c[l] = 1.0 - cos(th);
            }
        else
            LANE {
                double sn, cs;
                sincos_poly(mult * q0[l] + off, &sn, &cs);
                s[l] = sn, c[l] = 1.0 - cs;
            }
        for (int k = 0; k < 9; k++)
            LANE { R[k * L + l] = Fi[BF_R0 + k] + s[l] * Fi[BF_A1 + k] + c[l] * Fi[BF_A2 + k]; }
        for (int k = 0; k < 3; k++)
            LANE { p[k * L + l] = Fi[BF_P0 + k]; }
        if (jt == J_HELICAL) /* p = p0 + h th R0 a */
            for (int k = 0; k < 3; k++)
                LANE { p[k * L + l] += Fi[BF_PITCH] * q0[l] * Fi[BF_RA + k]; }
        else if (jt == J_CYLINDRICAL) /* p = p0 + d R0 a */
            for (int k = 0; k < 3; k++)
                LANE { p[k * L + l] += q0[L + l] * Fi[BF_RA + k]; }
        else if (jt == J_PLANAR) { /* p = p0 + R0 (x t1 + y t2) */
            const double *t1 = Fi + BF_S + 6 + 3, *t2 = Fi + BF_S + 12 + 3, *R0 = Fi + BF_R0;
            for (int k = 0; k < 3; k++) {
                const double a1 = R0[3 * k] * t1[0] + R0[3 * k + 1] * t1[1] + R0[3 * k + 2] * t1[2];
                const double a2 = R0[3 * k] * t2[0] + R0[3 * k + 1] * t2[1] + R0[3 * k + 2] * t2[2];
                LANE { p[k * L + l] += a1 * q0[L + l] + a2 * q0[2 * L + l]; }
            }
        }
    }
    else if (jt == J_PRISMATIC) {
        for (int k = 0; k < 9; k++)
            LANE { R[k * L + l] = Fi[BF_R0 + k]; }
        for (int k = 0; k < 3; k++)
            LANE { p[k * L + l] = Fi[BF_P0 + k] + (mult * q0[l] + off) * Fi[BF_RA + k]; }
    }
    else if (jt == J_FREE || jt == J_SPHERICAL) {
        /* the quaternion: q0[3:7] (free) or q0[0:4] (spherical) */
        double Rq[9 * LANES];
        const double *e = jt == J_FREE ? q0 + 3 * L : q0;
        LANE {
            double w = e[l], x = e[L + l], y = e[2 * L + l], z = e[3 * L + l];
            double s = 2.0 / (w * w + x * x + y * y + z * z);
            Rq[0 * L + l] = 1.0 - s * (y * y + z * z);
            Rq[1 * L + l] = s * (x * y - w * z);
            Rq[2 * L + l] = s * (x * z + w * y);
            Rq[3 * L + l] = s * (x * y + w * z);
            Rq[4 * L + l] = 1.0 - s * (x * x + z * z);
            Rq[5 * L + l] = s * (y * z - w * x);
            Rq[6 * L + l] = s * (x * z - w * y);
            Rq[7 * L + l] = s * (y * z + w * x);
            Rq[8 * L + l] = 1.0 - s * (x * x + y * y);
        }
        mm_cl(L, Fi + BF_R0, Rq, R);
        if (jt == J_SPHERICAL) {
            for (int k = 0; k < 3; k++)
                LANE { p[k * L + l] = Fi[BF_P0 + k]; }
            return;
        }
        for (int r = 0; r < 3; r++)
            LANE {
                p[r * L + l] = Fi[BF_P0 + r] + Fi[BF_R0 + 3 * r] * q0[l]
                               + Fi[BF_R0 + 3 * r + 1] * q0[L + l]
                               + Fi[BF_R0 + 3 * r + 2] * q0[2 * L + l];
            }
    }
    else {
        for (int k = 0; k < 9; k++)
            LANE { R[k * L + l] = Fi[BF_R0 + k]; }
        for (int k = 0; k < 3; k++)
            LANE { p[k * L + l] = Fi[BF_P0 + k]; }
    }
}

RD_INLINE void body_world_pose(const model_t *md, int L, int64_t i, const double *R,
                               const double *p, const double *Rl, const double *pl,
                               double *RESTRICT Ri, double *RESTRICT pi, double *ref)
{
    /* T_s,i = T_s,lambda T_{lambda,i} (MR eq. 4.13) into (Ri, pi), for T_{lambda,i} = (R, p)
     * (joint_pose) and the parent's pose at (Rl, pl) (the world's: 1, 0). For M and M^-1,
     * which are the same in any fixed frame, "the world" is the world frame moved to body
     * 1's origin (ref: laned 3, set at i = 1), so that a robot far from the world's origin
     * (a base at 1e6 m) keeps its digits (m |p|^2 would swamp I_c: at 1e8 m, M was 0) */
    compose_l(L, Rl, pl, R, p, Ri, pi);
    if (body_i(md, i)[BI_PARENT] == 0) {
        if (i == 1)
            for (int k = 0; k < 3 * L; k++)
                ref[k] = pi[k];
        for (int k = 0; k < 3 * L; k++)
            pi[k] -= ref[k];
    }
}

RD_INLINE void joint_rate(int L, const int64_t *Ii, const double *Fi, const double *q,
                          const double *x, double *RESTRICT jw, double *RESTRICT jv)
{
    /* [jw; jv] = S_i(q) x_i, laned; x = NULL is zero. A mimic scales its leader's rate. */
    const int64_t jt = Ii[BI_TYPE];
    if (x == NULL || jt == J_FIXED) {
        for (int k = 0; k < 3 * L; k++)
            jw[k] = jv[k] = 0.0;
        return;
    }
    const double *x0 = x + Ii[BI_VIDX] * L;
    if (jt == J_FREE) {
        for (int k = 0; k < 3 * L; k++)
            jw[k] = x0[k], jv[k] = x0[3 * L + k];
        return;
    }
    if (jt == J_UNIVERSAL) { /* [u x_1 + a2 x_2; 0] */
        double u[3 * LANES], s2[LANES], c2[LANES];
        const double *a2 = Fi + BF_S;
        universal_u(L, Fi, q + Ii[BI_QIDX] * L, u, s2, c2);
        for (int r = 0; r < 3; r++)
            LANE {
                jw[r * L + l] = u[r * L + l] * x0[l] + a2[r] * x0[L + l];
                jv[r * L + l] = 0.0;
            }
        return;
    }
    if (jt >= J_SPHERICAL) {
        /* S_i x_i over the constant columns at BF_S */
        const int64_t n = Ii[BI_NV];
        const double *S = Fi + BF_S;
        for (int r = 0; r < 3; r++)
            LANE {
                double aw = 0.0, av = 0.0;
                for (int k = 0; k < n; k++)
                    aw += S[6 * k + r] * x0[k * L + l], av += S[6 * k + 3 + r] * x0[k * L + l];
                jw[r * L + l] = aw, jv[r * L + l] = av;
            }
        return;
    }
    double *on = jt == J_REVOLUTE ? jw : jv, *off = jt == J_REVOLUTE ? jv : jw;
    const double *ax = Fi + BF_AXIS, mult = Fi[BF_MULT];
    for (int r = 0; r < 3; r++)
        LANE {
            on[r * L + l] = ax[r] * mult * x0[l];
            off[r * L + l] = 0.0;
        }
}

RD_INLINE int joint_bias(int L, const int64_t *Ii, const double *Fi, const double *q,
                         const double *v, double *RESTRICT cw)
{
    /* c_J = (dS_i/dt) qd_i, laned, angular part only (the linear part is 0): nonzero for a
     * universal joint only, [qd1 qd2 (u x a2); 0]; returns 0 (and leaves cw) otherwise */
    if (Ii[BI_TYPE] != J_UNIVERSAL || v == NULL)
        return 0;
    double u[3 * LANES], s2[LANES], c2[LANES];
    const double *a2 = Fi + BF_S, *v0 = v + Ii[BI_VIDX] * L;
    universal_u(L, Fi, q + Ii[BI_QIDX] * L, u, s2, c2);
    cross_lc(L, u, a2, cw);
    for (int r = 0; r < 3; r++)
        LANE { cw[r * L + l] *= v0[l] * v0[L + l]; }
    return 1;
}

RD_INLINE void body_motion(int L, const int64_t *Ii, const double *Fi, const double *q,
                            const double *v, const double *qdd, const double *R, const double *p,
                            const double *ml, double *mi, int acc)
{
    /* the twist V_i = [w; v] of body i and, with acc, its acceleration dV_i = [dw; dv]
     * (body coordinates), at mi (w, v, dw, dv: 3 laned components each), from its
     * parent's at ml and T_{lambda,i} = (R, p); qdd = NULL is zero:
     *   V_i  = Ad_{T_{i,lambda}} V_lambda + S_i qd_i                                (MR 8.50)
     *   dV_i = Ad_{T_{i,lambda}} dV_lambda + ad_{V_i} (S_i qd_i) + S_i qdd_i + dS_i qd_i (8.51)
     * with ad_V [w_J; v_J] = [w x w_J; w x v_J + v x w_J] */
    double jw[3 * LANES], jv[3 * LANES];
    double *w = mi, *vb = mi + 3 * L, *dw = mi + 6 * L, *dv = mi + 9 * L;
    joint_rate(L, Ii, Fi, q, v, jw, jv); /* S_i qd_i */
    motion_from_parent(L, R, p, ml, ml + 3 * L, w, vb);
    for (int k = 0; k < 3 * L; k++)
        w[k] += jw[k], vb[k] += jv[k];
    if (!acc)
        return;
    double aw[3 * LANES], av[3 * LANES], e[3 * LANES];
    joint_rate(L, Ii, Fi, q, qdd, aw, av); /* S_i qdd_i */
    if (joint_bias(L, Ii, Fi, q, v, e))    /* + dS_i/dt qd_i (a universal joint) */
        for (int k = 0; k < 3 * L; k++)
            aw[k] += e[k];
    motion_from_parent(L, R, p, ml + 6 * L, ml + 9 * L, dw, dv);
    for (int k = 0; k < 3 * L; k++)
        dw[k] += aw[k], dv[k] += av[k];
    cross_add_l(L, w, jw, dw);
    cross_l(L, w, jv, e);
    cross_add_l(L, vb, jw, e);
    for (int k = 0; k < 3 * L; k++)
        dv[k] += e[k];
}

RD_INLINE void joint_column(int64_t jt, const double *Fi, int k, double *s)
{
    /* column k of S_i (6): revolute [axis; 0], prismatic [0; axis], free e_k, the others
     * their constant column k at BF_S (a universal joint's columns depend on q: the
     * algorithms take them from universal_u) */
    memset(s, 0, 6 * sizeof(double));
    if (jt == J_REVOLUTE)
        memcpy(s, Fi + BF_AXIS, 3 * sizeof(double));
    else if (jt == J_PRISMATIC)
        memcpy(s + 3, Fi + BF_AXIS, 3 * sizeof(double));
    else if (jt >= J_SPHERICAL)
        memcpy(s, Fi + BF_S + 6 * k, 6 * sizeof(double));
    else
        s[k] = 1.0;
}

RD_INLINE int joint_columns(const model_t *md, int L, const double *R, const double *p,
                            const double *q, int64_t i, double *col)
{
    /* the space screw axes of joint i, its body at (R, p) = T_s,i, into col (6 x 6, column
     * c at col[6 c L ...]); their number. Revolute S = [w; p x w] with w = R_s,i a (MR eq.
     * 5.11); prismatic [0; w]; a mimic scales its axis by its multiplier; a free joint's
     * velocity is its body twist, so its columns are [Ad_T_s,i]: angular k [R e_k; p x
     * R e_k], linear k [0; R e_k]; the other joints' constant body columns are moved the
     * same way, and a universal joint's [u; 0], [a2; 0] (u = Rot(a2, t2)^T a1 at q). */
    const int64_t *Ii = body_i(md, i);
    const double *Fi = body_f(md, i);
    const int64_t jt = Ii[BI_TYPE];
    if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
        double w[3 * LANES];
        rmul_lc(L, R, Fi + BF_AXIS, w);
        for (int k = 0; k < 3 * L; k++)
            w[k] *= Fi[BF_MULT];
        if (jt == J_REVOLUTE) {
            for (int k = 0; k < 3 * L; k++)
                col[k] = w[k];
            cross_l(L, p, w, col + 3 * L);
        }
        else
            for (int k = 0; k < 3 * L; k++)
                col[k] = 0.0, col[3 * L + k] = w[k];
        return 1;
    }
    if (jt == J_FREE) {
        for (int k = 0; k < 3; k++) {
            double *ca = col + 6 * k * L, *cl = col + 6 * (3 + k) * L;
            for (int r = 0; r < 3; r++)
                LANE {
                    ca[r * L + l] = R[(3 * r + k) * L + l];
                    cl[r * L + l] = 0.0;
                    cl[(3 + r) * L + l] = R[(3 * r + k) * L + l];
                }
            cross_l(L, p, ca, ca + 3 * L);
        }
        return 6;
    }
    if (jt == J_UNIVERSAL) {
        double u[3 * LANES], s2[LANES], c2[LANES];
        universal_u(L, Fi, q + Ii[BI_QIDX] * L, u, s2, c2);
        rmul_l(L, R, u, col);
        cross_l(L, p, col, col + 3 * L);
        rmul_lc(L, R, Fi + BF_S, col + 6 * L);
        cross_l(L, p, col + 6 * L, col + 9 * L);
        return 2;
    }
    if (jt >= J_SPHERICAL) {
        /* constant body columns s = [s_w; s_v]: [Ad_T_s,i] s = [R s_w; p x R s_w + R s_v] */
        const int64_t n = Ii[BI_NV];
        for (int k = 0; k < n; k++) {
            const double *s = Fi + BF_S + 6 * k;
            double *c = col + 6 * k * L, t[3 * LANES];
            rmul_lc(L, R, s, c);
            rmul_lc(L, R, s + 3, t);
            cross_l(L, p, c, c + 3 * L);
            for (int r = 0; r < 3 * L; r++)
                c[3 * L + r] += t[r];
        }
        return (int)n;
    }
    return 0;
}

RD_INLINE int64_t axes_count(const model_t *md)
{
    /* the joint axes of the model, the columns of the joints' subspaces S_i (a mimic
     * joint's own included): crba.c's, kinderiv.c's and rnea_derivatives.c's per-axis
     * records */
    int64_t n = 0;
    for (int64_t i = 1; i < md->nb; i++)
        n += body_i(md, i)[BI_NV];
    return n;
}

RD_INLINE int joint_check(const model_t *md, const double *q)
{
    /* 0, or E_QUATERNION if a free or spherical joint's quaternion is zero (one state) */
    if (!md->has_free)
        return 0;
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        if (Ii[BI_TYPE] == J_FREE || Ii[BI_TYPE] == J_SPHERICAL) {
            const double *e = q + Ii[BI_QIDX] + (Ii[BI_TYPE] == J_FREE ? 3 : 0);
            if (e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] == 0.0)
                return E_QUATERNION;
        }
    }
    return 0;
}

#endif
