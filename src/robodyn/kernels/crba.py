"""Composite rigid body algorithm: the joint-space mass matrix M(q) (Featherstone table 6.2).

Body coordinates. The composite inertia of the subtree of i, ``Ic_i = G_i + sum_children
Ad^T Ic_c Ad``, is kept as a rigid-body inertia (m, h = m c, I_o about the body origin):
13 numbers instead of 36. Because bodies are numbered depth first, children come after
their parent, so one reverse sweep completes every Ic_i before it is used.

Column block of body i: ``F = Ic_i S_i``, ``M_ii = S_i^T F``; then walking to the root
``F <- Ad_{T_{j,lambda(j)}}^T F``, ``M_ji = S_j^T F`` (and ``M_ij = M_ji^T``). A mimic
body contributes ``mult_i mult_j`` times its entries at its leader's dof, which is
``G^T M_full G`` for the expansion ``v_full = G v``.

Workspace row of body i (``WC`` floats): R (9), p (3) of T_{lambda,i}; Ic_i as m, h (3),
I_o (9).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._pack import (
    BF_AXIS,
    BF_MASS,
    BF_MULT,
    BI_NV,
    BI_PARENT,
    BI_TYPE,
    BI_VIDX,
    FL_ARMATURE,
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
    nonfinite,
    rot_sandwich,
    store9,
    wrench_to_parent,
)

WC = 25


@njit(cache=True, nogil=True)
def _column(jt, F, bf, k):
    """Column k of S_i in body coordinates: revolute [axis; 0], prismatic [0; axis], free e_k."""
    if jt == J_REVOLUTE:
        return F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2], 0.0, 0.0, 0.0
    if jt == J_PRISMATIC:
        return 0.0, 0.0, 0.0, F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
    return (
        1.0 if k == 0 else 0.0,
        1.0 if k == 1 else 0.0,
        1.0 if k == 2 else 0.0,
        1.0 if k == 3 else 0.0,
        1.0 if k == 4 else 0.0,
        1.0 if k == 5 else 0.0,
    )


@njit(cache=True, nogil=True)
def _project(jt, F, bf, k, mx, my, mz, fx, fy, fz):
    """S_{i,k}^T F for the wrench F = [m; f]."""
    if jt == J_REVOLUTE:
        return F[bf + BF_AXIS] * mx + F[bf + BF_AXIS + 1] * my + F[bf + BF_AXIS + 2] * mz
    if jt == J_PRISMATIC:
        return F[bf + BF_AXIS] * fx + F[bf + BF_AXIS + 1] * fy + F[bf + BF_AXIS + 2] * fz
    if k == 0:
        return mx
    if k == 1:
        return my
    if k == 2:
        return mz
    if k == 3:
        return fx
    if k == 4:
        return fy
    return fz


@njit(cache=True, nogil=True)
def crba_core(I, F, q, flags, M, W):
    """M(q) for one state into M (nv, nv), workspace W (WC nb,). Returns 0 or an error code."""
    nb, nv = I[0], I[2]
    if (flags & FL_CHECK) and nonfinite(q):
        return 11
    for r in range(nv):
        for c in range(nv):
            M[r, c] = 0.0
    # ---- poses T_{lambda,i}(q) and Ic_i = G_i (body frame, about the body origin)
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WC * i
        err = joint_pose(I, F, q, bi, bf, W, wo)
        if err:
            return err
        for k in range(13):
            W[wo + 12 + k] = F[bf + BF_MASS + k]
    # ---- composite inertias, i = n..1: Ic_lambda += Ad_{T_{i,lambda}}^T Ic_i Ad_{T_{i,lambda}}
    for i in range(nb - 1, 0, -1):
        lam = I[HI + WI * i + BI_PARENT]
        if lam <= 0:
            continue
        wo = WC * i
        wl = WC * lam
        R = load9(W, wo)
        px, py, pz = W[wo + 9], W[wo + 10], W[wo + 11]
        m = W[wo + 12]
        # moved to the parent frame: h' = R h + m p,
        # I' = R I_o R^T + (2 (R h).p + m |p|^2) 1 - ((R h) p^T + p (R h)^T + m p p^T)
        hx = R[0] * W[wo + 13] + R[1] * W[wo + 14] + R[2] * W[wo + 15]
        hy = R[3] * W[wo + 13] + R[4] * W[wo + 14] + R[5] * W[wo + 15]
        hz = R[6] * W[wo + 13] + R[7] * W[wo + 14] + R[8] * W[wo + 15]
        Ir = rot_sandwich(R, load9(W, wo + 16))
        s = 2.0 * dot(hx, hy, hz, px, py, pz) + m * dot(px, py, pz, px, py, pz)
        ax, ay, az = hx + 0.5 * m * px, hy + 0.5 * m * py, hz + 0.5 * m * pz
        # (R h) p^T + p (R h)^T + m p p^T = a p^T + p a^T with a = R h + m p / 2
        D = (
            s - 2.0 * ax * px, -(ax * py + px * ay), -(ax * pz + px * az),
            -(ay * px + py * ax), s - 2.0 * ay * py, -(ay * pz + py * az),
            -(az * px + pz * ax), -(az * py + pz * ay), s - 2.0 * az * pz,
        )  # fmt: skip
        W[wl + 12] += m
        W[wl + 13] += hx + m * px
        W[wl + 14] += hy + m * py
        W[wl + 15] += hz + m * pz
        store9(W, wl + 16, add9(load9(W, wl + 16), add9(Ir, D)))
    # ---- columns: F = Ic_i S_i; M_ii = S_i^T F; walk to the root for M_ji
    for i in range(1, nb):
        bi = HI + WI * i
        bf = HF + WF * i
        wo = WC * i
        jt = I[bi + BI_TYPE]
        ncol = I[bi + BI_NV]
        vi = I[bi + BI_VIDX]
        mi = F[bf + BF_MULT]
        m = W[wo + 12]
        hx, hy, hz = W[wo + 13], W[wo + 14], W[wo + 15]
        Io = load9(W, wo + 16)
        for k in range(ncol):
            sw0, sw1, sw2, su0, su1, su2 = _column(jt, F, bf, k)
            # Ic s = [I_o w + h x u; m u - h x w]
            c1x, c1y, c1z = cross(hx, hy, hz, su0, su1, su2)
            c2x, c2y, c2z = cross(hx, hy, hz, sw0, sw1, sw2)
            fmx = Io[0] * sw0 + Io[1] * sw1 + Io[2] * sw2 + c1x
            fmy = Io[3] * sw0 + Io[4] * sw1 + Io[5] * sw2 + c1y
            fmz = Io[6] * sw0 + Io[7] * sw1 + Io[8] * sw2 + c1z
            ffx, ffy, ffz = m * su0 - c2x, m * su1 - c2y, m * su2 - c2z
            ci = vi + k
            # M_ii = S_i^T Ic_i S_i
            for k2 in range(ncol):
                M[vi + k2, ci] += mi * mi * _project(jt, F, bf, k2, fmx, fmy, fmz, ffx, ffy, ffz)
            j = i
            lam = I[HI + WI * j + BI_PARENT]
            while lam > 0:
                # F <- Ad_{T_{j,lambda}}^T F  (the wrench moved to the parent frame)
                wj = WC * j
                fmx, fmy, fmz, ffx, ffy, ffz = wrench_to_parent(
                    load9(W, wj), W[wj + 9], W[wj + 10], W[wj + 11], fmx, fmy, fmz, ffx, ffy, ffz
                )
                j = lam
                bj = HI + WI * j
                fj = HF + WF * j
                jtj = I[bj + BI_TYPE]
                vj = I[bj + BI_VIDX]
                mj = F[fj + BF_MULT]
                # M_ji = S_j^T F, M_ij = M_ji^T
                for k2 in range(I[bj + BI_NV]):
                    val = mi * mj * _project(jtj, F, fj, k2, fmx, fmy, fmz, ffx, ffy, ffz)
                    M[vj + k2, ci] += val
                    M[ci, vj + k2] += val
                lam = I[bj + BI_PARENT]
    if flags & FL_ARMATURE:
        d = HF + WF * nb + 2 * nv
        for k in range(nv):
            M[k, k] += F[d + k]
    return 0


@njit(cache=True, nogil=True)
def crba(I, F, q, flags, M):
    """Single state M(q) into M (nv, nv). Returns 0 or an error code (1: size of q)."""
    if q.shape[0] != I[1]:
        return 1
    if M.shape[0] != I[2] or M.shape[1] != I[2]:
        return 5
    W = np.empty(WC * I[0])
    return crba_core(I, F, q, flags, M, W)


@njit(cache=True, nogil=True, parallel=True)
def crba_batch(I, F, Q, flags, MM):
    """M(q) for each row of Q (N, nq) into MM (N, nv, nv). Returns (first failing state, code)."""
    nb = I[0]
    N = Q.shape[0]
    nchunk = min(N, 256)  # chunks share the threads; each allocates its workspace once
    status = np.zeros(N, dtype=np.int64)
    for c in prange(nchunk):
        W = np.empty(WC * nb)
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            status[s] = crba_core(I, F, Q[s], flags, MM[s], W)
    for s in range(N):
        if status[s] != 0:
            return s, status[s]
    return -1, 0


# ----------------------------------------------------------------------------- Cholesky
@njit(cache=True, nogil=True)
def cholesky_inplace(M, n):
    """Overwrite the lower triangle of M (n, n) with L, M = L L^T.

    Returns -1, or the index of the first pivot that is not positive (M not PD).
    """
    for j in range(n):
        d = M[j, j]
        for k in range(j):
            d -= M[j, k] * M[j, k]
        if not d > 0.0:
            return j
        d = math.sqrt(d)
        M[j, j] = d
        for r in range(j + 1, n):
            s = M[r, j]
            for k in range(j):
                s -= M[r, k] * M[j, k]
            M[r, j] = s / d
    return -1


@njit(cache=True, nogil=True)
def cholesky_solve(L, n, b):
    """Solve L L^T x = b in place (b (n,)), L in the lower triangle."""
    for r in range(n):
        s = b[r]
        for k in range(r):
            s -= L[r, k] * b[k]
        b[r] = s / L[r, r]
    for r in range(n - 1, -1, -1):
        s = b[r]
        for k in range(r + 1, n):
            s -= L[k, r] * b[k]
        b[r] = s / L[r, r]
