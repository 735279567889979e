"""Coriolis matrix, Christoffel symbols, energies, momentum and task-space inertia vs Pinocchio.

Every example-robot-data URDF Pinocchio loads, fixed and floating base. Pinocchio's
``computeCoriolisMatrix`` is the Christoffel-consistent C in the same right-trivialised
(body-twist) convention for the free flyer, so robodyn's C equals it after the
[v, omega] <-> [omega, v] reordering, for fixed and floating bases alike.
"""

from __future__ import annotations

import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import erd_path, load_pair
from robodyn.coriolis import christoffel, coriolis_matrix
from robodyn.dynamics import mass_matrix
from robodyn.energy import (
    centroidal_momentum,
    com_velocity,
    kinetic_energy,
    momentum,
    momentum_matrix,
    potential_energy,
)
from robodyn.kinematics import jacobian
from robodyn.model.configuration import random_configuration
from robodyn.taskspace import dynamically_consistent_pinv, task_space_inertia

RTOL = 1e-9
N_STATES = 20  # issue 4: 20 random states per robot
N_CHRISTOFFEL = 3  # states whose Christoffel symbols are compared, on every robot


def _rel(a, b, scale=0.0):
    """max |a - b| relative to max(|b|, scale)."""
    ref = max(float(np.max(np.abs(b))) if np.size(b) else 0.0, scale)
    return float(np.max(np.abs(a - b))) / ref if ref > 0 else float(np.max(np.abs(a - b)))


def _rows_from_pin(x):
    """Pinocchio [linear; angular] -> robodyn [angular; linear] along axis 0."""
    return np.concatenate([x[3:], x[:3]], axis=0)


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_coriolis_energy_momentum(erd_robot, floating):
    name, path = erd_robot
    model, pm, pd, mp = load_pair(path, floating)
    rng = np.random.default_rng(zlib.crc32(f"{name}{floating}".encode()))
    Q = random_configuration(model, rng, size=N_STATES)
    Vs = rng.normal(size=(N_STATES, model.nv))
    C_all = coriolis_matrix(model, Q, Vs)
    for k in range(N_STATES):
        q, v = Q[k], Vs[k]
        qp, vp = mp.q_to_pin(q), mp.v_to_pin(v)
        M = mass_matrix(model, q)
        # C: relative to max(|C_pin|, |M| |v|) (C is O(|M| |v|); some robots have C ~ 0)
        Cp = mp.matrix_from_pin(pin.computeCoriolisMatrix(pm, pd, qp, vp))
        scale = float(np.abs(M).max() * np.abs(v).max())
        assert _rel(C_all[k], Cp, scale) < RTOL, (name, k)
        # energies
        Kp = pin.computeKineticEnergy(pm, pd, qp, vp)
        assert abs(kinetic_energy(model, q, v) - Kp) <= RTOL * max(abs(Kp), 1e-300)
        Up = pin.computePotentialEnergy(pm, pd, qp)
        Ms = float(model.total_mass) * 9.81 * (1.0 + float(np.max(np.abs(pd.com[0]))))
        assert abs(potential_energy(model, q) - Up) <= RTOL * max(abs(Up), Ms)
        # centroidal momentum and map (Pinocchio: [linear; angular], about the CoM)
        hp = pin.computeCentroidalMomentum(pm, pd, qp, vp)
        hp = np.concatenate([hp.angular, hp.linear])
        hs = float(np.abs(momentum(model, q, v)).max())
        assert _rel(centroidal_momentum(model, q, v), hp, hs) < RTOL
        assert _rel(com_velocity(model, q, v), pd.vcom[0].copy(), hs / model.total_mass) < RTOL
        Ag = pin.computeCentroidalMap(pm, pd, qp)
        Ag = _rows_from_pin(Ag)[:, mp.vperm]
        assert _rel(momentum_matrix(model, q, about="com"), Ag) < RTOL
    # Christoffel symbols contracted with v equal Pinocchio's C, on every robot (nv^3
    # entries: 3 states, one batched call; tiago_dual's nv = 107 takes ~0.05 s)
    G = christoffel(model, Q[:N_CHRISTOFFEL])
    assert G.shape == (N_CHRISTOFFEL, model.nv, model.nv, model.nv)
    for k in range(N_CHRISTOFFEL):
        q, v = Q[k], Vs[k]
        Cp = mp.matrix_from_pin(pin.computeCoriolisMatrix(pm, pd, mp.q_to_pin(q), mp.v_to_pin(v)))
        scale = float(np.abs(mass_matrix(model, q)).max() * np.abs(v).max())
        assert _rel(np.einsum("ijk,k->ij", G[k], v), Cp, scale) < RTOL, (name, k)


@pytest.mark.parametrize("robot,frame", [("ur5_robot", "ee_link"), ("panda", "panda_link8")])
def test_task_space_inertia_vs_pinocchio(robot, frame):
    """Lambda = inv(J M^-1 J^T) from Pinocchio's own frame Jacobian (LOCAL) and CRBA."""
    model, pm, pd, mp = load_pair(erd_path(robot), False)
    rng = np.random.default_rng(2)
    fid = pm.getFrameId(frame)
    tested = 0
    for _ in range(10):
        q = random_configuration(model, rng)
        qp = mp.q_to_pin(q)
        Mp = pin.crba(pm, pd, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        pin.computeJointJacobians(pm, pd, qp)
        pin.updateFramePlacements(pm, pd)
        Jp = pin.getFrameJacobian(pm, pd, fid, pin.ReferenceFrame.LOCAL)
        Lam_p = np.linalg.inv(Jp @ np.linalg.solve(Mp, Jp.T))
        s = np.linalg.svd(Jp, compute_uv=False)
        if s[5] < 1e-3:  # keep well-conditioned configurations
            continue
        # robodyn's rows are [omega; v]: reorder Pinocchio's [v; omega] on both sides
        Lam_p = _rows_from_pin(_rows_from_pin(Lam_p).T).T
        Lam = task_space_inertia(model, q, frame, kind="body")
        assert _rel(Lam, Lam_p) < 1e-8
        # linear part: (J_v M^-1 J_v^T)^-1 with the world-aligned Jacobian
        pin.computeJointJacobians(pm, pd, qp)
        Jw = pin.getFrameJacobian(pm, pd, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[:3]
        Lv_p = np.linalg.inv(Jw @ np.linalg.solve(Mp, Jw.T))
        Lv = task_space_inertia(model, q, frame, kind="world_aligned", part="linear")
        assert _rel(Lv, Lv_p) < 1e-8
        # Jbar = M^-1 J^T Lambda
        Jb = dynamically_consistent_pinv(model, q, frame, kind="body")
        Jbar_p = np.linalg.solve(Mp, Jp.T) @ np.linalg.inv(Jp @ np.linalg.solve(Mp, Jp.T))
        Jbar_p = _rows_from_pin(mp.v_from_pin(Jbar_p.T)).T  # (nv, 6), robodyn orders
        assert _rel(Jb, Jbar_p) < 1e-8
        J = jacobian(model, q, frame, "body")
        np.testing.assert_allclose(J @ Jb, np.eye(6), atol=1e-8)
        tested += 1
    assert tested >= 5
