"""SO(3)/SE(3) functions against closed forms, the modern_robotics package and identities."""

from __future__ import annotations

import modern_robotics as mr
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robodyn import spatial as sp

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
vec3 = arrays(np.float64, 3, elements=finite)
vec6 = arrays(np.float64, 6, elements=finite)
SETTINGS = settings(max_examples=50, deadline=None)


def random_rotation(rng):
    return sp.exp3(rng.normal(size=3))


def random_transform(rng):
    return sp.transform(random_rotation(rng), rng.normal(size=3))


# ------------------------------------------------------------------- closed forms
def test_skew_is_cross_product():
    w, x = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0, -1.0])
    np.testing.assert_array_equal(sp.skew(w) @ x, np.cross(w, x))
    np.testing.assert_array_equal(sp.unskew(sp.skew(w)), w)


def test_exp3_quarter_turn_about_z():
    R = sp.exp3([0.0, 0.0, np.pi / 2])
    np.testing.assert_allclose(R, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_elementary_rotations_match_exp3():
    t = 0.7
    np.testing.assert_allclose(sp.rot_x(t), sp.exp3([t, 0, 0]), atol=1e-15)
    np.testing.assert_allclose(sp.rot_y(t), sp.exp3([0, t, 0]), atol=1e-15)
    np.testing.assert_allclose(sp.rot_z(t), sp.exp3([0, 0, t]), atol=1e-15)
    c, s = np.cos(t), np.sin(t)
    np.testing.assert_allclose(sp.rot_y(t), [[c, 0, s], [0, 1, 0], [-s, 0, c]], atol=1e-15)


def test_mr_textbook_examples():
    # MR library docstring examples (MatrixExp3, MatrixLog6, Adjoint).
    so3 = np.array([[0, -3, 2], [3, 0, -1], [-2, 1, 0]], dtype=float)
    np.testing.assert_allclose(
        sp.exp3([1, 2, 3]),
        [
            [-0.69492056, 0.71352099, 0.08929286],
            [-0.19200697, -0.30378504, 0.93319235],
            [0.69297817, 0.6313497, 0.34810748],
        ],
        atol=1e-8,
    )
    np.testing.assert_allclose(sp.skew([1, 2, 3]), so3)
    T = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 3], [0, 0, 0, 1]], dtype=float)
    np.testing.assert_allclose(sp.log6(T), [1.57079633, 0, 0, 0, 2.35619449, 2.35619449], atol=1e-8)
    np.testing.assert_allclose(
        sp.adjoint(T),
        [
            [1, 0, 0, 0, 0, 0],
            [0, 0, -1, 0, 0, 0],
            [0, 1, 0, 0, 0, 0],
            [0, 0, 3, 1, 0, 0],
            [3, 0, 0, 0, 0, -1],
            [0, 0, 0, 0, 1, 0],
        ],
        atol=1e-15,
    )


@SETTINGS
@given(vec3)
def test_exp3_equals_modern_robotics(w):
    # MR's MatrixExp3 returns the identity below |w| = 1e-6 (its NearZero); compare above it.
    assume(np.linalg.norm(w) >= 1e-5)
    np.testing.assert_allclose(sp.exp3(w), mr.MatrixExp3(mr.VecToso3(w)), atol=1e-12)


@SETTINGS
@given(vec6)
def test_exp6_and_adjoint_equal_modern_robotics(V):
    assume(not 0 < np.linalg.norm(V[:3]) < 1e-5)  # MR's NearZero threshold, see above
    T = sp.exp6(V)
    np.testing.assert_allclose(T, mr.MatrixExp6(mr.VecTose3(V)), atol=1e-10)
    np.testing.assert_allclose(sp.adjoint(T), mr.Adjoint(T), atol=1e-10)
    np.testing.assert_allclose(sp.ad(V), mr.ad(V), atol=1e-15)


# ---------------------------------------------------------------- round trips
@SETTINGS
@given(arrays(np.float64, 3, elements=st.floats(-1, 1)), st.floats(0, np.pi - 1e-9))
def test_log3_inverts_exp3_up_to_pi(axis, angle):
    n = np.linalg.norm(axis)
    assume(n >= 1e-6)
    w = axis / n * angle
    np.testing.assert_allclose(sp.log3(sp.exp3(w)), w, atol=1e-9)


@pytest.mark.parametrize("eps", [0.0, 1e-14, 1e-10, 1e-7, 1e-5, 1e-3])
@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 2, -3), (-1, -1, 1)])
def test_log3_near_pi_and_near_zero(axis, eps):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    # near pi: the result is w*theta or -w*theta when theta == pi exactly (both valid)
    w = a * (np.pi - eps)
    out = sp.log3(sp.exp3(w))
    if eps == 0.0:
        assert np.allclose(out, w, atol=1e-12) or np.allclose(out, -w, atol=1e-12)
    else:
        np.testing.assert_allclose(out, w, atol=1e-12 + 1e-8 * (eps < 1e-6))
        np.testing.assert_allclose(sp.exp3(out), sp.exp3(w), atol=1e-12)
    # near zero: exact to 1e-12 relative
    w0 = a * eps
    np.testing.assert_allclose(sp.log3(sp.exp3(w0)), w0, atol=1e-12 * max(eps, 1e-300))
    K = sp.skew(a)  # Rodrigues with the unit axis: no division, exact reference
    R0 = np.eye(3) + np.sin(eps) * K + (1 - np.cos(eps)) * K @ K
    np.testing.assert_allclose(sp.exp3(w0), R0, atol=1e-15)


def test_exp_near_zero_no_division():
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(sp.exp3(np.zeros(3)), np.eye(3))
        np.testing.assert_array_equal(sp.exp6(np.zeros(6)), np.eye(4))
        np.testing.assert_array_equal(sp.log3(np.eye(3)), np.zeros(3))
        np.testing.assert_array_equal(sp.log6(np.eye(4)), np.zeros(6))
    # pure translation
    np.testing.assert_allclose(sp.exp6([0, 0, 0, 1, 2, 3])[:3, 3], [1, 2, 3])


@SETTINGS
@given(vec3, st.floats(0.0, np.pi - 1e-6), vec3)
def test_log6_inverts_exp6(axis, angle, v):
    n = np.linalg.norm(axis)
    w = axis / n * angle if n > 1e-6 else np.zeros(3)
    V = np.concatenate([w, v])
    np.testing.assert_allclose(sp.log6(sp.exp6(V)), V, atol=1e-8 * (1 + np.abs(V).max()))


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_adjoint_is_a_homomorphism(seed):
    rng = np.random.default_rng(seed)
    T1, T2 = random_transform(rng), random_transform(rng)
    np.testing.assert_allclose(sp.adjoint(T1 @ T2), sp.adjoint(T1) @ sp.adjoint(T2), atol=1e-12)
    np.testing.assert_allclose(
        sp.adjoint(sp.inv_transform(T1)), np.linalg.inv(sp.adjoint(T1)), atol=1e-10
    )
    # Ad_T [V] Ad_T^-1 = [Ad_T V]: ad of the transformed twist
    V = rng.normal(size=6)
    Ad = sp.adjoint(T1)
    np.testing.assert_allclose(Ad @ sp.ad(V) @ np.linalg.inv(Ad), sp.ad(Ad @ V), atol=1e-10)


@SETTINGS
@given(st.integers(0, 2**32 - 1))
def test_quaternion_and_rpy_round_trips(seed):
    rng = np.random.default_rng(seed)
    R = random_rotation(rng)
    q = sp.rotation_to_quat(R)
    assert q[0] >= 0 and abs(np.linalg.norm(q) - 1) < 1e-14
    np.testing.assert_allclose(sp.quat_to_rotation(q), R, atol=1e-12)
    np.testing.assert_allclose(sp.rpy_to_rotation(sp.rotation_to_rpy(R)), R, atol=1e-12)
    R2 = random_rotation(rng)
    q2 = sp.rotation_to_quat(R2)
    np.testing.assert_allclose(sp.quat_to_rotation(sp.quat_multiply(q, q2)), R @ R2, atol=1e-12)
    np.testing.assert_allclose(sp.quat_multiply(q, sp.quat_conjugate(q)), [1, 0, 0, 0], atol=1e-14)


def test_quaternion_of_half_turns():
    # 180 deg about x, y, z: Shepperd must pick the large component.
    for k, axis in enumerate(np.eye(3)):
        q = sp.rotation_to_quat(sp.exp3(np.pi * axis))
        expect = np.zeros(4)
        expect[k + 1] = 1.0
        assert np.allclose(q, expect, atol=1e-15) or np.allclose(q, -expect, atol=1e-15)


def test_urdf_rpy_is_fixed_axes_xyz():
    r, p, y = 0.1, -0.4, 1.3
    np.testing.assert_allclose(
        sp.rpy_to_rotation([r, p, y]), sp.rot_z(y) @ sp.rot_y(p) @ sp.rot_x(r), atol=1e-15
    )
    # gimbal lock: pitch = pi/2 keeps the rotation
    R = sp.rpy_to_rotation([0.3, np.pi / 2, -0.2])
    np.testing.assert_allclose(sp.rpy_to_rotation(sp.rotation_to_rpy(R)), R, atol=1e-12)


def test_axis_angle():
    R = sp.axis_angle_to_rotation([0, 0, 2.0], 0.5)
    np.testing.assert_allclose(R, sp.rot_z(0.5), atol=1e-15)
    axis, angle = sp.rotation_to_axis_angle(R)
    np.testing.assert_allclose(axis, [0, 0, 1], atol=1e-15)
    assert abs(angle - 0.5) < 1e-15


# ------------------------------------------------------------------- projections
def test_projection_onto_so3_and_se3():
    rng = np.random.default_rng(0)
    R = random_rotation(rng)
    noisy = R + 1e-4 * rng.normal(size=(3, 3))
    P = sp.project_to_so3(noisy)
    # a rotation (measured: |P^T P - I| 1.6e-15, |det P - 1| 2e-15)
    assert np.abs(P.T @ P - np.eye(3)).max() < 2e-14 and abs(np.linalg.det(P) - 1) < 2e-14
    # the nearest one in the Frobenius norm is the polar factor of M: P^T M symmetric
    # positive definite (measured asymmetry 5e-16)
    S = P.T @ noisy
    assert np.abs(S - S.T).max() < 5e-15 and np.linalg.eigvalsh(S).min() > 0
    # to first order in the noise E = R^T (M - R) it is R exp(skew part of E): the rest is
    # O(|E|^2) ~ 1e-8 (measured 5.5e-9; |P - R| itself is 6e-5)
    E = R.T @ (noisy - R)
    assert np.abs(P - R @ sp.exp3(sp.unskew((E - E.T) / 2))).max() < 5e-8
    # a reflection is mapped to a proper rotation
    F = sp.project_to_so3(np.diag([1.0, 1.0, -1.0]))
    assert np.abs(F.T @ F - np.eye(3)).max() < 1e-15 and np.linalg.det(F) > 0
    T = sp.transform(R, [1, 2, 3]) + 1e-5
    Tp = sp.project_to_se3(T)
    np.testing.assert_array_equal(Tp[3], [0, 0, 0, 1])
    np.testing.assert_array_equal(Tp[:3, :3], sp.project_to_so3(T[:3, :3]))
    np.testing.assert_array_equal(Tp[:3, 3], T[:3, 3])


# ------------------------------------------------------------------- screw axes
def test_screw_axis_round_trip_and_book_formula():
    q, s, h = np.array([1.0, 2.0, 0.0]), np.array([0.0, 0.0, 1.0]), 0.5
    S = sp.screw_axis(q, s, h)
    # MR: S = [s, -s x q + h s] = [0,0,1, 2,-1,0.5]
    np.testing.assert_allclose(S, [0, 0, 1, 2, -1, 0.5])
    q2, s2, h2 = sp.screw_to_qsh(S)
    np.testing.assert_allclose(s2, s)
    assert h2 == pytest.approx(h)
    np.testing.assert_allclose(q2, q)  # q is already the point closest to the origin
    St = sp.screw_axis([0, 0, 0], [1, 0, 0], np.inf)
    np.testing.assert_allclose(St, [0, 0, 0, 1, 0, 0])
    assert sp.screw_to_qsh(St)[2] == np.inf


# ------------------------------------------------------------------------ batches
def test_batched_functions_match_single_calls():
    rng = np.random.default_rng(1)
    W = rng.normal(size=(5, 3))
    V = rng.normal(size=(5, 6))
    Rb, Tb = sp.exp3(W), sp.exp6(V)
    assert Rb.shape == (5, 3, 3) and Tb.shape == (5, 4, 4)
    for k in range(5):
        np.testing.assert_allclose(Rb[k], sp.exp3(W[k]), atol=1e-15)
        np.testing.assert_allclose(Tb[k], sp.exp6(V[k]), atol=1e-15)
    np.testing.assert_allclose(sp.log3(Rb), np.stack([sp.log3(r) for r in Rb]), atol=1e-15)
    np.testing.assert_allclose(sp.log6(Tb), np.stack([sp.log6(t) for t in Tb]), atol=1e-15)
    assert sp.adjoint(Tb).shape == (5, 6, 6) and sp.ad(V).shape == (5, 6, 6)
    # a batch containing near-pi and identity entries
    mixed = np.stack([sp.exp3([np.pi, 0, 0]), np.eye(3), sp.exp3([0, 1e-9, 0])])
    out = sp.log3(mixed)
    np.testing.assert_allclose(np.abs(out[0]), [np.pi, 0, 0], atol=1e-12)
    np.testing.assert_allclose(out[1:], [[0, 0, 0], [0, 1e-9, 0]], atol=1e-20)


# ---------------------------------------------------------------------- bad input
def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"omega_theta must have shape \(\.\.\., 3\), got \(4,\)"):
        sp.exp3(np.zeros(4))
    with pytest.raises(ValueError, match="R is not a rotation matrix"):
        sp.log3(2 * np.eye(3))
    with pytest.raises(ValueError, match="det = -1"):
        sp.log3(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ValueError, match="bottom row"):
        sp.log6(np.ones((4, 4)))
    with pytest.raises(ValueError, match="NaN or inf"):
        sp.exp6([np.nan, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="quat must be non-zero"):
        sp.quat_to_rotation([0, 0, 0, 0])
    with pytest.raises(ValueError, match="V must have shape"):
        sp.ad(np.zeros((6, 1)))
    with pytest.raises(ValueError, match="numeric"):
        sp.skew("abc")


def _mp_exp6(V) -> np.ndarray:
    """exp6(V) in 40-digit arithmetic: R by Rodrigues' formula, p = G(t) v with
    G = I + (1 - cos t)/t^2 [w] + (t - sin t)/t^3 [w]^2 (MR prop. 3.25)."""
    import mpmath as mp

    with mp.workdps(40):
        w = [mp.mpf(float(c)) for c in V[:3]]
        t = mp.sqrt(sum(c**2 for c in w))
        W = mp.matrix([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        R = mp.eye(3) + mp.sin(t) / t * W + (1 - mp.cos(t)) / t**2 * W * W
        G = mp.eye(3) + (1 - mp.cos(t)) / t**2 * W + (t - mp.sin(t)) / t**3 * W * W
        p = G * mp.matrix([float(c) for c in V[3:]])
        T = np.eye(4)
        T[:3, :3] = [[float(R[i, j]) for j in range(3)] for i in range(3)]
        T[:3, 3] = [float(p[i]) for i in range(3)]
    return T


@pytest.mark.parametrize("angle", [9e-4, 1.0001e-3, 1.05e-3, 2e-3, 6e-3, 0.03, 1.0])
def test_exp6_equals_40_digits_each_side_of_the_series(angle):
    """exp6 (one twist and a batch) and exp3 against a 40-digit evaluation, the rotation
    angle each side of the series' threshold (1e-3). B = (1 - cos t)/t^2 in the
    half-angle form 2 sin^2(t/2)/t^2: measured over 30 twists each <= 4.4e-16 (exp6) and
    <= 1.2e-16 (exp3); the form 1 - cos t lost 1.2e-13 in G v at t = 1.0001e-3 and
    2.7e-14 at 2e-3. Tolerance 1e-15 (absolute; |v| ~ 1)."""
    rng = np.random.default_rng(int(angle * 1e7))
    V = rng.normal(size=(30, 6))
    V[:, :3] *= angle / np.linalg.norm(V[:, :3], axis=1, keepdims=True)
    batch = sp.exp6(V)
    for k in range(30):
        want = _mp_exp6(V[k])
        assert np.abs(sp.exp6(V[k]) - want).max() < 1e-15
        assert np.abs(batch[k] - want).max() < 1e-15
        assert np.abs(sp.exp3(V[k, :3]) - want[:3, :3]).max() < 1e-15
