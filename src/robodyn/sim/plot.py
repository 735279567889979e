"""Figures and animations of simulations (matplotlib, no pyplot: safe without a display).

* :func:`plot_trajectory`  joint positions, velocities, torques (and tracking error) vs time
* :func:`plot_energy`      kinetic, potential and total energy, and the drift of the total
* :func:`plot_comparison`  controllers side by side: tracking error (deg) and torque per joint
* :func:`plot_ellipses`    torque ellipses of M (a planar 2-dof arm) or end-effector force
  ellipses from Lambda drawn over the arm (course notes 000, MR sec. 8.4)
* :func:`animate`          a GIF or MP4 of the motion: the arm in its plane when every joint
  axis is parallel, else a 3-D stick figure of any model

Every figure has units on its axes, a title saying what it shows and its legend outside
the data; every function returns the Figure (or the path written) and writes it when
given ``path``: an existing file is refused (FileExistsError) before anything is drawn
unless ``overwrite=True``, and the file is written whole or not at all
(:mod:`robodyn._files`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._files import atomic_write, figure_path, output_path, save_figure

__all__ = ["plot_trajectory", "plot_energy", "plot_comparison", "plot_ellipses", "animate"]

_LABELS = {
    "q": ("q", "position (rad, m)"),
    "v": ("v", "velocity (rad/s, m/s)"),
    "a": ("a", "acceleration (rad/s^2, m/s^2)"),
    "tau": ("tau", "joint force (N m, N)"),
    "error": ("error", "tracking error q_d - q (rad, m)"),
}


def _figure(rows: int, cols: int = 1, height: float = 2.3, width: float = 8.0):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 0.8 + height * rows), layout="constrained")
    return fig, fig.subplots(rows, cols, sharex=True, squeeze=False)


def _legend(ax, **kw) -> None:
    """A legend outside the axes, on the right: it never covers the data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", **kw)


def _save(fig, path, overwrite: bool):
    if path is not None:
        save_figure(fig, path, overwrite=overwrite, dpi=110)
    return fig


def _joint_names(traj, n: int) -> list[str]:
    names = traj.meta.get("joint_names") or []
    return list(names) if len(names) == n else [f"joint {i + 1}" for i in range(n)]


def _reference_q(reference, t: np.ndarray, nq: int) -> np.ndarray:
    """q_d at the times t from a reference ref(t) -> (q, v, a) or a constant target."""
    if callable(reference):
        q = reference(t)[0]
        q = np.asarray(q, dtype=float)
        if q.shape != (len(t), nq):
            q = np.array([np.asarray(reference(x)[0], dtype=float) for x in t])
        return q
    return np.broadcast_to(np.asarray(reference, dtype=float), (len(t), nq))


def _one(traj, rollout):
    if traj.batch_shape:
        index = 0 if rollout is None else rollout
        return traj[index], f" (rollout {index} of {traj.batch_shape})"
    return traj, ""


def plot_trajectory(
    traj,
    path=None,
    *,
    reference=None,
    what=("q", "v", "tau"),
    rollout=None,
    overwrite: bool = False,
):
    """Joint positions, velocities and torques against time (one row of axes each).

    Parameters
    ----------
    traj : Trajectory
    path : path, optional
        Write the figure there.
    reference : callable or array_like, optional
        ``ref(t) -> (q_d, v_d, a_d)`` or a constant target: drawn dashed on the q axes,
        and a tracking-error row ``q_d - q`` is added.
    what : sequence of {"q", "v", "a", "tau", "error"}
    rollout : int, optional
        Which rollout of a batch (default the first).
    overwrite : bool
        Replace an existing file at ``path`` (else FileExistsError, before drawing).

    Returns
    -------
    matplotlib.figure.Figure
    """
    what = list(what)
    bad = [w for w in what if w not in _LABELS]
    if bad:
        raise ValueError(f"what: unknown {bad}; choose from {tuple(_LABELS)}")
    if reference is not None and "error" not in what:
        what.append("error")
    if "error" in what and reference is None:
        raise ValueError("what: 'error' needs a reference")
    figure_path(path, overwrite)
    tr, note = _one(traj, rollout)
    t = tr.t
    nq = tr.q.shape[-1]
    q_d = None if reference is None else _reference_q(reference, t, nq)
    fig, axes = _figure(len(what))
    names = _joint_names(tr, tr.v.shape[-1])
    for ax, key in zip(axes[:, 0], what):
        data = (q_d - tr.q) if key == "error" else getattr(tr, key)
        for j in range(data.shape[-1]):
            label = names[j] if data.shape[-1] == len(names) else f"coordinate {j + 1}"
            (line,) = ax.plot(t, data[:, j], lw=1.3, label=label)
            if key == "q" and q_d is not None:
                ax.plot(t, q_d[:, j], "--", lw=1.0, color=line.get_color(),
                        label=f"{label}, reference")  # fmt: skip
        ax.set_ylabel(_LABELS[key][1])
        ax.grid(alpha=0.3)
        _legend(ax)
    axes[-1, 0].set_xlabel("t (s)")
    m = traj.meta
    fig.suptitle(f"{m.get('model', '?')}: simulated motion, controller {m.get('controller', '?')}, "
                 f"{m.get('integrator', '?')}{note}")  # fmt: skip
    return _save(fig, path, overwrite)


def plot_energy(traj, path=None, *, rollout=None, overwrite: bool = False):
    """Kinetic, potential and total energy against time, and the drift of the total.

    Parameters
    ----------
    traj : Trajectory
        With its model attached (``traj.model``) or energies saved.
    path : path, optional
    rollout : int, optional
    overwrite : bool
        Replace an existing file at ``path`` (else FileExistsError, before drawing).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels: the energies, and the drift of the total from its first value.
    """
    figure_path(path, overwrite)
    tr, note = _one(traj, rollout)
    K, U = tr.kinetic_energy(), tr.potential_energy()
    E = K + U
    fig, axes = _figure(2)
    ax = axes[0, 0]
    ax.plot(tr.t, K, label="kinetic K")
    ax.plot(tr.t, U, label="potential U")
    ax.plot(tr.t, E, "k", lw=1.6, label="total E = K + U")
    ax.set_ylabel("energy (J)")
    ax.grid(alpha=0.3)
    _legend(ax)
    ax = axes[1, 0]
    ax.plot(tr.t, E - E[0], "k", lw=1.2, label="E(t) - E(0)")
    ax.set_ylabel("drift of E (J)")
    ax.set_xlabel("t (s)")
    ax.grid(alpha=0.3)
    _legend(ax)
    m = traj.meta
    fig.suptitle(f"{m.get('model', '?')}: energy, {m.get('integrator', '?')} at dt = "
                 f"{m.get('dt', 0):g} s{note}")  # fmt: skip
    return _save(fig, path, overwrite)


def plot_comparison(
    trajs: dict, target=None, path=None, *, degrees: bool = True, overwrite: bool = False
):
    """Controllers side by side (course notes 003, exercise 4): tracking error and joint
    torque against time, one column per joint, one colour per controller.

    Parameters
    ----------
    trajs : dict of str -> Trajectory
        The runs, by controller name (one rollout each, the same model).
    target : callable or array_like, optional
        The reference (``ref(t) -> (q_d, v_d, a_d)``) or target configuration; without it
        the positions themselves are drawn.
    path : path, optional
    degrees : bool
        Errors and positions of revolute joints in degrees.
    overwrite : bool
        Replace an existing file at ``path`` (else FileExistsError, before drawing).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not trajs:
        raise ValueError("trajs: give at least one trajectory")
    figure_path(path, overwrite)
    first = next(iter(trajs.values()))
    nv = first.v.shape[-1]
    names = _joint_names(first, nv)
    # one row per joint: its error (or position) on the left, its torque on the right
    fig, axes = _figure(nv, 2, height=2.2, width=11.0)
    scale, unit = (180.0 / np.pi, "deg") if degrees else (1.0, "rad")
    for c, (name, tr) in enumerate(trajs.items()):
        tr, _ = _one(tr, None)
        top = tr.q if target is None else _reference_q(target, tr.t, tr.q.shape[-1]) - tr.q
        for j in range(nv):
            axes[j, 0].plot(tr.t, scale * top[:, j], color=f"C{c}", lw=1.3, label=name)
            axes[j, 1].plot(tr.t, tr.tau[:, j], color=f"C{c}", lw=1.3, label=name)
    for j in range(nv):
        what = f"{names[j]}: error ({unit})" if target is not None else f"{names[j]} ({unit})"
        axes[j, 0].set_ylabel(what)
        axes[j, 1].set_ylabel(f"{names[j]}: torque (N m)")
        for ax in axes[j]:
            ax.grid(alpha=0.3)
            _legend(ax)
    axes[0, 0].set_title("tracking error q_d - q" if target is not None else "joint position")
    axes[0, 1].set_title("joint torque")
    axes[-1, 0].set_xlabel("t (s)")
    axes[-1, 1].set_xlabel("t (s)")
    fig.suptitle(f"{first.meta.get('model', '?')}: tracking error and torque of "
                 f"{len(trajs)} controllers")  # fmt: skip
    return _save(fig, path, overwrite)


def _planar_points(model, q: np.ndarray, frame=None) -> tuple[np.ndarray, np.ndarray]:
    """Body origins (K, nb, 3) and the frame's position (K, 3) over configurations q."""
    from ..kinematics import body_poses, fk

    P = body_poses(model, q)[..., :3, 3]
    f = model.nf - 1 if frame is None else model.frame_id(frame)
    tip = fk(model, q, f)[..., :3, 3]
    return P, tip


def plot_ellipses(
    model, qs, frame=None, path=None, kind: str = "torque", scale=None, *, overwrite: bool = False
):
    """Torque ellipses of the mass matrix, or end-effector force ellipses (course notes
    000, MR sec. 8.4), at several configurations.

    ``kind="torque"``: for a 2-dof model, the ellipse ``{tau = M(q) a : |a| = 1}`` in the
    (tau_1, tau_2) plane: semi-axes the eigenvalues of M (kg m^2) along its eigenvectors,
    one per configuration.
    ``kind="force"``: the planar arm (world x-y) at each configuration with, at the frame's
    origin, the ellipse ``{F = Lambda(q) a : |a| = 1}`` of the x-y rows of the task-space
    inertia (world-aligned linear part): semi-axes the apparent masses (kg), drawn
    ``scale`` metres per kg.

    Parameters
    ----------
    model : Model
    qs : array_like, shape (K, nq)
    frame : str or int, optional
        The end-effector frame (default the model's last frame).
    path : path, optional
    kind : {"torque", "force"}
    scale : float, optional
        kind="force": metres per kg (default: the largest ellipse a quarter of the reach).
    overwrite : bool
        Replace an existing file at ``path`` (else FileExistsError, before drawing).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Ellipse

    from ..dynamics import mass_matrix
    from ..taskspace import task_space_inertia

    qs = np.atleast_2d(np.asarray(qs, dtype=float))
    if qs.shape[-1] != model.nq:
        raise ValueError(f"qs must have shape (K, {model.nq}), got {qs.shape}")
    if kind not in ("torque", "force"):
        raise ValueError(f"kind must be 'torque' or 'force', got {kind!r}")
    if kind == "torque" and model.nv != 2:
        raise ValueError(f"kind='torque' draws 2-dof models; {model.name!r} has nv = {model.nv}")
    figure_path(path, overwrite)
    fig = Figure(figsize=(8.5, 5.5), layout="constrained")
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    labels = [f"q = ({', '.join(f'{np.degrees(x):.0f}' for x in q)}) deg" for q in qs]
    if kind == "torque":
        Ms = mass_matrix(model, qs)
        r = 0.0
        for k, M in enumerate(Ms):
            w, U = np.linalg.eigh(M)
            ang = np.degrees(np.arctan2(U[1, 1], U[0, 1]))
            ax.add_patch(Ellipse((0, 0), 2 * w[1], 2 * w[0], angle=ang, fill=False,
                                 color=f"C{k}", lw=1.5, label=labels[k]))  # fmt: skip
            r = max(r, w[1])
        ax.set_xlim(-1.15 * r, 1.15 * r)
        ax.set_ylim(-1.15 * r, 1.15 * r)
        ax.set_xlabel("tau_1 per unit acceleration (N m per rad/s^2)")
        ax.set_ylabel("tau_2 per unit acceleration (N m per rad/s^2)")
        ax.set_title(f"{model.name}: torque ellipses {{M(q) a : |a| = 1}}")
    else:  # "force"
        P, tip = _planar_points(model, qs, frame)
        f = model.nf - 1 if frame is None else model.frame_id(frame)
        Lams = [task_space_inertia(model, q, f, kind="world_aligned", part=[3, 4]) for q in qs]
        eig = [np.linalg.eigh(L) for L in Lams]
        reach = max(np.max(np.linalg.norm(tip[:, :2], axis=1)), 1e-3)
        if scale is None:
            scale = 0.25 * reach / max(w[1] for w, _ in eig)
        for k, (w, U) in enumerate(eig):
            # the arm as one collection of segments: parent origin -> child origin, and
            # the frame's body -> the frame
            pts = np.concatenate([P[k][:, :2], tip[k][None, :2]])
            segs = [(int(model.body_parent[i]), i) for i in range(1, model.nb)]
            segs.append((int(model.frame_body[f]), len(pts) - 1))
            ax.add_collection(LineCollection([pts[[a, b]] for a, b in segs], colors=f"C{k}",
                                             linewidths=2.0, label=labels[k]))  # fmt: skip
            ax.scatter(*pts[1:-1].T, s=10, color=f"C{k}")
            ang = np.degrees(np.arctan2(U[1, 1], U[0, 1]))
            ellipse = Ellipse(tuple(tip[k][:2]), 2 * scale * w[1], 2 * scale * w[0], angle=ang,
                              fill=False, color=f"C{k}", lw=1.2, ls="--")  # fmt: skip
            ax.add_patch(ellipse)
        lim = 1.2 * reach + scale * max(w[1] for w, _ in eig)
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_title(f"{model.name}: end-effector force ellipses {{Lambda a : |a| = 1}}, "
                     f"{scale:.3g} m per kg")  # fmt: skip
    ax.grid(alpha=0.3)
    _legend(ax)
    return _save(fig, path, overwrite)


def _is_planar(P: np.ndarray) -> bool:
    return bool(np.ptp(P[..., 2]) < 1e-9)


def animate(
    traj,
    path,
    *,
    fps: int = 30,
    frame=None,
    speed: float = 1.0,
    rollout=None,
    overwrite: bool = False,
):
    """Write an animation of the motion: GIF (pillow) or MP4 (ffmpeg).

    A model whose body origins stay in one plane z = const (every joint axis parallel to
    z, like planar_2r) is drawn in that plane; any other, floating bases included, as a 3-D
    stick figure (body origins joined parent to child, the frame's origin marked). Frames
    are taken every ``speed / fps`` seconds of simulated time.

    Parameters
    ----------
    traj : Trajectory
        With its model (``traj.model``).
    path : path
        ``.gif`` or ``.mp4``.
    fps : int
    frame : str or int, optional
        The frame to mark (default the model's last frame).
    speed : float
        Simulated seconds per second of animation.
    rollout : int, optional
    overwrite : bool
        Replace an existing file at ``path`` (else FileExistsError, before drawing).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    ValueError
        No model, an unknown suffix, .mp4 without ffmpeg (use .gif), or a missing folder.
    """
    from matplotlib import animation

    path = Path(path)
    model = traj.model
    if model is None:
        raise ValueError(
            "animate needs the model: traj.model = model (or Trajectory.load(..., model=))"
        )
    writer = _animation_writer(path, fps)
    if not (fps > 0 and speed > 0):
        raise ValueError(f"fps and speed must be positive, got {fps}, {speed}")
    output_path(path, overwrite=overwrite, name="path")
    tr, note = _one(traj, rollout)
    idx = _frame_samples(tr.t, fps, speed)
    P, tip, segs = _stick_figure(model, tr.q[idx], frame)
    planar = _is_planar(P)
    fig = _animation_figure()
    ax, lines, mark = _stick_axes(fig, P, tip, segs, planar)
    label = ax.set_title("")
    name = traj.meta.get("model", model.name)

    def draw(k):
        _pose_sticks(lines, mark, segs, P[k], tip[k], planar)
        label.set_text(f"{name}{note}: t = {tr.t[idx[k]]:.2f} s")
        return [*lines, mark, label]

    if writer is not None:  # .mp4
        anim = animation.FuncAnimation(fig, draw, frames=len(idx), blit=False)
        with atomic_write(output_path(path, overwrite=overwrite, name="path")) as tmp:
            anim.save(str(tmp), writer=writer)
        return path
    return _write_gif(fig, ax, (*lines, mark, label), draw, range(len(idx)), path, fps, overwrite)


def _animation_writer(path: Path, fps):
    """The ffmpeg writer of an .mp4 (None for a .gif); a ValueError for another suffix or
    an .mp4 without ffmpeg."""
    from matplotlib import animation

    suffix = path.suffix.lower()
    writer = None
    if suffix == ".mp4":
        if not animation.writers.is_available("ffmpeg"):
            raise ValueError(f"{path}: writing .mp4 needs ffmpeg, which is not installed; "
                             "write a .gif instead")  # fmt: skip
        writer = animation.FFMpegWriter(fps=fps)
    elif suffix != ".gif":
        raise ValueError(f"{path}: the animation must be a .gif or .mp4 file")
    return writer


def _frame_samples(t: np.ndarray, fps, speed) -> np.ndarray:
    """Indices of the samples shown, one every ``speed / fps`` seconds of ``t``."""
    n = max(2, int(round(t[-1] * fps / speed)) + 1)
    return np.unique(np.searchsorted(t, np.linspace(0.0, t[-1], n)).clip(0, len(t) - 1))


def _animation_figure():
    """A 6 x 6 in figure on an Agg canvas, with a fixed layout (laid out once, not per frame)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 6), dpi=80)
    fig.subplots_adjust(left=0.14, right=0.96, bottom=0.1, top=0.92)
    FigureCanvasAgg(fig)
    return fig


def _stick_figure(model, q: np.ndarray, frame):
    """Body origins and the frame's origin as one more point after them (K, nb + 1, 3), the
    frame's origin (K, 3), and the segments (parent, child) joining them."""
    P, tip = _planar_points(model, q, frame)
    fb = int(model.frame_body[model.nf - 1 if frame is None else model.frame_id(frame)])
    P = np.concatenate([P, tip[:, None]], axis=1)  # the frame: one more point, after its body
    segs = [(int(model.body_parent[i]), i) for i in range(1, model.nb)] + [(fb, model.nb)]
    return P, tip, segs


def _stick_axes(fig, P: np.ndarray, tip: np.ndarray, segs: list, planar: bool):
    """Axes (x-y, or 3-D) holding every sample at equal scales, a line per segment and the
    frame's mark."""
    allp = np.concatenate([P.reshape(-1, 3), tip])
    lo, hi = allp.min(0), allp.max(0)
    c, r = 0.5 * (lo + hi), 0.55 * max(np.max(hi - lo), 1e-3) + 0.05
    if planar:
        ax = fig.add_subplot()
        ax.set_aspect("equal")
        ax.set_xlim(c[0] - r, c[0] + r)
        ax.set_ylim(c[1] - r, c[1] + r)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        lines = [ax.plot([], [], "-o", color="C0", lw=3, ms=5)[0] for _ in segs]
        (mark,) = ax.plot([], [], "s", color="C3", ms=6, label="frame origin")
    else:
        ax = fig.add_subplot(projection="3d")
        for set_lim, k in ((ax.set_xlim, 0), (ax.set_ylim, 1), (ax.set_zlim, 2)):
            set_lim(c[k] - r, c[k] + r)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_zlabel("z (m)")
        ax.set_box_aspect((1.0, 1.0, 1.0), zoom=0.85)  # the z label inside the figure
        lines = [ax.plot([], [], [], "-o", color="C0", lw=3, ms=4)[0] for _ in segs]
        (mark,) = ax.plot([], [], [], "s", color="C3", ms=6, label="frame origin")
    ax.grid(alpha=0.3)
    return ax, lines, mark


def _pose_sticks(lines, mark, segs, Pk: np.ndarray, tip_k: np.ndarray, planar: bool) -> None:
    """Move the segments and the frame's mark to one sample's points."""
    for ln, (a, b) in zip(lines, segs):
        xyz = Pk[[a, b]]
        if planar:
            ln.set_data(xyz[:, 0], xyz[:, 1])
        else:
            ln.set_data(xyz[:, 0], xyz[:, 1])
            ln.set_3d_properties(xyz[:, 2])
    if planar:
        mark.set_data([tip_k[0]], [tip_k[1]])
    else:
        mark.set_data([tip_k[0]], [tip_k[1]])
        mark.set_3d_properties([tip_k[2]])


def _write_gif(fig, ax, artists, draw, keys, path: Path, fps, overwrite: bool) -> Path:
    """Write a GIF: the static parts drawn once, the moving ``artists`` (those ``draw(k)``
    returns) blitted on top of them for each k of ``keys``; ``path`` whole or not at all."""
    from PIL import Image

    for art in artists:
        art.set_animated(True)
    canvas = fig.canvas
    canvas.draw()
    background = canvas.copy_from_bbox(fig.bbox)
    frames = []
    for k in keys:
        canvas.restore_region(background)
        for art in draw(k):
            ax.draw_artist(art)
        buf = np.asarray(canvas.buffer_rgba())
        frames.append(Image.fromarray(buf[..., :3].copy()))
    with atomic_write(output_path(path, overwrite=overwrite, name="path")) as tmp:
        frames[0].save(tmp, save_all=True, append_images=frames[1:], duration=round(1000 / fps),
                       loop=0)  # fmt: skip
    return path
