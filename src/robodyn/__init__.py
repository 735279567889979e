"""robodyn: the mechanics of robots and rigid bodies, in the notation of Modern Robotics.

``import robodyn as rd`` re-exports the public API. Importing computes and compiles
nothing: compiled kernels load on their first call (from numba's on-disk cache when warm).
"""

from __future__ import annotations

from . import inertia, spatial
from .errors import ModelError
from .inertia import RigidInertia
from .spatial import ad, adjoint, exp3, exp6, inv_transform, log3, log6, skew, transform, unskew

__version__ = "0.1.0"

__all__ = [
    "ModelError",
    "RigidInertia",
    "__version__",
    "ad",
    "adjoint",
    "exp3",
    "exp6",
    "inertia",
    "inv_transform",
    "log3",
    "log6",
    "skew",
    "spatial",
    "transform",
    "unskew",
]
