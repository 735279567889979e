"""What a URDF says, as plain frozen dataclasses: :class:`UrdfRobot` holds its
:class:`UrdfLink` and :class:`UrdfJoint` elements, a link its :class:`UrdfInertial` and its
collision and visual :class:`UrdfGeometry`.

The parser (:mod:`robodyn.model.urdf`) fills them, checking every number; the inertial
checks (:mod:`robodyn.model.inertial`), the loader and the model doctor
(:mod:`robodyn.model.doctor`) read them. This module is the bottom of the URDF side of the
model layer: it imports nothing from the modules that use it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..spatial import rpy_to_rotation

__all__ = [
    "UrdfGeometry",
    "UrdfInertial",
    "UrdfLink",
    "UrdfJoint",
    "UrdfRobot",
    "origin_rotation",
    "placement",
]


@dataclass(frozen=True)
class UrdfGeometry:
    """One ``<collision>`` or ``<visual>`` geometry, in the link frame (or, from
    :func:`robodyn.load_mjcf`, one MJCF ``<geom>``).

    ``kind`` is "box" (``size`` = (x, y, z)), "cylinder" (``radius``, ``length`` along z),
    "sphere" (``radius``), "capsule" (``radius``, ``length``), "mesh" (``filename``,
    ``scale``; never opened), "ellipsoid" (MJCF only: ``size`` = the semi-axes) or
    "unknown".
    """

    kind: str
    xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)
    size: tuple[float, float, float] | None = None
    radius: float | None = None
    length: float | None = None
    filename: str | None = None
    scale: tuple[float, float, float] | None = None
    rgba: tuple[float, float, float, float] | None = None  # <visual><material> colour
    # folders where a mesh's package:// or relative name is looked up (load_urdf's
    # search_path=), absolute; the viewer looks there too
    search_path: tuple[str, ...] = ()


@dataclass(frozen=True)
class UrdfInertial:
    """A link's ``<inertial>``: mass, CoM frame (xyz, rpy) and the tensor in that frame."""

    mass: float
    xyz: tuple[float, float, float]
    rpy: tuple[float, float, float]
    inertia: np.ndarray  # (3, 3) tensor about the CoM, <inertial><origin> axes

    @property
    def com(self) -> np.ndarray:
        """Centre of mass in the link frame, shape (3,)."""
        return np.array(self.xyz, dtype=float)

    @property
    def inertia_link(self) -> np.ndarray:
        """Rotational inertia about the CoM in link axes, ``R I R^T``, shape (3, 3)."""
        if self.rpy == (0.0, 0.0, 0.0):  # (the common case: R = 1, I as written)
            return self.inertia
        R = origin_rotation(tuple(map(float, self.rpy)))
        return R @ self.inertia @ R.T


@dataclass(frozen=True)
class UrdfLink:
    """A ``<link>``: name, optional inertial, collision and visual geometries."""

    name: str
    inertial: UrdfInertial | None
    collisions: tuple[UrdfGeometry, ...] = ()
    visuals: tuple[UrdfGeometry, ...] = ()


@dataclass(frozen=True)
class UrdfJoint:
    """A ``<joint>`` as written; ``None`` marks an absent ``<limit>`` or attribute."""

    name: str
    type: str
    parent: str
    child: str
    xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)
    axis: tuple[float, float, float] = (1.0, 0.0, 0.0)
    has_limit: bool = False
    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None
    effort: float | None = None
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0  # <dynamics armature>: robodyn's extension (to_urdf writes it)
    mimic: str | None = None
    multiplier: float = 1.0
    offset: float = 0.0

    @property
    def T(self) -> np.ndarray:
        """Pose of the joint frame in the parent link frame at q = 0, shape (4, 4)."""
        return placement(self.xyz, self.rpy)


@dataclass(frozen=True)
class UrdfRobot:
    """A parsed ``<robot>``: links and joints in document order, keyed by name."""

    name: str
    links: dict[str, UrdfLink] = field(default_factory=dict)
    joints: dict[str, UrdfJoint] = field(default_factory=dict)


def placement(xyz, rpy) -> np.ndarray:
    """The pose an ``<origin xyz rpy>`` gives, ``T = [[R(rpy), xyz], [0, 1]]`` (MR eq.
    3.62), shape (4, 4); ``R = Rz(yaw) Ry(pitch) Rx(roll)`` computed once per distinct rpy.

    Parameters
    ----------
    xyz, rpy : tuple of 3 float

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    T = np.zeros((4, 4))
    T[:3, :3] = origin_rotation(tuple(map(float, rpy)))
    T[:3, 3] = xyz
    T[3, 3] = 1.0
    return T


@functools.lru_cache(maxsize=1024)
def origin_rotation(rpy: tuple[float, float, float]) -> np.ndarray:
    """The rotation of an ``<origin rpy>``, ``rpy_to_rotation(rpy)``, read-only, computed
    once per distinct rpy (a URDF repeats a few: zeros, quarter turns), shape (3, 3)."""
    R = rpy_to_rotation(rpy)
    R.flags.writeable = False
    return R
