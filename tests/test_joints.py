"""The joints of MR Table 2.1 and the URDF specification beyond R and P: spherical, planar,
helical, cylindrical, universal, and free joints anywhere in the tree.

Oracle: Pinocchio, each tree built twice from one random description (robodyn's
ModelBuilder, Pinocchio's ``addJoint`` with its own joint of that type:
``JointModelSpherical``, ``JointModelPlanar``, ``JointModelHelicalUnaligned``, a composite
revolute + prismatic for cylindrical, ``JointModelUniversal``, ``JointModelFreeFlyer``;
tests/helpers.py), and
URDFs parsed by both libraries (``pin.buildModelFromXML``). Pinocchio orders twists [v;
omega], quaternions (x, y, z, w), its planar q (x, y, cos, sin) and v (v_x, v_y, omega):
robodyn.convert.PinocchioMap converts.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import robodyn as rd
from helpers import JOINT_KINDS, assert_close, chain_frame_poses, random_joint_pair, random_tree
from robodyn import reference
from robodyn.convert import PinocchioMap
from robodyn.coriolis import coriolis_matrix_reference
from robodyn.model.model import planar_basis

TOL = 1e-10
KINDS = (("space", pin.WORLD), ("body", pin.LOCAL), ("world_aligned", pin.LOCAL_WORLD_ALIGNED))
NEW = ("spherical", "planar", "helical", "cylindrical", "universal", "free")

# one tree per new joint type (with revolute and prismatic joints around it), and trees of
# every type mixed
TREES = [(k, seed) for seed, k in enumerate(NEW)] + [("mixed", 10 + s) for s in range(3)]


def _pair(kind: str, seed: int):
    kinds = JOINT_KINDS if kind == "mixed" else (kind, "revolute", kind, "prismatic", kind)
    return random_joint_pair(seed, 8 if kind == "mixed" else 6, kinds)


def _pin_matrix(mp, M):
    """Pinocchio fills the upper triangle of M only."""
    return mp.matrix_from_pin(np.triu(M) + np.triu(M, 1).T)


def _pin_quantities(pm, pd, mp, fid, q, v, a):
    """Every quantity the test compares, from Pinocchio, in robodyn's conventions."""
    qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
    out = {}
    pin.forwardKinematics(pm, pd, qp, vp)
    pin.updateFramePlacements(pm, pd)
    out["fk"] = pd.oMf[fid].homogeneous.copy()
    pin.computeJointJacobians(pm, pd, qp)
    pin.computeJointJacobiansTimeVariation(pm, pd, qp, vp)
    for kind, rf in KINDS:
        out["J " + kind] = mp.jacobian_from_pin(pin.getFrameJacobian(pm, pd, fid, rf))
        out["dJ " + kind] = mp.jacobian_from_pin(pin.getFrameJacobianTimeVariation(pm, pd, fid, rf))
    if any(j.shortname() == "JointModelUniversal" for j in pm.joints):
        # Pinocchio 4.1's Jacobian time variation leaves out the turning of a universal
        # joint's first column (dS/dt): dJ/dt by central differences of Pinocchio's own
        # Jacobians along q (+) v t instead (step h: error ~ h^2)
        h = 1e-5
        for kind, rf in KINDS:
            J = []
            for t in (h, -h):
                qt = pin.integrate(pm, qp, vp * t)
                pin.computeJointJacobians(pm, pd, qt)
                pin.updateFramePlacements(pm, pd)
                J.append(mp.jacobian_from_pin(pin.getFrameJacobian(pm, pd, fid, rf)))
            out["dJ " + kind] = (J[0] - J[1]) / (2 * h)
    out["rnea"] = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap))
    out["crba"] = _pin_matrix(mp, pin.crba(pm, pd, qp))
    out["aba"] = mp.v_from_pin(pin.aba(pm, pd, qp, vp, mp.v_to_pin(out["rnea"])))
    out["coriolis"] = mp.matrix_from_pin(pin.computeCoriolisMatrix(pm, pd, qp, vp))
    out["gravity"] = mp.v_from_pin(pin.computeGeneralizedGravity(pm, pd, qp))
    out["com"] = pin.centerOfMass(pm, pd, qp).copy()
    out["com_jacobian"] = mp.v_from_pin(pin.jacobianCenterOfMass(pm, pd, qp))
    return out


def _pin_mass_matrix(pm, pd, mp, qp):
    return _pin_matrix(mp, pin.crba(pm, pd, qp))


def _check_coriolis_universal(model, pm, pd, mp, q, v, C, what):
    """Pinocchio 4.1's computeCoriolisMatrix is wrong with a universal joint (even C v
    differs from its own rnea). Oracle instead, from Pinocchio's crba and rnea: with only
    coordinate joints, C_ij = sum_k Gamma_ijk v_k with Gamma from central differences of
    Pinocchio's M (h ~ eps^(1/3)); with group joints too, C v = Pinocchio's velocity
    forces and dM/dt - 2C skew, dM/dt from Pinocchio's M along q (+) v t."""
    qp, vp = mp.q_to_pin(q), mp.v_to_pin(v)
    h, n = 1e-5, model.nv
    lie = {"JointModelFreeFlyer", "JointModelSpherical", "JointModelPlanar"}
    if not any(j.shortname() in lie for j in pm.joints):
        dM = np.zeros((n, n, n))  # dM[i, j, k] = dM_ij / dq_k
        for k in range(n):
            e = mp.v_to_pin(np.eye(n)[k]) * h
            dM[:, :, k] = (
                _pin_mass_matrix(pm, pd, mp, pin.integrate(pm, qp, e))
                - _pin_mass_matrix(pm, pd, mp, pin.integrate(pm, qp, -e))
            ) / (2 * h)
        Gamma = 0.5 * (dM + dM.transpose(0, 2, 1) - dM.transpose(2, 0, 1))
        assert_close(C, Gamma @ v, 1e-7, what + ": C = Gamma v")
    zero = np.zeros(pm.nv)
    h_v = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, zero) - pin.rnea(pm, pd, qp, zero, zero))
    assert_close(C @ v, h_v, 1e-10, what + ": C v")
    dMdt = (
        _pin_mass_matrix(pm, pd, mp, pin.integrate(pm, qp, vp * h))
        - _pin_mass_matrix(pm, pd, mp, pin.integrate(pm, qp, -vp * h))
    ) / (2 * h)
    assert_close(dMdt - 2 * C, -(dMdt - 2 * C).T, 1e-7, what + ": dM/dt - 2C skew")


def _robodyn_quantities(model, q, v, a):
    out = {"fk": rd.fk(model, q, "tool")}
    for kind, _ in KINDS:
        out["J " + kind] = rd.jacobian(model, q, "tool", kind)
        out["dJ " + kind] = rd.jacobian_dot(model, q, v, "tool", kind)
    out["rnea"] = rd.rnea(model, q, v, a, friction=False)
    out["crba"] = rd.crba(model, q)
    out["aba"] = rd.aba(model, q, v, out["rnea"], friction=False)
    out["coriolis"] = rd.coriolis_matrix(model, q, v)
    out["gravity"] = rd.gravity_forces(model, q)
    out["com"] = rd.com(model, q)
    out["com_jacobian"] = rd.com_jacobian(model, q)
    return out


@pytest.mark.parametrize(("kind", "seed"), TREES, ids=[f"{k}-{s}" for k, s in TREES])
def test_random_trees_match_pinocchio(kind, seed, rng):
    model, pm, pd, mp = _pair(kind, seed)
    fid = pm.getFrameId("tool")
    for _ in range(3):
        q = rd.random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        got = _robodyn_quantities(model, q, v, a)
        want = _pin_quantities(pm, pd, mp, fid, q, v, a)
        universal = rd.model.model.JOINT_UNIVERSAL in model.jnt_type
        for key in want:
            if key == "coriolis" and universal:
                _check_coriolis_universal(model, pm, pd, mp, q, v, got[key], f"{kind} {seed}")
                continue
            tol = 1e-8 if key.startswith("dJ") and universal else TOL
            assert_close(got[key], want[key], tol, f"{kind} tree {seed}: {key}")
        # forward dynamics recovers the acceleration Pinocchio's rnea was given
        assert_close(got["aba"], a, 1e-9, "aba(rnea(a))")


@pytest.mark.parametrize(("kind", "seed"), TREES, ids=[f"{k}-{s}" for k, s in TREES])
def test_batches_equal_single_states(kind, seed, rng):
    """The lane kernels (16 states at a time) on the new joints equal single calls."""
    model = _pair(kind, seed)[0]
    n = 21  # a full chunk of 16 lanes and a partial one
    Q = rd.random_configuration(model, rng, size=n)
    V, A = rng.normal(size=(n, model.nv)), rng.normal(size=(n, model.nv))
    tau, M = rd.rnea(model, Q, V, A), rd.crba(model, Q)
    qdd, C = rd.aba(model, Q, V, tau), rd.coriolis_matrix(model, Q, V)
    J, T = rd.jacobian(model, Q, "tool", "body"), rd.fk(model, Q, "tool")
    for k in range(n):
        assert_close(tau[k], rd.rnea(model, Q[k], V[k], A[k]), 1e-12, "rnea batch")
        assert_close(M[k], rd.crba(model, Q[k]), 1e-12, "crba batch")
        assert_close(qdd[k], rd.aba(model, Q[k], V[k], tau[k]), 1e-12, "aba batch")
        assert_close(C[k], rd.coriolis_matrix(model, Q[k], V[k]), 1e-12, "coriolis batch")
        assert_close(J[k], rd.jacobian(model, Q[k], "tool", "body"), 1e-12, "jacobian batch")
        assert_close(T[k], rd.fk(model, Q[k], "tool"), 1e-12, "fk batch")
    assert_close(qdd, A, 1e-9, "aba(rnea(a)) batch")


@pytest.mark.parametrize("seed", [0, 1])
def test_numpy_reference_parity_with_every_joint(seed, rng):
    """The compiled core equals the numpy reference (6x6 book notation, its own joint
    formulas in reference/_joint.py) and the Coriolis reference, friction and armature
    included."""
    model = _pair("mixed", 20 + seed)[0]
    q = rd.random_configuration(model, rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    f_ext = rng.normal(size=(model.nb, 6))
    tau = rd.rnea(model, q, v, a, f_ext, friction=False)
    assert_close(tau, reference.rnea(model, q, v, a, f_ext), 1e-11, "rnea")
    assert_close(rd.crba(model, q), reference.crba(model, q), 1e-11, "crba")
    assert_close(
        rd.aba(model, q, v, tau, f_ext, friction=False),
        reference.aba(model, q, v, tau, f_ext),
        1e-10,
        "aba",
    )
    # the Coriolis reference takes constant motion subspaces: every joint but universal
    plain = random_joint_pair(22 + seed, 8, [k for k in JOINT_KINDS if k != "universal"])[0]
    qp, vp = rd.random_configuration(plain, rng), rng.normal(size=plain.nv)
    assert_close(rd.coriolis_matrix(plain, qp, vp), coriolis_matrix_reference(plain, qp, vp), 1e-11)
    with pytest.raises(rd.ModelError, match="universal joint"):
        coriolis_matrix_reference(model, q, v)
    # forward kinematics against an independent chain of the reference joint placements
    T = np.eye(4)
    i = int(model.frame_body[model.frame_id("tool")])
    chain = []
    while i > 0:
        chain.append(i)
        i = int(model.body_parent[i])
    for i in reversed(chain):
        T = T @ reference.joint_placement(model, i, q)[0]
    f = model.frame_id("tool")
    T = T @ rd.transform(model.frame_R[f], model.frame_p[f])
    assert_close(rd.fk(model, q, "tool"), T, 1e-12, "fk vs the reference placements")
    assert_close(chain_frame_poses(model, q)[f], T, 1e-12, "helpers.chain_frame_poses")


def _mass_matrix_dot_fd(model, q, v):
    """dM/dt by central differences of rd.mass_matrix along q (+) v t, step eps^(1/3):
    truncation ~ h^2 |d3M/dt3|, rounding ~ eps |M| / h, both ~ 4e-11 relative."""
    h = np.finfo(float).eps ** (1 / 3)
    M1 = rd.mass_matrix(model, rd.integrate(model, q, v, h))
    M0 = rd.mass_matrix(model, rd.integrate(model, q, v, -h))
    return (M1 - M0) / (2 * h)


# each joint type between revolute and prismatic joints (as in _pair), and all of them
# mixed, on a fixed and on a floating base
FD_TREES = [(k, False) for k in JOINT_KINDS] + [("mixed", False), ("mixed", True)]


@pytest.mark.parametrize(("kind", "floating"), FD_TREES, ids=[f"{k}-{f}" for k, f in FD_TREES])
def test_structure_identities_with_every_joint(kind, floating, rng):
    """dM/dt (rd.mass_matrix_dot, which is C + C^T, and rd.mass_matrix_derivative
    contracted with v) against central differences of rd.mass_matrix; dM/dt - 2C skew with
    that finite-difference dM/dt (with dM/dt = C + C^T it would hold for any C); C v equals
    the velocity forces (Christoffel-consistent C)."""
    kinds = JOINT_KINDS if kind == "mixed" else (kind, "revolute", kind, "prismatic", kind)
    model = random_tree(40 + len(kind), 9 if kind == "mixed" else 6, kinds=kinds,
                        floating=floating)[0]  # fmt: skip
    q = rd.random_configuration(model, rng)
    v = rng.normal(size=model.nv)
    C = rd.coriolis_matrix(model, q, v)
    dM_fd = _mass_matrix_dot_fd(model, q, v)
    # measured on these trees: <= 1.6e-10 (dM/dt), <= 1.1e-9 (skew part: helical), <= 3.6e-15
    # (C v); tolerances ~10x
    assert_close(rd.mass_matrix_dot(model, q, v), dM_fd, 2e-9, "dM/dt vs finite differences")
    dM_dq = rd.mass_matrix_derivative(model, q)
    assert_close(np.einsum("ijk,k->ij", dM_dq, v), dM_fd, 2e-9, "dM/dq v vs differences")
    S = dM_fd - 2 * C
    assert_close(S, -S.T, 1e-8, "dM/dt - 2C skew (dM/dt by differences)")
    assert_close(C @ v, rd.velocity_forces(model, q, v), 4e-14, "C v")


@pytest.mark.parametrize("kind", NEW)
def test_integrate_difference_round_trip_and_pinocchio(kind, rng):
    """q (+) v and q1 (-) q0 on the joint's manifold: round trips, and Pinocchio's
    integrate / difference on the same group (SO(3), SE(2), SE(3), R^n)."""
    model, pm, _, mp = _pair(kind, 40)
    for _ in range(5):
        q0, q1 = rd.random_configuration(model, rng, size=2)
        v = rng.normal(size=model.nv)
        qn = rd.integrate(model, q0, v, 0.7)
        assert_close(rd.difference(model, q0, qn), 0.7 * v, 1e-10, "difference(integrate)")
        dq = rd.difference(model, q0, q1)
        back = rd.integrate(model, q0, dq)  # the same rotations, maybe -quaternion
        assert_close(_unwrap(model, back, q1), q1, 1e-10, "integrate(difference)")
        want = mp.q_from_pin(pin.integrate(pm, mp.q_to_pin(q0), mp.v_to_pin(0.7 * v)))
        assert_close(_unwrap(model, qn, want), want, 1e-10, "integrate vs Pinocchio")
        # Pinocchio's planar difference wraps the angle: compare on pinned poses
        assert_close(rd.fk(model, q1, "tool"),
                     rd.fk(model, rd.integrate(model, q0, mp.v_from_pin(
                         pin.difference(pm, mp.q_to_pin(q0), mp.q_to_pin(q1)))), "tool"),
                     1e-10, "Pinocchio's difference lands on q1")  # fmt: skip
        nq = rd.normalize(model, q0 * 1.0)
        assert_close(rd.fk(model, nq, "tool"), rd.fk(model, q0, "tool"), 1e-12, "normalize")


def _unwrap(model, q, ref):
    """q with its quaternions' signs and planar angles matched to ref (the same
    configuration: Pinocchio returns angles in (-pi, pi] and either quaternion sign)."""
    q = np.array(q, dtype=float)
    for i in range(1, model.nb):
        qa, jt = int(model.jnt_qadr[i]), rd.model.model.JOINT_TYPE_NAMES[int(model.jnt_type[i])]
        if jt in ("free", "spherical"):
            e = qa + (3 if jt == "free" else 0)
            if q[e : e + 4] @ ref[e : e + 4] < 0:
                q[e : e + 4] *= -1
        elif jt == "planar":
            q[qa] += 2 * np.pi * np.round((ref[qa] - q[qa]) / (2 * np.pi))
    return q


def test_neutral_and_random_configurations_are_on_the_manifold(rng):
    model = _pair("mixed", 41)[0]
    q0 = rd.neutral(model)
    Q = rd.random_configuration(model, rng, size=50)
    for i in range(1, model.nb):
        qa, jt = int(model.jnt_qadr[i]), int(model.jnt_type[i])
        if jt == rd.model.model.JOINT_SPHERICAL:
            assert q0[qa : qa + 4].tolist() == [1.0, 0.0, 0.0, 0.0]
            assert_close(np.linalg.norm(Q[:, qa : qa + 4], axis=1), np.ones(50), 1e-14)
        if jt == rd.model.model.JOINT_PLANAR:
            assert q0[qa : qa + 3].tolist() == [0.0, 0.0, 0.0]
            assert np.all(np.abs(Q[:, qa]) <= np.pi)
    # the neutral pose of every joint is its identity: body frames at their joint frames
    poses = rd.body_poses(model, q0)
    for i in range(1, model.nb):
        T0 = rd.transform(model.jnt_R[i], model.jnt_p[i])
        assert_close(poses[i], poses[model.body_parent[i]] @ T0, 1e-14, "neutral pose")


def test_joint_screws_by_hand():
    """Each joint's motion, typed from its definition (MR eq. 3.73 for the screw)."""
    b = rd.ModelBuilder("one", gravity=(0, 0, 0))
    b.add_body("h", "world", joint_type="helical", axis=(0, 0, 2), pitch=0.05)
    b.add_body("c", "world", joint_type="cylindrical", axis=(1, 0, 0))
    b.add_body("p", "world", joint_type="planar", axis=(0, 0, 1))
    b.add_body("s", "world", joint_type="spherical")
    m = b.build()
    q = np.zeros(m.nq)
    q[0] = np.pi / 2  # helical: a quarter turn advances 0.05 * pi / 2 along z
    q[1:3] = [np.pi, 0.3]  # cylindrical: half a turn about x, 0.3 m along x
    q[3:6] = [np.pi / 2, 1.0, 2.0]  # planar: (phi, x, y)
    q[6:10] = [np.cos(np.pi / 6), 0, np.sin(np.pi / 6), 0]  # spherical: 60 deg about y
    T = rd.body_poses(m, q)
    np.testing.assert_allclose(T[1][:3, 3], [0, 0, 0.05 * np.pi / 2], atol=1e-15)
    np.testing.assert_allclose(T[1][:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(T[2][:3, 3], [0.3, 0, 0], atol=1e-15)
    np.testing.assert_allclose(T[2][:3, :3], np.diag([1, -1, -1]), atol=1e-15)
    np.testing.assert_allclose(T[3][:3, 3], [1, 2, 0], atol=1e-15)
    np.testing.assert_allclose(T[3][:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    c, s = 0.5, np.sqrt(3) / 2
    np.testing.assert_allclose(T[4][:3, :3], [[c, 0, s], [0, 1, 0], [-s, 0, c]], atol=1e-15)
    # the planar velocity is the body twist: omega = 1 turns a chassis facing +y (phi = pi/2)
    # about z; v_1 = 1 moves it along its own x axis, i.e. the world +y
    v = np.zeros(m.nv)
    v[3:6] = [0.0, 1.0, 0.0]
    J = rd.jacobian(m, q, "p", "world_aligned")
    np.testing.assert_allclose(J @ v, [0, 0, 0, 0, 1, 0], atol=1e-15)
    # the plane basis is right-handed with n = z giving (x, y)
    t1, t2 = planar_basis(np.array([0.0, 0.0, 1.0]))
    assert t1.tolist() == [1.0, 0.0, 0.0] and t2.tolist() == [0.0, 1.0, 0.0]
    for n in np.random.default_rng(0).normal(size=(20, 3)):
        n /= np.linalg.norm(n)
        t1, t2 = planar_basis(n)
        np.testing.assert_allclose(np.cross(t1, t2), n, atol=1e-14)
        np.testing.assert_allclose([t1 @ n, t2 @ n, t1 @ t2], 0, atol=1e-14)


PLANAR_BASE = """<robot name="rover">
  <link name="chassis"><inertial><origin xyz="0.05 0 0.1" rpy="0 0 0"/><mass value="12"/>
    <inertia ixx="0.4" ixy="0.01" ixz="0" iyy="0.6" iyz="0" izz="0.8"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0 0 0.2"/><mass value="2"/>
    <inertia ixx="0.03" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.01"/></inertial></link>
  <link name="hand"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.002"/></inertial></link>
  <link name="plane"/>
  <joint name="base" type="planar"><parent link="plane"/><child link="chassis"/>
    <origin xyz="0 0 0.3" rpy="0 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="shoulder" type="revolute"><parent link="chassis"/><child link="arm"/>
    <origin xyz="0.2 0 0.25" rpy="0 0.3 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="2"/></joint>
  <joint name="wrist" type="continuous"><parent link="arm"/><child link="hand"/>
    <origin xyz="0 0 0.4" rpy="0.2 0 0"/><axis xyz="1 0 0"/></joint>
</robot>"""

MID_FLOATING = """<robot name="tether">
  <link name="base"/>
  <link name="l1"><inertial><origin xyz="0 0 0.25"/><mass value="3"/>
    <inertia ixx="0.06" ixy="0" ixz="0" iyy="0.06" iyz="0" izz="0.01"/></inertial></link>
  <link name="drone"><inertial><origin xyz="0.01 0.02 0"/><mass value="1.5"/>
    <inertia ixx="0.02" ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.04"/></inertial></link>
  <link name="prop"><inertial><origin xyz="0 0 0.05"/><mass value="0.1"/>
    <inertia ixx="0.0002" ixy="0" ixz="0" iyy="0.0002" iyz="0" izz="0.0003"/></inertial></link>
  <link name="sensor"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="free" type="floating"><parent link="l1"/><child link="drone"/>
    <origin xyz="0 0 0.5" rpy="0.1 0.2 0.3"/></joint>
  <joint name="spin" type="continuous"><parent link="drone"/><child link="prop"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/></joint>
  <joint name="cam" type="fixed"><parent link="prop"/><child link="sensor"/>
    <origin xyz="0.05 0 0" rpy="0 1.0 0"/></joint>
</robot>"""


@pytest.mark.parametrize(
    "xml", [PLANAR_BASE, MID_FLOATING], ids=["planar base", "mid-tree floating"]
)
def test_urdf_planar_and_floating_joints_match_pinocchio(xml, rng):
    model = rd.load_urdf(xml)
    pm = pin.buildModelFromXML(xml)
    pd, mp = pm.createData(), PinocchioMap(model, pm)
    assert model.nv == pm.nv == (5 if "rover" in xml else 8)
    leaf = "hand" if "rover" in xml else "sensor"
    fid = pm.getFrameId(leaf)
    for _ in range(3):
        q = rd.random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        want = _pin_quantities(pm, pd, mp, fid, q, v, a)
        got = {"fk": rd.fk(model, q, leaf)}
        for kind, _ in KINDS:
            got["J " + kind] = rd.jacobian(model, q, leaf, kind)
            got["dJ " + kind] = rd.jacobian_dot(model, q, v, leaf, kind)
        got["rnea"] = rd.rnea(model, q, v, a, friction=False)
        got["crba"] = rd.crba(model, q)
        got["aba"] = rd.aba(model, q, v, got["rnea"], friction=False)
        got["coriolis"] = rd.coriolis_matrix(model, q, v)
        got["gravity"] = rd.gravity_forces(model, q)
        got["com"] = rd.com(model, q)
        got["com_jacobian"] = rd.com_jacobian(model, q)
        for key in got:
            assert_close(got[key], want[key], TOL, f"{model.name}: {key}")


def test_constrained_dynamics_with_new_joints_satisfy_pinocchio_kkt(rng):
    """A loop closure (the tool's origin pinned) on a tree of every joint type: the
    constrained accelerations satisfy Pinocchio's M a + h = tau + A^T lambda and
    A a + dA v = 0."""
    model, pm, pd, mp = _pair("mixed", 50)
    fid = pm.getFrameId("tool")
    q = rd.random_configuration(model, rng)
    v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    A = rd.jacobian(model, q, "tool", "world_aligned")[3:]
    dA_v = rd.jacobian_dot(model, q, v, "tool", "world_aligned")[3:] @ v
    qdd, lam = rd.constrained_forward_dynamics(model, q, v, tau, A, dA_v, friction=False)
    want = _pin_quantities(pm, pd, mp, fid, q, v, np.zeros(model.nv))
    M, h = want["crba"], want["rnea"]  # rnea(q, v, 0) = C v + g
    Ap = want["J world_aligned"][3:]
    assert_close(M @ qdd + h, tau + Ap.T @ lam, 1e-9, "M a + h = tau + A^T lambda")
    assert_close(Ap @ qdd + want["dJ world_aligned"][3:] @ v, np.zeros(3), 1e-9, "A a + dA v")


def test_cspace_topology():
    """MR section 2.3: the C-space as a product of R, S^3 (unit quaternions) and T."""
    ur5 = rd.models.load("ur5")
    assert ur5.cspace == ("T^6", 6)
    b = rd.ModelBuilder("quadruped")
    b.add_body("base", "world", joint_type="free")
    for k in range(12):
        b.add_body(f"l{k}", "base", joint_type="revolute", axis=(0, 1, 0))
    assert b.build().cspace == ("R^3 x S^3 x T^12", 18)
    b = rd.ModelBuilder("mix")
    b.add_body("c", "world", joint_type="planar")
    b.add_body("s", "c", joint_type="spherical")
    b.add_body("p", "s", joint_type="prismatic")
    b.add_body("y", "p", joint_type="cylindrical")
    b.add_body("h", "y", joint_type="helical", pitch=0.01)
    b.add_body("u", "h", joint_type="universal", axis=(1, 0, 0), axis2=(0, 1, 0))
    b.add_body("f", "u", joint_type="fixed")
    cs = b.build().cspace
    assert cs.topology == "R^4 x S^3 x T^5" and cs.dim == 12
    assert str(cs) == "R^4 x S^3 x T^5 (dimension 12)"


def test_bad_joint_inputs_name_the_element():
    with pytest.raises(rd.ModelError, match=r"joint 'j'.*zero axis"):
        rd.ModelBuilder().add_body("a", "world", joint_name="j", joint_type="planar",
                                   axis=(0, 0, 0)).build()  # fmt: skip
    with pytest.raises(rd.ModelError, match=r"joint 'j'.*axis2 \[1.0, 0.0, 0.0\] is parallel"):
        rd.ModelBuilder().add_body("a", "world", joint_name="j", joint_type="universal",
                                   axis=(2, 0, 0), axis2=(1, 0, 0)).build()  # fmt: skip
    with pytest.raises(rd.ModelError, match=r"joint 'j'.*pitch"):
        rd.ModelBuilder().add_body("a", "world", joint_name="j", joint_type="helical",
                                   pitch=float("nan")).build()  # fmt: skip
    m = rd.ModelBuilder().add_body("a", "world", joint_type="spherical").build()
    with pytest.raises(ValueError, match="quaternion"):
        rd.fk(m, np.zeros(4))
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 4\), got \(3,\)"):
        rd.rnea(m, np.zeros(3), np.zeros(3), np.zeros(3))


def test_symbolic_derive_with_helical_and_cylindrical_joints(rng):
    """Lagrange's equations (robodyn.symbolic.derive) of a tree with a helical and a
    cylindrical joint equal the compiled M, g and C v; free-style joints are refused."""
    import sympy as sp

    from robodyn.symbolic.derive import derive

    model = rd.ModelBuilder("screwy", gravity=(0.3, -1.0, -9.81))
    model.add_body(
        "c",
        "world",
        joint_type="cylindrical",
        axis=(0, 0, 1),
        inertia=rd.RigidInertia(2.0, (0.1, 0.05, 0.0), np.diag([0.1, 0.2, 0.25])),
    )
    model.add_body(
        "h",
        "c",
        joint_type="helical",
        axis=(1, 0, 0),
        pitch=0.02,
        T=rd.transform(None, (0.3, 0, 0.1)),
        inertia=rd.RigidInertia(0.5, (0.0, 0.1, 0.0), np.diag([0.01, 0.02, 0.02])),
    )
    model = model.build()  # fmt: skip
    eom = derive(model)
    q, qd = list(eom.q), list(eom.qd)
    fM = sp.lambdify([q], eom.M.xreplace(eom.parameters), "numpy")
    fg = sp.lambdify([q], eom.g.xreplace(eom.parameters), "numpy")
    fC = sp.lambdify([q, qd], eom.C.xreplace(eom.parameters), "numpy")
    for _ in range(3):
        x, v = rng.normal(size=3), rng.normal(size=3)
        assert_close(np.array(fM(x), dtype=float), rd.crba(model, x), 1e-12, "M")
        assert_close(np.array(fg(x), dtype=float).ravel(), rd.gravity_forces(model, x), 1e-12)
        Cv = np.array(fC(x, v), dtype=float) @ v
        assert_close(Cv, rd.velocity_forces(model, x, v), 1e-12, "C v")
    ball = rd.ModelBuilder().add_body("s", "world", joint_type="spherical").build()
    with pytest.raises(rd.ModelError, match="spherical joint: symbolic derive supports"):
        derive(ball)


@pytest.mark.parametrize("kind", ["spherical", "planar", "mixed"])
def test_simulation_conserves_energy_on_the_joint_manifolds(kind, rng):
    """rd.simulate (RK4 on the Lie groups of the free, spherical and planar joints) keeps
    the total energy of a frictionless tree (MuJoCo's invariant)."""
    model = _pair(kind, 60)[0]
    q0, v0 = rd.random_configuration(model, rng), rng.normal(size=model.nv)
    tr = rd.simulate(model, q0, v0, duration=0.1, dt=5e-4)
    E = tr.energy()
    assert np.ptp(E) <= 1e-6 * max(1.0, np.abs(E).max()), f"energy drift {np.ptp(E):.3g}"


def test_ik_through_spherical_and_planar_joints_respects_the_other_limits(rng):
    """IK integrates the quaternion and planar coordinates on their groups and keeps the
    limits of the revolute joint after them (fk checks the answer)."""
    b = rd.ModelBuilder("ball-arm")
    b.add_body("base", "world", joint_type="planar")
    b.add_body("ball", "base", joint_type="spherical", T=rd.transform(None, (0, 0, 0.2)))
    b.add_body("fore", "ball", joint_type="revolute", axis=(0, 1, 0), lower=-0.5, upper=0.5,
               T=rd.transform(None, (0, 0, 0.4)))  # fmt: skip
    b.add_frame("tip", "fore", T=rd.transform(None, (0.3, 0, 0.1)))
    model = b.build()
    for _ in range(5):
        target = rd.fk(model, rd.random_configuration(model, rng), "tip")
        res = rd.ik(model, "tip", target)
        assert res.success
        assert_close(rd.fk(model, res.q, "tip"), target, 1e-6, "ik pose")
        assert -0.5 - 1e-12 <= res.q[model.jnt_qadr[model.joint_id("fore_joint")]] <= 0.5 + 1e-12
