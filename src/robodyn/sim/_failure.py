"""How a run of :func:`robodyn.simulate`, or one rollout of a batch, fails, and what is kept.

A step that fails raises :class:`_StepError` (a rollout of a batch the core names:
:class:`_RolloutError`); :func:`_stopped` turns it, or a Ctrl-C, into
:class:`~robodyn.SimulationError` / :class:`~robodyn.SimulationInterrupted` carrying the
samples before it (a motion that ran away is said so, :func:`_runaway`). With
``on_divergence="mark"`` the other rollouts go on (:class:`_Rollouts`) and the failed ones'
samples after their last good one are NaN (:func:`_mark_failed`).
"""

from __future__ import annotations

import shutil

import numpy as np

from ..errors import SimulationError, SimulationInterrupted


class _StepError(Exception):
    """A step failed; the message says why (turned into SimulationError with the partial),
    ``status`` the Trajectory.STATUS code (1 diverged, 2 dynamics failed, 3 controller)."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


class _RolloutError(Exception):
    """Rollout ``row`` of a batch failed in the core with error ``code`` (rd.h's codes)."""

    def __init__(self, row: int, code: int):
        super().__init__(row, code)
        self.row, self.code = row, code


def _status_of(code: int) -> int:
    """Trajectory.STATUS code of a core error: the state (11 q, 12 v, 21 a zero quaternion)
    -> 1 diverged; the torque or the wrenches (13, 14) -> 3 controller failed; a singular
    articulated inertia or M (1000 + i, 2000 + k) -> 2 dynamics failed."""
    if code in (13, 14):
        return 3
    return 2 if code >= 1000 else 1


_WHY = {1: "the state became NaN or inf", 2: "the dynamics failed (a singular inertia)",
        3: "the torque is NaN or inf"}  # fmt: skip


class _Rollouts:
    """Which rollouts of a batch are still running (``on_divergence="mark"``): a rollout
    that fails is frozen at a safe state (the neutral configuration at rest, no torque) so
    the batch calls and the controller keep finite inputs, and its samples after its last
    good one are NaN at the end."""

    def __init__(self, model, n: int):
        from ..model.configuration import neutral

        self.alive = np.ones(n, dtype=bool)
        self.status = np.zeros(n, dtype=np.int64)
        self.last = np.full(n, -1, dtype=np.int64)  # -1: alive (set when it fails)
        self.q_safe = neutral(model)

    def fail(self, row: int, code: int, last: int) -> None:
        self.alive[row] = False
        self.status[row] = _status_of(code)
        self.last[row] = last

    def freeze(self, q, v):
        """q, v with the failed rows at the safe state (copies when any failed)."""
        if self.alive.all():
            return q, v
        dead = ~self.alive
        q, v = q.copy(), v.copy()
        q[dead], v[dead] = self.q_safe, 0.0
        return q, v


def _rollout_name(row: int, batch) -> str:
    """ "rollout 3 (of 4)" or "rollout (1, 2) (of (2, 3))" for a batch of several axes."""
    n = int(np.prod(batch))
    idx = row if len(batch) <= 1 else tuple(int(i) for i in np.unravel_index(row, batch))
    return f"rollout {idx} (of {n if len(batch) <= 1 else tuple(batch)})"


def _mark_failed(rec, marks, K: int, dt: float, model, meta) -> None:
    """NaN after each failed rollout's last good sample; a rollout whose dynamics failed
    while its velocity ran away is said to have diverged; meta counts them."""
    rec.x["t"][:] = dt * np.arange(K + 1)  # (a run whose rollouts all failed stopped early)
    for r in np.flatnonzero(~marks.alive):
        last = int(marks.last[r])
        for name in ("q", "v", "a", "tau", "z"):
            if name in rec.x:
                rec.x[name][last + 1 :, r] = np.nan
        if marks.status[r] == 2 and last >= 0:
            from types import SimpleNamespace

            v = np.asarray(rec.x["v"][: last + 1, r])
            if _runaway(model, SimpleNamespace(v=v, t=dt * np.arange(last + 1))):
                marks.status[r] = 1
    meta["failed_rollouts"] = int((~marks.alive).sum())


def _runaway(model, part) -> str | None:
    """How the motion ran away, when the last samples show it diverging: the velocity of
    one joint growing by 3x or more at each of its last 3 samples to over 100 (rad/s or
    m/s), or past 1e5 however it got there. None otherwise."""
    v = np.asarray(part.v)
    if v.ndim < 2 or v.shape[-2] < 2:
        return None
    if v.ndim > 2:  # a batch: the rollout whose last sample is fastest
        v = v.reshape(-1, *v.shape[-2:])
        v = v[int(np.argmax(np.abs(v[:, -1]).max(axis=-1)))]
    if len(v) < 2:
        return None
    speed = np.abs(v)
    j = int(np.argmax(speed[-1]))
    s = speed[-4:, j]
    growing = len(s) == 4 and np.all(s[1:] >= 3.0 * s[:-1]) and s[-1] > 100.0
    if not (growing or s[-1] > 1e5):
        return None
    joint = model.joint_names_all[int(model.dof_body[j])]
    t = np.asarray(part.t)
    return (
        f"the motion diverged: the velocity of joint {joint!r} ran away, |v| {s[0]:.3g} -> "
        f"{s[-1]:.3g} from t = {t[-len(s)]:g} s to {t[-1]:g} s"
    )


def _stopped(run, n: int, part, why: str | None, exc):
    """Raise for a run (a :class:`~robodyn.sim._system._Run`) that stopped after n samples:
    SimulationInterrupted (Ctrl-C: why is None) or SimulationError, each carrying the
    partial trajectory (also saved to out)."""
    model, K, dt, out, check = run.model, run.K, run.dt, run.out, run.check
    saved = out is not None and n > 0
    if saved:
        part.save(out, overwrite=True)  # out was checked when the run began
    if out is not None:
        shutil.rmtree(run.folder, ignore_errors=True)
    where = f"err.partial holds the {n} samples before it" + (
        f" (also saved to {out})" if saved else ""
    )
    head = f"simulate({model.name!r}) stopped at step {n} (t = {n * dt:g} s) of {K}"
    if why is None:
        raise SimulationInterrupted(f"{head}: interrupted (Ctrl-C). {where}", partial=part) from exc
    runaway = _runaway(model, part)
    if runaway is not None:
        advice = (
            check.advice(dt)
            if check is not None and not check.stable(dt)
            else "try a smaller dt, lower gains or another integrator"
        )
        why = f"{runaway}; {advice}"
    raise SimulationError(f"{head}: {why}. {where}", partial=part, reason=f"{head}: {why}") from exc


def _stopped_at(model, part, k: int, K: int, dt: float, exc, out, how: str):
    """Raise for a run of one of simulate's Python roads outside the batch loop (``how``:
    ``"constraints=..."``, ``"input='velocity'"``) stopped at step k, carrying its k samples
    ``part`` (also saved to ``out``, when there are any): Ctrl-C is SimulationInterrupted (a
    KeyboardInterrupt, as on the other roads), a failed step SimulationError."""
    saved = out is not None and k > 0
    if saved:
        part.save(out, overwrite=True)  # out was checked before the run
    head = f"simulate({model.name!r}, {how}) stopped at step {k} (t = {k * dt:g} s) of {K}"
    where = f"err.partial holds the {k} samples before it" + (
        f" (also saved to {out})" if saved else ""
    )
    if isinstance(exc, KeyboardInterrupt):
        raise SimulationInterrupted(f"{head}: interrupted (Ctrl-C). {where}", partial=part) from exc
    raise SimulationError(f"{head}: {exc}. {where}", partial=part) from exc
