"""``rd.simulate``: integrate the equations of motion of a model under a controller.

The system is (MR eq. 8.1 with joint friction)::

    M(q) qdd + C(q, qd) qd + g(q) + b qd + f_c sgn(qd) = tau(t, q, qd) + sum_i J_i^T F_ext,i

integrated from ``(q0, v0)`` for ``duration`` seconds; ``qdd`` comes from the articulated
body algorithm in the compiled core (for a model with mimic joints, from M's Cholesky
factor, as :func:`robodyn.forward_dynamics` does; a batch of rollouts is one batch call per
stage).
Contacts come only from an ``environment=`` (:class:`robodyn.sim.Environment`: compliant
points of the robot against planes, boxes and spheres in the world); bodies pass through
each other (use MuJoCo for contact-rich simulation).

:func:`simulate` takes one of three roads: Pfaffian constraints
(:mod:`robodyn.sim.constrained_sim`), rollouts on Dask
(:func:`robodyn.distributed.simulate_chunks`, whose tasks each run the third road on their
chunk), or a run on this machine (:func:`robodyn.sim.local.simulate_local`: the settings
checked, the initial state, the room the samples need, the stable step, then the
integration). The pieces live below: ``_system`` (the arguments, the
accelerations and torques a step evaluates), ``_record`` (the samples, in memory or
streamed to ``out``), ``_compiled`` (one rollout in C), ``_loop`` (the Python loop:
batches, held torques, wrenches, the adaptive integrators) and ``_failure`` (a failed
step or rollout, and the partial trajectory kept).
"""

from __future__ import annotations

from ..kernels.lazy import is_dask
from .local import INTEGRATORS, simulate_local
from .result import Trajectory

__all__ = ["simulate", "INTEGRATORS"]


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
    input: str = "torque",
    environment=None,
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
    environment : robodyn.sim.Environment, optional
        Compliant contacts between points of the robot and shapes in the world (a table, a
        wall): their wrenches on the bodies join ``f_ext`` at every stage of the
        integrator, and the result records ``contact_force`` (..., K + 1, nc, 3), the force
        of each contact on the robot in world coordinates. A controller with a force sensor
        (``uses_wrench``: :class:`robodyn.control.ForceControl`,
        :class:`~robodyn.control.HybridMotionForce`, :class:`~robodyn.control.Impedance`,
        :class:`~robodyn.control.Admittance`) reads these external wrenches (the
        environment's and ``f_ext``) through its :class:`robodyn.sim.ForceSensor`. A run
        with an environment takes the Python loop (numpy over the batch). Not with
        ``constraints``, ``client`` or dask arrays.
    friction : bool
        Joint damping and Coulomb friction of the model (default on, as in
        :func:`robodyn.forward_dynamics`).
    clip_torque : bool
        Clip the controller's torque to the model's effort limits; for a model with motors
        (:meth:`Model.with_actuators <robodyn.model.model.Model.with_actuators>`) given
        a stall torque, to the motor's torque-speed limit at each state's joint velocity
        (:meth:`robodyn.model.actuators.Actuators.torque_limit`, on the Python road).
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
        rollout in Python, fixed-step integrators; the result has ``constraint_violation``
        (K + 1,) and ``constraint_force`` (K + 1, k). ``out`` and ``overwrite`` work as
        without constraints, except that the file is written when the run ends (or fails,
        or is interrupted: what it finished), not streamed, so a killed process leaves
        nothing; ``max_memory`` and ``progress`` work as without constraints; ``threads``
        is checked but has no effect (one rollout). Refused with a ValueError naming the
        argument: ``f_ext``, ``control_dt``, a controller with its own state,
        ``on_divergence="mark"`` (a failed run raises), a batch of initial states,
        ``client``, ``resume`` and dask arrays. See :mod:`robodyn.sim.constrained_sim`.
    client : dask.distributed.Client, optional
        Run a batch of rollouts (q0 of shape (N, nq)) in chunks on this Dask cluster; q0
        (or v0) given as a dask array does the same on Dask's active scheduler, one chunk
        of rollouts per chunk of q0. Returns a :class:`robodyn.distributed.rollout.LazyTrajectory`
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
    input : {"torque", "velocity"}
        What the controller returns. "torque" (default): joint forces, and the model's
        dynamics are integrated. "velocity": a kinematic robot (MR sec. 11.3), whose
        drives track velocity commands exactly: the controller returns ``v_cmd`` (nv,)
        (e.g. :class:`robodyn.control.KinematicJoint`,
        :class:`robodyn.control.KinematicTaskSpace`), the run integrates ``q_dot = v_cmd``
        (and the controller's state) with no dynamics, and the result records
        ``v = v_cmd``, ``a`` its rate by central differences and ``tau`` NaN
        (:mod:`robodyn.sim.kinematic_sim`). It runs in Python (the compiled rollout
        integrates the dynamics only), one rollout or a batch, with "euler" or "rk4" and
        optionally ``control_dt``; ``v0`` is the velocity the controller sees at the first
        call (afterwards the command being executed). Refused, named: ``f_ext``,
        ``clip_torque``, ``constraints``, ``client``/dask arrays, ``resume``,
        ``on_divergence="mark"``, no controller, and a controller of :mod:`robodyn.control`
        that returns torques (and, with ``input="torque"``, one that returns velocities).

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
    Which road a run takes (both give the same trajectory to round-off, ~1e-15 in q):
    one rollout (q0 of shape (nq,)) with a fixed-step integrator ("rk4",
    "semi_implicit_euler", "euler"), no ``control_dt`` and no ``f_ext`` runs whole in the
    compiled core, on any model (fixed or floating base, spherical, planar, universal,
    helical, cylindrical and mimic joints: positions move by :func:`robodyn.integrate` on
    each joint's manifold, RK4's stages combine in the chart at q), when the controller is
    None or one of :mod:`robodyn.control`'s laws that describes itself:

    * :class:`~robodyn.control.PD` (with or without gravity compensation) and
      :class:`~robodyn.control.ComputedTorque` with scalar or per-joint gains, no ``ki``,
      and a constant target or a :func:`robodyn.trajectory.joint_trajectory` under a cubic
      or quintic time scaling; on a model whose configuration holds quaternions (nq != nv:
      a floating base, a spherical joint) a constant target only, the error ``q_d (-) q``
      taken by :func:`robodyn.difference`, and PD needs its model;
    * :class:`~robodyn.control.TaskSpaceComputedTorque` along a constant pose, a
      :func:`robodyn.trajectory.screw_trajectory` or a
      :func:`robodyn.trajectory.cartesian_trajectory` under a cubic or quintic scaling.

    ``clip_torque=True`` on a model whose motors' torque limit falls with speed
    (:meth:`Model.with_actuators <robodyn.model.model.Model.with_actuators>` with
    ``free_speed``) takes the Python loop, and ``input="velocity"`` its own Python road
    (:mod:`robodyn.sim.kinematic_sim`).

    Every dof takes the law's torque, a floating base's six too (the laws know no
    actuators: zero gains on those dofs leave the base unactuated). Everything else (a
    batch, PID or another controller with its own state, any other callable, a held
    torque, wrenches, an environment, the adaptive integrators) runs the Python loop over
    the batch kernels,
    one controller call per stage: ~1.5 ms an RK4 step for solo12 on its floating base,
    against ~16 us compiled (``robodyn bench --only simulate``).

    Contacts are only those of an ``environment`` (points of the robot against planes,
    boxes and spheres fixed in the world, :mod:`robodyn.sim.environment`): links pass
    through each other, and through the ground unless it is in the environment. This is not
    a general contact solver; for contact-rich simulation use MuJoCo
    (``rd.convert.to_mujoco`` writes the model).
    """
    _check_input(input, controller)
    if input == "velocity":  # a kinematic robot: robodyn.sim.kinematic_sim
        if (constraints is not None or client is not None or resume or environment is not None
                or is_dask(q0) or is_dask(v0)):  # fmt: skip
            raise ValueError(
                "simulate: input='velocity' runs on this machine without constraints=, "
                "client=, resume=, environment= or dask arrays"
            )
        from .kinematic_sim import simulate_kinematic

        return simulate_kinematic(model, q0, v0, controller, duration=duration, dt=dt,
                                  integrator=integrator, control_dt=control_dt, f_ext=f_ext,
                                  friction=friction, clip_torque=clip_torque, out=out,
                                  overwrite=overwrite, max_memory=max_memory,
                                  progress=progress, threads=threads,
                                  on_divergence=on_divergence)  # fmt: skip
    if environment is not None and (constraints is not None or client is not None or resume
                                    or is_dask(q0) or is_dask(v0)):  # fmt: skip
        raise ValueError(
            "simulate: environment= runs on this machine without constraints: "
            "it takes no constraints=, client=, resume= or dask arrays"
        )
    if constraints is not None:  # Pfaffian constraints: robodyn.sim.constrained_sim
        return _run_constrained(model, q0, v0, controller, client=client, resume=resume,
                                duration=duration, dt=dt, integrator=integrator,
                                control_dt=control_dt, f_ext=f_ext, friction=friction,
                                clip_torque=clip_torque, constraints=constraints, out=out,
                                overwrite=overwrite, max_memory=max_memory, progress=progress,
                                threads=threads, on_divergence=on_divergence)  # fmt: skip
    if client is not None or resume or is_dask(q0) or is_dask(v0):  # rollouts on Dask
        from ..distributed import simulate_chunks

        return simulate_chunks(
            model, q0, v0, controller, client=client, out=out, resume=resume,
            progress=progress, duration=duration, dt=dt, integrator=integrator,
            control_dt=control_dt, f_ext=f_ext, friction=friction, clip_torque=clip_torque,
            rtol=rtol, atol=atol, on_divergence=on_divergence,
        )  # fmt: skip
    return simulate_local(
        model, q0, v0, controller, duration=duration, dt=dt, integrator=integrator,
        control_dt=control_dt, f_ext=f_ext, friction=friction, clip_torque=clip_torque,
        rtol=rtol, atol=atol, out=out, progress=progress, threads=threads,
        on_divergence=on_divergence, overwrite=overwrite, max_memory=max_memory,
        environment=environment,
    )  # fmt: skip


def _check_input(input: str, controller) -> None:
    """``input`` is "torque" or "velocity", and the controller returns what it says."""
    if input not in ("torque", "velocity"):
        raise ValueError(f"input must be 'torque' or 'velocity', got {input!r}")
    if input == "torque" and getattr(controller, "input", None) == "velocity":
        name = type(controller).__name__
        raise ValueError(f"the controller {name} returns joint velocities: simulate a "
                         "kinematic robot with input='velocity'")  # fmt: skip


# ------------------------------------------------------------------------ the constrained branch
def _run_constrained(model, q0, v0, controller, *, client, resume, **settings) -> Trajectory:
    """The constrained branch (:mod:`robodyn.sim.constrained_sim`): one rollout, no Dask."""
    if client is not None or resume or is_dask(q0) or is_dask(v0):
        raise ValueError("simulate: constraints= runs one rollout; it takes no client=, "
                         "resume= or dask arrays")  # fmt: skip
    from .constrained_sim import simulate_constrained

    return simulate_constrained(model, q0, v0, controller, **settings)
