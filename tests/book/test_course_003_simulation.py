"""Course notes 003 (the Python lesson on robot dynamics) as an oracle for rd.simulate and
rd.control: its TwoLinkDynamics, its simulate loop and its three controllers are typed
in below from the lesson (numbers and code), and robodyn must reproduce their
trajectories on the bundled planar_2r (the lesson's arm) to 1e-9.

Errata of the lesson, fixed here and said:
* newton_euler_2link double-counts link 2's force in joint 1's torque: f1 = m1 a_c1 + f2
  already holds f2, and the lesson adds ``lc1 x f1`` *and* ``l1 x f2``, so f2's moment
  about joint 1 is taken with arm lc1 + l1. The moment of link 1's own inertial force is
  ``lc1 x (m1 a_c1)``; with that term the recursion equals the Euler-Lagrange torques
  (the lesson's own comparison printed ``Match: False`` with ``atol=1e-3``).
* The free fall "from horizontal" starts at q = (90, 0) deg, which in the lesson's own
  convention (theta measured from the x axis, gravity along -y) is straight up: an
  equilibrium, no motion. Horizontal is q = (0, 0).
"""

from __future__ import annotations

from math import cos, sin

import numpy as np
import pytest

import robodyn as rd


# ---------------------------------------------------------------- typed from the lesson
class TwoLinkDynamics:
    """The lesson's closed-form 2-link planar arm (M, C, g; forward and inverse dynamics)."""

    def __init__(self, m1, m2, l1, l2, lc1, lc2, I1, I2, g=9.81):
        self.m1, self.m2, self.l1, self.l2 = m1, m2, l1, l2
        self.lc1, self.lc2, self.I1, self.I2, self.g = lc1, lc2, I1, I2, g

    def inertia_matrix(self, q):
        c2 = cos(q[1])
        m1, m2, l1, lc1, lc2 = self.m1, self.m2, self.l1, self.lc1, self.lc2
        a = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + self.I1 + self.I2
        b = self.m2 * (self.lc2**2 + self.l1 * self.lc2 * c2) + self.I2
        d = self.m2 * self.lc2**2 + self.I2
        return np.array([[a, b], [b, d]])

    def coriolis_matrix(self, q, q_dot):
        h = self.m2 * self.l1 * self.lc2 * sin(q[1])
        t1_dot, t2_dot = q_dot
        return np.array([[-h * t2_dot, -h * (t1_dot + t2_dot)], [h * t1_dot, 0.0]])

    def gravity_vector(self, q):
        t1, t12 = q[0], q[0] + q[1]
        g1 = (self.m1 * self.lc1 + self.m2 * self.l1) * self.g * cos(
            t1
        ) + self.m2 * self.lc2 * self.g * cos(t12)
        g2 = self.m2 * self.lc2 * self.g * cos(t12)
        return np.array([g1, g2])

    def forward_dynamics(self, q, q_dot, tau):
        M, C, g = self.inertia_matrix(q), self.coriolis_matrix(q, q_dot), self.gravity_vector(q)
        return np.linalg.solve(M, tau - C @ q_dot - g)

    def inverse_dynamics(self, q, q_dot, q_ddot):
        M, C, g = self.inertia_matrix(q), self.coriolis_matrix(q, q_dot), self.gravity_vector(q)
        return M @ q_ddot + C @ q_dot + g


ARM = TwoLinkDynamics(m1=5.0, m2=3.0, l1=0.5, l2=0.4, lc1=0.25, lc2=0.2, I1=0.1, I2=0.05)


def lesson_simulate(arm, controller, q0, q_desired, dt=0.001, duration=2.0):
    """The lesson's simulate loop: velocity first, then position with the new velocity."""
    n_steps = int(duration / dt)
    q = q0.copy()
    q_dot = np.zeros(2)
    trajectory = [q.copy()]
    for _ in range(n_steps):
        tau = controller(q, q_dot, q_desired)
        q_ddot = arm.forward_dynamics(q, q_dot, tau)
        q_dot = q_dot + q_ddot * dt
        q = q + q_dot * dt
        trajectory.append(q.copy())
    return np.array(trajectory)


KP_PD, KD_PD = np.diag([50.0, 30.0]), np.diag([10.0, 5.0])
KP_CT, KD_CT = np.diag([100.0, 100.0]), np.diag([20.0, 20.0])
Q_DES = np.radians([45.0, 30.0])


def ctrl_pd_only(q, q_dot, q_des):
    return KP_PD @ (q_des - q) + KD_PD @ (0 - q_dot)


def ctrl_with_grav(q, q_dot, q_des):
    return ARM.gravity_vector(q) + KP_PD @ (q_des - q) + KD_PD @ (0 - q_dot)


def ctrl_computed_torque(q, q_dot, q_des):
    e, e_dot = q_des - q, np.zeros(2) - q_dot
    a = np.zeros(2) + KD_CT @ e_dot + KP_CT @ e
    return ARM.inertia_matrix(q) @ a + ARM.coriolis_matrix(q, q_dot) @ q_dot + ARM.gravity_vector(q)


def newton_euler_2link(arm, q, q_dot, q_ddot):
    """The lesson's recursion with its double-counted term fixed (see the module docstring)."""
    m1, m2, l1, lc1, lc2, I1, I2, g = (
        arm.m1,
        arm.m2,
        arm.l1,
        arm.lc1,
        arm.lc2,
        arm.I1,
        arm.I2,
        arm.g,
    )
    t1, t2 = q
    t1d, t2d = q_dot
    t1dd, t2dd = q_ddot
    ac1_x = -lc1 * sin(t1) * t1dd - lc1 * cos(t1) * t1d**2
    ac1_y = lc1 * cos(t1) * t1dd - lc1 * sin(t1) * t1d**2 + g
    a2_x = -l1 * sin(t1) * t1dd - l1 * cos(t1) * t1d**2
    a2_y = l1 * cos(t1) * t1dd - l1 * sin(t1) * t1d**2 + g
    t12, w12 = t1 + t2, t1d + t2d
    ac2_x = a2_x - lc2 * sin(t12) * (t1dd + t2dd) - lc2 * cos(t12) * w12**2
    ac2_y = a2_y + lc2 * cos(t12) * (t1dd + t2dd) - lc2 * sin(t12) * w12**2
    f2_x, f2_y = m2 * ac2_x, m2 * ac2_y
    tau2 = I2 * (t1dd + t2dd) + lc2 * (cos(t12) * f2_y - sin(t12) * f2_x)
    # fixed: link 1's own inertial force m1 a_c1 at arm lc1 (the lesson used f1 = m1 a_c1 + f2)
    tau1 = (I1 * t1dd + lc1 * (cos(t1) * m1 * ac1_y - sin(t1) * m1 * ac1_x) + tau2
            + l1 * (cos(t1) * f2_y - sin(t1) * f2_x))  # fmt: skip
    return np.array([tau1, tau2])


# ---------------------------------------------------------------- the tests
@pytest.fixture(scope="module")
def arm():
    return rd.models.load("planar_2r")


def test_the_bundled_planar_2r_is_the_lessons_arm(arm, rng):
    for q in rng.uniform(-np.pi, np.pi, (5, 2)):
        v, a = rng.normal(size=2), rng.normal(size=2)
        assert np.allclose(rd.mass_matrix(arm, q), ARM.inertia_matrix(q), atol=1e-13)
        assert np.allclose(
            rd.inverse_dynamics(arm, q, v, a), ARM.inverse_dynamics(q, v, a), atol=1e-12
        )
        # the corrected Newton-Euler recursion agrees with both
        assert np.allclose(
            newton_euler_2link(ARM, q, v, a), ARM.inverse_dynamics(q, v, a), atol=1e-12
        )


def test_the_lessons_newton_euler_as_printed_double_counts():
    q, qd, qdd = np.radians([45.0, 30.0]), np.array([1.0, -0.5]), np.array([0.5, 0.3])
    fixed = newton_euler_2link(ARM, q, qd, qdd)
    t1 = q[0]
    # the printed version adds lc1 x f2 on top: f2's moment at arm lc1 + l1
    f2 = ARM.m2 * np.array(_ac2(q, qd, qdd))
    printed_tau1 = fixed[0] + ARM.lc1 * (cos(t1) * f2[1] - sin(t1) * f2[0])
    assert abs(printed_tau1 - ARM.inverse_dynamics(q, qd, qdd)[0]) > 1.0  # N m: visibly wrong
    assert np.allclose(fixed, ARM.inverse_dynamics(q, qd, qdd), atol=1e-12)


def _ac2(q, qd, qdd):
    l1, lc2, g = ARM.l1, ARM.lc2, ARM.g
    t1, t12, w12 = q[0], q[0] + q[1], qd[0] + qd[1]
    a2 = (-l1 * sin(t1) * qdd[0] - l1 * cos(t1) * qd[0] ** 2,
          l1 * cos(t1) * qdd[0] - l1 * sin(t1) * qd[0] ** 2 + g)  # fmt: skip
    return (a2[0] - lc2 * sin(t12) * (qdd[0] + qdd[1]) - lc2 * cos(t12) * w12**2,
            a2[1] + lc2 * cos(t12) * (qdd[0] + qdd[1]) - lc2 * sin(t12) * w12**2)  # fmt: skip


def _pd(m):
    return rd.control.PD(KP_PD, KD_PD, target=Q_DES)


def _pd_gravity(m):
    return rd.control.PD(KP_PD, KD_PD, target=Q_DES, gravity_compensation=m)


def _computed_torque(m):
    return rd.control.ComputedTorque(m, Q_DES, kp=KP_CT, kd=KD_CT)


CASES = {
    "pd": (ctrl_pd_only, _pd, 2.0),
    "pd+gravity": (ctrl_with_grav, _pd_gravity, 2.0),
    "computed_torque": (ctrl_computed_torque, _computed_torque, 1.0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_simulate_reproduces_the_lessons_controller_runs(arm, case):
    lesson_ctrl, make, duration = CASES[case]
    expected = lesson_simulate(ARM, lesson_ctrl, np.zeros(2), Q_DES, duration=duration)
    res = rd.simulate(arm, np.zeros(2), np.zeros(2), controller=make(arm), duration=duration,
                      dt=1e-3, integrator="semi_implicit_euler")  # fmt: skip
    assert res.q.shape == expected.shape == (round(duration / 1e-3) + 1, 2)
    assert np.allclose(res.t, np.arange(res.q.shape[0]) * 1e-3, rtol=0, atol=1e-15)
    assert np.max(np.abs(res.q - expected)) < 1e-9
    # the recorded torque is the controller's at each sample
    k = len(res) // 2
    assert np.allclose(res.tau[k], lesson_ctrl(res.q[k], res.v[k], Q_DES), atol=1e-9)


def test_the_lessons_comparison_pd_leaves_an_error_the_others_do_not(arm):
    err = {}
    for case, (_, make, duration) in CASES.items():
        res = rd.simulate(arm, np.zeros(2), controller=make(arm), duration=duration, dt=1e-3,
                          integrator="semi_implicit_euler")  # fmt: skip
        err[case] = np.degrees(np.abs(res.q[-1] - Q_DES))
    # PD alone: the arm sags under gravity; its steady state K_p e = g(q) is several degrees off
    q_ss = np.radians([45.0, 30.0])
    for _ in range(50):  # fixed point of K_p (q_d - q) = g(q)
        q_ss = Q_DES - np.linalg.solve(KP_PD, ARM.gravity_vector(q_ss))
    assert np.all(err["pd"] > 2.0)
    assert np.allclose(err["pd"], np.degrees(np.abs(q_ss - Q_DES)), atol=0.2)  # 2 s: nearly settled
    settled = rd.simulate(arm, np.zeros(2), controller=CASES["pd"][1](arm), duration=8.0, dt=1e-3)
    assert np.allclose(settled.q[-1], q_ss, atol=1e-6)
    assert np.all(err["pd+gravity"] < 0.2)  # deg, still converging at 2 s ...
    assert np.all(err["computed_torque"] < 0.05)  # ... computed torque already there at 1 s
    grav = rd.simulate(
        arm, np.zeros(2), controller=CASES["pd+gravity"][1](arm), duration=8.0, dt=1e-3
    )
    assert np.allclose(grav.q[-1], Q_DES, atol=1e-6)  # ... and both go to zero error


def test_free_fall_from_horizontal_and_from_the_lessons_start(arm):
    # (90, 0) deg is straight up in the lesson's convention: an equilibrium
    up = rd.simulate(arm, np.radians([90.0, 0.0]), duration=0.5, dt=1e-3, friction=False)
    assert np.max(np.abs(up.q - up.q[0])) < 1e-9
    # from horizontal (0, 0) the arm falls: link 1 swings down (q1 decreases)
    fall = rd.simulate(arm, np.zeros(2), duration=0.3, dt=1e-3)
    assert fall.q[-1, 0] < -0.2
