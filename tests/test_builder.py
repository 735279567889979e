"""ModelBuilder: depth-first renumbering, fixed-joint merging, coordinates and every check."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import trees
from robodyn.errors import ModelError
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE


def _T(R=None, p=(0.0, 0.0, 0.0)) -> np.ndarray:
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    T[:3, 3] = p
    return T


def _Rz(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _Rx(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _points_inertia(masses, points) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, CoM and inertia about the CoM of point masses, from the definitions."""
    masses = np.asarray(masses, float)
    points = np.asarray(points, float)
    m = masses.sum()
    c = (masses[:, None] * points).sum(0) / m
    inertia = np.zeros((3, 3))
    for mk, x in zip(masses, points - c):
        inertia += mk * ((x @ x) * np.eye(3) - np.outer(x, x))
    return m, c, inertia


def _descendants(parents: dict[str, str], name: str) -> set[str]:
    out = set()
    for b in parents:
        cur = b
        while cur in parents:
            if cur == name:
                out.add(b)
                break
            cur = parents[cur]
    return out


# ----------------------------------------------------------------- renumbering
def test_dfs_renumbering_makes_subtrees_contiguous():
    # (name, parent) added out of order; children in insertion order.
    adds = [
        ("c2", "b"),
        ("a", "world"),
        ("b", "a"),
        ("d", "world"),
        ("c1", "b"),
        ("e", "d"),
        ("c3", "a"),
        ("f", "e"),
        ("g", "d"),
    ]
    bld = ModelBuilder()
    for name, parent in adds:
        bld.add_body(name, parent, axis=(0, 0, 1))
    m = bld.build()
    assert m.body_names == ("world", "a", "b", "c2", "c1", "c3", "d", "e", "f", "g")
    parents = dict(adds)
    for i, name in enumerate(m.body_names):
        if i == 0:
            assert m.body_parent[0] == -1
            continue
        assert m.body_names[m.body_parent[i]] == parents[name]
        assert m.body_parent[i] < i
        sub = {m.body_names[k] for k in range(i, m.body_subtree_end[i])}
        assert sub == _descendants(parents, name)
    assert m.body_subtree_end[0] == m.nb
    # q order follows the body order
    assert m.joint_names == tuple(f"{n}_joint" for n in m.body_names[1:])
    np.testing.assert_array_equal(m.jnt_qadr[1:], np.arange(9))
    # dof_parent: previous dof towards the root
    expected = [-1, 0, 1, 1, 0, -1, 5, 6, 5]
    np.testing.assert_array_equal(m.dof_parent, expected)
    np.testing.assert_array_equal(m.dof_body, np.arange(1, 10))


# --------------------------------------------------------------------- merging
def test_fixed_joint_merge_preserves_mass_com_and_inertia():
    rng = np.random.default_rng(3)
    pts_arm = rng.uniform(-0.3, 0.3, (5, 3)) + [0.4, 0, 0]
    w_arm = rng.uniform(0.5, 2.0, 5)
    pts_tool = rng.uniform(-0.1, 0.1, (4, 3))
    w_tool = rng.uniform(0.2, 1.0, 4)
    m1, c1, I1 = _points_inertia(w_arm, pts_arm)
    m2, c2, I2 = _points_inertia(w_tool, pts_tool)
    R_tool = _Rz(0.7) @ _Rx(-0.4)
    T_tool = _T(R_tool, (0.8, 0.1, -0.05))
    T_tip = _T(_Rx(0.3), (0.0, 0.0, 0.2))
    T_arm = _T(_Rz(0.2), (0.0, 0.0, 0.5))

    m = (
        ModelBuilder(name="merge")
        .add_body("tip", "tool", joint_name="j_tip", axis=(1, 0, 0), T=T_tip)
        .add_body("arm", "world", joint_name="j_arm", T=T_arm, inertia=RigidInertia(m1, c1, I1))
        .add_body(
            "tool", "arm", joint_name="j_tool", joint_type="fixed", T=T_tool,
            inertia=RigidInertia(m2, c2, I2),
        )
        .add_frame("tcp", "tool", _T(p=(0, 0, 0.1)))
        .build()
    )  # fmt: skip
    assert m.body_names == ("world", "arm", "tip")
    assert m.notes == ("fixed joint 'j_tool' merged link 'tool' into 'arm'",)
    # the compound body from all points expressed in the arm frame
    pts_in_arm = np.vstack([pts_arm, pts_tool @ R_tool.T + T_tool[:3, 3]])
    m_ref, c_ref, I_ref = _points_inertia(np.concatenate([w_arm, w_tool]), pts_in_arm)
    a = m.body_id("arm")
    assert m.body_mass[a] == pytest.approx(m_ref, rel=1e-14)
    np.testing.assert_allclose(m.body_com[a], c_ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(m.body_inertia[a], I_ref, rtol=0, atol=1e-13)
    assert m.total_mass == pytest.approx(w_arm.sum() + w_tool.sum(), rel=1e-14)
    # inertia about the body origin (parallel axis on the definition)
    about_o = sum(
        w * ((x @ x) * np.eye(3) - np.outer(x, x)) for w, x in zip(np.r_[w_arm, w_tool], pts_in_arm)
    )
    c = m.body_com[a]
    mine = m.body_inertia[a] + m.body_mass[a] * ((c @ c) * np.eye(3) - np.outer(c, c))
    np.testing.assert_allclose(mine, about_o, rtol=0, atol=1e-13)
    # grandchild re-attached with the composed placement
    t = m.body_id("tip")
    assert m.body_parent[t] == a
    T_comp = T_tool @ T_tip
    np.testing.assert_allclose(m.jnt_R[t], T_comp[:3, :3], atol=1e-15)
    np.testing.assert_allclose(m.jnt_p[t], T_comp[:3, 3], atol=1e-15)
    # merged link's frame and frames fixed to it survive on the host body
    k = m.frame_id("tool")
    assert m.frame_body[k] == a
    np.testing.assert_allclose(m.frame_R[k], R_tool, atol=1e-15)
    np.testing.assert_allclose(m.frame_p[k], T_tool[:3, 3], atol=1e-15)
    k = m.frame_id("tcp")
    assert m.frame_body[k] == a
    np.testing.assert_allclose(m.frame_p[k], T_tool[:3, 3] + R_tool @ [0, 0, 0.1], atol=1e-15)

    # the same as a hand-built model with the compound inertia and composed placement
    ref = (
        ModelBuilder(name="merge")
        .add_body("arm", "world", joint_name="j_arm", T=T_arm,
                  inertia=RigidInertia(m_ref, c_ref, I_ref))
        .add_body("tip", "arm", joint_name="j_tip", axis=(1, 0, 0), T=T_comp)
        .build()
    )  # fmt: skip
    for key in ("body_parent", "body_mass", "body_com", "body_inertia", "jnt_R", "jnt_p",
                "jnt_axis", "jnt_qadr", "dof_parent"):  # fmt: skip
        np.testing.assert_allclose(getattr(m, key), getattr(ref, key), rtol=0, atol=1e-13)


def test_fixed_chain_and_fixed_to_world():
    # base fixed to the world (its mass is dropped: the world is fixed and massless),
    # then a chain of two fixed links merged into the moving body "a".
    m = (
        ModelBuilder()
        .add_body("base", "world", joint_type="fixed", T=_T(p=(0, 0, 1)),
                  inertia=RigidInertia(2.0, (0, 0, 0), np.eye(3)))
        .add_body("a", "base", inertia=RigidInertia(1.0, (0, 0, 0), 0.1 * np.eye(3)))
        .add_body("f1", "a", joint_type="fixed", T=_T(p=(1, 0, 0)),
                  inertia=RigidInertia(1.0, (0, 0, 0), 0.1 * np.eye(3)))
        .add_body("f2", "f1", joint_type="fixed", T=_T(p=(1, 0, 0)),
                  inertia=RigidInertia(2.0, (0, 0, 0), 0.1 * np.eye(3)))
        .build()
    )  # fmt: skip
    assert m.body_names == ("world", "a")
    assert m.body_mass[0] == 0.0
    np.testing.assert_allclose(m.jnt_p[1], (0, 0, 1))
    assert m.body_mass[1] == pytest.approx(4.0)
    # CoM: (1*0 + 1*1 + 2*2)/4 = 1.25 along x
    np.testing.assert_allclose(m.body_com[1], (1.25, 0, 0), atol=1e-15)
    # Izz about the CoM: 0.3 + 1*1.25^2 + 1*0.25^2 + 2*0.75^2
    assert m.body_inertia[1][2, 2] == pytest.approx(0.3 + 1.5625 + 0.0625 + 1.125, rel=1e-14)
    assert m.frame_names == ("world", "base", "a", "f1", "f2")
    np.testing.assert_allclose(m.frame_p[m.frame_id("f2")], (2, 0, 0))
    assert len(m.notes) == 3 and "carried by the fixed world" in m.notes[0]


# ------------------------------------------------------------------ coordinates
def test_free_joint_sizes_and_dofs():
    m = (
        ModelBuilder()
        .add_body("l1", "trunk", axis=(0, 1, 0), lower=-1, upper=2)
        .add_body("trunk", "world", joint_type="free", damping=0.5)
        .add_body("slider", "l1", joint_type="prismatic", axis=(0, 0, 2))
        .build()
    )
    assert (m.nq, m.nv) == (9, 8)
    assert m.floating_base
    assert m.jnt_type[1] == JOINT_FREE and m.body_names[1] == "trunk"
    np.testing.assert_array_equal(m.jnt_nq, [0, 7, 1, 1])
    np.testing.assert_array_equal(m.jnt_nv, [0, 6, 1, 1])
    np.testing.assert_array_equal(m.jnt_qadr, [0, 0, 7, 8])
    np.testing.assert_array_equal(m.jnt_vadr, [0, 0, 6, 7])
    np.testing.assert_array_equal(m.dof_parent, [-1, 0, 1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(m.dof_body, [1, 1, 1, 1, 1, 1, 2, 3])
    np.testing.assert_array_equal(m.q_lower[:3], [-np.inf] * 3)
    np.testing.assert_array_equal(m.q_lower[3:7], [-1] * 4)
    np.testing.assert_array_equal(m.q_upper[3:7], [1] * 4)
    np.testing.assert_array_equal(m.q_lower[7:], [-1, -np.inf])
    np.testing.assert_array_equal(m.q_upper[7:], [2, np.inf])
    np.testing.assert_array_equal(m.dof_damping, [0.5] * 6 + [0, 0])
    np.testing.assert_allclose(m.jnt_axis[3], (0, 0, 1))  # normalised
    assert m.jnt_type[3] == JOINT_PRISMATIC
    assert m.joint_names == ("trunk_joint", "l1_joint", "slider_joint")


def test_mimic_joint_has_no_coordinate():
    m = (
        ModelBuilder()
        .add_body("finger_b", "hand", joint_name="fb", joint_type="prismatic", axis=(0, -1, 0),
                  mimic="fa", multiplier=-2.0, offset=0.01)
        .add_body("hand", "world", joint_name="wrist")
        .add_body("finger_a", "hand", joint_name="fa", joint_type="prismatic", axis=(0, 1, 0),
                  lower=0, upper=0.04, velocity=0.2, effort=20, friction=1.5, armature=0.1)
        .build()
    )  # fmt: skip
    assert (m.nq, m.nv) == (2, 2)
    b, a = m.body_id("finger_b"), m.body_id("finger_a")
    assert b < a  # the follower comes first in body order
    assert m.jnt_nq[b] == 0 and m.jnt_nv[b] == 0
    assert m.jnt_mimic[b] == a and m.jnt_mimic[a] == -1
    assert m.jnt_qadr[b] == m.jnt_qadr[a] == 1
    assert m.jnt_vadr[b] == m.jnt_vadr[a] == 1
    assert m.jnt_mimic_mult[b] == -2.0 and m.jnt_mimic_offset[b] == 0.01
    assert m.joint_names == ("wrist", "fa")
    np.testing.assert_array_equal(m.q_lower, [-np.inf, 0])
    np.testing.assert_array_equal(m.q_upper, [np.inf, 0.04])
    np.testing.assert_array_equal(m.v_limit, [np.inf, 0.2])
    np.testing.assert_array_equal(m.effort_limit, [np.inf, 20])
    np.testing.assert_array_equal(m.dof_friction, [0, 1.5])
    np.testing.assert_array_equal(m.dof_armature, [0, 0.1])
    np.testing.assert_array_equal(m.dof_body, [m.body_id("hand"), a])
    assert any("mimic joint 'fb' follows 'fa'" in n for n in m.notes)


def test_continuous_limits_gravity_frames_and_world():
    m = (
        ModelBuilder(name="w", gravity=(0, -9.81, 0), root="ground")
        .add_body("wheel", "ground", joint_type="continuous", lower=-1, upper=1)
        .add_frame("rim", "wheel", _T(p=(0.3, 0, 0)))
        .add_frame("origin", "ground")
        .set_gravity((0, 0, -3.7))
        .build()
    )
    assert m.jnt_type[1] == JOINT_REVOLUTE
    np.testing.assert_array_equal(m.q_lower, [-np.inf])
    np.testing.assert_array_equal(m.q_upper, [np.inf])
    np.testing.assert_array_equal(m.gravity, (0, 0, -3.7))
    assert m.body_names[0] == "ground"
    assert m.frame_names == ("ground", "origin", "wheel", "rim")
    np.testing.assert_array_equal(m.frame_body, [0, 0, 1, 1])
    np.testing.assert_allclose(m.frame_p[3], (0.3, 0, 0))
    assert not m.body_mass.flags.writeable


# ----------------------------------------------------------------------- errors
def _one(**kw) -> ModelBuilder:
    return ModelBuilder().add_body("a", "world", joint_name="ja", **kw)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: ModelBuilder().add_body("a", "nowhere"), "parent link 'nowhere' does not exist"),
        (
            lambda: ModelBuilder().add_body("a", "world").add_body("b", "c").add_body("c", "b"),
            r"cycle in the kinematic tree: '(b|c)' -> '(c|b)' -> '(b|c)'",
        ),
        (lambda: ModelBuilder().add_body("a", None), r"body 'a' has no parent: two roots"),
        (lambda: _one().add_body("a", "world"), "duplicate body name 'a'"),
        (lambda: _one().add_body("world", "a"), "duplicate body name 'world'"),
        (lambda: _one().add_body("b", "a", joint_name="ja"), "duplicate joint name 'ja'"),
        (lambda: _one().add_frame("a", "a"), "duplicate frame name 'a'"),
        (lambda: _one().add_frame("f", "a").add_frame("f", "world"), "duplicate frame name 'f'"),
        (lambda: _one().add_frame("f", "ghost"), "frame 'f': body 'ghost' does not exist"),
        (lambda: _one(joint_type="ball"), r"joint 'ja' \(body 'a'\): unknown joint type 'ball'"),
        (lambda: _one(axis=(0, 0, 0)), r"joint 'ja' \(body 'a'\) has a zero axis"),
        (lambda: _one(axis=(0, np.nan, 1)), r"joint 'ja' \(body 'a'\) axis has a non-finite"),
        (lambda: _one(T=_T(p=(0, np.inf, 0))), r"joint 'ja' \(body 'a'\) origin T has a non-fin"),
        (lambda: _one(lower=np.nan), r"joint 'ja' \(body 'a'\) lower limit must be a finite"),
        (
            lambda: _one(inertia=_FakeInertia(1.0, (0, np.nan, 0))),
            "body 'a' inertia has a non-finite number",
        ),
        (lambda: _one(inertia=_FakeInertia(-1.0)), "body 'a' inertia has negative mass -1"),
        (lambda: _one(lower=1.0, upper=-1.0), r"joint 'ja'.*lower limit 1.0 > upper limit -1.0"),
        (lambda: _one(damping=-0.1), r"joint 'ja'.*negative damping coefficient -0.1"),
        (lambda: _one(friction=-1), r"joint 'ja'.*negative friction coefficient"),
        (lambda: _one(armature=-1), r"joint 'ja'.*negative armature coefficient"),
        (lambda: _one(velocity=-1), r"joint 'ja'.*negative velocity limit"),
        (lambda: _one(effort=-1), r"joint 'ja'.*negative effort limit"),
        (lambda: _one(damping=np.inf), r"joint 'ja'.*damping must be a finite"),
        (lambda: _one(mimic="ghost"), "mimic joint 'ja': leader joint 'ghost' does not exist"),
        (
            lambda: (
                _one()
                .add_body("b", "a", joint_name="jb", mimic="ja")
                .add_body("c", "b", joint_name="jc", mimic="jb")
            ),
            "mimic joint 'jc': leader joint 'jb' is itself a mimic joint",
        ),
        (
            lambda: (
                ModelBuilder()
                .add_body("base", "world", joint_name="fj", joint_type="free")
                .add_body("b", "base", joint_name="jb", mimic="fj")
            ),
            "mimic joint 'jb': leader joint 'fj' is a free joint",
        ),
        (lambda: _one(mimic="ja"), "mimic joint 'ja' cannot mimic itself"),
        (lambda: _one(T=_T(2 * np.eye(3))), r"joint 'ja'.*origin T is not a rigid transform"),
        (lambda: _one(T=np.diag([1.0, 1.0, -1.0, 1.0])), "origin T is not a rigid transform"),
        (lambda: _one(T=np.eye(3)), r"origin T must be a 4x4 transform, got shape \(3, 3\)"),
        (
            lambda: _one().add_body("b", "a", joint_name="jb", joint_type="spherical", mimic="ja"),
            r"joint 'jb'.*a spherical joint cannot be a mimic joint",
        ),
        (lambda: _one().add_frame("f", "a", _T(np.zeros((3, 3)))), "frame 'f' T is not a rigid"),
        (lambda: _one().set_gravity((0, 0, np.nan)), "model gravity has a non-finite number"),
        (lambda: _one().set_gravity((0, -9.81)), r"model gravity must have shape \(3,\)"),
    ],
)
@pytest.mark.parametrize("bulk", [False, True], ids=["one_by_one", "in_bulk"])
def test_build_errors_name_the_element(make, match, bulk, monkeypatch):
    # in_bulk: every model's transforms and inertias are first checked together in array
    # operations (as for a model of many bodies); the one that fails is named all the same
    import robodyn.model.builder as builder

    monkeypatch.setattr(builder, "_BULK", 1 if bulk else 10**9)
    with pytest.raises(ModelError, match=match):
        make().build()


@settings(max_examples=30, deadline=None)
@given(trees(min_bodies=2, max_bodies=8, mimic=None, damping=None))
def test_bodies_checked_in_bulk_make_the_same_model(tree):
    import robodyn.model.builder as builder

    models = []
    for bulk in (1, 10**9):
        old, builder._BULK = builder._BULK, bulk
        try:
            models.append(tree.build())
        finally:
            builder._BULK = old
    a, b = (m.arrays() for m in models)
    for name in a._fields:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=1e-15)


class _FakeInertia:
    """Duck-typed inertia that bypasses RigidInertia's own checks."""

    def __init__(self, mass, com=(0.0, 0.0, 0.0)):
        self.mass = mass
        self.com = np.asarray(com, float)
        self.inertia = np.zeros((3, 3))


def test_model_error_is_a_value_error():
    with pytest.raises(ValueError, match="unknown joint type"):
        _one(joint_type="gimbal").build()


def test_numbers_whose_products_overflow_are_refused_naming_the_element():
    # a 1e308 placement made the mass matrix all NaN (m |p|^2 = inf) while forward
    # dynamics returned 0; such numbers are a unit error, refused before any dynamics
    def build(**kw):
        return ModelBuilder().add_body("a", "world", **kw).build()

    with pytest.raises(ModelError, match=r"joint 'a_joint' \(body 'a'\) origin T translation: "
                       r"1e\+308 m is beyond robodyn's bound of 1e\+30 m"):  # fmt: skip
        build(T=_T(p=(0.0, 1e308, 0.0)))
    with pytest.raises(ModelError, match=r"body 'a' inertia mass: 1e\+40 kg is beyond"):
        build(inertia=RigidInertia(1e40, (0, 0, 0), np.eye(3)))
    with pytest.raises(ModelError, match=r"body 'a' inertia centre of mass: 2e\+31 m"):
        build(inertia=RigidInertia(1.0, (0, 0, 2e31), np.eye(3)))
    with pytest.raises(ModelError, match=r"body 'a' inertia inertia tensor: 1e\+91 kg m\^2"):
        build(inertia=RigidInertia(1.0, (0, 0, 0), np.eye(3) * 1e91))
    with pytest.raises(ModelError, match=r"frame 'tip' T translation: 1e\+35 m"):
        ModelBuilder().add_body("a", "world").add_frame("tip", "a", _T(p=(1e35, 0, 0))).build()


def test_an_axis_of_huge_entries_is_its_direction():
    # |(1e200, 0, 1e200)|^2 overflows: the axis became (0, 0, 0) without a word
    m = ModelBuilder().add_body("a", "world", axis=(1e200, 0.0, 1e200)).build()
    np.testing.assert_allclose(m.jnt_axis[1], [math.sqrt(0.5), 0.0, math.sqrt(0.5)])
    u = ModelBuilder().add_body("u", "world", joint_type="universal", axis=(0, 0, 1e300),
                                axis2=(0, 3e200, 4e200)).build()  # fmt: skip
    np.testing.assert_allclose(u.jnt_axis[1], [0, 0, 1])
    np.testing.assert_allclose(u.jnt_axis2[1], [0, 0.6, 0.8])
    with pytest.raises(ModelError, match="zero axis"):  # a direction too short to trust
        ModelBuilder().add_body("a", "world", axis=(1e-13, 0, 0)).build()


@settings(max_examples=40, deadline=None)
@given(trees(max_bodies=6, mimic=None, damping=None))
def test_the_builders_arrays_are_what_the_model_would_make_of_them(tree):
    # ModelBuilder hands its arrays to the Model as they are (model.built): each must be
    # what Model.__post_init__ would make of it (owned, read-only, C-contiguous, float64 or
    # int64 for the index arrays), so Model(**fields) rebuilds an equal model
    from robodyn.model.model import _INT_FIELDS, Model, _field_names

    model = tree.model
    fields = {name: getattr(model, name) for name in _field_names()}
    for name, value in fields.items():
        if not isinstance(value, np.ndarray):
            continue
        assert value.dtype == (np.int64 if name in _INT_FIELDS else np.float64), name
        assert value.base is None and not value.flags.writeable, name
        assert value.flags.c_contiguous, name
    again = Model(**fields)  # the checks of __post_init__ pass, and keep the arrays
    for name, value in fields.items():
        if isinstance(value, np.ndarray):
            assert getattr(again, name) is value, name
    assert np.all(model.body_parent[1:] < np.arange(1, model.nb))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5), st.integers(0, 4), st.booleans())
def test_frozen_arrays_equal_numpys_arrays_and_refuse_what_does_not_fit(n, m, as_arrays):
    # the builder's arrays come from model._native.frozen_arrays (C): each equal to numpy's
    # np.array of the same values (nested lists, arrays, 4x4 transforms' blocks), new,
    # read-only; a wrong length or type is a ValueError/TypeError, never a crash
    from robodyn.model._native import frozen_arrays

    rng = np.random.default_rng(n * 7 + m)
    vec = [rng.normal(size=3) if as_arrays else tuple(rng.normal(size=3)) for _ in range(n)]
    mat = [rng.normal(size=(3, 3)) for _ in range(n)]
    ints = [int(k) for k in rng.integers(-5, 5, size=m)]
    Ts = [np.vstack([rng.normal(size=(3, 4)), [0, 0, 0, 1]]) for _ in range(n)]
    got = frozen_arrays([(vec, "d", (n, 3)), (mat, "d", (n, 3, 3)), (ints, "q", (m,)),
                         (Ts, "R", (n, 3, 3)), (Ts, "p", (n, 3)), (9.81, "d", ())])  # fmt: skip
    want = [np.array(vec, float).reshape(n, 3), np.array(mat).reshape(n, 3, 3),
            np.array(ints, np.int64), np.array(Ts).reshape(n, 4, 4)[:, :3, :3],
            np.array(Ts).reshape(n, 4, 4)[:, :3, 3], np.array(9.81)]  # fmt: skip
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
        assert a.base is None and not a.flags.writeable and a.flags.c_contiguous
    with pytest.raises(ValueError, match="items where the shape says"):
        frozen_arrays([(vec, "d", (n + 1, 3))])
    with pytest.raises(TypeError, match="integer array"):
        frozen_arrays([([1.5], "q", (1,))])
    with pytest.raises(ValueError, match="code"):
        frozen_arrays([([1.0], "x", (1,))])
    with pytest.raises(ValueError, match="transform"):
        frozen_arrays([([np.eye(3)], "R", (1, 3, 3))])
