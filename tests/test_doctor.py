"""Model doctor: one crafted URDF per finding kind; fix_urdf output loads and passes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import erd_path
from robodyn.errors import ModelError, ModelWarning
from robodyn.model.doctor import Report, check_model, fix_urdf, primitive_inertia
from robodyn.model.urdf import UrdfGeometry, load_urdf

BOX = '<collision><geometry><box size="0.1 0.2 0.3"/></geometry></collision>'


def _box_inertial(m=1.0, a=0.1, b=0.2, c=0.3, scale=1.0, products=(0.0, 0.0, 0.0)):
    """URDF <inertial> of a solid box, closed form I = m/12 diag(b^2+c^2, a^2+c^2, a^2+b^2)."""
    ixx, iyy, izz = (scale * m / 12 * v for v in (b * b + c * c, a * a + c * c, a * a + b * b))
    ixy, ixz, iyz = products
    return (
        f'<inertial><mass value="{m}"/><inertia ixx="{ixx!r}" ixy="{ixy!r}" ixz="{ixz!r}" '
        f'iyy="{iyy!r}" iyz="{iyz!r}" izz="{izz!r}"/></inertial>'
    )


def _urdf(l1_body: str, joint_extra: str = "", jtype: str = "revolute", extra: str = "") -> str:
    limit = '<limit lower="-1" upper="1" effort="10" velocity="2"/>'
    return f"""<robot name="doc">
  <link name="base"/>
  <link name="l1">{l1_body}</link>
  <joint name="j1" type="{jtype}"><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/>{joint_extra or limit}</joint>
  {extra}
</robot>"""


GOOD = _urdf(_box_inertial() + BOX)


def test_good_urdf_has_no_error_or_warning():
    rep = check_model(GOOD)
    assert isinstance(rep, Report) and rep.ok
    assert not rep.warnings
    assert "0 error(s), 0 warning(s)" in str(rep)
    assert check_model(load_urdf(GOOD)).ok


def test_massless_moving_link_is_an_error_and_load_still_reports():
    rep = check_model(_urdf(BOX))  # no <inertial>
    (f,) = [f for f in rep if f.kind == "massless_subtree"]
    assert f.severity == "error" and f.element == "joint 'j1'" and "'l1'" in f.message
    assert not rep.ok
    with pytest.warns(ModelWarning, match="joint 'j1': the revolute joint moves a massless"):
        model = load_urdf(_urdf(BOX))  # loads (RNEA, CRBA are defined), with a warning
    assert "massless_subtree" in check_model(model).kinds()


def test_non_physical_inertia_is_a_warning_and_a_non_psd_one_an_error():
    xml = _urdf(
        '<inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>'
        "</inertial>"
    )
    with pytest.warns(ModelWarning, match="triangle"):
        load_urdf(xml)
    with pytest.raises(ModelError, match="triangle"):
        load_urdf(xml, strict=True)
    rep = check_model(xml)
    (f,) = [f for f in rep if f.kind == "inertia_not_physical"]
    assert f.severity == "warning"
    assert f.element == "link 'l1'" and "triangle" in f.message and "1 + 1" not in f.message
    assert "3" in f.message
    neg = _urdf('<inertial><mass value="1"/><inertia ixx="-1" iyy="1" izz="1"/></inertial>')
    assert (
        "positive semi-definite"
        in [f for f in check_model(neg) if f.severity == "error"][0].message
    )


def _rod_tensor(k=1.0, e=0.05):
    """Slender rod along u = (1, 1, 1)/sqrt(3) plus a small isotropic part:
    I = k (1 - u u^T) + e 1, moments (e, k + e, k + e): physical."""
    u = np.ones(3) / np.sqrt(3)
    return k * (np.eye(3) - np.outer(u, u)) + e * np.eye(3)


def _inertia_xml(I, m=1.0):
    I = np.asarray(I).tolist()
    return (
        f'<inertial><mass value="{m}"/><inertia ixx="{I[0][0]!r}" ixy="{I[0][1]!r}" '
        f'ixz="{I[0][2]!r}" iyy="{I[1][1]!r}" iyz="{I[1][2]!r}" izz="{I[2][2]!r}"/></inertial>'
    )


def test_cad_product_sign_detected_and_fixed(tmp_path):
    P = _rod_tensor()
    # the CAD export writes +int xy dm: off-diagonal signs flipped. Closed form: the flipped
    # tensor is k/3 [[2,1,1],[1,2,1],[1,1,2]] + e 1 with moments (k/3 + e, k/3 + e, 4k/3 + e):
    # 2 (1/3 + 0.05) = 0.767 < 4/3 + 0.05 = 1.383, the triangle inequality fails.
    Q = P * (2 * np.eye(3) - 1)
    np.testing.assert_allclose(np.linalg.eigvalsh(Q), [1 / 3 + 0.05, 1 / 3 + 0.05, 4 / 3 + 0.05])
    xml = _urdf(_inertia_xml(Q) + BOX)
    rep = check_model(xml)
    (f,) = [f for f in rep if f.kind == "inertia_sign"]
    assert f.severity == "warning" and f.element == "link 'l1'" and "ixy" in f.fix
    src = tmp_path / "cad.urdf"
    src.write_text(xml)
    out = tmp_path / "fixed.urdf"
    changes = fix_urdf(src, out)
    assert src.read_text() == xml  # original untouched
    assert len(changes) == 1 and "flipped" in changes[0]
    assert "robodyn fix_urdf" in out.read_text()
    with pytest.warns(ModelWarning, match="implausible for its collision"):  # the test's box
        model = load_urdf(out)
    assert not [f for f in check_model(out) if f.kind in ("inertia_sign", "inertia_not_physical")]
    np.testing.assert_allclose(model.body_inertia[model.body_id("l1")], P, atol=1e-15)


def test_inertia_implausible_for_collision_box():
    # mass in kg but inertia in g m^2 (1000x): the closed-form box inertia is 1000x smaller
    rep = check_model(_urdf(_box_inertial(scale=1000.0) + BOX))
    (f,) = [f for f in rep if f.kind == "inertia_geometry"]
    assert f.severity == "warning" and "ratio 1e+03" in f.message
    assert "inertia_geometry" not in check_model(_urdf(_box_inertial(scale=5.0) + BOX)).kinds()


def test_primitive_inertia_closed_forms():
    m, c, I = primitive_inertia([UrdfGeometry("box", xyz=(0, 0, 0.5), size=(0.1, 0.2, 0.3))])
    assert m == pytest.approx(1000 * 0.006)
    np.testing.assert_allclose(c, [0, 0, 0.5])
    np.testing.assert_allclose(np.diag(I), m / 12 * np.array([0.13, 0.10, 0.05]))
    # cylinder along z rotated to x by rpy (0, pi/2, 0): I_xx = m r^2 / 2
    m, _, I = primitive_inertia(
        [UrdfGeometry("cylinder", rpy=(0, np.pi / 2, 0), radius=0.1, length=0.4)], mass=2.0
    )
    np.testing.assert_allclose(np.diag(I), [0.01, 2 * (0.03 + 0.16) / 12, 2 * 0.19 / 12])
    # two spheres of radius r at +-d: I_xx = 2 (2/5 m r^2), I_yy = I_zz = 2 (2/5 m r^2 + m d^2)
    s = [UrdfGeometry("sphere", xyz=(x, 0, 0), radius=0.1) for x in (-0.5, 0.5)]
    m, c, I = primitive_inertia(s, mass=2.0)
    np.testing.assert_allclose(c, 0, atol=1e-15)
    np.testing.assert_allclose(np.diag(I), [0.008, 0.508, 0.508])
    assert primitive_inertia([UrdfGeometry("mesh", filename="package://x.stl")]) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["box", "cylinder", "sphere"]),
            st.tuples(*[st.floats(-1, 1)] * 3),
            st.tuples(*[st.sampled_from([0.0, 0.3, -1.2, np.pi / 2])] * 3),
            st.tuples(*[st.floats(0.01, 1)] * 3),
        ),
        min_size=1,
        max_size=4,
    ),
    st.floats(0.01, 10),
)
def test_the_geometry_checks_diagonal_is_the_primitive_inertias(shapes, mass):
    # the load's geometry check sums the diagonal in plain floats (parallel axes); the
    # compound of primitive_inertia (numpy, R I R^T and compound) is the other road
    from robodyn.model.inertial import _primitive_diagonal

    geoms = []
    for kind, xyz, rpy, (a, b, c) in shapes:
        size = dict(box=dict(size=(a, b, c)), cylinder=dict(radius=a, length=b))
        geoms.append(UrdfGeometry(kind, xyz, rpy, **size.get(kind, dict(radius=a))))
    _, _, I = primitive_inertia(geoms, mass=mass)
    np.testing.assert_allclose(_primitive_diagonal(geoms, mass), np.diag(I), rtol=1e-12)
    # two spheres of radius r at +-d (the closed form above): 2/5 m r^2 + m d^2 off x
    two = [UrdfGeometry("sphere", xyz=(x, 0, 0), radius=0.1) for x in (-0.5, 0.5)]
    np.testing.assert_allclose(_primitive_diagonal(two, 2.0), [0.008, 0.508, 0.508])


@pytest.mark.parametrize(
    "limit, kind, severity",
    [
        ('<limit lower="0.5" upper="0.5" effort="1" velocity="1"/>', "limit_equal", "warning"),
        ('<limit effort="1" velocity="1"/>', "limit_equal", "warning"),  # URDF default 0, 0
        ('<limit lower="1" upper="-1" effort="1" velocity="1"/>', "limit_inverted", "error"),
        ('<limit lower="-1" upper="1" effort="0" velocity="1"/>', "effort_zero", "warning"),
        ('<limit lower="-1" upper="1" effort="1" velocity="0"/>', "velocity_zero", "warning"),
        ("<dynamics damping='0.1'/>", "limit_missing", "warning"),
    ],
)
def test_limit_findings(limit, kind, severity):
    xml = _urdf(_box_inertial() + BOX, joint_extra=limit)
    (f,) = [f for f in check_model(xml) if f.kind == kind]
    assert f.severity == severity and f.element == "joint 'j1'"
    if kind in ("limit_equal", "effort_zero", "velocity_zero"):
        assert kind in check_model(load_urdf(xml)).kinds()


def test_mimic_and_fixed_merged_are_info():
    extra = (
        '<link name="l2">' + _box_inertial() + "</link>"
        '<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/>'
        '<mimic joint="j1" multiplier="2" offset="0.5"/></joint>'
        '<link name="tool"/><joint name="jt" type="fixed"><parent link="l2"/>'
        '<child link="tool"/></joint>'
    )
    xml = _urdf(_box_inertial() + BOX, extra=extra)
    rep = check_model(xml)
    assert rep.ok
    (m,) = [f for f in rep if f.kind == "mimic"]
    assert m.severity == "info" and m.element == "joint 'j2'" and "2 * q_j1 + 0.5" in m.message
    (fx,) = [f for f in rep if f.kind == "fixed_merged"]
    assert fx.severity == "info" and "'tool'" in fx.message
    loaded = check_model(load_urdf(xml))
    assert {"mimic", "fixed_merged"} <= loaded.kinds() and loaded.ok
    text = str(rep)
    assert "[info] joint 'j2'" in text and "fix:" in text


def test_unparsable_and_broken_tree_are_reported():
    rep = check_model("<robot name='x'><link name='a'>")
    assert [f.kind for f in rep] == ["parse"] and not rep.ok
    two_roots = "<robot name='x'><link name='a'/><link name='b'/></robot>"
    assert "tree" in check_model(two_roots).kinds()


def test_fix_urdf_recomputes_from_collision_and_output_passes(tmp_path):
    extra = (
        '<link name="l2"><collision><origin xyz="0 0 0.2"/>'
        '<geometry><cylinder radius="0.05" length="0.4"/></geometry></collision></link>'
        '<joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/></joint>'
        '<link name="l3">' + _box_inertial(scale=1000.0) + BOX + "</link>"
        '<joint name="j3" type="fixed"><parent link="l1"/><child link="l3"/></joint>'
    )
    xml = _urdf(
        '<inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>'
        "</inertial>" + BOX,
        extra=extra,
    )
    before = check_model(xml)
    assert {"massless_subtree", "inertia_not_physical", "inertia_geometry"} <= before.kinds()
    src = tmp_path / "bad.urdf"
    src.write_text(xml)
    out = tmp_path / "good.urdf"
    changes = fix_urdf(src, out, density=2700.0)
    assert src.read_text() == xml
    assert len(changes) == 3
    after = check_model(out)
    assert after.ok, str(after)
    assert not after.kinds() & {"inertia_not_physical", "inertia_geometry", "massless_subtree"}
    model = load_urdf(out)
    # l2: solid aluminium cylinder, m = rho pi r^2 L, CoM at its centre, I_zz = m r^2 / 2
    m2 = 2700.0 * np.pi * 0.05**2 * 0.4
    i2 = model.body_id("l2")
    assert model.body_mass[i2] == pytest.approx(m2)
    np.testing.assert_allclose(model.body_com[i2], [0, 0, 0.2], atol=1e-12)
    assert model.body_inertia[i2][2, 2] == pytest.approx(m2 * 0.05**2 / 2)
    # l1: stated mass 2 kg kept, box tensor from the closed form; l3 (1 kg) merged into l1
    i1 = model.body_id("l1")
    assert model.body_mass[i1] == pytest.approx(3.0)
    np.testing.assert_allclose(
        np.diag(model.body_inertia[i1]), 3.0 / 12 * np.array([0.13, 0.10, 0.05]), rtol=1e-9
    )
    text = out.read_text()
    assert text.count("robodyn fix_urdf") >= 4  # header + one per changed link
    with pytest.raises(ValueError, match="out_path"):
        fix_urdf(src, src)
    # an existing output is kept unless overwrite=True (issue 27), then replaced whole
    before = out.read_text()
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        fix_urdf(src, out, density=2700.0)
    assert out.read_text() == before
    out.write_text("edited")
    fix_urdf(src, out, density=2700.0, overwrite=True)
    assert out.read_text() == before


def test_check_example_robot_data_model_runs():
    rep = check_model(erd_path("pr2_description/urdf/pr2.urdf"))
    # pr2.urdf: sensor_mount_link has moments (0.001, 0.001, 0.01): 0.002 < 0.01
    bad = [f for f in rep if f.element == "link 'sensor_mount_link'"]
    assert bad and bad[0].severity == "warning" and "triangle" in bad[0].message
    assert "mimic" in rep.kinds() and "fixed_merged" in rep.kinds()


def test_a_mimic_of_an_unknown_joint_is_a_warning():
    extra = (
        '<link name="l2">' + _box_inertial() + "</link>"
        '<joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/>'
        '<mimic joint="nope"/></joint>'
    )
    (f,) = [
        f
        for f in check_model(_urdf(_box_inertial() + BOX, extra=extra))
        if f.kind == "mimic_unknown"
    ]
    assert f.severity == "warning" and f.element == "joint 'j2'" and "'nope'" in f.message


def test_a_massless_subtree_is_one_finding_naming_the_joints_inside_it():
    # base -j1- l1 (box) -j2- l2 (no inertial) -j3- l3 (no inertial): j2 and j3 move no
    # mass; one error for the subtree under j2, which names j3 (the doctor listed every
    # joint's subtree again, n^2 / 2 link names for a massless chain of n links)
    limit = '<limit lower="-1" upper="1" effort="10" velocity="2"/>'
    extra = "".join(
        f'<link name="l{k}"/><joint name="j{k}" type="revolute"><parent link="l{k - 1}"/>'
        f'<child link="l{k}"/><origin xyz="0 0 0.2"/><axis xyz="0 1 0"/>{limit}</joint>'
        for k in (2, 3)
    )
    xml = _urdf(_box_inertial() + BOX, extra=extra)
    (f,) = [f for f in check_model(xml) if f.kind == "massless_subtree"]
    assert f.element == "joint 'j2'" and "links 'l2', 'l3'" in f.message
    assert "move no mass either: 'j3'" in f.message
    with pytest.warns(ModelWarning, match="joint 'j2': the revolute joint moves a massless"):
        model = load_urdf(xml)
    (g,) = [g for g in check_model(model) if g.kind == "massless_subtree"]
    assert g.element == "joint 'j2'" and "bodies 'l2', 'l3'" in g.message


def test_a_model_number_beyond_the_bounds_is_an_error():
    # a Model changed after it was built (the builder refuses such numbers): a 1e308 joint
    # origin makes the mass matrix NaN, the doctor names the joint
    import dataclasses

    model = load_urdf(GOOD)
    p = np.array(model.jnt_p)
    p[1] = (1e308, 0.0, 0.0)
    rep = check_model(dataclasses.replace(model, jnt_p=p))
    (f,) = [f for f in rep if f.kind == "overflow"]
    assert f.severity == "error" and f.element == "joint 'j1'"
    assert "origin: 1e+308 m is beyond robodyn's bound of 1e+30 m" in f.message
    assert check_model(model).ok


MJCF_SWING = """<mujoco model="swing">
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05" mass="2"/>
      <body name="tip" pos="0 0 -0.5">
        <joint name="slide" type="slide" axis="0 0 1"/>
        <site name="end"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="m" joint="hinge"/></actuator>
</mujoco>"""


def test_an_mjcf_document_is_checked_as_the_model_load_mjcf_makes(tmp_path):
    # an MJCF path or text: loaded by load_mjcf (its warning about what robodyn cannot
    # represent, the actuator, a finding), then the Model's checks: the slide joint moves
    # the massless body 'tip', an error naming it
    path = tmp_path / "swing.xml"
    path.write_text(MJCF_SWING)
    for source in (path, str(path), MJCF_SWING, MJCF_SWING.encode()):
        report = check_model(source)
        assert report.subject.startswith("MJCF robot 'swing'")
        assert {"mjcf_dropped", "massless_subtree"} <= report.kinds()
        [dropped] = [f for f in report if f.kind == "mjcf_dropped"]
        assert dropped.severity == "warning" and "actuator" in dropped.message
        [massless] = report.errors
        assert massless.element == "joint 'slide'" and "'tip'" in massless.message
    broken = MJCF_SWING.replace('type="hinge"', 'type="twist"')
    report = check_model(broken)
    assert [f.kind for f in report] == ["parse"] and "twist" in report.errors[0].message
    good = MJCF_SWING.replace("<site", '<geom type="sphere" size="0.05" mass="0.5"/><site')
    report = check_model(good)
    assert report.ok and report.kinds() == {"mjcf_dropped"}
