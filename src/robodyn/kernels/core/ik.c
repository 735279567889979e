/*
 * Inverse kinematics of one frame, one start: the damped-least-squares iteration of
 * robodyn.kinematics.ik run whole in C (MR section 6.2.2 with Levenberg-Marquardt
 * damping), so a solve costs the kinematics and a 6x6 Cholesky per iteration, not the
 * Python around them. The restarts, the time budget and the bounded trust-region stage
 * stay in Python.
 *
 * Per iteration: T_sf, J_b and V_b = log6(T_sf^-1 T_sd) from rd_ik_residual; the error e
 * and Jacobian G are the weighted rows of (V_b, J_b), or, for a position-only solve, the
 * world position error p_sd - p with Jacobian R J_b,v; then
 *     dq = G^T (G G^T + lambda I)^-1 e,   lambda = damping^2 + |e|^2  (0 + |e|^2 near e = 0)
 * with the joints on a limit that dq pushes outward frozen and the step recomputed, the
 * step scaled to |dq|_inf <= max_step, q <- clip(q + dq).
 * Only for models without a floating base (nq = nv).
 */
#include <math.h>
#include <stdlib.h>

#include "batch.h"
#include "ik.h"

static int chol_solve(int m, double *A, double *b)
{
    /* A (m x m, row-major, SPD) = L L^T in place, then b <- A^-1 b; -1 if not PD */
    for (int j = 0; j < m; j++) {
        double d = A[j * m + j];
        for (int k = 0; k < j; k++)
            d -= A[j * m + k] * A[j * m + k];
        if (!(d > 0.0))
            return -1;
        d = sqrt(d);
        A[j * m + j] = d;
        for (int i = j + 1; i < m; i++) {
            double s = A[i * m + j];
            for (int k = 0; k < j; k++)
                s -= A[i * m + k] * A[j * m + k];
            A[i * m + j] = s / d;
        }
    }
    for (int i = 0; i < m; i++) { /* L y = b */
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= A[i * m + k] * b[k];
        b[i] = s / A[i * m + i];
    }
    for (int i = m - 1; i >= 0; i--) { /* L^T x = y */
        double s = b[i];
        for (int k = i + 1; k < m; k++)
            s -= A[k * m + i] * b[k];
        b[i] = s / A[i * m + i];
    }
    return 0;
}

static void dls_step(int m, int64_t nv, const double *G, const double *e, double lam,
                     const unsigned char *frozen, double *dq)
{
    /* dq = G^T (G G^T + lam I)^-1 e over the joints not frozen (MR eq. 6.7, damped) */
    double A[36], y[6];
    for (int i = 0; i < m; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0.0;
            for (int64_t c = 0; c < nv; c++)
                if (!frozen[c])
                    s += G[i * nv + c] * G[j * nv + c];
            A[i * m + j] = A[j * m + i] = s;
        }
    double reg = lam;
    for (int tries = 0; tries < 4; tries++) {
        double B[36];
        for (int k = 0; k < m * m; k++)
            B[k] = A[k];
        for (int i = 0; i < m; i++) {
            B[i * m + i] += reg;
            y[i] = e[i];
        }
        if (chol_solve(m, B, y) == 0)
            break;
        /* singular G G^T with no damping: the smallest regularisation that factors */
        double tr = 0.0;
        for (int i = 0; i < m; i++)
            tr += A[i * m + i];
        reg = reg > 0.0 ? 100.0 * reg : 1e-14 * (1.0 + tr);
        for (int i = 0; i < m; i++)
            y[i] = 0.0;
    }
    for (int64_t c = 0; c < nv; c++) {
        double s = 0.0;
        if (!frozen[c])
            for (int i = 0; i < m; i++)
                s += G[i * nv + c] * y[i];
        dq[c] = s;
    }
}

int rd_ik_dls(const model_t *md, int64_t frame, const double *T_sd, const double *q0,
              const double *lo, const double *hi, const double *w, const ik_opts_t *o,
              const double *hist0, double *q, double *q_best, ik_out_t *res)
{
    const int64_t nv = md->nv;
    const int64_t nout = 16 + 6 * nv + 6;
    double *buf = malloc(sizeof(double) * (size_t)(nout + rd_kin_work(md) + 8 * nv + 6 * 6 * nv
                                                   + o->max_iterations + 1));
    unsigned char *frozen = calloc((size_t)nv, 1);
    if (!buf || !frozen) {
        free(buf);
        free(frozen);
        return -3;
    }
    double *r = buf, *W = r + nout, *dq = W + rd_kin_work(md), *G = dq + nv,
           *hist = G + 6 * nv;
    int rows[6], m = 0, ang = 0, lin = 0;
    for (int i = 0; i < 6; i++)
        if (w[i] > 0.0) {
            rows[m++] = i;
            ang += i < 3, lin += i >= 3;
        }
    args_t a = {{q, T_sd, NULL, NULL}, NULL, 0, 0.0, frame, KIND_BODY};
    for (int64_t c = 0; c < nv; c++)
        q[c] = fmin(fmax(q0[c], lo[c]), hi[c]);
    res->err = INFINITY;
    res->status = IK_MAX_ITERATIONS;
    /* a start continued from iteration it0 brings the errors of its iterations so far */
    int it = o->it0 > 0 && o->it0 <= o->max_iterations ? o->it0 : 0, lane = 0;
    for (int k = 0; k < it; k++)
        hist[k] = hist0[k];
    for (;;) {
        rd_ik_residual(md, 1, &a, r, W, &lane);
        const double *T = r, *J = r + 16, *V = r + 16 + 6 * nv;
        double e[6];
        if (o->position_only) {
            /* e = p_sd - p (world), G = R J_b,v: the velocity of the frame origin */
            for (int i = 0; i < 3; i++) {
                e[i] = T_sd[4 * i + 3] - T[4 * i + 3];
                for (int64_t c = 0; c < nv; c++)
                    G[i * nv + c] = T[4 * i] * J[3 * nv + c] + T[4 * i + 1] * J[4 * nv + c]
                                    + T[4 * i + 2] * J[5 * nv + c];
            }
        }
        else
            for (int i = 0; i < m; i++) {
                e[i] = w[rows[i]] * V[rows[i]];
                for (int64_t c = 0; c < nv; c++)
                    G[i * nv + c] = w[rows[i]] * J[rows[i] * nv + c];
            }
        const int me = o->position_only ? 3 : m;
        /* the unweighted errors of the kept rows, for the tolerances */
        double ew = 0.0, ev = 0.0;
        if (o->position_only)
            ev = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
        else
            for (int i = 0; i < m; i++) {
                const double x = V[rows[i]];
                if (rows[i] < 3)
                    ew += x * x;
                else
                    ev += x * x;
            }
        ew = sqrt(ew), ev = sqrt(ev);
        const double err = hypot(ew, ev);
        if (!isfinite(err)) {
            res->status = IK_NOT_FINITE;
            break;
        }
        if (err < res->err) {
            res->err = err;
            for (int64_t c = 0; c < nv; c++)
                q_best[c] = q[c];
        }
        if (ew <= o->tol_omega && ev <= o->tol_v) {
            res->status = IK_CONVERGED;
            break;
        }
        if (it >= o->max_iterations) {
            res->status = IK_MAX_ITERATIONS;
            break;
        }
        hist[it] = err;
        if (o->stall && it >= 15 && err > 0.5 * hist[it - 15] && err > 1e-5) {
            res->status = IK_STALLED; /* a poor basin: a new start is cheaper */
            break;
        }
        double e2 = 0.0;
        for (int i = 0; i < me; i++)
            e2 += e[i] * e[i];
        /* Levenberg-Marquardt with lambda = damping^2 + |e|^2 (Fan-Yuan); the floor goes
         * within 1e-4 of the target so a singular solution still converges fast */
        const double lam = (e2 > 1e-8 ? o->lam2 : 0.0) + e2;
        for (int64_t c = 0; c < nv; c++)
            frozen[c] = 0;
        dls_step(me, nv, G, e, lam, frozen, dq);
        int nfrozen = 0;
        for (int64_t c = 0; c < nv; c++)
            if ((q[c] >= hi[c] && dq[c] > 0.0) || (q[c] <= lo[c] && dq[c] < 0.0))
                frozen[c] = 1, nfrozen++;
        if (nfrozen) /* active set: the others converge along the limits */
            dls_step(me, nv, G, e, lam, frozen, dq);
        double big = 0.0;
        for (int64_t c = 0; c < nv; c++)
            big = fmax(big, fabs(dq[c]));
        const double s = big > o->max_step ? o->max_step / big : 1.0;
        for (int64_t c = 0; c < nv; c++)
            q[c] = fmin(fmax(q[c] + s * dq[c], lo[c]), hi[c]);
        it++;
    }
    res->iterations = it;
    free(buf);
    free(frozen);
    return 0;
}
