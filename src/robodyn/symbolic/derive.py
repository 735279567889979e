"""Symbolic equations of motion of a robodyn Model (course notes 001, 10.13-10.14; MR 8.1).

:func:`derive` builds, for any fixed-base tree of revolute and prismatic joints (mimic
joints included), the kinetic energy from the link Jacobians

    K = 1/2 sum_i (m_i v_ci^T v_ci + w_i^T I_i w_i),
    M = sum_i (m_i J_ci^T J_ci + J_wi^T I_i J_wi),

and the potential energy ``V = -sum_i m_i g^T p_ci`` from the CoM positions along the
model's gravity, then hands M and V to the standard form of :mod:`.lagrange`.

The link Jacobians are propagated in each body's own frame (``w_i = R_{p,i}^T w_p + a_i
qd_i``, ``v_i = R_{p,i}^T (v_p + w_p x p_{p,i}) + ...``), so each body's velocity depends
only on the joints between it and its ancestors through relative rotations, and the mass
matrix of a serial arm contains only the cosines of the inner joints, as in the textbook
(``cos q2`` for the 2R arm). Every entry is reduced with :func:`.trig_reduce`.

Parameters are either the model's numbers (exact rationals where a number is one, e.g.
0.25 -> 1/4, floats otherwise) or named symbols that read like the textbook:

=========== ===================================================================
``m3``      mass of body 3
``r3``      CoM offset of body 3 in its frame (one non-zero component; else
            ``r3x``, ``r3y``, ``r3z``)
``L2``      offset of the joint that follows body 2 (the text's link length; body 0
            is the world, so ``L0`` is the base offset; ``L2x``.. when several
            components, ``L2_5``.. when body 2 has several children)
``I3zz``    inertia entries about the CoM (``I3xx``, ``I3xy``, ...); renamed ``I3``
            when it is the only one of body 3 that reaches the equations
``g``       magnitude of gravity (its direction stays the model's)
=========== ===================================================================

Joint axes and joint-frame rotations are structural and stay numeric. ``eom.parameters``
maps each symbol to the model's value.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from ..errors import ModelError
from ..model.model import (
    JOINT_CYLINDRICAL,
    JOINT_FIXED,
    JOINT_HELICAL,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    JOINT_TYPE_NAMES,
    Model,
)
from .lagrange import EquationsOfMotion, fast_simplify, trig_reduce

__all__ = ["derive", "exact_number"]

_AXES = "xyz"


def exact_number(x: float, tol: float = 1e-12, max_denominator: int = 1000) -> sp.Expr:
    """A sympy number for ``x``: a Rational when ``x`` is one (to ``tol``), else a Float.

    Parameters
    ----------
    x : float
    tol : float
        Relative tolerance for snapping (1e-12 keeps every result within the 1e-10 checks).
    max_denominator : int

    Returns
    -------
    sympy.Rational or sympy.Float
    """
    x = float(x)
    if not np.isfinite(x):
        raise ValueError(f"model number must be finite, got {x}")
    fr = Fraction(x).limit_denominator(max_denominator)
    if abs(float(fr) - x) <= tol * max(1.0, abs(x)):
        return sp.Rational(fr.numerator, fr.denominator)
    return sp.Float(x)


def _vec(a) -> sp.Matrix:
    return sp.Matrix([exact_number(v) for v in np.asarray(a).ravel()])


def _mat(a) -> sp.Matrix:
    a = np.asarray(a)
    return sp.Matrix(a.shape[0], a.shape[1], [exact_number(v) for v in a.ravel()])


def _skew(w: sp.Matrix) -> sp.Matrix:
    return sp.Matrix([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def _rotation(axis: sp.Matrix, angle) -> sp.Matrix:
    """Rodrigues: R = I + sin(t) [a] + (1 - cos(t)) [a]^2 (MR eq. 3.51)."""
    A = _skew(axis)
    return sp.eye(3) + sp.sin(angle) * A + (1 - sp.cos(angle)) * (A * A)


def _reduce(A: sp.Matrix) -> sp.Matrix:
    return A.applyfunc(trig_reduce)


class _Parameters:
    """Numbers or named symbols for the model's parameters, and their values."""

    def __init__(self, model: Model, symbolic: bool):
        self.symbolic = symbolic
        self.values: dict[sp.Symbol, float] = {}
        self.model = model
        children: dict[int, list[int]] = {}
        for i in range(1, model.nb):
            if np.any(model.jnt_p[i] != 0):
                children.setdefault(int(model.body_parent[i]), []).append(i)
        self._offset_children = children

    def _sym(self, name: str, value: float, positive: bool = False) -> sp.Symbol:
        s = sp.Symbol(name, positive=True) if positive else sp.Symbol(name, real=True)
        self.values[s] = float(value)
        return s

    def mass(self, i: int) -> sp.Expr:
        m = float(self.model.body_mass[i])
        if not self.symbolic or m == 0.0:
            return exact_number(m)
        return self._sym(f"m{i}", m, positive=True)

    def _vector(self, v: np.ndarray, name: str) -> sp.Matrix:
        if not self.symbolic:
            return _vec(v)
        nz = [k for k in range(3) if v[k] != 0.0]
        if len(nz) == 1:
            k = nz[0]
            s = self._sym(name, abs(v[k]), positive=True)
            out = sp.zeros(3, 1)
            out[k] = s if v[k] > 0 else -s
            return out
        out = sp.zeros(3, 1)
        for k in nz:
            out[k] = self._sym(f"{name}{_AXES[k]}", v[k])
        return out

    def com(self, i: int) -> sp.Matrix:
        return self._vector(np.asarray(self.model.body_com[i], dtype=float), f"r{i}")

    def offset(self, i: int) -> sp.Matrix:
        p = int(self.model.body_parent[i])
        sibs = self._offset_children.get(p, [])
        name = f"L{p}" if len(sibs) <= 1 else f"L{p}_{i}"
        return self._vector(np.asarray(self.model.jnt_p[i], dtype=float), name)

    def inertia(self, i: int) -> sp.Matrix:
        I = np.asarray(self.model.body_inertia[i], dtype=float)
        if not self.symbolic:
            return _mat(I)
        out = sp.zeros(3, 3)
        for a in range(3):
            for b in range(a, 3):
                if I[a, b] != 0.0:
                    s = self._sym(f"I{i}{_AXES[a]}{_AXES[b]}", I[a, b], positive=(a == b))
                    out[a, b] = out[b, a] = s
        return out

    def gravity(self) -> sp.Matrix:
        g = np.asarray(self.model.gravity, dtype=float)
        mag = float(np.linalg.norm(g))
        if not self.symbolic or mag == 0.0:
            return _vec(g)
        s = self._sym("g", mag, positive=True)
        return s * _vec(g / mag)


def _check_model(model: Model) -> None:
    if not isinstance(model, Model):
        raise ValueError(f"model must be a robodyn Model, got {type(model).__name__}")
    for i in range(1, model.nb):
        t = int(model.jnt_type[i])
        if t not in (JOINT_REVOLUTE, JOINT_PRISMATIC, JOINT_HELICAL, JOINT_CYLINDRICAL,
                     JOINT_FIXED):  # fmt: skip
            raise ModelError(
                f"joint {model.joint_names_all[i]!r} of body {model.body_names[i]!r} is a "
                f"{JOINT_TYPE_NAMES.get(t, t)} joint: symbolic derive supports trees of "
                "revolute, prismatic, helical and cylindrical joints only (velocities that are "
                "coordinate rates; free, spherical and planar joints have body twists)"
            )
    if model.nq != model.nv:
        raise ModelError(f"derive needs nq == nv, got nq={model.nq}, nv={model.nv}")


def _rename_single_inertias(eom_parts: list, values: dict, nb: int) -> dict:
    """``I3zz -> I3`` when it is the only inertia symbol of body 3 in the equations."""
    present = set()
    for x in eom_parts:
        present |= x.free_symbols
    ren = {}
    for i in range(1, nb):
        mine = [
            s
            for s in present
            if s.name.startswith(f"I{i}") and s.name[len(f"I{i}") :] in _INERTIA_SUFFIXES
        ]
        if len(mine) == 1 and mine[0].name.endswith(("xx", "yy", "zz")):
            ren[mine[0]] = sp.Symbol(f"I{i}", positive=True)
    return ren


_INERTIA_SUFFIXES = {a + b for a in _AXES for b in _AXES}


def _symbols(n: int) -> tuple[list, list, list, list]:
    """The plain symbols ``q1..qn``, ``qdot1..``, ``qddot1..`` and ``tau1..``."""
    q = [sp.Symbol(f"q{k + 1}", real=True) for k in range(n)]
    qd = [sp.Symbol(f"qdot{k + 1}", real=True) for k in range(n)]
    qdd = [sp.Symbol(f"qddot{k + 1}", real=True) for k in range(n)]
    tau = [sp.Symbol(f"tau{k + 1}", real=True) for k in range(n)]
    return q, qd, qdd, tau


def _joint_coordinate(model: Model, i: int, q: list, n: int):
    """Body i's joint in the coordinates: its angle (or travel), its rate ``row * qd`` (a
    mimic joint follows its leader), a cylindrical joint's travel rate ``row2 * qd``, and
    the index ``k`` of its (or its leader's) first velocity."""
    row = sp.zeros(1, n)  # joint rate = row * qd
    angle = sp.S.Zero
    k = None
    if int(model.jnt_mimic[i]) >= 0:
        lead = int(model.jnt_mimic[i])
        k = int(model.jnt_vadr[lead])
        mult = exact_number(model.jnt_mimic_mult[i])
        angle = mult * q[k] + exact_number(model.jnt_mimic_offset[i])
        row[k] = mult
    elif int(model.jnt_nv[i]) >= 1:
        k = int(model.jnt_vadr[i])
        angle = q[k]
        row[k] = 1
    row2 = sp.zeros(1, n)  # a cylindrical joint's second rate, d-dot
    if int(model.jnt_type[i]) == JOINT_CYLINDRICAL:
        row2[k + 1] = 1
    return angle, row, row2, k


def _joint_placement(model: Model, P: _Parameters, i: int, angle, q: list, k):
    """Body i's frame in its parent's at the joint's coordinate: ``R_{p,i}``, ``p_{p,i}``,
    with the joint axis ``a`` and a helical joint's pitch (MR eqs. 3.51, 3.73)."""
    t = int(model.jnt_type[i])
    a = _vec(model.jnt_axis[i])
    R_j = _mat(model.jnt_R[i])
    p_pi = P.offset(i)
    pitch = exact_number(model.jnt_pitch[i]) if t == JOINT_HELICAL else 0
    if t in (JOINT_REVOLUTE, JOINT_HELICAL, JOINT_CYLINDRICAL):
        R_pi = R_j * _rotation(a, angle)
        if t == JOINT_HELICAL:  # a screw: pitch * angle along the axis (MR eq. 3.73)
            p_pi = p_pi + R_j * a * (pitch * angle)
        elif t == JOINT_CYLINDRICAL:  # then d = q[k + 1] along it
            p_pi = p_pi + R_j * a * q[k + 1]
    else:
        R_pi = R_j
        if t == JOINT_PRISMATIC:
            p_pi = p_pi + R_j * a * angle
    return R_pi, p_pi, a, pitch


def _add_joint_rate(t: int, a, pitch, row, row2, Jw_i, Jv_i):
    """``w_i``, ``v_i`` plus the joint's own motion S qd_i: ``S = [a; 0]`` (revolute),
    ``[a; pitch a]`` (helical), ``[a, 0; 0, a]`` (cylindrical), ``[0; a]`` (prismatic)."""
    if t in (JOINT_REVOLUTE, JOINT_HELICAL, JOINT_CYLINDRICAL):
        Jw_i = Jw_i + a * row
        if t == JOINT_HELICAL:
            Jv_i = Jv_i + pitch * a * row
        elif t == JOINT_CYLINDRICAL:
            Jv_i = Jv_i + a * row2
    elif t == JOINT_PRISMATIC:
        Jv_i = Jv_i + a * row
    return Jw_i, Jv_i


def _add_body(P: _Parameters, i: int, Jw_i, Jv_i, height_i, g_i, M, V):
    """M and V with body i's share: ``m J_c^T J_c + J_w^T I_c J_w`` and ``-m g^T p_c``."""
    m = P.mass(i)
    c = P.com(i)
    I_c = P.inertia(i)
    if m != 0:
        Jc = Jv_i - _skew(c) * Jw_i  # v_c = v + w x c
        M += m * (Jc.T * Jc)
        V -= m * (height_i + (g_i.T * c)[0, 0])  # V = -m g^T p_c
    if any(x != 0 for x in I_c):
        M += Jw_i.T * I_c * Jw_i
    return M, V


def _mass_matrix_and_potential(model: Model, P: _Parameters, q: list):
    """M (unreduced sum over the bodies) and V, from the link Jacobians propagated from
    the root in each body's own frame (module docstring)."""
    n, nb = model.nv, model.nb
    g_w = P.gravity()
    Jw: list = [sp.zeros(3, n)] * nb  # angular velocity Jacobian of body i, in frame i
    Jv: list = [sp.zeros(3, n)] * nb  # velocity of the origin of body i, in frame i
    g_b: list = [g_w] * nb  # gravity in frame i
    height: list = [sp.S.Zero] * nb  # g^T p_i (p_i: origin of body i in the world)
    M = sp.zeros(n, n)
    V = sp.S.Zero
    for i in range(1, nb):
        p = int(model.body_parent[i])
        angle, row, row2, k = _joint_coordinate(model, i, q, n)
        R_pi, p_pi, a, pitch = _joint_placement(model, P, i, angle, q, k)
        R_ip = R_pi.T
        # w_i = R^T w_p (+ a qd_i);  v_i = R^T (v_p + w_p x p_{p,i}) (+ a qd_i)
        Jw_i = R_ip * Jw[p]
        Jv_i = R_ip * (Jv[p] - _skew(p_pi) * Jw[p])
        Jw_i, Jv_i = _add_joint_rate(int(model.jnt_type[i]), a, pitch, row, row2, Jw_i, Jv_i)
        Jw[i], Jv[i] = _reduce(Jw_i), _reduce(Jv_i)
        g_b[i] = _reduce(R_ip * g_b[p])
        height[i] = trig_reduce(height[p] + (g_b[p].T * p_pi)[0, 0])
        M, V = _add_body(P, i, Jw[i], Jv[i], height[i], g_b[i], M, V)
    return M, V


def _gravity_form(model: Model, M, V, q: list, simplify: bool):
    """M with the armature on its diagonal, each entry simplified; V reduced; g = dV/dq."""
    n = model.nv
    for k in range(n):
        M[k, k] += exact_number(model.dof_armature[k])
    for i in range(n):
        for j in range(i, n):
            M[i, j] = M[j, i] = fast_simplify(M[i, j]) if simplify else trig_reduce(M[i, j])
    V = trig_reduce(V)
    g = sp.Matrix([trig_reduce(sp.diff(V, x)) for x in q])
    if simplify:
        g = g.applyfunc(fast_simplify)
    return M, g, V


def _friction(model: Model, qd: list, friction: bool) -> sp.Matrix:
    """``b = d qd + f sign(qd)`` (zero without ``friction``)."""
    n = model.nv
    b = sp.zeros(n, 1)
    if friction:
        for k in range(n):
            b[k] = exact_number(model.dof_damping[k]) * qd[k] + exact_number(
                model.dof_friction[k]
            ) * sp.sign(qd[k])
    return b


_PRESETS = {
    # course notes 003: theta, l1 (joint offset), lc1 (CoM offset), I1, m1
    "lesson": lambda n: {
        **{f"q{k}": f"theta{k}" for k in range(1, n + 1)},
        **{f"qdot{k}": f"thetadot{k}" for k in range(1, n + 1)},
        **{f"qddot{k}": f"thetaddot{k}" for k in range(1, n + 1)},
        **{f"L{k}": f"l{k}" for k in range(n + 1)},
        **{f"r{k}": f"lc{k}" for k in range(n + 1)},
    },
    # course notes 000: theta, point masses at the link tips (CoM offset r_i = L_i)
    "notes000": lambda n: {
        **{f"q{k}": f"theta{k}" for k in range(1, n + 1)},
        **{f"qdot{k}": f"thetadot{k}" for k in range(1, n + 1)},
        **{f"qddot{k}": f"thetaddot{k}" for k in range(1, n + 1)},
        **{f"r{k}": f"L{k}" for k in range(n + 1)},
    },
}


def _renaming(names: str | dict, n: int, symbols: list) -> dict:
    """Symbol -> Symbol for ``derive(..., names=...)`` (a preset or a dict of names)."""
    if isinstance(names, str):
        if names not in _PRESETS:
            raise ValueError(f"names must be a dict or one of {sorted(_PRESETS)}, got {names!r}")
        names = _PRESETS[names](n)
    if not isinstance(names, dict):
        raise ValueError(f"names must be a dict or one of {sorted(_PRESETS)}, got {names!r}")
    by_name = {str(s): s for s in symbols}
    out = {}
    for old, new in names.items():
        if str(old) in by_name:
            if not isinstance(new, sp.Symbol):  # one symbol per name: "L1" is robodyn's L1
                new = by_name.get(str(new), sp.Symbol(str(new), real=True))
            out[by_name[str(old)]] = new
    return out


def _textbook_parameters(P: _Parameters, M, g, V, nb: int):
    """M, g, V and the parameter values, with ``I3zz -> I3`` where it is body 3's only
    inertia symbol, and only the symbols that reach the equations."""
    values = P.values
    if P.symbolic:
        ren = _rename_single_inertias(list(M), values, nb)
        if ren:
            M = M.xreplace(ren)
            g = g.xreplace(ren)
            V = V.xreplace(ren)
            values = {ren.get(s, s): v for s, v in values.items()}
        present = set().union(*(x.free_symbols for x in list(M) + list(g)))
        values = {s: v for s, v in values.items() if s in present}
    return M, g, V, values


def derive(
    model: Model,
    parameters: str = "numeric",
    simplify: bool = True,
    *,
    friction: bool = False,
    names: str | dict | None = None,
) -> EquationsOfMotion:
    """Symbolic equations of motion ``M qdd + C qd + g = tau`` of a robodyn Model.

    Parameters
    ----------
    model : Model
        Fixed-base tree of revolute/prismatic (and mimic) joints.
    parameters : {"numeric", "symbolic"}
        The model's numbers, or named symbols ``m1, L1, r1, I1, g, ...`` (module docstring);
        ``eom.parameters`` maps the symbols to the model's values.
    simplify : bool
        Fold small expressions with trigsimp (``cos(q1 + q2)``) and simplify the derived
        Christoffel symbols; False keeps the expanded, reduced form (faster for 6-DoF arms).
    friction : bool
        Add the joint damping and Coulomb friction ``b = d qd + f sign(qd)``.
    names : {"lesson", "notes000"} or dict, optional
        The symbols to print the equations in. A dict maps robodyn's names (``"q1"``,
        ``"qdot1"``, ``"qddot1"``, ``"tau1"``, ``"m1"``, ``"L1"``, ``"r1"``, ``"I1"``,
        ``"g"``) to a name or a sympy Symbol; two names mapped to one symbol become one
        (``{"r1": "L1"}`` for a point mass at the link's tip). ``"lesson"`` is course
        notes 003's notation (``theta1``, ``thetadot1``, ``thetaddot1``, ``l1`` for robodyn's
        joint offset ``L1``, ``lc1`` for the CoM offset ``r1``); ``"notes000"`` is course
        notes 000's point-mass arm (``theta1``.., masses at the tips: ``r_i`` and
        ``L_i`` are both ``L_i``, where ``L2`` is the second link's length).
        ``parameters="symbolic"`` is implied for the parameter names.

    Returns
    -------
    EquationsOfMotion
        In plain symbols ``q1..qn``, ``qdot1..``, ``qddot1..``, torques ``tau1..``, or in
        ``names``.

    Raises
    ------
    ModelError
        Free, spherical and planar joints (their velocities are body twists, not rates of
        coordinates).
    """
    if parameters not in ("numeric", "symbolic"):
        raise ValueError(f"parameters must be 'numeric' or 'symbolic', got {parameters!r}")
    _check_model(model)
    P = _Parameters(model, parameters == "symbolic" or names is not None)
    q, qd, qdd, tau = _symbols(model.nv)
    M, V = _mass_matrix_and_potential(model, P, q)
    M, g, V = _gravity_form(model, M, V, q, simplify)
    b = _friction(model, qd, friction)
    M, g, V, values = _textbook_parameters(P, M, g, V, model.nb)
    if names is not None:
        ren = _renaming(names, model.nv, [*q, *qd, *qdd, *tau, *values])
        q, qd, qdd, tau = ([ren.get(x, x) for x in xs] for xs in (q, qd, qdd, tau))
        M, g, V, b = (x.xreplace(ren) for x in (M, g, V, b))
        values = {ren.get(k, k): v for k, v in values.items()}
    return EquationsOfMotion(
        q,
        qd,
        qdd,
        tau,
        M,
        g,
        b,
        V=V,
        simplify=simplify,
        parameters=values,
        name=model.name,
    )
