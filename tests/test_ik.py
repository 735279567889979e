"""Inverse kinematics: random reachable poses of the UR5 and the 7-DoF Panda.

Targets come from fk at random configurations within the limits (so they are reachable);
each solve starts from the true configuration perturbed by up to 0.5 rad per joint. A
solution is checked by forward kinematics against the target, independently of the
solver's own error measure.
"""

from __future__ import annotations

import numpy as np
import pytest

from robodyn import kinematics as kin
from robodyn import models
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.model.configuration import random_configuration
from robodyn.spatial import exp3, inv_transform, log6, transform

N_TARGETS = 100
MIN_RATE = 0.95


def _solve_many(model, method, seed, restarts):
    rng = np.random.default_rng(seed)
    solved, iterations = 0, []
    for _ in range(N_TARGETS):
        q_true = random_configuration(model, rng)
        T = kin.fk(model, q_true, "ee")
        q0 = q_true + rng.uniform(-0.5, 0.5, model.nq)
        r = kin.ik(model, "ee", T, q0, method=method, restarts=restarts, rng=rng)
        assert isinstance(r, kin.IKResult)
        iterations.append(r.iterations)
        if r.success:
            solved += 1
            # independent check: the pose reached is the target
            np.testing.assert_allclose(kin.fk(model, r.q, "ee"), T, atol=1e-7)
            assert r.error <= np.sqrt(2) * 1e-8
            lo, hi = model.q_lower, model.q_upper
            assert np.all(r.q >= lo) and np.all(r.q <= hi)
        assert r.iterations <= 100 * (restarts + 1)
    return solved / N_TARGETS, float(np.mean(iterations))


@pytest.mark.parametrize("robot", ["ur5", "panda"])
@pytest.mark.parametrize("method", ["newton", "dls"])
def test_ik_solves_random_reachable_poses(robot, method):
    model = models.load(robot)
    assert model.nv == (6 if robot == "ur5" else 7)
    rate, mean_it = _solve_many(model, method, seed=1, restarts=3)
    print(f"{robot} {method}: success {rate:.0%}, mean iterations {mean_it:.1f}")
    assert rate >= MIN_RATE


def test_ik_without_restarts_from_a_close_start_converges_quadratically():
    """Newton from 0.05 rad away reaches 1e-8 within a handful of iterations (MR IKinBody)."""
    model = models.load("ur5")
    rng = np.random.default_rng(2)
    solved = 0
    while solved < 20:
        q_true = rng.uniform(-np.pi, np.pi, 6)
        if np.linalg.cond(kin.jacobian(model, q_true, "ee", "body")) > 30:
            continue  # keep well-conditioned configurations, away from singularities
        solved += 1
        T = kin.fk(model, q_true, "ee")
        r = kin.ik(model, "ee", T, q_true + rng.uniform(-0.05, 0.05, 6))
        assert r.success and r.iterations <= 5
        np.testing.assert_allclose(kin.fk(model, r.q, "ee"), T, atol=1e-9)


@pytest.mark.parametrize("method", ["newton", "dls"])
def test_unreachable_target_fails_within_the_iteration_cap(method):
    model = models.load("ur5")
    T = transform(np.eye(3), [3.0, 0.0, 0.5])  # the UR5 reaches ~0.95 m
    r = kin.ik(model, "ee", T, np.zeros(6), method=method, max_iterations=40, restarts=0)
    assert not r.success
    assert r.iterations == 40
    assert r.error > 1.0
    assert "did not converge" in r.message
    r = kin.ik(model, "ee", T, np.zeros(6), method=method, max_iterations=10, restarts=2, rng=0)
    assert not r.success and r.iterations == 30


def test_limits_are_respected_and_can_be_ignored():
    model = models.load("panda")
    lo, hi = model.q_lower, model.q_upper
    rng = np.random.default_rng(3)
    q_true = random_configuration(model, rng)
    T = kin.fk(model, q_true, "ee")
    for method in ("newton", "dls"):
        # start outside the limits: the iterate is clipped into them
        q0 = np.where(rng.random(7) < 0.5, lo - 0.3, hi + 0.3)
        r = kin.ik(model, "ee", T, q0, method=method, restarts=10, rng=4)
        assert r.success
        assert np.all(r.q >= lo) and np.all(r.q <= hi)
        np.testing.assert_allclose(kin.fk(model, r.q, "ee"), T, atol=1e-7)
    # a target only reachable outside the limits: joint 4 of the Panda must stay negative
    q_out = np.zeros(7)
    q_out[3] = 0.5
    T_out = kin.fk(model, q_out, "ee")
    r = kin.ik(model, "ee", T_out, q_out + 0.01, respect_limits=False)
    assert r.success
    np.testing.assert_allclose(kin.fk(model, r.q, "ee"), T_out, atol=1e-8)


def test_ik_floating_base_uses_the_lie_group_update():
    """A free-floating arm: the base alone can reach any pose, so IK always converges; the
    quaternion stays unit because the update is q (+) dq."""
    b = ModelBuilder("floating_arm")
    b.add_body(
        "base", "world", joint_type="free", inertia=RigidInertia(2.0, np.zeros(3), np.eye(3))
    )
    b.add_body("l1", "base", axis=(0, 0, 1), T=transform(np.eye(3), [0, 0, 0.2]))
    b.add_body("l2", "l1", axis=(0, 1, 0), T=transform(np.eye(3), [0.3, 0, 0]))
    b.add_frame("ee", "l2", T=transform(exp3([0.3, 0.2, 0.1]), [0.25, 0, 0]))
    model = b.build()
    rng = np.random.default_rng(5)
    for method in ("newton", "dls"):
        for _ in range(10):
            T = kin.fk(model, random_configuration(model, rng), "ee")
            r = kin.ik(model, "ee", T, random_configuration(model, rng), method=method)
            assert r.success
            np.testing.assert_allclose(kin.fk(model, r.q, "ee"), T, atol=1e-7)
            assert np.linalg.norm(r.q[3:7]) == pytest.approx(1.0, abs=1e-12)


def test_ik_bad_input():
    model = models.load("ur5")
    T = np.eye(4)
    with pytest.raises(ValueError, match="T_target"):
        kin.ik(model, "ee", np.eye(3), np.zeros(6))
    with pytest.raises(ValueError, match="T_target"):
        kin.ik(model, "ee", 2 * np.eye(4), np.zeros(6))
    with pytest.raises(ValueError, match="q0 must have shape"):
        kin.ik(model, "ee", T, np.zeros(5))
    with pytest.raises(ValueError, match="method"):
        kin.ik(model, "ee", T, np.zeros(6), method="ccd")
    with pytest.raises(ValueError, match="max_iterations"):
        kin.ik(model, "ee", T, np.zeros(6), max_iterations=-1)
    with pytest.raises(ValueError, match="damping"):
        kin.ik(model, "ee", T, np.zeros(6), damping=np.nan)
    with pytest.raises(ValueError, match="q0 contains NaN"):
        kin.ik(model, "ee", T, np.full(6, np.nan))


# ------------------------------------------------------------------ IK that answers (MR ch. 6)
def _arms():
    """The bundled UR5 and Panda and every example-robot-data arm with 6-7 joints."""
    import warnings

    from helpers import erd_urdfs
    from robodyn.model.urdf import load_urdf

    arms = [("ur5", models.load("ur5"), "ee"), ("panda", models.load("panda"), "ee")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in erd_urdfs():
            try:
                m = load_urdf(path)
            except Exception:  # noqa: BLE001 (the few URDFs robodyn refuses by default)
                continue
            if m.nv in (6, 7) and "bolt" not in path:  # bolt: a pair of legs, not an arm
                arms.append((path.split("robots/")[-1], m, m.frame_names[-1]))
    return arms


ARMS = _arms()


@pytest.mark.parametrize("name, model, frame", ARMS, ids=[a[0] for a in ARMS])
def test_ik_answers_on_1000_random_reachable_poses(name, model, frame):
    # poses = fk of random configurations within the limits; every solve starts from the
    # neutral configuration with the defaults
    rng = np.random.default_rng(0)
    lo = np.where(np.isfinite(model.q_lower), model.q_lower, -np.pi)
    hi = np.where(np.isfinite(model.q_upper), model.q_upper, np.pi)
    T = kin.fk(model, rng.uniform(lo, hi, (1000, model.nq)), frame)
    ok = 0
    for k in range(1000):
        r = kin.ik(model, frame, T[k], rng=k)
        if r.success:
            ok += 1
            assert np.all(r.q >= model.q_lower) and np.all(r.q <= model.q_upper)
            Vb = log6(inv_transform(kin.fk(model, r.q, frame)) @ T[k])
            assert np.linalg.norm(Vb[:3]) <= 1e-8 and np.linalg.norm(Vb[3:]) <= 1e-8
        else:
            assert "did not converge" in r.message and "best twist error" in r.message
    assert ok >= 990, f"{name}: {ok} of 1000"


def test_ik_timeout_returns_the_best_so_far():
    model = models.load("ur5")
    T = transform(np.eye(3), [3.0, 0.0, 0.5])  # out of reach: only the budget stops it
    r = kin.ik(model, "ee", T, restarts=100000, timeout=0.05)
    assert not r.success and "timed out after 0.05 s" in r.message and r.error > 1.0
    with pytest.raises(ValueError, match="timeout"):
        kin.ik(model, "ee", T, timeout=-1.0)
