"""Parameter identification (issue 14): regressors against inverse dynamics and Pinocchio,
base parameters against hand derivations and an independent rank, estimation on simulated
data, bad data."""

from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin
import pytest

import robodyn as rd
from helpers import erd_path, erd_robots, load_pair, random_model, random_state, rel_err
from robodyn.errors import ModelWarning
from robodyn.ident import energy_regressor, parameters, regressor

TOL = 1e-10
# Pinocchio's 10-vector is [m, mc, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]; robodyn's rotational
# part is [Ixx, Ixy, Ixz, Iyy, Iyz, Izz]: robodyn column k is Pinocchio column PIN[k]
PIN = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]


# ------------------------------------------------------------------ the regressor
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("mimic", [False, True], ids=["plain", "mimic"])
def test_regressor_times_parameters_is_inverse_dynamics_on_random_trees(rng, floating, mimic):
    model = random_model(int(rng.integers(1 << 30)), 6, floating=floating, mimic=mimic)
    q, v, a = random_state(model, rng, 24)
    for kw in (dict(), dict(friction=False, armature=False), dict(offset=True)):
        Y = regressor(model, q, v, a, **kw)
        pi = parameters(model, **kw)
        assert Y.shape == (24, model.nv, pi.size)
        tau = rd.inverse_dynamics(
            model, q, v, a, friction=kw.get("friction", True), armature=kw.get("armature", True)
        )
        assert rel_err(Y @ pi, tau) < TOL, kw
    # batch == single, and any leading dimensions
    Y = regressor(model, q, v, a)
    for k in (0, 7, 23):
        assert rel_err(regressor(model, q[k], v[k], a[k]), Y[k]) < 1e-14  # rounding only
    Y3 = regressor(model, q.reshape(4, 6, -1), v.reshape(4, 6, -1), a.reshape(4, 6, -1))
    assert Y3.shape == (4, 6, model.nv, Y.shape[-1])
    np.testing.assert_array_equal(Y3.reshape(Y.shape), Y)


def test_regressor_on_bundled_models(rng):
    for name in rd.models.names():
        model = rd.models.load(name)
        q, v, a = random_state(model, rng, 16)
        Y = rd.regressor(model, q, v, a)
        assert rel_err(Y @ rd.parameters(model), rd.inverse_dynamics(model, q, v, a)) < TOL, name


def _pin_regressor_in_robodyn_order(model, pm, pd, mp, q, v, a):
    """Pinocchio's joint torque regressor with rows and columns in robodyn's order."""
    Yp = pin.computeJointTorqueRegressor(pm, pd, mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a))
    Yp = mp.v_from_pin(Yp.T).T  # rows (dofs) in robodyn's order; free flyer -> [w, v]
    out = np.zeros((model.nv, 10 * (model.nb - 1)))
    for j in range(1, pm.njoints):
        i = model.joint_id(pm.names[j])  # the body Pinocchio's joint j moves (same frame)
        out[:, 10 * (i - 1) : 10 * i] = Yp[:, 10 * (j - 1) : 10 * j][:, PIN]
    return out


ROBOTS = erd_robots()


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("path", [p for _, p in ROBOTS], ids=[n for n, _ in ROBOTS])
def test_regressor_matches_pinocchio_on_example_robot_data(path, floating):
    model, pm, pd, mp = load_pair(path, floating_base=floating)
    rng = np.random.default_rng(len(path) + floating)
    q, v, a = random_state(model, rng, 3)
    Y = regressor(model, q, v, a)
    Yi = regressor(model, q, v, a, friction=False, armature=False)
    pi = parameters(model)
    for k in range(3):
        tau = rd.inverse_dynamics(model, q[k], v[k], a[k])
        assert rel_err(Y[k] @ pi, tau) < TOL
        want = _pin_regressor_in_robodyn_order(model, pm, pd, mp, q[k], v[k], a[k])
        assert rel_err(Yi[k], want) < TOL


def test_energy_regressor_is_the_mechanical_energy(rng):
    for floating in (False, True):
        model = random_model(int(rng.integers(1 << 30)), 5, floating=floating, mimic=True)
        q, v, _ = random_state(model, rng, 20)
        e = energy_regressor(model, q, v)
        H = rd.kinetic_energy(model, q, v) + rd.potential_energy(model, q)
        assert rel_err(e @ parameters(model), H) < TOL
        assert rel_err(energy_regressor(model, q[3], v[3]), e[3]) < 1e-14


def test_energy_regressor_rate_is_power_without_friction(rng):
    """dH/dt = v . (tau - friction) along a motion (the energy theorem): central differences
    of e(q(t), v(t)) pi against v . Y_nofriction pi."""
    model = random_model(int(rng.integers(1 << 30)), 4)
    q0, v0, a0 = random_state(model, rng)
    h = 1e-5

    def state(t):
        return rd.integrate(model, q0, v0 * t + 0.5 * a0 * t * t), v0 + a0 * t

    pi = parameters(model)
    dH = (energy_regressor(model, *state(h)) - energy_regressor(model, *state(-h))) @ pi / (2 * h)
    power = v0 @ rd.inverse_dynamics(model, q0, v0, a0, friction=False)
    assert abs(dH - power) < 1e-6 * max(1.0, abs(power))


def test_with_parameters_round_trip(rng):
    model = random_model(int(rng.integers(1 << 30)), 5, floating=True, mimic=True)
    pi = parameters(model)
    np.testing.assert_allclose(parameters(model.with_parameters(pi)), pi, rtol=1e-12, atol=1e-14)
    # a different physical model: scale the masses and inertias, new friction
    pi2 = pi.copy()
    pi2[: 10 * (model.nb - 1)] *= 1.7
    pi2[10 * (model.nb - 1) :] = rng.uniform(0.1, 1.0, pi.size - 10 * (model.nb - 1))
    m2 = model.with_parameters(pi2)
    np.testing.assert_allclose(m2.body_mass[1:], 1.7 * model.body_mass[1:], rtol=1e-14)
    q, v, a = random_state(model, rng, 8)
    assert rel_err(regressor(model, q, v, a) @ pi2, rd.inverse_dynamics(m2, q, v, a)) < TOL
    # non-physical values are kept (dynamics stay linear in them) with a warning
    pi3 = pi.copy()
    pi3[0] = -1.0
    with pytest.warns(ModelWarning, match="mass -1"):
        m3 = model.with_parameters(pi3)
    assert rel_err(regressor(model, q, v, a) @ pi3, rd.inverse_dynamics(m3, q, v, a)) < TOL
    with pytest.raises(ValueError, match=r"pi must have shape \(\d+,\)"):
        model.with_parameters(pi[:-1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.with_parameters(pi)  # physical: no warning


def test_regressor_bad_input_names_the_argument():
    model = rd.models.load("ur5")
    q = np.zeros(6)
    with pytest.raises(ValueError, match=r"v must have shape \(\.\.\., 6\)"):
        regressor(model, q, np.zeros(5), q)
    bad = np.zeros((3, 6))
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="a has NaN or inf in state 1"):
        regressor(model, np.full((3, 6), 0.1), np.zeros((3, 6)), bad)
