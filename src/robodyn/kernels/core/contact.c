/*
 * Compliant contacts between points (or spheres) fixed to frames of the robot and planes,
 * spheres and boxes fixed in the world: robodyn.sim.Environment's law, for the compiled
 * rollout (sim.c). With s the signed distance of the point's centre c to the shape
 * (positive outside), r its radius, n the outward unit normal at the nearest point,
 * p_c = c - r n the contact point on the robot and v_c its velocity (environment.py):
 *
 *   d     = max(0, r - s)                               penetration depth
 *   f_n   = max(0, k d - b (n . v_c))   (0 when d = 0)  normal force: pushes, never pulls
 *   v_t   = v_c - (n . v_c) n                           sliding velocity
 *   f_t   = -mu f_n tanh(|v_t| / v_eps) v_t / |v_t|     regularised Coulomb friction
 *   f     = f_n n + f_t                                 on the robot, at p_c
 *
 * and the wrench on the point's body i, in its frame about its origin (robodyn's f_ext):
 * [r_i x f_i; f_i], f_i = R_si^T f, r_i = R_si^T (p_c - p_si).
 */
#include "contact.h"

#include "batch.h"

int rd_env_valid(const model_t *md, const double *env, int64_t n)
{
    if (n < EV_HEAD || !(env[EV_NP] >= 0 && env[EV_NP] < 1e6) || !(env[EV_NS] >= 0
        && env[EV_NS] < 1e6) || env_size(env) != n)
        return 0;
    const int64_t np = (int64_t)env[EV_NP], ns = (int64_t)env[EV_NS];
    for (int64_t i = 0; i < np; i++) {
        const double f = env[EV_HEAD + PT_SIZE * i + PT_FRAME];
        if (!(f >= 0 && f < md->nf))
            return 0;
    }
    for (int64_t j = 0; j < ns; j++) {
        const double k = env[EV_HEAD + PT_SIZE * np + SH_SIZE * j + SH_KIND];
        if (k != SHAPE_PLANE && k != SHAPE_SPHERE && k != SHAPE_BOX)
            return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- distances */
static void plane_distance(const double *S, const double *c, double *s, double *n)
{
    /* s = n . (c - point) */
    const double *p = S + SH_C, *nn = S + SH_N;
    *s = (c[0] - p[0]) * nn[0] + (c[1] - p[1]) * nn[1] + (c[2] - p[2]) * nn[2];
    n[0] = nn[0], n[1] = nn[1], n[2] = nn[2];
}

static void sphere_distance(const double *S, const double *c, double *s, double *n)
{
    /* s = |c - centre| - R, n = (c - centre) / |c - centre| (+z at the centre itself) */
    const double d[3] = {c[0] - S[SH_C], c[1] - S[SH_C + 1], c[2] - S[SH_C + 2]};
    const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++)
        n[k] = r > 0 ? d[k] / r : (k == 2 ? 1.0 : 0.0);
    *s = r - S[SH_N];
}

static void box_distance(const double *S, const double *c, double *s, double *n)
{
    /* in the box's axes x = R^T (c - centre), half sizes h: outside, the nearest point is
     * clip(x, -h, h) (s = |x - clip(x)|, n along x - clip(x)); inside, the face of least
     * depth h_i - |x_i| (s = -depth, n = sgn(x_i) e_i); n turned back to the world: R n */
    const double *R = S + SH_R;
    double x[3], e[3], depth[3], nb[3] = {0.0, 0.0, 0.0};
    for (int j = 0; j < 3; j++) {
        const double h = 0.5 * S[SH_N + j];
        x[j] = (c[0] - S[SH_C]) * R[j] + (c[1] - S[SH_C + 1]) * R[3 + j]
               + (c[2] - S[SH_C + 2]) * R[6 + j];
        e[j] = x[j] - (x[j] < -h ? -h : (x[j] > h ? h : x[j]));
        depth[j] = h - fabs(x[j]);
    }
    const double out = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    int i = 0;
    for (int j = 1; j < 3; j++) /* the first face of least depth */
        i = depth[j] < depth[i] ? j : i;
    if (out > 0) {
        for (int j = 0; j < 3; j++)
            nb[j] = e[j] / out;
        *s = out;
    }
    else {
        nb[i] = x[i] < 0 ? -1.0 : 1.0;
        *s = -depth[i];
    }
    for (int r = 0; r < 3; r++)
        n[r] = nb[0] * R[3 * r] + nb[1] * R[3 * r + 1] + nb[2] * R[3 * r + 2];
}

/* ---------------------------------------------------------------- the contact law */
static void contact_force(const double *S, double r, double s, const double *n,
                          const double *arm_c, const double *V, double *f)
{
    /* f = f_n n + f_t (the module's comment) for the frame's world-aligned twist
     * V = [omega; v_o] and the contact point's arm p_c - o (world axes) */
    const double *w = V, *vo = V + 3;
    const double vc[3] = {vo[0] + (w[1] * arm_c[2] - w[2] * arm_c[1]),
                          vo[1] + (w[2] * arm_c[0] - w[0] * arm_c[2]),
                          vo[2] + (w[0] * arm_c[1] - w[1] * arm_c[0])}; /* v_o + omega x arm */
    const double d = r - s > 0.0 ? r - s : 0.0;
    const double vn = vc[0] * n[0] + vc[1] * n[1] + vc[2] * n[2];
    double fn = S[SH_K] * d - S[SH_B] * vn; /* k d + b d_dot, d_dot = -n . v_c */
    fn = d > 0 && fn > 0.0 ? fn : 0.0;
    const double vt[3] = {vc[0] - vn * n[0], vc[1] - vn * n[1], vc[2] - vn * n[2]};
    const double u = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]) / S[SH_VEPS];
    /* tanh(u) / u -> 1 as u -> 0: f_t = -mu f_n (tanh(u) / u) v_t / v_eps, smooth at rest */
    const double ratio = u > 1e-8 ? tanh(u) / u : 1.0;
    const double ft = -(S[SH_MU] * fn * ratio / S[SH_VEPS]);
    for (int k = 0; k < 3; k++)
        f[k] = fn * n[k] + ft * vt[k];
}

static void add_wrench(const model_t *md, int64_t frame, const double *T, const double *pc,
                       const double *f, double *fext)
{
    /* fext[b] += [r_b x f_b; f_b], f_b = R_sb^T f, r_b = R_sb^T (p_c - p_sb), with
     * T_sb = T_sf T_bf^-1 (R_sb = R_sf R_bf^T, p_sb = p_sf - R_sb p_bf) */
    const double *G = md->frame_Rp + 12 * frame; /* T_bf: R_bf (row-major), p_bf */
    double R[9], p[3], fb[3], rb[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = T[4 * i] * G[3 * j] + T[4 * i + 1] * G[3 * j + 1]
                           + T[4 * i + 2] * G[3 * j + 2];
    for (int i = 0; i < 3; i++)
        p[i] = T[4 * i + 3] - (R[3 * i] * G[9] + R[3 * i + 1] * G[10] + R[3 * i + 2] * G[11]);
    for (int j = 0; j < 3; j++) {
        fb[j] = R[j] * f[0] + R[3 + j] * f[1] + R[6 + j] * f[2];
        rb[j] = R[j] * (pc[0] - p[0]) + R[3 + j] * (pc[1] - p[1]) + R[6 + j] * (pc[2] - p[2]);
    }
    double *F = fext + 6 * md->frame_body[frame];
    F[0] += rb[1] * fb[2] - rb[2] * fb[1];
    F[1] += rb[2] * fb[0] - rb[0] * fb[2];
    F[2] += rb[0] * fb[1] - rb[1] * fb[0];
    for (int j = 0; j < 3; j++)
        F[3 + j] += fb[j];
}

/* ---------------------------------------------------------------- the environment */
int64_t rd_contacts_work(const model_t *md) { return rd_kin_work(md); }

void rd_contacts(const model_t *md, const double *env, const double *q, const double *v,
                 double *fext, double *force, double *W)
{
    /* every point against every shape: the point's frame posed (T_sf) and moving with its
     * world-aligned twist V = [omega; v_o] (kinematics.c, once per frame), its centre
     * c = o + R offset, each shape's distance and normal, the force at p_c = c - r n, and
     * its wrench on the frame's body */
    const int64_t np = (int64_t)env[EV_NP], ns = (int64_t)env[EV_NS];
    const double *pts = env + EV_HEAD, *shp = pts + PT_SIZE * np;
    int64_t last = -1;
    double T[16], V[6];
    int lane = 0;
    for (int64_t k = 0; k < 6 * md->nb; k++)
        fext[k] = 0.0;
    for (int64_t i = 0; i < np; i++) {
        const double *P = pts + PT_SIZE * i, *off = P + PT_OFFSET, r = P[PT_RADIUS];
        const int64_t f = (int64_t)P[PT_FRAME];
        if (f != last) {
            args_t a = {{q, v, NULL, NULL}, NULL, 0, 0.0, f, KIND_WORLD_ALIGNED, NULL, NULL, 0};
            rd_frame_pose(md, 1, &a, T, W, &lane);
            rd_frame_motion(md, 1, &a, V, W, &lane);
            last = f;
        }
        double arm[3], c[3];
        for (int j = 0; j < 3; j++) { /* arm = R offset, c = o + arm */
            arm[j] = T[4 * j] * off[0] + T[4 * j + 1] * off[1] + T[4 * j + 2] * off[2];
            c[j] = T[4 * j + 3] + arm[j];
        }
        for (int64_t j = 0; j < ns; j++) {
            const double *S = shp + SH_SIZE * j;
            double s, n[3], arm_c[3], pc[3], *F = force + 3 * (i * ns + j);
            const int kind = (int)S[SH_KIND];
            if (kind == SHAPE_PLANE)
                plane_distance(S, c, &s, n);
            else if (kind == SHAPE_SPHERE)
                sphere_distance(S, c, &s, n);
            else
                box_distance(S, c, &s, n);
            for (int e = 0; e < 3; e++) { /* p_c - o = arm - r n */
                arm_c[e] = arm[e] - r * n[e];
                pc[e] = T[4 * e + 3] + arm_c[e];
            }
            contact_force(S, r, s, n, arm_c, V, F);
            add_wrench(md, f, T, pc, F, fext);
        }
    }
}
