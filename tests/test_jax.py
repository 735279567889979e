"""robodyn.jax (issue 30): the core as JAX functions with JVP rules from the analytic
derivatives.

Sources: robodyn's own values (the callbacks compute them); the analytic derivatives
mapped to q's coordinates by the chart C(q) (jax.jacfwd and jax.grad must equal them);
central finite differences of robodyn's numpy functions in q's coordinates (a model
without quaternions) and along tangent directions E(q) xi (a floating base: the
quaternion's radial direction is not a motion); C E = 1; jit and vmap against plain calls,
a vmap as one batch call of the core; the gradient of a rollout's end point through
jax.lax.scan of rdj.step against finite differences of rd.simulate.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import robodyn as rd
import robodyn.jax as rdj
from helpers import JOINT_KINDS, random_tree, rel_err

jax.config.update("jax_enable_x64", True)

H = 1e-6
FD_TOL = 1e-6


def _floating():
    return random_tree(2, 7, floating=True, kinds=JOINT_KINDS)[0]


def _state(model, seed=0):
    rng = np.random.default_rng(seed)
    q = rd.random_configuration(model, rng)
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv)


@pytest.mark.parametrize("name", ["ur5", "floating"])
def test_jacobians_equal_the_analytic_derivatives_in_coordinates(name):
    model = rd.models.load("ur5") if name == "ur5" else _floating()
    q, v, a = _state(model)
    frame = model.frame_names[-1]
    C = rdj.coordinate_to_tangent(model, q)
    Dq, Dv, Da = rd.inverse_dynamics_derivatives(model, q, v, a)
    got = jax.jacfwd(rdj.inverse_dynamics, argnums=(1, 2, 3))(model, q, v, a)
    for g, w in zip(got, (Dq @ C, Dv, Da)):
        assert rel_err(g, w) < 1e-13
    Fq, Fv, Ft = rd.forward_dynamics_derivatives(model, q, v, a)
    got = jax.jacrev(rdj.forward_dynamics, argnums=(1, 2, 3))(model, q, v, a)
    for g, w in zip(got, (Fq @ C, Fv, Ft)):
        assert rel_err(g, w) < 1e-13
    dM = rd.mass_matrix_derivative(model, q)
    assert rel_err(jax.jacfwd(rdj.mass_matrix, argnums=1)(model, q), dM @ C) < 1e-13
    Hs = rd.kinematic_hessian(model, q, frame, "body")
    got = jax.jacfwd(lambda x: rdj.jacobian(model, x, frame, "body"))(q)
    assert rel_err(got, Hs @ C) < 1e-13
    # C E = 1: a tangent to coordinates and back
    E = rdj.tangent_to_coordinate(model, q)
    np.testing.assert_allclose(C @ E, np.eye(model.nv), atol=1e-14)


@pytest.mark.parametrize("name", ["ur5", "floating"])
def test_derivatives_equal_finite_differences(name):
    """In q's coordinates for the UR5; along tangent directions E(q) xi (q moved by
    rd.integrate) on a floating tree of every joint type, for every function."""
    model = rd.models.load("ur5") if name == "ur5" else _floating()
    q, v, a = _state(model, 1)
    frame = model.frame_names[-1]
    fns = {
        "id": (lambda x: rdj.inverse_dynamics(model, x, v, a),
               lambda x: rd.inverse_dynamics(model, x, v, a)),
        "fd": (lambda x: rdj.forward_dynamics(model, x, v, a),
               lambda x: rd.forward_dynamics(model, x, v, a)),
        "M": (lambda x: rdj.mass_matrix(model, x), lambda x: rd.mass_matrix(model, x)),
        "fk": (lambda x: rdj.fk(model, x, frame), lambda x: rd.fk(model, x, frame)),
        "J": (lambda x: rdj.jacobian(model, x, frame, "world_aligned"),
              lambda x: rd.jacobian(model, x, frame, "world_aligned")),
    }  # fmt: skip
    E = rdj.tangent_to_coordinate(model, q)
    for key, (jf, nf) in fns.items():
        for k in range(model.nv):
            xi = np.eye(model.nv)[k]
            _, jvp = jax.jvp(jf, (q,), (E @ xi,))
            fd = (nf(rd.integrate(model, q, H * xi)) - nf(rd.integrate(model, q, -H * xi))) / (
                2 * H
            )
            assert rel_err(jvp, fd) < FD_TOL, (key, k, rel_err(jvp, fd))


def test_step_and_a_rollout_gradient():
    """rdj.step equals the simulator's step; the gradient of a 20-step rollout's final
    position (jax.lax.scan of rdj.step) in the torques equals differences of rd.simulate."""
    model = rd.models.load("planar_2r")
    q0, v0 = np.array([0.3, -0.2]), np.array([0.1, 0.0])
    dt, n = 0.01, 20
    taus = np.tile([1.0, -0.5], (n, 1))

    def rollout(taus):
        def body(x, tau):
            q1, v1 = rdj.step(model, x[0], x[1], tau, dt)
            return (q1, v1), None

        (qn, _), _ = jax.lax.scan(body, (jnp.asarray(q0), jnp.asarray(v0)), taus)
        return qn[0] + qn[1]

    def simulated(taus):  # step k's torque held over the step (control_dt: zero-order hold)
        def ctrl(t, q, v):
            return taus[min(int(t / dt + 1e-9), n - 1)]

        res = rd.simulate(model, q0, v0, ctrl, dt=dt, duration=n * dt, control_dt=dt)
        return res.q[-1].sum()

    assert abs(float(rollout(taus)) - simulated(taus)) < 1e-12
    g = jax.grad(rollout)(taus)
    k, j = 7, 1
    e = np.zeros_like(taus)
    e[k, j] = 1e-5
    fd = (simulated(taus + e) - simulated(taus - e)) / 2e-5
    assert abs(g[k, j] - fd) < 1e-8 * max(1.0, abs(fd))


def test_jit_and_vmap_are_one_batch_call_of_the_core(monkeypatch):
    model = random_tree(9, 5)[0]  # a model of its own: its JAX functions are made here
    calls = []
    real = rd.dynamics.inverse_dynamics

    def counted(m, q, v, a):
        calls.append(np.shape(q))
        return real(m, q, v, a)

    monkeypatch.setattr(rd.dynamics, "inverse_dynamics", counted)
    rng = np.random.default_rng(3)
    Q = rd.random_configuration(model, rng, 40)
    V, A = rng.normal(size=(40, model.nv)), rng.normal(size=(40, model.nv))
    f = jax.jit(jax.vmap(lambda q, v, a: rdj.inverse_dynamics(model, q, v, a)))
    out = f(Q, V, A)
    assert calls == [(40, model.nq)]  # the whole batch in one call
    np.testing.assert_array_equal(np.asarray(out), real(model, Q, V, A))
    G = jax.vmap(jax.grad(lambda q, v, a: jnp.sum(rdj.inverse_dynamics(model, q, v, a))))(Q, V, A)
    Dq = rd.inverse_dynamics_derivatives(model, Q, V, A)[0]
    np.testing.assert_allclose(G, Dq.sum(axis=1), rtol=1e-12, atol=1e-12)


def test_errors():
    model = rd.models.load("ur5")
    q = rd.neutral(model)
    with pytest.raises(ValueError, match="dt must be a positive finite number"):
        rdj.step(model, q, q, q, 0.0)
    with pytest.raises(ValueError, match="integrator must be one of"):
        rdj.step(model, q, q, q, 0.01, integrator="rk45")
