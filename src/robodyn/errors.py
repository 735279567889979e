"""Errors and warnings raised by robodyn."""

from __future__ import annotations

__all__ = [
    "ModelError",
    "ModelWarning",
    "SimulationError",
    "SimulationInterrupted",
    "SimulationWarning",
    "TrajectoryFileError",
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


class TrajectoryFileError(ValueError):
    """A trajectory file that cannot be read as one: what :meth:`robodyn.Trajectory.load`
    raises for a ``.npz`` of :meth:`~robodyn.Trajectory.save` or the ``<out>.partial``
    folder of a streamed run that is not a zip archive, is truncated or corrupt (a member's
    CRC-32), lacks an array or its metadata, holds metadata that is not JSON, arrays whose
    shapes or types do not agree (with each other, or with the model given), a ``done`` or
    a layout outside the file, or a member larger than the memory allowed.

    ``path`` is the file (or folder), ``field`` the array or metadata entry at fault
    (``"q"``, ``"meta"``, ``"done"``, ...; None for the file as a whole), ``problem`` what is
    wrong; the message says all three. A missing file is a :class:`FileNotFoundError`.
    """

    def __init__(self, path, problem: str, field: str | None = None):
        self.path, self.problem, self.field = str(path), problem, field
        at = "" if field is None else f", {field!r}"
        super().__init__(f"trajectory file {self.path!r}{at}: {problem}")

    def __reduce__(self):  # pickled (a Dask worker's error) with its attributes
        return (type(self), (self.path, self.problem, self.field))
