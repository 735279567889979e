"""Derivatives of a frame's kinematics: the kinematic Hessian ``dJ/dq`` and the partial
derivatives of the frame's twist and acceleration with respect to q, v and a.

Derivatives with respect to q are taken in the tangent space: column j is
``d/d eps f(rd.integrate(model, q, eps e_j))`` at ``eps = 0``, so a free joint's six
columns move its body along its own body twist ``[omega_b, v_b]`` (right-multiplied, as
Pinocchio's local convention), a spherical joint's three turn it about its own axes, and a
planar joint's three move it along its own body twist in the plane. A mimic joint moves
with its leader: its axis, times its multiplier, adds to the leader's column.

The compiled core computes them along the frame's support in one pass
(``kernels/core/kinderiv.c``): with ``S_b`` the space screw axis of joint axis b, ``V_b``
and ``A_b`` the twist and acceleration of the axes before b (those b does not move),
``dJ_c/dq_b = [ad_{S_b}] S_c`` for the axes c that b moves, ``dV_s/dq_b = [ad_{S_b}]
(V_s - V_b)`` and ``dA_s/dq_b = [ad_{S_b}] (A_s - A_b) + [ad_{[ad_{V_b}] S_b}] (V_s -
V_b)``, then the body or world-aligned coordinates by the product rule.
"""

from __future__ import annotations

import numpy as np

from ..kernels import core as _core
from ..kernels._pack import FL_ACC, FL_CHECK, KIND_SPACE
from ..kernels.call import batched, into
from ..model.model import Model
from .forward import JACOBIAN_KINDS, _call, _frame_call

__all__ = ["kinematic_hessian", "frame_velocity_derivatives", "frame_acceleration_derivatives"]


def _parts(r, n: int, out) -> tuple:
    """The core's stacked result (..., n, 6, nv) as n views, or copied into ``out``."""
    parts = tuple(r[..., k, :, :] for k in range(n))
    if out is None:
        return parts
    if not (isinstance(out, tuple | list) and len(out) == n):
        raise ValueError(f"out must be a tuple of {n} arrays")
    return tuple(into(o, x) for o, x in zip(out, parts))


@batched(fast=("kinematic_hessian", 1, FL_CHECK, JACOBIAN_KINDS, KIND_SPACE))
def kinematic_hessian(
    model: Model, q, frame, kind: str = "space", *, threads: int | None = None, out=None
) -> np.ndarray:
    """The derivative of a frame's Jacobian with respect to q: ``H[..., :, i, j] = dJ[:, i] /
    dq_j`` (in the tangent space: see the module), so that ``dJ/dt = H v`` (contracted over
    the last axis) and ``J(q (+) dq) = J(q) + H dq + O(dq^2)``.

    Space: ``dJ_i/dq_j = [ad_{J_j}] J_i`` when joint axis j moves axis i (j is nearer the
    root, or earlier in the same joint; every axis of a free, spherical or planar joint
    moves the others), else 0. Body: ``[Ad_{T_sf^-1}] (H_s[:, i, j] - [ad_{J_s,j}] J_s,i)``.
    World aligned: the angular rows of the space kind, the linear rows the derivative of
    ``v_i + omega_i x p``.

    Takes ``q`` (..., nq) and the ``frame``, ``kind`` (the Jacobian's), ``threads`` and
    ``out`` (the array to write H into) of :func:`robodyn.jacobian`.

    Returns
    -------
    numpy.ndarray, shape (..., 6, nv, nv)
        Pinocchio's ``getJointKinematicHessian`` is the same tensor for a joint frame after
        the ``[v; omega]`` reordering of its rows and of both dof axes.
    """
    pack, k, kd, th = _frame_call(model, frame, kind, threads)
    return _call(model, _core.kinematic_hessian, ("q",), (q,), ((pack.nq,),), k, kd, th, out=out)


@batched(fast=("frame_velocity_derivatives", 2, FL_CHECK, JACOBIAN_KINDS, KIND_SPACE))
def frame_velocity_derivatives(
    model: Model, q, v, frame, kind: str = "space", *, threads: int | None = None, out=None
) -> tuple[np.ndarray, np.ndarray]:
    """The partial derivatives ``(dV/dq, dV/dv)`` of :func:`robodyn.frame_velocity`.

    ``dV/dv`` is the Jacobian of ``kind``; ``dV/dq = (dJ/dq) v`` in the tangent space (see
    the module), computed without forming the Hessian. For ``"space"`` and ``"body"``,
    Pinocchio's ``getFrameVelocityDerivatives`` (``WORLD``, ``LOCAL``) after
    ``computeForwardKinematicsDerivatives`` gives the same pair after the ``[v; omega]``
    reorderings. For ``"world_aligned"`` the pair is the total derivative of ``[omega;
    pdot]`` (the origin p moves with q); Pinocchio's ``LOCAL_WORLD_ALIGNED`` pair holds p
    fixed: it is the space pair moved to p, ``[w; v + w x p]`` of each column.

    Takes ``q`` (..., nq), ``v`` (..., nv) and the ``frame``, ``kind`` and ``threads`` of
    :func:`robodyn.jacobian`; ``out``, a tuple of two arrays (..., 6, nv) to write the pair
    into.

    Returns
    -------
    dV_dq, dV_dv : numpy.ndarray, shape (..., 6, nv)
    """
    pack, k, kd, th = _frame_call(model, frame, kind, threads)
    tails = ((pack.nq,), (pack.nv,))
    r = _call(model, _core.frame_velocity_derivatives, ("q", "v"), (q, v), tails, k, kd, th)
    return _parts(r, 2, out)


@batched(fast=("frame_acceleration_derivatives", 3, FL_CHECK | FL_ACC, JACOBIAN_KINDS, KIND_SPACE))
def frame_acceleration_derivatives(
    model: Model, q, v, a, frame, kind: str = "space", *, threads: int | None = None, out=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The partial derivatives ``(dA/dq, dA/dv, dA/da)`` of :func:`robodyn.frame_acceleration`.

    ``dA/da`` is the Jacobian of ``kind``. For ``"space"`` and ``"body"`` A is the
    derivative of the twist's coordinates (``dV_s/dt``, ``dV_b/dt``) and the three matrices
    equal Pinocchio's ``getFrameAccelerationDerivatives`` (``WORLD``, ``LOCAL``) after the
    ``[v; omega]`` reorderings. For ``"world_aligned"`` A is ``[d omega/dt; pddot]``, the
    classical acceleration of the frame origin, as :func:`robodyn.frame_acceleration`
    gives it, and the origin moves with q (Pinocchio's ``LOCAL_WORLD_ALIGNED`` derivatives
    are the space ones moved to the origin held fixed, ``[w; v + w x p]`` of each column).

    Takes ``q`` (..., nq), ``v`` and ``a`` (..., nv) and the ``frame``, ``kind`` and
    ``threads`` of :func:`robodyn.jacobian`; ``out``, a tuple of three arrays (..., 6, nv).

    Returns
    -------
    dA_dq, dA_dv, dA_da : numpy.ndarray, shape (..., 6, nv)
    """
    pack, k, kd, th = _frame_call(model, frame, kind, threads)
    tails = ((pack.nq,), (pack.nv,), (pack.nv,))
    names = ("q", "v", "a")
    r = _call(model, _core.frame_acceleration_derivatives, names, (q, v, a), tails, k, kd, th)
    return _parts(r, 3, out)
