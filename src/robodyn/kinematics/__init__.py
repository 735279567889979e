"""Kinematics of a :class:`~robodyn.model.model.Model` (Modern Robotics ch. 4-6).

Forward kinematics, Jacobians and their time derivative, frame velocities and
accelerations and their derivatives in q, v and a (the kinematic Hessian dJ/dq), centre
of mass, manipulability and the velocity/force ellipsoids, and
numerical inverse kinematics.

Conventions (the book's):

* a pose is the 4x4 transform ``T_sf`` of a frame {f} in the world {s} (MR eq. 3.62);
* twists and Jacobian rows are ``[omega; v]``. Three kinds of Jacobian ``J`` (6, nv):

  ``"space"``
      MR's space Jacobian ``J_s``: ``V_s = J_s v`` is the twist of the frame in world
      coordinates (``v_s`` is the velocity of the body point at the world origin).
      Pinocchio's ``WORLD``.
  ``"body"``
      MR's body Jacobian ``J_b = [Ad_{T_sf^-1}] J_s``: ``V_b = J_b v`` in frame
      coordinates. Pinocchio's ``LOCAL``.
  ``"world_aligned"``
      ``[omega_world; pdot]``: angular velocity in world axes and the velocity of the
      frame origin in world axes. Pinocchio's ``LOCAL_WORLD_ALIGNED``.

* a floating base's six velocity coordinates are its body twist ``[omega_b, v_b]``, so
  its Jacobian columns are ``[Ad_{T_s,base}]`` in the space kind;
* a mimic joint owns no coordinate: its screw axis, times its multiplier, adds to its
  leader's column.

The work is done by robodyn's compiled core (``kernels/core/kinematics.c``) on the model
packed once; the functions here take one state or any number of leading batch dimensions
(``q`` of shape (..., nq)) and name the argument when a shape is wrong.
"""

from .derivatives import (
    frame_acceleration_derivatives,
    frame_velocity_derivatives,
    kinematic_hessian,
)
from .forward import (
    JACOBIAN_KINDS,
    Ellipsoid,
    body_poses,
    com,
    com_acceleration,
    com_jacobian,
    com_velocity,
    fk,
    force_ellipsoid,
    forward_kinematics,
    frame_acceleration,
    frame_velocity,
    jacobian,
    jacobian_dot,
    manipulability,
    velocity_ellipsoid,
)

# ik_batch and ik_all are handed on too (robodyn.ik_batch loads from here), not in __all__.
from .inverse import IKResult, ik, ik_all, ik_batch  # noqa: F401

__all__ = [
    "fk",
    "forward_kinematics",
    "body_poses",
    "jacobian",
    "jacobian_dot",
    "frame_velocity",
    "frame_acceleration",
    "kinematic_hessian",
    "frame_velocity_derivatives",
    "frame_acceleration_derivatives",
    "com",
    "com_jacobian",
    "com_velocity",
    "com_acceleration",
    "manipulability",
    "velocity_ellipsoid",
    "force_ellipsoid",
    "Ellipsoid",
    "ik",
    "IKResult",
    "JACOBIAN_KINDS",
]
