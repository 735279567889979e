"""neutral, random_configuration, integrate, difference, normalize."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robodyn.model.builder import ModelBuilder
from robodyn.model.configuration import (
    difference,
    integrate,
    neutral,
    normalize,
    random_configuration,
)


def _floating() -> object:
    """Floating base + a limited revolute + an unlimited prismatic + a continuous joint."""
    return (
        ModelBuilder()
        .add_body("base", "world", joint_type="free")
        .add_body("l1", "base", axis=(0, 1, 0), lower=-0.5, upper=1.5)
        .add_body("l2", "l1", joint_type="prismatic", axis=(1, 0, 0))
        .add_body("l3", "l2", joint_type="continuous", axis=(0, 0, 1))
        .build()
    )


def _quat_rot(q) -> np.ndarray:
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def _same_quat(a, b, atol):
    a, b = np.asarray(a), np.asarray(b)
    assert min(np.abs(a - b).max(), np.abs(a + b).max()) < atol


MODEL = _floating()


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_integrate_difference_round_trip(s0, s1):
    q0 = random_configuration(MODEL, s0)
    q1 = random_configuration(MODEL, s1)
    v = difference(MODEL, q0, q1)
    assert v.shape == (MODEL.nv,)
    assert np.linalg.norm(v[:3]) <= math.pi + 1e-12
    back = integrate(MODEL, q0, v)
    np.testing.assert_allclose(back[:3], q1[:3], atol=1e-12)
    _same_quat(back[3:7], q1[3:7], 1e-12)
    np.testing.assert_allclose(back[7:], q1[7:], atol=1e-14)
    # and the other way: difference(q0, q0 (+) v) = v while the rotation angle stays < pi
    rng = np.random.default_rng(s0)
    v = rng.uniform(-1, 1, MODEL.nv)
    np.testing.assert_allclose(difference(MODEL, q0, integrate(MODEL, q0, v)), v, atol=1e-12)


def test_constant_body_twist_moves_on_a_circle():
    # body twist: spin w about the body z axis while moving forward at u along body x.
    # From the pose (R0, p0) the origin follows p0 + R0 [u/w sin(wt), u/w (1 - cos(wt)), 0]
    # and the attitude R0 Rz(wt): a circle of radius u/w (MR eq. 3.88, exp6).
    m = ModelBuilder().add_body("b", "world", joint_type="free").build()
    w, u = 0.8, 1.5
    quat0 = np.array([math.cos(0.35), math.sin(0.35) * 0.6, 0.0, math.sin(0.35) * 0.8])
    p0 = np.array([0.3, -1.0, 2.0])
    q0 = np.concatenate([p0, quat0])
    R0 = _quat_rot(quat0)
    V = np.array([0, 0, w, u, 0, 0])
    for t in (0.1, 1.0, 2.5, 7.0):
        q = integrate(m, q0, V, t)
        p_ref = p0 + R0 @ [u / w * math.sin(w * t), u / w * (1 - math.cos(w * t)), 0]
        np.testing.assert_allclose(q[:3], p_ref, atol=1e-13)
        Rz = np.array(
            [
                [math.cos(w * t), -math.sin(w * t), 0],
                [math.sin(w * t), math.cos(w * t), 0],
                [0, 0, 1],
            ]
        )
        np.testing.assert_allclose(_quat_rot(q[3:]), R0 @ Rz, atol=1e-13)
        assert np.linalg.norm(q[3:]) == pytest.approx(1.0, abs=1e-15)
    # many small steps of a constant twist = one big step (one-parameter subgroup)
    q = q0
    for _ in range(100):
        q = integrate(m, q, V, 0.05)
    big = integrate(m, q0, V, 5.0)
    np.testing.assert_allclose(q[:3], big[:3], atol=1e-12)
    _same_quat(q[3:], big[3:], 1e-12)
    # pure translation in the body frame: p + R0 v t
    q = integrate(m, q0, [0, 0, 0, 1.0, -2.0, 0.5], 0.4)
    np.testing.assert_allclose(q[:3], p0 + R0 @ np.array([1.0, -2.0, 0.5]) * 0.4, atol=1e-15)
    np.testing.assert_allclose(q[3:], quat0, atol=1e-15)
    # tiny rotation: the Taylor branches agree with the closed form
    q = integrate(m, q0, V, 1e-6)
    t = 1e-6
    p_ref = p0 + R0 @ [u / w * math.sin(w * t), u / w * (1 - math.cos(w * t)), 0]
    np.testing.assert_allclose(q[:3], p_ref, atol=1e-16)


def test_one_dof_joints_integrate_linearly_and_batches():
    q0 = random_configuration(MODEL, 7, size=5)
    v = np.random.default_rng(8).uniform(-2, 2, (5, MODEL.nv))
    q = integrate(MODEL, q0, v, 0.3)
    assert q.shape == (5, MODEL.nq)
    np.testing.assert_allclose(q[:, 7:], q0[:, 7:] + 0.3 * v[:, 6:], atol=1e-15)
    for k in range(5):
        np.testing.assert_allclose(q[k], integrate(MODEL, q0[k], v[k], 0.3), atol=1e-15)
    d = difference(MODEL, q0, q)
    assert d.shape == (5, MODEL.nv)
    np.testing.assert_allclose(d, 0.3 * v, atol=1e-12)
    # a single q with a batch of velocities broadcasts
    q = integrate(MODEL, q0[0], v, 1.0)
    assert q.shape == (5, MODEL.nq)
    # a continuous joint is an angle, never wrapped
    qa = neutral(MODEL)
    qb = qa.copy()
    qb[-1] = 7.0
    assert difference(MODEL, qa, qb)[-1] == 7.0


def test_random_configuration_respects_limits():
    m = (
        ModelBuilder()
        .add_body("base", "world", joint_type="free")
        .add_body("a", "base", lower=-0.2, upper=0.9)
        .add_body("b", "a")  # unlimited revolute
        .add_body("c", "b", joint_type="prismatic", lower=0.1, upper=0.3)
        .add_body("d", "c", joint_type="prismatic")  # unlimited prismatic
        .add_body("e", "d", lower=1.0)  # one-sided: [1, 1 + 2 pi]
        .add_body("f", "e", joint_type="prismatic", upper=-2.0)  # one-sided: [-4, -2]
        .build()
    )
    q = random_configuration(m, np.random.default_rng(0), size=4000)
    assert q.shape == (4000, m.nq)
    lo = np.array([-0.2, -math.pi, 0.1, -1.0, 1.0, -4.0])
    hi = np.array([0.9, math.pi, 0.3, 1.0, 1.0 + 2 * math.pi, -2.0])
    x = q[:, 7:]
    assert np.all(x >= lo) and np.all(x <= hi)
    # uniform: the samples fill the range (min and max within 1 % of the ends)
    np.testing.assert_allclose(x.min(0), lo, atol=0.01 * (hi - lo).max())
    np.testing.assert_allclose(x.max(0), hi, atol=0.01 * (hi - lo).max())
    assert np.all(np.abs(x.mean(0) - (lo + hi) / 2) < 0.05 * (hi - lo))
    assert np.all(np.abs(q[:, :3]) <= 1.0)
    np.testing.assert_allclose(np.linalg.norm(q[:, 3:7], axis=1), 1.0, atol=1e-15)
    # uniform rotations: E[R] = 0 for the Haar measure
    Rs = np.array([_quat_rot(qq) for qq in q[:, 3:7]])
    assert np.abs(Rs.mean(0)).max() < 0.06
    # seeds are reproducible, generators are used as given
    np.testing.assert_array_equal(random_configuration(m, 5), random_configuration(m, 5))
    assert random_configuration(m).shape == (m.nq,)
    with pytest.raises(ValueError, match="rng must be"):
        random_configuration(m, "seed")


def test_neutral():
    m = (
        ModelBuilder()
        .add_body("base", "world", joint_type="free")
        .add_body("a", "base", lower=0.5, upper=1.0)
        .add_body("b", "a", lower=-2.0, upper=-1.0)
        .add_body("c", "b", joint_type="prismatic", lower=-0.1, upper=0.1)
        .add_body("d", "c", joint_type="continuous")
        .build()
    )
    np.testing.assert_array_equal(neutral(m), [0, 0, 0, 1, 0, 0, 0, 0.5, -1.0, 0, 0])


def test_normalize():
    q = np.array([[1, 2, 3, 2.0, 0, 0, 0, 0.1, 0.2, 0.3], [0, 0, 0, 0, 3.0, 4.0, 0, 1, 2, 3]])
    out = normalize(MODEL, q)
    np.testing.assert_array_equal(out[0], [1, 2, 3, 1, 0, 0, 0, 0.1, 0.2, 0.3])
    np.testing.assert_allclose(out[1, 3:7], [0, 0.6, 0.8, 0])
    assert q[0, 3] == 2.0  # input untouched
    with pytest.raises(ValueError, match="zero quaternion"):
        normalize(MODEL, np.zeros(MODEL.nq))


def test_shape_errors_name_the_argument():
    q, v = neutral(MODEL), np.zeros(MODEL.nv)
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 10\), got \(9,\)"):
        integrate(MODEL, q[:-1], v)
    with pytest.raises(ValueError, match=r"v must have shape \(\.\.\., 9\), got \(10,\)"):
        integrate(MODEL, q, np.zeros(10))
    with pytest.raises(ValueError, match=r"q0 must have shape \(\.\.\., 10\), got \(3, 4\)"):
        difference(MODEL, np.zeros((3, 4)), q)
    with pytest.raises(ValueError, match=r"q1 must have shape"):
        difference(MODEL, q, q[:3])
    with pytest.raises(ValueError, match="q contains NaN"):
        integrate(MODEL, np.full(MODEL.nq, np.nan), v)
    with pytest.raises(ValueError, match="dt must be finite"):
        integrate(MODEL, q, v, np.inf)
