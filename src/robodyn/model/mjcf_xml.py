"""MJCF documents: a MuJoCo model's XML read as MuJoCo's parser reads it, before any body.

* :func:`read_document` reads the file or the text safely (DOCTYPE and ENTITY refused, as
  :func:`robodyn.model.urdf.parse_xml` does), replaces every ``<include file=...>`` by the
  children of the file it names (relative to the main file's folder, each file at most
  once), merges the ``<compiler>`` and ``<option>`` elements and collects the ``<default>``
  classes into a :class:`Defaults`.
* :meth:`Defaults.attrs` gives an element's attributes over its class's defaults: the class
  is the element's ``class``, else the ``childclass`` of the nearest enclosing body or
  frame, else ``"main"`` (the top-level ``<default>``); a nested class inherits its
  parent's. An orientation or ``fromto`` written on the element replaces the default's.
* :func:`numbers`, :func:`flag` and :func:`rotation` read attributes, with a ModelError
  naming the element and the attribute for what is malformed.

Orientations (MuJoCo's frame orientations; angles in degrees unless ``<compiler
angle="radian">``): ``quat="w x y z"`` (normalised), ``axisangle="x y z angle"``,
``euler="a b c"`` (three turns about the axes of ``<compiler eulerseq>``, default
``"xyz"``: a lower-case axis turns with the frame, so R = R_1 R_2 R_3; an upper-case one is
fixed in the parent, so it multiplies on the left), ``xyaxes="x1 x2 x3 y1 y2 y3"`` (y made
orthogonal to x, z = x cross y) and ``zaxis="z1 z2 z3"`` (the smallest rotation taking
(0, 0, 1) to z; a half turn about x when z points down). At most one per element.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .urdf import MAX_URDF_BYTES, parse_xml

__all__ = [
    "root_tag",
    "Compiler",
    "Defaults",
    "Document",
    "ORIENTATIONS",
    "read_document",
    "floats",
    "norm",
    "numbers",
    "number",
    "flag",
    "rotation",
    "quat_of_z",
    "quat_matrix",
    "segment_frame",
    "describe",
]

_MARKUP = re.compile(rb"<\?.*?\?>|<!--.*?-->|<!\w[^>]*>", re.S)  # declarations, comments
_TAG = re.compile(rb"<\s*([A-Za-z_][\w.:-]*)")


def root_tag(path_or_xml) -> str | None:
    """The name of the first element of an XML document (``"robot"`` for URDF, ``"mujoco"``
    for MJCF): a file path (its first 64 KiB read), or the XML as a string or bytes; None
    when there is none (what the readers choose by: :func:`robodyn.models.load`,
    :func:`robodyn.model.doctor.check_model`)."""
    if isinstance(path_or_xml, (bytes, bytearray)):
        head = bytes(path_or_xml[:65536])
    elif isinstance(path_or_xml, str) and path_or_xml.lstrip().startswith("<"):
        head = path_or_xml[:65536].encode("utf-8", "replace")
    else:
        with open(path_or_xml, "rb") as fh:
            head = fh.read(65536)
    found = _TAG.search(_MARKUP.sub(b"", head))
    return found.group(1).decode("ascii", "replace") if found else None


#: the attributes that orient a frame (at most one per element)
ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")
_EPS = 1e-14  # MuJoCo's smallest norm of an axis that orients a frame


@dataclass
class Compiler:
    """The ``<compiler>`` settings robodyn uses (MuJoCo's defaults)."""

    degree: bool = True  # angle="degree"
    eulerseq: str = "xyz"
    autolimits: bool = True
    inertiafromgeom: str = "auto"  # "true", "false" or "auto"
    inertiagrouprange: tuple[int, int] = (0, 5)
    boundmass: float = 0.0
    boundinertia: float = 0.0
    settotalmass: float = -1.0
    balanceinertia: bool = False
    strippath: bool = False
    meshdir: str | None = None
    assetdir: str | None = None
    alignfree: bool = False


class Defaults:
    """The ``<default>`` classes: ``classes[name][tag]`` is the attribute dict a class gives
    elements of that tag (its parent class's included)."""

    def __init__(self) -> None:
        self.classes: dict[str, dict[str, dict[str, str]]] = {"main": {}}

    def add(self, el: ET.Element, parent: str | None) -> None:
        """Read one ``<default>`` element and the classes nested in it; ``parent`` is the
        enclosing class (None for a top-level ``<default>``, which adds to "main")."""
        name = el.get("class") or "main"
        if parent is None and name == "main":
            mine = self.classes["main"]  # top-level defaults (one per included file) merge
        else:
            if name in self.classes:
                raise ModelError(f"<default class={name!r}> is defined twice")
            base = self.classes[parent or "main"]  # a class starts as a copy of its parent
            mine = self.classes[name] = {tag: dict(values) for tag, values in base.items()}
        for child in el:
            if child.tag != "default":
                mine[child.tag] = _replacing(mine.get(child.tag, {}), child)
        for child in el:
            if child.tag == "default":
                if not child.get("class"):
                    raise ModelError(f"a <default> nested in class {name!r} has no class name")
                self.add(child, name)

    def attrs(
        self, el: ET.Element, childclass: str | None, where: str, tag: str | None = None
    ) -> dict[str, str]:
        """The attributes of ``el`` over the defaults of its class (see the module) for
        elements of ``tag`` (default ``el.tag``; the equality elements share "equality")."""
        name = el.get("class") or childclass or "main"
        if name not in self.classes:
            raise ModelError(f"{where}: unknown default class {name!r}")
        out = _replacing(self.classes[name].get(tag or el.tag, {}), el)
        out.pop("class", None)
        return out


def _replacing(base: dict[str, str], el: ET.Element) -> dict[str, str]:
    """``base`` updated by ``el``'s attributes; an orientation or ``fromto`` on ``el``
    replaces the one in ``base`` (as MuJoCo's parser does)."""
    out = dict(base)
    if any(k in el.attrib for k in (*ORIENTATIONS, "fromto")):
        for k in (*ORIENTATIONS, "fromto"):
            out.pop(k, None)
    out.update(el.attrib)
    return out


@dataclass
class Document:
    """One MJCF model: its ``<mujoco>`` element (includes expanded) and global settings."""

    root: ET.Element
    origin: str  # the main file, or "<string>"
    folder: Path  # the main file's folder (the working folder for a text)
    compiler: Compiler
    defaults: Defaults
    gravity: np.ndarray  # (3,) <option gravity>, zero when <flag gravity="disable">
    name: str
    fluid: list[str] = field(default_factory=list)  # <option> fluid settings that are set


# ---------------------------------------------------------------------------- reading
def _source(path_or_xml) -> tuple[bytes, str, Path]:
    """(bytes, origin, folder) of a path, an XML string or bytes."""
    if isinstance(path_or_xml, (bytes, bytearray, memoryview)):
        return bytes(path_or_xml), "<bytes>", Path.cwd()
    if isinstance(path_or_xml, str) and path_or_xml.lstrip(" \t\r\n\ufeff").startswith("<"):
        data = path_or_xml.encode("utf-8")
        data = re.sub(rb"^\s*(\xef\xbb\xbf)?\s*<\?xml[^>]*\?>", b"", data, count=1)
        return data, "<string>", Path.cwd()
    if not isinstance(path_or_xml, (str, os.PathLike)):
        raise TypeError(
            f"path_or_xml must be a path, an XML string or bytes, got {type(path_or_xml).__name__}"
        )
    path = Path(os.fsdecode(os.fspath(path_or_xml)))
    if not path.is_file():
        raise FileNotFoundError(f"MJCF file not found: {path}")
    return _read_file(path, "MJCF file"), str(path), path.resolve().parent


def _read_file(path: Path, what: str) -> bytes:
    size = path.stat().st_size
    if size > MAX_URDF_BYTES:
        raise ModelError(f"{what} {path} is {size} bytes, more than {MAX_URDF_BYTES}")
    data = path.read_bytes()
    return data.lstrip(b" \t\r\n") if data.lstrip(b" \t\r\n").startswith(b"<?xml") else data


def _parse(data: bytes, origin: str) -> ET.Element:
    """The root element, by the URDF reader's safe parser (its messages say MJCF here)."""
    try:
        return parse_xml(data, origin)
    except ModelError as exc:
        raise ModelError(str(exc).replace("URDF", "MJCF", 1)) from None


def read_document(path_or_xml) -> Document:
    """Read an MJCF model into a :class:`Document` (see the module docstring).

    Parameters
    ----------
    path_or_xml : str, os.PathLike or bytes
        A file path, or the XML itself (a string whose first non-blank character is ``<``,
        or bytes). Included files and meshes of a text are looked up from the working
        folder.

    Returns
    -------
    Document

    Raises
    ------
    ModelError
        Not XML, unsafe XML, a root other than ``<mujoco>``, an ``<include>`` without a
        file, of a missing file or of a file included twice, bad ``<compiler>`` or
        ``<option>`` values, unknown or repeated default classes.
    FileNotFoundError
        A path that does not exist.
    """
    data, origin, folder = _source(path_or_xml)
    root = _parse(data, origin)
    if root.tag != "mujoco":
        raise ModelError(f"MJCF {origin}: root element is <{root.tag}>, expected <mujoco>")
    seen = {Path(origin).resolve()} if not origin.startswith("<") else set()
    _expand_includes(root, folder, seen)
    compiler = Compiler()
    for el in root.iter("compiler"):
        _read_compiler(el, compiler)
    defaults = Defaults()
    for el in root.findall("default"):
        defaults.add(el, None)
    gravity, fluid = _read_options(root)
    name = root.get("model") or (Path(origin).stem if not origin.startswith("<") else "mjcf")
    return Document(root, origin, folder, compiler, defaults, gravity, name, fluid)


def _expand_includes(el: ET.Element, folder: Path, seen: set[Path]) -> None:
    """Replace each ``<include file>`` below ``el`` by the children of the file's root."""
    kids: list[ET.Element] = []
    changed = False
    for child in el:
        if child.tag != "include":
            _expand_includes(child, folder, seen)
            kids.append(child)
            continue
        changed = True
        name = child.get("file")
        if not name:
            raise ModelError("<include> has no file attribute")
        path = Path(name) if os.path.isabs(name) else folder / name
        if not path.is_file():
            raise ModelError(f"<include file={name!r}>: no such file {str(path)!r}")
        if path.resolve() in seen:
            raise ModelError(f"<include file={name!r}>: the file is included twice (or itself)")
        seen.add(path.resolve())
        sub = _parse(_read_file(path, "included file"), str(path))
        _expand_includes(sub, folder, seen)  # nested includes: relative to the main file too
        if len(sub) == 0:
            raise ModelError(f"<include file={name!r}>: the file's root has no element")
        kids.extend(sub)
    if changed:
        el[:] = kids


_CHOICES = {"angle": ("radian", "degree"), "inertiafromgeom": ("true", "false", "auto"),
            "coordinate": ("local",)}  # fmt: skip


def _read_compiler(el: ET.Element, c: Compiler) -> None:
    where = "<compiler>"
    for key, allowed in _CHOICES.items():
        value = el.get(key)
        if value is not None and value not in allowed:
            raise ModelError(f"{where}: {key}={value!r} is not one of {', '.join(allowed)}")
    a = el.attrib
    if "angle" in a:
        c.degree = a["angle"] == "degree"
    if "eulerseq" in a:
        seq = a["eulerseq"]
        if len(seq) != 3 or any(ch not in "xyzXYZ" for ch in seq):
            raise ModelError(f"{where}: eulerseq={seq!r} must be 3 letters from x, y, z, X, Y, Z")
        c.eulerseq = seq
    if "inertiafromgeom" in a:
        c.inertiafromgeom = a["inertiafromgeom"]
    if "inertiagrouprange" in a:
        lo, hi = numbers(a, "inertiagrouprange", 2, where)
        c.inertiagrouprange = (int(lo), int(hi))
    for key in ("boundmass", "boundinertia", "settotalmass"):
        if key in a:
            setattr(c, key, number(a, key, where))
    for key in ("autolimits", "balanceinertia", "strippath", "alignfree"):
        if key in a:
            setattr(c, key, flag(a, key, where))
    for key in ("meshdir", "assetdir"):
        if key in a:
            setattr(c, key, a[key])


def _read_options(root: ET.Element) -> tuple[np.ndarray, list[str]]:
    """Gravity (zero when the gravity flag is disabled) and the fluid settings that are set
    (medium density, viscosity, wind: forces robodyn leaves out)."""
    g = np.array([0.0, 0.0, -9.81])
    fluid: list[str] = []
    for el in root.findall("option"):
        a = el.attrib
        if "gravity" in a:
            g = numbers(a, "gravity", 3, "<option>")
        for key, n in (("density", 1), ("viscosity", 1), ("wind", 3)):
            if key in a and np.any(numbers(a, key, n, "<option>") != 0):
                fluid.append(f"<option {key}={a[key]!r}>")
        for f in el.findall("flag"):
            if f.get("gravity") == "disable":
                g = np.zeros(3)
    return g, fluid


# ---------------------------------------------------------------------------- attributes
def describe(el: ET.Element, body: str | None = None) -> str:
    """How messages name an element: ``body 'b' <joint name='j'>``."""
    name = el.get("name")
    tag = f"<{el.tag} name={name!r}>" if name else f"<{el.tag}>"
    return tag if body is None else f"body {body!r} {tag}"


def floats(attrs, key: str, n, where: str, default=None) -> tuple[float, ...] | None:
    """The numbers of attribute ``key`` as a tuple of floats (``n``: the count, a tuple of
    allowed counts, or None for any), or ``default`` when it is absent; a ModelError naming
    ``where`` and the attribute for text that is not finite numbers or a wrong count."""
    raw = attrs.get(key)
    if raw is None:
        return default
    parts = raw.split()
    counts = (n,) if isinstance(n, int) else n
    if counts is not None and len(parts) not in counts:
        want = " or ".join(str(k) for k in counts)
        raise ModelError(f"{where} {key}={raw!r}: expected {want} numbers, got {len(parts)}")
    try:
        out = tuple(map(float, parts))
    except ValueError:
        raise ModelError(f"{where} {key}={raw!r}: not a number") from None
    if not all(map(math.isfinite, out)):
        raise ModelError(f"{where} {key}={raw!r}: not finite")
    return out


def numbers(attrs, key: str, n, where: str, default=None) -> np.ndarray | None:
    """The numbers of attribute ``key`` as an array (see :func:`floats`), or ``default``
    (as an array) when it is absent."""
    out = floats(attrs, key, n, where, default)
    return None if out is None else np.array(out, dtype=float)


def number(attrs, key: str, where: str, default: float | None = None) -> float | None:
    """One finite number (see :func:`numbers`)."""
    out = floats(attrs, key, 1, where)
    return default if out is None else out[0]


def flag(attrs, key: str, where: str, default: bool | None = None) -> bool | None:
    """A boolean attribute, ``"true"`` or ``"false"``."""
    raw = attrs.get(key)
    if raw is None:
        return default
    if raw not in ("true", "false"):
        raise ModelError(f"{where} {key}={raw!r}: expected 'true' or 'false'")
    return raw == "true"


def _quat_multiply(a, b) -> tuple[float, float, float, float]:
    """Hamilton product of two quaternions (w, x, y, z): (w1 w2 - v1 . v2, w1 v2 + w2 v1 +
    v1 x v2)."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    cx, cy, cz = _cross((x1, y1, z1), (x2, y2, z2))
    return (w1 * w2 - (x1 * x2 + y1 * y2 + z1 * z2), w1 * x2 + w2 * x1 + cx,
            w1 * y2 + w2 * y1 + cy, w1 * z2 + w2 * z1 + cz)  # fmt: skip


def _cross(a, b) -> tuple[float, float, float]:
    """a x b of two 3-vectors (the products and differences in numpy.cross's order)."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(v) -> float:
    """|v|, the squares summed in order (as numpy.linalg.norm of a short vector)."""
    return math.sqrt(sum(x * x for x in v))


def quat_matrix(q) -> np.ndarray:
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def quat_of_z(z) -> tuple[float, float, float, float]:
    """The smallest rotation taking (0, 0, 1) to the unit vector ``z``, as a quaternion: the
    axis ``e_z x z`` turned by ``atan2(|e_z x z|, z_3)``; a half turn about x when z points
    down (no unique axis)."""
    axis = _cross((0.0, 0.0, 1.0), z)
    s = norm(axis)
    axis = tuple(a / s for a in axis) if s >= 1e-10 else (1.0, 0.0, 0.0)
    half = 0.5 * math.atan2(s, z[2])
    sin = math.sin(half)
    return (math.cos(half), sin * axis[0], sin * axis[1], sin * axis[2])


def _unit(v, where: str, what: str) -> tuple[float, ...]:
    n = norm(v)
    if n < _EPS:
        raise ModelError(f"{where}: {what} is too small (zero vector)")
    return tuple(x / n for x in v)


def rotation(attrs, where: str, compiler: Compiler) -> np.ndarray:
    """The rotation (3, 3) an element's orientation attribute gives (identity without one);
    see the module docstring for each form."""
    given = [k for k in ORIENTATIONS if k in attrs]
    if len(given) > 1:
        raise ModelError(f"{where}: more than one orientation ({', '.join(given)}); give one")
    if not given:
        return np.eye(3)
    key = given[0]
    unit = math.pi / 180.0 if compiler.degree else 1.0
    if key == "quat":
        q = floats(attrs, "quat", 4, where)
        return quat_matrix(_unit(q, f"{where} quat", "the quaternion"))
    if key == "axisangle":
        aa = floats(attrs, "axisangle", 4, where)
        axis = _unit(aa[:3], f"{where} axisangle", "the axis")
        half = 0.5 * aa[3] * unit
        return quat_matrix((math.cos(half), *(math.sin(half) * a for a in axis)))
    if key == "euler":
        return _euler([a * unit for a in floats(attrs, "euler", 3, where)], compiler.eulerseq)
    if key == "xyaxes":
        xy = floats(attrs, "xyaxes", 6, where)
        x = _unit(xy[:3], f"{where} xyaxes", "the x axis")
        d = x[0] * xy[3] + x[1] * xy[4] + x[2] * xy[5]  # y made normal to x: y - (x . y) x
        y = _unit([xy[3 + i] - d * x[i] for i in range(3)], f"{where} xyaxes",
                  "the y axis (normal to x)")  # fmt: skip
        z = _unit(_cross(x, y), f"{where} xyaxes", "x cross y")
        return np.array([x, y, z]).T
    z = _unit(floats(attrs, "zaxis", 3, where), f"{where} zaxis", "the z axis")
    return quat_matrix(quat_of_z(z))


def _euler(angles, seq: str) -> np.ndarray:
    """Three turns about the axes of ``seq``: a lower-case (moving) axis multiplies on the
    right, an upper-case (fixed) one on the left."""
    q = (1.0, 0.0, 0.0, 0.0)
    for angle, axis in zip(angles, seq):
        turn = [math.cos(angle / 2), 0.0, 0.0, 0.0]
        turn[1 + "xyz".index(axis.lower())] = math.sin(angle / 2)
        q = _quat_multiply(q, turn) if axis.islower() else _quat_multiply(turn, q)
    n = norm(q)
    return quat_matrix([x / n for x in q])


def segment_frame(fromto, where: str) -> tuple[np.ndarray, float]:
    """The frame (4, 4) of a ``fromto="x1 y1 z1 x2 y2 z2"`` segment and its half length: the
    origin at its midpoint, z along it from the second point towards the first (MuJoCo's
    choice), turned from the parent's z by the smallest rotation (:func:`quat_of_z`)."""
    z = [fromto[i] - fromto[3 + i] for i in range(3)]
    half = norm(z) / 2
    if half < _EPS:
        raise ModelError(f"{where} fromto: the two points coincide")
    T = np.eye(4)
    T[:3, :3] = quat_matrix(quat_of_z([x / (2 * half) for x in z]))
    T[:3, 3] = [(fromto[i] + fromto[3 + i]) / 2 for i in range(3)]
    return T, half
