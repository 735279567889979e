"""The compiled rollout of :func:`robodyn.simulate` (kernels/core/sim.c): one rollout of any
model (floating bases, spherical and planar joints, mimic joints), a fixed-step integrator,
no controller or one of :mod:`robodyn.control`'s laws that describes itself (the force laws
with their states), an environment's contacts (kernels/core/contact.c) and constant wrenches
``f_ext``; the same arithmetic as the Python loop, in one call or in pieces streamed to
``out``."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels import core
from ..kernels._pack import FL_ARMATURE, FL_FRICTION, FL_GRAVITY, packed
from ._failure import _runaway, _status_of, _stopped
from ._record import _Record
from ._system import _speed_limited
from .result import Trajectory

_LAWS = {"none": 0, "pd": 1, "pd+gravity": 2, "computed_torque": 3,
         "task_space_computed_torque": 4, "schedule": 5, "force_control": 6,
         "hybrid_motion_force": 7, "impedance": 8, "admittance": 9}  # fmt: skip
_FORCE_LAWS = ("force_control", "hybrid_motion_force", "impedance", "admittance")
_C_INTEGRATORS = {"euler": 0, "semi_implicit_euler": 1, "rk4": 2}


class _Setup(NamedTuple):
    """The arguments of the compiled rollout (kernels/core/module.c's simulate)."""

    P: np.ndarray  # the simulated model, packed
    Pc: np.ndarray  # the controller's model, packed
    integrator: int
    law: int
    flags: int
    cflags: int
    params: np.ndarray  # the law's parameters (rollout.h)
    env: np.ndarray | None  # the environment (contact.h), or None
    fext: np.ndarray | None  # constant wrenches on the bodies (nb * 6), or None
    nz: int  # the law's own states
    nc: int  # the environment's contacts


def _c_setup(model, controller, integrator, friction, clip_torque, *, environment=None,
             f_ext=None):  # fmt: skip
    """The arguments of the compiled rollout (kernels/core/sim.c) when the run can go there:
    a fixed-step integrator, an environment or none, constant wrenches ``f_ext`` (nb, 6)
    or none, and no controller or one of robodyn.control's laws that describes itself
    (``_c_law``: a dict of the law's name, gains, model, joint reference, for the
    task-space law its parameter block ``task``, for a force law ``task`` and ``force``)
    with a controller model of the simulated model's joints; else None. A configuration
    with quaternions (nq != nv) takes a constant target only (a joint trajectory's v_d
    would have nq entries); a controller with its own state, a force law only."""
    if integrator not in _C_INTEGRATORS or (clip_torque and _speed_limited(model)):
        return None  # (the motors' speed-dependent torque limit: the Python loop)
    fext = _constant_fext(model, f_ext)
    if fext is False:
        return None
    law = _law_of(model, controller)
    if law is None:
        return None
    nq, nv = model.nq, model.nv
    mc = law["model"]
    q_a, q_b = (np.asarray(law[x], dtype=float) for x in ("q_a", "q_b"))
    if not _same_joints(model, mc) or q_a.shape != (nq,) or q_b.shape != (nq,):
        return None
    if nq != nv and not np.array_equal(q_a, q_b):
        return None
    nz = int(getattr(controller, "state_size", 0) or 0)
    if nz and law["law"] not in _FORCE_LAWS:
        return None  # (a PID's integral: the Python loop)
    pk = model._rd_packed or packed(model)
    pc = mc._rd_packed or packed(mc)
    tau_max = np.broadcast_to(np.asarray(law["tau_max"], dtype=float), (nv,))
    if clip_torque:
        tau_max = np.minimum(tau_max, model.effort_limit)
    params = np.concatenate([
        np.broadcast_to(np.asarray(law["kp"], dtype=float), (nv,)),
        np.broadcast_to(np.asarray(law["kd"], dtype=float), (nv,)),
        q_a, q_b, tau_max, [float(law["T"])], law["c"],
        law.get("task", ()),  # the task-space law's parameters (kernels/core/rollout.h: TP_*)
        law.get("schedule", ()),  # LQR's and TVLQR's gain schedule (rollout.h: LAW_SCHEDULE)
        law.get("force", ()),  # a force law's parameters (rollout.h: FP_*)
    ])  # fmt: skip
    flags = FL_GRAVITY | FL_ARMATURE | (FL_FRICTION if friction else 0)
    nc = 0 if environment is None else environment.nc  # (no contacts: no environment)
    env = environment._c_block() if nc else None
    return _Setup(pk.P, pc.P, _C_INTEGRATORS[integrator], _LAWS[law["law"]], flags,
                  law["cflags"], np.ascontiguousarray(params), env, fext, nz, nc)  # fmt: skip


def _law_of(model, controller):
    """The controller's law for the compiled rollout (its ``_c_law``), "none" without a
    controller; None when it has none."""
    if controller is None:
        return {"law": "none", "kp": 0.0, "kd": 0.0, "model": model, "cflags": 0,
                "q_a": np.zeros(model.nq), "q_b": np.zeros(model.nq), "T": 1.0,
                "c": np.zeros(6), "tau_max": np.inf}  # fmt: skip
    spec = getattr(controller, "_c_law", None)
    return spec(model) if spec is not None else None


def _constant_fext(model, f_ext):
    """f_ext as the rollout's constant wrenches (nb * 6,), None without it, False when it
    is not one constant (nb, 6) array (a callable, a batch: the Python loop)."""
    if f_ext is None:
        return None
    if callable(f_ext):
        return False
    ext = np.asarray(f_ext, dtype=float)
    return np.ascontiguousarray(ext.ravel()) if ext.shape == (model.nb, 6) else False


def _same_joints(model, mc) -> bool:
    """Whether the controller's model mc has the simulated model's coordinates, joint by
    joint (the law's q_d (-) q runs on the simulated model's joints)."""
    if mc is model:
        return True
    return (mc.nq, mc.nv) == (model.nq, model.nv) and all(
        np.array_equal(getattr(mc, x), getattr(model, x)) for x in ("jnt_type", "jnt_qadr")
    )


def _c_piece(setup, X, k0: int, k1: int, dt: float):
    """Samples k0 .. k1 of the compiled rollout into the rows of X = (Q, V, A, TAU, Z, FC)
    (Z, FC None without states or contacts), from the state in row k0 (which it
    recomputes: a run in pieces equals a run in one). Returns (code, done, exc): done
    samples complete from k0; exc a signal handler's exception (Ctrl-C) when code is
    _INTERRUPTED."""
    s = setup
    Q, V, A, TAU, Z, FC = X
    q, v = Q[k0].copy(), V[k0].copy()
    z = None if Z is None else Z[k0].copy()
    rows = slice(k0, k1 + 1)
    return core.simulate(s.P, s.Pc, q, v, k1 - k0, float(dt), s.integrator, s.law, s.flags,
                         s.cflags, s.params, Q[rows], V[rows], A[rows], TAU[rows], k0, s.env,
                         s.fext, z, None if Z is None else Z[rows],
                         None if FC is None else FC[rows])  # fmt: skip


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
    if 2000 <= code < 2000 + model.nv:  # the Cholesky road of a model with mimic joints
        joint = model.joint_names_all[int(model.dof_body[code - 2000])]
        return f"the dynamics failed: the mass matrix is singular at joint {joint!r}'s dof"
    return f"the dynamics failed (core code {code})"


def _run_compiled(setup, run, q, v, z, bar):
    """One rollout in the compiled core from (q, v) and the law's states z (None without
    them): in one call, or, streaming to ``out`` or with a progress bar, in pieces of
    _PIECE steps written straight into the files of the ``.partial`` folder (each piece
    marked done on disk)."""
    K, nq, nv, meta = run.K, run.model.nq, run.model.nv, run.meta
    nz, nc = setup.nz, setup.nc
    meta["n_eval"] = K * (4 if meta["integrator"] == "rk4" else 1) + 1
    rec = X = None
    try:
        if run.folder is not None:
            rec = _Record(K, (nq,), (nv,), (nz,) if nz else None, run.folder, meta, nc)
            rec.x["t"][:] = run.dt * np.arange(K + 1)
            X = tuple(rec.x.get(x) for x in ("q", "v", "a", "tau", "z", "contact_force"))
        else:
            X = (np.empty((K + 1, nq)), *(np.empty((K + 1, nv)) for _ in range(3)),
                 np.empty((K + 1, nz)) if nz else None,
                 np.empty((K + 1, 3 * nc)) if nc else None)  # fmt: skip
        X[0][0], X[1][0] = q, v
        if nz:
            X[4][0] = z
        code, n, exc = _c_pieces(setup, run, X, rec, bar)
    except KeyboardInterrupt as stop_here:  # Ctrl-C before the first piece
        if X is None:  # before the samples exist: simulate hands back an empty trajectory
            raise
        code, n, exc = _INTERRUPTED, 0, stop_here
    meta["complete"] = code == 0
    if code:
        meta["n_eval"] = None
    return _compiled_result(run, rec, X, code, n, exc)


def _c_pieces(setup, run, X, rec, bar):
    """Steps 0 .. K into X, in one piece, or in pieces of _PIECE steps (each marked done on
    disk) when streaming or showing progress. Returns (code, n, exc): the core's error code
    (0: done; _INTERRUPTED: Ctrl-C, exc its exception) and the n samples complete."""
    K, k, n = run.K, 0, 0
    piece = K if rec is None and bar is None else _PIECE
    try:
        while True:
            k1 = min(K, k + piece)
            code, done, exc = _c_piece(setup, X, k, k1, run.dt)
            if code:
                return code, k + done, exc
            n = k1 + 1  # samples 0 .. k1 are complete
            if bar is not None:
                bar.update(k1 - k)
            if k1 == K:
                return code, n, exc
            if rec is not None:
                rec.mark(n)
            k = k1
    except KeyboardInterrupt as stop_here:  # Ctrl-C between two pieces
        return _INTERRUPTED, n, stop_here


def _compiled_result(run, rec, X, code: int, n: int, exc):
    """The rollout's Trajectory (written to ``out``), or, when the core stopped it (code),
    SimulationInterrupted / SimulationError with its n samples; with on_divergence="mark",
    its samples then NaN, ``status`` and ``t_end``."""
    model, K, dt, meta = run.model, run.K, run.dt, run.meta

    def cut(n):
        if rec is not None:
            return rec.trajectory(n, (), model, meta)
        Z, FC = X[4], X[5]
        fc = None if FC is None else FC[:n].reshape(n, -1, 3)
        return Trajectory(dt * np.arange(n), X[0][:n], X[1][:n], X[2][:n], X[3][:n],
                          z=None if Z is None else Z[:n], meta=meta, model=model,
                          contact_force=fc)  # fmt: skip

    if code == _INTERRUPTED:
        _stopped(run, n, cut(n), None, exc)
    if code and not run.mark:
        _stopped(run, n, cut(n), _c_message(code, model), None)
    status = None
    if run.mark:  # one rollout: NaN after its last good sample, and why it stopped
        status = 0
        if code:
            status = 1 if code == 16 else _status_of(code)
            if status == 2 and _runaway(model, cut(n)):
                status = 1
            for x in X:
                if x is not None:
                    x[n:] = np.nan
            meta["complete"], meta["failed_rollouts"] = True, 1
    res = cut(K + 1)
    if status is not None:
        res.status = np.asarray(status)
        last = K if not code else n - 1  # the last good sample (-1: none)
        res.t_end = np.asarray(last * dt if last >= 0 else np.nan)
    if run.out is not None:
        rec.finish(res, run.out)
    return res
