"""A URDF document's bytes -> its records (:class:`UrdfRobot`, :class:`UrdfLink`,
:class:`UrdfJoint`, :class:`UrdfInertial`, :class:`UrdfGeometry`), checking every number.

:func:`robot_from_bytes` is the reader: the bytes are refused if they declare a DTD or an
entity (:func:`refuse_unsafe`), then the compiled reader ``robodyn.model._native``
(``model/native/urdfread.c``) parses them with expat (Python's own parser, through pyexpat's C
interface) into a flat element tree and reads the ``<robot>`` from it. What it reads:

- ``<robot name>`` (default "robot"); its ``<material name><color rgba>`` elements, which a
  ``<visual><material name>`` without a colour of its own refers to (a colour that is not
  four numbers is dropped: it only matters to the viewer);
- each ``<link name>`` in document order: at most one ``<inertial>`` (``<origin xyz rpy>``,
  ``<mass value>`` required and >= 0, ``<inertia ixx ixy ixz iyy iyz izz>``, absent ones 0),
  its ``<collision>`` and ``<visual>`` geometries (``<origin>``, the first element inside
  ``<geometry>``: ``mesh filename scale``, ``box size``, ``cylinder``/``capsule radius
  length``, ``sphere radius``, anything else "unknown");
- each ``<joint name type>`` in document order: exactly one ``<parent link>`` and one
  ``<child link>``, ``<origin>``, ``<axis xyz>`` (default 1 0 0), ``<limit lower upper
  velocity effort>`` (absent attributes None), ``<dynamics damping friction armature>``,
  ``<mimic joint multiplier offset>``.

Where an element repeats, the first counts (as ElementTree's ``find``). Numbers are
decimals as URDF writes them (``[+-]?(d+.?d*|.d+)([eE][+-]?d+)?``, finite): the compiled
reader reads the plain ones itself and hands anything else to :func:`_scalar_text` /
:func:`_triple_text` / :func:`_rgba_text` here, and every structural problem to
:func:`_fail`, so each message is written once, in this file, naming the element and the
attribute.
"""

from __future__ import annotations

import math
import re
from typing import NoReturn

from ..errors import ModelError
from . import _native
from .urdf_description import UrdfGeometry, UrdfInertial, UrdfJoint, UrdfLink, UrdfRobot

__all__ = ["JOINT_TYPES", "JOINT_EXTENSIONS", "refuse_unsafe", "robot_from_bytes"]

# every joint type of the URDF specification: "planar" moves in the plane normal to its
# axis (q = (phi, x, y), v = the planar body twist), "floating" is a free joint anywhere
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "planar", "floating")
#: joint types outside the URDF specification that are read, each with the tool whose
#: extension it is: PyBullet's "spherical" is robodyn's spherical joint (q = unit
#: quaternion [qw, qx, qy, qz], v = body angular velocity; MuJoCo's URDF reader makes it a
#: ball joint), loaded with a warning naming the extension
JOINT_EXTENSIONS = {"spherical": "PyBullet"}

# A decimal number as URDF writes it; float() alone would also take "nan", "inf", "1_0".
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# Markup that may declare entities, in the encodings expat detects by itself.
_FORBIDDEN = tuple(
    (s[2:], s.encode(enc))
    for s in ("<!DOCTYPE", "<!ENTITY")
    for enc in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)
# their 8-bit forms: the others hold zero bytes, so a document without one cannot hold them
_FORBIDDEN_8BIT = tuple(f for f in _FORBIDDEN if b"\x00" not in f[1])


def refuse_unsafe(data: bytes, origin: str) -> None:
    """A ModelError if the raw bytes hold a ``<!DOCTYPE`` or ``<!ENTITY`` declaration (in
    UTF-8, UTF-16 or UTF-32; the single-byte encodings expat reads agree with ASCII on
    these characters): no entity is ever expanded, nothing is fetched."""
    for kind, bad in _FORBIDDEN if b"\x00" in data else _FORBIDDEN_8BIT:
        if bad in data:
            raise ModelError(
                f"URDF {origin} contains a <!{kind}> declaration; DTDs and entities are "
                "refused (no entity expansion, no external entities)"
            )


def robot_from_bytes(data: bytes, origin: str = "<urdf>") -> UrdfRobot:
    """The :class:`UrdfRobot` of a URDF document (see the module docstring).

    Parameters
    ----------
    data : bytes
        The document (any encoding expat reads: UTF-8, UTF-16, single-byte codecs).
    origin : str
        Where it came from, for messages.

    Raises
    ------
    ModelError
        Unsafe XML (a DTD or entity), XML that is not well-formed (line and column), a root
        element that is not ``<robot>``, no links, a link or joint without a name or with a
        repeated one, more than one ``<inertial>``, a missing or negative mass, a missing or
        unknown joint type, a missing, repeated or empty ``<parent>``/``<child>``, a
        ``<mimic>`` without ``joint``, a number that is not a finite decimal or a wrong
        count of numbers; each naming the element and the attribute.
    """
    refuse_unsafe(data, origin)
    return _native.urdf_read(data, origin, _KIT)


# ---------------------------------------------------------------------------- numbers
def _number(raw: str, where: str) -> float:
    """One finite decimal number; ``where`` names the element and attribute."""
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


def _plain(raw: str) -> bool:
    """``raw`` can only hold numbers :data:`_NUMBER` accepts wherever float() reads finite
    ones: ASCII, no "_" (float also reads "nan", "inf", "1_0" and non-ASCII digits, which
    are then either not finite or go to the pattern)."""
    return raw.isascii() and "_" not in raw


def _where(ctx: str, tag: str, attr: str, raw: str) -> str:
    return f"{ctx}<{tag} {attr}={raw!r}>"


def _scalar_text(ctx: str, tag: str, attr: str, raw: str) -> float:
    """The number of attribute ``attr`` of ``<tag>`` (in ``ctx``, e.g. "joint 'j1' "),
    written ``raw``, or the ModelError naming them."""
    if _plain(raw):
        try:
            x = float(raw)
        except ValueError:
            pass
        else:
            if x - x == 0.0:  # (0 for a finite x only)
                return x
    return _number(raw, _where(ctx, tag, attr, raw))


def _triple_text(ctx: str, tag: str, attr: str, raw: str) -> tuple[float, float, float]:
    """The three numbers of attribute ``attr`` (see :func:`_scalar_text`)."""
    parts = raw.split()
    if len(parts) == 3 and _plain(raw):
        try:
            xyz = tuple(map(float, parts))
        except ValueError:
            pass
        else:
            if all(x - x == 0.0 for x in xyz):
                return xyz  # type: ignore[return-value]
    where = _where(ctx, tag, attr, raw)
    if len(parts) != 3:
        raise ModelError(f"{where}: expected 3 numbers, got {len(parts)}")
    return tuple(_number(p, where) for p in parts)  # type: ignore[return-value]


def _rgba_text(raw: str):
    """A ``<color rgba>`` as four numbers, or None when it is not four finite numbers (a
    colour only matters to the viewer: a bad one is dropped, never an error)."""
    parts = raw.split()
    if len(parts) != 4:
        return None
    try:
        return tuple(_number(x, "<color rgba>") for x in parts)
    except ModelError:
        return None


# ---------------------------------------------------------------------------- messages
def _fail(code: str, *args) -> NoReturn:
    """Raise the ModelError of problem ``code`` found by the compiled reader (its arguments
    as the reader passes them)."""
    if code == "joint_type":
        name, jtype = args
        raise ModelError(
            f"joint {name!r}: unknown joint type {jtype!r} (expected one of "
            f"{', '.join(JOINT_TYPES)}, or PyBullet's 'spherical')"
        )
    raise ModelError(_MESSAGES[code](*args))


_MESSAGES = {
    "doctype": lambda origin: (
        f"URDF {origin} contains a DOCTYPE declaration; DTDs and entities are refused (unsafe XML)"
    ),
    "xml": lambda origin, line, column, what: (
        f"URDF {origin} is not well-formed XML (line {line}, column {column}): {what}"
    ),
    "xml_codec": lambda origin, exc: f"URDF {origin} is not well-formed XML: {exc}",
    "root": lambda origin, tag: f"URDF {origin}: root element is <{tag}>, expected <robot>",
    "nolinks": lambda origin, name: f"URDF {origin}: robot {name!r} has no <link>",
    "noname": lambda what, number: f"{what} number {number} (<{what}>) has no name attribute",
    "duplicate": lambda what, name: f"duplicate {what} name {name!r}",
    "inertials": lambda link, n: f"link {link!r} has {n} <inertial> elements (at most 1)",
    "mass": lambda link: f"link {link!r} <inertial>: missing <mass value=...>",
    "mass_value": lambda link: f"link {link!r} <inertial><mass>: missing attribute 'value'",
    "negative_mass": lambda link, raw, mass: (
        f"link {link!r} <inertial><mass value='{raw}'>: negative mass {mass:g} kg"
    ),
    "no_joint_type": lambda name: f"joint {name!r}: missing attribute 'type'",
    "joint_end": lambda name, what, tag: f"joint {name!r}: {what} <{tag} link=...>",
    "mimic": lambda name: f"joint {name!r} <mimic>: missing attribute 'joint'",
}

# what the compiled reader is handed: the Python side of each problem, then the records
_KIT = (_fail, _scalar_text, _triple_text, _rgba_text, frozenset((*JOINT_TYPES, *JOINT_EXTENSIONS)),
        UrdfRobot, UrdfLink, UrdfJoint, UrdfInertial, UrdfGeometry)  # fmt: skip
