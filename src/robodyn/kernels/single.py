"""Single-state entry points with few arguments and explicit signatures (the fast path).

numba's dispatcher costs a few hundred ns per argument, so these take only the packed
model (I, F), the state, the output and an int of flags (no external wrenches, sharp
Coulomb friction). They are compiled eagerly for C-contiguous float64 vectors (loaded from
the on-disk cache when warm) and then refuse other types with TypeError, which the
wrappers catch to fall back to their general path (conversion, batches, error messages).
A nonzero return code also sends the wrapper to its general path, which raises the
proper error.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._pack import FL_ACC, FL_VEL
from .aba import _SCRATCH, WA, aba_core
from .crba import WC, crba_core
from .rnea import WW, rnea_core

_V = "float64[::1]"


@njit(f"int64(int64[::1], {_V}, {_V}, {_V}, {_V}, {_V}, int64)", cache=True, nogil=True)
def rnea1(I, F, q, v, a, tau, flags):
    """tau = rnea(q, v, a) (v, a read only when FL_VEL / FL_ACC are set)."""
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq or tau.shape[0] != nv:
        return 1
    if ((flags & FL_VEL) and v.shape[0] != nv) or ((flags & FL_ACC) and a.shape[0] != nv):
        return 2
    W = np.empty(WW * nb)
    return rnea_core(I, F, q, v, a, np.empty((0, 6)), flags, 0.0, tau, W)


@njit(f"int64(int64[::1], {_V}, {_V}, {_V}, {_V}, {_V}, int64)", cache=True, nogil=True)
def aba1(I, F, q, v, tau, qdd, flags):
    """qdd = aba(q, v, tau)."""
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq or v.shape[0] != nv or tau.shape[0] != nv or qdd.shape[0] != nv:
        return 1
    W = np.empty(WA * nb + _SCRATCH)
    return aba_core(I, F, q, v, tau, np.empty((0, 6)), flags, 0.0, qdd, W)


@njit(f"int64(int64[::1], {_V}, {_V}, float64[:, ::1], int64)", cache=True, nogil=True)
def crba1(I, F, q, M, flags):
    """M = crba(q)."""
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq or M.shape[0] != nv or M.shape[1] != nv:
        return 1
    W = np.empty(WC * nb)
    return crba_core(I, F, q, flags, M, W)
