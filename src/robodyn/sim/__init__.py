"""Simulation: :func:`simulate` a model under a controller, and its :class:`Trajectory`.

See :mod:`robodyn.sim.simulate` (the loop and its options), :mod:`robodyn.sim.integrators`
(Euler, semi-implicit Euler, RK4 on the configuration manifold),
:mod:`robodyn.sim.stability` (the largest stable step for a controller's gains),
:mod:`robodyn.sim.linearize` (the state-space matrices about a state, continuous or of one
step),
:mod:`robodyn.sim.environment` (compliant contacts of the robot's points with planes,
boxes and spheres: something to push against), :mod:`robodyn.sim.sensor` (a force-torque
sensor) and
:mod:`robodyn.sim.plot` (figures and animations).
"""

from __future__ import annotations

from .environment import Box, ContactPoint, Contacts, Environment, Plane, Sphere
from .linearize import linearize
from .result import Trajectory
from .sensor import ForceSensor
from .simulate import INTEGRATORS, simulate
from .stability import StepCheck, nice_step, stable_step, step_for

__all__ = [
    "simulate",
    "Trajectory",
    "INTEGRATORS",
    "stable_step",
    "step_for",
    "nice_step",
    "StepCheck",
    "linearize",
    "Environment",
    "ContactPoint",
    "Plane",
    "Box",
    "Sphere",
    "Contacts",
    "ForceSensor",
]
