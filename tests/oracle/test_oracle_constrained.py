"""Constrained forward dynamics (course notes 001 eqs. 10.15-10.17, robodyn's compiled KKT
solve) vs Pinocchio's ``forwardDynamics(q, v, tau, J, gamma)`` on every example-robot-data
URDF Pinocchio loads, fixed and floating base: Pinocchio parses the URDF itself and solves
``M a + b = tau + J^T lambda, J a + gamma = 0`` with its own M and b; the accelerations and
the multipliers must agree after the [v, omega] reordering (the rows of A are covectors,
reordered as tau is)."""

from __future__ import annotations

import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import load_pair, rel_err
from robodyn.constrained import constrained_forward_dynamics
from robodyn.model.configuration import random_configuration

STATES = 5
TOL = 1e-9
# typed: the robots on which a joint drives only massless links (M singular; the same two
# as test_oracle_dynamics.py's SINGULAR)
SINGULAR = {"romeo_description/urdf/romeo", "romeo_description/urdf/romeo_laas_small"}


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_constrained_forward_dynamics_matches_pinocchio(erd_robot, floating):
    name, path = erd_robot
    if name in SINGULAR:
        model, *_ = load_pair(path, floating)
        q = random_configuration(model, np.random.default_rng(0))
        z = np.zeros(model.nv)
        with pytest.raises(ValueError, match="singular"):
            constrained_forward_dynamics(model, q, z, z, np.eye(1, model.nv), [0.0])
        return
    model, pm, pd, mp = load_pair(path, floating)
    rng = np.random.default_rng(zlib.crc32(f"kkt{name}{floating}".encode()))
    k = min(3, model.nv - 1) if model.nv > 1 else 1
    worst_a = worst_l = 0.0
    for _ in range(STATES):
        q = random_configuration(model, rng)
        v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
        A, gamma = rng.normal(size=(k, model.nv)), rng.normal(size=k)
        ddq, lam = constrained_forward_dynamics(
            model, q, v, tau, A, gamma, friction=False, armature=False
        )
        A_pin = np.stack([mp.v_to_pin(row) for row in A])
        a_pin = pin.forwardDynamics(
            pm, pd, mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(tau), A_pin, gamma, 0.0
        )
        worst_a = max(worst_a, rel_err(ddq, mp.v_from_pin(np.array(a_pin))))
        worst_l = max(worst_l, rel_err(lam, np.array(pd.lambda_c)))
    assert worst_a < TOL and worst_l < TOL, (name, worst_a, worst_l)
