"""Sweeps past one machine: the two common ones of ``robodyn sweep``, on Dask.

* :func:`monte_carlo`: rollouts of a controller on robots whose link masses and joint
  friction are drawn at random around the model's (each rollout its own robot; the
  controller keeps the nominal model, as a real controller would).
* :func:`workspace_map`: the position of a frame and Yoshikawa's manipulability over a
  grid of joint values.

Both run in chunks through :func:`robodyn.distributed.run_chunks`: on a
``dask.distributed`` cluster given by a Client (or on Dask's local threads), streamed to a
Zarr store, resumable. Every chunk is reproducible alone: rollout ``i`` draws its robot
from ``numpy.random.default_rng([seed, i])``, so a rerun chunk (a dead worker, a resumed
store) computes the same numbers.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from .distributed import run_chunks

__all__ = ["perturbation", "monte_carlo", "workspace_grid", "workspace_map"]


# ------------------------------------------------------------------------ Monte Carlo
def perturbation(model, seed: int, i: int, mass_sigma: float, friction_sigma: float):
    """Robot ``i`` of a Monte-Carlo sweep: masses and friction scaled by log-normal factors.

    Each moving body's mass and rotational inertia are scaled by ``exp(mass_sigma z)`` and
    each joint's damping and Coulomb friction by ``exp(friction_sigma z)``, ``z ~ N(0, 1)``
    from ``numpy.random.default_rng([seed, i])`` (so the draw depends on (seed, i) only).

    Returns
    -------
    model_i : Model
    mass_scale : numpy.ndarray, shape (nb,)
    friction_scale : numpy.ndarray, shape (nv,)
    """
    from .control import perturbed

    g = np.random.default_rng([int(seed), int(i)])
    ms = np.exp(mass_sigma * g.standard_normal(model.nb))
    ms[0] = 1.0  # the world
    fs = np.exp(friction_sigma * g.standard_normal(model.nv))
    m = perturbed(model, ms)
    m = dataclasses.replace(
        m, dof_damping=model.dof_damping * fs, dof_friction=model.dof_friction * fs
    )
    return m, ms, fs


def _monte_carlo_block(model, controller, settings, q0, v0, start, stop):
    """Rollouts start..stop-1 of a Monte-Carlo sweep (one chunk, one worker); a rollout
    that diverges keeps NaN results and the time it reached in ``t_end``."""
    from .errors import SimulationError
    from .sim.simulate import simulate

    seed, ms_sig, fr_sig, opts = settings
    q0, v0 = _aligned(q0), _aligned(v0)
    n = stop - start
    out = {
        "mass_scale": np.empty((n, model.nb)),
        "friction_scale": np.empty((n, model.nv)),
        "q_final": np.empty((n, model.nq)),
        "v_final": np.empty((n, model.nv)),
        "tau_peak": np.empty((n, model.nv)),
        "t_end": np.empty(n),
    }
    for k in range(n):
        m, ms, fs = perturbation(model, seed, start + k, ms_sig, fr_sig)
        out["mass_scale"][k], out["friction_scale"][k] = ms, fs
        try:
            tr = simulate(m, q0, v0, controller, threads=1, **opts)
        except SimulationError as exc:
            out["q_final"][k] = out["v_final"][k] = out["tau_peak"][k] = np.nan
            out["t_end"][k] = exc.partial.t[-1] if len(exc.partial.t) else 0.0
            continue
        out["q_final"][k], out["v_final"][k] = tr.q[-1], tr.v[-1]
        out["tau_peak"][k] = np.abs(tr.tau).max(axis=0)
        out["t_end"][k] = tr.t[-1]
    return out


def monte_carlo(
    model, controller, n: int, *, duration: float, dt: float, q0=None, v0=None,
    mass_sigma: float = 0.1, friction_sigma: float = 0.2, seed: int = 0, chunk: int = 1000,
    integrator: str = "rk4", out=None, resume: bool = False, client=None,
    progress: bool = False, on_chunk=None,
):  # fmt: skip
    """Monte-Carlo rollouts of a controller under mass and friction uncertainty, on Dask.

    Parameters
    ----------
    model : Model
        The nominal robot.
    controller : callable
        ``controller(t, q, v) -> tau`` (e.g. :class:`robodyn.control.PD`), built on the
        nominal model.
    n : int
        Rollouts.
    duration, dt : float
        Seconds per rollout and the step (as in :func:`robodyn.simulate`).
    q0, v0 : array_like, shape (nq,), (nv,), optional
        Start of every rollout (default: the neutral configuration, at rest).
    mass_sigma, friction_sigma : float
        Standard deviations of the log of the mass and friction factors
        (:func:`perturbation`).
    seed : int
        Rollout i draws from ``default_rng([seed, i])``.
    chunk : int
        Rollouts per task.
    integrator : str
        As in :func:`robodyn.simulate`.
    out, resume, client, progress, on_chunk
        As in :func:`robodyn.distributed.run_chunks` (a Zarr store, finishing an
        interrupted one, the cluster, Dask's progress bar).

    Returns
    -------
    robodyn.distributed.ChunkRun
        ``.arrays``: ``mass_scale (n, nb)``, ``friction_scale (n, nv)``, ``q_final (n, nq)``,
        ``v_final (n, nv)``, ``tau_peak (n, nv)`` (the largest ``|tau|`` of each joint),
        ``t_end (n,)`` (seconds simulated: ``duration``, or where a rollout diverged, its
        other results then NaN), lazy dask arrays.
    """
    from .model.configuration import neutral

    n, chunk = _count(n, "n"), _count(chunk, "chunk")
    q0 = neutral(model) if q0 is None else np.asarray(q0, dtype=float)
    v0 = np.zeros(model.nv) if v0 is None else np.asarray(v0, dtype=float)
    if q0.shape != (model.nq,) or v0.shape != (model.nv,):
        raise ValueError(
            f"q0 and v0 must have shapes ({model.nq},) and ({model.nv},), got {q0.shape} "
            f"and {v0.shape}"
        )
    opts = {"duration": float(duration), "dt": float(dt), "integrator": integrator}
    settings = (int(seed), float(mass_sigma), float(friction_sigma), opts)
    fields = {"mass_scale": (model.nb,), "friction_scale": (model.nv,),
              "q_final": (model.nq,), "v_final": (model.nv,), "tau_peak": (model.nv,),
              "t_end": ()}  # fmt: skip
    blocks = [(i, min(n, i + chunk)) for i in range(0, n, chunk)]
    meta = {"sweep": "monte_carlo", "controller": type(controller).__name__, "seed": int(seed),
            "mass_sigma": float(mass_sigma), "friction_sigma": float(friction_sigma),
            "q0": q0.tolist(), "v0": v0.tolist(), **opts}  # fmt: skip
    return run_chunks(
        _monte_carlo_block, (model, controller, settings, q0, v0), blocks, n, chunk, fields,
        model=model, meta=meta, out=out, resume=resume, client=client, progress=progress,
        on_chunk=on_chunk,
    )  # fmt: skip


def _aligned(x):
    """A fresh aligned copy: arrays Dask deserialises may be unaligned views of a message
    buffer, which the compiled core (rightly) refuses."""
    return np.array(x, dtype=np.float64, order="C")


def _count(x, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
        raise ValueError(f"{name} must be a positive int, got {x!r}")
    return int(x)


# ------------------------------------------------------------------------ workspace map
def workspace_grid(model, joints, points: int):
    """The axes of a joint grid: ``points`` values of each joint in ``joints`` between its
    limits (``[-pi, pi]`` where a limit is infinite); the other joints stay neutral.

    Returns
    -------
    list of numpy.ndarray
        One axis per joint in ``joints``.
    """
    axes = []
    for j in joints:
        if not 0 <= j < model.nq:
            raise ValueError(f"joints: index {j} is not a coordinate of q (0..{model.nq - 1})")
        lo, hi = float(model.q_lower[j]), float(model.q_upper[j])
        lo, hi = (lo if np.isfinite(lo) else -np.pi), (hi if np.isfinite(hi) else np.pi)
        axes.append(np.linspace(lo, hi, points))
    return axes


def _grid_states(model, joints, axes, start, stop):
    """The configurations start..stop-1 of the grid (C order over ``joints``)."""
    from .model.configuration import neutral

    idx = np.unravel_index(np.arange(start, stop), [a.size for a in axes])
    Q = np.tile(neutral(model), (stop - start, 1))
    for j, ax, ix in zip(joints, axes, idx):
        Q[:, j] = ax[ix]
    return Q


def _workspace_block(model, settings, start, stop):
    """Grid points start..stop-1: frame position and manipulability (one chunk)."""
    from .kinematics import _rows, fk, jacobian

    joints, axes, frame, kind, part = settings
    Q = _grid_states(model, joints, axes, start, stop)
    T = fk(model, Q, frame, threads=1)
    J = jacobian(model, Q, frame, kind, threads=1)
    Jp = np.moveaxis(_rows(np.moveaxis(J, -2, 0), part), 0, -2)  # the kept rows, batched
    if Jp.shape[-2] > Jp.shape[-1]:
        w = np.zeros(len(Q))
    else:  # sqrt(det(J J^T)) = product of the singular values (as rd.manipulability)
        w = np.prod(np.linalg.svd(Jp, compute_uv=False), axis=-1)
    return {"p": T[:, :3, 3], "manipulability": w}


def workspace_map(
    model, frame, joints=(0, 1, 2), points: int = 50, *, kind: str = "body",
    part="linear", chunk: int = 100_000, out=None, resume: bool = False, client=None,
    progress: bool = False, on_chunk=None,
):  # fmt: skip
    """Frame position and manipulability over a grid of joint values, on Dask.

    Parameters
    ----------
    model : Model
    frame : str or int
        The operational frame.
    joints : sequence of int
        Coordinates of q swept (``points`` values each between the limits); the others
        stay neutral. The grid has ``points ** len(joints)`` configurations, C order.
    points : int
        Values per joint.
    kind, part
        Jacobian kind and rows of :func:`robodyn.manipulability` (default: the linear
        rows, the manipulability of the frame's position).
    chunk : int
        Configurations per task.
    out, resume, client, progress, on_chunk
        As in :func:`robodyn.distributed.run_chunks`.

    Returns
    -------
    robodyn.distributed.ChunkRun
        ``.arrays``: ``p (N, 3)`` (m, world frame) and ``manipulability (N,)``, lazy;
        reshape to ``(points,) * len(joints)`` for the map.
    """
    joints = tuple(int(j) for j in joints)
    points, chunk = _count(points, "points"), _count(chunk, "chunk")
    axes = workspace_grid(model, joints, points)
    n = math.prod(a.size for a in axes)
    settings = (joints, axes, frame, kind, part)
    blocks = [(i, min(n, i + chunk)) for i in range(0, n, chunk)]
    meta = {"sweep": "workspace", "frame": frame, "joints": list(joints), "points": points,
            "kind": kind, "part": part if isinstance(part, str) else list(part)}  # fmt: skip
    return run_chunks(
        _workspace_block, (model, settings), blocks, n, chunk,
        {"p": (3,), "manipulability": ()}, model=model, meta=meta, out=out, resume=resume,
        client=client, progress=progress, on_chunk=on_chunk,
    )  # fmt: skip


# ------------------------------------------------------------------------ the command
def add_arguments(p) -> None:
    """The options of ``robodyn sweep`` (added to its argparse parser by robodyn.cli)."""
    from .cli import finite_float, nonnegative_float, positive_float, positive_int

    p.add_argument("kind", choices=("montecarlo", "workspace"),
                   help="montecarlo: rollouts of a gravity-compensated PD controller on "
                   "robots with random masses and friction; workspace: frame position and "
                   "manipulability over a joint grid")  # fmt: skip
    p.add_argument("robot", metavar="ROBOT", help="bundled robot name or URDF path")
    p.add_argument("--out", metavar="STORE", help="Zarr store (a new folder, e.g. sweep.zarr, "
                   "in an existing one) the chunks stream to")  # fmt: skip
    p.add_argument("--resume", action="store_true", help="finish an interrupted --out store")
    p.add_argument("--scheduler-address", metavar="ADDR", help="a running Dask scheduler, "
                   "e.g. tcp://10.0.0.1:8786 (default: --workers local processes)")  # fmt: skip
    p.add_argument("--workers", type=int, default=0, help="local worker processes (default 0: "
                   "Dask's local threads, no cluster)")  # fmt: skip
    p.add_argument("--chunk", type=positive_int, help="items per task (default 1000 rollouts, "
                   "100000 grid points)")  # fmt: skip
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    mc = p.add_argument_group("montecarlo")
    mc.add_argument("--n", type=positive_int, default=1000, help="rollouts (default 1000)")
    mc.add_argument("--duration", type=positive_float, default=1.0,
                    help="seconds per rollout (default 1)")  # fmt: skip
    mc.add_argument("--dt", type=positive_float, default=1e-3, help="step, s (default 1e-3)")
    mc.add_argument("--target", type=finite_float, nargs="+", help="PD target (nq numbers or "
                    "one for all; default neutral + 0.3 rad)")  # fmt: skip
    mc.add_argument("--kp", type=nonnegative_float, default=100.0,
                    help="proportional gain (default 100)")  # fmt: skip
    mc.add_argument("--kd", type=nonnegative_float, default=20.0,
                    help="derivative gain (default 20)")  # fmt: skip
    mc.add_argument("--mass-sigma", type=nonnegative_float, default=0.1,
                    help="std of log mass factors (default 0.1)")  # fmt: skip
    mc.add_argument("--friction-sigma", type=nonnegative_float, default=0.2,
                    help="std of log friction factors (default 0.2)")  # fmt: skip
    mc.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ws = p.add_argument_group("workspace")
    ws.add_argument("--frame", help="operational frame (default: the last)")
    ws.add_argument("--joints", nargs="+", metavar="JOINT",
                    help="joints swept: names (joint2) or numbers counted from 1 in the order "
                    "'robodyn info' lists them (1 is the first joint, not q[1]); a name is "
                    "read first (default: the first three joints)")  # fmt: skip
    ws.add_argument("--points", type=positive_int, default=50,
                    help="values per joint (default 50)")  # fmt: skip
    ws.add_argument("--part", default="linear", help="Jacobian rows: linear (default, "
                    "position manipulability), angular, full, or row indices as 3,4")  # fmt: skip


def joint_coordinates(model, joints=None) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The coordinates of q swept by ``robodyn sweep workspace --joints``.

    Parameters
    ----------
    model : Model
    joints : sequence of str, optional
        Joint names, or numbers counted from 1 in ``model.joint_names`` order (a name is
        read first); default the first three joints (all when fewer). Each must be a joint
        with one coordinate.

    Returns
    -------
    coordinates : tuple of int
        Indices into q.
    names : tuple of str
        The joints' names.

    Raises
    ------
    ValueError
        Naming ``--joints``, the bad entry and the robot's joints.
    """
    names = list(model.joint_names)
    listing = ", ".join(f"{k} {n}" for k, n in enumerate(names, 1))
    if joints is None:
        joints = [str(k) for k in range(1, min(3, len(names)) + 1)]
    chosen = []
    for text in joints:
        if text in names:
            name = text
        elif text.isdigit() and 1 <= int(text) <= len(names):
            name = names[int(text) - 1]
        else:
            raise ValueError(
                f"--joints: {text!r} is neither a joint name nor a number 1..{len(names)} "
                f"(joints of {model.name!r}: {listing})"
            )
        i = model.joint_id(name)
        if int(model.jnt_nq[i]) != 1:
            raise ValueError(f"--joints: joint {name!r} has {int(model.jnt_nq[i])} "
                             "coordinates; give joints with one")  # fmt: skip
        if name in chosen:
            raise ValueError(f"--joints: joint {name!r} is given twice")
        chosen.append(name)
    coords = tuple(int(model.jnt_qadr[model.joint_id(n)]) for n in chosen)
    return coords, tuple(chosen)


def _check_store(out, resume: bool) -> None:
    """``--out STORE``, before any work: a new store in an existing folder, or an existing
    one with ``--resume``."""
    from .cli import check_output_path

    if out is None:
        return
    if Path(out).exists():
        if not resume:
            raise ValueError(
                f"--out {str(out)!r}: the store exists; pass --resume to finish it, or remove it"
            )
        return
    check_output_path("--out", out)


def command(args) -> int:
    """``robodyn sweep``: run the sweep on Dask and print a summary."""
    from .cli import _numbers, load_robot
    from .control import PD
    from .model.configuration import neutral

    model = load_robot(args.robot)
    _check_store(args.out, args.resume)
    if args.workers < 0:
        raise ValueError(f"--workers must be >= 0, got {args.workers}")
    if args.kind == "workspace":
        joints, joint_names = joint_coordinates(model, args.joints)
    client = cluster = None
    if args.scheduler_address:
        from distributed import Client

        client = Client(args.scheduler_address)
    elif args.workers > 0:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)  # fmt: skip
        client = Client(cluster)
    common = {"out": args.out, "resume": args.resume, "client": client,
              "progress": not args.no_progress}  # fmt: skip
    try:
        if args.kind == "montecarlo":
            q0 = neutral(model)
            target = _numbers("--target", args.target, model.nq, "nq")
            target = q0 + 0.3 if target is None else target
            ctrl = PD(model, target, args.kp, args.kd, gravity_compensation=True)
            run = monte_carlo(model, ctrl, args.n, duration=args.duration, dt=args.dt,
                              mass_sigma=args.mass_sigma, friction_sigma=args.friction_sigma,
                              seed=args.seed, chunk=args.chunk or 1000, **common)  # fmt: skip
            import dask

            qf, tp = dask.compute(run.arrays["q_final"], run.arrays["tau_peak"])
            ok = np.all(np.isfinite(qf), axis=1)
            err = np.max(np.abs(qf[ok] - target), axis=1) if ok.any() else np.full(1, np.nan)
            tp = tp[ok] if ok.any() else tp
            print(f"{args.n} rollouts of {model.name!r} ({len(run.computed)} chunks computed; "
                  f"{np.sum(~ok)} diverged)")  # fmt: skip
            print(f"  max |target - q(end)|: median {np.median(err):.3e}, 95 % "
                  f"{np.quantile(err, 0.95):.3e}, worst {err.max():.3e} rad")  # fmt: skip
            with np.printoptions(precision=4, suppress=True, linewidth=110):
                print(f"  peak |tau| per joint, 95 %: {np.quantile(tp, 0.95, axis=0)} N m")
        else:
            frame = args.frame if args.frame is not None else model.frame_names[-1]
            part = args.part
            if part and part[0].isdigit():
                part = tuple(int(r) for r in part.split(","))
            run = workspace_map(model, frame, joints, args.points, part=part,
                                chunk=args.chunk or 100_000, **common)  # fmt: skip
            import dask

            p, w = dask.compute(run.arrays["p"], run.arrays["manipulability"])
            k = int(np.argmax(w))
            axes = workspace_grid(model, joints, args.points)
            idx = np.unravel_index(k, [a.size for a in axes])
            best = ", ".join(f"{j} = {a[i]:.3f}" for j, a, i in zip(joint_names, axes, idx))
            print(f"{w.size} configurations of {model.name!r}, frame {frame!r} "
                  f"({len(run.computed)} chunks computed)")  # fmt: skip
            print(f"  reach: max |p| = {np.linalg.norm(p, axis=1).max():.4f} m")
            print(f"  manipulability: max {w.max():.4g} at {best}; "
                  f"{np.mean(w < 1e-3 * w.max()):.1%} of the grid near singular")  # fmt: skip
        if args.out:
            print(f"store: {args.out}")
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    return 0
