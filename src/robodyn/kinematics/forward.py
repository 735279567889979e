"""Forward kinematics of a :class:`~robodyn.model.model.Model` (Modern Robotics ch. 4-5).

Forward kinematics, Jacobians and their time derivative, frame velocities and
accelerations, centre of mass, manipulability and the velocity/force ellipsoids; the
packed model and the frame lookup every kinematics function (inverse kinematics, the
workspace maps) starts from. Conventions: see :mod:`robodyn.kinematics`, which hands the
public names of this module on (its ``__all__`` lists them).

The work is done by robodyn's compiled core (``kernels/core/kinematics.c``) on the model
packed once; the functions here take one state or any number of leading batch dimensions
(``q`` of shape (..., nq)) and name the argument when a shape is wrong.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import ModelError
from ..kernels import core as _core
from ..kernels._pack import FL_ACC, FL_CHECK, KIND_BODY, KIND_SPACE, KIND_WORLD_ALIGNED, packed
from ..kernels.call import batched, into, into_fields, run
from ..kernels.call import threads as _threads
from ..model.configuration import _joint_slices
from ..model.model import Model

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


def _call(model, entry, names, xs, tails, *rest, out=None):
    """``entry(P, *xs, *rest)`` for one state or any leading batch dimensions: the fast
    path with the user's arrays, else :func:`robodyn.kernels.call.run` (converted, in
    pieces for a large batch); with ``out`` the result is written there."""
    P = _packed(model).P
    r = entry(P, *xs, *rest) if out is None else entry(P, *xs, *rest, out)
    if r.__class__ is _ND:
        return r
    r = run(lambda arrs: entry(P, *arrs, *rest), names, xs, tails, model)
    return r if out is None else into(out, r)


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


def _frame_call(model: Model, frame, kind, threads) -> tuple[_Pack, int, int, int]:
    """(pack, frame index, kind code, threads) of a call on one frame (the errors name the
    argument)."""
    pack = _packed(model)
    k, kd = _frame_index(model, pack, frame), _kind(kind)
    return pack, k, kd, 0 if threads is None else _threads(threads)


def _kind(kind) -> int:
    try:
        return JACOBIAN_KINDS[kind]
    except (KeyError, TypeError):
        raise ValueError(
            f"kind must be one of {', '.join(repr(k) for k in JACOBIAN_KINDS)}, got {kind!r}"
        ) from None


# ------------------------------------------------------------------------- poses
@batched(fast=("fk", 1, FL_CHECK))
def fk(model: Model, q, frame=None, *, threads: int | None = None, out=None) -> np.ndarray:
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
    out : numpy.ndarray, optional
        The array to write the poses into (float64, the result's shape), reused across
        calls: for float64 C-contiguous ``q`` the core writes there and allocates nothing.

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
        return _call(model, _FRAME_POSES, ("q",), (q,), ((pack.nq,),), th, out=out)
    k = pack.frames.get(frame) if type(frame) is str else None
    if k is None:
        k = _frame_index(model, pack, frame)
    return _call(model, _FRAME_POSE, ("q",), (q,), ((pack.nq,),), k, th, out=out)


forward_kinematics = fk


@batched
def body_poses(model: Model, q, *, threads: int | None = None, out=None) -> np.ndarray:
    """Poses ``T_s,i`` of every body (the world, body 0, is the identity).

    Takes ``q`` of shape (..., nq) and ``threads`` (for a batch; default every core);
    returns an array of shape (..., nb, 4, 4).
    """
    th = 0 if threads is None else _threads(threads)
    return _call(model, _core.body_poses, ("q",), (q,), ((model.nq,),), th, out=out)


# --------------------------------------------------------------------- Jacobians
@batched(fast=("jacobian", 1, FL_CHECK, JACOBIAN_KINDS, KIND_SPACE))
def jacobian(
    model: Model, q, frame, kind: str = "space", *, threads: int | None = None, out=None
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
    out : numpy.ndarray, optional
        The array to write J into (as :func:`fk`'s ``out``).

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
    pack, k, kd, th = _frame_call(model, frame, kind, threads)
    return _call(model, _JACOBIAN, ("q",), (q,), ((pack.nq,),), k, kd, th, out=out)


@batched(fast=("jacobian_dot", 2, FL_CHECK, JACOBIAN_KINDS, KIND_SPACE))
def jacobian_dot(
    model: Model, q, v, frame, kind: str = "space", *, threads: int | None = None, out=None
) -> np.ndarray:
    """Time derivative ``dJ/dt`` of :func:`jacobian` along the motion with velocity v.

    Space: ``d S_i/dt = [ad_{V_i}] S_i`` for each screw axis, ``V_i`` the space twist of
    the body the joint moves (MR eq. 8.2's bracket). Body: ``dJ_b/dt = -[ad_{V_b}] J_b +
    [Ad_{T_sf^-1}] dJ_s/dt``. World aligned: the linear rows are the derivative of
    ``v + omega x p``.

    Takes ``q`` (..., nq), ``v`` (..., nv) and the ``frame``, ``kind`` and ``threads`` of
    :func:`jacobian`; returns an array of shape (..., 6, nv).
    """
    pack, k, kd, th = _frame_call(model, frame, kind, threads)
    tails = ((pack.nq,), (pack.nv,))
    return _call(model, _core.jacobian_dot_dj, ("q", "v"), (q, v), tails, k, kd, th, out=out)


@batched(fast=("frame_velocity", 2, FL_CHECK, JACOBIAN_KINDS, KIND_SPACE))
def frame_velocity(
    model: Model, q, v, frame, kind: str = "space", *, threads: int | None = None, out=None
) -> np.ndarray:
    """Twist ``J v`` of a frame, ``[omega; v]`` in the coordinates of ``kind``.

    Takes ``q`` (..., nq), ``v`` (..., nv) and the ``frame``, ``kind`` (``"space"``:
    ``V_s``; ``"body"``: ``V_b``; ``"world_aligned"``: angular velocity and velocity of the
    frame origin, world axes) and ``threads`` of :func:`jacobian`; returns an array of shape
    (..., 6). The compiled core sums the joints' twists down the frame's support
    (``kernels/core/kinematics.c``: frame_motion) without forming J.
    """
    pack, k, kd, th = _frame_call(model, frame, kind, threads)
    tails = ((pack.nq,), (pack.nv,))
    return _call(model, _core.frame_velocity, ("q", "v"), (q, v), tails, k, kd, th, out=out)


@batched(fast=("frame_acceleration", 3, FL_CHECK | FL_ACC, JACOBIAN_KINDS, KIND_SPACE))
def frame_acceleration(
    model: Model, q, v, a, frame, kind: str = "space", *, threads: int | None = None, out=None
) -> np.ndarray:
    """``J a + (dJ/dt) v``: the time derivative of :func:`frame_velocity`.

    It is the derivative of the twist's coordinates in the chosen kind: for ``"space"``
    ``dV_s/dt``, for ``"body"`` ``dV_b/dt``, and for ``"world_aligned"``
    ``[d omega/dt; pddot]`` whose linear part is the classical (second time derivative)
    acceleration of the frame origin. (The classical acceleration is not the linear part
    of ``dV_s/dt`` or ``dV_b/dt``: those miss the ``omega x v`` term.)

    Takes ``q`` (..., nq), ``v`` and ``a`` (..., nv) and the ``frame``, ``kind`` and
    ``threads`` of :func:`jacobian`; returns an array of shape (..., 6). The compiled core
    sums the joints' terms down the frame's support (``kernels/core/kinematics.c``:
    frame_motion) without forming J or dJ/dt.
    """
    pack, k, kd, th = _frame_call(model, frame, kind, threads)
    tails = ((pack.nq,), (pack.nv,), (pack.nv,))
    names = ("q", "v", "a")
    return _call(model, _core.frame_acceleration, names, (q, v, a), tails, k, kd, th, out=out)


# --------------------------------------------------------------- centre of mass
def _mass_call(model: Model, threads) -> tuple[_Pack, int]:
    """(pack, threads) of a centre-of-mass call; ModelError for a model without mass."""
    pack = _packed(model)
    if not pack.has_mass:
        raise ModelError(f"model {model.name!r} has no mass: the centre of mass is undefined")
    return pack, 0 if threads is None else _threads(threads)


@batched(fast=("com", 1, FL_CHECK))
def com(model: Model, q, *, threads: int | None = None, out=None) -> np.ndarray:
    """Centre of mass of the whole model in the world, ``sum_i m_i c_i / sum_i m_i``.

    Takes ``q`` of shape (..., nq) and ``threads`` (for a batch; default every core);
    returns an array of shape (..., 3).
    """
    pack, th = _mass_call(model, threads)
    return _call(model, _core.com, ("q",), (q,), ((pack.nq,),), th, out=out)


@batched(fast=("com_jacobian", 1, FL_CHECK))
def com_jacobian(model: Model, q, *, threads: int | None = None, out=None) -> np.ndarray:
    """Jacobian of the centre of mass: ``cdot = J_c v``, world axes.

    A joint moves its whole subtree: each space column ``[w; u]`` of joint i adds
    ``(M_i u + w x h_i) / M``, with ``M_i`` the subtree's mass and ``h_i`` the sum of
    ``m_j c_j`` over it.

    Takes ``q`` of shape (..., nq) and ``threads`` (for a batch); returns an array of
    shape (..., 3, nv).
    """
    pack, th = _mass_call(model, threads)
    return _call(model, _core.com_jacobian_j, ("q",), (q,), ((pack.nq,),), th, out=out)


@batched(fast=("com_velocity", 2, FL_CHECK, None, 2))
def com_velocity(model: Model, q, v, *, threads: int | None = None, out=None) -> np.ndarray:
    """Velocity of the centre of mass in the world, ``dc/dt = J_c v = p / m`` (the linear
    momentum over the total mass, one forward pass of the compiled core).

    Takes ``q`` (..., nq), ``v`` (..., nv) and ``threads`` (for a batch); returns an
    array of shape (..., 3).
    """
    pack, th = _mass_call(model, threads)
    tails = ((pack.nq,), (pack.nv,))
    return _call(model, _core.com_velocity, ("q", "v"), (q, v), tails, FL_CHECK, 2, th, out=out)


@batched(fast=("com_acceleration", 3, FL_CHECK | FL_ACC, None, 2))
def com_acceleration(model: Model, q, v, a, *, threads: int | None = None, out=None) -> np.ndarray:
    """Acceleration of the centre of mass in the world, ``d2c/dt2 = J_c a + dJ_c/dt v``.

    Computed as ``(dp/dt) / m``, the rate of the linear momentum (the sum of the net body
    forces of one forward pass, gravity left out) over the total mass.

    Takes ``q`` (..., nq), ``v`` (..., nv), ``a`` (..., nv) and ``threads`` (for a batch);
    returns an array of shape (..., 3).
    """
    pack, th = _mass_call(model, threads)
    tails = ((pack.nq,), (pack.nv,), (pack.nv,))
    flags = FL_CHECK | FL_ACC
    names = ("q", "v", "a")
    return _call(model, _core.com_acceleration, names, (q, v, a), tails, flags, 2, th, out=out)


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


def _kept_rows(J: np.ndarray, part) -> np.ndarray:
    """The rows ``part`` of one Jacobian (6, nv) or of a batch (..., 6, nv)."""
    if part.__class__ is str and part in _PARTS:  # a view
        return J[..., _PARTS[part], :]
    return np.moveaxis(_rows(np.moveaxis(J, -2, 0), part), 0, -2)


def _kept(model: Model, q, frame, kind, part) -> np.ndarray:
    """The rows ``part`` of the frame's Jacobian at one state or a batch (q checked by
    :func:`jacobian`)."""
    return _kept_rows(jacobian(model, q, frame, kind), part)


@batched(fast=("manipulability", 1, FL_CHECK, JACOBIAN_KINDS, KIND_BODY))
def manipulability(model: Model, q, frame, kind: str = "body", part="full", *, out=None) -> float:
    """Yoshikawa's manipulability ``w = sqrt(det(J J^T))`` (MR sec. 5.4).

    ``w`` is the volume factor of the velocity ellipsoid, the product of the singular
    values of J, computed in the compiled core as ``|det R|`` of the Householder QR
    ``J^T = Q R`` (backward stable, as an SVD is: accurate near singularities); it is zero
    at singularities and whenever the kept rows outnumber the joints.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
        One configuration, or a batch.
    frame : str or int
    kind : {"body", "space", "world_aligned"}
    part : {"full", "linear", "angular"} or sequence of int
        Rows of J kept: all six, ``v`` (rows 3-5), ``omega`` (rows 0-2), or explicit row
        indices of ``[wx, wy, wz, vx, vy, vz]`` (e.g. ``(3, 4)`` for a planar arm in the
        xy plane).
    out : numpy.ndarray, optional
        The array to write the result into (as :func:`fk`'s ``out``).

    Returns
    -------
    float, or numpy.ndarray of shape (...) for a batch
    """
    idx = [int(r) for r in _rows(np.arange(6), part)]
    pack, k, kd, th = _frame_call(model, frame, kind, None)
    mask = sum(1 << r for r in set(idx))
    w = _call(model, _core.manipulability, ("q",), (q,), ((pack.nq,),), k, kd, mask, th, out=out)
    if len(set(idx)) < len(idx):  # a row kept twice: J J^T is singular
        w[...] = 0.0
    return float(w) if w.ndim == 0 and out is None else w


class Ellipsoid(NamedTuple):
    """Principal semi-axes of a manipulability ellipsoid (MR sec. 5.4).

    Attributes
    ----------
    lengths : numpy.ndarray, shape (..., k)
        Semi-axis lengths, largest first.
    axes : numpy.ndarray, shape (..., k, k)
        Unit directions of the semi-axes, as columns (``axes[..., :, i]`` goes with
        ``lengths[..., i]``), in the coordinates of the Jacobian kind.
    """

    lengths: np.ndarray
    axes: np.ndarray

    @property
    def isotropy(self):
        """``mu_1 = longest / shortest`` semi-axis (MR eq. 5.34 with sqrt(lambda)); inf when
        singular (a float, or an array over a batch)."""
        longest, shortest = self.lengths[..., 0], self.lengths[..., -1]
        mu = np.full(np.shape(longest), np.inf)
        np.divide(longest, shortest, out=mu, where=shortest > 0)
        return float(mu) if mu.ndim == 0 else mu

    @property
    def volume(self):
        """``mu_3``: the product of the semi-axis lengths (proportional to the volume; a
        float, or an array over a batch)."""
        v = np.prod(self.lengths, axis=-1)
        return float(v) if v.ndim == 0 else v


def _ellipsoid_svd(model, q, frame, kind, part) -> tuple[np.ndarray, np.ndarray]:
    """Square roots of the eigenvalues of ``A = J J^T`` (MR eq. 5.30), largest first, and
    the eigenvectors as columns: the singular values and left singular vectors of the kept
    rows of J, by one-sided Jacobi on J^T in the compiled core (accurate near
    singularities, every singular value to relative accuracy; ``A = U S^2 U^T``)."""
    idx = [int(r) for r in _rows(np.arange(6), part)]
    if len(set(idx)) < len(idx):  # a row kept twice: numpy's SVD of the rows as given
        Jp = _kept(model, q, frame, kind, part)
        U, S, _ = np.linalg.svd(Jp)
        sigma = np.zeros(Jp.shape[:-1])
        sigma[..., : S.shape[-1]] = S
        return sigma, U
    pack, k, kd, th = _frame_call(model, frame, kind, None)
    mask = sum(1 << r for r in idx)
    out = _call(model, _core.ellipsoid, ("q",), (q,), ((pack.nq,),), k, kd, mask, th)
    n = len(idx)
    sigma = out[..., :n]
    U = out[..., 6 : 6 + n * n].reshape((*out.shape[:-1], n, n))
    if idx != sorted(idx):  # the core keeps the rows in ascending order
        U = U[..., np.argsort(np.argsort(idx)), :]
    return sigma, U


def velocity_ellipsoid(
    model: Model, q, frame, kind: str = "body", part="linear", *, out=None
) -> Ellipsoid:
    """Velocity (manipulability) ellipsoid ``{J qdot : |qdot| = 1}`` (MR sec. 5.4).

    With ``A = J J^T`` and eigenpairs ``(lambda_i, v_i)``, the principal semi-axes are
    ``sqrt(lambda_i) v_i``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    frame : str or int
    kind : {"body", "space", "world_aligned"}
    part : {"linear", "angular", "full"} or sequence of int
        Rows of J kept (see :func:`manipulability`). The default separates the linear
        part, as MR recommends (angular and linear rates have different units).
    out : tuple of two numpy.ndarray, optional
        Arrays to write the result into, in the order of the fields: ``(lengths, axes)``
        of shapes (..., k) and (..., k, k), float64 and writeable (computed, then copied;
        the returned :class:`Ellipsoid` holds these arrays).

    Returns
    -------
    Ellipsoid
        ``lengths`` (..., k) largest first and ``axes`` (..., k, k) as columns.
    """
    sigma, U = _ellipsoid_svd(model, q, frame, kind, part)
    r = Ellipsoid(sigma, U)
    return r if out is None else into_fields(out, r)


def force_ellipsoid(
    model: Model, q, frame, kind: str = "body", part="linear", *, out=None
) -> Ellipsoid:
    """Force ellipsoid ``{F : |J^T F| = 1}``: semi-axes ``v_i / sqrt(lambda_i)`` with
    ``(lambda_i, v_i)`` the eigenpairs of ``A = J J^T`` (MR sec. 5.4, ``B = A^-1``).

    Takes the arguments of :func:`velocity_ellipsoid` (``out``: ``(lengths, axes)``);
    returns an :class:`Ellipsoid` with ``lengths`` (..., k) largest first (``inf`` along a
    singular direction) and ``axes``.
    """
    sigma, U = _ellipsoid_svd(model, q, frame, kind, part)
    with np.errstate(divide="ignore"):  # 1 / 0 = inf: a singular direction
        lengths = 1.0 / sigma[..., ::-1]
    r = Ellipsoid(lengths, U[..., :, ::-1].copy())
    return r if out is None else into_fields(out, r)


# ---------------------------------------- configuration ranges (IK and workspace maps)
def _sample_ranges(model: Model):
    """(q indices, lo, hi) of the one-coordinate joints as
    :func:`robodyn.random_configuration` draws them: the limits, an unlimited side
    replaced by -pi/pi (revolute) or -1/1 m (prismatic), a one-sided limit giving a width
    of 2 pi (2 m); None when a joint is not plain coordinates (see _lie). Cached on the
    model."""
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


def _lie(model: Model) -> bool:
    """True when some coordinates of q are not plain numbers updated by q + dq: a free,
    spherical or planar joint (q moves on its group by robodyn.integrate)."""
    return len(_joint_slices(model).q1) != model.nq
