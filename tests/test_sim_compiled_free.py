"""The compiled rollout (kernels/core/sim.c) on every kind of model (issue 29): floating
bases (solo12, TALOS from example-robot-data), spherical and planar joints, mimic joints.

Oracles: the same run through the Python loop (robodyn/sim/_loop.py with
integrators.py, forced by a plain callable controller), which must agree to round-off for
each integrator and each compiled law; the same RK4 on the Lie group written over
Pinocchio (its own URDF parser, integrate, dIntegrate and aba); and physics on the
compiled road alone: a free robot's momentum and energy with gravity off, the centre of
mass's parabola under gravity, RK4's fourth order seen in its energy drift, the
torque-free symmetric top's closed form (Euler's equations), unit quaternions."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import robodyn as rd
from helpers import JOINT_KINDS, erd_path, load_pair, random_tree
from robodyn.kernels._pack import packed
from robodyn.sim._compiled import _c_setup

INTEGRATORS = ("euler", "semi_implicit_euler", "rk4")


@pytest.fixture(scope="module")
def solo():
    return rd.load_urdf(erd_path("solo_description/robots/solo12.urdf"), floating_base=True)


def _python_path(ctrl):
    """The same controller as a plain callable: simulate takes its Python loop."""
    if ctrl is None:
        return lambda t, q, v: np.zeros(np.shape(v))
    return lambda t, q, v: ctrl(t, q, v)


def _compiled_run(model, q0, v0, ctrl=None, **kw):
    """A run that must take the compiled road (checked first)."""
    integrator = kw.get("integrator", "rk4")
    friction = kw.get("friction", True)
    assert _c_setup(model, ctrl, integrator, friction, False) is not None
    return rd.simulate(model, q0, v0, controller=ctrl, **kw)


def _assert_same_run(model, q0, v0, ctrl, what, **kw):
    """The compiled run equals the Python loop's: q and v to 1e-12, a and tau to 1e-12 of
    their largest entry (PD's default gains give torques of ~1e3 on a floating base). The
    task-space law inverts J_b by numpy's SVD in Python and by a QR (a Jacobi SVD where
    it damps) in C: a tree whose tool frame has three dofs (J_b of rank 3, damped) agrees
    to ~1e-12 of the torque there, 1e-10 allowed."""
    fast = _compiled_run(model, q0, v0, ctrl, **kw)
    slow = rd.simulate(model, q0, v0, controller=_python_path(ctrl), **kw)
    tol = 1e-10 if isinstance(ctrl, rd.control.TaskSpaceComputedTorque) else 1e-12
    for x in ("q", "v", "a", "tau"):
        got, want = getattr(fast, x), getattr(slow, x)
        scale = 1.0 if x in ("q", "v") else max(1.0, float(np.abs(want).max()))
        assert np.max(np.abs(got - want)) < tol * scale, (what, x)
    assert np.array_equal(fast.t, slow.t) and fast.meta["n_eval"] == slow.meta["n_eval"]
    assert np.max(np.abs(rd.difference(model, q0, fast.q[-1]))) > 0.05, what  # it moved
    return fast


def _solo_state(solo, rng):
    q0 = rd.neutral(solo)
    q0[:3] = [0.1, -0.2, 0.3]
    q0[3:7] = rd.random_configuration(solo, rng=rng)[3:7]
    q0[7:] += rng.uniform(-0.4, 0.4, solo.nv - 6)
    return q0, rng.normal(size=solo.nv)


# ------------------------------------------------------------------ parity with the Python loop
@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_solo12_compiled_equals_the_python_loop_for_each_law(solo, integrator, rng):
    """solo12 on its floating base, 0.3 s at 1 kHz: free motion, PD on every dof (the base
    too, as the Python law does; error q_d (-) q on SE(3)), PD with gravity compensation
    of a model 10 % heavier and saturation, computed torque towards a pose, and a foot
    driven by task-space computed torque."""
    q0, v0 = _solo_state(solo, rng)
    target = rd.integrate(solo, q0, 0.3 * rng.normal(size=solo.nv))
    heavy = rd.control.perturbed(solo, 1.1)
    X = rd.fk(solo, q0, "FL_FOOT") @ rd.exp6([0.1, 0.0, -0.2, 0.02, 0.0, 0.03])
    ctrls = {
        "none": None,
        "pd": rd.control.PD(solo, target),
        "pd+gravity": rd.control.PD(solo, target, gravity_compensation=heavy, tau_max=40.0),
        "computed_torque": rd.control.ComputedTorque(heavy, target, kp=100.0, kd=20.0),
        "task_space": rd.control.TaskSpaceComputedTorque(solo, "FL_FOOT", X, 100.0, 20.0),
    }
    for name, ctrl in ctrls.items():
        _assert_same_run(solo, q0, v0, ctrl, name, duration=0.3, dt=1e-3, integrator=integrator)


def test_talos_with_its_mimic_gripper_compiled_equals_the_python_loop(rng):
    """TALOS (nq 39, nv 38: a floating base and mimic gripper joints, so the Cholesky road
    of minv.c): free motion and PD, 0.1 s of RK4."""
    with warnings.catch_warnings():  # two wrist links' implausible inertias (test_urdf.py)
        warnings.simplefilter("ignore", rd.ModelWarning)
        talos = rd.load_urdf(erd_path("talos_data/robots/talos_full_v2.urdf"),
                             floating_base=True, invalid_inertia="keep")  # fmt: skip
    assert packed(talos).has_mimic and talos.nq == talos.nv + 1
    q0 = rd.neutral(talos)
    v0 = 0.5 * rng.normal(size=talos.nv)
    target = rd.integrate(talos, q0, 0.2 * rng.normal(size=talos.nv))
    for name, ctrl in (("none", None), ("pd", rd.control.PD(talos, target))):
        _assert_same_run(talos, q0, v0, ctrl, name, duration=0.1, dt=1e-3)


# (kinds, floating, mimic) of random trees with friction and armature: each Lie group's
# chart alone, then mixed with a floating base and mimic joints
TREES = {
    "spherical": (("spherical", "revolute", "spherical"), False, False),
    "planar": (("planar", "revolute", "prismatic"), False, False),
    "mimic": (("revolute", "continuous", "prismatic"), False, True),
    "floating, spherical, planar, mimic": (("spherical", "planar", "revolute"), True, True),
    "every joint kind, floating, mimic": (JOINT_KINDS, True, True),
}


@pytest.mark.parametrize("tree", sorted(TREES))
@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_trees_of_every_lie_group_compiled_equal_the_python_loop(tree, integrator, rng):
    kinds, floating, mimic = TREES[tree]
    model = random_tree(7, 9, floating=floating, mimic=mimic, damping=True, kinds=kinds)[0]
    assert packed(model).has_mimic == mimic
    q0 = rd.random_configuration(model, rng=rng)
    v0 = rng.normal(size=model.nv)
    target = rd.random_configuration(model, rng=rng)
    X = rd.fk(model, q0, "tool") @ rd.exp6([0.2, -0.1, 0.1, 0.05, 0.0, -0.05])
    ctrls = {
        "none": None,
        "pd+gravity": rd.control.PD(model, target, gravity_compensation=True),
        "computed_torque": rd.control.ComputedTorque(model, target),
        "task_space": rd.control.TaskSpaceComputedTorque(model, "tool", X, 100.0, 20.0),
    }
    for name, ctrl in ctrls.items():
        kw = dict(duration=0.2, dt=1e-3, integrator=integrator)
        _assert_same_run(model, q0, v0, ctrl, f"{tree}: {name}", **kw)


def test_only_constant_targets_compile_where_the_configuration_has_quaternions(solo):
    """A joint trajectory's v_d has nq entries on a floating base (the Python law cannot
    use it either), PD without a model has no manifold difference, and PID keeps its own
    state: each stays on the Python road; the zero target (a zero quaternion) too."""
    q0 = rd.neutral(solo)
    ref = rd.trajectory.joint_trajectory(q0, q0, 1.0)
    for ctrl in (rd.control.PD(solo, ref), rd.control.ComputedTorque(solo, ref),
                 rd.control.PD(target=q0, kp=1.0, kd=1.0), rd.control.PD(solo, None, 1.0, 1.0),
                 rd.control.PID(solo, q0)):  # fmt: skip
        assert _c_setup(solo, ctrl, "rk4", True, False) is None, ctrl
    assert _c_setup(solo, rd.control.PD(solo, q0), "rk4", True, False) is not None


def _pinocchio_lie_rk4(pin, pm, pd, q, v, h, K):
    """Open-loop RK4 written over Pinocchio: stages at q (+) d_i (pin.integrate) with chart
    rates dIntegrate(q, d_i)^-1 v_i (Munthe-Kaas), pin.aba for the accelerations."""
    arg, tau = pin.ArgumentPosition.ARG1, np.zeros(pm.nv)
    for _ in range(K):
        a1 = pin.aba(pm, pd, q, v, tau)
        d, v2 = 0.5 * h * v, v + 0.5 * h * a1
        a2 = pin.aba(pm, pd, pin.integrate(pm, q, d), v2, tau)
        r2 = np.linalg.solve(pin.dIntegrate(pm, q, d, arg), v2)
        d, v3 = 0.5 * h * r2, v + 0.5 * h * a2
        a3 = pin.aba(pm, pd, pin.integrate(pm, q, d), v3, tau)
        r3 = np.linalg.solve(pin.dIntegrate(pm, q, d, arg), v3)
        d, v4 = h * r3, v + h * a3
        a4 = pin.aba(pm, pd, pin.integrate(pm, q, d), v4, tau)
        r4 = np.linalg.solve(pin.dIntegrate(pm, q, d, arg), v4)
        q = pin.integrate(pm, q, h / 6 * (v + 2 * (r2 + r3) + r4))
        v = v + h / 6 * (a1 + 2 * (a2 + a3) + a4)
    return q, v


def test_solo12_compiled_equals_a_lie_group_rk4_over_pinocchio(rng):
    """Pinocchio parses solo12 itself; its own integrate, dIntegrate (the chart's
    Jacobian) and aba make the same RK4 on SE(3) x R^12: 0.3 s at 1 kHz agree to 1e-11
    (measured 4e-14 over 1 s in robodyn bench)."""
    import pinocchio as pin

    model, pm, pd, pmap = load_pair(
        erd_path("solo_description/robots/solo12.urdf"), floating_base=True
    )
    pm.gravity.linear = np.asarray(model.gravity, dtype=float)
    q0, v0 = _solo_state(model, rng)
    res = _compiled_run(model, q0, v0, duration=0.3, dt=1e-3, friction=False)
    q, v = _pinocchio_lie_rk4(pin, pm, pd, pmap.q_to_pin(q0), pmap.v_to_pin(v0), 1e-3, 300)
    assert np.max(np.abs(q - pmap.q_to_pin(res.q[-1]))) < 1e-11
    assert np.max(np.abs(v - pmap.v_to_pin(res.v[-1]))) < 1e-11
    assert np.max(np.abs(res.q[-1] - q0)) > 0.1  # it moved


# ------------------------------------------------------------------ physics on the compiled road
def test_a_free_floating_robot_conserves_momentum_and_energy_to_fourth_order(solo, rng):
    """Gravity off, no friction, no torque: the spatial momentum about the world origin
    (rd.momentum) and the energy stay constant; RK4's energy error shrinks ~16x when dt
    halves (4 and 2 ms: well above round-off); the quaternion stays a unit one."""
    free = dataclasses.replace(solo, gravity=np.zeros(3))
    q0 = rd.random_configuration(free, rng=rng)
    v0 = rng.normal(size=free.nv)
    drift = []
    for dt in (4e-3, 2e-3):
        res = _compiled_run(free, q0, v0, duration=1.0, dt=dt, friction=False)
        h = rd.momentum(free, res.q, res.v)
        assert np.max(np.abs(h - h[0])) < 1e-9 * np.abs(h[0]).max()
        E = res.energy()
        drift.append(np.max(np.abs(E - E[0])))
        assert np.max(np.abs(np.linalg.norm(res.q[:, 3:7], axis=1) - 1.0)) < 1e-15
    assert drift[1] < 1e-8 * abs(E[0]) and 10.0 < drift[0] / drift[1] < 24.0, drift


def test_under_gravity_the_centre_of_mass_falls_as_g_t2_over_2(solo, rng):
    """The only external force is gravity (the joints' friction is internal): c(t) =
    c0 + dc0 t + g t^2 / 2 (rd.com, rd.com_velocity), for each integrator (RK4 to 1e-10;
    Euler's first-order error in c is O(dt))."""
    q0, v0 = _solo_state(solo, rng)
    for integrator, tol in (("rk4", 1e-10), ("semi_implicit_euler", 3e-3), ("euler", 3e-3)):
        res = _compiled_run(solo, q0, v0, duration=0.5, dt=1e-3, integrator=integrator)
        c, t = rd.com(solo, res.q), res.t[:, None]
        want = c[0] + rd.com_velocity(solo, q0, v0) * t + 0.5 * solo.gravity * t**2
        assert np.max(np.abs(c - want)) < tol, integrator
        assert np.max(np.abs(c[-1] - c[0])) > 1.0  # it fell 1.2 m


@pytest.mark.parametrize(
    "kinds", [("spherical",), ("planar",), ("spherical", "planar", "revolute")]
)
def test_spherical_and_planar_trees_conserve_energy_to_fourth_order(kinds, rng):
    """A tree of spherical and planar joints under gravity, no friction, no torque: the
    energy error of RK4 at 2 ms is small and falls ~16x from 4 ms (fourth order through the
    charts of S^3 and SE(2))."""
    model = random_tree(3, 5, kinds=kinds)[0]
    q0 = rd.random_configuration(model, rng=rng)
    v0 = rng.normal(size=model.nv)
    drift = []
    for dt in (4e-3, 2e-3):
        res = _compiled_run(model, q0, v0, duration=1.0, dt=dt, friction=False)
        E = res.energy()
        drift.append(np.max(np.abs(E - E[0])))
    scale = abs(E[0]) + np.max(np.abs(res.v)) ** 2
    assert drift[1] < 1e-6 * scale and 10.0 < drift[0] / drift[1] < 24.0, drift


def test_a_floating_robot_with_mimic_joints_conserves_energy(rng):
    """Mimic joints (q_m = mult q_leader + offset) are workless constraints: with the
    Cholesky road, no friction and no torque the energy is conserved."""
    model = random_tree(5, 5, floating=True, mimic=True)[0]
    assert packed(model).has_mimic
    q0 = rd.random_configuration(model, rng=rng)
    v0 = rng.normal(size=model.nv)
    res = _compiled_run(model, q0, v0, duration=1.0, dt=1e-3, friction=False)
    E = res.energy()
    assert np.max(np.abs(E - E[0])) < 1e-9 * max(1.0, abs(E[0]))
    assert np.max(np.abs(res.v - v0)) > 0.1  # not a trivial motion


def test_the_torque_free_symmetric_top_follows_eulers_equations(rng):
    """One body on a free joint, I = diag(I1, I1, I3) about its centre of mass at the body
    origin, gravity off: omega_b(t) turns about the symmetry axis at lambda = (I1 - I3) w3
    / I1 (w1 = a cos lambda t + b sin lambda t, w2 = b cos lambda t - a sin lambda t, w3
    constant), the world angular momentum R I omega_b and the world velocity R v_b stay
    constant."""
    I1, I3 = 0.3, 0.1
    b = rd.ModelBuilder("top", gravity=np.zeros(3))
    b.add_body("top", "world", joint_type="free",
               inertia=rd.RigidInertia(2.0, np.zeros(3), np.diag([I1, I1, I3])))  # fmt: skip
    top = b.build()
    q0 = rd.random_configuration(top, rng=rng)
    a, bb, w3 = 1.5, -0.7, 4.0
    v0 = np.array([a, bb, w3, 0.3, -0.2, 0.5])
    res = _compiled_run(top, q0, v0, duration=2.0, dt=1e-3)
    lam, t = (I1 - I3) * w3 / I1, res.t
    w = np.stack([a * np.cos(lam * t) + bb * np.sin(lam * t),
                  bb * np.cos(lam * t) - a * np.sin(lam * t), np.full_like(t, w3)], 1)  # fmt: skip
    assert np.max(np.abs(res.v[:, :3] - w)) < 1e-9
    R = rd.fk(top, res.q, "top")[:, :3, :3]
    L = np.einsum("kij,jl,kl->ki", R, np.diag([I1, I1, I3]), res.v[:, :3])
    p_dot = np.einsum("kij,kj->ki", R, res.v[:, 3:])
    assert np.max(np.abs(L - L[0])) < 1e-9 and np.max(np.abs(p_dot - p_dot[0])) < 1e-9


# ------------------------------------------------------------------ failures, streaming
def test_a_diverging_floating_base_run_raises_with_its_partial_as_the_python_loop(solo):
    """PD with gains far beyond explicit Euler's stable step: both roads stop at the same
    step with the same finite samples, and on_divergence='mark' keeps them, then NaN."""
    q0 = rd.neutral(solo)
    ctrl = rd.control.PD(solo, rd.integrate(solo, q0, np.full(solo.nv, 0.1)), 10.0, 0.0)
    kw = dict(duration=1.0, dt=1e-2, integrator="euler")
    with pytest.warns(rd.SimulationWarning):
        with pytest.raises(rd.SimulationError, match="diverged") as fast:
            rd.simulate(solo, q0, controller=ctrl, **kw)
    # (numpy's integrate meets the runaway's 1e117 in its G(w) and warns of the overflow)
    with pytest.raises(rd.SimulationError, match="diverged") as slow, np.errstate(all="ignore"):
        rd.simulate(solo, q0, controller=_python_path(ctrl), **kw)
    a, b = fast.value.partial, slow.value.partial
    assert 1 < len(a) == len(b) < 101 and np.all(np.isfinite(a.q)) and np.all(np.isfinite(a.a))
    calm = np.max(np.abs(b.v), axis=1) < 1e3  # before the runaway amplifies round-off
    assert calm.sum() >= 3 and np.max(np.abs(a.q[calm] - b.q[calm])) < 1e-12
    with pytest.warns(rd.SimulationWarning):
        marked = rd.simulate(solo, q0, controller=ctrl, on_divergence="mark", **kw)
    n = len(a)
    assert int(marked.status) == 1 and np.array_equal(marked.q[:n], a.q)
    assert np.all(np.isnan(marked.q[n:])) and marked.t_end == (n - 1) * 1e-2


def test_a_long_floating_base_run_streams_to_out_in_pieces(solo, tmp_path, rng):
    """10,001 samples: two pieces of the compiled rollout written into the files of
    <out>.partial; the file holds the run in memory, bit for bit."""
    q0, v0 = _solo_state(solo, rng)
    ctrl = rd.control.PD(solo, q0)
    kw = dict(duration=10.0, dt=1e-3)
    res = _compiled_run(solo, q0, v0, ctrl, out=tmp_path / "run.npz", **kw)
    mem = rd.simulate(solo, q0, v0, controller=ctrl, **kw)
    saved = rd.Trajectory.load(tmp_path / "run.npz")
    for x in ("t", "q", "v", "a", "tau"):
        assert np.array_equal(getattr(saved, x), getattr(mem, x)), x
        assert np.array_equal(getattr(res, x), getattr(mem, x)), x
    assert saved.q.shape == (10_001, solo.nq)
    assert [p.name for p in tmp_path.iterdir()] == ["run.npz"]  # no <out>.partial left
