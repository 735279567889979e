"""A run on this machine: what :func:`robodyn.simulate` does once the constrained and the
Dask branches are set aside, and what each Dask task runs on its chunk of rollouts.

:func:`simulate_local` reads as its stages: :func:`_checked_run` (the settings, a bad one
named), :func:`_initial_state`, :func:`_plan_samples` (the room the samples need, ``meta``,
the files), :func:`_stability_check` (dt against the controller's gains) and
:func:`_integrate` (the compiled rollout or the Python loop).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .._checks import as_positive
from ..errors import SimulationInterrupted, SimulationWarning
from ._compiled import _c_setup, _run_compiled
from ._failure import _stopped
from ._loop import _ADAPTIVE, _run_loop
from ._record import _check_room, _npz_out, _partial_folder, _Record
from ._system import (
    _as_seconds,
    _check_controller,
    _constant_wrenches,
    _name,
    _Run,
    _states,
    _steps,
)
from .integrators import STEPS
from .result import Trajectory

__all__ = ["simulate_local", "INTEGRATORS"]

#: Names accepted by ``simulate(integrator=...)``: fixed steps, then scipy's adaptive ones.
INTEGRATORS = (*STEPS, *_ADAPTIVE)


def simulate_local(
    model, q0, v0=None, controller=None, *, duration, dt, integrator: str = "rk4",
    control_dt=None, f_ext=None, friction: bool = True, clip_torque: bool = False,
    rtol: float = 1e-8, atol: float = 1e-10, out=None, progress: bool = False,
    threads: int | None = None, on_divergence: str = "raise", overwrite: bool = False,
    max_memory: float | None = None, environment=None,
) -> Trajectory:  # fmt: skip
    """One rollout or a batch on this machine (the arguments of :func:`robodyn.simulate`)."""
    run = _checked_run(model, controller, integrator=integrator, on_divergence=on_divergence,
                       duration=duration, dt=dt, control_dt=control_dt, f_ext=f_ext,
                       friction=friction, clip_torque=clip_torque, rtol=rtol, atol=atol,
                       threads=threads, environment=environment)  # fmt: skip
    q, v, z = _initial_state(run, q0, v0)
    _plan_samples(run, z, out, overwrite, max_memory)
    run.check = _stability_check(run, q)
    return _integrate(run, q, v, z, progress)


def _checked_run(model, controller, *, integrator, on_divergence, duration, dt, control_dt,
                 f_ext, friction, clip_torque, rtol, atol, threads,
                 environment=None) -> _Run:  # fmt: skip
    """The run's settings, each checked before any work (a bad one is named)."""
    if integrator not in INTEGRATORS:
        raise ValueError(f"integrator must be one of {INTEGRATORS}, got {integrator!r}")
    if on_divergence not in ("raise", "mark"):
        raise ValueError(f"on_divergence must be 'raise' or 'mark', got {on_divergence!r}")
    if on_divergence == "mark" and integrator in _ADAPTIVE:
        raise ValueError("on_divergence='mark' needs a fixed-step integrator (rk4, "
                         f"semi_implicit_euler, euler), not {integrator!r}")  # fmt: skip
    duration, dt, K = _steps(duration, dt)
    control_dt, hold = _held_steps(control_dt, dt)
    _check_controller(controller)
    _constant_wrenches(model, f_ext)  # before <out>.partial is made (the loop checks again)
    _check_environment(model, environment)
    from ..kernels.call import threads as _threads

    return _Run(
        model=model, controller=controller, integrator=integrator, duration=duration, dt=dt,
        K=K, control_dt=control_dt, hold=hold, f_ext=f_ext, environment=environment,
        friction=friction,
        clip_torque=clip_torque, rtol=rtol, atol=atol,
        threads=0 if threads is None else _threads(threads), mark=on_divergence == "mark",
    )  # fmt: skip


def _check_environment(model, environment) -> None:
    """An environment of this model's, or None (a ValueError naming the argument)."""
    if environment is None:
        return
    from .environment import Environment

    if not isinstance(environment, Environment):
        raise ValueError(f"environment must be a rd.sim.Environment, got "
                         f"{type(environment).__name__}")  # fmt: skip
    em = environment.model
    layout = (model.nq, model.nv, model.frame_names)
    if em is not model and (em.nq, em.nv, em.frame_names) != layout:
        raise ValueError(f"environment is built for the model {em.name!r}, whose joints and "
                         f"frames are not those of {model.name!r}")  # fmt: skip


def _held_steps(control_dt, dt: float) -> tuple[float | None, int]:
    """control_dt in seconds, checked, and the steps of dt a torque is held (0: none)."""
    if control_dt is None:
        return None, 0
    control_dt = _as_seconds(control_dt, "control_dt")
    hold = round(control_dt / dt)
    if hold < 1 or abs(hold * dt - control_dt) > 1e-9 * control_dt:
        raise ValueError(f"control_dt ({control_dt:g} s) must be a multiple of dt ({dt:g} s)")
    return control_dt, hold


def _initial_state(run: _Run, q0, v0):
    """q, v and the controller's state z (zeros; None without one) as the loop runs them:
    (nq,) for one rollout, (N, nq) for a batch, whose shape goes to ``run.batch``."""
    model = run.model
    batch, q0, v0 = _states(model, q0, v0)
    run.batch = batch
    N = math.prod(batch)
    shape_q = (N, model.nq) if batch else (model.nq,)
    shape_v = (N, model.nv) if batch else (model.nv,)
    q = np.ascontiguousarray(q0.reshape(shape_q))
    v = np.ascontiguousarray(v0.reshape(shape_v))
    nz = int(getattr(run.controller, "state_size", 0) or 0)
    z = np.zeros(shape_v[:-1] + (nz,)) if nz else None
    return q, v, z


def _plan_samples(run: _Run, z, out, overwrite: bool, max_memory) -> None:
    """Refuse a run whose samples do not fit (in memory, or on disk with ``out``), then
    say what the run is (``run.meta``) and where it writes (``run.out``, ``run.folder``)."""
    if max_memory is not None:
        max_memory = as_positive(max_memory, "max_memory", " of bytes")
    nz = 0 if z is None else z.shape[-1]
    nc = 0 if run.environment is None else run.environment.nc
    _check_room(run.model, math.prod(run.batch), run.K, nz + 3 * nc, run.duration, run.dt,
                out, max_memory)  # fmt: skip
    run.meta = _meta(run)
    run.out, run.folder = _output(out, overwrite)


def _meta(run: _Run) -> dict:
    """The run's settings as a Trajectory's ``meta`` says them."""
    adaptive = run.integrator in _ADAPTIVE
    return {
        "model": run.model.name, "integrator": run.integrator, "dt": run.dt,
        "duration": run.duration, "control_dt": run.control_dt, "friction": bool(run.friction),
        "clip_torque": bool(run.clip_torque), "controller": _name(run.controller),
        "rtol": run.rtol if adaptive else None, "atol": run.atol if adaptive else None,
        "joint_names": list(run.model.joint_names), "rollouts": list(run.batch),
        **({} if run.environment is None else {"environment": run.environment.describe()}),
    }  # fmt: skip


def _output(out, overwrite: bool) -> tuple[Path | None, Path | None]:
    """``out`` as a ``.npz`` path checked free (or ``overwrite``), and the ``<out>.partial``
    folder the samples stream to; (None, None) without ``out``."""
    out = _npz_out(out, overwrite)
    if out is None:
        return None, None
    return out, _partial_folder(out, overwrite)


def _stability_check(run: _Run, q):
    """Will dt be stable for the controller's gains? The check of a fixed-step run with a
    continuous controller (else None); a SimulationWarning gives the step to use."""
    if run.integrator not in STEPS or run.hold:
        return None
    from .stability import stable_step

    check = stable_step(run.model, run.controller, q if not run.batch else q[0],
                        run.integrator, friction=run.friction)  # fmt: skip
    if check is not None and not check.stable(run.dt):
        import warnings

        why = f"simulate({run.model.name!r}): {check.advice(run.dt)}"
        warnings.warn(SimulationWarning(why), stacklevel=3)  # at simulate's caller
    return check


def _integrate(run: _Run, q, v, z, progress: bool) -> Trajectory:
    """The compiled rollout when the run can go there, else the Python loop, under a
    progress bar; a Ctrl-C before the first sample hands back an empty trajectory."""
    bar = _progress_bar(run) if progress else None
    try:
        if not run.batch and not run.hold and run.f_ext is None and run.environment is None \
                and z is None:  # fmt: skip
            setup = _c_setup(run.model, run.controller, run.integrator, run.friction,
                             run.clip_torque)  # fmt: skip
            if setup is not None:
                return _run_compiled(setup, run, q, v, bar)
        rec = _Record(run.K, q.shape, v.shape, None if z is None else z.shape, run.folder,
                      run.meta, 0 if run.environment is None else run.environment.nc)  # fmt: skip
        return _run_loop(run, rec, q, v, z, bar)
    except SimulationInterrupted:
        raise
    except KeyboardInterrupt as exc:  # before the first sample was recorded
        _stopped(run, 0, _empty_trajectory(run), None, exc)
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(run: _Run):
    from tqdm.auto import tqdm

    return tqdm(total=run.K, unit="step", desc=f"simulate {run.model.name}", leave=False)


def _empty_trajectory(run: _Run) -> Trajectory:
    """No samples (a run stopped before its first), shaped as the run's would be."""
    model, batch = run.model, run.batch
    return Trajectory(np.zeros(0), np.zeros((*batch, 0, model.nq)),
                      *(np.zeros((*batch, 0, model.nv)) for _ in range(3)),
                      meta={**run.meta, "complete": False}, model=model)  # fmt: skip
