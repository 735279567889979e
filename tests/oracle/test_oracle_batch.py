"""Batches of the compiled core against Pinocchio on every example-robot-data URDF it loads,
fixed and floating base: one call on a (3, 7) batch (two chunks of 16 lanes, not full) of
rnea with external wrenches, crba, aba, the frame pose and its body Jacobian, each state
compared with Pinocchio's single-state call after the [v, omega] / quaternion reorderings.
"""

from __future__ import annotations

import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import load_pair, rel_err
from robodyn import dynamics as dyn
from robodyn import kinematics as kin
from robodyn.model.configuration import random_configuration

LEAD = (3, 7)
TOL = 1e-9


def _pin_force(F) -> pin.Force:
    return pin.Force(np.asarray(F[3:]), np.asarray(F[:3]))


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_batches_match_pinocchio(erd_robot, floating):
    name, path = erd_robot
    model, pm, pd, mp = load_pair(path, floating)
    rng = np.random.default_rng(zlib.crc32(f"batch{name}{floating}".encode()))
    pin_body = {j: model.joint_id(pm.names[j]) for j in range(1, pm.njoints)}
    Q = random_configuration(model, rng, size=LEAD)
    V = rng.normal(size=(*LEAD, model.nv))
    A = rng.normal(size=(*LEAD, model.nv))
    FE = np.zeros((*LEAD, model.nb, 6))
    for b in pin_body.values():
        FE[..., b, :] = rng.normal(size=(*LEAD, 6))
    tau = dyn.rnea(model, Q, V, A, FE, friction=False, armature=False, threads=2)
    M = dyn.crba(model, Q, armature=False, threads=2)
    frame = model.frame_names[-1]
    T = kin.fk(model, Q, frame)
    J = kin.jacobian(model, Q, frame, "body")
    fid = pm.getFrameId(frame) if pm.existFrame(frame) else None
    worst = dict(rnea=0.0, crba=0.0, aba=0.0, fk=0.0, jacobian=0.0)
    for idx in np.ndindex(*LEAD):
        q, v, a = Q[idx], V[idx], A[idx]
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
        fext = [pin.Force.Zero()] + [_pin_force(FE[idx][pin_body[j]]) for j in range(1, pm.njoints)]
        worst["rnea"] = max(
            worst["rnea"], rel_err(tau[idx], mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap, fext)))
        )
        Mp = pin.crba(pm, pd, qp)
        Mp = mp.matrix_from_pin(np.triu(Mp) + np.triu(Mp, 1).T)
        worst["crba"] = max(worst["crba"], rel_err(M[idx], Mp))
        if fid is not None:
            pin.framesForwardKinematics(pm, pd, qp)
            worst["fk"] = max(worst["fk"], rel_err(T[idx], pd.oMf[fid].homogeneous))
            Jp = mp.jacobian_from_pin(pin.computeFrameJacobian(pm, pd, qp, fid, pin.LOCAL))
            worst["jacobian"] = max(worst["jacobian"], rel_err(J[idx], Jp))
    # forward dynamics where M is invertible: the equation of motion with Pinocchio's M, h
    eig = np.linalg.eigvalsh(M.reshape(-1, model.nv, model.nv))
    if np.all(eig[:, 0] > 1e-12 * eig[:, -1]):
        qdd = dyn.aba(model, Q, V, tau, FE, friction=False, armature=False, threads=2)
        for idx in np.ndindex(*LEAD):
            qp, vp = mp.q_to_pin(Q[idx]), mp.v_to_pin(V[idx])
            fext = [pin.Force.Zero()] + [
                _pin_force(FE[idx][pin_body[j]]) for j in range(1, pm.njoints)
            ]
            back = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, mp.v_to_pin(qdd[idx]), fext))
            worst["aba"] = max(worst["aba"], rel_err(back, tau[idx]))
    assert max(worst.values()) <= TOL, (name, floating, worst)
