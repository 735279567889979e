"""``rd.simulate`` for a batch of rollouts on Dask: chunks of rollouts as tasks.

:func:`simulate_chunks` answers ``rd.simulate(..., client=)`` and a dask ``q0``: each chunk
of rollouts is one task running robodyn's batched simulation on a worker (one core thread),
each rollout marked (status, t_end) instead of failing the chunk, streamed through
:func:`robodyn.distributed.chunks.run_chunks` into a Zarr store when asked.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..kernels.lazy import is_dask
from .chunks import block_hash_task, describe_input, run_chunks
from .store import array_record, block_hash, normalized

__all__ = ["simulate_chunks", "LazyTrajectory"]


# ------------------------------------------------------------------------ rollouts
class LazyTrajectory:
    """A batch of rollouts run on Dask: ``t (K+1,)`` and the lazy dask arrays ``q (N,
    K+1, nq)``, ``v``, ``a``, ``tau (N, K+1, nv)``, ``status (N,)`` (0 ok, 1 diverged,
    2 dynamics failed, 3 controller failed: :data:`robodyn.sim.result.STATUS`) and
    ``t_end (N,)`` (the time of each rollout's last good sample; its samples after it are
    NaN); :meth:`compute` gathers a :class:`robodyn.Trajectory`. ``computed`` lists the
    chunks the call ran and ``path`` is the Zarr store, if any."""

    def __init__(self, t, arrays, meta, model, computed, path=None, on_divergence="raise"):
        self.t, self.meta, self.model = t, meta, model
        self.q, self.v, self.a, self.tau = (arrays[k] for k in ("q", "v", "a", "tau"))
        self.status, self.t_end = arrays["status"], arrays["t_end"]
        self.computed, self.path, self.on_divergence = computed, path, on_divergence

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.q.shape[:1]

    def compute(self):
        """The rollouts as a :class:`robodyn.Trajectory` (numpy arrays, in memory, with
        ``status`` and ``t_end``).

        Raises
        ------
        SimulationError
            With ``on_divergence="raise"`` (the default) when a rollout failed, naming
            the rollouts; ``err.partial`` is the Trajectory (the failed rollouts NaN after
            their ``t_end``).
        """
        import dask

        from ..sim.result import Trajectory

        q, v, a, tau, status, t_end = dask.compute(
            self.q, self.v, self.a, self.tau, self.status, self.t_end
        )
        res = Trajectory(self.t, q, v, a, tau, meta=dict(self.meta), model=self.model,
                         status=status, t_end=t_end)  # fmt: skip
        res.meta["failed_rollouts"] = int(np.count_nonzero(status))
        if self.on_divergence == "raise":
            _raise_failed(status, t_end, res, self.path)
        return res

    def __repr__(self) -> str:
        return (
            f"LazyTrajectory({self.q.shape[0]} rollouts x {self.t.size} samples of "
            f"{self.meta.get('model')!r}, chunks {self.q.chunks[0][:3]}...)"
        )


def _raise_failed(status, t_end, partial, path=None) -> None:
    """SimulationError naming the rollouts whose status is not 0 (if any)."""
    from ..errors import SimulationError
    from ..sim.result import STATUS

    bad = np.flatnonzero(np.asarray(status) != 0)
    if not bad.size:
        return
    n = np.size(status)
    some = ", ".join(f"rollout {int(r)} ({STATUS.get(int(status[r]), status[r])}, last good "
                     f"sample at t = {float(t_end[r]):g} s)" for r in bad[:5])  # fmt: skip
    more = f" and {bad.size - 5} more" if bad.size > 5 else ""
    where = f"; every rollout is in the store {str(path)!r}" if path is not None else ""
    why = f"{bad.size} of {n} rollouts failed: {some}{more}"
    raise SimulationError(
        f"simulate on Dask: {why}{where} (status, t_end; NaN after t_end); pass "
        "on_divergence='mark' to get the rollouts without this error",
        partial, reason=why,
    )  # fmt: skip


def _rollout_block(model, controller, opts, q0, v0, hq=None, hv=None):
    """One chunk of rollouts: robodyn's batched simulate on this worker, one core thread,
    each rollout marked (status, t_end) instead of failing the chunk. ``hq``, ``hv``: the
    hashes the store recorded for these blocks of q0 and v0 (checked: a dask q0 whose
    graph gives other values each time is refused)."""
    from ..sim.integrators import STEPS
    from ..sim.local import simulate_local as simulate

    q0 = np.array(q0, dtype=np.float64, order="C")  # aligned (a deserialised block may not be)
    v0 = np.array(v0, dtype=np.float64, order="C")
    for name, x, h in (("q0", q0, hq), ("v0", v0, hv)):
        if h is not None and block_hash(x) != h:
            raise ValueError(f"{name}: this chunk's values differ from those hashed for the "
                             "store before the run: its dask graph does not give the same "
                             "values twice; compute it first (x.persist())")  # fmt: skip
    mark = opts.get("integrator", "rk4") in STEPS
    traj = simulate(model, q0, v0, controller, threads=1,
                    **({"on_divergence": "mark"} if mark else {}), **opts)  # fmt: skip
    N = q0.shape[0]
    status = traj.status if mark else np.zeros(N)
    t_end = traj.t_end if mark else np.full(N, traj.t[-1])
    return {"q": traj.q, "v": traj.v, "a": traj.a, "tau": traj.tau,
            "status": np.reshape(status, N), "t_end": np.reshape(t_end, N)}  # fmt: skip


def _as_batch(x, name, n_tail, model):
    """q0 / v0 as a 2-D (N, n) array, numpy or dask, with a message on a bad shape."""
    shape = tuple(x.shape) if is_dask(x) else np.shape(x)
    if len(shape) != 2 or shape[1] != n_tail:
        raise ValueError(
            f"{name} must have shape (N, {n_tail}) (a batch of rollouts for {model.name!r}) "
            f"to run on Dask, got {shape}"
        )
    return x if is_dask(x) else np.asarray(x, dtype=np.float64)


#: the settings of a rollout store's ``meta`` (from the probe rollout's metadata)
_SETTINGS = ("model", "integrator", "dt", "duration", "control_dt", "friction", "clip_torque",
             "rtol", "atol", "joint_names")  # fmt: skip


def _block_hashes(x, X, c, client) -> list:
    """The hash of each block of ``c`` rows of q0 or v0: of the NumPy array ``x`` here, of
    the dask array ``X`` by one task per block (on ``client`` if given)."""
    if not is_dask(x):
        return [block_hash(x[i : i + c]) for i in range(0, max(1, len(x)), c)]
    import dask

    parts = [dask.delayed(block_hash_task)(b) for b in X.to_delayed().ravel()]
    return list(client.gather(client.compute(parts)) if client else dask.compute(*parts))


def _rollout_inputs(q0, v0, Q, V, c, controller, opts, client):
    """What a store of rollouts records besides the settings: q0 and v0 by hash (block by
    block; each chunk's task checks its blocks again), the controller's describe(), f_ext
    and any other option. Returns (inputs, q0's block hashes, v0's)."""
    hq, hv = _block_hashes(q0, Q, c, client), _block_hashes(v0, V, c, client)
    inputs = {"q0": array_record(hq, Q.shape), "v0": array_record(hv, V.shape),
              "controller": describe_input(controller, "the controller"),
              "f_ext": describe_input(opts.get("f_ext"), "f_ext")}  # fmt: skip
    for key, x in opts.items():
        if key not in (*_SETTINGS, "threads", "f_ext"):
            inputs[key] = describe_input(x, key)
    return inputs, hq, hv


def simulate_chunks(
    model, q0, v0=None, controller=None, *, client=None, out=None, resume=False,
    progress=False, chunk=None, on_chunk=None, on_divergence="raise", **opts,
):  # fmt: skip
    """``rd.simulate`` for a batch of rollouts on Dask (``rd.simulate(..., client=)``, or
    q0 a dask array): chunks of rollouts run as tasks, each robodyn's batched simulate.

    Parameters
    ----------
    model, controller
        As in :func:`robodyn.simulate`; each goes to a worker once (one key of the graph).
    q0 : array_like or dask.array.Array, shape (N, nq)
        Initial states; a dask array's chunks along N are the chunks of rollouts.
    v0 : array_like or dask.array.Array, shape (N, nv), optional
        Initial velocities (zero by default).
    client : dask.distributed.Client, optional
        The cluster (else Dask's active scheduler: local threads by default).
    out : path, optional
        A Zarr store (``*.zarr``) the rollouts stream to, one chunk per task, each with
        its checksums. The store records what its numbers depend on: the model (by
        fingerprint), q0 and v0 (by hash: a dask q0 is hashed block by block on the
        cluster, once more than it is simulated, so its graph must give the same values
        each time; each chunk checks its blocks), the controller's ``describe()``, the
        settings (integrator, dt, duration, control_dt, friction, clip_torque, f_ext) and
        robodyn's version.
    resume : bool
        Finish the store ``out``: only its missing chunks run, and those that fail their
        checksums. A store of another model, settings or inputs is refused, naming what
        differs; so is one whose controller cannot describe itself (a function).
    progress : bool
        Dask's progress bar.
    chunk : int, optional
        Rollouts per chunk for a numpy q0 (default: about four chunks per worker thread).
    on_chunk : callable, optional
        Called with the chunk index as each chunk lands in the store (with a client).
    on_divergence : {"raise", "mark"}
        A rollout that fails never fails its chunk (with a fixed-step integrator): its
        samples after its last good one are NaN and ``status``/``t_end`` say why and when,
        in the store too. "raise" (the default) then raises SimulationError naming the
        failed rollouts: with ``out=`` once every chunk is in the store, else from
        ``.compute()``; "mark" returns them.
    **opts
        ``duration``, ``dt``, ``integrator``, ... of :func:`robodyn.simulate`.

    Returns
    -------
    LazyTrajectory
        Lazy arrays ``q``, ``v``, ``a``, ``tau`` of shape (N, K+1, ...), ``status`` and
        ``t_end`` (N,) (read from the store with ``out``); ``.compute()`` gives a
        :class:`robodyn.Trajectory`.
    """
    import dask.array as da

    from ..sim.local import simulate_local as simulate

    if on_divergence not in ("raise", "mark"):
        raise ValueError(f"on_divergence must be 'raise' or 'mark', got {on_divergence!r}")
    if out is not None and Path(out).suffix != ".zarr":
        raise ValueError(
            f"out: rollouts on Dask stream to a Zarr store, a folder named *.zarr; got {str(out)!r}"
        )
    q0 = _as_batch(q0, "q0", model.nq, model)
    N = q0.shape[0]
    v0 = np.zeros((N, model.nv)) if v0 is None else v0
    v0 = _as_batch(v0, "v0", model.nv, model)
    if v0.shape[0] != N:
        raise ValueError(f"v0 has {v0.shape[0]} rollouts, q0 {N}")
    if is_dask(q0):
        c = q0.chunks[0][0]
    elif chunk is not None:
        c = int(chunk)
    else:
        workers = sum(client.nthreads().values()) if client is not None else 4
        c = max(1, math.ceil(N / (4 * max(1, workers))))
    if c < 1:
        raise ValueError(f"chunk must be a positive number of rollouts, got {c}")
    Q = (q0 if is_dask(q0) else da.from_array(q0, chunks=(c, model.nq))).rechunk((c, -1))
    V = (v0 if is_dask(v0) else da.from_array(v0, chunks=(c, model.nv))).rechunk((c, -1))
    Q, V = Q.astype(np.float64), V.astype(np.float64)
    # one rollout here settles K, the sample times and the metadata (and checks opts)
    probe = simulate(model, np.asarray(Q[:1]), np.asarray(V[:1]), controller,
                     on_divergence="mark" if _fixed_step(opts) else "raise", **opts)  # fmt: skip
    K1 = probe.t.size
    fields = {"q": (K1, model.nq), "v": (K1, model.nv), "a": (K1, model.nv),
              "tau": (K1, model.nv), "status": (), "t_end": ()}  # fmt: skip
    meta = normalized({k: probe.meta.get(k) for k in _SETTINGS})
    inputs = hq = hv = None
    if out is not None:
        inputs, hq, hv = _rollout_inputs(q0, v0, Q, V, c, controller, opts, client)
    qb, vb = Q.to_delayed().ravel(), V.to_delayed().ravel()
    blocks = [(qb[i], vb[i], hq and hq[i], hv and hv[i]) for i in range(len(qb))]
    run = run_chunks(
        _rollout_block, (model, controller, opts), blocks, N, c, fields, model=model,
        meta=meta, inputs=inputs, dtypes={"status": "int8"}, out=out, resume=resume,
        client=client, progress=progress, on_chunk=on_chunk,
    )  # fmt: skip
    meta = {**meta, "controller": probe.meta.get("controller"), "rollouts": [N], "chunk": c}
    lazy = LazyTrajectory(probe.t, run.arrays, meta, model, run.computed, run.path,
                          on_divergence)  # fmt: skip
    if out is not None and on_divergence == "raise":  # every chunk is in: say which failed
        import dask

        status, t_end = dask.compute(lazy.status, lazy.t_end)
        _raise_failed(status, t_end, lazy, run.path)
    return lazy


def _fixed_step(opts) -> bool:
    from ..sim.integrators import STEPS

    return opts.get("integrator", "rk4") in STEPS
