"""Dynamics identities on random trees: RNEA columns = CRBA, ABA after RNEA, M symmetric
positive definite, kinetic and potential energy by finite differences, batches, F_tip vs
the Modern Robotics library.

The property tests draw their trees with hypothesis (helpers.trees: branching, every joint
type, merged fixed links, a floating base or free joints anywhere, mimic joints) and their
states with helpers.states, so a failure shrinks to a minimal tree and state."""

from __future__ import annotations

import modern_robotics as mr
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import chain_poses, random_state, random_tree, states, trees, wrenches
from robodyn import dynamics as dyn
from robodyn.inertia import RigidInertia
from robodyn.model.configuration import integrate
from robodyn.model.poe import from_mr
from robodyn.spatial import inv_transform, unskew

#: trees of up to 8 bodies, every joint type, maybe floating, maybe with mimic joints
TREES = trees(max_bodies=8, mimic=None)
DAMPED = trees(max_bodies=8, mimic=None, damping=True)


def close(x, y, tol):
    x, y = np.asarray(x), np.asarray(y)
    assert x.shape == y.shape
    err = np.abs(x - y).max(initial=0.0)
    assert err <= tol * max(1.0, np.abs(y).max(initial=0.0)), err


@settings(max_examples=40, deadline=None)
@given(TREES, st.data())
def test_rnea_columns_equal_crba(tree, data):
    model = tree.model
    q, _, _ = data.draw(states(model))
    z = np.zeros(model.nv)
    tau0 = dyn.rnea(model, q, z, z)
    cols = np.array([dyn.rnea(model, q, z, e) - tau0 for e in np.eye(model.nv)]).T
    close(cols, dyn.crba(model, q), 5e-14)  # measured <= 3.8e-15 over 400 explored trees


@settings(max_examples=40, deadline=None)
@given(DAMPED, st.data())
def test_aba_after_rnea_and_rnea_after_aba(tree, data):
    model = tree.model
    q, v, a = data.draw(states(model))
    f_ext = data.draw(wrenches(model))
    tau = dyn.rnea(model, q, v, a, f_ext)
    # measured <= 5.4e-14 over 400 explored trees (inertias of 0.02-0.6, masses 0.2-3)
    close(dyn.aba(model, q, v, tau, f_ext), a, 1e-12)
    close(dyn.rnea(model, q, v, dyn.aba(model, q, v, a, f_ext), f_ext), a, 1e-12)
    close(dyn.aba(model, q, v, tau, f_ext, method="crba"), a, 1e-12)


@settings(max_examples=40, deadline=None)
@given(TREES, st.data())
def test_mass_matrix_symmetric_positive_definite_and_inverse(tree, data):
    model = tree.model
    q, _, _ = data.draw(states(model))
    M = dyn.mass_matrix(model, q)
    assert np.array_equal(M, M.T) or np.abs(M - M.T).max() <= 1e-12 * np.abs(M).max()
    assert np.linalg.eigvalsh(M).min() > 0
    close(dyn.mass_matrix_inverse(model, q) @ M, np.eye(model.nv), 5e-13)  # measured 4.2e-14


@settings(max_examples=25, deadline=None)
@given(TREES, st.data())
def test_kinetic_energy_from_finite_difference_twists(tree, data):
    """1/2 v^T M v = sum_i 1/2 V_i^T G_i V_i, V_i = (T_i^-1 dT_i/dt)^vee by central differences."""
    model = tree.model
    q, v, _ = data.draw(states(model))
    h = 1e-6
    Tp, Tm, T0 = (chain_poses(model, integrate(model, q, v, s)) for s in (h, -h, 0.0))
    ke = 0.0
    for i in range(1, model.nb):
        Vb = inv_transform(T0[i]) @ (Tp[i] - Tm[i]) / (2 * h)
        V = np.concatenate([unskew(Vb[:3, :3]), Vb[:3, 3]])
        G = RigidInertia(model.body_mass[i], model.body_com[i], model.body_inertia[i])
        ke += 0.5 * V @ G.spatial_at_origin() @ V
    close(0.5 * v @ dyn.mass_matrix(model, q, armature=False) @ v, ke, 5e-9)  # measured 4.5e-10


@settings(max_examples=25, deadline=None)
@given(TREES, st.data())
def test_gravity_is_gradient_of_potential_energy(tree, data):
    """g(q)_k = dU/dq_k with U = -sum_i m_i g . p_ci (central differences on the manifold)."""
    model = tree.model
    q, _, _ = data.draw(states(model))

    def U(qq):
        T = chain_poses(model, qq)
        return -sum(
            model.body_mass[i] * model.gravity @ (T[i][:3, :3] @ model.body_com[i] + T[i][:3, 3])
            for i in range(1, model.nb)
        )

    h = 1e-6
    grad = [(U(integrate(model, q, e, h)) - U(integrate(model, q, e, -h))) / (2 * h)
            for e in np.eye(model.nv)]  # fmt: skip
    close(dyn.gravity_forces(model, q), np.array(grad), 1e-8)  # measured 8.2e-10


@settings(max_examples=25, deadline=None)
@given(DAMPED, st.data())
def test_force_terms_add_up(tree, data):
    model = tree.model
    q, v, a = data.draw(states(model))
    z = np.zeros(model.nv)
    g = dyn.gravity_forces(model, q)
    c = dyn.velocity_forces(model, q, v)
    # measured <= 1.9e-15 over 400 explored trees
    close(dyn.bias_forces(model, q, v), c + g, 2e-14)
    close(dyn.rnea(model, q, v, z, friction=False), c + g, 2e-14)
    close(dyn.rnea(model, q, z, z), g, 2e-14)  # friction and armature vanish at rest
    M = dyn.mass_matrix(model, q, armature=False)
    close(dyn.rnea(model, q, v, a, friction=False, armature=False), M @ a + c + g, 2e-14)


def same(x, y):
    """Equal up to rounding: single states run the C kernels (compiled with fused
    multiply-adds where the CPU has them), batches the numba kernels."""
    np.testing.assert_allclose(x, y, rtol=0, atol=1e-13 * (1.0 + np.abs(y).max()))


def test_batches_equal_single_states():
    model, _ = random_tree(123, 7, floating=True, mimic=True, damping=True)
    rng = np.random.default_rng(0)
    N = 13
    Q, V, A = random_state(model, rng, N)
    FE = rng.normal(size=(N, model.nb, 6))
    FT = rng.normal(size=(N, 6))
    tau = dyn.rnea(model, Q, V, A, FE, FT)
    M = dyn.crba(model, Q)
    assert tau.shape == (N, model.nv) and M.shape == (N, model.nv, model.nv)
    for s in range(N):
        same(tau[s], dyn.rnea(model, Q[s], V[s], A[s], FE[s], FT[s]))
        same(M[s], dyn.crba(model, Q[s]))
        same(dyn.gravity_forces(model, Q)[s], dyn.gravity_forces(model, Q[s]))
        same(dyn.bias_forces(model, Q, V)[s], dyn.bias_forces(model, Q[s], V[s]))
        same(dyn.velocity_forces(model, Q, V)[s], dyn.velocity_forces(model, Q[s], V[s]))
        same(dyn.mass_matrix_inverse(model, Q)[s], dyn.mass_matrix_inverse(model, Q[s]))
    for method in ("aba", "crba"):
        qdd = dyn.aba(model, Q, V, tau, FE, FT, method=method)
        for s in range(N):
            same(qdd[s], dyn.aba(model, Q[s], V[s], tau[s], FE[s], FT[s], method=method))
        close(qdd, A, 1e-8)
    # a single v, a or f_ext broadcasts over a batch of q
    tau_b = dyn.rnea(model, Q, V[0], A[0], FE[0])
    for s in range(N):
        same(tau_b[s], dyn.rnea(model, Q[s], V[0], A[0], FE[0]))
    # plain lists and non-contiguous views are accepted
    same(dyn.rnea(model, list(Q[2]), list(V[2]), list(A[2])), dyn.rnea(model, Q[2], V[2], A[2]))
    Qf = np.asfortranarray(Q)
    same(dyn.crba(model, Qf), M)


@pytest.mark.parametrize("armature", [False, True])
def test_aba_free_base_equals_the_mass_matrix_road(armature):
    """Two algorithms for one acceleration: ABA (with the 6x6 pivot of a free joint, with
    and without armature) and the Cholesky solve of M from CRBA, on floating trees."""
    for seed in range(6):
        model, _ = random_tree(77 + seed, 6, floating=True, damping=True)
        q, v, tau = random_state(model, np.random.default_rng(seed))
        a_aba = dyn.aba(model, q, v, tau, armature=armature)
        a_crba = dyn.aba(model, q, v, tau, armature=armature, method="crba")
        close(a_aba, a_crba, 1e-9)


def test_f_tip_matches_modern_robotics_inverse_dynamics():
    """MR's InverseDynamics example (UR5's first three links) with F_tip.

    The docstring's Slist has a non-unit first axis, which from_mr rightly rejects; the
    axes here are the UR5's (z, then y twice), with the example's links and inertias."""
    M01 = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]])
    M12 = np.array([[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]])
    M23 = np.array([[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]])
    M34 = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.14225], [0, 0, 0, 1]])
    Mlist = [M01, M12, M23, M34]
    Glist = [
        np.diag([0.010267, 0.010267, 0.00666, 3.7, 3.7, 3.7]),
        np.diag([0.22689, 0.22689, 0.0151074, 8.393, 8.393, 8.393]),
        np.diag([0.0494433, 0.0494433, 0.004095, 2.275, 2.275, 2.275]),
    ]
    Slist = np.array(
        [[0, 0, 1, 0, 0, 0], [0, 1, 0, -0.089159, 0, 0], [0, 1, 0, -0.089159, 0, 0.425]]
    ).T
    g = np.array([0, 0, -9.8])
    model = from_mr(M01 @ M12 @ M23 @ M34, Slist, Mlist, Glist, gravity=g)
    rng = np.random.default_rng(4)
    cases = [(np.array([0.1, 0.1, 0.1]), np.array([0.1, 0.2, 0.3]), np.array([2, 1.5, 1.0]),
              np.ones(6))]  # fmt: skip
    cases += [tuple(rng.normal(size=k) for k in (3, 3, 3, 6)) for _ in range(5)]
    for th, dth, ddth, Ftip in cases:
        expect = mr.InverseDynamics(th, dth, ddth, g, Ftip, Mlist, Glist, Slist)
        close(dyn.rnea(model, th, dth, ddth, f_tip=Ftip, frame="ee"), expect, 1e-10)
        close(dyn.aba(model, th, dth, expect, f_tip=Ftip, frame="ee"), ddth, 1e-9)
