"""Errors and warnings raised by robodyn."""

from __future__ import annotations

__all__ = ["ModelError", "ModelWarning", "SimulationError"]


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

    def __init__(self, message: str, partial=None):
        super().__init__(message)
        self.partial = partial
