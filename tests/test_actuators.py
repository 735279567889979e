"""Actuators (MR sec. 8.9; issue 31): model.with_actuators and clip_torque's torque-speed
limit.

Oracles: Pinocchio (which parses the URDF itself) with its own ``armature`` set to the
reflected inertia G^2 I_rotor, which its CRBA adds to M's diagonal and its RNEA to the
torque; the rotor's kinetic energy 1/2 I_rotor (G v)^2 added to the links' (a physical
identity); the gearhead's relations typed from MR sec. 8.9.1 (tau = eta G tau_m,
omega_motor = G v) and the speed-torque line tau_m <= tau_stall (1 - omega_motor /
omega_0); for clip_torque, the same run with the limit applied by a hand-written
controller.
"""

import numpy as np
import pytest

import robodyn as rd
from helpers import erd_path, load_pair
from robodyn.model.fingerprint import model_fingerprint

G = np.array([100.0, 100.0, 80.0, 60.0, 60.0, 40.0])  # UR5-like reductions
I_ROTOR = np.array([3e-5, 3e-5, 2e-5, 1e-5, 1e-5, 8e-6])  # kg m^2
ETA = np.array([0.9, 0.9, 0.85, 0.85, 0.8, 0.8])


@pytest.fixture(scope="module")
def pair():
    """The example-robot-data UR5 in robodyn and Pinocchio, and the actuated robodyn model."""
    model, pm, pdata, pmap = load_pair(erd_path("ur_description/urdf/ur5_robot"))
    return model, model.with_actuators(G, I_ROTOR, efficiency=ETA), pm, pmap


def _pin_with_armature(pm, armature):
    import pinocchio as pin

    pa = pin.Model(pm)
    pa.armature = np.asarray(armature, dtype=float)
    return pa, pa.createData()


def test_the_mass_matrix_gains_the_reflected_rotor_inertia(pair, rng):
    import pinocchio as pin

    model, act, pm, pmap = pair
    pa, pd = _pin_with_armature(pm, G**2 * I_ROTOR)
    for q in rd.random_configuration(model, rng, size=4):
        M = pmap.matrix_from_pin(pin.crba(pa, pd, pmap.q_to_pin(q)))
        M = np.triu(M) + np.triu(M, 1).T  # (Pinocchio fills the upper triangle)
        np.testing.assert_allclose(rd.mass_matrix(act, q), M, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rd.mass_matrix(act, q) - rd.mass_matrix(model, q),
                                   np.diag(G**2 * I_ROTOR), rtol=0, atol=1e-13)  # fmt: skip
    np.testing.assert_allclose(act.actuators.reflected_inertia, G**2 * I_ROTOR, rtol=1e-15)
    np.testing.assert_array_equal(model.dof_armature, 0.0)  # the model itself is unchanged
    assert model.actuators is None


def test_inverse_dynamics_in_motor_torques(pair, rng):
    """tau_m = tau / (eta G) with tau Pinocchio's RNEA with the rotors' armature; forward
    dynamics of the motors' joint torques gives the acceleration back; the rotors' kinetic
    energy is 1/2 I_rotor (G v)^2 on top of the links'."""
    import pinocchio as pin

    model, act, pm, pmap = pair
    pa, pd = _pin_with_armature(pm, G**2 * I_ROTOR)
    for q in rd.random_configuration(model, rng, size=3):
        v, a = rng.normal(size=6), rng.normal(size=6)
        tau_pin = pmap.v_from_pin(pin.rnea(pa, pd, *pmap.q_to_pin(q)[None], pmap.v_to_pin(v),
                                           pmap.v_to_pin(a)))  # fmt: skip
        tau_m = act.actuators.motor_torque(rd.inverse_dynamics(act, q, v, a, friction=False))
        np.testing.assert_allclose(tau_m, tau_pin / (ETA * G), rtol=1e-12, atol=1e-12)
        back = rd.forward_dynamics(act, q, v, act.actuators.joint_torque(tau_m), friction=False)
        np.testing.assert_allclose(back, a, atol=1e-9)
        rotor = 0.5 * np.sum(I_ROTOR * (G * v) ** 2)
        assert rd.kinetic_energy(act, q, v) == pytest.approx(
            rd.kinetic_energy(model, q, v) + rotor, rel=1e-13
        )
    np.testing.assert_allclose(act.actuators.motor_speed(np.ones(6)), G, rtol=1e-15)
    np.testing.assert_allclose(act.actuators.joint_torque(np.ones(6)), ETA * G, rtol=1e-15)


def _motor_limit(v, G, eta, stall, w0):
    """MR sec. 8.9.1's speed-torque line through the gearhead, typed here."""
    return eta * G * stall * np.maximum(0.0, 1.0 - np.abs(G * v) / w0)


def test_clip_torque_follows_the_motors_torque_speed_line():
    """A geared pendulum driven by a stiff PD toward a far target: clip_torque=True keeps
    every sample's torque within eta G tau_stall (1 - |G v| / omega_0) at its speed, the
    limit binds while it swings, and the run equals one whose controller clips itself."""
    pend = rd.models.load("pendulum")
    g, eta, stall, w0 = 50.0, 0.9, 0.3, 250.0  # the joint: 13.5 N m at rest, 0 at 5 rad/s
    act = pend.with_actuators(g, 2e-5, efficiency=eta, stall_torque=stall, free_speed=w0)
    assert act.effort_limit[0] == pytest.approx(eta * g * stall) and act.v_limit[0] == 5.0
    pd = rd.control.PD(act, [3.0], 400.0, 2.0)
    res = rd.simulate(act, [0.0], controller=pd, duration=3.0, dt=1e-3, clip_torque=True)
    lim = _motor_limit(res.v[:, 0], g, eta, stall, w0)
    assert np.all(np.abs(res.tau[:, 0]) <= lim + 1e-12)
    binding = np.isclose(np.abs(res.tau[:, 0]), lim, rtol=1e-12)
    assert binding.mean() > 0.3 and lim[binding].min() < 0.5 * lim.max()  # it fell with speed
    assert np.abs(res.v).max() < 5.0

    def clipped(t, q, v):
        top = _motor_limit(v, g, eta, stall, w0)
        return np.clip(pd(t, q, v), -top, top)

    by_hand = rd.simulate(act, [0.0], controller=clipped, duration=3.0, dt=1e-3)
    np.testing.assert_allclose(res.q, by_hand.q, rtol=0, atol=1e-13)
    np.testing.assert_allclose(res.tau, by_hand.tau, rtol=0, atol=1e-12)


def test_a_floating_base_has_no_motor_and_a_second_call_replaces_the_first():
    from helpers import random_tree

    model = random_tree(3, 4, floating=True)[0]
    act = model.with_actuators(10.0, 1e-3, stall_torque=2.0)
    free = slice(0, 6)
    np.testing.assert_array_equal(act.actuators.gear_ratio[free], 1.0)
    np.testing.assert_array_equal(act.dof_armature[free], model.dof_armature[free])
    np.testing.assert_allclose(act.dof_armature[6:], model.dof_armature[6:] + 0.1, rtol=1e-15)
    assert np.all(np.isinf(act.effort_limit[free])) and np.all(act.effort_limit[6:] == 20.0)
    again = act.with_actuators(20.0, 1e-3)
    np.testing.assert_allclose(again.dof_armature[6:], model.dof_armature[6:] + 0.4, rtol=1e-14)
    fps = {model_fingerprint(m) for m in (model, act, again)}
    assert len(fps) == 3


def test_bad_actuator_arguments_are_named():
    arm = rd.models.load("planar_2r")
    for kwargs, what in (
        ({"gear_ratio": 0.0}, r"gear_ratio must be finite and > 0; dof 0 has 0\.0"),
        ({"gear_ratio": [5.0, -2.0]}, r"gear_ratio must be finite and > 0; dof 1 has -2\.0"),
        ({"gear_ratio": [5.0, 5.0, 5.0]}, r"gear_ratio must be a scalar or have shape \(2,\)"),
        ({"gear_ratio": np.nan}, r"gear_ratio must be finite and > 0"),
        ({"gear_ratio": 5.0, "rotor_inertia": -1e-5}, r"rotor_inertia must be finite and >= 0"),
        ({"gear_ratio": 5.0, "efficiency": 1.2}, r"efficiency must be in \(0, 1\]"),
        ({"gear_ratio": 5.0, "stall_torque": 0.0}, r"stall_torque must be finite and > 0"),
        ({"gear_ratio": 5.0, "free_speed": 10.0}, r"free_speed needs stall_torque"),
    ):
        with pytest.raises(ValueError, match=what):
            arm.with_actuators(**kwargs)
    act = arm.with_actuators(5.0)
    with pytest.raises(ValueError, match=r"tau must have shape \(\.\.\., 2\) \(nv\), got \(3,\)"):
        act.actuators.motor_torque(np.ones(3))
