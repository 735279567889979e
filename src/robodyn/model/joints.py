"""The joint type codes of a :class:`~robodyn.model.model.Model` (``Model.jnt_type``), their
names and a planar joint's in-plane axes (:func:`planar_basis`): the bottom of the model
layer, imported by the Model, its builder and the modules that read a Model's joints
(:mod:`robodyn.model.model` re-exports them).

Each joint's q and v are described in :mod:`robodyn.model.model`.
"""

from __future__ import annotations

import numpy as np

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
