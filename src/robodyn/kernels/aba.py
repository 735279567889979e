"""Articulated body algorithm: forward dynamics in O(n) (Featherstone table 7.1, MR 8.5).

Body coordinates, twists ``[omega, v]``, wrenches ``[m, f]``; gravity as the base
acceleration ``dV_0 = [0, -g]``. Pass 1 computes twists V_i, the velocity-product
accelerations c_i = ad_{V_i} S_i qd_i and the bias wrenches pA_i; pass 2 (leaves to root)
the articulated inertias IA_i and bias wrenches; pass 3 (root to leaves) the
accelerations. Joint friction enters as a torque on the joint, armature on the pivot D_i.

Mimic joints couple bodies that are not ancestors of each other, which ABA's recursion
cannot express; the wrappers use the CRBA path for models with mimic joints.

Workspace row of body i (``WA`` floats): R, p (0:12); V (12:18); c (18:24); pA (24:30);
IA (30:66, 6x6 row-major); U = IA S (66:72); 1/D (72); u (73); dV (74:80); for a free
joint the Cholesky factor of D (80:116) and u (116:122). After the rows: 114 floats of
scratch for the free joint.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._pack import (
    BF_AXIS,
    BF_H,
    BF_IO,
    BF_MASS,
    BI_PARENT,
    BI_TYPE,
    BI_VIDX,
    FL_ARMATURE,
    FL_CHECK,
    FL_FEXT,
    FL_FRICTION,
    FL_GRAVITY,
    HF,
    HI,
    J_FREE,
    J_PRISMATIC,
    J_REVOLUTE,
    WF,
    WI,
)
from ._small import (
    coulomb,
    cross,
    joint_pose,
    joint_rate,
    load9,
    nonfinite,
    rot_sandwich,
    skew_left,
    transpose9,
    wrench_to_parent,
)

WA = 122
_SCRATCH = 114  # free joint: D/L (36), Z (36), Ia (36), pa (6)


@njit(cache=True, nogil=True)
def _blocks(W, o):
    """The 3x3 blocks A (ang-ang), B (ang-lin), C (lin-lin) of the 6x6 at W[o:o+36]."""
    A = (W[o], W[o + 1], W[o + 2], W[o + 6], W[o + 7], W[o + 8], W[o + 12], W[o + 13], W[o + 14])
    B = (
        W[o + 3],
        W[o + 4],
        W[o + 5],
        W[o + 9],
        W[o + 10],
        W[o + 11],
        W[o + 15],
        W[o + 16],
        W[o + 17],
    )
    C = (
        W[o + 21],
        W[o + 22],
        W[o + 23],
        W[o + 27],
        W[o + 28],
        W[o + 29],
        W[o + 33],
        W[o + 34],
        W[o + 35],
    )
    return A, B, C


@njit(cache=True, nogil=True)
def _add_moved(W, o, A, B, C, R, px, py, pz):
    """W[o:o+36] += Ad_{T_{i,lambda}}^T [[A, B], [B^T, C]] Ad_{T_{i,lambda}}, (R, p) = T_{lambda,i}.

    Rotate each block (R X R^T), then shift by p: C'' = C', B'' = B' + [p] C',
    A'' = A' - B'[p] - (B'[p])^T - [p] C' [p].
    """
    A1 = rot_sandwich(R, A)
    B1 = rot_sandwich(R, B)
    C1 = rot_sandwich(R, C)
    Y = skew_left(px, py, pz, C1)  # [p] C'
    E = transpose9(skew_left(px, py, pz, transpose9(B1)))  # -(B'[p])
    Z = transpose9(skew_left(px, py, pz, transpose9(Y)))  # -([p] C' [p])
    for r in range(3):
        for c in range(3):
            k = 3 * r + c
            W[o + 6 * r + c] += A1[k] + E[k] + E[3 * c + r] + Z[k]
            b = B1[k] + Y[k]
            W[o + 6 * r + c + 3] += b
            W[o + 6 * (c + 3) + r] += b
            W[o + 6 * (r + 3) + c + 3] += C1[k]


@njit(cache=True, nogil=True)
def aba_core(I, F, q, v, tau, fext, flags, eps, qdd, W):
    """qdd = aba(q, v, tau) for one state into qdd (nv,), workspace W (WA nb + 108,).

    Returns 0 or an error code (11-15 non-finite input / zero quaternion; 1000 + i: the
    articulated inertia pivot D_i of body i is not positive, M is singular).
    """
    nb, nv = I[0], I[2]
    use_f = (flags & FL_FEXT) != 0
    fr = (flags & FL_FRICTION) != 0
    d0 = HF + WF * nb
    tol = F[3]
    if flags & FL_CHECK:
        if nonfinite(q):
            return 11
        if nonfinite(v):
            return 12
        if nonfinite(tau):
            return 13
        if use_f:
            for i in range(fext.shape[0]):
                if nonfinite(fext[i]):
                    return 14
    for k in range(12, 30):
        W[k] = 0.0
    # ---- pass 1, i = 1..n: V_i, c_i, IA_i = G_i, pA_i
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WA * i
        wl = WA * I[bi + BI_PARENT]
        err = joint_pose(I, F, q, bi, bf, W, wo)
        if err:
            return err
        R = load9(W, wo)
        px, py, pz = W[wo + 9], W[wo + 10], W[wo + 11]
        if I[bi + BI_TYPE] == J_FREE:
            va = I[bi + BI_VIDX]
            jwx, jwy, jwz, jvx, jvy, jvz = (
                v[va],
                v[va + 1],
                v[va + 2],
                v[va + 3],
                v[va + 4],
                v[va + 5],
            )
        else:
            jwx, jwy, jwz, jvx, jvy, jvz = joint_rate(I, F, v, bi, bf)
        # V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i  (MR 8.50)
        lwx, lwy, lwz = W[wl + 12], W[wl + 13], W[wl + 14]
        cx, cy, cz = cross(lwx, lwy, lwz, px, py, pz)
        tx, ty, tz = W[wl + 15] + cx, W[wl + 16] + cy, W[wl + 17] + cz
        wx = R[0] * lwx + R[3] * lwy + R[6] * lwz + jwx
        wy = R[1] * lwx + R[4] * lwy + R[7] * lwz + jwy
        wz = R[2] * lwx + R[5] * lwy + R[8] * lwz + jwz
        vx = R[0] * tx + R[3] * ty + R[6] * tz + jvx
        vy = R[1] * tx + R[4] * ty + R[7] * tz + jvy
        vz = R[2] * tx + R[5] * ty + R[8] * tz + jvz
        W[wo + 12], W[wo + 13], W[wo + 14] = wx, wy, wz
        W[wo + 15], W[wo + 16], W[wo + 17] = vx, vy, vz
        # c_i = ad_{V_i} S_i qd_i = [w x w_J; w x v_J + v x w_J]
        e1x, e1y, e1z = cross(wx, wy, wz, jwx, jwy, jwz)
        e2x, e2y, e2z = cross(wx, wy, wz, jvx, jvy, jvz)
        e3x, e3y, e3z = cross(vx, vy, vz, jwx, jwy, jwz)
        W[wo + 18], W[wo + 19], W[wo + 20] = e1x, e1y, e1z
        W[wo + 21], W[wo + 22], W[wo + 23] = e2x + e3x, e2y + e3y, e2z + e3z
        # IA_i = G_i = [[I_o, [h]], [[h]^T, m 1]]
        m = F[bf + BF_MASS]
        hx, hy, hz = F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2]
        o = wo + 30
        for r in range(3):
            for c in range(3):
                W[o + 6 * r + c] = F[bf + BF_IO + 3 * r + c]
                W[o + 6 * (r + 3) + c + 3] = m if r == c else 0.0
        W[o + 3], W[o + 4], W[o + 5] = 0.0, -hz, hy
        W[o + 9], W[o + 10], W[o + 11] = hz, 0.0, -hx
        W[o + 15], W[o + 16], W[o + 17] = -hy, hx, 0.0
        W[o + 18], W[o + 19], W[o + 20] = 0.0, hz, -hy
        W[o + 24], W[o + 25], W[o + 26] = -hz, 0.0, hx
        W[o + 30], W[o + 31], W[o + 32] = hy, -hx, 0.0
        # pA_i = -ad_{V_i}^T G_i V_i - F_ext,i = [w x k + v x l; w x l] - F_ext,i
        Io = load9(F, bf + BF_IO)
        c1x, c1y, c1z = cross(hx, hy, hz, vx, vy, vz)
        kx = Io[0] * wx + Io[1] * wy + Io[2] * wz + c1x
        ky = Io[3] * wx + Io[4] * wy + Io[5] * wz + c1y
        kz = Io[6] * wx + Io[7] * wy + Io[8] * wz + c1z
        c2x, c2y, c2z = cross(hx, hy, hz, wx, wy, wz)
        lx, ly, lz = m * vx - c2x, m * vy - c2y, m * vz - c2z
        a1x, a1y, a1z = cross(wx, wy, wz, kx, ky, kz)
        a2x, a2y, a2z = cross(vx, vy, vz, lx, ly, lz)
        a3x, a3y, a3z = cross(wx, wy, wz, lx, ly, lz)
        W[wo + 24], W[wo + 25], W[wo + 26] = a1x + a2x, a1y + a2y, a1z + a2z
        W[wo + 27], W[wo + 28], W[wo + 29] = a3x, a3y, a3z
        if use_f:
            for k in range(6):
                W[wo + 24 + k] -= fext[i, k]
    # ---- pass 2, i = n..1: articulated inertias and bias wrenches
    S = WA * nb  # scratch for the free joint: D/L (36), Z (36), Ia (36)
    for i in range(nb - 1, 0, -1):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WA * i
        lam = I[bi + BI_PARENT]
        jt = I[bi + BI_TYPE]
        va = I[bi + BI_VIDX]
        o = wo + 30
        A, B, C = _blocks(W, o)
        if jt == J_REVOLUTE or jt == J_PRISMATIC:
            ax, ay, az = F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
            # U_i = IA_i S_i (S = [axis; 0] or [0; axis])
            if jt == J_REVOLUTE:
                uwx = A[0] * ax + A[1] * ay + A[2] * az
                uwy = A[3] * ax + A[4] * ay + A[5] * az
                uwz = A[6] * ax + A[7] * ay + A[8] * az
                uvx = B[0] * ax + B[3] * ay + B[6] * az
                uvy = B[1] * ax + B[4] * ay + B[7] * az
                uvz = B[2] * ax + B[5] * ay + B[8] * az
                D = ax * uwx + ay * uwy + az * uwz
                sp = ax * W[wo + 24] + ay * W[wo + 25] + az * W[wo + 26]
            else:
                uwx = B[0] * ax + B[1] * ay + B[2] * az
                uwy = B[3] * ax + B[4] * ay + B[5] * az
                uwz = B[6] * ax + B[7] * ay + B[8] * az
                uvx = C[0] * ax + C[1] * ay + C[2] * az
                uvy = C[3] * ax + C[4] * ay + C[5] * az
                uvz = C[6] * ax + C[7] * ay + C[8] * az
                D = ax * uvx + ay * uvy + az * uvz
                sp = ax * W[wo + 27] + ay * W[wo + 28] + az * W[wo + 29]
            # D_i = S_i^T U_i + armature;  u_i = tau_i - S_i^T pA_i - friction
            if flags & FL_ARMATURE:
                D += F[d0 + 2 * nv + va]
            if not D > tol:
                return 1000 + i
            u = tau[va] - sp
            if fr:
                u -= F[d0 + va] * v[va] + coulomb(F[d0 + nv + va], v[va], eps)
            Dinv = 1.0 / D
            W[wo + 66], W[wo + 67], W[wo + 68] = uwx, uwy, uwz
            W[wo + 69], W[wo + 70], W[wo + 71] = uvx, uvy, uvz
            W[wo + 72] = Dinv
            W[wo + 73] = u
            if lam > 0:
                # Ia = IA - U D^-1 U^T (blockwise)
                A = (
                    A[0] - uwx * uwx * Dinv, A[1] - uwx * uwy * Dinv, A[2] - uwx * uwz * Dinv,
                    A[3] - uwy * uwx * Dinv, A[4] - uwy * uwy * Dinv, A[5] - uwy * uwz * Dinv,
                    A[6] - uwz * uwx * Dinv, A[7] - uwz * uwy * Dinv, A[8] - uwz * uwz * Dinv,
                )  # fmt: skip
                B = (
                    B[0] - uwx * uvx * Dinv, B[1] - uwx * uvy * Dinv, B[2] - uwx * uvz * Dinv,
                    B[3] - uwy * uvx * Dinv, B[4] - uwy * uvy * Dinv, B[5] - uwy * uvz * Dinv,
                    B[6] - uwz * uvx * Dinv, B[7] - uwz * uvy * Dinv, B[8] - uwz * uvz * Dinv,
                )  # fmt: skip
                C = (
                    C[0] - uvx * uvx * Dinv, C[1] - uvx * uvy * Dinv, C[2] - uvx * uvz * Dinv,
                    C[3] - uvy * uvx * Dinv, C[4] - uvy * uvy * Dinv, C[5] - uvy * uvz * Dinv,
                    C[6] - uvz * uvx * Dinv, C[7] - uvz * uvy * Dinv, C[8] - uvz * uvz * Dinv,
                )  # fmt: skip
                # pa = pA + Ia c + U D^-1 u
                cwx, cwy, cwz = W[wo + 18], W[wo + 19], W[wo + 20]
                cvx, cvy, cvz = W[wo + 21], W[wo + 22], W[wo + 23]
                g = u * Dinv
                pmx = (
                    W[wo + 24]
                    + A[0] * cwx
                    + A[1] * cwy
                    + A[2] * cwz
                    + B[0] * cvx
                    + B[1] * cvy
                    + B[2] * cvz
                    + uwx * g
                )
                pmy = (
                    W[wo + 25]
                    + A[3] * cwx
                    + A[4] * cwy
                    + A[5] * cwz
                    + B[3] * cvx
                    + B[4] * cvy
                    + B[5] * cvz
                    + uwy * g
                )
                pmz = (
                    W[wo + 26]
                    + A[6] * cwx
                    + A[7] * cwy
                    + A[8] * cwz
                    + B[6] * cvx
                    + B[7] * cvy
                    + B[8] * cvz
                    + uwz * g
                )
                pfx = (
                    W[wo + 27]
                    + B[0] * cwx
                    + B[3] * cwy
                    + B[6] * cwz
                    + C[0] * cvx
                    + C[1] * cvy
                    + C[2] * cvz
                    + uvx * g
                )
                pfy = (
                    W[wo + 28]
                    + B[1] * cwx
                    + B[4] * cwy
                    + B[7] * cwz
                    + C[3] * cvx
                    + C[4] * cvy
                    + C[5] * cvz
                    + uvy * g
                )
                pfz = (
                    W[wo + 29]
                    + B[2] * cwx
                    + B[5] * cwy
                    + B[8] * cwz
                    + C[6] * cvx
                    + C[7] * cvy
                    + C[8] * cvz
                    + uvz * g
                )
            else:
                continue
        elif jt == J_FREE:
            # out of line (compile time): Ia in W[S + 72:], pa in W[S + 108:]
            if not _free_pass2(F, W, wo, S, va, nv, tau, v, flags, eps, d0, tol, lam > 0):
                return 1000 + i
            if lam <= 0:
                continue
            pmx, pmy, pmz = W[S + 108], W[S + 109], W[S + 110]
            pfx, pfy, pfz = W[S + 111], W[S + 112], W[S + 113]
            A, B, C = _blocks(W, S + 72)
        else:
            continue
        # IA_lambda += Ad^T Ia Ad;  pA_lambda += Ad^T pa  (Featherstone table 7.1)
        R = load9(W, wo)
        px, py, pz = W[wo + 9], W[wo + 10], W[wo + 11]
        wl = WA * lam
        _add_moved(W, wl + 30, A, B, C, R, px, py, pz)
        gmx, gmy, gmz, gfx, gfy, gfz = wrench_to_parent(R, px, py, pz, pmx, pmy, pmz, pfx, pfy, pfz)
        W[wl + 24] += gmx
        W[wl + 25] += gmy
        W[wl + 26] += gmz
        W[wl + 27] += gfx
        W[wl + 28] += gfy
        W[wl + 29] += gfz
    # ---- pass 3, i = 1..n: accelerations, dV_0 = [0, -g]
    for k in range(74, 80):
        W[k] = 0.0
    if flags & FL_GRAVITY:
        W[77], W[78], W[79] = -F[0], -F[1], -F[2]
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WA * i
        wl = WA * I[bi + BI_PARENT]
        jt = I[bi + BI_TYPE]
        va = I[bi + BI_VIDX]
        R = load9(W, wo)
        px, py, pz = W[wo + 9], W[wo + 10], W[wo + 11]
        # a' = Ad_{T_{i,lambda}} dV_lambda + c_i
        law_x, law_y, law_z = W[wl + 74], W[wl + 75], W[wl + 76]
        cx, cy, cz = cross(law_x, law_y, law_z, px, py, pz)
        tx, ty, tz = W[wl + 77] + cx, W[wl + 78] + cy, W[wl + 79] + cz
        aw0 = R[0] * law_x + R[3] * law_y + R[6] * law_z + W[wo + 18]
        aw1 = R[1] * law_x + R[4] * law_y + R[7] * law_z + W[wo + 19]
        aw2 = R[2] * law_x + R[5] * law_y + R[8] * law_z + W[wo + 20]
        av0 = R[0] * tx + R[3] * ty + R[6] * tz + W[wo + 21]
        av1 = R[1] * tx + R[4] * ty + R[7] * tz + W[wo + 22]
        av2 = R[2] * tx + R[5] * ty + R[8] * tz + W[wo + 23]
        if jt == J_REVOLUTE or jt == J_PRISMATIC:
            # qdd_i = D_i^-1 (u_i - U_i^T a');  dV_i = a' + S_i qdd_i
            x = W[wo + 72] * (
                W[wo + 73]
                - W[wo + 66] * aw0 - W[wo + 67] * aw1 - W[wo + 68] * aw2
                - W[wo + 69] * av0 - W[wo + 70] * av1 - W[wo + 71] * av2
            )  # fmt: skip
            qdd[va] = x
            ax, ay, az = F[bf + BF_AXIS] * x, F[bf + BF_AXIS + 1] * x, F[bf + BF_AXIS + 2] * x
            if jt == J_REVOLUTE:
                aw0 += ax
                aw1 += ay
                aw2 += az
            else:
                av0 += ax
                av1 += ay
                av2 += az
        elif jt == J_FREE:
            aw0, aw1, aw2, av0, av1, av2 = _free_pass3(
                W, wo, S, va, qdd, aw0, aw1, aw2, av0, av1, av2
            )
        W[wo + 74], W[wo + 75], W[wo + 76] = aw0, aw1, aw2
        W[wo + 77], W[wo + 78], W[wo + 79] = av0, av1, av2
    return 0


@njit(cache=True, nogil=True)
def _chol6(W, L, tol):
    """Cholesky of the 6x6 at W[L:L+36] in place (lower triangle). False if a pivot <= tol."""
    for j in range(6):
        d = W[L + 7 * j]
        for k in range(j):
            d -= W[L + 6 * j + k] ** 2
        if not d > tol:
            return False
        d = np.sqrt(d)
        W[L + 7 * j] = d
        for r in range(j + 1, 6):
            s = W[L + 6 * r + j]
            for k in range(j):
                s -= W[L + 6 * r + k] * W[L + 6 * j + k]
            W[L + 6 * r + j] = s / d
    return True


@njit(cache=True, nogil=True)
def _chol6_solve_col(W, L, X, c):
    """Solve L L^T x = b for column c of the 6x6 at W[X:X+36], in place."""
    for r in range(6):
        s = W[X + 6 * r + c]
        for k in range(r):
            s -= W[L + 6 * r + k] * W[X + 6 * k + c]
        W[X + 6 * r + c] = s / W[L + 7 * r]
    for r in range(5, -1, -1):
        s = W[X + 6 * r + c]
        for k in range(r + 1, 6):
            s -= W[L + 6 * k + r] * W[X + 6 * k + c]
        W[X + 6 * r + c] = s / W[L + 7 * r]


@njit(cache=True, nogil=True)
def _free_pass2(F, W, wo, S, va, nv, tau, v, flags, eps, d0, tol, has_parent):
    """Pass 2 of :func:`aba_core` for a free joint (S = 1_6), out of line.

    U = IA, D = IA + diag(armature) (its Cholesky factor into W[wo + 80:]), u = tau - pA -
    friction (into W[wo + 116:]); with a parent: Ia = IA - IA D^-1 IA into W[S + 72:] and
    pa = pA + Ia c + IA D^-1 u into W[S + 108:]. False if D is not positive definite.
    """
    o = wo + 30
    fr = (flags & FL_FRICTION) != 0
    L = S
    for r in range(6):
        for c in range(6):
            W[L + 6 * r + c] = W[o + 6 * r + c]
    for k in range(6):
        W[wo + 116 + k] = tau[va + k] - W[wo + 24 + k]
        if flags & FL_ARMATURE:
            W[L + 7 * k] += F[d0 + 2 * nv + va + k]
        if fr:
            W[wo + 116 + k] -= F[d0 + va + k] * v[va + k] + coulomb(
                F[d0 + nv + va + k], v[va + k], eps
            )
    if not _chol6(W, L, tol):
        return False
    for k in range(36):
        W[wo + 80 + k] = W[L + k]
    if not has_parent:
        return True
    # Z = D^-1 IA; Ia = IA - IA Z; pa = pA + Ia c + IA D^-1 u
    Z = S + 36
    for c in range(6):
        for r in range(6):
            W[Z + 6 * r + c] = W[o + 6 * r + c]
        _chol6_solve_col(W, wo + 80, Z, c)
    Ia = S + 72
    for r in range(6):
        for c in range(6):
            acc = W[o + 6 * r + c]
            for k in range(6):
                acc -= W[o + 6 * r + k] * W[Z + 6 * k + c]
            W[Ia + 6 * r + c] = acc
    y0 = S  # reuse the first scratch block for y = D^-1 u
    for k in range(6):
        W[y0 + 6 * k] = W[wo + 116 + k]
    _chol6_solve_col(W, wo + 80, y0, 0)
    for r in range(6):
        acc = W[wo + 24 + r]
        for k in range(6):
            acc += W[Ia + 6 * r + k] * W[wo + 18 + k] + W[o + 6 * r + k] * W[y0 + 6 * k]
        W[S + 108 + r] = acc
    return True


@njit(cache=True, nogil=True)
def _free_pass3(W, wo, S, va, qdd, aw0, aw1, aw2, av0, av1, av2):
    """Pass 3 of :func:`aba_core` for a free joint: qdd_i = D^-1 (u_i - IA_i a'), dV_i =
    a' + qdd_i. Returns dV_i."""
    y0 = S
    ap = (aw0, aw1, aw2, av0, av1, av2)
    for r in range(6):
        acc = W[wo + 116 + r]
        for k in range(6):
            acc -= W[wo + 30 + 6 * r + k] * ap[k]
        W[y0 + 6 * r] = acc
    _chol6_solve_col(W, wo + 80, y0, 0)
    for k in range(6):
        qdd[va + k] = W[y0 + 6 * k]
    return (
        aw0 + W[y0], aw1 + W[y0 + 6], aw2 + W[y0 + 12],
        av0 + W[y0 + 18], av1 + W[y0 + 24], av2 + W[y0 + 30],
    )  # fmt: skip


@njit(cache=True, nogil=True)
def aba(I, F, q, v, tau, fext, flags, eps, qdd):
    """Single state: sizes checked, workspace allocated once. Returns 0 or an error code."""
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq:
        return 1
    if v.shape[0] != nv:
        return 2
    if tau.shape[0] != nv:
        return 3
    if (flags & FL_FEXT) and fext.shape[0] != nb:
        return 4
    if qdd.shape[0] != nv:
        return 5
    W = np.empty(WA * nb + _SCRATCH)
    return aba_core(I, F, q, v, tau, fext, flags, eps, qdd, W)


@njit(cache=True, nogil=True, parallel=True)
def aba_batch(I, F, Q, V, TAU, FE, flags, eps, QDD):
    """Batch over rows (shapes checked by the caller). Returns (first failing state, code)."""
    nb = I[0]
    N = Q.shape[0]
    nchunk = min(N, 256)  # chunks share the threads; each allocates its workspace once
    status = np.zeros(N, dtype=np.int64)
    for c in prange(nchunk):
        W = np.empty(WA * nb + _SCRATCH)
        fe0 = np.zeros((0, 6))
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            if flags & FL_FEXT:
                status[s] = aba_core(I, F, Q[s], V[s], TAU[s], FE[s], flags, eps, QDD[s], W)
            else:
                status[s] = aba_core(I, F, Q[s], V[s], TAU[s], fe0, flags, eps, QDD[s], W)
    for s in range(N):
        if status[s] != 0:
            return s, status[s]
    return -1, 0
