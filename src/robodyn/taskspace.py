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
from .kernels.call import LazyInput, batched
from .kernels.lazy import is_dask
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
    """Cholesky factors of one symmetric matrix or a batch (..., n, n), or a ValueError
    naming ``what`` (and, in a batch, the first state that is singular)."""
    scale = np.max(np.abs(np.diagonal(A, axis1=-2, axis2=-1)), axis=-1, initial=0.0)
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        L = None
    bad = ~(scale > 0)
    if L is not None:
        d = np.diagonal(L, axis1=-2, axis2=-1)
        bad = bad | (np.min(d, axis=-1, initial=np.inf) ** 2 <= 1e-12 * scale)
    if L is None or np.any(bad):
        where = ""
        if A.ndim > 2:  # name the first singular state of the batch
            first = next(i for i in np.ndindex(A.shape[:-2]) if _singular(A[i]))
            where = f" at state {list(first)}"
        raise ValueError(f"{what} is singular or not positive definite{where}")
    return L


def _singular(A: np.ndarray) -> bool:
    """One matrix of a batch whose factor failed: is this the one?"""
    try:
        _cholesky(A, "")
    except ValueError:
        return True
    return False


def _chol_solve(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    # (L L^T)^-1 B for one factor or a batch; numpy's LU solve on the small triangular
    # factors is cheaper than scipy's checked triangular solve at these sizes
    return np.linalg.solve(np.swapaxes(L, -1, -2), np.linalg.solve(L, B))


class _Parts(NamedTuple):
    J: np.ndarray  # (..., k, nv)
    MinvJt: np.ndarray  # (..., nv, k)
    Lam: np.ndarray  # (..., k, k)


def _parts(model: Model, q, frame, kind: str, rows) -> _Parts:
    """J, M^-1 J^T and Lambda at one state or a batch: J and M from the compiled core (q
    checked there), then the Cholesky factors and solves over the whole batch at once."""
    if is_dask(q):  # the public function is mapped over the chunks (robodyn.kernels.lazy)
        raise LazyInput("q")
    J = jacobian(model, q, frame, kind)[..., rows, :]
    M = _dyn.mass_matrix(model, q)
    L = _cholesky(M, "the mass matrix M(q) (a joint drives a massless subtree?)")
    X = _chol_solve(L, np.swapaxes(J, -1, -2))  # M^-1 J^T
    Phi = J @ X  # J M^-1 J^T: inverse task-space inertia (MR eq. 8.88)
    Phi = 0.5 * (Phi + np.swapaxes(Phi, -1, -2))
    Lp = _cholesky(
        Phi,
        "J M^-1 J^T (the frame is at a kinematic singularity or the chosen rows of J are "
        "not independent)",
    )
    Lam = _chol_solve(Lp, np.broadcast_to(np.eye(Phi.shape[-1]), Phi.shape))  # (J M^-1 J^T)^-1
    return _Parts(J, X, 0.5 * (Lam + np.swapaxes(Lam, -1, -2)))


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
    return _parts(model, q, frame, kind, _rows(part)).Lam


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

    Takes the arguments of :func:`task_space_inertia` (``part`` defaults to the linear
    rows here); returns an :class:`InertiaEllipsoid`: ``masses`` (..., k), largest first,
    and ``axes`` (..., k, k) (columns).
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
    p = _parts(model, q, frame, kind, _rows(part))
    return p.MinvJt @ p.Lam  # Jbar = M^-1 J^T Lambda
