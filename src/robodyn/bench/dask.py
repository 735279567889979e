"""The ``dask`` section of ``robodyn bench``: what the Dask path costs, and what it scales to.

* overhead: inverse dynamics of the UR5 on N = 10^6 random states (``--quick``: 2 10^4),
  given as dask arrays in chunks of 10^3 .. 10^6 states and computed by Dask's threads,
  against the NumPy call on the same arrays (the core's own threads, every core), runs
  interleaved, best of 5; the per-state overhead is ``t_dask / t_numpy - 1`` in wall time
  and in CPU time (which other processes on the machine do not inflate).
* scaling (not in ``--quick``): the workspace map of :func:`robodyn.distributed.sweep.workspace_map`
  (UR5, joints 1-3, 100^3 = 10^6 configurations in chunks of 10^5) on a ``LocalCluster``
  of 1 and then 2 worker processes (one thread each); reported: the wall times, their
  ratio, the CPU time of one chunk (one thread), and the
  scheduler's cost per task (1,000 empty tasks): the inputs of the README's extrapolation.
"""

from __future__ import annotations

import os
import time

import numpy as np

from .common import _row

__all__ = ["run_dask"]


def _timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of one call; CPU time is summed over the process's threads, so
    it does not grow when other processes share the cores."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def _overhead_rows(cfg) -> list[dict]:
    import dask
    import dask.array as da

    from .. import models
    from ..dynamics import inverse_dynamics

    m = models.load("ur5")
    rng = np.random.default_rng(cfg.seed)
    N = 20_000 if cfg.quick else 1_000_000
    Q, V, A = (rng.uniform(-2.0, 2.0, (N, m.nv)) for _ in range(3))
    repeat = 2 if cfg.quick else 5
    chunks = (10**3, 10**4) if cfg.quick else (10**3, 10**4, 10**5, 10**6)
    runs = {None: lambda: inverse_dynamics(m, Q, V, A)}
    for c in chunks:
        dQ, dV, dA = (da.from_array(x, chunks=(c, -1)) for x in (Q, V, A))
        runs[c] = lambda dQ=dQ, dV=dV, dA=dA: dask.compute(
            inverse_dynamics(m, dQ, dV, dA), scheduler="threads"
        )
    best = {c: (np.inf, np.inf) for c in runs}
    for _ in range(repeat):  # interleaved, so that a busy moment hits every variant alike
        for c, fn in runs.items():
            w, t = _timed(fn)
            best[c] = (min(best[c][0], w), min(best[c][1], t))
    w_np, c_np = best[None]
    rows = [_row("dask", "ur5", "rnea", "robodyn", call=f"rd.rnea on {N:,} numpy states",
                 median_s=w_np / N, cpu_s=c_np / N, n_states=N, chunk=None, overhead=0.0,
                 overhead_cpu=0.0)]  # fmt: skip
    for c in chunks:
        w, t = best[c]
        rows.append(_row("dask", "ur5", "rnea", "robodyn",
                         call=f"rd.rnea on dask arrays, chunks of {c:,} (threads)",
                         median_s=w / N, cpu_s=t / N, n_states=N, chunk=c,
                         overhead=w / w_np - 1.0, overhead_cpu=t / c_np - 1.0))  # fmt: skip
    return rows


def _noop(x):
    return x


def _scaling_rows() -> list[dict]:
    import dask
    from distributed import Client, LocalCluster

    from .. import models
    from ..distributed.sweep import _workspace_block, workspace_grid, workspace_map

    m = models.load("ur5")
    points, chunk = 100, 100_000
    n = points**3
    settings = ((1, 2, 3), workspace_grid(m, (1, 2, 3), points), "ee", "body", "linear")
    _, per_chunk = _timed(lambda: _workspace_block(m, settings, 0, chunk))  # CPU, 1 thread
    rows, walls = [], {}
    for workers in (1, 2):
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                         dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):  # fmt: skip
            client.run(lambda: __import__("robodyn").models.load("ur5"))  # warm imports
            run = workspace_map(m, "ee", (1, 2, 3), points, chunk=chunk)
            w = run.arrays["manipulability"]
            t0 = time.perf_counter()
            dask.compute(w.max())
            walls[workers] = time.perf_counter() - t0
            # the scheduler's own cost of a task: 1,000 tasks that do nothing
            t0 = time.perf_counter()
            client.gather(client.map(_noop, range(1000), pure=False))
            per_task = (time.perf_counter() - t0) / 1000
        rows.append(_row("dask", "ur5", "workspace map", "robodyn",
                         call=f"{n:,} configurations, chunks of {chunk:,}, {workers} worker "
                         f"process{'es' if workers > 1 else ''}", median_s=walls[workers],
                         n_states=n, chunk=chunk, workers=workers, per_chunk_s=per_chunk,
                         per_task_s=per_task, load=os.getloadavg()[0]))  # fmt: skip
    rows[-1]["speedup"] = walls[1] / walls[2]
    return rows


def run_dask(cfg, prog) -> list[dict]:
    """Rows of the dask section (see the module docstring); [] without dask installed."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        return []
    prog.show("dask: overhead")
    rows = _overhead_rows(cfg)
    prog.step()
    if not cfg.quick:
        prog.show("dask: 1 -> 2 worker processes")
        rows += _scaling_rows()
    prog.step()
    return rows


def text_lines(rows: list[dict]) -> list[str]:
    """The dask section of the text report."""
    out = []
    for r in rows:
        if r["function"] == "rnea":
            over = ""
            if r["chunk"] is not None:
                w, c = 100 * r["overhead"], 100 * r["overhead_cpu"]
                over = f"  overhead {w:+6.1f} % wall, {c:+6.1f} % CPU"
            out.append(f"{r['model']:<6} {r['median_s'] * 1e9:8.1f} ns/state (CPU "
                       f"{r['cpu_s'] * 1e9:.1f}){over}  {r['call']}")  # fmt: skip
        else:
            extra = f"  speedup {r['speedup']:.2f}x" if "speedup" in r else ""
            out.append(
                f"{r['model']:<6} {r['median_s']:8.2f} s  {r['call']}{extra}; one chunk "
                f"{r['per_chunk_s']:.3f} s CPU, scheduler {r['per_task_s'] * 1e3:.2f} ms per "
                f"task; load average {r['load']:.1f}"
            )
    return out
