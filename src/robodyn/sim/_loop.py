"""The Python loop of :func:`robodyn.simulate` over the batch kernels: a batch of rollouts, a
controller with its own state or a held torque, external wrenches, joints of several
dofs, and scipy's adaptive integrators."""

from __future__ import annotations

import numpy as np

from ._failure import (
    _WHY,
    _mark_failed,
    _rollout_name,
    _RolloutError,
    _Rollouts,
    _runaway,
    _status_of,
    _StepError,
    _stopped,
)
from ._system import _accelerations, _external, _torques
from .integrators import STEPS, Chart

_ADAPTIVE = {"rk45": "RK45", "dop853": "DOP853", "radau": "Radau"}


def _run_loop(run, rec, q, v, z, bar):
    """The Python loop over the batch kernels: a batch of rollouts, a controller with its
    own state or a held torque, external wrenches, joints of several dofs, adaptive
    integrators; samples into ``rec`` (in memory, or streamed to ``out``). A batch with
    ``on_divergence="mark"`` goes on without the rollouts that fail (``_Rollouts``)."""
    model = run.model
    accel = _accelerations(model, run.friction, run.threads)
    wrench = _external(model, run.f_ext, run.environment)
    torque = _torques(model, run.controller, v.shape, run.clip_torque)
    chart = Chart(model)
    marks = _Rollouts(model, q.shape[0]) if run.mark and run.batch else None
    at = {"k": 0}  # the step being taken, for a rollout that fails in it
    guarded = _guarded(accel, marks, at, run.batch)
    counter = {"eval": 0}
    try:
        if run.integrator in _ADAPTIVE:
            rate_of = _counted(torque, guarded, counter, wrench)
            _run_adaptive(run, chart, rate_of, rec, q, v, z, bar, torque, wrench)
        else:
            _run_steps(run, chart, rec, q, v, z, bar, (torque, wrench), guarded, marks, at)
            counter["eval"] = run.K * {"rk4": 4}.get(run.integrator, 1) + 1
    except (_StepError, KeyboardInterrupt) as exc:
        return _loop_stopped(run, rec, counter["eval"], exc)
    return _loop_finished(run, rec, marks, counter["eval"])


def _guarded(accel, marks, at, batch):
    """``guarded(t, q, v, tau, stage1, fe) -> a``: accel under the wrenches fe, where a
    rollout of a batch that fails is named (on_divergence="raise": a _StepError) or marked
    and frozen (``marks``), at step ``at["k"]`` (its last good sample is the one before
    when it fails at the first stage)."""

    def guarded(t, q, v, tau, stage1: bool, fe=None):
        while True:
            qs, vs = marks.freeze(q, v) if marks is not None else (q, v)
            ts = tau if marks is None or marks.alive.all() else np.where(
                marks.alive[:, None], tau, 0.0)  # fmt: skip
            try:
                a = accel(t, qs, vs, ts, fe)
                return a if marks is None or marks.alive.all() else np.where(
                    marks.alive[:, None], a, 0.0)  # fmt: skip
            except _RolloutError as exc:
                name = _rollout_name(exc.row, batch)
                if marks is None or not marks.alive[exc.row]:
                    raise _StepError(f"{name}: {_WHY[_status_of(exc.code)]}; pass "
                                     "on_divergence='mark' to keep the other rollouts "
                                     "going", _status_of(exc.code)) from None  # fmt: skip
                marks.fail(exc.row, exc.code, at["k"] - 1 if stage1 else at["k"])

    return guarded


def _counted(torque, guarded, counter, wrench):
    """``rate_of(t, q, v, z, tau_dz=None) -> (a, tau, dz, fc)`` of the adaptive integrators
    (``tau_dz``: a held torque; fc the contact forces), counting the evaluations in
    ``counter["eval"]``."""

    def rate_of(t, q, v, z, tau_dz=None):
        fe, fc = wrench(t, q, v)
        tau, dz = tau_dz if tau_dz is not None else torque(t, q, v, z, fe)
        counter["eval"] += 1
        return guarded(t, q, v, tau, True, fe), tau, dz, fc

    return rate_of


def _held_rate(held, first, guarded, wrench):
    """``rate(t, q, v, z) -> (a, 0)`` of a fixed step under the held torque ``held["tau"]``
    (the controller integrates its state itself); the first stage's torque, dz and contact
    forces, then its acceleration, go to ``first`` (the sample's)."""

    def rate(t, q, v, z):
        tau = held["tau"]
        fe, fc = wrench(t, q, v)
        stage1 = not first
        if stage1:
            first.append((tau, held["dz"], fc))
        a = guarded(t, q, v, tau, stage1, fe)
        if stage1:
            first.append(a)
        return a, 0.0

    return rate


def _continuous_rate(torque, first, guarded, wrench):
    """``rate(t, q, v, z) -> (a, dz)`` of a fixed step, the wrenches and the controller
    evaluated at every stage; the first stage's torque, dz and contact forces, then its
    acceleration, go to ``first``."""

    def rate(t, q, v, z):
        fe, fc = wrench(t, q, v)
        tau, dz = torque(t, q, v, z, fe)
        stage1 = not first
        if stage1:
            first.append((tau, dz, fc))
        a = guarded(t, q, v, tau, stage1, fe)
        if stage1:
            first.append(a)  # the sample's acceleration
        return a, dz

    return rate


def _run_steps(run, chart, rec, q, v, z, bar, system, guarded, marks, at) -> None:
    """The fixed-step integrators: step k goes from sample k, whose torque, acceleration and
    contact forces are the step's first stage's; a held torque is the controller's every
    ``hold`` steps. A batch whose rollouts all failed stops early. ``system``: the torque
    and wrench functions (_torques, _external)."""
    K, dt, hold = run.K, run.dt, run.hold
    torque, wrench = system
    step = STEPS[run.integrator]
    first = []  # the first stage's torque, dz and contact forces of a step: the sample's
    held = {"tau": None, "dz": None}
    rate = (_held_rate(held, first, guarded, wrench) if hold
            else _continuous_rate(torque, first, guarded, wrench))  # fmt: skip
    every = max(1, min(K, 2000))
    for k in range(K):
        t = k * dt
        at["k"] = k
        if marks is not None:
            q, v = marks.freeze(q, v)
        if hold and k % hold == 0:
            held["tau"], held["dz"] = torque(t, q, v, z, wrench(t, q, v)[0])
        first.clear()
        try:
            q1, v1, z1, a = step(chart, rate, t, q, v, z, dt)
        except _StepError:  # at a later stage: sample k itself is whole, keep it
            if len(first) == 2:
                rec.put(k, t, q, v, first[1], first[0][0], z, first[0][2])
            raise
        if hold and z is not None:  # a digital controller integrates its state itself
            z1 = z + hold * dt * held["dz"] if (k + 1) % hold == 0 else z
        rec.put(k, t, q, v, a, first[0][0], z, first[0][2])
        q, v, z = q1, v1, z1  # (a NaN or inf is caught by the next evaluation)
        if bar is not None:
            bar.update(1)
        if rec.folder is not None and (k + 1) % every == 0:
            rec.mark(k + 1)
        if marks is not None and not marks.alive.any():
            return  # every rollout failed: nothing left to integrate
    at["k"] = K
    if marks is not None:
        q, v = marks.freeze(q, v)
    # the last sample: its torque, acceleration and contact forces at the final state
    fe, fc = wrench(K * dt, q, v)
    if hold and K % hold == 0:
        held["tau"], held["dz"] = torque(K * dt, q, v, z, fe)
    tau = held["tau"] if hold else torque(K * dt, q, v, z, fe)[0]
    rec.put(K, K * dt, q, v, guarded(K * dt, q, v, tau, True, fe), tau, z, fc)


def _loop_stopped(run, rec, n_eval, exc):
    """A step failed (a _StepError) or Ctrl-C: raise with the samples before it, or, for one
    rollout with on_divergence="mark", hand back its samples, then NaN, and why it stopped."""
    model, K, dt, meta = run.model, run.K, run.dt, run.meta
    n = rec.done
    meta_p = {**meta, "complete": False, "n_eval": n_eval}
    part = rec.trajectory(n, run.batch, model, meta_p)
    if isinstance(exc, KeyboardInterrupt):
        _stopped(run, n, part, None, exc)
    if not (run.mark and not run.batch):
        _stopped(run, n, part, str(exc), exc)
    # one rollout, on_divergence="mark": its samples, then NaN, and why it stopped
    marks = _Rollouts(model, 1)
    marks.fail(0, 11, n - 1)
    marks.status[0] = exc.status
    for name in ("q", "v", "a", "tau", "z", "contact_force"):
        if name in rec.x:
            rec.x[name][n:] = np.nan
    rec.x["t"][:] = dt * np.arange(K + 1)
    if marks.status[0] == 2 and _runaway(model, part):
        marks.status[0] = 1
    meta.update(complete=True, n_eval=n_eval, failed_rollouts=1)
    res = rec.trajectory(K + 1, run.batch, model, meta)
    res.status = np.asarray(marks.status[0])
    res.t_end = np.asarray((n - 1) * dt if n > 0 else np.nan)
    if run.out is not None:
        rec.finish(res, run.out)
    return res


def _loop_finished(run, rec, marks, n_eval):
    """The run's Trajectory (written to ``out``); with marks, the failed rollouts' samples
    after their last good one NaN, their ``status`` and ``t_end``."""
    K, dt, meta, batch = run.K, run.dt, run.meta, run.batch
    meta["complete"] = True
    meta["n_eval"] = n_eval
    if marks is not None:
        _mark_failed(rec, marks, K, dt, run.model, meta)
    res = rec.trajectory(K + 1, batch, run.model, meta)
    if marks is not None:
        res.status = marks.status.reshape(batch)
        last = np.where(marks.alive, K, marks.last)
        res.t_end = np.where(last >= 0, last * dt, np.nan).reshape(batch)
    if run.out is not None:
        rec.finish(res, run.out)
    return res


def _run_adaptive(run, chart, rate_of, rec, q, v, z, bar, torque, wrench) -> None:
    """scipy's solve_ivp over pieces of the run, sampled at t_k.

    A piece is ``hold`` steps with a held torque (zero-order hold), one step for a floating
    base (the chart ``q_k (+) delta`` is reset at every sample), else up to 200 steps; each
    piece restarts the error control from the piece's first sample."""
    from scipy.integrate import solve_ivp

    method, K, dt, hold = _ADAPTIVE[run.integrator], run.K, run.dt, run.hold
    shape_v = v.shape
    nz = 0 if z is None else z.shape[-1]
    lead = shape_v[:-1]
    n_v = v.size
    n_z = 0 if z is None else z.size
    piece = hold if hold else (1 if not chart.flat else 200)
    k = 0
    while k < K:
        k1 = min(K, k + piece)
        t0 = k * dt
        q_chart = q
        held = torque(t0, q, v, z, wrench(t0, q, v)[0]) if hold else None

        def fun(t, y, q_chart=q_chart, held=held):
            y = np.ascontiguousarray(y)
            d = y[:n_v].reshape(shape_v)
            vv = y[n_v : 2 * n_v].reshape(shape_v)
            zz = y[2 * n_v :].reshape(lead + (nz,)) if n_z else None
            qq = chart.plus(q_chart, d)
            a, tau, dz, _ = rate_of(t, qq, vv, zz, held)
            parts = [chart.rate(d, vv).ravel(), np.asarray(a).ravel()]
            if n_z:
                parts.append(np.broadcast_to(0.0 if (dz is None or held is not None) else dz,
                                             zz.shape).ravel())  # fmt: skip
            return np.concatenate(parts)

        y0 = np.concatenate([np.zeros(n_v), v.ravel()] + ([z.ravel()] if n_z else []))
        ts = dt * np.arange(k, k1 + 1)
        ts[-1] = min(ts[-1], K * dt)
        sol = solve_ivp(fun, (ts[0], ts[-1]), y0, method=method, t_eval=ts, rtol=run.rtol,
                        atol=run.atol)  # fmt: skip
        if sol.status != 0 or sol.y.shape[1] != len(ts):
            raise _StepError(f"scipy's {method} failed: {sol.message}")
        for j in range(len(ts) - 1):  # samples k .. k1 - 1
            y = np.ascontiguousarray(sol.y[:, j])
            qq = chart.plus(q_chart, y[:n_v].reshape(shape_v))
            vv = y[n_v : 2 * n_v].reshape(shape_v)
            zz = y[2 * n_v :].reshape(lead + (nz,)) if n_z else None
            a, tau, _, fc = rate_of(ts[j], qq, vv, zz, held)
            rec.put(k + j, ts[j], qq, vv, a, tau, zz, fc)
        y = np.ascontiguousarray(sol.y[:, -1])
        q = chart.plus(q_chart, y[:n_v].reshape(shape_v))
        v = y[n_v : 2 * n_v].reshape(shape_v).copy()
        if n_z:
            zn = y[2 * n_v :].reshape(lead + (nz,))
            z = zn if held is None else z + (k1 - k) * dt * np.broadcast_to(held[1], z.shape)
        if not (np.isfinite(q).all() and np.isfinite(v).all()):
            raise _StepError("the state became NaN or inf")
        if bar is not None:
            bar.update(k1 - k)
        k = k1
        if rec.folder is not None:
            rec.mark(k)
    t = K * dt
    a, tau, _, fc = rate_of(t, q, v, z, torque(t, q, v, z, wrench(t, q, v)[0]) if hold else None)
    rec.put(K, t, q, v, a, tau, z, fc)
