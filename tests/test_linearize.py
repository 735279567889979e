"""rd.linearize (issue 30): the state-space matrices of the dynamics about a state.

Sources: the pendulum's closed form (a point mass m at distance l: A = [[0, 1], [-g/l cos
q, 0]], B = [[0], [1/(m l^2)]]); central finite differences of one step of rd.simulate
(the simulator itself, each integrator, q moved and compared through rd.integrate and
rd.difference) on the UR5 and on trees of every joint type on a floating base; the
continuous matrices as the limit of the discrete ones, (A_dt - 1)/dt -> A (Richardson);
the batch against the single-state calls.
"""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from helpers import JOINT_KINDS, random_tree, rel_err

EPS = 1e-6  # finite-difference step on the inputs
#: measured <= 4e-10 (absolute, entries of order 1-10) on the models below
FD_TOL = 2e-8


def _one_step(model, q, v, tau, dt, integrator):
    """(q_1, v_1) after one step of rd.simulate under the constant torque tau."""
    res = rd.simulate(model, q, v, controller=lambda t, q_, v_: tau, duration=dt, dt=dt,
                      integrator=integrator)  # fmt: skip
    return res.q[-1], res.v[-1]


def _fd_matrices(model, q, v, tau, dt, integrator):
    """(A, B) by central differences of one simulated step, dq through integrate and the
    result compared with difference (the tangent at q_1)."""
    nv = model.nv
    q1, v1 = _one_step(model, q, v, tau, dt, integrator)

    def dx(qv):
        return np.concatenate([rd.difference(model, q1, qv[0]), qv[1] - v1])

    cols = []
    for which in ("q", "v", "tau"):
        for j in range(nv):
            e = np.zeros(nv)
            e[j] = EPS
            if which == "q":
                p, m = rd.integrate(model, q, e), rd.integrate(model, q, -e)
                fp, fm = _one_step(model, p, v, tau, dt, integrator), _one_step(
                    model, m, v, tau, dt, integrator)  # fmt: skip
            elif which == "v":
                fp = _one_step(model, q, v + e, tau, dt, integrator)
                fm = _one_step(model, q, v - e, tau, dt, integrator)
            else:
                fp = _one_step(model, q, v, tau + e, dt, integrator)
                fm = _one_step(model, q, v, tau - e, dt, integrator)
            cols.append((dx(fp) - dx(fm)) / (2 * EPS))
    J = np.stack(cols, axis=1)
    return J[:, : 2 * nv], J[:, 2 * nv :]


def _models():
    yield "ur5", rd.models.load("ur5")
    for seed in range(2):  # every joint type, floating: free, spherical, planar, universal...
        yield f"tree{seed}", random_tree(seed, 9, floating=True, kinds=JOINT_KINDS)[0]


MODELS = list(_models())
IDS = [name for name, _ in MODELS]


@pytest.mark.parametrize("integrator", ["rk4", "euler", "semi_implicit_euler"])
@pytest.mark.parametrize(
    "name,model", list(_models()), ids=lambda x: x if isinstance(x, str) else ""
)
def test_discrete_matrices_equal_differences_of_one_simulated_step(name, model, integrator):
    rng = np.random.default_rng(3)
    q = rd.random_configuration(model, rng)
    v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    A, B = rd.linearize(model, q, v, tau, dt=0.02, integrator=integrator)
    A_fd, B_fd = _fd_matrices(model, q, v, tau, 0.02, integrator)
    assert np.abs(A - A_fd).max() < FD_TOL, np.abs(A - A_fd).max()
    assert np.abs(B - B_fd).max() < FD_TOL, np.abs(B - B_fd).max()


@pytest.mark.parametrize(
    "name,model", list(_models()), ids=lambda x: x if isinstance(x, str) else ""
)
def test_continuous_matrices_are_the_limit_of_the_steps(name, model):
    """(A_h - 1)/h = A + O(h) for every integrator: Richardson's 2 D(h/2) - D(h) removes
    the O(h) term."""
    rng = np.random.default_rng(4)
    q = rd.random_configuration(model, rng)
    v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    A, B = rd.linearize(model, q, v, tau)
    n = 2 * model.nv
    h = 1e-4  # the O(h^2) left is ~1e-8 |A|^3; rounding ~1e-16 / h
    for integrator in ("euler", "rk4"):
        Ah, Bh = rd.linearize(model, q, v, tau, dt=h, integrator=integrator)
        Ah2, Bh2 = rd.linearize(model, q, v, tau, dt=h / 2, integrator=integrator)
        A_lim = 2 * (Ah2 - np.eye(n)) / (h / 2) - (Ah - np.eye(n)) / h
        B_lim = 2 * Bh2 / (h / 2) - Bh / h
        assert rel_err(A_lim, A) < 1e-5 and rel_err(B_lim, B) < 1e-5, integrator


def test_pendulum_closed_form():
    """The bundled pendulum: 1 kg at l = 1 m below its z axis, gravity 9.81 along -y; at
    angle q, g(q) = m g l sin q, so a = (tau - m g l sin q) / (m l^2)."""
    pend = rd.models.load("pendulum")
    for q0 in (0.0, 0.7, np.pi):
        A, B = rd.linearize(pend, [q0], [0.0], [0.0])
        np.testing.assert_allclose(A, [[0.0, 1.0], [-9.81 * np.cos(q0), 0.0]], atol=1e-12)
        np.testing.assert_allclose(B, [[0.0], [1.0]], atol=1e-12)


def test_a_free_body_turning_has_minus_ad_v_in_its_chart():
    """A free rigid body: d/dt dq = dv - [ad_{v_0}] dq (the chart moves with the body)."""
    body = rd.inertia.box(mass=2.0, size=(0.3, 0.2, 0.1))
    model = rd.ModelBuilder(name="body").add_body("b", "world", joint_type="free",
                                                  inertia=body).build()  # fmt: skip
    assert model.nv == 6
    v0 = np.array([0.3, -0.2, 0.5, 0.1, 0.4, -0.6])
    A, _ = rd.linearize(model, rd.neutral(model), v0, np.zeros(6))
    np.testing.assert_allclose(A[:6, :6], -rd.ad(v0), atol=1e-15)
    np.testing.assert_array_equal(A[:6, 6:], np.eye(6))


def test_batch_equals_single_states():
    model = rd.models.load("panda")
    rng = np.random.default_rng(5)
    Q = rd.random_configuration(model, rng, 5)
    V, T = rng.normal(size=(5, model.nv)), rng.normal(size=(5, model.nv))
    for dt in (None, 0.01):
        A, B = rd.linearize(model, Q, V, T, dt=dt)
        assert A.shape == (5, 14, 14) and B.shape == (5, 14, 7)
        for k in range(5):
            A1, B1 = rd.linearize(model, Q[k], V[k], T[k], dt=dt)
            np.testing.assert_allclose(A[k], A1, rtol=0, atol=1e-13)
            np.testing.assert_allclose(B[k], B1, rtol=0, atol=1e-13)


def test_bad_arguments_are_named():
    model = rd.models.load("ur5")
    z = np.zeros(6)
    with pytest.raises(ValueError, match="dt must be a positive finite number"):
        rd.linearize(model, z, z, z, dt=-0.1)
    with pytest.raises(ValueError, match="integrator must be one of"):
        rd.linearize(model, z, z, z, dt=0.1, integrator="rk45")
    with pytest.raises(ValueError, match=r"tau must have shape \(\.\.\., 6\), got \(5,\)"):
        rd.linearize(model, z, z, np.zeros(5))
    with pytest.raises(ValueError, match="q contains NaN"):
        rd.linearize(model, np.full(6, np.nan), z, z)
