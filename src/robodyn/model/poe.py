"""Product-of-exponentials (Modern Robotics) descriptions of serial arms, both directions.

MR describes an n-joint serial chain by

* ``M``: the home pose (all joints at zero) of the end-effector frame in the space frame;
* ``Slist`` (6 x n): the space screw axes ``S_i = [omega_i, v_i]`` of the joints at home
  (revolute: ``|omega_i| = 1`` and zero pitch; prismatic: ``omega_i = 0``, ``|v_i| = 1``);
* ``Mlist``: n + 1 relative poses ``M_{i-1,i}`` of the link frames {i}, placed at the link
  centres of mass, the last one being ``M_{n,n+1}`` (the end-effector in {n});
* ``Glist``: n spatial inertias ``G_i = [[I_i, 0], [0, m_i 1]]`` in the CoM frames {i}.

:func:`from_mr` turns that into a :class:`~robodyn.model.model.Model`. robodyn's revolute
joints rotate about an axis through their joint frame origin, so body i's frame is put on
joint i's axis: it has the orientation of the CoM frame {i}, and its origin is the point
of the axis nearest to the CoM. The body's inertia then has its CoM off the origin. The
CoM frames are kept as operational frames ``link{i}_com``, the end-effector as ``ee``.
:func:`to_mr` recovers ``(M, Slist, Mlist, Glist)`` from any serial revolute/prismatic
model (CoM frames aligned with the body frames); it is defined in
:mod:`robodyn.model.poe_export`, below the Model, whose :meth:`~robodyn.model.model.Model.to_mr`
calls it.

The MR-style kinematics functions :func:`fk_space`, :func:`fk_body`,
:func:`jacobian_space` and :func:`jacobian_body` work directly on (M, Slist/Blist).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._checks import as_array
from ..errors import ModelError
from ..inertia import RigidInertia
from ..spatial import adjoint, exp6, inv_transform
from .builder import ModelBuilder, _float_array
from .model import Model
from .poe_export import to_mr

__all__ = [
    "from_mr",
    "to_mr",
    "fk_space",
    "fk_body",
    "jacobian_space",
    "jacobian_body",
]

_TOL = 1e-6  # unit-norm and zero-pitch tolerance on screw axes


# ------------------------------------------------------------------- MR kinematics
def _screws_and_angles(Slist, thetalist, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Slist as a (6, n) float array and thetalist as (..., n), or ValueError."""
    try:
        S = np.asarray(Slist, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric (6, n) array") from exc
    if S.ndim != 2 or S.shape[0] != 6:
        raise ValueError(
            f"{name} must have shape (6, n) (one screw axis per column), got {S.shape}"
        )
    if not np.all(np.isfinite(S)):
        raise ValueError(f"{name} contains NaN or inf")
    theta = as_array(thetalist, "thetalist", (S.shape[1],))
    return S, theta


def fk_space(M, Slist, thetalist) -> np.ndarray:
    """Forward kinematics in the space frame, ``T = e^[S1 th1] (...) e^[Sn thn] M`` (MR eq. 4.14).

    Parameters
    ----------
    M : array_like, shape (4, 4)
        Home pose of the end-effector (all joints at zero) in the space frame.
    Slist : array_like, shape (6, n)
        Space screw axes as columns.
    thetalist : array_like, shape (n,) or (N, n)
        Joint values (N rows: N configurations at once).

    Returns
    -------
    numpy.ndarray, shape (4, 4) or (N, 4, 4)
    """
    M = as_array(M, "M", (4, 4))
    S, theta = _screws_and_angles(Slist, thetalist, "Slist")
    return _exponentials(np.eye(4), S, theta) @ M


def fk_body(M, Blist, thetalist) -> np.ndarray:
    """Forward kinematics in the body frame, ``T = M e^[B1 th1] (...) e^[Bn thn]`` (MR eq. 4.16).

    Parameters
    ----------
    M, thetalist : array_like
        As in :func:`fk_space`.
    Blist : array_like, shape (6, n)
        Body screw axes (in the end-effector frame at home) as columns.

    Returns
    -------
    numpy.ndarray, shape (4, 4) or (N, 4, 4)
    """
    M = as_array(M, "M", (4, 4))
    B, theta = _screws_and_angles(Blist, thetalist, "Blist")
    return _exponentials(M, B, theta)


def _exponentials(T0: np.ndarray, A: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``T0 e^[A_1 th_1] (...) e^[A_n th_n]`` for the screw axes ``A`` (6, n) and each row of
    ``theta`` (..., n): shape (..., 4, 4)."""
    T = np.broadcast_to(T0, (*theta.shape[:-1], 4, 4))
    for i in range(A.shape[1]):
        T = T @ exp6(A[:, i] * theta[..., i, None])
    return T


def jacobian_space(Slist, thetalist) -> np.ndarray:
    """Space Jacobian, ``J_si = [Ad_{e^[S1 th1] (...) e^[S(i-1) th(i-1)]}] S_i`` (MR eq. 5.11).

    Parameters
    ----------
    Slist, thetalist : array_like
        As in :func:`fk_space`.

    Returns
    -------
    numpy.ndarray, shape (6, n) or (N, 6, n)
        Rows ``[omega; v]``; column i is joint i's screw axis at ``theta``, in the space frame.
    """
    S, theta = _screws_and_angles(Slist, thetalist, "Slist")
    return _jacobian(S, theta, 1)


def jacobian_body(Blist, thetalist) -> np.ndarray:
    """Body Jacobian, ``J_bi = [Ad_{e^-[Bn thn] (...) e^-[B(i+1) th(i+1)]}] B_i`` (MR eq. 5.18).

    Parameters
    ----------
    Blist : array_like, shape (6, n)
        Body screw axes (in the end-effector frame at home) as columns.
    thetalist : array_like, shape (n,) or (N, n)

    Returns
    -------
    numpy.ndarray, shape (6, n) or (N, 6, n)
        Rows ``[omega; v]``, in the end-effector frame.
    """
    B, theta = _screws_and_angles(Blist, thetalist, "Blist")
    return _jacobian(B, theta, -1)


def _jacobian(A: np.ndarray, theta: np.ndarray, sign: int) -> np.ndarray:
    """Column i = ``[Ad_T] A_i``, T the product of the exponentials of the joints before i:
    the space Jacobian (``sign`` 1: joints 1 .. i-1, ``e^[A th]``) or the body Jacobian
    (``sign`` -1: joints n .. i+1, ``e^-[A th]``)."""
    n = A.shape[1]
    J = np.zeros((*theta.shape[:-1], 6, n))
    T = np.broadcast_to(np.eye(4), (*theta.shape[:-1], 4, 4))
    for i in range(n) if sign > 0 else range(n - 1, -1, -1):
        J[..., :, i] = np.einsum("...ij,j->...i", adjoint(T), A[:, i])
        T = T @ exp6(sign * A[:, i] * theta[..., i, None])
    return J


# ------------------------------------------------------------------------ from_mr
def _mr_transform(T, what: str) -> np.ndarray:
    a = _float_array(T, what, "a 4x4 transform", (4, 4))
    R = a[:3, :3]
    if (
        np.abs(a[3] - [0, 0, 0, 1]).max() > _TOL
        or np.abs(R.T @ R - np.eye(3)).max() > _TOL
        or abs(np.linalg.det(R) - 1) > _TOL
    ):
        raise ModelError(f"{what} is not a rigid transform")
    return a


def _spatial_inertia_parts(G, what: str) -> tuple[float, np.ndarray]:
    """(m, I) of a spatial inertia at the CoM, G = [[I, 0], [0, m 1]] (MR eq. 8.32)."""
    G = _float_array(G, what, "a 6x6 spatial inertia", (6, 6))
    scale = max(np.abs(G).max(), 1e-300)
    m = G[3, 3]
    off = max(np.abs(G[:3, 3:]).max(), np.abs(G[3:, :3]).max())
    lin = np.abs(G[3:, 3:] - m * np.eye(3)).max()
    if off > 1e-12 * scale or lin > 1e-12 * scale:
        raise ModelError(
            f"{what} is not a spatial inertia at the centre of mass [[I, 0], [0, m 1]] "
            f"(off-diagonal blocks up to {off:.3g}, linear block differs from m 1 by {lin:.3g}); "
            "Glist must be given in frames at the link CoMs (MR eq. 8.32)"
        )
    return float(m), G[:3, :3]


def from_mr(
    M,
    Slist,
    Mlist,
    Glist,
    *,
    gravity=(0.0, 0.0, -9.81),
    joint_types: Sequence[str] | None = None,
    name: str = "mr_robot",
) -> Model:
    """Build a serial Model from a Modern Robotics product-of-exponentials description.

    Parameters
    ----------
    M : array_like, shape (4, 4)
        Home pose of the end-effector frame (becomes the frame ``"ee"``).
    Slist : array_like, shape (6, n)
        Space screw axes of the joints at home, one per column.
    Mlist : sequence of n + 1 arrays, shape (4, 4)
        ``M_{i-1,i}``: pose of link frame {i} (at link i's CoM) in {i-1}; the last one is
        the end-effector in {n} (MR's InverseDynamics convention).
    Glist : sequence of n arrays, shape (6, 6)
        Spatial inertias ``[[I_i, 0], [0, m_i 1]]`` in the CoM frames {i}.
    gravity : array_like, shape (3,)
        Gravitational acceleration in the space frame (MR's ``g``).
    joint_types : sequence of str, optional
        "revolute" or "prismatic" per joint (default: revolute when ``omega_i != 0``).
    name : str
        Model name.

    Returns
    -------
    Model
        Bodies ``link1 .. linkn`` on joints ``joint1 .. jointn``; frames ``link{i}_com``
        (the MR link frames) and ``ee``.

    Raises
    ------
    ModelError
        Inconsistent sizes, a screw axis that is not a unit revolute/prismatic axis, a
        Glist entry not of the form ``[[I, 0], [0, m 1]]``, or M disagreeing with Mlist.
    """
    M = _mr_transform(M, "M")
    S = _mr_screws(Slist)
    n = S.shape[1]
    Mlist, Glist = list(Mlist), list(Glist)
    _check_mr_counts(n, Mlist, Glist, joint_types)
    b = ModelBuilder(name=name, gravity=gravity)
    M_i = np.eye(4)  # home pose of CoM frame {i} in space
    B_prev = np.eye(4)  # home pose of body frame i-1 in space
    for i in range(n):
        M_i = M_i @ _mr_transform(Mlist[i], f"Mlist[{i}]")
        kind = joint_types[i] if joint_types is not None else None
        kind, axis, c = _mr_joint(S[:, i], M_i, kind, i)
        # body frame B_i: orientation of {i}, origin on the joint axis
        B_i = M_i.copy()
        B_i[:3, 3] = M_i[:3, :3] @ c + M_i[:3, 3]
        b.add_body(
            f"link{i + 1}",
            f"link{i}" if i > 0 else "world",
            joint_name=f"joint{i + 1}",
            joint_type=kind,
            axis=axis,
            T=inv_transform(B_prev) @ B_i,
            inertia=_mr_inertia(Glist[i], c, i),
        )
        T_com = np.eye(4)
        T_com[:3, 3] = -c
        b.add_frame(f"link{i + 1}_com", f"link{i + 1}", T_com)
        B_prev = B_i
    _check_mr_home(M, M_i @ _mr_transform(Mlist[n], f"Mlist[{n}]"))
    if n == 0:
        b.add_frame("ee", "world", M)
    else:
        b.add_frame("ee", f"link{n}", inv_transform(B_prev) @ M)
    return b.build()


def _mr_screws(Slist) -> np.ndarray:
    """Slist as a finite (6, n) float array, or ModelError."""
    shape_error = "must have shape (6, n) (one screw axis per column), got"
    return _float_array(Slist, "Slist", "a 6 x n array", (6, None), wrong_shape=shape_error)


def _check_mr_counts(n: int, Mlist: list, Glist: list, joint_types) -> None:
    """n + 1 transforms in Mlist, n inertias in Glist and n joint types, or ModelError."""
    if len(Mlist) != n + 1:
        raise ModelError(f"Mlist must hold n + 1 = {n + 1} transforms, got {len(Mlist)}")
    if len(Glist) != n:
        raise ModelError(f"Glist must hold n = {n} spatial inertias, got {len(Glist)}")
    if joint_types is not None and len(joint_types) != n:
        raise ModelError(f"joint_types must have n = {n} entries, got {len(joint_types)}")


def _mr_joint(S_i: np.ndarray, M_i: np.ndarray, kind, i: int) -> tuple[str, np.ndarray, np.ndarray]:
    """``(kind, axis, c)`` of joint i from its space screw axis ``S_i`` and the home pose
    ``M_i`` of CoM frame {i}: the joint type (default revolute when omega != 0), its axis in
    {i}, and ``c``, the point of the axis nearest to the CoM in {i} (zero for a prismatic
    joint), where body i's frame is put."""
    w, v = S_i[:3], S_i[3:]
    if kind is None:
        kind = "revolute" if np.linalg.norm(w) > 1e-12 else "prismatic"
    col = f"Slist[:, {i}] (joint{i + 1})"
    # A_i = [Ad_{M_i^-1}] S_i: the screw axis in the CoM frame {i} (MR eq. 8.49).
    A = adjoint(inv_transform(M_i)) @ S_i
    wb, vb = A[:3], A[3:]
    if kind == "revolute":
        nw = np.linalg.norm(w)
        if abs(nw - 1) > _TOL:
            raise ModelError(f"{col}: a revolute screw axis needs |omega| = 1, got {nw:.6g}")
        pitch = float(w @ v)
        if abs(pitch) > _TOL:
            raise ModelError(f"{col} has pitch h = {pitch:.6g}: helical joints are not supported")
        # point of the axis nearest to the CoM: c = omega x v (for |omega| = 1, v = -omega x c)
        return kind, wb, np.cross(wb, vb) / (wb @ wb)
    if kind == "prismatic":
        if np.linalg.norm(w) > 1e-12:
            raise ModelError(f"{col}: a prismatic screw axis needs omega = 0, got {w.tolist()}")
        nv = np.linalg.norm(v)
        if abs(nv - 1) > _TOL:
            raise ModelError(f"{col}: a prismatic screw axis needs |v| = 1, got {nv:.6g}")
        return kind, vb, np.zeros(3)
    raise ModelError(f"joint_types[{i}] = {kind!r}: from_mr supports 'revolute' and 'prismatic'")


def _mr_inertia(G, c: np.ndarray, i: int) -> RigidInertia:
    """Body i's inertia from ``Glist[i]`` (at the CoM, {i} axes), its CoM at ``-c`` in the
    body frame."""
    m, Ic = _spatial_inertia_parts(G, f"Glist[{i}]")
    try:
        return RigidInertia(m, -c, Ic)
    except ValueError as exc:
        raise ModelError(f"Glist[{i}] is not a physical inertia: {exc}") from exc


def _check_mr_home(M: np.ndarray, M_end: np.ndarray) -> None:
    """M equals the product of Mlist (``M_end``) within the tolerance, or ModelError."""
    err = np.abs(M_end - M).max()
    if err > _TOL:
        raise ModelError(
            f"M disagrees with the product of Mlist (max difference {err:.3g}): "
            "the last Mlist entry must be the end-effector pose in the last link frame"
        )
