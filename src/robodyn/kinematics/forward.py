"""Kinematics of a :class:`~robodyn.model.model.Model` (Modern Robotics ch. 4-6).

Forward kinematics, Jacobians and their time derivative, frame velocities and
accelerations, centre of mass, manipulability and the velocity/force ellipsoids, and
numerical inverse kinematics.

Conventions (the book's):

* a pose is the 4x4 transform ``T_sf`` of a frame {f} in the world {s} (MR eq. 3.62);
* twists and Jacobian rows are ``[omega; v]``. Three kinds of Jacobian ``J`` (6, nv):

  ``"space"``
      MR's space Jacobian ``J_s``: ``V_s = J_s v`` is the twist of the frame in world
      coordinates (``v_s`` is the velocity of the body point at the world origin).
      Pinocchio's ``WORLD``.
  ``"body"``
      MR's body Jacobian ``J_b = [Ad_{T_sf^-1}] J_s``: ``V_b = J_b v`` in frame
      coordinates. Pinocchio's ``LOCAL``.
  ``"world_aligned"``
      ``[omega_world; pdot]``: angular velocity in world axes and the velocity of the
      frame origin in world axes. Pinocchio's ``LOCAL_WORLD_ALIGNED``.

* a floating base's six velocity coordinates are its body twist ``[omega_b, v_b]``, so
  its Jacobian columns are ``[Ad_{T_s,base}]`` in the space kind;
* a mimic joint owns no coordinate: its screw axis, times its multiplier, adds to its
  leader's column.

The work is done by robodyn's compiled core (``kernels/core/kinematics.c``) on the model
packed once; the functions here take one state or any number of leading batch dimensions
(``q`` of shape (..., nq)) and name the argument when a shape is wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._checks import as_array, as_vector
from ..errors import ModelError
from ..kernels import call as _pieces
from ..kernels import core as _core
from ..kernels._pack import FL_CHECK, KIND_BODY, KIND_SPACE, KIND_WORLD_ALIGNED, packed
from ..kernels.call import batched, finish, nonfinite, run
from ..kernels.call import threads as _threads
from ..model.model import JOINT_FREE, JOINT_SPHERICAL, Model
from ..spatial import check_transform

__all__ = [
    "fk",
    "forward_kinematics",
    "body_poses",
    "jacobian",
    "jacobian_dot",
    "frame_velocity",
    "frame_acceleration",
    "com",
    "com_jacobian",
    "com_velocity",
    "manipulability",
    "velocity_ellipsoid",
    "force_ellipsoid",
    "Ellipsoid",
    "ik",
    "IKResult",
    "JACOBIAN_KINDS",
]

#: Accepted ``kind`` names and their aliases (Pinocchio's reference-frame names).
JACOBIAN_KINDS: dict[str, int] = {
    "space": KIND_SPACE,
    "world": KIND_SPACE,
    "spatial": KIND_SPACE,
    "body": KIND_BODY,
    "local": KIND_BODY,
    "world_aligned": KIND_WORLD_ALIGNED,
    "local_world_aligned": KIND_WORLD_ALIGNED,
}

_ND = np.ndarray
_FRAME_POSE, _FRAME_POSES, _JACOBIAN = _core.frame_pose, _core.frame_poses, _core.jacobian
_JDOT, _COM_JACOBIAN = _core.jacobian_dot, _core.com_jacobian


class _Pack(NamedTuple):
    P: np.ndarray  # the packed model (robodyn.kernels._pack)
    frames: dict  # frame name -> index
    nq: int
    nv: int
    nb: int
    nf: int
    has_mass: bool


def _packed(model: Model) -> _Pack:
    """The packed model and the frame names, built once and cached on the immutable model."""
    try:
        return model._kinematics_pack
    except AttributeError:
        pass
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    frames = {name: k for k, name in reversed(list(enumerate(model.frame_names)))}
    pack = _Pack(
        packed(model).P, frames, model.nq, model.nv, model.nb, model.nf, model.total_mass > 0
    )
    object.__setattr__(model, "_kinematics_pack", pack)
    return pack


def _call(model, entry, names, xs, tails, *rest):
    """``entry(P, *xs, *rest)`` for one state or any leading batch dimensions: the fast
    path with the user's arrays, else :func:`robodyn.kernels.call.run` (converted, in
    pieces for a large batch)."""
    P = _packed(model).P
    out = entry(P, *xs, *rest)
    if out.__class__ is _ND:
        return out
    return run(lambda arrs: entry(P, *arrs, *rest), names, xs, tails, model)


def _vector(x, name: str, n: int) -> np.ndarray:
    return as_vector(x, name, n)


def _frame_index(model: Model, pack: _Pack, frame) -> int:
    """Index of ``frame`` given by name or index (ModelError listing the names)."""
    if type(frame) is str:
        k = pack.frames.get(frame)
        if k is None:
            raise ModelError(
                f"no frame named {frame!r} in model {model.name!r}; frames: "
                + ", ".join(model.frame_names)
            )
        return k
    if isinstance(frame, (int, np.integer)) and not isinstance(frame, bool):
        k = int(frame)
        if not 0 <= k < model.nf:
            raise ModelError(
                f"frame index {k} out of range 0..{model.nf - 1}; frames: "
                + ", ".join(model.frame_names)
            )
        return k
    raise ValueError(f"frame must be a frame name (str) or index (int), got {frame!r}")


def _kind(kind) -> int:
    try:
        return JACOBIAN_KINDS[kind]
    except (KeyError, TypeError):
        raise ValueError(
            f"kind must be one of {', '.join(repr(k) for k in JACOBIAN_KINDS)}, got {kind!r}"
        ) from None


# ------------------------------------------------------------------------- poses
@batched(fast=("fk", 1, FL_CHECK))
def fk(model: Model, q, frame=None, *, threads: int | None = None) -> np.ndarray:
    """Forward kinematics: the pose ``T_sf`` of an operational frame in the world.

    Each joint composes ``T_{parent,i}(q) = T(jnt_R, jnt_p) X_J(q_i)`` from the world out
    (MR sec. 4.1); a frame adds its fixed placement in its body.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
        Configuration(s); any leading dimensions are a batch.
    frame : str or int, optional
        Frame name or index (``model.frame_names``). None: every frame.
    threads : int, optional
        Threads for a batch (default: ``ROBODYN_NUM_THREADS``, else every core).

    Returns
    -------
    numpy.ndarray
        ``(..., 4, 4)`` for one frame, ``(..., nf, 4, 4)`` for all frames.

    Raises
    ------
    ValueError
        q of the wrong shape, or not finite, or a zero floating-base quaternion.
    ModelError
        Unknown frame (the message lists the frame names).

    Examples
    --------
    The 2R arm of course notes 003 (links of 0.5 m and 0.4 m) with its elbow at 90 degrees:
    the tip is at (L1, L2) and its frame is turned by 90 degrees about z.

    >>> import numpy as np
    >>> import robodyn as rd
    >>> arm = rd.models.load("planar_2r")
    >>> print(rd.fk(arm, [0.0, np.pi / 2], "ee").round(6) + 0.0)
    [[ 0.  -1.   0.   0.5]
     [ 1.   0.   0.   0.4]
     [ 0.   0.   1.   0. ]
     [ 0.   0.   0.   1. ]]
    """
    # the common call (a frame by name on the cached pack) was answered by the entry
    pack = _packed(model)
    th = 0 if threads is None else _threads(threads)
    if frame is None:
        T = _FRAME_POSES(pack.P, q, th)
        if T.__class__ is _ND:
            return T
        return _call(model, _FRAME_POSES, ("q",), (q,), ((pack.nq,),), th)
    k = pack.frames.get(frame) if type(frame) is str else None
    if k is None:
        k = _frame_index(model, pack, frame)
    T = _FRAME_POSE(pack.P, q, k, th)
    if T.__class__ is _ND:
        return T
    return _call(model, _FRAME_POSE, ("q",), (q,), ((pack.nq,),), k, th)


forward_kinematics = fk


@batched
def body_poses(model: Model, q, *, threads: int | None = None) -> np.ndarray:
    """Poses ``T_s,i`` of every body (the world, body 0, is the identity).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., nb, 4, 4)
    """
    th = 0 if threads is None else _threads(threads)
    return _call(model, _core.body_poses, ("q",), (q,), ((model.nq,),), th)


# --------------------------------------------------------------------- Jacobians
@batched(fast=("jacobian", 1, FL_CHECK, JACOBIAN_KINDS, KIND_SPACE))
def jacobian(
    model: Model, q, frame, kind: str = "space", *, threads: int | None = None
) -> np.ndarray:
    """Jacobian of an operational frame, rows ``[omega; v]``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    frame : str or int
        Frame name or index.
    kind : {"space", "body", "world_aligned"}
        ``"space"``: MR's ``J_s`` (MR eq. 5.11), ``V_s = J_s v``. ``"body"``: MR's ``J_b``
        (MR eq. 5.18), ``V_b = J_b v`` in the frame's coordinates. ``"world_aligned"``:
        ``[omega; pdot]`` in world axes, ``pdot`` the velocity of the frame origin.
        Pinocchio's names ``"world"``, ``"local"``, ``"local_world_aligned"`` are accepted.
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., 6, nv)
        Columns of a floating base map its body twist ``[omega_b, v_b]``.

    Examples
    --------
    The outstretched 2R arm (links of 0.5 m and 0.4 m along x, joints about z): each
    joint turns the tip about z, and its velocity is ``z x p`` for the tip at distance
    0.9 m and 0.4 m from the joints, so the rows ``[omega; v]`` are:

    >>> import robodyn as rd
    >>> arm = rd.models.load("planar_2r")
    >>> print(rd.jacobian(arm, [0.0, 0.0], "ee", kind="world_aligned"))
    [[0.  0. ]
     [0.  0. ]
     [1.  1. ]
     [0.  0. ]
     [0.9 0.4]
     [0.  0. ]]
    """
    # the common call (a frame by name on the cached pack) was answered by the entry
    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    kd = _kind(kind)
    th = 0 if threads is None else _threads(threads)
    J = _JACOBIAN(pack.P, q, k, kd, th)
    if J.__class__ is _ND:
        return J
    return _call(model, _JACOBIAN, ("q",), (q,), ((pack.nq,),), k, kd, th)


def _jdot(model, q, v, frame, kind, threads, part):
    """dJ/dt (``part="dJ"``) or the twist V (``"V"``) of a frame, with the leading
    dimensions of (q, v): a part of the core's (J, dJ/dt, V) of each state, so a large
    batch goes in pieces (the rest of the core's result is made for a piece at a time)."""
    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    kd = _kind(kind)
    th = 0 if threads is None else _threads(threads)
    nv = pack.nv
    lo, hi, tail = (6 * nv, 12 * nv, (6, nv)) if part == "dJ" else (12 * nv, 12 * nv + 6, (6,))

    def call(arrs):  # the whole batch, or a piece of it
        r = _JDOT(pack.P, *arrs, k, kd, th)
        return r[..., lo:hi].reshape((*r.shape[:-1], *tail)) if r.__class__ is _ND else r

    if not (q.__class__ is _ND and q.ndim > 1 and q.shape[0] > _pieces.PIECE_STATES):
        r = call((q, v))  # the fast path with the user's arrays (a large batch: in pieces)
        if r.__class__ is _ND:
            return r
    return run(call, ("q", "v"), (q, v), ((pack.nq,), (nv,)), model, scratch=8 * (12 * nv + 6))


@batched
def jacobian_dot(
    model: Model, q, v, frame, kind: str = "space", *, threads: int | None = None
) -> np.ndarray:
    """Time derivative ``dJ/dt`` of :func:`jacobian` along the motion with velocity v.

    Space: ``d S_i/dt = [ad_{V_i}] S_i`` for each screw axis, ``V_i`` the space twist of
    the body the joint moves (MR eq. 8.2's bracket). Body: ``dJ_b/dt = -[ad_{V_b}] J_b +
    [Ad_{T_sf^-1}] dJ_s/dt``. World aligned: the linear rows are the derivative of
    ``v + omega x p``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    frame : str or int
    kind : {"space", "body", "world_aligned"}
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., 6, nv)
    """
    return _jdot(model, q, v, frame, kind, threads, "dJ")


@batched
def frame_velocity(
    model: Model, q, v, frame, kind: str = "space", *, threads: int | None = None
) -> np.ndarray:
    """Twist ``J v`` of a frame, ``[omega; v]`` in the coordinates of ``kind``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    frame : str or int
    kind : {"space", "body", "world_aligned"}
        ``"space"``: ``V_s``; ``"body"``: ``V_b``; ``"world_aligned"``: angular velocity
        and velocity of the frame origin, world axes.
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., 6)
    """
    return _jdot(model, q, v, frame, kind, threads, "V")


@batched
def frame_acceleration(
    model: Model, q, v, a, frame, kind: str = "space", *, threads: int | None = None
) -> np.ndarray:
    """``J a + (dJ/dt) v``: the time derivative of :func:`frame_velocity`.

    It is the derivative of the twist's coordinates in the chosen kind: for ``"space"``
    ``dV_s/dt``, for ``"body"`` ``dV_b/dt``, and for ``"world_aligned"``
    ``[d omega/dt; pddot]`` whose linear part is the classical (second time derivative)
    acceleration of the frame origin. (The classical acceleration is not the linear part
    of ``dV_s/dt`` or ``dV_b/dt``: those miss the ``omega x v`` term.)

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v, a : array_like, shape (..., nv)
    frame : str or int
    kind : {"space", "body", "world_aligned"}
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., 6)
    """
    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    kd = _kind(kind)
    th = 0 if threads is None else _threads(threads)
    nv = pack.nv

    def call(arrs):  # the whole batch, or a piece of it (a is checked here, q, v by the core)
        Q, V, A = arrs
        r = _JDOT(pack.P, Q, V, k, kd, th)
        if r.__class__ is not _ND:
            return r
        bad = nonfinite("a", A, 1)
        if bad is not None:
            return bad
        J = r[..., : 6 * nv].reshape((*r.shape[:-1], 6, nv))
        dJ = r[..., 6 * nv : 12 * nv].reshape((*r.shape[:-1], 6, nv))
        return np.einsum("...ij,...j->...i", J, A) + np.einsum("...ij,...j->...i", dJ, V)

    tails = ((pack.nq,), (nv,), (nv,))
    return run(call, ("q", "v", "a"), (q, v, a), tails, model, scratch=8 * (12 * nv + 18))


# --------------------------------------------------------------- centre of mass
def _mass_check(model: Model, pack: _Pack) -> None:
    if not pack.has_mass:
        raise ModelError(f"model {model.name!r} has no mass: the centre of mass is undefined")


@batched
def com(model: Model, q, *, threads: int | None = None) -> np.ndarray:
    """Centre of mass of the whole model in the world, ``sum_i m_i c_i / sum_i m_i``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    pack = _packed(model)
    _mass_check(model, pack)
    th = 0 if threads is None else _threads(threads)
    return _call(model, _core.com, ("q",), (q,), ((pack.nq,),), th)


def _com_jacobian(model, q, threads):
    pack = _packed(model)
    _mass_check(model, pack)
    th = 0 if threads is None else _threads(threads)
    out = _call(model, _COM_JACOBIAN, ("q",), (q,), ((pack.nq,),), th)
    return out[..., :3], out[..., 3:].reshape((*out.shape[:-1], 3, pack.nv))


@batched
def com_jacobian(model: Model, q, *, threads: int | None = None) -> np.ndarray:
    """Jacobian of the centre of mass: ``cdot = J_c v``, world axes.

    A joint moves its whole subtree: each space column ``[w; u]`` of joint i adds
    ``(M_i u + w x h_i) / M``, with ``M_i`` the subtree's mass and ``h_i`` the sum of
    ``m_j c_j`` over it.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., 3, nv)
    """
    return _com_jacobian(model, q, threads)[1]


@batched
def com_velocity(model: Model, q, v, *, threads: int | None = None) -> np.ndarray:
    """Velocity of the centre of mass in the world, ``J_c v``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    threads : int, optional
        Threads for a batch.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    pack = _packed(model)
    _mass_check(model, pack)
    th = 0 if threads is None else _threads(threads)
    nv = pack.nv

    def call(arrs):  # the whole batch, or a piece of it (v is checked here, q by the core)
        Q, V = arrs
        r = _COM_JACOBIAN(pack.P, Q, th)
        if r.__class__ is not _ND:
            return r
        bad = nonfinite("v", V, 1)
        if bad is not None:
            return bad
        Jc = r[..., 3:].reshape((*r.shape[:-1], 3, nv))
        return np.einsum("...ij,...j->...i", Jc, V)

    tails = ((pack.nq,), (nv,))
    return run(call, ("q", "v"), (q, v), tails, model, scratch=8 * (3 + 3 * nv + 3))


# ------------------------------------------------------------------ manipulability
_PARTS = {"full": slice(0, 6), "angular": slice(0, 3), "linear": slice(3, 6)}


def _rows(J: np.ndarray, part) -> np.ndarray:
    if isinstance(part, str):
        if part not in _PARTS:
            raise ValueError(
                f"part must be 'full', 'linear', 'angular' or a sequence of row indices, "
                f"got {part!r}"
            )
        return J[_PARTS[part]]
    idx = np.asarray(part)
    if (
        idx.ndim != 1
        or idx.size == 0
        or idx.dtype.kind not in "iu"
        or np.any(idx < 0)
        or np.any(idx > 5)
    ):
        raise ValueError(f"part as rows must be a sequence of indices in 0..5, got {part!r}")
    return J[idx]


def manipulability(model: Model, q, frame, kind: str = "body", part="full") -> float:
    """Yoshikawa's manipulability ``w = sqrt(det(J J^T))`` (MR sec. 5.4).

    ``w`` is the volume factor of the velocity ellipsoid, the product of the singular
    values of J (computed so, which is accurate near singularities); it is zero at
    singularities and whenever the kept rows outnumber the joints.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    frame : str or int
    kind : {"body", "space", "world_aligned"}
    part : {"full", "linear", "angular"} or sequence of int
        Rows of J kept: all six, ``v`` (rows 3-5), ``omega`` (rows 0-2), or explicit row
        indices of ``[wx, wy, wz, vx, vy, vz]`` (e.g. ``(3, 4)`` for a planar arm in the
        xy plane).

    Returns
    -------
    float
    """
    Jp = _rows(jacobian(model, _vector(q, "q", model.nq), frame, kind), part)
    if Jp.shape[0] > Jp.shape[1]:
        return 0.0  # J J^T (m x m) has rank <= n < m
    # sqrt(det(J J^T)) = product of the singular values, computed without squaring J
    return float(np.prod(np.linalg.svd(Jp, compute_uv=False)))


class Ellipsoid(NamedTuple):
    """Principal semi-axes of a manipulability ellipsoid (MR sec. 5.4).

    Attributes
    ----------
    lengths : numpy.ndarray, shape (k,)
        Semi-axis lengths, largest first.
    axes : numpy.ndarray, shape (k, k)
        Unit directions of the semi-axes, as columns (``axes[:, i]`` goes with
        ``lengths[i]``), in the coordinates of the Jacobian kind.
    """

    lengths: np.ndarray
    axes: np.ndarray

    @property
    def isotropy(self) -> float:
        """``mu_1 = longest / shortest`` semi-axis (MR eq. 5.34 with sqrt(lambda)); inf when
        singular."""
        return float(self.lengths[0] / self.lengths[-1]) if self.lengths[-1] > 0 else np.inf

    @property
    def volume(self) -> float:
        """``mu_3``: the product of the semi-axis lengths (proportional to the volume)."""
        return float(np.prod(self.lengths))


def _ellipsoid_svd(model, q, frame, kind, part) -> tuple[np.ndarray, np.ndarray]:
    """Square roots of the eigenvalues of ``A = J J^T`` (MR eq. 5.30), largest first, and
    the eigenvectors as columns, from the SVD ``J = U S V^T`` (accurate near
    singularities: ``A = U S^2 U^T``)."""
    Jp = _rows(jacobian(model, _vector(q, "q", model.nq), frame, kind), part)
    U, S, _ = np.linalg.svd(Jp)
    sigma = np.zeros(Jp.shape[0])
    sigma[: S.size] = S
    return sigma, U


def velocity_ellipsoid(model: Model, q, frame, kind: str = "body", part="linear") -> Ellipsoid:
    """Velocity (manipulability) ellipsoid ``{J qdot : |qdot| = 1}`` (MR sec. 5.4).

    With ``A = J J^T`` and eigenpairs ``(lambda_i, v_i)``, the principal semi-axes are
    ``sqrt(lambda_i) v_i``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    frame : str or int
    kind : {"body", "space", "world_aligned"}
    part : {"linear", "angular", "full"} or sequence of int
        Rows of J kept (see :func:`manipulability`). The default separates the linear
        part, as MR recommends (angular and linear rates have different units).

    Returns
    -------
    Ellipsoid
        ``lengths`` (k,) largest first and ``axes`` (k, k) as columns.
    """
    sigma, U = _ellipsoid_svd(model, q, frame, kind, part)
    return Ellipsoid(sigma, U)


def force_ellipsoid(model: Model, q, frame, kind: str = "body", part="linear") -> Ellipsoid:
    """Force ellipsoid ``{F : |J^T F| = 1}``: semi-axes ``v_i / sqrt(lambda_i)`` with
    ``(lambda_i, v_i)`` the eigenpairs of ``A = J J^T`` (MR sec. 5.4, ``B = A^-1``).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    frame : str or int
    kind : {"body", "space", "world_aligned"}
    part : {"linear", "angular", "full"} or sequence of int

    Returns
    -------
    Ellipsoid
        ``lengths`` (k,) largest first (``inf`` along a singular direction) and ``axes``.
    """
    sigma, U = _ellipsoid_svd(model, q, frame, kind, part)
    lengths = np.full(sigma.shape, np.inf)
    np.divide(1.0, sigma, out=lengths, where=sigma > 0)
    return Ellipsoid(lengths[::-1].copy(), U[:, ::-1].copy())


# --------------------------------------------------------------- inverse kinematics
@dataclass(frozen=True)
class IKResult:
    """Outcome of :func:`ik`.

    Attributes
    ----------
    q : numpy.ndarray, shape (nq,) or, for a batch, (..., nq)
        The solution when ``success``, else the best iterate found.
    success : bool or numpy.ndarray of bool, shape (...)
        Both error norms are within their tolerances.
    iterations : int or numpy.ndarray of int, shape (...)
        Number of updates of q (summed over restarts).
    error : float or numpy.ndarray, shape (...)
        Norm of the final error (the body twist ``log6(T_sf^-1 T_target)``, its weighted
        rows kept, or the position error).
    message : str or numpy.ndarray of str (object), shape (...)
        Why it stopped.
    """

    q: np.ndarray
    success: bool
    iterations: int
    error: float
    message: str


class _Limits(NamedTuple):
    lo: np.ndarray  # (nq,) lower limits, -inf for the free joint
    hi: np.ndarray  # (nq,) upper limits
    dof_q: np.ndarray  # (m,) q index of each limited one-coordinate dof
    dof_v: np.ndarray  # (m,) its v index
    any: bool  # a limited dof exists
    floating: bool  # a joint of several coordinates (a floating base): q moves on its group


def _limits(model: Model) -> _Limits:
    """The joint limits as IK uses them, built once and cached on the immutable model."""
    try:
        return model._ik_limits
    except AttributeError:
        pass
    lo = np.array(model.q_lower)
    hi = np.array(model.q_upper)
    dof_q, dof_v = [], []
    for i in range(1, model.nb):
        if model.jnt_nq[i] == 0:
            continue
        qa = int(model.jnt_qadr[i])
        if int(model.jnt_type[i]) in (JOINT_FREE, JOINT_SPHERICAL):  # a quaternion is kept
            n = int(model.jnt_nq[i])  # unit, not clipped (free: 7 entries, spherical: 4)
            lo[qa : qa + n] = -np.inf
            hi[qa : qa + n] = np.inf
        elif np.isfinite(lo[qa]) or np.isfinite(hi[qa]):
            dof_q.append(qa)
            dof_v.append(int(model.jnt_vadr[i]))
    lim = _Limits(lo, hi, np.array(dof_q, dtype=np.int64), np.array(dof_v, dtype=np.int64),
                  bool(dof_q), _lie(model))  # fmt: skip
    object.__setattr__(model, "_ik_limits", lim)
    return lim


def _sample_ranges(model: Model):
    """(q indices, lo, hi) of the one-coordinate joints as
    :func:`robodyn.random_configuration` draws them: the limits, an unlimited side
    replaced by -pi/pi (revolute) or -1/1 m (prismatic), a one-sided limit giving a width
    of 2 pi (2 m); None when a joint is not plain coordinates (see _lie). Cached on the
    model."""
    from ..model.configuration import _joint_slices

    out = model.__dict__.get("_ik_ranges", 0)
    if out == 0:
        sl = _joint_slices(model)
        q1 = sl.q1
        out = None
        if not _lie(model):
            lo, hi = model.q_lower[q1], model.q_upper[q1]
            half = np.where(sl.prismatic, 1.0, np.pi)
            lo_inf, hi_inf = ~np.isfinite(lo), ~np.isfinite(hi)
            out = (q1, np.where(lo_inf, np.where(hi_inf, -half, hi - 2 * half), lo),
                   np.where(hi_inf, np.where(lo_inf, half, lo + 2 * half), hi))  # fmt: skip
        object.__setattr__(model, "_ik_ranges", out)
    return out


def _draw(model: Model, gen) -> np.ndarray:
    """A restart: the numbers :func:`robodyn.random_configuration` (model, gen) draws,
    with the ranges computed once per model (a restart is drawn per failed start, so its
    cost shows in a batch)."""
    ranges = _sample_ranges(model)
    if ranges is None:
        from ..model.configuration import random_configuration

        return random_configuration(model, gen)
    q1, lo, hi = ranges
    q = np.zeros(model.nq)
    q[q1] = gen.uniform(lo, hi, size=(1, len(q1)))[0]
    return q


def _lie(model: Model) -> bool:
    """True when some coordinates of q are not plain numbers updated by q + dq: a free,
    spherical or planar joint (q moves on its group by robodyn.integrate)."""
    from ..model.configuration import _joint_slices

    return len(_joint_slices(model).q1) != model.nq


def _blocked(lim: _Limits, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """v indices of the dofs sitting on a limit that dq would push through."""
    x, d = q[lim.dof_q], dq[lim.dof_v]
    out = ((x >= lim.hi[lim.dof_q]) & (d > 0)) | ((x <= lim.lo[lim.dof_q]) & (d < 0))
    return lim.dof_v[out]


def _step(J: np.ndarray, Vb: np.ndarray, method: str, lam2: float) -> np.ndarray:
    if method == "newton":
        return np.linalg.pinv(J, rcond=1e-12) @ Vb  # MR eq. 6.7 with J^+
    # Levenberg-Marquardt with lambda_k = damping^2 + |V_b|^2 (Fan-Yuan): strong damping
    # far from the target, nearly the Newton step (fast convergence) close to it; within
    # 1e-4 of it the floor goes, so a target at a singular configuration (a stretched
    # elbow) is still reached superlinearly
    e2 = float(Vb @ Vb)
    lam = (lam2 if e2 > 1e-8 else 0.0) + e2
    return J.T @ np.linalg.solve(J @ J.T + lam * np.eye(J.shape[0]), Vb)


class _Task(NamedTuple):
    """What an IK solve drives to zero: the rows of the body-twist error kept and their
    weights, or the world position error alone."""

    w: np.ndarray  # (6,) row weights of [omega; v]
    rows: np.ndarray  # (m,) the rows with a positive weight
    position_only: bool
    ang: bool  # an angular row is kept (its tolerance applies)
    lin: bool


_FULL_TASK = _Task(np.ones(6), np.arange(6), False, True, True)  # the whole pose


def _task(position_only, weights) -> _Task:
    if weights is None and not position_only:
        return _FULL_TASK
    if position_only:
        if weights is not None:
            raise ValueError("give either position_only=True or weights=, not both")
        return _Task(np.array([0.0, 0, 0, 1, 1, 1]), np.arange(3, 6), True, False, True)
    w = as_vector(weights, "weights", 6)
    if np.any(w < 0) or not np.any(w > 0):
        raise ValueError(
            f"weights must be 6 numbers >= 0 (rows [omega; v]), not all zero, got {w.tolist()}"
        )
    rows = np.flatnonzero(w > 0)
    if np.array_equal(rows, np.arange(3, 6)) and np.all(w[3:] == w[3]):
        return _task(True, None)  # the linear rows alone: position-only
    return _Task(w, rows, False, bool(np.any(rows < 3)), bool(np.any(rows >= 3)))


def _task_error(task: _Task, r: np.ndarray, T_flat: np.ndarray, nv: int):
    """(e, G, |omega error|, |v error|) from an ``ik_residual`` output r: the weighted rows
    of (V_b, J_b), or for position only ``e = p_sd - p`` with ``G = R J_b,v`` (world)."""
    J, Vb = r[16 : 16 + 6 * nv].reshape(6, nv), r[16 + 6 * nv :]
    if task.position_only:
        T = r[:16].reshape(4, 4)
        e = T_flat.reshape(4, 4)[:3, 3] - T[:3, 3]
        return e, T[:3, :3] @ J[3:], 0.0, float(np.linalg.norm(e))
    ew = float(np.linalg.norm(Vb[:3][task.w[:3] > 0]))
    ev = float(np.linalg.norm(Vb[3:][task.w[3:] > 0]))
    if task is _FULL_TASK:
        return Vb, J, ew, ev
    return task.w[task.rows] * Vb[task.rows], task.w[task.rows, None] * J[task.rows], ew, ev


def ik(
    model: Model,
    frame,
    T_target,
    q0=None,
    *,
    method: str = "dls",
    tol_omega: float = 1e-8,
    tol_v: float = 1e-8,
    max_iterations: int = 100,
    damping: float = 1e-3,
    respect_limits: bool = True,
    max_step: float | None = 1.0,
    restarts: int = 50,
    timeout: float | None = None,
    rng=None,
    position_only: bool = False,
    weights=None,
    threads: int | None = None,
) -> IKResult:
    """Inverse kinematics of one frame: find q with ``fk(model, q, frame) = T_target``.

    Each iteration computes the body-twist error ``V_b = log6(T_sf(q)^-1 T_target)``
    and the body Jacobian ``J_b(q)``, stops when ``|omega_b| <= tol_omega`` and
    ``|v_b| <= tol_v``, and otherwise updates q by

    * ``"dls"`` (default): damped least squares (Levenberg-Marquardt),
      ``dq = J_b^T (J_b J_b^T + lambda_k I)^-1 V_b`` with ``lambda_k = damping^2 +
      |V_b|^2``: the step stays bounded near singularities and far from the target, and
      tends to the Newton step (fast convergence) as the error vanishes;
    * ``"newton"``: Newton-Raphson, ``dq = pinv(J_b) V_b`` (MR alg. IKinBody, sec. 6.2.2);

    then ``q <- q (+) dq`` (:func:`robodyn.integrate`, exact for a floating base) and, if
    ``respect_limits``, clips q into the joint limits. It never loops forever: it stops
    after ``max_iterations`` updates per start. For an arm without a floating base the
    ``"dls"`` iteration of one start runs whole in the compiled core
    (``kernels/core/ik.c``).

    Variants: ``position_only=True`` drives the world position error ``p_target - p``
    to zero with any orientation (Jacobian ``R_sf J_b,v``, the velocity of the frame
    origin); ``weights`` (6,) scales the rows ``[omega; v]`` of ``V_b`` and ``J_b``
    (orientation-weighted IK: a zero drops a row and its tolerance, a small weight makes
    it yield when the pose is out of reach; the solve then returns the weighted
    least-squares compromise with ``success=False``).

    Parameters
    ----------
    model : Model
    frame : str or int
        The frame to place.
    T_target : array_like, shape (4, 4) or (..., 4, 4)
        Desired pose ``T_sd`` in the world. Leading dimensions make a batch solved at once
        by :func:`robodyn.inverse_kinematics.ik_batch` (vectorised damped least squares on
        the batch kernels); the result's fields then carry those dimensions.
    q0 : array_like, shape (nq,) or (..., nq), optional
        Initial guess (default: the neutral configuration). Leading dimensions (broadcast
        with T_target's) make a batch too: one pose from many starts.
    method : {"newton", "dls"}
    tol_omega, tol_v : float
        Tolerances on the norms of the angular and linear parts of ``V_b`` (rad, m).
    max_iterations : int
        Update cap per start.
    damping : float
        Floor of the damped least squares damping (``lambda_k >= damping^2``).
    respect_limits : bool
        Clip q into ``[model.q_lower, model.q_upper]`` after each update; a joint on a
        limit that the step would push through is frozen for that step and the step
        recomputed with the other joints.
    max_step : float or None
        Largest entry of ``|dq|`` per update (rad or m); a longer step is scaled down.
        It only acts far from the solution and makes Newton much more robust; None gives
        MR's plain IKinBody step.
    restarts : int
        After a failed start, retry up to this many times from
        :func:`robodyn.random_configuration` draws (within the joint limits). A start
        that stalls (its error not halved in 15 iterations) or reaches ``max_iterations``
        fails, so a start in a poor basin costs a few iterations, not the whole budget.
        ``restarts=0, method="newton", max_step=None`` is MR's IKinBody.
    timeout : float, optional
        Wall-clock budget in seconds over all starts (checked between starts, so it can
        be exceeded by one start, at most ``max_iterations`` updates); when it runs out
        the best iterate so far is returned with ``success=False`` and a message saying so.
    rng : numpy.random.Generator or int, optional
        Random source of the restarts (default a fixed seed: the same call gives the same
        answer).
    position_only : bool
        Reach the position of the frame origin with any orientation.
    weights : array_like, shape (6,), optional
        Weights >= 0 of the error rows ``[omega_x, omega_y, omega_z, v_x, v_y, v_z]``.
    threads : int, optional
        Threads of a batch's residual calls (batch only; default 1).

    Returns
    -------
    IKResult
        ``q``, ``success``, ``iterations``, ``error`` (norm of the final error rows) and
        a ``message`` saying why it stopped. The best iterate over all starts is
        returned on failure.
    """
    from ..model.configuration import integrate, neutral, random_configuration

    pack = model.__dict__.get("_kinematics_pack") or _packed(model)
    k = pack.frames.get(frame) if type(frame) is str else None
    if k is None:
        k = _frame_index(model, pack, frame)
    if np.ndim(T_target) > 2 or np.ndim(q0) > 1:
        from .ik import ik_batch

        return ik_batch(model, frame, T_target, q0, method=method, tol_omega=tol_omega,
                        tol_v=tol_v, max_iterations=max_iterations, damping=damping,
                        respect_limits=respect_limits, max_step=max_step, restarts=restarts,
                        timeout=timeout, rng=rng, position_only=position_only,
                        weights=weights, threads=threads)  # fmt: skip
    T_target = as_array(T_target, "T_target", (4, 4))
    if T_target.ndim != 2:
        raise ValueError(f"T_target must have shape (4, 4), got {T_target.shape}")
    check_transform(T_target, "T_target")
    T_flat = np.ascontiguousarray(T_target, dtype=float).reshape(16)
    task = _task(position_only, weights)
    q = neutral(model) if q0 is None else as_vector(q0, "q0", pack.nq).copy()
    if method not in ("newton", "dls"):
        raise ValueError(f"method must be 'newton' or 'dls', got {method!r}")
    for name, val in (("tol_omega", tol_omega), ("tol_v", tol_v), ("damping", damping)):
        if not (np.isfinite(val) and val >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {val!r}")
    if max_step is None:
        max_step = np.inf
    elif not max_step > 0:
        raise ValueError(f"max_step must be > 0 or None, got {max_step!r}")
    if int(max_iterations) != max_iterations or max_iterations < 0:
        raise ValueError(f"max_iterations must be an integer >= 0, got {max_iterations!r}")
    if int(restarts) != restarts or restarts < 0:
        raise ValueError(f"restarts must be an integer >= 0, got {restarts!r}")
    lim = _limits(model)
    clip = respect_limits and lim.any
    floating = lim.floating
    if timeout is not None and not (np.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    gen = np.random.default_rng(0 if rng is None else rng)
    lam2 = float(damping) ** 2
    total = 0
    best = (np.inf, q)
    nv = pack.nv
    t_end = None if timeout is None else time.perf_counter() + float(timeout)
    why = f"did not converge in {max_iterations} iterations x {int(restarts) + 1} start(s)"
    in_c = method == "dls" and not floating
    if in_c:  # each start whole in the compiled core (kernels/core/ik.c)
        lo, hi, opts = _c_options(lim, clip, task, tol_omega, tol_v, lam2, max_step,
                                  max_iterations, restarts)  # fmt: skip
        ok, q, total, err, msg = _c_starts(model, pack, k, T_flat, task.w, lo, hi, opts, q, 0,
                                           int(restarts), gen, t_end, timeout)  # fmt: skip
        if ok:
            return IKResult(q, True, total, err, msg)
        best = (err, q)
        why = msg or why
    for attempt in range(0 if in_c else int(restarts) + 1):
        if attempt > 0:
            if t_end is not None and time.perf_counter() > t_end:
                why = f"timed out after {timeout:g} s and {attempt} start(s)"
                break
            q = random_configuration(model, gen)
        if clip:
            q = np.clip(q, lim.lo, lim.hi)
        it = 0
        history = []  # the error of each iteration of this start (stall detection)
        while True:
            q = np.ascontiguousarray(q, dtype=float)
            r = _core.ik_residual(pack.P, q, T_flat, k, 1)
            if r.__class__ is not _ND:
                finish(r, (), ("q", "T_target"), model)
            e, J, ew, ev = _task_error(task, r, T_flat, nv)
            err = float(np.hypot(ew, ev))
            if err < best[0]:
                best = (err, q.copy())
            if ew <= tol_omega and ev <= tol_v:
                msg = f"converged in {it} iterations" + (f" (restart {attempt})" if attempt else "")
                return IKResult(q, True, total + it, err, msg)
            if it >= max_iterations:
                break
            history.append(err)
            if restarts and len(history) > 15 and err > 0.5 * history[-16] and err > 1e-5:
                break  # stalled in a poor basin: a new start is cheaper than more steps
            if t_end is not None and it % 8 == 7 and time.perf_counter() > t_end:
                why = f"timed out after {timeout:g} s"
                break
            dq = _step(J, e, method, lam2)
            if clip:
                # joints on a limit that the step pushes outward are frozen and the step
                # recomputed with the others (active set), so a redundant arm keeps
                # converging along its limits instead of stalling against them
                blocked = _blocked(lim, q, dq)
                if blocked.size:
                    J = J.copy()
                    J[:, blocked] = 0.0
                    dq = _step(J, e, method, lam2)
                    dq[blocked] = 0.0
            big = float(np.abs(dq).max()) if dq.size else 0.0
            if big > max_step:
                dq *= max_step / big  # step cap: keeps Newton out of wild jumps
            q = integrate(model, q, dq) if floating else q + dq
            if clip:
                q = np.clip(q, lim.lo, lim.hi)
            if not np.all(np.isfinite(q)):
                break
            it += 1
        total += it
        if why.startswith("timed out"):
            break
    if restarts and clip and not floating and not why.startswith("timed out"):
        res, nit, timed_out = _bounded_stage(model, pack, k, T_flat, best[1], lim, task, gen,
                                             tol_omega, tol_v, t_end)  # fmt: skip
        total += nit
        if res[2]:
            return IKResult(
                res[0], True, total, res[1], "converged in the bounded least-squares stage"
            )
        if res[1] < best[0]:
            best = (res[1], res[0])
        if timed_out:
            why = f"timed out after {timeout:g} s"
    err, q = best
    return IKResult(q, False, total, err, f"{why}; best twist error {err:.3g}")


def _c_options(lim, clip, task, tol_omega, tol_v, lam2, max_step, max_iterations, restarts):
    """(lo, hi, opts) of ``_core.ik_dls``."""
    nv = len(lim.lo)
    lo, hi = (lim.lo, lim.hi) if clip else (np.full(nv, -np.inf), np.full(nv, np.inf))
    opts = np.array([tol_omega if task.ang else np.inf, tol_v if task.lin else np.inf, lam2,
                     max_step, max_iterations, 1.0 if restarts else 0.0,
                     1.0 if task.position_only else 0.0, 0.0])  # fmt: skip
    return lo, hi, opts


def _c_starts(model, pack, k, T_flat, w, lo, hi, opts, q, attempt, restarts, gen, t_end,
              timeout, it0=0, hist=None):  # fmt: skip
    """The starts of :func:`ik` in the compiled core, from start number ``attempt`` (q its
    start, or with ``it0`` > 0 its iterate after it0 updates, ``hist`` their errors), then
    fresh draws within the limits until ``restarts``. Returns (converged, q, iterations,
    error, message: why it converged or timed out, None when it ran out of starts)."""
    total = 0
    best = (np.inf, q)
    while True:
        q = np.ascontiguousarray(q, dtype=float)
        if it0:
            o = opts.copy()
            o[7] = it0
            res = _core.ik_dls(pack.P, q, T_flat, k, lo, hi, w, o, np.ascontiguousarray(hist[:it0]))
            it0 = 0
        else:
            res = _core.ik_dls(pack.P, q, T_flat, k, lo, hi, w, opts, None)
        qe, qb, status, it, err = res
        if status == 0:
            msg = f"converged in {it} iterations" + (f" (restart {attempt})" if attempt else "")
            return True, qe, total + it, err, msg
        total += it
        if err < best[0]:
            best = (err, qb)
        if attempt >= restarts:
            return False, best[1], total, best[0], None
        attempt += 1
        if t_end is not None and time.perf_counter() > t_end:
            why = f"timed out after {timeout:g} s and {attempt} start(s)"
            return False, best[1], total, best[0], why
        q = _draw(model, gen)


def _bounded_stage(model, pack, k, T_flat, q_best, lim, task, gen, tol_omega, tol_v, t_end):
    """The last resort for solutions pressed against the joint limits: a bounded
    trust-region least-squares solve (scipy's "trf") from the best iterate and from a few
    more draws within the limits. Returns ((q, error, converged), evaluations, timed out)."""
    nv = pack.nv
    best = (q_best, np.inf, False)
    total = 0
    from ..model.configuration import random_configuration

    for attempt in range(25):
        if t_end is not None and time.perf_counter() > t_end:
            return best, total, True
        x0 = q_best if attempt == 0 else random_configuration(model, gen)
        qb, nit = _bounded_solve(pack, k, T_flat, np.clip(x0, lim.lo, lim.hi), lim, nv, task)
        total += nit
        r = _core.ik_residual(pack.P, qb, T_flat, k, 1)
        _, _, ew, ev = _task_error(task, r, T_flat, nv)
        err = float(np.hypot(ew, ev))
        if ew <= tol_omega and ev <= tol_v:
            return (qb, err, True), total, False
        if err < best[1]:
            best = (qb, err, False)
    return best, total, False


def _bounded_solve(pack, k, T_flat, q0, lim, nv, task):
    """scipy's bounded trust-region least squares on the IK error e(q) (the weighted rows
    of V_b(q), with de/dq ~ -J_b, or the position error); returns (q, evaluations)."""
    from scipy.optimize import least_squares

    def residual(q):
        r = _core.ik_residual(pack.P, np.ascontiguousarray(q), T_flat, k, 1)
        return _task_error(task, r, T_flat, nv)[0]

    def jac(q):
        r = _core.ik_residual(pack.P, np.ascontiguousarray(q), T_flat, k, 1)
        return -_task_error(task, r, T_flat, nv)[1]

    lo = np.where(np.isfinite(lim.lo), lim.lo, -np.inf)
    hi = np.where(np.isfinite(lim.hi), lim.hi, np.inf)
    x0 = np.clip(q0, lo + 1e-12 * (hi - lo), hi - 1e-12 * (hi - lo))
    sol = least_squares(residual, x0, jac=jac, bounds=(lo, hi), method="trf", xtol=1e-15,
                        ftol=1e-15, gtol=1e-15, max_nfev=200)  # fmt: skip
    return np.ascontiguousarray(sol.x), int(sol.nfev)
