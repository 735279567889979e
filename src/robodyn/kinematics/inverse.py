"""Numerical inverse kinematics (Modern Robotics ch. 6): one pose, many poses at once, and
every solution of a 6-DoF arm.

:func:`ik` solves one pose by damped least squares (or Newton-Raphson) on the body-twist
error, with joint limits, restarts, a time budget and a bounded least-squares last stage;
for an arm without a floating base a start runs whole in the compiled core
(``kernels/core/ik.c``).

:func:`ik_batch` runs the damped least squares (or Newton) iteration of
:func:`robodyn.ik` on a whole batch of targets: each iteration makes one call of the
compiled core's batched IK residual (pose, body Jacobian and body-twist error of every
lane still running, threads over the batch) and solves the ``m x m`` damped normal
equations of all those lanes with one vectorised numpy call; converged lanes leave the
batch. For the damped least squares of a fixed-base arm, the lanes whose first start
fails, and the last few lanes of the first start, go on one by one in the compiled core's
start (``kernels/core/ik.c``, the same arithmetic continued from the same iterate,
iteration count and error history): there a vectorised iteration would pay its Python
overhead for a handful of lanes. Restarts draw within the limits from each lane's own
generator.

:func:`ik_all` enumerates the isolated solutions of an arm whose joints match the task
(6 joints for a full pose, 3 for a position): a batch of random starts within the
limits, the converged ones verified by forward kinematics and deduplicated modulo full
turns of the revolute joints, repeated until a round finds nothing new.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np

from .._checks import as_array, as_vector
from ..kernels import core as _core
from ..kernels.call import finish
from ..kernels.call import threads as _threads
from ..model.configuration import neutral, random_configuration
from ..model.model import JOINT_FREE, JOINT_REVOLUTE, JOINT_SPHERICAL, Model
from ..spatial import check_transform, inv_transform, log6
from .configuration import integrate
from .forward import _frame_index, _lie, _Pack, _packed, _sample_ranges, fk

__all__ = ["ik", "ik_batch", "ik_all", "IKResult"]

_ND = np.ndarray
_TAIL = 32  # lanes left when the batch hands them to the compiled core one by one


@dataclass(frozen=True)
class IKResult:
    """Outcome of :func:`ik`.

    Attributes
    ----------
    q : numpy.ndarray, shape (nq,) or, for a batch, (..., nq)
        The solution when ``success``, else the best iterate found.
    success : bool or numpy.ndarray of bool, shape (...)
        Both error norms are within their tolerances.
    iterations : int or numpy.ndarray of int, shape (...)
        Number of updates of q (summed over restarts).
    error : float or numpy.ndarray, shape (...)
        Norm of the final error (the body twist ``log6(T_sf^-1 T_target)``, its weighted
        rows kept, or the position error).
    message : str or numpy.ndarray of str (object), shape (...)
        Why it stopped.
    """

    q: np.ndarray
    success: bool
    iterations: int
    error: float
    message: str


# ------------------------------------------------------------------ what a solve needs
class _Limits(NamedTuple):
    lo: np.ndarray  # (nq,) lower limits, -inf for the free joint
    hi: np.ndarray  # (nq,) upper limits
    dof_q: np.ndarray  # (m,) q index of each limited one-coordinate dof
    dof_v: np.ndarray  # (m,) its v index
    any: bool  # a limited dof exists
    floating: bool  # a joint of several coordinates (a floating base): q moves on its group


def _limits(model: Model) -> _Limits:
    """The joint limits as IK uses them, built once and cached on the immutable model."""
    try:
        return model._ik_limits
    except AttributeError:
        pass
    lo = np.array(model.q_lower)
    hi = np.array(model.q_upper)
    dof_q, dof_v = [], []
    for i in range(1, model.nb):
        if model.jnt_nq[i] == 0:
            continue
        qa = int(model.jnt_qadr[i])
        if int(model.jnt_type[i]) in (JOINT_FREE, JOINT_SPHERICAL):  # a quaternion is kept
            n = int(model.jnt_nq[i])  # unit, not clipped (free: 7 entries, spherical: 4)
            lo[qa : qa + n] = -np.inf
            hi[qa : qa + n] = np.inf
        elif np.isfinite(lo[qa]) or np.isfinite(hi[qa]):
            dof_q.append(qa)
            dof_v.append(int(model.jnt_vadr[i]))
    lim = _Limits(lo, hi, np.array(dof_q, dtype=np.int64), np.array(dof_v, dtype=np.int64),
                  bool(dof_q), _lie(model))  # fmt: skip
    object.__setattr__(model, "_ik_limits", lim)
    return lim


def _draw(model: Model, gen) -> np.ndarray:
    """A restart: the numbers :func:`robodyn.random_configuration` (model, gen) draws,
    with the ranges computed once per model (a restart is drawn per failed start, so its
    cost shows in a batch)."""
    ranges = _sample_ranges(model)
    if ranges is None:
        return random_configuration(model, gen)
    q1, lo, hi = ranges
    q = np.zeros(model.nq)
    q[q1] = gen.uniform(lo, hi, size=(1, len(q1)))[0]
    return q


class _Task(NamedTuple):
    """What an IK solve drives to zero: the rows of the body-twist error kept and their
    weights, or the world position error alone."""

    w: np.ndarray  # (6,) row weights of [omega; v]
    rows: np.ndarray  # (m,) the rows with a positive weight
    position_only: bool
    ang: bool  # an angular row is kept (its tolerance applies)
    lin: bool


_FULL_TASK = _Task(np.ones(6), np.arange(6), False, True, True)  # the whole pose


def _task(position_only, weights) -> _Task:
    if weights is None and not position_only:
        return _FULL_TASK
    if position_only:
        if weights is not None:
            raise ValueError("give either position_only=True or weights=, not both")
        return _Task(np.array([0.0, 0, 0, 1, 1, 1]), np.arange(3, 6), True, False, True)
    w = as_vector(weights, "weights", 6)
    if np.any(w < 0) or not np.any(w > 0):
        raise ValueError(
            f"weights must be 6 numbers >= 0 (rows [omega; v]), not all zero, got {w.tolist()}"
        )
    rows = np.flatnonzero(w > 0)
    if np.array_equal(rows, np.arange(3, 6)) and np.all(w[3:] == w[3]):
        return _task(True, None)  # the linear rows alone: position-only
    return _Task(w, rows, False, bool(np.any(rows < 3)), bool(np.any(rows >= 3)))


class _Problem(NamedTuple):
    """One IK problem as the stages of a solve see it: the model (packed), the frame, the
    task and the checked options (as given, so that the messages quote them)."""

    model: Model
    pack: _Pack
    k: int  # the frame's index
    task: _Task
    method: str
    tol_omega: float
    tol_v: float
    lam2: float  # damping^2: the floor of the Levenberg-Marquardt damping
    max_step: float  # inf for None
    max_iterations: int
    restarts: int
    timeout: float | None
    t_end: float | None  # the time.perf_counter() at which the timeout runs out
    lim: _Limits
    clip: bool  # respect_limits, and a joint has limits


def _problem(model, pack, k, task, method, tol_omega, tol_v, damping, max_step, max_iterations,
             restarts, timeout, respect_limits) -> _Problem:  # fmt: skip
    """The options of :func:`ik` and :func:`ik_batch` checked (a ValueError names the one
    that is wrong), with the joint limits and the deadline of the timeout."""
    if method not in ("newton", "dls"):
        raise ValueError(f"method must be 'newton' or 'dls', got {method!r}")
    for name, val in (("tol_omega", tol_omega), ("tol_v", tol_v), ("damping", damping)):
        if not (np.isfinite(val) and val >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {val!r}")
    if max_step is None:
        max_step = np.inf
    elif not max_step > 0:
        raise ValueError(f"max_step must be > 0 or None, got {max_step!r}")
    if int(max_iterations) != max_iterations or max_iterations < 0:
        raise ValueError(f"max_iterations must be an integer >= 0, got {max_iterations!r}")
    if int(restarts) != restarts or restarts < 0:
        raise ValueError(f"restarts must be an integer >= 0, got {restarts!r}")
    if timeout is not None and not (np.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    lim = _limits(model)
    t_end = None if timeout is None else time.perf_counter() + float(timeout)
    return _Problem(model, pack, k, task, method, tol_omega, tol_v, float(damping) ** 2,
                    max_step, max_iterations, restarts, timeout, t_end, lim,
                    respect_limits and lim.any)  # fmt: skip


def _one_target(T_target) -> np.ndarray:
    """T_target as one pose, a (4, 4) float array (ValueError naming it otherwise)."""
    T = as_array(T_target, "T_target", (4, 4))
    if T.ndim != 2:
        raise ValueError(f"T_target must have shape (4, 4), got {T.shape}")
    check_transform(T, "T_target")
    return T


def _converged(it, attempt) -> str:
    return f"converged in {it} iterations" + (f" (restart {attempt})" if attempt else "")


def _timed_out(p: _Problem, starts: int = 0) -> str:
    return f"timed out after {p.timeout:g} s" + (f" and {starts} start(s)" if starts else "")


def _not_converged(p: _Problem) -> str:
    return f"did not converge in {p.max_iterations} iterations x {int(p.restarts) + 1} start(s)"


# ---------------------------------------------------------------------------- one pose
def ik(
    model: Model,
    frame,
    T_target,
    q0=None,
    *,
    method: str = "dls",
    tol_omega: float = 1e-8,
    tol_v: float = 1e-8,
    max_iterations: int = 100,
    damping: float = 1e-3,
    respect_limits: bool = True,
    max_step: float | None = 1.0,
    restarts: int = 50,
    timeout: float | None = None,
    rng=None,
    position_only: bool = False,
    weights=None,
    threads: int | None = None,
) -> IKResult:
    """Inverse kinematics of one frame: find q with ``fk(model, q, frame) = T_target``.

    Each iteration computes the body-twist error ``V_b = log6(T_sf(q)^-1 T_target)``
    and the body Jacobian ``J_b(q)``, stops when ``|omega_b| <= tol_omega`` and
    ``|v_b| <= tol_v``, and otherwise updates q by

    * ``"dls"`` (default): damped least squares (Levenberg-Marquardt),
      ``dq = J_b^T (J_b J_b^T + lambda_k I)^-1 V_b`` with ``lambda_k = damping^2 +
      |V_b|^2``: the step stays bounded near singularities and far from the target, and
      tends to the Newton step (fast convergence) as the error vanishes;
    * ``"newton"``: Newton-Raphson, ``dq = pinv(J_b) V_b`` (MR alg. IKinBody, sec. 6.2.2);

    then ``q <- q (+) dq`` (:func:`robodyn.integrate`, exact for a floating base) and, if
    ``respect_limits``, clips q into the joint limits. It never loops forever: it stops
    after ``max_iterations`` updates per start. For an arm without a floating base the
    ``"dls"`` iteration of one start runs whole in the compiled core
    (``kernels/core/ik.c``).

    Variants: ``position_only=True`` drives the world position error ``p_target - p``
    to zero with any orientation (Jacobian ``R_sf J_b,v``, the velocity of the frame
    origin); ``weights`` (6,) scales the rows ``[omega; v]`` of ``V_b`` and ``J_b``
    (orientation-weighted IK: a zero drops a row and its tolerance, a small weight makes
    it yield when the pose is out of reach; the solve then returns the weighted
    least-squares compromise with ``success=False``).

    Parameters
    ----------
    model : Model
    frame : str or int
        The frame to place.
    T_target : array_like, shape (4, 4) or (..., 4, 4)
        Desired pose ``T_sd`` in the world. Leading dimensions make a batch solved at once
        by :func:`ik_batch` (vectorised damped least squares on
        the batch kernels); the result's fields then carry those dimensions.
    q0 : array_like, shape (nq,) or (..., nq), optional
        Initial guess (default: the neutral configuration). Leading dimensions (broadcast
        with T_target's) make a batch too: one pose from many starts.
    method : {"newton", "dls"}
    tol_omega, tol_v : float
        Tolerances on the norms of the angular and linear parts of ``V_b`` (rad, m).
    max_iterations : int
        Update cap per start.
    damping : float
        Floor of the damped least squares damping (``lambda_k >= damping^2``).
    respect_limits : bool
        Clip q into ``[model.q_lower, model.q_upper]`` after each update; a joint on a
        limit that the step would push through is frozen for that step and the step
        recomputed with the other joints.
    max_step : float or None
        Largest entry of ``|dq|`` per update (rad or m); a longer step is scaled down.
        It only acts far from the solution and makes Newton much more robust; None gives
        MR's plain IKinBody step.
    restarts : int
        After a failed start, retry up to this many times from
        :func:`robodyn.random_configuration` draws (within the joint limits). A start
        that stalls (its error not halved in 15 iterations) or reaches ``max_iterations``
        fails, so a start in a poor basin costs a few iterations, not the whole budget.
        ``restarts=0, method="newton", max_step=None`` is MR's IKinBody.
    timeout : float, optional
        Wall-clock budget in seconds over all starts (checked between starts, so it can
        be exceeded by one start, at most ``max_iterations`` updates); when it runs out
        the best iterate so far is returned with ``success=False`` and a message saying so.
    rng : numpy.random.Generator or int, optional
        Random source of the restarts (default a fixed seed: the same call gives the same
        answer).
    position_only : bool
        Reach the position of the frame origin with any orientation.
    weights : array_like, shape (6,), optional
        Weights >= 0 of the error rows ``[omega_x, omega_y, omega_z, v_x, v_y, v_z]``.
    threads : int, optional
        Threads of a batch's residual calls (batch only; default 1).

    Returns
    -------
    IKResult
        ``q``, ``success``, ``iterations``, ``error`` (norm of the final error rows) and
        a ``message`` saying why it stopped. The best iterate over all starts is
        returned on failure.
    """
    pack = model.__dict__.get("_kinematics_pack") or _packed(model)
    k = pack.frames.get(frame) if type(frame) is str else None
    if k is None:
        k = _frame_index(model, pack, frame)
    if np.ndim(T_target) > 2 or np.ndim(q0) > 1:
        return ik_batch(model, frame, T_target, q0, method=method, tol_omega=tol_omega,
                        tol_v=tol_v, max_iterations=max_iterations, damping=damping,
                        respect_limits=respect_limits, max_step=max_step, restarts=restarts,
                        timeout=timeout, rng=rng, position_only=position_only,
                        weights=weights, threads=threads)  # fmt: skip
    T_flat = np.ascontiguousarray(_one_target(T_target), dtype=float).reshape(16)
    task = _task(position_only, weights)
    q = neutral(model) if q0 is None else as_vector(q0, "q0", pack.nq).copy()
    p = _problem(model, pack, k, task, method, tol_omega, tol_v, damping, max_step,
                 max_iterations, restarts, timeout, respect_limits)  # fmt: skip
    gen = np.random.default_rng(0 if rng is None else rng)
    if method == "dls" and not p.lim.floating:  # each start whole in the compiled core
        ok, q, total, err, why = _c_starts(p, T_flat, _c_options(p), q, 0, gen)
        if ok:
            return IKResult(q, True, total, err, why)
        best = (err, q)
    else:  # Newton, or a floating base (q moves on its group): the starts in Python
        done, total, best, why = _python_starts(p, T_flat, q, gen)
        if done is not None:
            return done
    q, ok, nit, err, why = _last_stage(p, T_flat, best, why or _not_converged(p), lambda: gen)
    return IKResult(q, ok, total + nit, err, why)


def _python_starts(p: _Problem, T_flat, q, gen):
    """The starts of :func:`ik` in Python: the first from q, then draws of
    :func:`robodyn.random_configuration` until one converges, the restarts are spent or
    the time is up. Returns (the result of the start that converged, else None; the
    updates of the failed starts; the best (error, q); why they stopped)."""
    total = 0
    best = (np.inf, q)
    why = _not_converged(p)
    for attempt in range(int(p.restarts) + 1):
        if attempt > 0:
            if p.t_end is not None and time.perf_counter() > p.t_end:
                why = _timed_out(p, attempt)
                break
            q = random_configuration(p.model, gen)
        if p.clip:
            q = np.clip(q, p.lim.lo, p.lim.hi)
        done, it, best, why = _python_start(p, T_flat, q, attempt, total, best, why)
        if done is not None:
            return done, total, best, why
        total += it
        if why.startswith("timed out"):
            break
    return None, total, best, why


def _python_start(p: _Problem, T_flat, q, attempt, total, best, why):
    """One start of :func:`ik` in Python, from q: it ends converged, at the iteration cap,
    stalled (its error not halved in 15 iterations, when restarts are allowed), out of
    time or off the finite numbers. Returns (the result if it converged, else None; its
    updates; the best (error, q) so far; why it stopped)."""
    it = 0
    history = []  # the error of each iteration of this start (stall detection)
    while True:
        q = np.ascontiguousarray(q, dtype=float)
        r = _core.ik_residual(p.pack.P, q, T_flat, p.k, 1)
        if r.__class__ is not _ND:
            finish(r, (), ("q", "T_target"), p.model)
        e, J, ew, ev = _task_error(p.task, r, T_flat, p.pack.nv)
        err = float(np.hypot(ew, ev))
        if err < best[0]:
            best = (err, q.copy())
        if ew <= p.tol_omega and ev <= p.tol_v:
            return IKResult(q, True, total + it, err, _converged(it, attempt)), it, best, why
        if it >= p.max_iterations:
            break
        history.append(err)
        if p.restarts and len(history) > 15 and err > 0.5 * history[-16] and err > 1e-5:
            break  # stalled in a poor basin: a new start is cheaper than more steps
        if p.t_end is not None and it % 8 == 7 and time.perf_counter() > p.t_end:
            why = _timed_out(p)
            break
        q = _python_update(p, q, J, e)
        if not np.all(np.isfinite(q)):
            break
        it += 1
    return None, it, best, why


def _python_update(p: _Problem, q, J, e):
    """q after one update of :func:`ik`: the step, capped at max_step, on the group of a
    floating base, clipped into the limits."""
    dq = _step(J, e, p.method, p.lam2)
    if p.clip:
        # joints on a limit that the step pushes outward are frozen and the step
        # recomputed with the others (active set), so a redundant arm keeps
        # converging along its limits instead of stalling against them
        blocked = _blocked(p.lim, q, dq)
        if blocked.size:
            J = J.copy()
            J[:, blocked] = 0.0
            dq = _step(J, e, p.method, p.lam2)
            dq[blocked] = 0.0
    big = float(np.abs(dq).max()) if dq.size else 0.0
    if big > p.max_step:
        dq *= p.max_step / big  # step cap: keeps Newton out of wild jumps
    q = integrate(p.model, q, dq, check=False) if p.lim.floating else q + dq
    if p.clip:
        q = np.clip(q, p.lim.lo, p.lim.hi)
    return q


def _pushed_out(lim: _Limits, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """Which limited dofs (of one q or, batched, of each row) sit on a limit that dq would
    push through."""
    x, d = q[..., lim.dof_q], dq[..., lim.dof_v]
    return ((x >= lim.hi[lim.dof_q]) & (d > 0)) | ((x <= lim.lo[lim.dof_q]) & (d < 0))


def _blocked(lim: _Limits, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """v indices of the dofs sitting on a limit that dq would push through."""
    return lim.dof_v[_pushed_out(lim, q, dq)]


def _step(J: np.ndarray, Vb: np.ndarray, method: str, lam2: float) -> np.ndarray:
    if method == "newton":
        return np.linalg.pinv(J, rcond=1e-12) @ Vb  # MR eq. 6.7 with J^+
    # Levenberg-Marquardt with lambda_k = damping^2 + |V_b|^2 (Fan-Yuan): strong damping
    # far from the target, nearly the Newton step (fast convergence) close to it; within
    # 1e-4 of it the floor goes, so a target at a singular configuration (a stretched
    # elbow) is still reached superlinearly
    e2 = float(Vb @ Vb)
    lam = (lam2 if e2 > 1e-8 else 0.0) + e2
    return J.T @ np.linalg.solve(J @ J.T + lam * np.eye(J.shape[0]), Vb)


def _task_error(task: _Task, r: np.ndarray, T_flat: np.ndarray, nv: int):
    """(e, G, |omega error|, |v error|) from an ``ik_residual`` output r: the weighted rows
    of (V_b, J_b), or for position only ``e = p_sd - p`` with ``G = R J_b,v`` (world)."""
    J, Vb = r[16 : 16 + 6 * nv].reshape(6, nv), r[16 + 6 * nv :]
    if task.position_only:
        T = r[:16].reshape(4, 4)
        e = T_flat.reshape(4, 4)[:3, 3] - T[:3, 3]
        return e, T[:3, :3] @ J[3:], 0.0, float(np.linalg.norm(e))
    ew = float(np.linalg.norm(Vb[:3][task.w[:3] > 0]))
    ev = float(np.linalg.norm(Vb[3:][task.w[3:] > 0]))
    if task is _FULL_TASK:
        return Vb, J, ew, ev
    return task.w[task.rows] * Vb[task.rows], task.w[task.rows, None] * J[task.rows], ew, ev


def _c_options(p: _Problem):
    """(lo, hi, opts) of ``_core.ik_dls``."""
    lim, task = p.lim, p.task
    nv = len(lim.lo)
    lo, hi = (lim.lo, lim.hi) if p.clip else (np.full(nv, -np.inf), np.full(nv, np.inf))
    opts = np.array([p.tol_omega if task.ang else np.inf, p.tol_v if task.lin else np.inf,
                     p.lam2, p.max_step, p.max_iterations, 1.0 if p.restarts else 0.0,
                     1.0 if task.position_only else 0.0, 0.0])  # fmt: skip
    return lo, hi, opts


def _c_starts(p: _Problem, T_flat, c_options, q, attempt, gen, it0=0, hist=None):
    """The starts of :func:`ik` in the compiled core, from start number ``attempt`` (q its
    start, or with ``it0`` > 0 its iterate after it0 updates, ``hist`` their errors), then
    fresh draws within the limits until ``restarts``. Returns (converged, q, iterations,
    error, message: why it converged or timed out, None when it ran out of starts)."""
    lo, hi, opts = c_options
    total = 0
    best = (np.inf, q)
    while True:
        q = np.ascontiguousarray(q, dtype=float)
        if it0:
            o = opts.copy()
            o[7] = it0
            res = _core.ik_dls(p.pack.P, q, T_flat, p.k, lo, hi, p.task.w, o,
                               np.ascontiguousarray(hist[:it0]))  # fmt: skip
            it0 = 0
        else:
            res = _core.ik_dls(p.pack.P, q, T_flat, p.k, lo, hi, p.task.w, opts, None)
        qe, qb, status, it, err = res
        if status == 0:
            return True, qe, total + it, err, _converged(it, attempt)
        total += it
        if err < best[0]:
            best = (err, qb)
        if attempt >= int(p.restarts):
            return False, best[1], total, best[0], None
        attempt += 1
        if p.t_end is not None and time.perf_counter() > p.t_end:
            return False, best[1], total, best[0], _timed_out(p, attempt)
        q = _draw(p.model, gen)


def _last_stage(p: _Problem, T_flat, best, why: str, gen):
    """After the starts failed: the bounded least-squares stage when the limits are in
    play, restarts allowed and time left, else the best (error, q) of the starts.
    ``gen()`` gives the random source of the stage's draws (called only when it runs).
    Returns (q, success, evaluations, error, message)."""
    nit = 0
    if p.restarts and p.clip and not p.lim.floating and not why.startswith("timed out"):
        res, nit, timed_out = _bounded_stage(p, T_flat, best[1], gen())
        if res[2]:
            return res[0], True, nit, res[1], "converged in the bounded least-squares stage"
        if res[1] < best[0]:
            best = (res[1], res[0])
        if timed_out:
            why = _timed_out(p)
    err, q = best
    return q, False, nit, err, f"{why}; best twist error {err:.3g}"


def _bounded_stage(p: _Problem, T_flat, q_best, gen):
    """The last resort for solutions pressed against the joint limits: a bounded
    trust-region least-squares solve (scipy's "trf") from the best iterate and from a few
    more draws within the limits. Returns ((q, error, converged), evaluations, timed out)."""
    nv = p.pack.nv
    best = (q_best, np.inf, False)
    total = 0
    for attempt in range(25):
        if p.t_end is not None and time.perf_counter() > p.t_end:
            return best, total, True
        x0 = q_best if attempt == 0 else random_configuration(p.model, gen)
        qb, nit = _bounded_solve(p, T_flat, np.clip(x0, p.lim.lo, p.lim.hi))
        total += nit
        r = _core.ik_residual(p.pack.P, qb, T_flat, p.k, 1)
        _, _, ew, ev = _task_error(p.task, r, T_flat, nv)
        err = float(np.hypot(ew, ev))
        if ew <= p.tol_omega and ev <= p.tol_v:
            return (qb, err, True), total, False
        if err < best[1]:
            best = (qb, err, False)
    return best, total, False


def _bounded_solve(p: _Problem, T_flat, q0):
    """scipy's bounded trust-region least squares on the IK error e(q) (the weighted rows
    of V_b(q), with de/dq ~ -J_b, or the position error); returns (q, evaluations)."""
    from scipy.optimize import least_squares

    pack, k, task, lim, nv = p.pack, p.k, p.task, p.lim, p.pack.nv

    def residual(q):
        r = _core.ik_residual(pack.P, np.ascontiguousarray(q), T_flat, k, 1)
        return _task_error(task, r, T_flat, nv)[0]

    def jac(q):
        r = _core.ik_residual(pack.P, np.ascontiguousarray(q), T_flat, k, 1)
        return -_task_error(task, r, T_flat, nv)[1]

    lo = np.where(np.isfinite(lim.lo), lim.lo, -np.inf)
    hi = np.where(np.isfinite(lim.hi), lim.hi, np.inf)
    x0 = np.clip(q0, lo + 1e-12 * (hi - lo), hi - 1e-12 * (hi - lo))
    sol = least_squares(residual, x0, jac=jac, bounds=(lo, hi), method="trf", xtol=1e-15,
                        ftol=1e-15, gtol=1e-15, max_nfev=200)  # fmt: skip
    return np.ascontiguousarray(sol.x), int(sol.nfev)


# ------------------------------------------------------------------------- many poses
def ik_batch(
    model: Model,
    frame,
    T_target,
    q0=None,
    *,
    method: str = "dls",
    tol_omega: float = 1e-8,
    tol_v: float = 1e-8,
    max_iterations: int = 100,
    damping: float = 1e-3,
    respect_limits: bool = True,
    max_step: float | None = 1.0,
    restarts: int = 50,
    timeout: float | None = None,
    rng=None,
    position_only: bool = False,
    weights=None,
    threads: int | None = None,
) -> IKResult:
    """:func:`robodyn.ik` on a batch of targets, vectorised over the batch.

    The iteration, its stopping tests, the joint-limit active set, the restarts and the
    bounded least-squares last stage are those of :func:`robodyn.ik` (see it for every
    parameter). With ``rng`` None or an integer seed every lane draws its restarts from
    the generator :func:`robodyn.ik` would use with that ``rng``, so each lane follows
    the single solve of its pose and agrees with it to rounding (a generator object as
    ``rng`` seeds one generator per lane from it instead).

    Parameters
    ----------
    model : Model
    frame : str or int
    T_target : array_like, shape (..., 4, 4) or (4, 4)
    q0 : array_like, shape (nq,) or (..., nq), optional
        Start(s) (default: neutral). The batch is T_target's and q0's leading dimensions
        broadcast together: many poses from one start, one pose from many starts, or
        pose k from start k.
    timeout : float, optional
        Budget in seconds for the whole batch; lanes still running when it ends return
        their best iterate with a message saying so.
    threads : int, optional
        Threads of the batched residual (default 1: one iteration's residual is about a
        microsecond a lane, so threads gain little, and on a busy machine every call
        would wait for its threads to be scheduled; give more for very wide batches).

    Returns
    -------
    IKResult
        ``q`` (..., nq), ``success`` (...) bool, ``iterations`` (...) int, ``error``
        (...), ``message`` (...) object array of str (why each lane stopped).
    """
    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    lead, T, Q = _batch_targets(model, pack, T_target, q0)
    task = _task(position_only, weights)
    p = _problem(model, pack, k, task, method, tol_omega, tol_v, damping, max_step,
                 max_iterations, restarts, timeout, respect_limits)  # fmt: skip
    th = 1 if threads is None else _threads(threads)
    lanes = _Lanes(p, T, Q, _lane_generators(rng))
    handed = _iterate_lanes(p, lanes, th)
    if handed:  # lanes whose first start failed: their restarts run in the core
        handed = np.concatenate(handed)
        if p.t_end is not None and time.perf_counter() > p.t_end:
            lanes.cut[handed] = True  # out of time before their next start
        else:
            _in_core(p, lanes, handed)
    # lanes left: the bounded least-squares stage one by one, as robodyn.ik does
    for i in np.flatnonzero(~lanes.success):
        why = _timed_out(p) if lanes.cut[i] else _not_converged(p)
        best = (lanes.best_err[i], lanes.best_q[i])
        q, ok, nit, err, msg = _last_stage(p, lanes.Tf[i], best, why, partial(lanes.gen, i))
        lanes.total[i] += nit
        lanes.Q[i], lanes.err_out[i], lanes.success[i], lanes.message[i] = q, err, ok, msg
    return lanes.result(lead)


def _batch_targets(model: Model, pack: _Pack, T_target, q0):
    """The batch of :func:`ik_batch`: T_target's and q0's leading dimensions broadcast
    together (ValueError naming the argument that does not fit). Returns (the leading
    dimensions, the targets (N, 4, 4), the starts (N, nq))."""
    T = as_array(T_target, "T_target", (4, 4))
    if T.ndim < 2 or T.shape[-2:] != (4, 4):
        raise ValueError(f"T_target must have shape (..., 4, 4), got {T.shape}")
    check_transform(T, "T_target")
    nq = pack.nq
    lead = T.shape[:-2]
    if q0 is not None:
        q0 = np.asarray(q0, dtype=float)
        if q0.ndim == 0 or q0.shape[-1] != nq:
            raise ValueError(f"q0 must have shape (nq,) = ({nq},) or (..., {nq}), got {q0.shape}")
        try:  # the batch: T_target's and q0's leading dimensions broadcast together
            lead = np.broadcast_shapes(lead, q0.shape[:-1])
        except ValueError:
            raise ValueError(
                f"q0 of shape {q0.shape} does not broadcast against T_target's batch {lead}"
            ) from None
        if not np.all(np.isfinite(q0)):
            raise ValueError("q0 contains NaN or inf")
    N = math.prod(lead)
    T = np.ascontiguousarray(np.broadcast_to(T, (*lead, 4, 4)), dtype=float).reshape(N, 4, 4)
    if q0 is None:
        Q = np.tile(neutral(model), (N, 1))
    else:
        Q = np.broadcast_to(q0, (*lead, nq)).reshape(N, nq).copy()
    return lead, T, Q


def _lane_generators(rng):
    """``gen(i)``: lane i's own random source, made on first use. With rng None or a seed
    it is the generator a single ``rd.ik(..., rng=rng)`` would use, so a lane's restarts
    are that solve's restarts; a generator as rng seeds one per lane from it instead."""
    seeded = rng is None or isinstance(rng, (int, np.integer))
    parent = None if seeded else np.random.default_rng(rng)
    gens: dict = {}

    def gen(i):
        if i not in gens:
            gens[i] = np.random.default_rng(
                (0 if rng is None else int(rng)) if seeded else parent.integers(2**63)
            )
        return gens[i]

    return gen


class _Lanes:
    """The lanes of :func:`ik_batch`, one per target: its iterate and counters, the best
    iterate so far and the outcome."""

    def __init__(self, p: _Problem, T: np.ndarray, Q: np.ndarray, gen):
        N = len(Q)
        self.T, self.Tf = T, T.reshape(N, 16)
        self.Q = np.clip(Q, p.lim.lo, p.lim.hi) if p.clip else Q
        self.gen = gen  # gen(i): lane i's random source
        self.success = np.zeros(N, bool)
        self.total = np.zeros(N, np.int64)  # updates over all starts
        self.it = np.zeros(N, np.int64)  # updates of the current start
        self.attempt = np.zeros(N, np.int64)
        self.best_err = np.full(N, np.inf)
        self.best_q = self.Q.copy()
        self.hist = np.zeros((N, int(p.max_iterations) + 1))  # errors of the current start
        self.err_out = np.full(N, np.inf)
        self.message = np.empty(N, dtype=object)
        self.cut = np.zeros(N, bool)  # lanes stopped by the time budget

    def result(self, lead) -> IKResult:
        return IKResult(
            self.Q.reshape(*lead, self.Q.shape[1]),
            self.success.reshape(lead),
            self.total.reshape(lead),
            self.err_out.reshape(lead),
            self.message.reshape(lead),
        )


def _iterate_lanes(p: _Problem, L: _Lanes, th: int) -> list:
    """The vectorised iteration of the running lanes (one call of the batched residual a
    step) until each converges or fails, or the last few go on in the compiled core.
    Returns the lanes whose first start failed, when their restarts go to the core."""
    tail = p.method == "dls" and not p.lim.floating
    running = np.arange(len(L.Q))
    handed = []
    while running.size:
        if p.t_end is not None and time.perf_counter() > p.t_end:
            L.cut[running] = True
            L.total[running] += L.it[running]
            break
        if tail and running.size <= _TAIL:
            # the last few lanes: a vectorised iteration would cost its Python overhead
            # for a handful of lanes, so each goes on in the compiled core from where it
            # is (same iterate, iteration count and error history: the same arithmetic)
            _in_core(p, L, running)
            break
        q = np.ascontiguousarray(L.Q[running])
        # threads only pay off on a wide batch (each call starts its own)
        r = _core.ik_residual(p.pack.P, q, np.ascontiguousarray(L.Tf[running]), p.k,
                              th if running.size >= 512 else 1)  # fmt: skip
        if r.__class__ is not np.ndarray:
            raise ValueError(f"IK residual failed ({r}); q or T_target not finite")
        e, G, ew, ev = _batch_error(p.task, r, L.T[running], p.pack.nv)
        conv, ended = _converged_or_ended(p, L, running, q, ew, ev)
        again = ended & (L.attempt[running] < p.restarts)
        lanes = running[again]
        if lanes.size:  # a new start within the limits for each failed lane
            _new_starts(p, L, lanes)
        step = ~conv & ~ended
        if tail and lanes.size:
            handed.append(lanes)
            again[:] = False
        running_next = running[~conv & (~ended | again)]
        idx = running[step]
        if idx.size:
            _batch_update(p, L, idx, e[step], G[step], q[step])
        running = running_next
    return handed


def _converged_or_ended(p: _Problem, L: _Lanes, running, q, ew, ev):
    """The errors of the running lanes at iterate q: their best iterates kept, the
    converged ones finished. Returns (converged, start ended: at the iteration cap,
    stalled, or off the finite numbers), boolean over the running lanes."""
    err = np.hypot(ew, ev)
    better = err < L.best_err[running]
    L.best_err[running[better]] = err[better]
    L.best_q[running[better]] = q[better]
    tol_w = p.tol_omega if p.task.ang else np.inf
    tol_l = p.tol_v if p.task.lin else np.inf
    conv = (ew <= tol_w) & (ev <= tol_l)
    for i in running[conv]:
        L.message[i] = _converged(L.it[i], L.attempt[i])
    L.success[running[conv]] = True
    L.err_out[running[conv]] = err[conv]
    L.total[running[conv]] += L.it[running[conv]]
    # a start ends at the iteration cap, when stalled (error not halved in 15
    # iterations) or off the finite numbers
    itr = L.it[running]
    L.hist[running, np.minimum(itr, p.max_iterations)] = err
    back = L.hist[running, np.maximum(itr - 15, 0)]
    stall = (itr >= 15) & (err > 0.5 * back) & (err > 1e-5) if p.restarts else False
    ended = ~conv & ((itr >= p.max_iterations) | stall | ~np.isfinite(err))
    L.total[running[ended]] += itr[ended]
    return conv, ended


def _new_starts(p: _Problem, L: _Lanes, lanes) -> None:
    """A new start within the limits for each lane given (its own generator's draw)."""
    L.attempt[lanes] += 1
    L.it[lanes] = 0
    new = np.array([_draw(p.model, L.gen(i)) for i in lanes])
    L.Q[lanes] = np.clip(new, p.lim.lo, p.lim.hi) if p.clip else new


def _batch_update(p: _Problem, L: _Lanes, idx, e, G, qs) -> None:
    """One update of the lanes idx (iterates qs, errors e, Jacobians G): the step of
    :func:`ik` for each, with its active set, step cap, group update and clipping; a lane
    off the finite numbers ends that start at its best iterate."""
    dq = _batch_step(G, e, p.method, p.lam2)
    if p.clip:
        _freeze_pushed_out(p, qs, dq, G, e)
    nv = p.pack.nv
    big = np.abs(dq).max(axis=1) if nv else np.zeros(idx.size)
    scale = np.where(big > p.max_step, p.max_step / np.where(big > 0, big, 1.0), 1.0)
    dq *= scale[:, None]
    qn = integrate(p.model, qs, dq, check=False) if p.lim.floating else qs + dq
    qn = np.clip(qn, p.lim.lo, p.lim.hi) if p.clip else qn
    bad = ~np.all(np.isfinite(qn), axis=1)
    if bad.any():  # off the finite numbers: end that start at its best iterate
        qn[bad] = L.best_q[idx[bad]]
        L.it[idx[bad]] = p.max_iterations - 1
    L.Q[idx] = qn
    L.it[idx] += 1


def _freeze_pushed_out(p: _Problem, qs, dq, G, e) -> None:
    """The active set of :func:`ik`, batched: in the rows of dq where a joint on a limit is
    pushed outward, that joint is frozen and the step recomputed with the others."""
    lim = p.lim
    out = _pushed_out(lim, qs, dq)
    rows = np.flatnonzero(out.any(axis=1))
    if rows.size:
        frozen = np.zeros((rows.size, p.pack.nv), bool)
        frozen[:, lim.dof_v] = out[rows]
        Gf = np.where(frozen[:, None, :], 0.0, G[rows])
        dq[rows] = np.where(frozen, 0.0, _batch_step(Gf, e[rows], p.method, p.lam2))


def _in_core(p: _Problem, L: _Lanes, lanes) -> None:
    """The lanes given go on one by one in the compiled core's start, each from where it
    is (iterate, start number, iteration count, error history), through its restarts."""
    c_options = _c_options(p)
    for i in lanes:
        ok, q_i, n_i, e_i, msg = _c_starts(p, L.Tf[i], c_options, L.Q[i], int(L.attempt[i]),
                                           L.gen(i), int(L.it[i]), L.hist[i])  # fmt: skip
        L.total[i] += n_i
        if ok:
            L.Q[i], L.err_out[i], L.success[i], L.message[i] = q_i, e_i, True, msg
            continue
        if e_i < L.best_err[i]:
            L.best_err[i], L.best_q[i] = e_i, q_i
        if msg is not None:  # timed out
            L.cut[i] = True


def _batch_error(task, r, T, nv):
    """Vectorised :func:`_task_error`: (e (n, m), G (n, m, nv), ew, ev)."""
    n = r.shape[0]
    J = r[:, 16 : 16 + 6 * nv].reshape(n, 6, nv)
    Vb = r[:, 16 + 6 * nv :]
    if task.position_only:
        Tq = r[:, :16].reshape(n, 4, 4)
        e = T[:, :3, 3] - Tq[:, :3, 3]
        return e, Tq[:, :3, :3] @ J[:, 3:], np.zeros(n), np.linalg.norm(e, axis=1)
    ew = np.linalg.norm(Vb[:, :3] * (task.w[:3] > 0), axis=1)
    ev = np.linalg.norm(Vb[:, 3:] * (task.w[3:] > 0), axis=1)
    w = task.w[task.rows]
    return Vb[:, task.rows] * w, J[:, task.rows] * w[:, None], ew, ev


def _batch_step(G, e, method, lam2):
    """dq for every lane: ``pinv(G) e`` (Newton) or ``G^T (G G^T + lambda I)^-1 e``."""
    if method == "newton":
        return np.einsum("nij,nj->ni", np.linalg.pinv(G, rcond=1e-12), e)
    e2 = np.einsum("ni,ni->n", e, e)
    lam = np.where(e2 > 1e-8, lam2, 0.0) + e2  # Levenberg-Marquardt, as robodyn.ik
    A = G @ np.swapaxes(G, 1, 2)
    A[:, np.arange(A.shape[1]), np.arange(A.shape[1])] += lam[:, None]
    try:
        y = np.linalg.solve(A, e[..., None])[..., 0]
    except np.linalg.LinAlgError:  # an exactly singular lane with no damping left
        y = np.einsum("nij,nj->ni", np.linalg.pinv(A, rcond=1e-14), e)
    return np.einsum("nij,ni->nj", G, y)


# ---------------------------------------------------------------------- every solution
def _posture_key(model: Model, q: np.ndarray, lim) -> np.ndarray:
    """q with every revolute angle that has room for a full turn wrapped into
    (-pi, pi] (when that value is within its limits): one representative per posture."""
    out = np.array(q, dtype=float)
    rev = np.zeros(model.nq, bool)
    for i in range(1, model.nb):
        if int(model.jnt_type[i]) == JOINT_REVOLUTE and model.jnt_nq[i] == 1:
            rev[int(model.jnt_qadr[i])] = True
    wrapped = np.angle(np.exp(1j * out))
    ok = rev & (wrapped >= lim.lo) & (wrapped <= lim.hi)
    return np.where(ok, wrapped, out), rev


def ik_all(
    model: Model,
    frame,
    T_target,
    *,
    position_only: bool = False,
    starts: int = 200,
    max_rounds: int = 5,
    tol: float = 1e-8,
    distinct: float = 1e-5,
    respect_limits: bool = True,
    rng=None,
    threads: int | None = None,
) -> np.ndarray:
    """Every isolated solution of an arm: all q with ``fk(model, q, frame) = T_target``.

    For an arm whose joints match the task (nv = 6 for a pose, 3 for a position) the
    solutions are isolated points: generically 8 for the UR5's geometry (shoulder left or
    right, elbow up or down, wrist flipped or not) and up to 16 for a general 6R arm. They
    are found by numerical enumeration: ``starts`` random starts within the limits solved
    at once by :func:`ik_batch` (no restarts), the converged ones checked by forward
    kinematics, and deduplicated; rounds are repeated until one finds nothing new (at
    most ``max_rounds``). Revolute angles with room for a full turn are reported in
    (-pi, pi]: ``q`` and ``q + 2 pi e_i`` are one posture.

    Parameters
    ----------
    model : Model
    frame : str or int
    T_target : array_like, shape (4, 4)
    position_only : bool
        Solve for the position of the frame origin (an arm with 3 joints).
    starts : int
        Starts per round.
    max_rounds : int
    tol : float
        Tolerance of each solution (norms of the angular and linear errors, rad and m).
    distinct : float
        Two solutions closer than this in every coordinate (modulo 2 pi for the wrapped
        revolute joints) are one.
    respect_limits : bool
        Only solutions within the joint limits.
    rng : numpy.random.Generator or int, optional
    threads : int, optional

    Returns
    -------
    numpy.ndarray, shape (k, nq)
        The k distinct solutions, sorted lexicographically.

    Raises
    ------
    ValueError
        When the solutions are not isolated (nv differs from the task's dimension, e.g. a
        redundant 7-DoF arm, whose solutions form a continuum) or the model has a
        floating base.
    """
    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    m = 3 if position_only else 6
    lim = _limits(model)
    if lim.floating or model.nv != m:
        raise ValueError(
            f"ik_all needs isolated solutions: a fixed-base arm with {m} joints for a "
            f"{'position' if position_only else 'pose'}, got nv = {model.nv}"
            + (" with a floating base" if lim.floating else "")
        )
    T = _one_target(T_target)
    if int(starts) != starts or starts < 1:
        raise ValueError(f"starts must be an integer >= 1, got {starts!r}")
    gen = np.random.default_rng(0 if rng is None else rng)
    found: list[np.ndarray] = []
    for _ in range(int(max_rounds)):
        q0 = random_configuration(model, gen, size=int(starts))
        res = ik_batch(model, k, np.broadcast_to(T, (int(starts), 4, 4)), q0, restarts=0,
                       tol_omega=tol, tol_v=tol, respect_limits=respect_limits,
                       position_only=position_only, threads=threads)  # fmt: skip
        new = 0
        for q in res.q[res.success]:
            key, rev = _posture_key(model, q, lim)
            if _is_solution(model, k, T, key, tol, position_only, respect_limits) and not any(
                _same_posture(key, s, rev, distinct) for s in found
            ):
                found.append(key)
                new += 1
        if new == 0 and found:
            break
    if not found:
        return np.zeros((0, model.nq))
    out = np.array(found)
    return out[np.lexsort(out.T[::-1])]


def _is_solution(model, k, T, key, tol, position_only, respect_limits) -> bool:
    """key reaches T (verified by forward kinematics, independently of the solver's error)
    within 10 tol, and is within the limits when they are respected."""
    Tq = fk(model, key, k)
    if position_only:
        if np.linalg.norm(Tq[:3, 3] - T[:3, 3]) > 10 * tol:
            return False
    else:
        V = log6(inv_transform(Tq) @ T)
        if np.linalg.norm(V[:3]) > 10 * tol or np.linalg.norm(V[3:]) > 10 * tol:
            return False
    return not (respect_limits and (np.any(key < model.q_lower) or np.any(key > model.q_upper)))


def _same_posture(key, s, rev, distinct) -> bool:
    """Two solutions closer than ``distinct`` in every coordinate (modulo 2 pi for the
    wrapped revolute joints) are one."""
    d = key - s
    d = np.where(rev, np.angle(np.exp(1j * d)), d)
    return bool(np.all(np.abs(d) < distinct))
