"""Motion control with velocity inputs (MR sec. 11.3): controllers of a kinematic robot.

Many robots take joint velocities, not torques: an inner loop (the drive's) makes each
joint move at the commanded rate, and the outer loop is kinematic. These controllers return
a velocity command ``v_cmd`` (nv,) for :func:`robodyn.simulate` with ``input="velocity"``,
which integrates ``q_dot = v_cmd`` (no dynamics).

* :class:`KinematicJoint`: feedforward plus PI on the joint error (MR sec. 11.3.1-11.3.2)::

      v_cmd = v_d + K_p e + K_i int e,     e = q_d (-) q

  so that ``e_d + K_p e + K_i int e = 0``: with ``K_i = 0`` each error decays as
  ``exp(-K_p t)``; with PI it is the second-order ``e_dd + K_p e_d + K_i e = 0``
  (:func:`robodyn.control.error_dynamics` with ``kd = K_p``, ``kp = K_i``).
* :class:`KinematicTaskSpace`: a frame follows an SE(3) reference (MR eqs. 11.16-11.17)::

      X_err = log(X^-1 X_d)                                  (body-frame error twist)
      V_b   = [Ad_{X^-1 X_d}] V_d + K_p X_err + K_i int X_err
      v_cmd = J_b^# V_b

  with ``J_b^#`` the damped least-squares inverse of
  :class:`~robodyn.control.TaskSpaceComputedTorque` (the pseudo-inverse away from
  singularities). With ``K_i = 0`` and a square, non-singular ``J_b`` the error obeys
  ``d/dt X_err = -K_p X_err`` exactly (``X^-1 X_d`` stays on one screw), so it decays as
  ``exp(-K_p t)`` (scalar K_p).

The integral is the controller's state (``state_size``), integrated by the simulation, as
:class:`~robodyn.control.PID`'s is: a controller with ``ki`` is called
``ctrl(t, q, v, z) -> (v_cmd, dz)``, without ``ctrl(t, q, v) -> v_cmd``; ``v`` (the robot's
velocity, the command it is executing) is not used by these laws. Both take one state or a
batch (q of shape (..., nq)).
"""

from __future__ import annotations

import numpy as np

from ._task import PoseReference
from .base import (
    Controller,
    _damped_inverse,
    _describe_callable,
    _error,
    _fingerprint,
    _gain,
    _numbers,
    _Reference,
    _times,
)

__all__ = ["KinematicJoint", "KinematicTaskSpace"]


def _integral_gain(ki, n: int):
    """``ki`` checked as a gain of size n, or None when absent or zero (no state)."""
    if ki is None:
        return None
    k = _gain(ki, "ki", n)
    return k if np.any(k != 0) else None


class KinematicJoint(Controller):
    """Joint velocity command by feedforward plus PI (MR sec. 11.3.1-11.3.2).

    ``v_cmd = v_d + K_p e + K_i int e`` with ``e = q_d (-) q`` (:func:`robodyn.difference`
    on a floating base), for :func:`robodyn.simulate` with ``input="velocity"``.

    Parameters
    ----------
    model : Model
    ref : callable or array_like (nq,)
        ``ref(t) -> (q_d, v_d, a_d)`` (e.g. :func:`robodyn.trajectory.joint_trajectory`;
        a_d is not used) or a constant target (v_d = 0).
    kp : float or array_like (nv,) or (nv, nv)
        Proportional gain, 1/s: with ``ki = 0`` the error decays as ``exp(-kp t)``.
    ki : float or array_like (nv,) or (nv, nv), optional
        Integral gain, 1/s^2 (None or 0: no integral, no state).

    Examples
    --------
    >>> import numpy as np, robodyn as rd
    >>> arm = rd.models.load("planar_2r")
    >>> ctrl = rd.control.KinematicJoint(arm, [0.5, -0.5], kp=4.0)
    >>> res = rd.simulate(arm, [0.0, 0.0], controller=ctrl, duration=1.0, dt=1e-3,
    ...                   input="velocity")
    >>> e0 = np.array([0.5, -0.5])
    >>> bool(np.allclose(e0 - res.q[-1], e0 * np.exp(-4.0), rtol=1e-9))  # e0 exp(-kp t)
    True
    """

    name = "kinematic_joint"
    input = "velocity"

    def __init__(self, model, ref, kp, ki=None):
        self.model = model
        if ref is None:
            raise ValueError("ref must be a configuration (nq,) or ref(t) -> (q, v, a), got None")
        self.ref = _Reference(ref, "ref")
        if self.ref.q is not None and self.ref.q.shape != (model.nq,):
            raise ValueError(f"ref must be a configuration ({model.nq},) (nq) or ref(t) -> "
                             f"(q, v, a), got shape {self.ref.q.shape}")  # fmt: skip
        self.kp = _gain(kp, "kp", model.nv)
        self.ki = _integral_gain(ki, model.nv)
        self.state_size = 0 if self.ki is None else model.nv
        self._nv, self._flat = model.nv, model.nq == model.nv

    def describe(self) -> dict:
        """Class, model (by fingerprint), reference and gains, as JSON (see
        :meth:`Controller.describe`)."""
        return {
            "class": "KinematicJoint", "model": _fingerprint(self.model),
            "ref": self.ref.describe("the reference"), "kp": _numbers(self.kp),
            "ki": _numbers(self.ki),
        }  # fmt: skip

    def __call__(self, t, q, v=None, z=None):
        q = np.asarray(q, dtype=float)
        q_d, v_d, _ = self.ref(t, self._nv)
        e = q_d - q if self._flat else _error(self.model, q_d, q, self._nv, "KinematicJoint")
        v_cmd = v_d + _times(self.kp, e)  # v_d + K_p e
        if self.ki is None:
            return v_cmd
        return v_cmd + _times(self.ki, np.asarray(z, dtype=float)), e  # + K_i int e; dz = e


class _PoseReference(PoseReference):
    """A task-space reference (:class:`robodyn.control._task.PoseReference`) giving the
    pose and body twist a velocity law needs: ``(X_d (4, 4), V_d (6,))``."""

    def __call__(self, t):
        X_d, V_d = super().__call__(t)[:2]
        return X_d, V_d

    def describe(self) -> dict:
        if self.pose is not None:
            return {"kind": "constant", "X": _numbers(self.pose)}
        return _describe_callable(self.fn, "the reference")


class KinematicTaskSpace(Controller):
    """A frame follows an SE(3) reference by velocity commands (MR eqs. 11.16-11.17).

    With ``X`` the frame's pose, ``X_d`` the reference and ``E = X^-1 X_d``::

        X_err = log(E)                                        (body-frame error twist)
        V_b   = [Ad_E] V_d + K_p X_err + K_i int X_err        (MR eq. 11.16)
        v_cmd = J_b^# V_b                                     (MR eq. 11.17)

    ``[Ad_E] V_d`` is the reference's body twist seen in the frame (feedforward);
    ``J_b^#`` the damped least-squares inverse ``V diag(s_i / (s_i^2 + lambda^2)) U^T``
    of the body Jacobian with ``lambda^2 = damping^2 (1 - (s_min /
    singular_threshold)^2)`` below ``singular_threshold`` and 0 above it, as in
    :class:`~robodyn.control.TaskSpaceComputedTorque` (a redundant arm moves by the
    minimum-norm joint velocities). For :func:`robodyn.simulate` with ``input="velocity"``.

    Parameters
    ----------
    model : Model
    frame : str or int
        The controlled operational frame.
    ref : callable or array_like (4, 4)
        ``ref(t) -> (X_d (4, 4), V_d (6,), ...)`` with V_d the body twist [omega_b, v_b] of
        the reference frame (e.g. :func:`robodyn.trajectory.screw_trajectory`; a third
        output, dV_d, is not used), or a constant pose.
    kp : float or array_like (6,) or (6, 6)
        Gain on the [angular; linear] error, 1/s.
    ki : float or array_like (6,) or (6, 6), optional
        Integral gain, 1/s^2 (None or 0: no integral, no state; else ``state_size = 6``,
        the integral of X_err).
    damping : float
        The largest damping ``lambda`` of the inverse, reached at a singularity.
    singular_threshold : float
        The smallest singular value of J_b below which the inverse is damped.
    """

    name = "kinematic_task_space"
    input = "velocity"

    def __init__(self, model, frame, ref, kp, ki=None, *, damping: float = 0.05,
                 singular_threshold: float = 0.05):  # fmt: skip
        self.model = model
        self.frame = model.frame_id(frame)
        self.ref = _PoseReference(ref)
        self.kp = _gain(kp, "kp", 6)
        self.ki = _integral_gain(ki, 6)
        self.state_size = 0 if self.ki is None else 6
        for name, x in (("damping", damping), ("singular_threshold", singular_threshold)):
            if not (np.isfinite(x) and x >= 0):
                raise ValueError(f"{name} must be finite and >= 0, got {x!r}")
        self.damping, self.singular_threshold = float(damping), float(singular_threshold)

    def describe(self) -> dict:
        """Class, model (by fingerprint), frame, reference, gains and the inverse's damping,
        as JSON (see :meth:`Controller.describe`)."""
        return {
            "class": "KinematicTaskSpace", "model": _fingerprint(self.model),
            "frame": self.model.frame_names[self.frame], "ref": self.ref.describe(),
            "kp": _numbers(self.kp), "ki": _numbers(self.ki), "damping": self.damping,
            "singular_threshold": self.singular_threshold,
        }  # fmt: skip

    def error(self, t, q) -> np.ndarray:
        """The body-frame error twist ``X_err = log(X^-1 X_d)`` at time t (..., 6)."""
        return self._twists(t, q)[0]

    def _twists(self, t, q):
        """``(X_err, [Ad_E] V_d, J_b)`` at time t and configuration(s) q."""
        from ..kinematics import fk, jacobian
        from ..spatial import adjoint, inv_transform, log6

        m, f = self.model, self.frame
        q = np.asarray(q, dtype=float)
        X_d, V_d = self.ref(t)
        E = inv_transform(fk(m, q, f)) @ X_d  # E = X^-1 X_d
        X_err = log6(E, check=False)
        V_ff = np.einsum("...ij,...j->...i", adjoint(E), V_d)  # [Ad_E] V_d
        return X_err, V_ff, jacobian(m, q, f, kind="body")

    def __call__(self, t, q, v=None, z=None):
        X_err, V_ff, J = self._twists(t, q)
        V_b = V_ff + _times(self.kp, X_err)  # MR eq. 11.16
        if self.ki is not None:
            V_b = V_b + _times(self.ki, np.asarray(z, dtype=float))
        Jp = _damped_inverse(J, self.damping, self.singular_threshold)
        v_cmd = np.einsum("...ij,...j->...i", Jp, V_b)  # MR eq. 11.17: J_b^# V_b
        return v_cmd if self.ki is None else (v_cmd, X_err)
