"""A Model written as MJCF, :func:`to_mjcf`; :func:`robodyn.load_mjcf` reads it back to the
same dynamics, and MuJoCo simulates it.

What goes where:

* every body is a ``<body>`` of its name at its joint placement (``pos``, ``quat``), its
  inertia an ``<inertial pos mass fullinertia>`` (the tensor about the centre of mass, body
  axes); no geoms (``<compiler inertiafromgeom="false">``), so MuJoCo has no contacts;
* every operational frame that is not a body's own is a ``<site>`` of its name;
* joints, with their ``range``, ``damping``, ``frictionloss`` (Coulomb friction),
  ``armature`` and ``actuatorfrcrange`` (the effort limit): revolute is ``hinge``, prismatic
  ``slide``, spherical ``ball`` (the same q and v), a fixed joint no joint (a welded
  body); a free joint on the world at the identity placement is ``type="free"`` (the same
  q; MuJoCo's qvel is ``[v_world, omega_b]``), elsewhere three slides along the joint
  frame's axes and a ball (``<j>_x``, ``<j>_y``, ``<j>_z``, ``<j>``: the same q, v becomes
  ``[p_dot; omega_b]`` with p_dot in the parent); a cylindrical joint is a hinge and a
  slide on its axis (``<j>``, ``<j>_slide``); a universal joint two hinges (``<j>``,
  ``<j>_axis2``); a helical joint a hinge and a slide ``<j>_screw`` coupled by an
  ``<equality><joint polycoef="0 pitch 0 0 0">`` (read back as a mimic: the same q and v);
  a planar joint two slides and a hinge (``<j>_x``, ``<j>_y``, ``<j>``: q becomes (x, y,
  phi), v the rates (x_dot, y_dot, phi_dot) in the joint frame);
* a mimic joint is its joint and an ``<equality><joint joint1=follower joint2=leader
  polycoef="offset multiplier 0 0 0">``;
* a massless body with one child, no frame but its own and hinge or slide joints is folded
  into its child (one MJCF body with several joints, each conjugated into the child's
  frame; MuJoCo refuses massless moving bodies): the frame of the folded body's name is
  lost (the loader names it ``<child>_<joint>``); the chains :func:`load_mjcf` makes for
  bodies with several joints come back as they were written.

MJCF cannot say: velocity limits, one-sided position limits, the Coulomb friction and the
armature of a planar joint or of a free joint off the world (written on slides, they act on
the rates in the parent's axes, not the body's; damping is the same), body 0's name
(MuJoCo's world is "world"), a body named "world" (written "world_body"). What a model has
of these is listed in one ModelWarning.
"""

from __future__ import annotations

import math
import warnings
from functools import reduce
from xml.sax.saxutils import quoteattr

import numpy as np

from .._files import write_text
from ..errors import ModelWarning
from ..spatial import rotation_to_quat
from . import joints as jt
from .model import planar_basis

__all__ = ["to_mjcf", "mjcf_text"]


def _num(xs) -> str:
    return " ".join(repr(float(x)) for x in np.ravel(xs))


class _Writer:
    """The MJCF lines of one model, and what MJCF cannot say of it."""

    def __init__(self, model, every_frame: bool, prefix: str) -> None:
        self.model, self.every_frame, self.prefix = model, every_frame, prefix
        self.lost: list[str] = []
        self.couplings: list[tuple[str, str, float, float]] = []  # (follower, leader, a1, a0)
        self.children: dict[int, list[int]] = {}
        for i in range(1, model.nb):
            self.children.setdefault(int(model.body_parent[i]), []).append(i)
        self.frames: dict[int, list[int]] = {}
        bodies = set(model.body_names)
        for k, name in enumerate(model.frame_names):
            if every_frame or name not in bodies:
                self.frames.setdefault(int(model.frame_body[k]), []).append(k)

    # -------------------------------------------------------------- joints
    def joints(self, i: int) -> list[dict]:
        """The MJCF joints of body i's joint, in the body's frame (see the module)."""
        m = self.model
        t, a, name = int(m.jnt_type[i]), np.asarray(m.jnt_axis[i]), m.joint_names_all[i]
        if t == jt.JOINT_FIXED:
            return []
        va = int(m.jnt_vadr[i])
        coef = {key: float(getattr(m, field)[va]) for key, field in _COEF}
        if m.jnt_mimic[i] >= 0:  # a follower: its coupling, no coefficients of its own
            lead = m.joint_names_all[int(m.jnt_mimic[i])]
            mult, off = float(m.jnt_mimic_mult[i]), float(m.jnt_mimic_offset[i])
            self.couplings.append((name, lead, mult, off))
            return [_joint("hinge" if t == jt.JOINT_REVOLUTE else "slide", name, a)]
        if t in (jt.JOINT_REVOLUTE, jt.JOINT_PRISMATIC, jt.JOINT_HELICAL):
            kind = "slide" if t == jt.JOINT_PRISMATIC else "hinge"
            out = [_joint(kind, name, a, coef, range=self.range(i, name))]
            if t == jt.JOINT_HELICAL:  # the translation follows the angle: pitch x theta
                out.append(_joint("slide", f"{name}_screw", a))
                self.couplings.append((f"{name}_screw", name, float(m.jnt_pitch[i]), 0.0))
            return out
        if t == jt.JOINT_SPHERICAL:
            return [_joint("ball", name, None, coef)]
        if t == jt.JOINT_CYLINDRICAL:
            return [_joint("hinge", name, a, coef), _joint("slide", f"{name}_slide", a, coef)]
        if t == jt.JOINT_UNIVERSAL:
            a2 = np.asarray(m.jnt_axis2[i])
            return [_joint("hinge", name, a, coef), _joint("hinge", f"{name}_axis2", a2, coef)]
        if t == jt.JOINT_PLANAR:
            t1, t2 = planar_basis(a)
            self.turning(name, "planar", coef)
            return [_joint("slide", f"{name}_x", t1, coef), _joint("slide", f"{name}_y", t2, coef),
                    _joint("hinge", name, a, coef)]  # fmt: skip
        return self.free(i, name, coef)  # jt.JOINT_FREE

    def free(self, i: int, name: str, coef: dict) -> list[dict]:
        """A free joint: MuJoCo's on the world at the identity, else slides and a ball."""
        m = self.model
        at_world = int(m.body_parent[i]) == 0 and not np.any(m.jnt_p[i])
        if at_world and np.array_equal(m.jnt_R[i], np.eye(3)):
            return [_joint("free", name, None, coef)]
        self.turning(name, "free", coef)
        e = np.eye(3)
        return [_joint("slide", f"{name}_{c}", e[k], coef) for k, c in enumerate("xyz")] + [
            _joint("ball", name, None, coef)
        ]

    def turning(self, name: str, kind: str, coef: dict) -> None:
        """A planar joint, or a free joint off the world, is written with slides along axes
        that do not turn with the body: its damping is the same (isotropic), its Coulomb
        friction and armature act along other directions (or on other accelerations)."""
        for key, what in (("frictionloss", "Coulomb friction"), ("armature", "armature")):
            if coef[key]:
                self.lost.append(f"the {what} of the {kind} joint {name!r} (on its slides "
                                 "it acts on the rates in the parent's axes)")  # fmt: skip

    def range(self, i: int, name: str) -> tuple | None:
        m = self.model
        qa, va = int(m.jnt_qadr[i]), int(m.jnt_vadr[i])
        lo, hi = float(m.q_lower[qa]), float(m.q_upper[qa])
        if math.isfinite(m.v_limit[va]):
            self.lost.append(f"the velocity limit of {name!r}")
        if math.isfinite(lo) and math.isfinite(hi):
            return lo, hi
        if math.isfinite(lo) or math.isfinite(hi):
            self.lost.append(f"the one-sided position limit of {name!r}")
        return None

    # -------------------------------------------------------------- bodies
    def foldable(self, i: int) -> bool:
        """A massless body with one child, no frame but its own, hinge or slide joints
        (its child's too) is folded into the child."""
        m = self.model
        kids = self.children.get(i, [])
        if len(kids) != 1 or m.body_mass[i] != 0 or np.any(m.body_inertia[i]) or \
                self.frames.get(i):  # fmt: skip
            return False
        plain = (jt.JOINT_REVOLUTE, jt.JOINT_PRISMATIC, jt.JOINT_CYLINDRICAL, jt.JOINT_UNIVERSAL,
                 jt.JOINT_HELICAL)  # fmt: skip
        c = kids[0]
        return int(m.jnt_type[i]) in plain and int(m.jnt_type[c]) in plain + (jt.JOINT_FIXED,)

    def body(self, i: int, depth: int, offset: np.ndarray | None = None) -> list[str]:
        """The MJCF of body i (with the massless bodies folded into it) and its subtree;
        ``offset``: the pose of its parent's frame in the parent's MJCF body frame."""
        m = self.model
        chain = [i]
        while self.foldable(chain[-1]):
            chain.append(self.children[chain[-1]][0])
        k, anchor = chain[-1], self.anchor_frame(chain[-1])
        T_kF = self.frame_pose(anchor) if anchor is not None else np.eye(4)
        name = m.frame_names[anchor] if anchor is not None else m.body_names[k]
        if name == "world":  # MuJoCo's world body has the name
            name = "world_body"
            self.lost.append("the name of body 'world' (MuJoCo's world has it): 'world_body'")
        placements = [self.placement(b) for b in chain] + [T_kF]
        if offset is not None:
            placements[0] = offset @ placements[0]
        joints: list[dict] = []
        for n, b in enumerate(chain):  # G: from b's frame to the MJCF body's frame at q = 0
            G = reduce(np.matmul, placements[n + 1 :], np.eye(4))
            joints += [self.conjugated(j, G) for j in self.joints(b)]
        self.note_folded(chain, name)
        T = reduce(np.matmul, placements, np.eye(4))
        ind = "  " * depth
        lines = [f"{ind}<body name={quoteattr(name)} pos={quoteattr(_num(T[:3, 3]))} "
                 f"quat={quoteattr(_num(rotation_to_quat(T[:3, :3])))}>"]  # fmt: skip
        lines += [ind + "  " + _joint_xml(j) for j in joints]
        F_k = _inverse(T_kF)  # body k's frame in the MJCF body's
        if m.body_mass[k] > 0 or np.any(m.body_inertia[k]):
            lines.append(f"{ind}  {_inertial_xml(m, k, F_k)}")
        lines += self.sites(k, ind + "  ", F_k, skip=anchor)
        for c in self.children.get(k, []):
            lines += self.body(c, depth + 1, F_k if anchor is not None else None)
        lines.append(f"{ind}</body>")
        return lines

    def anchor_frame(self, k: int) -> int | None:
        """The frame of body k that :func:`load_mjcf` made for a MuJoCo body whose last
        joint turns about an anchor away from its origin: the body is
        ``<frame>_<joint>``, the frame a pure translation on it. Written as the MJCF body
        (the joint with its ``pos``), the file reads back to the same names."""
        m = self.model
        if int(m.jnt_type[k]) in (jt.JOINT_FIXED, jt.JOINT_FREE) or m.jnt_mimic[k] >= 0:
            return None
        for f in self.frames.get(k, []):
            own = f"{m.frame_names[f]}_{m.joint_names_all[k]}" == m.body_names[k]
            if own and np.array_equal(m.frame_R[f], np.eye(3)):
                return f
        return None

    def note_folded(self, chain: list[int], name: str) -> None:
        """Record the folded bodies whose frames the loader will not name again."""
        m = self.model
        lost = [repr(m.body_names[b]) for b in chain[:-1]
                if m.body_names[b] != f"{name}_{m.joint_names_all[b]}"]  # fmt: skip
        if lost:
            self.lost.append(f"the frames of the massless {', '.join(lost)} (folded into "
                             f"{name!r}; MuJoCo refuses massless moving bodies)")  # fmt: skip

    def frame_pose(self, f: int) -> np.ndarray:
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = self.model.frame_R[f], self.model.frame_p[f]
        return T

    def placement(self, i: int) -> np.ndarray:
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = self.model.jnt_R[i], self.model.jnt_p[i]
        return T

    @staticmethod
    def conjugated(j: dict, G: np.ndarray) -> dict:
        """Joint j of a folded body as a joint of the MJCF body: with G = (R, p) the
        placements from the folded body to the MJCF body at q = 0, ``X = G^-1 J G`` is a
        turn about ``R^T a`` through ``-R^T p`` (a slide along ``R^T a``; a ball turns
        about ``-p`` when R = 1, the only case written)."""
        if np.array_equal(G, np.eye(4)):
            return j
        R, p = G[:3, :3], G[:3, 3]
        out = dict(j, axis=None if j["axis"] is None else R.T @ j["axis"])
        if j["type"] in ("hinge", "ball"):
            out["pos"] = -R.T @ p
        return out

    def sites(self, b: int, ind: str, F=None, skip: int | None = None) -> list[str]:
        """The sites of body b's frames (not ``skip``), ``F`` the pose of b's frame in the
        MJCF body's (None: the same)."""
        m = self.model
        out = []
        for f in self.frames.get(b, []):
            if f == skip:
                continue
            T = self.frame_pose(f) if F is None else F @ self.frame_pose(f)
            quat = _num(rotation_to_quat(T[:3, :3]))
            out.append(f"{ind}<site name={quoteattr(self.prefix + m.frame_names[f])} "
                       f'pos="{_num(T[:3, 3])}" quat="{quat}"/>')  # fmt: skip
        return out


def _inverse(T: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3], out[:3, 3] = T[:3, :3].T, -T[:3, :3].T @ T[:3, 3]
    return out


_COEF = (("damping", "dof_damping"), ("frictionloss", "dof_friction"),
         ("armature", "dof_armature"), ("effort", "effort_limit"))  # fmt: skip
_NO_COEF = dict(damping=0.0, frictionloss=0.0, armature=0.0, effort=math.inf)


def _joint(kind: str, name: str, axis, coef: dict = _NO_COEF, **extra) -> dict:
    """One MJCF joint's attributes (``axis`` None for ball and free joints)."""
    return dict(name=name, type=kind, axis=axis, **coef, **extra)


def _inertial_xml(m, k: int, F: np.ndarray) -> str:
    """``<inertial>`` of body k in the MJCF body frame (``F``: the pose of k's frame in it):
    ``diaginertia`` when the tensor is diagonal in the body's axes, else ``fullinertia``
    (Ixx Iyy Izz Ixy Ixz Iyz)."""
    R, p = F[:3, :3], F[:3, 3]
    c = R @ np.asarray(m.body_com[k]) + p
    I = R @ np.asarray(m.body_inertia[k]) @ R.T
    head = f'<inertial pos="{_num(c)}" mass="{float(m.body_mass[k])!r}"'
    if not (I[0, 1] or I[0, 2] or I[1, 2]):
        return f'{head} diaginertia="{_num(np.diag(I))}"/>'
    return f'{head} fullinertia="{_num([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>'


def _joint_xml(j: dict) -> str:
    """One ``<joint>`` element: the attributes a joint has, coefficients only when not 0."""
    attrs = [("name", quoteattr(j["name"])), ("type", f'"{j["type"]}"')]
    attrs += [(key, f'"{_num(j[key])}"') for key in ("axis", "pos", "range")
              if j.get(key) is not None]  # fmt: skip
    attrs += [(key, f'"{j[key]!r}"') for key in ("damping", "frictionloss", "armature") if j[key]]
    if math.isfinite(j["effort"]):
        attrs.append(("actuatorfrcrange", f'"{_num([-j["effort"], j["effort"]])}"'))
    return "<joint " + " ".join(f"{key}={value}" for key, value in attrs) + "/>"


def mjcf_text(model, *, every_frame: bool = False, site_prefix: str = "",
              constraints: bool = True) -> tuple[str, list[str]]:  # fmt: skip
    """The MJCF text of ``model`` and what MJCF cannot say of it (see the module docstring).

    Parameters
    ----------
    model : Model
    every_frame : bool
        A site for every operational frame, the bodies' own too (for comparing frames).
    site_prefix : str
        Put before each site's name.
    constraints : bool
        False: ``<flag constraint="disable" contact="disable"/>`` (no joint limits, no
        couplings: the rigid-body dynamics alone).

    Returns
    -------
    (str, list of str)
    """
    w = _Writer(model, every_frame, site_prefix)
    body_lines: list[str] = []
    for c in w.children.get(0, []):
        body_lines += w.body(c, 2)
    flags = "" if constraints else '\n    <flag contact="disable" constraint="disable"/>\n  '
    out = [
        f"<mujoco model={quoteattr(model.name or 'robot')}>",
        '  <compiler angle="radian" autolimits="true" inertiafromgeom="false"/>',
        f'  <option gravity="{_num(model.gravity)}">{flags}</option>',
        "  <worldbody>",
        *w.sites(0, "    "),
        *body_lines,
        "  </worldbody>",
    ]
    if w.couplings:
        out.append("  <equality>")
        out += [f"    <joint joint1={quoteattr(f)} joint2={quoteattr(lead)} "
                f'polycoef="{_num([a0, a1, 0, 0, 0])}"/>'
                for f, lead, a1, a0 in w.couplings]  # fmt: skip
        out.append("  </equality>")
    out.append("</mujoco>")
    if model.body_names[0] != "world":
        w.lost.append(f"the name of body 0, {model.body_names[0]!r} (MuJoCo's world is 'world')")
    return "\n".join(out) + "\n", w.lost


def to_mjcf(model, path=None, *, overwrite: bool = False):
    """Write ``model`` as an MJCF file that :func:`robodyn.load_mjcf` reads back to the same
    dynamics and MuJoCo simulates (see :mod:`robodyn.model.mjcf_export` for how each joint
    is written).

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
        The path written, or the MJCF text when ``path`` is None.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    ValueError
        The folder is missing or not writable, or ``path`` is a folder.

    Warns
    -----
    ModelWarning
        Once, listing what MJCF cannot say of this model (velocity limits, one-sided
        limits, folded massless bodies' frames, ...).

    Examples
    --------
    >>> import robodyn as rd
    >>> text = rd.to_mjcf(rd.models.load("planar_2r"))
    >>> rd.load_mjcf(text).joint_names
    ('joint1', 'joint2')
    """

    def text_of() -> str:
        text, lost = mjcf_text(model)
        if lost:  # stacklevel 4: the caller of to_mjcf (through write_text)
            warnings.warn(ModelWarning("to_mjcf: MJCF cannot say " + "; ".join(lost)),
                          stacklevel=4)  # fmt: skip
        return text

    return write_text(path, text_of, overwrite=overwrite)
