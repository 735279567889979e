"""Kinematics against Pinocchio on every example-robot-data URDF it loads.

For each robot, fixed and floating base, at 3 random configurations: the pose of every
frame (matched by link name with Pinocchio's BODY frames), the space / body /
world-aligned Jacobians (Pinocchio's WORLD / LOCAL / LOCAL_WORLD_ALIGNED after the
[v; w] -> [w; v] row swap and the joint reordering), the centre of mass and its Jacobian.
On a few robots also dJ/dt, frame velocity and acceleration (Pinocchio's classical
acceleration for the world-aligned kind), and mimic joints.
"""

from __future__ import annotations

import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import erd_path
from robodyn import kinematics as kin
from robodyn.convert import PinocchioMap
from robodyn.model.configuration import random_configuration
from robodyn.model.urdf import load_urdf

TOL = 1e-10
KINDS = (("space", pin.WORLD), ("body", pin.LOCAL), ("world_aligned", pin.LOCAL_WORLD_ALIGNED))


def _pair(path: str, floating_base: bool, mimic: bool = False):
    # strict=False: some URDFs carry non-physical inertias, irrelevant to kinematics and
    # compared as written for the centre of mass.
    model = load_urdf(path, floating_base=floating_base, mimic=mimic, invalid_inertia="keep")
    if floating_base:
        pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer(), mimic)
    else:
        pm = pin.buildModelFromUrdf(path, mimic)
    return model, pm, pm.createData(), PinocchioMap(model, pm)


def _shared_frames(model, pm) -> list[tuple[int, int]]:
    """(robodyn frame index, Pinocchio frame id) for every frame both models name."""
    out = [
        (k, pm.getFrameId(name, pin.BODY))
        for k, name in enumerate(model.frame_names)
        if pm.existFrame(name, pin.BODY)
    ]
    assert len(out) >= min(2, model.nf)
    return out


def _check_configuration(model, pm, pd, mp, q) -> None:
    qp = mp.q_to_pin(q)
    pin.forwardKinematics(pm, pd, qp)
    pin.updateFramePlacements(pm, pd)
    pin.computeJointJacobians(pm, pd, qp)
    poses = kin.fk(model, q)
    for k, fid in _shared_frames(model, pm):
        name = model.frame_names[k]
        np.testing.assert_allclose(
            poses[k], pd.oMf[fid].homogeneous, rtol=0, atol=TOL, err_msg=f"fk {name}"
        )
        for kind, rf in KINDS:
            J_pin = mp.jacobian_from_pin(pin.getFrameJacobian(pm, pd, fid, rf))
            np.testing.assert_allclose(
                kin.jacobian(model, q, name, kind),
                J_pin,
                rtol=0,
                atol=TOL,
                err_msg=f"{kind} {name}",
            )
    c_pin = pin.centerOfMass(pm, pd, qp)
    Jc_pin = pin.jacobianCenterOfMass(pm, pd, qp)
    np.testing.assert_allclose(kin.com(model, q), c_pin, rtol=0, atol=TOL)
    np.testing.assert_allclose(kin.com_jacobian(model, q), mp.v_from_pin(Jc_pin), rtol=0, atol=TOL)


@pytest.mark.parametrize("floating_base", [False, True], ids=["fixed", "floating"])
def test_fk_jacobians_com_match_pinocchio(erd_robot, floating_base):
    name, path = erd_robot
    model, pm, pd, mp = _pair(path, floating_base)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    Q = random_configuration(model, rng, size=3)
    for q in Q:
        _check_configuration(model, pm, pd, mp, q)
    # the batched forms equal the single-configuration ones
    np.testing.assert_allclose(
        kin.fk(model, Q), np.stack([kin.fk(model, q) for q in Q]), atol=1e-14
    )


@pytest.mark.parametrize("fragment", ["panda_description/urdf/panda", "pr2_description/urdf/pr2"])
@pytest.mark.parametrize("floating_base", [False, True], ids=["fixed", "floating"])
def test_mimic_joints_match_pinocchio(fragment, floating_base):
    model, pm, pd, mp = _pair(erd_path(fragment), floating_base, mimic=True)
    assert np.any(model.jnt_mimic >= 0) and model.nv == pm.nv
    for q in random_configuration(model, np.random.default_rng(5), size=3):
        _check_configuration(model, pm, pd, mp, q)


@pytest.mark.parametrize(
    "fragment", ["panda_description/urdf/panda", "talos_data/robots/talos_reduced"]
)
@pytest.mark.parametrize("floating_base", [False, True], ids=["fixed", "floating"])
def test_jacobian_dot_velocity_acceleration_match_pinocchio(fragment, floating_base):
    model, pm, pd, mp = _pair(erd_path(fragment), floating_base)
    rng = np.random.default_rng(11)
    for _ in range(2):
        q = random_configuration(model, rng)
        v, a = rng.standard_normal(model.nv), rng.standard_normal(model.nv)
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
        pin.computeJointJacobiansTimeVariation(pm, pd, qp, vp)
        pin.forwardKinematics(pm, pd, qp, vp, ap)
        pin.updateFramePlacements(pm, pd)
        for k, fid in _shared_frames(model, pm):
            for kind, rf in KINDS:
                dJ_pin = mp.jacobian_from_pin(pin.getFrameJacobianTimeVariation(pm, pd, fid, rf))
                np.testing.assert_allclose(
                    kin.jacobian_dot(model, q, v, k, kind), dJ_pin, rtol=0, atol=TOL
                )
                V_pin = pin.getFrameVelocity(pm, pd, fid, rf).vector
                np.testing.assert_allclose(
                    kin.frame_velocity(model, q, v, k, kind), np.r_[V_pin[3:], V_pin[:3]], atol=TOL
                )
                A = kin.frame_acceleration(model, q, v, a, k, kind)
                if kind == "world_aligned":
                    # our linear part is the classical acceleration of the frame origin
                    A_pin = pin.getFrameClassicalAcceleration(pm, pd, fid, rf)
                else:
                    A_pin = pin.getFrameAcceleration(pm, pd, fid, rf)
                np.testing.assert_allclose(A[:3], A_pin.angular, rtol=0, atol=TOL)
                np.testing.assert_allclose(A[3:], A_pin.linear, rtol=0, atol=TOL)
