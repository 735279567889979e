"""Batches of the compiled core against Pinocchio on every example-robot-data URDF it loads,
fixed and floating base: one call on a (3, 7) batch (two chunks of 16 lanes, not full) of
rnea with external wrenches, crba, aba, the frame pose and its body Jacobian, each state
compared with Pinocchio's single-state call after the [v, omega] / quaternion reorderings.
The forward dynamics is compared on every robot: through the equation of motion with
Pinocchio's M and h (or, where M is singular, robodyn's refusal naming a joint whose row
of Pinocchio's M is zero), and with an armature on every dof against M^-1 (tau - h).
"""

from __future__ import annotations

import dataclasses
import re
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
# typed: the robots on which a joint drives only massless links (romeo's fingers and hands,
# romeo_laas_small's gripper), so that M is singular and the forward dynamics undefined
SINGULAR = {"romeo_description/urdf/romeo", "romeo_description/urdf/romeo_laas_small"}


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
    worst = dict(rnea=0.0, crba=0.0, aba=0.0, aba_armature=0.0, fk=0.0, jacobian=0.0)
    M_pin, h_pin = {}, {}  # Pinocchio's M and h - J^T f_ext at each state, robodyn's order
    for idx in np.ndindex(*LEAD):
        q, v, a = Q[idx], V[idx], A[idx]
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
        fext = [pin.Force.Zero()] + [_pin_force(FE[idx][pin_body[j]]) for j in range(1, pm.njoints)]
        worst["rnea"] = max(
            worst["rnea"], rel_err(tau[idx], mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap, fext)))
        )
        Mp = pin.crba(pm, pd, qp)
        M_pin[idx] = Mp = mp.matrix_from_pin(np.triu(Mp) + np.triu(Mp, 1).T)
        h_pin[idx] = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, np.zeros(pm.nv), fext))
        worst["crba"] = max(worst["crba"], rel_err(M[idx], Mp))
        if fid is not None:
            pin.framesForwardKinematics(pm, pd, qp)
            worst["fk"] = max(worst["fk"], rel_err(T[idx], pd.oMf[fid].homogeneous))
            Jp = mp.jacobian_from_pin(pin.computeFrameJacobian(pm, pd, qp, fid, pin.LOCAL))
            worst["jacobian"] = max(worst["jacobian"], rel_err(J[idx], Jp))
    # forward dynamics. Where a joint drives only massless links, Pinocchio's M has an
    # exactly zero row and the motion is undefined: robodyn refuses, naming a state and a
    # joint whose row in Pinocchio's M is zero there. Everywhere else (icub's floating base
    # too, cond(M) ~ 4e12): the equation of motion with Pinocchio's M and h.
    singular = any(np.any(np.all(Mp == 0.0, axis=1)) for Mp in M_pin.values())
    assert singular == (name in SINGULAR), (name, floating, singular)
    if singular:
        with pytest.raises(ValueError, match="the mass matrix is singular at state") as err:
            dyn.aba(model, Q, V, tau, FE, friction=False, armature=False, threads=2)
        found = re.search(r"at state \[(\d+), (\d+)\]: joint '([^']+)'", str(err.value))
        assert found, str(err.value)
        i, k, joint = int(found[1]), int(found[2]), found[3]
        dof = model.jnt_vadr[model.joint_id(joint)]
        assert np.all(M_pin[i, k][dof] == 0.0), (name, joint)
    else:
        qdd = dyn.aba(model, Q, V, tau, FE, friction=False, armature=False, threads=2)
        for idx in np.ndindex(*LEAD):
            back = M_pin[idx] @ qdd[idx] + h_pin[idx]
            worst["aba"] = max(worst["aba"], rel_err(back, tau[idx]))
    # with a rotor inertia (armature) on every dof M is invertible on every robot: the batch
    # against (M_pin + diag(armature))^-1 (tau - h_pin) from Pinocchio's CRBA and RNEA
    arm = rng.uniform(0.01, 0.1, model.nv)
    geared = dataclasses.replace(model, dof_armature=arm)
    tau_arm = tau + arm * A
    qdd = dyn.aba(geared, Q, V, tau_arm, FE, friction=False, armature=True, threads=2)
    for idx in np.ndindex(*LEAD):
        want = np.linalg.solve(M_pin[idx] + np.diag(arm), tau_arm[idx] - h_pin[idx])
        worst["aba_armature"] = max(worst["aba_armature"], rel_err(qdd[idx], want))
    assert max(worst.values()) <= TOL, (name, floating, worst)
