"""Workspace and manipulability maps, singularities along a path (MR ch. 5).

Independent sources: the reach sphere from the triangle inequality over the joint
placements; the 2R arm's annulus and Yoshikawa's closed form ``w = L1 L2 |sin theta_2|``;
MR sec. 5.4's measures computed from the eigenvalues of ``A = J J^T`` (not from the SVD
the library uses); the UR5's singular configurations derived from its geometry (MR
Example 4.5: axes 2, 3, 4 parallel; q5 = 0 makes axis 6 parallel to them, q3 = 0 makes
2, 3, 4 coplanar, and the wrist point, where axes 5 and 6 meet, in the plane of axes 1
and 2 is the shoulder singularity).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

import robodyn as rd
from helpers import figure_problems, point_mass_2r

UR5 = rd.models.load("ur5")
PANDA = rd.models.load("panda")


def _reach_radius(model, frame):
    """Sum of the link lengths from the first joint to the frame: |jnt_p| of every joint
    after the first on the chain, plus the frame's offset in its body."""
    f = model.frame_names.index(frame)
    b = int(model.frame_body[f])
    R = float(np.linalg.norm(model.frame_p[f]))
    while int(model.body_parent[b]) != 0:
        R += float(np.linalg.norm(model.jnt_p[b]))
        b = int(model.body_parent[b])
    return R, np.array(model.jnt_p[b])  # the first joint's origin, in the world


@pytest.mark.parametrize("model", [UR5, PANDA], ids=["ur5", "panda"])
def test_samples_lie_in_the_reach_sphere_and_within_limits(model, rng):
    ws = rd.workspace(model, "ee", n=4000, rng=rng)
    R, c = _reach_radius(model, "ee")
    d = np.linalg.norm(ws.points - c, axis=1)
    assert ws.points.shape == (4000, 3)
    assert d.max() <= R + 1e-12
    assert d.max() > 0.6 * R  # the samples do spread out to the arm's reach
    assert np.all(ws.q >= model.q_lower) and np.all(ws.q <= model.q_upper)
    for i in rng.choice(4000, 5, replace=False):  # each sample is the pose of its q
        np.testing.assert_allclose(ws.points[i], rd.fk(model, ws.q[i], "ee")[:3, 3], atol=1e-14)
    # the radial boundary: nothing beyond the reach, every cell of the envelope reached
    assert np.all(ws.radius <= R + 1e-12) and ws.reach == pytest.approx(d.max())
    B = ws.boundary
    assert np.all(np.linalg.norm(B - ws.centre, axis=1) <= R + 1e-12)
    assert 0 < ws.hull().volume < 4 / 3 * np.pi * R**3


def test_measures_follow_mr_5_4_from_the_eigenvalues_of_A(rng):
    ws = rd.workspace(PANDA, "ee", n=300, rng=rng, part="linear")
    J = rd.jacobian(PANDA, ws.q, "ee", "body")[:, 3:]
    lam = np.linalg.eigvalsh(J @ np.swapaxes(J, 1, 2))  # ascending
    np.testing.assert_allclose(ws.manipulability, np.sqrt(np.prod(lam, axis=1)), rtol=1e-9)
    np.testing.assert_allclose(ws.condition, lam[:, -1] / lam[:, 0], rtol=1e-8)
    np.testing.assert_allclose(ws.isotropy, np.sqrt(lam[:, -1] / lam[:, 0]), rtol=1e-8)
    np.testing.assert_allclose(ws.sigma_min, np.sqrt(lam[:, 0]), rtol=1e-8)
    for i in range(3):  # and equal rd.manipulability / rd.velocity_ellipsoid one by one
        assert ws.manipulability[i] == pytest.approx(
            rd.manipulability(PANDA, ws.q[i], "ee", part="linear"), rel=1e-12
        )
        e = rd.velocity_ellipsoid(PANDA, ws.q[i], "ee")
        assert ws.isotropy[i] == pytest.approx(e.isotropy, rel=1e-9)


def test_2r_arm_annulus_and_yoshikawa_closed_form():
    L1, L2 = 0.9, 0.6
    model = point_mass_2r(L1=L1, L2=L2)
    ws = rd.workspace(model, "ee", grid=41, part=(3, 4))  # rows v_x, v_y
    r = np.linalg.norm(ws.points[:, :2], axis=1)
    assert r.min() >= abs(L1 - L2) - 1e-12 and r.max() <= L1 + L2 + 1e-12
    assert r.max() == pytest.approx(L1 + L2) and r.min() == pytest.approx(abs(L1 - L2))
    np.testing.assert_allclose(ws.points[:, 2], 0.0, atol=1e-15)
    np.testing.assert_allclose(ws.manipulability, L1 * L2 * np.abs(np.sin(ws.q[:, 1])), atol=1e-12)
    assert ws.q.shape == (41 * 41, 2)
    # statics (MR eq. 5.26): a tip force (f_x, f_y) in world axes needs the torques
    # tau_1 = -f_x (L1 s1 + L2 s12) + f_y (L1 c1 + L2 c12), tau_2 = -f_x L2 s12 + f_y L2 c12
    ws = rd.workspace(model, "ee", grid=9, kind="world_aligned")
    fx, fy = 3.0, -2.0
    tau = ws.torques([0, 0, 0, fx, fy, 0])
    t1, t12 = ws.q[:, 0], ws.q[:, 0] + ws.q[:, 1]
    want = np.column_stack([
        -fx * (L1 * np.sin(t1) + L2 * np.sin(t12)) + fy * (L1 * np.cos(t1) + L2 * np.cos(t12)),
        -fx * L2 * np.sin(t12) + fy * L2 * np.cos(t12),
    ])  # fmt: skip
    np.testing.assert_allclose(tau, want, atol=1e-12)
    with pytest.raises(ValueError, match="wrench"):
        ws.torques([1.0, 2.0])


# ------------------------------------------------------------------ UR5 singularities
def _wrist_point(q):
    """Where axes 5 and 6 of the UR5 meet (least-squares intersection of the two screw
    axes of the space Jacobian; a point on axis [w; v] is w x v)."""
    J = rd.jacobian(UR5, q, "ee", "space")
    A, b = np.zeros((3, 3)), np.zeros(3)
    for c in (4, 5):
        w, v = J[:3, c], J[3:, c]
        P = np.eye(3) - np.outer(w, w)
        A += P
        b += P @ np.cross(w, v)
    return np.linalg.solve(A, b)


def _shoulder_singular(rng):
    """q1 = 0 puts axes 1 and 2 in the plane x = 0: solve for q2 with the wrist point in it."""
    while True:
        q = rng.uniform(-np.pi, np.pi, 6)
        q[0] = 0.0

        def x_wp(t, q=q):
            return _wrist_point(np.r_[0.0, t, q[2:]])[0]

        ts = np.linspace(-np.pi, np.pi, 73)
        xs = [x_wp(t) for t in ts]
        for i in range(72):
            if xs[i] * xs[i + 1] < 0:
                return np.r_[0.0, brentq(x_wp, ts[i], ts[i + 1], xtol=1e-15), q[2:]]


def test_manipulability_vanishes_at_the_ur5_singularities(rng):
    grid = [rng.uniform(-np.pi, np.pi, 2) for _ in range(6)]
    wrist = rd.workspace(UR5, "ee", grid=[*grid[:4], [0.0], grid[5]])  # q5 = 0
    elbow = rd.workspace(UR5, "ee", grid=[*grid[:2], [0.0], *grid[3:]])  # q3 = 0
    for ws in (wrist, elbow):
        assert ws.q.shape == (32, 6)
        assert np.all(ws.manipulability < 1e-15) and np.all(ws.sigma_min < 1e-15)
        assert np.all(ws.isotropy > 1e13)
    shoulder = np.array([_shoulder_singular(rng) for _ in range(4)])
    ws = rd.workspace(UR5, "ee", grid=[[x] for x in shoulder[0]])
    assert ws.manipulability[0] < 1e-15
    for q in shoulder:
        assert rd.manipulability(UR5, q, "ee") < 1e-15
    # away from all three: positive
    Q = rd.random_configuration(UR5, rng, size=400)
    away = [
        q
        for q in Q
        if abs(np.sin(q[4])) > 0.2
        and abs(np.sin(q[2])) > 0.2
        # distance of the wrist point from the plane of axes 1 and 2 (normal R_z(q1) x)
        and abs(_wrist_point(q)[:2] @ [np.cos(q[0]), np.sin(q[0])]) > 0.05
    ]
    assert len(away) > 50
    ws = rd.workspace(UR5, "ee", grid=[[x] for x in away[0]])
    m = np.array([rd.manipulability(UR5, q, "ee") for q in away])
    assert m.min() > 1e-4 and ws.manipulability[0] > 1e-4


# ------------------------------------------------------------------ singularities on a path
def test_singularities_finds_a_planted_wrist_crossing():
    qa = np.array([0.3, -1.0, 1.2, -0.5, -0.4, 0.2])
    qb = qa + [0.3, 0.0, 0.0, 0.0, 0.9, -0.5]  # q5 from -0.4 to 0.5: zero at 4/9 of the way
    path = np.linspace(qa, qb, 41)
    found = rd.singularities(UR5, "ee", path)
    assert len(found) == 1
    s = found[0]
    assert s.s == pytest.approx(40 * 4 / 9, abs=1e-6) and s.index == 18
    assert abs(s.q[4]) < 1e-7 and s.sigma_min < 1e-7
    J = rd.jacobian(UR5, s.q, "ee", "body")
    assert s.lost.shape == (1, 6) and np.linalg.norm(s.lost @ J) < 1e-7
    assert s.null_motion.shape == (1, 6) and np.linalg.norm(J @ s.null_motion[0]) < 1e-7
    # the lost direction is the one twist no joint rate produces: orthogonal to the range
    # of J at the singular q, a unit vector
    assert np.linalg.norm(s.lost[0]) == pytest.approx(1.0)
    assert "lost directions" in str(s)


def test_singularities_elbow_crossing_and_a_regular_path():
    qa = np.array([0.2, -1.2, -0.3, 0.4, 1.0, 0.0])
    qb = qa + [0.0, 0.4, 0.6, 0.0, 0.0, 0.3]  # q3 from -0.3 to 0.3
    found = rd.singularities(UR5, "ee", np.linspace(qa, qb, 30))
    assert len(found) == 1 and abs(found[0].q[2]) < 1e-7
    # the 2R arm stretched out (theta_2 = 0) cannot move its tip along the arm: in the tip
    # frame (x along link 2) the lost direction of (v_x, v_y) is +-x
    arm = point_mass_2r()
    path = np.linspace([0.3, -0.5], [0.9, 0.7], 25)
    found = rd.singularities(arm, "ee", path, part=(3, 4))
    assert len(found) == 1 and abs(found[0].q[1]) < 1e-7
    np.testing.assert_allclose(np.abs(found[0].lost), [[1.0, 0.0]], atol=1e-7)
    regular = np.linspace(qa + [0, 0, 0.6, 0, 0, 0], qb + [0, 0, 0.6, 0, 0, 0], 30)
    assert rd.singularities(UR5, "ee", regular) == []
    with pytest.raises(ValueError, match="path must have shape"):
        rd.singularities(UR5, "ee", np.zeros((5, 5)))
    with pytest.raises(ValueError, match="threshold"):
        rd.singularities(UR5, "ee", np.zeros((5, 6)), threshold=-1.0)


# ------------------------------------------------------------------ figures, input
def test_workspace_figures_are_readable(rng, tmp_path):
    ws = rd.workspace(UR5, "ee", n=3000, rng=rng)
    for fig in (
        ws.plot(),
        ws.plot("isotropy", tmp_path / "w.png"),
        ws.plot_slice(axis="z", value=0.1),
        ws.plot_slice("condition", axis="x", value=0.0, thickness=0.1),
    ):
        assert figure_problems(fig) == []
    assert (tmp_path / "w.png").stat().st_size > 10_000
    with pytest.raises(ValueError, match="measure"):
        ws.plot("dexterity")
    with pytest.raises(ValueError, match="axis"):
        ws.plot_slice(axis="w")


def test_workspace_bad_input():
    with pytest.raises(ValueError, match="n must be"):
        rd.workspace(UR5, "ee", n=0)
    with pytest.raises(ValueError, match="grid"):
        rd.workspace(UR5, "ee", grid=[[0.0]] * 5)
    with pytest.raises(rd.ModelError, match="no frame"):
        rd.workspace(UR5, "tip")
    with pytest.raises(ValueError, match="centre"):
        rd.workspace(UR5, "ee", n=10, centre=[0, 0])
    floating = rd.ModelBuilder("floating")
    floating.add_body("base", "world", joint_type="free",
                      inertia=rd.RigidInertia(1.0, np.zeros(3), np.eye(3)))  # fmt: skip
    floating.add_body("l1", "base", axis=(0, 0, 1))
    floating.add_frame("ee", "l1")
    with pytest.raises(ValueError, match="fixed-base"):
        rd.workspace(floating.build(), "ee", n=10)
    ws = rd.workspace(PANDA, "ee", grid=2)  # the corners of the joint box
    assert ws.q.shape == (128, 7)
    assert set(np.unique(ws.q[:, 0])) == {PANDA.q_lower[0], PANDA.q_upper[0]}
