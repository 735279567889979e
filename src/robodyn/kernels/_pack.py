"""Pack a :class:`~robodyn.model.model.Model` into the one flat array the compiled core reads.

The core (``kernels/core/*.c``) takes the whole model as one int64 array ``P``, built once per
model and cached on it (the Model is immutable), so that a call passes one argument. ``P`` is
``I`` followed by the bytes of ``F``:

``I`` (int64): header ``[nb, nq, nv, has_mimic, nf, has_free, 0, 0]`` (``HI`` entries), then one
record of ``WI`` entries per body ``i``::

    [parent, subtree_end, joint type, q index, v index, joint nv, is_mimic, own nv]

where q/v index are the leader's for a mimic joint and "joint nv" is 1 for a mimic; then
the body of each operational frame (nf).

``F`` (float64): header ``[gx, gy, gz, pivot_rel, ...]`` (``HF`` entries), then one
record of ``WF`` entries per body::

    [m, h = m c (3), I_o (9, about the body origin), axis (3), jnt_R (9), jnt_p (3),
     mimic multiplier, mimic offset, R0 [axis] (9), R0 [axis]^2 (9), R0 axis (3),
     S_i (3 x 6: the columns of a spherical, planar, helical or cylindrical joint), pitch,
     c (3), I_c (9, about c), subtree scale: rotational (kg m^2), mass (kg)]

A pivot of ABA or of M's Cholesky factor is "zero" (M singular) when at most ``pivot_rel``
(1e-12) times its own scale (rd.h): the subtree scales bound what the body's subtree can put
on its joint's pivot, sum of tr(I_c)/2 + m r^2 with r the sum of the joint offsets |jnt_p|
down to the body plus |c| (a bound over the configurations of a tree of revolute joints),
and the subtree's mass.

(R0 = jnt_R; the last three make a revolute joint's rotation R0 Rot(axis, t) =
R0 + sin t R0 [axis] + (1 - cos t) R0 [axis]^2 cost 18 multiplications, MR eq. 3.51),
then ``damping (nv)``, ``friction (nv)``, ``armature (nv)``, and per operational frame its
pose on its body, ``R`` (9, row-major) and ``p`` (3).

The layout constants below are compared with the ones the C core was compiled with when
:mod:`robodyn.kernels` is imported.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# header sizes and record widths
HI = 8
WI = 8
HF = 8
WF = 84

# I record fields
BI_PARENT = 0
BI_END = 1
BI_TYPE = 2
BI_QIDX = 3
BI_VIDX = 4
BI_NV = 5
BI_MIMIC = 6

# F record fields
BF_MASS = 0
BF_H = 1
BF_IO = 4
BF_AXIS = 13
BF_R0 = 16
BF_P0 = 25
BF_MULT = 28
BF_OFF = 29
BF_A1 = 30  # R0 [axis] (9): R0 Rot(axis, t) = R0 + sin t A1 + (1 - cos t) A2
BF_A2 = 39  # R0 [axis]^2 (9)
BF_RA = 48  # R0 axis (3): the prismatic direction in the parent frame
BF_S = 51  # up to 3 constant columns of S_i (6 each, body coordinates): joints >= J_SPHERICAL;
# a universal joint keeps a2, a2 x a1 and a2 x (a2 x a1) there (3 each)
BF_PITCH = 69  # helical pitch (m/rad)
BF_C = 70  # the centre of mass c (3), body frame
BF_IC = 73  # the rotational inertia I_c about c (9)
BF_SR = 82  # the subtree's rotational scale, sum tr(I_c)/2 + m r^2 (kg m^2)
BF_ST = 83  # the subtree's mass (kg)

#: a pivot at most this times its own scale is zero: the mass matrix is singular (rd.h)
PIVOT_REL = 1e-12

# joint types (same codes as robodyn.model.model)
J_FIXED = 0
J_REVOLUTE = 1
J_PRISMATIC = 2
J_FREE = 3
J_SPHERICAL = 4
J_PLANAR = 5
J_HELICAL = 6
J_CYLINDRICAL = 7
J_UNIVERSAL = 8

# kernel flags
FL_FRICTION = 1  # viscous damping and Coulomb friction
FL_ARMATURE = 2  # rotor inertia on M's diagonal
FL_CHECK = 4  # reject NaN / inf inputs
FL_GRAVITY = 8  # base acceleration -g
FL_VEL = 16  # use v (else v = 0)
FL_ACC = 32  # use a (else a = 0)
FL_FEXT = 64  # use f_ext
FL_MINV_ABA = 128  # M^-1 by the articulated-body recursion (minv_aba.c)
FL_MINV_CHOLESKY = 256  # M^-1 through M's Cholesky factor (neither: the faster by nv)

# states computed together in a batch (rd.h)
LANES = 16

# Jacobian kinds of the kinematics kernels
KIND_SPACE = 0
KIND_BODY = 1
KIND_WORLD_ALIGNED = 2


class Packed(NamedTuple):
    """The packed model and the sizes the wrappers need."""

    P: np.ndarray  # int64: I (HI + WI nb + nf), then the bytes of F
    I: np.ndarray  # (HI + WI nb,) int64: the header and body records
    F: np.ndarray  # (HF + WF nb + 3 nv,) float64: the header, body records, dof parameters
    nb: int
    nq: int
    nv: int
    nf: int
    has_mimic: bool


def pack_model(model) -> Packed:
    """Build the packed arrays of ``model`` (use :func:`packed` for the cached copy)."""
    nb, nq, nv, nf = model.nb, model.nq, model.nv, model.nf
    has_mimic = bool(np.any(model.jnt_mimic >= 0))
    I = np.zeros(HI + WI * nb, dtype=np.int64)
    I[0], I[1], I[2], I[3], I[4] = nb, nq, nv, int(has_mimic), nf
    # a joint whose q is not integrated as q + v dt (the state check looks for zero
    # quaternions; the compiled rollout refuses such models)
    I[5] = int(np.any(np.isin(model.jnt_type, (J_FREE, J_SPHERICAL, J_PLANAR))))
    F = np.zeros(HF + WF * nb + 3 * nv)
    F[0:3] = model.gravity
    for i in range(nb):
        b = HI + WI * i
        lead = int(model.jnt_mimic[i])
        src = lead if lead >= 0 else i
        I[b + BI_PARENT] = model.body_parent[i]
        I[b + BI_END] = model.body_subtree_end[i]
        I[b + BI_TYPE] = model.jnt_type[i]
        I[b + BI_QIDX] = model.jnt_qadr[src]
        I[b + BI_VIDX] = model.jnt_vadr[src]
        I[b + BI_NV] = 1 if lead >= 0 else model.jnt_nv[i]
        I[b + BI_MIMIC] = int(lead >= 0)
        I[b + 7] = model.jnt_nv[i]
        f = HF + WF * i
        m = float(model.body_mass[i])
        c = np.asarray(model.body_com[i], dtype=float)
        Ic = np.asarray(model.body_inertia[i], dtype=float)
        # I_o = I_c + m [c]^T [c] (parallel axes, MR eq. 8.26)
        Io = Ic + m * (float(c @ c) * np.eye(3) - np.outer(c, c))
        F[f + BF_MASS] = m
        F[f + BF_H : f + BF_H + 3] = m * c
        F[f + BF_IO : f + BF_IO + 9] = Io.ravel()
        F[f + BF_C : f + BF_C + 3] = c
        F[f + BF_IC : f + BF_IC + 9] = Ic.ravel()
        F[f + BF_AXIS : f + BF_AXIS + 3] = model.jnt_axis[i]
        F[f + BF_R0 : f + BF_R0 + 9] = np.asarray(model.jnt_R[i]).ravel()
        F[f + BF_P0 : f + BF_P0 + 3] = model.jnt_p[i]
        F[f + BF_MULT] = model.jnt_mimic_mult[i] if lead >= 0 else 1.0
        F[f + BF_OFF] = model.jnt_mimic_offset[i] if lead >= 0 else 0.0
        R0 = np.asarray(model.jnt_R[i], dtype=float)
        ax = np.asarray(model.jnt_axis[i], dtype=float)
        K = np.array([[0.0, -ax[2], ax[1]], [ax[2], 0.0, -ax[0]], [-ax[1], ax[0], 0.0]])
        F[f + BF_A1 : f + BF_A1 + 9] = (R0 @ K).ravel()
        F[f + BF_A2 : f + BF_A2 + 9] = (R0 @ K @ K).ravel()
        F[f + BF_RA : f + BF_RA + 3] = R0 @ ax
        if model.jnt_type[i] == J_UNIVERSAL:
            a2 = np.asarray(model.jnt_axis2[i], dtype=float)
            w1 = np.cross(a2, ax)
            F[f + BF_S : f + BF_S + 9] = np.concatenate([a2, w1, np.cross(a2, w1)])
        elif model.jnt_type[i] >= J_SPHERICAL:
            S = model.joint_subspace(i)
            F[f + BF_S : f + BF_S + S.size] = S.T.ravel()
            F[f + BF_PITCH] = model.jnt_pitch[i]
    F[3] = PIVOT_REL
    _subtree_scales(model, F)
    d = HF + WF * nb
    F[d : d + nv] = model.dof_damping
    F[d + nv : d + 2 * nv] = model.dof_friction
    F[d + 2 * nv : d + 3 * nv] = model.dof_armature
    frames = np.concatenate(
        [np.asarray(model.frame_R, dtype=float).reshape(nf, 9), np.asarray(model.frame_p)], 1
    )
    P = np.concatenate(
        [I, np.asarray(model.frame_body, dtype=np.int64), F.view(np.int64),
         frames.ravel().view(np.int64)]
    )  # fmt: skip
    for a in (P, I, F):
        a.flags.writeable = False
    return Packed(P, I, F, nb, nq, nv, nf, has_mimic)


def _subtree_scales(model, F: np.ndarray) -> None:
    """BF_SR and BF_ST of every body, leaves to root in one pass: with b_k bounding the
    distance of body k's centre from body i's origin (|c_k| plus the joint offsets |jnt_p|
    on the way), the subtree of i holds M = sum m_k, B1 = sum m_k b_k, B2 = sum m_k b_k^2
    and T = sum tr(I_c,k)/2; a child c at offset d = |jnt_p_c| adds M_c, B1_c + d M_c and
    B2_c + 2 d B1_c + d^2 M_c ((b + d)^2 expanded). BF_SR = T + B2, BF_ST = M."""
    nb = model.nb
    mass = np.asarray(model.body_mass, dtype=float)
    cn = np.linalg.norm(np.asarray(model.body_com, dtype=float), axis=1)
    M = mass.copy()
    B1 = mass * cn
    B2 = mass * cn * cn
    T = 0.5 * np.trace(np.asarray(model.body_inertia, dtype=float), axis1=1, axis2=2)
    d = np.linalg.norm(np.asarray(model.jnt_p, dtype=float), axis=1)
    parent = np.asarray(model.body_parent)
    for i in range(nb - 1, 0, -1):  # children after their parents: each is complete here
        f = HF + WF * i
        F[f + BF_SR] = T[i] + B2[i]
        F[f + BF_ST] = M[i]
        lam = parent[i]
        if lam > 0:
            M[lam] += M[i]
            B2[lam] += B2[i] + 2.0 * d[i] * B1[i] + d[i] * d[i] * M[i]
            B1[lam] += B1[i] + d[i] * M[i]
            T[lam] += T[i]


def packed(model) -> Packed:
    """The packed arrays of ``model``, built on first use and cached on the Model."""
    p = model.__dict__.get("_rd_packed")
    if p is None:
        p = pack_model(model)
        object.__setattr__(model, "_rd_packed", p)
    return p
