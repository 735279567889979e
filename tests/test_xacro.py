"""xacro files (issue 32): rd.load_urdf("robot.urdf.xacro", xacro_args=..., search_path=...)
expands macros, properties, arguments, includes and $(find pkg) through the xacro package;
the oracle is the same robot written out as plain URDF here (and Pinocchio's model of that
text), each file written in the test."""

from __future__ import annotations

import sys

import numpy as np
import pinocchio as pin
import pytest
import xacro  # noqa: F401 (in the test extra: a missing xacro fails, never skips)

import robodyn as rd
from robodyn.dynamics import inverse_dynamics, mass_matrix
from robodyn.errors import ModelError
from robodyn.model.urdf import load_urdf
from robodyn.model.xacro import find_package

# A package "my_arm" in a workspace: a macro file included with $(find my_arm), a robot
# file with an argument (the link prefix), properties and expressions.
PACKAGE_XML = "<package format='3'><name>my_arm</name><version>0.1.0</version></package>"

LINK_MACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="arm_link" params="name mass length radius">
    <link name="${name}">
      <inertial>
        <origin xyz="0 0 ${length / 2}"/>
        <mass value="${mass}"/>
        <inertia ixx="${mass * (3 * radius**2 + length**2) / 12}" ixy="0" ixz="0"
                 iyy="${mass * (3 * radius**2 + length**2) / 12}" iyz="0"
                 izz="${mass * radius**2 / 2}"/>
      </inertial>
      <visual><geometry><mesh filename="package://my_arm/meshes/link.stl"/></geometry></visual>
    </link>
  </xacro:macro>
</robot>
"""

ROBOT_XACRO = """<?xml version="1.0"?>
<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="prefix" default=""/>
  <xacro:arg name="upper" default="0.5"/>
  <xacro:property name="prefix" value="$(arg prefix)"/>
  <xacro:property name="L" value="0.4"/>
  <xacro:include filename="$(find my_arm)/urdf/link.xacro"/>
  <link name="${prefix}base"/>
  <xacro:arm_link name="${prefix}upper" mass="2.0" length="${L}" radius="0.05"/>
  <xacro:arm_link name="${prefix}fore" mass="1.5" length="${L * 0.75}" radius="0.04"/>
  <joint name="${prefix}shoulder" type="revolute">
    <parent link="${prefix}base"/><child link="${prefix}upper"/>
    <origin xyz="0 0 0.1" rpy="0 0 ${pi / 4}"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="50" velocity="2"/>
  </joint>
  <joint name="${prefix}elbow" type="revolute">
    <parent link="${prefix}upper"/><child link="${prefix}fore"/>
    <origin xyz="0 0 ${L}"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="$(arg upper)" effort="30" velocity="3"/>
  </joint>
</robot>
"""


def _inertia(m, length, r) -> str:
    side = m * (3 * r**2 + length**2) / 12
    return (
        f'<inertial><origin xyz="0 0 {length / 2!r}"/><mass value="{m!r}"/>'
        f'<inertia ixx="{side!r}" ixy="0" ixz="0" iyy="{side!r}" iyz="0" '
        f'izz="{m * r**2 / 2!r}"/></inertial>'
    )


def plain_urdf(prefix: str = "", upper: float = 0.5) -> str:
    """The same robot, written out by hand."""
    mesh = (
        '<visual><geometry><mesh filename="package://my_arm/meshes/link.stl"/></geometry></visual>'
    )
    return (
        f'<robot name="arm"><link name="{prefix}base"/>'
        f'<link name="{prefix}upper">{_inertia(2.0, 0.4, 0.05)}{mesh}</link>'
        f'<link name="{prefix}fore">{_inertia(1.5, 0.4 * 0.75, 0.04)}{mesh}</link>'
        f'<joint name="{prefix}shoulder" type="revolute"><parent link="{prefix}base"/>'
        f'<child link="{prefix}upper"/><origin xyz="0 0 0.1" rpy="0 0 {np.pi / 4!r}"/>'
        '<axis xyz="0 1 0"/><limit lower="-1.5" upper="1.5" effort="50" velocity="2"/></joint>'
        f'<joint name="{prefix}elbow" type="revolute"><parent link="{prefix}upper"/>'
        f'<child link="{prefix}fore"/><origin xyz="0 0 0.4"/><axis xyz="0 1 0"/>'
        f'<limit lower="-2" upper="{upper!r}" effort="30" velocity="3"/></joint></robot>'
    )


STL = """solid t
facet normal 0 0 -1
 outer loop
  vertex 0 0 0
  vertex 0.05 0 0
  vertex 0 0.05 0
 endloop
endfacet
facet normal 0 -1 0
 outer loop
  vertex 0 0 0
  vertex 0 0 0.4
  vertex 0.05 0 0
 endloop
endfacet
facet normal -1 0 0
 outer loop
  vertex 0 0 0
  vertex 0 0.05 0
  vertex 0 0 0.4
 endloop
endfacet
facet normal 1 1 1
 outer loop
  vertex 0.05 0 0
  vertex 0 0 0.4
  vertex 0 0.05 0
 endloop
endfacet
endsolid t
"""


@pytest.fixture
def workspace(tmp_path):
    """A workspace ``ws/src/group/my_arm`` (package.xml, urdf/, meshes/); returns ws/src."""
    pkg = tmp_path / "ws" / "src" / "group" / "my_arm"
    (pkg / "urdf").mkdir(parents=True)
    (pkg / "meshes").mkdir()
    (pkg / "package.xml").write_text(PACKAGE_XML)
    (pkg / "urdf" / "link.xacro").write_text(LINK_MACRO)
    (pkg / "urdf" / "arm.urdf.xacro").write_text(ROBOT_XACRO)
    (pkg / "meshes" / "link.stl").write_text(STL)
    return tmp_path / "ws" / "src"


def _assert_same_model(a, b):
    assert (a.body_names, a.joint_names, a.frame_names) == (
        b.body_names,
        b.joint_names,
        b.frame_names,
    )
    for name, x in a.arrays()._asdict().items():
        np.testing.assert_allclose(x, getattr(b.arrays(), name), rtol=0, atol=1e-15, err_msg=name)
    np.testing.assert_array_equal(a.q_lower, b.q_lower)
    np.testing.assert_array_equal(a.q_upper, b.q_upper)


def test_a_xacro_file_loads_as_the_same_robot_written_in_urdf(workspace, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    path = workspace / "group" / "my_arm" / "urdf" / "arm.urdf.xacro"
    model = load_urdf(path, search_path=[workspace])  # $(find my_arm), 2 levels down
    plain = load_urdf(plain_urdf())
    _assert_same_model(model, plain)
    assert model.source == str(path)
    # Pinocchio reads the plain text: the xacro robot has its dynamics
    pm = pin.buildModelFromXML(plain_urdf())
    pd = pm.createData()
    rng = np.random.default_rng(2)
    for _ in range(3):
        q, v, a = rng.uniform(-1, 0.5, size=(3, 2))
        M = pin.crba(pm, pd, q)
        np.testing.assert_allclose(mass_matrix(model, q), np.triu(M) + np.triu(M, 1).T, atol=1e-14)
        tau = pin.rnea(pm, pd, q, v, a)
        np.testing.assert_allclose(inverse_dynamics(model, q, v, a), tau, atol=1e-13)


def test_xacro_args_and_ros_package_path(workspace, monkeypatch):
    path = workspace / "group" / "my_arm" / "urdf" / "arm.urdf.xacro"
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(workspace))  # found there, no search_path
    model = load_urdf(str(path), xacro_args={"prefix": "left_", "upper": 1.25})
    _assert_same_model(model, load_urdf(plain_urdf("left_", 1.25)))
    assert model.joint_names == ("left_shoulder", "left_elbow")
    assert rd.models.load(path).joint_names == ("shoulder", "elbow")  # by its file name
    # the package folder itself on the path, and xacro text given as a string
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(workspace / "group" / "my_arm"))
    text = path.read_text()
    from_text = load_urdf(text, xacro_args={})
    _assert_same_model(from_text, load_urdf(plain_urdf()))
    _assert_same_model(load_urdf(text.encode(), xacro_args={}), from_text)  # and its bytes
    assert find_package("my_arm") == workspace / "group" / "my_arm"


def test_a_missing_package_is_named(workspace, monkeypatch, tmp_path):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    path = workspace / "group" / "my_arm" / "urdf" / "arm.urdf.xacro"
    with pytest.raises(ModelError, match=r"package 'my_arm' \(\$\(find my_arm\)\) not found"):
        load_urdf(path, search_path=[tmp_path / "elsewhere"])
    broken = tmp_path / "broken.urdf.xacro"  # xacro's own errors, naming the file
    broken.write_text(ROBOT_XACRO.replace("${L * 0.75}", "${L * scale}"))
    with pytest.raises(ModelError, match=r"xacro .*broken.urdf.xacro: .*scale"):
        load_urdf(broken, search_path=[workspace])
    with pytest.raises(FileNotFoundError):
        load_urdf(tmp_path / "none.urdf.xacro")


def test_without_the_xacro_package_the_error_names_the_extra(workspace, monkeypatch):
    monkeypatch.setitem(sys.modules, "xacro", None)  # as if not installed
    path = workspace / "group" / "my_arm" / "urdf" / "arm.urdf.xacro"
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'robodyn\[xacro\]'"):
        load_urdf(path, search_path=[workspace])


def test_package_meshes_are_found_through_the_same_search_path(workspace, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    path = workspace / "group" / "my_arm" / "urdf" / "arm.urdf.xacro"
    model = load_urdf(path, search_path=[workspace / "group"])
    meshes = [g for _, _, g in model.visuals if g.kind == "mesh"]
    assert len(meshes) == 2 and all(
        g.filename == "package://my_arm/meshes/link.stl" for g in meshes
    )
    view = rd.viz.show(model)  # no search_path here: the model's is used
    assert view.scene.missing == []
    assert len(view.scene.meshes) == 1  # one file, drawn twice
    np.testing.assert_allclose(view.scene.meshes[0]["positions"].max(axis=0), [0.05, 0.05, 0.4])
    # the plain text without the search path: the viewer cannot find the package
    assert rd.viz.show(load_urdf(plain_urdf())).scene.missing != []
