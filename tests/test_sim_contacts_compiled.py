"""An environment's compliant contacts in the compiled rollout (kernels/core/contact.c, issue
31): rd.simulate(..., environment=env) with no controller or an already compiled law runs in
sim.c, and equals the Python loop's road (environment.py's numpy contacts, the same law
called from Python) sample by sample: the Panda with tool points, a link sphere and its
wrist point against a tilted table, a turned box and a sphere (every shape kind touched),
a block sliding against a step and a bump, a free ball on its quaternion base; batches of
rollouts (one compiled rollout each, over threads) equal the Python loop's batch and the
single rollouts; a rollout that fails is named or marked as the Python loop does. The
contact law itself is held to closed forms by tests/test_environment.py, whose single
rollouts now take this road."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from helpers import on_python_loop
from robodyn.sim._compiled import _c_setup

PANDA_Q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
FIELDS = ("q", "v", "a", "tau", "contact_force")


def panda_env():
    """The Panda at PANDA_Q touching (or about to touch) a tilted table with two tool points
    (one a 1 cm sphere), a turned box with a 3 cm sphere on link5, a sphere with the wrist
    point: every shape kind, with friction."""
    panda = rd.models.load("panda")
    T5, T7 = rd.fk(panda, PANDA_Q, "link5"), rd.fk(panda, PANDA_Q, "link7")
    c5 = T5[:3, :3] @ [0.0, 0.05, 0.0] + T5[:3, 3]
    points = [rd.sim.ContactPoint("ee", [0.02, 0.0, 0.0], 0.01),
              rd.sim.ContactPoint("ee", [-0.02, 0.02, 0.0]),
              rd.sim.ContactPoint("link5", [0.0, 0.05, 0.0], 0.03),
              rd.sim.ContactPoint("link7")]  # fmt: skip
    mat = dict(stiffness=2e4, damping=150.0, friction=0.4, v_eps=0.02)
    shapes = [rd.sim.Plane([0.0, 0.0, 0.592], [0.05, 0.0, 1.0], **mat),
              rd.sim.Box(c5 + [0.0, 0.076, 0.0], [0.3, 0.1, 0.2], rd.exp3([0, 0, 0.3]), **mat),
              rd.sim.Sphere(T7[:3, 3] + [0.0, 0.0, 0.117], 0.12, **mat)]  # fmt: skip
    return panda, rd.sim.Environment(panda, points, shapes)


def sliding_block():
    """A 2 kg block on a massless cart (prismatic x, then z), its four bottom corners
    touching a floor with friction, a step (a box) ahead and a bump (a sphere) on the way."""
    b = rd.ModelBuilder().add_body("cart", "world", joint_type="prismatic", axis=(1, 0, 0))
    b.add_body("block", "cart", joint_type="prismatic", axis=(0, 0, 1),
               inertia=rd.inertia.box(mass=2.0, size=(0.1, 0.1, 0.1)))  # fmt: skip
    model = b.add_frame("foot", "block").build()
    corners = [rd.sim.ContactPoint("foot", [x, y, -0.05]) for x in (-0.05, 0.05)
               for y in (-0.05, 0.05)]  # fmt: skip
    shapes = [rd.sim.Plane([0, 0, 0], [0, 0, 1], stiffness=1e5, damping=400.0, friction=0.5),
              rd.sim.Box([0.45, 0, 0.0], [0.2, 0.4, 0.06], stiffness=1e5, damping=400.0,
                         friction=0.3),
              rd.sim.Sphere([0.2, 0.03, -0.045], 0.05, stiffness=1e5, damping=400.0,
                            friction=0.2)]  # fmt: skip
    return model, rd.sim.Environment(model, corners, shapes)


def assert_same(fast, slow, tol: float = 1e-12, fields=FIELDS) -> None:
    """The two roads' samples agree: each field to tol of its largest entry (at least 1)."""
    assert np.array_equal(fast.t, slow.t) and fast.meta["n_eval"] == slow.meta["n_eval"]
    for x in fields:
        got, want = getattr(fast, x), getattr(slow, x)
        assert got.shape == want.shape, x
        scale = max(1.0, float(np.abs(want).max()))
        assert np.max(np.abs(got - want)) <= tol * scale, (x, np.max(np.abs(got - want)))


def compiled(model, ctrl, env, integrator="rk4", f_ext=None) -> bool:
    return _c_setup(model, ctrl, integrator, True, False, environment=env,
                    f_ext=f_ext) is not None  # fmt: skip


# ------------------------------------------------------------------ single rollouts
@pytest.mark.parametrize("integrator", ["rk4", "euler", "semi_implicit_euler"])
def test_the_panda_against_every_shape_equals_the_python_loop(integrator):
    """Free, under PD with gravity compensation, computed torque and task-space computed
    torque: 0.3 s at 2 kHz, the contact forces up to ~100 N; measured agreement ~1e-14 of
    each field's largest entry."""
    panda, env = panda_env()
    X = rd.fk(panda, PANDA_Q, "ee")
    laws = [None, rd.control.PD(panda, PANDA_Q, gravity_compensation=True),
            rd.control.ComputedTorque(panda, PANDA_Q),
            rd.control.TaskSpaceComputedTorque(panda, "ee", X, 100.0, 20.0)]  # fmt: skip
    touched = np.zeros((4, 3), dtype=bool)
    for ctrl in laws:
        assert compiled(panda, ctrl, env, integrator)
        kw = dict(duration=0.3, dt=5e-4, environment=env, integrator=integrator)
        fast = rd.simulate(panda, PANDA_Q, controller=ctrl, **kw)
        slow = rd.simulate(panda, PANDA_Q, controller=on_python_loop(ctrl), **kw)
        assert_same(fast, slow)
        touched |= np.abs(fast.contact_force).max(axis=(0, 2)).reshape(4, 3) > 0.5
    assert touched[:, 0].any() and touched[:, 1].any() and touched[:, 2].any()


def test_a_block_sliding_over_a_bump_into_a_step_equals_the_python_loop():
    """Friction decelerates it, the bump lifts it, the step stops it; with a constant push
    (f_ext) on the block too."""
    model, env = sliding_block()
    f_ext = np.zeros((model.nb, 6))
    f_ext[2, 3] = 3.0  # along x, on the block
    for ext in (None, f_ext):
        assert compiled(model, None, env, f_ext=ext)
        kw = dict(duration=0.6, dt=2e-4, environment=env, f_ext=ext)
        q0, v0 = [0.0, 0.05 - 5e-5], [2.2, 0.0]  # on the floor (m g / 4 k deep)
        fast = rd.simulate(model, q0, v0, **kw)
        slow = rd.simulate(model, q0, v0, controller=on_python_loop(None), **kw)
        assert_same(fast, slow)
        f = np.abs(fast.contact_force).max(axis=(0, 2)).reshape(4, 3)
        assert (f > 1.0).any(axis=0).all()  # floor, step and bump
        assert fast.q[-1, 0] < 0.36  # stopped by the step (its face at x = 0.35)


def test_a_free_ball_bouncing_on_its_quaternion_base_equals_the_python_loop():
    b = rd.ModelBuilder().add_body("ball", "world", joint_type="free",
                                   inertia=rd.inertia.sphere(mass=2.0, radius=0.1))  # fmt: skip
    model = b.add_frame("centre", "ball").build()
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("centre", radius=0.1)],
                             [rd.sim.Plane(friction=0.6, stiffness=5e4, v_eps=0.1)])  # fmt: skip
    q0 = np.array([0.0, 0.0, 0.15, np.cos(0.2), np.sin(0.2), 0.0, 0.0])
    v0 = np.array([3.0, -1.0, 2.0, 1.0, 0.5, -1.0])
    kw = dict(duration=0.5, dt=5e-4, environment=env)
    fast = rd.simulate(model, q0, v0, **kw)
    slow = rd.simulate(model, q0, v0, controller=on_python_loop(None), **kw)
    assert_same(fast, slow)
    assert np.abs(fast.contact_force).max() > 10.0


def test_a_held_torque_or_an_adaptive_integrator_keeps_the_python_loop():
    panda, env = panda_env()
    ctrl = rd.control.PD(panda, PANDA_Q, gravity_compensation=True)
    assert not compiled(panda, ctrl, env, integrator="rk45")
    assert not compiled(panda, ctrl, env, f_ext=lambda t, q, v: np.zeros((panda.nb, 6)))
    res = rd.simulate(panda, PANDA_Q, controller=ctrl, duration=0.02, dt=1e-3,
                      control_dt=2e-3, environment=env)  # fmt: skip
    assert res.contact_force.shape == (21, 12, 3)


def test_a_compiled_run_streamed_to_out_keeps_its_contact_forces(tmp_path):
    panda, env = panda_env()
    ctrl = rd.control.PD(panda, PANDA_Q, gravity_compensation=True)
    kw = dict(duration=0.2, dt=5e-4, environment=env)
    mem = rd.simulate(panda, PANDA_Q, controller=ctrl, **kw)
    rd.simulate(panda, PANDA_Q, controller=ctrl, out=tmp_path / "run.npz", progress=True, **kw)
    disk = rd.Trajectory.load(tmp_path / "run.npz")
    for x in FIELDS:
        assert np.array_equal(getattr(disk, x), getattr(mem, x)), x


# ------------------------------------------------------------------ batches
def test_a_batch_with_an_environment_equals_the_python_loop_and_single_rollouts():
    """A (2, 3) batch: compiled rollouts over threads against the Python loop's batch (the
    batch kernels and numpy contacts) and against each rollout run alone (bit for bit)."""
    panda, env = panda_env()
    ctrl = rd.control.PD(panda, PANDA_Q, gravity_compensation=True)
    rng = np.random.default_rng(3)
    Q = PANDA_Q + rng.uniform(-0.02, 0.02, (2, 3, 7))
    kw = dict(duration=0.2, dt=5e-4, environment=env)
    fast = rd.simulate(panda, Q, controller=ctrl, threads=2, **kw)
    slow = rd.simulate(panda, Q, controller=on_python_loop(ctrl), **kw)
    assert fast.contact_force.shape == (2, 3, 401, 12, 3)
    assert_same(fast, slow)
    for i in np.ndindex(2, 3):
        one = rd.simulate(panda, Q[i], controller=ctrl, **kw)
        for x in FIELDS:
            assert np.array_equal(getattr(fast[i], x), getattr(one, x)), (i, x)


def _diverging_batch():
    """Three rollouts of a horizontal slider near a wall, under PD with a stiffness far too
    high for the step: the two at rest on the target stay there, the third diverges."""
    b = rd.ModelBuilder().add_body("slider", "world", joint_type="prismatic", axis=(1, 0, 0),
                                   inertia=rd.inertia.point(1.0))  # fmt: skip
    model = b.add_frame("tip", "slider").build()
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip")],
                             [rd.sim.Plane([-0.5, 0, 0], [1, 0, 0])])  # fmt: skip
    return model, env, np.array([[0.0], [0.01], [0.0]]), rd.control.PD(model, [0.0], 1e9, 0.0)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("mode", ["raise", "mark"])
def test_a_failed_rollout_of_a_compiled_batch_is_named_or_marked_as_the_python_loop(mode):
    """The run stops at the step the Python loop stops at, with the same samples before it
    ("raise"), or the failed rollout's status, end time and NaN samples are the Python
    loop's ("mark"; its torque overflowed: status 3)."""
    model, env, Q, pd = _diverging_batch()
    kw = dict(duration=0.3, dt=1e-3, environment=env, on_divergence=mode)
    runs = []
    for ctrl in (pd, on_python_loop(pd)):
        if mode == "raise":
            with pytest.raises(rd.SimulationError, match="stopped at step 66 ") as err:
                rd.simulate(model, Q, controller=ctrl, **kw)
            runs.append(err.value.partial)
        else:
            runs.append(rd.simulate(model, Q, controller=ctrl, **kw))
    fast, slow = runs
    assert fast.q.shape == slow.q.shape == ((3, 66, 1) if mode == "raise" else (3, 301, 1))
    if mode == "raise":
        assert np.array_equal(fast.q, slow.q)
        return
    assert fast.status.tolist() == slow.status.tolist() == [0, 3, 0]
    assert np.array_equal(fast.t_end, slow.t_end)
    for x in FIELDS:  # the same samples, NaN at the same places
        got, want = getattr(fast, x), getattr(slow, x)
        assert np.array_equal(np.isnan(got), np.isnan(want)), x
        ok = ~np.isnan(want)
        assert np.array_equal(got[ok], want[ok]), x


def test_an_environment_without_contacts_records_none_on_either_road():
    """No points (or no shapes): nothing touches, contact_force is None, the run is the
    run without an environment (the Python loop raised a KeyError here)."""
    panda = rd.models.load("panda")
    q0 = rd.neutral(panda)
    for env in (rd.sim.Environment(panda, [], [rd.sim.Plane()]),
                rd.sim.Environment(panda, [rd.sim.ContactPoint("ee")], [])):  # fmt: skip
        bare = rd.simulate(panda, q0, duration=0.05, dt=1e-3)
        for ctrl in (None, on_python_loop(None)):
            res = rd.simulate(panda, q0, controller=ctrl, duration=0.05, dt=1e-3,
                              environment=env)  # fmt: skip
            assert res.contact_force is None
            assert np.array_equal(res.q, bare.q)
