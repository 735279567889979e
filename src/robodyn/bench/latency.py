"""The ``latency`` section of ``robodyn bench``: one state from Python, each function in
each library (checked equal to Pinocchio's first), the median time per call."""

from __future__ import annotations

from .common import FUNCTIONS, LIBRARIES, Config, Progress, _median_time, _row
from .peers import _check
from .robots import Case


def run_latency(case: Case, libs: dict, cfg: Config, prog: Progress) -> list[dict]:
    """Single-state latency rows of one model (robodyn, then each peer)."""
    rows = []
    for fn in FUNCTIONS:
        fn_rows = []
        for name in LIBRARIES:
            prog.show(f"latency {case.name} {fn} {name}")
            row = _latency_row(case, libs, fn, name, cfg)
            if row is not None:
                fn_rows.append(row)
            prog.step()
        pin_time = next((r["median_s"] for r in fn_rows if r["library"] == "pinocchio"), None)
        for row in fn_rows:
            if pin_time and row["median_s"] is not None:
                row["ratio_to_pinocchio"] = row["median_s"] / pin_time
        rows += fn_rows
    return rows


def _latency_row(case: Case, libs: dict, fn: str, name: str, cfg: Config) -> dict | None:
    """Library ``name``'s row of ``fn`` on the case's first state: checked against the
    reference (Pinocchio, else robodyn), then timed; None when it is not installed."""
    lib = libs.get(name)
    if lib is None:
        why = libs.get("_why", {}).get(name)
        if why is not None:  # installed, but not for this model; else not installed
            return _row("latency", case.name, fn, name, status=why)
        return None
    row = _row("latency", case.name, fn, name, call=lib.calls.get(fn, ""))
    why = lib.available(fn)
    if why is not None:
        row["status"] = why
        return row
    ref = libs.get("pinocchio") or libs["robodyn"]
    st = case.states
    q, v, a, tau = st["q"][0], st["v"][0], st["a"][0], st["tau"][0]
    try:
        if lib is not ref:
            row["status"], row["check_err"] = _check(case, lib, ref, fn, name)
        else:
            row["status"] = "reference"
        if row["status"] in ("ok", "reference"):
            call = (
                lib.bind(fn, *lib.convert(q, v, a, tau))
                if name != "robodyn"
                else (lib.bind(fn, q, v, a, tau))
            )
            call()  # warm up (compiles robodyn's kernel on a cold cache)
            t = _median_time(call, cfg.repeat, cfg.target)
            row.update(median_s=t["median_s"], runs_s=t["runs_s"], loops=t["loops"])
    except Exception as exc:  # noqa: BLE001 - a peer's failure is a row, not a crash
        row["status"] = f"error: {type(exc).__name__}: {exc}"[:200]
        row["median_s"] = None
    return row
