"""Kinematics: FK, Jacobians, dJ/dt, frame velocity/acceleration, CoM, manipulability.

Independent sources: the modern_robotics package on the UR5 of MR Example 4.5 (M and the
screw axes typed here), closed forms for the planar 2R arm of course notes 003, central
finite differences along q(t) = integrate(q0, v t), and SE(3) identities.
"""

from __future__ import annotations

import modern_robotics as mr
import numpy as np
import pytest

from robodyn import kinematics as kin
from robodyn import models
from robodyn.errors import ModelError
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.model.configuration import integrate, random_configuration
from robodyn.spatial import adjoint, exp3, inv_transform, log6, transform

KINDS = ("space", "body", "world_aligned")

# MR Example 4.5 (UR5), the numbers of the book's code examples (m)
W1, W2, L1, L2, H1, H2 = 0.10915, 0.0823, 0.425, 0.39225, 0.089159, 0.09465
UR5_M = np.array([[-1, 0, 0, L1 + L2], [0, 0, 1, W1 + W2], [0, 1, 0, H1 - H2], [0, 0, 0, 1.0]])
UR5_SLIST = np.array(
    [
        [0, 0, 1, 0, 0, 0],
        [0, 1, 0, -H1, 0, 0],
        [0, 1, 0, -H1, 0, L1],
        [0, 1, 0, -H1, 0, L1 + L2],
        [0, 0, -1, -W1, L1 + L2, 0],
        [0, 1, 0, H2 - H1, 0, L1 + L2],
    ],
    dtype=float,
).T


@pytest.fixture(scope="module")
def ur5():
    return models.load("ur5")


@pytest.fixture(scope="module")
def planar():
    return models.load("planar_2r")


def _tree():
    """A branched floating-base tree with revolute, prismatic and mimic joints and offset
    frames: every code path of the kernels."""
    rng = np.random.default_rng(3)

    def T():
        return transform(exp3(rng.uniform(-1, 1, 3)), rng.uniform(-0.5, 0.5, 3))

    def inertia():
        return RigidInertia(rng.uniform(0.5, 2.0), rng.uniform(-0.1, 0.1, 3), np.eye(3) * 0.01)

    b = ModelBuilder("tree")
    b.add_body("base", "world", joint_type="free", inertia=inertia())
    b.add_body("a1", "base", axis=(0, 0, 1), T=T(), inertia=inertia())
    b.add_body("a2", "a1", joint_type="prismatic", axis=(1, 2, 2), T=T(), inertia=inertia())
    b.add_body("a3", "a2", axis=(0, 1, 0), T=T(), inertia=inertia())
    b.add_body("b1", "base", axis=(1, 0, 0), T=T(), inertia=inertia())
    b.add_body(
        "b2",
        "b1",
        axis=(0, 1, 1),
        T=T(),
        inertia=inertia(),
        mimic="a1_joint",
        multiplier=-0.7,
        offset=0.2,
    )
    b.add_body("b3", "b2", joint_type="fixed", T=T(), inertia=inertia())
    b.add_body("b4", "b3", axis=(1, 1, 0), T=T(), inertia=inertia())
    b.add_frame("tool", "a3", T=T())
    b.add_frame("tip", "b4", T=T())
    return b.build()


@pytest.fixture(scope="module")
def tree():
    return _tree()


def _models(ur5, tree):
    panda = models.load("panda")
    return [(ur5, "ee"), (panda, "ee"), (tree, "tool"), (tree, "tip"), (tree, "b3")]


# ------------------------------------------------------------------------ MR / UR5
def test_ur5_home_pose_is_mr_M(ur5):
    np.testing.assert_allclose(kin.fk(ur5, np.zeros(6), "ee"), UR5_M, atol=1e-12)


def test_ur5_matches_modern_robotics(ur5):
    Blist = adjoint(inv_transform(UR5_M)) @ UR5_SLIST
    rng = np.random.default_rng(0)
    for q in rng.uniform(-np.pi, np.pi, (20, 6)):
        T = kin.fk(ur5, q, "ee")
        np.testing.assert_allclose(T, mr.FKinSpace(UR5_M, UR5_SLIST, q), atol=1e-12)
        np.testing.assert_allclose(T, mr.FKinBody(UR5_M, Blist, q), atol=1e-12)
        np.testing.assert_allclose(
            kin.jacobian(ur5, q, "ee", "space"), mr.JacobianSpace(UR5_SLIST, q), atol=1e-12
        )
        np.testing.assert_allclose(
            kin.jacobian(ur5, q, "ee", "body"), mr.JacobianBody(Blist, q), atol=1e-12
        )


# ------------------------------------------------------------------ SE(3) identities
def test_jacobian_kinds_are_related_by_the_adjoint(tree):
    for q in random_configuration(tree, np.random.default_rng(1), size=5):
        for frame in ("tool", "tip", "b3", "base"):
            T = kin.fk(tree, q, frame)
            Js = kin.jacobian(tree, q, frame, "space")
            # J_b = [Ad_{T^-1}] J_s (MR eq. 5.22)
            np.testing.assert_allclose(
                kin.jacobian(tree, q, frame, "body"), adjoint(inv_transform(T)) @ Js, atol=1e-12
            )
            # world aligned = body Jacobian rotated to world axes
            Ad_R = adjoint(transform(T[:3, :3], np.zeros(3)))
            np.testing.assert_allclose(
                kin.jacobian(tree, q, frame, "world_aligned"),
                Ad_R @ kin.jacobian(tree, q, frame, "body"),
                atol=1e-12,
            )


def test_jacobian_columns_are_finite_differences_of_fk(tree):
    """Column j of J_b is the body twist log6(T^-1 T(q (+) h e_j)) / h, central."""
    q = random_configuration(tree, np.random.default_rng(2))
    h = 1e-6
    for frame in ("tool", "tip"):
        T = kin.fk(tree, q, frame)
        Jb = kin.jacobian(tree, q, frame, "body")
        for j in range(tree.nv):
            e = np.zeros(tree.nv)
            e[j] = h
            Tp = kin.fk(tree, integrate(tree, q, e), frame)
            Tm = kin.fk(tree, integrate(tree, q, -e), frame)
            col = (log6(inv_transform(T) @ Tp) - log6(inv_transform(T) @ Tm)) / (2 * h)
            np.testing.assert_allclose(Jb[:, j], col, atol=1e-8)


def test_mimic_joint_follows_its_leader(tree):
    q = random_configuration(tree, np.random.default_rng(4))
    lead = tree.jnt_qadr[tree.joint_id("a1_joint")]
    b2 = tree.body_id("b2")
    T = kin.body_poses(tree, q)
    # T_b1,b2 = T(jnt_R, jnt_p) Rot(axis, -0.7 q_lead + 0.2)
    axis = tree.jnt_axis[b2]
    T_local = transform(tree.jnt_R[b2], tree.jnt_p[b2]) @ transform(
        exp3(axis * (-0.7 * q[lead] + 0.2)), np.zeros(3)
    )
    np.testing.assert_allclose(T[b2], T[tree.body_id("b1")] @ T_local, atol=1e-13)


# ------------------------------------------------------------------------ dJ/dt
@pytest.mark.parametrize("kind", KINDS)
def test_jacobian_dot_is_derivative_along_the_motion(ur5, tree, kind):
    rng = np.random.default_rng(7)
    h = 1e-5
    for model, frame in _models(ur5, tree):
        q0 = random_configuration(model, rng)
        v = rng.standard_normal(model.nv)
        Jp = kin.jacobian(model, integrate(model, q0, v, h), frame, kind)
        Jm = kin.jacobian(model, integrate(model, q0, v, -h), frame, kind)
        fd = (Jp - Jm) / (2 * h)
        dJ = kin.jacobian_dot(model, q0, v, frame, kind)
        np.testing.assert_allclose(dJ, fd, rtol=0, atol=1e-7 * max(1.0, np.abs(fd).max()))


@pytest.mark.parametrize("kind", KINDS)
def test_frame_acceleration_is_derivative_of_frame_velocity(ur5, tree, kind):
    rng = np.random.default_rng(8)
    h = 1e-5
    for model, frame in _models(ur5, tree):
        q0 = random_configuration(model, rng)
        v, a = rng.standard_normal(model.nv), rng.standard_normal(model.nv)
        # q(t) = q0 (+) (v t + a t^2 / 2), velocity v + a t (exact to O(t^2) on SE(3))
        Vp = kin.frame_velocity(
            model, integrate(model, q0, v * h + a * h * h / 2), v + a * h, frame, kind
        )
        Vm = kin.frame_velocity(
            model, integrate(model, q0, -v * h + a * h * h / 2), v - a * h, frame, kind
        )
        fd = (Vp - Vm) / (2 * h)
        A = kin.frame_acceleration(model, q0, v, a, frame, kind)
        np.testing.assert_allclose(A, fd, rtol=0, atol=1e-7 * max(1.0, np.abs(fd).max()))
        np.testing.assert_allclose(
            kin.frame_velocity(model, q0, v, frame, kind),
            kin.jacobian(model, q0, frame, kind) @ v,
            atol=1e-13,
        )


def test_world_aligned_acceleration_is_classical(ur5):
    """Linear part = second time derivative of the frame origin (central second
    difference, step eps^(1/4) = 2^-13; first difference for the velocity, eps^(1/3))."""
    rng = np.random.default_rng(9)
    q0, v, a = rng.uniform(-2, 2, 6), rng.standard_normal(6), rng.standard_normal(6)
    h = np.finfo(float).eps ** (1 / 4)

    def p(t):
        return kin.fk(ur5, q0 + v * t + a * t * t / 2, "ee")[:3, 3]

    pdd = (p(h) - 2 * p(0.0) + p(-h)) / h**2
    A = kin.frame_acceleration(ur5, q0, v, a, "ee", "world_aligned")
    np.testing.assert_allclose(A[3:], pdd, rtol=0, atol=1.5e-7)  # measured 1.3e-8 (|pdd| 1.8)
    # and the world-aligned linear velocity is the derivative of the origin
    V = kin.frame_velocity(ur5, q0, v, "ee", "world_aligned")
    h = np.finfo(float).eps ** (1 / 3)
    pd = (p(h) - p(-h)) / (2 * h)
    np.testing.assert_allclose(V[3:], pd, rtol=0, atol=1.5e-10)  # measured 1.3e-11


# -------------------------------------------------------------- planar 2R closed forms
def _planar_closed_form(q):
    l1, l2 = 0.5, 0.4
    c1, s1 = np.cos(q[0]), np.sin(q[0])
    c12, s12 = np.cos(q[0] + q[1]), np.sin(q[0] + q[1])
    x = np.array([l1 * c1 + l2 * c12, l1 * s1 + l2 * s12])
    J = np.array([[-l1 * s1 - l2 * s12, -l2 * s12], [l1 * c1 + l2 * c12, l2 * c12]])
    return x, J


def test_planar_2r_fk_jacobian_closed_form(planar):
    for q in np.random.default_rng(10).uniform(-np.pi, np.pi, (10, 2)):
        x, Jv = _planar_closed_form(q)
        T = kin.fk(planar, q, "ee")
        np.testing.assert_allclose(T[:2, 3], x, atol=1e-14)
        np.testing.assert_allclose(T[:3, :3], exp3([0, 0, q.sum()]), atol=1e-14)
        J = kin.jacobian(planar, q, "ee", "world_aligned")
        np.testing.assert_allclose(J[3:5], Jv, atol=1e-14)
        np.testing.assert_allclose(J[2], [1.0, 1.0], atol=1e-14)  # omega_z = qd1 + qd2


def test_planar_2r_manipulability_and_ellipsoids(planar):
    l1, l2 = 0.5, 0.4
    for q in np.random.default_rng(11).uniform(-np.pi, np.pi, (10, 2)):
        _, Jv = _planar_closed_form(q)
        w = kin.manipulability(planar, q, "ee", kind="world_aligned", part=(3, 4))
        assert w == pytest.approx(abs(l1 * l2 * np.sin(q[1])), abs=1e-14)
        # the body frame turns about z: the planar rows give the same volume
        assert kin.manipulability(planar, q, "ee", part=(3, 4)) == pytest.approx(w, abs=1e-14)
        # a 3-row linear part of a 2-dof arm is rank deficient: w = 0
        assert kin.manipulability(planar, q, "ee", part="linear") == 0.0
        # the full 2x2 determinant, |det J_v| (MR sec. 5.4)
        assert w == pytest.approx(abs(np.linalg.det(Jv)), abs=1e-14)
        sv = np.linalg.svd(Jv, compute_uv=False)
        E = kin.velocity_ellipsoid(planar, q, "ee", kind="world_aligned", part=(3, 4))
        np.testing.assert_allclose(E.lengths, sv, atol=1e-12)
        for i in range(2):  # A v_i = lambda_i v_i with A = J J^T (MR eq. 5.30)
            np.testing.assert_allclose(
                Jv @ Jv.T @ E.axes[:, i], sv[i] ** 2 * E.axes[:, i], atol=1e-12
            )
        Fe = kin.force_ellipsoid(planar, q, "ee", kind="world_aligned", part=(3, 4))
        np.testing.assert_allclose(Fe.lengths, 1 / sv[::-1], rtol=1e-10)
        np.testing.assert_allclose(np.abs(Fe.axes[:, 0]), np.abs(E.axes[:, 1]), atol=1e-10)
        assert E.isotropy == pytest.approx(sv[0] / sv[1])
        assert E.volume == pytest.approx(w, abs=1e-14)


def test_planar_2r_com_closed_form(planar):
    m1, m2, l1, lc1, lc2 = 5.0, 3.0, 0.5, 0.25, 0.2
    for q in np.random.default_rng(12).uniform(-np.pi, np.pi, (5, 2)):
        c1, s1 = np.cos(q[0]), np.sin(q[0])
        c12, s12 = np.cos(q[0] + q[1]), np.sin(q[0] + q[1])
        r2 = np.array([l1 * c1 + lc2 * c12, l1 * s1 + lc2 * s12])  # CoM of link 2
        c = (m1 * lc1 * np.array([c1, s1]) + m2 * r2) / (m1 + m2)
        np.testing.assert_allclose(kin.com(planar, q), [c[0], c[1], 0.0], atol=1e-15)
        Jc = np.array(
            [
                [-(m1 * lc1 + m2 * l1) * s1 - m2 * lc2 * s12, -m2 * lc2 * s12],
                [(m1 * lc1 + m2 * l1) * c1 + m2 * lc2 * c12, m2 * lc2 * c12],
            ]
        ) / (m1 + m2)
        np.testing.assert_allclose(kin.com_jacobian(planar, q)[:2], Jc, atol=1e-15)
        qd = np.array([0.3, -1.1])
        np.testing.assert_allclose(kin.com_velocity(planar, q, qd)[:2], Jc @ qd, atol=1e-15)


def test_com_jacobian_is_derivative_of_com(tree):
    rng = np.random.default_rng(13)
    q, v = random_configuration(tree, rng), rng.standard_normal(tree.nv)
    h = 1e-6
    fd = (kin.com(tree, integrate(tree, q, v, h)) - kin.com(tree, integrate(tree, q, v, -h))) / (
        2 * h
    )
    np.testing.assert_allclose(kin.com_jacobian(tree, q) @ v, fd, atol=1e-8)
    # total mass times CoM = sum of body masses at their CoMs
    T = kin.body_poses(tree, q)
    mc = sum(
        tree.body_mass[i] * (T[i, :3, :3] @ tree.body_com[i] + T[i, :3, 3]) for i in range(tree.nb)
    )
    np.testing.assert_allclose(kin.com(tree, q), mc / tree.total_mass, atol=1e-14)


# ------------------------------------------------------------------------- batches
def same(x, y):
    """Equal up to rounding: one state runs the C kernels (fused multiply-adds where the
    CPU has them), a batch the numba kernels."""
    np.testing.assert_allclose(x, y, rtol=0, atol=1e-14 * (1.0 + np.abs(y).max()))


def test_batched_calls_equal_single_calls(tree):
    Q = random_configuration(tree, np.random.default_rng(14), size=37)
    same(kin.fk(tree, Q, "tip"), np.stack([kin.fk(tree, q, "tip") for q in Q]))
    same(kin.fk(tree, Q), np.stack([kin.fk(tree, q) for q in Q]))
    np.testing.assert_array_equal(
        kin.body_poses(tree, Q), np.stack([kin.body_poses(tree, q) for q in Q])
    )
    for kind in KINDS:
        same(
            kin.jacobian(tree, Q, "tool", kind),
            np.stack([kin.jacobian(tree, q, "tool", kind) for q in Q]),
        )
    np.testing.assert_array_equal(kin.com(tree, Q), np.stack([kin.com(tree, q) for q in Q]))
    assert kin.fk(tree, Q[:0], "tip").shape == (0, 4, 4)


def test_frames_by_index_and_name_agree(tree):
    q = random_configuration(tree, np.random.default_rng(15))
    all_T = kin.fk(tree, q)
    assert all_T.shape == (tree.nf, 4, 4)
    for k, name in enumerate(tree.frame_names):
        np.testing.assert_array_equal(kin.fk(tree, q, k), all_T[k])
        np.testing.assert_array_equal(kin.fk(tree, q, name), all_T[k])
    np.testing.assert_array_equal(kin.fk(tree, q, "world"), np.eye(4))
    np.testing.assert_array_equal(kin.body_poses(tree, q)[0], np.eye(4))
    # a non-unit quaternion is normalised: the pose is that of the unit one
    q2 = q.copy()
    q2[3:7] *= 3.0
    np.testing.assert_allclose(kin.fk(tree, q2), all_T, atol=1e-14)
    # q as a list works too
    np.testing.assert_array_equal(
        kin.fk(tree, list(q), "tip"), all_T[tree.frame_names.index("tip")]
    )


# ---------------------------------------------------------------------- bad input
def test_bad_input(ur5, tree):
    q = np.zeros(6)
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 6\), got \(5,\)"):
        kin.fk(ur5, np.zeros(5), "ee")
    with pytest.raises(ValueError, match=r"q must have shape"):
        kin.jacobian(ur5, np.zeros((2, 3, 5)), "ee")
    with pytest.raises(ValueError, match="q contains NaN"):
        kin.fk(ur5, np.array([0, 0, np.nan, 0, 0, 0.0]), "ee")
    with pytest.raises(ValueError, match="q contains NaN"):
        kin.jacobian(ur5, np.array([0, 0, np.inf, 0, 0, 0.0]), "ee")
    with pytest.raises(ValueError, match=r"q\[1\] contains NaN"):
        kin.fk(ur5, [[0, 0, 0, 0, 0, 0], [0, 0, np.nan, 0, 0, 0]], "ee")
    with pytest.raises(ValueError, match="v contains NaN"):
        kin.jacobian_dot(ur5, q, np.array([np.nan, 0, 0, 0, 0, 0]), "ee")
    with pytest.raises(ValueError, match=r"v must have shape"):
        kin.frame_velocity(ur5, q, np.zeros(7), "ee")
    with pytest.raises(ValueError, match=r"a must have shape"):
        kin.frame_acceleration(ur5, q, q, np.zeros(2), "ee")
    with pytest.raises(ModelError, match="no frame named 'hand'.*frames: world, link1"):
        kin.fk(ur5, q, "hand")
    with pytest.raises(ModelError, match="frame index 99 out of range"):
        kin.jacobian(ur5, q, 99)
    with pytest.raises(ValueError, match="kind must be one of"):
        kin.jacobian(ur5, q, "ee", kind="hybrid")
    with pytest.raises(ValueError, match="part must be"):
        kin.manipulability(ur5, q, "ee", part="diagonal")
    with pytest.raises(ValueError, match="frame must be"):
        kin.fk(ur5, q, 1.5)
    qz = random_configuration(tree, np.random.default_rng(0))
    qz[3:7] = 0.0
    with pytest.raises(ValueError, match="quaternion"):
        kin.fk(tree, qz, "tip")
    massless = ModelBuilder("m").add_body("l", "world").build()
    with pytest.raises(ModelError, match="no mass"):
        kin.com(massless, np.zeros(1))


def test_kernel_log6_matches_modern_robotics_and_inverts_exp6():
    """The IK error kernel's log6: MR's MatrixLog6 at generic angles, and exp6(log6(T)) = T
    down to angle 0 and up to pi (where the axis comes from the symmetric part)."""
    from robodyn.kernels import core
    from robodyn.kernels._pack import packed
    from robodyn.spatial import exp6

    # a free body at the identity has T_sf = 1: its IK residual is V_b = log6(T_sd)
    body = ModelBuilder("free").add_body("b", "world", joint_type="free").build()
    P, q0 = packed(body).P, np.array([0, 0, 0, 1.0, 0, 0, 0])

    def log6_kernel(T, V):
        V[:] = core.ik_residual(P, q0, np.ascontiguousarray(T).reshape(16), 0, 1)[-6:]

    rng = np.random.default_rng(16)
    V = np.empty(6)
    for theta in (0.3, 1.0, 2.0, 3.0):
        for _ in range(10):
            w = rng.standard_normal(3)
            S = np.r_[w / np.linalg.norm(w) * theta, rng.standard_normal(3)]
            T = mr.MatrixExp6(mr.VecTose3(S))
            log6_kernel(T, V)
            np.testing.assert_allclose(V, mr.se3ToVec(mr.MatrixLog6(T)), atol=1e-12)
    for theta in (0.0, 1e-9, 1e-5, 1.0001e-4, 1e-3, np.pi - 1e-7, np.pi):
        for _ in range(10):
            w = rng.standard_normal(3)
            T = exp6(np.r_[w / np.linalg.norm(w) * theta, rng.standard_normal(3)])
            log6_kernel(T, V)
            assert np.linalg.norm(V[:3]) == pytest.approx(theta, abs=1e-12)
            np.testing.assert_allclose(exp6(V), T, atol=1e-13)
