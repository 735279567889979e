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

Batches (``q`` of shape (..., nq)) run a Python loop over the single-state numpy path.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import dynamics as _dyn
from .coriolis import _each
from .kernels.call import batched
from .kinematics import jacobian
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


def _cholesky(A: np.ndarray, what: str) -> np.ndarray:
    """Cholesky factor of a symmetric matrix, or a ValueError naming ``what``."""
    scale = float(np.max(np.abs(np.diag(A)))) if A.size else 0.0
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        L = None
    if L is None or not scale > 0 or np.min(np.diag(L)) ** 2 <= 1e-12 * scale:
        raise ValueError(f"{what} is singular or not positive definite")
    return L


def _chol_solve(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    # (L L^T)^-1 B; numpy's LU solve on the small triangular factors is cheaper than
    # scipy's checked triangular solve at these sizes
    return np.linalg.solve(L.T, np.linalg.solve(L, B))


class _Parts(NamedTuple):
    J: np.ndarray  # (k, nv)
    MinvJt: np.ndarray  # (nv, k)
    Lam: np.ndarray  # (k, k)


def _parts_one(model: Model, q: np.ndarray, frame, kind: str, rows) -> _Parts:
    J = jacobian(model, q, frame, kind)[rows]
    M = _dyn.mass_matrix(model, q)
    L = _cholesky(M, "the mass matrix M(q) (a joint drives a massless subtree?)")
    X = _chol_solve(L, J.T)  # M^-1 J^T
    Phi = J @ X  # J M^-1 J^T: inverse task-space inertia (MR eq. 8.88)
    Phi = 0.5 * (Phi + Phi.T)
    Lp = _cholesky(
        Phi,
        "J M^-1 J^T (the frame is at a kinematic singularity or the chosen rows of J are "
        "not independent)",
    )
    Lam = _chol_solve(Lp, np.eye(Phi.shape[0]))  # Lambda = (J M^-1 J^T)^-1
    return _Parts(J, X, 0.5 * (Lam + Lam.T))


def _loop(model, q, fn, shape):
    return _each(model, ("q",), (q,), fn, shape)


def _nrows(rows) -> int:
    return 6 if rows is _PARTS["full"] else (3 if isinstance(rows, slice) else len(rows))


# ============================================================================ public API
@batched
def task_space_inertia(model: Model, q, frame, kind: str = "body", part="full") -> np.ndarray:
    """Task-space inertia ``Lambda = (J M^-1 J^T)^-1`` of a frame (MR eq. 8.88).

    The apparent end-effector mass of course notes 000: ``Lambda = J^-T M J^-1`` when J
    is square and invertible.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
        A batch runs a Python loop.
    frame : str or int
        Operational frame.
    kind : {"body", "space", "world_aligned"}
        Jacobian kind (:func:`robodyn.jacobian`): Lambda maps accelerations to wrenches
        in those coordinates.
    part : {"full", "linear", "angular"} or sequence of int
        Rows of J: all six, ``v`` (3-5), ``omega`` (0-2), or explicit indices of
        ``[wx, wy, wz, vx, vy, vz]`` (e.g. ``(3, 4)`` for a planar arm).

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
    rows = _rows(part)
    k = _nrows(rows)
    return _loop(model, q, lambda x: _parts_one(model, x, frame, kind, rows).Lam, (k, k))


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
    model: Model, q, frame, kind: str = "body", part="linear"
) -> InertiaEllipsoid:
    """Principal apparent masses and directions of :func:`task_space_inertia`.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    frame : str or int
    kind : {"body", "space", "world_aligned"}
    part : {"full", "linear", "angular"} or sequence of int

    Returns
    -------
    InertiaEllipsoid
        ``masses`` (..., k), largest first, and ``axes`` (..., k, k) (columns).
    """
    Lam = task_space_inertia(model, q, frame, kind, part)  # q checked there
    w, U = np.linalg.eigh(Lam)  # ascending: reversed, largest first
    return InertiaEllipsoid(w[..., ::-1].copy(), U[..., :, ::-1].copy())


@batched
def dynamically_consistent_pinv(
    model: Model, q, frame, kind: str = "body", part="full"
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
    rows = _rows(part)
    k = _nrows(rows)

    def one(x):
        p = _parts_one(model, x, frame, kind, rows)
        return p.MinvJt @ p.Lam

    return _loop(model, q, one, (model.nv, k))
