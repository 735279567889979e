"""Base parameters: the identifiable combinations of the standard parameters.

Some standard parameters never move the joint torques (a body's inertia about axes its
joints cannot rotate it about) and others only move them together (``Izz1 + m2 l1^2``).
The regressor ``Y`` then has dependent columns, whatever the motion: ``Y_d = Y_b K_d``.
Stacking ``Y`` at random states and factoring ``W P = Q [R1 R2]`` (QR with column
pivoting, Gautier 1990) gives the rank ``r`` (the count of significant ``|R_kk|``), the
independent columns ``b`` (the first ``r`` pivots), the dependent ones ``d`` and
``K_d = R1^-1 R2``. Then for every state ``Y pi = Y_b beta`` with the base parameters

    beta = pi_b + K_d pi_d = K pi      (K: r x P, the base-parameter map)
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.linalg

from ..model.configuration import random_configuration
from ..model.parameters import layout, parameter_names
from .regressor import regressor

__all__ = ["BaseParameters", "base_parameters"]


@dataclasses.dataclass(frozen=True)
class BaseParameters:
    """The base-parameter map of a model (see the module docstring).

    Attributes
    ----------
    independent : numpy.ndarray, shape (r,)
        Columns of the standard regressor kept (``Y_b = Y[..., independent]``).
    dependent : numpy.ndarray, shape (P - r,)
    K : numpy.ndarray, shape (r, P)
        ``beta = K @ pi``; ``K[:, independent]`` is the identity.
    names : list of str
        Standard-parameter names (length P).
    friction, offset, armature : bool
        The layout of the standard vector.
    """

    independent: np.ndarray
    dependent: np.ndarray
    K: np.ndarray
    names: list
    friction: bool
    offset: bool
    armature: bool

    @property
    def rank(self) -> int:
        """Number of base parameters r."""
        return len(self.independent)

    @property
    def size(self) -> int:
        """Number of standard parameters P."""
        return self.K.shape[1]

    def __call__(self, pi) -> np.ndarray:
        """The base parameters ``K @ pi`` of standard parameters pi (P,) -> (r,)."""
        pi = np.asarray(pi, dtype=float)
        if pi.shape[-1:] != (self.size,):
            raise ValueError(f"pi must have shape (..., {self.size}), got {pi.shape}")
        return pi @ self.K.T

    def regressor(self, Y) -> np.ndarray:
        """The base regressor ``Y_b`` from the standard one: (..., P) -> (..., r)."""
        return np.asarray(Y)[..., self.independent]

    def standard(self, beta, prior) -> np.ndarray:
        """The standard parameters closest to ``prior`` (Euclidean) with ``K pi = beta``:
        ``pi = prior + K^+ (beta - K prior)``."""
        beta = np.asarray(beta, dtype=float)
        return prior + np.linalg.lstsq(self.K, beta - self.K @ prior, rcond=None)[0]

    def expressions(self, model=None) -> list[str]:
        """Each base parameter as text: ``"link1.Izz + 0.81 link2.m"``."""
        out = []
        for row, k in zip(self.K, self.independent):
            terms = [self.names[k]]
            for j in np.flatnonzero(row):
                if j == k:
                    continue
                c = row[j]
                sign = "-" if c < 0 else "+"
                mag = "" if abs(abs(c) - 1) < 1e-12 else f"{abs(c):.6g} "
                terms.append(f"{sign} {mag}{self.names[j]}")
            out.append(" ".join(terms))
        return out

    def symbolic(self):
        """The base parameters as sympy expressions in symbols named after the standard
        parameters (``link1.Izz``), coefficients exact where they are rationals
        (:func:`robodyn.symbolic.derive.exact_number`).

        Returns
        -------
        (list of sympy.Expr, dict of name -> sympy.Symbol)
        """
        import sympy as sp

        from ..symbolic.derive import exact_number

        syms = {n: sp.Symbol(n, real=True) for n in self.names}
        exprs = [
            sp.Add(*(exact_number(row[j]) * syms[self.names[j]] for j in np.flatnonzero(row)))
            for row in self.K
        ]
        return exprs, syms

    def table(self) -> str:
        """One line per base parameter: its index and its expression."""
        return "\n".join(f"  beta[{k:2d}] = {e}" for k, e in enumerate(self.expressions()))


def base_parameters(
    model,
    *,
    friction: bool = True,
    offset: bool = False,
    armature: bool = True,
    samples: int | None = None,
    seed: int = 0,
    rtol: float = 1e-8,
) -> BaseParameters:
    """The base parameters of ``model`` by QR with column pivoting over random states.

    Parameters
    ----------
    model : Model
    friction, offset, armature : bool
        The standard layout (as :func:`robodyn.parameters`).
    samples : int, optional
        Random states stacked (default: enough for 3 P rows, at least 20).
    seed : int
        Seed of the random states (the result does not depend on it but for ties).
    rtol : float
        A pivot ``|R_kk| <= rtol |R_00|`` counts as zero (the dependencies are exact,
        their numerical residue is ~1e-14; the column scales differ by far less than 1e8).

    Returns
    -------
    BaseParameters
    """
    lay = layout(model, friction=friction, offset=offset, armature=armature)
    P = lay.size
    rng = np.random.default_rng(seed)
    n = samples or max(20, -(-3 * P // max(model.nv, 1)))
    q = random_configuration(model, rng, n)
    v = rng.normal(size=(n, model.nv))
    a = rng.normal(size=(n, model.nv))
    W = regressor(model, q, v, a, friction=friction, offset=offset, armature=armature)
    W = W.reshape(-1, P)
    _, R, perm = scipy.linalg.qr(W, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    r = int(np.sum(d > rtol * d[0])) if d.size and d[0] > 0 else 0
    # Y_d = Y_b K_d with K_d = R1^-1 R2 (pivot order), then rows sorted by column index
    Kd = scipy.linalg.solve_triangular(R[:r, :r], R[:r, r:]) if r else np.zeros((0, P))
    order = np.argsort(perm[:r])
    ind, dep, Kd = perm[:r][order], perm[r:], Kd[order]
    Kd[np.abs(Kd) < 1e-10] = 0.0
    K = np.zeros((r, P))
    K[np.arange(r), ind] = 1.0
    K[:, dep] = Kd
    names = parameter_names(model, friction=friction, offset=offset, armature=armature)
    return BaseParameters(ind, np.sort(dep), K, names, lay.friction, lay.offset, lay.armature)
