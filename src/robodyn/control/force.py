"""Force control and hybrid motion-force control (MR sec. 11.5 and 11.6).

Both read the wrench at the controlled frame {b} through a force-torque sensor
(:class:`robodyn.sim.ForceSensor`, ideal by default), which reads the wrench the world
applies on the robot there; MR's ``F_tip``, the wrench the robot applies on the
environment, is minus the reading. :func:`robodyn.simulate` hands the sensing laws the
external wrenches of its ``environment=`` (and ``f_ext``) at every stage; called by hand,
a law takes them as ``f_env=`` (robodyn's ``f_ext`` layout, (..., nb, 6); None: nothing
touches the robot).

Their integrals (and the sensor's filter) are controller states the simulation
integrates (``state_size``), as :class:`robodyn.control.PID`'s. Both run on the Python
loop of :func:`robodyn.simulate` (numpy over a batch of states): the compiled rollout
has no environment.
"""

from __future__ import annotations

import numpy as np

from . import _task as tk
from .base import Controller, _fingerprint, _numbers, _saturate

__all__ = ["ForceControl", "HybridMotionForce"]


class ForceControl(Controller):
    """Force control of the wrench at a frame, with integral action (MR sec. 11.5).

    With ``F_tip`` the wrench the robot applies on the environment at the frame {b}
    (minus the sensor's reading) and the force error ``F_e = F_d - F_tip``, MR eq. 11.47::

        tau = g~(q) + J_b^T (F_d + K_fp F_e + K_fi int F_e dt - K_damp V_b)
              - k_null (1 - J_b^T Jbar_b^T) v

    ``g~`` the gravity torque of the controller's model, ``J_b`` the body Jacobian of {b}
    and ``V_b = J_b v`` its twist. ``K_damp`` is the velocity damping MR adds so that the
    robot does not accelerate away when it loses contact (it costs nothing at rest); the
    last term damps a redundant robot's self-motion (``Jbar_b = M^-1 J_b^T Lambda_b``,
    none with six joints or fewer). At rest with the true gravity model the wrench on the
    environment is ``F_tip = F_d``: with ``K_fi > 0`` whatever the model; with
    ``K_fi = 0`` a gravity error ``Delta g`` (a payload) leaves ``F_tip - F_d =
    -J_b^-T Delta g / (1 + K_fp)`` (the wrench ``Delta g`` needs, shared with the
    proportional gain).

    Parameters
    ----------
    model : Model
        The controller's model (its ``g~``; a perturbed one for a controller that does
        not know the payload).
    frame : str or int
        The frame {b} whose wrench is controlled.
    F_d : array_like (6,) or callable
        The desired wrench ``[m; f]`` on the environment, in {b}'s coordinates (N m, N),
        or ``F_d(t) -> (6,)``.
    kfp : float or array_like (6,) or (6, 6)
        Proportional gain on F_e (dimensionless), >= 0.
    kfi : float or array_like (6,) or (6, 6)
        Integral gain on F_e, 1/s, >= 0.
    kdamp : float or array_like (6,) or (6, 6)
        Velocity damping on V_b ([N m s/rad; N s/m]), >= 0 (default 0: MR's eq. 11.47).
    k_null : float
        Null-space damping, N m s/rad (redundant robots).
    sensor : robodyn.sim.ForceSensor, optional
        The sensor (noise, low-pass filter); default an ideal one at ``frame``.
    tau_max : float or array_like (nv,), optional
        Saturate the torque.

    Attributes
    ----------
    state_size : int
        6 (the integral of F_e) + the sensor's filter (6 or 0).
    """

    name = "force_control"
    uses_wrench = True

    def __init__(self, model, frame, F_d, kfp, kfi, *, kdamp=0.0, k_null: float = 1.0,
                 sensor=None, tau_max=None):  # fmt: skip
        self.model = model
        self.frame = tk.frame_index(model, frame)
        self.F_d = tk.wrench_target(F_d)
        self._F_d_arg = F_d
        self.kfp = tk.gain(kfp, "kfp", 6)
        self.kfi = tk.gain(kfi, "kfi", 6)
        self.kdamp = tk.gain(kdamp, "kdamp", 6)
        self.k_null = float(tk.gain(k_null, "k_null", 1))
        self.sensor = tk.sensor_of(sensor, frame)
        tk.frame_index(model, self.sensor.frame, "sensor.frame")
        self.tau_max = None if tau_max is None else tk.gain(tau_max, "tau_max", model.nv)
        self.state_size = 6 + self.sensor.state_size

    def describe(self) -> dict:
        """Class, model (by fingerprint), frame, F_d, gains, sensor and tau_max, as JSON."""
        return {
            "class": "ForceControl", "model": _fingerprint(self.model),
            "frame": self.model.frame_names[self.frame], "F_d": _wrench_json(self._F_d_arg),
            "kfp": _numbers(self.kfp), "kfi": _numbers(self.kfi),
            "kdamp": _numbers(self.kdamp), "k_null": self.k_null,
            "sensor": self.sensor.describe(), "tau_max": _numbers(self.tau_max),
        }  # fmt: skip

    def __call__(self, t, q, v, z=None, *, f_env=None):
        """``(tau, dz)``: the torque and the rate of the state ``z = [int F_e; filter]``."""
        m = self.model
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        z = tk.zeros_state(z, q, self.state_size)
        F_s, dz_s = self.sensor.read(m, q, f_env, z[..., 6:] if dz_needed(self) else None)
        ts = tk.task_state(m, q, v, self.frame, None, False, dynamics=False)
        F_d = self.F_d(t)
        F_e = F_d + F_s  # F_d - F_tip, F_tip = -F_s
        # F = F_d + K_fp F_e + K_fi int F_e - K_damp V_b
        F = F_d + tk.times(self.kfp, F_e) + tk.times(self.kfi, z[..., :6])
        F = F - tk.times(self.kdamp, ts.V)
        tau = ts.h + np.einsum("...ji,...j->...i", ts.J, F)  # g~ + J_b^T F
        if m.nv > 6:
            Jbar = _jbar(m, q, self.frame)
            null = tk.null_space(ts._replace(Jbar=Jbar), list(range(6)), v)
            tau = tau - self.k_null * null
        dz = F_e if dz_s is None else np.concatenate([F_e, dz_s], axis=-1)
        return _saturate(tau, self.tau_max), dz


def dz_needed(ctrl) -> bool:
    """Whether the law's sensor has a filter state (the last six entries of z)."""
    return ctrl.sensor.state_size > 0


def _jbar(model, q, frame: int) -> np.ndarray:
    from ..taskspace import dynamically_consistent_pinv

    return dynamically_consistent_pinv(model, q, frame, "body")


def _wrench_json(F_d):
    if callable(F_d):
        d = getattr(F_d, "describe", None)
        if not callable(d):
            raise TypeError("F_d is a callable that cannot describe itself (no describe())")
        return d()
    return _numbers(F_d)


class HybridMotionForce(Controller):
    """Hybrid motion-force control of a frame against natural constraints (MR sec. 11.6).

    The environment's natural constraints on the frame's body twist are ``A V_b = 0``
    (k rows of A, in {b}'s coordinates: a table under a tool whose z points into it is
    ``v_z = omega_x = omega_y = 0``). With the task-space inertia ``Lambda`` (MR eq.
    8.88), the projection of MR eq. 11.63 ::

        P = 1 - A^T (A Lambda^-1 A^T)^-1 A Lambda^-1

    (:func:`robodyn.constrained.constraint_projections` with Lambda for M: its ``P_u``)
    keeps the wrenches that move the frame along the constraints; ``1 - P`` those that
    push against them. The law (MR eq. 11.64) adds task-space motion control in the
    first subspace and force control (MR eq. 11.47) in the second::

        X_e = log(X^-1 X_d),  W = [Ad_{X^-1 X_d}] V_d,  V_e = W - V_b
        a   = dW + K_p X_e + K_i int X_e dt + K_d V_e
        F_e = F_d - F_tip
        tau = J_b^T (P Lambda a + (1 - P)(F_d + K_fp F_e + K_fi int F_e dt) - Lambda dJ_b v)
              + h~(q, v) - k_null (1 - J_b^T Jbar^T) v

    with ``dW`` the rate of W (as in :class:`robodyn.control.TaskSpaceComputedTorque`),
    ``h~ = c + g`` (+ joint friction) of the controller's model and
    ``Jbar = M^-1 J_b^T Lambda``. For a six-joint robot ``J_b^T (eta~ - ...)`` is MR's
    ``J_b^T eta~(q, V)`` (``eta = Lambda (J M^-1 h - dJ v)``); with more joints the form
    here keeps gravity compensated in the null space too. The motion error along the
    constraints and the force error along the free directions are projected out, but
    their integrals still grow there: give ``ki`` and ``kfi`` as per-row gains (zero on
    the rows that are not controlled) when the reference and the surface disagree or when
    friction loads the free directions.

    Parameters
    ----------
    model : Model
        The controller's model (six joints or more: Lambda is 6 x 6).
    frame : str or int
    A : array_like (k, 6)
        The natural constraints ``A V_b = 0``, 1 <= k <= 6 independent rows.
    ref : callable or array_like (4, 4)
        ``ref(t) -> (X_d, V_d, dV_d)`` (e.g. :func:`robodyn.trajectory.screw_trajectory`)
        or a constant pose.
    F_d : array_like (6,) or callable
        The desired wrench on the environment in {b} (N m, N), or ``F_d(t)``.
    kp, ki, kd : float or array_like (6,) or (6, 6)
        Motion gains (1/s^2, 1/s^3, 1/s), >= 0.
    kfp, kfi : float or array_like (6,) or (6, 6)
        Force gains (1, 1/s), >= 0.
    k_null : float
        Null-space damping, N m s/rad (redundant robots).
    friction : bool
        Compensate the model's joint friction in h~.
    sensor : robodyn.sim.ForceSensor, optional
    tau_max : float or array_like (nv,), optional

    Attributes
    ----------
    state_size : int
        12 (the integrals of X_e and F_e) + the sensor's filter (6 or 0).
    """

    name = "hybrid_motion_force"
    uses_wrench = True

    def __init__(self, model, frame, A, ref, F_d, kp, ki, kd, kfp, kfi, *,
                 k_null: float = 1.0, friction: bool = True, sensor=None,
                 tau_max=None):  # fmt: skip
        self.model = model
        self.frame = tk.frame_index(model, frame)
        if model.nv < 6:
            raise ValueError(
                f"model: hybrid motion-force control needs a robot of six joints "
                f"or more (Lambda is 6 x 6); {model.name!r} has nv = {model.nv}"
            )
        self.A = _constraint_matrix(A)
        self.ref = tk.PoseReference(ref)
        self.F_d = tk.wrench_target(F_d)
        self._F_d_arg = F_d
        names = ("kp", "ki", "kd", "kfp", "kfi")
        self.kp, self.ki, self.kd, self.kfp, self.kfi = (
            tk.gain(k, n, 6) for k, n in zip((kp, ki, kd, kfp, kfi), names))  # fmt: skip
        self.k_null = float(tk.gain(k_null, "k_null", 1))
        self.friction = bool(friction)
        self.sensor = tk.sensor_of(sensor, frame)
        tk.frame_index(model, self.sensor.frame, "sensor.frame")
        self.tau_max = None if tau_max is None else tk.gain(tau_max, "tau_max", model.nv)
        self.state_size = 12 + self.sensor.state_size

    def describe(self) -> dict:
        """Class, model (by fingerprint), frame, A, reference, F_d, gains, sensor, as JSON."""
        return {
            "class": "HybridMotionForce", "model": _fingerprint(self.model),
            "frame": self.model.frame_names[self.frame], "A": _numbers(self.A),
            "ref": self.ref.describe(), "F_d": _wrench_json(self._F_d_arg),
            **{n: _numbers(getattr(self, n)) for n in ("kp", "ki", "kd", "kfp", "kfi")},
            "k_null": self.k_null, "friction": self.friction,
            "sensor": self.sensor.describe(), "tau_max": _numbers(self.tau_max),
        }  # fmt: skip

    def projection(self, q) -> np.ndarray:
        """``P(q)`` (..., 6, 6) of MR eq. 11.63 at the configuration(s) q."""
        from ..taskspace import task_space_inertia

        return _projections(task_space_inertia(self.model, q, self.frame, "body"), self.A)

    def __call__(self, t, q, v, z=None, *, f_env=None):
        """``(tau, dz)``: the torque and the rate of ``z = [int X_e; int F_e; filter]``."""
        m, rows = self.model, list(range(6))
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        z = tk.zeros_state(z, q, self.state_size)
        F_s, dz_s = self.sensor.read(m, q, f_env, z[..., 12:] if dz_needed(self) else None)
        ts = tk.task_state(m, q, v, self.frame, rows, self.friction)
        X_e, W, dW = tk.pose_error(ts.X, self.ref(t), ts.V)
        # a = dW + K_p X_e + K_i int X_e + K_d (W - V)
        a = dW + tk.times(self.kp, X_e) + tk.times(self.ki, z[..., :6])
        a = a + tk.times(self.kd, W - ts.V)
        F_d = self.F_d(t)
        F_e = F_d + F_s  # F_d - F_tip
        F_f = F_d + tk.times(self.kfp, F_e) + tk.times(self.kfi, z[..., 6:12])
        P = _projections(ts.Lam, self.A)
        motion = np.einsum("...ij,...j->...i", ts.Lam, a)
        F = np.einsum("...ij,...j->...i", P, motion - F_f) + F_f  # P Lam a + (1 - P) F_f
        F = F - np.einsum("...ij,...j->...i", ts.Lam, ts.dJv)  # - Lambda dJ v
        tau = np.einsum("...ji,...j->...i", ts.J, F) + ts.h
        tau = tau - self.k_null * tk.null_space(ts, rows, v)
        dz = [X_e, F_e] + ([] if dz_s is None else [dz_s])
        return _saturate(tau, self.tau_max), np.concatenate(dz, axis=-1)


def _constraint_matrix(A) -> np.ndarray:
    A = np.asarray(A, dtype=float)
    if A.ndim == 1:
        A = A[None, :]
    if A.ndim != 2 or A.shape[1] != 6 or not 1 <= A.shape[0] <= 6:
        raise ValueError(f"A must be a constraint matrix of shape (k, 6), 1 <= k <= 6 (rows "
                         f"acting on the body twist [omega; v]), got shape {A.shape}")  # fmt: skip
    if not np.all(np.isfinite(A)):
        raise ValueError("A contains NaN or inf")
    if np.linalg.matrix_rank(A) < A.shape[0]:
        raise ValueError(f"A's {A.shape[0]} rows are linearly dependent (rank "
                         f"{np.linalg.matrix_rank(A)})")  # fmt: skip
    return A


def _projections(Lam, A) -> np.ndarray:
    """P = 1 - A^T (A Lambda^-1 A^T)^-1 A Lambda^-1 for Lambda (..., 6, 6), one state at a
    time through robodyn.constrained.constraint_projections (Lambda in M's place)."""
    from ..constrained import constraint_projections

    if Lam.ndim == 2:
        return constraint_projections(Lam, A)[0]
    P = np.empty(Lam.shape)
    for i in np.ndindex(Lam.shape[:-2]):
        P[i] = constraint_projections(Lam[i], A)[0]
    return P
