"""Configurations: the neutral pose, random poses, and the Lie-group maps q (+) v and q1 (-) q0.

Revolute, continuous and prismatic joints own one coordinate each and live on the real
line (a continuous joint is an angle; it is never wrapped). A free joint owns
``q = [x, y, z, qw, qx, qy, qz]`` (body origin in the world, unit quaternion scalar first)
and ``v = [omega_b, v_b]`` (body twist); it lives on SE(3) and is integrated exactly:

    T_new = T exp([V_b] dt)                                   (MR eq. 3.88 with V = V_b)

so ``R_new = R exp3(omega dt)`` and ``p_new = p + R G(omega dt) v dt`` with
``G(theta) = I theta + (1 - cos theta)[w] + (theta - sin theta)[w]^2`` (MR prop. 3.25).
:func:`difference` is its inverse, ``V_b dt = log6(T0^-1 T1)``.

A spherical joint (q = unit quaternion, v = omega_b) lives on SO(3): ``R_new = R
exp3(omega dt)``, its difference ``log3(R0^T R1)``. A planar joint (q = (phi, x, y), v =
(omega, v_1, v_2) the planar body twist) lives on SE(2) and moves as ``T exp([V] dt)``:
``phi_new = phi + omega dt`` and ``p_new = p + R(phi) G2(omega dt) v dt`` with the planar
``G2(t) = [[sin t, -(1 - cos t)], [1 - cos t, sin t]] / t`` (MR eq. 3.88 restricted to
the plane); ``phi`` is never wrapped, so difference gives ``omega = phi1 - phi0``. Helical
and cylindrical joints are vector coordinates: ``q + v dt``.

All functions accept batches with any leading dimensions, numpy style: ``q`` of shape
(..., nq) and ``v`` of shape (..., nv) broadcast together and give results of shape (..., ...).

``robodyn.integrate`` and ``robodyn.difference`` are the compiled core's
(``kernels/core/cspace.c`` through ``robodyn.kinematics.configuration``): the same
formulas, branches and thresholds, equal to these to the bit for ``q + v dt`` and within a
few ulp elsewhere (tests/test_cspace_core.py). The numpy pair stays here because the model
layer may not import the core; ``robodyn.model.integrate`` and ``difference`` are these.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import as_array
from ..spatial import log3, log6, quat_multiply, quat_to_rotation
from .model import (
    JOINT_CYLINDRICAL,
    JOINT_FREE,
    JOINT_PLANAR,
    JOINT_PRISMATIC,
    JOINT_SPHERICAL,
    Model,
)

__all__ = ["neutral", "random_configuration", "integrate", "difference", "normalize"]


# ----------------------------------------------------------------------------- helpers
class _Slices(NamedTuple):
    """Where each kind of joint keeps its coordinates (cached on the immutable model)."""

    q1: np.ndarray  # (k,) q index of every vector coordinate (revolute, prismatic, helical,
    v1: np.ndarray  # (k,) its v index                         and cylindrical coordinates)
    prismatic: np.ndarray  # (k,) bool: a length (m), else an angle (rad)
    free: list  # [(qadr, vadr)] of the free joints (SE(3))
    spherical: list  # [(qadr, vadr)] of the spherical joints (SO(3))
    planar: list  # [(qadr, vadr)] of the planar joints (SE(2))


def _joint_slices(model: Model) -> _Slices:
    """The coordinate layout of ``model`` by joint kind (cached on the immutable model)."""
    cached = model.__dict__.get("_config_slices")
    if cached is not None:
        return cached
    q1, v1, pr, free, sph, planar = [], [], [], [], [], []
    for i in range(1, model.nb):
        if model.jnt_nq[i] == 0:
            continue
        qa, va, jt = int(model.jnt_qadr[i]), int(model.jnt_vadr[i]), int(model.jnt_type[i])
        if jt == JOINT_FREE:
            free.append((qa, va))
        elif jt == JOINT_SPHERICAL:
            sph.append((qa, va))
        elif jt == JOINT_PLANAR:
            planar.append((qa, va))
        else:
            for k in range(int(model.jnt_nq[i])):
                q1.append(qa + k)
                v1.append(va + k)
                # a cylindrical joint's second coordinate is a length
                pr.append(jt == JOINT_PRISMATIC or (jt == JOINT_CYLINDRICAL and k == 1))
    out = _Slices(
        np.array(q1, dtype=np.int64), np.array(v1, dtype=np.int64), np.array(pr, dtype=bool),
        free, sph, planar,
    )  # fmt: skip
    object.__setattr__(model, "_config_slices", out)
    return out


def _check_q(model: Model, q, name: str = "q") -> np.ndarray:
    return as_array(q, name, (model.nq,))


def _check_v(model: Model, v, name: str = "v") -> np.ndarray:
    return as_array(v, name, (model.nv,))


def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise ValueError(
        f"rng must be a numpy Generator, an int seed or None, got {type(rng).__name__}"
    )


def _quat_exp(w: np.ndarray) -> np.ndarray:
    """Unit quaternion of the rotation exp3(w): [cos(t/2), sin(t/2) w / t]; shape (..., 4)."""
    t = np.linalg.norm(w, axis=-1, keepdims=True)
    small = t < 1e-4
    ts = np.where(small, 1.0, t)
    # sin(t/2)/t = 1/2 - t^2/48 + t^4/3840 - ...
    s = np.where(small, 0.5 - t * t / 48.0 + t**4 / 3840.0, np.sin(ts / 2) / ts)
    return np.concatenate([np.cos(t / 2), s * w], axis=-1)


def _G(w: np.ndarray) -> np.ndarray:
    """G(theta) of MR prop. 3.25 for exponential coordinates w = omega * theta; (..., 3, 3)."""
    t = np.linalg.norm(w, axis=-1)
    small = t < 1e-3
    ts = np.where(small, 1.0, t)
    # G = I + B [w] + C [w]^2, B = (1 - cos t)/t^2, C = (t - sin t)/t^3 (Taylor near 0);
    # B in the half-angle form 2 sin^2(t/2)/t^2: 1 - cos t cancels (1e-10 of B at t = 1e-3)
    B = np.where(small, 0.5 - t**2 / 24 + t**4 / 720, 2 * (np.sin(ts / 2) * np.sin(ts / 2)) / ts**2)
    C = np.where(small, 1 / 6 - t**2 / 120 + t**4 / 5040, (ts - np.sin(ts)) / ts**3)
    x, y, z = w[..., 0], w[..., 1], w[..., 2]
    o = np.zeros_like(x)
    W = np.stack([np.stack([o, -z, y], -1), np.stack([z, o, -x], -1), np.stack([-y, x, o], -1)], -2)
    return np.eye(3) + B[..., None, None] * W + C[..., None, None] * (W @ W)


def _rot2(phi: np.ndarray) -> np.ndarray:
    """The planar rotation by phi; (..., 2, 2)."""
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def _G2(t: np.ndarray) -> np.ndarray:
    """Planar G(t) = [[sin t, -(1 - cos t)], [1 - cos t, sin t]] / t (the identity at 0);
    (..., 2, 2)."""
    t = np.asarray(t, dtype=float)
    small = np.abs(t) < 1e-4
    ts = np.where(small, 1.0, t)
    a = np.where(small, 1.0 - t * t / 6.0, np.sin(ts) / ts)  # sin t / t
    # (1 - cos t) / t in the half-angle form: 1 - cos t cancels (4e-14 lost at t = 6e-4)
    b = np.where(small, t / 2.0 - t**3 / 24.0, 2.0 * (np.sin(ts / 2) * np.sin(ts / 2)) / ts)
    return np.stack([np.stack([a, -b], -1), np.stack([b, a], -1)], -2)


# ------------------------------------------------------------------------- public API
def neutral(model: Model) -> np.ndarray:
    """The neutral configuration: 0 for 1-dof joints (clipped into the limits when 0 is
    outside them), ``[0, 0, 0, 1, 0, 0, 0]`` for a free joint, ``[1, 0, 0, 0]`` for a
    spherical joint and ``(0, 0, 0)`` for a planar joint.

    Parameters
    ----------
    model : Model

    Returns
    -------
    numpy.ndarray, shape (nq,)
    """
    sl = _joint_slices(model)
    q = np.zeros(model.nq)
    q[sl.q1] = np.clip(0.0, model.q_lower[sl.q1], model.q_upper[sl.q1])
    for qa, _ in sl.free:
        q[qa + 3] = 1.0
    for qa, _ in sl.spherical:
        q[qa] = 1.0
    return q


def random_configuration(model: Model, rng=None, size=None) -> np.ndarray:
    """A configuration drawn uniformly within the joint limits.

    1-dof joints: uniform in ``[lower, upper]`` when both limits are finite; an unlimited
    side is replaced by ``-pi``/``pi`` for revolute and continuous joints and by ``-1``/``1``
    m for prismatic joints (a one-sided limit gives a range of width 2 pi, resp. 2 m, from
    the finite side). Free joint: position uniform in ``[-1, 1]^3`` m, orientation a uniform
    random unit quaternion (normalised Gaussian 4-vector, Haar measure on SO(3)); spherical
    joint: that quaternion; planar joint: phi uniform in ``[-pi, pi]``, (x, y) in
    ``[-1, 1]^2`` m; helical angles and cylindrical (angle, length) as revolute and
    prismatic coordinates.

    Parameters
    ----------
    model : Model
    rng : numpy.random.Generator or int or None
        Random generator, or a seed for ``numpy.random.default_rng``.
    size : int or tuple of int, optional
        Batch shape (numpy style); None returns a single configuration.

    Returns
    -------
    numpy.ndarray, shape (nq,) or ``size + (nq,)``
    """
    gen = _rng(rng)
    try:
        shape = () if size is None else tuple(int(k) for k in np.atleast_1d(size))
    except (TypeError, ValueError):
        raise ValueError(f"size must be an int, a tuple of ints or None, got {size!r}") from None
    if any(k < 0 for k in shape) or np.ndim(size) > 1:
        raise ValueError(f"size must be non-negative, got {size!r}")
    n = math.prod(shape)
    sl = _joint_slices(model)
    q1, prismatic = sl.q1, sl.prismatic
    lo = model.q_lower[q1]
    hi = model.q_upper[q1]
    half = np.where(prismatic, 1.0, math.pi)
    lo_inf, hi_inf = ~np.isfinite(lo), ~np.isfinite(hi)
    lo, hi = (
        np.where(lo_inf, np.where(hi_inf, -half, hi - 2 * half), lo),
        np.where(hi_inf, np.where(lo_inf, half, lo + 2 * half), hi),
    )
    q = np.zeros((n, model.nq))
    q[:, q1] = gen.uniform(lo, hi, size=(n, len(q1)))
    for qa, _ in sl.free:
        q[:, qa : qa + 3] = gen.uniform(-1.0, 1.0, size=(n, 3))
        u = gen.standard_normal((n, 4))
        q[:, qa + 3 : qa + 7] = u / np.linalg.norm(u, axis=-1, keepdims=True)
    for qa, _ in sl.spherical:
        u = gen.standard_normal((n, 4))
        q[:, qa : qa + 4] = u / np.linalg.norm(u, axis=-1, keepdims=True)
    for qa, _ in sl.planar:
        q[:, qa] = gen.uniform(-math.pi, math.pi, size=n)
        q[:, qa + 1 : qa + 3] = gen.uniform(-1.0, 1.0, size=(n, 2))
    return q.reshape((*shape, model.nq))


def integrate(model: Model, q, v, dt=1.0) -> np.ndarray:
    """``q (+) v dt``: move along the constant velocity v for a time dt.

    1-dof joints: ``q + v dt``. Free joint: ``T_new = T exp6(V_b dt)`` (exact on SE(3)),
    i.e. ``p_new = p + R G(omega dt) v dt`` and ``quat_new = quat * exp(omega dt / 2)``;
    spherical: ``quat_new = quat * exp(omega dt / 2)``; planar: exact on SE(2) (module
    docstring).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    dt : float or array_like, shape (...)

    Returns
    -------
    numpy.ndarray, shape (..., nq)
    """
    q = _check_q(model, q)
    v = _check_v(model, v)
    dt = np.asarray(dt, dtype=float)
    if not np.all(np.isfinite(dt)):
        raise ValueError("dt must be finite")
    sl = _joint_slices(model)
    if len(sl.q1) == model.nq == model.nv:  # only one-coordinate joints: q + v dt
        return q + v * dt[..., None]
    batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1], dt.shape)
    q = np.broadcast_to(q, (*batch, model.nq))
    vdt = np.broadcast_to(v, (*batch, model.nv)) * dt[..., None]
    out = np.array(q, dtype=float, copy=True)
    out[..., sl.q1] = q[..., sl.q1] + vdt[..., sl.v1]
    for qa, va in sl.spherical:
        quat, w = q[..., qa : qa + 4], vdt[..., va : va + 3]
        qn = quat_multiply(quat / np.linalg.norm(quat, axis=-1, keepdims=True), _quat_exp(w))
        out[..., qa : qa + 4] = qn / np.linalg.norm(qn, axis=-1, keepdims=True)
    for qa, va in sl.planar:
        phi, w = q[..., qa], vdt[..., va]
        # p_new = p + R(phi) G2(w) (v dt)   (MR prop. 3.25 in the plane)
        d = np.einsum("...ij,...j->...i", _rot2(phi) @ _G2(w), vdt[..., va + 1 : va + 3])
        out[..., qa] = phi + w
        out[..., qa + 1 : qa + 3] = q[..., qa + 1 : qa + 3] + d
    for qa, va in sl.free:
        p, quat = q[..., qa : qa + 3], q[..., qa + 3 : qa + 7]
        w, u = vdt[..., va : va + 3], vdt[..., va + 3 : va + 6]
        R = quat_to_rotation(quat)
        # p_new = p + R G(omega dt) (v dt)    (MR prop. 3.25)
        out[..., qa : qa + 3] = p + np.einsum("...ij,...j->...i", R @ _G(w), u)
        qn = quat_multiply(quat / np.linalg.norm(quat, axis=-1, keepdims=True), _quat_exp(w))
        out[..., qa + 3 : qa + 7] = qn / np.linalg.norm(qn, axis=-1, keepdims=True)
    return out


def difference(model: Model, q0, q1) -> np.ndarray:
    """``q1 (-) q0``: the velocity v such that ``integrate(model, q0, v, 1) == q1``.

    1-dof joints: ``q1 - q0``. Free joint: ``V_b = log6(T0^-1 T1)`` (MR alg. 3.3.3.2), the
    body twist carrying T0 to T1 in unit time (rotation angle in [0, pi]); spherical:
    ``omega_b = log3(R0^T R1)``; planar: ``omega = phi1 - phi0`` and ``v = G2(omega)^-1
    R(phi0)^T (p1 - p0)``.

    Parameters
    ----------
    model : Model
    q0, q1 : array_like, shape (..., nq)

    Returns
    -------
    numpy.ndarray, shape (..., nv)
    """
    q0 = _check_q(model, q0, "q0")
    q1_ = _check_q(model, q1, "q1")
    batch = np.broadcast_shapes(q0.shape[:-1], q1_.shape[:-1])
    q0 = np.broadcast_to(q0, (*batch, model.nq))
    q1_ = np.broadcast_to(q1_, (*batch, model.nq))
    sl = _joint_slices(model)
    out = np.zeros((*batch, model.nv))
    out[..., sl.v1] = q1_[..., sl.q1] - q0[..., sl.q1]
    for qa, va in sl.spherical:
        R0 = quat_to_rotation(q0[..., qa : qa + 4])
        R1 = quat_to_rotation(q1_[..., qa : qa + 4])
        out[..., va : va + 3] = log3(np.swapaxes(R0, -1, -2) @ R1, check=False)
    for qa, va in sl.planar:
        w = q1_[..., qa] - q0[..., qa]
        dp = q1_[..., qa + 1 : qa + 3] - q0[..., qa + 1 : qa + 3]
        local = np.einsum("...ji,...j->...i", _rot2(q0[..., qa]), dp)  # R(phi0)^T dp
        out[..., va] = w
        out[..., va + 1 : va + 3] = np.linalg.solve(_G2(w), local[..., None])[..., 0]
    for qa, va in sl.free:
        R0 = quat_to_rotation(q0[..., qa + 3 : qa + 7])
        R1 = quat_to_rotation(q1_[..., qa + 3 : qa + 7])
        R0t = np.swapaxes(R0, -1, -2)
        T = np.zeros((*batch, 4, 4))
        T[..., :3, :3] = R0t @ R1  # T0^-1 T1 (MR eq. 3.64)
        T[..., :3, 3] = np.einsum(
            "...ij,...j->...i", R0t, q1_[..., qa : qa + 3] - q0[..., qa : qa + 3]
        )
        T[..., 3, 3] = 1.0
        out[..., va : va + 6] = log6(T, check=False)
    return out


def normalize(model: Model, q) -> np.ndarray:
    """Copy of q with every free- and spherical-joint quaternion scaled to unit norm.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)

    Returns
    -------
    numpy.ndarray, shape (..., nq)

    Raises
    ------
    ValueError
        If a quaternion is zero.
    """
    q = np.array(_check_q(model, q), dtype=float, copy=True)
    sl = _joint_slices(model)
    for e in [qa + 3 for qa, _ in sl.free] + [qa for qa, _ in sl.spherical]:
        quat = q[..., e : e + 4]
        n = np.linalg.norm(quat, axis=-1, keepdims=True)
        if np.any(n < 1e-12):
            raise ValueError(f"q[{e}:{e + 4}] is a zero quaternion: cannot normalise")
        q[..., e : e + 4] = quat / n
    return q
