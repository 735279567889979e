"""The ``ik`` section of ``robodyn bench``: inverse kinematics on random reachable poses.

For the UR5 and the Panda: 1,000 poses (``--quick``: 50), each the forward kinematics of
a random configuration within the joint limits, solved from the neutral configuration by
``rd.ik`` with its defaults and by the ``modern_robotics`` package's IKinBody (MR's Newton
iteration; UR5 only: it needs the PoE description) on the same poses. Reported: the
success rate, the median and 95th-percentile time per solve. Then batch IK: the same
poses in one ``rd.ik`` call (``T_target`` of shape (n, 4, 4), vectorised damped least
squares on the batch kernels), reported as the time per pose (the whole call over n) and
the throughput in poses per second. TRAC-IK's published figure (~99 % within 5 ms on
common arms) is quoted for reference, not measured.
"""

from __future__ import annotations

import time

import numpy as np

from .common import _row

__all__ = ["run_ik"]


def _poses(model, frame, n, seed):
    from ..kinematics import fk

    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(model.q_lower), model.q_lower, -np.pi)
    hi = np.where(np.isfinite(model.q_upper), model.q_upper, np.pi)
    return fk(model, rng.uniform(lo, hi, (n, model.nq)), frame)


def _stats(times, ok):
    t = np.array(times)
    return float(np.median(t)), float(np.percentile(t, 95)), float(np.mean(ok))


def run_ik(cfg, libs: dict, prog, cases: dict) -> list[dict]:
    """Rows of the ik section: robodyn on the UR5 and the Panda, IKinBody on the UR5."""
    from .. import models

    n = 50 if cfg.quick else 1000
    rows: list[dict] = []
    mr = libs.get("modern_robotics")
    for name in ("ur5", "panda"):
        prog.show(f"ik: {name}")
        model = models.load(name)  # the bundled robots: their "ee" frame and MR's data
        T = _poses(model, "ee", n, cfg.seed)
        one, batch = _one_by_one_row(name, model, T), _batch_row(name, model, T)
        rows += [one, batch]
        if mr is not None and name == "ur5":
            mr_row = _mr_row(mr, name, model, T)
            batch["ratio_to_mr"] = one["median_s"] / mr_row["median_s"]
            rows.append(mr_row)
        prog.step()
    return rows


def _one_by_one_row(name: str, model, T) -> dict:
    """``rd.ik`` on each pose from neutral with its defaults: success, median, 95th
    percentile and mean time per solve."""
    from ..kinematics import fk, ik
    from ..spatial import inv_transform, log6

    n = len(T)
    times, ok = [], []
    for k in range(n):
        t0 = time.perf_counter()
        r = ik(model, "ee", T[k], rng=k)
        times.append(time.perf_counter() - t0)
        err = log6(inv_transform(fk(model, r.q, "ee")) @ T[k])
        ok.append(bool(r.success and np.linalg.norm(err) < 1e-7))
    med, p95, rate = _stats(times, ok)
    mean = float(np.mean(times))
    return _row("ik", name, "ik, 1 start + restarts", "robodyn",
                call=f"rd.ik on {n} random reachable poses from neutral, one by one "
                     f"(mean {mean * 1e3:.3g} ms)",
                median_s=med, p95_s=p95, success=rate, n_states=n, mean_s=mean)  # fmt: skip


def _batch_row(name: str, model, T) -> dict:
    """``rd.ik`` on all the poses in one call: time per pose and poses per second."""
    from ..kinematics import fk, ik
    from ..spatial import inv_transform, log6

    n = len(T)
    t0 = time.perf_counter()
    rb = ik(model, "ee", T, rng=0)
    total = time.perf_counter() - t0
    err = log6(inv_transform(fk(model, rb.q, "ee")) @ T)
    ok_b = rb.success & (np.linalg.norm(err, axis=-1) < 1e-7)
    return _row("ik", name, "ik batch", "robodyn batch",
                call=f"rd.ik on the same {n} poses in one call: {n / total:,.0f} poses/s "
                     f"(time per pose, whole call / {n}; one by one: mean above)",
                median_s=total / n, p95_s=None, success=float(np.mean(ok_b)),
                n_states=n, throughput=n / total)  # fmt: skip


def _mr_row(mr, name: str, model, T) -> dict:
    """The MR library's IKinBody (Newton, 20 steps) on the same poses from zero."""
    from ..kinematics import fk
    from ..spatial import inv_transform, log6

    n = len(T)
    M, Slist, _, _ = model.to_mr("ee")
    B = np.array([mr.Adjoint(mr.TransInv(M)) @ s for s in Slist.T]).T
    q0 = np.zeros(model.nq)
    times, ok = [], []
    for k in range(n):
        t0 = time.perf_counter()
        q, success = mr.IKinBody(B, M, T[k], q0, 1e-8, 1e-8)
        times.append(time.perf_counter() - t0)
        err = log6(inv_transform(fk(model, np.asarray(q, float), "ee")) @ T[k])
        ok.append(bool(success and np.linalg.norm(err) < 1e-7))
    med_m, p95_m, rate_m = _stats(times, ok)
    return _row("ik", name, "ik, 1 start + restarts", "modern_robotics",
                call=f"IKinBody on the same {n} poses (20 Newton steps)",
                median_s=med_m, p95_s=p95_m, success=rate_m, n_states=n,
                status="reference")  # fmt: skip
