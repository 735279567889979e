"""Closed forms of the course notes reproduced by robodyn.symbolic.

Every expected expression below is typed from the course texts (000: 2R arm with point
masses; 001: planar body 10.2-10.4, RP arm 10.5-10.6, Christoffel symbols 10.9 and example
10.2.1, thruster map 10.12, knife-edge 10.21-10.28, Euler angles 10.47-10.49, problems 1,
4 (a PR arm), 8 (the parallel-axis theorem), 11 and 12 (with the form 10.20), and the
Coriolis-matrix index order; 003: 2R arm with link inertias). Comparisons are symbolic
(the simplified difference is zero) and numeric at random values.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.symbolic.constraints import constrain, is_holonomic
from robodyn.symbolic.lagrange import generalized_forces, lagrange


def assert_same(a, b, symbols=None):
    """Symbolically equal, and equal at random numbers (guards against simplify gaps)."""
    a, b = (
        sp.Matrix(x) if isinstance(x, (list, tuple, sp.MatrixBase)) else sp.Matrix([x])
        for x in (a, b)
    )
    assert a.shape == b.shape
    diff = (a - b).applyfunc(lambda x: sp.simplify(sp.expand_trig(x)))
    assert diff == sp.zeros(*a.shape), diff
    free = sorted((a.free_symbols | b.free_symbols), key=str)
    f = sp.lambdify(free, a - b, "numpy")
    rng = np.random.default_rng(6)
    for _ in range(5):
        vals = rng.uniform(0.2, 1.7, len(free))
        assert np.max(np.abs(np.asarray(f(*vals), dtype=float))) < 1e-12


def trig_zero(x, angles) -> bool:
    """x == 0 using only sin^2 = 1 - cos^2 for the given angles (exact and fast)."""

    def rule(a):
        def match(y):
            return y.is_Pow and y.base == sp.sin(a) and y.exp.is_Integer and y.exp >= 2

        def rewrite(y):
            return sp.sin(a) ** (y.exp % 2) * (1 - sp.cos(a) ** 2) ** (y.exp // 2)

        return match, rewrite

    e = sp.expand(x)
    for a in angles:
        e = sp.expand(e.replace(*rule(a)))
    return e == 0


def skew_check(eom):
    """dM/dt - 2C is skew-symmetric (identically)."""
    Mdot = sp.zeros(eom.n, eom.n)
    for k in range(eom.n):
        Mdot += sp.diff(eom.M, eom.q[k]) * eom.qd[k]
    N = Mdot - 2 * eom.C
    assert (N + N.T).applyfunc(sp.simplify) == sp.zeros(eom.n, eom.n)


# ------------------------------------------------------------------------- 2R, notes 000
def two_r_point_masses():
    t1, t2, td1, td2 = sp.symbols("theta1 theta2 thetadot1 thetadot2", real=True)
    m1, m2, L1, L2, g = sp.symbols("m1 m2 L1 L2 g", positive=True)
    # positions of the point masses (notes 000), velocities by differentiation
    x1 = sp.Matrix([L1 * sp.cos(t1), L1 * sp.sin(t1)])
    x2 = x1 + sp.Matrix([L2 * sp.cos(t1 + t2), L2 * sp.sin(t1 + t2)])
    q, qd = [t1, t2], [td1, td2]
    v1 = x1.jacobian(q) * sp.Matrix(qd)
    v2 = x2.jacobian(q) * sp.Matrix(qd)
    K = m1 * v1.dot(v1) / 2 + m2 * v2.dot(v2) / 2
    V = m1 * g * x1[1] + m2 * g * x2[1]
    return lagrange(K=K, V=V, q=q, qd=qd), (t1, t2, td1, td2, m1, m2, L1, L2, g)


def test_2r_point_masses_notes_000():
    eom, (t1, t2, td1, td2, m1, m2, L1, L2, g) = two_r_point_masses()
    c2 = sp.cos(t2)
    M = sp.Matrix(
        [
            [m1 * L1**2 + m2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2), m2 * (L2**2 + L1 * L2 * c2)],
            [m2 * (L2**2 + L1 * L2 * c2), m2 * L2**2],
        ]
    )
    c = sp.Matrix(
        [
            -m2 * L1 * L2 * sp.sin(t2) * (2 * td1 * td2 + td2**2),
            m2 * L1 * L2 * sp.sin(t2) * td1**2,
        ]
    )
    gv = sp.Matrix(
        [
            (m1 * L1 + m2 * L1) * g * sp.cos(t1) + m2 * L2 * g * sp.cos(t1 + t2),
            m2 * L2 * g * sp.cos(t1 + t2),
        ]
    )
    assert_same(eom.M, M)
    assert_same(eom.velocity_products, c)
    assert_same(eom.C * eom.qd, c)
    assert_same(eom.g, gv)
    assert_same(eom.h, c + gv)
    # tau_1, tau_2 as written in the notes
    a1, a2 = eom.qdd
    tau = M * sp.Matrix([a1, a2]) + c + gv
    assert_same(eom.lhs, tau)
    assert [eq.rhs for eq in eom.equations] == list(eom.u)
    # centrifugal (j == k) and Coriolis (j != k) parts of c
    h = m2 * L1 * L2 * sp.sin(t2)
    assert_same(eom.centrifugal, sp.Matrix([-h * td2**2, h * td1**2]))
    assert_same(eom.coriolis, sp.Matrix([-2 * h * td1 * td2, 0]))
    skew_check(eom)


# ------------------------------------------------------------------------- 2R, notes 003
def test_2r_link_inertias_notes_003():
    t1, t2, td1, td2 = sp.symbols("theta1 theta2 thetadot1 thetadot2", real=True)
    m1, m2, l1, lc1, lc2, I1, I2, g = sp.symbols("m1 m2 l1 lc1 lc2 I1 I2 g", positive=True)
    q, qd = [t1, t2], [td1, td2]
    xc1 = sp.Matrix([lc1 * sp.cos(t1), lc1 * sp.sin(t1)])
    xc2 = sp.Matrix([l1 * sp.cos(t1), l1 * sp.sin(t1)]) + lc2 * sp.Matrix(
        [sp.cos(t1 + t2), sp.sin(t1 + t2)]
    )
    v1 = xc1.jacobian(q) * sp.Matrix(qd)
    v2 = xc2.jacobian(q) * sp.Matrix(qd)
    K = (m1 * v1.dot(v1) + I1 * td1**2 + m2 * v2.dot(v2) + I2 * (td1 + td2) ** 2) / 2
    V = g * (m1 * xc1[1] + m2 * xc2[1])
    eom = lagrange(K=K, V=V, q=q, qd=qd)
    c2 = sp.cos(t2)
    M = sp.Matrix(
        [
            [
                m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + I1 + I2,
                m2 * (lc2**2 + l1 * lc2 * c2) + I2,
            ],
            [m2 * (lc2**2 + l1 * lc2 * c2) + I2, m2 * lc2**2 + I2],
        ]
    )
    h = m2 * l1 * lc2 * sp.sin(t2)
    C = sp.Matrix([[-h * td2, -h * (td1 + td2)], [h * td1, 0]])
    gv = sp.Matrix(
        [
            (m1 * lc1 + m2 * l1) * g * sp.cos(t1) + m2 * lc2 * g * sp.cos(t1 + t2),
            m2 * lc2 * g * sp.cos(t1 + t2),
        ]
    )
    assert_same(eom.M, M)
    assert_same(eom.C, C)  # the same Coriolis matrix, entry by entry
    assert_same(eom.g, gv)
    skew_check(eom)
    # the lesson's numbers: m1=5, m2=3, l1=0.5, lc1=0.25, lc2=0.2, I1=0.1, I2=0.05
    num = {m1: 5, m2: 3, l1: sp.Rational(1, 2), lc1: sp.Rational(1, 4), lc2: sp.Rational(1, 5)}
    num |= {I1: sp.Rational(1, 10), I2: sp.Rational(1, 20), g: sp.Rational(981, 100)}
    e = eom.subs(num)
    Mq = np.array(e.M.subs({t1: 0.3, t2: 0.7}), dtype=float)
    # M11 = 5*0.0625 + 3*(0.25 + 0.04 + 0.2 cos 0.7) + 0.15
    m11 = 5 * 0.0625 + 3 * (0.25 + 0.04 + 0.2 * np.cos(0.7)) + 0.15
    m12 = 3 * (0.04 + 0.1 * np.cos(0.7)) + 0.05
    np.testing.assert_allclose(Mq, [[m11, m12], [m12, 3 * 0.04 + 0.05]], atol=1e-14)


# ------------------------------------------------------------------------- planar body
def test_planar_body_10_2_to_10_4():
    q = sp.symbols("q1:4", real=True)
    qd = sp.symbols("qdot1:4", real=True)
    m, I, ag = sp.symbols("m I a_g", positive=True)
    L = m * (qd[0] ** 2 + qd[1] ** 2) / 2 + I * qd[2] ** 2 / 2 - m * ag * q[1]
    eom = lagrange(L, q, qd)
    a = eom.qdd
    # (10.2) u1 = m qdd1, (10.4) u3 = I qdd3. For (10.3) the text's own Lagrangian gives
    # dL/dq2 = -m a_g, hence u2 = m qdd2 + m a_g (the printed "- m a_g" drops that sign:
    # holding the body still against gravity along -q2 takes u2 = +m a_g).
    assert_same(eom.lhs, [m * a[0], m * a[1] + m * ag, I * a[2]])
    assert eom.M == sp.diag(m, m, I)  # the constant inertia matrix of section 10.2
    assert all(x == 0 for x in sp.flatten(eom.christoffel.tolist()))
    assert eom.V == m * ag * q[1]


# ------------------------------------------------------------------------- RP arm
def rp_arm():
    q1, q2, qd1, qd2 = sp.symbols("q1 q2 qdot1 qdot2", real=True)
    m1, m2, I1, I2, r1, ag = sp.symbols("m1 m2 I1 I2 r1 a_g", positive=True)
    # K1, V1, K2, V2 as built in example 10.1.2
    K1 = m1 * r1**2 * qd1**2 / 2 + I1 * qd1**2 / 2
    V1 = m1 * ag * r1 * sp.sin(q1)
    K2 = m2 * (qd2**2 + (q2 * qd1) ** 2) / 2 + I2 * qd1**2 / 2
    V2 = m2 * ag * q2 * sp.sin(q1)
    eom = lagrange(K1 + K2 - V1 - V2, [q1, q2], [qd1, qd2])
    return eom, (q1, q2, qd1, qd2, m1, m2, I1, I2, r1, ag)


def test_rp_arm_10_5_10_6_and_standard_form():
    eom, (q1, q2, qd1, qd2, m1, m2, I1, I2, r1, ag) = rp_arm()
    a1, a2 = eom.qdd
    u1 = (I1 + I2 + m1 * r1**2 + m2 * q2**2) * a1 + 2 * m2 * q2 * qd1 * qd2
    u1 += ag * (m1 * r1 + m2 * q2) * sp.cos(q1)
    u2 = m2 * a2 - m2 * q2 * qd1**2 + ag * m2 * sp.sin(q1)
    assert_same(eom.lhs, [u1, u2])
    assert_same(eom.M, [[I1 + I2 + m1 * r1**2 + m2 * q2**2, 0], [0, m2]])
    assert_same(eom.velocity_products, [2 * m2 * q2 * qd1 * qd2, -m2 * q2 * qd1**2])
    assert_same(eom.g, [ag * (m1 * r1 + m2 * q2) * sp.cos(q1), ag * m2 * sp.sin(q1)])
    # centrifugal -m2 q2 qd1^2 at the prismatic joint, Coriolis 2 m2 q2 qd1 qd2 at joint 1
    assert_same(eom.centrifugal, [0, -m2 * q2 * qd1**2])
    assert_same(eom.coriolis, [2 * m2 * q2 * qd1 * qd2, 0])
    skew_check(eom)


def test_rp_arm_christoffel_example_10_2_1():
    eom, (q1, q2, qd1, qd2, m1, m2, *_) = rp_arm()
    G = eom.christoffel  # G[i][j][k] = Gamma^{i+1}_{j+1,k+1}
    expected = {(0, 0, 1): m2 * q2, (0, 1, 0): m2 * q2, (1, 0, 0): -m2 * q2}
    for i in range(2):
        for j in range(2):
            for k in range(2):
                assert sp.simplify(G[i][j][k] - expected.get((i, j, k), 0)) == 0, (i, j, k)
    # qd^T Gamma^i qd (10.10), with Gamma^1 = [[0, m2 q2], [m2 q2, 0]], Gamma^2 = [[-m2 q2, 0],
    # [0, 0]] as in the worked example
    qd = sp.Matrix([qd1, qd2])
    G1 = sp.Matrix([[0, m2 * q2], [m2 * q2, 0]])
    G2 = sp.Matrix([[-m2 * q2, 0], [0, 0]])
    assert_same(eom.velocity_products, [(qd.T * G1 * qd)[0], (qd.T * G2 * qd)[0]])
    assert G[0].tomatrix() == G1 and G[1].tomatrix() == G2
    assert "\\Gamma^{1}_{12}" in eom.latex("christoffel")


def test_thruster_actuator_map_10_12():
    q1, q2 = sp.symbols("q1 q2", real=True)
    f1, f2 = sp.symbols("f1 f2", real=True)
    x = sp.Matrix([q2 * sp.cos(q1), q2 * sp.sin(q1)])  # CoM of link 2
    T = sp.Matrix([[-q2 * sp.sin(q1), q2 * sp.cos(q1)], [sp.cos(q1), sp.sin(q1)]])
    u = generalized_forces(x, [f1, f2], q=[q1, q2])
    assert_same(u, T * sp.Matrix([f1, f2]))
    u_J = generalized_forces(x.jacobian([q1, q2]), [f1, f2])
    assert_same(u_J, T * sp.Matrix([f1, f2]))
    # virtual actuators u = T f drive the RP arm's equations
    eom, _ = rp_arm()
    e2 = lagrange(eom.L, eom.q, eom.qd, u=u)
    assert_same(sp.Matrix([eq.rhs for eq in e2.equations]), T * sp.Matrix([f1, f2]))


# ------------------------------------------------------------------------- polar point mass
def test_point_mass_polar_problem_1():
    r, th, rd, thd = sp.symbols("q1 q2 qdot1 qdot2", real=True)
    m = sp.Symbol("m", positive=True)
    x = sp.Matrix([r * sp.cos(th), r * sp.sin(th)])
    v = x.jacobian([r, th]) * sp.Matrix([rd, thd])
    eom = lagrange(K=m * v.dot(v) / 2, q=[r, th], qd=[rd, thd])
    assert_same(eom.M, sp.diag(m, m * r**2))
    G = eom.christoffel
    expected = {(0, 1, 1): -m * r, (1, 0, 1): m * r, (1, 1, 0): m * r}  # Gamma^1_22, ^2_12, ^2_21
    for i in range(2):
        for j in range(2):
            for k in range(2):
                assert sp.simplify(G[i, j, k] - expected.get((i, j, k), 0)) == 0
    # (10.10) equals the Lagrangian equations: m (rdd - r thd^2), m r^2 thdd + 2 m r rd thd
    a = eom.qdd
    assert_same(eom.lhs, [m * (a[0] - r * thd**2), m * r**2 * a[1] + 2 * m * r * rd * thd])


# ------------------------------------------------------------------------- Euler angles
def test_euler_angle_angular_velocity_10_47_to_10_49():
    t = sp.Symbol("t")
    q1, q2, q3 = (sp.Function(n)(t) for n in ("q1", "q2", "q3"))

    def Rz(a):
        return sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])

    def Rx(a):
        return sp.Matrix([[1, 0, 0], [0, sp.cos(a), -sp.sin(a)], [0, sp.sin(a), sp.cos(a)]])

    # q1 about z_s (to the line of nodes), q3 tilt about the line of nodes, q2 about body z
    R = Rz(q1) * Rx(q3) * Rz(q2)
    angles = (q1, q2, q3)
    W = R.T * R.diff(t)  # body angular velocity [omega_b] (10.43)
    assert all(trig_zero(x, angles) for x in W + W.T)
    omega = sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])
    d1, d2, d3 = (x.diff(t) for x in (q1, q2, q3))
    expected = sp.Matrix(
        [
            d3 * sp.cos(q2) + d1 * sp.sin(q2) * sp.sin(q3),  # (10.47)
            -d3 * sp.sin(q2) + d1 * sp.cos(q2) * sp.sin(q3),  # (10.48)
            d2 + d1 * sp.cos(q3),  # (10.49)
        ]
    )
    assert all(trig_zero(x, angles) for x in omega - expected)
    # K = 1/2 omega^T I omega in dynamicsymbols: M = J^T I J with J = d omega / d qd
    Ixx, Iyy, Izz = sp.symbols("I_xx I_yy I_zz", positive=True)
    Ib = sp.diag(Ixx, Iyy, Izz)
    eom = lagrange(K=(expected.T * Ib * expected)[0] / 2, q=[q1, q2, q3])
    J = expected.jacobian([d1, d2, d3])
    assert all(trig_zero(x, angles) for x in eom.M - J.T * Ib * J)
    assert eom.qd == sp.Matrix([d1, d2, d3])
    assert eom.qdd == sp.Matrix([x.diff(t, 2) for x in (q1, q2, q3)])
    # a symmetric top (Ixx = Iyy) spinning about its axis: qd = (0, w, 0) keeps qdd = 0
    top = eom.subs({Iyy: Ixx})
    state = {q1: 0.3, q2: 0.2, q3: 0.9, d1: 0, d2: 2.0, d3: 0}
    h = np.array(top.h.subs(state).subs(Ixx, 1.3).subs(Izz, 0.7), dtype=float)
    np.testing.assert_allclose(h.ravel(), 0, atol=1e-14)


# ------------------------------------------------------------------------- knife-edge
def knife_edge():
    q = sp.symbols("q1:4", real=True)
    qd = sp.symbols("qdot1:4", real=True)
    m, I = sp.symbols("m I", positive=True)
    eom = lagrange(m * (qd[0] ** 2 + qd[1] ** 2) / 2 + I * qd[2] ** 2 / 2, q, qd)
    return eom, q, qd, m, I


def test_knife_edge_10_21_to_10_28():
    eom, q, qd, m, I = knife_edge()
    s, c = sp.sin(q[2]), sp.cos(q[2])
    con = constrain(eom, [[s, -c, 0]])
    u1, u2, u3 = eom.u
    a = eom.qdd
    # (10.21): the differentiated constraint
    assert_same(
        [con.equations[3].lhs],
        [a[0] * s + qd[0] * qd[2] * c - a[1] * c + qd[1] * qd[2] * s],
    )
    # (10.22)-(10.24) with lambda1
    lam = con.lam[0]
    for eq, rhs in zip(con.equations[:3], [u1 + lam * s, u2 - lam * c, u3]):
        assert sp.simplify(eq.rhs - rhs) == 0
    # (10.25)-(10.27)
    qdd1 = (u1 * c**2 + (u2 - m * qd[0] * qd[2]) * c * s - m * qd[1] * qd[2] * s**2) / m
    qdd2 = (u2 * s**2 + (u1 + m * qd[1] * qd[2]) * c * s + m * qd[0] * qd[2] * c**2) / m
    assert_same(con.qdd, [qdd1, qdd2, u3 / I])
    # (10.28)
    lam1 = (u2 - m * qd[0] * qd[2]) * c - (u1 + m * qd[1] * qd[2]) * s
    assert_same(con.multipliers, [lam1])
    # the projection P of the example (via 10.19), rank n - k = 2, and P = P_u^T
    P = sp.Matrix([[c**2, s * c, 0], [s * c, s**2, 0], [0, 0, 1]])
    assert_same(con.P, P)
    assert_same(con.P_u, P.T)
    Pn = np.array(con.P.subs(q[2], 0.4), dtype=float)
    assert np.linalg.matrix_rank(Pn) == 2
    # projected dynamics: qdd1 cos q3 + qdd2 sin q3 = (u1 cos q3 + u2 sin q3) / m
    proj = con.projected_equations()
    lhs = sp.Matrix([e.lhs for e in proj])
    rhs = sp.Matrix([e.rhs for e in proj])
    assert_same(lhs[0] / c, a[0] * c + a[1] * s)
    assert_same(rhs[0] / c, (u1 * c + u2 * s) / m)
    assert_same([lhs[2], rhs[2]], [a[2], u3 / I])
    # the knife-edge constraint is nonholonomic
    assert not is_holonomic([s, -c, 0], q)


def test_point_on_circle_is_holonomic():
    x, y = sp.symbols("x y", real=True)
    assert is_holonomic([x, y], [x, y])  # x xd + y yd = 0 integrates to x^2 + y^2 = R


# ------------------------------------------------------------------------- point on a sphere
def test_point_on_sphere_problems_11_12():
    q = sp.symbols("q1:4", real=True)
    qd = sp.symbols("qdot1:4", real=True)
    m = sp.Symbol("m", positive=True)
    eom = lagrange(K=m * sum(v**2 for v in qd) / 2, q=q, qd=qd)  # u = m qdd
    con = constrain(eom, [list(q)])  # d/dt (q.q / 2) = q . qd = 0
    assert is_holonomic(list(q), q)
    u = sp.Matrix(eom.u)
    Q, Qd = sp.Matrix(q), sp.Matrix(qd)
    # lambda = (A M^-1 A^T)^-1 (-Adot qd - A M^-1 u) = -(m qd.qd + q.u) / (q.q)
    lam = -(m * Qd.dot(Qd) + Q.dot(u)) / Q.dot(Q)
    assert_same(con.multipliers, [lam])
    # on the unit sphere: qdd = (u - q (q.u)) / m - q |qd|^2 (tangent force, centripetal)
    qdd_sphere = (u - Q * Q.dot(u)) / m - Q * Qd.dot(Qd)
    pt = np.array([0.3, -0.5, 0.0])
    pt[2] = np.sqrt(1 - pt[0] ** 2 - pt[1] ** 2)
    vel = np.cross(pt, [0.2, 0.7, -0.4])  # tangent
    uu = [0.9, -1.1, 0.4]
    vals = dict(zip(q, pt)) | dict(zip(qd, vel)) | dict(zip(eom.u, uu)) | {m: 1.7}
    got = np.array(con.qdd.subs(vals), dtype=float).ravel()
    want = np.array(qdd_sphere.subs(vals), dtype=float).ravel()
    np.testing.assert_allclose(got, want, atol=1e-12)
    # the motion stays on the sphere: d2/dt2 (q.q) = 2 (q.qdd + qd.qd) = 0
    assert abs(pt @ got + vel @ vel) < 1e-12
    # P = 1 - q q^T / (q.q) (problem 12), and P qdd = P M^-1 u (10.20)
    assert_same(con.P, sp.eye(3) - Q * Q.T / Q.dot(Q))
    P = np.array(con.P.subs(vals), dtype=float)
    np.testing.assert_allclose(P @ got, P @ np.asarray(uu) / 1.7, atol=1e-12)  # (10.20)
    # and the numeric projections of robodyn.constrained agree: P = 1 - q q^T on |q| = 1
    from robodyn.constrained import constraint_projections

    P_u, P_num = constraint_projections(1.7 * np.eye(3), pt)
    np.testing.assert_allclose(P_num, np.eye(3) - np.outer(pt, pt), atol=1e-12)
    np.testing.assert_allclose(P_u, P_num.T, atol=1e-12)  # P = P_u^T


def test_sphere_latitude_longitude_christoffel():
    lat, lon, latd, lond = sp.symbols("q1 q2 qdot1 qdot2", real=True)
    m = sp.Symbol("m", positive=True)
    x = sp.Matrix([sp.cos(lat) * sp.cos(lon), sp.cos(lat) * sp.sin(lon), sp.sin(lat)])
    v = x.jacobian([lat, lon]) * sp.Matrix([latd, lond])
    eom = lagrange(K=m * v.dot(v) / 2, q=[lat, lon], qd=[latd, lond])
    assert_same(eom.M, sp.diag(m, m * sp.cos(lat) ** 2))
    G = eom.christoffel
    # Gamma^1_22 = -1/2 dM22/dq1 = m sin cos; Gamma^2_12 = Gamma^2_21 = 1/2 dM22/dq1
    sc = m * sp.sin(lat) * sp.cos(lat)
    expected = {(0, 1, 1): sc, (1, 0, 1): -sc, (1, 1, 0): -sc}
    for i in range(2):
        for j in range(2):
            for k in range(2):
                assert sp.simplify(G[i, j, k] - expected.get((i, j, k), 0)) == 0
    skew_check(eom)


# ------------------------------------------------------------------------- problem 4
def test_pr_arm_problem_4():
    """A PR arm of our own drawing: a slider of mass m1 moving along x (q1), carrying a
    revolute joint (q2, from the x axis) whose link has mass m2, inertia I2 about its
    centre of mass, and its centre of mass at r2; gravity a_g along -y. By hand:
    p2 = (q1 + r2 c2, r2 s2), so
      M = [[m1 + m2, -m2 r2 s2], [-m2 r2 s2, I2 + m2 r2^2]],
      c = [-m2 r2 c2 qd2^2, 0],  g = [0, m2 a_g r2 c2]."""
    import robodyn as rd
    from robodyn.inertia import RigidInertia

    q1, q2, qd1, qd2 = sp.symbols("q1 q2 qdot1 qdot2", real=True)
    m1, m2, I2, r2, ag = sp.symbols("m1 m2 I2 r2 a_g", positive=True)
    p2 = sp.Matrix([q1 + r2 * sp.cos(q2), r2 * sp.sin(q2)])
    v2 = p2.jacobian([q1, q2]) * sp.Matrix([qd1, qd2])
    K = m1 * qd1**2 / 2 + m2 * v2.dot(v2) / 2 + I2 * qd2**2 / 2
    eom = lagrange(K=K, V=m2 * ag * p2[1], q=[q1, q2], qd=[qd1, qd2])
    M = sp.Matrix([[m1 + m2, -m2 * r2 * sp.sin(q2)], [-m2 * r2 * sp.sin(q2), I2 + m2 * r2**2]])
    assert_same(eom.M, M)
    assert_same(eom.velocity_products, [-m2 * r2 * sp.cos(q2) * qd2**2, 0])
    assert_same(eom.g, [0, m2 * ag * r2 * sp.cos(q2)])
    skew_check(eom)
    # and with numbers, robodyn's algorithms on the same arm
    vals = {m1: 2.0, m2: 1.5, I2: 0.08, r2: 0.35, ag: 9.81}
    arm = (
        rd.ModelBuilder(name="pr_arm", gravity=(0.0, -9.81, 0.0))
        .add_body("slider", "world", joint_type="prismatic", axis=(1, 0, 0),
                  inertia=RigidInertia(2.0, np.zeros(3), np.diag([0.01, 0.01, 0.01])))
        .add_body("link", "slider", axis=(0, 0, 1),
                  inertia=RigidInertia(1.5, [0.35, 0.0, 0.0], np.diag([0.02, 0.06, 0.08])))
        .build()
    )  # fmt: skip
    rng = np.random.default_rng(4)
    for _ in range(3):
        q, qd, qdd = rng.normal(size=2), rng.normal(size=2), rng.normal(size=2)
        at = vals | {q1: q[0], q2: q[1], qd1: qd[0], qd2: qd[1]}
        tau = eom.M * sp.Matrix(qdd) + sp.Matrix(eom.velocity_products) + sp.Matrix(eom.g)
        want = np.array(tau.subs(at), dtype=float).ravel()
        np.testing.assert_allclose(rd.inverse_dynamics(arm, q, qd, qdd), want, atol=1e-12)


# ------------------------------------------------------------------------- problem 8
def test_parallel_axis_theorem_problem_8():
    """(10.46) I' = I + m (|r|^2 1 - r r^T) for the inertia about a point at -r from the
    centre of mass, proved for any set of point masses whose centre of mass is at the
    origin: the cross terms carry sum_k m_k x_k = 0."""
    n = 3
    ms = sp.symbols(f"m1:{n + 1}", positive=True)
    xs = [sp.Matrix(sp.symbols(f"x{k}_1:4", real=True)) for k in range(1, n + 1)]
    r = sp.Matrix(sp.symbols("r1:4", real=True))

    def inertia(points):
        return sum(
            (m * (x.dot(x) * sp.eye(3) - x * x.T) for m, x in zip(ms, points)), sp.zeros(3, 3)
        )

    # the last point placed so that the centre of mass is at the origin
    last = -sum((m * x for m, x in zip(ms[:-1], xs[:-1])), sp.zeros(3, 1)) / ms[-1]
    pts = [*xs[:-1], last]
    moved = inertia([x + r for x in pts])  # the same body seen from a point at -r
    m = sum(ms)
    assert_same(moved, inertia(pts) + m * (r.dot(r) * sp.eye(3) - r * r.T))
    # and RigidInertia.about, numerically: the inertia about a point p
    import robodyn as rd

    I_c = np.array([[0.3, 0.01, -0.02], [0.01, 0.2, 0.03], [-0.02, 0.03, 0.4]])
    body = rd.RigidInertia(2.5, [0.1, -0.2, 0.3], I_c)
    p = np.array([0.5, 0.4, -0.1])
    d = np.array([0.1, -0.2, 0.3]) - p  # the centre of mass seen from p
    want = I_c + 2.5 * (d @ d * np.eye(3) - np.outer(d, d))
    np.testing.assert_allclose(body.about(p), want, atol=1e-14)


# ------------------------------------------------------------------------- C_ij index order
def test_coriolis_matrix_index_order_of_the_notes():
    """001 writes C_ij = sum_k Gamma^k_ij qdot_k after defining Gamma^i_jk by (10.9) and
    c_i = sum_jk Gamma^i_jk qdot_j qdot_k (10.8). The form consistent with both is
    C_ij = sum_k Gamma^i_jk qdot_k: it gives C qdot = c and a skew dM/dt - 2C; the printed
    index order does neither (checked on the RP arm of example 10.1.2)."""
    eom, (q1, q2, qd1, qd2, m1, m2, I1, I2, r1, ag) = rp_arm()
    n = 2
    G = eom.christoffel  # G[i][j][k] = Gamma^i_jk of (10.9)
    qd = sp.Matrix(eom.qd)
    right = sp.Matrix(n, n, lambda i, j: sum(G[i][j][k] * qd[k] for k in range(n)))
    printed = sp.Matrix(n, n, lambda i, j: sum(G[k][i][j] * qd[k] for k in range(n)))
    assert_same(right * qd, eom.velocity_products)
    Mdot = sum((sp.diff(eom.M, eom.q[k]) * qd[k] for k in range(n)), sp.zeros(n, n))
    N = Mdot - 2 * right
    assert (N + N.T).applyfunc(sp.simplify) == sp.zeros(n, n)
    diff = (printed * qd - sp.Matrix(eom.velocity_products)).applyfunc(sp.simplify)
    assert diff != sp.zeros(n, 1)  # the printed order is not C of (10.7)


def test_derive_prints_the_lessons_and_notes_000s_symbols():
    """derive(..., names=...) gives M, C, g in the texts' own symbols, equal to their
    closed forms typed in (course notes 003 "Inertia Matrix", "Coriolis and Centrifugal
    Terms", "Gravity Terms"; course notes 000 "Equations of Motion")."""
    from robodyn import models

    def by_name(x):  # the printed names are what counts; robodyn's masses carry positive=True
        return x.xreplace({s: sp.Symbol(str(s), real=True) for s in x.free_symbols})

    t1, t2, d1, d2 = sp.symbols("theta1 theta2 thetadot1 thetadot2", real=True)
    m1, m2, l1, lc1, lc2, I1, I2, g = sp.symbols("m1 m2 l1 lc1 lc2 I1 I2 g", real=True)
    eom = rd.symbolic.derive(models.load("planar_2r"), names="lesson")
    M = sp.Matrix([
        [m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * sp.cos(t2)) + I1 + I2,
         m2 * (lc2**2 + l1 * lc2 * sp.cos(t2)) + I2],
        [m2 * (lc2**2 + l1 * lc2 * sp.cos(t2)) + I2, m2 * lc2**2 + I2],
    ])  # fmt: skip
    h = m2 * l1 * lc2 * sp.sin(t2)
    C = sp.Matrix([[-h * d2, -h * (d1 + d2)], [h * d1, 0]])
    gv = sp.Matrix([(m1 * lc1 + m2 * l1) * g * sp.cos(t1) + m2 * lc2 * g * sp.cos(t1 + t2),
                    m2 * lc2 * g * sp.cos(t1 + t2)])  # fmt: skip
    assert list(eom.q) == [t1, t2] and list(eom.qd) == [d1, d2]
    for ours, text in ((eom.M, M), (eom.C, C), (eom.g, gv)):
        assert sp.simplify(by_name(ours) - text) == sp.zeros(*text.shape)
    assert {str(s) for s in eom.parameters} == {"m1", "m2", "l1", "lc1", "lc2", "I1", "I2", "g"}
    # course notes 000: point masses at the tips, L1 and L2 for both link length and CoM
    L1, L2 = sp.symbols("L1 L2", real=True)
    eom = rd.symbolic.derive(models.load("point_mass_2r"), names="notes000")
    M0 = sp.Matrix([
        [m1 * L1**2 + m2 * (L1**2 + L2**2 + 2 * L1 * L2 * sp.cos(t2)),
         m2 * (L2**2 + L1 * L2 * sp.cos(t2))],
        [m2 * (L2**2 + L1 * L2 * sp.cos(t2)), m2 * L2**2],
    ])  # fmt: skip
    c0 = sp.Matrix([-m2 * L1 * L2 * sp.sin(t2) * (2 * d1 * d2 + d2**2),
                    m2 * L1 * L2 * sp.sin(t2) * d1**2])  # fmt: skip
    g0 = sp.Matrix([(m1 * L1 + m2 * L1) * g * sp.cos(t1) + m2 * L2 * g * sp.cos(t1 + t2),
                    m2 * L2 * g * sp.cos(t1 + t2)])  # fmt: skip
    for ours, text in ((eom.M, M0), (eom.velocity_products, c0), (eom.g, g0)):
        assert sp.simplify(by_name(ours) - text) == sp.zeros(*text.shape)
    assert {str(s) for s in eom.parameters} == {"m1", "m2", "L1", "L2", "g"}
    with pytest.raises(ValueError, match="names must be"):
        rd.symbolic.derive(models.load("planar_2r"), names="craig")
