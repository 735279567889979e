"""Single-state inverse dynamics, mass matrix and forward dynamics: the fast path.

Three entry points with one contract, whichever implementation is behind them::

    rnea1(P, q, v, a, fext, flags, eps) -> tau (nv,)     (v / a read if FL_VEL / FL_ACC)
    aba1(P, q, v, tau, fext, flags, eps) -> qdd (nv,)
    crba1(P, q, flags) -> M (nv, nv)
    coriolis1(P, q, v, flags) -> C (nv, nv)             (robodyn.coriolis)

``P`` is the packed model (:attr:`~robodyn.kernels._pack.Packed.P`), ``fext`` None or an
(nb, 6) array (read if FL_FEXT). Instead of an array they return an int code: -1 when an
argument is not a C-contiguous float64 vector or (nb, 6) array (the caller converts it
and calls again), 1-4 when the size of the 1st-4th state argument is wrong, 11-14 when it
holds NaN or inf, 15 for a zero quaternion, 1000 + i when the articulated inertia of body
i is singular. :func:`robodyn.dynamics._raise` turns a code into the error message.

Implementations:

* the C extension ``robodyn.kernels._native`` (``native.c``), compiled when robodyn is
  installed: one C call checks the arguments, allocates the output and runs the
  algorithm, ~0.2 us of overhead where a numba dispatcher call costs ~2 us, and nothing
  to load or compile on the first call;
* when it was not built (no C compiler), the numba kernels :func:`~.rnea.rnea`,
  :func:`~.aba.aba`, :func:`~.crba.crba` behind the same contract (same algorithms, same
  results; slower per call, and numba loads on the first call).

``NATIVE`` says which one is in use and ``WHY`` why not the C one.
"""

from __future__ import annotations

import numpy as np

from . import _pack
from ._pack import FL_FEXT, HI, WI

__all__ = [
    "NATIVE",
    "WHY",
    "native",
    "rnea1",
    "aba1",
    "crba1",
    "numba_rnea1",
    "numba_aba1",
    "numba_crba1",
    "coriolis1",
    "numba_coriolis1",
]

_ND = np.ndarray
_F8 = np.dtype(np.float64)


def _load_native():
    """The C module if it was built and agrees with _pack's layout, else (None, reason)."""
    try:
        from . import _native
    except ImportError as exc:
        return None, f"the C extension robodyn.kernels._native was not built ({exc})"
    bad = [k for k, v in _native.LAYOUT.items() if getattr(_pack, k, None) != v]
    if bad:  # a stale build of native.c: never run it on a model packed differently
        return None, f"the C extension is stale (layout differs in {', '.join(sorted(bad))})"
    return _native, ""


# ----------------------------------------------------------------------------- numba
def _split(P):
    """(I, F) of the packed model P."""
    n = HI + WI * int(P[0])
    return P[:n], P[n:].view(np.float64)


def _vec(x) -> bool:
    return x.__class__ is _ND and x.dtype == _F8 and x.ndim == 1 and x.flags.c_contiguous


def _state(P, x, need, fext, flags):
    """-1 if a state argument is not a float64 C vector, else 0 (sizes: the kernels)."""
    if not all(_vec(a) for a, n in zip(x, need) if n):
        return -1
    if flags & FL_FEXT and not (
        fext.__class__ is _ND and fext.dtype == _F8 and fext.ndim == 2 and fext.flags.c_contiguous
    ):
        return -1
    return 0


def numba_rnea1(P, q, v, a, fext, flags, eps):
    """:func:`rnea1` on the numba kernel (the contract of the module docstring)."""
    from . import rnea

    if _state(P, (q, v, a), (1, flags & _pack.FL_VEL, flags & _pack.FL_ACC), fext, flags):
        return -1
    I, F = _split(P)
    fe = fext if flags & FL_FEXT else np.zeros((0, 6))
    tau = np.empty(int(P[2]))
    v = v if flags & _pack.FL_VEL else q
    a = a if flags & _pack.FL_ACC else q
    err = rnea.rnea(I, F, q, v, a, fe, flags, float(eps), tau)
    return tau if err == 0 else int(err)


def numba_aba1(P, q, v, tau, fext, flags, eps):
    """:func:`aba1` on the numba kernel."""
    from . import aba

    if _state(P, (q, v, tau), (1, 1, 1), fext, flags):
        return -1
    I, F = _split(P)
    fe = fext if flags & FL_FEXT else np.zeros((0, 6))
    qdd = np.empty(int(P[2]))
    err = aba.aba(I, F, q, v, tau, fe, flags, float(eps), qdd)
    return qdd if err == 0 else int(err)


def numba_crba1(P, q, flags):
    """:func:`crba1` on the numba kernel."""
    from . import crba

    if not _vec(q):
        return -1
    I, F = _split(P)
    nv = int(P[2])
    M = np.empty((nv, nv))
    err = crba.crba(I, F, q, flags, M)
    return M if err == 0 else int(err)


def numba_coriolis1(P, q, v, flags):
    """:func:`coriolis1` on the numba kernel."""
    from . import coriolis

    if not (_vec(q) and _vec(v)):
        return -1
    I, F = _split(P)
    nv = int(P[2])
    C = np.empty((nv, nv))
    err = coriolis.coriolis(I, F, q, v, flags, C)
    return C if err == 0 else int(err)


_native, WHY = _load_native()
NATIVE = _native is not None
native = _native  # the C module (also frame poses and Jacobians), or None
if NATIVE:
    rnea1, aba1, crba1, coriolis1 = _native.rnea, _native.aba, _native.crba, _native.coriolis
else:
    rnea1, aba1, crba1, coriolis1 = numba_rnea1, numba_aba1, numba_crba1, numba_coriolis1
