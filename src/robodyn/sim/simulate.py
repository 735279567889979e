"""``rd.simulate``: integrate the equations of motion of a model under a controller.

The system is (MR eq. 8.1 with joint friction)::

    M(q) qdd + C(q, qd) qd + g(q) + b qd + f_c sgn(qd) = tau(t, q, qd) + sum_i J_i^T F_ext,i

integrated from ``(q0, v0)`` for ``duration`` seconds; ``qdd`` comes from the articulated
body algorithm in the compiled core (a batch of rollouts is one batch call per stage).
There is no contact model: bodies pass through each other and through the ground (use
MuJoCo for contact-rich simulation).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np

from .._checks import as_positive, check_room
from ..errors import SimulationError, SimulationInterrupted, SimulationWarning
from ..kernels import core
from ..kernels._pack import FL_ARMATURE, FL_CHECK, FL_FEXT, FL_FRICTION, FL_GRAVITY, packed
from ..kernels.call import is_dask
from .integrators import STEPS, Chart
from .result import Trajectory

__all__ = ["simulate", "INTEGRATORS"]

_ADAPTIVE = {"rk45": "RK45", "dop853": "DOP853", "radau": "Radau"}
#: Names accepted by ``simulate(integrator=...)``: fixed steps, then scipy's adaptive ones.
INTEGRATORS = (*STEPS, *_ADAPTIVE)


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
    """Trajectory.STATUS code of a core error: the state (11 q, 12 v, 15 a zero quaternion)
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


# ------------------------------------------------------------------------ arguments
def _as_seconds(x, name: str) -> float:
    return as_positive(x, name, " of seconds")


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


_MARK = ".robodyn-partial"  # in a <out>.partial folder robodyn made (and may delete)


def _partial_folder(out: Path, overwrite: bool) -> Path:
    """``<out>.partial``, where the samples stream: free, or a folder a stopped run of
    robodyn's left (replaced only with ``overwrite``); anything else is the user's and is
    never deleted."""
    folder = out.with_name(out.name + ".partial")
    if folder.exists() or folder.is_symlink():
        ours = folder.is_dir() and not folder.is_symlink() and (folder / _MARK).is_file()
        if not ours:
            raise ValueError(f"out: {str(folder)!r} exists and is not a run robodyn left "
                             "(robodyn streams the samples there): move it away")  # fmt: skip
        if not overwrite:
            raise FileExistsError(
                f"out: {str(folder)!r} holds the samples of an earlier run that stopped "
                f"(rd.Trajectory.load({str(folder)!r}) reads them); pass overwrite=True to "
                "replace it"
            )
        shutil.rmtree(folder)
    return folder


def _check_room(model, N: int, K: int, nz: int, duration, dt, out, max_memory=None) -> None:
    """Refuse, before allocating, a run whose samples do not fit in memory (the memory
    available, or ``max_memory`` bytes) or on disk (streamed to ``out``), saying how much it
    would need."""
    width = model.nq + 3 * model.nv + nz  # q, v, a, tau (and z) per sample and rollout
    need = 8 * (K + 1) * (1 + N * width)
    what = (
        f"simulate: duration {duration:g} s at dt {dt:g} s is {K + 1:.4g} samples of "
        f"{width} numbers{f' for {N} rollouts' if N > 1 else ''}: the result"
    )
    how = "; shorten the run, raise dt, or split it into shorter runs"
    try:
        if out is not None:
            check_room(need, what, folder=Path(out).parent)
        check_room(need, what, limit=max_memory, cli="--max-memory")
    except ValueError as exc:
        raise ValueError(f"{exc}{how}") from None


def _name(controller) -> str:
    if controller is None:
        return "none"
    name = getattr(controller, "name", None) or getattr(controller, "__name__", None)
    return str(name or type(controller).__name__)


# ------------------------------------------------------------------------ the system
def _accelerations(model, friction: bool, f_ext, threads: int):
    """``accel(t, q, v, tau) -> qdd``: forward dynamics through the core's fast path."""
    pk = model._rd_packed or packed(model)
    entry = core.forward if pk.has_mimic else core.aba
    flags = FL_GRAVITY | FL_ARMATURE | FL_CHECK | (FL_FRICTION if friction else 0)
    P = pk.P
    ext = None if f_ext is None or callable(f_ext) else np.asarray(f_ext, dtype=float)
    if ext is not None and (ext.ndim < 2 or ext.shape[-2:] != (model.nb, 6)):
        raise ValueError(f"f_ext must have shape (..., {model.nb}, 6) (one wrench per body), "
                         f"got {ext.shape}")  # fmt: skip

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

    if f_ext is None:

        def accel(t, q, v, tau):
            a = entry(P, q, v, tau, None, flags, 0.0, threads)
            return a if a.__class__ is np.ndarray else failed(q, v, tau, None, a)

    else:

        def accel(t, q, v, tau):
            fe = f_ext(t, q, v) if callable(f_ext) else ext
            a = entry(P, q, v, tau, fe, flags | FL_FEXT, 0.0, threads)
            return a if a.__class__ is np.ndarray else failed(q, v, tau, fe, a)

    return accel


def _torques(model, controller, shape, clip: bool):
    """``torque(t, q, v, z) -> (tau, dz)`` with the controller's output checked."""
    nv = model.nv
    zero = np.zeros(shape[:-1] + (nv,))
    lim = np.asarray(model.effort_limit, dtype=float)
    if clip and not np.all(np.isfinite(lim)):
        lim = np.where(np.isfinite(lim), lim, np.inf)
    stateful = getattr(controller, "state_size", 0) > 0
    name = _name(controller)

    def torque(t, q, v, z):
        if controller is None:
            return zero, None
        try:
            out = controller(t, q, v, z) if stateful else controller(t, q, v)
        except Exception as exc:  # the user's code: keep what was simulated
            raise _StepError(
                f"the controller {name!r} raised {type(exc).__name__}: {exc}", 3
            ) from exc
        tau, dz = out if stateful else (out, None)
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
        if clip:
            tau = np.clip(tau, -lim, lim)
        return tau, dz

    return torque


# ------------------------------------------------------------------------ recording
class _Record:
    """Preallocated sample arrays, time-major (sample k at index k), in memory or, with
    ``out=``, streamed: laid out in place in the ``.npz`` being written
    (:class:`~robodyn.sim.npzstream.NpzStream`, inside a ``<out>.partial`` folder whose
    ``meta.json`` says how many samples are done), which survives a killed process."""

    MARK_EVERY = 0.5  # s of wall time between two marks on disk

    def __init__(self, K, shape_q, shape_v, shape_z, folder: Path | None, meta: dict):
        self.folder, self.meta, self.done = folder, meta, 0
        shapes = {"t": (K + 1,), "q": (K + 1, *shape_q), "v": (K + 1, *shape_v),
                  "a": (K + 1, *shape_v), "tau": (K + 1, *shape_v)}  # fmt: skip
        if shape_z is not None:
            shapes["z"] = (K + 1, *shape_z)
        self.stream = None
        if folder is not None:
            from .npzstream import NpzStream

            folder.mkdir()  # (checked free by _partial_folder) and marked as robodyn's
            (folder / _MARK).write_text("samples of a robodyn.simulate run, streamed\n")
            self.stream = NpzStream(folder / "data.npz", shapes)
            self.x = self.stream.arrays
            self._marked = 0.0
            self.mark(0, force=True)
        else:
            self.x = {n: np.empty(s) for n, s in shapes.items()}

    def put(self, k, t, q, v, a, tau, z):
        x = self.x
        x["t"][k] = t
        x["q"][k] = q
        x["v"][k] = v
        x["a"][k] = a
        x["tau"][k] = tau
        if z is not None:
            x["z"][k] = z
        self.done = k + 1

    def mark(self, done: int, *, force: bool = False) -> None:
        """Say on disk how many samples are complete (at most every MARK_EVERY seconds).
        The samples are already in the file: its pages are shared with the system, which
        writes them out even when this process is killed (only a crash of the machine
        could lose them; flushing them here, msync, would cost ~15 % of a compiled run)."""
        import time

        if self.folder is None or not (force or time.monotonic() - self._marked > self.MARK_EVERY):
            return
        self._marked = time.monotonic()
        tmp = self.folder / "meta.json.tmp"
        tmp.write_text(json.dumps({**self.meta, "done": done, "layout": self.stream.layout}))
        tmp.replace(self.folder / "meta.json")

    def trajectory(self, n: int, batch, model, meta) -> Trajectory:
        """The first n samples as a Trajectory (batch axes first)."""

        def arr(name):
            if name not in self.x:
                return None
            x = np.array(self.x[name][:n])
            if name == "t":
                return x
            x = np.moveaxis(x, 0, -2)
            return x.reshape((*batch, n, x.shape[-1]))

        return Trajectory(
            arr("t"), arr("q"), arr("v"), arr("a"), arr("tau"), z=arr("z"), meta=meta,
            model=model,
        )  # fmt: skip

    def finish(self, res: Trajectory, out: Path) -> None:
        """Write the complete run ``res`` to ``out``: a single rollout's archive is already
        laid out as Trajectory.save writes it (time is its first axis), so it is sealed and
        renamed; a batch's (time-major on disk, rollouts first in a Trajectory) is saved."""
        if res.batch_shape:
            res.save(out, overwrite=True)  # out was checked when the run began
        else:
            self.stream.finish(res.meta, out)
        self.x.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


# ------------------------------------------------------------------------ the C rollout
_LAWS = {"none": 0, "pd": 1, "pd+gravity": 2, "computed_torque": 3}
_C_INTEGRATORS = {"euler": 0, "semi_implicit_euler": 1, "rk4": 2}


def _c_setup(model, controller, integrator, friction, clip_torque):
    """The arguments of the compiled rollout (kernels/core/sim.c) when the run can go there:
    1-dof joints, a fixed-step integrator, and no controller or one of robodyn.control's
    laws that describes itself (``_c_law``); else None."""
    pk = model._rd_packed or packed(model)
    if integrator not in _C_INTEGRATORS or model.nq != model.nv or pk.has_mimic or pk.I[5]:
        return None
    nv = model.nv
    if controller is None:
        law = {"law": "none", "kp": 0.0, "kd": 0.0, "model": model, "cflags": 0,
               "q_a": np.zeros(nv), "q_b": np.zeros(nv), "T": 1.0, "c": np.zeros(6),
               "tau_max": np.inf}  # fmt: skip
    else:
        spec = getattr(controller, "_c_law", None)
        law = spec(model) if spec is not None else None
        if law is None:
            return None
    mc = law["model"]
    pc = mc._rd_packed or packed(mc)
    if mc.nv != nv or mc.nq != nv or pc.has_mimic or pc.I[5]:
        return None
    tau_max = np.broadcast_to(np.asarray(law["tau_max"], dtype=float), (nv,))
    if clip_torque:
        tau_max = np.minimum(tau_max, model.effort_limit)
    params = np.concatenate([
        np.broadcast_to(np.asarray(law["kp"], dtype=float), (nv,)),
        np.broadcast_to(np.asarray(law["kd"], dtype=float), (nv,)),
        law["q_a"], law["q_b"], tau_max, [float(law["T"])], law["c"],
    ])  # fmt: skip
    flags = FL_GRAVITY | FL_ARMATURE | (FL_FRICTION if friction else 0)
    return (pk.P, pc.P, _C_INTEGRATORS[integrator], _LAWS[law["law"]], flags, law["cflags"],
            np.ascontiguousarray(params))  # fmt: skip


def _c_piece(setup, X, k0: int, k1: int, dt: float):
    """Samples k0 .. k1 of the compiled rollout into the rows of X = (Q, V, A, TAU), from
    the state in row k0 (which it recomputes: a run in pieces equals a run in one).
    Returns (code, done, exc): done samples complete from k0; exc a signal handler's
    exception (Ctrl-C) when code is _INTERRUPTED."""
    P, Pc, integ, law, flags, cflags, params = setup
    Q, V, A, TAU = X
    q, v = Q[k0].copy(), V[k0].copy()
    return core.simulate(P, Pc, q, v, k1 - k0, float(dt), integ, law, flags, cflags, params,
                         Q[k0 : k1 + 1], V[k0 : k1 + 1], A[k0 : k1 + 1], TAU[k0 : k1 + 1],
                         k0)  # fmt: skip


_INTERRUPTED = 18  # rd.h's E_INTERRUPTED: the run's poll for signals said stop
_PIECE = 8192  # steps of a compiled run between two marks on disk (a streamed run)


def _c_message(code: int, model) -> str:
    if code == 16:
        return (
            "the state became NaN or inf (the motion diverged; try a smaller dt or another "
            "integrator)"
        )
    if code == 19:
        return (
            "the motion diverged: a torque or an acceleration overflowed float64 (the state "
            "is finite but too large; try a smaller dt or another integrator)"
        )
    if code == 13:
        return "the controller's torque is NaN or inf"
    if 1000 <= code < 2000:
        body = model.body_names[code - 1000] if code - 1000 < model.nb else code - 1000
        return f"the dynamics failed: the articulated inertia of body {body!r} is singular"
    return f"the dynamics failed (core code {code})"


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


def _run_loop(loop, rec, batch, q, v, z, K, dt, meta, out, bar, stop):
    """The Python loop over the batch kernels: a batch of rollouts, a controller with its
    own state or a held torque, external wrenches, joints of several dofs, adaptive
    integrators; samples into ``rec`` (in memory, or streamed to ``out``). A batch with
    ``on_divergence="mark"`` goes on without the rollouts that fail (``_Rollouts``)."""
    model, controller, integrator, friction, clip_torque, f_ext, th, hold, rtol, atol = loop
    accel = _accelerations(model, friction, f_ext, th)
    torque = _torques(model, controller, v.shape, clip_torque)
    chart = Chart(model)
    counter = {"eval": 0}
    held = {"tau": None, "dz": None}
    marks = _Rollouts(model, q.shape[0]) if stop["mark"] and batch else None
    at = {"k": 0}  # the step being taken, for a rollout that fails in it

    def guarded(t, q, v, tau, stage1: bool):
        """accel; a rollout of a batch that fails is named (raise) or marked and frozen."""
        while True:
            qs, vs = marks.freeze(q, v) if marks is not None else (q, v)
            ts = tau if marks is None or marks.alive.all() else np.where(
                marks.alive[:, None], tau, 0.0)  # fmt: skip
            try:
                a = accel(t, qs, vs, ts)
                return a if marks is None or marks.alive.all() else np.where(
                    marks.alive[:, None], a, 0.0)  # fmt: skip
            except _RolloutError as exc:
                name = _rollout_name(exc.row, batch)
                if marks is None or not marks.alive[exc.row]:
                    raise _StepError(f"{name}: {_WHY[_status_of(exc.code)]}; pass "
                                     "on_divergence='mark' to keep the other rollouts "
                                     "going", _status_of(exc.code)) from None  # fmt: skip
                marks.fail(exc.row, exc.code, at["k"] - 1 if stage1 else at["k"])

    def rate_of(t, q, v, z, tau_dz=None):
        tau, dz = tau_dz if tau_dz is not None else torque(t, q, v, z)
        counter["eval"] += 1
        return guarded(t, q, v, tau, True), tau, dz

    k = 0
    try:
        if integrator in _ADAPTIVE:
            _run_adaptive(integrator, model, chart, rate_of, rec, q, v, z, K, dt, hold, rtol,
                          atol, bar, torque)  # fmt: skip
            k = K
        else:
            step = STEPS[integrator]
            first = []  # the first stage's torque and dz of a step: the sample's

            if hold:

                def rate(t, q, v, z):
                    tau = held["tau"]
                    stage1 = not first
                    if stage1:
                        first.append((tau, held["dz"]))
                    a = guarded(t, q, v, tau, stage1)
                    if stage1:
                        first.append(a)
                    return a, 0.0

            else:

                def rate(t, q, v, z):
                    tau, dz = torque(t, q, v, z)
                    stage1 = not first
                    if stage1:
                        first.append((tau, dz))
                    a = guarded(t, q, v, tau, stage1)
                    if stage1:
                        first.append(a)  # the sample's acceleration
                    return a, dz

            every = max(1, min(K, 2000))
            for k in range(K):
                t = k * dt
                at["k"] = k
                if marks is not None:
                    q, v = marks.freeze(q, v)
                if hold and k % hold == 0:
                    held["tau"], held["dz"] = torque(t, q, v, z)
                first.clear()
                try:
                    q1, v1, z1, a = step(chart, rate, t, q, v, z, dt)
                except _StepError:  # at a later stage: sample k itself is whole, keep it
                    if len(first) == 2:
                        rec.put(k, t, q, v, first[1], first[0][0], z)
                    raise
                if hold and z is not None:  # a digital controller integrates its state itself
                    z1 = z + hold * dt * held["dz"] if (k + 1) % hold == 0 else z
                rec.put(k, t, q, v, a, first[0][0], z)
                q, v, z = q1, v1, z1  # (a NaN or inf is caught by the next evaluation)
                if bar is not None:
                    bar.update(1)
                if rec.folder is not None and (k + 1) % every == 0:
                    rec.mark(k + 1)
                if marks is not None and not marks.alive.any():
                    break  # every rollout failed: nothing left to integrate
            else:
                k = K
                at["k"] = K
                if marks is not None:
                    q, v = marks.freeze(q, v)
                # the last sample: its torque and acceleration at the final state
                if hold and K % hold == 0:
                    held["tau"], held["dz"] = torque(K * dt, q, v, z)
                tau = held["tau"] if hold else torque(K * dt, q, v, z)[0]
                rec.put(K, K * dt, q, v, guarded(K * dt, q, v, tau, True), tau, z)
            counter["eval"] = K * {"rk4": 4}.get(integrator, 1) + 1
    except (_StepError, KeyboardInterrupt) as exc:
        n = rec.done
        meta_p = {**meta, "complete": False, "n_eval": counter["eval"]}
        part = rec.trajectory(n, batch, model, meta_p)
        if isinstance(exc, KeyboardInterrupt):
            _stopped(stop, n, part, None, exc)
        if not (stop["mark"] and not batch):
            _stopped(stop, n, part, str(exc), exc)
        # one rollout, on_divergence="mark": its samples, then NaN, and why it stopped
        marks = _Rollouts(model, 1)
        marks.fail(0, 11, n - 1)
        marks.status[0] = exc.status
        for name in ("q", "v", "a", "tau", "z"):
            if name in rec.x:
                rec.x[name][n:] = np.nan
        rec.x["t"][:] = dt * np.arange(K + 1)
        if marks.status[0] == 2 and _runaway(model, part):
            marks.status[0] = 1
        meta.update(complete=True, n_eval=counter["eval"], failed_rollouts=1)
        res = rec.trajectory(K + 1, batch, model, meta)
        res.status = np.asarray(marks.status[0])
        res.t_end = np.asarray((n - 1) * dt if n > 0 else np.nan)
        if out is not None:
            rec.finish(res, out)
        return res
    meta["complete"] = True
    meta["n_eval"] = counter["eval"]
    if marks is not None:
        _mark_failed(rec, marks, K, dt, model, meta)
    res = rec.trajectory(K + 1, batch, model, meta)
    if marks is not None:
        res.status = marks.status.reshape(batch)
        last = np.where(marks.alive, K, marks.last)
        res.t_end = np.where(last >= 0, last * dt, np.nan).reshape(batch)
    if out is not None:
        rec.finish(res, out)
    return res


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


def _run_compiled(setup, model, q, v, K, dt, meta, folder, out, bar, stop):
    """One rollout in the compiled core: in one call, or, streaming to ``out`` or with a
    progress bar, in pieces of _PIECE steps written straight into the files of the
    ``.partial`` folder (each piece marked done on disk)."""
    nv = model.nv
    meta["n_eval"] = K * (4 if meta["integrator"] == "rk4" else 1) + 1
    rec = X = None
    k, n, exc = 0, 0, None
    try:
        if folder is not None:
            rec = _Record(K, (nv,), (nv,), None, folder, meta)
            rec.x["t"][:] = dt * np.arange(K + 1)
            X = (rec.x["q"], rec.x["v"], rec.x["a"], rec.x["tau"])
        else:
            X = tuple(np.empty((K + 1, nv)) for _ in range(4))
        X[0][0], X[1][0] = q, v
        piece = K if rec is None and bar is None else _PIECE
        while True:
            k1 = min(K, k + piece)
            code, done, exc = _c_piece(setup, X, k, k1, dt)
            if code:
                n = k + done
                break
            n = k1 + 1  # samples 0 .. k1 are complete
            if bar is not None:
                bar.update(k1 - k)
            if k1 == K:
                break
            if rec is not None:
                rec.mark(n)
            k = k1
    except KeyboardInterrupt as stop_here:  # Ctrl-C between two pieces
        if X is None:  # before the first: simulate hands back an empty trajectory
            raise
        code, exc = _INTERRUPTED, stop_here
    meta["complete"] = code == 0
    if code:
        meta["n_eval"] = None

    def cut(n):
        if rec is not None:
            return rec.trajectory(n, (), model, meta)
        return Trajectory(dt * np.arange(n), X[0][:n], X[1][:n], X[2][:n], X[3][:n],
                          meta=meta, model=model)  # fmt: skip

    if code == _INTERRUPTED:
        _stopped(stop, n, cut(n), None, exc)
    if code and not stop["mark"]:
        _stopped(stop, n, cut(n), _c_message(code, model), None)
    status = None
    if stop["mark"]:  # one rollout: NaN after its last good sample, and why it stopped
        status = 0
        if code:
            status = 1 if code == 16 else _status_of(code)
            if status == 2 and _runaway(model, cut(n)):
                status = 1
            for x in X:
                x[n:] = np.nan
            meta["complete"], meta["failed_rollouts"] = True, 1
    res = cut(K + 1)
    if status is not None:
        res.status = np.asarray(status)
        last = K if not code else n - 1  # the last good sample (-1: none)
        res.t_end = np.asarray(last * dt if last >= 0 else np.nan)
    if out is not None:
        rec.finish(res, out)
    return res


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


def _stopped(stop, n: int, part, why: str | None, exc):
    """Raise for a run that stopped after n samples: SimulationInterrupted (Ctrl-C: why is
    None) or SimulationError, each carrying the partial trajectory (also saved to out)."""
    model, K, dt, out, check = stop["model"], stop["K"], stop["dt"], stop["out"], stop["check"]
    saved = out is not None and n > 0
    if saved:
        part.save(out, overwrite=True)  # out was checked when the run began
    if out is not None:
        shutil.rmtree(stop["folder"], ignore_errors=True)
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


def _run_adaptive(integrator, model, chart, rate_of, rec, q, v, z, K, dt, hold, rtol, atol,
                  bar, torque):  # fmt: skip
    """scipy's solve_ivp over pieces of the run, sampled at t_k.

    A piece is ``hold`` steps with a held torque (zero-order hold), one step for a floating
    base (the chart ``q_k (+) delta`` is reset at every sample), else up to 200 steps; each
    piece restarts the error control from the piece's first sample."""
    from scipy.integrate import solve_ivp

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
        held = torque(t0, q, v, z) if hold else None

        def fun(t, y, q_chart=q_chart, held=held):
            y = np.ascontiguousarray(y)
            d = y[:n_v].reshape(shape_v)
            vv = y[n_v : 2 * n_v].reshape(shape_v)
            zz = y[2 * n_v :].reshape(lead + (nz,)) if n_z else None
            qq = chart.plus(q_chart, d)
            a, tau, dz = rate_of(t, qq, vv, zz, held)
            parts = [chart.rate(d, vv).ravel(), np.asarray(a).ravel()]
            if n_z:
                parts.append(np.broadcast_to(0.0 if (dz is None or held is not None) else dz,
                                             zz.shape).ravel())  # fmt: skip
            return np.concatenate(parts)

        y0 = np.concatenate([np.zeros(n_v), v.ravel()] + ([z.ravel()] if n_z else []))
        ts = dt * np.arange(k, k1 + 1)
        ts[-1] = min(ts[-1], K * dt)
        sol = solve_ivp(fun, (ts[0], ts[-1]), y0, method=_ADAPTIVE[integrator], t_eval=ts,
                        rtol=rtol, atol=atol)  # fmt: skip
        if sol.status != 0 or sol.y.shape[1] != len(ts):
            raise _StepError(f"scipy's {_ADAPTIVE[integrator]} failed: {sol.message}")
        for j in range(len(ts) - 1):  # samples k .. k1 - 1
            y = np.ascontiguousarray(sol.y[:, j])
            qq = chart.plus(q_chart, y[:n_v].reshape(shape_v))
            vv = y[n_v : 2 * n_v].reshape(shape_v)
            zz = y[2 * n_v :].reshape(lead + (nz,)) if n_z else None
            a, tau, _ = rate_of(ts[j], qq, vv, zz, held)
            rec.put(k + j, ts[j], qq, vv, a, tau, zz)
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
    a, tau, _ = rate_of(t, q, v, z, torque(t, q, v, z) if hold else None)
    rec.put(K, t, q, v, a, tau, z)
