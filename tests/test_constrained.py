"""Constrained dynamics (robodyn.constrained): KKT solve, projections, holonomic + Baumgarte.

Sources: course notes 001 problems 11-12 (a point mass on the unit sphere: m ddq = u +
lambda q with A = q^T, lambda and P typed here in closed form), eq. 10.19 and the
M-orthogonality of P on random matrices, and |q| = 1 along a simulated motion.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from robodyn.constrained import (
    HolonomicConstraint,
    baumgarte_bias,
    constrained_forward_dynamics,
    constraint_projections,
    holonomic_forward_dynamics,
    kkt_solve,
    projection_orthogonality,
)
from robodyn.inertia import point
from robodyn.model.builder import ModelBuilder

MASS = 1.7


def point_in_space(g=(0.0, 0.0, 0.0)):
    """Problem 11: a point mass in R^3 driven by three orthogonal thrusters (x, y, z)."""
    return (
        ModelBuilder(name="point3", gravity=g)
        .add_body("px", "world", joint_type="prismatic", axis=(1, 0, 0))
        .add_body("py", "px", joint_type="prismatic", axis=(0, 1, 0))
        .add_body("pz", "py", joint_type="prismatic", axis=(0, 0, 1), inertia=point(MASS))
        .build()
    )


# c(q) = (|q|^2 - 1) / 2, dc/dq = q^T, (dJ/dt) v = v . v
SPHERE = HolonomicConstraint(
    c=lambda q: np.array([0.5 * (q @ q - 1.0)]),
    jacobian=lambda q: q[None, :],
    dJ_v=lambda q, v: np.array([v @ v]),
)


def test_point_on_sphere_problem_11():
    """lambda = -(m |v|^2 + q . u) / |q|^2, ddq = (u + lambda q) / m, P = 1 - q q^T / |q|^2."""
    model = point_in_space()
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = rng.normal(size=3)
        q /= np.linalg.norm(q)
        v = np.cross(q, rng.normal(size=3))  # tangent: q . v = 0
        u = rng.normal(size=3)
        lam_ref = -(MASS * v @ v + q @ u) / (q @ q)
        ddq_ref = (u + lam_ref * q) / MASS
        ddq, lam = holonomic_forward_dynamics(model, q, v, u, SPHERE)
        np.testing.assert_allclose(ddq, ddq_ref, atol=1e-13)
        np.testing.assert_allclose(lam, [lam_ref], atol=1e-13)
        ddq2, lam2 = constrained_forward_dynamics(model, q, v, u, q[None, :], [v @ v])
        np.testing.assert_allclose(ddq2, ddq_ref, atol=1e-13)
        _, P = constraint_projections(MASS * np.eye(3), q)
        np.testing.assert_allclose(P, np.eye(3) - np.outer(q, q), atol=1e-14)
        # without the analytic dJ v term the finite-difference one is used
        fd = HolonomicConstraint(SPHERE.c, SPHERE.jacobian)
        np.testing.assert_allclose(
            holonomic_forward_dynamics(model, q, v, u, fd)[0], ddq_ref, atol=1e-8
        )


def _simulate(model, q, v, tau, alpha, beta, dt, steps):
    def f(x):
        ddq, _ = holonomic_forward_dynamics(
            model, x[:3], x[3:], tau, SPHERE, alpha=alpha, beta=beta
        )
        return np.concatenate([x[3:], ddq])

    x = np.concatenate([q, v])
    drift = 0.0
    for _ in range(steps):
        k1 = f(x)
        k2 = f(x + dt / 2 * k1)
        k3 = f(x + dt / 2 * k2)
        k4 = f(x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        drift = max(drift, abs(np.linalg.norm(x[:3]) - 1.0))
    return x, drift


def test_sphere_simulation_keeps_unit_norm():
    """Spherical pendulum under gravity with a thrust: |q| stays 1 with Baumgarte."""
    model = point_in_space(g=(0.0, 0.0, -9.81))
    q0 = np.array([0.6, 0.0, -0.8])
    v0 = np.array([0.0, 2.0, 0.0])
    tau = np.array([0.3, -0.2, 0.1])
    x, drift = _simulate(model, q0, v0, tau, alpha=20.0, beta=20.0, dt=2.5e-3, steps=600)
    assert drift < 1e-6
    assert np.linalg.norm(x[:3] - q0) > 0.1  # it really moved
    # a perturbed start (|q| = 1.01) is pulled back to the sphere
    x, _ = _simulate(model, 1.01 * q0, v0, tau, alpha=20.0, beta=20.0, dt=2.5e-3, steps=200)
    assert abs(np.linalg.norm(x[:3]) - 1.0) < 1e-5


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 7), data=st.data())
def test_projections_random(seed, n, data):
    k = data.draw(st.integers(1, n - 1))
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    M = B @ B.T + n * np.eye(n)
    A = rng.normal(size=(k, n))
    P_u, P = constraint_projections(M, A)
    np.testing.assert_allclose(P, np.linalg.solve(M, P_u @ M), atol=1e-10)  # eq. 10.19
    np.testing.assert_allclose(P, P_u.T, atol=1e-10)
    np.testing.assert_allclose(P @ P, P, atol=1e-10)  # a projection
    np.testing.assert_allclose(A @ P, 0.0, atol=1e-10)  # its motions satisfy A dq = 0
    assert np.linalg.matrix_rank(P, tol=1e-8) == n - k
    dq, u = rng.normal(size=n), rng.normal(size=n)
    assert abs(projection_orthogonality(M, P, dq)) < 1e-9 * (dq @ M @ dq)
    # (P_u u)^T M^-1 (1 - P_u) u = 0
    assert abs((P_u @ u) @ np.linalg.solve(M, u - P_u @ u)) < 1e-9 * (u @ np.linalg.solve(M, u))
    # KKT: the constraint holds and the residual is a constraint force A^T lambda
    h, tau, dA_v = rng.normal(size=n), rng.normal(size=n), rng.normal(size=k)
    ddq, lam = kkt_solve(M, h, tau, A, dA_v)
    np.testing.assert_allclose(A @ ddq + dA_v, 0.0, atol=1e-10)
    np.testing.assert_allclose(M @ ddq + h - tau, A.T @ lam, atol=1e-10)


def test_baumgarte_bias_and_errors():
    A = np.array([[1.0, 2.0, 0.0]])
    v = np.array([0.5, -1.0, 2.0])
    b = baumgarte_bias([0.1], A, [0.3], v, alpha=2.0, beta=3.0)
    np.testing.assert_allclose(b, [0.3 + 2 * 2.0 * (A @ v)[0] + 9.0 * 0.1])
    with pytest.raises(ValueError, match="alpha and beta"):
        baumgarte_bias([0.1], A, [0.3], v, alpha=-1.0)
    M = np.eye(3)
    with pytest.raises(ValueError, match="linearly dependent"):
        kkt_solve(M, np.zeros(3), np.zeros(3), np.vstack([A, 2 * A]), np.zeros(2))
    with pytest.raises(ValueError, match="mass matrix M is singular"):
        kkt_solve(np.diag([1.0, 1.0, 0.0]), np.zeros(3), np.zeros(3), A, [0.0])
    with pytest.raises(ValueError, match="square"):
        kkt_solve(np.zeros((3, 2)), np.zeros(3), np.zeros(3), A, [0.0])
    with pytest.raises(ValueError, match=r"dA_v must have shape .*1\), got \(2,\)"):
        kkt_solve(M, np.zeros(3), np.zeros(3), A, [0.0, 1.0])
    with pytest.raises(ValueError, match="A must have shape"):
        kkt_solve(M, np.zeros(3), np.zeros(3), np.zeros((1, 4)), [0.0])
    with pytest.raises(ValueError, match="tau contains NaN"):
        kkt_solve(M, np.zeros(3), [np.nan, 0, 0], A, [0.0])
    # no constraints: plain forward dynamics
    ddq, lam = kkt_solve(2 * M, np.ones(3), np.zeros(3), np.zeros((0, 3)), np.zeros(0))
    np.testing.assert_allclose(ddq, -0.5 * np.ones(3))
    assert lam.shape == (0,)


def test_model_batch_equals_single():
    model = point_in_space(g=(0.0, 0.0, -9.81))
    rng = np.random.default_rng(3)
    Q = rng.normal(size=(4, 3))
    V, T = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    A = Q[:, None, :]
    dA = np.einsum("ni,ni->n", V, V)[:, None]
    ddq, lam = constrained_forward_dynamics(model, Q, V, T, A, dA)
    assert ddq.shape == (4, 3) and lam.shape == (4, 1)
    for k in range(4):
        d1, l1 = constrained_forward_dynamics(model, Q[k], V[k], T[k], A[k], dA[k])
        np.testing.assert_array_equal(ddq[k], d1)
        np.testing.assert_array_equal(lam[k], l1)
        # and the KKT solve of kkt_solve with the compiled M and h, by itself
        M = rd.mass_matrix(model, Q[k])
        h = rd.inverse_dynamics(model, Q[k], V[k], np.zeros(3))
        d2, l2 = kkt_solve(M, h, T[k], A[k], dA[k])
        np.testing.assert_allclose(d1, d2, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(l1, l2, rtol=1e-13, atol=1e-13)
    # the batch is solved at once; a state with dependent constraints is named
    A2 = np.concatenate([A, A], axis=1)  # two equal rows in every state
    A2[:2, 1] += 0.3  # independent in states 0 and 1, dependent from state 2 on
    dA2 = np.concatenate([dA, dA], axis=1)
    with pytest.raises(ValueError, match=r"rows of A are linearly dependent.* at state \[2\]$"):
        constrained_forward_dynamics(model, Q, V, T, A2, dA2)


# ------------------------------------------------------------ rd.simulate(constraints=...)
# The spherical pendulum above, through rd.simulate: q0 on the sphere, v0 tangent to it.
PENDULUM = dict(q0=[0.6, 0.0, -0.8], v0=[0.0, 2.0, 0.0], dt=2.5e-3, constraints=SPHERE)


def test_simulate_with_constraints_writes_out_as_a_run_without_them(tmp_path):
    """out= gets the finished trajectory (it wrote nothing), under the same overwrite
    policy, and a run stopped by Ctrl-C (here from the controller, during step 20) writes
    the samples it finished there."""
    model = point_in_space(g=(0.0, 0.0, -9.81))
    out = tmp_path / "run.npz"
    res = rd.simulate(model, **PENDULUM, duration=0.25, out=out)
    back = rd.Trajectory.load(out)
    assert back == res and back.constraint_force.shape == (101, 1)
    assert np.abs(np.linalg.norm(back.q, axis=1) - 1.0).max() < 1e-6  # on the sphere
    with pytest.raises(FileExistsError, match=r"out .*run\.npz.*the file exists"):
        rd.simulate(model, **PENDULUM, duration=0.1, out=out)
    assert rd.Trajectory.load(out) == res  # refused before anything was written
    short = rd.simulate(model, **PENDULUM, duration=0.1, out=out, overwrite=True)
    assert rd.Trajectory.load(out) == short and len(short) == 41

    def stop(t, q, v):  # step k's stages are at k dt, + dt / 2, + dt
        if t >= 0.051:
            raise KeyboardInterrupt
        return np.zeros(3)

    stopped = tmp_path / "stopped.npz"
    with pytest.raises(rd.SimulationInterrupted, match=f"also saved to {stopped}") as err:
        rd.simulate(model, **PENDULUM, controller=stop, duration=0.25, out=stopped)
    part = err.value.partial
    assert len(part) == 20 and np.array_equal(part.q, res.q[:20])
    assert rd.Trajectory.load(stopped) == part and part.meta["complete"] is False


def test_simulate_with_constraints_takes_or_refuses_each_setting(capsys):
    """max_memory, progress and threads act as without constraints (max_memory was
    ignored); on_divergence="mark" is refused, never silently dropped."""
    model = point_in_space(g=(0.0, 0.0, -9.81))
    # 101 samples of t, q (3), v, a, tau (3 each), lambda (1), |A v| (1): 8 * 101 * 15 bytes
    tight = r"101 samples of 14 numbers: the result would take 12\.1 kB of memory, over the limit"
    with pytest.raises(ValueError, match=tight):
        rd.simulate(model, **PENDULUM, duration=0.25, max_memory=10)
    with pytest.raises(ValueError, match="max_memory must be a positive, finite number of bytes"):
        rd.simulate(model, **PENDULUM, duration=0.25, max_memory=-1.0)
    with pytest.raises(ValueError, match="on_divergence='mark' is not supported with it"):
        rd.simulate(model, **PENDULUM, duration=0.25, on_divergence="mark")
    with pytest.raises(ValueError, match="on_divergence must be 'raise' or 'mark'"):
        rd.simulate(model, **PENDULUM, duration=0.25, on_divergence="ignore")
    with pytest.raises(ValueError, match="threads must be a positive int"):
        rd.simulate(model, **PENDULUM, duration=0.25, threads=0)
    capsys.readouterr()
    ref = rd.simulate(model, **PENDULUM, duration=0.25)
    assert "simulate point3" not in capsys.readouterr().err
    res = rd.simulate(model, **PENDULUM, duration=0.25, progress=True, threads=2)
    assert res == ref and "simulate point3" in capsys.readouterr().err
