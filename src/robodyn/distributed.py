"""Past one machine: robodyn's batch functions and rollouts on Dask.

Dask (``pip install robodyn[dask]``) is imported here only, and this module is imported
only when a dask array or a Dask client reaches robodyn; NumPy calls never see it.

* :func:`lazy_call` answers a batch function (``rd.inverse_dynamics``, ``rd.fk``, ...,
  every function marked :func:`robodyn.kernels.call.batched`) called with dask
  arrays: the same function mapped over the chunks of the leading (batch) axes with
  ``dask.array.blockwise``, one task per chunk, the model one key of the graph (every
  task refers to it; it is not copied into each task). The result is a lazy dask array
  with the batch chunks of the input and one chunk along each trailing axis, computed by
  whatever scheduler is active (threads by default, a ``dask.distributed.Client`` when
  one exists).
* :func:`run_chunks` runs a function over the chunks of a batch of items on a Client and
  streams each chunk's arrays into a Zarr store as it finishes; a store that was
  interrupted is finished with ``resume=True``, recomputing only the chunks it lacks.
  ``rd.simulate(..., client=)`` and ``robodyn sweep`` run on it.

Nothing here schedules, queues or retries: Dask does (a task whose worker dies is run
again elsewhere; a chunk is written whole by one task, so a rerun rewrites the same
values).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
from pathlib import Path

import numpy as np

from .kernels.call import is_dask

__all__ = ["lazy_call", "model_fingerprint", "run_chunks", "simulate_chunks", "open_store"]

# the trailing ("core") shape of one state of each state argument, by parameter name
_CORE = {
    "q": lambda m: (m.nq,),
    "v": lambda m: (m.nv,),
    "a": lambda m: (m.nv,),
    "tau": lambda m: (m.nv,),
    "f_ext": lambda m: (m.nb, 6),
    "f_tip": lambda m: (6,),
}
_SIGNATURES: dict = {}


def _signature(fn) -> inspect.Signature:
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    return sig


def _model_key(model):
    """The model as one key of a graph: a Delayed named by the model's fingerprint, so
    that every chunk's task refers to it and two graphs of one model share it."""
    import dask

    return dask.delayed(model, name="robodyn-model-" + model_fingerprint(model), traverse=False)


class _Blocks:
    """``fn(model, **static, **{name: block})`` for one chunk (a picklable callable: the
    public function travels by reference, its static arguments once per task)."""

    def __init__(self, fn, names, static):
        self.fn, self.names, self.static = fn, tuple(names), static

    def __call__(self, model, *blocks):
        kw = dict(self.static)
        kw.update(zip(self.names, blocks))
        try:
            return np.asarray(self.fn(model, **kw), dtype=np.float64)
        except ValueError as exc:  # a bad state: its index is within this chunk
            raise ValueError(f"{self.fn.__name__} on a dask chunk: {exc} (the index counts "
                             "from the chunk's first state)") from exc  # fmt: skip


def lazy_call(fn, args, kwargs):
    """``fn(*args, **kwargs)`` with dask arrays among the state arguments, as a lazy array.

    Parameters
    ----------
    fn : callable
        A public batch function ``fn(model, q, ...)`` (marked ``batched``).
    args, kwargs
        The call's arguments. The state arguments (``q``, ``v``, ``a``, ``tau``, ``f_ext``,
        ``f_tip``) may be dask or numpy arrays with any leading (batch) dimensions; they
        broadcast against each other numpy style. The other arguments are passed as given.

    Returns
    -------
    dask.array.Array
        Shape ``(*batch, *out)``, float64, chunked like the inputs along the batch axes and
        in one chunk along the trailing axes ``out`` of one state's result.

    Raises
    ------
    ValueError
        A dask array given for an argument that is not a state argument, or a state
        argument whose trailing shape is not one state's (named, with both shapes).
    """
    import dask.array as da

    bound = _signature(fn).bind(*args, **kwargs)
    params = dict(bound.arguments)
    pname = next(iter(params))
    model = params.pop(pname)
    if is_dask(model):
        raise ValueError(f"{pname} must be a robodyn Model, got a dask collection")
    names, arrays, static = [], [], {}
    for name, x in params.items():
        if name in _CORE and x is not None and not isinstance(x, (str, bool)):
            names.append(name)
            arrays.append(x if is_dask(x) else np.asarray(x, dtype=np.float64))
        elif is_dask(x):
            raise ValueError(
                f"{fn.__name__}: argument {name!r} cannot be a dask array (only the state "
                f"arguments {', '.join(_CORE)} are batched)"
            )
        else:
            static[name] = x
    if "threads" in _signature(fn).parameters and static.get("threads") is None:
        static["threads"] = 1  # Dask supplies the parallelism: one core thread per task
    # one state's result: its shape and dtype (a probe at the neutral state)
    probe = {}
    for name, x in zip(names, arrays):
        tail = _CORE[name](model)
        shape = tuple(x.shape)
        if len(shape) < len(tail) or shape[len(shape) - len(tail) :] != tail:
            want = "(..., " + ", ".join(str(t) for t in tail) + ")"
            raise ValueError(f"{name} must have shape {want}, got {shape}")
        if name == "q":
            from .model.configuration import neutral

            probe[name] = neutral(model)
        else:
            probe[name] = np.zeros(tail)
    one = np.asarray(fn(model, **static, **probe), dtype=np.float64)
    # blockwise indices: the batch axes share letters (right-aligned, numpy broadcasting),
    # every trailing axis has its own and is one chunk (rechunked if it was split)
    nbatch = max(x.ndim - len(_CORE[n](model)) for n, x in zip(names, arrays))
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    batch = "".join(next(letters) for _ in range(nbatch))
    pairs = []
    for name, x in zip(names, arrays):
        k = len(_CORE[name](model))
        nb = x.ndim - k
        if is_dask(x):
            split = [ax for ax in range(nb, x.ndim) if len(x.chunks[ax]) > 1]
            if split:
                x = x.rechunk({ax: -1 for ax in split})
        else:
            x = da.from_array(x, chunks=x.shape) if x.ndim else da.asarray(x)
        pairs += [x, batch[nbatch - nb :] + "".join(next(letters) for _ in range(k))]
    out_core = "".join(next(letters) for _ in range(one.ndim))
    return da.blockwise(
        _Blocks(fn, names, static),
        batch + out_core,
        _model_key(model),
        None,
        *pairs,
        new_axes=dict(zip(out_core, one.shape)),
        dtype=np.float64,
        concatenate=True,
        meta=np.empty((0,) * (nbatch + one.ndim), dtype=np.float64),
    )


# ------------------------------------------------------------------------ models
def model_fingerprint(model) -> str:
    """A short hash of everything in the model that the numbers depend on (its name, the
    names of its bodies, joints and frames, and every array), so that a store written for
    one model is not continued with another."""
    import dataclasses

    h = hashlib.sha256()
    for f in dataclasses.fields(model):
        if f.name == "notes":
            continue
        x = getattr(model, f.name)
        h.update(f.name.encode())
        if isinstance(x, np.ndarray):
            x = np.ascontiguousarray(x)
            h.update(str(x.dtype).encode() + str(x.shape).encode() + x.tobytes())
        else:
            h.update(repr(x).encode())
    return h.hexdigest()[:16]


def _describe(name, fingerprint) -> str:
    return f"{name!r} (fingerprint {fingerprint})"


# ------------------------------------------------------------------------ chunked runs
class ChunkRun:
    """What :func:`run_chunks` did: ``arrays`` (name -> dask array, lazy, read from the
    store or computed by the chunks' tasks) and ``computed`` (the chunk indices this call
    ran; on a resumed store only the missing ones)."""

    def __init__(self, arrays, computed, path=None):
        self.arrays, self.computed, self.path = arrays, computed, path

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k} {v.shape}" for k, v in self.arrays.items())
        return f"ChunkRun({shapes}; computed {len(self.computed)} chunks)"


def _run_block(fn, shared, args):
    """One chunk: ``fn(*shared, *args)`` -> dict of arrays (leading axis: the chunk's items)."""
    return fn(*shared, *args)


def _store_block(fn, shared, path, fields, i, start, args):
    """One chunk computed and written to its region of the store, then marked done (so a
    chunk is either complete in the store or recomputed on resume)."""
    import zarr

    res = fn(*shared, *args)
    g = zarr.open_group(str(path), mode="r+")
    for name in fields:
        x = np.asarray(res[name], dtype=np.float64)
        g[name][start : start + x.shape[0]] = x
    g["_done"][i] = 1
    return i


def _executing(keys, dask_worker=None):
    """How many of ``keys`` this worker is running (called on each worker)."""
    try:
        return sum(ts.key in keys for ts in dask_worker.state.executing)
    except AttributeError:  # another distributed version: do not wait
        return 0


def _quiesce(client, keys, timeout: float = 60.0) -> None:
    """Wait until no worker still runs one of the cancelled tasks ``keys`` (a running task
    is not stopped by cancelling it; it finishes its chunk), so that an interrupted store
    does not change after the interruption."""
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            busy = sum(client.run(_executing, keys).values())
        except Exception:  # a worker that went away runs nothing
            return
        if not busy:
            return
        time.sleep(0.05)


def open_store(path):
    """The arrays of a store written by :func:`run_chunks` as lazy dask arrays.

    Returns
    -------
    arrays : dict of str to dask.array.Array
    attrs : dict
        What the store was written for: ``model``, ``model_fingerprint``, ``meta``,
        ``chunk``, ``n``; ``complete`` says whether every chunk is in.
    """
    import dask.array as da
    import zarr

    g = zarr.open_group(str(path), mode="r")
    attrs = dict(g.attrs)
    done = np.asarray(g["_done"][:])
    attrs["complete"] = bool(done.all())
    arrays = {name: da.from_zarr(g[name]) for name in attrs["fields"]}
    return arrays, attrs


def _open_or_create(path, n, chunk, fields, model, meta, resume):
    """The store's group and its done flags; a new store, or an existing one checked
    against this call (the model and every setting) when resuming."""
    import zarr

    path = Path(path)
    fp = model_fingerprint(model)
    nchunks = max(1, math.ceil(n / chunk))
    want = {
        "model": model.name, "model_fingerprint": fp, "n": int(n), "chunk": int(chunk),
        "fields": {k: list(v) for k, v in fields.items()}, "meta": meta,
    }  # fmt: skip
    want = json.loads(json.dumps(want))
    if path.exists():
        if not resume:
            raise ValueError(
                f"out: {str(path)!r} exists; pass resume=True to finish it, or remove it"
            )
        g = zarr.open_group(str(path), mode="r+")
        have = dict(g.attrs)
        if have.get("model_fingerprint") != fp:
            raise ValueError(
                f"out: the store {str(path)!r} was written for model "
                f"{_describe(have.get('model'), have.get('model_fingerprint'))}, this call is "
                f"for model {_describe(model.name, fp)}: resume it with the same model"
            )
        diff = [k for k in ("n", "chunk", "fields", "meta") if have.get(k) != want[k]]
        if diff:
            parts = "; ".join(f"{k}: store {have.get(k)!r}, call {want[k]!r}" for k in diff)
            raise ValueError(
                f"out: the store {str(path)!r} was written with other settings ({parts})"
            )
        return g, np.asarray(g["_done"][:])
    if resume and not path.parent.exists():
        raise ValueError(f"out: folder {str(path.parent)!r} does not exist")
    g = zarr.open_group(str(path), mode="w-")
    for name, tail in fields.items():
        g.create_array(
            name, shape=(n, *tail), chunks=(chunk, *tail), dtype="float64", fill_value=np.nan
        )
    g.create_array("_done", shape=(nchunks,), chunks=(1,), dtype="uint8", fill_value=0)
    g.attrs.update(want)
    return g, np.zeros(nchunks, dtype=np.uint8)


def run_chunks(
    fn, shared, blocks, n, chunk, fields, *, model, meta=None, out=None, resume=False,
    client=None, progress=False, on_chunk=None,
):  # fmt: skip
    """Run ``fn`` over the chunks of a batch of ``n`` items on Dask, into a Zarr store.

    Parameters
    ----------
    fn : callable
        ``fn(*shared, *blocks[i]) -> dict`` of arrays whose first axis is chunk i's items
        (``fields[name]`` the trailing shape of each); a module-level function (it
        travels by reference).
    shared : tuple
        Arguments every chunk needs (the model, a controller, settings): one key each in
        the graph, sent to a worker once, not once per chunk.
    blocks : sequence of tuple
        Chunk i's own arguments (numbers, arrays or dask delayed objects).
    n, chunk : int
        Items, and items per chunk (the last may be shorter): ``ceil(n / chunk)`` chunks.
    fields : dict of str to tuple of int
        The arrays of the result and the trailing shape of one item of each.
    model : Model
        The model the store is for (its fingerprint is kept and checked on resume).
    meta : dict, optional
        The settings of the run (JSON); a resumed store must have the same.
    out : path, optional
        A Zarr store (a folder, e.g. ``sweep.zarr``): each chunk is written to its region
        as it finishes, then marked done. Without it the result is lazy.
    resume : bool
        Finish an existing store: only the chunks not marked done are computed. The store
        must be for the same model (else ValueError naming both) and settings.
    client : dask.distributed.Client, optional
        Run on this cluster (else Dask's local threads). A worker that dies costs its
        task a rerun on another worker (Dask's retries); a rerun chunk rewrites the same
        values.
    progress : bool
        Dask's progress bar (``distributed.progress`` with a client, else
        ``dask.diagnostics.ProgressBar``).
    on_chunk : callable, optional
        ``on_chunk(i)`` in this process after chunk i is in the store (with a client).

    Returns
    -------
    ChunkRun
        ``.arrays``: name -> lazy dask array (from the store with ``out``); ``.computed``:
        the chunks this call ran.
    """
    import dask
    import dask.array as da

    nchunks = max(1, math.ceil(n / chunk))
    if len(blocks) != nchunks:
        raise ValueError(f"blocks: {nchunks} chunks of {chunk} for {n} items, got {len(blocks)}")
    shared_d = tuple(
        _model_key(x) if x is model else dask.delayed(x, traverse=False) for x in shared
    )
    if out is None:
        parts = []
        for i in range(nchunks):
            parts.append(dask.delayed(_run_block, pure=True)(fn, shared_d, tuple(blocks[i])))
        arrays = {}
        for name, tail in fields.items():
            cols = []
            for i, d in enumerate(parts):
                m = min(chunk, n - i * chunk)
                cols.append(da.from_delayed(d[name], (m, *tail), dtype=np.float64))
            arrays[name] = da.concatenate(cols, axis=0)
        if client is not None:
            arrays = dict(zip(arrays, client.persist(list(arrays.values()))))
        return ChunkRun(arrays, list(range(nchunks)))
    path = Path(out)
    g, done = _open_or_create(path, n, chunk, fields, model, meta, resume)
    todo = [i for i in range(nchunks) if not done[i]]
    tasks = [
        dask.delayed(_store_block, pure=False)(
            fn, shared_d, str(path), tuple(fields), i, i * chunk, tuple(blocks[i])
        )
        for i in todo
    ]
    computed = []
    if tasks and client is None:
        if progress:
            from dask.diagnostics import ProgressBar

            with ProgressBar():
                computed = list(dask.compute(*tasks))
        else:
            computed = list(dask.compute(*tasks))
    elif tasks:
        from distributed import as_completed
        from distributed import progress as dask_progress

        futures = client.compute(tasks)
        try:
            if progress:
                dask_progress(futures, notebook=False)
            for fut in as_completed(futures):
                i = fut.result()
                computed.append(i)
                if on_chunk is not None:
                    on_chunk(i)
        except BaseException:
            client.cancel(futures)
            _quiesce(client, {f.key for f in futures})
            raise
    arrays, _ = open_store(path)
    return ChunkRun(arrays, sorted(computed), path)


# ------------------------------------------------------------------------ rollouts
class LazyTrajectory:
    """A batch of rollouts run on Dask: ``t (K+1,)`` and the lazy dask arrays ``q (N,
    K+1, nq)``, ``v``, ``a``, ``tau (N, K+1, nv)``; :meth:`compute` gathers a
    :class:`robodyn.Trajectory`. ``computed`` lists the chunks the call ran and ``path``
    is the Zarr store, if any."""

    def __init__(self, t, arrays, meta, model, computed, path=None):
        self.t, self.meta, self.model = t, meta, model
        self.q, self.v, self.a, self.tau = (arrays[k] for k in ("q", "v", "a", "tau"))
        self.computed, self.path = computed, path

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.q.shape[:1]

    def compute(self):
        """The rollouts as a :class:`robodyn.Trajectory` (numpy arrays, in memory)."""
        import dask

        from .sim.result import Trajectory

        q, v, a, tau = dask.compute(self.q, self.v, self.a, self.tau)
        return Trajectory(self.t, q, v, a, tau, meta=dict(self.meta), model=self.model)

    def __repr__(self) -> str:
        return (
            f"LazyTrajectory({self.q.shape[0]} rollouts x {self.t.size} samples of "
            f"{self.meta.get('model')!r}, chunks {self.q.chunks[0][:3]}...)"
        )


def _rollout_block(model, controller, opts, q0, v0):
    """One chunk of rollouts: robodyn's batched simulate on this worker, one core thread."""
    from .sim.simulate import simulate

    q0 = np.array(q0, dtype=np.float64, order="C")  # aligned (a deserialised block may not be)
    v0 = np.array(v0, dtype=np.float64, order="C")
    traj = simulate(model, q0, v0, controller, threads=1, **opts)
    return {"q": traj.q, "v": traj.v, "a": traj.a, "tau": traj.tau}


def _as_batch(x, name, n_tail, model):
    """q0 / v0 as a 2-D (N, n) array, numpy or dask, with a message on a bad shape."""
    shape = tuple(x.shape) if is_dask(x) else np.shape(x)
    if len(shape) != 2 or shape[1] != n_tail:
        raise ValueError(
            f"{name} must have shape (N, {n_tail}) (a batch of rollouts for {model.name!r}) "
            f"to run on Dask, got {shape}"
        )
    return x if is_dask(x) else np.asarray(x, dtype=np.float64)


def simulate_chunks(
    model, q0, v0=None, controller=None, *, client=None, out=None, resume=False,
    progress=False, chunk=None, on_chunk=None, **opts,
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
        A Zarr store (``*.zarr``) the rollouts stream to, one chunk per task.
    resume : bool
        Finish the store ``out``: only its missing chunks run; a store of another model is
        refused (both named).
    progress : bool
        Dask's progress bar.
    chunk : int, optional
        Rollouts per chunk for a numpy q0 (default: about four chunks per worker thread).
    on_chunk : callable, optional
        Called with the chunk index as each chunk lands in the store (with a client).
    **opts
        ``duration``, ``dt``, ``integrator``, ... of :func:`robodyn.simulate`.

    Returns
    -------
    LazyTrajectory
        Lazy arrays ``q``, ``v``, ``a``, ``tau`` of shape (N, K+1, ...) (read from the
        store with ``out``); ``.compute()`` gives a :class:`robodyn.Trajectory`.
    """
    import dask.array as da

    from .sim.simulate import simulate

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
    blocks = list(zip(Q.to_delayed().ravel(), V.to_delayed().ravel()))
    # one rollout here settles K, the sample times and the metadata (and checks opts)
    probe = simulate(model, np.asarray(Q[:1]), np.asarray(V[:1]), controller, **opts)
    K1 = probe.t.size
    fields = {"q": (K1, model.nq), "v": (K1, model.nv), "a": (K1, model.nv),
              "tau": (K1, model.nv)}  # fmt: skip
    meta = {k: v for k, v in probe.meta.items() if k not in ("rollouts", "n_eval", "complete")}
    meta = json.loads(json.dumps(meta, default=str))
    run = run_chunks(
        _rollout_block, (model, controller, opts), blocks, N, c, fields, model=model,
        meta=meta, out=out, resume=resume, client=client, progress=progress, on_chunk=on_chunk,
    )  # fmt: skip
    meta = {**meta, "rollouts": [N], "chunk": c}
    return LazyTrajectory(probe.t, run.arrays, meta, model, run.computed, run.path)
