"""Task-space (operational-space) dynamics: the apparent end-effector inertia.

For a frame with Jacobian J (rows picked by ``part``), the task-space inertia is (Khatib's
operational-space inertia; MR eq. 8.88; course notes 000)::

    Lambda(q) = (J M^-1 J^T)^-1,

which for a square invertible J is ``J^-T M J^-1``: ``1/2 V^T Lambda V`` is the kinetic
energy when the end-effector moves with twist V. A unit-acceleration sphere maps through
Lambda to an ellipsoid of end-effector forces, whose principal semi-axes are the
eigenvalues of Lambda (the apparent masses) along its eigenvectors.

The dynamically consistent generalised inverse ``Jbar = M^-1 J^T Lambda`` is the
M-weighted right inverse of J (``J Jbar = 1``); the null-space projector
``N = 1 - Jbar J`` leaves the task acceleration untouched.

Both run in the compiled core (``kernels/core/minv.c``): M by CRBA and its Cholesky
factor, ``X = M^-1 J^T`` by triangular solves, the Cholesky factor of ``J X``, then
``Lambda`` and ``Jbar = X Lambda``; one state or a batch (``q`` of shape (..., nq)) in
one call.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .kernels import core as _core
from .kernels._pack import FL_CHECK, KIND_BODY
from .kernels.call import batched, compute, into, into_fields
from .kinematics.forward import JACOBIAN_KINDS, _frame_index, _kind, _packed
from .model.model import Model

__all__ = [
    "task_space_inertia",
    "task_space_ellipsoid",
    "InertiaEllipsoid",
    "dynamically_consistent_pinv",
]

_PARTS = {"full": slice(0, 6), "angular": slice(0, 3), "linear": slice(3, 6)}


def _rows(part):
    if isinstance(part, str):
        if part not in _PARTS:
            raise ValueError(
                "part must be 'full', 'linear', 'angular' or a sequence of row indices, "
                f"got {part!r}"
            )
        return _PARTS[part]
    idx = np.asarray(part)
    if (
        idx.ndim != 1
        or idx.size == 0
        or idx.dtype.kind not in "iu"
        or np.any(idx < 0)
        or np.any(idx > 5)
        or len(set(idx.tolist())) != idx.size
    ):
        raise ValueError(f"part as rows must be distinct indices in 0..5, got {part!r}")
    return idx


def _task_space(model: Model, q, frame, kind: str, rows, jbar: int, out=None) -> np.ndarray:
    """Lambda (..., k, k) (``jbar=0``) or Jbar (..., nv, k) (``jbar=1``) from the compiled
    core (``minv.c``: the Cholesky factor of M, then of J M^-1 J^T; one state or a batch),
    the rows of J in the order ``rows`` names them."""
    pack = _packed(model)
    f, code = _frame_index(model, pack, frame), _kind(kind)
    idx = list(range(6))[rows] if isinstance(rows, slice) else [int(r) for r in rows]
    mask = sum(1 << r for r in idx)
    entry = _core.task_jbar if jbar else _core.task_lambda
    if idx == [0, 1, 2, 3, 4, 5] and out is not None:  # the core's result is the answer
        return compute(entry, model, ("q",), (q,), f, code, mask, 0, out=out)
    r = compute(entry, model, ("q",), (q,), f, code, mask, 0)
    r = _rows_of(r, idx, jbar)
    return r if out is None else into(out, r)


def _rows_of(out: np.ndarray, idx: list, jbar: int) -> np.ndarray:
    """The k x k block of Lambda (n x k of Jbar) the core packs first, its rows and
    columns in the order ``idx`` names them."""
    k, n = len(idx), out.shape[-2]  # n: 6 for Lambda, nv for Jbar
    if k < 6:  # the core packs the k x k (n x k) block first
        lead = out.shape[:-2]
        flat = out.reshape((*lead, 6 * n))
        out = flat[..., : n * k].reshape((*lead, n, k))
        if not jbar:
            out = out[..., :k, :]
    if idx != sorted(idx):  # the core keeps the rows in ascending order
        p = np.argsort(np.argsort(idx))
        out = out[..., :, p] if jbar else out[..., p, :][..., :, p]
    return out


# ============================================================================ public API
@batched(fast=("task_lambda", 1, FL_CHECK, JACOBIAN_KINDS, KIND_BODY))
def task_space_inertia(
    model: Model, q, frame, kind: str = "body", part="full", *, out=None
) -> np.ndarray:
    """Task-space inertia ``Lambda = (J M^-1 J^T)^-1`` of a frame (MR eq. 8.88).

    The apparent end-effector mass of course notes 000: ``Lambda = J^-T M J^-1`` when J
    is square and invertible.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
        One state or a batch (J and M from the compiled core, the factorisations over the
        whole batch at once).
    frame : str or int
        Operational frame.
    kind : {"body", "space", "world_aligned"}
        Jacobian kind (:func:`robodyn.jacobian`): Lambda maps accelerations to wrenches
        in those coordinates.
    part : {"full", "linear", "angular"} or sequence of int
        Rows of J: all six, ``v`` (3-5), ``omega`` (0-2), or explicit indices of
        ``[wx, wy, wz, vx, vy, vz]`` (e.g. ``(3, 4)`` for a planar arm).
    out : numpy.ndarray, optional
        The array to write the result into (as :func:`robodyn.inverse_dynamics`'s; the
        core writes there for all six rows, other rows are computed, then copied).

    Returns
    -------
    numpy.ndarray, shape (..., k, k)
        k = number of rows kept.

    Raises
    ------
    ValueError
        Bad shapes, M singular, or ``J M^-1 J^T`` singular (kinematic singularity, or
        more rows than the robot has dofs).
    """
    return _task_space(model, q, frame, kind, _rows(part), 0, out)


class InertiaEllipsoid(NamedTuple):
    """Principal axes of the task-space inertia (the end-effector force ellipsoid).

    Attributes
    ----------
    masses : numpy.ndarray, shape (..., k)
        Eigenvalues of Lambda (apparent masses, or inertias for angular rows), largest
        first: a unit acceleration along ``axes[..., :, i]`` needs a force ``masses[..., i]``.
    axes : numpy.ndarray, shape (..., k, k)
        Unit principal directions as columns, in the Jacobian kind's coordinates.
    """

    masses: np.ndarray
    axes: np.ndarray


def task_space_ellipsoid(
    model: Model, q, frame, kind: str = "body", part="linear", *, out=None
) -> InertiaEllipsoid:
    """Principal apparent masses and directions of :func:`task_space_inertia`.

    Takes the arguments of :func:`task_space_inertia` (``part`` defaults to the linear
    rows here) and ``out``, a tuple of two arrays to write the result into in the order of
    the fields, ``(masses, axes)`` (computed, then copied); returns an
    :class:`InertiaEllipsoid`: ``masses`` (..., k), largest first, and ``axes``
    (..., k, k) (columns).
    """
    Lam = task_space_inertia(model, q, frame, kind, part)  # q checked there
    w, U = np.linalg.eigh(Lam)  # ascending: reversed, largest first
    r = InertiaEllipsoid(w[..., ::-1].copy(), U[..., :, ::-1].copy())
    return r if out is None else into_fields(out, r)


@batched(fast=("task_jbar", 1, FL_CHECK, JACOBIAN_KINDS, KIND_BODY))
def dynamically_consistent_pinv(
    model: Model, q, frame, kind: str = "body", part="full", *, out=None
) -> np.ndarray:
    """Dynamically consistent generalised inverse ``Jbar = M^-1 J^T Lambda`` (Khatib).

    ``J Jbar = 1``; ``Jbar`` minimises the kinetic energy ``v^T M v`` among the joint
    velocities that produce a given task twist; ``1 - Jbar J`` is the dynamically
    consistent null-space projector.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    frame : str or int
    kind : {"body", "space", "world_aligned"}
    part : {"full", "linear", "angular"} or sequence of int

    Returns
    -------
    numpy.ndarray, shape (..., nv, k)
    """
    return _task_space(model, q, frame, kind, _rows(part), 1, out)  # Jbar = M^-1 J^T Lambda
