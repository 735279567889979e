"""Recursive Newton-Euler inverse dynamics (MR section 8.3.2, eqs. 8.50-8.54).

Body coordinates, twists ``V = [omega, v]``, wrenches ``F = [m, f]``. Gravity enters as
the base acceleration ``dV_0 = [0, -g]`` (MR p. 293). A mimic joint reads its leader's
rate times its multiplier and adds ``mult * S_i^T F_i`` to its leader's torque, which is
``G^T tau_full`` for the expansion ``v_full = G v``.

Workspace row of body i (``WW`` floats): R (9), p (3) of T_{lambda,i}; V_i (6); dV_i (6);
F_i (6).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._pack import (
    BF_AXIS,
    BF_H,
    BF_IO,
    BF_MASS,
    BF_MULT,
    BI_PARENT,
    BI_TYPE,
    BI_VIDX,
    FL_ACC,
    FL_ARMATURE,
    FL_CHECK,
    FL_FEXT,
    FL_FRICTION,
    FL_GRAVITY,
    FL_VEL,
    HF,
    HI,
    J_FREE,
    J_REVOLUTE,
    WF,
    WI,
)
from ._small import coulomb, cross, joint_pose, joint_rate, load9, nonfinite, wrench_to_parent

WW = 30


@njit(cache=True, nogil=True)
def rnea_core(I, F, q, v, a, fext, flags, eps, tau, W):
    """tau = rnea(q, v, a) for one state into ``tau`` (nv,), using workspace W (WW nb,).

    Returns 0, or an error code (11-14: non-finite q, v, a, f_ext; 15: zero quaternion).
    """
    nb, nv = I[0], I[2]
    use_v = (flags & FL_VEL) != 0
    use_a = (flags & FL_ACC) != 0
    use_f = (flags & FL_FEXT) != 0
    if flags & FL_CHECK:
        if nonfinite(q):
            return 11
        if use_v and nonfinite(v):
            return 12
        if use_a and nonfinite(a):
            return 13
        if use_f:
            for i in range(fext.shape[0]):
                if nonfinite(fext[i]):
                    return 14
    # base: V_0 = 0, dV_0 = [0, -g] (gravity as a fictitious base acceleration)
    for k in range(18):
        W[12 + k] = 0.0
    if flags & FL_GRAVITY:
        W[21], W[22], W[23] = -F[0], -F[1], -F[2]
    for k in range(nv):
        tau[k] = 0.0
    # ---- forward pass, i = 1..n: velocities and accelerations, MR eqs. 8.50-8.52
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WW * i
        wl = WW * I[bi + BI_PARENT]
        err = joint_pose(I, F, q, bi, bf, W, wo)
        if err:
            return err
        R = load9(W, wo)
        px, py, pz = W[wo + 9], W[wo + 10], W[wo + 11]
        # joint twist V_J = S_i qd_i and joint acceleration S_i qdd_i (body frame)
        if I[bi + BI_TYPE] == J_FREE:
            va = I[bi + BI_VIDX]
            if use_v:
                jwx, jwy, jwz, jvx, jvy, jvz = (
                    v[va],
                    v[va + 1],
                    v[va + 2],
                    v[va + 3],
                    v[va + 4],
                    v[va + 5],
                )
            else:
                jwx = jwy = jwz = jvx = jvy = jvz = 0.0
            if use_a:
                awx, awy, awz, avx, avy, avz = (
                    a[va],
                    a[va + 1],
                    a[va + 2],
                    a[va + 3],
                    a[va + 4],
                    a[va + 5],
                )
            else:
                awx = awy = awz = avx = avy = avz = 0.0
        else:
            if use_v:
                jwx, jwy, jwz, jvx, jvy, jvz = joint_rate(I, F, v, bi, bf)
            else:
                jwx = jwy = jwz = jvx = jvy = jvz = 0.0
            if use_a:
                awx, awy, awz, avx, avy, avz = joint_rate(I, F, a, bi, bf)
            else:
                awx = awy = awz = avx = avy = avz = 0.0
        # parent twist and acceleration, lambda frame
        lwx, lwy, lwz = W[wl + 12], W[wl + 13], W[wl + 14]
        lvx, lvy, lvz = W[wl + 15], W[wl + 16], W[wl + 17]
        law_x, law_y, law_z = W[wl + 18], W[wl + 19], W[wl + 20]
        lav_x, lav_y, lav_z = W[wl + 21], W[wl + 22], W[wl + 23]
        # 8.50: V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i
        #       = [R^T w_l; R^T (v_l + w_l x p)] + V_J
        cx, cy, cz = cross(lwx, lwy, lwz, px, py, pz)
        tx, ty, tz = lvx + cx, lvy + cy, lvz + cz
        wx = R[0] * lwx + R[3] * lwy + R[6] * lwz + jwx
        wy = R[1] * lwx + R[4] * lwy + R[7] * lwz + jwy
        wz = R[2] * lwx + R[5] * lwy + R[8] * lwz + jwz
        vx = R[0] * tx + R[3] * ty + R[6] * tz + jvx
        vy = R[1] * tx + R[4] * ty + R[7] * tz + jvy
        vz = R[2] * tx + R[5] * ty + R[8] * tz + jvz
        # 8.51: dV_i = Ad_{T_{i,lambda}} dV_lambda + ad_{V_i}(S_i qd_i) + S_i qdd_i
        #       ad_V V_J = [w x w_J; w x v_J + v x w_J]
        cx, cy, cz = cross(law_x, law_y, law_z, px, py, pz)
        tx, ty, tz = lav_x + cx, lav_y + cy, lav_z + cz
        e1x, e1y, e1z = cross(wx, wy, wz, jwx, jwy, jwz)
        e2x, e2y, e2z = cross(wx, wy, wz, jvx, jvy, jvz)
        e3x, e3y, e3z = cross(vx, vy, vz, jwx, jwy, jwz)
        dwx = R[0] * law_x + R[3] * law_y + R[6] * law_z + e1x + awx
        dwy = R[1] * law_x + R[4] * law_y + R[7] * law_z + e1y + awy
        dwz = R[2] * law_x + R[5] * law_y + R[8] * law_z + e1z + awz
        dvx = R[0] * tx + R[3] * ty + R[6] * tz + e2x + e3x + avx
        dvy = R[1] * tx + R[4] * ty + R[7] * tz + e2y + e3y + avy
        dvz = R[2] * tx + R[5] * ty + R[8] * tz + e2z + e3z + avz
        W[wo + 12], W[wo + 13], W[wo + 14] = wx, wy, wz
        W[wo + 15], W[wo + 16], W[wo + 17] = vx, vy, vz
        W[wo + 18], W[wo + 19], W[wo + 20] = dwx, dwy, dwz
        W[wo + 21], W[wo + 22], W[wo + 23] = dvx, dvy, dvz
        # 8.53 (own part): F_i = G_i dV_i - ad_{V_i}^T (G_i V_i) - F_ext,i
        #   G V = [I_o w + h x v; m v - h x w] =: [k; l];  -ad_V^T [k; l] = [w x k + v x l; w x l]
        m = F[bf + BF_MASS]
        hx, hy, hz = F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2]
        Io = load9(F, bf + BF_IO)
        c1x, c1y, c1z = cross(hx, hy, hz, vx, vy, vz)
        kx = Io[0] * wx + Io[1] * wy + Io[2] * wz + c1x
        ky = Io[3] * wx + Io[4] * wy + Io[5] * wz + c1y
        kz = Io[6] * wx + Io[7] * wy + Io[8] * wz + c1z
        c2x, c2y, c2z = cross(hx, hy, hz, wx, wy, wz)
        lx, ly, lz = m * vx - c2x, m * vy - c2y, m * vz - c2z
        c3x, c3y, c3z = cross(hx, hy, hz, dvx, dvy, dvz)
        c4x, c4y, c4z = cross(hx, hy, hz, dwx, dwy, dwz)
        c5x, c5y, c5z = cross(wx, wy, wz, kx, ky, kz)
        c6x, c6y, c6z = cross(vx, vy, vz, lx, ly, lz)
        c7x, c7y, c7z = cross(wx, wy, wz, lx, ly, lz)
        fmx = Io[0] * dwx + Io[1] * dwy + Io[2] * dwz + c3x + c5x + c6x
        fmy = Io[3] * dwx + Io[4] * dwy + Io[5] * dwz + c3y + c5y + c6y
        fmz = Io[6] * dwx + Io[7] * dwy + Io[8] * dwz + c3z + c5z + c6z
        ffx = m * dvx - c4x + c7x
        ffy = m * dvy - c4y + c7y
        ffz = m * dvz - c4z + c7z
        if use_f:
            fmx -= fext[i, 0]
            fmy -= fext[i, 1]
            fmz -= fext[i, 2]
            ffx -= fext[i, 3]
            ffy -= fext[i, 4]
            ffz -= fext[i, 5]
        W[wo + 24], W[wo + 25], W[wo + 26] = fmx, fmy, fmz
        W[wo + 27], W[wo + 28], W[wo + 29] = ffx, ffy, ffz
    # ---- backward pass, i = n..1: MR eqs. 8.53-8.54
    for i in range(nb - 1, 0, -1):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WW * i
        fmx, fmy, fmz = W[wo + 24], W[wo + 25], W[wo + 26]
        ffx, ffy, ffz = W[wo + 27], W[wo + 28], W[wo + 29]
        jt = I[bi + BI_TYPE]
        va = I[bi + BI_VIDX]
        # 8.54: tau_i = F_i^T S_i (a mimic adds mult * S_i^T F_i to its leader)
        if jt == J_FREE:
            tau[va] += fmx
            tau[va + 1] += fmy
            tau[va + 2] += fmz
            tau[va + 3] += ffx
            tau[va + 4] += ffy
            tau[va + 5] += ffz
        elif jt == J_REVOLUTE:
            ax, ay, az = F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
            tau[va] += F[bf + BF_MULT] * (ax * fmx + ay * fmy + az * fmz)
        elif jt != 0:
            ax, ay, az = F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
            tau[va] += F[bf + BF_MULT] * (ax * ffx + ay * ffy + az * ffz)
        # 8.53 (child part): F_lambda += Ad_{T_{i,lambda}}^T F_i
        lam = I[bi + BI_PARENT]
        if lam > 0:
            wl = WW * lam
            R = load9(W, wo)
            gmx, gmy, gmz, gfx, gfy, gfz = wrench_to_parent(
                R, W[wo + 9], W[wo + 10], W[wo + 11], fmx, fmy, fmz, ffx, ffy, ffz
            )
            W[wl + 24] += gmx
            W[wl + 25] += gmy
            W[wl + 26] += gmz
            W[wl + 27] += gfx
            W[wl + 28] += gfy
            W[wl + 29] += gfz
    # ---- joint friction and rotor inertia: tau += b qd + f_c sgn(qd) + armature qdd
    d = HF + WF * nb
    if (flags & FL_FRICTION) and use_v:
        for k in range(nv):
            tau[k] += F[d + k] * v[k] + coulomb(F[d + nv + k], v[k], eps)
    if (flags & FL_ARMATURE) and use_a:
        for k in range(nv):
            tau[k] += F[d + 2 * nv + k] * a[k]
    return 0


@njit(cache=True, nogil=True)
def rnea(I, F, q, v, a, fext, flags, eps, tau):
    """Single state: check sizes, allocate the workspace once, run :func:`rnea_core`.

    Returns 0 or an error code (1-4: wrong size of q, v, a, f_ext; 11-15 see rnea_core).
    """
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq:
        return 1
    if (flags & FL_VEL) and v.shape[0] != nv:
        return 2
    if (flags & FL_ACC) and a.shape[0] != nv:
        return 3
    if (flags & FL_FEXT) and fext.shape[0] != nb:
        return 4
    if tau.shape[0] != nv:
        return 5
    W = np.empty(WW * nb)
    return rnea_core(I, F, q, v, a, fext, flags, eps, tau, W)


@njit(cache=True, nogil=True, parallel=True)
def rnea_batch(I, F, Q, V, A, FE, flags, eps, TAU):
    """Batch over the rows of Q (N, nq), V, A (N, nv), FE (N, nb, 6): TAU (N, nv).

    Shapes are checked by the caller. Returns (index of the first failing state or -1,
    its error code).
    """
    nb = I[0]
    N = Q.shape[0]
    nchunk = min(N, 256)  # chunks share the threads; each allocates its workspace once
    status = np.zeros(N, dtype=np.int64)
    for c in prange(nchunk):
        W = np.empty(WW * nb)
        fe0 = np.zeros((0, 6))
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            if flags & FL_FEXT:
                status[s] = rnea_core(I, F, Q[s], V[s], A[s], FE[s], flags, eps, TAU[s], W)
            else:
                status[s] = rnea_core(I, F, Q[s], V[s], A[s], fe0, flags, eps, TAU[s], W)
    for s in range(N):
        if status[s] != 0:
            return s, status[s]
    return -1, 0
