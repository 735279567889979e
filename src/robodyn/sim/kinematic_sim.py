"""``rd.simulate(..., input="velocity")``: a kinematic robot, ``q_dot = v_cmd`` (MR sec. 11.3).

The controller returns joint velocities ``v_cmd(t, q)`` (nv,) and the robot moves at them
exactly, as a robot whose drives track velocity commands perfectly: no dynamics, no
torques. The configuration moves on its manifold (:func:`robodyn.integrate`, a floating
base on SE(3)) and a controller's own state z (the integral of a PI law) is integrated with
it::

    q_dot = v_cmd(t, q, z),   z_dot = dz(t, q, z)

by explicit Euler (``q_1 = q (+) h v_cmd``) or RK4 in the chart at q (the stages' rates
``J_r(delta)^-1 v_cmd``, as :mod:`robodyn.sim.integrators` does for the dynamics); with
``control_dt`` a command held over several steps moves q exactly (``q (+) h v``). Each
sample records ``v`` = the command there, ``a`` its rate by central differences
(:func:`numpy.gradient`, one-sided at the ends) and ``tau`` NaN (no torque is computed).

This road is Python over numpy (the controllers' batch calls); the compiled rollout of
:func:`robodyn.simulate` integrates the dynamics only.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from .._checks import as_positive
from ._failure import _StepError, _stopped_at
from ._record import _check_room, _npz_out
from ._system import _called, _check_controller, _name, _states, _steps
from .integrators import Chart
from .result import Trajectory

__all__ = ["simulate_kinematic", "KINEMATIC_INTEGRATORS"]

#: integrators of ``simulate(..., input="velocity")``
KINEMATIC_INTEGRATORS = ("euler", "rk4")
_HOW = "input='velocity'"


def simulate_kinematic(
    model, q0, v0=None, controller=None, *, duration, dt, integrator="rk4", control_dt=None,
    f_ext=None, friction=True, clip_torque=False, out=None, overwrite=False, max_memory=None,
    progress=False, threads=None, on_divergence="raise",
) -> Trajectory:  # fmt: skip
    """The velocity-input branch of :func:`robodyn.simulate` (its arguments; ``friction``
    has no effect on a kinematic robot, those it cannot honour are refused, named)."""
    duration, dt, K, hold = _checked_settings(
        controller, integrator, control_dt, f_ext, clip_torque, duration, dt, threads,
        on_divergence,
    )  # fmt: skip
    batch, q0, v0 = _states(model, q0, v0)
    N = int(np.prod(batch)) if batch else 1
    q = np.ascontiguousarray(q0.reshape((N, model.nq) if batch else (model.nq,)))
    v = np.ascontiguousarray(v0.reshape((N, model.nv) if batch else (model.nv,)))
    nz = int(getattr(controller, "state_size", 0) or 0)
    z = np.zeros(v.shape[:-1] + (nz,)) if nz else None
    if max_memory is not None:
        max_memory = as_positive(max_memory, "max_memory", " of bytes")
    _check_room(model, N, K, nz, duration, dt, out, max_memory)
    out = _npz_out(out, overwrite)
    meta = {
        "model": model.name, "integrator": integrator, "dt": dt, "duration": duration,
        "control_dt": control_dt, "friction": bool(friction), "clip_torque": False,
        "controller": _name(controller), "joint_names": list(model.joint_names),
        "rollouts": list(batch), "input": "velocity",
        "n_eval": K // hold + 1 if hold else (K + 1 if integrator == "euler" else 4 * K + 1),
    }  # fmt: skip
    run = _KinematicRun(model, _commands(model, controller, v.shape), integrator, dt, K, hold)
    with _progress_bar(model, K) if progress else nullcontext() as bar:
        res = run.integrate(q, v, z, batch, meta, bar, out)
    if out is not None:
        res.save(out, overwrite=True)  # out was checked before the run
    return res


def _checked_settings(controller, integrator, control_dt, f_ext, clip_torque, duration, dt,
                      threads, on_divergence):  # fmt: skip
    """duration, dt, the K steps and the steps a command is held (0: none), after the
    settings a kinematic run takes are checked and those it cannot honour refused."""
    if integrator not in KINEMATIC_INTEGRATORS:
        raise ValueError(f"with input='velocity', integrator must be one of "
                         f"{KINEMATIC_INTEGRATORS}, got {integrator!r}")  # fmt: skip
    if f_ext is not None:
        raise ValueError("with input='velocity' the robot is kinematic: f_ext (wrenches) has "
                         "nothing to act on; simulate the dynamics (input='torque')")  # fmt: skip
    if clip_torque:
        raise ValueError("with input='velocity' there is no torque to clip (clip_torque=True)")
    if on_divergence != "raise":
        raise ValueError(f"with input='velocity', on_divergence must be 'raise' (a failed "
                         "run raises SimulationError carrying err.partial), got "
                         f"{on_divergence!r}")  # fmt: skip
    duration, dt, K = _steps(duration, dt)
    _check_controller(controller)
    if controller is None:
        raise ValueError("input='velocity' needs a controller returning joint velocities, "
                         "e.g. rd.control.KinematicJoint or KinematicTaskSpace")  # fmt: skip
    if getattr(controller, "input", None) == "torque":
        raise ValueError(f"the controller {_name(controller)!r} returns joint torques "
                         "(input='torque'); with input='velocity' give one returning joint "
                         "velocities (rd.control.KinematicJoint, KinematicTaskSpace)")  # fmt: skip
    hold = 0
    if control_dt is not None:
        control_dt = as_positive(control_dt, "control_dt", " of seconds")
        hold = round(control_dt / dt)
        if hold < 1 or abs(hold * dt - control_dt) > 1e-9 * control_dt:
            raise ValueError(f"control_dt ({control_dt:g} s) must be a multiple of dt ({dt:g} s)")
    from ..kernels.call import threads as _threads

    _threads(threads)  # checked as everywhere (numpy runs the batch)
    return duration, dt, K, hold


def _progress_bar(model, K: int):
    from tqdm.auto import tqdm

    return tqdm(total=K, unit="step", desc=f"simulate {model.name} (velocity)", leave=False)


def _commands(model, controller, shape_v):
    """``command(t, q, v, z) -> (v_cmd, dz)`` with the controller's output checked: a
    raised error, a wrong shape or a non-finite command stops the run (named)."""
    stateful = int(getattr(controller, "state_size", 0) or 0) > 0
    name = _name(controller)

    def command(t, q, v, z):
        u, dz = _called(controller, stateful, name, t, q, v, z)
        u = np.asarray(u, dtype=float)
        if u.shape != shape_v:
            try:
                u = np.broadcast_to(u, shape_v)
            except ValueError:
                why = f"returned shape {u.shape}; expected {shape_v} (one velocity per dof)"
                raise _StepError(f"the controller {name!r} {why}", 3) from None
        if not np.all(np.isfinite(u)):
            raise _StepError(f"the controller {name!r} returned a NaN or inf velocity", 3)
        return u, dz

    return command


def _plus(z, h: float, dz):
    """``z + h dz`` of the controller's state (None without one)."""
    return None if z is None else z + h * np.asarray(dz, dtype=float)


class _KinematicRun:
    """The fixed-step integration of ``q_dot = v_cmd``, ``z_dot = dz`` and its samples."""

    def __init__(self, model, command, integrator: str, dt: float, K: int, hold: int):
        self.model, self.command, self.chart = model, command, Chart(model)
        self.integrator, self.dt, self.K, self.hold = integrator, dt, K, hold

    def step(self, t, q, v, z):
        """One step of h = dt from (q, z): ``(q_1, z_1, v_cmd at the step's start)``."""
        h, chart, cmd = self.dt, self.chart, self.command
        u1, dz1 = cmd(t, q, v, z)
        if self.integrator == "euler":  # q_1 = q (+) h v_cmd
            return chart.plus(q, h * u1), _plus(z, h, dz1), u1
        # RK4 in the chart at q: stage i at q (+) delta_i, its chart rate J_r(delta_i)^-1 u_i
        d2 = 0.5 * h * u1
        u2, dz2 = cmd(t + 0.5 * h, chart.plus(q, d2), v, _plus(z, 0.5 * h, dz1))
        r2 = chart.rate(d2, u2)
        d3 = 0.5 * h * r2
        u3, dz3 = cmd(t + 0.5 * h, chart.plus(q, d3), v, _plus(z, 0.5 * h, dz2))
        r3 = chart.rate(d3, u3)
        d4 = h * r3
        u4, dz4 = cmd(t + h, chart.plus(q, d4), v, _plus(z, h, dz3))
        r4 = chart.rate(d4, u4)
        q1 = chart.plus(q, h / 6.0 * (u1 + 2.0 * (r2 + r3) + r4))
        dz = None if z is None else (dz1 + 2.0 * (np.asarray(dz2) + dz3) + dz4) / 6.0
        return q1, _plus(z, h, dz), u1

    def integrate(self, q, v, z, batch, meta, bar, out) -> Trajectory:
        """Samples 0 .. K (time-major), one step between two; a held command (``hold``
        steps) moves q exactly. A failed step or Ctrl-C raises with the samples before."""
        K, dt, hold = self.K, self.dt, self.hold
        T = dt * np.arange(K + 1)
        Q, V = np.empty((K + 1, *q.shape)), np.empty((K + 1, *v.shape))
        Z = None if z is None else np.empty((K + 1, *z.shape))
        held, k = None, 0
        try:
            for k in range(K + 1):
                if not (np.all(np.isfinite(q)) and (z is None or np.all(np.isfinite(z)))):
                    raise _StepError("the state became NaN or inf (the motion diverged; try "
                                     "a smaller dt or lower gains)")  # fmt: skip
                if hold and (k % hold == 0 or held is None):
                    held = self.command(T[k], q, v, z)
                if k == K:
                    u = held[0] if hold else self.command(T[k], q, v, z)[0]
                elif hold:  # zero-order hold: q (+) h u exactly, z + h dz
                    u = held[0]
                    q1, z1 = self.chart.plus(q, dt * u), _plus(z, dt, held[1])
                else:
                    q1, z1, u = self.step(T[k], q, v, z)
                Q[k], V[k] = q, u
                if Z is not None:
                    Z[k] = z
                if k < K:
                    q, v, z = q1, u, z1
                    if bar is not None:
                        bar.update(1)
        except (_StepError, KeyboardInterrupt) as exc:
            meta["complete"] = False
            part = _trajectory(self.model, T[:k], Q[:k], V[:k], None if Z is None else Z[:k],
                               batch, meta)  # fmt: skip
            _stopped_at(self.model, part, k, K, dt, exc, out, _HOW)
        meta["complete"] = True
        return _trajectory(self.model, T, Q, V, Z, batch, meta)


def _trajectory(model, T, Q, V, Z, batch, meta) -> Trajectory:
    """The samples (time-major) as a Trajectory: batch axes first, ``a`` the commands' rate
    by central differences, ``tau`` NaN (a kinematic robot has no torques)."""
    n = len(T)
    A = np.gradient(V, T, axis=0, edge_order=1) if n >= 2 else np.full_like(V, np.nan)

    def arr(x):
        if x is None:
            return None
        x = np.moveaxis(x, 0, -2)
        return x.reshape((*batch, n, x.shape[-1]))

    tau = np.full(arr(V).shape, np.nan)
    return Trajectory(T, arr(Q), arr(V), arr(A), tau, z=arr(Z), meta=meta, model=model)
