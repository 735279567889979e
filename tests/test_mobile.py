"""Wheeled mobile robots (MR ch. 13) and rolling constraints (course notes 001 sec. 10.3).

Oracles: the H(0) matrices printed in MR ch. 13 typed here; rigid-body velocity of each
wheel centre resolved along the wheel's driving and free-sliding directions (a 2x2 solve,
not the h_i formula); closed-form arcs of constant twists; rd.exp6; the modern_robotics
package (youBot arm FK and body Jacobian); central finite differences; the knife-edge's
closed-form circle, energy conservation and the power balance dE/dt = tau . v.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import robodyn as rd
from robodyn import mobile

R_YB, L_YB, W_YB = 0.0475, 0.235, 0.15

ROBOTS = {
    "unicycle": mobile.Unicycle(wheel_radius=0.3),
    "diffdrive": mobile.DiffDrive(wheel_radius=0.1, half_track=0.25),
    "car": mobile.Car(wheelbase=0.6, max_steer=0.5, wheel_radius=0.2),
    "omni": mobile.Omni(wheel_radius=0.05, base_radius=0.2),
    "mecanum": mobile.Mecanum(half_length=L_YB, half_width=W_YB, wheel_radius=R_YB),
    "omni4": mobile.Omni(
        wheel_radius=0.04,
        positions=[[0.2, 0.1], [-0.1, 0.25], [-0.2, -0.1], [0.1, -0.3]],
        beta=[0.3, 1.9, 3.5, 4.9],
        gamma=[0.2, -0.4, 0.0, 0.6],
    ),
}


def _random_inputs(robot, rng, size=()):
    """Wheel speeds the robot can have: any for 2 or 3 inputs, ``H(0) V`` for redundant
    wheels (four mecanum wheels span only the 3-D twists)."""
    if len(robot.inputs) > 3:
        return robot.wheel_speeds(rng.normal(size=(*size, 3)))
    u = rng.normal(size=(*size, len(robot.inputs)))
    if isinstance(robot, mobile.Car):
        u[..., 1] = rng.uniform(-robot.max_steer, robot.max_steer, size)
    return u


# --------------------------------------------------------------- typed H(0) matrices
def test_H0_typed_from_MR():
    # MR eq. 13.10: the youBot's mecanum base
    lw = L_YB + W_YB
    H = np.array([[-lw, 1, -1], [lw, 1, 1], [lw, 1, -1], [-lw, 1, 1]]) / R_YB
    np.testing.assert_allclose(ROBOTS["mecanum"].H(0.0), H, rtol=0, atol=1e-12)
    # MR's three-omniwheel robot (d = 0.2, r = 0.05)
    s = np.sin(np.pi / 3)
    H = np.array([[-0.2, 1, 0], [-0.2, -0.5, -s], [-0.2, -0.5, s]]) / 0.05
    np.testing.assert_allclose(ROBOTS["omni"].H(0.0), H, rtol=0, atol=1e-12)
    # differential drive: u_L, u_R = (v -+ d omega) / r
    np.testing.assert_allclose(ROBOTS["diffdrive"].H(0.0), [[-2.5, 10, 0], [2.5, 10, 0]])
    # F = H(0)^+ of the mecanum base: MR eq. 13.33, F = r/4 [[-1/(l+w), 1/(l+w), ...]]
    F = R_YB / 4 * np.array([[-1 / lw, 1 / lw, 1 / lw, -1 / lw], [1, 1, 1, 1], [-1, 1, -1, 1]])
    np.testing.assert_allclose(ROBOTS["mecanum"].F, F, atol=1e-14)


@pytest.mark.parametrize("name", ["omni", "mecanum", "omni4", "diffdrive"])
def test_H_phi_from_wheel_velocities(name, rng):
    """u_i from rigid-body kinematics: the wheel centre's velocity equals
    r u_i (driving direction) + s_i (free-sliding direction)."""
    robot = ROBOTS[name]
    if name == "diffdrive":
        d = robot.half_track
        pos, beta, gamma = np.array([[0, d], [0, -d]]), np.zeros(2), np.zeros(2)
    else:
        pos, beta, gamma = robot.positions, robot.beta, robot.gamma
    for _ in range(5):
        phi = rng.uniform(-np.pi, np.pi)
        qdot = rng.normal(size=3)
        Rz = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
        u = np.empty(len(pos))
        for i, (p, b, g) in enumerate(zip(pos, beta, gamma)):
            r_w = Rz @ p  # wheel centre relative to the chassis origin, world axes
            vel = qdot[1:] + qdot[0] * np.array([-r_w[1], r_w[0]])  # v + omega z x r
            drive = Rz @ [np.cos(b), np.sin(b)]
            slide = Rz @ [np.cos(b + g + np.pi / 2), np.sin(b + g + np.pi / 2)]
            r_i = robot.wheel_radius
            u[i] = np.linalg.solve(np.column_stack([r_i * drive, slide]), vel)[0]
        np.testing.assert_allclose(robot.H(phi) @ qdot, u, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------- constraints and twists
@pytest.mark.parametrize("name", list(ROBOTS))
def test_produced_twists_satisfy_the_pfaffian_constraints(name, rng):
    robot = ROBOTS[name]
    for _ in range(20):
        q = np.array([rng.uniform(-np.pi, np.pi), *rng.normal(size=2)])
        u = _random_inputs(robot, rng)
        V = robot.chassis_twist(u)
        qdot = robot.qdot(q, V)
        A = robot.constraints(q)
        assert A.shape[1] == 3
        assert np.abs(A @ qdot).max(initial=0.0) < 1e-12
        if isinstance(robot, mobile.Car):
            # with the steering angle: rear and front wheels roll without slipping
            qs, psi_dot = np.append(q, u[1]), rng.normal()
            A4 = robot.constraints(qs)
            assert A4.shape == (2, 4)
            assert np.abs(A4 @ np.append(qdot, psi_dot)).max() < 1e-12
            continue
        # with the wheel angles: the rolling constraints hold for the wheel rates u
        m = robot.n_wheels
        qf = np.concatenate([q, rng.normal(size=m)])
        theta_dot = u[:m]
        Af = robot.constraints(qf)
        assert np.abs(Af @ np.concatenate([qdot, theta_dot])).max() < 1e-12
        # and a sideways or wrong-wheel motion violates them
        assert np.abs(Af @ np.concatenate([qdot, theta_dot + 0.1])).max() > 1e-3


@pytest.mark.parametrize("name", list(ROBOTS))
def test_H_maps_twists_to_wheel_speeds_and_F_inverts(name, rng):
    robot = ROBOTS[name]
    u = _random_inputs(robot, rng, (10,))
    V = robot.chassis_twist(u)  # (10, 3): twists the robot can make
    back = robot.wheel_speeds(V)
    np.testing.assert_allclose(back, u, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(robot.chassis_twist(back), V, rtol=1e-12, atol=1e-12)
    if isinstance(robot, mobile.Car):
        return
    phi = rng.uniform(-np.pi, np.pi, 10)
    qdot = np.stack([robot.qdot([p, 0, 0], v) for p, v in zip(phi, V)])
    np.testing.assert_allclose(
        np.einsum("kij,kj->ki", robot.H(phi), qdot), robot.wheel_speeds(V), atol=1e-12
    )
    if isinstance(robot, mobile.Omni):  # every twist is possible: F H(0) = 1
        np.testing.assert_allclose(robot.F @ robot.H(0.0), np.eye(3), atol=1e-12)


def test_constraints_dot_is_the_time_derivative(rng):
    for name, robot in ROBOTS.items():
        n = 4 if name == "car" else 3 + robot.n_wheels
        q, qdot = rng.normal(size=n), rng.normal(size=n)
        h = 1e-6
        fd = (robot.constraints(q + h * qdot) - robot.constraints(q - h * qdot)) @ qdot / (2 * h)
        np.testing.assert_allclose(robot.constraints_dot(q, qdot), fd, atol=1e-8, err_msg=name)


def test_car_limits_and_bad_input():
    car = ROBOTS["car"]
    assert car.min_turning_radius == pytest.approx(0.6 / np.tan(0.5))
    with pytest.raises(ValueError, match="max_steer"):
        car.wheel_speeds([2.0, 1.0, 0.0])  # radius 0.5 m < 1.1 m
    with pytest.raises(ValueError, match="sideways"):
        car.wheel_speeds([0.0, 1.0, 0.1])
    with pytest.raises(ValueError, match="on the spot"):
        car.wheel_speeds([1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"twist must have shape \(\.\.\., 3\)"):
        ROBOTS["diffdrive"].wheel_speeds([1.0, 2.0])
    with pytest.raises(ValueError, match="wheel_speeds"):
        ROBOTS["mecanum"].chassis_twist([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="half_track"):
        mobile.DiffDrive(wheel_radius=0.1, half_track=-1)
    with pytest.raises(ValueError, match=r"q must have shape"):
        ROBOTS["omni"].constraints(np.zeros(5))
    with pytest.raises(ValueError, match="increments"):
        mobile.odometry(ROBOTS["diffdrive"], np.zeros(3), [1.0, 2.0, 3.0])


# -------------------------------------------------------------------- odometry
def test_odometry_of_constant_wheel_speeds_is_the_exact_arc(rng):
    r, d = 0.1, 0.25
    robot = mobile.DiffDrive(wheel_radius=r, half_track=d)
    uL, uR, T = 3.0, 5.0, 2.0
    q0 = np.array([0.4, 1.0, -2.0])
    # typed closed form: v = r (uL + uR)/2, omega = r (uR - uL)/(2 d), a circle
    v, w = r * (uL + uR) / 2, r * (uR - uL) / (2 * d)
    phi = q0[0] + w * T
    arc = np.array([phi, q0[1] + v / w * (np.sin(phi) - np.sin(q0[0])),
                    q0[2] - v / w * (np.cos(phi) - np.cos(q0[0]))])  # fmt: skip
    np.testing.assert_allclose(mobile.odometry(robot, q0, [uL * T, uR * T]), arc, atol=1e-14)
    # the same increments split in 1000 steps give the same arc (exact, not Euler)
    steps = mobile.odometry(robot, q0, np.tile([uL * T / 1000, uR * T / 1000], (1000, 1)))
    np.testing.assert_allclose(steps[-1], arc, atol=1e-12)
    # independent: the planar screw motion through rd.exp6 of the body twist
    for robot in ROBOTS.values():
        du = _random_inputs(robot, rng)
        V = robot.chassis_twist(du)
        q0 = np.array([rng.uniform(-3, 3), *rng.normal(size=2)])
        T_sb = rd.transform(rd.exp3([0, 0, q0[0]]), [q0[1], q0[2], 0.0])
        T1 = T_sb @ rd.exp6([0, 0, V[0], V[1], V[2], 0])
        q1 = mobile.odometry(robot, q0, du)
        assert abs(mobile.wrap_angle(q1[0] - np.arctan2(T1[1, 0], T1[0, 0]))) < 1e-12
        np.testing.assert_allclose(q1[1:], T1[:2, 3], atol=1e-12)
    # small rotations are smooth through omega = 0
    for w in (0.0, 1e-9, 1e-5, -1e-3):
        np.testing.assert_allclose(
            mobile.planar_exp([w, 1.0, 0.5])[1:],
            rd.exp6([0, 0, w, 1.0, 0.5, 0])[:2, 3], atol=1e-15, rtol=1e-15)  # fmt: skip


def test_driving_a_square_returns_to_the_start():
    dd = mobile.DiffDrive(wheel_radius=0.1, half_track=0.25)
    side = [10.0, 10.0]  # 1 m straight
    turn = [-np.pi / 2 * 0.25 / 0.1, np.pi / 2 * 0.25 / 0.1]  # 90 deg on the spot
    q0 = np.array([0.3, 1.0, 2.0])
    path = mobile.odometry(dd, q0, [side, turn] * 4)
    np.testing.assert_allclose(path[-1] - [2 * np.pi, 0, 0], q0, atol=1e-12)
    corners = path[::2][:4, 1:]
    np.testing.assert_allclose(np.linalg.norm(np.diff(corners, axis=0), axis=1), 1.0, atol=1e-12)
    # the mecanum base: a square by sliding sideways, heading fixed
    mec = ROBOTS["mecanum"]
    moves = [mec.wheel_speeds(V) for V in ([0, 1, 0], [0, 0, 1], [0, -1, 0], [0, 0, -1])]
    path = mobile.odometry(mec, q0, moves)
    np.testing.assert_allclose(path[-1], q0, atol=1e-12)
    np.testing.assert_allclose(path[:, 0], q0[0], atol=1e-12)


# -------------------------------------------------------------------- control
@pytest.mark.parametrize("name", ["unicycle", "diffdrive", "car"])
def test_tracking_controller_converges_from_half_a_metre(name):
    ref = mobile.circle(radius=2.0, speed=0.5)
    ctrl = mobile.TrackingController(ref, k1=1.0, k2=4.0, k3=2.0)
    q0 = ref(0.0)[0] + [0.0, 0.5, 0.0]  # 0.5 m outside the circle
    run = mobile.drive(ROBOTS[name], q0, ctrl, duration=15.0, dt=0.01)
    e = run.tracking_error()
    assert e[0] == pytest.approx(0.5)
    # the README: within 0.5 mm of the reference after 15 s (measured at 15 s: 0.31 mm,
    # car 0.47 mm; over the last second at most 0.59 mm)
    assert e[-1] < 0.5e-3 and e[-100:].max() < 0.6e-3
    assert abs(mobile.wrap_angle(run.q[-1, 0] - ref(15.0)[0][0])) < 1e-2
    if name == "car":  # the steering angle stayed within its limit
        assert np.abs(run.u[:, 1]).max() <= ROBOTS["car"].max_steer + 1e-12


@pytest.mark.parametrize("name", ["diffdrive", "car"])
def test_pure_pursuit_converges_to_a_line(name):
    path = np.stack([np.linspace(0, 15, 1501), np.zeros(1501)], axis=1)
    run = mobile.drive(ROBOTS[name], [0.0, 0.0, 0.5], mobile.PurePursuit(path, 1.0, 1.0),
                       duration=20.0, dt=0.02)  # fmt: skip
    after = run.q[:, 1] > 6.0
    assert np.abs(run.q[after, 2]).max() < 1e-3  # on the line
    assert np.linalg.norm(run.q[-1, 1:] - path[-1]) < 0.3  # stopped at its end
    np.testing.assert_allclose(run.twist[-1], 0.0)


def test_wheel_speed_limits_are_respected():
    ref = mobile.circle(radius=2.0, speed=0.5)
    dd = ROBOTS["diffdrive"]
    run = mobile.drive(dd, ref(0)[0] + [0, 0.5, 0], mobile.TrackingController(ref),
                       duration=3.0, dt=0.01, u_max=6.0)  # fmt: skip
    assert np.abs(run.u).max() <= 6.0 + 1e-12
    assert np.abs(run.u).max() > 5.9


def test_car_paths_lines_arcs_and_dubins():
    R = 1.5
    # a left quarter arc then 2 m straight: typed end point
    end = mobile.car_path([0, 0, 0], [("L", R * np.pi / 2), ("S", 2.0)], R)[-1]
    np.testing.assert_allclose(end, [np.pi / 2, R, R + 2.0], atol=1e-12)
    # backwards on a right arc (a Reeds-Shepp gear change)
    end = mobile.car_path([0, 0, 0], [("R", -R * np.pi / 2)], R)[-1]
    np.testing.assert_allclose(end, [np.pi / 2, -R, -R], atol=1e-12)
    # Dubins: straight ahead is a straight line; a U-turn to the left is a half circle
    p = mobile.dubins([0, 0, 0], [0, 5, 0], R)
    assert p.length == pytest.approx(5.0) and p.word[1] == "S"
    p = mobile.dubins([0, 0, 0], [np.pi, 0, 2 * R], R)
    assert p.length == pytest.approx(np.pi * R) and p.word[0] == "L"


def test_dubins_paths_reach_the_goal(rng):
    for _ in range(30):
        q0, q1, R = rng.uniform(-3, 3, 3), rng.uniform(-3, 3, 3), rng.uniform(0.3, 2.0)
        p = mobile.dubins(q0, q1, R)
        end = p.sample(q0)[-1]
        assert abs(mobile.wrap_angle(end[0] - q1[0])) < 1e-9
        np.testing.assert_allclose(end[1:], q1[1:], atol=1e-9)
        assert p.length >= np.hypot(*(q1[1:] - q0[1:])) - 1e-12
        assert p.length <= 2 * np.pi * R + np.hypot(*(q1[1:] - q0[1:])) + 4 * np.pi * R


def test_reeds_shepp_paths_reach_the_goal_and_form_a_metric(rng):
    from robodyn.mobile.control import _reeds_shepp_candidates

    words = set()
    for _ in range(60):
        x, y, phi = *rng.uniform(-4, 4, 2), rng.uniform(-np.pi, np.pi)
        for word, seg in _reeds_shepp_candidates(x, y, phi):  # every word, every gear
            end = mobile.car_path([0, 0, 0], list(zip(word, seg)), 1.0, step=0.05)[-1]
            assert abs(mobile.wrap_angle(end[0] - phi)) < 1e-9, word
            np.testing.assert_allclose(end[1:], [x, y], atol=1e-9, err_msg=word)
            words.add(word)
    assert len(words) >= 16  # CSC, CCC, CCCC, CCSC and CCSCC families all occur
    for _ in range(30):
        a, b, c = rng.uniform(-3, 3, (3, 3))
        R = rng.uniform(0.5, 2.0)
        ab = mobile.reeds_shepp(a, b, R)
        end = ab.sample(a)[-1]
        assert abs(mobile.wrap_angle(end[0] - b[0])) < 1e-9
        np.testing.assert_allclose(end[1:], b[1:], atol=1e-9)
        # reversing allowed: never longer than Dubins; a metric: symmetric, triangle
        assert ab.length <= mobile.dubins(a, b, R).length + 1e-12
        assert ab.length == pytest.approx(mobile.reeds_shepp(b, a, R).length, abs=1e-12)
        via = mobile.reeds_shepp(a, c, R).length + mobile.reeds_shepp(c, b, R).length
        assert ab.length <= via + 1e-12
    # typed: straight back 3 m is one reversing segment of 3 m
    back = mobile.reeds_shepp([0, 0, 0], [0, -3, 0], 1.0)
    assert back.length == pytest.approx(3.0) and min(back.lengths) == pytest.approx(-3.0)


# ------------------------------------------------------------ mobile manipulation
def test_youbot_arm_matches_modern_robotics(rng):
    import modern_robotics as mr

    from robodyn.mobile.manipulator import YOUBOT_BLIST, YOUBOT_M0E

    # typed from the MR capstone (Mobile Manipulation): M_0e and the body screw axes B_i
    M0e = np.array([[1, 0, 0, 0.033], [0, 1, 0, 0], [0, 0, 1, 0.6546], [0, 0, 0, 1.0]])
    Blist = np.array([[0, 0, 1, 0, 0.033, 0], [0, -1, 0, -0.5076, 0, 0],
                      [0, -1, 0, -0.3526, 0, 0], [0, -1, 0, -0.2176, 0, 0],
                      [0, 0, 1, 0, 0, 0.0]]).T  # fmt: skip
    np.testing.assert_array_equal(YOUBOT_M0E, M0e)
    np.testing.assert_array_equal(YOUBOT_BLIST, Blist)
    arm = mobile.youbot_arm()
    for _ in range(5):
        th = rng.uniform(-2, 2, 5)
        # the README's "to 1e-15" (measured 2.2e-16 here, 6.7e-16 over 2,000 draws)
        np.testing.assert_allclose(
            rd.fk(arm, th, "ee"), mr.FKinBody(M0e, Blist, th), rtol=0, atol=1e-15
        )
        np.testing.assert_allclose(
            rd.jacobian(arm, th, "ee", kind="body"), mr.JacobianBody(Blist, th), rtol=0, atol=1e-15
        )


def test_youbot_jacobian_by_finite_differences(rng):
    yb = mobile.youbot()
    c = np.concatenate([[0.3, 0.1, -0.2], rng.uniform(-1, 1, 5), rng.normal(size=4)])
    J = yb.jacobian(c)
    assert J.shape == (6, 9)
    X = yb.ee_pose(c)
    # typed: MR capstone's T_se at the chassis pose and theta = 0
    c0 = np.zeros(12)
    np.testing.assert_allclose(
        yb.ee_pose(c0)[:3, 3], [0.1662 + 0.033, 0.0, 0.0963 + 0.0026 + 0.6546], atol=1e-14
    )
    for k in range(9):
        h = 1e-6
        e = np.zeros(9)
        e[k] = 1.0
        Xp = yb.ee_pose(yb.next_state(c, e, h))
        Xm = yb.ee_pose(yb.next_state(c, -e, h))
        fd = rd.log6(rd.inv_transform(Xm) @ Xp) / (2 * h)
        # X(+-h) is X exp(+-h J e) to second order: the central difference is O(h^2)
        np.testing.assert_allclose(fd, J[:, k], atol=1e-8)
    np.testing.assert_allclose(X, yb.ee_pose(yb.next_state(c, np.zeros(9), 1.0)), atol=1e-15)


def _youbot_task():
    yb = mobile.youbot(joint_speed_max=10.0, wheel_speed_max=30.0)
    c = np.array([0.3, 0.1, -0.2, 0.0, -0.3, -0.8, -0.9, 0.0, 0, 0, 0, 0])
    X0 = yb.ee_pose(c)
    X1 = X0.copy()
    X1[:3, 3] += [0.8, 0.3, -0.1]
    X1[:3, :3] = X0[:3, :3] @ rd.exp3([0.0, 0.3, 0.5])
    return yb, c, rd.trajectory.screw_trajectory(X0, X1, 5.0, "quintic")


def test_youbot_tracks_an_se3_trajectory_below_a_millimetre():
    yb, c, ref = _youbot_task()
    run = mobile.track(yb, c, ref, dt=0.01, kp=10.0, ki=20.0)
    # the README: the gripper stays within 0.1 mm of the reference (measured 0.0987 mm);
    # its orientation error is at most 4.2e-6 rad
    assert run.position_error().max() < 1e-4
    assert np.abs(run.X_err[:, :3]).max() < 4e-5  # rad
    np.testing.assert_allclose(run.p_d[-1], ref(5.0)[0][:3, 3], atol=1e-12)
    lim = yb.limits()
    assert np.all(np.abs(run.speeds) <= lim + 1e-12)
    assert np.all(run.config[:, 5:7] <= -0.2 + 1e-3)  # joints 3, 4 kept off the singularity
    # from a 0.2 m offset of the chassis the PI law pulls the error below 1 mm (measured:
    # from t = 1.84 s on; over the last second at most 2.4e-6 m)
    c2 = c.copy()
    c2[1] += 0.2
    run = mobile.track(yb, c2, ref, dt=0.01, kp=10.0, ki=20.0)
    e = run.position_error()
    assert e[0] > 0.19 and e[-100:].max() < 2.5e-5


def test_youbot_speed_limits_bind():
    yb, c, ref = _youbot_task()
    slow = dataclasses.replace(yb, joint_speed_max=0.5, wheel_speed_max=5.0)
    run = mobile.track(slow, c, ref, dt=0.01, kp=5.0)
    assert np.abs(run.speeds[:, 4:]).max() <= 0.5 + 1e-12
    assert np.abs(run.speeds[:, :4]).max() == pytest.approx(5.0)
    assert run.position_error().max() > 1e-3  # the limits cost accuracy


def test_mobile_manipulator_bad_input():
    yb, c, ref = _youbot_task()
    with pytest.raises(ValueError, match=r"config must have shape \(\.\.\., 12\)"):
        yb.ee_pose(np.zeros(11))
    with pytest.raises(ValueError, match="kp must be"):
        mobile.track(yb, c, ref, dt=0.01, kp=np.ones(5))
    with pytest.raises(ValueError, match="reference must be"):
        mobile.track(yb, c, np.eye(4), dt=0.01)
    with pytest.raises(ValueError, match="omnidirectional"):
        mobile.MobileManipulator(ROBOTS["diffdrive"], mobile.youbot_arm())


# --------------------------------------------------- dynamics with rolling constraints
M_KNIFE, I_KNIFE = 2.5, 0.4


def _knife_circle(duration, dt, alpha=2.0, controller=None):
    model, con = mobile.knife_edge_model(M_KNIFE, I_KNIFE, alpha=alpha)
    s, w, phi0 = 1.3, 0.7, 0.4
    q0 = np.array([0.2, -0.1, phi0])
    v0 = np.array([s * np.cos(phi0), s * np.sin(phi0), w])
    res = rd.simulate(model, q0, v0, controller, duration=duration, dt=dt, constraints=con)
    return res, (s, w, phi0, q0)


def test_knife_edge_rolls_on_its_circle_and_keeps_its_constraint():
    """Course notes 001, Example 10.3.1 with no input: constant speed s and spin w, so the
    contact point moves on a circle of radius s / w (typed closed form)."""
    res, (s, w, phi0, q0) = _knife_circle(5.0, 1e-2)
    ph = phi0 + w * res.t
    x = q0[0] + s / w * (np.sin(ph) - np.sin(phi0))
    y = q0[1] - s / w * (np.cos(ph) - np.cos(phi0))
    np.testing.assert_allclose(res.q[:, 0], x, atol=1e-9)
    np.testing.assert_allclose(res.q[:, 1], y, atol=1e-9)
    np.testing.assert_allclose(res.q[:, 2], ph, atol=1e-12)
    # the constraint holds to integrator tolerance, and its force does no work
    assert res.constraint_violation.max() < 1e-8
    E = res.energy()
    assert np.abs(E - E[0]).max() < 1e-9 * E[0]
    # eq. 10.28 with u = 0: lambda = -m qd1 qd3 cos q3 - m qd2 qd3 sin q3 = -m s w, the
    # centripetal force
    np.testing.assert_allclose(res.constraint_force[:, 0], -M_KNIFE * s * w, rtol=1e-8)


def test_a_constrained_trajectory_saves_its_constraint_violation_and_forces(tmp_path):
    """Nothing a user computed is lost: save/load keeps |A v| and lambda (they were
    dropped before), and the loaded trajectory equals the simulated one."""
    res, (s, w, _, _) = _knife_circle(1.0, 1e-2)
    back = rd.Trajectory.load(res.save(tmp_path / "knife"))
    assert back == res
    np.testing.assert_array_equal(back.constraint_violation, res.constraint_violation)
    np.testing.assert_allclose(back.constraint_force[:, 0], -M_KNIFE * s * w, rtol=1e-8)
    model, _ = mobile.knife_edge_model(M_KNIFE, I_KNIFE)
    free = rd.simulate(model, np.zeros(3), np.ones(3), duration=0.1, dt=1e-2)
    back = rd.Trajectory.load(free.save(tmp_path / "free"))
    assert back == free and back.constraint_violation is None and back.constraint_force is None


def test_knife_edge_forced_drift_is_held_by_baumgarte():
    def push(t, q, v):
        return np.array([np.sin(3 * t), np.cos(2 * t), 0.3 * np.sin(t)])

    plain, _ = _knife_circle(20.0, 4e-2, alpha=0.0, controller=push)
    held, _ = _knife_circle(20.0, 4e-2, alpha=2.0, controller=push)
    # without stabilisation the violation accumulates; with it, it stays below 1.5e-6 m/s
    # and decays: the README's 6e-6 m/s against 2e-8 m/s at t = 20 s, 3e-7 m/s at most
    # over the last 2 s (measured 5.97e-6, 1.37e-6 at t = 10 s, 1.90e-8 and 2.78e-7)
    cv = held.constraint_violation
    assert plain.constraint_violation[-1] == pytest.approx(6e-6, rel=0.05)
    assert cv.max() < 1.5e-6 and cv[-1] < 2e-8 and cv[-50:].max() < 3e-7
    # halving dt shrinks the violation like the integrator's error (RK4: 2^4)
    fine, _ = _knife_circle(20.0, 2e-2, alpha=2.0, controller=push)
    assert fine.constraint_violation.max() < held.constraint_violation.max() / 8
    # power balance: E(T) - E(0) = int tau . v dt (independent of the constraint force)
    from scipy.integrate import simpson

    E = fine.energy()
    work = simpson(np.einsum("ki,ki->k", fine.tau, fine.v), x=fine.t)
    assert E[-1] - E[0] == pytest.approx(work, rel=1e-6, abs=1e-8)


def test_diff_drive_with_mass_accelerates_as_the_closed_form():
    r, d = 0.1, 0.25
    mc, Ic, mw, Iw = 10.0, 0.5, 0.5, 0.003
    dd = mobile.DiffDrive(wheel_radius=r, half_track=d)
    model, con = mobile.diff_drive_model(dd, mc, Ic, mw, Iw)
    tau = 0.2

    def both(t, q, v):
        return np.array([0.0, 0.0, 0.0, tau, tau])

    res = rd.simulate(model, np.zeros(5), None, both, duration=1.0, dt=1e-2, constraints=con)
    # (m_c + 2 m_w + 2 I_w / r^2) xdd = 2 tau / r  (traction F: I_w thdd = tau - F r)
    acc = 2 * tau / r / (mc + 2 * mw + 2 * Iw / r**2)
    np.testing.assert_allclose(res.a[:, 0], acc, rtol=1e-10)
    np.testing.assert_allclose(res.q[-1, 0], acc / 2, rtol=1e-10)
    np.testing.assert_allclose(res.q[-1, 3:], acc / 2 / r, rtol=1e-10)

    def turn(t, q, v):
        return np.array([0.0, 0.0, 0.0, 0.3 * np.sin(2 * t), -0.1])

    res = rd.simulate(model, [0.5, -0.2, 0.3, 0, 0], None, turn, duration=3.0, dt=1e-2,
                      constraints=con)  # fmt: skip
    # rolling rates up to ~10 rad/s, RK4 at 10 ms: the violation stays at ~1e-9 relative
    assert res.constraint_violation.max() < 1e-8 * np.abs(res.v).max()
    # rolling without slipping: the chassis twist is F times the wheel rates, sample by sample
    run = mobile.MobileRun.from_trajectory(res, dd)
    np.testing.assert_allclose(dd.chassis_twist(run.u), run.twist, atol=1e-8 * np.abs(res.v).max())
    assert np.abs(run.twist[:, 2]).max() < 1e-8  # no sideways slip
    # the wheels' rolling gives back the chassis motion through odometry
    inc = np.diff(res.q[:, 3:], axis=0)
    qc = res.q[:, [2, 0, 1]]
    odo = mobile.odometry(dd, qc[0], inc)
    np.testing.assert_allclose(odo[-1], qc[-1], atol=2e-4)  # wheel speeds vary within a step
    from scipy.integrate import simpson

    E = res.energy()
    work = simpson(np.einsum("ki,ki->k", res.tau, res.v), x=res.t)
    assert E[-1] - E[0] == pytest.approx(work, rel=1e-6)


def test_simulate_constraints_bad_input():
    model, con = mobile.knife_edge_model()
    with pytest.raises(ValueError, match="fixed step"):
        rd.simulate(model, np.zeros(3), None, duration=1.0, dt=0.1, integrator="rk45",
                    constraints=con)  # fmt: skip
    with pytest.raises(ValueError, match=r"A\(q\) must have shape"):
        rd.simulate(model, np.zeros(3), None, duration=1.0, dt=0.1,
                    constraints=lambda q: np.ones((1, 4)))  # fmt: skip
    with pytest.raises(ValueError, match="constraints must be"):
        rd.simulate(model, np.zeros(3), None, duration=1.0, dt=0.1, constraints=3.0)
    # an inconsistent initial velocity is projected onto A v = 0 (eq. 10.19)
    res = rd.simulate(model, np.zeros(3), [1.0, 1.0, 0.0], duration=0.1, dt=0.01,
                      constraints=con)  # fmt: skip
    np.testing.assert_allclose(res.v[0], [1.0, 0.0, 0.0], atol=1e-15)


# ------------------------------------------------------------ command line, figures
@pytest.fixture
def audited(monkeypatch):
    """Every figure saved is checked for readability as it is written."""
    from matplotlib.figure import Figure

    from helpers import figure_problems

    seen = []
    save = Figure.savefig

    def savefig(fig, fname, *args, **kwargs):
        seen.append((str(fname), figure_problems(fig)))
        return save(fig, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return seen


@pytest.mark.parametrize("kind", ["unicycle", "diffdrive", "car", "omni", "mecanum", "youbot"])
def test_cli_mobile_demo_writes_readable_figures(kind, tmp_path, audited, capsys):
    from robodyn.cli import main

    args = ["mobile", kind, "--out", str(tmp_path)]
    if kind != "car":  # one of them also writes its GIF (the GIF writer is slow)
        args.append("--no-animation")
    assert main(args) == 0
    out = capsys.readouterr().out
    assert audited, "no figure written"
    bad = [f"{p}: {m}" for p, ms in audited for m in ms]
    assert not bad, "\n".join(bad)
    pngs = list(tmp_path.glob("*.png"))
    assert len(pngs) == len(audited) and all(p.stat().st_size > 10_000 for p in pngs)
    if kind == "car":
        from PIL import Image

        with Image.open(tmp_path / f"{kind}.gif") as im:
            assert im.n_frames > 10
    # the numbers printed are the ones the library computes
    if kind == "mecanum":
        assert "-8.1053  21.0526 -21.0526" in out  # (1/r)(-l-w), 1/r, -1/r of MR eq. 13.10
    if kind == "car":
        p = mobile.dubins([0, 0, 0], [np.pi, -1.0, 3.0], 0.5 / np.tan(0.6))
        assert f"Dubins path {p.word}" in out and f"length {p.length:.3f} m" in out
    if kind == "youbot":
        assert "below 1 mm after" in out
    if kind == "diffdrive":
        import re

        m = re.search(r"energy gained (\S+) J = work of the wheel torques (\S+) J", out)
        gained, work = float(m[1]), float(m[2])
        assert gained == pytest.approx(work, rel=1e-5)


def test_cli_mobile_rejects_an_unknown_robot(capsys):
    from robodyn.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["mobile", "tank"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_plot_functions_check_their_input():
    from robodyn.mobile import plot as mp

    with pytest.raises(ValueError, match=r"shape \(K, 3\)"):
        mp.plot_path(np.zeros((5, 2)))
    model, con = mobile.knife_edge_model()
    plain = rd.simulate(model, np.zeros(3), None, duration=0.1, dt=0.01)
    with pytest.raises(ValueError, match="constraint_violation"):
        mp.plot_constraint_violation(plain)
    run = mobile.drive(ROBOTS["diffdrive"], np.zeros(3), lambda t, q: np.array([0.1, 0.2, 0]),
                       duration=0.2, dt=0.1)  # fmt: skip
    with pytest.raises(ValueError, match=".gif"):
        mp.animate(run, "x.mp4")


@pytest.mark.parametrize("omega", [9e-5, 1.0001e-4, 1.1e-4, 6e-4, 1e-2, 1.0])
def test_planar_exp_equals_40_digits_each_side_of_the_series(omega):
    """planar_exp against a 40-digit evaluation of its closed form, omega each side of the
    series' threshold (1e-4): (1 - cos w)/w in the half-angle form 2 sin^2(w/2)/w, measured
    over 40 twists each <= 4.4e-16; the form 1 - cos w lost 7e-13 at w = 1.0001e-4 and
    1.4e-12 at 1.1e-4. Tolerance 1e-15 (|v| ~ 1)."""
    import mpmath as mp

    rng = np.random.default_rng(int(omega * 1e7))
    for _ in range(40):
        tw = np.r_[omega * rng.choice([-1.0, 1.0]), rng.normal(size=2)]
        with mp.workdps(40):
            w, vx, vy = (mp.mpf(float(c)) for c in tw)
            s, c1 = mp.sin(w) / w, (1 - mp.cos(w)) / w
            want = np.array([float(w), float(vx * s - vy * c1), float(vy * s + vx * c1)])
        assert np.abs(mobile.planar_exp(tw) - want).max() < 1e-15
        assert np.abs(mobile.planar_exp(tw[None])[0] - want).max() < 1e-15
