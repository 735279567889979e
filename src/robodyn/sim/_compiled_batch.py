"""A batch of compiled rollouts (kernels/core/sim.c), for :func:`robodyn.simulate` runs whose
Python loop pays per state: an environment's contacts or a force law of
:mod:`robodyn.control`. Each rollout is one call of the core (the same arithmetic as a
single compiled rollout, hence as the Python loop), the rollouts split over threads (the
core releases the GIL); the samples are held rollout-major in memory, as a batched
Trajectory lays them out."""

from __future__ import annotations

import threading

import numpy as np

from ..kernels import core
from ._compiled import _INTERRUPTED, _PIECE, _c_message, _c_piece
from ._failure import _rollout_name, _runaway, _status_of, _stopped
from .result import Trajectory


def _compiles_as_batch(run, setup) -> bool:
    """Whether a batch takes the compiled rollouts: in memory (no ``out``), with an
    environment or a force law (the laws with a sensor; the batch kernels serve the others)."""
    return run.folder is None and (setup.nc > 0 or setup.law >= 6)


def _run_compiled_batch(setup, run, q, v, z, bar):
    """The batch (q (N, nq), v (N, nv), z (N, nz) or None) as N compiled rollouts over
    threads; its Trajectory, or SimulationError / SimulationInterrupted as the Python loop
    raises them (the rollout that failed first, the samples before it)."""
    K, N, model = run.K, q.shape[0], run.model
    nq, nv, nz, nc = model.nq, model.nv, setup.nz, setup.nc
    X = (np.empty((N, K + 1, nq)), *(np.empty((N, K + 1, nv)) for _ in range(3)),
         np.empty((N, K + 1, nz)) if nz else None,
         np.empty((N, K + 1, 3 * nc)) if nc else None)  # fmt: skip
    X[0][:, 0], X[1][:, 0] = q, v
    if nz:
        X[4][:, 0] = z
    run.meta["n_eval"] = K * (4 if run.integrator == "rk4" else 1) + 1
    codes, done, exc = _rollouts(setup, run, X, bar)
    return _batch_result(run, X, codes, done, exc)


def _rollouts(setup, run, X, bar):
    """Every rollout of the batch X, advanced together in pieces of steps: in each piece the
    rows are split into contiguous ranges over threads (the calling thread takes the first),
    each rollout one call of the core from its last sample. A piece is ~_PIECE steps of
    rollouts a thread, so Ctrl-C (caught by the calling thread between two calls, or by the
    core's poll) stops the others soon after; a failed rollout stops the run after the
    piece (on_divergence="raise") or stays where it failed ("mark"). Returns the core's
    codes (N,), the samples done (N,) and the exception of a Ctrl-C (None)."""
    N, K = X[0].shape[0], run.K
    codes = np.zeros(N, dtype=np.int64)
    done = np.zeros(N, dtype=np.int64)
    stop, caught = threading.Event(), []
    nt = max(1, min(N, run.threads or core.threads()))
    cuts = [N * t // nt for t in range(nt + 1)]
    piece = max(16, _PIECE // -(-N // nt))

    def rows(r0, r1, k, k1):
        for i in range(r0, r1):
            if stop.is_set():
                return
            if codes[i]:
                continue  # failed in an earlier piece (on_divergence="mark")
            one = tuple(None if x is None else x[i] for x in X)
            code, n, e = _c_piece(setup, one, k, k1, run.dt)
            codes[i], done[i] = code, k + n if code else k1 + 1
            if code == _INTERRUPTED:
                caught.append(e)
                stop.set()

    k = 0
    while True:
        k1 = min(K, k + piece)
        workers = [threading.Thread(target=rows, args=(cuts[t], cuts[t + 1], k, k1))
                   for t in range(1, nt)]  # fmt: skip
        for w in workers:
            w.start()
        try:
            rows(cuts[0], cuts[1], k, k1)
        except KeyboardInterrupt as here:  # between two calls of the core
            caught.append(here)
            stop.set()
        finally:
            for w in workers:
                w.join()
        if bar is not None:
            bar.update(k1 - k)
        if stop.is_set() or k1 == K or (codes.any() and not run.mark) or codes.all():
            return codes, done, caught[0] if caught else None
        k = k1


def _batch_result(run, X, codes, done, exc):
    """The batch's Trajectory; a Ctrl-C or (on_divergence="raise") a failed rollout stops
    the run with the samples every rollout has before it; with "mark", the failed
    rollouts' samples after their last good one NaN, ``status`` and ``t_end``."""
    model, K, dt, meta, batch = run.model, run.K, run.dt, run.meta, run.batch
    failed = codes != 0
    if exc is not None:
        meta.update(complete=False, n_eval=None)
        n = int(done.min())
        _stopped(run, n, _cut(run, X, n), None, exc)
    if failed.any() and not run.mark:  # the rollout that failed first, as the loop finds it
        row = int(np.lexsort((np.arange(len(done)), np.where(failed, done, K + 2)))[0])
        n = int(done[row])
        meta.update(complete=False, n_eval=None)
        why = (f"{_rollout_name(row, batch)}: {_c_message(int(codes[row]), model)}; pass "
               "on_divergence='mark' to keep the other rollouts going")  # fmt: skip
        _stopped(run, n, _cut(run, X, n), why, None)
    meta["complete"] = True
    status = np.zeros(len(codes), dtype=np.int64)
    for r in np.flatnonzero(failed):  # NaN after each failed rollout's last good sample
        n = int(done[r])
        status[r] = 1 if codes[r] == 16 else _status_of(int(codes[r]))
        for x in X:
            if x is not None:
                x[r, n:] = np.nan
        if status[r] == 2 and _runaway(model, Trajectory(dt * np.arange(n), X[0][r, :n],
                                                         X[1][r, :n], X[2][r, :n],
                                                         X[3][r, :n])):  # fmt: skip
            status[r] = 1
    res = _cut(run, X, K + 1)
    if run.mark:
        meta["failed_rollouts"] = int(failed.sum())
        res.status = status.reshape(batch)
        last = np.where(failed, done - 1, K)
        res.t_end = np.where(last >= 0, last * dt, np.nan).reshape(batch)
    return res


def _cut(run, X, n: int) -> Trajectory:
    """The first n samples of every rollout as a batched Trajectory."""
    batch = run.batch
    Q, V, A, TAU, Z, FC = (None if x is None else x[:, :n].reshape(*batch, n, x.shape[-1])
                           for x in X)  # fmt: skip
    fc = None if FC is None else FC.reshape(*batch, n, -1, 3)
    return Trajectory(run.dt * np.arange(n), Q, V, A, TAU, z=Z, meta=run.meta, model=run.model,
                      contact_force=fc)  # fmt: skip
