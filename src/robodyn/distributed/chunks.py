"""Chunked runs on Dask, streamed into checked Zarr stores.

:func:`run_chunks` runs a function over the chunks of a batch of items on a Client (or
Dask's local threads) and streams each chunk's arrays into a Zarr store as it finishes; a
store that was interrupted is finished with ``resume=True``, recomputing only the chunks it
lacks or that fail their checksums. :func:`open_store` and :func:`verify_store` read a
store back. Rollouts (:mod:`robodyn.distributed.rollout`) and sweeps
(:mod:`robodyn.distributed.sweep`) run on it.

Nothing here schedules, queues or retries: Dask does (a task whose worker dies is run
again elsewhere; a chunk is written whole by one task, so a rerun rewrites the same
values).
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import numpy as np

from ..kernels.lazy import is_dask, model_key
from ..model.fingerprint import model_fingerprint
from . import store as _store
from .store import StoreError, StoreWarning, array_record, block_hash, normalized, write_chunk

__all__ = [
    "run_chunks",
    "open_store",
    "verify_store",
    "describe_input",
    "array_hash",
    "ChunkRun",
]


# ------------------------------------------------------------------------ models
def _describe(name, fingerprint) -> str:
    return f"{name!r} (fingerprint {fingerprint})"


# ------------------------------------------------------------------------ inputs
def describe_input(x, what: str):
    """What an input of a run is, as JSON for a store's fingerprint.

    None, numbers and strings as they are; an array by its hash (:func:`array_hash`);
    an object with ``describe()`` (robodyn's controllers and trajectories) by what it
    returns. Anything else (a function, a lambda, an object without ``describe()``) is
    ``{"undescribed": reason}``: a run may use it, but its store cannot be resumed, since
    nothing would tell whether the resuming call passes the same.
    """
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (np.ndarray, list, tuple)) or is_dask(x):
        return array_hash(x)
    d = getattr(x, "describe", None)
    if not callable(d):
        kind = "a function" if inspect.isroutine(x) else f"a {type(x).__name__}"
        name = getattr(x, "__qualname__", None) or type(x).__name__
        why = f"{what} is {kind} {name!r}, which cannot describe itself (it has no describe()"
        return {"undescribed": why + " method returning its parameters)"}
    try:
        return normalized(d())
    except TypeError as exc:  # a robodyn controller whose reference cannot say what it is
        return {"undescribed": f"{what}: {exc}"}
    except ValueError as exc:
        return {"undescribed": f"{what}: its describe() did not return JSON ({exc})"}


def block_hash_task(x):
    return block_hash(x)


def array_hash(x, chunk=None, client=None) -> str:
    """``"hash <16 hex> of float64 (N, n)"``: the hash of an array's float64 values, block
    by block along its first axis (blocks of ``chunk`` rows; a dask array's own blocks),
    so a NumPy and a dask array of the same values and blocks hash alike. A dask array is
    hashed by one task per block (computed here, or on ``client``), never gathered whole."""
    if is_dask(x):
        import dask

        x = x.astype(np.float64).rechunk({ax: -1 for ax in range(1, x.ndim)})
        parts = [dask.delayed(block_hash_task)(b) for b in x.to_delayed().ravel()]
        hashes = client.gather(client.compute(parts)) if client else dask.compute(*parts)
        return array_record(hashes, x.shape)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0 or chunk is None:
        return array_record([block_hash(x)], x.shape)
    return array_record([block_hash(x[i : i + chunk]) for i in range(0, len(x), chunk)], x.shape)


def _version() -> str:
    from .. import __version__

    return __version__


# ------------------------------------------------------------------------ chunked runs
class ChunkRun:
    """What :func:`run_chunks` did: ``arrays`` (name -> dask array, lazy, read from the
    store or computed by the chunks' tasks), ``computed`` (the chunk indices this call
    ran; on a resumed store only the missing ones) and ``repaired`` (those among them that
    were in the store but failed their checksums)."""

    def __init__(self, arrays, computed, path=None, repaired=()):
        self.arrays, self.computed, self.path = arrays, computed, path
        self.repaired = list(repaired)

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k} {v.shape}" for k, v in self.arrays.items())
        return f"ChunkRun({shapes}; computed {len(self.computed)} chunks)"


def _run_block(fn, shared, args):
    """One chunk: ``fn(*shared, *args)`` -> dict of arrays (leading axis: the chunk's items)."""
    return fn(*shared, *args)


def _store_block(fn, shared, path, layout, i, start, args):
    """One chunk computed and written to its region of the store with its digests, then
    marked done (so a chunk is either complete and verifiable in the store or recomputed
    on resume). ``layout``: (the store's key, fields, dtypes)."""
    key, fields, dtypes = layout
    res = fn(*shared, *args)
    write_chunk(path, key, fields, dtypes, i, start, res)
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


def _claimed(g, attrs, path):
    """Without verifying: chunk -> digest row of each chunk marked done (b"" for one marked
    done without digests, which fails when read), and the chunks not done."""
    bad: dict = {}
    done = _store._marks(g, "_done", path, attrs, bad)
    dig = _store._marks(g, "_digest", path, attrs, bad)
    rows, missing = {}, []
    for i in range(_store.nchunks(attrs)):
        if done[i] == 1 or i in bad:
            rows[i] = bytes(dig[i].reshape(-1)) if dig[i].any() and i not in bad else b""
        else:
            missing.append(i)
    return rows, missing


def open_store(path, *, verify: bool = True):
    """The arrays of a store written by :func:`run_chunks` as lazy dask arrays.

    Parameters
    ----------
    path : path
        The store (a ``*.zarr`` folder).
    verify : bool
        Check every finished chunk against its checksums now (reads the whole store
        once). With ``verify=False`` only the metadata are checked here; either way each
        chunk is checked again as the arrays read it, so a changed chunk is never
        returned.

    Returns
    -------
    arrays : dict of str to dask.array.Array
        Chunks not finished (an interrupted store) read as NaN (-1 for integer fields).
    attrs : dict
        What the store was written for: ``model``, ``model_fingerprint``, ``meta``,
        ``inputs`` (robodyn's version, initial states by hash, the controller's
        ``describe()``, ...), ``chunk``, ``n``; ``complete`` says whether every chunk is
        in, ``missing`` lists the chunks that are not.

    Raises
    ------
    StoreError
        A store that does not exist, has garbage metadata or changed attributes, or (with
        ``verify``) a finished chunk that fails its checksum, naming the store, the array,
        the chunk and its items (:func:`verify_store` lists them all).
    """
    path = Path(path)
    g = _store.open_group(path)
    attrs = _store.read_attrs(g, path)
    if verify:
        found = _store.scan(g, attrs, path)
        if found.bad:
            raise StoreError(
                f"the store {str(path)!r}: {len(found.bad)} of {_chunks(found.total)} fail "
                f"verification: {_store.describe_bad(path, attrs, found.bad)}; resume=True "
                "(robodyn sweep ... --resume) computes them again"
            )
        rows, missing = found.digests, found.missing
    else:
        rows, missing = _claimed(g, attrs, path)
    arrays = {name: _store.lazy_array(path, name, attrs, rows) for name in attrs["fields"]}
    attrs = {**attrs, "complete": not missing, "missing": missing}
    return arrays, attrs


def verify_store(path):
    """Check every chunk of a store against its checksums (``robodyn sweep verify``).

    Returns
    -------
    Scan
        ``.total`` chunks, ``.verified``, ``.bad`` (chunk -> reasons naming the arrays),
        ``.missing`` (not finished), ``.complete``; ``.lines()`` says it in words.

    Raises
    ------
    StoreError
        The store's metadata or attributes cannot be read or were changed.
    """
    path = Path(path)
    g = _store.open_group(path)
    attrs = _store.read_attrs(g, path)
    found = _store.scan(g, attrs, path)
    found.path, found.attrs = path, attrs
    return found


def _refuse_mix(path, have, want) -> None:
    """ValueError when a store (attributes ``have``) was written for another experiment
    than this call (``want``), or an input of either cannot describe itself."""
    where = f"the store {str(path)!r}"
    if have.get("model_fingerprint") != want["model_fingerprint"]:
        raise ValueError(
            f"out: {where} was written for model "
            f"{_describe(have.get('model'), have.get('model_fingerprint'))}, this call is "
            f"for model {_describe(want['model'], want['model_fingerprint'])}: resume it with "
            "the same model"
        )
    mine = _store.undescribed(want["inputs"])
    if mine:
        raise ValueError(
            f"out: resume=True cannot tell whether {where} holds this call's experiment: "
            f"{'; '.join(mine)}. Run it into a new store without resume, or give inputs "
            "that describe themselves (robodyn's controllers and trajectories do)"
        )
    theirs = _store.undescribed(have.get("inputs", {}))
    if theirs:
        raise ValueError(f"out: {where} cannot be resumed: it was written with inputs that "
                         f"could not describe themselves ({'; '.join(theirs)})")  # fmt: skip

    def comparable(a):  # the causes first, then the shapes they imply
        shapes = {k: a.get(k) for k in ("n", "chunk", "fields", "dtypes")}
        return {**(a.get("meta") or {}), **(a.get("inputs") or {}), **shapes}

    diff = _store.differences(comparable(have), comparable(want))
    if diff:
        raise ValueError(
            f"out: {where} was written with other settings or inputs than this call; "
            f"resuming it would mix two experiments (store != this call): {'; '.join(diff)}"
        )


def _chunks(k: int) -> str:
    return f"{k} chunk" if k == 1 else f"{k} chunks"


def _open_or_create(path, want, resume):
    """The store's attributes and the chunks to compute: a new store, or an existing one
    checked against this call (``want``: model, settings, inputs) when resuming, whose
    finished chunks are verified (those that fail are computed again, with a warning)."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        if not resume:
            raise ValueError(
                f"out: {str(path)!r} exists; pass resume=True to finish it, or remove it"
            )
        g = _store.open_group(path, mode="r+")
        have = _store.read_attrs(g, path)
        _refuse_mix(path, have, want)
        found = _store.scan(g, have, path)
        if found.bad:
            import warnings

            warnings.warn(StoreWarning(
                f"the store {str(path)!r}: {len(found.bad)} of its finished chunks failed "
                f"verification; computing them again: "
                f"{_store.describe_bad(path, have, found.bad)}"), stacklevel=4)  # fmt: skip
            _store.clear_marks(g, found.bad)
        return have, sorted([*found.missing, *found.bad]), sorted(found.bad)
    if not path.parent.is_dir():
        raise ValueError(f"out: folder {str(path.parent)!r} does not exist")
    from .._checks import check_room

    fields = want["fields"].items()
    size = sum(np.dtype(want["dtypes"][k]).itemsize * math.prod(t) for k, t in fields)
    check_room(want["n"] * size, f"out: the store {str(path)!r} ({want['n']} items of "
               f"{size} bytes)", folder=path.parent)  # fmt: skip
    attrs = _store.create(path, want)
    return attrs, list(range(_store.nchunks(attrs))), []


def run_chunks(
    fn, shared, blocks, n, chunk, fields, *, model, meta=None, inputs=None, dtypes=None,
    out=None, resume=False, client=None, progress=False, on_chunk=None,
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
    inputs : dict, optional
        Everything else the numbers depend on, as JSON (:func:`describe_input`: arrays
        by hash, controllers by their ``describe()``); robodyn's version is added. A
        resumed store must have the same, entry by entry (the message names each that
        differs); an ``{"undescribed": ...}`` entry makes the store not resumable.
    dtypes : dict of str to str, optional
        The dtype of a field (default float64).
    out : path, optional
        A Zarr store (a folder, e.g. ``sweep.zarr``): each chunk is written to its region
        as it finishes, with a checksum per field, then marked done. Without it the
        result is lazy.
    resume : bool
        Finish an existing store: only the chunks not marked done, and those whose data
        fail their checksums (a StoreWarning names them), are computed. The store must be
        for the same model (else ValueError naming both), settings and inputs (else
        ValueError naming what differs).
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
        ``.arrays``: name -> lazy dask array (from the store with ``out``, each chunk
        checked against its checksum as it is read); ``.computed``: the chunks this call
        ran; ``.repaired``: those that were computed again because they failed.
    """
    import dask

    nchunks = max(1, math.ceil(n / chunk))
    if len(blocks) != nchunks:
        raise ValueError(f"blocks: {nchunks} chunks of {chunk} for {n} items, got {len(blocks)}")
    dtypes = {name: str(np.dtype((dtypes or {}).get(name, "float64"))) for name in fields}
    shared_d = tuple(
        model_key(x) if x is model else dask.delayed(x, traverse=False) for x in shared
    )
    if out is None:
        return ChunkRun(_lazy_chunks(fn, shared_d, blocks, n, chunk, fields, dtypes, client),
                        list(range(nchunks)))  # fmt: skip
    inputs = {"robodyn": _version(), **(inputs or {})}
    want = {
        "model": model.name, "model_fingerprint": model_fingerprint(model), "n": int(n),
        "chunk": int(chunk), "fields": {k: list(v) for k, v in fields.items()},
        "dtypes": dtypes, "meta": meta or {}, "inputs": inputs,
        "resumable": not _store.undescribed(inputs),
    }  # fmt: skip
    clash = set(want["meta"]) & set(inputs)
    if clash:
        raise ValueError(f"meta and inputs both name {sorted(clash)}")
    path = Path(out)
    attrs, todo, repaired = _open_or_create(path, normalized(want), resume)
    layout = (attrs["digest"], attrs["fields"], attrs["dtypes"])
    tasks = [
        dask.delayed(_store_block, pure=False)(
            fn, shared_d, str(path), layout, i, i * chunk, tuple(blocks[i])
        )
        for i in todo
    ]
    computed = _compute_chunks(tasks, client, progress, on_chunk)
    arrays, _ = open_store(path, verify=False)
    return ChunkRun(arrays, sorted(computed), path, repaired)


def _lazy_chunks(fn, shared_d, blocks, n, chunk, fields, dtypes, client):
    """The chunks' results as lazy dask arrays (no store), persisted on ``client``."""
    import dask
    import dask.array as da

    parts = [dask.delayed(_run_block, pure=True)(fn, shared_d, tuple(b)) for b in blocks]
    arrays = {}
    for name, tail in fields.items():
        cols = []
        for i, d in enumerate(parts):
            m = min(chunk, n - i * chunk)
            part = dask.delayed(_field, pure=True)(d, name, dtypes[name])
            cols.append(da.from_delayed(part, (m, *tail), dtype=np.dtype(dtypes[name])))
        arrays[name] = da.concatenate(cols, axis=0)
    if client is not None:
        arrays = dict(zip(arrays, client.persist(list(arrays.values()))))
    return arrays


def _field(res, name, dtype):
    return np.asarray(res[name], dtype=dtype)


def _compute_chunks(tasks, client, progress, on_chunk) -> list:
    """Run the chunks' store tasks (here or on ``client``); the indices they finished. An
    interruption cancels the rest and waits until no worker still writes."""
    import dask

    if not tasks:
        return []
    if client is None:
        if progress:
            from dask.diagnostics import ProgressBar

            with ProgressBar():
                return list(dask.compute(*tasks))
        return list(dask.compute(*tasks))
    from distributed import as_completed
    from distributed import progress as dask_progress

    futures = client.compute(tasks)
    computed = []
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
    return computed
