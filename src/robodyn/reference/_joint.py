"""The joint model shared by the reference algorithms."""

from __future__ import annotations

import numpy as np

from ..model import joints
from ..model.model import planar_basis
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
    if model.jnt_type[i] == joints.JOINT_REVOLUTE:
        X_J[:3, :3] = exp3(axis * (mult * q[qa] + off))
        S[:3, va] = mult * axis
    elif model.jnt_type[i] == joints.JOINT_PRISMATIC:
        X_J[:3, 3] = axis * (mult * q[qa] + off)
        S[3:, va] = mult * axis
    elif model.jnt_type[i] == joints.JOINT_FREE:
        quat = q[qa + 3 : qa + 7] / np.linalg.norm(q[qa + 3 : qa + 7])
        X_J = transform(quat_to_rotation(quat), q[qa : qa + 3])
        S[:, va : va + 6] = np.eye(6)
    elif model.jnt_type[i] == joints.JOINT_SPHERICAL:  # q = quaternion, v = omega_b
        X_J[:3, :3] = quat_to_rotation(q[qa : qa + 4] / np.linalg.norm(q[qa : qa + 4]))
        S[:3, va : va + 3] = np.eye(3)
    elif model.jnt_type[i] == joints.JOINT_PLANAR:  # q = (phi, x, y), v = (omega, v_1, v_2)
        t1, t2 = planar_basis(axis)
        X_J = transform(exp3(axis * q[qa]), q[qa + 1] * t1 + q[qa + 2] * t2)
        S[:3, va], S[3:, va + 1], S[3:, va + 2] = axis, t1, t2
    elif model.jnt_type[i] == joints.JOINT_HELICAL:  # screw [a; h a] (MR eq. 3.73)
        h = model.jnt_pitch[i]
        X_J = transform(exp3(axis * q[qa]), h * q[qa] * axis)
        S[:3, va], S[3:, va] = axis, h * axis
    elif model.jnt_type[i] == joints.JOINT_CYLINDRICAL:  # q = (theta, d)
        X_J = transform(exp3(axis * q[qa]), q[qa + 1] * axis)
        S[:3, va], S[3:, va + 1] = axis, axis
    elif model.jnt_type[i] == joints.JOINT_UNIVERSAL:  # Rot(a1, t1) Rot(a2, t2)
        a2 = model.jnt_axis2[i]
        R2 = exp3(a2 * q[qa + 1])
        X_J[:3, :3] = exp3(axis * q[qa]) @ R2
        S[:3, va], S[:3, va + 1] = R2.T @ axis, a2  # body angular velocity R^T dR/dt
    return transform(model.jnt_R[i], model.jnt_p[i]) @ X_J, S


def joint_bias(model, i: int, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``c_J = (dS_i/dt) v`` (6,): zero but for a universal joint, whose first column
    ``R2^T a1`` turns with ``t2``: ``d/dt (R2^T a1) = t2dot (R2^T a1) x a2``."""
    c = np.zeros(6)
    if model.jnt_type[i] == joints.JOINT_UNIVERSAL:
        qa, va = int(model.jnt_qadr[i]), int(model.jnt_vadr[i])
        a2 = model.jnt_axis2[i]
        u = exp3(a2 * q[qa + 1]).T @ model.jnt_axis[i]
        c[:3] = v[va] * v[va + 1] * np.cross(u, a2)
    return c


def spatial_inertia(model, i: int) -> np.ndarray:
    """G_i (6, 6) in body frame i: G_c = diag(I_c, m 1) moved from the CoM, MR eq. 8.42."""
    G_c = np.zeros((6, 6))
    G_c[:3, :3] = model.body_inertia[i]
    G_c[3:, 3:] = model.body_mass[i] * np.eye(3)
    Ad_ci = adjoint(transform(None, -model.body_com[i]))  # T_{c,i}: body origin seen from CoM
    return Ad_ci.T @ G_c @ Ad_ci
