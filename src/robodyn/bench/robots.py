"""The benchmark's robots in every library, which all the sections share.

Where example-robot-data is (:func:`erd_dir`) and the URDF text every library parses
(:func:`urdf_text`); robodyn's Model of it (:func:`load_robodyn_model`); Pinocchio's
model (its own URDF parser, or :func:`pin_model_from` robodyn's Model); MuJoCo's (its own
URDF importer, :func:`mujoco_from_urdf`, or the MJCF written from robodyn's Model,
:func:`mjcf_from`); and a :class:`Case`: one robot in robodyn and Pinocchio with its random
states (:func:`_build_case`).
"""

from __future__ import annotations

import dataclasses
import os
import sysconfig
import warnings
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from .common import MODELS, Config

_ERD_FILES = {
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "talos": "talos_data/robots/talos_full_v2.urdf",
}


_PANDA_FINGERS = ("panda_finger_joint1", "panda_finger_joint2")


_FLOATING = ("solo12", "talos")


_JAC_FRAME = {
    "ur5": "tool0", "panda": "panda_hand", "solo12": "FL_FOOT", "talos": "arm_left_7_link"
}  # fmt: skip


_BUNDLED_JAC_FRAME = "ee"  # the tool frame of the bundled robots


def erd_dir() -> str | None:
    """The example-robot-data ``robots`` folder in site-packages, or None."""
    for base in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        d = os.path.join(base, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(d):
            return d
    return None


def _strip_friction(model):
    """The model without joint damping, Coulomb friction and armature (rigid bodies only)."""
    z = np.zeros(model.nv)
    return dataclasses.replace(model, dof_damping=z, dof_friction=z, dof_armature=z)


def _panda_locked_xml(path: str) -> str:
    """The Panda URDF text with the finger joints turned into fixed joints."""
    with open(path, encoding="utf-8") as fh:
        root = ET.fromstring(fh.read())
    for joint in root.iter("joint"):
        if joint.get("name") in _PANDA_FINGERS:
            joint.set("type", "fixed")
            for tag in ("limit", "mimic", "axis", "dynamics", "safety_controller"):
                for el in joint.findall(tag):
                    joint.remove(el)
    return ET.tostring(root, encoding="unicode")


def urdf_text(name: str) -> str | None:
    """The URDF text every library parses for a benchmark robot (the Panda with its fingers
    locked), or None when example-robot-data is not installed (bundled UR5 and Panda)."""
    d = erd_dir()
    if d is None:
        return None
    path = os.path.join(d, _ERD_FILES[name])
    if name == "panda":
        return _panda_locked_xml(path)
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def load_robodyn_model(name: str):
    """robodyn's Model of a benchmark robot (friction removed) and its source text.

    With example-robot-data installed every robot is its URDF (the Panda with its fingers
    locked; solo12 and Talos on a floating base), which robodyn, Pinocchio and MuJoCo each
    parse themselves (:func:`urdf_text`). Without it the UR5 and the Panda are the bundled
    ones (never missing), and solo12 and Talos are skipped.

    Parameters
    ----------
    name : {"ur5", "panda", "solo12", "talos"}

    Returns
    -------
    (Model, str)

    Raises
    ------
    FileNotFoundError
        solo12 or Talos without example-robot-data.
    """
    from .. import models
    from ..errors import ModelWarning
    from ..model.urdf import load_urdf

    text = urdf_text(name) if name in _ERD_FILES else None
    if text is None:
        if name in ("ur5", "panda"):
            source = {
                "ur5": "bundled ur5 (Modern Robotics numbers; example-robot-data's UR5 when "
                "installed)",
                "panda": "bundled panda (modified DH, Gaz et al. 2019; example-robot-data's "
                "Panda when installed)",
            }[name]
            return _strip_friction(models.load(name)), source
        raise FileNotFoundError(f"{name} needs example-robot-data")
    # inertias as written, as Pinocchio reads them; their warnings are not the bench's subject
    floating = name in _FLOATING
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        m = load_urdf(text, floating_base=floating, mimic=False, invalid_inertia="keep")
    how = "fingers locked" if name == "panda" else ("floating base" if floating else "fixed base")
    return _strip_friction(m), f"{_ERD_FILES[name]}, {how}"


def pin_model_from(model, pin):
    """A ``pinocchio.Model`` of the same tree as a robodyn Model (joints, inertias, frames).

    Parameters
    ----------
    model : Model
    pin : module
        ``pinocchio``.

    Returns
    -------
    pinocchio.Model
    """
    from ..model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE

    pm = pin.Model()
    pm.name = model.name
    jid = {0: 0}
    for i in range(1, model.nb):
        t = int(model.jnt_type[i])
        ax = np.asarray(model.jnt_axis[i], dtype=float)
        if t == JOINT_REVOLUTE:
            jm = pin.JointModelRevoluteUnaligned(ax)
            for k, cls in enumerate((pin.JointModelRX, pin.JointModelRY, pin.JointModelRZ)):
                if np.allclose(ax, np.eye(3)[k], atol=0, rtol=0):
                    jm = cls()
        elif t == JOINT_PRISMATIC:
            jm = pin.JointModelPrismaticUnaligned(ax)
        elif t == JOINT_FREE:
            jm = pin.JointModelFreeFlyer()
        else:
            raise ValueError(f"joint type {t} of body {model.body_names[i]!r} not supported")
        placement = pin.SE3(np.array(model.jnt_R[i]), np.array(model.jnt_p[i]))
        j = pm.addJoint(jid[int(model.body_parent[i])], jm, placement, model.joint_names_all[i])
        jid[i] = j
        inertia = pin.Inertia(
            float(model.body_mass[i]), np.array(model.body_com[i]), np.array(model.body_inertia[i])
        )
        pm.appendBodyToJoint(j, inertia, pin.SE3.Identity())
    for f, fname in enumerate(model.frame_names):
        b = int(model.frame_body[f])
        pl = pin.SE3(np.array(model.frame_R[f]), np.array(model.frame_p[f]))
        pm.addFrame(pin.Frame(fname, jid[b], pl, pin.FrameType.OP_FRAME))
    pm.gravity.linear = np.array(model.gravity, dtype=float)
    return pm


def load_pin_model(name: str, model, pin):
    """Pinocchio's model of a benchmark robot: Pinocchio's own URDF parser on the text of
    :func:`urdf_text` (a free flyer for a floating base); a bundled robot (no
    example-robot-data) is built from robodyn's Model."""
    text = urdf_text(name) if name in _ERD_FILES else None
    if text is None:
        return pin_model_from(model, pin), "built from robodyn's Model (no URDF)"
    if name in _FLOATING:
        return pin.buildModelFromXML(
            text, pin.JointModelFreeFlyer()
        ), "its URDF parser + free flyer"
    return pin.buildModelFromXML(text), "its URDF parser"


def mujoco_from_urdf(text: str, floating: bool, model, mujoco):
    """MuJoCo's model of a URDF by MuJoCo's own URDF importer: visual and collision
    geometry dropped (meshes are not needed for dynamics), every link kept as a body
    (``fusestatic="false"``) so the frames are bodies of the same names, a free joint on
    the root body for a floating base; joint damping, friction and armature zeroed,
    contacts and constraints off, gravity robodyn's."""
    root = ET.fromstring(text)
    for link in root.iter("link"):
        for tag in ("visual", "collision"):
            for el in link.findall(tag):
                link.remove(el)
    extra = ET.SubElement(root, "mujoco")
    ET.SubElement(
        extra, "compiler", discardvisual="true", fusestatic="false", balanceinertia="false",
        strippath="true", angle="radian",
    )  # fmt: skip
    spec = mujoco.MjSpec.from_string(ET.tostring(root, encoding="unicode"))
    if floating:
        joint = spec.worldbody.first_body().add_freejoint()
        joint.name = "root_joint"
    m = spec.compile()
    m.dof_damping[:] = 0.0
    m.dof_frictionloss[:] = 0.0
    m.dof_armature[:] = 0.0
    m.opt.gravity[:] = model.gravity
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    return m


def mjcf_from(model) -> str:
    """MJCF text of a robodyn Model for the bench: :func:`robodyn.to_mjcf`'s writer with a
    site ``f_<frame>`` for every frame (the bodies' own too) and contacts and constraints
    disabled (the rigid-body dynamics alone)."""
    from ..model.mjcf_export import mjcf_text

    return mjcf_text(model, every_frame=True, site_prefix="f_", constraints=False)[0]


@dataclasses.dataclass
class Case:
    """One benchmark model in every library, with its random states."""

    name: str
    model: Any
    source: str
    frame: str
    states: dict[str, np.ndarray]  # q (K, nq), v, a, tau (K, nv)
    pin_model: Any = None
    pin_note: str = ""
    pmap: Any = None
    notes: list[str] = dataclasses.field(default_factory=list)


def _random_states(model, k: int, seed: int) -> dict[str, np.ndarray]:
    from ..model.configuration import random_configuration

    rng = np.random.default_rng(seed)
    q = np.atleast_2d(random_configuration(model, rng, size=k))
    return {
        "q": np.ascontiguousarray(q),
        "v": rng.standard_normal((k, model.nv)),
        "a": rng.standard_normal((k, model.nv)),
        "tau": rng.standard_normal((k, model.nv)) * 10.0,
    }


def _build_case(name: str, cfg: Config, pin) -> Case:
    from ..convert import PinocchioMap

    model, source = load_robodyn_model(name)
    frame = _JAC_FRAME[name] if _JAC_FRAME[name] in model.frame_names else _BUNDLED_JAC_FRAME
    case = Case(
        name=name,
        model=model,
        source=source,
        frame=frame,
        states=_random_states(model, cfg.n_check, cfg.seed + MODELS.index(name)),
    )
    if pin is not None:
        case.pin_model, case.pin_note = load_pin_model(name, model, pin)
        case.pin_model.gravity.linear = np.array(model.gravity, dtype=float)
        case.pmap = PinocchioMap(model, case.pin_model)
    return case
