"""Dynamics against MuJoCo on every example-robot-data URDF MuJoCo imports, fixed and
floating base: inverse dynamics (``mj_rne``), the mass matrix (``mj_fullM``) and forward
dynamics (``mj_forward``'s ``qacc``) at 3 random states per robot.

MuJoCo parses each URDF itself, with its own URDF importer; robodyn's loader parses the
same file. What differs between the two, and how each difference is handled:

* geometry: the ``<visual>`` and ``<collision>`` elements are removed from the text before
  MuJoCo reads it (their meshes are not shipped in a loadable form, and they carry no
  dynamics); ``inertiafromgeom="false"`` so no inertia is ever computed from a geom.
* ``fusestatic="false"``: every link stays a body (robodyn merges fixed links into their
  parent: the same rigid bodies, so the same M); ``balanceinertia="false"``: inertias are
  never changed. MuJoCo refuses a link whose inertia it cannot represent (not positive
  definite, or breaking the triangle inequality) and a moving body lighter than mjMINVAL:
  those robots are listed in :data:`REFUSED` with MuJoCo's reason, and the test asserts
  that MuJoCo still refuses each of them for that reason.
* a floating base: MuJoCo's importer fixes the root link to the world; a free joint named
  ``root_joint`` is added to the root body with ``MjSpec``. The importer takes a root link
  named ``world`` as MuJoCo's world body, so for a floating base that link is renamed
  first (robodyn, like Pinocchio, floats it as an ordinary link: asr_twodof turns its
  ``ground`` by -1.57 rad from it).
* coordinates: joints are matched by name; hinge and slide joints have robodyn's
  coordinate. MuJoCo's free joint has qpos ``[x, y, z, qw, qx, qy, qz]`` (robodyn's) but
  qvel ``[pdot (world), omega (body)]``: with R the body's rotation, v_mj = T v for
  ``T = [[0, R], [1, 0]]`` on robodyn's ``[omega_b, v_b]``, qacc_mj = T a + b with
  ``b = [R (omega_b x v_b), 0]``, generalized forces tau = T^T tau_mj, M = T^T M_mj T.
* the URDF's ``<dynamics damping friction>`` become MuJoCo's ``dof_damping`` and
  ``dof_frictionloss``: asserted equal to robodyn's, then zeroed (robodyn: friction=False);
  armature and joint stiffness are zero in both (asserted). Contacts and constraints
  (joint limits, the equality constraints of mimic joints) are disabled: robodyn loads
  the mimic joints as independent joints (mimic=False). Gravity: asserted equal.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zlib

import mujoco
import numpy as np
import pytest

from helpers import erd_robots, expect_count, rel_err
from robodyn import dynamics as dyn
from robodyn.model.configuration import random_configuration
from robodyn.model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE
from robodyn.model.urdf import load_urdf

STATES = 3
# the example-robot-data URDFs Pinocchio loads with a degree of freedom, and how many of
# them MuJoCo imports (the others are in REFUSED): typed, so no robot drops out unseen
N_ROBOTS = 66
N_COMPARED = 45
# measured worst relative errors (max(1, |want|) scale) over the 45 robots, both bases:
# rne 1.8e-15, M 1.9e-15 (xarm7), qacc 1.3e-12 (tiago_pro floating, cond(M) ~ 3e7: the
# forward error of any solver grows with cond(M)); the tolerances are ~10x those
TOL = {"rne": 2e-14, "M": 2e-14, "qacc": 1e-11}

_PD = "inertia must have positive eigenvalues"
_TRIANGLE = "inertia must satisfy A + B >= C"
_LIGHT = "mass and inertia of moving bodies must be larger than mjMINVAL"
#: robot -> (MuJoCo's reason, the link it names): links with a non-positive-definite
#: inertia (the legged robots' placeholder "base" of 1e-6 in every entry, rank one;
#: icub's zero ankle), inertias breaking the triangle inequality, massless moving links
REFUSED = {
    "alex_description/urdf/alex_psyonic_hands": (_TRIANGLE, "LeftPsyonicAbilityBaseLink"),
    "allegro_hand_description/urdf/allegro_left_hand": (_TRIANGLE, "link_11.0"),
    "allegro_hand_description/urdf/allegro_right_hand": (_TRIANGLE, "link_3.0"),
    "anymal_b_simple_description/robots/anymal-kinova": (_PD, "base"),
    "anymal_b_simple_description/robots/anymal": (_PD, "base"),
    "anymal_c_simple_description/urdf/anymal": (_TRIANGLE, "depth_camera_front_camera"),
    "b1_description/urdf/b1-z1": (_PD, "base"),
    "b1_description/urdf/b1": (_PD, "base"),
    "finger_edu_description/robots/finger_edu": (_PD, "finger_lower_link"),
    "go1_description/urdf/go1": (_PD, "base"),
    "human_description/robots/human": (_LIGHT, "left_upperleg_virtual"),
    "hyq_description/robots/hyq_no_sensors": (_PD, "base_link"),
    "icub_description/robots/icub": (_PD, "l_ankle_2"),
    "icub_description/robots/icub_reduced": (_PD, "l_ankle_2"),
    "pr2_description/urdf/pr2": (_TRIANGLE, "sensor_mount_link"),
    "romeo_description/urdf/romeo": (_LIGHT, "LFinger11Link"),
    "romeo_description/urdf/romeo_laas_small": (_PD, "body"),
    "romeo_description/urdf/romeo_small": (_TRIANGLE, "RShoulderYawLink"),
    "tiago_description/robots/tiago": (_PD, "base_antenna_left_link"),
    "tiago_description/robots/tiago_dual": (_PD, "base_antenna_left_link"),
    "tiago_description/robots/tiago_no_hand": (_PD, "base_antenna_left_link"),
}
_MJ_TYPE = {
    JOINT_REVOLUTE: mujoco.mjtJoint.mjJNT_HINGE,
    JOINT_PRISMATIC: mujoco.mjtJoint.mjJNT_SLIDE,
    JOINT_FREE: mujoco.mjtJoint.mjJNT_FREE,
}


def mujoco_model(path: str, floating: bool) -> mujoco.MjModel:
    """MuJoCo's model of the URDF at ``path`` by MuJoCo's URDF importer (see the module)."""
    robot = ET.parse(path).getroot()
    for link in robot.findall("link"):
        for tag in ("visual", "collision"):
            for el in link.findall(tag):
                link.remove(el)
    if floating:  # a root link named "world" would be MuJoCo's world body: rename it
        children = {j.find("child").get("link") for j in robot.findall("joint")}
        for link in robot.findall("link"):
            if link.get("name") == "world" and "world" not in children:
                link.set("name", "urdf_world")
                for parent in robot.findall("joint/parent"):
                    if parent.get("link") == "world":
                        parent.set("link", "urdf_world")
    ET.SubElement(ET.SubElement(robot, "mujoco"), "compiler", discardvisual="true",
                  fusestatic="false", balanceinertia="false", inertiafromgeom="false")  # fmt: skip
    spec = mujoco.MjSpec.from_string(ET.tostring(robot, encoding="unicode"))
    if floating:
        spec.worldbody.first_body().add_freejoint(name="root_joint")
    return spec.compile()


def _dof_map(model, m):
    """robodyn joint -> MuJoCo joint by name: (robodyn qadr, vadr, MuJoCo qposadr, dofadr,
    MuJoCo body of a free joint or -1) per moving joint; each MuJoCo dof is one of them."""
    plan, seen = [], []
    for i in range(1, model.nb):
        if model.jnt_nv[i] == 0:
            continue
        name = model.joint_names_all[i]
        j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
        assert j >= 0, f"MuJoCo has no joint {name!r}"
        assert m.jnt_type[j] == _MJ_TYPE[int(model.jnt_type[i])], name
        body = int(m.jnt_bodyid[j]) if int(model.jnt_type[i]) == JOINT_FREE else -1
        qa, va, mq, md = model.jnt_qadr[i], model.jnt_vadr[i], m.jnt_qposadr[j], m.jnt_dofadr[j]
        plan.append((int(qa), int(va), int(mq), int(md), body))
        seen += range(md, md + int(model.jnt_nv[i]))
    assert sorted(seen) == list(range(m.nv))
    return plan


def _maps(plan, d, v, nv):
    """T (v_mj = T v) and b (qacc_mj = T a + b) at the state MuJoCo's d holds."""
    T, b = np.zeros((nv, nv)), np.zeros(nv)
    for _, va, _, md, body in plan:
        if body < 0:
            T[md, va] = 1.0
            continue
        R = d.xmat[body].reshape(3, 3)  # MuJoCo's own rotation of the floating body
        T[md : md + 3, va + 3 : va + 6] = R
        T[md + 3 : md + 6, va : va + 3] = np.eye(3)
        b[md : md + 3] = R @ np.cross(v[va : va + 3], v[va + 3 : va + 6])
    return T, b


def _compare(name, floating, model, m):
    """The worst relative errors of robodyn against MuJoCo on ``STATES`` random states."""
    plan = _dof_map(model, m)
    # the joint dynamics MuJoCo read from the URDF, then off on both sides
    perm = np.zeros(model.nv, dtype=int)  # MuJoCo dof -> robodyn dof
    for _, va, _, md, body in plan:
        k = 6 if body >= 0 else 1
        perm[md : md + k] = np.arange(va, va + k)
    assert np.array_equal(m.dof_damping, model.dof_damping[perm]), name
    assert np.array_equal(m.dof_frictionloss, model.dof_friction[perm]), name
    assert not m.dof_armature.any() and not model.dof_armature.any(), name
    assert not m.jnt_stiffness.any() and np.array_equal(m.opt.gravity, model.gravity), name
    m.dof_damping[:] = 0.0
    m.dof_frictionloss[:] = 0.0
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    d = mujoco.MjData(m)
    rng = np.random.default_rng(zlib.crc32(f"mujoco{name}{floating}".encode()))
    worst = dict.fromkeys(TOL, 0.0)
    for _ in range(STATES):
        q = random_configuration(model, rng)
        v, a, tau = (rng.normal(size=model.nv) for _ in range(3))
        for qa, _, mq, _, body in plan:  # qpos: the same coordinates, MuJoCo's order
            k = 7 if body >= 0 else 1
            d.qpos[mq : mq + k] = q[qa : qa + k]
        mujoco.mj_kinematics(m, d)
        T, b = _maps(plan, d, v, model.nv)
        d.qvel[:] = T @ v
        d.qfrc_applied[:] = np.linalg.solve(T.T, tau)  # tau = T^T tau_mj
        mujoco.mj_forward(m, d)
        qacc = np.linalg.solve(T, d.qacc - b)
        M_mj = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M_mj)
        d.qacc[:] = T @ a + b
        rne = np.zeros(m.nv)
        mujoco.mj_rne(m, d, 1, rne)
        tau_rd = dyn.rnea(model, q, v, a, friction=False)
        worst["rne"] = max(worst["rne"], rel_err(tau_rd, T.T @ rne))
        worst["M"] = max(worst["M"], rel_err(dyn.crba(model, q), T.T @ M_mj @ T))
        qdd = dyn.aba(model, q, v, tau, friction=False)
        worst["qacc"] = max(worst["qacc"], rel_err(qdd, qacc))
    return worst


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_dynamics_match_mujoco(floating, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes its warnings to ./MUJOCO_LOG.TXT
    robots = expect_count(erd_robots(), N_ROBOTS, "example-robot-data URDFs Pinocchio loads")
    compared, refused, bad = [], [], []
    for name, path in robots:
        if name in REFUSED:
            reason, link = REFUSED[name]
            with pytest.raises(ValueError, match=re.escape(reason)) as err:
                mujoco_model(path, floating)
            assert f"Element name '{link}'" in str(err.value), (name, str(err.value))
            refused.append(name)
            continue
        m = mujoco_model(path, floating)
        model = load_urdf(path, floating_base=floating, mimic=False, invalid_inertia="keep")
        assert (m.nq, m.nv) == (model.nq, model.nv), name
        worst = _compare(name, floating, model, m)
        if any(worst[k] > TOL[k] for k in TOL):
            bad.append((name, worst))
        compared.append(name)
    assert not bad, bad
    assert len(refused) == len(REFUSED)
    assert len(compared) == N_COMPARED, compared
