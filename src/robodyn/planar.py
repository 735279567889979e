"""Planar views of robodyn's spatial quantities, for arms that move in the x-y plane.

The course texts write a planar arm's quantities in two dimensions (course notes 000 and
003: joints about z, gravity along -y): the 2 x n Jacobian of the tip ``V = [xdot; ydot] =
J thetadot``, the tip force ``F_tip = (f_x, f_y)`` in ``tau = M thetadd + c + g + J^T F_tip``
and the 2 x 2 apparent mass ``Lambda = J^-T M J^-1``. robodyn computes in 3-D with twists
``[omega; v]`` and wrenches ``[m; f]``; these functions slice and build the 3-D quantities
so a course example reads as the text writes it (``docs/notation.md``):

=====================================  =====================================================
``jacobian(model, q, frame)``          rows ``v_x, v_y`` of ``rd.jacobian(..., "world_aligned")``
``tip_wrench(model, q, frame, f)``     the 6-vector ``[0; R^T (f_x, f_y, 0)]`` in the frame
``inverse_dynamics(..., f_tip=f)``     ``rd.inverse_dynamics`` with that wrench
``task_space_inertia(model, q, f)``    ``rd.task_space_inertia(..., part=(3, 4))``
=====================================  =====================================================

Each checks that the frame's motion is planar at q: the rows ``omega_x``, ``omega_y`` and
``v_z`` of its Jacobian vanish, else ValueError (the arm does not move in the x-y plane).
"""

from __future__ import annotations

import numpy as np

from .dynamics import inverse_dynamics as _inverse_dynamics
from .kinematics import fk
from .kinematics import jacobian as _jacobian
from .taskspace import task_space_inertia as _task_space_inertia

__all__ = ["jacobian", "tip_wrench", "inverse_dynamics", "task_space_inertia"]


def _planar_jacobian(model, q, frame) -> np.ndarray:
    """The (..., 6, nv) world-aligned Jacobian, checked to move the frame in the x-y plane."""
    J = _jacobian(model, q, frame, kind="world_aligned")
    off = np.abs(J[..., [0, 1, 5], :]).max(initial=0.0)
    if off > 1e-9 * max(1.0, np.abs(J).max(initial=0.0)):
        raise ValueError(
            f"frame {frame!r} does not move in the x-y plane at this q (its Jacobian's "
            f"omega_x, omega_y or v_z row reaches {off:.3g}): rd.planar needs joints about z "
            "and links in the x-y plane"
        )
    return J


def jacobian(model, q, frame, *, rotation: bool = False) -> np.ndarray:
    """The planar Jacobian of a frame's origin: ``[xdot; ydot] = J qdot`` (course notes 000).

    Parameters
    ----------
    model : Model
        An arm moving in the x-y plane (joints about z).
    q : array_like, shape (..., nq)
    frame : str or int
        Operational frame (the tip: ``"ee"`` on the bundled 2R arms).
    rotation : bool
        Add the row ``omega_z`` first: ``[omega_z; xdot; ydot] = J qdot``, 3 x nv.

    Returns
    -------
    numpy.ndarray, shape (..., 2, nv) or (..., 3, nv)
        Rows in world axes (``rd.jacobian(..., kind="world_aligned")`` rows 3, 4, or 2, 3, 4).

    Raises
    ------
    ValueError
        The frame does not move in the x-y plane at q.
    """
    J = _planar_jacobian(model, q, frame)
    return J[..., [2, 3, 4] if rotation else [3, 4], :]


def tip_wrench(model, q, frame, f) -> np.ndarray:
    """The 6-vector wrench, in the frame, of a planar tip force ``f = (f_x, f_y)``.

    ``[0; R^T (f_x, f_y, 0)]`` with ``R`` the frame's orientation: what
    :func:`robodyn.inverse_dynamics` takes as ``f_tip`` to add ``J^T F_tip`` (course notes
    000, "Compact Representation"; F_tip is the force the tip applies to the environment).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    frame : str or int
    f : array_like, shape (..., 2)
        Force in world x-y axes (N).

    Returns
    -------
    numpy.ndarray, shape (..., 6)
        ``[m; f]`` in the frame's coordinates.
    """
    f = np.asarray(f, dtype=float)
    if f.shape[-1:] != (2,):
        raise ValueError(f"f must have shape (..., 2) (f_x, f_y), got {f.shape}")
    _planar_jacobian(model, q, frame)
    R = fk(model, q, frame)[..., :3, :3]
    f3 = np.concatenate([f, np.zeros(f.shape[:-1] + (1,))], axis=-1)
    f_b = np.einsum("...ji,...j->...i", R, f3)  # R^T f
    return np.concatenate([np.zeros(f_b.shape), f_b], axis=-1)


def inverse_dynamics(model, q, v, a, f_tip=None, frame=None) -> np.ndarray:
    """``tau = M(q) a + c(q, v) + g(q) + J^T(q) F_tip`` with a planar tip force (course notes 000).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v, a : array_like, shape (..., nv)
    f_tip : array_like, shape (..., 2), optional
        Force ``(f_x, f_y)`` the tip applies to the environment, world axes (N).
    frame : str or int, optional
        The tip frame (required with ``f_tip``).

    Returns
    -------
    numpy.ndarray, shape (..., nv)
    """
    if f_tip is None:
        return _inverse_dynamics(model, q, v, a)
    if frame is None:
        raise ValueError("frame is required with f_tip (the frame the force acts at)")
    F = tip_wrench(model, q, frame, f_tip)
    return _inverse_dynamics(model, q, v, a, f_tip=F, frame=frame)


def task_space_inertia(model, q, frame) -> np.ndarray:
    """The 2 x 2 apparent mass ``Lambda = (J M^-1 J^T)^-1`` of a frame's origin in the plane.

    Course notes 000's ``Lambda = J^-T M J^-1`` for a square J; this is
    ``rd.task_space_inertia(model, q, frame, kind="world_aligned", part=(3, 4))``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    frame : str or int

    Returns
    -------
    numpy.ndarray, shape (..., 2, 2)
        Maps the tip's (xdd, ydd) to the force (f_x, f_y), world axes (kg).
    """
    _planar_jacobian(model, q, frame)
    return _task_space_inertia(model, q, frame, kind="world_aligned", part=(3, 4))
