/*
 * The configuration space's group operations, joint by joint on each joint's manifold
 * (MR ch. 2-3), in the arithmetic of robodyn.model.configuration (the same formulas,
 * branches and Taylor thresholds, the same conventions: quaternions (w, x, y, z), the
 * rotation increment in the body frame, v of a free joint the body twist [omega_b; v_b],
 * v of a planar joint its planar body twist (omega, v_1, v_2)):
 *
 *   integrate  q (+) v dt
 *     revolute, prismatic, helical, cylindrical, universal   q + v dt
 *     spherical  quat_new = quat * exp(omega dt / 2)       (R_new = R exp3(omega dt))
 *     free       T_new = T exp6([V_b] dt)                  (MR eq. 3.88):
 *                p_new = p + R G(omega dt) v dt,  G(w) = I + B [w] + C [w]^2 (MR prop. 3.25),
 *                the quaternion as a spherical joint's
 *     planar     phi_new = phi + omega dt,  p_new = p + R(phi) G2(omega dt) v dt   (SE(2)),
 *                G2(t) = [[sin t, -(1 - cos t)], [1 - cos t, sin t]] / t; phi never wrapped
 *   difference q1 (-) q0, the v with q0 (+) v = q1
 *     vector joints  q1 - q0
 *     spherical  omega_b = log3(R0^T R1)                   (MR alg. 3.2.3.3, angle in [0, pi])
 *     free       V_b = log6(T0^-1 T1)                      (MR alg. 3.3.3.2)
 *     planar     omega = phi1 - phi0,  v = G2(omega)^-1 R(phi0)^T (p1 - p0)
 *
 * Quaternions are normalised before use (and the result of integrate after the product);
 * a zero one is refused before the algorithm runs (batch.c, E_QUATERNION + argument). A
 * mimic joint owns no coordinate. dt travels in args_t.eps. No workspace.
 *
 * Each joint's formulas are scalar code on one lane (a state), called in a loop over the
 * lanes; the vector joints' q + v dt is one lane loop the compiler vectorises.
 */
#include "cspace.h"

/* GCC 12's SLP vectoriser may fuse the one-state code's pairs of products differently from
 * the same lane of a batch (momentum.c); the lane loops do not need it */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

/* Below these angles the closed forms are replaced by their Taylor series, as in numpy:
 * model/configuration.py's _quat_exp and _G2 (1e-4), _G and spatial.log3/log6 (1e-3) */
#define SMALL_QUAT 1e-4
#define SMALL_G2 1e-4
#define SMALL_G 1e-3
#define SMALL_LOG 1e-3

int64_t rd_cspace_work(const model_t *md)
{
    (void)md;
    return 0;
}

int64_t rd_integrate_out(const model_t *md) { return md->nq; }

/* ---------------------------------------------------------------- one lane's helpers
 * x[k * L] is component k of a laned vector x pointed at its lane */

RD_INLINE void quat_unit(const double *e, int L, double u[4])
{
    /* u = e / |e| (e nonzero: checked before the algorithm) */
    const double n = sqrt(e[0] * e[0] + e[L] * e[L] + e[2 * L] * e[2 * L] + e[3 * L] * e[3 * L]);
    u[0] = e[0] / n, u[1] = e[L] / n, u[2] = e[2 * L] / n, u[3] = e[3 * L] / n;
}

RD_INLINE void quat_rotation(const double *e, int L, double R[9])
{
    /* R(quat) row-major for the quaternion (w, x, y, z) of any nonzero norm: the unit
     * quaternion's formula with 2 replaced by s = 2 / |quat|^2 (one division, no root) */
    const double w = e[0], x = e[L], y = e[2 * L], z = e[3 * L];
    const double s = 2.0 / (w * w + x * x + y * y + z * z);
    R[0] = 1 - s * (y * y + z * z), R[1] = s * (x * y - w * z), R[2] = s * (x * z + w * y);
    R[3] = s * (x * y + w * z), R[4] = 1 - s * (x * x + z * z), R[5] = s * (y * z - w * x);
    R[6] = s * (x * z - w * y), R[7] = s * (y * z + w * x), R[8] = 1 - s * (x * x + y * y);
}

RD_INLINE void quat_step(const double *e, const double w[3], int L, double *out)
{
    /* out = unit(unit(e) * exp(w / 2)), exp(w / 2) = [cos(t/2), sin(t/2) w / t], t = |w|
     * (sin(t/2)/t = 1/2 - t^2/48 + t^4/3840 below SMALL_QUAT); the Hamilton product
     * [a0 b0 - a.b; a0 b + b0 a + a x b] */
    double a[4], b[4], c[4];
    quat_unit(e, L, a);
    const double t = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), t2 = t * t;
    const double s = t < SMALL_QUAT ? 0.5 - t2 / 48.0 + t2 * t2 / 3840.0 : sin(t / 2) / t;
    b[0] = cos(t / 2), b[1] = s * w[0], b[2] = s * w[1], b[3] = s * w[2];
    c[0] = a[0] * b[0] - (a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    c[1] = a[0] * b[1] + b[0] * a[1] + (a[2] * b[3] - a[3] * b[2]);
    c[2] = a[0] * b[2] + b[0] * a[2] + (a[3] * b[1] - a[1] * b[3]);
    c[3] = a[0] * b[3] + b[0] * a[3] + (a[1] * b[2] - a[2] * b[1]);
    quat_unit(c, 1, out); /* c: a plain 4-vector (stride 1) */
}

RD_INLINE void g2_coeffs(double t, double *a, double *b)
{
    /* G2(t) = [[a, -b], [b, a]]: a = sin t / t, b = (1 - cos t) / t = 2 sin^2(t/2) / t (the
     * half-angle form: 1 - cos t cancels, 4e-14 lost at t = 6e-4); a = 1 - t^2/6,
     * b = t/2 - t^3/24 below SMALL_G2 */
    if (fabs(t) < SMALL_G2)
        *a = 1.0 - t * t / 6.0, *b = t / 2.0 - t * t * t / 24.0;
    else {
        const double h = sin(t / 2);
        *a = sin(t) / t, *b = 2.0 * (h * h) / t;
    }
}

/* ---------------------------------------------------------------- integrate, one lane */

RD_INLINE void spherical_integrate(const double *q, const double *v, double dt, int L,
                                   double *o)
{
    /* quat_new = quat * exp(omega dt / 2) */
    const double w[3] = {v[0] * dt, v[L] * dt, v[2 * L] * dt};
    double e[4];
    quat_step(q, w, L, e);
    for (int k = 0; k < 4; k++)
        o[k * L] = e[k];
}

RD_INLINE void free_integrate(const double *q, const double *v, double dt, int L, double *o)
{
    /* p_new = p + R G(w) u with w = omega dt, u = v dt (MR prop. 3.25):
     * G(w) u = u + B w x u + C w x (w x u), B = (1 - cos t)/t^2 = 2 sin^2(t/2)/t^2 (no
     * cancelling 1 - cos t), C = (t - sin t)/t^3 (B = 1/2 - t^2/24 + t^4/720,
     * C = 1/6 - t^2/120 + t^4/5040 below SMALL_G) */
    const double w[3] = {v[0] * dt, v[L] * dt, v[2 * L] * dt};
    const double u[3] = {v[3 * L] * dt, v[4 * L] * dt, v[5 * L] * dt};
    double R[9], e[4];
    quat_rotation(q + 3 * L, L, R);
    const double t = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), t2 = t * t;
    double B, C;
    if (t < SMALL_G)
        B = 0.5 - t2 / 24 + t2 * t2 / 720, C = 1.0 / 6 - t2 / 120 + t2 * t2 / 5040;
    else
        B = 2 * (sin(t / 2) * sin(t / 2)) / t2, C = (t - sin(t)) / (t2 * t);
    const double wu[3] = {w[1] * u[2] - w[2] * u[1], w[2] * u[0] - w[0] * u[2],
                          w[0] * u[1] - w[1] * u[0]};
    const double wwu[3] = {w[1] * wu[2] - w[2] * wu[1], w[2] * wu[0] - w[0] * wu[2],
                           w[0] * wu[1] - w[1] * wu[0]};
    double g[3];
    for (int r = 0; r < 3; r++)
        g[r] = u[r] + B * wu[r] + C * wwu[r];
    for (int r = 0; r < 3; r++)
        o[r * L] = q[r * L] + (R[3 * r] * g[0] + R[3 * r + 1] * g[1] + R[3 * r + 2] * g[2]);
    quat_step(q + 3 * L, w, L, e);
    for (int k = 0; k < 4; k++)
        o[(3 + k) * L] = e[k];
}

RD_INLINE void planar_integrate(const double *q, const double *v, double dt, int L, double *o)
{
    /* phi_new = phi + w, p_new = p + R(phi) G2(w) u with w = omega dt, u = (v_1, v_2) dt */
    const double phi = q[0], w = v[0] * dt, u1 = v[L] * dt, u2 = v[2 * L] * dt;
    double a, b;
    g2_coeffs(w, &a, &b);
    const double g1 = a * u1 - b * u2, g2 = b * u1 + a * u2; /* G2(w) u */
    const double c = cos(phi), s = sin(phi);
    o[0] = phi + w;
    o[L] = q[L] + (c * g1 - s * g2);
    o[2 * L] = q[2 * L] + (s * g1 + c * g2);
}

/* ---------------------------------------------------------------- difference, one lane */

RD_INLINE void log3_near_pi(const double R[9], double t, const double s[3], double w[3])
{
    /* the axis from the symmetric part (R + R^T)/2 = cos t I + (1 - cos t) n n^T: its
     * largest diagonal entry's column over that entry's root, signed so that n agrees with
     * the skew part s = sin t n (spatial.log3) */
    const double cn = cos(t);
    double S[3], D[3]; /* column k of S = ((R + R^T)/2 - cos t I) / (1 - cos t), its diagonal */
    for (int r = 0; r < 3; r++)
        D[r] = (0.5 * (R[4 * r] + R[4 * r]) - cn) / (1 - cn);
    int k = 0;
    if (D[1] > D[0])
        k = 1;
    if (D[2] > D[k])
        k = 2;
    for (int r = 0; r < 3; r++)
        S[r] = r == k ? D[k] : 0.5 * (R[3 * r + k] + R[3 * k + r]) / (1 - cn);
    const double d = sqrt(D[k] > 1e-300 ? D[k] : 1e-300);
    double n[3] = {S[0] / d, S[1] / d, S[2] / d};
    const double dot = n[0] * s[0] + n[1] * s[1] + n[2] * s[2];
    for (int r = 0; r < 3; r++)
        w[r] = (dot < 0 ? -n[r] : n[r]) * t;
}

RD_INLINE void log3_lane(const double R[9], double w[3])
{
    /* omega theta = log3(R), theta = atan2(|s|, (tr R - 1)/2) in [0, pi] with s the skew
     * part of R (MR alg. 3.2.3.3 made accurate everywhere, as spatial.log3):
     * theta / sin theta s, its series 1 + t^2/6 + 7 t^4/360 below SMALL_LOG, and near pi
     * the symmetric part */
    const double s[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])};
    const double s1 = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    double c = 0.5 * (R[0] + R[4] + R[8] - 1.0);
    c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
    const double t = atan2(s1, c);
    double f;
    if (t < SMALL_LOG)
        f = 1 + t * t / 6 + 7 * (t * t * t * t) / 360;
    else if (t > 2.0 && s1 < 0.5) {
        log3_near_pi(R, t, s, w);
        return;
    }
    else
        f = t / s1;
    w[0] = f * s[0], w[1] = f * s[1], w[2] = f * s[2];
}

RD_INLINE void relative_rotation(const double *e0, const double *e1, int L, double Rt[9],
                                 double R[9])
{
    /* Rt = R0^T (R0 = R(quat0)) and R = R0^T R1 */
    double R0[9], R1[9];
    quat_rotation(e0, L, R0);
    quat_rotation(e1, L, R1);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            Rt[3 * r + c] = R0[3 * c + r];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            R[3 * r + c] = Rt[3 * r] * R1[c] + Rt[3 * r + 1] * R1[3 + c] + Rt[3 * r + 2] * R1[6 + c];
}

RD_INLINE void spherical_difference(const double *q0, const double *q1, int L, double *o)
{
    /* omega_b = log3(R0^T R1) */
    double Rt[9], R[9], w[3];
    relative_rotation(q0, q1, L, Rt, R);
    log3_lane(R, w);
    for (int r = 0; r < 3; r++)
        o[r * L] = w[r];
}

RD_INLINE void free_difference(const double *q0, const double *q1, int L, double *o)
{
    /* V_b = log6(T0^-1 T1), T0^-1 T1 = (R0^T R1, R0^T (p1 - p0)) (MR eq. 3.64): omega =
     * log3(R0^T R1), v = G^-1(omega) p with G^-1 = I - [w]/2 + D [w]^2, D = (1 - (t/2)
     * cot(t/2)) / t^2 (1/12 + t^2/720 + t^4/30240 below SMALL_LOG; spatial.log6) */
    double Rt[9], R[9], w[3], p[3];
    relative_rotation(q0 + 3 * L, q1 + 3 * L, L, Rt, R);
    const double dp[3] = {q1[0] - q0[0], q1[L] - q0[L], q1[2 * L] - q0[2 * L]};
    for (int r = 0; r < 3; r++)
        p[r] = Rt[3 * r] * dp[0] + Rt[3 * r + 1] * dp[1] + Rt[3 * r + 2] * dp[2];
    log3_lane(R, w);
    const double x = w[0], y = w[1], z = w[2];
    const double t = sqrt(x * x + y * y + z * z);
    const double D = t < SMALL_LOG ? 1.0 / 12 + t * t / 720 + (t * t * t * t) / 30240
                                   : (1 - (t / 2) / tan(t / 2)) / (t * t);
    const double A = -0.5;
    const double xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
    const double G[9] = {1 - D * (yy + zz), -A * z + D * xy,   A * y + D * xz,
                         A * z + D * xy,    1 - D * (xx + zz), -A * x + D * yz,
                         -A * y + D * xz,   A * x + D * yz,    1 - D * (xx + yy)};
    for (int r = 0; r < 3; r++) {
        o[r * L] = w[r];
        o[(3 + r) * L] = G[3 * r] * p[0] + G[3 * r + 1] * p[1] + G[3 * r + 2] * p[2];
    }
}

RD_INLINE void planar_difference(const double *q0, const double *q1, int L, double *o)
{
    /* omega = phi1 - phi0, v = G2(omega)^-1 R(phi0)^T (p1 - p0), G2^-1 = [[a, b], [-b, a]]
     * / (a^2 + b^2) */
    const double w = q1[0] - q0[0], d1 = q1[L] - q0[L], d2 = q1[2 * L] - q0[2 * L];
    const double c = cos(q0[0]), s = sin(q0[0]);
    const double l1 = c * d1 + s * d2, l2 = -s * d1 + c * d2; /* R(phi0)^T dp */
    double a, b;
    g2_coeffs(w, &a, &b);
    const double det = a * a + b * b;
    o[0] = w;
    o[L] = (a * l1 + b * l2) / det;
    o[2 * L] = (-b * l1 + a * l2) / det;
}

/* ---------------------------------------------------------------- the algorithms */

RD_INLINE int integrate_lanes(const model_t *md, int L, const args_t *a, double *RESTRICT out)
{
    const double *q = a->x[0], *v = a->x[1], dt = a->eps;
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const int64_t jt = Ii[BI_TYPE];
        if (jt == J_FIXED || Ii[BI_MIMIC])
            continue;
        const double *qi = q + Ii[BI_QIDX] * L, *vi = v + Ii[BI_VIDX] * L;
        double *o = out + Ii[BI_QIDX] * L;
        if (jt == J_FREE)
            LANE { free_integrate(qi + l, vi + l, dt, L, o + l); }
        else if (jt == J_SPHERICAL)
            LANE { spherical_integrate(qi + l, vi + l, dt, L, o + l); }
        else if (jt == J_PLANAR)
            LANE { planar_integrate(qi + l, vi + l, dt, L, o + l); }
        else /* q + v dt: revolute, prismatic, helical, cylindrical, universal */
            for (int64_t k = 0; k < Ii[BI_NV]; k++)
                LANE { o[k * L + l] = qi[k * L + l] + vi[k * L + l] * dt; }
    }
    return 0;
}

RD_INLINE int difference_lanes(const model_t *md, int L, const args_t *a, double *RESTRICT out)
{
    const double *q0 = a->x[0], *q1 = a->x[1];
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const int64_t jt = Ii[BI_TYPE];
        if (jt == J_FIXED || Ii[BI_MIMIC])
            continue;
        const double *a0 = q0 + Ii[BI_QIDX] * L, *a1 = q1 + Ii[BI_QIDX] * L;
        double *o = out + Ii[BI_VIDX] * L;
        if (jt == J_FREE)
            LANE { free_difference(a0 + l, a1 + l, L, o + l); }
        else if (jt == J_SPHERICAL)
            LANE { spherical_difference(a0 + l, a1 + l, L, o + l); }
        else if (jt == J_PLANAR)
            LANE { planar_difference(a0 + l, a1 + l, L, o + l); }
        else /* q1 - q0 */
            for (int64_t k = 0; k < Ii[BI_NV]; k++)
                LANE { o[k * L + l] = a1[k * L + l] - a0[k * L + l]; }
    }
    return 0;
}

/* ---------------------------------------------------------------- q + v dt on rows
 * A model whose every coordinate is integrated as q + v dt (no free, spherical or planar
 * joint; then nq = nv and each joint's coordinates sit at its velocities' indices) needs
 * neither lanes nor a joint loop: a batch is one pass over its rows (batch.c, algo_t.rows),
 * the checks fused into it. */
int rd_integrate_vector(const model_t *md)
{
    /* 1 when q (+) v dt = q + v dt entry by entry */
    if (md->has_free || md->nq != md->nv)
        return 0;
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        if (Ii[BI_TYPE] != J_FIXED && !Ii[BI_MIMIC] && Ii[BI_QIDX] != Ii[BI_VIDX])
            return 0;
    }
    return 1;
}

static int first_bad_row(const double *q, const double *v, const double *o, int64_t n,
                         int64_t s0, int64_t s1, int64_t *bad)
{
    /* the error of the first of states s0 .. s1-1 with NaN or inf in q (E_NONFINITE), v
     * (E_NONFINITE + 1) or the result (E_OVERFLOW), the order of batch.c's checks */
    for (int64_t s = s0; s < s1; s++) {
        const int e = nonfinite(q + s * n, n) ? E_NONFINITE
                      : nonfinite(v + s * n, n) ? E_NONFINITE + 1
                      : nonfinite(o + s * n, n) ? E_OVERFLOW : 0;
        if (e) {
            *bad = s;
            return e;
        }
    }
    return 0;
}

CLONES int rd_integrate_rows(const model_t *md, const args_t *a, int64_t s0, int64_t s1,
                             double *out, int check, int64_t *bad)
{
    /* out = q + v dt on the rows s0 .. s1-1; with check, x - x (0 for a finite x, NaN for
     * NaN or inf) of q, v and the result tells, per block of rows, whether to look for the
     * failing state */
    enum { BLOCK = 64 };
    const int64_t n = md->nq;
    const double *q = a->x[0], *v = a->x[1], dt = a->eps;
    for (int64_t b0 = s0; b0 < s1; b0 += BLOCK) {
        const int64_t b1 = b0 + BLOCK < s1 ? b0 + BLOCK : s1;
        int nan = 0;
        for (int64_t k = b0 * n; k < b1 * n; k++) {
            const double x = q[k] + v[k] * dt;
            out[k] = x;
            const double z = (q[k] - q[k]) + (v[k] - v[k]) + (x - x);
            nan |= z != z;
        }
        if (check && nan)
            return first_bad_row(q, v, out, n, b0, b1, bad);
    }
    return 0;
}

/* ---------------------------------------------------------------- entry points */
#define CSPACE_ENTRY(name)                                                                     \
    CLONES int rd_##name(const model_t *md, int L, const args_t *a, double *RESTRICT out,       \
                         double *RESTRICT W, int *lane)                                        \
    {                                                                                          \
        (void)W;                                                                               \
        *lane = 0;                                                                             \
        return L == 1 ? name##_lanes(md, 1, a, out) : name##_lanes(md, LANES, a, out);         \
    }
CSPACE_ENTRY(integrate)
CSPACE_ENTRY(difference)
