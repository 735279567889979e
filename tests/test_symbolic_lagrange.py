"""robodyn.symbolic.lagrange / constraints: API, conventions, identities and errors."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sympy.physics.vector import dynamicsymbols

from robodyn.symbolic.constraints import constrain, frobenius_conditions, is_holonomic
from robodyn.symbolic.lagrange import (
    EquationsOfMotion,
    christoffel_symbols,
    fast_simplify,
    lagrange,
    trig_reduce,
)

q1, q2, qd1, qd2 = sp.symbols("q1 q2 qdot1 qdot2", real=True)
m1, m2, I1, I2, r1, ag = sp.symbols("m1 m2 I1 I2 r1 a_g", positive=True)


def rp_lagrangian(a=q1, b=q2, ad=qd1, bd=qd2):
    # the RP arm's Lagrangian (course notes 001, example 10.1.2)
    K = ((I1 + I2 + m1 * r1**2 + m2 * b**2) * ad**2 + m2 * bd**2) / 2
    return K - ag * sp.sin(a) * (m1 * r1 + m2 * b)


def test_dynamicsymbols_match_plain_symbols():
    a, b = dynamicsymbols("a b")
    t = sp.Symbol("t")
    e_dyn = lagrange(rp_lagrangian(a, b, a.diff(t), b.diff(t)), [a, b])
    e = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2])
    to_plain = {
        a.diff(t, 2): e.qdd[0],
        b.diff(t, 2): e.qdd[1],
        a.diff(t): qd1,
        b.diff(t): qd2,
        a: q1,
        b: q2,
    }
    for attr in ("M", "C", "g", "lhs", "centrifugal", "coriolis"):
        got = getattr(e_dyn, attr).xreplace(to_plain)
        assert sp.simplify(got - getattr(e, attr)) == sp.zeros(*got.shape), attr
    assert e_dyn.qd == sp.Matrix([a.diff(t), b.diff(t)])
    assert r"\ddot{a}" in e_dyn.latex("equations")


def test_dM_dt_minus_2C_skew_at_random_numbers():
    e = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2])
    Mdot = sp.diff(e.M, q1) * qd1 + sp.diff(e.M, q2) * qd2
    N = sp.lambdify([q1, q2, qd1, qd2, m1, m2, I1, I2, r1], Mdot - 2 * e.C)
    rng = np.random.default_rng(0)
    for _ in range(10):
        x = np.asarray(N(*rng.normal(size=9)), dtype=float)
        np.testing.assert_allclose(x + x.T, 0, atol=1e-12)
        assert np.abs(x).max() > 1e-3  # not trivially zero


def test_kinetic_energy_is_half_qd_M_qd_and_h():
    e = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2])
    qd = sp.Matrix([qd1, qd2])
    K = ((I1 + I2 + m1 * r1**2 + m2 * q2**2) * qd1**2 + m2 * qd2**2) / 2
    assert sp.simplify(e.K - K) == 0
    assert sp.simplify(e.V - ag * sp.sin(q1) * (m1 * r1 + m2 * q2)) == 0
    assert sp.simplify(e.h - e.C * qd - e.g) == sp.zeros(2, 1)
    assert sp.simplify(e.velocity_products - e.centrifugal - e.coriolis) == sp.zeros(2, 1)


def test_forward_dynamics_solves_the_equations():
    e = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2])
    vals = {q1: 0.4, q2: 0.7, qd1: -0.3, qd2: 1.1, m1: 2, m2: 1.5, I1: 0.1, I2: 0.2, r1: 0.3}
    vals |= {ag: 9.81, e.u[0]: 0.5, e.u[1]: -2.0}
    qdd = np.array(e.forward_dynamics().subs(vals), dtype=float).ravel()
    M = np.array(e.M.subs(vals), dtype=float)
    h = np.array(e.h.subs(vals), dtype=float).ravel()
    np.testing.assert_allclose(M @ qdd + h, [0.5, -2.0], atol=1e-12)


def test_dissipation_vector_and_rayleigh():
    c1, c2 = sp.symbols("c1 c2", positive=True)
    e1 = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2], dissipation=[c1 * qd1, c2 * qd2])
    R = (c1 * qd1**2 + c2 * qd2**2) / 2  # Rayleigh: b = dR/dqd
    e2 = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2], dissipation=R)
    assert e1.b == sp.Matrix([c1 * qd1, c2 * qd2]) == e2.b
    e0 = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2])
    assert sp.simplify(e1.lhs - e0.lhs - sp.Matrix([c1 * qd1, c2 * qd2])) == sp.zeros(2, 1)


def test_subs_simplify_latex_repr():
    e = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2])
    assert e.C.shape == (2, 2)  # computed parts are substituted too
    n = e.subs({m2: 2, ag: 10})
    assert n.M[0, 0] == I1 + I2 + m1 * r1**2 + 2 * q2**2
    assert n.C[1, 0] == -2 * q2 * qd1
    assert n.g[1] == 20 * sp.sin(q1)
    assert sp.simplify(e.simplify().M - e.M) == sp.zeros(2, 2)
    s = e.latex()
    assert s.startswith("\\begin{aligned}") and "M(q)" in s and "\\cos" in s
    assert e._repr_latex_().startswith("$$")
    assert "u_{1}" in e.latex("equations")
    assert "n=2" in repr(e)
    with pytest.raises(ValueError, match="coordinate"):
        e.subs(q1, 0)
    with pytest.raises(ValueError, match="form"):
        e.latex("bogus")


def test_christoffel_symmetry_and_definition():
    # a generic symmetric 2x2 M(q): Gamma^i_jk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_kj/dq_i)
    a = sp.Function("a")(q1, q2)
    b = sp.Function("b")(q1, q2)
    c = sp.Function("c")(q1, q2)
    M = sp.Matrix([[a, b], [b, c]])
    G = christoffel_symbols(M, [q1, q2], simplify=False)
    q = [q1, q2]
    for i in range(2):
        for j in range(2):
            for k in range(2):
                want = (
                    sp.diff(M[i, j], q[k]) + sp.diff(M[i, k], q[j]) - sp.diff(M[k, j], q[i])
                ) / 2
                assert sp.simplify(G[i, j, k] - want) == 0
                assert G[i, j, k] == G[i, k, j]


def test_errors():
    with pytest.raises(ValueError, match="qd must be given"):
        lagrange(rp_lagrangian(), [q1, q2])
    with pytest.raises(ValueError, match="either L or K"):
        lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2], K=qd1**2)
    with pytest.raises(ValueError, match="quadratic"):
        lagrange(K=qd1**4, q=[q1], qd=[qd1])
    with pytest.raises(ValueError, match="linear in qd"):
        lagrange(qd1**2 / 2 + q2 * qd1, [q1, q2], [qd1, qd2])  # gyroscopic term
    with pytest.raises(ValueError, match="u must have 2"):
        lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2], u=[1, 2, 3])
    with pytest.raises(ValueError, match="qd must have 2"):
        lagrange(rp_lagrangian(), [q1, q2], [qd1])
    with pytest.raises(ValueError, match="q .* required"):
        lagrange(rp_lagrangian())
    a = dynamicsymbols("a")
    with pytest.raises(ValueError, match="all plain symbols or all dynamicsymbols"):
        lagrange(K=qd1**2, q=[a, q1], qd=[qd1, qd2])


def test_trig_reduce_is_canonical():
    s1, c1, s2, c2 = sp.sin(q1), sp.cos(q1), sp.sin(q2), sp.cos(q2)
    assert trig_reduce(m1 * s1**2 + m1 * c1**2) == m1
    assert trig_reduce(sp.sin(q1 + q2) - s1 * c2 - c1 * s2) == 0
    assert trig_reduce(sp.cos(2 * q1) - (c1**2 - s1**2)) == 0
    assert trig_reduce((s1**2 + c1**2) ** 3 * s2**4 - (1 - c2**2) ** 2) == 0
    assert trig_reduce(m1 / (s1**2 + c1**2)) == m1
    # not polynomial in sin/cos: left expanded, still correct
    x = sp.sqrt(q1) * s1**2
    assert sp.simplify(trig_reduce(x) - x) == 0
    # fast_simplify folds sums of angles
    assert fast_simplify(m2 * (c1 * c2 - s1 * s2)) == m2 * sp.cos(q1 + q2)


def test_constraint_api_and_errors():
    q = sp.symbols("x y th", real=True)
    qd = sp.symbols("xd yd thd", real=True)
    m, I = sp.symbols("m I", positive=True)
    e = lagrange(K=m * (qd[0] ** 2 + qd[1] ** 2) / 2 + I * qd[2] ** 2 / 2, q=q, qd=qd)
    con = constrain(e, [sp.sin(q[2]), -sp.cos(q[2]), 0])  # a single row given flat
    assert con.k == 1 and con.A.shape == (1, 3)
    # P and P_u are projections: P^2 = P, and (P qd)^T M (1 - P) qd = 0
    P = con.P
    assert sp.simplify(P * P - P) == sp.zeros(3, 3)
    v = sp.Matrix(sp.symbols("v1:4"))
    assert sp.simplify(((P * v).T * e.M * (sp.eye(3) - P) * v)[0]) == 0
    assert "lambda_{1}" in con.latex()
    with pytest.raises(ValueError, match="shape"):
        constrain(e, [[1, 0]])
    with pytest.raises(ValueError, match="q only"):
        constrain(e, [[qd[0], 0, 0]])
    with pytest.raises(ValueError, match="EquationsOfMotion"):
        constrain("e", [[1, 0, 0]])


def test_integrability_in_four_dimensions():
    x = sp.symbols("x1:5", real=True)
    assert len(frobenius_conditions(list(x), x)) == 4  # one per triple
    # a non-exact multiple of an exact form: exp(x1) * d(x1^2 + x2 x3 + x4)
    f = x[0] ** 2 + x[1] * x[2] + x[3]
    a = [sp.exp(x[0]) * sp.diff(f, v) for v in x]
    assert is_holonomic(a, x)
    # the contact form -x2 dx1 + x1 dx2 + dx3 (Heisenberg): nonholonomic
    assert not is_holonomic([-x[1], x[0], 1, 0], x)


def test_equations_of_motion_type():
    e = lagrange(rp_lagrangian(), [q1, q2], [qd1, qd2])
    assert isinstance(e, EquationsOfMotion)
    assert e.n == 2 and e.q == sp.Matrix([q1, q2]) and e.qd == sp.Matrix([qd1, qd2])
    assert e.qdd == sp.Matrix(sp.symbols("qddot1 qddot2", real=True))
    assert len(e.equations) == 2 and isinstance(e.equations[0], sp.Eq)
