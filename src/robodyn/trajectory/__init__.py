"""Trajectories (MR ch. 9): time scalings, straight lines in joint space, via-point
splines, screw and Cartesian paths in SE(3), and time-optimal time scaling (MR sec. 9.4).

``ref = rd.trajectory.joint_trajectory(q_start, q_end, duration, time_scaling="quintic")``
is callable, ``ref(t) -> (q, v, a)``, has ``.duration`` and ``.sample(dt)``, and is what
robodyn.control's controllers follow. See :mod:`robodyn.trajectory.scaling` and
:mod:`robodyn.trajectory.paths`.

Paths without time, ``path(s) -> (q, dq/ds, d2q/ds2)`` for s in [0, 1]
(:func:`joint_path`, :func:`spline_path`, :mod:`robodyn.trajectory.geometric`), are timed
by ``rd.trajectory.time_optimal(model, path, tau_max=...)``: the fastest motion that keeps
the torque (velocity, acceleration) limits, whose ``.trajectory`` is such a reference
(:mod:`robodyn.trajectory.phase_plane`, :mod:`robodyn.trajectory.reachability`,
:mod:`robodyn.trajectory.bisection`).
"""

from __future__ import annotations

from .geometric import JointPath, SplinePath, joint_path, spline_path
from .optimal import time_optimal
from .optimal_result import TimeOptimal, TimeOptimalTrajectory
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
    "time_optimal",
    "TimeOptimal",
    "TimeOptimalTrajectory",
    "joint_path",
    "spline_path",
    "JointPath",
    "SplinePath",
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
