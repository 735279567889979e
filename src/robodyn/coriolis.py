"""Coriolis matrix, Christoffel symbols and the derivative of the mass matrix.

The equations of motion ``M(q) dv/dt + C(q, v) v + g(q) = tau`` (MR eq. 8.1; course notes
001 eq. 10.7) leave ``C`` free up to any ``N(q, v)`` with ``N v = 0``. robodyn returns the
*Christoffel-consistent* one (course notes 001 eqs. 10.8-10.10)::

    C_ij = sum_k Gamma_ijk v_k,
    Gamma_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i),

for which ``dM/dt - 2 C`` is skew-symmetric and ``C v`` equals the velocity-product forces
of the recursive Newton-Euler algorithm.

How it is computed (all in world coordinates, MR notation):

* every joint dof ``a`` has a space screw axis ``S_a = [Ad_{T_s,b(a)}] S_a^body`` where
  ``b(a)`` is the body the joint moves; body ``b`` has the spatial inertia
  ``G_b^s = [Ad_{T_bs}]^T G_b [Ad_{T_bs}]`` (MR eq. 8.42) about the world origin and the
  composite inertia ``Ic_b`` of its subtree is the sum of ``G^s`` over the subtree;
* ``M_ab = S_a^T Ic_b(c) S_c`` when ``b(a)`` is an ancestor of (or equal to) ``b(c)``,
  0 when neither body is an ancestor of the other (CRBA in world coordinates);
* moving dof ``k`` moves the whole subtree of ``b(k)`` by ``exp([S_k] eps)``, so
  ``dS_j/dq_k = [ad_{S_k}] S_j`` and ``dIc/dq_k = -([ad_{S_k}]^T Ic + Ic [ad_{S_k}])`` for
  everything in that subtree (MR eq. 8.2's bracket). Writing this out gives dM/dq in
  closed form, O(n^3) for the n^3 entries (:func:`mass_matrix_derivative`);
* the Coriolis matrix comes from ``C = sum_b J_b^T (G_b^s dJ_b/dt + B_b(V_b) J_b)`` with
  ``dS_a/dt = [ad_{V_b(a)}] S_a`` and the Christoffel-consistent body factor of Echeandia
  and Wensing (2021), ``B(V) = 1/2 (-ad_V^T G - G ad_V + bar(G V))`` where
  ``bar(f) V = -ad_V^T f``. With composite inertias ``Ic`` and composite ``Bc`` it costs
  O(n^2) (:func:`coriolis_matrix`), without ever forming Gamma.

Floating base. The six velocity coordinates of a free joint are the body twist
``[omega_b, v_b]``, which are not derivatives of any coordinates (quasi-velocities). Here
"dq_k" along such a dof means the right-trivialised derivative: the rate of change when the
free joint's pose moves as ``T exp([e_k] eps)`` (``rd.integrate(q, eps e_k)``). These six
directions do not commute (``[X_j, X_k] = X_{ad_{e_j} e_k}`` among the base dofs; every
other pair commutes), so the Christoffel symbols of the first kind pick up the bracket terms
of Koszul's formula::

    Gamma_ijk = 1/2 (X_k M_ij + X_j M_ik - X_i M_jk
                     + <[X_k, X_j], X_i> - <[X_k, X_i], X_j> - <[X_j, X_i], X_k>)

(``<a, b> = a^T M b``; the brackets are zero for fixed-base models), i.e. ``Gamma_ijk =
<nabla_{X_k} X_j, X_i>`` for the Levi-Civita connection of the kinetic-energy metric. With
this definition ``C_ij = sum_k Gamma_ijk v_k`` again satisfies ``C v = `` velocity forces
and ``dM/dt - 2C`` skew (``dM/dt = sum_k X_k(M) v_k``); without the bracket terms a single
free body would have ``Gamma = 0`` but nonzero Euler forces ``-ad_V^T G V``.

Pinocchio's ``computeCoriolisMatrix`` is this same matrix for fixed and floating bases
(after the [v, omega] -> [omega, v] reordering of ``robodyn.convert.PinocchioMap``): the
largest relative difference over every example-robot-data URDF is ~1e-14. Armature (a
constant rotor inertia on M's diagonal) does not enter dM/dq, Gamma or C.

Mimic joints (``q_i = mult q_leader + offset``) are handled in the expanded coordinates of
every joint, ``v_full = E v`` with a constant ``E``, then ``M = E^T M_full E`` and the same
contraction of dM/dq, Gamma and C.

:func:`coriolis_matrix` (and :func:`mass_matrix_dot`) run the compiled core
(``kernels/core/coriolis.c``, O(n d) for n dofs and tree depth d, mimic and free joints
included; batches run vectorised across states on all cores);
:func:`coriolis_matrix_reference` is the numpy version written above, kept for teaching
and parity tests. :func:`christoffel` and :func:`mass_matrix_derivative` take their n^3
numbers from the same kernel (C is linear in v: ``Gamma[:, :, k] = C(q, e_k)``, the part
of q computed once for the n columns); ``christoffel_reference`` and
``mass_matrix_derivative_reference`` are the numpy closed forms above.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .errors import ModelError
from .kernels import core as _core
from .kernels._pack import FL_CHECK
from .kernels.call import batched, compute, nonfinite, run
from .kernels.call import threads as _threads
from .kinematics import body_poses
from .model.model import JOINT_FREE, JOINT_PLANAR, JOINT_SPHERICAL, JOINT_UNIVERSAL, Model

__all__ = [
    "mass_matrix_derivative",
    "mass_matrix_derivative_reference",
    "christoffel",
    "christoffel_reference",
    "coriolis_matrix",
    "coriolis_matrix_reference",
    "mass_matrix_dot",
]


# ============================================================================ tree data
class _Tree(NamedTuple):
    """Per-model constants in the expanded coordinates (one per joint dof, mimics too)."""

    nfull: int
    dof_body: np.ndarray  # (nfull,) body moved by each expanded dof
    first: np.ndarray  # (nb,) first expanded dof of each body's joint
    count: np.ndarray  # (nb,) number of expanded dofs of each body's joint
    S_body: np.ndarray  # (nfull, 6) screw axis in the body frame
    E: np.ndarray  # (nfull, nv) v_full = E v
    up: np.ndarray  # (nfull, nfull) bool: b(a) is an ancestor of or equal to b(c)
    strict: np.ndarray  # (nfull, nfull) bool: b(a) is a strict ancestor of b(c)
    lam: np.ndarray | None  # (nfull, nfull, nfull) [X_k, X_j] = sum_l lam[l, k, j] X_l
    free: tuple  # ((first expanded dof, S), ...) of free, spherical and planar joints
    G_body: np.ndarray  # (nb, 6, 6) spatial inertia of each body about its origin


def _ad(V: np.ndarray) -> np.ndarray:
    """``[ad_V]`` (MR def. 8.2) for V (..., 6)."""
    out = np.zeros((*V.shape[:-1], 6, 6))
    w, v = V[..., :3], V[..., 3:]
    W = _skew(w)
    out[..., :3, :3] = W
    out[..., 3:, 3:] = W
    out[..., 3:, :3] = _skew(v)
    return out


def _skew(w: np.ndarray) -> np.ndarray:
    """``[w]`` for w (..., 3)."""
    x, y, z = w[..., 0], w[..., 1], w[..., 2]
    o = np.zeros_like(x)
    return np.stack([o, -z, y, z, o, -x, -y, x, o], axis=-1).reshape((*w.shape[:-1], 3, 3))


def _body_inertia(m: float, c: np.ndarray, Ic: np.ndarray) -> np.ndarray:
    """Spatial inertia about the body origin, body axes: [[I_c + m[c][c]^T, m[c]], [m[c]^T, m]]."""
    C = _skew(c)
    G = np.zeros((6, 6))
    G[:3, :3] = Ic + m * C @ C.T  # parallel axes (MR eq. 8.26)
    G[:3, 3:] = m * C
    G[3:, :3] = m * C.T
    G[3:, 3:] = m * np.eye(3)
    return G


def _tree(model: Model) -> _Tree:
    """The expanded-coordinate constants of ``model`` (cached on the immutable model)."""
    cached = model.__dict__.get("_rd_coriolis_tree")
    if cached is not None:
        return cached
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    nb, nv = model.nb, model.nv
    first = np.zeros(nb, dtype=np.int64)
    count = np.zeros(nb, dtype=np.int64)
    n = 0
    for i in range(1, nb):
        first[i] = n
        count[i] = 1 if model.jnt_mimic[i] >= 0 else int(model.jnt_nv[i])
        n += count[i]
    dof_body = np.zeros(n, dtype=np.int64)
    S_body = np.zeros((n, 6))
    E = np.zeros((n, nv))
    lie = []  # (first expanded dof, S) of the joints whose v are body velocities on a group
    for i in range(1, nb):
        jt = int(model.jnt_type[i])
        a0, c = int(first[i]), int(count[i])
        if c == 0:
            continue
        if jt == JOINT_UNIVERSAL:
            raise ModelError(
                f"joint {model.joint_names_all[i]!r} is a universal joint: its motion subspace "
                "depends on q, which the numpy reference does not model; coriolis_matrix, "
                "christoffel and mass_matrix_derivative (the compiled core) take it"
            )
        dof_body[a0 : a0 + c] = i
        lead = int(model.jnt_mimic[i])
        S = model.joint_subspace(i)  # (6, c), constant in body coordinates
        S_body[a0 : a0 + c] = S.T
        if lead >= 0:
            if int(model.jnt_nv[lead]) != 1:
                raise ModelError(
                    f"mimic joint {model.joint_names_all[i]!r} follows a joint without "
                    "exactly one dof"
                )
            E[a0, int(model.jnt_vadr[lead])] = float(model.jnt_mimic_mult[i])
        else:
            va = int(model.jnt_vadr[i])
            E[a0 : a0 + c, va : va + c] = np.eye(c)
            if jt in (JOINT_FREE, JOINT_SPHERICAL, JOINT_PLANAR):
                lie.append((a0, S))
    end = np.asarray(model.body_subtree_end)
    bb = dof_body
    # b(a) ancestor-or-self of b(c)  <=>  b(a) <= b(c) < end[b(a)]   (depth-first numbering)
    up = (bb[:, None] <= bb[None, :]) & (bb[None, :] < end[bb][:, None])
    strict = up & (bb[:, None] != bb[None, :])
    lam = None
    if lie:
        lam = np.zeros((n, n, n))
        for a0, S in lie:
            c = S.shape[1]
            for k in range(c):
                # [X_k, X_j] = X_{ad_{s_k} s_j} (left-invariant fields of the joint's group;
                # S has orthonormal columns spanning a subalgebra, so S^T reads the result)
                lam[a0 : a0 + c, a0 + k, a0 : a0 + c] = S.T @ _ad(S[:, k]) @ S
    G_body = np.zeros((nb, 6, 6))
    for i in range(1, nb):
        G_body[i] = _body_inertia(
            float(model.body_mass[i]),
            np.asarray(model.body_com[i], dtype=float),
            np.asarray(model.body_inertia[i], dtype=float),
        )
    out = _Tree(n, dof_body, first, count, S_body, E, up, strict, lam, tuple(lie), G_body)
    object.__setattr__(model, "_rd_coriolis_tree", out)
    return out


# ====================================================================== world quantities
def _poses(model: Model, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World poses (R (nb, 3, 3), p (nb, 3)) of every body (compiled forward kinematics)."""
    T = body_poses(model, q)
    return T[:, :3, :3], T[:, :3, 3]


def _adjoint(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``[Ad_T] = [[R, 0], [[p] R, R]]`` (MR def. 3.20) for R (..., 3, 3), p (..., 3)."""
    Ad = np.zeros((*R.shape[:-2], 6, 6))
    Ad[..., :3, :3] = R
    Ad[..., 3:, 3:] = R
    Ad[..., 3:, :3] = _skew(p) @ R
    return Ad


class _World(NamedTuple):
    R: np.ndarray  # (nb, 3, 3)
    p: np.ndarray  # (nb, 3)
    S: np.ndarray  # (nfull, 6) space screw axes
    Gs: np.ndarray  # (nb, 6, 6) body spatial inertias about the world origin, world axes
    Ic: np.ndarray  # (nb, 6, 6) composite inertias of the subtrees, same frame


def _world(model: Model, tree: _Tree, q: np.ndarray) -> _World:
    """Space screw axes, world spatial inertias and composite inertias at q."""
    R, p = _poses(model, q)
    Ad = _adjoint(R, p)  # [Ad_{T_s,i}]
    # S_a = [Ad_{T_s,b(a)}] S_a^body   (MR eq. 5.11's columns for a tree)
    S = np.einsum("aij,aj->ai", Ad[tree.dof_body], tree.S_body)
    # G^s_i = [Ad_{T_i,s}]^T G_i [Ad_{T_i,s}], [Ad_{T_i,s}] = [Ad_{T_s,i}]^-1   (MR eq. 8.42)
    Ad_inv = np.zeros_like(Ad)
    Rt = np.swapaxes(R, -1, -2)
    Ad_inv[:, :3, :3] = Rt
    Ad_inv[:, 3:, 3:] = Rt
    Ad_inv[:, 3:, :3] = -Rt @ _skew(p)
    Gs = np.swapaxes(Ad_inv, -1, -2) @ tree.G_body @ Ad_inv
    Ic = Gs.copy()
    for i in range(model.nb - 1, 0, -1):  # composite inertia, leaves first (CRBA)
        lam = int(model.body_parent[i])
        if lam > 0:
            Ic[lam] += Ic[i]
    return _World(R, p, S, Gs, Ic)


def _twists(model: Model, tree: _Tree, w: _World, v_full: np.ndarray) -> np.ndarray:
    """Space twists V_i (nb, 6): V_i = V_lambda + sum_{a in joint i} S_a v_a."""
    V = np.zeros((model.nb, 6))
    for i in range(1, model.nb):
        a0, c = int(tree.first[i]), int(tree.count[i])
        V[i] = V[int(model.body_parent[i])] + w.S[a0 : a0 + c].T @ v_full[a0 : a0 + c]
    return V


def _bar(f: np.ndarray) -> np.ndarray:
    """The matrix ``bar(f)`` with ``bar(f) V = -[ad_V]^T f`` (skew-symmetric), f = [m; f]."""
    out = np.zeros((*f.shape[:-1], 6, 6))
    out[..., :3, :3] = -_skew(f[..., :3])
    out[..., :3, 3:] = -_skew(f[..., 3:])
    out[..., 3:, :3] = -_skew(f[..., 3:])
    return out


# ====================================================================== input handling
def _each(model: Model, names, xs, fn, out_tail):
    """``fn(*state)`` for one state or for each state of a batch with any leading
    dimensions (a Python loop; the numpy reference functions), the arguments checked
    finite first (an error names the state); a large batch in pieces
    (:func:`robodyn.kernels.call.run`). One state's result is a numpy array (0-d for a
    number)."""
    tails = [(model.nq,) if n == "q" else (model.nv,) for n in names]

    def call(arrs):  # one state, the whole batch, or a piece of it
        for name, a in zip(names, arrs):
            bad = nonfinite(name, a, 1)
            if bad is not None:
                return bad
        if arrs[0].ndim == 1:
            return np.asarray(fn(*arrs))
        out = np.empty((len(arrs[0]), *out_tail))
        for n in range(len(out)):
            out[n] = fn(*(a[n] for a in arrs))
        return out

    return run(call, names, xs, tails, model)


# ================================================================== single-state kernels
def _dM_full(tree: _Tree, w: _World) -> np.ndarray:
    """dM_full[a, b, c] = dM_ab/dq_c in expanded coordinates (see the module docstring).

    For b(a) above b(b) and the dof c:

    * b(c) above (or at) b(a): 0 (everything in M_ab moves rigidly);
    * b(c) strictly below b(a), above (or at) b(b): ``(ad_{S_a} S_c)^T Ic_b(b) S_b``;
    * b(c) strictly below b(b): ``(ad_{S_a} S_c)^T Ic_b(c) S_b + S_a^T Ic_b(c) ad_{S_b} S_c``;
    * otherwise 0.
    """
    S, bb = w.S, tree.dof_body
    Y = np.einsum("aij,cj->aci", _ad(S), S)  # Y[a, c] = ad_{S_a} S_c
    K = np.einsum("bij,bj->bi", w.Ic[bb], S)  # Ic_b(b) S_b
    H = w.Ic[bb]  # Ic_b(c), per dof c
    up, strict = tree.up, tree.strict
    # mask2[a, b, c]: b(c) strictly below b(a) and above-or-at b(b)
    mask2 = strict[:, None, :] & up[None, :, :].transpose(0, 2, 1)
    t2 = np.einsum("aci,bi->abc", Y, K) * mask2
    # mask3[a, b, c]: b(c) strictly below b(b)
    mask3 = np.broadcast_to(strict[None, :, :], t2.shape)
    t3 = np.einsum("aci,cij,bj->abc", Y, H, S) + np.einsum("ai,cij,bcj->abc", S, H, Y)
    D = (t2 + t3 * mask3) * up[:, :, None]
    return np.where(up[:, :, None], D, D.transpose(1, 0, 2))


def _M_full(tree: _Tree, w: _World) -> np.ndarray:
    """M_full[a, c] = S_a^T Ic_b(c) S_c for b(a) above b(c) (CRBA, world coordinates)."""
    K = np.einsum("cij,cj->ci", w.Ic[tree.dof_body], w.S)
    Mu = (w.S @ K.T) * tree.up
    return np.where(tree.up, Mu, Mu.T)


def _contract3(E: np.ndarray, T: np.ndarray) -> np.ndarray:
    return np.einsum("ai,bj,ck,abc->ijk", E, E, E, T, optimize=True)


def _dM_one(model: Model, tree: _Tree, q: np.ndarray) -> np.ndarray:
    w = _world(model, tree, q)
    return _contract3(tree.E, _dM_full(tree, w))


def _christoffel_one(model: Model, tree: _Tree, q: np.ndarray) -> np.ndarray:
    w = _world(model, tree, q)
    dM = _dM_full(tree, w)
    # Gamma_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)   (course notes 001 eq. 10.9)
    Gam = 0.5 * (dM + dM.transpose(0, 2, 1) - dM.transpose(2, 0, 1))
    if tree.lam is not None:
        # Koszul's bracket terms (free joints only): <[X_k, X_j], X_i> = sum_l lam[l,k,j] M_li
        Mf = _M_full(tree, w)
        Bk = np.einsum("lkj,li->ikj", tree.lam, Mf)  # Bk[i, k, j] = <[X_k, X_j], X_i>
        # 1/2 (<[X_k,X_j],X_i> - <[X_k,X_i],X_j> - <[X_j,X_i],X_k>)
        Gam += 0.5 * (
            Bk.transpose(0, 2, 1)  # Bk[i, k, j] at [i, j, k]
            - Bk.transpose(2, 0, 1)  # Bk[j, k, i] at [i, j, k]
            - Bk.transpose(2, 1, 0)  # Bk[k, j, i] at [i, j, k]
        )
    return _contract3(tree.E, Gam)


def _coriolis_one(model: Model, tree: _Tree, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    w = _world(model, tree, q)
    v_full = tree.E @ v
    V = _twists(model, tree, w, v_full)
    bb = tree.dof_body
    S = w.S
    Sdot = np.einsum("aij,aj->ai", _ad(V[bb]), S)  # dS_a/dt = [ad_{V_b(a)}] S_a
    # Christoffel-consistent body factor B_i(V_i) = 1/2 (-ad^T G - G ad + bar(G V))
    adV = _ad(V)
    GV = np.einsum("bij,bj->bi", w.Gs, V)
    B = 0.5 * (-np.swapaxes(adV, -1, -2) @ w.Gs - w.Gs @ adV + _bar(GV))
    Bc = B.copy()
    for i in range(model.nb - 1, 0, -1):  # composite B, leaves first
        lam = int(model.body_parent[i])
        if lam > 0:
            Bc[lam] += Bc[i]
    Ic_c, Bc_c = w.Ic[bb], Bc[bb]
    # b(a) above b(c):  C_ac = S_a^T (Ic_c dS_c/dt + Bc_c S_c)
    F1 = np.einsum("cij,cj->ci", Ic_c, Sdot) + np.einsum("cij,cj->ci", Bc_c, S)
    Cf = (S @ F1.T) * tree.up
    # b(a) strictly above b(c):  C_ca = (Ic_c S_c)^T dS_a/dt + (Bc_c^T S_c)^T S_a
    G1 = np.einsum("cij,cj->ci", Ic_c, S)
    G2 = np.einsum("cji,cj->ci", Bc_c, S)
    Cf += (G1 @ Sdot.T + G2 @ S.T) * tree.strict.T
    return tree.E.T @ Cf @ tree.E


# ============================================================================ public API
def _gamma(entry, model: Model, q, threads, out) -> np.ndarray:
    """Gamma or dM/dq (..., nv, nv, nv) from the core's ``entry`` (coriolis.c: the part of
    q once, then C(q, e_k) for each k)."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    th = 0 if threads is None else _threads(threads)
    return compute(entry, model, ("q",), (q,), FL_CHECK, th, out=out)


@batched(fast=("mass_matrix_derivative", 1, FL_CHECK))
def mass_matrix_derivative(model: Model, q, *, threads: int | None = None, out=None) -> np.ndarray:
    """Derivative of the mass matrix, ``dM[i, j, k] = dM_ij / dq_k``.

    Exact, not finite differences: ``dM_ij/dq_k = Gamma_ijk + Gamma_jik`` from the
    Christoffel symbols (:func:`christoffel`), which the compiled Coriolis kernel gives
    column by column (``coriolis.c``: the poses and composite inertias once, then
    ``C(q, e_k)`` for each k). For a floating base, ``dq_k`` along a base dof is the
    right-trivialised derivative along the body-twist direction ``e_k``
    (``rd.integrate(q, eps e_k)``). Armature is constant and does not appear.
    :func:`mass_matrix_derivative_reference` is the closed form of the module docstring in
    numpy (world-frame CRBA), the parity oracle.

    Takes ``q`` of shape (..., nq), ``threads`` (for a batch; default every core) and
    ``out`` (an array of the result's shape to write into, as
    :func:`robodyn.inverse_dynamics`'s); returns an array of shape (..., nv, nv, nv).
    """
    return _gamma(_core.mass_matrix_derivative, model, q, threads, out)


@batched
def mass_matrix_derivative_reference(model: Model, q) -> np.ndarray:
    """Numpy reference of :func:`mass_matrix_derivative` (the closed form of the module
    docstring; a batch runs a Python loop).

    Takes ``q`` of shape (..., nq); returns an array of shape (..., nv, nv, nv).
    """
    tree = _tree(model)
    nv = model.nv
    return _each(model, ("q",), (q,), lambda x: _dM_one(model, tree, x), (nv, nv, nv))


@batched(fast=("christoffel", 1, FL_CHECK))
def christoffel(model: Model, q, *, threads: int | None = None, out=None) -> np.ndarray:
    """Christoffel symbols of the first kind of M(q) (course notes 001 eq. 10.9).

    ``Gamma[i, j, k] = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)``, so that
    ``C_ij = sum_k Gamma[i, j, k] v_k`` and the velocity forces are
    ``sum_jk Gamma[i, j, k] v_j v_k``. Computed by the compiled Coriolis kernel, which is
    linear in v: ``Gamma[:, :, k] = C(q, e_k)`` (``coriolis.c``: the poses and composite
    inertias once, then the rates and columns for each k). For a floating base the
    derivatives are right-trivialised and Koszul's bracket terms are included (module
    docstring); Gamma is then not symmetric in (j, k) within the base's six dofs, only its
    contraction with ``v v`` is. :func:`christoffel_reference` is the numpy closed form.

    In the course texts' symbols (docs/notation.md): course notes 000's ``Gamma_ijk`` and
    001's ``Gamma^i_jk`` are ``Gamma[i, j, k]``; the lesson's (003) ``c_ijk = 1/2 (dM_kj/dq_i
    + dM_ki/dq_j - dM_ij/dq_k)``, the symbol of equation k, is ``Gamma[k, i, j]``. Indices
    start at 0 here, at 1 in the texts.

    Takes ``q`` of shape (..., nq), ``threads`` (for a batch; default every core) and
    ``out`` (an array of the result's shape to write into, as
    :func:`robodyn.inverse_dynamics`'s); returns an array of shape (..., nv, nv, nv).
    """
    return _gamma(_core.christoffel, model, q, threads, out)


@batched
def christoffel_reference(model: Model, q) -> np.ndarray:
    """Numpy reference of :func:`christoffel` from the analytic ``dM/dq`` (a batch runs a
    Python loop).

    Takes ``q`` of shape (..., nq); returns an array of shape (..., nv, nv, nv).
    """
    tree = _tree(model)
    nv = model.nv
    return _each(model, ("q",), (q,), lambda x: _christoffel_one(model, tree, x), (nv, nv, nv))


def _of_qv(entry, model, q, v, check, threads, out):
    """C(q, v) or dM/dt = C + C^T: the core's entry on (q, v)."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    th = 0 if threads is None else _threads(threads)
    flags = FL_CHECK if check else 0
    return compute(entry, model, ("q", "v"), (q, v), flags, th, out=out)


@batched(fast=("coriolis", 2, FL_CHECK))
def coriolis_matrix(
    model: Model, q, v, *, check: bool = True, threads: int | None = None, out=None
):
    """The Christoffel-consistent Coriolis matrix ``C(q, v)`` (MR eq. 8.1's ``c = C v``).

    ``C = sum_b J_b^T (G_b dJ_b/dt + B_b(V_b) J_b)`` in world coordinates with Echeandia
    and Wensing's body factor ``B(V) = 1/2 (-ad_V^T G - G ad_V + bar(G V))``, summed with
    composite inertias in O(n d) (n dofs, tree depth d) by robodyn's compiled core
    (``kernels/core/coriolis.c``; every model, mimic joints and free joints included;
    :func:`coriolis_matrix_reference` is the numpy version it is tested against). It
    satisfies ``C_ij = sum_k Gamma[i, j, k] v_k`` (:func:`christoffel`), ``C v = `` the
    velocity-product forces of RNEA, and ``dM/dt - 2 C`` skew-symmetric. Armature and
    friction are not part of C. On the course's 2-link arm it is the lesson's (course
    notes 003) ``C(q, qdot)`` entry for entry, ``C_kj = sum_i c_ijk qdot_i``.

    Takes ``q`` (..., nq) and ``v`` (..., nv), their leading dimensions a batch that
    broadcasts, and the ``check``, ``threads`` and ``out`` of
    :func:`robodyn.inverse_dynamics`; returns an array of shape (..., nv, nv).
    """
    return _of_qv(_core.coriolis, model, q, v, check, threads, out)


@batched
def coriolis_matrix_reference(model: Model, q, v) -> np.ndarray:
    """Numpy reference of :func:`coriolis_matrix` (6x6 matrices, einsum; for parity tests).

    ``C = sum_b J_b^T (G_b dJ_b/dt + B_b(V_b) J_b)`` in world coordinates with Echeandia
    and Wensing's body factor ``B(V) = 1/2 (-ad_V^T G - G ad_V + bar(G V))``, summed with
    composite inertias in O(n^2). It satisfies ``C_ij = sum_k Gamma[i, j, k] v_k``
    (:func:`christoffel`), ``C v = `` the velocity-product forces of RNEA, and
    ``dM/dt - 2 C`` skew-symmetric. Armature and friction are not part of C.

    Takes ``q`` (..., nq) and ``v`` (..., nv) (a batch runs a Python loop over single
    states); returns an array of shape (..., nv, nv).
    """
    tree = _tree(model)
    nv = model.nv
    return _each(model, ("q", "v"), (q, v), lambda x, y: _coriolis_one(model, tree, x, y), (nv, nv))


@batched(fast=("mass_matrix_dot", 2, FL_CHECK))
def mass_matrix_dot(
    model: Model, q, v, *, check: bool = True, threads: int | None = None, out=None
) -> np.ndarray:
    """``dM/dt = sum_k (dM/dq_k) v_k``, computed in O(n^2) as ``C + C^T``.

    The identity holds because ``dM/dt - 2C`` is skew-symmetric (course notes 003).

    Computed in the compiled core (``coriolis.c``: C, then C + C^T). Takes ``q`` (..., nq),
    ``v`` (..., nv) and the ``check``, ``threads`` and ``out`` of
    :func:`robodyn.inverse_dynamics`; returns an array of shape (..., nv, nv).
    """
    return _of_qv(_core.mass_matrix_dot, model, q, v, check, threads, out)
