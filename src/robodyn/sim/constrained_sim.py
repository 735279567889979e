"""``rd.simulate(..., constraints=...)``: motion under Pfaffian constraints ``A(q) v = 0``.

Each dynamics evaluation solves the KKT system of course notes 001 (eqs. 10.16-10.17)
with :func:`robodyn.constrained_forward_dynamics`::

    M vdot + h = tau + A^T lambda,   A vdot + dA/dt v + 2 alpha A v (+ beta^2 c) = 0

(Baumgarte stabilisation: a violation ``A v`` decays at the rate alpha instead of
drifting), integrated by the fixed-step methods of :mod:`robodyn.sim.integrators`. The
initial velocity is first projected onto ``A(q0) v = 0`` (the M-orthogonal projection
``P`` of eq. 10.19). The result carries ``constraint_violation`` (K + 1,), the largest
``|A(q) v|`` (and ``|c(q)|``) at each sample, and ``constraint_force`` (K + 1, k), the
multipliers lambda.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_positive
from ..constrained import (
    HolonomicConstraint,
    Pfaffian,
    constrained_forward_dynamics,
    constraint_projections,
)
from ._failure import _StepError, _stopped_at
from ._record import _check_room, _npz_out
from ._system import _check_controller, _name, _states, _steps, _torques
from .integrators import STEPS, Chart
from .result import Trajectory

__all__ = ["simulate_constrained", "as_constraints"]


class _Stack:
    """Several constraint objects as one: rows stacked."""

    def __init__(self, parts):
        self.parts = parts

    def matrix(self, q):
        return np.concatenate([p.matrix(q) for p in self.parts], axis=0)

    def bias(self, q, v, A=None):
        return np.concatenate([p.bias(q, v) for p in self.parts])

    def violation(self, q, v):
        return max(p.violation(q, v) for p in self.parts)


def _adapt(c):
    if isinstance(c, Pfaffian):
        return c
    if isinstance(c, HolonomicConstraint):
        return Pfaffian(c.jacobian, c.dJ_v, alpha=2.0, c=c.c, beta=2.0)
    if callable(c):
        return Pfaffian(c)
    raise ValueError(
        "constraints must be a robodyn.mobile.Pfaffian, a robodyn.HolonomicConstraint, a "
        f"callable A(q) -> (k, nv), or a list of them; got {type(c).__name__}"
    )


def as_constraints(constraints):
    """One object with ``matrix(q)``, ``bias(q, v)``, ``violation(q, v)``."""
    if isinstance(constraints, (list, tuple)):
        if not constraints:
            raise ValueError("constraints: an empty list")
        return _Stack([_adapt(c) for c in constraints])
    return _adapt(constraints)


def simulate_constrained(
    model, q0, v0, controller, *, duration, dt, integrator, control_dt, f_ext, friction,
    clip_torque, constraints, out=None, overwrite: bool = False, max_memory=None,
    progress: bool = False, threads=None, on_divergence: str = "raise",
) -> Trajectory:  # fmt: skip
    """The constrained branch of :func:`robodyn.simulate`: one rollout in Python, fixed
    step; ``out`` is written when the run ends (or stops), not streamed."""
    duration, dt, K = _checked_settings(controller, integrator, control_dt, f_ext, duration,
                                        dt, threads, on_divergence)  # fmt: skip
    con, q, v, k_rows = _consistent_start(model, q0, v0, constraints)
    out = _planned_output(model, K, k_rows, duration, dt, out, overwrite, max_memory)
    torque = _torques(model, controller, (model.nv,), clip_torque)
    meta = {
        "model": model.name, "integrator": integrator, "dt": dt, "duration": duration,
        "control_dt": None, "friction": bool(friction), "clip_torque": bool(clip_torque),
        "controller": _name(controller), "joint_names": list(model.joint_names),
        "rollouts": [], "constraints": k_rows,
        "n_eval": (K + 1) * (4 if integrator == "rk4" else 1),
    }  # fmt: skip
    first: list = []  # the first stage's (tau, lambda) of a step: the sample's
    rate = _constrained_rate(model, con, torque, friction, first)
    bar = _progress_bar(model, K) if progress else None
    try:
        res = _integrate(model, con, rate, first, q, v, K, dt, STEPS[integrator], meta, bar, out)
    finally:
        if bar is not None:
            bar.close()
    if out is not None:
        res.save(out, overwrite=True)  # out was checked before the run
    return res


def _checked_settings(controller, integrator, control_dt, f_ext, duration, dt, threads,
                      on_divergence) -> tuple[float, float, int]:  # fmt: skip
    """duration, dt and the K steps, after the settings a constrained run takes are checked
    and those it cannot honour refused, each named."""
    if integrator not in STEPS:
        raise ValueError(f"with constraints, integrator must be one of {tuple(STEPS)} "
                         f"(fixed step), got {integrator!r}")  # fmt: skip
    if f_ext is not None or control_dt is not None:
        raise ValueError("with constraints, f_ext and control_dt are not supported")
    if on_divergence not in ("raise", "mark"):
        raise ValueError(f"on_divergence must be 'raise' or 'mark', got {on_divergence!r}")
    if on_divergence == "mark":
        raise ValueError("constraints= runs one rollout in Python; on_divergence='mark' is not "
                         "supported with it (a failed run raises SimulationError carrying "
                         "err.partial)")  # fmt: skip
    duration, dt, K = _steps(duration, dt)
    _check_controller(controller)
    if int(getattr(controller, "state_size", 0) or 0):
        raise ValueError("with constraints, controllers with their own state are not supported")
    from ..kernels.call import threads as _threads

    _threads(threads)  # checked as everywhere (one rollout has no batch to share out)
    return duration, dt, K


def _planned_output(model, K: int, k_rows: int, duration, dt, out, overwrite, max_memory):
    """Refuse a run whose samples (with the k multipliers and the violation) do not fit in
    memory, or on disk with ``out``; then ``out`` as a ``.npz`` path checked free (or
    ``overwrite``), None without it."""
    if max_memory is not None:
        max_memory = as_positive(max_memory, "max_memory", " of bytes")
    _check_room(model, 1, K, k_rows + 1, duration, dt, out, max_memory)
    return _npz_out(out, overwrite)


def _progress_bar(model, K: int):
    from tqdm.auto import tqdm

    return tqdm(total=K, unit="step", desc=f"simulate {model.name}", leave=False)


def _consistent_start(model, q0, v0, constraints):
    """The constraints as one object, the initial state (one), and its velocity projected
    onto ``A(q0) v = 0`` (the M-orthogonal projection of eq. 10.19); and k, A's rows."""
    batch, q, v = _states(model, q0, v0)
    if batch:
        raise ValueError(f"with constraints, q0 must be one state (nq,), got a batch {batch}")
    con = as_constraints(constraints)
    q = np.array(q, dtype=float)
    A0 = con.matrix(q)
    if A0.ndim != 2 or A0.shape[1] != model.nv:
        raise ValueError(f"constraints: A(q) must have shape (k, {model.nv}), got {A0.shape}")
    from ..dynamics import mass_matrix

    P = constraint_projections(mass_matrix(model, q), A0)[1]
    v = P @ np.asarray(v, dtype=float)  # consistent initial velocity (eq. 10.19)
    return con, q, v, A0.shape[0]


def _constrained_rate(model, con, torque, friction: bool, first: list):
    """``rate(t, q, v, z) -> (vdot, None)`` of a step: the KKT solve (eqs. 10.16-10.17)
    under the controller's torque; the first stage's (tau, lambda) goes to ``first``."""

    def rate(t, q, v, z):
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            raise _StepError("the state became NaN or inf (try a smaller dt)")
        tau = torque(t, q, v, None)[0]
        try:
            A = con.matrix(q)
            a, lam = constrained_forward_dynamics(model, q, v, tau, A, con.bias(q, v, A),
                                                  friction=friction)  # fmt: skip
        except ValueError as exc:
            raise _StepError(f"the constrained dynamics failed: {exc}") from exc
        if not first:
            first.append((tau, lam))
        return a, None

    return rate


def _integrate(model, con, rate, first, q, v, K: int, dt: float, step, meta, bar,
               out) -> Trajectory:  # fmt: skip
    """Samples 0 .. K (each with its violation ``max |A v|`` and multipliers), one step of
    ``step`` between two, counted on ``bar``; a failed step or Ctrl-C raises with the
    samples before it, also saved to ``out`` (:func:`_stopped`)."""
    chart = Chart(model)
    k_rows = meta["constraints"]
    T = dt * np.arange(K + 1)
    Q, V = np.empty((K + 1, model.nq)), np.empty((K + 1, model.nv))
    Acc, TAU = np.empty((K + 1, model.nv)), np.empty((K + 1, model.nv))
    LAM, ERR = np.empty((K + 1, k_rows)), np.empty(K + 1)
    k = 0
    try:
        for k in range(K + 1):
            first.clear()
            if k < K:
                q1, v1, _, a = step(chart, rate, T[k], q, v, None, dt)
            else:
                a = rate(T[k], q, v, None)[0]
            Q[k], V[k], Acc[k], TAU[k], LAM[k] = q, v, a, first[0][0], first[0][1]
            ERR[k] = con.violation(q, v)
            if k < K:
                q, v = q1, v1
                if bar is not None:
                    bar.update(1)
    except (_StepError, KeyboardInterrupt) as exc:
        meta["complete"] = False
        part = Trajectory(T[:k], Q[:k], V[:k], Acc[:k], TAU[:k], meta=meta, model=model,
                          constraint_violation=ERR[:k], constraint_force=LAM[:k])  # fmt: skip
        _stopped_at(model, part, k, K, dt, exc, out, "constraints=...")
    meta["complete"] = True
    meta["max_constraint_violation"] = float(ERR.max())
    return Trajectory(T, Q, V, Acc, TAU, meta=meta, model=model,
                      constraint_violation=ERR, constraint_force=LAM)  # fmt: skip
