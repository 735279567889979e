"""Product-of-exponentials (from_mr/to_mr, MR kinematics) and DH tables (from_dh)."""

from __future__ import annotations

import json
import math
from importlib import resources

import modern_robotics as mr
import numpy as np
import pinocchio as pin
import pytest

from helpers import erd_path
from robodyn.errors import ModelError
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.model.dh import dh_transform, from_dh
from robodyn.model.poe import fk_body, fk_space, from_mr, jacobian_body, jacobian_space, to_mr


def _frame_poses(model, q) -> np.ndarray:
    """World pose of every operational frame, composed from the Model's arrays (test FK)."""
    q = np.asarray(q, float)
    T = np.zeros((model.nb, 4, 4))
    T[0] = np.eye(4)
    for i in range(1, model.nb):
        X = np.eye(4)
        X[:3, :3], X[:3, 3] = model.jnt_R[i], model.jnt_p[i]
        x = q[model.jnt_qadr[i]]
        J = np.eye(4)
        if model.jnt_type[i] == 1:
            J[:3, :3] = mr.MatrixExp3(mr.VecToso3(model.jnt_axis[i] * x))
        else:
            J[:3, 3] = model.jnt_axis[i] * x
        T[i] = T[model.body_parent[i]] @ X @ J
    F = np.zeros((model.nf, 4, 4))
    for k in range(model.nf):
        X = np.eye(4)
        X[:3, :3], X[:3, 3] = model.frame_R[k], model.frame_p[k]
        F[k] = T[model.frame_body[k]] @ X
    return F


def _ur5_data():
    text = resources.files("robodyn.model").joinpath("data", "ur5.json").read_text("utf-8")
    d = json.loads(text)
    return (
        np.array(d["M"], float),
        np.array(d["Slist"], float),
        [np.array(x, float) for x in d["Mlist"]],
        [np.array(x, float) for x in d["Glist"]],
    )


# UR5 of the MR book, typed from Example 4.5 (W1, W2, L1, L2, H1, H2 in m).
W1, W2, L1, L2, H1, H2 = 0.10915, 0.0823, 0.425, 0.39225, 0.089159, 0.09465


def test_ur5_data_is_the_books():
    M, S, Mlist, Glist = _ur5_data()
    M_book = np.array([[-1, 0, 0, L1 + L2], [0, 0, 1, W1 + W2], [0, 1, 0, H1 - H2], [0, 0, 0, 1]])
    S_book = np.array(
        [
            [0, 0, 1, 0, 0, 0],
            [0, 1, 0, -H1, 0, 0],
            [0, 1, 0, -H1, 0, L1],
            [0, 1, 0, -H1, 0, L1 + L2],
            [0, 0, -1, -W1, L1 + L2, 0],
            [0, 1, 0, H2 - H1, 0, L1 + L2],
        ]
    ).T
    np.testing.assert_allclose(M, M_book, atol=1e-15)
    np.testing.assert_allclose(S, S_book, atol=1e-15)
    np.testing.assert_allclose(np.linalg.multi_dot(Mlist), M_book, atol=1e-15)
    masses = [G[3, 3] for G in Glist]
    assert masses == [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879]


def test_mr_kinematics_match_modern_robotics():
    M, S, _, _ = _ur5_data()
    B = mr.Adjoint(mr.TransInv(M)) @ S  # body screw axes, B_i = [Ad_{M^-1}] S_i (MR eq. 4.16)
    rng = np.random.default_rng(0)
    for _ in range(10):
        th = rng.uniform(-math.pi, math.pi, 6)
        np.testing.assert_allclose(fk_space(M, S, th), mr.FKinSpace(M, S, th), atol=1e-12)
        np.testing.assert_allclose(fk_body(M, B, th), mr.FKinBody(M, B, th), atol=1e-12)
        np.testing.assert_allclose(jacobian_space(S, th), mr.JacobianSpace(S, th), atol=1e-12)
        np.testing.assert_allclose(jacobian_body(B, th), mr.JacobianBody(B, th), atol=1e-12)
    # batches
    th = rng.uniform(-3, 3, (4, 6))
    Tb = fk_space(M, S, th)
    Jb = jacobian_body(B, th)
    assert Tb.shape == (4, 4, 4) and Jb.shape == (4, 6, 6)
    for k in range(4):
        np.testing.assert_allclose(Tb[k], mr.FKinSpace(M, S, th[k]), atol=1e-12)
        np.testing.assert_allclose(Jb[k], mr.JacobianBody(B, th[k]), atol=1e-12)
    with pytest.raises(ValueError, match=r"Slist must have shape \(6, n\)"):
        fk_space(M, S.T[:5], th[0])
    with pytest.raises(ValueError, match=r"thetalist must have shape \(\.\.\., 6\), got \(5,\)"):
        jacobian_space(S, th[0, :5])


def test_ur5_model_from_mr():
    M, S, Mlist, Glist = _ur5_data()
    m = from_mr(M, S, Mlist, Glist, name="ur5")
    assert (m.nq, m.nv, m.nb) == (6, 6, 7)
    assert m.total_mass == pytest.approx(3.7 + 8.393 + 2.275 + 1.219 + 1.219 + 0.1879, rel=1e-15)
    M2, S2, _, _ = m.to_mr()
    np.testing.assert_allclose(M2, M, atol=1e-12)
    np.testing.assert_allclose(S2, S, atol=1e-12)
    rng = np.random.default_rng(1)
    for _ in range(5):
        th = rng.uniform(-math.pi, math.pi, 6)
        F = _frame_poses(m, th)
        np.testing.assert_allclose(F[m.frame_id("ee")], mr.FKinSpace(M, S, th), atol=1e-12)
        # CoM frames {i}: e^[S1 th1] ... e^[Si thi] M_i (MR eq. 4.14 applied to link i)
        Mi = np.eye(4)
        for i in range(6):
            Mi = Mi @ Mlist[i]
            ref = mr.FKinSpace(Mi, S[:, : i + 1], th[: i + 1])
            np.testing.assert_allclose(F[m.frame_id(f"link{i + 1}_com")], ref, atol=1e-12)
    # each body frame lies on its joint axis: the screw through it is a pure rotation
    F = _frame_poses(m, np.zeros(6))
    for i in range(1, 7):
        A = mr.Adjoint(mr.TransInv(F[m.frame_id(f"link{i}")])) @ S[:, i - 1]
        np.testing.assert_allclose(A[3:], 0, atol=1e-15)
        np.testing.assert_allclose(A[:3], m.jnt_axis[i], atol=1e-15)


def test_from_mr_to_mr_round_trip():
    M, S, Mlist, Glist = _ur5_data()
    M2, S2, Mlist2, Glist2 = to_mr(from_mr(M, S, Mlist, Glist))
    np.testing.assert_allclose(M2, M, atol=1e-12)
    np.testing.assert_allclose(S2, S, atol=1e-12)
    assert len(Mlist2) == 7 and len(Glist2) == 6
    for a, b in zip(Mlist2, Mlist):
        np.testing.assert_allclose(a, b, atol=1e-12)
    for a, b in zip(Glist2, Glist):
        np.testing.assert_allclose(a, b, atol=1e-12)
    # the MR library's dynamics agree on both descriptions
    rng = np.random.default_rng(2)
    th, dth, ddth = rng.uniform(-2, 2, (3, 6))
    tau = mr.InverseDynamics(th, dth, ddth, [0, 0, -9.81], np.zeros(6), Mlist, Glist, S)
    tau2 = mr.InverseDynamics(th, dth, ddth, [0, 0, -9.81], np.zeros(6), Mlist2, Glist2, S2)
    np.testing.assert_allclose(tau2, tau, atol=1e-10)


def _rot(axis, t):
    return mr.MatrixExp3(mr.VecToso3(np.asarray(axis, float) / np.linalg.norm(axis) * t))


def test_round_trip_general_chain_with_prismatic_joint():
    # an RPR chain with rotated CoM frames and full inertia tensors
    rng = np.random.default_rng(5)
    Mlist = []
    for _ in range(4):
        T = np.eye(4)
        T[:3, :3] = _rot(rng.normal(size=3), rng.uniform(0, 3))
        T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
        Mlist.append(T)
    Mi = [Mlist[0]]
    for T in Mlist[1:]:
        Mi.append(Mi[-1] @ T)
    axes = [np.array([0, 0, 1.0]), np.array([1.0, 2.0, 2.0]) / 3, np.array([0, 1.0, 0])]
    points = [rng.uniform(-0.3, 0.3, 3) for _ in range(3)]
    S = np.zeros((6, 3))
    S[:, 0] = np.r_[axes[0], -np.cross(axes[0], points[0])]
    S[:, 1] = np.r_[0, 0, 0, axes[1]]
    S[:, 2] = np.r_[axes[2], -np.cross(axes[2], points[2])]
    Glist = []
    for _ in range(3):
        A = rng.normal(size=(3, 3))
        # make it a physical rigid-body inertia: I_c = tr(P) 1 - P with P PSD
        P = A @ A.T
        Ic = np.trace(P) * np.eye(3) - P
        m_ = rng.uniform(0.5, 3)
        G = np.zeros((6, 6))
        G[:3, :3], G[3:, 3:] = Ic, m_ * np.eye(3)
        Glist.append(G)
    model = from_mr(Mi[3], S, Mlist, Glist)
    assert model.jnt_type.tolist() == [0, 1, 2, 1]
    M2, S2, Mlist2, Glist2 = model.to_mr("ee")
    np.testing.assert_allclose(M2, Mi[3], atol=1e-12)
    np.testing.assert_allclose(S2, S, atol=1e-12)
    for a, b in zip(Mlist2, Mlist):
        np.testing.assert_allclose(a, b, atol=1e-12)
    for a, b in zip(Glist2, Glist):
        np.testing.assert_allclose(a, b, atol=1e-12)
    th = rng.uniform(-2, 2, 3)
    F = _frame_poses(model, th)
    np.testing.assert_allclose(F[model.frame_id("ee")], mr.FKinSpace(Mi[3], S, th), atol=1e-12)


def test_from_mr_errors():
    M, S, Mlist, Glist = _ur5_data()
    bad = [G.copy() for G in Glist]
    bad[2][0, 4] = 0.1
    with pytest.raises(ModelError, match=r"Glist\[2\] is not a spatial inertia at the centre"):
        from_mr(M, S, Mlist, bad)
    bad = [G.copy() for G in Glist]
    bad[1][4, 4] = 1.0
    with pytest.raises(ModelError, match=r"Glist\[1\] is not a spatial inertia"):
        from_mr(M, S, Mlist, bad)
    S2 = S.copy()
    S2[:3, 3] *= 2
    with pytest.raises(ModelError, match=r"Slist\[:, 3\] \(joint4\).*\|omega\| = 1, got 2"):
        from_mr(M, S2, Mlist, Glist)
    S2 = S.copy()
    S2[3:, 0] = [0, 0, 0.1]
    with pytest.raises(ModelError, match=r"Slist\[:, 0\] \(joint1\) has pitch h = 0.1"):
        from_mr(M, S2, Mlist, Glist)
    with pytest.raises(ModelError, match=r"Mlist must hold n \+ 1 = 7"):
        from_mr(M, S, Mlist[:6], Glist)
    with pytest.raises(ModelError, match=r"Slist must have shape \(6, n\)"):
        from_mr(M, S[:, :5].T, Mlist, Glist)
    M2 = M.copy()
    M2[0, 3] += 0.01
    with pytest.raises(ModelError, match="M disagrees with the product of Mlist"):
        from_mr(M2, S, Mlist, Glist)
    with pytest.raises(ModelError, match=r"joint_types\[0\] = 'fixed'"):
        from_mr(M, S, Mlist, Glist, joint_types=["fixed"] + ["revolute"] * 5)
    tree = ModelBuilder().add_body("a", "world").add_body("b", "world").add_frame("ee", "b").build()
    with pytest.raises(ModelError, match="to_mr needs a serial chain: body 'b'"):
        to_mr(tree)
    free = ModelBuilder().add_body("a", "world", joint_type="free").add_frame("ee", "a").build()
    with pytest.raises(ModelError, match="revolute and prismatic joints only"):
        to_mr(free)


# ---------------------------------------------------------------------------- DH
@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_planar_2r_dh_matches_closed_form(convention):
    l1, l2 = 0.7, 0.45
    if convention == "standard":
        m = from_dh([[l1, 0, 0, 0], [l2, 0, 0, 0]])
    else:
        m = from_dh(
            [[0, 0, 0, 0], [l1, 0, 0, 0], [l2, 0, 0, 0]],
            convention="modified",
            joint_types=["revolute", "revolute", "fixed"],
        )
    assert (m.nq, m.nv) == (2, 2)
    rng = np.random.default_rng(3)
    for _ in range(10):
        q1, q2 = rng.uniform(-math.pi, math.pi, 2)
        T = _frame_poses(m, [q1, q2])[m.frame_id("ee")]
        x = l1 * math.cos(q1) + l2 * math.cos(q1 + q2)
        y = l1 * math.sin(q1) + l2 * math.sin(q1 + q2)
        np.testing.assert_allclose(T[:3, 3], [x, y, 0], atol=1e-15)
        c, s = math.cos(q1 + q2), math.sin(q1 + q2)
        np.testing.assert_allclose(T[:3, :3], [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-15)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_scara_dh_with_prismatic_joint(convention):
    # SCARA: x = l1 c1 + l2 c12, y = l1 s1 + l2 s12, z = h - (d3 + q3), tool pointing down
    l1, l2, h, d3 = 0.4, 0.3, 0.5, 0.05
    if convention == "standard":
        table = [[l1, 0, h, 0], [l2, math.pi, 0, 0], [0, 0, d3, 0]]
        m = from_dh(table, joint_types=["revolute", "revolute", "prismatic"])
    else:
        table = [[0, 0, h, 0], [l1, 0, 0, 0], [l2, math.pi, d3, 0]]
        m = from_dh(table, convention="modified", joint_types=["revolute", "revolute", "prismatic"])
    rng = np.random.default_rng(4)
    for _ in range(10):
        q = rng.uniform(-2, 2, 3)
        T = _frame_poses(m, q)[m.frame_id("ee")]
        x = l1 * math.cos(q[0]) + l2 * math.cos(q[0] + q[1])
        y = l1 * math.sin(q[0]) + l2 * math.sin(q[0] + q[1])
        np.testing.assert_allclose(T[:3, 3], [x, y, h - d3 - q[2]], atol=1e-15)
        np.testing.assert_allclose(T[:3, 2], [0, 0, -1], atol=1e-15)


def test_standard_dh_frames_and_inertia_placement():
    # a spatial 3R arm (PUMA-like rows): frames link_i = product of the DH transforms, and a
    # link inertia given in the DH frame {i} ends up at the same world point
    table = np.array(
        [[0, math.pi / 2, 0.67, 0], [0.43, 0, 0, 0.3], [-0.02, -math.pi / 2, 0.15, -0.2]]
    )
    inertias = [
        RigidInertia(2.0, (0.1, -0.05, 0.2), np.diag([0.1, 0.2, 0.25])),
        RigidInertia(3.0, (-0.2, 0.0, 0.03), np.diag([0.05, 0.3, 0.3])),
        RigidInertia(1.0, (0.0, 0.1, -0.1), np.diag([0.02, 0.02, 0.03])),
    ]
    tool = np.eye(4)
    tool[2, 3] = 0.1
    m = from_dh(table, inertias=inertias, tool=tool)
    rng = np.random.default_rng(6)
    q = rng.uniform(-2, 2, 3)
    F = _frame_poses(m, q)
    T = np.eye(4)
    for i, (a, alpha, d, th) in enumerate(table):
        # T_{i-1,i} = Rz(theta) Tz(d) Tx(a) Rx(alpha), typed from the definition
        Rz = np.eye(4)
        Rz[:3, :3] = _rot([0, 0, 1], q[i] + th)
        Tz, Tx, Rx = np.eye(4), np.eye(4), np.eye(4)
        Tz[2, 3], Tx[0, 3] = d, a
        Rx[:3, :3] = _rot([1, 0, 0], alpha)
        np.testing.assert_allclose(dh_transform(a, alpha, d, q[i] + th), Rz @ Tz @ Tx @ Rx,
                                   atol=1e-15)  # fmt: skip
        T = T @ Rz @ Tz @ Tx @ Rx
        np.testing.assert_allclose(F[m.frame_id(f"link{i + 1}")], T, atol=1e-14)
        com_world = T[:3, :3] @ inertias[i].com + T[:3, 3]
        Tb = F[m.frame_id(f"body{i + 1}")]
        np.testing.assert_allclose(
            Tb[:3, :3] @ m.body_com[i + 1] + Tb[:3, 3], com_world, atol=1e-14
        )
        # rotational inertia in world axes agrees
        Iw = T[:3, :3] @ inertias[i].inertia @ T[:3, :3].T
        np.testing.assert_allclose(
            Tb[:3, :3] @ m.body_inertia[i + 1] @ Tb[:3, :3].T, Iw, atol=1e-14
        )
    np.testing.assert_allclose(F[m.frame_id("ee")], T @ tool, atol=1e-14)
    np.testing.assert_allclose(F[m.frame_id("link0")], np.eye(4))


def test_dh_errors():
    with pytest.raises(ModelError, match=r"table must have shape \(n, 4\)"):
        from_dh([[0, 0, 0]])
    with pytest.raises(ModelError, match="convention must be 'standard' or 'modified'"):
        from_dh([[0, 0, 0, 0]], convention="craig")
    with pytest.raises(ModelError, match=r"joint_types\[0\] = 'free'"):
        from_dh([[0, 0, 0, 0]], joint_types=["free"])
    with pytest.raises(ModelError, match="table has a non-finite number"):
        from_dh([[0, np.nan, 0, 0]])
    with pytest.raises(ModelError, match=r"joint 'joint1' \(body 'body1'\): lower limit 1.0 >"):
        from_dh([[0, 0, 0, 0]], lower=[1.0], upper=[0.0])


def _panda_urdf() -> str:
    """example-robot-data's panda.urdf (installed as data under cmeel.prefix/share)."""
    return erd_path("panda_description/urdf/panda.urdf")


def test_panda_dh_frames_match_pinocchio():
    from robodyn.models import load

    m = load("panda")
    pm = pin.buildModelFromUrdf(_panda_urdf())
    data = pm.createData()
    assert (m.nq, pm.nq) == (7, 9)  # the URDF adds the two finger joints
    rng = np.random.default_rng(7)
    for _ in range(10):
        q = rng.uniform(m.q_lower, m.q_upper)
        pin.framesForwardKinematics(pm, data, np.r_[q, 0.01, 0.02])
        F = _frame_poses(m, q)
        for i in range(1, 9):
            ref = data.oMf[pm.getFrameId(f"panda_link{i}")].homogeneous
            np.testing.assert_allclose(F[m.frame_id(f"link{i}")], ref, atol=1e-9)
        ref = data.oMf[pm.getFrameId("panda_link8")].homogeneous
        np.testing.assert_allclose(F[m.frame_id("ee")], ref, atol=1e-9)
    # inertias: body i's frame is the DH frame {i}, the URDF link frame (links 1..6; Pinocchio
    # lumps the hand into joint 7's body)
    for i in range(1, 7):
        Y = pm.inertias[i]
        assert m.body_mass[i] == pytest.approx(Y.mass, rel=1e-15)
        np.testing.assert_allclose(m.body_com[i], Y.lever, atol=1e-15)
        np.testing.assert_allclose(m.body_inertia[i], Y.inertia, atol=1e-15)
    np.testing.assert_allclose(pm.lowerPositionLimit[:7], m.q_lower)
    np.testing.assert_allclose(pm.upperPositionLimit[:7], m.q_upper)
    np.testing.assert_allclose(pm.velocityLimit[:7], m.v_limit)
    np.testing.assert_allclose(pm.effortLimit[:7], m.effort_limit)
