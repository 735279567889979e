"""What every part of ``robodyn bench`` shares (the bottom of the folder): the names of the
models, functions, libraries and sections, the run's :class:`Config`, the progress bar,
the timing loop, the error and number formats, a result row (:func:`_row`) and a fresh
interpreter to run code in (:func:`_python`). Nothing here imports the rest of the bench."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

MODELS = ("ur5", "panda", "solo12", "talos")


FUNCTIONS = ("fk", "jacobian", "rnea", "crba", "aba", "coriolis", "gravity")


LIBRARIES = ("robodyn", "pinocchio", "mujoco", "modern_robotics")


SECTIONS = (
    "latency",
    "batch",
    "functions",
    "derivatives",
    "cold",
    "memory",
    "simulate",
    "ik",
    "dask",
    "viz",
    "ident",
    "load",
)


RTOL = 1e-8  # equality to Pinocchio before timing (relative, infinity norm)


FUNCTION_TITLES = {
    "fk": "forward kinematics, all frames",
    "jacobian": "one frame Jacobian",
    "rnea": "inverse dynamics",
    "crba": "mass matrix",
    "aba": "forward dynamics",
    "coriolis": "Coriolis matrix",
    "gravity": "gravity",
}


# The optional packages: what the user sees, and what pip installs.
_PACKAGES = {
    "pinocchio": ("Pinocchio", "pin"),
    "mujoco": ("MuJoCo", "mujoco"),
    "modern_robotics": ("modern_robotics", "modern-robotics"),
    "example-robot-data": ("example-robot-data", "example-robot-data"),
}


# The peers each section compares with (MuJoCo and modern_robotics have no batched API).
_SECTION_PEERS = {
    "latency": ("pinocchio", "mujoco", "modern_robotics"),
    "batch": ("pinocchio",),
    "functions": ("pinocchio",),
    "derivatives": ("pinocchio",),
    "cold": ("pinocchio",),
    "memory": ("pinocchio",),
    "simulate": ("pinocchio", "mujoco"),
    "ik": ("modern_robotics",),
    "dask": (),
    "viz": (),
    "ident": ("pinocchio",),
    "load": ("pinocchio",),
}


def skipped_line(package: str) -> str:
    """The one line that stands for everything a missing optional package would have run.

    Parameters
    ----------
    package : {"pinocchio", "mujoco", "modern_robotics", "example-robot-data"}

    Returns
    -------
    str
        E.g. ``"skipped: install Pinocchio (pip install pin)"``.
    """
    label, pip = _PACKAGES[package]
    return f"skipped: install {label} (pip install {pip})"


class Progress:
    """A plain text progress bar on stderr: ``[#####.....] 12/40 label``."""

    def __init__(self, total: int, enabled: bool = True, stream=None, width: int = 30) -> None:
        self.total = max(int(total), 1)
        self.done = 0
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.t0 = time.perf_counter()

    def step(self, label: str = "") -> None:
        """Advance by one and redraw."""
        self.done = min(self.done + 1, self.total)
        self.show(label)

    def show(self, label: str = "") -> None:
        """Redraw the bar with ``label`` (on a file, one line per tenth of the work)."""
        if not self.enabled:
            return
        tty = getattr(self.stream, "isatty", lambda: False)()
        if not tty:
            tenth = 10 * self.done // self.total
            if tenth == getattr(self, "_tenth", -1):
                return
            self._tenth = tenth
            el = time.perf_counter() - self.t0
            self.stream.write(f"robodyn bench: {self.done}/{self.total} ({el:.0f} s) {label}\n")
            self.stream.flush()
            return
        fill = int(self.width * self.done / self.total)
        el = time.perf_counter() - self.t0
        line = f"\r[{'#' * fill}{'.' * (self.width - fill)}] {self.done}/{self.total} {el:5.0f}s "
        self.stream.write((line + label)[:110].ljust(110))
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if not self.enabled:
            return
        if getattr(self.stream, "isatty", lambda: False)():
            self.stream.write("\n")
        else:
            el = time.perf_counter() - self.t0
            self.stream.write(f"robodyn bench: done ({el:.0f} s)\n")
        self.stream.flush()


def _median_time(fn: Callable[[], Any], repeat: int, target: float) -> dict:
    """Median seconds per call of ``fn`` over ``repeat`` loops of ``number`` calls each.

    ``number`` is sized like :meth:`timeit.Timer.autorange`: 1, 2, 5, 10, 20, ... until
    one loop takes at least ``target`` seconds.
    """
    timer = timeit.Timer(fn)
    number = 1
    while True:
        for k in (1, 2, 5):
            n = number * k
            t = timer.timeit(n)
            if t >= target:
                number = n
                break
        else:
            number *= 10
            continue
        break
    runs = [t / number for t in timer.repeat(repeat=repeat, number=number)]
    return {"median_s": statistics.median(runs), "runs_s": runs, "loops": number}


def _rel_err(x, ref) -> float:
    """``||x - ref||_inf / ||ref||_inf`` (absolute when ref is zero)."""
    x = np.asarray(x, dtype=float)
    ref = np.asarray(ref, dtype=float)
    if x.shape != ref.shape:
        return math.inf
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(x - ref))) if ref.size else 0.0
    return err / scale if scale > 0 else err


def _fmt_time(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "-"
    for unit, k in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= k:
            return f"{s / k:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _fmt_ratio(r: float | None) -> str:
    if r is None or not math.isfinite(r):
        return "-"
    return f"{r:.3g}"


@dataclasses.dataclass
class Config:
    """Options of one benchmark run."""

    models: tuple[str, ...] = MODELS
    sections: tuple[str, ...] = SECTIONS
    repeat: int = 7
    target: float = 0.2  # seconds per timing loop (autorange)
    n_batch: int = 100_000
    n_loop: int = 2_000  # states of a Python-loop baseline
    threads: tuple[int, ...] = (1, 2)
    n_check: int = 5  # random states for the equality checks
    n_memory: int = 1_000_000
    cold_repeat: int = 7
    max_batch_bytes: float = 256e6  # cap N so one batch output stays below this size
    batch_budget: float = 4.0  # cap N so one single-threaded batch call stays below this (s)
    seed: int = 0
    quick: bool = False
    progress: bool = True


def _row(section: str, case: str, fn: str, lib: str, **kw) -> dict:
    row = {
        "section": section,
        "model": case,
        "function": fn,
        "library": lib,
        "call": "",
        "threads": 1,
        "n_states": 1,
        "median_s": None,
        "runs_s": [],
        "ratio_to_pinocchio": None,
        "status": "ok",
        "check_err": None,
        "note": "",
    }
    row.update(kw)
    return row


def _python(code: str, env: dict | None = None, timeout: float = 600) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line last."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])
