"""Derivatives of frame kinematics vs Pinocchio on every example-robot-data URDF it loads,
fixed and floating base: the kinematic Hessian (``computeJointKinematicHessians`` +
``getJointKinematicHessian`` of the last joint, at its child link's frame) and the partial
derivatives of a frame's twist and acceleration (``computeForwardKinematicsDerivatives`` +
``getFrameVelocityDerivatives`` / ``getFrameAccelerationDerivatives``), after the
``[v; omega]`` reordering of rows and dofs. Pinocchio parses each URDF itself.

Two conversions, typed here:

- pin 4.1's Python binding hands the Hessian, an Eigen tensor stored column-major, to numpy
  with the shape (6, nv, nv) but its bytes in that column-major order: the tensor is
  ``np.reshape(H.ravel(), (6, nv, nv), order="F")`` (checked: it is then symmetric in the
  way ``dJ_i/dq_j = [ad_{J_j}] J_i`` makes it, and equals robodyn's on every robot).
- Pinocchio's ``LOCAL_WORLD_ALIGNED`` twist and acceleration derivatives are those of
  ``WORLD`` moved to the frame origin with the origin held fixed, ``[w; v + w x p]``
  applied to ``dV_s/dq``; robodyn's ``"world_aligned"`` derivatives are the total
  derivatives of what ``frame_velocity`` and ``frame_acceleration`` return for that kind
  (the origin moves with q, and the acceleration is the classical one). The test checks
  Pinocchio's against robodyn's space derivatives moved that way; robodyn's own
  world-aligned ones are held to finite differences in tests/test_kinderiv.py. (Its
  ``LOCAL_WORLD_ALIGNED`` Hessian is the total derivative of that Jacobian, as robodyn's.)
"""

from __future__ import annotations

import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import load_pair, rel_err
from robodyn.kinematics import (
    fk,
    frame_acceleration_derivatives,
    frame_velocity_derivatives,
    kinematic_hessian,
)
from robodyn.model.configuration import random_configuration

STATES = 3
TOL = 1e-9
ROWS = [3, 4, 5, 0, 1, 2]  # Pinocchio's [v; omega] rows -> [omega; v]
KINDS = {"space": pin.WORLD, "body": pin.LOCAL, "world_aligned": pin.LOCAL_WORLD_ALIGNED}


def _hessian_from_pin(mp, H, nv: int) -> np.ndarray:
    """Pinocchio's Hessian (see the module: column-major bytes) in robodyn's order."""
    T = np.reshape(np.asarray(H).ravel(), (6, nv, nv), order="F")
    return T[ROWS][:, mp.vperm][:, :, mp.vperm]


def _at_origin(X: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``[w; v + w x p]`` of each column of X (6, nv): a space derivative moved to p."""
    out = X.copy()
    out[3:] += np.cross(X[:3].T, p).T
    return out


def _last_link(pm) -> tuple[int, str]:
    """The last joint and the frame of its child link (the joint frame in a URDF)."""
    jid = pm.njoints - 1
    name = next(f.name for f in pm.frames if f.parentJoint == jid and f.type == pin.BODY)
    return jid, name


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_frame_derivatives_match_pinocchio(erd_robot, floating):
    name, path = erd_robot
    model, pm, pd, mp = load_pair(path, floating)
    jid, frame = _last_link(pm)
    fid = pm.getFrameId(frame)
    rng = np.random.default_rng(zlib.crc32(f"kd{name}{floating}".encode()))
    worst = {"hessian": 0.0, "velocity": 0.0, "acceleration": 0.0}
    for _ in range(STATES):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
        pin.computeJointKinematicHessians(pm, pd, qp)
        pin.computeForwardKinematicsDerivatives(pm, pd, qp, vp, ap)
        pin.updateFramePlacements(pm, pd)
        p = fk(model, q, frame)[:3, 3]
        for kind, rf in KINDS.items():
            H = kinematic_hessian(model, q, frame, kind)
            # robodyn's twist derivatives as Pinocchio defines them for this reference frame
            mine = "space" if kind == "world_aligned" else kind
            V = frame_velocity_derivatives(model, q, v, frame, mine)
            A = frame_acceleration_derivatives(model, q, v, a, frame, mine)
            if kind == "world_aligned":
                V = [_at_origin(x, p) for x in V]
                A = [_at_origin(x, p) for x in A]
            Hp = _hessian_from_pin(mp, pin.getJointKinematicHessian(pm, pd, jid, rf), model.nv)
            worst["hessian"] = max(worst["hessian"], rel_err(H, Hp))
            Vp = pin.getFrameVelocityDerivatives(pm, pd, fid, rf)
            Ap = pin.getFrameAccelerationDerivatives(pm, pd, fid, rf)[1:]  # dA/dq, dv, da
            for got, want in ((V, Vp), (A, Ap)):
                key = "velocity" if got is V else "acceleration"
                for x, y in zip(got, want):
                    worst[key] = max(worst[key], rel_err(x, mp.jacobian_from_pin(np.array(y))))
    assert max(worst.values()) < TOL, (name, worst)
