"""Course notes 000 (lecture notes on open-chain dynamics), worked: the 2R arm with point
masses at the link tips (L1, L2, m1, m2; theta2 relative to link 1; gravity along -y).

The notes' closed forms are typed in below: M, c and g of their final torque expressions,
the mass-2 accelerations of the centripetal and Coriolis cases at theta = (0, pi/2), the
torque ellipses of M for the unit arm and tau + J^T F_tip. Their errata (fixed here and
in docs/course-errata.md): the printed xdot2, ydot2 and K2 treat theta2 as absolute (link
2 turns at theta1dot + theta2dot), and the decomposition at theta = (0, pi/2) adds the
Coriolis term -2 L2 theta1dot theta2dot to -L2 (theta1dot + theta2dot)^2, which already
contains it.
"""

from __future__ import annotations

import dataclasses
from math import cos, sin

import numpy as np
import pytest

import robodyn as rd
from helpers import point_mass_2r

M1, M2, L1, L2, G = 1.3, 0.7, 0.9, 0.6, 9.81


def notes_M(th):
    c2 = cos(th[1])
    a = M1 * L1**2 + M2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2)
    b = M2 * (L2**2 + L1 * L2 * c2)
    return np.array([[a, b], [b, M2 * L2**2]])


def notes_c(th, thd):
    s2 = sin(th[1])
    return np.array([
        -M2 * L1 * L2 * s2 * (2 * thd[0] * thd[1] + thd[1] ** 2),
        M2 * L1 * L2 * s2 * thd[0] ** 2,
    ])  # fmt: skip


def notes_g(th):
    c1, c12 = cos(th[0]), cos(th[0] + th[1])
    return np.array([(M1 * L1 + M2 * L1) * G * c1 + M2 * L2 * G * c12, M2 * L2 * G * c12])


@pytest.fixture(scope="module")
def arm():
    return point_mass_2r(M1, M2, L1, L2, G)


def test_the_notes_equations_of_motion(arm, rng):
    for _ in range(5):
        th, thd, thdd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2), rng.normal(size=2)
        assert np.allclose(rd.mass_matrix(arm, th), notes_M(th), atol=1e-14)
        assert np.allclose(rd.velocity_forces(arm, th, thd), notes_c(th, thd), atol=1e-13)
        assert np.allclose(rd.gravity_forces(arm, th), notes_g(th), atol=1e-13)
        tau = notes_M(th) @ thdd + notes_c(th, thd) + notes_g(th)
        assert np.allclose(rd.inverse_dynamics(arm, th, thd, thdd), tau, atol=1e-12)


def _mass2_acceleration(arm, th, thd):
    """The acceleration of mass 2 (the tip) at zero joint accelerations, from robodyn's
    frame acceleration: dJ/dt thetadot of the world-aligned tip Jacobian."""
    return rd.jacobian_dot(arm, th, thd, "ee", kind="world_aligned")[3:5] @ thd


@pytest.mark.parametrize(
    "thd",
    [(1.5, 0.0), (0.0, 1.5), (1.5, 0.8)],
    ids=["joint 1 only", "joint 2 only", "both"],
)
def test_centripetal_and_coriolis_cases_at_0_and_90_degrees(arm, thd):
    th = np.array([0.0, np.pi / 2])
    w1, w2 = thd
    # mass 2's velocity-product acceleration at theta = (0, pi/2), corrected: c12 = 0,
    # s12 = 1, so [xdd2; ydd2] = [-L1 w1^2; -L2 (w1 + w2)^2]: centripetal -L2 (w1^2 + w2^2)
    # plus Coriolis -2 L2 w1 w2, not both
    acc = np.array([-L1 * w1**2, -L2 * (w1 + w2) ** 2])
    assert np.allclose(_mass2_acceleration(arm, th, np.array(thd)), acc, atol=1e-12)
    # torques at zero gravity and zero joint accelerations
    still = dataclasses.replace(arm, gravity=np.zeros(3))
    tau = rd.inverse_dynamics(still, th, np.array(thd), np.zeros(2))
    assert np.allclose(tau, notes_c(th, thd), atol=1e-13)
    if w2 == 0:  # mass 2's acceleration points at joint 1: no torque there, joint 2 > 0
        assert tau[0] == pytest.approx(0.0, abs=1e-13) and tau[1] > 0
        assert tau[1] == pytest.approx(M2 * L1 * L2 * w1**2)
    elif w1 == 0:  # mass 2 circles joint 2: joint 1 must pull back
        assert tau[1] == pytest.approx(0.0, abs=1e-13)
        assert tau[0] == pytest.approx(-M2 * L1 * L2 * w2**2)
    else:  # the Coriolis term makes joint 1's torque more negative (the skater)
        assert tau[0] == pytest.approx(-M2 * L1 * L2 * (2 * w1 * w2 + w2**2))
        assert tau[0] < -M2 * L1 * L2 * w2**2


def test_the_printed_velocity_and_k2_treat_theta2_as_absolute(arm, rng):
    th, thd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2)
    s1, c1, s12, c12 = sin(th[0]), cos(th[0]), sin(th.sum()), cos(th.sum())
    V = rd.jacobian(arm, th, "ee", kind="world_aligned")[3:5] @ thd  # the tip velocity
    printed = np.array(
        [-thd[0] * L1 * s1 - thd[1] * L2 * s12, thd[0] * L1 * c1 + thd[1] * L2 * c12]
    )
    right = np.array([-thd[0] * L1 * s1 - (thd[0] + thd[1]) * L2 * s12,
                      thd[0] * L1 * c1 + (thd[0] + thd[1]) * L2 * c12])  # fmt: skip
    assert np.allclose(V, right, atol=1e-13) and not np.allclose(V, printed, atol=1e-3)
    # K2 = 1/2 m2 (L1^2 w1^2 + L2^2 (w1 + w2)^2 + 2 L1 L2 w1 (w1 + w2) cos th2)
    w1, w12 = thd[0], thd.sum()
    K = 0.5 * M1 * L1**2 * w1**2 + 0.5 * M2 * (
        L1**2 * w1**2 + L2**2 * w12**2 + 2 * L1 * L2 * w1 * w12 * cos(th[1])
    )
    assert rd.kinetic_energy(arm, th, thd) == pytest.approx(K, rel=1e-13)
    assert K == pytest.approx(0.5 * thd @ notes_M(th) @ thd, rel=1e-13)  # = 1/2 thd^T M thd


def test_torque_ellipses_of_the_unit_arm():
    from robodyn.sim.plot import plot_ellipses

    unit = point_mass_2r(1.0, 1.0, 1.0, 1.0, G)
    qs = np.array([[0.0, np.pi / 2], [0.0, 3 * np.pi / 4], [0.0, np.pi / 4]])
    fig = plot_ellipses(unit, qs, kind="torque")
    from matplotlib.patches import Ellipse

    for e, q in zip([p for p in fig.axes[0].patches if isinstance(p, Ellipse)], qs):
        # the unit arm's M = [[3 + 2 c2, 1 + c2], [1 + c2, 1]]: eigenvalues from its trace
        # and determinant (det = 3 + 2 c2 - (1 + c2)^2 = 2 - c2^2)
        c2 = cos(q[1])
        tr, det = 4 + 2 * c2, 2 - c2**2
        lam = np.array([tr / 2 - np.sqrt(tr**2 / 4 - det), tr / 2 + np.sqrt(tr**2 / 4 - det)])
        assert e.width == pytest.approx(2 * lam[1], rel=1e-12)
        assert e.height == pytest.approx(2 * lam[0], rel=1e-12)
        M = np.array([[3 + 2 * c2, 1 + c2], [1 + c2, 1.0]])
        axis = np.array([np.cos(np.radians(e.angle)), np.sin(np.radians(e.angle))])
        assert np.allclose(M @ axis, lam[1] * axis, atol=1e-12)  # an eigenvector of M


def test_tip_wrench_adds_j_transpose_f(arm, rng):
    # tau = M thdd + c + g + J^T F_tip: F_tip the force the tip applies on the environment,
    # here given in world axes f_w and handed to robodyn in the tip frame (R^T f_w)
    th, thd, thdd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2), rng.normal(size=2)
    f_w = rng.normal(size=2)
    s1, c1, s12, c12 = sin(th[0]), cos(th[0]), sin(th.sum()), cos(th.sum())
    J = np.array([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12]])
    R = np.array([[c12, -s12, 0.0], [s12, c12, 0.0], [0.0, 0.0, 1.0]])
    F_tip = np.concatenate([np.zeros(3), R.T @ np.array([*f_w, 0.0])])
    tau = notes_M(th) @ thdd + notes_c(th, thd) + notes_g(th) + J.T @ f_w
    got = rd.inverse_dynamics(arm, th, thd, thdd, f_tip=F_tip, frame="ee")
    assert np.allclose(got, tau, atol=1e-12)


def test_joint_power_is_the_rate_of_the_energy(arm):
    # the joints' power tau^T thetadot is d(K + P)/dt with no friction, along a simulated
    # run (the notes print d/dt dL/dthetadot on the right: an erratum, tests/book/test_errata.py)
    ctrl = rd.control.PD(arm, [0.8, -0.6], 20.0, 2.0)
    res = rd.simulate(arm, [0.2, 0.4], [1.0, -0.5], controller=ctrl, duration=1.0, dt=1e-4)
    E = res.energy()
    dE = (E[2:] - E[:-2]) / (2e-4)  # central differences
    power = np.einsum("ki,ki->k", res.tau, res.v)[1:-1]
    assert np.max(np.abs(dE - power)) < 1e-5 * np.max(np.abs(power))
