"""Linear-quadratic regulators about an operating point (LQR) and along a trajectory (TVLQR).

Both regulate the state error ``dx = (q_ref (-) ... , v - v_ref)`` in the tangent space
(``dq = difference(q_ref, q)``: ``q = q_ref (+) dq``, see :func:`robodyn.linearize`) with
the law ``tau = tau_ref - K dx`` and the gains of the linearized dynamics:

* :class:`LQR` minimises ``integral (dx^T Q dx + dtau^T R dtau) dt`` (continuous time,
  ``K = R^-1 B^T P`` with P from the continuous algebraic Riccati equation) or, with
  ``dt``, ``sum (dx_k^T Q dx_k + dtau_k^T R dtau_k)`` for the steps of the simulator's
  integrator (``K = (R + B^T P B)^-1 B^T P A``, the discrete Riccati equation), by scipy's
  Riccati solvers; ``tau_ref`` is the torque that holds the operating point,
  ``inverse_dynamics(q_ref, v_ref, 0)``.
* :class:`TVLQR` follows sampled reference states ``(q_k, v_k, tau_k)``: the discrete
  linearisations ``(A_k, B_k)`` of one step from each sample (one batched call of
  :func:`robodyn.linearize`), then the Riccati recursion backwards from ``P_N = Q_f``::

      K_k = (R + B_k^T P_{k+1} B_k)^-1 B_k^T P_{k+1} A_k
      P_k = Q + A_k^T P_{k+1} (A_k - B_k K_k)

  and the law holds sample k's gains over ``[t_k, t_{k+1})``.

Both are controllers that :func:`robodyn.simulate` runs in its compiled rollout (a gain
schedule of one sample for LQR, N for TVLQR) and on its Python road.
"""

from __future__ import annotations

import numpy as np

from .base import OMEGA_N, Controller, _fingerprint, _gain, _numbers, _saturate

__all__ = ["LQR", "TVLQR"]


def _weights(model, q, Q, R) -> tuple[np.ndarray, np.ndarray]:
    """Q (2 nv, 2 nv) and R (nv, nv) from scalars, vectors (their diagonals) or matrices.

    The defaults close each joint, taken alone as an inertia ``m_j = M_jj(q)`` (the mass
    matrix's diagonal at q, as :func:`robodyn.control.gains_for` takes it), at the
    natural frequency ``omega_n = 10`` rad/s of rd.control's default gains: ``Q = diag(1,
    0)`` (rad^-2 on dq, nothing on dv) and ``R_jj = 1 / (omega_n^4 m_j^2)``, for which the
    LQR of ``m_j e'' = u`` has ``omega_n^4 = Q_q / (R m^2)`` and damping ratio 1/sqrt(2)."""
    nv = model.nv
    if Q is None:
        Q = np.r_[np.ones(nv), np.zeros(nv)]
    if R is None:
        from ..dynamics import mass_matrix

        R = 1.0 / (OMEGA_N**4 * np.diag(mass_matrix(model, q)) ** 2)
    return _weight(Q, "Q", 2 * nv, definite=False), _weight(R, "R", nv, definite=True)


def _weight(W, name: str, n: int, definite: bool) -> np.ndarray:
    """A symmetric weight (n, n), positive definite or semidefinite, checked."""
    W = np.asarray(W, dtype=float)
    if W.ndim < 2 and W.size in (1, n):
        W = np.eye(n) * W
    if W.shape != (n, n) or not np.all(np.isfinite(W)):
        raise ValueError(f"{name} must be a finite scalar, vector ({n},) or matrix ({n}, {n}), "
                         f"got shape {W.shape}")  # fmt: skip
    W = 0.5 * (W + W.T)
    low = np.linalg.eigvalsh(W).min()
    scale = 1e-12 * max(1.0, float(np.abs(W).max()))
    if (low <= scale) if definite else (low < -scale):
        kind = "definite" if definite else "semidefinite"
        raise ValueError(f"{name} must be symmetric positive {kind} (smallest eigenvalue "
                         f"{low:.3g})")  # fmt: skip
    return W


def _state_error(model, q_ref, v_ref, q, v) -> np.ndarray:
    """``dx = (difference(q_ref, q), v - v_ref)``, (..., 2 nv)."""
    if model.nq == model.nv:
        dq = q - q_ref
    else:
        from ..kinematics.configuration import difference

        dq = difference(model, q_ref, q, check=False)
    return np.concatenate([dq, v - v_ref], axis=-1)


def _vector(x, name: str, n: int) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or inf")
    return x


class _Schedule(Controller):
    """``tau = tau_ref(t) - K_k dx`` with sample k's gains over ``[t_k, t_{k+1})`` and the
    reference (q, v, tau) linear between samples k and k + 1 (sample 0 before t_0, the last
    one held after the last time): LQR's one sample, TVLQR's N. ``gains`` (N, nv, 2 nv)."""

    def _setup_schedule(self, model, t0: float, step: float, q, v, tau, gains, tau_max):
        self.model = model
        self.t0, self.step = float(t0), float(step)
        self.q_ref, self.v_ref, self.tau_ref, self.gains = q, v, tau, gains
        # d_k = q_{k+1} (-) q_k: the reference between samples (0 after the last)
        self.steps = np.zeros((q.shape[0], model.nv))
        if q.shape[0] > 1:
            from ..kinematics.configuration import difference

            self.steps[:-1] = difference(model, q[:-1], q[1:])
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max", model.nv)

    def _index(self, t) -> int:
        n = self.gains.shape[0]
        if n == 1:
            return 0
        k = int(np.floor((float(t) - self.t0) / self.step + 1e-9))
        return min(max(k, 0), n - 1)

    def _reference(self, t):
        """Sample k and the reference at t: linear from sample k to k + 1 (q along
        ``q_k (+) s d_k``, ``d_k = q_{k+1} (-) q_k``; the last sample held)."""
        k = self._index(t)
        if k + 1 >= self.gains.shape[0]:
            return k, self.q_ref[k], self.v_ref[k], self.tau_ref[k]
        s = min(max((float(t) - self.t0) / self.step - k, 0.0), 1.0)
        if self.model.nq == self.model.nv:
            q = self.q_ref[k] + s * self.steps[k]
        else:
            from ..kinematics.configuration import integrate

            q = integrate(self.model, self.q_ref[k], s * self.steps[k], check=False)
        v = self.v_ref[k] + s * (self.v_ref[k + 1] - self.v_ref[k])
        tau = self.tau_ref[k] + s * (self.tau_ref[k + 1] - self.tau_ref[k])
        return k, q, v, tau

    def __call__(self, t, q, v):
        k, q_ref, v_ref, tau_ref = self._reference(t)
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        dx = _state_error(self.model, q_ref, v_ref, q, v)
        return _saturate(tau_ref - dx @ self.gains[k].T, self.tau_max)

    def linear_gains(self, model, q):
        """``(K, D)``, the torque gains on the error and its rate (the largest of the
        schedule's), for :func:`robodyn.sim.stable_step`."""
        nv = model.nv
        k = int(np.argmax(np.abs(self.gains).max(axis=(1, 2))))
        return self.gains[k][:, :nv], self.gains[k][:, nv:]

    def _c_law(self, model):
        """The gain schedule for the compiled rollout (sim.c's LAW_SCHEDULE): N, t_0, the
        step, then per sample q_k (nq), d_k, v_k, tau_k (nv) and K_k (nv x 2 nv,
        row-major)."""
        if (model.nq, model.nv) != (self.model.nq, self.model.nv):
            return None
        n, nv = self.gains.shape[0], model.nv
        records = np.concatenate([self.q_ref, self.steps, self.v_ref, self.tau_ref,
                                  self.gains.reshape(n, 2 * nv * nv)], axis=1)  # fmt: skip
        zero = np.zeros(nv)
        return {
            "law": "schedule", "kp": zero, "kd": zero, "model": model, "cflags": 0,
            "q_a": self.q_ref[0], "q_b": self.q_ref[0], "T": 1.0, "c": np.zeros(6),
            "tau_max": np.inf if self.tau_max is None else self.tau_max,
            "schedule": np.concatenate([[n, self.t0, self.step], records.ravel()]),
        }  # fmt: skip


class LQR(_Schedule):
    """Infinite-horizon LQR about an operating point ``(q_ref, v_ref)``.

    ``tau = tau_ref - K dx`` with ``dx = (difference(q_ref, q), v - v_ref)`` and
    ``tau_ref = inverse_dynamics(model, q_ref, v_ref, 0)`` (the torque that holds the
    point; gravity and, at ``v_ref != 0``, the velocity products). K minimises
    ``integral (dx^T Q dx + dtau^T R dtau) dt`` for the dynamics linearized there
    (:func:`robodyn.linearize`): ``K = R^-1 B^T P``, P of the continuous algebraic Riccati
    equation; with ``dt``, the discrete one of the simulator's step (``K = (R + B^T P
    B)^-1 B^T P A``), for a controller sampled every ``dt``.

    Parameters
    ----------
    model : Model
        The controller's model (a perturbed one, :func:`robodyn.control.perturbed`, to test
        robustness).
    q_ref : array_like (nq,)
    v_ref : array_like (nv,), optional
        Default 0.
    Q : float or array_like (2 nv,) or (2 nv, 2 nv), optional
        State weight, ``dx = (dq, dv)``. Default ``diag(1, 0)``: 1 rad^-2 on dq.
    R : float or array_like (nv,) or (nv, nv), optional
        Torque weight, (N m)^-2. Default ``1 / (omega_n^4 M_jj(q_ref)^2)`` with ``omega_n
        = 10`` rad/s: each joint alone closed at 10 rad/s, damping ratio 0.71 (as
        :func:`robodyn.control.gains_for` sets PD gains).
    dt : float, optional
        None: continuous time. A step: the discrete LQR of one step of ``integrator``.
    integrator : str
        With dt, the step linearized (as :func:`robodyn.linearize`).
    tau_ref : array_like (nv,), optional
        The operating point's torque (default: inverse dynamics at ``(q_ref, v_ref, 0)``).
    tau_max : float or array_like (nv,), optional
        Saturate the torque.

    Attributes
    ----------
    K : numpy.ndarray, shape (nv, 2 nv)
    P : numpy.ndarray, shape (2 nv, 2 nv)
        The Riccati solution (the cost-to-go ``dx^T P dx``).
    A, B : numpy.ndarray
        The linearization.
    poles : numpy.ndarray
        The closed loop's eigenvalues (of A - B K; inside the unit circle with dt).

    Raises
    ------
    ValueError
        Bad shapes, weights that are not positive (semi)definite, or a linearization that no
        gain stabilises (scipy's Riccati solver fails).

    Examples
    --------
    The pendulum held upright:

    >>> import numpy as np
    >>> import robodyn as rd
    >>> pend = rd.models.load("pendulum")
    >>> ctrl = rd.control.LQR(pend, [np.pi], Q=[100.0, 1.0], R=1.0)
    >>> res = rd.simulate(pend, [np.pi - 0.2], [0.0], controller=ctrl, duration=3.0, dt=1e-3)
    >>> bool(abs(res.q[-1, 0] - np.pi) < 1e-3)
    True
    """

    name = "lqr"

    def __init__(self, model, q_ref, v_ref=None, Q=None, R=None, dt=None, *,
                 integrator: str = "rk4", tau_ref=None, tau_max=None):  # fmt: skip
        from ..dynamics import inverse_dynamics
        from ..sim.linearize import linearize

        q_ref = _vector(q_ref, "q_ref", model.nq)
        v_ref = np.zeros(model.nv) if v_ref is None else _vector(v_ref, "v_ref", model.nv)
        if tau_ref is None:
            tau_ref = inverse_dynamics(model, q_ref, v_ref, np.zeros(model.nv))
        tau_ref = _vector(tau_ref, "tau_ref", model.nv)
        self.Q, self.R = _weights(model, q_ref, Q, R)
        self.dt = dt
        self.A, self.B = linearize(model, q_ref, v_ref, tau_ref, dt=dt, integrator=integrator)
        self.P, self.K = _riccati(self.A, self.B, self.Q, self.R, dt)
        self.poles = np.linalg.eigvals(self.A - self.B @ self.K)
        self._setup_schedule(model, 0.0, 1.0, q_ref[None], v_ref[None], tau_ref[None],
                             self.K[None], tau_max)  # fmt: skip

    def describe(self) -> dict:
        """Class, model (by fingerprint), operating point, weights, dt and tau_max, as
        JSON (see :meth:`Controller.describe`)."""
        return {
            "class": "LQR", "model": _fingerprint(self.model),
            "q_ref": _numbers(self.q_ref[0]), "v_ref": _numbers(self.v_ref[0]),
            "tau_ref": _numbers(self.tau_ref[0]), "Q": _numbers(self.Q),
            "R": _numbers(self.R), "dt": self.dt, "tau_max": _numbers(self.tau_max),
        }  # fmt: skip


def _riccati(A, B, Q, R, dt) -> tuple[np.ndarray, np.ndarray]:
    """(P, K) of the continuous (dt None) or discrete algebraic Riccati equation."""
    import scipy.linalg

    try:
        if dt is None:
            P = scipy.linalg.solve_continuous_are(A, B, Q, R)
            K = np.linalg.solve(R, B.T @ P)
        else:
            P = scipy.linalg.solve_discrete_are(A, B, Q, R)
            K = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise ValueError("no stabilising LQR gain for this linearization (is the state "
                         f"controllable from the torques?): {exc}") from None  # fmt: skip
    return P, K


class TVLQR(_Schedule):
    """Time-varying LQR along a reference trajectory (finite horizon, discrete time).

    The reference's samples ``(t_k, q_k, v_k, tau_k)``, k = 0..N, are linearized for one
    step of ``integrator`` each, ``dx_{k+1} = A_k dx_k + B_k dtau_k`` (one batched call of
    :func:`robodyn.linearize`), and the Riccati recursion runs backwards from ``P_N =
    Q_f``: ``K_k = (R + B_k^T P_{k+1} B_k)^-1 B_k^T P_{k+1} A_k``, ``P_k = Q + A_k^T
    P_{k+1} (A_k - B_k K_k)``. The law ``tau = tau_k - K_k (difference(q_k, q), v - v_k)``
    holds sample k over ``[t_k, t_{k+1})``; after the last sample it holds the last
    reference with the infinite-horizon (discrete) LQR gain there (the last step's gain
    when there is none).

    Parameters
    ----------
    model : Model
        The controller's model.
    trajectory : Trajectory or callable
        A :class:`robodyn.Trajectory` (its ``t``, ``q``, ``v``, ``tau``: e.g. an open-loop
        rollout of a planned torque), or a reference ``ref(t) -> (q, v, a)`` with a
        ``duration`` (:func:`robodyn.trajectory.joint_trajectory`), sampled every ``dt``
        with ``tau = inverse_dynamics(q, v, a)``. The samples must be evenly spaced.
    Q, R : as in :class:`LQR`
    Qf : float or array_like (2 nv,) or (2 nv, 2 nv), optional
        The final state's weight (default: the cost-to-go of the infinite-horizon LQR at
        the last sample, else 100 Q).
    dt : float, optional
        The sampling step of a callable reference (required then).
    integrator : str
        The step linearized.
    tau_max : float or array_like (nv,), optional

    Attributes
    ----------
    K : numpy.ndarray, shape (N + 1, nv, 2 nv)
        The gains of the samples.
    t : numpy.ndarray, shape (N + 1,)

    Examples
    --------
    The pendulum swung up along a quintic reference, from a start that is off it:

    >>> import numpy as np
    >>> import robodyn as rd
    >>> pend = rd.models.load("pendulum")
    >>> ref = rd.trajectory.joint_trajectory([0.0], [np.pi], 2.0)
    >>> ctrl = rd.control.TVLQR(pend, ref, Q=[100.0, 1.0], R=1.0, dt=0.01)
    >>> res = rd.simulate(pend, [0.2], [0.0], controller=ctrl, duration=3.0, dt=1e-3)
    >>> bool(abs(res.q[-1, 0] - np.pi) < 1e-2)
    True
    """

    name = "tvlqr"

    def __init__(self, model, trajectory, Q=None, R=None, Qf=None, *, dt=None,
                 integrator: str = "rk4", tau_max=None):  # fmt: skip
        from ..sim.linearize import linearize

        t, q, v, tau = _samples(model, trajectory, dt)
        h = float(t[1] - t[0])
        self.Q, self.R = _weights(model, q[0], Q, R)
        A, B = linearize(model, q, v, tau, dt=h, integrator=integrator)  # every sample's step
        try:  # the last sample held: the infinite-horizon LQR there, if one exists
            P_end, K_end = _riccati(A[-1], B[-1], self.Q, self.R, h)
        except ValueError:
            P_end = K_end = None
        if Qf is None:
            Qf = 100.0 * self.Q if P_end is None else P_end
        self.Qf = _weight(Qf, "Qf", 2 * model.nv, definite=False)
        K = _backward_riccati(A[:-1], B[:-1], self.Q, self.R, self.Qf)
        if K_end is not None:
            K[-1] = K_end
        self.t, self.K, self.dt = t, K, h
        self._trajectory = trajectory
        self._setup_schedule(model, t[0], h, q, v, tau, K, tau_max)

    def describe(self) -> dict:
        """Class, model (by fingerprint), the samples, weights and tau_max, as JSON."""
        return {
            "class": "TVLQR", "model": _fingerprint(self.model), "t": _numbers(self.t),
            "q": _numbers(self.q_ref), "v": _numbers(self.v_ref), "tau": _numbers(self.tau_ref),
            "Q": _numbers(self.Q), "R": _numbers(self.R), "Qf": _numbers(self.Qf),
            "tau_max": _numbers(self.tau_max),
        }  # fmt: skip


def _backward_riccati(A, B, Q, R, Qf) -> np.ndarray:
    """The gains K_k (N + 1, nv, 2 nv) of the discrete Riccati recursion from P_N = Qf over
    the N steps (A_k, B_k); the last sample keeps the last step's gain."""
    N, nv = A.shape[0], B.shape[-1]
    K = np.empty((N + 1, nv, 2 * nv))
    P = Qf
    for k in range(N - 1, -1, -1):
        BtP = B[k].T @ P
        K[k] = np.linalg.solve(R + BtP @ B[k], BtP @ A[k])
        P = Q + A[k].T @ P @ (A[k] - B[k] @ K[k])
        P = 0.5 * (P + P.T)
    K[N] = K[N - 1]
    return K


def _samples(model, trajectory, dt) -> tuple:
    """(t, q, v, tau) of a reference: a Trajectory's samples, or a callable's every dt."""
    if all(hasattr(trajectory, a) for a in ("t", "q", "v", "tau")) and not callable(trajectory):
        t = np.asarray(trajectory.t, dtype=float)
        q, v, tau = (np.asarray(getattr(trajectory, a), dtype=float) for a in ("q", "v", "tau"))
    elif callable(trajectory):
        duration = getattr(trajectory, "duration", None)
        if dt is None or duration is None:
            raise ValueError("a callable reference needs dt= (its sampling step) and a "
                             "duration (as rd.trajectory.joint_trajectory has)")  # fmt: skip
        from ..dynamics import inverse_dynamics

        t = np.arange(int(round(float(duration) / dt)) + 1) * float(dt)
        q, v, a = (np.asarray(x, dtype=float) for x in trajectory(t))
        tau = inverse_dynamics(model, q, v, a)
    else:
        raise ValueError("trajectory must be a robodyn Trajectory (t, q, v, tau) or a "
                         "reference ref(t) -> (q, v, a) with a duration")  # fmt: skip
    if t.ndim != 1 or t.size < 2 or q.shape != (t.size, model.nq):
        raise ValueError(f"the trajectory must have at least 2 samples of q ({model.nq},), "
                         f"got t {t.shape} and q {q.shape}")  # fmt: skip
    steps = np.diff(t)
    if not (steps.min() > 0 and np.ptp(steps) <= 1e-9 * steps.max()):
        raise ValueError("the trajectory's samples must be evenly spaced in time")
    return t, q, v, tau
