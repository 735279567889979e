"""Analytic derivatives of the dynamics: the public wrappers around the compiled kernels.

* ``inverse_dynamics_derivatives`` (``rnea_derivatives``): d tau/dq, d tau/dv and
  d tau/da = M(q) of :func:`robodyn.inverse_dynamics`, by one recursive pass over the
  spatial equations of RNEA (``kernels/core/rnea_derivatives.c``; the structure of
  Carpentier & Mansard, RSS 2018), O(n d) for n dofs and tree depth d.
* ``forward_dynamics_derivatives`` (``aba_derivatives``): d a/dq, d a/dv and d a/dtau =
  M(q)^-1 of :func:`robodyn.forward_dynamics`, from those of inverse dynamics at the
  forward dynamics' a (``kernels/core/aba_derivatives.c``: d a/dx = -M^-1 d tau/dx).

Derivatives with respect to q are taken in the tangent space, the space of v: column k of
d tau/dq is ``d/d eps tau(integrate(model, q, eps e_k), v, a)`` at ``eps = 0``. For a
revolute, prismatic, helical, cylindrical or universal joint that is the partial
derivative by its coordinate; for a free joint (q = [x, y, z, qw, qx, qy, qz], v = the
body twist [omega_b, v_b]), a spherical joint (v = omega_b) and a planar joint (v = the
chassis' body twist) it is the derivative along the body-frame twist e_k, the
perturbation multiplied on the right of the joint's pose, T exp([e_k] eps). Pinocchio's
``computeRNEADerivatives`` uses the same local tangent with twists ordered [v; omega]: its
matrices equal robodyn's after ``robodyn.convert.PinocchioMap`` reorders rows and columns
(``PinocchioMap.matrix_from_pin``).

Every function takes one state or a batch with any leading dimensions (numpy style, the
arguments broadcast) and runs in robodyn's compiled core, batches vectorised across states
on all cores (``threads=``) without the GIL; dask arrays give lazy dask arrays.
"""

from __future__ import annotations

import numpy as np

from .dynamics import _minv_method
from .kernels import core as _core
from .kernels._pack import FL_ARMATURE, FL_CHECK, FL_FEXT, FL_FRICTION, FL_GRAVITY, packed
from .kernels.call import LazyInput, batched, run
from .kernels.call import threads as _threads
from .kernels.lazy import lazy_call

__all__ = [
    "inverse_dynamics_derivatives",
    "rnea_derivatives",
    "forward_dynamics_derivatives",
    "aba_derivatives",
]

_ND = np.ndarray
_F8 = np.dtype(np.float64)
_ID_NAMES = ("q", "v", "a", "f_ext")
_FD_NAMES = ("q", "v", "tau", "f_ext")


def _stacked(entry, names, model, xs, f_ext, options: tuple, dest=None) -> np.ndarray:
    """The three matrices stacked, shape (..., 3, nv, nv): the core's ``entry`` on the state
    arguments ``xs`` (named ``names``), ``options`` = (flags, eps, threads) as the core
    takes them (with ``dest``, an array of that shape, the core writes there when it can)."""
    flags, eps, th = options
    flags |= 0 if f_ext is None else FL_FEXT
    pk = model._rd_packed or packed(model)
    if dest is None:
        r = entry(pk.P, *xs, f_ext, flags, eps, th)
    else:
        r = entry(pk.P, *xs, f_ext, flags, eps, th, dest)
    if r.__class__ is _ND:
        return r
    # the general path: lists, views, broadcasting, several batch axes, bad shapes, NaN
    xs, tails = list(xs), [(pk.nq,), (pk.nv,), (pk.nv,)]
    if f_ext is not None:
        xs.append(f_ext), tails.append((pk.nb, 6))

    def call(arrs):  # the whole batch, or a piece of it (robodyn.kernels.call.run)
        fe = arrs[3] if f_ext is not None else None
        return entry(pk.P, arrs[0], arrs[1], arrs[2], fe, flags, eps, th)

    return run(call, names[: len(xs)], xs, tails, model, names)


def _id_stacked(model, q, v, a, f_ext=None, *, options: tuple, dest=None) -> np.ndarray:
    """Inverse dynamics' three matrices stacked (the parameter names are the states' for
    kernels/lazy.py)."""
    return _stacked(_core.rnea_derivatives, _ID_NAMES, model, (q, v, a), f_ext, options, dest)


def _fd_stacked(model, q, v, tau, f_ext=None, *, options: tuple, dest=None) -> np.ndarray:
    """Forward dynamics' three matrices stacked."""
    return _stacked(_core.aba_derivatives, _FD_NAMES, model, (q, v, tau), f_ext, options, dest)


def _derivatives(stacked, model, q, v, x, f_ext, flags, eps, threads, out) -> tuple:
    """The public road of both: the stacked result (into ``out`` when it is an earlier
    result's three views), dask arrays mapped over their chunks, the three views."""
    th = 0 if threads is None else _threads(threads)
    dest = None if out is None else _dest(out, (model._rd_packed or packed(model)).nv)
    try:
        r = stacked(model, q, v, x, f_ext, options=(flags, float(eps), th), dest=dest)
    except LazyInput:  # dask arrays: the core mapped over their chunks (one thread each)
        if out is not None:
            raise ValueError("out must be None when an argument is a dask array") from None
        r = lazy_call(stacked, (model, q, v, x, f_ext), {"options": (flags, float(eps), 1)})
    if out is not None:
        return tuple(out) if dest is not None and r is dest else _into(out, r)
    if r.ndim == 3:
        return r[0], r[1], r[2]
    return r[..., 0, :, :], r[..., 1, :, :], r[..., 2, :, :]


def _dest(out, nv: int):
    """The one array the core can write into when ``out`` holds the three views
    ``d[..., 0, :, :]``, ``d[..., 1, :, :]``, ``d[..., 2, :, :]`` of a C-contiguous float64
    ``d`` (a previous result of this function, reused), else None."""
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        return None
    base = getattr(out[0], "base", None)
    if not (
        isinstance(base, _ND)
        and base.dtype == _F8
        and base.flags.c_contiguous
        and base.flags.writeable
        and base.ndim in (3, 4)
        and base.shape[-3:] == (3, nv, nv)
    ):
        return None
    at = base.__array_interface__["data"][0]
    step = base.strides[-3]
    for k, o in enumerate(out):
        if not (
            isinstance(o, _ND)
            and o.base is base
            and o.shape == base.shape[:-3] + (nv, nv)
            and o.strides == base.strides[:-3] + base.strides[-2:]
            and o.__array_interface__["data"][0] == at + k * step
        ):
            return None
    return base


def _into(out, r: np.ndarray) -> tuple:
    """``r`` (..., 3, nv, nv) copied into the caller's three arrays; ValueError naming
    ``out`` when they cannot hold it."""
    shape = r.shape[:-3] + r.shape[-2:]
    ok = isinstance(out, (tuple, list)) and len(out) == 3
    for o in out if ok else ():
        ok = ok and isinstance(o, _ND) and o.dtype == _F8 and o.shape == shape
        ok = ok and o.flags.writeable
    if not ok:
        got = type(out).__name__
        if isinstance(out, (tuple, list)):
            got = ", ".join(
                f"{o.dtype} {o.shape}" if isinstance(o, _ND) else type(o).__name__ for o in out
            )
        raise ValueError(
            f"out must be a tuple of three writeable float64 arrays of shape {shape}, got {got}"
        )
    for k in range(3):
        np.copyto(out[k], r[..., k, :, :])
    return tuple(out)


@batched(fast=("rnea_derivatives", 3, FL_GRAVITY | FL_FRICTION | FL_ARMATURE | FL_CHECK))
def inverse_dynamics_derivatives(
    model,
    q,
    v,
    a,
    f_ext=None,
    *,
    friction: bool = True,
    armature: bool = True,
    coulomb_eps: float = 0.0,
    check: bool = True,
    threads: int | None = None,
    out=None,
) -> tuple:
    """The partial derivatives of inverse dynamics: d tau/dq, d tau/dv and d tau/da.

    For the equation of :func:`robodyn.inverse_dynamics` (MR eq. 8.1 with friction and
    external wrenches)::

        tau = M(q) a + C(q, v) v + g(q) - sum_i J_i^T F_ext,i + b v + f_c sgn(v) + armature a

    by one recursive pass over the spatial equations of RNEA (MR eqs. 8.50-8.54 in world
    coordinates; the structure of Carpentier & Mansard, RSS 2018), O(n d) for n dofs and
    tree depth d, in robodyn's compiled core.

    Conventions. Entry (i, k) of each matrix is the derivative of ``tau[i]`` by the k-th
    component. **q is differentiated in the tangent space**: column k of ``dtau_dq`` is
    ``d/d eps tau(integrate(model, q, eps e_k), v, a)`` at ``eps = 0``, so ``dtau_dq`` is
    (nv, nv), not (nv, nq). For revolute, continuous, prismatic, helical, cylindrical and
    universal joints that is the partial derivative by the joint coordinate; for a free
    joint (``q = [x, y, z, qw, qx, qy, qz]``, ``v = [omega_b, v_b]`` the body twist), a
    spherical joint (``v = omega_b``) and a planar joint (``v`` the chassis' body twist)
    it is the derivative along the body-frame twist ``e_k``, the joint's pose moved to
    ``T exp([e_k] eps)`` (right-multiplied, body frame). Pinocchio's
    ``computeRNEADerivatives`` takes the same local tangent but orders a free joint's
    twist ``[v; omega]`` and its quaternion ``(x, y, z, w)``: its ``dtau_dq``, ``dtau_dv``
    and ``M`` equal robodyn's after reordering rows and columns,
    ``robodyn.convert.PinocchioMap(model, pin_model).matrix_from_pin(X)``.

    Mimic joints (``q_f = mult q_leader + offset``) enter their leader's rows and
    columns by the chain rule. External wrenches ``f_ext`` are fixed in their bodies'
    frames, so they turn with the bodies and enter ``dtau_dq``. Joint damping ``b`` adds
    ``b`` to ``dtau_dv``'s diagonal; Coulomb friction ``f_c sgn(v)`` has derivative 0 (at
    ``v = 0`` too, where sgn jumps: 0 is returned there), and its smoothed form
    ``f_c tanh(v / coulomb_eps)`` adds ``f_c / coulomb_eps sech^2(v / coulomb_eps)``. The
    armature adds to ``dtau_da``'s diagonal.

    Parameters
    ----------
    model : Model
    q, v, a, f_ext, coulomb_eps, check, threads
        As in :func:`robodyn.inverse_dynamics`: the states ``q`` (..., nq), ``v`` and ``a``
        (..., nv), any leading dimensions a batch (broadcast numpy style); ``f_ext``
        (..., nb, 6) the wrench ``[m, f]`` on each body in its own frame; ``coulomb_eps``
        > 0 smooths Coulomb friction to ``f_c tanh(v / coulomb_eps)``.
    friction : bool
        Include the joint damping and Coulomb friction (``friction=False``: Pinocchio's
        ``computeRNEADerivatives``, which leaves joint friction out).
    armature : bool
        Include the rotor inertia in ``dtau_da``.
    out : tuple of three numpy.ndarray, optional
        Arrays to write ``(dtau_dq, dtau_dv, dtau_da)`` into (float64, shape (..., nv,
        nv) each); returned. When they are the three matrices of an earlier result of
        this function (views of one array), the core writes there and allocates nothing.

    Returns
    -------
    dtau_dq, dtau_dv, dtau_da : numpy.ndarray, shape (..., nv, nv) each
        ``dtau_da`` is the mass matrix M(q) (with the armature when ``armature=True``).
        The three are views of one array of shape (..., 3, nv, nv).

    Raises
    ------
    ValueError
        Bad shapes (naming the argument), NaN or inf in an argument (naming it and the
        state), a result that overflows.

    Examples
    --------
    The 2R arm of course notes 003 (m1 = 5 kg, m2 = 3 kg, L1 = 0.5 m, r1 = 0.25 m, r2 =
    0.2 m, gravity 9.81 m/s^2 along -y) at rest, pointing straight up: its gravity torques
    ``g1 = g (m1 r1 + m2 L1) cos q1 + g m2 r2 cos(q1 + q2)``, ``g2 = g m2 r2 cos(q1 + q2)``
    have ``d g1/d q1 = -g (m1 r1 + m2 (L1 + r2)) = -32.8635`` and every other entry
    ``-g m2 r2 = -5.886`` there; at rest ``dtau_dv`` is 0, and ``dtau_da`` is M:

    >>> import numpy as np
    >>> import robodyn as rd
    >>> arm = rd.models.load("planar_2r")
    >>> q = [np.pi / 2, 0.0]
    >>> dq, dv, da = rd.inverse_dynamics_derivatives(arm, q, [0.0, 0.0], [0.0, 0.0])
    >>> print(np.round(dq, 6) + 0.0)
    [[-32.8635  -5.886 ]
     [ -5.886   -5.886 ]]
    >>> print(np.round(da, 6))
    [[1.9325 0.47  ]
     [0.47   0.17  ]]
    """
    flags = _flags(friction, armature, check)
    return _derivatives(_id_stacked, model, q, v, a, f_ext, flags, coulomb_eps, threads, out)


def _flags(friction: bool, armature: bool, check: bool) -> int:
    return (
        FL_GRAVITY
        | (FL_FRICTION if friction else 0)
        | (FL_ARMATURE if armature else 0)
        | (FL_CHECK if check else 0)
    )


rnea_derivatives = inverse_dynamics_derivatives


@batched(fast=("aba_derivatives", 3, FL_GRAVITY | FL_FRICTION | FL_ARMATURE | FL_CHECK))
def forward_dynamics_derivatives(
    model,
    q,
    v,
    tau,
    f_ext=None,
    *,
    method: str | None = None,
    friction: bool = True,
    armature: bool = True,
    coulomb_eps: float = 0.0,
    check: bool = True,
    threads: int | None = None,
    out=None,
) -> tuple:
    """The partial derivatives of forward dynamics: d a/dq, d a/dv and d a/dtau.

    For ``a = forward_dynamics(model, q, v, tau, f_ext)`` (the equation of
    :func:`inverse_dynamics_derivatives` solved for a), by the implicit function theorem
    on ``inverse_dynamics(q, v, a) = tau``::

        da/dq = -M^-1 dtau/dq,   da/dv = -M^-1 dtau/dv,   da/dtau = M^-1

    with the inverse dynamics derivatives at that a, in one call of robodyn's compiled
    core (``kernels/core/aba_derivatives.c``; a by ABA, or by the Cholesky road for a
    model with mimic joints; M^-1 as ``method`` says). The conventions are those of
    :func:`inverse_dynamics_derivatives`: q in the tangent space (column k moves q by
    ``integrate(model, q, eps e_k)``), friction, armature and ``f_ext`` as there.
    Pinocchio's ``computeABADerivatives`` gives the same three matrices after the
    ``[v; omega]`` reordering (``PinocchioMap.matrix_from_pin``), with ``friction=False``.

    Parameters
    ----------
    model : Model
    q, v, tau, f_ext, friction, armature, coulomb_eps, check, threads
        As in :func:`robodyn.forward_dynamics` and :func:`inverse_dynamics_derivatives`.
    method : {None, "aba", "cholesky"}
        How M^-1 is computed: "aba", from the articulated inertias of the ABA pass that
        gives a (the recursion of :func:`robodyn.mass_matrix_inverse`, O(n^2)), then
        ``-M^-1 dtau/dx`` row by row; "cholesky", by the Cholesky factor of M (from the
        inverse dynamics derivatives) and one solve with the 3 nv right sides [-dtau/dq,
        -dtau/dv, 1]. None: the faster one as ``robodyn bench`` measured it, "aba" from
        12 dofs on. Models with mimic joints always take "cholesky".
    out : tuple of three numpy.ndarray, optional
        As in :func:`inverse_dynamics_derivatives`.

    Returns
    -------
    da_dq, da_dv, da_dtau : numpy.ndarray, shape (..., nv, nv) each
        ``da_dtau`` is ``M(q)^-1``. The three are views of one array (..., 3, nv, nv).

    Raises
    ------
    ValueError
        Bad shapes or NaN (naming the argument and the state), an unknown ``method``, a
        singular mass matrix.

    Examples
    --------
    ``da/dtau`` is the inverse of the mass matrix (the 2R arm of course notes 003):

    >>> import robodyn as rd
    >>> arm = rd.models.load("planar_2r")
    >>> dq, dv, dtau = rd.forward_dynamics_derivatives(arm, [0.3, 0.2], [0.0, 0.0], [0.0, 0.0])
    >>> bool(abs(dtau @ rd.mass_matrix(arm, [0.3, 0.2]) - [[1, 0], [0, 1]]).max() < 1e-12)
    True
    """
    flags = _flags(friction, armature, check) | _minv_method(method)
    return _derivatives(_fd_stacked, model, q, v, tau, f_ext, flags, coulomb_eps, threads, out)


aba_derivatives = forward_dynamics_derivatives
