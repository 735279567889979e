"""rd.simulate, rd.Trajectory and rd.control (MR ch. 8, 11): physics, accuracy, batches,
files and failures. Oracles: energy and momentum conservation, the projectile motion of
the centre of mass, the error dynamics of computed torque, convergence orders, and runs
repeated one by one (course notes 003's own runs are in tests/book/)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import robodyn as rd
from robodyn.sim.integrators import Chart, dexp_inv


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("planar_2r")


@pytest.fixture(scope="module")
def ur5():
    return rd.models.load("ur5")


def _quintic(q_a, q_b, T):
    """An independent quintic joint reference (MR eq. 9.2 with s = 10r^3 - 15r^4 + 6r^5)."""
    d = np.asarray(q_b) - np.asarray(q_a)

    def ref(t):
        r = min(max(t / T, 0.0), 1.0)
        s = 10 * r**3 - 15 * r**4 + 6 * r**5
        sd = (30 * r**2 - 60 * r**3 + 30 * r**4) / T
        sdd = (60 * r - 180 * r**2 + 120 * r**3) / T**2
        return q_a + s * d, sd * d, sdd * d

    return ref


# ------------------------------------------------------------------ samples and integrators
def test_samples_run_from_zero_to_duration_and_start_at_q0(arm):
    res = rd.simulate(arm, [0.3, -0.2], [0.1, 0.0], duration=0.5, dt=0.01)
    assert res.t.shape == (51,) and res.t[0] == 0.0 and abs(res.t[-1] - 0.5) < 1e-15
    assert np.array_equal(res.q[0], [0.3, -0.2]) and np.array_equal(res.v[0], [0.1, 0.0])
    # a[k] is the forward dynamics of sample k under its torque
    k = 17
    assert np.allclose(
        res.a[k], rd.forward_dynamics(arm, res.q[k], res.v[k], res.tau[k]), atol=1e-13
    )
    assert (
        res.meta["integrator"] == "rk4"
        and res.meta["complete"]
        and res.meta["n_eval"] == 4 * 50 + 1
    )


def _drift(res):
    E = res.energy()
    scale = np.max(np.abs(res.kinetic_energy()))  # the energy that moves (E0 = 0 at q = 0)
    return np.abs(E - E[0]) / scale


def test_free_fall_energy_drift_of_each_integrator(arm):
    # planar_2r from horizontal (q = 0), no friction, dt = 1 ms, 2 s
    runs = {
        i: rd.simulate(arm, np.zeros(2), duration=2.0, dt=1e-3, integrator=i)
        for i in ("euler", "semi_implicit_euler", "rk4")
    }
    # explicit Euler: 2.7 % of the energy exchanged (~0.9 J) after 2 s, RK4 1e-10
    assert _drift(runs["euler"])[-1] > 0.01
    assert _drift(runs["rk4"]).max() < 1e-6
    # semi-implicit Euler in (q, v): its error is below explicit Euler's but, with a
    # configuration-dependent M (the 2R arm), the scheme is not exactly symplectic
    d = _drift(runs["semi_implicit_euler"])
    assert d.max() < 0.05 and d[-1] < 0.6 * _drift(runs["euler"])[-1]


def test_semi_implicit_euler_energy_stays_bounded_where_it_is_symplectic():
    # a pendulum (constant inertia, H separable): the error oscillates and never grows over
    # 20 s, while explicit Euler's grows every period
    pend = rd.models.load("pendulum")
    runs = {
        i: rd.simulate(pend, [1.5], duration=20.0, dt=1e-3, integrator=i)
        for i in ("euler", "semi_implicit_euler")
    }
    per = {i: _drift(r)[1:].reshape(10, 2000).max(axis=1) for i, r in runs.items()}
    assert np.ptp(per["semi_implicit_euler"]) < 1e-3 * per["semi_implicit_euler"].max() + 1e-12
    assert per["semi_implicit_euler"].max() < 2e-3
    assert np.all(np.diff(per["euler"]) > 0) and per["euler"][-1] > 0.1


def test_semi_implicit_euler_is_not_symplectic_on_a_robot():
    """What the docs say of it (issue 27): with a configuration-dependent M the update in
    (q, v) is no longer symplectic. The bundled Panda falling freely from neutral + 0.3
    rad at 1 ms: semi-implicit Euler diverges within ~8 s, explicit Euler gains ~100 % of
    its energy in 100 s, RK4 keeps it (measured 3.6e-6 relative). The motion is chaotic: the
    moment of the divergence moves with the last bits of the model (7.8-8.2 s measured),
    so only its order is asserted."""
    panda = rd.models.load("panda")
    q0 = rd.neutral(panda) + 0.3
    with pytest.raises(rd.SimulationError, match=r"diverged") as err:
        rd.simulate(panda, q0, duration=100.0, dt=1e-3, integrator="semi_implicit_euler",
                    friction=False)  # fmt: skip
    assert 2.0 < err.value.partial.t[-1] < 20.0
    E = {i: rd.simulate(panda, q0, duration=100.0, dt=1e-3, integrator=i,
                        friction=False).energy() for i in ("euler", "rk4")}  # fmt: skip
    assert E["euler"][-1] / E["euler"][0] - 1 > 0.5
    assert abs(E["rk4"][-1] / E["rk4"][0] - 1) < 1e-5  # measured 3.6e-6


@pytest.mark.parametrize("integrator", ["rk45", "dop853", "radau"])
def test_adaptive_integrators_meet_their_tolerance(arm, integrator):
    ref = rd.simulate(arm, np.zeros(2), duration=1.0, dt=1e-2, integrator="dop853", rtol=1e-13,
                      atol=1e-13)  # fmt: skip
    for rtol in (1e-6, 1e-9):
        res = rd.simulate(arm, np.zeros(2), duration=1.0, dt=1e-2, integrator=integrator,
                          rtol=rtol, atol=rtol)  # fmt: skip
        err = np.max(np.abs(res.q - ref.q))
        assert err < 200 * rtol, (integrator, rtol, err)
    assert np.max(np.abs(res.q - ref.q)) > 0  # not the same computation


def test_rk4_is_fourth_order_on_a_floating_base(rng):
    fb = rd.load_urdf(_ur5_urdf(), floating_base=True)
    q0 = rd.random_configuration(fb, rng=rng)
    v0 = rng.normal(size=fb.nv)
    ends = [rd.simulate(fb, q0, v0, duration=0.2, dt=h).q[-1] for h in (0.02, 0.01, 0.005)]
    e1 = np.linalg.norm(rd.difference(fb, ends[2], ends[0]))
    e2 = np.linalg.norm(rd.difference(fb, ends[2], ends[1]))
    # errors against the finest run: (1 - 2^-4) / (2^-4 - 2^-4 * ...) ~ 15-17 for order 4
    assert 12 < e1 / e2 < 20


def _ur5_urdf():
    from helpers import erd_path

    return erd_path("ur_description/urdf/ur5_robot.urdf")


def test_dexp_inv_is_the_chart_rate(rng):
    # d/dt (q0 (+) delta(t)) moves with body twist v when delta' = J_r(delta)^-1 v
    fb = rd.load_urdf(_ur5_urdf(), floating_base=True)
    q0 = rd.random_configuration(fb, rng=rng)
    delta = 0.3 * rng.normal(size=fb.nv)
    v = rng.normal(size=fb.nv)
    rate = Chart(fb).rate(delta, v)
    h = 1e-6
    lhs = rd.difference(fb, rd.integrate(fb, q0, delta), rd.integrate(fb, q0, delta + h * rate)) / h
    assert np.allclose(lhs, v, atol=1e-6)
    assert np.allclose(dexp_inv(np.zeros(6), v[:6]), v[:6], atol=1e-15)


# ------------------------------------------------------------------ physics
def test_free_floating_robot_conserves_momentum_and_energy(rng):
    fb = rd.load_urdf(_ur5_urdf(), floating_base=True)
    fb = dataclasses.replace(fb, gravity=np.zeros(3))
    q0 = rd.random_configuration(fb, rng=rng)
    v0 = rng.normal(size=fb.nv)
    res = rd.simulate(fb, q0, v0, duration=1.0, dt=1e-3, friction=False)
    h = rd.momentum(fb, res.q[::100], res.v[::100])
    assert np.max(np.abs(h - h[0])) < 1e-8 * max(1.0, np.abs(h[0]).max())
    E = res.energy()
    assert np.max(np.abs(E - E[0])) < 1e-8 * max(1.0, abs(E[0]))


def test_under_gravity_the_centre_of_mass_follows_the_parabola(rng):
    fb = rd.load_urdf(_ur5_urdf(), floating_base=True)
    q0 = rd.random_configuration(fb, rng=rng)
    v0 = rng.normal(size=fb.nv)
    res = rd.simulate(fb, q0, v0, duration=0.5, dt=1e-3, friction=False)
    c = rd.com(fb, res.q)
    c0, cd0 = c[0], rd.com_velocity(fb, q0, v0)
    t = res.t[:, None]
    assert np.allclose(c, c0 + cd0 * t + 0.5 * fb.gravity * t**2, atol=1e-9)


def test_computed_torque_tracks_a_quintic_with_the_true_model(ur5, rng):
    q_a = rd.random_configuration(ur5, rng=rng)
    q_b = q_a + rng.uniform(-1, 1, 6)
    ref = _quintic(q_a, q_b, 1.0)
    ctrl = rd.control.ComputedTorque(ur5, ref, kp=100.0, kd=20.0)
    res = rd.simulate(ur5, q_a, np.zeros(6), controller=ctrl, duration=1.5, dt=1e-3)
    qd = np.array([ref(t)[0] for t in res.t])
    assert np.max(np.abs(res.q - qd)) < 1e-6
    # a controller model 10 % too heavy: the error stays bounded (and is visible)
    wrong = rd.control.ComputedTorque(rd.control.perturbed(ur5, 1.1), ref, kp=100.0, kd=20.0)
    res = rd.simulate(ur5, q_a, np.zeros(6), controller=wrong, duration=1.5, dt=1e-3)
    err = np.max(np.abs(res.q - qd))
    assert 1e-5 < err < 0.05


def test_computed_torque_error_obeys_its_linear_error_dynamics(arm):
    # e'' + kd e' + kp e = 0 from e(0) = q_d - q0 (a step target): e(t) of the critically
    # damped oscillator with kp = 100, kd = 20: e = e0 (1 + 10 t) exp(-10 t)
    q_d = np.array([0.5, -0.3])
    ctrl = rd.control.ComputedTorque(arm, q_d, kp=100.0, kd=20.0)
    res = rd.simulate(arm, np.zeros(2), controller=ctrl, duration=1.0, dt=1e-3)
    t = res.t[:, None]
    assert np.allclose(q_d - res.q, q_d * (1 + 10 * t) * np.exp(-10 * t), atol=1e-9)


def test_pid_removes_the_gravity_offset_that_pd_leaves_and_anti_windup_bounds_it(arm):
    q_d = np.radians([45.0, 30.0])
    pd = rd.simulate(arm, np.zeros(2), controller=rd.control.PD(arm, q_d, 200.0, 30.0),
                     duration=6.0, dt=1e-3)  # fmt: skip
    pid = rd.control.PID(arm, q_d, 200.0, 300.0, 30.0)
    res = rd.simulate(arm, np.zeros(2), controller=pid, duration=6.0, dt=1e-3)
    assert np.max(np.abs(pd.q[-1] - q_d)) > 0.05
    assert np.max(np.abs(res.q[-1] - q_d)) < 1e-6
    assert res.z.shape == (6001, 2)
    # at rest on target the integral term holds the arm up: K_i z = g(q_d)
    assert np.allclose(300.0 * res.z[-1], rd.gravity_forces(arm, q_d), rtol=1e-4)
    capped = rd.control.PID(arm, q_d, 200.0, 300.0, 30.0, i_max=5.0)
    res = rd.simulate(arm, np.zeros(2), controller=capped, duration=6.0, dt=1e-3)
    # the integral torque stops at i_max (within one step's growth), so an error remains
    assert np.all(np.abs(300.0 * res.z) <= 5.0 + 300.0 * 1e-3 * 1.0)
    assert np.max(np.abs(res.q[-1] - q_d)) > 1e-3


def test_task_space_computed_torque_follows_a_screw_path(ur5, rng):
    q0 = np.array([0.3, -1.0, 1.2, -0.5, 1.1, 0.2])
    X0 = rd.fk(ur5, q0, "ee")
    S = np.concatenate([rng.normal(size=3) * 0.3, rng.normal(size=3) * 0.05])
    T = 1.0

    def ref(t):  # X(t) = X0 exp6(s(t) S): body twist s' S, its rate s'' S (independent)
        r = min(max(t / T, 0.0), 1.0)
        s = 10 * r**3 - 15 * r**4 + 6 * r**5
        sd = (30 * r**2 - 60 * r**3 + 30 * r**4) / T
        sdd = (60 * r - 180 * r**2 + 120 * r**3) / T**2
        return X0 @ rd.exp6(s * S), sd * S, sdd * S

    ctrl = rd.control.TaskSpaceComputedTorque(ur5, "ee", ref, kp=100.0, kd=20.0)
    res = rd.simulate(ur5, q0, np.zeros(6), controller=ctrl, duration=1.2, dt=1e-3)
    X = rd.fk(ur5, res.q, "ee")
    err = [np.linalg.norm(rd.log6(rd.inv_transform(X[k]) @ ref(t)[0])) for k, t in enumerate(res.t)]
    assert max(err) < 1e-6


def test_control_dt_holds_the_torque(arm):
    ctrl = rd.control.PD(arm, [0.4, 0.2], 50.0, 10.0)
    res = rd.simulate(arm, np.zeros(2), controller=ctrl, duration=0.1, dt=1e-3, control_dt=1e-2)
    tau = res.tau[:-1].reshape(10, 10, 2)
    assert np.array_equal(tau, np.broadcast_to(tau[:, :1], tau.shape))  # constant over 10 ms
    assert np.allclose(tau[3, 0], ctrl(0.03, res.q[30], res.v[30]), atol=1e-12)
    assert not np.array_equal(tau[3, 0], tau[4, 0])


def test_friction_is_in_the_simulated_equation(arm):
    b = np.array([0.5, 0.2])
    damped = dataclasses.replace(arm, dof_damping=b)
    v0 = np.array([1.0, -2.0])
    res = rd.simulate(damped, np.zeros(2), v0, duration=0.01, dt=1e-3)
    assert np.allclose(res.a[0], rd.forward_dynamics(arm, np.zeros(2), v0, -b * v0), atol=1e-12)
    off = rd.simulate(damped, np.zeros(2), v0, duration=0.01, dt=1e-3, friction=False)
    assert np.allclose(off.a[0], rd.forward_dynamics(arm, np.zeros(2), v0, np.zeros(2)), atol=1e-12)


def test_clip_torque_uses_the_effort_limits(arm):
    limited = dataclasses.replace(arm, effort_limit=np.array([5.0, 2.0]))
    ctrl = rd.control.PD(arm, [1.0, 1.0], 500.0, 10.0)
    res = rd.simulate(
        limited, np.zeros(2), controller=ctrl, duration=0.05, dt=1e-3, clip_torque=True
    )
    assert np.all(np.abs(res.tau) <= [5.0, 2.0]) and np.any(np.abs(res.tau[:, 0]) == 5.0)


# ------------------------------------------------------------------ batches
def test_batched_rollouts_equal_the_same_rollouts_one_by_one(ur5, rng):
    q0 = rd.random_configuration(ur5, rng=rng, size=(2, 3))
    v0 = rng.normal(size=(2, 3, 6))
    ref = _quintic(np.zeros(6), np.ones(6), 0.3)
    for integrator in ("rk4", "semi_implicit_euler", "rk45"):
        ctrl = rd.control.ComputedTorque(ur5, ref, kp=50.0, kd=10.0)
        res = rd.simulate(
            ur5, q0, v0, controller=ctrl, duration=0.3, dt=1e-2, integrator=integrator
        )
        assert res.q.shape == (2, 3, 31, 6) and res.tau.shape == (2, 3, 31, 6)
        for i in range(2):
            for j in range(3):
                one = rd.simulate(ur5, q0[i, j], v0[i, j], controller=ctrl, duration=0.3, dt=1e-2,
                                  integrator=integrator)  # fmt: skip
                tol = 1e-13 if integrator != "rk45" else 1e-6  # a batch's error control is joint
                assert np.max(np.abs(res[i, j].q - one.q)) < tol
                assert np.max(np.abs(res[i][j].tau - one.tau)) < max(tol, 1e-12) * 1e3


def test_a_python_controller_gets_batches(arm):
    seen = []

    def ctrl(t, q, v):
        seen.append(q.shape)
        return -5.0 * v

    rd.simulate(arm, np.zeros((4, 2)), duration=0.01, dt=1e-3, controller=ctrl)
    assert set(seen) == {(4, 2)}


# ------------------------------------------------------------------ files
def test_a_saved_trajectory_loads_back_identical(arm, tmp_path):
    res = rd.simulate(arm, [0.1, 0.2], controller=rd.control.PID(arm, None, 20.0, 5.0, 2.0),
                      duration=0.2, dt=1e-3)  # fmt: skip
    res.energy()
    path = res.save(tmp_path / "run.npz")
    back = rd.Trajectory.load(path, model=arm)
    assert back == res and back.meta == res.meta and np.array_equal(back.energy(), res.energy())
    assert rd.Trajectory.load(path).model is None
    csv = res.to_csv(tmp_path / "run.csv")
    rows = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert rows.shape == (201, 1 + 2 + 3 * 2)
    assert np.allclose(rows[:, 1:3], res.q) and np.allclose(rows[:, 0], res.t)


def test_out_streams_to_disk_and_a_killed_run_leaves_its_samples(arm, tmp_path):
    import zipfile

    out = tmp_path / "run.npz"
    res = rd.simulate(arm, np.zeros(2), duration=0.5, dt=1e-3, out=out)
    assert rd.Trajectory.load(out, model=arm) == res
    assert not (tmp_path / "run.npz.partial").exists()
    # written in place (robodyn.sim.npzstream), it is a valid zip: every CRC checks, and
    # numpy reads it as any .npz, the same arrays as the run in memory
    with zipfile.ZipFile(out) as z:
        assert z.testzip() is None
        assert sorted(z.namelist()) == ["a.npy", "meta.npy", "q.npy", "t.npy", "tau.npy", "v.npy"]
    with np.load(out) as f:
        assert np.array_equal(f["q"], res.q) and np.array_equal(f["t"], res.t)
    # a batch (the Python loop, time-major on disk) and a PID's own state stream too
    ctrl = rd.control.PID(arm, [0.3, 0.2], 50.0, 10.0, 10.0)
    batch = rd.simulate(arm, np.zeros((3, 2)), controller=ctrl, duration=0.2, dt=1e-3,
                        out=tmp_path / "batch.npz")  # fmt: skip
    back = rd.Trajectory.load(tmp_path / "batch.npz")
    assert back == batch and back.q.shape == (3, 201, 2) and np.array_equal(back.z, batch.z)
    # a process killed mid-run (os._exit: no cleanup at all) leaves <out>.partial/
    killed = tmp_path / "killed.npz"
    code = textwrap.dedent(f"""
        import os, numpy as np, robodyn as rd
        from robodyn.sim._record import _Record
        _Record.MARK_EVERY = 0.0  # mark every 2000 steps (by default: every 0.5 s of wall time)
        arm = rd.models.load("planar_2r")
        def ctrl(t, q, v):
            if t > 4.5:
                os._exit(3)
            return np.zeros(2)
        rd.simulate(arm, np.zeros(2), duration=10.0, dt=1e-3, controller=ctrl, out={str(killed)!r})
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 3, p.stderr
    part = rd.Trajectory.load(str(killed) + ".partial")
    assert part.meta["complete"] is False and 4000 <= len(part) <= 4501
    full = rd.simulate(arm, np.zeros(2), duration=4.0, dt=1e-3)
    assert np.array_equal(part.q[:4000], full.q[:4000])


# ------------------------------------------------------------------ failures
def test_a_diverging_simulation_raises_with_the_partial_trajectory(arm, tmp_path):
    # a huge gain with a coarse step: explicit Euler blows up; the message says how
    ctrl = rd.control.PD(arm, [1.0, 1.0], 1e6, 0.0)
    runaway = r"step \d+ \(t = [\d.]+ s\).*diverged: the velocity of joint 'joint\d' ran away"
    with pytest.raises(rd.SimulationError, match=runaway + ".*euler is unstable") as err:
        with pytest.warns(rd.SimulationWarning, match="euler is unstable at any step"):
            rd.simulate(arm, np.zeros(2), controller=ctrl, duration=5.0, dt=1e-2,
                        integrator="euler", out=tmp_path / "bad.npz")  # fmt: skip
    part = err.value.partial
    assert isinstance(part, rd.Trajectory) and 1 < len(part) < 501
    assert np.all(np.isfinite(part.q)) and part.meta["complete"] is False
    assert rd.Trajectory.load(tmp_path / "bad.npz") == part


def test_a_bad_controller_output_names_the_controller_and_the_step(arm):
    def nan_late(t, q, v):
        return np.full(2, np.nan) if t > 0.05 else np.zeros(2)

    with pytest.raises(rd.SimulationError, match=r"nan_late|NaN") as err:
        rd.simulate(arm, np.zeros(2), controller=nan_late, duration=0.1, dt=1e-3)
    assert "step 5" in str(err.value) or "step 6" in str(err.value)
    assert 50 <= len(err.value.partial) <= 52

    with pytest.raises(rd.SimulationError, match=r"'wrong'.*shape \(3,\)"):
        rd.simulate(arm, np.zeros(2), controller=_named("wrong", lambda t, q, v: np.zeros(3)),
                    duration=0.1, dt=1e-3)  # fmt: skip

    def boom(t, q, v):
        raise RuntimeError("sensor offline")

    with pytest.raises(rd.SimulationError, match="boom.*sensor offline") as err:
        rd.simulate(arm, np.zeros(2), controller=boom, duration=0.1, dt=1e-3)
    assert len(err.value.partial) == 0


def _named(name, fn):
    class C:
        def __call__(self, t, q, v):
            return fn(t, q, v)

    c = C()
    c.name = name
    return c


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(duration=0.0, dt=1e-3), "duration"),
        (dict(duration=1.0, dt=-1e-3), "dt"),
        (dict(duration=1.0, dt=float("nan")), "dt"),
        (dict(duration=1.0, dt=0.3), "whole number of steps"),
        (dict(duration=1.0, dt=1e-3, integrator="verlet"), "integrator"),
        (dict(duration=1.0, dt=1e-3, control_dt=1.5e-3), "control_dt"),
        (dict(duration=1.0, dt=1e-3, controller=3), "controller"),
        (dict(duration=1.0, dt=1e-3, f_ext=np.zeros((2, 6))), "f_ext"),
    ],
)
def test_bad_arguments_name_themselves(arm, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rd.simulate(arm, np.zeros(2), **kwargs)


def test_a_bad_f_ext_with_out_is_refused_before_any_file_is_made(arm, tmp_path):
    """f_ext's shape is checked with the other settings: a refused run leaves no
    ``<out>.partial`` behind (it did), so the next run with the same out is not refused."""
    out = tmp_path / "run.npz"
    want = rf"f_ext must have shape \(\.\.\., {arm.nb}, 6\) \(one wrench per body\), got \(2, 6\)"
    with pytest.raises(ValueError, match=want):
        rd.simulate(arm, np.zeros(2), duration=0.1, dt=1e-3, f_ext=np.zeros((2, 6)), out=out)
    assert list(tmp_path.iterdir()) == []
    res = rd.simulate(arm, np.zeros(2), duration=0.1, dt=1e-3, f_ext=np.zeros((arm.nb, 6)),
                      out=out)  # fmt: skip
    assert rd.Trajectory.load(out) == res and sorted(tmp_path.iterdir()) == [out]


def test_bad_states_name_themselves(arm):
    with pytest.raises(ValueError, match=r"q0 must have shape \(\.\.\., 2\).*got \(3,\)"):
        rd.simulate(arm, np.zeros(3), duration=1.0, dt=1e-3)
    with pytest.raises(ValueError, match=r"v0 must have shape"):
        rd.simulate(arm, np.zeros(2), np.zeros(5), duration=1.0, dt=1e-3)
    with pytest.raises(ValueError, match="q0 contains NaN"):
        rd.simulate(arm, [np.nan, 0.0], duration=1.0, dt=1e-3)
    with pytest.raises(ValueError, match="do not broadcast"):
        rd.simulate(arm, np.zeros((3, 2)), np.zeros((4, 2)), duration=1.0, dt=1e-3)


def test_ctrl_c_hands_back_what_was_simulated(arm, tmp_path):
    """A KeyboardInterrupt inside the Python loop (here from the controller, at t = 0.02 s)
    stops the run as rd.SimulationInterrupted, a KeyboardInterrupt carrying the samples
    before it (tests/test_interrupt.py sends real SIGINTs to the compiled loops)."""

    def interrupt(t, q, v):
        if t >= 0.02:
            raise KeyboardInterrupt
        return np.zeros(2)

    with pytest.raises(rd.SimulationInterrupted, match="interrupted") as err:
        rd.simulate(arm, np.zeros(2), controller=interrupt, duration=1.0, dt=1e-3,
                    integrator="semi_implicit_euler", out=tmp_path / "run.npz")  # fmt: skip
    assert isinstance(err.value, KeyboardInterrupt) and len(err.value.partial) == 20
    full = rd.simulate(arm, np.zeros(2), duration=0.019, dt=1e-3, integrator="semi_implicit_euler")
    assert np.array_equal(err.value.partial.q, full.q)  # the samples before it, exactly
    assert rd.Trajectory.load(tmp_path / "run.npz") == err.value.partial


def test_no_contact_model_bodies_pass_through_each_other_and_the_ground():
    """The README's "no contact model": two boxes dropped on one vertical line, the upper
    one thrown down, cross each other and z = 0 and each keeps its own free fall, the
    closed form z0 + v0 t - g t^2 / 2 (RK4 is exact on it; measured error 1e-15 m)."""
    b = rd.ModelBuilder("two_boxes", gravity=(0.0, 0.0, -9.81))
    for name in ("low", "high"):
        b.add_body(name, "world", joint_type="free", inertia=rd.inertia.box(2.0, size=(0.2,) * 3))
    model = b.build()
    z0, vz0 = np.array([0.05, 0.3]), np.array([0.0, -3.0])
    q0 = np.r_[0, 0, z0[0], 1, 0, 0, 0, 0, 0, z0[1], 1, 0, 0, 0]
    v0 = np.r_[0, 0, 0, 0, 0, vz0[0], 0, 0, 0, 0, 0, vz0[1]]  # body twists [omega, v]
    res = rd.simulate(model, q0, v0, duration=0.3, dt=1e-3)
    z = res.q[:, [2, 9]]
    z_free = z0 + vz0 * res.t[:, None] - 9.81 / 2 * res.t[:, None] ** 2
    np.testing.assert_allclose(z, z_free, rtol=0, atol=1e-14)
    assert z[0, 1] > z[0, 0] and z[-1, 1] < z[-1, 0] < 0  # crossed, both below the ground


# ------------------------------------------------------------------ the compiled rollout
def _python_path(ctrl):
    """The same controller as a plain callable: simulate takes its Python loop."""
    if ctrl is None:
        return lambda t, q, v: np.zeros(np.shape(v))
    return lambda t, q, v: ctrl(t, q, v)


@pytest.mark.parametrize("integrator", ["euler", "semi_implicit_euler", "rk4"])
def test_the_compiled_rollout_equals_the_python_loop(ur5, integrator):
    damped = dataclasses.replace(ur5, dof_damping=np.full(6, 0.3), dof_friction=np.full(6, 0.2),
                                 dof_armature=np.full(6, 0.05))  # fmt: skip
    wrong = rd.control.perturbed(damped, 1.1)
    q0 = np.array([0.3, -1.0, 1.2, -0.5, 1.1, 0.2])
    target = q0 + 0.4
    ctrls = {
        "none": None,
        "pd": rd.control.PD(damped, target, np.arange(1.0, 7.0) * 20, 10.0, tau_max=30.0),
        "pd+gravity": rd.control.PD(damped, target, 80.0, 15.0, gravity_compensation=wrong),
        "computed_torque": rd.control.ComputedTorque(wrong, target, kp=100.0, kd=20.0),
    }
    limited = dataclasses.replace(damped, effort_limit=np.full(6, 60.0))
    for name, ctrl in ctrls.items():
        assert ctrl is None or ctrl._c_law(limited) is not None, name  # takes the C path
        kw = dict(duration=0.3, dt=1e-3, integrator=integrator, clip_torque=True)
        fast = rd.simulate(limited, q0, controller=ctrl, **kw)
        slow = rd.simulate(limited, q0, controller=_python_path(ctrl), **kw)
        for x in ("q", "v", "a", "tau"):
            assert np.max(np.abs(getattr(fast, x) - getattr(slow, x))) < 1e-12, (name, x)
        assert np.array_equal(fast.t, slow.t) and fast.meta["n_eval"] == slow.meta["n_eval"]


def test_the_compiled_rollout_hands_back_what_it_finished(arm):
    ctrl = rd.control.PD(arm, [1.0, 1.0], 1e6, 0.0)
    kw = dict(duration=5.0, dt=1e-2, integrator="euler")
    # step 8's acceleration overflows (|v| 5.6e97): the run stops there on both paths (the
    # core checks its outputs), and the partial holds samples 0..7, all finite
    runaway = r"step 8 .*diverged: the velocity of joint 'joint1' ran away"
    with pytest.raises(rd.SimulationError, match=runaway + ".*euler is unstable") as fast:
        with pytest.warns(rd.SimulationWarning, match="euler is unstable at any step"):
            rd.simulate(arm, np.zeros(2), controller=ctrl, **kw)
    # a plain callable reports no gains: the same runaway, with the general advice
    with pytest.raises(rd.SimulationError, match=runaway + ".*try a smaller dt") as slow:
        rd.simulate(arm, np.zeros(2), controller=_python_path(ctrl), **kw)
    a, b = fast.value.partial, slow.value.partial
    assert len(a) == len(b) > 1 and np.array_equal(a.q, b.q) and np.all(np.isfinite(a.q))
    assert np.all(np.isfinite(a.a)) and np.array_equal(a.a, b.a)


def test_an_f_ext_that_raises_stops_the_run_with_what_was_simulated(arm, tmp_path):
    """A callable f_ext is the user's code, as a controller is: its error at t = 0.05 s
    ends the run as a SimulationError naming it, carrying the samples before it, which
    are in out (no <out>.partial folder left behind)."""

    def wind(t, q, v):
        if t >= 0.05:
            raise ZeroDivisionError("gust model: division by zero")
        return np.zeros((arm.nb, 6))

    out = tmp_path / "run.npz"
    with pytest.raises(rd.SimulationError, match="f_ext raised ZeroDivisionError: gust") as err:
        rd.simulate(arm, np.zeros(2), duration=0.2, dt=1e-3, f_ext=wind, out=out)
    part = err.value.partial
    assert 45 <= len(part) <= 51 and part.meta["complete"] is False
    assert sorted(tmp_path.iterdir()) == [out] and rd.Trajectory.load(out) == part


def test_task_space_computed_torque_stays_finite_through_a_singularity():
    """A UR5 pulled 0.6 m past its reach straightens its elbow (J_b's smallest singular
    value falls to ~1e-5): with the plain pseudo-inverse (singular_threshold=0) the joint
    rates blow up within 0.03 s; the default damped least-squares inverse runs the 2 s with
    finite, bounded torques and the frame as near the target as the arm reaches."""
    import warnings

    ur5 = rd.models.load("ur5")
    frame = ur5.frame_names[-1]
    q0 = np.array([0.0, -1.2, 0.3, -1.0, 1.2, 0.3])
    X_d = rd.fk(ur5, q0, frame)
    X_d[:3, 3] += [0.6, 0.0, 0.0]
    plain = rd.control.TaskSpaceComputedTorque(ur5, frame, X_d, 100.0, 20.0, singular_threshold=0)
    with pytest.raises(rd.SimulationError, match="diverged"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rd.simulate(ur5, q0, controller=plain, duration=2.0, dt=1e-3)
    damped = rd.control.TaskSpaceComputedTorque(ur5, frame, X_d, 100.0, 20.0)
    res = rd.simulate(ur5, q0, controller=damped, duration=2.0, dt=1e-3)
    sigma = np.linalg.svd(rd.jacobian(ur5, res.q, frame, kind="body"), compute_uv=False)
    assert sigma[:, -1].min() < 1e-3  # it went through the singularity
    assert np.all(np.isfinite(res.tau)) and np.abs(res.tau).max() < 1e3
    reach = np.linalg.norm(rd.fk(ur5, res.q[-1], frame)[:3, 3] - X_d[:3, 3])
    assert 0.35 < reach < 0.45  # 0.6 m asked, the arm's length short of it


def test_the_damped_inverse_is_the_pseudo_inverse_away_from_singularities():
    """J^# = pinv(J) when the smallest singular value is above the threshold; at a
    singular J its gains s / (s^2 + lambda^2) stay below 1 / (2 damping)."""
    from robodyn.control import _damped_inverse

    rng = np.random.default_rng(3)
    A = rng.normal(size=(6, 7))
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    far = U @ np.diag([3.0, 2.0, 1.5, 1.0, 0.5, 0.2]) @ Vt
    np.testing.assert_allclose(_damped_inverse(far, 0.05, 0.1), np.linalg.pinv(far),
                               rtol=0, atol=1e-12)  # fmt: skip
    near = U @ np.diag([3.0, 2.0, 1.5, 1.0, 0.5, 1e-9]) @ Vt
    inv = _damped_inverse(near, 0.05, 0.1)
    assert np.linalg.norm(inv, 2) <= 1 / (2 * 0.05) + 1e-9
    assert np.linalg.norm(np.linalg.pinv(near), 2) > 1e8
