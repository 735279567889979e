"""The result of :func:`robodyn.trajectory.time_optimal`: the time scaling on the grid,
the trajectory that follows it, and the (s, s_dot) phase plane as MR draws it (fig. 9.13-9.19:
the velocity limit curve, the optimal s_dot(s), the switch points)."""

from __future__ import annotations

import numpy as np

from .paths import JointSample, _array_hash, _grid
from .scaling import _times

__all__ = ["TimeOptimal", "TimeOptimalTrajectory"]


class TimeOptimalTrajectory:
    """The path under its time-optimal scaling: ``ref(t) -> (q, v, a)``.

    On each grid interval ``s_dd = u_i`` is constant, so for t in [t_i, t_{i+1})::

        s = s_i + s_dot_i (t - t_i) + u_i (t - t_i)^2 / 2,  s_dot = s_dot_i + u_i (t - t_i)

    and ``q = theta(s)``, ``v = theta' s_dot``, ``a = theta' s_dd + theta'' s_dot^2`` (MR
    eq. 9.32-9.33's chain rule). Before t = 0 the robot rests at theta(0), from the
    duration on at theta(1) (s_dot = s_dd = 0 there, as robodyn's time scalings end).
    Shapes (nq,) for a scalar t, (K, nq) for t of shape (K,).
    """

    def __init__(self, path, t, s, s_dot, u):
        self.path, self._t, self._s, self._sd, self._u = path, t, s, s_dot, u
        self.duration = float(t[-1])

    def scaling(self, t):
        """``(s, s_dot, s_dd)`` at the times t (arrays of t's shape)."""
        t = _times(t)
        T, N = self.duration, len(self._u)
        i = np.clip(np.searchsorted(self._t, t, side="right") - 1, 0, N - 1)
        tau = t - self._t[i]
        u = self._u[i]
        s = self._s[i] + self._sd[i] * tau + 0.5 * u * tau**2
        sd = self._sd[i] + u * tau
        inside = (t >= 0.0) & (t < T)
        s = np.where(t < 0.0, 0.0, np.where(inside, np.clip(s, 0.0, 1.0), 1.0))
        return s, np.where(inside, np.maximum(sd, 0.0), 0.0), np.where(inside, u, 0.0)

    def __call__(self, t):
        t = _times(t)
        s, sd, sdd = self.scaling(t)
        q, dq, ddq = self.path(s)
        q, dq, ddq = (np.asarray(x, dtype=float) for x in (q, dq, ddq))
        sd, sdd = sd[..., None], sdd[..., None]
        return (
            q,
            dq * sd,
            dq * sdd + ddq * sd**2,
        )  # v = theta' s_dot, a = theta' s_dd + theta'' s_dot^2

    def sample(self, dt) -> JointSample:
        """The trajectory at t = 0, dt, ..., duration."""
        t = _grid(self.duration, dt)
        return JointSample(t, *self(t))

    def describe(self) -> dict:
        """What this trajectory is, as JSON: its duration, the path's own description (when
        it has one) and a hash of the grid's times and speeds."""
        d = getattr(self.path, "describe", None)
        path = d() if callable(d) else {"class": type(self.path).__name__}
        return {
            "class": "TimeOptimalTrajectory",
            "duration": self.duration,
            "path": path,
            "grid": len(self._t),
            "scaling": _array_hash(np.stack([self._t, self._sd])),
        }

    def __repr__(self) -> str:
        return f"<TimeOptimalTrajectory {self.duration:.4g} s, {len(self._t)} grid points>"


class TimeOptimal:
    """A time-optimal time scaling (MR sec. 9.4) on the grid of n points.

    Attributes
    ----------
    duration : float
        The motion's time T (s).
    s, s_dot, s_ddot, t : numpy.ndarray, shape (n,)
        The grid on the path (0 to 1), the speed ds/dt (1/s), the acceleration d2s/dt2 of
        the interval that starts there (1/s^2; 0 at the end) and the time (s) at each point.
    limit_curve : numpy.ndarray, shape (n,)
        MR's velocity limit curve: the largest s_dot at each grid point for which some
        s_dd keeps every limit (inf where nothing bounds it); computed when first read.
    switch_points : numpy.ndarray, shape (k, 2)
        (s, s_dot) where s_dd switches between its largest and smallest values.
    switch_kinds : tuple of str
        For each switch point "U->L" (from accelerating to decelerating) or "L->U".
    trajectory : TimeOptimalTrajectory
        ``ref(t) -> (q, v, a)`` with ``.duration``: what ``rd.control.ComputedTorque``
        and ``rd.simulate`` follow.
    method : str
    """

    def __init__(self, *, path, s, s_dot, s_ddot, t, limits, switches, method, model_name=""):
        self.s, self.s_dot, self.s_ddot, self.t = s, s_dot, s_ddot, t
        self.duration = float(t[-1])
        self._limits, self._limit_curve = limits, None
        self.method, self.model_name = method, model_name
        idx = np.array([i for i, _ in switches], dtype=int)
        self.switch_points = np.column_stack([s[idx], s_dot[idx]]) if idx.size else np.zeros((0, 2))
        self.switch_kinds = tuple(kind for _, kind in switches)
        self.trajectory = TimeOptimalTrajectory(path, t, s, s_dot, s_ddot[:-1])

    @property
    def limit_curve(self) -> np.ndarray:
        """MR's velocity limit curve at each grid point (1/s), computed when first read."""
        if self._limit_curve is None:
            from .phase_plane import limit_curve

            self._limit_curve = limit_curve(self._limits)
        return self._limit_curve

    def plot(self, path=None, *, ax=None, overwrite: bool = False):
        """The (s, s_dot) phase plane as MR draws it (figs. 9.13-9.19): the velocity limit
        curve with the inadmissible region above it, the optimal s_dot(s) and its switch
        points; the axes in the units of s (path fraction) and s_dot (1/s), the legend
        outside the data.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Write the figure there (an existing file is refused unless ``overwrite``; the
            file is written whole or not at all).
        ax : matplotlib.axes.Axes, optional
            Draw into these axes (e.g. pyplot's) instead of a new figure.
        overwrite : bool

        Returns
        -------
        matplotlib.figure.Figure
        """
        from .._files import figure_path, save_figure

        figure_path(path, overwrite)
        if ax is None:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(8.0, 4.2), layout="constrained")
            ax = fig.subplots()
        else:
            fig = ax.figure
        _draw_phase_plane(self, ax)
        if path is not None:
            save_figure(fig, path, overwrite=overwrite, dpi=110)
        return fig

    def __repr__(self) -> str:
        return (
            f"<TimeOptimal {self.duration:.6g} s by {self.method}, {len(self.s)} grid "
            f"points, {len(self.switch_kinds)} switch points>"
        )


def _draw_phase_plane(res, ax) -> None:
    """Limit curve (the inadmissible region above it shaded), s_dot(s), switch points."""
    top = 1.3 * float(np.max(res.s_dot)) if np.max(res.s_dot) > 0 else 1.0
    finite = res.limit_curve[np.isfinite(res.limit_curve)]
    if finite.size:
        top = max(top, min(1.6 * top, 1.05 * float(np.max(finite))))
    lim = np.minimum(res.limit_curve, 10 * top)
    ax.fill_between(res.s, lim, 10 * top, color="0.88", label="inadmissible (above the limit)")
    ax.plot(res.s, lim, color="0.35", lw=1.2, label="velocity limit curve")
    ax.plot(
        res.s,
        res.s_dot,
        color="C0",
        lw=2.0,
        label=f"time-optimal s_dot(s), T = {res.duration:.4g} s",
    )
    for kind, marker, color in (("U->L", "v", "C3"), ("L->U", "^", "C2")):
        pts = res.switch_points[[k == kind for k in res.switch_kinds]]
        if len(pts):
            what = "accelerate -> decelerate" if kind == "U->L" else "decelerate -> accelerate"
            ax.scatter(
                pts[:, 0],
                pts[:, 1],
                marker=marker,
                color=color,
                s=50,
                zorder=3,
                label=f"switch point ({what})",
            )
    ax.set(
        xlim=(0.0, 1.0),
        ylim=(0.0, top),
        xlabel="s (path parameter, 0 to 1)",
        ylabel="s_dot = ds/dt (1/s)",
    )
    name = f"{res.model_name}: " if res.model_name else ""
    ax.set_title(f"{name}the (s, s_dot) phase plane ({res.method})")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
