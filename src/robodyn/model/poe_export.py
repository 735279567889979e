"""A serial Model's Modern Robotics description, :func:`to_mr`: ``(M, Slist, Mlist, Glist)``.

The inverse of :func:`robodyn.model.poe.from_mr` (which re-exports :func:`to_mr`). It reads
a Model's arrays only, so it sits below :mod:`robodyn.model.model` and
:meth:`Model.to_mr <robodyn.model.model.Model.to_mr>` calls it without importing a loader.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..spatial import adjoint, inv_transform
from .joints import JOINT_PRISMATIC, JOINT_REVOLUTE

__all__ = ["to_mr"]


def _home_poses(model) -> np.ndarray:
    """Pose of every body frame in the world at q = 0 (all joint motions identity)."""
    T = np.zeros((model.nb, 4, 4))
    T[0] = np.eye(4)
    for i in range(1, model.nb):
        X = np.eye(4)
        X[:3, :3] = model.jnt_R[i]
        X[:3, 3] = model.jnt_p[i]
        T[i] = T[model.body_parent[i]] @ X
    return T


def to_mr(model, frame: str | int = "ee") -> tuple[np.ndarray, np.ndarray, list, list]:
    """The Modern Robotics description ``(M, Slist, Mlist, Glist)`` of a serial chain.

    The link frames {i} are placed at the body CoMs with the body frames' orientation;
    the end-effector is the operational frame ``frame``. Inverse of :func:`from_mr`.

    Parameters
    ----------
    model : Model
        A serial chain of revolute and prismatic joints (no floating base, no branches,
        no mimic joints).
    frame : str or int
        The end-effector frame.

    Returns
    -------
    M : numpy.ndarray, shape (4, 4)
    Slist : numpy.ndarray, shape (6, n)
    Mlist : list of n + 1 numpy.ndarray, shape (4, 4)
    Glist : list of n numpy.ndarray, shape (6, 6)

    Raises
    ------
    ModelError
        If the model is not such a serial chain.
    """
    nb = model.nb
    for i in range(1, nb):
        jt = int(model.jnt_type[i])
        if model.body_parent[i] != i - 1:
            raise ModelError(
                f"to_mr needs a serial chain: body {model.body_names[i]!r} hangs on "
                f"{model.body_names[model.body_parent[i]]!r}, not on the previous body"
            )
        if jt not in (JOINT_REVOLUTE, JOINT_PRISMATIC):
            raise ModelError(
                f"to_mr supports revolute and prismatic joints only: joint "
                f"{model.joint_names_all[i]!r} is not one"
            )
        if model.jnt_mimic[i] >= 0:
            raise ModelError(f"to_mr does not support mimic joints ({model.joint_names_all[i]!r})")
    fid = model.frame_id(frame)
    T_home = _home_poses(model)
    n = nb - 1
    Slist = np.zeros((6, n))
    Mlist: list[np.ndarray] = []
    Glist: list[np.ndarray] = []
    C_prev = np.eye(4)
    for i in range(1, nb):
        a = model.jnt_axis[i]
        A = (
            np.concatenate([a, np.zeros(3)])
            if model.jnt_type[i] == JOINT_REVOLUTE
            else (np.concatenate([np.zeros(3), a]))
        )
        Slist[:, i - 1] = adjoint(T_home[i]) @ A  # S_i = [Ad_{T_0i}] A_i (MR eq. 4.14 setup)
        C_i = T_home[i].copy()
        C_i[:3, 3] = T_home[i][:3, :3] @ model.body_com[i] + T_home[i][:3, 3]
        Mlist.append(inv_transform(C_prev) @ C_i)
        G = np.zeros((6, 6))
        G[:3, :3] = model.body_inertia[i]
        G[3:, 3:] = model.body_mass[i] * np.eye(3)
        Glist.append(G)
        C_prev = C_i
    X = np.eye(4)
    X[:3, :3] = model.frame_R[fid]
    X[:3, 3] = model.frame_p[fid]
    M = T_home[model.frame_body[fid]] @ X
    Mlist.append(inv_transform(C_prev) @ M)
    return M, Slist, Mlist, Glist
