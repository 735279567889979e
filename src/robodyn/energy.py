"""Energy and momentum of a model: kinetic and potential energy, spatial momentum, CoM velocity.

All quantities are sums over the bodies (MR sec. 8.2 and 8.5; course notes 004)::

    K = 1/2 sum_i V_i^T G_i V_i              (+ 1/2 sum_k armature_k v_k^2)
    U = -sum_i m_i g . c_i
    h_o = sum_i G_i V_i = [L_o; p]           (about the world origin, world axes)

with ``V_i`` the twist of body i and ``G_i`` its spatial inertia, both in world
coordinates (``V_i^T G_i V_i`` is frame invariant, so this equals the body-frame sum
``V_b^T G_b V_b``). ``K`` is computed from the body twists, not from M, so
``K = 1/2 v^T M v`` is a real check of the mass matrix. Momentum is a wrench-like
6-vector ``[angular; linear]`` (robodyn's [m, f] order).

The potential energy runs in the compiled core (from the centre of mass); the other
quantities' batches (any leading dimensions) run a Python loop over the single-state numpy
path (issue 29 moves them into the core).
"""

from __future__ import annotations

import numpy as np

from .coriolis import _each, _tree, _twists, _world
from .errors import ModelError
from .kernels.call import batched
from .kinematics.forward import com
from .kinematics.forward import com_velocity as _compiled_com_velocity
from .model.model import Model

__all__ = [
    "kinetic_energy",
    "potential_energy",
    "mechanical_energy",
    "momentum",
    "centroidal_momentum",
    "com_velocity",
    "momentum_matrix",
]


def _skew(w: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _body_twists(model: Model, q: np.ndarray, v: np.ndarray):
    tree = _tree(model)
    w = _world(model, tree, q)
    return w, _twists(model, tree, w, tree.E @ v)


def _kinetic_one(model: Model, q, v, armature: bool) -> float:
    w, V = _body_twists(model, q, v)
    # K = 1/2 sum_i V_i^T G_i V_i   (MR eq. 8.41's kinetic energy of body i)
    K = 0.5 * float(np.einsum("bi,bij,bj->", V, w.Gs, V))
    if armature:
        K += 0.5 * float(np.dot(model.dof_armature * v, v))
    return K


def _world_coms(model: Model, q: np.ndarray) -> np.ndarray:
    w = _world(model, _tree(model), q)
    # c_i^s = R_i c_i + p_i
    return np.einsum("bij,bj->bi", w.R, model.body_com) + w.p


def _momentum_one(model: Model, q, v) -> np.ndarray:
    w, V = _body_twists(model, q, v)
    return np.einsum("bij,bj->i", w.Gs, V)  # h_o = sum_i G_i V_i


def _total_mass(model: Model) -> float:
    m = model.total_mass
    if not m > 0:
        raise ModelError(f"model {model.name!r} has no mass: the centre of mass is undefined")
    return m


def _centroidal_one(model: Model, q, v) -> np.ndarray:
    h = _momentum_one(model, q, v)
    c = np.dot(model.body_mass, _world_coms(model, q)) / _total_mass(model)
    # k_G = L_o - c x p  (moment of the momentum moved from the origin to the CoM)
    return np.concatenate([h[:3] - np.cross(c, h[3:]), h[3:]])


def _loop_qv(model, q, v, fn, shape):
    out = _each(model, ("q", "v"), (q, v), fn, shape)
    return float(out) if np.ndim(out) == 0 else out


def _loop_q(model, q, fn, shape):
    out = _each(model, ("q",), (q,), fn, shape)
    return float(out) if np.ndim(out) == 0 else out


# ============================================================================ public API
@batched
def kinetic_energy(model: Model, q, v, *, armature: bool = True):
    """Kinetic energy ``K = 1/2 sum_i V_i^T G_i V_i`` from the body twists (MR sec. 8.2).

    Equals ``1/2 v^T M v`` (course notes 001 eq. 10.13) and Pinocchio's
    ``computeKineticEnergy`` (which has no armature).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    armature : bool
        Add the rotor energy ``1/2 sum_k armature_k v_k^2`` (consistent with
        ``mass_matrix(armature=True)``).

    Returns
    -------
    float or numpy.ndarray of shape (...)
    """
    return _loop_qv(model, q, v, lambda a, b: _kinetic_one(model, a, b, armature), ())


@batched
def potential_energy(model: Model, q):
    """Gravitational potential energy ``U = -sum_i m_i g^T c_i`` (c_i: world CoM of body i).

    Zero when every CoM is at the world origin's height; equals Pinocchio's
    ``computePotentialEnergy``; ``dU/dq = g(q)`` (:func:`robodyn.gravity_forces`).
    Computed in the compiled core as ``U = -m g^T c`` with ``m`` the total mass and ``c``
    the centre of mass (:func:`robodyn.com`, whose sum ``m c = sum_i m_i c_i`` is the
    body sum above): one state or a batch in one call, every joint type.

    Takes ``q`` of shape (..., nq); returns a float, or an array of shape (...) for a batch.
    """
    m = model.total_mass
    if not m > 0:  # no mass, no potential energy (the CoM is undefined)
        return _loop_q(model, q, lambda a: 0.0, ())
    c, g = com(model, q), model.gravity
    # U = -m g^T c = -sum_i m_i g^T c_i (term by term: a batch rounds as one state does)
    U = -m * (c[..., 0] * g[0] + c[..., 1] * g[1] + c[..., 2] * g[2])
    return float(U) if U.ndim == 0 else U


@batched
def mechanical_energy(model: Model, q, v, *, armature: bool = True):
    """``K + U``: conserved by the unforced, frictionless motion.

    Takes the arguments of :func:`kinetic_energy`; returns a float, or an array of
    shape (...) for a batch.
    """
    return kinetic_energy(model, q, v, armature=armature) + potential_energy(model, q)


@batched
def momentum(model: Model, q, v) -> np.ndarray:
    """Total spatial momentum ``h_o = sum_i G_i V_i = [L_o; p]`` about the world origin.

    ``L_o`` is the angular momentum about the world origin and ``p`` the linear momentum,
    both in world axes. For a floating base with no gravity and no external wrench it
    is conserved (joint torques are internal); a fixed base exchanges it with the world.

    Takes ``q`` (..., nq) and ``v`` (..., nv); returns an array of shape (..., 6).
    """
    return _loop_qv(model, q, v, lambda a, b: _momentum_one(model, a, b), (6,))


@batched
def centroidal_momentum(model: Model, q, v) -> np.ndarray:
    """Centroidal momentum ``h_G = [k_G; p]``: angular momentum about the centre of mass.

    World axes. Pinocchio's ``computeCentroidalMomentum`` is the same vector in its
    ``[linear; angular]`` order.

    Takes ``q`` (..., nq) and ``v`` (..., nv); returns an array of shape (..., 6).
    """
    return _loop_qv(model, q, v, lambda a, b: _centroidal_one(model, a, b), (6,))


@batched
def com_velocity(model: Model, q, v) -> np.ndarray:
    """Velocity of the centre of mass, ``p / m`` (linear momentum over total mass).

    Equal to ``J_c v``: computed so, in the compiled core, by
    :func:`robodyn.kinematics.com_velocity` (one state or a batch in one call).

    Takes ``q`` (..., nq) and ``v`` (..., nv); returns an array of shape (..., 3).
    """
    return _compiled_com_velocity(model, q, v)


def _momentum_matrix_one(model: Model, q: np.ndarray, about: str) -> np.ndarray:
    tree = _tree(model)
    w = _world(model, tree, q)
    # column of dof a: Ic_b(a) S_a (the subtree of b(a) moves with twist S_a per unit v_a)
    A = np.einsum("aij,aj->ia", w.Ic[tree.dof_body], w.S) @ tree.E
    if about == "com":
        c = np.dot(model.body_mass, np.einsum("bij,bj->bi", w.R, model.body_com) + w.p)
        c = c / _total_mass(model)
        A[:3] -= _skew(c) @ A[3:]  # k_G = L_o - c x p
    return A


@batched
def momentum_matrix(model: Model, q, about: str = "origin") -> np.ndarray:
    """Momentum matrix ``A(q)`` with ``h = A v``; ``about="com"`` is the centroidal matrix.

    Rows ``[angular; linear]``, world axes. ``about="com"`` gives Orin and Goswami's
    centroidal momentum matrix A_G (Pinocchio's ``computeCentroidalMap``, rows swapped).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    about : {"origin", "com"}

    Returns
    -------
    numpy.ndarray, shape (..., 6, nv)
    """
    if about not in ("origin", "com"):
        raise ValueError(f"about must be 'origin' or 'com', got {about!r}")
    return _loop_q(model, q, lambda a: _momentum_matrix_one(model, a, about), (6, model.nv))
