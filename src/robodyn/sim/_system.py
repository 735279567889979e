"""The system a run of :func:`robodyn.simulate` integrates, and its checked arguments.

The equations of motion (MR eq. 8.1 with joint friction)::

    M(q) qdd + C(q, qd) qd + g(q) + b qd + f_c sgn(qd) = tau(t, q, qd) + sum_i J_i^T F_ext,i

as three functions a step calls: :func:`_external` (the wrenches on the bodies: ``f_ext``
and an environment's contacts), :func:`_accelerations` (the forward dynamics through the
core's fast path) and :func:`_torques` (the controller's output, checked); and the
arguments every branch of ``simulate`` checks the same way (seconds, the number of steps,
the initial states, the controller).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._checks import as_positive
from ..kernels import core
from ..kernels._pack import FL_ARMATURE, FL_CHECK, FL_FEXT, FL_FRICTION, FL_GRAVITY, packed
from ._failure import _RolloutError, _StepError
from .integrators import Chart


# ------------------------------------------------------------------------ arguments
@dataclass
class _Run:
    """A run's checked settings: what each stage of :func:`robodyn.simulate` reads."""

    model: object
    controller: object
    integrator: str
    duration: float
    dt: float
    K: int  # steps: samples at 0, dt, ..., K dt = duration
    control_dt: float | None
    hold: int  # steps a torque is held (control_dt / dt); 0: a continuous controller
    f_ext: object
    environment: object  # a robodyn.sim.Environment, or None
    friction: bool
    clip_torque: bool
    rtol: float
    atol: float
    threads: int  # threads of the batch kernels (0: their default)
    mark: bool  # on_divergence="mark"
    batch: tuple = ()  # the batch shape of the rollouts; () for one
    meta: dict = field(default_factory=dict)
    out: Path | None = None  # where the finished trajectory goes
    folder: Path | None = None  # <out>.partial, where the samples stream
    check: object = None  # dt against the controller's gains (robodyn.sim.stability)


def _as_seconds(x, name: str) -> float:
    return as_positive(x, name, " of seconds")


def _steps(duration, dt) -> tuple[float, float, int]:
    """duration and dt in seconds, checked, and the K steps of dt that make duration."""
    duration = _as_seconds(duration, "duration")
    dt = _as_seconds(dt, "dt")
    K = round(duration / dt)
    if K < 1 or abs(K * dt - duration) > 1e-9 * duration:
        raise ValueError(f"duration ({duration:g} s) must be a whole number of steps dt ({dt:g} s)")
    return duration, dt, K


def _check_controller(controller) -> None:
    if controller is not None and not callable(controller):
        raise ValueError(f"controller must be callable as controller(t, q, v), got {controller!r}")


def _states(model, q0, v0):
    """q0 (..., nq) and v0 (..., nv) broadcast to one batch shape, as float arrays."""
    q0 = np.asarray(q0, dtype=float) if q0 is not None else None
    if q0 is None or q0.ndim == 0 or q0.shape[-1] != model.nq:
        got = None if q0 is None else q0.shape
        raise ValueError(f"q0 must have shape (..., {model.nq}) (nq of {model.name!r}), got {got}")
    v0 = np.zeros(model.nv) if v0 is None else np.asarray(v0, dtype=float)
    if v0.ndim == 0 or v0.shape[-1] != model.nv:
        raise ValueError(
            f"v0 must have shape (..., {model.nv}) (nv of {model.name!r}), got {v0.shape}"
        )
    for x, name in ((q0, "q0"), (v0, "v0")):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name} contains NaN or inf")
    try:
        batch = np.broadcast_shapes(q0.shape[:-1], v0.shape[:-1])
    except ValueError:
        raise ValueError(
            f"q0 {q0.shape} and v0 {v0.shape} have batch shapes that do not broadcast"
        ) from None
    q0 = np.broadcast_to(q0, (*batch, model.nq))
    v0 = np.broadcast_to(v0, (*batch, model.nv))
    if model.floating_base or not Chart(model).flat:
        from ..model.configuration import normalize

        q0 = normalize(model, q0)
    return batch, q0, v0


def _constant_wrenches(model, f_ext):
    """f_ext as a float array (..., nb, 6), its shape checked; None when it is None or a
    callable (whose output the core checks at each step)."""
    if f_ext is None or callable(f_ext):
        return None
    ext = np.asarray(f_ext, dtype=float)
    if ext.ndim < 2 or ext.shape[-2:] != (model.nb, 6):
        raise ValueError(f"f_ext must have shape (..., {model.nb}, 6) (one wrench per body), "
                         f"got {ext.shape}")  # fmt: skip
    return ext


def _wrenches_at(f_ext, t, q, v):
    """A callable ``f_ext(t, q, v)``: the user's code, so its error stops the run with what
    was simulated (as a controller's does), naming it."""
    try:
        return f_ext(t, q, v)
    except Exception as exc:
        raise _StepError(f"f_ext raised {type(exc).__name__}: {exc}", 2) from exc


def _name(controller) -> str:
    if controller is None:
        return "none"
    name = getattr(controller, "name", None) or getattr(controller, "__name__", None)
    return str(name or type(controller).__name__)


# ------------------------------------------------------------------------ the system
def _external(model, f_ext, environment):
    """``wrench(t, q, v) -> (fe, fc)``: the external wrenches on the bodies (..., nb, 6) --
    ``f_ext`` (constant or called) plus the environment's contacts -- and the contact forces
    (..., nc, 3), each None when there is none. A failed rollout's non-finite state is read
    as a neutral one here (its accelerations name it)."""
    ext = _constant_wrenches(model, f_ext)

    def user(t, q, v):
        if f_ext is None:
            return None
        return _wrenches_at(f_ext, t, q, v) if callable(f_ext) else ext

    if environment is None:
        return lambda t, q, v: (user(t, q, v), None)

    def wrench(t, q, v):
        ok = np.isfinite(q).all(-1) & np.isfinite(v).all(-1)
        if not np.all(ok):
            q, v = np.where(ok[..., None], q, 0.0), np.where(ok[..., None], v, 0.0)
            if model.nq != model.nv:
                from ..model.configuration import neutral

                q = np.where(ok[..., None], q, neutral(model))
        c = environment.contacts(q, v)
        fe = user(t, q, v)
        return (c.f_ext if fe is None else c.f_ext + fe), c.force

    return wrench


def _accelerations(model, friction: bool, threads: int):
    """``accel(t, q, v, tau, fe) -> qdd``: forward dynamics through the core's fast path,
    under the external wrenches ``fe`` (..., nb, 6) (None: none)."""
    pk = model._rd_packed or packed(model)
    entry = core.forward if pk.has_mimic else core.aba
    flags = FL_GRAVITY | FL_ARMATURE | FL_CHECK | (FL_FRICTION if friction else 0)
    P = pk.P

    def fallback(q, v, tau, fe):
        # a bad state or an unusual layout: the public path says which (or computes it)
        from ..dynamics import forward_dynamics

        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            raise _StepError(
                "the state became NaN or inf (the motion diverged; try a smaller dt or "
                "another integrator)"
            )
        if not np.all(np.isfinite(tau)):
            raise _StepError("the torque is NaN or inf", 3)
        try:
            return forward_dynamics(
                model, q, v, tau, fe, friction=friction, threads=threads or None
            )
        except ValueError as exc:
            raise _StepError(f"the dynamics failed: {exc}", 2) from exc

    def failed(q, v, tau, fe, res):
        # the core names the first failing state of a batch: that rollout failed
        if res.__class__ is tuple and q.ndim == 2:
            raise _RolloutError(int(res[1]), int(res[0]))
        return fallback(q, v, tau, fe)

    def accel(t, q, v, tau, fe=None):
        fl = flags if fe is None else flags | FL_FEXT
        a = entry(P, q, v, tau, fe, fl, 0.0, threads)
        return a if a.__class__ is np.ndarray else failed(q, v, tau, fe, a)

    return accel


def _torques(model, controller, shape, clip: bool):
    """``torque(t, q, v, z, fe=None) -> (tau, dz)`` with the controller's output checked. A
    controller with ``uses_wrench`` (a force sensor) is called with ``f_env=fe``, the
    external wrenches on the bodies (None: none)."""
    nv = model.nv
    zero = np.zeros(shape[:-1] + (nv,))
    lim = np.asarray(model.effort_limit, dtype=float)
    if clip and not np.all(np.isfinite(lim)):
        lim = np.where(np.isfinite(lim), lim, np.inf)
    motors = model.actuators if clip and _speed_limited(model) else None
    stateful = getattr(controller, "state_size", 0) > 0
    senses = bool(getattr(controller, "uses_wrench", False))
    name = _name(controller)

    def torque(t, q, v, z, fe=None):
        if controller is None:
            return zero, None
        tau, dz = _called(controller, stateful, name, t, q, v, z, fe if senses else None)
        tau = np.asarray(tau, dtype=float)
        if tau.shape != zero.shape:
            try:
                tau = np.broadcast_to(tau, zero.shape)
            except ValueError:
                raise _StepError(
                    f"the controller {name!r} returned shape {tau.shape}; expected "
                    f"{zero.shape} (one torque per joint velocity)",
                    3,
                ) from None
        if clip:  # the effort limit, or the motors' at this speed (Actuators.torque_limit)
            top = lim if motors is None else np.minimum(lim, motors.torque_limit(v))
            tau = np.clip(tau, -top, top)
        return tau, dz

    return torque


def _called(controller, stateful: bool, name: str, t, q, v, z, f_env=None):
    """``(out, dz)``: the controller's output and, with its own state, the state's rate
    (None without one); a controller with a force sensor (``uses_wrench``) is given the
    external wrenches ``f_env``; an exception from the user's code stops the run (a
    _StepError naming the controller), keeping what was simulated."""
    args = (t, q, v, z) if stateful else (t, q, v)
    try:
        out = controller(*args) if f_env is None else controller(*args, f_env=f_env)
    except Exception as exc:
        raise _StepError(f"the controller {name!r} raised {type(exc).__name__}: {exc}", 3) from exc
    return out if stateful else (out, None)


def _speed_limited(model) -> bool:
    """Whether the model's motors have a torque limit that falls with speed
    (:meth:`robodyn.model.actuators.Actuators.torque_limit`)."""
    return model.actuators is not None and model.actuators.speed_limited
