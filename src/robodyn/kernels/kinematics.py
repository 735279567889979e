"""Compiled kinematics kernels: body and frame poses, Jacobians, dJ/dt and centre of mass.

The kernels take the packed model of :mod:`robodyn.kernels._pack` (one int64 array ``I``,
one float64 array ``F``) extended by :func:`~robodyn.kernels._pack.pack_kinematics` with
the operational frames, so a call unboxes few arguments. The joint model
(``joint_pose``) and the small 3x3 helpers come from :mod:`robodyn.kernels._small`.

Workspace ``W`` (``WK`` floats per body): ``T_s,i`` as R (9, row major) and p (3), then the
space twist ``V_i`` (6) where a kernel needs it. Outputs are passed in by the wrapper
(numba boxes a returned array slowly); Jacobians have rows ``[omega; v]``.

The entry points reject a non-finite ``q`` (or ``v``) and a zero quaternion with
ValueError, so finite input never yields NaN silently; shapes are the wrapper's job.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._pack import (  # noqa: F401 - KIND_* and pack_kinematics are re-exported
    BF_AXIS,
    BF_H,
    BF_MASS,
    BF_MULT,
    BI_PARENT,
    BI_TYPE,
    BI_VIDX,
    HF,
    HI,
    J_FIXED,
    J_FREE,
    J_PRISMATIC,
    J_REVOLUTE,
    KIND_BODY,
    KIND_SPACE,
    KIND_WORLD_ALIGNED,
    WF,
    WI,
    pack_kinematics,
)
from ._small import joint_pose, mm, nonfinite, rmul

__all__ = [
    "pack_kinematics",
    "KIND_SPACE",
    "KIND_BODY",
    "KIND_WORLD_ALIGNED",
    "body_poses_kernel",
    "body_poses_batch_kernel",
    "frame_poses_kernel",
    "frame_poses_batch_kernel",
    "frame_pose_kernel",
    "frame_pose_batch_kernel",
    "jacobian_kernel",
    "jacobian_batch_kernel",
    "jacobian_dot_kernel",
    "com_kernel",
    "com_batch_kernel",
    "com_jacobian_kernel",
    "ik_residual_kernel",
    "log6_kernel",
]

WK = 18  # workspace floats per body: R (9), p (3), V_s (6)

_jit = njit(cache=True, nogil=True)
_pjit = njit(cache=True, nogil=True, parallel=True)


# --------------------------------------------------------------------------- checks
@_jit
def _check(I, F, q):
    """Raise unless q is finite and every free-joint quaternion is nonzero."""
    if nonfinite(q):
        raise ValueError("q contains NaN or inf")
    for i in range(1, I[0]):
        bi = HI + WI * i
        if I[bi + BI_TYPE] == J_FREE:
            a = I[bi + 3] + 3  # q index of the quaternion
            if q[a] * q[a] + q[a + 1] * q[a + 1] + q[a + 2] * q[a + 2] + q[a + 3] * q[a + 3] == 0:
                raise ValueError("q: the quaternion of the free joint is zero")


# --------------------------------------------------------------------- forward pass
@_jit
def _compose(I, F, q, W, i):
    """``T_s,i = T_s,lambda(i) T_{lambda(i),i}(q)`` into W (MR eq. 4.13, one joint), with
    ``T_{lambda(i),i} = T(jnt_R, jnt_p) X_J(q_i)`` from the shared joint model."""
    bi = HI + WI * i
    wo = WK * i
    wl = WK * I[bi + BI_PARENT]
    joint_pose(I, F, q, bi, HF + WF * i, W, wo)  # local (R, p) into W[wo : wo + 12]
    px, py, pz = rmul(W, wl, W[wo + 9], W[wo + 10], W[wo + 11])
    R = mm(
        (W[wl], W[wl + 1], W[wl + 2], W[wl + 3], W[wl + 4], W[wl + 5], W[wl + 6], W[wl + 7],
         W[wl + 8]),
        (W[wo], W[wo + 1], W[wo + 2], W[wo + 3], W[wo + 4], W[wo + 5], W[wo + 6], W[wo + 7],
         W[wo + 8]),
    )  # fmt: skip
    for k in range(9):
        W[wo + k] = R[k]
    W[wo + 9] = W[wl + 9] + px
    W[wo + 10] = W[wl + 10] + py
    W[wo + 11] = W[wl + 11] + pz


@_jit
def _world(W):
    for k in range(12):
        W[k] = 0.0
    W[0] = W[4] = W[8] = 1.0


@_jit
def _forward(I, F, q, W):
    """Poses ``T_s,i`` of every body into W, world first (body_parent[i] < i)."""
    _world(W)
    for i in range(1, I[0]):
        _compose(I, F, q, W, i)


@_jit
def _support(I, b, path):
    """Bodies from b up to (excluding) the world into path; returns their number."""
    n = 0
    while b > 0:
        path[n] = b
        n += 1
        b = I[HI + WI * b + BI_PARENT]
    return n


@_jit
def _forward_path(I, F, q, W, path, n):
    """Poses of the n bodies of ``path`` (leaf first) only, root first."""
    _world(W)
    for j in range(n - 1, -1, -1):
        _compose(I, F, q, W, path[j])


@_jit
def _frame_pose(I, F, W, k, out):
    """``out (4, 4) = T_s,b T_b,k`` for operational frame k fixed to body b."""
    fi0 = I[I.shape[0] - 1]
    b = I[fi0 + 2 + k]
    g = I[fi0] + 12 * k
    wb = WK * b
    for r in range(3):
        a0 = W[wb + 3 * r]
        a1 = W[wb + 3 * r + 1]
        a2 = W[wb + 3 * r + 2]
        for c in range(3):
            out[r, c] = a0 * F[g + c] + a1 * F[g + 3 + c] + a2 * F[g + 6 + c]
        out[r, 3] = W[wb + 9 + r] + a0 * F[g + 9] + a1 * F[g + 10] + a2 * F[g + 11]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@_jit
def _frame_body(I, k):
    fi0 = I[I.shape[0] - 1]
    return I[fi0 + 2 + k]


@_jit
def _body_to_4x4(W, i, out):
    wo = WK * i
    for r in range(3):
        out[r, 0] = W[wo + 3 * r]
        out[r, 1] = W[wo + 3 * r + 1]
        out[r, 2] = W[wo + 3 * r + 2]
        out[r, 3] = W[wo + 9 + r]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@_jit
def body_poses_kernel(I, F, q, out):
    """Poses of all bodies into out (nb, 4, 4)."""
    _check(I, F, q)
    W = np.empty(WK * I[0])
    _forward(I, F, q, W)
    for i in range(I[0]):
        _body_to_4x4(W, i, out[i])


@_jit
def frame_poses_kernel(I, F, q, out):
    """Poses of all operational frames into out (nf, 4, 4)."""
    _check(I, F, q)
    W = np.empty(WK * I[0])
    _forward(I, F, q, W)
    for k in range(out.shape[0]):
        _frame_pose(I, F, W, k, out[k])


@_jit
def frame_pose_kernel(I, F, q, k, out):
    """Pose of operational frame k into out (4, 4)."""
    _check(I, F, q)
    W = np.empty(WK * I[0])
    path = np.empty(I[0], dtype=np.int64)
    _forward_path(I, F, q, W, path, _support(I, _frame_body(I, k), path))
    _frame_pose(I, F, W, k, out)


@_pjit
def body_poses_batch_kernel(I, F, Q, out):
    """Body poses for each row of Q (N, nq) into out (N, nb, 4, 4)."""
    N = Q.shape[0]
    for s in range(N):
        _check(I, F, Q[s])
    nchunk = min(N, 64)
    for c in prange(nchunk):
        W = np.empty(WK * I[0])
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            _forward(I, F, Q[s], W)
            for i in range(I[0]):
                _body_to_4x4(W, i, out[s, i])


@_pjit
def frame_poses_batch_kernel(I, F, Q, out):
    """Frame poses for each row of Q (N, nq) into out (N, nf, 4, 4)."""
    N = Q.shape[0]
    for s in range(N):
        _check(I, F, Q[s])
    nchunk = min(N, 64)
    for c in prange(nchunk):
        W = np.empty(WK * I[0])
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            _forward(I, F, Q[s], W)
            for k in range(out.shape[1]):
                _frame_pose(I, F, W, k, out[s, k])


@_pjit
def frame_pose_batch_kernel(I, F, Q, k, out):
    """Pose of frame k for each row of Q (N, nq) into out (N, 4, 4)."""
    N = Q.shape[0]
    for s in range(N):
        _check(I, F, Q[s])
    nchunk = min(N, 64)
    for c in prange(nchunk):
        W = np.empty(WK * I[0])
        path = np.empty(I[0], dtype=np.int64)
        n = _support(I, _frame_body(I, k), path)
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            _forward_path(I, F, Q[s], W, path, n)
            _frame_pose(I, F, W, k, out[s])


# ------------------------------------------------------------------------ Jacobians
@_jit
def _joint_columns(I, F, W, i, col):
    """Space screw axes of joint i into col (6, 6); returns how many columns it has.

    Revolute: ``S = [w; p x w]`` with ``w = R_s,i a`` and p the joint origin; prismatic:
    ``S = [0; R_s,i a]`` (MR eq. 5.11); a mimic joint's axis is scaled by its multiplier.
    A free joint's velocity is its body twist, so its six columns are ``[Ad_T_s,i]``
    (MR def. 3.20).
    """
    bi = HI + WI * i
    jt = I[bi + BI_TYPE]
    bf = HF + WF * i
    wo = WK * i
    px, py, pz = W[wo + 9], W[wo + 10], W[wo + 11]
    if jt == J_REVOLUTE or jt == J_PRISMATIC:
        m = F[bf + BF_MULT]
        wx, wy, wz = rmul(W, wo, F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2])
        wx *= m
        wy *= m
        wz *= m
        if jt == J_REVOLUTE:
            col[0, 0], col[1, 0], col[2, 0] = wx, wy, wz
            col[3, 0] = py * wz - pz * wy
            col[4, 0] = pz * wx - px * wz
            col[5, 0] = px * wy - py * wx
        else:
            col[0, 0], col[1, 0], col[2, 0] = 0.0, 0.0, 0.0
            col[3, 0], col[4, 0], col[5, 0] = wx, wy, wz
        return 1
    if jt == J_FREE:
        for k in range(3):
            rx, ry, rz = W[wo + k], W[wo + 3 + k], W[wo + 6 + k]
            # angular column k: [R e_k; p x R e_k]; linear column k: [0; R e_k]
            col[0, k], col[1, k], col[2, k] = rx, ry, rz
            col[3, k] = py * rz - pz * ry
            col[4, k] = pz * rx - px * rz
            col[5, k] = px * ry - py * rx
            col[0, 3 + k], col[1, 3 + k], col[2, 3 + k] = 0.0, 0.0, 0.0
            col[3, 3 + k], col[4, 3 + k], col[5, 3 + k] = rx, ry, rz
        return 6
    return 0


@_jit
def _space_jacobian(I, F, W, path, n, J, col):
    """J (6, nv) = space Jacobian of the leaf of ``path``: the screw axes of the joints on
    the path (MR eq. 5.11), zero elsewhere; a mimic joint adds to its leader's column."""
    for r in range(6):
        for c in range(J.shape[1]):
            J[r, c] = 0.0
    for j in range(n):
        b = path[j]
        va = I[HI + WI * b + BI_VIDX]
        m = _joint_columns(I, F, W, b, col)
        for c in range(m):
            for r in range(6):
                J[r, va + c] += col[r, c]


@_jit
def _change_kind(T, kind, J):
    """Re-express the space columns of J (6, n) in place for the frame pose T (4, 4).

    body: ``J_b = [Ad_{T^-1}] J_s`` (MR eq. 5.22); world aligned: angular rows unchanged,
    linear rows ``v + w x p`` (the velocity of the frame origin p).
    """
    if kind == KIND_SPACE:
        return
    px, py, pz = T[0, 3], T[1, 3], T[2, 3]
    for c in range(J.shape[1]):
        wx, wy, wz = J[0, c], J[1, c], J[2, c]
        vx = J[3, c] + wy * pz - wz * py
        vy = J[4, c] + wz * px - wx * pz
        vz = J[5, c] + wx * py - wy * px
        if kind == KIND_BODY:
            for r in range(3):
                J[r, c] = T[0, r] * wx + T[1, r] * wy + T[2, r] * wz
                J[3 + r, c] = T[0, r] * vx + T[1, r] * vy + T[2, r] * vz
        else:
            J[3, c] = vx
            J[4, c] = vy
            J[5, c] = vz


@_jit
def _jacobian_one(I, F, q, k, kind, W, path, T, col, J):
    """Pose T and Jacobian J of frame k; only the bodies supporting the frame are posed."""
    n = _support(I, _frame_body(I, k), path)
    _forward_path(I, F, q, W, path, n)
    _frame_pose(I, F, W, k, T)
    _space_jacobian(I, F, W, path, n, J, col)
    _change_kind(T, kind, J)


@_jit
def jacobian_kernel(I, F, q, k, kind, J):
    """Jacobian of frame k into J (6, nv); kind 0 space, 1 body, 2 world aligned."""
    _check(I, F, q)
    W = np.empty(WK * I[0])
    path = np.empty(I[0], dtype=np.int64)
    T = np.empty((4, 4))
    col = np.empty((6, 6))
    _jacobian_one(I, F, q, k, kind, W, path, T, col, J)


@_pjit
def jacobian_batch_kernel(I, F, Q, k, kind, out):
    """Jacobians of frame k for each row of Q (N, nq) into out (N, 6, nv)."""
    N = Q.shape[0]
    for s in range(N):
        _check(I, F, Q[s])
    nchunk = min(N, 64)
    for c in prange(nchunk):
        W = np.empty(WK * I[0])
        path = np.empty(I[0], dtype=np.int64)
        T = np.empty((4, 4))
        col = np.empty((6, 6))
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            _jacobian_one(I, F, Q[s], k, kind, W, path, T, col, out[s])


@_jit
def _ad_add(V, col, c, sign, out, oc):
    """out[:, oc] += sign [ad_V] col[:, c] = sign [w x s; u x s + w x t] (MR def. 8.2)."""
    wx, wy, wz, ux, uy, uz = V[0], V[1], V[2], V[3], V[4], V[5]
    sx, sy, sz = col[0, c], col[1, c], col[2, c]
    tx, ty, tz = col[3, c], col[4, c], col[5, c]
    out[0, oc] += sign * (wy * sz - wz * sy)
    out[1, oc] += sign * (wz * sx - wx * sz)
    out[2, oc] += sign * (wx * sy - wy * sx)
    out[3, oc] += sign * (uy * sz - uz * sy + wy * tz - wz * ty)
    out[4, oc] += sign * (uz * sx - ux * sz + wz * tx - wx * tz)
    out[5, oc] += sign * (ux * sy - uy * sx + wx * ty - wy * tx)


@_jit
def jacobian_dot_kernel(I, F, q, v, k, kind, J, dJ, V):
    """Jacobian J (6, nv), its time derivative dJ (6, nv) and the frame twist V (6,).

    Space columns obey ``dS_i/dt = [ad_{V_i}] S_i`` with ``V_i`` the space twist of the
    body joint i moves (``[ad_{S_i}] S_i = 0``, so the joint's own rate may be included).
    Body: ``dJ_b = -[ad_{V_b}] J_b + [Ad_{T^-1}] dJ_s``. World aligned: the linear rows
    are ``d/dt (v + w x p) = dv + dw x p + w x pdot``. V is in the same kind as J.
    """
    _check(I, F, q)
    if nonfinite(v):
        raise ValueError("v contains NaN or inf")
    nb, nv = I[0], I[2]
    W = np.empty(WK * nb)
    path = np.empty(nb, dtype=np.int64)
    n = _support(I, _frame_body(I, k), path)
    _forward_path(I, F, q, W, path, n)
    T = np.empty((4, 4))
    _frame_pose(I, F, W, k, T)
    col = np.empty((6, 6))
    for r in range(6):
        W[12 + r] = 0.0  # the world is at rest
        for c in range(nv):
            J[r, c] = 0.0
            dJ[r, c] = 0.0
    # root to leaf along the path: V_i = V_lambda(i) + sum_c S_c v_c (space twists); the
    # columns of joint i are its S_c and their derivatives [ad_{V_i}] S_c
    for j in range(n - 1, -1, -1):
        i = path[j]
        bi = HI + WI * i
        wo = WK * i + 12
        wl = WK * I[bi + BI_PARENT] + 12
        va = I[bi + BI_VIDX]
        m = _joint_columns(I, F, W, i, col)
        for r in range(6):
            W[wo + r] = W[wl + r]
        for c in range(m):
            x = v[va + c]
            for r in range(6):
                W[wo + r] += col[r, c] * x
                J[r, va + c] += col[r, c]
        for c in range(m):
            _ad_add(W[wo : wo + 6], col, c, 1.0, dJ, va + c)
    wb = WK * _frame_body(I, k) + 12
    for r in range(6):
        V[r] = W[wb + r]
    if kind == KIND_SPACE:
        return
    px, py, pz = T[0, 3], T[1, 3], T[2, 3]
    # frame origin velocity pdot = u + w x p (world axes)
    wx, wy, wz = V[0], V[1], V[2]
    dx = V[3] + wy * pz - wz * py
    dy = V[4] + wz * px - wx * pz
    dz = V[5] + wx * py - wy * px
    if kind == KIND_WORLD_ALIGNED:
        for c in range(nv):
            sx, sy, sz = J[0, c], J[1, c], J[2, c]
            dJ[3, c] += dJ[1, c] * pz - dJ[2, c] * py + sy * dz - sz * dy
            dJ[4, c] += dJ[2, c] * px - dJ[0, c] * pz + sz * dx - sx * dz
            dJ[5, c] += dJ[0, c] * py - dJ[1, c] * px + sx * dy - sy * dx
        _change_kind(T, kind, J)
        V[3], V[4], V[5] = dx, dy, dz
        return
    # body: V_b = Ad_{T^-1} V_s, J_b = Ad_{T^-1} J_s, dJ_b = -ad_{V_b} J_b + Ad_{T^-1} dJ_s
    _change_kind(T, KIND_BODY, J)
    _change_kind(T, KIND_BODY, dJ)
    for r in range(3):
        V[r] = T[0, r] * wx + T[1, r] * wy + T[2, r] * wz
        V[3 + r] = T[0, r] * dx + T[1, r] * dy + T[2, r] * dz
    for c in range(nv):
        _ad_add(V, J, c, -1.0, dJ, c)


# ------------------------------------------------------------------- centre of mass
@_jit
def _com(I, F, W, out):
    """``c = sum_i (R_i h_i + m_i p_i) / sum_i m_i`` with ``h_i = m_i c_i``."""
    mt = 0.0
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 0.0
    for i in range(1, I[0]):
        bf = HF + WF * i
        m = F[bf + BF_MASS]
        if m == 0.0:
            continue
        wo = WK * i
        hx, hy, hz = rmul(W, wo, F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2])
        out[0] += hx + m * W[wo + 9]
        out[1] += hy + m * W[wo + 10]
        out[2] += hz + m * W[wo + 11]
        mt += m
    for r in range(3):
        out[r] /= mt
    return mt


@_jit
def com_kernel(I, F, q, out):
    """Centre of mass into out (3,), world coordinates."""
    _check(I, F, q)
    W = np.empty(WK * I[0])
    _forward(I, F, q, W)
    _com(I, F, W, out)


@_pjit
def com_batch_kernel(I, F, Q, out):
    """Centre of mass for each row of Q (N, nq) into out (N, 3)."""
    N = Q.shape[0]
    for s in range(N):
        _check(I, F, Q[s])
    nchunk = min(N, 64)
    for c in prange(nchunk):
        W = np.empty(WK * I[0])
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            _forward(I, F, Q[s], W)
            _com(I, F, W, out[s])


@_jit
def com_jacobian_kernel(I, F, q, c, Jc):
    """Centre of mass c (3,) and its Jacobian Jc (3, nv), world axes.

    A joint moves its whole subtree: with ``M_i`` the subtree mass and ``h_i`` the sum of
    ``m_j c_j`` over it (world), each space column ``S = [w; u]`` of joint i adds
    ``(M_i u + w x h_i) / M`` (the velocity ``u + w x c_j`` of each subtree CoM, weighted).
    """
    _check(I, F, q)
    nb, nv = I[0], I[2]
    W = np.empty(WK * nb)
    _forward(I, F, q, W)
    mt = _com(I, F, W, c)
    # W[12:18] of each body reused for the subtree sums (M_i, h_i)
    for i in range(nb):
        for r in range(4):
            W[WK * i + 12 + r] = 0.0
    for i in range(nb - 1, 0, -1):
        bf = HF + WF * i
        m = F[bf + BF_MASS]
        wo = WK * i
        hx, hy, hz = rmul(W, wo, F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2])
        W[wo + 12] += m
        W[wo + 13] += hx + m * W[wo + 9]
        W[wo + 14] += hy + m * W[wo + 10]
        W[wo + 15] += hz + m * W[wo + 11]
        wl = WK * I[HI + WI * i + BI_PARENT]
        for r in range(4):
            W[wl + 12 + r] += W[wo + 12 + r]
    for r in range(3):
        for j in range(nv):
            Jc[r, j] = 0.0
    col = np.empty((6, 6))
    for i in range(1, nb):
        bi = HI + WI * i
        if I[bi + BI_TYPE] == J_FIXED:
            continue
        wo = WK * i
        Ms, hx, hy, hz = W[wo + 12], W[wo + 13], W[wo + 14], W[wo + 15]
        va = I[bi + BI_VIDX]
        n = _joint_columns(I, F, W, i, col)
        for j in range(n):
            wx, wy, wz = col[0, j], col[1, j], col[2, j]
            Jc[0, va + j] += (Ms * col[3, j] + wy * hz - wz * hy) / mt
            Jc[1, va + j] += (Ms * col[4, j] + wz * hx - wx * hz) / mt
            Jc[2, va + j] += (Ms * col[5, j] + wx * hy - wy * hx) / mt


# ------------------------------------------------------------------ inverse kinematics
@_jit
def _log6(T, V):
    """Exponential coordinates ``V = [omega theta; v theta]`` of T (4, 4) (MR alg. 3.3.3.2).

    ``theta = atan2(|a| / 2, (tr R - 1) / 2)`` with ``a = vee(R - R^T) = 2 sin(theta) w``
    is accurate at every angle. For theta <= pi/2, ``omega theta = a theta / (2 sin
    theta)`` (series near 0); beyond, w comes from the symmetric part ``(R + R^T)/2 -
    cos(theta) I = (1 - cos(theta)) w w^T`` with the sign of a (stable near pi). Then
    ``v theta = G^-1 p`` with ``G^-1 = I - [w]/2 + D [w]^2`` (w = omega theta).
    """
    ax = T[2, 1] - T[1, 2]
    ay = T[0, 2] - T[2, 0]
    az = T[1, 0] - T[0, 1]
    s = 0.5 * np.sqrt(ax * ax + ay * ay + az * az)
    c = 0.5 * (T[0, 0] + T[1, 1] + T[2, 2] - 1.0)
    th = np.arctan2(s, c)
    if c >= 0.0:
        if th < 1e-4:
            f = 0.5 + th * th / 12.0  # theta / (2 sin theta)
        else:
            f = 0.5 * th / s
        wx, wy, wz = f * ax, f * ay, f * az
    else:
        one_c = 1.0 - c
        d0 = T[0, 0] - c
        d1 = T[1, 1] - c
        d2 = T[2, 2] - c
        if d0 >= d1 and d0 >= d2:
            ux, uy, uz = d0, 0.5 * (T[1, 0] + T[0, 1]), 0.5 * (T[2, 0] + T[0, 2])
            n = np.sqrt(d0 * one_c)
        elif d1 >= d2:
            ux, uy, uz = 0.5 * (T[0, 1] + T[1, 0]), d1, 0.5 * (T[2, 1] + T[1, 2])
            n = np.sqrt(d1 * one_c)
        else:
            ux, uy, uz = 0.5 * (T[0, 2] + T[2, 0]), 0.5 * (T[1, 2] + T[2, 1]), d2
            n = np.sqrt(d2 * one_c)
        if ux * ax + uy * ay + uz * az < 0.0:
            n = -n
        wx, wy, wz = th * ux / n, th * uy / n, th * uz / n
    if th < 1e-4:
        D = 1.0 / 12.0 + th * th / 720.0
    else:
        # theta sin(theta) / (2 (1 - cos theta)) = (theta/2) cot(theta/2), no cancellation
        h = 0.5 * th
        D = (1.0 - h * np.cos(h) / np.sin(h)) / (th * th)
    px, py, pz = T[0, 3], T[1, 3], T[2, 3]
    # [w] p and [w]^2 p = w x (w x p)
    cx, cy, cz = wy * pz - wz * py, wz * px - wx * pz, wx * py - wy * px
    ex, ey, ez = wy * cz - wz * cy, wz * cx - wx * cz, wx * cy - wy * cx
    V[0], V[1], V[2] = wx, wy, wz
    V[3] = px - 0.5 * cx + D * ex
    V[4] = py - 0.5 * cy + D * ey
    V[5] = pz - 0.5 * cz + D * ez


@_jit
def ik_residual_kernel(I, F, q, k, T_sd, T, J, V):
    """One IK evaluation for frame k: pose T (4, 4), body Jacobian J (6, nv) and the body
    twist error ``V = log6(T^-1 T_sd)`` (6,) (MR sec. 6.2.2)."""
    _check(I, F, q)
    W = np.empty(WK * I[0])
    path = np.empty(I[0], dtype=np.int64)
    col = np.empty((6, 6))
    _jacobian_one(I, F, q, k, KIND_BODY, W, path, T, col, J)
    E = np.empty((4, 4))
    # T^-1 T_sd = [R^T R_sd, R^T (p_sd - p)]
    for r in range(3):
        for c in range(3):
            E[r, c] = T[0, r] * T_sd[0, c] + T[1, r] * T_sd[1, c] + T[2, r] * T_sd[2, c]
        E[r, 3] = (
            T[0, r] * (T_sd[0, 3] - T[0, 3])
            + T[1, r] * (T_sd[1, 3] - T[1, 3])
            + T[2, r] * (T_sd[2, 3] - T[2, 3])
        )
    _log6(E, V)


@_jit
def log6_kernel(T, V):
    """Exponential coordinates of a rigid transform T (4, 4) into V (6,) (testing entry)."""
    _log6(T, V)
