"""Composite rigid body algorithm for M(q) (Featherstone table 6.2), in 6x6 form."""

from __future__ import annotations

import numpy as np

from ..spatial import adjoint, inv_transform
from ._joint import joint_placement, spatial_inertia


def crba(model, q) -> np.ndarray:
    """Joint-space mass matrix M(q) (nv, nv), without armature.

    Ic_i = G_i + sum_children Ad^T Ic_c Ad is the inertia of the subtree of i; the block
    column of body i is F = Ic_i S_i, moved towards the root with Ad^T.
    """
    nb = model.nb
    Ad = [np.eye(6)] * nb  # Ad_{T_{i, lambda(i)}}
    S = [np.zeros((6, model.nv))] * nb
    Ic = [np.zeros((6, 6))] + [spatial_inertia(model, i) for i in range(1, nb)]
    for i in range(1, nb):
        T, S[i] = joint_placement(model, i, q)
        Ad[i] = adjoint(inv_transform(T))
    for i in range(nb - 1, 0, -1):
        lam = model.body_parent[i]
        if lam > 0:
            Ic[lam] = Ic[lam] + Ad[i].T @ Ic[i] @ Ad[i]  # composite inertia of the subtree
    M = np.zeros((model.nv, model.nv))
    for i in range(1, nb):
        F = Ic[i] @ S[i]
        M += S[i].T @ F  # M_ii = S_i^T Ic_i S_i
        j = i
        while model.body_parent[j] > 0:
            F = Ad[j].T @ F  # the wrench seen in the parent frame
            j = model.body_parent[j]
            M += S[j].T @ F + F.T @ S[j]  # M_ji and M_ij
    return M
