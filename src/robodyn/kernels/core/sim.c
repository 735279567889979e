/*
 * A whole rollout in C: qdd = FD(q, qd, tau(t, q, qd)) integrated by explicit Euler,
 * semi-implicit Euler or RK4 on the configuration manifold (robodyn/sim/integrators.py, the
 * same arithmetic): positions move by q (+) d, cspace.c's integrate (a free joint
 * T exp6(d), a spherical one quat exp(d / 2), a planar one exp on SE(2)), and RK4's stages
 * combine in the chart at q, their rates J_r(d_i)^-1 v_i (chart_rate). FD is ABA, or for
 * a model with mimic joints forward dynamics through M's Cholesky factor (minv.c), as
 * robodyn.forward_dynamics chooses. tau comes from one of robodyn.control's laws:
 *
 *   none              tau = 0
 *   PD (+ gravity)    tau = K_p (q_d (-) q) + K_d (v_d - v) (+ g_c(q))         (MR 11.27)
 *   computed torque   tau = rnea_c(q, qd, a_d + K_d (v_d - v) + K_p (q_d (-) q)) (MR 11.35)
 *
 * with diagonal gains, the controller's own model c, saturation |tau| <= tau_max, and the
 * reference of a straight-line joint trajectory q_d(t) = q_a + s(r) (q_b - q_a),
 * r = t / T clamped to [0, 1], s(r) = sum_k c_k r^k (cubic, quintic; a constant target has
 * q_a = q_b, the only reference of a configuration with quaternions); q_d (-) q is
 * cspace.c's difference when nq != nv, else q_d - q (robodyn.control's error); or
 * robodyn.control's task-space law (task_torque below, MR sec. 11.4.2)
 *
 *   task-space CT     qdd = J_b^# (dV_cmd - dJ_b v) - k_null (1 - J_b^# J_b) v,
 *                     tau = rnea_c(q, qd, qdd)
 *
 * along a constant pose or a screw or Cartesian path (MR eqs. 9.7-9.9) under the same
 * s(r), with J_b^# the damped least-squares inverse (rd_damped_solve); or one of the force
 * laws (force.c: force control, hybrid motion-force, impedance, admittance), whose own
 * states z (integrals, a virtual motion, a sensor's filter) the steps integrate with q and
 * v (z_1 = z + h/6 (dz_1 + 2 dz_2 + 2 dz_3 + dz_4) in RK4, z + h dz in the Euler steps).
 * At every stage the external wrenches F_ext on the bodies, an environment's compliant
 * contacts (contact.c) plus constant f_ext, enter FD and the force laws' sensor; the
 * sample's contact forces are recorded. Every dof takes the law's torque, a floating
 * base's six too (as in the Python loop: zero gains leave a base unactuated).
 * robodyn.sim.simulate calls it for one rollout with such a controller, and for each
 * rollout of a batch with an environment or a force law (the Python loop, with the batch
 * kernels, runs everything else); parity tests keep the two equal. A run may come in
 * pieces (k0: the index of the piece's first sample, so the times are those of one run),
 * and it asks s->poll every POLL_STEPS steps whether to stop (Ctrl-C), keeping the samples
 * it finished.
 */
#include "rollout.h"

#include "contact.h"
#include "cspace.h"

#include <stdlib.h>

enum { POLL_STEPS = 1024 };

RD_INLINE void reference(const sim_t *s, double t, double *qd, double *vd, double *ad)
{
    /* q_d = q_a + s (q_b - q_a) (nq), v_d = s' (q_b - q_a), a_d = s'' (q_b - q_a) (nv);
     * a configuration with quaternions (nq != nv) has a constant target only (q_a = q_b,
     * v_d = a_d = 0) */
    const int64_t nq = s->md->nq, nv = s->md->nv;
    double s0, s1, s2;
    rd_time_scaling(s, t, &s0, &s1, &s2);
    for (int64_t j = 0; j < nq; j++)
        qd[j] = s->qa[j] + s0 * (s->qb[j] - s->qa[j]);
    for (int64_t j = 0; j < nv; j++) {
        const double d = nq == nv ? s->qb[j] - s->qa[j] : 0.0;
        vd[j] = s1 * d;
        ad[j] = s2 * d;
    }
}

/* ---------------------------------------------------------------- task-space computed torque */
enum { JACOBI_SWEEPS = 40 };

RD_INLINE double dot(const double *a, const double *b, int64_t n)
{
    double x = 0.0;
    for (int64_t k = 0; k < n; k++)
        x += a[k] * b[k];
    return x;
}

static void jacobi_columns(double *A, int64_t m, int64_t len, double *Z, int64_t zlen)
{
    /* One-sided (Hestenes) Jacobi: plane rotations of the m columns of A (column k at
     * A + k len) until they are orthogonal, A <- A G_1 G_2 ...; the same rotations turn the
     * m columns of Z (column k at Z + k zlen). Each makes one pair orthogonal: with
     * alpha = |a_i|^2, beta = |a_j|^2, gamma = a_i . a_j, zeta = (beta - alpha) / (2 gamma),
     * t = sgn(zeta) / (|zeta| + sqrt(1 + zeta^2)), c = 1 / sqrt(1 + t^2), s = c t:
     * a_i <- c a_i - s a_j, a_j <- s a_i + c a_j, after which |a_i|^2 = alpha - t gamma and
     * |a_j|^2 = beta + t gamma (the rotation that diagonalises the pair's 2 x 2 Gram
     * matrix: Jacobi's method on A^T A without forming it, so the singular values keep
     * their relative accuracy). A pair counts as orthogonal when |gamma| <= 1e-15
     * sqrt(alpha beta); the sweeps stop when one rotates nothing (the norms are computed
     * afresh at each sweep). */
    double nrm[6];
    for (int sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
        int rotated = 0;
        for (int64_t k = 0; k < m; k++)
            nrm[k] = dot(A + k * len, A + k * len, len);
        for (int64_t i = 0; i < m - 1; i++)
            for (int64_t j = i + 1; j < m; j++) {
                double *ai = A + i * len, *aj = A + j * len;
                const double alpha = nrm[i], beta = nrm[j], gamma = dot(ai, aj, len);
                if (!(fabs(gamma) > 1e-15 * sqrt(alpha * beta)))
                    continue;
                const double zeta = (beta - alpha) / (2.0 * gamma), az = fabs(zeta);
                /* sqrt(1 + zeta^2) ~ |zeta| where zeta^2 would overflow */
                const double t = (zeta >= 0.0 ? 1.0 : -1.0)
                                 / (az + (az < 1e150 ? sqrt(1.0 + az * az) : az));
                const double c = 1.0 / sqrt(1.0 + t * t), sn = c * t;
                for (int64_t r = 0; r < len; r++) {
                    const double x = ai[r], y = aj[r];
                    ai[r] = c * x - sn * y, aj[r] = sn * x + c * y;
                }
                double *zi = Z + i * zlen, *zj = Z + j * zlen;
                for (int64_t r = 0; r < zlen; r++) {
                    const double x = zi[r], y = zj[r];
                    zi[r] = c * x - sn * y, zj[r] = sn * x + c * y;
                }
                nrm[i] = alpha - t * gamma, nrm[j] = beta + t * gamma;
                rotated = 1;
            }
        if (!rotated)
            break;
    }
}

static void householder_qr(double *A, int64_t len, int64_t m, double *beta, double *d)
{
    /* A = Q R for the m columns of A (column k at A + k len, len >= m), in place: Q = H_0
     * ... H_{m-1} with H_k = 1 - beta_k v_k v_k^T (Golub and Van Loan alg. 5.2.1), v_k in
     * A[k .. len-1] of column k afterwards, R's diagonal in d and R_kj (j > k) at A[k] of
     * column j. A zero column leaves H_k = 1 (beta_k = 0) and R_kk = 0. */
    for (int64_t k = 0; k < m; k++) {
        double *v = A + k * len + k;
        const int64_t r = len - k;
        const double sigma = sqrt(dot(v, v, r));
        if (sigma == 0.0) {
            beta[k] = d[k] = 0.0;
            continue;
        }
        /* v = x - alpha e_1 with alpha = -sgn(x_0) |x| (no cancellation), v.v = 2 sigma
         * (sigma + |x_0|) */
        const double alpha = v[0] >= 0.0 ? -sigma : sigma;
        beta[k] = 1.0 / (sigma * (sigma + fabs(v[0])));
        v[0] -= alpha;
        d[k] = alpha;
        for (int64_t j = k + 1; j < m; j++) {
            double *a = A + j * len + k;
            const double f = beta[k] * dot(v, a, r);
            for (int64_t i = 0; i < r; i++)
                a[i] -= f * v[i];
        }
    }
}

RD_INLINE void reflect(const double *A, int64_t len, int64_t k, double beta, double *y)
{
    /* y <- H_k y = y - beta_k v_k (v_k . y) */
    const double *v = A + k * len + k;
    const double f = beta * dot(v, y + k, len - k);
    for (int64_t i = 0; i < len - k; i++)
        y[k + i] -= f * v[i];
}

static int undamped(const double *M, int64_t m, double threshold)
{
    /* whether the triangular M (m x m, row-major) has no singular value below threshold
     * (and none zero): M^T M - threshold^2 1 has a Cholesky factor (its pivots > 0) */
    double G[36], t2 = threshold * threshold;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j <= i; j++) {
            double g = 0.0;
            for (int64_t k = 0; k < m; k++)
                g += M[m * k + i] * M[m * k + j];
            G[m * i + j] = g - (i == j ? t2 : 0.0);
        }
    for (int64_t j = 0; j < m; j++) { /* G = L L^T in G's lower triangle */
        double p = G[m * j + j];
        for (int64_t k = 0; k < j; k++)
            p -= G[m * j + k] * G[m * j + k];
        if (!(p > 0.0))
            return 0;
        p = sqrt(p);
        G[m * j + j] = p;
        for (int64_t i = j + 1; i < m; i++) {
            double g = G[m * i + j];
            for (int64_t k = 0; k < j; k++)
                g -= G[m * i + k] * G[m * j + k];
            G[m * i + j] = g / p;
        }
    }
    return 1;
}

static void damped_square(double *B, int64_t m, double *z, double damping, double threshold,
                          double *x)
{
    /* x = M^# z for M (m x m) given by its rows in B (row k at B + k m; overwritten, as z):
     * one-sided Jacobi turns the rows, M^T W = B' with orthogonal columns b_k of norms s_k,
     * so M = W B'^T and M^# = B' diag(1 / (s_k^2 + lambda^2)) W^T, W^T z by turning z with
     * the same rotations (no division by s_k; a zero gain where s_k^2 + lambda^2 = 0) */
    jacobi_columns(B, m, m, z, 1);
    double g[6], s2min = INFINITY;
    for (int64_t k = 0; k < m; k++) {
        g[k] = dot(B + k * m, B + k * m, m); /* s_k^2 */
        s2min = g[k] < s2min ? g[k] : s2min;
    }
    double near = 0.0; /* lambda^2 / damping^2 = 1 - (s_min / threshold)^2 in [0, 1] */
    if (threshold > 0.0) {
        const double r = sqrt(s2min) / threshold;
        near = 1.0 - r * r;
        near = near < 0.0 ? 0.0 : (near > 1.0 ? 1.0 : near);
    }
    const double lam2 = damping * damping * near;
    for (int64_t r = 0; r < m; r++)
        x[r] = 0.0;
    for (int64_t k = 0; k < m; k++) {
        const double den = g[k] + lam2; /* s_k^2 + lambda^2 */
        const double zk = den > 0.0 ? z[k] / den : 0.0;
        for (int64_t r = 0; r < m; r++)
            x[r] += B[k * m + r] * zk;
    }
}

int64_t rd_damped_solve_work(int64_t n) { return 6 * n + 128; }

void rd_damped_solve(const double *J, int64_t n, const double *y, double damping,
                     double threshold, double *x, double *work)
{
    /* x = J^# y for J (6 x n, row-major): the damped least-squares inverse (Nakamura and
     * Hanafusa; the damping schedule of Maciejewski and Klein)
     *   J^# = V diag(s_i / (s_i^2 + lambda^2)) U^T  of  J = U diag(s_i) V^T,
     *   lambda^2 = damping^2 (1 - (s_min / threshold)^2) when s_min < threshold, else 0,
     * robodyn.control._damped_inverse's, without a general SVD. A Householder QR of J^T
     * (n >= 6) or of J (n < 6) leaves a triangular M (m x m, m = min(6, n)) with J's
     * singular values: J^T = Q R gives J^# = Q (R^T)^# (M = R^T), J = Q R gives J^# =
     * R^# Q^T (M = R), the damping being that of M's singular values. When M^T M -
     * threshold^2 1 has a Cholesky factor (s_min >= threshold: lambda = 0) M^# is M^-1,
     * one triangular solve; else (near a singularity) one-sided Jacobi gives M's singular
     * values and M^# (damped_square). work: rd_damped_solve_work(n) doubles. */
    const int wide = n >= 6;
    const int64_t m = wide ? 6 : n, len = wide ? n : 6;
    double *A = work, *beta = work + 6 * n, *d = beta + 6, *M = d + 6, *z = M + 36, *u = z + 6;
    if (wide) /* the columns of J^T: J's rows */
        memcpy(A, J, 6 * n * sizeof(double));
    else
        for (int64_t r = 0; r < 6; r++)
            for (int64_t c = 0; c < n; c++)
                A[6 * c + r] = J[n * r + c];
    householder_qr(A, len, m, beta, d);
    for (int64_t i = 0; i < m; i++) /* M = R^T (wide) or R, row-major */
        for (int64_t j = 0; j < m; j++) {
            const double R_ij = i == j ? d[i] : (j > i ? A[j * len + i] : 0.0);
            M[wide ? m * j + i : m * i + j] = R_ij;
        }
    if (wide)
        memcpy(z, y, 6 * sizeof(double));
    else { /* z = the first n entries of Q^T y = H_{n-1} ... H_0 y */
        memcpy(u, y, 6 * sizeof(double));
        for (int64_t k = 0; k < m; k++)
            reflect(A, len, k, beta[k], u);
        memcpy(z, u, m * sizeof(double));
    }
    double *xm = wide ? u : x; /* M^# z */
    if (undamped(M, m, threshold)) {
        if (wide) /* R^T xm = z: forward substitution */
            for (int64_t i = 0; i < m; i++) {
                double acc = z[i];
                for (int64_t k = 0; k < i; k++)
                    acc -= M[m * i + k] * xm[k];
                xm[i] = acc / M[m * i + i];
            }
        else /* R xm = z: back substitution */
            for (int64_t i = m - 1; i >= 0; i--) {
                double acc = z[i];
                for (int64_t k = i + 1; k < m; k++)
                    acc -= M[m * i + k] * xm[k];
                xm[i] = acc / M[m * i + i];
            }
    }
    else
        damped_square(M, m, z, damping, threshold, xm);
    if (wide) { /* x = Q [xm; 0] = H_0 ... H_5 [xm; 0] */
        for (int64_t r = 0; r < n; r++)
            x[r] = r < 6 ? xm[r] : 0.0;
        for (int64_t k = m - 1; k >= 0; k--)
            reflect(A, len, k, beta[k], x);
    }
}

static int64_t task_work(const model_t *mc)
{
    const int64_t n = mc->nv;
    return 16 + 6 + 6 + 16 + 12 * n + 6 + 6 + rd_damped_solve_work(n) + n + rd_kin_work(mc);
}

static int task_torque(const sim_t *s, double t, const double *q, const double *v, double *tau,
                       double *W, double *Wc)
{
    /* TaskSpaceComputedTorque (MR sec. 11.4.2): E = X^-1 X_d, X_e = log(E),
     * W = [Ad_E] V_d, dW = [Ad_E] dV_d + [ad_W] V with V = J_b v,
     *   dV_cmd = dW + K_p X_e + K_d (W - V),
     *   qdd = J_b^# (dV_cmd - dJ_b v) - k_null (1 - J_b^# J_b) v
     *       = J_b^# (dV_cmd - dJ_b v + k_null V) - k_null v,
     *   tau = rnea_c(q, v, qdd) */
    const model_t *mc = s->mc;
    const double *P = s->task;
    const int64_t n = mc->nv;
    double *Xd = W, *Vd = Xd + 16, *dVd = Vd + 6, *X = dVd + 6, *jd = X + 16;
    double *y = jd + 12 * n + 6, *Wd = y + 6, *qdd = Wd + rd_damped_solve_work(n);
    double *Wk = qdd + n;
    const double *J = jd, *dJ = jd + 6 * n, *V = jd + 12 * n;
    int lane = 0;
    rd_pose_reference(s, t, Xd, Vd, dVd);
    args_t a = {{q, v, NULL, NULL}, NULL, 0, 0.0, (int64_t)P[TP_FRAME], KIND_BODY, NULL, NULL, 0};
    rd_frame_pose(mc, 1, &a, X, Wk, &lane);
    rd_jacobian_dot(mc, 1, &a, jd, Wk, &lane); /* J_b, dJ_b/dt, V_b */
    double Xe[6], Wt[6], dW[6], e[6];
    rd_pose_error(X, Xd, Vd, dVd, V, Xe, Wt, dW);
    for (int r = 0; r < 6; r++)
        e[r] = Wt[r] - V[r];
    const double *Kp = P + TP_KP, *Kd = P + TP_KD, k_null = P[TP_KNULL];
    for (int r = 0; r < 6; r++) { /* y = dV_cmd - dJ_b v + k_null V */
        double acc = dW[r];
        for (int c = 0; c < 6; c++)
            acc += Kp[6 * r + c] * Xe[c];
        for (int c = 0; c < 6; c++)
            acc += Kd[6 * r + c] * e[c];
        y[r] = acc - dot(dJ + r * n, v, n) + k_null * V[r];
    }
    rd_damped_solve(J, n, y, P[TP_DAMPING], P[TP_THRESHOLD], qdd, Wd);
    for (int64_t j = 0; j < n; j++)
        qdd[j] -= k_null * v[j];
    args_t b = {{q, v, qdd, NULL}, NULL, s->cflags | FL_GRAVITY | FL_VEL | FL_ACC, 0.0, 0, 0};
    return rd_rnea(mc, 1, &b, tau, Wc, &lane);
}

/* ---------------------------------------------------------------- the joint-space laws */
RD_INLINE void joint_error(const model_t *md, const double *q, const double *qd, double *e)
{
    /* e = q_d (-) q (robodyn.control's _error): cspace.c's difference on the joints'
     * manifolds when the configuration holds quaternions (nq != nv), else q_d - q */
    if (md->nq != md->nv) {
        int lane = 0;
        args_t a = {{q, qd, NULL, NULL}, NULL, 0, 0.0, 0, 0};
        rd_difference(md, 1, &a, e, NULL, &lane);
        return;
    }
    for (int64_t j = 0; j < md->nv; j++)
        e[j] = qd[j] - q[j];
}

static int joint_torque(const sim_t *s, double t, const double *q, const double *v, double *tau,
                        double *W, double *Wc)
{
    /* the joint-space laws, with e = q_d (-) q */
    const model_t *md = s->md;
    const int64_t nv = md->nv;
    int lane = 0, code = 0;
    double *qd = W, *vd = qd + md->nq, *ad = vd + nv, *e = ad + nv, *x = e + nv;
    reference(s, t, qd, vd, ad);
    joint_error(md, q, qd, e);
    if (s->law == LAW_CT) {
        /* a = a_d + K_d (v_d - v) + K_p e;  tau = rnea_c(q, qd, a) */
        for (int64_t j = 0; j < nv; j++)
            x[j] = ad[j] + s->kd[j] * (vd[j] - v[j]) + s->kp[j] * e[j];
        args_t a = {{q, v, x, NULL}, NULL, s->cflags | FL_GRAVITY | FL_VEL | FL_ACC, 0.0, 0, 0};
        code = rd_rnea(s->mc, 1, &a, tau, Wc, &lane);
    }
    else {
        /* tau = K_p e + K_d (v_d - v) (+ g_c(q)) */
        if (s->law == LAW_PD_GRAVITY) {
            args_t a = {{q, NULL, NULL, NULL}, NULL, FL_GRAVITY, 0.0, 0, 0};
            code = rd_rnea(s->mc, 1, &a, tau, Wc, &lane);
        }
        else
            for (int64_t j = 0; j < nv; j++)
                tau[j] = 0.0;
        for (int64_t j = 0; j < nv; j++)
            tau[j] += s->kp[j] * e[j] + s->kd[j] * (vd[j] - v[j]);
    }
    return code;
}

static void schedule_torque(const sim_t *s, double t, const double *q, const double *v,
                            double *tau, double *W)
{
    /* tau = tau_ref - K_k dx, dx = (q_ref^-1 q: cspace.c's difference, or q - q_ref;
     * v - v_ref), the reference from sample k to k + 1 at s = (t - t_k) / step
     * (robodyn.control.lqr's _Schedule) */
    const model_t *md = s->md;
    const int64_t nq = md->nq, nv = md->nv, n = (int64_t)s->sched[0], R = sched_record(md);
    const double u = (t - s->sched[1]) / s->sched[2];
    int64_t k = n == 1 ? 0 : (int64_t)floor(u + 1e-9);
    k = k < 0 ? 0 : (k > n - 1 ? n - 1 : k);
    const double *qk = s->sched + 3 + k * R, *dk = qk + nq, *vk = dk + nv, *tk = vk + nv;
    const double *K = tk + nv, *vn = vk + (k + 1 < n ? R : 0), *tn = tk + (k + 1 < n ? R : 0);
    double sk = k + 1 < n ? u - (double)k : 0.0;
    sk = sk < 0.0 ? 0.0 : (sk > 1.0 ? 1.0 : sk);
    double *dx = W, *qr = dx + 2 * nv, *sd = qr + nq;
    int lane = 0;
    for (int64_t j = 0; j < nv; j++)
        sd[j] = sk * dk[j];
    args_t a = {{qk, sd, NULL, NULL}, NULL, 0, 1.0, 0, 0}; /* q_ref = q_k (+) s d_k */
    rd_integrate(md, 1, &a, qr, NULL, &lane);
    if (nq != nv) {
        args_t b = {{qr, q, NULL, NULL}, NULL, 0, 0.0, 0, 0};
        rd_difference(md, 1, &b, dx, NULL, &lane);
    }
    else
        for (int64_t j = 0; j < nv; j++)
            dx[j] = q[j] - qr[j];
    for (int64_t j = 0; j < nv; j++)
        dx[nv + j] = v[j] - (vk[j] + sk * (vn[j] - vk[j]));
    for (int64_t i = 0; i < nv; i++) {
        double f = tk[i] + sk * (tn[i] - tk[i]);
        for (int64_t j = 0; j < 2 * nv; j++)
            f -= K[2 * nv * i + j] * dx[j];
        tau[i] = f;
    }
}

static int torque(const sim_t *s, double t, const double *q, const double *v, const double *z,
                  const double *fe, double *tau, double *dz, double *W, double *Wc)
{
    /* tau(t, q, qd) of the law (a force law: and the rate dz of its states z, under the
     * external wrenches fe); 0 or an error code */
    const int64_t nv = s->md->nv;
    int code;
    if (s->law == LAW_NONE) {
        for (int64_t j = 0; j < nv; j++)
            tau[j] = 0.0;
        return 0;
    }
    if (s->law == LAW_TASK_CT)
        code = task_torque(s, t, q, v, tau, W, Wc);
    else if (s->law == LAW_SCHEDULE) {
        schedule_torque(s, t, q, v, tau, W);
        code = 0;
    }
    else if (force_law(s->law))
        code = rd_force_torque(s, t, q, v, z, fe, tau, dz, W, Wc);
    else
        code = joint_torque(s, t, q, v, tau, W, Wc);
    for (int64_t j = 0; j < nv; j++) /* saturation */
        tau[j] = tau[j] > s->tau_max[j] ? s->tau_max[j]
                                        : (tau[j] < -s->tau_max[j] ? -s->tau_max[j] : tau[j]);
    return code;
}

static int finite(const double *x, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (!isfinite(x[k]))
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- the configuration manifold */
RD_INLINE void plus(const model_t *md, const double *q, const double *d, double *out)
{
    /* out = q (+) d: cspace.c's integrate with dt = 1 (robodyn.sim.integrators' Chart.plus) */
    int lane = 0;
    args_t a = {{q, d, NULL, NULL}, NULL, 0, 1.0, 0, 0};
    rd_integrate(md, 1, &a, out, NULL, &lane);
}

enum { DEXP_TERMS = 40 };

static void dexp_inv(const double *d, const double *x, double *y)
{
    /* y = J_r(d)^-1 x, the chart rate of T exp6(d) moving with body twist x (d = [w; u]):
     * J_r(d) = sum_k (-ad_d)^k / (k + 1)!, the right-trivialised dexp, with
     * ad_d = [[w], 0; [u], [w]] (MR eq. 8.38), summed until a term's entries are all below
     * 1e-18, then solved (robodyn.sim.integrators.dexp_inv's arithmetic) */
    double A[36], J[36], T[36], U[36];
    const double *w = d, *u = d + 3;
    for (int k = 0; k < 36; k++)
        A[k] = 0.0;
    for (int o = 0; o < 6; o += 3) { /* the [w] blocks, then [u] below them: A = -ad_d */
        A[6 * o + o + 1] = w[2], A[6 * o + o + 2] = -w[1];
        A[6 * (o + 1) + o] = -w[2], A[6 * (o + 1) + o + 2] = w[0];
        A[6 * (o + 2) + o] = w[1], A[6 * (o + 2) + o + 1] = -w[0];
    }
    A[6 * 3 + 1] = u[2], A[6 * 3 + 2] = -u[1];
    A[6 * 4 + 0] = -u[2], A[6 * 4 + 2] = u[0];
    A[6 * 5 + 0] = u[1], A[6 * 5 + 1] = -u[0];
    for (int k = 0; k < 36; k++)
        J[k] = T[k] = k % 7 == 0 ? 1.0 : 0.0;
    for (int k = 1; k < DEXP_TERMS; k++) { /* T <- T A / (k + 1): (-ad_d)^k / (k + 1)! */
        double big = 0.0;
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < 6; c++) {
                double acc = 0.0;
                for (int m = 0; m < 6; m++)
                    acc += T[6 * r + m] * A[6 * m + c];
                U[6 * r + c] = acc;
            }
        for (int e = 0; e < 36; e++) {
            T[e] = U[e] / (k + 1);
            J[e] += T[e];
            big = fabs(T[e]) > big ? fabs(T[e]) : big;
        }
        if (big < 1e-18)
            break;
    }
    memcpy(y, x, 6 * sizeof(double));
    rd_solve_dense(6, J, y);
}

static void chart_rate(const model_t *md, const double *d, const double *v, double *r)
{
    /* r = d delta / dt of q (+) delta moving with velocity v (Chart.rate): v, but
     * S^T J_r(S d_i)^-1 S v_i for each free, spherical or planar joint i, S its constant
     * motion subspace (1_6 for a free joint, else the columns at BF_S; the subalgebras
     * they span are kept by J_r^-1) */
    memcpy(r, v, md->nv * sizeof(double));
    for (int64_t i = 1; i < md->nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const int64_t jt = Ii[BI_TYPE], va = Ii[BI_VIDX], n = Ii[BI_NV];
        if ((jt != J_FREE && jt != J_SPHERICAL && jt != J_PLANAR) || Ii[BI_MIMIC])
            continue;
        double d6[6], x6[6], y6[6];
        if (jt == J_FREE) {
            dexp_inv(d + va, v + va, r + va);
            continue;
        }
        const double *S = body_f(md, i) + BF_S; /* column c at S + 6 c */
        for (int k = 0; k < 6; k++) {           /* S d_i, S v_i */
            d6[k] = x6[k] = 0.0;
            for (int64_t c = 0; c < n; c++)
                d6[k] += d[va + c] * S[6 * c + k], x6[k] += v[va + c] * S[6 * c + k];
        }
        dexp_inv(d6, x6, y6);
        for (int64_t c = 0; c < n; c++) { /* S^T y */
            double acc = 0.0;
            for (int k = 0; k < 6; k++)
                acc += y6[k] * S[6 * c + k];
            r[va + c] = acc;
        }
    }
}

/* ---------------------------------------------------------------- the rollout */
typedef struct {
    const sim_t *s;
    algo_fn dynamics; /* rd_aba, or rd_forward (the Cholesky road) for mimic joints */
    double *W, *Wc, *Wa, *Wk; /* the law's, the controller model's, the dynamics' and the
                               * contacts' workspaces */
    double *z;        /* the steps' vectors (step, rk4_stage, step_rk4: nq + 11 nv) */
    double *zs;       /* the law's states at a stage z_i, then its rates dz_1 .. dz_4 (5 nz) */
    double *fe;       /* (nb x 6) the external wrenches on the bodies at a stage */
    double *fc;       /* (3 nc) the contact forces of a stage that is not a sample's */
} roll_t;

static int has_mimic(const model_t *md)
{
    for (int64_t i = 1; i < md->nb; i++)
        if (body_i(md, i)[BI_MIMIC])
            return 1;
    return 0;
}

static const double *wrenches(const roll_t *r, const double *q, const double *v, double *fc)
{
    /* the external wrenches on the bodies at (q, qd) (robodyn.sim._system's _external):
     * the environment's contacts (their forces into fc, contact.c) plus the constant
     * f_ext; NULL when there are none */
    const sim_t *s = r->s;
    const int64_t n6 = 6 * s->md->nb;
    if (!s->env && !s->fext)
        return NULL;
    if (s->env)
        rd_contacts(s->md, s->env, q, v, r->fe, fc, r->Wk);
    else
        for (int64_t k = 0; k < n6; k++)
            r->fe[k] = 0.0;
    if (s->fext)
        for (int64_t k = 0; k < n6; k++)
            r->fe[k] += s->fext[k];
    return r->fe;
}

static int rate(const roll_t *r, double t, const double *q, const double *v, const double *z,
                double *tau, double *a, double *dz, double *fc)
{
    /* tau, dz = law(t, q, qd, z) under the external wrenches F_ext (contact forces into fc),
     * a = qdd(q, qd, tau, F_ext) (ABA, or M's Cholesky factor for mimic joints, as
     * robodyn.forward_dynamics); 0 or an error code: as the batch runner checks a state's
     * output, a torque that is not finite is the controller's failure (E_NONFINITE + 2,
     * the torque argument) and an acceleration that is not finite from a finite state and
     * torque an overflow (E_OVERFLOW), so that a sample is complete only when all its
     * numbers are finite */
    const sim_t *s = r->s;
    const int64_t n = s->md->nv;
    const double *fe = wrenches(r, q, v, fc);
    int lane = 0, code = torque(s, t, q, v, z, fe, tau, dz, r->W, r->Wc);
    if (code)
        return code;
    if (!finite(tau, n))
        return E_NONFINITE + 2;
    args_t x = {{q, v, tau, NULL}, fe, s->flags | (fe ? FL_FEXT : 0), 0.0, 0, 0};
    code = r->dynamics(s->md, 1, &x, a, r->Wa, &lane);
    if (!code && !finite(a, n))
        code = E_OVERFLOW;
    return code;
}

static int stage(const roll_t *r, double t, const double *q, const double *v, const double *z,
                 double *tau, double *a, double *dz)
{
    /* rate() at a stage of a step after its first: a failure at a state that is no longer
     * finite is the motion diverging (E_DIVERGED), not the dynamics failing */
    const model_t *md = r->s->md;
    int code = rate(r, t, q, v, z, tau, a, dz, r->fc);
    if (code && (!finite(q, md->nq) || !finite(v, md->nv)))
        code = E_DIVERGED;
    return code;
}

static int rk4_stage(const roll_t *r, int i, double ti, double c, const double *q,
                     const double *v, const double *z, const double *a1)
{
    /* stage i = 2, 3, 4 of step_rk4 from the previous stage's rates (r_1 = v, a_1 the
     * sample's): d_i = c r_{i-1}, v_i = v + c a_{i-1}, z_i = z + c dz_{i-1};
     * a_i, dz_i = rates(t_i, q (+) d_i, v_i, z_i), r_i = J_r(d_i)^-1 v_i */
    const model_t *md = r->s->md;
    const int64_t n = md->nv, nz = r->s->nz;
    double *d = r->z, *tq = d + n, *qs = tq + n, *R = qs + md->nq, *Vs = R + 3 * n;
    double *As = Vs + 3 * n, *zi = r->zs, *dzp = zi + (i - 1) * nz;
    const double *x = i == 2 ? v : R + (i - 3) * n, *ap = i == 2 ? a1 : As + (i - 3) * n;
    double *ri = R + (i - 2) * n, *vi = Vs + (i - 2) * n, *ai = As + (i - 2) * n;
    for (int64_t j = 0; j < n; j++)
        d[j] = c * x[j], vi[j] = v[j] + c * ap[j];
    for (int64_t j = 0; j < nz; j++)
        zi[j] = z[j] + c * dzp[j];
    plus(md, q, d, qs);
    const int code = stage(r, ti, qs, vi, zi, tq, ai, dzp + nz);
    if (!code)
        chart_rate(md, d, vi, ri);
    return code;
}

static int step_rk4(const roll_t *r, double t, double h, const double *q, const double *v,
                    const double *z, const double *a1, double *q1, double *v1, double *z1)
{
    /* classical RK4 in the chart at q (Munthe-Kaas; robodyn.sim.integrators.rk4_step):
     *   k_i = (r_i, a_i, dz_i),  r_i = J_r(d_i)^-1 v_i,  a_i = qdd(t_i, q (+) d_i, v_i),
     *   d_1 = 0, d_2 = h/2 v, d_3 = h/2 r_2, d_4 = h r_3,  v_2, v_3, v_4 likewise from a_i,
     *   z_2, z_3, z_4 from dz_i,
     *   q1 = q (+) h/6 (v + 2 r_2 + 2 r_3 + r_4),  v1 = v + h/6 (a1 + 2 a2 + 2 a3 + a4),
     *   z1 = z + h/6 (dz1 + 2 dz2 + 2 dz3 + dz4)
     * (1-dof joints: r_i = v_i, the textbook method; dz_1 is the sample's, in r->zs) */
    const model_t *md = r->s->md;
    const int64_t n = md->nv, nz = r->s->nz;
    const double h2 = 0.5 * h, h6 = h / 6.0;
    double *d = r->z, *r2 = d + 2 * n + md->nq, *r3 = r2 + n, *r4 = r3 + n, *v2 = r4 + n;
    double *v3 = v2 + n, *v4 = v3 + n, *a2 = v4 + n, *a3 = a2 + n, *a4 = a3 + n;
    const double *dz1 = r->zs + nz, *dz2 = dz1 + nz, *dz3 = dz2 + nz, *dz4 = dz3 + nz;
    int code;
    if ((code = rk4_stage(r, 2, t + h2, h2, q, v, z, a1)) != 0
        || (code = rk4_stage(r, 3, t + h2, h2, q, v, z, a1)) != 0
        || (code = rk4_stage(r, 4, t + h, h, q, v, z, a1)) != 0)
        return code;
    for (int64_t j = 0; j < n; j++) {
        d[j] = h6 * (v[j] + 2.0 * (r2[j] + r3[j]) + r4[j]);
        v1[j] = v[j] + h6 * (a1[j] + 2.0 * (a2[j] + a3[j]) + a4[j]);
    }
    for (int64_t j = 0; j < nz; j++)
        z1[j] = z[j] + h6 * (dz1[j] + 2.0 * (dz2[j] + dz3[j]) + dz4[j]);
    plus(md, q, d, q1);
    return 0;
}

static int step(const roll_t *r, double t, double h, const double *q, const double *v,
                const double *z, const double *a1, double *q1, double *v1, double *z1)
{
    /* one step of the integrator from (q, v, z) with the sample's acceleration a1 and the
     * states' rate dz1 (in r->zs) */
    const sim_t *s = r->s;
    const int64_t n = s->md->nv, nz = s->nz;
    const double *dz1 = r->zs + nz;
    double *d = r->z;
    if (s->integrator == INT_RK4)
        return step_rk4(r, t, h, q, v, z, a1, q1, v1, z1);
    for (int64_t j = 0; j < nz; j++) /* z1 = z + h dz (both Euler steps) */
        z1[j] = z[j] + h * dz1[j];
    if (s->integrator == INT_EULER) /* q1 = q (+) h v, v1 = v + h a (MR's EulerStep) */
        for (int64_t j = 0; j < n; j++)
            d[j] = h * v[j], v1[j] = v[j] + h * a1[j];
    else /* semi-implicit Euler: v1 = v + h a, q1 = q (+) h v1 */
        for (int64_t j = 0; j < n; j++)
            v1[j] = v[j] + h * a1[j], d[j] = h * v1[j];
    plus(s->md, q, d, q1);
    return 0;
}

static double *rollout_buffers(const sim_t *s, roll_t *r)
{
    /* one allocation for the workspaces and vectors of roll_t (NULL: out of memory) */
    const model_t *md = s->md, *mc = s->mc;
    const int64_t nq = md->nq, n = md->nv, nc = s->env ? env_contacts(s->env) : 0;
    const int mimic = has_mimic(md);
    const int64_t nw = 2 * nq + 4 * n + 64 + (s->law == LAW_TASK_CT ? task_work(mc) : 0)
                       + (force_law(s->law) ? rd_force_work(mc) : 0);
    const int64_t nwc = rd_rnea_work(mc), nwa = mimic ? rd_minv_work(md) : rd_aba_work(md);
    const int64_t nwk = rd_contacts_work(md), nz = nq + 11 * n;
    double *buf = malloc(sizeof(double)
                         * (size_t)(nw + nwc + nwa + nwk + nz + 5 * s->nz + 6 * md->nb + 3 * nc));
    if (!buf)
        return NULL;
    *r = (roll_t){s, mimic ? rd_forward : rd_aba, buf, buf + nw, buf + nw + nwc,
                  buf + nw + nwc + nwa, NULL, NULL, NULL, NULL};
    r->z = r->Wk + nwk;
    r->zs = r->z + nz;
    r->fe = r->zs + 5 * s->nz;
    r->fc = r->fe + 6 * md->nb;
    return buf;
}

int rd_simulate(const sim_t *s, const double *q0, const double *v0, const double *z0,
                int64_t K, double h, const samples_t *out, int64_t *done)
{
    /* K steps of h from (q0, v0, z0) into the samples out (K + 1 rows each: q, v, the
     * law's states z and the contact forces, and the samples' a, tau); *done is the number
     * of complete samples (all of them, or those before a failure; a sample whose own
     * torque and acceleration were computed is complete even if the step from it fails) */
    const model_t *md = s->md;
    const int64_t nq = md->nq, n = md->nv, nz = s->nz, nc3 = s->env ? 3 * env_contacts(s->env) : 0;
    roll_t r;
    double *buf = rollout_buffers(s, &r);
    if (!buf)
        return E_MEMORY;
    int code = 0;
    *done = 0;
    memcpy(out->Q, q0, sizeof(double) * nq);
    memcpy(out->V, v0, sizeof(double) * n);
    if (nz)
        memcpy(out->Z, z0, sizeof(double) * nz);
    for (int64_t k = 0; k <= K; k++) {
        const double t = (s->k0 + k) * h;
        if (s->poll && k % POLL_STEPS == POLL_STEPS - 1 && s->poll->fn(s->poll->ctx)) {
            code = E_INTERRUPTED;
            break;
        }
        const double *q = out->Q + k * nq, *v = out->V + k * n, *z = nz ? out->Z + k * nz : NULL;
        double *a1 = out->A + k * n, *tau = out->TAU + k * n;
        double *fc = out->FC ? out->FC + k * nc3 : r.fc;
        if (!finite(q, nq) || !finite(v, n)) {
            code = E_DIVERGED;
            break;
        }
        if ((code = rate(&r, t, q, v, z, tau, a1, r.zs + nz, fc)) != 0)
            break;
        *done = k + 1; /* sample k is whole (q, v, tau, a): a later stage may still fail */
        if (k == K)    /* the last sample: its torque and acceleration only */
            break;
        if ((code = step(&r, t, h, q, v, z, a1, out->Q + (k + 1) * nq, out->V + (k + 1) * n,
                         nz ? out->Z + (k + 1) * nz : NULL)) != 0)
            break;
    }
    free(buf);
    return code;
}
