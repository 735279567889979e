"""Energy and momentum of a model: kinetic and potential energy, spatial and centroidal
momentum, its rate and the momentum matrix.

All quantities are sums over the bodies (MR sec. 8.2 and 8.5; course notes 004)::

    K   = 1/2 sum_i V_i^T G_i V_i                (+ 1/2 sum_k armature_k v_k^2)
    U   = -sum_i m_i g . c_i
    h_o = sum_i Ad_{T_s,i}^-T G_i V_i = [L_o; p]  (about the world origin, world axes)
    h_G = [L_o - c x p; p] = A_G(q) v             (about the centre of mass c)

with ``V_i`` the body twist of body i and ``G_i`` its spatial inertia. ``K`` is computed
from the body twists, not from M, so ``K = 1/2 v^T M v`` is a real check of the mass
matrix. Momentum is a wrench-like 6-vector ``[angular; linear]`` (robodyn's [m, f] order).

Every function runs in the compiled core (``kernels/core/momentum.c``: one forward pass over
the bodies; the momentum matrix by the composite-rigid-body recursion of Orin, Briggs and
Goswami), for one state or a batch with any leading dimensions, without a Python loop.
"""

from __future__ import annotations

import numpy as np

from .errors import ModelError
from .kernels import core as _core
from .kernels._pack import FL_ACC, FL_ARMATURE, FL_CHECK
from .kernels.call import batched, compute
from .kernels.call import threads as _threads
from .kinematics.forward import com_velocity
from .model.model import Model

__all__ = [
    "kinetic_energy",
    "potential_energy",
    "mechanical_energy",
    "momentum",
    "centroidal_momentum",
    "centroidal_momentum_rate",
    "com_velocity",
    "momentum_matrix",
]


def _model(model) -> Model:
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    return model


def _massive(model) -> Model:
    """The model, or a ModelError when it has no mass (no centre of mass)."""
    if not _model(model).total_mass > 0:
        raise ModelError(f"model {model.name!r} has no mass: the centre of mass is undefined")
    return model


def _th(threads) -> int:
    return 0 if threads is None else _threads(threads)


def _scalar(x: np.ndarray, out=None):
    """One state's energy as a float (an array for a batch, and ``out`` when given)."""
    return float(x) if x.ndim == 0 and out is None else x


# ============================================================================ public API
@batched(fast=("kinetic", 2, FL_CHECK | FL_ARMATURE, None, 0))
def kinetic_energy(
    model: Model, q, v, *, armature: bool = True, threads: int | None = None, out=None
):
    """Kinetic energy ``K = 1/2 sum_i V_i^T G_i V_i`` from the body twists (MR sec. 8.2).

    Equals ``1/2 v^T M v`` (course notes 001 eq. 10.13) and Pinocchio's
    ``computeKineticEnergy`` (which has no armature). One forward pass of the compiled core
    (``V_i = Ad V_lambda + S_i v_i``, MR eq. 8.50).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    armature : bool
        Add the rotor energy ``1/2 sum_k armature_k v_k^2`` (consistent with
        ``mass_matrix(armature=True)``).
    threads : int, optional
        For a batch (default every core).
    out : numpy.ndarray, optional
        The array to write the result into (shape (...), float64), reused across calls:
        the core writes there and allocates nothing (:func:`robodyn.kernels.call.into`).

    Returns
    -------
    float or numpy.ndarray of shape (...)
    """
    flags = FL_CHECK | (FL_ARMATURE if armature else 0)
    K = compute(_core.kinetic, _model(model), ("q", "v"), (q, v), flags, 0, _th(threads), out=out)
    return _scalar(K, out)


@batched(fast=("potential", 1, FL_CHECK, None, 0))
def potential_energy(model: Model, q, *, threads: int | None = None, out=None):
    """Gravitational potential energy ``U = -sum_i m_i g^T c_i`` (c_i: world CoM of body i).

    Zero when every CoM is at the world origin's height (and for a model without mass);
    equals Pinocchio's ``computePotentialEnergy``; ``dU/dq = g(q)``
    (:func:`robodyn.gravity_forces`). One pass of world poses in the compiled core.

    Takes ``q`` of shape (..., nq) and ``threads``; returns a float, or an array of shape
    (...) for a batch.
    """
    U = compute(_core.potential, _model(model), ("q",), (q,), FL_CHECK, 0, _th(threads), out=out)
    return _scalar(U, out)


@batched(fast=("kinetic", 2, FL_CHECK | FL_ARMATURE, None, 1))
def mechanical_energy(
    model: Model, q, v, *, armature: bool = True, threads: int | None = None, out=None
):
    """``K + U``: conserved by the unforced, frictionless motion (one pass of the core).

    Takes the arguments of :func:`kinetic_energy`; returns a float, or an array of
    shape (...) for a batch.
    """
    flags = FL_CHECK | (FL_ARMATURE if armature else 0)
    E = compute(_core.kinetic, _model(model), ("q", "v"), (q, v), flags, 1, _th(threads), out=out)
    return _scalar(E, out)


@batched(fast=("momentum", 2, FL_CHECK, None, 0))
def momentum(model: Model, q, v, *, threads: int | None = None, out=None) -> np.ndarray:
    """Total spatial momentum ``h_o = sum_i G_i V_i = [L_o; p]`` about the world origin.

    ``L_o`` is the angular momentum about the world origin and ``p`` the linear momentum,
    both in world axes. For a floating base with no gravity and no external wrench it
    is conserved (joint torques are internal); a fixed base exchanges it with the world.
    ``h_o = A_o(q) v`` (:func:`momentum_matrix`).

    Takes ``q`` (..., nq), ``v`` (..., nv) and ``threads`` (for a batch); returns an
    array of shape (..., 6).
    """
    m, th = _model(model), _th(threads)
    return compute(_core.momentum, m, ("q", "v"), (q, v), FL_CHECK, 0, th, out=out)


@batched(fast=("momentum", 2, FL_CHECK, None, 1))
def centroidal_momentum(model: Model, q, v, *, threads: int | None = None, out=None) -> np.ndarray:
    """Centroidal momentum ``h_G = [k_G; p] = A_G(q) v``: angular momentum about the centre
    of mass ``c``, ``k_G = L_o - c x p``, world axes.

    Pinocchio's ``computeCentroidalMomentum`` is the same vector in its ``[linear;
    angular]`` order.

    Takes ``q`` (..., nq), ``v`` (..., nv) and ``threads`` (for a batch); returns an
    array of shape (..., 6).
    """
    m = _massive(model)
    return compute(_core.momentum, m, ("q", "v"), (q, v), FL_CHECK, 1, _th(threads), out=out)


@batched(fast=("momentum_rate", 3, FL_CHECK | FL_ACC, None, 1))
def centroidal_momentum_rate(model: Model, q, v, a=None, *, threads: int | None = None, out=None):
    """Rate of the centroidal momentum ``dh_G/dt = A_G(q) a + dA_G/dt(q, v) v``.

    With ``a=None`` it is the bias term ``dA_G/dt v`` of the centroidal dynamics
    ``A_G a + dA_G/dt v = sum of the external wrenches about the CoM`` (Orin, Briggs and
    Goswami 2013). Computed from the net body wrenches ``G_i dV_i - ad_{V_i}^T G_i V_i``
    of one forward pass (gravity left out), moved to the world and then to the CoM:
    ``dk_G/dt = dL_o/dt - c x dp/dt`` (``dc/dt x p = 0``). Pinocchio's
    ``computeCentroidalMomentumTimeVariation`` is the same vector, rows swapped.

    Takes ``q`` (..., nq), ``v`` (..., nv), ``a`` (..., nv) or None, and ``threads``;
    returns an array of shape (..., 6).
    """
    m = _massive(model)
    if a is None:
        rest = (None, FL_CHECK, 1, _th(threads))  # the core does not read a without FL_ACC
        return compute(_core.momentum_rate, m, ("q", "v"), (q, v), *rest, out=out)
    flags, names = FL_CHECK | FL_ACC, ("q", "v", "a")
    return compute(_core.momentum_rate, m, names, (q, v, a), flags, 1, _th(threads), out=out)


@batched(fast=("ccrba", 1, FL_CHECK, {"origin": 0, "com": 1}, 0))
def momentum_matrix(
    model: Model, q, about: str = "origin", *, threads: int | None = None, out=None
) -> np.ndarray:
    """Momentum matrix ``A(q)`` with ``h = A v``; ``about="com"`` is the centroidal matrix.

    Rows ``[angular; linear]``, world axes. Column k is the composite spatial inertia of
    the subtree joint k moves times the joint's space screw axis (the composite-rigid-body
    recursion, CCRBA); ``about="com"`` gives Orin and Goswami's centroidal momentum matrix
    ``A_G = [1, -[c]; 0, 1] A_o`` (Pinocchio's ``computeCentroidalMap``, rows swapped).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    about : {"origin", "com"}
    threads : int, optional
        For a batch (default every core).
    out : numpy.ndarray, optional
        The array to write the result into (as :func:`kinetic_energy`'s).

    Returns
    -------
    numpy.ndarray, shape (..., 6, nv)
    """
    if about not in ("origin", "com"):
        raise ValueError(f"about must be 'origin' or 'com', got {about!r}")
    m = _massive(model) if about == "com" else _model(model)
    kind = 1 if about == "com" else 0
    return compute(_core.ccrba, m, ("q",), (q,), FL_CHECK, kind, _th(threads), out=out)
