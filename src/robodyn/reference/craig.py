"""Iterative Newton-Euler inverse dynamics in Craig's 3-vector form (course notes 002).

A second teaching reference beside :func:`robodyn.reference.rnea` (the same recursion in
MR's 6x6 form): each body i carries its angular velocity and acceleration omega_i,
omegadot_i, the linear acceleration vdot_i of its frame origin, and, at its centre of mass
P_Ci, the force F_i and moment N_i, all in frame i. With ``(R, P) = T_{lambda,i}``
(frame i in its parent's), ``a`` the joint axis in frame i and ``x, xd, xdd`` the joint's
q, qdot, qddot:

outward, base to tips (vdot_0 = -g: gravity as an upward base acceleration)::

    omega_i     = R^T omega_l (+ xd a, revolute)
    omegadot_i  = R^T omegadot_l (+ (R^T omega_l) x xd a + xdd a, revolute)
    vdot_i      = R^T (omegadot_l x P + omega_l x (omega_l x P) + vdot_l)
                  (+ 2 omega_i x xd a + xdd a, prismatic)
    vdot_Ci     = omegadot_i x P_Ci + omega_i x (omega_i x P_Ci) + vdot_i
    F_i = m_i vdot_Ci,   N_i = I_Ci omegadot_i + omega_i x I_Ci omega_i

inward, tips to base (summed over the children c of body i)::

    f_i = F_i + sum_c R_c f_c
    n_i = N_i + P_Ci x F_i + sum_c (R_c n_c + P_c x R_c f_c)
    tau_i = n_i . a (revolute),  f_i . a (prismatic)

Course notes 002 print vdot_l outside the rotation R^T and project ``n_{i+1}`` on joint
i's axis; both are corrected here (docs/course-errata.md). Fixed-base models with
revolute and prismatic joints; no friction (the rigid-body equations only).
"""

from __future__ import annotations

import numpy as np

from ..model.model import JOINT_PRISMATIC, JOINT_REVOLUTE
from ..spatial import exp3

__all__ = ["rnea_craig"]


def rnea_craig(model, q, v, a) -> np.ndarray:
    """tau = M(q) a + C(q, v) v + g(q) by Craig's iterative Newton-Euler equations.

    Parameters
    ----------
    model : Model
        Fixed base; revolute and prismatic joints.
    q, v, a : (nv,)

    Returns
    -------
    tau : (nv,)
    """
    nb = model.nb
    if model.nq != model.nv or np.any(model.jnt_mimic[1:] >= 0):
        raise ValueError("rnea_craig takes fixed-base models without mimic joints")
    w, dw, dv = np.zeros((nb, 3)), np.zeros((nb, 3)), np.zeros((nb, 3))
    dv[0] = -model.gravity  # the base accelerates upward at g
    R, P, axis = np.zeros((nb, 3, 3)), np.zeros((nb, 3)), np.zeros((nb, 3))
    F, N = np.zeros((nb, 3)), np.zeros((nb, 3))
    for i in range(1, nb):
        l, t, k = model.body_parent[i], model.jnt_type[i], model.jnt_vadr[i]
        ax = model.jnt_axis[i]
        x, xd, xdd = q[model.jnt_qadr[i]], v[k], a[k]
        if t == JOINT_REVOLUTE:
            R[i], P[i] = model.jnt_R[i] @ exp3(ax * x), model.jnt_p[i]
        elif t == JOINT_PRISMATIC:
            R[i], P[i] = model.jnt_R[i], model.jnt_p[i] + model.jnt_R[i] @ ax * x
        else:
            raise ValueError(f"rnea_craig: joint of body {model.body_names[i]!r} not 1-dof")
        axis[i] = ax
        Rt = R[i].T
        w[i] = Rt @ w[l]
        dw[i] = Rt @ dw[l]
        dv[i] = Rt @ (np.cross(dw[l], P[i]) + np.cross(w[l], np.cross(w[l], P[i])) + dv[l])
        if t == JOINT_REVOLUTE:
            w[i] += xd * ax
            dw[i] += np.cross(Rt @ w[l], xd * ax) + xdd * ax
        else:
            dv[i] += 2 * np.cross(w[i], xd * ax) + xdd * ax
        c, m, Ic = model.body_com[i], model.body_mass[i], model.body_inertia[i]
        dvc = np.cross(dw[i], c) + np.cross(w[i], np.cross(w[i], c)) + dv[i]
        F[i] = m * dvc
        N[i] = Ic @ dw[i] + np.cross(w[i], Ic @ w[i])
    f, n = F.copy(), N + np.cross(model.body_com, F)
    tau = np.zeros(model.nv)
    for i in range(nb - 1, 0, -1):
        k = model.jnt_vadr[i]
        tau[k] = (n[i] if model.jnt_type[i] == JOINT_REVOLUTE else f[i]) @ axis[i]
        l = model.body_parent[i]
        f[l] += R[i] @ f[i]
        n[l] += R[i] @ n[i] + np.cross(P[i], R[i] @ f[i])
    return tau
