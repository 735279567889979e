"""Models made from models against Pinocchio (issue 32): ``model.lock_joints`` against
``pin.buildReducedModel`` (a Panda with its fingers locked, a UR5 with its elbow locked,
every example-robot-data robot with every other joint locked), ``rd.attach`` against
``pin.appendModel`` (an Allegro hand on a UR5, a UR5 on a planar mobile base and on a free
or planar joint), and ``model.to_urdf`` on every example-robot-data URDF: robodyn reads it
back to the same dynamics and Pinocchio reads it to its own dynamics of the original.
Pinocchio parses every URDF itself; states are compared after PinocchioMap's reorderings
(matched by joint name): mass matrix, inverse and forward dynamics, frame poses."""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import coordinate_map, erd_path, load_pair, random_inertia, rel_err
from robodyn import dynamics as dyn
from robodyn.convert import PinocchioMap
from robodyn.errors import ModelWarning
from robodyn.kinematics import fk
from robodyn.model.builder import ModelBuilder
from robodyn.model.compose import attach
from robodyn.model.configuration import random_configuration
from robodyn.model.urdf import load_urdf
from robodyn.spatial import exp3, transform

TOL = 1e-12
STATES = 20


def _load(fragment: str, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)  # asserted in test_urdf.py
        return load_urdf(erd_path(fragment), invalid_inertia="keep", **kw)


def _seed(*parts) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(parts).encode()))


def _worst(model, pm, rng, states: int = STATES) -> dict:
    """The largest relative differences between robodyn's ``model`` and Pinocchio's ``pm``
    over random states: M, inverse dynamics, forward dynamics (where Pinocchio's M is
    invertible) and the pose of every robodyn frame that Pinocchio has by name."""
    pd, mp = pm.createData(), PinocchioMap(model, pm)
    by_name: dict = {}  # a link's frame (BODY), else an operational one, else any of the name
    rank = {pin.FrameType.BODY: 0, pin.FrameType.OP_FRAME: 1}
    for k, f in enumerate(pm.frames):
        old = by_name.get(f.name)
        if old is None or rank.get(f.type, 2) < rank.get(pm.frames[old].type, 2):
            by_name[f.name] = k
    frames = [(name, by_name[name]) for name in model.frame_names if name in by_name]
    assert len(frames) >= model.nf - 1, "frames missing in Pinocchio"  # (its world: universe)
    worst = dict(M=0.0, rnea=0.0, aba=0.0, frames=0.0)
    for _ in range(states):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
        M_pin = pin.crba(pm, pd, qp)
        M_pin = mp.matrix_from_pin(np.triu(M_pin) + np.triu(M_pin, 1).T)
        worst["M"] = max(worst["M"], rel_err(dyn.crba(model, q), M_pin))
        tau = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap))
        worst["rnea"] = max(worst["rnea"], rel_err(dyn.rnea(model, q, v, a, friction=False), tau))
        if not np.any(np.all(M_pin == 0.0, axis=1)):  # (romeo: massless driven links)
            # forward dynamics through Pinocchio's equation of motion, M_pin a + h_pin = tau:
            # free of M's conditioning, which a comparison of the accelerations would carry
            h_pin = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, np.zeros(model.nv)))
            got = dyn.aba(model, q, v, tau, friction=False)
            worst["aba"] = max(worst["aba"], rel_err(M_pin @ got + h_pin, tau))
        pin.framesForwardKinematics(pm, pd, qp)
        for name, k in frames:
            err = rel_err(fk(model, q, name), pd.oMf[k].homogeneous)
            worst["frames"] = max(worst["frames"], err)
    return worst


def _assert_small(worst: dict, what: str, tol: float = TOL) -> None:
    bad = {k: v for k, v in worst.items() if v > tol}
    assert not bad, f"{what}: relative errors above {tol:g}: {bad}"


def _pin_q(model, q, pm) -> np.ndarray:
    """Pinocchio's q of the URDF ``pm`` for robodyn's ``q`` of ``model`` loaded with mimic
    joints (each of Pinocchio's independent copies at mult * q_leader + offset)."""
    qp = pin.neutral(pm)
    for j in range(1, pm.njoints):
        i = model.joint_id(pm.names[j])
        lead = int(model.jnt_mimic[i])
        x = (
            q[model.jnt_qadr[i]]
            if lead < 0
            else (model.jnt_mimic_mult[i] * q[model.jnt_qadr[lead]] + model.jnt_mimic_offset[i])
        )
        assert pm.joints[j].nq == 1
        qp[pm.joints[j].idx_q] = x
    return qp


# ======================================================================== lock_joints
@pytest.mark.parametrize("mimic", [True, False], ids=["mimic", "independent"])
def test_lock_panda_fingers_matches_build_reduced_model(mimic):
    """The Panda with its fingers locked: with mimic=True locking finger 1 locks finger 2
    (its follower); with mimic=False both are named. Pinocchio locks both at the same q."""
    path = erd_path("panda_description/urdf/panda.urdf")
    model = _load("panda_description/urdf/panda.urdf", mimic=mimic)
    pm = pin.buildModelFromUrdf(path)
    rng = _seed("panda", mimic)
    fingers = ["panda_finger_joint1"] + ([] if mimic else ["panda_finger_joint2"])
    q = random_configuration(model, rng)
    reduced = model.lock_joints(fingers, q)
    assert reduced.nv == 7 and reduced.joint_names == tuple(f"panda_joint{k}" for k in range(1, 8))
    ids = [pm.getJointId(n) for n in ("panda_finger_joint1", "panda_finger_joint2")]
    pin_reduced = pin.buildReducedModel(pm, ids, _pin_q(model, q, pm))
    _assert_small(_worst(reduced, pin_reduced, rng), "panda, fingers locked")


def test_lock_ur5_elbow_matches_build_reduced_model():
    path = erd_path("ur_description/urdf/ur5_robot.urdf")
    model, pm, _, mp = load_pair(path)
    rng = _seed("ur5 elbow")
    q = random_configuration(model, rng)
    reduced = model.lock_joints(["elbow_joint"], q)
    assert reduced.nv == 5 and "forearm_link" in reduced.frame_names
    pin_reduced = pin.buildReducedModel(pm, [pm.getJointId("elbow_joint")], mp.q_to_pin(q))
    _assert_small(_worst(reduced, pin_reduced, rng), "ur5, elbow locked")


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_lock_every_other_joint_of_every_robot(erd_robot, floating):
    """Every example-robot-data robot Pinocchio loads, every other joint (the free root
    joint among them on a floating base) locked at a random configuration."""
    name, path = erd_robot
    model, pm, _, mp = load_pair(path, floating_base=floating)
    rng = _seed(name, floating)
    q = random_configuration(model, rng)
    names = list(model.joint_names[::2])
    reduced = model.lock_joints(names, q)
    assert reduced.nv == model.nv - sum(int(model.jnt_nv[model.joint_id(n)]) for n in names)
    pin_reduced = _reduced(pm, names, mp.q_to_pin(q))
    _assert_small(_worst(reduced, pin_reduced, rng, 5), f"{name}, every other joint locked")


def _reduced(pm, names, qp):
    """``pin.buildReducedModel`` locking the joints ``names`` (robodyn's: a free root joint
    is Pinocchio's joint 1). Its lookup of a joint's frame by name fails where a link has
    the name of a joint or fixed joint (anymal_c, so100, z1): those joints and their frames
    are renamed for the call and back after it."""
    frames = [f.name for f in pm.frames]
    ids = sorted(pm.getJointId(n) if pm.existJointName(n) else 1 for n in names)
    shared = {f.name for f in pm.frames if frames.count(f.name) > 1
              and f.type in (pin.FrameType.JOINT, pin.FrameType.FIXED_JOINT)}  # fmt: skip
    _rename(pm, {n: n + "#joint" for n in shared})
    reduced = pin.buildReducedModel(pm, ids, qp)
    _rename(reduced, {n + "#joint": n for n in shared})
    return reduced


def _rename(pm, new: dict) -> None:
    """Joints and joint frames of ``pm`` named by ``new`` (old name -> new name)."""
    for j in range(1, pm.njoints):
        pm.names[j] = new.get(pm.names[j], pm.names[j])
    for k in range(len(pm.frames)):
        f = pm.frames[k]
        if f.name in new and f.type in (pin.FrameType.JOINT, pin.FrameType.FIXED_JOINT):
            f.name = new[f.name]
            pm.frames[k] = f


# ============================================================================== attach
def _ur5_pin(prefix: str = ""):
    """Pinocchio's UR5 from its URDF, every joint and frame name prefixed."""
    pm = pin.buildModelFromUrdf(erd_path("ur_description/urdf/ur5_robot.urdf"))
    for j in range(1, pm.njoints):
        pm.names[j] = prefix + pm.names[j]
    for k in range(len(pm.frames)):
        f = pm.frames[k]
        if f.name != "universe":
            f.name = prefix + f.name
            pm.frames[k] = f
    return pm


def _random_T(rng, scale: float = 0.2) -> np.ndarray:
    return transform(exp3(rng.normal(size=3)), rng.normal(size=3) * scale)


def _se3(T: np.ndarray) -> pin.SE3:
    return pin.SE3(T[:3, :3].copy(), T[:3, 3].copy())


def test_attach_hand_on_arm_matches_append_model():
    """The Allegro hand at the UR5's tool0 (offset T). robodyn loads the hand with a
    floating base so that its palm (the root link) keeps its mass: attached fixed, the
    palm merges into wrist_3_link, as Pinocchio's appendModel adds the hand's universe
    inertia there."""
    rng = _seed("hand on arm")
    T = _random_T(rng)
    arm = _load("ur_description/urdf/ur5_robot.urdf")
    hand = _load("allegro_hand_description/urdf/allegro_right_hand.urdf", floating_base=True)
    both = attach(arm, "tool0", hand, T=T)
    assert both.nv == arm.nv + hand.nv - 6 and "palm_link" in both.frame_names
    pin_arm = pin.buildModelFromUrdf(erd_path("ur_description/urdf/ur5_robot.urdf"))
    pin_hand = pin.buildModelFromUrdf(erd_path("allegro_right_hand"))
    pm = pin.appendModel(pin_arm, pin_hand, pin_arm.getFrameId("tool0"), _se3(T))
    _assert_small(_worst(both, pm, rng), "allegro hand on ur5")


def _planar_base(rng):
    """A mobile base of random inertia on a planar joint in the world's xy-plane, with a
    mounting frame: robodyn's from the builder, Pinocchio's from its own API."""
    inertia = random_inertia(rng)
    m, c, I = inertia.mass, inertia.com, inertia.inertia
    T_mount = _random_T(rng, 0.3)
    b = ModelBuilder("base")
    b.add_body("chassis", "world", joint_name="base_planar", joint_type="planar",
               axis=(0, 0, 1), inertia=inertia)  # fmt: skip
    b.add_frame("mount", "chassis", T=T_mount)
    pm = pin.Model()
    j = pm.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "base_planar")
    pm.appendBodyToJoint(j, pin.Inertia(m, c, I), pin.SE3.Identity())
    pm.addFrame(pin.Frame("chassis", j, pin.SE3.Identity(), pin.FrameType.BODY))
    pm.addFrame(pin.Frame("mount", j, _se3(T_mount), pin.FrameType.OP_FRAME))
    return b.build(), pm


def test_attach_arm_on_mobile_base_matches_append_model():
    """A UR5 (loaded with a floating base, so its base_link's mass comes along; prefixed)
    fixed on a planar mobile base, against Pinocchio's base with its UR5 appended."""
    rng = _seed("ur5 on a mobile base")
    T = _random_T(rng)
    base, pin_base = _planar_base(rng)
    ur5 = _load("ur_description/urdf/ur5_robot.urdf", floating_base=True)
    robot = attach(base, "mount", ur5, T=T, prefix="ur5_")
    assert robot.nv == 3 + 6 and robot.joint_names[0] == "base_planar"
    pm = pin.appendModel(pin_base, _ur5_pin("ur5_"), pin_base.getFrameId("mount"), _se3(T))
    _assert_small(_worst(robot, pm, rng), "ur5 on a planar base")


@pytest.mark.parametrize("joint", ["free", "planar"])
def test_attach_on_a_joint_matches_append_model(joint):
    """``joint="free"`` / ``"planar"`` at the world of an empty model: the UR5's root (its
    free joint replaced, or kept) moves on that joint; Pinocchio: a massless body on its
    FreeFlyer / Planar joint with the UR5 appended to it."""
    rng = _seed("ur5 on a joint", joint)
    T = _random_T(rng)
    ur5 = _load("ur_description/urdf/ur5_robot.urdf", floating_base=True)
    robot = attach(ModelBuilder("empty").build(), "world", ur5, T=T, joint=joint, prefix="ur5_")
    assert robot.joint_names[0] == "ur5_root_joint" and robot.nv == 6 + (
        6 if joint == "free" else 3
    )
    pm = pin.Model()
    jm = pin.JointModelFreeFlyer() if joint == "free" else pin.JointModelPlanar()
    j = pm.addJoint(0, jm, _se3(T), "ur5_root_joint")
    pm.addFrame(pin.Frame("base", j, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
    pm = pin.appendModel(pm, _ur5_pin("ur5_"), pm.getFrameId("base"), pin.SE3.Identity())
    _assert_small(_worst(robot, pm, rng), f"ur5 on a {joint} joint")


# ============================================================================== to_urdf
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_to_urdf_round_trip_every_robot(erd_robot, floating, tmp_path):
    """Every example-robot-data robot written by to_urdf: robodyn reads it back to the same
    dynamics and frames (1e-12), and Pinocchio reads it (a plain URDF) to the dynamics it
    reads from the original file."""
    name, path = erd_robot
    model = _load_as_oracle(path, floating)
    out = tmp_path / "robot.urdf"
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelWarning)  # nothing of these URDFs is lost
        model.to_urdf(out)
    back = _load_as_oracle(str(out), False, root_name=model.body_names[0])
    assert sorted(back.joint_names) == sorted(model.joint_names)
    qi, vi = coordinate_map(model, back)
    rng = _seed(name, floating, "to_urdf")
    for _ in range(5):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        qb, vb, ab = np.zeros(back.nq), np.zeros(back.nv), np.zeros(back.nv)
        qb[qi], vb[vi], ab[vi] = q, v, a
        assert rel_err(dyn.crba(back, qb)[np.ix_(vi, vi)], dyn.crba(model, q)) <= TOL
        want = dyn.rnea(model, q, v, a)
        assert rel_err(dyn.rnea(back, qb, vb, ab)[vi], want) <= TOL
        for f in model.frame_names:
            assert rel_err(fk(back, qb, f), fk(model, q, f)) <= TOL, f
    if not floating:  # Pinocchio reads the written file as it reads the original
        pin_back = pin.buildModelFromUrdf(str(out))
        _assert_small(_worst(model, pin_back, rng, 5), f"{name}: Pinocchio on the written file")


def _load_as_oracle(path: str, floating: bool, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return load_urdf(path, floating_base=floating, mimic=False, invalid_inertia="keep", **kw)
