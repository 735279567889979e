"""Single-state entry points with few arguments (the fast path of :mod:`robodyn.dynamics`).

Why they look the way they do (measured on a 7-dof arm, 2 GHz Zen 1, where the whole
inverse dynamics is ~1.0-1.3 us of arithmetic and a call costs ~3.5 us from Python):

* numba's dispatcher costs ~0.45 us per call before any work (type the arguments, pick
  the overload) and ~80 ns per array argument to unbox. The model therefore travels as
  one int64 array ``P`` (``I`` followed by the bytes of ``F``, see
  :mod:`robodyn.kernels._pack`), not two.
* The dispatcher is kept (rather than calling the overload's C entry point directly,
  ~0.4 us cheaper): the entry point does not check types, and the Python tests it would
  need for memory safety (dtype, ndim, contiguity of three arrays) cost ~0.8 us, more
  than the dispatcher's own typing in C. After its one signature is compiled the
  dispatcher compiles nothing else and raises TypeError for any other argument types,
  which the wrappers catch to take their general path (conversion, batches, errors).
* Sizes and finiteness are checked inside the kernel (flag ``FL_CHECK``); a nonzero
  return code sends the wrapper to its general path, which raises the proper error.
* Nothing is compiled or loaded at import: each entry point is loaded from numba's
  on-disk cache (or compiled) the first time it is asked for (:func:`entry`), so a script
  that only calls inverse dynamics loads only ``rnea1`` (each costs ~0.1-0.2 s to load).
* The workspace is allocated inside the kernel (~50 ns): a workspace cached on the model
  would cost an argument to unbox and would not be safe for threads calling concurrently
  (the kernels release the GIL). The output is allocated by the wrapper (np.empty,
  ~0.35 us): returning an array allocated in numba costs ~1 us to box.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._pack import FL_ACC, FL_VEL, HI, WI
from .aba import _SCRATCH, WA, aba_core
from .crba import WC, crba_core
from .rnea import WW, rnea_core

__all__ = ["entry", "rnea1", "aba1", "crba1"]

_jit = njit(cache=True, nogil=True)


@_jit
def _split(P):
    """(I, F) from the packed model P: I is P[:HI + WI nb], F the float64 view of the rest."""
    n = HI + WI * P[0]
    return P[:n], P[n:].view(np.float64)


@_jit
def rnea1(P, q, v, a, tau, flags):
    """tau = rnea(q, v, a) (v, a read only when FL_VEL / FL_ACC are set).

    Returns 0, 1 for a wrong size, or the error code of :func:`~.rnea.rnea_core`.
    """
    I, F = _split(P)
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq or tau.shape[0] != nv:
        return 1
    if ((flags & FL_VEL) and v.shape[0] != nv) or ((flags & FL_ACC) and a.shape[0] != nv):
        return 1
    W = np.empty(WW * nb)
    return rnea_core(I, F, q, v, a, np.empty((0, 6)), flags, 0.0, tau, W)


@_jit
def aba1(P, q, v, tau, qdd, flags):
    """qdd = aba(q, v, tau). Returns 0, 1 for a wrong size, or aba_core's error code."""
    I, F = _split(P)
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq or v.shape[0] != nv or tau.shape[0] != nv or qdd.shape[0] != nv:
        return 1
    W = np.empty(WA * nb + _SCRATCH)
    return aba_core(I, F, q, v, tau, np.empty((0, 6)), flags, 0.0, qdd, W)


@_jit
def crba1(P, q, M, flags):
    """M = crba(q). Returns 0, 1 for a wrong size, or crba_core's error code."""
    I, F = _split(P)
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq or M.shape[0] != nv or M.shape[1] != nv:
        return 1
    W = np.empty(WC * nb)
    return crba_core(I, F, q, flags, M, W)


_P = "int64[::1]"
_IN = "float64[::1]"
_OUT = "float64[::1]"
_SIGS = {
    "rnea1": (rnea1, f"int64({_P}, {_IN}, {_IN}, {_IN}, {_OUT}, int64)"),
    "aba1": (aba1, f"int64({_P}, {_IN}, {_IN}, {_IN}, {_OUT}, int64)"),
    "crba1": (crba1, f"int64({_P}, {_IN}, float64[:, ::1], int64)"),
}
_ENTRIES: dict = {}


def entry(name: str):
    """The kernel ``name`` ("rnea1", "aba1", "crba1") compiled for its one signature.

    Loaded from numba's on-disk cache, or compiled, on the first request; after that the
    dispatcher compiles nothing else and raises TypeError for any other argument types
    (which the wrappers catch to take their general path).
    """
    disp = _ENTRIES.get(name)
    if disp is None:
        disp, sig = _SIGS[name]
        disp.compile(sig)
        disp.disable_compile()
        _ENTRIES[name] = disp
    return disp
