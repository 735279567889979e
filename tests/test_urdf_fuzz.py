"""Fuzzing the URDF loader: any input gives a Model or a ModelError, never another exception."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robodyn.errors import ModelError
from robodyn.model.model import Model
from robodyn.model.urdf import load_urdf

SEED = """<robot name="fuzz">
  <link name="base"><inertial><origin xyz="0 0 0.1" rpy="0 0 0"/><mass value="2"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><origin xyz="0 0 0"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
  </link>
  <link name="l1"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <link name="l2"/>
  <link name="l3"><inertial><mass value="0.5"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 1" rpy="0 0.5 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="2" effort="3"/><dynamics damping="0.1" friction="0"/>
  </joint>
  <joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.5" velocity="1" effort="10"/></joint>
  <joint name="j3" type="continuous"><parent link="l2"/><child link="l3"/>
    <mimic joint="j1" multiplier="2" offset="0"/></joint>
  <joint name="j4" type="fixed"><parent link="l3"/><child link="tip"/></joint>
  <link name="tip"/>
</robot>"""

VALUES = st.sampled_from(
    ["", "0", "-1", "1e400", "nan", "inf", "abc", "1 2", "1 2 3", "0 0 0", "base", "l1", "j1",
     "fixed", "floating", "revolute", "1_0", "&amp;", "\u00e9", "-0", "1e-300"]
)  # fmt: skip


def _outcome(src) -> None:
    for floating in (False, True):
        try:
            model = load_urdf(src, floating)
        except ModelError:
            continue
        assert isinstance(model, Model)


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=3000))
def test_arbitrary_bytes(data):
    _outcome(data)


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=500))
def test_arbitrary_text_as_xml(text):
    _outcome("<" + text)
    _outcome(("<robot name='x'>" + text).encode("utf-8", "surrogatepass"))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_valid_urdf(data):
    root = ET.fromstring(SEED)
    elements = list(root.iter())
    for _ in range(data.draw(st.integers(1, 6))):
        el = data.draw(st.sampled_from(elements))
        op = data.draw(st.sampled_from(["drop_attr", "alter_attr", "add_attr", "dup", "drop"]))
        if op == "drop_attr" and el.attrib:
            del el.attrib[data.draw(st.sampled_from(sorted(el.attrib)))]
        elif op == "alter_attr" and el.attrib:
            el.set(data.draw(st.sampled_from(sorted(el.attrib))), data.draw(VALUES))
        elif op == "add_attr":
            key = data.draw(
                st.sampled_from(["name", "type", "link", "xyz", "rpy", "value", "joint"])
            )
            el.set(key, data.draw(VALUES))
        elif op in ("dup", "drop") and el is not root:
            parent = next(p for p in root.iter() if el in list(p))
            if op == "dup":
                parent.append(copy.deepcopy(el))
            else:
                parent.remove(el)
                elements = list(root.iter())
    text = ET.tostring(root, encoding="unicode")
    _outcome(text)
    _outcome(text.encode()[: data.draw(st.integers(0, len(text.encode())))])


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", "d"]),
            st.sampled_from(["a", "b", "c", "d", "e"]),
            st.sampled_from(["revolute", "continuous", "prismatic", "fixed", "floating", "x"]),
            st.sampled_from(["0 0 1", "0 0 0", "1 0", "nan 0 0", "1 1 1"]),
        ),
        max_size=6,
    ),
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=0, max_size=5),
)
def test_random_link_joint_graphs(joints, links):
    body = "".join(f'<link name="{n}"/>' for n in links)
    body += "".join(
        f'<joint name="j{k}" type="{t}"><parent link="{p}"/><child link="{c}"/>'
        f'<axis xyz="{ax}"/></joint>'
        for k, (p, c, t, ax) in enumerate(joints)
    )
    _outcome(f'<robot name="g">{body}</robot>')
