/*
 * The joint-torque regressor Y(q, qd, qdd) with tau = Y pi (robodyn.ident): pi holds, per
 * moving body i, [m, h_x, h_y, h_z, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] about its joint frame
 * (h = m c, I_o the inertia about the frame's origin). Joint friction and armature columns
 * are added by the Python wrapper.
 *
 * x[0] = q (nq), x[1] = qd (nv), x[2] = qdd (nv); gravity enters as dV_0 = [0; -g].
 *   forward pass (MR eqs. 8.50-8.51): V_i, dV_i as in the RNEA;
 *   per body A_i (6 x 10) with F_i = G_i dV_i - ad_{V_i}^T G_i V_i = A_i pi_i (MR 8.53):
 *     F_ang = I_o dw + w x I_o w + h x (dv + w x v)
 *     F_lin = m (dv + w x v) + dw x h + w x (w x h)
 *   then along the supporting chain j = i, lambda(i), ..: Y[dofs of j, cols of i] +=
 *   S_j^T F (MR 8.54) and F <- Ad_{T_{j,lambda}}^T F (MR 8.53, children part).
 * out: (nv, 10 (nb - 1)) row-major per state, lane-major.
 */
#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_{lambda,i} (0:12), V_i (12:18),
 * dV_i (18:24) */
enum { XW = 24, X_R = 0, X_P = 9, X_W = 12, X_V = 15, X_DW = 18, X_DV = 21 };

int64_t rd_regressor_work(const model_t *md) { return XW * md->nb; }

/* the unit inertias: I x for the parameter k of [Ixx, Ixy, Ixz, Iyy, Iyz, Izz] adds
 * x[s] to row r for each pair (r, s) */
static const int UI_N[6] = {1, 2, 2, 1, 2, 1};
static const int UI_RS[6][2][2] = {
    {{0, 0}, {0, 0}}, {{0, 1}, {1, 0}}, {{0, 2}, {2, 0}},
    {{1, 1}, {0, 0}}, {{1, 2}, {2, 1}}, {{2, 2}, {0, 0}},
};

RD_INLINE void unit_cross(int L, const double *a, int c, double *out)
{
    /* out = a x e_c */
    const double *a0 = a, *a1 = a + L, *a2 = a + 2 * L;
    LANE {
        if (c == 0)
            out[l] = 0.0, out[L + l] = a2[l], out[2 * L + l] = -a1[l];
        else if (c == 1)
            out[l] = -a2[l], out[L + l] = 0.0, out[2 * L + l] = a0[l];
        else
            out[l] = a1[l], out[L + l] = -a0[l], out[2 * L + l] = 0.0;
    }
}

RD_INLINE void body_wrench_matrix(int L, const double *w, const double *v, const double *dw,
                                  const double *dv, double *A)
{
    /* A (column c of 6 rows at A + 6 c L) with F = A pi (MR eq. 8.53, own part) */
    double acc[3 * LANES], t[3 * LANES], u[3 * LANES];
    cross_l(L, w, v, acc);
    for (int k = 0; k < 3 * L; k++)
        acc[k] += dv[k]; /* dv + w x v */
    for (int k = 0; k < 60 * L; k++)
        A[k] = 0.0;
    for (int k = 0; k < 3 * L; k++)
        A[3 * L + k] = acc[k]; /* m: [0; acc] */
    for (int c = 0; c < 3; c++) {
        double *col = A + 6 * (1 + c) * L;
        unit_cross(L, acc, c, t); /* h x acc = -(acc x e_c) */
        for (int k = 0; k < 3 * L; k++)
            col[k] = -t[k];
        unit_cross(L, dw, c, col + 3 * L); /* dw x e_c */
        unit_cross(L, w, c, t);            /* w x e_c */
        cross_add_l(L, w, t, col + 3 * L); /* + w x (w x e_c) */
    }
    for (int p = 0; p < 6; p++) {
        double *col = A + 6 * (4 + p) * L;
        for (int k = 0; k < 3 * L; k++)
            u[k] = 0.0;
        for (int n = 0; n < UI_N[p]; n++) {
            const int r = UI_RS[p][n][0], s = UI_RS[p][n][1];
            LANE {
                col[r * L + l] += dw[s * L + l]; /* E_p dw */
                u[r * L + l] += w[s * L + l];    /* E_p w */
            }
        }
        cross_add_l(L, w, u, col); /* + w x E_p w */
    }
}

RD_INLINE int regressor_lanes(const model_t *md, const int L, const args_t *a,
                              double *RESTRICT Y, double *RESTRICT W)
{
    const int64_t nb = md->nb, nv = md->nv, P = 10 * (nb - 1);
    const double *q = a->x[0], *v = a->x[1], *qdd = a->x[2];
    for (int k = X_W * L; k < XW * L; k++)
        W[k] = 0.0;
    for (int r = 0; r < 3; r++)
        LANE { W[(X_DV + r) * L + l] = -md->F[r]; } /* dV_0 = [0; -g] */
    for (int64_t k = 0; k < nv * P * L; k++)
        Y[k] = 0.0;
    /* ---- forward pass: MR eqs. 8.50-8.51 (as in rnea.c) */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + XW * i * L;
        const double *Wl = W + XW * Ii[BI_PARENT] * L;
        double *R = Wi + X_R * L, *p = Wi + X_P * L;
        joint_pose(L, Ii, Fi, q, R, p);
        body_motion(L, Ii, Fi, q, v, qdd, R, p, Wl + X_W * L, Wi + X_W * L, 1); /* 8.50-8.51 */
    }
    /* ---- per body: A_i, carried to the joints of its supporting chain (8.53-8.54) */
    double A[60 * LANES], gm[3 * LANES], gf[3 * LANES];
    for (int64_t i = 1; i < nb; i++) {
        const double *Wi = W + XW * i * L;
        body_wrench_matrix(L, Wi + X_W * L, Wi + X_V * L, Wi + X_DW * L, Wi + X_DV * L, A);
        const int64_t c0 = 10 * (i - 1);
        for (int64_t j = i; j > 0;) {
            const int64_t *Ij = body_i(md, j);
            const double *Fj = body_f(md, j);
            const int64_t jt = Ij[BI_TYPE], va = Ij[BI_VIDX];
            const double mult = Fj[BF_MULT], *ax = Fj + BF_AXIS;
            double u[3 * LANES], s2[LANES], c2[LANES];
            if (jt == J_UNIVERSAL) /* S_j = [u(q), a2; 0, 0] */
                universal_u(L, Fj, q + Ij[BI_QIDX] * L, u, s2, c2);
            for (int c = 0; c < 10; c++) { /* 8.54: Y[dofs of j, c0 + c] += S_j^T F */
                const double *fm = A + 6 * c * L, *ff = fm + 3 * L;
                double *y = Y + (va * P + c0 + c) * L; /* row va; row va + k at + k P L */
                if (jt == J_FREE) {
                    for (int r = 0; r < 6; r++)
                        LANE { y[r * P * L + l] += fm[r * L + l]; }
                } else if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
                    const double *f = jt == J_REVOLUTE ? fm : ff;
                    LANE { y[l] += mult * (ax[0] * f[l] + ax[1] * f[L + l] + ax[2] * f[2 * L + l]); }
                } else if (jt == J_UNIVERSAL) {
                    const double *a2 = Fj + BF_S;
                    LANE {
                        y[l] += u[l] * fm[l] + u[L + l] * fm[L + l] + u[2 * L + l] * fm[2 * L + l];
                        y[P * L + l] += a2[0] * fm[l] + a2[1] * fm[L + l] + a2[2] * fm[2 * L + l];
                    }
                } else if (jt >= J_SPHERICAL) {
                    for (int k = 0; k < Ij[BI_NV]; k++) {
                        const double *sk = Fj + BF_S + 6 * k; /* column k of S_j */
                        LANE {
                            y[k * P * L + l] += sk[0] * fm[l] + sk[1] * fm[L + l]
                                                + sk[2] * fm[2 * L + l] + sk[3] * ff[l]
                                                + sk[4] * ff[L + l] + sk[5] * ff[2 * L + l];
                        }
                    }
                }
            }
            const int64_t lam = Ij[BI_PARENT];
            if (lam > 0) { /* 8.53 (children part): F <- Ad_{T_{j,lambda}}^T F */
                const double *Wj = W + XW * j * L;
                for (int c = 0; c < 10; c++) {
                    double *col = A + 6 * c * L;
                    wrench_to_parent(L, Wj + X_R * L, Wj + X_P * L, col, col + 3 * L, gm, gf);
                    for (int k = 0; k < 3 * L; k++)
                        col[k] = gm[k], col[3 * L + k] = gf[k];
                }
            }
            j = lam;
        }
    }
    return 0;
}

CLONES int rd_regressor(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                        double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? regressor_lanes(md, 1, a, out, W) : regressor_lanes(md, LANES, a, out, W);
}
