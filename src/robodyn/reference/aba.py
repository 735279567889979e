"""Articulated body algorithm (Featherstone table 7.1, MR section 8.5), in 6x6 form."""

from __future__ import annotations

import numpy as np

from ..spatial import ad, adjoint, inv_transform
from ._joint import joint_bias, joint_placement, spatial_inertia
from .crba import crba
from .rnea import rnea


def aba(model, q, v, tau, f_ext=None) -> np.ndarray:
    """Joint accelerations a with M(q) a + C(q, v) v + g(q) - sum J_i^T F_ext,i = tau.

    Models with mimic joints (which couple non-ancestor bodies) are solved as
    M^-1 (tau - h) with the reference CRBA and RNEA instead.
    """
    if np.any(model.jnt_mimic >= 0):
        return np.linalg.solve(crba(model, q), tau - rnea(model, q, v, 0 * v, f_ext))
    nb = model.nb
    V, c, pA = np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nb, 6))
    IA = [np.zeros((6, 6)) for _ in range(nb)]
    Ad, S, cols = [np.eye(6)] * nb, [None] * nb, [None] * nb
    U, Dinv, u = [None] * nb, [None] * nb, [None] * nb
    for i in range(1, nb):
        lam = model.body_parent[i]
        T, Sfull = joint_placement(model, i, q)
        cols[i] = slice(model.jnt_vadr[i], model.jnt_vadr[i] + model.jnt_nv[i])
        S[i], Ad[i] = Sfull[:, cols[i]], adjoint(inv_transform(T))
        V[i] = Ad[i] @ V[lam] + Sfull @ v  # (8.50)
        c[i] = ad(V[i]) @ Sfull @ v + joint_bias(model, i, q, v)  # velocity-product acc.
        IA[i] = spatial_inertia(model, i)
        pA[i] = -ad(V[i]).T @ IA[i] @ V[i] - (0 if f_ext is None else f_ext[i])
    for i in range(nb - 1, 0, -1):
        lam = model.body_parent[i]
        U[i] = IA[i] @ S[i]
        Dinv[i] = np.linalg.inv(S[i].T @ U[i])
        u[i] = tau[cols[i]] - S[i].T @ pA[i]
        if lam > 0:
            Ia = IA[i] - U[i] @ Dinv[i] @ U[i].T  # articulated inertia seen through the joint
            pa = pA[i] + Ia @ c[i] + U[i] @ Dinv[i] @ u[i]
            IA[lam] += Ad[i].T @ Ia @ Ad[i]
            pA[lam] += Ad[i].T @ pa
    dV = np.zeros((nb, 6))
    dV[0, 3:] = -model.gravity  # gravity as a base acceleration
    qdd = np.zeros(model.nv)
    for i in range(1, nb):
        a_p = Ad[i] @ dV[model.body_parent[i]] + c[i]
        qdd[cols[i]] = Dinv[i] @ (u[i] - U[i].T @ a_p)
        dV[i] = a_p + S[i] @ qdd[cols[i]]
    return qdd
