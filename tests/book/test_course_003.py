"""Course notes 003 (the Python lesson on robot dynamics), worked: its code as an oracle for
rd.simulate and rd.control (its TwoLinkDynamics, simulate loop and three controllers are
typed in below from the lesson, and robodyn reproduces their trajectories on the bundled
planar_2r, the lesson's arm, to 1e-9), its pendulum snippet, and its Exercises 1-5 with
the numbers worked by hand and typed in.

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
    return rd.control.PD(m, Q_DES, KP_PD, KD_PD)


def _pd_gravity(m):
    return rd.control.PD(m, Q_DES, KP_PD, KD_PD, gravity_compensation=True)


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


# ---------------------------------------------------------------- the pendulum snippet
# single_pendulum_dynamics: a point mass m = 2 kg on a massless rod l = 0.5 m, theta = 0
# hanging down: M = m l^2 = 0.5 kg m^2, gravity torque m g l sin(theta) = 6.9367 N m at
# 45 deg (the lesson prints 0.5000 and 6.9367)
def _single_link(m, lc, I_c):
    """A single link about z, theta = 0 hanging down (gravity along -y): CoM at (0, -lc)."""
    xml = f"""<robot name="link"><link name="base"/>
      <link name="arm"><inertial><origin xyz="0 {-lc} 0"/><mass value="{m}"/>
        <inertia ixx="{I_c}" iyy="{I_c}" izz="{I_c}" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="theta" type="continuous"><parent link="base"/><child link="arm"/>
        <axis xyz="0 0 1"/></joint></robot>"""
    import dataclasses

    model = rd.load_urdf(xml)
    return dataclasses.replace(model, gravity=np.array([0.0, -9.81, 0.0]))


def test_the_lessons_pendulum_snippet():
    pend = _single_link(2.0, 0.5, 0.0)  # a point mass: no inertia about its centre
    assert rd.mass_matrix(pend, [np.radians(45)])[0, 0] == pytest.approx(0.5, abs=1e-15)
    g45 = rd.gravity_forces(pend, [np.radians(45)])[0]
    assert g45 == pytest.approx(6.9367, abs=5e-5)  # the lesson's printed value
    assert g45 == pytest.approx(2 * 9.81 * 0.5 * np.sin(np.pi / 4), rel=1e-14)


# ---------------------------------------------------------------- Exercise 1
# m = 2 kg, l = 0.5 m, lc = 0.25 m, I = 0.02 kg m^2 about the CoM. Euler-Lagrange with
# K = 1/2 (I + m lc^2) thetadot^2, P = m g lc (1 - cos theta):
#   (I + m lc^2) theta_dd + m g lc sin(theta) = tau,  I + m lc^2 = 0.145 kg m^2
# gravity torque at 0, 45, 90 deg: 0, 3.46836, 4.905 N m; holding at 45 deg: 3.46836 N m
EX1 = {"M": 0.145, "g": {0: 0.0, 45: 3.4683587617200153, 90: 4.905}}


def test_exercise_1_single_link_equation_of_motion():
    link = _single_link(2.0, 0.25, 0.02)
    for deg, g in EX1["g"].items():
        q = [np.radians(deg)]
        assert rd.mass_matrix(link, q)[0, 0] == pytest.approx(EX1["M"], rel=1e-14)
        assert rd.gravity_forces(link, q)[0] == pytest.approx(g, abs=1e-13)
    # holding at 45 deg: the torque that makes theta_dd = 0 at rest is g(45 deg)
    hold = rd.inverse_dynamics(link, [np.radians(45)], [0.0], [0.0])[0]
    assert hold == pytest.approx(EX1["g"][45], rel=1e-14)
    assert rd.forward_dynamics(link, [np.radians(45)], [0.0], [hold])[0] == pytest.approx(
        0, abs=1e-13
    )
    # the symbolic Lagrangian gives the same equation
    eom = rd.symbolic.derive(link)
    import sympy as sp

    th = eom.q[0]
    assert sp.simplify(eom.M[0, 0] - sp.Rational(145, 1000)) == 0
    assert abs(float(eom.g[0].subs(th, sp.pi / 4)) - EX1["g"][45]) < 1e-12


def test_exercise_1_free_fall_from_90_degrees():
    link = _single_link(2.0, 0.25, 0.02)
    Ip, mgl = EX1["M"], 2 * 9.81 * 0.25

    def lesson_loop(theta, dt, n):  # the lesson's update order: velocity, then position
        th, thd, out = theta, 0.0, [theta]
        for _ in range(n):
            thd = thd + (-mgl * np.sin(th) / Ip) * dt
            th = th + thd * dt
            out.append(th)
        return np.array(out)

    res = rd.simulate(link, [np.pi / 2], duration=2.0, dt=1e-3, integrator="semi_implicit_euler")
    assert np.max(np.abs(res.q[:, 0] - lesson_loop(np.pi / 2, 1e-3, 2000))) < 1e-9
    # the large-amplitude period T = 4 sqrt(I_p / (m g lc)) K(sin^2(45 deg)) = 1.27512 s
    # (K the complete elliptic integral of the first kind; scipy's ellipk takes m = k^2)
    rk4 = rd.simulate(link, [np.pi / 2], duration=2.0, dt=1e-4)
    th = rk4.q[:, 0]
    up = np.nonzero((th[:-1] < 0) & (th[1:] >= 0))[0][0]  # first upward zero crossing
    t0 = rk4.t[up] - th[up] / (th[up + 1] - th[up]) * 1e-4
    down = np.nonzero((th[:-1] > 0) & (th[1:] <= 0))[0][0]
    t_down = rk4.t[down] - th[down] / (th[down + 1] - th[down]) * 1e-4
    assert t_down == pytest.approx(1.2751219124944377 / 4, abs=1e-6)  # a quarter period
    assert t0 == pytest.approx(3 * 1.2751219124944377 / 4, abs=1e-6)


# ---------------------------------------------------------------- Exercise 2
# M(q) of the lesson's arm: M11 = 1.3325 + 0.6 cos(theta2), M12 = 0.17 + 0.3 cos(theta2),
# M22 = 0.17 (worked by hand from the lesson's inertia_matrix with its parameters)
EX2 = {
    0: [[1.9325, 0.47], [0.47, 0.17]],
    90: [[1.3325, 0.17], [0.17, 0.17]],
    180: [[0.7325, -0.13], [-0.13, 0.17]],
}


def test_exercise_2_inertia_matrix(arm, rng):
    for deg, M in EX2.items():
        got = rd.mass_matrix(arm, [0.0, np.radians(deg)])
        assert np.allclose(got, M, atol=1e-14), deg
        # eigenvalues: trace and determinant of the typed matrix
        lam = np.linalg.eigvalsh(got)
        tr, det = M[0][0] + M[1][1], M[0][0] * M[1][1] - M[0][1] ** 2
        assert lam.sum() == pytest.approx(tr) and np.prod(lam) == pytest.approx(det)
    # M11 is largest with the arm stretched (theta2 = 0), smallest folded (180 deg)
    t2 = np.radians(np.arange(-180, 181))
    M11 = rd.mass_matrix(arm, np.stack([np.zeros_like(t2), t2], -1))[:, 0, 0]
    assert np.degrees(t2[np.argmax(M11)]) == 0 and abs(np.degrees(t2[np.argmin(M11)])) == 180
    # symmetric and positive definite at 100 random configurations (also the lesson's M)
    Q = rng.uniform(-np.pi, np.pi, (100, 2))
    Ms = rd.mass_matrix(arm, Q)
    assert np.allclose(Ms, np.swapaxes(Ms, 1, 2)) and np.all(np.linalg.eigvalsh(Ms) > 0)
    assert all(np.all(np.linalg.eigvalsh(ARM.inertia_matrix(q)) > 0) for q in Q)


# ---------------------------------------------------------------- Exercise 3
# q = (45, 60) deg, qdot = (2, 0): h = m2 l1 lc2 sin(theta2) = 0.3 sin 60 deg, the torque
# on joint 2 is (C qdot)_2 = h qdot1^2 = 1.2 sin 60 deg = 1.03923 N m (centrifugal: link 2
# swung about joint 1 is pulled outward, which turns it about joint 2)
def test_exercise_3_coriolis_torque_and_skew_symmetry(arm, rng):
    q, qd = np.radians([45.0, 60.0]), np.array([2.0, 0.0])
    c = rd.velocity_forces(arm, q, qd)
    assert c[1] == pytest.approx(1.0392304845413263, rel=1e-14)
    assert c[0] == pytest.approx(
        -0.3 * np.sin(np.pi / 3) * 0.0 * 2, abs=1e-14
    )  # -h qd2 (2 qd1 + qd2)
    assert np.allclose(rd.coriolis_matrix(arm, q, qd) @ qd, c, atol=1e-14)
    for _ in range(3):
        q, qd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2)
        # dM/dt of the lesson's M by hand: only cos(theta2) varies, d/dt = -sin(theta2) qd2,
        # so dM/dt = -h qd2 [[2, 1], [1, 0]] with h = m2 l1 lc2 sin(theta2)
        # (measured at these states: 1.1e-16 closed form, 5.6e-11 differences, 2.2e-16 skew)
        h2 = ARM.m2 * ARM.l1 * ARM.lc2 * sin(q[1])
        Md = -h2 * qd[1] * np.array([[2.0, 1.0], [1.0, 0.0]])
        assert np.allclose(rd.mass_matrix_dot(arm, q, qd), Md, rtol=0, atol=1e-15)
        # and by central differences of robodyn's own M along qd (step ~ eps^(1/3))
        e = np.finfo(float).eps ** (1 / 3)
        Md_fd = (rd.mass_matrix(arm, q + e * qd) - rd.mass_matrix(arm, q - e * qd)) / (2 * e)
        assert np.allclose(Md_fd, Md, rtol=0, atol=5e-10)
        # skew symmetry with that dM/dt, which does not come from C (robodyn's
        # mass_matrix_dot is C + C^T, for which dM/dt - 2C is skew whatever C is)
        S = Md - 2 * rd.coriolis_matrix(arm, q, qd)
        assert np.allclose(S + S.T, 0, rtol=0, atol=2e-15)
        # the lesson's own check: forward differences of its M, its C
        h = 1e-7
        Md = (ARM.inertia_matrix(q + h * qd) - ARM.inertia_matrix(q)) / h
        S_l = Md - 2 * ARM.coriolis_matrix(q, qd)
        assert np.allclose(S_l + S_l.T, 0, atol=1e-5)


# ---------------------------------------------------------------- Exercise 5
def test_exercise_5_newton_euler_against_euler_lagrange(arm, rng):
    eom = rd.symbolic.derive(arm)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2), rng.normal(size=2)
        subs = dict(zip(eom.q, q)) | dict(zip(eom.qd, qd))
        M = np.array(eom.M.subs(subs).evalf(), dtype=float)
        C = np.array(eom.C.subs(subs).evalf(), dtype=float)
        g = np.array(eom.g.subs(subs).evalf(), dtype=float).ravel()
        tau_el = M @ qdd + C @ qd + g  # Euler-Lagrange (sympy)
        assert np.allclose(rd.inverse_dynamics(arm, q, qd, qdd), tau_el, atol=1e-12)  # RNEA
        assert np.allclose(newton_euler_2link(ARM, q, qd, qdd), tau_el, atol=1e-12)
        assert np.allclose(rd.reference.rnea(arm, q, qd, qdd), tau_el, atol=1e-12)


# ---------------------------------------------------------------- notes 001, problem 3
def test_the_eight_christoffel_symbols_of_the_2r_arm(arm):
    # course notes 001, problems 2-3, on the lesson's arm: M = [[a + 2 b c2, d + b c2],
    # [d + b c2, d]] with b = m2 l1 lc2 = 0.3 kg m^2; only dM/dq2 is nonzero, so by (10.9)
    # Gamma^1_12 = Gamma^1_21 = Gamma^1_22 = -b s2, Gamma^2_11 = b s2, the other four 0
    q = np.radians([20.0, 60.0])
    bs2 = 0.3 * np.sin(np.radians(60.0))
    want = np.zeros((2, 2, 2))  # want[i, j, k] = Gamma^i_jk
    want[0, 0, 1] = want[0, 1, 0] = want[0, 1, 1] = -bs2
    want[1, 0, 0] = bs2
    assert np.allclose(rd.christoffel(arm, q), want, atol=1e-14)
    # c_i = sum_jk Gamma^i_jk qd_j qd_k (10.8) is the velocity force
    qd = np.array([1.3, -0.4])
    assert np.allclose(np.einsum("ijk,j,k->i", want, qd, qd), rd.velocity_forces(arm, q, qd))
