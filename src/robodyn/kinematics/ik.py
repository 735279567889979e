"""Inverse kinematics of many poses at once, and every solution of a 6-DoF arm (MR ch. 6).

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

import numpy as np

from .._checks import as_array
from ..kernels import core as _core
from ..kernels.call import threads as _threads
from ..model.model import JOINT_REVOLUTE, Model
from ..spatial import check_transform, inv_transform, log6
from .forward import (
    IKResult,
    _bounded_stage,
    _c_options,
    _c_starts,
    _draw,
    _frame_index,
    _limits,
    _packed,
    _task,
    fk,
)

__all__ = ["ik_batch", "ik_all"]

_TAIL = 32  # lanes left when the batch hands them to the compiled core one by one


def _batch_error(task, r, T, nv):
    """Vectorised :func:`robodyn.kinematics._task_error`: (e (n, m), G (n, m, nv), ew, ev)."""
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
    from ..model.configuration import integrate, neutral

    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    T = as_array(T_target, "T_target", (4, 4))
    if T.ndim < 2 or T.shape[-2:] != (4, 4):
        raise ValueError(f"T_target must have shape (..., 4, 4), got {T.shape}")
    check_transform(T, "T_target")
    nq, nv = pack.nq, pack.nv
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
    Tf = T.reshape(N, 16)
    if q0 is None:
        Q = np.tile(neutral(model), (N, 1))
    else:
        Q = np.broadcast_to(q0, (*lead, nq)).reshape(N, nq).copy()
    task = _task(position_only, weights)
    if method not in ("newton", "dls"):
        raise ValueError(f"method must be 'newton' or 'dls', got {method!r}")
    for name, val in (("tol_omega", tol_omega), ("tol_v", tol_v), ("damping", damping)):
        if not (np.isfinite(val) and val >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {val!r}")
    max_step = np.inf if max_step is None else max_step
    if not max_step > 0:
        raise ValueError(f"max_step must be > 0 or None, got {max_step!r}")
    if int(max_iterations) != max_iterations or max_iterations < 0:
        raise ValueError(f"max_iterations must be an integer >= 0, got {max_iterations!r}")
    if int(restarts) != restarts or restarts < 0:
        raise ValueError(f"restarts must be an integer >= 0, got {restarts!r}")
    if timeout is not None and not (np.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    th = 1 if threads is None else _threads(threads)
    lim = _limits(model)
    clip = respect_limits and lim.any
    # each lane's own random source: with rng None or a seed, the generator a single
    # rd.ik(..., rng=rng) would use, so a lane's restarts are that solve's restarts
    seeded = rng is None or isinstance(rng, (int, np.integer))
    parent = None if seeded else np.random.default_rng(rng)
    gens: dict = {}

    def lane_gen(i):
        if i not in gens:
            gens[i] = np.random.default_rng(
                (0 if rng is None else int(rng)) if seeded else parent.integers(2**63)
            )
        return gens[i]

    lam2 = float(damping) ** 2
    tol_w = tol_omega if task.ang else np.inf
    tol_l = tol_v if task.lin else np.inf
    t_end = None if timeout is None else time.perf_counter() + float(timeout)

    if clip:
        Q = np.clip(Q, lim.lo, lim.hi)
    success = np.zeros(N, bool)
    total = np.zeros(N, np.int64)  # updates over all starts
    it = np.zeros(N, np.int64)  # updates of the current start
    attempt = np.zeros(N, np.int64)
    best_err = np.full(N, np.inf)
    best_q = Q.copy()
    hist = np.zeros((N, int(max_iterations) + 1))  # errors of the current start
    err_out = np.full(N, np.inf)
    message = np.empty(N, dtype=object)
    running = np.arange(N)
    cut = np.zeros(N, bool)  # lanes stopped by the time budget
    tail = method == "dls" and not lim.floating
    if tail:
        lo_c, hi_c, opts = _c_options(lim, clip, task, tol_omega, tol_v, lam2, max_step,
                                      max_iterations, restarts)  # fmt: skip

    def in_core(lanes):
        for i in lanes:
            ok, q_i, n_i, e_i, msg = _c_starts(
                model, pack, k, Tf[i], task.w, lo_c, hi_c, opts, Q[i], int(attempt[i]),
                int(restarts), lane_gen(i), t_end, timeout, int(it[i]), hist[i],
            )  # fmt: skip
            total[i] += n_i
            if ok:
                Q[i], err_out[i], success[i], message[i] = q_i, e_i, True, msg
                continue
            if e_i < best_err[i]:
                best_err[i], best_q[i] = e_i, q_i
            if msg is not None:  # timed out
                cut[i] = True

    handed = []  # lanes whose first start failed: their restarts run in the core
    while running.size:
        if t_end is not None and time.perf_counter() > t_end:
            cut[running] = True
            total[running] += it[running]
            break
        if tail and running.size <= _TAIL:
            # the last few lanes: a vectorised iteration would cost its Python overhead
            # for a handful of lanes, so each goes on in the compiled core from where it
            # is (same iterate, iteration count and error history: the same arithmetic)
            in_core(running)
            break
        q = np.ascontiguousarray(Q[running])
        # threads only pay off on a wide batch (each call starts its own)
        r = _core.ik_residual(pack.P, q, np.ascontiguousarray(Tf[running]), k,
                              th if running.size >= 512 else 1)  # fmt: skip
        if r.__class__ is not np.ndarray:
            raise ValueError(f"IK residual failed ({r}); q or T_target not finite")
        e, G, ew, ev = _batch_error(task, r, T[running], nv)
        err = np.hypot(ew, ev)
        better = err < best_err[running]
        best_err[running[better]] = err[better]
        best_q[running[better]] = q[better]
        conv = (ew <= tol_w) & (ev <= tol_l)
        for i in running[conv]:
            message[i] = f"converged in {it[i]} iterations" + (
                f" (restart {attempt[i]})" if attempt[i] else ""
            )
        success[running[conv]] = True
        err_out[running[conv]] = err[conv]
        total[running[conv]] += it[running[conv]]
        # a start ends at the iteration cap, when stalled (error not halved in 15
        # iterations) or off the finite numbers
        itr = it[running]
        hist[running, np.minimum(itr, max_iterations)] = err
        back = hist[running, np.maximum(itr - 15, 0)]
        stall = (itr >= 15) & (err > 0.5 * back) & (err > 1e-5) if restarts else False
        ended = ~conv & ((itr >= max_iterations) | stall | ~np.isfinite(err))
        total[running[ended]] += itr[ended]
        again = ended & (attempt[running] < restarts)
        lanes = running[again]
        if lanes.size:  # a new start within the limits for each failed lane
            attempt[lanes] += 1
            it[lanes] = 0
            new = np.array([_draw(model, lane_gen(i)) for i in lanes])
            Q[lanes] = np.clip(new, lim.lo, lim.hi) if clip else new
        step = ~conv & ~ended
        if tail and lanes.size:
            handed.append(lanes)
            again[:] = False
        running_next = running[~conv & (~ended | again)]
        idx = running[step]
        if idx.size:
            e, G, qs = e[step], G[step], q[step]
            dq = _batch_step(G, e, method, lam2)
            if clip:
                # the active set of robodyn.ik: joints on a limit pushed outward frozen
                x, d = qs[:, lim.dof_q], dq[:, lim.dof_v]
                out = ((x >= lim.hi[lim.dof_q]) & (d > 0)) | ((x <= lim.lo[lim.dof_q]) & (d < 0))
                rows = np.flatnonzero(out.any(axis=1))
                if rows.size:
                    frozen = np.zeros((rows.size, nv), bool)
                    frozen[:, lim.dof_v] = out[rows]
                    Gf = np.where(frozen[:, None, :], 0.0, G[rows])
                    dq[rows] = np.where(frozen, 0.0, _batch_step(Gf, e[rows], method, lam2))
            big = np.abs(dq).max(axis=1) if nv else np.zeros(idx.size)
            scale = np.where(big > max_step, max_step / np.where(big > 0, big, 1.0), 1.0)
            dq *= scale[:, None]
            qn = integrate(model, qs, dq) if lim.floating else qs + dq
            qn = np.clip(qn, lim.lo, lim.hi) if clip else qn
            bad = ~np.all(np.isfinite(qn), axis=1)
            if bad.any():  # off the finite numbers: end that start at its best iterate
                qn[bad] = best_q[idx[bad]]
                it[idx[bad]] = max_iterations - 1
            Q[idx] = qn
            it[idx] += 1
        running = running_next
    if handed:
        handed = np.concatenate(handed)
        if t_end is not None and time.perf_counter() > t_end:
            cut[handed] = True  # out of time before their next start
        else:
            in_core(handed)
    # lanes left: the bounded least-squares stage one by one, as robodyn.ik does
    failed = np.flatnonzero(~success)
    for i in failed:
        why = f"did not converge in {max_iterations} iterations x {int(restarts) + 1} start(s)"
        if cut[i]:
            why = f"timed out after {timeout:g} s"
        elif restarts and clip and not lim.floating:
            g = lane_gen(i)
            res, nit, late = _bounded_stage(model, pack, k, Tf[i], best_q[i], lim, task, g,
                                            tol_omega, tol_v, t_end)  # fmt: skip
            total[i] += nit
            if res[2]:
                Q[i], err_out[i], success[i] = res[0], res[1], True
                message[i] = "converged in the bounded least-squares stage"
                continue
            if res[1] < best_err[i]:
                best_err[i], best_q[i] = res[1], res[0]
            if late:
                why = f"timed out after {timeout:g} s"
        Q[i], err_out[i] = best_q[i], best_err[i]
        message[i] = f"{why}; best twist error {best_err[i]:.3g}"
    return IKResult(
        Q.reshape(*lead, nq),
        success.reshape(lead),
        total.reshape(lead),
        err_out.reshape(lead),
        message.reshape(lead),
    )


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
    from ..model.configuration import random_configuration

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
    T = as_array(T_target, "T_target", (4, 4))
    if T.shape != (4, 4):
        raise ValueError(f"T_target must have shape (4, 4), got {T.shape}")
    check_transform(T, "T_target")
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
            # verify by forward kinematics, independently of the solver's error
            Tq = fk(model, key, k)
            if position_only:
                if np.linalg.norm(Tq[:3, 3] - T[:3, 3]) > 10 * tol:
                    continue
            else:
                V = log6(inv_transform(Tq) @ T)
                if np.linalg.norm(V[:3]) > 10 * tol or np.linalg.norm(V[3:]) > 10 * tol:
                    continue
            if respect_limits and (np.any(key < model.q_lower) or np.any(key > model.q_upper)):
                continue
            dup = False
            for s in found:
                d = key - s
                d = np.where(rev, np.angle(np.exp(1j * d)), d)
                if np.all(np.abs(d) < distinct):
                    dup = True
                    break
            if not dup:
                found.append(key)
                new += 1
        if new == 0 and found:
            break
    if not found:
        return np.zeros((0, model.nq))
    out = np.array(found)
    return out[np.lexsort(out.T[::-1])]
