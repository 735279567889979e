"""The compiled URDF reader (model/urdfread.c, ``robot_from_bytes``) against an independent
reading of the same bytes by Python's ElementTree: the reader robodyn had before, kept here
as the oracle (``_reference``), on every example-robot-data URDF, on hypothesis mutations of
a URDF (attribute values, repeated and missing elements: the same records or the same
ModelError message), on number spellings and encodings, and on documents that are not
well-formed (the line and column pyexpat reports)."""

from __future__ import annotations

import copy
import math
import re
import xml.etree.ElementTree as ET
from xml.parsers import expat

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import erd_urdfs
from robodyn.errors import ModelError
from robodyn.model.urdf import load_urdf, parse_urdf, parse_xml
from robodyn.model.urdf_description import (
    UrdfGeometry,
    UrdfInertial,
    UrdfJoint,
    UrdfLink,
    UrdfRobot,
)
from robodyn.model.urdf_records import JOINT_EXTENSIONS, JOINT_TYPES, robot_from_bytes

# ------------------------------------------------------------------ the oracle: ElementTree
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def _number(raw: str, where: str) -> float:
    s = raw.strip()
    if not _NUMBER.fullmatch(s):
        low = s.lower().lstrip("+-")
        if low in ("nan", "inf", "infinity"):
            raise ModelError(f"{where}: {s!r} is not finite")
        raise ModelError(f"{where}: not a number")
    x = float(s)
    if not math.isfinite(x):
        raise ModelError(f"{where}: {s!r} is not finite (overflow)")
    return x


def _where(ctx, tag, attr, raw):
    return f"{ctx}<{tag} {attr}={raw!r}>"


def _scalar(el, attr, ctx, default):
    raw = el.get(attr)
    return default if raw is None else _number(raw, _where(ctx, el.tag, attr, raw))


def _required(el, attr, ctx):
    if el.get(attr) is None:
        raise ModelError(f"{ctx}<{el.tag}>: missing attribute {attr!r}")
    return _scalar(el, attr, ctx, None)


def _triple(el, attr, ctx, default):
    raw = None if el is None else el.get(attr)
    if raw is None:
        return default
    parts = raw.split()
    where = _where(ctx, el.tag, attr, raw)
    if len(parts) != 3:
        raise ModelError(f"{where}: expected 3 numbers, got {len(parts)}")
    return tuple(_number(p, where) for p in parts)


def _origin(el, ctx):
    o = el.find("origin")
    return _triple(o, "xyz", ctx, (0.0, 0.0, 0.0)), _triple(o, "rpy", ctx, (0.0, 0.0, 0.0))


def _name(el, what, index):
    name = el.get("name")
    if name is None or not name.strip():
        raise ModelError(f"{what} number {index + 1} (<{what}>) has no name attribute")
    return name


def _inertial(el, link):
    ctx = f"link {link!r} <inertial>"
    xyz, rpy = _origin(el, ctx)
    m_el = el.find("mass")
    if m_el is None:
        raise ModelError(f"{ctx}: missing <mass value=...>")
    mass = _required(m_el, "value", ctx)
    if mass < 0:
        raise ModelError(f"{ctx}<mass value='{m_el.get('value')}'>: negative mass {mass:g} kg")
    i_el = el.find("inertia")
    I = np.zeros((3, 3))
    if i_el is not None:
        xx, xy, xz, yy, yz, zz = (_scalar(i_el, k, ctx, 0.0) for k in _INERTIA_KEYS)
        I = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    return UrdfInertial(mass=mass, xyz=xyz, rpy=rpy, inertia=I)


def _rgba(el, materials):
    if el is None:
        return None
    color = el.find("color")
    raw = None if color is None else color.get("rgba")
    if raw is not None:
        parts = raw.split()
        try:
            return tuple(_number(x, "") for x in parts) if len(parts) == 4 else None
        except ModelError:
            return None
    return materials.get(el.get("name"))


def _shape(el, ctx, rgba):
    xyz, rpy = _origin(el, ctx)
    g = el.find("geometry")
    shape = None if g is None or len(g) == 0 else g[0]
    gctx = f"{ctx}<geometry>"
    kind = "unknown" if shape is None else shape.tag
    if kind == "mesh":
        scale = _triple(shape, "scale", gctx, (1.0, 1.0, 1.0))
        return UrdfGeometry(
            "mesh", xyz, rpy, filename=shape.get("filename"), scale=scale, rgba=rgba
        )
    if kind == "box":
        return UrdfGeometry(
            "box", xyz, rpy, size=_triple(shape, "size", gctx, (0.0,) * 3), rgba=rgba
        )
    if kind in ("cylinder", "capsule"):
        r, h = _scalar(shape, "radius", gctx, 0.0), _scalar(shape, "length", gctx, 0.0)
        return UrdfGeometry(kind, xyz, rpy, radius=r, length=h, rgba=rgba)
    if kind == "sphere":
        return UrdfGeometry(
            "sphere", xyz, rpy, radius=_scalar(shape, "radius", gctx, 0.0), rgba=rgba
        )
    return UrdfGeometry("unknown", xyz, rpy, rgba=rgba)


def _link(el, name, materials):
    inertials = el.findall("inertial")
    if len(inertials) > 1:
        raise ModelError(f"link {name!r} has {len(inertials)} <inertial> elements (at most 1)")
    inertial = _inertial(inertials[0], name) if inertials else None
    cols = tuple(_shape(c, f"link {name!r} <collision>", None) for c in el.findall("collision"))
    vis = tuple(
        _shape(v, f"link {name!r} <visual>", _rgba(v.find("material"), materials))
        for v in el.findall("visual")
    )
    return UrdfLink(name=name, inertial=inertial, collisions=cols, visuals=vis)


def _joint(el, name):
    ctx = f"joint {name!r} "
    jtype = el.get("type")
    if jtype is None:
        raise ModelError(f"joint {name!r}: missing attribute 'type'")
    if jtype not in JOINT_TYPES and jtype not in JOINT_EXTENSIONS:
        raise ModelError(
            f"joint {name!r}: unknown joint type {jtype!r} (expected one of "
            f"{', '.join(JOINT_TYPES)}, or PyBullet's 'spherical')"
        )
    ends = {}
    for tag in ("parent", "child"):
        found = el.findall(tag)
        if len(found) != 1 or not found[0].get("link"):
            what = "missing" if not found else ("repeated" if len(found) > 1 else "empty")
            raise ModelError(f"joint {name!r}: {what} <{tag} link=...>")
        ends[tag] = found[0].get("link")
    xyz, rpy = _origin(el, ctx)
    axis = _triple(el.find("axis"), "xyz", ctx, (1.0, 0.0, 0.0))
    lim = el.find("limit")
    lims = {k: None if lim is None else _scalar(lim, k, ctx, None) for k in
            ("lower", "upper", "velocity", "effort")}  # fmt: skip
    dyn = el.find("dynamics")
    dyns = {k: 0.0 if dyn is None else _scalar(dyn, k, ctx, 0.0) for k in
            ("damping", "friction", "armature")}  # fmt: skip
    mim = el.find("mimic")
    mimic, mult, off = None, 1.0, 0.0
    if mim is not None:
        mimic = mim.get("joint")
        if not mimic:
            raise ModelError(f"joint {name!r} <mimic>: missing attribute 'joint'")
        mult, off = _scalar(mim, "multiplier", ctx, 1.0), _scalar(mim, "offset", ctx, 0.0)
    return UrdfJoint(name=name, type=jtype, parent=ends["parent"], child=ends["child"], xyz=xyz,
                     rpy=rpy, axis=axis, has_limit=lim is not None, mimic=mimic,
                     multiplier=mult, offset=off, **lims, **dyns)  # fmt: skip


def _reference(data: bytes, origin: str) -> UrdfRobot:
    """What ElementTree reads from ``data``, with the URDF rules robodyn documents."""
    root = parse_xml(data, origin)
    if root.tag != "robot":
        raise ModelError(f"URDF {origin}: root element is <{root.tag}>, expected <robot>")
    robot = UrdfRobot(name=root.get("name") or "robot")
    materials = {m.get("name"): _rgba(m, {}) for m in root.findall("material")}
    for what, reader, into in (("link", _link, robot.links), ("joint", _joint, robot.joints)):
        for i, el in enumerate(root.findall(what)):
            name = _name(el, what, i)
            if name in into:
                raise ModelError(f"duplicate {what} name {name!r}")
            into[name] = reader(el, name, materials) if what == "link" else reader(el, name)
        if what == "link" and not robot.links:
            raise ModelError(f"URDF {origin}: robot {robot.name!r} has no <link>")
    return robot


# ------------------------------------------------------------------ comparing the two
def _outcome(read, data: bytes):
    """("ok", robot) or ("error", message) of one reader on ``data``."""
    try:
        return "ok", read(data, "<test>")
    except ModelError as exc:
        return "error", str(exc)


def _same_inertial(a: UrdfInertial | None, b: UrdfInertial | None) -> None:
    assert (a is None) == (b is None)
    if a is not None:
        assert (a.mass, a.xyz, a.rpy) == (b.mass, b.xyz, b.rpy)
        assert np.array_equal(a.inertia, b.inertia) and a.inertia.shape == (3, 3)
        assert a.inertia.dtype == np.float64 and not a.inertia.flags.writeable


def _same_robot(got: UrdfRobot, want: UrdfRobot) -> None:
    assert got.name == want.name
    assert list(got.links) == list(want.links) and list(got.joints) == list(want.joints)
    for name, link in got.links.items():
        other = want.links[name]
        assert link.name == other.name
        _same_inertial(link.inertial, other.inertial)
        assert link.collisions == other.collisions and link.visuals == other.visuals
    assert got.joints == want.joints
    for j in got.joints.values():  # floats are floats, tuples tuples (== would take ints)
        assert all(type(x) is float for x in (*j.xyz, *j.rpy, *j.axis, j.damping, j.multiplier))


def _agree(data: bytes) -> None:
    kind, got = _outcome(robot_from_bytes, data)
    want_kind, want = _outcome(_reference, data)
    assert kind == want_kind, (got, want)
    if kind == "ok":
        _same_robot(got, want)
    else:
        assert got == want


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("path", erd_urdfs(), ids=lambda p: p.rsplit("/", 1)[-1])
def test_every_example_robot_data_urdf_reads_as_elementtree_reads_it(path):
    with open(path, "rb") as f:
        data = f.read()
    _agree(data)  # (ur3.urdf has no <link>: the same error from both)
    kind, robot = _outcome(robot_from_bytes, data)
    if kind == "ok":
        assert parse_urdf(path).links.keys() == robot.links.keys() != set()


SEED = """<?xml version="1.0"?>
<robot name="seed">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base"><inertial><origin xyz="0 0 0.1" rpy="0 0 0"/><mass value="2"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><origin xyz="0 0 0"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
    <visual><geometry><mesh filename="package://p/m.stl" scale="1 1 1"/></geometry>
      <material name="red"/></visual>
  </link>
  <link name="l1"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
    <visual><origin rpy="0 1.5 0"/><geometry><cylinder radius="0.1" length="0.4"/></geometry>
      <material name="blue"><color rgba="0 0 1 0.5"/></material></visual>
    <collision><geometry><sphere radius="0.2"/></geometry></collision></link>
  <link name="l2"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 1" rpy="0 0.5 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="2" effort="3"/><dynamics damping="0.1" friction="0"/>
  </joint>
  <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/>
    <mimic joint="j1" multiplier="2" offset="0.5"/></joint>
</robot>"""

VALUES = st.sampled_from(
    ["", "0", "-1", "1e400", "-1e400", "nan", "inf", "-Infinity", "abc", "1 2", "1 2 3",
     "1 2 3 4", " 0 0 0 ", "base", "l1", "j1", "fixed", "floating", "spherical", "revolute",
     "1_0", "\u00e9", "-0", "1e-300", "+.5", "5.", "1e", ".e1", "0x10", "\uff11", "1\t2\n3",
     "1e308 1e308 1e308", " 7 ", "1.5E+03", "--1", "1..2"]
)  # fmt: skip


TAGS = ["link", "joint", "origin", "mass", "inertial", "limit", "material", "visual", "geometry"]


@st.composite
def mutated(draw) -> bytes:
    root = ET.fromstring(SEED)
    elements = list(root.iter())
    for _ in range(draw(st.integers(1, 4))):
        el = draw(st.sampled_from(elements))
        if el is not root and not any(el in list(p) for p in root.iter()):
            continue  # (dropped by an earlier mutation)
        action = draw(st.sampled_from(["set", "set", "set", "drop", "copy", "rename"]))
        if action == "set":
            attr = draw(st.sampled_from(sorted(el.attrib) or ["name", "value", "xyz"]))
            el.set(attr, draw(VALUES | st.text(alphabet="0123456789+-.eE \t", max_size=12)))
        elif el is not root:
            parent = next(p for p in root.iter() if el in list(p))
            if action == "drop":
                parent.remove(el)
            elif action == "copy":
                parent.append(copy.deepcopy(el))
            else:
                el.tag = draw(st.sampled_from(TAGS))
    return ET.tostring(root)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_urdfs_give_the_same_records_or_the_same_error(data):
    _agree(data)


@settings(max_examples=300, deadline=None)
@given(VALUES | st.text(alphabet="0123456789+-.eE _\t\n\u00a0\u2003x", max_size=16))
def test_number_spellings_read_as_float_reads_decimals(text):
    quoted = text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    quoted = quoted.replace("\t", "&#9;").replace("\n", "&#10;")  # (kept, not normalised)
    mass = f'<mass value="{quoted}"/>'
    _agree(f'<robot><link name="a"><inertial>{mass}</inertial></link></robot>'.encode())
    _agree(f'<robot><link name="a"/><joint name="j" type="fixed"><parent link="a"/><child '
           f'link="b"/><origin xyz="{quoted}"/></joint></robot>'.encode())  # fmt: skip


@pytest.mark.parametrize(
    "text, value",
    [("2", 2.0), (" 0.25 ", 0.25), ("+.5", 0.5), ("5.", 5.0), ("1.5E+03", 1500.0),
     ("-0", -0.0), ("1e-300", 1e-300), ("&#9;3&#10;", 3.0)],
)  # fmt: skip
def test_decimal_masses_read_exactly(text, value):
    robot = robot_from_bytes(f'<robot><link name="a"><inertial><mass value="{text}"/>'
                             f"</inertial></link></robot>".encode())  # fmt: skip
    mass = robot.links["a"].inertial.mass
    assert mass == value and math.copysign(1.0, mass) == math.copysign(1.0, value)


@pytest.mark.parametrize(
    "text, message",
    [("nan", "'nan' is not finite"), ("1e400", "'1e400' is not finite (overflow)"),
     ("1_0", "not a number"), ("0x10", "not a number"), ("1 2", "not a number")],
)  # fmt: skip
def test_numbers_that_are_not_finite_decimals_are_refused_naming_the_attribute(text, message):
    with pytest.raises(ModelError) as err:
        robot_from_bytes(f'<robot><link name="a"><inertial><mass value="{text}"/>'
                         f"</inertial></link></robot>".encode())  # fmt: skip
    assert str(err.value) == f"link 'a' <inertial><mass value={text!r}>: {message}"


@pytest.mark.parametrize(
    "encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "iso-8859-1", "iso-8859-15", "cp1252"]
)
def test_encodings_give_the_names_pyexpat_gives(encoding):
    text = SEED.replace('"l2"', '"l\u00e92"')  # a link and a joint end named "l\u00e92"
    decl = f'<?xml version="1.0" encoding="{encoding.replace("-sig", "")}"?>'
    data = (decl + text.split("?>", 1)[1]).encode(encoding)
    _agree(data)
    if encoding != "utf-16-le":  # (a declared "utf-16-le" is refused by pyexpat too)
        assert "l\u00e92" in robot_from_bytes(data).links


@pytest.mark.parametrize(
    "doc",
    [b"", b"<robot>", b"<robot><link name='a'></robot>", b"<robot name='a' name='b'/>",
     b"<robot>\n  <link name='a'/>\n  <joint name='&bad;'/></robot>", b"<a/><b/>",
     b"\xff\xfe<\x00r\x00", b"<robot><link name='\xff'/></robot>"],
)  # fmt: skip
def test_xml_that_is_not_well_formed_is_refused_with_expats_line_and_column(doc):
    with pytest.raises(ModelError) as err:
        robot_from_bytes(doc, "x.urdf")
    parser = expat.ParserCreate()
    with pytest.raises(expat.ExpatError) as exc:
        parser.Parse(doc, True)
    e = exc.value
    want = f"URDF x.urdf is not well-formed XML (line {e.lineno}, column {e.offset}): "
    assert str(err.value) == want + expat.ErrorString(e.code)


@pytest.mark.parametrize(
    "doc",
    ['<!DOCTYPE r [<!ENTITY a "b">]><robot><link name="&a;"/></robot>',
     '<?xml version="1.0"?><!DOCTYPE robot SYSTEM "file:///etc/passwd"><robot/>'],
)  # fmt: skip
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_dtds_and_entities_are_refused_in_every_encoding(doc, encoding):
    with pytest.raises(ModelError, match="DTDs and entities are refused"):
        robot_from_bytes(doc.encode(encoding))


def test_records_are_the_frozen_classes_and_reading_leaks_nothing():
    import gc
    import sys

    good = SEED.encode()
    bad = SEED.replace('value="2"', 'value="-2"').encode()
    robot = robot_from_bytes(good)
    assert type(robot) is UrdfRobot and type(robot.links["base"]) is UrdfLink
    assert type(robot.joints["j1"]) is UrdfJoint
    with pytest.raises(AttributeError):
        robot.joints["j1"].lower = 0.0  # (frozen)
    assert robot.links["base"].visuals[0].rgba == (1.0, 0.0, 0.0, 1.0)  # the named material
    assert robot.links["l1"].visuals[0].rgba == (0.0, 0.0, 1.0, 0.5)

    def read_both(n: int) -> None:
        for _ in range(n):
            robot_from_bytes(good)
            try:
                robot_from_bytes(bad)
            except ModelError:
                pass

    read_both(200)  # (warm)
    gc.collect()
    before = sys.getallocatedblocks()
    read_both(2000)
    gc.collect()
    assert sys.getallocatedblocks() - before < 200  # (a leak of one object a call: 2000+)


def test_load_urdf_reads_through_the_compiled_reader():
    model = load_urdf(SEED)
    assert model.joint_names == ("j1",) and model.nq == 1
    assert model.jnt_mimic_mult[-1] == 2.0
