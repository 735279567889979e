"""The stable step of a controlled robot (rd.sim.stable_step) against the closed forms of
the integrators' stability regions, and against simulations on both sides of it.

Oracles: a single joint of inertia m under PD, ``m e_dd + kd e_d + kp e = 0``, has the poles
``lambda = -zeta w +- w sqrt(zeta^2 - 1)`` (w^2 = kp/m). A one-step method whose step
matrix is R(h A) is stable while |R(h lambda)| <= 1 (Hairer & Wanner, Solving ODEs II,
sec. IV.2):

* explicit Euler, R = 1 + z: [-2, 0] on the real axis, only 0 on the imaginary one;
* RK4, R = 1 + z + z^2/2 + z^3/6 + z^4/24: the real root of z^3 + 4 z^2 + 12 z + 24 = 0,
  z = -2.785293563405282, on the real axis, and 2 sqrt(2) on the imaginary one;
* semi-implicit (symplectic) Euler on an undamped oscillator: w h < 2.
"""

import dataclasses

import numpy as np
import pytest

import robodyn as rd

RK4_REAL = 2.785293563405282  # |z| where RK4's region meets the negative real axis
RK4_IMAG = 2.0 * np.sqrt(2.0)  # ... and the imaginary axis
W = 20.0  # rad/s


@pytest.fixture(scope="module")
def joint():
    """The bundled pendulum (one revolute joint, inertia 1 kg m^2 about it), gravity off:
    the linear system the module's docstring solves in closed form."""
    m = rd.models.load("pendulum")
    assert np.isclose(rd.mass_matrix(m, [0.3])[0, 0], 1.0)
    return dataclasses.replace(m, gravity=np.zeros(3))


@pytest.mark.parametrize(
    "kd, integrator, h_max",
    [
        (2 * W, "rk4", RK4_REAL / W),  # critically damped: a double pole at -w
        (2 * W, "euler", 2.0 / W),
        (0.0, "rk4", RK4_IMAG / W),  # undamped: poles +-i w
        (0.0, "semi_implicit_euler", 2.0 / W),
        (0.0, "euler", 0.0),  # explicit Euler grows an undamped oscillation at any step
    ],
)
def test_the_stable_step_is_the_closed_form(joint, kd, integrator, h_max):
    ctrl = rd.control.PD(joint, [0.0], W**2, kd)
    check = rd.sim.stable_step(joint, ctrl, [0.0], integrator)
    assert check.joint == joint.joint_names[0] and check.integrator == integrator
    assert check.rate == pytest.approx(W, rel=1e-6)
    if h_max:
        assert check.h_max == pytest.approx(h_max, rel=1e-8)
    else:
        assert check.h_max * check.rate < 1e-3 and "unstable at any step" in check.advice(1e-3)


def test_the_joint_damping_alone_bounds_the_step(joint):
    """No controller: the URDF's damping b on inertia m is the pole -b/m."""
    damped = dataclasses.replace(joint, dof_damping=np.array([50.0]))
    check = rd.sim.stable_step(damped, None, [0.0], "rk4")
    assert check.h_max == pytest.approx(RK4_REAL / 50.0, rel=1e-8)
    assert rd.sim.stable_step(damped, None, [0.0], "rk4", friction=False).h_max == np.inf
    assert rd.sim.stable_step(damped, None, [0.0], "rk45") is None  # adaptive: not checked


@pytest.mark.parametrize("integrator", ["rk4", "euler"])
def test_a_run_just_inside_the_stable_step_stays_bounded_and_just_outside_diverges(
    joint, integrator
):
    ctrl = rd.control.PD(joint, [0.0], W**2, 2 * W)
    h = rd.sim.stable_step(joint, ctrl, [1.0], integrator).h_max
    inside = rd.simulate(joint, [1.0], controller=ctrl, duration=400 * h * 0.9, dt=h * 0.9,
                         integrator=integrator)  # fmt: skip
    assert np.abs(inside.q[-1, 0]) < 1e-3  # decays
    with pytest.warns(rd.SimulationWarning, match=r"dt = [\d.e-]+ s is beyond the stable step"):
        with pytest.raises(rd.SimulationError, match="diverged"):
            rd.simulate(joint, [1.0], controller=ctrl, duration=4000 * h * 1.1, dt=h * 1.1,
                        integrator=integrator)  # fmt: skip


def test_coupled_joints_are_checked_together():
    """The Panda with the same gains on every joint (kp 100, kd 20): the wrist's
    0.005 kg m^2 makes kd/m = 4000 1/s, beyond RK4 at 1 ms; the mode found is the eigenvalue
    of the coupled system [[0, 1], [-M^-1 K, -M^-1 D]], computed here with numpy."""
    model = rd.models.load("panda")
    q = rd.neutral(model)
    ctrl = rd.control.PD(model, q, 100.0, 20.0)
    check = rd.sim.stable_step(model, ctrl, q)
    n, M = model.nv, rd.mass_matrix(model, q)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-100.0 * np.linalg.inv(M),
                                                  -20.0 * np.linalg.inv(M)]])  # fmt: skip
    lam = np.linalg.eigvals(A)
    worst = lam[np.argmax(np.abs(lam))]
    assert check.rate == pytest.approx(abs(worst), rel=1e-9)
    if abs(worst.imag) < 1e-9:  # a real pole: the real-axis limit
        assert check.h_max == pytest.approx(RK4_REAL / abs(worst), rel=1e-6)
    assert check.joint == "joint7" and not check.stable(1e-3)
    assert rd.sim.nice_step(check.h_max) in (1e-4, 2e-4)  # 1, 2, 5 x 10^k below h_max / 2


def test_gains_for_is_each_joints_inertia_times_the_asked_response():
    """kp_j = M_jj w^2, kd_j = 2 zeta w M_jj, with M from Pinocchio's CRBA of the URDF."""
    import pinocchio as pin

    from helpers import erd_path

    path = erd_path("ur_description/urdf/ur5_robot")
    model = rd.load_urdf(path)
    pm = pin.buildModelFromUrdf(path)
    q = np.array([0.3, -1.1, 1.4, -0.4, 0.9, 0.2])
    M = pin.crba(pm, pm.createData(), q)
    kp, kd = rd.control.gains_for(model, 0.7, 12.0, q=q)
    np.testing.assert_allclose(kp, 144.0 * np.diag(M), rtol=1e-12)
    np.testing.assert_allclose(kd, 2 * 0.7 * 12.0 * np.diag(M), rtol=1e-12)
    # each joint alone (the others held) has the asked damping ratio and frequency
    np.testing.assert_allclose(kd / (2 * np.sqrt(kp * np.diag(M))), 0.7, rtol=1e-12)
    with pytest.raises(ValueError, match="omega_n must be a finite number > 0"):
        rd.control.gains_for(model, 1.0, -1.0)
    with pytest.raises(ValueError, match="zeta must be a finite number >= 0"):
        rd.control.gains_for(model, np.nan, 10.0)


def test_step_for_lowers_the_default_step_only_when_it_must():
    """xArm7's URDF damps joint 7 with 2 N m s/rad on ~1.4e-4 kg m^2 (a ~70 us time
    constant): 1 ms diverges with or without a controller; step_for's step does not."""
    from helpers import erd_path

    model = rd.load_urdf(erd_path("xarm_description/urdf/xarm7"))
    q = rd.neutral(model)
    assert rd.sim.step_for(model, None, q) != (1e-3, None)
    dt, why = rd.sim.step_for(model, None, q)
    check = rd.sim.stable_step(model, None, q)
    assert dt <= check.h_max / 2 and "joint7" in why
    rd.simulate(model, q, duration=0.1, dt=dt)  # runs
    with pytest.warns(rd.SimulationWarning), pytest.raises(rd.SimulationError, match="diverged"):
        rd.simulate(model, q, duration=0.1, dt=1e-3)
    ur5 = rd.models.load("ur5")
    assert rd.sim.step_for(ur5, rd.control.PD(ur5, rd.neutral(ur5)), rd.neutral(ur5)) == (
        1e-3,
        None,
    )
