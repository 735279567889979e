"""Mass-matrix based kernels: forward dynamics by Cholesky of M (the "crba" method, also
the path for models with mimic joints) and M^-1.

qdd = M(q)^-1 (tau - h(q, v)), with M from CRBA (armature included) and h = rnea(q, v, 0)
(gravity, velocity products, external wrenches and joint friction).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._pack import FL_ARMATURE, FL_CHECK, FL_FEXT, FL_FRICTION, FL_GRAVITY, FL_VEL
from ._small import nonfinite
from .crba import WC, cholesky_inplace, cholesky_solve, crba_core
from .rnea import WW, rnea_core

_RNEA_KEEP = FL_FRICTION | FL_CHECK | FL_FEXT | FL_GRAVITY


@njit(cache=True, nogil=True)
def forward_crba_core(I, F, q, v, tau, fext, flags, eps, qdd, M, W):
    """qdd for one state; M (nv, nv) and W (max(WW, WC) nb,) are scratch.

    Returns 0, an input error code (11-15) or 2000 + k when the Cholesky pivot of dof k is
    not positive (M singular).
    """
    nv = I[2]
    if (flags & FL_CHECK) and nonfinite(tau):
        return 13
    # h = C(q, v) v + g(q) - J^T F_ext + friction: inverse dynamics with qdd = 0
    err = rnea_core(I, F, q, v, v, fext, (flags & _RNEA_KEEP) | FL_VEL, eps, qdd, W)
    if err:
        return err
    err = crba_core(I, F, q, flags & (FL_ARMATURE | FL_CHECK), M, W)
    if err:
        return err
    for k in range(nv):
        qdd[k] = tau[k] - qdd[k]
    # M = L L^T (lower triangle), then qdd = L^-T L^-1 (tau - h)
    j = cholesky_inplace(M, nv)
    if j >= 0:
        return 2000 + j
    cholesky_solve(M, nv, qdd)
    return 0


@njit(cache=True, nogil=True)
def forward_crba(I, F, q, v, tau, fext, flags, eps, qdd):
    """Single state (sizes checked here). Returns 0 or an error code."""
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq:
        return 1
    if v.shape[0] != nv:
        return 2
    if tau.shape[0] != nv:
        return 3
    if (flags & FL_FEXT) and fext.shape[0] != nb:
        return 4
    if qdd.shape[0] != nv:
        return 5
    M = np.empty((nv, nv))
    W = np.empty(max(WW, WC) * nb)
    return forward_crba_core(I, F, q, v, tau, fext, flags, eps, qdd, M, W)


@njit(cache=True, nogil=True, parallel=True)
def forward_crba_batch(I, F, Q, V, TAU, FE, flags, eps, QDD):
    """Batch over rows. Returns (first failing state or -1, its code)."""
    nb, nv = I[0], I[2]
    N = Q.shape[0]
    nchunk = min(N, 256)  # chunks share the threads; each allocates its workspace once
    status = np.zeros(N, dtype=np.int64)
    for c in prange(nchunk):
        M = np.empty((nv, nv))
        W = np.empty(max(WW, WC) * nb)
        fe0 = np.zeros((0, 6))
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            if flags & FL_FEXT:
                fe = FE[s]
            else:
                fe = fe0
            status[s] = forward_crba_core(I, F, Q[s], V[s], TAU[s], fe, flags, eps, QDD[s], M, W)
    for s in range(N):
        if status[s] != 0:
            return s, status[s]
    return -1, 0


@njit(cache=True, nogil=True)
def mass_inverse_core(I, F, q, flags, Minv, M, W):
    """M(q)^-1 into Minv (nv, nv); M and W scratch. Returns 0 or an error code."""
    nv = I[2]
    err = crba_core(I, F, q, flags, M, W)
    if err:
        return err
    j = cholesky_inplace(M, nv)
    if j >= 0:
        return 2000 + j
    for c in range(nv):
        for r in range(nv):
            Minv[r, c] = 1.0 if r == c else 0.0
    for c in range(nv):
        cholesky_solve(M, nv, Minv[:, c])
    return 0


@njit(cache=True, nogil=True)
def mass_inverse(I, F, q, flags, Minv):
    """Single state M^-1. Returns 0 or an error code."""
    nb, nq, nv = I[0], I[1], I[2]
    if q.shape[0] != nq:
        return 1
    M = np.empty((nv, nv))
    W = np.empty(WC * nb)
    return mass_inverse_core(I, F, q, flags, Minv, M, W)


@njit(cache=True, nogil=True, parallel=True)
def mass_inverse_batch(I, F, Q, flags, MINV):
    """Batch M^-1. Returns (first failing state or -1, its code)."""
    nb, nv = I[0], I[2]
    N = Q.shape[0]
    nchunk = min(N, 256)  # chunks share the threads; each allocates its workspace once
    status = np.zeros(N, dtype=np.int64)
    for c in prange(nchunk):
        M = np.empty((nv, nv))
        W = np.empty(WC * nb)
        for s in range(c * N // nchunk, (c + 1) * N // nchunk):
            status[s] = mass_inverse_core(I, F, Q[s], flags, MINV[s], M, W)
    for s in range(N):
        if status[s] != 0:
            return s, status[s]
    return -1, 0
