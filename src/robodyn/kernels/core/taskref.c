/*
 * The references and errors the compiled task-space and force laws share (sim.c's
 * task-space computed torque, force.c's force, hybrid, impedance and admittance laws): the
 * time scaling s(t / T) of a reference, exp6 (MR eqs. 3.51, 3.88), the pose reference
 * X_d(t) with its body twist and rate (MR eqs. 9.7-9.9), the body error twist to it
 * (MR sec. 11.4.2), and a small dense solve. One file below both users, so that neither
 * law file includes the other's definitions.
 */
#include "rollout.h"

#include <math.h>
#include <string.h>

void rd_time_scaling(const sim_t *s, double t, double *ps, double *psd, double *psdd)
{
    /* s(t / T), s' = ds/dr / T, s'' = d2s/dr2 / T^2, held at the ends (s' = s'' = 0) */
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
    *ps = s0, *psd = s1, *psdd = s2;
}

/* SE(3) helpers on one pose: 3x3 row-major R, 3-vectors */
RD_INLINE void rodrigues(const double *w, double A, double B, double *R)
{
    /* R = 1 + A [w] + B [w]^2 written out (spatial.py's _rodrigues1) */
    const double x = w[0], y = w[1], z = w[2];
    const double xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
    R[0] = 1 - B * (yy + zz), R[1] = -A * z + B * xy, R[2] = A * y + B * xz;
    R[3] = A * z + B * xy, R[4] = 1 - B * (xx + zz), R[5] = -A * x + B * yz;
    R[6] = -A * y + B * xz, R[7] = A * x + B * yz, R[8] = 1 - B * (xx + yy);
}

RD_INLINE void exp_coeffs(const double *w, double *A, double *B, double *C)
{
    /* A = sin t / t, B = (1 - cos t) / t^2 = 2 sin^2(t/2) / t^2 (the half-angle form: no
     * cancelling 1 - cos t), C = (t - sin t) / t^3 of t = |w|, series below 1e-3
     * (spatial.py's _coeffs1) */
    const double t = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (t < 1e-3) {
        const double t2 = t * t;
        *A = 1 - t2 / 6 + t2 * t2 / 120, *B = 0.5 - t2 / 24 + t2 * t2 / 720, *C = 1.0 / 6 - t2 / 120;
        return;
    }
    const double sn = sin(t), h = sin(t / 2);
    *A = sn / t, *B = 2 * (h * h) / (t * t), *C = (t - sn) / (t * t * t);
}

void rd_exp6(const double *e, double *R, double *p)
{
    /* exp([e]) = [R, G v; 0, 1] of e = [w; v] (MR eqs. 3.51 and 3.88):
     * R = 1 + A [w] + B [w]^2, G = 1 + B [w] + C [w]^2 (exp_coeffs' A, B, C) */
    double A, B, C, G[9];
    exp_coeffs(e, &A, &B, &C);
    rodrigues(e, A, B, R);
    rodrigues(e, B, C, G);
    for (int r = 0; r < 3; r++)
        p[r] = G[3 * r] * e[3] + G[3 * r + 1] * e[4] + G[3 * r + 2] * e[5];
}

void rd_pose_reference(const sim_t *s, double t, double *Xd, double *Vd, double *dVd)
{
    /* X_d(t) and its body twist V_d and dV_d/dt as robodyn.trajectory's PoseTrajectory
     * (MR eqs. 9.7-9.9): a constant pose; X_a exp([S] s) with V_d = S s', dV_d = S s'';
     * or R = R_a exp([w] s), p = p_a + s dp with omega_b = w s', v_b = R^T dp s',
     * d/dt v_b = R^T dp s'' - omega_b x (R^T dp) s' */
    const double *P = s->task, *Xa = P + TP_XA, *S = P + TP_S;
    const int kind = (int)P[TP_KIND];
    if (kind == REF_POSE) {
        memcpy(Xd, Xa, 16 * sizeof(double));
        for (int k = 0; k < 6; k++)
            Vd[k] = dVd[k] = 0.0;
        return;
    }
    double s0, s1, s2, e[6], R[9], p[3];
    rd_time_scaling(s, t, &s0, &s1, &s2);
    for (int k = 0; k < 6; k++)
        e[k] = s0 * S[k];
    if (kind == REF_SCREW) { /* X_a exp([S] s) */
        rd_exp6(e, R, p);
        pose_times(Xa, R, p, Xd);
        for (int k = 0; k < 6; k++)
            Vd[k] = s1 * S[k], dVd[k] = s2 * S[k];
        return;
    }
    double A, B, C;
    exp_coeffs(e, &A, &B, &C);
    rodrigues(e, A, B, R);
    const double zero[3] = {0.0, 0.0, 0.0}, *dp = S + 3;
    pose_times(Xa, R, zero, Xd); /* R_a exp([w] s), then p = p_a + s dp */
    double u[3];
    for (int r = 0; r < 3; r++) {
        Xd[4 * r + 3] = Xa[4 * r + 3] + s0 * dp[r];
        u[r] = Xd[r] * dp[0] + Xd[4 + r] * dp[1] + Xd[8 + r] * dp[2]; /* R^T dp */
    }
    const double wb[3] = {s1 * S[0], s1 * S[1], s1 * S[2]};
    const double c[3] = {wb[1] * u[2] - wb[2] * u[1], wb[2] * u[0] - wb[0] * u[2],
                         wb[0] * u[1] - wb[1] * u[0]};
    for (int r = 0; r < 3; r++) {
        Vd[r] = wb[r], Vd[3 + r] = s1 * u[r];
        dVd[r] = s2 * S[r], dVd[3 + r] = s2 * u[r] - c[r] * s1;
    }
}

void rd_pose_error(const double *X, const double *Xd, const double *Vd, const double *dVd,
                   const double *V, double *Xe, double *W, double *dW)
{
    /* the body error twist to the reference (MR sec. 11.4.2): E = X^-1 X_d, X_e = log(E),
     * W = [Ad_E] V_d (the reference twist in the frame), dW = [Ad_E] dV_d + [ad_W] V (its
     * rate, V the frame's body twist) */
    double E[16];
    for (int r = 0; r < 3; r++) /* E = X^-1 X_d = [R^T R_d, R^T (p_d - p)] */
        for (int c = 0; c < 4; c++) {
            double acc = 0.0;
            for (int k = 0; k < 3; k++)
                acc += X[4 * k + r] * (Xd[4 * k + c] - (c == 3 ? X[4 * k + 3] : 0.0));
            E[4 * r + c] = acc;
        }
    E[12] = E[13] = E[14] = 0.0;
    E[15] = 1.0;
    rd_log6(E, Xe);
    for (int r = 0; r < 3; r++) { /* [Ad_E] x = [R w; p x (R w) + R u] for V_d and dV_d */
        W[r] = E[4 * r] * Vd[0] + E[4 * r + 1] * Vd[1] + E[4 * r + 2] * Vd[2];
        W[3 + r] = E[4 * r] * Vd[3] + E[4 * r + 1] * Vd[4] + E[4 * r + 2] * Vd[5];
        dW[r] = E[4 * r] * dVd[0] + E[4 * r + 1] * dVd[1] + E[4 * r + 2] * dVd[2];
        dW[3 + r] = E[4 * r] * dVd[3] + E[4 * r + 1] * dVd[4] + E[4 * r + 2] * dVd[5];
    }
    const double px = E[3], py = E[7], pz = E[11];
    const double cw[3] = {py * W[2] - pz * W[1], pz * W[0] - px * W[2], px * W[1] - py * W[0]};
    const double cd[3] = {py * dW[2] - pz * dW[1], pz * dW[0] - px * dW[2], px * dW[1] - py * dW[0]};
    for (int r = 0; r < 3; r++)
        W[3 + r] += cw[r], dW[3 + r] += cd[r];
    /* dW += [ad_W] V = [w_W x w_V; v_W x w_V + w_W x v_V] */
    dW[0] += W[1] * V[2] - W[2] * V[1];
    dW[1] += W[2] * V[0] - W[0] * V[2];
    dW[2] += W[0] * V[1] - W[1] * V[0];
    dW[3] += W[4] * V[2] - W[5] * V[1] + W[1] * V[5] - W[2] * V[4];
    dW[4] += W[5] * V[0] - W[3] * V[2] + W[2] * V[3] - W[0] * V[5];
    dW[5] += W[3] * V[1] - W[4] * V[0] + W[0] * V[4] - W[1] * V[3];
}

void rd_solve_dense(int n, double *J, double *y)
{
    /* y <- J^-1 y (J n x n, row-major, overwritten): Gaussian elimination with partial
     * pivoting, then back substitution (a diagonal J gives y_k / J_kk exactly) */
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int r = k + 1; r < n; r++)
            p = fabs(J[n * r + k]) > fabs(J[n * p + k]) ? r : p;
        if (p != k) {
            for (int c = 0; c < n; c++) {
                const double x = J[n * k + c];
                J[n * k + c] = J[n * p + c], J[n * p + c] = x;
            }
            const double x = y[k];
            y[k] = y[p], y[p] = x;
        }
        for (int r = k + 1; r < n; r++) {
            const double f = J[n * r + k] / J[n * k + k];
            for (int c = k + 1; c < n; c++)
                J[n * r + c] -= f * J[n * k + c];
            y[r] -= f * y[k];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double acc = y[r];
        for (int c = r + 1; c < n; c++)
            acc -= J[n * r + c] * y[c];
        y[r] = acc / J[n * r + r];
    }
}
