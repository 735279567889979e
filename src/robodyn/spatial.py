"""Rigid-body motions: SO(3) and SE(3) in the notation of Modern Robotics, chapter 3.

Conventions (the book's):

* a twist is ``V = [omega, v]`` and a wrench ``F = [m, f]`` (angular part first);
* ``T_ab`` is the pose of frame {b} in frame {a}; ``[Ad_T]`` maps twists in {b} to {a};
* quaternions are scalar first, ``(w, x, y, z)``;
* roll-pitch-yaw is URDF's: ``R = Rz(yaw) Ry(pitch) Rx(roll)``.

Every function accepts a leading batch dimension where that is natural: ``exp3`` on an
``(N, 3)`` array returns ``(N, 3, 3)``, ``adjoint`` on ``(N, 4, 4)`` returns ``(N, 6, 6)``.
Near the singular points of the formulas (angle 0 for exp/log, angle pi for log) the
functions switch to Taylor series or to the symmetric part of R, so they stay exact to
about 1e-12 there and never divide by zero.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import as_array

__all__ = [
    "skew",
    "unskew",
    "exp3",
    "log3",
    "exp6",
    "log6",
    "adjoint",
    "ad",
    "transform",
    "inv_transform",
    "rot_x",
    "rot_y",
    "rot_z",
    "axis_angle_to_rotation",
    "rotation_to_axis_angle",
    "rpy_to_rotation",
    "rotation_to_rpy",
    "quat_to_rotation",
    "rotation_to_quat",
    "quat_multiply",
    "quat_conjugate",
    "project_to_so3",
    "project_to_se3",
    "is_rotation",
    "check_rotation",
    "check_transform",
    "screw_axis",
    "screw_to_qsh",
]

# Below this angle the closed forms are replaced by their Taylor series (error ~ t^6).
_SMALL = 1e-3


# ----------------------------------------------------------------------------- so(3)
def skew(omega) -> np.ndarray:
    """Skew-symmetric matrix ``[omega]`` with ``[omega] x = omega x x`` (MR eq. 3.30).

    Parameters
    ----------
    omega : array_like, shape (..., 3)
        Any 3-vector (an angular velocity, an axis, a position), or a stack of them.

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)
    """
    w = as_array(omega, "omega", (3,))
    if w.ndim == 1:
        return _skew1(w[0], w[1], w[2])
    x, y, z = w[..., 0], w[..., 1], w[..., 2]
    o = np.zeros_like(x)
    return np.stack(
        [np.stack([o, -z, y], -1), np.stack([z, o, -x], -1), np.stack([-y, x, o], -1)], -2
    )


def unskew(W) -> np.ndarray:
    """Vector of a skew-symmetric matrix (inverse of :func:`skew`).

    Only the skew part ``(W - W^T)/2`` is read, so a slightly asymmetric input is fine.

    Parameters
    ----------
    W : array_like, shape (..., 3, 3)
        A skew-symmetric matrix, or a stack of them.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    W = as_array(W, "W", (3, 3))
    return 0.5 * np.stack(
        [W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]],
        -1,
    )


# -------------------------------------------- single-input fast paths (plain floats)
def _skew1(x: float, y: float, z: float) -> np.ndarray:
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def _coeffs1(t: float) -> tuple[float, float, float]:
    """A, B, C of :func:`_exp_coeffs` for one angle."""
    if t < _SMALL:
        t2 = t * t
        return 1 - t2 / 6 + t2 * t2 / 120, 0.5 - t2 / 24 + t2 * t2 / 720, 1 / 6 - t2 / 120
    s, h = math.sin(t), math.sin(t / 2)
    return s / t, 2 * (h * h) / (t * t), (t - s) / (t * t * t)


def _rodrigues1(x: float, y: float, z: float, A: float, B: float) -> np.ndarray:
    """I + A [w] + B [w]^2 written out for w = (x, y, z)."""
    xx, yy, zz, xy, xz, yz = x * x, y * y, z * z, x * y, x * z, y * z
    return np.array(
        [
            [1 - B * (yy + zz), -A * z + B * xy, A * y + B * xz],
            [A * z + B * xy, 1 - B * (xx + zz), -A * x + B * yz],
            [-A * y + B * xz, A * x + B * yz, 1 - B * (xx + yy)],
        ]
    )


def _exp_coeffs(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A = sin t / t, B = (1 - cos t)/t^2, C = (t - sin t)/t^3, series near t = 0.

    B is computed in the half-angle form ``2 sin^2(t/2) / t^2``: ``1 - cos t`` cancels
    (just above the series' threshold it keeps only ~6 digits, and exp6's ``G v`` lost
    ~1e-13), ``sin(t/2)`` does not. C's ``t - sin t`` cancels too, but C multiplies
    ``[w]^2`` (of size t^2): its error stays below an ulp of the result."""
    t2 = t * t
    small = t < _SMALL
    ts = np.where(small, 1.0, t)  # safe denominator
    A = np.where(small, 1 - t2 / 6 + t2 * t2 / 120, np.sin(ts) / ts)
    h = np.sin(ts / 2)
    B = np.where(small, 0.5 - t2 / 24 + t2 * t2 / 720, 2 * (h * h) / ts**2)
    C = np.where(small, 1 / 6 - t2 / 120 + t2 * t2 / 5040, (ts - np.sin(ts)) / ts**3)
    return A, B, C


def exp3(omega_theta) -> np.ndarray:
    """Matrix exponential of so(3): Rodrigues' formula (MR eq. 3.51).

    ``R = I + sin(t) [w] + (1 - cos t) [w]^2`` for the exponential coordinates
    ``omega_theta = w t`` (unit axis w, angle t).

    Parameters
    ----------
    omega_theta : array_like, shape (..., 3)
        Exponential coordinates (axis times angle).

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)
        Rotation matrix.
    """
    w = as_array(omega_theta, "omega_theta", (3,))
    if w.ndim == 1:
        x, y, z = float(w[0]), float(w[1]), float(w[2])
        A, B, _ = _coeffs1(math.sqrt(x * x + y * y + z * z))
        return _rodrigues1(x, y, z, A, B)
    t = np.linalg.norm(w, axis=-1)
    A, B, _ = _exp_coeffs(t)
    W = skew(w)
    return np.eye(3) + A[..., None, None] * W + B[..., None, None] * (W @ W)


def log3(R, *, check: bool = True) -> np.ndarray:
    """Matrix logarithm of SO(3) as exponential coordinates ``omega * theta`` (MR alg. 3.2.3.3).

    The angle is ``atan2(|sin t|, cos t)`` so it is accurate everywhere; near ``t = pi``
    the axis comes from the symmetric part ``(R + R^T)/2 = cos t I + (1 - cos t) w w^T``.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation matrix.
    check : bool
        Verify that R is a rotation (orthonormal, det +1) to 1e-6.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
        ``omega * theta`` with ``theta`` in ``[0, pi]``.
    """
    R = as_array(R, "R", (3, 3))
    if check:
        check_rotation(R, "R")
    if R.ndim == 2:
        sx, sy, sz = 0.5 * (R[2, 1] - R[1, 2]), 0.5 * (R[0, 2] - R[2, 0]), 0.5 * (R[1, 0] - R[0, 1])
        s1 = math.sqrt(sx * sx + sy * sy + sz * sz)
        t = math.atan2(s1, min(1.0, max(-1.0, 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0))))
        if t < _SMALL:
            f = 1 + t * t / 6 + 7 * t**4 / 360
        elif t > 2.0 and s1 < 0.5:
            return log3(R[None], check=False)[0]  # near pi: the symmetric-part branch below
        else:
            f = t / s1
        return np.array([f * sx, f * sy, f * sz])
    s_w = unskew(R)  # = sin(t) w
    s = np.linalg.norm(s_w, axis=-1)
    c = 0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0)
    t = np.arctan2(s, np.clip(c, -1.0, 1.0))
    # Away from pi: omega theta = (t / sin t) * sin(t) w.
    small = t < _SMALL
    safe_s = np.where(s > 0, s, 1.0)
    factor = np.where(small, 1 + t * t / 6 + 7 * t**4 / 360, t / safe_s)
    out = factor[..., None] * s_w
    # Near pi (sin t small relative to t): axis from the symmetric part.
    near_pi = (t > 2.0) & (s < 0.5)
    if np.any(near_pi):
        Rn = R[near_pi]
        tn = t[near_pi]
        cn = np.cos(tn)
        S = 0.5 * (Rn + np.swapaxes(Rn, -1, -2)) - cn[:, None, None] * np.eye(3)
        S = S / (1 - cn)[:, None, None]  # = w w^T
        k = np.argmax(np.diagonal(S, axis1=-2, axis2=-1), axis=-1)
        idx = np.arange(len(k))
        col = S[idx, :, k]  # = w_k w
        w = col / np.sqrt(np.clip(S[idx, k, k], 1e-300, None))[:, None]
        # Sign: sin(t) w must agree with the skew part (when it is not exactly zero).
        sgn = np.sign(np.einsum("ni,ni->n", w, s_w[near_pi]))
        w = np.where((sgn < 0)[:, None], -w, w)
        out[near_pi] = w * tn[:, None]
    return out


# ----------------------------------------------------------------------------- se(3)
def transform(R=None, p=None) -> np.ndarray:
    """Homogeneous transform ``T = [[R, p], [0, 1]]`` (MR eq. 3.62).

    Parameters
    ----------
    R : array_like, shape (..., 3, 3), optional
        Rotation (identity when omitted).
    p : array_like, shape (..., 3), optional
        Translation (zero when omitted).

    Returns
    -------
    numpy.ndarray, shape (..., 4, 4)
    """
    R = np.eye(3) if R is None else as_array(R, "R", (3, 3))
    p = np.zeros(3) if p is None else as_array(p, "p", (3,))
    batch = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros((*batch, 4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def inv_transform(T) -> np.ndarray:
    """Inverse of a homogeneous transform, ``[[R^T, -R^T p], [0, 1]]`` (MR eq. 3.64).

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        Homogeneous transform; the rotation block is taken to be a rotation (not checked).

    Returns
    -------
    numpy.ndarray, shape (..., 4, 4)
    """
    T = as_array(T, "T", (4, 4))
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return transform(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def exp6(V) -> np.ndarray:
    """Matrix exponential of se(3) (MR prop. 3.25).

    For ``V = [w t, v t]``: ``T = [[exp3(w t), G(t) v], [0, 1]]`` with
    ``G(t) = I t + (1 - cos t)[w] + (t - sin t)[w]^2``. A pure translation (w = 0) gives
    ``[[I, v t], [0, 1]]``.

    Parameters
    ----------
    V : array_like, shape (..., 6)
        Exponential coordinates ``S * theta`` of a screw motion, ``[omega, v]``.

    Returns
    -------
    numpy.ndarray, shape (..., 4, 4)

    Examples
    --------
    A quarter turn about the z axis through the point (0, 1, 0) (``v = -w x q``): the
    origin moves to (1, 1, 0).

    >>> import numpy as np
    >>> import robodyn as rd
    >>> T = rd.exp6([0, 0, np.pi / 2, np.pi / 2, 0, 0])
    >>> print(T.round(6) + 0.0)
    [[ 0. -1.  0.  1.]
     [ 1.  0.  0.  1.]
     [ 0.  0.  1.  0.]
     [ 0.  0.  0.  1.]]
    """
    V = as_array(V, "V", (6,))
    if V.ndim == 1:
        x, y, z = float(V[0]), float(V[1]), float(V[2])
        A, B, C = _coeffs1(math.sqrt(x * x + y * y + z * z))
        T = np.eye(4)
        T[:3, :3] = _rodrigues1(x, y, z, A, B)
        T[:3, 3] = _rodrigues1(x, y, z, B, C) @ V[3:]  # G = I + B [w] + C [w]^2
        return T
    w, v = V[..., :3], V[..., 3:]
    t = np.linalg.norm(w, axis=-1)
    A, B, C = _exp_coeffs(t)
    W = skew(w)
    W2 = W @ W
    R = np.eye(3) + A[..., None, None] * W + B[..., None, None] * W2
    G = np.eye(3) + B[..., None, None] * W + C[..., None, None] * W2
    return transform(R, np.einsum("...ij,...j->...i", G, v))


def log6(T, *, check: bool = True) -> np.ndarray:
    """Matrix logarithm of SE(3) as exponential coordinates ``S * theta`` (MR alg. 3.3.3.2).

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
    check : bool
        Verify that T is a rigid transform.

    Returns
    -------
    numpy.ndarray, shape (..., 6)
        ``[omega theta, v theta]`` with the rotation angle in ``[0, pi]``.

    Examples
    --------
    The inverse of :func:`exp6` for rotation angles below pi:

    >>> import numpy as np
    >>> import robodyn as rd
    >>> V = np.array([0.0, 0.0, np.pi / 2, np.pi / 2, 0.0, 0.0])
    >>> print(rd.log6(rd.exp6(V)).round(12) + 0.0)
    [0.         0.         1.57079633 1.57079633 0.         0.        ]
    """
    T = as_array(T, "T", (4, 4))
    if check:
        check_transform(T, "T")
    w = log3(T[..., :3, :3], check=False)
    if T.ndim == 2:
        x, y, z = float(w[0]), float(w[1]), float(w[2])
        t = math.sqrt(x * x + y * y + z * z)
        if t < _SMALL:
            D = 1 / 12 + t * t / 720 + t**4 / 30240
        else:
            D = (1 - (t / 2) / math.tan(t / 2)) / (t * t)  # half-angle: no 1 - cos t
        return np.concatenate([w, _rodrigues1(x, y, z, -0.5, D) @ T[:3, 3]])
    t = np.linalg.norm(w, axis=-1)
    # G^-1 = I - [w]/2 + D [w]^2 with D = (1 - (t/2) cot(t/2)) / t^2, the half-angle form of
    # (1 - t sin t / (2 (1 - cos t))) / t^2 without the cancelling 1 - cos t.
    small = t < _SMALL
    ts = np.where(small, 1.0, t)
    D = np.where(
        small,
        1 / 12 + t * t / 720 + t**4 / 30240,
        (1 - (ts / 2) / np.tan(ts / 2)) / ts**2,
    )
    W = skew(w)
    Ginv = np.eye(3) - 0.5 * W + D[..., None, None] * (W @ W)
    v = np.einsum("...ij,...j->...i", Ginv, T[..., :3, 3])
    return np.concatenate([w, v], axis=-1)


def adjoint(T) -> np.ndarray:
    """Adjoint representation ``[Ad_T] = [[R, 0], [[p] R, R]]`` (MR def. 3.20).

    Maps a twist in {b} to {a} for ``T = T_ab`` (twist = [omega, v]).

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        The pose ``T_ab`` of {b} in {a} (not checked to be rigid).

    Returns
    -------
    numpy.ndarray, shape (..., 6, 6)
    """
    T = as_array(T, "T", (4, 4))
    R, p = T[..., :3, :3], T[..., :3, 3]
    if T.ndim == 2:
        Ad = np.zeros((6, 6))
        Ad[:3, :3] = R
        Ad[3:, 3:] = R
        Ad[3:, :3] = _skew1(p[0], p[1], p[2]) @ R
        return Ad
    Ad = np.zeros((*T.shape[:-2], 6, 6))
    Ad[..., :3, :3] = R
    Ad[..., 3:, 3:] = R
    Ad[..., 3:, :3] = skew(p) @ R
    return Ad


def ad(V) -> np.ndarray:
    """Lie bracket matrix ``[ad_V] = [[[w], 0], [[v], [w]]]`` (MR def. 8.2).

    ``ad(V1) @ V2`` is the Lie bracket; it is Featherstone's ``crm``, and ``-ad(V).T`` his
    ``crf`` (the force cross product).

    Parameters
    ----------
    V : array_like, shape (..., 6)
        Twist ``[omega, v]``.

    Returns
    -------
    numpy.ndarray, shape (..., 6, 6)
    """
    V = as_array(V, "V", (6,))
    if V.ndim == 1:
        out = np.zeros((6, 6))
        out[:3, :3] = out[3:, 3:] = _skew1(V[0], V[1], V[2])
        out[3:, :3] = _skew1(V[3], V[4], V[5])
        return out
    W, Vv = skew(V[..., :3]), skew(V[..., 3:])
    out = np.zeros((*V.shape[:-1], 6, 6))
    out[..., :3, :3] = W
    out[..., 3:, 3:] = W
    out[..., 3:, :3] = Vv
    return out


# ----------------------------------------------------------------------- rotations
def _elementary(angle, i: int, j: int) -> np.ndarray:
    a = np.asarray(angle, dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError("angle contains NaN or inf")
    c, s = np.cos(a), np.sin(a)
    R = np.zeros((*a.shape, 3, 3))
    k = 3 - i - j
    R[..., k, k] = 1.0
    R[..., i, i] = c
    R[..., j, j] = c
    R[..., i, j] = -s
    R[..., j, i] = s
    return R


def rot_x(angle) -> np.ndarray:
    """Rotation about x by ``angle`` (rad); shape (..., 3, 3) for angle of shape (...)."""
    return _elementary(angle, 1, 2)


def rot_y(angle) -> np.ndarray:
    """Rotation about y by ``angle`` (rad); shape (..., 3, 3) for angle of shape (...)."""
    return _elementary(angle, 2, 0)


def rot_z(angle) -> np.ndarray:
    """Rotation about z by ``angle`` (rad); shape (..., 3, 3) for angle of shape (...)."""
    return _elementary(angle, 0, 1)


def axis_angle_to_rotation(axis, angle) -> np.ndarray:
    """Rotation by ``angle`` about ``axis`` (normalised here; a zero axis is an error).

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        Rotation axis, of any non-zero length.
    angle : array_like, shape (...)
        Angle in radians, right-handed about ``axis``.

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)
    """
    unit = _normalized(axis, "axis", 3)
    angle = np.asarray(angle, dtype=float)
    return exp3(unit * angle[..., None])


def _normalized(x, name: str, k: int) -> np.ndarray:
    """``x`` (..., k) divided by its norm, or ValueError "<name> must be non-zero"."""
    a = as_array(x, name, (k,))
    n = np.linalg.norm(a, axis=-1)
    if np.any(n < 1e-12):
        raise ValueError(f"{name} must be non-zero")
    return a / n[..., None]


def rotation_to_axis_angle(R) -> tuple[np.ndarray, np.ndarray]:
    """Unit axis and angle in ``[0, pi]`` of a rotation; the identity gives axis (0, 0, 1), 0.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)

    Returns
    -------
    axis : numpy.ndarray, shape (..., 3)
    angle : numpy.ndarray, shape (...)
    """
    wt = log3(R)
    t = np.linalg.norm(wt, axis=-1)
    safe = np.where(t > 0, t, 1.0)
    axis = np.where((t > 0)[..., None], wt / safe[..., None], np.array([0.0, 0.0, 1.0]))
    return axis, t


def rpy_to_rotation(rpy) -> np.ndarray:
    """URDF roll-pitch-yaw: ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (fixed axes x, y, z).

    Parameters
    ----------
    rpy : array_like, shape (..., 3)
        ``(roll, pitch, yaw)`` in radians.

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)
    """
    rpy = as_array(rpy, "rpy", (3,))
    return rot_z(rpy[..., 2]) @ rot_y(rpy[..., 1]) @ rot_x(rpy[..., 0])


def rotation_to_rpy(R) -> np.ndarray:
    """Inverse of :func:`rpy_to_rotation`; pitch in ``[-pi/2, pi/2]``.

    At the gimbal lock (pitch = +-pi/2) roll is set to 0 and yaw carries the rotation.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation matrix, checked to 1e-6 (ValueError otherwise).

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    R = as_array(R, "R", (3, 3))
    check_rotation(R, "R")
    pitch = np.arctan2(-R[..., 2, 0], np.hypot(R[..., 0, 0], R[..., 1, 0]))
    lock = np.hypot(R[..., 0, 0], R[..., 1, 0]) < 1e-10
    roll = np.where(lock, 0.0, np.arctan2(R[..., 2, 1], R[..., 2, 2]))
    yaw = np.where(
        lock,
        np.arctan2(-R[..., 0, 1], R[..., 1, 1]),
        np.arctan2(R[..., 1, 0], R[..., 0, 0]),
    )
    return np.stack([roll, pitch, yaw], -1)


def quat_to_rotation(quat) -> np.ndarray:
    """Rotation matrix of a quaternion ``(w, x, y, z)`` (normalised here; zero is an error).

    Parameters
    ----------
    quat : array_like, shape (..., 4)
        Scalar first, ``(w, x, y, z)`` (Pinocchio stores ``(x, y, z, w)``).

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)
    """
    q = _normalized(quat, "quat", 4)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def rotation_to_quat(R) -> np.ndarray:
    """Unit quaternion ``(w, x, y, z)`` with ``w >= 0`` of a rotation (Shepperd's method).

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        A rotation: :func:`check_rotation` must accept it.

    Returns
    -------
    numpy.ndarray, shape (..., 4)
    """
    R = as_array(R, "R", (3, 3))
    check_rotation(R, "R")
    tr = np.trace(R, axis1=-2, axis2=-1)
    d = np.diagonal(R, axis1=-2, axis2=-1)
    # Candidates 4 w^2, 4 x^2, 4 y^2, 4 z^2; use the largest for the division.
    cand = np.stack(
        [1 + tr, 1 + 2 * d[..., 0] - tr, 1 + 2 * d[..., 1] - tr, 1 + 2 * d[..., 2] - tr]
    )
    k = np.argmax(cand, axis=0)
    r21, r12 = R[..., 2, 1], R[..., 1, 2]
    r02, r20 = R[..., 0, 2], R[..., 2, 0]
    r10, r01 = R[..., 1, 0], R[..., 0, 1]
    s = np.sqrt(np.clip(np.take_along_axis(cand, k[None], 0)[0], 1e-300, None))  # = 2 |q_k|
    qs = [
        np.stack([s / 2, (r21 - r12) / (2 * s), (r02 - r20) / (2 * s), (r10 - r01) / (2 * s)], -1),
        np.stack([(r21 - r12) / (2 * s), s / 2, (r01 + r10) / (2 * s), (r02 + r20) / (2 * s)], -1),
        np.stack([(r02 - r20) / (2 * s), (r01 + r10) / (2 * s), s / 2, (r12 + r21) / (2 * s)], -1),
        np.stack([(r10 - r01) / (2 * s), (r02 + r20) / (2 * s), (r12 + r21) / (2 * s), s / 2], -1),
    ]
    q = np.choose(k[..., None], qs)
    q = np.where(q[..., :1] < 0, -q, q)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_multiply(q1, q2) -> np.ndarray:
    """Hamilton product ``q1 * q2`` of quaternions ``(w, x, y, z)``; shapes (..., 4)."""
    a = as_array(q1, "q1", (4,))
    b = as_array(q2, "q2", (4,))
    w1, v1 = a[..., :1], a[..., 1:]
    w2, v2 = b[..., :1], b[..., 1:]
    w = w1 * w2 - np.sum(v1 * v2, axis=-1, keepdims=True)
    v = w1 * v2 + w2 * v1 + np.cross(v1, v2)
    return np.concatenate([w, v], -1)


def quat_conjugate(q) -> np.ndarray:
    """Conjugate ``(w, -x, -y, -z)`` (the inverse of a unit quaternion); shape (..., 4)."""
    q = as_array(q, "q", (4,))
    return q * np.array([1.0, -1.0, -1.0, -1.0])


# ----------------------------------------------------------- checks and projections
def is_rotation(R, tol: float = 1e-6) -> np.ndarray:
    """True where ``R^T R = I`` and ``det R = +1`` to ``tol``; shape (...)."""
    R = as_array(R, "R", (3, 3), finite=False)
    if R.ndim == 2:
        err, det = _rotation_defect(R)
        return np.bool_(err <= tol and abs(det - 1) <= tol)
    err = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-2, -1))
    return (err <= tol) & (np.abs(np.linalg.det(R) - 1) <= tol) & np.all(np.isfinite(R), (-2, -1))


def _rotation_defect(R: np.ndarray) -> tuple[float, float]:
    """(max |R^T R - I|, det R) of one 3x3 matrix."""
    err = float(np.abs(R.T @ R - np.eye(3)).max())
    det = (
        R[0, 0] * (R[1, 1] * R[2, 2] - R[1, 2] * R[2, 1])
        - R[0, 1] * (R[1, 0] * R[2, 2] - R[1, 2] * R[2, 0])
        + R[0, 2] * (R[1, 0] * R[2, 1] - R[1, 1] * R[2, 0])
    )
    return err, float(det)


def check_rotation(R, name: str = "R", tol: float = 1e-6) -> None:
    """Raise ValueError naming ``name`` unless every matrix in ``R`` is a rotation."""
    R = np.asarray(R, dtype=float)
    if R.ndim == 2:
        err, det = _rotation_defect(R)
        if err <= tol and abs(det - 1) <= tol:  # False for NaN too
            return
        bad = R
    else:
        ok = is_rotation(R, tol)
        if np.all(ok):
            return
        bad = R[~ok][0]
        err, det = _rotation_defect(bad)
    raise ValueError(
        f"{name} is not a rotation matrix: |R^T R - I|max = {err:.3g}, det = {det:.6g} "
        f"(tolerance {tol:g}); use project_to_so3 to repair a near-rotation"
    )


def check_transform(T, name: str = "T", tol: float = 1e-6) -> None:
    """Raise ValueError naming ``name`` unless ``T`` is a rigid transform (rotation block,
    bottom row ``[0, 0, 0, 1]``)."""
    T = as_array(T, name, (4, 4))
    bottom = T[..., 3, :]
    if (
        np.abs(bottom[..., :3]).max(initial=0.0) > tol
        or np.abs(bottom[..., 3] - 1.0).max(initial=0.0) > tol
    ):
        raise ValueError(f"{name} is not a homogeneous transform: bottom row must be [0, 0, 0, 1]")
    check_rotation(T[..., :3, :3], f"the rotation block of {name}", tol)


def project_to_so3(M) -> np.ndarray:
    """Nearest rotation (Frobenius norm) to a 3x3 matrix, by SVD with det fixed to +1.

    Parameters
    ----------
    M : array_like, shape (..., 3, 3)
        Any real matrix, e.g. a rotation that drifted by rounding.

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)
    """
    M = as_array(M, "M", (3, 3))
    U, _, Vt = np.linalg.svd(M)
    d = np.sign(np.linalg.det(U @ Vt))
    d = np.where(d == 0, 1.0, d)
    D = np.ones((*M.shape[:-2], 3))
    D[..., 2] = d
    return (U * D[..., None, :]) @ Vt


def project_to_se3(T) -> np.ndarray:
    """Nearest rigid transform: rotation block projected to SO(3), bottom row reset.

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        Near-rigid transform; its translation column is kept as it is.

    Returns
    -------
    numpy.ndarray, shape (..., 4, 4)
    """
    T = as_array(T, "T", (4, 4))
    return transform(project_to_so3(T[..., :3, :3]), T[..., :3, 3])


# ---------------------------------------------------------------------- screw axes
def screw_axis(q, s, h) -> np.ndarray:
    """Screw axis ``S = [s, -s x q + h s]`` through point q along unit s with pitch h (MR 3.3.2.2).

    ``h = inf`` means a pure translation along s: ``S = [0, s]``.

    Parameters
    ----------
    q : array_like, shape (..., 3)
        A point on the axis.
    s : array_like, shape (..., 3)
        Direction of the axis (normalised here).
    h : float or array_like, shape (...)
        Pitch (linear per angular speed).

    Returns
    -------
    numpy.ndarray, shape (..., 6)
    """
    q = as_array(q, "q", (3,))
    s = as_array(s, "s", (3,))
    n = np.linalg.norm(s, axis=-1, keepdims=True)
    if np.any(n < 1e-12):
        raise ValueError("s must be non-zero")
    s = s / n
    h = np.asarray(h, dtype=float)
    if np.any(np.isnan(h)):
        raise ValueError("h is NaN")
    inf = np.isinf(h)[..., None]
    hf = np.where(np.isinf(h), 0.0, h)[..., None]
    w = np.where(inf, 0.0, s)
    v = np.where(inf, s, -np.cross(s, q) + hf * s)
    return np.concatenate(np.broadcast_arrays(w, v), -1)


def screw_to_qsh(S) -> tuple[np.ndarray, np.ndarray, float]:
    """Point q (closest to the origin), unit direction s and pitch h of a screw axis.

    Parameters
    ----------
    S : array_like, shape (6,)
        A screw axis ``[omega, v]`` with ``|omega| = 1``, or ``omega = 0, |v| = 1``.

    Returns
    -------
    q : numpy.ndarray, shape (3,)
    s : numpy.ndarray, shape (3,)
    h : float
        ``inf`` for a pure translation (then q is the origin).
    """
    S = as_array(S, "S", (6,))
    if S.ndim != 1:
        raise ValueError(f"S must have shape (6,), got {S.shape}")
    w, v = S[:3], S[3:]
    nw = np.linalg.norm(w)
    if nw < 1e-12:
        nv = np.linalg.norm(v)
        if nv < 1e-12:
            raise ValueError("S is zero: not a screw axis")
        return np.zeros(3), v / nv, float("inf")
    s = w / nw
    v = v / nw
    h = float(s @ v)
    q = np.cross(s, v)  # v = -s x q + h s  =>  s x v = q - (s.q) s, the point closest to 0
    return q, s, h
