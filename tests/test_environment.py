"""rd.sim.Environment and rd.sim.ForceSensor (issue 31): the compliant contacts against their
closed forms (a weight at rest sinks m g / k, a sliding block decelerates by mu g), the
geometry of boxes and spheres against a numerical minimiser, the body wrenches against the
virtual work of the contact forces (J^T f at the contact points), the penetration rate
against finite differences, the sensor against the wrench moved by hand, its filter against
the first-order step response, and simulate(environment=): contact forces recorded, saved,
streamed, batched rollouts equal to single ones, bad input named."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd

G = 9.81


def slider(mass: float = 1.0):
    """A mass on a vertical prismatic joint, frame 'tip' at its origin."""
    b = rd.ModelBuilder().add_body("slider", "world", joint_type="prismatic",
                                   inertia=rd.inertia.point(mass))  # fmt: skip
    return b.add_frame("tip", "slider").build()


def sliding_block(mass: float = 2.0):
    """A block on a massless cart: prismatic x, then prismatic z; frame 'foot' at its origin."""
    b = rd.ModelBuilder().add_body("cart", "world", joint_type="prismatic", axis=(1, 0, 0))
    b.add_body("block", "cart", joint_type="prismatic", axis=(0, 0, 1),
               inertia=rd.inertia.box(mass=mass, size=(0.1, 0.1, 0.1)))  # fmt: skip
    return b.add_frame("foot", "block").build()


def ball(mass: float = 2.0, radius: float = 0.1):
    b = rd.ModelBuilder().add_body("ball", "world", joint_type="free",
                                   inertia=rd.inertia.sphere(mass=mass, radius=radius))  # fmt: skip
    return b.add_frame("centre", "ball").build()


PANDA_Q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


# ------------------------------------------------------------------------ closed forms
def test_a_weight_at_rest_sinks_m_g_over_k():
    """A 1.5 kg slider dropped on a table of 2e4 N/m settles at depth m g / k, the table
    holding its weight (k d = m g), and the force only pushes (zero while it falls)."""
    m, k = 1.5, 2e4
    model = slider(m)
    table = rd.sim.Plane([0, 0, 0.0], [0, 0, 1], stiffness=k, damping=2 * np.sqrt(k * m))
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip")], [table])
    res = rd.simulate(model, [0.02], duration=1.5, dt=1e-3, environment=env)
    assert res.contact_force.shape == (1501, 1, 3)
    falling = res.q[:, 0] > 0
    assert falling[:50].all() and np.all(res.contact_force[falling] == 0.0)
    np.testing.assert_allclose(res.q[-1, 0], -m * G / k, rtol=1e-6)
    np.testing.assert_allclose(res.contact_force[-1, 0], [0, 0, m * G], rtol=1e-6, atol=1e-9)


def test_a_ball_on_its_floating_base_rests_its_radius_less_m_g_over_k_above_the_floor():
    """A free ball (quaternion configuration) with a contact sphere of its radius r rests
    with its centre at r - m g / k; its contact force is m g, straight up."""
    m, r, k = 2.0, 0.1, 1e4
    model = ball(m, r)
    floor = rd.sim.Plane(stiffness=k, damping=2 * np.sqrt(k * m), friction=0.5)
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("centre", radius=r)], [floor])
    q0 = rd.neutral(model)
    q0[2] = 0.15
    res = rd.simulate(model, q0, duration=2.0, dt=1e-3, environment=env)
    np.testing.assert_allclose(res.q[-1, 2], r - m * G / k, rtol=1e-6)
    np.testing.assert_allclose(res.contact_force[-1, 0], [0, 0, m * G], rtol=1e-6, atol=1e-8)


def test_a_sliding_block_feels_mu_f_n_and_decelerates_by_mu_g():
    """Sliding at |v| >> v_eps, friction is mu f_n against the motion: x(t) = v0 t - mu g
    t^2 / 2, and the tangential force over the normal one is mu (tanh(|v| / v_eps) = 1 to
    1e-12 here)."""
    m, k, mu, v0 = 2.0, 1e5, 0.4, 1.5
    model = sliding_block(m)
    table = rd.sim.Plane(stiffness=k, damping=500.0, friction=mu, v_eps=1e-3)
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("foot")], [table])
    q0, v0_ = [0.0, -m * G / k], [v0, 0.0]  # resting at its depth, moving along x
    res = rd.simulate(model, q0, v0_, duration=0.3, dt=1e-4, environment=env)
    f = res.contact_force[:, 0]
    np.testing.assert_allclose(f[:, 2], m * G, rtol=1e-9)
    np.testing.assert_allclose(-f[:, 0] / f[:, 2], mu, rtol=1e-9)
    t = res.t
    np.testing.assert_allclose(res.q[:, 0], v0 * t - 0.5 * mu * G * t**2, atol=1e-9)
    np.testing.assert_allclose(res.v[:, 0], v0 - mu * G * t, atol=1e-9)


def test_friction_fades_linearly_below_v_eps():
    """The regularisation: f_t = -mu f_n tanh(|v_t| / v_eps) v_t / |v_t|, so at |v_t| =
    v_eps / 2 the friction is mu f_n tanh(1/2); at rest it is zero."""
    m, k, mu, eps = 1.0, 1e4, 0.5, 0.02
    model = sliding_block(m)
    table = rd.sim.Plane(stiffness=k, damping=0.0, friction=mu, v_eps=eps)
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("foot")], [table])
    d = 1e-3
    c = env.contacts([[0.0, -d], [0.0, -d]], [[0.5 * eps, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(c.force[0, 0], [-mu * k * d * np.tanh(0.5), 0, k * d], rtol=1e-12)
    np.testing.assert_allclose(c.force[1, 0], [0, 0, k * d], rtol=1e-12)
    np.testing.assert_allclose(c.depth[:, 0], d, rtol=1e-12)


def test_the_normal_force_never_pulls():
    """Leaving the surface fast, k d + b d_dot < 0: the force is zero, not a pull."""
    model = slider()
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip")],
                             [rd.sim.Plane(stiffness=1e4, damping=1e3)])  # fmt: skip
    c = env.contacts([[-1e-3], [-1e-3]], [[1.0], [-1.0]])  # rising at 1 m/s; sinking
    assert np.all(c.force[0] == 0.0)
    np.testing.assert_allclose(c.force[1, 0, 2], 1e4 * 1e-3 + 1e3 * 1.0)


# ------------------------------------------------------------------------ geometry
def _box_distance_oracle(box, c):
    """Signed distance of c to the box: outside, the nearest point by scipy's bounded
    minimiser in the box's axes; inside, the largest of the six faces' plane distances."""
    from scipy.optimize import minimize

    h = 0.5 * box.size
    x = box.R.T @ (c - box.center)
    if np.all(np.abs(x) <= h):
        return max(np.max(x - h), np.max(-x - h))
    r = minimize(lambda y: np.sum((y - x) ** 2), np.zeros(3), jac=lambda y: 2 * (y - x),
                 bounds=list(zip(-h, h)), method="L-BFGS-B",
                 options={"ftol": 1e-15, "gtol": 1e-12})  # fmt: skip
    return float(np.sqrt(r.fun))


def test_box_and_sphere_distances_match_a_minimiser():
    """Signed distances of points all around a turned box (faces, edges, corners, inside)
    and a sphere, against a bounded minimiser and the definition; the normal points from
    the surface towards the point (outside) or out of the nearest face (inside)."""
    rng = np.random.default_rng(5)
    R = rd.exp3([0.3, -0.5, 0.8])
    box = rd.sim.Box([0.1, -0.2, 0.3], [0.4, 0.3, 0.2], R)
    sphere = rd.sim.Sphere([0.0, 0.5, 0.1], 0.25)
    pts = box.center + rng.uniform(-0.5, 0.5, (200, 3))
    s, n = box.distance(pts)
    for c, si, ni in zip(pts, s, n):
        np.testing.assert_allclose(si, _box_distance_oracle(box, c), atol=1e-7)
        np.testing.assert_allclose(np.linalg.norm(ni), 1.0, rtol=1e-12)
        if si > 0:  # outside: c - s n is on the surface, at distance 0
            assert abs(_box_distance_oracle(box, c - si * ni)) < 1e-7
    s, n = sphere.distance(pts)
    d = pts - sphere.center
    np.testing.assert_allclose(s, np.linalg.norm(d, axis=1) - 0.25, rtol=1e-12)
    np.testing.assert_allclose(n, d / np.linalg.norm(d, axis=1)[:, None], rtol=1e-12)


def _panda_env(**material):
    panda = rd.models.load("panda")
    points = [rd.sim.ContactPoint("ee", [0.01, 0.0, 0.02], 0.015),
              rd.sim.ContactPoint("link5", [0.0, 0.05, 0.0], 0.03),
              rd.sim.ContactPoint("link7")]  # fmt: skip
    shapes = [rd.sim.Plane([0, 0, 0.55], [0.1, 0.0, 1.0], **material),
              rd.sim.Box([0.3, 0.0, 0.45], [0.3, 0.3, 0.3], rd.exp3([0, 0, 0.4]), **material),
              rd.sim.Sphere([0.3, 0.05, 0.65], 0.12, **material)]  # fmt: skip
    return panda, rd.sim.Environment(panda, points, shapes)


def _point_jacobian(model, q, frame, p):
    """The world linear Jacobian of the material point p (world) of the frame's body:
    v_p = v_o + omega x (p - o), from the world-aligned Jacobian of the frame."""
    J = rd.jacobian(model, q, frame, kind="world_aligned")
    o = rd.fk(model, q, frame)[:3, 3]
    return J[3:] - rd.skew(p - o) @ J[:3]


def test_body_wrenches_do_the_virtual_work_of_the_contact_forces():
    """sum_i J_i^T F_ext,i (rnea's f_ext) equals sum_c J_c^T f_c with J_c the linear
    Jacobian of each contact point: the wrenches on the bodies are the contact forces
    moved correctly, on a Panda touching a tilted plane, a turned box and a sphere."""
    panda, env = _panda_env(friction=0.6)
    rng = np.random.default_rng(2)
    hits = 0
    for _ in range(40):
        q = PANDA_Q + rng.uniform(-0.4, 0.4, 7)
        v = rng.uniform(-1.0, 1.0, 7)
        c = env.contacts(q, v)
        hits += int(np.count_nonzero(c.depth))
        want = np.zeros(7)
        for k in range(env.nc):
            frame = env.points[k // len(env.shapes)].frame
            want += _point_jacobian(panda, q, frame, c.point[k]).T @ c.force[k]
        a = np.zeros(7)
        got = rd.rnea(panda, q, v, a) - rd.rnea(panda, q, v, a, f_ext=c.f_ext)
        np.testing.assert_allclose(got, want, atol=1e-9 * (1 + np.abs(want).max()))
    assert hits >= 20  # the states touch the shapes


def test_damping_sees_the_penetration_rate_of_finite_differences():
    """(f_n - k d) / b = d_dot: the contact point's velocity (the body's material point at
    the sphere's surface) against central differences of the depth along v."""
    panda, env = _panda_env(stiffness=1e4, damping=50.0)
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(30):
        q = PANDA_Q + rng.uniform(-0.4, 0.4, 7)
        v = rng.uniform(-0.5, 0.5, 7)
        c = env.contacts(q, v)
        h = np.finfo(float).eps ** (1 / 3)
        dd = (env.contacts(q + h * v, v).depth - env.contacts(q - h * v, v).depth) / (2 * h)
        for k in np.flatnonzero(c.depth > 1e-4):
            shape = env.shapes[k % len(env.shapes)]
            f_n = c.force[k] @ shape.distance(c.point[k])[1] if shape.kind == "plane" else None
            if f_n is None or f_n <= 0:
                continue  # the plane's normal is constant: f_n is the force along it
            np.testing.assert_allclose((f_n - 1e4 * c.depth[k]) / 50.0, dd[k], atol=1e-6)
            checked += 1
    assert checked >= 5


def test_batched_contacts_equal_single_ones():
    panda, env = _panda_env(friction=0.3)
    rng = np.random.default_rng(4)
    Q = PANDA_Q + rng.uniform(-0.4, 0.4, (3, 4, 7))
    V = rng.uniform(-1, 1, (3, 4, 7))
    c = env.contacts(Q, V)
    assert c.f_ext.shape == (3, 4, panda.nb, 6) and c.force.shape == (3, 4, 9, 3)
    for i in np.ndindex(3, 4):
        one = env.contacts(Q[i], V[i])
        for got, want in zip(c, one):  # (the core's batch and single fk: to the last bit)
            np.testing.assert_allclose(got[i], want, rtol=1e-14, atol=1e-15)


# ------------------------------------------------------------------------ the sensor
def test_sensor_reads_the_subtree_wrench_moved_to_its_frame():
    """The ideal reading at a frame: sum over the contacts on its body's subtree of
    [(p - o) x f; f], turned into the frame's axes (computed here from the world forces)."""
    panda, env = _panda_env(friction=0.4)
    rng = np.random.default_rng(11)
    for frame in ("ee", "link5", "link3"):
        sensor = rd.sim.ForceSensor(frame)
        b = panda.frame_body[panda.frame_id(frame)]
        for _ in range(10):
            q = PANDA_Q + rng.uniform(-0.4, 0.4, 7)
            v = rng.uniform(-1, 1, 7)
            c = env.contacts(q, v)
            T = rd.fk(panda, q, frame)
            want = np.zeros(6)
            for k in range(env.nc):
                fb = panda.frame_body[panda.frame_id(env.points[k // len(env.shapes)].frame)]
                if b <= fb < panda.body_subtree_end[b]:
                    want[:3] += np.cross(c.point[k] - T[:3, 3], c.force[k])
                    want[3:] += c.force[k]
            want = np.concatenate([T[:3, :3].T @ want[:3], T[:3, :3].T @ want[3:]])
            got = sensor.ideal(panda, q, c.f_ext)
            np.testing.assert_allclose(got, want, atol=1e-10)


def test_sensor_noise_has_the_asked_spread():
    panda = rd.models.load("panda")
    sensor = rd.sim.ForceSensor("ee", noise=[0.1, 0.1, 0.1, 2.0, 2.0, 2.0], rng=3)
    f_ext = np.zeros((20000, panda.nb, 6))
    F, dz = sensor.read(panda, np.broadcast_to(PANDA_Q, (20000, 7)), f_ext)
    assert dz is None
    np.testing.assert_allclose(F.std(axis=0), [0.1] * 3 + [2.0] * 3, rtol=0.03)
    np.testing.assert_allclose(F.mean(axis=0), 0.0, atol=0.05)


def test_the_filtered_reading_is_the_first_order_step_response():
    """A constant wrench on the end body from t = 0 (f_ext) read through a 5 Hz filter:
    the filter's state is F (1 - exp(-omega_c t)), omega_c = 2 pi 5 (the state of a
    ForceControl with zero gains, which only damps the motion)."""
    panda = rd.models.load("panda")
    F_body = np.array([0.1, -0.2, 0.05, 3.0, -1.0, 2.0])  # on body7, in its frame
    f_ext = np.zeros((panda.nb, 6))
    f_ext[7] = F_body
    sensor = rd.sim.ForceSensor("link7", cutoff=5.0)
    ctrl = rd.control.ForceControl(panda, "link7", np.zeros(6), 0.0, 0.0, kdamp=5.0,
                                   sensor=sensor)  # fmt: skip
    res = rd.simulate(panda, PANDA_Q, controller=ctrl, duration=0.5, dt=1e-3, f_ext=f_ext)
    # link7's frame is body7's (no placement): the reading is F_body itself
    T_bf = np.eye(4)
    T_bf[:3, :3], T_bf[:3, 3] = panda.frame_R[panda.frame_id("link7")], panda.frame_p[
        panda.frame_id("link7")]  # fmt: skip
    F = rd.adjoint(T_bf).T @ F_body
    want = F * (1 - np.exp(-2 * np.pi * 5.0 * res.t))[:, None]
    np.testing.assert_allclose(res.z[:, 6:], want, atol=1e-9)


# ------------------------------------------------------------------------ simulate
def test_batched_rollouts_with_an_environment_equal_single_ones():
    panda, env = _panda_env(friction=0.3)
    rng = np.random.default_rng(1)
    Q = PANDA_Q + rng.uniform(-0.2, 0.2, (3, 7))
    ctrl = rd.control.PD(panda, PANDA_Q, gravity_compensation=True)
    batch = rd.simulate(panda, Q, controller=ctrl, duration=0.2, dt=1e-3, environment=env)
    assert batch.contact_force.shape == (3, 201, 9, 3)
    assert np.abs(batch.contact_force).max() > 1.0  # they touch
    for i in range(3):
        one = rd.simulate(panda, Q[i], controller=ctrl, duration=0.2, dt=1e-3,
                          environment=env)  # fmt: skip
        for x in ("q", "v", "a", "tau", "contact_force"):
            np.testing.assert_allclose(getattr(batch[i], x), getattr(one, x), rtol=0,
                                       atol=1e-12)  # fmt: skip


def test_contact_forces_are_saved_loaded_and_streamed(tmp_path):
    model = slider()
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip")], [rd.sim.Plane(),
                             rd.sim.Sphere([0, 0, -1], 0.5)])  # fmt: skip
    res = rd.simulate(model, [0.01], duration=0.3, dt=1e-3, environment=env,
                      out=tmp_path / "run.npz")  # fmt: skip
    back = rd.sim.Trajectory.load(tmp_path / "run.npz")
    assert back.contact_force.shape == (301, 2, 3)
    np.testing.assert_array_equal(back.contact_force, res.contact_force)
    assert back.meta["environment"]["shapes"][1]["kind"] == "sphere"
    res.save(tmp_path / "again.npz")
    np.testing.assert_array_equal(rd.sim.Trajectory.load(tmp_path / "again.npz").contact_force,
                                  res.contact_force)  # fmt: skip


def test_an_adaptive_or_held_run_records_contact_forces_too():
    model = slider(1.0)
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip")],
                             [rd.sim.Plane(stiffness=1e4, damping=200.0)])  # fmt: skip
    for kw in ({"integrator": "rk45"}, {"control_dt": 2e-3,
               "controller": rd.control.PD(model, [0.0], 10.0, 1.0)}):  # fmt: skip
        res = rd.simulate(model, [0.005], duration=1.0, dt=1e-3, environment=env, **kw)
        np.testing.assert_allclose(res.contact_force[-1, 0, 2],
                                   G + (10.0 * res.q[-1, 0] if "controller" in kw else 0.0),
                                   rtol=1e-4)  # fmt: skip


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "make, word",
    [
        (lambda: rd.sim.Plane(normal=[0, 0, 0]), "normal"),
        (lambda: rd.sim.Plane(stiffness=0.0), "stiffness"),
        (lambda: rd.sim.Plane(damping=-1.0), "damping"),
        (lambda: rd.sim.Plane(friction=-0.1), "friction"),
        (lambda: rd.sim.Plane(v_eps=0.0), "v_eps"),
        (lambda: rd.sim.Box([0, 0, 0], [1, 0, 1]), "size"),
        (lambda: rd.sim.Box([0, 0, 0], [1, 1, 1], np.diag([1, 1, -1])), "R"),
        (lambda: rd.sim.Sphere([0, 0], 1.0), "center"),
        (lambda: rd.sim.Sphere([0, 0, 0], -1.0), "radius"),
        (lambda: rd.sim.ContactPoint("tip", radius=-0.1), "radius"),
        (lambda: rd.sim.ContactPoint("tip", offset=[0, 0]), "offset"),
        (lambda: rd.sim.Environment(slider(), [rd.sim.ContactPoint("nope")], []), "points[0]"),
        (lambda: rd.sim.Environment(slider(), [rd.sim.ContactPoint("tip")], ["floor"]), "shapes"),
        (lambda: rd.sim.ForceSensor("ee", noise=-1.0), "noise"),
        (lambda: rd.sim.ForceSensor("ee", cutoff=0.0), "cutoff"),
    ],
)
def test_bad_input_is_named(make, word):
    with pytest.raises(ValueError, match=word.replace("[", r"\[").replace("]", r"\]")):
        make()


def test_simulate_refuses_an_environment_it_cannot_run():
    model = slider()
    env = rd.sim.Environment(model, [rd.sim.ContactPoint("tip")], [rd.sim.Plane()])
    with pytest.raises(ValueError, match="environment must be a rd.sim.Environment"):
        rd.simulate(model, [0.0], duration=0.1, dt=1e-3, environment="table")
    with pytest.raises(ValueError, match="environment"):
        rd.simulate(rd.models.load("pendulum"), [0.0], duration=0.1, dt=1e-3, environment=env)
    with pytest.raises(ValueError, match="environment= runs on this machine"):
        rd.simulate(model, [0.0], duration=0.1, dt=1e-3, environment=env,
                    constraints=object())  # fmt: skip
    with pytest.raises(ValueError, match="environment= runs on this machine"):
        rd.simulate(model, [[0.0], [0.1]], duration=0.1, dt=1e-3, environment=env,
                    client=object())  # fmt: skip
