"""The ``batch`` section of ``robodyn bench``: each function over N states, per state, on 1
and 2 threads: robodyn's batch calls with ``threads=`` beside Pinocchio's
``rneaInParallel`` / ``abaInParallel`` on a ``ModelPool`` where they exist, else a Python
loop over Pinocchio's single-state call (said so in the table)."""

from __future__ import annotations

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


def run_batch(case: Case, libs: dict, cfg: Config, prog: Progress) -> list[dict]:
    """Batch throughput rows (seconds per state) of one model."""
    rows = []
    rd = libs["robodyn"]
    pinlib = libs.get("pinocchio")
    pin = pinlib.pin if pinlib is not None else None
    has_par = pin is not None and hasattr(pin, "rneaInParallel") and hasattr(pin, "ModelPool")
    m = case.model
    big = _random_states(m, cfg.n_batch, cfg.seed + 100 + MODELS.index(case.name))
    pin_big = None
    if pinlib is not None:
        mp = case.pmap
        pin_big = {
            "q": np.asfortranarray(np.array([mp.q_to_pin(x) for x in big["q"]]).T),
            "v": np.asfortranarray(mp.v_to_pin(big["v"]).T),
            "a": np.asfortranarray(mp.v_to_pin(big["a"]).T),
            "tau": np.asfortranarray(mp.v_to_pin(big["tau"]).T),
        }
    pools: dict[int, Any] = {}
    for fn in FUNCTIONS:
        N = _batch_size(case, fn, cfg)
        fn_rows = []
        # ---- robodyn: check the first rows against Pinocchio, then time
        why = rd.available(fn)
        rd_out = None
        status, err = "ok", None
        if why is None:
            try:
                N = _time_capped(rd, fn, big, N, cfg)
                Q, V, A, TAU = (big[k][:N] for k in ("q", "v", "a", "tau"))
                rd_out = np.asarray(rd.bind(fn, Q, V, A, TAU)())
                ref = pinlib if pinlib is not None else None
                if ref is not None:
                    k = min(N, 20)
                    err = max(
                        _rel_err(rd_out[s], ref.result(fn, Q[s], V[s], A[s], TAU[s]))
                        for s in range(k)
                    )
                    status = "ok" if err <= RTOL else "FAIL"
            except Exception as exc:  # noqa: BLE001
                status, why = "error", f"error: {type(exc).__name__}: {exc}"[:200]
        Q, V, A, TAU = (big[k][:N] for k in ("q", "v", "a", "tau"))
        for t in cfg.threads:
            prog.show(f"batch {case.name} {fn} robodyn {t} thr")
            row = _row(
                "batch", case.name, fn, "robodyn", call=rd.calls[fn] + " on (N, n)",
                threads=t, n_states=N, check_err=err,
            )  # fmt: skip
            if why is not None:
                row["status"] = why
            elif status != "ok":
                row["status"] = status
            else:
                call = rd.bind(fn, Q, V, A, TAU, threads=t)
                res = _median_time(call, cfg.repeat, cfg.target)
                row.update(median_s=res["median_s"] / N, runs_s=[x / N for x in res["runs_s"]])
            fn_rows.append(row)
            prog.step()
        # ---- Pinocchio: rneaInParallel / abaInParallel, else a Python loop
        par = {"rnea": "rneaInParallel", "aba": "abaInParallel"}.get(fn)
        for t in cfg.threads:
            prog.show(f"batch {case.name} {fn} pinocchio {t} thr")
            if pinlib is None:  # not installed: one line for the section, no rows
                prog.step()
                continue
            if par is not None and has_par:
                if t not in pools:
                    pools[t] = pin.ModelPool(case.pin_model, t)
                pool = pools[t]
                Qp, Vp = pin_big["q"][:, :N], pin_big["v"][:, :N]
                Xp = pin_big["a" if fn == "rnea" else "tau"][:, :N]
                out = np.zeros((m.nv, N), order="F")
                f = getattr(pin, par)

                def call(f=f, pool=pool, Qp=Qp, Vp=Vp, Xp=Xp, out=out, t=t):
                    f(t, pool, Qp, Vp, Xp, out)

                call()
                err_p = None
                st_p = "reference"
                if rd_out is not None:
                    err_p = _rel_err(case.pmap.v_from_pin(out.T), rd_out)
                    st_p = "reference" if err_p <= RTOL else "FAIL vs robodyn"
                res = _median_time(call, cfg.repeat, cfg.target)
                row = _row(
                    "batch", case.name, fn, "pinocchio", call=f"{par}({t}, ModelPool, ...)",
                    threads=t, n_states=N, median_s=res["median_s"] / N,
                    runs_s=[x / N for x in res["runs_s"]], status=st_p, check_err=err_p,
                )  # fmt: skip
            elif t == cfg.threads[0]:
                n = min(N, cfg.n_loop)
                qs = [pinlib.convert(Q[s], V[s], A[s], TAU[s]) for s in range(n)]
                calls = [pinlib.bind(fn, *x) for x in qs]

                def call(calls=calls):
                    for c in calls:
                        c()

                res = _median_time(call, cfg.repeat, cfg.target)
                row = _row(
                    "batch", case.name, fn, "pinocchio",
                    call=f"Python loop over {pinlib.calls[fn]}", threads=1, n_states=n,
                    median_s=res["median_s"] / n, runs_s=[x / n for x in res["runs_s"]],
                    status="reference", note="no parallel Pinocchio call for this function",
                )  # fmt: skip
            else:
                row = _row(
                    "batch", case.name, fn, "pinocchio", threads=t,
                    status="n/a: Python loop is single-threaded",
                )  # fmt: skip
            fn_rows.append(row)
            prog.step()
        # ratios at equal thread count (or to the single-threaded loop)
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
        for other in ("mujoco", "modern_robotics"):
            st = libs.get("_why", {}).get(other)
            if libs.get(other) is not None:
                st = "n/a: no batched API"
            if st is not None:  # None: not installed
                fn_rows.append(_row("batch", case.name, fn, other, status=st))
        rows += fn_rows
    return rows
