"""Figures and animations of wheeled robots (matplotlib, no pyplot; the helpers of
:mod:`robodyn.sim.plot`).

* :func:`plot_path`          chassis paths in the plane (m), with headings and a reference
* :func:`plot_wheel_speeds`  wheel speeds (rad/s) and the chassis twist against time
* :func:`plot_tracking`      position error of runs against time
* :func:`plot_manipulation`  a mobile manipulator's end-effector error and speeds
* :func:`plot_constraint_violation`  ``|A(q) v|`` of a constrained simulation
* :func:`animate`            a GIF of the chassis (footprint, wheels, trail)

Paths are drawn as line collections in the x-y plane (the legend names each); every
function returns the Figure (or the path written) and writes it when given ``path``: an
existing file is refused (FileExistsError) before anything is drawn unless
``overwrite=True``, and the file is written whole or not at all (:mod:`robodyn._files`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._files import figure_path, output_path
from ..sim.plot import (
    _animation_figure,
    _figure,
    _frame_samples,
    _legend,
    _save,
    _write_gif,
)
from .wheeled import Car, DiffDrive, Omni, Unicycle

__all__ = [
    "plot_path",
    "plot_wheel_speeds",
    "plot_tracking",
    "plot_manipulation",
    "plot_constraint_violation",
    "animate",
    "footprint",
]


def _q_of(run) -> np.ndarray:
    q = getattr(run, "q", run)
    q = np.asarray(q, dtype=float)
    if q.ndim != 2 or q.shape[1] != 3:
        raise ValueError(f"a path must have shape (K, 3) (phi, x, y), got {q.shape}")
    return q


def _path(ax, xy, label, **kw):
    from matplotlib.collections import LineCollection

    lc = LineCollection([xy], label=label, **kw)
    ax.add_collection(lc)
    return lc


def plot_path(
    runs,
    path=None,
    *,
    reference=None,
    title="chassis path",
    arrows: int = 8,
    overwrite: bool = False,
):
    """Chassis paths (x, y) with heading arrows at the start and along the way.

    Parameters
    ----------
    runs : dict of str -> MobileRun or array (K, 3), or one of them
    path : path, optional
        File to write.
    reference : array_like (N, 3) or (N, 2), optional
        Reference path drawn dashed.
    title : str
    arrows : int
        Heading arrows per path.
    overwrite : bool
        Replace an existing file at ``path`` (else FileExistsError, before drawing).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(runs, dict):
        runs = {"robot": runs}
    figure_path(path, overwrite)
    fig, axes = _figure(1, height=5.6, width=9.0)
    ax = axes[0, 0]
    pts = []
    if reference is not None:
        ref = np.asarray(reference, dtype=float)
        xy = ref[:, -2:]
        _path(ax, xy, "reference", colors="k", linestyles="--", linewidths=1.2)
        pts.append(xy)
    for i, (name, run) in enumerate(runs.items()):
        q = _q_of(run)
        color = f"C{i}"
        _path(ax, q[:, 1:], name, colors=color, linewidths=2.0)
        k = np.unique(np.linspace(0, len(q) - 1, arrows).astype(int))
        ax.quiver(q[k, 1], q[k, 2], np.cos(q[k, 0]), np.sin(q[k, 0]), color=color,
                  angles="xy", scale_units="inches", scale=3.0, width=0.005)  # fmt: skip
        pts.append(q[:, 1:])
    ax.scatter(*_q_of(next(iter(runs.values())))[0, 1:], marker="o", s=40, color="k", zorder=3,
               label="start")  # fmt: skip
    allp = np.concatenate(pts)
    lo, hi = allp.min(0), allp.max(0)
    pad = 0.08 * max(np.max(hi - lo), 0.1)
    ax.set_xlim(lo[0] - pad, hi[0] + pad)
    ax.set_ylim(lo[1] - pad, hi[1] + pad)
    ax.set_aspect("equal", adjustable="box")
    ax.set(xlabel="x (m)", ylabel="y (m)", title=title + " (arrows: heading)")
    ax.grid(alpha=0.3)
    _legend(ax)
    return _save(fig, path, overwrite)


def plot_wheel_speeds(run, path=None, *, title=None, overwrite: bool = False):
    """Wheel speeds u(t) (rad/s) and the chassis body twist of a :class:`MobileRun`.

    A car's steering angle (rad) gets its own panel. An existing ``path`` is refused
    unless ``overwrite=True``.
    """
    figure_path(path, overwrite)
    robot = run.robot
    names = list(robot.inputs)
    car = isinstance(robot, Car)
    rows = 3 if car else 2
    fig, axes = _figure(rows, height=2.2)
    ax = axes[0, 0]
    wheels = [0] if car else range(len(names))
    for j in wheels:
        ax.plot(run.t, run.u[:, j], label=names[j])
    ax.set_ylabel("wheel speed (rad/s)")
    _legend(ax)
    k = 1
    if car:
        axes[1, 0].plot(run.t, run.u[:, 1], color="C3", label="steering psi")
        axes[1, 0].axhline(robot.max_steer, color="k", ls=":", label="+max_steer")
        axes[1, 0].axhline(-robot.max_steer, color="k", ls="-.", label="-max_steer")
        axes[1, 0].set_ylabel("steering angle (rad)")
        _legend(axes[1, 0])
        k = 2
    ax = axes[k, 0]
    for j, lab in enumerate(("omega_bz (rad/s)", "v_bx (m/s)", "v_by (m/s)")):
        ax.plot(run.t, run.twist[:, j], label=lab)
    ax.set_ylabel("chassis twist (rad/s, m/s)")
    ax.set_xlabel("t (s)")
    _legend(ax)
    for a in axes[:, 0]:
        a.grid(alpha=0.3)
    fig.suptitle(title or f"{type(robot).__name__}: wheel speeds and chassis twist")
    return _save(fig, path, overwrite)


def plot_tracking(runs: dict, path=None, *, title="tracking error", overwrite: bool = False):
    """Position error ``|p - p_d|`` (m) of runs with a reference, on a log scale (an
    existing ``path`` is refused unless ``overwrite=True``)."""
    figure_path(path, overwrite)
    fig, axes = _figure(1, height=3.0)
    ax = axes[0, 0]
    for name, run in runs.items():
        ax.semilogy(run.t, np.maximum(run.tracking_error(), 1e-12), label=name)
    ax.set(xlabel="t (s)", ylabel="position error (m)", title=title)
    ax.grid(alpha=0.3, which="both")
    _legend(ax)
    return _save(fig, path, overwrite)


def plot_manipulation(
    run, path=None, *, title="mobile manipulator tracking", overwrite: bool = False
):
    """A :class:`ManipulationRun`: end-effector error ``X_err`` (rad, m), position error
    (mm) and the wheel and joint speeds (rad/s) against time (an existing ``path`` is
    refused unless ``overwrite=True``)."""
    figure_path(path, overwrite)
    fig, axes = _figure(3, height=2.3)
    ax = axes[0, 0]
    for j, lab in enumerate(("omega_x", "omega_y", "omega_z", "v_x", "v_y", "v_z")):
        ax.plot(run.t, run.X_err[:, j], label=lab)
    ax.set_ylabel("X_err (rad, m)")
    _legend(ax)
    ax = axes[1, 0]
    ax.semilogy(run.t, np.maximum(1e3 * run.position_error(), 1e-9), label="|p - p_d|")
    ax.axhline(1.0, color="k", ls=":", label="1 mm")
    ax.set_ylabel("position error (mm)")
    _legend(ax)
    ax = axes[2, 0]
    m = run.robot.n_wheels
    for j in range(run.speeds.shape[1]):
        lab = f"wheel {j + 1}" if j < m else f"joint {j - m + 1}"
        ax.plot(run.t, run.speeds[:, j], label=lab, ls="-" if j < m else "--")
    ax.set_ylabel("speed (rad/s)")
    ax.set_xlabel("t (s)")
    _legend(ax, ncols=2)
    for a in axes[:, 0]:
        a.grid(alpha=0.3)
    fig.suptitle(title)
    return _save(fig, path, overwrite)


def plot_constraint_violation(traj, path=None, *, title=None, overwrite: bool = False):
    """``max |A(q) v|`` of ``rd.simulate(..., constraints=)`` against time (log scale; an
    existing ``path`` is refused unless ``overwrite=True``)."""
    err = getattr(traj, "constraint_violation", None)
    if err is None:
        raise ValueError("the trajectory has no constraint_violation (simulate with constraints=)")
    figure_path(path, overwrite)
    fig, axes = _figure(1, height=3.0)
    ax = axes[0, 0]
    ax.semilogy(traj.t, np.maximum(err, 1e-18), label="max |A(q) v|")
    name = traj.meta.get("model", "")
    ax.set(xlabel="t (s)", ylabel="constraint violation (m/s)",
           title=title or f"{name}: rolling-constraint violation")  # fmt: skip
    ax.grid(alpha=0.3, which="both")
    _legend(ax)
    return _save(fig, path, overwrite)


# ---------------------------------------------------------------------- animation
def footprint(robot) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The chassis outline (N, 2) and the wheels as (centre (2,), direction (2,)) in {b}, m."""
    if isinstance(robot, Omni):
        pos, beta = robot.positions, robot.beta
        ext = np.abs(pos).max(0) + 2 * robot.wheel_radius
        hw = getattr(robot, "half_width", None)
        if hw is not None:  # a rectangle for the mecanum base
            body = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1], [1, 1]]) * [ext[0], hw]
        else:
            a = np.linspace(0, 2 * np.pi, 41)
            rr = np.linalg.norm(pos, axis=1).max()
            body = rr * np.stack([np.cos(a), np.sin(a)], 1)
        wheels = [(p, np.array([np.cos(b), np.sin(b)])) for p, b in zip(pos, beta)]
        return body, wheels
    if isinstance(robot, DiffDrive):
        d = robot.half_track
        a = np.linspace(0, 2 * np.pi, 41)
        body = 0.85 * d * np.stack([np.cos(a), np.sin(a)], 1)
        return body, [(np.array([0.0, d]), np.array([1.0, 0])), (np.array([0, -d]),
                                                                  np.array([1.0, 0]))]  # fmt: skip
    if isinstance(robot, Car):
        L = robot.wheelbase
        w = 0.3 * L
        body = np.array(
            [[-0.2 * L, -w], [1.2 * L, -w], [1.2 * L, w], [-0.2 * L, w], [-0.2 * L, -w]]
        )
        return body, [(np.array([0.0, 0]), np.array([1.0, 0])), (np.array([L, 0]),
                                                                 np.array([1.0, 0]))]  # fmt: skip
    if isinstance(robot, Unicycle):
        s = 0.3
        body = np.array([[s, 0], [-s / 2, s / 2], [-s / 2, -s / 2], [s, 0]])
        return body, [(np.zeros(2), np.array([1.0, 0]))]
    raise ValueError(f"no footprint for {type(robot).__name__}")


def animate(
    run, path, *, fps: int = 20, speed: float = 1.0, reference=None, overwrite: bool = False
):
    """A GIF of a :class:`MobileRun`: the chassis outline, its wheels (a car's front wheel
    turned by the steering angle) and the trail. An existing ``path`` is refused
    (FileExistsError, before drawing) unless ``overwrite=True``.

    Returns
    -------
    pathlib.Path
    """
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ValueError(f"{path}: the animation must be a .gif file")
    if not (fps > 0 and speed > 0):
        raise ValueError(f"fps and speed must be positive, got {fps}, {speed}")
    output_path(path, overwrite=overwrite, name="path")
    robot = run.robot
    body, wheels = footprint(robot)
    wlen = 2 * getattr(robot, "wheel_radius", 0.1)
    if isinstance(robot, (Car, Unicycle)) and robot.wheel_radius == 1.0:
        wlen = 0.3 * (robot.wheelbase if isinstance(robot, Car) else 1.0)
    idx = _frame_samples(run.t, fps, speed)
    fig = _animation_figure()
    ax = fig.add_subplot()
    q = run.q
    reach = np.abs(body).max() + wlen
    lo, hi = q[:, 1:].min(0) - reach, q[:, 1:].max(0) + reach
    c, r = 0.5 * (lo + hi), 0.55 * np.max(hi - lo)
    ax.set_xlim(c[0] - r, c[0] + r)
    ax.set_ylim(c[1] - r, c[1] + r)
    ax.set_aspect("equal")
    ax.set(xlabel="x (m)", ylabel="y (m)")
    ax.grid(alpha=0.3)
    if reference is not None:
        ref = np.asarray(reference, dtype=float)[:, -2:]
        ax.plot(ref[:, 0], ref[:, 1], "k--", lw=1, label="reference")
    (trail,) = ax.plot([], [], color="C0", lw=1.5, label="path")
    (outline,) = ax.plot([], [], color="C1", lw=2, label="chassis")
    wl = [ax.plot([], [], color="k", lw=4, solid_capstyle="butt")[0] for _ in wheels]
    label = ax.set_title("")
    ax.legend(loc="upper right", fontsize="small")

    def draw(k):
        phi, x, y = q[k]
        R = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
        B = body @ R.T + [x, y]
        outline.set_data(B[:, 0], B[:, 1])
        trail.set_data(q[: k + 1, 1], q[: k + 1, 2])
        for j, (ln, (p, dvec)) in enumerate(zip(wl, wheels)):
            if isinstance(robot, Car) and j == 1:
                s = run.u[k, 1]
                dvec = np.array([np.cos(s), np.sin(s)])
            P = R @ p + [x, y]
            D = R @ dvec * wlen / 2
            ln.set_data([P[0] - D[0], P[0] + D[0]], [P[1] - D[1], P[1] + D[1]])
        label.set_text(f"{type(robot).__name__}: t = {run.t[k]:.2f} s")
        return [trail, outline, *wl, label]

    return _write_gif(fig, ax, (trail, outline, *wl, label), draw, idx, path, fps, overwrite)
