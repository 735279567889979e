/*
 * A whole rollout in C: qdd = aba(q, qd, tau(t, q, qd)) integrated by explicit Euler,
 * semi-implicit Euler or RK4 (robodyn/sim/integrators.py, the same arithmetic), with tau
 * from one of robodyn.control's joint-space laws, for models of 1-dof joints:
 *
 *   none              tau = 0
 *   PD (+ gravity)    tau = K_p (q_d - q) + K_d (v_d - v) (+ g_c(q))            (MR 11.27)
 *   computed torque   tau = rnea_c(q, qd, a_d + K_d (v_d - v) + K_p (q_d - q))  (MR 11.35)
 *
 * with diagonal gains, the controller's own model c, saturation |tau| <= tau_max, and the
 * reference of a straight-line joint trajectory q_d(t) = q_a + s(r) (q_b - q_a),
 * r = t / T clamped to [0, 1], s(r) = sum_k c_k r^k (cubic, quintic; a constant target has
 * q_a = q_b). robodyn.sim.simulate calls it for one rollout with such a controller (the
 * Python loop, with the batch kernels, runs everything else); a parity test keeps the two
 * equal. A run may come in pieces (k0: the index of the piece's first sample, so the times
 * are those of one run), and it asks s->poll every POLL_STEPS steps whether to stop
 * (Ctrl-C), keeping the samples it finished.
 */
#include "sim.h"

#include <stdlib.h>

enum { POLL_STEPS = 1024 };

RD_INLINE void reference(const sim_t *s, double t, int64_t n, double *qd, double *vd, double *ad)
{
    /* q_d, v_d = s' (q_b - q_a), a_d = s'' (q_b - q_a) with s' = ds/dr / T, s'' = ... / T^2 */
    double r = s->T > 0.0 ? t / s->T : 1.0, s0 = 0.0, s1 = 0.0, s2 = 0.0;
    if (r >= 1.0 || r < 0.0) { /* held at the ends: s(1) from T on, s(0) before 0 */
        r = r < 0.0 ? 0.0 : 1.0;
        for (int k = 5; k >= 0; k--)
            s0 = s0 * r + s->c[k];
    }
    else {
        for (int k = 5; k >= 0; k--) /* Horner: s, ds/dr, d2s/dr2 on [0, 1) */
            s0 = s0 * r + s->c[k];
        for (int k = 5; k >= 1; k--)
            s1 = s1 * r + k * s->c[k];
        for (int k = 5; k >= 2; k--)
            s2 = s2 * r + k * (k - 1) * s->c[k];
        s1 /= s->T;
        s2 /= s->T * s->T;
    }
    for (int64_t j = 0; j < n; j++) {
        const double d = s->qb[j] - s->qa[j];
        qd[j] = s->qa[j] + s0 * d;
        vd[j] = s1 * d;
        ad[j] = s2 * d;
    }
}

static int torque(const sim_t *s, double t, const double *q, const double *v, double *tau,
                  double *W, double *Wc)
{
    /* tau(t, q, qd) of the law; 0 or an error code */
    const model_t *md = s->md;
    const int64_t nv = md->nv;
    int lane = 0, code = 0;
    if (s->law == LAW_NONE) {
        for (int64_t j = 0; j < nv; j++)
            tau[j] = 0.0;
        return 0;
    }
    double *qd = W, *vd = W + nv, *ad = W + 2 * nv, *x = W + 3 * nv;
    reference(s, t, nv, qd, vd, ad);
    if (s->law == LAW_CT) {
        /* a = a_d + K_d (v_d - v) + K_p (q_d - q);  tau = rnea_c(q, qd, a) */
        for (int64_t j = 0; j < nv; j++)
            x[j] = ad[j] + s->kd[j] * (vd[j] - v[j]) + s->kp[j] * (qd[j] - q[j]);
        args_t a = {{q, v, x, NULL}, NULL, s->cflags | FL_GRAVITY | FL_VEL | FL_ACC, 0.0, 0, 0};
        code = rd_rnea(s->mc, 1, &a, tau, Wc, &lane);
    }
    else {
        /* tau = K_p (q_d - q) + K_d (v_d - v) (+ g_c(q)) */
        if (s->law == LAW_PD_GRAVITY) {
            args_t a = {{q, NULL, NULL, NULL}, NULL, FL_GRAVITY, 0.0, 0, 0};
            code = rd_rnea(s->mc, 1, &a, tau, Wc, &lane);
        }
        else
            for (int64_t j = 0; j < nv; j++)
                tau[j] = 0.0;
        for (int64_t j = 0; j < nv; j++)
            tau[j] += s->kp[j] * (qd[j] - q[j]) + s->kd[j] * (vd[j] - v[j]);
    }
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

static int rate(const sim_t *s, double t, const double *q, const double *v, double *tau,
                double *a, double *W, double *Wc, double *Wa)
{
    /* tau = tau(t, q, qd), a = aba(q, qd, tau); 0 or an error code: as the batch runner
     * checks a state's output, a torque that is not finite is the controller's failure
     * (E_NONFINITE + 2, the torque argument) and an acceleration that is not finite from
     * a finite state and torque an overflow (E_OVERFLOW), so that a sample is complete only
     * when all its numbers are finite */
    const int64_t n = s->md->nv;
    int lane = 0, code = torque(s, t, q, v, tau, W, Wc);
    if (code)
        return code;
    if (!finite(tau, n))
        return E_NONFINITE + 2;
    args_t x = {{q, v, tau, NULL}, NULL, s->flags, 0.0, 0, 0};
    code = rd_aba(s->md, 1, &x, a, Wa, &lane);
    if (!code && !finite(a, n))
        code = E_OVERFLOW;
    return code;
}

static int stage(const sim_t *s, double t, const double *q, const double *v, double *tau,
                 double *a, double *W, double *Wc, double *Wa)
{
    /* rate() at a stage of a step: a failure at a state that is no longer finite is the
     * motion diverging (E_DIVERGED), not the dynamics failing */
    const int64_t n = s->md->nv;
    int code = rate(s, t, q, v, tau, a, W, Wc, Wa);
    if (code && (!finite(q, n) || !finite(v, n)))
        code = E_DIVERGED;
    return code;
}

int rd_simulate(const sim_t *s, const double *q0, const double *v0, int64_t K, double h,
                double *Q, double *V, double *A, double *TAU, int64_t *done)
{
    /* K steps of h from (q0, v0) into Q, V (K + 1, n) and the sample's A, TAU; *done is the
     * number of complete samples (all of them, or those before a failure; a sample whose
     * own torque and acceleration were computed is complete even if the step from it fails) */
    const model_t *md = s->md;
    const int64_t n = md->nv; /* nq = nv: 1-dof joints */
    const int64_t nw = 4 * n + 64, nwc = rd_rnea_work(s->mc), nwa = rd_aba_work(md);
    double *buf = malloc(sizeof(double) * (size_t)(nw + nwc + nwa + 16 * n));
    if (!buf)
        return E_MEMORY;
    double *W = buf, *Wc = W + nw, *Wa = Wc + nwc, *z = Wa + nwa;
    double *q2 = z, *v2 = z + n, *v3 = z + 2 * n, *v4 = z + 3 * n, *a2 = z + 4 * n;
    double *a3 = z + 5 * n, *a4 = z + 6 * n, *tq = z + 7 * n, *qs = z + 8 * n;
    int code = 0;
    *done = 0;
    memcpy(Q, q0, sizeof(double) * n);
    memcpy(V, v0, sizeof(double) * n);
    for (int64_t k = 0; k <= K; k++) {
        const double t = (s->k0 + k) * h, h2 = 0.5 * h, h6 = h / 6.0;
        if (s->poll && k % POLL_STEPS == POLL_STEPS - 1 && s->poll->fn(s->poll->ctx)) {
            code = E_INTERRUPTED;
            break;
        }
        const double *q = Q + k * n, *v = V + k * n;
        double *a1 = A + k * n, *tau = TAU + k * n;
        if (!finite(q, n) || !finite(v, n)) {
            code = E_DIVERGED;
            break;
        }
        if ((code = rate(s, t, q, v, tau, a1, W, Wc, Wa)) != 0)
            break;
        *done = k + 1; /* sample k is whole (q, v, tau, a): a later stage may still fail */
        if (k == K) /* the last sample: its torque and acceleration only */
            break;
        double *q1 = Q + (k + 1) * n, *v1 = V + (k + 1) * n;
        if (s->integrator == INT_EULER) { /* q1 = q + h v, v1 = v + h a (MR's EulerStep) */
            for (int64_t j = 0; j < n; j++)
                q1[j] = q[j] + h * v[j], v1[j] = v[j] + h * a1[j];
        }
        else if (s->integrator == INT_SEMI_IMPLICIT) { /* v1 = v + h a, q1 = q + h v1 */
            for (int64_t j = 0; j < n; j++)
                v1[j] = v[j] + h * a1[j], q1[j] = q[j] + h * v1[j];
        }
        else { /* RK4, stages k_i = (v_i, a_i) */
            for (int64_t j = 0; j < n; j++)
                q2[j] = q[j] + h2 * v[j], v2[j] = v[j] + h2 * a1[j];
            if ((code = stage(s, t + h2, q2, v2, tq, a2, W, Wc, Wa)) != 0)
                break;
            for (int64_t j = 0; j < n; j++)
                qs[j] = q[j] + h2 * v2[j], v3[j] = v[j] + h2 * a2[j];
            if ((code = stage(s, t + h2, qs, v3, tq, a3, W, Wc, Wa)) != 0)
                break;
            for (int64_t j = 0; j < n; j++)
                qs[j] = q[j] + h * v3[j], v4[j] = v[j] + h * a3[j];
            if ((code = stage(s, t + h, qs, v4, tq, a4, W, Wc, Wa)) != 0)
                break;
            for (int64_t j = 0; j < n; j++) {
                q1[j] = q[j] + h6 * (v[j] + 2.0 * (v2[j] + v3[j]) + v4[j]);
                v1[j] = v[j] + h6 * (a1[j] + 2.0 * (a2[j] + a3[j]) + a4[j]);
            }
        }
    }
    free(buf);
    return code;
}
