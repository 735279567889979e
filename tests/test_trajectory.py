"""rd.trajectory (MR ch. 9): time scalings against the book's closed forms, derivatives
against finite differences, paths against their geometry, the MR wrappers against the
modern_robotics package, splines against scipy built here independently."""

from __future__ import annotations

import modern_robotics as mr_pkg
import numpy as np
import pytest

import robodyn as rd
from robodyn import mr
from robodyn.trajectory import (
    CubicScaling,
    QuinticScaling,
    SCurveScaling,
    TrapezoidalScaling,
    cartesian_trajectory,
    joint_trajectory,
    screw_trajectory,
    spline_trajectory,
)


def _fd(f, t, h=1e-6):
    return (np.asarray(f(t + h)) - np.asarray(f(t - h))) / (2 * h)


# ------------------------------------------------------------------ time scalings
def test_cubic_and_quintic_closed_forms():
    T = 2.0
    s, sd, sdd = CubicScaling(T)(T / 2)
    # MR eq. 9.4: s(T/2) = 1/2, peak sd = 3 / (2T), sdd(0) = 6 / T^2
    assert (s, sd, sdd) == pytest.approx((0.5, 3 / (2 * T), 0.0), abs=1e-15)
    assert CubicScaling(T)(1e-12)[2] == pytest.approx(6 / T**2, rel=1e-9)
    s, sd, sdd = QuinticScaling(T)(T / 2)
    # MR eq. 9.5: peak sd = 15 / (8T); peak sdd = 10 / (sqrt(3) T^2) at r = 1/2 - sqrt(3)/6
    assert (s, sd, sdd) == pytest.approx((0.5, 15 / (8 * T), 0.0), abs=1e-15)
    r = 0.5 - np.sqrt(3) / 6
    assert QuinticScaling(T)(r * T)[2] == pytest.approx(10 / (np.sqrt(3) * T**2), rel=1e-12)
    for sc in (CubicScaling(T), QuinticScaling(T)):
        assert sc(0.0)[:2] == (0.0, 0.0) and sc(T)[:2] == (1.0, 0.0)
        assert sc(-1.0) == (0.0, 0.0, 0.0) and sc(T + 1) == (1.0, 0.0, 0.0)  # held
    assert QuinticScaling(T)(0.0)[2] == 0.0 and QuinticScaling(T)(T)[2] == 0.0


@pytest.mark.parametrize(
    "sc",
    [CubicScaling(1.7), QuinticScaling(1.7), TrapezoidalScaling(v_max=1.2, a_max=4.0),
     SCurveScaling(v_max=1.2, a_max=4.0, j_max=30.0), SCurveScaling(duration=1.5)],
    ids=["cubic", "quintic", "trapezoidal", "scurve", "scurve-T"],
)  # fmt: skip
def test_derivatives_match_finite_differences(sc):
    t = np.linspace(0.01, sc.duration - 0.01, 57)
    s, sd, sdd = sc(t)
    assert np.allclose(sd, _fd(lambda x: sc(x)[0], t), atol=1e-6)
    # sdd jumps at the trapezoid's corners: compare away from them
    ok = np.ones_like(t, bool)
    if isinstance(sc, TrapezoidalScaling):
        for c in (sc.t_a, sc.duration - sc.t_a):
            ok &= np.abs(t - c) > 1e-3
    assert np.allclose(sdd[ok], _fd(lambda x: sc(x)[1], t)[ok], atol=1e-5)
    assert sc(sc.duration)[0] == pytest.approx(1.0, abs=1e-14) and sc(0.0)[0] == 0.0


def test_trapezoid_book_formulas_and_limits():
    # MR sec. 9.2.2.2: T = (a + v^2) / (v a); the three ways to give two of T, v, a agree
    v, a = 1.2, 4.0
    sc = TrapezoidalScaling(v_max=v, a_max=a)
    assert sc.duration == pytest.approx((a + v * v) / (v * a), rel=1e-15)
    for other in (TrapezoidalScaling(duration=sc.duration, v_max=v),
                  TrapezoidalScaling(duration=sc.duration, a_max=a)):  # fmt: skip
        assert other.v == pytest.approx(v, rel=1e-12) and other.a == pytest.approx(a, rel=1e-12)
    t = np.linspace(0, sc.duration, 2001)
    s, sd, sdd = sc(t)
    assert np.all(np.abs(sd) <= v + 1e-15) and np.all(np.abs(sdd) <= a + 1e-15)
    cruise = (t > sc.t_a + 1e-9) & (t < sc.duration - sc.t_a - 1e-9)
    assert np.allclose(sd[cruise], v) and np.allclose(sdd[t < sc.t_a], a)
    # v^2 / a > 1: a triangle at v = sqrt(a)
    tri = TrapezoidalScaling(v_max=5.0, a_max=4.0)
    assert tri.v == 2.0 and tri.duration == pytest.approx(1.0) and tri(0.5)[1] == pytest.approx(2.0)


def test_scurve_jerk_bound_and_continuity():
    sc = SCurveScaling(v_max=1.2, a_max=4.0, j_max=30.0)
    t = np.linspace(0, sc.duration, 20001)
    s, sd, sdd = sc(t)
    assert np.all(np.abs(np.diff(sdd)) <= 30.0 * (t[1] - t[0]) * (1 + 1e-9))  # |jerk| <= J
    assert np.all(np.abs(sd) <= 1.2 + 1e-12) and np.all(np.abs(sdd) <= 4.0 + 1e-12)
    assert np.all(np.diff(s) >= -1e-15) and s[-1] == 1.0
    # a short path: the limits cannot all be reached, yet s still ends at 1
    short = SCurveScaling(v_max=50.0, a_max=50.0, j_max=5.0)
    assert short(short.duration)[0] == 1.0 and np.max(np.abs(short(t * 0 + 0.3)[2])) <= 50.0


def test_infeasible_limits_name_the_argument():
    with pytest.raises(ValueError, match="v_max"):
        TrapezoidalScaling(duration=1.0, v_max=0.5)  # v T <= 1: never arrives
    with pytest.raises(ValueError, match="a_max"):
        TrapezoidalScaling(duration=1.0, a_max=2.0)  # a T^2 < 4
    with pytest.raises(ValueError, match="exactly two"):
        TrapezoidalScaling(duration=1.0, v_max=1.5, a_max=3.0)
    with pytest.raises(ValueError, match="duration"):
        CubicScaling(-1.0)
    with pytest.raises(ValueError, match="time_scaling"):
        joint_trajectory([0.0], [1.0], 1.0, time_scaling="septic")
    with pytest.raises(ValueError, match="q_end"):
        joint_trajectory([0.0, 0.0], [1.0], 1.0)
    with pytest.raises(ValueError, match="q_start contains NaN"):
        joint_trajectory([np.nan], [1.0], 1.0)
    with pytest.raises(ValueError, match="t contains NaN"):
        joint_trajectory([0.0], [1.0], 1.0)(np.nan)


# ------------------------------------------------------------------ joint trajectories
def test_joint_trajectory_endpoints_derivatives_and_samples(rng):
    a, b = rng.normal(size=4), rng.normal(size=4)
    ref = joint_trajectory(a, b, 1.3, time_scaling="quintic")
    q, v, acc = ref(0.0)
    assert np.array_equal(q, a) and not v.any() and not acc.any()
    assert np.allclose(ref(1.3)[0], b, atol=1e-15) and not ref(1.3)[1].any()
    t = np.linspace(0.05, 1.25, 13)
    q, v, acc = ref(t)
    assert q.shape == (13, 4)
    assert np.allclose(v, _fd(lambda x: ref(x)[0], t), atol=1e-7)
    assert np.allclose(acc, _fd(lambda x: ref(x)[1], t), atol=1e-6)
    # the path is the straight line between the ends (MR eq. 9.1)
    frac = (q - a) / (b - a)
    assert np.allclose(frac, frac[:, :1])
    smp = ref.sample(0.1)
    assert (
        smp.t.shape == (14,) and smp.t[-1] == 1.3 and np.allclose(smp.t[:-1], 0.1 * np.arange(13))
    )
    assert np.allclose(smp.q, ref(smp.t)[0])


def test_per_joint_limits_pick_the_slowest_joint():
    a, b = np.zeros(3), np.array([1.0, -2.0, 0.5])
    v_max = np.array([1.0, 1.0, 0.1])
    ref = joint_trajectory(a, b, time_scaling="trapezoidal", v_max=v_max, a_max=10.0)
    t = np.linspace(0, ref.duration, 4001)
    v = ref(t)[1]
    ratio = np.max(np.abs(v), axis=0) / v_max
    assert np.max(ratio) == pytest.approx(1.0, rel=1e-9) and np.argmax(ratio) == 2
    assert np.all(ratio <= 1.0 + 1e-12)
    assert np.max(np.abs(ref(t)[2]), axis=0) == pytest.approx(np.abs(b) * ref.scaling.a)
    sc = joint_trajectory(a, b, time_scaling="scurve", v_max=1.0, a_max=2.0, j_max=20.0)
    d = np.diff(sc(np.linspace(0, sc.duration, 8001))[2], axis=0)
    assert np.max(np.abs(d)) <= 20.0 * sc.duration / 8000 * (1 + 1e-9)


def test_spline_through_via_points():
    from scipy.interpolate import CubicHermiteSpline, CubicSpline

    t = np.array([0.0, 0.6, 1.5, 2.0])
    q = np.array([[0.0, 1.0], [0.4, 0.2], [1.1, -0.3], [1.5, 0.0]])
    ref = spline_trajectory(t, q)
    assert np.allclose(ref(t)[0], q, atol=1e-14)
    assert not ref(0.0)[1].any() and not ref(2.0)[1].any()  # clamped ends
    tt = np.linspace(0.01, 1.99, 50)
    own = CubicSpline(t, q, bc_type="clamped")
    assert np.allclose(ref(tt)[0], own(tt)) and np.allclose(ref(tt)[2], own(tt, 2))
    v = np.array([[0.0, 0.0], [1.0, -1.0], [0.5, 0.2], [0.0, 0.0]])
    herm = spline_trajectory(t, q, v)
    assert np.allclose(herm(t[1:3])[1], v[1:3]) and np.allclose(
        herm(tt)[0], CubicHermiteSpline(t, q, v)(tt)
    )
    quint = spline_trajectory(
        np.linspace(0, 2, 7), np.linspace(0, 1, 7)[:, None] ** 2, kind="quintic"
    )
    assert not quint(0.0)[1].any() and abs(quint(2.0 - 1e-9)[2][0]) < 1e-6


# ------------------------------------------------------------------ SE(3) paths
def _twists_fd(traj, t, h=1e-6):
    """V_b = [X^-1 dX/dt] by central differences, and its derivative."""

    def V(x):
        X = traj(x)[0]
        dX = (traj(x + h)[0] - traj(x - h)[0]) / (2 * h)
        W = rd.inv_transform(X) @ dX
        return np.array([W[2, 1], W[0, 2], W[1, 0], *W[:3, 3]])

    return V(t), (V(t + 1e-4) - V(t - 1e-4)) / 2e-4


@pytest.mark.parametrize("make", [screw_trajectory, cartesian_trajectory])
def test_pose_trajectories_end_at_the_target_with_their_twists(make, rng):
    X0 = rd.exp6(rng.normal(size=6))
    X1 = rd.exp6(rng.normal(size=6) * 0.8) @ X0
    traj = make(X0, X1, 2.0)
    assert np.abs(traj(0.0)[0] - X0).max() < 1e-12 and np.abs(traj(2.0)[0] - X1).max() < 1e-12
    for t in (0.3, 1.0, 1.7):
        V, dV = _twists_fd(traj, t)
        assert np.allclose(traj(t)[1], V, atol=1e-7), t
        assert np.allclose(traj(t)[2], dV, atol=1e-5), t
    smp = traj.sample(0.25)
    assert smp.T.shape == (9, 4, 4) and smp.V.shape == (9, 6)


def test_screw_path_keeps_its_axis_and_cartesian_origin_a_line(rng):
    X0 = rd.exp6(rng.normal(size=6))
    X1 = rd.exp6(np.array([0.2, -0.4, 0.9, 0.3, 0.5, -0.2])) @ X0
    t = np.linspace(0, 2, 11)
    screw = screw_trajectory(X0, X1, 2.0)
    S = rd.log6(rd.inv_transform(X0) @ X1)
    logs = rd.log6(rd.inv_transform(X0) @ screw(t)[0])
    s = screw.scaling(t)[0]
    assert np.allclose(logs, s[:, None] * S, atol=1e-12)  # one fixed twist, scaled by s
    cart = cartesian_trajectory(X0, X1, 2.0)
    p = cart(t)[0][:, :3, 3]
    assert np.allclose(p, X0[:3, 3] + s[:, None] * (X1[:3, 3] - X0[:3, 3]), atol=1e-14)


def test_bad_poses_name_themselves():
    with pytest.raises(ValueError, match="X_end"):
        screw_trajectory(np.eye(4), np.ones((4, 4)), 1.0)
    with pytest.raises(ValueError, match="X_start"):
        cartesian_trajectory(np.eye(3), np.eye(4), 1.0)


# ------------------------------------------------------------------ the MR wrappers
def test_the_mr_library_functions_equal_modern_robotics(rng):
    Tf = 3.0
    for t in rng.uniform(0, Tf, 5):
        assert mr.CubicTimeScaling(Tf, t) == pytest.approx(
            mr_pkg.CubicTimeScaling(Tf, t), abs=1e-15
        )
        assert mr.QuinticTimeScaling(Tf, t) == pytest.approx(
            mr_pkg.QuinticTimeScaling(Tf, t), abs=1e-15
        )
    a, b = rng.normal(size=4), rng.normal(size=4)
    X0, X1 = rd.exp6(rng.normal(size=6)), rd.exp6(rng.normal(size=6))
    for method in (3, 5):
        assert np.allclose(mr.JointTrajectory(a, b, Tf, 7, method),
                           mr_pkg.JointTrajectory(a, b, Tf, 7, method), atol=1e-14)  # fmt: skip
        for f, g in ((mr.ScrewTrajectory, mr_pkg.ScrewTrajectory),
                     (mr.CartesianTrajectory, mr_pkg.CartesianTrajectory)):  # fmt: skip
            assert np.allclose(np.array(f(X0, X1, Tf, 6, method)),
                               np.array(g(X0, X1, Tf, 6, method)), atol=1e-12)  # fmt: skip


def test_a_polynomial_joint_trajectory_runs_in_the_compiled_rollout(rng):
    # the controller follows rd.trajectory in the C loop and in the Python loop alike
    ur5 = rd.models.load("ur5")
    a = np.array([0.3, -1.0, 1.2, -0.5, 1.1, 0.2])
    ref = joint_trajectory(a, a + 0.5, 0.5, time_scaling="cubic")
    ctrl = rd.control.ComputedTorque(ur5, ref, kp=100.0, kd=20.0)
    assert ctrl._c_law(ur5) is not None
    fast = rd.simulate(ur5, a, controller=ctrl, duration=0.6, dt=1e-3)
    slow = rd.simulate(ur5, a, controller=lambda t, q, v: ctrl(t, q, v), duration=0.6, dt=1e-3)
    assert np.max(np.abs(fast.q - slow.q)) < 1e-12
    # (a cubic's acceleration jumps at its ends: RK4 is second order across a jump)
    assert np.max(np.abs(fast.q - ref(fast.t)[0])) < 1e-3
