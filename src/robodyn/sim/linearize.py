"""Linearization of the dynamics about a state: ``rd.linearize`` (issue 30).

The state is ``x = (q, v)`` and the input the joint torques ``tau``. Perturbations of q live
in the tangent space, as the derivatives of :mod:`robodyn.derivatives` take them:
``q = q_0 (+) dq`` (:func:`robodyn.integrate`, a free, spherical or planar joint moved by its
body twist, right-multiplied), so ``dx = (dq, dv)`` has ``2 nv`` entries.

Continuous time, ``d/dt dx = A dx + B dtau`` along the motion through ``(q_0, v_0)`` with
``tau_0``::

    A = [[-ad(v_0),  1     ],      B = [[0      ],
         [da/dq,     da/dv ]]           [da/dtau]]

``-ad(v_0)`` appears on a joint whose velocity is a body twist (a free joint: ``[ad_V]`` of
MR def. 8.2 restricted to its subspace; spherical: ``-[omega_0]``; planar: se(2)'s), because
the chart moves with the body: ``d/dt dq = dv - [ad_{v_0}] dq`` (0 on the other joints,
and at rest). ``da/dq, da/dv, da/dtau`` are :func:`robodyn.forward_dynamics_derivatives`.

Discrete time (``dt`` given): ``dx_1 = A dx_0 + B dtau`` for one step of the simulator's
integrator (:mod:`robodyn.sim.integrators`, torque held over the step), the chain rule
through its stages, with the Jacobians of ``q (+) d`` in q (``Ad_{exp(-d)}``) and in d (the
right Jacobian ``J_r(d)``) and of the chart rate ``J_r(d)^-1 v`` in d, by the series the
integrator uses: exact, not finite differences.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import forward_dynamics_derivatives
from ..kinematics.configuration import integrate
from ..model.model import Model
from ..spatial import ad, adjoint, exp6
from .integrators import Chart

__all__ = ["linearize"]

_SERIES = 40  # terms of the dexp series at most (the integrator's)


# ------------------------------------------------------------------ Lie-group pieces
def _jr(x: np.ndarray) -> np.ndarray:
    """The right Jacobian of exp on se(3), ``J_r(x) = sum_k (-ad_x)^k / (k + 1)!`` (...,6,6)."""
    A = -ad(x)
    J = np.broadcast_to(np.eye(6), A.shape).copy()
    term = J.copy()
    for k in range(1, _SERIES):
        term = term @ A / (k + 1)
        J += term
        if np.max(np.abs(term), initial=0.0) < 1e-18:
            break
    return J


def _rate_jacobian(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``J_r(x)^-1`` and the derivative of the chart rate ``y = J_r(x)^-1 w`` in x.

    ``J_r(x) y = w`` gives ``dy = -J_r^-1 (dJ_r[dx] y)``, and with ``A = -ad_x``,
    ``dJ_r[dx] y = sum_k T_k dx / (k + 1)!`` where ``T_k = sum_{m<k} A^m [ad_{A^(k-1-m) y}]``
    (``-ad_dx z = ad_z dx``) obeys ``T_{k+1} = A T_k + [ad_{A^k y}]``."""
    Jinv = np.linalg.inv(_jr(x))
    y = (Jinv @ w[..., None])[..., 0]
    A = -ad(x)
    T = np.zeros(A.shape)
    Aky = y
    total = np.zeros(A.shape)
    c = 1.0
    for k in range(_SERIES):
        T = A @ T + ad(Aky)  # T_{k+1}
        c /= k + 2  # 1 / (k + 2)!
        term = c * T
        total += term
        Aky = (A @ Aky[..., None])[..., 0]
        if k > 2 and np.max(np.abs(term), initial=0.0) < 1e-18:
            break
    return Jinv, -Jinv @ total


class _Blocks:
    """Block-diagonal (..., nv, nv) matrices over the joints: the identity on the 1-dof
    coordinates, a Lie-group joint's ``S^T X S`` on its own dofs (S (6, n) its subspace)."""

    def __init__(self, model: Model):
        self.nv = model.nv
        self.lie = Chart(model).free  # (v index, S) of the free, spherical, planar joints

    def identity(self, lead: tuple) -> np.ndarray:
        return np.broadcast_to(np.eye(self.nv), (*lead, self.nv, self.nv)).copy()

    def build(self, lead: tuple, fn, *vectors, zero: bool = False) -> np.ndarray:
        """``fn(*twists) -> (..., 6, 6)`` on each Lie-group joint's twists ``S x`` of the
        given (..., nv) vectors, restricted to its dofs; the identity (or 0) elsewhere."""
        out = np.zeros((*lead, self.nv, self.nv)) if zero else self.identity(lead)
        for va, S in self.lie:
            n = S.shape[1]
            twists = [x[..., va : va + n] @ S.T for x in vectors]
            out[..., va : va + n, va : va + n] = S.T @ fn(*twists) @ S
        return out


def _blocks(model: Model) -> _Blocks:
    """The model's joint blocks, made once (kept on the immutable model)."""
    b = model.__dict__.get("_linearize_blocks")
    if b is None:
        b = _Blocks(model)
        object.__setattr__(model, "_linearize_blocks", b)
    return b


def _plus_jacobians(blocks: _Blocks, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobians of ``q (+) d`` (tangent at the result) in q, ``Ad_{exp(-d)}``, and in d,
    ``J_r(d)``, per joint."""
    lead = d.shape[:-1]
    Jq = blocks.build(lead, lambda x: adjoint(exp6(-x)), d)
    Jd = blocks.build(lead, _jr, d)
    return Jq, Jd


def _rate_jacobians(blocks: _Blocks, d: np.ndarray, w: np.ndarray):
    """``J_r(d)^-1`` and ``d(J_r(d)^-1 w)/dd`` per joint (1 and 0 on 1-dof coordinates)."""
    lead = d.shape[:-1]
    Jinv = blocks.build(lead, lambda x, u: _rate_jacobian(x, u)[0], d, w)
    Jd = blocks.build(lead, lambda x, u: _rate_jacobian(x, u)[1], d, w, zero=True)
    return Jinv, Jd


# ------------------------------------------------------------------ the public function
def linearize(
    model: Model,
    q,
    v,
    tau,
    *,
    dt: float | None = None,
    integrator: str = "rk4",
    friction: bool = True,
    coulomb_eps: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The state-space matrices ``(A, B)`` of the dynamics about ``(q, v, tau)``.

    ``x = (q, v)`` in the tangent space (see the module): ``A`` is (..., 2 nv, 2 nv) and
    ``B`` (..., 2 nv, nv), rows and columns ordered ``(dq, dv)``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v, tau : array_like, shape (..., nv)
        The state and the torque held (leading dimensions: a batch, numpy style).
    dt : float, optional
        None: continuous time, ``dx/dt = A dx + B dtau``. A step: discrete time, ``dx_1 =
        A dx_0 + B dtau`` for one step of ``integrator`` (as :func:`robodyn.simulate`
        takes it, the torque held over the step), by the chain rule through its stages.
    integrator : {"rk4", "euler", "semi_implicit_euler"}
        The step whose Jacobians are taken (with ``dt``).
    friction, coulomb_eps
        As in :func:`robodyn.forward_dynamics` (the simulator's default: friction on).

    Returns
    -------
    A : numpy.ndarray, shape (..., 2 nv, 2 nv)
    B : numpy.ndarray, shape (..., 2 nv, nv)

    Raises
    ------
    ValueError
        Bad shapes or NaN (naming the argument), a singular mass matrix, ``dt`` not a
        positive finite number, an unknown integrator.

    Examples
    --------
    The pendulum hanging at rest: ``A = [[0, 1], [-g / l, 0]]`` for a point mass, here with
    the bundled pendulum's own inertia (``m g c / I`` with c its CoM distance):

    >>> import numpy as np
    >>> import robodyn as rd
    >>> pend = rd.models.load("pendulum")
    >>> A, B = rd.linearize(pend, [0.0], [0.0], [0.0])
    >>> A.shape, B.shape
    ((2, 2), (2, 1))
    """
    if dt is not None and not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite number or None, got {dt!r}")
    steps = {"rk4": _rk4, "euler": _euler, "semi_implicit_euler": _semi_implicit}
    if dt is not None and integrator not in steps:
        raise ValueError(f"integrator must be one of {', '.join(map(repr, steps))} for a "
                         f"linearization, got {integrator!r}")  # fmt: skip
    nq, nv = model.nq, model.nv
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    tau = np.asarray(tau, dtype=float)
    for name, x, n in (("q", q, nq), ("v", v, nv), ("tau", tau, nv)):
        if x.ndim == 0 or x.shape[-1] != n:
            raise ValueError(f"{name} must have shape (..., {n}), got {x.shape}")
    lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1], tau.shape[:-1])
    q, v, tau = (x if x.shape[:-1] == lead else np.broadcast_to(x, (*lead, x.shape[-1]))
                 for x in (q, v, tau))  # fmt: skip
    kw = {"friction": friction, "coulomb_eps": coulomb_eps}
    blocks = _blocks(model)
    if dt is None:
        D = forward_dynamics_derivatives(model, q, v, tau, **kw)
        return _continuous(blocks, D, v, lead)

    def fdd(qs, vs):  # (da/dq, da/dv, da/dtau) at a stack of states
        return forward_dynamics_derivatives(model, qs, vs, np.broadcast_to(tau, vs.shape), **kw)

    from ..dynamics import forward_dynamics

    def acc(qs, vs):
        return forward_dynamics(model, qs, vs, np.broadcast_to(tau, vs.shape),
                                friction=friction, coulomb_eps=coulomb_eps)  # fmt: skip

    def plus(qs, d):
        return integrate(model, qs, d)

    return steps[integrator](blocks, fdd, acc, plus, q, v, float(dt))


def _continuous(blocks: _Blocks, D, v, lead) -> tuple[np.ndarray, np.ndarray]:
    """``A = [[-ad(v), 1], [da/dq, da/dv]]``, ``B = [[0], [da/dtau]]``."""
    nv = blocks.nv
    A = np.zeros((*lead, 2 * nv, 2 * nv))
    B = np.zeros((*lead, 2 * nv, nv))
    if blocks.lie:
        A[..., :nv, :nv] = blocks.build(lead, lambda x: -ad(x), v, zero=True)
    A[..., :nv, nv:] = np.eye(nv)
    A[..., nv:, :nv], A[..., nv:, nv:], B[..., nv:, :] = D
    return A, B


# ------------------------------------------------------------------ the steps' chain rules
# Each intermediate carries its Jacobian in the inputs (dq, dv, dtau): (..., nv, 3 nv).
def _inputs(lead, nv: int) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobians of q (its tangent) and of v in the inputs: [1, 0, 0] and [0, 1, 0]."""
    Zq = np.zeros((*lead, nv, 3 * nv))
    Zv = np.zeros((*lead, nv, 3 * nv))
    Zq[..., :, :nv] = np.eye(nv)
    Zv[..., :, nv : 2 * nv] = np.eye(nv)
    return Zq, Zv


def _acc_jacobian(D, Jpos, Jvel, nv: int) -> np.ndarray:
    """``da = da/dq dq_i + da/dv dv_i + da/dtau dtau`` in the inputs."""
    da_dq, da_dv, da_dtau = D
    out = da_dq @ Jpos + da_dv @ Jvel
    out[..., :, 2 * nv :] += da_dtau
    return out


def _result(blocks, q, d, Jd_inputs, Zq, Jv1) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) of the step whose position is ``q (+) d`` (d's Jacobian ``Jd_inputs``) and
    whose velocity's Jacobian is ``Jv1``."""
    nv = blocks.nv
    Jq, Jdd = _plus_jacobians(blocks, d)
    Jq1 = Jq @ Zq + Jdd @ Jd_inputs
    J = np.concatenate([Jq1, Jv1], axis=-2)  # (..., 2 nv, 3 nv)
    return J[..., : 2 * nv], J[..., 2 * nv :]


def _euler(blocks, fdd, acc, plus, q, v, h):
    """Explicit Euler, ``q_1 = q (+) h v``, ``v_1 = v + h a(q, v)``."""
    nv, lead = blocks.nv, v.shape[:-1]
    Zq, Zv = _inputs(lead, nv)
    Ja = _acc_jacobian(fdd(q, v), Zq, Zv, nv)
    return _result(blocks, q, h * v, h * Zv, Zq, Zv + h * Ja)


def _semi_implicit(blocks, fdd, acc, plus, q, v, h):
    """Semi-implicit Euler, ``v_1 = v + h a(q, v)``, ``q_1 = q (+) h v_1``."""
    nv, lead = blocks.nv, v.shape[:-1]
    Zq, Zv = _inputs(lead, nv)
    Jv1 = Zv + h * _acc_jacobian(fdd(q, v), Zq, Zv, nv)
    v1 = v + h * acc(q, v)
    return _result(blocks, q, h * v1, h * Jv1, Zq, Jv1)


def _rk4(blocks, fdd, acc, plus, q, v, h):
    """Classical RK4 in the chart at q (integrators.rk4_step): stage i at ``q (+) d_i``
    with velocity ``v_i`` and chart rate ``r_i = J_r(d_i)^-1 v_i``, ``d_{i+1} = c_i r_i``,
    ``v_{i+1} = v + c_i a_i`` (c = h/2, h/2, h), then ``q_1 = q (+) h/6 (r_1 + 2 r_2 +
    2 r_3 + r_4)``, ``v_1 = v + h/6 (a_1 + 2 a_2 + 2 a_3 + a_4)``."""
    nv, lead = blocks.nv, v.shape[:-1]
    Zq, Zv = _inputs(lead, nv)
    a, Ja = acc(q, v), _acc_jacobian(fdd(q, v), Zq, Zv, nv)  # stage 1 at q: r_1 = v
    r, Jr = v, Zv
    r_sum, J_rsum, J_asum = v.copy(), Zv.copy(), Ja.copy()
    for c, w in ((0.5 * h, 2.0), (0.5 * h, 2.0), (h, 1.0)):
        a, Ja, r, Jr = _stage(blocks, fdd, acc, plus, q, c * r, c * Jr, v + c * a,
                              Zv + c * Ja, Zq)  # fmt: skip
        r_sum, J_rsum, J_asum = r_sum + w * r, J_rsum + w * Jr, J_asum + w * Ja
    h6 = h / 6.0
    return _result(blocks, q, h6 * r_sum, h6 * J_rsum, Zq, Zv + h6 * J_asum)


def _stage(blocks, fdd, acc, plus, q, d, J_d, vi, J_vi, Zq):
    """One RK4 stage at ``q (+) d`` with velocity ``vi`` (their Jacobians ``J_d``, ``J_vi``):
    its acceleration and chart rate and their Jacobians."""
    nv = blocks.nv
    qi = plus(q, d)
    Jq, Jdd = _plus_jacobians(blocks, d)
    J_qi = Jq @ Zq + Jdd @ J_d
    ai = acc(qi, vi)
    Ja = _acc_jacobian(fdd(qi, vi), J_qi, J_vi, nv)
    Jinv, Jrd = _rate_jacobians(blocks, d, vi)
    ri = (Jinv @ vi[..., None])[..., 0]
    return ai, Ja, ri, Jinv @ J_vi + Jrd @ J_d
