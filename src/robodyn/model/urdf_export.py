"""A Model written as URDF, :func:`to_urdf`; :func:`robodyn.load_urdf` reads it back to the
same dynamics.

What goes where:

* every body is a ``<link>`` of its name: its inertia as ``<inertial>`` (the centre of mass
  as ``<origin xyz>``, the tensor about it in link axes, ``rpy`` zero), its visuals as
  ``<visual>``; body 0 is the root link (the world);
* every operational frame that is not a body's own is a massless link on a ``fixed`` joint
  (``<frame>_fixed``) from its body: the loader merges it back and keeps it as a frame;
* every joint is a ``<joint>`` from the parent's link with its placement as ``<origin xyz
  rpy>`` (fixed-axis roll-pitch-yaw, extracted without loss near pitch = +-pi/2),
  ``<axis>``, ``<limit>``, ``<dynamics damping friction>`` and ``<mimic>``. Revolute with
  both position limits infinite is ``continuous``; prismatic, fixed (a welded body),
  ``planar`` (its normal as the axis) and ``floating`` (a free joint) are URDF's own.
* the joints of MR Table 2.1 that URDF lacks, as a chain of URDF joints through massless
  links (``<joint>__link``) that reads back to the same q, v and dynamics: a universal
  joint ``j`` is the revolute ``j`` (axis) then the revolute ``j__axis2``; a cylindrical
  joint the revolute ``j`` then the prismatic ``j__slide`` along the same axis; a helical
  joint the revolute ``j`` then the prismatic ``j__screw`` along the axis, a ``<mimic>`` of
  ``j`` with multiplier the pitch (a screw: the translation is pitch x angle). These are
  plain URDF joints (see the last point for their limits); robodyn's loader warns that the
  massless links are moved by a joint (the warning is about the link; the dynamics are
  exact).
* a spherical joint is ``type="spherical"``, PyBullet's extension of URDF, which robodyn
  and PyBullet read (urdfdom and Pinocchio refuse the file); three revolute joints would
  change its coordinates (a quaternion) into Euler angles with a singularity.
* armature (rotor inertia) is the attribute ``armature`` of ``<dynamics>``, an extension
  other readers ignore (URDF has none).
* a prismatic joint without position limits (the cylindrical and helical chains'
  translation among them) has no ``<limit>``, which robodyn reads as unlimited; urdfdom and
  Pinocchio refuse such a file (they require ``<limit>`` on every revolute and prismatic
  joint, and ``<limit>`` without lower and upper means [0, 0]). A model loaded from a URDF
  they read is written so that they read it again.

URDF cannot say: gravity (a comment in the file gives it; ``load_urdf(path,
gravity=...)``), a one-sided position limit, velocity or effort limits of a prismatic
joint with no position limits, and different limits or coefficients on the coordinates
of one multi-dof joint (free, spherical, planar). What a model has of these is listed in
one :class:`~robodyn.errors.ModelWarning` and written as near as URDF allows (the dynamics
are unchanged). Body 0 is the root link of its name: ``load_urdf`` makes it the world
when it is called "world" (or "universe" beside a link "world"); another name needs
``load_urdf(path, root_name=name)``. The loader orders sibling joints by name, so the
coordinates may come back in another order: match them by ``model.joint_names``.

This module reads a Model's arrays only, so it sits below :mod:`robodyn.model.model`
(:meth:`Model.to_urdf` calls it).
"""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET

import numpy as np

from .._files import write_text
from ..errors import ModelWarning
from ..spatial import rot_y, rot_z
from . import joints

__all__ = ["to_urdf", "urdf_text", "rpy_of"]

# the URDF word of the joints URDF has (a revolute joint may become "continuous")
_WORD = {
    joints.JOINT_REVOLUTE: "revolute",
    joints.JOINT_PRISMATIC: "prismatic",
    joints.JOINT_FIXED: "fixed",
    joints.JOINT_FREE: "floating",
    joints.JOINT_PLANAR: "planar",
    joints.JOINT_SPHERICAL: "spherical",
}
# a chain for the joints URDF lacks: (suffix of the second joint, its URDF type)
_CHAIN = {
    joints.JOINT_UNIVERSAL: ("__axis2", "revolute"),
    joints.JOINT_CYLINDRICAL: ("__slide", "prismatic"),
    joints.JOINT_HELICAL: ("__screw", "prismatic"),
}


def _num(x) -> str:
    """Numbers as the shortest text that reads back to the same float64 (repr)."""
    return " ".join(repr(float(v) + 0.0) for v in np.ravel(x))  # (+ 0.0: no "-0.0")


def rpy_of(R) -> np.ndarray:
    """Fixed-axis (roll, pitch, yaw) with ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (URDF's), to
    round-off also near pitch = +-pi/2: pitch from the first column, yaw from it as far as
    it tells, and roll from what ``Rz(yaw) Ry(pitch)`` leaves, so that the product gives R
    back whatever error yaw has where cos(pitch) is small."""
    R = np.asarray(R, dtype=float)
    pitch = np.arctan2(-R[2, 0], np.hypot(R[0, 0], R[1, 0]))
    yaw = np.arctan2(R[1, 0], R[0, 0])
    X = (rot_z(yaw) @ rot_y(pitch)).T @ R  # = Rx(roll), to round-off
    roll = np.arctan2(X[2, 1] - X[1, 2], X[1, 1] + X[2, 2])
    return np.array([roll, pitch, yaw])


class _Writer:
    """The ``<robot>`` element being written, the names taken and what URDF cannot say."""

    def __init__(self, model) -> None:
        self.model = model
        self.robot = ET.Element("robot", name=model.name or "robot")
        self.links = set(model.body_names) | set(model.frame_names)
        self.joints = set(model.joint_names_all)
        self.lost: list[str] = []

    def link(self, name: str, body: int | None = None) -> None:
        """A ``<link>``; with ``body``, that body's inertia and visuals."""
        el = ET.SubElement(self.robot, "link", name=name)
        if body is None:
            return
        m = self.model
        mass, com, I = float(m.body_mass[body]), m.body_com[body], m.body_inertia[body]
        if body > 0 and (mass > 0 or np.any(I != 0)):
            inertial = ET.SubElement(el, "inertial")
            ET.SubElement(inertial, "origin", xyz=_num(com), rpy="0.0 0.0 0.0")
            ET.SubElement(inertial, "mass", value=_num(mass))
            ET.SubElement(inertial, "inertia", ixx=_num(I[0, 0]), ixy=_num(I[0, 1]),
                          ixz=_num(I[0, 2]), iyy=_num(I[1, 1]), iyz=_num(I[1, 2]),
                          izz=_num(I[2, 2]))  # fmt: skip
        for k, (b, T, g) in enumerate(m.visuals):
            if b == body:
                _visual(el, T, g, f"{name}_material_{k}")

    def joint(self, name, kind, parent, child, T=None, axis=None, **parts) -> ET.Element:
        """A ``<joint>``; ``parts``: the attributes of its ``limit``, ``dynamics`` and
        ``mimic`` elements (dicts of text, None or empty for none)."""
        el = ET.SubElement(self.robot, "joint", name=name, type=kind)
        if T is not None:
            ET.SubElement(el, "origin", xyz=_num(T[:3, 3]), rpy=_num(rpy_of(T[:3, :3])))
        ET.SubElement(el, "parent", link=parent)
        ET.SubElement(el, "child", link=child)
        if axis is not None:
            ET.SubElement(el, "axis", xyz=_num(axis))
        for tag in ("limit", "dynamics", "mimic"):
            if parts.get(tag):
                ET.SubElement(el, tag, **parts[tag])
        return el


def _visual(link: ET.Element, T, g, material: str) -> None:
    """A ``<visual>`` of the geometry ``g`` at ``T`` in the link (unknown shapes skipped)."""
    shape = {"box": lambda: {"size": _num(g.size)},
             "cylinder": lambda: {"radius": _num(g.radius), "length": _num(g.length)},
             "capsule": lambda: {"radius": _num(g.radius), "length": _num(g.length)},
             "sphere": lambda: {"radius": _num(g.radius)},
             "mesh": lambda: {"filename": g.filename or "",
                              "scale": _num(g.scale or (1.0, 1.0, 1.0))}}  # fmt: skip
    if g.kind not in shape:
        return
    el = ET.SubElement(link, "visual")
    T = np.asarray(T, dtype=float)
    ET.SubElement(el, "origin", xyz=_num(T[:3, 3]), rpy=_num(rpy_of(T[:3, :3])))
    ET.SubElement(ET.SubElement(el, "geometry"), g.kind, **shape[g.kind]())
    if g.rgba is not None:
        ET.SubElement(ET.SubElement(el, "material", name=material), "color", rgba=_num(g.rgba))


def _same(values: np.ndarray, what: str, joint: str, lost: list) -> float | None:
    """The one value a URDF joint has for ``values`` (a multi-dof joint's per coordinate):
    None, and a note in ``lost``, when they differ."""
    if len(values) == 0:
        return None
    if np.all(values == values[0]):
        return float(values[0])
    lost.append(f"joint {joint!r}: different {what} per coordinate {values.tolist()} (not "
                "written)")  # fmt: skip
    return None


def _dynamics(w: _Writer, joint: str, dofs: slice) -> dict:
    """``<dynamics damping friction armature>`` of the dofs ``dofs`` (zeros left out)."""
    m, out = w.model, {}
    for attr, field in (("damping", m.dof_damping), ("friction", m.dof_friction),
                        ("armature", m.dof_armature)):  # fmt: skip
        x = _same(field[dofs], attr, joint, w.lost)
        if x:
            out[attr] = _num(x)
    return out


def _limit(w: _Writer, joint: str, word: str, q: int | None, dofs: slice) -> tuple[str, dict]:
    """``(type, <limit> attributes)`` of a joint whose URDF type is ``word`` with position
    coordinate ``q`` (None: none limited) and dofs ``dofs``: a revolute joint without
    position limits becomes continuous; what URDF cannot say is noted in ``w.lost``."""
    m, out = w.model, {}
    for attr, field in (("velocity", m.v_limit), ("effort", m.effort_limit)):
        x = _same(field[dofs], f"{attr} limits", joint, w.lost)
        if x is not None and np.isfinite(x):
            out[attr] = _num(x)
    if q is None or word not in ("revolute", "prismatic"):
        return word, out
    lo, hi = float(m.q_lower[q]), float(m.q_upper[q])
    if np.isfinite(lo) and np.isfinite(hi):
        return word, {"lower": _num(lo), "upper": _num(hi), **out}
    if np.isfinite(lo) or np.isfinite(hi):
        w.lost.append(f"joint {joint!r}: one-sided position limits [{lo:g}, {hi:g}] (written "
                      "unlimited)")  # fmt: skip
    if word == "revolute":
        return "continuous", out
    if out:  # a <limit> would read as lower = upper = 0
        w.lost.append(f"joint {joint!r}: velocity and effort limits of a prismatic joint "
                      "without position limits (not written)")  # fmt: skip
    return word, {}


def _mimic_limit(w: _Writer, i: int, word: str) -> tuple[str, dict]:
    """The type and ``<limit>`` of the mimic joint i: its leader's limits taken through
    the coupling (URDF readers that ignore ``<mimic>`` need them)."""
    m = w.model
    lead = int(m.jnt_mimic[i])
    qa, va = int(m.jnt_qadr[lead]), int(m.jnt_vadr[lead])
    kind, lim = _limit(w, m.joint_names_all[lead], word, qa, slice(va, va + 1))
    a, b = float(m.jnt_mimic_mult[i]), float(m.jnt_mimic_offset[i])
    if "lower" in lim:
        lo, hi = sorted((a * float(m.q_lower[qa]) + b, a * float(m.q_upper[qa]) + b))
        lim.update(lower=_num(lo), upper=_num(hi))
    return kind, lim


def _body_joint(w: _Writer, i: int) -> None:
    """Body i's link and its inboard joint (a chain of two for the joints URDF lacks)."""
    m = w.model
    name, jname = m.body_names[i], m.joint_names_all[i]
    parent = m.body_names[m.body_parent[i]]
    jt = int(m.jnt_type[i])
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = m.jnt_R[i], m.jnt_p[i]
    qa, va, nv = int(m.jnt_qadr[i]), int(m.jnt_vadr[i]), int(m.jnt_nv[i])
    axis = (
        None
        if jt in (joints.JOINT_FIXED, joints.JOINT_FREE, joints.JOINT_SPHERICAL)
        else m.jnt_axis[i]
    )
    if m.jnt_mimic[i] >= 0:
        kind, lim = _mimic_limit(w, i, _WORD[jt])
        mimic = {
            "joint": m.joint_names_all[m.jnt_mimic[i]],
            "multiplier": _num(m.jnt_mimic_mult[i]),
            "offset": _num(m.jnt_mimic_offset[i]),
        }
        w.joint(jname, kind, parent, name, T, axis, limit=lim, mimic=mimic)  # fmt: skip
    elif jt in _WORD:
        q = qa if jt in (joints.JOINT_REVOLUTE, joints.JOINT_PRISMATIC) else None
        kind, lim = _limit(w, jname, _WORD[jt], q, slice(va, va + nv))
        dyn = _dynamics(w, jname, slice(va, va + nv))
        w.joint(jname, kind, parent, name, T, axis, limit=lim, dynamics=dyn)
    else:
        _chain(w, i, T)
    w.link(name, i)


def _chain(w: _Writer, i: int, T: np.ndarray) -> None:
    """A universal, cylindrical or helical joint as a revolute joint, a massless link and
    a second joint (see the module docstring); the body's link is written by the caller."""
    m = w.model
    name, jname = m.body_names[i], m.joint_names_all[i]
    jt = int(m.jnt_type[i])
    qa, va = int(m.jnt_qadr[i]), int(m.jnt_vadr[i])
    middle = joints.unique_name(f"{jname}__link", w.links)
    suffix, word = _CHAIN[jt]
    second = joints.unique_name(jname + suffix, w.joints)
    kind, lim = _limit(w, jname, "revolute", qa, slice(va, va + 1))
    w.joint(jname, kind, m.body_names[m.body_parent[i]], middle, T, m.jnt_axis[i], limit=lim,
            dynamics=_dynamics(w, jname, slice(va, va + 1)))  # fmt: skip
    w.link(middle)
    if jt == joints.JOINT_HELICAL:  # the translation follows the angle: pitch * theta
        mimic = {"joint": jname, "multiplier": _num(m.jnt_pitch[i]), "offset": "0.0"}
        w.joint(second, "prismatic", middle, name, None, m.jnt_axis[i], mimic=mimic)
        return
    axis = m.jnt_axis2[i] if jt == joints.JOINT_UNIVERSAL else m.jnt_axis[i]
    kind, lim = _limit(w, second, word, qa + 1, slice(va + 1, va + 2))
    w.joint(second, kind, middle, name, None, axis, limit=lim,
            dynamics=_dynamics(w, second, slice(va + 1, va + 2)))  # fmt: skip


def urdf_text(model) -> tuple[str, list[str]]:
    """The URDF of ``model`` as text, and what URDF could not say (see the module
    docstring); :func:`to_urdf` writes it."""
    w = _Writer(model)
    g = ", ".join(repr(float(x)) for x in model.gravity)
    note = (f" written by robodyn from the model {model.name!r}. URDF has no gravity: this "
            f"model's is [{g}] m/s^2 (load_urdf(path, gravity=...)) ")  # fmt: skip
    w.robot.append(ET.Comment(note.replace("--", "- -")))
    w.link(model.body_names[0], 0)
    for i in range(1, model.nb):
        _body_joint(w, i)
    bodies = set(model.body_names)
    for k, fname in enumerate(model.frame_names):
        if fname in bodies:
            continue
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = model.frame_R[k], model.frame_p[k]
        jname = joints.unique_name(f"{fname}_fixed", w.joints)
        w.joint(jname, "fixed", model.body_names[model.frame_body[k]], fname, T)
        w.link(fname)
    ET.indent(w.robot, space="  ")
    text = '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(w.robot, encoding="unicode")
    return text + "\n", w.lost


def to_urdf(model, path=None, *, overwrite: bool = False):
    """Write ``model`` as a URDF file that :func:`robodyn.load_urdf` reads back to the same
    dynamics (see the module docstring for how each joint is written).

    Parameters
    ----------
    model : Model
    path : str or os.PathLike, optional
        The file to write; checked before any work: an existing file is refused unless
        ``overwrite=True``, and the file is written atomically (a temporary file renamed over
        it when complete). None: the text is returned, nothing written.
    overwrite : bool
        Replace an existing file.

    Returns
    -------
    pathlib.Path or str
        The path written, or the URDF text when ``path`` is None.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    ValueError
        The folder is missing or not writable, or ``path`` is a folder.

    Warns
    -----
    ModelWarning
        Once, listing what URDF cannot say of this model (one-sided limits, velocity or
        effort limits of an unbounded prismatic joint, coefficients that differ between
        the coordinates of one joint); gravity is given in a comment.
    """

    def text_of() -> str:
        text, lost = urdf_text(model)
        if lost:  # stacklevel 4: the caller of to_urdf (through write_text)
            warnings.warn(ModelWarning("to_urdf: URDF cannot say " + "; ".join(lost)),
                          stacklevel=4)  # fmt: skip
        return text

    return write_text(path, text_of, overwrite=overwrite)
