"""Identification data: simulated experiments and CSV files.

:func:`simulate_experiment` runs :func:`robodyn.simulate` on the "true" model under
computed-torque tracking of an exciting trajectory and records ``(t, q, v, a, tau)``,
then adds measurement noise. The CSV format (:func:`save_csv`, :func:`load_csv`) has one
row per sample and a header ``t, q[<joint>]..., v[<joint>]..., a[<joint>]...,
tau[<joint>]...`` (the ``a`` columns optional: without them the accelerations are
differentiated from v).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import ModelError

__all__ = ["Experiment", "filtered", "load_csv", "save_csv", "simulate_experiment"]


@dataclasses.dataclass
class Experiment:
    """Samples of a motion: t (N,), q (N, nq), v, a, tau (N, nv); ``tau_true`` without noise."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    tau: np.ndarray
    tau_true: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.t)

    def split(self, fraction: float = 0.7) -> tuple[Experiment, Experiment]:
        """(first ``fraction`` of the samples, the rest): training and held-out data."""
        k = int(round(fraction * len(self)))

        def part(sl):
            tt = None if self.tau_true is None else self.tau_true[sl]
            return Experiment(self.t[sl], self.q[sl], self.v[sl], self.a[sl], self.tau[sl], tt)

        return part(slice(0, k)), part(slice(k, None))


def filtered(experiment: Experiment, cutoff: float, order: int = 4) -> Experiment:
    """Zero-phase low-pass filtering of measured data, accelerations from the filtered v.

    Real encoders give q (and v by differences) with quantisation noise and the torques
    (motor currents) are noisy: the usual recipe (Gautier's parallel filtering) passes q, v
    and tau through the same zero-phase Butterworth filter (``scipy.signal.filtfilt``: no
    delay, so torques and states stay aligned) and takes the accelerations as central
    differences of the filtered v. Use a cutoff a few times the excitation's bandwidth
    (harmonics / period).

    Parameters
    ----------
    experiment : Experiment
        Uniformly sampled (t equally spaced).
    cutoff : float
        Cut-off frequency (Hz), below the Nyquist frequency 1 / (2 dt).
    order : int
        Butterworth order (applied twice by filtfilt).

    Returns
    -------
    Experiment
        Filtered q, v, tau and the differentiated a (``tau_true`` kept).
    """
    import scipy.signal

    e = experiment
    t = np.asarray(e.t, dtype=float)
    dt = np.diff(t)
    if len(t) < 3 * (order + 1) or np.any(dt <= 0) or np.ptp(dt) > 1e-6 * dt.mean():
        raise ValueError("filtered needs at least 3 (order + 1) uniformly spaced samples")
    nyq = 0.5 / dt.mean()
    if not 0 < cutoff < nyq:
        raise ValueError(f"cutoff must be in (0, {nyq:g}) Hz (Nyquist), got {cutoff!r}")
    b, a = scipy.signal.butter(order, cutoff / nyq)

    def f(x):
        return scipy.signal.filtfilt(b, a, x, axis=0)

    v = f(e.v)
    return Experiment(t, f(e.q), v, np.gradient(v, t, axis=0), f(e.tau), e.tau_true)


def simulate_experiment(
    model,
    trajectory=None,
    *,
    duration: float | None = None,
    dt: float = 1e-3,
    sample_dt: float = 1e-2,
    noise: float = 0.0,
    noise_q: float = 0.0,
    noise_v: float = 0.0,
    kp: float = 400.0,
    kd: float = 40.0,
    seed: int = 0,
) -> Experiment:
    """Simulate an identification experiment on the true ``model``.

    The robot (with the model's joint friction and armature) tracks ``trajectory`` under
    computed torque (:class:`robodyn.control.ComputedTorque`), simulated by
    :func:`robodyn.simulate` (RK4, step ``dt``). The applied torques and the simulated
    ``(q, v, a)`` are recorded every ``sample_dt``; Gaussian noise is added to the torques
    (``noise`` times each joint's torque standard deviation) and, optionally, to q and v
    (absolute standard deviations ``noise_q`` rad, ``noise_v`` rad/s).

    Parameters
    ----------
    model : Model
        The "true" robot.
    trajectory : callable, optional
        ``trajectory(t) -> (q, v, a)``, e.g. a
        :class:`~robodyn.ident.excitation.FourierTrajectory` (default:
        :func:`~robodyn.ident.excitation_trajectory` of the model, random search only).
    duration : float, optional
        Seconds (default: the trajectory's period, else 10 s).

    Returns
    -------
    Experiment
    """
    from ..control import ComputedTorque
    from ..sim import simulate
    from .excitation import excitation_trajectory

    if trajectory is None:
        trajectory = excitation_trajectory(model, maxiter=0, seed=seed)
    if duration is None:
        duration = float(getattr(trajectory, "period", 10.0))
    q0, v0, _ = trajectory(0.0)
    ctrl = ComputedTorque(model, trajectory, kp=kp, kd=kd)
    run = simulate(model, q0, v0, ctrl, duration=duration, dt=dt)
    step = max(1, int(round(sample_dt / dt)))
    t, q, v, a, tau = (x[::step] for x in (run.t, run.q, run.v, run.a, run.tau))
    rng = np.random.default_rng(seed)
    tau_n = tau + noise * tau.std(axis=0) * rng.normal(size=tau.shape)
    q_n = q + noise_q * rng.normal(size=q.shape) if noise_q else q
    v_n = v + noise_v * rng.normal(size=v.shape) if noise_v else v
    return Experiment(t, q_n, v_n, a, tau_n, tau)


def _columns(model) -> list[str]:
    names = list(model.joint_names)
    if model.nq != model.nv:
        raise ModelError("CSV identification data need a model with nq = nv (no free joint)")
    return (
        ["t"]
        + [f"q[{n}]" for n in names]
        + [f"v[{n}]" for n in names]
        + [f"a[{n}]" for n in names]
        + [f"tau[{n}]" for n in names]
    )


def save_csv(path, model, experiment: Experiment) -> None:
    """Write an experiment as CSV (header of :func:`load_csv`)."""
    e = experiment
    data = np.column_stack([e.t, e.q, e.v, e.a, e.tau])
    np.savetxt(path, data, delimiter=",", header=",".join(_columns(model)), comments="")


def load_csv(path, model) -> Experiment:
    """Read an experiment written by :func:`save_csv` (or by hand with that header).

    Columns are matched by name, in any order; without ``a[...]`` columns the
    accelerations are central differences of v over t. Raises ValueError naming any
    missing column.
    """
    with open(path) as f:
        header = [h.strip() for h in f.readline().split(",")]
    data = np.genfromtxt(path, delimiter=",", skip_header=1, ndmin=2)
    if data.shape[1] != len(header):
        raise ValueError(f"{path}: {len(header)} header names but {data.shape[1]} columns")
    idx = {h: k for k, h in enumerate(header)}
    names = list(model.joint_names)

    def block(prefix, required=True):
        cols = [f"{prefix}[{n}]" for n in names]
        missing = [c for c in cols if c not in idx]
        if missing:
            if not required:
                return None
            raise ValueError(f"{path}: missing column(s) {', '.join(missing)}")
        return data[:, [idx[c] for c in cols]]

    if "t" not in idx:
        raise ValueError(f"{path}: missing column t")
    t = data[:, idx["t"]]
    q, v, tau = block("q"), block("v"), block("tau")
    a = block("a", required=False)
    if a is None:
        a = np.gradient(v, t, axis=0)
    return Experiment(t, q, v, a, tau)
