"""The controllers' one argument order (the model first, then the target, then the gains),
the former order kept working with a warning, and bad arguments named.

Oracles: the torques written out from MR eq. 11.27 (PD), 11.31 (PID) and 11.35 (computed
torque) with numpy and Pinocchio's RNEA (which parses the URDF itself)."""

import numpy as np
import pytest

import robodyn as rd


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("planar_2r")


def test_pd_is_mr_11_27_with_gravity_from_pinocchio():
    import pinocchio as pin

    from helpers import erd_path

    path = erd_path("ur_description/urdf/ur5_robot")
    model = rd.load_urdf(path)
    pm = pin.buildModelFromUrdf(path)
    q, v = np.array([0.3, -1.1, 1.4, -0.4, 0.9, 0.2]), np.linspace(-0.5, 0.5, 6)
    q_d = q + 0.1
    kp, kd = np.arange(1.0, 7.0) * 30, np.arange(1.0, 7.0) * 3
    g = pin.computeGeneralizedGravity(pm, pm.createData(), q)
    ctrl = rd.control.PD(model, q_d, kp, kd, gravity_compensation=True)
    np.testing.assert_allclose(ctrl(0.0, q, v), kp * (q_d - q) - kd * v + g, rtol=0, atol=1e-12)
    plain = rd.control.PD(model, q_d, kp, kd)
    np.testing.assert_allclose(plain(0.0, q, v), kp * (q_d - q) - kd * v, rtol=0, atol=1e-12)


def test_the_former_order_without_a_model_on_a_floating_base_is_refused_clearly():
    """PD(kp, kd, target=...) (deprecated, no model) on a floating base: q has nq entries,
    v nv, and q_d (-) q needs the model. A vector gain whose size is not the target's is
    refused at construction, a scalar gain at the first call, and rd.simulate stops with
    that message (not numpy's broadcast error). Given the model, the same PD runs: its
    error is the configuration difference (the model layer's numpy difference)."""
    from helpers import random_tree
    from robodyn.errors import SimulationError
    from robodyn.model.configuration import difference as numpy_difference

    model = random_tree(3, 4, floating=True)[0]
    nq, nv = model.nq, model.nv
    rng = np.random.default_rng(3)
    q, q_d = rd.random_configuration(model, rng, size=2)
    v = rng.normal(size=nv)
    no_model = r"^PD has no model \(built gains first, PD\(kp, kd, target=\.\.\.\).*"
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(ValueError, match=no_model + rf"target has {nq} entries but kp {nv}"),
    ):
        rd.control.PD(np.full(nv, 50.0), 5.0, target=q_d)
    with pytest.warns(DeprecationWarning):
        pd = rd.control.PD(50.0, 5.0, target=q_d)
        pid = rd.control.PID(50.0, np.ones(nv), 5.0, q_d)  # a vector ki: PID knows nv
    sizes = rf"q has {nq} entries and v {nv}.*give it first: PD\(model, target, kp, kd\)$"
    with pytest.raises(ValueError, match=no_model + sizes):
        pd(0.0, q, v)
    with pytest.raises(ValueError, match=r"^PID has no model .* PID\(model, target, kp, kd\)$"):
        pid(0.0, q, v, np.zeros(nv))
    with pytest.raises(SimulationError, match=r"the controller 'pd' raised ValueError: PD has no"):
        rd.simulate(model, q, v, controller=pd, duration=0.01, dt=1e-3)
    good = rd.control.PD(model, q_d, 50.0, 5.0)
    want = 50.0 * numpy_difference(model, q, q_d) - 5.0 * v
    np.testing.assert_allclose(good(0.0, q, v), want, rtol=0, atol=1e-12)
    assert rd.simulate(model, q, v, controller=good, duration=0.01, dt=1e-3).q.shape == (11, nq)


def test_the_former_order_gives_the_same_torques_and_warns(arm):
    q, v, q_d = np.array([0.2, -0.3]), np.array([0.5, 0.1]), np.array([0.7, 0.4])
    new = rd.control.PD(arm, q_d, 50.0, 8.0, gravity_compensation=True)
    with pytest.warns(DeprecationWarning, match=r"PD\(model, target, kp, kd, \.\.\.\)"):
        old = rd.control.PD(50.0, 8.0, target=q_d, gravity_compensation=arm)
    np.testing.assert_array_equal(old(0.0, q, v), new(0.0, q, v))
    with pytest.warns(DeprecationWarning):
        old_pid = rd.control.PID(50.0, 20.0, 8.0, q_d, model=arm)
    new_pid = rd.control.PID(arm, q_d, 50.0, 20.0, 8.0)
    z = np.array([0.1, -0.2])
    for a, b in zip(old_pid(0.0, q, v, z), new_pid(0.0, q, v, z)):
        np.testing.assert_array_equal(a, b)
    # MR 11.31: tau = Kp e + Ki z + Kd e_dot, dz = e
    tau, dz = new_pid(0.0, q, v, z)
    np.testing.assert_allclose(tau, 50.0 * (q_d - q) + 20.0 * z - 8.0 * v, atol=1e-15)
    np.testing.assert_array_equal(dz, q_d - q)
    # keywords alone (no positional gain) bind the same in both orders: no warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kw = rd.control.PD(model=arm, target=q_d, kp=50.0, kd=8.0, gravity_compensation=True)
    np.testing.assert_array_equal(kw(0.0, q, v), new(0.0, q, v))


def test_default_gains_give_every_joint_the_same_response(arm):
    q_d = np.array([0.7, 0.4])
    kp, kd = rd.control.gains_for(arm, 1.0, 10.0, q=q_d)
    pd = rd.control.PD(arm, q_d)
    np.testing.assert_array_equal(pd.kp, kp)
    np.testing.assert_array_equal(pd.kd, kd)
    M = rd.mass_matrix(arm, q_d)  # the 2R arm: M_11 = 1.9325 - ... at q2 = 0.4
    np.testing.assert_allclose(pd.kp, 100.0 * np.diag(M), rtol=1e-15)
    pid = rd.control.PID(arm, q_d)
    np.testing.assert_array_equal(pid.ki, kp * 10.0 / 5.0)  # ki = kp omega_n / 5
    # each joint's m s^3 + kd s^2 + kp s + ki (m = M_jj): s = omega_n times the roots of
    # s^3 + 2 s^2 + s + 1/5: a real pole and a pair of damping ratio 0.81, all stable
    for j in range(2):
        roots = np.roots([M[j, j], pid.kd[j], pid.kp[j], pid.ki[j]]) / 10.0
        np.testing.assert_allclose(sorted(roots.real), [-1.3806, -0.3097, -0.3097], atol=1e-4)
        pair = roots[np.abs(roots.imag) > 0][0]
        assert -pair.real / abs(pair) == pytest.approx(0.8136, abs=1e-4)
    ct = rd.control.ComputedTorque(arm, q_d)  # M cancels: 10 rad/s, critically damped
    assert (ct.kp, ct.kd) == (100.0, 20.0)


def test_bad_arguments_name_themselves(arm):
    with pytest.raises(ValueError, match="gravity_compensation=True needs the model"):
        with pytest.warns(DeprecationWarning):
            rd.control.PD(100.0, 20.0, target=[0.0, 0.0], gravity_compensation=True)
    with pytest.raises(ValueError, match="gravity_compensation must be True, False or a Model"):
        rd.control.PD(arm, [0.0, 0.0], gravity_compensation="yes")
    with pytest.raises(ValueError, match=r"kp must have 2 entries \(nv\), got shape \(3,\)"):
        rd.control.PD(arm, [0.0, 0.0], [1.0, 2.0, 3.0], 1.0)
    with pytest.raises(ValueError, match="kd contains NaN"):
        rd.control.PD(arm, [0.0, 0.0], 1.0, np.nan)
    with pytest.raises(ValueError, match=r"target must be a configuration \(nq,\)"):
        rd.control.PD(arm, [[0.0, 0.0]], 1.0, 1.0)
    with pytest.raises(ValueError, match="target contains NaN or inf"):
        rd.control.PD(arm, [np.nan, 0.0], 1.0, 1.0)
    with pytest.raises(ValueError, match=r"PD needs kp and kd, or the model"):
        rd.control.PD(target=[0.0, 0.0])
