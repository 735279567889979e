"""The force laws of rd.control in the compiled rollout (kernels/core/force.c, issue 31):
ForceControl (MR eq. 11.47), HybridMotionForce (MR eqs. 11.61-11.64), Impedance and
Admittance (MR sec. 11.7), with their integral, virtual-motion and sensor-filter states,
equal the same laws called from the Python loop (numpy over the core's task-space
quantities, a sensor moving the body wrenches to its frame) sample by sample, single and
batched, on the Panda pressing, wiping and touching a table, and on robots of fewer than
six joints; the laws that cannot be compiled (a noisy sensor, a callable F_d or reference,
rows out of order) keep the Python loop. Their closed-form behaviour is held by
tests/test_force_control.py, whose single rollouts now take this road."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from helpers import on_python_loop
from robodyn.sim._compiled import _c_setup

PANDA_Q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
FIELDS = ("q", "v", "a", "tau", "z", "contact_force")


def panda_table():
    """The Panda over a table 2 mm under its tool at PANDA_Q (the tool's z points down),
    touching it with two tool points (one a 5 mm sphere), with friction."""
    panda = rd.models.load("panda")
    z = rd.fk(panda, PANDA_Q, "ee")[2, 3] - 0.002
    table = rd.sim.Plane([0, 0, z], [0, 0, 1], stiffness=1e4, damping=100.0, friction=0.3)
    points = [rd.sim.ContactPoint("ee", [0.01, 0.0, 0.0], 0.005),
              rd.sim.ContactPoint("ee", [-0.01, 0.01, 0.0])]  # fmt: skip
    return panda, rd.sim.Environment(panda, points, [table]), z


def laws(panda, z_table):
    """Each law in the forms the compiled rollout takes: gains scalar, per row and full
    matrices, a sensor with and without its filter, a controller model heavier than the
    robot, saturation, constant and moving references, all rows and a subset."""
    X_a = rd.fk(panda, PANDA_Q, "ee")
    X_a[2, 3] = z_table - 1e-3
    X_b = X_a @ rd.exp6([0.0, 0.0, 0.2, 0.04, -0.03, 0.0])
    wipe = rd.trajectory.screw_trajectory(X_a, X_b, 0.25)
    slide = rd.trajectory.cartesian_trajectory(X_a, X_b, 0.25, "cubic")
    A = np.array([[0, 0, 0, 0, 0, 1.0], [1.0, 0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0, 0]])
    Fz = [0, 0, 0, 0, 0, 10.0]
    rng = np.random.default_rng(5)
    S = rng.normal(size=(6, 6))
    kfp = 0.5 * np.eye(6) + 0.02 * (S + S.T)  # full, symmetric positive definite
    M3 = np.array([[2.0, 0.3, 0.0], [0.3, 3.0, 0.2], [0.0, 0.2, 1.5]])
    filt = rd.sim.ForceSensor("ee", cutoff=30.0)
    heavy = rd.control.perturbed(panda, 1.1)
    return {
        "force, filtered": rd.control.ForceControl(panda, "ee", Fz, kfp, 10.0,
                                                   kdamp=[1, 1, 1, 50, 50, 50], sensor=filt),
        "force, heavy model, saturated": rd.control.ForceControl(
            heavy, "ee", Fz, 0.5, [0, 0, 0, 0, 0, 10.0], kdamp=[2, 2, 2, 80, 80, 80],
            k_null=2.0, tau_max=np.full(7, 40.0)),
        "hybrid, wiping": rd.control.HybridMotionForce(panda, "ee", A, wipe, Fz, 400.0,
                                                       [0, 0, 0, 10, 10, 0], 40.0, 0.5,
                                                       [0, 0, 0, 0, 0, 10.0], sensor=filt),
        "impedance": rd.control.Impedance(panda, "ee", X_a, 2.0, 40.0, 300.0),
        "impedance, linear rows": rd.control.Impedance(panda, "ee", slide, M3, [40, 30, 20],
                                                       300.0, rows="linear", sensor=filt),
        "admittance": rd.control.Admittance(panda, "ee", X_a, 2.0, 40.0, 300.0),
        "admittance, rows 2 3 5": rd.control.Admittance(panda, "ee", wipe, [1.0, 2.0, 1.5],
                                                        30.0, M3, rows=[2, 3, 5],
                                                        sensor=filt, friction=False),
    }  # fmt: skip


def assert_same(fast, slow, tol: float = 1e-12) -> None:
    """Each field (the law's states z too) to tol of its largest entry (at least 1)."""
    assert np.array_equal(fast.t, slow.t) and fast.meta["n_eval"] == slow.meta["n_eval"]
    for x in FIELDS:
        got, want = getattr(fast, x), getattr(slow, x)
        if want is None:
            assert got is None, x
            continue
        scale = max(1.0, float(np.abs(want).max()))
        assert np.max(np.abs(got - want)) <= tol * scale, (x, np.max(np.abs(got - want)))


# ------------------------------------------------------------------ single rollouts
@pytest.mark.parametrize("name", list(laws(*panda_table()[::2])))
def test_each_force_law_compiled_equals_the_python_loop(name):
    """0.3 s at 1 kHz with RK4, from the tool 2 mm above the table: contact, the force
    building up, the states moving. Measured agreement ~1e-14 (a: ~1e-13) of each
    field's largest entry."""
    panda, env, z = panda_table()
    ctrl = laws(panda, z)[name]
    assert _c_setup(panda, ctrl, "rk4", True, False, environment=env) is not None
    kw = dict(duration=0.3, dt=1e-3, environment=env)
    fast = rd.simulate(panda, PANDA_Q, controller=ctrl, **kw)
    slow = rd.simulate(panda, PANDA_Q, controller=on_python_loop(ctrl), **kw)
    assert_same(fast, slow)
    assert np.abs(fast.contact_force).max() > 0.5  # it touches
    assert fast.z is None or np.abs(fast.z[-1]).max() > 1e-6  # the states move


@pytest.mark.parametrize("integrator", ["euler", "semi_implicit_euler"])
def test_the_euler_steps_integrate_the_states_as_the_python_loop(integrator):
    panda, env, z = panda_table()
    for name in ("force, filtered", "admittance, rows 2 3 5"):
        ctrl = laws(panda, z)[name]
        kw = dict(duration=0.1, dt=5e-4, environment=env, integrator=integrator)
        fast = rd.simulate(panda, PANDA_Q, controller=ctrl, **kw)
        slow = rd.simulate(panda, PANDA_Q, controller=on_python_loop(ctrl), **kw)
        assert_same(fast, slow)


def test_robots_of_fewer_than_six_joints_compiled_equal_the_python_loop():
    """A slider pressing a table under force control (J_b 6 x 1) and a 1-DoF arm against
    a wall under impedance of its z rotation (rows=[2]), with a constant push f_ext on
    the arm the sensor reads too."""
    b = rd.ModelBuilder().add_body("slider", "world", joint_type="prismatic",
                                   inertia=rd.inertia.point(1.5))  # fmt: skip
    slider = b.add_frame("tip", "slider").build()
    table = rd.sim.Plane([0, 0, -0.01], stiffness=2e4, damping=50.0)
    fc = rd.control.ForceControl(slider, "tip", [0, 0, 0, 0, 0, -20.0], 0.4, 20.0,
                                 kdamp=[0, 0, 0, 0, 0, 30.0])  # fmt: skip
    b = rd.ModelBuilder().add_body("link", "world", inertia=rd.inertia.point(1.5, [0.6, 0, 0]))
    arm = b.add_frame("tip", "link", rd.transform(p=[0.6, 0, 0])).set_gravity([0, -9.81, 0])
    arm = arm.build()
    wall = rd.sim.Plane([0, 0.1, 0], [0, -1, 0], stiffness=3e3, damping=20.0)
    imp = rd.control.Impedance(arm, "tip", rd.fk(arm, [0.3], "tip"), 0.2, 2.0, 10.0,
                               rows=[2], sensor=rd.sim.ForceSensor("tip", cutoff=10.0))  # fmt: skip
    push = np.zeros((arm.nb, 6))
    push[1, 4] = 1.0
    for model, shape, ctrl, ext in ((slider, table, fc, None), (arm, wall, imp, push)):
        env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip", radius=0.005)], [shape])
        assert _c_setup(model, ctrl, "rk4", True, False, environment=env, f_ext=ext)
        kw = dict(duration=0.5, dt=1e-3, environment=env, f_ext=ext)
        fast = rd.simulate(model, [0.0], controller=ctrl, **kw)
        slow = rd.simulate(model, [0.0], controller=on_python_loop(ctrl), **kw)
        assert_same(fast, slow)
        assert np.abs(fast.contact_force).max() > 0.5


# ------------------------------------------------------------------ batches
@pytest.mark.parametrize("name", ["force, filtered", "hybrid, wiping", "impedance, linear rows",
                                  "admittance, rows 2 3 5"])  # fmt: skip
def test_a_batch_of_force_controlled_rollouts_equals_the_python_loop(name):
    """Three rollouts compiled over two threads against the Python loop's batch (numpy
    over the batch: the hybrid projection one state at a time), and each against its
    single compiled rollout (bit for bit)."""
    panda, env, z = panda_table()
    ctrl = laws(panda, z)[name]
    rng = np.random.default_rng(6)
    Q = PANDA_Q + rng.uniform(-0.03, 0.03, (3, 7))
    kw = dict(duration=0.2, dt=1e-3, environment=env)
    fast = rd.simulate(panda, Q, controller=ctrl, threads=2, **kw)
    slow = rd.simulate(panda, Q, controller=on_python_loop(ctrl), **kw)
    assert_same(fast, slow)
    for i in range(3):
        one = rd.simulate(panda, Q[i], controller=ctrl, **kw)
        for x in FIELDS:
            got, want = getattr(fast[i], x), getattr(one, x)
            assert (got is None and want is None) or np.array_equal(got, want), (i, x)


def test_a_batch_without_an_environment_reads_the_constant_wrench():
    """Impedance rendering its mass-spring-damper under a step wrench f_ext (no
    environment): a batch of two takes the compiled rollouts too."""
    panda = rd.models.load("panda")
    ctrl = rd.control.Impedance(panda, "ee", rd.fk(panda, PANDA_Q, "ee"), 2.0, 40.0, 300.0)
    f_ext = np.zeros((panda.nb, 6))
    f_ext[-1, 3:] = [5.0, -3.0, 2.0]
    Q = np.stack([PANDA_Q, PANDA_Q + 0.01])
    kw = dict(duration=0.2, dt=1e-3, f_ext=f_ext)
    fast = rd.simulate(panda, Q, controller=ctrl, **kw)
    slow = rd.simulate(panda, Q, controller=on_python_loop(ctrl), **kw)
    assert_same(fast, slow)


# ------------------------------------------------------------------ the Python loop's laws
def test_what_the_compiled_rollout_cannot_take_keeps_the_python_loop():
    """A noisy sensor (random numbers), a callable F_d, a callable reference and rows out
    of order: the law says None and simulate runs it on the Python loop."""
    panda, env, z = panda_table()
    X = rd.fk(panda, PANDA_Q, "ee")
    Fz = np.array([0, 0, 0, 0, 0, 10.0])
    kept = [
        rd.control.ForceControl(panda, "ee", Fz, 0.5, 10.0,
                                sensor=rd.sim.ForceSensor("ee", noise=0.1, rng=1)),
        rd.control.ForceControl(panda, "ee", lambda t: Fz * min(1.0, 10 * t), 0.5, 10.0),
        rd.control.Impedance(panda, "ee", lambda t: (X, np.zeros(6), np.zeros(6)), 2.0, 40.0,
                             300.0),
        rd.control.Admittance(panda, "ee", X, 2.0, 40.0, 300.0, rows=[5, 2]),
    ]  # fmt: skip
    for ctrl in kept:
        assert ctrl._c_law(panda) is None
        res = rd.simulate(panda, PANDA_Q, controller=ctrl, duration=0.02, dt=1e-3,
                          environment=env)  # fmt: skip
        assert np.all(np.isfinite(res.q))
