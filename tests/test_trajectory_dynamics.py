"""MR ch. 8 trajectory helpers vs the modern_robotics package (robodyn.sim.dynamics_trajectory)."""

from __future__ import annotations

import modern_robotics as mr
import numpy as np
import pytest

from robodyn import models
from robodyn.model.configuration import random_configuration
from robodyn.sim.dynamics_trajectory import forward_dynamics_trajectory, inverse_dynamics_trajectory


@pytest.fixture(scope="module")
def ur5():
    model = models.load("ur5")
    return model, model.to_mr("ee")


def test_inverse_dynamics_trajectory_vs_mr(ur5):
    model, (M, Slist, Mlist, Glist) = ur5
    rng = np.random.default_rng(0)
    N = 12
    q, v, a = rng.normal(size=(N, 6)), rng.normal(size=(N, 6)), rng.normal(size=(N, 6))
    F = rng.normal(size=(N, 6))
    tau_mr = mr.InverseDynamicsTrajectory(q, v, a, model.gravity, F, Mlist, Glist, Slist)
    tau = inverse_dynamics_trajectory(model, q, v, a, F, frame="ee")
    # measured: 1.4e-14 N m with a tip wrench, 2.1e-14 without (|tau| up to 62 N m)
    np.testing.assert_allclose(tau, tau_mr, rtol=0, atol=2e-13)
    # without a tip wrench: MR's with a zero wrench at the tip
    tau0 = inverse_dynamics_trajectory(model, q, v, a)
    tau0_mr = mr.InverseDynamicsTrajectory(q, v, a, model.gravity, 0 * F, Mlist, Glist, Slist)
    np.testing.assert_allclose(tau0, tau0_mr, rtol=0, atol=2e-13)


def test_forward_dynamics_trajectory_vs_mr(ur5):
    model, (M, Slist, Mlist, Glist) = ur5
    rng = np.random.default_rng(1)
    q0, v0 = random_configuration(model, rng), rng.normal(size=6)
    N, dt, res = 8, 0.01, 3
    tau = rng.normal(size=(N, 6))
    F = rng.normal(size=(N, 6))
    Q_mr, V_mr = mr.ForwardDynamicsTrajectory(
        q0, v0, tau, model.gravity, F, Mlist, Glist, Slist, dt, res
    )
    Q, V = forward_dynamics_trajectory(model, q0, v0, tau, dt, res, F, frame="ee")
    assert Q.shape == (N, 6) and V.shape == (N, 6)
    # measured: 0 (q) and 2.2e-16 (v) over 24 Euler steps (|q|, |v| < 3)
    np.testing.assert_allclose(Q, Q_mr, rtol=0, atol=1e-14)
    np.testing.assert_allclose(V, V_mr, rtol=0, atol=3e-15)


def test_errors(ur5):
    model, _ = ur5
    with pytest.raises(ValueError, match="v_traj must have shape"):
        inverse_dynamics_trajectory(model, np.zeros((3, 6)), np.zeros((2, 6)), np.zeros((3, 6)))
    with pytest.raises(ValueError, match="dt must be"):
        forward_dynamics_trajectory(model, np.zeros(6), np.zeros(6), np.zeros((3, 6)), 0.0)
    with pytest.raises(ValueError, match="integration_steps"):
        forward_dynamics_trajectory(model, np.zeros(6), np.zeros(6), np.zeros((3, 6)), 0.1, 0)
    with pytest.raises(ValueError, match="tau_traj must have shape"):
        forward_dynamics_trajectory(model, np.zeros(6), np.zeros(6), np.zeros(6), 0.1)
