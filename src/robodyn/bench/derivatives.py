"""The ``derivatives`` section of ``robodyn bench``: analytic derivatives of the dynamics.

For each quantity (the derivatives of inverse dynamics, ``rd.inverse_dynamics_derivatives``
against Pinocchio's ``computeRNEADerivatives``; of forward dynamics,
``rd.forward_dynamics_derivatives`` against ``computeABADerivatives``; the continuous
``rd.linearize``, its blocks da/dq, da/dv, da/dtau checked, against
``computeABADerivatives`` and numpy's block matrices) and each robot, three rows:

* **one state**: robodyn's call on one state, ratio to Pinocchio's call;
* **batch**: robodyn's call on N states (per thread count of ``--threads``), time per
  state, ratio to a Python loop over Pinocchio's call, per state;
* **finite differences**: the route without analytic derivatives, central differences of
  robodyn's batch inverse dynamics (q moved along each tangent direction by
  ``rd.integrate``; 6 nv states per state in one batch call), time per state, ratio to
  the same loop over Pinocchio.

Each row is checked before it is timed: the one-state and batch rows against Pinocchio
(after the :class:`robodyn.convert.PinocchioMap` reordering, 1e-8 relative), the batch
also against its single-state calls, the differences against Pinocchio to 1e-5 (their
truncation and rounding). A failed check is a FAIL row without times. The models carry no
joint friction (the bench strips it): Pinocchio's RNEA has none.
"""

from __future__ import annotations

import dataclasses
import statistics
import timeit
from collections.abc import Callable

import numpy as np

from .common import RTOL, Config, Progress, _fmt_ratio, _fmt_time, _median_time, _rel_err, _row
from .robots import Case, _random_states

__all__ = ["run_derivatives", "text_lines", "quantities", "Quantity"]

FD_RTOL = 1e-5  # central differences, step ~eps^(1/3): truncation and rounding ~1e-9
_H = 6e-6
_KINDS = ("one state", "batch", "finite differences")


@dataclasses.dataclass(frozen=True)
class Quantity:
    """One derivative of the dynamics: robodyn's call, Pinocchio's, and the function whose
    central differences give the same matrices."""

    name: str
    call: str
    rd: Callable  # (model, q, v, x, threads) -> tuple of matrices, (..., nv, nv) each
    peer: str
    pin: Callable  # (pin, pm, pd, qp, vp, xp) -> Pinocchio's raw result (timed)
    post: Callable  # (pin, pm, pd, raw, pmap) -> the tuple in robodyn's order
    of: Callable  # (model, q, v, x) -> the function differentiated, batched
    of_call: str  # its name, for the table
    third: str = "a"  # the state's third argument: "a" or "tau"


def _rnea_pin(pin, pm, pd, qp, vp, ap):
    return pin.computeRNEADerivatives(pm, pd, qp, vp, ap)


def _whole(X) -> np.ndarray:
    """A symmetric matrix Pinocchio fills in its upper triangle, made whole."""
    X = np.array(X)
    return np.triu(X) + np.triu(X, 1).T


def _rnea_post(pin, pm, pd, raw, mp) -> tuple:
    """Pinocchio's dtau_dq, dtau_dv and M, robodyn's order."""
    return tuple(mp.matrix_from_pin(np.array(X)) for X in (pd.dtau_dq, pd.dtau_dv, _whole(pd.M)))


def _aba_pin(pin, pm, pd, qp, vp, taup):
    return pin.computeABADerivatives(pm, pd, qp, vp, taup)


def _aba_post(pin, pm, pd, raw, mp) -> tuple:
    """Pinocchio's ddq_dq, ddq_dv and M^-1, robodyn's order."""
    X = (pd.ddq_dq, pd.ddq_dv, _whole(pd.Minv))
    return tuple(mp.matrix_from_pin(np.array(x)) for x in X)


def _linearize_pin(pin, pm, pd, qp, vp, taup):
    """What a Pinocchio user writes for the continuous (A, B): computeABADerivatives, then
    numpy's blocks [[0, 1], [da/dq, da/dv]] and [[0], [M^-1]]."""
    pin.computeABADerivatives(pm, pd, qp, vp, taup)
    nv = pm.nv
    A = np.block([[np.zeros((nv, nv)), np.eye(nv)], [pd.ddq_dq, pd.ddq_dv]])
    return A, np.vstack([np.zeros((nv, nv)), _whole(pd.Minv)])


def _linearize_blocks(rd, m, q, v, tau) -> tuple:
    """robodyn's continuous (A, B) as the three blocks ABA's derivatives give."""
    A, B = rd.linearize(m, q, v, tau)
    nv = m.nv
    return A[..., nv:, :nv], A[..., nv:, nv:], B[..., nv:, :]


def quantities() -> list[Quantity]:
    """The rows' quantities, in the order of the table."""
    import robodyn as rd

    return [
        Quantity(
            "rnea_derivatives", "inverse_dynamics_derivatives(model, q, v, a)",
            lambda m, q, v, a, th: rd.inverse_dynamics_derivatives(m, q, v, a, threads=th),
            "computeRNEADerivatives", _rnea_pin, _rnea_post,
            lambda m, q, v, a: rd.inverse_dynamics(m, q, v, a, threads=1), "inverse_dynamics",
        ),
        Quantity(
            "aba_derivatives", "forward_dynamics_derivatives(model, q, v, tau)",
            lambda m, q, v, t, th: rd.forward_dynamics_derivatives(m, q, v, t, threads=th),
            "computeABADerivatives", _aba_pin, _aba_post,
            lambda m, q, v, t: rd.forward_dynamics(m, q, v, t, threads=1), "forward_dynamics",
            third="tau",
        ),
        Quantity(
            "linearize", "linearize(model, q, v, tau)",
            lambda m, q, v, t, th: _linearize_blocks(rd, m, q, v, t),
            "computeABADerivatives + numpy blocks", _linearize_pin, _aba_post,
            lambda m, q, v, t: rd.forward_dynamics(m, q, v, t, threads=1), "forward_dynamics",
            third="tau",
        ),
    ]  # fmt: skip


# ------------------------------------------------------------------ finite differences
def differences(model, spec: Quantity, Q, V, X) -> tuple:
    """The central differences of ``spec.of`` at the N states (Q, V, X): the 6 nv moved
    states of each (q (+) +-h e_k by rd.integrate, v +- h e_k, x +- h e_k) in one batch
    call; (d/dq, d/dv, d/dx), (N, nv, nv) each, column k the k-th direction."""
    from ..model.configuration import integrate

    N, nv = Q.shape[0], model.nv
    E = _H * np.eye(nv)
    steps = np.concatenate([E, -E])  # (2 nv, nv): +h e_k, then -h e_k
    moved_q = integrate(model, Q[:, None, :], steps[None, :, :])  # (N, 2 nv, nq)
    zero = np.zeros_like(steps)
    qs = np.concatenate([moved_q, np.repeat(Q[:, None], 4 * nv, 1)], 1)
    vs = V[:, None] + np.concatenate([zero, steps, zero])[None]
    xs = X[:, None] + np.concatenate([zero, zero, steps])[None]
    f = spec.of(model, qs.reshape(-1, model.nq), vs.reshape(-1, nv), xs.reshape(-1, nv))
    f = f.reshape(N, 3, 2, nv, nv)  # (state, argument, sign, direction, output)
    d = (f[:, :, 0] - f[:, :, 1]) / (2 * _H)
    return tuple(np.swapaxes(d[:, k], -1, -2) for k in range(3))


# ------------------------------------------------------------------ the section
def run_derivatives(case: Case, libs: dict, cfg: Config, prog: Progress) -> list[dict]:
    """The rows of one model (none without Pinocchio: the section then has its one
    "skipped" line)."""
    pinlib = libs.get("pinocchio")
    rows: list[dict] = []
    for spec in quantities():
        if pinlib is None:
            prog.step()
            continue
        prog.show(f"derivatives {case.name} {spec.name}")
        rows += _quantity_rows(case, pinlib.pin, spec, cfg)
        prog.step()
    return rows


def _quantity_rows(case: Case, pin, spec: Quantity, cfg: Config) -> list[dict]:
    """One state, the batch per thread count and the differences of one quantity."""
    m, pm, mp = case.model, case.pin_model, case.pmap
    pd = pm.createData()
    st = case.states
    Q, V, X = st["q"], st["v"], st[spec.third]
    pin_states = [(mp.q_to_pin(Q[k]), mp.v_to_pin(V[k]), mp.v_to_pin(X[k])) for k in range(len(Q))]
    want = [spec.post(pin, pm, pd, spec.pin(pin, pm, pd, *s), mp) for s in pin_states]

    def err(results) -> float:  # the largest relative error to Pinocchio over the states
        return max(_rel_err(r[j], w[j]) for r, w in zip(results, want) for j in range(3))

    def row(kind: str, **kw) -> dict:
        return _row("derivatives", case.name, spec.name, "robodyn", kind=kind, peer=spec.peer,
                    **kw)  # fmt: skip

    # the peers: Pinocchio's call on one state, and a Python loop over it (per state)
    big = _random_states(m, _n_states(case, cfg), cfg.seed + 300)
    n = max(1, min(big["q"].shape[0], cfg.n_loop))
    loop_states = [(mp.q_to_pin(big["q"][k]), mp.v_to_pin(big["v"][k]),
                    mp.v_to_pin(big[spec.third][k])) for k in range(n)]  # fmt: skip
    peer = (lambda: spec.pin(pin, pm, pd, *pin_states[0]), 1)
    peer_loop = (lambda: [spec.pin(pin, pm, pd, *s) for s in loop_states], n)

    one = [spec.rd(m, Q[k], V[k], X[k], None) for k in range(len(Q))]
    rows = [_timed(row("one state", call=spec.call, threads=1), err(one), RTOL,
                   (lambda: spec.rd(m, Q[0], V[0], X[0], None), 1), peer, cfg)]  # fmt: skip
    N = big["q"].shape[0]
    for th in cfg.threads:
        batch = spec.rd(m, Q, V, X, th)
        e = max(
            err([tuple(b[k] for b in batch) for k in range(len(Q))]),
            max(_rel_err(batch[j][k], one[k][j]) for k in range(len(Q)) for j in range(3)),
        )
        call = f"{spec.call.split('(')[0]} on {N} states, threads={th}"
        rows.append(_timed(row("batch", call=call, threads=th, n_states=N), e, RTOL,
                           (lambda th=th: spec.rd(m, big["q"], big["v"], big[spec.third], th),
                            N), peer_loop, cfg))  # fmt: skip
    nfd = max(1, min(N, 2000))
    fd = differences(m, spec, Q, V, X)
    e = err([tuple(d[k] for d in fd) for k in range(len(Q))])
    sub = {k: big[k][:nfd] for k in ("q", "v", spec.third)}
    call = f"central differences of {spec.of_call} on {nfd} states x 6 nv, threads=1"
    rows.append(_timed(row("finite differences", call=call, threads=1, n_states=nfd), e,
                       FD_RTOL, (lambda: differences(m, spec, sub["q"], sub["v"],
                                                     sub[spec.third]), nfd),
                       peer_loop, cfg))  # fmt: skip
    return rows


def _timed(row: dict, err: float, tol: float, ours: tuple, peer: tuple, cfg: Config) -> dict:
    """``row`` with its check, and when it passed the time per state of ``ours`` and of
    ``peer`` (each ``(call, states per call)``) and their ratio; a failed check: a FAIL
    row without times. The two are timed in turns, ``cfg.repeat`` rounds of one loop of
    each (sized like ``timeit``'s autorange), so that a load that comes and goes on the
    machine meets both: the times are medians over the rounds, the ratio the median of
    the rounds' ratios."""
    row["check_err"] = err
    if not err <= tol:
        row["status"] = "FAIL vs Pinocchio"
        return row
    timers = [timeit.Timer(f) for f, _ in (ours, peer)]
    loops = [_median_time(f, 1, cfg.target)["loops"] for f, _ in (ours, peer)]  # warms up
    rounds = [[t.timeit(k) / k / per for t, k, (_, per) in zip(timers, loops, (ours, peer))]
              for _ in range(cfg.repeat)]  # fmt: skip
    row.update(
        median_s=statistics.median(r[0] for r in rounds),
        peer_s=statistics.median(r[1] for r in rounds),
        ratio_to_pinocchio=statistics.median(r[0] / r[1] for r in rounds),
        runs_s=[r[0] for r in rounds],
    )
    return row


def _n_states(case: Case, cfg: Config) -> int:
    """States of a batch: ``--n``, capped so the output stays below cfg.max_batch_bytes and
    one call below about a second."""
    out = 3 * 8 * case.model.nv**2
    return max(1, min(cfg.n_batch, int(cfg.max_batch_bytes // out), 200_000))


def text_lines(rows: list[dict]) -> list[str]:
    """The section's lines: per model, quantity and route, robodyn's time per state and its
    ratio to the peer (Pinocchio's call; a Python loop over it for the batch and the
    differences), and the check."""
    out = [f"{'model':<7} {'function':<17} {'route':<19} {'thr':>3} {'N':>7} "
           f"{'per state':>10} {'ratio':>7}  {'check':<20} call (peer)"]  # fmt: skip
    for r in rows:
        out.append(
            f"{r['model']:<7} {r['function']:<17} {r['kind']:<19} {r['threads']:>3} "
            f"{r['n_states']:>7} {_fmt_time(r['median_s']):>10} "
            f"{_fmt_ratio(r['ratio_to_pinocchio']):>7}  {_check_text(r):<20} {r['call']} "
            f"({r['peer']}{'' if r['kind'] == 'one state' else ', Python loop'})"
        )
    return out


def _check_text(r: dict) -> str:
    if r["status"] == "ok" and r.get("check_err") is not None:
        return f"ok ({r['check_err']:.1e})"
    return r["status"]
