/*
 * A torque-free rigid body tumbling about its centre of mass (robodyn.rigidbody.simulate):
 * state (R, omega) on SO(3) x R^3 with dR/dt = R [omega] (course notes 001 eq. 10.43) and
 * I domega/dt = -omega x I omega (eq. 10.44), stepped n times by h. Methods (the numpy
 * references _step_* of rigidbody.py are the same steps):
 *
 *   0  CF4, the commutator-free Lie-group RK4 of Celledoni, Marthinsen and Owren:
 *      RK4 on omega; R <- R exp((3F1 + 2F2 + 2F3 - F4)/12) exp((-F1 + 2F2 + 2F3 + 3F4)/12)
 *      with F_i = h omega_i, so R stays on SO(3) to round-off
 *   1  Lie-Euler: R <- R exp([omega] h), omega <- omega + h domega
 *   2  explicit Euler on the matrix: R <- R + h R [omega] (leaves SO(3); kept for contrast)
 */
#include "rd.h"

static void exp3(double x, double y, double z, double *E)
{
    /* Rodrigues (MR eq. 3.51): E = 1 + A [w] + B [w]^2, A = sin t / t, B = (1 - cos t) / t^2.
     * 1 - cos t cancels just above the series (B keeps ~6 digits at t = 1e-3), but B
     * multiplies [w]^2, of size t^2: E is still right to an ulp, and E's diagonal is then
     * cos t as the library rounds it. (The half-angle form 2 sin^2(t/2) / t^2, needed where
     * B multiplies [w] alone (spatial.exp6's G), made this Lie-RK4's orthogonality drift
     * 8x larger on tests/test_rigidbody.py's 100 s tumble: 1.1e-12 instead of 1.4e-13.) */
    const double t2 = x * x + y * y + z * z;
    double A, B;
    if (t2 < 1e-6) {
        A = 1.0 - t2 / 6.0 + t2 * t2 / 120.0;
        B = 0.5 - t2 / 24.0 + t2 * t2 / 720.0;
    }
    else {
        const double t = sqrt(t2);
        A = sin(t) / t;
        B = (1.0 - cos(t)) / t2;
    }
    E[0] = 1.0 - B * (y * y + z * z);
    E[1] = B * x * y - A * z;
    E[2] = B * x * z + A * y;
    E[3] = B * x * y + A * z;
    E[4] = 1.0 - B * (x * x + z * z);
    E[5] = B * y * z - A * x;
    E[6] = B * x * z - A * y;
    E[7] = B * y * z + A * x;
    E[8] = 1.0 - B * (x * x + y * y);
}

static void mul3(const double *A, const double *B, double *C)
{
    /* C = A B (3 x 3; C must not overlap A or B) */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            C[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
}

static void euler_rhs(const double *I, const double *Iinv, const double *w, double *dw)
{
    /* eq. 10.44 with tau = 0: domega = I^-1 (-(omega x I omega)) */
    double L[3], c[3];
    for (int r = 0; r < 3; r++)
        L[r] = I[3 * r] * w[0] + I[3 * r + 1] * w[1] + I[3 * r + 2] * w[2];
    c[0] = -(w[1] * L[2] - w[2] * L[1]);
    c[1] = -(w[2] * L[0] - w[0] * L[2]);
    c[2] = -(w[0] * L[1] - w[1] * L[0]);
    for (int r = 0; r < 3; r++)
        dw[r] = Iinv[3 * r] * c[0] + Iinv[3 * r + 1] * c[1] + Iinv[3 * r + 2] * c[2];
}

void rd_tumble(const double *I, const double *Iinv, const double *R0, const double *w0, double h,
               int64_t n, int method, double *R_out, double *w_out)
{
    /* R_out (n + 1, 3, 3), w_out (n + 1, 3): the states at t = 0, h, ..., n h */
    double R[9], w[3], E[9], T[9], k1[3], k2[3], k3[3], k4[3], w2[3], w3[3], w4[3];
    memcpy(R, R0, sizeof R);
    memcpy(w, w0, sizeof w);
    memcpy(R_out, R, sizeof R);
    memcpy(w_out, w, sizeof w);
    for (int64_t k = 0; k < n; k++) {
        if (method == 0) {
            euler_rhs(I, Iinv, w, k1); /* stage 1 at (R, w) */
            for (int r = 0; r < 3; r++)
                w2[r] = w[r] + 0.5 * h * k1[r];
            euler_rhs(I, Iinv, w2, k2); /* torque-free: the stage rotation is not needed */
            for (int r = 0; r < 3; r++)
                w3[r] = w[r] + 0.5 * h * k2[r];
            euler_rhs(I, Iinv, w3, k3);
            for (int r = 0; r < 3; r++)
                w4[r] = w[r] + h * k3[r];
            euler_rhs(I, Iinv, w4, k4);
            const double c = h / 12.0;
            exp3(c * (3 * w[0] + 2 * w2[0] + 2 * w3[0] - w4[0]),
                 c * (3 * w[1] + 2 * w2[1] + 2 * w3[1] - w4[1]),
                 c * (3 * w[2] + 2 * w2[2] + 2 * w3[2] - w4[2]), E);
            mul3(R, E, T);
            exp3(c * (-w[0] + 2 * w2[0] + 2 * w3[0] + 3 * w4[0]),
                 c * (-w[1] + 2 * w2[1] + 2 * w3[1] + 3 * w4[1]),
                 c * (-w[2] + 2 * w2[2] + 2 * w3[2] + 3 * w4[2]), E);
            mul3(T, E, R);
            for (int r = 0; r < 3; r++)
                w[r] += h / 6.0 * (k1[r] + 2.0 * k2[r] + 2.0 * k3[r] + k4[r]);
        }
        else if (method == 1) {
            euler_rhs(I, Iinv, w, k1);
            exp3(h * w[0], h * w[1], h * w[2], E); /* R <- R exp([omega] h) */
            mul3(R, E, T);
            memcpy(R, T, sizeof R);
            for (int r = 0; r < 3; r++)
                w[r] += h * k1[r];
        }
        else {
            euler_rhs(I, Iinv, w, k1);
            for (int r = 0; r < 3; r++) { /* T = R [omega] */
                T[3 * r] = R[3 * r + 1] * w[2] - R[3 * r + 2] * w[1];
                T[3 * r + 1] = R[3 * r + 2] * w[0] - R[3 * r] * w[2];
                T[3 * r + 2] = R[3 * r] * w[1] - R[3 * r + 1] * w[0];
            }
            for (int r = 0; r < 9; r++)
                R[r] += h * T[r];
            for (int r = 0; r < 3; r++)
                w[r] += h * k1[r];
        }
        memcpy(R_out + 9 * (k + 1), R, sizeof R);
        memcpy(w_out + 3 * (k + 1), w, sizeof w);
    }
}
