"""Dynamics along trajectories: the helpers of Modern Robotics ch. 8 (MR sec. 8.5, 8.6).

* :func:`inverse_dynamics_trajectory`: the joint forces along a joint trajectory (MR's
  ``InverseDynamicsTrajectory``), one batched RNEA call.
* :func:`forward_dynamics_trajectory`: simulate a torque history with the book's simple
  Euler step (MR's ``ForwardDynamicsTrajectory``): per sample ``i`` and each of the
  ``integration_steps`` substeps of ``dt / integration_steps``::

      ddq = forward_dynamics(q, v, tau_i, F_tip_i)
      q  <- q (+) v h,   v <- v + ddq h          (MR's EulerStep; (+) = rd.integrate)

  The first output row is the initial state; the last torque row is not used (as in
  the book). It is :func:`robodyn.simulate` with ``integrator="euler"`` and the torque
  held over each sample (``control_dt = dt``); other integrators are a keyword away.
"""

from __future__ import annotations

import numpy as np

from .. import dynamics as _dyn
from .._checks import as_array, as_vector
from ..model.model import Model

__all__ = ["inverse_dynamics_trajectory", "forward_dynamics_trajectory"]


def _traj(x, name: str, n: int, N: int | None = None) -> np.ndarray:
    a = as_array(x, name, (n,))
    if a.ndim != 2 or (N is not None and a.shape[0] != N):
        want = f"({N if N is not None else 'N'}, {n})"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    return a


def inverse_dynamics_trajectory(
    model: Model,
    q_traj,
    v_traj,
    a_traj,
    f_tip_traj=None,
    *,
    frame=None,
    friction: bool = True,
) -> np.ndarray:
    """Joint forces along a trajectory: ``tau_i = rnea(q_i, v_i, a_i, F_tip_i)`` (MR 8.5).

    Parameters
    ----------
    model : Model
    q_traj : array_like, shape (N, nq)
    v_traj, a_traj : array_like, shape (N, nv)
    f_tip_traj : array_like, shape (N, 6), optional
        MR's ``Ftipmat``: the wrench ``[m, f]`` the end-effector applies on the
        environment, in ``frame``'s coordinates.
    frame : str or int, optional
        Frame of ``f_tip`` (default: the model's last frame, as in
        :func:`robodyn.inverse_dynamics`).
    friction : bool
        Include joint friction.

    Returns
    -------
    numpy.ndarray, shape (N, nv)
    """
    q = _traj(q_traj, "q_traj", model.nq)
    N = q.shape[0]
    v = _traj(v_traj, "v_traj", model.nv, N)
    a = _traj(a_traj, "a_traj", model.nv, N)
    f_tip = None if f_tip_traj is None else _traj(f_tip_traj, "f_tip_traj", 6, N)
    return _dyn.inverse_dynamics(
        model, np.ascontiguousarray(q), np.ascontiguousarray(v), np.ascontiguousarray(a),
        None, None if f_tip is None else np.ascontiguousarray(f_tip),
        frame=frame, friction=friction,
    )  # fmt: skip


def forward_dynamics_trajectory(
    model: Model,
    q0,
    v0,
    tau_traj,
    dt: float,
    integration_steps: int = 1,
    f_tip_traj=None,
    *,
    frame=None,
    friction: bool = True,
    integrator: str = "euler",
) -> tuple[np.ndarray, np.ndarray]:
    """Simulate a torque history with explicit Euler steps (MR's ForwardDynamicsTrajectory).

    Parameters
    ----------
    model : Model
    q0 : array_like, shape (nq,)
    v0 : array_like, shape (nv,)
    tau_traj : array_like, shape (N, nv)
        Joint forces; row i acts from t_i = i dt to t_{i+1}.
    dt : float
        Time between samples (> 0).
    integration_steps : int
        Euler substeps per sample (MR's ``intRes``), >= 1.
    f_tip_traj : array_like, shape (N, 6), optional
        End-effector wrench history (as in :func:`inverse_dynamics_trajectory`).
    frame : str or int, optional
        Frame of ``f_tip``.
    friction : bool
        Include joint friction.
    integrator : str
        Any integrator of :func:`robodyn.simulate` (default MR's explicit Euler).

    Returns
    -------
    q_traj : numpy.ndarray, shape (N, nq)
    v_traj : numpy.ndarray, shape (N, nv)
        Row 0 is the initial state.
    """
    q = as_vector(q0, "q0", model.nq).copy()
    v = as_vector(v0, "v0", model.nv).copy()
    tau = _traj(tau_traj, "tau_traj", model.nv)
    N = tau.shape[0]
    f_tip = None if f_tip_traj is None else _traj(f_tip_traj, "f_tip_traj", 6, N)
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be finite and > 0, got {dt}")
    if int(integration_steps) != integration_steps or integration_steps < 1:
        raise ValueError(f"integration_steps must be an integer >= 1, got {integration_steps}")
    n_sub = int(integration_steps)
    h = float(dt) / n_sub
    if N == 1:
        return q[None].copy(), v[None].copy()
    from .simulate import simulate

    def held(t, q_, v_):  # row i from t_i = i dt to t_{i+1}
        return tau[min(int((t + 0.5 * h) / dt), N - 2)]

    f_ext = None
    if f_tip is not None:
        body, F = _dyn._tip_wrench(model, frame, f_tip)
        W = np.zeros((N, model.nb, 6))
        W[:, body] = F

        def f_ext(t, q_, v_):
            return W[min(int((t + 0.5 * h) / dt), N - 2)]

    res = simulate(
        model, q, v, controller=held, duration=(N - 1) * dt, dt=h, integrator=integrator,
        control_dt=dt, f_ext=f_ext, friction=friction,
    )  # fmt: skip
    return res.q[::n_sub].copy(), res.v[::n_sub].copy()
