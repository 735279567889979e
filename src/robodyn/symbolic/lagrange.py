"""Lagrangian equations of motion with sympy (course notes 001, sections 10.1-10.2; MR 8.1).

:func:`lagrange` turns a Lagrangian ``L(q, qd) = K - V`` (or ``K`` and ``V`` separately)
into an :class:`EquationsOfMotion` in the standard form (10.7)

    u = M(q) qdd + C(q, qd) qd + g(q) + b(q, qd),

with ``M`` the Hessian of the kinetic energy in ``qd`` (10.14), the Christoffel symbols of
``M`` (10.9), the Coriolis matrix, the gravity vector and optional dissipation.

Index conventions (course notes 001, eqs. 10.8-10.10)
------------------------------------------------------
``christoffel[i][j][k]`` is the text's ``Gamma^i_jk`` (first-kind symbols of ``M``: the
upper index is the row of ``M``, no ``M^-1`` is involved)::

    Gamma^i_jk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_kj/dq_i)        (10.9)
    c_i        = sum_jk Gamma^i_jk qd_j qd_k                       (10.8)

The Coriolis matrix is ``C_ij = sum_k Gamma^i_jk qd_k``, so that ``C qd = c`` and
``dM/dt - 2 C`` is skew-symmetric. (The text prints this choice as ``sum_k Gamma^k_ij
qd_k``; with its own definition (10.9) only the row index ``i`` in the upper place gives
``C qd = c``, which is the choice made here and the one of MR eq. 8.56 and course notes
003.) Velocity products with ``j == k`` are the centrifugal terms, ``j != k`` the Coriolis
terms (``.centrifugal`` and ``.coriolis``).

Coordinates may be plain symbols (``qd`` must then be given) or
``sympy.physics.vector.dynamicsymbols`` (``qd`` defaults to their time derivatives).
Everything is computed on plain symbols internally and shown in the user's form.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

import sympy as sp
from sympy.simplify.fu import TR10i

__all__ = [
    "EquationsOfMotion",
    "lagrange",
    "generalized_forces",
    "inertia_matrix",
    "christoffel_symbols",
    "coriolis_matrix",
    "trig_reduce",
    "fast_simplify",
]

# Expressions with more operations than this are not folded (the search grows fast).
TRIGSIMP_MAX_OPS = 120


# =============================================================================== simplify
def trig_reduce(expr) -> sp.Expr:
    """Expand ``expr`` and reduce it modulo ``sin(x)^2 + cos(x)^2 = 1`` for every angle x.

    Sines and cosines of sums and integer multiples are expanded first, then every
    ``sin(x)^2`` is replaced by ``1 - cos(x)^2``: the result is a polynomial in the sines
    (degree <= 1 each) and cosines of the single angles, a canonical form, so two equal
    trigonometric polynomials reduce to the same expression. This is exact and fast (a
    polynomial division, no heuristic search) and is what keeps derivations of 6-DoF arms
    tractable.

    Parameters
    ----------
    expr : sympy expression

    Returns
    -------
    sympy expression
        Expanded and reduced; ``expr`` expanded when it is not polynomial in its sines
        and cosines.
    """
    e = sp.sympify(expr)
    if not e.has(sp.sin, sp.cos):
        return sp.expand(e)
    if any(p.exp.is_negative and p.base.has(sp.sin, sp.cos) for p in e.atoms(sp.Pow)):
        # trig in a denominator: reduce numerator and denominator separately
        num, den = sp.fraction(sp.together(e))
        num, den = _trig_reduce_poly(num), _trig_reduce_poly(den)
        return sp.expand(num) / den if not den.has(sp.sin, sp.cos) else sp.cancel(num / den)
    return _trig_reduce_poly(e)


def _trig_generators(atoms) -> tuple[list, list, list, dict, dict]:
    """For the sines and cosines ``atoms`` of single angles: the angles (in sympy's
    canonical order), a dummy ``s_i`` and ``c_i`` for the sine and cosine of each angle,
    and the replacements ``{sin(x_i): s_i, cos(x_i): c_i}`` and back."""
    args = sorted({a.args[0] for a in atoms}, key=sp.default_sort_key)
    S = [sp.Dummy(f"s{i}") for i in range(len(args))]
    C = [sp.Dummy(f"c{i}") for i in range(len(args))]
    to_poly, back = {}, {}
    for x, s, c in zip(args, S, C):
        to_poly[sp.sin(x)], to_poly[sp.cos(x)] = s, c
        back[s], back[c] = sp.sin(x), sp.cos(x)
    return args, S, C, to_poly, back


def _trig_reduce_poly(e: sp.Expr) -> sp.Expr:
    atoms = e.atoms(sp.sin, sp.cos)
    compound = {a: sp.expand_trig(a) for a in atoms if not a.args[0].is_Symbol}
    if compound:  # sin(q1 + q2), sin(2 q1) -> products of single-angle sines and cosines
        e = e.xreplace(compound)
        atoms = e.atoms(sp.sin, sp.cos)
    if not atoms:
        return sp.expand(e)
    _, S, C, to_poly, back = _trig_generators(atoms)
    p_expr = e.xreplace(to_poly)
    gens = [g for pair in zip(S, C) for g in pair]
    if p_expr.has(*atoms):  # trig atoms left inside other functions
        return sp.expand(e)
    others = sorted(p_expr.free_symbols - set(gens), key=sp.default_sort_key)
    try:
        poly = sp.Poly(p_expr, *gens, *others)
    except sp.PolynomialError:
        try:
            poly = sp.Poly(p_expr, *gens)
        except sp.PolynomialError:
            return sp.expand(e)
    out = _reduce_sin_squares(poly.rep.to_dict(), len(gens), poly.domain)
    if not out:
        return sp.S.Zero
    reduced = sp.Poly.from_dict(out, *poly.gens, domain=poly.domain).as_expr()
    return reduced.xreplace(back)


def fast_simplify(expr, *, trigsimp_max_ops: int = TRIGSIMP_MAX_OPS) -> sp.Expr:
    """Simplification that stays fast: :func:`trig_reduce`, then sum-angle folding.

    After the exact reduction, expressions of at most ``trigsimp_max_ops`` operations get
    the inverse sum-angle rule (``c1 c2 - s1 s2 -> cos(q1 + q2)``, sympy's ``fu.TR10i``,
    20-40 times cheaper than ``trigsimp``) and common symbolic factors pulled out
    (``g (m1 r1 + m2 q2) cos q1``); each step is kept only when it shortens the result.

    Parameters
    ----------
    expr : sympy expression
    trigsimp_max_ops : int
        Size limit for the folding (0 disables it).

    Returns
    -------
    sympy expression
    """
    e = trig_reduce(expr)
    if e.is_number or trigsimp_max_ops <= 0:
        return e
    n = sp.count_ops(e)
    if n > trigsimp_max_ops:
        return e
    if e.has(sp.sin, sp.cos):
        folded = TR10i(e)
        k = sp.count_ops(folded)
        if k < n:
            e, n = folded, k
    f = sp.factor_terms(e)
    if f != e and sp.count_ops(f) < n and f.is_Mul:
        if any(a.free_symbols and not a.is_Add for a in f.args):
            e = f
    return e


def _reduce_matrix(A: sp.MatrixBase, reduce: bool) -> sp.ImmutableMatrix:
    if not reduce:
        return sp.ImmutableMatrix(A)
    return sp.ImmutableMatrix(A.shape[0], A.shape[1], [trig_reduce(x) for x in A])


def _simplify_matrix(A: sp.MatrixBase, simplify: bool) -> sp.ImmutableMatrix:
    if not simplify:
        return sp.ImmutableMatrix(A)
    return sp.ImmutableMatrix(A.shape[0], A.shape[1], [fast_simplify(x) for x in A])


# =============================================================================== helpers
def _column(x, name: str) -> sp.ImmutableMatrix:
    if isinstance(x, sp.MatrixBase):
        if 1 not in x.shape:
            raise ValueError(f"{name} must be a vector (n or n x 1), got shape {x.shape}")
        return sp.ImmutableMatrix(list(x))
    if isinstance(x, sp.Basic) and not isinstance(x, sp.MatrixBase):
        return sp.ImmutableMatrix([x])
    if isinstance(x, Iterable):
        return sp.ImmutableMatrix([sp.sympify(v) for v in x])
    raise ValueError(f"{name} must be a sequence of sympy symbols, got {type(x).__name__}")


def _is_dynamic(x: sp.Basic) -> sp.Symbol | None:
    """Time symbol t when ``x`` is a dynamicsymbol q(t), else None."""
    if isinstance(x, sp.core.function.AppliedUndef) and len(x.args) == 1:
        t = x.args[0]
        if isinstance(t, sp.Symbol):
            return t
    return None


def _ddot_name(name: str) -> str:
    m = re.fullmatch(r"([A-Za-z]+)_?(\d+)", name)
    if m:
        return f"{m.group(1)}ddot{m.group(2)}"
    return f"{name}ddot"


def _dot_name(name: str) -> str:
    m = re.fullmatch(r"([A-Za-z]+)_?(\d+)", name)
    if m:
        return f"{m.group(1)}dot{m.group(2)}"
    return f"{name}dot"


def inertia_matrix(K, qd: Sequence) -> sp.Matrix:
    """Mass matrix from the kinetic energy, ``M_ij = d^2 K / dqd_i dqd_j`` (eq. 10.14).

    Parameters
    ----------
    K : sympy expression
        Kinetic energy, quadratic in ``qd``.
    qd : sequence of n plain sympy symbols

    Returns
    -------
    sympy.Matrix, shape (n, n)
    """
    qd = list(qd)
    n = len(qd)
    grad = [sp.diff(K, v) for v in qd]
    M = sp.zeros(n, n)
    for i in range(n):
        for j in range(i, n):
            M[i, j] = M[j, i] = sp.diff(grad[i], qd[j])
    return M


def christoffel_symbols(M, q: Sequence, *, simplify: bool = True) -> sp.ImmutableDenseNDimArray:
    """Christoffel symbols of ``M``: ``Gamma[i][j][k] = Gamma^i_jk`` (course notes 001, 10.9).

    ``Gamma^i_jk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_kj/dq_i)``, symmetric in j and k.

    Parameters
    ----------
    M : sympy.Matrix, shape (n, n)
    q : sequence of n plain sympy symbols
    simplify : bool
        Reduce each symbol with :func:`trig_reduce` (canonical, no trigsimp search).

    Returns
    -------
    sympy.ImmutableDenseNDimArray, shape (n, n, n)
    """
    q = list(q)
    n = len(q)
    M = sp.Matrix(M)
    fast = _christoffel_poly(M, q)
    if fast is not None:
        return sp.ImmutableDenseNDimArray(fast, (n, n, n))  # already reduced
    # dM[i][j][k] = dM_ij / dq_k, computed once for i <= j.
    dM = [[[None] * n for _ in range(n)] for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            for k in range(n):
                d = sp.diff(M[i, j], q[k])
                dM[i][j][k] = dM[j][i][k] = d
    G = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
    for i in range(n):
        for j in range(n):
            for k in range(j, n):
                x = (dM[i][j][k] + dM[i][k][j] - dM[k][j][i]) / 2
                x = trig_reduce(x) if simplify else x
                G[i][j][k] = G[i][k][j] = x
    return sp.ImmutableDenseNDimArray(G, (n, n, n))


def _christoffel_poly(M: sp.Matrix, q: list) -> list | None:
    """Christoffel symbols by differentiating polynomials in (sin x, cos x, symbols).

    Much faster than ``sympy.diff`` on the large expanded entries of a 6-DoF mass matrix.
    Returns None when an entry is not a polynomial in its sines, cosines and symbols.
    """
    n = len(q)
    entries = list(M)
    atoms = set().union(*(e.atoms(sp.sin, sp.cos) for e in entries))
    if any(not a.args[0].is_Symbol for a in atoms):
        return None
    args, S, C, to_poly, back = _trig_generators(atoms)
    pe = [e.xreplace(to_poly) for e in entries]
    trig = [g for pair in zip(S, C) for g in pair]
    others = set().union(*(e.free_symbols for e in pe)) - set(trig)
    others = sorted(others | set(q), key=sp.default_sort_key)
    gens = trig + others
    try:
        polys = [sp.Poly(e, *gens) for e in pe]
    except sp.PolynomialError:
        return None
    dom = polys[0].domain
    for p in polys[1:]:
        dom = dom.unify(p.domain)
    polys = [p.set_domain(dom) for p in polys]
    P = [[polys[i * n + j] for j in range(n)] for i in range(n)]
    arg_index = {x: a for a, x in enumerate(args)}

    def d(p: sp.Poly, x) -> sp.Poly:
        # d/dx p(sin x, cos x, x, ...) = dp/ds cos x - dp/dc sin x + dp/dx
        out = p.diff(x)
        a = arg_index.get(x)
        if a is not None:
            s_, c_ = S[a], C[a]
            out = out + p.diff(s_) * sp.Poly(c_, *gens, domain=dom)
            out = out - p.diff(c_) * sp.Poly(s_, *gens, domain=dom)
        return out

    dM = [[[None] * n for _ in range(n)] for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            for k in range(n):
                dM[i][j][k] = dM[j][i][k] = d(P[i][j], q[k])
    half = dom.convert(sp.Rational(1, 2)) if dom.is_Field else None
    G = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
    for i in range(n):
        for j in range(n):
            for k in range(j, n):
                x = dM[i][j][k] + dM[i][k][j] - dM[k][j][i]
                terms = _reduce_sin_squares(x.rep.to_dict(), len(trig), dom)
                if not terms:
                    continue
                e = sp.Poly.from_dict(terms, *gens, domain=dom)
                e = (e * half).as_expr() if half is not None else e.as_expr() / 2
                G[i][j][k] = G[i][k][j] = e.xreplace(back)
    return G


def _reduce_sin_squares(terms: dict, ntrig: int, dom) -> dict:
    """Apply s^2 = 1 - c^2 to a polynomial dict whose first ``ntrig`` gens are (s, c) pairs."""
    out: dict[tuple, Any] = defaultdict(lambda: dom.zero)
    stack = list(terms.items())
    while stack:
        mon, coef = stack.pop()
        for k in range(0, ntrig, 2):
            if mon[k] >= 2:  # s^2 = 1 - c^2
                m1 = list(mon)
                m1[k] -= 2
                m2 = list(m1)
                m2[k + 1] += 2
                stack.append((tuple(m1), coef))
                stack.append((tuple(m2), -coef))
                break
        else:
            out[mon] += coef
    return {mon: c for mon, c in out.items() if c}


def coriolis_matrix(christoffel, qd: Sequence) -> sp.Matrix:
    """Coriolis matrix ``C_ij = sum_k Gamma^i_jk qd_k`` (so that ``C qd = c`` of eq. 10.8).

    Parameters
    ----------
    christoffel : array, shape (n, n, n)
        ``christoffel[i][j][k] = Gamma^i_jk``.
    qd : sequence of n sympy symbols

    Returns
    -------
    sympy.Matrix, shape (n, n)
    """
    qd = list(qd)
    n = len(qd)
    C = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            C[i, j] = sp.Add(*[christoffel[i, j, k] * qd[k] for k in range(n)])
    return C


def generalized_forces(J, f, q: Sequence | None = None) -> sp.Matrix:
    """Generalised forces of a force ``f`` at a point: ``u = T(q) f = J(q)^T f`` (10.11-10.12).

    Parameters
    ----------
    J : sympy.Matrix, shape (m, n), or shape (m,) with ``q`` given
        Jacobian of the point, ``xdot = J qd``; or, when ``q`` is given, the point's
        position ``x = phi(q)`` whose Jacobian is taken.
    f : sequence of m sympy expressions
        Force at the point, in the coordinates of ``x``.
    q : sequence of n sympy symbols, optional
        Coordinates; when given, ``J`` is differentiated with respect to them.

    Returns
    -------
    sympy.Matrix, shape (n, 1)
    """
    J = sp.Matrix(J)
    f = sp.Matrix(_column(f, "f"))
    if q is not None:
        J = sp.Matrix(list(J)).jacobian(list(_column(q, "q")))
    if J.shape[0] != f.shape[0]:
        raise ValueError(
            f"f must have {J.shape[0]} entries to match J of shape {J.shape}, got {f.shape[0]}"
        )
    return J.T * f


# =============================================================================== result
def _in_user_symbols(stored: str, doc: str | None = None) -> property:
    """A read-only property: the part stored (or cached) as attribute ``stored``, which is
    in plain symbols, given in the symbols the user gave (``self._user``)."""
    return property(lambda self: self._user(getattr(self, stored)), doc=doc)


def _alias(name: str) -> property:
    """A read-only property that is another name of the attribute ``name``."""
    return property(lambda self: getattr(self, name), doc=f"Alias of :attr:`{name}`.")


class EquationsOfMotion:
    """Equations of motion ``M qdd + C qd + g + b = u`` and their parts (course notes 001).

    Built by :func:`lagrange` or :func:`robodyn.symbolic.derive`; do not construct directly.
    The attributes are sympy objects in the coordinates the user gave.

    Attributes
    ----------
    q, qd, qdd, u : ImmutableMatrix, shape (n, 1)
    M : ImmutableMatrix, shape (n, n)
        Mass matrix (10.14).
    christoffel : ImmutableDenseNDimArray, shape (n, n, n)
        ``christoffel[i][j][k] = Gamma^i_jk`` (10.9); see the module docstring.
    C : ImmutableMatrix, shape (n, n)
        Coriolis matrix ``C_ij = sum_k Gamma^i_jk qd_k``.
    velocity_products, centrifugal, coriolis : ImmutableMatrix, shape (n, 1)
        ``C qd`` and its ``j == k`` and ``j != k`` parts (10.8).
    g, b, h : ImmutableMatrix, shape (n, 1)
        Gravity ``dV/dq``, dissipation ``b(q, qd)``, ``h = C qd + g``.
    lhs : ImmutableMatrix, shape (n, 1)
        ``M qdd + C qd + g + b``, the left side of (10.1) as an expression of q, qd, qdd.
    equations : list of sympy.Eq
        ``lhs_i = u_i``.
    K, V : sympy expressions
        Kinetic and potential energy.
    parameters : dict
        Symbol -> value for the model parameters (``derive(..., "symbolic")``).
    """

    def __init__(
        self,
        q,
        qd,
        qdd,
        u,
        M,
        g,
        b=None,
        *,
        K=None,
        V=None,
        to_user: dict | None = None,
        simplify: bool = True,
        parameters: dict | None = None,
        name: str = "",
    ):
        self._q = sp.ImmutableMatrix(q)
        self._qd = sp.ImmutableMatrix(qd)
        self._qdd = sp.ImmutableMatrix(qdd)
        n = self._q.shape[0]
        self._u = sp.ImmutableMatrix(u)
        self._M = sp.ImmutableMatrix(M)
        self._g = sp.ImmutableMatrix(g)
        self._b = sp.ImmutableMatrix(b) if b is not None else sp.ImmutableMatrix.zeros(n, 1)
        self._K = sp.sympify(K) if K is not None else (self._qd.T * self._M * self._qd)[0, 0] / 2
        self._V = sp.sympify(V) if V is not None else sp.S.Zero
        self._to_user = dict(to_user or {})
        self._simplify = simplify
        self.parameters = dict(parameters or {})
        self.name = name

    # ----------------------------------------------------------------- plumbing
    @property
    def n(self) -> int:
        """Number of coordinates."""
        return self._q.shape[0]

    def _user(self, x):
        if not self._to_user:
            return x
        return x.xreplace(self._to_user)

    @property
    def _from_user(self) -> dict:
        return {v: k for k, v in self._to_user.items()}

    def _plain(self, x):
        """Internal (plain-symbol) form of a user expression."""
        x = sp.sympify(x)
        if not self._to_user:
            return x
        return x.xreplace(self._from_user)

    # ----------------------------------------------------------------- stored parts
    q = _in_user_symbols("_q")
    qd = _in_user_symbols("_qd")
    qdd = _in_user_symbols("_qdd")
    u = _in_user_symbols("_u")
    M = _in_user_symbols("_M")
    g = _in_user_symbols("_g")
    b = _in_user_symbols("_b")
    K = _in_user_symbols("_K")
    V = _in_user_symbols("_V")

    @property
    def L(self) -> sp.Expr:
        """Lagrangian ``K - V``."""
        return self.K - self.V

    # ----------------------------------------------------------------- derived parts
    @cached_property
    def _christoffel(self) -> sp.ImmutableDenseNDimArray:
        return christoffel_symbols(self._M, list(self._q), simplify=self._simplify)

    christoffel = _in_user_symbols("_christoffel")

    @cached_property
    def _C(self) -> sp.ImmutableMatrix:
        return _simplify_matrix(coriolis_matrix(self._christoffel, list(self._qd)), False)

    C = _in_user_symbols("_C")

    def _products(self, which: str) -> sp.ImmutableMatrix:
        n, G, qd = self.n, self._christoffel, list(self._qd)
        out = []
        for i in range(n):
            terms = []
            for j in range(n):
                for k in range(n):
                    if (which == "centrifugal") == (j == k):
                        terms.append(G[i, j, k] * qd[j] * qd[k])
            out.append(sp.Add(*terms))
        return _reduce_matrix(sp.Matrix(out), self._simplify)

    @cached_property
    def _centrifugal(self) -> sp.ImmutableMatrix:
        return self._products("centrifugal")

    @cached_property
    def _coriolis(self) -> sp.ImmutableMatrix:
        return self._products("coriolis")

    centrifugal = _in_user_symbols(
        "_centrifugal", "Squared-velocity terms ``sum_j Gamma^i_jj qd_j^2`` (shape (n, 1))."
    )
    coriolis = _in_user_symbols(
        "_coriolis", "Velocity-product terms ``sum_{j != k} Gamma^i_jk qd_j qd_k`` (shape (n, 1))."
    )

    @cached_property
    def _velocity_products(self) -> sp.ImmutableMatrix:
        c = self._C * self._qd
        return _reduce_matrix(c, self._simplify)

    velocity_products = _in_user_symbols(
        "_velocity_products", "``C qd = qd^T Gamma qd`` (10.8, 10.10), shape (n, 1)."
    )

    @property
    def h(self) -> sp.ImmutableMatrix:
        """``h = C qd + g`` (shape (n, 1))."""
        return self._user(sp.ImmutableMatrix(self._velocity_products + self._g))

    @property
    def _lhs(self) -> sp.ImmutableMatrix:
        return sp.ImmutableMatrix(self._M * self._qdd + self._velocity_products + self._g + self._b)

    lhs = _in_user_symbols(
        "_lhs", "``M qdd + C qd + g + b``: generalised forces as expressions of q, qd, qdd."
    )

    @property
    def equations(self) -> list[sp.Eq]:
        """The Euler-Lagrange equations ``lhs_i = u_i`` (10.1)."""
        lhs, u = self.lhs, self.u
        return [sp.Eq(lhs[i], u[i]) for i in range(self.n)]

    mass_matrix = _alias("M")
    gravity = _alias("g")
    coriolis_matrix = _alias("C")

    def forward_dynamics(self) -> sp.Matrix:
        """``qdd = M^-1 (u - C qd - g - b)`` as sympy expressions (small systems only)."""
        rhs = self._u - self._velocity_products - self._g - self._b
        x = self._M.LUsolve(sp.Matrix(rhs))
        return self._user(_simplify_matrix(x, self._simplify))

    # ----------------------------------------------------------------- transforms
    def _copy_with(self, f) -> EquationsOfMotion:
        new = EquationsOfMotion(
            self._q,
            self._qd,
            self._qdd,
            f(self._u),
            f(self._M),
            f(self._g),
            f(self._b),
            K=f(sp.sympify(self._K)),
            V=f(sp.sympify(self._V)),
            to_user=self._to_user,
            simplify=self._simplify,
            parameters=self.parameters,
            name=self.name,
        )
        for attr in ("_christoffel", "_C", "_centrifugal", "_coriolis", "_velocity_products"):
            if attr in self.__dict__:
                new.__dict__[attr] = f(self.__dict__[attr])
        return new

    def subs(self, *args, **kwargs) -> EquationsOfMotion:
        """A copy with ``sympy.subs`` applied to every part (e.g. ``eom.subs(eom.parameters)``).

        Substituting for the coordinates themselves is not meaningful and is refused.
        """
        if len(args) == 1 and isinstance(args[0], dict):
            pairs = list(args[0].items())
        elif len(args) == 1:
            pairs = list(args[0])
        elif len(args) == 2:
            pairs = [(args[0], args[1])]
        else:
            raise ValueError("subs takes a dict, a list of pairs or (old, new)")
        pairs = [(self._plain(k), self._plain(v)) for k, v in pairs]
        coords = set(self._q) | set(self._qd) | set(self._qdd)
        for k, _ in pairs:
            if k in coords:
                raise ValueError(f"cannot substitute for the coordinate {k}")

        def f(x):
            if isinstance(x, sp.NDimArray):
                return x.subs(pairs, **kwargs)
            return x.subs(pairs, **kwargs)

        return self._copy_with(f)

    def simplify(self, full: bool = False) -> EquationsOfMotion:
        """A copy with every part simplified.

        Parameters
        ----------
        full : bool
            Use ``sympy.simplify`` (slow) instead of :func:`fast_simplify`.
        """
        g = sp.simplify if full else fast_simplify

        def f(x):
            if isinstance(x, sp.NDimArray):
                return x.applyfunc(g)
            if isinstance(x, sp.MatrixBase):
                return sp.ImmutableMatrix(x.shape[0], x.shape[1], [g(v) for v in x])
            return g(x)

        return self._copy_with(f)

    def evalf(self, n: int = 15) -> EquationsOfMotion:
        """A copy with numbers evaluated to ``n`` digits."""
        return self._copy_with(lambda x: x.evalf(n))

    # ----------------------------------------------------------------- printing
    def _latex_expr(self, x) -> str:
        if self._to_user:
            from sympy.physics.vector.printing import vlatex

            return vlatex(self._user(x))
        return sp.latex(x)

    def latex(self, form: str = "standard") -> str:
        """LaTeX of the equations of motion.

        Parameters
        ----------
        form : {"standard", "equations", "christoffel"}
            ``standard``: M, C, g (and b) of (10.7); ``equations``: one line per ``lhs_i =
            u_i``; ``christoffel``: the non-zero ``Gamma^i_jk`` with ``j <= k``.

        Returns
        -------
        str
            An ``aligned`` environment (without math delimiters).
        """
        rows = []
        if form == "standard":
            rows.append(r"M(q) &= " + self._latex_expr(self._M))
            rows.append(r"C(q, \dot{q}) &= " + self._latex_expr(self._C))
            rows.append(r"g(q) &= " + self._latex_expr(self._g))
            if any(x != 0 for x in self._b):
                rows.append(r"b(q, \dot{q}) &= " + self._latex_expr(self._b))
        elif form == "equations":
            for i in range(self.n):
                rows.append(self._latex_expr(self._u[i]) + " &= " + self._latex_expr(self._lhs[i]))
        elif form == "christoffel":
            G = self._christoffel
            for i in range(self.n):
                for j in range(self.n):
                    for k in range(j, self.n):
                        if G[i, j, k] != 0:
                            rows.append(
                                rf"\Gamma^{{{i + 1}}}_{{{j + 1}{k + 1}}} &= "
                                + self._latex_expr(G[i, j, k])
                            )
        else:
            raise ValueError(f"form must be 'standard', 'equations' or 'christoffel', got {form!r}")
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    def _repr_latex_(self) -> str:
        return "$$" + self.latex() + "$$"

    def __repr__(self) -> str:
        head = f"EquationsOfMotion({self.name + ', ' if self.name else ''}n={self.n}"
        return head + f", q={list(self.q)})"

    def __str__(self) -> str:
        return f"{self!r}\nM = {sp.sstr(self.M)}\nC = {sp.sstr(self.C)}\ng = {sp.sstr(self.g)}"


# =============================================================================== lagrange
def _coordinates(q, qd, qdd):
    """Plain symbols for q, qd, qdd and the map plain -> user form (for dynamicsymbols)."""
    q = list(_column(q, "q"))
    if not q:
        raise ValueError("q must hold at least one coordinate, got 0")
    times = {_is_dynamic(x) for x in q}
    if times == {None}:
        for x in q:
            if not isinstance(x, sp.Symbol):
                raise ValueError(f"q must hold sympy symbols or dynamicsymbols, got {x!r}")
        if qd is None:
            raise ValueError("qd must be given when q are plain symbols (not dynamicsymbols)")
        qd = list(_column(qd, "qd"))
        if len(qd) != len(q):
            raise ValueError(f"qd must have {len(q)} entries like q, got {len(qd)}")
        if qdd is None:
            qdd = [sp.Symbol(_ddot_name(x.name), real=x.is_real) for x in q]
        qdd = list(_column(qdd, "qdd"))
        if len(set(q) | set(qd) | set(qdd)) != 3 * len(q):
            raise ValueError("q, qd and qdd must be 3n distinct symbols")
        return q, qd, qdd, {}
    if None in times or len(times) != 1:
        raise ValueError("q must be all plain symbols or all dynamicsymbols of one time t")
    (t,) = times
    qd_user = [x.diff(t) for x in q] if qd is None else list(_column(qd, "qd"))
    qdd_user = [x.diff(t) for x in qd_user] if qdd is None else list(_column(qdd, "qdd"))
    names = [str(x.func) for x in q]
    qp = [sp.Symbol(f"_{nm}", real=True) for nm in names]
    qdp = [sp.Symbol(f"_{_dot_name(nm)}", real=True) for nm in names]
    qddp = [sp.Symbol(f"_{_ddot_name(nm)}", real=True) for nm in names]
    to_user = {}
    for a, b in zip(qp + qdp + qddp, q + qd_user + qdd_user):
        to_user[a] = b
    return qp, qdp, qddp, to_user


def _to_plain(expr, to_user: dict):
    if not to_user or expr is None:
        return expr
    # Highest derivatives first; xreplace matches whole subtrees top-down.
    back = {v: k for k, v in to_user.items()}
    return sp.sympify(expr).xreplace(back)


def lagrange(
    L=None,
    q=None,
    qd=None,
    u=None,
    *,
    K=None,
    V=None,
    dissipation=None,
    qdd=None,
    simplify: bool = True,
) -> EquationsOfMotion:
    """Euler-Lagrange equations ``d/dt dL/dqd - dL/dq = u`` in standard form (10.1, 10.7).

    Parameters
    ----------
    L : sympy expression, optional
        Lagrangian ``K - V``; give either ``L`` or ``K`` (and ``V``).
    q : sequence of n sympy symbols or dynamicsymbols
        Generalised coordinates.
    qd : sequence of n sympy symbols, optional
        Their rates; required for plain symbols, default ``q.diff(t)`` for dynamicsymbols.
    u : sequence of n sympy expressions, optional
        Generalised forces (default symbols ``u1 .. un``); see :func:`generalized_forces`
        for ``u = J^T f``.
    K, V : sympy expressions, optional
        Kinetic energy (quadratic in qd) and potential energy (function of q).
    dissipation : sympy expression or sequence of n, optional
        Friction/damping ``b(q, qd)`` added to the left side, or a scalar Rayleigh
        dissipation function R with ``b = dR/dqd``.
    qdd : sequence of n sympy symbols, optional
        Names for the accelerations (default ``qddot_i`` or ``q.diff(t, 2)``).
    simplify : bool
        Apply :func:`fast_simplify` to M, g and the derived parts.

    Returns
    -------
    EquationsOfMotion

    Raises
    ------
    ValueError
        Missing or inconsistent arguments, or a Lagrangian that is not of the mechanical
        form ``1/2 qd^T M(q) qd - V(q)`` (terms linear in qd).
    """
    if q is None:
        raise ValueError("q (the generalised coordinates) is required")
    if L is not None and (K is not None or V is not None):
        raise ValueError("give either L or K (and V), not both")
    if L is None and K is None:
        raise ValueError("give a Lagrangian L or a kinetic energy K")
    qp, qdp, qddp, to_user = _coordinates(q, qd, qdd)
    n = len(qp)
    Lp = _to_plain(sp.sympify(L) if L is not None else sp.sympify(K) - sp.sympify(V or 0), to_user)
    if to_user and Lp.has(sp.Derivative):
        raise ValueError("L contains derivatives of q other than qd")
    # M = Hessian of L in qd (10.14); it must not depend on qd.
    M = inertia_matrix(Lp, qdp)
    at_rest = dict.fromkeys(qdp, 0)
    if any(x.has(*qdp) for x in M):
        raise ValueError("L (or K) must be quadratic in qd: its Hessian in qd depends on qd")
    linear = [sp.diff(Lp, v).xreplace(at_rest) for v in qdp]
    if any(sp.simplify(x) != 0 for x in linear if x != 0):
        raise ValueError(
            "L has terms linear in qd (gyroscopic); the standard form (10.7) needs "
            "L = 1/2 qd^T M(q) qd - V(q)"
        )
    Vp = -Lp.xreplace(at_rest)
    g = sp.Matrix([sp.diff(Vp, x) for x in qp])
    if dissipation is None:
        b = sp.zeros(n, 1)
    else:
        dis = sp.sympify(dissipation) if not isinstance(dissipation, (list, tuple)) else None
        if dis is not None and not isinstance(dis, sp.MatrixBase):
            b = sp.Matrix([sp.diff(_to_plain(dis, to_user), v) for v in qdp])
        else:
            b = sp.Matrix(_column(dissipation, "dissipation")).applyfunc(
                lambda x: _to_plain(x, to_user)
            )
            if b.shape[0] != n:
                raise ValueError(f"dissipation must have {n} entries, got {b.shape[0]}")
    if u is None:
        up = sp.Matrix(sp.symbols(f"u1:{n + 1}"))
    else:
        up = sp.Matrix(_column(u, "u")).applyfunc(lambda x: _to_plain(x, to_user))
        if up.shape[0] != n:
            raise ValueError(f"u must have {n} entries, got {up.shape[0]}")
    M = _simplify_matrix(M, simplify)
    g = _simplify_matrix(g, simplify)
    Kp = (sp.Matrix(qdp).T * M * sp.Matrix(qdp))[0, 0] / 2
    return EquationsOfMotion(
        qp,
        qdp,
        qddp,
        up,
        M,
        g,
        b,
        K=sp.expand(Kp) if simplify else Kp,
        V=fast_simplify(Vp) if simplify else Vp,
        to_user=to_user,
        simplify=simplify,
    )
