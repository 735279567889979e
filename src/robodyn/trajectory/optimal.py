"""Time-optimal time scaling along a given path (MR sec. 9.4): :func:`time_optimal`.

The limits become rows linear in ``(x, u) = (s_dot^2, s_dd)`` on a grid
(:mod:`robodyn.trajectory.phase_plane`, MR eq. 9.36), and one of two algorithms times the
path on them:

* ``method="reachability"``: TOPP-RA (Pham & Pham, IEEE T-RO 2018), a backward pass of
  controllable sets and a greedy forward pass (:mod:`robodyn.trajectory.reachability`);
* ``method="bisection"``: MR's algorithm of sec. 9.4.2, the maximum deceleration integrated
  back from the end, the maximum acceleration forward, switch points found on the velocity
  limit curve by bisection (:mod:`robodyn.trajectory.bisection`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["time_optimal"]

METHODS = ("reachability", "bisection")
SOLVERS = ("exact", "highs")


def _limit(x, name: str, nv: int):
    """A limit: None, or positive numbers of shape () or (nv,), broadcast to (nv,)."""
    if x is None:
        return None
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of shape ({nv},)") from None
    if a.shape not in ((), (nv,)):
        raise ValueError(f"{name} must be a number or have shape ({nv},), got {a.shape}")
    if np.any(np.isnan(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must be positive (inf: no limit), got {x!r}")
    return np.broadcast_to(a, (nv,)).copy()


class _PointByPoint:
    """A path that takes one s at a time, called point by point for an array of s."""

    def __init__(self, path):
        self.path = path

    def __call__(self, s):
        s = np.asarray(s, dtype=float)
        if s.ndim == 0:
            return tuple(np.asarray(x, dtype=float) for x in self.path(float(s)))
        rows = [tuple(np.asarray(x, dtype=float) for x in self.path(float(si))) for si in s.ravel()]
        return tuple(
            np.stack([r[k] for r in rows]).reshape(s.shape + rows[0][k].shape) for k in range(3)
        )

    def describe(self) -> dict:
        d = getattr(self.path, "describe", None)
        return d() if callable(d) else {"class": type(self.path).__name__}


def _path_samples(path, s: np.ndarray, nq: int):
    """``path(s) -> (q, dq/ds, d2q/ds2)`` at the grid, each (n, nq), checked, and the path
    as a callable of an array of s (a path that takes one s at a time is wrapped)."""
    if not callable(path):
        raise ValueError(
            f"path must be callable, path(s) -> (q, dq/ds, d2q/ds2), got {type(path).__name__}"
        )
    n = s.shape[0]
    want = (
        f"path(s) must return (q, dq/ds, d2q/ds2), each of shape ({nq},) for a scalar s "
        f"or ({n}, {nq}) for s of shape ({n},)"
    )
    try:
        q, dq, ddq = (np.asarray(x, dtype=float) for x in path(s))
        if not q.shape == dq.shape == ddq.shape == (n, nq):
            raise ValueError
    except (TypeError, ValueError, IndexError):
        path = _PointByPoint(path)
        try:
            q, dq, ddq = path(s)
        except (TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"{want}: {exc}") from None
    if not q.shape == dq.shape == ddq.shape == (n, nq):
        raise ValueError(f"{want}, got {q.shape}, {dq.shape}, {ddq.shape}")
    for name, x in (("q", q), ("dq/ds", dq), ("d2q/ds2", ddq)):
        bad = ~np.all(np.isfinite(x), axis=1)
        if bad.any():
            raise ValueError(f"path(s) returned a non-finite {name} at s = {s[bad][0]:.6g}")
    return q, dq, ddq, path


def _check_args(model, n, method, solver):
    if model.nq != model.nv:
        raise ValueError(
            f"model: time_optimal needs a fixed-base model (nq == nv), got nq = "
            f"{model.nq}, nv = {model.nv}"
        )
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError(f"n must be a whole number of grid points >= 3, got {n!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")


def time_optimal(
    model,
    path,
    *,
    tau_max=None,
    v_max=None,
    a_max=None,
    n: int = 1000,
    method: str = "reachability",
    solver: str = "exact",
    friction: bool = False,
):
    """The fastest time scaling s(t) of a path under actuator limits (MR sec. 9.4).

    Parameters
    ----------
    model : Model
        A fixed-base robot (nq == nv).
    path : callable
        ``path(s) -> (q, dq/ds, d2q/ds2)`` for s in [0, 1], each (nq,), or (K, nq) for s
        of shape (K,) (a path that takes one s at a time is called point by point):
        :func:`robodyn.trajectory.joint_path`, :func:`robodyn.trajectory.spline_path` or
        any callable.
    tau_max : float or array_like (nv,), optional
        Symmetric joint torque (force) limits, ``|tau_j| <= tau_max_j`` (N m, N);
        ``model.effort_limit`` holds a URDF's. inf: no limit on that joint.
    v_max : float or array_like (nv,), optional
        Joint velocity limits ``|q_dot_j| <= v_max_j`` (rad/s, m/s).
    a_max : float or array_like (nv,), optional
        Joint acceleration limits ``|q_dd_j| <= a_max_j`` (rad/s^2, m/s^2).
    n : int
        Grid points on s in [0, 1] (evenly spaced). The limits hold at every grid point;
        between them they hold to O(1/n^2).
    method : {"reachability", "bisection"}
        "reachability": TOPP-RA's controllable sets and greedy forward pass (Pham & Pham
        2018); "bisection": MR's algorithm of sec. 9.4.2. Both time the same grid and agree
        to the grid's resolution.
    solver : {"exact", "highs"}
        The reachability method's stage LPs, in two unknowns ``(x, u) = (s_dot^2, s_dd)``:
        "exact" eliminates u (Fourier-Motzkin) and solves each in closed form; "highs"
        hands each to ``scipy.optimize.linprog`` (HiGHS): slower, the same numbers.
    friction : bool
        Add the model's Coulomb friction to the torques (default off: Pinocchio's rnea).

    Returns
    -------
    TimeOptimal
        ``.duration`` (s), ``.s``, ``.s_dot`` (1/s), ``.s_ddot`` (1/s^2), ``.t`` (s) at the
        n grid points; ``.limit_curve`` (MR's velocity limit curve, s_dot at each grid
        point); ``.switch_points`` (k, 2) of (s, s_dot) and ``.switch_kinds``;
        ``.trajectory``, ``ref(t) -> (q, v, a)`` with ``.duration``, which
        :class:`robodyn.control.ComputedTorque` follows; ``.plot()`` the phase plane.

    Raises
    ------
    ValueError
        No limit given; a limit, ``n``, ``method`` or ``solver`` not valid; ``path``
        returning the wrong shapes; or a path infeasible for the limits: the message says
        where along the path (s).
    """
    from .bisection import mr_bisection
    from .optimal_result import TimeOptimal
    from .phase_plane import check_feasible, limit_rows, path_dynamics, stages, timing
    from .reachability import controllable_sets, greedy_forward, switch_points

    _check_args(model, n, method, solver)
    limits = [
        _limit(x, name, model.nv)
        for x, name in ((tau_max, "tau_max"), (v_max, "v_max"), (a_max, "a_max"))
    ]
    if all(lim is None or not np.isfinite(lim).any() for lim in limits):
        raise ValueError(
            "give tau_max, v_max or a_max (finite): with no limit the fastest "
            "motion takes no time (model.effort_limit holds a URDF's torque limits)"
        )
    s = np.linspace(0.0, 1.0, int(n))
    q, dq, ddq, path = _path_samples(path, s, model.nq)
    m, c, g = path_dynamics(model, q, dq, ddq, friction)
    point, names = limit_rows((dq, ddq, m, c, g), *limits, model.joint_names)
    st = stages(point, names, s)
    check_feasible(st)
    if method == "reachability":
        K = controllable_sets(st, solver)
        x = greedy_forward(st, K, solver)
        switches = switch_points(st, x)
    else:
        x, switches = mr_bisection(st)
    t, sd, u = timing(st, x)
    return TimeOptimal(
        path=path,
        s=s,
        s_dot=sd,
        s_ddot=np.append(u, 0.0),
        t=t,
        limits=point,
        switches=switches,
        method=method,
        model_name=getattr(model, "name", ""),
    )
