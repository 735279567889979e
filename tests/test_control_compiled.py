"""rd.control.TaskSpaceComputedTorque in the compiled rollout (kernels/core/sim.c's
LAW_TASK_CT) against the same law called from the Python loop, whose damped
least-squares inverse is numpy's SVD (robodyn.control._damped_inverse); and the law
driven through a singular configuration (issue 29)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import robodyn as rd
from robodyn.sim._compiled import _c_setup


def _python_path(ctrl):
    """The same controller as a plain callable: simulate takes its Python loop."""
    return lambda t, q, v: ctrl(t, q, v)


def _compiled(model, ctrl, integrator="rk4"):
    """Whether simulate runs this controller in the compiled rollout."""
    return _c_setup(model, ctrl, integrator, True, False) is not None


def _max_diff(a, b) -> dict:
    return {x: float(np.max(np.abs(getattr(a, x) - getattr(b, x)))) for x in ("q", "v", "a", "tau")}


# ------------------------------------------------------------------ parity along references
@pytest.mark.parametrize("robot", ["ur5", "panda"])
def test_the_compiled_task_space_law_equals_the_python_loop(robot, rng):
    """A constant pose, a screw path (quintic) and a Cartesian path (cubic), 0.3 s at 1 kHz
    with RK4: the UR5 (J_b 6 x 6) with joint friction and armature under a controller whose
    model is 10 % heavier, vector gains and saturation; the Panda (6 x 7, redundant: the
    null-space damping acts) with full 6 x 6 gain matrices. Measured: q, v within 4e-15,
    a and tau within 6e-13 (torques up to ~100 N m)."""
    model = rd.models.load(robot)
    if robot == "ur5":
        model = dataclasses.replace(
            model, dof_damping=np.full(6, 0.3), dof_friction=np.full(6, 0.2),
            dof_armature=np.full(6, 0.05),
        )  # fmt: skip
        q0 = np.array([0.3, -1.0, 1.2, -0.5, 1.1, 0.2])
        gains = dict(kp=np.array([100.0, 90.0, 110.0, 120.0, 80.0, 100.0]), kd=20.0,
                     tau_max=np.full(6, 150.0), k_null=1.0)  # fmt: skip
        ctrl_model = rd.control.perturbed(model, 1.1)
    else:
        q0 = np.array([0.1, -0.4, 0.2, -2.0, 0.1, 1.6, 0.7])
        A = rng.normal(size=(6, 6)) * 5.0
        kp = 100.0 * np.eye(6) + 0.5 * (A + A.T)  # symmetric, positive definite
        gains = dict(kp=kp, kd=20.0 * np.eye(6) + 0.1 * (A - A.T), k_null=2.0)
        ctrl_model = model
    X0 = rd.fk(model, q0, "ee")
    X1 = X0 @ rd.exp6([0.3, -0.2, 0.4, 0.1, -0.05, 0.08])
    refs = {
        "pose": X1,
        "screw": rd.trajectory.screw_trajectory(X0, X1, 0.25),
        "cartesian": rd.trajectory.cartesian_trajectory(X0, X1, 0.25, "cubic"),
    }
    for name, ref in refs.items():
        ctrl = rd.control.TaskSpaceComputedTorque(ctrl_model, "ee", ref, **gains)
        assert _compiled(model, ctrl), name
        kw = dict(duration=0.3, dt=1e-3, integrator="rk4")
        fast = rd.simulate(model, q0, controller=ctrl, **kw)
        slow = rd.simulate(model, q0, controller=_python_path(ctrl), **kw)
        d = _max_diff(fast, slow)
        assert d["q"] < 1e-14 and d["v"] < 1e-14, (name, d)
        assert d["a"] < 1e-12 and d["tau"] < 1e-12, (name, d)
        assert np.array_equal(fast.t, slow.t) and fast.meta["n_eval"] == slow.meta["n_eval"]
        # the frame is on its way (0.3 s: the paths take 0.25 s; from rest, the pose step
        # is not done): the law drives it, the two paths are not both idle
        assert np.max(np.abs(fast.q[-1] - q0)) > 0.05, name


def test_only_polynomial_pose_references_run_compiled():
    """A callable reference without a description, and a pose path under a trapezoidal
    time scaling, keep the Python loop (the law says None)."""
    ur5 = rd.models.load("ur5")
    X0 = rd.fk(ur5, np.zeros(6), "ee")
    X1 = X0 @ rd.exp6([0.1, 0.0, 0.0, 0.0, 0.02, 0.0])
    path = rd.trajectory.screw_trajectory(X0, X1, 1.0)
    trapezoid = rd.trajectory.TrapezoidalScaling(1.0, v_max=1.5)
    refs = ((path, True), (lambda t: path(t), False),
            (rd.trajectory.screw_trajectory(X0, X1, 1.0, trapezoid), False))  # fmt: skip
    for ref, compiled in refs:
        ctrl = rd.control.TaskSpaceComputedTorque(ur5, "ee", ref, 100.0, 20.0)
        assert (ctrl._c_law(ur5) is not None) is compiled
        assert _compiled(ur5, ctrl) is compiled


# ------------------------------------------------------------------ the damped inverse
def _screws(rng, kinds: str) -> np.ndarray:
    """Random joint screws (6, n): "r" a unit rotation axis through a random point, "p" a
    unit translation."""
    cols = []
    for k in kinds:
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        if k == "r":
            cols.append(np.concatenate([d, -np.cross(d, 0.5 * rng.normal(size=3))]))
        else:
            cols.append(np.concatenate([np.zeros(3), d]))
    return np.array(cols).T


def _robot_with_jacobian(S: np.ndarray, rng) -> rd.Model:
    """A serial robot whose "ee" body Jacobian at q = 0 is S (6, n): its joints' space screws
    at home, with the end-effector at the origin (M = 1, so J_b(0) = J_s(0) = S)."""
    n = S.shape[1]
    Mlist, P = [], np.eye(4)
    for _ in range(n):
        Mi = rd.transform(rd.exp3(0.5 * rng.normal(size=3)), 0.2 * rng.normal(size=3))
        Mlist.append(Mi)
        P = P @ Mi
    Mlist.append(rd.inv_transform(P))
    Glist = [np.diag(np.concatenate([rng.uniform(0.02, 0.03, 3), np.full(3, rng.uniform(0.5, 2))]))
             for _ in range(n)]  # fmt: skip
    return rd.from_mr(np.eye(4), S, Mlist, Glist)


@pytest.mark.parametrize("kinds, rank_deficient", [
    ("rrrrrrr", False), ("rrrrrr", False), ("rpr", False),
    ("rrrrrrr", True), ("rrrrrr", True), ("rpr", True),
])  # fmt: skip
def test_the_compiled_damped_inverse_equals_numpys_svd(kinds, rank_deficient, rng):
    """J_b is random (6 x 7, 6 x 6, 6 x 3; rank-deficient: joints on the same screw, so
    s_min is round-off): the compiled law's torque at one state, turned into qdd by
    forward dynamics, equals the Python law's (numpy's SVD) in each regime of the inverse:
    undamped (s_min above the threshold: the core's QR and triangular solve), damped
    everywhere (the threshold above s_max: its Jacobi SVD), the plain pseudo-inverse, and
    at a rank-deficient J_b (damping 0.05 at full strength). Measured on 30 random robots:
    within 2e-14 of |qdd| for a full-rank J_b; within 6.1e-14 for a rank-deficient one,
    where numpy's and the core's round-off singular value s ~ 1e-16 gets the gain
    s / lambda^2 ~ 4e-14."""
    S = _screws(rng, kinds)
    if rank_deficient:  # the last joint on the first one's screw (7 dof: two such pairs)
        S[:, -1] = S[:, 0]
        if S.shape[1] == 7:
            S[:, -2] = S[:, 1]
    model = _robot_with_jacobian(S, rng)
    q0 = np.zeros(model.nq)
    J = rd.jacobian(model, q0, "ee", kind="body")
    np.testing.assert_allclose(J, S, rtol=0, atol=1e-14)
    s = np.linalg.svd(J, compute_uv=False)
    if rank_deficient:
        assert s[-1] < 1e-14
        cases = [(0.05, 0.05), (0.3, 2.0 * s[0])]
    else:
        assert s[-1] > 0.05
        cases = [(0.05, 0.5 * s[-1]), (0.3, 2.0 * s[0]), (0.0, 0.0)]
    v0 = rng.normal(size=model.nv)
    X_d = rd.exp6(0.2 * rng.normal(size=6))  # a pose error and a twist error to correct
    for damping, threshold in cases:
        ctrl = rd.control.TaskSpaceComputedTorque(
            model, "ee", X_d, 100.0, 20.0, friction=False, damping=damping,
            singular_threshold=threshold,
        )  # fmt: skip
        assert _compiled(model, ctrl, "euler")
        res = rd.simulate(model, q0, v0, controller=ctrl, duration=1e-3, dt=1e-3,
                          integrator="euler")  # fmt: skip
        a_c = rd.forward_dynamics(model, q0, v0, res.tau[0], friction=False)
        a_py = rd.forward_dynamics(model, q0, v0, ctrl(0.0, q0, v0), friction=False)
        err = np.max(np.abs(a_c - a_py)) / np.max(np.abs(a_py))
        assert err < (2e-13 if rank_deficient else 1e-13), (damping, threshold, err)


# ------------------------------------------------------------------ singular configurations
def test_task_space_computed_torque_goes_through_the_wrist_singularity():
    """The UR5's tool turns about joint 5's axis from q5 = 0.3 to -0.3 (a screw path, 1 s):
    at q5 = 0 the axes of joints 4 and 6 line up and J_b's smallest singular value falls to
    ~1e-5. The plain pseudo-inverse (singular_threshold=0) diverges there; the damped
    least-squares inverse runs through it with finite torques, the tracking error grows
    only inside the damped zone (s_min < 0.05) and decays after it, and the compiled run
    equals the Python loop's (numpy's SVD) through the singular stretch. Measured: the
    error 6e-12 before the zone, at most 1.9e-5 (t = 0.59 s), 2.3e-8 at the end (1.5 s,
    the error dynamics' decay, critically damped at 10 rad/s); C and Python within
    3e-13."""
    import warnings

    ur5 = rd.models.load("ur5")
    qa = np.array([0.3, -1.0, 1.2, -0.5, 0.3, 0.2])
    qb = qa.copy()
    qb[4] = -0.3
    ref = rd.trajectory.screw_trajectory(rd.fk(ur5, qa, "ee"), rd.fk(ur5, qb, "ee"), 1.0)
    plain = rd.control.TaskSpaceComputedTorque(ur5, "ee", ref, 100.0, 20.0, singular_threshold=0)
    assert _compiled(ur5, plain)
    with pytest.raises(rd.SimulationError, match="diverged") as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rd.simulate(ur5, qa, controller=plain, duration=1.5, dt=1e-3)
    assert 0.45 < err.value.partial.t[-1] < 0.55  # where q5 crosses 0

    ctrl = rd.control.TaskSpaceComputedTorque(ur5, "ee", ref, 100.0, 20.0)
    res = rd.simulate(ur5, qa, controller=ctrl, duration=1.5, dt=1e-3)
    s_min = np.linalg.svd(rd.jacobian(ur5, res.q, "ee", kind="body"), compute_uv=False)[:, -1]
    assert s_min.min() < 1e-4 and np.abs(res.q[:, 4]).min() < 1e-4  # through the singularity
    X = rd.fk(ur5, res.q, "ee")
    err = np.array([np.linalg.norm(rd.log6(rd.inv_transform(X[k]) @ ref(t)[0]))
                    for k, t in enumerate(res.t)])  # fmt: skip
    before = res.t < 0.4  # s_min > 0.05: the pseudo-inverse, exact tracking
    assert s_min[before].min() > 0.05 and err[before].max() < 1e-10
    assert 1e-6 < err.max() < 5e-5  # the damped zone gives up some accuracy, boundedly
    assert err[-1] < 1e-7  # and the error decays once out of it
    # the joint accelerations stay the path's own, q5'' peaking at 0.6 rad 10 / sqrt(3) / T^2
    # = 3.46 rad/s^2 (the plain inverse's reached ~1e48), and the torque beyond gravity is
    # joint 5's inertia times it, M_55 3.46 = 0.875 N m
    assert np.all(np.isfinite(res.tau)) and np.abs(res.a).max() < 1.01 * 0.6 * 10 / np.sqrt(3)
    assert np.abs(res.tau - rd.gravity_forces(ur5, res.q)).max() < 0.88
    slow = rd.simulate(ur5, qa, controller=_python_path(ctrl), duration=0.7, dt=1e-3)
    k = len(slow.t)  # its samples are the first ones of the 1.5 s run
    d = [np.max(np.abs(getattr(res, x)[:k] - getattr(slow, x))) for x in ("q", "v", "a", "tau")]
    assert max(d) < 1e-12, d
