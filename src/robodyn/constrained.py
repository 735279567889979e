"""Constrained dynamics: Pfaffian constraints ``A(q) v = 0`` and holonomic ``c(q) = 0``.

Course notes 001, sec. 10.3 (eqs. 10.15-10.20). With k independent constraints the
equations of motion and the differentiated constraint are (eqs. 10.16-10.17)::

    M ddq + h(q, v) = tau + A^T lambda          h = C v + g (+ friction)
    A ddq + dA/dt v = 0

solved here as one KKT system through the Schur complement (:func:`kkt_solve`)::

    lambda = (A M^-1 A^T)^-1 (-dA/dt v - A M^-1 (tau - h))
    ddq    = M^-1 (tau - h + A^T lambda)

The projections of eqs. 10.18-10.19 are ``P_u = 1 - A^T (A M^-1 A^T)^-1 A M^-1`` (forces
that do work) and ``P = M^-1 P_u M = 1 - M^-1 A^T (A M^-1 A^T)^-1 A`` (motions that
satisfy the constraints); P and ``1 - P`` are orthogonal in the metric M:
``(P dq)^T M (1 - P) dq = 0`` (:func:`projection_orthogonality`), and ``P = P_u^T``.

Holonomic constraints ``c(q) = 0`` use the same path with ``A = dc/dq`` (its columns
are along the velocity coordinates v, i.e. right-trivialised for a floating base) and
Baumgarte stabilisation: the acceleration-level constraint is replaced by
``ddc + 2 alpha dc + beta^2 c = 0`` so that drift decays instead of growing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._checks import as_array, as_square, as_vector
from .kernels import core as _core
from .kernels._pack import FL_ARMATURE, FL_CHECK, FL_FEXT, FL_FRICTION, FL_GRAVITY, packed
from .kernels.call import batched, into, run
from .kernels.call import threads as _threads
from .kinematics.configuration import integrate
from .model.model import Model

__all__ = [
    "kkt_solve",
    "constrained_forward_dynamics",
    "constraint_projections",
    "projection_orthogonality",
    "HolonomicConstraint",
    "baumgarte_bias",
    "holonomic_forward_dynamics",
]


@dataclass(frozen=True)
class Pfaffian:
    """Pfaffian constraints ``A(q) v = 0`` for ``rd.simulate(..., constraints=)``.

    The simulation enforces ``A vdot + dA/dt v + 2 alpha A v (+ beta^2 c(q)) = 0``: the
    differentiated constraint (eq. 10.17) plus Baumgarte terms that make a violation
    ``A v`` decay at the rate alpha instead of drifting.

    Attributes
    ----------
    A : callable
        ``A(q) -> (k, nv)``.
    dA_v : callable, optional
        ``dA_v(q, v) -> (k,)``, ``dA/dt v``. Default: central difference of A along
        ``qdot = v`` (1-dof joints; step ``1e-6 / |v|``).
    alpha : float
        Baumgarte damping rate, 1/s (0: no stabilisation). Keep ``alpha * dt`` below about
        0.1: a stiffer rate raises the integrator's own error (knife-edge, RK4, dt = 20 ms:
        max violation 6e-7 at alpha = 0, 8e-8 at 2, 9e-6 at 20, 1e-4 at 50 over 30 s).
    c : callable, optional
        ``c(q) -> (k,)`` for holonomic constraints (``A = dc/dq``).
    beta : float
        Baumgarte stiffness rate for c, 1/s.
    """

    A: Callable[[np.ndarray], np.ndarray]
    dA_v: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    alpha: float = 2.0
    c: Callable[[np.ndarray], np.ndarray] | None = None
    beta: float = 0.0

    def __post_init__(self):
        if not callable(self.A):
            raise ValueError(f"A must be callable as A(q) -> (k, nv), got {self.A!r}")
        for name in ("alpha", "beta"):
            x = getattr(self, name)
            if not (np.isfinite(x) and x >= 0):
                raise ValueError(f"{name} must be finite and >= 0, got {x!r}")

    def matrix(self, q) -> np.ndarray:
        """``A(q)`` (k, nv)."""
        return np.atleast_2d(np.asarray(self.A(q), dtype=float))

    def velocity_term(self, q, v) -> np.ndarray:
        """``dA/dt v`` (k,)."""
        if self.dA_v is not None:
            return np.atleast_1d(np.asarray(self.dA_v(q, v), dtype=float))
        nv = float(np.linalg.norm(v))
        if nv == 0.0:
            return np.zeros(self.matrix(q).shape[0])
        h = 1e-6 / nv
        return (self.matrix(q + h * v) - self.matrix(q - h * v)) @ v / (2 * h)

    def bias(self, q, v, A=None) -> np.ndarray:
        """``dA/dt v + 2 alpha A v + beta^2 c(q)``: the ``dA_dq_v`` argument of
        :func:`robodyn.constrained_forward_dynamics` (``A``: ``A(q)`` if already known)."""
        A = self.matrix(q) if A is None else A
        out = self.velocity_term(q, v) + 2.0 * self.alpha * (A @ v)
        if self.c is not None and self.beta:
            out = out + self.beta**2 * np.atleast_1d(np.asarray(self.c(q), dtype=float))
        return out

    def violation(self, q, v) -> float:
        """``max |A(q) v|`` (and ``|c(q)|`` for holonomic constraints)."""
        e = float(np.max(np.abs(self.matrix(q) @ v), initial=0.0))
        if self.c is not None:
            e = max(e, float(np.max(np.abs(self.c(q)), initial=0.0)))
        return e


def _spd_factor(M: np.ndarray, what: str) -> np.ndarray:
    scale = float(np.max(np.abs(np.diag(M)))) if M.size else 0.0
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        L = None
    if L is None or not scale > 0 or np.min(np.diag(L)) ** 2 <= 1e-12 * scale:
        raise ValueError(f"{what} is singular or not positive definite")
    return L


def _solve(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    # (L L^T)^-1 B; numpy's LU solve on the small triangular factors is cheaper than
    # scipy's checked triangular solve at these sizes
    return np.linalg.solve(L.T, np.linalg.solve(L, B))


def _square(x, name: str) -> np.ndarray:
    a = as_array(x, name, ())
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(f"{name} must be a square matrix of shape (n, n), got {a.shape}")
    return a


def _constraint_matrix(A, n: int) -> np.ndarray:
    A = as_array(A, "A", (n,))
    if A.ndim == 1:
        A = A[None, :]
    if A.ndim != 2:
        raise ValueError(f"A must have shape (k, {n}), got {A.shape}")
    return A


def _schur(L: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(M^-1 A^T, Cholesky factor of A M^-1 A^T) with a clear error for dependent rows."""
    X = _solve(L, A.T)
    S = A @ X
    S = 0.5 * (S + S.T)
    Ls = _spd_factor(
        S, f"A M^-1 A^T ({A.shape[0]} constraints: the rows of A are linearly dependent)"
    )
    return X, Ls


# ====================================================================== matrices only
def kkt_solve(M, h, tau, A, dA_v) -> tuple[np.ndarray, np.ndarray]:
    """Solve ``M ddq + h = tau + A^T lambda``, ``A ddq + dA_v = 0`` (eqs. 10.16-10.17).

    Parameters
    ----------
    M : array_like, shape (n, n)
        Symmetric positive definite mass matrix.
    h : array_like, shape (n,)
        Bias forces ``C v + g`` (plus friction if wanted).
    tau : array_like, shape (n,)
        Applied generalized forces (the notes' u).
    A : array_like, shape (k, n) or (n,)
        Constraint matrix (k independent rows; k = 0 allowed).
    dA_v : array_like, shape (k,)
        ``dA/dt v``; add Baumgarte terms here (:func:`baumgarte_bias`).

    Returns
    -------
    ddq : numpy.ndarray, shape (n,)
    lam : numpy.ndarray, shape (k,)
        Lagrange multipliers; ``A^T lambda`` is the constraint force.

    Raises
    ------
    ValueError
        Bad shapes or non-finite input, M not positive definite, dependent rows of A.
    """
    M = _square(M, "M")
    n = M.shape[0]
    h = as_vector(h, "h", n)
    tau = as_vector(tau, "tau", n)
    A = _constraint_matrix(A, n)
    k = A.shape[0]
    dA_v = as_vector(dA_v, "dA_v", k)
    L = _spd_factor(0.5 * (M + M.T), "the mass matrix M")
    # one pass through the factor: [M^-1 (tau - h), M^-1 A^T]
    Y = _solve(L, np.concatenate([(tau - h)[:, None], A.T], axis=1))
    ddq0, X = Y[:, 0], Y[:, 1:]  # unconstrained acceleration, M^-1 A^T
    if k == 0:
        return ddq0, np.zeros(0)
    S = A @ X
    Ls = _spd_factor(
        0.5 * (S + S.T),
        f"A M^-1 A^T ({k} constraints: the rows of A are linearly dependent)",
    )
    # lambda = (A M^-1 A^T)^-1 (-dA v - A M^-1 (tau - h))
    lam = _solve(Ls, -dA_v - A @ ddq0)
    return ddq0 + X @ lam, lam


def constraint_projections(M, A) -> tuple[np.ndarray, np.ndarray]:
    """The projections ``P_u`` (eq. 10.18) and ``P = M^-1 P_u M`` (eq. 10.19).

    Parameters
    ----------
    M : array_like, shape (n, n)
    A : array_like, shape (k, n) or (n,)

    Returns
    -------
    P_u : numpy.ndarray, shape (n, n)
        ``1 - A^T (A M^-1 A^T)^-1 A M^-1``: generalized forces that do work.
    P : numpy.ndarray, shape (n, n)
        ``1 - M^-1 A^T (A M^-1 A^T)^-1 A``: motions satisfying the constraints;
        ``P = P_u^T``, rank n - k.
    """
    M = _square(M, "M")
    n = M.shape[0]
    A = _constraint_matrix(A, n)
    L = _spd_factor(0.5 * (M + M.T), "the mass matrix M")
    X, Ls = _schur(L, A)  # X = M^-1 A^T
    K = _solve(Ls, A)  # (A M^-1 A^T)^-1 A
    P = np.eye(n) - X @ K
    P_u = np.eye(n) - K.T @ X.T
    return P_u, P


def projection_orthogonality(M, P, dq) -> float:
    """``(P dq)^T M (1 - P) dq``: zero when P and 1 - P are M-orthogonal (notes 001).

    Parameters
    ----------
    M, P : array_like, shape (n, n)
    dq : array_like, shape (n,)

    Returns
    -------
    float
    """
    M = _square(M, "M")
    n = M.shape[0]
    P = as_square(P, "P", n)
    dq = as_vector(dq, "dq", n)
    return float((P @ dq) @ M @ (dq - P @ dq))


# ============================================================================= models
def _one(model, q, v, tau, A, dA_v, friction):
    return constrained_forward_dynamics(model, q, v, tau, A, dA_v, friction=friction)


_NAMES = ("q", "v", "tau", "A", "dA_dq_v")


def _split(r, nv: int):
    """The core's [qdd, lambda] rows (..., nv + k) as (qdd, lambda) views, or its error."""
    if r.__class__ is not np.ndarray:
        return r
    return [r[..., :nv], r[..., nv:]]


@batched(fast=("constrained", 5, FL_GRAVITY | FL_FRICTION | FL_ARMATURE | FL_CHECK))
def constrained_forward_dynamics(
    model: Model,
    q,
    v,
    tau,
    A,
    dA_dq_v,
    *,
    f_ext=None,
    friction: bool = True,
    armature: bool = True,
    coulomb_eps: float = 0.0,
    check: bool = True,
    threads: int | None = None,
    out=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Forward dynamics under Pfaffian constraints ``A(q) v = 0`` (eqs. 10.15-10.17).

    Solves the KKT system of the equations of motion and the differentiated constraint::

        M ddq + h = tau + A^T lambda,     A ddq + dA_dq_v = 0

    with M from CRBA (with the armature) and ``h = rnea(q, v, 0)`` (gravity, the velocity
    products, the external wrenches and, unless ``friction=False``, joint friction),
    through the Schur complement ``S = A M^-1 A^T`` (:func:`kkt_solve`'s equations), in
    the compiled core (kernels/core/constrained.c): one state, or a batch split over
    threads.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v, tau : array_like, shape (..., nv)
    A : array_like, shape (..., k, nv)
        Constraint matrix at q (columns along the velocity coordinates); k = 0 allowed.
    dA_dq_v : array_like, shape (..., k)
        ``dA/dt v``, plus any Baumgarte terms (:func:`baumgarte_bias`).
    f_ext, friction, armature, coulomb_eps, check, threads
        As in :func:`robodyn.forward_dynamics`.
    out : tuple of two numpy.ndarray, optional
        Arrays of shapes (..., nv) and (..., k) to write ``ddq`` and ``lam`` into.

    Returns
    -------
    ddq : numpy.ndarray, shape (..., nv)
    lam : numpy.ndarray, shape (..., k)
        Lagrange multipliers; ``A^T lambda`` is the constraint force. Leading dimensions
        broadcast.

    Raises
    ------
    ValueError
        Bad shapes or NaN/inf (naming the argument and the state of a batch), a singular
        mass matrix, or dependent rows of A (``A M^-1 A^T`` singular: a Cholesky pivot at
        most 1e-12 of its diagonal entry).
    """
    nq, nv = model.nq, model.nv
    A = A if A.__class__ is np.ndarray else np.asarray(A, dtype=float)
    if A.ndim == 1:
        A = A[None]
    dA = dA_dq_v if dA_dq_v.__class__ is np.ndarray else np.asarray(dA_dq_v, dtype=float)
    if dA.ndim == 0:
        dA = dA[None]
    P = (model._rd_packed or packed(model)).P
    th = 0 if threads is None else _threads(threads)
    flags = (FL_GRAVITY | (FL_FRICTION if friction else 0) | (FL_ARMATURE if armature else 0)
             | (FL_CHECK if check else 0) | (0 if f_ext is None else FL_FEXT))  # fmt: skip
    eps = float(coulomb_eps)
    r = _core.constrained(P, q, v, tau, A, dA, f_ext, flags, eps, th)  # arrays as they are
    if r.__class__ is np.ndarray:
        return _give(_split(r, nv), out)
    k = A.shape[-2] if A.ndim >= 2 else 1
    names, xs, tails = list(_NAMES), [q, v, tau, A, dA], [(nq,), (nv,), (nv,), (k, nv), (k,)]
    if f_ext is not None:
        names.append("f_ext"), xs.append(f_ext), tails.append((model.nb, 6))

    def call(arrs):  # one state, the whole batch, or a piece of it
        fe = arrs[5] if f_ext is not None else None
        return _split(_core.constrained(P, *arrs[:5], fe, flags, eps, th), nv)

    r = run(call, tuple(names), xs, tuple(tails), model, _NAMES + ("f_ext",),
            what="the mass matrix")  # fmt: skip
    return _give(list(r), out)


def _give(r: list, out) -> tuple[np.ndarray, np.ndarray]:
    """(ddq, lam), copied into the caller's arrays ``out`` when given."""
    if out is None:
        return r[0], r[1]
    if not (isinstance(out, tuple | list) and len(out) == 2):
        raise ValueError("out must be a tuple of two arrays (ddq, lam)")
    return into(out[0], r[0]), into(out[1], r[1])


# ========================================================================= holonomic
@dataclass(frozen=True)
class HolonomicConstraint:
    """Holonomic constraints ``c(q) = 0`` for :func:`holonomic_forward_dynamics`.

    Attributes
    ----------
    c : callable
        ``c(q) -> (k,)``.
    jacobian : callable
        ``jacobian(q) -> (k, nv)``, ``dc/dt = jacobian(q) v`` (columns along the
        velocity coordinates: right-trivialised for a floating base).
    dJ_v : callable, optional
        ``dJ_v(q, v) -> (k,)``, the term ``(dJ/dt) v``. If None it is a central finite
        difference of the Jacobian along v (step ``1e-6 / |v|``).
    """

    c: Callable[[np.ndarray], np.ndarray]
    jacobian: Callable[[np.ndarray], np.ndarray]
    dJ_v: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None


def baumgarte_bias(c_val, A, dA_v, v, alpha: float = 0.0, beta: float = 0.0) -> np.ndarray:
    """``dA/dt v + 2 alpha A v + beta^2 c``: the ``dA_v`` argument of :func:`kkt_solve`.

    With it the constraint acceleration obeys ``ddc + 2 alpha dc + beta^2 c = 0``
    (Baumgarte stabilisation; alpha = beta = 0 is the exact index-1 form).

    Parameters
    ----------
    c_val : array_like, shape (k,)
    A : array_like, shape (k, n)
    dA_v : array_like, shape (k,)
    v : array_like, shape (n,)
    alpha, beta : float
        Damping and stiffness rates (1/s), >= 0.

    Returns
    -------
    numpy.ndarray, shape (k,)
    """
    if not (np.isfinite(alpha) and np.isfinite(beta) and alpha >= 0 and beta >= 0):
        raise ValueError(f"alpha and beta must be finite and >= 0, got {alpha}, {beta}")
    A = np.atleast_2d(as_array(A, "A", (np.shape(A)[-1],)))
    k, n = A.shape
    c_val = as_vector(np.atleast_1d(c_val), "c(q)", k)
    dA_v = as_vector(np.atleast_1d(dA_v), "dJ_v", k)
    v = as_vector(v, "v", n)
    return dA_v + 2.0 * alpha * (A @ v) + beta**2 * c_val


def _fd_dJ_v(model: Model, jac, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    nv_ = float(np.linalg.norm(v))
    if nv_ == 0.0:
        return np.zeros(np.atleast_2d(jac(q)).shape[0])
    eps = 1e-6 / nv_
    Jp = np.atleast_2d(jac(integrate(model, q, v, eps, check=False)))
    Jm = np.atleast_2d(jac(integrate(model, q, v, -eps, check=False)))
    return (Jp - Jm) @ v / (2.0 * eps)


def holonomic_forward_dynamics(
    model: Model,
    q,
    v,
    tau,
    constraint: HolonomicConstraint,
    *,
    alpha: float = 0.0,
    beta: float = 0.0,
    friction: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Forward dynamics under ``c(q) = 0`` with Baumgarte stabilisation.

    ``A = jacobian(q)``, and the acceleration constraint ``A ddq + dJ v + 2 alpha A v +
    beta^2 c(q) = 0`` (see :func:`baumgarte_bias`) closes the KKT system of
    :func:`constrained_forward_dynamics`.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    v, tau : array_like, shape (nv,)
    constraint : HolonomicConstraint
    alpha, beta : float
        Baumgarte damping and stiffness rates (1/s).
    friction : bool
        Include joint friction in h.

    Returns
    -------
    ddq : numpy.ndarray, shape (nv,)
    lam : numpy.ndarray, shape (k,)
    """
    q = as_vector(q, "q", model.nq)
    v = as_vector(v, "v", model.nv)
    tau = as_vector(tau, "tau", model.nv)
    A = np.atleast_2d(as_array(constraint.jacobian(q), "jacobian(q)", (model.nv,)))
    c_val = np.atleast_1d(np.asarray(constraint.c(q), dtype=float))
    if constraint.dJ_v is not None:
        dA_v = np.atleast_1d(np.asarray(constraint.dJ_v(q, v), dtype=float))
    else:
        dA_v = _fd_dJ_v(model, constraint.jacobian, q, v)
    gamma = baumgarte_bias(c_val, A, dA_v, v, alpha, beta)
    return _one(model, q, v, tau, A, gamma, friction)
