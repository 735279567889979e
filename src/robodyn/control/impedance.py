"""Impedance and admittance control (MR sec. 11.7): the robot behaves as a virtual
mass-spring-damper about a reference.

For the controlled rows S of the frame's body twist (all six, or fewer for a robot of
fewer joints: ``rows=[2]`` makes a 1-DoF arm turning about z a rotational impedance), the
rendered behaviour is, MR eq. 11.65 in the frame's coordinates::

    M (dV/dt - dW) + B (V - W) - K X_e = F_ext

with ``X_e = log(X^-1 X_d)`` the body error twist to the reference (so ``-X_e`` is the
displacement from it), ``W = [Ad_{X^-1 X_d}] V_d`` the reference twist in {b}, ``dW`` its
rate, and ``F_ext`` the wrench the environment applies on the robot at the frame (the
force sensor's reading, rows S, seen through ``Jbar_S^T J^T``: see
:mod:`robodyn.control._task`). At rest against a spring ``K X_e + F_ext = 0``.

* :class:`Impedance` renders it directly in torque (motion in, force out);
* :class:`Admittance` integrates it as a commanded motion from the measured wrench
  (force in, motion out) and tracks that motion with task-space computed torque.

Both read a :class:`robodyn.sim.ForceSensor` (ideal by default) fed by
:func:`robodyn.simulate`'s environment and ``f_ext``, and run on its Python loop (numpy
over a batch of states).
"""

from __future__ import annotations

import numpy as np

from . import _task as tk
from .base import OMEGA_N, ZETA, Controller, _fingerprint, _numbers, _saturate

__all__ = ["Impedance", "Admittance"]


class _Virtual(Controller):
    """What Impedance and Admittance share: frame, rows, reference, M B K, sensor."""

    uses_wrench = True

    def _setup(self, model, frame, ref, M, B, K, rows, k_null, friction, sensor, tau_max):
        self.model = model
        self.frame = tk.frame_index(model, frame)
        self.rows = tk.task_rows(rows, model.nv)
        self._rows_arg = rows if isinstance(rows, str) else list(self.rows)
        n = len(self.rows)
        self.ref = tk.PoseReference(ref)
        self.M = tk.gain(M, "M", n, positive=True)
        self.B = tk.gain(B, "B", n, positive=True)
        self.K = tk.gain(K, "K", n, positive=True)
        self.k_null = float(tk.gain(k_null, "k_null", 1))
        self.friction = bool(friction)
        self.sensor = tk.sensor_of(sensor, frame)
        tk.frame_index(model, self.sensor.frame, "sensor.frame")
        self.tau_max = None if tau_max is None else tk.gain(tau_max, "tau_max", model.nv)

    def _json(self) -> dict:
        return {
            "class": type(self).__name__, "model": _fingerprint(self.model),
            "frame": self.model.frame_names[self.frame], "rows": self._rows_arg,
            "ref": self.ref.describe(), "M": _numbers(self.M), "B": _numbers(self.B),
            "K": _numbers(self.K), "k_null": self.k_null, "friction": self.friction,
            "sensor": self.sensor.describe(), "tau_max": _numbers(self.tau_max),
        }  # fmt: skip

    def _measure(self, q, v, z, f_env):
        """The task state, the measured task wrench F_S and the sensor's rate."""
        F_s, dz_s = self.sensor.read(self.model, q, f_env,
                                     z[..., -6:] if self.sensor.state_size else None)  # fmt: skip
        ts = tk.task_state(self.model, q, v, self.frame, self.rows, self.friction)
        return ts, tk.task_wrench(ts, self.rows, F_s), dz_s

    def _gains_in_joints(self, model, q, kp, kd):
        """Joint torque gains ``J_S^T Lambda_S k J_S`` (+ the null-space damping) for the
        task gains kp, kd on X_e and V_e: the law's stiffness and damping about q, for
        :func:`robodyn.sim.stable_step`."""
        ts = tk.task_state(self.model, q, np.zeros(model.nv), self.frame, self.rows,
                           self.friction)  # fmt: skip
        J = ts.J[self.rows, :]

        def joint(k):
            k = np.diag(np.broadcast_to(k, len(self.rows))) if k.ndim < 2 else k
            return J.T @ ts.Lam @ k @ J

        N = np.eye(model.nv) - J.T @ ts.Jbar.T if model.nv > len(self.rows) else 0.0
        return joint(kp), joint(kd) + self.k_null * N


class Impedance(_Virtual):
    """Impedance control: the frame renders a mass-spring-damper about a reference (MR sec.
    11.7.1).

    This is the inertia-shaping form: the measured wrench ``F_ext`` (rows S) enters the
    commanded acceleration, so the mass the environment feels is ``M``, not the robot's
    own task-space inertia::

        a   = dW + M^-1 (K X_e + B (W - V) + F_ext)
        tau = J_S^T (Lambda_S (a - (dJ v)_S) - F_ext) + h~ - k_null (1 - J_S^T Jbar_S^T) v

    Substituted in the dynamics ``Lambda_S (dV/dt - (dJ v)_S) = J_S^T``-force ``+ F_ext``
    it leaves exactly ``M (dV/dt - dW) + B (V - W) - K X_e = F_ext`` (MR eq. 11.65-11.66
    with the acceleration solved from the rendered dynamics rather than measured) when
    the model and the sensor are right. The simpler form without a force sensor,
    ``tau = J^T (Lambda dW + eta - B (V - W) + K X_e)``, renders the robot's own
    ``Lambda_S`` as the mass, so M would have no effect; the force sensor this
    environment provides makes the exact form possible. A noisy or filtered sensor (or a
    wrong model) makes the rendered behaviour approximate, and a small M beside
    ``Lambda_S`` amplifies the sensor's errors (the usual limit of inertia shaping).

    Parameters
    ----------
    model : Model
        The controller's model.
    frame : str or int
    ref : callable or array_like (4, 4)
        ``ref(t) -> (X_d, V_d, dV_d)`` or a constant pose.
    M, B, K : float or array_like (k,) or (k, k)
        The virtual inertia (kg, kg m^2), damping and stiffness of the k rows S, each
        positive (definite).
    rows : {"full", "angular", "linear"} or sequence of int
        The rows S of ``[wx, wy, wz, vx, vy, vz]`` rendered (at most nv).
    k_null : float
        Null-space damping, N m s/rad.
    friction : bool
        Compensate the model's joint friction.
    sensor : robodyn.sim.ForceSensor, optional
        Default: an ideal sensor at ``frame``.
    tau_max : float or array_like (nv,), optional
    """

    name = "impedance"

    def __init__(self, model, frame, ref, M, B, K, *, rows="full", k_null: float = 1.0,
                 friction: bool = True, sensor=None, tau_max=None):  # fmt: skip
        self._setup(model, frame, ref, M, B, K, rows, k_null, friction, sensor, tau_max)
        self.state_size = self.sensor.state_size

    def describe(self) -> dict:
        """Class, model (by fingerprint), frame, rows, reference, M B K, sensor, as JSON."""
        return self._json()

    def linear_gains(self, model, q):
        """``(K, D)`` joint torque gains about q: ``J_S^T Lambda_S M^-1 K J_S`` and the
        same with B (+ null-space damping), for :func:`robodyn.sim.stable_step`."""
        n = len(self.rows)
        M_inv = np.linalg.inv(_mat(self.M, n))
        return self._gains_in_joints(model, q, M_inv @ _mat(self.K, n), M_inv @ _mat(self.B, n))

    def __call__(self, t, q, v, z=None, *, f_env=None):
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        z = tk.zeros_state(z, q, self.state_size)
        ts, F_S, dz_s = self._measure(q, v, z, f_env)
        S = self.rows
        X_e, W, dW = tk.pose_error(ts.X, self.ref(t), ts.V)
        # a = dW + M^-1 (K X_e + B (W - V) + F_ext), rows S
        a = dW[..., S] + tk.solve(self.M, tk.times(self.K, X_e[..., S])
                                  + tk.times(self.B, (W - ts.V)[..., S]) + F_S)  # fmt: skip
        tau = _saturate(tk.task_torque(ts, S, a, F_S, self.k_null, v), self.tau_max)
        return (tau, dz_s) if self.state_size else tau


class Admittance(_Virtual):
    """Admittance control: the measured wrench drives a virtual mass-spring-damper whose
    motion the robot tracks (MR sec. 11.7.2).

    The controller's state holds the commanded displacement ``x_c`` (rows S) from the
    reference and its rate, integrated by the simulation from the measured wrench::

        M xdd_c + B xd_c + K x_c = F_ext                  (the virtual dynamics)
        X_c = X_d exp([x_c]),  V_c = [Ad_{exp(-[x_c])}] V_d + xd_c,
        dV_c = [Ad_{exp(-[x_c])}] dV_d + xdd_c             (the commanded motion)

    (``x_c`` padded with zeros outside S; V_c and dV_c to first order in x_c, the
    inner loop's feedback takes the rest). The commanded motion is then tracked by
    task-space computed torque with the measured wrench compensated::

        X_e = log(X^-1 X_c),  W = [Ad_{X^-1 X_c}] V_c,  dW its rate
        a   = dW + K_p X_e + K_d (W - V)
        tau = J_S^T (Lambda_S (a - (dJ v)_S) - F_ext) + h~ - k_null (1 - J_S^T Jbar_S^T) v

    so a step wrench makes ``x_c`` the step response of the virtual system, and the frame
    follows it with the tracking error dynamics ``e_dd + K_d e_d + K_p e = 0``.

    Parameters
    ----------
    model, frame, ref, M, B, K, rows, k_null, friction, sensor, tau_max
        As :class:`Impedance`'s.
    kp, kd : float or array_like (k,) or (k, k)
        The inner tracking loop's gains (1/s^2, 1/s), >= 0; default critically damped at
        10 rad/s (100, 20).

    Attributes
    ----------
    state_size : int
        2 k (x_c and its rate) + the sensor's filter (6 or 0).
    """

    name = "admittance"

    def __init__(self, model, frame, ref, M, B, K, *, kp=OMEGA_N**2, kd=2 * ZETA * OMEGA_N,
                 rows="full", k_null: float = 1.0, friction: bool = True, sensor=None,
                 tau_max=None):  # fmt: skip
        self._setup(model, frame, ref, M, B, K, rows, k_null, friction, sensor, tau_max)
        self.kp = tk.gain(kp, "kp", len(self.rows))
        self.kd = tk.gain(kd, "kd", len(self.rows))
        self.state_size = 2 * len(self.rows) + self.sensor.state_size

    def describe(self) -> dict:
        """Class, model (by fingerprint), frame, rows, reference, M B K, the tracking
        gains, sensor, as JSON."""
        return {**self._json(), "kp": _numbers(self.kp), "kd": _numbers(self.kd)}

    def linear_gains(self, model, q):
        """``(K, D)``: the tracking loop's joint torque gains about q (the virtual
        dynamics are slow beside them), for :func:`robodyn.sim.stable_step`."""
        return self._gains_in_joints(model, q, self.kp, self.kd)

    def commanded(self, t, x_c, xd_c, xdd_c):
        """The commanded motion ``(X_c, V_c, dV_c)`` for the displacement x_c (..., k), its
        rate and acceleration (class docstring)."""
        from ..spatial import adjoint, exp6

        X_d, V_d, dV_d = self.ref(t)
        pad = np.zeros((*np.shape(x_c)[:-1], 6))
        xs = [pad.copy() for _ in range(3)]
        for x, y in zip(xs, (x_c, xd_c, xdd_c)):
            x[..., self.rows] = y
        Ad = adjoint(exp6(-xs[0]))
        V_c = np.einsum("...ij,...j->...i", Ad, V_d) + xs[1]
        dV_c = np.einsum("...ij,...j->...i", Ad, dV_d) + xs[2]
        return X_d @ exp6(xs[0]), V_c, dV_c

    def __call__(self, t, q, v, z=None, *, f_env=None):
        """``(tau, dz)``: the torque and the rate of ``z = [x_c; xd_c; filter]``."""
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        z = tk.zeros_state(z, q, self.state_size)
        ts, F_S, dz_s = self._measure(q, v, z, f_env)
        S, k = self.rows, len(self.rows)
        x_c, xd_c = z[..., :k], z[..., k : 2 * k]
        # M xdd_c = F_ext - B xd_c - K x_c
        xdd_c = tk.solve(self.M, F_S - tk.times(self.B, xd_c) - tk.times(self.K, x_c))
        X_e, W, dW = tk.pose_error(ts.X, self.commanded(t, x_c, xd_c, xdd_c), ts.V)
        a = dW[..., S] + tk.times(self.kp, X_e[..., S]) + tk.times(self.kd, (W - ts.V)[..., S])
        tau = _saturate(tk.task_torque(ts, S, a, F_S, self.k_null, v), self.tau_max)
        dz = [xd_c, xdd_c] + ([] if dz_s is None else [dz_s])
        return tau, np.concatenate(dz, axis=-1)


def _mat(k, n: int) -> np.ndarray:
    k = np.asarray(k, dtype=float)
    return k if k.ndim == 2 else np.eye(n) * k
