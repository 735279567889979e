"""The ``ident`` section of ``robodyn bench``: the joint-torque regressor.

For the first two benchmark robots built (the same URDF in robodyn and Pinocchio):
``rd.regressor`` on a batch of random states (10,000; ``--quick``: 64; the compiled core,
``kernels/core/regressor.c``), against Pinocchio's ``computeJointTorqueRegressor`` called
state by state in a Python loop on the same states (the reference). The two agree
(robodyn's columns reordered to Pinocchio's [Ixx, Ixy, Iyy, Ixz, Iyz, Izz]) before
anything is timed.
"""

from __future__ import annotations

import time

import numpy as np

from .common import _row

__all__ = ["run_ident", "text_lines"]

_PIN = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]  # robodyn column k of a body is Pinocchio's _PIN[k]


def _pin_in_robodyn_order(model, pm, pmap, Yp: np.ndarray) -> np.ndarray:
    Yp = Yp[pmap.vperm]  # rows in robodyn's dof order
    out = np.zeros((model.nv, 10 * (model.nb - 1)))
    for j in range(1, pm.njoints):
        i = model.joint_id(pm.names[j])
        out[:, 10 * (i - 1) : 10 * i] = Yp[:, 10 * (j - 1) : 10 * j][:, _PIN]
    return out


def _best(fn, repeat: int, *args) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def _ours(model, q, v, a) -> None:
    from ..ident import regressor

    regressor(model, q, v, a, friction=False, armature=False)


def _theirs(pin, pm, pd, qp, vp, ap) -> None:
    for k in range(len(qp)):
        pin.computeJointTorqueRegressor(pm, pd, qp[k], vp[k], ap[k])


def run_ident(cfg, pin, prog, cases: dict) -> list[dict]:
    """Rows of the ident section: robodyn and Pinocchio per model (at most two models)."""
    from ..ident import regressor
    from ..model.configuration import random_configuration

    n = 64 if cfg.quick else 10_000
    repeat = 1 if cfg.quick else 3
    rows: list[dict] = []
    names = [k for k in cases if cases[k].pin_model is not None][:2]
    for name in names:
        prog.show(f"ident: {name}")
        case = cases[name]
        model, pm, pmap = case.model, case.pin_model, case.pmap
        pd = pm.createData()
        rng = np.random.default_rng(cfg.seed)
        q = np.atleast_2d(random_configuration(model, rng, size=n))
        v, a = rng.standard_normal((2, n, model.nv))
        qp = np.array([pmap.q_to_pin(x) for x in q])
        vp, ap = pmap.v_to_pin(v), pmap.v_to_pin(a)
        Y = regressor(model, q[:3], v[:3], a[:3], friction=False, armature=False)
        err = 0.0
        for k in range(3):
            want = _pin_in_robodyn_order(
                model, pm, pmap, pin.computeJointTorqueRegressor(pm, pd, qp[k], vp[k], ap[k])
            )
            err = max(err, float(np.abs(Y[k] - want).max() / max(1.0, np.abs(want).max())))
        ok = err < 1e-8

        t_rd = _best(_ours, repeat, model, q, v, a) / n
        t_pin = _best(_theirs, repeat, pin, pm, pd, qp, vp, ap) / n
        rows.append(_row("ident", name, "regressor", "robodyn",
                         call=f"rd.regressor on a batch of {n} states (C core)", n_states=n,
                         median_s=t_rd, ratio_to_pinocchio=t_rd / t_pin, check_err=err,
                         status="ok" if ok else "MISMATCH"))  # fmt: skip
        rows.append(_row("ident", name, "regressor", "pinocchio",
                         call=f"computeJointTorqueRegressor, Python loop over {n} states",
                         n_states=n, median_s=t_pin, status="reference"))  # fmt: skip
        prog.step()
    return rows


def text_lines(rows: list[dict]) -> list[str]:
    """The ident section of the text report: time per state and ratio to Pinocchio."""
    out = []
    for r in rows:
        ratio = f"{r['ratio_to_pinocchio']:.2f}x" if r["ratio_to_pinocchio"] else "ref"
        out.append(
            f"{r['model']:<6} {r['library']:<10} {r['median_s'] * 1e6:9.2f} us/state  "
            f"{ratio:>7}  {r['status']:<9} {r['call']}"
        )
    return out
