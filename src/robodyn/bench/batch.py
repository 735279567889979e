"""The ``batch`` section of ``robodyn bench``: each function over N states, per state, on 1
and 2 threads: robodyn's batch calls with ``threads=`` beside Pinocchio's
``rneaInParallel`` / ``abaInParallel`` on a ``ModelPool`` where they exist, else a Python
loop over Pinocchio's single-state call (said so in the table)."""

from __future__ import annotations

import dataclasses
import timeit
from typing import Any

import numpy as np

from .common import FUNCTIONS, MODELS, RTOL, Config, Progress, _median_time, _rel_err, _row
from .robots import Case, _random_states


def _batch_size(case: Case, fn: str, cfg: Config) -> int:
    m = case.model
    per_state = {
        "fk": len(m.frame_names) * 16,
        "jacobian": 6 * m.nv,
        "crba": m.nv * m.nv,
        "coriolis": m.nv * m.nv,
    }.get(fn, m.nv)
    cap = int(cfg.max_batch_bytes // (8 * per_state))
    return max(1, min(cfg.n_batch, cap))


def _time_capped(rd, fn: str, big: dict, N: int, cfg: Config) -> int:
    """Fewer states than ``N`` when one batch call would take longer than
    ``cfg.batch_budget`` seconds on one thread (slow functions; the table gives N)."""
    n0 = min(N, 16 if cfg.quick else 256)
    args = [big[k][:n0] for k in ("q", "v", "a", "tau")]
    call = rd.bind(fn, *args)
    call()
    per = min(timeit.Timer(call).repeat(repeat=3, number=1)) / n0  # best of 3: noise-robust
    return max(n0, min(N, int(cfg.batch_budget / max(per, 1e-12))))


@dataclasses.dataclass
class _Batch:
    """One model's batch section: its libraries, its states in robodyn's and in Pinocchio's
    order, and Pinocchio's model pools (one per thread count, made once)."""

    case: Case
    libs: dict
    cfg: Config
    prog: Progress
    big: dict[str, np.ndarray]  # q (N, nq), v, a, tau (N, nv)
    pin_big: dict[str, np.ndarray] | None  # the same in Pinocchio's order, (n, N) Fortran
    pools: dict[int, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _Checked:
    """robodyn's batch of one function: its size, its result and its check."""

    N: int
    out: np.ndarray | None = None  # robodyn's result on the N states
    status: str = "ok"
    why: str | None = None  # robodyn has no such function, or it failed
    err: float | None = None  # largest relative error to Pinocchio on the first states


def run_batch(case: Case, libs: dict, cfg: Config, prog: Progress) -> list[dict]:
    """Batch throughput rows (seconds per state) of one model."""
    big = _random_states(case.model, cfg.n_batch, cfg.seed + 100 + MODELS.index(case.name))
    pin_big = _pin_states(case, big) if libs.get("pinocchio") is not None else None
    b = _Batch(case, libs, cfg, prog, big, pin_big)
    rows = []
    for fn in FUNCTIONS:
        checked = _robodyn_checked(b, fn)
        fn_rows = _robodyn_rows(b, fn, checked) + _pinocchio_rows(b, fn, checked)
        _ratios(fn_rows)
        rows += fn_rows + _no_batch_rows(b, fn)
    return rows


def _pin_states(case: Case, big: dict) -> dict[str, np.ndarray]:
    """The states in Pinocchio's order, one state per column (what its parallel calls take)."""
    mp = case.pmap
    return {
        "q": np.asfortranarray(np.array([mp.q_to_pin(x) for x in big["q"]]).T),
        "v": np.asfortranarray(mp.v_to_pin(big["v"]).T),
        "a": np.asfortranarray(mp.v_to_pin(big["a"]).T),
        "tau": np.asfortranarray(mp.v_to_pin(big["tau"]).T),
    }


def _states(b: _Batch, N: int) -> tuple[np.ndarray, ...]:
    """The first N states: q, v, a, tau."""
    return tuple(b.big[k][:N] for k in ("q", "v", "a", "tau"))


def _robodyn_checked(b: _Batch, fn: str) -> _Checked:
    """robodyn's batch of ``fn``: N (capped in bytes, then in time), its result, and its
    check against Pinocchio's single-state call on the first 20 states."""
    rd, pinlib = b.libs["robodyn"], b.libs.get("pinocchio")
    c = _Checked(N=_batch_size(b.case, fn, b.cfg), why=rd.available(fn))
    if c.why is not None:
        return c
    try:
        c.N = _time_capped(rd, fn, b.big, c.N, b.cfg)
        Q, V, A, TAU = _states(b, c.N)
        c.out = np.asarray(rd.bind(fn, Q, V, A, TAU)())
        if pinlib is not None:
            k = min(c.N, 20)
            c.err = max(
                _rel_err(c.out[s], pinlib.result(fn, Q[s], V[s], A[s], TAU[s])) for s in range(k)
            )
            c.status = "ok" if c.err <= RTOL else "FAIL"
    except Exception as exc:  # noqa: BLE001
        c.status, c.why = "error", f"error: {type(exc).__name__}: {exc}"[:200]
    return c


def _robodyn_rows(b: _Batch, fn: str, c: _Checked) -> list[dict]:
    """robodyn's rows of ``fn``, one per thread count: timed when its check passed."""
    rd, N = b.libs["robodyn"], c.N
    Q, V, A, TAU = _states(b, N)
    rows = []
    for t in b.cfg.threads:
        b.prog.show(f"batch {b.case.name} {fn} robodyn {t} thr")
        row = _row(
            "batch", b.case.name, fn, "robodyn", call=rd.calls[fn] + " on (N, n)",
            threads=t, n_states=N, check_err=c.err,
        )  # fmt: skip
        if c.why is not None:
            row["status"] = c.why
        elif c.status != "ok":
            row["status"] = c.status
        else:
            call = rd.bind(fn, Q, V, A, TAU, threads=t)
            res = _median_time(call, b.cfg.repeat, b.cfg.target)
            row.update(median_s=res["median_s"] / N, runs_s=[x / N for x in res["runs_s"]])
        rows.append(row)
        b.prog.step()
    return rows


def _pinocchio_rows(b: _Batch, fn: str, c: _Checked) -> list[dict]:
    """Pinocchio's rows of ``fn``: rneaInParallel / abaInParallel per thread count, else a
    Python loop (single-threaded); none when Pinocchio is not installed."""
    pinlib = b.libs.get("pinocchio")
    pin = pinlib.pin if pinlib is not None else None
    has_par = pin is not None and hasattr(pin, "rneaInParallel") and hasattr(pin, "ModelPool")
    par = {"rnea": "rneaInParallel", "aba": "abaInParallel"}.get(fn)
    rows = []
    for t in b.cfg.threads:
        b.prog.show(f"batch {b.case.name} {fn} pinocchio {t} thr")
        if pinlib is None:  # not installed: one line for the section, no rows
            b.prog.step()
            continue
        if par is not None and has_par:
            row = _pin_parallel_row(b, fn, par, t, c)
        elif t == b.cfg.threads[0]:
            row = _pin_loop_row(b, fn, c.N)
        else:
            row = _row(
                "batch", b.case.name, fn, "pinocchio", threads=t,
                status="n/a: Python loop is single-threaded",
            )  # fmt: skip
        rows.append(row)
        b.prog.step()
    return rows


def _pin_parallel_row(b: _Batch, fn: str, par: str, t: int, c: _Checked) -> dict:
    """Pinocchio's ``par`` (rneaInParallel or abaInParallel) on ``t`` threads over the same
    N states, checked against robodyn's result."""
    case, pin, N = b.case, b.libs["pinocchio"].pin, c.N
    if t not in b.pools:
        b.pools[t] = pin.ModelPool(case.pin_model, t)
    pool = b.pools[t]
    Qp, Vp = b.pin_big["q"][:, :N], b.pin_big["v"][:, :N]
    Xp = b.pin_big["a" if fn == "rnea" else "tau"][:, :N]
    out = np.zeros((case.model.nv, N), order="F")
    f = getattr(pin, par)

    def call(f=f, pool=pool, Qp=Qp, Vp=Vp, Xp=Xp, out=out, t=t):
        f(t, pool, Qp, Vp, Xp, out)

    call()
    err_p = None
    st_p = "reference"
    if c.out is not None:
        err_p = _rel_err(case.pmap.v_from_pin(out.T), c.out)
        st_p = "reference" if err_p <= RTOL else "FAIL vs robodyn"
    res = _median_time(call, b.cfg.repeat, b.cfg.target)
    return _row(
        "batch", case.name, fn, "pinocchio", call=f"{par}({t}, ModelPool, ...)",
        threads=t, n_states=N, median_s=res["median_s"] / N,
        runs_s=[x / N for x in res["runs_s"]], status=st_p, check_err=err_p,
    )  # fmt: skip


def _pin_loop_row(b: _Batch, fn: str, N: int) -> dict:
    """A Python loop over Pinocchio's single-state call on the first states (at most
    ``cfg.n_loop``): the reference of a function without a parallel call."""
    pinlib = b.libs["pinocchio"]
    Q, V, A, TAU = _states(b, N)
    n = min(N, b.cfg.n_loop)
    qs = [pinlib.convert(Q[s], V[s], A[s], TAU[s]) for s in range(n)]
    calls = [pinlib.bind(fn, *x) for x in qs]

    def call(calls=calls):
        for c in calls:
            c()

    res = _median_time(call, b.cfg.repeat, b.cfg.target)
    return _row(
        "batch", b.case.name, fn, "pinocchio",
        call=f"Python loop over {pinlib.calls[fn]}", threads=1, n_states=n,
        median_s=res["median_s"] / n, runs_s=[x / n for x in res["runs_s"]],
        status="reference", note="no parallel Pinocchio call for this function",
    )  # fmt: skip


def _ratios(fn_rows: list[dict]) -> None:
    """Each row's ratio to Pinocchio at the same thread count (or to the single-threaded
    loop)."""
    pin_by_t = {
        r["threads"]: r["median_s"]
        for r in fn_rows
        if r["library"] == "pinocchio" and r["median_s"]
    }
    loop = next(
        (r["median_s"] for r in fn_rows if r["library"] == "pinocchio" and "loop" in r["call"]),
        None,
    )
    for r in fn_rows:
        base = pin_by_t.get(r["threads"], loop)
        if r["median_s"] is not None and base:
            r["ratio_to_pinocchio"] = r["median_s"] / base


def _no_batch_rows(b: _Batch, fn: str) -> list[dict]:
    """One row each for MuJoCo and modern_robotics, which have no batched API (none when
    not installed)."""
    rows = []
    for other in ("mujoco", "modern_robotics"):
        st = b.libs.get("_why", {}).get(other)
        if b.libs.get(other) is not None:
            st = "n/a: no batched API"
        if st is not None:  # None: not installed
            rows.append(_row("batch", b.case.name, fn, other, status=st))
    return rows
