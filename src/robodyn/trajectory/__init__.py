"""Trajectories (MR ch. 9): time scalings, straight lines in joint space, via-point
splines, screw and Cartesian paths in SE(3).

``ref = rd.trajectory.joint_trajectory(q_start, q_end, duration, time_scaling="quintic")``
is callable, ``ref(t) -> (q, v, a)``, has ``.duration`` and ``.sample(dt)``, and is what
robodyn.control's controllers follow. See :mod:`robodyn.trajectory.scaling` and
:mod:`robodyn.trajectory.paths`.
"""

from __future__ import annotations

from .paths import (
    JointSample,
    JointTrajectory,
    PoseSample,
    PoseTrajectory,
    SplineTrajectory,
    cartesian_trajectory,
    joint_trajectory,
    screw_trajectory,
    spline_trajectory,
)
from .scaling import (
    SCALINGS,
    CubicScaling,
    QuinticScaling,
    SCurveScaling,
    TrapezoidalScaling,
    time_scaling,
)

__all__ = [
    "joint_trajectory",
    "spline_trajectory",
    "screw_trajectory",
    "cartesian_trajectory",
    "time_scaling",
    "CubicScaling",
    "QuinticScaling",
    "TrapezoidalScaling",
    "SCurveScaling",
    "SCALINGS",
    "JointTrajectory",
    "SplineTrajectory",
    "PoseTrajectory",
    "JointSample",
    "PoseSample",
]
