"""Single rigid body: Newton-Euler wrench, Euler's equations, Lie-group simulation.

Independent sources: closed forms typed here (Euler's equations by hand, the symmetric top,
constant torque from rest, the elliptic-function period of torque-free tumbling), the
modern_robotics package (ad), Pinocchio (spatial inertia), scipy's rotation exponential,
conservation laws and the convergence order of the integrators.
"""

from __future__ import annotations

import modern_robotics as mr
import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation
from scipy.special import ellipk

from robodyn.rigidbody import (
    angular_acceleration,
    count_flips,
    dzhanibekov_demo,
    euler_body,
    euler_principal,
    euler_space,
    forward_dynamics,
    plot_tumbling,
    simulate,
    spatial_inertia,
    wrench,
)


def _expm(phi) -> np.ndarray:
    """Rotation exponential from scipy (independent of robodyn.spatial)."""
    return Rotation.from_rotvec(np.asarray(phi, dtype=float)).as_matrix()


def _hat(w) -> np.ndarray:
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]], dtype=float)


def _random_spd(rng) -> np.ndarray:
    A = rng.normal(size=(3, 3))
    return A @ A.T + 0.5 * np.eye(3)


def _adjoint(R, p) -> np.ndarray:
    """[Ad_T] = [[R, 0], [[p] R, R]] typed here (MR def. 3.20)."""
    Ad = np.zeros((6, 6))
    Ad[:3, :3] = R
    Ad[3:, 3:] = R
    Ad[3:, :3] = _hat(p) @ R
    return Ad


# ------------------------------------------------------------------ wrench and Euler
def test_wrench_closed_form_by_hand():
    # I = diag(1, 2, 3), omega = (1, 2, 3), domega = 0: I omega = (1, 4, 9),
    # omega x I omega = (2*9 - 3*4, 3*1 - 1*9, 1*4 - 2*1) = (6, -6, 2).
    # m = 2, v = (1, 0, -1), dv = (0.5, 1, 0): omega x v = (-2, 4, -2),
    # m (dv + omega x v) = 2 * (-1.5, 5, -2) = (-3, 10, -4).
    G = np.diag([1.0, 2.0, 3.0, 2.0, 2.0, 2.0])
    F = wrench(G, [1, 2, 3, 1, 0, -1], [0, 0, 0, 0.5, 1, 0])
    np.testing.assert_allclose(F, [6, -6, 2, -3, 10, -4], atol=1e-14)
    np.testing.assert_allclose(euler_body(np.diag([1.0, 2, 3]), [1, 2, 3], [0, 0, 0]), [6, -6, 2])


def test_wrench_matches_course_notes_formula_and_mr_ad(rng):
    for _ in range(20):
        I = _random_spd(rng)
        m = rng.uniform(0.1, 5)
        w, v, dw, dv = rng.normal(size=(4, 3))
        G = np.zeros((6, 6))
        G[:3, :3] = I
        G[3:, 3:] = m * np.eye(3)
        V = np.r_[w, v]
        dV = np.r_[dw, dv]
        F = wrench(G, V, dV)
        # course notes 004: [I dw + [w] I w, m (dv + [w] v)]
        np.testing.assert_allclose(F[:3], I @ dw + _hat(w) @ I @ w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(F[3:], m * (dv + _hat(w) @ v), rtol=1e-12, atol=1e-12)
        # MR eq. 8.41 with the modern_robotics package's ad; course notes 004 print it without
        # the minus sign (G dV [ad_V]^T G V): the plus reading is wrong
        np.testing.assert_allclose(F, G @ dV - mr.ad(V).T @ G @ V, rtol=1e-12, atol=1e-12)
        assert not np.allclose(F, G @ dV + mr.ad(V).T @ G @ V, atol=1e-6)
        np.testing.assert_allclose(F[:3], euler_body(I, w, dw), rtol=1e-12, atol=1e-12)


def test_wrench_batched_equals_loop(rng):
    G = np.zeros((6, 6))
    G[:3, :3] = _random_spd(rng)
    G[3:, 3:] = 1.7 * np.eye(3)
    V = rng.normal(size=(7, 6))
    dV = rng.normal(size=(7, 6))
    F = wrench(G, V, dV)
    assert F.shape == (7, 6)
    for k in range(7):
        np.testing.assert_allclose(F[k], G @ dV[k] - mr.ad(V[k]).T @ G @ V[k], atol=1e-12)


def test_euler_principal_equals_body_and_space_form(rng):
    for _ in range(20):
        d = rng.uniform(0.2, 3, size=3)
        w, dw = rng.normal(size=(2, 3))
        np.testing.assert_allclose(
            euler_principal(d, w, dw), euler_body(np.diag(d), w, dw), rtol=1e-12, atol=1e-12
        )
        I = _random_spd(rng)
        R = _expm(rng.normal(size=3))
        # eq. 10.37 with I_s = R I R^T, omega_s = R omega, domega_s = R domega
        np.testing.assert_allclose(
            euler_space(R @ I @ R.T, R @ w, R @ dw),
            R @ euler_body(I, w, dw),
            rtol=1e-12,
            atol=1e-12,
        )
    # eq. 10.45 typed by hand: I = (1, 2, 3), w = (1, 2, 3), dw = (1, 1, 1)
    # tau = (1 + (3-2)*6, 2 + (1-3)*3, 3 + (2-1)*2) = (7, -4, 5)
    np.testing.assert_allclose(euler_principal([1, 2, 3], [1, 2, 3], [1, 1, 1]), [7, -4, 5])


def test_wrench_frame_invariance(rng):
    # {b} at the CoM, {a} another frame fixed to the body: V_a = Ad_ab V_b,
    # G_a = Ad_ba^T G_b Ad_ba (MR eq. 8.42), then F_a = Ad_ba^T F_b.
    for _ in range(20):
        G_b = np.zeros((6, 6))
        G_b[:3, :3] = _random_spd(rng)
        G_b[3:, 3:] = rng.uniform(0.5, 3) * np.eye(3)
        R_ab = _expm(rng.normal(size=3))
        p_ab = rng.normal(size=3)
        Ad_ab = _adjoint(R_ab, p_ab)
        Ad_ba = _adjoint(R_ab.T, -R_ab.T @ p_ab)
        np.testing.assert_allclose(Ad_ab @ Ad_ba, np.eye(6), atol=1e-12)
        V_b, dV_b = rng.normal(size=(2, 6))
        G_a = Ad_ba.T @ G_b @ Ad_ba
        F_a = wrench(G_a, Ad_ab @ V_b, Ad_ab @ dV_b)
        np.testing.assert_allclose(F_a, Ad_ba.T @ wrench(G_b, V_b, dV_b), rtol=1e-10, atol=1e-10)


def test_forward_dynamics_inverts_wrench(rng):
    for _ in range(20):
        I = _random_spd(rng)
        m = rng.uniform(0.2, 4)
        V, dV = rng.normal(size=(2, 6))
        G = np.zeros((6, 6))
        G[:3, :3] = I
        G[3:, 3:] = m * np.eye(3)
        F = G @ dV - mr.ad(V).T @ G @ V
        np.testing.assert_allclose(forward_dynamics(G, V, F), dV, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(forward_dynamics(I, V, F, mass=m), dV, rtol=1e-10, atol=1e-10)
        tau = I @ dV[:3] + np.cross(V[:3], I @ V[:3])
        np.testing.assert_allclose(angular_acceleration(I, V[:3], tau), dV[:3], atol=1e-10)
    # batch
    Vs = rng.normal(size=(5, 6))
    Fs = rng.normal(size=(5, 6))
    out = forward_dynamics(G, Vs, Fs)
    for k in range(5):
        np.testing.assert_allclose(G @ out[k] - mr.ad(Vs[k]).T @ G @ Vs[k], Fs[k], atol=1e-10)


def test_spatial_inertia_off_com_matches_pinocchio(rng):
    I = _random_spd(rng)
    m, c = 1.3, np.array([0.1, -0.2, 0.3])
    G = spatial_inertia(I, mass=m, com=c)
    # Pinocchio orders [v, omega]; reorder to [omega, v]
    Gp = pin.Inertia(m, c, I).matrix()
    perm = [3, 4, 5, 0, 1, 2]
    np.testing.assert_allclose(G, Gp[np.ix_(perm, perm)], atol=1e-12)
    np.testing.assert_allclose(
        spatial_inertia(I, mass=m), np.diag([0, 0, 0, m, m, m]) + np.pad(I, ((0, 3), (0, 3)))
    )


def test_rigid_inertia_box_input():
    from robodyn.inertia import box

    body = box(mass=1.0, size=(0.1, 0.3, 0.6))
    # solid box: m/12 (b^2 + c^2, a^2 + c^2, a^2 + b^2) = (0.0375, 0.37/12, 0.1/12)
    I = np.diag([0.0375, 0.37 / 12, 0.1 / 12])
    w, dw = np.array([0.3, -1.0, 2.0]), np.array([0.1, 0.2, -0.3])
    np.testing.assert_allclose(angular_acceleration(body, w, euler_body(I, w, dw)), dw, atol=1e-12)
    V, F = np.r_[w, 1.0, 2.0, 3.0], np.r_[0.01, 0.02, 0.03, 1.0, 0.0, -1.0]
    np.testing.assert_allclose(
        forward_dynamics(body, V, F), forward_dynamics(I, V, F, mass=1.0), atol=1e-12
    )
    a = simulate(body, np.eye(3), [0.02, 2.0, 0.02], 5.0, 1e-2)
    b = simulate(I, np.eye(3), [0.02, 2.0, 0.02], 5.0, 1e-2)
    np.testing.assert_allclose(a.R, b.R, atol=1e-12)
    np.testing.assert_allclose(a.energy[0], 0.5 * (0.0375 * 4e-4 + 0.37 / 12 * 4 + 0.1 / 12 * 4e-4))


# ---------------------------------------------------------------------------- simulation
def _ordered_principal_half_period(Id, w0):
    """Time between sign changes of omega_2 for torque-free motion, I1 < I2 < I3 and
    L^2 > 2 E I2 (Landau & Lifshitz, Mechanics, sec. 37): omega_2 ~ sn(tau, k), zeros every
    2 K(k) in tau = t sqrt((I3 - I2)(L^2 - 2 E I1) / (I1 I2 I3))."""
    I1, I2, I3 = Id
    E2 = float(np.sum(Id * w0**2))  # 2E
    L2 = float(np.sum((Id * w0) ** 2))
    assert L2 > E2 * I2
    k2 = (I2 - I1) * (E2 * I3 - L2) / ((I3 - I2) * (L2 - E2 * I1))
    rate = np.sqrt((I3 - I2) * (L2 - E2 * I1) / (I1 * I2 * I3))
    return 2 * ellipk(k2) / rate


def test_intermediate_axis_conservation_and_flip():
    Id = np.array([1.0, 2.0, 3.0])
    w0 = np.array([0.01, 2.0, 0.012])
    R0 = _expm([0.3, -0.5, 0.2])
    lie = simulate(np.diag(Id), R0, w0, 100.0, 1e-3, "lie_rk4")
    assert lie.t.shape == (100001,) and lie.R.shape == (100001, 3, 3)
    assert lie.omega.shape == (100001, 3) and lie.momentum.shape == (100001, 3)
    RtR = np.swapaxes(lie.R, 1, 2) @ lie.R
    assert np.abs(RtR - np.eye(3)).max() < 1e-12
    assert np.all(np.abs(np.linalg.det(lie.R) - 1) < 1e-12)
    E0 = 0.5 * np.sum(Id * w0**2)
    L0 = R0 @ (Id * w0)  # spatial angular momentum
    assert np.abs(lie.energy - E0).max() / E0 < 1e-8
    assert np.linalg.norm(lie.momentum - L0, axis=1).max() / np.linalg.norm(L0) < 1e-8
    assert lie.energy_drift < 1e-8 and lie.momentum_drift < 1e-8
    # Dzhanibekov flips: omega_y changes sign, every half period of sn (closed form)
    wy = lie.omega[:, 1]
    idx = np.nonzero(np.sign(wy[1:]) != np.sign(wy[:-1]))[0]
    assert len(idx) >= 2
    assert count_flips(lie) == len(idx) == count_flips(lie, axis=1)
    t_cross = lie.t[idx] - wy[idx] * 1e-3 / (wy[idx + 1] - wy[idx])  # linear interpolation
    np.testing.assert_allclose(np.diff(t_cross), _ordered_principal_half_period(Id, w0), rtol=1e-8)
    # explicit Euler on R: drifts by far more, and leaves SO(3)
    eul = simulate(np.diag(Id), R0, w0, 100.0, 1e-3, "euler")
    print(
        f"drift lie_rk4: E {lie.energy_drift:.2e}, L {lie.momentum_drift:.2e}, "
        f"R {lie.rotation_error:.2e}; euler: E {eul.energy_drift:.2e}, "
        f"L {eul.momentum_drift:.2e}, R {eul.rotation_error:.2e}"
    )
    assert eul.energy_drift > 100 * max(lie.energy_drift, 1e-16)
    assert eul.momentum_drift > 100 * max(lie.momentum_drift, 1e-16)
    assert eul.rotation_error > 1e-2
    assert eul.energy_drift > 1e-3


def test_lie_euler_stays_on_so3_first_order(rng):
    I = _random_spd(rng)
    w0 = np.array([0.4, -1.0, 0.7])
    ref = simulate(I, np.eye(3), w0, 2.0, 1e-4, "lie_rk4")
    errs = []
    for h in (1e-2, 5e-3):
        r = simulate(I, np.eye(3), w0, 2.0, h, "lie_euler")
        assert r.rotation_error < 1e-13
        errs.append(np.abs(r.R[-1] - ref.R[-1]).max())
    assert 1.8 < errs[0] / errs[1] < 2.2  # first order


def test_lie_rk4_fourth_order_with_state_dependent_torque():
    # heavy-top-like torque c x (R^T m g) plus a time-varying term: exercises the stage states
    I = np.array([[3.0, 0.2, 0.1], [0.2, 2.0, -0.3], [0.1, -0.3, 1.0]])
    c, g = np.array([0.1, 0.2, 0.3]), np.array([0.0, 0.0, -9.81])

    def torque(t, R, w):
        return np.cross(c, R.T @ g) + 0.1 * np.sin(t) * np.array([1.0, 0.0, 0.0])

    w0 = np.array([0.5, 2.0, -0.3])
    ref = simulate(I, np.eye(3), w0, 1.0, 2.5e-3, torque=torque)
    e = [
        np.abs(simulate(I, np.eye(3), w0, 1.0, h, torque=torque).R[-1] - ref.R[-1]).max()
        for h in (0.05, 0.025)
    ]
    assert 13 < e[0] / e[1] < 19  # 2^4 = 16
    assert ref.rotation_error < 1e-13


def test_compiled_kernel_matches_python_reference():
    I = np.array([[3.0, 0.2, 0.1], [0.2, 2.0, -0.3], [0.1, -0.3, 1.0]])
    R0 = _expm([0.3, -0.2, 0.5])
    for integrator in ("lie_rk4", "lie_euler", "euler"):
        a = simulate(I, R0, [0.5, 2, -0.3], 1.0, 1e-2, integrator, backend="compiled")
        b = simulate(I, R0, [0.5, 2, -0.3], 1.0, 1e-2, integrator, backend="python")
        np.testing.assert_allclose(a.R, b.R, atol=1e-12)
        np.testing.assert_allclose(a.omega, b.omega, atol=1e-12)


def test_symmetric_top_closed_form():
    # I = diag(I1, I1, I3): omega_3 constant, (w1, w2) rotates at Omega = (I3 - I1)/I1 w3,
    # R(t) = exp([L_s] t / I1) R0 exp(-[e3] Omega t).
    I1, I3 = 2.0, 3.0
    w0 = np.array([0.3, -0.4, 1.5])
    R0 = _expm([0.2, 0.7, -0.4])
    res = simulate(np.diag([I1, I1, I3]), R0, w0, 20.0, 1e-3)
    t = res.t
    Om = (I3 - I1) / I1 * w0[2]  # = 0.75 rad/s
    c, s = np.cos(Om * t), np.sin(Om * t)
    expected = np.stack([w0[0] * c - w0[1] * s, w0[0] * s + w0[1] * c, np.full_like(t, w0[2])], 1)
    np.testing.assert_allclose(res.omega, expected, atol=1e-8)
    L_s = R0 @ (np.array([I1, I1, I3]) * w0)
    for k in range(0, len(t), 2500):
        R_exp = _expm(L_s * t[k] / I1) @ R0 @ _expm([0.0, 0.0, -Om * t[k]])
        np.testing.assert_allclose(res.R[k], R_exp, atol=1e-8)


def test_constant_torque_from_rest():
    # tau = 0.8 about z, I_zz = 4: omega_z = 0.2 t, angle = 0.1 t^2, R = Rz(0.1 t^2)
    res = simulate(
        np.diag([1.0, 2.0, 4.0]),
        np.eye(3),
        [0.0, 0.0, 0.0],
        3.0,
        1e-2,
        torque=lambda t, R, w: np.array([0.0, 0.0, 0.8]),
    )
    t = res.t
    np.testing.assert_allclose(res.omega[:, 2], 0.2 * t, atol=1e-12)
    np.testing.assert_allclose(res.omega[:, :2], 0.0, atol=1e-15)
    ang = 0.1 * t**2
    Rz = np.zeros((len(t), 3, 3))
    Rz[:, 0, 0] = Rz[:, 1, 1] = np.cos(ang)
    Rz[:, 0, 1], Rz[:, 1, 0] = -np.sin(ang), np.sin(ang)
    Rz[:, 2, 2] = 1.0
    np.testing.assert_allclose(res.R, Rz, atol=1e-12)
    np.testing.assert_allclose(res.energy, 0.5 * 4.0 * (0.2 * t) ** 2, atol=1e-12)
    # about x with I_xx = 1: omega_x = tau t
    res = simulate(
        np.diag([1.0, 2.0, 4.0]),
        np.eye(3),
        np.zeros(3),
        1.0,
        1e-2,
        "lie_euler",
        torque=lambda t, R, w: np.array([0.5, 0.0, 0.0]),
    )
    np.testing.assert_allclose(res.omega[:, 0], 0.5 * res.t, atol=1e-12)


def test_grid_and_result_is_read_only():
    res = simulate(np.diag([1.0, 2.0, 3.0]), np.eye(3), [0, 1, 0], 0.1, 0.03)
    # ceil(0.1 / 0.03) = 4 steps of exactly dt
    np.testing.assert_allclose(res.t, [0, 0.03, 0.06, 0.09, 0.12])
    with pytest.raises(ValueError):
        res.R[0, 0, 0] = 2.0
    assert len(simulate(np.eye(3), np.eye(3), [0, 0, 1], 1.0, 0.1).t) == 11


def test_plot_tumbling_writes_png(tmp_path):
    I = np.diag([1.0, 2.0, 3.0])
    a = simulate(I, np.eye(3), [0.01, 2, 0.01], 20.0, 1e-2)
    b = simulate(I, np.eye(3), [0.01, 2, 0.01], 20.0, 1e-2, "euler")
    out = plot_tumbling(a, tmp_path / "tumble.png", title="test", compare=b)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    # a missing folder is an error naming it, not a tree created in silence (issue 26/27)
    with pytest.raises(ValueError, match="the folder .*sub' does not exist"):
        plot_tumbling(a, tmp_path / "sub" / "tumble.png")
    assert not (tmp_path / "sub").exists()


def test_dzhanibekov_demo(tmp_path):
    demo = dzhanibekov_demo(tmp_path, duration=30.0, dt=2e-3)
    s = demo.summary
    assert s["steps"] == 15000
    assert s["flips"] >= 2
    assert s["energy_drift"] < 1e-9 and s["momentum_drift"] < 1e-9
    assert s["rotation_error"] < 1e-12
    assert s["euler_energy_drift"] > 100 * s["energy_drift"]
    assert s["euler_rotation_error"] > 1e-3
    assert demo.figure.stat().st_size > 10_000
    # box 0.1 x 0.3 x 0.6 m, 1 kg: intermediate moment 0.37/12 about y, spin 2 rad/s
    np.testing.assert_allclose(
        demo.lie.energy[0], 0.5 * (0.0375 * 4e-4 + 0.37 / 12 * 4 + 0.1 / 12 * 4e-4)
    )


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"R0": 2 * np.eye(3)}, "R0"),
        ({"R0": np.diag([1.0, 1.0, -1.0])}, "R0"),
        ({"R0": np.eye(4)}, "R0"),
        ({"dt": -1e-3}, "dt"),
        ({"dt": 0.0}, "dt"),
        ({"dt": float("nan")}, "dt"),
        ({"duration": -1.0}, "duration"),
        ({"omega0": [1.0, 2.0]}, "omega0"),
        ({"omega0": [[1.0, 2.0, 3.0]]}, "omega0"),
        ({"inertia": np.eye(2)}, "inertia"),
        ({"inertia": np.diag([1.0, -1.0, 1.0])}, "inertia"),
        ({"inertia": np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]])}, "inertia"),
        ({"integrator": "rk45"}, "integrator"),
        ({"duration": 1e3, "dt": 1e-5}, "MAX_STEPS"),
        ({"torque": 3.0}, "torque"),
        ({"torque": lambda t, R, w: np.zeros(2)}, "torque"),
        ({"torque": lambda t, R, w: np.zeros(3), "backend": "compiled"}, "compiled"),
    ],
)
def test_simulate_bad_input(kwargs, match):
    args = {
        "inertia": np.diag([1.0, 2.0, 3.0]),
        "R0": np.eye(3),
        "omega0": [0.0, 1.0, 0.0],
        "duration": 1.0,
        "dt": 1e-2,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        simulate(**args)


def test_function_bad_shapes():
    with pytest.raises(ValueError, match="V"):
        wrench(np.eye(6), np.zeros(5), np.zeros(6))
    with pytest.raises(ValueError, match="G"):
        wrench(np.eye(3), np.zeros(6), np.zeros(6))
    with pytest.raises(ValueError, match="domega"):
        euler_body(np.eye(3), np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="I_diag"):
        euler_principal(np.eye(3)[0][:2], np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="mass"):
        forward_dynamics(np.eye(3), np.zeros(6), np.zeros(6))
    with pytest.raises(ValueError, match="singular"):
        forward_dynamics(np.zeros((6, 6)), np.zeros(6), np.zeros(6))
    with pytest.raises(ValueError, match="tau"):
        angular_acceleration(np.eye(3), np.zeros(3), np.zeros(2))
