"""The task-space pieces the force-side controllers share (MR sec. 11.5-11.7).

For the controlled frame {b} and the rows S of its body twist ``V_b = [omega; v]`` that a
law controls (all six, or fewer for a robot of fewer joints):

* the frame's pose ``X = T_sb``, body Jacobian ``J = J_b`` (rows S: ``J_S``), twist
  ``V = J v`` and ``dJ v`` (the twist's rate at zero joint acceleration);
* its task-space inertia ``Lambda_S = (J_S M^-1 J_S^T)^-1`` (MR eq. 8.88) and the
  dynamically consistent inverse ``Jbar_S = M^-1 J_S^T Lambda_S``;
* ``h = c(q, v) + g(q)`` (+ joint friction), the joint-space bias the laws compensate.

A law asks for the task acceleration ``a`` (rows S) under the external task wrench
``F_S`` it knows (from a force sensor) with::

    tau = J_S^T (Lambda_S (a - (dJ v)_S) - F_S) + h - k_null (1 - J_S^T Jbar_S^T) v

which gives ``dV_S/dt = a`` exactly when the model is right and the external joint torque
is ``J^T F`` with ``F_S = Jbar_S^T J^T F`` (substitute ``qdd = M^-1 (tau - h + J^T F)``:
``J_S M^-1 (1 - J_S^T Jbar_S^T) = 0``, so the null-space damping never disturbs the task;
for a square J_b this is MR's ``tau = J_b^T (Lambda a + eta)``, eq. 11.42). The external
task wrench ``F_S = Jbar_S^T J^T F`` is the wrench F measured at the frame as the task
coordinates feel it (``F_S = F`` for all six rows of a robot of six or more joints).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .base import _matrix, _numbers


# ------------------------------------------------------------------------ arguments
def frame_index(model, frame, name: str = "frame") -> int:
    """The frame's index, or a ModelError (a ValueError) naming the argument."""
    from ..errors import ModelError

    if not isinstance(frame, (str, int, np.integer)) or isinstance(frame, bool):
        raise ValueError(f"{name} must be a frame name (str) or index (int), got {frame!r}")
    try:
        return model.frame_id(frame)
    except ModelError as exc:
        raise ModelError(f"{name}: {exc}") from None


def task_rows(rows, nv: int, name: str = "rows") -> list[int]:
    """The rows S of ``[wx, wy, wz, vx, vy, vz]`` a law controls: "full", "angular",
    "linear" or indices; no more rows than joints (Lambda_S would be singular)."""
    from ..taskspace import _rows

    r = _rows(rows)
    idx = list(range(6))[r] if isinstance(r, slice) else [int(i) for i in r]
    if len(idx) > nv:
        raise ValueError(f"{name}: {len(idx)} task rows {idx} for a robot of {nv} joint "
                         f"velocities; give at most {nv} (e.g. rows=[2] for a joint about "
                         "z)")  # fmt: skip
    return idx


def gain(k, name: str, n: int, *, positive: bool = False) -> np.ndarray:
    """A gain as a scalar, (n,) or (n, n): finite, >= 0 (``positive``: > 0; a matrix
    symmetric positive (semi-)definite), else a ValueError naming it."""
    k = np.asarray(k, dtype=float)
    if k.ndim > 2 or (k.ndim >= 1 and k.shape[0] != n) or (k.ndim == 2 and k.shape[1] != n):
        raise ValueError(f"{name} must be a scalar, a vector ({n},) or a matrix ({n}, {n}), "
                         f"got shape {k.shape}")  # fmt: skip
    if not np.all(np.isfinite(k)):
        raise ValueError(f"{name} contains NaN or inf")
    if k.ndim == 2 and not np.allclose(k, k.T, rtol=1e-12, atol=1e-12 * np.abs(k).max()):
        raise ValueError(f"{name} must be symmetric")
    low = np.linalg.eigvalsh(0.5 * (k + k.T)).min() if k.ndim == 2 else np.min(k)
    if k.ndim == 2 and not positive:  # semi-definite up to the eigenvalues' round-off
        low = 0.0 if low > -1e-12 * np.abs(k).max() else low
    if (positive and not low > 0) or low < 0:
        what = "positive" if positive else ">= 0"
        form = f" ({'positive' if positive else 'positive semi-'}definite)" if k.ndim == 2 else ""
        raise ValueError(f"{name} must be {what}{form}, got {_numbers(k)}")
    return k


def times(k: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``K e`` for a scalar, diagonal (vector) or full gain, e of shape (..., n)."""
    return e @ k.T if k.ndim == 2 else k * e


def solve(k: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``K^-1 e`` for a scalar, diagonal (vector) or full gain."""
    return np.linalg.solve(k, e[..., None])[..., 0] if k.ndim == 2 else e / k


def wrench_target(F_d, name: str = "F_d"):
    """``F_d(t) -> (6,)``: a constant wrench ``[m; f]`` (6,) or a callable (its output
    checked when called)."""
    if callable(F_d):

        def fn(t):
            F = np.asarray(F_d(t), dtype=float)
            if F.shape != (6,):
                raise ValueError(f"{name}(t) must return a wrench [m; f] of shape (6,), got "
                                 f"{F.shape}")  # fmt: skip
            return F

        return fn
    F = np.asarray(F_d, dtype=float)
    if F.shape != (6,):
        raise ValueError(f"{name} must be a wrench [m; f] of shape (6,) (N m, N) or a callable "
                         f"{name}(t), got shape {F.shape}")  # fmt: skip
    if not np.all(np.isfinite(F)):
        raise ValueError(f"{name} contains NaN or inf: {F}")
    return lambda t: F


class PoseReference:
    """A frame's reference: ``ref(t) -> (X_d (4, 4), V_d (6,), dV_d (6,))`` (V_d the body
    twist of the reference frame, e.g. :func:`robodyn.trajectory.screw_trajectory`) or a
    constant pose (4, 4)."""

    def __init__(self, ref, name: str = "ref"):
        self.pose = None
        if callable(ref):
            self.fn = ref
            return
        X = np.asarray(ref, dtype=float)
        if X.shape != (4, 4) or not np.all(np.isfinite(X)):
            raise ValueError(f"{name} must be ref(t) -> (X, V, dV) or a finite pose (4, 4), "
                             f"got shape {X.shape}")  # fmt: skip
        z = np.zeros(6)
        self.pose, self.fn = X, (lambda t: (X, z, z))

    def __call__(self, t):
        return tuple(np.asarray(x, dtype=float) for x in self.fn(t))

    def describe(self) -> dict:
        if self.pose is not None:
            return {"kind": "constant", "X": _numbers(self.pose)}
        d = getattr(self.fn, "describe", None)
        if not callable(d):
            raise TypeError("the reference is a callable that cannot describe itself (no "
                            "describe() method)")  # fmt: skip
        return d()


# ------------------------------------------------------------------------ the frame's state
class TaskState(NamedTuple):
    """The frame's kinematics and the robot's dynamics in its coordinates (batch axes
    ``...``; S the controlled rows, k of them)."""

    X: np.ndarray  # (..., 4, 4) T_sb
    J: np.ndarray  # (..., 6, nv) J_b
    V: np.ndarray  # (..., 6) V_b = J_b v
    dJv: np.ndarray  # (..., 6) dJ_b/dt v
    Lam: np.ndarray | None  # (..., k, k) Lambda_S
    Jbar: np.ndarray | None  # (..., nv, k) M^-1 J_S^T Lambda_S
    h: np.ndarray  # (..., nv) c + g (+ friction) of the controller's model


def task_state(model, q, v, frame: int, rows, friction: bool, *, dynamics: bool = True):
    """The :class:`TaskState` of ``frame`` at (q, v); ``dynamics=False`` leaves Lambda,
    Jbar and dJ v out (None, zeros) and h is g(q) alone (force control's g~)."""
    from ..dynamics import gravity_forces, inverse_dynamics
    from ..kinematics import fk, frame_acceleration, jacobian
    from ..taskspace import dynamically_consistent_pinv, task_space_inertia

    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    X = fk(model, q, frame)
    J = jacobian(model, q, frame, kind="body")
    V = np.einsum("...ij,...j->...i", J, v)
    if not dynamics:
        return TaskState(X, J, V, np.zeros(V.shape), None, None, gravity_forces(model, q))
    dJv = frame_acceleration(model, q, v, np.zeros(model.nv), frame, "body")
    Lam = task_space_inertia(model, q, frame, "body", rows)
    Jbar = dynamically_consistent_pinv(model, q, frame, "body", rows)
    h = inverse_dynamics(model, q, v, np.zeros(model.nv), friction=friction)
    return TaskState(X, J, V, dJv, Lam, Jbar, h)


def pose_error(X, ref_t, V):
    """``(X_e, W, dW)`` to the reference ``(X_d, V_d, dV_d)`` (MR sec. 11.4.2): with
    ``E = X^-1 X_d``, ``X_e = log(E)`` (the body error twist), ``W = [Ad_E] V_d`` (the
    reference twist in {b}) and ``dW = [Ad_E] dV_d + [ad_W] V`` (its rate)."""
    from ..spatial import ad, adjoint, inv_transform, log6

    X_d, V_d, dV_d = ref_t
    E = inv_transform(X) @ X_d
    AdE = adjoint(E)
    W = np.einsum("...ij,...j->...i", AdE, V_d)
    dW = np.einsum("...ij,...j->...i", AdE, dV_d) + np.einsum("...ij,...j->...i", ad(W), V)
    return log6(E, check=False), W, dW


def task_wrench(ts: TaskState, rows, F) -> np.ndarray:
    """``F_S = Jbar_S^T J^T F`` (..., k): the wrench F (..., 6) at the frame as the rows S
    feel it (module docstring)."""
    tau_ext = np.einsum("...ji,...j->...i", ts.J, F)  # J^T F
    return np.einsum("...ik,...i->...k", ts.Jbar, tau_ext)  # Jbar_S^T (J^T F)


def task_torque(ts: TaskState, rows, a, F_S, k_null: float, v) -> np.ndarray:
    """``tau = J_S^T (Lambda_S (a - (dJ v)_S) - F_S) + h - k_null (1 - J_S^T Jbar_S^T) v``
    (module docstring): the torque that gives the rows S the acceleration a."""
    J_S = ts.J[..., rows, :]
    F = np.einsum("...ij,...j->...i", ts.Lam, a - ts.dJv[..., rows]) - F_S
    tau = np.einsum("...ji,...j->...i", J_S, F) + ts.h
    return tau - k_null * null_space(ts, rows, v)


def null_space(ts: TaskState, rows, v) -> np.ndarray:
    """``(1 - J_S^T Jbar_S^T) v``: the joint velocities' part the task does not see, as a
    torque direction (zero for a robot with no more joints than rows)."""
    if ts.J.shape[-1] <= len(rows):
        return np.zeros(np.shape(v))
    w = np.einsum("...ik,...i->...k", ts.Jbar, v)  # Jbar_S^T v
    return v - np.einsum("...ki,...k->...i", ts.J[..., rows, :], w)


def sensor_of(sensor, frame, name: str = "sensor"):
    """The law's force sensor: ``sensor`` (a robodyn.sim.ForceSensor), or an ideal one at
    the controlled frame."""
    from ..sim.sensor import ForceSensor

    if sensor is None:
        return ForceSensor(frame)
    if not isinstance(sensor, ForceSensor):
        raise ValueError(f"{name} must be a rd.sim.ForceSensor or None, got "
                         f"{type(sensor).__name__}")  # fmt: skip
    return sensor


def zeros_state(z, q, n: int):
    """The controller's state z (..., n), zeros when not given (a law called by hand)."""
    if z is not None:
        return np.asarray(z, dtype=float)
    return np.zeros((*np.shape(q)[:-1], n))


# ------------------------------------------------------------------------ the compiled rollout
REF_KINDS = {"pose": 0, "screw": 1, "cartesian": 2}  # kernels/core/rollout.h's REF_*
_TP_SIZE, _TP_KIND, _TP_XA, _TP_S = 99, 76, 77, 93  # rollout.h's TP_* (the reference's part)
_FP_SIZE, _FP_G, _FP_A, _FP_NA = 234, 17, 197, 233  # rollout.h's FP_*


def c_pose_reference(pose, fn):
    """``(kind, X_a, S, T, c)`` of a pose reference for the compiled rollout (rollout.h's
    REF_*, TP_XA, TP_S; sim_t's T and c): a constant pose, or a screw or Cartesian path
    under a polynomial time scaling (their ``_c_pose_reference``); None for any other
    callable."""
    if pose is not None:
        return "pose", np.asarray(pose, dtype=float), np.zeros(6), 1.0, np.zeros(6)
    spec = getattr(fn, "_c_pose_reference", None)
    return spec() if spec is not None else None


def c_force_law(ctrl, model, law: str, gains, *, rows=range(6), F_d=None, A=None, ref=None):
    """A force law ``ctrl`` for the compiled rollout (its ``_c_law``: kernels/core/force.c
    reads the FP_* block of rollout.h, and the reference in the TP_* block): None where it
    cannot run there (a noisy sensor, a callable F_d, a reference that is not a constant
    pose or a polynomial screw or Cartesian path, rows not in ascending order)."""
    from ..kernels._pack import FL_ARMATURE, FL_FRICTION

    sensor, rows = ctrl.sensor, [int(r) for r in rows]
    if np.any(sensor.noise > 0) or rows != sorted(rows) or callable(F_d):
        return None
    spec = ("pose", np.eye(4), np.zeros(6), 1.0, np.zeros(6)) if ref is None else (
        c_pose_reference(ref.pose, ref.fn))  # fmt: skip
    if spec is None:
        return None
    kind, X_a, S, T, c = spec
    k = len(rows)
    P = np.zeros(_FP_SIZE)
    P[:4] = [ctrl.frame, frame_index(ctrl.model, sensor.frame, "sensor.frame"),
             0.0 if sensor.cutoff is None else 2.0 * np.pi * sensor.cutoff, k]  # fmt: skip
    P[4 : 4 + k], P[10] = rows, ctrl.k_null
    P[11:17] = 0.0 if F_d is None else np.asarray(F_d, dtype=float)
    for j, g in enumerate(gains):  # each 6 x 6, its k x k block top-left
        G = np.zeros((6, 6))
        G[:k, :k] = _matrix(g, k)
        P[_FP_G + 36 * j : _FP_G + 36 * (j + 1)] = G.ravel()
    if A is not None:
        P[_FP_A : _FP_A + A.size], P[_FP_NA] = A.ravel(), A.shape[0]
    task = np.zeros(_TP_SIZE)
    task[0], task[_TP_KIND] = ctrl.frame, REF_KINDS[kind]
    task[_TP_XA:_TP_S], task[_TP_S:] = np.asarray(X_a, dtype=float).ravel(), S
    friction = bool(getattr(ctrl, "friction", False))
    z = np.zeros(model.nq)  # no joint reference
    return {
        "law": law, "kp": 0.0, "kd": 0.0, "model": ctrl.model,
        "cflags": FL_ARMATURE | (FL_FRICTION if friction else 0), "q_a": z, "q_b": z,
        "T": T, "c": c, "task": task, "force": P,
        "tau_max": np.inf if ctrl.tau_max is None else ctrl.tau_max,
    }  # fmt: skip
