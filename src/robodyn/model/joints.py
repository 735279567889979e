"""The joint type codes of a :class:`~robodyn.model.model.Model` (``Model.jnt_type``), their
names, a planar joint's in-plane axes (:func:`planar_basis`) and each joint's motion
(:func:`joint_motion`): the bottom of the model layer, imported by the Model, its builder
and the modules that read a Model's joints (:mod:`robodyn.model.model` re-exports the
codes).

Each joint's q and v are described in :mod:`robodyn.model.model`.
"""

from __future__ import annotations

import numpy as np

from ..spatial import exp3, quat_to_rotation, transform

__all__ = [
    "JOINT_FIXED",
    "JOINT_REVOLUTE",
    "JOINT_PRISMATIC",
    "JOINT_FREE",
    "JOINT_SPHERICAL",
    "JOINT_PLANAR",
    "JOINT_HELICAL",
    "JOINT_CYLINDRICAL",
    "JOINT_UNIVERSAL",
    "JOINT_TYPE_NAMES",
]

JOINT_FIXED = 0  # the world, or a welded body (ModelBuilder.build(merge_fixed=False))
JOINT_REVOLUTE = 1  # revolute and continuous: one angle
JOINT_PRISMATIC = 2
JOINT_FREE = 3  # floating (base or anywhere): nq = 7, nv = 6
JOINT_SPHERICAL = 4  # ball: nq = 4 (unit quaternion), nv = 3 (omega_b)
JOINT_PLANAR = 5  # (phi, x, y), v = (omega_n, v_1, v_2) body twist: nq = nv = 3
JOINT_HELICAL = 6  # screw: theta, translation pitch * theta along the axis
JOINT_CYLINDRICAL = 7  # (theta, d) about and along the axis
JOINT_UNIVERSAL = 8  # (theta_1, theta_2) about jnt_axis, then about jnt_axis2
JOINT_TYPE_NAMES = {
    JOINT_FIXED: "fixed",
    JOINT_REVOLUTE: "revolute",
    JOINT_PRISMATIC: "prismatic",
    JOINT_FREE: "free",
    JOINT_SPHERICAL: "spherical",
    JOINT_PLANAR: "planar",
    JOINT_HELICAL: "helical",
    JOINT_CYLINDRICAL: "cylindrical",
    JOINT_UNIVERSAL: "universal",
}


def planar_basis(n) -> tuple[np.ndarray, np.ndarray]:
    """In-plane axes (t1, t2) of a planar joint with unit normal n: (t1, t2, n) is a
    right-handed orthonormal frame, and n = z gives (x, y)."""
    n = np.asarray(n, dtype=float)
    e = np.array([0.0, 1.0, 0.0]) if abs(n[1]) < 0.9 else np.array([0.0, 0.0, 1.0])
    t1 = np.cross(e, n)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def joint_motion(jtype: int, axis, x, *, pitch: float = 0.0, axis2=None) -> np.ndarray:
    """The joint motion ``X_J(x)`` (4, 4) of a joint of type ``jtype`` at its coordinates
    ``x`` (a mimic joint's: ``mult * q_leader + offset``): the pose of the body frame in the
    joint frame (see :mod:`robodyn.model.model` for each joint's coordinates)."""
    a, x = np.asarray(axis, dtype=float), np.asarray(x, dtype=float)
    R, p = np.eye(3), np.zeros(3)
    if jtype in (JOINT_REVOLUTE, JOINT_PLANAR, JOINT_HELICAL, JOINT_CYLINDRICAL):
        R = exp3(a * x[0])  # a turn about the axis (MR eq. 3.51)
    if jtype == JOINT_PRISMATIC:
        p = a * x[0]
    elif jtype == JOINT_HELICAL:
        p = pitch * x[0] * a  # a screw of pitch h (MR sec. 3.3.2.2)
    elif jtype == JOINT_CYLINDRICAL:
        p = x[1] * a
    elif jtype == JOINT_PLANAR:
        t1, t2 = planar_basis(a)
        p = x[1] * t1 + x[2] * t2
    elif jtype == JOINT_UNIVERSAL:
        R = exp3(a * x[0]) @ exp3(np.asarray(axis2, dtype=float) * x[1])
    elif jtype == JOINT_SPHERICAL:
        R = quat_to_rotation(x / np.linalg.norm(x))
    elif jtype == JOINT_FREE:
        R, p = quat_to_rotation(x[3:7] / np.linalg.norm(x[3:7])), x[:3]
    return transform(R, p)


def unique_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3``, ... the first not in ``taken``, added to it: the
    name a loader or writer gives an element it makes (a weld, a chain's inner body, a
    split joint) without clashing with the document's own names."""
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name
