/*
 * Inverse dynamics by the recursive Newton-Euler algorithm (MR section 8.3.2, eqs.
 * 8.50-8.54; Featherstone table 5.1):
 *
 *   tau = M(q) qdd + c(q, qd) + g(q) - J^T F_ext + b qd + f_c sgn(qd) + armature qdd
 *
 * x[0] = q (nq), x[1] = qd (nv, read when FL_VEL), x[2] = qdd (nv, read when FL_ACC);
 * gravity enters as the base acceleration dV_0 = [0; -g] when FL_GRAVITY. The same
 * function gives the gravity, velocity and bias forces by its flags.
 */
#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_{lambda,i} (0:12), V_i (12:18),
 * dV_i (18:24), F_i (24:30) */
enum { WW = 30, W_R = 0, W_P = 9, W_W = 12, W_V = 15, W_DW = 18, W_DV = 21, W_FM = 24, W_FF = 27 };

int64_t rd_rnea_work(const model_t *md) { return WW * md->nb; }

RD_INLINE int rnea_lanes(const model_t *md, const int L, const args_t *a, double *RESTRICT tau,
                         double *RESTRICT W)
{
    const int64_t nb = md->nb, nv = md->nv;
    const long flags = a->flags;
    const double *q = a->x[0];
    const double *v = (flags & FL_VEL) ? a->x[1] : NULL;
    const double *qdd = (flags & FL_ACC) ? a->x[2] : NULL;
    const double *fext = (flags & FL_FEXT) ? a->fext : NULL;
    /* base: V_0 = 0, dV_0 = [0; -g] (gravity as a fictitious base acceleration) */
    for (int k = W_W * L; k < WW * L; k++)
        W[k] = 0.0;
    if (flags & FL_GRAVITY)
        for (int r = 0; r < 3; r++)
            LANE { W[(W_DV + r) * L + l] = -md->F[r]; }
    for (int64_t k = 0; k < nv * L; k++)
        tau[k] = 0.0;
    /* ---- forward pass, i = 1..n: velocities and accelerations, MR eqs. 8.50-8.52 */
    for (int64_t i = 1; i < nb; i++) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        double *Wi = W + WW * i * L;
        const double *Wl = W + WW * Ii[BI_PARENT] * L;
        double *R = Wi + W_R * L, *p = Wi + W_P * L;
        double *w = Wi + W_W * L, *vb = Wi + W_V * L, *dw = Wi + W_DW * L, *dv = Wi + W_DV * L;
        joint_pose(L, Ii, Fi, q, R, p);
        body_motion(L, Ii, Fi, q, v, qdd, R, p, Wl + W_W * L, w, 1); /* 8.50-8.51 */
        /* 8.53 (own part): F_i = G_i dV_i - ad_{V_i}^T (G_i V_i) - F_ext,i */
        double *fm = Wi + W_FM * L, *ff = Wi + W_FF * L;
        body_wrench(L, Fi, w, vb, dw, dv, fm, ff);
        if (fext)
            for (int k = 0; k < 6 * L; k++)
                fm[k] -= fext[6 * i * L + k]; /* fm, ff are consecutive: F_i[0:6] */
    }
    /* ---- backward pass, i = n..1: MR eqs. 8.53-8.54 */
    for (int64_t i = nb - 1; i > 0; i--) {
        const int64_t *Ii = body_i(md, i);
        const double *Fi = body_f(md, i);
        const double *Wi = W + WW * i * L;
        const double *fm = Wi + W_FM * L, *ff = Wi + W_FF * L, *ax = Fi + BF_AXIS;
        const int64_t jt = Ii[BI_TYPE], va = Ii[BI_VIDX];
        const double mult = Fi[BF_MULT];
        /* 8.54: tau_i = S_i^T F_i (a mimic adds mult S_i^T F_i to its leader) */
        if (jt == J_FREE)
            for (int k = 0; k < 6 * L; k++)
                tau[va * L + k] += fm[k];
        else if (jt == J_REVOLUTE || jt == J_PRISMATIC) {
            const double *f = jt == J_REVOLUTE ? fm : ff;
            LANE {
                tau[va * L + l] += mult * (ax[0] * f[l] + ax[1] * f[L + l] + ax[2] * f[2 * L + l]);
            }
        }
        else if (jt == J_UNIVERSAL) { /* S_i = [u, a2; 0, 0] */
            double u[3 * LANES], s2[LANES], c2[LANES];
            const double *a2 = Fi + BF_S;
            universal_u(L, Fi, q + Ii[BI_QIDX] * L, u, s2, c2);
            LANE {
                tau[va * L + l] += u[l] * fm[l] + u[L + l] * fm[L + l] + u[2 * L + l] * fm[2 * L + l];
                tau[(va + 1) * L + l] += a2[0] * fm[l] + a2[1] * fm[L + l] + a2[2] * fm[2 * L + l];
            }
        }
        else if (jt >= J_SPHERICAL)
            for (int k = 0; k < Ii[BI_NV]; k++) {
                const double *sk = Fi + BF_S + 6 * k; /* column k of S_i */
                LANE {
                    tau[(va + k) * L + l] += sk[0] * fm[l] + sk[1] * fm[L + l] + sk[2] * fm[2 * L + l]
                                             + sk[3] * ff[l] + sk[4] * ff[L + l] + sk[5] * ff[2 * L + l];
                }
            }
        /* 8.53 (child part): F_lambda += Ad_{T_{i,lambda}}^T F_i */
        const int64_t lam = Ii[BI_PARENT];
        if (lam > 0) {
            double gm[3 * LANES], gf[3 * LANES];
            double *Wl = W + WW * lam * L;
            wrench_to_parent(L, Wi + W_R * L, Wi + W_P * L, fm, ff, gm, gf);
            for (int k = 0; k < 3 * L; k++)
                Wl[W_FM * L + k] += gm[k], Wl[W_FF * L + k] += gf[k];
        }
    }
    /* ---- joint friction and rotor inertia: tau += b qd + f_c sgn(qd) + armature qdd */
    const double *d = dof_params(md);
    if ((flags & FL_FRICTION) && v)
        for (int64_t k = 0; k < nv; k++) {
            double f[LANES];
            joint_friction(L, d, nv, k, v, a->eps, f);
            LANE { tau[k * L + l] += f[l]; }
        }
    if ((flags & FL_ARMATURE) && qdd)
        for (int64_t k = 0; k < nv; k++)
            LANE { tau[k * L + l] += d[2 * nv + k] * qdd[k * L + l]; }
    return 0;
}

CLONES int rd_rnea(const model_t *md, int L, const args_t *a, double *RESTRICT out,
                   double *RESTRICT W, int *lane)
{
    *lane = 0;
    return L == 1 ? rnea_lanes(md, 1, a, out, W) : rnea_lanes(md, LANES, a, out, W);
}
