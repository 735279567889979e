"""Force, hybrid motion-force, impedance and admittance control (issue 31; MR sec. 11.5-11.7)
against closed forms: a slider pressing on a table follows the linear ODE of its contact
spring-damper and the PI force gains (scipy's integrator), and without integral action
settles with the error a payload predicts; a Panda pressing on a table settles to F_d
within 2 % at the depth F_d / k; wiping along a table it tracks the in-plane path while the
normal force holds F_d; the projection P is MR's formula; a 1-DoF arm under impedance
control against a spring wall settles at the root of its torque balance; the rendered
mass-spring-damper and the admittance's commanded motion are the closed-form step
responses; batched rollouts equal single ones; bad input is named."""

from __future__ import annotations

import json

import numpy as np
import pytest

import robodyn as rd

G = 9.81
PANDA_Q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


def slider(mass: float):
    b = rd.ModelBuilder().add_body("slider", "world", joint_type="prismatic",
                                   inertia=rd.inertia.point(mass))  # fmt: skip
    return b.add_frame("tip", "slider").build()


def arm_1dof(mass: float = 1.5, L: float = 0.6):
    """One revolute joint about z, a point mass at (L, 0, 0), frame 'tip' there; gravity
    along -y (in the plane of motion)."""
    b = rd.ModelBuilder().add_body("link", "world", inertia=rd.inertia.point(mass, [L, 0, 0]))
    b.add_frame("tip", "link", rd.transform(p=[L, 0, 0]))
    return b.set_gravity([0.0, -G, 0.0]).build()


def panda_table(stiffness=1e4, damping=100.0, friction=0.0, gap=0.002, points=None):
    """The Panda above a table ``gap`` under its tool at PANDA_Q (whose z points down),
    touching it with the tool's point (or ``points``)."""
    panda = rd.models.load("panda")
    z = rd.fk(panda, PANDA_Q, "ee")[2, 3] - gap
    table = rd.sim.Plane([0, 0, z], [0, 0, 1], stiffness=stiffness, damping=damping,
                         friction=friction)  # fmt: skip
    points = points or [rd.sim.ContactPoint("ee")]
    return panda, rd.sim.Environment(panda, points, [table]), z


def msd_step(M, B, K, F, t):
    """Closed-form response x(t) of M x'' + B x' + K x = F (a step at t = 0, from rest),
    underdamped or overdamped."""
    w2, zeta2 = K / M, B / M  # x'' + zeta2 x' + w2 x = F / M
    disc = zeta2**2 - 4 * w2
    x_inf = F / K
    if disc < 0:
        a, wd = -zeta2 / 2, np.sqrt(-disc) / 2
        return x_inf * (1 - np.exp(a * t) * (np.cos(wd * t) - a / wd * np.sin(wd * t)))
    r1, r2 = (-zeta2 + np.sqrt(disc)) / 2, (-zeta2 - np.sqrt(disc)) / 2
    return x_inf * (1 + (r2 * np.exp(r1 * t) - r1 * np.exp(r2 * t)) / (r1 - r2))


# ------------------------------------------------------------------------ force control
def test_a_slider_pressing_a_table_follows_the_linear_closed_loop():
    """In contact, the slider (mass m) under ForceControl obeys, with d the depth and I the
    integral of F_e (MR eq. 11.47 with the contact's F_tip = -(k d + b d_dot)):
    m d'' = (1 + kfp)(F - k d - b d') - kfi I - kdamp d',  I' = F - k d - b d'
    (scipy's integrator, tight tolerances), and settles at d = F / k."""
    from scipy.integrate import solve_ivp

    m, k, b, F, kfp, kfi, kdamp = 2.0, 2e4, 50.0, 15.0, 0.8, 20.0, 100.0
    model = slider(m)
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip")],
                             [rd.sim.Plane(stiffness=k, damping=b)])  # fmt: skip
    ctrl = rd.control.ForceControl(model, "tip", [0, 0, 0, 0, 0, -F], kfp, kfi,
                                   kdamp=[0, 0, 0, 0, 0, kdamp])  # fmt: skip
    d0 = 1e-4  # in contact from the start (the law's kink at d = 0 is not in the ODE)
    res = rd.simulate(model, [-d0], duration=1.0, dt=1e-4, environment=env, controller=ctrl)

    def ode(t, y):
        d, dd, I = y
        f_e = F - k * d - b * dd  # F_d - F_tip along -z (the press)
        return [dd, ((1 + kfp) * f_e + kfi * I - kdamp * dd) / m, f_e]

    sol = solve_ivp(ode, (0, 1.0), [d0, 0, 0], t_eval=res.t, rtol=1e-11, atol=1e-13)
    assert np.all(sol.y[0] > 0) and np.all(k * sol.y[0] + b * sol.y[1] > 0)  # always pushing
    np.testing.assert_allclose(-res.q[:, 0], sol.y[0], atol=1e-10)
    np.testing.assert_allclose(res.contact_force[:, 0, 2], k * sol.y[0] + b * sol.y[1],
                               atol=1e-5 * F)  # fmt: skip
    np.testing.assert_allclose(-res.z[:, 5], sol.y[2], atol=1e-8)  # z: F_e = -(F - f_n)
    np.testing.assert_allclose(-res.q[-1, 0], F / k, rtol=1e-6)


def test_without_integral_action_a_payload_leaves_the_error_its_weight_shared_by_kfp():
    """The controller's model is 0.5 kg too light: at rest F_tip = F_d - Delta g / (1 +
    kfp) (g - g~ = Delta m g is the wrench it does not know, the P gain takes its part)."""
    m, dm, k, F, kfp = 2.0, 0.5, 1e4, 10.0, 3.0
    env_model = slider(m + dm)
    env = rd.sim.Environment(env_model, [rd.sim.ContactPoint("tip")],
                             [rd.sim.Plane(stiffness=k, damping=200.0)])  # fmt: skip
    ctrl = rd.control.ForceControl(slider(m), "tip", [0, 0, 0, 0, 0, -F], kfp, 0.0, kdamp=50.0)
    res = rd.simulate(env_model, [0.0], duration=2.0, dt=1e-3, environment=env, controller=ctrl)
    press = F + dm * G / (1 + kfp)  # -F_tip,z
    np.testing.assert_allclose(res.contact_force[-1, 0, 2], press, rtol=1e-8)
    np.testing.assert_allclose(-res.q[-1, 0], press / k, rtol=1e-8)


def test_a_panda_pressing_a_table_settles_to_F_d_within_2_percent():
    """The Panda's tool, a flat foot of three points 2 cm around its axis, pushes 20 N down
    on a table of 1e4 N/m (F_d along the tool's z, which points down; zero moments, so
    the foot sits flat). After 0.5 s the normal force stays within 2 % of F_d; at the end
    it is F_d (integral action), shared by the three springs in parallel: the tool sinks
    F_d / (3 k) under the surface, and each point carries F_d / 3."""
    r, k, F = 0.02, 1e4, 20.0
    foot = [rd.sim.ContactPoint("ee", [r * np.cos(a), r * np.sin(a), 0.0])
            for a in (0.0, 2 * np.pi / 3, 4 * np.pi / 3)]  # fmt: skip
    panda, env, z_table = panda_table(stiffness=k, damping=100.0, points=foot)
    # integral action on the pressing force only (on the moments it makes the foot rock)
    ctrl = rd.control.ForceControl(panda, "ee", [0, 0, 0, 0, 0, F], kfp=0.5,
                                   kfi=[0, 0, 0, 0, 0, 10.0], kdamp=[2, 2, 2, 100, 100, 100],
                                   k_null=2.0)  # fmt: skip
    res = rd.simulate(panda, PANDA_Q, controller=ctrl, duration=3.0, dt=1e-3, environment=env)
    f_n = res.contact_force[:, :, 2].sum(axis=1)
    late = res.t >= 0.5
    assert np.all(np.abs(f_n[late] - F) <= 0.02 * F)
    np.testing.assert_allclose(f_n[-1], F, rtol=1e-6)
    np.testing.assert_allclose(res.contact_force[-1, :, 2], F / 3, rtol=1e-5)
    tip = rd.fk(panda, res.q[-1], "ee")[:3, 3]
    np.testing.assert_allclose(z_table - tip[2], F / (3 * k), rtol=1e-5)
    np.testing.assert_allclose(res.contact_force[-1, :, :2], 0.0, atol=1e-6)


# ------------------------------------------------------------------------ hybrid control
def test_the_hybrid_projection_is_mr_s_formula():
    """P = 1 - A^T (A Lambda^-1 A^T)^-1 A Lambda^-1 with Lambda = (J M^-1 J^T)^-1 from the
    mass matrix and the body Jacobian: a projection (P^2 = P) of rank 6 - k that keeps
    nothing of the constrained wrenches' work (A Lambda^-1 P = 0)."""
    panda = rd.models.load("panda")
    A = np.array([[1.0, 0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1.0]])
    ctrl = rd.control.HybridMotionForce(panda, "ee", A, np.eye(4), np.zeros(6), 1, 0, 1, 0, 0)
    rng = np.random.default_rng(0)
    Q = PANDA_Q + rng.uniform(-0.3, 0.3, (4, 7))
    P = ctrl.projection(Q)
    for q, Pq in zip(Q, P):
        M = rd.mass_matrix(panda, q)
        J = rd.jacobian(panda, q, "ee", kind="body")
        Li = J @ np.linalg.solve(M, J.T)  # Lambda^-1
        want = np.eye(6) - A.T @ np.linalg.solve(A @ Li @ A.T, A @ Li)
        np.testing.assert_allclose(Pq, want, atol=1e-10)
        np.testing.assert_allclose(Pq @ Pq, Pq, atol=1e-10)
        np.testing.assert_allclose(A @ Li @ Pq, 0.0, atol=1e-10)
        assert np.linalg.matrix_rank(Pq, tol=1e-8) == 3


def test_wiping_a_table_tracks_the_path_in_the_plane_while_holding_the_normal_force():
    """The tool slides 15 cm along x and 5 cm along y on a table with friction (mu = 0.2)
    while pressing 10 N: the natural constraint of a point contact is v_z = 0 (A's one row),
    the motion is controlled in the five other directions and the force along z. The path
    in the plane is followed within 3 mm (the friction's 2 N against the motion gains),
    the turn about the normal within 0.01 rad, and from 0.5 s on the normal force stays
    within 2 % of F_d."""
    F, k = 10.0, 1e4
    panda, env, z_table = panda_table(stiffness=k, damping=100.0, friction=0.2)
    X_a = rd.fk(panda, PANDA_Q, "ee")
    X_a[2, 3] = z_table - F / k  # the reference on the surface, at the depth F / k
    X_b = X_a.copy()
    X_b[:2, 3] += [0.15, 0.05]
    ref = rd.trajectory.cartesian_trajectory(X_a, X_b, 2.0)
    A = [[0, 0, 0, 0, 0, 1.0]]
    ctrl = rd.control.HybridMotionForce(panda, "ee", A, ref, [0, 0, 0, 0, 0, F], kp=400.0,
                                        ki=0.0, kd=40.0, kfp=0.5, kfi=[0, 0, 0, 0, 0, 20.0],
                                        k_null=2.0)  # fmt: skip
    res = rd.simulate(panda, PANDA_Q, controller=ctrl, duration=3.0, dt=1e-3, environment=env)
    X = rd.fk(panda, res.q, "ee")
    X_d = np.array([ref(t)[0] for t in res.t])
    assert np.abs(X[:, :2, 3] - X_d[:, :2, 3]).max() < 3e-3
    rot = rd.log3(np.swapaxes(X[:, :3, :3], -1, -2) @ X_d[:, :3, :3])  # in {ee}
    assert np.abs(rot[:, 2]).max() < 0.01  # the turn about the normal (in the plane)
    assert np.abs(rot[:, :2]).max() < 0.03  # the friction's tilt (Lambda couples them)
    f_n = res.contact_force[:, 0, 2]
    assert np.all(np.abs(f_n[res.t >= 0.5] - F) <= 0.02 * F)
    assert np.abs(res.contact_force[(res.t > 0.5) & (res.t < 1.5), 0, 0]).min() > 1.9  # sliding


# ------------------------------------------------------------------------ impedance
def test_a_1dof_arm_under_impedance_against_a_spring_wall_reaches_its_equilibrium():
    """A 1-DoF arm (gravity in its plane) told to turn to theta_d = 0.5 rad meets a wall
    (a plane y = y_w, 5e3 N/m) first: at rest the rendered spring balances the wall's
    torque, K (theta_d - theta) = L cos(theta) k_w (L sin(theta) - y_w), whose root
    (scipy's brentq) the run reaches."""
    from scipy.optimize import brentq

    L, K, k_w, y_w, th_d = 0.6, 40.0, 5e3, 0.15, 0.5
    arm = arm_1dof(L=L)
    wall = rd.sim.Plane([0, y_w, 0], [0, -1, 0], stiffness=k_w, damping=50.0)
    env = rd.sim.Environment(arm, [rd.sim.ContactPoint("tip")], [wall])
    ref = rd.fk(arm, [th_d], "tip")
    ctrl = rd.control.Impedance(arm, "tip", ref, M=0.2, B=4.0, K=K, rows=[2])
    res = rd.simulate(arm, [0.0], controller=ctrl, duration=4.0, dt=1e-3, environment=env)
    th_w = np.arcsin(y_w / L)

    def balance(th):
        return K * (th_d - th) - L * np.cos(th) * k_w * (L * np.sin(th) - y_w)

    th_eq = brentq(balance, th_w, th_d, xtol=1e-14)
    np.testing.assert_allclose(res.q[-1, 0], th_eq, rtol=1e-8)
    assert th_w < th_eq < th_d


def test_impedance_renders_the_virtual_mass_spring_damper():
    """A step force through the Panda's tool point (f_ext on its body): with inertia
    shaping, each axis of the tool's displacement from the reference is the closed-form
    step response of M x'' + B x' + K x = f, and the tool does not turn."""
    panda = rd.models.load("panda")
    X_d = rd.fk(panda, PANDA_Q, "ee")
    f_w = np.array([4.0, -3.0, 6.0])  # N, world axes
    M, B, K = [1, 1, 1, 3.0, 2.0, 4.0], [10, 10, 10, 30.0, 40.0, 20.0], [50, 50, 50, 300, 400, 200]
    ctrl = rd.control.Impedance(panda, "ee", X_d, M, B, K, k_null=2.0)
    f_ext = _force_at_ee(panda, f_w)
    res = rd.simulate(panda, PANDA_Q, controller=ctrl, duration=1.0, dt=1e-3, f_ext=f_ext)
    X = rd.fk(panda, res.q, "ee")
    x = np.einsum("ji,kj->ki", X_d[:3, :3], X[:, :3, 3] - X_d[:3, 3])  # in {ee}'s axes
    f = X_d[:3, :3].T @ f_w
    for i in range(3):
        want = msd_step(M[3 + i], B[3 + i], K[3 + i], f[i], res.t)
        np.testing.assert_allclose(x[:, i], want, atol=1e-7)
    rot = rd.log3(np.swapaxes(X[:, :3, :3], -1, -2) @ X_d[:3, :3])
    assert np.abs(rot).max() < 1e-9


def _force_at_ee(panda, f_w):
    """f_ext of a constant world force f_w at the ee frame's origin, at PANDA_Q (the body
    wrench [p x f; f] in body7's frame; the ee keeps its orientation in the tests)."""
    f_ext = np.zeros((panda.nb, 6))
    b = panda.frame_body[panda.frame_id("ee")]
    T_sb = rd.kinematics.forward.body_poses(panda, PANDA_Q)[b]
    p = panda.frame_p[panda.frame_id("ee")]
    f_b = T_sb[:3, :3].T @ f_w
    f_ext[b] = np.concatenate([np.cross(p, f_b), f_b])
    return f_ext


# ------------------------------------------------------------------------ admittance
def test_the_admittance_command_is_the_closed_form_step_response():
    """The measured step force drives the controller's state: x_c(t) is the closed-form
    step response of M x'' + B x' + K x = f on each axis (underdamped and overdamped), and
    the tool, tracking it from rest with the measured force compensated, moves by it."""
    panda = rd.models.load("panda")
    X_d = rd.fk(panda, PANDA_Q, "ee")
    f_w = np.array([-5.0, 2.0, 3.0])
    M, B, K = [1, 1, 1, 2.0, 1.0, 0.5], [20, 20, 20, 8.0, 30.0, 3.0], [100, 100, 100, 200.0,
                                                                      100.0, 150.0]  # fmt: skip
    ctrl = rd.control.Admittance(panda, "ee", X_d, M, B, K, kp=400.0, kd=40.0, k_null=2.0)
    res = rd.simulate(panda, PANDA_Q, controller=ctrl, duration=2.0, dt=1e-3,
                      f_ext=_force_at_ee(panda, f_w))  # fmt: skip
    f = X_d[:3, :3].T @ f_w
    np.testing.assert_allclose(res.z[:, :3], 0.0, atol=1e-12)  # no moment: no turn
    for i in range(3):
        np.testing.assert_allclose(res.z[:, 3 + i], msd_step(M[3 + i], B[3 + i], K[3 + i],
                                                             f[i], res.t), atol=1e-9)  # fmt: skip
    X = rd.fk(panda, res.q, "ee")
    tip = np.einsum("ji,kj->ki", X_d[:3, :3], X[:, :3, 3] - X_d[:3, 3])
    np.testing.assert_allclose(tip, res.z[:, 3:6], atol=1e-9)  # tracked from rest, exactly


# ------------------------------------------------------------------------ batches
def _controllers(panda, z_table):
    X_a = rd.fk(panda, PANDA_Q, "ee")
    X_a[2, 3] = z_table - 1e-3
    Fz = [0, 0, 0, 0, 0, 10.0]
    return {
        "force": rd.control.ForceControl(panda, "ee", Fz, 0.5, 10.0, kdamp=[1, 1, 1, 50, 50, 50],
                                         sensor=rd.sim.ForceSensor("ee", cutoff=30.0)),
        "hybrid": rd.control.HybridMotionForce(panda, "ee", [[0, 0, 0, 0, 0, 1.0]], X_a, Fz,
                                               400.0, 10.0, 40.0, 0.5, 10.0),
        "impedance": rd.control.Impedance(panda, "ee", X_a, 2.0, 40.0, 300.0),
        "admittance": rd.control.Admittance(panda, "ee", X_a, 2.0, 40.0, 300.0),
    }  # fmt: skip


@pytest.mark.parametrize("name", ["force", "hybrid", "impedance", "admittance"])
def test_batched_rollouts_equal_single_ones(name):
    panda, env, z_table = panda_table(friction=0.3)
    ctrl = _controllers(panda, z_table)[name]
    rng = np.random.default_rng(6)
    Q = PANDA_Q + rng.uniform(-0.03, 0.03, (3, 7))
    batch = rd.simulate(panda, Q, controller=ctrl, duration=0.3, dt=1e-3, environment=env)
    assert np.abs(batch.contact_force).max() > 1.0
    for i in range(3):
        one = rd.simulate(panda, Q[i], controller=ctrl, duration=0.3, dt=1e-3,
                          environment=env)  # fmt: skip
        for x in ("q", "v", "tau", "z", "contact_force"):
            got, want = getattr(batch[i], x), getattr(one, x)
            if want is None:
                assert got is None
                continue
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * (1 + np.abs(want).max()))
    json.dumps(ctrl.describe())  # what a store of rollouts keeps


# ------------------------------------------------------------------------ bad input
def _bad_cases():
    panda = rd.models.load("panda")
    X = np.eye(4)
    F = np.zeros(6)
    C = rd.control

    def hybrid(A, F_d):
        return C.HybridMotionForce(panda, "ee", A, X, F_d, 1, 0, 1, 0, 0)

    return [
        (lambda: hybrid(np.ones((2, 5)), F), "A"),
        (lambda: hybrid([[1, 0, 0, 0, 0, 0]] * 2, F), "A"),
        (lambda: hybrid(np.ones((1, 6)), F[:5]), "F_d"),
        (lambda: C.ForceControl(panda, "ee", np.zeros(3), 1.0, 1.0), "F_d"),
        (lambda: C.ForceControl(panda, "ee", F, -1.0, 1.0), "kfp"),
        (lambda: C.ForceControl(panda, "ee", F, 1.0, np.ones(5)), "kfi"),
        (lambda: C.ForceControl(panda, "nope", F, 1.0, 1.0), "frame"),
        (lambda: C.Impedance(panda, "ee", X, 0.0, 1.0, 1.0), "M"),
        (lambda: C.Impedance(panda, "ee", X, 1.0, -1.0, 1.0), "B"),
        (lambda: C.Impedance(panda, "ee", X, 1.0, 1.0, np.diag([1, 1, 1, 1, 1, -1.0])), "K"),
        (lambda: C.Impedance(panda, "nope", X, 1.0, 1.0, 1.0), "frame"),
        (lambda: C.Impedance(panda, "ee", np.eye(3), 1.0, 1.0, 1.0), "ref"),
        (lambda: C.Admittance(panda, "ee", X, [1.0, 2.0], 1.0, 1.0), "M"),
        (lambda: C.Admittance(panda, "ee", X, 1.0, 1.0, 0.0), "K"),
        (lambda: C.Admittance(arm_1dof(), "tip", X, 1.0, 1.0, 1.0), "rows"),
        (lambda: C.Impedance(panda, "ee", X, 1.0, 1.0, 1.0, sensor="ft"), "sensor"),
        (lambda: C.ForceControl(panda, "ee", F, 1, 1, sensor=rd.sim.ForceSensor("no")), "sensor"),
    ]


@pytest.mark.parametrize("case", range(17))
def test_bad_input_raises_a_value_error_naming_the_argument(case):
    make, word = _bad_cases()[case]
    with pytest.raises(ValueError, match=rf"\b{word}\b"):
        make()
