"""Models made from models (issue 32): ``model.lock_joints``, ``rd.attach`` and
``model.to_urdf``, against a closed form, the identities of a locked joint, the builder's
own merging and numbering, and the round trip through ``rd.load_urdf``, on hypothesis trees
of every joint type. Pinocchio's ``buildReducedModel`` and ``appendModel`` on
example-robot-data robots: tests/oracle/test_oracle_compose.py."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from helpers import (
    TREE_KINDS,
    assert_close,
    chain_frame_poses,
    coordinate_map,
    point_mass_2r,
    random_inertia,
    random_placement,
    random_tree,
    states,
    trees,
)
from robodyn.errors import ModelWarning
from robodyn.model.builder import ModelBuilder
from robodyn.model.joints import JOINT_CYLINDRICAL, JOINT_UNIVERSAL
from robodyn.model.urdf_export import rpy_of
from robodyn.spatial import exp3, rot_y, rpy_to_rotation, transform

TOL = 1e-12
# to_urdf writes a universal or cylindrical joint j as two URDF joints, the second named so
SECOND = {JOINT_UNIVERSAL: "__axis2", JOINT_CYLINDRICAL: "__slide"}
_Q = ("q_lower", "q_upper")
_V = ("v_limit", "effort_limit", "dof_damping", "dof_friction", "dof_armature")


def _embed(x, index, n: int) -> np.ndarray:
    """``x`` placed at ``index`` of a zero vector of length n."""
    out = np.zeros(n)
    out[index] = x
    return out


def _same_joint_numbers(model, other, qi, vi) -> None:
    """Limits, damping, friction and armature of every coordinate of ``model`` equal in
    ``other`` (``qi``, ``vi`` from coordinate_map)."""
    for k in _Q:
        np.testing.assert_array_equal(getattr(other, k)[qi], getattr(model, k), err_msg=k)
    for k in _V:
        np.testing.assert_array_equal(getattr(other, k)[vi], getattr(model, k), err_msg=k)


def _same_frames(model, q, other, q_other, tol=TOL) -> None:
    """Every frame of ``model`` is a frame of ``other`` at the same world pose (poses by
    chaining the joint placements, no robodyn kinematics)."""
    mine, theirs = chain_frame_poses(model, q), chain_frame_poses(other, q_other)
    for k, name in enumerate(model.frame_names):
        assert_close(theirs[other.frame_id(name)], mine[k], tol, f"frame {name!r}")


def _same_dynamics(model, q, v, a, other, qi, vi, tol=TOL) -> None:
    """M, inverse dynamics (friction included) and forward dynamics of ``model`` at (q, v,
    a) equal ``other``'s at the same state (``other`` has exactly the same dofs)."""
    qo, vo, ao = _embed(q, qi, other.nq), _embed(v, vi, other.nv), _embed(a, vi, other.nv)
    assert_close(rd.mass_matrix(other, qo)[np.ix_(vi, vi)], rd.mass_matrix(model, q), tol, "M")
    tau = rd.inverse_dynamics(model, q, v, a)
    assert_close(rd.inverse_dynamics(other, qo, vo, ao)[vi], tau, tol, "rnea")
    if np.linalg.cond(rd.mass_matrix(model, q)) < 1e8:  # (a massless carrier on a free
        # joint over a revolute one, say, is singular: the motion is undefined)
        a_other = rd.forward_dynamics(other, qo, vo, _embed(tau, vi, other.nv))
        assert_close(a_other[vi], a, 1e-9, "aba")  # through M^-1: cond(M) enters


# ======================================================================== lock_joints
def test_lock_joints_closed_form_2r():
    """2R arm with point masses (course notes 000), elbow locked at theta2: one body of
    inertia m1 L1^2 + m2 |L1 x + R(theta2) L2 x|^2 about the shoulder, gravity torque
    dV/dq1 of V = g (m1 L1 sin q1 + m2 (L1 sin q1 + L2 sin(q1 + theta2)))."""
    m1, m2, L1, L2, g = 1.3, 0.7, 0.9, 0.6, 9.81
    full = point_mass_2r(m1, m2, L1, L2, g)
    theta2, q1 = 0.83, -0.41
    red = full.lock_joints(["link2_joint"], [0.2, theta2])
    assert (red.nq, red.nv, red.nb) == (1, 1, 2)
    assert set(red.frame_names) == set(full.frame_names)  # link2 stays, as a frame
    assert red.total_mass == pytest.approx(m1 + m2, rel=1e-15)
    inertia = m1 * L1**2 + m2 * (L1**2 + L2**2 + 2 * L1 * L2 * math.cos(theta2))
    assert_close(rd.mass_matrix(red, [q1]), [[inertia]], TOL, "M")
    tau_g = g * (m1 * L1 * math.cos(q1) + m2 * (L1 * math.cos(q1) + L2 * math.cos(q1 + theta2)))
    assert_close(rd.gravity_forces(red, [q1]), [tau_g], TOL, "gravity")
    ee = [L1 * math.cos(q1) + L2 * math.cos(q1 + theta2),
          L1 * math.sin(q1) + L2 * math.sin(q1 + theta2), 0.0]  # fmt: skip
    assert_close(rd.fk(red, [q1], "ee")[:3, 3], ee, TOL, "ee")
    mapped = full.lock_joints("link2_joint", {"link2_joint": theta2})  # a mapping, a name
    assert_close(rd.mass_matrix(mapped, [q1]), [[inertia]], TOL, "M (mapping)")


@settings(max_examples=60, deadline=None)
@given(tree=trees(max_bodies=6, kinds=TREE_KINDS, mimic=None, damping=None, floating=None),
       data=st.data())  # fmt: skip
def test_locked_joints_are_rigid_connections(tree, data):
    """A joint locked at q moves like a rigid connection: the reduced model's M, inverse
    and forward dynamics are the full model's with the locked joints held (zero velocity
    and acceleration) on the remaining dofs, and every frame is where it was; the other
    joints keep their limits, friction and armature."""
    full = tree.model
    names = data.draw(st.lists(st.sampled_from(full.joint_names_all[1:]), unique=True))
    ids = [full.joint_id(n) for n in names]
    names = [
        full.joint_names_all[i]
        for i in ids
        if full.jnt_type[i] != 0  # not fixed, and
        and (full.jnt_mimic[i] < 0 or full.jnt_mimic[i] in ids)
    ]  # a mimic with its leader
    q, v, a = data.draw(states(full))
    red = full.lock_joints(names, q)
    locked = set(names) | {full.joint_names_all[i] for i in range(1, full.nb)
                           if full.joint_names_all[full.jnt_mimic[i]] in names
                           and full.jnt_mimic[i] >= 0}  # fmt: skip
    assert not locked & set(red.joint_names_all)
    qi, vi = coordinate_map(red, full)  # the reduced model's coordinates in the full q, v
    _same_joint_numbers(red, full, qi, vi)
    held_v, held_a = _embed(v[vi], vi, full.nv), _embed(a[vi], vi, full.nv)
    qr, vr, ar = q[qi], v[vi], a[vi]
    assert_close(rd.mass_matrix(red, qr), rd.mass_matrix(full, q)[np.ix_(vi, vi)], TOL, "M")
    tau = rd.inverse_dynamics(full, q, held_v, held_a)[vi]
    assert_close(rd.inverse_dynamics(red, qr, vr, ar), tau, TOL, "rnea")
    if red.nv:
        M = rd.mass_matrix(full, q)[np.ix_(vi, vi)]
        h = rd.inverse_dynamics(full, q, held_v, np.zeros(full.nv), friction=False)[vi]
        want = np.linalg.solve(M, tau - h)
        assert_close(rd.forward_dynamics(red, qr, vr, tau, friction=False), want, 1e-9, "aba")
    assert set(red.frame_names) == set(full.frame_names)
    _same_frames(full, q, red, qr)


def test_locking_a_leader_locks_its_followers():
    full, mimics = random_tree(4, 6, mimic=True, damping=True)
    lead = mimics[0][1]
    followers = [m for m, leader, _, _ in mimics if leader == lead]
    q = rd.random_configuration(full, np.random.default_rng(1))
    red = full.lock_joints([lead], q)
    assert not {lead, *followers} & set(red.joint_names_all)
    with pytest.raises(ValueError, match=rf"'{followers[0]}' follows '{lead}'; lock its leader"):
        full.lock_joints([followers[0]], q)  # a coupling: the follower cannot stop alone
    both = full.lock_joints([lead, *followers], q)  # naming them changes nothing
    for k in ("body_mass", "body_com", "body_inertia", "jnt_R", "jnt_p", "frame_R", "frame_p"):
        np.testing.assert_array_equal(getattr(red, k), getattr(both, k), err_msg=k)
    i = full.joint_id(followers[0])
    where = chain_frame_poses(full, q)[full.frame_id(full.body_names[i])]
    assert_close(chain_frame_poses(red, q[coordinate_map(red, full)[0]])[
        red.frame_id(full.body_names[i])], where, TOL, "follower's body")  # fmt: skip


def test_lock_joints_mapping_equals_configuration():
    full, _ = random_tree(7, 6, kinds=("revolute", "spherical", "planar", "universal"))
    q = rd.random_configuration(full, np.random.default_rng(2))
    names = ["l1_joint", "l2_joint", "l3_joint"]
    values = {n: q[full.jnt_qadr[full.joint_id(n)] :][: full.jnt_nq[full.joint_id(n)]]
              for n in names}  # fmt: skip
    a, b = full.lock_joints(names, q), full.lock_joints(names, values)
    for k in ("body_inertia", "jnt_R", "jnt_p", "frame_R", "frame_p", "q_lower"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
    assert full.lock_joints([], q) is full
    assert any("locked" in n for n in a.notes)


def _welded():
    b = ModelBuilder("welded")
    b.add_body("a", "world", joint_name="ja", inertia=random_inertia(np.random.default_rng(0)))
    b.add_body("w", "a", joint_name="jw", joint_type="fixed")
    b.add_body("s", "a", joint_name="js", joint_type="spherical",
               inertia=random_inertia(np.random.default_rng(1)))  # fmt: skip
    return b.build(merge_fixed=False)


@pytest.mark.parametrize(
    "names, q, match",
    [
        (["nope", "ja"], None, r"names: no joint named 'nope' in model 'welded'; its joints: "),
        (5, None, "names must be a joint name or a list of joint names"),
        ([1], None, "names must be joint names"),
        (["jw"], None, "'jw' is fixed already"),
        (["ja"], np.zeros(3), r"q must be the model's configuration, shape \(5,\)"),
        (["ja"], [np.nan, 1, 0, 0, 0], "q contains NaN or inf"),
        (["ja"], "abc", "q must be the model's configuration"),
        (["ja", "js"], {"ja": 0.1}, "no value for 'js'"),
        (["ja"], {"ja": 0.1, "js": [1, 0, 0, 0]}, "'js' not locked"),
        (["js"], {"js": [1, 0, 0]}, r"q\['js'\] must be 4 finite number"),
        (["js"], {"js": [0, 0, 0, 0]}, "the quaternion of joint 'js' is zero"),
    ],
)
def test_lock_joints_bad_input(names, q, match):
    model = _welded()
    q = rd.neutral(model) if q is None else q
    with pytest.raises(ValueError, match=match):
        model.lock_joints(names, q)


# ============================================================================== attach
def _add_spec(b, spec, prefix: str, host: str, T_hm, first: str | None = None) -> None:
    """The bodies of the TreeSpec ``spec`` added to the builder ``b`` (names prefixed), its
    world's children hung from ``host`` at ``T_hm``; ``first``: the joint type of the
    floating base (the model's body 1) instead of "free" (a planar joint normal to z)."""
    base = int(spec.model.body_names[1][1:]) if first else -1  # body "b<k>" is spec body k
    welded: set[int] = set()  # welded to the child's world: merged into it, mass dropped
    for k, s in enumerate(spec.bodies):
        if s.kind == "fixed" and (s.parent < 0 or s.parent in welded):
            welded.add(k)
        T = transform(exp3(np.array(s.rotvec)), np.array(s.p))
        extra = {}
        if s.mimic is not None:
            lead, mult, off = s.mimic
            extra = dict(mimic=f"{prefix}j{lead}", multiplier=mult, offset=off)
        kind, axis = (first, (0, 0, 1)) if k == base else (s.kind, s.axis)
        if k == base and first != "fixed":
            extra.update(damping=0.0, friction=0.0, armature=0.0)
        else:
            extra.update(damping=s.damping, friction=s.friction, armature=s.armature)
        b.add_body(
            f"{prefix}b{k}", host if s.parent < 0 else f"{prefix}b{s.parent}",
            joint_name=f"{prefix}j{k}", joint_type=kind, axis=axis,
            T=T_hm @ T if s.parent < 0 else T, inertia=None if k in welded else s.inertia(),
            pitch=s.pitch,
            axis2=s.axis2, **extra,
        )  # fmt: skip
    T_tool = transform(exp3(np.array(spec.tool_rotvec)), np.array(spec.tool_p))
    b.add_frame(f"{prefix}tool", f"{prefix}b{len(spec.bodies) - 1}", T=T_tool)


def _expected(parent_spec, child_spec, parent, f: int, T, joint: str) -> object:
    """The attached model built body by body with the builder (its own merging)."""
    b = ModelBuilder("expected", gravity=parent.gravity)
    _add_spec(b, parent_spec, "", "world", np.eye(4))
    host = parent.body_names[parent.frame_body[f]]
    T_hm = transform(parent.frame_R[f], parent.frame_p[f]) @ T
    floating = child_spec.model.floating_base
    if joint == "fixed":
        _add_spec(b, child_spec, "c_", host, T_hm, "fixed" if floating else None)
    elif floating:
        _add_spec(b, child_spec, "c_", host, T_hm, joint)
    else:  # a massless body on the joint carries the child's world
        b.add_body("c_" + child_spec.model.name, host, joint_name="c_root_joint",
                   joint_type=joint, T=T_hm)  # fmt: skip
        _add_spec(b, child_spec, "c_", "c_" + child_spec.model.name, np.eye(4))
    return b.build()


@settings(max_examples=60, deadline=None)
@given(
    parent_spec=trees(max_bodies=4, kinds=TREE_KINDS, mimic=None, damping=None),
    child_spec=trees(max_bodies=4, kinds=TREE_KINDS, mimic=None, damping=None, floating=None),
    joint=st.sampled_from(["fixed", "free", "planar"]),
    data=st.data(),
)
def test_attach_equals_the_tree_built_at_once(parent_spec, child_spec, joint, data):
    """``attach`` gives the model the builder makes of both trees at once (the child's
    root on the parent's frame; a floating child fixed: its root merged by the builder's
    own merging): the same bodies, joints, numbers, dynamics and frame poses."""
    parent, child = parent_spec.model, child_spec.model
    f = data.draw(st.integers(0, parent.nf - 1))
    T = random_placement(np.random.default_rng(data.draw(st.integers(0, 2**16))))
    got = rd.attach(parent, parent.frame_names[f], child, T=T, prefix="c_", joint=joint)
    want = _expected(parent_spec, child_spec, parent, f, T, joint)
    assert sorted(got.body_names) == sorted(want.body_names)
    assert sorted(got.joint_names) == sorted(want.joint_names)
    assert set(got.frame_names) == set(want.frame_names)
    assert got.total_mass == pytest.approx(want.total_mass, rel=1e-14)
    qi, vi = coordinate_map(want, got)
    _same_joint_numbers(want, got, qi, vi)
    q, v, a = data.draw(states(want))
    _same_dynamics(want, q, v, a, got, qi, vi)
    _same_frames(want, q, got, _embed(q, qi, got.nq))
    for i in range(1, got.nb):  # depth first: the subtree of i is i .. end - 1
        assert got.body_parent[i] < i
        assert np.all(got.body_parent[i + 1 : got.body_subtree_end[i]] >= i)


def test_attach_floating_child_free_and_fixed():
    """A floating-base child attached fixed loses its free joint (its root merged into the
    parent's body, its mass carried); attached "free" it keeps it, placed at the frame."""
    parent, _ = random_tree(11, 3)
    child, _ = random_tree(12, 3, floating=True)
    fixed = rd.attach(parent, "tool", child, prefix="c_")
    assert fixed.nv == parent.nv + child.nv - 6
    assert "c_base" in fixed.frame_names and "c_base" not in fixed.body_names
    assert fixed.total_mass == pytest.approx(parent.total_mass + child.total_mass, rel=1e-14)
    assert any("replaced by the fixed attachment" in n for n in fixed.notes)
    free = rd.attach(parent, "tool", child, prefix="c_", joint="free")
    assert free.nv == parent.nv + child.nv
    assert free.jnt_type[free.joint_id("c_base_joint")] == rd.model.JOINT_FREE
    planar = rd.attach(parent, "tool", child, prefix="c_", joint="planar")
    assert planar.nv == parent.nv + child.nv - 3


def test_attach_name_clash_and_prefix():
    arm, _ = random_tree(13, 3)
    with pytest.raises(ValueError, match=r"clash with the parent's: bodies/frames 'l0', 'l1'.*"
                                         r"joints 'l0_joint'.*pass prefix="):  # fmt: skip
        rd.attach(arm, "tool", arm)
    two = rd.attach(arm, "tool", arm, prefix="second_")
    assert two.nv == 2 * arm.nv and "second_tool" in two.frame_names
    assert any("attached at frame 'tool'" in n for n in two.notes)


def test_attach_keeps_the_child_mimics_by_their_new_names():
    arm, _ = random_tree(14, 3)
    child, mimics = random_tree(15, 4, mimic=True, damping=True)
    both = rd.attach(arm, "tool", child, prefix="g_")
    for name, lead, mult, off in mimics:
        i = both.joint_id("g_" + name)
        assert both.joint_names_all[both.jnt_mimic[i]] == "g_" + lead
        assert (both.jnt_mimic_mult[i], both.jnt_mimic_offset[i]) == (mult, off)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(parent="arm"), "parent must be a robodyn Model, got str"),
        (dict(child=None), "child must be a robodyn Model, got NoneType"),
        (dict(frame="nope"), "frame: no frame named 'nope'"),
        (dict(frame=1.5), "frame must be a frame name or index"),
        (dict(T=np.eye(3)), r"T must have shape \(\.\.\., 4, 4\)"),
        (dict(T=2 * np.eye(4)), "T is not a homogeneous transform"),
        (dict(T=np.diag([1.0, 1.0, -1.0, 1.0])), "rotation block of T"),
        (dict(prefix=3), "prefix must be a string"),
        (dict(joint="ball"), "joint must be one of 'fixed', 'free', 'planar'"),
    ],
)
def test_attach_bad_input(kw, match):
    arm, _ = random_tree(16, 3)
    args = dict(parent=arm, frame="tool", child=arm, prefix="c_") | kw
    parent, frame, child = args.pop("parent"), args.pop("frame"), args.pop("child")
    with pytest.raises(ValueError, match=match):
        rd.attach(parent, frame, child, **args)


# ============================================================================== to_urdf
@settings(max_examples=60, deadline=None)
@given(tree=trees(max_bodies=6, kinds=TREE_KINDS, mimic=None, damping=None, floating=None),
       data=st.data())  # fmt: skip
def test_to_urdf_round_trip_every_joint_type(tree, data):
    """Written as URDF and read back by load_urdf: the same joints (a universal or
    cylindrical joint as a chain of two), limits, friction, armature, mimics, dynamics and
    frames; nothing lost, so no warning from the writer."""
    model = tree.model
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the writer has nothing to say about these trees
        text = model.to_urdf()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)  # massless chain links, "spherical"
        back = rd.load_urdf(text, gravity=model.gravity)
    assert back.nv == model.nv and back.nq == model.nq
    qi, vi = coordinate_map(model, back, SECOND)
    _same_joint_numbers(model, back, qi, vi)
    for i in np.flatnonzero(model.jnt_mimic >= 0):
        k = back.joint_id(model.joint_names_all[i])
        assert back.joint_names_all[back.jnt_mimic[k]] == model.joint_names_all[model.jnt_mimic[i]]
    q, v, a = data.draw(states(model))
    _same_dynamics(model, q, v, a, back, qi, vi)
    _same_frames(model, q, back, _embed(q, qi, back.nq))


def test_to_urdf_file_rules(tmp_path):
    model = point_mass_2r()
    path = tmp_path / "arm.urdf"
    assert model.to_urdf(path) == path
    first = path.read_text()
    assert first.startswith('<?xml version="1.0" encoding="utf-8"?>') and "<robot" in first
    assert "m/s^2" in first  # the gravity URDF cannot carry, in a comment
    with pytest.raises(FileExistsError, match="the file exists; pass overwrite=True"):
        model.to_urdf(path)
    assert rd.to_urdf(model.lock_joints("link2_joint", [0, 0.3]), path, overwrite=True) == path
    assert path.read_text() != first
    assert sorted(os.listdir(tmp_path)) == ["arm.urdf"]  # no temporary file left
    with pytest.raises(ValueError, match="does not exist"):
        model.to_urdf(tmp_path / "missing" / "arm.urdf")
    with pytest.raises(ValueError, match="is a folder"):
        model.to_urdf(tmp_path)
    back = rd.load_urdf(path, gravity=model.gravity)
    assert back.nv == 1 and "link2" in back.frame_names


def test_to_urdf_says_what_urdf_cannot():
    b = ModelBuilder("limits")
    b.add_body("a", "world", joint_name="one_sided", lower=-1.0,
               inertia=random_inertia(np.random.default_rng(3)))  # fmt: skip
    b.add_body("p", "a", joint_name="slide", joint_type="prismatic", effort=10.0,
               inertia=random_inertia(np.random.default_rng(4)))  # fmt: skip
    said = r"joint 'one_sided': one-sided position limits.*joint 'slide': velocity and effort"
    with pytest.warns(ModelWarning, match=said):
        text = b.build().to_urdf()
    back = rd.load_urdf(text)
    assert back.q_lower[0] == -np.inf and back.effort_limit[1] == np.inf


def test_rpy_of_is_exact_near_gimbal_lock(rng):
    """R -> (roll, pitch, yaw) -> Rz Ry Rx gives R back to round-off, also at pitch within
    1e-17 .. 1e-1 of +-pi/2 where a plain extraction loses digits."""
    worst = 0.0
    for k in range(3000):
        rpy = rng.uniform(-math.pi, math.pi, 3)
        rpy[1] = math.copysign(math.pi / 2 * (1 - 10.0 ** rng.uniform(-17, -1)), rpy[1])
        R = rpy_to_rotation(rpy) if k % 2 else exp3(rng.normal(size=3) * 3)
        worst = max(worst, float(np.abs(rpy_to_rotation(rpy_of(R)) - R).max()))
    assert worst < 4e-15
    assert_close(rpy_to_rotation(rpy_of(rot_y(math.pi / 2))), rot_y(math.pi / 2), 1e-15)


def test_urdf_spherical_extension_and_armature():
    """PyBullet's type="spherical" loads as a ball joint with a warning naming the
    extension; <dynamics armature> (robodyn's extension) sets the rotor inertia."""
    xml = """<robot name="ball"><link name="world"/>
      <link name="b"><inertial><mass value="2"/>
        <inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="s" type="spherical"><parent link="world"/><child link="b"/>
        <dynamics damping="0.5" armature="0.25"/></joint></robot>"""
    with pytest.warns(ModelWarning, match="'spherical' is PyBullet's extension of URDF"):
        model = rd.load_urdf(xml)
    assert (model.nq, model.nv) == (4, 3)
    np.testing.assert_array_equal(model.dof_armature, [0.25] * 3)
    np.testing.assert_array_equal(model.dof_damping, [0.5] * 3)
    M = rd.mass_matrix(model, [1.0, 0, 0, 0])
    assert_close(M, np.diag([0.35, 0.45, 0.55]), 1e-15, "M = I + armature")


def test_to_urdf_keeps_visuals():
    model = rd.load_urdf(
        """<robot name="v"><link name="world"/>
        <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0"
          ixz="0" iyz="0"/></inertial>
          <visual><origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 1.0"/><geometry><box size="1 2 3"/>
          </geometry><material name="red"><color rgba="1 0 0 1"/></material></visual>
          <visual><geometry><mesh filename="package://p/m.stl" scale="2 2 2"/></geometry>
          </visual></link>
        <joint name="j" type="continuous"><parent link="world"/><child link="b"/>
          <origin xyz="0 0 1"/><axis xyz="0 1 0"/></joint></robot>"""
    )
    back = rd.load_urdf(model.to_urdf())
    assert len(back.visuals) == 2
    for (b0, T0, g0), (b1, T1, g1) in zip(model.visuals, back.visuals):
        assert b0 == b1 and g0.kind == g1.kind and g0.rgba == g1.rgba
        assert g0.size == g1.size and g0.filename == g1.filename and g0.scale == g1.scale
        assert_close(T1, T0, 1e-15, "visual pose")


def test_configurations_of_the_reduced_model_come_from_the_full_one():
    """The coordinates of the reduced model are the full model's without the locked ones,
    in the same order (so q[coordinate_map] takes a full configuration to a reduced one)."""
    full, _ = random_tree(17, 6, kinds=("revolute", "free", "spherical", "prismatic"))
    q = rd.random_configuration(full, np.random.default_rng(5))
    red = full.lock_joints(["l2_joint"], q)
    qi, _ = coordinate_map(red, full)
    assert np.all(np.diff(qi) > 0)
    assert red.joint_names == tuple(n for n in full.joint_names if n != "l2_joint")


_VISUAL_URDF = """<robot name="v"><link name="world"/>
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0"
    iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0"
    iyz="0"/></inertial>
    <visual><origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 1.0"/><geometry><mesh
      filename="meshes/b.stl"/></geometry></visual></link>
  <joint name="ja" type="continuous"><parent link="world"/><child link="a"/>
    <origin xyz="0 0 1"/><axis xyz="0 1 0"/></joint>
  <joint name="jb" type="continuous"><parent link="a"/><child link="b"/>
    <origin xyz="0.5 0 0" rpy="0.1 0.2 0.3"/><axis xyz="1 0 0"/></joint></robot>"""


def _visual_poses(model, q) -> list:
    T = chain_frame_poses(model, q)
    return [T[model.frame_id(model.body_names[b])] @ T_bg for b, T_bg, _ in model.visuals]


def test_visuals_follow_their_bodies(tmp_path):
    """A locked body's visuals move into the body it merges into, where they were; an
    attached child's visuals come along, a mesh named relative to the child's file made
    absolute (the result's file is the parent's)."""
    path = tmp_path / "v.urdf"
    path.write_text(_VISUAL_URDF)
    model = rd.load_urdf(path)
    q = np.array([0.4, -1.1])
    red = model.lock_joints(["jb"], q)
    assert red.visuals[0][0] == red.body_id("a")
    assert_close(_visual_poses(red, q[:1])[0], _visual_poses(model, q)[0], TOL, "visual")
    arm, _ = random_tree(18, 2)
    both = rd.attach(arm, "tool", model, prefix="c_")
    (body, _, g), = both.visuals  # fmt: skip
    assert both.body_names[body] == "c_b" and g.filename == str(tmp_path / "meshes" / "b.stl")
