"""Unrolled 3-vector and 3x3 helpers for the compiled kernels.

Tiny matrices never go through ``@`` (numba's BLAS path is slow on 3x3 and needs scipy):
3-vectors travel as three scalars, 3x3 matrices as row-major 9-tuples, and the pose of a
joint as (R, p) stored in a workspace row. Every helper returns tuples of floats, which
LLVM keeps in registers, so nothing here allocates.

The joint model shared by every kernel is :func:`joint_pose` (``T_{lambda(i), i}(q)``) and
:func:`joint_rate` (the joint twist ``S_i qd_i`` in body coordinates).
"""

from __future__ import annotations

import math

from numba import njit

from ._cache import drop_stale_cache
from ._pack import (
    BF_A1,
    BF_A2,
    BF_AXIS,
    BF_MULT,
    BF_OFF,
    BF_P0,
    BF_R0,
    BF_RA,
    BI_QIDX,
    BI_TYPE,
    BI_VIDX,
    J_FREE,
    J_PRISMATIC,
    J_REVOLUTE,
)

# Inlining at numba's IR level (inline="always") lets LLVM see through the tuple-returning
# helpers and keep the pose in registers; measured on a 7-dof arm, not inlining
# joint_pose makes rnea 1.25x, crba 1.5x and aba 1.35x slower. But every inlined helper is
# type-inferred again at each call site, which is most of the compile time. So: inline the
# arithmetic helpers and the 1-dof joint model, and keep out of line (``_call``) what is
# big or rare: the free joint's pose, the finiteness scan, Coulomb friction.
_jit = njit(cache=True, nogil=True, inline="always")
_call = njit(cache=True, nogil=True)


@_jit
def cross(ax, ay, az, bx, by, bz):
    """a x b."""
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx


@_jit
def dot(ax, ay, az, bx, by, bz):
    """a . b."""
    return ax * bx + ay * by + az * bz


@_jit
def rmul(W, o, x, y, z):
    """R x with R row-major in W[o:o+9]."""
    return (
        W[o] * x + W[o + 1] * y + W[o + 2] * z,
        W[o + 3] * x + W[o + 4] * y + W[o + 5] * z,
        W[o + 6] * x + W[o + 7] * y + W[o + 8] * z,
    )


@_jit
def rtmul(W, o, x, y, z):
    """R^T x with R row-major in W[o:o+9]."""
    return (
        W[o] * x + W[o + 3] * y + W[o + 6] * z,
        W[o + 1] * x + W[o + 4] * y + W[o + 7] * z,
        W[o + 2] * x + W[o + 5] * y + W[o + 8] * z,
    )


@_jit
def load9(W, o):
    """The 3x3 matrix stored row-major in W[o:o+9], as a 9-tuple."""
    return (W[o], W[o + 1], W[o + 2], W[o + 3], W[o + 4], W[o + 5], W[o + 6], W[o + 7], W[o + 8])


@_jit
def store9(W, o, A):
    """W[o:o+9] = A (9-tuple)."""
    W[o] = A[0]
    W[o + 1] = A[1]
    W[o + 2] = A[2]
    W[o + 3] = A[3]
    W[o + 4] = A[4]
    W[o + 5] = A[5]
    W[o + 6] = A[6]
    W[o + 7] = A[7]
    W[o + 8] = A[8]


@_jit
def mm(A, B):
    """A B for 9-tuples."""
    return (
        A[0] * B[0] + A[1] * B[3] + A[2] * B[6],
        A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
        A[0] * B[2] + A[1] * B[5] + A[2] * B[8],
        A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
        A[3] * B[1] + A[4] * B[4] + A[5] * B[7],
        A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
        A[6] * B[0] + A[7] * B[3] + A[8] * B[6],
        A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
        A[6] * B[2] + A[7] * B[5] + A[8] * B[8],
    )


@_jit
def mmt(A, B):
    """A B^T for 9-tuples."""
    return (
        A[0] * B[0] + A[1] * B[1] + A[2] * B[2],
        A[0] * B[3] + A[1] * B[4] + A[2] * B[5],
        A[0] * B[6] + A[1] * B[7] + A[2] * B[8],
        A[3] * B[0] + A[4] * B[1] + A[5] * B[2],
        A[3] * B[3] + A[4] * B[4] + A[5] * B[5],
        A[3] * B[6] + A[4] * B[7] + A[5] * B[8],
        A[6] * B[0] + A[7] * B[1] + A[8] * B[2],
        A[6] * B[3] + A[7] * B[4] + A[8] * B[5],
        A[6] * B[6] + A[7] * B[7] + A[8] * B[8],
    )


@_jit
def rot_sandwich(R, A):
    """R A R^T for 9-tuples."""
    return mmt(mm(R, A), R)


@_jit
def skew_left(px, py, pz, A):
    """[p] A for a 9-tuple A."""
    return (
        py * A[6] - pz * A[3],
        py * A[7] - pz * A[4],
        py * A[8] - pz * A[5],
        pz * A[0] - px * A[6],
        pz * A[1] - px * A[7],
        pz * A[2] - px * A[8],
        px * A[3] - py * A[0],
        px * A[4] - py * A[1],
        px * A[5] - py * A[2],
    )


@_jit
def add9(A, B):
    """A + B for 9-tuples."""
    return (
        A[0] + B[0], A[1] + B[1], A[2] + B[2],
        A[3] + B[3], A[4] + B[4], A[5] + B[5],
        A[6] + B[6], A[7] + B[7], A[8] + B[8],
    )  # fmt: skip


@_jit
def transpose9(A):
    """A^T for a 9-tuple."""
    return (A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8])


@_call
def axis_angle(ax, ay, az, t):
    """Rot(axis, t) = I + sin t [a] + (1 - cos t) [a]^2 (MR eq. 3.51, Rodrigues), unit axis."""
    s = math.sin(t)
    c = math.cos(t)
    k = 1.0 - c
    return (
        c + k * ax * ax, k * ax * ay - s * az, k * ax * az + s * ay,
        k * ax * ay + s * az, c + k * ay * ay, k * ay * az - s * ax,
        k * ax * az - s * ay, k * ay * az + s * ax, c + k * az * az,
    )  # fmt: skip


@_call
def quat_rot(w, x, y, z):
    """Rotation of the quaternion (w, x, y, z), normalised on the fly (2/|q|^2 scaling)."""
    n2 = w * w + x * x + y * y + z * z
    s = 2.0 / n2
    return (
        1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),
        s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x),
        s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y),
    )  # fmt: skip


@_call
def free_pose(F, q, qa, bf, W, wo):
    """The free joint of :func:`joint_pose`: R = R0 R(quat), p = p0 + R0 xyz (out of line)."""
    qw, qx, qy, qz = q[qa + 3], q[qa + 4], q[qa + 5], q[qa + 6]
    if qw * qw + qx * qx + qy * qy + qz * qz == 0.0:
        return 15
    store9(W, wo, mm(load9(F, bf + BF_R0), quat_rot(qw, qx, qy, qz)))
    dx, dy, dz = rmul(F, bf + BF_R0, q[qa], q[qa + 1], q[qa + 2])
    W[wo + 9] = F[bf + BF_P0] + dx
    W[wo + 10] = F[bf + BF_P0 + 1] + dy
    W[wo + 11] = F[bf + BF_P0 + 2] + dz
    return 0


@_jit
def joint_pose(I, F, q, bi, bf, W, wo):
    """Write T_{lambda(i), i}(q) = T(jnt_R, jnt_p) X_J(q_i) as (R, p) into W[wo:wo+12].

    Revolute: X_J = (Rot(axis, theta), 0); prismatic: X_J = (1, axis d); free: X_J =
    (R(quat), xyz). A mimic joint reads theta = mult * q[leader] + offset. Returns 0, or
    15 when a free joint's quaternion is zero.
    """
    jt = I[bi + BI_TYPE]
    qa = I[bi + BI_QIDX]
    R0 = load9(F, bf + BF_R0)
    p0x, p0y, p0z = F[bf + BF_P0], F[bf + BF_P0 + 1], F[bf + BF_P0 + 2]
    if jt == J_REVOLUTE:
        # R = R0 Rot(axis, th) = R0 + sin th R0 [a] + (1 - cos th) R0 [a]^2  (MR eq. 3.51)
        th = F[bf + BF_MULT] * q[qa] + F[bf + BF_OFF]
        s = math.sin(th)
        c = 1.0 - math.cos(th)
        for k in range(9):
            W[wo + k] = F[bf + BF_R0 + k] + s * F[bf + BF_A1 + k] + c * F[bf + BF_A2 + k]
        W[wo + 9], W[wo + 10], W[wo + 11] = p0x, p0y, p0z
    elif jt == J_PRISMATIC:
        # R = R0, p = p0 + d R0 axis
        d = F[bf + BF_MULT] * q[qa] + F[bf + BF_OFF]
        store9(W, wo, R0)
        W[wo + 9] = p0x + d * F[bf + BF_RA]
        W[wo + 10] = p0y + d * F[bf + BF_RA + 1]
        W[wo + 11] = p0z + d * F[bf + BF_RA + 2]
    elif jt == J_FREE:
        return free_pose(F, q, qa, bf, W, wo)
    else:
        store9(W, wo, R0)
        W[wo + 9], W[wo + 10], W[wo + 11] = p0x, p0y, p0z
    return 0


@_jit
def joint_rate(I, F, x, bi, bf):
    """Joint twist S_i x_i (6 scalars, body coordinates) for a 1-dof joint, from v or a.

    Revolute S = [axis; 0], prismatic S = [0; axis]; a mimic joint scales the leader's
    rate by its multiplier. Free and fixed joints return zeros (handled by the caller).
    """
    jt = I[bi + BI_TYPE]
    if jt == J_REVOLUTE or jt == J_PRISMATIC:
        r = F[bf + BF_MULT] * x[I[bi + BI_VIDX]]
        ax, ay, az = F[bf + BF_AXIS] * r, F[bf + BF_AXIS + 1] * r, F[bf + BF_AXIS + 2] * r
        if jt == J_REVOLUTE:
            return ax, ay, az, 0.0, 0.0, 0.0
        return 0.0, 0.0, 0.0, ax, ay, az
    return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0


@_jit
def wrench_to_parent(R, px, py, pz, mx, my, mz, fx, fy, fz):
    """Ad_{T_{i,lambda}}^T F_i = [R m + p x (R f); R f] with (R, p) = T_{lambda,i}."""
    rmx = R[0] * mx + R[1] * my + R[2] * mz
    rmy = R[3] * mx + R[4] * my + R[5] * mz
    rmz = R[6] * mx + R[7] * my + R[8] * mz
    rfx = R[0] * fx + R[1] * fy + R[2] * fz
    rfy = R[3] * fx + R[4] * fy + R[5] * fz
    rfz = R[6] * fx + R[7] * fy + R[8] * fz
    cx, cy, cz = cross(px, py, pz, rfx, rfy, rfz)
    return rmx + cx, rmy + cy, rmz + cz, rfx, rfy, rfz


@_call
def coulomb(fr, x, eps):
    """Coulomb friction fr * sign(x), or fr * tanh(x / eps) when eps > 0."""
    if eps > 0.0:
        return fr * math.tanh(x / eps)
    if x > 0.0:
        return fr
    if x < 0.0:
        return -fr
    return 0.0


@_call
def nonfinite(x):
    """True if any entry of the 1-D array x is NaN or inf."""
    for k in range(x.shape[0]):
        if not math.isfinite(x[k]):
            return True
    return False


# Every kernel module imports this one first: drop cached kernels compiled from other
# sources before any of them is loaded (see _cache.py).
drop_stale_cache(globals())
