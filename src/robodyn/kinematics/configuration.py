"""``q (+) v dt`` and ``q1 (-) q0`` in the compiled core: :func:`robodyn.integrate` and
:func:`robodyn.difference`.

The group operations of each joint's manifold (MR ch. 2-3) as
:mod:`robodyn.model.configuration` defines them (its module docstring has the formulas and
conventions: quaternions ``(w, x, y, z)``, a free joint's ``v = [omega_b, v_b]`` its body
twist and ``T_new = T exp6([V_b] dt)``, a spherical joint's ``R_new = R exp3(omega_b dt)``,
a planar joint's ``(phi, x, y)`` moved on SE(2)), computed by ``kernels/core/cspace.c``
for one state or a batch with any leading dimensions, without a Python loop.

Two implementations exist on purpose: the model layer (``robodyn.model``, below the core)
keeps its numpy one, :func:`robodyn.model.integrate` and :func:`robodyn.model.difference`
(public names of ``robodyn.model``, which may not import the compiled core); these are the
public ``robodyn.integrate`` and ``robodyn.difference``. The two agree to the last bit or
two (the same formulas, branches and Taylor thresholds; tests/test_cspace_core.py holds
them within a few ulp).
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels import core as _core
from ..kernels._pack import FL_CHECK, packed
from ..kernels.call import batched, compute, describe, into, run
from ..kernels.call import threads as _threads
from ..model.model import Model

__all__ = ["integrate", "difference"]


def _model(model) -> Model:
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    return model


def _th(threads) -> int:
    return 0 if threads is None else _threads(threads)


def _step(dt):
    """dt as the core takes it: a float, or for an array of steps the array (float64)."""
    if dt.__class__ is float or dt.__class__ is int:
        if abs(dt) >= 2.0**1023 or not math.isfinite(dt):  # an int beyond float's range too
            raise ValueError(f"dt must be finite, got {dt!r:.40}")
        return float(dt)
    try:
        if dt is None:
            raise TypeError
        d = np.asarray(dt, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"dt must be a number or an array of shape (...), got {type(dt).__name__}"
        ) from None
    if not np.all(np.isfinite(d)):
        raise ValueError("dt must be finite")
    return float(d) if d.ndim == 0 else d


@batched(fast=("integrate", 2, FL_CHECK))
def integrate(
    model: Model, q, v, dt=1.0, *, check: bool = True, threads: int | None = None, out=None
) -> np.ndarray:
    """``q (+) v dt``: move along the constant velocity v for a time dt.

    1-dof joints (and the helical, cylindrical and universal joints' coordinates):
    ``q + v dt``. Free joint: ``T_new = T exp6(V_b dt)`` (exact on SE(3)), i.e.
    ``p_new = p + R G(omega dt) v dt`` and ``quat_new = quat * exp(omega dt / 2)``;
    spherical: ``quat_new = quat * exp(omega dt / 2)``; planar: exact on SE(2) (see
    :mod:`robodyn.model.configuration`). Quaternions are normalised before and after.
    Equals Pinocchio's ``integrate`` (with its orders: ``q = [x, y, z, qx, qy, qz, qw]``,
    ``v = [v_b, omega_b]``).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    dt : float or array_like, shape (...)
        The time step; an array gives each state its own (broadcast with the batch).
    check : bool
        True (default): NaN or inf in q or v, a zero quaternion, or a result that
        overflows raises ValueError naming the argument and the state. False: no checks,
        NaN and inf pass through as numpy's arithmetic passes them (for a loop that
        checks its own numbers, as the simulators and IK do).
    threads : int, optional
        For a batch (default every core).
    out : numpy.ndarray, optional
        The array to write the result into (float64, the result's shape), returned.

    Returns
    -------
    numpy.ndarray, shape (..., nq)

    Raises
    ------
    ValueError
        A shape that is not the state's, NaN or inf in q, v or dt (naming it and the
        state), a zero quaternion in q.
    """
    m, th = _model(model), _th(threads)
    step, flags = _step(dt), FL_CHECK if check else 0
    if step.__class__ is float:
        return compute(_core.integrate, m, ("q", "v"), (q, v), step, flags, th, out=out)
    # one step per state: v dt first (as the numpy reference does), then a unit step
    vv = np.asarray(v, dtype=float)
    if vv.ndim < 1 or vv.shape[-1] != m.nv:
        raise ValueError(f"v must have shape (..., {m.nv}), got {describe(v)}")
    vdt = vv * step[..., None]
    return compute(_core.integrate, m, ("q", "v"), (q, vdt), 1.0, flags, th, out=out)


@batched(fast=("difference", 2, FL_CHECK))
def difference(
    model: Model, q0, q1, *, check: bool = True, threads: int | None = None, out=None
) -> np.ndarray:
    """``q1 (-) q0``: the velocity v such that ``integrate(model, q0, v, 1) == q1``.

    1-dof joints: ``q1 - q0``. Free joint: ``V_b = log6(T0^-1 T1)`` (MR alg. 3.3.3.2), the
    body twist carrying T0 to T1 in unit time (rotation angle in [0, pi]); spherical:
    ``omega_b = log3(R0^T R1)``; planar: ``omega = phi1 - phi0`` (never wrapped) and
    ``v = G2(omega)^-1 R(phi0)^T (p1 - p0)``. Equals Pinocchio's ``difference`` for the
    joints whose angle Pinocchio does not wrap.

    Parameters
    ----------
    model : Model
    q0, q1 : array_like, shape (..., nq)
    check, threads, out
        As in :func:`integrate`.

    Returns
    -------
    numpy.ndarray, shape (..., nv)

    Raises
    ------
    ValueError
        A shape that is not the state's, NaN or inf, or a zero quaternion in q0 or q1
        (naming it and the state).
    """
    m, th, flags = _model(model), _th(threads), FL_CHECK if check else 0
    P = (m._rd_packed or packed(m)).P
    r = _core.difference(P, q0, q1, flags, th, *(() if out is None else (out,)))
    if r.__class__ is np.ndarray:
        return r
    tails = ((m.nq,), (m.nq,))
    r = run(lambda x: _core.difference(P, *x, flags, th), ("q0", "q1"), (q0, q1), tails, m)
    return r if out is None else into(out, r)
