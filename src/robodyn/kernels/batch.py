"""State-major (lane) batch kernels: RNEA and ABA vectorised across states.

The per-state batch kernels (:func:`~robodyn.kernels.rnea.rnea_batch`,
:func:`~robodyn.kernels.aba.aba_batch`) run the scalar algorithm once per state; LLVM
cannot vectorise a tree walk of 3-vectors. Here every chunk of ``L`` states runs the
algorithm together: each per-body quantity is stored as ``L`` lanes (a flat workspace
laid out ``(nb, fields, L)``, see :func:`_ix`), and every arithmetic line is in a loop
over the lanes whose
control flow is the same for all lanes (the tree and the joint types do not depend on the
state). LLVM turns those loops into AVX2 vector code, 4 doubles per instruction.

The equations are those of :func:`~robodyn.kernels.rnea.rnea_core` (MR eqs. 8.50-8.54)
and :func:`~robodyn.kernels.aba.aba_core` (Featherstone table 7.1), term for term in the
same order, so a lane result equals the per-state result up to FMA contraction (a few
ulps). q, v, a / tau are transposed into lane-major buffers at the start of a chunk and
the result is transposed out at the end; the last chunk pads its unused lanes with a copy
of its first state.

Supported: revolute, prismatic, fixed and free joints (ABA: a free joint only on a child
of the world), friction, armature, gravity. Not supported (the wrappers use the per-state
kernels): mimic joints and external wrenches. Any bad input (non-finite number, zero
quaternion, singular articulated inertia) makes a kernel return a nonzero status without
saying which state; the wrapper then reruns the per-state kernel, which names it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._pack import (
    BF_A1,
    BF_A2,
    BF_AXIS,
    BF_H,
    BF_IO,
    BF_MASS,
    BF_MULT,
    BF_OFF,
    BF_P0,
    BF_R0,
    BF_RA,
    BI_PARENT,
    BI_QIDX,
    BI_TYPE,
    BI_VIDX,
    FL_ACC,
    FL_ARMATURE,
    FL_CHECK,
    FL_FRICTION,
    FL_GRAVITY,
    FL_VEL,
    HF,
    HI,
    J_FREE,
    J_PRISMATIC,
    J_REVOLUTE,
    WF,
    WI,
)
from ._small import coulomb, cross, mm, quat_rot, rot_sandwich, skew_left, transpose9

L = 16  # lanes per chunk (LLVM vectorises a loop only from 16 iterations: 4 AVX2 registers)
UL = np.uint64(L)
U = np.uint64
_GROUPS = 256  # prange iterations (each allocates its workspaces once)

_opts = dict(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")
_jit = njit(**_opts)

# Workspace fields (second axis of W). LLVM vectorises a lane loop only when it touches
# a single body row W[i] (with a second row or a second array it cannot prove the stores
# and loads disjoint), so the parent's values and the joint rates are first staged into
# body i's row, and results for the parent / tau are written to the row and then added.
# RNEA: R (0:9), p (9:12), V (12:18), dV (18:24), F (24:30), S qd (30:36), S qdd (36:42),
# staging (42:54: parent V, dV; later the wrench for the parent and S^T F), sin, 1 - cos
# (54:56).
WR = 56
_RS = 54
# ABA: R, p, V as RNEA, c (18:24), pA (24:30), IA (30:66, 6x6 row-major), U (66:72),
# 1/D (72), u (73), dV (74:80), free joint: Cholesky factor of D (80:116), u (116:122);
# staging: S qd (122:128), parent V or dV (128:134), moved Ia and pa for the parent
# (134:176), sin, 1 - cos (176:178), qdd_i (178).
WB = 179
_BS = 176


@njit(inline="always", **_opts)
def _ix(i, k, l, RL):
    """Flat index of field k, lane l of body i in a workspace with RL = fields * L floats a
    row. Unsigned, so numba emits no negative-index wraparound and LLVM can prove the
    accesses of a lane loop disjoint (both are needed for it to vectorise the loop)."""
    return U(i * RL + k * L) + l


@njit(inline="always", **_opts)
def _coulomb(fr, x, eps):
    """_small.coulomb, with the eps = 0 case (fr sgn x) inline so a lane loop vectorises."""
    if eps > 0.0:
        return coulomb(fr, x, eps)
    return fr if x > 0.0 else (-fr if x < 0.0 else 0.0)


@njit(inline="always", **_opts)
def _sincos(x):
    """(sin x, cos x) for |x| < 1e5 in arithmetic only, so that a lane loop vectorises
    (libm's sin and cos are scalar calls). Cody-Waite reduction x = n pi/2 + r with pi/2 in
    three parts (exact products n * part for |n| < 2^20), then minimax polynomials on
    |r| <= pi/4 (Cephes' sin/cos coefficients): within 1-2 ulp of libm."""
    n = math.floor(x * 0.6366197723675814 + 0.5)  # 2/pi
    r = x - n * 1.57079632673412561417e00
    r = r - n * 6.07710050630396597660e-11
    r = r - n * 2.02226624871116645580e-21
    z = r * r
    ps = 1.58962301576546568060e-10
    ps = ps * z - 2.50507477628578072866e-8
    ps = ps * z + 2.75573136213857245213e-6
    ps = ps * z - 1.98412698295895385996e-4
    ps = ps * z + 8.33333333332211858878e-3
    ps = ps * z - 1.66666666666666307295e-1
    sr = r + r * z * ps
    pc = -1.13585365213876817300e-11
    pc = pc * z + 2.08757008419747316778e-9
    pc = pc * z - 2.75573141792967388112e-7
    pc = pc * z + 2.48015872888517045348e-5
    pc = pc * z - 1.38888888888730564116e-3
    pc = pc * z + 4.16666666666665929218e-2
    cr = 1.0 - 0.5 * z + z * z * pc
    # quadrant k = n mod 4: (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s)
    k = n - 4.0 * math.floor(n * 0.25)
    odd = k == 1.0 or k == 3.0
    sn = cr if odd else sr
    cs = sr if odd else cr
    if k >= 2.0:
        sn = -sn
    if k == 1.0 or k == 2.0:
        cs = -cs
    return sn, cs


@_jit
def supported(I, aba):
    """True if the lane kernels handle the model packed in I (no mimic; ABA: free joints
    only on children of the world)."""
    if I[3]:
        return False
    for i in range(1, I[0]):
        bi = HI + WI * i
        if aba and I[bi + BI_TYPE] == J_FREE and I[bi + BI_PARENT] != 0:
            return False
    return True


@_jit
def _load(X, s0, nl, out, check):
    """out[k, l] = X[s0 + l, k] for the chunk (lanes nl.. repeat lane 0). False if not
    finite and check is set."""
    n = X.shape[1]
    for l in range(L):
        s = s0 + l if l < nl else s0
        for k in range(n):
            out[k, l] = X[s, k]
    if check:
        for k in range(n):
            for l in range(nl):
                if not math.isfinite(out[k, l]):
                    return False
    return True


@_jit
def _store(out, X, s0, nl):
    """X[s0 + l, k] = out[k, l] for the nl live lanes."""
    n = X.shape[1]
    for l in range(nl):
        for k in range(n):
            X[s0 + l, k] = out[k, l]


@_jit
def _pose(I, F, q, i, W, o, RL):
    """W[i, 0:12, :] = T_{lambda(i), i}(q) per lane (see _small.joint_pose), with
    W[i, o:o+2] as scratch. False on a zero quaternion."""
    bi = HI + WI * i
    bf = HF + WF * i
    jt = I[bi + BI_TYPE]
    qa = I[bi + BI_QIDX]
    if jt == J_REVOLUTE:
        # R = R0 + sin th R0 [a] + (1 - cos th) R0 [a]^2  (MR eq. 3.51)
        mu, off = F[bf + BF_MULT], F[bf + BF_OFF]
        big = False
        for l in range(UL):
            th = mu * q[qa, l] + off
            W[_ix(i, o, l, RL)] = th
            big = big or not abs(th) < 1e5
        if big:  # far outside the reduction's range: libm's sin and cos
            for l in range(UL):
                th = W[_ix(i, o, l, RL)]
                W[_ix(i, o, l, RL)] = math.sin(th)
                W[_ix(i, o + 1, l, RL)] = 1.0 - math.cos(th)
        else:
            for l in range(UL):
                sn, cs = _sincos(W[_ix(i, o, l, RL)])
                W[_ix(i, o, l, RL)] = sn
                W[_ix(i, o + 1, l, RL)] = 1.0 - cs
        for k in range(9):
            r0, a1, a2 = F[bf + BF_R0 + k], F[bf + BF_A1 + k], F[bf + BF_A2 + k]
            for l in range(UL):
                W[_ix(i, k, l, RL)] = r0 + W[_ix(i, o, l, RL)] * a1 + W[_ix(i, o + 1, l, RL)] * a2
        for k in range(3):
            p0 = F[bf + BF_P0 + k]
            for l in range(UL):
                W[_ix(i, 9 + k, l, RL)] = p0
    elif jt == J_PRISMATIC:
        # R = R0, p = p0 + d R0 axis
        mu, off = F[bf + BF_MULT], F[bf + BF_OFF]
        for k in range(9):
            r0 = F[bf + BF_R0 + k]
            for l in range(UL):
                W[_ix(i, k, l, RL)] = r0
        for k in range(3):
            p0, ra = F[bf + BF_P0 + k], F[bf + BF_RA + k]
            for l in range(UL):
                W[_ix(i, 9 + k, l, RL)] = p0 + (mu * q[qa, l] + off) * ra
    elif jt == J_FREE:
        # R = R0 R(quat), p = p0 + R0 xyz
        R0 = (
            F[bf + BF_R0], F[bf + BF_R0 + 1], F[bf + BF_R0 + 2],
            F[bf + BF_R0 + 3], F[bf + BF_R0 + 4], F[bf + BF_R0 + 5],
            F[bf + BF_R0 + 6], F[bf + BF_R0 + 7], F[bf + BF_R0 + 8],
        )  # fmt: skip
        for l in range(UL):
            qw, qx, qy, qz = q[qa + 3, l], q[qa + 4, l], q[qa + 5, l], q[qa + 6, l]
            if qw * qw + qx * qx + qy * qy + qz * qz == 0.0:
                return False
            Rq = mm(R0, quat_rot(qw, qx, qy, qz))
            for k in range(9):
                W[_ix(i, k, l, RL)] = Rq[k]
            x, y, z = q[qa, l], q[qa + 1, l], q[qa + 2, l]
            W[_ix(i, 9, l, RL)] = F[bf + BF_P0] + (R0[0] * x + R0[1] * y + R0[2] * z)
            W[_ix(i, 10, l, RL)] = F[bf + BF_P0 + 1] + (R0[3] * x + R0[4] * y + R0[5] * z)
            W[_ix(i, 11, l, RL)] = F[bf + BF_P0 + 2] + (R0[6] * x + R0[7] * y + R0[8] * z)
    else:
        for k in range(12):
            f0 = F[bf + BF_R0 + k] if k < 9 else F[bf + BF_P0 + k - 9]
            for l in range(UL):
                W[_ix(i, k, l, RL)] = f0
    return True


@_jit
def _stage(W, dst, o_dst, src, o_src, n, RL):
    """W[dst, o_dst:o_dst+n, :] = W[src, o_src:o_src+n, :] (all lanes)."""
    for k in range(n):
        for l in range(UL):
            W[_ix(dst, o_dst + k, l, RL)] = W[_ix(src, o_src + k, l, RL)]


@_jit
def _add_staged(W, dst, o_dst, src, o_src, n, RL):
    """W[dst, o_dst:o_dst+n, :] += W[src, o_src:o_src+n, :] (all lanes)."""
    for k in range(n):
        for l in range(UL):
            W[_ix(dst, o_dst + k, l, RL)] += W[_ix(src, o_src + k, l, RL)]


@_jit
def _rate(I, F, x, i, W, o, use, RL):
    """W[i, o:o+6, :] = S_i x_i per lane (joint twist from v or acceleration from a)."""
    bi = HI + WI * i
    bf = HF + WF * i
    jt = I[bi + BI_TYPE]
    va = I[bi + BI_VIDX]
    for k in range(6):
        for l in range(UL):
            W[_ix(i, o + k, l, RL)] = 0.0
    if not use:
        return
    if jt == J_FREE:
        for k in range(6):
            for l in range(UL):
                W[_ix(i, o + k, l, RL)] = x[va + k, l]
    elif jt == J_REVOLUTE or jt == J_PRISMATIC:
        o += 0 if jt == J_REVOLUTE else 3
        mu = F[bf + BF_MULT]
        for k in range(3):
            ak = F[bf + BF_AXIS + k]
            for l in range(UL):
                W[_ix(i, o + k, l, RL)] = ak * (mu * x[va, l])


@_jit
def _rnea_chunk(I, F, flags, eps, q, v, a, tau, W):
    """RNEA for the L states in q (nq, L), v, a (nv, L) into tau (nv, L). False on a zero
    quaternion."""
    nb, nv = I[0], I[2]
    RL = WR * L
    use_v = (flags & FL_VEL) != 0
    use_a = (flags & FL_ACC) != 0
    # base: V_0 = 0, dV_0 = [0, -g]
    for k in range(12, 30):
        g = 0.0
        if flags & FL_GRAVITY and 21 <= k < 24:
            g = -F[k - 21]
        for l in range(UL):
            W[_ix(0, k, l, RL)] = g
    for k in range(nv):
        for l in range(UL):
            tau[k, l] = 0.0
    # ---- forward pass, i = 1..n: MR eqs. 8.50-8.52
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        lam = I[bi + BI_PARENT]
        if not _pose(I, F, q, i, W, _RS, RL):
            return False
        _rate(I, F, v, i, W, 30, use_v, RL)
        _rate(I, F, a, i, W, 36, use_a, RL)
        _stage(W, i, 42, lam, 12, 12, RL)
        m = F[bf + BF_MASS]
        hx, hy, hz = F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2]
        I0, I1, I2 = F[bf + BF_IO], F[bf + BF_IO + 1], F[bf + BF_IO + 2]
        I3, I4, I5 = F[bf + BF_IO + 3], F[bf + BF_IO + 4], F[bf + BF_IO + 5]
        I6, I7, I8 = F[bf + BF_IO + 6], F[bf + BF_IO + 7], F[bf + BF_IO + 8]
        for l in range(UL):
            R0, R1, R2 = (
                W[_ix(i, 0, l, RL)],
                W[_ix(i, 1, l, RL)],
                W[_ix(i, 2, l, RL)],
            )
            R3, R4, R5 = (
                W[_ix(i, 3, l, RL)],
                W[_ix(i, 4, l, RL)],
                W[_ix(i, 5, l, RL)],
            )
            R6, R7, R8 = (
                W[_ix(i, 6, l, RL)],
                W[_ix(i, 7, l, RL)],
                W[_ix(i, 8, l, RL)],
            )
            px, py, pz = (
                W[_ix(i, 9, l, RL)],
                W[_ix(i, 10, l, RL)],
                W[_ix(i, 11, l, RL)],
            )
            jwx, jwy, jwz = (
                W[_ix(i, 30, l, RL)],
                W[_ix(i, 31, l, RL)],
                W[_ix(i, 32, l, RL)],
            )
            jvx, jvy, jvz = (
                W[_ix(i, 33, l, RL)],
                W[_ix(i, 34, l, RL)],
                W[_ix(i, 35, l, RL)],
            )
            lwx, lwy, lwz = (
                W[_ix(i, 42, l, RL)],
                W[_ix(i, 43, l, RL)],
                W[_ix(i, 44, l, RL)],
            )
            lvx, lvy, lvz = (
                W[_ix(i, 45, l, RL)],
                W[_ix(i, 46, l, RL)],
                W[_ix(i, 47, l, RL)],
            )
            law_x, law_y, law_z = (
                W[_ix(i, 48, l, RL)],
                W[_ix(i, 49, l, RL)],
                W[_ix(i, 50, l, RL)],
            )
            lav_x, lav_y, lav_z = (
                W[_ix(i, 51, l, RL)],
                W[_ix(i, 52, l, RL)],
                W[_ix(i, 53, l, RL)],
            )
            # 8.50: V_i = [R^T w_l; R^T (v_l + w_l x p)] + S_i qd_i
            cx, cy, cz = cross(lwx, lwy, lwz, px, py, pz)
            tx, ty, tz = lvx + cx, lvy + cy, lvz + cz
            wx = R0 * lwx + R3 * lwy + R6 * lwz + jwx
            wy = R1 * lwx + R4 * lwy + R7 * lwz + jwy
            wz = R2 * lwx + R5 * lwy + R8 * lwz + jwz
            vx = R0 * tx + R3 * ty + R6 * tz + jvx
            vy = R1 * tx + R4 * ty + R7 * tz + jvy
            vz = R2 * tx + R5 * ty + R8 * tz + jvz
            # 8.51: dV_i = Ad_{T_{i,lambda}} dV_lambda + ad_{V_i}(S_i qd_i) + S_i qdd_i
            cx, cy, cz = cross(law_x, law_y, law_z, px, py, pz)
            tx, ty, tz = lav_x + cx, lav_y + cy, lav_z + cz
            e1x, e1y, e1z = cross(wx, wy, wz, jwx, jwy, jwz)
            e2x, e2y, e2z = cross(wx, wy, wz, jvx, jvy, jvz)
            e3x, e3y, e3z = cross(vx, vy, vz, jwx, jwy, jwz)
            dwx = R0 * law_x + R3 * law_y + R6 * law_z + e1x + W[_ix(i, 36, l, RL)]
            dwy = R1 * law_x + R4 * law_y + R7 * law_z + e1y + W[_ix(i, 37, l, RL)]
            dwz = R2 * law_x + R5 * law_y + R8 * law_z + e1z + W[_ix(i, 38, l, RL)]
            dvx = R0 * tx + R3 * ty + R6 * tz + e2x + e3x + W[_ix(i, 39, l, RL)]
            dvy = R1 * tx + R4 * ty + R7 * tz + e2y + e3y + W[_ix(i, 40, l, RL)]
            dvz = R2 * tx + R5 * ty + R8 * tz + e2z + e3z + W[_ix(i, 41, l, RL)]
            (
                W[_ix(i, 12, l, RL)],
                W[_ix(i, 13, l, RL)],
                W[_ix(i, 14, l, RL)],
            ) = wx, wy, wz
            (
                W[_ix(i, 15, l, RL)],
                W[_ix(i, 16, l, RL)],
                W[_ix(i, 17, l, RL)],
            ) = vx, vy, vz
            (
                W[_ix(i, 18, l, RL)],
                W[_ix(i, 19, l, RL)],
                W[_ix(i, 20, l, RL)],
            ) = dwx, dwy, dwz
            (
                W[_ix(i, 21, l, RL)],
                W[_ix(i, 22, l, RL)],
                W[_ix(i, 23, l, RL)],
            ) = dvx, dvy, dvz
            # 8.53 (own part): F_i = G_i dV_i - ad_{V_i}^T (G_i V_i)
            c1x, c1y, c1z = cross(hx, hy, hz, vx, vy, vz)
            kx = I0 * wx + I1 * wy + I2 * wz + c1x
            ky = I3 * wx + I4 * wy + I5 * wz + c1y
            kz = I6 * wx + I7 * wy + I8 * wz + c1z
            c2x, c2y, c2z = cross(hx, hy, hz, wx, wy, wz)
            lx, ly, lz = m * vx - c2x, m * vy - c2y, m * vz - c2z
            c3x, c3y, c3z = cross(hx, hy, hz, dvx, dvy, dvz)
            c4x, c4y, c4z = cross(hx, hy, hz, dwx, dwy, dwz)
            c5x, c5y, c5z = cross(wx, wy, wz, kx, ky, kz)
            c6x, c6y, c6z = cross(vx, vy, vz, lx, ly, lz)
            c7x, c7y, c7z = cross(wx, wy, wz, lx, ly, lz)
            W[_ix(i, 24, l, RL)] = I0 * dwx + I1 * dwy + I2 * dwz + c3x + c5x + c6x
            W[_ix(i, 25, l, RL)] = I3 * dwx + I4 * dwy + I5 * dwz + c3y + c5y + c6y
            W[_ix(i, 26, l, RL)] = I6 * dwx + I7 * dwy + I8 * dwz + c3z + c5z + c6z
            W[_ix(i, 27, l, RL)] = m * dvx - c4x + c7x
            W[_ix(i, 28, l, RL)] = m * dvy - c4y + c7y
            W[_ix(i, 29, l, RL)] = m * dvz - c4z + c7z
    # ---- backward pass, i = n..1: MR eqs. 8.53-8.54
    for i in range(nb - 1, 0, -1):
        bi = HI + WI * i
        bf = HF + WF * i
        jt = I[bi + BI_TYPE]
        va = I[bi + BI_VIDX]
        lam = I[bi + BI_PARENT]
        # 8.54: tau_i = S_i^T F_i
        if jt == J_FREE:
            for k in range(6):
                for l in range(UL):
                    tau[va + k, l] += W[_ix(i, 24 + k, l, RL)]
        elif jt == J_REVOLUTE or jt == J_PRISMATIC:
            o = 24 if jt == J_REVOLUTE else 27
            mu = F[bf + BF_MULT]
            ax, ay, az = F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
            for l in range(UL):
                W[_ix(i, _RS, l, RL)] = mu * (
                    ax * W[_ix(i, o, l, RL)]
                    + ay * W[_ix(i, o + 1, l, RL)]
                    + az * W[_ix(i, o + 2, l, RL)]
                )
            for l in range(UL):
                tau[va, l] += W[_ix(i, _RS, l, RL)]
        # 8.53 (child part): F_lambda += Ad_{T_{i,lambda}}^T F_i = [R m + p x (R f); R f]
        if lam > 0:
            for l in range(UL):
                R0, R1, R2 = (
                    W[_ix(i, 0, l, RL)],
                    W[_ix(i, 1, l, RL)],
                    W[_ix(i, 2, l, RL)],
                )
                R3, R4, R5 = (
                    W[_ix(i, 3, l, RL)],
                    W[_ix(i, 4, l, RL)],
                    W[_ix(i, 5, l, RL)],
                )
                R6, R7, R8 = (
                    W[_ix(i, 6, l, RL)],
                    W[_ix(i, 7, l, RL)],
                    W[_ix(i, 8, l, RL)],
                )
                mx, my, mz = (
                    W[_ix(i, 24, l, RL)],
                    W[_ix(i, 25, l, RL)],
                    W[_ix(i, 26, l, RL)],
                )
                fx, fy, fz = (
                    W[_ix(i, 27, l, RL)],
                    W[_ix(i, 28, l, RL)],
                    W[_ix(i, 29, l, RL)],
                )
                rfx = R0 * fx + R1 * fy + R2 * fz
                rfy = R3 * fx + R4 * fy + R5 * fz
                rfz = R6 * fx + R7 * fy + R8 * fz
                cx, cy, cz = cross(
                    W[_ix(i, 9, l, RL)],
                    W[_ix(i, 10, l, RL)],
                    W[_ix(i, 11, l, RL)],
                    rfx,
                    rfy,
                    rfz,
                )
                W[_ix(i, 42, l, RL)] = R0 * mx + R1 * my + R2 * mz + cx
                W[_ix(i, 43, l, RL)] = R3 * mx + R4 * my + R5 * mz + cy
                W[_ix(i, 44, l, RL)] = R6 * mx + R7 * my + R8 * mz + cz
                W[_ix(i, 45, l, RL)] = rfx
                W[_ix(i, 46, l, RL)] = rfy
                W[_ix(i, 47, l, RL)] = rfz
            _add_staged(W, lam, 24, i, 42, 6, RL)
    # ---- joint friction and rotor inertia: tau += b qd + f_c sgn(qd) + armature qdd
    d = HF + WF * nb
    if (flags & FL_FRICTION) and use_v:
        for k in range(nv):
            if F[d + k] == 0.0 and F[d + nv + k] == 0.0:
                continue  # adds exactly 0
            for l in range(UL):
                tau[k, l] += F[d + k] * v[k, l] + _coulomb(F[d + nv + k], v[k, l], eps)
    if (flags & FL_ARMATURE) and use_a:
        for k in range(nv):
            for l in range(UL):
                tau[k, l] += F[d + 2 * nv + k] * a[k, l]
    return True


@njit(parallel=True, **_opts)
def rnea_lanes(I, F, Q, V, A, flags, eps, TAU):
    """Inverse dynamics over the rows of Q (N, nq), V, A (N, nv) into TAU (N, nv).

    V / A are read only with FL_VEL / FL_ACC set (pass Q otherwise). Returns 0, or 1 if
    some state failed (non-finite input, zero quaternion): rerun the per-state kernel to
    find which.
    """
    nb, nq, nv = I[0], I[1], I[2]
    N = Q.shape[0]
    nchunk = (N + L - 1) // L
    ng = min(nchunk, _GROUPS)
    bad = np.zeros(max(ng, 1), dtype=np.int64)
    check = (flags & FL_CHECK) != 0
    use_v = (flags & FL_VEL) != 0
    use_a = (flags & FL_ACC) != 0
    for g in prange(ng):
        W = np.empty(nb * WR * L)
        q = np.empty((nq, L))
        v = np.zeros((nv, L))
        a = np.zeros((nv, L))
        tau = np.empty((nv, L))
        for c in range(g * nchunk // ng, (g + 1) * nchunk // ng):
            s0 = c * L
            nl = min(L, N - s0)
            ok = _load(Q, s0, nl, q, check)
            if ok and use_v:
                ok = _load(V, s0, nl, v, check)
            if ok and use_a:
                ok = _load(A, s0, nl, a, check)
            if ok:
                ok = _rnea_chunk(I, F, flags, eps, q, v, a, tau, W)
            if not ok:
                bad[g] = 1
                break
            _store(tau, TAU, s0, nl)
    return int(bad.max())


@_jit
def _chol6_lanes(W, i, o, tol, RL):
    """Cholesky (lower) of the 6x6 at W[i, o:o+36, :] in place, per lane. False if a pivot
    <= tol (same operation order as aba._chol6)."""
    for l in range(UL):
        for j in range(6):
            d = W[_ix(i, o + 7 * j, l, RL)]
            for k in range(j):
                d -= W[_ix(i, o + 6 * j + k, l, RL)] ** 2
            if not d > tol:
                return False
            d = np.sqrt(d)
            W[_ix(i, o + 7 * j, l, RL)] = d
            for r in range(j + 1, 6):
                s = W[_ix(i, o + 6 * r + j, l, RL)]
                for k in range(j):
                    s -= W[_ix(i, o + 6 * r + k, l, RL)] * W[_ix(i, o + 6 * j + k, l, RL)]
                W[_ix(i, o + 6 * r + j, l, RL)] = s / d
    return True


@_jit
def _chol6_solve_lanes(W, i, o, y, RL):
    """Solve L L^T x = y in place for y (6, L), L at W[i, o:o+36, :]."""
    for r in range(6):
        for l in range(UL):
            s = y[r, l]
            for k in range(r):
                s -= W[_ix(i, o + 6 * r + k, l, RL)] * y[k, l]
            y[r, l] = s / W[_ix(i, o + 7 * r, l, RL)]
    for r in range(5, -1, -1):
        for l in range(UL):
            s = y[r, l]
            for k in range(r + 1, 6):
                s -= W[_ix(i, o + 6 * k + r, l, RL)] * y[k, l]
            y[r, l] = s / W[_ix(i, o + 7 * r, l, RL)]


@_jit
def _aba_chunk(I, F, flags, eps, q, v, tau, qdd, W, y):
    """ABA for the L states in q (nq, L), v, tau (nv, L) into qdd (nv, L). False on a zero
    quaternion or a pivot D_i <= tol."""
    nb, nv = I[0], I[2]
    RL = WB * L
    fr = (flags & FL_FRICTION) != 0
    arm = (flags & FL_ARMATURE) != 0
    d0 = HF + WF * nb
    tol = F[3]
    for k in range(12, 18):
        for l in range(UL):
            W[_ix(0, k, l, RL)] = 0.0
    # ---- pass 1, i = 1..n: V_i, c_i, IA_i = G_i, pA_i
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        lam = I[bi + BI_PARENT]
        if not _pose(I, F, q, i, W, _BS, RL):
            return False
        _rate(I, F, v, i, W, 122, True, RL)
        _stage(W, i, 128, lam, 12, 6, RL)
        m = F[bf + BF_MASS]
        hx, hy, hz = F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2]
        I0, I1, I2 = F[bf + BF_IO], F[bf + BF_IO + 1], F[bf + BF_IO + 2]
        I3, I4, I5 = F[bf + BF_IO + 3], F[bf + BF_IO + 4], F[bf + BF_IO + 5]
        I6, I7, I8 = F[bf + BF_IO + 6], F[bf + BF_IO + 7], F[bf + BF_IO + 8]
        for l in range(UL):
            R0, R1, R2 = (
                W[_ix(i, 0, l, RL)],
                W[_ix(i, 1, l, RL)],
                W[_ix(i, 2, l, RL)],
            )
            R3, R4, R5 = (
                W[_ix(i, 3, l, RL)],
                W[_ix(i, 4, l, RL)],
                W[_ix(i, 5, l, RL)],
            )
            R6, R7, R8 = (
                W[_ix(i, 6, l, RL)],
                W[_ix(i, 7, l, RL)],
                W[_ix(i, 8, l, RL)],
            )
            px, py, pz = (
                W[_ix(i, 9, l, RL)],
                W[_ix(i, 10, l, RL)],
                W[_ix(i, 11, l, RL)],
            )
            jwx, jwy, jwz = (
                W[_ix(i, 122, l, RL)],
                W[_ix(i, 123, l, RL)],
                W[_ix(i, 124, l, RL)],
            )
            jvx, jvy, jvz = (
                W[_ix(i, 125, l, RL)],
                W[_ix(i, 126, l, RL)],
                W[_ix(i, 127, l, RL)],
            )
            # V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i  (MR 8.50)
            lwx, lwy, lwz = (
                W[_ix(i, 128, l, RL)],
                W[_ix(i, 129, l, RL)],
                W[_ix(i, 130, l, RL)],
            )
            cx, cy, cz = cross(lwx, lwy, lwz, px, py, pz)
            tx, ty, tz = (
                W[_ix(i, 131, l, RL)] + cx,
                W[_ix(i, 132, l, RL)] + cy,
                W[_ix(i, 133, l, RL)] + cz,
            )
            wx = R0 * lwx + R3 * lwy + R6 * lwz + jwx
            wy = R1 * lwx + R4 * lwy + R7 * lwz + jwy
            wz = R2 * lwx + R5 * lwy + R8 * lwz + jwz
            vx = R0 * tx + R3 * ty + R6 * tz + jvx
            vy = R1 * tx + R4 * ty + R7 * tz + jvy
            vz = R2 * tx + R5 * ty + R8 * tz + jvz
            (
                W[_ix(i, 12, l, RL)],
                W[_ix(i, 13, l, RL)],
                W[_ix(i, 14, l, RL)],
            ) = wx, wy, wz
            (
                W[_ix(i, 15, l, RL)],
                W[_ix(i, 16, l, RL)],
                W[_ix(i, 17, l, RL)],
            ) = vx, vy, vz
            # c_i = ad_{V_i} S_i qd_i = [w x w_J; w x v_J + v x w_J]
            e1x, e1y, e1z = cross(wx, wy, wz, jwx, jwy, jwz)
            e2x, e2y, e2z = cross(wx, wy, wz, jvx, jvy, jvz)
            e3x, e3y, e3z = cross(vx, vy, vz, jwx, jwy, jwz)
            (
                W[_ix(i, 18, l, RL)],
                W[_ix(i, 19, l, RL)],
                W[_ix(i, 20, l, RL)],
            ) = e1x, e1y, e1z
            (
                W[_ix(i, 21, l, RL)],
                W[_ix(i, 22, l, RL)],
                W[_ix(i, 23, l, RL)],
            ) = e2x + e3x, e2y + e3y, e2z + e3z
            # pA_i = -ad_{V_i}^T G_i V_i = [w x k + v x l; w x l]
            c1x, c1y, c1z = cross(hx, hy, hz, vx, vy, vz)
            kx = I0 * wx + I1 * wy + I2 * wz + c1x
            ky = I3 * wx + I4 * wy + I5 * wz + c1y
            kz = I6 * wx + I7 * wy + I8 * wz + c1z
            c2x, c2y, c2z = cross(hx, hy, hz, wx, wy, wz)
            lx, ly, lz = m * vx - c2x, m * vy - c2y, m * vz - c2z
            a1x, a1y, a1z = cross(wx, wy, wz, kx, ky, kz)
            a2x, a2y, a2z = cross(vx, vy, vz, lx, ly, lz)
            a3x, a3y, a3z = cross(wx, wy, wz, lx, ly, lz)
            (
                W[_ix(i, 24, l, RL)],
                W[_ix(i, 25, l, RL)],
                W[_ix(i, 26, l, RL)],
            ) = a1x + a2x, a1y + a2y, a1z + a2z
            (
                W[_ix(i, 27, l, RL)],
                W[_ix(i, 28, l, RL)],
                W[_ix(i, 29, l, RL)],
            ) = a3x, a3y, a3z
        # IA_i = G_i = [[I_o, [h]], [[h]^T, m 1]]
        G = (
            I0, I1, I2, 0.0, -hz, hy,
            I3, I4, I5, hz, 0.0, -hx,
            I6, I7, I8, -hy, hx, 0.0,
            0.0, hz, -hy, m, 0.0, 0.0,
            -hz, 0.0, hx, 0.0, m, 0.0,
            hy, -hx, 0.0, 0.0, 0.0, m,
        )  # fmt: skip
        for k in range(36):
            for l in range(UL):
                W[_ix(i, 30 + k, l, RL)] = G[k]
    # ---- pass 2, i = n..1: articulated inertias and bias wrenches
    for i in range(nb - 1, 0, -1):
        bi = HI + WI * i
        bf = HF + WF * i
        lam = I[bi + BI_PARENT]
        jt = I[bi + BI_TYPE]
        va = I[bi + BI_VIDX]
        if jt == J_FREE:
            # a child of the world (checked by `supported`): D = IA + armature, u = tau - pA
            for r in range(6):
                for c in range(6):
                    for l in range(UL):
                        W[_ix(i, 80 + 6 * r + c, l, RL)] = W[U(i * RL + (30 + 6 * r + c) * L) + l]
            for k in range(6):
                for l in range(UL):
                    W[_ix(i, 116 + k, l, RL)] = tau[va + k, l] - W[_ix(i, 24 + k, l, RL)]
                    if arm:
                        W[_ix(i, 80 + 7 * k, l, RL)] += F[d0 + 2 * nv + va + k]
                    if fr:
                        W[_ix(i, 116 + k, l, RL)] -= F[d0 + va + k] * v[va + k, l] + coulomb(
                            F[d0 + nv + va + k], v[va + k, l], eps
                        )
            if not _chol6_lanes(W, i, 80, tol, RL):
                return False
            continue
        if jt != J_REVOLUTE and jt != J_PRISMATIC:
            if lam > 0:
                _move(W, i, lam)
            continue
        ax, ay, az = F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
        # U_i = IA_i S_i, D_i = S_i^T U_i (+ armature), u_i = tau_i - S_i^T pA_i (- friction)
        ob = 30 if jt == J_REVOLUTE else 33  # first column block of IA that S picks
        op = 24 if jt == J_REVOLUTE else 27
        for l in range(UL):
            uwx = (
                W[_ix(i, ob, l, RL)] * ax
                + W[_ix(i, ob + 1, l, RL)] * ay
                + W[_ix(i, ob + 2, l, RL)] * az
            )
            uwy = (
                W[_ix(i, ob + 6, l, RL)] * ax
                + W[_ix(i, ob + 7, l, RL)] * ay
                + W[_ix(i, ob + 8, l, RL)] * az
            )
            uwz = (
                W[_ix(i, ob + 12, l, RL)] * ax
                + W[_ix(i, ob + 13, l, RL)] * ay
                + W[_ix(i, ob + 14, l, RL)] * az
            )
            uvx = (
                W[_ix(i, ob + 18, l, RL)] * ax
                + W[_ix(i, ob + 19, l, RL)] * ay
                + W[_ix(i, ob + 20, l, RL)] * az
            )
            uvy = (
                W[_ix(i, ob + 24, l, RL)] * ax
                + W[_ix(i, ob + 25, l, RL)] * ay
                + W[_ix(i, ob + 26, l, RL)] * az
            )
            uvz = (
                W[_ix(i, ob + 30, l, RL)] * ax
                + W[_ix(i, ob + 31, l, RL)] * ay
                + W[_ix(i, ob + 32, l, RL)] * az
            )
            if jt == J_REVOLUTE:
                D = ax * uwx + ay * uwy + az * uwz
            else:
                D = ax * uvx + ay * uvy + az * uvz
            sp = (
                ax * W[_ix(i, op, l, RL)]
                + ay * W[_ix(i, op + 1, l, RL)]
                + az * W[_ix(i, op + 2, l, RL)]
            )
            (
                W[_ix(i, 66, l, RL)],
                W[_ix(i, 67, l, RL)],
                W[_ix(i, 68, l, RL)],
            ) = uwx, uwy, uwz
            (
                W[_ix(i, 69, l, RL)],
                W[_ix(i, 70, l, RL)],
                W[_ix(i, 71, l, RL)],
            ) = uvx, uvy, uvz
            W[_ix(i, 72, l, RL)] = D
            W[_ix(i, 73, l, RL)] = sp
        arm_i = F[d0 + 2 * nv + va] if arm else 0.0
        fr_i = fr and (F[d0 + va] != 0.0 or F[d0 + nv + va] != 0.0)
        for l in range(UL):
            D = W[_ix(i, 72, l, RL)] + arm_i  # (arm_i = 0.0 adds exactly 0)
            W[_ix(i, 178, l, RL)] = D
            W[_ix(i, 72, l, RL)] = 1.0 / D
        ok = True
        for l in range(UL):
            ok = ok and W[_ix(i, 178, l, RL)] > tol
        for l in range(UL):
            u = tau[va, l] - W[_ix(i, 73, l, RL)]
            if fr_i:
                u -= F[d0 + va] * v[va, l] + _coulomb(F[d0 + nv + va], v[va, l], eps)
            W[_ix(i, 73, l, RL)] = u
        if not ok:
            return False
        if lam == 0:
            continue
        for l in range(UL):
            uwx, uwy, uwz = (
                W[_ix(i, 66, l, RL)],
                W[_ix(i, 67, l, RL)],
                W[_ix(i, 68, l, RL)],
            )
            uvx, uvy, uvz = (
                W[_ix(i, 69, l, RL)],
                W[_ix(i, 70, l, RL)],
                W[_ix(i, 71, l, RL)],
            )
            Dinv, u = W[_ix(i, 72, l, RL)], W[_ix(i, 73, l, RL)]
            # Ia = IA - U D^-1 U^T (in place: IA_i is not read again)
            uu = (uwx, uwy, uwz, uvx, uvy, uvz)
            for r in range(6):
                for c in range(6):
                    W[_ix(i, 30 + 6 * r + c, l, RL)] = (
                        W[_ix(i, 30 + 6 * r + c, l, RL)] - uu[r] * uu[c] * Dinv
                    )
            # pa = pA + Ia c + U D^-1 u (into pA_i)
            g = u * Dinv
            for r in range(6):
                acc = W[_ix(i, 24 + r, l, RL)]
                for k in range(6):
                    acc += W[_ix(i, 30 + 6 * r + k, l, RL)] * W[_ix(i, 18 + k, l, RL)]
                W[_ix(i, 24 + r, l, RL)] = acc + uu[r] * g
        _move(W, i, lam)
    # ---- pass 3, i = 1..n: accelerations, dV_0 = [0, -g]
    for k in range(6):
        g = -F[k - 3] if (flags & FL_GRAVITY) and k >= 3 else 0.0
        for l in range(UL):
            W[_ix(0, 74 + k, l, RL)] = g
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        lam = I[bi + BI_PARENT]
        jt = I[bi + BI_TYPE]
        va = I[bi + BI_VIDX]
        # a' = Ad_{T_{i,lambda}} dV_lambda + c_i
        _stage(W, i, 128, lam, 74, 6, RL)
        for l in range(UL):
            R0, R1, R2 = (
                W[_ix(i, 0, l, RL)],
                W[_ix(i, 1, l, RL)],
                W[_ix(i, 2, l, RL)],
            )
            R3, R4, R5 = (
                W[_ix(i, 3, l, RL)],
                W[_ix(i, 4, l, RL)],
                W[_ix(i, 5, l, RL)],
            )
            R6, R7, R8 = (
                W[_ix(i, 6, l, RL)],
                W[_ix(i, 7, l, RL)],
                W[_ix(i, 8, l, RL)],
            )
            law_x, law_y, law_z = (
                W[_ix(i, 128, l, RL)],
                W[_ix(i, 129, l, RL)],
                W[_ix(i, 130, l, RL)],
            )
            cx, cy, cz = cross(
                law_x,
                law_y,
                law_z,
                W[_ix(i, 9, l, RL)],
                W[_ix(i, 10, l, RL)],
                W[_ix(i, 11, l, RL)],
            )
            tx, ty, tz = (
                W[_ix(i, 131, l, RL)] + cx,
                W[_ix(i, 132, l, RL)] + cy,
                W[_ix(i, 133, l, RL)] + cz,
            )
            W[_ix(i, 74, l, RL)] = R0 * law_x + R3 * law_y + R6 * law_z + W[_ix(i, 18, l, RL)]
            W[_ix(i, 75, l, RL)] = R1 * law_x + R4 * law_y + R7 * law_z + W[_ix(i, 19, l, RL)]
            W[_ix(i, 76, l, RL)] = R2 * law_x + R5 * law_y + R8 * law_z + W[_ix(i, 20, l, RL)]
            W[_ix(i, 77, l, RL)] = R0 * tx + R3 * ty + R6 * tz + W[_ix(i, 21, l, RL)]
            W[_ix(i, 78, l, RL)] = R1 * tx + R4 * ty + R7 * tz + W[_ix(i, 22, l, RL)]
            W[_ix(i, 79, l, RL)] = R2 * tx + R5 * ty + R8 * tz + W[_ix(i, 23, l, RL)]
        if jt == J_REVOLUTE or jt == J_PRISMATIC:
            # qdd_i = D_i^-1 (u_i - U_i^T a');  dV_i = a' + S_i qdd_i
            o = 74 if jt == J_REVOLUTE else 77
            ax, ay, az = F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
            for l in range(UL):
                x = W[_ix(i, 72, l, RL)] * (
                    W[_ix(i, 73, l, RL)]
                    - W[_ix(i, 66, l, RL)] * W[_ix(i, 74, l, RL)]
                    - W[_ix(i, 67, l, RL)] * W[_ix(i, 75, l, RL)]
                    - W[_ix(i, 68, l, RL)] * W[_ix(i, 76, l, RL)]
                    - W[_ix(i, 69, l, RL)] * W[_ix(i, 77, l, RL)]
                    - W[_ix(i, 70, l, RL)] * W[_ix(i, 78, l, RL)]
                    - W[_ix(i, 71, l, RL)] * W[_ix(i, 79, l, RL)]
                )
                W[_ix(i, 178, l, RL)] = x
                W[_ix(i, o, l, RL)] += ax * x
                W[_ix(i, o + 1, l, RL)] += ay * x
                W[_ix(i, o + 2, l, RL)] += az * x
            for l in range(UL):
                qdd[va, l] = W[_ix(i, 178, l, RL)]
        elif jt == J_FREE:
            # qdd_i = D^-1 (u_i - IA_i a');  dV_i = a' + qdd_i
            for r in range(6):
                for l in range(UL):
                    acc = W[_ix(i, 116 + r, l, RL)]
                    for k in range(6):
                        acc -= W[_ix(i, 30 + 6 * r + k, l, RL)] * W[_ix(i, 74 + k, l, RL)]
                    y[r, l] = acc
            _chol6_solve_lanes(W, i, 80, y, RL)
            for k in range(6):
                for l in range(UL):
                    qdd[va + k, l] = y[k, l]
                    W[_ix(i, 74 + k, l, RL)] += y[k, l]
    return True


@_jit
def _move(W, i, lam):
    """IA_lambda += Ad^T Ia_i Ad and pA_lambda += Ad^T pa_i (Featherstone table 7.1), with
    Ia_i at W[i, 30:66], pa_i at W[i, 24:30], (R, p) = T_{lambda,i} at W[i, 0:12].

    Blocks: rotate each (R X R^T), then shift by p: C'' = C', B'' = B' + [p] C',
    A'' = A' - B'[p] - (B'[p])^T - [p] C' [p]; wrench [R m + p x (R f); R f]. Computed
    into body i's staging fields W[i, 134:176], then added to the parent's row.
    """
    RL = WB * L
    oi = 30
    op = 24
    o = 134
    for l in range(UL):
        R = (
            W[_ix(i, 0, l, RL)], W[_ix(i, 1, l, RL)], W[_ix(i, 2, l, RL)],
            W[_ix(i, 3, l, RL)], W[_ix(i, 4, l, RL)], W[_ix(i, 5, l, RL)],
            W[_ix(i, 6, l, RL)], W[_ix(i, 7, l, RL)], W[_ix(i, 8, l, RL)],
        )  # fmt: skip
        px, py, pz = (
            W[_ix(i, 9, l, RL)],
            W[_ix(i, 10, l, RL)],
            W[_ix(i, 11, l, RL)],
        )
        A = (
            W[_ix(i, oi, l, RL)], W[_ix(i, oi + 1, l, RL)], W[_ix(i, oi + 2, l, RL)],
            W[_ix(i, oi + 6, l, RL)], W[_ix(i, oi + 7, l, RL)], W[_ix(i, oi + 8, l, RL)],
            W[_ix(i, oi + 12, l, RL)], W[_ix(i, oi + 13, l, RL)], W[_ix(i, oi + 14, l, RL)],
        )  # fmt: skip
        B = (
            W[_ix(i, oi + 3, l, RL)], W[_ix(i, oi + 4, l, RL)], W[_ix(i, oi + 5, l, RL)],
            W[_ix(i, oi + 9, l, RL)], W[_ix(i, oi + 10, l, RL)], W[_ix(i, oi + 11, l, RL)],
            W[_ix(i, oi + 15, l, RL)], W[_ix(i, oi + 16, l, RL)], W[_ix(i, oi + 17, l, RL)],
        )  # fmt: skip
        C = (
            W[_ix(i, oi + 21, l, RL)], W[_ix(i, oi + 22, l, RL)], W[_ix(i, oi + 23, l, RL)],
            W[_ix(i, oi + 27, l, RL)], W[_ix(i, oi + 28, l, RL)], W[_ix(i, oi + 29, l, RL)],
            W[_ix(i, oi + 33, l, RL)], W[_ix(i, oi + 34, l, RL)], W[_ix(i, oi + 35, l, RL)],
        )  # fmt: skip
        A1 = rot_sandwich(R, A)
        B1 = rot_sandwich(R, B)
        C1 = rot_sandwich(R, C)
        Y = skew_left(px, py, pz, C1)  # [p] C'
        E = transpose9(skew_left(px, py, pz, transpose9(B1)))  # -(B'[p])
        Z = transpose9(skew_left(px, py, pz, transpose9(Y)))  # -([p] C' [p])
        for r in range(3):
            for c in range(3):
                k = 3 * r + c
                W[_ix(i, o + 6 * r + c, l, RL)] = A1[k] + E[k] + E[3 * c + r] + Z[k]
                b = B1[k] + Y[k]
                W[_ix(i, o + 6 * r + c + 3, l, RL)] = b
                W[_ix(i, o + 6 * (c + 3) + r, l, RL)] = b
                W[_ix(i, o + 6 * (r + 3) + c + 3, l, RL)] = C1[k]
        mx, my, mz = (
            W[_ix(i, op, l, RL)],
            W[_ix(i, op + 1, l, RL)],
            W[_ix(i, op + 2, l, RL)],
        )
        fx, fy, fz = (
            W[_ix(i, op + 3, l, RL)],
            W[_ix(i, op + 4, l, RL)],
            W[_ix(i, op + 5, l, RL)],
        )
        rfx = R[0] * fx + R[1] * fy + R[2] * fz
        rfy = R[3] * fx + R[4] * fy + R[5] * fz
        rfz = R[6] * fx + R[7] * fy + R[8] * fz
        cx, cy, cz = cross(px, py, pz, rfx, rfy, rfz)
        W[_ix(i, o + 36, l, RL)] = R[0] * mx + R[1] * my + R[2] * mz + cx
        W[_ix(i, o + 37, l, RL)] = R[3] * mx + R[4] * my + R[5] * mz + cy
        W[_ix(i, o + 38, l, RL)] = R[6] * mx + R[7] * my + R[8] * mz + cz
        W[_ix(i, o + 39, l, RL)] = rfx
        W[_ix(i, o + 40, l, RL)] = rfy
        W[_ix(i, o + 41, l, RL)] = rfz
    _add_staged(W, lam, 30, i, o, 36, RL)
    _add_staged(W, lam, 24, i, o + 36, 6, RL)


@njit(parallel=True, **_opts)
def aba_lanes(I, F, Q, V, TAU, flags, eps, QDD):
    """Forward dynamics over the rows of Q (N, nq), V, TAU (N, nv) into QDD (N, nv).

    The model must pass :func:`supported` (aba=True). Returns 0, or 1 if some state failed
    (non-finite input, zero quaternion, singular articulated inertia): rerun the per-state
    kernel to find which.
    """
    nb, nq, nv = I[0], I[1], I[2]
    N = Q.shape[0]
    nchunk = (N + L - 1) // L
    ng = min(nchunk, _GROUPS)
    bad = np.zeros(max(ng, 1), dtype=np.int64)
    check = (flags & FL_CHECK) != 0
    for g in prange(ng):
        W = np.empty(nb * WB * L)
        q = np.empty((nq, L))
        v = np.empty((nv, L))
        tau = np.empty((nv, L))
        qdd = np.empty((nv, L))
        y = np.empty((6, L))
        for c in range(g * nchunk // ng, (g + 1) * nchunk // ng):
            s0 = c * L
            nl = min(L, N - s0)
            ok = _load(Q, s0, nl, q, check)
            ok = ok and _load(V, s0, nl, v, check)
            ok = ok and _load(TAU, s0, nl, tau, check)
            ok = ok and _aba_chunk(I, F, flags, eps, q, v, tau, qdd, W, y)
            if not ok:
                bad[g] = 1
                break
            _store(qdd, QDD, s0, nl)
    return int(bad.max())
