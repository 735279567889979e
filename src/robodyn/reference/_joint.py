"""The joint model shared by the reference algorithms."""

from __future__ import annotations

import numpy as np

from ..model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE
from ..spatial import adjoint, exp3, quat_to_rotation, transform


def joint_placement(model, i: int, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pose ``T_{lambda(i), i}(q)`` (4, 4) and motion subspace ``S_i`` (6, nv) of body i.

    ``S_i v`` is the joint twist in body-i coordinates. A mimic joint follows its leader:
    ``q_i = mult * q_leader + offset`` and ``S_i`` holds ``mult * [axis; 0]`` in the
    leader's column.
    """
    lead = int(model.jnt_mimic[i])
    src = lead if lead >= 0 else i
    qa, va = int(model.jnt_qadr[src]), int(model.jnt_vadr[src])
    mult, off = (model.jnt_mimic_mult[i], model.jnt_mimic_offset[i]) if lead >= 0 else (1.0, 0.0)
    axis = model.jnt_axis[i]
    S = np.zeros((6, model.nv))
    X_J = np.eye(4)
    if model.jnt_type[i] == JOINT_REVOLUTE:
        X_J[:3, :3] = exp3(axis * (mult * q[qa] + off))
        S[:3, va] = mult * axis
    elif model.jnt_type[i] == JOINT_PRISMATIC:
        X_J[:3, 3] = axis * (mult * q[qa] + off)
        S[3:, va] = mult * axis
    elif model.jnt_type[i] == JOINT_FREE:
        quat = q[qa + 3 : qa + 7] / np.linalg.norm(q[qa + 3 : qa + 7])
        X_J = transform(quat_to_rotation(quat), q[qa : qa + 3])
        S[:, va : va + 6] = np.eye(6)
    return transform(model.jnt_R[i], model.jnt_p[i]) @ X_J, S


def spatial_inertia(model, i: int) -> np.ndarray:
    """G_i (6, 6) in body frame i: G_c = diag(I_c, m 1) moved from the CoM, MR eq. 8.42."""
    G_c = np.zeros((6, 6))
    G_c[:3, :3] = model.body_inertia[i]
    G_c[3:, 3:] = model.body_mass[i] * np.eye(3)
    Ad_ci = adjoint(transform(None, -model.body_com[i]))  # T_{c,i}: body origin seen from CoM
    return Ad_ci.T @ G_c @ Ad_ci
