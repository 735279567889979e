/*
 * The poses of the bodies that support an operational frame, root first (MR eq. 4.13), their
 * space screw axes (MR eq. 5.11), and the changes of coordinates of a frame's Jacobian:
 * shared by kinematics.c (poses, Jacobians, dJ/dt, frame twists) and kinderiv.c (their
 * derivatives with respect to q and v).
 */
#ifndef RD_KINPATH_H
#define RD_KINPATH_H

#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_s,i (0:12), its space twist V_s (12:18) */
enum { WK = 18, K_R = 0, K_P = 9, K_V = 12 };

RD_INLINE void world_pose(int L, double *W)
{
    for (int k = 0; k < WK * L; k++)
        W[k] = 0.0;
    LANE { W[0 * L + l] = W[4 * L + l] = W[8 * L + l] = 1.0; }
}

RD_INLINE void body_pose(const model_t *md, int L, const double *q, int64_t i, double *W)
{
    /* T_s,i = T_s,lambda T_{lambda,i}(q) (MR eq. 4.13) */
    const int64_t *Ii = body_i(md, i);
    const double *Wl = W + WK * Ii[BI_PARENT] * L;
    double *Wi = W + WK * i * L, R[9 * LANES], p[3 * LANES];
    joint_pose(L, Ii, body_f(md, i), q, R, p);
    compose_l(L, Wl + K_R * L, Wl + K_P * L, R, p, Wi + K_R * L, Wi + K_P * L);
}

RD_INLINE int support(const model_t *md, int64_t b, int64_t *path)
{
    /* the bodies from b up to the world (excluded), leaf first; their number */
    int n = 0;
    for (; b > 0; b = body_i(md, b)[BI_PARENT])
        path[n++] = b;
    return n;
}

RD_INLINE int forward_path(const model_t *md, int L, const double *q, int64_t frame, double *W,
                           int64_t *path)
{
    /* the poses of the bodies supporting frame, root first; returns the path length */
    world_pose(L, W);
    int n = support(md, md->frame_body[frame], path);
    for (int j = n - 1; j >= 0; j--)
        body_pose(md, L, q, path[j], W);
    return n;
}

RD_INLINE void forward_all(const model_t *md, int L, const double *q, double *W)
{
    world_pose(L, W);
    for (int64_t i = 1; i < md->nb; i++)
        body_pose(md, L, q, i, W);
}

RD_INLINE void frame_pose4(const model_t *md, int L, const double *W, int64_t frame, double *T)
{
    /* T (4 x 4, row-major, laned) = T_s,b T_b,f for operational frame f on body b */
    const double *G = md->frame_Rp + 12 * frame;
    const double *Wb = W + WK * md->frame_body[frame] * L;
    for (int r = 0; r < 3; r++)
        LANE {
            const double a0 = Wb[3 * r * L + l], a1 = Wb[(3 * r + 1) * L + l],
                         a2 = Wb[(3 * r + 2) * L + l];
            for (int c = 0; c < 3; c++)
                T[(4 * r + c) * L + l] = a0 * G[c] + a1 * G[3 + c] + a2 * G[6 + c];
            T[(4 * r + 3) * L + l] = Wb[(K_P + r) * L + l] + a0 * G[9] + a1 * G[10] + a2 * G[11];
        }
    LANE {
        T[12 * L + l] = T[13 * L + l] = T[14 * L + l] = 0.0;
        T[15 * L + l] = 1.0;
    }
}

RD_INLINE void space_jacobian(const model_t *md, int L, const double *W, const double *q,
                              const int64_t *path, int n, double *J, const int64_t *nz,
                              int64_t nnz)
{
    /* J (6 x nv, laned) = the space screw axes of the joints of path (the frame's
     * support), zero elsewhere (nz: only the support's columns are set, the others are
     * never read); a mimic joint adds to its leader's column */
    const int64_t nv = md->nv;
    double col[36 * LANES];
    if (nz)
        for (int64_t k = 0; k < nnz; k++)
            LANE { J[nz[k] * L + l] = 0.0; }
    else
        for (int64_t k = 0; k < 6 * nv * L; k++)
            J[k] = 0.0;
    for (int j = 0; j < n; j++) {
        const int64_t va = body_i(md, path[j])[BI_VIDX];
        int m = joint_columns(md, L, W + (WK * path[j] + K_R) * L, W + (WK * path[j] + K_P) * L, q,
                              path[j], col);
        for (int c = 0; c < m; c++)
            for (int r = 0; r < 6; r++)
                LANE { J[(r * nv + va + c) * L + l] += col[(6 * c + r) * L + l]; }
    }
}

RD_INLINE void change_kind(int L, const double *T, int kind, int64_t nv, double *J,
                            const int64_t *cols, int64_t ncol)
{
    /* re-express the space columns of J (6 x nv, laned) for the frame pose T: body
     * J_b = [Ad_{T^-1}] J_s (MR eq. 5.22); world aligned: angular rows kept, linear rows
     * v + w x p (the velocity of the frame origin p); the columns cols[0 .. ncol-1], or all
     * nv when cols is NULL */
    if (kind == KIND_SPACE)
        return;
    for (int64_t k = 0; k < (cols ? ncol : nv); k++)
        LANE {
            const int64_t c = cols ? cols[k] : k;
            const double px = T[3 * L + l], py = T[7 * L + l], pz = T[11 * L + l];
            double *Jc = J + c * L + l;
            const double wx = Jc[0], wy = Jc[nv * L], wz = Jc[2 * nv * L];
            const double vx = Jc[3 * nv * L] + wy * pz - wz * py;
            const double vy = Jc[4 * nv * L] + wz * px - wx * pz;
            const double vz = Jc[5 * nv * L] + wx * py - wy * px;
            if (kind == KIND_BODY)
                for (int r = 0; r < 3; r++) {
                    const double t0 = T[r * L + l], t1 = T[(4 + r) * L + l], t2 = T[(8 + r) * L + l];
                    Jc[r * nv * L] = t0 * wx + t1 * wy + t2 * wz;
                    Jc[(3 + r) * nv * L] = t0 * vx + t1 * vy + t2 * vz;
                }
            else {
                Jc[3 * nv * L] = vx;
                Jc[4 * nv * L] = vy;
                Jc[5 * nv * L] = vz;
            }
        }
}

RD_INLINE void ad_add(int L, const double *V, const double *S, double sign, double *out,
                      int64_t stride)
{
    /* out += sign [ad_V] S = sign [w x s; u x s + w x t] for V = [w; u], S = [s; t]
     * (MR def. 8.2); S laned (6), out laned with rows stride apart */
    LANE {
        const double wx = V[l], wy = V[L + l], wz = V[2 * L + l];
        const double ux = V[3 * L + l], uy = V[4 * L + l], uz = V[5 * L + l];
        const double sx = S[l], sy = S[L + l], sz = S[2 * L + l];
        const double tx = S[3 * L + l], ty = S[4 * L + l], tz = S[5 * L + l];
        out[l] += sign * (wy * sz - wz * sy);
        out[stride + l] += sign * (wz * sx - wx * sz);
        out[2 * stride + l] += sign * (wx * sy - wy * sx);
        out[3 * stride + l] += sign * (uy * sz - uz * sy + wy * tz - wz * ty);
        out[4 * stride + l] += sign * (uz * sx - ux * sz + wz * tx - wx * tz);
        out[5 * stride + l] += sign * (ux * sy - uy * sx + wx * ty - wy * tx);
    }
}

/* the support path (nb int64) after the WK fields of every body */
RD_INLINE int64_t *path_area(const model_t *md, int L, double *W)
{
    return (int64_t *)(W + WK * md->nb * L);
}

#endif
