"""Dynamics of open chains and trees: the public wrappers around the compiled kernels.

The equations of motion are (MR eq. 8.1, with joint friction and external wrenches)::

    tau = M(q) a + C(q, v) v + g(q) + J_tip^T F_tip - sum_i J_i^T F_ext,i
          + b v + f_c sgn(v) + armature * a

* ``inverse_dynamics`` (``rnea``): recursive Newton-Euler, O(n).
* ``mass_matrix`` (``crba``): composite rigid body algorithm, armature on the diagonal.
* ``forward_dynamics`` (``aba``): articulated body algorithm, O(n), or Cholesky of M.
* ``gravity_forces`` g(q), ``velocity_forces`` C(q, v) v, ``bias_forces`` C v + g.

Conventions: twists ``[omega, v]``, wrenches ``[m, f]`` (moment first). ``f_ext`` holds
one wrench per body, rows in the order of ``model.body_names`` (row 0, the world, is
ignored), each applied *on* the body by the environment and expressed in that body's
frame (about the body-frame origin). ``f_tip`` is MR's ``F_tip``: the wrench the
end-effector applies *on the environment*, expressed in the frame ``frame``.

Every function takes one state (``q`` of shape (nq,)) or a batch (``q`` of shape (N, nq),
other state arguments (N, nv) or a single (nv,) broadcast to the batch) and returns the
matching shape. Batches run on all cores without the GIL. Shapes are checked once here;
NaN and inf are rejected unless ``check=False``.
"""

from __future__ import annotations

import numpy as np

from .errors import ModelError
from .kernels import single as _single
from .kernels._pack import (
    FL_ACC,
    FL_ARMATURE,
    FL_CHECK,
    FL_FEXT,
    FL_FRICTION,
    FL_GRAVITY,
    FL_VEL,
    packed,
)

__all__ = [
    "inverse_dynamics",
    "rnea",
    "mass_matrix",
    "crba",
    "mass_matrix_inverse",
    "forward_dynamics",
    "aba",
    "gravity_forces",
    "velocity_forces",
    "bias_forces",
]

_ND = np.ndarray
_F8 = np.dtype(np.float64)
_K = None  # robodyn.kernels, imported on the first call (numba is not loaded at import)
_ID = FL_GRAVITY | FL_VEL | FL_ACC


# ----------------------------------------------------------------------------- fast path
# Single states go to the entry points of robodyn.kernels.single (the C extension, or the
# numba kernels where it was not built) with no test in Python: they check types, sizes
# and finiteness themselves and return either the result array or an int code. A code
# sends the call to the general path below, which converts the input (code -1: a list, a
# batch, ints, a strided view) or raises the error naming the argument.
_RNEA1, _ABA1, _CRBA1 = _single.rnea1, _single.aba1, _single.crba1


def _kernels():
    """The general kernel entry points, imported (and numba loaded) on first use."""
    global _K
    if _K is None:
        from types import SimpleNamespace

        from .kernels import aba, batch, crba, forward, rnea

        _K = SimpleNamespace(
            rnea=rnea.rnea, rnea_batch=rnea.rnea_batch, crba=crba.crba,
            rnea_lanes=batch.rnea_lanes, aba_lanes=batch.aba_lanes, lanes_ok=batch.supported,
            crba_batch=crba.crba_batch, aba=aba.aba, aba_batch=aba.aba_batch,
            forward_crba=forward.forward_crba, forward_crba_batch=forward.forward_crba_batch,
            mass_inverse=forward.mass_inverse, mass_inverse_batch=forward.mass_inverse_batch,
        )  # fmt: skip
    return _K


def _lanes_ok(K, pk, aba: bool) -> bool:
    """True if the lane (state-major) batch kernels handle this packed model: no mimic
    joint; for ABA, free joints only on children of the world (a ~1 us compiled scan)."""
    return bool(K.lanes_ok(pk.I, aba))


def _conv(x, name: str) -> np.ndarray:
    """float64 C-contiguous array from any array_like (slow path)."""
    try:
        a = np.ascontiguousarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array, got {type(x).__name__}") from exc
    if not (a.flags.writeable and a.flags.aligned):  # the kernels read aligned doubles
        a = a.copy()
    return a


def _fit(x, name: str) -> np.ndarray:
    """x if it is a C-contiguous float64 array, else :func:`_conv` (general path)."""
    if x.__class__ is _ND and x.dtype is _F8 and x.flags.c_contiguous and x.flags.aligned:
        return x
    return _conv(x, name)


def _flags(friction: bool, armature: bool, check: bool) -> int:
    return (
        (FL_FRICTION if friction else 0)
        | (FL_ARMATURE if armature else 0)
        | (FL_CHECK if check else 0)
    )


# ----------------------------------------------------------------------------- errors
def _raise(model, code: int, names: tuple[str, ...], args: tuple, sizes: tuple, state=None):
    """Turn a kernel error code into a ValueError naming the argument."""
    at = "" if state is None else f"[{state}]"
    if 1 <= code <= 5:
        k = code - 1
        want = f"({sizes[k]},)" if k < 3 else f"({model.nb}, 6)"
        got = np.shape(args[k]) if k < len(args) else "?"
        raise ValueError(f"{names[k]} must have shape {want}, got {got}")
    if 11 <= code <= 14:
        raise ValueError(f"{names[code - 11]}{at} contains NaN or inf")
    if code == 15:
        raise ValueError(f"q{at}: the quaternion of a free joint is zero")
    if code >= 2000:
        body = int(model.dof_body[code - 2000])
        raise ValueError(
            f"mass matrix is singular{' at state ' + str(state) if state is not None else ''}: "
            f"joint {model.joint_names_all[body]!r} drives a massless subtree"
        )
    if code >= 1000:
        body = code - 1000
        raise ValueError(
            f"mass matrix is singular{' at state ' + str(state) if state is not None else ''}: "
            f"joint {model.joint_names_all[body]!r} drives a massless subtree "
            "(its articulated inertia is zero)"
        )
    raise RuntimeError(f"kernel error {code}")  # pragma: no cover


def _batch(pk, args: tuple, names: tuple[str, ...], sizes: tuple[int, ...]):
    """Bring the state arguments to a common batch (N, n_k), C-contiguous float64."""
    arrs = [_conv(x, n) for x, n in zip(args, names)]
    N = None
    for a, n, s in zip(arrs, names, sizes):
        if a.ndim not in (1, 2) or a.shape[-1] != s:
            raise ValueError(f"{n} must have shape ({s},) or (N, {s}), got {a.shape}")
        if a.ndim == 2:
            if N is not None and a.shape[0] != N:
                raise ValueError(
                    f"batch sizes differ: {names[0]} has {N} states, {n} has {a.shape[0]}"
                )
            N = a.shape[0]
    out = []
    for a, s in zip(arrs, sizes):
        out.append(a if a.ndim == 2 else np.ascontiguousarray(np.broadcast_to(a, (N, s))))
    return N, out


# ----------------------------------------------------------------------------- wrenches
def _external(model, f_ext, f_tip, frame, N):
    """The per-body external wrenches (nb, 6) or (N, nb, 6), f_tip folded in; or None."""
    if f_ext is None and f_tip is None:
        return None
    nb = model.nb
    if f_ext is None:
        fe = np.zeros((nb, 6) if N is None else (N, nb, 6))
    else:
        fe = _conv(f_ext, "f_ext")
        if fe.shape[-2:] != (nb, 6) or fe.ndim not in (2, 3):
            raise ValueError(f"f_ext must have shape ({nb}, 6) or (N, {nb}, 6), got {fe.shape}")
        if fe.ndim == 3 and (N is None or fe.shape[0] != N):
            got = "one state" if N is None else f"{N} states"
            raise ValueError(f"f_ext has {fe.shape[0]} wrench sets but the state has {got}")
        if N is not None and fe.ndim == 2:
            fe = np.broadcast_to(fe, (N, nb, 6))
        fe = np.array(fe, dtype=float)  # own copy: f_tip is added below
        if not np.all(np.isfinite(fe)):
            raise ValueError("f_ext contains NaN or inf")
    if f_tip is not None:
        ft = _conv(f_tip, "f_tip")
        if ft.shape[-1:] != (6,) or ft.ndim not in (1, 2):
            raise ValueError(f"f_tip must have shape (6,) or (N, 6), got {ft.shape}")
        if ft.ndim == 2 and (N is None or ft.shape[0] != N):
            raise ValueError(f"f_tip has {ft.shape[0]} rows but the state batch is {N}")
        if not np.all(np.isfinite(ft)):
            raise ValueError("f_tip contains NaN or inf")
        if model.nf == 0:
            raise ModelError("f_tip needs an operational frame; the model has none")
        f = model.frame_id(model.nf - 1 if frame is None else frame)
        b = int(model.frame_body[f])
        R, p = model.frame_R[f], model.frame_p[f]
        # the environment pushes on the body with -F_tip; in body coordinates
        # F_b = Ad_{T_eb}^T F_e = [R m + p x (R f); R f] with (R, p) = T_be (MR eq. 3.98)
        # (elementwise, so that a batch and a single state round identically)
        Rm = ft[..., 0:1] * R[:, 0] + ft[..., 1:2] * R[:, 1] + ft[..., 2:3] * R[:, 2]
        Rf = ft[..., 3:4] * R[:, 0] + ft[..., 4:5] * R[:, 1] + ft[..., 5:6] * R[:, 2]
        wrench = np.concatenate([Rm + np.cross(p, Rf), Rf], axis=-1)
        fe[..., b, :] -= wrench
    return fe


# ----------------------------------------------------------------------------- RNEA
def _rnea_call(model, q, v, a, f_ext, f_tip, frame, flags, eps, names, use):
    """Shared driver of inverse_dynamics / gravity / velocity / bias forces.

    ``use`` marks which of v, a the kernel reads (FL_VEL, FL_ACC)."""
    pk = model._rd_packed or packed(model)
    q = _fit(q, "q")
    if use & FL_VEL:
        v = _fit(v, "v")
    if use & FL_ACC:
        a = _fit(a, "a")
    flags |= use
    if q.ndim == 1 and (not use & FL_VEL or v.ndim == 1) and (not use & FL_ACC or a.ndim == 1):
        fe = None
        if f_ext is not None or f_tip is not None:
            fe = _external(model, f_ext, f_tip, frame, None)
            flags |= FL_FEXT
        tau = _RNEA1(pk.P, q, v, a, fe, flags, eps)
        if tau.__class__ is not _ND:
            _raise(model, tau, names + ("f_ext",), (q, v, a, f_ext), (pk.nq, pk.nv, pk.nv))
        return tau
    # batch
    args, nm, sz = [q], [names[0]], [pk.nq]
    if use & FL_VEL:
        args.append(v), nm.append(names[1]), sz.append(pk.nv)
    if use & FL_ACC:
        args.append(a), nm.append(names[2]), sz.append(pk.nv)
    N, arrs = _batch(pk, tuple(args), tuple(nm), tuple(sz))
    Q = arrs[0]
    V = arrs[1] if use & FL_VEL else Q
    A = arrs[-1] if use & FL_ACC else Q
    fe = _external(model, f_ext, f_tip, frame, N)
    if fe is None:
        fe = pk.fext0_batch
    else:
        flags |= FL_FEXT
    TAU = np.empty((N, pk.nv))
    K = _K if _K is not None else _kernels()
    if not flags & FL_FEXT and _lanes_ok(K, pk, False):
        # state-major kernel vectorised across states; on any failure the per-state kernel
        # below reruns the batch and names the failing state
        if K.rnea_lanes(pk.I, pk.F, Q, V, A, flags, eps, TAU) == 0:
            return TAU
    s, err = K.rnea_batch(pk.I, pk.F, Q, V, A, fe, flags, eps, TAU)
    if err:
        _raise(model, err, names + ("f_ext",), (), (), state=s)
    return TAU


def inverse_dynamics(
    model,
    q,
    v,
    a,
    f_ext=None,
    f_tip=None,
    *,
    frame=None,
    friction: bool = True,
    armature: bool = True,
    coulomb_eps: float = 0.0,
    check: bool = True,
) -> np.ndarray:
    """Joint forces for a motion: recursive Newton-Euler (MR section 8.3.2, eqs. 8.50-8.54).

    ``tau = M(q) a + C(q, v) v + g(q) + J_b^T F_tip - sum_i J_i^T F_ext,i + friction``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (N, nq)
        Configuration.
    v, a : array_like, shape (nv,) or (N, nv)
        Joint velocities and accelerations (a single row broadcasts over a batch).
    f_ext : array_like, shape (nb, 6) or (N, nb, 6), optional
        Wrench ``[m, f]`` applied on each body by the environment, in that body's frame,
        rows in ``model.body_names`` order (row 0, the world, is ignored).
    f_tip : array_like, shape (6,) or (N, 6), optional
        MR's ``F_tip``: wrench the end-effector applies on the environment, expressed in
        ``frame``; adds ``J_b^T F_tip``.
    frame : str or int, optional
        Operational frame of ``f_tip`` (default: the last frame, ``model.frame_names[-1]``).
    friction : bool
        Add viscous damping ``b v`` and Coulomb friction ``f_c sgn(v)`` of the joints.
    armature : bool
        Add the rotor inertia ``armature * a``.
    coulomb_eps : float
        If > 0, Coulomb friction is smoothed to ``f_c tanh(v / coulomb_eps)``.
    check : bool
        Reject NaN and inf (sizes are always checked).

    Returns
    -------
    tau : numpy.ndarray, shape (nv,) or (N, nv)
    """
    if f_tip is None:
        # fast path (see "fast path" above): float64 vectors straight into the kernel
        pk = model._rd_packed or packed(model)
        tau = _RNEA1(
            pk.P, q, v, a, f_ext,
            _ID
            + (FL_FRICTION if friction else 0)
            + (FL_ARMATURE if armature else 0)
            + (FL_CHECK if check else 0)
            + (0 if f_ext is None else FL_FEXT),
            coulomb_eps,
        )  # fmt: skip
        if tau.__class__ is _ND:
            return tau
    return _rnea_call(
        model, q, v, a, f_ext, f_tip, frame,
        _flags(friction, armature, check) | FL_GRAVITY, float(coulomb_eps), ("q", "v", "a"),
        FL_VEL | FL_ACC,
    )  # fmt: skip


rnea = inverse_dynamics


def gravity_forces(model, q, *, check: bool = True) -> np.ndarray:
    """Generalized gravity g(q) = rnea(q, 0, 0): the forces that hold the robot still.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (N, nq)
    check : bool
        Reject NaN and inf.

    Returns
    -------
    g : numpy.ndarray, shape (nv,) or (N, nv)
    """
    pk = model._rd_packed or packed(model)
    tau = _RNEA1(pk.P, q, None, None, None, FL_GRAVITY + (FL_CHECK if check else 0), 0.0)
    if tau.__class__ is _ND:
        return tau
    return _rnea_call(
        model, q, None, None, None, None, None,
        (FL_CHECK if check else 0) | FL_GRAVITY, 0.0, ("q", "v", "a"), 0,
    )  # fmt: skip


def velocity_forces(model, q, v, *, check: bool = True) -> np.ndarray:
    """Velocity-product forces C(q, v) v (Coriolis and centripetal), no gravity or friction.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (N, nq)
    v : array_like, shape (nv,) or (N, nv)
    check : bool
        Reject NaN and inf.

    Returns
    -------
    c : numpy.ndarray, shape (nv,) or (N, nv)
    """
    pk = model._rd_packed or packed(model)
    tau = _RNEA1(pk.P, q, v, None, None, FL_VEL + (FL_CHECK if check else 0), 0.0)
    if tau.__class__ is _ND:
        return tau
    return _rnea_call(
        model, q, v, None, None, None, None,
        FL_CHECK if check else 0, 0.0, ("q", "v", "a"), FL_VEL,
    )  # fmt: skip


def bias_forces(model, q, v, *, check: bool = True) -> np.ndarray:
    """Bias forces h(q, v) = C(q, v) v + g(q) (Pinocchio's nonLinearEffects), no friction.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (N, nq)
    v : array_like, shape (nv,) or (N, nv)
    check : bool
        Reject NaN and inf.

    Returns
    -------
    h : numpy.ndarray, shape (nv,) or (N, nv)
    """
    pk = model._rd_packed or packed(model)
    tau = _RNEA1(pk.P, q, v, None, None, FL_GRAVITY + FL_VEL + (FL_CHECK if check else 0), 0.0)
    if tau.__class__ is _ND:
        return tau
    return _rnea_call(
        model, q, v, None, None, None, None,
        (FL_CHECK if check else 0) | FL_GRAVITY, 0.0, ("q", "v", "a"), FL_VEL,
    )  # fmt: skip


# ----------------------------------------------------------------------------- CRBA
def mass_matrix(model, q, *, armature: bool = True, check: bool = True) -> np.ndarray:
    """Joint-space mass matrix M(q): composite rigid body algorithm (Featherstone 6.2).

    Symmetric positive definite; ``1/2 v^T M v`` is the kinetic energy. Includes the
    rotor inertia ``armature`` on the diagonal unless ``armature=False``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (N, nq)
    armature : bool
        Add the joints' armature to the diagonal.
    check : bool
        Reject NaN and inf.

    Returns
    -------
    M : numpy.ndarray, shape (nv, nv) or (N, nv, nv)
    """
    pk = model._rd_packed or packed(model)
    flags = (FL_ARMATURE if armature else 0) + (FL_CHECK if check else 0)
    M = _CRBA1(pk.P, q, flags)
    if M.__class__ is _ND:
        return M
    q = _fit(q, "q")
    if q.ndim == 1:
        M = _CRBA1(pk.P, q, flags)
        if M.__class__ is not _ND:
            _raise(model, M, ("q",), (q,), (pk.nq,))
        return M
    K = _K if _K is not None else _kernels()
    N, (Q,) = _batch(pk, (q,), ("q",), (pk.nq,))
    MM = np.empty((N, pk.nv, pk.nv))
    s, err = K.crba_batch(pk.I, pk.F, Q, flags, MM)
    if err:
        _raise(model, err, ("q",), (), (), state=s)
    return MM


crba = mass_matrix


def mass_matrix_inverse(model, q, *, armature: bool = True, check: bool = True) -> np.ndarray:
    """M(q)^-1 by CRBA and a Cholesky factorisation.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (N, nq)
    armature : bool
        Include the armature in M.
    check : bool
        Reject NaN and inf.

    Returns
    -------
    Minv : numpy.ndarray, shape (nv, nv) or (N, nv, nv)

    Raises
    ------
    ValueError
        If M is singular (a joint drives a massless subtree).
    """
    pk = packed(model)
    K = _kernels()
    q = _conv(q, "q")
    flags = (FL_ARMATURE if armature else 0) | (FL_CHECK if check else 0)
    if q.ndim == 1:
        Minv = np.empty((pk.nv, pk.nv))
        err = K.mass_inverse(pk.I, pk.F, q, flags, Minv)
        if err:
            _raise(model, err, ("q",), (q,), (pk.nq,))
        return Minv
    N, (Q,) = _batch(pk, (q,), ("q",), (pk.nq,))
    MI = np.empty((N, pk.nv, pk.nv))
    s, err = K.mass_inverse_batch(pk.I, pk.F, Q, flags, MI)
    if err:
        _raise(model, err, ("q",), (), (), state=s)
    return MI


# ----------------------------------------------------------------------------- ABA
def forward_dynamics(
    model,
    q,
    v,
    tau,
    f_ext=None,
    f_tip=None,
    *,
    frame=None,
    method: str = "aba",
    friction: bool = True,
    armature: bool = True,
    coulomb_eps: float = 0.0,
    check: bool = True,
) -> np.ndarray:
    """Joint accelerations from forces: the articulated body algorithm (Featherstone 7.1).

    Solves ``M(q) a = tau - C(q, v) v - g(q) - J_b^T F_tip + sum_i J_i^T F_ext,i -
    friction`` for ``a``; the exact inverse of :func:`inverse_dynamics` with the same
    options. Coulomb friction is evaluated at ``v`` (``sgn(0) = 0``: no stiction).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (N, nq)
    v, tau : array_like, shape (nv,) or (N, nv)
    f_ext, f_tip, frame, friction, armature, coulomb_eps, check
        As in :func:`inverse_dynamics`.
    method : {"aba", "crba"}
        "aba": O(n) articulated body algorithm. "crba": M from CRBA, Cholesky solve.
        Models with mimic joints always use "crba" (a mimic couples bodies that are not
        ancestors of each other, which ABA's recursion cannot express).

    Returns
    -------
    a : numpy.ndarray, shape (nv,) or (N, nv)

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, or a singular mass matrix (a joint drives a massless subtree).
    """
    pk = model._rd_packed or packed(model)
    if f_tip is None and method == "aba" and not pk.has_mimic:
        # fast path (see "fast path" above)
        qdd = _ABA1(
            pk.P, q, v, tau, f_ext,
            FL_GRAVITY
            + (FL_FRICTION if friction else 0)
            + (FL_ARMATURE if armature else 0)
            + (FL_CHECK if check else 0)
            + (0 if f_ext is None else FL_FEXT),
            coulomb_eps,
        )  # fmt: skip
        if qdd.__class__ is _ND:
            return qdd
    if method not in ("aba", "crba"):
        raise ValueError(f"method must be 'aba' or 'crba', got {method!r}")
    use_aba = method == "aba" and not pk.has_mimic
    q, v, tau = _fit(q, "q"), _fit(v, "v"), _fit(tau, "tau")
    flags = _flags(friction, armature, check) | FL_GRAVITY
    eps = float(coulomb_eps)
    names = ("q", "v", "tau", "f_ext")
    if q.ndim == 1 and v.ndim == 1 and tau.ndim == 1:
        fe = None
        if f_ext is not None or f_tip is not None:
            fe = _external(model, f_ext, f_tip, frame, None)
            flags |= FL_FEXT
        if use_aba:
            qdd = _ABA1(pk.P, q, v, tau, fe, flags, eps)
        else:  # Cholesky of M (numba)
            qdd = np.empty(pk.nv)
            err = _kernels().forward_crba(
                pk.I, pk.F, q, v, tau, pk.fext0 if fe is None else fe, flags, eps, qdd
            )
            qdd = qdd if err == 0 else err
        if qdd.__class__ is not _ND:
            _raise(model, qdd, names, (q, v, tau, f_ext), (pk.nq, pk.nv, pk.nv))
        return qdd
    K = _K if _K is not None else _kernels()
    batch = K.aba_batch if use_aba else K.forward_crba_batch
    N, (Q, V, T) = _batch(pk, (q, v, tau), names[:3], (pk.nq, pk.nv, pk.nv))
    fe = _external(model, f_ext, f_tip, frame, N)
    if fe is None:
        fe = pk.fext0_batch
    else:
        flags |= FL_FEXT
    QDD = np.empty((N, pk.nv))
    if use_aba and not flags & FL_FEXT and _lanes_ok(K, pk, True):
        if K.aba_lanes(pk.I, pk.F, Q, V, T, flags, eps, QDD) == 0:
            return QDD
    s, err = batch(pk.I, pk.F, Q, V, T, fe, flags, eps, QDD)
    if err:
        _raise(model, err, names, (), (), state=s)
    return QDD


aba = forward_dynamics
