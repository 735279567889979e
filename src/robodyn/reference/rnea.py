"""Recursive Newton-Euler inverse dynamics, MR eqs. 8.50-8.54, in 6x6 form."""

from __future__ import annotations

import numpy as np

from ..spatial import ad, adjoint, inv_transform
from ._joint import joint_bias, joint_placement, spatial_inertia


def rnea(model, q, v, a, f_ext=None) -> np.ndarray:
    """tau = M(q) a + C(q, v) v + g(q) - sum_i J_i^T F_ext,i.

    Parameters
    ----------
    model : Model
    q : (nq,) ; v, a : (nv,)
    f_ext : (nb, 6), optional
        Wrench [m, f] applied on each body, in that body's frame.

    Returns
    -------
    tau : (nv,)
    """
    nb = model.nb
    V = np.zeros((nb, 6))  # body twists V_i
    dV = np.zeros((nb, 6))  # their derivatives; dV_0 = [0, -g]: gravity as base acceleration
    dV[0, 3:] = -model.gravity
    F = np.zeros((nb, 6))  # wrench on body i through its joint, frame i
    Ad = [np.eye(6)] * nb  # Ad_{T_{i, lambda(i)}}
    S = [np.zeros((6, model.nv))] * nb
    for i in range(1, nb):
        lam = model.body_parent[i]
        T, S[i] = joint_placement(model, i, q)
        Ad[i] = adjoint(inv_transform(T))
        V[i] = Ad[i] @ V[lam] + S[i] @ v  # (8.50)
        dV[i] = Ad[i] @ dV[lam] + ad(V[i]) @ S[i] @ v + S[i] @ a  # (8.51)
        dV[i] += joint_bias(model, i, q, v)  # + dS_i/dt v (a universal joint)
        G = spatial_inertia(model, i)
        F[i] = G @ dV[i] - ad(V[i]).T @ G @ V[i]  # (8.53), own part
        if f_ext is not None:
            F[i] -= f_ext[i]
    tau = np.zeros(model.nv)
    for i in range(nb - 1, 0, -1):
        tau += S[i].T @ F[i]  # (8.54)
        F[model.body_parent[i]] += Ad[i].T @ F[i]  # (8.53), children part
    return tau
