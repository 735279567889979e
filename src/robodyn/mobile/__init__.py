"""Wheeled mobile robots and mobile manipulation (Modern Robotics ch. 13).

Kinematic models with chassis configuration ``q = (phi, x, y)`` and planar body twist
``V_b = (omega_bz, v_bx, v_by)`` (angular first)::

    robot = rd.mobile.DiffDrive(wheel_radius=0.1, half_track=0.25)   # also Unicycle(),
    # Car(wheelbase, max_steer), Omni(...), Mecanum(half_length, half_width, wheel_radius)
    robot.wheel_speeds(twist)        # u = H(0) V_b
    robot.H(phi)                     # u = H(phi) qdot
    robot.chassis_twist(u)           # V_b = F u, F = H(0)^+
    robot.constraints(q)             # Pfaffian A(q), A(q) qdot = 0
    q_next = rd.mobile.odometry(robot, q, wheel_angle_increments)   # exact (MR 13.4)

* :mod:`robodyn.mobile.wheeled`: the robots, :func:`odometry`, :func:`planar_exp`.
* :mod:`robodyn.mobile.control`: :func:`drive`, :class:`TrackingController` (MR 13.3.4),
  :class:`PurePursuit`, :func:`car_path` (lines and arcs), :func:`dubins`,
  :func:`reeds_shepp`.
* :mod:`robodyn.mobile.manipulator`: :func:`youbot` (the MR capstone), ``J_e = [J_base,
  J_arm]``, :class:`TaskSpacePI`, :func:`track`.
* :mod:`robodyn.mobile.dynamics`: :class:`Pfaffian` for ``rd.simulate(..., constraints=)``,
  :func:`knife_edge_model`, :func:`diff_drive_model`.
* :mod:`robodyn.mobile.plot`: chassis path, wheel speeds, animation.
"""

from __future__ import annotations

from . import control, dynamics, manipulator, wheeled
from .control import *  # noqa: F403 (each module's public names, as its __all__ lists them)
from .dynamics import *  # noqa: F403
from .manipulator import *  # noqa: F403
from .wheeled import *  # noqa: F403

# the robots, control, mobile manipulation, dynamics: every name handed on
__all__ = [*wheeled.__all__, *control.__all__, *manipulator.__all__, *dynamics.__all__]
