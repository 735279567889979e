"""Trajectories (MR ch. 9): a path and its time scaling, callable at time t.

* :func:`joint_trajectory`: the straight line in joint space
  ``q(t) = q_start + s(t) (q_end - q_start)`` (MR eq. 9.1), ``ref(t) -> (q, v, a)``.
* :func:`spline_trajectory`: through via points (MR sec. 9.3) with scipy's splines.
* :func:`screw_trajectory`: ``X(t) = X_start exp([S] s(t))``, ``S = log(X_start^-1 X_end)``
  (MR eq. 9.7), and :func:`cartesian_trajectory`: the origin on a straight line, the
  rotation ``R_start exp([w] s(t))`` (MR eqs. 9.8-9.9); both ``ref(t) -> (X, V_b, dV_b)``
  with V_b the body twist [omega_b, v_b] of the moving frame.

Every trajectory has ``.duration`` and ``.sample(dt)`` (times 0, dt, ..., duration).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .scaling import CubicScaling, QuinticScaling, _positive, _times
from .scaling import time_scaling as _make_scaling

__all__ = [
    "JointSample",
    "PoseSample",
    "JointTrajectory",
    "SplineTrajectory",
    "PoseTrajectory",
    "joint_trajectory",
    "spline_trajectory",
    "screw_trajectory",
    "cartesian_trajectory",
]


class JointSample(NamedTuple):
    """Samples of a joint trajectory: t (K+1,), q (K+1, n), v, a (K+1, n)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray


class PoseSample(NamedTuple):
    """Samples of an SE(3) trajectory: t (K+1,), T (K+1, 4, 4), V, dV (K+1, 6)."""

    t: np.ndarray
    T: np.ndarray
    V: np.ndarray
    dV: np.ndarray


def _grid(duration: float, dt) -> np.ndarray:
    """0, dt, 2 dt, ..., duration (the last exactly at duration)."""
    dt = _positive(dt, "dt")
    K = max(1, int(np.ceil(duration / dt - 1e-9)))
    t = dt * np.arange(K + 1)
    t[-1] = duration
    return t


def _point(x, name: str, n: int | None = None) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a vector of numbers, got {type(x).__name__}") from None
    if a.ndim != 1 or (n is not None and a.shape[0] != n):
        want = f"({n},)" if n is not None else "(n,)"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or inf")
    return a


def _describe_scaling(scaling) -> dict:
    """A time scaling as JSON (its own describe(); TypeError for one that has none)."""
    d = getattr(scaling, "describe", None)
    if not callable(d):
        raise TypeError(f"the time scaling {type(scaling).__name__} cannot describe itself "
                        "(it has no describe() method)")  # fmt: skip
    return d()


def _array_hash(x) -> str:
    """A short hash of an array's dtype, shape and bytes."""
    import hashlib

    x = np.ascontiguousarray(x)
    h = hashlib.sha256(f"{x.dtype.str} {x.shape}".encode())
    h.update(x.tobytes())
    return h.hexdigest()[:16]


class JointTrajectory:
    """The straight line ``q(t) = q_start + s(t) (q_end - q_start)`` (MR eq. 9.1) under a
    time scaling s; ``traj(t) -> (q, v, a)`` with ``v = sd (q_end - q_start)``,
    ``a = sdd (q_end - q_start)``: shapes (n,) for a scalar t, (K, n) for t of shape (K,)."""

    def __init__(self, q_start, q_end, scaling):
        self.q_start, self.q_end, self.scaling = q_start, q_end, scaling
        self.duration = scaling.duration
        self._d = q_end - q_start

    def __call__(self, t):
        s, sd, sdd = self.scaling(t)
        s, sd, sdd = (np.asarray(x)[..., None] for x in (s, sd, sdd))
        return self.q_start + s * self._d, sd * self._d, sdd * self._d

    def sample(self, dt) -> JointSample:
        """The trajectory at t = 0, dt, ..., duration."""
        t = _grid(self.duration, dt)
        return JointSample(t, *self(t))

    def _c_reference(self):
        """(q_a, q_b, T, c) for robodyn's compiled rollout, when s is a polynomial."""
        if isinstance(self.scaling, (CubicScaling, QuinticScaling)):
            return self.q_start, self.q_end, self.duration, self.scaling.coefficients()
        return None

    def describe(self) -> dict:
        """What this trajectory is, as JSON: q_start, q_end, duration and the time scaling
        (a store of rollouts that follow it keeps this; see robodyn.distributed)."""
        return {"class": "JointTrajectory", "q_start": self.q_start.tolist(),
                "q_end": self.q_end.tolist(), "duration": float(self.duration),
                "time_scaling": _describe_scaling(self.scaling)}  # fmt: skip

    def __repr__(self) -> str:
        return f"<JointTrajectory {len(self._d)} joints, {self.scaling!r}>"


def joint_trajectory(q_start, q_end, duration=None, time_scaling="quintic", *, v_max=None,
                     a_max=None, j_max=None) -> JointTrajectory:  # fmt: skip
    """A straight-line joint trajectory from q_start to q_end (MR sec. 9.2).

    Parameters
    ----------
    q_start, q_end : array_like, shape (n,)
        Joint positions (rad, m).
    duration : float, optional
        Seconds; may be left out for "trapezoidal" and "scurve" when the limits are given
        (then the slowest joint sets it, and every joint shares one scaling so the path
        stays a straight line).
    time_scaling : {"quintic", "cubic", "trapezoidal", "scurve"} or a scaling object
    v_max, a_max, j_max : float or array_like (n,), optional
        Joint velocity, acceleration and jerk limits (rad/s, rad/s^2, rad/s^3) of the
        trapezoidal and S-curve scalings.

    Returns
    -------
    JointTrajectory
        ``traj(t) -> (q, v, a)``; ``.duration``; ``.sample(dt)``.
    """
    a = _point(q_start, "q_start")
    b = _point(q_end, "q_end", a.shape[0])
    limits = {}
    d = np.abs(b - a)
    for name, x in (("v_max", v_max), ("a_max", a_max), ("j_max", j_max)):
        if x is None:
            continue
        lim = np.broadcast_to(np.asarray(x, dtype=float), a.shape)
        if not np.all(lim > 0):
            raise ValueError(f"{name} must be positive, got {x!r}")
        # the path fraction's limit: |q_end - q_start| s' <= v_max for every joint
        moving = d > 0
        limits[name] = float(np.min(lim[moving] / d[moving])) if np.any(moving) else np.inf
    if limits and not np.all(np.isfinite(list(limits.values()))):
        limits = {}  # nothing moves: any scaling will do
        duration = 1.0 if duration is None else duration
    if isinstance(time_scaling, str) and time_scaling in ("trapezoidal", "scurve") and limits:
        if time_scaling == "trapezoidal" and duration is not None and len(limits) == 2:
            raise ValueError("give the duration or both limits, not all three")
        scaling = _scaling_from(time_scaling, duration, limits)
    else:
        if duration is None and not hasattr(time_scaling, "duration"):
            raise ValueError(f"a {time_scaling} joint trajectory needs a duration")
        scaling = _make_scaling(time_scaling, duration, **limits)
    return JointTrajectory(a, b, scaling)


def _scaling_from(kind, duration, limits):
    from .scaling import SCurveScaling, TrapezoidalScaling

    if kind == "trapezoidal":
        return TrapezoidalScaling(duration, limits.get("v_max"), limits.get("a_max"))
    if set(limits) != {"v_max", "a_max", "j_max"}:
        raise ValueError("an scurve joint trajectory needs v_max, a_max and j_max")
    return SCurveScaling(None, limits["v_max"], limits["a_max"], limits["j_max"])


class SplineTrajectory:
    """A via-point trajectory (MR sec. 9.3): a scipy spline q(t) and its derivatives,
    held at the end points outside [t_0, t_N]."""

    def __init__(self, spline, t0: float, t1: float):
        self.spline, self.t0, self.duration = spline, t0, t1

    def __call__(self, t):
        t = _times(t)
        tc = np.clip(t, self.t0, self.duration)
        inside = ((t > self.t0) & (t < self.duration))[..., None]
        q = self.spline(tc)
        return (
            q,
            np.where(inside, self.spline(tc, 1), 0.0),
            np.where(inside, self.spline(tc, 2), 0.0),
        )

    def describe(self) -> dict:
        """What this trajectory is, as JSON: the spline's kind, span, knots and a hash of
        its coefficients."""
        sp = self.spline
        knots = getattr(sp, "x", None)
        if knots is None:
            knots = getattr(sp, "t", None)
        return {"class": "SplineTrajectory", "spline": type(sp).__name__, "t0": self.t0,
                "duration": float(self.duration), "knots": np.asarray(knots).tolist(),
                "coefficients": _array_hash(np.asarray(sp.c, dtype=float))}  # fmt: skip

    def sample(self, dt) -> JointSample:
        t = _grid(self.duration, dt)
        return JointSample(t, *self(t))


def _interpolant(t: np.ndarray, q_knots, v_knots, kind: str, names=("q_knots", "v_knots")):
    """The scipy spline through ``q_knots`` at the increasing knots ``t`` (checked): a cubic
    Hermite spline with ``v_knots`` (MR eq. 9.26), else "cubic" (clamped: zero end slopes)
    or "quintic" (zero end slopes and curvatures); ``names`` name the knots in errors."""
    from scipy.interpolate import CubicHermiteSpline, CubicSpline, make_interp_spline

    q = np.asarray(q_knots, dtype=float)
    if q.ndim != 2 or q.shape[0] != t.shape[0] or not np.all(np.isfinite(q)):
        raise ValueError(f"{names[0]} must be finite with shape ({t.shape[0]}, n), got {q.shape}")
    if v_knots is not None:
        v = np.asarray(v_knots, dtype=float)
        if v.shape != q.shape or not np.all(np.isfinite(v)):
            raise ValueError(f"{names[1]} must be finite with shape {q.shape}, got {v.shape}")
        return CubicHermiteSpline(t, q, v, axis=0)
    if kind == "cubic":
        return CubicSpline(t, q, axis=0, bc_type="clamped")
    if kind == "quintic":
        if t.shape[0] < 6:
            raise ValueError("a quintic spline needs at least 6 knots")
        ends = [(1, np.zeros(q.shape[1])), (2, np.zeros(q.shape[1]))]
        return make_interp_spline(t, q, k=5, bc_type=(ends, ends), axis=0)
    raise ValueError(f"kind must be 'cubic' or 'quintic', got {kind!r}")


def spline_trajectory(t_knots, q_knots, v_knots=None, kind: str = "cubic") -> SplineTrajectory:
    """A trajectory through via points q_knots at times t_knots (MR sec. 9.3).

    Parameters
    ----------
    t_knots : array_like, shape (K,)
        Increasing times (s), the first >= 0.
    q_knots : array_like, shape (K, n)
    v_knots : array_like, shape (K, n), optional
        Velocities at the via points: a cubic Hermite spline (MR eq. 9.26); otherwise
        "cubic" is scipy's ``CubicSpline`` with zero end velocities (clamped) and
        "quintic" a degree-5 ``make_interp_spline`` with zero end velocity and acceleration.
    kind : {"cubic", "quintic"}

    Returns
    -------
    SplineTrajectory
        ``traj(t) -> (q, v, a)``; ``.duration`` (= t_knots[-1]); ``.sample(dt)``.
    """
    t = _point(t_knots, "t_knots")
    if t.shape[0] < 2 or np.any(np.diff(t) <= 0) or t[0] < 0:
        raise ValueError("t_knots must be at least 2 increasing times, the first >= 0")
    spline = _interpolant(t, q_knots, v_knots, kind, ("q_knots", "v_knots"))
    return SplineTrajectory(spline, float(t[0]), float(t[-1]))


class PoseTrajectory:
    """An SE(3) trajectory ``traj(t) -> (X, V_b, dV_b)``: the pose (4, 4), the body twist
    [omega_b, v_b] of the moving frame and its derivative (shapes gain K for t of shape (K,))."""

    def __init__(self, kind, X_start, X_end, scaling):
        from ..spatial import inv_transform, log3, log6

        self.kind, self.X_start, self.X_end, self.scaling = kind, X_start, X_end, scaling
        self.duration = scaling.duration
        if kind == "screw":
            self._S = log6(inv_transform(X_start) @ X_end, check=False)  # MR eq. 9.7
        else:
            self._w = log3(X_start[:3, :3].T @ X_end[:3, :3], check=False)  # MR eq. 9.9
            self._dp = X_end[:3, 3] - X_start[:3, 3]

    def __call__(self, t):
        from ..spatial import exp3, exp6, transform

        s, sd, sdd = (np.asarray(x)[..., None] for x in self.scaling(t))
        if self.kind == "screw":
            # X = X0 exp([S] s): V_b = S sd, dV_b = S sdd
            X = self.X_start @ exp6(s * self._S)
            return X, sd * self._S, sdd * self._S
        # R = R0 exp([w] s), p = p0 + s dp: omega_b = w sd, v_b = R^T dp sd,
        # d/dt v_b = R^T dp sdd - omega_b x (R^T dp) sd  (dR^T/dt = -[omega_b] R^T)
        R = self.X_start[:3, :3] @ exp3(s * self._w)
        p = self.X_start[:3, 3] + s * self._dp
        u = np.einsum("...ji,j->...i", R, self._dp)  # R^T dp
        w_b = sd * self._w
        V = np.concatenate([w_b, sd * u], axis=-1)
        dV = np.concatenate([sdd * self._w, sdd * u - np.cross(w_b, u) * sd], axis=-1)
        return transform(R, p), V, dV

    def sample(self, dt) -> PoseSample:
        t = _grid(self.duration, dt)
        return PoseSample(t, *self(t))

    def _c_pose_reference(self):
        """``(kind, X_start, S, T, c)`` for robodyn's compiled rollout when s is a
        polynomial ``sum_k c_k (t / T)^k`` (else None): kind "screw" with S the screw
        ``log(X_start^-1 X_end)``, or "cartesian" with S = [w, p_end - p_start]; the core
        evaluates X, V_b and dV_b as ``__call__`` does."""
        if not isinstance(self.scaling, (CubicScaling, QuinticScaling)):
            return None
        S = self._S if self.kind == "screw" else np.concatenate([self._w, self._dp])
        return self.kind, self.X_start, S, self.duration, self.scaling.coefficients()

    def describe(self) -> dict:
        """What this trajectory is, as JSON: its kind, both poses and the time scaling."""
        return {"class": "PoseTrajectory", "kind": self.kind,
                "X_start": self.X_start.tolist(), "X_end": self.X_end.tolist(),
                "time_scaling": _describe_scaling(self.scaling)}  # fmt: skip

    def __repr__(self) -> str:
        return f"<PoseTrajectory {self.kind}, {self.scaling!r}>"


def _pose(X, name: str) -> np.ndarray:
    from ..spatial import check_transform

    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 4x4 pose") from None
    if X.shape != (4, 4) or not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must be a finite 4x4 pose, got shape {X.shape}")
    check_transform(X, name)
    return X


def _pose_trajectory(kind: str, X_start, X_end, duration, time_scaling) -> PoseTrajectory:
    """The ``kind`` ("screw" or "cartesian") path between two checked poses, timed."""
    a, b = _pose(X_start, "X_start"), _pose(X_end, "X_end")
    return PoseTrajectory(kind, a, b, _make_scaling(time_scaling, duration))


def screw_trajectory(X_start, X_end, duration, time_scaling="quintic") -> PoseTrajectory:
    """Constant-screw motion from X_start to X_end (MR eq. 9.7): ``X(t) = X_start
    exp([S] s(t))`` with ``S = log(X_start^-1 X_end)``; the origin follows a helix.

    Returns
    -------
    PoseTrajectory
        ``traj(t) -> (X, V_b, dV_b)``; ``.duration``; ``.sample(dt)``.
    """
    return _pose_trajectory("screw", X_start, X_end, duration, time_scaling)


def cartesian_trajectory(X_start, X_end, duration, time_scaling="quintic") -> PoseTrajectory:
    """Decoupled rotation and translation (MR eqs. 9.8-9.9): the origin on the straight
    line ``p(s) = p_start + s (p_end - p_start)``, ``R(s) = R_start exp([w] s)`` with
    ``w = log(R_start^T R_end)``.

    Returns
    -------
    PoseTrajectory
        As :func:`screw_trajectory`'s, along this path.
    """
    return _pose_trajectory("cartesian", X_start, X_end, duration, time_scaling)
