"""Coriolis matrix, Christoffel symbols and dM/dq (robodyn.coriolis).

Sources: closed forms of the planar 2R arm (course notes 003) and the RP arm (course
notes 001 eqs. 10.5-10.6) typed here; central finite differences of CRBA; the identities
C v = RNEA velocity forces, dM/dt - 2C skew, Gamma contracted twice; random trees.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import random_model, states, trees
from robodyn import models
from robodyn.coriolis import christoffel, coriolis_matrix, mass_matrix_derivative, mass_matrix_dot
from robodyn.dynamics import mass_matrix, velocity_forces
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.model.configuration import integrate, random_configuration

H = np.finfo(float).eps ** (1 / 3)  # central-difference step ~ eps^(1/3)


def fd_dM(model, q):
    """dM/dq_k by central differences of CRBA along q (+) h e_k."""
    cols = []
    for e in np.eye(model.nv):
        Mp = mass_matrix(model, integrate(model, q, e, H), armature=False)
        Mm = mass_matrix(model, integrate(model, q, e, -H), armature=False)
        cols.append((Mp - Mm) / (2 * H))
    return np.stack(cols, axis=-1)


def fd_Mdot(model, q, v):
    Mp = mass_matrix(model, integrate(model, q, v, H))
    Mm = mass_matrix(model, integrate(model, q, v, -H))
    return (Mp - Mm) / (2 * H)


def _state(model, seed):
    rng = np.random.default_rng(seed + 1)
    return random_configuration(model, rng), rng.normal(size=model.nv)


def _close(a, b, rtol):
    scale = max(np.max(np.abs(b)), 1.0)
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


# --------------------------------------------------------------------- closed forms
def test_planar_2r_closed_form_course_003():
    """Course notes 003: h = -m2 l1 lc2 sin q2, C = [[h dq2, h (dq1 + dq2)], [-h dq1, 0]]."""
    m = models.load("planar_2r")
    m2, l1, lc2 = 3.0, 0.5, 0.2
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, dq = rng.uniform(-3, 3, 2), rng.normal(size=2)
        h = -m2 * l1 * lc2 * np.sin(q[1])
        C_ref = np.array([[h * dq[1], h * (dq[0] + dq[1])], [-h * dq[0], 0.0]])
        np.testing.assert_allclose(coriolis_matrix(m, q, dq), C_ref, atol=1e-13)
        # Christoffel symbols: Gamma_112 = Gamma_121 = Gamma_122 = h, Gamma_211 = -h
        G_ref = np.zeros((2, 2, 2))
        G_ref[0, 0, 1] = G_ref[0, 1, 0] = G_ref[0, 1, 1] = h
        G_ref[1, 0, 0] = -h
        np.testing.assert_allclose(christoffel(m, q), G_ref, atol=1e-13)
        # dM/dq: only M11 and M12 depend on q2: dM11/dq2 = 2h, dM12/dq2 = h
        dM_ref = np.zeros((2, 2, 2))
        dM_ref[0, 0, 1] = 2 * h
        dM_ref[0, 1, 1] = dM_ref[1, 0, 1] = h
        np.testing.assert_allclose(mass_matrix_derivative(m, q), dM_ref, atol=1e-13)


def test_rp_arm_course_001():
    """RP arm (course notes 001 eqs. 10.5-10.6, q2 = distance to link 2's CoM).

    M = diag(I1 + I2 + m1 r1^2 + m2 q2^2, m2); velocity terms 2 m2 q2 dq1 dq2 and
    -m2 q2 dq1^2; Christoffel symbols Gamma_112 = Gamma_121 = m2 q2, Gamma_211 = -m2 q2.
    The model's parameters (m1 = 2, r1 = 0.25, I1 = 0.05, m2 = 1, I2 = 0.02) are typed.
    """
    m = models.load("rp_arm")
    m1, r1, I1, m2, I2 = 2.0, 0.25, 0.05, 1.0, 0.02
    rng = np.random.default_rng(4)
    for _ in range(5):
        q = np.array([rng.uniform(-3, 3), rng.uniform(0, 1)])
        dq = rng.normal(size=2)
        M_ref = np.diag([I1 + I2 + m1 * r1**2 + m2 * q[1] ** 2, m2])
        np.testing.assert_allclose(mass_matrix(m, q, armature=False), M_ref, atol=1e-13)
        c_ref = np.array([2 * m2 * q[1] * dq[0] * dq[1], -m2 * q[1] * dq[0] ** 2])
        np.testing.assert_allclose(coriolis_matrix(m, q, dq) @ dq, c_ref, atol=1e-13)
        G_ref = np.zeros((2, 2, 2))
        G_ref[0, 0, 1] = G_ref[0, 1, 0] = m2 * q[1]
        G_ref[1, 0, 0] = -m2 * q[1]
        np.testing.assert_allclose(christoffel(m, q), G_ref, atol=1e-13)
        dM_ref = np.zeros((2, 2, 2))
        dM_ref[0, 0, 1] = 2 * m2 * q[1]
        np.testing.assert_allclose(mass_matrix_derivative(m, q), dM_ref, atol=1e-13)


# --------------------------------------------------------------------- identities
@pytest.mark.parametrize("name", ["planar_2r", "rp_arm", "ur5", "panda", "pendulum"])
def test_bundled_models_identities(name):
    model = models.load(name)
    q, v = _state(model, 11)
    C = coriolis_matrix(model, q, v)
    _close(C @ v, velocity_forces(model, q, v), 1e-12)
    Mdot = fd_Mdot(model, q, v)
    _close(C + C.T, Mdot, 1e-8)
    _close(mass_matrix_dot(model, q, v), Mdot, 1e-8)
    _close(mass_matrix_derivative(model, q), fd_dM(model, q), 1e-8)


@settings(max_examples=40, deadline=None)
@given(trees(max_bodies=6, mimic=None, damping=True), st.data())
def test_random_tree_identities(tree, data):
    model = tree.model
    q, v, dq = data.draw(states(model))
    C = coriolis_matrix(model, q, v)
    G = christoffel(model, q)
    dM = mass_matrix_derivative(model, q)
    c = velocity_forces(model, q, v)
    # tolerances ~10x the worst measured over hypothesis's explored trees: C v 4e-15,
    # dM/dq by differences 5.5e-10, the analytic skew 7e-14
    # C v = RNEA's velocity forces; Gamma contracted with v twice is the same vector
    _close(C @ v, c, 4e-14)
    _close(np.einsum("ijk,j,k->i", G, v, v), c, 4e-14)
    # C_ij = sum_k Gamma_ijk v_k (the recursive C is Christoffel-consistent)
    _close(np.einsum("ijk,k->ij", G, v), C, 4e-14)
    # dM/dq analytic vs central differences along q (+) h e_k
    _close(dM, fd_dM(model, q), 5e-9)
    # dM/dt - 2C skew-symmetric, and dq^T (dM/dt - 2C) dq = 0
    Mdot = fd_Mdot(model, q, v)
    N = Mdot - 2 * C
    _close(N + N.T, np.zeros_like(N), 1e-7 * max(1.0, np.abs(Mdot).max()))
    assert abs(dq @ N @ dq) <= 1e-7 * max(1.0, np.abs(Mdot).max()) * (dq @ dq)
    # exact algebraic form with the analytic dM: sum_k dM/dq_k v_k - 2C is skew
    N2 = np.einsum("ijk,k->ij", dM, v) - 2 * C
    _close(N2 + N2.T, np.zeros_like(N2), 7e-13)


def test_floating_base_bracket_terms_single_body():
    """One free body: M = G is constant, yet C v = -ad_V^T G V (Euler's equations).

    The right-trivialised dM/dq vanishes, so the Christoffel symbols are Koszul's bracket
    terms alone; the test types Euler's equation in body coordinates: the angular part
    omega x (I omega) + m c x (omega x v ...) via the spatial form -ad_V^T G V.
    """
    ri = RigidInertia(2.0, [0.1, -0.2, 0.05], np.diag([0.3, 0.4, 0.5]))
    model = (
        ModelBuilder(gravity=(0, 0, 0))
        .add_body("b", "world", joint_type="free", inertia=ri)
        .build()
    )
    rng = np.random.default_rng(5)
    q, V = random_configuration(model, rng), rng.normal(size=6)
    np.testing.assert_allclose(mass_matrix_derivative(model, q), 0, atol=1e-13)
    G = ri.spatial_at_origin()
    w, u = V[:3], V[3:]
    adV = np.zeros((6, 6))
    W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    Uu = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    adV[:3, :3] = adV[3:, 3:] = W
    adV[3:, :3] = Uu
    np.testing.assert_allclose(coriolis_matrix(model, q, V) @ V, -adV.T @ G @ V, atol=1e-12)
    np.testing.assert_allclose(
        np.einsum("ijk,j,k->i", christoffel(model, q), V, V), -adV.T @ G @ V, atol=1e-12
    )


# --------------------------------------------------------------------- batches, errors
def test_batches_equal_single_states():
    model = random_model(9, 4, floating=True)
    rng = np.random.default_rng(0)
    Q = random_configuration(model, rng, size=3)
    V = rng.normal(size=(3, model.nv))
    C = coriolis_matrix(model, Q, V)
    G = christoffel(model, Q)
    dM = mass_matrix_derivative(model, Q)
    Md = mass_matrix_dot(model, Q, V)
    assert C.shape == (3, model.nv, model.nv) and G.shape == (3, model.nv, model.nv, model.nv)
    # one state runs the C kernels (fused multiply-adds), a batch numba: equal to rounding
    for k in range(3):
        for batch, single in [
            (C[k], coriolis_matrix(model, Q[k], V[k])),
            (G[k], christoffel(model, Q[k])),
            (dM[k], mass_matrix_derivative(model, Q[k])),
            (Md[k], mass_matrix_dot(model, Q[k], V[k])),
        ]:
            np.testing.assert_allclose(batch, single, rtol=0, atol=1e-13 * np.abs(single).max())
    # one v broadcast over a batch of q
    C1 = coriolis_matrix(model, Q, V[0])
    np.testing.assert_allclose(C1[2], coriolis_matrix(model, Q[2], V[0]), rtol=0, atol=1e-13)


def test_bad_input():
    model = models.load("panda")
    q, v = np.zeros(7), np.zeros(7)
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 7\), got \(6,\)"):
        coriolis_matrix(model, np.zeros(6), v)
    with pytest.raises(ValueError, match="v must have shape"):
        coriolis_matrix(model, q, np.zeros(8))
    with pytest.raises(ValueError, match="v contains NaN"):
        coriolis_matrix(model, q, np.full(7, np.nan))
    with pytest.raises(ValueError, match="q contains NaN"):
        christoffel(model, np.array([0, 0, np.inf, 0, 0, 0, 0.0]))
    with pytest.raises(ValueError, match="do not broadcast"):
        coriolis_matrix(model, np.zeros((2, 7)), np.zeros((3, 7)))
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 7\), got \(2, 2, 6\)"):
        mass_matrix_derivative(model, np.zeros((2, 2, 6)))
    fb = random_model(1, 2, floating=True)
    qz = random_configuration(fb, np.random.default_rng(0))
    qz[3:7] = 0.0
    with pytest.raises(ValueError, match="quaternion"):
        coriolis_matrix(fb, qz, np.zeros(fb.nv))


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("mimic", [False, True])
def test_compiled_christoffel_equals_the_numpy_closed_form(floating, mimic):
    # Gamma from the compiled Coriolis kernel (C is linear in v) against the closed form
    # from the analytic dM/dq, Koszul's bracket terms and mimic expansion included
    from robodyn.coriolis import christoffel_reference, mass_matrix_derivative_reference

    model = random_model(31, 5, floating, mimic)
    Q = random_configuration(model, np.random.default_rng(2), size=(2, 3))
    _close(christoffel(model, Q), christoffel_reference(model, Q), 1e-12)
    _close(mass_matrix_derivative(model, Q), mass_matrix_derivative_reference(model, Q), 1e-12)
    assert christoffel(model, Q, threads=2).shape == (2, 3, model.nv, model.nv, model.nv)
