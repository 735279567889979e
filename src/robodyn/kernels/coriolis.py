"""Christoffel-consistent Coriolis matrix C(q, v) (Echeandia & Wensing 2021), compiled.

The same algorithm as the numpy reference :func:`robodyn.coriolis.coriolis_matrix_reference`
(read its module docstring for the derivation), in world coordinates, O(n d) for n dofs
and tree depth d:

* forward sweep: world poses ``T_{s,i} = T_{s,lambda} T_{lambda,i}``, space screw axes
  ``S_a = [Ad_{T_{s,i}}] S_a^body`` and their rates ``dS_a/dt = [ad_{V_i}] S_a``, twists
  ``V_i = V_lambda + sum_a S_a v_a``; the body inertia about the world origin
  ``G_i^s = (m, h = m c, I_o)`` (MR eq. 8.42, kept as 13 numbers: m, h, I_o), its rate
  ``dG_i/dt = -([ad_V]^T G + G [ad_V]) = (0, dh, dI_o)`` and its momentum ``G_i V_i``;
* backward sweep: composite sums over each subtree of G (``Ic``), dG/dt and G V (``k``);
  in world coordinates these are plain sums, no transforms. The composite body factor is
  ``Bc = 1/2 (dIc/dt + bar(k))`` because ``B(V) = 1/2 (-ad_V^T G - G ad_V + bar(G V))``
  is linear in (G, G V) and ``bar(f) V = -[ad_V]^T f``;
* columns: for dof c of body i, ``F1 = Ic S'_c + Bc S_c``, ``G1 = Ic S_c``,
  ``G2 = Bc^T S_c``; walking from i to the root over the dofs a of each body j,
  ``C_ac = S_a^T F1`` and, when j != i, ``C_ca = G1^T S'_a + G2^T S_a``.

A mimic joint contributes ``mult_a mult_c`` times its entries at its leader's dof, which is
``E^T C_full E`` for the expansion ``v_full = E v`` (as in :mod:`.crba`).

Workspace row of body i (``WK`` floats): R (9), p (3) of T_{s,i}; V_i (6); Ic: m, h (3),
I_o (9); dIc/dt: dh (3), dI_o (9); k (6); then up to 6 columns [S_a (6), S'_a (6)].
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
    BI_NV,
    BI_PARENT,
    BI_TYPE,
    BI_VIDX,
    FL_CHECK,
    HF,
    HI,
    J_PRISMATIC,
    J_REVOLUTE,
    WF,
    WI,
)
from ._small import (
    add9,
    cross,
    dot,
    joint_pose,
    load9,
    mm,
    nonfinite,
    rmul,
    rot_sandwich,
    store9,
)

__all__ = ["coriolis_core", "coriolis", "coriolis_batch"]

# workspace row offsets
_R = 0  # R (9) of T_{s,i}
_P = 9  # p (3)
_V = 12  # V_i = [w; v] (6), space twist
_M = 18  # composite m
_H = 19  # composite h = m c (3), world
_IO = 22  # composite I_o (9), about the world origin
_DH = 31  # composite dh/dt (3)
_DIO = 34  # composite dI_o/dt (9)
_K = 43  # composite momentum k = sum G V (6)
_S = 49  # columns: S_a (6), dS_a/dt (6), for up to 6 dofs
WK = _S + 72

_jit = njit(cache=True, nogil=True)


@_jit
def coriolis_core(I, F, q, v, flags, C, W):
    """C(q, v) for one state into C (nv, nv), workspace W (WK nb,).

    Returns 0, or an error code (11: non-finite q, 12: non-finite v, 15: zero quaternion).
    """
    nb, nv = I[0], I[2]
    if flags & FL_CHECK:
        if nonfinite(q):
            return 11
        if nonfinite(v):
            return 12
    for r in range(nv):
        for c in range(nv):
            C[r, c] = 0.0
    # world body 0: T_{s,0} = identity, V_0 = 0
    for k in range(18):
        W[k] = 0.0
    W[0] = W[4] = W[8] = 1.0
    # ---- forward sweep, i = 1..n: poses, screw axes, twists, inertias in world coordinates
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WK * i
        wl = WK * I[bi + BI_PARENT]
        err = joint_pose(I, F, q, bi, bf, W, wo)  # T_{lambda,i}(q) into the row
        if err:
            return err
        # T_{s,i} = T_{s,lambda} T_{lambda,i}: R = R_l R_li, p = p_l + R_l p_li
        Rl = load9(W, wl)
        dx, dy, dz = rmul(W, wl, W[wo + 9], W[wo + 10], W[wo + 11])
        R = mm(Rl, load9(W, wo))
        px, py, pz = W[wl + _P] + dx, W[wl + _P + 1] + dy, W[wl + _P + 2] + dz
        store9(W, wo + _R, R)
        W[wo + _P], W[wo + _P + 1], W[wo + _P + 2] = px, py, pz
        # V_i = V_lambda + sum_a S_a v_a  (space twists add along the chain, MR eq. 5.6)
        wx, wy, wz = W[wl + _V], W[wl + _V + 1], W[wl + _V + 2]
        vx, vy, vz = W[wl + _V + 3], W[wl + _V + 4], W[wl + _V + 5]
        jt = I[bi + BI_TYPE]
        ncol = I[bi + BI_NV]
        va = I[bi + BI_VIDX]
        mult = F[bf + BF_MULT]
        for k in range(ncol):
            # S^body: revolute [axis; 0], prismatic [0; axis], free e_k
            if jt == J_REVOLUTE:
                bw = (F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2])
                bu = (0.0, 0.0, 0.0)
            elif jt == J_PRISMATIC:
                bw = (0.0, 0.0, 0.0)
                bu = (F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2])
            elif k < 3:
                bw = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
                bu = (0.0, 0.0, 0.0)
            else:
                bw = (0.0, 0.0, 0.0)
                bu = (1.0 if k == 3 else 0.0, 1.0 if k == 4 else 0.0, 1.0 if k == 5 else 0.0)
            # S_a = [Ad_{T_{s,i}}] S^body = [R s_w; p x (R s_w) + R s_u]  (MR def. 3.20)
            sx = R[0] * bw[0] + R[1] * bw[1] + R[2] * bw[2]
            sy = R[3] * bw[0] + R[4] * bw[1] + R[5] * bw[2]
            sz = R[6] * bw[0] + R[7] * bw[1] + R[8] * bw[2]
            cx, cy, cz = cross(px, py, pz, sx, sy, sz)
            ux = R[0] * bu[0] + R[1] * bu[1] + R[2] * bu[2] + cx
            uy = R[3] * bu[0] + R[4] * bu[1] + R[5] * bu[2] + cy
            uz = R[6] * bu[0] + R[7] * bu[1] + R[8] * bu[2] + cz
            o = wo + _S + 12 * k
            W[o], W[o + 1], W[o + 2], W[o + 3], W[o + 4], W[o + 5] = sx, sy, sz, ux, uy, uz
            # V_i += S_a v_a, with v_a = mult v[leader] for a mimic joint
            r = mult * v[va + k]
            wx, wy, wz = wx + r * sx, wy + r * sy, wz + r * sz
            vx, vy, vz = vx + r * ux, vy + r * uy, vz + r * uz
        W[wo + _V], W[wo + _V + 1], W[wo + _V + 2] = wx, wy, wz
        W[wo + _V + 3], W[wo + _V + 4], W[wo + _V + 5] = vx, vy, vz
        for k in range(ncol):
            # dS_a/dt = [ad_{V_i}] S_a = [w x s_w; w x s_u + v x s_w]  (MR def. 8.2)
            o = wo + _S + 12 * k
            sx, sy, sz, ux, uy, uz = W[o], W[o + 1], W[o + 2], W[o + 3], W[o + 4], W[o + 5]
            ex, ey, ez = cross(wx, wy, wz, sx, sy, sz)
            fx, fy, fz = cross(wx, wy, wz, ux, uy, uz)
            gx, gy, gz = cross(vx, vy, vz, sx, sy, sz)
            W[o + 6], W[o + 7], W[o + 8] = ex, ey, ez
            W[o + 9], W[o + 10], W[o + 11] = fx + gx, fy + gy, fz + gz
        # G^s_i = [Ad_{T_{i,s}}]^T G_i [Ad_{T_{i,s}}] (MR eq. 8.42) as (m, h, I_o):
        # h = R h_b + m p, I_o = R I_b R^T + (2 (R h_b).p + m |p|^2) 1 - (a p^T + p a^T),
        # a = R h_b + m p / 2 (parallel axes, MR eq. 8.26)
        m = F[bf + BF_MASS]
        rhx = R[0] * F[bf + BF_H] + R[1] * F[bf + BF_H + 1] + R[2] * F[bf + BF_H + 2]
        rhy = R[3] * F[bf + BF_H] + R[4] * F[bf + BF_H + 1] + R[5] * F[bf + BF_H + 2]
        rhz = R[6] * F[bf + BF_H] + R[7] * F[bf + BF_H + 1] + R[8] * F[bf + BF_H + 2]
        Ir = rot_sandwich(R, load9(F, bf + BF_IO))
        s = 2.0 * dot(rhx, rhy, rhz, px, py, pz) + m * dot(px, py, pz, px, py, pz)
        ax, ay, az = rhx + 0.5 * m * px, rhy + 0.5 * m * py, rhz + 0.5 * m * pz
        Io = add9(
            Ir,
            (
                s - 2.0 * ax * px, -(ax * py + px * ay), -(ax * pz + px * az),
                -(ay * px + py * ax), s - 2.0 * ay * py, -(ay * pz + py * az),
                -(az * px + pz * ax), -(az * py + pz * ay), s - 2.0 * az * pz,
            ),
        )  # fmt: skip
        hx, hy, hz = rhx + m * px, rhy + m * py, rhz + m * pz
        W[wo + _M] = m
        W[wo + _H], W[wo + _H + 1], W[wo + _H + 2] = hx, hy, hz
        store9(W, wo + _IO, Io)
        # momentum G V = [I_o w + h x v; m v - h x w]
        cx, cy, cz = cross(hx, hy, hz, vx, vy, vz)
        W[wo + _K] = Io[0] * wx + Io[1] * wy + Io[2] * wz + cx
        W[wo + _K + 1] = Io[3] * wx + Io[4] * wy + Io[5] * wz + cy
        W[wo + _K + 2] = Io[6] * wx + Io[7] * wy + Io[8] * wz + cz
        cx, cy, cz = cross(hx, hy, hz, wx, wy, wz)
        W[wo + _K + 3], W[wo + _K + 4], W[wo + _K + 5] = m * vx - cx, m * vy - cy, m * vz - cz
        # dG/dt = -([ad_V]^T G + G [ad_V]): dh = m v + w x h,
        # dI_o = [w] I_o - I_o [w] - [v][h] - [h][v] = A + A^T + 2 (v.h) 1 - (h v^T + v h^T),
        # A = [w] I_o
        cx, cy, cz = cross(wx, wy, wz, hx, hy, hz)
        W[wo + _DH], W[wo + _DH + 1], W[wo + _DH + 2] = m * vx + cx, m * vy + cy, m * vz + cz
        A = (
            wy * Io[6] - wz * Io[3], wy * Io[7] - wz * Io[4], wy * Io[8] - wz * Io[5],
            wz * Io[0] - wx * Io[6], wz * Io[1] - wx * Io[7], wz * Io[2] - wx * Io[8],
            wx * Io[3] - wy * Io[0], wx * Io[4] - wy * Io[1], wx * Io[5] - wy * Io[2],
        )  # fmt: skip
        t = 2.0 * dot(vx, vy, vz, hx, hy, hz)
        store9(
            W,
            wo + _DIO,
            (
                2.0 * A[0] + t - 2.0 * hx * vx,
                A[1] + A[3] - (hx * vy + vx * hy),
                A[2] + A[6] - (hx * vz + vx * hz),
                A[3] + A[1] - (hy * vx + vy * hx),
                2.0 * A[4] + t - 2.0 * hy * vy,
                A[5] + A[7] - (hy * vz + vy * hz),
                A[6] + A[2] - (hz * vx + vz * hx),
                A[7] + A[5] - (hz * vy + vz * hy),
                2.0 * A[8] + t - 2.0 * hz * vz,
            ),
        )
    # ---- backward sweep, i = n..1: composite sums over the subtree (world frame, no
    # transforms): Ic_lambda += Ic_i, dIc_lambda += dIc_i, k_lambda += k_i
    for i in range(nb - 1, 0, -1):
        lam = I[HI + WI * i + BI_PARENT]
        if lam > 0:
            wo = WK * i
            wl = WK * lam
            for k in range(_M, _S):
                W[wl + k] += W[wo + k]
    # ---- columns: for each dof c of body i, walk to the root over the dofs a of body j
    for i in range(1, nb):
        bi = HI + WI * i
        ncol = I[bi + BI_NV]
        if ncol == 0:
            continue
        bf = HF + WF * i
        wo = WK * i
        vi = I[bi + BI_VIDX]
        mi = F[bf + BF_MULT]
        m = W[wo + _M]
        hx, hy, hz = W[wo + _H], W[wo + _H + 1], W[wo + _H + 2]
        Io = load9(W, wo + _IO)
        # Bc = 1/2 (dIc/dt + bar(k)) = 1/2 [[dI_o - [k_m], [dh] - [k_f]], [-[dh] - [k_f], 0]]
        dhx, dhy, dhz = 0.5 * W[wo + _DH], 0.5 * W[wo + _DH + 1], 0.5 * W[wo + _DH + 2]
        D = load9(W, wo + _DIO)
        kmx, kmy, kmz = 0.5 * W[wo + _K], 0.5 * W[wo + _K + 1], 0.5 * W[wo + _K + 2]
        kfx, kfy, kfz = 0.5 * W[wo + _K + 3], 0.5 * W[wo + _K + 4], 0.5 * W[wo + _K + 5]
        for k in range(ncol):
            o = wo + _S + 12 * k
            sx, sy, sz, ux, uy, uz = W[o], W[o + 1], W[o + 2], W[o + 3], W[o + 4], W[o + 5]
            ex, ey, ez = W[o + 6], W[o + 7], W[o + 8]
            fx, fy, fz = W[o + 9], W[o + 10], W[o + 11]
            # G1 = Ic S = [I_o s_w + h x s_u; m s_u - h x s_w]
            c1x, c1y, c1z = cross(hx, hy, hz, ux, uy, uz)
            c2x, c2y, c2z = cross(hx, hy, hz, sx, sy, sz)
            g1 = (
                Io[0] * sx + Io[1] * sy + Io[2] * sz + c1x,
                Io[3] * sx + Io[4] * sy + Io[5] * sz + c1y,
                Io[6] * sx + Io[7] * sy + Io[8] * sz + c1z,
                m * ux - c2x, m * uy - c2y, m * uz - c2z,
            )  # fmt: skip
            # Ic S' (same formula on dS/dt)
            c1x, c1y, c1z = cross(hx, hy, hz, fx, fy, fz)
            c2x, c2y, c2z = cross(hx, hy, hz, ex, ey, ez)
            i1 = (
                Io[0] * ex + Io[1] * ey + Io[2] * ez + c1x,
                Io[3] * ex + Io[4] * ey + Io[5] * ez + c1y,
                Io[6] * ex + Io[7] * ey + Io[8] * ez + c1z,
                m * fx - c2x, m * fy - c2y, m * fz - c2z,
            )  # fmt: skip
            # Bc S   = 1/2 [dI_o s_w + dh x s_u - k_m x s_w - k_f x s_u; -dh x s_w - k_f x s_w]
            # Bc^T S = 1/2 [dI_o s_w + dh x s_u + k_m x s_w + k_f x s_u; -dh x s_w + k_f x s_w]
            dsx = 0.5 * (D[0] * sx + D[1] * sy + D[2] * sz)
            dsy = 0.5 * (D[3] * sx + D[4] * sy + D[5] * sz)
            dsz = 0.5 * (D[6] * sx + D[7] * sy + D[8] * sz)
            a1x, a1y, a1z = cross(dhx, dhy, dhz, ux, uy, uz)
            a2x, a2y, a2z = cross(kmx, kmy, kmz, sx, sy, sz)
            a3x, a3y, a3z = cross(kfx, kfy, kfz, ux, uy, uz)
            a4x, a4y, a4z = cross(dhx, dhy, dhz, sx, sy, sz)
            a5x, a5y, a5z = cross(kfx, kfy, kfz, sx, sy, sz)
            # F1 = Ic S' + Bc S
            f1 = (
                i1[0] + dsx + a1x - a2x - a3x,
                i1[1] + dsy + a1y - a2y - a3y,
                i1[2] + dsz + a1z - a2z - a3z,
                i1[3] - a4x - a5x,
                i1[4] - a4y - a5y,
                i1[5] - a4z - a5z,
            )
            # G2 = Bc^T S
            g2 = (
                dsx + a1x + a2x + a3x,
                dsy + a1y + a2y + a3y,
                dsz + a1z + a2z + a3z,
                a5x - a4x,
                a5y - a4y,
                a5z - a4z,
            )
            ci = vi + k
            j = i
            while j > 0:
                bj = HI + WI * j
                wj = WK * j
                vj = I[bj + BI_VIDX]
                mm_ = mi * F[HF + WF * j + BF_MULT]
                for k2 in range(I[bj + BI_NV]):
                    oa = wj + _S + 12 * k2
                    # C_ac = S_a^T (Ic S'_c + Bc S_c)   (b(a) ancestor of or equal to b(c))
                    C[vj + k2, ci] += mm_ * (
                        W[oa] * f1[0] + W[oa + 1] * f1[1] + W[oa + 2] * f1[2]
                        + W[oa + 3] * f1[3] + W[oa + 4] * f1[4] + W[oa + 5] * f1[5]
                    )  # fmt: skip
                    if j != i:
                        # C_ca = (Ic S_c)^T S'_a + (Bc^T S_c)^T S_a   (b(a) strictly above)
                        C[ci, vj + k2] += mm_ * (
                            g1[0] * W[oa + 6] + g1[1] * W[oa + 7] + g1[2] * W[oa + 8]
                            + g1[3] * W[oa + 9] + g1[4] * W[oa + 10] + g1[5] * W[oa + 11]
                            + g2[0] * W[oa] + g2[1] * W[oa + 1] + g2[2] * W[oa + 2]
                            + g2[3] * W[oa + 3] + g2[4] * W[oa + 4] + g2[5] * W[oa + 5]
                        )  # fmt: skip
                j = I[bj + BI_PARENT]
    return 0


@_jit
def coriolis(I, F, q, v, flags, C):
    """Single state C(q, v) into C (nv, nv). Returns 0 or an error code (1-3: sizes)."""
    if q.shape[0] != I[1]:
        return 1
    if v.shape[0] != I[2]:
        return 2
    if C.shape[0] != I[2] or C.shape[1] != I[2]:
        return 3
    W = np.empty(WK * I[0])
    return coriolis_core(I, F, q, v, flags, C, W)


@njit(cache=True, nogil=True, parallel=True)
def coriolis_batch(I, F, Q, V, flags, CC):
    """C for each row of Q (N, nq), V (N, nv) into CC (N, nv, nv).

    Shapes are checked by the caller. Returns (index of the first failing state or -1,
    its error code).
    """
    nb = I[0]
    N = Q.shape[0]
    nchunk = min(N, 256)  # chunks share the threads; each allocates its workspace once
    status = np.zeros(N, dtype=np.int64)
    for c in prange(nchunk):
        W = np.empty(WK * nb)
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            status[s] = coriolis_core(I, F, Q[s], V[s], flags, CC[s], W)
    for s in range(N):
        if status[s] != 0:
            return s, status[s]
    return -1, 0
