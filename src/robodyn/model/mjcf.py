"""MJCF loader: a MuJoCo model file read into a :class:`Model`, as MuJoCo compiles it.

:func:`load_mjcf` reads the document (:mod:`robodyn.model.mjcf_xml`: includes, compiler,
defaults, orientations), walks ``<worldbody>`` into one record per MuJoCo body (its joints,
its mass and inertia from ``<inertial>`` or from its geoms by MuJoCo's rules,
:mod:`robodyn.model.mjcf_inertia`, and its sites) and feeds the records to
:class:`~robodyn.model.builder.ModelBuilder`:

* a body with no joint is welded to its parent (merged into it; its name stays a frame);
* a body with one joint whose anchor ``pos`` is its origin becomes one robodyn body of its
  name. MuJoCo applies a body's joints in order, each about its anchor in the body frame as
  moved by the joints before it: ``T = T_parent T_body X_1 ... X_n`` with ``X_k =
  Trans(p_k) J_k(q_k) Trans(-p_k)``. Several joints, or an anchor away from the origin,
  become a chain of massless bodies named ``<body>_<joint>`` (the joint frame of joint k at
  ``Trans(p_k - p_(k-1))`` in the previous one), the body itself fixed at ``Trans(-p_n)``
  to the last;
* ``hinge`` is a revolute joint, ``slide`` a prismatic one, ``ball`` a spherical joint
  (q = quaternion (w, x, y, z), v = omega in the body), ``free`` a free joint whose frame
  is the world's (q = the body's pose in the world, as MuJoCo's qpos);
* a site is an operational frame of its name (``<site>_site`` when a body has the name);
* an ``<equality><joint joint1 joint2 polycoef="c0 c1 0 0 0">`` makes joint1 a mimic of
  joint2: ``q_1 = c0 + c1 q_2``;
* the geoms MuJoCo draws are the Model's ``visuals`` (:func:`_placed_visuals`): each moves
  with the frame of its MuJoCo body's name (the body itself, or the frame a welded or
  chained body becomes), so the viewer draws them where MuJoCo does.

Coordinates: hinge and slide joints count from the pose written in the file, so robodyn's
q is MuJoCo's ``qpos - ref`` (the ``ref`` attribute; limits shifted alike); free and ball
joints share MuJoCo's qpos. Velocities equal MuJoCo's qvel but for a free joint, where
robodyn has the body twist ``[omega_b, v_b]`` and MuJoCo ``[v_world, omega_b]``
(:func:`robodyn.convert.free_v_to_mujoco`). MuJoCo's ``qpos0`` (the body's written pose for
a free joint, ``ref`` for the others) is robodyn's q = 0 for hinges and slides and the
quaternion's identity for balls.
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelError, ModelWarning
from ..inertia import compound
from .builder import ModelBuilder
from .joints import unique_name
from .mjcf_inertia import MeshInertia, geom_moments, geom_volume, mesh_inertia, read_mesh
from .mjcf_xml import (
    Document,
    describe,
    flag,
    floats,
    norm,
    number,
    numbers,
    quat_matrix,
    read_document,
    segment_frame,
)
from .mjcf_xml import rotation as _rotation
from .model import Model
from .urdf import _outside_robodyn
from .urdf_description import UrdfGeometry

__all__ = ["load_mjcf", "JOINT_KINDS"]

#: MJCF joint types and the robodyn joint each becomes
JOINT_KINDS = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical", "free": "free"}
_MASS_EPS = 1e-14  # MuJoCo's mjEPS: a geom lighter than this adds nothing to its body
_STRUCTURAL = ("composite", "flexcomp", "replicate", "attach")  # would create bodies


@dataclass
class _Joint:
    """One MJCF joint, in robodyn's units (radians, q counted from ``ref``)."""

    name: str
    kind: str  # hinge, slide, ball, free
    pos: tuple  # (3,) anchor in the body frame (zero for slide and free joints)
    axis: tuple  # (3,)
    lower: float
    upper: float
    damping: float
    friction: float
    armature: float
    effort: float
    where: str


@dataclass
class _Body:
    """One MuJoCo body: its pose in its parent's frame, joints, inertia and sites."""

    name: str
    parent: str  # "world" or a MuJoCo body's name
    T: np.ndarray  # (4, 4)
    joints: list[_Joint]
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    sites: list = field(default_factory=list)  # [(name, T_body_site)]
    visuals: list = field(default_factory=list)  # [(T_body_geometry, UrdfGeometry)]


@dataclass
class _Walk:
    """What the walk through ``<worldbody>`` collects."""

    doc: Document
    meshes: dict[str, ET.Element]  # asset name -> its <mesh> element (defaults applied)
    materials: dict[str, tuple]  # asset name -> its <material> rgba (defaults applied)
    bodies: list[_Body] = field(default_factory=list)
    world_sites: list = field(default_factory=list)
    world_visuals: list = field(default_factory=list)  # the world body's geoms
    ids: dict[str, int] = field(default_factory=lambda: {"body": 1, "joint": 0})
    mesh_cache: dict[str, MeshInertia] = field(default_factory=dict)
    left_out: dict[str, list[str]] = field(default_factory=dict)  # what robodyn cannot hold

    def leave_out(self, what: str, name: str) -> None:
        self.left_out.setdefault(what, []).append(name)

    def next_id(self, kind: str) -> int:
        self.ids[kind] += 1
        return self.ids[kind] - 1


_EYE4 = np.eye(4)  # a constant: copied, never written
_ZERO3 = (0.0, 0.0, 0.0)


def _pose(R: np.ndarray, p) -> np.ndarray:
    T = _EYE4.copy()
    T[:3, :3], T[:3, 3] = R, p
    return T


def _trans(p) -> np.ndarray:
    T = _EYE4.copy()
    T[:3, 3] = p
    return T


# ---------------------------------------------------------------------------- the walk
def _frame_of(attrs, where: str, doc: Document) -> np.ndarray:
    """The pose ``pos`` + orientation an element (body, frame, site) writes in its parent."""
    p = floats(attrs, "pos", 3, where, _ZERO3)
    return _pose(_rotation(attrs, where, doc.compiler), p)


def _walk_children(w: _Walk, el: ET.Element, body: _Body | None, T_in: np.ndarray,
                   cls: str | None, parts: list) -> None:  # fmt: skip
    """The children of a body or frame ``el`` at pose ``T_in`` in ``body``'s frame (None:
    the world): child bodies, frames, sites, and (for a body) the geoms' mass ``parts``."""
    host = body.name if body is not None else "world"
    for child in el:
        tag = child.tag
        if tag in _STRUCTURAL:
            raise ModelError(f"{describe(child, host)}: <{tag}> is not supported by load_mjcf")
        if tag == "body":
            _walk_body(w, child, host, T_in, cls)
        elif tag == "frame":
            where = describe(child, host)
            attrs = w.doc.defaults.attrs(child, cls, where)
            inner = child.get("childclass") or cls
            _walk_children(w, child, body, T_in @ _frame_of(attrs, where, w.doc), inner, parts)
        elif tag == "site":
            _site(w, child, body, T_in, cls)
        elif tag == "geom":
            _geom(w, child, body, T_in, cls, parts)
        elif tag == "plugin" and body is not None:
            w.leave_out("plugins", host)


def _walk_body(w: _Walk, el: ET.Element, parent: str, T_in: np.ndarray, cls: str | None):
    """One ``<body>``: its record, then its children's."""
    index = w.next_id("body")
    name = el.get("name") or f"body{index}"
    where = describe(el, parent if parent != "world" else None)
    cls = el.get("childclass") or cls
    if el.get("childclass") and el.get("childclass") not in w.doc.defaults.classes:
        raise ModelError(f"{where}: unknown childclass {el.get('childclass')!r}")
    attrs = dict(el.attrib)
    body = _Body(name, parent, T_in @ _frame_of(attrs, where, w.doc), [])
    if number(attrs, "gravcomp", where, 0.0):
        w.leave_out("gravity compensation (gravcomp)", name)
    for j in el:
        if j.tag in ("joint", "freejoint"):
            body.joints.append(_joint(w, j, name, cls))
    w.bodies.append(body)
    parts: list = []
    _walk_children(w, el, body, _EYE4.copy(), cls, parts)
    _body_inertia(w, el, body, parts, cls)


def _site(w: _Walk, el: ET.Element, body: _Body | None, T_in: np.ndarray, cls) -> None:
    """A site's (name or None, pose in its body); an unnamed one is named by
    :func:`_site_frames` after MuJoCo's index."""
    host = body.name if body is not None else "world"
    where = describe(el, host)
    attrs = w.doc.defaults.attrs(el, cls, where)
    fromto = numbers(attrs, "fromto", 6, where)
    T = segment_frame(fromto, where)[0] if fromto is not None else _frame_of(attrs, where, w.doc)
    site = (el.get("name"), T_in @ T)
    (body.sites if body is not None else w.world_sites).append(site)


# ---------------------------------------------------------------------------- joints
def _limits(attrs, key: str, flag_key: str, where: str, w: _Walk) -> tuple | None:
    """The (lo, hi) of a range attribute when it limits (``limited``: "true", "false" or
    "auto"; auto means "range given" under autolimits, and is an error otherwise)."""
    lim = attrs.get(flag_key, "auto")
    if lim not in ("true", "false", "auto"):
        raise ModelError(f"{where} {flag_key}={lim!r}: expected 'true', 'false' or 'auto'")
    rng = numbers(attrs, key, 2, where)
    if lim == "auto":
        if rng is not None and not w.doc.compiler.autolimits:
            raise ModelError(
                f"{where}: {key} given without {flag_key} while <compiler autolimits="
                f'"false">; write {flag_key}="true" or "false" (MuJoCo refuses it too)'
            )
        lim = "true" if rng is not None else "false"
    if lim == "false":
        return None
    if rng is None:
        raise ModelError(f'{where}: {flag_key}="true" without {key}')
    if rng[0] > rng[1]:
        raise ModelError(f"{where} {key}='{rng[0]:g} {rng[1]:g}': lower bound above upper")
    return float(rng[0]), float(rng[1])


def _joint(w: _Walk, el: ET.Element, body: str, cls) -> _Joint:
    """One ``<joint>`` or ``<freejoint>`` (which takes no defaults)."""
    index = w.next_id("joint")
    where = describe(el, body)
    if el.tag == "freejoint":
        attrs, kind = dict(el.attrib), "free"
    else:
        attrs = w.doc.defaults.attrs(el, cls, where)
        kind = attrs.get("type", "hinge")
    if kind not in JOINT_KINDS:
        raise ModelError(
            f"{where}: unknown joint type {kind!r} (MJCF has {', '.join(JOINT_KINDS)})"
        )
    name = el.get("name") or f"joint{index}"
    angle = math.pi / 180.0 if (w.doc.compiler.degree and kind == "hinge") else 1.0
    ref = number(attrs, "ref", where, 0.0) * angle
    pos = floats(attrs, "pos", 3, where, _ZERO3)
    axis = floats(attrs, "axis", 3, where, (0.0, 0.0, 1.0))
    if kind in ("hinge", "slide") and not norm(axis) >= 1e-14:
        raise ModelError(f"{where} axis={attrs.get('axis')!r}: zero axis")
    lower, upper = -math.inf, math.inf
    limits = _limits(attrs, "range", "limited", where, w) if kind != "free" else None
    if limits is not None and kind == "ball":
        w.leave_out("ball-joint cone limits", name)
    elif limits is not None:
        lower, upper = limits[0] * angle - ref, limits[1] * angle - ref
    force = _limits(attrs, "actuatorfrcrange", "actuatorfrclimited", where, w)
    effort = math.inf if force is None else max(abs(force[0]), abs(force[1]))
    if number(attrs, "stiffness", where, 0.0):
        w.leave_out("joint springs (stiffness)", name)
    if kind == "free" and flag(attrs, "align", where, w.doc.compiler.alignfree):
        w.leave_out("free-joint alignment with the inertial frame (align)", name)
    coef = {k: number(attrs, k, where, 0.0) for k in ("damping", "frictionloss", "armature")}
    for key in ("armature", "frictionloss"):  # MuJoCo's act on the world-frame rates
        if kind == "free" and coef[key]:
            w.leave_out(f"free-joint {key} (MuJoCo's acts on v_world, robodyn's on v_b)", name)
            coef[key] = 0.0
    spring_damper = floats(attrs, "springdamper", 2, where, (0.0, 0.0))
    if min(spring_damper) > 0:  # MuJoCo derives stiffness and damping from M(qpos0)
        w.leave_out("joint springdampers (damping and stiffness from the mass matrix)", name)
        coef["damping"] = 0.0
    return _Joint(
        name=name, kind=kind, pos=pos if kind in ("hinge", "ball") else _ZERO3, axis=axis,
        lower=lower, upper=upper, damping=coef["damping"], friction=coef["frictionloss"],
        armature=coef["armature"], effort=effort, where=where,
    )  # fmt: skip


# ---------------------------------------------------------------------------- inertia
def _geom(w: _Walk, el: ET.Element, body: _Body | None, T_in: np.ndarray, cls, parts) -> None:
    """One ``<geom>`` at ``T_in`` in ``body`` (None: the world): its mass part (a body's
    geom: ``parts``) and its visual (the body's, or the world's)."""
    where = describe(el, body.name if body is not None else "world")
    attrs = w.doc.defaults.attrs(el, cls, where)
    kind = attrs.get("type", "sphere")
    if kind not in _SIZES and kind not in _NOT_DRAWN:
        raise ModelError(f"{where}: unknown geom type {kind!r}")
    frame = None  # (T_body_geom, half sizes) of a primitive or a mesh
    if kind in _SIZES and (kind == "mesh" or "mesh" not in attrs):
        T, size = _geom_frame(attrs, kind, where, w.doc)
        frame = (T_in @ T, size)
    if body is not None:
        part = _geom_part(w, attrs, kind, where, frame)
        if part is not None:
            parts.append(part)
    visual = _geom_visual(w, attrs, kind, where, frame)
    if visual is not None:
        (body.visuals if body is not None else w.world_visuals).append(visual)


def _geom_part(w: _Walk, attrs, kind: str, where: str, frame) -> tuple | None:
    """(m, c, I_c) of a geom in its body's frame, or None when it adds no mass (outside
    ``inertiagrouprange``, massless, a plane)."""
    c = w.doc.compiler
    group = int(number(attrs, "group", where, 0.0))
    if not c.inertiagrouprange[0] <= group <= c.inertiagrouprange[1]:
        return None
    if kind == "plane":
        raise ModelError(f"{where}: a plane geom is only allowed in static bodies")
    if frame is None:  # an hfield, an sdf, or a primitive fitted to a mesh
        raise ModelError(f"{where}: a {kind} geom's inertia is not supported by load_mjcf; "
                         "give the body an <inertial> or the geom mass=\"0\"")  # fmt: skip
    shell = bool(flag(attrs, "shellinertia", where, False))
    T, size = frame
    mesh = _mesh(w, attrs, where) if kind == "mesh" else None
    volume = mesh.volume if mesh is not None else geom_volume(kind, size, shell)
    if "mass" in attrs:
        given = number(attrs, "mass", where)
        m = given if given != 0 and volume > _MASS_EPS else 0.0
    else:
        m = number(attrs, "density", where, 1000.0) * volume
    if m < 0:
        raise ModelError(f"{where}: negative mass or density")
    if m <= _MASS_EPS:
        return None
    R, p = T[:3, :3], T[:3, 3]
    if mesh is not None:
        return m, p + R @ mesh.com, R @ mesh.inertia(m) @ R.T
    return m, p, (R * geom_moments(kind, size, m, shell)) @ R.T  # R diag(I) R^T


_SIZES = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3, "mesh": 0}
_NOT_DRAWN = ("plane", "hfield", "sdf")  # geom types without a shape of their own here


def _geom_frame(attrs, kind: str, where: str, doc: Document) -> tuple[np.ndarray, np.ndarray]:
    """The geom's pose (4, 4) in its body and its half sizes (3,): ``fromto`` puts the
    centre midway and z along the segment (:func:`segment_frame`), its half length into
    size[1] (size[2] for an ellipsoid or a box, whose size[1] becomes size[0])."""
    if kind not in _SIZES:
        raise ModelError(f"{where}: unknown geom type {kind!r}")
    size = list(floats(attrs, "size", (1, 2, 3), where, ()))
    size += [0.0] * (3 - len(size))
    fromto = floats(attrs, "fromto", 6, where)
    need = _SIZES[kind]
    if fromto is None:
        T = _frame_of(attrs, where, doc)
    elif kind not in ("capsule", "cylinder", "ellipsoid", "box"):
        raise ModelError(f"{where}: fromto needs a capsule, cylinder, ellipsoid or box")
    else:
        T, half = segment_frame(fromto, where)
        size[1:] = (size[0], half) if kind in ("ellipsoid", "box") else (half, size[2])
        need = 1
    if any(x <= 0 for x in size[:need]):
        raise ModelError(f"{where} size={attrs.get('size')!r}: a {kind} needs {need} "
                         "positive size(s)")  # fmt: skip
    return T, size


def _mesh(w: _Walk, attrs, where: str) -> MeshInertia:
    """The inertia of the mesh asset a geom names (read once per asset)."""
    name = attrs.get("mesh")
    if name is None or name not in w.meshes:
        raise ModelError(f"{where}: mesh {name!r} is not among the <asset> meshes")
    if name not in w.mesh_cache:
        el = w.meshes[name]
        mwhere = f"<mesh name={name!r}>"
        V, F = _mesh_data(w, el, mwhere)
        mode = el.get("inertia", "legacy")
        if mode not in ("legacy", "exact", "convex", "shell"):
            raise ModelError(f"{mwhere} inertia={mode!r}: expected legacy, exact, convex or shell")
        w.mesh_cache[name] = mesh_inertia(V, F, mode, mwhere)
    return w.mesh_cache[name]


def _mesh_data(w: _Walk, el: ET.Element, where: str) -> tuple[np.ndarray, np.ndarray]:
    """A mesh asset's vertices (moved by refpos/refquat, then scaled) and faces."""
    file = el.get("file")
    if file is not None:
        V, F = read_mesh(_mesh_path(w.doc, file), where)
    else:
        V = numbers(el.attrib, "vertex", None, where)
        if V is None or len(V) % 3 or len(V) < 12:
            raise ModelError(f"{where}: needs a file or at least 4 vertices")
        V = V.astype(np.float32).astype(float).reshape(-1, 3)
        face = numbers(el.attrib, "face", None, where)
        F = np.zeros((0, 3), np.int64) if face is None else face.astype(np.int64).reshape(-1, 3)
    V = V - numbers(el.attrib, "refpos", 3, where, default=(0.0, 0.0, 0.0))
    if "refquat" in el.attrib:
        q = numbers(el.attrib, "refquat", 4, where)
        V = V @ quat_matrix(q / np.linalg.norm(q))  # R^T v for each vertex v
    scale = numbers(el.attrib, "scale", 3, where, default=(1.0, 1.0, 1.0))
    if np.prod(scale) < 0:  # a mirrored mesh keeps its faces outward
        F = F[:, ::-1]
    return V * scale, F


def _mesh_path(doc: Document, file: str) -> Path:
    """MuJoCo's rule: a file's absolute path as is; else the meshdir (or assetdir) when
    absolute; else the main file's folder, then meshdir, then the file."""
    if doc.compiler.strippath:
        file = os.path.basename(file)
    if os.path.isabs(file):
        return Path(file)
    meshdir = doc.compiler.meshdir if doc.compiler.meshdir is not None else doc.compiler.assetdir
    if meshdir and os.path.isabs(meshdir):
        return Path(meshdir) / file
    return doc.folder / (meshdir or "") / file


def _body_inertia(w: _Walk, el: ET.Element, body: _Body, parts: list, cls) -> None:
    """The body's mass, centre of mass and inertia: its ``<inertial>``, else (or always,
    with inertiafromgeom="true") its geoms'; then boundmass, boundinertia, balanceinertia."""
    c = w.doc.compiler
    inertial = el.find("inertial")
    where = describe(el)
    if c.inertiafromgeom != "false" and parts and (inertial is None or c.inertiafromgeom == "true"):
        body.mass, body.com, body.inertia = compound(parts) if len(parts) > 1 else parts[0]
    elif inertial is not None:  # (also with inertiafromgeom="true" and no geom weighing)
        body.mass, body.com, body.inertia = _inertial(inertial, where, w.doc)
    if body.mass < 0:
        raise ModelError(f"{where}: negative mass {body.mass:g}")
    body.mass = max(body.mass, c.boundmass)
    moments, axes = np.linalg.eigh(0.5 * (body.inertia + body.inertia.T))
    lam = moments.tolist()  # the principal moments, as floats
    tol = 1e-9 * (abs(lam[0] + lam[1] + lam[2]) + 1e-6 * body.mass)  # round-off: load_urdf's
    if min(lam) < -tol:
        raise ModelError(
            f"{where}: the inertia has a negative principal moment ({min(lam):.3g} kg "
            "m^2): the dynamics are undefined (MuJoCo refuses it too)"
        )
    bounded = [max(x, c.boundinertia, 0.0) for x in lam]
    if bounded[0] + bounded[1] + bounded[2] - 2 * max(bounded) < -tol:  # A + B < C
        if c.balanceinertia:
            bounded = [(bounded[0] + bounded[1] + bounded[2]) / 3] * 3
        else:  # MuJoCo refuses it; robodyn keeps it, as its URDF loader (and Pinocchio) do
            warnings.warn(
                f"{where}: principal moments {bounded} violate A + B >= C (not a "
                "physical body); kept as written (MuJoCo refuses them; <compiler "
                'balanceinertia="true"> averages them)', ModelWarning,
                stacklevel=_outside_robodyn(),
            )  # fmt: skip
    if bounded != lam:
        body.inertia = axes @ np.diag(bounded) @ axes.T


def _inertial(el: ET.Element, where: str, doc: Document) -> tuple:
    """(m, c, I_c) of an ``<inertial>``: pos, mass, and diaginertia in the frame its
    orientation gives, or fullinertia (Ixx Iyy Izz Ixy Ixz Iyz) in the body's axes."""
    where = f"{where} <inertial>"
    a = el.attrib
    if "pos" not in a or "mass" not in a:
        raise ModelError(f"{where}: needs pos and mass")
    c, m = numbers(a, "pos", 3, where), number(a, "mass", where)
    full = numbers(a, "fullinertia", 6, where)
    if full is not None:
        if "diaginertia" in a or any(k in a for k in ("quat", "axisangle", "euler", "xyaxes",
                                                       "zaxis")):  # fmt: skip
            raise ModelError(f"{where}: fullinertia with diaginertia or an orientation")
        I = np.array([[full[0], full[3], full[4]], [full[3], full[1], full[5]],
                      [full[4], full[5], full[2]]])  # fmt: skip
        return m, c, I
    d = numbers(a, "diaginertia", 3, where, default=(0.0, 0.0, 0.0))
    R = _rotation(a, where, doc.compiler)
    return m, c, R @ np.diag(d) @ R.T


def _total_mass(w: _Walk) -> None:
    """``<compiler settotalmass>``: every body's mass and inertia scaled by one factor so
    that the bodies' masses add up to it (the last mass rule MuJoCo applies)."""
    target = w.doc.compiler.settotalmass
    if target > 0:
        total = sum(b.mass for b in w.bodies)
        scale = max(1e-15, target / max(1e-15, total))
        for b in w.bodies:
            b.mass, b.inertia = b.mass * scale, b.inertia * scale


def _mesh_assets(doc: Document) -> dict[str, ET.Element]:
    """The ``<asset><mesh>`` elements by name (a mesh without a name is called after its
    file, without folder and suffix), their class defaults applied."""
    out = {}
    for asset in doc.root.findall("asset"):
        for el in asset.findall("mesh"):
            attrs = doc.defaults.attrs(el, None, describe(el))
            name = attrs.get("name") or Path(attrs.get("file", "")).stem
            out[name] = ET.Element("mesh", attrs)
    return out


# ---------------------------------------------------------------------------- visuals
_GREY = (0.5, 0.5, 0.5, 1.0)  # MuJoCo's default geom rgba
_DRAWN_GROUPS = (0, 1, 2)  # the geom groups MuJoCo's viewers show (mjv_defaultOption)


def _material_colours(doc: Document) -> dict[str, tuple]:
    """The rgba of each ``<asset><material>`` by name (class defaults applied; MuJoCo's
    default is opaque white)."""
    out = {}
    for asset in doc.root.findall("asset"):
        for el in asset.findall("material"):
            where = describe(el)
            attrs = doc.defaults.attrs(el, None, where)
            rgba = numbers(attrs, "rgba", 4, where, default=(1.0, 1.0, 1.0, 1.0))
            out[attrs.get("name", "")] = tuple(float(x) for x in rgba)
    return out


def _geom_rgba(w: _Walk, attrs, where: str) -> tuple:
    """The colour MuJoCo draws a geom in: its rgba (its own or its class's) when that
    differs from the default grey or it has no material, else its material's rgba (the
    rule of the geom's rgba attribute, as MuJoCo's renderer applies it)."""
    rgba = numbers(attrs, "rgba", 4, where)
    rgba = _GREY if rgba is None else tuple(float(x) for x in rgba)
    material = attrs.get("material")
    if material is None or rgba != _GREY:
        return rgba
    if material not in w.materials:
        raise ModelError(f"{where}: material {material!r} is not among the <asset> materials")
    return w.materials[material]


def _geom_visual(w: _Walk, attrs, kind: str, where: str, frame) -> tuple | None:
    """(T_body_geometry, UrdfGeometry) of a geom MuJoCo draws, or None: planes, height
    fields and sdf geoms (not drawn here), primitives fitted to a mesh, geoms of a group
    MuJoCo's viewers hide by default (3, 4, 5), and fully transparent ones (alpha 0)."""
    if frame is None:
        return None
    if int(number(attrs, "group", where, 0.0)) not in _DRAWN_GROUPS:
        return None
    rgba = _geom_rgba(w, attrs, where)
    if rgba[3] == 0:  # MuJoCo's renderer skips a geom of alpha 0
        return None
    T, size = frame
    r = float(size[0])
    if kind == "mesh":
        return _mesh_visual(w, attrs, where, T, rgba)
    if kind == "sphere":
        g = UrdfGeometry("sphere", radius=r, rgba=rgba)
    elif kind in ("capsule", "cylinder"):  # size: radius, half length along z
        g = UrdfGeometry(kind, radius=r, length=2.0 * float(size[1]), rgba=rgba)
    elif kind == "box":  # size: half edges
        g = UrdfGeometry("box", size=tuple(2.0 * float(x) for x in size), rgba=rgba)
    else:  # an ellipsoid: size = its semi-axes
        g = UrdfGeometry("ellipsoid", size=tuple(float(x) for x in size), rgba=rgba)
    return T, g


def _mesh_visual(w: _Walk, attrs, where: str, T: np.ndarray, rgba: tuple) -> tuple:
    """A mesh geom drawn from its asset's file at the geom's pose as written (T).

    MuJoCo moves a mesh's vertices v to ``S R^T (v - p)`` (``refpos`` p, ``refquat`` R,
    ``scale`` S), then re-centres them at their inertial frame and shifts the geom by as
    much; the file's own frame is where it was written. The viewer draws ``T' S v``, so
    ``T' = T [R^T, -S R^T p]`` whenever S R^T = R^T S (a uniform scale or no refquat);
    otherwise, and for a mesh given by its vertices in the XML, the geometry is "unknown"."""
    name = attrs.get("mesh")
    if name is None or name not in w.meshes:
        raise ModelError(f"{where}: mesh {name!r} is not among the <asset> meshes")
    el = w.meshes[name]
    mwhere = f"<mesh name={name!r}>"
    scale = numbers(el.attrib, "scale", 3, mwhere, default=(1.0, 1.0, 1.0))
    p = numbers(el.attrib, "refpos", 3, mwhere, default=(0.0, 0.0, 0.0))
    q = numbers(el.attrib, "refquat", 4, mwhere, default=(1.0, 0.0, 0.0, 0.0))
    Rt = quat_matrix(q / np.linalg.norm(q)).T
    file = el.get("file")
    if file is None or not np.array_equal(scale[:, None] * Rt, Rt * scale[None, :]):
        return T, UrdfGeometry("unknown", rgba=rgba)
    if np.any(p) or "refquat" in el.attrib:
        T = T @ _pose(Rt, -scale * (Rt @ p))
    path = os.path.abspath(_mesh_path(w.doc, file))
    geometry = UrdfGeometry("mesh", filename=path, scale=tuple(float(x) for x in scale),
                            rgba=rgba, search_path=(_mesh_folder(w.doc),))  # fmt: skip
    return T, geometry


def _mesh_folder(doc: Document) -> str:
    """The folder ``<compiler meshdir>`` (or ``assetdir``) names, absolute: the viewer reads
    meshes inside it (as it reads a URDF's inside its package)."""
    meshdir = doc.compiler.meshdir if doc.compiler.meshdir is not None else doc.compiler.assetdir
    return os.path.abspath(doc.folder / (meshdir or ""))


def _placed_visuals(model: Model, w: _Walk) -> tuple:
    """Each drawn geom as (body index, T_body_geometry (4, 4) read-only, UrdfGeometry), in
    MuJoCo's order (the world's geoms, then each body's in document order): a MuJoCo body's
    geoms move with the frame of its name, its own robodyn body or, for a body merged into
    its parent or hung below its joints' chain of massless bodies, the frame the builder
    keeps for it."""
    out = []
    for T, g in w.world_visuals:
        T.setflags(write=False)
        out.append((0, T, g))
    frames = {name: k for k, name in enumerate(model.frame_names)}
    for body in w.bodies:
        if not body.visuals:
            continue
        k = frames[body.name]
        T_f = _pose(model.frame_R[k], model.frame_p[k])  # the MuJoCo body in its host
        for T, g in body.visuals:
            T = T_f @ T
            T.setflags(write=False)
            out.append((int(model.frame_body[k]), T, g))
    return tuple(out)


# ---------------------------------------------------------------------------- equalities
def _mimics(w: _Walk, mimic: bool) -> dict[str, tuple[str, float, float]]:
    """Follower joint -> (leader, multiplier, offset) of each ``<equality><joint>`` that is a
    linear coupling of two hinge or slide joints (q_1 = c0 + c1 q_2 in robodyn's
    coordinates, since both count from their ``ref``); every other equality is left out."""
    kinds = {j.name: j.kind for b in w.bodies for j in b.joints}
    out: dict[str, tuple[str, float, float]] = {}
    for section in w.doc.root.findall("equality"):
        for el in section:
            where = describe(el)
            label = el.get("name") or f"<{el.tag}>"
            if el.tag != "joint" or not mimic:
                w.leave_out("equality constraints", label)
                continue
            attrs = w.doc.defaults.attrs(el, None, where, tag="equality")
            j1, j2 = attrs.get("joint1"), attrs.get("joint2")
            for j in (j1, j2):
                if j is not None and j not in kinds:
                    raise ModelError(f"{where}: no joint named {j!r}")
            if j1 is None:
                raise ModelError(f"{where}: joint1 is missing")
            c = numbers(attrs, "polycoef", 5, where, default=(0.0, 1.0, 0.0, 0.0, 0.0))
            active = flag(attrs, "active", where, True)
            if active and _linear_coupling(j1, j2, c, kinds, out):
                out[j1] = (j2, float(c[1]), float(c[0]))
            else:
                w.leave_out("equality constraints", label)
    return out


def _linear_coupling(j1: str, j2: str | None, c: np.ndarray, kinds: dict, out: dict) -> bool:
    """Whether joint1 = c0 + c1 joint2 is a mimic robodyn holds: both hinge or slide
    joints, a polynomial of degree one, joint1 not yet a follower or a leader, joint2 not
    a follower."""
    leaders = {lead for lead, _, _ in out.values()}
    plain = ("hinge", "slide")
    return (j2 is not None and not np.any(c[2:]) and kinds[j1] in plain and kinds[j2] in plain
            and j1 != j2 and j1 not in out and j1 not in leaders and j2 not in out)  # fmt: skip


def _left_out_sections(w: _Walk) -> None:
    """Tendons, actuators, flexes and plugins, and fluid forces: forces robodyn's dynamics
    do not have, listed by name for the one warning."""
    for tag, what in (("tendon", "tendons"), ("actuator", "actuators"),
                      ("extension", "plugins"), ("deformable", "flexes and skins")):  # fmt: skip
        for section in w.doc.root.findall(tag):
            for el in section:
                w.leave_out(what, el.get("name") or f"<{el.tag}>")
    for setting in w.doc.fluid:
        w.leave_out("fluid forces", setting)


def _left_out_message(w: _Walk) -> str | None:
    if not w.left_out:
        return None
    parts = []
    for what, names in w.left_out.items():
        shown = ", ".join(repr(n) for n in names[:4]) + (", ..." if len(names) > 4 else "")
        parts.append(f"{len(names)} {what} ({shown})")
    return (
        f"MJCF {w.doc.origin}: robodyn's Model has no place for {'; '.join(parts)}; they are "
        "left out of its dynamics"
    )


# ---------------------------------------------------------------------------- the Model
class _Inertia:
    """(mass, com, inertia) handed to the builder as computed."""

    def __init__(self, body: _Body) -> None:
        self.mass, self.com, self.inertia = body.mass, body.com, body.inertia


def _body_joints(w: _Walk, body: _Body, floating_base, unjointed: list[str]) -> list[_Joint]:
    """The joints the body gets: as written, but a top-level body's free joint made fixed
    (``floating_base=False``) or one given to a top-level body without joints (True)."""
    js = body.joints
    free = [j for j in js if j.kind == "free"]
    if free and body.parent != "world":
        raise ModelError(f"{free[0].where}: a free joint is only allowed in a body of the world")
    if free and len(js) > 1:
        raise ModelError(f"{free[0].where}: a free joint must be its body's only joint")
    if free and floating_base is False:
        return []
    if floating_base and body.name in unjointed:
        name = "root_joint" if len(unjointed) == 1 else f"{body.name}_root_joint"
        return [_Joint(name, "free", _ZERO3, _ZERO3, -math.inf, math.inf, 0.0, 0.0, 0.0, math.inf,
                       f"body {body.name!r}")]  # fmt: skip
    return js


def _emit_body(b: ModelBuilder, body: _Body, joints: list[_Joint], mimics, taken, jtaken):
    """The robodyn bodies of one MuJoCo body (see the module docstring)."""
    inertia = _Inertia(body) if body.mass > 0 or np.any(body.inertia) else None
    parent, T = body.parent, (_EYE4 if joints and joints[0].kind == "free" else body.T)
    prev, own = _ZERO3, False  # own: the MuJoCo body is a robodyn body of its name
    for k, j in enumerate(joints):
        # joint k's frame: Trans(p_k - p_(k-1)) in the last one
        T = T @ _trans([a - b for a, b in zip(j.pos, prev)])
        own = k == len(joints) - 1 and not any(j.pos)
        name = body.name if own else unique_name(f"{body.name}_{j.name}", taken)
        follow = {}
        if j.name in mimics:
            lead, mult, off = mimics[j.name]
            follow = dict(mimic=lead, multiplier=mult, offset=off)
        b.add_body(
            name, parent, joint_name=j.name, joint_type=JOINT_KINDS[j.kind], axis=j.axis, T=T,
            inertia=inertia if own else None, lower=j.lower, upper=j.upper, effort=j.effort,
            damping=j.damping, friction=j.friction, armature=j.armature, **follow,
        )  # fmt: skip
        parent, T, prev = name, _EYE4, j.pos
    if not own:  # welded to its parent, or to its last joint's body at Trans(-p_n)
        T_fixed = T @ _trans([-a for a in prev])
        b.add_body(body.name, parent, joint_name=unique_name(f"{body.name}_fixed", jtaken),
                   joint_type="fixed", T=T_fixed, inertia=inertia)  # fmt: skip


def _build(w: _Walk, floating_base, mimics) -> tuple[Model, list[str]]:
    """The Model of the walked bodies and sites, and the notes on renamed sites."""
    b = ModelBuilder(name=w.doc.name, gravity=w.doc.gravity, root="world")
    taken = {"world"} | {body.name for body in w.bodies}
    jtaken = {j.name for body in w.bodies for j in body.joints}
    unjointed = [bd.name for bd in w.bodies if bd.parent == "world" and not bd.joints]
    for body in w.bodies:
        joints = _body_joints(w, body, floating_base, unjointed)
        for j in joints:
            if j.name in mimics and (j.damping or j.friction or j.armature):
                w.leave_out("damping, friction and armature of mimic joints", j.name)
        _emit_body(b, body, joints, mimics, taken, jtaken)
    notes = []
    sites = [(n, "world", T) for n, T in w.world_sites]  # MuJoCo's order: by body, the
    sites += [(n, body.name, T) for body in w.bodies for n, T in body.sites]  # world first
    for k, (name, host, T) in enumerate(sites):
        name = name or f"site{k}"
        frame = name if name not in taken else unique_name(f"{name}_site", taken)
        taken.add(frame)
        if frame != name:
            notes.append(f"site {name!r} is the frame {frame!r} (a body has its name)")
        b.add_frame(frame, host, T)
    return b.build(), notes


def load_mjcf(path_or_xml, *, floating_base: bool | None = None, mimic: bool = True) -> Model:
    """Load a MuJoCo MJCF model into a :class:`Model`, as MuJoCo compiles it.

    Reads bodies and joints (``hinge``, ``slide``, ``ball``, ``free``; several joints in a
    body become a chain of massless bodies), ``<compiler>`` (``angle``, ``eulerseq``,
    ``autolimits``, ``inertiafromgeom``, ``inertiagrouprange``, ``boundmass``,
    ``boundinertia``, ``balanceinertia``, ``settotalmass``, ``meshdir``/``assetdir``,
    ``strippath``), ``<default>`` classes and ``childclass``, ``<include>``, ``<frame>``,
    every orientation (``quat``, ``axisangle``, ``euler``, ``xyaxes``, ``zaxis``,
    ``fromto``), ``<inertial>`` (``diaginertia``, ``fullinertia``) or the inertia of the
    body's geoms by MuJoCo's rules (sphere, capsule, cylinder, ellipsoid, box, mesh from
    STL, OBJ or MSH files; ``density``, ``mass``, ``shellinertia``, the mesh's ``inertia``
    rule), joint ``range``, ``ref``, ``armature``, ``damping``, ``frictionloss`` and
    ``actuatorfrcrange`` (the effort limit), ``<site>`` elements as operational frames,
    ``<option gravity>``, ``<equality><joint>`` couplings as mimic joints, and the geoms
    MuJoCo draws as ``model.visuals`` (below). See :mod:`robodyn.model.mjcf` for how
    bodies, joints and coordinates map.

    Parameters
    ----------
    path_or_xml : str, os.PathLike or bytes
        A file path, or the XML as a string (first non-blank character ``<``) or bytes;
        the included files and meshes of a string are found from the working folder.
    floating_base : bool, optional
        None: the joints as written. True: each body of the world without a joint gets a
        free joint (``"root_joint"`` when there is one such body, else
        ``"<body>_root_joint"``), as if it had ``<freejoint/>``. False: the free joints of
        the world's bodies become welds at the bodies' written poses.
    mimic : bool
        True: ``<equality><joint joint1 joint2 polycoef>`` with polycoef ``c0 c1 0 0 0``
        makes joint1 follow joint2, ``q_1 = c0 + c1 q_2`` (no coordinate of its own);
        False: both stay independent and the equality is left out.

    Returns
    -------
    Model
        Bodies depth first; MuJoCo's body names are bodies or (welded bodies) frames, its
        sites frames; ``model.notes`` lists merges, renamed sites and what was left out.
        robodyn's q is MuJoCo's qpos with ``ref`` subtracted from hinge and slide joints;
        v is MuJoCo's qvel but for a free joint's ``[omega_b, v_b]`` (MuJoCo's is
        ``[v_world, omega_b]``). ``model.visuals`` holds ``(body index, T_body_geometry
        (4, 4) read-only, UrdfGeometry)`` for each geom MuJoCo's viewer draws, in MuJoCo's
        geom order, with the pose of the geometry's frame (z along a capsule's or a
        cylinder's axis) in the robodyn body that carries it (see Notes).

    Raises
    ------
    ModelError
        A ValueError naming the element: malformed or unsafe XML, a root other than
        ``<mujoco>``, a missing or repeated ``<include>`` file, an unknown joint or geom
        type or default class, a malformed orientation or number, a missing mesh file,
        a free joint below another body, inertias MuJoCo refuses, ``<composite>``,
        ``<flexcomp>``, ``<replicate>`` and ``<attach>`` (not supported).
    FileNotFoundError
        A path that does not exist.

    Warns
    -----
    ModelWarning
        One, listing by name what robodyn's Model cannot hold and leaves out: tendons,
        actuators, equality constraints other than the mimic couplings, joint springs,
        ball-joint cone limits, gravity compensation, fluid forces, plugins, flexes.

    Notes
    -----
    Where robodyn reads a file otherwise than MuJoCo: an inertia breaking the triangle
    inequality is kept with a ModelWarning (as :func:`robodyn.load_urdf` and Pinocchio keep
    it; MuJoCo refuses it unless ``balanceinertia``); MuJoCo's stored inertia of a mesh
    carries its eigen-solver's tolerance in the principal axes (a turn below ~1.4e-6 rad),
    robodyn's is the exact tensor of MuJoCo's rule; ASCII STL files are read (MuJoCo reads
    binary STL only); a massless moving body loads (MuJoCo refuses it; robodyn's forward
    dynamics then need mass below it).

    The visuals, for :func:`robodyn.viz.show`: every ``<geom>`` of every body and of the
    world that MuJoCo's viewers draw by default, i.e. of group 0, 1 or 2 (groups 3 to 5,
    which models use for collision proxies and helpers, are hidden by MuJoCo's default
    ``mjvOption`` and left out here too) and of a colour whose alpha is not 0. A sphere
    has ``radius`` = size[0]; a capsule or cylinder ``radius`` = size[0] and ``length`` =
    2 size[1] (or its ``fromto`` segment) along its z; a box ``size`` = 2 x MJCF's half
    sizes; an ellipsoid kind ``"ellipsoid"`` with ``size`` = its semi-axes; a mesh the
    absolute path of its asset's file (through ``meshdir``/``assetdir`` as for its
    inertia), the asset's ``scale``, and ``search_path`` the mesh folder (where the viewer
    may read it), posed at the file's own frame: where the geom was written, with the
    asset's ``refpos``/``refquat`` folded in, not the inertial frame MuJoCo re-centres a
    mesh at (a mesh given by its vertices in the XML, or turned by ``refquat`` under a
    non-uniform scale, is kind ``"unknown"``, not drawn). The colour is MuJoCo's: the
    geom's ``rgba`` (its own or its class's) unless that is the default grey ``0.5 0.5
    0.5 1`` and the geom has a ``material``, whose ``rgba`` it then takes (textures are
    not drawn). Planes, height fields, sdf geoms and primitives fitted to a mesh are left
    out.

    Examples
    --------
    >>> import robodyn as rd
    >>> arm = rd.load_mjcf('''<mujoco><worldbody><body name="link">
    ...   <joint name="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.5 0 0"
    ...   size="0.05"/></body></worldbody></mujoco>''')
    >>> arm.joint_names, round(arm.total_mass, 4)
    (('hinge',), 4.4506)
    """
    doc = read_document(path_or_xml)
    w = _Walk(doc, _mesh_assets(doc), _material_colours(doc))
    for world in doc.root.findall("worldbody"):
        _walk_children(w, world, None, np.eye(4), None, [])
    _total_mass(w)
    mimics = _mimics(w, bool(mimic))
    _left_out_sections(w)
    model, notes = _build(w, floating_base, mimics)
    message = _left_out_message(w)
    if message is not None:
        warnings.warn(message, ModelWarning, stacklevel=_outside_robodyn())
        notes.append(message)
    source = None if doc.origin.startswith("<") else os.path.abspath(doc.origin)
    return dataclasses.replace(
        model,
        notes=tuple(model.notes) + tuple(notes),
        source=source,
        visuals=_placed_visuals(model, w),
    )
