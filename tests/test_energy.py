"""Kinetic and potential energy, momentum and CoM velocity (robodyn.energy).

Sources: the 2R arm with point masses of course notes 000 (K1, K2, P1, P2 typed here);
1/2 v^T M v with M from CRBA; dU/dq = g(q) by central differences; momentum balance and
energy balance along the motion (dE/dt = v^T tau, dh/dt = external wrench = 0).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import point_mass_2r, random_model
from robodyn.dynamics import forward_dynamics, gravity_forces, mass_matrix
from robodyn.energy import (
    centroidal_momentum,
    com_velocity,
    kinetic_energy,
    mechanical_energy,
    momentum,
    momentum_matrix,
    potential_energy,
)
from robodyn.kinematics import com_jacobian
from robodyn.model.configuration import integrate, random_configuration

H = np.finfo(float).eps ** (1 / 3)


def test_2r_point_masses_course_000():
    m1, m2, L1, L2, g = 1.3, 0.7, 0.9, 0.6, 9.81
    model = point_mass_2r(m1, m2, L1, L2, g)
    rng = np.random.default_rng(0)
    for _ in range(5):
        th, dth = rng.uniform(-3, 3, 2), rng.normal(size=2)
        K1 = 0.5 * m1 * L1**2 * dth[0] ** 2
        K2 = (
            0.5
            * m2
            * (
                L1**2 * dth[0] ** 2
                + L2**2 * (dth[0] + dth[1]) ** 2
                + 2 * L1 * L2 * dth[0] * (dth[0] + dth[1]) * np.cos(th[1])
            )
        )
        # (the notes write K2 with dth2 for the relative rate of link 2's absolute angle;
        # with relative joint angles the absolute rate of link 2 is dth1 + dth2)
        P1 = m1 * g * L1 * np.sin(th[0])
        P2 = m2 * g * (L1 * np.sin(th[0]) + L2 * np.sin(th[0] + th[1]))
        assert kinetic_energy(model, th, dth) == pytest.approx(K1 + K2, rel=1e-13)
        assert potential_energy(model, th) == pytest.approx(P1 + P2, rel=1e-12, abs=1e-13)
        assert mechanical_energy(model, th, dth) == pytest.approx(K1 + K2 + P1 + P2, rel=1e-12)
        # linear momentum = m1 v1 + m2 v2 of the point masses
        v1 = L1 * dth[0] * np.array([-np.sin(th[0]), np.cos(th[0]), 0])
        s12, c12 = np.sin(th[0] + th[1]), np.cos(th[0] + th[1])
        v2 = v1 + L2 * (dth[0] + dth[1]) * np.array([-s12, c12, 0])
        np.testing.assert_allclose(momentum(model, th, dth)[3:], m1 * v1 + m2 * v2, atol=1e-13)
        # angular momentum about the origin: r x m v summed
        r1 = L1 * np.array([np.cos(th[0]), np.sin(th[0]), 0])
        r2 = r1 + L2 * np.array([c12, s12, 0])
        L_o = m1 * np.cross(r1, v1) + m2 * np.cross(r2, v2)
        np.testing.assert_allclose(momentum(model, th, dth)[:3], L_o, atol=1e-13)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1), n=st.integers(1, 5), floating=st.booleans(), mimic=st.booleans()
)
def test_energy_identities_random(seed, n, floating, mimic):
    model = random_model(seed, n, floating, mimic)
    rng = np.random.default_rng(seed)
    q, v = random_configuration(model, rng), rng.normal(size=model.nv)
    # K = 1/2 v^T M v (M includes armature; so does K by default)
    M = mass_matrix(model, q)
    assert kinetic_energy(model, q, v) == pytest.approx(0.5 * v @ M @ v, rel=1e-12)
    Ma = mass_matrix(model, q, armature=False)
    assert kinetic_energy(model, q, v, armature=False) == pytest.approx(0.5 * v @ Ma @ v, rel=1e-12)
    # dU/dq_k (along q (+) h e_k) = g(q)
    dU = [
        (
            potential_energy(model, integrate(model, q, e, H))
            - potential_energy(model, integrate(model, q, e, -H))
        )
        / (2 * H)
        for e in np.eye(model.nv)
    ]
    g = gravity_forces(model, q)
    np.testing.assert_allclose(dU, g, atol=1e-8 * max(1.0, np.abs(g).max()))
    # momentum = A(q) v, CoM velocity = J_c v, centroidal = shifted
    h = momentum(model, q, v)
    np.testing.assert_allclose(
        momentum_matrix(model, q) @ v, h, atol=1e-12 * max(1, np.abs(h).max())
    )
    np.testing.assert_allclose(com_velocity(model, q, v), com_jacobian(model, q) @ v, atol=1e-11)
    hg = centroidal_momentum(model, q, v)
    np.testing.assert_allclose(
        momentum_matrix(model, q, about="com") @ v, hg, atol=1e-11 * max(1, np.abs(h).max())
    )
    # the centroidal momentum's physics (its values are Pinocchio's in tests/oracle): joint
    # torques are internal and gravity acts at the CoM, so a free-floating robot with no
    # input keeps its angular momentum about the CoM and gains linear momentum m g;
    # d/dt along (q (+) v t, v + a t) with a from forward dynamics (ABA)
    if floating and not mimic:
        a = forward_dynamics(model, q, v, np.zeros(model.nv))

        def hg_at(t):
            return centroidal_momentum(model, integrate(model, q, v, t), v + a * t)

        dh = (hg_at(H) - hg_at(-H)) / (2 * H)
        mg = model.total_mass * model.gravity
        scale = max(1.0, np.abs(hg).max(), np.abs(v).max() ** 2, np.abs(mg).max())
        # measured over 7,000 random trees (n 1-5): <= 8.8e-10 (angular), 9.7e-10 (linear)
        np.testing.assert_allclose(dh[:3], 0.0, atol=1e-8 * scale)
        np.testing.assert_allclose(dh[3:], mg, rtol=0, atol=1e-8 * scale)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 5), floating=st.booleans())
def test_instantaneous_balances(seed, n, floating):
    """dE/dt = v^T tau with no friction; with no gravity a floating base keeps h_o.

    Derivatives along the motion by central differences of the curve (q (+) t v, v + t a),
    which has the trajectory's velocity and acceleration at t = 0.
    """
    model = random_model(seed, n, floating)
    rng = np.random.default_rng(seed)
    q, v, tau = (
        random_configuration(model, rng),
        rng.normal(size=model.nv),
        rng.normal(size=model.nv),
    )
    a = forward_dynamics(model, q, v, tau, friction=False)

    def along(f, t):
        return f(integrate(model, q, v, t), v + t * a)

    E = lambda qq, vv: mechanical_energy(model, qq, vv)  # noqa: E731
    dE = (along(E, H) - along(E, -H)) / (2 * H)
    # the differences' rounding scales with E itself: measured over 7,000 random trees
    # (n 1-5, fixed and floating) |dE - v tau| <= 3.1e-9 max(1, |v tau|, |E|, K)
    scale = max(1.0, abs(v @ tau), abs(E(q, v)), kinetic_energy(model, q, v))
    assert abs(dE - v @ tau) <= 3e-8 * scale
    if floating:
        # no gravity, no wrench on the base dofs: the joint torques are internal forces
        free = random_model(seed, n, floating=True, gravity=False)
        tau[:6] = 0.0
        a = forward_dynamics(free, q, v, tau, friction=False)
        hp = momentum(free, integrate(free, q, v, H), v + H * a)
        hm = momentum(free, integrate(free, q, v, -H), v - H * a)
        h0 = momentum(free, q, v)
        # measured over 7,000 random floating trees: <= 1.5e-9 (1 + |h|)
        np.testing.assert_allclose((hp - hm) / (2 * H), 0.0, atol=1.5e-8 * (1 + np.abs(h0).max()))


def test_energy_balance_simulated():
    """RK4 on a random fixed-base tree, no friction: E(T) - E(0) = int v^T tau dt."""
    model = random_model(123, 4)
    rng = np.random.default_rng(1)
    q, v = random_configuration(model, rng), 0.5 * rng.normal(size=model.nv)
    tau = rng.normal(size=model.nv)
    dt, steps = 1e-3, 400

    def f(x):
        qq, vv, _ = x[: model.nq], x[model.nq :], None
        return np.concatenate([vv, forward_dynamics(model, qq, vv, tau, friction=False)])

    x = np.concatenate([q, v])
    work = 0.0
    E0 = mechanical_energy(model, q, v)
    for _ in range(steps):
        k1 = f(x)
        k2 = f(x + dt / 2 * k1)
        k3 = f(x + dt / 2 * k2)
        k4 = f(x + dt * k3)
        # the work integrand v^T tau uses the same RK4 stages
        work += (
            dt
            / 6
            * tau
            @ (k1[: model.nq] + 2 * k2[: model.nq] + 2 * k3[: model.nq] + k4[: model.nq])
        )
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    E1 = mechanical_energy(model, x[: model.nq], x[model.nq :])
    assert E1 - E0 == pytest.approx(work, rel=1e-9, abs=1e-9)
    assert abs(work) > 1e-2  # the torques did real work


def test_batches_and_errors():
    model = random_model(5, 3, floating=True)
    rng = np.random.default_rng(0)
    Q, V = random_configuration(model, rng, size=4), rng.normal(size=(4, model.nv))
    K, U, h = kinetic_energy(model, Q, V), potential_energy(model, Q), momentum(model, Q, V)
    assert K.shape == (4,) and U.shape == (4,) and h.shape == (4, 6)
    for k in range(4):
        assert K[k] == kinetic_energy(model, Q[k], V[k])
        assert U[k] == potential_energy(model, Q[k])
        np.testing.assert_array_equal(h[k], momentum(model, Q[k], V[k]))
    assert momentum_matrix(model, Q).shape == (4, 6, model.nv)
    with pytest.raises(ValueError, match="v must have shape"):
        kinetic_energy(model, Q[0], np.zeros(3))
    with pytest.raises(ValueError, match="q contains NaN"):
        potential_energy(model, np.full(model.nq, np.nan))
    with pytest.raises(ValueError, match="about must be"):
        momentum_matrix(model, Q[0], about="base")
