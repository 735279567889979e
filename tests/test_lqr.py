"""rd.control.LQR and rd.control.TVLQR (issue 30).

Sources: the closed form of the LQR of the upright pendulum (x'' = a x + b u with a =
g/l, b = 1/(m l^2): b k_1 = a + sqrt(a^2 + b^2 Q_q / R), b k_2 = sqrt(b^2 Q_v / R + 2 b
k_1)); the Riccati equations' residuals for the UR5 (continuous and discrete); physics:
the UR5 and the Panda held at a pose against a 10 % mass error and a velocity impulse (and
falling away without the feedback), the bundled pendulum swung up along a quintic
reference from a start off it (and missing it open loop); the compiled rollout against the
Python road; the describe() JSON and the errors.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import robodyn as rd
from helpers import JOINT_KINDS, random_tree


def test_pendulum_upright_closed_form():
    pend = rd.models.load("pendulum")  # 1 kg at l = 1 m, g = 9.81: a = 9.81, b = 1
    for Qq, Qv, R in ((100.0, 1.0, 1.0), (10.0, 0.0, 0.1)):
        ctrl = rd.control.LQR(pend, [np.pi], Q=[Qq, Qv], R=R)
        a, b = 9.81, 1.0
        k1 = (a + np.sqrt(a * a + b * b * Qq / R)) / b
        k2 = np.sqrt(b * b * Qv / R + 2 * b * k1) / b
        np.testing.assert_allclose(ctrl.K, [[k1, k2]], rtol=1e-10)
        assert np.all(ctrl.poles.real < 0)


@pytest.mark.parametrize("dt", [None, 0.01])
def test_riccati_residuals_and_stable_poles(dt):
    model = rd.models.load("ur5")
    q = rd.neutral(model) + 0.3
    c = rd.control.LQR(model, q, dt=dt)
    A, B, P, K, Q, R = c.A, c.B, c.P, c.K, c.Q, c.R
    if dt is None:  # A^T P + P A - P B R^-1 B^T P + Q = 0, K = R^-1 B^T P
        res = A.T @ P + P @ A - P @ B @ np.linalg.solve(R, B.T @ P) + Q
        np.testing.assert_allclose(R @ K, B.T @ P, rtol=0, atol=1e-10 * np.abs(B.T @ P).max())
        assert np.all(c.poles.real < 0)
    else:  # P = A^T P A - A^T P B (R + B^T P B)^-1 B^T P A + Q
        res = A.T @ P @ A - A.T @ P @ B @ np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A) + Q - P
        np.testing.assert_allclose((R + B.T @ P @ B) @ K, B.T @ P @ A, rtol=0,
                                   atol=1e-10 * np.abs(B.T @ P @ A).max())  # fmt: skip
        assert np.all(np.abs(c.poles) < 1)
    assert np.abs(res).max() < 1e-8 * np.abs(P).max()


@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_lqr_holds_a_pose_against_a_mass_error_and_an_impulse(name):
    """The controller's model is the nominal one, the robot 10 % heavier; it starts at the
    pose with 1 rad/s on every joint (an impulse). The LQR brings it to rest within a few
    centimetres of angle (no integral action: the gravity error leaves an offset); the
    operating point's torque alone lets it fall away."""
    model = rd.models.load(name)
    q_ref = rd.neutral(model) + 0.3
    robot = rd.control.perturbed(model, 1.1)
    ctrl = rd.control.LQR(model, q_ref)
    v0 = np.ones(model.nv)
    res = rd.simulate(robot, q_ref, v0, controller=ctrl, duration=3.0, dt=1e-3)
    assert np.abs(res.q[-1] - q_ref).max() < 0.1 and np.abs(res.v[-1]).max() < 1e-3
    assert np.abs(res.q - q_ref).max() < 0.3
    exact = rd.simulate(model, q_ref, v0, controller=ctrl, duration=3.0, dt=1e-3)
    assert np.abs(exact.q[-1] - q_ref).max() < 1e-5  # the model itself: no offset
    held = rd.simulate(robot, q_ref, v0, controller=lambda t, q, v: ctrl.tau_ref[0],
                       duration=3.0, dt=1e-3)  # fmt: skip
    assert np.abs(held.q[-1] - q_ref).max() > 1.0


def test_tvlqr_swings_the_pendulum_up():
    """A quintic from hanging (0) to upright (pi) in 2 s; the start is 0.2 rad off. TVLQR
    joins the reference and holds the top; the reference's own torques miss it."""
    pend = rd.models.load("pendulum")
    ref = rd.trajectory.joint_trajectory([0.0], [np.pi], 2.0)
    ctrl = rd.control.TVLQR(pend, ref, Q=[1000.0, 10.0], R=1.0, dt=0.01)
    assert ctrl.K.shape == (201, 1, 2) and ctrl.t[-1] == pytest.approx(2.0)
    res = rd.simulate(pend, [0.2], [0.0], controller=ctrl, duration=3.0, dt=1e-3)
    q_d = ref(np.minimum(res.t, 2.0))[0][:, 0]
    err = np.abs(res.q[:, 0] - q_d)
    assert err[res.t >= 1.0].max() < 0.05 and err[-1] < 1e-4
    ff = rd.simulate(pend, [0.2], [0.0], duration=3.0, dt=1e-3,
                     controller=lambda t, q, v: ctrl.tau_ref[ctrl._index(t)])  # fmt: skip
    assert abs(ff.q[-1, 0] - np.pi) > 1.0


def test_tvlqr_along_a_simulated_trajectory():
    """A Trajectory as the reference: an open-loop rollout of the UR5 under a torque, then
    the same rollout from a perturbed start, tracked."""
    model = rd.models.load("ur5")
    q0 = rd.neutral(model) + 0.2
    tau0 = rd.gravity_forces(model, q0) + 1.0
    plan = rd.simulate(model, q0, np.zeros(6), controller=lambda t, q, v: tau0, duration=0.5,
                       dt=0.01)  # fmt: skip
    ctrl = rd.control.TVLQR(model, plan)
    res = rd.simulate(model, q0 + 0.05, np.zeros(6), controller=ctrl, duration=0.5, dt=1e-3)
    k = np.searchsorted(res.t, 0.5 - 1e-9)
    assert np.abs(res.q[k] - plan.q[-1]).max() < 0.02


def test_compiled_rollout_equals_the_python_road():
    """The gain schedule in sim.c against the same controller called from Python, on a
    floating tree of every joint type (q (-) q_ref on the manifold) and the pendulum."""
    model = random_tree(3, 6, floating=True, kinds=JOINT_KINDS)[0]
    rng = np.random.default_rng(2)
    q_ref = rd.random_configuration(model, rng)
    ctrl = rd.control.LQR(model, q_ref)
    q0 = rd.integrate(model, q_ref, 0.05 * rng.normal(size=model.nv))
    a = rd.simulate(model, q0, np.zeros(model.nv), controller=ctrl, duration=0.3, dt=1e-3)
    b = rd.simulate(model, q0, np.zeros(model.nv), controller=lambda t, q, v: ctrl(t, q, v),
                    duration=0.3, dt=1e-3)  # fmt: skip
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-12)
    pend = rd.models.load("pendulum")
    tv = rd.control.TVLQR(pend, rd.trajectory.joint_trajectory([0.0], [np.pi], 1.0), dt=0.01)
    a = rd.simulate(pend, [0.1], [0.0], controller=tv, duration=1.5, dt=1e-3)
    b = rd.simulate(pend, [0.1], [0.0], controller=lambda t, q, v: tv(t, q, v), duration=1.5,
                    dt=1e-3)  # fmt: skip
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-12)


def test_describe_and_errors():
    model = rd.models.load("ur5")
    q = rd.neutral(model)
    c = rd.control.LQR(model, q, Q=2.0, R=0.1, dt=0.01)
    d = json.loads(json.dumps(c.describe()))
    assert d["class"] == "LQR" and d["dt"] == 0.01 and len(d["Q"]) == 12
    with pytest.raises(ValueError, match=r"q_ref must have shape \(6,\)"):
        rd.control.LQR(model, np.zeros(5))
    with pytest.raises(ValueError, match="R must be symmetric positive definite"):
        rd.control.LQR(model, q, R=0.0)
    with pytest.raises(ValueError, match="Q must be symmetric positive semidefinite"):
        rd.control.LQR(model, q, Q=-1.0)
    with pytest.raises(ValueError, match=r"Q must be a finite scalar, vector \(12,\)"):
        rd.control.LQR(model, q, Q=np.ones(5))
    with pytest.raises(ValueError, match="needs dt="):
        rd.control.TVLQR(model, rd.trajectory.joint_trajectory(q, q + 1, 1.0))
    with pytest.raises(ValueError, match="must be a robodyn Trajectory"):
        rd.control.TVLQR(model, [1, 2, 3])
