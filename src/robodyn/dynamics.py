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

Every function takes one state (``q`` of shape (nq,)) or a batch with any number of
leading dimensions, numpy style (``q`` of shape (..., nq); the other state arguments
broadcast against it), and returns results with the same leading dimensions. Everything
runs in robodyn's compiled core (``kernels/core/``); batches run vectorised across states
on all cores (``threads=``) without the GIL. Shapes are checked on the way in (messages
name the argument and the shape passed); NaN and inf are rejected unless ``check=False``.
"""

from __future__ import annotations

import numpy as np

from .errors import ModelError
from .kernels import core as _core
from .kernels._pack import (
    FL_ACC,
    FL_ARMATURE,
    FL_CHECK,
    FL_FEXT,
    FL_FRICTION,
    FL_GRAVITY,
    FL_MINV_ABA,
    FL_MINV_CHOLESKY,
    FL_VEL,
    packed,
)
from .kernels.call import batched, compute, into, run
from .kernels.call import threads as _threads

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
_ID = FL_GRAVITY | FL_VEL | FL_ACC
_RNEA, _ABA, _FORWARD, _CRBA, _MINV = _core.rnea, _core.aba, _core.forward, _core.crba, _core.minv
_OFF = object()  # a state argument the computation does not read

# Each function first calls the core with the user's arrays (the fast path of
# robodyn.kernels.call: one state, or one batch dimension of C-contiguous float64); when the
# core returns a code instead of an array, _run takes the general path.


def _tip_wrench(model, frame, f_tip: np.ndarray) -> tuple[int, np.ndarray]:
    """The body that carries ``frame`` and the wrench the environment applies on it, in
    body coordinates, for MR's F_tip (the wrench the frame applies on the environment):
    ``-Ad_{T_fb}^T F_tip = -[R m + p x (R f); R f]`` with ``(R, p) = T_bf`` (MR eq. 3.98)."""
    if model.nf == 0:
        raise ModelError("f_tip needs an operational frame; the model has none")
    f = model.frame_id(model.nf - 1 if frame is None else frame)
    R, p = model.frame_R[f], model.frame_p[f]
    # elementwise, so that a batch and a single state round identically
    Rm = f_tip[..., 0:1] * R[:, 0] + f_tip[..., 1:2] * R[:, 1] + f_tip[..., 2:3] * R[:, 2]
    Rf = f_tip[..., 3:4] * R[:, 0] + f_tip[..., 4:5] * R[:, 1] + f_tip[..., 5:6] * R[:, 2]
    return int(model.frame_body[f]), -np.concatenate([Rm + np.cross(p, Rf), Rf], axis=-1)


def _run(entry, model, names, xs, f_ext, f_tip, frame, flags, eps, threads, what="", out=None):
    """The general path of inverse / forward dynamics: the state arguments ``xs`` (q, then
    v and a or tau; ``_OFF`` where the flags leave one out) with numpy-style leading
    dimensions, the external wrenches folded into one (..., nb, 6) array."""
    pk = packed(model)
    sizes = ((pk.nq,), (pk.nv,), (pk.nv,))
    used = [k for k, x in enumerate(xs) if x is not _OFF]
    argn = [names[k] for k in used]
    argx = [xs[k] for k in used]
    argt = [sizes[k] for k in used]
    if f_ext is not None:
        argn.append("f_ext"), argx.append(f_ext), argt.append((pk.nb, 6))
    if f_tip is not None:
        argn.append("f_tip"), argx.append(f_tip), argt.append((6,))
    if f_ext is not None or f_tip is not None:
        flags |= FL_FEXT

    def call(arrs):  # the whole batch, or a piece of it (robodyn.kernels.call.run)
        state = [None, None, None]
        for k, a in zip(used, arrs):
            state[k] = a
        fe = None
        if f_ext is not None or f_tip is not None:
            fe = arrs[len(used)].copy() if f_ext is not None else None
            if f_tip is not None:
                ft = arrs[-1]
                if not np.all(np.isfinite(ft)):
                    raise ValueError("f_tip contains NaN or inf")
                body, w = _tip_wrench(model, frame, ft)
                if fe is None:
                    fe = np.zeros((*ft.shape[:-1], pk.nb, 6))
                fe[..., body, :] += w
        return entry(pk.P, state[0], state[1], state[2], fe, flags, eps, threads)

    r = run(call, argn, argx, argt, model, tuple(names) + ("f_ext",), what)
    return r if out is None else into(out, r)


def _solve(entry, model, names, xs, f_ext, f_tip, frame, flags, eps, th, out=None):
    """Inverse or forward dynamics: the user's arrays straight to the core's ``entry``
    when there is no ``f_tip`` (the fast path), else, or when the core declines them, the
    general path :func:`_run`; with ``out`` (the caller's array) the result goes there."""
    if f_tip is None:
        P = (model._rd_packed or packed(model)).P
        fl = flags | (0 if f_ext is None else FL_FEXT)
        tail = (f_ext, fl, eps, th) if out is None else (f_ext, fl, eps, th, out)
        r = entry(P, *xs, *tail)
        if r.__class__ is _ND:
            return r
    return _run(entry, model, names, xs, f_ext, f_tip, frame, flags, float(eps), th, out=out)


# ----------------------------------------------------------------------------- RNEA
@batched(fast=("rnea", 3, _ID | FL_FRICTION | FL_ARMATURE | FL_CHECK))
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
    threads: int | None = None,
    out=None,
) -> np.ndarray:
    """Joint forces for a motion: recursive Newton-Euler (MR section 8.3.2, eqs. 8.50-8.54).

    The full equation, with the model's joint damping ``b`` (``model.dof_damping``),
    Coulomb friction ``f_c`` (``model.dof_friction``) and rotor inertia (``model.dof_armature``),
    all read from the URDF's ``<dynamics damping friction>`` and included by default::

        tau = M(q) a + C(q, v) v + g(q) + J_b^T F_tip - sum_i J_i^T F_ext,i
              + b v + f_c sgn(v) + armature a

    ``friction=False`` and ``armature=False`` drop the last three terms; that is Pinocchio's
    ``rnea`` (which leaves joint friction out).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
        Configuration; any leading dimensions are a batch.
    v, a : array_like, shape (..., nv)
        Joint velocities and accelerations (leading dimensions broadcast against q's).
    f_ext : array_like, shape (..., nb, 6), optional
        Wrench ``[m, f]`` applied on each body by the environment, in that body's frame,
        rows in ``model.body_names`` order (row 0, the world, is ignored).
    f_tip : array_like, shape (..., 6), optional
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
        Reject NaN and inf (shapes are always checked).
    threads : int, optional
        Threads for a batch (default: ``ROBODYN_NUM_THREADS``, else every core).
    out : numpy.ndarray, optional
        The array to write the result into (float64, the result's shape), reused across
        calls: for float64 C-contiguous states the core writes there and allocates
        nothing (a long trajectory pays no page faults per call); other inputs are
        computed, then copied into it.

    Returns
    -------
    tau : numpy.ndarray, shape (..., nv)

    Examples
    --------
    Holding the 2R arm of course notes 003 still and outstretched against gravity (9.81
    m/s^2 along -y) takes ``g1 = g (m1 r1 + m2 (L1 + r2))`` and ``g2 = g m2 r2`` with m1 = 5
    kg, m2 = 3 kg, L1 = 0.5 m, r1 = 0.25 m, r2 = 0.2 m:

    >>> import robodyn as rd
    >>> arm = rd.models.load("planar_2r")
    >>> print(rd.inverse_dynamics(arm, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]))
    [32.8635  5.886 ]
    >>> print(round(9.81 * (5 * 0.25 + 3 * (0.5 + 0.2)), 10), round(9.81 * 3 * 0.2, 10))
    32.8635 5.886
    """
    th = 0 if threads is None else _threads(threads)
    flags = (
        _ID
        | (FL_FRICTION if friction else 0)
        | (FL_ARMATURE if armature else 0)
        | (FL_CHECK if check else 0)
    )
    return _solve(_RNEA, model, ("q", "v", "a"), (q, v, a), f_ext, f_tip, frame, flags,
                  coulomb_eps, th, out)  # fmt: skip


rnea = inverse_dynamics


def _rnea_terms(model, q, v, flags, threads, out):
    """gravity / velocity / bias forces: RNEA with some terms switched off."""
    th = 0 if threads is None else _threads(threads)
    if flags & FL_VEL:
        return compute(_RNEA, model, ("q", "v"), (q, v), None, None, flags, 0.0, th, out=out)
    return compute(_RNEA, model, ("q",), (q,), None, None, None, flags, 0.0, th, out=out)


@batched(fast=("rnea", 1, FL_GRAVITY | FL_CHECK))
def gravity_forces(
    model, q, *, check: bool = True, threads: int | None = None, out=None
) -> np.ndarray:
    """Generalized gravity g(q) = rnea(q, 0, 0): the forces that hold the robot still.

    Takes ``q`` of shape (..., nq) and the ``check``, ``threads`` and ``out`` of
    :func:`inverse_dynamics`; returns ``g`` of shape (..., nv).
    """
    return _rnea_terms(model, q, None, FL_GRAVITY | (FL_CHECK if check else 0), threads, out)


@batched(fast=("rnea", 2, FL_VEL | FL_CHECK))
def velocity_forces(
    model, q, v, *, check: bool = True, threads: int | None = None, out=None
) -> np.ndarray:
    """Velocity-product forces C(q, v) v (Coriolis and centripetal), no gravity or friction.

    Takes ``q`` (..., nq), ``v`` (..., nv) and the ``check``, ``threads`` and ``out`` of
    :func:`inverse_dynamics`; returns ``c`` of shape (..., nv).
    """
    return _rnea_terms(model, q, v, FL_VEL | (FL_CHECK if check else 0), threads, out)


@batched(fast=("rnea", 2, FL_GRAVITY | FL_VEL | FL_CHECK))
def bias_forces(
    model, q, v, *, check: bool = True, threads: int | None = None, out=None
) -> np.ndarray:
    """Bias forces h(q, v) = C(q, v) v + g(q) (Pinocchio's nonLinearEffects), no friction.

    Takes ``q`` (..., nq), ``v`` (..., nv) and the ``check``, ``threads`` and ``out`` of
    :func:`inverse_dynamics`; returns ``h`` of shape (..., nv).
    """
    flags = FL_GRAVITY | FL_VEL | (FL_CHECK if check else 0)
    return _rnea_terms(model, q, v, flags, threads, out)


# ----------------------------------------------------------------------------- CRBA
def _of_q(entry, model, q, flags, threads, out, what=""):
    """mass matrix and its inverse: one function of q."""
    th = 0 if threads is None else _threads(threads)
    return compute(entry, model, ("q",), (q,), flags, th, what=what, out=out)


@batched(fast=("crba", 1, FL_ARMATURE | FL_CHECK))
def mass_matrix(
    model, q, *, armature: bool = True, check: bool = True, threads: int | None = None, out=None
) -> np.ndarray:
    """Joint-space mass matrix M(q): composite rigid body algorithm (Featherstone 6.2).

    Symmetric positive definite; ``1/2 v^T M v`` is the kinetic energy. Includes the
    rotor inertia ``armature`` on the diagonal unless ``armature=False``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    armature : bool
        Add the joints' armature to the diagonal.
    check : bool
        Reject NaN and inf.
    threads : int, optional
        Threads for a batch.
    out : numpy.ndarray, optional
        The array to write M into (as :func:`inverse_dynamics`'s ``out``).

    Returns
    -------
    M : numpy.ndarray, shape (..., nv, nv)

    Examples
    --------
    The outstretched 2R arm of course notes 003: ``M11 = I1 + I2 + m1 r1^2 + m2 (L1 + r2)^2
    = 1.9325``, ``M12 = I2 + m2 r2 (L1 + r2) = 0.47``, ``M22 = I2 + m2 r2^2 = 0.17`` (kg m^2).
    A batch of states gives a batch of matrices:

    >>> import numpy as np
    >>> import robodyn as rd
    >>> arm = rd.models.load("planar_2r")
    >>> print(rd.mass_matrix(arm, [0.0, 0.0]))
    [[1.9325 0.47  ]
     [0.47   0.17  ]]
    >>> rd.mass_matrix(arm, np.zeros((10, 2))).shape
    (10, 2, 2)
    """
    flags = (FL_ARMATURE if armature else 0) | (FL_CHECK if check else 0)
    # the common call was answered by the compiled entry before it got here
    return _of_q(_CRBA, model, q, flags, threads, out)


crba = mass_matrix


@batched(fast=("minv", 1, FL_ARMATURE | FL_CHECK))
def mass_matrix_inverse(
    model,
    q,
    *,
    method: str | None = None,
    armature: bool = True,
    check: bool = True,
    threads: int | None = None,
    out=None,
) -> np.ndarray:
    """M(q)^-1: the articulated-body recursion in O(n^2), or CRBA and a Cholesky factor.

    Takes the arguments of :func:`mass_matrix` (``armature``: included in M); returns
    ``Minv`` of shape (..., nv, nv), symmetric, rows and columns in the order of v.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    method : {None, "aba", "cholesky"}
        "aba": ABA's equations run on the nv unit torques at once (Carpentier's recursive
        M^-1; ``kernels/core/minv_aba.c``), O(n^2). "cholesky": M by CRBA, then
        ``M^-1 = L^-T L^-1`` by its Cholesky factor, O(n^3). None: the faster one as
        ``robodyn bench`` measured it, the recursion from 24 dofs on. Models with mimic
        joints always take "cholesky" (ABA cannot express a mimic's coupling).
    armature, check, threads, out
        As in :func:`mass_matrix`.

    Returns
    -------
    Minv : numpy.ndarray, shape (..., nv, nv)

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, an unknown ``method``, or a singular M (a joint drives a
        massless subtree).
    """
    flags = (FL_ARMATURE if armature else 0) | (FL_CHECK if check else 0)
    return _of_q(_MINV, model, q, flags | _minv_method(method), threads, out)


def _minv_method(method: str | None) -> int:
    """The core's flag of the road to M^-1 that ``method`` names (None: the core's rule by
    nv); ValueError for an unknown name. Shared with forward_dynamics_derivatives."""
    if method is None:
        return 0
    if method == "aba":
        return FL_MINV_ABA
    if method == "cholesky":
        return FL_MINV_CHOLESKY
    raise ValueError(f"method must be None, 'aba' or 'cholesky', got {method!r}")


# ----------------------------------------------------------------------------- ABA
@batched(fast=("aba", 3, FL_GRAVITY | FL_FRICTION | FL_ARMATURE | FL_CHECK))
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
    threads: int | None = None,
    out=None,
) -> np.ndarray:
    """Joint accelerations from forces: the articulated body algorithm (Featherstone 7.1).

    Solves, for ``a``, the equation of :func:`inverse_dynamics` with the same options::

        M(q) a = tau - C(q, v) v - g(q) - J_b^T F_tip + sum_i J_i^T F_ext,i
                 - b v - f_c sgn(v)          (M includes the armature)

    Joint damping ``b`` and Coulomb friction ``f_c`` come from the model (the URDF's
    ``<dynamics>``) and are included by default; ``friction=False, armature=False`` is
    Pinocchio's ``aba``. Coulomb friction is evaluated at ``v`` (``sgn(0) = 0``: no stiction).

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    v, tau : array_like, shape (..., nv)
    f_ext, f_tip, frame, friction, armature, coulomb_eps, check, threads, out
        As in :func:`inverse_dynamics`.
    method : {"aba", "crba"}
        "aba": O(n) articulated body algorithm. "crba": M from CRBA, Cholesky solve.
        Models with mimic joints always use "crba" (a mimic couples bodies that are not
        ancestors of each other, which ABA's recursion cannot express).

    Returns
    -------
    a : numpy.ndarray, shape (..., nv)

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, or a singular mass matrix (a joint drives a massless subtree).
    """
    if method not in ("aba", "crba"):
        raise ValueError(f"method must be 'aba' or 'crba', got {method!r}")
    pk = model._rd_packed or packed(model)
    entry = _ABA if method == "aba" and not pk.has_mimic else _FORWARD
    th = 0 if threads is None else _threads(threads)
    flags = (
        FL_GRAVITY
        | (FL_FRICTION if friction else 0)
        | (FL_ARMATURE if armature else 0)
        | (FL_CHECK if check else 0)
    )
    return _solve(entry, model, ("q", "v", "tau"), (q, v, tau), f_ext, f_tip, frame, flags,
                  coulomb_eps, th, out)  # fmt: skip


aba = forward_dynamics
