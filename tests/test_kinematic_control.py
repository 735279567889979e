"""Motion control with velocity inputs (MR sec. 11.3; issue 31): rd.control.KinematicJoint,
rd.control.KinematicTaskSpace and rd.simulate(..., input="velocity").

Oracles are closed forms of the error dynamics the laws impose (MR eqs. 11.16-11.17):

* joint space, P with feedforward: e_dot = -K_p e, so e(t) = exp(-K_p t) e(0) for any
  reference, joint by joint; explicit Euler's own closed form (1 - K_p h)^k e(0) for a
  constant target; a held command over control_dt: (1 - K_p dt_c)^n e(0);
* task space, P with feedforward and a non-singular J_b: E = X^-1 X_d obeys
  E_dot = -[K_p X_err] E, so E stays on its screw and X_err(t) = exp(-K_p t) X_err(0) exactly
  (a constant pose, a screw and a Cartesian reference alike);
* PI: X_err = s(t) X_err(0) (and e likewise) with s'' + K_p s' + K_i s = 0, s(0) = 1,
  s'(0) = -K_p, integrated by scipy's solve_ivp.

The error twists are taken with the modern_robotics package's MatrixLog6 on robodyn's poses
(fk is Pinocchio-checked in tests/oracle); J_b v = the commanded twist with robodyn's
Jacobian, which tests/oracle checks.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robodyn as rd
from robodyn.errors import SimulationError

Q0 = np.array([0.3, -1.0, 1.2, -0.5, 0.8, 0.2])  # a UR5 configuration away from singularities


@pytest.fixture(scope="module")
def ur5():
    return rd.models.load("ur5")


def _mr_error(X, X_d) -> np.ndarray:
    """log(X^-1 X_d) as a twist [omega, v], by the modern_robotics package."""
    import modern_robotics as mr

    return mr.se3ToVec(mr.MatrixLog6(mr.TransInv(X) @ X_d))


def _errors(model, res, ref, frame="ee") -> np.ndarray:
    """X_err at every sample of a run, from its poses and the reference (K + 1, 6)."""
    X = rd.fk(model, res.q, frame)
    return np.array([_mr_error(X[k], ref(t)[0]) for k, t in enumerate(res.t)])


def _s_pi(kp, ki, t):
    """s(t) and s'(t) of s'' + kp s' + ki s = 0, s(0) = 1, s'(0) = -kp, by scipy."""
    sol = solve_ivp(lambda _, x: [x[1], -kp * x[1] - ki * x[0]], (0, t[-1]), [1.0, -kp],
                    t_eval=t, rtol=1e-12, atol=1e-14)  # fmt: skip
    return sol.y


def _as_ref(ref):
    return ref if callable(ref) else (lambda t: (ref, np.zeros(6), np.zeros(6)))


def _singular_values_stay_above(model, q, frame, floor) -> None:
    J = rd.jacobian(model, q, frame, kind="body")
    assert np.linalg.svd(J, compute_uv=False)[..., -1].min() > floor


@pytest.mark.parametrize("kind", ["pose", "screw", "cartesian"])
def test_task_space_p_error_decays_as_exp_minus_kp_t(ur5, kind):
    """A UR5 with an initial pose error following a constant pose, a screw or a Cartesian
    reference: X_err(t) = exp(-kp t) X_err(0) at every sample (RK4, 1 ms)."""
    X0 = rd.fk(ur5, Q0, "ee")
    X1 = rd.fk(ur5, Q0 + np.array([0.4, -0.3, 0.3, 0.2, -0.3, 0.5]), "ee")
    ref = {"pose": X1, "screw": rd.trajectory.screw_trajectory(X0, X1, 1.5),
           "cartesian": rd.trajectory.cartesian_trajectory(X0, X1, 1.5)}[kind]  # fmt: skip
    kp = 3.0
    ctrl = rd.control.KinematicTaskSpace(ur5, "ee", ref, kp)
    q0 = Q0 + np.array([0.05, 0.04, -0.03, 0.06, 0.05, -0.04])  # the initial error
    res = rd.simulate(ur5, q0, controller=ctrl, duration=2.0, dt=1e-3, input="velocity")
    _singular_values_stay_above(ur5, res.q, "ee", ctrl.singular_threshold)
    err = _errors(ur5, res, _as_ref(ref))
    assert np.linalg.norm(err[0]) > 0.05
    want = np.exp(-kp * res.t)[:, None] * err[0]
    np.testing.assert_allclose(err, want, rtol=0, atol=1e-11)
    np.testing.assert_allclose(ctrl.error(res.t[-1], res.q[-1]), err[-1], atol=1e-12)


def test_task_space_pi_error_follows_the_second_order_law(ur5):
    X1 = rd.fk(ur5, Q0 + 0.2, "ee")
    kp, ki = 4.0, 20.0  # s^2 + 4 s + 20: underdamped (zeta 0.45), it overshoots
    ctrl = rd.control.KinematicTaskSpace(ur5, "ee", X1, kp, ki)
    assert ctrl.state_size == 6
    res = rd.simulate(ur5, Q0, controller=ctrl, duration=2.0, dt=1e-3, input="velocity")
    _singular_values_stay_above(ur5, res.q, "ee", ctrl.singular_threshold)
    err = _errors(ur5, res, _as_ref(X1))
    s, ds = _s_pi(kp, ki, res.t)
    assert s.min() < -0.1  # the integral makes it overshoot: not a first-order decay
    np.testing.assert_allclose(err, s[:, None] * err[0], rtol=0, atol=1e-10)
    # the controller's state is int X_err = (int s) X_err(0), and the law gives
    # ki int s = -(s' - s'(0)) - kp (s - s(0)) = -(s' + kp s)
    np.testing.assert_allclose(res.z, (-(ds + kp * s) / ki)[:, None] * err[0], atol=1e-10)


def test_the_recorded_velocity_is_the_command(ur5):
    """v[k] = J_b^+ V_b with V_b = [Ad_E] V_d + kp X_err (MR eqs. 11.16-11.17): J_b v[k] is
    the commanded twist (J_b square and far from singular); tau is NaN (no dynamics), a the
    commands' rate, and the run says it was velocity-driven."""
    X0, X1 = rd.fk(ur5, Q0, "ee"), rd.fk(ur5, Q0 + 0.3, "ee")
    ref = rd.trajectory.screw_trajectory(X0, X1, 1.0)
    kp = np.array([2.0, 2.0, 2.0, 5.0, 5.0, 5.0])  # a vector gain: [angular; linear]
    ctrl = rd.control.KinematicTaskSpace(ur5, "ee", ref, kp)
    res = rd.simulate(ur5, Q0 + 0.02, controller=ctrl, duration=1.0, dt=1e-2, input="velocity")
    X = rd.fk(ur5, res.q, "ee")
    J = rd.jacobian(ur5, res.q, "ee", kind="body")
    for k in (0, 37, 100):
        X_d, V_d, _ = ref(res.t[k])
        E = np.linalg.inv(X[k]) @ X_d
        V_b = rd.adjoint(E) @ V_d + kp * _mr_error(X[k], X_d)
        np.testing.assert_allclose(J[k] @ res.v[k], V_b, atol=1e-12)
    assert np.isnan(res.tau).all() and res.meta["input"] == "velocity"
    np.testing.assert_allclose(res.a[1:-1], (res.v[2:] - res.v[:-2]) / 2e-2, atol=1e-12)


def test_joint_space_p_error_decays_as_exp_minus_kp_t_along_a_reference():
    arm = rd.models.load("panda")
    q_a = rd.neutral(arm)
    ref = rd.trajectory.joint_trajectory(q_a, q_a + 0.5, 1.0, time_scaling="quintic")
    kp = np.linspace(1.0, 7.0, 7)  # per joint
    ctrl = rd.control.KinematicJoint(arm, ref, kp)
    e0 = np.linspace(-0.1, 0.1, 7)
    res = rd.simulate(arm, q_a - e0, controller=ctrl, duration=1.5, dt=1e-3, input="velocity")
    e = ref(res.t)[0] - res.q
    # (RK4's truncation error: (kp h)^5 / 120 ~ 1.4e-13 a step at kp = 7, h = 1 ms)
    np.testing.assert_allclose(e, np.exp(-np.outer(res.t, kp)) * e0, rtol=0, atol=5e-12)
    np.testing.assert_allclose(res.v, ref(res.t)[1] + kp * e, atol=1e-13)  # v = v_cmd


def test_joint_space_pi_and_euler_and_held_commands():
    arm = rd.models.load("planar_2r")
    target, e0 = np.array([0.5, -0.5]), np.array([0.5, -0.5])
    kp, ki, h = 4.0, 13.0, 1e-3
    pi = rd.control.KinematicJoint(arm, target, kp, ki)
    res = rd.simulate(arm, [0.0, 0.0], controller=pi, duration=2.0, dt=h, input="velocity")
    np.testing.assert_allclose(target - res.q, np.outer(_s_pi(kp, ki, res.t)[0], e0), atol=1e-12)
    p = rd.control.KinematicJoint(arm, target, kp)
    eu = rd.simulate(arm, [0.0, 0.0], controller=p, duration=0.5, dt=h, input="velocity",
                     integrator="euler")  # fmt: skip
    k = np.arange(len(eu.t))[:, None]
    np.testing.assert_allclose(target - eu.q, (1 - kp * h) ** k * e0, rtol=1e-12, atol=1e-15)
    held = rd.simulate(arm, [0.0, 0.0], controller=p, duration=0.5, dt=h, input="velocity",
                       control_dt=0.05)  # fmt: skip
    n = np.arange(11)
    np.testing.assert_allclose(target - held.q[::50], (1 - kp * 0.05) ** n[:, None] * e0,
                               rtol=1e-12, atol=1e-15)  # fmt: skip
    assert held.meta["n_eval"] == 11


def test_a_floating_body_moves_on_se3_with_the_exact_decay():
    """KinematicJoint on a free joint: e = q_d (-) q = log6(T^-1 T_d) (rd.difference), so
    with P control T^-1 T_d stays on its screw and e(t) = exp(-kp t) e(0)."""
    b = rd.ModelBuilder("body")
    b.add_body("b", "world", joint_type="free", inertia=rd.inertia.box(1.0, size=(1, 2, 3)))
    model = b.build()
    q_d = np.array([0.2, -0.1, 0.4, np.cos(0.5), 0.0, np.sin(0.5), 0.0])
    ctrl = rd.control.KinematicJoint(model, q_d, 2.0)
    q0 = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    res = rd.simulate(model, q0, controller=ctrl, duration=1.0, dt=1e-3, input="velocity")
    e = rd.difference(model, res.q, q_d)
    np.testing.assert_allclose(e, np.exp(-2.0 * res.t)[:, None] * e[0], atol=1e-11)
    np.testing.assert_allclose(np.linalg.norm(res.q[:, 3:], axis=1), 1.0, atol=1e-14)


def test_a_batch_equals_its_rollouts(ur5):
    X1 = rd.fk(ur5, Q0 + 0.2, "ee")
    ctrl = rd.control.KinematicTaskSpace(ur5, "ee", X1, 3.0, 5.0)
    q0 = Q0 + np.array([[0.0] * 6, [0.05] * 6, [-0.04] * 6])
    batch = rd.simulate(ur5, q0, controller=ctrl, duration=0.5, dt=1e-3, input="velocity")
    assert batch.q.shape == (3, 501, 6) and batch.z.shape == (3, 501, 6)
    for i in range(3):
        one = rd.simulate(ur5, q0[i], controller=ctrl, duration=0.5, dt=1e-3, input="velocity")
        for name in ("q", "v", "z", "a"):
            np.testing.assert_allclose(getattr(batch[i], name), getattr(one, name), atol=1e-12)


def test_the_run_is_saved_and_a_failing_controller_keeps_the_partial(ur5, tmp_path):
    arm = rd.models.load("planar_2r")
    ctrl = rd.control.KinematicJoint(arm, [0.5, -0.5], 4.0)
    res = rd.simulate(arm, [0.0, 0.0], controller=ctrl, duration=0.1, dt=1e-3,
                      input="velocity", out=tmp_path / "run")  # fmt: skip
    assert rd.Trajectory.load(tmp_path / "run.npz", model=arm) == res

    def bad(t, q, v):
        return ctrl(t, q, v) * (np.nan if t > 0.05 else 1.0)

    with pytest.raises(SimulationError, match=r"input='velocity'\) stopped at step 51 .*NaN") as e:
        rd.simulate(arm, [0.0, 0.0], controller=bad, duration=0.1, dt=1e-3, input="velocity",
                    integrator="euler")  # fmt: skip
    assert e.value.partial.q.shape == (51, 2)


def test_bad_input_is_named(ur5):
    X = rd.fk(ur5, Q0, "ee")
    with pytest.raises(ValueError, match=r"kp must have 6 entries \(nv\), got shape \(3,\)"):
        rd.control.KinematicJoint(ur5, Q0, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"ki must have 6 entries \(nv\), got shape \(7,\)"):
        rd.control.KinematicJoint(ur5, Q0, 1.0, np.ones(7))
    with pytest.raises(ValueError, match=r"ref must be a configuration \(6,\)"):
        rd.control.KinematicJoint(ur5, Q0[:5], 1.0)
    with pytest.raises(ValueError, match=r"kp must have 6 entries \(nv\), got shape \(5,\)"):
        rd.control.KinematicTaskSpace(ur5, "ee", X, np.ones(5))
    with pytest.raises(ValueError, match=r"kp must be a scalar, a vector \(nv,\) or a matrix"):
        rd.control.KinematicTaskSpace(ur5, "ee", X, np.ones((6, 5)))
    with pytest.raises(ValueError, match=r"ref must be ref\(t\) -> .* or a finite pose \(4, 4\)"):
        rd.control.KinematicTaskSpace(ur5, "ee", X[:3], 1.0)
    kin = rd.control.KinematicJoint(ur5, Q0, 1.0)
    run = {"duration": 0.01, "dt": 1e-3}
    with pytest.raises(ValueError, match=r"KinematicJoint returns joint velocities: .*'velocity'"):
        rd.simulate(ur5, Q0, controller=kin, **run)
    pd = rd.control.PD(ur5, Q0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"'pd' returns joint torques \(input='torque'\)"):
        rd.simulate(ur5, Q0, controller=pd, input="velocity", **run)
    with pytest.raises(ValueError, match=r"input must be 'torque' or 'velocity', got 'speed'"):
        rd.simulate(ur5, Q0, controller=kin, input="speed", **run)
    for extra, what in (({"integrator": "rk45"}, "integrator must be one of"),
                        ({"f_ext": np.zeros((ur5.nb, 6))}, "f_ext"),
                        ({"clip_torque": True}, "no torque to clip"),
                        ({"on_divergence": "mark"}, "on_divergence must be 'raise'"),
                        ({"controller": None}, "needs a controller returning joint velocities"),
                        ({"constraints": lambda q: np.ones((1, 6))}, "constraints=")):  # fmt: skip
        kw = {"controller": kin, "input": "velocity", **run, **extra}
        with pytest.raises(ValueError, match=what):
            rd.simulate(ur5, Q0, **kw)
