"""Dynamics of wheeled robots under rolling constraints (course notes 001 sec. 10.3).

A wheeled robot is a Model whose chassis moves on three planar joints (prismatic x,
prismatic y, revolute z: ``q = (x, y, phi, ...)``, plus wheel joints) and whose motion is
restricted by Pfaffian constraints ``A(q) v = 0`` (rolling without slipping). Pass a
:class:`Pfaffian` to ``rd.simulate(model, q0, v0, controller, ..., constraints=c)``: the
accelerations then come from :func:`robodyn.constrained_forward_dynamics` (the KKT system
of eqs. 10.16-10.17) with Baumgarte stabilisation of the drift.

* :class:`Pfaffian` (defined in :mod:`robodyn.constrained`, handed on here): ``A(q)``,
  ``dA/dt v`` and the Baumgarte rates.
* :func:`rolling_constraints`: a robot's :meth:`constraints` placed on a model's coordinates.
* :func:`knife_edge_model`: course notes 001, Example 10.3.1 (a unicycle with mass and
  inertia), with its constraint.
* :func:`diff_drive_model`: a differential-drive robot with chassis mass and inertia and
  two driven wheels, with its three constraints.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_positive
from ..constrained import Pfaffian
from .wheeled import DiffDrive, Unicycle, _Wheeled

__all__ = ["Pfaffian", "rolling_constraints", "knife_edge_model", "diff_drive_model"]


def rolling_constraints(robot: _Wheeled, index, *, alpha: float = 2.0) -> Pfaffian:
    """A robot's Pfaffian constraints on a model's velocity coordinates.

    Parameters
    ----------
    robot : Unicycle, DiffDrive, Car, Omni or Mecanum
    index : sequence of int
        Model coordinates of ``(phi, x, y)``, followed (optionally) by those of the wheel
        angles (then the rolling constraints are included, see ``robot.constraints``).
    alpha : float
        Baumgarte damping rate, 1/s.

    Returns
    -------
    Pfaffian
        ``A(q)`` (k, nv) with the robot's columns scattered to ``index``, and the exact
        ``dA/dt v`` (A depends on phi only).
    """
    idx = np.asarray(index, dtype=int)
    if idx.ndim != 1 or len(idx) < 3 or len(set(idx.tolist())) != len(idx):
        raise ValueError(f"index must list distinct coordinates (phi, x, y[, wheels]), got {index}")

    def A(q):
        q = np.asarray(q, dtype=float)
        a = robot.constraints(q[idx])
        out = np.zeros(a.shape[:-1] + (q.shape[-1],))
        out[..., idx] = a
        return out

    def dA_v(q, v):
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        return robot.constraints_dot(q[idx], v[idx])

    return Pfaffian(A, dA_v, alpha=alpha)


def _planar_chassis(builder, mass: float, inertia_z: float):
    from ..inertia import RigidInertia

    return (
        builder.add_body("slide_x", "world", joint_type="prismatic", axis=(1, 0, 0))
        .add_body("slide_y", "slide_x", joint_type="prismatic", axis=(0, 1, 0))
        .add_body("chassis", "slide_y", joint_name="heading", joint_type="revolute",
                  axis=(0, 0, 1),
                  inertia=RigidInertia(mass, [0, 0, 0], np.diag([inertia_z] * 3)))
    )  # fmt: skip


def knife_edge_model(mass: float = 1.0, inertia: float = 0.1, *, alpha: float = 2.0):
    """The knife-edge of course notes 001, Example 10.3.1: ``q = (q1, q2, q3)`` the
    contact point and the heading, ``M = diag(m, m, I)``, and its constraint
    ``A(q) = [sin q3, -cos q3, 0]`` (eq. 10.21, :class:`Unicycle`'s no-slip row).

    Returns
    -------
    model : Model
        Joints ``slide_x_joint``, ``slide_y_joint`` (m), ``heading`` (rad); gravity along -z.
    constraint : Pfaffian
    """
    from ..model.builder import ModelBuilder

    m = as_positive(mass, "mass", " of kg")
    I = as_positive(inertia, "inertia", " of kg m^2")  # noqa: E741
    model = _planar_chassis(ModelBuilder(name="knife_edge", gravity=(0, 0, -9.81)), m, I).build()
    return model, rolling_constraints(Unicycle(), (2, 0, 1), alpha=alpha)


def diff_drive_model(robot: DiffDrive, chassis_mass: float, chassis_inertia: float,
                     wheel_mass: float, wheel_inertia: float, *, alpha: float = 2.0):  # fmt: skip
    """A differential-drive robot with mass: ``q = (x, y, phi, theta_L, theta_R)``.

    The chassis (mass, inertia about z at its origin, the axle centre) moves on planar
    joints; each wheel (mass, inertia about its axle ``wheel_inertia``, half of it about
    the other axes) turns about the chassis y axis at ``(0, +-d, 0)``, so that a positive
    wheel rate drives forward. Constraints: rolling of both wheels and no sideways slip
    (``robot.constraints`` with the wheel angles, 3 rows).

    Returns
    -------
    model : Model
        Joints ``slide_x_joint``, ``slide_y_joint``, ``heading``, ``wheel_L``, ``wheel_R``;
        the wheel torques are the last two entries of tau.
    constraint : Pfaffian
    """
    from ..inertia import RigidInertia
    from ..model.builder import ModelBuilder
    from ..spatial import transform

    if not isinstance(robot, DiffDrive):
        raise ValueError(f"robot must be a DiffDrive, got {type(robot).__name__}")
    mc = as_positive(chassis_mass, "chassis_mass", " of kg")
    Ic = as_positive(chassis_inertia, "chassis_inertia", " of kg m^2")
    mw = as_positive(wheel_mass, "wheel_mass", " of kg")
    Iw = as_positive(wheel_inertia, "wheel_inertia", " of kg m^2")
    d = robot.half_track
    wheel = RigidInertia(mw, [0, 0, 0], np.diag([Iw / 2, Iw, Iw / 2]))
    b = _planar_chassis(ModelBuilder(name="diff_drive", gravity=(0, 0, -9.81)), mc, Ic)
    for name, y in (("wheel_L", d), ("wheel_R", -d)):
        b.add_body(name, "chassis", joint_name=name, joint_type="revolute", axis=(0, 1, 0),
                   T=transform(p=(0.0, y, 0.0)), inertia=wheel)  # fmt: skip
    return b.build(), rolling_constraints(robot, (2, 0, 1, 3, 4), alpha=alpha)
