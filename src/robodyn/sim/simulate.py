"""``rd.simulate``: integrate the equations of motion of a model under a controller.

The system is (MR eq. 8.1 with joint friction)::

    M(q) qdd + C(q, qd) qd + g(q) + b qd + f_c sgn(qd) = tau(t, q, qd) + sum_i J_i^T F_ext,i

integrated from ``(q0, v0)`` for ``duration`` seconds; ``qdd`` comes from the articulated
body algorithm in the compiled core (a batch of rollouts is one batch call per stage).
There is no contact model: bodies pass through each other and through the ground (use
MuJoCo for contact-rich simulation).

:func:`simulate` reads as its stages: the two branches taken first (Pfaffian constraints,
:mod:`robodyn.sim.constrained_sim`; rollouts on Dask,
:func:`robodyn.distributed.simulate_chunks`), then :func:`_checked_run` (the settings, a
bad one named), :func:`_initial_state`, :func:`_plan_samples` (the room the samples need,
``meta``, the files), :func:`_stability_check` (dt against the controller's gains) and
:func:`_integrate`. The pieces live below this module: ``_system`` (the arguments, the
accelerations and torques a step evaluates), ``_record`` (the samples, in memory or
streamed to ``out``), ``_compiled`` (one rollout in C), ``_loop`` (the Python loop:
batches, held torques, wrenches, the adaptive integrators) and ``_failure`` (a failed
step or rollout, and the partial trajectory kept).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .._checks import as_positive
from ..errors import SimulationInterrupted, SimulationWarning
from ..kernels.lazy import is_dask
from ._compiled import _c_setup, _run_compiled
from ._failure import _stopped
from ._loop import _ADAPTIVE, _run_loop
from ._record import _check_room, _partial_folder, _Record
from ._system import _as_seconds, _check_controller, _name, _Run, _states, _steps
from .integrators import STEPS
from .result import Trajectory

__all__ = ["simulate", "INTEGRATORS"]

#: Names accepted by ``simulate(integrator=...)``: fixed steps, then scipy's adaptive ones.
INTEGRATORS = (*STEPS, *_ADAPTIVE)


# ------------------------------------------------------------------------ simulate
def simulate(
    model,
    q0,
    v0=None,
    controller=None,
    *,
    duration,
    dt,
    integrator: str = "rk4",
    control_dt=None,
    f_ext=None,
    friction: bool = True,
    clip_torque: bool = False,
    rtol: float = 1e-8,
    atol: float = 1e-10,
    out=None,
    progress: bool = False,
    threads: int | None = None,
    constraints=None,
    client=None,
    resume: bool = False,
    on_divergence: str = "raise",
    overwrite: bool = False,
    max_memory: float | None = None,
) -> Trajectory:
    """Simulate a model from ``(q0, v0)`` under a controller (MR ch. 8 and 11).

    Parameters
    ----------
    model : Model
    q0 : array_like, shape (..., nq)
        Initial configuration; leading dimensions make a batch of rollouts, all run
        together on the batch kernels.
    v0 : array_like, shape (..., nv), optional
        Initial velocity (default zero); broadcasts against q0.
    controller : callable, optional
        ``controller(t, q, v) -> tau`` (shapes as q and v: a batch gets a batch), e.g. an
        object of :mod:`robodyn.control`; controllers with their own state (``state_size``
        > 0, the integral of a PID) are called ``controller(t, q, v, z) -> (tau, dz)`` and
        their state is integrated with the robot's. None: no torque (free motion).
    duration, dt : float
        Seconds simulated and the sample step: ``t = 0, dt, ..., duration`` (K + 1
        samples, ``duration`` must be a multiple of dt). The fixed-step integrators take
        one step per sample.
    integrator : {"rk4", "semi_implicit_euler", "euler", "rk45", "dop853", "radau"}
        Fixed step: classical RK4, semi-implicit Euler (symplectic only for a constant
        mass matrix; see :mod:`robodyn.sim.integrators`), explicit Euler (MR's
        EulerStep). Adaptive, error-controlled (scipy's ``solve_ivp`` with ``rtol`` and
        ``atol``): "rk45", "dop853", "radau" (samples at the same times). A floating base
        moves on SE(3) in every case (``rd.integrate``).
    control_dt : float, optional
        Evaluate the controller every ``control_dt`` seconds (a multiple of dt) and hold
        its torque in between (zero-order hold, a digital controller). Default: the
        controller is continuous, evaluated at every integrator stage.
    f_ext : array_like (..., nb, 6) or callable, optional
        Wrenches on the bodies (as in :func:`robodyn.forward_dynamics`), constant or
        ``f_ext(t, q, v)``.
    friction : bool
        Joint damping and Coulomb friction of the model (default on, as in
        :func:`robodyn.forward_dynamics`).
    clip_torque : bool
        Clip the controller's torque to the model's effort limits.
    rtol, atol : float
        Tolerances of the adaptive integrators.
    out : path, optional
        Stream the samples to disk while simulating and write the finished trajectory to
        this ``.npz`` (see :meth:`Trajectory.save`). A run that fails or is interrupted
        writes what it finished there; a killed process leaves ``<out>.partial/``,
        readable with :meth:`Trajectory.load`. A compiled run streams in pieces of 8192
        steps written straight into the files (the same speed as in memory).
    max_memory : float, optional
        Bytes the samples may take in memory (default: the memory available when the run
        starts); a longer run is refused before anything is allocated, saying its size.
    overwrite : bool
        Replace an existing ``out`` file (and the ``<out>.partial`` folder a stopped run of
        robodyn's left there); by default they are refused before anything is simulated.
        A ``<out>.partial`` that robodyn did not create is never touched.
    progress : bool
        Show a progress bar (tqdm) on stderr.
    threads : int, optional
        Threads of the batch kernels for a batch of rollouts.
    constraints : robodyn.mobile.Pfaffian, HolonomicConstraint or list, optional
        Constraints ``A(q) v = 0`` (rolling without slipping): the accelerations come from
        :func:`robodyn.constrained_forward_dynamics` with Baumgarte stabilisation, one
        rollout, fixed-step integrators; the result has ``constraint_violation`` (K + 1,)
        and ``constraint_force`` (K + 1, k). See :mod:`robodyn.sim.constrained_sim`.
    client : dask.distributed.Client, optional
        Run a batch of rollouts (q0 of shape (N, nq)) in chunks on this Dask cluster; q0
        (or v0) given as a dask array does the same on Dask's active scheduler, one chunk
        of rollouts per chunk of q0. Returns a :class:`robodyn.distributed.LazyTrajectory`
        (lazy arrays; ``.compute()`` is the Trajectory); ``out=`` a ``*.zarr`` store
        streams the chunks to it as they finish (:func:`robodyn.distributed.simulate_chunks`).
    resume : bool
        With ``client=`` and a Zarr ``out=``: finish an interrupted store, computing only
        its missing chunks (a store written for another model is refused).
    on_divergence : {"raise", "mark"}
        What a rollout that fails (its state becomes NaN or inf or runs away, its dynamics
        become singular, its torque is NaN) does. "raise": the run stops with
        :class:`SimulationError` naming the rollout and carrying what was simulated.
        "mark" (fixed-step integrators): the other rollouts go on; the failed one's
        samples after its last good one are NaN, and the result's ``status`` (0 ok, 1
        diverged, 2 dynamics failed, 3 controller failed, :data:`robodyn.sim.result.STATUS`)
        and ``t_end`` (its last good sample's time) say which and when.

    Returns
    -------
    Trajectory
        ``t (K+1,)``, ``q (..., K+1, nq)``, ``v``, ``a``, ``tau (..., K+1, nv)``;
        ``energy()``; metadata in ``meta``.

    Raises
    ------
    ValueError
        A bad argument (named).
    ValueError
        The run's samples would not fit in the memory available (or, with ``out=``, on
        the disk): said before anything is allocated, with the size.
    SimulationError
        The state became NaN or inf, the dynamics became singular, or the controller
        failed or returned a bad torque; the message names the step and time (for a
        motion that diverged: the joint whose velocity ran away, and the step the gains
        allow), and ``err.partial`` is the trajectory up to the last good sample.
    SimulationInterrupted
        Ctrl-C (a KeyboardInterrupt): ``err.partial`` holds what was simulated (the
        compiled loop checks for signals every 1024 steps).

    Warns
    -----
    SimulationWarning
        ``dt`` is beyond the stable step of the fixed-step integrator for the
        controller's gains and the joint damping (:func:`robodyn.sim.stable_step`); the
        message gives the step to use.

    Notes
    -----
    There is no contact model: links pass through each other and through the ground.
    For contact-rich simulation use MuJoCo (``rd.convert.to_mujoco`` writes the model).
    """
    if constraints is not None:  # Pfaffian constraints: robodyn.sim.constrained_sim
        return _run_constrained(model, q0, v0, controller, client=client, resume=resume,
                                duration=duration, dt=dt, integrator=integrator,
                                control_dt=control_dt, f_ext=f_ext, friction=friction,
                                clip_torque=clip_torque, constraints=constraints)  # fmt: skip
    if client is not None or resume or is_dask(q0) or is_dask(v0):  # rollouts on Dask
        from ..distributed import simulate_chunks

        return simulate_chunks(
            model, q0, v0, controller, client=client, out=out, resume=resume,
            progress=progress, duration=duration, dt=dt, integrator=integrator,
            control_dt=control_dt, f_ext=f_ext, friction=friction, clip_torque=clip_torque,
            rtol=rtol, atol=atol, on_divergence=on_divergence,
        )  # fmt: skip
    run = _checked_run(model, controller, integrator=integrator, on_divergence=on_divergence,
                       duration=duration, dt=dt, control_dt=control_dt, f_ext=f_ext,
                       friction=friction, clip_torque=clip_torque, rtol=rtol, atol=atol,
                       threads=threads)  # fmt: skip
    q, v, z = _initial_state(run, q0, v0)
    _plan_samples(run, z, out, overwrite, max_memory)
    run.check = _stability_check(run, q)
    return _integrate(run, q, v, z, progress)


# ------------------------------------------------------------------------ its stages
def _run_constrained(model, q0, v0, controller, *, client, resume, **settings) -> Trajectory:
    """The constrained branch (:mod:`robodyn.sim.constrained_sim`): one rollout, no Dask."""
    if client is not None or resume or is_dask(q0) or is_dask(v0):
        raise ValueError("simulate: constraints= runs one rollout; it takes no client=, "
                         "resume= or dask arrays")  # fmt: skip
    from .constrained_sim import simulate_constrained

    return simulate_constrained(model, q0, v0, controller, **settings)


def _checked_run(model, controller, *, integrator, on_divergence, duration, dt, control_dt,
                 f_ext, friction, clip_torque, rtol, atol, threads) -> _Run:  # fmt: skip
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
    from ..kernels.call import threads as _threads

    return _Run(
        model=model, controller=controller, integrator=integrator, duration=duration, dt=dt,
        K=K, control_dt=control_dt, hold=hold, f_ext=f_ext, friction=friction,
        clip_torque=clip_torque, rtol=rtol, atol=atol,
        threads=0 if threads is None else _threads(threads), mark=on_divergence == "mark",
    )  # fmt: skip


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
    _check_room(run.model, math.prod(run.batch), run.K, nz, run.duration, run.dt, out,
                max_memory)  # fmt: skip
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
    }  # fmt: skip


def _output(out, overwrite: bool) -> tuple[Path | None, Path | None]:
    """``out`` as a ``.npz`` path checked free (or ``overwrite``), and the ``<out>.partial``
    folder the samples stream to; (None, None) without ``out``."""
    if out is None:
        return None, None
    out = Path(out)
    if out.suffix != ".npz":
        out = out.with_name(out.name + ".npz")
    from .._files import output_path

    output_path(out, overwrite=overwrite, name="out")
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
        if not run.batch and not run.hold and run.f_ext is None and z is None:
            setup = _c_setup(run.model, run.controller, run.integrator, run.friction,
                             run.clip_torque)  # fmt: skip
            if setup is not None:
                return _run_compiled(setup, run, q, v, bar)
        rec = _Record(run.K, q.shape, v.shape, None if z is None else z.shape, run.folder,
                      run.meta)  # fmt: skip
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
