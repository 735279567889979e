"""rd.trajectory.time_optimal (MR sec. 9.4): time-optimal time scaling along a path.

Oracles: the closed-form bang-bang motion of a pendulum swinging in a horizontal plane
(typed here), the pendulum under gravity by quadrature of its two energy integrals, the
`toppra` package on the UR5 and the Panda (its own spline through the same via points, its
constraints on Pinocchio's rnea, Pinocchio parsing the URDF itself), Pinocchio's CRBA and
Coriolis matrix for the path terms m, c, g (MR eq. 9.36), rd.inverse_dynamics recomputing
the torques along the returned trajectory, and a simulation following it.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin
import pytest
import toppra
import toppra.algorithm as ta
import toppra.constraint as tc
from scipy.integrate import quad
from scipy.optimize import brentq

import robodyn as rd
from helpers import erd_path, figure_problems, load_pair
from robodyn.trajectory import joint_path, spline_path, time_optimal

logging.getLogger("toppra").setLevel(logging.WARNING)

METHODS = ("reachability", "bisection")

# via points along which the arms are timed (rad), within each arm's joint limits
VIA = {
    "ur5": [
        [0.0, -1.2, 1.0, -0.5, 1.2, 0.0],
        [0.8, -0.8, 1.6, -1.2, 0.6, 0.4],
        [1.5, -1.5, 0.9, -0.3, 0.2, 1.0],
    ],
    "panda": [
        [0.0, -0.6, 0.0, -2.2, 0.0, 1.6, 0.8],
        [0.6, -0.2, 0.4, -1.8, 0.3, 1.9, 0.3],
        [1.2, 0.3, -0.2, -1.4, -0.3, 2.2, -0.4],
    ],
}
URDF = {"ur5": "ur_description/urdf/ur5_robot.urdf", "panda": "panda_description/urdf/panda.urdf"}


def _pendulum(gravity):
    """The bundled pendulum (a point mass m = 1 kg at L = 1 m from a pivot about z) under
    the given gravity; its numbers are asserted, since the closed forms below use them."""
    p = rd.models.load("pendulum")
    assert p.body_mass[1] == 1.0 and np.allclose(p.body_com[1], [0, -1, 0])
    assert np.all(p.body_inertia[1] == 0) and np.allclose(p.jnt_axis[1], [0, 0, 1])
    return dataclasses.replace(p, gravity=np.asarray(gravity, dtype=float))


@pytest.fixture(scope="module")
def arms(tmp_path_factory):
    """UR5 and Panda (fingers fixed) from example-robot-data: robodyn and Pinocchio each
    parse the URDF file."""
    out = {}
    for name, rel in URDF.items():
        root = ET.parse(erd_path(rel)).getroot()
        for joint in root.iter("joint"):
            if "finger" in joint.get("name"):
                joint.set("type", "fixed")
        path = tmp_path_factory.mktemp(name) / f"{name}.urdf"
        path.write_text(ET.tostring(root, encoding="unicode"))
        model, pm, pd, pmap = load_pair(str(path))
        assert model.nv == len(VIA[name][0]) == pm.nv
        out[name] = (model, pm, pd, pmap)
    return out


def _toppra(arm, knots, n, *, v_max=None, a_max=None, scheme="interpolation", fs=None):
    """toppra's duration for the clamped cubic through ``knots`` (evenly spaced in s) under
    the URDF's torque limits (Pinocchio's rnea), on the grid of n points."""
    model, pm, pd, pmap = arm
    tau = np.asarray(pm.effortLimit)
    kind = {
        "interpolation": tc.DiscretizationType.Interpolation,
        "collocation": tc.DiscretizationType.Collocation,
    }[scheme]
    path = toppra.SplineInterpolator(np.linspace(0, 1, len(knots)), knots, bc_type="clamped")
    cons = [
        tc.JointTorqueConstraint(
            lambda q, v, a: pin.rnea(pm, pd, pmap.q_to_pin(q), v, a),
            np.column_stack([-tau, tau]),
            np.zeros(pm.nv) if fs is None else fs,
            discretization_scheme=kind,
        )
    ]
    if v_max is not None:
        cons.append(tc.JointVelocityConstraint(np.column_stack([-v_max, v_max])))
    if a_max is not None:
        lim = np.column_stack([-a_max, a_max])
        cons.append(tc.JointAccelerationConstraint(lim, discretization_scheme=kind))
    algo = ta.TOPPRA(cons, path, gridpoints=np.linspace(0, 1, n), solver_wrapper="seidel")
    return algo.compute_trajectory(0.0, 0.0).duration


# ------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [101, 401])
def test_horizontal_pendulum_is_the_closed_form_bang_bang(method, n):
    """Gravity along the pivot axis: no gravity torque, and on q(s) = s Q (q' = Q, q'' = 0)
    the torque is I Q s_dd with I = m L^2 = 1. |tau| <= tau_max bounds |s_dd| <= alpha =
    tau_max / (I Q): full acceleration to s = 1/2, full deceleration after, so
    1/2 = alpha (T/2)^2 / 2, T = 2 sqrt(I Q / tau_max), s_dot(s) = sqrt(2 alpha s) on the
    first half, and one switch at (1/2, sqrt(alpha))."""
    p = _pendulum([0.0, 0.0, -9.81])
    Q, tau_max, inertia = 2.0, 3.0, 1.0 * 1.0**2
    res = time_optimal(p, joint_path([0.0], [Q]), tau_max=tau_max, n=n, method=method)
    alpha = tau_max / (inertia * Q)
    assert res.duration == pytest.approx(2 * math.sqrt(inertia * Q / tau_max), rel=1e-12)
    first = res.s <= 0.5
    want = np.where(first, np.sqrt(2 * alpha * res.s), np.sqrt(2 * alpha * (1 - res.s)))
    np.testing.assert_allclose(res.s_dot, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res.s_ddot[:-1], np.where(res.s[:-1] < 0.5, alpha, -alpha))
    np.testing.assert_allclose(res.switch_points, [[0.5, math.sqrt(alpha)]], rtol=1e-12)
    assert res.switch_kinds == ("U->L",)
    # the LPs through HiGHS give the same numbers
    if method == "reachability":
        other = time_optimal(p, joint_path([0.0], [Q]), tau_max=tau_max, n=n, solver="highs")
        assert other.duration == pytest.approx(res.duration, rel=1e-9)


def test_pendulum_under_gravity_converges_to_the_bang_bang_integrals():
    """Swinging up 0.4 rad against gravity (m g L sin q, g = 9.81): the fastest motion is
    +tau_max, then -tau_max. Energy: accelerating from rest at 0, 1/2 qd^2 = tau q - g (1 -
    cos q); decelerating to rest at Q, 1/2 qd^2 = tau (Q - q) - g (cos Q - cos q). They
    meet at q_s, and T = int dq / qd over both arcs (scipy's quad). The grid's duration
    converges to it as O(1/n) (each interval's s_dd keeps the limits at both its ends)."""
    p = _pendulum([0.0, -9.81, 0.0])
    Q, tau, g = 0.4, 5.0, 9.81

    def up(q):
        return tau * q - g * (1 - np.cos(q))

    def down(q):
        return tau * (Q - q) - g * (np.cos(Q) - np.cos(q))

    q_s = brentq(lambda q: up(q) - down(q), 1e-9, Q - 1e-9)
    T = (
        quad(lambda q: 1 / np.sqrt(2 * up(q)), 0, q_s, limit=200)[0]
        + quad(lambda q: 1 / np.sqrt(2 * down(q)), q_s, Q, limit=200)[0]
    )
    errors = []
    for n in (201, 801):
        got = [time_optimal(p, joint_path([0.0], [Q]), tau_max=tau, n=n, method=m) for m in METHODS]
        assert got[0].duration == pytest.approx(got[1].duration, rel=1e-12)
        errors.append(got[0].duration / T - 1)
        assert got[0].switch_points[0, 0] == pytest.approx(q_s / Q, abs=2 / n)
    assert 0 < errors[1] < errors[0] < 2.5e-3  # slower than T, by less than 0.25 %
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=0.1)  # O(1/n)


# ------------------------------------------------------------------ arms vs toppra
@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_arms_agree_with_toppra_and_each_other(arms, name):
    """Both methods and toppra on the same grid and discretization (every limit at both
    ends of each interval) agree far inside the 1 % asked; toppra's other discretization
    (limits at the grid points only) within 1 %."""
    model = arms[name][0]
    knots = np.array(VIA[name])
    n = 400
    got = {
        m: time_optimal(
            model, spline_path(knots), tau_max=model.effort_limit, n=n, method=m
        ).duration
        for m in METHODS
    }
    assert got["bisection"] == pytest.approx(got["reachability"], rel=1e-9)
    assert got["reachability"] == pytest.approx(_toppra(arms[name], knots, n), rel=1e-5)
    assert got["reachability"] == pytest.approx(
        _toppra(arms[name], knots, n, scheme="collocation"), rel=1e-2
    )


def test_velocity_and_acceleration_limits_agree_with_toppra(arms):
    """The Panda with its URDF velocity limits and a_max = 10 rad/s^2: the velocity limit
    followed along the limit curve (L < U on it), by both methods, as toppra."""
    model = arms["panda"][0]
    knots = np.array(VIA["panda"])
    v_max, a_max = np.asarray(model.v_limit) * 0.5, np.full(model.nv, 8.0)
    for kw in ({"v_max": v_max}, {"a_max": a_max}, {"v_max": v_max, "a_max": a_max}):
        got = [
            time_optimal(
                model, spline_path(knots), tau_max=model.effort_limit, n=300, method=m, **kw
            ).duration
            for m in METHODS
        ]
        assert got[1] == pytest.approx(got[0], rel=1e-9), kw
        assert got[0] == pytest.approx(_toppra(arms["panda"], knots, 300, **kw), rel=1e-5), kw


def test_coulomb_friction_agrees_with_toppra(arms):
    """friction=True: the model's Coulomb friction f_c sgn(q'_j) joins g(s), as toppra's
    dry-friction coefficients."""
    model = arms["ur5"][0]
    f_c = np.array([8.0, 8.0, 6.0, 2.0, 2.0, 2.0])
    rough = dataclasses.replace(model, dof_friction=f_c)
    knots = np.array(VIA["ur5"])
    plain = time_optimal(model, spline_path(knots), tau_max=model.effort_limit, n=300)
    got = time_optimal(rough, spline_path(knots), tau_max=model.effort_limit, n=300, friction=True)
    assert got.duration > plain.duration * 1.001
    assert got.duration == pytest.approx(_toppra(arms["ur5"], knots, 300, fs=f_c), rel=1e-5)


def test_stage_lps_through_highs_agree(arms):
    """solver="highs" (each stage's LP in (x, u) handed to scipy's HiGHS) and the closed
    form (u eliminated) give the same scaling."""
    model = arms["ur5"][0]
    path = spline_path(np.array(VIA["ur5"]))
    a = time_optimal(model, path, tau_max=model.effort_limit, n=120)
    b = time_optimal(model, path, tau_max=model.effort_limit, n=120, solver="highs")
    assert b.duration == pytest.approx(a.duration, rel=1e-7)
    np.testing.assert_allclose(b.s_dot, a.s_dot, rtol=1e-6, atol=1e-9)


def test_path_terms_are_pinocchios_mass_matrix_and_coriolis(arms):
    """m = M q', c = M q'' + q'^T Gamma q' = M q'' + C(q, q') q', g (MR eq. 9.36), from
    robodyn's RNEA identities, equal Pinocchio's CRBA and Coriolis matrix."""
    from robodyn.trajectory.phase_plane import path_dynamics

    model, pm, pd, pmap = arms["panda"]
    s = np.linspace(0, 1, 7)
    q, dq, ddq = spline_path(np.array(VIA["panda"]))(s)
    m, c, g = path_dynamics(model, q, dq, ddq)
    for k in range(len(s)):
        qp = pmap.q_to_pin(q[k])
        M = pin.crba(pm, pd, qp)
        M = np.triu(M) + np.triu(M, 1).T
        C = pin.computeCoriolisMatrix(pm, pd, qp, dq[k])
        np.testing.assert_allclose(m[k], M @ dq[k], rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(c[k], M @ ddq[k] + C @ dq[k], rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(g[k], pin.computeGeneralizedGravity(pm, pd, qp), atol=1e-11)


# ------------------------------------------------------------------ limits kept
@pytest.mark.parametrize("name", ["ur5", "panda"])
@pytest.mark.parametrize("method", METHODS)
def test_every_sample_keeps_every_limit_and_some_limit_is_reached(arms, name, method):
    """rd.inverse_dynamics along the returned trajectory at its samples (each grid point,
    with the acceleration of the interval after it): |tau_j| <= tau_max_j to 1e-6
    relative. Time-optimal means bang-bang: on every interval some joint is at its limit
    (at one end of it), but for the few intervals where an accelerating arc meets a
    decelerating one."""
    model = arms[name][0]
    tau_max = np.asarray(model.effort_limit)
    path = spline_path(np.array(VIA[name]))
    res = time_optimal(model, path, tau_max=tau_max, n=300, method=method)
    q, v, a = res.trajectory(res.t)
    tau = rd.inverse_dynamics(model, q, v, a, friction=False)
    assert np.all(np.abs(tau) <= tau_max * (1 + 1e-6))
    # the end of each interval i, with its u_i: tau(s_{i+1}, s_dot_{i+1}, u_i)
    q1, dq1, ddq1 = path(res.s[1:])
    sd1, u = res.s_dot[1:, None], res.s_ddot[:-1, None]
    tau_end = rd.inverse_dynamics(model, q1, dq1 * sd1, dq1 * u + ddq1 * sd1**2, friction=False)
    assert np.all(np.abs(tau_end) <= tau_max * (1 + 1e-6))
    at_limit = np.maximum(np.abs(tau[:-1]) / tau_max, np.abs(tau_end) / tau_max).max(axis=1)
    assert np.sum(at_limit < 1 - 1e-6) <= 2 * (len(res.switch_kinds) + 1)


def test_velocity_and_acceleration_limits_hold_at_every_sample(arms):
    model = arms["panda"][0]
    v_max, a_max = np.asarray(model.v_limit) * 0.5, np.full(model.nv, 8.0)
    for method in METHODS:
        res = time_optimal(
            model,
            spline_path(np.array(VIA["panda"])),
            tau_max=model.effort_limit,
            v_max=v_max,
            a_max=a_max,
            n=300,
            method=method,
        )
        q, v, a = res.trajectory(res.t)
        assert np.all(np.abs(v) <= v_max * (1 + 1e-6)) and np.all(np.abs(a) <= a_max * (1 + 1e-6))
        assert np.abs(v).max(axis=0).max() == pytest.approx(v_max.max(), rel=0.5)
        tau = rd.inverse_dynamics(model, q, v, a, friction=False)
        assert np.all(np.abs(tau) <= model.effort_limit * (1 + 1e-6))


@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_computed_torque_follows_within_the_limits(arms, name):
    """rd.simulate under rd.control.ComputedTorque along the result (RK4, 0.1 ms) from the
    path's start at rest: the tracking error stays below 0.1 mrad and the torque within
    tau_max to 0.2 %. The 0.2 % is the tracking error's effect: s_dd jumps at every grid
    point and at the switch points (from full acceleration to full deceleration); an RK4
    step that straddles a jump leaves an error that the feedback M (kp e + kd e_dot) then
    answers on top of a torque already at its limit (measured: up to 0.06 % at 0.1 ms; at
    1 ms, up to 1 % on the UR5, hence the short step), and between grid points the limits
    hold to O(1/n^2) (~5e-5 at n = 500)."""
    model = arms[name][0]
    tau_max = np.asarray(model.effort_limit)
    path = spline_path(np.array(VIA[name]))
    res = time_optimal(model, path, tau_max=tau_max, n=500)
    ctrl = rd.control.ComputedTorque(model, res.trajectory, kp=400.0, kd=40.0, friction=False)
    dt = 1e-4
    duration = math.ceil(res.duration / dt + 200) * dt  # and 20 ms held at the end
    sim = rd.simulate(
        model, path(0.0)[0], controller=ctrl, duration=duration, dt=dt, friction=False
    )
    assert np.max(np.abs(sim.q - res.trajectory(sim.t)[0])) < 1e-4
    assert np.max(np.abs(sim.tau) / tau_max) <= 1 + 2e-3
    assert np.max(np.abs(sim.tau) / tau_max) > 0.999  # and it does use the limits


# ------------------------------------------------------------------ the result
def test_trajectory_is_a_reference_vectorised_over_t(arms):
    model = arms["ur5"][0]
    res = time_optimal(model, spline_path(np.array(VIA["ur5"])), tau_max=model.effort_limit, n=200)
    ref = res.trajectory
    assert ref.duration == res.duration
    t = np.linspace(-0.1, res.duration + 0.1, 57)
    q, v, a = ref(t)
    assert q.shape == v.shape == a.shape == (57, 6)
    for k in (0, 20, 56):
        for x, y in zip(ref(t[k]), (q[k], v[k], a[k])):
            np.testing.assert_array_equal(x, y)
    start, end = np.array(VIA["ur5"][0]), np.array(VIA["ur5"][-1])
    np.testing.assert_allclose(q[0], start, atol=1e-15)  # at rest before t = 0
    np.testing.assert_allclose(ref(res.duration)[0], end, atol=1e-12)
    assert not np.any(v[0]) and not np.any(ref(res.duration)[1])
    # v is the derivative of q, a that of v (central differences inside an interval)
    tm, h = 0.37 * res.duration, 1e-6
    np.testing.assert_allclose((ref(tm + h)[0] - ref(tm - h)[0]) / (2 * h), ref(tm)[1], atol=1e-6)
    np.testing.assert_allclose((ref(tm + h)[1] - ref(tm - h)[1]) / (2 * h), ref(tm)[2], atol=1e-3)
    # the time of the grid is the integral of ds / s_dot (trapezoid of s_dot exact for
    # constant s_dd): s(t_i) = s_i
    np.testing.assert_allclose(ref.scaling(res.t[:-1])[0], res.s[:-1], atol=1e-12)
    sample = ref.sample(0.01)
    assert sample.t[-1] == res.duration and sample.q.shape == (len(sample.t), 6)
    assert ref.describe()["path"]["class"] == "SplinePath"


def test_a_path_of_one_s_at_a_time_gives_the_same(arms):
    model = arms["ur5"][0]
    path = spline_path(np.array(VIA["ur5"]))
    res = time_optimal(model, path, tau_max=model.effort_limit, n=150)

    def scalar_only(s):
        if np.ndim(s):
            raise TypeError("one s at a time")
        return path(s)

    other = time_optimal(model, scalar_only, tau_max=model.effort_limit, n=150)
    assert other.duration == res.duration
    np.testing.assert_array_equal(other.trajectory([0.1, 0.2])[1], res.trajectory([0.1, 0.2])[1])


def test_phase_plane_figure(arms, tmp_path):
    model = arms["panda"][0]
    res = time_optimal(
        model, spline_path(np.array(VIA["panda"])), tau_max=model.effort_limit, n=300
    )
    assert len(res.switch_kinds) >= 2 and set(res.switch_kinds) == {"U->L", "L->U"}
    assert np.all(res.s_dot <= res.limit_curve * (1 + 1e-9))  # under the velocity limit curve
    on_curve = np.abs(res.s_dot - res.limit_curve) <= 1e-3 * res.limit_curve
    i = [int(np.argmin(np.abs(res.s - s))) for s in res.switch_points[:, 0]]
    kinds = dict(zip(i, res.switch_kinds))
    assert any(on_curve[j] for j, k in kinds.items() if k == "L->U")  # tangent to the curve
    out = tmp_path / "phase.png"
    fig = res.plot(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert figure_problems(fig) == []
    with pytest.raises(FileExistsError):
        res.plot(out)
    res.plot(out, overwrite=True)
    assert [p.name for p in tmp_path.iterdir()] == ["phase.png"]


# ------------------------------------------------------------------ bad input
def _s_in(message: str) -> float:
    return float(re.search(r"at s = ([0-9.e+-]+)", message).group(1))


@pytest.mark.parametrize("method", METHODS)
def test_a_swing_up_beyond_the_torque_stalls_where_energy_runs_out(method):
    """From rest at 0 to pi with tau_max = 5 < m g L: the pendulum at full torque stops
    where 5 q = 9.81 (1 - cos q) (work = potential energy); the error names that s."""
    p = _pendulum([0.0, -9.81, 0.0])
    with pytest.raises(ValueError, match="infeasible") as err:
        time_optimal(p, joint_path([0.0], [math.pi]), tau_max=5.0, n=400, method=method)
    q_stall = brentq(lambda q: 5 * q - 9.81 * (1 - math.cos(q)), 0.5, 2.0)
    assert _s_in(str(err.value)) == pytest.approx(q_stall / math.pi, abs=0.01)
    assert "stalls" in str(err.value) and "torque of joint 'pivot'" in str(err.value)


@pytest.mark.parametrize("method", METHODS)
def test_gravity_beyond_what_the_limits_can_answer_names_s(method):
    """|s_dd| <= a_max / Q and |tau| <= 5: gravity m g L sin q beyond 5 + I a_max = 6 N m
    leaves no admissible state, first at q = asin(6 / 9.81)."""
    p = _pendulum([0.0, -9.81, 0.0])
    Q = 1.2
    with pytest.raises(ValueError, match="no speed s_dot and acceleration s_dd") as err:
        time_optimal(p, joint_path([0.0], [Q]), tau_max=5.0, a_max=1.0, n=400, method=method)
    s_first = math.asin(6 / 9.81) / Q
    assert s_first - 1 / 399 <= _s_in(str(err.value)) <= s_first
    assert "tau_max" in str(err.value)


def test_an_end_that_cannot_be_held_at_rest():
    p = _pendulum([0.0, -9.81, 0.0])
    with pytest.raises(ValueError, match=r"at s = 1 \(its end.*torque of joint 'pivot'"):
        time_optimal(p, joint_path([0.0], [1.2]), tau_max=5.0, n=100)


def test_bad_arguments_are_named(arms):
    model = arms["ur5"][0]
    path = spline_path(np.array(VIA["ur5"]))
    tau = model.effort_limit
    cases = [
        (dict(tau_max=np.ones(5)), r"tau_max must be a number or have shape \(6,\), got \(5,\)"),
        (dict(tau_max=tau, v_max=np.ones((2, 6))), r"v_max .* shape \(6,\), got \(2, 6\)"),
        (dict(tau_max=-1.0), "tau_max must be positive"),
        (dict(a_max=np.nan), "a_max must be positive"),
        ({}, "give tau_max, v_max or a_max"),
        (dict(tau_max=np.inf), "give tau_max, v_max or a_max"),
        (dict(tau_max=tau, n=2), "n must be a whole number of grid points >= 3"),
        (dict(tau_max=tau, n=10.5), "n must be"),
        (dict(tau_max=tau, method="fast"), "method must be one of"),
        (dict(tau_max=tau, solver="glpk"), "solver must be one of"),
    ]
    for kw, message in cases:
        with pytest.raises(ValueError, match=message):
            time_optimal(model, path, **kw)
    with pytest.raises(ValueError, match=r"path\(s\) must return .* \(6,\)"):
        time_optimal(model, joint_path(np.zeros(5), np.ones(5)), tau_max=tau)
    with pytest.raises(ValueError, match="path must be callable"):
        time_optimal(model, np.zeros(6), tau_max=tau)

    def broken(s):  # dq/ds is NaN at s = 0.5
        q, dq, ddq = path(s)
        return q, dq * np.where(np.asarray(s) == 0.5, np.nan, 1.0)[..., None], ddq

    with pytest.raises(ValueError, match=r"non-finite dq/ds at s = 0.5"):
        time_optimal(model, broken, tau_max=tau, n=101)
    solo = rd.load_urdf(erd_path("solo_description/robots/solo12.urdf"), floating_base=True)
    with pytest.raises(ValueError, match=r"model: .*fixed-base .*nq = 19, nv = 18"):
        time_optimal(solo, path, tau_max=1.0)


def test_geometric_paths_and_their_derivatives():
    """joint_path is MR eq. 9.1 in s; spline_path's derivatives in s match central
    differences, with zero slope at both ends (clamped), through every via point."""
    line = joint_path([0.0, 1.0], [2.0, -1.0])
    q, dq, ddq = line(np.array([0.0, 0.25, 1.0]))
    np.testing.assert_allclose(q, [[0, 1], [0.5, 0.5], [2, -1]])
    np.testing.assert_allclose(dq, [[2, -2]] * 3) and np.testing.assert_array_equal(ddq, 0)
    knots = np.array(VIA["panda"])
    sp = spline_path(knots)
    np.testing.assert_allclose(sp(np.array([0.0, 0.5, 1.0]))[0], knots, atol=1e-14)
    np.testing.assert_allclose(sp(0.0)[1], 0, atol=1e-14) and np.testing.assert_allclose(
        sp(1.0)[1], 0, atol=1e-14
    )
    h = 6e-6
    for s in (0.2, 0.61):
        np.testing.assert_allclose((sp(s + h)[0] - sp(s - h)[0]) / (2 * h), sp(s)[1], atol=1e-8)
        np.testing.assert_allclose((sp(s + h)[1] - sp(s - h)[1]) / (2 * h), sp(s)[2], atol=1e-6)
    uneven = spline_path(knots, s_knots=[0.0, 0.3, 1.0])
    np.testing.assert_allclose(uneven(0.3)[0], knots[1], atol=1e-14)
    for bad, message in (
        (dict(s_knots=[0.0, 0.5]), r"s_knots must have shape \(3,\)"),
        (dict(s_knots=[0.0, 0.6, 0.5]), "s_knots must increase from 0 to 1"),
        (dict(kind="septic"), "kind must be"),
    ):
        with pytest.raises(ValueError, match=message):
            spline_path(knots, **bad)
    with pytest.raises(ValueError, match=r"q_knots must have shape \(K, n\)"):
        spline_path([1.0, 2.0])
    with pytest.raises(ValueError, match=r"s must lie in \[0, 1\]"):
        sp(1.5)
