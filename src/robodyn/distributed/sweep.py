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

import numpy as np

from .chunks import describe_input, run_chunks

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
    from ..control import perturbed

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
    that fails keeps NaN results, its ``status`` (1 diverged, 2 dynamics failed, 3
    controller failed) and the time of its last good sample in ``t_end``."""
    from ..errors import SimulationError
    from ..sim.integrators import STEPS
    from ..sim.simulate import simulate

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
        "status": np.zeros(n, dtype=np.int8),
    }
    mark = {"on_divergence": "mark"} if opts["integrator"] in STEPS else {}
    for k in range(n):
        m, ms, fs = perturbation(model, seed, start + k, ms_sig, fr_sig)
        out["mass_scale"][k], out["friction_scale"][k] = ms, fs
        try:
            tr = simulate(m, q0, v0, controller, threads=1, **mark, **opts)
        except SimulationError as exc:
            if mark:  # a one-rollout path without marks: the rollout as a batch of one
                tr = simulate(m, q0[None], v0[None], controller, threads=1, **mark, **opts)[0]
            else:  # an adaptive integrator (no marks): failed, counted as diverged
                tr = None
                out["status"][k] = 1
                out["t_end"][k] = exc.partial.t[-1] if len(exc.partial.t) else np.nan
        if tr is not None and mark:
            out["status"][k], out["t_end"][k] = int(tr.status), float(tr.t_end)
        elif tr is not None:
            out["t_end"][k] = tr.t[-1]
        if out["status"][k]:
            out["q_final"][k] = out["v_final"][k] = out["tau_peak"][k] = np.nan
            continue
        out["q_final"][k], out["v_final"][k] = tr.q[-1], tr.v[-1]
        out["tau_peak"][k] = np.abs(tr.tau).max(axis=0)
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
        ``status (n,)`` int8 (0 ok; 1 diverged, 2 dynamics failed, 3 controller failed:
        the rollout's other results are then NaN), ``t_end (n,)`` (the time of the last
        good sample: ``duration`` for a rollout that finished), lazy dask arrays. A
        store records the model (by fingerprint), the controller's ``describe()``, q0, v0,
        the draws' settings, the integrator, dt, duration and robodyn's version; a resume
        that differs in any is refused, naming it (see
        :func:`robodyn.distributed.run_chunks`).
    """
    from ..model.configuration import neutral

    n, chunk = _count(n, "n"), _count(chunk, "chunk")
    q0 = neutral(model) if q0 is None else np.asarray(q0, dtype=float)
    v0 = np.zeros(model.nv) if v0 is None else np.asarray(v0, dtype=float)
    if q0.shape != (model.nq,) or v0.shape != (model.nv,):
        raise ValueError(
            f"q0 and v0 must have shapes ({model.nq},) and ({model.nv},), got {q0.shape} "
            f"and {v0.shape}"
        )
    if not (np.all(np.isfinite(q0)) and np.all(np.isfinite(v0))):
        raise ValueError("q0 and v0 must be finite, got NaN or inf")
    opts = {"duration": float(duration), "dt": float(dt), "integrator": integrator}
    settings = (int(seed), float(mass_sigma), float(friction_sigma), opts)
    fields = {"mass_scale": (model.nb,), "friction_scale": (model.nv,),
              "q_final": (model.nq,), "v_final": (model.nv,), "tau_peak": (model.nv,),
              "t_end": (), "status": ()}  # fmt: skip
    blocks = [(i, min(n, i + chunk)) for i in range(0, n, chunk)]
    meta = {"sweep": "monte_carlo", "seed": int(seed), "mass_sigma": float(mass_sigma),
            "friction_sigma": float(friction_sigma), **opts}  # fmt: skip
    inputs = {"controller": describe_input(controller, "the controller"), "q0": q0.tolist(),
              "v0": v0.tolist()}  # fmt: skip
    return run_chunks(
        _monte_carlo_block, (model, controller, settings, q0, v0), blocks, n, chunk, fields,
        model=model, meta=meta, inputs=inputs, dtypes={"status": "int8"}, out=out,
        resume=resume, client=client, progress=progress, on_chunk=on_chunk,
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
    from ..model.configuration import neutral

    idx = np.unravel_index(np.arange(start, stop), [a.size for a in axes])
    Q = np.tile(neutral(model), (stop - start, 1))
    for j, ax, ix in zip(joints, axes, idx):
        Q[:, j] = ax[ix]
    return Q


def _workspace_block(model, settings, start, stop):
    """Grid points start..stop-1: frame position and manipulability (one chunk)."""
    from ..kinematics.forward import _kept_rows, fk, jacobian

    joints, axes, frame, kind, part = settings
    Q = _grid_states(model, joints, axes, start, stop)
    T = fk(model, Q, frame, threads=1)
    J = jacobian(model, Q, frame, kind, threads=1)
    Jp = _kept_rows(J, part)  # the kept rows, batched
    if Jp.shape[-2] > Jp.shape[-1]:
        w = np.zeros(len(Q))
    else:  # sqrt(det(J J^T)) = product of the singular values (as rd.manipulability)
        w = np.prod(np.linalg.svd(Jp, compute_uv=False), axis=-1)
    return {"p": T[:, :3, 3], "manipulability": w}


#: bytes per configuration of a workspace map's results: p (3 floats) and manipulability
_MAP_BYTES = 32
#: bytes the task graph costs per chunk (the delayed call, its arguments, its future)
_TASK_BYTES = 16_000


def workspace_memory(model, n: int, chunk: int, *, out=None, threads: int = 1) -> dict:
    """The memory a workspace map of ``n`` configurations in chunks of ``chunk`` takes,
    estimated before it starts (bytes, by what takes them).

    * ``"tasks"``: ``threads`` chunks computed at once, each ``8 (7 nv + nq + 24)`` bytes
      per configuration (the configurations, poses, Jacobians and the SVD's work, measured
      at 496 B for the UR5 and 552 B for the Panda);
    * ``"graph"``: the task graph, ~16 kB a chunk;
    * ``"map"``: without ``out``, the map itself, 32 B a configuration (p and the
      manipulability), held in memory (with ``out`` it goes to the store, on disk).
    """
    nchunks = -(-n // chunk)
    parts = {
        "tasks": min(threads, nchunks) * min(chunk, n) * 8 * (7 * model.nv + model.nq + 24),
        "graph": nchunks * _TASK_BYTES,
    }
    if out is None:
        parts["map"] = n * _MAP_BYTES
    return parts


def check_workspace_memory(parts: dict, max_memory, what: str, advice: str) -> None:
    """ValueError naming the sizes when ``parts`` (:func:`workspace_memory`) add up to more
    than ``max_memory`` bytes (default: the memory available now)."""
    from .._checks import human_bytes, memory_limit

    need = sum(parts.values())
    limit, said = memory_limit(max_memory, "--max-memory")
    if limit is None or need <= limit:
        return
    words = {"tasks": "chunks being computed", "graph": "the task graph", "map": "the map"}
    detail = ", ".join(f"{words.get(k, k)} {human_bytes(b)}" for k, b in parts.items())
    raise ValueError(f"{what} would need {human_bytes(need)} of memory ({detail}), more "
                     f"than {said}; {advice}")  # fmt: skip


def _count_words(n: int) -> str:
    return f"{n:,}" if n < 10**9 else f"{n:.3g}"


def _threads(client) -> int:
    """Tasks run at once in this machine's memory: Dask's local threads without a client,
    else the threads of the client's workers on this host (a remote worker has its own)."""
    import os
    import socket
    from urllib.parse import urlsplit

    if client is None:
        return os.cpu_count() or 1
    here = {"127.0.0.1", "::1", "localhost", socket.gethostname()}
    try:
        here |= set(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    threads = 0
    for addr, info in client.scheduler_info().get("workers", {}).items():
        host = urlsplit(addr).hostname if "://" in addr else None
        if host in here or addr.startswith("inproc://"):
            threads += int(info.get("nthreads", 1))
    return threads


def workspace_map(
    model, frame, joints=(0, 1, 2), points: int = 50, *, kind: str = "body",
    part="linear", chunk: int = 100_000, out=None, resume: bool = False, client=None,
    progress: bool = False, on_chunk=None, max_memory=None,
):  # fmt: skip
    """Frame position and manipulability over a grid of joint values, on Dask.

    The grid is never built whole: each task makes its own chunk of configurations, and
    the memory the map takes is estimated before anything starts
    (:func:`workspace_memory`) and refused above ``max_memory``.

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
    max_memory : int, optional
        Bytes the map may take in memory (default: the memory available now): the
        chunks computed at once, the task graph and, without ``out``, the map itself.

    Returns
    -------
    robodyn.distributed.ChunkRun
        ``.arrays``: ``p (N, 3)`` (m, world frame) and ``manipulability (N,)``, lazy;
        reshape to ``(points,) * len(joints)`` for the map.

    Raises
    ------
    ValueError
        The map would take more than ``max_memory`` (the sizes named), or bad arguments.
    """
    joints = tuple(int(j) for j in joints)
    points, chunk = _count(points, "points"), _count(chunk, "chunk")
    axes = workspace_grid(model, joints, points)
    n = math.prod(a.size for a in axes)
    check_workspace_memory(
        workspace_memory(model, n, chunk, out=out, threads=_threads(client)), max_memory,
        f"workspace_map: {points} points per joint over {len(joints)} joints "
        f"({_count_words(n)} configurations in chunks of {chunk})",
        "lower points, sweep fewer joints, "
        + ("" if out is not None else "give out= to keep the map on disk, ")
        + "or raise max_memory",
    )  # fmt: skip
    settings = (joints, axes, frame, kind, part)
    blocks = [(i, min(n, i + chunk)) for i in range(0, n, chunk)]
    meta = {"sweep": "workspace", "frame": frame, "joints": list(joints), "points": points,
            "kind": kind, "part": part if isinstance(part, str) else list(part)}  # fmt: skip
    return run_chunks(
        _workspace_block, (model, settings), blocks, n, chunk,
        {"p": (3,), "manipulability": ()}, model=model, meta=meta, out=out, resume=resume,
        client=client, progress=progress, on_chunk=on_chunk,
    )  # fmt: skip
