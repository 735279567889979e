"""Dynamics vs Pinocchio on every example-robot-data URDF Pinocchio loads, fixed and
floating base: rnea (with external wrenches), crba, aba, generalized gravity and
nonLinearEffects at random states, after the [v, omega] / quaternion reorderings."""

from __future__ import annotations

import zlib

import numpy as np
import pinocchio as pin
import pytest

from robodyn import dynamics as dyn
from robodyn.convert import PinocchioMap
from robodyn.model.configuration import random_configuration
from robodyn.model.urdf import load_urdf

STATES = 20
TOL = 1e-9


def rel_err(x, y) -> float:
    return float(np.abs(x - y).max(initial=0.0) / max(1.0, np.abs(y).max(initial=0.0)))


def pin_force(F) -> pin.Force:
    """robodyn wrench [m, f] -> Pinocchio Force (linear first)."""
    return pin.Force(np.asarray(F[3:]), np.asarray(F[:3]))


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_dynamics_match_pinocchio(erd_robot, floating):
    name, path = erd_robot
    # strict=False keeps inertias as written (as Pinocchio does); mimic=False: Pinocchio
    # loads <mimic> joints as independent joints by default
    model = load_urdf(path, floating_base=floating, mimic=False, invalid_inertia="keep")
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else (
        pin.buildModelFromUrdf(path)
    )  # fmt: skip
    pd = pm.createData()
    mp = PinocchioMap(model, pm)
    assert model.nv == pm.nv
    # the robodyn body that each Pinocchio joint moves (both use the joint frame)
    pin_body = {j: model.joint_id(pm.names[j]) for j in range(1, pm.njoints)}
    rng = np.random.default_rng(zlib.crc32(f"{name}{floating}".encode()))
    worst = dict(rnea=0.0, crba=0.0, aba=0.0, gravity=0.0, nle=0.0)
    singular = None
    for _ in range(STATES):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        f_ext = np.zeros((model.nb, 6))
        fext_pin = [pin.Force.Zero() for _ in range(pm.njoints)]
        for j in range(1, pm.njoints):
            F = rng.normal(size=6)
            f_ext[pin_body[j]] = F
            fext_pin[j] = pin_force(F)
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)

        tau = dyn.rnea(model, q, v, a, f_ext, friction=False)
        tau_pin = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap, fext_pin))
        worst["rnea"] = max(worst["rnea"], rel_err(tau, tau_pin))

        M_pin = pin.crba(pm, pd, qp)
        M_pin = mp.matrix_from_pin(np.triu(M_pin) + np.triu(M_pin, 1).T)
        worst["crba"] = max(worst["crba"], rel_err(dyn.crba(model, q), M_pin))

        g_pin = mp.v_from_pin(pin.computeGeneralizedGravity(pm, pd, qp))
        worst["gravity"] = max(worst["gravity"], rel_err(dyn.gravity_forces(model, q), g_pin))
        h_pin = mp.v_from_pin(pin.nonLinearEffects(pm, pd, qp, vp))
        worst["nle"] = max(worst["nle"], rel_err(dyn.bias_forces(model, q, v), h_pin))

        # forward dynamics: only where Pinocchio's M is invertible (romeo has massless
        # leaf links: there robodyn must refuse with a clear error instead)
        eig = np.linalg.eigvalsh(M_pin)
        if eig.min() <= 1e-12 * eig.max():
            with pytest.raises(ValueError, match="mass matrix is singular: joint '"):
                dyn.aba(model, q, v, tau, f_ext, friction=False)
            singular = True
            continue
        qdd = dyn.aba(model, q, v, tau, f_ext, friction=False)
        qdd_pin = mp.v_from_pin(pin.aba(pm, pd, qp, vp, mp.v_to_pin(tau), fext_pin))
        # forward error bounded by cond(M) * (rounding); compare relative to that
        cond = eig.max() / eig.min()
        worst["aba"] = max(worst["aba"], rel_err(qdd, qdd_pin) / max(1.0, cond * 1e-6))
        worst["aba"] = max(worst["aba"], rel_err(qdd, a) / max(1.0, cond * 1e-6))
    assert max(worst.values()) <= TOL, (name, floating, worst, singular)
