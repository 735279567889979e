"""``rd.simulate``: integrate the equations of motion of a model under a controller.

The system is (MR eq. 8.1 with joint friction)::

    M(q) qdd + C(q, qd) qd + g(q) + b qd + f_c sgn(qd) = tau(t, q, qd) + sum_i J_i^T F_ext,i

integrated from ``(q0, v0)`` for ``duration`` seconds; ``qdd`` comes from the articulated
body algorithm in the compiled core (a batch of rollouts is one batch call per stage).
There is no contact model: bodies pass through each other and through the ground (use
MuJoCo for contact-rich simulation).
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
from ._system import _as_seconds, _name, _states
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
        if client is not None or resume or is_dask(q0) or is_dask(v0):
            raise ValueError("simulate: constraints= runs one rollout; it takes no client=, "
                             "resume= or dask arrays")  # fmt: skip
        from .constrained_sim import simulate_constrained

        return simulate_constrained(model, q0, v0, controller, duration=duration, dt=dt,
                                    integrator=integrator, control_dt=control_dt, f_ext=f_ext,
                                    friction=friction, clip_torque=clip_torque,
                                    constraints=constraints)  # fmt: skip
    if client is not None or resume or is_dask(q0) or is_dask(v0):  # rollouts on Dask
        from ..distributed import simulate_chunks

        return simulate_chunks(
            model, q0, v0, controller, client=client, out=out, resume=resume,
            progress=progress, duration=duration, dt=dt, integrator=integrator,
            control_dt=control_dt, f_ext=f_ext, friction=friction, clip_torque=clip_torque,
            rtol=rtol, atol=atol, on_divergence=on_divergence,
        )  # fmt: skip
    if integrator not in INTEGRATORS:
        raise ValueError(f"integrator must be one of {INTEGRATORS}, got {integrator!r}")
    if on_divergence not in ("raise", "mark"):
        raise ValueError(f"on_divergence must be 'raise' or 'mark', got {on_divergence!r}")
    if on_divergence == "mark" and integrator in _ADAPTIVE:
        raise ValueError("on_divergence='mark' needs a fixed-step integrator (rk4, "
                         f"semi_implicit_euler, euler), not {integrator!r}")  # fmt: skip
    duration = _as_seconds(duration, "duration")
    dt = _as_seconds(dt, "dt")
    K = round(duration / dt)
    if K < 1 or abs(K * dt - duration) > 1e-9 * duration:
        raise ValueError(f"duration ({duration:g} s) must be a whole number of steps dt ({dt:g} s)")
    hold = 0
    if control_dt is not None:
        control_dt = _as_seconds(control_dt, "control_dt")
        hold = round(control_dt / dt)
        if hold < 1 or abs(hold * dt - control_dt) > 1e-9 * control_dt:
            raise ValueError(f"control_dt ({control_dt:g} s) must be a multiple of dt ({dt:g} s)")
    if controller is not None and not callable(controller):
        raise ValueError(f"controller must be callable as controller(t, q, v), got {controller!r}")
    from ..kernels.call import threads as _threads

    th = 0 if threads is None else _threads(threads)
    batch, q0, v0 = _states(model, q0, v0)
    N = math.prod(batch)
    # the loop runs on (nq,) for one rollout and on (N, nq) for a batch
    shape_q = (N, model.nq) if batch else (model.nq,)
    shape_v = (N, model.nv) if batch else (model.nv,)
    q = np.ascontiguousarray(q0.reshape(shape_q))
    v = np.ascontiguousarray(v0.reshape(shape_v))
    nz = int(getattr(controller, "state_size", 0) or 0)
    z = np.zeros(shape_v[:-1] + (nz,)) if nz else None

    if max_memory is not None:
        max_memory = as_positive(max_memory, "max_memory", " of bytes")
    _check_room(model, N if batch else 1, K, nz, duration, dt, out, max_memory)
    meta = {
        "model": model.name, "integrator": integrator, "dt": dt, "duration": duration,
        "control_dt": control_dt, "friction": bool(friction), "clip_torque": bool(clip_torque),
        "controller": _name(controller), "rtol": rtol if integrator in _ADAPTIVE else None,
        "atol": atol if integrator in _ADAPTIVE else None, "joint_names": list(model.joint_names),
        "rollouts": list(batch),
    }  # fmt: skip
    out = None if out is None else Path(out)
    if out is not None and out.suffix != ".npz":
        out = out.with_name(out.name + ".npz")
    folder = None
    if out is not None:
        from .._files import output_path

        output_path(out, overwrite=overwrite, name="out")
        folder = _partial_folder(out, overwrite)
    check = None
    if integrator in STEPS and not hold:  # will this step be stable for these gains?
        from .stability import stable_step

        check = stable_step(model, controller, q if not batch else q[0], integrator,
                            friction=friction)  # fmt: skip
        if check is not None and not check.stable(dt):
            import warnings

            warnings.warn(SimulationWarning(f"simulate({model.name!r}): {check.advice(dt)}"),
                          stacklevel=2)  # fmt: skip
    stop = {"model": model, "K": K, "dt": dt, "out": out, "folder": folder, "check": check,
            "mark": on_divergence == "mark"}  # fmt: skip
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=K, unit="step", desc=f"simulate {model.name}", leave=False)
    try:
        if not batch and not hold and f_ext is None and z is None:
            setup = _c_setup(model, controller, integrator, friction, clip_torque)
            if setup is not None:
                return _run_compiled(setup, model, q, v, K, dt, meta, folder, out, bar, stop)
        rec = _Record(K, shape_q, shape_v, None if z is None else z.shape, folder, meta)
        loop = (model, controller, integrator, friction, clip_torque, f_ext, th, hold, rtol, atol)
        return _run_loop(loop, rec, batch, q, v, z, K, dt, meta, out, bar, stop)
    except SimulationInterrupted:
        raise
    except KeyboardInterrupt as exc:  # before the first sample was recorded
        empty = Trajectory(np.zeros(0), np.zeros((*batch, 0, model.nq)),
                           *(np.zeros((*batch, 0, model.nv)) for _ in range(3)),
                           meta={**meta, "complete": False}, model=model)  # fmt: skip
        _stopped(stop, 0, empty, None, exc)
    finally:
        if bar is not None:
            bar.close()
