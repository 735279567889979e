"""Pfaffian velocity constraints ``A(q) qd = 0`` (course notes 001, section 10.3).

:func:`constrain` adds k constraints to an :class:`EquationsOfMotion` and returns the
constrained Lagrange equations (10.16)-(10.17)

    M qdd + C qd + g + b = u + A^T lambda,        A qdd + Adot qd = 0,

with the multipliers and accelerations in closed form,

    lambda = (A M^-1 A^T)^-1 (-Adot qd + A M^-1 (C qd + g + b - u)),
    qdd    = M^-1 (u + A^T lambda - C qd - g - b),

and the projections of (10.18)-(10.20)

    P_u = 1 - A^T (A M^-1 A^T)^-1 A M^-1,        P = M^-1 P_u M = 1 - M^-1 A^T (A M^-1 A^T)^-1 A,

so that ``P_u (M qdd + C qd + g) = P_u u`` and ``P qdd = P M^-1 (u - C qd - g)``.

:func:`is_holonomic` decides whether one constraint ``a(q) qd = 0`` integrates to a
configuration constraint ``c(q) = 0``: the one-form ``a . dq`` must satisfy Frobenius'
condition ``a ^ da = 0``, i.e. for every triple i < j < k

    a_i (d_j a_k - d_k a_j) + a_j (d_k a_i - d_i a_k) + a_k (d_i a_j - d_j a_i) = 0,

which for n = 3 is ``a . curl a = 0`` (always true for n <= 2).
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

import numpy as np
import sympy as sp

from .lagrange import EquationsOfMotion, _column, _in_user_symbols, fast_simplify

__all__ = [
    "ConstrainedEquations",
    "ConstraintClassification",
    "classify_constraints",
    "constrain",
    "frobenius_conditions",
    "is_holonomic",
]


def _simp(A: sp.MatrixBase, simplify: bool) -> sp.ImmutableMatrix:
    if not simplify:
        return sp.ImmutableMatrix(A)
    return sp.ImmutableMatrix(A.shape[0], A.shape[1], [fast_simplify(x) for x in A])


class ConstrainedEquations:
    """Equations of motion with Pfaffian constraints (course notes 001, 10.15-10.20).

    The attributes are sympy objects in the coordinates of ``eom``.

    Attributes
    ----------
    eom : EquationsOfMotion
        The unconstrained equations.
    A, A_dot : ImmutableMatrix, shape (k, n)
        Constraint matrix and its time derivative.
    lam : ImmutableMatrix, shape (k, 1)
        Multiplier symbols ``lambda1 .. lambdak``.
    multipliers : ImmutableMatrix, shape (k, 1)
        ``lambda`` in closed form (as functions of q, qd, u).
    qdd : ImmutableMatrix, shape (n, 1)
        Accelerations in closed form.
    P_u, P : ImmutableMatrix, shape (n, n)
        Force and motion projections (10.18), (10.19).
    equations : list of sympy.Eq
        The n equations (10.16) and the k differentiated constraints (10.17).
    """

    def __init__(self, eom: EquationsOfMotion, A, *, simplify: bool = True):
        self.eom = eom
        self._simplify = simplify
        Ap = sp.Matrix(A).applyfunc(eom._plain)
        n = eom.n
        if Ap.shape[1] != n:
            if Ap.shape == (n, 1):
                Ap = Ap.T
            else:
                raise ValueError(f"A must have shape (k, {n}), got {Ap.shape}")
        self.k = Ap.shape[0]
        if any(x.has(*eom._qd) or x.has(*eom._qdd) for x in Ap):
            raise ValueError("A must depend on q only (Pfaffian constraints A(q) qd = 0)")
        q, qd = list(eom._q), sp.Matrix(eom._qd)
        self._A = sp.ImmutableMatrix(Ap)
        # Adot = sum_k dA/dq_k qd_k
        Adot = sp.zeros(*Ap.shape)
        for j, x in enumerate(q):
            Adot += sp.diff(Ap, x) * qd[j]
        self._Adot = _simp(Adot, simplify)
        self._lam = sp.ImmutableMatrix(sp.symbols(f"lambda1:{self.k + 1}", real=True))

    # ----------------------------------------------------------------- pieces
    def _user(self, x):
        return self.eom._user(x)

    A = _in_user_symbols("_A")
    A_dot = _in_user_symbols("_Adot")

    @property
    def lam(self) -> sp.ImmutableMatrix:
        return self._lam

    def _cached(self, key, fn):
        d = self.__dict__.setdefault("_cache", {})
        if key not in d:
            d[key] = fn()
        return d[key]

    def _Minv_AT(self) -> sp.Matrix:
        return self._cached(
            "MinvAT", lambda: _simp(sp.Matrix(self.eom._M).LUsolve(self._A.T), self._simplify)
        )

    def _S_inv(self) -> sp.Matrix:
        """(A M^-1 A^T)^-1, k x k."""

        def f():
            S = _simp(self._A * self._Minv_AT(), self._simplify)
            return _simp(sp.Matrix(S).inv(), self._simplify)

        return self._cached("Sinv", f)

    def _bias(self) -> sp.Matrix:
        e = self.eom
        return sp.Matrix(e._velocity_products + e._g + e._b)

    @property
    def multipliers(self) -> sp.ImmutableMatrix:
        """``lambda = (A M^-1 A^T)^-1 (-Adot qd + A M^-1 (C qd + g + b - u))``."""

        def f():
            e = self.eom
            rhs = self._bias() - sp.Matrix(e._u)
            Minv_rhs = sp.Matrix(e._M).LUsolve(rhs)
            lam = self._S_inv() * (-self._Adot * sp.Matrix(e._qd) + self._A * Minv_rhs)
            return _simp(lam, self._simplify)

        return self._user(self._cached("lam", f))

    @property
    def qdd(self) -> sp.ImmutableMatrix:
        """``qdd = M^-1 (u + A^T lambda - C qd - g - b)`` with lambda in closed form."""

        def f():
            e = self.eom
            lam = self.multipliers.xreplace(e._from_user) if e._to_user else self.multipliers
            rhs = sp.Matrix(e._u) + self._A.T * lam - self._bias()
            return _simp(sp.Matrix(e._M).LUsolve(rhs), self._simplify)

        return self._user(self._cached("qdd", f))

    @property
    def P_u(self) -> sp.ImmutableMatrix:
        """``P_u = 1 - A^T (A M^-1 A^T)^-1 A M^-1`` (rank n - k; eq. before 10.18)."""

        def f():
            n = self.eom.n
            Minv_AT = self._Minv_AT()
            return _simp(sp.eye(n) - self._A.T * self._S_inv() * Minv_AT.T, self._simplify)

        return self._user(self._cached("Pu", f))

    @property
    def P(self) -> sp.ImmutableMatrix:
        """``P = M^-1 P_u M = 1 - M^-1 A^T (A M^-1 A^T)^-1 A`` (10.19)."""

        def f():
            n = self.eom.n
            return _simp(sp.eye(n) - self._Minv_AT() * self._S_inv() * self._A, self._simplify)

        return self._user(self._cached("P", f))

    @property
    def equations(self) -> list[sp.Eq]:
        """(10.16): ``lhs = u + A^T lambda`` (n rows), (10.17): ``A qdd + Adot qd = 0``."""
        e = self.eom
        lhs = sp.Matrix(e._lhs)
        rhs = sp.Matrix(e._u) + self._A.T * sp.Matrix(self._lam)
        con = self._A * sp.Matrix(e._qdd) + self._Adot * sp.Matrix(e._qd)
        eqs = [sp.Eq(self._user(lhs[i]), self._user(rhs[i])) for i in range(e.n)]
        eqs += [sp.Eq(self._user(con[j]), 0) for j in range(self.k)]
        return eqs

    def projected_equations(self) -> list[sp.Eq]:
        """(10.20): ``P qdd = P M^-1 (u - C qd - g - b)``, n rows of rank n - k."""
        e = self.eom
        P = sp.Matrix(self._cached("P", lambda: None) or self.P.xreplace(e._from_user))
        lhs = _simp(P * sp.Matrix(e._qdd), self._simplify)
        rhs = sp.Matrix(e._M).LUsolve(sp.Matrix(e._u) - self._bias())
        rhs = _simp(P * rhs, self._simplify)
        return [sp.Eq(self._user(lhs[i]), self._user(rhs[i])) for i in range(e.n)]

    def latex(self) -> str:
        """LaTeX of (10.16)-(10.17) as an ``aligned`` environment."""
        rows = [sp.latex(eq.lhs) + " &= " + sp.latex(eq.rhs) for eq in self.equations]
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    def _repr_latex_(self) -> str:
        return "$$" + self.latex() + "$$"

    def __repr__(self) -> str:
        return f"ConstrainedEquations(n={self.eom.n}, k={self.k})"


def constrain(eom: EquationsOfMotion, A, *, simplify: bool = True) -> ConstrainedEquations:
    """Add Pfaffian constraints ``A(q) qd = 0`` to equations of motion (10.15-10.20).

    Parameters
    ----------
    eom : EquationsOfMotion
    A : sympy.Matrix, shape (k, n) (or a single row of n entries)
        Constraint matrix, a function of q only.
    simplify : bool
        Simplify the closed forms with :func:`fast_simplify`.

    Returns
    -------
    ConstrainedEquations
    """
    if not isinstance(eom, EquationsOfMotion):
        raise ValueError(f"eom must be an EquationsOfMotion, got {type(eom).__name__}")
    A = sp.Matrix(A)
    if A.shape[0] == 0:
        raise ValueError("A must have at least one row")
    return ConstrainedEquations(eom, A, simplify=simplify)


def frobenius_conditions(a, q) -> list[sp.Expr]:
    """Components of ``a ^ da`` for the one-form ``a(q)^T dq`` (all zero iff integrable).

    Parameters
    ----------
    a : sequence of n sympy expressions
        One Pfaffian constraint ``a(q) qd = 0``.
    q : sequence of n sympy symbols

    Returns
    -------
    list of sympy expressions, one per triple i < j < k (empty for n <= 2)
    """
    a = list(_column(a, "a"))
    q = list(_column(q, "q"))
    if len(a) != len(q):
        raise ValueError(f"a must have {len(q)} entries like q, got {len(a)}")
    d = [[sp.diff(a[i], q[j]) for j in range(len(q))] for i in range(len(q))]  # d[i][j] = da_i/dq_j
    out = []
    for i, j, k in combinations(range(len(q)), 3):
        out.append(
            a[i] * (d[k][j] - d[j][k]) + a[j] * (d[i][k] - d[k][i]) + a[k] * (d[j][i] - d[i][j])
        )
    return out


def is_holonomic(a, q, *, samples: int = 8, seed: int = 0) -> bool:
    """Whether one Pfaffian constraint ``a(q) qd = 0`` integrates to ``c(q) = 0``.

    Holonomic iff ``a`` is a multiple of an exact differential, i.e. the Frobenius
    condition ``a ^ da = 0`` holds (``a . curl a = 0`` for n = 3; always for n <= 2).

    Parameters
    ----------
    a : sequence of n sympy expressions
    q : sequence of n sympy symbols
    samples, seed : int
        When sympy cannot decide that a condition is zero, it is evaluated at ``samples``
        random points: the constraint is declared holonomic only if all vanish there.

    Returns
    -------
    bool
    """
    conds = frobenius_conditions(a, q)
    q = list(_column(q, "q"))
    rng = np.random.default_rng(seed)
    for c in conds:
        c = fast_simplify(c)
        if c == 0:
            continue
        if sp.simplify(c) == 0:
            continue
        free = sorted(c.free_symbols, key=str)
        f = sp.lambdify(free, c, "math")
        for _ in range(samples):
            vals = rng.uniform(0.1, 1.3, len(free))
            try:
                val = complex(f(*vals))
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            if abs(val) > 1e-9:
                return False
    return True


class ConstraintClassification(NamedTuple):
    """What a set of Pfaffian constraints ``A(q) qd = 0`` does to the configuration space.

    n : int
        Configuration dimension.
    rank : int
        Independent constraints (the generic rank of A).
    closure : int
        Dimension of the involutive closure of the allowed velocities ``ker A(q)`` (their
        iterated Lie brackets): the dimension of the set reachable from a configuration.
    holonomic : int
        Constraints that integrate to configuration constraints, ``n - closure``.
    nonholonomic : int
        The rest, ``rank - holonomic``: they restrict velocities but not configurations.
    """

    n: int
    rank: int
    closure: int
    holonomic: int
    nonholonomic: int


def _generic_rank(fields, q, rng, samples: int) -> int:
    """The rank of the vector fields (columns) at random configurations (the largest seen)."""
    F = sp.Matrix.hstack(*fields)
    f = sp.lambdify(list(q), F, "numpy")
    best = 0
    for _ in range(samples):
        try:
            X = np.asarray(f(*rng.uniform(0.1, 1.3, len(q))), dtype=float)
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
        if np.all(np.isfinite(X)):
            best = max(best, int(np.linalg.matrix_rank(X, tol=1e-9 * max(1.0, np.abs(X).max()))))
    return best


def classify_constraints(A, q, *, samples: int = 6, seed: int = 0) -> ConstraintClassification:
    """Holonomic or nonholonomic: how many of the constraints ``A(q) qd = 0`` integrate.

    The allowed velocities form the distribution ``D = ker A(q)`` of dimension
    ``n - rank``. By Frobenius' theorem the constraints are holonomic exactly where D is
    involutive; in general the motions can reach a submanifold whose dimension is that of
    D's involutive closure, spanned by D's vector fields and their iterated Lie brackets
    ``[f, g] = (dg/dq) f - (df/dq) g`` (MR sec. 2.4 and 13.3; Murray, Li and Sastry
    ch. 7). So ``n - closure`` constraints are holonomic and the other ones nonholonomic.
    For one constraint this agrees with :func:`is_holonomic`.

    Parameters
    ----------
    A : sympy Matrix (k, n) or nested sequence
        The constraint rows, expressions in q.
    q : sequence of n sympy symbols
    samples, seed : int
        Ranks are generic ranks, evaluated at ``samples`` random configurations.

    Returns
    -------
    ConstraintClassification
        ``(n, rank, closure, holonomic, nonholonomic)``.

    Examples
    --------
    The rolling coin of MR fig. 2.10, q = (x, y, phi, theta): two constraints, both
    nonholonomic (the coin reaches every configuration).

    >>> import sympy as sp
    >>> x, y, phi, th, r = sp.symbols("x y phi theta r", positive=True)
    >>> A = [[1, 0, 0, -r * sp.cos(phi)], [0, 1, 0, -r * sp.sin(phi)]]
    >>> classify_constraints(A, [x, y, phi, th])
    ConstraintClassification(n=4, rank=2, closure=4, holonomic=0, nonholonomic=2)
    """
    q = list(_column(q, "q"))
    A = sp.Matrix(A)
    n = len(q)
    if A.cols != n:
        raise ValueError(f"A must have {n} columns (one per coordinate of q), got {A.cols}")
    rng = np.random.default_rng(seed)
    params = sorted(A.free_symbols - set(q), key=str)
    if params:  # other symbols (radii, lengths) take generic positive values
        A = A.subs({s: v for s, v in zip(params, rng.uniform(0.3, 1.7, len(params)))})
    rank = _generic_rank([A.T[:, i] for i in range(A.rows)], q, rng, samples) if A.rows else 0
    fields = [sp.Matrix(f) for f in A.nullspace(simplify=True)] if rank < n else []
    if rank == n or not fields:
        return ConstraintClassification(n, rank, n - rank, rank, 0)
    J = sp.Matrix(q)
    dim = _generic_rank(fields, q, rng, samples)
    frontier = list(fields)
    while dim < n and frontier:  # add brackets of the newest fields with all, until no gain
        new = []
        for f in frontier:
            for g in fields:
                bracket = g.jacobian(J) * f - f.jacobian(J) * g
                bracket = bracket.applyfunc(fast_simplify)
                if all(e == 0 for e in bracket):
                    continue
                d = _generic_rank([*fields, *new, bracket], q, rng, samples)
                if d > dim:
                    new.append(bracket)
                    dim = d
                    if dim == n:
                        break
            if dim == n:
                break
        fields += new
        frontier = new
    return ConstraintClassification(n, rank, dim, n - dim, rank - (n - dim))
