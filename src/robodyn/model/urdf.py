"""URDF loader: a safe XML parse, a plain description of the URDF, then a :class:`Model`.

The loading happens in three steps, each its own function:

1. :func:`parse_xml` turns the bytes into an element tree *safely*: DOCTYPE and ENTITY
   declarations are refused before and during parsing (no entity expansion, no external
   entities, no network), and nothing but the given file is ever read (``package://`` and
   mesh file names are only recorded).
2. :func:`parse_urdf` reads the ``<robot>`` element into plain dataclasses
   (:class:`UrdfRobot`, :class:`UrdfLink`, :class:`UrdfJoint`, ...; defined in
   :mod:`robodyn.model.urdf_description`), checking every number. The model doctor
   (:mod:`robodyn.model.doctor`) works on this description, so it can report on a URDF
   that does not load; the inertial checks both use live below both, in
   :mod:`robodyn.model.inertial`.
3. :func:`load_urdf` checks the tree (:func:`kinematic_tree`) and feeds the links and joints
   to :class:`~robodyn.model.builder.ModelBuilder` in the order urdfdom and Pinocchio use
   (depth first, sibling joints sorted by name), so ``model.joint_names`` is in Pinocchio's
   q order.

Conventions (URDF specification): ``<origin xyz rpy>`` with fixed-axis roll-pitch-yaw
``R = Rz(yaw) Ry(pitch) Rx(roll)``; ``<inertia ixx ixy ixz iyy iyz izz>`` are the entries of
the inertia tensor about the CoM in the ``<inertial><origin>`` frame, so the tensor in the
link frame is ``I_c = R I R^T``; ``<axis>`` defaults to ``(1, 0, 0)``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import stat
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple
from xml.parsers import expat

import numpy as np

from ..errors import ModelError, ModelWarning
from ..inertia import compound
from ..spatial import rpy_to_rotation
from .builder import MAX_INERTIA, MAX_LENGTH, MAX_MASS, ModelBuilder
from .inertial import (
    NEGLIGIBLE_NEGATIVE,
    balanced_inertia,
    geometry_problem,
    inertia_scale,
    inertial_issue,
    inertial_problem,
    negligible_negative,
)
from .joints import unique_name
from .model import Model, finished, replaced
from .urdf_description import (
    UrdfGeometry,
    UrdfInertial,
    UrdfJoint,
    UrdfLink,
    UrdfRobot,
    placement,
)
from .urdf_records import JOINT_EXTENSIONS, JOINT_TYPES, refuse_unsafe, robot_from_bytes
from .xacro import expand_xacro, is_xacro

__all__ = [
    "MAX_URDF_BYTES",
    "JOINT_TYPES",
    "JOINT_EXTENSIONS",
    "UrdfGeometry",
    "UrdfInertial",
    "UrdfLink",
    "UrdfJoint",
    "UrdfRobot",
    "read_source",
    "read_document",
    "parse_xml",
    "parse_urdf",
    "kinematic_tree",
    "inertial_issue",
    "inertial_problem",
    "massless_subtrees",
    "magnitude_problems",
    "load_urdf",
    "model_from_urdf",
    "extension_message",
    "robot_from_bytes",
]

MAX_URDF_BYTES = 50 * 1024 * 1024  # refuse larger inputs (a real URDF is < 1 MB)


# ---------------------------------------------------------------------------- safe XML
def read_source(path_or_xml) -> tuple[bytes, str]:
    """Return the raw bytes of a URDF given as a path, an XML string or bytes.

    Every source takes the same road (:func:`read_document`): whitespace before the
    ``<?xml`` declaration is dropped from a file and from bytes as from a string.

    Parameters
    ----------
    path_or_xml : str, os.PathLike or bytes
        A file path, or the XML itself (a string whose first non-blank character is
        ``<``, or bytes).

    Returns
    -------
    (bytes, str)
        The document and a short description of where it came from (for messages).
    """
    data, origin, _ = read_document(path_or_xml)
    return data, origin


def read_document(path_or_xml) -> tuple[bytes, str, int]:
    """:func:`read_source`, also returning how many characters of whitespace stood before
    the ``<?xml`` declaration (0 for a well-formed document).

    XML allows nothing before its declaration (XML 1.0, section 2.8), and expat refuses
    such a document; a blank line there is common in generated files, and Pinocchio and
    PyBullet read them. The whitespace (after a UTF-8 byte order mark, if any) is dropped
    whatever the source, so a file, its bytes and its text load alike; the loader warns.
    A string is already decoded: its declaration is dropped too (the encoding it names
    no longer applies to the UTF-8 bytes parsed).
    """
    if isinstance(path_or_xml, (bytes, bytearray, memoryview)):
        data, origin = bytes(path_or_xml), "<bytes>"
    elif isinstance(path_or_xml, str) and path_or_xml.lstrip(" \t\r\n\ufeff").startswith("<"):
        data, origin = path_or_xml.encode("utf-8"), "<string>"
    elif isinstance(path_or_xml, (str, os.PathLike)):
        data, origin = _read_file(path_or_xml)
    else:
        raise TypeError(
            f"path_or_xml must be a path, an XML string or bytes, got {type(path_or_xml).__name__}"
        )
    if len(data) > MAX_URDF_BYTES:
        what = "string" if origin == "<string>" else origin
        raise ModelError(f"URDF {what} is {len(data)} bytes, more than {MAX_URDF_BYTES}")
    data, blank = _declaration_first(data)
    if origin == "<string>":
        data = _DECLARATION.sub(b"", data, count=1)
    return data, origin, blank


_BOM = b"\xef\xbb\xbf"  # UTF-8 byte order mark
# whitespace (and byte order marks) before an XML declaration; the declaration itself
_BEFORE_DECLARATION = re.compile(rb"(?:[ \t\r\n]|\xef\xbb\xbf)+(?=<\?xml[ \t\r\n?])")
_DECLARATION = re.compile(rb"^(?:\xef\xbb\xbf)?<\?xml[^>]*\?>")


def _declaration_first(data: bytes) -> tuple[bytes, int]:
    """``data`` with the whitespace before its ``<?xml`` declaration dropped, and the number
    of whitespace characters dropped (0: nothing stood there, or there is no declaration)."""
    if data[:1] not in (b" ", b"\t", b"\r", b"\n", b"\xef"):
        return data, 0
    m = _BEFORE_DECLARATION.match(data)
    blank = 0 if m is None else len(m.group().replace(_BOM, b""))
    return (data[m.end() :], blank) if blank else (data, 0)


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _read_file(path_or_xml) -> tuple[bytes, str]:
    """The bytes of the file ``path_or_xml`` names, and its name."""
    text = os.fspath(path_or_xml)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\n" in text or "\x00" in text or len(text) > 4096:
        raise ModelError("path_or_xml is neither XML (it does not start with '<') nor a path")
    try:  # (non-blocking: a FIFO would block a plain open; refused below as not a file)
        fd = os.open(text, _OPEN_FLAGS)
    except (OSError, ValueError):
        fd = None
    try:
        st = None if fd is None else os.fstat(fd)
        if st is None or not stat.S_ISREG(st.st_mode):
            if (
                isinstance(path_or_xml, os.PathLike)
                or "/" in text
                or os.sep in text
                or Path(text).suffix
            ):
                raise FileNotFoundError(f"URDF file not found: {text}")
            raise ModelError(
                f"path_or_xml {text[:60]!r} is neither XML (no leading '<') nor an existing file"
            )
        if st.st_size > MAX_URDF_BYTES:
            raise ModelError(f"URDF file {text} is {st.st_size} bytes, more than {MAX_URDF_BYTES}")
        return _read_all(fd, st.st_size), text
    finally:
        if fd is not None:
            os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    """The file's bytes (``size`` of them by its stat), up to one past MAX_URDF_BYTES: a
    file that grew since its stat is read on, in 64 kB pieces, to its end or there."""
    data = os.read(fd, size + 1)
    if len(data) <= size:
        return data
    chunks, total = [data], len(data)
    while total <= MAX_URDF_BYTES:
        piece = os.read(fd, min(1 << 16, MAX_URDF_BYTES + 1 - total))
        if not piece:
            break
        chunks.append(piece)
        total += len(piece)
    return b"".join(chunks)


def _refuse(what: str):
    def handler(*args):
        raise ModelError(f"URDF contains a {what}; DTDs and entities are refused (unsafe XML)")

    return handler


def parse_xml(
    data: bytes, origin: str = "<bytes>", *, comments: bool = False, text: bool = True
) -> ET.Element:
    """Parse XML bytes with expat, refusing DOCTYPE and ENTITY declarations.

    The raw bytes are scanned for ``<!DOCTYPE`` / ``<!ENTITY`` first; the expat handlers for
    doctype, entity and external-entity events raise as well (defence in depth, e.g. for
    encodings the scan misses), so no entity is ever expanded and nothing is fetched.

    Parameters
    ----------
    data : bytes
        The document.
    origin : str
        Where it came from, for messages.
    comments : bool
        Keep comments in the tree (``fix_urdf`` writes them back).
    text : bool
        Keep the elements' text (False: ``.text`` and ``.tail`` stay None; URDF keeps its
        numbers in attributes, and the loader reads faster without the text).

    Returns
    -------
    xml.etree.ElementTree.Element
        The root element.
    """
    refuse_unsafe(data, origin)
    builder = ET.TreeBuilder(insert_comments=comments)
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("DOCTYPE declaration")
    parser.EntityDeclHandler = _refuse("ENTITY declaration")
    parser.UnparsedEntityDeclHandler = _refuse("unparsed ENTITY declaration")
    parser.ExternalEntityRefHandler = _refuse("external entity reference")
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    if text:
        parser.CharacterDataHandler = builder.data
    if comments:
        parser.CommentHandler = builder.comment
    try:
        parser.Parse(data, True)
        root = builder.close()
    except expat.ExpatError as exc:
        where = f"line {exc.lineno}, column {exc.offset}"
        raise ModelError(
            f"URDF {origin} is not well-formed XML ({where}): {expat.ErrorString(exc.code)}"
        ) from None
    except (AssertionError, IndexError, ValueError) as exc:  # TreeBuilder on a broken stream
        if isinstance(exc, ModelError):
            raise
        raise ModelError(f"URDF {origin} is not well-formed XML: {exc}") from None
    if not isinstance(root.tag, str):
        raise ModelError(f"URDF {origin} has no root element")
    return root


def parse_urdf(path_or_xml) -> UrdfRobot:
    """Read a URDF into a plain :class:`UrdfRobot` (no tree checks, no inertia checks).

    Parameters
    ----------
    path_or_xml : str, os.PathLike or bytes
        A file path, an XML string or bytes (see :func:`read_source`).

    Returns
    -------
    UrdfRobot

    Raises
    ------
    ModelError
        Not XML, unsafe XML, root element not ``<robot>``, no links, duplicate names,
        unknown joint types, numbers that are not finite decimals, wrong component counts,
        negative mass.
    """
    data, origin = read_source(path_or_xml)
    return robot_from_bytes(data, origin)


# ---------------------------------------------------------------------------- tree
def kinematic_tree(robot: UrdfRobot) -> tuple[str, dict[str, list[UrdfJoint]]]:
    """Check that the links and joints form one tree; return its root and child joints.

    Parameters
    ----------
    robot : UrdfRobot

    Returns
    -------
    (str, dict)
        The root link and, for each link, its child joints sorted by joint name (the
        order of urdfdom and Pinocchio).

    Raises
    ------
    ModelError
        A joint names a missing link, a link has two parent joints, there is no root
        (a cycle), two roots, or links unreachable from the root (a cycle).
    """
    parent_joint: dict[str, UrdfJoint] = {}
    children: dict[str, list[UrdfJoint]] = {name: [] for name in robot.links}
    for j in robot.joints.values():
        for role, link in (("parent", j.parent), ("child", j.child)):
            if link not in robot.links:
                raise ModelError(f"joint {j.name!r}: <{role} link={link!r}> names no link")
        if j.child in parent_joint:
            raise ModelError(
                f"link {j.child!r} has two parent joints: {parent_joint[j.child].name!r} and "
                f"{j.name!r}"
            )
        parent_joint[j.child] = j
        children[j.parent].append(j)
    roots = [name for name in robot.links if name not in parent_joint]
    if not roots:
        raise ModelError(
            f"the joints form a cycle: every link has a parent joint, no root link "
            f"(e.g. {_cycle_text(next(iter(robot.links)), parent_joint)})"
        )
    if len(roots) > 1:
        shown = ", ".join(repr(r) for r in roots[:10]) + (" ..." if len(roots) > 10 else "")
        raise ModelError(
            f"the URDF has {len(roots)} root links (links with no parent joint): {shown}; "
            "a URDF must be one tree"
        )
    for kids in children.values():
        kids.sort(key=lambda j: j.name.encode("utf-8"))
    seen = {roots[0]}
    stack = [roots[0]]
    while stack:
        for j in children[stack.pop()]:
            seen.add(j.child)
            stack.append(j.child)
    lost = [name for name in robot.links if name not in seen]
    if lost:
        raise ModelError(f"the joints form a cycle: {_cycle_text(lost[0], parent_joint)}")
    return roots[0], children


def _cycle_text(start: str, parent_joint: dict[str, UrdfJoint]) -> str:
    path, link = [start], start
    while link in parent_joint:
        link = parent_joint[link].parent
        if link in path:
            path.append(link)
            path = path[path.index(link) :]
            break
        path.append(link)
    joints = [parent_joint[c].name for c in path[:-1]]
    return (
        "links "
        + " <- ".join(repr(p) for p in path)
        + " (joints "
        + ", ".join(repr(n) for n in joints)
        + ")"
    )


class _RawInertia(NamedTuple):
    """(mass, com, inertia) handed to the builder as written (implausible values kept)."""

    mass: float
    com: np.ndarray  # (3,)
    inertia: np.ndarray  # (3, 3) about the CoM


_FIX = "fix it with rd.fix_urdf(path, out_path) or robodyn check ROBOT --fix OUT"


def _implausible(message: str, strict: bool, notes: list[str]) -> None:
    """A physically implausible but usable description: a ModelWarning (ModelError when
    ``strict``), recorded in the model's notes."""
    if strict:
        raise ModelError(f"{message} (load_urdf(strict=True))")
    notes.append(message)
    warnings.warn(message, ModelWarning, stacklevel=_outside_robodyn())


def _adapted(message: str, notes: list[str]) -> None:
    """A description outside the URDF specification whose intent is unambiguous (whitespace
    before the XML declaration, PyBullet's spherical joint): read as meant, with a
    ModelWarning (whatever ``strict``: the physics is not in doubt), recorded in the notes."""
    notes.append(message)
    warnings.warn(message, ModelWarning, stacklevel=_outside_robodyn())


def _outside_robodyn() -> int:
    """The stacklevel of the first caller outside the robodyn package (the user's
    load_urdf or models.load line), so the warning points at the user's code."""
    import sys

    frame, level = sys._getframe(1), 1
    while frame is not None and _in_robodyn(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _in_robodyn(filename: str) -> bool:
    return (filename if os.path.isabs(filename) else os.path.abspath(filename)).startswith(_PACKAGE)


INVALID_INERTIA = ("error", "balance", "keep")


@dataclass
class _InertiaPolicy:
    """How :func:`_link_inertia` treats the inertias of one load: ``strict``, what to do with
    an ``invalid`` (not positive semi-definite) one, the ``notes`` to record in, and the
    robot's inertia scale (computed on first need: only a non-PSD tensor needs it).
    ``flagged`` collects the links whose ``<inertial>`` had an issue (the geometry check
    skips them: :func:`~robodyn.model.inertial.geometry_problem` compares physical ones)."""

    links: dict[str, UrdfLink]
    strict: bool
    invalid: str
    notes: list[str]
    _scale: float | None = None
    flagged: set = dataclasses.field(default_factory=set)

    def scale(self) -> float:
        if self._scale is None:
            self._scale = inertia_scale(self.links.values())
        return self._scale


def _link_inertia(link: UrdfLink, policy: _InertiaPolicy):
    """(m, c, I_c) of a link in its own frame; a ModelError for a description that makes
    the dynamics undefined (unless ``invalid`` is "balance" or "keep", or the negative
    principal moment is negligible), a ModelWarning (ModelError when strict) for an
    implausible one."""
    inertial = link.inertial
    if inertial is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    issue = inertial_issue(inertial)
    if issue is None:
        return inertial.mass, inertial.com, inertial.inertia_link
    policy.flagged.add(link.name)
    severity, problem = issue
    if severity == "error" and inertial.mass >= 0 and policy.invalid == "error":
        low = negligible_negative(inertial.inertia, policy.scale())
        if low is not None:
            return _negligible_negative(link, problem, low, policy)
    if severity == "error" and (policy.invalid == "error" or inertial.mass < 0):
        why = "" if inertial.mass < 0 else f" ({_beyond_negligible(inertial, policy)})"
        raise ModelError(
            f"link {link.name!r} <inertial>: {problem}: the dynamics are undefined{why}; "
            f"{_FIX}" + ("" if inertial.mass < 0 else
            ", or load with invalid_inertia='balance' (the nearest physical tensor, "
            "as MuJoCo's balanceinertia) or 'keep' (as written, as Pinocchio does)")
        )  # fmt: skip
    if severity == "error" and policy.invalid == "balance":
        I = balanced_inertia(inertial.inertia)
        R = rpy_to_rotation(inertial.rpy)
        _implausible(
            f"link {link.name!r} <inertial>: {problem}; replaced by the nearest physical "
            f"tensor (invalid_inertia='balance'), principal moments "
            f"{np.array2string(np.linalg.eigvalsh(I), precision=6)}; {_FIX}",
            policy.strict,
            policy.notes,
        )
        return inertial.mass, inertial.com, R @ I @ R.T
    _implausible(
        f"link {link.name!r} <inertial>: {problem}; kept as written (as Pinocchio "
        f"loads it); {_FIX}",
        policy.strict,
        policy.notes,
    )
    return inertial.mass, inertial.com, inertial.inertia_link


def _scale_text(policy: _InertiaPolicy) -> str:
    return (
        f"{NEGLIGIBLE_NEGATIVE:g} of the robot's inertia scale {policy.scale():.6g} kg m^2, "
        "the largest principal moment of any link"
    )


def _beyond_negligible(inertial: UrdfInertial, policy: _InertiaPolicy) -> str:
    low = float(np.linalg.eigvalsh(0.5 * (inertial.inertia + inertial.inertia.T))[0])
    return f"the negative moment {low:.6g} kg m^2 is more than {_scale_text(policy)}"


def _negligible_negative(link: UrdfLink, problem: str, low: float, policy: _InertiaPolicy):
    """A tensor whose negative principal moment ``low`` is negligible against the robot's
    inertia scale: (m, c, I_c) with the nearest physical tensor, and one warning naming it
    (its entries as the URDF would write them)."""
    inertial = link.inertial
    I = balanced_inertia(inertial.inertia)
    entries = (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2])
    tensor = " ".join(f'{k}="{v:.9g}"' for k, v in zip(_INERTIA_KEYS, entries))
    _implausible(
        f"link {link.name!r} <inertial>: {problem}; negligible ({low:.3g} kg m^2 is within "
        f"{_scale_text(policy)}): read as round-off and replaced by the nearest physical "
        "tensor, its principal moments clipped at 0 (then, if I1 + I2 < I3, I1 and I2 raised "
        f"by half the deficit each): <inertia {tensor}/>; {_FIX}",
        policy.strict,
        policy.notes,
    )
    R = rpy_to_rotation(inertial.rpy)
    return inertial.mass, inertial.com, R @ I @ R.T


_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def _numbers(xs) -> str:
    return " ".join(f"{x:g}" for x in xs)


def magnitude_problems(robot: UrdfRobot) -> list[tuple[str, str]]:
    """The numbers of a URDF too large for the dynamics: a length (joint or inertial
    ``<origin xyz>``) beyond :data:`~robodyn.model.builder.MAX_LENGTH` (1e30 m), a mass
    beyond ``MAX_MASS`` (1e30 kg) or an inertia entry beyond ``MAX_INERTIA`` (1e90 kg m^2).
    Finite as they are, the products the algorithms form from them (m |c|^2, R p, the
    composite inertia of a chain) overflow float64 into inf and NaN: a 1e308 joint origin
    made the mass matrix all NaN while forward dynamics returned 0.

    Returns
    -------
    list of (element, message)
        ``element`` as the doctor names it (``"joint 'j'"``, ``"link 'l'"``), ``message``
        naming the attribute, the number and the bound.
    """
    if _within_bounds(robot):  # (the common case, in one pass over plain floats)
        return []
    out = []

    def beyond(xs, bound, unit, element, where):
        big = max((abs(x) for x in xs), default=0.0)
        if big > bound:
            out.append(
                (element, f"{where}: {big:.3g} {unit} is beyond robodyn's bound of "
                 f"{bound:.0e} {unit} (the dynamics' products of such numbers overflow "
                 "float64); check the units")
            )  # fmt: skip

    for j in robot.joints.values():
        beyond(j.xyz, MAX_LENGTH, "m", f"joint {j.name!r}", f"<origin xyz='{_numbers(j.xyz)}'>")
    for link in robot.links.values():
        i = link.inertial
        if i is None:
            continue
        el = f"link {link.name!r}"
        beyond(i.xyz, MAX_LENGTH, "m", el, f"<inertial><origin xyz='{_numbers(i.xyz)}'>")
        beyond((i.mass,), MAX_MASS, "kg", el, f"<inertial><mass value='{i.mass:g}'>")
        beyond(np.ravel(i.inertia), MAX_INERTIA, "kg m^2", el, "<inertial><inertia>")
    return out


def _within_bounds(robot: UrdfRobot) -> bool:
    """Every length, mass and inertia entry within the bounds of :func:`magnitude_problems`
    (which then finds nothing): the largest magnitude of each kind, over plain floats."""
    length = mass = inertia = 0.0
    for j in robot.joints.values():
        length = max(length, *map(abs, j.xyz))
    for link in robot.links.values():
        i = link.inertial
        if i is not None:
            length = max(length, *map(abs, i.xyz))
            mass = max(mass, abs(i.mass))
            inertia = max(inertia, *map(abs, i.inertia.ravel().tolist()))
    return length <= MAX_LENGTH and mass <= MAX_MASS and inertia <= MAX_INERTIA


def _subtree_links(link: str, children) -> list[str]:
    out, stack = [], [link]
    while stack:
        name = stack.pop()
        out.append(name)
        stack.extend(j.child for j in children.get(name, []))
    return out


def _preorder(robot: UrdfRobot, children) -> list[str]:
    """Every link reachable from the root links (links that are no joint's child), parents
    before children."""
    has_parent = {j.child for js in children.values() for j in js}
    order: list[str] = []
    stack = [name for name in reversed(robot.links) if name not in has_parent]
    while stack:
        name = stack.pop()
        order.append(name)
        stack.extend(j.child for j in reversed(children.get(name, [])))
    return order


def massless_subtrees(robot: UrdfRobot, children) -> list[tuple[str, list[str], list[str]]]:
    """Moving joints whose whole child subtree has no mass (M gets a zero row and column).

    One entry per massless moving subtree, for its outermost moving joint: the moving
    joints inside it move no mass either (their subtrees are parts of it). Linear in the
    number of links: one pass from the leaves tells which subtrees carry mass, one from
    the root collects the massless ones (each link is visited a bounded number of times,
    so a 10,000-link chain takes milliseconds, not minutes).

    Parameters
    ----------
    robot : UrdfRobot
    children : dict
        link name -> child joints (:func:`kinematic_tree`).

    Returns
    -------
    list of (joint name, subtree links, links without <inertial>)
        Parents before children.
    """
    order = _preorder(robot, children)
    heavy: dict[str, bool] = {}  # the link's subtree carries mass
    for name in reversed(order):  # children before their parent
        inertial = robot.links[name].inertial
        heavy[name] = (inertial is not None and inertial.mass > 0) or any(
            heavy[j.child] for j in children.get(name, [])
        )
    out = []
    has_parent = {j.child for js in children.values() for j in js}
    stack = [name for name in reversed(robot.links) if name not in has_parent]
    while stack:
        name = stack.pop()
        enter = []
        for j in children.get(name, []):
            if j.type != "fixed" and not heavy.get(j.child, True):
                sub = _subtree_links(j.child, children)  # never entered again: linear
                bare = [s for s in sub if robot.links[s].inertial is None]
                out.append((j.name, sub, bare))
            else:
                enter.append(j.child)
        stack.extend(reversed(enter))
    return out


def _mass_warnings(robot: UrdfRobot, children, strict: bool, notes: list[str]) -> None:
    """Massless moving subtrees (one warning per joint) and moving links without mass
    (one per link, outside those subtrees): forward dynamics would fail later."""
    links = robot.links
    if all(
        j.type == "fixed"
        or (links[j.child].inertial is not None and links[j.child].inertial.mass > 0)
        for j in robot.joints.values()
    ):  # every moving link has mass: no massless subtree, no such link (the common case)
        return
    seen: set[str] = set()
    for jname, sub, _ in massless_subtrees(robot, children):
        j = robot.joints[jname]
        if j.child in seen:  # a subtree inside one already reported
            continue
        seen.update(sub)
        _implausible(
            f"joint {jname!r}: the {j.type} joint moves a massless subtree (links "
            f"{', '.join(repr(s) for s in sub)}): the mass matrix is singular and forward "
            f"dynamics undefined; give link {j.child!r} an <inertial> or make the joint "
            f"fixed ({_FIX})",
            strict,
            notes,
        )
    for j in robot.joints.values():
        if j.type == "fixed" or j.child in seen:
            continue
        link = robot.links[j.child]
        if link.inertial is None or link.inertial.mass == 0:
            what = "no <inertial>" if link.inertial is None else "zero mass"
            _implausible(
                f"link {link.name!r}: moved by the {j.type} joint {j.name!r} but has {what} "
                f"(only its children carry mass); if it is a real body, {_FIX}",
                strict,
                notes,
            )


def _geometry_warnings(robot: UrdfRobot, strict: bool, notes: list[str], flagged=()) -> None:
    """Inertias more than 10x off the inertia of the link's collision primitives (the
    ``flagged`` links, whose inertia is not physical, are not compared)."""
    for link in robot.links.values():
        if link.name in flagged:
            continue
        problem = geometry_problem(link)
        if problem is not None:
            _implausible(f"link {link.name!r}: {problem}; {_FIX}", strict, notes)


def load_urdf(
    path_or_xml,
    floating_base: bool = False,
    *,
    root_name: str | None = None,
    gravity=(0.0, 0.0, -9.81),
    mimic: bool = True,
    strict: bool = False,
    invalid_inertia: str = "error",
    xacro_args: dict | None = None,
    search_path=(),
) -> Model:
    """Load a URDF robot description (or a xacro file) into a :class:`Model`.

    Parameters
    ----------
    path_or_xml : str, os.PathLike or bytes
        A file path, or the XML as a string (first non-blank character ``<``) or bytes.
        Only this file is read: ``package://`` and mesh file names are recorded, never
        opened. DOCTYPE/ENTITY declarations are refused (safe parsing). A file whose name
        ends in ``.xacro`` (or any source, with ``xacro_args``) is first expanded by the
        ``xacro`` package (:mod:`robodyn.model.xacro`; ``pip install "robodyn[xacro]"``),
        which reads the files it includes.
    floating_base : bool
        True: the root link hangs from the world by a free joint named ``"root_joint"``
        (q[:7] = [x, y, z, qw, qx, qy, qz], v[:6] = body twist), like Pinocchio's
        ``JointModelFreeFlyer``. False: the root link is fixed to the world (merged into
        body 0; its name stays a frame).
    root_name : str, optional
        Name of the world body 0. Default ``"world"``, or ``"universe"`` when a link that
        does not become body 0 is already called ``"world"``. With a fixed base, a root
        link called like body 0 *is* body 0.
    gravity : array_like, shape (3,)
        Gravity in the world frame (m/s^2).
    mimic : bool
        True: ``<mimic>`` joints follow their leader (no coordinate of their own).
        False: they become independent joints (as Pinocchio loads them by default);
        a note records it.
    strict : bool
        False (the default): every URDF whose dynamics are defined loads, as Pinocchio,
        PyBullet and MuJoCo load it; what is physically implausible but usable is kept as
        written and raises a :class:`~robodyn.errors.ModelWarning` per link, naming the
        link, the numbers and the fix (``rd.fix_urdf`` / ``robodyn check --fix``): an
        inertia that violates the triangle inequality, zero mass with a non-zero tensor,
        a moving link with no mass, a massless moving subtree (forward dynamics would
        fail), an inertia more than 10x off the link's collision geometry. True: each of
        these is a ModelError instead.
    invalid_inertia : {"error", "balance", "keep"}
        An inertia tensor that is not positive semi-definite makes the dynamics undefined:
        "error" (the default) refuses it with a ModelError naming the link; "balance"
        replaces it by the nearest physical tensor with the same axes (as MuJoCo's
        ``balanceinertia``), "keep" keeps it as written (as Pinocchio does); both warn.
        A negative mass is always an error. With "error", a tensor whose negative principal
        moment is negligible (no larger than ``NEGLIGIBLE_NEGATIVE`` = 1e-6 of the robot's
        inertia scale, the largest principal moment of any link's tensor: the round-off of
        a CAD export) is read as the nearest physical tensor (its principal moments
        clipped at 0, then, if ``I1 + I2 < I3``, ``I1`` and ``I2`` raised by half the
        deficit each), with one warning naming the link and the tensor.
    xacro_args : dict, optional
        The values of a xacro file's ``<xacro:arg>`` (``$(arg name)``); giving it (even
        ``{}``) expands any source with xacro.
    search_path : path-like or sequence of path-like
        Folders where ROS packages are found before ``$ROS_PACKAGE_PATH``: a xacro file's
        ``$(find pkg)``, and the ``package://pkg/...`` mesh names the viewer
        (:func:`robodyn.viz.show`) draws.

    Returns
    -------
    Model
        Bodies numbered depth first, sibling joints sorted by name (urdfdom's and
        Pinocchio's order, so ``joint_names`` match Pinocchio's q order); fixed joints
        merged (their child links stay frames); ``model.notes`` lists what was merged or
        adapted.

    Raises
    ------
    ModelError
        Naming the element and attribute: not XML, unsafe XML, no ``<robot>``, no links,
        missing links, cycles, two roots, duplicate names, unknown or unsupported joint
        types, zero axes, bad numbers (NaN, inf), numbers whose products overflow (a
        length beyond 1e30 m, a mass beyond 1e30 kg, an inertia beyond 1e90 kg m^2:
        :func:`magnitude_problems`), a negative mass or an inertia that is
        not positive semi-definite (these make the dynamics undefined), and, with
        ``strict=True``, what would otherwise be a ModelWarning.

    Warns
    -----
    ModelWarning
        One per link (or joint, for a massless moving subtree) with an implausible but
        usable description, when ``strict`` is False; also listed in ``model.notes``.
    FileNotFoundError
        A path that does not exist.
    """
    if is_xacro(path_or_xml, xacro_args):
        xml = expand_xacro(path_or_xml, xacro_args, search_path)
        data, origin, blank = read_document(xml)
        if isinstance(path_or_xml, os.PathLike) or (
            isinstance(path_or_xml, str) and not path_or_xml.lstrip().startswith("<")
        ):
            origin = os.fspath(path_or_xml)  # the xacro file: messages name it, meshes
    else:  # are relative to it
        data, origin, blank = read_document(path_or_xml)
    notes: list[str] = []
    if blank:
        _adapted(
            f"URDF {origin}: {blank} whitespace character(s) before the <?xml declaration, "
            "where XML allows nothing: ignored (as Pinocchio and PyBullet read the file)",
            notes,
        )
    robot = robot_from_bytes(data, origin)
    source = None if origin.startswith("<") else os.path.abspath(origin)  # inline XML: no
    model = model_from_urdf(  # base for relative mesh paths
        robot,
        floating_base,
        root_name=root_name,
        gravity=gravity,
        mimic=mimic,
        strict=strict,
        invalid_inertia=invalid_inertia,
        notes=notes,
        source=source,
    )
    return _with_search_path(model, search_path)


def _with_search_path(model: Model, search_path) -> Model:
    """``model`` whose mesh visuals carry ``search_path`` (absolute folders), where the
    viewer looks up their ``package://`` and relative names too."""
    if type(search_path) is tuple and not search_path:  # (the default: nothing to add)
        return model
    if isinstance(search_path, (str, bytes, os.PathLike)):
        search_path = [search_path]
    folders = tuple(os.path.abspath(os.path.expanduser(os.fsdecode(p))) for p in search_path)
    if not folders:
        return model
    visuals = tuple(
        (b, T, dataclasses.replace(g, search_path=folders) if g.kind == "mesh" else g)
        for b, T, g in model.visuals
    )
    return replaced(model, visuals=visuals)


def model_from_urdf(
    robot: UrdfRobot,
    floating_base: bool = False,
    *,
    root_name: str | None = None,
    gravity=(0.0, 0.0, -9.81),
    mimic: bool = True,
    strict: bool = False,
    invalid_inertia: str = "error",
    notes=(),
    source: str | None = None,
) -> Model:
    """Build the :class:`Model` of a parsed :class:`UrdfRobot` (see :func:`load_urdf`).

    Fixed joints are merged here (not in the builder), with the parallel-axis theorem on
    plain arrays, so that ``strict=False`` can keep non-physical inertias as written.
    ``notes`` are what the reader noted before (they open ``model.notes``); ``source`` is
    the file read (``model.source``: mesh paths are relative to it).
    """
    if invalid_inertia not in INVALID_INERTIA:
        raise ValueError(
            f"invalid_inertia must be one of {INVALID_INERTIA}, got {invalid_inertia!r}"
        )
    root, children = kinematic_tree(robot)
    _refuse_overflow(robot)
    notes = list(notes)
    orphans = _joint_notes(robot, mimic, strict, notes)
    root_name, root_is_body0 = _world_name(robot, root, root_name, floating_base)
    b = ModelBuilder(name=robot.name, gravity=gravity, root=root_name)
    policy = _InertiaPolicy(robot.links, strict, invalid_inertia, notes)
    tree = _merge_fixed_joints(robot, root, children, mimic, orphans, policy)
    host, merged = _add_root(b, robot, root, root_name, floating_base, root_is_body0, tree, notes)
    if host != root:  # welded: the root link's own frame is body 0's, its links are body 0's
        tree.host.update({k: (host, T) for k, (h, T) in tree.host.items() if h == root})
    for name, parent, kw in tree.added:
        b.add_body(
            name, host if parent == root else parent, inertia=_inertia_arg(tree.parts[name]), **kw
        )
    for name, body, T in tree.frames:
        b.add_frame(name, host if body == root else body, T)
    _mass_warnings(robot, children, strict, notes)
    _geometry_warnings(robot, strict, notes, policy.flagged)
    model = b.build()
    visuals = _placed_visuals(model, robot, tree.host)
    notes = (*merged, *model.notes, *notes)  # (the weld is the builder's first merge)
    return finished(model, notes=notes, visuals=visuals, source=source)  # (b's own model)


def _refuse_overflow(robot: UrdfRobot) -> None:
    """A ModelError naming the first number too large for the dynamics, if any
    (:func:`magnitude_problems`)."""
    too_big = magnitude_problems(robot)
    if too_big:
        element, message = too_big[0]
        more = f" ({len(too_big) - 1} more such numbers)" if len(too_big) > 1 else ""
        raise ModelError(f"{element} {message}{more}")


def _joint_notes(robot: UrdfRobot, mimic: bool, strict: bool, notes: list[str]) -> set[str]:
    """Notes on joints without limits and ignored mimics, a warning for each mimic joint
    whose leader does not exist; returns those mimic joints (loaded as independent)."""
    orphans: set[str] = set()  # mimic joints whose leader does not exist
    for j in robot.joints.values():
        if j.type in JOINT_EXTENSIONS:
            _adapted(extension_message(j), notes)
        if j.type in ("revolute", "prismatic") and not j.has_limit:
            notes.append(f"joint {j.name!r}: {j.type} joint without <limit>: unlimited")
        if j.mimic is not None and not mimic:
            notes.append(f"joint {j.name!r}: <mimic joint={j.mimic!r}> ignored (mimic=False)")
        if mimic and j.mimic is not None and j.mimic not in robot.joints:
            _implausible(
                f"joint {j.name!r} <mimic joint={j.mimic!r}>: no such joint; the joint is "
                f"loaded as an independent joint (as Pinocchio does); correct the name in the "
                "URDF",
                strict,
                notes,
            )
            orphans.add(j.name)
    return orphans


def extension_message(j: UrdfJoint) -> str:
    """What the loader says of a joint whose type is an extension of URDF
    (:data:`JOINT_EXTENSIONS`)."""
    return (
        f"joint {j.name!r}: type {j.type!r} is {JOINT_EXTENSIONS[j.type]}'s extension of URDF "
        "(not in the URDF specification; urdfdom and Pinocchio refuse it): loaded as "
        "robodyn's spherical joint (q = unit quaternion [qw, qx, qy, qz], v = body angular "
        "velocity), its <axis> and position limits unused"
    )


def _world_name(robot: UrdfRobot, root: str, root_name, floating_base: bool) -> tuple[str, bool]:
    """``(root_name, root_is_body0)``: the world body's name ("world", or "universe" when a
    link that does not become body 0 is called "world"), and whether the root link *is*
    body 0 (a fixed base whose root link has the world's name)."""
    if root_name is None:
        root_is_world = not floating_base and root == "world"
        root_name = "universe" if "world" in robot.links and not root_is_world else "world"
    root_is_body0 = not floating_base and root == root_name
    if root_name in robot.links and not root_is_body0:
        raise ModelError(
            f"root_name {root_name!r} is also the name of link {root_name!r}; pass another "
            "root_name"
        )
    return root_name, root_is_body0


@dataclass
class _MergedTree:
    """The URDF tree with its fixed joints merged, ready for the builder."""

    host: dict[str, tuple[str, np.ndarray]]  # link -> (body it ends up in, T_body_link)
    parts: dict[str, list]  # body -> [(m, c, I_c)] of its links, in the body frame
    added: list[tuple[str, str, dict]]  # moving bodies (name, parent, add_body keywords)
    frames: list[tuple[str, str, np.ndarray]]  # merged links' frames (name, body, T)


def _merge_fixed_joints(
    robot: UrdfRobot, root: str, children, mimic, orphans: set[str], policy: _InertiaPolicy
) -> _MergedTree:
    """Walk the tree depth first (sibling joints by name, as :func:`kinematic_tree` sorts
    them): a fixed joint's child link joins its parent's body (its inertia and frame
    moved there), a moving joint's child becomes a body."""
    # (a link's host transform None: the link is its body, the identity, multiplied by nothing)
    tree = _MergedTree(host={root: (root, None)}, parts={root: []}, added=[], frames=[])
    _add_parts(tree.parts[root], robot.links[root], None, policy)
    stack = list(reversed(children[root]))
    while stack:
        j = stack.pop()
        ph, T_hp = tree.host[j.parent]
        T_hj = j.T if T_hp is None else T_hp @ j.T  # joint frame in the parent's host body
        child = robot.links[j.child]  # (MR: T_{h,j} = T_{h,p} T_{p,j})
        if j.type == "fixed":
            tree.host[child.name] = (ph, T_hj)
            tree.frames.append((child.name, ph, T_hj))
            _add_parts(tree.parts[ph], child, T_hj, policy)
            policy.notes.append(f"fixed joint {j.name!r} merged link {child.name!r} into {ph!r}")
        else:
            tree.host[child.name] = (child.name, None)
            tree.parts[child.name] = []
            _add_parts(tree.parts[child.name], child, None, policy)
            follows = mimic and j.mimic is not None and j.name not in orphans
            tree.added.append((child.name, ph, _joint_keywords(j, T_hj, follows)))
        stack.extend(reversed(children[child.name]))
    return tree


def _add_parts(parts: list, link: UrdfLink, T_bl, policy: _InertiaPolicy) -> None:
    """Append the link's (m, c, I_c), moved into the body frame (``T_bl``: the link in the
    body, None for the body itself), to the body's ``parts``, unless it has neither mass
    nor inertia."""
    if link.inertial is None:  # (a frame: nothing to add)
        return
    m, c, I = _link_inertia(link, policy)
    if m > 0 or np.any(I != 0):
        if T_bl is None:
            parts.append((m, c, I))
        else:
            R = T_bl[:3, :3]
            parts.append((m, R @ c + T_bl[:3, 3], R @ I @ R.T))


def _joint_keywords(j: UrdfJoint, T_hj: np.ndarray, follows: bool) -> dict:
    """The :meth:`ModelBuilder.add_body` keywords of a moving joint placed at ``T_hj``;
    ``follows``: it follows its mimic leader."""
    axis = j.axis  # (a tuple of floats, checked and normalised by the builder)
    if j.type not in JOINT_EXTENSIONS and not math.hypot(*j.axis) > 1e-12:
        raise ModelError(f"joint {j.name!r} <axis xyz={' '.join(map(str, j.axis))!r}>: zero axis")
    lower, upper = j.lower, j.upper
    if j.has_limit:  # URDF: absent lower/upper default to 0
        lower = 0.0 if lower is None else lower
        upper = 0.0 if upper is None else upper
    kw = dict(
        joint_name=j.name,
        joint_type=j.type,
        axis=axis,
        T=T_hj,
        lower=-math.inf if lower is None else lower,
        upper=math.inf if upper is None else upper,
        velocity=math.inf if j.velocity is None else j.velocity,
        effort=math.inf if j.effort is None else j.effort,
        damping=j.damping,
        friction=j.friction,
        armature=j.armature,
    )
    if follows:
        kw.update(mimic=j.mimic, multiplier=j.multiplier, offset=j.offset)
    return kw


def _add_root(
    b: ModelBuilder,
    robot: UrdfRobot,
    root: str,
    root_name: str,
    floating_base: bool,
    root_is_body0: bool,
    tree: _MergedTree,
    notes: list[str],
) -> tuple[str, tuple[str, ...]]:
    """The root link: body 0 itself (its mass carried by the fixed world), a body on a free
    joint ``root_joint`` (floating base), or welded to the world: a frame of body 0 at its
    origin, its mass carried by the fixed world, as the builder merges a fixed joint's child
    (here without the builder's round trip through a body). Returns the body that carries
    the root link (its children's parent) and the merge's note (none or one)."""
    parts = tree.parts[root]
    if root_is_body0:
        if parts:
            m = sum(p[0] for p in parts)
            notes.append(f"root link {root!r} is the fixed world; its mass {m:g} kg is not moved")
        return root, ()
    if floating_base:
        if "root_joint" in robot.joints:
            raise ModelError("joint 'root_joint' clashes with the floating base's free joint")
        b.add_body(root, root_name, joint_name="root_joint", joint_type="free",
                   inertia=_inertia_arg(parts))  # fmt: skip
        return root, ()
    weld = unique_name(f"{root_name}_{root}_fixed", set(robot.joints))
    b.add_frame(root, root_name)
    merged = f"fixed joint {weld!r} merged link {root!r} into {root_name!r}"
    m = sum(p[0] for p in parts)
    if m > 0:
        merged += f" (its mass {m:g} kg is carried by the fixed world)"
    return root_name, (merged,)


def _placed_visuals(model: Model, robot: UrdfRobot, host) -> tuple:
    """Each ``<visual>`` as (body index, T_body_geometry (4, 4), UrdfGeometry), for the viewer.

    ``host[link] = (name, T_name_link)`` names the body (or, for a root merged into the
    world, the frame) that carries the link (T None: the identity). The poses are
    read-only; visuals at the same pose share one array."""
    out = []
    bodies = {name: i for i, name in enumerate(model.body_names)}
    frames = None  # frame name -> index, made when a link is a frame of a merged body
    for link in robot.links.values():
        if not link.visuals or link.name not in host:
            continue
        name, T_hl = host[link.name]
        if name in bodies:
            body, T_bl = bodies[name], T_hl
        else:  # merged by the builder: a frame of its body
            if frames is None:
                frames = {f: k for k, f in enumerate(model.frame_names)}
            k = frames[name]
            body = int(model.frame_body[k])
            T_bl = np.zeros((4, 4))  # the frame in its body, [[R, p], [0, 1]]
            T_bl[:3, :3], T_bl[:3, 3], T_bl[3, 3] = model.frame_R[k], model.frame_p[k], 1.0
            T_bl = T_bl if T_hl is None else T_bl @ T_hl
        if T_bl is not None:
            T_bl.setflags(write=False)
        for g in link.visuals:
            if g.xyz == g.rpy == (0.0, 0.0, 0.0):  # at the link's origin
                T_bg = _IDENTITY if T_bl is None else T_bl
            else:
                T_bg = placement(g.xyz, g.rpy)
                T_bg = T_bg if T_bl is None else T_bl @ T_bg
                T_bg.setflags(write=False)
            out.append((body, T_bg, g))
    return tuple(out)


_IDENTITY = np.eye(4)
_IDENTITY.setflags(write=False)
_ZERO3 = np.zeros(3)  # the welded root's centre of mass and inertia (its mass is noted)
_ZERO33 = np.zeros((3, 3))
_ZERO3.setflags(write=False)
_ZERO33.setflags(write=False)


def _inertia_arg(parts: list) -> _RawInertia | None:
    if not parts:
        return None
    if len(parts) == 1 and parts[0][0] > 0:  # one link: its own (m, c, I_c) (the builder
        m, c, I = parts[0]  # symmetrises I)
        return _RawInertia(float(m), np.asarray(c, float), I)
    m, c, I = compound(parts)
    return _RawInertia(m, c, I)  # each part was checked by inertial_issue
