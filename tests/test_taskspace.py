"""Task-space inertia, its ellipsoid and the dynamically consistent inverse (robodyn.taskspace).

Sources: the apparent end-effector mass of course notes 000, Lambda = J^-T M J^-1 for the
2R arm with point masses, with M and J typed in closed form here; properties of
Khatib's inverse (J Jbar = 1, M-orthogonality to the null space of J).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from helpers import point_mass_2r
from robodyn import models
from robodyn.dynamics import forward_dynamics, mass_matrix
from robodyn.kinematics import frame_acceleration, jacobian
from robodyn.model.configuration import random_configuration
from robodyn.taskspace import (
    dynamically_consistent_pinv,
    task_space_ellipsoid,
    task_space_inertia,
)

M1, M2, L1, L2 = 1.3, 0.7, 0.9, 0.6


def closed_form_2r(th):
    """M(theta) and the planar linear Jacobian of the tip of the 2R arm (course notes 000)."""
    c2 = np.cos(th[1])
    M = np.array(
        [
            [M1 * L1**2 + M2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2), M2 * (L2**2 + L1 * L2 * c2)],
            [M2 * (L2**2 + L1 * L2 * c2), M2 * L2**2],
        ]
    )
    s1, c1 = np.sin(th[0]), np.cos(th[0])
    s12, c12 = np.sin(th[0] + th[1]), np.cos(th[0] + th[1])
    J = np.array([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12]])
    return M, J


def test_apparent_mass_2r_course_000():
    model = point_mass_2r(M1, M2, L1, L2)
    rng = np.random.default_rng(0)
    for _ in range(10):
        th = np.array([rng.uniform(-3, 3), rng.uniform(0.3, 2.8) * rng.choice([-1, 1])])
        M, J = closed_form_2r(th)
        Jinv = np.linalg.inv(J)
        Lam_ref = Jinv.T @ M @ Jinv  # Lambda = J^-T M J^-1
        # x, y rows of the world-aligned Jacobian: the tip's linear velocity in the plane
        Lam = task_space_inertia(model, th, "ee", kind="world_aligned", part=(3, 4))
        np.testing.assert_allclose(Lam, Lam_ref, rtol=1e-11)
        # force ellipsoid: principal masses and directions of Lambda
        ell = task_space_ellipsoid(model, th, "ee", kind="world_aligned", part=(3, 4))
        w, U = np.linalg.eigh(Lam_ref)
        np.testing.assert_allclose(ell.masses, w[::-1], rtol=1e-10)
        for k in range(2):
            assert abs(abs(ell.axes[:, k] @ U[:, 1 - k]) - 1.0) < 1e-9
            # a unit acceleration along an axis needs the force masses[k] along it
            np.testing.assert_allclose(
                Lam_ref @ ell.axes[:, k], ell.masses[k] * ell.axes[:, k], atol=1e-10
            )
        # kinetic energy seen from the tip: 1/2 V^T Lambda V = 1/2 dth^T M dth
        dth = rng.normal(size=2)
        V = J @ dth
        assert V @ Lam @ V == pytest.approx(dth @ M @ dth, rel=1e-11)


def test_fully_stretched_arm_is_singular():
    model = point_mass_2r(M1, M2, L1, L2)
    with pytest.raises(ValueError, match="singular"):
        task_space_inertia(model, np.array([0.4, 0.0]), "ee", kind="world_aligned", part=(3, 4))
    # six task rows on a 2-dof arm cannot be independent
    with pytest.raises(ValueError, match="singular"):
        task_space_inertia(model, np.array([0.4, 1.0]), "ee", part="full")


@pytest.mark.parametrize("name,frame", [("ur5", "ee"), ("panda", "ee")])
def test_dynamically_consistent_inverse(name, frame):
    model = models.load(name)
    rng = np.random.default_rng(1)
    q = random_configuration(model, rng)
    M = mass_matrix(model, q)
    J = jacobian(model, q, frame, "body")
    Jbar = dynamically_consistent_pinv(model, q, frame)
    np.testing.assert_allclose(J @ Jbar, np.eye(6), atol=1e-9)
    # Jbar is M-orthogonal to the null space of J: n^T M Jbar = 0 for J n = 0
    _, s, Vt = np.linalg.svd(J)
    for n in Vt[6:]:
        np.testing.assert_allclose(n @ M @ Jbar, 0.0, atol=1e-9)
    # Lambda (body) is symmetric positive definite, and it is the apparent inertia the
    # frame shows to a wrench: at rest with gravity off, pushing the frame with a body
    # wrench F gives it the body acceleration dV_b with Lambda dV_b = F. Measured through
    # forward dynamics (ABA, with F as MR's F_tip = -F) and the frame's acceleration, not
    # through J M^-1 J^T.
    Lam = task_space_inertia(model, q, frame)
    np.testing.assert_allclose(Lam, Lam.T, atol=1e-12 * np.abs(Lam).max())
    assert np.all(np.linalg.eigvalsh(Lam) > 0)
    still = dataclasses.replace(model, gravity=np.zeros(3))
    zero = np.zeros(model.nv)
    for F in rng.normal(size=(3, 6)):
        a = forward_dynamics(still, q, zero, zero, f_tip=-F, frame=frame, friction=False)
        dV = frame_acceleration(still, q, zero, a, frame, "body")
        np.testing.assert_allclose(Lam @ dV, F, atol=1e-8 * max(1.0, np.abs(F).max()))
    # linear part (not a block of Lambda): the mass the frame's origin shows to a pure
    # force f, measured the same way (its linear body acceleration a_v, Lv a_v = f)
    Lv = task_space_inertia(model, q, frame, part="linear")
    for f in rng.normal(size=(3, 3)):
        a = forward_dynamics(still, q, zero, zero, f_tip=-np.r_[0, 0, 0, f], frame=frame,
                             friction=False)  # fmt: skip
        dV = frame_acceleration(still, q, zero, a, frame, "body")
        np.testing.assert_allclose(Lv @ dV[3:], f, atol=1e-8 * max(1.0, np.abs(f).max()))


def test_batches_and_errors():
    model = models.load("ur5")
    rng = np.random.default_rng(2)
    Q = random_configuration(model, rng, size=3)
    L = task_space_inertia(model, Q, "ee", part="linear")
    Jb = dynamically_consistent_pinv(model, Q, "ee")
    assert L.shape == (3, 3, 3) and Jb.shape == (3, 6, 6)
    for k in range(3):
        np.testing.assert_array_equal(L[k], task_space_inertia(model, Q[k], "ee", part="linear"))
        np.testing.assert_array_equal(Jb[k], dynamically_consistent_pinv(model, Q[k], "ee"))
    with pytest.raises(ValueError, match="part"):
        task_space_inertia(model, Q[0], "ee", part="upper")
    with pytest.raises(ValueError, match="part"):
        task_space_inertia(model, Q[0], "ee", part=(3, 3))
    with pytest.raises(ValueError, match="q must have shape"):
        task_space_inertia(model, np.zeros(5), "ee")
    with pytest.raises(ValueError, match="NaN"):
        task_space_inertia(model, np.full(6, np.nan), "ee")


def test_massless_chain_is_a_clear_error():
    from robodyn.model.builder import ModelBuilder

    T = np.eye(4)
    T[0, 3] = 1.0
    model = (
        ModelBuilder(name="massless")
        .add_body("a", "world", axis=(0, 0, 1))
        .add_body("b", "a", axis=(0, 0, 1), T=T)
        .add_frame("tip", "b", T=T)
        .build()
    )
    with pytest.raises(ValueError, match="singular"):
        task_space_inertia(model, np.array([0.1, 0.7]), "tip", kind="world_aligned", part=(3, 4))


@pytest.mark.parametrize("seed,floating", [(3, False), (4, True), (8, True)])
def test_lambda_and_jbar_by_hand_on_trees_of_every_joint_type(seed, floating):
    """The compiled task-space inertia (issue 29: Cholesky factors of M and of J M^-1 J^T
    in C) against (J M^-1 J^T)^-1 computed here with numpy's inverse and solve, on random
    trees with every joint type and mimic joints, fixed and floating, for each Jacobian
    kind and row choice (rows in any order), one state and a batch; Jbar = M^-1 J^T Lambda
    and J Jbar = 1. Measured worst: 7.1e-14 (Lambda), 7.8e-14 (Jbar), 1.7e-13 (J Jbar - 1),
    cond(Phi) up to 2.7e3."""
    from helpers import JOINT_KINDS, random_tree

    model = random_tree(seed, 9, floating=floating, mimic=True, kinds=JOINT_KINDS)[0]
    rng = np.random.default_rng(seed)
    Q = np.stack([random_configuration(model, rng) for _ in range(5)])
    frame = model.frame_names[-1]
    M = mass_matrix(model, Q)
    for kind in ("body", "space", "world_aligned"):
        J = jacobian(model, Q, frame, kind)
        for part, rows in (
            ("full", [0, 1, 2, 3, 4, 5]),
            ("linear", [3, 4, 5]),
            ((4, 0, 2), [4, 0, 2]),
        ):
            Jk = J[:, rows]
            X = np.linalg.solve(M, np.swapaxes(Jk, -1, -2))  # M^-1 J^T
            want = np.linalg.inv(Jk @ X)
            Lam = task_space_inertia(model, Q, frame, kind, part)
            scale = np.abs(want).max(axis=(-1, -2), keepdims=True)
            assert np.max(np.abs(Lam - want) / scale) < 1e-12, (kind, part)
            assert np.array_equal(Lam[2], task_space_inertia(model, Q[2], frame, kind, part))
            Jbar = dynamically_consistent_pinv(model, Q, frame, kind, part)
            assert np.max(np.abs(Jbar - X @ want) / np.abs(X @ want).max()) < 1e-12
            eye = np.broadcast_to(np.eye(len(rows)), Lam.shape)
            assert np.max(np.abs(Jk @ Jbar - eye)) < 2e-12


def test_manipulability_is_the_product_of_singular_values_on_trees():
    """The compiled manipulability (|det R| of a Householder QR of J_k^T) and velocity
    ellipsoid (one-sided Jacobi) against numpy's SVD on random trees with every joint type,
    each kind and row choice; 0 when the rows outnumber the joints or repeat."""
    from helpers import JOINT_KINDS, random_tree
    from robodyn.kinematics import manipulability, velocity_ellipsoid

    for seed, n in ((5, 9), (6, 2)):
        model = random_tree(seed, n, floating=False, kinds=JOINT_KINDS)[0]
        rng = np.random.default_rng(seed)
        Q = np.stack([random_configuration(model, rng) for _ in range(4)])
        frame = model.frame_names[-1]
        for kind in ("body", "space", "world_aligned"):
            J = jacobian(model, Q, frame, kind)
            for part, rows in (("full", slice(0, 6)), ("angular", slice(0, 3)), ((3, 5), [3, 5])):
                Jk = J[:, rows]
                if Jk.shape[-2] > Jk.shape[-1]:
                    want = np.zeros(len(Q))
                else:
                    want = np.prod(np.linalg.svd(Jk, compute_uv=False), axis=-1)
                got = manipulability(model, Q, frame, kind, part)
                np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-15)
                # the velocity ellipsoid (one-sided Jacobi in C): numpy's singular values,
                # and orthonormal axes with J_k J_k^T u_i = sigma_i^2 u_i
                E = velocity_ellipsoid(model, Q, frame, kind, part)
                sv = np.linalg.svd(Jk, compute_uv=False)
                scale = sv[..., :1]
                np.testing.assert_allclose(E.lengths[..., : sv.shape[-1]] / scale, sv / scale,
                                           rtol=0, atol=1e-14)  # fmt: skip
                AU = Jk @ np.swapaxes(Jk, -1, -2) @ E.axes
                err = np.abs(AU - E.axes * E.lengths[..., None, :] ** 2) / scale[..., None] ** 2
                assert err.max() < 1e-14
                eye = np.eye(Jk.shape[-2])
                assert np.abs(np.swapaxes(E.axes, -1, -2) @ E.axes - eye).max() < 1e-14
        assert np.all(manipulability(model, Q, frame, "body", (3, 3)) == 0.0)
