"""The ``memory`` section of ``robodyn bench``: peak resident memory (``VmHWM``, else
``ru_maxrss``) of a 1,000,000-state inverse-dynamics batch in a fresh process, against the
bytes of its inputs plus outputs, robodyn beside Pinocchio's ``rneaInParallel``."""

from __future__ import annotations

import gc
import resource
import time

import numpy as np

from .common import Config, Progress, _python, _row
from .robots import _random_states, load_pin_model, load_robodyn_model


def _peak_rss_kb() -> int:
    """Peak resident memory of this process in KiB: ``VmHWM`` of /proc/self/status on Linux
    (the high-water mark of this process's own address space), else ``ru_maxrss``.

    ``ru_maxrss`` alone is not used on Linux: a child started by a large parent inherits the
    parent's maximum across fork and exec, which would hide the batch's own peak.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def memory_child(name: str, n: int, lib: str) -> dict:
    """Peak RSS of an ``n``-state inverse-dynamics batch (run in a fresh process).

    Parameters
    ----------
    name : str
        Benchmark model name.
    n : int
        Number of states.
    lib : {"robodyn", "pinocchio"}

    Returns
    -------
    dict
        ``baseline_kb`` (peak RSS before the inputs exist, after a warm-up call),
        ``inputs_kb`` (after the inputs exist), ``peak_kb``, ``data_bytes`` (inputs +
        outputs) and ``seconds``.
    """
    model, _ = load_robodyn_model(name)
    rng = np.random.default_rng(1)
    hwm = _peak_rss_kb
    if lib == "robodyn":
        from ..dynamics import inverse_dynamics

        s = _random_states(model, 4, 0)
        inverse_dynamics(model, s["q"], s["v"], s["a"])  # warm up: load the kernels
        gc.collect()
        base = hwm()
        from ..model.configuration import random_configuration

        Q = np.atleast_2d(random_configuration(model, rng, size=n))
        V = rng.standard_normal((n, model.nv))
        A = rng.standard_normal((n, model.nv))
        inp = hwm()
        t0 = time.perf_counter()
        out = inverse_dynamics(model, Q, V, A)
    else:
        import pinocchio as pin

        pm, _ = load_pin_model(name, model, pin)
        pool = pin.ModelPool(pm, 2)
        s = np.zeros((pm.nq, 4), order="F")
        for k in range(4):
            s[:, k] = pin.neutral(pm)
        z = np.zeros((pm.nv, 4), order="F")
        pin.rneaInParallel(2, pool, s, z, z, np.zeros((pm.nv, 4), order="F"))
        gc.collect()
        base = hwm()
        Q = np.empty((pm.nq, n), order="F")
        for k in range(0, n, 100_000):
            e = min(n, k + 100_000)
            Q[:, k:e] = np.array([pin.randomConfiguration(pm) for _ in range(e - k)]).T
        V = np.asfortranarray(rng.standard_normal((pm.nv, n)))
        A = np.asfortranarray(rng.standard_normal((pm.nv, n)))
        inp = hwm()
        t0 = time.perf_counter()
        out = np.empty((pm.nv, n), order="F")
        pin.rneaInParallel(2, pool, Q, V, A, out)
    sec = time.perf_counter() - t0
    peak = hwm()
    nbytes = Q.nbytes + V.nbytes + A.nbytes + out.nbytes
    return {"baseline_kb": base, "inputs_kb": inp, "peak_kb": peak, "data_bytes": nbytes,
            "seconds": sec}  # fmt: skip


def run_memory(cfg: Config, libs: dict, prog: Progress, name: str = "panda") -> list[dict]:
    """Peak-RSS rows of a ``cfg.n_memory``-state inverse-dynamics batch of model ``name``."""
    rows = []
    code = (
        "import json\nfrom robodyn.bench.memory import memory_child\n"
        "print(json.dumps(memory_child({name!r}, {n}, {lib!r})))"
    )
    res = {}
    for lib in ("robodyn", "pinocchio"):
        prog.show(f"memory: {lib} {cfg.n_memory} states")
        if lib == "pinocchio" and libs.get("pinocchio") is None:  # not installed: no row
            prog.step()
            continue
        try:
            r = _python(code.format(name=name, n=cfg.n_memory, lib=lib), timeout=1800)
        except Exception as exc:  # noqa: BLE001
            rows.append(_row("memory", name, "rnea batch", lib, status=f"error: {exc}"[:200]))
            prog.step()
            continue
        extra = (r["peak_kb"] - r["baseline_kb"]) * 1024.0
        res[lib] = r
        rows.append(
            _row("memory", name, "rnea batch", lib,
                 call="(peak RSS - baseline) / (inputs + outputs)", n_states=cfg.n_memory,
                 median_s=None, status="ok" if lib == "robodyn" else "reference",
                 peak_rss_mb=r["peak_kb"] / 1024.0, baseline_rss_mb=r["baseline_kb"] / 1024.0,
                 data_mb=r["data_bytes"] / 2**20, extra_mb=extra / 2**20,
                 over_data=extra / r["data_bytes"], batch_seconds=r["seconds"],
                 threads=2 if lib == "pinocchio" else None)
        )  # fmt: skip
        prog.step()
    if "robodyn" in res and "pinocchio" in res and rows[1]["over_data"] > 0:
        rows[0]["ratio_to_pinocchio"] = rows[0]["over_data"] / rows[1]["over_data"]
    return rows
