"""Errors and warnings raised by robodyn."""

from __future__ import annotations

__all__ = [
    "ModelError",
    "ModelWarning",
    "SimulationError",
    "SimulationInterrupted",
    "SimulationWarning",
]


class ModelError(ValueError):
    """A robot description (URDF, DH table, PoE data, builder call) is invalid.

    The message names the offending element (link, joint, attribute) and the numbers.
    """


class ModelWarning(UserWarning):
    """A robot description is usable but physically implausible.

    Raised (as a warning) for a link whose inertia violates the triangle inequality, a
    link with zero mass and a non-zero inertia tensor, a moving link without mass, a
    massless moving subtree, or an inertia implausible for the link's collision geometry.
    The message names the link, the numbers and the fix (``rd.fix_urdf`` or
    ``robodyn check ROBOT --fix OUT``). ``load_urdf(..., strict=True)`` makes each of these
    a :class:`ModelError`; ``warnings.simplefilter("error", rd.ModelWarning)`` does too.
    """


class SimulationError(RuntimeError):
    """A simulation failed (diverged, non-finite state, a controller error).

    ``partial`` holds what was computed up to the failure (a trajectory), so nothing the
    user computed is lost.
    """

    def __init__(self, message: str, partial=None, *, reason: str | None = None):
        super().__init__(message)
        self.partial = partial
        #: what happened, without the sentence about ``partial`` (for a command line)
        self.reason = message if reason is None else reason


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a simulation; ``partial`` holds what it finished.

    A :class:`KeyboardInterrupt`, so a script that stops on Ctrl-C still stops, and one that
    catches it keeps the samples::

        try:
            res = rd.simulate(model, q0, duration=1e4, dt=1e-3)
        except rd.SimulationInterrupted as stop:
            res = stop.partial  # t = 0 .. the last finished sample
    """

    def __init__(self, message: str, partial=None):
        super().__init__(message)
        self.partial = partial


class SimulationWarning(UserWarning):
    """A simulation's settings will probably make it fail: a step ``dt`` beyond the
    stable step of the integrator for the controller's gains (:func:`robodyn.sim.stable_step`).
    The message gives the step to use instead."""
