"""The joint-torque regressor ``tau = Y(q, v, a) pi`` and the energy regressor ``H = e(q, v) pi``.

Recursive, numpy-vectorised over the batch (Atkeson, An and Hollerbach 1986; Khalil and
Dombre ch. 12), in MR's notation:

1. forward pass, the RNEA's (MR eqs. 8.50-8.51): body twists ``V_i = Ad_{T_{i,l}} V_l + S_i v``
   and accelerations ``dV_i = Ad_{T_{i,l}} dV_l + ad_{V_i} S_i v + S_i a`` (gravity as the
   base acceleration ``dV_0 = [0, -g]``);
2. per body the 6x10 matrix ``A_i(V_i, dV_i)`` with ``F_i = G_i dV_i - ad_{V_i}^T G_i V_i =
   A_i pi_i`` (MR eq. 8.53, own part) for the spatial inertia about the body origin
   ``G_i = [[I_o, [h]], [[h]^T, m 1]]``, ``h = m c``:

       F_ang = I_o dw + w x I_o w + h x (dv + w x v)
       F_lin = m (dv + w x v) + dw x h + w x (w x h)

3. backward, children first: ``B_i`` (6 x 10 per body of the subtree of i) holds the
   wrench through joint i due to each parameter of the subtree: ``A_i`` for its own, and
   each child's block carried over, ``F_l = Ad_{T_{i,l}}^T F_i`` (MR eq. 8.53, children
   part); then ``Y[dofs of i, subtree columns] = S_i^T B_i`` (MR eq. 8.54). The subtree's
   columns are contiguous because the bodies are numbered depth first.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..kernels import core as _core
from ..kernels._pack import FL_CHECK, packed
from ..kernels.call import compute, into, prepare, run
from ..kernels.call import threads as _threads
from ..model.model import JOINT_FIXED, JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE
from ..model.parameters import layout
from ..spatial import exp3, quat_to_rotation

__all__ = ["energy_regressor", "joint_placements", "regressor", "regressor_reference"]


_PLAIN = (JOINT_FIXED, JOINT_REVOLUTE, JOINT_PRISMATIC, JOINT_FREE)


def _plain_joints(model) -> bool:
    """True when every joint is fixed, revolute, prismatic or free (the batched numpy
    paths of this module); the other types of MR Table 2.1 take the per-state path."""
    return bool(np.all(np.isin(model.jnt_type[1:], _PLAIN)))


def joint_placements(model, q: np.ndarray):
    """``T_{l(i), i}(q)`` for every body, batched: (R (N, nb, 3, 3), p (N, nb, 3)).

    ``q`` is (N, nq). Mimic joints follow their leader (``q_i = mult q_lead + offset``).
    """
    N, nb = q.shape[0], model.nb
    R = np.zeros((N, nb, 3, 3))
    p = np.zeros((N, nb, 3))
    R[:, 0] = np.eye(3)
    for i in range(1, nb):
        lead = int(model.jnt_mimic[i])
        src = lead if lead >= 0 else i
        qa = int(model.jnt_qadr[src])
        mult, off = (model.jnt_mimic_mult[i], model.jnt_mimic_offset[i]) if lead >= 0 else (1, 0)
        R0, p0, kind = model.jnt_R[i], model.jnt_p[i], int(model.jnt_type[i])
        if kind == JOINT_REVOLUTE:
            R[:, i] = R0 @ exp3(np.outer(mult * q[:, qa] + off, model.jnt_axis[i]))
            p[:, i] = p0
        elif kind == JOINT_PRISMATIC:
            R[:, i] = R0
            p[:, i] = p0 + np.outer(mult * q[:, qa] + off, model.jnt_axis[i]) @ R0.T
        elif kind == JOINT_FREE:
            R[:, i] = R0 @ quat_to_rotation(q[:, qa + 3 : qa + 7])
            p[:, i] = p0 + q[:, qa : qa + 3] @ R0.T
        else:  # fixed (welded) body
            R[:, i] = R0
            p[:, i] = p0
    return R, p


def _joint_dof(model, i: int) -> tuple[int, float, int]:
    """Joint i's velocity address, multiplier and type: a mimic joint moves with its
    leader's dof, ``mult`` times as fast."""
    lead = int(model.jnt_mimic[i])
    src = lead if lead >= 0 else i
    mult = model.jnt_mimic_mult[i] if lead >= 0 else 1.0
    return int(model.jnt_vadr[src]), mult, int(model.jnt_type[i])


def _joint_twist(model, i: int, x: np.ndarray) -> np.ndarray:
    """``S_i x`` (N, 6) for a velocity-like x (N, nv), in body-i coordinates."""
    N = x.shape[0]
    out = np.zeros((N, 6))
    va, mult, kind = _joint_dof(model, i)
    if kind == JOINT_REVOLUTE:
        out[:, :3] = np.outer(mult * x[:, va], model.jnt_axis[i])
    elif kind == JOINT_PRISMATIC:
        out[:, 3:] = np.outer(mult * x[:, va], model.jnt_axis[i])
    elif kind == JOINT_FREE:
        out[:] = x[:, va : va + 6]
    return out


def _add_joint_rows(model, i: int, Y: np.ndarray, W: np.ndarray, cols: slice) -> None:
    """``Y[:, dofs of joint i, cols] += S_i^T W`` (MR eq. 8.54) for W (N, 6, k)."""
    va, mult, kind = _joint_dof(model, i)
    if kind == JOINT_REVOLUTE:
        Y[:, va, cols] += mult * np.einsum("k,nkc->nc", model.jnt_axis[i], W[:, :3])
    elif kind == JOINT_PRISMATIC:
        Y[:, va, cols] += mult * np.einsum("k,nkc->nc", model.jnt_axis[i], W[:, 3:])
    elif kind == JOINT_FREE:
        Y[:, va : va + 6, cols] += W


def _cross(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x X y along axis 1 of (N, 3) or (N, 3, k) arrays (np.cross costs more per call)."""
    out = np.empty(np.broadcast_shapes(x.shape, y.shape))
    out[:, 0] = x[:, 1] * y[:, 2] - x[:, 2] * y[:, 1]
    out[:, 1] = x[:, 2] * y[:, 0] - x[:, 0] * y[:, 2]
    out[:, 2] = x[:, 0] * y[:, 1] - x[:, 1] * y[:, 0]
    return out


def _rotate(R: np.ndarray, x: np.ndarray) -> np.ndarray:
    """R x for R (N, 3, 3) and x (N, 3)."""
    return (R @ x[:, :, None])[:, :, 0]


def _L(x: np.ndarray) -> np.ndarray:
    """``I x = L(x) [Ixx, Ixy, Ixz, Iyy, Iyz, Izz]`` for symmetric I: (N, 3) -> (N, 3, 6)."""
    N = x.shape[0]
    L = np.zeros((N, 3, 6))
    L[:, 0, 0], L[:, 0, 1], L[:, 0, 2] = x[:, 0], x[:, 1], x[:, 2]
    L[:, 1, 1], L[:, 1, 3], L[:, 1, 4] = x[:, 0], x[:, 1], x[:, 2]
    L[:, 2, 2], L[:, 2, 4], L[:, 2, 5] = x[:, 0], x[:, 1], x[:, 2]
    return L


def _skew(x: np.ndarray) -> np.ndarray:
    """[x] batched: (N, 3) -> (N, 3, 3)."""
    S = np.zeros((x.shape[0], 3, 3))
    S[:, 0, 1], S[:, 0, 2], S[:, 1, 2] = -x[:, 2], x[:, 1], -x[:, 0]
    S[:, 1, 0], S[:, 2, 0], S[:, 2, 1] = x[:, 2], -x[:, 1], x[:, 0]
    return S


def body_wrench_matrix(V: np.ndarray, dV: np.ndarray) -> np.ndarray:
    """A(V, dV) (N, 6, 10) with ``F = G dV - ad_V^T G V = A pi`` (MR eq. 8.53, own part).

    Parameters
    ----------
    V, dV : numpy.ndarray, shape (N, 6)
        Body twist [w, v] and its derivative in the body frame.
    """
    w, v, dw, dv = V[:, :3], V[:, 3:], dV[:, :3], dV[:, 3:]
    N = V.shape[0]
    A = np.zeros((N, 6, 10))
    acc = dv + _cross(w, v)  # classical acceleration of the body origin
    A[:, 3:, 0] = acc  # m (dv + w x v)
    Sw = _skew(w)
    A[:, :3, 1:4] = -_skew(acc)  # h x acc = -[acc] h
    A[:, 3:, 1:4] = _skew(dw) + Sw @ Sw  # dw x h + w x (w x h)
    A[:, :3, 4:] = _L(dw) + Sw @ _L(w)  # I_o dw + w x I_o w
    return A


def _states(model, names, xs, tails):
    lead, arrs = prepare(names, xs, tails)
    N = math.prod(lead)
    return lead, [a.reshape(N, *t) for a, t in zip(arrs, tails)]


def regressor(
    model,
    q,
    v,
    a,
    *,
    friction: bool = True,
    offset: bool = False,
    armature: bool = True,
    threads: int | None = None,
    out=None,
) -> np.ndarray:
    """The joint-torque regressor ``Y`` with ``inverse_dynamics(model, q, v, a) = Y @ pi``.

    ``pi = parameters(model, friction=..., offset=..., armature=...)``; the columns are the
    10 standard parameters of each moving body about its joint frame, then the joint
    blocks (viscous ``v``, Coulomb ``sgn(v)``, offset ``1``, armature ``a``; see
    :mod:`robodyn.model.parameters`). The body columns come from the compiled core
    (``kernels/core/regressor.c``: the recursion of this module's docstring, over lanes
    of states, batches split over threads); :func:`regressor_reference` is the same in
    numpy (the parity oracle).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v, a : array_like, shape (..., nv)
        Leading dimensions broadcast.
    threads : int, optional
        Threads for a batch (default: ``ROBODYN_NUM_THREADS``, else every core).
    out : numpy.ndarray, optional
        A float64 array of the result's shape to write it into (as
        :func:`robodyn.inverse_dynamics`'s ``out``): the core writes there when the
        columns are the bodies' alone (``friction=False, armature=False``); with the joint
        columns the result is computed, then copied.

    Returns
    -------
    numpy.ndarray, shape (..., nv, P)
    """
    tails = ((model.nq,), (model.nv,), (model.nv,))
    lay = layout(model, friction=friction, offset=offset, armature=armature)
    th = 0 if threads is None else _threads(threads)
    if out is not None and lay.size == lay.n_body:  # the core's result is the answer
        xs, rest = (q, v, a), (None, FL_CHECK, 0.0, th)
        what = "the regressor"
        return compute(_core.regressor, model, ("q", "v", "a"), xs, *rest, what=what, out=out)
    P = (model._rd_packed or packed(model)).P

    def call(arrs):  # one state (a batch of one), the whole batch, or a piece of it
        q2, v2, a2 = (x[None] if x.ndim == 1 else x for x in arrs)
        Yb = _core.regressor(P, q2, v2, a2, None, FL_CHECK, 0.0, th)  # (N, nv, 10 (nb - 1))
        if Yb.__class__ is not np.ndarray or lay.size == lay.n_body:  # or the core's error
            Y = Yb
        else:
            Y = np.zeros((len(q2), model.nv, lay.size))
            Y[:, :, : lay.n_body] = Yb
            _joint_columns(Y, lay, v2, a2)
        return Y[0] if arrs[0].ndim == 1 and Y.__class__ is np.ndarray else Y

    # the core checks q, v and a (an error names the state in the batch)
    scratch = 0 if lay.size == lay.n_body else 8 * model.nv * lay.n_body  # the core's Yb
    Y = run(call, ("q", "v", "a"), (q, v, a), tails, model, None, "the regressor", scratch)
    return Y if out is None else into(out, Y)


def regressor_reference(
    model,
    q,
    v,
    a,
    *,
    friction: bool = True,
    offset: bool = False,
    armature: bool = True,
) -> np.ndarray:
    """The joint-torque regressor of :func:`regressor` in numpy (its parity oracle):
    one recursive pass over the tree (module docstring), vectorised over the batch.
    Fixed, revolute, prismatic and free joints (ModelError for the others).

    Parameters
    ----------
    model, q, v, a, friction, offset, armature
        As for :func:`regressor`.

    Returns
    -------
    numpy.ndarray, shape (..., nv, P)
    """
    if not _plain_joints(model):
        raise ModelError(
            "regressor_reference takes fixed, revolute, prismatic and free joints; "
            "use rd.regressor (the compiled core takes every joint type)"
        )
    tails = ((model.nq,), (model.nv,), (model.nv,))
    lead, (q, v, a) = _states(model, ("q", "v", "a"), (q, v, a), tails)
    _finite(q, v, a)
    lay = layout(model, friction=friction, offset=offset, armature=armature)
    N, nb = q.shape[0], model.nb
    R, p = joint_placements(model, q)
    V = np.zeros((N, nb, 6))
    dV = np.zeros((N, nb, 6))
    dV[:, 0, 3:] = -model.gravity  # gravity as a base acceleration
    Y = np.zeros((N, model.nv, lay.size))
    for i in range(1, nb):
        lam = int(model.body_parent[i])
        Rt = np.swapaxes(R[:, i], 1, 2)
        xi = _joint_twist(model, i, v)  # S_i v
        # Ad_{T_{i,l}} V_l: w_i = R^T w_l, v_i = R^T (v_l + w_l x p)         (8.50)
        V[:, i, :3] = _rotate(Rt, V[:, lam, :3])
        V[:, i, 3:] = _rotate(Rt, V[:, lam, 3:] + _cross(V[:, lam, :3], p[:, i]))
        dV[:, i, :3] = _rotate(Rt, dV[:, lam, :3])
        dV[:, i, 3:] = _rotate(Rt, dV[:, lam, 3:] + _cross(dV[:, lam, :3], p[:, i]))
        V[:, i] += xi
        # + ad_{V_i} S_i v + S_i a                                           (8.51)
        dV[:, i, :3] += _cross(V[:, i, :3], xi[:, :3])
        dV[:, i, 3:] += _cross(V[:, i, 3:], xi[:, :3]) + _cross(V[:, i, :3], xi[:, 3:])
        dV[:, i] += _joint_twist(model, i, a)
    # backward: B_i = the wrenches through joint i of the parameters of every body in
    # the subtree of i (columns 10 (i-1) .. 10 (end_i - 1), contiguous by the DFS order)
    end = model.body_subtree_end
    B: list = [None] * nb
    for i in range(nb - 1, 0, -1):
        c0 = 10 * (i - 1)
        if B[i] is None:
            B[i] = np.zeros((N, 6, 10 * (int(end[i]) - i)))
        B[i][:, :, :10] += body_wrench_matrix(V[:, i], dV[:, i])  # F_i = A_i pi_i     (8.53)
        _add_joint_rows(model, i, Y, B[i], slice(c0, c0 + B[i].shape[2]))  # S_i^T F (8.54)
        lam = int(model.body_parent[i])
        if lam > 0:
            # F_l += Ad_{T_{i,l}}^T F_i = [R m + p x (R f); R f]                      (8.53)
            f = R[:, i] @ B[i][:, 3:]
            m = R[:, i] @ B[i][:, :3] + _cross(p[:, i, :, None], f)
            if B[lam] is None:
                B[lam] = np.zeros((N, 6, 10 * (int(end[lam]) - lam)))
            k0 = c0 - 10 * (lam - 1)
            B[lam][:, :3, k0 : k0 + B[i].shape[2]] += m
            B[lam][:, 3:, k0 : k0 + B[i].shape[2]] += f
        B[i] = None
    _joint_columns(Y, lay, v, a)
    return Y.reshape(*lead, model.nv, lay.size)


def _joint_columns(Y, lay, v, a) -> None:
    """The friction, offset and armature columns: ``v``, ``sgn(v)``, ``1``, ``a``."""
    rows = lay.dofs
    k = np.arange(len(rows))
    for name, values in (
        ("viscous", v[:, rows]),
        ("coulomb", np.sign(v[:, rows])),
        ("offset", np.ones((v.shape[0], len(rows)))),
        ("armature", a[:, rows]),
    ):
        sl = lay.block(name)
        if sl is not None:
            Y[:, rows, sl.start + k] = values


def _finite(*arrays) -> None:
    for name, x in zip(("q", "v", "a"), arrays):
        bad = ~np.all(np.isfinite(x), axis=-1)
        if np.any(bad):
            raise ValueError(f"{name} has NaN or inf in state {int(np.flatnonzero(bad)[0])}")


def energy_regressor(
    model, q, v, *, friction: bool = True, offset: bool = False, armature: bool = True, out=None
) -> np.ndarray:
    """The energy regressor ``e(q, v)`` with total energy ``H = K + U = e @ pi``.

    ``K_i = 1/2 V_i^T G_i V_i = 1/2 w^T I_o w + h . (v x w) + 1/2 m v . v`` (MR eq. 8.43) and
    ``U_i = -g . (m p_i + R_i h)`` (``R_i, p_i`` the body's world pose); the armature adds
    ``1/2 armature v^2``; friction and offset columns are 0 (they dissipate, see
    :func:`robodyn.ident.identify_energy`). Needs no acceleration.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    out : numpy.ndarray, optional
        A float64 array of the result's shape to write it into (as
        :func:`robodyn.inverse_dynamics`'s ``out``): the core writes there when the
        columns are the bodies' alone (``friction=False, armature=False``); else the
        result is computed, then copied.

    Returns
    -------
    numpy.ndarray, shape (..., P)  (J per unit parameter)
    """
    lay = layout(model, friction=friction, offset=offset, armature=armature)
    # the bodies' 10 (nb - 1) columns from the compiled core (one forward pass a state)
    core_out = out if lay.size == lay.n_body else None
    eb = compute(_core.energy_regressor, model, ("q", "v"), (q, v), FL_CHECK, 0, 0, out=core_out)
    if lay.size == eb.shape[-1]:
        return eb
    e = np.zeros((*eb.shape[:-1], lay.size))
    e[..., : eb.shape[-1]] = eb
    sl = lay.block("armature")
    if sl is not None:  # 1/2 armature_k v_k^2
        vk = np.asarray(v, dtype=float)[..., lay.dofs]
        e[..., sl] = 0.5 * vk**2
    return e if out is None else into(out, e)
