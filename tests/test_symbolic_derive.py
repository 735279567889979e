"""robodyn.symbolic.derive: symbolic M, C, g of Models against the numeric RNEA/CRBA.

The numeric side is robodyn.dynamics (recursive Newton-Euler, composite rigid body); the
symbolic side is evaluated with plain ``sympy.lambdify`` (independent of codegen.py).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

from robodyn.dynamics import gravity_forces, inverse_dynamics, mass_matrix
from robodyn.errors import ModelError
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.models import load
from robodyn.symbolic.derive import derive, exact_number

TOL = 1e-10


def numeric(eom, parameters=None):
    """lambdify M(q), g(q), C(q, qd) with plain sympy."""
    sub = eom.parameters if parameters is None else parameters
    q, qd = list(eom.q), list(eom.qd)
    fM = sp.lambdify([q], eom.M.xreplace(sub), "numpy", cse=True)
    fg = sp.lambdify([q], eom.g.xreplace(sub), "numpy", cse=True)
    fC = sp.lambdify([q, qd], eom.C.xreplace(sub), "numpy", cse=True)
    return (
        lambda x: np.asarray(fM(x), dtype=float),
        lambda x: np.asarray(fg(x), dtype=float).ravel(),
        lambda x, v: np.asarray(fC(x, v), dtype=float),
    )


def compare_with_dynamics(model, eom, n_states=5, seed=0, parameters=None, funcs=None):
    fM, fg, fC = funcs or numeric(eom, parameters)
    rng = np.random.default_rng(seed)
    for _ in range(n_states):
        q = rng.uniform(-np.pi, np.pi, model.nv)
        v, a = rng.normal(size=(2, model.nv))
        M = fM(q)
        np.testing.assert_allclose(M, mass_matrix(model, q), atol=TOL, rtol=0)
        np.testing.assert_allclose(fg(q), gravity_forces(model, q), atol=TOL, rtol=0)
        tau = inverse_dynamics(model, q, v, a, friction=False)
        np.testing.assert_allclose(M @ a + fC(q, v) @ v + fg(q), tau, atol=TOL, rtol=0)


@pytest.mark.parametrize("name", ["planar_2r", "rp_arm", "pendulum"])
@pytest.mark.parametrize("parameters", ["numeric", "symbolic"])
def test_small_bundled_models_match_rnea_crba(name, parameters):
    model = load(name)
    eom = derive(model, parameters)
    eom.C  # noqa: B018  (the Christoffel symbols are part of the derivation)
    compare_with_dynamics(model, eom)


def test_planar_2r_symbolic_reads_like_notes_003():
    eom = derive(load("planar_2r"), "symbolic")
    q1, q2 = eom.q
    qd1, qd2 = eom.qd
    m1, m2, r1, r2, L1, I1, I2, g = sp.symbols("m1 m2 r1 r2 L1 I1 I2 g", positive=True)
    c2 = sp.cos(q2)
    M = sp.Matrix(
        [
            [
                m1 * r1**2 + m2 * (L1**2 + r2**2 + 2 * L1 * r2 * c2) + I1 + I2,
                m2 * (r2**2 + L1 * r2 * c2) + I2,
            ],
            [m2 * (r2**2 + L1 * r2 * c2) + I2, m2 * r2**2 + I2],
        ]
    )
    h = m2 * L1 * r2 * sp.sin(q2)
    C = sp.Matrix([[-h * qd2, -h * (qd1 + qd2)], [h * qd1, 0]])
    gv = sp.Matrix(
        [
            (m1 * r1 + m2 * L1) * g * sp.cos(q1) + m2 * r2 * g * sp.cos(q1 + q2),
            m2 * r2 * g * sp.cos(q1 + q2),
        ]
    )
    assert sp.simplify(eom.M - M) == sp.zeros(2, 2)
    assert sp.simplify(eom.C - C) == sp.zeros(2, 2)
    assert sp.simplify(eom.g - gv) == sp.zeros(2, 1)
    # the lesson's numbers
    values = {str(k): v for k, v in eom.parameters.items()}
    assert values == pytest.approx(
        {"m1": 5, "m2": 3, "r1": 0.25, "r2": 0.2, "L1": 0.5, "I1": 0.1, "I2": 0.05, "g": 9.81}
    )


def test_rp_arm_symbolic_reads_like_10_5_10_6():
    eom = derive(load("rp_arm"), "symbolic")
    q1, q2 = eom.q
    qd1, qd2 = eom.qd
    a1, a2 = eom.qdd
    m1, m2, r1, I1, I2, g = sp.symbols("m1 m2 r1 I1 I2 g", positive=True)
    u1 = (I1 + I2 + m1 * r1**2 + m2 * q2**2) * a1 + 2 * m2 * q2 * qd1 * qd2
    u1 += g * (m1 * r1 + m2 * q2) * sp.cos(q1)
    u2 = m2 * a2 - m2 * q2 * qd1**2 + g * m2 * sp.sin(q1)
    assert sp.simplify(eom.lhs - sp.Matrix([u1, u2])) == sp.zeros(2, 1)


def test_numeric_parameters_are_exact_where_possible():
    eom = derive(load("planar_2r"), "numeric")
    # M22 = m2 lc2^2 + I2 = 3 * 0.04 + 0.05 = 17/100 exactly
    assert eom.M[1, 1] == sp.Rational(17, 100)
    assert exact_number(0.25) == sp.Rational(1, 4)
    assert exact_number(6.123233995736766e-17) == 0
    assert isinstance(exact_number(0.010267495893), sp.Float)
    with pytest.raises(ValueError, match="finite"):
        exact_number(float("nan"))


@pytest.fixture(scope="module")
def ur5_eom():
    model = load("ur5")
    t0 = time.perf_counter()
    eom = derive(model, "numeric", simplify=False)
    eom.M, eom.g  # noqa: B018
    elapsed = time.perf_counter() - t0
    return model, eom, elapsed, numeric(eom)


def test_ur5_matches_rnea_crba(ur5_eom):
    model, eom, _, funcs = ur5_eom
    compare_with_dynamics(model, eom, n_states=4, seed=5, funcs=funcs)


def test_ur5_dM_dt_minus_2C_is_skew(ur5_eom):
    model, eom, _, (fM, _, fC) = ur5_eom
    n = eom.n
    rng = np.random.default_rng(2)
    x, v = rng.uniform(-2, 2, n), rng.normal(size=n)
    eps = 1e-6  # dM/dt by central differences along qd
    Mdot = (np.asarray(fM(x + eps * v)) - np.asarray(fM(x - eps * v))) / (2 * eps)
    N = Mdot - 2 * np.asarray(fC(x, v))
    np.testing.assert_allclose(N + N.T, 0, atol=1e-7)


def spatial_tree(gravity=(0.3, -1.2, -9.6)):
    """A branched 5-body tree: revolute and prismatic joints, tilted frames, full inertias."""

    def T(rpy, p):
        from robodyn.spatial import rpy_to_rotation, transform

        return transform(rpy_to_rotation(rpy), p)

    def body(m, c, d):
        I = np.diag(d) + 0.01 * np.array([[0, 1, -0.5], [1, 0, 0.3], [-0.5, 0.3, 0]])
        return RigidInertia(m, c, I)

    b = ModelBuilder("tree", gravity=gravity)
    b.add_body("a", "world", axis=(0, 0, 1), T=T((0, 0, 0), (0, 0, 0.3)),
               inertia=body(2.0, (0.05, 0.0, 0.1), (0.2, 0.25, 0.3)))  # fmt: skip
    b.add_body("b", "a", axis=(0, 1, 0), T=T((0.3, 0, 0), (0.1, 0, 0.2)),
               inertia=body(1.5, (0.2, 0.01, 0.0), (0.1, 0.15, 0.12)))  # fmt: skip
    b.add_body("c", "b", joint_type="prismatic", axis=(1, 0, 0), T=T((0, 0.2, 0), (0.4, 0, 0)),
               inertia=body(0.7, (0.0, 0.03, 0.05), (0.05, 0.06, 0.07)))  # fmt: skip
    b.add_body("d", "a", axis=(1, 0, 0), T=T((0, 0, 0.5), (0, 0.2, 0.1)),
               inertia=body(0.9, (0.0, 0.1, 0.0), (0.08, 0.05, 0.09)))  # fmt: skip
    b.add_body("e", "d", axis=(0, 0.6, 0.8), T=T((0, 0, 0), (0, 0.25, 0)),
               inertia=body(0.4, (0.02, 0.0, 0.04), (0.03, 0.04, 0.05)))  # fmt: skip
    return b.build()


def test_branched_tree_numeric_and_symbolic():
    model = spatial_tree()
    compare_with_dynamics(model, derive(model, "numeric", simplify=False), n_states=3)
    eom = derive(model, "symbolic", simplify=False)
    M = eom.M.xreplace(eom.parameters)  # symbolic parameters put back: the numeric M
    q = np.array([0.3, -0.7, 0.25, 1.1, -0.4])
    Mq = np.array(M.xreplace(dict(zip(eom.q, q))), dtype=float)
    np.testing.assert_allclose(Mq, mass_matrix(model, q), atol=TOL, rtol=0)
    names = {str(s) for s in eom.parameters}
    # masses, CoM offsets, joint offsets (body 1 has two children, L1_2 has x and z parts),
    # inertias (body 1 only spins about its z axis: I1zz -> I1), gravity. Offsets along a
    # vertical joint axis (L0, L1_2z) never reach the equations.
    want = {"m1", "m5", "g", "L1_2x", "L1_4y", "L2", "r2x", "r2y", "r4", "I1", "I2xy"}
    assert want <= names
    assert not {"L0", "L1_2z", "I1xx"} & names


def test_three_dof_spatial_arm_speed():
    # a 3-DoF spatial arm (yaw + two pitches) with full inertias; target < 20 s
    def body(m, c, d):
        return RigidInertia(m, c, np.diag(d) + 0.005 * np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))

    b = ModelBuilder("arm3", gravity=(0, 0, -9.81))
    T = np.eye(4)
    b.add_body("l1", "world", axis=(0, 0, 1), inertia=body(3.0, (0, 0, 0.1), (0.1, 0.1, 0.05)))
    T1 = T.copy()
    T1[:3, 3] = (0, 0.1, 0.3)
    b.add_body("l2", "l1", axis=(0, 1, 0), T=T1, inertia=body(2.0, (0.2, 0, 0), (0.02, 0.1, 0.1)))
    T2 = T.copy()
    T2[:3, 3] = (0.4, -0.05, 0)
    b.add_body(
        "l3", "l2", axis=(0, 1, 0), T=T2, inertia=body(1.0, (0.15, 0, 0), (0.01, 0.05, 0.05))
    )
    model = b.build()
    eom = derive(model, "symbolic")
    eom.C  # noqa: B018
    compare_with_dynamics(model, eom, n_states=3)


def test_mimic_joint():
    b = ModelBuilder("mimic", gravity=(0, -9.81, 0))
    b.add_body("l1", "world", inertia=RigidInertia(1.0, (0.3, 0, 0), np.diag([0.01, 0.02, 0.02])))
    T = np.eye(4)
    T[0, 3] = 0.6
    b.add_body("l2", "l1", T=T, inertia=RigidInertia(0.5, (0.2, 0, 0), np.diag([0.01] * 3)))
    b.add_body(
        "l3", "l2", T=T, mimic="l2_joint", multiplier=-0.5, offset=0.2,
        inertia=RigidInertia(0.3, (0.1, 0.05, 0), np.diag([0.005] * 3)),
    )  # fmt: skip
    model = b.build()
    assert model.nv == 2
    compare_with_dynamics(model, derive(model, "numeric"), n_states=4)


def test_free_joint_is_rejected():
    b = ModelBuilder("floating")
    b.add_body("base", "world", joint_type="free", inertia=RigidInertia(1.0))
    with pytest.raises(ModelError, match="free"):
        derive(b.build())
    with pytest.raises(ValueError, match="parameters"):
        derive(load("pendulum"), "bogus")
    with pytest.raises(ValueError, match="Model"):
        derive("planar_2r")
