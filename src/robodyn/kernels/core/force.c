/*
 * The force laws of robodyn.control in the compiled rollout (sim.c): ForceControl (MR eq.
 * 11.47), HybridMotionForce (MR eqs. 11.61-11.64), Impedance and Admittance (MR sec. 11.7),
 * the arithmetic of robodyn/control/force.py, impedance.py and _task.py, each reading the
 * ideal force sensor of robodyn.sim.ForceSensor (optionally low-pass filtered; a noisy one
 * stays in Python) fed by the external wrenches F_ext on the bodies (sim.c: the
 * environment's contacts and f_ext).
 *
 * For the controlled frame {b} and the rows S of its body twist V_b = [omega; v] a law
 * controls (k of them), the task state (robodyn.control._task.TaskState) is the pose X,
 * the body Jacobian J = J_b, V = J v, dJ v (the twist's rate at qdd = 0), the task-space
 * inertia Lambda_S = (J_S M^-1 J_S^T)^-1 and Jbar_S = M^-1 J_S^T Lambda_S (minv.c, MR eq.
 * 8.88) and h = c + g (+ joint friction) of the controller's model; the task wrench of a
 * reading F is F_S = Jbar_S^T J^T F, and a task acceleration a of rows S is asked with
 *
 *   tau = J_S^T (Lambda_S (a - (dJ v)_S) - F_S) + h - k_null (1 - J_S^T Jbar_S^T) v.
 *
 * The law's states z (sim_t.nz, integrated by the rollout) and their rates dz: the
 * integrals of the errors, the admittance's commanded displacement and its rate, and last
 * the filter's state (its rate omega_c (F - z_f)).
 */
#include "rollout.h"

#include "mfactor.h"

/* the controlled frame's task state: rows S (k of them, ascending) */
typedef struct {
    double X[16], V[6], dJv[6], Lam[36]; /* Lambda_S: k x k row-major */
    double *J, *Jbar, *h;                /* J_b (6 x nv), Jbar_S (nv x k), h (nv) */
    int rows[6], k;
} task_t;

int64_t rd_force_work(const model_t *mc)
{
    /* J, Jbar (6 nv each), h (nv), the bodies' poses (16 nb), the kinematics' and the task
     * space's workspace */
    return 13 * mc->nv + 16 * mc->nb + rd_task_space_work(mc);
}

int64_t rd_force_states(const sim_t *s)
{
    const double *P = s->force;
    const int64_t filter = P[FP_OMEGA_C] > 0.0 ? 6 : 0;
    if (s->law == LAW_FORCE) /* int F_e */
        return 6 + filter;
    if (s->law == LAW_HYBRID) /* int X_e, int F_e */
        return 12 + filter;
    if (s->law == LAW_ADMITTANCE) /* x_c, xd_c */
        return 2 * (int64_t)P[FP_K] + filter;
    return filter;
}

/* ---------------------------------------------------------------- small pieces */
RD_INLINE void times(const double *G, const double *x, int k, double *y)
{
    /* y = G x for the k x k top-left block of a gain G (6 x 6, row-major) */
    for (int r = 0; r < k; r++) {
        double acc = 0.0;
        for (int c = 0; c < k; c++)
            acc += G[6 * r + c] * x[c];
        y[r] = acc;
    }
}

static void solve_gain(const double *G, int k, double *y)
{
    /* y <- G^-1 y for the k x k block of G (a diagonal G: y_r / G_rr exactly) */
    double A[36];
    for (int r = 0; r < k; r++)
        for (int c = 0; c < k; c++)
            A[k * r + c] = G[6 * r + c];
    rd_solve_dense(k, A, y);
}

static void sensor_ideal(const model_t *mc, int64_t f, const double *q, const double *fe,
                         double *F, double *W)
{
    /* the wrench F_f (6) at frame {f} on body b: the wrenches F_j on b's subtree moved to
     * {f}, F_f = sum_j [Ad_{T_jf}]^T F_j (MR eq. 3.98): with R = R_sj^T R_sf and
     * p = R_sj^T (p_sf - p_sj), m_f += R^T (m_j - p x f_j), f_f += R^T f_j */
    const int64_t b = mc->frame_body[f], end = body_i(mc, b)[BI_END];
    double T[16], *Tb = W;
    int lane = 0;
    for (int k = 0; k < 6; k++)
        F[k] = 0.0;
    if (!fe)
        return;
    args_t a = {{q, NULL, NULL, NULL}, NULL, 0, 0.0, f, KIND_SPACE, NULL, NULL, 0};
    rd_body_poses(mc, 1, &a, Tb, W + 16 * mc->nb, &lane);
    rd_frame_pose(mc, 1, &a, T, W + 16 * mc->nb, &lane);
    for (int64_t j = b; j < end; j++) {
        const double *Fj = fe + 6 * j, *Tj = Tb + 16 * j;
        double R[9], p[3], m[3];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                R[3 * r + c] = Tj[r] * T[c] + Tj[4 + r] * T[4 + c] + Tj[8 + r] * T[8 + c];
            p[r] = Tj[r] * (T[3] - Tj[3]) + Tj[4 + r] * (T[7] - Tj[7])
                   + Tj[8 + r] * (T[11] - Tj[11]);
        }
        m[0] = Fj[0] - (p[1] * Fj[5] - p[2] * Fj[4]); /* m_j - p x f_j */
        m[1] = Fj[1] - (p[2] * Fj[3] - p[0] * Fj[5]);
        m[2] = Fj[2] - (p[0] * Fj[4] - p[1] * Fj[3]);
        for (int r = 0; r < 3; r++) {
            F[r] += R[r] * m[0] + R[3 + r] * m[1] + R[6 + r] * m[2];
            F[3 + r] += R[r] * Fj[3] + R[3 + r] * Fj[4] + R[6 + r] * Fj[5];
        }
    }
}

static void sensor_reading(const sim_t *s, const double *q, const double *zf, const double *fe,
                           double *F, double *dzf, double *W)
{
    /* the sensor's reading F (robodyn.sim.ForceSensor.read without noise): the ideal
     * wrench, or with a filter its state z_f, whose rate is dz_f = omega_c (F_ideal - z_f) */
    const double wc = s->force[FP_OMEGA_C];
    double Fi[6];
    sensor_ideal(s->mc, (int64_t)s->force[FP_SENSOR], q, fe, Fi, W);
    for (int k = 0; k < 6; k++)
        if (wc > 0.0)
            F[k] = zf[k], dzf[k] = wc * (Fi[k] - zf[k]);
        else
            F[k] = Fi[k];
}

/* ---------------------------------------------------------------- the task space */
static void task_setup(const sim_t *s, double *W, task_t *ts)
{
    /* the rows S of sim_t.force and ts's arrays in the workspace W (rd_force_work) */
    const int64_t nv = s->mc->nv;
    ts->k = (int)s->force[FP_K];
    for (int j = 0; j < ts->k; j++)
        ts->rows[j] = (int)s->force[FP_ROWS + j];
    ts->J = W, ts->Jbar = W + 6 * nv, ts->h = W + 12 * nv;
}

static int task_state(const sim_t *s, const double *q, const double *v, int dynamics,
                      task_t *ts, double *Wt, double *Wc)
{
    /* X, J_b, V = J_b v; with dynamics dJ_b v, Lambda_S, Jbar_S and h = c + g (+ friction:
     * the controller's cflags), else h = g(q) alone (force control's g~) */
    const model_t *mc = s->mc;
    const int64_t nv = mc->nv;
    int lane = 0, code;
    args_t a = {{q, v, NULL, NULL}, NULL, 0, 0.0, (int64_t)s->force[FP_FRAME], KIND_BODY,
                NULL, NULL, 0};
    rd_frame_pose(mc, 1, &a, ts->X, Wt, &lane);
    rd_jacobian(mc, 1, &a, ts->J, Wt, &lane);
    for (int r = 0; r < 6; r++) {
        double acc = 0.0;
        for (int64_t c = 0; c < nv; c++)
            acc += ts->J[nv * r + c] * v[c];
        ts->V[r] = acc;
    }
    if (!dynamics) {
        args_t g = {{q, NULL, NULL, NULL}, NULL, FL_GRAVITY, 0.0, 0, 0};
        return rd_rnea(mc, 1, &g, ts->h, Wc, &lane);
    }
    a.flags = FL_ACC; /* with qdd = 0: dJ_b v */
    rd_frame_motion(mc, 1, &a, ts->dJv, Wt, &lane);
    for (int j = 0; j < ts->k; j++)
        a.rows |= 1u << ts->rows[j];
    if ((code = rd_task_lambda(mc, 1, &a, ts->Lam, Wt, &lane)) != 0
        || (code = rd_task_jbar(mc, 1, &a, ts->Jbar, Wt, &lane)) != 0)
        return code;
    args_t b = {{q, v, NULL, NULL}, NULL, s->cflags | FL_GRAVITY | FL_VEL, 0.0, 0, 0};
    return rd_rnea(mc, 1, &b, ts->h, Wc, &lane);
}

static void task_wrench(const task_t *ts, int64_t nv, const double *F, double *FS)
{
    /* F_S = Jbar_S^T (J^T F): the wrench F at the frame as the rows S feel it */
    for (int j = 0; j < ts->k; j++) {
        double acc = 0.0;
        for (int64_t i = 0; i < nv; i++) {
            double te = 0.0; /* (J^T F)_i */
            for (int r = 0; r < 6; r++)
                te += ts->J[nv * r + i] * F[r];
            acc += ts->Jbar[ts->k * i + j] * te;
        }
        FS[j] = acc;
    }
}

static void null_damping(const task_t *ts, int64_t nv, const double *v, double k_null,
                         double *tau)
{
    /* tau -= k_null (1 - J_S^T Jbar_S^T) v: the joint velocities the task does not see
     * (none for a robot with no more joints than rows) */
    const int k = ts->k;
    double w[6];
    if (nv <= k)
        return;
    for (int j = 0; j < k; j++) { /* w = Jbar_S^T v */
        double acc = 0.0;
        for (int64_t i = 0; i < nv; i++)
            acc += ts->Jbar[k * i + j] * v[i];
        w[j] = acc;
    }
    for (int64_t c = 0; c < nv; c++) {
        double acc = 0.0;
        for (int j = 0; j < k; j++)
            acc += ts->J[nv * ts->rows[j] + c] * w[j];
        tau[c] -= k_null * (v[c] - acc);
    }
}

static void task_torque(const task_t *ts, int64_t nv, const double *a, const double *FS,
                        double k_null, const double *v, double *tau)
{
    /* tau = J_S^T (Lambda_S (a - (dJ v)_S) - F_S) + h - k_null (1 - J_S^T Jbar_S^T) v */
    const int k = ts->k;
    double F[6];
    for (int i = 0; i < k; i++) {
        double acc = 0.0;
        for (int j = 0; j < k; j++)
            acc += ts->Lam[k * i + j] * (a[j] - ts->dJv[ts->rows[j]]);
        F[i] = acc - FS[i];
    }
    for (int64_t c = 0; c < nv; c++) {
        double acc = 0.0;
        for (int i = 0; i < k; i++)
            acc += ts->J[nv * ts->rows[i] + c] * F[i];
        tau[c] = acc + ts->h[c];
    }
    null_damping(ts, nv, v, k_null, tau);
}

/* ---------------------------------------------------------------- force control */
static int force_control(const sim_t *s, const double *q, const double *v, const double *z,
                         const double *fe, double *tau, double *dz, double *W, double *Wc)
{
    /* ForceControl (MR eq. 11.47), with F_tip = -F_s the wrench on the environment (F_s
     * the sensor's reading) and F_e = F_d - F_tip:
     *   F   = F_d + K_fp F_e + K_fi int F_e - K_damp V_b
     *   tau = g~(q) + J_b^T F - k_null (1 - J_b^T Jbar_b^T) v,   dz = [F_e; dz_f] */
    const model_t *mc = s->mc;
    const int64_t nv = mc->nv;
    const double *P = s->force, *Fd = P + FP_FD, *G = P + FP_G;
    const int filter = P[FP_OMEGA_C] > 0.0;
    double Fs[6], Fe[6], F[6], x[6], *Wt = W + 13 * nv;
    int lane = 0, code;
    task_t ts;
    task_setup(s, W, &ts);
    sensor_reading(s, q, filter ? z + 6 : NULL, fe, Fs, filter ? dz + 6 : NULL, Wt);
    if ((code = task_state(s, q, v, 0, &ts, Wt, Wc)) != 0)
        return code;
    for (int r = 0; r < 6; r++)
        Fe[r] = Fd[r] + Fs[r], dz[r] = Fe[r];
    times(G, Fe, 6, x); /* K_fp F_e */
    for (int r = 0; r < 6; r++)
        F[r] = Fd[r] + x[r];
    times(G + 36, z, 6, x); /* K_fi int F_e */
    for (int r = 0; r < 6; r++)
        F[r] += x[r];
    times(G + 72, ts.V, 6, x); /* K_damp V_b */
    for (int r = 0; r < 6; r++)
        F[r] -= x[r];
    for (int64_t c = 0; c < nv; c++) {
        double acc = 0.0;
        for (int r = 0; r < 6; r++)
            acc += ts.J[nv * r + c] * F[r];
        tau[c] = ts.h[c] + acc;
    }
    if (nv <= 6)
        return 0;
    args_t a = {{q, NULL, NULL, NULL}, NULL, 0, 0.0, (int64_t)P[FP_FRAME], KIND_BODY, NULL,
                NULL, 0};
    if ((code = rd_task_jbar(mc, 1, &a, ts.Jbar, Wt, &lane)) != 0) /* all six rows */
        return code;
    null_damping(&ts, nv, v, P[FP_KNULL], tau);
    return 0;
}

/* ---------------------------------------------------------------- hybrid motion-force */
static int projection(const double *Lam, const double *A, int nA, double *Pu)
{
    /* P = 1 - A^T (A Lambda^-1 A^T)^-1 A Lambda^-1 (MR eq. 11.63; robodyn.constrained's
     * constraint_projections P_u with Lambda for M): with Lambda = L L^T, X = Lambda^-1 A^T
     * (6 x nA), S = A X = L_S L_S^T and K = S^-1 A (nA x 6), P = 1 - K^T X^T.
     * E_TASK_SINGULAR when Lambda or S has no Cholesky factor */
    double L[36], X[36], S[36], K[36], bad = 0.0;
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++)
            L[6 * r + c] = 0.5 * (Lam[6 * r + c] + Lam[6 * c + r]);
    cholesky(1, 6, L, 1e-12, NULL, &bad);
    for (int j = 0; j < nA; j++) { /* column j of X: Lambda^-1 (row j of A)^T */
        for (int i = 0; i < 6; i++)
            X[nA * i + j] = A[6 * j + i];
        cholesky_solve(1, 6, L, X + j, nA);
    }
    for (int r = 0; r < nA; r++)
        for (int c = 0; c < nA; c++) {
            double acc = 0.0;
            for (int i = 0; i < 6; i++)
                acc += A[6 * r + i] * X[nA * i + c];
            S[nA * r + c] = acc;
        }
    for (int r = 0; r < nA; r++) /* made exactly symmetric */
        for (int c = r + 1; c < nA; c++)
            S[nA * r + c] = S[nA * c + r] = 0.5 * (S[nA * r + c] + S[nA * c + r]);
    cholesky(1, nA, S, 1e-12, NULL, &bad);
    if (bad != 0.0)
        return E_TASK_SINGULAR;
    memcpy(K, A, 6 * nA * sizeof(double));
    for (int c = 0; c < 6; c++) /* K = S^-1 A, column by column */
        cholesky_solve(1, nA, S, K + c, 6);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double acc = 0.0;
            for (int m = 0; m < nA; m++)
                acc += K[6 * m + i] * X[nA * j + m];
            Pu[6 * i + j] = (i == j ? 1.0 : 0.0) - acc;
        }
    return 0;
}

static int hybrid(const sim_t *s, double t, const double *q, const double *v, const double *z,
                  const double *fe, double *tau, double *dz, double *W, double *Wc)
{
    /* HybridMotionForce (MR eqs. 11.61-11.64), P = projection(Lambda, A):
     *   a   = dW + K_p X_e + K_i int X_e + K_d (W - V),   F_e = F_d + F_s,
     *   F_f = F_d + K_fp F_e + K_fi int F_e
     *   tau = J_b^T (P Lambda a + (1 - P) F_f - Lambda dJ_b v) + h - k_null (...) v,
     *   dz  = [X_e; F_e; dz_f] */
    const int64_t nv = s->mc->nv;
    const double *P = s->force, *Fd = P + FP_FD, *G = P + FP_G;
    const int filter = P[FP_OMEGA_C] > 0.0;
    double Fs[6], Xd[16], Vd[6], dVd[6], Xe[6], Wd[6], dW[6], a[6], Ff[6], x[6], y[6], Pm[36];
    double *Wt = W + 13 * nv;
    int code;
    task_t ts;
    task_setup(s, W, &ts);
    sensor_reading(s, q, filter ? z + 12 : NULL, fe, Fs, filter ? dz + 12 : NULL, Wt);
    if ((code = task_state(s, q, v, 1, &ts, Wt, Wc)) != 0)
        return code;
    rd_pose_reference(s, t, Xd, Vd, dVd);
    rd_pose_error(ts.X, Xd, Vd, dVd, ts.V, Xe, Wd, dW);
    times(G, Xe, 6, a);     /* K_p X_e */
    times(G + 36, z, 6, x); /* K_i int X_e */
    for (int r = 0; r < 6; r++)
        a[r] = dW[r] + a[r] + x[r], y[r] = Wd[r] - ts.V[r];
    times(G + 72, y, 6, x); /* K_d (W - V) */
    for (int r = 0; r < 6; r++)
        a[r] += x[r], dz[r] = Xe[r], dz[6 + r] = Fd[r] + Fs[r];
    times(G + 108, dz + 6, 6, Ff); /* K_fp F_e, then + K_fi int F_e */
    times(G + 144, z + 6, 6, x);
    for (int r = 0; r < 6; r++)
        Ff[r] = Fd[r] + Ff[r] + x[r];
    if ((code = projection(ts.Lam, P + FP_A, (int)P[FP_NA], Pm)) != 0)
        return code;
    times(ts.Lam, a, 6, y); /* Lambda a - F_f, then F = P (Lambda a - F_f) + F_f - Lambda dJ v */
    for (int r = 0; r < 6; r++)
        y[r] -= Ff[r];
    times(Pm, y, 6, x);
    times(ts.Lam, ts.dJv, 6, y);
    for (int r = 0; r < 6; r++)
        x[r] = x[r] + Ff[r] - y[r];
    for (int64_t c = 0; c < nv; c++) {
        double acc = 0.0;
        for (int r = 0; r < 6; r++)
            acc += ts.J[nv * r + c] * x[r];
        tau[c] = acc + ts.h[c];
    }
    null_damping(&ts, nv, v, P[FP_KNULL], tau);
    return 0;
}

/* ---------------------------------------------------------------- impedance, admittance */
static int impedance(const sim_t *s, double t, const double *q, const double *v, const double *z,
                     const double *fe, double *tau, double *dz, double *W, double *Wc)
{
    /* Impedance (MR sec. 11.7.1, inertia shaping), rows S:
     *   a = dW_S + M^-1 (K X_e + B (W - V) + F_ext)_S,  tau = task_torque(a, F_ext);
     * dz: the filter's rate */
    const int64_t nv = s->mc->nv;
    const double *P = s->force, *G = P + FP_G;
    double Fs[6], FS[6], Xd[16], Vd[6], dVd[6], Xe[6], Wd[6], dW[6], e[6], d[6], y[6], x[6];
    double *Wt = W + 13 * nv;
    int code;
    task_t ts;
    task_setup(s, W, &ts);
    sensor_reading(s, q, P[FP_OMEGA_C] > 0.0 ? z : NULL, fe, Fs, dz, Wt);
    if ((code = task_state(s, q, v, 1, &ts, Wt, Wc)) != 0)
        return code;
    task_wrench(&ts, nv, Fs, FS);
    rd_pose_reference(s, t, Xd, Vd, dVd);
    rd_pose_error(ts.X, Xd, Vd, dVd, ts.V, Xe, Wd, dW);
    const int k = ts.k;
    for (int j = 0; j < k; j++)
        e[j] = Xe[ts.rows[j]], d[j] = Wd[ts.rows[j]] - ts.V[ts.rows[j]];
    times(G + 72, e, k, y); /* K X_e + B (W - V) + F_ext */
    times(G + 36, d, k, x);
    for (int j = 0; j < k; j++)
        y[j] = y[j] + x[j] + FS[j];
    solve_gain(G, k, y); /* M^-1 (...) */
    for (int j = 0; j < k; j++)
        y[j] = dW[ts.rows[j]] + y[j];
    task_torque(&ts, nv, y, FS, P[FP_KNULL], v, tau);
    return 0;
}

static void commanded(const sim_t *s, double t, const task_t *ts, const double *xc,
                      const double *xdc, const double *xddc, double *Xc, double *Vc,
                      double *dVc)
{
    /* the admittance's commanded motion (x_c padded with zeros outside S):
     * X_c = X_d exp([x_c]), V_c = [Ad_{exp(-[x_c])}] V_d + xd_c,
     * dV_c = [Ad_{exp(-[x_c])}] dV_d + xdd_c */
    double Xd[16], Vd[6], dVd[6], x0[6] = {0}, n0[6], R[9], p[3], Rw[3], Rv[3];
    rd_pose_reference(s, t, Xd, Vd, dVd);
    for (int k = 0; k < 6; k++)
        Vc[k] = dVc[k] = 0.0;
    for (int j = 0; j < ts->k; j++)
        x0[ts->rows[j]] = xc[j], Vc[ts->rows[j]] = xdc[j], dVc[ts->rows[j]] = xddc[j];
    for (int k = 0; k < 6; k++)
        n0[k] = -x0[k];
    rd_exp6(n0, R, p);
    for (int pass = 0; pass < 2; pass++) { /* [Ad_(R, p)] x = [R w; p x (R w) + R u] */
        const double *x = pass ? dVd : Vd;
        double *out = pass ? dVc : Vc;
        for (int r = 0; r < 3; r++) {
            Rw[r] = R[3 * r] * x[0] + R[3 * r + 1] * x[1] + R[3 * r + 2] * x[2];
            Rv[r] = R[3 * r] * x[3] + R[3 * r + 1] * x[4] + R[3 * r + 2] * x[5];
        }
        for (int r = 0; r < 3; r++) {
            const int r1 = (r + 1) % 3, r2 = (r + 2) % 3;
            out[r] += Rw[r];
            out[3 + r] += p[r1] * Rw[r2] - p[r2] * Rw[r1] + Rv[r];
        }
    }
    rd_exp6(x0, R, p);
    pose_times(Xd, R, p, Xc);
}

static int admittance(const sim_t *s, double t, const double *q, const double *v,
                      const double *z, const double *fe, double *tau, double *dz, double *W,
                      double *Wc)
{
    /* Admittance (MR sec. 11.7.2), rows S: the virtual dynamics
     * M xdd_c = F_ext - B xd_c - K x_c drive the commanded motion (commanded), tracked by
     *   a = dW_S + K_p X_e + K_d (W - V),  tau = task_torque(a, F_ext);
     * dz = [xd_c; xdd_c; dz_f] */
    const int64_t nv = s->mc->nv;
    const double *P = s->force, *G = P + FP_G;
    const int k = (int)P[FP_K];
    double Fs[6], FS[6], Xc[16], Vc[6], dVc[6], Xe[6], Wd[6], dW[6], e[6], d[6], x[6], y[6];
    double *Wt = W + 13 * nv, *xdd = dz + k;
    int code;
    task_t ts;
    task_setup(s, W, &ts);
    sensor_reading(s, q, P[FP_OMEGA_C] > 0.0 ? z + 2 * k : NULL, fe, Fs, dz + 2 * k, Wt);
    if ((code = task_state(s, q, v, 1, &ts, Wt, Wc)) != 0)
        return code;
    task_wrench(&ts, nv, Fs, FS);
    times(G + 36, z + k, k, x); /* M xdd_c = F_ext - B xd_c - K x_c */
    times(G + 72, z, k, y);
    for (int j = 0; j < k; j++)
        dz[j] = z[k + j], xdd[j] = FS[j] - x[j] - y[j];
    solve_gain(G, k, xdd);
    commanded(s, t, &ts, z, z + k, xdd, Xc, Vc, dVc);
    rd_pose_error(ts.X, Xc, Vc, dVc, ts.V, Xe, Wd, dW);
    for (int j = 0; j < k; j++)
        e[j] = Xe[ts.rows[j]], d[j] = Wd[ts.rows[j]] - ts.V[ts.rows[j]];
    times(G + 108, e, k, x); /* K_p X_e, K_d (W - V) */
    times(G + 144, d, k, y);
    for (int j = 0; j < k; j++)
        x[j] = dW[ts.rows[j]] + x[j] + y[j];
    task_torque(&ts, nv, x, FS, P[FP_KNULL], v, tau);
    return 0;
}

int rd_force_torque(const sim_t *s, double t, const double *q, const double *v, const double *z,
                    const double *fe, double *tau, double *dz, double *W, double *Wc)
{
    if (s->law == LAW_FORCE)
        return force_control(s, q, v, z, fe, tau, dz, W, Wc);
    if (s->law == LAW_HYBRID)
        return hybrid(s, t, q, v, z, fe, tau, dz, W, Wc);
    if (s->law == LAW_IMPEDANCE)
        return impedance(s, t, q, v, z, fe, tau, dz, W, Wc);
    return admittance(s, t, q, v, z, fe, tau, dz, W, Wc);
}

int rd_force_valid(const model_t *mc, int law, const double *P)
{
    /* whether a force law's parameters (FP_*) fit the controller's model: its frames, k
     * ascending rows of six (six for force and hybrid control), 1 .. 6 rows of A */
    const double k = P[FP_K];
    if (!(P[FP_FRAME] >= 0 && P[FP_FRAME] < mc->nf && P[FP_SENSOR] >= 0 && P[FP_SENSOR] < mc->nf
          && P[FP_OMEGA_C] >= 0 && k >= 1 && k <= 6 && k == floor(k)))
        return 0;
    if ((law == LAW_FORCE || law == LAW_HYBRID) && k != 6)
        return 0;
    for (int j = 0; j < (int)k; j++)
        if (!(P[FP_ROWS + j] >= (j ? P[FP_ROWS + j - 1] + 1 : 0) && P[FP_ROWS + j] <= 5
              && P[FP_ROWS + j] == floor(P[FP_ROWS + j])))
            return 0;
    return law != LAW_HYBRID || (P[FP_NA] >= 1 && P[FP_NA] <= 6 && P[FP_NA] == floor(P[FP_NA]));
}
